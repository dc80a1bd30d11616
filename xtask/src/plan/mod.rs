//! The plan stage: how the safe crate wraps each function — the plan its emitter follows,
//! what `cargo xtask coverage` counts, and what `header-diff` reports for new functions.
//!
//! Every non-legacy function either becomes (part of) a [`Method`] or is listed in
//! [`Plan::unwrapped`] with the reason. A method belongs to the handle type of its first
//! parameter (or to `Nvml`), and calls a chain of symbols: a versioned family's members that
//! share one shape, newest first, so an older driver is served by an older symbol whose
//! records are converted into the newest Rust type.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::diag::Diagnostics;
use crate::model::{Field, Function, Model, RecordKind, Ty};
use crate::rules::names::snake;
use crate::rules::{Bindings, Direction, Rules};
use crate::workspace::RULES_FILE;

/// How the safe crate wraps a function under the rules: the contract its emitter follows, and
/// what `cargo xtask header-diff` reports for new functions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "how", content = "detail", rename_all = "snake_case")]
pub enum Wrapping {
    /// A `skip` rule leaves it unwrapped, for this reason.
    Skipped(String),
    /// A `manual` rule names the hand-written file that wraps it.
    Manual(String),
    /// Wrapped from its shape, named here: `plain`, `string buffer` or `count + array`.
    Automatic(String),
    /// No shape fits, for the reason given: it needs a rule (`strings`, `arrays`, `skip` or
    /// `manual`) or hand-written code.
    NeedsRule(String),
}

/// Who a method belongs to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Owner {
    Nvml,
    /// A handle typedef (opaque or id).
    Handle(String),
}

/// A value crossing the boundary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Val {
    /// A C scalar (after following typedefs).
    Scalar(Ty),
    /// An enum of the header, by model name: an open newtype in the safe crate.
    Enum(String),
    /// A handle typedef: the safe handle type.
    Handle(String),
    /// A bitflags type named by the rules; the C scalar it travels as.
    Flags(String, Ty),
    /// A record with a safe Rust type.
    Record(String),
    /// A plain union passed as its raw type.
    Raw(String),
}

impl Role {
    /// The value the parameter carries, for the roles that carry one.
    pub fn val(&self) -> Option<&Val> {
        match self {
            Role::In(v) | Role::InPtr(v) | Role::InOut(v) | Role::Out(v) | Role::Array(v) => Some(v),
            Role::Capped { val, .. } | Role::SizedArray { val, .. } => Some(val),
            _ => None,
        }
    }
}

impl Plan {
    /// `(older, newer)` record pairs that a versioned family converts between: a member's
    /// record in the place of the head's.
    pub fn conversions(&self) -> BTreeSet<(String, String)> {
        let record = |r: &Role| match r.val() {
            Some(Val::Record(n)) => Some(n.clone()),
            _ => None,
        };
        let mut out = BTreeSet::new();
        for m in &self.methods {
            let Some((head, rest)) = m.calls.split_first() else { continue };
            for c in rest {
                for (p, hp) in c.params.iter().zip(&head.params) {
                    if let (Some(o), Some(n)) = (record(&p.role), record(&hp.role)) {
                        if o != n {
                            out.insert((o, n));
                        }
                    }
                }
            }
        }
        out
    }
}

/// What a parameter is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Role {
    /// The handle the method is called on.
    SelfHandle,
    /// Passed by value.
    In(Val),
    /// `const char *`: a `&str` argument.
    InStr,
    /// A pointer to an input the method takes by reference.
    InPtr(Val),
    /// A record the method takes and returns with the driver's changes.
    InOut(Val),
    /// An out-parameter: part of the return value.
    Out(Val),
    /// A `char *` buffer of `size` bytes, returned as a `String`.
    StrBuf { size: u64 },
    /// The length of the string buffer, by value or through a pointer.
    StrLen { by_ptr: bool },
    /// The in/out count of a count + array pair.
    Count,
    /// The array of a count + array pair, returned as a `Vec`.
    Array(Val),
    /// The array of an out-only count: `capacity` elements allocated by the caller.
    Capped { val: Val, capacity: u64 },
    /// The length of an array the caller sizes.
    SizedLen,
    /// An array the caller sizes: an input slice of records (returned updated) or a number
    /// of scalars to fetch.
    SizedArray { val: Val, input: bool },
}

