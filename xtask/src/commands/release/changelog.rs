//! The `CHANGELOG.md` of each published package: an entry per release, newest first, written
//! from the header-diff of the header it binds against the previous release's.
//!
//! An entry starts with `## VERSION (nvml.h HEADER)`: the newest entry of a package's file names
//! the version it was released as and the header that release binds ([`newest_entry`]), which
//! is where the next release diffs from. What changed in a crate itself (not through the
//! header) is written by hand under an `## Unreleased` heading above the entries; the next
//! release's entry takes it in ([`prepend`]).

/// The heading of the hand-written changes the next release takes in.
const UNRELEASED: &str = "## Unreleased";

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::diff::{list as section, HeaderDiff, Item, MemberChange, SafeApi};
use crate::pipeline::Planned;
use crate::plan::{owner_label, Wrapping};

use super::versions::{grows_with_its_list, sys_breaks, Verdict, Version};

/// The newest entry of a changelog: its version and the header it binds, from its
/// `## VERSION (nvml.h HEADER)` heading; `None` without one.
pub fn newest_entry(text: &str) -> Option<(Version, String)> {
    let heading = text.lines().filter(|l| l.trim_end() != UNRELEASED).find_map(|l| l.strip_prefix("## "))?;
    let (version, rest) = heading.split_once(" (nvml.h ")?;
    Some((version.trim().parse().ok()?, rest.strip_suffix(')')?.trim().to_string()))
}

/// `entry` ended by what the `## Unreleased` section of `text` lists, under `### Changes of the
/// crate itself` (`entry` as it is when `text` has none).
pub fn with_unreleased(text: &str, entry: &str) -> String {
    match take_unreleased(text).1 {
        Some(body) => format!("{}\n\n### Changes of the crate itself\n\n{body}\n", entry.trim_end()),
        None => entry.to_string(),
    }
}

/// `text` with `entry` before its newest entry (at the end when it has none), and without its
/// `## Unreleased` section (which [`with_unreleased`] puts into the entry).
pub fn prepend(text: &str, entry: &str) -> String {
    let text = take_unreleased(text).0;
    let text = text.as_str();
    let at = text.find("\n## ").map_or(text.len(), |i| i + 1);
    let (head, rest) = text.split_at(at);
    let sep = if head.ends_with("\n\n") || head.is_empty() { "" } else { "\n" };
    let gap = if rest.is_empty() { "" } else { "\n" };
    format!("{head}{sep}{entry}{gap}{rest}")
}

/// `text` without its `## Unreleased` section, and that section's text (`None` when it has
/// none, or nothing under it).
fn take_unreleased(text: &str) -> (String, Option<String>) {
    let start = if text.starts_with(&format!("{UNRELEASED}\n")) {
        0
    } else {
        match text.find(&format!("\n{UNRELEASED}\n")) {
            Some(i) => i + 1,
            None => return (text.to_string(), None),
        }
    };
    let body_start = start + UNRELEASED.len() + 1;
    let end = text[body_start..].find("\n## ").map_or(text.len(), |i| body_start + i + 1);
    let body = text[body_start..end].trim();
    let rest = format!("{}{}", &text[..start], &text[end..]);
    (rest, (!body.is_empty()).then(|| body.to_string()))
}

/// A package's release: the version it had, the one it gets, and why.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Bumped {
    pub package: &'static str,
    pub from: Version,
    pub to: Version,
    pub verdict: Verdict,
    /// Why this verdict, in a sentence.
    pub why: String,
}

/// What the entries are written from: the header-diff, and both headers planned under the
/// current rules (the old one `None` when the rules cannot plan it) with their safe APIs.
pub struct Facts<'a> {
    pub diff: &'a HeaderDiff,
    pub old: Option<&'a Planned>,
    pub new: &'a Planned,
    pub old_api: Option<&'a SafeApi>,
    pub new_api: &'a SafeApi,
    /// Every package's release, in dependency order.
    pub bumped: &'a [Bumped],
}

