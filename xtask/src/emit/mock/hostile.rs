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
use crate::diag::Diagnostics;
use crate::emit::{c_ty, ident, ret_ty, ByArea, Output, Uses};
use crate::model::{Function, Ty};
use crate::plan::visit::{visit, RoleVisitor, Served};
use crate::plan::{Call, ListRecord, ParamPlan, Plan, Probe, Role, Val, Wrapping};
use crate::rules::Bindings;

/// Writes `hostile/`; a trusted reading whose outputs it cannot write is a note in `d`.
pub fn emit(b: &Bindings, plan: &Plan, out: &mut Output, d: &mut Diagnostics) -> Result<()> {
    let dir = PathBuf::from(DIR).join("hostile");
    let mut areas = hostile(b, plan, d);
    areas.allows = vec![
        ("clippy::too_many_arguments", "A function takes its C parameters, as many as nvml.h gives."),
        ("unused_variables", "A function takes every C parameter; one that answers a code only reads none."),
    ];
    areas.write(out, &b.model, &dir, prelude, answer())
}

/// The hostile mode's impl of each area's trait.
fn hostile(b: &Bindings, plan: &Plan, d: &mut Diagnostics) -> ByArea {
    let methods = b.model.functions.values().map(|f| {
        let name = ident(&f.name);
        let (decls, _) = params(f);
        let ret = ret_ty(&f.ret);
        let written = trusted(plan, f).map(|c| writes(b, c));
        if let Ok(Err(why)) = &written {
            d.note(&f.name, format!("the hostile mode answers a code only: {why}"));
        }
        let (doc, body) = match (returns_status(f), written.and_then(|w| w)) {
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
            impl #t for Hostile {
                #(#methods)*
            }
        }
    })
}

fn prelude(uses: &Uses, _: bool) -> TokenStream {
    let c = uses.c_types();
    let sys = uses.glob(quote!(nvml_sys), uses.nvml_sys());
    let answer = uses.import(quote!(super::super::super::answer), &["Answer", "Object", "Val"]);
    quote! {
        #c
        #sys
        use super::super::api::*;
        #answer
        use super::super::super::engine::hostile::Hostile;
    }
}