#[derive(Debug, Clone, Serialize)]
pub struct ParamPlan {
    pub name: String,
    pub ty: Ty,
    pub role: Role,
}

/// One symbol of a method's chain, with its parameters' roles.
#[derive(Debug, Clone, Serialize)]
pub struct Call {
    pub symbol: String,
    pub params: Vec<ParamPlan>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Method {
    /// The family's API name, or the symbol: what `renames` match.
    pub key: String,
    pub owner: Owner,
    /// The Rust method name.
    pub name: String,
    /// Newest first; the first defines the Rust signature.
    pub calls: Vec<Call>,
    pub shape: &'static str,
}

/// The whole plan for one header and rules.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Plan {
    /// Sorted by owner, then method name.
    pub methods: Vec<Method>,
    /// Every non-legacy function without a generated method, and why.
    pub unwrapped: BTreeMap<String, Wrapping>,
    /// Symbol → the key of the method that calls it (legacy symbols included).
    pub wrapped_by: BTreeMap<String, String>,
    /// Records that get a safe Rust type.
    pub records: BTreeSet<String>,
}

impl Plan {
    pub fn method(&self, key: &str) -> Option<&Method> {
        self.methods.iter().find(|m| m.key == key)
    }

    /// How the safe crate wraps `f`.
    pub fn wrapping(&self, f: &Function) -> Wrapping {
        if let Some(w) = self.unwrapped.get(&f.name) {
            return w.clone();
        }
        match self.wrapped_by.get(&f.name).and_then(|k| self.method(k)) {
            Some(m) => Wrapping::Automatic(m.shape.to_string()),
            None if f.legacy => Wrapping::NeedsRule("a legacy symbol that no versioned family reaches".into()),
            None => Wrapping::NeedsRule("no method was planned for it".into()),
        }
    }

    /// The `absent_fields` keys (`record.field`) of `b` that no versioned family uses: none
    /// converts an older layout lacking the field into the record.
    pub fn unused_absent_fields(&self, b: &Bindings) -> Vec<String> {
        let conversions = self.conversions();
        let lacks = |old: &str, field: &str| b.model.records.get(old).is_some_and(|o| !o.fields.iter().any(|f| f.name == field));
        b.absent_fields
            .keys()
            .filter(|key| {
                let (rec, field) = key.split_once('.').unwrap_or((key.as_str(), ""));
                !conversions.iter().any(|(old, new)| new == rec && lacks(old, field))
            })
            .cloned()
            .collect()
    }
}

/// Reports the rules that the plan shows to change nothing: `directions` the header's wording
/// already gives, `absent_fields` no conversion uses, `renames` of no generated method.
pub fn check_rules(b: &Bindings, plan: &Plan, rules: &Rules, file: &str, d: &mut Diagnostics) {
    let place = |section: &str, key: &str| format!("{file}: {section}.{key}");
    for (key, rule) in &rules.directions {
        let Some((f, param)) = key.split_once('.').and_then(|(f, p)| Some((b.model.functions.get(f)?, p))) else { continue };
        let Some(p) = f.params.iter().find(|p| p.name == param) else { continue };
        let fields = pointee_fields(&b.model, &p.ty);
        if derived_direction(b, f, param, fields) == *rule {
            d.warn(place("directions", key), "matches nothing: the header's wording gives the same direction");
        }
    }
    for key in plan.unused_absent_fields(b) {
        d.warn(place("absent_fields", &key), "matches nothing: no older layout lacking the field is converted into the record");
    }
    for key in rules.renames.keys() {
        if plan.method(key).is_none() && b.model.functions.contains_key(key) {
            d.warn(place("renames", key), "names no generated method (a family member is renamed under its API name)");
        }
    }
}

