//! The rules stage: `gen-config/nvml.yaml` applied to the [`Model`].
//!
//! The YAML file is deserialised into [`Rules`] (unknown keys are errors) and checked against
//! the model: a rule naming a function, parameter, type or constant the header lacks is an
//! error that names the rule and the file; a rule that changes nothing is a warning, so a rule
//! made stale by a header bump surfaces.
//!
//! Precedence: an explicit rule wins over what the plan stage derives from the header's
//! prototypes and documentation; `skip` and `manual` win over every shape. The shapes
//! themselves (string buffers, counts and arrays, directions) are derived and corroborated in
//! the plan stage (`xtask/src/plan/reading.rs`); this stage checks each rule against the model.

pub mod mock;
pub mod names;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::diag::Diagnostics;
use crate::model::{ConstValue, Function, Model, Ty};

/// The contents of `gen-config/nvml.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Rules {
    /// Opaque handle typedef → the name of its safe handle type, e.g. `nvmlDevice_t: Device`.
    /// Every handle of the header needs one; a name that is not an opaque handle is an error.
    pub handles: BTreeMap<String, String>,
    /// Versioned-symbol overrides: API name → the symbols to try, newest first. Without an
    /// override a family is derived from the header: the `#define nvmlX nvmlX_vN` table plus
    /// every prototype `nvmlX_vN` or `nvmlXV` of a base `nvmlX`, ordered `_vN` (highest first),
    /// then `V`, then the base name.
    pub versions: BTreeMap<String, Vec<String>>,
    /// String-buffer functions: the `char *` parameter, its length parameter and the header
    /// constant (or number) that sizes it. Derived when a `char *` is followed by an
    /// `unsigned int` length and the documentation names exactly one `..._SIZE` constant.
    pub strings: BTreeMap<String, StringRule>,
    /// Count + array functions whose shape the header's text does not state, or states
    /// otherwise than the plan would read it (see `ArrayRule`). Derived when an
    /// `unsigned int *` named `...count...` sits next to a pointer and the documentation calls
    /// them an array's size and an array.
    pub arrays: BTreeMap<String, ArrayRule>,
    /// Functions whose pointers are plain out-parameters although their names look like a
    /// count and an array (`sessionCount` next to `averageFps`), with the reason.
    pub not_arrays: BTreeMap<String, String>,
    /// Handle typedefs of objects the process allocates and must free (event sets, GPM
    /// samples) → the function that frees them: their safe types are not `Clone` and free
    /// the object when dropped.
    pub owned: BTreeMap<String, String>,
    /// Function → method name in the safe crate, where the derived snake-case name is wrong.
    pub renames: BTreeMap<String, String>,
    /// Functions (a trailing `*` matches a prefix) the safe crate does not wrap, with the reason.
    pub skip: BTreeMap<String, String>,
    /// Functions wrapped by a hand-written file of the safe crate, with that file's path.
    pub manual: BTreeMap<String, String>,
    /// Integer typedefs that identify an object, e.g. `nvmlVgpuInstance_t: VgpuInstance`: they
    /// become handle types like the opaque handles.
    pub ids: BTreeMap<String, String>,
    /// `function.parameter` → `in`, `out` or `inout`, for a non-const pointer whose direction
    /// the header does not make clear (see `shape::direction` for the default).
    pub directions: BTreeMap<String, Direction>,
    /// Bit masks defined as `#define`s: a bitflags type name → the constants' prefix and the
    /// parameters (`function.parameter`) and record fields (`record.field`) that carry it.
    pub bitflags: BTreeMap<String, FlagsRule>,
    /// Versioned record → the constant that gives its `version` field, where neither the
    /// header's `nvmlX_vN` naming nor the field's comment (`Set to NVML_X_VERSION`) does.
    pub struct_versions: BTreeMap<String, String>,
    /// `record.field` → its value (a header constant or a number) when the record is built
    /// from an older layout of a versioned family that lacks the field; other missing fields
    /// are zero. For sentinels such as "no MIG instance" (`0xFFFFFFFF`), where 0 is a real id.
    pub absent_fields: BTreeMap<String, SizeSpec>,
}

