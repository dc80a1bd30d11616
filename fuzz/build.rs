//! Lists every decoder of the safe crate for the `decode` target, from the safe crate's
//! generated sources, so that a regen with a new header adds its records without an edit
//! here: each `impl FromRaw<sys::X> for Y` (a record read from its C layout; the unions and
//! values a record holds are read through its tags and value types), with its
//! `impl ToRaw<sys::X> for Y` where the type has one. Writes `$OUT_DIR/decoders.rs`:
//! `DECODERS`, each a name and a function of the input's bytes.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

use syn::{GenericArgument, Item, PathArguments, Type};

/// The trait (its last name) and the C layout (`sys::X`) of a conversion impl of nvml::raw.
fn conversion(imp: &syn::ItemImpl) -> Option<(String, String)> {
    let (_, path, _) = imp.trait_.as_ref()?;
    let seg = path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &seg.arguments else { return None };
    let Some(GenericArgument::Type(Type::Path(p))) = args.args.first() else { return None };
    match p.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().as_slice() {
        [sys, raw] if sys == "sys" => Some((seg.ident.to_string(), raw.clone())),
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
    let mut from = BTreeSet::new();
    let mut to = BTreeSet::new();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let text = std::fs::read_to_string(f).expect("a generated file");
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for item in file.items {
            let Item::Impl(imp) = item else { continue };
            let Type::Path(ty) = &*imp.self_ty else { continue };
            let Some(ty) = ty.path.segments.last().map(|s| s.ident.to_string()) else { continue };
            match conversion(&imp) {
                Some((t, raw)) if t == "FromRaw" => from.insert((ty, raw)),
                Some((t, raw)) if t == "ToRaw" => to.insert((ty, raw)),
                _ => continue,
            };
        }
    }
    assert!(from.len() > 100, "found only {} decoders in {}", from.len(), dir.display());
    let mut out = String::from("/// A decoder's name and the function of the input's bytes.\n");
    out += "pub type Decoder = (&'static str, fn(&[u8]));\n";
    out += "/// Every decoder of the safe crate, by its safe type and C layout.\n";
    out += "pub static DECODERS: &[Decoder] = &[\n";
    for (ty, raw) in &from {
        let back = if to.contains(&(ty.clone(), raw.clone())) {
            format!("std::hint::black_box(nvml::raw::ToRaw::<sys::{raw}>::to_raw(&v));")
        } else {
            String::new()
        };
        let body = format!(
            "let r: sys::{raw} = record(b); let v = <nvml::{ty} as nvml::raw::FromRaw<sys::{raw}>>::from_raw(&r); {back}"
        );
        writeln!(out, "    (\"{ty} from {raw}\", |b| {{ {body} std::hint::black_box(v); }}),").unwrap();
    }
    out += "];\n";
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("decoders.rs");
    std::fs::write(dest, out).unwrap();
}
