//! `crates/nvml-mock/src/generated/capture/`: the readers `nvml-mock capture` records a GPU
//! with. For every function the mock answers from a profile's values ([`super::answers`]),
//! a reader calls the function through a real library (`nvml_sys::NvmlLib`) with the
//! selector values it is given and reads its outputs back into the values a profile gives
//! it: the inverse of the answer, so that what a capture records, the mock writes back
//! through the caller's pointers byte for byte.
//!
//! Each reader follows the header's protocols as the answer does: a versioned record is
//! asked for in its newest layout, then in each older one the driver may know (a refused
//! version is noted in the reading context), a list by its size probe and then its fill, a
//! string with a buffer of the documented size. In the context's `Null` and `WrongVersion`
//! modes it makes the call with its first output NULL, or with version 0 in its versioned
//! record, and reports the code: how the driver orders its argument checks.
//!
//! Only functions that read are here: the same readings as the answers (`is_query`), so a
//! capture never calls a setter.

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::answers::{data_functions, field_ty, layouts, newest_field, same_fields, value_types};
use super::answers::{Object, Out, Reading, StrLen, VTy};
use crate::diag::Diagnostics;
use crate::emit::{c_ty, ident, Allow, ByArea, Uses};
use crate::model::{Model, RecordKind, Ty};
use crate::plan::visit::{visit_all, RoleVisitor, Served};
use crate::plan::{ListRecord, ParamPlan, Plan, Probe, Val};
use crate::rules::Bindings;

/// The buffer given to a string whose length the caller passes (by value or by pointer).
const STRING_BUFFER: u64 = 4096;