/// Which way a pointer parameter carries data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    In,
    Out,
    InOut,
}

/// A bitflags type made of `#define`d bits.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FlagsRule {
    /// Every integer constant whose name starts with this is a flag (zero-valued ones aside).
    pub prefix: String,
    /// Constants with the prefix that are not bits (e.g. a `...Count` of the types).
    pub exclude: Vec<String>,
    /// Further prefixes: their constants join the type when no constant of `prefix` has the
    /// same value (the hardware bits of `ClocksEventReasons` are spelled only
    /// `nvmlClocksThrottleReasonHw*`).
    pub aliases: Vec<String>,
    pub params: Vec<String>,
    pub fields: Vec<String>,
}

/// `char *buffer` sized by `length`, which must hold at least `size` bytes. Without `length`
/// the buffer has no length parameter: the library writes at most `size` bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StringRule {
    pub buffer: String,
    #[serde(default)]
    pub length: Option<String>,
    /// A header constant, e.g. `NVML_DEVICE_NAME_V2_BUFFER_SIZE`, or a byte count.
    #[serde(default)]
    pub size: Option<SizeSpec>,
}

/// A buffer size: a header constant or a literal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SizeSpec {
    Bytes(u64),
    Constant(String),
}

/// One count and the arrays it sizes. `count` is an `unsigned int *` (the capacity in, the
/// elements written or needed out) or a length passed by value.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ArrayRule {
    pub count: String,
    /// The array; `arrays` when several arrays share the count (each gets `count` elements).
    pub array: Option<String>,
    pub arrays: Vec<String>,
    /// Elements the caller allocates (a header constant or a number): with `out_only`, all it
    /// gets in one call; for a count whose NULL probe the library refuses, the first try (the
    /// list grows to what the library asks for); for a length by value, the whole request (the
    /// method then takes no length).
    pub capacity: Option<SizeSpec>,
    /// The library only writes the count (how many it filled): one call with `capacity`.
    pub out_only: bool,
    /// `false` when the library refuses a NULL array, so the size cannot be probed; default:
    /// as the documentation's return codes say.
    pub null_probe: Option<bool>,
    /// The count is in bytes, not elements; default: as the documentation says (`in bytes`).
    pub bytes: bool,
    /// A constant marking array entries the library leaves unused; they are dropped.
    pub unused: Option<String>,
}

impl ArrayRule {
    /// The arrays the rule names.
    pub fn array_names(&self) -> Vec<String> {
        self.array.iter().chain(&self.arrays).cloned().collect()
    }
}

/// Where a shape came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Origin {
    Derived,
    Rule,
}

/// A resolved string buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StringBuffer {
    pub buffer: String,
    /// The length parameter; `None` for a fixed-size buffer without one.
    pub length: Option<String>,
    /// The constant's name (when sized by one) and its value.
    pub size: Option<(Option<String>, u64)>,
    pub origin: Origin,
}

/// A resolved `arrays` rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArrayBuffer {
    pub count: String,
    pub arrays: Vec<String>,
    /// Elements the caller allocates (see [`ArrayRule::capacity`]).
    pub capacity: Option<u64>,
    pub out_only: bool,
    pub null_probe: Option<bool>,
    pub bytes: bool,
    /// The constant marking unused entries, and its value.
    pub unused: Option<(String, i128)>,
}

