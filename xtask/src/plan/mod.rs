//! The plan stage: how the safe crate wraps each function — the plan its emitter follows,
//! what `cargo xtask coverage` counts, and what `header-diff` reports for new functions.
//!
//! Every non-legacy function either becomes (part of) a [`Method`] or is listed in
//! [`Plan::unwrapped`] with the reason. A method belongs to the handle type of its first
//! parameter (or to `Nvml`), and calls a chain of symbols: a versioned family's members that
//! share one shape, newest first, so an older driver is served by an older symbol whose
//! records are converted into the newest Rust type.

pub mod inout;
pub mod layouts;
pub mod names;
mod reading;
pub mod visit;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use inout::{Across, RecordIo};
use reading::Reader;
pub use reading::{array_cue, count_cue, derived_direction, pointee_fields, scalar_cue, Basis, FIRST_CAPACITY};

use crate::diag::Diagnostics;
use crate::model::{Function, FunctionDoc, Model, RecordKind, Ty};
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
    /// An integer or enum the header says is a yes or no (a `booleans` rule); the C type it
    /// travels as (a scalar, or the enum's model name).
    Bool(Ty),
}

impl Role {
    /// The value the parameter carries, for the roles that carry one.
    pub fn val(&self) -> Option<&Val> {
        match self {
            Role::In(v) | Role::InPtr(v) | Role::InOut(v) | Role::Out(v) => Some(v),
            Role::Array { val, .. } | Role::Capped { val, .. } | Role::SizedArray { val, .. } => Some(val),
            Role::RecordList(l) => Some(&l.elem),
            _ => None,
        }
    }

    /// Whether the parameter is an array (of any count).
    pub fn is_array(&self) -> bool {
        matches!(self, Role::Array { .. } | Role::Capped { .. } | Role::SizedArray { .. } | Role::RecordList(_))
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
        // A retry with an older layout converts it into the newest.
        for m in &self.methods {
            for p in &m.calls[0].params {
                if let Role::Out(Val::Record(r)) | Role::InOut(Val::Record(r)) = &p.role {
                    for old in self.older_layouts.get(r).into_iter().flatten() {
                        out.insert((old.clone(), r.clone()));
                    }
                }
            }
        }
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
    /// The handle the method is called on, which the call frees or destroys: the method takes
    /// `self`.
    SelfConsumed,
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
    /// The in/out count of the `Array` parameters: their capacity in, the elements written
    /// (or needed) out.
    Count { probe: Probe },
    /// One of the arrays a `Count` sizes, returned as a `Vec`; entries equal to `unused` (a
    /// constant) are dropped.
    Array { val: Val, unused: Option<String> },
    /// An out-only count: how many elements of the `Capped` arrays the library filled.
    CappedCount,
    /// An array of an out-only count: `capacity` elements allocated by the caller.
    Capped { val: Val, capacity: u64 },
    /// The length of an array the caller sizes, passed by value: in elements, or in bytes.
    /// With a `capacity` the method allocates that many and takes no length.
    SizedLen { bytes: bool, capacity: Option<u64> },
    /// An array the caller sizes: an input slice of records (returned updated) or a number of
    /// values to fetch.
    SizedArray { val: Val, input: bool, unused: Option<String> },
    /// A record that holds a list (`nvmlProcessDetailList_t`): a count field and a pointer to
    /// an array the caller allocates, which the library fills by the count + array protocol;
    /// its other fields are inputs (the method's arguments) or outputs (returned with the list
    /// in a result struct, or typing its elements). Returned as a `Vec`.
    RecordList(ListRecord),
}

/// The record of a [`Role::RecordList`] and what each of its fields is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListRecord {
    /// The record, by model name.
    pub record: String,
    /// The constant its `version` field takes; `None` for a record without one.
    pub version: Option<String>,
    /// The older layouts of the record the header declares, newest first, with their version
    /// constants: a driver that answers `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` gets them.
    pub older: Vec<(String, String)>,
    /// The field that passes the array's capacity and answers the elements filled (or needed).
    pub count: String,
    /// The field that points to the array.
    pub array: String,
    /// What an element of the array is.
    pub elem: Val,
    /// The array is `void *` and its count in bytes: the elements are bytes.
    pub bytes: bool,
    /// The fields the caller sets, in the record's order: the method's arguments.
    pub inputs: Vec<(String, Val)>,
    /// The fields the library writes beside the list, in the record's order: returned with
    /// the list, in a result struct (see [`Plan::results`]).
    pub outputs: Vec<(String, Val)>,
    /// The output field that says how to read the elements (a `tagged_values` rule naming the
    /// field of the record that holds the array): read, not returned.
    pub typed_by: Option<String>,
    /// The in/out fields (a cursor), each with the hand-written type a `field_types` rule
    /// gives it: the method takes it by `&mut`, sends it as the caller left it in every call,
    /// and sets it to the last call's answer once the list is fetched.
    pub in_out: Vec<(String, String)>,
    /// The count's comment says an empty list is the end ("0 means no (more) records"): the
    /// method returns an `Option`, `None` for it.
    pub none_when_empty: bool,
}

