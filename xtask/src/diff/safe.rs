//! The safe crate's public API under the current rules, old header against new, and the semver
//! release it calls for, with the reason for each change that makes it a major one.
//!
//! The API is read back (with syn) from what the safe emitter writes for each header: each
//! public method and associated constant of an inherent `impl` by `Type::name`, each public
//! struct and enum by name with its fields or variants and whether it is `#[non_exhaustive]`,
//! and the `raw::FromRaw` / `raw::ToRaw` impls, which are outside the stable API (they name
//! nvml-sys's layouts) and reported apart.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;
use serde::Serialize;

use super::{section, HeaderDiff, MemberChange, Section};
use crate::pipeline::Planned;

/// A method or associated constant: its signature, and the C names it is documented with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ApiItem {
    /// The signature as Rust, on one line, without docs or body.
    pub text: String,
    /// Its C names: `#[doc(alias)]`s, and a doc line that is one C name in backticks (the
    /// constants of enums and values: `` `NVML_BRAND_NVIDIA` ``).
    pub c_names: Vec<String>,
}

/// A struct or enum.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ApiType {
    /// The item as Rust, on one line, without docs.
    pub text: String,
    /// Fields (`name: Type`) or variants (`Name(Payload)`), by name.
    pub members: BTreeMap<String, String>,
    /// `#[non_exhaustive]`: members may be added in a minor release.
    pub non_exhaustive: bool,
    /// A tuple struct (`struct X(u32)`): compared as a whole.
    pub tuple: bool,
    pub c_names: Vec<String>,
}

/// The safe crate's public API as the emitter writes it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SafeApi {
    pub methods: BTreeMap<String, ApiItem>,
    pub types: BTreeMap<String, ApiType>,
    /// `Type: FromRaw<sys::layout>` and `Type: ToRaw<sys::layout>`.
    pub raw: BTreeSet<String>,
    /// `pub type Old = New;` of the sources (former names kept), old → new.
    pub aliases: BTreeMap<String, String>,
}

/// What caused a change that calls for a major release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// NVIDIA removed a function, record, field or constant from the header.
    NvidiaRemoved,
    /// NVIDIA changed the C type of something the API carries.
    NvidiaChanged,
    /// NVIDIA added the enum that a parameter's documentation says it carries (an `enums`
    /// rule): the C type is the same integer, and the method now takes or returns the enum.
    NvidiaTyped,
    /// The header's C items the API comes from did not change: the generator, the rules or the
    /// header's documentation did.
    Generator,
}

/// A change to the safe crate that calls for a major release.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Breaking {
    /// `Type::method`, `Type::CONST` or `Type`.
    pub item: String,
    /// What changed, in a few words.
    pub change: String,
    pub cause: Cause,
    /// The header change behind it (the C names), or why none is.
    pub why: String,
}

/// How the safe crate's public API changes with the header.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SafeDiff {
    /// `Type::method` (and `Type::CONST`) → its signature.
    pub methods: Section,
    /// Structs and enums → their fields or variants.
    pub types: Section,
    /// The `raw::FromRaw` / `raw::ToRaw` impls: outside the stable API, no part of the verdict.
    pub raw: Section,
    /// `major` when something is removed or changed in a way callers see, `minor` when something
    /// is added (fields of `#[non_exhaustive]` structs and variants of `#[non_exhaustive]` enums
    /// included), else `patch`.
    pub semver: String,
    /// Every change that makes the release a major one, with its cause.
    pub breaking: Vec<Breaking>,
    /// Functions and constants NVIDIA removed from the header that the new API keeps,
    /// deprecated, as the old header declared them (see `model::keep`).
    pub kept: Vec<String>,
}

