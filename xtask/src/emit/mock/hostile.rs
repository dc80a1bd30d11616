//! `crates/nvml-mock/src/generated/hostile/`: the mock's hostile mode, its impl of each
//! area's trait of the `Api` (and, in `mod.rs`, the `Answer` it rests on), one method per
//! function of the header. Each
//! answers a random code and writes the outputs of the function's reading in the plan with
//! the helpers of the mock's
//! `engine/hostile.rs`: capacities are read first (counts, string lengths, lengths by value),
//! then values, arrays and strings are written within them, then counts are answered.
//!
//! Only a reading that a generated method follows, and that the documentation does not doubt,
//! is trusted with writes: a function wrapped by hand, skipped, not read, or read with doubts
//! answers a code only, since its pointers are not known well enough to write through. So
//! does a reading whose parameters do not pair up as the helpers expect (an array without its
//! count, two counts); each such method says why in its doc comment.

use std::path::PathBuf;

use anyhow::Result;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{area_of, by_area_trait, fallback, params, returns_status, DIR};
use crate::emit::{ident, ret_ty, ByArea, Output};
use crate::model::{Function, Ty};
use crate::plan::{Call, Plan, Role, Wrapping};
use crate::rules::Bindings;

pub fn emit(b: &Bindings, plan: &Plan, out: &mut Output) -> Result<()> {
    let dir = PathBuf::from(DIR).join("hostile");
    hostile(b, plan).write(out, &b.model, &dir, prelude, answer())
}