/// The model with every rule applied: what the emitters read.
#[derive(Debug, Clone, Serialize)]
pub struct Bindings {
    pub model: Model,
    /// Handle typedef → safe type name.
    pub handles: BTreeMap<String, String>,
    /// API name → symbols newest first (at least two each).
    pub families: BTreeMap<String, Vec<String>>,
    /// The `strings` rules, resolved (the plan derives the others).
    pub strings: BTreeMap<String, StringBuffer>,
    /// The `arrays` rules, resolved (the plan derives the others).
    pub arrays: BTreeMap<String, ArrayBuffer>,
    pub not_arrays: BTreeMap<String, String>,
    /// Owned handle typedef → its free function.
    pub owned: BTreeMap<String, String>,
    pub renames: BTreeMap<String, String>,
    /// Function → reason.
    pub skipped: BTreeMap<String, String>,
    /// Function → hand-written file.
    pub manual: BTreeMap<String, String>,
    /// Id typedef → safe handle type.
    pub ids: BTreeMap<String, String>,
    pub directions: BTreeMap<String, Direction>,
    pub bitflags: BTreeMap<String, FlagsRule>,
    /// Versioned record → constant holding its version, derived (`nvmlX_vN_t` → `nvmlX_vN`)
    /// or from `struct_versions`.
    pub struct_versions: BTreeMap<String, String>,
    /// `record.field` → the value of a field an older layout lacks: the constant's name (if
    /// given by one) and its value.
    pub absent_fields: BTreeMap<String, (Option<String>, u64)>,
    /// Function → the module of the mock's engine that implements it by hand
    /// (`gen-config/mock.yaml`, see [`mock`]); empty until the pipeline reads that file.
    pub hand_written: BTreeMap<String, String>,
}

/// Reads and parses a rules file; YAML errors carry the file, line and column.
pub fn load(path: &Path) -> Result<Rules> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read rules file {}", path.display()))?;
    parse(&text, &path.display().to_string())
}

pub fn parse(text: &str, origin: &str) -> Result<Rules> {
    if text.trim().is_empty() {
        return Ok(Rules::default());
    }
    serde_yaml::from_str(text).map_err(|e| match e.location() {
        Some(l) => anyhow::anyhow!("{origin}:{}:{}: {e}", l.line(), l.column()),
        None => anyhow::anyhow!("{origin}: {e}"),
    })
}

