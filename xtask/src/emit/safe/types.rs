//! The safe crate's `error.rs` and each area's types: enums, flags, values, tagged unions, and
//! the record families (`records.rs`) they drive.

use std::collections::BTreeSet;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::convert::{
    doc_aliases, enum_constant_names, error_variant, field_conv, from_raw, return_enum, scalar, to_raw, union_eq,
};
use super::records::doc_with_note;
use super::Names;
use crate::emit::{doc, ident, ByArea};
use crate::model::{ConstValue, Model, Record, Ty};
use crate::rules::names::{camel, prefixed_name, snake};
use crate::rules::{Bindings, FlagsRule, UnionRule};

/// Codes whose variant carries what this crate knows beyond the code: its type and what it
/// says.
const PAYLOAD: &[(&str, &str, &str)] = &[
    (
        "NVML_ERROR_LIBRARY_NOT_FOUND",
        "Option<std::sync::Arc<nvml_sys::LoadError>>",
        "Why the library could not be loaded, where this crate loaded it.",
    ),
    (
        "NVML_ERROR_FUNCTION_NOT_FOUND",
        "Option<&'static str>",
        "The symbol the loaded library lacks, where this crate looked it up.",
    ),
];

pub fn error(b: &Bindings) -> TokenStream {
    let Some(e) = return_enum(&b.model) else {
        return quote!(compile_error!("nvml.h has no nvmlReturn_t"););
    };
    let mut variants = Vec::new();
    let mut to_code = Vec::new();
    let mut from_code = Vec::new();
    let mut messages = Vec::new();
    let mut seen = BTreeSet::new();
    for k in e.constants.iter().filter(|k| k.name != "NVML_SUCCESS" && k.name != "NVML_ERROR_UNKNOWN") {
        if !seen.insert(k.value.as_i128()) {
            continue;
        }
        // A code of NVML_SUCCESS's value has no variant.
        let Some(v) = error_variant(&b.model, &k.name) else { continue };
        let v = format_ident!("{v}");
        let c = format_ident!("{}", k.name);
        let docs = doc::attrs(k.doc.as_deref());
        let text = k.doc.as_deref().map(|d| doc::to_markdown(d).replace('\n', " ")).unwrap_or_else(|| k.name.clone());
        match PAYLOAD.iter().find(|(n, _, _)| *n == k.name) {
            Some((_, ty, what)) => {
                let ty: TokenStream = ty.parse().unwrap_or_default();
                let what = format!(" {what}");
                variants.push(quote!(#docs #v(#[doc = #what] #ty)));
                to_code.push(quote!(Error::#v(_) => sys::#c));
                from_code.push(quote!(sys::#c => Error::#v(None)));
                messages.push(quote!(Error::#v(_) => #text));
            }
            None => {
                variants.push(quote!(#docs #v));
                to_code.push(quote!(Error::#v => sys::#c));
                from_code.push(quote!(sys::#c => Error::#v));
                messages.push(quote!(Error::#v => #text));
            }
        }
    }
    quote! {
        use nvml_sys as sys;

        /// An NVML error: a variant per `nvmlReturn_t` value of nvml.h, and [`Error::Unknown`]
        /// for `NVML_ERROR_UNKNOWN` and for codes newer than the header.
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum Error {
            #(#variants,)*
            /// `NVML_ERROR_UNKNOWN` (999), or a code this header does not know (a newer driver).
            Unknown(
                /// The code.
                u32,
            ),
            /// The library answered what the header rules out, such as a list length no GPU
            /// has: a driver bug or a corrupted answer, reported instead of acted on. Its code
            /// is `NVML_ERROR_UNKNOWN`.
            Implausible(
                /// What the library answered.
                &'static str,
            ),
            /// A field id (this crate's number, `FieldId.0`) that the running driver's nvml.h
            /// does not have: answered for that field without asking the driver, since the
            /// driver's number for it would name another field or none. Its code is
            /// `NVML_ERROR_INVALID_ARGUMENT`, what a driver answers a field id it does not
            /// know (580.159.04 does, for each such field).
            FieldNotInDriver(
                /// The field id.
                u32,
            ),
        }

        impl Error {
            /// The `nvmlReturn_t` value.
            pub fn code(&self) -> sys::nvmlReturn_t {
                match self {
                    #(#to_code,)*
                    Error::Unknown(c) => *c,
                    Error::Implausible(_) => sys::NVML_ERROR_UNKNOWN,
                    Error::FieldNotInDriver(_) => sys::NVML_ERROR_INVALID_ARGUMENT,
                }
            }

            /// The error for a return code; `None` for `NVML_SUCCESS`.
            pub fn from_code(code: sys::nvmlReturn_t) -> Option<Error> {
                Some(match code {
                    sys::NVML_SUCCESS => return None,
                    #(#from_code,)*
                    other => Error::Unknown(other),
                })
            }

            /// nvml.h's description of the code, used when the library cannot be asked.
            pub fn description(&self) -> &'static str {
                match self {
                    #(#messages,)*
                    Error::Unknown(_) => "An internal driver error occurred, or a code newer than this crate",
                    Error::Implausible(what) => what,
                    Error::FieldNotInDriver(_) => "The running driver does not have this field id",
                }
            }
        }
    }
}

/// Enums, bit flags and records, each in its area.
pub fn types(b: &Bindings, names: &Names, out: &mut ByArea) {
    let m = &b.model;
    for e in m.enums.values() {
        out.push(b.area(&e.name, e.line), open_enum(b, e, names));
    }
    for (name, rule) in &b.bitflags {
        // The area of its first bit.
        let line = m.constants.values().find(|c| c.name.starts_with(&rule.prefix)).map_or(0, |c| c.line);
        let item = if rule.values { values(m, name, rule) } else { flags(m, name, rule) };
        out.push(b.area(&rule.prefix, line), item);
    }
    for r in names.records.iter().filter_map(|r| m.records.get(r)) {
        // One struct per family, in the area of its newest layout.
        let layouts: Vec<&Record> = match names.family_of(&r.name) {
            Some(head) if head != r.name => continue,
            Some(_) => names.families[&r.name].iter().filter_map(|l| m.records.get(l)).collect(),
            None => vec![r],
        };
        out.push(b.area(&r.name, r.line), super::records::family(b, names, &layouts));
    }
    for (name, rule) in &b.tagged_unions {
        let Some(u) = m.records.get(&rule.union) else { continue };
        out.push(b.area(&u.name, u.line), tagged_union(b, names, name, rule, u));
    }
}

/// A `tagged_unions` rule's enum: a variant per member a tag selects, `Unknown` for any other
/// tag (with the union's bytes), and the conversions from and to the C union and its tag.
fn tagged_union(b: &Bindings, names: &Names, name: &str, rule: &UnionRule, u: &Record) -> TokenStream {
    let (ty, tyname) = (format_ident!("{name}"), name);
    let raw = format_ident!("{}", u.name);
    let mut variants = Vec::new();
    let mut reads = Vec::new();
    let mut tags = Vec::new();
    let mut writes = Vec::new();
    let mut sers = Vec::new();
    let mut picks = Vec::new();
    for (constant, member) in &rule.members {
        let Some(f) = u.fields.iter().find(|f| f.name == *member) else { continue };
        let (v, c, m) = (format_ident!("{}", camel(&snake(member))), format_ident!("{constant}"), ident(member));
        let payload = field_conv(b, names, &f.ty, None).ty;
        let which = format!(" The member `{member}`, which the tag `{constant}` selects.");
        let docs = doc_with_note(names, f.doc.as_deref(), &which);
        variants.push(quote!(#docs #[doc(alias = #member)] #v(#[doc = " The member's value."] #payload)));
        let read = from_raw(b, names, &f.ty, None, quote!(union_member!(*raw, #m)));
        reads.push(quote!(if tag == sys::#c as u32 { return #ty::#v(#read); }));
        tags.push(quote!(#ty::#v(_) => sys::#c as u32));
        // Writing a union's member is safe, borrowing one is not: an array is filled in a copy.
        writes.push(match b.model.resolve_typedef(&f.ty) {
            Ty::Array { .. } => {
                let write = to_raw(b, names, &f.ty, false, quote!(m), quote!((*v)));
                quote!(#ty::#v(v) => { let mut m = union_member!(u, #m); #write u.#m = m; })
            }
            _ => {
                let write = to_raw(b, names, &f.ty, false, quote!(u.#m), quote!((*v)));
                quote!(#ty::#v(v) => { #write })
            }
        });
        let (variant, index) = (v.to_string(), Literal::u32_unsuffixed(sers.len() as u32));
        sers.push(quote!(#ty::#v(v) => s.serialize_newtype_variant(#tyname, #index, #variant, v),));
        picks.push(format!("`{constant}` selects [`{name}::{v}`]"));
    }
    let unknown_index = Literal::u32_unsuffixed(sers.len() as u32);
    let note = format!(
        " Read through its tag: {}; any other tag is [`{name}::Unknown`], which keeps the union's bytes.",
        picks.join(", ")
    );
    // An anonymous union is described by the field that holds it.
    let field_doc = || {
        let fields = rule.fields.keys().filter_map(|k| k.split_once('.'));
        fields.filter_map(|(r, f)| b.model.records.get(r)?.fields.iter().find(|g| g.name == f)?.doc.as_deref()).next()
    };
    let union_docs = doc_with_note(names, u.doc.as_deref().or_else(field_doc), &note);
    let aliases = doc_aliases(&b.model, &u.name);
    let derive_eq = union_eq(b, names, rule).then(|| quote!(PartialEq,));
    quote! {
        #union_docs
        #(#aliases)*
        #[derive(Debug, Clone, #derive_eq)]
        #[non_exhaustive]
        pub enum #ty {
            #(#variants,)*
            /// A tag for which nvml.h names no member (or one newer than the header): the tag and
            /// the union's bytes as the library wrote them, never read as a member.
            Unknown {
                /// The tag the library wrote.
                tag: u32,
                /// The union's bytes as the library wrote them.
                bytes: Vec<u8>,
            },
        }

        impl #ty {
            /// Reads `raw` as the member `tag` selects.
            pub(crate) fn from_raw_tagged(tag: u32, raw: &sys::#raw) -> Self {
                #(#reads)*
                #ty::Unknown { tag, bytes: union_bytes!(*raw) }
            }

            /// The tag that selects the member the value holds.
            pub fn tag(&self) -> u32 {
                match self {
                    #(#tags,)*
                    #ty::Unknown { tag, .. } => *tag,
                }
            }

            /// The tag and the union with the value in the member the tag selects (strings cut
            /// to fit, longer lists truncated; an unknown tag's bytes as they were).
            pub(crate) fn to_raw_tagged(&self) -> (u32, sys::#raw) {
                let mut u = sys::#raw::default();
                match self {
                    #(#writes)*
                    #ty::Unknown { bytes, .. } => u = union_with_bytes!(sys::#raw, bytes),
                }
                (self.tag(), u)
            }
        }

        impl Default for #ty {
            /// What a zeroed C record holds: the union read as tag 0 says.
            fn default() -> Self {
                #ty::from_raw_tagged(0, &Default::default())
            }
        }

        /// As a derive writes an enum: the member the tag selects as `{Variant: value}`, an
        /// unknown tag as `{"Unknown": {tag, bytes}}`.
        #[cfg(feature = "serde")]
        impl serde::Serialize for #ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStructVariant;
                match self {
                    #(#sers)*
                    #ty::Unknown { tag, bytes } => {
                        let mut st = s.serialize_struct_variant(#tyname, #unknown_index, "Unknown", 2)?;
                        st.serialize_field("tag", tag)?;
                        st.serialize_field("bytes", bytes)?;
                        st.end()
                    }
                }
            }
        }
    }
}

fn open_enum(b: &Bindings, e: &crate::model::Enum, names: &Names) -> TokenStream {
    let m = &b.model;
    let name = names.ty(&e.name);
    let aliases = doc_aliases(m, &e.name);
    let repr = scalar(&e.repr);
    let docs = doc::attrs(e.doc.as_deref());
    let rust_names = enum_constant_names(b, e);
    let mut consts = Vec::new();
    let mut arms = Vec::new();
    let mut seen = BTreeSet::new();
    let mut labels = Vec::new();
    for (k, rn) in e.constants.iter().zip(&rust_names) {
        let (kn, c, kdocs) = (format_ident!("{rn}"), format_ident!("{}", k.name), doc::attrs(k.doc.as_deref()));
        let cdoc = format!("`{}`", k.name);
        consts.push(quote!(#kdocs #[doc = ""] #[doc = #cdoc] pub const #kn: #name = #name(sys::#c);));
        if let Some(former) = b.constant_renames.get(&k.name).and_then(|r| r.former.as_deref()) {
            let (old, doc, note) =
                (format_ident!("{former}"), format!(" The former name of [`Self::{rn}`]."), format!("renamed `{rn}`"));
            consts.push(quote!(#[doc = #doc] #[deprecated(note = #note)] pub const #old: #name = #name::#kn;));
        }
        if seen.insert(k.value.as_i128()) {
            arms.push(quote!(sys::#c => Some(#rn)));
            let label = human(rn);
            labels.push(quote!(sys::#c => #label));
        }
    }
    let note =
        format!("A C enum as an open newtype: a value newer than the header is kept as is (see [`{name}::name`]).");
    let former = b.type_renames.get(&e.name).and_then(|r| r.former.as_deref()).map(|former| {
        let (old, doc, note) =
            (format_ident!("{former}"), format!(" The former name of [`{name}`]."), format!("renamed `{name}`"));
        quote!(#[doc = #doc] #[deprecated(note = #note)] pub type #old = #name;)
    });
    quote! {
        #former

        #docs
        #[doc = ""]
        #[doc = #note]
        #(#aliases)*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[repr(transparent)]
        pub struct #name(
            /// The value as the C enum numbers it: one of the constants, or a value the header
            /// does not name.
            pub #repr,
        );

        impl #name {
            #(#consts)*

            /// The constant's name, or `None` for a value the header does not define.
            pub const fn name(self) -> Option<&'static str> {
                match self.0 {
                    #(#arms,)*
                    _ => None,
                }
            }
        }

        open_newtype!(#name(#repr), signed);

        impl core::fmt::Display for #name {
            /// The value's name in words (`Exclusive Process`, `NVIDIA RTX`), as `nvidia-smi`
            /// writes it; a value the header does not define, as its number.
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(match self.0 {
                    #(#labels,)*
                    other => return write!(f, "{other}"),
                })
            }
        }
    }
}

fn flags(m: &Model, name: &str, rule: &FlagsRule) -> TokenStream {
    let (ty, prefix) = (format_ident!("{name}"), rule.prefix.as_str());
    let with_prefix =
        |p: &str| prefixed_constants(m, p, rule).into_iter().filter(|(_, v, _, _)| *v != 0).collect::<Vec<_>>();
    let mut bits = with_prefix(prefix);
    // An alias prefix contributes the names the main prefix does not have (its bits spelled
    // otherwise, and its own names of the same bits: an older header spells every bit with the
    // alias, so each of its names stays a name of the type).
    let short_of = |n: &str| {
        std::iter::once(prefix)
            .chain(rule.aliases.iter().map(String::as_str))
            .find_map(|p| n.strip_prefix(p))
            .unwrap_or(n)
            .to_string()
    };
    for alias in &rule.aliases {
        let extra: Vec<_> = with_prefix(alias)
            .into_iter()
            .filter(|(n, _, _, _)| !bits.iter().any(|b| short_of(b.0) == short_of(n)))
            .collect();
        bits.extend(extra);
    }
    bits.sort_by_key(|(n, v, _, _)| (*v, *n));
    // 64 bits when a bit needs them or the header spells the constants `...LL`, as it does
    // for masks carried in `unsigned long long`s.
    let wide = |v: i128, t: &Ty| v > u32::MAX as i128 || matches!(t, Ty::LongLong | Ty::ULongLong);
    let repr = if bits.iter().any(|(_, v, t, _)| wide(*v, t)) { quote!(u64) } else { quote!(u32) };
    let consts = bits.iter().map(|(n, _, _, d)| {
        let p = std::iter::once(prefix).chain(rule.aliases.iter().map(String::as_str)).find(|p| n.starts_with(p));
        let k = format_ident!("{}", prefixed_name(n, p.unwrap_or("")));
        let c = format_ident!("{n}");
        // A bit the header does not describe is named by its `#define`.
        let fallback = format!("\\c {n} of nvml.h, which the header does not describe.");
        let docs = doc::attrs(Some(d.unwrap_or(&fallback)));
        quote!(#docs const #k = sys::#c as #repr;)
    });
    let d = format!("Bit flags `{prefix}*` of nvml.h. Bits the header does not name are kept.");
    quote! {
        bitflags::bitflags! {
            #[doc = #d]
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
            pub struct #ty: #repr {
                #(#consts)*
                const _ = !0;
            }
        }

        #[cfg(feature = "serde")]
        impl serde::Serialize for #ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_u64(self.bits() as u64)
            }
        }
    }
}

/// The integer `#define`s of prefix `p` that a `bitflags` or `values` rule does not exclude:
/// `(name, value, C type, doc)`, in name order.
fn prefixed_constants<'m>(m: &'m Model, p: &str, rule: &FlagsRule) -> Vec<(&'m str, i128, &'m Ty, Option<&'m str>)> {
    m.constants
        .values()
        .filter(|c| c.name.starts_with(p) && !rule.exclude.contains(&c.name))
        .filter_map(|c| match &c.value {
            ConstValue::Int { value, ty } => Some((c.name.as_str(), value.as_i128(), ty, c.doc.as_deref())),
            _ => None,
        })
        .collect()
}

/// A `values` rule's open newtype: a constant per `#define` of the prefix, `name()`, and the
/// `bits`/`from_bits_retain` pair the conversions of bit flags use, so both travel alike.
fn values(m: &Model, name: &str, rule: &FlagsRule) -> TokenStream {
    let (ty, prefix) = (format_ident!("{name}"), rule.prefix.as_str());
    let mut values: Vec<(&str, i128, Option<&str>)> =
        prefixed_constants(m, prefix, rule).into_iter().map(|(n, v, _, d)| (n, v, d)).collect();
    values.sort_by_key(|(n, v, _)| (*v, *n));
    let repr = if values.iter().any(|(_, v, _)| *v > u32::MAX as i128 || *v < 0) { quote!(u64) } else { quote!(u32) };
    let short = |n: &str| prefixed_name(n, prefix);
    let consts = values.iter().map(|(n, _, d)| {
        let (k, c, docs) = (format_ident!("{}", short(n)), format_ident!("{n}"), doc::attrs(*d));
        let cdoc = format!("`{n}`");
        quote!(#docs #[doc = ""] #[doc = #cdoc] pub const #k: #ty = #ty(sys::#c as #repr);)
    });
    let mut seen = BTreeSet::new();
    let firsts: Vec<&(&str, i128, Option<&str>)> = values.iter().filter(|(_, v, _)| seen.insert(*v)).collect();
    let arms: Vec<TokenStream> = firsts
        .iter()
        .map(|(n, v, _)| {
            let (lit, k) = (Literal::u64_unsuffixed(*v as u64), short(n));
            quote!(#lit => Some(#k))
        })
        .collect();
    let labels: Vec<TokenStream> = firsts
        .iter()
        .map(|(n, v, _)| {
            let (lit, label) = (Literal::u64_unsuffixed(*v as u64), human(&short(n)));
            quote!(#lit => #label)
        })
        .collect();
    let d = format!(
        " The values `{prefix}*` of nvml.h, as an open newtype: a value the header does not name is kept (see [`{name}::name`])."
    );
    let aliases = rule.typedef.iter().map(|t| quote!(#[doc(alias = #t)]));
    quote! {
        #[doc = #d]
        #(#aliases)*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[repr(transparent)]
        pub struct #ty(
            /// The value as nvml.h's `#define`s number it: one of the constants, or a value the
            /// header does not name.
            pub #repr,
        );

        impl #ty {
            #(#consts)*

            /// The constant's name (less its prefix), or `None` for a value the header does not define.
            pub const fn name(self) -> Option<&'static str> {
                match self.0 {
                    #(#arms,)*
                    _ => None,
                }
            }

            /// The raw value.
            #[doc(hidden)]
            pub const fn bits(self) -> #repr {
                self.0
            }

            /// From a raw value.
            #[doc(hidden)]
            pub const fn from_bits_retain(v: #repr) -> Self {
                #ty(v)
            }
        }

        open_newtype!(#ty(#repr), unsigned);

        impl core::fmt::Display for #ty {
            /// The value's name in words (`Hopper`, `PCIe`); a value the header does not
            /// define, as its number.
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(match self.0 {
                    #(#labels,)*
                    other => return write!(f, "{other}"),
                })
            }
        }
    }
}

/// A constant's name in words, as `nvidia-smi` prints such values: `EXCLUSIVE_PROCESS` →
/// `Exclusive Process`, `NVIDIA_RTX` → `NVIDIA RTX`, `HOPPER` → `Hopper`, `P0` → `P0`. Words of
/// three letters or fewer and words with digits are abbreviations and keep their capitals;
/// the names NVIDIA spells otherwise are spelled so.
pub(super) fn human(constant: &str) -> String {
    let special = |w: &str| -> Option<&'static str> {
        Some(match w {
            "GEFORCE" => "GeForce",
            "VGPU" => "vGPU",
            "VAPPS" => "vApps",
            "VPC" => "vPC",
            "VCS" => "vCS",
            "VWS" => "vWS",
            "VGAMING" => "vGaming",
            "VGAMEDEV" => "vGameDev",
            "PCIE" => "PCIe",
            "NVLINK" => "NVLink",
            _ => return None,
        })
    };
    // Abbreviations longer than three letters; words of three letters or fewer are ones but
    // for these English words and names (the Ada architecture).
    // A performance state is `P0`, as nvidia-smi writes it.
    if let Some(n) = constant.strip_prefix("PSTATE_").filter(|n| n.chars().all(|c| c.is_ascii_digit())) {
        return format!("P{n}");
    }
    let abbreviations = ["NVIDIA", "TITAN", "GRID", "SRAM", "DRAM", "BAR1", "WDDM", "MCDM", "UUID", "NUMA", "HBM3"];
    let words =
        ["OFF", "ON", "LOW", "MAX", "MIN", "ALL", "NEW", "OLD", "SET", "ANY", "AND", "FOR", "NOT", "ONE", "TWO", "ADA"];
    constant
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| match special(w) {
            Some(s) => s.to_string(),
            None if abbreviations.contains(&w) || w.chars().any(|c| c.is_ascii_digit()) => w.to_string(),
            None if w.len() <= 3 && !words.contains(&w) => w.to_string(),
            None => {
                let lower = w.to_ascii_lowercase();
                let mut c = lower.chars();
                c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::human;

    #[test]
    fn constants_in_words() {
        let words: Vec<String> = [
            "EXCLUSIVE_PROCESS",
            "NVIDIA_RTX",
            "GEFORCE_RTX",
            "HOPPER",
            "ADA",
            "PSTATE_3",
            "TX_BYTES",
            "PCIE",
            "NVIDIA_VAPPS",
            "ENABLED",
        ]
        .iter()
        .map(|c| human(c))
        .collect();
        assert_eq!(
            words,
            [
                "Exclusive Process",
                "NVIDIA RTX",
                "GeForce RTX",
                "Hopper",
                "Ada",
                "P3",
                "TX Bytes",
                "PCIe",
                "NVIDIA vApps",
                "Enabled"
            ]
        );
    }
}
