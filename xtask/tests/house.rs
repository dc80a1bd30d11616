//! The house a new maintainer can live in: every crate's layers are written once, in the
//! `# Layers` list of its `lib.rs` docs, and checked here; the paths the README's architecture
//! section names exist.
//!
//! The layer check reads each crate's `src/` as text. A file's module is its path (`engine/ffi.rs`
//! is `engine::ffi`, `engine/mod.rs` is `engine`, a `mod tests {` inside it adds `tests`). A
//! layer names modules (`engine::ffi`) or one group of modules that form a unit
//! (`generated::{api, answers}`); a file belongs to the unit that names the longest prefix of its
//! module, and every file outside the crate root (`lib.rs`, `main.rs`) must belong to one. A
//! reference is a path in code (comments aside) starting with `crate::`, `$crate::`, `super::`
//! or `self::`, `use` groups included; it goes to the unit that names the longest prefix of the
//! module it resolves to. Each reference must stay in its unit or go to a lower layer, so there
//! is no import circle and no upward import between units; inside a unit, the files a file
//! refers to (the file whose module is the longest prefix of the target) must not refer back
//! to it, directly or through others, so there is no circle between files either. Items reached through the crate root's re-exports
//! (`crate::Error`) and macros used by name are not followed: the root is the crate's face.

use std::path::{Path, PathBuf};

use xtask::workspace::project_root;

/// A layer's unit: the module paths it names (several for a `{..}` group).
#[derive(Debug)]
struct Unit {
    name: String,
    layer: usize,
    paths: Vec<Vec<String>>,
}

/// The units of the `# Layers` list of `lib` (a crate root's text), bottom to top: each item
/// `N. `a`, `b::c`, `d::{e, f}`: what they are` is a layer, its units backticked before the
/// first `:` outside backticks.
fn parse_layers(lib: &str) -> Vec<Unit> {
    let docs = lib.lines().map_while(|l| l.strip_prefix("//!")).map(|l| l.strip_prefix(' ').unwrap_or(l));
    let mut in_section = false;
    let mut units = Vec::new();
    let mut layer = 0;
    for line in docs {
        if line.starts_with('#') {
            in_section = line == "# Layers";
            continue;
        }
        let Some((n, item)) = line.split_once(". ") else { continue };
        if !in_section || n.is_empty() || !n.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        layer += 1;
        assert_eq!(n.parse::<usize>().unwrap(), layer, "layers are numbered 1, 2, ... in order: {line}");
        let mut inside = false;
        let mut current = String::new();
        for c in item.chars() {
            match c {
                '`' if inside => {
                    units.push(unit(&current, layer));
                    current.clear();
                    inside = false;
                }
                '`' => inside = true,
                ':' if !inside => break,
                c if inside => current.push(c),
                _ => {}
            }
        }
    }
    units
}

fn unit(name: &str, layer: usize) -> Unit {
    let paths = match name.split_once("::{") {
        Some((base, group)) => group
            .trim_end_matches('}')
            .split(',')
            .map(|m| format!("{base}::{}", m.trim()).split("::").map(String::from).collect())
            .collect(),
        None => vec![name.split("::").map(String::from).collect()],
    };
    Unit { name: name.to_string(), layer, paths }
}

/// The unit that names the longest prefix of `module`.
fn unit_of<'u>(units: &'u [Unit], module: &[String]) -> Option<&'u Unit> {
    units
        .iter()
        .flat_map(|u| u.paths.iter().map(move |p| (u, p)))
        .filter(|(_, p)| module.starts_with(p))
        .max_by_key(|(_, p)| p.len())
        .map(|(u, _)| u)
}

/// A source file: how it is shown, its module path, its text.
struct Source {
    shown: String,
    module: Vec<String>,
    text: String,
}

