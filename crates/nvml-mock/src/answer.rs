//! A profile's values of the functions the mock answers from data (`generated/answers/`).
//!
//! A device (or the system, a vGPU type, ...) names such a function by its C name, with its
//! outputs by the header's parameter names, records by their C field names and selector inputs
//! by their constants' names:
//!
//! ```yaml
//! nvmlDeviceGetMemoryBusWidth: 5120                 # one output: its value
//! nvmlDeviceGetGspFirmwareMode: {isEnabled: 1, defaultMode: 1}   # several: by name
//! nvmlDeviceGetEncoderCapacity:                     # a selector: one entry per value
//!   NVML_ENCODER_QUERY_H264: 100
//!   "*": 0                                          # every other value
//! nvmlDeviceGetAccountingMode: {error: NVML_ERROR_NOT_SUPPORTED, reason: "..."}
//! ```
//!
//! [`parse_entry`] checks a value against the function's schema when the profile loads, so a
//! misspelt name or a value of the wrong type is an error naming its path. An `error` entry
//! (at the function or at a selector value) is the code the function answers there, with the
//! reason the mock's README lists.

use std::collections::BTreeMap;
use std::ffi::{c_char, c_uint};

use nvml_sys::*;
use serde_yaml::Value;

use crate::generated::names::CONSTANTS;
use crate::generated::tables::{ENUMS, FUNCTIONS, RECORDS};
use crate::schema::{Field, FunctionSchema, Output, RecordSchema, Shape, T};

/// What the answers from a profile's values (`generated/answers/`) ask of whoever answers
/// the calls (the engine, or the hostile mode): the `Api` trait rests on it.
pub trait Answer {
    /// Called by every function that has no answer; returns the status the caller sees
    /// (`NVML_ERROR_NOT_SUPPORTED`).
    fn unimplemented(&self, function: &'static str) -> nvmlReturn_t;
    /// The profile's values of function `id` (`generated::names::id`) for `object` and the
    /// selector values, handed to `write` (one value per output of the function's schema);
    /// returns `write`'s status, or the error the profile gives (or `unimplemented` when it
    /// gives none).
    fn answer(
        &self,
        id: usize,
        object: Object,
        selectors: &[i64],
        write: &mut dyn FnMut(&[Val]) -> Result<(), nvmlReturn_t>,
    ) -> nvmlReturn_t;
    /// Whether the driver answering knows the record version `constant`
    /// (`nvmlPlatformInfo_v2`): the engine asks its profile's driver
    /// ([`crate::driver::knows_version`]); whoever emulates no driver knows every version.
    fn knows_version(&self, constant: &'static str) -> bool {
        let _ = constant;
        true
    }
}

/// Which layout of a versioned record the caller asks for: the index in `layouts` (`(version
/// constant, its name)`, newest first) of the version in the record's first field, when the
/// driver answering knows that version; `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` for any other
/// version, as a driver answers a version it does not know (an older driver, a newer record).
pub fn record_layout<A: Answer + ?Sized>(
    a: &A,
    record: *const c_uint,
    layouts: &[(c_uint, &'static str)],
) -> Result<usize, nvmlReturn_t> {
    let version = crate::ffi::get(record)?;
    layouts
        .iter()
        .position(|(v, name)| *v == version && a.knows_version(name))
        .ok_or(NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
}

/// Looks up an NVML constant by name.
pub fn constant(name: &str) -> Option<i128> {
    CONSTANTS.binary_search_by(|(n, _)| (*n).cmp(name)).ok().map(|i| CONSTANTS[i].1)
}

/// The object a call is for: its handle, as the caller passed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Object {
    System,
    Device(nvmlDevice_t),
    Unit(nvmlUnit_t),
    GpuInstance(nvmlGpuInstance_t),
    ComputeInstance(nvmlComputeInstance_t),
    VgpuType(nvmlVgpuTypeId_t),
    VgpuInstance(nvmlVgpuInstance_t),
}

/// A call as an export hands it to the engine: the function (its id, `generated::names::id`,
/// and its name), the object it is for, its inputs by value that select an answer (in
/// parameter order), and the versioned record it passes (NULL when it takes none), which the
/// engine checks before the function runs.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub id: usize,
    pub name: &'static str,
    pub object: Object,
    pub selectors: &'a [i64],
    pub record: *const c_uint,
}

impl Call<'_> {
    /// A call with no selectors and no record; a function that is not nvml.h's (a hook of the
    /// mock's own) has the id [`NO_ID`].
    pub fn plain(name: &'static str, object: Object) -> Call<'static> {
        Call { id: function_id(name).unwrap_or(NO_ID), name, object, selectors: &[], record: std::ptr::null() }
    }
}

/// The id of a function that is not one of nvml.h's.
pub const NO_ID: usize = usize::MAX;

/// The id of a function of nvml.h (its index in `generated::names::FUNCTIONS`).
pub fn function_id(name: &str) -> Option<usize> {
    crate::generated::names::FUNCTIONS.binary_search(&name).ok()
}

/// The name of function `id`.
pub fn function_name(id: usize) -> &'static str {
    crate::generated::names::FUNCTIONS.get(id).copied().unwrap_or("(not a function of nvml.h)")
}

/// A checked value.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Int(i128),
    Float(f64),
    Str(String),
    List(Vec<Val>),
    Record(BTreeMap<&'static str, Val>),
    /// A union's member (its index among the union's fields) and value.
    Member(usize, Box<Val>),
}

/// What a field absent from a record reads as.
static ZERO: Val = Val::Int(0);

impl Val {
    pub fn int(&self) -> i64 {
        match self {
            Val::Int(i) => *i as i64,
            Val::Float(f) => *f as i64,
            _ => 0,
        }
    }

