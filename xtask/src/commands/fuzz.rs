//! `cargo xtask fuzz [--time SECONDS] [TARGET]`: runs the fuzz targets of `fuzz/` (cargo-fuzz,
//! libFuzzer, on a nightly toolchain) one after the other, each on its checked-in corpus
//! (`fuzz/corpus/<target>/`) for SECONDS, with its limits ([`TARGETS`]), and prints each
//! target's executions. New inputs go to `target/fuzz-corpus/<target>/`, so the checked-in
//! corpus stays as it is; a finding stops the run with the input in `fuzz/artifacts/<target>/`.
//! `--seed` rewrites the seed corpora from the workspace's real files instead.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde_yaml::{Mapping, Value};

use crate::fetch::headers;

/// A fuzz target and the limits it runs under.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The binary of `fuzz/Cargo.toml`, the file `fuzz/fuzz_targets/<name>.rs` and the corpus
    /// `fuzz/corpus/<name>/`.
    pub name: &'static str,
    /// The longest input, in bytes.
    pub max_len: usize,
    /// The longest one input may run, in seconds: a slower one is a hang.
    pub timeout_s: u32,
    /// Close the target's stdout and stderr (libFuzzer keeps its own): for targets whose entry
    /// points print what they do.
    pub quiet: bool,
}

/// Every target, by name.
pub const TARGETS: &[Target] = &[
    // Each command loads the session's profile (with the changes) to check it.
    Target { name: "ctl", max_len: 4096, timeout_s: 10, quiet: false },
    Target { name: "decode", max_len: 4096, timeout_s: 10, quiet: false },
    Target { name: "driver_version", max_len: 64, timeout_s: 10, quiet: false },
    // Every input goes through libclang twice: small headers only.
    Target { name: "header", max_len: 8192, timeout_s: 30, quiet: true },
    Target { name: "mock_env", max_len: 1024, timeout_s: 10, quiet: false },
    Target { name: "profile", max_len: 32768, timeout_s: 10, quiet: false },
    Target { name: "rules", max_len: 65536, timeout_s: 10, quiet: false },
];

/// How much memory one target may hold, in MiB: more is a finding.
const RSS_LIMIT_MB: u32 = 2048;

/// What a target's run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub target: &'static str,
    /// Executions, as libFuzzer counts them.
    pub runs: u64,
    pub seconds: u64,
    /// Whether libFuzzer stopped without a finding.
    pub clean: bool,
}

/// The target named `name`.
pub fn target(name: &str) -> Result<Target> {
    let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    TARGETS
        .iter()
        .find(|t| t.name == name)
        .copied()
        .with_context(|| format!("no fuzz target `{name}` (targets: {})", names.join(", ")))
}

/// Fails with what to do when the nightly toolchain or cargo-fuzz is missing.
pub fn check_tools(root: &Path) -> Result<()> {
    let ok = |args: &[&str]| {
        Command::new("cargo").args(args).current_dir(root).stdout(Stdio::null()).stderr(Stdio::null()).status()
    };
    if !ok(&["+nightly", "--version"]).is_ok_and(|s| s.success()) {
        bail!(
            "the fuzz targets need a nightly toolchain, and `cargo +nightly --version` fails: \
             install one with `rustup toolchain install nightly --profile minimal`"
        );
    }
    if !ok(&["+nightly", "fuzz", "--version"]).is_ok_and(|s| s.success()) {
        bail!("the fuzz targets need cargo-fuzz, and `cargo +nightly fuzz --version` fails: install it with `cargo install cargo-fuzz`");
    }
    Ok(())
}

/// cargo-fuzz's build options: release with debug assertions (an overflow is a finding), and no
/// sanitizer: the code under test is safe Rust but for plain-data copies, and AddressSanitizer
/// would cost most of the executions (`cargo +nightly fuzz run -s address TARGET` runs one
/// target with it).
pub const BUILD: &[&str] = &["--debug-assertions", "--sanitizer", "none"];