/// The module paths `text` refers to, each with its line (1-based) and the reference as written.
/// `module` is the file's module; inline `mod x {` blocks (formatted by rustfmt: the closing
/// brace at the same indentation) extend it.
fn references(text: &str, module: &[String]) -> Vec<(usize, Vec<String>, String)> {
    let mut out = Vec::new();
    // The code with comments blanked (line numbers kept) and the scope of each line.
    let mut scopes: Vec<(String, String)> = Vec::new(); // (indentation, name) of open inline modules
    let mut code = String::new();
    let mut line_scope = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if trimmed == "}" && scopes.last().is_some_and(|(i, _)| i == indent) {
            scopes.pop();
        }
        let mut scope = module.to_vec();
        scope.extend(scopes.iter().map(|(_, n)| n.clone()));
        line_scope.push(scope);
        let decl = trimmed.trim_start_matches("pub ").trim_start_matches("pub(crate) ").strip_prefix("mod ");
        if let Some(name) = decl.and_then(|d| d.strip_suffix(" {")) {
            scopes.push((indent.to_string(), name.to_string()));
        }
        let without_comment = if trimmed.starts_with("//") { "" } else { line.split(" // ").next().unwrap() };
        code.push_str(without_comment);
        code.push('\n');
    }
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(start) {
            // Not the start of a path: `my_crate::`, the second `super::` of `super::super::`.
            if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b':') {
                continue;
            }
            let line = code[..i].matches('\n').count();
            let mut base = match start {
                "crate::" => Vec::new(),
                _ => line_scope[line].clone(),
            };
            let mut rest = &code[i + start.len()..];
            if start == "super::" {
                base.pop();
                while let Some(r) = rest.strip_prefix("super::") {
                    base.pop();
                    rest = r;
                }
            }
            let (paths, len) = tree(rest);
            let end = code.len() - rest.len() + len;
            let written = code[i..end].split_whitespace().collect::<Vec<_>>().join(" ");
            for p in paths {
                let mut full = base.clone();
                full.extend(p);
                out.push((line + 1, full, written.clone()));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The paths of a `use` tree at the start of `s` (`a::b`, `a::{b, c::d}`, `a::*`), and its length.
fn tree(s: &str) -> (Vec<Vec<String>>, usize) {
    let ident = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    if ident > 0 {
        let name = s[..ident].to_string();
        let (subs, len) = s[ident..].strip_prefix("::").map_or((Vec::new(), 0), tree);
        if subs.is_empty() {
            return (vec![vec![name]], ident);
        }
        return (subs.into_iter().map(|p| [vec![name.clone()], p].concat()).collect(), ident + 2 + len);
    }
    if s.starts_with('*') {
        return (vec![Vec::new()], 1);
    }
    let Some(mut rest) = s.strip_prefix('{') else { return (Vec::new(), 0) };
    let mut paths = Vec::new();
    let mut at = 1;
    loop {
        let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        at += rest.len() - trimmed.len();
        if trimmed.starts_with('}') {
            return (paths, at + 1);
        }
        let (p, len) = tree(trimmed);
        if len == 0 {
            return (paths, at);
        }
        paths.extend(p);
        at += len;
        rest = &trimmed[len..];
    }
}

/// What is wrong with `sources` against `units`: files without a unit, and references that do
/// not stay in their unit nor go down the layers.
fn check(units: &[Unit], sources: &[Source]) -> Vec<String> {
    let mut wrong = Vec::new();
    for s in sources {
        let Some(own) = unit_of(units, &s.module) else {
            wrong.push(format!("{}: module `{}` has no layer", s.shown, s.module.join("::")));
            continue;
        };
        for (line, target, written) in references(&s.text, &s.module) {
            let Some(to) = unit_of(units, &target) else { continue };
            if to.name != own.name && to.layer >= own.layer {
                wrong.push(format!(
                    "{}:{line}: `{}` (layer {}) refers to `{}` (layer {}): {written}",
                    s.shown, own.name, own.layer, to.name, to.layer
                ));
            }
        }
    }
    wrong.dedup();
    wrong.extend(circles(units, sources));
    wrong
}

/// The import circles between the files of one unit: each set of two or more files of a unit
/// that reach one another through their references (the file a reference goes to is the one
/// whose module is the longest prefix of its target), with the references that close it.
fn circles(units: &[Unit], sources: &[Source]) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let file_of = |target: &[String]| {
        (0..sources.len()).filter(|&k| target.starts_with(&sources[k].module)).max_by_key(|&k| sources[k].module.len())
    };
    // Edges between files of the same unit, with the first reference that makes each.
    let mut edges: BTreeMap<usize, BTreeMap<usize, (usize, String)>> = BTreeMap::new();
    for (k, s) in sources.iter().enumerate() {
        let Some(own) = unit_of(units, &s.module) else { continue };
        for (line, target, written) in references(&s.text, &s.module) {
            let Some(to) = file_of(&target) else { continue };
            let same_unit = unit_of(units, &sources[to].module).is_some_and(|u| u.name == own.name);
            if to != k && same_unit {
                edges.entry(k).or_default().entry(to).or_insert((line, written));
            }
        }
    }
    let reach = |from: usize| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from];
        while let Some(n) = todo.pop() {
            for &m in edges.get(&n).into_iter().flat_map(|e| e.keys()) {
                if seen.insert(m) {
                    todo.push(m);
                }
            }
        }
        seen
    };
    let reached: Vec<BTreeSet<usize>> = (0..sources.len()).map(reach).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for k in 0..sources.len() {
        if done.contains(&k) || !reached[k].contains(&k) {
            continue;
        }
        let circle: Vec<usize> =
            (0..sources.len()).filter(|&m| reached[k].contains(&m) && reached[m].contains(&k)).collect();
        done.extend(circle.iter().copied());
        let mut closing = Vec::new();
        for &a in &circle {
            for (&b, (line, written)) in edges.get(&a).into_iter().flatten() {
                if circle.contains(&b) {
                    closing.push(format!("{}:{line} → {}: {written}", sources[a].shown, sources[b].shown));
                }
            }
        }
        let files: Vec<&str> = circle.iter().map(|&m| sources[m].shown.as_str()).collect();
        out.push(format!("an import circle inside a unit between {}: {}", files.join(", "), closing.join("; ")));
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

/// Checks the crate whose sources are in `src` (relative to the workspace root).
fn check_crate(src: &str) {
    let wrong = crate_problems(&project_root(), src);
    assert!(
        wrong.is_empty(),
        "{src}: references that do not go down the layers of {src}/lib.rs, or circles inside a unit:\n{}",
        wrong.join("\n")
    );
}

/// What is wrong with the crate whose sources are in `root`/`src`.
fn crate_problems(root: &Path, src: &str) -> Vec<String> {
    let dir = root.join(src);
    let units = parse_layers(&std::fs::read_to_string(dir.join("lib.rs")).unwrap());
    assert!(!units.is_empty(), "{src}/lib.rs has no `# Layers` list");
    let missing: Vec<String> = units
        .iter()
        .flat_map(|u| &u.paths)
        .map(|p| p.join("/"))
        .filter(|p| !dir.join(format!("{p}.rs")).is_file() && !dir.join(p).is_dir())
        .collect();
    assert!(missing.is_empty(), "{src}/lib.rs names layers of modules that do not exist: {missing:?}");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    files.sort();
    let sources: Vec<Source> = files
        .iter()
        .filter_map(|f| {
            let rel = f.strip_prefix(&dir).unwrap();
            let mut module: Vec<String> =
                rel.with_extension("").components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            if module == ["lib"] || module == ["main"] {
                return None;
            }
            let text = std::fs::read_to_string(f).unwrap();
            Some(Source { shown: format!("{src}/{}", rel.display()), module, text })
        })
        .collect();
    check(&units, &sources)
}

#[test]
fn xtask_refers_only_to_lower_layers() {
    check_crate("xtask/src");
}

#[test]
fn nvml_refers_only_to_lower_layers() {
    check_crate("crates/nvml/src");
}

#[test]
fn nvml_mock_refers_only_to_lower_layers() {
    check_crate("crates/nvml-mock/src");
}

fn source(module: &str, text: &str) -> Source {
    let module: Vec<String> = module.split("::").map(String::from).collect();
    Source { shown: format!("{}.rs", module.join("/")), module, text: text.to_string() }
}

const SYNTHETIC: &str = "//! A crate.\n//!\n//! # Layers\n//!\n//! 1. `base`, `top::low`: the bottom.\n//! 2. \
                         `mid::{a, b}`: one unit: `a` refers to\n//!    `b`.\n//! 3. `top`: the top.\n//!\n//! # \
                         Other\n//!\n//! 1. `not_a_layer`: ignored.\n";

#[test]
fn the_layers_are_read_from_the_docs() {
    let units = parse_layers(SYNTHETIC);
    let seen: Vec<(&str, usize, usize)> = units.iter().map(|u| (u.name.as_str(), u.layer, u.paths.len())).collect();
    assert_eq!(seen, [("base", 1, 1), ("top::low", 1, 1), ("mid::{a, b}", 2, 2), ("top", 3, 1)]);
}

#[test]
fn the_check_sees_upward_references_and_circles() {
    let units = parse_layers(SYNTHETIC);
    let sources = [
        // Down, inside a unit, and to the crate root: fine.
        source("top", "use crate::mid::a::Thing;\nuse crate::Error;\n// crate::top::x in a comment\n"),
        source("mid::a", "use super::b;\nuse super::super::base::f;\nlet x = crate::top::low::y(); // crate::top\n"),
        source("mid::b", "use crate::{base::X, mid::a::tests};\nmod tests {\n    use super::*;\n}\n"),
        // A circle base <-> top::low (same layer), an upward `use` group, a `super::` going up.
        source("base", "use crate::top::low::Z;\n"),
        source("top::low", "use crate::{\n    base::B,\n    mid::{a::A, b},\n};\nfn f() {\n    super::g()\n}\n"),
        source("top::low::deep", "use super::super::super::top::x;\n"),
        source("stray", ""),
    ];
    assert_eq!(
        check(&units, &sources),
        [
            "base.rs:1: `base` (layer 1) refers to `top::low` (layer 1): crate::top::low::Z",
            "top/low.rs:1: `top::low` (layer 1) refers to `base` (layer 1): crate::{ base::B, mid::{a::A, b}, }",
            "top/low.rs:1: `top::low` (layer 1) refers to `mid::{a, b}` (layer 2): crate::{ base::B, mid::{a::A, b}, }",
            "top/low.rs:6: `top::low` (layer 1) refers to `top` (layer 3): super::g",
            "top/low/deep.rs:1: `top::low` (layer 1) refers to `top` (layer 3): super::super::super::top::x",
            "stray.rs: module `stray` has no layer",
            "an import circle inside a unit between mid/a.rs, mid/b.rs: mid/a.rs:1 → mid/b.rs: super::b; mid/b.rs:1 → \
             mid/a.rs: crate::{base::X, mid::a::tests}",
        ]
    );
}

/// A crate on disk whose layers hold, with a circle of three files planted inside one unit
/// (`engine/{x, y, z}.rs`) beside files of that unit that only go one way.
#[test]
fn the_check_rejects_a_circle_inside_a_unit() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("house-circle");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("src/engine")).unwrap();
    let files = [
        (
            "lib.rs",
            "//! # Layers\n//!\n//! 1. `base`: the bottom.\n//! 2. `engine`: the top.\n\nmod base;\nmod engine;\n",
        ),
        ("base.rs", "pub struct B;\n"),
        ("engine/mod.rs", "mod a;\nmod x;\nmod y;\nmod z;\npub struct Engine;\n"),
        ("engine/a.rs", "use super::x::X;\nuse super::Engine;\nuse crate::base::B;\n"),
        ("engine/x.rs", "pub struct X;\nuse super::y::Y;\n"),
        (
            "engine/y.rs",
            "pub struct Y;\n// super::x::X in a comment is no reference\nfn f() -> super::z::Z {\n    todo!()\n}\n",
        ),
        ("engine/z.rs", "pub struct Z;\nuse crate::engine::{x::X, Engine};\n"),
    ];
    for (file, text) in files {
        std::fs::write(root.join("src").join(file), text).unwrap();
    }
    assert_eq!(
        crate_problems(&root, "src"),
        ["an import circle inside a unit between src/engine/x.rs, src/engine/y.rs, src/engine/z.rs: src/engine/x.rs:2 → \
          src/engine/y.rs: super::y::Y; src/engine/y.rs:3 → src/engine/z.rs: super::z::Z; src/engine/z.rs:2 → \
          src/engine/x.rs: crate::engine::{x::X, Engine}"]
    );
    // Broken at one place, the circle is gone.
    std::fs::write(root.join("src/engine/z.rs"), "pub struct Z;\nuse crate::engine::Engine;\n").unwrap();
    assert_eq!(crate_problems(&root, "src"), Vec::<String>::new());
}