impl SafeApi {
    /// The API the safe emitter writes for `p`.
    pub fn of(p: &Planned) -> Result<SafeApi> {
        let mut out = crate::emit::Output::default();
        let mut d = crate::diag::Diagnostics::new("emit");
        crate::emit::safe::emit(&p.bindings, &p.plan, &mut out, &mut d)?;
        out.format()?;
        if d.has_errors() {
            let errors: Vec<String> = d.items().iter().map(|e| e.to_string()).collect();
            anyhow::bail!(
                "the safe emitter cannot write the API of nvml.h {}:\n{}",
                p.bindings.model.header.version,
                errors.join("\n")
            );
        }
        let mut api = SafeApi::default();
        // `exercise.rs` is compiled for the crate's tests only.
        let public = |p: &std::path::Path| p.extension().is_some_and(|e| e == "rs") && !p.ends_with("exercise.rs");
        for f in out.files.iter().filter(|f| public(&f.path)) {
            api.read(&syn::parse_file(&f.contents)?);
        }
        Ok(api)
    }

    /// The API of the safe crate's sources under `src` as they stand (generated and written by
    /// hand): every `.rs` file but the tests' (`tests.rs`, `exercise.rs`).
    pub fn of_sources(src: &std::path::Path) -> Result<SafeApi> {
        let mut api = SafeApi::default();
        let mut dirs = vec![src.to_path_buf()];
        let mut files = Vec::new();
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", d.display()))? {
                let p = e?.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|e| e == "rs")
                    && !p.ends_with("exercise.rs")
                    && !p.ends_with("tests.rs")
                {
                    files.push(p);
                }
            }
        }
        files.sort();
        // `pub type Old = New;` (a former name kept): `Old` has `New`'s members and methods.
        let mut aliases = Vec::new();
        for f in files {
            let text = std::fs::read_to_string(&f).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", f.display()))?;
            let file = syn::parse_file(&text).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
            api.read(&file);
            for item in &file.items {
                if let syn::Item::Type(t) = item {
                    if let (true, syn::Type::Path(p)) = (is_pub(&t.vis), &*t.ty) {
                        let target = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                        aliases.push((t.ident.to_string(), target));
                    }
                }
            }
        }
        for (alias, target) in aliases {
            api.aliases.insert(alias.clone(), target.clone());
            let Some(t) = api.types.get(&target).cloned() else { continue };
            let prefix = format!("{target}::");
            let methods: Vec<(String, ApiItem)> = api
                .methods
                .iter()
                .filter_map(|(k, m)| Some((format!("{alias}::{}", k.strip_prefix(&prefix)?), m.clone())))
                .collect();
            api.methods.extend(methods);
            api.types.entry(alias).or_insert(t);
        }
        Ok(api)
    }

    fn read(&mut self, file: &syn::File) {
        for item in &file.items {
            match item {
                syn::Item::Impl(i) => self.read_impl(i),
                syn::Item::Struct(st) if is_pub(&st.vis) => {
                    let mut item: syn::ItemStruct = syn::parse_quote!(#st);
                    let c_names = c_names(&item.attrs);
                    let non_exhaustive = item.attrs.iter().any(|a| a.path().is_ident("non_exhaustive"));
                    item.attrs.clear();
                    item.fields.iter_mut().for_each(|f| f.attrs.clear());
                    let tuple = !matches!(item.fields, syn::Fields::Named(_));
                    let members = item
                        .fields
                        .iter()
                        .filter_map(|f| Some((f.ident.as_ref()?.to_string(), tokens(&f.ty))))
                        .collect();
                    let text = one_line(syn::Item::Struct(item));
                    self.types.insert(st.ident.to_string(), ApiType { text, members, non_exhaustive, tuple, c_names });
                }
                syn::Item::Enum(e) if is_pub(&e.vis) => {
                    let mut item: syn::ItemEnum = syn::parse_quote!(#e);
                    let c_names = c_names(&item.attrs);
                    let non_exhaustive = item.attrs.iter().any(|a| a.path().is_ident("non_exhaustive"));
                    item.attrs.clear();
                    // Docs of a variant and of its fields are no part of the API.
                    item.variants.iter_mut().for_each(|v| {
                        v.attrs.clear();
                        v.fields.iter_mut().for_each(|f| f.attrs.clear());
                    });
                    let members = item.variants.iter().map(|v| (v.ident.to_string(), tokens(&v.fields))).collect();
                    let text = one_line(syn::Item::Enum(item));
                    self.types
                        .insert(e.ident.to_string(), ApiType { text, members, non_exhaustive, tuple: false, c_names });
                }
                // `bitflags! { pub struct X: u32 { const A = ...; } }`: a type of its own.
                syn::Item::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "bitflags") => {
                    self.read_bitflags(&m.mac.tokens);
                }
                _ => {}
            }
        }
    }

    fn read_impl(&mut self, i: &syn::ItemImpl) {
        let owner = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
            _ => return,
        };
        if let Some((_, path, _)) = &i.trait_ {
            let last = path.segments.last();
            if last.is_some_and(|s| s.ident == "FromRaw" || s.ident == "ToRaw") {
                let path = tokens(path).replace("crate :: raw :: ", "");
                self.raw
                    .insert(format!("{owner}: {}", path.replace(" :: ", "::").replace(" < ", "<").replace(" >", ">")));
            }
            return;
        }
        // Deprecated forwarders (`The former name of [`Self::new_name`]`), by their target.
        let mut forwarders = Vec::new();
        for m in &i.items {
            match m {
                syn::ImplItem::Fn(f) if is_pub(&f.vis) => {
                    let text = signature(&f.sig);
                    let key = format!("{owner}::{}", f.sig.ident);
                    let names = c_names(&f.attrs);
                    if names.is_empty() {
                        forwarders.extend(forwarded_to(&f.attrs).map(|t| (key.clone(), format!("{owner}::{t}"))));
                    }
                    self.methods.insert(key, ApiItem { text, c_names: names });
                }
                syn::ImplItem::Const(c) if is_pub(&c.vis) => {
                    let text = format!("const {}: {}", c.ident, tokens(&c.ty));
                    self.methods.insert(format!("{owner}::{}", c.ident), ApiItem { text, c_names: c_names(&c.attrs) });
                }
                _ => {}
            }
        }
        // A forwarder comes from the C items of the method it calls.
        for (key, target) in forwarders {
            let names = self.methods.get(&target).map(|t| t.c_names.clone()).unwrap_or_default();
            if let Some(m) = self.methods.get_mut(&key) {
                m.c_names = names;
            }
        }
    }

    /// A `bitflags!` type: its constants, by name (`Type::NAME`).
    fn read_bitflags(&mut self, ts: &proc_macro2::TokenStream) {
        let text = ts.to_string();
        let Some(rest) = text.split("pub struct ").nth(1) else { return };
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        for part in rest.split("const ").skip(1) {
            let k: String = part.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !k.is_empty() && k != "_" {
                self.methods.insert(
                    format!("{name}::{k}"),
                    ApiItem { text: format!("const {k}: {name}"), c_names: Vec::new() },
                );
            }
        }
        self.types.entry(name.clone()).or_insert(ApiType { text: format!("bitflags {name}"), ..ApiType::default() });
    }
}

