//! The next version of each published package: its semver verdict from the header-diff, the
//! version that gives, and the edits that write it (each package's `Cargo.toml`, the
//! requirements of the packages that depend on it, the `name = "0.1"` lines of the READMEs).
//!
//! Before 1.0 a breaking change bumps the minor version and anything else the patch; from 1.0
//! on, breaking bumps the major, an addition the minor, anything else the patch.

use std::fmt;

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::diff::{member_line, HeaderDiff, MemberChange, Section};

/// A published package of the workspace.
#[derive(Debug, Clone, Copy)]
pub struct Package {
    pub name: &'static str,
    /// Its directory, relative to the workspace root.
    pub dir: &'static str,
    /// The packages whose types its public API shows: a breaking release of one of them is a
    /// breaking release of this one.
    pub exposes: &'static [&'static str],
}

/// The published packages, in dependency order (the order `cargo publish` takes them in).
pub const PACKAGES: [Package; 3] = [
    Package { name: "nvmlkit-sys", dir: "crates/nvml-sys", exposes: &[] },
    // The mock's Rust API is its `testing` helpers; it uses nvmlkit-sys inside only.
    Package { name: "nvmlkit-mock", dir: "crates/nvml-mock", exposes: &[] },
    // `pub use nvml_sys as sys`, and every record's `to_raw` returns an nvmlkit-sys type.
    Package { name: "nvmlkit", dir: "crates/nvml", exposes: &["nvmlkit-sys"] },
];

/// What a release changes for its users.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Nothing added, nothing broken.
    Patch,
    /// Additions only.
    Minor,
    /// Something removed or changed.
    Major,
}

