//! The emit stage: [`Bindings`] → formatted Rust files (paths relative to the workspace root).
//!
//! Each emitter builds token streams with `quote`, which `syn` parses and prettyplease prints,
//! so the output's layout depends on nothing installed on the machine. The emitters run as
//! [`jobs`], a thread per core, and each job lays out its own files ([`Output::format`]) on
//! its thread: a token stream is handed to `syn` as it is, never printed and parsed again.
//! Big regular files (tables of literals) skip tokens altogether: their emitters write the
//! text prettyplease would print ([`text`], [`Output::add_text`]).

pub mod cuda;
pub mod doc;
pub mod jobs;
pub mod mock;
pub mod safe;
pub mod sys;
pub mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use proc_macro2::{Group, Ident, Literal, Span, TokenStream, TokenTree};
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
    /// The Rust files of `files` still to be laid out (their contents empty until then), by
    /// [`Output::format`].
    pub unformatted: Vec<Unformatted>,
    /// How long each emit job took, and on how many threads they ran (see [`jobs`]).
    pub timings: jobs::Timings,
}

/// A Rust file of an [`Output`] before prettyplease lays it out.
#[derive(Debug, Clone)]
pub struct Unformatted {
    /// Its index in `Output::files`.
    index: usize,
    /// The banner and the allows, before the laid-out code.
    head: String,
    code: TokenStream,
    /// Text laid out by the emitter itself, after the code.
    tail: String,
}

/// A lint a whole generated file allows, `(lints, why)`: what the emitted code cannot avoid,
/// written as `#![allow(lints)]` under a comment giving the reason.
pub type Allow = (&'static str, &'static str);

/// The inner attributes of `allows`, each under its reason.
fn allows_text(allows: &[Allow]) -> String {
    allows.iter().map(|(lints, why)| format!("// {why}\n#![allow({lints})]\n")).collect()
}

impl Output {
    /// Formats `tokens` under the banner (saying `what` the file holds) and adds the file.
    pub fn add_rust(&mut self, model: &Model, path: PathBuf, what: &str, tokens: TokenStream) -> Result<()> {
        self.add_rust_then(model, path, what, &[], tokens, "")
    }

    /// [`Output::add_rust`], the file allowing `allows`, with `tail` (Rust laid out by the
    /// emitter itself) after the formatted items; the whole file must still parse.
    pub fn add_rust_then(
        &mut self,
        model: &Model,
        path: PathBuf,
        what: &str,
        allows: &[Allow],
        tokens: TokenStream,
        tail: &str,
    ) -> Result<()> {
        let head = format!("{}{}", banner(model, what), allows_text(allows));
        let (index, tail) = (self.files.len(), tail.to_string());
        self.unformatted.push(Unformatted { index, head, code: tokens, tail });
        self.files.push(GeneratedFile { path, contents: String::new() });
        Ok(())
    }

    /// Adds a Rust file laid out by the emitter itself ([`text`]) under the banner (saying
    /// `what` it holds) and `allows`. The text is checked to be Rust tokens (its delimiters
    /// balanced, its literals whole); debug builds parse it as a file too.
    pub fn add_text(&mut self, model: &Model, path: PathBuf, what: &str, allows: &[Allow], text: String) -> Result<()> {
        let bug = || format!("generated text for {} is not Rust (a generator bug)", path.display());
        text.parse::<TokenStream>().map_err(|e| anyhow::anyhow!("{}: {e}", bug()))?;
        if cfg!(debug_assertions) {
            syn::parse_file(&text).with_context(bug)?;
        }
        let mut contents = format!("{}{}", banner(model, what), allows_text(allows));
        contents.push_str(&text);
        self.files.push(GeneratedFile { path, contents });
        Ok(())
    }

    /// Lays out every Rust file added since the last call, on this thread (the one whose
    /// emitters made the token streams; [`jobs`] runs emitters on several).
    pub fn format(&mut self) -> Result<()> {
        for u in std::mem::take(&mut self.unformatted) {
            let index = u.index;
            self.files[index].contents = lay_out(u, &self.files[index].path)?;
        }
        Ok(())
    }
}

