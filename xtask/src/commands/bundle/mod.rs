//! The mock as a tree a user installs without cargo or a C compiler, which `cargo xtask wheel`
//! packs into a Python wheel and `cargo xtask dist` into a release archive:
//!
//! ```text
//! bin/nvml-mock                      the program (ctl, capture, lib, profiles)
//! lib/libnvml_mock.so                the mock (and every library of LIBRARIES)
//! lib/libnvidia-ml.so.1, .so         the plain mock: every function, no driver
//! lib/libcuda.so.1, .so              the CUDA driver API beside each libnvidia-ml.so.1 (a filter of the mock)
//! lib/driver-<V>/libnvidia-ml.so.1   exactly the functions of driver V, for each driver of a built-in profile
//! lib/profile-<P>/libnvidia-ml.so.1  profile P's own, where it differs from its driver's
//! profiles/                          the built-in profiles' YAML
//! manifest.json                      which library each profile and driver loads
//! ```
//!
//! Each `libnvidia-ml.so.1` is a forwarder `nvml-mock lib` compiles (`--mock-at`: it loads the
//! one `lib/libnvml_mock.so`, relative to its own directory), so the C compiler is needed here,
//! at build time, and never by the user. `libnvidia-ml.so` is a link in the tree (the archive
//! keeps it), a copy in the wheel (a wheel holds no links).

pub mod elf;
pub mod tar;
pub mod zip;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::commands::mock_lib;

/// A library the tree carries in `lib/`: built from `package`'s library target `target`, named
/// `file`, with `aliases` (links in the archive, copies in the wheel).
pub struct Carried {
    pub package: &'static str,
    pub target: &'static str,
    pub file: &'static str,
    pub aliases: &'static [&'static str],
}

/// The libraries the wheel and the archive carry; the NVML mock is the one the forwarders
/// load. Another mock (a CUDA `libcuda.so.1`, aliases `libcuda.so`) is one more line here: the
/// manifest lists it, and the Python package's `environ()` then puts `lib/` on
/// `LD_LIBRARY_PATH` after the NVML library's directory.
pub const LIBRARIES: &[Carried] =
    &[Carried { package: mock_lib::PACKAGE, target: mock_lib::LIB_TARGET, file: "libnvml_mock.so", aliases: &[] }];

/// The programs the tree carries in `bin/`: (package, program).
pub const PROGRAMS: &[(&str, &str)] = &[(mock_lib::PACKAGE, mock_lib::PROGRAM)];

/// The NVML client library's names, as NVIDIA's driver installs them.
const CLIENT_NAMES: [&str; 2] = ["libnvidia-ml.so.1", "libnvidia-ml.so"];

/// The mock's package directory, whose profiles the tree carries.
const MOCK_DIR: &str = "crates/nvml-mock";

/// A built tree, and what it holds.
pub struct Tree {
    pub root: PathBuf,
    /// The mock package's version.
    pub version: String,
    /// The manifest written as `manifest.json`.
    pub manifest: serde_json::Value,
}

/// The mock package's version, from its `Cargo.toml`.
pub fn mock_version(root: &Path) -> Result<String> {
    let path = root.join(MOCK_DIR).join("Cargo.toml");
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let version = text
        .lines()
        .skip_while(|l| l.trim() != "[package]")
        .find_map(|l| l.trim().strip_prefix("version = ").map(|v| v.trim_matches('"').to_string()));
    version.with_context(|| format!("{} has no [package] version", path.display()))
}

