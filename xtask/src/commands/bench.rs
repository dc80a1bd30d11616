//! `cargo xtask bench`: how long a full regen takes, phase by phase, and — when a `bindgen`
//! binary is available — bindgen's CLI on the same header in the same run, as a ratio.
//! The phases are the pipeline's own ([`crate::pipeline::Observer`]), so the bench times
//! exactly what `regen` runs; the emit phase includes reading the function history. Medians
//! of several runs; build with `--release` for numbers worth reporting.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::regen;
use crate::emit;
use crate::fetch::headers;
use crate::pipeline::{self, Inputs, Observer, Phase};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// Durations of one run, by phase.
#[derive(Default)]
struct Run {
    phases: Vec<(Phase, Duration)>,
}

impl Observer for Run {
    fn phase(&mut self, phase: Phase, took: Duration) {
        self.phases.push((phase, took));
    }
}

/// Times `runs` full regens (parse, rules, plan, emit, check against the tree) of `inputs`.
pub fn run(root: &Path, inputs: &Inputs, runs: usize, bindgen: Option<&str>) -> Result<()> {
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    let header = headers::resolve(root, inputs.header.as_deref())?;
    let phases = [Phase::Parse, Phase::Rules, Phase::Plan, Phase::Emit];
    let mut by_phase: Vec<Vec<Duration>> = vec![Vec::new(); phases.len()];
    let (mut check, mut total) = (vec![], vec![]);
    // Each emit job's times, in the pipeline's order, and the threads they ran on.
    let mut jobs: Vec<(&'static str, Vec<Duration>)> = Vec::new();
    let mut threads = 0;
    for _ in 0..runs {
        let t0 = Instant::now();
        let mut timing = Run::default();
        let out = pipeline::generate_observed(root, inputs, &mut timing)?;
        let t1 = Instant::now();
        regen::check(root, &out)?;
        let t2 = Instant::now();
        for (phase, took) in timing.phases {
            if let Some(i) = phases.iter().position(|p| *p == phase) {
                by_phase[i].push(took);
            }
        }
        threads = out.timings.threads;
        for (i, (name, took)) in out.timings.jobs.iter().enumerate() {
            match jobs.get_mut(i) {
                Some((_, times)) => times.push(*took),
                None => jobs.push((name, vec![*took])),
            }
        }
        check.push(t2 - t1);
        total.push(t2 - t0);
    }
    println!(
        "regen of nvml.h {} (median of {runs} runs{}):",
        header.info.version,
        if cfg!(debug_assertions) { ", DEBUG build" } else { "" }
    );
    let labels = ["parse (clang, 2 passes)", "rules", "plan", "emit + format"];
    for (label, times) in labels.iter().zip(by_phase) {
        if !times.is_empty() {
            println!("  {label:<23} {}", ms(median(times)));
        }
    }
    println!("  emit jobs, on {threads} threads ({} cores), each emitting and laying out its files:", emit::threads());
    for (name, times) in jobs {
        println!("    {name:<21} {}", ms(median(times)));
    }
    println!("  {:<23} {}", "compare with the tree", ms(median(check)));
    let ours = median(total);
    println!("  {:<23} {}", "total", ms(ours));
    let Some(bindgen) = bindgen else {
        println!("bindgen: not measured (pass --bindgen PATH, or put `bindgen` on PATH)");
        return Ok(());
    };
    let out_file = std::env::temp_dir().join("nvmlkit-bench-bindgen.rs");
    let mut times = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let status = Command::new(bindgen)
            .arg(&header.path)
            .arg("-o")
            .arg(&out_file)
            .args(["--dynamic-loading", "Nvml", "--", "-DNVML_NO_UNVERSIONED_FUNC_DEFS"])
            .status()
            .with_context(|| format!("cannot run {bindgen}"))?;
        if !status.success() {
            bail!("{bindgen} failed on {}", header.path.display());
        }
        times.push(t.elapsed());
    }
    let theirs = median(times);
    println!("bindgen --dynamic-loading on the same header: {} (median of {runs})", ms(theirs));
    println!("ratio: regen takes {:.2}x bindgen's time", ours.as_secs_f64() / theirs.as_secs_f64());
    Ok(())
}