impl Facts<'_> {
    fn header(&self) -> &str {
        &self.diff.new.version
    }

    fn bumped(&self, package: &str) -> Option<&Bumped> {
        self.bumped.iter().find(|b| b.package == package)
    }

    /// The opening paragraph: what the release binds, its verdict, what it requires.
    fn opening(&self, b: &Bumped, verb: &str, requires: &[&str]) -> String {
        let kind = match (b.verdict, b.from.major) {
            (Verdict::Major, 0) => "A breaking release (before 1.0, a breaking change bumps the minor version)",
            (Verdict::Major, _) => "A breaking release",
            (Verdict::Minor, 0) => "A compatible release with additions (before 1.0, that bumps the patch version)",
            (Verdict::Minor, _) => "A compatible release with additions",
            (Verdict::Patch, _) => "A compatible release",
        };
        let mut s = format!(
            "## {} (nvml.h {})\n\n{verb} nvml.h {} (the previous release, {}, {verb_past} {}). {kind}: {}.",
            b.to,
            self.header(),
            self.header(),
            b.from,
            self.diff.old.version,
            b.why,
            verb_past = if verb == "Emulates" { "emulated" } else { "bound" },
        );
        let reqs: Vec<String> =
            requires.iter().filter_map(|p| self.bumped(p)).map(|d| format!("{} {}", d.package, d.to)).collect();
        if !reqs.is_empty() {
            let _ = write!(s, " Requires {}.", reqs.join(" and "));
        }
        s.push('\n');
        s
    }
}

fn items(list: &[Item], code: bool) -> Vec<String> {
    list.iter()
        .map(|i| if code { format!("`{}`: `{}`", i.name, i.detail) } else { format!("`{}`: {}", i.name, i.detail) })
        .collect()
}

fn deprecation_text(d: &crate::diff::Deprecation) -> String {
    let state = |s: crate::diff::Deprecated| match s {
        crate::diff::Deprecated::No => "not deprecated",
        crate::diff::Deprecated::Documented => "documented as deprecated",
        crate::diff::Deprecated::Attribute => "`DEPRECATED` attribute",
    };
    format!("{} `{}`: {} → {}", d.kind, d.name, state(d.old), state(d.new))
}

/// Every package's new entry, in dependency order, by package.
pub fn entries(f: &Facts) -> Vec<(String, String)> {
    f.bumped
        .iter()
        .map(|b| {
            let entry = match b.package {
                "nvmlkit-sys" => sys_entry(f, b),
                "nvmlkit-mock" => mock_entry(f, b),
                _ => safe_entry(f, b),
            };
            (b.package.to_string(), entry)
        })
        .collect()
}

/// nvmlkit-sys's entry: the header's new items, new values, deprecations and what broke.
pub fn sys_entry(f: &Facts, b: &Bumped) -> String {
    let d = f.diff;
    let mut out = f.opening(b, "Binds", &[]);
    let functions = d
        .functions
        .added
        .iter()
        .map(|i| format!("`{}`: `{}`, the accessor `NvmlLib::{}()`", i.name, i.detail, i.name))
        .collect();
    section(&mut out, "New functions", functions);
    let versions = d
        .new_versions
        .iter()
        .map(|v| {
            format!("`{}` (newest before: `{}`): `NvmlLib::{}_newest()` tries it first", v.name, v.previous, v.base)
        })
        .collect();
    section(&mut out, "New versions of existing functions", versions);
    section(&mut out, "New structs and unions", items(&d.records.added, false));
    section(&mut out, "New enums", items(&d.enums.added, true));
    let enum_members = || d.enums.changed.iter().flat_map(|c| c.members.iter().map(move |m| (c, m)));
    let mut constants: Vec<String> = enum_members()
        .filter_map(|(c, m)| match m {
            MemberChange::Added { name, detail } => Some(format!("`{name}` = {detail} (`{}`)", c.name)),
            _ => None,
        })
        .collect();
    constants.extend(d.constants.added.iter().map(|i| format!("`{}` = `{}`", i.name, i.detail)));
    section(&mut out, "New constants", constants);
    section(&mut out, "New typedefs and handles", items(&d.types.added, true));
    section(&mut out, "New `#define` aliases", items(&d.versioned_defines.added, true));
    // Other new values break: they are among the breaking changes.
    let mut values: Vec<String> = enum_members()
        .filter_map(|(_, m)| match m {
            MemberChange::Value { name, old, new } if grows_with_its_list(name) => {
                Some(format!("`{name}`: {old} → {new}"))
            }
            _ => None,
        })
        .collect();
    let counts = d.constants.changed.iter().filter(|c| grows_with_its_list(&c.name));
    values.extend(counts.map(|c| format!("`{}`: {} → {}", c.name, c.old, c.new)));
    section(&mut out, "New values of counts and maximums", values);
    section(&mut out, "Deprecated", d.deprecations.iter().map(deprecation_text).collect());
    section(&mut out, "Breaking changes", sys_breaks(d));
    out
}

