//! `methods.rs` of the safe crate: one method per planned method, grouped by owner.

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};

use super::convert::{error_variant, field_conv, scalar};
use super::{rustdoc, Names};
use crate::diag::Diagnostics;
use crate::emit::{doc, ident, ByArea};
use crate::model::{Function, Ty};
use crate::plan::inout::{Across, Maps, RecordIo};
use crate::plan::visit::{unserved, visit, RoleVisitor, Served};
use crate::plan::{Call, ListRecord, Method, Owner, ParamPlan, Plan, Probe, Role, Val};
use crate::rules::areas::Area;
use crate::rules::names::snake;
use crate::rules::Bindings;

/// The planned methods, in the area of the function each calls: one `impl` block per owner
/// in each area. A method a parameter of whose calls cannot be passed is left out, an error in
/// `d`.
pub fn methods(b: &Bindings, plan: &Plan, names: &Names, out: &mut ByArea, d: &mut Diagnostics) {
    let mut by_area: BTreeMap<(Area, &Owner), Vec<&Method>> = BTreeMap::new();
    for m in &plan.methods {
        let area = match m.calls.first().and_then(|c| b.model.functions.get(&c.symbol)) {
            Some(f) => b.area(&f.name, f.line),
            None => b.area(&m.key, 0),
        };
        by_area.entry((area, &m.owner)).or_default().push(m);
    }
    for (name, rs) in &plan.results {
        let Some(m) = plan.methods.iter().find(|m| m.returns.as_deref() == Some(name.as_str())) else { continue };
        let Some(f) = b.model.functions.get(&rs.symbol) else { continue };
        let g = Gen { b, names, owner: &m.owner, io: &plan.record_io, layouts: &plan.older_layouts };
        out.push(b.area(&f.name, f.line), g.result_struct(name, &rs.former, m, f));
    }
    for ((area, owner), ms) in by_area {
        let g = Gen { b, names, owner, io: &plan.record_io, layouts: &plan.older_layouts };
        let taken: std::collections::BTreeSet<&str> =
            plan.methods.iter().filter(|m| &m.owner == owner).map(|m| m.name.as_str()).collect();
        let mut items = Vec::new();
        let mut written = Vec::new();
        for m in ms {
            match g.method(m) {
                Ok(method) => {
                    items.push(method);
                    written.push(m);
                }
                Err(why) => d.error(format!("method {}", m.name), format!("`{}` has no safe method: {why}", m.key)),
            }
        }
        items.extend(written.iter().filter_map(|m| g.count_method(m, &taken)));
        let block = match owner {
            Owner::Nvml => quote!(impl Nvml { #(#items)* }),
            Owner::Handle(h) => {
                let t = format_ident!("{}", b.handle_type(h).unwrap_or(h));
                quote!(impl<'n> #t<'n> { #(#items)* })
            }
        };
        out.push(area, block);
    }
}

struct Gen<'a> {
    b: &'a Bindings,
    names: &'a Names,
    owner: &'a Owner,
    /// The in/out records whose inputs are parameters (the plan's).
    io: &'a BTreeMap<String, RecordIo>,
    /// Versioned records → their older layouts, newest first (the plan's).
    layouts: &'a BTreeMap<String, Vec<String>>,
}

/// What each parameter of call `c` contributes to it: `hp` is the parameter of the family's
/// newest member, which gives the method's signature; `cx` what the parameters share.
struct Parts<'g, 'a, 'c> {
    g: &'g Gen<'a>,
    c: &'c Call,
    hp: &'c ParamPlan,
    cx: CallCx<'c>,
}

impl Parts<'_, '_, '_> {
    /// The method's argument for the parameter.
    fn pn(&self) -> proc_macro2::Ident {
        ident(&snake(&self.hp.name))
    }

    /// The local that holds the parameter's C value.
    fn local(&self) -> proc_macro2::Ident {
        ident(&format!("c_{}", snake(&self.hp.name)))
    }

    /// Why a member's parameter cannot be passed: the newest member reads it otherwise.
    fn mismatch(&self, p: &ParamPlan) -> String {
        format!(
            "`{}` reads it as {}, the family's newest member (whose parameters the method takes) as {}",
            self.c.symbol,
            p.role.kind(),
            self.hp.role.kind()
        )
    }
}

impl<'c> RoleVisitor<'c> for Parts<'_, '_, 'c> {
    type Out = Part;

    fn self_handle(&mut self, _: &'c ParamPlan) -> Served<Part> {
        Ok(Part { arg: quote!(self.raw), ..Part::default() })
    }

    fn self_consumed(&mut self, _: &'c ParamPlan) -> Served<Part> {
        Ok(Part { arg: quote!(this_raw), ..Part::default() })
    }

    fn by_value(&mut self, p: &'c ParamPlan, v: &'c Val) -> Served<Part> {
        let Role::In(hv) = &self.hp.role else { return Err(self.mismatch(p)) };
        let pn = self.pn();
        // `None` for the value the header says stands for none.
        let given = match self.hp.none {
            Some(none) => {
                let none = Literal::u64_unsuffixed(none);
                quote!(#pn.unwrap_or(#none))
            }
            None => quote!(#pn),
        };
        Ok(Part { arg: self.g.input(v, hv, given), ..Part::default() })
    }

    fn in_str(&mut self, _: &'c ParamPlan) -> Served<Part> {
        let (pn, local) = (self.pn(), self.local());
        Ok(Part { pre: quote!(let #local = ffi::cstring(#pn)?;), arg: quote!(#local.as_ptr()), post: None })
    }

    fn in_ptr(&mut self, p: &'c ParamPlan, v: &'c Val) -> Served<Part> {
        let Role::InPtr(hv) = &self.hp.role else { return Err(self.mismatch(p)) };
        let (pn, local) = (self.pn(), self.local());
        let value = match hv {
            Val::Handle(_) => quote!(#pn.raw),
            Val::Scalar(_) | Val::Enum(_) | Val::Flags(..) | Val::Bool(_) => self.g.to_c(v, quote!(#pn)),
            _ => self.g.input(v, hv, quote!((*#pn))),
        };
        let is_const = matches!(&p.ty, Ty::Pointer { is_const: true, .. });
        let (mutable, arg) = if is_const { (None, quote!(&#local)) } else { (Some(quote!(mut)), quote!(&mut #local)) };
        Ok(Part { pre: quote!(let #mutable #local = #value;), arg, post: None })
    }

    fn in_out(&mut self, p: &'c ParamPlan, v: &'c Val) -> Served<Part> {
        let Role::InOut(hv) = &self.hp.role else { return Err(self.mismatch(p)) };
        let (pn, local) = (self.pn(), self.local());
        let given = match hv {
            Val::Record(r) => self.g.inout_value(r, quote!((*#pn))),
            _ => quote!((*#pn)),
        };
        let value = self.g.input(v, hv, given);
        let out = self.g.output(v, hv, quote!(#local));
        Ok(Part {
            pre: quote!(let mut #local = #value;),
            arg: self.g.record_arg(v, &p.ty, &local, &self.cx),
            post: Some(match hv {
                Val::Record(r) => self.g.inout_result(r, out),
                _ => out,
            }),
        })
    }

    fn out(&mut self, p: &'c ParamPlan, v: &'c Val) -> Served<Part> {
        let Role::Out(hv) = &self.hp.role else { return Err(self.mismatch(p)) };
        let local = self.local();
        let (t, init) = (self.g.raw_ty(v), self.g.raw_init(v));
        Ok(Part {
            pre: quote!(let mut #local: #t = #init;),
            arg: self.g.record_arg(v, &p.ty, &local, &self.cx),
            post: (!p.types_another).then(|| self.g.output(v, hv, quote!(#local))),
        })
    }

    fn str_buf(&mut self, _: &'c ParamPlan, size: u64) -> Served<Part> {
        let (local, n) = (self.local(), Literal::u64_unsuffixed(size));
        Ok(Part {
            pre: quote!(let mut #local = [0 as core::ffi::c_char; #n];),
            arg: quote!(#local.as_mut_ptr()),
            post: Some(quote!(ffi::string_from(&#local))),
        })
    }

    fn str_len(&mut self, _: &'c ParamPlan, by_ptr: bool) -> Served<Part> {
        let local = self.local();
        let n = Literal::u64_unsuffixed(self.cx.string_size.unwrap_or(0));
        Ok(match by_ptr {
            true => Part { pre: quote!(let mut #local = #n as _;), arg: quote!(&mut #local), post: None },
            false => Part { arg: quote!(#n as _), ..Part::default() },
        })
    }

    fn count(&mut self, _: &'c ParamPlan, probe: Probe) -> Served<Part> {
        self.cx.probe = Some(probe);
        Ok(Part { arg: quote!(count), ..Part::default() })
    }

    fn array(&mut self, p: &'c ParamPlan, val: &'c Val, unused: Option<&'c str>) -> Served<Part> {
        let Role::Array { val: hv, .. } = &self.hp.role else { return Err(self.mismatch(p)) };
        let local = self.local();
        self.cx.counted.push((local.clone(), val));
        // `n`: the elements filled, as `fill_counted` answers.
        let post = self.g.collect(val, hv, unused, quote!(#local.iter().take(n)));
        Ok(Part { arg: quote!(ffi::ptr_or_null(&mut #local)), post: Some(post), ..Part::default() })
    }

    fn capped_count(&mut self, _: &'c ParamPlan) -> Served<Part> {
        Ok(Part { arg: quote!(&mut c_count), ..Part::default() })
    }

    fn capped(&mut self, p: &'c ParamPlan, val: &'c Val, capacity: u64) -> Served<Part> {
        let Role::Capped { val: hv, .. } = &self.hp.role else { return Err(self.mismatch(p)) };
        let local = self.local();
        let (t, init) = (self.g.raw_ty(val), self.g.raw_init(val));
        let n = Literal::u64_unsuffixed(capacity);
        let out = self.g.output(val, hv, quote!((*e)));
        Ok(Part {
            pre: quote! {
                let mut #local: Vec<#t> = vec![#init; #n];
                let mut c_count: core::ffi::c_uint = #n;
            },
            arg: quote!(#local.as_mut_ptr()),
            post: Some(quote!(#local.iter().take(c_count as usize).map(|e| #out).collect())),
        })
    }

    fn sized_len(&mut self, _: &'c ParamPlan, bytes: bool, capacity: Option<u64>) -> Served<Part> {
        let pn = self.pn();
        let elems = match (&self.cx.sized_input, capacity) {
            (Some(arr), _) => quote!(#arr.len()),
            (None, Some(n)) => {
                let n = Literal::u64_unsuffixed(n);
                quote!(#n)
            }
            (None, None) => quote!(#pn as usize),
        };
        let elem = self.c.params.iter().find_map(|q| match &q.role {
            Role::SizedArray { val, .. } => Some(self.g.raw_ty(val)),
            _ => None,
        });
        let arg = match (bytes, elem) {
            (true, Some(t)) => quote!(ffi::length(#elems, core::mem::size_of::<#t>())?),
            _ => quote!(ffi::length(#elems, 1)?),
        };
        Ok(Part { arg, ..Part::default() })
    }

    fn sized_array(&mut self, p: &'c ParamPlan, val: &'c Val, input: bool, unused: Option<&'c str>) -> Served<Part> {
        let Role::SizedArray { val: hv, .. } = &self.hp.role else { return Err(self.mismatch(p)) };
        let (pn, local) = (self.pn(), self.local());
        let t = self.g.raw_ty(val);
        let pre = if input {
            let conv = self.g.input(val, hv, quote!((*e)));
            quote!(let mut #local: Vec<#t> = #pn.iter().map(|e| #conv).collect();)
        } else {
            let init = self.g.raw_init(val);
            let len = self.c.params.iter().find_map(|q| match &q.role {
                Role::SizedLen { capacity: Some(n), .. } => {
                    let n = Literal::u64_unsuffixed(*n);
                    Some(quote!(#n))
                }
                Role::SizedLen { capacity: None, .. } => {
                    let l = ident(&snake(&q.name));
                    Some(quote!(ffi::checked_len(#l as usize)?))
                }
                _ => None,
            });
            quote!(let mut #local: Vec<#t> = vec![#init; #len];)
        };
        let post = self.g.collect(val, hv, unused, quote!(#local.iter()));
        Ok(Part { pre, arg: quote!(#local.as_mut_ptr()), post: Some(post) })
    }

    fn record_list(&mut self, p: &'c ParamPlan, list: &'c ListRecord) -> Served<Part> {
        // A member of a family passes the same record: the method builds it from its own
        // arguments.
        if self.hp.role != p.role {
            return Err(self.mismatch(p));
        }
        if self.cx.record_list.is_some() || self.cx.probe.is_some() {
            return Err("a second list in one call, which `ffi::fill_in_record` does not fetch".into());
        }
        self.cx.record_list = Some(list);
        // `list`: the elements filled, as `fill_in_record` answers; each read by the output
        // that types it, where one does.
        let post = match (&list.typed_by, &list.elem) {
            (Some(tag), Val::Record(e)) => {
                let (ty, local) = (self.g.names.ty(e), out_local(tag));
                quote!(list.iter().map(|e| #ty::from_raw_typed(e, ValueType(#local as _))).collect::<Vec<_>>())
            }
            _ => self.g.collect(&list.elem, &list.elem, None, quote!(list.iter())),
        };
        // An empty list that is the end: `None`.
        let post = match list.none_when_empty {
            true => quote!({
                let list = #post;
                if list.is_empty() { None } else { Some(list) }
            }),
            false => post,
        };
        // With outputs beside the list: the struct of them and the list.
        let post = match &self.cx.returns {
            Some(name) if !list.outputs.is_empty() => {
                let fields = list.outputs.iter().map(|(f, v)| {
                    let (fname, local) = (ident(&snake(f)), out_local(f));
                    let x = self.g.output(v, v, quote!(#local));
                    quote!(#fname: #x)
                });
                let array = ident(&snake(&list.array));
                quote!(#name { #(#fields,)* #array: #post })
            }
            _ => post,
        };
        Ok(Part { arg: quote!(r), post: Some(post), ..Part::default() })
    }
}

/// What the parameters of one call share while each is read.
struct CallCx<'c> {
    /// The size of the call's string buffer, if it has one (its length parameter passes it).
    string_size: Option<u64>,
    /// The local holding the call's caller-sized input array, if it has one.
    sized_input: Option<proc_macro2::Ident>,
    /// The arrays of an in/out count, filled together by `ffi::fill_counted`.
    counted: Vec<(proc_macro2::Ident, &'c Val)>,
    /// How the count is probed, if the call has one.
    probe: Option<Probe>,
    /// The record holding the call's list, if it has one (filled by `ffi::fill_in_record`).
    record_list: Option<&'c ListRecord>,
    /// The struct the method returns, when it returns several values.
    returns: Option<proc_macro2::Ident>,
    /// Whether records go through a pointer cast: an older layout passed to the symbol whose
    /// signature names the newest.
    cast_records: bool,
}

/// What one parameter contributes to a call.
#[derive(Default)]
struct Part {
    pre: TokenStream,
    arg: TokenStream,
    post: Option<TokenStream>,
}

impl<'a> Gen<'a> {
    fn lifetime(&self) -> TokenStream {
        match self.owner {
            Owner::Nvml => quote!('_),
            Owner::Handle(_) => quote!('n),
        }
    }

    fn lib(&self) -> TokenStream {
        match self.owner {
            Owner::Nvml => quote!(self.lib()),
            Owner::Handle(_) => quote!(self.nvml.lib()),
        }
    }

    fn nref(&self) -> TokenStream {
        match self.owner {
            Owner::Nvml => quote!(self.nref()),
            Owner::Handle(_) => quote!(self.nvml.clone()),
        }
    }

    /// The safe type of a value.
    fn rust_ty(&self, v: &Val, lt: &TokenStream) -> TokenStream {
        match v {
            Val::Scalar(t) => scalar(t),
            Val::Bool(_) => quote!(bool),
            Val::Enum(n) | Val::Record(n) => {
                let t = self.names.ty(n);
                quote!(#t)
            }
            Val::Handle(h) => {
                let t = format_ident!("{}", self.b.handle_type(h).unwrap_or(h));
                quote!(#t<#lt>)
            }
            Val::Flags(n, _) => {
                let t = format_ident!("{n}");
                quote!(#t)
            }
            Val::Raw(n) => {
                let t = format_ident!("{n}");
                quote!(sys::#t)
            }
        }
    }

    /// The C type of a value, for locals.
    fn raw_ty(&self, v: &Val) -> TokenStream {
        match v {
            Val::Bool(Ty::Named(n)) => {
                let t = format_ident!("{n}");
                quote!(sys::#t)
            }
            Val::Scalar(t) | Val::Flags(_, t) | Val::Bool(t) => scalar(t),
            Val::Enum(n) | Val::Record(n) | Val::Raw(n) | Val::Handle(n) => {
                let t = format_ident!("{n}");
                quote!(sys::#t)
            }
        }
    }

    /// A zeroed C value, with its `version` filled in.
    fn raw_init(&self, v: &Val) -> TokenStream {
        match v {
            Val::Handle(h) if self.b.model.handles.contains_key(h) => quote!(core::ptr::null_mut()),
            Val::Record(n) => match self.b.struct_versions.get(n) {
                Some(c) => {
                    let (c, t) = (format_ident!("{c}"), format_ident!("{n}"));
                    quote!(sys::#t { version: sys::#c as _, ..Default::default() })
                }
                None => quote!(Default::default()),
            },
            _ => quote!(Default::default()),
        }
    }

    /// Safe `x` → C value, for an input of type `v`.
    fn to_c(&self, v: &Val, x: TokenStream) -> TokenStream {
        match v {
            Val::Scalar(_) | Val::Raw(_) => quote!(#x),
            Val::Bool(_) => quote!(#x as _),
            Val::Enum(_) => quote!(#x.0),
            Val::Handle(_) => quote!(#x.raw),
            Val::Flags(..) => quote!(#x.bits() as _),
            // The layout's `version` is filled in by `to_raw`.
            Val::Record(n) => {
                let t = format_ident!("{n}");
                quote!({ let r: sys::#t = crate::raw::ToRaw::to_raw(&#x); r })
            }
        }
    }

    /// C value `x` → safe value of type `v`.
    fn safe_of(&self, v: &Val, x: TokenStream) -> TokenStream {
        match v {
            Val::Scalar(_) | Val::Raw(_) => x,
            Val::Bool(_) => quote!(#x != 0),
            Val::Enum(n) => {
                let t = self.names.ty(n);
                quote!(#t(#x))
            }
            Val::Handle(h) => {
                let t = format_ident!("{}", self.b.handle_type(h).unwrap_or(h));
                let nref = self.nref();
                quote!(#t::wrap(#x, #nref))
            }
            Val::Flags(n, _) => {
                let t = format_ident!("{n}");
                quote!(#t::from_bits_retain(#x as _))
            }
            Val::Record(n) => super::convert::record_of(self.b, self.names, n, x, |p| {
                ident(&format!("c_{}", snake(p))).into_token_stream()
            }),
        }
    }

    /// `x`, a safe value of record `old`'s family, as the family of record `new` (the same
    /// type: a member of a versioned family converts into the newest layout's).
    fn convert(&self, old: &str, new: &str, x: TokenStream) -> TokenStream {
        if self.names.same_family(old, new) {
            x
        } else {
            let msg = format!("generator bug: `{old}` and `{new}` are records of two families");
            quote!(compile_error!(#msg))
        }
    }

    /// The method `m`, or why a parameter of a call it makes cannot be passed.
    fn method(&self, m: &Method) -> Served<TokenStream> {
        let head = &m.calls[0];
        let f = &self.b.model.functions[&head.symbol];
        let lt = self.lifetime();
        let name = ident(&m.name);
        let planned_args = args(head, self.io);
        let arg_names: Vec<proc_macro2::Ident> = planned_args.iter().map(|(c, _)| ident(&snake(c))).collect();
        let args: Vec<TokenStream> = planned_args
            .into_iter()
            .map(|(c, arg)| {
                let pn = ident(&snake(c));
                let t = match arg {
                    Arg::Handle(h) => {
                        let t = format_ident!("{}", self.b.handle_type(h).unwrap_or(h));
                        quote!(&#t<'_>)
                    }
                    Arg::Value(v) => self.rust_ty(v, &lt),
                    Arg::Optional(v) => {
                        let t = self.rust_ty(v, &lt);
                        quote!(Option<#t>)
                    }
                    Arg::Ref(v) => {
                        let t = self.rust_ty(v, &lt);
                        quote!(&#t)
                    }
                    Arg::Str => quote!(&str),
                    Arg::Slice(v) => {
                        let t = self.rust_ty(v, &lt);
                        quote!(&[#t])
                    }
                    Arg::Len => quote!(u32),
                    Arg::Field { record, field } => self.field_ty(record, field),
                    // A hand-written type of the crate's root, which the file imports.
                    Arg::Mut(t) => {
                        let t = format_ident!("{t}");
                        quote!(&mut #t)
                    }
                };
                quote!(#pn: #t)
            })
            .collect();
        let mut rets: Vec<TokenStream> = head.outputs().map(|p| self.output_ty(&p.role, &lt)).collect();
        let consumes = head.params.iter().any(|p| p.role == Role::SelfConsumed);
        let ret = match (rets.len(), &m.returns) {
            (0, _) => quote!(()),
            (_, Some(name)) => {
                let name = format_ident!("{name}");
                quote!(#name)
            }
            (1, None) => rets.pop().unwrap_or_default(),
            _ => quote!((#(#rets),*)),
        };
        let lib = self.lib();
        // A method that frees or destroys its handle takes it by value, and takes the raw
        // handle out first (an owned handle then has nothing left to free on drop).
        let release = consumes.then(|| quote!(let this_raw = self.release_raw();));
        let body = if m.calls.len() == 1 {
            let sym = ident(&head.symbol);
            let call = self.layouts_call(head, head, m.returns.as_deref(), &ret)?;
            quote! {
                #release
                let sym = #lib.#sym()?;
                #call
            }
        } else {
            // A member the library lacks, or one that answers `NVML_ERROR_FUNCTION_NOT_FOUND`
            // (a stub of a driver that predates it), passes to the next.
            let tries = m.calls.iter().map(|c| {
                let sym = ident(&c.symbol);
                let call = match m.across.get(&c.symbol) {
                    Some(a) => self.across_call(c, a)?,
                    None => self.layouts_call(head, c, m.returns.as_deref(), &ret)?,
                };
                Ok(quote! {
                    if let Ok(sym) = lib.#sym() {
                        match (|| -> Result<#ret, Error> { #call })() {
                            Err(e @ Error::FunctionNotFound(_)) => missing = e,
                            result => return result,
                        }
                    }
                })
            });
            let tries: Vec<TokenStream> = tries.collect::<Served<_>>()?;
            let first = &head.symbol;
            quote! {
                #release
                let lib = #lib;
                // What to report if no member serves: the newest symbol when none is exported,
                // else the library's own answer.
                let mut missing = Error::FunctionNotFound(Some(#first));
                #(#tries)*
                Err(missing)
            }
        };
        let docs = self.docs(m, f);
        let symbols: Vec<String> = m.calls.iter().map(|c| format!("`{}`", c.symbol)).collect();
        let via = if symbols.len() == 1 {
            format!("Calls {}.", symbols[0])
        } else {
            format!(
                "Calls the newest of {} that the library has (exports and does not answer `NVML_ERROR_FUNCTION_NOT_FOUND`); older layouts are converted.",
                symbols.join(", ")
            )
        };
        // What a `fill_from_older` rule adds (see `layouts_call`).
        let filled: Vec<String> = head
            .sole_record_output()
            .filter(|_| m.returns.is_none())
            .into_iter()
            .flat_map(|r| self.fills(r))
            .map(|(field, old)| {
                format!(
                    " A `{}` the newest layout answers empty is taken from a call in layout `{old}` (a driver that fills only that one).",
                    snake(field)
                )
            })
            .collect();
        // The older layouts of a list's record (see `record_list_call`), each with the inputs
        // it lacks.
        let older: Vec<String> = list_in(head)
            .into_iter()
            .flat_map(|l| l.older.iter().map(move |(old, _)| (l, old)))
            .map(|(l, old)| {
                let has = |f: &str| self.b.model.records.get(old).is_some_and(|r| r.fields.iter().any(|x| x.name == f));
                let lacks: Vec<String> =
                    l.inputs.iter().filter(|(f, _)| !has(f)).map(|(f, _)| format!("`{}`", snake(f))).collect();
                let ignores = match lacks.is_empty() {
                    true => String::new(),
                    false => format!(", without {}", lacks.join(", ")),
                };
                format!(" A driver that answers `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` gets the older layout `{old}`{ignores}.")
            })
            .collect();
        let via = format!("{via}{}{}", filled.concat(), older.concat());
        let via = doc::lines(&format!("\n{via}\n\n{}", self.errors(m, f)));
        // Every C name of the family, so that docs.rs finds the method by any of them.
        let aliases = m.calls.iter().map(|c| c.symbol.as_str()).chain(
            self.b
                .families
                .get(&m.key)
                .into_iter()
                .flatten()
                .map(String::as_str)
                .filter(|s| !m.calls.iter().any(|c| c.symbol == *s)),
        );
        let aliases = aliases.map(|a| quote!(#[doc(alias = #a)]));
        let deprecated = f.deprecated.then(|| {
            // The header's text, and the method that calls the function it names instead.
            let mut note = crate::emit::sys::deprecation_note(f);
            let instead = f.docs.replacement().and_then(|r| self.names.methods.get(r));
            if let Some(method) = instead {
                note.push_str(&format!(" (`{method}`)"));
            }
            quote!(#[deprecated(note = #note)])
        });
        let receiver = if consumes { quote!(mut self) } else { quote!(&self) };
        let formers = m.former.iter().map(|old| former_method(old, &m.name, &receiver, &args, &arg_names, &ret));
        Ok(quote! {
            #docs
            #via
            #(#aliases)*
            #deprecated
            // Inlined into the caller's crate: a getter then costs the library call and little
            // more (benches/compare.sh).
            #[inline]
            pub fn #name(#receiver, #(#args),*) -> Result<#ret, Error> {
                #body
            }
            #(#formers)*
        })
    }

    /// For a method that fetches a list by the count + array protocol, a method that asks only
    /// for its length, as the header's size query does (NULL arrays and a count of 0):
    /// `running_compute_processes` → `running_compute_process_count`. `None` where the library
    /// refuses NULL arrays, for a list with other outputs, or when the name is taken.
    fn count_method(&self, m: &Method, taken: &std::collections::BTreeSet<&str>) -> Option<TokenStream> {
        let name = count_method_name(m, self.io, taken)?;
        let head = &m.calls[0];
        let lt = self.lifetime();
        let mut decls = Vec::new();
        for (c, arg) in args(head, self.io) {
            let pn = ident(&snake(c));
            let t = match arg {
                Arg::Value(v) => self.rust_ty(v, &lt),
                Arg::Handle(h) => {
                    let t = format_ident!("{}", self.b.handle_type(h).unwrap_or(h));
                    quote!(&#t<'_>)
                }
                _ => return None,
            };
            decls.push(quote!(#pn: #t));
        }
        // The library's answer for each member of the family, newest first.
        let elem = |c: &Call| -> Option<TokenStream> {
            let sizes: Vec<TokenStream> = c
                .params
                .iter()
                .filter_map(|p| match &p.role {
                    Role::Array { val, .. } => {
                        let t = self.raw_ty(val);
                        Some(quote!(core::mem::size_of::<#t>()))
                    }
                    _ => None,
                })
                .collect();
            Some(sum(&sizes))
        };
        let call_args = |c: &Call| -> Option<Vec<TokenStream>> {
            c.params
                .iter()
                .zip(&head.params)
                .map(|(p, hp)| {
                    let pn = ident(&snake(&hp.name));
                    Some(match (&p.role, &hp.role) {
                        (Role::SelfHandle, _) => quote!(self.raw),
                        (Role::In(v), Role::In(hv)) => self.input(v, hv, quote!(#pn)),
                        (Role::Count { .. }, _) => quote!(count),
                        (Role::Array { .. }, _) => quote!(core::ptr::null_mut()),
                        _ => return None,
                    })
                })
                .collect()
        };
        let lib = self.lib();
        let mut tries = Vec::new();
        for c in &m.calls {
            let (sym, a, bytes) = (ident(&c.symbol), call_args(c)?, elem(c)?);
            // The size query is read as the list's method reads it (one answer, one length).
            let probe = c.params.iter().find_map(|p| match p.role {
                Role::Count { probe: probe @ (Probe::Null | Probe::NullSizeError) } => Some(probe_tokens(probe)),
                _ => None,
            })?;
            tries.push(quote! {
                if let Ok(sym) = lib.#sym() {
                    match ffi::count_of(#probe, #bytes, |count| call!(sym(#(#a),*))) {
                        Err(e @ Error::FunctionNotFound(_)) => missing = e,
                        result => return result,
                    }
                }
            });
        }
        let first = &head.symbol;
        let doc = format!(
            "The length of the list [`Self::{}`] answers, asked of the library alone (the header's size query, which fetches no entry), without fetching the list.\n\n Calls `{first}`{}.\n\n # Errors\n\n As [`Self::{}`]'s.",
            m.name,
            if m.calls.len() > 1 { " or an older version of it" } else { "" },
            m.name
        );
        let docs = doc::lines(&doc.replace("\n ", "\n"));
        let aliases = m.calls.iter().map(|c| c.symbol.as_str()).map(|a| quote!(#[doc(alias = #a)]));
        let arg_names: Vec<proc_macro2::Ident> =
            args(head, self.io).into_iter().map(|(c, _)| ident(&snake(c))).collect();
        let formers: Vec<TokenStream> = m
            .former
            .iter()
            .map(|old| count_name(old))
            .filter(|old| !taken.contains(old.as_str()) && *old != name)
            .map(|old| former_method(&old, &name, &quote!(&self), &decls, &arg_names, &quote!(u32)))
            .collect();
        let name = ident(&name);
        Some(quote! {
            #docs
            #(#aliases)*
            #[inline]
            pub fn #name(&self, #(#decls),*) -> Result<u32, Error> {
                let lib = #lib;
                let mut missing = Error::FunctionNotFound(Some(#first));
                #(#tries)*
                Err(missing)
            }
            #(#formers)*
        })
    }

    /// The safe type of an output parameter.
    fn output_ty(&self, role: &Role, lt: &TokenStream) -> TokenStream {
        match role {
            Role::StrBuf { .. } => quote!(String),
            Role::Array { val, .. } | Role::SizedArray { val, .. } | Role::Capped { val, .. } => {
                let t = self.rust_ty(val, lt);
                quote!(Vec<#t>)
            }
            Role::RecordList(l) if l.none_when_empty => {
                let t = self.rust_ty(&l.elem, lt);
                quote!(Option<Vec<#t>>)
            }
            Role::RecordList(l) => {
                let t = self.rust_ty(&l.elem, lt);
                quote!(Vec<#t>)
            }
            Role::InOut(Val::Record(r)) if self.single_output(r).is_some() => {
                let field = self.single_output(r).unwrap_or_default();
                self.field_ty(r, field)
            }
            r => r.val().map(|v| self.rust_ty(v, lt)).unwrap_or_else(|| quote!(())),
        }
    }

    /// The only output field of in/out record `r`, when its inputs are parameters and it has
    /// one: the method returns that field alone.
    fn single_output(&self, r: &str) -> Option<&str> {
        self.io.get(r)?.single_output()
    }

    /// The safe type of field `field` of record `record`, as its safe record has it.
    fn field_ty(&self, record: &str, field: &str) -> TokenStream {
        let Some(f) = self.b.model.records.get(record).and_then(|r| r.fields.iter().find(|f| f.name == field)) else {
            let msg = format!("generator bug: no field {record}.{field}");
            return quote!(compile_error!(#msg));
        };
        if self.b.boolean_field(record, field) {
            return quote!(bool);
        }
        let flags = self.b.flags_of_field(record, field);
        let t = field_conv(self.b, self.names, &f.ty, flags.as_deref()).ty;
        match crate::plan::sentinel(&self.b.model, f) {
            Some(_) => quote!(Option<#t>),
            None => t,
        }
    }

    /// The head's in/out record `r` built from the method's parameters (its inputs), or the
    /// record the method takes (`x`) when its directions are not known.
    fn inout_value(&self, r: &str, x: TokenStream) -> TokenStream {
        let Some(io) = self.io.get(r) else { return x };
        let t = self.names.ty(r);
        // Each parameter is named as its field.
        let fields = io.inputs.iter().map(|f| super::convert::field_ident(f));
        quote!(#t { #(#fields,)* ..Default::default() })
    }

    /// What the method returns of its head's in/out record `r` (safe value `x`): the only
    /// output field, or the whole record.
    fn inout_result(&self, r: &str, x: TokenStream) -> TokenStream {
        match self.single_output(r) {
            Some(f) => {
                let f = super::convert::field_ident(f);
                quote!(#x.#f)
            }
            None => x,
        }
    }

    /// Whether a value's safe type implements `PartialEq` and (with the `serde` feature)
    /// `Serialize`: raw unions do neither.
    fn traits(&self, role: &Role) -> (bool, bool) {
        match role.val() {
            Some(Val::Raw(_)) => (false, false),
            Some(Val::Record(r)) => (!super::convert::holds_union(&self.b.model, r), true),
            _ => (true, true),
        }
    }

    /// The struct a method with several outputs returns: a field per output parameter, named
    /// and documented as the header names and documents it.
    fn result_struct(&self, name: &str, former: &[String], m: &Method, f: &Function) -> TokenStream {
        let ty = format_ident!("{name}");
        let former = former.iter().map(|old| {
            let (old, doc, note) =
                (format_ident!("{old}"), format!(" The former name of [`{name}`]."), format!("renamed `{name}`"));
            quote!(#[doc = #doc] #[deprecated(note = #note)] pub type #old = #ty;)
        });
        let lt = self.lifetime();
        let outputs: Vec<&ParamPlan> = m.calls[0].outputs().collect();
        let list = outputs.iter().find_map(|p| match &p.role {
            Role::RecordList(l) if !l.outputs.is_empty() => Some(l),
            _ => None,
        });
        if let Some(l) = list {
            return self.list_result_struct(name, quote!(#(#former)*), m, l);
        }
        let fields = outputs.iter().map(|p| {
            let (fname, t) = (ident(&snake(&p.name)), self.output_ty(&p.role, &lt));
            let docs = f.docs.param(&p.name).map(|d| doc::inline_text(&rustdoc::as_value(&d.text))).unwrap_or_default();
            let mut docs = self.names.links.apply(&docs);
            if let Role::Out(Val::Bool(_)) = &p.role {
                docs = doc::in_rust_terms(&rustdoc::yes_no_as_bool(&docs), &doc::RustNames::default());
            }
            let docs = doc::lines(if docs.is_empty() { &p.name } else { &docs });
            quote!(#docs pub #fname: #t)
        });
        let eq = outputs.iter().all(|p| self.traits(&p.role).0);
        let derive_eq = eq.then(|| quote!(PartialEq,));
        let ser: Vec<TokenStream> = outputs
            .iter()
            .filter(|p| self.traits(&p.role).1)
            .map(|p| {
                let (key, fname) = (super::convert::serde_key(&p.name), ident(&snake(&p.name)));
                quote!(st.serialize_field(#key, &self.#fname)?;)
            })
            .collect();
        let n_ser = Literal::usize_unsuffixed(ser.len());
        let methods: Vec<String> = m.calls.iter().map(|c| format!("`{}`", c.symbol)).collect();
        let what = doc::lines(&format!("What {} answers.", methods.join(" or ")));
        let attrs = quote! {
            #(#former)*
            #what
            #[derive(Debug, Clone, #derive_eq Default)]
            #[non_exhaustive]
        };
        serialized_struct(name, attrs, fields.collect(), ser, n_ser)
    }

    /// [`Gen::result_struct`] for a list's record with outputs beside the list: a field per
    /// output, then the list, named and documented as the record's fields.
    fn list_result_struct(&self, name: &str, former: TokenStream, m: &Method, l: &ListRecord) -> TokenStream {
        let lt = self.lifetime();
        let record = self.b.model.records.get(&l.record);
        let field_doc = |f: &str| {
            let text = record.and_then(|r| r.fields.iter().find(|x| x.name == f)).and_then(|x| x.doc.as_deref());
            let text = doc::inline_text(&without_cue(text.unwrap_or(f)));
            let text = text.trim().trim_end_matches('.');
            doc::lines(&format!("{}.", self.names.links.apply(text)))
        };
        let returned: Vec<(&String, TokenStream)> = l
            .outputs
            .iter()
            .map(|(f, v)| (f, self.rust_ty(v, &lt)))
            .chain([(&l.array, self.output_ty(&Role::Array { val: l.elem.clone(), unused: None }, &lt))])
            .collect();
        let fields = returned.iter().map(|(f, t)| {
            let (fname, docs) = (ident(&snake(f)), field_doc(f));
            quote!(#docs pub #fname: #t)
        });
        let ser = returned.iter().map(|(f, _)| {
            let (key, fname) = (super::convert::serde_key(f), ident(&snake(f)));
            quote!(st.serialize_field(#key, &self.#fname)?;)
        });
        let n_ser = Literal::usize_unsuffixed(returned.len());
        // Integers throughout are `Eq` too.
        let int = |v: &Val| matches!(v, Val::Scalar(t) if !matches!(t, Ty::Float | Ty::Double));
        let eq = self.traits(&Role::Array { val: l.elem.clone(), unused: None }).0;
        let derive_eq = match (eq, int(&l.elem) && l.outputs.iter().all(|(_, v)| int(v))) {
            (true, true) => quote!(PartialEq, Eq,),
            (true, false) => quote!(PartialEq,),
            (false, _) => quote!(),
        };
        let methods: Vec<String> = m.calls.iter().map(|c| format!("`{}`", c.symbol)).collect();
        let what = doc::lines(&format!(
            "What {} answers: the list of its `{}` and the fields beside it.",
            methods.join(" or "),
            l.record
        ));
        // Exhaustive, as the hand-written struct of 0.1 was.
        let attrs = quote! {
            #former
            #what
            #[derive(Debug, Clone, #derive_eq Default)]
        };
        serialized_struct(name, attrs, fields.collect(), ser.collect(), n_ser)
    }

    /// How the `@return` conditions of a method's function name its C parameters in Rust: the
    /// handle it is called on, its arguments; the others are none of the caller's concern.
    fn params(&self, m: &Method) -> rustdoc::Params {
        let head = &m.calls[0];
        let mut rust: BTreeMap<String, Option<String>> = head.params.iter().map(|p| (p.name.clone(), None)).collect();
        for p in &head.params {
            if matches!(p.role, Role::SelfHandle | Role::SelfConsumed) {
                if let Owner::Handle(h) = self.owner {
                    rust.insert(
                        p.name.clone(),
                        Some(rustdoc::Params::handle_phrase(self.b.handle_type(h).unwrap_or(h))),
                    );
                }
            }
        }
        for (c, arg) in args(head, self.io) {
            let rust_name = format!("`{}`", ident(&snake(c)));
            match arg {
                // An in/out record's input field: `record->field` in the header's text.
                Arg::Field { record, .. } => {
                    for p in
                        head.params.iter().filter(|p| matches!(&p.role, Role::InOut(Val::Record(r)) if r == record))
                    {
                        rust.insert(format!("{}->{c}", p.name), Some(rust_name.clone()));
                    }
                }
                _ => {
                    rust.insert(c.to_string(), Some(rust_name));
                }
            }
        }
        rustdoc::Params { rust }
    }

    /// The C names a method's texts use, in Rust terms (for `doc::in_rust_terms`): its
    /// arguments and the handle, its outputs by the Rust names of the values returned, the
    /// fields of records and other functions' parameters by their Rust names; `None` for a count
    /// or a length the method passes itself.
    fn rust_names(&self, m: &Method) -> doc::RustNames<'a> {
        let mut c_names = self.params(m).rust;
        // An output reads as the Rust name of the value returned (`boardId` → `board_id`); the
        // sentences on a count or a length, which the method passes itself, go.
        for p in &m.calls[0].params {
            let passed =
                matches!(p.role, Role::Count { .. } | Role::CappedCount | Role::SizedLen { .. } | Role::StrLen { .. });
            if let (Some(None), false) = (c_names.get(&p.name), passed) {
                c_names.insert(p.name.clone(), Some(format!("`{}`", snake(&p.name))));
            }
        }
        // Record fields and other functions' parameters read as Rust names too (`Names::shared`).
        doc::RustNames::over(c_names, &self.names.shared)
    }

    /// The method's description: the function's comment without its C parameters and return
    /// codes and without what only a C caller does (fill a record's `version`, the C examples),
    /// its C names as links to the Rust items, then the method's arguments by their Rust names.
    fn docs(&self, m: &Method, f: &Function) -> TokenStream {
        // "Versioned wrapper around \\ref nvmlX that accepts a versioned record": the method is
        // that family's, so it reads as the older member's description.
        let wrapped = f.doc.as_deref().and_then(|d| d.trim_start().strip_prefix("Versioned wrapper around \\ref "));
        let described = wrapped
            .and_then(|rest| rest.split_whitespace().next())
            .filter(|older| m.calls.iter().any(|c| c.symbol == *older))
            .and_then(|older| self.b.model.functions.get(older))
            .unwrap_or(f);
        let text = described.doc.as_deref().map(doc::description).unwrap_or_default();
        let c_names = self.rust_names(m);
        let rust_terms = |md: &str| doc::in_rust_terms(md, &c_names);
        let mut text = rust_terms(&self.names.links.apply(&rustdoc::without_c_usage(&text)));
        let described: Vec<String> = args(&m.calls[0], self.io)
            .into_iter()
            .filter_map(|(c, arg)| {
                let text = match arg {
                    Arg::Field { record, field } => {
                        let r = self.b.model.records.get(record)?;
                        r.fields.iter().find(|f| f.name == field)?.doc.clone()?
                    }
                    // An input field of a list's record: its comment, without the direction.
                    _ => match (f.docs.param(c), list_in(&m.calls[0])) {
                        (Some(d), _) => d.text.clone(),
                        (None, Some(l)) => without_cue(
                            self.b.model.records.get(&l.record)?.fields.iter().find(|x| x.name == c)?.doc.as_deref()?,
                        ),
                        (None, None) => return None,
                    },
                };
                let mut text = rust_terms(&self.names.links.apply(&doc::inline_text(&text)));
                if let Arg::Optional(_) = arg {
                    text.push_str(" `None` passes the header's `0` (see above).");
                }
                (!text.trim().is_empty()).then(|| format!("* `{}`: {text}", snake(c)))
            })
            .collect();
        if let Some(returns) = self.returns_doc(m, f) {
            let returns = rust_terms(&self.names.links.apply(&returns));
            if !returns.is_empty() {
                text.push_str(&format!("\n\n{returns}"));
            }
        }
        // What reads better in Rust, which the rules say.
        if let Some(see) = self.b.see_also.get(&m.calls[0].symbol) {
            text.push_str(&format!("\n\n{}", see.trim()));
        }
        if !described.is_empty() {
            text.push_str(&format!("\n\n# Arguments\n\n{}", described.join("\n")));
        }
        if m.calls[0].params.iter().any(|p| matches!(&p.role, Role::In(Val::Bool(_)) | Role::Out(Val::Bool(_)))) {
            // The `true` and `false` it writes for the header's constants read in Rust terms too.
            text = rust_terms(&rustdoc::yes_no_as_bool(&text));
        }
        doc::lines(&text)
    }

    /// What a method with one output returns, from the header's words for that out-parameter
    /// (or in/out record field), which carry its unit: "Reference in which to return the clock
    /// speed in MHz" → "Returns the clock speed in MHz."
    fn returns_doc(&self, m: &Method, f: &Function) -> Option<String> {
        let head = &m.calls[0];
        let mut outputs = head.outputs();
        let (p, None) = (outputs.next()?, outputs.next()) else { return None };
        let text = match &p.role {
            Role::InOut(Val::Record(r)) => {
                let field = self.single_output(r)?;
                self.b.model.records.get(r)?.fields.iter().find(|x| x.name == field)?.doc.clone()?
            }
            // A list's record: the words of its array field, which the method returns, and of the
            // fields beside it that the method returns with it.
            Role::RecordList(l) => {
                let record = self.b.model.records.get(&l.record)?;
                let words = |name: &str| -> Option<String> {
                    let text = without_cue(record.fields.iter().find(|x| x.name == name)?.doc.as_deref()?);
                    let text = rustdoc::without_null_usage(&doc::inline_text(&text));
                    let text = text.trim().trim_end_matches('.');
                    let mut chars = text.chars();
                    let first = chars.next()?.to_lowercase().collect::<String>();
                    Some(format!("{first}{}", chars.as_str()))
                };
                let list = words(&l.array)?;
                let bytes = l.bytes || l.elem == Val::Scalar(Ty::UChar);
                let what = if bytes { "the bytes of the record's buffer" } else { "the entries of the record's list" };
                // "0 means no (more) records".
                let end = if l.none_when_empty { ", or `None` when it answers none (the end)" } else { "" };
                if l.outputs.is_empty() {
                    return Some(format!("Returns {what}: {list}{end}."));
                }
                let beside: Vec<String> =
                    l.outputs.iter().filter_map(|(f, _)| Some(format!("`{}` ({})", snake(f), words(f)?))).collect();
                return Some(format!(
                    "Returns {what} as `{}` ({list}), and beside it {}.",
                    snake(&l.array),
                    beside.join(", ")
                ));
            }
            _ => f.docs.param(&p.name)?.text.clone(),
        };
        let text = rustdoc::without_null_usage(&doc::inline_text(&text));
        let mut text = text.trim().trim_end_matches('.');
        // The direction cue of a record field's comment (`OUT: the fan speed in RPM`).
        for cue in ["[out]", "OUT:", "OUT -", "OUT"] {
            if let Some(rest) = text.strip_prefix(cue) {
                text = rest.trim_start_matches([' ', '-', ':']);
                break;
            }
        }
        if text.is_empty() {
            return None;
        }
        let lower = text.to_ascii_lowercase();
        let prefixes = [
            "reference in which to return ",
            "array reference in which to return ",
            "reference to return ",
            "reference in which to provide ",
            "reference to the ",
            "reference to ",
            "pointer to the ",
            "pointer to ",
            "returns ",
            "return ",
        ];
        let rest = prefixes.iter().find(|p| lower.starts_with(*p)).map(|p| &text[p.len()..]);
        Some(match rest {
            Some(rest) if !rest.is_empty() => format!("Returns {rest}."),
            Some(_) => return None,
            None => match text.split_once(' ') {
                Some((article @ ("The" | "A" | "An" | "the" | "a" | "an"), rest)) => {
                    format!("Returns {} {rest}.", article.to_ascii_lowercase())
                }
                _ => format!("Returns: {text}."),
            },
        })
    }

    /// `# Errors`: the return codes the header documents, as `Error` variants, and the
    /// errors of the binding itself.
    fn errors(&self, m: &Method, f: &Function) -> String {
        let mut lines = vec!["# Errors".to_string(), String::new()];
        let params = self.params(m);
        for r in &f.docs.returns {
            let Some(v) = error_variant(&self.b.model, &r.code) else { continue };
            // What a Rust caller can cause or meet: no NULL pointer, no parameter the method
            // does not take (a condition with nothing else is left out).
            let when =
                if r.when.trim().is_empty() { Some(String::new()) } else { rustdoc::condition(&r.when, &params) };
            let Some(when) = when else { continue };
            let when = self.names.links.apply(&when);
            lines.push(if when.is_empty() { format!("- [`Error::{v}`]") } else { format!("- [`Error::{v}`] {when}") });
        }
        // A record of several layouts: the method tries each the header declares.
        let versioned = m.calls[0].params.iter().any(|p| match p.role.val() {
            Some(Val::Record(r)) => self.b.struct_versions.contains_key(r),
            _ => false,
        });
        if versioned && !lines.iter().any(|l| l.contains("Error::ArgumentVersionMismatch")) {
            lines.push(
                "- [`Error::ArgumentVersionMismatch`] if the library knows none of the record layouts the header declares".to_string(),
            );
        }
        let newest = &m.calls[0].symbol;
        lines.push(format!(
            "- [`Error::FunctionNotFound`] if the loaded library has no `{newest}`{} (a driver older than the function)",
            if m.calls.len() > 1 { " nor an older version of it" } else { "" }
        ));
        let lists = m.calls[0]
            .params
            .iter()
            .any(|p| matches!(p.role, Role::Count { .. } | Role::Capped { .. } | Role::RecordList(_)));
        if lists {
            lines.push("- [`Error::Implausible`] if the library answers a count no real list has".to_string());
        }
        // The C names left in the conditions (`cpuSetSize == 0`), in Rust terms: code for an
        // argument, plain words for anything else (no code but the method's arguments there).
        let arguments = self.params(m).rust;
        doc::in_rust_terms(&lines.join("\n"), &self.rust_names(m).as_words_but(&arguments))
    }

    /// The body calling `c` (a member of the chain headed by `head`) through `sym`.
    fn call(&self, head: &Call, c: &Call, returns: Option<&str>) -> Served<TokenStream> {
        self.call_cast(head, c, returns, false)
    }

    /// [`Gen::call`], with records passed through a pointer cast when `cast_records`.
    fn call_cast(&self, head: &Call, c: &Call, returns: Option<&str>, cast_records: bool) -> Served<TokenStream> {
        let cx = CallCx {
            string_size: c.params.iter().find_map(|p| match p.role {
                Role::StrBuf { size } => Some(size),
                _ => None,
            }),
            sized_input: c.params.iter().find_map(|p| match &p.role {
                Role::SizedArray { input: true, .. } => Some(ident(&format!("c_{}", snake(&p.name)))),
                _ => None,
            }),
            counted: Vec::new(),
            probe: None,
            record_list: None,
            returns: returns.map(|n| format_ident!("{n}")),
            cast_records,
        };
        let (mut cx, mut parts) = (cx, Vec::new());
        for (p, hp) in c.params.iter().zip(&head.params) {
            let mut of = Parts { g: self, c, hp, cx };
            // The method's parameters and result are the newest member's: a member must read
            // each parameter in the same role (its value may be an older layout).
            let part = match std::mem::discriminant(&p.role) == std::mem::discriminant(&hp.role) {
                true => visit(&mut of, p),
                false => Err(of.mismatch(p)),
            };
            let part = part.map_err(|why| unserved(p, &why));
            cx = of.cx;
            parts.push(part?);
        }
        let pre = parts.iter().map(|p| &p.pre);
        let args: Vec<&TokenStream> = parts.iter().map(|p| &p.arg).collect();
        let mut posts: Vec<TokenStream> = parts.iter().filter_map(|p| p.post.clone()).collect();
        let call = match (cx.probe, cx.record_list) {
            (Some(probe), _) => self.counted_call(probe, &cx.counted, &args),
            (None, Some(list)) => self.record_list_call(list, c, &args),
            (None, None) => quote!(ffi::check(call!(sym(#(#args),*)))?;),
        };
        let result = match (posts.len(), returns) {
            (0, _) => quote!(()),
            (1, _) => posts.pop().unwrap_or_default(),
            (_, Some(name)) => {
                let name = format_ident!("{name}");
                let fields = head.outputs().map(|p| ident(&snake(&p.name)));
                quote!(#name { #(#fields: #posts),* })
            }
            _ => quote!((#(#posts),*)),
        };
        Ok(quote! {
            #(#pre)*
            #call
            Ok(#result)
        })
    }

    /// The body calling `c` (see [`Gen::call`]), then, while the library answers
    /// `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` (a driver that predates the record's layout), the
    /// same call with each older layout of its out- or in/out record, converted by field.
    fn layouts_call(&self, head: &Call, c: &Call, returns: Option<&str>, ret: &TokenStream) -> Served<TokenStream> {
        let versioned: Vec<(usize, &Vec<String>)> = c
            .params
            .iter()
            .enumerate()
            .filter_map(|(i, p)| match &p.role {
                Role::Out(Val::Record(r)) | Role::InOut(Val::Record(r)) => Some((i, self.layouts.get(r)?)),
                _ => None,
            })
            .collect();
        let [(i, older)] = versioned.as_slice() else { return self.call(head, c, returns) };
        let variant = |old: &String| {
            let mut variant = c.clone();
            variant.params[*i].role = match &variant.params[*i].role {
                Role::Out(_) => Role::Out(Val::Record(old.clone())),
                _ => Role::InOut(Val::Record(old.clone())),
            };
            variant
        };
        // The fields the newest layout may answer empty (`fill_from_older`), where the method
        // returns that record: each taken from a call in the older layout that fills it.
        let fills: Vec<TokenStream> = c
            .sole_record_output()
            .filter(|_| returns.is_none())
            .into_iter()
            .flat_map(|r| self.fills(r))
            .map(|(field, old)| {
                let (f, call) = (ident(&snake(field)), self.call_cast(head, &variant(old), returns, true)?);
                Ok(quote! {
                    let r = match r {
                        Ok(mut v) if v.#f.is_empty() => {
                            if let Ok(o) = (|| -> Result<#ret, Error> { #call })() {
                                v.#f = o.#f;
                            }
                            Ok(v)
                        }
                        r => r,
                    };
                })
            })
            .collect::<Served<_>>()?;
        let mut tries = quote!();
        let mut last = self.call(head, c, returns)?;
        for (n, old) in older.iter().enumerate() {
            let fills = if n == 0 { &fills[..] } else { &[] };
            tries.extend(quote! {
                let r = (|| -> Result<#ret, Error> { #last })();
                #(#fills)*
                if !matches!(r, Err(Error::ArgumentVersionMismatch)) {
                    return r;
                }
            });
            last = self.call_cast(head, &variant(old), returns, true)?;
        }
        Ok(quote!(#tries #last))
    }

    /// The fields of `record` a `fill_from_older` rule takes from an older layout, with that
    /// layout.
    fn fills<'s>(&'s self, record: &'s str) -> impl Iterator<Item = (&'s str, &'s String)> + 's {
        let older = self.layouts.get(record);
        self.b.fill_from_older.iter().filter_map(move |(key, old)| {
            let field = key.strip_prefix(record)?.strip_prefix('.')?;
            older?.contains(old).then_some((field, old))
        })
    }

    /// The body calling `c`, a member of another shape than the newest: its parameters taken
    /// from the method's (the newest member's record inputs) and its outputs put in that record,
    /// which the method answers as the newest member's call does.
    fn across_call(&self, c: &Call, a: &Across) -> Served<TokenStream> {
        let t = self.names.ty(&a.record);
        let (mut pre, mut args, mut sets, mut whole) = (Vec::new(), Vec::new(), Vec::new(), None);
        for (p, map) in c.params.iter().zip(&a.maps) {
            let local = ident(&format!("c_{}", snake(&p.name)));
            match (map, &p.role) {
                (Maps::SelfHandle, _) => args.push(quote!(self.raw)),
                (Maps::Input(f), Role::In(v)) => {
                    let (x, fi) = (ident(&snake(f)), super::convert::field_ident(f));
                    args.push(self.to_c(v, quote!(#x)));
                    sets.push(quote!(r.#fi = #x;));
                }
                (Maps::Output(f), Role::Out(v)) => {
                    let (ty, init, fi) = (self.raw_ty(v), self.raw_init(v), super::convert::field_ident(f));
                    pre.push(quote!(let mut #local: #ty = #init;));
                    args.push(quote!(&mut #local));
                    sets.push(quote!(r.#fi = #local as _;));
                }
                (Maps::Whole, Role::Out(v @ Val::Record(o))) => {
                    let (ty, init) = (self.raw_ty(v), self.raw_init(v));
                    pre.push(quote!(let mut #local: #ty = #init;));
                    args.push(quote!(&mut #local));
                    whole = Some(self.convert(o, &a.record, self.safe_of(v, quote!(#local))));
                }
                (map, _) => {
                    return Err(unserved(p, &format!("`{}` maps it as {map:?}, which its role cannot take", c.symbol)))
                }
            }
        }
        let base = whole.unwrap_or_else(|| quote!(#t::default()));
        let result = self.inout_result(&a.record, quote!(r));
        let mutable = (!sets.is_empty()).then(|| quote!(mut));
        Ok(quote! {
            #(#pre)*
            ffi::check(call!(sym(#(#args),*)))?;
            let #mutable r: #t = #base;
            #(#sets)*
            Ok(#result)
        })
    }

    /// `&mut local` for an out- or in/out value; an older record layout is cast to the
    /// pointer type the symbol's signature names (the library reads its `version` field).
    fn record_arg(&self, v: &Val, c_ty: &Ty, local: &proc_macro2::Ident, cx: &CallCx) -> TokenStream {
        // The layout the signature names, when the call sends another (a newer one the
        // function accepts "or later", or an older one on a retry).
        let named = match self.b.model.resolve_typedef(c_ty) {
            Ty::Pointer { pointee, .. } => match self.b.model.resolve_typedef(pointee) {
                Ty::Named(n) => Some(n.clone()),
                _ => None,
            },
            _ => None,
        };
        match v {
            Val::Record(r) if cx.cast_records || named.as_deref().is_some_and(|n| n != r) => {
                let t = self.raw_ty(v);
                quote!((&mut #local as *mut #t).cast())
            }
            _ => quote!(&mut #local),
        }
    }

    /// A call through `ffi::fill_counted`: every array of the count allocated with the
    /// capacity the helper asks for, passed to the library, and cut to the count it answered.
    fn counted_call(&self, probe: Probe, counted: &[(proc_macro2::Ident, &Val)], args: &[&TokenStream]) -> TokenStream {
        let locals: Vec<&proc_macro2::Ident> = counted.iter().map(|(l, _)| l).collect();
        let allocs = counted.iter().map(|(l, v)| {
            let (t, init) = (self.raw_ty(v), self.raw_init(v));
            quote!(let mut #l: Vec<#t> = vec![#init; capacity as usize];)
        });
        let sizes: Vec<TokenStream> = counted
            .iter()
            .map(|(_, v)| {
                let t = self.raw_ty(v);
                quote!(core::mem::size_of::<#t>())
            })
            .collect();
        let bytes = sum(&sizes);
        // One array is the value itself, several a tuple.
        let lists = match locals.as_slice() {
            [one] => quote!(#one),
            _ => quote!((#(#locals),*)),
        };
        let probe = probe_tokens(probe);
        quote! {
            let (#lists, n) = ffi::fill_counted(#probe, #bytes, |capacity, count| {
                #(#allocs)*
                let code = call!(sym(#(#args),*));
                (code, #lists)
            })?;
        }
    }

    /// A call through `ffi::fill_in_record`: the record built with its version, the method's
    /// inputs, the capacity and the array the helper allocates; its count read back, and the
    /// outputs beside the list into locals (`out_local`). `list` holds the elements filled.
    /// Where the header declares older layouts of the record, a library that answers
    /// `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` gets each in turn, built from the same capacity,
    /// array and inputs; the first it takes serves the calls that follow.
    fn record_list_call(&self, list: &ListRecord, c: &Call, args: &[&TokenStream]) -> TokenStream {
        let rec = format_ident!("{}", list.record);
        let (count, array) = (ident(&list.count), ident(&list.array));
        let version = list.version.as_ref().map(|v| {
            let v = format_ident!("{v}");
            quote!(version: sys::#v as _,)
        });
        let inputs = list.inputs.iter().map(|(field, v)| {
            let (fi, pn) = (ident(field), ident(&snake(field)));
            let x = self.to_c(v, quote!(#pn));
            // A field named as its argument takes the shorthand.
            match fi == x.to_string() {
                true => quote!(#fi,),
                false => quote!(#fi: #x,),
            }
        });
        // The outputs, and the field that types the elements: zero in, read back after a call.
        let read: Vec<&String> = list.outputs.iter().map(|(f, _)| f).chain(&list.typed_by).collect();
        let zeros = read.iter().map(|f| {
            let f = ident(f);
            quote!(#f: Default::default(),)
        });
        let locals = read.iter().map(|f| {
            let local = out_local(f);
            quote!(let mut #local = Default::default();)
        });
        let mut reads: Vec<TokenStream> = read
            .iter()
            .map(|f| {
                let (local, f) = (out_local(f), ident(f));
                quote!(#local = r.#f;)
            })
            .collect();
        // The in/out fields: the caller's value in every call, the last call's answer kept, and
        // the caller's set to it once the list is fetched.
        let mut sent = Vec::new();
        let mut kept = Vec::new();
        for (f, _) in &list.in_out {
            let (fi, pn, local) = (ident(f), ident(&snake(f)), out_local(f));
            let answer = format_ident!("{local}_answer");
            sent.push(quote!(let #local = crate::raw::ToRaw::to_raw(&*#pn); let mut #answer = #local;));
            reads.push(quote!(#answer = r.#fi;));
            kept.push(quote!(*#pn = crate::raw::FromRaw::from_raw(&#answer);));
        }
        let in_out = list.in_out.iter().map(|(f, _)| {
            let (fi, local) = (ident(f), out_local(f));
            quote!(#fi: #local,)
        });
        // The array as the record types it (`void *` for bytes).
        let (ptr, ptr_ty) = match list.bytes {
            true => (quote!(ptr.cast()), quote!(: *mut u8)),
            false => (quote!(ptr), quote!()),
        };
        let elem = self.raw_ty(&list.elem);
        let count_init = match list.count == "count" {
            true => quote!(count),
            false => quote!(#count: count),
        };
        let call = quote!(call!(sym(#(#args),*)));
        let body = if list.older.is_empty() && reads.is_empty() {
            call
        } else if list.older.is_empty() {
            quote!({
                let code = #call;
                #(#reads)*
                code
            })
        } else {
            let at = c.params.iter().position(|p| matches!(p.role, Role::RecordList(_)));
            let model = &self.b.model;
            let has = |rec: &str, f: &str| model.records.get(rec).is_some_and(|r| r.fields.iter().any(|x| x.name == f));
            let retries = list.older.iter().enumerate().map(|(k, (old, v))| {
                let (old_t, v, k) = (format_ident!("{old}"), format_ident!("{v}"), Literal::usize_unsuffixed(k + 1));
                let fields = model.records.get(old).map(|r| r.fields.as_slice()).unwrap_or_default();
                let init = fields.iter().map(|x| {
                    let f = ident(&x.name);
                    match (x.name.as_str(), has(&list.record, &x.name)) {
                        ("version", _) => quote!(version: sys::#v as _,),
                        (_, true) => quote!(#f: fresh.#f,),
                        (_, false) => quote!(#f: Default::default(),),
                    }
                });
                let back =
                    fields.iter().filter(|x| x.name == list.count || read.iter().any(|f| **f == x.name)).map(|x| {
                        let f = ident(&x.name);
                        quote!(r.#f = o.#f;)
                    });
                let args = args.iter().enumerate().map(|(i, a)| match Some(i) == at {
                    true => quote!(older),
                    false => quote!(#a),
                });
                quote! {
                    if layout <= #k && code == sys::NVML_ERROR_ARGUMENT_VERSION_MISMATCH {
                        layout = #k;
                        let mut o = sys::#old_t { #(#init)* };
                        let older = (&mut o as *mut sys::#old_t).cast();
                        code = call!(sym(#(#args),*));
                        #(#back)*
                    }
                }
            });
            quote!({
                // The record as made, before the library writes into it: what an older layout
                // is built from.
                let fresh = *r;
                let mut code = sys::NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
                if layout == 0 {
                    code = #call;
                }
                // A driver that predates the layout: the older layouts the header declares.
                #(#retries)*
                #(#reads)*
                code
            })
        };
        let layout = (!list.older.is_empty()).then(|| quote!(let mut layout = 0;));
        quote! {
            #layout
            #(#locals)*
            #(#sent)*
            let list: Vec<#elem> = ffi::fill_in_record(
                |count, ptr #ptr_ty| sys::#rec { #version #(#inputs)* #(#in_out)* #(#zeros)* #count_init, #array: #ptr },
                |r| r.#count,
                |r| #body,
            )?;
            #(#kept)*
        }
    }

    /// `Vec` of safe values from an iterator `it` over C values of type `v` (the head's
    /// `hv`), dropping entries equal to the `unused` constant.
    fn collect(&self, v: &Val, hv: &Val, unused: Option<&str>, it: TokenStream) -> TokenStream {
        let element = quote!((*e));
        let out = self.output(v, hv, element.clone());
        let keep = unused.map(|c| {
            let c = format_ident!("{c}");
            quote!(.filter(|e| **e != sys::#c as _))
        });
        // An element that is its own safe value is copied.
        let each = match out.to_string() == element.to_string() {
            true => quote!(.copied()),
            false => quote!(.map(|e| #out)),
        };
        quote!(#it #keep #each.collect::<Vec<_>>())
    }

    /// A C input from safe `x`: of `v`'s type, converting from the head's record type `hv`.
    fn input(&self, v: &Val, hv: &Val, x: TokenStream) -> TokenStream {
        match (v, hv) {
            (Val::Record(o), Val::Record(n)) if o != n => self.to_c(v, self.convert(n, o, x)),
            _ => self.to_c(v, x),
        }
    }

    /// A safe output of the head's type `hv` from C value `x` of type `v`.
    fn output(&self, v: &Val, hv: &Val, x: TokenStream) -> TokenStream {
        let safe = self.safe_of(v, x);
        match (v, hv) {
            (Val::Record(o), Val::Record(n)) if o != n => self.convert(o, n, safe),
            _ => safe,
        }
    }
}

/// A result struct `name` (its `attrs` before it: former names, docs, derives) with `fields`,
/// and its `Serialize` of the `n_ser` fields `ser` writes.
fn serialized_struct(
    name: &str,
    attrs: TokenStream,
    fields: Vec<TokenStream>,
    ser: Vec<TokenStream>,
    n_ser: Literal,
) -> TokenStream {
    let ty = format_ident!("{name}");
    quote! {
        #attrs
        pub struct #ty { #(#fields,)* }

        #[cfg(feature = "serde")]
        impl serde::Serialize for #ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                let mut st = s.serialize_struct(#name, #n_ser)?;
                #(#ser)*
                st.end()
            }
        }
    }
}

/// The list inside a record that `c` fills, if it has one.
fn list_in(c: &Call) -> Option<&ListRecord> {
    c.params.iter().find_map(|p| match &p.role {
        Role::RecordList(l) => Some(l),
        _ => None,
    })
}

/// A record field's comment without the direction it opens with (`IN:`, `OUT:`, `[in,out]`).
fn without_cue(text: &str) -> String {
    let mut t = text.trim_start();
    for cue in ["IN/OUT:", "IN:", "OUT:", "[in,out]", "[in]", "[out]", "[IN/OUT]", "[IN]", "[OUT]"] {
        if let Some(rest) = t.strip_prefix(cue) {
            t = rest.trim_start();
            break;
        }
    }
    t.to_string()
}

/// The local that holds output field `field` of a list's record, read back after a call.
fn out_local(field: &str) -> proc_macro2::Ident {
    ident(&format!("c_{}", snake(field)))
}

/// `a + b + ...`, or `0` for no term.
fn sum(terms: &[TokenStream]) -> TokenStream {
    if terms.is_empty() {
        quote!(0)
    } else {
        quote!(#(#terms)+*)
    }
}

/// The name of the method that counts the list method `m` fetches (see
/// `Gen::count_method`), when it has one: one count with a size query, one output, arguments
/// by value only, and a name no method of its owner (`taken`) has.
/// A method under a name a published release gave it (`former_methods`): deprecated, it calls
/// the method by its current name.
fn former_method(
    old: &str,
    current: &str,
    receiver: &TokenStream,
    args: &[TokenStream],
    arg_names: &[proc_macro2::Ident],
    ret: &TokenStream,
) -> TokenStream {
    let doc = doc::lines(&format!("The former name of [`Self::{current}`], which it calls."));
    let note = format!("renamed `{current}`");
    let (old, current) = (ident(old), ident(current));
    quote! {
        #doc
        #[deprecated(note = #note)]
        #[inline]
        pub fn #old(#receiver, #(#args),*) -> Result<#ret, Error> {
            self.#current(#(#arg_names),*)
        }
    }
}

/// `ffi::Probe` of the safe crate for a plan's probe.
fn probe_tokens(probe: Probe) -> TokenStream {
    match probe {
        Probe::Null => quote!(ffi::Probe::Null),
        Probe::NullSizeError => quote!(ffi::Probe::NullSizeError),
        Probe::Capacity(n) => {
            let n = Literal::u32_unsuffixed(n.min(u32::MAX as u64) as u32);
            quote!(ffi::Probe::Capacity(#n))
        }
    }
}

pub fn count_method_name(
    m: &Method,
    io: &BTreeMap<String, RecordIo>,
    taken: &std::collections::BTreeSet<&str>,
) -> Option<String> {
    let head = &m.calls[0];
    let counts = head
        .params
        .iter()
        .filter(|p| matches!(p.role, Role::Count { probe: Probe::Null | Probe::NullSizeError }))
        .count();
    let arrays = head.params.iter().any(|p| matches!(p.role, Role::Array { .. }));
    let by_value = args(head, io).iter().all(|(_, a)| matches!(a, Arg::Value(_) | Arg::Handle(_)));
    let same_shape = m.calls.iter().all(|c| c.params.len() == head.params.len());
    if counts != 1 || head.outputs().count() != 1 || !arrays || !by_value || !same_shape {
        return None;
    }
    let name = count_name(&m.name);
    (!taken.contains(name.as_str())).then_some(name)
}

/// The name of the method that counts what method `list` fetches: its last word singular
/// and `_count` after it (`running_compute_processes` → `running_compute_process_count`).
fn count_name(list: &str) -> String {
    let (init, last) = list.rsplit_once('_').map_or(("", list), |(i, l)| (i, l));
    let singular = if let Some(stem) = last.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) =
        last.strip_suffix("sses").or_else(|| last.strip_suffix("ches")).or_else(|| last.strip_suffix("shes"))
    {
        format!("{stem}{}", &last[stem.len()..last.len() - 2])
    } else if let Some(stem) = last.strip_suffix("es").filter(|s| s.ends_with("ss") || s.ends_with('x')) {
        stem.to_string()
    } else if let Some(stem) = last.strip_suffix('s').filter(|s| !s.ends_with('s')) {
        stem.to_string()
    } else {
        last.to_string()
    };
    if init.is_empty() {
        format!("{singular}_count")
    } else {
        format!("{init}_{singular}_count")
    }
}

/// A parameter of a generated method.
pub enum Arg<'a> {
    /// `&Handle<'_>`, by handle typedef.
    Handle(&'a str),
    /// By value.
    Value(&'a Val),
    /// By value, `None` for the value the header says stands for none.
    Optional(&'a Val),
    /// By reference.
    Ref(&'a Val),
    /// `&str`.
    Str,
    /// `&[T]`.
    Slice(&'a Val),
    /// The number of elements to fetch, `u32`.
    Len,
    /// An input field of an in/out record, as its safe record types it.
    Field { record: &'a str, field: &'a str },
    /// An in/out field of a list's record, by `&mut` of the hand-written type its
    /// `field_types` rule names.
    Mut(&'a str),
}

/// The Rust parameters of a method whose chain is headed by `head`, with their C names (an
/// in/out record's input fields by field name).
pub fn args<'a>(head: &'a Call, io: &'a BTreeMap<String, RecordIo>) -> Vec<(&'a str, Arg<'a>)> {
    let sized_input = head.params.iter().any(|p| matches!(p.role, Role::SizedArray { input: true, .. }));
    head.params
        .iter()
        .flat_map(|p| -> Vec<(&'a str, Arg<'a>)> {
            // A list's record: the fields the caller sets.
            if let Role::RecordList(l) = &p.role {
                return l
                    .inputs
                    .iter()
                    .map(|(f, v)| match v {
                        Val::Handle(h) => (f.as_str(), Arg::Handle(h)),
                        v => (f.as_str(), Arg::Value(v)),
                    })
                    .chain(l.in_out.iter().map(|(f, t)| (f.as_str(), Arg::Mut(t.as_str()))))
                    .collect();
            }
            if let Role::InOut(Val::Record(r)) = &p.role {
                if let Some(io) = io.get(r) {
                    return io
                        .inputs
                        .iter()
                        .map(|f| (f.as_str(), Arg::Field { record: r.as_str(), field: f.as_str() }))
                        .collect();
                }
            }
            let arg = match &p.role {
                Role::In(v) if p.none.is_some() => Arg::Optional(v),
                Role::In(Val::Handle(h)) | Role::InPtr(Val::Handle(h)) => Arg::Handle(h),
                Role::In(v) | Role::InPtr(v @ (Val::Scalar(_) | Val::Enum(_) | Val::Flags(..) | Val::Bool(_))) => {
                    Arg::Value(v)
                }
                Role::InPtr(v) | Role::InOut(v) => Arg::Ref(v),
                Role::InStr => Arg::Str,
                Role::SizedLen { capacity: None, .. } if !sized_input => Arg::Len,
                Role::SizedArray { val, input: true, .. } => Arg::Slice(val),
                _ => return Vec::new(),
            };
            vec![(p.name.as_str(), arg)]
        })
        .collect()
}