/// The README's architecture section (from `## Architecture` to the next `## ` heading).
fn architecture(readme: &str) -> &str {
    let start = readme.find("\n## Architecture\n").expect("README has an Architecture section");
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 4);
    &rest[..end]
}

/// The backticked paths of `text`, by block (a table row, a list item or a paragraph; fenced
/// code skipped). A path starts with a letter, a digit, `.`, `_`, `<` or `*`, has a `/` or a
/// file extension, and no space or `::` (`//!<` and `nvml_mock::testing` are not paths).
fn named_paths(text: &str) -> Vec<Vec<String>> {
    let mut blocks = vec![Vec::new()];
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if line.trim().is_empty() || line.starts_with('|') || line.starts_with("- ") {
            blocks.push(Vec::new());
        }
        for (k, span) in line.split('`').enumerate() {
            let extension = Path::new(span).extension().and_then(|e| e.to_str()).unwrap_or("");
            let is_path = k % 2 == 1
                && span.starts_with(|c: char| c.is_ascii_alphanumeric() || "._<*".contains(c))
                && !span.contains(' ')
                && !span.contains("::")
                && (span.contains('/')
                    || ["rs", "yaml", "toml", "txt", "md", "h", "json", "c", "py"].contains(&extension));
            if is_path {
                blocks.last_mut().unwrap().push(span.to_string());
            }
        }
        if line.starts_with('|') {
            blocks.push(Vec::new());
        }
    }
    blocks.retain(|b| !b.is_empty());
    blocks
}

