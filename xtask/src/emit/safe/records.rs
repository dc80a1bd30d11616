//! The safe crate's record types: one Rust struct per record family (every layout the header
//! declares of a record, `nvmlMemory_t` and `nvmlMemory_v2_t`), holding the fields of every
//! layout, with a `raw::FromRaw` and a `raw::ToRaw` impl per layout.
//!
//! A header that adds a layout so adds fields and impls and renames or removes nothing: the
//! struct is `#[non_exhaustive]` (callers build one with `Default` and set its fields), its
//! name has no version, and a field the newest layout dropped stays, filled by the layouts that
//! have it (a field a `former_names` rule says was renamed is filled from either name).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::convert::{doc_aliases, field_conv, field_ident, from_raw, serde_key, to_raw, union_eq, union_fields};
use super::Names;
use crate::emit::{doc, ident};
use crate::model::{Record, Ty};
use crate::rules::{Bindings, ValueTag};

/// Writes one field's value into a raw layout `r`, from a safe value at the place it is given.
type Writer<'a> = Box<dyn Fn(&TokenStream) -> TokenStream + 'a>;

/// One field of a C layout as the safe type holds it.
struct FieldOut<'a> {
    /// The C field it comes from.
    c: String,
    /// The safe field; `None` for a C field read only through another (a union's tag), which
    /// serialises in its place.
    ident: Option<Ident>,
    /// Its docs.
    docs: TokenStream,
    /// `pub name: Type`.
    decl: TokenStream,
    /// The safe type, as text: what two layouts must agree on to share the field.
    ty: String,
    /// The safe value, read from the raw layout `r`.
    from: TokenStream,
    /// Writes the value (its place given) into `r`.
    to: Writer<'a>,
    /// The statement that serialises it, from `self`.
    ser: Option<TokenStream>,
    /// Whether its safe type implements `PartialEq`.
    eq: bool,
}

/// A layout's fields and what its conversions need besides.
struct LayoutOut<'a> {
    record: &'a Record,
    fields: Vec<FieldOut<'a>>,
    /// Statements `to_raw` starts with (the `version` of a versioned layout).
    pre_to: Vec<TokenStream>,
    /// Where the type of its `nvmlValue_t` fields is, when not in the record: the layout
    /// gets `from_raw_typed`, which takes it, instead of `FromRaw`.
    external: Option<&'a ValueTag>,
}

/// Whether a field's comment says it carries nothing ("Reserved for future use", "Reserved
/// for internal use"): the safe type leaves it out and `to_raw` writes zero.
fn reserved(f: &crate::model::Field) -> bool {
    f.doc.as_deref().is_some_and(|d| d.trim_start().to_ascii_lowercase().starts_with("reserved for"))
}