/// nvmlkit-mock's entry: the functions it exports that the header added, removed or changed.
pub fn mock_entry(f: &Facts, b: &Bumped) -> String {
    let d = f.diff;
    let mut out = f.opening(b, "Emulates", &["nvmlkit-sys"]);
    section(&mut out, "New exported functions", d.functions.added.iter().map(|i| format!("`{}`", i.name)).collect());
    let mut breaks: Vec<String> = d
        .functions
        .removed
        .iter()
        .map(|i| format!("`{}` is no longer exported: nvml.h {} no longer declares it", i.name, f.header()))
        .collect();
    breaks.extend(
        d.functions
            .changed
            .iter()
            .map(|c| format!("`{}` follows the header's new prototype: `{}` → `{}`", c.name, c.old, c.new)),
    );
    section(&mut out, "Breaking changes", breaks);
    out
}

/// The safe type of each method key (`Type::method`) the plan of `p` generates, with the
/// symbol it calls first.
fn methods_of(p: &Planned) -> BTreeMap<String, (String, String)> {
    p.plan
        .methods
        .iter()
        .map(|m| {
            let name = format!("{}::{}", owner_label(&p.bindings, &m.owner), m.name);
            let newest = m.calls.first().map(|c| c.symbol.clone()).unwrap_or_default();
            (name, (m.key.clone(), newest))
        })
        .collect()
}

/// The method that calls `symbol` in `p`, as `Type::method`.
fn method_calling(p: &Planned, symbol: &str) -> Option<String> {
    let m = p.plan.wrapped_by.get(symbol).and_then(|k| p.plan.method(k))?;
    Some(format!("{}::{}", owner_label(&p.bindings, &m.owner), m.name))
}

/// Rust type name → the C record or enum it mirrors, by model name.
fn mirrors(p: &Planned) -> BTreeMap<String, String> {
    p.plan.type_names.iter().map(|(c, rust)| (rust.clone(), c.clone())).collect()
}

/// The members of a one-line `struct T { pub a: u32, .. }` or `enum T { A, B }`, by name.
fn members(text: &str) -> BTreeMap<String, String> {
    let inner = match (text.find('{'), text.rfind('}')) {
        (Some(a), Some(b)) if a < b => &text[a + 1..b],
        _ => return BTreeMap::new(),
    };
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .map(|p| p.trim().trim_start_matches("pub ").trim())
        .filter(|p| !p.is_empty())
        .map(|p| (p.split([':', '(']).next().unwrap_or(p).trim().to_string(), p.to_string()))
        .collect()
}

/// What changed in a type, and why: its members, the C item it mirrors and, when `breaking`,
/// what code breaks.
fn type_change(f: &Facts, name: &str, old: &str, new: &str, breaking: bool) -> String {
    let (a, b) = (members(old), members(new));
    let mut what: Vec<String> = Vec::new();
    let enum_ = new.starts_with("enum ");
    let noun = if enum_ { "variant" } else { "field" };
    for (k, v) in &b {
        match a.get(k) {
            None => what.push(format!("{noun} `{v}` added")),
            Some(o) if o != v => what.push(format!("{noun} `{o}` is now `{v}`")),
            _ => {}
        }
    }
    what.extend(a.iter().filter(|(k, _)| !b.contains_key(*k)).map(|(_, v)| format!("{noun} `{v}` removed")));
    if what.is_empty() {
        what.push(format!("`{old}` → `{new}`"));
    }
    let mut s = format!("`{name}`: {}", what.join(", "));
    let was = f.old.and_then(|p| mirrors(p).get(name).cloned());
    if let (Some(was), Some(now)) = (was, mirrors(f.new).get(name)) {
        if &was != now {
            let known =
                |p: &Planned| p.bindings.model.records.contains_key(now) || p.bindings.model.enums.contains_key(now);
            let fresh = f.old.is_some_and(|p| !known(p));
            let when = if fresh { format!(", new in nvml.h {}", f.header()) } else { String::new() };
            let _ = write!(s, "; it now mirrors `{now}`{when} (was `{was}`)");
        }
    }
    // What breaks, where the verdict says it does (a `#[non_exhaustive]` type breaks nothing).
    if breaking {
        s.push_str(if enum_ {
            ". A `match` without a wildcard arm breaks"
        } else if new.contains('{') {
            ". A struct literal or a pattern that names every field breaks"
        } else {
            ". Code that builds it or reads its field breaks"
        });
    }
    s
}