/// Builds the mock (release) and lays the tree out in `dir`, which must not exist.
pub fn build(root: &Path, dir: &Path) -> Result<Tree> {
    let mut packages: Vec<&str> = LIBRARIES.iter().map(|l| l.package).chain(PROGRAMS.iter().map(|p| p.0)).collect();
    packages.sort_unstable();
    packages.dedup();
    let bins: Vec<&str> = PROGRAMS.iter().map(|p| p.1).collect();
    let built = mock_lib::build(root, &packages, &bins, false)?;
    let get = |name: &str| {
        built
            .get(name)
            .with_context(|| format!("cargo did not report the build of `{name}` (of {})", packages.join(", ")))
    };
    if dir.exists() {
        bail!("{} exists already", dir.display());
    }
    let (bin, lib) = (dir.join("bin"), dir.join("lib"));
    for d in [&bin, &lib] {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    for l in LIBRARIES {
        copy(get(l.target)?, &lib.join(l.file))?;
        for alias in l.aliases {
            symlink(l.file, &lib.join(alias))?;
        }
    }
    for (_, name) in PROGRAMS {
        copy(get(name)?, &bin.join(name))?;
    }
    let program = bin.join(mock_lib::PROGRAM);
    let mock = LIBRARIES[0].file;

    // The plain library beside the mock, then one per driver of a built-in profile, then each
    // profile's own where it differs from its driver's (it lacks functions its driver has).
    forwarder(&program, &lib, &["--plain"], mock)?;
    let profiles = profiles(&program)?;
    let mut drivers: BTreeMap<String, String> = BTreeMap::new();
    for (_, driver, _) in &profiles {
        if let Some(v) = driver {
            let rel = format!("lib/driver-{v}");
            if !drivers.contains_key(v) {
                forwarder(&program, &dir.join(&rel), &["--driver", v], &format!("../{mock}"))?;
            }
            drivers.insert(v.clone(), rel);
        }
    }
    let mut by_profile = serde_json::Map::new();
    for (name, driver, gpus) in &profiles {
        let own = dir.join(format!("lib/profile-{name}"));
        forwarder(&program, &own, &["--profile", name], &format!("../{mock}"))?;
        let shared = match driver {
            Some(v) => format!("lib/driver-{v}"),
            None => "lib".to_string(),
        };
        let same = std::fs::read(own.join(CLIENT_NAMES[0]))? == std::fs::read(dir.join(&shared).join(CLIENT_NAMES[0]))?;
        let lib_dir = if same {
            std::fs::remove_dir_all(&own).with_context(|| format!("cannot remove {}", own.display()))?;
            shared
        } else {
            format!("lib/profile-{name}")
        };
        by_profile.insert(name.clone(), serde_json::json!({"driver": driver, "gpus": gpus, "lib": lib_dir}));
    }
    copy_dir(&root.join(MOCK_DIR).join("profiles"), &dir.join("profiles"))?;

    let version = mock_version(root)?;
    let manifest = serde_json::json!({
        "version": version,
        "program": format!("bin/{}", mock_lib::PROGRAM),
        "mock": format!("lib/{mock}"),
        "plain": "lib",
        // Each carried library's file and its aliases, in lib/.
        "libraries": LIBRARIES.iter().flat_map(|l| std::iter::once(l.file).chain(l.aliases.iter().copied())).collect::<Vec<_>>(),
        "drivers": drivers,
        "profiles": by_profile,
    });
    let text = serde_json::to_string_pretty(&manifest)? + "\n";
    std::fs::write(dir.join("manifest.json"), text).context("cannot write manifest.json")?;
    Ok(Tree { root: dir.to_path_buf(), version, manifest })
}

/// `nvml-mock lib ARGS --out DIR --mock-at MOCK`, leaving the library and its link (not the
/// C source, which only marks a complete directory for `nvml-mock lib` itself).
fn forwarder(program: &Path, dir: &Path, args: &[&str], mock: &str) -> Result<()> {
    let out = Command::new(program)
        .arg("lib")
        .args(args)
        .arg("--out")
        .arg(dir)
        .arg("--mock-at")
        .arg(mock)
        .output()
        .with_context(|| format!("cannot run {}", program.display()))?;
    if !out.status.success() {
        bail!("`nvml-mock lib {}` failed:\n{}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    }
    // The C sources of the forwarder and of the CUDA filter beside it (`libcuda.so.1`).
    for source in ["forwarder.c", "cuda-filter.c"].map(|f| dir.join(f)) {
        std::fs::remove_file(&source).with_context(|| format!("cannot remove {}", source.display()))?;
    }
    Ok(())
}

/// The built-in profiles (`nvml-mock profiles`): name, driver, number of GPUs.
fn profiles(program: &Path) -> Result<Vec<(String, Option<String>, u64)>> {
    let out =
        Command::new(program).arg("profiles").output().with_context(|| format!("cannot run {}", program.display()))?;
    if !out.status.success() {
        bail!("`nvml-mock profiles` failed:\n{}", String::from_utf8_lossy(&out.stderr));
    }
    let mut list = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines().filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let [name, driver, gpus] = f[..] else { bail!("`nvml-mock profiles` printed `{line}`, not NAME DRIVER GPUS") };
        let gpus = gpus.parse().with_context(|| format!("`nvml-mock profiles`: `{gpus}` is not a number"))?;
        list.push((name.to_string(), (driver != "-").then(|| driver.to_string()), gpus));
    }
    if list.is_empty() {
        bail!("`nvml-mock profiles` listed no profile");
    }
    Ok(list)
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    std::fs::copy(from, to).with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
    Ok(())
}

fn symlink(target: &str, link: &Path) -> Result<()> {
    std::os::unix::fs::symlink(target, link).with_context(|| format!("cannot link {}", link.display()))
}

/// Copies the `.yaml` files under `from` (subdirectories too) to `to`.
fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    let mut entries: Vec<_> = std::fs::read_dir(from)
        .with_context(|| format!("cannot read {}", from.display()))?
        .collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(e.file_name()))?;
        } else if path.extension().is_some_and(|x| x == "yaml") {
            copy(&path, &to.join(e.file_name()))?;
        }
    }
    Ok(())
}

