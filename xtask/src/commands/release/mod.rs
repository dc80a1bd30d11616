//! `cargo xtask release [VERSION] [--dry-run]`: from "a new header is out" to "ready to publish";
//! `cargo xtask release --publish`: publishing a release made so.
//!
//! A release is made in a staging copy of the workspace ([`stage`]), step by step: vendor the
//! newest header (or VERSION) with update-header; the header-diff against the header of the
//! previous release (the newest entry of each package's `CHANGELOG.md`, which must be the
//! newest of the rules' `released`), which stops at a rules error; the function history and
//! regen, both keeping what the `released` headers declare (see `model::keep`); each package's
//! next version from its semver verdict ([`versions`]); a `CHANGELOG.md` entry each
//! ([`changelog`]); the versions in every `Cargo.toml`, `Cargo.lock` and README, and the new
//! header in the rules' `released`; the tests; `cargo package` and `cargo publish --dry-run` of
//! the three packages together, in dependency order. Only when every step passed
//! are the files it changed written into the workspace (`--dry-run`: never). A failed step
//! stops the release with the step's error, and the workspace is as it was.

pub mod changelog;
pub mod stage;
pub mod versions;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::commands::update_header::{update_header, Updated, Wanted};
use crate::diff::{listing, Breaking, HeaderDiff, Keep, SafeApi};
use crate::fetch::headers::{self, available};
use crate::fetch::Pip;
use crate::pipeline::{self, Inputs, Planned};
use crate::rules;
use crate::workspace::RULES_FILE;

use changelog::{Bumped, Facts};
use stage::{Changed, Stage};
use versions::{Verdict, Version, PACKAGES};

/// The test step's default: the README's test command.
pub const DEFAULT_TEST_CMD: &str = "cargo test --workspace";

/// What `cargo xtask release` is asked for.
#[derive(Debug, Clone)]
pub struct Options {
    pub wanted: Wanted,
    /// Write nothing into the workspace: print what the release would do.
    pub dry_run: bool,
    /// The test step, run by `sh -c` in the staging copy.
    pub test_cmd: String,
    /// Where to write the release's texts (see [`write_report`]), if anywhere.
    pub report_dir: Option<PathBuf>,
    /// The staging copy and its builds; default `target/nvmlkit-release/` of the workspace.
    pub work_dir: Option<PathBuf>,
    pub pip: Pip,
}

/// What a release found to do.
#[derive(Debug)]
pub enum Outcome {
    /// The newest header is the one the packages' last release binds.
    NothingNew {
        header: String,
    },
    Released(Box<Release>),
}

/// A release made (written into the workspace, or with `--dry-run` only shown).
#[derive(Debug, serde::Serialize)]
pub struct Release {
    /// The header of the previous release.
    pub previous: String,
    pub header: String,
    pub packages: Vec<Bumped>,
    /// Package → its new `CHANGELOG.md` entry.
    pub changelogs: Vec<(String, String)>,
    #[serde(skip)]
    pub diff: HeaderDiff,
    /// The files the release changes.
    #[serde(serialize_with = "paths")]
    pub changes: Vec<Changed>,
    /// Lines of the READMEs that name the previous header (`path:line: text`): hand-written
    /// statements about it, for a person to review.
    pub review: Vec<String>,
    #[serde(skip)]
    pub patch: String,
}

fn paths<S: serde::Serializer>(c: &[Changed], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_seq(c.iter().map(|c| c.to_string()))
}

/// One package as its last release left it: its version and the header that release binds.
struct Released {
    version: Version,
    header: String,
}

/// Each package's version (its `Cargo.toml`) and the header its last release binds (the
/// newest entry of its `CHANGELOG.md`, which must be of that version); all bind one header.
fn released(root: &Path) -> Result<(Vec<Released>, String)> {
    let mut out = Vec::new();
    for p in PACKAGES {
        let manifest = format!("{}/Cargo.toml", p.dir);
        let text = read(&root.join(&manifest))?;
        let version = versions::package_version(&text, &manifest)?;
        let file = format!("{}/CHANGELOG.md", p.dir);
        let Some((entry, header)) = changelog::newest_entry(&read(&root.join(&file))?) else {
            bail!("{file} has no release entry (`## VERSION (nvml.h HEADER)`): the first release's entry is written by hand");
        };
        if entry != version {
            bail!(
                "{manifest} says {version}, but the newest entry of {file} is {entry}: a release \
                 is prepared by `cargo xtask release`, which writes both"
            );
        }
        out.push(Released { version, header });
    }
    let header = out[0].header.clone();
    if let Some((p, r)) = PACKAGES.iter().zip(&out).find(|(_, r)| r.header != header) {
        bail!("{} says its last release binds nvml.h {}, {} says {header}", p.name, r.header, PACKAGES[0].name);
    }
    Ok((out, header))
}