/// Applies `rules` (read from `file`, for messages) to `model`.
pub fn apply(model: Model, rules: &Rules, file: &str) -> (Bindings, Diagnostics) {
    let mut d = Diagnostics::new("rules");
    let place = |section: &str, key: &str| format!("{file}: {section}.{key}");

    // Handles.
    for (typedef, safe) in &rules.handles {
        if !model.handles.contains_key(typedef) {
            d.error(place("handles", typedef), format!("`{typedef}` is not an opaque handle of the header"));
        } else if !is_rust_type_name(safe) {
            d.error(place("handles", typedef), format!("`{safe}` is not a Rust type name"));
        }
    }
    for h in model.handles.keys().filter(|h| !rules.handles.contains_key(*h)) {
        d.warn(format!("{file}: handles"), format!("opaque handle `{h}` has no rule; give it a safe type name"));
    }

    // Versioned families.
    let mut families = derive_families(&model);
    for (api, symbols) in &rules.versions {
        let missing: Vec<&String> = symbols.iter().filter(|s| !model.functions.contains_key(*s)).collect();
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
            d.error(
                place("versions", api),
                format!("names functions the header does not declare: {}", names.join(", ")),
            );
            continue;
        }
        if symbols.len() < 2 {
            d.error(place("versions", api), "a versioned family needs at least two symbols");
            continue;
        }
        if families.get(api) == Some(symbols) {
            d.warn(place("versions", api), "matches nothing: the header already gives this order");
        }
        families.insert(api.clone(), symbols.clone());
    }

    // String buffers stated by rules (the plan derives the others).
    let mut strings = BTreeMap::new();
    for (func, rule) in &rules.strings {
        let p = place("strings", func);
        let Some(f) = function(&model, func, &p, &mut d) else { continue };
        let ok = check_param(
            f,
            &rule.buffer,
            &p,
            &mut d,
            |t| matches!(t, Ty::Pointer { pointee, is_const: false } if **pointee == Ty::Char),
        ) & rule.length.as_ref().is_none_or(|length| {
            check_param(f, length, &p, &mut d, |t| {
                is_uint(t) || matches!(t, Ty::Pointer { pointee, .. } if is_uint(pointee))
            })
        });
        let size = match &rule.size {
            None => None,
            Some(SizeSpec::Bytes(n)) => Some((None, *n)),
            Some(SizeSpec::Constant(c)) => match constant_value(&model, c) {
                Some(v) => Some((Some(c.clone()), v)),
                None => {
                    d.error(p.clone(), format!("`{c}` is not an integer constant of the header"));
                    continue;
                }
            },
        };
        if rule.length.is_none() && size.is_none() {
            d.error(p.clone(), "a buffer without a `length` needs a `size`");
            continue;
        }
        if !ok {
            continue;
        }
        strings.insert(
            func.clone(),
            StringBuffer { buffer: rule.buffer.clone(), length: rule.length.clone(), size, origin: Origin::Rule },
        );
    }

    // Counts and arrays stated by rules (the plan derives the others).
    let mut arrays = BTreeMap::new();
    for (func, rule) in &rules.arrays {
        let p = place("arrays", func);
        let Some(f) = function(&model, func, &p, &mut d) else { continue };
        let names = rule.array_names();
        let mut ok = !names.is_empty();
        if names.is_empty() {
            d.error(p.clone(), "names no `array` (or `arrays`)");
        }
        ok &= check_param(f, &rule.count, &p, &mut d, |t| {
            is_uint(t) || is_int(t) || matches!(t, Ty::Pointer { pointee, is_const: false } if is_uint(pointee))
        });
        for a in &names {
            ok &= check_param(f, a, &p, &mut d, |t| matches!(t, Ty::Pointer { .. }));
        }
        let capacity = match &rule.capacity {
            None => None,
            Some(spec) => match size_value(&model, spec) {
                Some(v) => Some(v),
                None => {
                    d.error(p.clone(), format!("`{spec:?}` is not an integer constant of the header"));
                    continue;
                }
            },
        };
        if rule.out_only && capacity.is_none() {
            d.error(p.clone(), "an `out_only` count needs a `capacity`");
            ok = false;
        }
        let unused = match &rule.unused {
            None => None,
            Some(c) => match enum_or_constant_value(&model, c) {
                Some(v) => Some((c.clone(), v)),
                None => {
                    d.error(
                        p.clone(),
                        format!("unused: `{c}` is neither an enum constant nor an integer constant of the header"),
                    );
                    continue;
                }
            },
        };
        if rules.not_arrays.contains_key(func) {
            d.error(p.clone(), "the function is also listed under `not_arrays`");
            ok = false;
        }
        if ok {
            let resolved = ArrayBuffer {
                count: rule.count.clone(),
                arrays: names,
                capacity,
                out_only: rule.out_only,
                null_probe: rule.null_probe,
                bytes: rule.bytes,
                unused,
            };
            arrays.insert(func.clone(), resolved);
        }
    }
    for func in rules.not_arrays.keys() {
        function(&model, func, &place("not_arrays", func), &mut d);
    }
    for (handle, free) in &rules.owned {
        let p = place("owned", handle);
        if !rules.handles.contains_key(handle) {
            d.error(p.clone(), format!("`{handle}` has no `handles` rule"));
        }
        let takes_handle = |f: &Function| f.params.iter().any(|p| p.ty == Ty::Named(handle.clone()));
        if function(&model, free, &p, &mut d).is_some_and(|f| !takes_handle(f)) && !rules.manual.contains_key(free) {
            d.error(p, format!("`{free}` does not take a `{handle}`: a free function that takes a request record needs a `manual` rule"));
        }
    }

    // Renames, skips, manual wrappers.
    for (func, name) in &rules.renames {
        let p = place("renames", func);
        if function(&model, func, &p, &mut d).is_some() && !is_rust_fn_name(name) {
            d.error(p, format!("`{name}` is not a snake_case Rust method name"));
        }
    }
    let mut skipped = BTreeMap::new();
    for (pattern, reason) in &rules.skip {
        let matched: Vec<&String> = model.functions.keys().filter(|n| glob_match(pattern, n)).collect();
        if matched.is_empty() {
            if pattern.ends_with('*') {
                d.warn(place("skip", pattern), "matches no function of the header");
            } else {
                d.error(place("skip", pattern), format!("`{pattern}` is not a function of the header"));
            }
        }
        for m in matched {
            skipped.insert(m.clone(), reason.clone());
        }
    }
    for func in rules.manual.keys() {
        let p = place("manual", func);
        if function(&model, func, &p, &mut d).is_some() && skipped.contains_key(func) {
            d.error(p, "is both skipped and wrapped by hand");
        }
    }

    for (typedef, safe) in &rules.ids {
        let p = place("ids", typedef);
        match model.typedefs.get(typedef).map(|t| model.resolve_typedef(&t.ty)) {
            Some(Ty::UInt | Ty::Int | Ty::ULongLong) if is_rust_type_name(safe) => {}
            Some(_) => {
                d.error(p, format!("`{typedef}` is not an integer typedef, or `{safe}` is not a Rust type name"))
            }
            None => d.error(p, format!("`{typedef}` is not a typedef of the header")),
        }
    }
    for key in rules.directions.keys() {
        let p = place("directions", key);
        match key.split_once('.') {
            Some((func, param)) => {
                if let Some(f) = function(&model, func, &p, &mut d) {
                    check_param(f, param, &p, &mut d, |t| matches!(t, Ty::Pointer { is_const: false, .. }));
                }
            }
            None => d.error(p, "expected `function.parameter`"),
        }
    }
    for (name, flags) in &rules.bitflags {
        let p = place("bitflags", name);
        if !is_rust_type_name(name) {
            d.error(p.clone(), format!("`{name}` is not a Rust type name"));
        }
        if !model.constants.keys().any(|c| c.starts_with(&flags.prefix) && constant_value(&model, c).is_some()) {
            d.error(p.clone(), format!("no integer constant starts with `{}`", flags.prefix));
        }
        for a in flags.aliases.iter().filter(|a| !model.constants.keys().any(|c| c.starts_with(a.as_str()))) {
            d.error(p.clone(), format!("aliases: no constant starts with `{a}`"));
        }
        for c in flags.exclude.iter().filter(|c| !c.starts_with(&flags.prefix) || !model.constants.contains_key(*c)) {
            d.error(p.clone(), format!("exclude: `{c}` is not a constant starting with `{}`", flags.prefix));
        }
        for fp in &flags.params {
            match fp.split_once('.') {
                Some((func, param)) => {
                    if let Some(f) = function(&model, func, &p, &mut d) {
                        check_param(
                            f,
                            param,
                            &p,
                            &mut d,
                            |t| !matches!(t, Ty::Pointer { pointee, .. } if !is_integer(pointee)),
                        );
                    }
                }
                None => d.error(p.clone(), format!("`{fp}`: expected `function.parameter`")),
            }
        }
        for ff in &flags.fields {
            let ok = ff
                .split_once('.')
                .is_some_and(|(r, f)| model.records.get(r).is_some_and(|r| r.fields.iter().any(|x| x.name == f)));
            if !ok {
                d.error(p.clone(), format!("`{ff}` is not a `record.field` of the header"));
            }
        }
    }
    let mut struct_versions = BTreeMap::new();
    for r in model.records.values().filter(|r| r.fields.first().is_some_and(|f| f.name == "version")) {
        let names = model
            .typedefs
            .values()
            .filter(|t| t.ty == Ty::Named(r.name.clone()))
            .map(|t| t.name.as_str())
            .chain([r.name.as_str()]);
        let found = names
            .filter_map(|n| n.strip_suffix("_t"))
            .find(|c| constant_value(&model, c).is_some())
            .map(str::to_string);
        // Else the version field's comment may name it: `IN: Set to NVML_GPM_SUPPORT_VERSION`.
        let named = || {
            let doc = r.fields[0].doc.as_deref()?;
            let rest = &doc[doc.find("Set to ")? + 7..];
            let c: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            constant_value(&model, &c).is_some().then_some(c)
        };
        if let Some(c) = found.or_else(named) {
            struct_versions.insert(r.name.clone(), c);
        }
    }
    for (rec, c) in &rules.struct_versions {
        let p = place("struct_versions", rec);
        if !model.records.contains_key(rec) {
            d.error(p, format!("`{rec}` is not a record of the header"));
        } else if constant_value(&model, c).is_none() {
            d.error(p, format!("`{c}` is not an integer constant of the header"));
        } else {
            if struct_versions.get(rec) == Some(c) {
                d.warn(p, "matches nothing: the header's naming gives the same constant");
            }
            struct_versions.insert(rec.clone(), c.clone());
        }
    }

    let mut absent_fields = BTreeMap::new();
    for (key, value) in &rules.absent_fields {
        let p = place("absent_fields", key);
        let known = key
            .split_once('.')
            .is_some_and(|(r, f)| model.records.get(r).is_some_and(|r| r.fields.iter().any(|x| x.name == f)));
        if !known {
            d.error(p.clone(), format!("`{key}` is not a `record.field` of the header"));
        }
        let resolved = match value {
            SizeSpec::Bytes(n) => Some((None, *n)),
            SizeSpec::Constant(c) => constant_value(&model, c).map(|v| (Some(c.clone()), v)),
        };
        match resolved {
            Some(v) if known => {
                absent_fields.insert(key.clone(), v);
            }
            Some(_) => {}
            None => d.error(p, format!("`{value:?}` is not an integer constant of the header")),
        }
    }

    let bindings = Bindings {
        model,
        handles: rules.handles.clone(),
        families,
        strings,
        arrays,
        not_arrays: rules.not_arrays.clone(),
        owned: rules.owned.clone(),
        renames: rules.renames.clone(),
        skipped,
        manual: rules.manual.clone(),
        ids: rules.ids.clone(),
        directions: rules.directions.clone(),
        bitflags: rules.bitflags.clone(),
        struct_versions,
        absent_fields,
        hand_written: BTreeMap::new(),
    };
    (bindings, d)
}

