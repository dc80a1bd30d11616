//! The clang stage: `nvml.h` → [`Model`].
//!
//! Two parses of the header:
//! 1. **Defines pass** — the header as a user sees it, with the preprocessing record kept. It
//!    yields every `#define` (including the `#define nvmlX nvmlX_vN` table, which
//!    `NVML_NO_UNVERSIONED_FUNC_DEFS` switches off) and the functions a normal build sees.
//! 2. **Full pass** — a small generated C file that includes the header with
//!    `-DNVML_NO_UNVERSIONED_FUNC_DEFS` (so the legacy prototypes are seen too) and declares
//!    one `static const __auto_type` per object-like macro, so clang evaluates every constant
//!    expression (`NVML_STRUCT_VERSION(...)` with its `sizeof` included) for us.
//!
//! Lowering is split by construct: [`records`], [`enums`], [`functions`], [`macros`],
//! with C types mapped in [`types`].

#![allow(non_upper_case_globals)] // clang-sys names its constants as libclang does.

mod comments;
mod cx;
mod doxygen;
mod enums;
mod functions;
mod macros;
pub mod pfn;
mod records;
mod types;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clang_sys::*;

use crate::diag::Diagnostics;
use crate::model::{HeaderInfo, Model};
use cx::{Cursor, Index, Severity};

/// Arguments shared by both passes: C, a fixed LP64 target so the output does not depend on
/// the host, and GNU extensions for `__auto_type`.
const CLANG_ARGS: &[&str] = &["-xc", "-std=gnu11", "--target=x86_64-unknown-linux-gnu", "-Wno-everything"];

/// Name of the generated file of the full pass; it lives next to the header but never on disk.
const EVAL_FILE: &str = "__nvmlgen_eval.c";

/// Parses `path` into a model. Errors in the header abort with clang's diagnostics; anything
/// the model cannot represent is collected into the returned diagnostics.
pub fn parse_header(path: &Path, header: HeaderInfo) -> Result<(Model, Diagnostics)> {
    parse_header_with(path, header, &[])
}

/// [`parse_header`] with `extra` clang arguments for both passes (`cuda.h`'s defines and the
/// directory of the system headers it includes, see [`crate::cuda`]).
pub fn parse_header_with(path: &Path, header: HeaderInfo, extra: &[String]) -> Result<(Model, Diagnostics)> {
    let source = std::fs::read_to_string(path).with_context(|| format!("cannot read header {}", path.display()))?;
    let abs = std::fs::canonicalize(path).with_context(|| format!("cannot resolve {}", path.display()))?;
    let display = path.display().to_string();
    check_scope_operators(&source, &display)?;
    let index = Index::new()?;
    let mut diags = Diagnostics::new("parse");

    // Pass 1: defines and the functions of a normal build.
    let mut first = CLANG_ARGS.to_vec();
    first.extend(extra.iter().map(String::as_str));
    let tu = index.parse(&abs, None, &first, true)?;
    check_clang_diagnostics(&tu.diagnostics(), &abs, &display)?;
    let abs_str = abs.to_string_lossy().into_owned();
    let mut current_functions = BTreeSet::new();
    let mut macro_cursors = Vec::new();
    for c in tu.cursor().children() {
        if c.location().file != abs_str {
            continue;
        }
        match c.kind() {
            CXCursor_FunctionDecl => {
                current_functions.insert(c.spelling());
            }
            CXCursor_MacroDefinition if !c.is_macro_builtin() && !c.is_macro_function_like() => {
                macro_cursors.push((c.spelling(), c.location().line, tu.tokens(c)));
            }
            _ => {}
        }
    }
    let source_lines: Vec<&str> = source.lines().collect();
    let defines = macros::classify(macro_cursors, &source_lines);
    drop(tu);

    // Pass 2: everything else, with the macros evaluated in a generated file.
    let eval_path: PathBuf = abs.with_file_name(EVAL_FILE);
    let eval_source = macros::eval_source(&abs_str, &defines.evaluate);
    let mut args = first.clone();
    args.push("-DNVML_NO_UNVERSIONED_FUNC_DEFS");
    let tu = index.parse(&eval_path, Some(&eval_source), &args, false)?;
    let clang_diags = tu.diagnostics();
    check_clang_diagnostics(&clang_diags, &abs, &display)?;

    let mut model = Model {
        header,
        notice: comments::leading_notice(&source),
        groups: comments::groups(&source),
        ..Model::default()
    };
    let mut lower = Lower {
        header_file: abs_str.clone(),
        display: display.clone(),
        anon_names: BTreeMap::new(),
        current_functions,
        source_lines: source.lines().collect(),
        model: &mut model,
        diags: &mut diags,
    };
    let top = tu.cursor().children();
    lower.name_anonymous_typedefs(&top);
    for c in &top {
        lower.top_level(*c);
    }
    macros::lower_evaluated(&mut lower, &top, &defines, &clang_diags);
    macros::lower_strings_and_aliases(&mut lower, &defines);
    lower.check_references();
    drop(lower);
    check_names(&model, &display)?;
    Ok((model, diags))
}