/// Why a method is gone from the safe crate.
fn removed_method(f: &Facts, name: &str, renamed: &BTreeMap<String, String>) -> String {
    let old = f.old.map(methods_of).unwrap_or_default();
    let why = match old.get(name) {
        Some((key, _)) if renamed.contains_key(key) => format!("renamed to `{}`", renamed[key]),
        Some((_, symbol)) if !f.new.bindings.model.functions.contains_key(symbol) => {
            format!("nvml.h {} no longer declares `{symbol}`", f.header())
        }
        Some((_, symbol)) => format!("the current rules no longer wrap `{symbol}`"),
        None => match name.split_once("::") {
            Some((ty, _)) if !f.new_api.types.contains_key(ty) => format!("its type `{ty}` is gone"),
            _ => "the generator no longer writes it".to_string(),
        },
    };
    format!("`{name}` removed: {why}")
}

/// nvmlkit's entry: each new function with its method and that method's signature, the other
/// new methods and types, what broke and why, and deprecations.
pub fn safe_entry(f: &Facts, b: &Bumped) -> String {
    let d = f.diff;
    let s = &d.safe;
    let mut out = f.opening(b, "Binds", &["nvmlkit-sys"]);
    let added: BTreeSet<&str> = s.methods.added.iter().map(|i| i.name.as_str()).collect();
    let versions: BTreeMap<&str, &str> = d.new_versions.iter().map(|v| (v.name.as_str(), v.base.as_str())).collect();
    let mut named = BTreeSet::new();
    let mut functions = Vec::new();
    for w in &d.wrapping {
        let line = match (&w.wrapping, method_calling(f.new, &w.name)) {
            (Wrapping::Automatic(_), Some(m)) => {
                let sig = f.new_api.methods.get(&m).map(|s| format!(": `{}`", s.text)).unwrap_or_default();
                named.insert(m.clone());
                match versions.get(w.name.as_str()) {
                    Some(base) if !added.contains(m.as_str()) => {
                        format!(
                            "`{}`, a new version of `{base}`: `{m}` calls it first, then the older versions{sig}",
                            w.name
                        )
                    }
                    _ => format!("`{}`: `{m}`{sig}", w.name),
                }
            }
            (Wrapping::Manual(file), _) => format!("`{}`: wrapped by hand in `{file}` (a `manual` rule)", w.name),
            (Wrapping::Skipped(why), _) => format!("`{}`: no method, a `skip` rule: {why}", w.name),
            (Wrapping::NeedsRule(why), _) | (Wrapping::Automatic(why), None) => {
                format!(
                    "`{}`: no method yet ({why}); a rule in gen-config/nvml.yaml or hand-written code adds one",
                    w.name
                )
            }
        };
        functions.push(line);
    }
    section(&mut out, "New functions and their methods", functions);
    let others =
        s.methods.added.iter().filter(|i| !named.contains(&i.name)).map(|i| format!("`{}`: `{}`", i.name, i.detail));
    section(&mut out, "Other new methods", others.collect());
    section(&mut out, "New types", items(&s.types.added, true));

    let changed_types: BTreeSet<&str> = s.types.changed.iter().map(|c| c.name.as_str()).collect();
    // Methods of the old API whose key the new plan names otherwise.
    let old_methods = f.old.map(methods_of).unwrap_or_default();
    let new_methods = methods_of(f.new);
    let new_by_key: BTreeMap<&String, &String> = new_methods.iter().map(|(n, (k, _))| (k, n)).collect();
    let renamed: BTreeMap<String, String> = old_methods
        .iter()
        .filter_map(|(n, (k, _))| new_by_key.get(k).filter(|m| **m != n).map(|m| (k.clone(), m.to_string())))
        .collect();
    // Whether the header's changes break the API: header-diff's verdict, or a breaking
    // nvmlkit-sys; the crate's own changes (its `## Unreleased` list) may make the release
    // breaking without these being so.
    let sys_major = f.bumped("nvmlkit-sys").is_some_and(|s| s.verdict == Verdict::Major);
    let header_major = s.semver == "major" || sys_major;
    let mut breaks: Vec<String> = Vec::new();
    for c in &s.types.changed {
        breaks.push(type_change(f, &c.name, &c.old, &c.new, header_major));
    }
    for c in &s.methods.changed {
        let owner = c.name.split_once("::").map_or("", |(t, _)| t);
        let why = match (old_methods.get(&c.name), new_methods.get(&c.name)) {
            _ if changed_types.contains(owner) => format!("; it follows `{owner}`"),
            (Some((_, was)), Some((_, now))) if was != now => format!("; it now calls `{now}` first (was `{was}`)"),
            _ => String::new(),
        };
        breaks.push(format!("`{}`: `{}` → `{}`{why}", c.name, c.old, c.new));
    }
    breaks.extend(s.methods.removed.iter().map(|i| removed_method(f, &i.name, &renamed)));
    for i in &s.types.removed {
        let c = f.old.and_then(|p| mirrors(p).get(&i.name).cloned());
        let why = match c {
            Some(c)
                if !f.new.bindings.model.records.contains_key(&c) && !f.new.bindings.model.enums.contains_key(&c) =>
            {
                format!("nvml.h {} no longer declares `{c}`", f.header())
            }
            _ => "no method of the current rules uses it".to_string(),
        };
        breaks.push(format!("`{}` removed: {why}", i.name));
    }
    if f.old_api.is_none() {
        breaks.push(format!(
            "not known: the current rules cannot plan nvml.h {}, so its safe API cannot be compared",
            d.old.version
        ));
    }
    if let Some(sys) = f.bumped("nvmlkit-sys").filter(|s| s.verdict == Verdict::Major) {
        breaks
            .push(format!("`nvml::sys` is nvmlkit-sys {}, a breaking release (its changelog says what broke)", sys.to));
    }
    // Changes header-diff does not call breaking (a field added to a `#[non_exhaustive]`
    // struct, say) are listed as changes.
    let title = if header_major { "Breaking changes" } else { "Changes" };
    section(&mut out, title, breaks);
    let deprecated = d
        .deprecations
        .iter()
        .map(|dep| match method_calling(f.new, &dep.name) {
            Some(m) => format!("{}, wrapped by `{m}`", deprecation_text(dep)),
            None => deprecation_text(dep),
        })
        .collect();
    section(&mut out, "Deprecated", deprecated);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_entry_names_version_and_header() {
        let text = "# Changelog\n\nIntro.\n\n## 0.2.0 (nvml.h 13.5.37)\n\nText.\n\n## 0.1.0 (nvml.h 13.4.92)\n";
        assert_eq!(newest_entry(text), Some(("0.2.0".parse().unwrap(), "13.5.37".to_string())));
        assert_eq!(newest_entry("# Changelog\n"), None);
        assert_eq!(newest_entry("## 0.1 (nvml.h 13.5.37)\n"), None);
        let text = prepend(text, "## 0.3.0 (nvml.h 13.6.1)\n\nNew.\n");
        assert!(text.starts_with("# Changelog\n\nIntro.\n\n## 0.3.0 (nvml.h 13.6.1)\n\nNew.\n\n## 0.2.0"), "{text}");
        assert_eq!(newest_entry(&text).map(|(v, h)| (v.to_string(), h)), Some(("0.3.0".into(), "13.6.1".into())));
        assert_eq!(prepend("# Changelog\n", "## 0.1.0 (nvml.h 1.2.3)\n"), "# Changelog\n\n## 0.1.0 (nvml.h 1.2.3)\n");
    }

    #[test]
    fn unreleased_changes_join_the_next_entry() {
        let text =
            "# Changelog\n\nIntro.\n\n## Unreleased\n\n- Renamed `a` to `b`.\n\n## 0.1.0 (nvml.h 13.5.37)\n\nFirst.\n";
        assert_eq!(newest_entry(text), Some(("0.1.0".parse().unwrap(), "13.5.37".to_string())));
        let text = prepend(text, &with_unreleased(text, "## 0.1.1 (nvml.h 13.6.1)\n\nNew.\n"));
        assert_eq!(
            text,
            "# Changelog\n\nIntro.\n\n## 0.1.1 (nvml.h 13.6.1)\n\nNew.\n\n### Changes of the crate itself\n\n- Renamed `a` to `b`.\n\n## 0.1.0 (nvml.h 13.5.37)\n\nFirst.\n"
        );
        assert!(!text.contains(UNRELEASED));
        // An empty section goes, and adds nothing.
        let empty = "# C\n\n## Unreleased\n\n## 0.1.0 (nvml.h 1.2.3)\n";
        let text = prepend(empty, &with_unreleased(empty, "## 0.2.0 (nvml.h 1.2.4)\n\nNew.\n"));
        assert_eq!(text, "# C\n\n## 0.2.0 (nvml.h 1.2.4)\n\nNew.\n\n## 0.1.0 (nvml.h 1.2.3)\n");
    }

    #[test]
    fn members_of_one_line_types() {
        let m = members("struct S { pub a: u32, pub b: Vec<(u8, u16)>, pub c: [u8; 4] }");
        assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(m["b"], "b: Vec<(u8, u16)>");
        let m = members("enum E { A, B(u32) }");
        assert_eq!(m.keys().collect::<Vec<_>>(), ["A", "B"]);
        assert!(members("struct T(pub u32);").is_empty());
    }
}
