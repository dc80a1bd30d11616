//! The emit stage: [`Bindings`] → formatted Rust files (paths relative to the workspace root).
//!
//! Each emitter builds token streams with `quote`, which are parsed by `syn` and printed by
//! prettyplease, so the output's layout depends on nothing installed on the machine.

pub mod doc;
pub mod mock;
pub mod safe;
pub mod sys;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use crate::diag::Diagnostics;
use crate::history::DriverTable;
use crate::model::{IntValue, Model, Ty};
use crate::plan::Plan;
use crate::rules::areas::Area;
use crate::rules::Bindings;

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    pub path: PathBuf,
    pub contents: String,
}

/// Everything one regen produces. Each directory in `dirs` is owned by the generator: after a
/// regen it holds exactly the files listed here.
#[derive(Debug, Clone, Default)]
pub struct Output {
    pub dirs: Vec<PathBuf>,
    pub files: Vec<GeneratedFile>,
}

impl Output {
    /// Formats `tokens` under the banner (saying `what` the file holds) and adds the file.
    pub fn add_rust(&mut self, model: &Model, path: PathBuf, what: &str, tokens: TokenStream) -> Result<()> {
        self.add_rust_then(model, path, what, tokens, "")
    }

    /// [`Output::add_rust`], with `tail` (Rust laid out by the emitter itself) after the
    /// formatted items; the whole file must still parse.
    pub fn add_rust_then(
        &mut self,
        model: &Model,
        path: PathBuf,
        what: &str,
        tokens: TokenStream,
        tail: &str,
    ) -> Result<()> {
        let mut contents = format_file(&banner(model, what), tokens, &path.display().to_string())?;
        if !tail.is_empty() {
            contents.push_str(tail);
            syn::parse_file(&contents)
                .with_context(|| format!("generated code for {} does not parse (a generator bug)", path.display()))?;
        }
        self.files.push(GeneratedFile { path, contents });
        Ok(())
    }
}

/// One crate's generated items by area (see `rules/areas.rs`): one file per area, and the
/// `mod.rs` that declares them and re-exports their items flat.
#[derive(Debug, Default)]
pub struct ByArea {
    /// The area modules stay private to `mod.rs` (their items share names, say).
    pub private: bool,
    areas: BTreeMap<String, (String, Vec<TokenStream>)>,
    /// Text laid out by the emitter itself (a table macro's body), written after the items.
    tables: BTreeMap<String, String>,
}

impl ByArea {
    pub fn push(&mut self, area: Area, item: TokenStream) {
        self.areas.entry(area.module).or_insert_with(|| (area.title, Vec::new())).1.push(item);
    }

    /// Adds text written as it stands (after the area's formatted items).
    pub fn push_text(&mut self, area: Area, text: &str) {
        self.tables.entry(area.module.clone()).or_default().push_str(text);
        self.areas.entry(area.module).or_insert_with(|| (area.title, Vec::new()));
    }