/// A file of a tree to pack: its path inside the package, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir { path: String },
    File { path: String, source: PathBuf, mode: u32 },
    Link { path: String, target: String },
}

impl Entry {
    pub fn path(&self) -> &str {
        match self {
            Entry::Dir { path } | Entry::File { path, .. } | Entry::Link { path, .. } => path,
        }
    }
}

/// Every entry under `dir`, in name order, each path prefixed by `prefix` (`a/b/`).
pub fn entries(dir: &Path, prefix: &str) -> Result<Vec<Entry>> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .collect::<std::io::Result<_>>()?;
    names.sort_by_key(|e| e.file_name());
    for e in names {
        let name = e.file_name().into_string().map_err(|n| anyhow::anyhow!("{n:?}: not UTF-8"))?;
        let path = format!("{prefix}{name}");
        let meta = std::fs::symlink_metadata(e.path())?;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(e.path())?.to_string_lossy().into_owned();
            out.push(Entry::Link { path, target });
        } else if meta.is_dir() {
            out.push(Entry::Dir { path: path.clone() });
            out.extend(entries(&e.path(), &format!("{path}/"))?);
        } else {
            let mode = if meta.permissions().mode() & 0o111 != 0 { 0o755 } else { 0o644 };
            out.push(Entry::File { path, source: e.path(), mode });
        }
    }
    Ok(out)
}

/// The time stamp of every packed file: `$SOURCE_DATE_EPOCH`, else 1980-01-01 (the earliest a
/// zip holds), so that two builds of one commit are the same bytes.
pub fn timestamp() -> u64 {
    std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.parse().ok()).unwrap_or(315_532_800)
}

/// The target triple cargo builds for here (`rustc -vV`'s host).
pub fn host_target() -> Result<String> {
    let out = Command::new("rustc").arg("-vV").output().context("cannot run `rustc -vV`")?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().find_map(|l| l.strip_prefix("host: ")).map(str::to_string).context("`rustc -vV` names no host")
}