/// Fails with every clang error located in the header, `file:line:col: message` each.
fn check_clang_diagnostics(diags: &[cx::Diagnostic], abs: &Path, display: &str) -> Result<()> {
    let abs = abs.to_string_lossy();
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.severity == Severity::Error && !d.file.ends_with(EVAL_FILE))
        .map(|d| {
            let file = if d.file == abs { display } else { d.file.as_str() };
            format!("{file}:{}:{}: error: {}", d.line, d.column, d.message)
        })
        .collect();
    if errors.is_empty() {
        return Ok(());
    }
    anyhow::bail!("clang reported {} error(s) in the header:\n{}", errors.len(), errors.join("\n"))
}

/// Fails on a `::` outside a `[[...]]` attribute, naming its place: C has no such operator, and
/// libclang since 17 parses `(` followed by `::` forever (llvm/llvm-project#195367), also when
/// a macro's `::` lands there (the full pass puts every macro in parentheses). Comments, string
/// and character literals are skipped.
fn check_scope_operators(source: &str, display: &str) -> Result<()> {
    let b = source.as_bytes();
    let (mut i, mut line, mut col, mut attribute) = (0, 1, 1, 0usize);
    let mut step = |i: &mut usize, n: usize| {
        for &c in &b[*i..(*i + n).min(b.len())] {
            (line, col) = if c == b'\n' { (line + 1, 1) } else { (line, col + 1) };
        }
        *i += n;
    };
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
            step(&mut i, end);
        } else if rest.starts_with(b"/*") {
            let end = rest[2..].windows(2).position(|w| w == b"*/").map_or(rest.len(), |p| p + 4);
            step(&mut i, end);
        } else if rest[0] == b'"' || rest[0] == b'\'' {
            let mut j = 1;
            while j < rest.len() && rest[j] != rest[0] && rest[j] != b'\n' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            step(&mut i, (j + 1).min(rest.len()));
        } else if rest.starts_with(b"[[") {
            attribute += 1;
            step(&mut i, 2);
        } else if rest.starts_with(b"]]") && attribute > 0 {
            attribute -= 1;
            step(&mut i, 2);
        } else if rest.starts_with(b"::") && attribute == 0 {
            anyhow::bail!("{display}:{line}:{col}: `::` is not C (the generator refuses it outside `[[...]]`: libclang never finishes parsing `(::`)");
        } else {
            step(&mut i, 1);
        }
    }
    Ok(())
}

/// Fails on a name the generated code cannot spell, naming it and its line: C accepts
/// identifiers Rust does not (`$` in GNU C, characters C11 allows that are not XID, such as a
/// soft hyphen), and every name of the model becomes a Rust identifier somewhere.
fn check_names(m: &Model, display: &str) -> Result<()> {
    use syn::ext::IdentExt;
    use syn::parse::Parser;
    let mut names: Vec<(&str, u32)> = Vec::new();
    for f in m.functions.values() {
        names.push((&f.name, f.line));
        names.extend(f.params.iter().map(|p| (p.name.as_str(), f.line)));
    }
    for r in m.records.values() {
        names.push((&r.name, r.line));
        names.extend(r.fields.iter().map(|f| (f.name.as_str(), r.line)));
    }
    for e in m.enums.values() {
        names.push((&e.name, e.line));
        names.extend(e.constants.iter().map(|k| (k.name.as_str(), e.line)));
    }
    names.extend(m.constants.values().map(|c| (c.name.as_str(), c.line)));
    names.extend(m.handles.values().map(|h| (h.name.as_str(), h.line)));
    names.extend(m.typedefs.values().map(|t| (t.name.as_str(), t.line)));
    let bad = names.into_iter().find(|(n, _)| !n.is_empty() && syn::Ident::parse_any.parse_str(n).is_err());
    match bad {
        Some((name, line)) => {
            anyhow::bail!("{display}:{line}: `{}` is not a name Rust can spell", name.escape_debug())
        }
        None => Ok(()),
    }
}