impl Verdict {
    /// `major`, `minor` or `patch`, as header-diff writes them.
    pub fn parse(s: &str) -> Result<Verdict> {
        Ok(match s {
            "major" => Verdict::Major,
            "minor" => Verdict::Minor,
            "patch" => Verdict::Patch,
            _ => bail!("`{s}` is not a semver verdict (major, minor or patch)"),
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Major => "major",
            Verdict::Minor => "minor",
            Verdict::Patch => "patch",
        }
    }
}

/// A `major.minor.patch` version (the packages use no pre-release or build part).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

impl std::str::FromStr for Version {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<Version> {
        let parts: Vec<&str> = s.split('.').collect();
        let number = |p: &str| p.parse::<u64>().ok().filter(|_| !p.starts_with('+'));
        match parts[..] {
            [a, b, c] => match (number(a), number(b), number(c)) {
                (Some(major), Some(minor), Some(patch)) => Ok(Version { major, minor, patch }),
                _ => bail!("`{s}` is not a version such as 0.1.0"),
            },
            _ => bail!("`{s}` is not a version such as 0.1.0"),
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Version {
    /// The next version for a release of `verdict`.
    pub fn bump(self, verdict: Verdict) -> Version {
        let Version { major, minor, patch } = self;
        match (major, verdict) {
            (0, Verdict::Major) => Version { major, minor: minor + 1, patch: 0 },
            (0, _) => Version { major, minor, patch: patch + 1 },
            (_, Verdict::Major) => Version { major: major + 1, minor: 0, patch: 0 },
            (_, Verdict::Minor) => Version { major, minor: minor + 1, patch: 0 },
            (_, Verdict::Patch) => Version { major, minor, patch: patch + 1 },
        }
    }

    /// The requirement a README shows: `0.1` before 1.0, `1` from then on.
    pub fn short(self) -> String {
        match self.major {
            0 => format!("0.{}", self.minor),
            m => m.to_string(),
        }
    }
}

/// A count or maximum that grows with its list (`NVML_FI_MAX`, `NVML_..._COUNT`): a new value
/// is expected when the list grows, not a break.
pub fn grows_with_its_list(name: &str) -> bool {
    name.ends_with("_COUNT") || name.ends_with("_MAX")
}

/// What breaks nvmlkit-sys, a one-to-one translation of the header, one line an item, with
/// why: a removed or changed function, record or typedef; a removed constant or enum constant,
/// or one with a new value (counts and maximums aside); a removed or retargeted `#define`
/// alias of a type; a new version of a function that had several already (its `_versions` enum gains a
/// variant).
pub fn sys_breaks(d: &HeaderDiff) -> Vec<String> {
    let header = &d.new.version;
    let mut out = Vec::new();
    // A `#define` alias of a type is a `pub type`; one of a function names no Rust item (the
    // accessors resolve the symbols the library exports). Types are spelled `…_t` in nvml.h.
    let type_aliases = Section {
        added: Vec::new(),
        removed: d.versioned_defines.removed.iter().filter(|i| i.name.ends_with("_t")).cloned().collect(),
        changed: d.versioned_defines.changed.iter().filter(|c| c.name.ends_with("_t")).cloned().collect(),
    };
    let sections = [
        ("function", &d.functions),
        ("type alias", &type_aliases),
        ("struct or union", &d.records),
        ("enum", &d.enums),
        ("constant", &d.constants),
        ("typedef or handle", &d.types),
    ];
    for (kind, s) in sections {
        for i in &s.removed {
            out.push(format!("{kind} `{}` removed: nvml.h {header} no longer declares it", i.name));
        }
    }
    for c in d.functions.changed.iter().chain(&d.types.changed).chain(&type_aliases.changed) {
        out.push(format!("`{}` changed: `{}` → `{}`", c.name, c.old, c.new));
    }
    for c in &d.records.changed {
        let members: Vec<String> = c.members.iter().map(|m| member_line("field", m)).collect();
        let what = if members.is_empty() { format!("{} → {}", c.old, c.new) } else { members.join("; ") };
        out.push(format!("`{}` changed ({what}): a struct literal or a layout that relied on it breaks", c.name));
    }
    for c in &d.enums.changed {
        for m in &c.members {
            match m {
                MemberChange::Added { .. } => {}
                MemberChange::Value { name, .. } if grows_with_its_list(name) => {}
                other => out.push(format!("enum `{}`: {}", c.name, member_line("constant", other))),
            }
        }
        if c.old != c.new {
            out.push(format!("enum `{}` changed its type: `{}` → `{}`", c.name, c.old, c.new));
        }
    }
    for c in d.constants.changed.iter().filter(|c| !grows_with_its_list(&c.name)) {
        out.push(format!(
            "constant `{}` changed: {} → {} (code built with the old value sends it)",
            c.name, c.old, c.new
        ));
    }
    for v in d.new_versions.iter().filter(|v| v.previous != v.base) {
        out.push(format!(
            "`{}_versions` gains the variant `{}` (a `match` on it without a wildcard breaks)",
            v.base, v.name
        ));
    }
    out
}

/// nvmlkit-sys's verdict: major when [`sys_breaks`] finds anything, minor when the header adds
/// anything (or deprecates something), else patch.
pub fn sys_verdict(d: &HeaderDiff) -> Verdict {
    if !sys_breaks(d).is_empty() {
        return Verdict::Major;
    }
    let sections = [&d.functions, &d.versioned_defines, &d.records, &d.enums, &d.constants, &d.types];
    let added = sections.iter().any(|s| !s.added.is_empty() || !s.changed.is_empty());
    if added || !d.deprecations.is_empty() {
        Verdict::Minor
    } else {
        Verdict::Patch
    }
}

/// nvmlkit-mock's verdict, from the functions it exports (its Rust API, the `testing`
/// helpers, does not follow the header): major when one is removed or changes its prototype,
/// minor when one is added, else patch.
pub fn mock_verdict(d: &HeaderDiff) -> Verdict {
    if !d.functions.removed.is_empty() || !d.functions.changed.is_empty() {
        Verdict::Major
    } else if !d.functions.added.is_empty() {
        Verdict::Minor
    } else {
        Verdict::Patch
    }
}

/// nvmlkit's own verdict: header-diff's for the safe crate (`safe.semver`). A header-diff
/// without one (the current rules cannot plan the old header) counts as major, the safe guess.
pub fn safe_verdict(d: &HeaderDiff) -> Result<(Verdict, String)> {
    if d.safe.semver.is_empty() {
        return Ok((
            Verdict::Major,
            "header-diff gives no verdict for the safe crate (the current rules cannot plan the old header): major, to be safe".into(),
        ));
    }
    let v = Verdict::parse(&d.safe.semver).context("header-diff's verdict for the safe crate")?;
    Ok((v, format!("header-diff's verdict for the safe crate: {}", v.as_str())))
}

/// `text` (a `Cargo.toml`) with its `[package]` version set to `to`.
pub fn set_package_version(text: &str, file: &str, to: Version) -> Result<String> {
    let mut section = String::new();
    let mut done = false;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            section = trimmed.to_string();
        }
        match key_and_value(trimmed) {
            Some(("version", value)) if section == "[package]" && !done && value.starts_with('"') => {
                let end = &line[line.trim_end().len()..];
                out.push_str(&format!("version = \"{to}\"{end}"));
                done = true;
            }
            _ => out.push_str(line),
        }
    }
    if !done {
        bail!("{file} has no `version = \"…\"` in its [package] section");
    }
    Ok(out)
}

fn key_and_value(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once('=')?;
    Some((key.trim(), value.trim()))
}

/// `text` (a `Cargo.toml`) with every dependency on `name` that states a version (`name = {
/// version = … }` or `alias = { package = "name", version = … }`) requiring `to`. Returns the
/// text and how many requirements it changed.
pub fn set_requirements(text: &str, name: &str, to: Version) -> (String, usize) {
    let mut section = String::new();
    let mut changed = 0;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            section = trimmed.to_string();
        }
        let in_deps = section.ends_with("dependencies]");
        let names_it = key_and_value(trimmed)
            .is_some_and(|(key, value)| key == name || value.contains(&format!("package = \"{name}\"")));
        match (in_deps && names_it).then(|| replace_version_field(line, to)).flatten() {
            Some(new) => {
                changed += usize::from(new != line);
                out.push_str(&new);
            }
            None => out.push_str(line),
        }
    }
    (out, changed)
}

