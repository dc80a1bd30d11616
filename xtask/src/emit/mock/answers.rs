//! The mock's data layer: every getter whose outputs are plain values, records, strings or
//! lists, and that the engine does not implement by hand (`gen-config/mock.yaml`), answers
//! from the profile through code written here.
//!
//! For each such function
//! - `generated/tables.rs` ([`tables`]) has a schema entry (`FUNCTIONS`): the object it is
//!   called on, its selectors (inputs by value, which index the profile's values), and its
//!   outputs by the header's parameter names, with their types; the mock's profile loader
//!   checks a profile against it (a misspelt function, parameter, field or constant is a load
//!   error naming the key). The same file lists the records and enums of those values, the
//!   functions that need privilege or an architecture, and the hand-written functions;
//! - `generated/answers.rs` ([`answers`]) has the answer itself: the function checks its
//!   out-pointers, asks the engine for the profile's values (`Answer::answer`) and writes them
//!   through the pointers with NVML's protocols (a record's version, a string's length, a
//!   list's two calls).
//!
//! The `Api` trait's default method of such a function calls its answer; no hand-written
//! function has one.
//!
//! What each parameter is for comes from the plan ([`readings`], the one place this module
//! reads it).

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::emit::{c_ty, ident};
use crate::emit::{Allow, ByArea, Uses};
use crate::model::{Function, Model, RecordKind, Ty};
use crate::plan::visit::{visit_all, RoleVisitor, Served};
use crate::plan::{ListRecord, ParamPlan, Plan, Probe, Role, Val};
use crate::rules::areas::Area;
use crate::rules::Bindings;

/// The object a function is called on: its first parameter's handle type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Object {
    System,
    Device,
    Unit,
    GpuInstance,
    ComputeInstance,
    VgpuType,
    VgpuInstance,
}

impl Object {
    fn of(typedef: &str) -> Option<Object> {
        Some(match typedef {
            "nvmlDevice_t" => Object::Device,
            "nvmlUnit_t" => Object::Unit,
            "nvmlGpuInstance_t" => Object::GpuInstance,
            "nvmlComputeInstance_t" => Object::ComputeInstance,
            "nvmlVgpuTypeId_t" => Object::VgpuType,
            "nvmlVgpuInstance_t" => Object::VgpuInstance,
            _ => return None,
        })
    }

    fn kind(self) -> TokenStream {
        match self {
            Object::System => quote!(ObjectKind::System),
            Object::Device => quote!(ObjectKind::Device),
            Object::Unit => quote!(ObjectKind::Unit),
            Object::GpuInstance => quote!(ObjectKind::GpuInstance),
            Object::ComputeInstance => quote!(ObjectKind::ComputeInstance),
            Object::VgpuType => quote!(ObjectKind::VgpuType),
            Object::VgpuInstance => quote!(ObjectKind::VgpuInstance),
        }
    }