/// Records whose safe type can be generated: no pointers or callbacks, directly or in a
/// nested record. Unions stay raw.
pub fn safe_records(m: &Model) -> BTreeSet<String> {
    let mut bad: BTreeSet<String> = BTreeSet::new();
    loop {
        let before = bad.len();
        for r in m.records.values() {
            if bad.contains(&r.name) {
                continue;
            }
            let is_bad = r.kind == RecordKind::Union && has_pointer(m, &r.name)
                || r.fields.iter().any(|f| f.bit_width.is_some() || field_is_bad(m, &f.ty, &bad));
            if is_bad {
                bad.insert(r.name.clone());
            }
        }
        if bad.len() == before {
            break;
        }
    }
    m.records.values().filter(|r| r.kind == RecordKind::Struct && !bad.contains(&r.name)).map(|r| r.name.clone()).collect()
}

fn has_pointer(m: &Model, rec: &str) -> bool {
    m.records.get(rec).is_some_and(|r| r.fields.iter().any(|f| field_is_bad(m, &f.ty, &BTreeSet::new())))
}

fn field_is_bad(m: &Model, t: &Ty, bad: &BTreeSet<String>) -> bool {
    match t {
        Ty::Named(n) if m.handles.contains_key(n) => false,
        _ => match m.resolve_typedef(t) {
            Ty::Pointer { .. } | Ty::FnPtr { .. } | Ty::Void => true,
            Ty::Array { elem, .. } => field_is_bad(m, elem, bad),
            Ty::Named(n) => bad.contains(n) || (m.records.get(n).is_some_and(|r| r.kind == RecordKind::Union) && has_pointer(m, n)),
            _ => false,
        },
    }
}

/// Builds the plan; clashing method names are errors in `d`.
pub fn plan(b: &Bindings, d: &mut Diagnostics) -> Plan {
    let m = &b.model;
    let records = safe_records(m);
    let mut plan = Plan { records, ..Plan::default() };
    let ctx = Ctx { b, records: &plan.records };
    // Every function's roles, worked out once.
    let planned: BTreeMap<&str, Result<Call, String>> = m.functions.values().map(|f| (f.name.as_str(), ctx.call(f))).collect();
    let call_of = |f: &Function| planned.get(f.name.as_str()).cloned().unwrap_or_else(|| Err("not in the model".into()));

    // Chains: a family's members grouped into runs of one shape; other functions alone.
    let mut in_family: BTreeSet<&str> = BTreeSet::new();
    let mut chains: Vec<(String, Vec<&Function>)> = Vec::new();
    for (api, symbols) in &b.families {
        let members: Vec<&Function> = symbols.iter().filter_map(|s| m.functions.get(s)).collect();
        in_family.extend(symbols.iter().map(String::as_str));
        let mut runs: Vec<Vec<&Function>> = Vec::new();
        for f in members {
            match runs.last_mut() {
                Some(run) if compatible(&planned[run[0].name.as_str()], &planned[f.name.as_str()]) => run.push(f),
                _ => runs.push(vec![f]),
            }
        }
        for (i, run) in runs.into_iter().enumerate() {
            // The run holding the base name (or the newest run, when the base name is not a
            // function) is keyed by the API name; any other run by its newest symbol.
            let keyed_by_api = run.iter().any(|f| f.name == *api) || i == 0 && !m.functions.contains_key(api);
            let key = if keyed_by_api { api.clone() } else { run[0].name.clone() };
            chains.push((key, run));
        }
    }
    for f in m.functions.values().filter(|f| !in_family.contains(f.name.as_str())) {
        chains.push((f.name.clone(), vec![f]));
    }

    let mut names: BTreeMap<(Owner, String), String> = BTreeMap::new();
    for (key, run) in chains {
        // A run of only legacy symbols has no method of its own.
        if run.iter().all(|f| f.legacy) {
            continue;
        }
        let head = run[0];
        let verdict = if let Some(reason) = b.skipped.get(&head.name).or_else(|| b.skipped.get(&key)) {
            Err(Wrapping::Skipped(reason.clone()))
        } else if let Some(file) = b.manual.get(&head.name).or_else(|| b.manual.get(&key)) {
            Err(Wrapping::Manual(file.clone()))
        } else {
            call_of(head).map_err(Wrapping::NeedsRule)
        };
        let first = match verdict {
            Ok(c) => c,
            Err(w) => {
                for f in run.iter().filter(|f| !f.legacy) {
                    plan.unwrapped.insert(f.name.clone(), w.clone());
                }
                continue;
            }
        };
        let owner = owner_of(b, head);
        let mut calls = vec![first];
        calls.extend(run[1..].iter().filter_map(|f| call_of(f).ok()));
        let name = b.renames.get(&key).cloned().unwrap_or_else(|| method_name(b, &owner, &key));
        if let Some(other) = names.insert((owner.clone(), name.clone()), key.clone()) {
            d.error(
                format!("{RULES_FILE}: renames"),
                format!("`{other}` and `{key}` both become method `{name}` of {}; add a `renames` rule", owner_label(b, &owner)),
            );
        }
        for c in &calls {
            plan.wrapped_by.insert(c.symbol.clone(), key.clone());
        }
        let shape = shape_of(&calls[0]);
        plan.methods.push(Method { key, owner, name, calls, shape });
    }
    plan.methods.sort_by(|a, b| (&a.owner, &a.name).cmp(&(&b.owner, &b.name)));
    plan
}