impl Bindings {
    /// The safe type of a handle typedef, opaque or id.
    pub fn handle_type(&self, typedef: &str) -> Option<&str> {
        self.handles.get(typedef).or_else(|| self.ids.get(typedef)).map(String::as_str)
    }

    /// The bitflags type a parameter carries, if a rule says so.
    pub fn flags_of_param(&self, func: &str, param: &str) -> Option<String> {
        let key = format!("{func}.{param}");
        self.bitflags.iter().find(|(_, r)| r.params.contains(&key)).map(|(n, _)| n.clone())
    }

    /// The bitflags type a record field carries, if a rule says so.
    pub fn flags_of_field(&self, record: &str, field: &str) -> Option<String> {
        let key = format!("{record}.{field}");
        self.bitflags.iter().find(|(_, r)| r.fields.contains(&key)).map(|(n, _)| n.clone())
    }
}

fn function<'m>(model: &'m Model, name: &str, place: &str, d: &mut Diagnostics) -> Option<&'m Function> {
    let f = model.functions.get(name);
    if f.is_none() {
        d.error(place.to_string(), format!("`{name}` is not a function of the header"));
    }
    f
}

/// Checks that `f` has a parameter `name` whose type passes `ok`; reports otherwise.
fn check_param(f: &Function, name: &str, place: &str, d: &mut Diagnostics, ok: impl Fn(&Ty) -> bool) -> bool {
    match f.params.iter().find(|p| p.name == name) {
        None => {
            let names: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
            d.error(
                place.to_string(),
                format!("`{}` has no parameter `{name}` (it has: {})", f.name, names.join(", ")),
            );
            false
        }
        Some(p) if !ok(&p.ty) => {
            d.error(
                place.to_string(),
                format!(
                    "parameter `{name}` of `{}` has type `{}`, which does not fit this rule",
                    f.name,
                    p.ty.c_spelling()
                ),
            );
            false
        }
        Some(_) => true,
    }
}