/// Builds every target ([`BUILD`]), then runs
/// `only` (or each target) for `seconds`; `false` when one found something.
pub fn run(root: &Path, seconds: u64, only: Option<&str>) -> Result<bool> {
    check_tools(root)?;
    let targets = match only {
        Some(name) => vec![target(name)?],
        None => TARGETS.to_vec(),
    };
    let status = Command::new("cargo")
        .args(["+nightly", "fuzz", "build"])
        .args(BUILD)
        .current_dir(root)
        .status()
        .context("cannot run cargo-fuzz")?;
    if !status.success() {
        bail!("`cargo +nightly fuzz build {}` failed", BUILD.join(" "));
    }
    let mut outcomes = Vec::new();
    for t in targets {
        let outcome = run_one(root, &t, seconds)?;
        let clean = outcome.clean;
        outcomes.push(outcome);
        if !clean {
            break;
        }
    }
    println!("\n| target | executions | seconds | per second | result |\n|---|---|---|---|---|");
    for o in &outcomes {
        let rate = o.runs.checked_div(o.seconds).unwrap_or(o.runs);
        let result = if o.clean { "clean".to_string() } else { format!("FINDING in fuzz/artifacts/{}/", o.target) };
        println!("| {} | {} | {} | {rate} | {result} |", o.target, o.runs, o.seconds);
    }
    Ok(outcomes.iter().all(|o| o.clean))
}

/// libFuzzer's options for `t`.
pub fn libfuzzer_args(t: &Target, seconds: u64) -> Vec<String> {
    let mut args = vec![
        format!("-max_total_time={seconds}"),
        format!("-max_len={}", t.max_len),
        format!("-timeout={}", t.timeout_s),
        format!("-rss_limit_mb={RSS_LIMIT_MB}"),
        "-print_final_stats=1".to_string(),
    ];
    if t.quiet {
        args.push("-close_fd_mask=3".to_string());
    }
    args
}

fn run_one(root: &Path, t: &Target, seconds: u64) -> Result<Outcome> {
    let work = root.join("target/fuzz-corpus").join(t.name);
    std::fs::create_dir_all(&work).with_context(|| format!("cannot create {}", work.display()))?;
    let seeds = root.join("fuzz/corpus").join(t.name);
    println!("== fuzz target {} for {seconds} s (corpus {})", t.name, seeds.display());
    let mut child = Command::new("cargo")
        .args(["+nightly", "fuzz", "run"])
        .args(BUILD)
        .arg(t.name)
        .arg(&work)
        .arg(&seeds)
        .arg("--")
        .args(libfuzzer_args(t, seconds))
        .current_dir(root)
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run cargo-fuzz")?;
    let start = std::time::Instant::now();
    let (mut runs, mut secs) = (0, None);
    if let Some(err) = child.stderr.take() {
        for line in BufReader::new(err).lines() {
            let line = line.context("reading libFuzzer's output")?;
            eprintln!("{line}");
            if let Some(n) = line.strip_prefix("stat::number_of_executed_units: ") {
                runs = n.trim().parse().unwrap_or(0);
            }
            if let Some((n, s)) = done_line(&line) {
                (runs, secs) = (n, Some(s));
            }
        }
    }
    let status = child.wait().context("waiting for cargo-fuzz")?;
    // A finding ends the run without the `Done` line: its time is the run's.
    let seconds = secs.unwrap_or_else(|| start.elapsed().as_secs()).max(1);
    Ok(Outcome { target: t.name, runs, seconds, clean: status.success() })
}

/// libFuzzer's last line, `Done 123 runs in 60 second(s)`: the runs and the seconds.
pub fn done_line(line: &str) -> Option<(u64, u64)> {
    let rest = line.strip_prefix("Done ")?;
    let (runs, rest) = rest.split_once(" runs in ")?;
    let secs = rest.split_whitespace().next()?;
    Some((runs.parse().ok()?, secs.parse().ok()?))
}