/// `hostile/mod.rs`: the hostile mode answers every function itself, never from a profile.
fn answer() -> TokenStream {
    quote! {
        use nvml_sys::*;
        use super::super::answer::{Answer, Object, Val};
        use super::super::engine::hostile::Hostile;

        impl Answer for Hostile {
            fn unimplemented(&self, _function: &'static str) -> nvmlReturn_t {
                self.code()
            }
            // Every function is answered below, so the profile's values are never asked for.
            fn answer(
                &self,
                _id: usize,
                _object: Object,
                _selectors: &[i64],
                _write: &mut dyn FnMut(&[Val]) -> Result<(), nvmlReturn_t>,
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

    // Whether the length of caller-sized arrays is in bytes.
    let sized_bytes = call.params.iter().find_map(|p| match p.role {
        Role::SizedLen { bytes, .. } if kind(b, &p.ty) == Some(false) => Some(bytes),
        _ => None,
    });
    let mut w =
        Writes { b, sized_bytes: sized_bytes.unwrap_or(false), first: Vec::new(), then: Vec::new(), last: Vec::new() };
    for p in &call.params {
        visit(&mut w, p)?;
    }
    let Writes { mut first, then, last, .. } = w;
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
    Ok(quote!(#(#first)* #(#then)* #(#last)*))
}

/// How a parameter's C type lets a count or length pass: through a pointer the library writes
/// (`Some(true)`), by value (`Some(false)`), or through a const pointer (`None`).
fn kind(b: &Bindings, t: &Ty) -> Option<bool> {
    match b.model.resolve_typedef(t) {
        Ty::Pointer { is_const: false, .. } => Some(true),
        Ty::Pointer { .. } => None,
        _ => Some(false),
    }
}

/// The statements that write a call's outputs, by parameter: capacities read first, then
/// values, arrays and strings, then the counts and lengths answered.
struct Writes<'b> {
    b: &'b Bindings,
    /// Whether the length of caller-sized arrays is in bytes.
    sized_bytes: bool,
    first: Vec<TokenStream>,
    then: Vec<TokenStream>,
    last: Vec<TokenStream>,
}

impl Writes<'_> {
    /// A count's or length's kind, which must not be a const pointer.
    fn length_kind(&self, p: &ParamPlan) -> Served<bool> {
        kind(self.b, &p.ty).ok_or_else(|| format!("its count or length `{}` is a const pointer", p.name))
    }

    /// A count or length `p`: the capacity it passes is read into the local `capacity` first;
    /// through a pointer, the local `filled` is answered last.
    fn capacity_of(&mut self, p: &ParamPlan, capacity: proc_macro2::Ident, filled: proc_macro2::Ident) -> Served<()> {
        let name = ident(&p.name);
        if self.length_kind(p)? {
            self.first.push(quote!(let #capacity = self.capacity(#name);));
            self.last.push(quote!(self.count(#name, #capacity, #filled);));
        } else {
            self.first.push(quote!(let #capacity = self.length(#name);));
        }
        Ok(())
    }

    /// Writes `statement` into `then` when the library may write through `p`.
    /// What hostile mode writes through an out- or in/out pointer to one value: a versioned
    /// record (its first field `version`) within the size of the layout the caller's version
    /// names, which an older layout makes shorter than the prototype's record.
    fn one_value(&self, p: &ParamPlan) -> TokenStream {
        let name = ident(&p.name);
        let m = &self.b.model;
        let versioned = match m.resolve_typedef(&p.ty) {
            Ty::Pointer { pointee, .. } => match m.resolve_typedef(pointee) {
                Ty::Named(r) => m.records.get(r).and_then(|r| r.fields.first()).is_some_and(|f| f.name == "version"),
                _ => false,
            },
            _ => false,
        };
        match versioned {
            true => quote!(self.versioned(#name);),
            false => quote!(self.value(#name);),
        }
    }

    fn then_if_writable(&mut self, p: &ParamPlan, statement: TokenStream) -> Served<()> {
        if writable(self.b, &p.ty) {
            self.then.push(statement);
        }
        Ok(())
    }
}

/// Inputs are read by the caller's side only: nothing to write.
impl<'c> RoleVisitor<'c> for Writes<'_> {
    type Out = ();

    fn self_handle(&mut self, _: &'c ParamPlan) -> Served<()> {
        Ok(())
    }

    fn self_consumed(&mut self, _: &'c ParamPlan) -> Served<()> {
        Ok(())
    }

    fn by_value(&mut self, _: &'c ParamPlan, _: &'c Val) -> Served<()> {
        Ok(())
    }

    fn in_str(&mut self, _: &'c ParamPlan) -> Served<()> {
        Ok(())
    }

    fn in_ptr(&mut self, _: &'c ParamPlan, _: &'c Val) -> Served<()> {
        Ok(())
    }

    fn in_out(&mut self, p: &'c ParamPlan, _: &'c Val) -> Served<()> {
        let write = self.one_value(p);
        self.then_if_writable(p, write)
    }

    fn out(&mut self, p: &'c ParamPlan, _: &'c Val) -> Served<()> {
        let write = self.one_value(p);
        self.then_if_writable(p, write)
    }

    fn str_buf(&mut self, p: &'c ParamPlan, _: u64) -> Served<()> {
        let name = ident(&p.name);
        self.then_if_writable(p, quote!(let needed = self.string(#name, str_capacity);))
    }

    fn str_len(&mut self, p: &'c ParamPlan, _: bool) -> Served<()> {
        self.capacity_of(p, ident("str_capacity"), ident("needed"))
    }

    fn count(&mut self, p: &'c ParamPlan, _: Probe) -> Served<()> {
        self.capacity_of(p, ident("capacity"), ident("n"))
    }

    fn array(&mut self, p: &'c ParamPlan, _: &'c Val, _: Option<&'c str>) -> Served<()> {
        let name = ident(&p.name);
        self.then_if_writable(p, quote!(self.array(#name, n);))
    }

    fn capped_count(&mut self, p: &'c ParamPlan) -> Served<()> {
        let name = ident(&p.name);
        if !self.length_kind(p)? {
            return Err(format!("its count or length `{}` is not of the kind its role needs", p.name));
        }
        self.last.push(quote!(self.count(#name, capped_capacity, capped);));
        Ok(())
    }

    fn capped(&mut self, p: &'c ParamPlan, _: &'c Val, _: u64) -> Served<()> {
        let name = ident(&p.name);
        self.then_if_writable(p, quote!(self.array(#name, capped);))
    }

    fn sized_len(&mut self, p: &'c ParamPlan, _: bool, _: Option<u64>) -> Served<()> {
        let name = ident(&p.name);
        if self.length_kind(p)? {
            return Err(format!("its count or length `{}` is not of the kind its role needs", p.name));
        }
        self.first.push(quote!(let sized = self.length(#name);));
        Ok(())
    }

    fn sized_array(&mut self, p: &'c ParamPlan, _: &'c Val, _: bool, _: Option<&'c str>) -> Served<()> {
        let (name, sized_bytes) = (ident(&p.name), self.sized_bytes);
        self.then_if_writable(p, quote!(self.sized_array(#name, sized, #sized_bytes);))
    }

    fn record_list(&mut self, p: &'c ParamPlan, l: &'c ListRecord) -> Served<()> {
        let rec = self.b.model.records.get(&l.record).ok_or("a list's record the header lacks")?;
        let field = rec.fields.iter().find(|f| f.name == l.array).ok_or("a list's array the record lacks")?;
        let Ty::Pointer { pointee, .. } = self.b.model.resolve_typedef(&field.ty) else {
            return Err(format!("the list `{}` is no pointer", l.array));
        };
        // A `void *` list holds bytes.
        let elem = match l.bytes {
            true => quote!(u8),
            false => c_ty(pointee),
        };
        let (name, r) = (ident(&p.name), ident(&l.record));
        let (count, array) = (ident(&l.count), ident(&l.array));
        // The outputs beside the list (the one that types its elements, and the in/out ones), as
        // out-parameters.
        let beside =
            l.outputs.iter().map(|(f, _)| f).chain(&l.typed_by).chain(l.in_out.iter().map(|(f, _)| f)).map(|f| {
                let ty = rec.fields.iter().find(|x| x.name == *f).map(|x| c_ty(&x.ty));
                let f = ident(f);
                quote!(self.record_field::<#r, #ty>(#name, core::mem::offset_of!(#r, #f));)
            });
        // The record's capacity is read, the array written within it, the count answered.
        self.then_if_writable(
            p,
            quote!(
                self.record_list::<#r, #elem>(#name, core::mem::offset_of!(#r, #count), core::mem::offset_of!(#r, #array));
                #(#beside)*
            ),
        )
    }
}
