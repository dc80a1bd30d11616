//! How the benchmarks measure: this example and `benches/nvml-wrapper-compare` (which
//! includes this file) time the same way, so their figures can be set side by side.

use std::time::Instant;

/// Runs per figure; the median is reported.
pub const RUNS: usize = 9;
/// Calls per run of a getter.
pub const GETTER_CALLS: u32 = 1_000_000;
/// Cycles per run of init + drop.
pub const INIT_CYCLES: u32 = 2_000;

/// Nanoseconds per call of `a` and of `b`: the medians of [`RUNS`] runs of `n` calls each.
/// The runs of the two alternate, so that drift in the machine's speed hits both alike.
pub fn compare(n: u32, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64) {
    let (mut ta, mut tb) = (Vec::with_capacity(RUNS), Vec::with_capacity(RUNS));
    for _ in 0..RUNS {
        ta.push(per_call(n, &mut a));
        tb.push(per_call(n, &mut b));
    }
    (median(ta), median(tb))
}

/// Prints `NAME.KEY VALUE UNIT  WHAT` for `a` and `b`, then `NAME.ratio` (a / b): the lines
/// `benches/compare.sh` reads.
pub fn report(name: &str, unit: &str, a: (&str, f64, &str), b: (&str, f64, &str)) {
    println!("{name}.{} {:.2} {unit}  {}", a.0, a.1, a.2);
    println!("{name}.{} {:.2} {unit}  {}", b.0, b.1, b.2);
    println!("{name}.ratio {:.3} x  {} / {}", a.1 / b.1, a.0, b.0);
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
