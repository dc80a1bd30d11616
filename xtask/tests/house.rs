//! The generator's house has no circle: each module of `xtask/src` refers only to modules of
//! lower layers, so nothing runs from a stage up to a command, and the pipeline is the only
//! place that strings the stages together. A new module has to be given a layer here.

use std::collections::BTreeSet;
use std::path::Path;

use xtask::workspace::project_root;

/// Bottom to top; modules of one layer do not refer to each other.
const LAYERS: &[&[&str]] = &[
    &["diag", "model", "workspace"],
    &["fetch"],
    &["clang", "history"],
    &["rules"],
    &["plan"],
    &["emit"],
    &["pipeline"],
    &["coverage", "diff"],
    &["commands"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The modules `lib.rs` declares.
fn modules(src: &Path) -> BTreeSet<String> {
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    lib.lines().filter_map(|l| l.trim().strip_prefix("pub mod ")?.strip_suffix(';').map(String::from)).collect()
}

/// The modules of `known` that `text` names as `crate::<module>`, comments aside.
fn references(text: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (i, _) in line.match_indices("crate::") {
            let name: String = line[i + 7..].chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
            if known.contains(&name) {
                out.insert(name);
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_module_refers_only_to_lower_layers() {
    let src = project_root().join("xtask/src");
    let known = modules(&src);
    let unplaced: Vec<&String> = known.iter().filter(|m| layer(m).is_none()).collect();
    assert!(unplaced.is_empty(), "modules without a layer in xtask/tests/house.rs: {unplaced:?}");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        let Some(own) = layer(&top) else { continue }; // lib.rs, main.rs
        for r in references(&std::fs::read_to_string(&file).unwrap(), &known) {
            if r != top && layer(&r).is_some_and(|l| l >= own) {
                wrong.push(format!("{} ({top}, layer {own}) refers to {r} (layer {:?})", rel.display(), layer(&r)));
            }
        }
    }
    assert!(wrong.is_empty(), "references that do not go down the layers:\n{}", wrong.join("\n"));
}

#[test]
fn the_check_sees_references() {
    let known: BTreeSet<String> = ["plan", "commands"].iter().map(|s| s.to_string()).collect();
    let text = "use crate::plan::Plan;\n// crate::commands in a comment\nlet x = crate::commands::regen::run();\nquote!(crate::ffi)";
    assert_eq!(references(text, &known), known);
}