/// The inline table `line` with its `version = "…"` field set to `to`; `None` without one.
fn replace_version_field(line: &str, to: Version) -> Option<String> {
    let start = line.find("version = \"")? + "version = \"".len();
    let len = line[start..].find('"')?;
    Some(format!("{}{to}{}", &line[..start], &line[start + len..]))
}

/// The `[package]` version of `text` (a `Cargo.toml`).
pub fn package_version(text: &str, file: &str) -> Result<Version> {
    let mut section = "";
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
        }
        if let Some(("version", value)) = key_and_value(line).filter(|_| section == "[package]") {
            return value.trim_matches('"').parse().with_context(|| format!("the version of {file}"));
        }
    }
    bail!("{file} has no `version = \"…\"` in its [package] section")
}

/// `text` (a `Cargo.lock`) with the version of the package `name` that comes from this
/// workspace (an entry without a `source`) set to `to`.
pub fn set_lock_version(text: &str, name: &str, to: Version) -> String {
    let mut out = String::with_capacity(text.len());
    for entry in text.split_inclusive("[[package]]") {
        let ours = entry.contains(&format!("\nname = \"{name}\"\n")) && !entry.contains("\nsource = ");
        match entry.find("\nversion = \"").filter(|_| ours) {
            Some(at) => {
                let start = at + "\nversion = \"".len();
                let len = entry[start..].find('"').unwrap_or(0);
                out.push_str(&format!("{}{to}{}", &entry[..start], &entry[start + len..]));
            }
            None => out.push_str(entry),
        }
    }
    out
}

