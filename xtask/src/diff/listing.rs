//! A released safe API as a text file (`crates/nvml/api/<version>.txt`), and what breaks it.
//!
//! `cargo xtask release` writes the listing of each release it makes, from the crate's sources
//! as they stand ([`SafeApi::of_sources`]): what the generator writes and what is written by
//! hand. The next release reads the last one's back and compares it with the sources, so its
//! verdict sees every change to the API (a rule, the generator, a hand-written method), not
//! only those a header change causes; the changelog test checks that each break is listed.
//!
//! One line per item, sorted: `method NAME\tSIGNATURE`, `type NAME\tFLAGS\tTEXT` (flags:
//! `non_exhaustive`, `tuple`, comma-separated, or `-`), `member TYPE.NAME\tTYPE` (a field or
//! a variant), `raw IMPL`, `alias OLD\tNEW` (a `pub type` that keeps a former name).

use anyhow::{bail, Result};

use super::safe::{diff, ApiItem, ApiType, Breaking, SafeApi};
use super::HeaderDiff;

/// Where the listings of the releases are, below the workspace root.
pub const DIR: &str = "crates/nvml/api";

/// The listing of `api`.
pub fn write(api: &SafeApi) -> String {
    let mut out = String::new();
    for (name, m) in &api.methods {
        out += &format!("method {name}\t{}\n", m.text);
    }
    for (name, t) in &api.types {
        let flags: Vec<&str> = [(t.non_exhaustive, "non_exhaustive"), (t.tuple, "tuple")]
            .into_iter()
            .filter_map(|(on, f)| on.then_some(f))
            .collect();
        let flags = if flags.is_empty() { "-".to_string() } else { flags.join(",") };
        out += &format!("type {name}\t{flags}\t{}\n", t.text);
        for (m, ty) in &t.members {
            out += &format!("member {name}.{m}\t{ty}\n");
        }
    }
    for r in &api.raw {
        out += &format!("raw {r}\n");
    }
    for (old, new) in &api.aliases {
        out += &format!("alias {old}\t{new}\n");
    }
    out
}

/// The API a listing holds; `file` names it in errors.
pub fn read(text: &str, file: &str) -> Result<SafeApi> {
    let mut api = SafeApi::default();
    for (n, line) in text.lines().enumerate() {
        let bad = || anyhow::anyhow!("{file}:{}: not a line of an API listing: {line}", n + 1);
        let (kind, rest) = line.split_once(' ').ok_or_else(bad)?;
        match kind {
            "method" => {
                let (name, text) = rest.split_once('\t').ok_or_else(bad)?;
                api.methods.insert(name.into(), ApiItem { text: text.into(), c_names: Vec::new() });
            }
            "type" => {
                let mut parts = rest.splitn(3, '\t');
                let (Some(name), Some(flags), Some(text)) = (parts.next(), parts.next(), parts.next()) else {
                    return Err(bad());
                };
                let t = ApiType {
                    text: text.into(),
                    non_exhaustive: flags.split(',').any(|f| f == "non_exhaustive"),
                    tuple: flags.split(',').any(|f| f == "tuple"),
                    ..ApiType::default()
                };
                api.types.insert(name.into(), t);
            }
            "member" => {
                let (path, ty) = rest.split_once('\t').ok_or_else(bad)?;
                let (owner, member) = path.split_once('.').ok_or_else(bad)?;
                let Some(t) = api.types.get_mut(owner) else {
                    bail!("{file}:{}: member of `{owner}`, which no line above declares", n + 1)
                };
                t.members.insert(member.into(), ty.into());
            }
            "raw" => {
                api.raw.insert(rest.into());
            }
            "alias" => {
                let (old, new) = rest.split_once('\t').ok_or_else(bad)?;
                api.aliases.insert(old.into(), new.into());
            }
            _ => return Err(bad()),
        }
    }
    Ok(api)
}

/// What breaks code written against `old` in `new`: removed or changed methods and types,
/// each with what changed (the cause is the crate's own: no header is compared). A type `old`
/// names by a former name that `new` keeps as an alias reads as the new name.
pub fn breaks(old: &SafeApi, new: &SafeApi) -> Vec<Breaking> {
    let mut old = old.clone();
    let renamed = |text: &str| -> String {
        let mut out = String::with_capacity(text.len());
        let mut word = String::new();
        for c in text.chars().chain(std::iter::once(' ')) {
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
                continue;
            }
            out += new.aliases.get(&word).map_or(word.as_str(), String::as_str);
            word.clear();
            out.push(c);
        }
        out.pop();
        out
    };
    for m in old.methods.values_mut() {
        m.text = renamed(&m.text);
    }
    for t in old.types.values_mut() {
        t.members.values_mut().for_each(|ty| *ty = renamed(ty));
    }
    diff(&old, new, &HeaderDiff::default(), &crate::model::Model::default(), &std::collections::BTreeMap::new())
        .breaking
}

/// A break as a changelog line: `` - `Device::name`: removed ``.
pub fn changelog_line(b: &Breaking) -> String {
    format!("- `{}`: {}", b.item, b.change)
}

/// The listing of release `version` under `root`, if the release wrote one.
pub fn released(root: &std::path::Path, version: &str) -> Result<Option<SafeApi>> {
    let path = root.join(DIR).join(format!("{version}.txt"));
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some(read(&text, &path.display().to_string())?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => bail!("cannot read {}: {e}", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_reads_back_as_it_was_written() {
        let text = "method Device::name\\tfn name(&self) -> Result<String, Error>\n\
                    type PciInfo\\tnon_exhaustive\\tpub struct PciInfo { pub bus: u32 }\n\
                    member PciInfo.bus\\tu32\n\
                    raw PciInfo: FromRaw<sys::nvmlPciInfo_t>\n\
                    alias PciInformation\tPciInfo\n"
            .replace("\\t", "\t");
        let api = read(&text, "t.txt").unwrap();
        assert_eq!(write(&api), text);
        assert!(api.types["PciInfo"].non_exhaustive);
        let e = read("member X.y\tu32\n", "t.txt").unwrap_err().to_string();
        assert!(e.contains("t.txt:1: member of `X`"), "{e}");
        let e = read("fn x\n", "t.txt").unwrap_err().to_string();
        assert!(e.contains("t.txt:1: not a line"), "{e}");
    }

    #[test]
    fn a_changed_or_removed_item_breaks_an_added_one_does_not() {
        let old = read("method A::f\tfn f(&self) -> u32\nmethod A::g\tfn g(&self)\n", "old").unwrap();
        let new = read("method A::f\tfn f(&self) -> bool\nmethod A::h\tfn h(&self)\n", "new").unwrap();
        let b: Vec<(String, String)> = breaks(&old, &new).into_iter().map(|b| (b.item, b.change)).collect();
        assert_eq!(
            b,
            [
                ("A::g".to_string(), "removed".to_string()),
                ("A::f".to_string(), "`fn f(&self) -> u32` → `fn f(&self) -> bool`".to_string())
            ]
        );
        assert!(breaks(&old, &old).is_empty());
        // A type renamed with its former name kept: no break.
        let old = read("method A::f\tfn f(&self) -> Old\n", "old").unwrap();
        let new = read("method A::f\tfn f(&self) -> New\nalias Old\tNew\n", "new").unwrap();
        assert!(breaks(&old, &new).is_empty(), "{:?}", breaks(&old, &new));
    }
}