/// Rewrites the seed corpora (`only`'s, or every one) from the real files (see each
/// `seeds_*`); then minimize each with `cargo +nightly fuzz cmin TARGET` and commit the result.
pub fn seed(root: &Path, only: Option<&str>) -> Result<()> {
    if let Some(name) = only {
        target(name)?;
    }
    let corpus = root.join("fuzz/corpus");
    let sets = [
        ("ctl", seeds_ctl(root)?),
        ("rules", seeds_rules(root)?),
        ("header", seeds_header(root)?),
        ("profile", seeds_profile(root)?),
        ("mock_env", seeds_mock_env(root)?),
        ("driver_version", seeds_driver_version(root)?),
        ("decode", seeds_decode()),
    ];
    for (name, seeds) in sets.into_iter().filter(|(name, _)| only.is_none_or(|o| o == *name)) {
        let dir = corpus.join(name);
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let unique: BTreeSet<Vec<u8>> = seeds.into_iter().collect();
        for (i, s) in unique.iter().enumerate() {
            let path = dir.join(format!("seed-{i:04}"));
            std::fs::write(&path, s).with_context(|| format!("cannot write {}", path.display()))?;
        }
        println!("{name}: {} seeds in {}", unique.len(), dir.display());
    }
    Ok(())
}

fn read_all(files: impl IntoIterator<Item = PathBuf>) -> Result<Vec<Vec<u8>>> {
    files.into_iter().map(|p| std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))).collect()
}

/// Every file under `dir`, in name order (none when it is not a directory).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    files_under(dir).into_iter().filter(|p| p.extension().is_some_and(|x| x == ext)).collect()
}

/// The generator's YAML files: `gen-config/` and the fixtures'.
fn seeds_rules(root: &Path) -> Result<Vec<Vec<u8>>> {
    let mut files = files_with(&root.join("gen-config"), "yaml");
    files.extend(files_with(&root.join("tests/fixtures"), "yaml"));
    read_all(files)
}

/// The fixtures' headers, and each published header cut into pieces of at most 4 KiB at
/// top-level declarations, each after a prelude of the types every piece needs: the pieces of
/// every header that is vendored or in the cache (`cargo xtask history` fetches them all).
fn seeds_header(root: &Path) -> Result<Vec<Vec<u8>>> {
    let mut seeds = read_all(files_with(&root.join("tests/fixtures"), "h"))?;
    let mut versions = headers::vendored_versions(root)?;
    versions.extend(headers::corpus(root)?.into_iter().map(|c| c.version));
    let paths: BTreeSet<PathBuf> = versions
        .iter()
        .filter_map(|v| {
            let vendored = headers::headers_dir(root).join(v).join("nvml.h");
            if vendored.is_file() {
                Some(vendored)
            } else {
                headers::cached(root, v)
            }
        })
        .collect();
    for p in paths {
        let text = std::fs::read_to_string(&p).with_context(|| format!("cannot read {}", p.display()))?;
        seeds.extend(header_pieces(&text, 4096).into_iter().map(|piece| format!("{PRELUDE}{piece}").into_bytes()));
    }
    Ok(seeds)
}

/// What a piece of nvml.h refers to without declaring it.
const PRELUDE: &str = "typedef enum nvmlReturn_enum { NVML_SUCCESS = 0 } nvmlReturn_t;\n\
                       typedef struct nvmlDevice_st *nvmlDevice_t;\n\
                       #define DECLDIR\n";

