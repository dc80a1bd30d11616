//! The safe crate, `crates/nvml/src/generated/`:
//! - `error.rs`: the `Error` enum, a variant per `nvmlReturn_t` value;
//! - `types.rs`: an open newtype per enum, a bitflags type per `bitflags` rule, and a Rust
//!   struct per plain record with conversions from and to the raw layout;
//! - `handles.rs`: the handle types, declared through the core's `handles!` macro;
//! - `methods.rs`: a method per planned [`Method`](crate::rules::shape::Method);
//! - `exercise.rs` (tests only): a call of every generated method.
//!
//! Generated code reaches the hand-written core only through `crate::` items that the core
//! documents for it (`call!`, `ffi::*`, `Error`, the handle types), and holds no `unsafe`.

mod exercise;
mod methods;
mod types;

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Result};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{banner, format_file, GeneratedFile, Output};
use crate::model::{Model, Ty};
use crate::plan::Plan;
use crate::rules::Bindings;

pub const DIR: &str = "crates/nvml/src/generated";

pub fn emit(b: &Bindings, plan: &Plan, out: &mut Output) -> Result<()> {
    let names = Names::new(b, plan)?;
    let dir = PathBuf::from(DIR);
    out.dirs.push(dir.clone());
    let files: [(&str, &str, TokenStream); 5] = [
        ("error.rs", "The error type: a variant per nvmlReturn_t value of nvml.h.", types::error(b)),
        ("types.rs", "Enums, bit flags and records of nvml.h as Rust types.", types::types(b, &names)),
        ("handles.rs", "The handle types of nvml.h (see gen-config/nvml.yaml `handles` and `ids`).", handles(b)),
        ("methods.rs", "A safe method for every function of nvml.h the rules wrap.", methods::methods(b, plan, &names)),
        ("exercise.rs", "For the crate's tests: every generated method called once.", exercise::exercise(b, plan)),
    ];
    for (name, what, tokens) in files {
        let path = dir.join(name);
        let contents = format_file(&banner(&b.model.header, what), tokens, &path.display().to_string())?;
        out.files.push(GeneratedFile { path, contents });
    }
    Ok(())
}

/// The Rust name of every enum, record and flags type, checked for clashes.
pub struct Names {
    types: BTreeMap<String, String>,
    /// The records that get a safe type (the plan's).
    pub records: std::collections::BTreeSet<String>,
}

impl Names {
    fn new(b: &Bindings, plan: &Plan) -> Result<Names> {
        let m = &b.model;
        let mut types = BTreeMap::new();
        let mut taken: BTreeMap<String, String> = BTreeMap::new();
        for h in b.handles.values().chain(b.ids.values()) {
            taken.insert(h.clone(), "a handle".into());
        }
        for f in b.bitflags.keys() {
            taken.insert(f.clone(), "a bitflags rule".into());
        }
        taken.insert("Error".into(), "the error type".into());
        taken.insert("Nvml".into(), "the library type".into());
        let wanted = m.enums.keys().chain(plan.records.iter());
        let mut clashes = Vec::new();
        for name in wanted {
            let rust = safe_type_name(m, name);
            if let Some(other) = taken.insert(rust.clone(), name.clone()) {
                clashes.push(format!("`{name}` and {other} both become `{rust}`"));
            }
            types.insert(name.clone(), rust);
        }
        if !clashes.is_empty() {
            bail!("safe type names clash: {}", clashes.join("; "));
        }
        Ok(Names { types, records: plan.records.clone() })
    }

    /// The safe type of an enum or record, by model name.
    pub fn ty(&self, model_name: &str) -> proc_macro2::Ident {
        format_ident!("{}", self.types.get(model_name).map(String::as_str).unwrap_or(model_name))
    }
}

/// A record's or enum's Rust name: from its `_t` typedef when it has one, else its own name.
pub fn safe_type_name(m: &Model, name: &str) -> String {
    let mut typedefs: Vec<&str> = m
        .typedefs
        .values()
        .filter(|t| t.ty == Ty::Named(name.to_string()) && t.name.ends_with("_t"))
        .map(|t| t.name.as_str())
        .collect();
    typedefs.sort_by_key(|t| (t.len(), *t));
    let chosen = if name.ends_with("_t") { name } else { typedefs.first().copied().unwrap_or(name) };
    crate::rules::names::type_name(chosen)
}

fn handles(b: &Bindings) -> TokenStream {
    let opaque = b.handles.iter().filter(|(t, _)| b.model.handles.contains_key(*t)).map(|(t, safe)| {
        let (name, raw) = (format_ident!("{safe}"), format_ident!("{t}"));
        let tag = format_ident!("{}", b.model.handles[t].tag);
        let doc = format!("A `{t}` of the loaded library, valid while the `Nvml` it came from lives.");
        quote!(#[doc = #doc] #name(sys::#raw, sys::#tag))
    });
    let ids = b.ids.iter().map(|(t, safe)| {
        let (name, raw) = (format_ident!("{safe}"), format_ident!("{t}"));
        let doc = format!("A `{t}` (an integer id) of the loaded library, used while the `Nvml` it came from lives.");
        quote!(#[doc = #doc] #name(sys::#raw))
    });
    quote! {
        use nvml_sys as sys;
        handles! { #(#opaque;)* }
        id_handles! { #(#ids;)* }
    }
}