fn is_pub(v: &syn::Visibility) -> bool {
    matches!(v, syn::Visibility::Public(_))
}

fn tokens(t: &impl quote::ToTokens) -> String {
    t.to_token_stream().to_string()
}

/// The method a deprecated forwarder calls: `x` of a doc line "The former name of
/// [`Self::x`], which it calls."
fn forwarded_to(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| {
        let syn::Meta::NameValue(nv) = &a.meta else { return None };
        let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = &nv.value else { return None };
        let v = s.value();
        let rest = v.trim().strip_prefix("The former name of [`Self::")?;
        Some(rest.split('`').next()?.to_string())
    })
}

/// The C names of an item: its `#[doc(alias)]`s and a doc line that is only a C name in
/// backticks.
fn c_names(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut out = Vec::new();
    for a in attrs {
        if a.path().is_ident("doc") {
            let text = tokens(&a.meta);
            if let Some(i) = text.find("alias = \"") {
                let rest = &text[i + 9..];
                out.extend(rest.split('"').next().map(String::from));
            } else if let syn::Meta::NameValue(nv) = &a.meta {
                if let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = &nv.value {
                    let v = s.value();
                    let v = v.trim();
                    if let Some(name) = v.strip_prefix('`').and_then(|v| v.strip_suffix('`')) {
                        if name.starts_with("NVML_") || name.starts_with("nvml") {
                            out.push(name.to_string());
                        }
                    }
                }
            }
        }
    }
    out
}