/// The hostile mode's impl of each area's trait.
fn hostile(b: &Bindings, plan: &Plan) -> ByArea {
    let methods = b.model.functions.values().map(|f| {
        let name = ident(&f.name);
        let (decls, _) = params(f);
        let ret = ret_ty(&f.ret);
        let (doc, body) = match (returns_status(f), trusted(plan, f).and_then(|c| writes(b, c))) {
            (true, Ok(writes)) if writes.is_empty() => (None, quote!(self.code())),
            (true, Ok(writes)) => (None, quote!(let code = self.code(); #writes code)),
            (true, Err(_))
                if !f.params.iter().any(|p| matches!(b.model.resolve_typedef(&p.ty), Ty::Pointer { .. })) =>
            {
                (None, quote!(self.code()))
            }
            (true, Err(why)) => (Some(format!(" Answers a code only: {why}.")), quote!(self.code())),
            (false, _) => (None, plain_answer(b, &f.ret)),
        };
        let doc = doc.map(|d| quote!(#[doc = #d]));
        let (area, t) = area_of(b, f);
        (
            area,
            t,
            quote! {
                #doc
                fn #name(&self, #(#decls),*) #ret { #body }
            },
        )
    });
    by_area_trait(b, methods, |t, methods| {
        quote! {
            #[allow(unused_variables, non_snake_case, clippy::too_many_arguments)]
            impl #t for Hostile {
                #(#methods)*
            }
        }
    })
}

fn prelude(_: &[TokenStream], _: bool) -> TokenStream {
    quote! {
        // Each area uses a part of what the areas share.
        #![allow(unused_imports)]

        use core::ffi::*;
        use nvml_sys::*;
        use super::super::api::*;
        use super::super::super::answer::{Answer, Object, Val};
        use super::super::super::engine::hostile::Hostile;
    }
}

/// `hostile/mod.rs`: the hostile mode answers every function itself, never from a profile.
fn answer() -> TokenStream {
    quote! {
        use nvml_sys::*;
        use super::super::answer::{Answer, Object, Val};
        use super::super::engine::hostile::Hostile;

        #[allow(unused_variables)]
        impl Answer for Hostile {
            fn unimplemented(&self, function: &'static str) -> nvmlReturn_t {
                self.code()
            }
            // Every function is answered below, so the profile's values are never asked for.
            fn answer(
                &self,
                id: usize,
                object: Object,
                selectors: &[i64],
                write: &mut dyn FnMut(&[Val]) -> Result<(), nvmlReturn_t>,
            ) -> nvmlReturn_t {
                self.code()
            }
        }
    }
}

/// The answer of a function that returns no status: a static string for a string, else the
/// type's default.
fn plain_answer(b: &Bindings, ret: &Ty) -> TokenStream {
    match b.model.resolve_typedef(ret) {
        Ty::Pointer { pointee, .. } if **pointee == Ty::Char => quote!(self.static_string()),
        _ => fallback(ret),
    }
}

/// The reading of `f` that a generated method follows without doubts, or why there is none.
fn trusted<'p>(plan: &'p Plan, f: &Function) -> Result<&'p Call, String> {
    let call = match plan.functions.get(&f.name) {
        Some(Ok(c)) => c,
        Some(Err(why)) => return Err(format!("not read ({why})")),
        None => return Err("not read".into()),
    };
    if !call.doubts.is_empty() {
        return Err("the documentation doubts its reading".into());
    }
    if plan.wrapped_by.contains_key(&f.name) {
        return Ok(call);
    }
    Err(match plan.wrapping(f) {
        Wrapping::Manual(file) => format!("wrapped by hand in {file}, whose reading is its own"),
        Wrapping::Skipped(why) => format!("skipped ({why})"),
        Wrapping::NeedsRule(why) => format!("no generated method ({why})"),
        Wrapping::Automatic(_) => "no generated method follows its reading".into(),
    }
    .replace("\n", " "))
}

/// Whether `t` is a pointer the library may write through.
fn writable(b: &Bindings, t: &Ty) -> bool {
    matches!(b.model.resolve_typedef(t), Ty::Pointer { is_const: false, .. })
}

/// The statements that write a call's outputs; `Err` when its parameters do not pair up.
fn writes(b: &Bindings, call: &Call) -> Result<TokenStream, String> {
    let of = |f: fn(&Role) -> bool| call.params.iter().filter(move |p| f(&p.role)).collect::<Vec<_>>();
    let at_most_one = |what: &str, n: usize| if n > 1 { Err(format!("its reading has {n} {what}")) } else { Ok(()) };
    let counts = of(|r| matches!(r, Role::Count { .. }));
    let arrays = of(|r| matches!(r, Role::Array { .. }));
    let capped_counts = of(|r| matches!(r, Role::CappedCount));
    let capped = of(|r| matches!(r, Role::Capped { .. }));
    let bufs = of(|r| matches!(r, Role::StrBuf { .. }));
    let lens = of(|r| matches!(r, Role::StrLen { .. }));
    let sized_lens = of(|r| matches!(r, Role::SizedLen { .. }));
    let sized = of(|r| matches!(r, Role::SizedArray { .. }));
    at_most_one("counts", counts.len())?;
    at_most_one("out-only counts", capped_counts.len())?;
    at_most_one("string buffers", bufs.len())?;
    at_most_one("string lengths", lens.len())?;
    at_most_one("lengths of caller-sized arrays", sized_lens.len())?;
    let pairs = [
        ("arrays", arrays.len(), "count", counts.len()),
        ("count", counts.len(), "arrays", arrays.len()),
        ("out-only arrays", capped.len(), "out-only count", capped_counts.len()),
        ("out-only count", capped_counts.len(), "out-only arrays", capped.len()),
        ("string length", lens.len(), "string buffer", bufs.len()),
        ("caller-sized arrays", sized.len(), "length", sized_lens.len()),
    ];
    if let Some((what, _, lacks, _)) = pairs.iter().find(|(_, n, _, m)| *n > 0 && *m == 0) {
        return Err(format!("its {what} without {lacks}"));
    }

    // Capacities, read before anything is written.
    let mut first = Vec::new();
    // Values, arrays and strings.
    let mut then = Vec::new();
    // Counts and lengths answered.
    let mut last = Vec::new();
    // Whether the length of caller-sized arrays is in bytes.
    let mut sized_bytes = false;
    for p in &call.params {
        let name = ident(&p.name);
        let kind = match b.model.resolve_typedef(&p.ty) {
            Ty::Pointer { is_const: false, .. } => Some(true),
            Ty::Pointer { .. } => None,
            _ => Some(false),
        };
        let is_length =
            matches!(p.role, Role::Count { .. } | Role::CappedCount | Role::StrLen { .. } | Role::SizedLen { .. });
        match (&p.role, kind) {
            (_, None) if is_length => return Err(format!("its count or length `{}` is a const pointer", p.name)),
            (Role::Count { .. }, Some(true)) => {
                first.push(quote!(let capacity = self.capacity(#name);));
                last.push(quote!(self.count(#name, capacity, n);));
            }
            (Role::Count { .. }, _) => first.push(quote!(let capacity = self.length(#name);)),
            (Role::CappedCount, Some(true)) => last.push(quote!(self.count(#name, capped_capacity, capped);)),
            (Role::StrLen { .. }, Some(true)) => {
                first.push(quote!(let str_capacity = self.capacity(#name);));
                last.push(quote!(self.count(#name, str_capacity, needed);));
            }
            (Role::StrLen { .. }, _) => first.push(quote!(let str_capacity = self.length(#name);)),
            (Role::SizedLen { bytes, .. }, Some(false)) => {
                sized_bytes = *bytes;
                first.push(quote!(let sized = self.length(#name);));
            }
            (Role::CappedCount | Role::SizedLen { .. }, _) => {
                return Err(format!("its count or length `{}` is not of the kind its role needs", p.name))
            }
            _ => {}
        }
    }
    if let Some(Role::Capped { capacity, .. }) = capped.first().map(|p| &p.role) {
        if capped.iter().any(|p| !matches!(p.role, Role::Capped { capacity: c, .. } if c == *capacity)) {
            return Err("its out-only arrays differ in capacity".into());
        }
        let capacity = Literal::usize_unsuffixed(*capacity as usize);
        first.push(quote!(let capped_capacity: usize = #capacity; let capped = self.elements(capped_capacity);));
    }
    if !arrays.is_empty() {
        first.push(quote!(let n = self.elements(capacity);));
    }
    if let (Some(Role::StrBuf { size }), None) = (bufs.first().map(|p| &p.role), lens.first()) {
        let size = Literal::usize_unsuffixed(*size as usize);
        first.push(quote!(let str_capacity: usize = #size;));
    }
    for p in call.params.iter().filter(|p| writable(b, &p.ty)) {
        let name = ident(&p.name);
        match &p.role {
            Role::Out(_) | Role::InOut(_) => then.push(quote!(self.value(#name);)),
            Role::Array { .. } => then.push(quote!(self.array(#name, n);)),
            Role::Capped { .. } => then.push(quote!(self.array(#name, capped);)),
            Role::SizedArray { .. } => then.push(quote!(self.sized_array(#name, sized, #sized_bytes);)),
            Role::StrBuf { .. } => then.push(quote!(let needed = self.string(#name, str_capacity);)),
            _ => {}
        }
    }
    Ok(quote!(#(#first)* #(#then)* #(#last)*))
}
