//! How the benchmarks measure: this example and `benches/nvml-wrapper-compare` (which
//! includes this file) time the same way, so their figures can be set side by side.
//!
//! Each subject of a comparison runs `n` calls per run; the runs of all subjects alternate
//! (each round in a rotated order), so that drift in the machine's speed hits them alike. A
//! figure is the median of the rounds; a ratio or a difference is the median of the per-round
//! ratios or differences, which cancels drift better than a ratio of medians.

#![allow(dead_code)] // Each program uses its own subset.

use std::time::Instant;

/// Rounds per comparison (after one round of warm-up, not counted); `BENCH_RUNS` overrides.
pub const RUNS: usize = 51;
/// Calls per run of a getter.
pub const GETTER_CALLS: u32 = 200_000;
/// Cycles per run of init + drop.
pub const INIT_CYCLES: u32 = 2_000;

/// One subject of a comparison: its key in the report, what it is, and a run of `n` calls
/// that answers the time per call in nanoseconds.
pub struct Subject<'a> {
    pub key: &'static str,
    pub what: &'static str,
    run: Box<dyn FnMut() -> f64 + 'a>,
}

/// A subject that calls `f` `n` times per run. The loop is compiled for `f` itself; the only
/// dynamic call is the one that starts a run.
pub fn subject<'a>(key: &'static str, what: &'static str, n: u32, mut f: impl FnMut() + 'a) -> Subject<'a> {
    Subject { key, what, run: Box::new(move || per_call(n, &mut f)) }
}

/// Nanoseconds per call of each subject, one row per round.
pub struct Samples {
    keys: Vec<&'static str>,
    whats: Vec<&'static str>,
    rounds: Vec<Vec<f64>>,
}

/// Runs every subject once per round, [`runs`] rounds after one round of warm-up.
pub fn alternate(mut subjects: Vec<Subject<'_>>) -> Samples {
    let k = subjects.len();
    let mut rounds = Vec::new();
    for round in 0..=runs() {
        let mut row = vec![0.0; k];
        for i in 0..k {
            let s = (round + i) % k;
            row[s] = (subjects[s].run)();
        }
        if round > 0 {
            rounds.push(row);
        }
    }
    Samples { keys: subjects.iter().map(|s| s.key).collect(), whats: subjects.iter().map(|s| s.what).collect(), rounds }
}

/// Rounds per comparison: `BENCH_RUNS`, else [`RUNS`].
pub fn runs() -> usize {
    std::env::var("BENCH_RUNS").ok().and_then(|r| r.parse().ok()).filter(|&r| r > 0).unwrap_or(RUNS)
}

impl Samples {
    fn index(&self, key: &str) -> usize {
        self.keys.iter().position(|k| *k == key).unwrap_or_else(|| panic!("no subject {key}"))
    }

    /// The median time per call of `key`.
    pub fn median(&self, key: &str) -> f64 {
        let i = self.index(key);
        median(self.rounds.iter().map(|r| r[i]).collect())
    }

    /// The median over rounds of `a`'s time / `b`'s.
    pub fn ratio(&self, a: &str, b: &str) -> f64 {
        let (i, j) = (self.index(a), self.index(b));
        median(self.rounds.iter().map(|r| r[i] / r[j]).collect())
    }

    /// The median over rounds of `a`'s time - `b`'s.
    pub fn difference(&self, a: &str, b: &str) -> f64 {
        let (i, j) = (self.index(a), self.index(b));
        median(self.rounds.iter().map(|r| r[i] - r[j]).collect())
    }

    /// The spread of `key` over the rounds: (lowest, highest).
    pub fn range(&self, key: &str) -> (f64, f64) {
        let i = self.index(key);
        let v: Vec<f64> = self.rounds.iter().map(|r| r[i]).collect();
        (v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(0.0, f64::max))
    }

    /// Prints `NAME.KEY MEDIAN UNIT  WHAT (range LOW..HIGH)` for every subject, then for each
    /// pair `(a, b)` of `pairs` the lines `NAME.a/b RATIO x` and `NAME.a-b DIFFERENCE UNIT`:
    /// the lines `benches/compare.sh` reads.
    pub fn report(&self, name: &str, unit: &str, pairs: &[(&str, &str)]) {
        for (key, what) in self.keys.iter().zip(&self.whats) {
            let (lo, hi) = self.range(key);
            println!("{name}.{key} {:.2} {unit}  {what} (range {lo:.2}..{hi:.2})", self.median(key));
        }
        for (a, b) in pairs {
            println!("{name}.{a}/{b} {:.3} x  median of per-round ratios", self.ratio(a, b));
            println!("{name}.{a}-{b} {:.2} {unit}  median of per-round differences", self.difference(a, b));
        }
        println!("{name}.rounds {} x  rounds of {}", self.rounds.len(), self.keys.join(", "));
    }
}

fn per_call(n: u32, f: &mut impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed().as_nanos() as f64 / f64::from(n)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