/// The entries of `dir` that `pattern` (one path component, with `*` or a `<placeholder>` for
/// any text) matches.
fn matching(dir: &Path, pattern: &str) -> Vec<PathBuf> {
    let wild = pattern.contains('*') || pattern.contains('<');
    if !wild {
        let p = dir.join(pattern);
        return if p.exists() { vec![p] } else { Vec::new() };
    }
    let mut parts = Vec::new();
    let mut rest = pattern;
    while let Some(i) = rest.find(['*', '<']) {
        parts.push(&rest[..i]);
        rest = &rest[i..];
        rest = match rest.strip_prefix('*') {
            Some(after) => after,
            None => &rest[rest.find('>').map_or(rest.len(), |e| e + 1)..],
        };
    }
    parts.push(rest);
    let matches = |name: &str| {
        let mut at = 0;
        for (k, part) in parts.iter().enumerate() {
            match name[at..].find(part) {
                Some(i) if k > 0 || i == 0 => at += i + part.len(),
                _ => return false,
            }
        }
        parts.last().is_none_or(|l| l.is_empty() || name.ends_with(l))
    };
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries.flatten().filter(|e| matches(&e.file_name().to_string_lossy())).map(|e| e.path()).collect()
}

/// Whether `path` (with `*` and `<placeholder>` components) names something under `dir`.
fn exists(dir: &Path, path: &str) -> bool {
    let mut found = vec![dir.to_path_buf()];
    for component in path.trim_end_matches('/').split('/') {
        found = found.iter().flat_map(|d| matching(d, component)).collect();
    }
    !found.is_empty() && (!path.ends_with('/') || found.iter().any(|p| p.is_dir()))
}