fn owner_label(b: &Bindings, o: &Owner) -> String {
    match o {
        Owner::Nvml => "Nvml".into(),
        Owner::Handle(h) => b.handle_type(h).unwrap_or(h).to_string(),
    }
}

fn owner_of(b: &Bindings, f: &Function) -> Owner {
    match f.params.first().map(|p| &p.ty) {
        Some(Ty::Named(n)) if b.handle_type(n).is_some() => Owner::Handle(n.clone()),
        _ => Owner::Nvml,
    }
}

/// `nvmlDeviceGetPciInfo` on `Device` → `pci_info`; `nvmlSystemGetDriverVersion` on `Nvml` →
/// `driver_version`.
fn method_name(b: &Bindings, owner: &Owner, key: &str) -> String {
    let full = snake(key.strip_prefix("nvml").unwrap_or(key));
    let mut s = full.as_str();
    let prefixes: Vec<String> = match owner {
        Owner::Nvml => vec!["system_".into()],
        Owner::Handle(h) => {
            let words: Vec<String> = snake(b.handle_type(h).unwrap_or(h)).split('_').map(String::from).collect();
            (1..=words.len()).rev().map(|n| format!("{}_", words[..n].join("_"))).collect()
        }
    };
    for p in &prefixes {
        if let Some(rest) = s.strip_prefix(p.as_str()) {
            s = rest;
            break;
        }
    }
    if let Some(rest) = s.strip_prefix("get_") {
        if !rest.is_empty() && !rest.starts_with(|c: char| c.is_ascii_digit()) {
            s = rest;
        }
    } else if *owner == Owner::Nvml {
        // `unit_get_count` → `unit_count`: a getter of another object's table.
        if let Some(i) = s.find("_get_") {
            return format!("{}_{}", &s[..i], &s[i + 5..]);
        }
    }
    s.to_string()
}

fn shape_of(c: &Call) -> &'static str {
    let has = |f: fn(&Role) -> bool| c.params.iter().any(|p| f(&p.role));
    match (has(|r| matches!(r, Role::StrBuf { .. })), has(|r| matches!(r, Role::Array(_) | Role::Capped { .. })), has(|r| matches!(r, Role::SizedArray { .. }))) {
        (true, true, _) => "string buffer + count + array",
        (true, false, _) => "string buffer",
        (false, true, _) => "count + array",
        (false, false, true) => "caller-sized array",
        (false, false, false) => "plain",
    }
}