fn layout<'a>(b: &'a Bindings, names: &'a Names, r: &'a Record) -> LayoutOut<'a> {
    let tagged: Vec<(&str, &ValueTag)> =
        b.tagged_values.iter().filter_map(|(k, tag)| Some((k.strip_prefix(&format!("{}.", r.name))?, tag))).collect();
    let external = tagged.iter().find(|(_, t)| t.field().is_none()).map(|(_, t)| *t);
    let unions = union_fields(b, &r.name);
    let byte_unions: Vec<(&str, &str)> = b
        .byte_unions
        .iter()
        .filter_map(|(k, name)| Some((k.strip_prefix(&format!("{}.", r.name))?, name.as_str())))
        .collect();
    let version_const = b.struct_versions.get(&r.name).map(|c| format_ident!("{c}"));
    let mut out = LayoutOut { record: r, fields: Vec::new(), pre_to: Vec::new(), external };
    for f in &r.fields {
        let fname = field_ident(&f.name);
        let c = ident(&f.name);
        let (key, skey) = (f.name.clone(), serde_key(&f.name));
        // A field the header does not describe is named by its C name and record.
        let doc = match value_text(f.doc.as_deref()) {
            Some(_) => f.doc.clone(),
            None => Some(format!("\\c {} of \\c {}, which nvml.h does not describe.", f.name, r.name)),
        };
        let f_doc = doc.as_deref();
        if tagged.iter().any(|(_, tag)| tag.field() == Some(f.name.as_str())) {
            continue;
        }
        // A union's tag is the enum's: serialised in its place, as the C record has it.
        if let Some((union_field, _, _)) = unions.iter().find(|(_, tag, _)| *tag == f.name) {
            let uf = field_ident(union_field);
            out.fields.push(FieldOut {
                c: f.name.clone(),
                ident: None,
                docs: TokenStream::new(),
                decl: TokenStream::new(),
                ty: String::new(),
                from: TokenStream::new(),
                to: Box::new(|_| TokenStream::new()),
                ser: Some(quote!(st.serialize_field(#skey, &self.#uf.tag())?;)),
                eq: true,
            });
            continue;
        }
        if let (Some(v), "version") = (&version_const, f.name.as_str()) {
            out.pre_to.push(quote!(r.version = sys::#v as _;));
            continue;
        }
        if reserved(f) {
            continue;
        }
        let fdocs = field_docs(names, f_doc);
        let ser = Some(quote!(st.serialize_field(#skey, &self.#fname)?;));
        if let Some((_, tag)) = tagged.iter().find(|(v, _)| *v == f.name) {
            let (value_type, tdoc, t) = match tag {
                ValueTag::Field(t) => {
                    let t = ident(t);
                    (quote!(ValueType(r.#t)), format!(" Read as its `{t}` says."), Some(t))
                }
                ValueTag::Param { function, param } => (
                    quote!(value_type),
                    format!(" Read as the `{param}` that `{function}` returns with it says."),
                    None,
                ),
                ValueTag::Outer { record, field } => {
                    (quote!(value_type), format!(" Read as the `{field}` of the `{record}` that holds it says."), None)
                }
            };
            let docs = doc_with_note(names, f_doc, &tdoc);
            let cc = c.clone();
            out.fields.push(FieldOut {
                c: key,
                ident: Some(fname.clone()),
                docs,
                decl: quote!(pub #fname: crate::Value),
                ty: "crate::Value".into(),
                from: quote!(crate::Value::from_raw(#value_type, &r.#c)),
                to: Box::new(move |src| match &t {
                    Some(t) => quote!(r.#cc = #src.to_raw(); r.#t = #src.value_type().0;),
                    None => quote!(r.#cc = #src.to_raw();),
                }),
                ser,
                eq: true,
            });
            continue;
        }
        if let Some((_, tag, enum_name)) = unions.iter().find(|(v, _, _)| *v == f.name) {
            let (t, e) = (ident(tag), format_ident!("{enum_name}"));
            let docs = doc_with_note(names, f_doc, &format!(" Read as its `{tag}` says."));
            let eq = b.tagged_unions.get(*enum_name).is_some_and(|rule| union_eq(b, names, rule));
            let cc = c.clone();
            out.fields.push(FieldOut {
                c: key,
                ident: Some(fname.clone()),
                docs,
                decl: quote!(pub #fname: #e),
                ty: e.to_string(),
                from: quote!(#e::from_raw_tagged(r.#t as u32, &r.#c)),
                to: Box::new(move |src| quote!({ let (tag, u) = #src.to_raw_tagged(); r.#t = tag as _; r.#cc = u; })),
                ser,
                eq,
            });
            continue;
        }
        let union = crate::model::union_of(&b.model, &f.ty);
        if let (Some((_, name)), Some(u)) = (byte_unions.iter().find(|(v, _)| *v == f.name), union) {
            let members: Vec<String> = u.fields.iter().map(|g| format!("`{}`", g.name)).collect();
            let (bname, raw) = (ident(name), format_ident!("{}", u.name));
            let bdoc = format!(
                " The bytes of the union of {}: byte arrays of one size, which the call's direction picks.",
                members.join(" and ")
            );
            let docs = doc_with_note(names, f_doc, &bdoc);
            let cc = c.clone();
            out.fields.push(FieldOut {
                c: key,
                ident: Some(bname.clone()),
                docs,
                decl: quote!(pub #bname: Vec<u8>),
                ty: "Vec<u8>".into(),
                from: quote!(union_bytes!(r.#c)),
                to: Box::new(move |src| quote!(r.#cc = union_with_bytes!(sys::#raw, &#src);)),
                ser: Some(quote!(st.serialize_field(#name, &self.#bname)?;)),
                eq: true,
            });
            continue;
        }
        // A yes or no (a `booleans` rule): 0 is `false`.
        if b.boolean_field(&r.name, &f.name) && !matches!(b.model.resolve_typedef(&f.ty), Ty::Array { .. }) {
            let cc = c.clone();
            out.fields.push(FieldOut {
                c: key,
                ident: Some(fname.clone()),
                docs: yes_no_docs(names, f_doc),
                decl: quote!(pub #fname: bool),
                ty: "bool".into(),
                from: quote!(r.#c != 0),
                to: Box::new(move |src| quote!(r.#cc = #src as _;)),
                ser,
                eq: true,
            });
            continue;
        }
        let flags = b.flags_of_field(&r.name, &f.name);
        let conv = field_conv(b, names, &f.ty, flags.as_deref());
        let ty = conv.ty;
        let from = match (b.counted.get(&format!("{}.{}", r.name, f.name)), b.model.resolve_typedef(&f.ty)) {
            // A list with a count of its filled entries: that many.
            (Some(count), Ty::Array { elem, .. }) => {
                let (n, inner) = (ident(count), from_raw(b, names, elem, None, quote!((*x))));
                quote!(r.#c.iter().take(r.#n as usize).map(|x| #inner).collect())
            }
            _ => from_raw(b, names, &f.ty, flags.as_deref(), quote!(r.#c)),
        };
        let ser = conv.serde.then_some(quote!(st.serialize_field(#skey, &self.#fname)?;));
        // A value the header says stands for "none" is `None`.
        let field = match crate::plan::sentinel(&b.model, f) {
            Some(none) => {
                let none = Literal::u64_unsuffixed(none);
                let ndoc = format!(" `None` where nvml.h has `{none}` for no value.");
                let cc = c.clone();
                FieldOut {
                    c: key,
                    ident: Some(fname.clone()),
                    docs: quote!(#fdocs #[doc = ""] #[doc = #ndoc]),
                    decl: quote!(pub #fname: Option<#ty>),
                    ty: format!("Option<{ty}>"),
                    from: quote!(Some(#from).filter(|v| *v != #none)),
                    to: Box::new(move |src| quote!(r.#cc = #src.unwrap_or(#none);)),
                    ser,
                    eq: conv.eq,
                }
            }
            None => {
                let (t, is_flags) = (f.ty.clone(), flags.is_some());
                let cc = c.clone();
                FieldOut {
                    c: key,
                    ident: Some(fname.clone()),
                    docs: fdocs.clone(),
                    decl: quote!(pub #fname: #ty),
                    ty: ty.to_string(),
                    from,
                    to: Box::new(move |src| to_raw(b, names, &t, is_flags, quote!(r.#cc), src.clone())),
                    ser,
                    eq: conv.eq,
                }
            }
        };
        out.fields.push(field);
    }
    out
}

/// A field's documentation in Rust terms: the value it holds, its C names as links.
pub(super) fn field_docs(names: &Names, d: Option<&str>) -> TokenStream {
    match value_text(d) {
        Some(v) => doc::lines(&names.links.apply(&doc::to_markdown(&v))),
        None => TokenStream::new(),
    }
}

/// A field's comment read as the value it holds, where it says more than the field's C type.
fn value_text(d: Option<&str>) -> Option<String> {
    d.map(super::rustdoc::as_value).filter(|v| !v.is_empty())
}

/// A yes-or-no field's documentation (see [`field_docs`]), its enabled and disabled
/// constants as `true` and `false`.
fn yes_no_docs(names: &Names, d: Option<&str>) -> TokenStream {
    match value_text(d) {
        Some(v) => doc::lines(&super::rustdoc::yes_no_as_bool(&names.links.apply(&doc::to_markdown(&v)))),
        None => TokenStream::new(),
    }
}

/// A field's documentation (see [`field_docs`]) followed by a note of the binding's, as
/// paragraphs of their own.
pub(super) fn doc_with_note(names: &Names, d: Option<&str>, note: &str) -> TokenStream {
    match value_text(d) {
        Some(_) => {
            let d = field_docs(names, d);
            quote!(#d #[doc = ""] #[doc = #note])
        }
        None => quote!(#[doc = #note]),
    }
}

/// The C names a `former_names` rule of the family pairs with `field` (`chassisSerialNumber` ↔
/// `rackGuid` in `nvmlPlatformInfo_v2_t`'s rule): both are the same value.
fn renamed(b: &Bindings, layouts: &[LayoutOut], field: &str) -> Vec<String> {
    let mut out = Vec::new();
    for l in layouts {
        for (key, former) in &b.former_names {
            let Some(f) = key.strip_prefix(&format!("{}.", l.record.name)) else { continue };
            if f == field {
                out.push(former.clone());
            } else if former == field {
                out.push(f.to_string());
            }
        }
    }
    out
}

/// A record family's struct, and its conversions from and to each layout (`layouts`: newest
/// first).
pub fn family(b: &Bindings, names: &Names, layouts: &[&Record]) -> TokenStream {
    let outs: Vec<LayoutOut> = layouts.iter().map(|r| layout(b, names, r)).collect();
    let head = &outs[0];
    let name = names.ty(&head.record.name);
    // The struct's fields: the newest layout's, then those of older layouts it lacks.
    struct Member<'f> {
        field: &'f FieldOut<'f>,
        /// The layout it comes from, when not the newest.
        older: Option<&'f Record>,
    }
    let mut members: Vec<Member> = Vec::new();
    for (i, l) in outs.iter().enumerate() {
        for f in &l.fields {
            match &f.ident {
                Some(id) if !members.iter().any(|m| m.field.ident.as_ref() == Some(id)) => {
                    members.push(Member { field: f, older: (i > 0).then_some(l.record) })
                }
                _ => {}
            }
        }
    }
    let decls = members.iter().map(|m| {
        let (docs, decl) = (&m.field.docs, &m.field.decl);
        let Some(older) = m.older else { return quote!(#docs #decl) };
        let others = renamed(b, &outs, &m.field.c);
        let now = others.iter().find(|o| members.iter().any(|n| n.older.is_none() && n.field.c == **o));
        match now {
            Some(now) => {
                let (note, dep) = (
                    format!(
                        " The older layout `{}` names this value so; newer ones name it `{}`: both fields hold it.",
                        older.name, now
                    ),
                    format!("named `{}` since the layout after `{}`", crate::rules::names::snake(now), older.name),
                );
                quote!(#docs #[doc = ""] #[doc = #note] #[deprecated(note = #dep)] #decl)
            }
            None => {
                let note = format!(
                    " Only the older layout `{}` has this field: a driver that answers with that layout fills it.",
                    older.name
                );
                quote!(#docs #[doc = ""] #[doc = #note] #decl)
            }
        }
    });
    let eq = members.iter().all(|m| m.field.eq);
    let mut sers: Vec<&TokenStream> = head.fields.iter().filter_map(|f| f.ser.as_ref()).collect();
    sers.extend(members.iter().filter(|m| m.older.is_some()).filter_map(|m| m.field.ser.as_ref()));
    let n_ser = Literal::usize_unsuffixed(sers.len());
    let ser_mut = (!sers.is_empty()).then(|| quote!(mut));
    let cname = name.to_string();
    let mut convs = Vec::new();
    for l in &outs {
        convs.push(conversions(b, names, &name, &members.iter().map(|m| m.field).collect::<Vec<_>>(), l, &outs));
    }
    let docs = doc::lines(&names.links.apply(&head.record.doc.as_deref().map(doc::to_markdown).unwrap_or_default()));
    let layout_names: Vec<String> = outs.iter().map(|l| format!("`{}`", l.record.name)).collect();
    let conv_doc = if layout_names.len() == 1 {
        format!(" The safe form of {}.", layout_names[0])
    } else {
        format!(
            " The safe form of {} and of its older layouts {}: each converts into this type (`raw::FromRaw`).",
            layout_names[0],
            layout_names[1..].join(", ")
        )
    };
    let aliases: Vec<TokenStream> = outs.iter().flat_map(|l| doc_aliases(&b.model, &l.record.name)).collect();
    let derive_eq = eq.then(|| quote!(PartialEq,));
    let build = " Build one with `Default::default()` and set its fields: new fields come with new headers.";
    quote! {
        #docs
        #[doc = ""]
        #[doc = #conv_doc]
        #[doc = #build]
        #(#aliases)*
        #[derive(Debug, Clone, #derive_eq Default)]
        #[non_exhaustive]
        pub struct #name { #(#decls,)* }

        #(#convs)*

        #[cfg(feature = "serde")]
        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                let #ser_mut st = s.serialize_struct(#cname, #n_ser)?;
                #(#sers)*
                st.end()
            }
        }
    }
}

/// `FromRaw` and `ToRaw` between the family struct `name` (its fields `fields`) and layout `l`.
fn conversions(
    b: &Bindings,
    names: &Names,
    name: &Ident,
    fields: &[&FieldOut],
    l: &LayoutOut,
    all: &[LayoutOut],
) -> TokenStream {
    let raw = format_ident!("{}", l.record.name);
    let family: Vec<&str> = all.iter().map(|o| o.record.name.as_str()).collect();
    // The layout's field that holds the value of the family's field `f`: the same field, or
    // the one a `former_names` rule pairs with it.
    let source = |f: &FieldOut| -> Option<&FieldOut> {
        let id = f.ident.as_ref()?;
        l.fields.iter().find(|g| g.ident.as_ref() == Some(id) && g.ty == f.ty).or_else(|| {
            let others = renamed(b, all, &f.c);
            l.fields.iter().find(|g| g.ident.is_some() && g.ty == f.ty && others.contains(&g.c))
        })
    };
    let mut froms = Vec::new();
    for f in fields {
        let Some(id) = &f.ident else { continue };
        if let Some(g) = source(f) {
            let from = &g.from;
            froms.push(quote!(#id: #from));
        } else if let Some(v) = absent_value(b, &family, f, l.record) {
            froms.push(quote!(#id: #v));
        } else if let Some(v) = list_reverse(b, names, &family, f, l.record) {
            froms.push(quote!(#id: #v));
        }
    }
    froms.extend(list_entries(b, names, &family, l.record));
    // The fields no layout value fills keep their defaults.
    let rest =
        (froms.len() < fields.iter().filter(|f| f.ident.is_some()).count()).then(|| quote!(..Default::default()));
    let mut tos = l.pre_to.clone();
    for g in &l.fields {
        let Some(gid) = &g.ident else { continue };
        let target = fields.iter().find(|f| f.ident.as_ref() == Some(gid) && f.ty == g.ty).or_else(|| {
            let others = renamed(b, all, &g.c);
            fields.iter().find(|f| f.ty == g.ty && others.contains(&f.c))
        });
        if let Some(f) = target {
            let fid = f.ident.as_ref().map(|i| quote!(self.#i)).unwrap_or_default();
            tos.push((g.to)(&fid));
        }
    }
    let to_mut = (!tos.is_empty()).then(|| quote!(mut));
    let to = quote! {
        impl crate::raw::ToRaw<sys::#raw> for #name {
            fn to_raw(&self) -> sys::#raw {
                let #to_mut r = sys::#raw::default();
                #(#tos)*
                r
            }
        }
    };
    let from = match l.external {
        // The values' type is not in the record: the caller passes it.
        Some(tag) => {
            let whence = match tag {
                ValueTag::Param { function, param } => {
                    format!("the `{param}` that `{function}` returns with the array")
                }
                ValueTag::Outer { record, field } => format!("the `{field}` of the `{record}` that holds the array"),
                ValueTag::Field(f) => format!("`{f}`"),
            };
            let d = format!(" Reads `r`, its `nvmlValue_t`s as `value_type` names them ({whence}).");
            quote! {
                impl #name {
                    #[doc = #d]
                    pub(crate) fn from_raw_typed(r: &sys::#raw, value_type: ValueType) -> Self {
                        #name { #(#froms,)* #rest }
                    }
                }
            }
        }
        None => quote! {
            impl crate::raw::FromRaw<sys::#raw> for #name {
                fn from_raw(r: &sys::#raw) -> Self {
                    #name { #(#froms,)* #rest }
                }
            }
        },
    };
    quote!(#from #to)
}

/// The value of a field that layout `l` lacks, where an `absent_fields` rule of the family
/// gives one (an `Option` field gets `None` for the value that means none).
fn absent_value(b: &Bindings, family: &[&str], f: &FieldOut, l: &Record) -> Option<TokenStream> {
    if l.fields.iter().any(|g| g.name == f.c) {
        return None;
    }
    let (constant, value) = family.iter().find_map(|r| b.absent_fields.get(&format!("{r}.{}", f.c)))?;
    let v = match constant {
        Some(c) => {
            let c = format_ident!("{c}");
            quote!(sys::#c as _)
        }
        None => {
            // Suffixed: an unsuffixed literal would be an `i32` before the cast.
            let v = Literal::u64_suffixed(*value);
            quote!(#v as _)
        }
    };
    let field = family.iter().find_map(|r| b.model.records.get(*r)?.fields.iter().find(|g| g.name == f.c))?;
    Some(match crate::plan::sentinel(&b.model, field) {
        Some(none) if none == *value => quote!(None),
        Some(_) => quote!(Some(#v)),
        None => v,
    })
}

/// The fields of the family that a `list_fields` rule fills from a field of layout `l` that
/// newer layouts hold as a list entry: the list with the one entry the rule makes, and its
/// count.
fn list_entries(b: &Bindings, names: &Names, family: &[&str], l: &Record) -> Vec<TokenStream> {
    let m = &b.model;
    let mut out = Vec::new();
    for (key, rule) in &b.list_fields {
        let Some((record, field)) = key.split_once('.') else { continue };
        if !family.contains(&record) || record == l.name || !l.fields.iter().any(|f| f.name == rule.from) {
            continue;
        }
        if l.fields.iter().any(|f| f.name == field) {
            continue;
        }
        let Some(elem) = m.records.get(record).and_then(|r| m.array_record(r, field)) else { continue };
        let et = names.ty(&elem.name);
        let from = ident(&rule.from);
        let members = rule.entry.iter().map(|(member, value)| {
            let mi = field_ident(member);
            if *value == rule.from {
                quote!(#mi: r.#from as _)
            } else {
                let c = format_ident!("{value}");
                quote!(#mi: sys::#c as _)
            }
        });
        let (fi, ci) = (field_ident(field), field_ident(&rule.count));
        out.push(quote!(#fi: vec![#et { #(#members,)* ..Default::default() }]));
        out.push(quote!(#ci: 1));
    }
    out
}

/// The value of a family field that older layouts have and that a `list_fields` rule says
/// newer ones hold as a list entry (`cliqueId` → the first `cliques` entry of the rule's
/// kind), read from layout `l`'s list.
fn list_reverse(b: &Bindings, _names: &Names, family: &[&str], f: &FieldOut, l: &Record) -> Option<TokenStream> {
    let (key, rule) = b
        .list_fields
        .iter()
        .find(|(k, r)| r.from == f.c && k.split_once('.').is_some_and(|(rec, _)| family.contains(&rec)))?;
    let (_, list) = key.split_once('.')?;
    if !l.fields.iter().any(|g| g.name == list) || !l.fields.iter().any(|g| g.name == rule.count) {
        return None;
    }
    let (li, ci) = (ident(list), ident(&rule.count));
    let value_member = rule.entry.iter().find(|(_, v)| **v == rule.from).map(|(k, _)| ident(k))?;
    let checks: Vec<TokenStream> = rule
        .entry
        .iter()
        .filter(|(_, v)| **v != rule.from)
        .map(|(k, v)| {
            let (k, c) = (ident(k), format_ident!("{v}"));
            quote!(e.#k == sys::#c as _)
        })
        .collect();
    let pick = if checks.is_empty() { quote!(|_| true) } else { quote!(|e| #(#checks)&&*) };
    Some(quote! {
        r.#li.iter().take(r.#ci as usize).find(#pick).map_or(Default::default(), |e| e.#value_member as _)
    })
}