/// The contents of `u`: its head, its code laid out by prettyplease, its tail. The whole must
/// parse: the code does, the head (comments and inner attributes) does alone, and so does
/// the tail, a list of items without inner attributes, which then parse after the code's.
fn lay_out(u: Unformatted, path: &Path) -> Result<String> {
    let bug = || format!("generated code for {} does not parse (a generator bug)", path.display());
    let file: syn::File = syn::parse2(u.code).with_context(bug)?;
    let code = prettyplease::unparse(&file);
    if u.head.contains("#![") {
        let head = syn::parse_file(&u.head).with_context(bug)?;
        anyhow::ensure!(head.items.is_empty(), "{}: the head holds items", bug());
    }
    if !u.tail.is_empty() {
        let tail = syn::parse_file(&u.tail).with_context(bug)?;
        anyhow::ensure!(tail.attrs.is_empty() && tail.shebang.is_none(), "{}: the tail starts a file", bug());
    }
    let mut contents = String::with_capacity(u.head.len() + code.len() + u.tail.len());
    contents.push_str(&u.head);
    contents.push_str(&code);
    contents.push_str(&u.tail);
    Ok(contents)
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
    /// What the areas allow, and why: written once, in `mod.rs`, whose lint levels its area
    /// modules inherit.
    pub allows: Vec<Allow>,
}

/// The names an area file's items (and text) use, for its prelude to import only those.
#[derive(Debug, Default)]
pub struct Uses {
    names: BTreeSet<String>,
    /// Those of `names` named outside macro invocations (a macro's own words, the constants
    /// of `open_newtype!`, say, are not types of other areas).
    outside_macros: BTreeSet<String>,
    /// The types, traits and statics the crate's other areas define that the items name.
    elsewhere: bool,
    /// The names the items' doc comments link to (`[`Nvml::x`]` → `Nvml`).
    docs: BTreeSet<String>,
}

impl Uses {
    /// Whether the items name `name`.
    pub fn names(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// Whether the items name something from `nvml_sys` (a name starting with `nvml` or `NVML`).
    pub fn nvml_sys(&self) -> bool {
        self.names.iter().any(|n| n.starts_with("nvml") || n.starts_with("NVML"))
    }

    /// Whether the items name any of `names`.
    pub fn any<'n>(&self, mut names: impl Iterator<Item = &'n str>) -> bool {
        names.any(|n| self.names(n))
    }

    /// Whether the items name something another area of the crate defines.
    pub fn elsewhere(&self) -> bool {
        self.elsewhere
    }

    /// `use core::ffi::*;` where the items name a C type of it.
    pub fn c_types(&self) -> TokenStream {
        const C: &[&str] = &[
            "c_char",
            "c_schar",
            "c_uchar",
            "c_short",
            "c_ushort",
            "c_int",
            "c_uint",
            "c_long",
            "c_ulong",
            "c_longlong",
            "c_ulonglong",
            "c_float",
            "c_double",
            "c_void",
        ];
        match self.any(C.iter().copied()) {
            true => quote!(
                use core::ffi::*;
            ),
            false => TokenStream::new(),
        }
    }