/// Whether the call planned as `g` can serve as a fallback of `f`: the same roles, records
/// converted by field.
fn compatible(f: &Result<Call, String>, g: &Result<Call, String>) -> bool {
    let (Ok(a), Ok(b)) = (f, g) else { return false };
    a.params.len() == b.params.len()
        && a.params.iter().zip(&b.params).all(|(x, y)| match (&x.role, &y.role) {
            (Role::Out(Val::Record(_)), Role::Out(Val::Record(_))) => true,
            (Role::Array(Val::Record(_)), Role::Array(Val::Record(_))) => true,
            (Role::Capped { val: Val::Record(_), capacity: a }, Role::Capped { val: Val::Record(_), capacity: b }) => a == b,
            (Role::InOut(Val::Record(_)), Role::InOut(Val::Record(_))) => true,
            (r, s) => r == s,
        })
}

struct Ctx<'a> {
    b: &'a Bindings,
    records: &'a BTreeSet<String>,
}

impl Ctx<'_> {
    /// The roles of `f`'s parameters, or why it fits no shape.
    fn call(&self, f: &Function) -> Result<Call, String> {
        let b = self.b;
        if f.ret != Ty::Named("nvmlReturn_t".into()) {
            return Err(format!("returns `{}`, not `nvmlReturn_t`", f.ret.c_spelling()));
        }
        let string = b.strings.get(&f.name);
        let array = b.arrays.get(&f.name);
        let sized = sized_array(&b.model, f, string.map(|s| (s.buffer.as_str(), s.length.as_deref())));
        let owner = owner_of(b, f);
        let mut params = Vec::new();
        for (i, p) in f.params.iter().enumerate() {
            let place = format!("parameter `{}` (`{}`)", p.name, p.ty.c_spelling());
            let role = if i == 0 && owner != Owner::Nvml {
                Role::SelfHandle
            } else if let Some(s) = string.filter(|s| s.buffer == p.name) {
                match s.size {
                    Some((_, size)) => Role::StrBuf { size },
                    None => return Err(format!("string buffer `{}` has no known size (a `strings` rule can give one)", s.buffer)),
                }
            } else if string.is_some_and(|s| s.length.as_deref() == Some(p.name.as_str())) {
                Role::StrLen { by_ptr: matches!(p.ty, Ty::Pointer { .. }) }
            } else if array.is_some_and(|a| a.count == p.name) {
                Role::Count
            } else if let Some(a) = array.filter(|a| a.array == p.name) {
                let val = self.pointee_val(f, p).map_err(|e| format!("{place}: {e}"))?;
                match a.capacity {
                    Some(capacity) => Role::Capped { val, capacity },
                    None => Role::Array(val),
                }
            } else if sized.is_some_and(|(len, _)| len == i) {
                Role::SizedLen
            } else if sized.is_some_and(|(_, arr)| arr == i) {
                let val = self.pointee_val(f, p).map_err(|e| format!("{place}: {e}"))?;
                let input = matches!(val, Val::Record(_));
                Role::SizedArray { val, input }
            } else {
                self.role(f, p).map_err(|e| format!("{place}: {e}"))?
            };
            params.push(ParamPlan { name: p.name.clone(), ty: p.ty.clone(), role });
        }
        Ok(Call { symbol: f.name.clone(), params })
    }

    fn role(&self, f: &Function, p: &crate::model::Param) -> Result<Role, String> {
        let m = &self.b.model;
        if let Some(v) = self.named_val(f, p, &p.ty) {
            return Ok(Role::In(v?));
        }
        match m.resolve_typedef(&p.ty) {
            Ty::Pointer { pointee, is_const } => {
                if matches!(m.resolve_typedef(pointee), Ty::Char) {
                    return if *is_const { Ok(Role::InStr) } else { Err("a `char` buffer with no length".into()) };
                }
                let val = self.pointee_val(f, p)?;
                if *is_const {
                    return Ok(Role::InPtr(val));
                }
                let record = matches!(val, Val::Record(_) | Val::Raw(_));
                Ok(match direction(self.b, f, &p.name, pointee_fields(m, &p.ty)) {
                    Direction::In => Role::InPtr(val),
                    Direction::InOut if record => Role::InOut(val),
                    Direction::InOut => return Err("an in/out scalar (give it `directions: in` or `out`)".into()),
                    Direction::Out => Role::Out(val),
                })
            }
            t => Ok(Role::In(self.val(t)?)),
        }
    }

    /// A handle or bitflags parameter, recognised before typedefs are followed.
    fn named_val(&self, f: &Function, p: &crate::model::Param, ty: &Ty) -> Option<Result<Val, String>> {
        if let Some(flags) = self.b.flags_of_param(&f.name, &p.name) {
            let scalar = match self.b.model.resolve_typedef(ty) {
                Ty::Pointer { pointee, .. } => self.b.model.resolve_typedef(pointee).clone(),
                t => t.clone(),
            };
            return match ty {
                Ty::Pointer { .. } => None,
                _ => Some(Ok(Val::Flags(flags, scalar))),
            };
        }
        match ty {
            Ty::Named(n) if self.b.handle_type(n).is_some() => Some(Ok(Val::Handle(n.clone()))),
            _ => None,
        }
    }

    fn pointee_val(&self, f: &Function, p: &crate::model::Param) -> Result<Val, String> {
        let Ty::Pointer { pointee, .. } = self.b.model.resolve_typedef(&p.ty) else { return Err("not a pointer".into()) };
        if let Some(flags) = self.b.flags_of_param(&f.name, &p.name) {
            return Ok(Val::Flags(flags, self.b.model.resolve_typedef(pointee).clone()));
        }
        if let Ty::Named(n) = &**pointee {
            if self.b.handle_type(n).is_some() {
                return Ok(Val::Handle(n.clone()));
            }
        }
        self.val(self.b.model.resolve_typedef(pointee))
    }

    fn val(&self, t: &Ty) -> Result<Val, String> {
        let m = &self.b.model;
        match t {
            Ty::Named(n) if m.enums.contains_key(n) => Ok(Val::Enum(n.clone())),
            Ty::Named(n) if self.records.contains(n) => Ok(Val::Record(n.clone())),
            Ty::Named(n) => match m.records.get(n) {
                Some(r) if r.kind == RecordKind::Union && !has_pointer(m, n) => Ok(Val::Raw(n.clone())),
                Some(_) => Err(format!("record `{n}` holds pointers or callbacks, which need hand-written code")),
                None => Err(format!("`{n}` is not a type this generator knows")),
            },
            Ty::Void => Err("an untyped pointer".into()),
            Ty::Pointer { .. } => Err("a pointer to a pointer".into()),
            Ty::FnPtr { .. } => Err("a callback".into()),
            Ty::Array { .. } => Err("a pointer to an array".into()),
            scalar => Ok(Val::Scalar(scalar.clone())),
        }
    }
}