fn is_uint(t: &Ty) -> bool {
    matches!(t, Ty::UInt)
}

fn is_int(t: &Ty) -> bool {
    matches!(t, Ty::Int)
}

fn is_integer(t: &Ty) -> bool {
    matches!(t, Ty::UInt | Ty::Int | Ty::ULongLong | Ty::LongLong | Ty::ULong | Ty::Long)
}

/// The value of a size: a number, or an integer constant of the header.
pub fn size_value(model: &Model, spec: &SizeSpec) -> Option<u64> {
    match spec {
        SizeSpec::Bytes(n) => Some(*n),
        SizeSpec::Constant(c) => constant_value(model, c),
    }
}

/// The value of an enum constant or an integer `#define`.
pub fn enum_or_constant_value(model: &Model, name: &str) -> Option<i128> {
    let e = model.enums.values().flat_map(|e| &e.constants).find(|k| k.name == name).map(|k| k.value.as_i128());
    e.or_else(|| match &model.constants.get(name)?.value {
        ConstValue::Int { value, .. } => Some(value.as_i128()),
        _ => None,
    })
}

pub fn constant_value(model: &Model, name: &str) -> Option<u64> {
    match &model.constants.get(name)?.value {
        ConstValue::Int { value, .. } => u64::try_from(value.as_i128()).ok(),
        _ => None,
    }
}