/// An item as prettyplease prints it, on one line, without docs or a body.
fn one_line(item: syn::Item) -> String {
    let text = prettyplease::unparse(&syn::File { shebang: None, attrs: Vec::new(), items: vec![item] });
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace("( ", "(").replace(", )", ")").replace(", }", " }")
}

fn signature(sig: &syn::Signature) -> String {
    let f = syn::ItemFn {
        attrs: Vec::new(),
        vis: syn::Visibility::Inherited,
        sig: syn::parse_quote!(#sig),
        block: Box::new(syn::parse_quote!({})),
    };
    one_line(syn::Item::Fn(f)).trim_end_matches(" {}").to_string()
}

/// The header's changes, by C name, that explain a change of the safe API.
struct Header<'h> {
    d: &'h HeaderDiff,
    /// The old header's model: what its functions take.
    old: &'h crate::model::Model,
    /// `function.parameter` → the C enum it carries, in the new header (`enums` rules, and
    /// `function.parameter->field` for the inputs of list records, `Plan::typed_fields`).
    typed: &'h BTreeMap<String, String>,
}

impl Header<'_> {
    /// The C name of a section entry: `nvmlPciInfo_t (nvmlPciInfo_st)` is both.
    fn names(entry: &str) -> Vec<&str> {
        entry.split([' ', '(', ')']).filter(|s| !s.is_empty()).collect()
    }

    fn removed(&self, c: &str) -> bool {
        let d = self.d;
        [&d.functions, &d.records, &d.enums, &d.constants, &d.types]
            .iter()
            .any(|s| s.removed.iter().any(|i| Self::names(&i.name).contains(&c)))
            || d.enums
                .changed
                .iter()
                .any(|e| e.members.iter().any(|m| matches!(m, MemberChange::Removed { name, .. } if name == c)))
    }

    /// The changes of a function or record named `c` that remove or retype something.
    fn changes(&self, c: &str) -> Vec<(Cause, String)> {
        let d = self.d;
        let mut out = Vec::new();
        for (s, function) in [(&d.functions, true), (&d.records, false)] {
            for ch in s.changed.iter().filter(|ch| Self::names(&ch.name).contains(&c)) {
                for m in &ch.members {
                    match m {
                        MemberChange::Removed { name, .. } => {
                            out.push((Cause::NvidiaRemoved, format!("NVIDIA removed `{name}` from `{c}`")))
                        }
                        MemberChange::Renamed { old, new } => {
                            out.push((Cause::NvidiaRemoved, format!("NVIDIA renamed `{old}` of `{c}` to `{new}`")))
                        }
                        MemberChange::Retyped { name, old, new } => out.push((
                            Cause::NvidiaChanged,
                            format!("NVIDIA changed `{name}` of `{c}` from `{old}` to `{new}`"),
                        )),
                        MemberChange::Added { name, .. } if function => {
                            out.push((Cause::NvidiaChanged, format!("NVIDIA added parameter `{name}` to `{c}`")))
                        }
                        _ => {}
                    }
                }
            }
        }
        out
    }

    /// Why the items with C names `c_names` changed: the first header change that removes or
    /// changes one of them, or the generator.
    fn cause(&self, c_names: &[String]) -> (Cause, String) {
        if let Some(c) = c_names.iter().find(|c| self.removed(c)) {
            return (Cause::NvidiaRemoved, format!("NVIDIA removed `{c}` from nvml.h"));
        }
        let mut changes: Vec<(Cause, String)> = c_names.iter().flat_map(|c| self.changes(c)).collect();
        // A typedef a function's parameter or return names, retyped.
        for f in c_names.iter().filter_map(|c| self.old.functions.get(c)) {
            for t in std::iter::once(&f.ret).chain(f.params.iter().map(|p| &p.ty)) {
                let mut t = t;
                while let crate::model::Ty::Pointer { pointee, .. } = t {
                    t = pointee;
                }
                let crate::model::Ty::Named(n) = t else { continue };
                if let Some(ch) = self.d.types.changed.iter().find(|ch| ch.name == *n) {
                    changes.push((
                        Cause::NvidiaChanged,
                        format!("NVIDIA changed `{n}` from `{}` to `{}`", ch.old, ch.new),
                    ));
                }
            }
        }
        // A parameter the new header types: the enum its documentation names is new.
        for c in c_names {
            let params = self.typed.iter().filter(|(k, _)| k.split_once('.').is_some_and(|(f, _)| f == c));
            for (key, e) in params {
                if self.d.enums.added.iter().any(|i| Self::names(&i.name).contains(&e.as_str())) {
                    let param = key.split_once('.').map_or("", |(_, p)| p);
                    changes.push((
                        Cause::NvidiaTyped,
                        format!(
                            "NVIDIA added `{e}`, the enum that `{param}` of `{c}` carries (its documentation names it)"
                        ),
                    ));
                }
            }
        }
        changes.sort_by_key(|(cause, _)| *cause != Cause::NvidiaRemoved);
        if let Some(first) = changes.into_iter().next() {
            return first;
        }
        let names: Vec<String> = c_names.iter().map(|c| format!("`{c}`")).collect();
        let what = if names.is_empty() { "its C items".to_string() } else { names.join(", ") };
        (
            Cause::Generator,
            format!("{what} did not change in the header: the generator, the rules or the header's documentation did"),
        )
    }
}