/// The paths of `blocks` that name nothing. A path whose first component is at the workspace
/// root is read from there; any other is relative to a directory named before it in its block
/// (the table row's `where` column, `safe/` before `types.rs`), the nearest first. Paths under
/// `target/` are made at run time and are not checked.
fn missing_paths(root: &Path, blocks: &[Vec<String>]) -> Vec<String> {
    let mut missing = Vec::new();
    for block in blocks {
        let mut dirs: Vec<String> = Vec::new();
        for path in block.iter().filter(|p| !p.starts_with("target/")) {
            let first = path.split('/').next().unwrap();
            let full = if root.join(first).exists() {
                Some(path.clone())
            } else {
                dirs.iter().rev().map(|d| format!("{d}{path}")).find(|p| exists(root, p))
            };
            match full {
                Some(full) if exists(root, &full) => {
                    let dir = if full.ends_with('/') {
                        full.clone()
                    } else {
                        full[..full.rfind('/').map_or(0, |i| i + 1)].to_string()
                    };
                    dirs.push(dir);
                }
                _ => missing.push(format!("`{path}` (directories before it: {dirs:?})")),
            }
        }
    }
    missing
}

#[test]
fn every_path_the_architecture_section_names_exists() {
    let root = project_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let blocks = named_paths(architecture(&readme));
    assert!(blocks.iter().flatten().any(|p| p == "xtask/src/pipeline.rs"), "the section names its paths: {blocks:?}");
    let missing = missing_paths(&root, &blocks);
    assert!(missing.is_empty(), "paths in README.md's Architecture section that name nothing:\n{}", missing.join("\n"));
}