    /// The `Object` value for the first parameter `p`.
    fn value(self, p: &TokenStream) -> TokenStream {
        match self {
            Object::System => quote!(Object::System),
            Object::Device => quote!(Object::Device(#p)),
            Object::Unit => quote!(Object::Unit(#p)),
            Object::GpuInstance => quote!(Object::GpuInstance(#p)),
            Object::ComputeInstance => quote!(Object::ComputeInstance(#p)),
            Object::VgpuType => quote!(Object::VgpuType(#p)),
            Object::VgpuInstance => quote!(Object::VgpuInstance(#p)),
        }
    }
}

/// A value type as the profile gives it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum VTy {
    /// An integer of `bits` bits.
    Int {
        signed: bool,
        bits: u32,
    },
    Float,
    /// An enum of the header (model name): one of its constants.
    Enum(String),
    /// A bit mask: constants (by name) or a number.
    Flags,
    /// `char[len]`: a string shorter than `len`.
    Chars(u64),
    Array(Box<VTy>, u64),
    Record(String),
    Union(String),
}

/// An output parameter.
#[derive(Debug, Clone)]
pub(super) enum Out {
    /// `T *p`: one value. A record that is also an input (`inout`) keeps the fields the
    /// profile does not give; a versioned one (`version`: its constant) is checked first.
    Value { param: String, ty: VTy, rust: Ty, version: Option<String>, inout: bool },
    /// `char *buf` with its length parameter (by value or by pointer) or a fixed size.
    Str { param: String, len: StrLen },
    /// `unsigned int *count, T *array`: NVML's two-call list.
    /// A count and its array; `null_refused`: the header refuses a NULL array (no size probe).
    /// `probe_ok`: the header describes a NULL array as the size query ("invoked with samples
    /// set to NULL"), which answers `NVML_SUCCESS` and the count.
    List { count: String, array: String, ty: VTy, rust: Ty, null_refused: bool, probe_ok: bool },
}

#[derive(Debug, Clone)]
pub(super) enum StrLen {
    ByValue(String),
    ByPtr(String),
    Fixed(u64),
}

/// How the mock answers one function from data.
#[derive(Debug, Clone)]
pub(super) struct Reading<'a> {
    pub(super) f: &'a Function,
    pub(super) object: Object,
    /// Inputs by value after the object: `(name, type)`.
    pub(super) selectors: Vec<(String, VTy)>,
    pub(super) outs: Vec<Out>,
    /// The plan's reading of every parameter, in order.
    pub(super) params: &'a [ParamPlan],
    /// The input fields of its in/out records that select the answer (`type` and `pstate` of
    /// `nvmlDeviceGetClockOffsets`' record): `(parameter, field)`, each also in `selectors`
    /// (after the inputs by value).
    pub(super) record_inputs: Vec<(String, String)>,
    /// Written by hand in the engine (`gen-config/mock.yaml`): answered from data only where
    /// a profile records its values.
    pub(super) hand: bool,
}

/// The readings of the functions a generated method of the safe crate calls (legacy symbols
/// included), confirmed by the header's text, by symbol: the one place this module reads the
/// plan. A function wrapped by hand is not answered from data: its reading is not the one
/// clients follow.
fn readings(plan: &Plan) -> BTreeMap<&str, &[ParamPlan]> {
    let mut out = BTreeMap::new();
    for m in &plan.methods {
        for c in m.calls.iter().filter(|c| c.doubts.is_empty()) {
            out.insert(c.symbol.as_str(), c.params.as_slice());
        }
    }
    out
}

/// Every function the mock can answer from data, in name order.
pub(super) fn data_functions<'a>(b: &'a Bindings, plan: &'a Plan) -> Vec<Reading<'a>> {
    data_functions_and_why_not(b, plan).0
}

/// [`data_functions`], and the queries a generated method follows that are not among them,
/// each with the parameter whose role the answers cannot serve.
pub(super) fn data_functions_and_why_not<'a>(
    b: &'a Bindings,
    plan: &'a Plan,
) -> (Vec<Reading<'a>>, Vec<(String, String)>) {
    let plans = readings(plan);
    let mut out = Vec::new();
    let mut why_not = Vec::new();
    for f in b.model.functions.values() {
        let Some(params) = plans.get(f.name.as_str()) else { continue };
        // A function the engine implements by hand (`gen-config/mock.yaml`) answers from data
        // only where a profile records its values.
        let hand = b.hand_written.contains_key(&f.name);
        if !is_query(&f.name) {
            continue;
        }
        let mut r = Answerable {
            b,
            plan,
            f,
            params,
            object: Object::System,
            selectors: Vec::new(),
            outs: Vec::new(),
            record_inputs: Vec::new(),
        };
        if let Err(why) = visit_all(&mut r, params) {
            why_not.push((f.name.clone(), why));
            continue;
        }
        let Answerable { object, mut selectors, outs, record_inputs, .. } = r;
        if outs.is_empty() {
            continue;
        }
        selectors.extend(record_inputs.iter().map(|(_, field, t)| (field.clone(), t.clone())));
        let record_inputs = record_inputs.into_iter().map(|(p, field, _)| (p, field)).collect();
        out.push(Reading { f, object, selectors, outs, params, hand, record_inputs });
    }
    (out, why_not)
}

/// A function's reading as the answers take it, parameter by parameter.
struct Answerable<'a> {
    b: &'a Bindings,
    plan: &'a Plan,
    f: &'a Function,
    params: &'a [ParamPlan],
    object: Object,
    selectors: Vec<(String, VTy)>,
    outs: Vec<Out>,
    /// `(parameter, field, type)` of the in/out records' input fields.
    record_inputs: Vec<(String, String, VTy)>,
}

/// What the answers cannot take: a parameter the mock cannot fill from a profile's values.
const NO_VALUES: &str = "the mock has no profile value for it";

impl<'a> RoleVisitor<'a> for Answerable<'a> {
    type Out = ();

    fn self_handle(&mut self, p: &'a ParamPlan) -> Served<()> {
        let Ty::Named(n) = &p.ty else { return Err("a handle the mock does not know by its type".into()) };
        self.object = Object::of(n).ok_or_else(|| format!("`{n}` is no object the mock answers for"))?;
        Ok(())
    }

    fn self_consumed(&mut self, _: &'a ParamPlan) -> Served<()> {
        Err("a handle the call frees or destroys: no query".into())
    }

    fn by_value(&mut self, p: &'a ParamPlan, v: &'a Val) -> Served<()> {
        let t = selector_ty(self.b, v).ok_or("a selector of a type no profile keys values by")?;
        self.selectors.push((p.name.clone(), t));
        Ok(())
    }

    fn in_str(&mut self, _: &'a ParamPlan) -> Served<()> {
        Err("a string selector, which profiles do not key values by".into())
    }

    fn in_ptr(&mut self, _: &'a ParamPlan, _: &'a Val) -> Served<()> {
        Err("an input by pointer, which profiles do not key values by".into())
    }

    fn in_out(&mut self, p: &'a ParamPlan, v: &'a Val) -> Served<()> {
        let Val::Record(r) = v else { return Err("an in/out value that is no record".into()) };
        self.record_inputs.extend(inputs_of(self.b, self.plan, r).into_iter().map(|(f, t)| (p.name.clone(), f, t)));
        self.value(p, v, true)
    }

    fn out(&mut self, p: &'a ParamPlan, v: &'a Val) -> Served<()> {
        self.value(p, v, false)
    }

    fn str_buf(&mut self, p: &'a ParamPlan, size: u64) -> Served<()> {
        let len = self.params.iter().find(|q| matches!(q.role, Role::StrLen { .. }));
        let len = match len.map(|q| (&q.role, q.name.clone())) {
            Some((Role::StrLen { by_ptr: true }, n)) => StrLen::ByPtr(n),
            Some((_, n)) => StrLen::ByValue(n),
            None => StrLen::Fixed(size),
        };
        self.outs.push(Out::Str { param: p.name.clone(), len });
        Ok(())
    }

    fn str_len(&mut self, _: &'a ParamPlan, _: bool) -> Served<()> {
        // Written with its buffer (`str_buf`).
        Ok(())
    }

    fn count(&mut self, _: &'a ParamPlan, _: Probe) -> Served<()> {
        // Written with its arrays (`array`).
        Ok(())
    }

    fn array(&mut self, p: &'a ParamPlan, v: &'a Val, unused: Option<&'a str>) -> Served<()> {
        if let Some(u) = unused {
            return Err(format!("an array whose `{u}` entries the method drops, which a profile's list cannot hold"));
        }
        let (b, f) = (self.b, self.f);
        let ty = val_ty(b, v).ok_or(NO_VALUES)?;
        let (count, probe) = self
            .params
            .iter()
            .find_map(|q| match q.role {
                Role::Count { probe } => Some((q, probe)),
                _ => None,
            })
            .ok_or("an array without its count")?;
        let Ty::Pointer { pointee, .. } = b.model.resolve_typedef(&p.ty) else {
            return Err("an array that is no pointer".into());
        };
        // A NULL array the header refuses: one without a size probe, unless the header
        // describes the probe all the same ("invoked with samples set to NULL":
        // nvmlDeviceGetSamples, which driver 580.159.04 answers).
        let doc = f.doc.as_deref().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ");
        let own = f.docs.params.get(&p.name).map(|d| d.text.to_ascii_lowercase()).unwrap_or_default();
        let probe_described =
            [format!("{} set to NULL", p.name), format!("{} can be NULL", p.name)].iter().any(|t| doc.contains(t))
                || own.contains("can be null to discover")
                || f.docs.allows_null.contains(&p.name);
        let null_refused = matches!(probe, Probe::Capacity(_)) && !probe_described;
        self.outs.push(Out::List {
            count: count.name.clone(),
            array: p.name.clone(),
            ty,
            rust: (**pointee).clone(),
            null_refused,
            // A size query that answers success: the header does not say it answers
            // INSUFFICIENT_SIZE at all.
            probe_ok: probe_described && !doc.contains("NVML_ERROR_INSUFFICIENT_SIZE"),
        });
        Ok(())
    }

    fn capped_count(&mut self, _: &'a ParamPlan) -> Served<()> {
        Err("an out-only count, which the answers do not write".into())
    }

    fn capped(&mut self, _: &'a ParamPlan, _: &'a Val, _: u64) -> Served<()> {
        Err("an array of an out-only count, which the answers do not write".into())
    }

    fn sized_len(&mut self, _: &'a ParamPlan, _: bool, _: Option<u64>) -> Served<()> {
        Err("the length of a caller-sized array, which the answers do not write".into())
    }

    fn sized_array(&mut self, _: &'a ParamPlan, _: &'a Val, _: bool, _: Option<&'a str>) -> Served<()> {
        Err("a caller-sized array, which the answers do not write".into())
    }

    fn record_list(&mut self, _: &'a ParamPlan, _: &'a ListRecord) -> Served<()> {
        Err("a list inside a record, which the answers do not write (the engine answers such a function by hand where it models it, see gen-config/mock.yaml)".into())
    }
}

impl Answerable<'_> {
    /// An out- or in/out value (`inout`).
    fn value(&mut self, p: &ParamPlan, v: &Val, inout: bool) -> Served<()> {
        let b = self.b;
        let ty = val_ty(b, v).ok_or(NO_VALUES)?;
        let Ty::Pointer { pointee, .. } = b.model.resolve_typedef(&p.ty) else {
            return Err("an output that is no pointer".into());
        };
        let version = match v {
            Val::Record(r) => b.struct_versions.get(r).cloned(),
            _ => None,
        };
        self.outs.push(Out::Value { param: p.name.clone(), ty, rust: (**pointee).clone(), version, inout });
        Ok(())
    }
}

/// The input fields of an in/out record that select an answer: those the plan reads as inputs
/// (`inputs` rules, the fields' comments) whose type is an integer, an enum or flags.
pub(super) fn inputs_of(b: &Bindings, plan: &Plan, record: &str) -> Vec<(String, VTy)> {
    let m = &b.model;
    let Some(io) = plan.record_io.get(record) else { return Vec::new() };
    io.inputs
        .iter()
        .filter_map(|name| {
            let f = m.records.get(record)?.fields.iter().find(|f| f.name == *name)?;
            match field_ty(m, b, record, name, &f.ty)? {
                t @ (VTy::Int { .. } | VTy::Enum(_) | VTy::Flags) => Some((name.clone(), t)),
                _ => None,
            }
        })
        .collect()
}

/// The selector values of a call, as `i64`s: its inputs by value, then the input fields of its
/// in/out records (read from the caller's record; 0 for a NULL one).
pub(super) fn selector_exprs(b: &Bindings, plan: &Plan, f: &Function) -> Vec<TokenStream> {
    let Some(Ok(call)) = plan.functions.get(&f.name) else { return Vec::new() };
    let mut out: Vec<TokenStream> = call
        .params
        .iter()
        .filter(|p| matches!(p.role, Role::In(_)))
        .map(|p| {
            let p = ident(&p.name);
            quote!(#p as i64)
        })
        .collect();
    for p in &call.params {
        if let Role::InOut(Val::Record(r)) = &p.role {
            let pn = ident(&p.name);
            for (field, _) in inputs_of(b, plan, r) {
                let fi = ident(&field);
                out.push(quote!(crate::ffi::get(#pn).map_or(0, |r| r.#fi as i64)));
            }
        }
    }
    out
}

/// The function a deprecated one's documentation names as its replacement
/// (`@deprecated Use \ref nvmlX instead`).
fn replacement(f: &Function) -> Option<String> {
    let doc = f.doc.as_deref()?;
    let after = &doc[doc.find("@deprecated")?..];
    let line = after.lines().next()?;
    let i = line.find("Use \\ref ")? + "Use \\ref ".len();
    let name: String = line[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    name.starts_with("nvml").then_some(name)
}

/// The oldest architecture nvml.h says a function supports ("For Hopper &tm; or newer fully
/// supported devices"): its name and `NVML_DEVICE_ARCH_*` value. Architectures older than
/// the header's constants (Fermi) say nothing.
fn min_architecture(m: &Model, f: &Function) -> Option<(String, u32)> {
    let doc = f.doc.as_deref()?;
    let i = doc.find("For ")?;
    let rest = &doc[i + 4..];
    let word: String = rest.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    let after = rest[word.len()..].trim_start().trim_start_matches("&tm;").trim_start();
    if !(after.starts_with("or newer") || after.starts_with("and newer")) {
        return None;
    }
    let constant = format!("NVML_DEVICE_ARCH_{}", word.to_ascii_uppercase());
    match m.constants.get(&constant).map(|c| &c.value) {
        Some(crate::model::ConstValue::Int { value, .. }) => Some((word, value.as_i128() as u32)),
        _ => None,
    }
}

/// Whether nvml.h says a function needs a privileged user: "Requires privileged user.",
/// "Requires root/admin permissions.".
fn needs_privilege(f: &Function) -> bool {
    let doc = f.doc.as_deref().unwrap_or("");
    ["Requires privileged user", "Requires root", "requires root", "Requires admin"].iter().any(|p| doc.contains(p))
}

/// Whether a function only reads: not a setter (`Set`, but not the `Set` of `EventSet`) nor a
/// read-write access.
fn is_query(name: &str) -> bool {
    let stem = name.replace("EventSet", "");
    // `Set` as a word: not the start of `Settings`.
    let setter = stem.match_indices("Set").any(|(i, _)| !stem[i + 3..].starts_with(|c: char| c.is_ascii_lowercase()));
    !(setter || stem.contains("ReadWrite"))
}

fn int_ty(t: &Ty) -> Option<VTy> {
    let (signed, bits) = match t {
        Ty::Bool | Ty::UChar | Ty::Char => (false, 8),
        Ty::SChar => (true, 8),
        Ty::Short => (true, 16),
        Ty::UShort => (false, 16),
        Ty::Int => (true, 32),
        Ty::UInt => (false, 32),
        Ty::Long | Ty::LongLong => (true, 64),
        Ty::ULong | Ty::ULongLong => (false, 64),
        Ty::Float | Ty::Double => return Some(VTy::Float),
        _ => return None,
    };
    Some(VTy::Int { signed, bits })
}

/// A selector's type: an integer, an enum, flags or an id.
fn selector_ty(b: &Bindings, v: &Val) -> Option<VTy> {
    match v {
        Val::Enum(e) | Val::Bool(Ty::Named(e)) => Some(VTy::Enum(e.clone())),
        Val::Scalar(t) | Val::Bool(t) => int_ty(t),
        Val::Flags(..) => Some(VTy::Flags),
        Val::Handle(h) if b.ids.contains_key(h) => Some(VTy::Int { signed: false, bits: 32 }),
        _ => None,
    }
}

fn val_ty(b: &Bindings, v: &Val) -> Option<VTy> {
    let m = &b.model;
    let t = match v {
        Val::Enum(e) | Val::Bool(Ty::Named(e)) => VTy::Enum(e.clone()),
        Val::Scalar(t) | Val::Bool(t) => int_ty(t)?,
        Val::Flags(..) => VTy::Flags,
        Val::Handle(h) if b.ids.contains_key(h) => VTy::Int { signed: false, bits: 32 },
        Val::Record(r) => VTy::Record(r.clone()),
        Val::Raw(r) => VTy::Union(r.clone()),
        _ => return None,
    };
    let mut seen = BTreeSet::new();
    data_type(m, b, &t, &mut seen).then_some(t)
}

/// Whether every field of a record type can be given by a profile (no handles).
fn data_type(m: &Model, b: &Bindings, t: &VTy, seen: &mut BTreeSet<String>) -> bool {
    match t {
        VTy::Record(r) | VTy::Union(r) => {
            if !seen.insert(r.clone()) {
                return true;
            }
            let Some(rec) = m.records.get(r) else { return false };
            rec.fields.iter().all(|f| {
                f.bit_width.is_none() && field_ty(m, b, r, &f.name, &f.ty).is_some_and(|ft| data_type(m, b, &ft, seen))
            })
        }
        VTy::Array(e, _) => data_type(m, b, e, seen),
        _ => true,
    }
}

/// The value type of a record field.
pub(super) fn field_ty(m: &Model, b: &Bindings, record: &str, field: &str, ty: &Ty) -> Option<VTy> {
    if b.flags_of_field(record, field).is_some() {
        return Some(VTy::Flags);
    }
    if let Ty::Named(n) = ty {
        if b.handles.contains_key(n) {
            return None;
        }
        if b.ids.contains_key(n) {
            return Some(VTy::Int { signed: false, bits: 32 });
        }
    }
    match m.resolve_typedef(ty) {
        Ty::Array { elem, len } if matches!(m.resolve_typedef(elem), Ty::Char) => Some(VTy::Chars(*len)),
        Ty::Array { elem, len } => Some(VTy::Array(Box::new(field_ty(m, b, record, field, elem)?), *len)),
        Ty::Named(n) if m.enums.contains_key(n) => Some(VTy::Enum(n.clone())),
        Ty::Named(n) => match m.records.get(n) {
            Some(r) if r.kind == RecordKind::Union => Some(VTy::Union(n.clone())),
            Some(_) => Some(VTy::Record(n.clone())),
            None => None,
        },
        Ty::Pointer { .. } | Ty::FnPtr { .. } | Ty::Void => None,
        t => int_ty(t),
    }
}

/// The records and enums the values of `functions` are made of, by name.
pub(super) fn value_types(b: &Bindings, functions: &[Reading]) -> (BTreeSet<String>, BTreeSet<String>) {
    let m = &b.model;
    let mut records = BTreeSet::new();
    let mut enums = BTreeSet::new();
    for r in functions {
        for (_, t) in &r.selectors {
            collect(m, b, t, &mut records, &mut enums);
        }
        for o in &r.outs {
            match o {
                Out::Value { ty, .. } | Out::List { ty, .. } => collect(m, b, ty, &mut records, &mut enums),
                Out::Str { .. } => {}
            }
        }
    }
    (records, enums)
}

/// `tables.rs`: the schema of the functions answered from data, and the other per-function
/// facts the mock reads (privilege, architecture, hand-written).
/// `tables/`: the schema of each area's functions and records (`FUNCTIONS`, `RECORDS`, sorted by
/// name), and `mod.rs`'s lists of them with the per-function facts.
pub fn tables(b: &Bindings, plan: &Plan) -> (ByArea, TokenStream) {
    let m = &b.model;
    let functions = data_functions(b, plan);
    let (records, enums) = value_types(b, &functions);
    let shapes: BTreeMap<&str, String> = functions.iter().map(|r| (r.f.name.as_str(), shape_key(r))).collect();
    // Read once: the replacement each deprecated function names.
    let replaced: BTreeMap<&str, String> =
        b.model.functions.values().filter_map(|f| Some((f.name.as_str(), replacement(f)?))).collect();
    let mut by_area: BTreeMap<Area, (Vec<TokenStream>, Vec<TokenStream>)> = BTreeMap::new();
    for r in &functions {
        by_area.entry(b.area(&r.f.name, r.f.line)).or_default().0.push(schema_entry(b, r, &shapes, &replaced));
    }
    for r in &records {
        let rec = &m.records[r];
        let union = rec.kind == RecordKind::Union;
        let fields = rec.fields.iter().map(|f| {
            let n = f.name.as_str();
            let t = vty_tokens(&field_ty(m, b, r, n, &f.ty).unwrap_or(VTy::Flags));
            quote!(Field { name: #n, ty: #t })
        });
        by_area
            .entry(b.type_area(r))
            .or_default()
            .1
            .push(quote!(RecordSchema { name: #r, union: #union, fields: &[#(#fields),*] }));
    }
    let mut out = ByArea { private: true, ..ByArea::default() };
    let (mut fn_lists, mut rec_lists) = (Vec::new(), Vec::new());
    for (area, (fns, recs)) in by_area {
        let module = ident(&area.module);
        let (nf, nr) = (fns.len(), recs.len());
        let fns = (nf > 0).then(|| {
            fn_lists.push(quote!(&#module::FUNCTIONS));
            quote! {
                /// The area's functions answered from a profile's values, sorted by name.
                pub static FUNCTIONS: [FunctionSchema; #nf] = [#(#fns),*];
            }
        });
        let recs = (nr > 0).then(|| {
            rec_lists.push(quote!(&#module::RECORDS));
            quote! {
                /// The area's records (and unions) those values are made of, sorted by name.
                pub static RECORDS: [RecordSchema; #nr] = [#(#recs),*];
            }
        });
        out.push(area, quote!(#fns #recs));
    }
    let (fn_areas, rec_areas) = (fn_lists.len(), rec_lists.len());
    let schema_enums = enums.iter().map(|e| {
        let names = m.enums[e].constants.iter().map(|c| c.name.as_str());
        quote!((#e, &[#(#names),*]))
    });
    let enum_count = enums.len();
    let privileged: Vec<&str> = m.functions.values().filter(|f| needs_privilege(f)).map(|f| f.name.as_str()).collect();
    // A member of a versioned family that says nothing has the family's architecture.
    let stated: BTreeMap<&str, (String, u32)> =
        m.functions.values().filter_map(|f| Some((f.name.as_str(), min_architecture(m, f)?))).collect();
    let of_family = |name: &str| {
        let family = b.families.values().find(|symbols| symbols.iter().any(|s| s == name))?;
        family.iter().find_map(|s| stated.get(s.as_str()).cloned())
    };
    let min_arch: Vec<TokenStream> = m
        .functions
        .values()
        .filter(|f| f.params.first().is_some_and(|p| p.ty == Ty::Named("nvmlDevice_t".into())))
        .filter_map(|f| {
            let (arch, value) = stated.get(f.name.as_str()).cloned().or_else(|| of_family(&f.name))?;
            let name = f.name.as_str();
            let value = Literal::u32_unsuffixed(value);
            Some(quote!((#name, #arch, #value)))
        })
        .collect();
    let arch_count = min_arch.len();
    let priv_count = privileged.len();
    let hand: Vec<TokenStream> = b
        .hand_written
        .iter()
        .map(|(f, module)| {
            let file = format!("engine/{module}.rs");
            quote!((#f, #file))
        })
        .collect();
    let hand_count = hand.len();
    // The selectors of the functions written by hand, for their errors by selector value.
    let hand_selectors: Vec<TokenStream> = b
        .hand_written
        .keys()
        .filter_map(|f| {
            let Ok(call) = plan.functions.get(f)? else { return None };
            let mut fields: Vec<TokenStream> = call
                .params
                .iter()
                .filter_map(|p| match &p.role {
                    Role::In(v) => {
                        let t = vty_tokens(&selector_ty(b, v).unwrap_or(VTy::Int { signed: false, bits: 32 }));
                        let n = p.name.as_str();
                        Some(quote!(Field { name: #n, ty: #t }))
                    }
                    _ => None,
                })
                .collect();
            for p in &call.params {
                if let Role::InOut(Val::Record(r)) = &p.role {
                    fields.extend(inputs_of(b, plan, r).into_iter().map(|(n, t)| {
                        let t = vty_tokens(&t);
                        quote!(Field { name: #n, ty: #t })
                    }));
                }
            }
            (!fields.is_empty()).then(|| quote!((#f, &[#(#fields),*])))
        })
        .collect();
    let hand_selector_count = hand_selectors.len();
    // Every function that takes a versioned record, with the layouts a caller may ask for.
    let versioned: Vec<TokenStream> = m
        .functions
        .values()
        .filter_map(|f| {
            let rec = versioned_param(b, f)?.1;
            let accepted = version_family(b, &rec).into_iter().map(|c| {
                let v = ident(&c);
                quote!((#v as u32, #c))
            });
            let name = f.name.as_str();
            Some(quote!((#name, &[#(#accepted),*])))
        })
        .collect();
    let versioned_count = versioned.len();
    let objects: Vec<TokenStream> = m.functions.values().map(|f| object_kind_of(f).kind()).collect();
    let object_count = objects.len();
    let facts = quote! {
        use nvml_sys::*;
        use super::super::schema::{Field, FunctionSchema, ObjectKind, RecordSchema, T};

        /// The kind of object each function is called on (its first parameter), by function
        /// id (`names::id`).
        pub static OBJECTS: [ObjectKind; #object_count] = [#(#objects),*];

        /// Every function the mock answers from a profile's values: each area's list, sorted
        /// by name.
        pub static FUNCTIONS: [&[FunctionSchema]; #fn_areas] = [#(#fn_lists),*];

        /// The records (and unions) those functions' values are made of: each area's list,
        /// sorted by name.
        pub static RECORDS: [&[RecordSchema]; #rec_areas] = [#(#rec_lists),*];

        /// The constants of each enum those values use, sorted by enum name.
        pub static ENUMS: [(&str, &[&str]); #enum_count] = [#(#schema_enums),*];

        /// The functions whose documentation says they need a privileged user (root), sorted.
        pub static PRIVILEGED: [&str; #priv_count] = [#(#privileged),*];

        /// `(function, architecture, NVML_DEVICE_ARCH_*)` for the device functions whose
        /// documentation says "For <architecture> or newer", sorted by function.
        pub static MIN_ARCH: [(&str, &str, u32); #arch_count] = [#(#min_arch),*];

        /// `(function, file)`: the functions the engine implements by hand
        /// (`gen-config/mock.yaml`), sorted by function, with the file that does.
        pub static HAND_WRITTEN: [(&str, &str); #hand_count] = [#(#hand),*];

        /// `(function, selectors)`: the inputs by value of the functions written by hand that
        /// select an answer (a profile may give an error for one of their values), sorted by
        /// function.
        pub static HAND_SELECTORS: [(&str, &[Field]); #hand_selector_count] = [#(#hand_selectors),*];

        /// `(function, [(version, constant)])`: every function that takes a versioned record,
        /// with the versions of that record's layouts a caller may set: the layout of the
        /// function's prototype first, then the others newest first. Sorted by function.
        // The constants are `c_uint` or `c_int`, by the header's spelling.
        pub static VERSIONED: [(&str, &[(u32, &str)]); #versioned_count] = [#(#versioned),*];
    };
    (out, facts)
}

/// What every file of `tables/` starts with.
pub fn tables_prelude(uses: &Uses, _: bool) -> TokenStream {
    uses.import(
        quote!(super::super::super::schema),
        &["Field", "FunctionSchema", "ObjectKind", "Output", "RecordSchema", "Shape", "T"],
    )
}

/// `answers/`: the answer of every function answered from data, and the functions that fill
/// the records of those answers, each in its area.
pub fn answers(b: &Bindings, plan: &Plan) -> ByArea {
    let m = &b.model;
    let functions = data_functions(b, plan);
    let (records, _) = value_types(b, &functions);
    let mut out = ByArea::default();
    let mut conversions = BTreeSet::new();
    for r in &functions {
        out.push(b.area(&r.f.name, r.f.line), writer(b, r));
        for o in &r.outs {
            if let Out::Value { ty: VTy::Record(newest), version: Some(_), .. } = o {
                for (old, _) in layouts(b, newest).into_iter().skip(1) {
                    conversions.insert((old, newest.clone()));
                }
            }
        }
    }
    // An older layout whose fields keep their names is filled by its own fill.
    let (same, renamed): (BTreeSet<_>, BTreeSet<_>) =
        conversions.into_iter().partition(|(old, newest)| same_fields(m, b, old, newest));
    let fills: BTreeSet<String> = records.into_iter().chain(same.into_iter().map(|(old, _)| old)).collect();
    for r in &fills {
        out.push(b.type_area(r), builder(m, b, r));
    }
    for (old, newest) in &renamed {
        out.push(b.type_area(old), older_builder(m, b, old, newest));
    }
    out
}

/// The field of `newest` that holds the value of field `field` (of type `ft`) of an older
/// layout: the one of the same name, or the one that renamed it (`former_names`), with the
/// same type.
pub(super) fn newest_field<'a>(m: &'a Model, b: &Bindings, field: &str, ft: &VTy, newest: &str) -> Option<&'a str> {
    let fields = &m.records[newest].fields;
    let renamed =
        fields.iter().find(|nf| b.former_names.get(&format!("{newest}.{}", nf.name)).is_some_and(|f| f == field));
    let nf = renamed.or_else(|| fields.iter().find(|nf| nf.name == field))?;
    (field_ty(m, b, newest, &nf.name, &nf.ty).as_ref() == Some(ft)).then_some(nf.name.as_str())
}

/// Whether each field of the older layout `old` has its value under its own name in `newest`:
/// `fill_OLD` then fills it from a value of `newest`.
pub(super) fn same_fields(m: &Model, b: &Bindings, old: &str, newest: &str) -> bool {
    m.records[old].fields.iter().filter(|f| f.name != "version").all(|f| match field_ty(m, b, old, &f.name, &f.ty) {
        Some(ft) => newest_field(m, b, &f.name, &ft, newest) == Some(f.name.as_str()),
        None => true,
    })
}

/// The function filling the older layout `old` from a value of `newest`.
fn older_fill(m: &Model, b: &Bindings, old: &str, newest: &str) -> proc_macro2::Ident {
    if same_fields(m, b, old, newest) {
        builder_name(old)
    } else {
        older_builder_name(old, newest)
    }
}

/// The layouts of the versioned record `newest` that a caller may ask for, newest first:
/// `(record, version constant)`, `newest` itself and the older layouts of its family (records
/// whose version constants are `nvmlX_vN` for the same `nvmlX`, with a lower `N`).
pub(super) fn layouts(b: &Bindings, newest: &str) -> Vec<(String, String)> {
    let Some(constant) = b.struct_versions.get(newest) else { return Vec::new() };
    let all: BTreeSet<String> = b.struct_versions.keys().cloned().collect();
    let older = crate::plan::layouts::older_layouts(b, &all).remove(newest).unwrap_or_default();
    std::iter::once((newest.to_string(), constant.clone()))
        .chain(older.into_iter().filter_map(|r| Some((r.clone(), b.struct_versions.get(&r)?.clone()))))
        .collect()
}

/// What every file of `answers/` starts with.
pub fn prelude(uses: &Uses, _: bool) -> TokenStream {
    let c = uses.c_types();
    let sys = uses.glob(quote!(nvml_sys), uses.nvml_sys());
    let others = uses.glob(quote!(super), uses.elsewhere());
    let answer = uses
        .import(quote!(super::super::super::answer), &["array", "chars", "record_layout", "Answer", "Object", "Val"]);
    let ffi = uses.import(
        quote!(super::super::super::ffi),
        &["check_version", "put", "put_counted", "put_list", "put_sized_str", "put_str"],
    );
    let id = uses.import(quote!(super::super::names), &["id"]);
    quote! {
        #c
        #sys
        #others
        #answer
        #ffi
        #id
    }
}

/// What every file of `answers/` allows, and why.
pub const ALLOWS: &[Allow] = &[
    ("clippy::unnecessary_cast", "Values convert with `as` to whatever C type a field has, the same one included."),
    ("clippy::too_many_arguments", "An answer takes a function's C parameters, as many as nvml.h gives."),
    ("unused_variables", "An answer takes every C parameter of its function; the profile's values need not all."),
];

fn collect(m: &Model, b: &Bindings, t: &VTy, records: &mut BTreeSet<String>, enums: &mut BTreeSet<String>) {
    match t {
        VTy::Enum(e) => {
            enums.insert(e.clone());
        }
        VTy::Array(e, _) => collect(m, b, e, records, enums),
        VTy::Record(r) | VTy::Union(r) if records.insert(r.clone()) => {
            for f in &m.records[r].fields {
                if let Some(ft) = field_ty(m, b, r, &f.name, &f.ty) {
                    collect(m, b, &ft, records, enums);
                }
            }
        }
        _ => {}
    }
}

fn vty_tokens(t: &VTy) -> TokenStream {
    match t {
        VTy::Int { signed, bits } => {
            let bits = Literal::u32_unsuffixed(*bits);
            quote!(T::Int { signed: #signed, bits: #bits })
        }
        VTy::Float => quote!(T::Float),
        VTy::Enum(e) => quote!(T::Enum(#e)),
        VTy::Flags => quote!(T::Flags),
        VTy::Chars(n) => {
            let n = Literal::usize_unsuffixed(*n as usize);
            quote!(T::Chars(#n))
        }
        VTy::Array(e, n) => {
            let e = vty_tokens(e);
            let n = Literal::usize_unsuffixed(*n as usize);
            quote!(T::Array(&#e, #n))
        }
        VTy::Record(r) => quote!(T::Record(#r)),
        VTy::Union(r) => quote!(T::Union(#r)),
    }
}

/// What must agree for two members of a family to share values: selectors and outputs, by
/// kind (records of a family convert field by field).
fn shape_key(r: &Reading) -> String {
    let outs: Vec<&str> = r
        .outs
        .iter()
        .map(|o| match o {
            Out::Value { ty: VTy::Record(_), .. } => "record",
            Out::Value { .. } => "value",
            Out::Str { .. } => "string",
            Out::List { ty: VTy::Record(_), .. } => "record list",
            Out::List { .. } => "list",
        })
        .collect();
    format!("{} selectors; {}", r.selectors.len(), outs.join(", "))
}

/// The schema of `r`; `replaced` is the function each deprecated one names instead.
fn schema_entry(
    b: &Bindings,
    r: &Reading,
    shapes: &BTreeMap<&str, String>,
    replaced: &BTreeMap<&str, String>,
) -> TokenStream {
    let name = r.f.name.as_str();
    let object = r.object.kind();
    let selectors = r.selectors.iter().map(|(n, t)| {
        let t = vty_tokens(t);
        quote!(Field { name: #n, ty: #t })
    });
    let outputs = r.outs.iter().map(|o| match o {
        Out::Value { param, ty, .. } => {
            let t = vty_tokens(ty);
            quote!(Output { name: #param, ty: #t, shape: Shape::Value })
        }
        Out::Str { param, .. } => quote!(Output { name: #param, ty: T::Str, shape: Shape::Value }),
        Out::List { array, ty, .. } => {
            let t = vty_tokens(ty);
            quote!(Output { name: #array, ty: #t, shape: Shape::List })
        }
    });
    // A versioned family's other members, and the function a deprecated one names ("Use \ref
    // nvmlX instead") or that names this one, answered from data with the same shape: a
    // profile may give the values under any of their names.
    let mut family: Vec<&str> = b
        .families
        .values()
        .find(|symbols| symbols.contains(&r.f.name))
        .map(|symbols| {
            symbols.iter().map(String::as_str).filter(|s| *s != name && shapes.get(s) == shapes.get(name)).collect()
        })
        .unwrap_or_default();
    let replaced_by = |f: &str| {
        replaced.get(f).filter(|n| shapes.contains_key(n.as_str()) && shapes.get(n.as_str()) == shapes.get(f))
    };
    if let Some(newer) = replaced_by(name) {
        family.extend(shapes.keys().copied().filter(|k| k == newer));
    }
    for f in replaced.keys().filter(|f| replaced_by(f).is_some_and(|n| n == name)) {
        family.extend(shapes.keys().copied().filter(|k| k == f));
    }
    family.sort_unstable();
    family.dedup();
    let record_inputs = r.record_inputs.len();
    quote!(FunctionSchema { name: #name, object: #object, selectors: &[#(#selectors),*], record_inputs: #record_inputs, outputs: &[#(#outputs),*], family: &[#(#family),*] })
}

/// The answer of one function.
fn writer(b: &Bindings, r: &Reading) -> TokenStream {
    let m = &b.model;
    let f = r.f;
    let name = ident(&f.name);
    let fname = f.name.as_str();
    let decls = f.params.iter().map(|p| {
        let (n, t) = (ident(&p.name), c_ty(&p.ty));
        quote!(#n: #t)
    });
    let first = f.params.first().map(|p| {
        let n = ident(&p.name);
        quote!(#n)
    });
    let object = match (r.object, first) {
        (Object::System, _) | (_, None) => Object::System.value(&quote!()),
        (o, Some(p)) => o.value(&p),
    };
    let n_params = r.selectors.len() - r.record_inputs.len();
    let selectors = r.selectors[..n_params]
        .iter()
        .map(|(n, _)| {
            let n = ident(n);
            quote!(#n as i64)
        })
        .chain(r.record_inputs.iter().map(|(p, field)| {
            let (p, fi) = (ident(p), ident(field));
            quote!(crate::ffi::get(#p).map_or(0, |r| r.#fi as i64))
        }));
    // Null out-pointers are refused before anything is looked up or written.
    let nulls: Vec<TokenStream> = r
        .outs
        .iter()
        .filter_map(|o| match o {
            Out::Value { param, .. } | Out::List { array: param, null_refused: true, .. } => {
                let p = ident(param);
                Some(quote!(#p.is_null()))
            }
            _ => None,
        })
        .collect();
    let null_check =
        if nulls.is_empty() { quote!() } else { quote!(if #(#nulls)||* { return NVML_ERROR_INVALID_ARGUMENT; }) };
    // A versioned record: the version the caller sets must be one of its layouts that the
    // driver knows (`record_layout`), and picks the layout written.
    let versions: Vec<TokenStream> = r
        .outs
        .iter()
        .enumerate()
        .filter_map(|(i, o)| match o {
            Out::Value { param, ty: VTy::Record(rec), version: Some(_), .. } => {
                let (p, layout) = (ident(param), layout_var(i));
                let all = layouts(b, rec);
                let single = all.len() < 2;
                let accepted = all.into_iter().map(|(_, c)| {
                    let v = ident(&c);
                    quote!((#v as c_uint, #c))
                });
                let check = quote!(record_layout(a, #p as *const c_uint, &[#(#accepted),*]));
                Some(if single {
                    quote!(if let Err(e) = #check { return e; })
                } else {
                    quote!(let #layout = match #check { Ok(layout) => layout, Err(e) => return e };)
                })
            }
            Out::Value { param, version: Some(v), .. } => {
                let (p, v) = (ident(param), ident(v));
                Some(quote!(if let Err(e) = check_version(#p, #v as _) { return e; }))
            }
            _ => None,
        })
        .collect();
    let writes = r.outs.iter().enumerate().map(|(index, o)| {
        let i = Literal::usize_unsuffixed(index);
        match o {
            Out::Value { param, ty: VTy::Record(rec), rust, version, inout } => {
                let p = ident(param);
                // The newest layout through the caller's pointer, cast where the parameter's
                // type is an older layout of the family (the header's `..._v2_t *info` of a
                // function that takes v3 too).
                let newest = if matches!(m.resolve_typedef(rust), Ty::Named(n) if n == rec) {
                    record_write(m, &p, &c_ty(rust), rec, &builder_name(rec), version.as_deref(), *inout, &i)
                } else {
                    let (q, rt) = (ident("newest"), ident(rec));
                    let body =
                        record_write(m, &q, &quote!(#rt), rec, &builder_name(rec), version.as_deref(), *inout, &i);
                    quote!({ let #q = #p as *mut #rt; #body })
                };
                let all = if version.is_some() { layouts(b, rec) } else { Vec::new() };
                if all.len() < 2 {
                    return newest;
                }
                // An older layout: the caller's record is of that layout, filled from the
                // values of the newest.
                let layout = layout_var(index);
                let older = all.iter().enumerate().skip(1).map(|(n, (old, c))| {
                    let (n, ot, q) = (Literal::usize_unsuffixed(n), ident(old), ident("older"));
                    let fill = older_fill(m, b, old, rec);
                    let body = record_write(m, &q, &quote!(#ot), old, &fill, Some(c), *inout, &i);
                    quote!(#n => { let #q = #p as *mut #ot; #body })
                });
                quote! {
                    match #layout {
                        0 => #newest
                        #(#older)*
                        _ => return Err(NVML_ERROR_UNKNOWN),
                    }
                }
            }
            Out::Value { param, ty, rust, .. } => {
                let p = ident(param);
                let conv = convert(m, ty, rust, quote!(o));
                quote!({ let o = &v[#i]; put(#p, #conv)?; })
            }
            Out::Str { param, len } => {
                let p = ident(param);
                match len {
                    StrLen::ByValue(l) => {
                        let l = ident(l);
                        quote!(put_str(#p, #l, v[#i].str())?;)
                    }
                    StrLen::ByPtr(l) => {
                        let l = ident(l);
                        quote!(put_sized_str(#p, #l, v[#i].str())?;)
                    }
                    StrLen::Fixed(n) => {
                        let n = Literal::u32_unsuffixed(*n as u32);
                        quote!(put_str(#p, #n, v[#i].str_within(#n))?;)
                    }
                }
            }
            Out::List { count, array, ty, rust, probe_ok, .. } => {
                let (c, a) = (ident(count), ident(array));
                let conv = convert(m, ty, rust, quote!(x));
                let rt = c_ty(rust);
                let put_fn = if *probe_ok { quote!(put_counted) } else { quote!(put_list) };
                quote! {
                    let items: Vec<#rt> = v[#i].items().iter().map(|x| #conv).collect();
                    #put_fn(#c, #a, &items)?;
                }
            }
        }
    });
    let doc = format!(" `{fname}` from the profile's values.");
    quote! {
        #[doc = #doc]
        pub fn #name<A: Answer + ?Sized>(a: &A, #(#decls),*) -> nvmlReturn_t {
            #null_check
            #(#versions)*
            a.answer(id::#name, #object, &[#(#selectors),*], &mut |v: &[Val]| {
                #(#writes)*
                Ok(())
            })
        }
    }
}

/// The variable holding the layout the caller asked for of output `index`.
fn layout_var(index: usize) -> proc_macro2::Ident {
    ident(&format!("layout_{index}"))
}

/// Writes value `v[i]` into the record of type `rt` (the layout `rec`) at pointer `p` with
/// `fill`: the caller's record is kept where the profile gives no value (an input, the
/// version), or zeros; a versioned one gets its version constant back.
#[allow(clippy::too_many_arguments)]
fn record_write(
    m: &Model,
    p: &proc_macro2::Ident,
    rt: &TokenStream,
    rec: &str,
    fill: &proc_macro2::Ident,
    version: Option<&str>,
    inout: bool,
    i: &Literal,
) -> TokenStream {
    let start = if inout || has_version_field(m, rec) {
        quote!(let mut x: #rt = super::super::super::ffi::get(#p)?;)
    } else {
        quote!(let mut x = #rt::default();)
    };
    let clear = if inout || !has_version_field(m, rec) {
        quote!()
    } else {
        quote!({ let version = x.version; x = #rt::default(); x.version = version; })
    };
    let set_version = match version {
        Some(ver) => {
            let ver = ident(ver);
            quote!(x.version = #ver as _;)
        }
        None => quote!(),
    };
    quote!({ #start #clear #set_version #fill(&v[#i], &mut x); put(#p, x)?; })
}

/// Rust code converting the value `v` (a name or method call of type `&Val`) of type `t` into
/// the C type `rust`.
fn convert(m: &Model, t: &VTy, rust: &Ty, v: TokenStream) -> TokenStream {
    let rt = c_ty(rust);
    match t {
        VTy::Int { signed: true, .. } => quote!(#v.int() as #rt),
        VTy::Int { signed: false, .. } | VTy::Flags | VTy::Enum(_) => quote!(#v.uint() as #rt),
        VTy::Float => quote!(#v.float() as #rt),
        VTy::Chars(_) => quote!(chars(#v)),
        VTy::Array(e, _) => {
            let elem = match m.resolve_typedef(rust) {
                Ty::Array { elem, .. } => (**elem).clone(),
                other => other.clone(),
            };
            let inner = convert(m, e, &elem, quote!(x));
            quote!(array(#v, |x| #inner))
        }
        VTy::Record(r) | VTy::Union(r) => {
            let (b, rt) = (builder_name(r), c_ty(rust));
            quote!({ let mut r = #rt::default(); #b(#v, &mut r); r })
        }
    }
}

/// Whether a record starts with a `version` field (set by the caller).
pub(super) fn has_version_field(m: &Model, r: &str) -> bool {
    m.records.get(r).and_then(|r| r.fields.first()).is_some_and(|f| f.name == "version")
}

fn builder_name(r: &str) -> proc_macro2::Ident {
    ident(&format!("fill_{r}"))
}

fn older_builder_name(old: &str, newest: &str) -> proc_macro2::Ident {
    ident(&format!("fill_{old}_as_{newest}"))
}

/// The statement setting field `fname` (of type `ft`, C type `ty`) of `out` from `x`.
fn set_field(m: &Model, ft: &VTy, fname: &str, ty: &Ty) -> TokenStream {
    let fname = ident(fname);
    match ft {
        VTy::Record(nested) => {
            let nb = builder_name(nested);
            quote!(#nb(x, &mut out.#fname);)
        }
        _ => {
            let conv = convert(m, ft, ty, quote!(x));
            quote!(out.#fname = #conv;)
        }
    }
}

/// `fill_OLD_as_NEWEST(v, out)`: sets the fields of the older layout `old` of a versioned
/// record from a value of its newest layout `newest`: each field of `old` that `newest` has
/// with the same type, by its name or by the name `newest` gave it (`former_names`). A value
/// records a version only where the driver wrote another than the caller's (driver 580.159.04
/// zeroes it in GPU instance profiles, in every layout): that is written in every layout too.
fn older_builder(m: &Model, b: &Bindings, old: &str, newest: &str) -> TokenStream {
    let name = older_builder_name(old, newest);
    let rt = ident(old);
    let sets = m.records[old].fields.iter().filter_map(|f| {
        let ft = field_ty(m, b, old, &f.name, &f.ty)?;
        let n = newest_field(m, b, &f.name, &ft, newest)?;
        let set = set_field(m, &ft, &f.name, &f.ty);
        Some(quote!(if let Some(x) = v.get(#n) { #set }))
    });
    let doc = format!(" Sets the fields of the older layout `{old}` from a value of `{newest}`.");
    let sets: Vec<TokenStream> = sets.collect();
    let (v, o) = value_and_out(!sets.is_empty());
    quote! {
        #[doc = #doc]
        pub(crate) fn #name(#v: &Val, #o: &mut #rt) {
            #(#sets)*
        }
    }
}

/// `fill_X(v, out)`: sets the fields of a record (or the member of a union) that its profile
/// value gives; the others keep their value.
fn builder(m: &Model, b: &Bindings, r: &str) -> TokenStream {
    let rec = &m.records[r];
    let name = builder_name(r);
    let rt = ident(r);
    let doc = format!(" Sets the fields of `{r}` that its value gives.");
    if rec.kind == RecordKind::Union {
        let arms = rec.fields.iter().enumerate().filter_map(|(i, f)| {
            let ft = field_ty(m, b, r, &f.name, &f.ty)?;
            let fname = ident(&f.name);
            let conv = convert(m, &ft, &f.ty, quote!(x));
            let i = Literal::usize_unsuffixed(i);
            Some(quote!(Some((#i, x)) => *out = #rt { #fname: #conv },))
        });
        return quote! {
            #[doc = #doc]
            pub(crate) fn #name(v: &Val, out: &mut #rt) {
                match v.member() {
                    #(#arms)*
                    _ => {}
                }
            }
        };
    }
    // `version` too: a profile gives it only where a driver writes another than the layout's
    // own (driver 580.159.04 answers nvmlDeviceGetGpuInstanceProfileInfoV with version 0).
    let sets = rec.fields.iter().filter_map(|f| {
        let ft = field_ty(m, b, r, &f.name, &f.ty)?;
        let n = f.name.as_str();
        let set = set_field(m, &ft, n, &f.ty);
        Some(quote!(if let Some(x) = v.get(#n) { #set }))
    });
    let sets: Vec<TokenStream> = sets.collect();
    let (v, o) = value_and_out(!sets.is_empty());
    quote! {
        #[doc = #doc]
        pub(crate) fn #name(#v: &Val, #o: &mut #rt) {
            #(#sets)*
        }
    }
}

/// The parameters of a record's setter: `v` and `out`, or `_v` and `_out` for one that sets
/// nothing (`used` false).
fn value_and_out(used: bool) -> (proc_macro2::Ident, proc_macro2::Ident) {
    match used {
        true => (ident("v"), ident("out")),
        false => (ident("_v"), ident("_out")),
    }
}

/// The parameter of `f` that points to a versioned record (one with a struct version constant
/// and a `version` first field), and the record: `(parameter index, record)`.
pub(super) fn versioned_param(b: &Bindings, f: &Function) -> Option<(usize, String)> {
    let m = &b.model;
    f.params.iter().enumerate().find_map(|(i, p)| {
        let Ty::Pointer { pointee, .. } = m.resolve_typedef(&p.ty) else { return None };
        let rec = match &**pointee {
            Ty::Named(n) => m.records.get(n).map(|_| n.clone()).or_else(|| match m.resolve_typedef(pointee) {
                Ty::Named(r) if m.records.contains_key(r) => Some(r.clone()),
                _ => None,
            })?,
            _ => return None,
        };
        (b.struct_versions.contains_key(&rec) && has_version_field(m, &rec)).then_some((i, rec))
    })
}

/// The version constants of a versioned record's family (`nvmlX_vN` for every `N` of its
/// `nvmlX`): the record's own first, then the others newest first; the versions a caller of a
/// function taking that record may set.
fn version_family(b: &Bindings, rec: &str) -> Vec<String> {
    let Some(own) = b.struct_versions.get(rec) else { return Vec::new() };
    let stem = |c: &str| c.rsplit_once("_v").map(|(s, n)| (s.to_string(), n.parse::<u32>().unwrap_or(0)));
    let Some((family, _)) = stem(own) else { return vec![own.clone()] };
    let mut all: Vec<(u32, String)> = b
        .struct_versions
        .values()
        .filter_map(|c| stem(c).filter(|(s, _)| *s == family && c != own).map(|(_, n)| (n, c.clone())))
        .collect();
    all.sort();
    all.dedup();
    // The function's own layout first, then the others, newest first.
    std::iter::once(own.clone()).chain(all.into_iter().rev().map(|(_, c)| c)).collect()
}

/// The names of the functions answered from data (for the `Api` trait's defaults).
pub fn data_function_names(b: &Bindings, plan: &Plan) -> BTreeSet<String> {
    data_functions(b, plan).iter().filter(|r| !r.hand).map(|r| r.f.name.clone()).collect()
}

/// The functions written by hand whose values a profile may record (their answers are
/// generated too).
pub fn recordable_hand_written(b: &Bindings, plan: &Plan) -> BTreeSet<String> {
    data_functions(b, plan).iter().filter(|r| r.hand).map(|r| r.f.name.clone()).collect()
}

/// The `Object` a function is called on, for the export's `entry`: its first parameter when
/// that is the handle of a device, unit, MIG instance, vGPU type or vGPU instance.
pub fn object_of(f: &Function) -> TokenStream {
    match f.params.first() {
        Some(p) => {
            let p = ident(&p.name);
            object_kind_of(f).value(&quote!(#p))
        }
        None => quote!(Object::System),
    }
}

/// The kind of object `f` is called on: its first parameter's, else the system.
fn object_kind_of(f: &Function) -> Object {
    let first = f.params.first().and_then(|p| match &p.ty {
        Ty::Named(n) => Object::of(n),
        _ => None,
    });
    first.unwrap_or(Object::System)
}