/// `capture/`: a reader per function answered from data, the readers of the records their
/// values are made of, and `mod.rs`'s table of the readers by name.
/// A function answered from data that no reader reads is a note in `d`.
pub fn readers(b: &Bindings, plan: &Plan, d: &mut Diagnostics) -> (ByArea, TokenStream) {
    let m = &b.model;
    let functions: Vec<Reading> = data_functions(b, plan).into_iter().filter(|r| reads_only(&r.f.name)).collect();
    let (records, _) = value_types(b, &functions);
    let mut out = ByArea::default();
    let mut table = BTreeMap::new();
    let mut olders = BTreeMap::new();
    for r in &functions {
        let area = b.area(&r.f.name, r.f.line);
        let reader = match reader(b, r) {
            Ok(reader) => reader,
            Err(why) => {
                d.note(&r.f.name, format!("answered from a profile's values, but capture does not record it: {why}"));
                continue;
            }
        };
        table.insert(r.f.name.clone(), ident(&area.module));
        out.push(area, reader);
        for o in &r.outs {
            if let Out::Value { ty: VTy::Record(newest), version: Some(_), .. } = o {
                for (old, _) in layouts(b, newest).into_iter().skip(1) {
                    olders.insert(old, newest.clone());
                }
            }
        }
    }
    for r in &records {
        out.push(b.type_area(r), record_reader(m, b, r));
    }
    let mut same_named = std::collections::BTreeSet::new();
    for (old, newest) in &olders {
        if !same_fields(m, b, old, newest) {
            out.push(b.type_area(old), older_reader(m, b, old, newest));
        } else if !records.contains(old) && same_named.insert(old.clone()) {
            out.push(b.type_area(old), record_reader(m, b, old));
        }
    }
    let rows = table.iter().map(|(f, module)| {
        let name = ident(f);
        quote!((#f, #module::#name as Reader))
    });
    let count = Literal::usize_unsuffixed(table.len());
    let facts = quote! {
        use super::super::reading::Reader;

        /// `(function, reader)` for every function a capture reads through a library, sorted
        /// by name.
        pub static READERS: [(&str, Reader); #count] = [#(#rows),*];
    };
    (out, facts)
}

/// What every file of `capture/` starts with.
pub fn prelude(uses: &Uses, _: bool) -> TokenStream {
    let c = uses.c_types();
    let sys = uses.glob(quote!(nvml_sys), uses.nvml_sys());
    let null = uses.import(quote!(core::ptr), &["null_mut"]);
    let map = uses.import(quote!(std::collections), &["BTreeMap"]);
    let others = uses.glob(quote!(super), uses.elsewhere());
    let answer = uses.import(quote!(super::super::super::answer), &["Object", "Val"]);
    let ffi = uses.import(quote!(super::super::super::ffi), &["call", "union_member"]);
    let reading = uses.import(
        quote!(super::super::super::reading),
        &["array_ptr", "c_string", "selector", "trimmed", "without_version", "Cx", "Mode"],
    );
    quote! {
        #c
        #null
        #map
        #sys
        #others
        #answer
        #ffi
        #reading
    }
}

/// What every file of `capture/` allows, and why.
pub const ALLOWS: &[Allow] = &[
    ("clippy::unnecessary_cast", "Values convert with `as` from whatever C type a field has, the same one included."),
    ("deprecated", "A capture reads deprecated functions too: drivers still export and answer them."),
    ("clippy::field_reassign_with_default", "A reader sets the fields a call needs on a zeroed record."),
    ("clippy::too_many_arguments", "A reader passes a function's C parameters, as many as nvml.h gives."),
    ("unused_variables", "A reader declares every selector and output a call may take; a mode leaves some unread."),
];

/// Whether a function's name says it only reads: its first verb (a CamelCase word; `EventSet`
/// and `GpuSet` are nouns) is `Get`, `Query` or `Is`. Anything else (`Lock`, `Set`, `Reset`,
/// `Clear`, `Read` of registers, ...) may change a GPU's state, and a capture never calls it.
fn reads_only(name: &str) -> bool {
    const READ_VERBS: &[&str] = &["Get", "Query", "Is"];
    const OTHER_VERBS: &[&str] = &[
        "Set", "Reset", "Clear", "Create", "Destroy", "Modify", "Freeze", "Validate", "Discover", "Force", "Unload",
        "Activate", "Update", "Write", "Remove", "Register", "Alloc", "Free", "Lock", "Read", "Wait", "Setup",
    ];
    let stem = name.trim_start_matches("nvml").replace("EventSet", "").replace("GpuSet", "");
    let mut words = Vec::new();
    let mut word = String::new();
    for c in stem.chars() {
        if c.is_ascii_uppercase() && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.push(c);
    }
    words.push(word);
    let verb = words.iter().find(|w| READ_VERBS.contains(&w.as_str()) || OTHER_VERBS.contains(&w.as_str()));
    verb.is_some_and(|v| READ_VERBS.contains(&v.as_str()))
}

fn reader_name(r: &str) -> proc_macro2::Ident {
    ident(&format!("read_{r}"))
}

fn older_reader_name(old: &str, newest: &str) -> proc_macro2::Ident {
    ident(&format!("read_{old}_as_{newest}"))
}

/// The reader of one function, or why it cannot read its shape (two lists, a role it does not
/// take).
fn reader(b: &Bindings, r: &Reading) -> Result<TokenStream, String> {
    let m = &b.model;
    let f = r.f;
    let fname = f.name.as_str();
    let name = ident(fname);
    if r.outs.iter().filter(|o| matches!(o, Out::List { .. })).count() > 1 {
        return Err("two lists in one call".into());
    }
    // The handle the call is for.
    let handle = match (r.object, f.params.first()) {
        (Object::System, _) | (_, None) => quote!(let _ = object;),
        (o, Some(p)) => {
            let p = ident(&p.name);
            let variant = match o {
                Object::Device => quote!(Device),
                Object::Unit => quote!(Unit),
                Object::GpuInstance => quote!(GpuInstance),
                Object::ComputeInstance => quote!(ComputeInstance),
                Object::VgpuType => quote!(VgpuType),
                Object::VgpuInstance => quote!(VgpuInstance),
                Object::System => unreachable!(),
            };
            quote!(let Object::#variant(#p) = object else { return Err(NVML_ERROR_INVALID_ARGUMENT) };)
        }
    };
    let reads: Vec<proc_macro2::Ident> = (0..r.outs.len()).map(|i| ident(&format!("v_{i}"))).collect();
    let mut parts = ReaderParts {
        b,
        r,
        name: name.clone(),
        locals: Vec::new(),
        args: Vec::new(),
        selector_index: 0,
        first_value: true,
        list: None,
        retry: quote!(),
    };
    visit_all(&mut parts, r.params)?;
    let ReaderParts { locals, args, list, retry, .. } = parts;
    let call = call_expr(&name, &args);
    // The values, once the call succeeded.
    let values = r.outs.iter().enumerate().map(|(index, o)| {
        let v = ident(&format!("v_{index}"));
        let o_i = ident(&format!("o_{index}"));
        match o {
            Out::Value { ty, rust, version, .. } => {
                let read = read_expr(m, ty, rust, quote!(#o_i));
                let read = if retry.is_empty() {
                    quote!(#read)
                } else {
                    quote!(match value.take() { Some(v) => v, None => #read })
                };
                match (ty, version) {
                    // The version the driver wrote back is kept only where it is not the one set.
                    (VTy::Record(_), Some(c)) => {
                        let c = ident(c);
                        quote!(let #v = without_version(#read, #c as u32);)
                    }
                    _ => quote!(let #v = #read;),
                }
            }
            Out::Str { .. } => quote!(let #v = Val::Str(c_string(&#o_i));),
            Out::List { count, array, ty, rust, .. } => {
                let (c, a) = (ident(count), ident(array));
                let read = read_expr(m, ty, rust, quote!(x));
                quote! {
                    let n = (#c as usize).min(#a.len());
                    let #v = Val::List(#a[..n].iter().map(|x| { let x = *x; #read }).collect());
                }
            }
        }
    });
    let body = match &list {
        Some((count, array)) => quote! {
            let mut tries = 0;
            let code = loop {
                let code = #call;
                let need = #count as usize;
                let grow = code == NVML_ERROR_INSUFFICIENT_SIZE || (code == NVML_SUCCESS && #array.is_empty());
                if !(grow && need > #array.len() && tries < 4 && cx.mode == Mode::Read) {
                    break code;
                }
                tries += 1;
                #array = vec![Default::default(); need];
                #count = need as _;
            };
            // A size probe answered "insufficient size" with nothing to fetch: an empty list.
            let code = if code == NVML_ERROR_INSUFFICIENT_SIZE && #array.is_empty() && #count == 0 {
                NVML_SUCCESS
            } else {
                code
            };
        },
        None if retry.is_empty() => quote!(let code = #call;),
        None => quote! {
            let mut value: Option<Val> = None;
            let mut code = #call;
            #retry
        },
    };
    let doc = format!(" Reads `{fname}` through the library: its values, or the code it answers.");
    Ok(quote! {
        #[doc = #doc]
        pub fn #name(cx: &mut Cx, object: Object, s: &[i64]) -> Result<Vec<Val>, nvmlReturn_t> {
            let f = match cx.lib.#name() {
                Ok(f) => f,
                Err(_) => return Err(NVML_ERROR_FUNCTION_NOT_FOUND),
            };
            #handle
            #(#locals)*
            #body
            if code != NVML_SUCCESS {
                return Err(code);
            }
            #(#values)*
            Ok(vec![#(#reads),*])
        }
    })
}

/// What each parameter of a reader's call contributes: its locals, its argument, and for
/// the count of a list or a versioned record alone, how the call is retried.
struct ReaderParts<'r, 'a> {
    b: &'r Bindings,
    r: &'r Reading<'a>,
    /// The reader's function.
    name: proc_macro2::Ident,
    locals: Vec<TokenStream>,
    args: Vec<TokenStream>,
    /// The next selector value an input by value takes.
    selector_index: usize,
    /// Whether no output has come yet: the first is NULL in the `Null` mode.
    first_value: bool,
    /// The count and array locals of the call's list, if it has one.
    list: Option<(proc_macro2::Ident, proc_macro2::Ident)>,
    /// The calls with older layouts after a refused version.
    retry: TokenStream,
}

/// What a reader does not take: the answers (`answers::data_functions`) leave such functions
/// out before a reader is written.
const NOT_ANSWERED: &str = "not answered from data, so not read back";

impl<'r, 'a> RoleVisitor<'a> for ReaderParts<'r, 'a> {
    type Out = ();

    fn self_handle(&mut self, p: &'a ParamPlan) -> Served<()> {
        let pn = ident(&p.name);
        self.args.push(quote!(#pn));
        Ok(())
    }

    fn self_consumed(&mut self, _: &'a ParamPlan) -> Served<()> {
        Err(NOT_ANSWERED.into())
    }

    fn by_value(&mut self, p: &'a ParamPlan, _: &'a Val) -> Served<()> {
        let pn = ident(&p.name);
        let t = c_ty(&p.ty);
        let k = Literal::usize_unsuffixed(self.selector_index);
        self.selector_index += 1;
        self.locals.push(quote!(let #pn = selector(s, #k) as #t;));
        self.args.push(quote!(#pn));
        Ok(())
    }

    fn in_str(&mut self, _: &'a ParamPlan) -> Served<()> {
        Err(NOT_ANSWERED.into())
    }

    fn in_ptr(&mut self, _: &'a ParamPlan, _: &'a Val) -> Served<()> {
        Err(NOT_ANSWERED.into())
    }

    fn in_out(&mut self, p: &'a ParamPlan, _: &'a Val) -> Served<()> {
        self.value(p)
    }

    fn out(&mut self, p: &'a ParamPlan, _: &'a Val) -> Served<()> {
        self.value(p)
    }

    fn str_buf(&mut self, p: &'a ParamPlan, size: u64) -> Served<()> {
        let index = out_index(self.r, &p.name).ok_or("a string buffer that is no output of the answer")?;
        let Out::Str { len, .. } = &self.r.outs[index] else { return Err("a string buffer answered otherwise".into()) };
        let n = match len {
            StrLen::Fixed(n) => *n,
            _ => STRING_BUFFER.max(size),
        };
        let n = Literal::usize_unsuffixed(n as usize);
        let buf = ident(&format!("o_{index}"));
        self.locals.push(quote!(let mut #buf = vec![0 as c_char; #n];));
        self.args.push(quote!(#buf.as_mut_ptr()));
        Ok(())
    }

    fn str_len(&mut self, p: &'a ParamPlan, by_ptr: bool) -> Served<()> {
        let pn = ident(&p.name);
        let t = c_ty(&p.ty);
        let n = Literal::u64_unsuffixed(STRING_BUFFER);
        if by_ptr {
            let Ty::Pointer { pointee, .. } = self.b.model.resolve_typedef(&p.ty) else {
                return Err("a length by pointer that is no pointer".into());
            };
            let pt = c_ty(pointee);
            self.locals.push(quote!(let mut #pn: #pt = #n as #pt;));
            self.args.push(quote!(&mut #pn));
        } else {
            self.locals.push(quote!(let #pn = #n as #t;));
            self.args.push(quote!(#pn));
        }
        Ok(())
    }

    fn count(&mut self, p: &'a ParamPlan, probe: Probe) -> Served<()> {
        let pn = ident(&p.name);
        let Ty::Pointer { pointee, .. } = self.b.model.resolve_typedef(&p.ty) else {
            return Err("an in/out count that is no pointer".into());
        };
        let pt = c_ty(pointee);
        let (array, elem) = self
            .r
            .outs
            .iter()
            .find_map(|o| match o {
                Out::List { count, array, rust, .. } if *count == p.name => Some((array.clone(), rust.clone())),
                _ => None,
            })
            .ok_or("a count of no list the answer writes")?;
        let start = match probe {
            Probe::Capacity(n) => n,
            _ => 0,
        };
        let (a, et) = (ident(&array), c_ty(&elem));
        let items = if start == 0 {
            quote!(Vec::new())
        } else {
            let n = Literal::usize_unsuffixed(start as usize);
            quote!(vec![Default::default(); #n])
        };
        let start = Literal::usize_unsuffixed(start as usize);
        self.locals.push(quote! {
            let mut #pn: #pt = #start as #pt;
            let mut #a: Vec<#et> = #items;
        });
        self.args.push(quote!(&mut #pn));
        self.list = Some((pn, a));
        Ok(())
    }

    fn array(&mut self, p: &'a ParamPlan, _: &'a Val, _: Option<&'a str>) -> Served<()> {
        let a = ident(&p.name);
        self.args.push(quote!(array_ptr(&mut #a)));
        Ok(())
    }

    fn capped_count(&mut self, _: &'a ParamPlan) -> Served<()> {
        Err(NOT_ANSWERED.into())
    }

    fn capped(&mut self, _: &'a ParamPlan, _: &'a Val, _: u64) -> Served<()> {
        Err(NOT_ANSWERED.into())
    }

    fn sized_len(&mut self, _: &'a ParamPlan, _: bool, _: Option<u64>) -> Served<()> {
        Err(NOT_ANSWERED.into())
    }

    fn sized_array(&mut self, _: &'a ParamPlan, _: &'a Val, _: bool, _: Option<&'a str>) -> Served<()> {
        Err(NOT_ANSWERED.into())
    }

    fn record_list(&mut self, _: &'a ParamPlan, _: &'a ListRecord) -> Served<()> {
        Err(NOT_ANSWERED.into())
    }
}

impl ReaderParts<'_, '_> {
    /// An out- or in/out value: a local of the layout read, its version and input fields set.
    fn value(&mut self, p: &ParamPlan) -> Served<()> {
        let (b, r) = (self.b, self.r);
        let m = &b.model;
        let single = r.outs.len() == 1;
        let index = out_index(r, &p.name).ok_or("a value that is no output of the answer")?;
        let Out::Value { ty, rust, version, .. } = &r.outs[index] else {
            return Err("a value answered otherwise".into());
        };
        let o = ident(&format!("o_{index}"));
        let rt = c_ty(rust);
        // The local is of the layout read: the newest of the family where the
        // parameter's type is an older one (the header's `..._v2_t *info` of a function
        // that takes v3 too), passed through a cast.
        let (local, at) = match ty {
            VTy::Record(rec) if !matches!(m.resolve_typedef(rust), Ty::Named(n) if n == rec) => {
                let rec = ident(rec);
                (quote!(#rec), quote!(&mut #o as *mut #rec as *mut #rt))
            }
            _ => (rt.clone(), quote!(&mut #o)),
        };
        let ptr = ident(&format!("p_{index}"));
        let set_version = match (ty, version) {
            (VTy::Record(_), Some(v)) => {
                let v = ident(v);
                quote!(#o.version = if cx.mode == Mode::WrongVersion { 0 } else { #v as _ };)
            }
            _ => quote!(),
        };
        let null = self.first_value;
        self.first_value = false;
        // The record's input fields: the selector values after the inputs by value.
        let n_params = r.selectors.len() - r.record_inputs.len();
        let set_inputs =
            r.record_inputs.iter().enumerate().filter(|(_, (param, _))| *param == p.name).map(|(k, (_, field))| {
                let (fi, k) = (ident(field), Literal::usize_unsuffixed(n_params + k));
                quote!(#o.#fi = selector(s, #k) as _;)
            });
        let set_inputs: Vec<TokenStream> = set_inputs.collect();
        // The first output is NULL in the `Null` mode.
        let null_or = if null { quote!(if cx.mode == Mode::Null { null_mut() } else { #at }) } else { at };
        self.locals.push(quote! {
            let mut #o: #local = Default::default();
            #(#set_inputs)*
            #set_version
            let #ptr: *mut #rt = #null_or;
        });
        self.args.push(quote!(#ptr));
        // A versioned record alone: older layouts after a refused version.
        let older = match ty {
            VTy::Record(newest) if version.is_some() && single => layouts(b, newest),
            _ => Vec::new(),
        };
        if older.len() > 1 {
            let name = &self.name;
            let args = &self.args;
            let steps = older.iter().skip(1).map(|(old, c)| {
                let (ot, cv, oi) = (ident(old), ident(c), ident("older"));
                let convert = if same_fields(m, b, old, newest_of(ty)) {
                    reader_name(old)
                } else {
                    older_reader_name(old, newest_of(ty))
                };
                let call = call_expr(name, &args_with(args, &ptr, quote!(&mut #oi as *mut #ot as *mut #rt)));
                quote! {
                    if code == NVML_ERROR_ARGUMENT_VERSION_MISMATCH && cx.mode == Mode::Read {
                        let mut #oi: #ot = Default::default();
                        #oi.version = #cv as _;
                        code = #call;
                        if code == NVML_SUCCESS {
                            value = Some(#convert(&#oi));
                        } else if code == NVML_ERROR_ARGUMENT_VERSION_MISMATCH {
                            cx.refused.insert(#c);
                        }
                    }
                }
            });
            let newest_constant = older[0].1.as_str();
            self.retry = quote! {
                if code == NVML_ERROR_ARGUMENT_VERSION_MISMATCH && cx.mode == Mode::Read {
                    cx.refused.insert(#newest_constant);
                }
                #(#steps)*
            };
        }
        Ok(())
    }
}

fn newest_of(t: &VTy) -> &str {
    match t {
        VTy::Record(r) => r,
        _ => "",
    }
}

/// The index in `r.outs` of the output of parameter `param`.
fn out_index(r: &Reading, param: &str) -> Option<usize> {
    r.outs.iter().position(|o| match o {
        Out::Value { param: p, .. } | Out::Str { param: p, .. } => p == param,
        Out::List { array, .. } => array == param,
    })
}

/// `args` with the argument `ptr` replaced by `with`.
fn args_with(args: &[TokenStream], ptr: &proc_macro2::Ident, with: TokenStream) -> Vec<TokenStream> {
    let key = quote!(#ptr).to_string();
    args.iter().map(|a| if a.to_string() == key { with.clone() } else { a.clone() }).collect()
}

fn call_expr(_name: &proc_macro2::Ident, args: &[TokenStream]) -> TokenStream {
    quote!(call!(f(#(#args),*)))
}

/// A value of type `t` (C type `rust`) read from the place `x`.
fn read_expr(m: &Model, t: &VTy, rust: &Ty, x: TokenStream) -> TokenStream {
    match t {
        VTy::Int { .. } | VTy::Enum(_) | VTy::Flags => quote!(Val::Int(#x as i128)),
        VTy::Float => quote!(Val::Float(#x as f64)),
        VTy::Chars(_) => quote!(Val::Str(c_string(&#x))),
        VTy::Array(e, _) => {
            let elem = match m.resolve_typedef(rust) {
                Ty::Array { elem, .. } => (**elem).clone(),
                other => other.clone(),
            };
            let inner = read_expr(m, e, &elem, quote!(y));
            quote!(Val::List(trimmed(#x.iter().map(|y| { let y = *y; #inner }).collect())))
        }
        VTy::Record(r) | VTy::Union(r) => {
            let f = reader_name(r);
            quote!(#f(&#x))
        }
    }
}

/// `read_X(x)`: a record's fields (`version` aside), or a union's widest member, as a value.
fn record_reader(m: &Model, b: &Bindings, r: &str) -> TokenStream {
    let rec = &m.records[r];
    let name = reader_name(r);
    let rt = ident(r);
    let doc = format!(" The value of a `{r}`.");
    if rec.kind == RecordKind::Union {
        // Integers first: a float member would turn some bit patterns (NaN) into values that
        // do not compare or write back as the same bytes.
        let mut order: Vec<(usize, &crate::model::Field)> = rec.fields.iter().enumerate().collect();
        order.sort_by_key(|(_, f)| matches!(m.resolve_typedef(&f.ty), Ty::Float | Ty::Double));
        let members: Vec<TokenStream> = order
            .into_iter()
            .filter_map(|(i, f)| {
                let ft = field_ty(m, b, r, &f.name, &f.ty)?;
                let fname = ident(&f.name);
                let member_ty = c_ty(&f.ty);
                let read = read_expr(m, &ft, &f.ty, quote!(x));
                let i = Literal::usize_unsuffixed(i);
                Some(quote! {
                    if core::mem::size_of::<#member_ty>() == core::mem::size_of::<#rt>() {
                        let x = union_member!(u, #fname);
                        return Val::Member(#i, Box::new(#read));
                    }
                })
            })
            .collect();
        return quote! {
            #[doc = #doc]
            #[doc = " A union is read as its first integer member that covers all its bytes (a float one if none does)."]
            pub(crate) fn #name(u: &#rt) -> Val {
                #(#members)*
                Val::Record(BTreeMap::new())
            }
        };
    }
    let sets = rec.fields.iter().filter_map(|f| {
        let ft = field_ty(m, b, r, &f.name, &f.ty)?;
        let (n, fi) = (f.name.as_str(), ident(&f.name));
        let read = read_expr(m, &ft, &f.ty, quote!(x.#fi));
        Some(quote!(out.insert(#n, #read);))
    });
    quote! {
        #[doc = #doc]
        pub(crate) fn #name(x: &#rt) -> Val {
            let mut out = BTreeMap::new();
            #(#sets)*
            Val::Record(out)
        }
    }
}

/// `read_OLD_as_NEWEST(x)`: an older layout's fields under the names of its newest layout.
fn older_reader(m: &Model, b: &Bindings, old: &str, newest: &str) -> TokenStream {
    let name = older_reader_name(old, newest);
    let rt = ident(old);
    let sets = m.records[old].fields.iter().filter(|f| f.name != "version").filter_map(|f| {
        let ft = field_ty(m, b, old, &f.name, &f.ty)?;
        let n = newest_field(m, b, &f.name, &ft, newest)?;
        let fi = ident(&f.name);
        let read = read_expr(m, &ft, &f.ty, quote!(x.#fi));
        Some(quote!(out.insert(#n, #read);))
    });
    let doc = format!(" The value of an older `{old}`, by the field names of `{newest}`.");
    quote! {
        #[doc = #doc]
        pub(crate) fn #name(x: &#rt) -> Val {
            let mut out = BTreeMap::new();
            #(#sets)*
            Val::Record(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::reads_only;

    #[test]
    fn only_getters_are_read() {
        for f in [
            "nvmlDeviceGetName",
            "nvmlGpmQueryDeviceSupport",
            "nvmlDeviceIsMigDeviceHandle",
            "nvmlVgpuTypeGetName",
            "nvmlDeviceWorkloadPowerProfileGetCurrentProfiles",
        ] {
            assert!(reads_only(f), "{f}");
        }
        for f in [
            "nvmlDeviceLockNvlinkRemapTable_v1",
            "nvmlDeviceSetPowerManagementLimit",
            "nvmlDeviceReadPRMCounters_v1",
            "nvmlDeviceReadWritePRM_v1",
            "nvmlDeviceResetGpuLockedClocks",
            "nvmlDevicePowerSmoothingSetState",
            "nvmlDeviceWorkloadPowerProfileClearRequestedProfiles",
            "nvmlEventSetWait_v2",
            "nvmlDeviceClearAccountingPids",
        ] {
            assert!(!reads_only(f), "{f}");
        }
    }
}