    /// Writes `<dir>/<area>.rs` for each area, each starting with `prelude(items, has_text)`, and
    /// `<dir>/mod.rs` with `modules` (the crate's other generated modules) before the areas.
    pub fn write(
        self,
        out: &mut Output,
        model: &Model,
        dir: &Path,
        prelude: impl Fn(&[TokenStream], bool) -> TokenStream,
        modules: TokenStream,
    ) -> Result<()> {
        let mut decls = Vec::new();
        for (module, (title, items)) in &self.areas {
            let what = format!("The items of nvml.h's group \"{title}\".");
            let head = prelude(items, self.tables.contains_key(module));
            let path = dir.join(format!("{module}.rs"));
            let tail = self.tables.get(module).map_or("", String::as_str);
            out.add_rust_then(model, path, &what, quote!(#head #(#items)*), tail)?;
            let (m, d) = (ident(module), format!(" {title}."));
            decls.push(match self.private {
                true => quote! { #[doc = #d] pub mod #m; },
                false => quote! { #[doc = #d] mod #m; #[allow(unused_imports)] pub use #m::*; },
            });
        }
        let what = match self.private {
            true => "The generated modules: one per area of nvml.h (its Doxygen groups).",
            false => "The generated modules: one per area of nvml.h (its Doxygen groups), re-exported flat.",
        };
        out.add_rust(model, dir.join("mod.rs"), what, quote!(#modules #(#decls)*))
    }
}

/// Runs every emitter: every generated file of the workspace. `history` is the function
/// history regen read for this header (`gen-config/function-history.yaml`), for the mock.
/// What an emitter cannot serve (a parameter's role, say) goes to `d`: an error where the plan
/// promised the item (a safe method), a note where the emitter does less for the function (the
/// mock answers it with a code only, capture does not record it).
pub fn emit_all(b: &Bindings, plan: &Plan, history: &DriverTable, d: &mut Diagnostics) -> Result<Output> {
    let mut out = Output::default();
    sys::emit(b, &mut out)?;
    sys::fields::emit(b, &history.fields, &mut out)?;
    mock::emit(b, plan, &mut out, d)?;
    mock::emit_history(b, history, &mut out)?;
    mock::hostile::emit(b, plan, &mut out, d)?;
    safe::emit(b, plan, &mut out, d)?;
    Ok(out)
}

/// The first lines of every generated file. Names the command and the header; nothing that
/// changes between runs or machines.
/// The first lines of every generated file: `@generated`, the command and the header; then the
/// notice the header opens with, which its terms ask code that uses it to carry in comments.
/// Nothing that changes between runs or machines.
pub fn banner(model: &Model, what: &str) -> String {
    let header = &model.header;
    let source = match crate::model::version_key(&header.version) {
        Some(_) => format!("nvml.h {}", header.version),
        None => header.version.clone(),
    };
    let mut out = format!(
        "// @generated by `cargo xtask regen` from {source} (sha256 {}).\n\
         // {what}\n\
         // Do not edit by hand: change xtask/ or gen-config/ and run `cargo xtask regen`.\n\n",
        header.sha256
    );
    if let Some(notice) = &model.notice {
        out.push_str("// Generated from NVIDIA's nvml.h, whose notice follows.\n//\n");
        for line in notice.lines() {
            out.push_str(if line.is_empty() { "//\n" } else { "// " });
            if !line.is_empty() {
                out.push_str(line);
                out.push('\n');
            }
        }
        out.push('\n');
    }
    out
}

/// Formats `tokens` as a file with `banner` on top.
pub fn format_file(banner: &str, tokens: TokenStream, path: &str) -> Result<String> {
    let file: syn::File =
        syn::parse2(tokens).with_context(|| format!("generated code for {path} does not parse (a generator bug)"))?;
    Ok(format!("{banner}{}", prettyplease::unparse(&file)))
}

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let",
    "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct", "trait", "true", "type",
    "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// A Rust identifier for a C name: keywords become raw identifiers, and the few that cannot
/// (`self`, `crate`, ...) get a trailing underscore.
pub fn ident(name: &str) -> Ident {
    match name {
        "self" | "Self" | "super" | "crate" | "_" => Ident::new(&format!("{name}_"), Span::call_site()),
        n if KEYWORDS.contains(&n) => Ident::new_raw(n, Span::call_site()),
        n => Ident::new(n, Span::call_site()),
    }
}

/// The raw Rust spelling of a C type (`core::ffi` names for C scalars).
pub fn c_ty(t: &Ty) -> TokenStream {
    match t {
        Ty::Void => quote!(c_void),
        Ty::Bool => quote!(bool),
        Ty::Char => quote!(c_char),
        Ty::SChar => quote!(c_schar),
        Ty::UChar => quote!(c_uchar),
        Ty::Short => quote!(c_short),
        Ty::UShort => quote!(c_ushort),
        Ty::Int => quote!(c_int),
        Ty::UInt => quote!(c_uint),
        Ty::Long => quote!(c_long),
        Ty::ULong => quote!(c_ulong),
        Ty::LongLong => quote!(c_longlong),
        Ty::ULongLong => quote!(c_ulonglong),
        Ty::Float => quote!(f32),
        Ty::Double => quote!(f64),
        Ty::Named(n) => {
            let i = ident(n);
            quote!(#i)
        }
        Ty::Pointer { pointee, is_const } => {
            let p = c_ty(pointee);
            if *is_const {
                quote!(*const #p)
            } else {
                quote!(*mut #p)
            }
        }
        Ty::Array { elem, len } => {
            let e = c_ty(elem);
            let n = Literal::usize_unsuffixed(*len as usize);
            quote!([#e; #n])
        }
        Ty::FnPtr { ret, params } => {
            let ps = params.iter().map(c_ty);
            let r = ret_ty(ret);
            quote!(Option<unsafe extern "C" fn(#(#ps),*) #r>)
        }
    }
}

/// `-> T`, or nothing for `void`.
pub fn ret_ty(t: &Ty) -> TokenStream {
    if *t == Ty::Void {
        TokenStream::new()
    } else {
        let t = c_ty(t);
        quote!(-> #t)
    }
}

/// An integer literal (negative values as a negated literal).
pub fn int_lit(v: IntValue) -> TokenStream {
    match v {
        IntValue::Unsigned(u) => {
            let l = Literal::u64_unsuffixed(u);
            quote!(#l)
        }
        IntValue::Signed(i) if i < 0 => {
            let l = Literal::u64_unsuffixed(i.unsigned_abs());
            quote!(-#l)
        }
        IntValue::Signed(i) => {
            let l = Literal::u64_unsuffixed(i as u64);
            quote!(#l)
        }
    }
}