/// `text` (a README) with each `name = "<from.short()>"` requirement shown for `name` (the
/// install lines) changed to `to`'s.
pub fn set_readme_requirements(text: &str, name: &str, from: Version, to: Version) -> String {
    if from.short() == to.short() {
        return text.to_string();
    }
    text.replace(&format!("{name} = \"{}\"", from.short()), &format!("{name} = \"{}\"", to.short()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        s.parse().unwrap()
    }

    #[test]
    fn bumps_follow_the_pre_1_0_rules_and_semver_after() {
        assert_eq!(v("0.1.0").bump(Verdict::Major), v("0.2.0"));
        assert_eq!(v("0.1.3").bump(Verdict::Major), v("0.2.0"));
        assert_eq!(v("0.1.0").bump(Verdict::Minor), v("0.1.1"));
        assert_eq!(v("0.1.0").bump(Verdict::Patch), v("0.1.1"));
        assert_eq!(v("1.2.3").bump(Verdict::Major), v("2.0.0"));
        assert_eq!(v("1.2.3").bump(Verdict::Minor), v("1.3.0"));
        assert_eq!(v("1.2.3").bump(Verdict::Patch), v("1.2.4"));
        assert_eq!((v("0.2.5").short(), v("1.4.0").short()), ("0.2".to_string(), "1".to_string()));
        assert!("0.1".parse::<Version>().is_err());
        assert!("0.1.0-rc.1".parse::<Version>().is_err());
        assert!(Verdict::parse("breaking").is_err());
    }

    const MANIFEST: &str = "[package]\nname = \"nvmlkit\"\nversion = \"0.1.0\"\n\n[dependencies]\n\
        nvml-sys = { package = \"nvmlkit-sys\", path = \"../nvml-sys\", version = \"0.1.0\" }\n\
        bitflags = \"2.6\"\n\n[dev-dependencies]\nnvmlkit-mock = { path = \"../nvml-mock\", version = \"0.1.0\" }\n\
        nvmlkit = { path = \".\", features = [\"serde\"] }\n";

    #[test]
    fn cargo_toml_edits_touch_only_the_version_and_the_requirements() {
        let text = set_package_version(MANIFEST, "Cargo.toml", v("0.2.0")).unwrap();
        assert!(text.contains("name = \"nvmlkit\"\nversion = \"0.2.0\"\n"), "{text}");
        let (text, n) = set_requirements(&text, "nvmlkit-sys", v("0.1.1"));
        assert_eq!(n, 1);
        assert!(text.contains("path = \"../nvml-sys\", version = \"0.1.1\" }"), "{text}");
        let (text, n) = set_requirements(&text, "nvmlkit-mock", v("0.1.1"));
        assert_eq!(n, 1);
        // The package's own dev-dependency on itself states no version: left alone.
        let (same, n) = set_requirements(&text, "nvmlkit", v("0.2.0"));
        assert_eq!((same.as_str(), n), (text.as_str(), 0));
        assert_eq!(text.lines().count(), MANIFEST.lines().count());
        assert!(set_package_version("[package]\nname = \"x\"\n", "x/Cargo.toml", v("0.2.0")).is_err());
        assert_eq!(package_version(&text, "Cargo.toml").unwrap(), v("0.2.0"));
    }

    #[test]
    fn lock_entries_of_the_workspace_change_and_registry_ones_do_not() {
        let lock = "version = 4\n\n[[package]]\nname = \"nvmlkit-sys\"\nversion = \"0.1.0\"\ndependencies = [\n \"libloading\",\n]\n\n\
                    [[package]]\nname = \"nvmlkit-sys\"\nversion = \"0.1.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n";
        let text = set_lock_version(lock, "nvmlkit-sys", v("0.2.0"));
        assert_eq!(text, lock.replacen("0.1.0", "0.2.0", 1));
        assert_eq!(set_lock_version(lock, "nvmlkit", v("0.2.0")), lock);
    }

    #[test]
    fn readme_install_lines_follow_the_short_requirement() {
        let text = "```toml\nnvmlkit = \"0.1\"\n```\n";
        assert_eq!(set_readme_requirements(text, "nvmlkit", v("0.1.0"), v("0.1.1")), text);
        assert_eq!(
            set_readme_requirements(text, "nvmlkit", v("0.1.0"), v("0.2.0")),
            "```toml\nnvmlkit = \"0.2\"\n```\n"
        );
    }
}