/// `int valuesCount, nvmlFieldValue_t *values`: the indices of a length passed by value and
/// the pointer next to it, where the length's name ends in `count`, `size` or `length`.
fn sized_array(m: &Model, f: &Function, string: Option<(&str, Option<&str>)>) -> Option<(usize, usize)> {
    let string_buffer = string.map(|s| s.0);
    for (i, p) in f.params.iter().enumerate() {
        if string.is_some_and(|s| s.1 == Some(p.name.as_str())) || !matches!(m.resolve_typedef(&p.ty), Ty::Int | Ty::UInt) {
            continue;
        }
        let n = p.name.to_ascii_lowercase();
        if !(n.ends_with("count") || n.ends_with("size") || n.ends_with("length")) {
            continue;
        }
        for j in [i + 1, i.wrapping_sub(1)] {
            if let Some(a) = f.params.get(j) {
                if Some(a.name.as_str()) == string_buffer {
                    continue;
                }
                if let Ty::Pointer { pointee, is_const: false } = m.resolve_typedef(&a.ty) {
                    if !matches!(m.resolve_typedef(pointee), Ty::Char | Ty::Void) {
                        return Some((i, j));
                    }
                }
            }
        }
    }
    None
}

/// The direction of a non-const pointer: a `directions` rule, else the `@param` annotation
/// (`[in]`, `[out]`, `[in,out]`), else a record described as holding inputs is in/out, a
/// setter's record is an input, a record with a field documented as an input (`IN:`, `[in]`,
/// `input:`) is in/out, and anything else is an output. `record` is the pointee's fields
/// when it is a record.
fn direction(b: &Bindings, f: &Function, param: &str, record: Option<&[Field]>) -> Direction {
    match b.directions.get(&format!("{}.{param}", f.name)) {
        Some(d) => *d,
        None => derived_direction(b, f, param, record),
    }
}