/// The safe crate's changes between two APIs, the semver verdict and its reasons (`header`:
/// the header's changes, which explain them, with `typed`, the new header's `enums` rules and
/// typed list-record fields).
pub fn diff(
    old: &SafeApi,
    new: &SafeApi,
    header: &HeaderDiff,
    old_model: &crate::model::Model,
    typed: &BTreeMap<String, String>,
) -> SafeDiff {
    let h = Header { d: header, old: old_model, typed };
    let methods = section(&old.methods, &new.methods, |i| i.text.clone(), |_, _| Vec::new());
    let types = section(&old.types, &new.types, |t| t.text.clone(), |_, _| Vec::new());
    let raw_old: BTreeMap<String, String> = old.raw.iter().map(|r| (r.clone(), String::new())).collect();
    let raw_new: BTreeMap<String, String> = new.raw.iter().map(|r| (r.clone(), String::new())).collect();
    let raw = section(&raw_old, &raw_new, |_| String::new(), |_, _| Vec::new());
    let mut breaking = Vec::new();
    // A method or constant of a type that went goes for the type's reason.
    let owner_names = |item: &str| -> Vec<String> {
        let mut names = old.methods[item].c_names.clone();
        if let Some((owner, _)) = item.split_once("::") {
            if !new.types.contains_key(owner) {
                names.extend(old.types.get(owner).map(|t| t.c_names.clone()).unwrap_or_default());
            }
        }
        names
    };
    for i in &methods.removed {
        let (cause, why) = h.cause(&owner_names(&i.name));
        breaking.push(Breaking { item: i.name.clone(), change: "removed".into(), cause, why });
    }
    for c in &methods.changed {
        let (cause, why) = h.cause(&old.methods[&c.name].c_names);
        breaking.push(Breaking { item: c.name.clone(), change: format!("`{}` → `{}`", c.old, c.new), cause, why });
    }
    for i in &types.removed {
        let (cause, why) = h.cause(&old.types[&i.name].c_names);
        breaking.push(Breaking { item: i.name.clone(), change: "removed".into(), cause, why });
    }
    let mut minor_changes = false;
    for c in &types.changed {
        let (o, n) = (&old.types[&c.name], &new.types[&c.name]);
        match type_change(o, n) {
            None => minor_changes = true,
            Some(change) => {
                let (cause, why) = h.cause(&o.c_names);
                breaking.push(Breaking { item: c.name.clone(), change, cause, why });
            }
        }
    }
    let added = !methods.added.is_empty() || !types.added.is_empty() || minor_changes;
    let semver = if !breaking.is_empty() {
        "major"
    } else if added {
        "minor"
    } else {
        "patch"
    };
    SafeDiff { methods, types, raw, semver: semver.to_string(), breaking, kept: Vec::new() }
}

