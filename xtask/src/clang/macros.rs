//! Object-like `#define`s: integer and float expressions (evaluated by clang in the full
//! pass), string literals, and aliases such as `#define nvmlInit nvmlInit_v2`.

use std::collections::{BTreeMap, BTreeSet};

use clang_sys::*;

use super::cx::{Cursor, Diagnostic, EvalValue};
use super::{comments, types, Lower, EVAL_FILE};
use crate::model::{Alias, AliasKind, ConstValue, Constant, IntValue, Ty};

/// One `#define` of the header.
pub struct MacroDef {
    pub name: String,
    pub line: u32,
    pub doc: Option<String>,
}

/// The header's object-like macros, sorted into what each needs.
#[derive(Default)]
pub struct Defines {
    /// Expressions for clang to evaluate; the index is the evaluation variable's number.
    pub evaluate: Vec<MacroDef>,
    pub strings: Vec<(MacroDef, String)>,
    /// `#define nvmlX nvmlY`: a function or type alias, resolved once the model is built.
    pub aliases: Vec<(MacroDef, String)>,
}

const EVAL_PREFIX: &str = "__nvmlgen_eval_";

/// Sorts macros by their tokens (the first token is the macro's own name).
pub fn classify(macros: Vec<(String, u32, Vec<String>)>, source_lines: &[&str]) -> Defines {
    let names: BTreeSet<&str> = macros.iter().map(|(n, _, _)| n.as_str()).collect();
    let mut out = Defines::default();
    for (name, line, tokens) in &macros {
        let body = tokens.get(1..).unwrap_or_default();
        if body.is_empty() {
            continue; // include guards, DECLDIR, feature switches
        }
        let def = MacroDef { name: name.clone(), line: *line, doc: comments::macro_doc(source_lines, *line) };
        if body.iter().all(|t| t.starts_with('"')) {
            let text = body.iter().map(|t| unescape(&t[1..t.len().saturating_sub(1).max(1)])).collect();
            out.strings.push((def, text));
        } else if body.len() == 1 && is_api_name(&body[0]) && !names.contains(body[0].as_str()) {
            out.aliases.push((def, body[0].clone()));
        } else if let [wrap, open, target, close] = body {
            // `cuda.h`: `#define cuMemcpyHtoD __CUDA_API_PTDS(cuMemcpyHtoD_v2)`, the default
            // stream's choice of a function (`_ptds` under per-thread default streams).
            if wrap.starts_with("__CUDA_API_PT") && open == "(" && close == ")" && is_api_name(target) {
                out.aliases.push((def, target.clone()));
            } else {
                out.evaluate.push(def);
            }
        } else {
            out.evaluate.push(def);
        }
    }
    out
}

/// A name of the API a `#define` can alias: `nvml…` (nvml.h) or `cu…` (cuda.h).
fn is_api_name(token: &str) -> bool {
    (token.starts_with("nvml") || token.starts_with("cu"))
        && token.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

/// The generated C file of the full pass. Line `i + 2` evaluates `evaluate[i]`.
pub fn eval_source(header: &str, evaluate: &[MacroDef]) -> String {
    let mut s = format!("#include \"{header}\"\n");
    for (i, d) in evaluate.iter().enumerate() {
        s.push_str(&format!("static const __auto_type {EVAL_PREFIX}{i} = ({});\n", d.name));
    }
    s
}

pub(super) fn lower_evaluated(
    lower: &mut Lower<'_>,
    top: &[Cursor<'_>],
    defines: &Defines,
    clang_diags: &[Diagnostic],
) {
    // Macros whose expression clang rejected, with its first complaint.
    let mut rejected: BTreeMap<usize, String> = BTreeMap::new();
    for d in clang_diags.iter().filter(|d| d.file.ends_with(EVAL_FILE) && d.line >= 2) {
        rejected.entry(d.line as usize - 2).or_insert_with(|| d.message.clone());
    }
    for (i, why) in &rejected {
        if let Some(def) = defines.evaluate.get(*i) {
            lower.diags.note(
                lower.place(def.line),
                format!("#define {} is not a constant expression ({why}); skipped", def.name),
            );
        }
    }
    for c in top.iter().filter(|c| c.kind() == CXCursor_VarDecl) {
        let Some(i) = c.spelling().strip_prefix(EVAL_PREFIX).and_then(|n| n.parse::<usize>().ok()) else { continue };
        let (Some(def), false) = (defines.evaluate.get(i), rejected.contains_key(&i)) else { continue };
        let ty = c.ty().canonical();
        let value = match (c.evaluate(), types::builtin(ty.kind())) {
            (Some(EvalValue::Float(f)), _) => ConstValue::Float(f),
            (Some(EvalValue::Str(s)), _) => ConstValue::Str(s),
            (Some(EvalValue::Signed(v)), Some(t)) => ConstValue::Int { value: int_value(v as u64, &t), ty: t },
            (Some(EvalValue::Unsigned(v)), Some(t)) => ConstValue::Int { value: int_value(v, &t), ty: t },
            _ => {
                lower.diags.note(lower.place(def.line), format!("#define {} has no constant value; skipped", def.name));
                continue;
            }
        };
        lower
            .model
            .constants
            .insert(def.name.clone(), Constant { name: def.name.clone(), value, doc: def.doc.clone(), line: def.line });
    }
}

/// Reads clang's 64-bit result as the expression's own type says.
fn int_value(bits: u64, ty: &Ty) -> IntValue {
    match ty {
        Ty::UChar | Ty::UShort | Ty::UInt | Ty::ULong | Ty::ULongLong | Ty::Bool => IntValue::Unsigned(bits),
        _ => IntValue::Signed(bits as i64),
    }
}

pub(super) fn lower_strings_and_aliases(lower: &mut Lower<'_>, defines: &Defines) {
    for (def, text) in &defines.strings {
        lower.model.constants.insert(
            def.name.clone(),
            Constant {
                name: def.name.clone(),
                value: ConstValue::Str(text.clone()),
                doc: def.doc.clone(),
                line: def.line,
            },
        );
    }
    for (def, target) in &defines.aliases {
        let kind = if lower.model.functions.contains_key(target) {
            AliasKind::Function
        } else if lower.model.has_type(target) {
            AliasKind::Type
        } else {
            lower.diags.warn(
                lower.place(def.line),
                format!("#define {} names `{target}`, which the header does not declare", def.name),
            );
            continue;
        };
        lower.model.aliases.insert(def.name.clone(), Alias { name: def.name.clone(), target: target.clone(), kind });
    }
}