/// State of the full pass while it lowers cursors into the model.
pub(crate) struct Lower<'m> {
    header_file: String,
    display: String,
    /// Names given to anonymous records and enums, keyed by their declaration's file offset.
    anon_names: BTreeMap<u32, String>,
    /// Functions seen by the defines pass; the others are legacy.
    current_functions: BTreeSet<String>,
    /// The header's lines, for comments clang does not attach.
    source_lines: Vec<&'m str>,
    model: &'m mut Model,
    diags: &'m mut Diagnostics,
}

impl Lower<'_> {
    /// The documentation of a field or enum constant: its trailing `//!<` comment with the
    /// comment lines aligned under it (plain `//` continuations included, which clang drops),
    /// else the comment clang attaches.
    fn member_doc(&self, c: Cursor<'_>) -> Option<String> {
        let loc = c.location();
        let trailing =
            if loc.file == self.header_file { comments::trailing(&self.source_lines, loc.line) } else { None };
        trailing.or_else(|| c.raw_comment().as_deref().and_then(comments::clean))
    }

    fn place(&self, line: u32) -> String {
        format!("{}:{line}", self.display)
    }

    fn in_header(&self, c: Cursor<'_>) -> bool {
        c.location().file == self.header_file
    }

    /// `typedef struct { ... } name;` names the anonymous struct `name`.
    fn name_anonymous_typedefs(&mut self, top: &[Cursor<'_>]) {
        for c in top {
            if c.kind() != CXCursor_TypedefDecl || !self.in_header(*c) {
                continue;
            }
            let decl = types::strip_elaborated(c.typedef_underlying()).declaration();
            if matches!(decl.kind(), CXCursor_StructDecl | CXCursor_UnionDecl | CXCursor_EnumDecl)
                && decl.is_anonymous()
            {
                self.anon_names.entry(decl.location().offset).or_insert_with(|| c.spelling());
            }
        }
    }

    fn top_level(&mut self, c: Cursor<'_>) {
        if !self.in_header(c) {
            return;
        }
        match c.kind() {
            CXCursor_StructDecl | CXCursor_UnionDecl if c.is_definition() => {
                if let Some(name) = self.decl_name(c) {
                    self.lower_record(c, name, None);
                }
            }
            CXCursor_EnumDecl if c.is_definition() => {
                if let Some(name) = self.decl_name(c) {
                    self.lower_enum(c, name);
                }
            }
            CXCursor_TypedefDecl => self.lower_typedef(c),
            CXCursor_FunctionDecl => self.lower_function(c),
            _ => {}
        }
    }

    /// The model name of a record or enum declaration.
    fn decl_name(&mut self, c: Cursor<'_>) -> Option<String> {
        if !c.is_anonymous() {
            return Some(c.spelling());
        }
        let name = self.anon_names.get(&c.location().offset).cloned();
        if name.is_none() {
            let line = c.location().line;
            self.diags.error(self.place(line), "anonymous type that no typedef or field names");
        }
        name
    }

    /// Every `Ty::Named` must refer to a type of the model.
    fn check_references(&mut self) {
        let mut missing: BTreeMap<String, String> = BTreeMap::new();
        let mut visit = |owner: &str, ty: &crate::model::Ty| {
            types::for_each_named(ty, &mut |n| {
                if !self.model.has_type(n) {
                    missing.entry(n.to_string()).or_insert_with(|| owner.to_string());
                }
            })
        };
        for f in self.model.functions.values() {
            visit(&f.name, &f.ret);
            f.params.iter().for_each(|p| visit(&f.name, &p.ty));
        }
        for r in self.model.records.values() {
            r.fields.iter().for_each(|fl| visit(&r.name, &fl.ty));
        }
        for t in self.model.typedefs.values() {
            visit(&t.name, &t.ty);
        }
        for (name, owner) in missing {
            self.diags.error(
                self.display.clone(),
                format!("type `{name}` (used by `{owner}`) is not declared in the header"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check_scope_operators;

    #[test]
    fn scope_operators_are_refused_outside_attributes() {
        let err = |s: &str| check_scope_operators(s, "h.h").unwrap_err().to_string();
        assert!(err("int x = (::h);").starts_with("h.h:1:10: `::` is not C"));
        assert!(err("/* :: */ \"::\" ':'\n#define E ::\n").starts_with("h.h:2:11: "));
        assert!(err("[[gnu::unused]] int a;\n[[x]] int b = (::b);").starts_with("h.h:2:16: "));
        for fine in
            ["[[gnu::unused]] static int x;", "// a::b\nint a; /* c::d */", "char *s = \"\\\"::\";", "a ? b : c;"]
        {
            assert!(check_scope_operators(fine, "h.h").is_ok(), "{fine}");
        }
    }
}