    pub fn uint(&self) -> u64 {
        match self {
            Val::Int(i) => *i as u64,
            Val::Float(f) => *f as u64,
            _ => 0,
        }
    }

    pub fn float(&self) -> f64 {
        match self {
            Val::Int(i) => *i as f64,
            Val::Float(f) => *f,
            _ => 0.0,
        }
    }

    pub fn str(&self) -> &str {
        match self {
            Val::Str(s) => s,
            _ => "",
        }
    }

    /// The string, cut to fit a buffer of `size` bytes with its NUL.
    pub fn str_within(&self, size: u32) -> &str {
        crate::ffi::crop(self.str(), size as usize)
    }

    pub fn items(&self) -> &[Val] {
        match self {
            Val::List(v) => v,
            _ => &[],
        }
    }

    /// A record's field, if the profile gives it.
    pub fn get(&self, name: &str) -> Option<&Val> {
        match self {
            Val::Record(r) => r.get(name),
            _ => None,
        }
    }

    /// A record's field (zero when the profile leaves it out).
    pub fn field(&self, name: &str) -> &Val {
        match self {
            Val::Record(r) => r.get(name).unwrap_or(&ZERO),
            _ => &ZERO,
        }
    }

    pub fn member(&self) -> Option<(usize, &Val)> {
        match self {
            Val::Member(i, v) => Some((*i, v)),
            _ => None,
        }
    }
}

/// A `char[N]` field holding `v`'s string (cut to leave the NUL).
pub fn chars<const N: usize>(v: &Val) -> [c_char; N] {
    let mut out = [0 as c_char; N];
    for (d, b) in out.iter_mut().zip(v.str_within(N as u32).bytes()) {
        *d = b as c_char;
    }
    out
}

/// An array field from `v`'s items (zeros after them).
pub fn array<E: Copy + Default, const N: usize>(v: &Val, f: impl Fn(&Val) -> E) -> [E; N] {
    let mut out = [E::default(); N];
    for (d, x) in out.iter_mut().zip(v.items()) {
        *d = f(x);
    }
    out
}

/// A function's values for one object.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// One value per output.
    Values(Vec<Val>),
    /// The function answers `code` here, for `reason`.
    Error { code: nvmlReturn_t, reason: String },
    /// One entry per value of the next selector; `other` for the values not listed.
    Select { by: BTreeMap<i64, Entry>, other: Option<Box<Entry>> },
}