/// `text` cut between top-level declarations (a blank line at brace depth 0, outside
/// `extern "C"`) into pieces of at most `max` bytes; longer declarations are dropped.
pub fn header_pieces(text: &str, max: usize) -> Vec<String> {
    let mut decls = Vec::new();
    let (mut cur, mut depth, mut in_comment) = (String::new(), 0i32, false);
    for line in text.lines() {
        // `extern "C" {` wraps the whole header.
        if !line.trim_start().starts_with("extern \"C\"") {
            depth += braces(line, &mut in_comment);
        }
        cur.push_str(line);
        cur.push('\n');
        if depth <= 0 && line.trim().is_empty() && !cur.trim().is_empty() {
            decls.push(std::mem::take(&mut cur));
            depth = 0;
        }
    }
    decls.push(cur);
    let mut pieces = Vec::new();
    let mut piece = String::new();
    for d in decls.into_iter().filter(|d| d.len() <= max) {
        if piece.len() + d.len() > max {
            pieces.push(std::mem::take(&mut piece));
        }
        piece.push_str(&d);
    }
    pieces.push(piece);
    pieces.retain(|p| !p.trim().is_empty());
    pieces
}

/// The braces a line of C opens (less those it closes), outside comments; `in_comment` carries
/// a block comment from line to line.
fn braces(line: &str, in_comment: &mut bool) -> i32 {
    let (mut n, mut rest) = (0, line);
    loop {
        if *in_comment {
            match rest.find("*/") {
                Some(i) => (rest, *in_comment) = (&rest[i + 2..], false),
                None => return n,
            }
        }
        let end = [rest.find("/*"), rest.find("//")].into_iter().flatten().min().unwrap_or(rest.len());
        n += rest[..end].matches('{').count() as i32 - rest[..end].matches('}').count() as i32;
        if rest[end..].starts_with("/*") {
            (rest, *in_comment) = (&rest[end + 2..], true);
        } else {
            return n;
        }
    }
}

/// Every shipped profile and base, and the captures of real GPUs (`tests/real/runs/`); one
/// longer than the target's inputs (a capture) cut into profiles of a part of its keys each.
fn seeds_profile(root: &Path) -> Result<Vec<Vec<u8>>> {
    let mock = root.join("crates/nvml-mock");
    let mut files = files_with(&mock.join("profiles"), "yaml");
    files.extend(files_with(&mock.join("tests/real/runs"), "yaml"));
    let max = target("profile")?.max_len;
    let mut seeds = Vec::new();
    for (file, text) in files.iter().zip(read_all(files.iter().cloned())?) {
        if text.len() <= max {
            seeds.push(text);
            continue;
        }
        let text = String::from_utf8_lossy(&text);
        let doc: Value = serde_yaml::from_str(&text).with_context(|| format!("{}: not YAML", file.display()))?;
        seeds.extend(profile_pieces(&doc, max / 4).into_iter().map(String::into_bytes));
    }
    Ok(seeds)
}

/// A profile cut into profiles of at most about `max` bytes each: each keeps the top-level
/// keys but the devices and takes a run of the first device's keys (one device is a capture's
/// every answer), and one more takes the system's keys alone.
pub fn profile_pieces(doc: &Value, max: usize) -> Vec<String> {
    let Some(top) = doc.as_mapping() else { return Vec::new() };
    let text = |m: &Mapping| serde_yaml::to_string(m).unwrap_or_default();
    let mut head = top.clone();
    head.remove("devices");
    let system = head.remove("system");
    let first = top.get("devices").and_then(Value::as_sequence).and_then(|d| d.first()).and_then(Value::as_mapping);
    let mut pieces = Vec::new();
    let mut device = Mapping::new();
    let piece = |device: &Mapping| {
        let mut p = head.clone();
        p.insert("devices".into(), Value::Sequence(vec![Value::Mapping(device.clone())]));
        text(&p)
    };
    for (k, v) in first.into_iter().flatten() {
        device.insert(k.clone(), v.clone());
        if device.len() > 1 && piece(&device).len() > max {
            device.remove(k);
            pieces.push(piece(&device));
            device = Mapping::from_iter([(k.clone(), v.clone())]);
        }
    }
    pieces.push(piece(&device));
    if let Some(system) = system {
        let mut p = head.clone();
        p.insert("system".into(), system);
        p.insert("devices".into(), Value::Sequence(vec![Value::Mapping(Mapping::new())]));
        pieces.push(text(&p));
    }
    pieces
}