impl ListRecord {
    /// The fields the method returns, by C name, in the record's order of the outputs, then
    /// the array: the fields of its result struct when it has outputs.
    pub fn returned(&self) -> Vec<String> {
        self.outputs.iter().map(|(f, _)| f.clone()).chain([self.array.clone()]).collect()
    }
}

/// How a count + array call learns the size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Probe {
    /// A NULL array (count 0) asks for the size.
    Null,
    /// A NULL array (count 0) asks for the size, which the library answers with
    /// `NVML_ERROR_INSUFFICIENT_SIZE` and the count, 0 included (the header: "The return code
    /// will be NVML_ERROR_INSUFFICIENT_SIZE with an updated count value").
    NullSizeError,
    /// The library refuses a NULL array: start with this many elements, then grow to what it
    /// asks for.
    Capacity(u64),
}

#[derive(Debug, Clone, Serialize)]
pub struct ParamPlan {
    pub name: String,
    pub ty: Ty,
    pub role: Role,
    /// What the role rests on.
    pub basis: Basis,
    /// An out-parameter that only says how to read another output (the tag of a
    /// `tagged_values` rule, `nvmlDeviceGetSamples`' `sampleValType`): read, not returned.
    pub types_another: bool,
    /// An input whose value the header says stands for "none" ("Set it to 0 to fetch all
    /// the samples"): the method takes an `Option`, `None` sending this value.
    pub none: Option<u64>,
}

/// One function read: its parameters' roles.
#[derive(Debug, Clone, Serialize)]
pub struct Call {
    pub symbol: String,
    pub params: Vec<ParamPlan>,
    /// Readings the documentation does not confirm, or contradicts: a function a generated
    /// method calls may have none (each is an error naming the function).
    pub doubts: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Method {
    /// The family's API name, or the symbol: what `renames` match.
    pub key: String,
    pub owner: Owner,
    /// The Rust method name.
    pub name: String,
    /// Names a published release gave the method (`former_methods`): deprecated methods that
    /// call it.
    pub former: Vec<String>,
    /// Newest first; the first defines the Rust signature.
    pub calls: Vec<Call>,
    pub shape: &'static str,
    /// The named struct the method returns, when its function has several outputs (see
    /// [`Plan::results`]).
    pub returns: Option<String>,
    /// The members of another shape than the newest (plain parameters where it takes an in/out
    /// record), by symbol: how each maps onto the newest member's record.
    pub across: BTreeMap<String, Across>,
}

/// A struct of a method's outputs, one field per output parameter of the function.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResultStruct {
    /// The function whose output parameters give the fields (the head of the first method
    /// that returns it).
    pub symbol: String,
    /// The output parameters, by C name, in the function's order.
    pub outputs: Vec<String>,
    /// Names a published release gave the struct (after a method's former name): deprecated
    /// aliases of it.
    pub former: Vec<String>,
}