impl Entry {
    /// The entry for these selector values: `None` when a selector value is not listed (and
    /// no `'*'` entry stands for the others).
    pub fn select(&self, selectors: &[i64]) -> Option<&Entry> {
        match (self, selectors.split_first()) {
            (Entry::Select { by, other }, Some((s, rest))) => by.get(s).or(other.as_deref())?.select(rest),
            (e, _) => Some(e),
        }
    }
}

/// The schema of a function answered from data.
pub fn schema(function: &str) -> Option<&'static FunctionSchema> {
    function_id(function).and_then(schema_of)
}

/// The schema of function `id` (`generated::names::id`), if it is answered from data: the
/// areas' lists (each sorted by name) are put by id once per process, so that a look-up is
/// one index rather than a search of every area.
pub fn schema_of(id: usize) -> Option<&'static FunctionSchema> {
    static BY_ID: std::sync::OnceLock<Vec<Option<&'static FunctionSchema>>> = std::sync::OnceLock::new();
    let by_id = BY_ID.get_or_init(|| {
        let mut by_id = vec![None; crate::generated::names::FUNCTIONS.len()];
        for f in FUNCTIONS.iter().flat_map(|area| area.iter()) {
            if let Some(slot) = function_id(f.name).and_then(|i| by_id.get_mut(i)) {
                *slot = Some(f);
            }
        }
        by_id
    });
    by_id.get(id).copied().flatten()
}

fn record(name: &str) -> Option<&'static RecordSchema> {
    RECORDS.iter().find_map(|area| area.binary_search_by(|r| r.name.cmp(name)).ok().map(|i| &area[i]))
}

pub fn enum_constants(name: &str) -> &'static [&'static str] {
    ENUMS.binary_search_by(|(e, _)| (*e).cmp(name)).ok().map(|i| ENUMS[i].1).unwrap_or_default()
}

/// Where a value is in a profile, for messages: written out only when one is needed (a
/// recorded GPU's values are thousands, and nearly all of them are right).
#[derive(Debug, Clone, Copy)]
pub enum Path<'a> {
    At(&'a str),
    /// A mapping's key under a path: `path.key`.
    Key(&'a Path<'a>, &'a Value),
    /// A named member under a path (an output): `path.name`.
    Name(&'a Path<'a>, &'a str),
    /// A list's item under a path: `path[i]`.
    Index(&'a Path<'a>, usize),
}

impl std::fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Path::At(p) => f.write_str(p),
            Path::Key(p, k) => write!(f, "{p}.{}", key_text(k)),
            Path::Name(p, n) => write!(f, "{p}.{n}"),
            Path::Index(p, i) => write!(f, "{p}[{i}]"),
        }
    }
}

/// An `error` entry: `{error: CODE, reason: "..."}`; `None` when `v` is not one.
pub fn parse_error<P: std::fmt::Display + ?Sized>(v: &Value, path: &P) -> Option<Result<Entry, String>> {
    let m = v.as_mapping()?;
    let code = m.get("error")?;
    for k in m.keys() {
        if !matches!(k.as_str(), Some("error" | "reason")) {
            return Some(Err(format!("{path}: `{}`: an error entry has only `error` and `reason`", key_text(k))));
        }
    }
    let code = match code {
        Value::String(s) if s.starts_with("NVML_ERROR_") || s == "NVML_SUCCESS" => {
            constant(s).map(|c| c as nvmlReturn_t)
        }
        Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        _ => None,
    };
    let Some(code) = code else {
        return Some(Err(format!("{path}.error: expected an NVML return code such as NVML_ERROR_NOT_SUPPORTED")));
    };
    let reason = match m.get("reason") {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Some(Err(format!("{path}.reason: expected a string"))),
    };
    Some(Ok(Entry::Error { code, reason }))
}

/// Checks a profile's value of `function` (at `path`, for messages) against its schema.
pub fn parse_entry(f: &FunctionSchema, v: &Value, path: &str) -> Result<Entry, String> {
    parse_level(f, f.selectors, v, &Path::At(path))
}