/// `nvml-mock ctl` commands: those the mock's tests run (each array of string literals that
/// starts with a command word), one an input, and a test file's in inputs of 8 (the first of
/// them also under each built-in profile the tests use); a command whose arguments hold a
/// space is written with tabs between them.
fn seeds_ctl(root: &Path) -> Result<Vec<Vec<u8>>> {
    let mut seeds = Vec::new();
    for f in files_with(&root.join("crates/nvml-mock/tests"), "rs") {
        let text = std::fs::read_to_string(&f).with_context(|| format!("cannot read {}", f.display()))?;
        let commands: Vec<String> = string_arrays(&text)
            .into_iter()
            .filter(|a| a.first().is_some_and(|w| CTL_COMMANDS.contains(&w.as_str())))
            .map(|a| a.join(if a.iter().any(|w| w.contains(' ')) { "\t" } else { " " }))
            .collect();
        let profiles: BTreeSet<String> = literals_after(&text, "\"NVML_MOCK_PROFILE\",").into_iter().collect();
        for (i, chunk) in commands.chunks(8).enumerate() {
            seeds.push(format!("{}\n", chunk.join("\n")));
            if i == 0 {
                seeds.extend(profiles.iter().map(|p| format!("profile {p}\n{}\n", chunk.join("\n"))));
            }
        }
        seeds.extend(commands.into_iter().map(|c| format!("{c}\n")));
    }
    Ok(seeds.into_iter().map(String::into_bytes).collect())
}

/// The commands of `nvml-mock ctl`.
const CTL_COMMANDS: &[&str] = &["set", "error", "event", "lost", "reset", "show"];

/// The string literals of each array of them in `text` (`["a", "b"]`, no escapes).
fn string_arrays(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("[\"") {
        let Some(end) = text[i..].find(']') else { continue };
        let body = &text[i + 1..i + end];
        let items: Option<Vec<String>> = body
            .split(',')
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .map(|s| s.strip_prefix('"')?.strip_suffix('"').filter(|s| !s.contains('"')).map(String::from))
            .collect();
        out.extend(items);
    }
    out
}

/// The values the workspace's code and tests give the mock's variables: each string literal
/// written after `"NVML_MOCK_<VAR>",` or passed to `parse_faults(`.
fn seeds_mock_env(root: &Path) -> Result<Vec<Vec<u8>>> {
    let mut seeds = Vec::new();
    for f in files_with(&root.join("crates"), "rs") {
        let text = std::fs::read_to_string(&f).with_context(|| format!("cannot read {}", f.display()))?;
        for var in ["FAULTS", "LIVE_PIDS", "CLOCK", "HOSTILE"] {
            seeds.extend(literals_after(&text, &format!("\"NVML_MOCK_{var}\",")));
        }
        seeds.extend(literals_after(&text, "parse_faults("));
    }
    Ok(seeds.into_iter().map(String::into_bytes).collect())
}

/// The string literals right after each `marker` in `text` (blanks between them skipped).
fn literals_after(text: &str, marker: &str) -> Vec<String> {
    text.match_indices(marker)
        .filter_map(|(i, m)| {
            let rest = text[i + m.len()..].trim_start().strip_prefix('"')?;
            Some(rest[..rest.find('"')?].to_string())
        })
        .collect()
}

/// Driver versions: those the function history and the profiles name.
fn seeds_driver_version(root: &Path) -> Result<Vec<Vec<u8>>> {
    let mut files = vec![root.join("gen-config/function-history.yaml")];
    files.extend(files_with(&root.join("crates/nvml-mock/profiles"), "yaml"));
    let mut seeds = Vec::new();
    for text in read_all(files)? {
        let text = String::from_utf8_lossy(&text);
        for word in text.split(|c: char| !(c.is_ascii_digit() || c == '.')) {
            let word = word.trim_matches('.');
            if word.split('.').count() >= 2 && word.split('.').next().is_some_and(|m| m.len() == 3) {
                seeds.push(word.as_bytes().to_vec());
            }
        }
    }
    Ok(seeds)
}