/// What makes a change of a struct or enum breaking, or `None` when it only adds fields to a
/// `#[non_exhaustive]` struct or variants to a `#[non_exhaustive]` enum.
fn type_change(o: &ApiType, n: &ApiType) -> Option<String> {
    if o.tuple || n.tuple {
        return Some(format!("`{}` → `{}`", o.text, n.text));
    }
    if o.non_exhaustive && !n.non_exhaustive {
        return Some("no longer `#[non_exhaustive]`".into());
    }
    let removed: Vec<String> =
        o.members.keys().filter(|k| !n.members.contains_key(*k)).map(|k| format!("`{k}`")).collect();
    if !removed.is_empty() {
        return Some(format!("{} removed", removed.join(", ")));
    }
    let retyped: Vec<String> = o
        .members
        .iter()
        .filter_map(|(k, t)| n.members.get(k).filter(|u| *u != t).map(|u| format!("`{k}`: `{t}` → `{u}`")))
        .collect();
    if !retyped.is_empty() {
        return Some(retyped.join(", "));
    }
    let added = n.members.keys().any(|k| !o.members.contains_key(k));
    if added && !o.non_exhaustive {
        return Some("members added to a type that is not `#[non_exhaustive]`".into());
    }
    if !added && o.text != n.text && o.members == n.members {
        // Attributes or order only.
        return None;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::Item;

    /// A method whose parameter the new header's documentation types with a new enum.
    fn typed_method(typed: &BTreeMap<String, String>) -> Vec<(String, Cause, String)> {
        let item = |ret: &str| ApiItem {
            text: format!("fn version(&self, link: u32) -> Result<{ret}, Error>"),
            c_names: vec!["nvmlDeviceGetVersion".into()],
        };
        let old = SafeApi { methods: [("Device::version".to_string(), item("u32"))].into(), ..SafeApi::default() };
        let new = SafeApi { methods: [("Device::version".to_string(), item("Version"))].into(), ..SafeApi::default() };
        let mut header = HeaderDiff::default();
        header.enums.added.push(Item { name: "nvmlVersion_t (nvmlVersion_enum)".into(), detail: String::new() });
        let d = diff(&old, &new, &header, &crate::model::Model::default(), typed);
        d.breaking.into_iter().map(|b| (b.item, b.cause, b.why)).collect()
    }

    #[test]
    fn a_parameter_typed_by_an_enum_the_header_adds_is_nvidias_change() {
        let typed: BTreeMap<String, String> =
            [("nvmlDeviceGetVersion.version".into(), "nvmlVersion_enum".into())].into();
        let breaking = typed_method(&typed);
        assert_eq!(breaking.len(), 1, "{breaking:?}");
        assert_eq!((breaking[0].0.as_str(), breaking[0].1), ("Device::version", Cause::NvidiaTyped));
        assert!(breaking[0].2.contains("NVIDIA added `nvmlVersion_enum`"), "{}", breaking[0].2);
        // Without the rule the same change is the generator's.
        assert_eq!(typed_method(&BTreeMap::new())[0].1, Cause::Generator);
    }
}