fn parse_level(f: &FunctionSchema, selectors: &[Field], v: &Value, path: &Path) -> Result<Entry, String> {
    if let Some(e) = parse_error(v, path) {
        return e;
    }
    let Some((sel, rest)) = selectors.split_first() else { return parse_values(f, v, path) };
    // The input fields of a record are optional levels: a value that is not a mapping by their
    // values is the answer whatever they are.
    let optional = selectors.len() <= f.record_inputs;
    let by_values = |m: &serde_yaml::Mapping| {
        !m.is_empty() && m.keys().all(|k| k.as_str() == Some("*") || parse_value(&sel.ty, k, path).is_ok())
    };
    if optional && !v.as_mapping().is_some_and(by_values) {
        return parse_values(f, v, path);
    }
    let m = v
        .as_mapping()
        .ok_or_else(|| format!("{path}: expected a mapping by `{}` (a selector of {})", sel.name, f.name))?;
    let mut by = BTreeMap::new();
    let mut other = None;
    for (k, val) in m {
        // `null` removes a base's value for this selector value: the engine answers it.
        if val.is_null() {
            continue;
        }
        let kp = Path::Key(path, k);
        let entry = parse_level(f, rest, val, &kp)?;
        if k.as_str() == Some("*") {
            other = Some(Box::new(entry));
            continue;
        }
        let key = parse_value(&sel.ty, k, &kp).map_err(|e| format!("{e} (a value of `{}`, or \"*\")", sel.name))?;
        by.insert(key.int(), entry);
    }
    Ok(Entry::Select { by, other })
}

/// The value of selector `sel` that a profile's key `k` names (as [`parse_entry`] reads the
/// keys of a mapping by selector values); `None` for `"*"` and for a key that names none.
pub fn selector_value(sel: &Field, k: &Value) -> Option<i64> {
    parse_value(&sel.ty, k, &Path::At("")).ok().map(|v| v.int())
}

/// The errors of a function written by hand by its selector values: a mapping by the first
/// selector (its constants, numbers or `"*"`) down to `error` entries; a value it does not list
/// is answered by the engine.
pub fn parse_selected_errors(function: &str, selectors: &[Field], v: &Value, path: &str) -> Result<Entry, String> {
    selected_errors(function, selectors, v, &Path::At(path))
}

fn selected_errors(function: &str, selectors: &[Field], v: &Value, path: &Path) -> Result<Entry, String> {
    if let Some(e) = parse_error(v, path) {
        return e;
    }
    let Some((sel, rest)) = selectors.split_first() else {
        return Err(format!(
            "{path}: the mock answers {function} from other values (see its README); a profile can only give it errors"
        ));
    };
    let m = v.as_mapping().ok_or_else(|| {
        format!("{path}: expected an error, or a mapping by `{}` (a selector of {function}) down to errors", sel.name)
    })?;
    let mut by = BTreeMap::new();
    let mut other = None;
    for (k, val) in m {
        let kp = Path::Key(path, k);
        let entry = selected_errors(function, rest, val, &kp)?;
        if k.as_str() == Some("*") {
            other = Some(Box::new(entry));
            continue;
        }
        let key = parse_value(&sel.ty, k, &kp).map_err(|e| format!("{e} (a value of `{}`, or \"*\")", sel.name))?;
        by.insert(key.int(), entry);
    }
    Ok(Entry::Select { by, other })
}

fn parse_values(f: &FunctionSchema, v: &Value, path: &Path) -> Result<Entry, String> {
    let [only] = f.outputs else {
        let m = v.as_mapping().ok_or_else(|| {
            let names: Vec<&str> = f.outputs.iter().map(|o| o.name).collect();
            format!("{path}: expected a mapping of {}'s outputs ({})", f.name, names.join(", "))
        })?;
        for k in m.keys() {
            if !f.outputs.iter().any(|o| Some(o.name) == k.as_str()) {
                let names: Vec<&str> = f.outputs.iter().map(|o| o.name).collect();
                return Err(format!("{path}.{}: not an output of {} ({})", key_text(k), f.name, names.join(", ")));
            }
        }
        let mut out = Vec::new();
        for o in f.outputs {
            let p = Path::Name(path, o.name);
            let x = m.get(o.name).ok_or_else(|| format!("{p}: missing"))?;
            out.push(parse_output(o, x, &p)?);
        }
        return Ok(Entry::Values(out));
    };
    Ok(Entry::Values(vec![parse_output(only, v, path)?]))
}