/// The direction the header's wording gives (see [`direction`]).
pub fn derived_direction(b: &Bindings, f: &Function, param: &str, record: Option<&[Field]>) -> Direction {
    let text = param_doc(f.doc.as_deref().unwrap_or(""), param).to_ascii_lowercase();
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.contains("[in,out]") || compact.contains("[inout]") || compact.contains("[in/out]") {
        return Direction::InOut;
    }
    if compact.contains("[out]") {
        return Direction::Out;
    }
    if compact.contains("[in]") {
        return Direction::In;
    }
    if record.is_some() && (text.contains("(input)") || text.contains("input") && text.contains("output")) {
        return Direction::InOut;
    }
    // The verb after the object: `nvmlDeviceSetX`, `nvmlSystemEventSetCreate` (not the `Set`
    // of `EventSet`).
    let mut stem = f.name.strip_prefix("nvml").unwrap_or(&f.name);
    let mut objects: Vec<&str> = b.handles.values().chain(b.ids.values()).map(String::as_str).collect();
    objects.extend(["System", "VgpuType"]);
    objects.sort_by_key(|o| std::cmp::Reverse(o.len()));
    while let Some(rest) = objects.iter().find_map(|o| stem.strip_prefix(o)) {
        stem = rest;
    }
    let setter = ["Set", "Create", "Register"].iter().any(|w| stem.starts_with(w));
    if record.is_some() && setter {
        return Direction::In;
    }
    if record.is_some_and(|fields| fields.iter().any(|f| f.name != "version" && documented_input(f.doc.as_deref().unwrap_or("")))) {
        return Direction::InOut;
    }
    Direction::Out
}

/// Whether a field's comment starts by calling it an input: `IN:`, `IN/OUT:`, `[in]`,
/// `[in,out]`, `input:`.
fn documented_input(doc: &str) -> bool {
    let d = doc.trim_start().to_ascii_lowercase();
    ["in:", "in/out", "[in]", "[in,", "[in/", "input:", "input/output"].iter().any(|p| d.starts_with(p))
}

/// The fields of the record a pointer of type `ty` points to (after typedefs), if it does.
pub fn pointee_fields<'m>(m: &'m Model, ty: &Ty) -> Option<&'m [Field]> {
    match m.resolve_typedef(ty) {
        Ty::Pointer { pointee, .. } => match m.resolve_typedef(pointee) {
            Ty::Named(r) => m.records.get(r).map(|r| r.fields.as_slice()),
            _ => None,
        },
        _ => None,
    }
}

/// The text of `@param name` in a Doxygen comment, up to the next command.
fn param_doc(doc: &str, name: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in doc.lines() {
        let t = line.trim();
        if t.starts_with('@') || t.starts_with('\\') && t.len() > 1 && t[1..].starts_with(|c: char| c.is_ascii_alphabetic()) && !t.starts_with("\\ref") && !t.starts_with("\\a ") {
            inside = false;
            if let Some(rest) = t.strip_prefix("@param").or_else(|| t.strip_prefix("\\param")) {
                let mut words = rest.split_whitespace();
                let mut first = words.next().unwrap_or("");
                let mut annot = "";
                if first.starts_with('[') {
                    annot = first;
                    first = words.next().unwrap_or("");
                }
                if first == name {
                    inside = true;
                    out.push_str(annot);
                    out.push(' ');
                    out.push_str(&words.collect::<Vec<_>>().join(" "));
                    out.push(' ');
                }
            }
        } else if inside {
            out.push_str(t);
            out.push(' ');
        }
    }
    out
}