    /// `use path::*;` where `used`.
    pub fn glob(&self, path: TokenStream, used: bool) -> TokenStream {
        match used {
            true => quote!(use #path::*;),
            false => TokenStream::new(),
        }
    }

    /// `use path::{..}` of those of `names` that the items name; nothing when none.
    pub fn import(&self, path: TokenStream, names: &[&str]) -> TokenStream {
        let used: Vec<Ident> =
            names.iter().filter(|n| self.names(n)).map(|n| Ident::new(n, Span::call_site())).collect();
        match used.as_slice() {
            [] => TokenStream::new(),
            [one] => quote!(use #path::#one;),
            _ => quote!(use #path::{#(#used),*};),
        }
    }
}

/// Every identifier of `tokens` (groups included) into `out` that could name an import: not
/// a later segment of a path (`S::Error`) nor a field or method (`.id`); `in_macro` for the
/// tokens of a macro invocation. The tokens are handed back as they were: taken rather than
/// borrowed, since iterating a shared stream copies every tree of it.
fn idents_into(tokens: TokenStream, in_macro: bool, out: &mut Uses) -> TokenStream {
    // The last two punctuation characters before the token (`::`, `.`), if just before it.
    let mut after = [' ', ' '];
    // Whether the token before was a keyword that declares the next name (not a use of it).
    let mut declares = false;
    const DECLARING: &[&str] = &["const", "fn", "struct", "enum", "union", "type", "trait", "static", "mod", "let"];
    let tokens = tokens.into_iter();
    let mut trees = Vec::with_capacity(tokens.size_hint().0);
    for t in tokens {
        let declared = std::mem::take(&mut declares);
        let t = match t {
            TokenTree::Ident(i) if declared => {
                declares = DECLARING.iter().any(|k| i == k);
                TokenTree::Ident(i)
            }
            TokenTree::Ident(i) if after != [':', ':'] && after[1] != '.' => {
                let word = i.to_string();
                // `*const T` is a pointer type, not a declaration.
                declares = DECLARING.contains(&word.as_str()) && after[1] != '*';
                let name = match word.strip_prefix("r#") {
                    Some(raw) => raw.to_string(),
                    None => word,
                };
                if !in_macro && !out.outside_macros.contains(&name) {
                    out.outside_macros.insert(name.clone());
                }
                if !out.names.contains(&name) {
                    out.names.insert(name);
                }
                TokenTree::Ident(i)
            }
            TokenTree::Group(g) => {
                let (delimiter, span, stream) = (g.delimiter(), g.span(), g.stream());
                // The group let go, its stream is this one's alone.
                drop(g);
                let mut g = Group::new(delimiter, idents_into(stream, in_macro || after[1] == '!', out));
                g.set_span(span);
                TokenTree::Group(g)
            }
            // A doc comment's intra-doc links name items as code does: `[`Nvml::x`]` needs `Nvml`.
            TokenTree::Literal(l) => {
                out.docs.extend(doc_link_heads(&l.to_string()));
                TokenTree::Literal(l)
            }
            other => other,
        };
        after = match &t {
            TokenTree::Punct(p) => [after[1], p.as_char()],
            _ => [' ', ' '],
        };
        trees.push(t);
    }
    trees.into_iter().collect()
}

/// `#[cfg(doc)]` before each `use` item of `items`.
fn for_docs_only(items: TokenStream) -> TokenStream {
    items
        .into_iter()
        .flat_map(|t| match &t {
            TokenTree::Ident(i) if i == "use" => quote!(#[cfg(doc)] #t),
            _ => quote!(#t),
        })
        .collect()
}

/// The first path segment of each intra-doc link of a doc string (`[`Nvml::name`]` →
/// `Nvml`), except links with a target of their own (`[text](path)`), which name it whole.
fn doc_link_heads(text: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("[`") {
        rest = &rest[open + 2..];
        let Some(close) = rest.find("`]") else { break };
        let (link, after) = (&rest[..close], &rest[close + 2..]);
        rest = after;
        if after.starts_with('(') {
            continue;
        }
        let head = link.split("::").next().unwrap_or(link);
        if !head.is_empty() && head.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            heads.push(head.to_string());
        }
    }
    heads
}

/// The names `tokens` define: the identifier after `struct`, `enum`, `union`, `type`,
/// `trait`, `static`, `const` or `fn` at its top level, or after one of the first five inside
/// a macro's group (`bitflags!`; a `const` there is an associated constant).
fn defined_into(tokens: &TokenStream, in_macro: bool, out: &mut BTreeSet<String>) {
    let keywords: &[&str] = match in_macro {
        false => &["struct", "enum", "union", "type", "trait", "static", "const", "fn"],
        true => &["struct", "enum", "union", "type", "trait"],
    };
    let mut previous: Option<String> = None;
    for t in tokens.clone() {
        match &t {
            TokenTree::Ident(i) => {
                let word = i.to_string();
                if word != "_" && previous.as_deref().is_some_and(|p| keywords.contains(&p)) {
                    out.insert(word.trim_start_matches("r#").to_string());
                }
                previous = Some(word);
            }
            TokenTree::Group(g) if previous.as_deref() == Some("!") => {
                defined_into(&g.stream(), true, out);
                previous = None;
            }
            TokenTree::Punct(p) => previous = Some(p.as_char().to_string()),
            _ => previous = None,
        }
    }
}

/// The words of laid-out text that could be identifiers (numbers are not), into each of `outs`.
fn words_into(text: &str, outs: [&mut BTreeSet<String>; 2]) {
    let mut seen = std::collections::HashSet::new();
    let words = text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    let words: Vec<&str> = words.filter(|w| w.starts_with(|c: char| !c.is_ascii_digit()) && seen.insert(*w)).collect();
    for out in outs {
        for w in &words {
            if !out.contains(*w) {
                out.insert(w.to_string());
            }
        }
    }
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

    /// Writes `<dir>/<area>.rs` for each area, each starting with `prelude(uses, has_text)`
    /// (`uses`: what its items name), and `<dir>/mod.rs` with `modules` (the crate's other
    /// generated modules) before the areas.
    pub fn write(
        self,
        out: &mut Output,
        model: &Model,
        dir: &Path,
        prelude: impl Fn(&Uses, bool) -> TokenStream,
        modules: TokenStream,
    ) -> Result<()> {
        let mut decls = Vec::new();
        let mut defined: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (module, (_, items)) in &self.areas {
            let d = defined.entry(module.clone()).or_default();
            items.iter().for_each(|i| defined_into(i, false, d));
        }
        for (module, (title, items)) in self.areas {
            let module = module.as_str();
            let what = format!("The items of nvml.h's group \"{title}\".");
            let tail = self.tables.get(module).map_or("", String::as_str);
            let mut uses = Uses::default();
            let items: Vec<TokenStream> = items.into_iter().map(|i| idents_into(i, false, &mut uses)).collect();
            words_into(tail, [&mut uses.names, &mut uses.outside_macros]);
            uses.elsewhere =
                defined.iter().any(|(m, d)| m != module && d.iter().any(|n| uses.outside_macros.contains(n)));
            // What only the docs name is imported for rustdoc alone (`#[cfg(doc)]`): rustc
            // would call it unused.
            let only_docs: BTreeSet<String> = uses.docs.difference(&uses.names).cloned().collect();
            let doc_uses = Uses {
                elsewhere: defined.iter().any(|(m, d)| m != module && d.iter().any(|n| only_docs.contains(n))),
                outside_macros: only_docs.clone(),
                names: only_docs,
                docs: BTreeSet::new(),
            };
            let code_head = prelude(&uses, self.tables.contains_key(module));
            // A prelude that imports the same whatever the items name needs nothing more.
            let doc_prelude = prelude(&doc_uses, false);
            let fixed = prelude(&Uses::default(), false).to_string() == doc_prelude.to_string();
            let doc_head = (!fixed).then(|| for_docs_only(doc_prelude));
            let head = quote!(#code_head #doc_head);
            let path = dir.join(format!("{module}.rs"));
            out.add_rust_then(model, path, &what, &[], quote!(#head #(#items)*), tail)?;
            let (m, d) = (ident(module), format!(" {title}."));
            // An area of impls only has nothing to re-export.
            let exports = defined.get(module).is_some_and(|d| !d.is_empty());
            decls.push(match (self.private, exports) {
                (true, _) => quote! { #[doc = #d] pub mod #m; },
                (false, true) => quote! { #[doc = #d] mod #m; pub use #m::*; },
                (false, false) => quote! { #[doc = #d] mod #m; },
            });
        }
        let what = match self.private {
            true => "The generated modules: one per area of nvml.h (its Doxygen groups).",
            false => "The generated modules: one per area of nvml.h (its Doxygen groups), re-exported flat.",
        };
        out.add_rust_then(model, dir.join("mod.rs"), what, &self.allows, quote!(#modules #(#decls)*), "")
    }
}

/// Runs every emitter: every generated file of the workspace. `history` is the function
/// history regen read for this header (`gen-config/function-history.yaml`), for the mock.
/// What an emitter cannot serve (a parameter's role, say) goes to `d`: an error where the plan
/// promised the item (a safe method), a note where the emitter does less for the function (the
/// mock answers it with a code only, capture does not record it).
pub fn emit_all(b: &Bindings, plan: &Plan, history: &DriverTable, d: &mut Diagnostics) -> Result<Output> {
    let job = jobs::Job::new;
    // The weights are the jobs' shares of a regen of 13.5.37 (per mille of instructions).
    let all = vec![
        job("sys", 150, Box::new(|out, _| sys::emit(b, out))),
        job("sys fields", 1, Box::new(|out, _| sys::fields::emit(b, &history.fields, out))),
        job("mock", 200, Box::new(|out, d| mock::emit(b, plan, out, d))),
        job("mock exports", 150, Box::new(|out, d| mock::emit_exports(b, plan, out, d))),
        job("mock history", 1, Box::new(|out, _| mock::emit_history(b, history, out))),
        job("mock hostile", 30, Box::new(|out, d| mock::hostile::emit(b, plan, out, d))),
        job("safe", 450, Box::new(|out, d| safe::emit_areas(b, plan, out, d))),
        job("safe files", 50, Box::new(|out, _| safe::emit_files(b, plan, out))),
    ];
    jobs::run(all, threads(), d)
}

/// The threads emit jobs run on: one per core.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The first lines of every generated file. Names the command and the header; nothing that
/// changes between runs or machines.
/// The first lines of every generated file: `@generated`, the command and the header; then the
/// notice the header opens with, which its terms ask code that uses it to carry in comments.
/// Nothing that changes between runs or machines.
pub fn banner(model: &Model, what: &str) -> String {
    let header = &model.header;
    // `cuda.h`'s model is named `cuda.h VERSION` (see `pipeline::cuda_model`).
    let file = if header.version.starts_with("cuda.h ") { "cuda.h" } else { "nvml.h" };
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
        out.push_str(&format!("// Generated from NVIDIA's {file}, whose notice follows.\n//\n"));
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