/// The rules' `released` headers, which regen keeps from; the newest must be `previous`, the
/// header the packages' last release binds.
fn releases_kept_from(root: &Path, previous: &str) -> Result<Vec<String>> {
    let released = rules::load(&root.join(RULES_FILE))?.released;
    match released.last() {
        Some(newest) if newest == previous => Ok(released),
        newest => bail!(
            "{RULES_FILE}: released: {}, but the last release binds nvml.h {previous} (the newest entry of \
             each CHANGELOG.md): the newest header of `released` is the last release's, so that regen \
             keeps what it declared; `cargo xtask release` moves it forward",
            newest.map_or("(none)".to_string(), |n| format!("the newest is {n}"))
        ),
    }
}

/// The rules' `released` after a release of `header`: `header` alone when the release keeps
/// nothing of the earlier ones (it declares all they did), else those and `header`, so that a
/// later release still keeps what this one kept.
fn moved_released(released: &[String], header: &str, kept: &[String]) -> Vec<String> {
    let earlier = if kept.is_empty() { &[][..] } else { released };
    earlier.iter().cloned().chain([header.to_string()]).collect()
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// Prints a step's heading.
fn step(n: usize, what: &str) {
    println!("\n[{n}/7] {what}");
}

/// `cargo xtask release`: makes the release in a staging copy and, unless `--dry-run`, writes
/// the files it changed into `root` once every step passed.
pub fn run(root: &Path, o: &Options) -> Result<Outcome> {
    let root = std::fs::canonicalize(root).with_context(|| format!("cannot find {}", root.display()))?;
    // Every step reads and fills the workspace's cache, wherever it runs.
    let cache = crate::fetch::cache_dir(&root);
    std::env::set_var("NVMLKIT_CACHE", &cache);
    let (before, previous) = released(&root)?;
    let kept_from = releases_kept_from(&root, &previous)?;
    let work = o.work_dir.clone().unwrap_or_else(|| root.join("target/nvmlkit-release"));
    std::fs::create_dir_all(&work).with_context(|| format!("cannot create {}", work.display()))?;
    let work = std::fs::canonicalize(&work)?;
    let stage = Stage::create(&root, &work)?;
    let tree = &stage.tree;
    println!(
        "release: the last release binds nvml.h {previous}; working in a copy of the workspace, {}",
        tree.display()
    );

    step(1, "update-header");
    match update_header(tree, &o.wanted, &o.pip)? {
        Updated::AlreadyDefault(v) => match o.wanted {
            Wanted::Latest => println!("the newest nvml.h the package index has is {v}, vendored already"),
            Wanted::Version(_) => println!("nvml.h {v} is vendored already and is the default"),
        },
        Updated::Vendored { provenance: p, .. } => println!("vendored nvml.h {} from {}", p.version, p.package),
    }
    let header = headers::default_version(tree)?;
    if header == previous {
        let last: Vec<String> =
            PACKAGES.iter().zip(&before).map(|(p, r)| format!("{} {}", p.name, r.version)).collect();
        println!(
            "\nnothing to release: nvml.h {header} is the newest, and the last release ({}) binds it",
            last.join(", ")
        );
        if let Some(dir) = &o.report_dir {
            write_report(dir, &Outcome::NothingNew { header: header.clone() })?;
        }
        return Ok(Outcome::NothingNew { header });
    }

    step(2, &format!("header-diff {previous} → {header}"));
    // The new header as regen will read it: with what the rules' `released` headers declare
    // and it lacks, kept (the previous release's header is the newest of them).
    let diff = crate::diff::between_keeping(tree, &previous, &header, None, &o.pip, Keep::AsRegen)?;
    let errors: Vec<&String> = diff.rules.iter().filter(|r| r.starts_with("error:")).collect();
    if !errors.is_empty() {
        let list: Vec<String> = errors.iter().map(|e| format!("  {e}")).collect();
        bail!(
            "the rules cannot handle nvml.h {header}; the release stops here and nothing was written:\n{}\n\
             fix gen-config/nvml.yaml (`cargo xtask header-diff {previous} {header}` shows what changed)",
            list.join("\n")
        );
    }
    println!(
        "{} API change(s); safe crate: {}",
        diff.api_changes,
        if diff.safe.semver.is_empty() { "no verdict" } else { &diff.safe.semver }
    );

    step(3, "function history and regen");
    if !crate::commands::history::run(tree, false, &o.pip)? {
        bail!("`cargo xtask history` failed; nothing was written");
    }
    if !crate::commands::regen::run(tree, &Inputs::default(), false, tree)? {
        bail!("regen failed; nothing was written");
    }

    step(4, "versions and changelogs");
    let planned = |v: &str| -> Result<Planned> {
        let inputs = Inputs { header: Some(available(tree, v, &o.pip)?), ..Inputs::default() };
        Ok(pipeline::planned_lenient(tree, &inputs)?.0)
    };
    let old = planned(&previous).ok();
    let new = planned(&header)?;
    let old_api = old.as_ref().and_then(|p| SafeApi::of(p).ok());
    let new_api = SafeApi::of(&new)?;
    // What the crate's own changes (rules, generator, code written by hand) break of the last
    // release's API, which its listing keeps; a release that wrote none compares nothing.
    let src = tree.join(SAFE_SRC);
    let nvmlkit = PACKAGES.iter().position(|p| p.name == "nvmlkit");
    let own_breaks = match nvmlkit.and_then(|i| before.get(i)) {
        Some(r) if src.is_dir() => match listing::released(tree, &r.version.to_string())? {
            Some(old) => listing::breaks(&old, &SafeApi::of_sources(&src)?),
            None => Vec::new(),
        },
        _ => Vec::new(),
    };
    let bumped = bump(&diff, &before, &own_breaks)?;
    // The listing of this release, which the next one compares with.
    if let (Some(b), true) = (bumped.iter().find(|b| b.package == "nvmlkit"), src.is_dir()) {
        let dir = tree.join(listing::DIR);
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        write(&dir.join(format!("{}.txt", b.to)), &listing::write(&SafeApi::of_sources(&src)?))?;
    }
    for b in &bumped {
        println!("{:<13} {} → {}  ({}: {})", b.package, b.from, b.to, b.verdict.as_str(), b.why);
    }
    let facts = Facts {
        diff: &diff,
        old: old.as_ref(),
        new: &new,
        old_api: old_api.as_ref(),
        new_api: &new_api,
        bumped: &bumped,
    };
    // Each entry ended by its package's `## Unreleased` changes, which leave the file.
    let mut changelogs = changelog::entries(&facts);
    for (p, (_, entry)) in PACKAGES.iter().zip(changelogs.iter_mut()) {
        *entry = changelog::with_unreleased(&read(&tree.join(p.dir).join("CHANGELOG.md"))?, entry);
    }
    write_versions(tree, &bumped, &changelogs)?;
    let moved = moved_released(&kept_from, &header, &new.bindings.model.kept);
    let rules = tree.join(RULES_FILE);
    write(&rules, &rules::with_released(&read(&rules)?, &moved))?;
    println!("{RULES_FILE}: released: {} → {}", kept_from.join(", "), moved.join(", "));
    let review = mentions(tree, &previous)?;
    let changes = stage.changes()?;
    let patch = stage.patch()?;
    for (p, entry) in &changelogs {
        println!("\n--- {p}/CHANGELOG.md, new entry ---\n{entry}");
    }

    step(5, &format!("tests: {}", o.test_cmd));
    run_in(&stage, "the tests", "sh", &["-c", &o.test_cmd])?;

    step(6, "cargo package and cargo publish --dry-run, in dependency order");
    package(&stage, &bumped)?;
    // The release writes what it changed itself; a file the tests or cargo changed besides is
    // worth knowing (a `Cargo.lock` cargo would write otherwise, say).
    for c in stage.changes()?.iter().filter(|c| !changes.contains(c)) {
        println!("warning: the tests or cargo changed {}, which the release does not write", c.path());
    }

    if !review.is_empty() {
        println!("\nthe READMEs name nvml.h {previous} here; review these lines by hand:");
        for r in &review {
            println!("  {r}");
        }
    }
    let release = Release { previous, header, packages: bumped, changelogs, diff, changes, review, patch };
    step(
        7,
        if o.dry_run { "dry run: the workspace is left as it is" } else { "writing the release into the workspace" },
    );
    if !o.dry_run {
        stage.write_back(&root, &release.changes)?;
    }
    let verb = if o.dry_run { "would change" } else { "changed" };
    println!("the release {verb} {} file(s):", release.changes.len());
    for c in &release.changes {
        println!("  {c}");
    }
    let outcome = Outcome::Released(Box::new(release));
    if let Some(dir) = &o.report_dir {
        write_report(dir, &outcome)?;
        println!("the release's texts and patch are in {}", dir.display());
    }
    if let Outcome::Released(r) = &outcome {
        let tag = r.packages.iter().find(|b| b.package == "nvmlkit").map(|b| format!("v{}", b.to)).unwrap_or_default();
        if o.dry_run {
            println!("\nthe same command without --dry-run makes this release");
        } else {
            println!(
                "\nnext: review `git diff`, commit, tag the commit {tag} and push the tag; the release \
                 workflow publishes it with `cargo xtask release --publish --tag {tag}`"
            );
        }
    }
    Ok(outcome)
}

/// The cargo that runs this command (`$CARGO` under `cargo xtask`), else `cargo`.
fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// `cargo package` and `cargo publish --dry-run` of the three packages together, in the staging
/// copy: cargo builds each from its package, the unpublished ones among them resolved from the
/// packages it has just made.
fn package(stage: &Stage, bumped: &[Bumped]) -> Result<()> {
    let names: Vec<&str> = PACKAGES.iter().flat_map(|p| ["-p", p.name]).collect();
    forget_extracted(&bumped.iter().map(|b| (b.package, b.to)).collect::<Vec<_>>());
    let cargo = cargo();
    let args = [&["package", "--allow-dirty"][..], &names].concat();
    run_in(stage, "`cargo package`", &cargo, &args)?;
    let args = [&["publish", "--dry-run", "--allow-dirty"][..], &names].concat();
    run_in(stage, "`cargo publish --dry-run`", &cargo, &args)
}

/// The safe crate's sources, below the workspace root.
const SAFE_SRC: &str = "crates/nvml/src";

/// Each package's release, in dependency order: its own verdict, raised to major when a
/// package whose types it shows makes a breaking release, and for nvmlkit when its own
/// changes break the last release's API (`own_breaks`, against that release's listing).
fn bump(diff: &HeaderDiff, before: &[Released], own_breaks: &[Breaking]) -> Result<Vec<Bumped>> {
    let mut out: Vec<Bumped> = Vec::new();
    for (p, r) in PACKAGES.iter().zip(before) {
        let (mut verdict, mut why) = match p.name {
            "nvmlkit-sys" => {
                let v = versions::sys_verdict(diff);
                let why = match v {
                    Verdict::Major => {
                        format!("{} breaking change(s) to the header's items", versions::sys_breaks(diff).len())
                    }
                    Verdict::Minor => "the header adds items and removes or changes none".to_string(),
                    Verdict::Patch => "no item of the header changed".to_string(),
                };
                (v, why)
            }
            "nvmlkit-mock" => {
                let v = versions::mock_verdict(diff);
                let why = match v {
                    Verdict::Major => "exported functions are removed or changed".to_string(),
                    Verdict::Minor => format!("{} new exported function(s)", diff.functions.added.len()),
                    Verdict::Patch => "it exports the same functions".to_string(),
                };
                (v, why)
            }
            _ => {
                let (v, why) = versions::safe_verdict(diff)?;
                match own_breaks.len() {
                    0 => (v, why),
                    n => (
                        Verdict::Major,
                        format!(
                            "{why}; {n} change(s) of the crate itself break {}'s API (`cargo xtask api --since {}` lists them)",
                            r.version, r.version
                        ),
                    ),
                }
            }
        };
        for dep in p.exposes {
            if out.iter().any(|b| b.package == *dep && b.verdict == Verdict::Major) && verdict != Verdict::Major {
                verdict = Verdict::Major;
                why = format!("{why}, but its API shows {dep}'s types and {dep}'s release is breaking");
            }
        }
        out.push(Bumped { package: p.name, from: r.version, to: r.version.bump(verdict), verdict, why });
    }
    Ok(out)
}

/// Writes the versions (each package's `Cargo.toml`; the requirements, lock entries and README
/// install lines that name it) and prepends the changelog entries, in the staging copy.
fn write_versions(tree: &Path, bumped: &[Bumped], changelogs: &[(String, String)]) -> Result<()> {
    let files = stage::workspace_files(tree)?;
    let named = |name: &'static str| files.iter().filter(move |f| f.rsplit('/').next() == Some(name));
    for (p, b) in PACKAGES.iter().zip(bumped) {
        let manifest = format!("{}/Cargo.toml", p.dir);
        let text = versions::set_package_version(&read(&tree.join(&manifest))?, &manifest, b.to)?;
        write(&tree.join(&manifest), &text)?;
    }
    for f in named("Cargo.toml") {
        let mut text = read(&tree.join(f))?;
        for b in bumped {
            text = versions::set_requirements(&text, b.package, b.to).0;
        }
        write(&tree.join(f), &text)?;
    }
    for f in named("Cargo.lock") {
        let mut text = read(&tree.join(f))?;
        for b in bumped {
            text = versions::set_lock_version(&text, b.package, b.to);
        }
        write(&tree.join(f), &text)?;
    }
    for f in named("README.md") {
        let mut text = read(&tree.join(f))?;
        for b in bumped {
            text = versions::set_readme_requirements(&text, b.package, b.from, b.to);
        }
        write(&tree.join(f), &text)?;
    }
    for (p, (_, entry)) in PACKAGES.iter().zip(changelogs) {
        let file = tree.join(p.dir).join("CHANGELOG.md");
        write(&file, &changelog::prepend(&read(&file)?, entry))?;
    }
    Ok(())
}

/// The lines of the workspace's READMEs that name `version`, as `path:line: text`.
fn mentions(tree: &Path, version: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for f in stage::workspace_files(tree)?.iter().filter(|f| f.ends_with("README.md")) {
        for (i, line) in read(&tree.join(f))?.lines().enumerate() {
            // The version itself, not the start of a longer one (13.5.3 in 13.5.37).
            let named = line.match_indices(version).any(|(at, _)| {
                let rest = &line[at + version.len()..];
                !rest.strip_prefix('.').unwrap_or(rest).starts_with(|c: char| c.is_ascii_digit())
            });
            if named {
                out.push(format!("{f}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    Ok(out)
}

/// Runs `program` in the staging copy with its own target directory; a failure names `what`
/// and says that nothing was written.
fn run_in(stage: &Stage, what: &str, program: &str, args: &[&str]) -> Result<()> {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(&stage.tree).env("CARGO_TARGET_DIR", &stage.target);
    // What `cargo run` set for this process describes the xtask package, not the staged one.
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("CARGO_PKG_")
            || ["CARGO_MANIFEST_DIR", "CARGO_CRATE_NAME", "CARGO_BIN_NAME", "CARGO_PRIMARY_PACKAGE"]
                .contains(&key.as_ref())
        {
            cmd.env_remove(key.as_ref());
        }
    }
    // The opt-in corpus tests (this release's own test among them) are not the README's test
    // command, and would run a release inside the release.
    cmd.env_remove("NVML_CORPUS");
    let status = cmd.status().with_context(|| format!("cannot run `{program}`"))?;
    if !status.success() {
        bail!(
            "{what} failed ({status}) in the staging copy {}; the release stops here and nothing was \
             written into the workspace",
            stage.tree.display()
        );
    }
    Ok(())
}

/// Removes cargo's extractions of the packages about to be verified: cargo unpacks a package
/// it verifies into `$CARGO_HOME/registry/src/-<hash>/<name>-<version>/` and reuses an
/// extraction of the same name and version, so a package of an earlier run would be compiled
/// in place of this one.
fn forget_extracted(packages: &[(&str, Version)]) {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry/src")) else { return };
    let Ok(dirs) = std::fs::read_dir(&src) else { return };
    for d in dirs.flatten().filter(|d| d.file_name().to_string_lossy().starts_with('-')) {
        for (name, version) in packages {
            let _ = std::fs::remove_dir_all(d.path().join(format!("{name}-{version}")));
        }
    }
}

/// Writes the release's texts into `dir`: `release.json` (the header, each package's version
/// and verdict, the files changed; `"release": false` when nothing is new) and, for a release,
/// `title.txt` and `body.md` (a pull request's title and text: the versions, the changelog
/// entries and the header-diff), `header-diff.md`, `header-diff.json` and `release.patch`
/// (what `git apply` applies to the workspace as it was).
pub fn write_report(dir: &Path, outcome: &Outcome) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for f in ["release.json", "title.txt", "body.md", "header-diff.md", "header-diff.json", "release.patch"] {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let r = match outcome {
        Outcome::NothingNew { header } => {
            let json = serde_json::json!({ "release": false, "header": header });
            return write(&dir.join("release.json"), &format!("{}\n", serde_json::to_string_pretty(&json)?));
        }
        Outcome::Released(r) => r,
    };
    let mut json = serde_json::to_value(r.as_ref())?;
    json["release"] = serde_json::Value::Bool(true);
    write(&dir.join("release.json"), &format!("{}\n", serde_json::to_string_pretty(&json)?))?;
    let versions: Vec<String> = r.packages.iter().map(|b| format!("{} {}", b.package, b.to)).collect();
    write(&dir.join("title.txt"), &format!("nvml.h {}: {}\n", r.header, versions.join(", ")))?;
    let diff_md = r.diff.to_markdown();
    write(&dir.join("header-diff.md"), &diff_md)?;
    write(&dir.join("header-diff.json"), &format!("{}\n", serde_json::to_string_pretty(&r.diff)?))?;
    write(&dir.join("release.patch"), &r.patch)?;
    let mut body = format!(
        "NVIDIA published nvml.h {}; the last release binds {}. `cargo xtask release` made this \
         change and checked it: regen, the tests, `cargo package` and `cargo publish --dry-run` \
         of the three packages passed.\n\n| package | version | verdict |\n|---|---|---|\n",
        r.header, r.previous
    );
    for b in &r.packages {
        body.push_str(&format!("| {} | {} → {} | {}: {} |\n", b.package, b.from, b.to, b.verdict.as_str(), b.why));
    }
    if !r.review.is_empty() {
        body.push_str(&format!("\nThe READMEs name nvml.h {} here; review these lines by hand:\n\n", r.previous));
        for line in &r.review {
            body.push_str(&format!("- `{}`\n", line.replace('`', "'")));
        }
    }
    for (p, entry) in &r.changelogs {
        body.push_str(&format!("\n# {p}\n\n{entry}"));
    }
    // A pull request's text holds 65536 characters.
    const ROOM: usize = 60_000;
    if body.len() + diff_md.len() < ROOM {
        body.push_str(&format!("\n# The header-diff\n\n{diff_md}"));
    } else {
        body.push_str(
            "\n# The header-diff\n\nToo long for this text: header-diff.md of the workflow run's report has it.\n",
        );
    }
    write(&dir.join("body.md"), &body)
}

/// `cargo xtask release --publish [--dry-run] [--tag TAG] [--dist DIR]`: publishes the three
/// packages, in dependency order, from a clean git work tree whose versions each have their
/// changelog entry; with `tag`, the tag must be `v` and nvmlkit's version; with `dist`, the
/// mock's wheel and release archive are written there first. `--dry-run` runs `cargo publish
/// --dry-run`. Asks nothing: cargo reads the registry token from the environment.
pub fn publish(root: &Path, dry_run: bool, tag: Option<&str>, dist: Option<&Path>) -> Result<()> {
    let dirty = stage::uncommitted(root)?;
    if !dirty.is_empty() {
        let shown: Vec<&str> = dirty.iter().take(10).map(String::as_str).collect();
        bail!(
            "the work tree has uncommitted changes; only a committed release is published:\n  {}{}",
            shown.join("\n  "),
            if dirty.len() > 10 { format!("\n  (and {} more)", dirty.len() - 10) } else { String::new() }
        );
    }
    let (released, header) = released(root)?;
    let nvmlkit = PACKAGES.iter().zip(&released).find(|(p, _)| p.name == "nvmlkit").map(|(_, r)| r.version);
    if let (Some(tag), Some(v)) = (tag, nvmlkit) {
        if tag != format!("v{v}") {
            bail!("the tag {tag} is not v{v}, nvmlkit's version in crates/nvml/Cargo.toml");
        }
    }
    let list: Vec<String> = PACKAGES.iter().zip(&released).map(|(p, r)| format!("{} {}", p.name, r.version)).collect();
    println!("publishing {} (nvml.h {header}){}", list.join(", "), if dry_run { ", dry run" } else { "" });
    // The mock's wheel and archive, of the version being published, before anything is: a
    // build that fails stops the release here.
    if let Some(dir) = dist {
        for path in crate::commands::dist::run(root, dir, true)? {
            println!("wrote {}", path.display());
        }
    }
    forget_extracted(&PACKAGES.iter().zip(&released).map(|(p, r)| (p.name, r.version)).collect::<Vec<_>>());
    let cargo = cargo();
    let mut cmd = Command::new(&cargo);
    cmd.current_dir(root).arg("publish");
    if dry_run {
        cmd.arg("--dry-run");
    }
    for p in PACKAGES {
        cmd.args(["-p", p.name]);
    }
    let status = cmd.status().with_context(|| format!("cannot run `{cargo}`"))?;
    if !status.success() {
        bail!("`cargo publish` failed ({status})");
    }
    Ok(())
}
