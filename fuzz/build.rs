//! Lists every decoder of the safe crate for the `decode` target, from the safe crate's
//! generated sources, so that a regen with a new header adds its records without an edit
//! here: each `impl From<&sys::X> for Y` (a record read from its C layout), each union read
//! through its tag (`Y::from_raw(tag: u32, raw: &sys::X)`) and each record whose
//! `nvmlValue_t`s are read by a value type (`Y::from_raw(r: &sys::X, value_type: ValueType)`),
//! with `to_raw` where the type has one. Writes `$OUT_DIR/decoders.rs`: `DECODERS`, each a
//! name and a function of the input's bytes.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

use syn::{FnArg, ImplItem, Item, Type};

#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// `From<&sys::X>`.
    Record,
    /// `from_raw(tag, &sys::X)`.
    Union,
    /// `from_raw(&sys::X, ValueType)`.
    Valued,
}

fn last_ident(t: &Type) -> Option<String> {
    match t {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Type::Reference(r) => last_ident(&r.elem),
        _ => None,
    }
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/nvml/src/generated");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("crates/nvml/src/generated")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    let mut found = BTreeSet::new();
    let mut to_raw = BTreeSet::new();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let text = std::fs::read_to_string(f).expect("a generated file");
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for item in file.items {
            let Item::Impl(imp) = item else { continue };
            let Some(ty) = last_ident(&imp.self_ty) else { continue };
            if let Some((_, path, _)) = &imp.trait_ {
                let Some(seg) = path.segments.last() else { continue };
                if seg.ident != "From" {
                    continue;
                }
                let syn::PathArguments::AngleBracketed(args) = &seg.arguments else { continue };
                let Some(syn::GenericArgument::Type(Type::Reference(r))) = args.args.first() else { continue };
                let Type::Path(p) = &*r.elem else { continue };
                let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                if let [sys, raw] = segs.as_slice() {
                    if sys == "sys" {
                        found.insert((ty.clone(), Kind::Record, raw.clone()));
                    }
                }
                continue;
            }
            for it in &imp.items {
                let ImplItem::Fn(f) = it else { continue };
                let name = f.sig.ident.to_string();
                let args: Vec<String> = f
                    .sig
                    .inputs
                    .iter()
                    .map(|a| match a {
                        FnArg::Receiver(_) => "self".to_string(),
                        FnArg::Typed(t) => last_ident(&t.ty).unwrap_or_default(),
                    })
                    .collect();
                let raw_of = |t: &FnArg| match t {
                    FnArg::Typed(t) => last_ident(&t.ty),
                    _ => None,
                };
                match (name.as_str(), args.as_slice()) {
                    ("from_raw", [a, _]) if a == "u32" => {
                        found.insert((ty.clone(), Kind::Union, raw_of(&f.sig.inputs[1]).unwrap()));
                    }
                    ("from_raw", [_, b]) if b == "ValueType" => {
                        found.insert((ty.clone(), Kind::Valued, raw_of(&f.sig.inputs[0]).unwrap()));
                    }
                    ("to_raw", [s]) if s == "self" => {
                        to_raw.insert(ty.clone());
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(found.len() > 100, "found only {} decoders in {}", found.len(), dir.display());
    let mut out = String::from("/// A decoder's name and the function of the input's bytes.\n");
    out += "pub type Decoder = (&'static str, fn(&[u8]));\n";
    out += "/// Every decoder of the safe crate, by its safe type and C layout.\n";
    out += "pub static DECODERS: &[Decoder] = &[\n";
    for (ty, kind, raw) in &found {
        let back = if to_raw.contains(ty) { "std::hint::black_box(v.to_raw());" } else { "" };
        let body = match kind {
            Kind::Record => format!("let r: sys::{raw} = record(b); let v = nvml::{ty}::from(&r); {back}"),
            Kind::Union => format!(
                "let (tag, b) = word(b); let r: sys::{raw} = record(b); let v = nvml::{ty}::from_raw(tag, &r); {back}"
            ),
            Kind::Valued => format!(
                "let (t, b) = word(b); let r: sys::{raw} = record(b); let v = nvml::{ty}::from_raw(&r, nvml::ValueType(t)); {back}"
            ),
        };
        writeln!(out, "    (\"{ty} from {raw}\", |b| {{ {body} std::hint::black_box(v); }}),").unwrap();
    }
    out += "];\n";
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("decoders.rs");
    std::fs::write(dest, out).unwrap();
}