fn parse_output(o: &Output, v: &Value, path: &Path) -> Result<Val, String> {
    match o.shape {
        Shape::Value => parse_value(&o.ty, v, path),
        Shape::List => {
            let items = v.as_sequence().ok_or_else(|| format!("{path}: expected a list"))?;
            let items = items.iter().enumerate().map(|(i, x)| parse_value(&o.ty, x, &Path::Index(path, i)));
            Ok(Val::List(items.collect::<Result<_, _>>()?))
        }
    }
}

fn key_text(k: &Value) -> String {
    match k {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        other => format!("{other:?}"),
    }
}

/// A number, or an integer constant of the header by name.
fn integer(v: &Value) -> Option<i128> {
    match v {
        Value::Number(n) => n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from)),
        Value::String(s) => constant(s),
        Value::Bool(b) => Some(i128::from(*b)),
        _ => None,
    }
}

/// Checks one value against its type.
pub fn parse_value(t: &T, v: &Value, path: &Path) -> Result<Val, String> {
    let bad = |want: &str| format!("{path}: expected {want}, found {}", short(v));
    match t {
        T::Int { signed, bits } => {
            let i = integer(v).ok_or_else(|| bad("an integer or an NVML constant"))?;
            let (lo, hi) = match (signed, bits) {
                (true, b) => (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1),
                (false, b) => (0, (1i128 << b) - 1),
            };
            if !(lo..=hi).contains(&i) {
                return Err(format!(
                    "{path}: {i} does not fit a {}{bits}-bit integer",
                    if *signed { "signed " } else { "" }
                ));
            }
            Ok(Val::Int(i))
        }
        T::Float => match v {
            Value::Number(n) => n.as_f64().map(Val::Float).ok_or_else(|| bad("a number")),
            _ => Err(bad("a number")),
        },
        T::Enum(e) => match v {
            Value::String(s) => {
                if !enum_constants(e).contains(&s.as_str()) {
                    return Err(format!("{path}: `{s}` is not a constant of {e}"));
                }
                constant(s).map(Val::Int).ok_or_else(|| bad("a constant"))
            }
            Value::Number(_) => integer(v).map(Val::Int).ok_or_else(|| bad("a number")),
            _ => Err(bad(&format!("a constant of {e}"))),
        },
        T::Flags => {
            let one = |x: &Value| integer(x).ok_or_else(|| bad("NVML constants or a number"));
            match v {
                Value::Sequence(s) => {
                    Ok(Val::Int(s.iter().map(one).collect::<Result<Vec<_>, _>>()?.into_iter().fold(0, |a, b| a | b)))
                }
                x => one(x).map(Val::Int),
            }
        }
        T::Chars(n) => {
            let s = v.as_str().ok_or_else(|| bad("a string"))?;
            if s.len() >= *n {
                return Err(format!("{path}: `{s}` is longer than {} bytes", n - 1));
            }
            Ok(Val::Str(s.to_string()))
        }
        T::Str => v.as_str().map(|s| Val::Str(s.to_string())).ok_or_else(|| bad("a string")),
        T::Array(e, n) => {
            let items = v.as_sequence().ok_or_else(|| bad(&format!("a list of at most {n}")))?;
            if items.len() > *n {
                return Err(format!("{path}: {} values, at most {n} fit", items.len()));
            }
            let items = items.iter().enumerate().map(|(i, x)| parse_value(e, x, &Path::Index(path, i)));
            Ok(Val::List(items.collect::<Result<_, _>>()?))
        }
        T::Record(r) | T::Union(r) => {
            let rs = record(r).ok_or_else(|| format!("{path}: record {r} has no schema (a mock bug)"))?;
            let m = v.as_mapping().ok_or_else(|| bad(&format!("a mapping of {r}'s fields")))?;
            let mut fields = BTreeMap::new();
            let mut member = None;
            for (k, x) in m {
                let kp = Path::Key(path, k);
                let Some((i, f)) = rs.fields.iter().enumerate().find(|(_, f)| Some(f.name) == k.as_str()) else {
                    let names: Vec<&str> = rs.fields.iter().map(|f| f.name).collect();
                    return Err(format!("{kp}: not a field of {r} ({})", names.join(", ")));
                };
                let val = parse_value(&f.ty, x, &kp)?;
                if rs.union {
                    member = Some((i, val.clone()));
                }
                fields.insert(f.name, val);
            }
            if rs.union {
                match (fields.len(), member) {
                    (1, Some((i, val))) => Ok(Val::Member(i, Box::new(val))),
                    _ => Err(format!("{path}: a union takes exactly one of its members")),
                }
            } else {
                Ok(Val::Record(fields))
            }
        }
    }
}