/// `prefix*` matches by prefix; anything else matches exactly.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

fn is_rust_type_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && s.chars().all(|c| c.is_ascii_alphanumeric())
}

pub fn is_rust_fn_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Splits `nvmlX_v3` into (`nvmlX`, 6) and `nvmlXV` into (`nvmlX`, 1): the rank orders
/// versions, `_vN` ranking `2N` so that `V` sits between the base name (0) and `_v1`.
pub fn version_of(name: &str) -> Option<(&str, u32)> {
    if let Some((base, v)) = name.rsplit_once("_v") {
        if let Ok(n) = v.parse::<u32>() {
            return Some((base, n * 2));
        }
    }
    name.strip_suffix('V').map(|base| (base, 1))
}

/// Families from the header: every `_vN`/`V` prototype with its base, plus the define table.
pub fn derive_families(model: &Model) -> BTreeMap<String, Vec<String>> {
    let mut by_base: BTreeMap<String, BTreeSet<(u32, String)>> = BTreeMap::new();
    for name in model.functions.keys() {
        if let Some((base, rank)) = version_of(name) {
            if rank >= 2 || model.functions.contains_key(base) {
                by_base.entry(base.to_string()).or_default().insert((rank, name.clone()));
            }
        }
    }
    let mut families = BTreeMap::new();
    for (base, versions) in by_base {
        let mut symbols: Vec<String> = versions.into_iter().rev().map(|(_, n)| n).collect();
        if model.functions.contains_key(&base) {
            symbols.push(base.clone());
        }
        if symbols.len() >= 2 {
            families.insert(base, symbols);
        }
    }
    // A `#define nvmlX nvmlY` whose target has no version suffix (e.g. the Blacklist →
    // Excluded renames) is a family of the target alone: resolving the old name still works
    // against drivers that predate the rename.
    for alias in model.aliases.values().filter(|a| a.kind == crate::model::AliasKind::Function) {
        if version_of(&alias.target).is_none() && !families.contains_key(&alias.name) {
            let mut symbols = vec![alias.target.clone()];
            if model.functions.contains_key(&alias.name) {
                symbols.push(alias.name.clone());
            }
            if symbols.len() >= 2 {
                families.insert(alias.name.clone(), symbols);
            }
        }
    }
    families
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_errors_with_a_location() {
        let err = parse("handles: {}\nbogus: 1\n", "x.yaml").unwrap_err().to_string();
        assert!(err.starts_with("x.yaml:2:1:"), "{err}");
        assert!(err.contains("bogus"), "{err}");
    }

    #[test]
    fn rules_roundtrip_through_yaml() {
        let text = std::fs::read_to_string(crate::workspace::project_root().join("gen-config/nvml.yaml")).unwrap();
        let rules = parse(&text, "nvml.yaml").unwrap();
        let again = parse(&serde_yaml::to_string(&rules).unwrap(), "again").unwrap();
        assert_eq!(rules, again);
    }

    #[test]
    fn versions_rank() {
        assert_eq!(version_of("nvmlInit_v2"), Some(("nvmlInit", 4)));
        assert_eq!(version_of("nvmlDeviceGetTemperatureV"), Some(("nvmlDeviceGetTemperature", 1)));
        assert_eq!(version_of("nvmlInit"), None);
        assert!(glob_match("nvmlVgpu*", "nvmlVgpuTypeGetName"));
        assert!(!glob_match("nvmlVgpu", "nvmlVgpuTypeGetName"));
    }
}