/// The whole plan for one header and rules.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Plan {
    /// Every function of the header read, or why it fits no shape: what the safe and mock
    /// emitters, coverage and header-diff read.
    pub functions: BTreeMap<String, Result<Call, String>>,
    /// Sorted by owner, then method name.
    pub methods: Vec<Method>,
    /// Every non-legacy function without a generated method, and why.
    pub unwrapped: BTreeMap<String, Wrapping>,
    /// Symbol → the key of the method that calls it (legacy symbols included).
    pub wrapped_by: BTreeMap<String, String>,
    /// Records that get a safe Rust type.
    pub records: BTreeSet<String>,
    /// The structs methods with several outputs return, by Rust name.
    pub results: BTreeMap<String, ResultStruct>,
    /// The Rust name of every enum and safe record, by model name (every layout of a record
    /// family has the family's name).
    pub type_names: BTreeMap<String, String>,
    /// Records with several layouts: the newest → every layout, newest first. The safe crate
    /// has one type per family (see [`names::Families`]).
    pub families: names::Families,
    /// The in/out records of methods whose fields' directions are known: the inputs become
    /// parameters and the outputs the return value.
    pub record_io: BTreeMap<String, RecordIo>,
    /// Versioned records → their older layouts the header declares, newest first: a method
    /// whose driver answers `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` retries with them.
    pub older_layouts: BTreeMap<String, Vec<String>>,
    /// What each handle typedef (opaque or id) becomes.
    pub handles: BTreeMap<String, HandlePlan>,
}

/// A handle type of the safe crate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HandlePlan {
    /// The Rust type name.
    pub name: String,
    pub kind: HandleKind,
}

/// How a handle's object lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum HandleKind {
    /// An object the library owns (a device, a unit): the handle is `Clone`.
    Plain,
    /// An object the process allocates (an event set, a GPM sample): not `Clone`, freed on
    /// drop with `free`, the function named; `by_handle` when it takes the handle alone (else
    /// the hand-written code of its `manual` rule frees it).
    Owned { free: String, by_handle: bool },
    /// An object that outlives the process (a GPU or compute instance): not `Clone`, never
    /// destroyed on drop, only by the method that takes it by value.
    Destroyable,
    /// An integer id (`ids` rules): `Clone`.
    Id,
}

impl Plan {
    /// Whether a generated method reads `record` as a list inside a record
    /// ([`Role::RecordList`]), whose inputs an `inputs` rule may give.
    pub fn lists_in(&self, record: &str) -> bool {
        self.methods
            .iter()
            .flat_map(|m| &m.calls)
            .flat_map(|c| &c.params)
            .any(|p| matches!(&p.role, Role::RecordList(l) if l.record == record))
    }

    /// The inputs of list records that carry an enum their comment names (`One of \ref
    /// nvmlProcessMode_t`), as `function.parameter->field` → the enum: what header-diff reads,
    /// beside the `enums` rules, as typed by NVIDIA when the enum is new.
    pub fn typed_fields(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        for c in self.functions.values().filter_map(|c| c.as_ref().ok()) {
            for p in &c.params {
                let Role::RecordList(l) = &p.role else { continue };
                for (field, v) in &l.inputs {
                    if let Val::Enum(e) = v {
                        out.insert(format!("{}.{}->{field}", c.symbol, p.name), e.clone());
                    }
                }
            }
        }
        out
    }

    pub fn method(&self, key: &str) -> Option<&Method> {
        self.methods.iter().find(|m| m.key == key)
    }

    /// How the safe crate wraps `f`.
    pub fn wrapping(&self, f: &Function) -> Wrapping {
        if let Some(w) = self.unwrapped.get(&f.name) {
            return w.clone();
        }
        match self.wrapped_by.get(&f.name).and_then(|k| self.method(k)) {
            Some(m) => match m.calls.iter().find(|c| c.symbol == f.name).and_then(|c| c.doubts.first()) {
                Some(doubt) => Wrapping::NeedsRule(format!("the documentation does not confirm its reading: {doubt}")),
                None => Wrapping::Automatic(m.shape.to_string()),
            },
            None if f.legacy => Wrapping::NeedsRule("a legacy symbol that no versioned family reaches".into()),
            None => Wrapping::NeedsRule("no method was planned for it".into()),
        }
    }