fn short(v: &Value) -> String {
    let s = match v {
        Value::Null => "nothing".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("`{s}`"),
        Value::Sequence(_) => "a list".to_string(),
        Value::Mapping(_) => "a mapping".to_string(),
        Value::Tagged(t) => format!("{t:?}"),
    };
    s.chars().take(60).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(function: &str, yaml: &str) -> Result<Entry, String> {
        let v: Value = serde_yaml::from_str(yaml).unwrap();
        parse_entry(schema(function).unwrap(), &v, function)
    }

    #[test]
    fn schemas_are_sorted_for_lookup() {
        assert!(FUNCTIONS.iter().all(|area| area.windows(2).all(|w| w[0].name < w[1].name)));
        assert!(RECORDS.iter().all(|area| area.windows(2).all(|w| w[0].name < w[1].name)));
        assert!(ENUMS.windows(2).all(|w| w[0].0 < w[1].0));
        // Every schema is found by its function's id, and only functions of a schema have one.
        let mut found = 0;
        for f in FUNCTIONS.iter().flat_map(|area| area.iter()) {
            assert!(schema(f.name).is_some_and(|s| std::ptr::eq(s, f)), "{}", f.name);
            found += 1;
        }
        let by_id = (0..crate::generated::names::FUNCTIONS.len()).filter(|i| schema_of(*i).is_some()).count();
        assert_eq!(by_id, found);
    }

    #[test]
    fn values_are_checked_against_the_header() {
        let e = entry("nvmlDeviceGetMemoryBusWidth", "5120").unwrap();
        assert_eq!(e, Entry::Values(vec![Val::Int(5120)]));
        let e = entry("nvmlDeviceGetMemoryBusWidth", "-1").unwrap_err();
        assert_eq!(e, "nvmlDeviceGetMemoryBusWidth: -1 does not fit a 32-bit integer");
        let e = entry("nvmlDeviceGetGspFirmwareMode", "{isEnabled: 1, defaultMod: 1}").unwrap_err();
        assert!(
            e.starts_with("nvmlDeviceGetGspFirmwareMode.defaultMod: not an output of nvmlDeviceGetGspFirmwareMode"),
            "{e}"
        );
        let e = entry("nvmlDeviceGetGspFirmwareMode", "{isEnabled: 1}").unwrap_err();
        assert_eq!(e, "nvmlDeviceGetGspFirmwareMode.defaultMode: missing");
        let e = entry("nvmlDeviceGetAccountingMode", "{error: NVML_ERROR_NOT_SUPPORTED, reason: needs root}").unwrap();
        assert_eq!(e, Entry::Error { code: NVML_ERROR_NOT_SUPPORTED, reason: "needs root".into() });
    }

    #[test]
    fn selectors_take_their_enum_constants() {
        let e = entry("nvmlDeviceGetEncoderCapacity", "{NVML_ENCODER_QUERY_H264: 100, '*': 0}").unwrap();
        assert_eq!(e.select(&[NVML_ENCODER_QUERY_H264 as i64]), Some(&Entry::Values(vec![Val::Int(100)])));
        assert_eq!(e.select(&[NVML_ENCODER_QUERY_HEVC as i64]), Some(&Entry::Values(vec![Val::Int(0)])));
        let e = entry("nvmlDeviceGetEncoderCapacity", "{NVML_CLOCK_SM: 100}").unwrap_err();
        assert!(
            e.starts_with("nvmlDeviceGetEncoderCapacity.NVML_CLOCK_SM: `NVML_CLOCK_SM` is not a constant of"),
            "{e}"
        );
    }
}
