//! The mock's house has no circle: each module refers only to modules of lower layers (the
//! order `src/lib.rs` documents), so no module refers to one that refers back. Hand-written
//! modules name others as `crate::<module>`; generated files name their siblings as
//! `super::<file>` and the hand-written modules as `super::super::<module>`. A new module has
//! to be given a layer here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Bottom to top; modules of one layer do not refer to each other.
const LAYERS: &[&[&str]] = &[
    &["ffi", "schema", "generated::names", "generated::history"],
    &["generated::tables"],
    &["answer"],
    &["profile"],
    &["generated::answers"],
    &["generated::api"],
    &["engine"],
    &["generated::dispatch", "generated::hostile", "generated::exports", "answers_doc"],
    &["testing"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The lowercase identifier at the start of `s`.
fn word(s: &str) -> String {
    s.chars().take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_').collect()
}

/// The modules `text` refers to, comments aside (`generated`: also its `super::` paths). A
/// grouped import of generated files (`crate::generated::{a, b}`) names no file, and so fails
/// the check: name each file.
fn references(text: &str, generated: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let mut add = |path: &str| {
            let first = word(path);
            if first == "generated" {
                let rest = &path[first.len()..];
                let file = rest.strip_prefix("::").map(word).unwrap_or_default();
                out.insert(format!("generated::{file}"));
            } else if !first.is_empty() {
                out.insert(first);
            }
        };
        for (i, _) in line.match_indices("crate::") {
            add(&line[i + "crate::".len()..]);
        }
        if generated {
            for (i, _) in line.match_indices("super::") {
                let rest = &line[i + "super::".len()..];
                if let Some(up) = rest.strip_prefix("super::") {
                    add(up);
                } else if !line[..i].ends_with("super::") && !rest.starts_with("super") {
                    add(&format!("generated::{rest}"));
                }
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module a file belongs to: its top-level module, or `generated::<file>`.
fn module_of(rel: &Path) -> String {
    let parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
    match parts.as_slice() {
        [g, file] if g == "generated" => format!("generated::{file}"),
        [top, ..] => top.clone(),
        [] => String::new(),
    }
}

#[test]
fn every_module_refers_only_to_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let own = module_of(rel);
        if own == "lib" {
            continue;
        }
        let Some(level) = layer(&own) else {
            wrong.push(format!("{} ({own}) has no layer in tests/house.rs", rel.display()));
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for r in references(&text, own.starts_with("generated::")) {
            if r == own {
                continue;
            }
            match layer(&r) {
                Some(l) if l < level => {}
                l => wrong.push(format!("{} ({own}, layer {level}) refers to {r} (layer {l:?})", rel.display())),
            }
        }
    }
    assert!(wrong.is_empty(), "references that do not go down the layers:\n{}", wrong.join("\n"));
}

#[test]
fn the_check_sees_references() {
    let text = "use crate::answer::Val;\n// crate::engine in a comment\nlet x = crate::generated::tables::FUNCTIONS;";
    let want: BTreeSet<String> = ["answer", "generated::tables"].iter().map(|s| s.to_string()).collect();
    assert_eq!(references(text, false), want);
    let text = "use super::api::Api;\nuse super::super::engine::{device, Engine};\nsuper::answers::f(self)";
    let want: BTreeSet<String> =
        ["generated::api", "engine", "generated::answers"].iter().map(|s| s.to_string()).collect();
    assert_eq!(references(text, true), want);
}