#[test]
fn the_path_check_resolves_against_the_block() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("house-paths");
    let _ = std::fs::remove_dir_all(&root);
    for dir in ["gen/emit/safe", "crates/one/src/generated", "crates/two/src/generated", "headers/1.0"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    for file in ["gen/emit/mod.rs", "gen/emit/safe/types.rs", "gen/emit/safe/mod.rs", "headers/1.0/nvml.h"] {
        std::fs::write(root.join(file), "").unwrap();
    }
    let text = "| emit | `gen/emit/` | `safe/` has `types.rs`; `mod.rs` |\n| x | `gen/` | `types.rs` |\n\n- \
                `crates/*/src/generated/` and `headers/<version>/nvml.h`, `target/never/`\n\n```text\n`nope/`\n```\n";
    let blocks = named_paths(text);
    assert_eq!(blocks.len(), 3, "{blocks:?}");
    let missing = missing_paths(&root, &blocks);
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert!(missing[0].starts_with("`types.rs`"), "{missing:?}");
}

/// The lint attributes of generated Rust `text` that are not a whole file's `#![allow]` under
/// the comment that gives its reason, as `line: text`.
fn stray_allows(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let item_level = ["#[allow(", "#[expect(", "#[warn(", "#[deny("].iter().any(|a| t.starts_with(a));
        let unexplained = t.starts_with("#![allow(") && !i.checked_sub(1).is_some_and(|p| lines[p].starts_with("// "));
        if item_level || unexplained {
            out.push(format!("{}: {t}", i + 1));
        }
    }
    out
}

#[test]
fn generated_files_allow_lints_only_for_the_whole_file_and_say_why() {
    let root = project_root();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for krate in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        let dir = krate.path().join("src/generated");
        if !dir.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        for f in files {
            seen += 1;
            let text = std::fs::read_to_string(&f).unwrap();
            wrong.extend(stray_allows(&text).into_iter().map(|w| format!("{}:{w}", f.display())));
        }
    }
    assert!(seen > 100, "only {seen} generated files found");
    assert!(
        wrong.is_empty(),
        "lint attributes on items, or without a reason, in generated files:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_allow_check_sees_item_level_and_unexplained_allows() {
    let text = "// Why.\n#![allow(dead_code)]\n#![allow(unused)]\n#[allow(unused_imports)]\nuse a::*;\n";
    assert_eq!(stray_allows(text), ["3: #![allow(unused)]", "4: #[allow(unused_imports)]"]);
    assert!(stray_allows("// The header's names.\n#![allow(non_snake_case)]\nfn f() {}\n").is_empty());
}