/// One input per decoder: its number (the target takes it modulo the number of decoders).
fn seeds_decode() -> Vec<Vec<u8>> {
    (0u16..256).map(|i| i.to_le_bytes().to_vec()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn done_lines_give_runs_and_seconds() {
        assert_eq!(done_line("Done 1234567 runs in 61 second(s)"), Some((1_234_567, 61)));
        assert_eq!(done_line("#2 INITED cov: 5"), None);
    }

    #[test]
    fn pieces_end_between_declarations() {
        let text = "/* a { */\nint a;\n\nstruct s { // }\n  int x;\n\n  int y;\n};\n\nint b;\n";
        let pieces = header_pieces(text, 40);
        assert_eq!(pieces, ["/* a { */\nint a;\n\n", "struct s { // }\n  int x;\n\n  int y;\n};\n\n", "int b;\n"]);
        assert!(header_pieces(text, 1).is_empty());
    }

    /// `TARGETS` is the fuzz crate's list of binaries, each with its file and a corpus.
    #[test]
    fn targets_are_the_fuzz_crates_binaries() {
        let root = crate::workspace::project_root();
        let manifest = std::fs::read_to_string(root.join("fuzz/Cargo.toml")).unwrap();
        let mut bins: Vec<&str> = manifest
            .split("[[bin]]")
            .skip(1)
            .filter_map(|b| b.lines().find_map(|l| l.strip_prefix("name = ")))
            .map(|n| n.trim_matches('"'))
            .collect();
        bins.sort_unstable();
        let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        assert_eq!(bins, names, "fuzz/Cargo.toml's [[bin]]s and TARGETS (in name order)");
        for n in names {
            assert!(root.join(format!("fuzz/fuzz_targets/{n}.rs")).is_file(), "fuzz/fuzz_targets/{n}.rs");
            let corpus = std::fs::read_dir(root.join("fuzz/corpus").join(n)).map(|d| d.count()).unwrap_or(0);
            assert!(corpus > 0, "fuzz/corpus/{n}/ holds no seed");
        }
    }

    #[test]
    fn profiles_are_cut_into_profiles_of_the_first_devices_keys() {
        let doc: Value = serde_yaml::from_str(
            "name: big\nsystem: {driver_version: 580.1.2}\ndevices:\n- {a: 1, b: 2, c: 3}\n- {d: 4}\n",
        )
        .unwrap();
        let pieces: Vec<Value> = profile_pieces(&doc, 35).iter().map(|p| serde_yaml::from_str(p).unwrap()).collect();
        let parse = |t: &str| serde_yaml::from_str::<Value>(t).unwrap();
        assert_eq!(
            pieces,
            [
                parse("{name: big, devices: [{a: 1, b: 2}]}"),
                parse("{name: big, devices: [{c: 3}]}"),
                parse("{name: big, system: {driver_version: 580.1.2}, devices: [{}]}"),
            ]
        );
    }

    #[test]
    fn string_arrays_are_read_whole() {
        let text = r#"ctl(s, &["set", "0", "k", "{a: 1}"]); f(["x", y]); g(["lost", "1"])"#;
        assert_eq!(string_arrays(text), [vec!["set", "0", "k", "{a: 1}"], vec!["lost", "1"]]);
    }

    #[test]
    fn literals_follow_their_marker() {
        let text = r#"env("NVML_MOCK_FAULTS", "a=1@2"), parse_faults("b=3")"#;
        assert_eq!(literals_after(text, "\"NVML_MOCK_FAULTS\","), ["a=1@2"]);
        assert_eq!(literals_after(text, "parse_faults("), ["b=3"]);
    }
}