    /// The `absent_fields` keys (`record.field`) of `b` that no versioned family uses: none
    /// converts an older layout lacking the field into the record.
    pub fn unused_absent_fields(&self, b: &Bindings) -> Vec<String> {
        let conversions = self.conversions();
        let lacks = |old: &str, field: &str| {
            b.model.records.get(old).is_some_and(|o| !o.fields.iter().any(|f| f.name == field))
        };
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

/// Reports the rules that the plan shows to change nothing: `strings`, `arrays` and
/// `directions` the header's text already gives, `absent_fields` no conversion uses,
/// `renames` of no generated method.
pub fn check_rules(b: &Bindings, plan: &Plan, rules: &Rules, file: &str, d: &mut Diagnostics) {
    let place = |section: &str, key: &str| format!("{file}: {section}.{key}");
    let reader = Reader { b, records: &plan.records };
    for (key, basis) in redundant_directions(b, rules) {
        d.warn(
            place("directions", &key),
            format!("matches nothing: the header's text gives the same direction ({basis})"),
        );
    }
    for (func, rule) in &b.strings {
        let Some(f) = b.model.functions.get(func) else { continue };
        let same = reader
            .derived_string(f)
            .is_some_and(|(s, _)| s.buffer == rule.buffer && s.length == rule.length && s.size == rule.size);
        if same {
            d.warn(place("strings", func), "matches nothing: the same shape is derived from the header");
        }
    }
    for func in b.arrays.keys() {
        if b.model.functions.get(func).is_some_and(|f| reader.derives_arrays_rule(f)) {
            d.warn(place("arrays", func), "matches nothing: the same shape is derived from the header");
        }
    }
    for func in b.not_arrays.keys() {
        let Some(f) = b.model.functions.get(func) else { continue };
        let mut doubts = Vec::new();
        let string = reader.derived_string(f).map(|(s, _)| s);
        if reader.derived_counted(f, string.as_ref(), &mut doubts).is_none() && doubts.is_empty() {
            d.warn(place("not_arrays", func), "matches nothing: the header gives this function no count and array");
        }
    }
    for key in plan.unused_absent_fields(b) {
        d.warn(
            place("absent_fields", &key),
            "matches nothing: no older layout lacking the field is converted into the record",
        );
    }
    let conversions = plan.conversions();
    for (key, former) in &rules.former_names {
        let record = key.split_once('.').map_or(key.as_str(), |(r, _)| r);
        let used = conversions.iter().any(|(old, new)| {
            new == record && b.model.records.get(old).is_some_and(|o| o.fields.iter().any(|f| f.name == *former))
        });
        if !used {
            d.warn(
                place("former_names", key),
                format!("matches nothing: no older layout with `{former}` is converted"),
            );
        }
    }
    for (record, inputs) in &rules.inputs {
        let cued = b.model.records.get(record).and_then(inout::cued_io);
        if cued.is_some_and(|io| io.inputs == *inputs) {
            d.warn(place("inputs", record), "matches nothing: the fields' comments give the same inputs");
        } else if !plan.record_io.contains_key(record) && !plan.lists_in(record) {
            d.warn(place("inputs", record), "matches nothing: no method takes this record in and out");
        }
    }
    for (key, old) in &rules.fill_from_older {
        let record = key.split_once('.').map_or(key.as_str(), |(r, _)| r);
        let returned = plan
            .methods
            .iter()
            .any(|m| m.returns.is_none() && m.calls[0].sole_record_output().is_some_and(|r| r == record));
        if !returned || !plan.older_layouts.get(record).is_some_and(|l| l.contains(old)) {
            d.warn(
                place("fill_from_older", key),
                format!("matches nothing: no method returns the record with `{old}` as an older layout"),
            );
        }
    }
    for key in rules.former_methods.keys() {
        if plan.method(key).is_none() && b.model.functions.contains_key(key) {
            d.warn(
                place("former_methods", key),
                "names no generated method (a family member is named under its API name)",
            );
        }
    }
    for key in rules.renames.keys() {
        if plan.method(key).is_none() && b.model.functions.contains_key(key) {
            d.warn(place("renames", key), "names no generated method (a family member is renamed under its API name)");
        }
    }
}

/// The value a record field holds when it has none, as the header's text says: "Under WDDM,
/// NVML_VALUE_NOT_AVAILABLE is always reported" / "Set to NVML_VALUE_NOT_AVAILABLE if ..." (all
/// bits set, the C `-1` in the field's width), or "is set to 0xFFFFFFFF otherwise". The safe
/// crate gives such a field an `Option`.
pub fn sentinel(m: &Model, f: &crate::model::Field) -> Option<u64> {
    let doc = f.doc.as_deref()?;
    let bits = match m.resolve_typedef(&f.ty) {
        Ty::UInt => 32,
        Ty::ULongLong => 64,
        _ => return None,
    };
    let all_ones = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    if doc.contains("NVML_VALUE_NOT_AVAILABLE") {
        return Some(all_ones);
    }
    let words: Vec<&str> = doc.split_whitespace().collect();
    let says = words.windows(4).any(|w| {
        w[0] == "set" && w[1] == "to" && w[2].trim_end_matches('.') == "0xFFFFFFFF" && w[3].starts_with("otherwise")
    });
    (says && bits == 32).then_some(all_ones)
}

/// The `directions` rules whose direction the header's text gives with a cue of its own, with
/// that cue.
pub fn redundant_directions(b: &Bindings, rules: &Rules) -> Vec<(String, Basis)> {
    let mut out = Vec::new();
    for (key, rule) in &rules.directions {
        let Some((f, param)) = key.split_once('.').and_then(|(f, p)| Some((b.model.functions.get(f)?, p))) else {
            continue;
        };
        let Some(p) = f.params.iter().find(|p| p.name == param) else { continue };
        // A rule on a pointer its documentation calls an array says that it is one value.
        if reading::array_cue(&reading::doc_text(f, param)).is_some() {
            continue;
        }
        let (dir, basis) = derived_direction(b, f, param, pointee_fields(&b.model, &p.ty));
        if dir == *rule && !matches!(basis, Basis::Doc(ref cue) if cue.is_empty()) {
            out.push((key.clone(), basis));
        }
    }
    out
}

impl Call {
    /// The record the call's only output fills, when it has one output and that is an
    /// out-record: what a method returns as it is where no result struct gathers outputs (the
    /// records `fill_from_older` rules apply to).
    pub fn sole_record_output(&self) -> Option<&String> {
        let mut outputs = self.outputs();
        match (outputs.next().map(|p| &p.role), outputs.next()) {
            (Some(Role::Out(Val::Record(r))), None) => Some(r),
            _ => None,
        }
    }

    /// The parameters whose values the method returns, in order.
    pub fn outputs(&self) -> impl Iterator<Item = &ParamPlan> {
        self.params.iter().filter(|p| {
            !p.types_another
                && matches!(
                    p.role,
                    Role::InOut(_)
                        | Role::Out(_)
                        | Role::StrBuf { .. }
                        | Role::Array { .. }
                        | Role::SizedArray { .. }
                        | Role::Capped { .. }
                        | Role::RecordList(_)
                )
        })
    }

    /// The parameters whose direction no documentation gives (`function.parameter` keys).
    pub fn undocumented_directions(&self) -> Vec<String> {
        self.params
            .iter()
            .filter(|p| matches!(&p.basis, Basis::Doc(cue) if cue.is_empty()))
            .map(|p| format!("{}.{}", self.symbol, p.name))
            .collect()
    }
}

impl Role {
    /// The direction of a pointer that carries one value.
    pub fn direction(&self) -> Option<Direction> {
        match self {
            Role::InPtr(_) => Some(Direction::In),
            Role::InOut(_) => Some(Direction::InOut),
            Role::Out(_) => Some(Direction::Out),
            _ => None,
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
    m.records
        .values()
        .filter(|r| r.kind == RecordKind::Struct && !bad.contains(&r.name))
        .map(|r| r.name.clone())
        .collect()
}

pub(crate) fn has_pointer(m: &Model, rec: &str) -> bool {
    m.records.get(rec).is_some_and(|r| r.fields.iter().any(|f| field_is_bad(m, &f.ty, &BTreeSet::new())))
}

fn field_is_bad(m: &Model, t: &Ty, bad: &BTreeSet<String>) -> bool {
    match t {
        Ty::Named(n) if m.handles.contains_key(n) => false,
        _ => match m.resolve_typedef(t) {
            Ty::Pointer { .. } | Ty::FnPtr { .. } | Ty::Void => true,
            Ty::Array { elem, .. } => field_is_bad(m, elem, bad),
            Ty::Named(n) => {
                bad.contains(n) || (m.records.get(n).is_some_and(|r| r.kind == RecordKind::Union) && has_pointer(m, n))
            }
            _ => false,
        },
    }
}

/// Builds the plan; clashing method names are errors in `d`.
pub fn plan(b: &Bindings, d: &mut Diagnostics) -> Plan {
    let m = &b.model;
    let records = safe_records(m);
    let (type_names, families) = names::type_names(b, &records, d);
    let older_layouts = layouts::older_layouts(b, &records);
    let mut plan = Plan { records, type_names, families, older_layouts, ..Plan::default() };
    let reader = Reader { b, records: &plan.records };
    // Every function read once.
    let inherited = family_docs(b);
    let planned: BTreeMap<String, Result<Call, String>> = m
        .functions
        .values()
        .map(|f| {
            let read = match inherited.get(&f.name) {
                Some(docs) => reader.read(&Function { docs: docs.clone(), ..f.clone() }),
                None => reader.read(f),
            };
            (f.name.clone(), read)
        })
        .collect();
    // Out-parameters that type another output are read, not returned.
    let mut planned = planned;
    for tag in b.tagged_values.values() {
        if let crate::rules::ValueTag::Param { function, param } = tag {
            if let Some(Ok(c)) = planned.get_mut(function) {
                for p in c.params.iter_mut().filter(|p| p.name == *param && matches!(p.role, Role::Out(_))) {
                    p.types_another = true;
                }
            }
        }
    }
    later_layouts(b, &plan.families, &mut planned);
    none_inputs(b, &mut planned);
    let call_of = |f: &Function| planned.get(&f.name).cloned().unwrap_or_else(|| Err("not in the model".into()));

    // Chains: a family's members grouped into runs of one shape; other functions alone.
    let mut in_family: BTreeSet<&str> = BTreeSet::new();
    let mut across: BTreeMap<String, Across> = BTreeMap::new();
    let mut chains: Vec<(String, Vec<&Function>)> = Vec::new();
    for (api, symbols) in &b.families {
        let members: Vec<&Function> = symbols.iter().filter_map(|s| m.functions.get(s)).collect();
        in_family.extend(symbols.iter().map(String::as_str));
        let mut runs: Vec<Vec<&Function>> = Vec::new();
        for f in members {
            match runs.last_mut() {
                Some(run) if compatible(&planned[&run[0].name], &planned[&f.name]) => run.push(f),
                _ => runs.push(vec![f]),
            }
        }
        // A run of plain parameters joins the newest run when every member maps onto the
        // newest member's in/out record (`nvmlDeviceGetTemperature` behind
        // `nvmlDeviceGetTemperatureV`): one method serves both shapes.
        if let Some(Ok(newest)) = runs.first().map(|run| &planned[&run[0].name]) {
            let mut kept: Vec<Vec<&Function>> = Vec::new();
            for (i, run) in runs.into_iter().enumerate() {
                let maps: Option<Vec<Across>> = run
                    .iter()
                    .map(|f| planned[&f.name].as_ref().ok().and_then(|c| inout::across(b, newest, c)))
                    .collect();
                match (i, maps) {
                    (1.., Some(maps)) => {
                        across.extend(run.iter().map(|f| f.name.clone()).zip(maps));
                        kept[0].extend(run);
                    }
                    _ => kept.push(run),
                }
            }
            runs = kept;
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
        for c in &calls {
            for doubt in &c.doubts {
                let place = match m.functions.get(&c.symbol).map_or(0, |f| f.line) {
                    0 => format!("{} (kept from the last release): {}", header_file(&m.header), c.symbol),
                    line => format!("{}:{line}: {}", header_file(&m.header), c.symbol),
                };
                d.error(place, doubt.clone());
            }
        }
        let name = b.renames.get(&key).cloned().unwrap_or_else(|| names::method_name(b, &owner, &key));
        if let Some(other) = names.insert((owner.clone(), name.clone()), key.clone()) {
            d.error(
                format!("{RULES_FILE}: renames"),
                format!(
                    "`{other}` and `{key}` both become method `{name}` of {}; add a `renames` rule",
                    owner_label(b, &owner)
                ),
            );
        }
        for c in &calls {
            plan.wrapped_by.insert(c.symbol.clone(), key.clone());
        }
        let shape = shape_of(&calls[0]);
        let across = calls.iter().filter_map(|c| Some((c.symbol.clone(), across.get(&c.symbol)?.clone()))).collect();
        let former = b.former_methods.get(&key).cloned().unwrap_or_default();
        plan.methods.push(Method { key, owner, name, calls, shape, returns: None, across, former });
    }
    for m in &plan.methods {
        for p in &m.calls[0].params {
            if let Role::InOut(Val::Record(r)) = &p.role {
                if let Some(io) = inout::record_io(b, r) {
                    plan.record_io.insert(r.clone(), io);
                }
            }
        }
    }
    names::drop_version_suffixes(b, &mut plan.methods);
    // A former name (a deprecated alias) is no other method's name, final or former.
    let mut taken: BTreeMap<(&Owner, &str), &str> =
        plan.methods.iter().map(|m| ((&m.owner, m.name.as_str()), m.key.as_str())).collect();
    for m in &plan.methods {
        for old in &m.former {
            if let Some(other) = taken.insert((&m.owner, old.as_str()), m.key.as_str()) {
                d.error(
                    format!("{RULES_FILE}: former_methods.{}", m.key),
                    format!("`{old}` is already a method of {} (`{other}`)", owner_label(b, &m.owner)),
                );
            }
        }
    }
    plan.methods.sort_by(|a, b| (&a.owner, &a.name).cmp(&(&b.owner, &b.name)));
    plan.results = names::result_structs(b, &plan.type_names, &mut plan.methods, d);
    plan.handles = handle_plans(b, &planned);
    plan.functions = planned;
    plan
}

/// A function whose comment says it takes a record layout "or later" (`accepts a versioned
/// nvmlGpuInstanceProfileInfo_v2_t or later output structure`) is read with the newest layout
/// of that record's family, which the method sends first (the older ones follow on
/// `NVML_ERROR_ARGUMENT_VERSION_MISMATCH`, see `layouts.rs`). Only the newest function of its
/// versioned family is: an older member serves drivers that predate the newer function.
fn later_layouts(b: &Bindings, families: &names::Families, planned: &mut BTreeMap<String, Result<Call, String>>) {
    let heads: BTreeMap<&str, &str> =
        families.iter().flat_map(|(head, layouts)| layouts.iter().map(move |l| (l.as_str(), head.as_str()))).collect();
    let older_member = |f: &str| b.families.values().any(|symbols| symbols.iter().skip(1).any(|s| s == f));
    for (name, call) in planned.iter_mut() {
        let (Ok(call), Some(f)) = (call, b.model.functions.get(name)) else { continue };
        if older_member(name) {
            continue;
        }
        let doc = f.doc.as_deref().unwrap_or("");
        for p in &mut call.params {
            let (Role::Out(Val::Record(r)) | Role::InOut(Val::Record(r))) = &mut p.role else { continue };
            let layout =
                b.model.typedefs.values().find(|t| t.ty == Ty::Named(r.clone())).map_or(r.clone(), |t| t.name.clone());
            let says = [r.as_str(), layout.as_str()].iter().any(|n| doc.contains(&format!("{n} or later")));
            match heads.get(r.as_str()) {
                Some(head) if says && *head != r.as_str() => {
                    p.basis = Basis::Doc(format!("takes \"{layout} or later\": the newest layout"));
                    *r = head.to_string();
                }
                _ => {}
            }
        }
    }
}

/// Inputs the function's comment says to set to 0 for none of a filter ("lastSeenTimeStamp
/// represents CPU timestamp in microseconds. Set it to 0 to fetch all the samples"; "Set
/// lastSeenTimeStamp to 0 ..."): integers passed by value, which the method takes as an
/// `Option`.
fn none_inputs(b: &Bindings, planned: &mut BTreeMap<String, Result<Call, String>>) {
    for (name, call) in planned.iter_mut() {
        let (Ok(call), Some(f)) = (call, b.model.functions.get(name)) else { continue };
        let doc = f.doc.as_deref().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ");
        for p in call.params.iter_mut().filter(|p| matches!(p.role, Role::In(Val::Scalar(_)))) {
            let named = format!("{} represents", p.name);
            let says = doc.contains(&format!("Set {} to 0", p.name))
                || doc.find(&named).is_some_and(|i| doc[i..].split(". ").take(3).any(|s| s.starts_with("Set it to 0")));
            if says {
                p.none = Some(0);
                p.basis = Basis::Doc(format!("\"Set {} to 0\" for none", p.name));
            }
        }
    }
}

/// The kind of every handle type: `owned` rules; handles some function destroys; the rest.
fn handle_plans(b: &Bindings, read: &BTreeMap<String, Result<Call, String>>) -> BTreeMap<String, HandlePlan> {
    let destroyed: BTreeSet<&str> = read
        .values()
        .filter_map(|c| c.as_ref().ok())
        .filter(|c| c.params.first().is_some_and(|p| p.role == Role::SelfConsumed))
        .filter_map(|c| match &c.params[0].ty {
            Ty::Named(h) => Some(h.as_str()),
            _ => None,
        })
        .collect();
    let mut out = BTreeMap::new();
    for (typedef, name) in &b.handles {
        let kind = match b.owned.get(typedef) {
            Some(free) => {
                let by_handle = b
                    .model
                    .functions
                    .get(free)
                    .is_some_and(|f| f.params.len() == 1 && f.params[0].ty == Ty::Named(typedef.clone()));
                HandleKind::Owned { free: free.clone(), by_handle }
            }
            None if destroyed.contains(typedef.as_str()) => HandleKind::Destroyable,
            None => HandleKind::Plain,
        };
        out.insert(typedef.clone(), HandlePlan { name: name.clone(), kind });
    }
    for (typedef, name) in &b.ids {
        out.insert(typedef.clone(), HandlePlan { name: name.clone(), kind: HandleKind::Id });
    }
    out
}

/// The header as diagnostics name it: `nvml-headers/<version>/nvml.h` for a published
/// version, else its file name.
fn header_file(h: &crate::model::HeaderInfo) -> String {
    match crate::model::version_key(&h.version) {
        Some(_) => format!("nvml-headers/{}/nvml.h", h.version),
        None => h.version.clone(),
    }
}

/// Legacy and older members of a versioned family often carry no documentation of their own:
/// they are read with that of the newest member that documents the same parameters.
fn family_docs(b: &Bindings) -> BTreeMap<String, FunctionDoc> {
    let mut out = BTreeMap::new();
    for symbols in b.families.values() {
        let members: Vec<&Function> = symbols.iter().filter_map(|s| b.model.functions.get(s)).collect();
        for f in members.iter().filter(|f| f.docs.params.is_empty()) {
            let same_params = |g: &&&Function| {
                !g.docs.params.is_empty() && g.params.iter().map(|p| &p.name).eq(f.params.iter().map(|p| &p.name))
            };
            if let Some(g) = members.iter().find(same_params) {
                out.insert(f.name.clone(), g.docs.clone());
            }
        }
    }
    out
}

/// The Rust type a method of `o` belongs to: `Nvml`, or the handle's safe type.
pub fn owner_label(b: &Bindings, o: &Owner) -> String {
    match o {
        Owner::Nvml => "Nvml".into(),
        Owner::Handle(h) => b.handle_type(h).unwrap_or(h).to_string(),
    }
}

pub(crate) fn owner_of(b: &Bindings, f: &Function) -> Owner {
    match f.params.first().map(|p| &p.ty) {
        Some(Ty::Named(n)) if b.handle_type(n).is_some() => Owner::Handle(n.clone()),
        _ => Owner::Nvml,
    }
}

/// A call's shape in a few words: what `coverage` and header-diff name.
pub fn shape_of(c: &Call) -> &'static str {
    let has = |f: fn(&Role) -> bool| c.params.iter().any(|p| f(&p.role));
    let arrays = c.params.iter().filter(|p| matches!(p.role, Role::Array { .. } | Role::Capped { .. })).count();
    let string = has(|r| matches!(r, Role::StrBuf { .. }));
    if has(|r| matches!(r, Role::RecordList(_))) {
        return "list inside a record";
    }
    match (string, arrays, has(|r| matches!(r, Role::SizedArray { .. }))) {
        (true, 1.., _) => "string buffer + count + array",
        (true, 0, _) => "string buffer",
        (false, 2.., _) => "count + parallel arrays",
        (false, 1, _) => "count + array",
        (false, 0, true) => "caller-sized array",
        (false, 0, false) if has(|r| matches!(r, Role::SelfConsumed)) => "destroys its handle",
        (false, 0, false) => "plain",
    }
}

/// Whether the call planned as `g` can serve as a fallback of `f`: the same roles, records
/// converted by field.
fn compatible(f: &Result<Call, String>, g: &Result<Call, String>) -> bool {
    let (Ok(a), Ok(b)) = (f, g) else { return false };
    a.params.len() == b.params.len()
        && a.params.iter().zip(&b.params).all(|(x, y)| match (&x.role, &y.role) {
            (Role::Out(Val::Record(_)), Role::Out(Val::Record(_))) => true,
            (Role::Array { val: Val::Record(_), unused: a }, Role::Array { val: Val::Record(_), unused: b }) => a == b,
            (Role::Capped { val: Val::Record(_), capacity: a }, Role::Capped { val: Val::Record(_), capacity: b }) => {
                a == b
            }
            (Role::InOut(Val::Record(_)), Role::InOut(Val::Record(_))) => true,
            (r, s) => r == s,
        })
}
