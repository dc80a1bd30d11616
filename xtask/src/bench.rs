//! `cargo xtask bench`: how long a full regen takes, phase by phase, and — when a `bindgen`
//! binary is available — bindgen's CLI on the same header in the same run, as a ratio.
//! The emit phase includes reading the function history. Medians of several runs; build with
//! `--release` for numbers worth reporting.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::{clang, emit, headers, regen, rules, Inputs, RULES_FILE};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// Times `runs` full regens (parse, rules, emit, check against the tree) of `inputs`.
pub fn run(root: &Path, inputs: &Inputs, runs: usize, bindgen: Option<&str>) -> Result<()> {
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    let header = headers::resolve(root, inputs.header.as_deref())?;
    let rules_path = inputs.rules.clone().unwrap_or_else(|| root.join(RULES_FILE));
    let rule_set = rules::load(&rules_path)?;
    let (mut parse, mut apply, mut emit_t, mut check, mut total) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..runs {
        let t0 = Instant::now();
        let (model, _) = clang::parse_header(&header.path, header.info.clone())?;
        let t1 = Instant::now();
        let (bindings, _) = rules::apply(model, &rule_set, RULES_FILE);
        let t2 = Instant::now();
        let table = crate::driver_table(root, inputs, &bindings.model)?;
        let mut out = emit::emit_all(&bindings)?;
        emit::mock::emit_history(&bindings, &table, &mut out)?;
        let t3 = Instant::now();
        regen::check(root, &out)?;
        let t4 = Instant::now();
        parse.push(t1 - t0);
        apply.push(t2 - t1);
        emit_t.push(t3 - t2);
        check.push(t4 - t3);
        total.push(t4 - t0);
    }
    let ours = median(total);
    println!("regen of nvml.h {} (median of {runs} runs{}):", header.info.version, if cfg!(debug_assertions) { ", DEBUG build" } else { "" });
    println!("  parse (clang, 2 passes) {}", ms(median(parse)));
    println!("  rules                   {}", ms(median(apply)));
    println!("  emit + format           {}", ms(median(emit_t)));
    println!("  compare with the tree   {}", ms(median(check)));
    println!("  total                   {}", ms(ours));
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
