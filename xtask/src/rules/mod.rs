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

pub mod adapt;
pub mod areas;
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
    /// The headers of nvmlkit's published releases that still matter, oldest first: a version,
    /// or a list of versions (each vendored or published). The functions and constants each
    /// declares that a newer default header lacks are kept, deprecated (see `model::keep`),
    /// newest release first, so that a header update is a minor release. Nothing is kept while
    /// the newest is the default header. `cargo xtask release` moves it forward: to the new
    /// header alone when that keeps nothing, else with the new header added, so that what an
    /// earlier release kept stays kept.
    #[serde(deserialize_with = "one_or_more")]
    pub released: Vec<String>,
    /// Opaque handle typedef → the name of its safe handle type, e.g. `nvmlDevice_t: Device`.
    /// Every handle of the header needs one; a name that is not an opaque handle is an error.
    pub handles: BTreeMap<String, String>,
    /// Versioned-symbol overrides: API name → the symbols to try, newest first. Without an
    /// override a family is derived from the header: the `#define nvmlX nvmlX_vN` table plus
    /// every prototype `nvmlX_vN` or `nvmlXV` of a base `nvmlX`, ordered `_vN` (highest first),
    /// then `V`, then the base name. A rule also joins a family NVIDIA renamed
    /// (`nvmlDeviceGetCurrentClocksThrottleReasons` → `...ClocksEventReasons`): the method keeps
    /// the newest name and falls back to the older functions.
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
    /// Function (or versioned family) → method names a published release gave its method
    /// before a `renames` rule or a better derived name replaced them: each stays as a
    /// deprecated method that calls the new one, so that the rename is a minor release.
    pub former_methods: BTreeMap<String, Vec<String>>,
    /// `function.parameter` (an integer) → the C enum (its name or a typedef of it) whose
    /// values the header says it carries ("Requested NvLink version from \ref
    /// nvmlNvlinkVersion_t"): the method takes or returns that enum's safe type.
    pub enums: BTreeMap<String, String>,
    /// Function → a paragraph (Markdown) its method's description ends with: what reads
    /// better in Rust (`EventSet::wait` → `EventSet::next_event`), which the header cannot say.
    pub see_also: BTreeMap<String, String>,
    /// C enum (its name or a typedef of it) → the safe type's name, where the derived one
    /// reads worse; `former` is the name a published release had, which stays as a deprecated
    /// type alias.
    pub type_renames: BTreeMap<String, Renamed>,
    /// Constant of a C enum → its name in the safe type, where the derived one reads worse;
    /// `former` stays as a deprecated associated constant.
    pub constant_renames: BTreeMap<String, Renamed>,
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
    /// Values defined as `#define`s (one at a time, not bits): a type name → the constants'
    /// prefix and what carries one: parameters, record fields, or every use of a `typedef`.
    /// Each becomes an open newtype like the enums' (values the header lacks are kept).
    pub values: BTreeMap<String, FlagsRule>,
    /// `record.field` of type `nvmlValue_t` → where the `nvmlValueType_t` that names its member
    /// is: a field of the same record (`nvmlFieldValue_st.value: valueType`; the safe record
    /// then has no type field), an output parameter of the function that fills an array of the
    /// record (`function.parameter`), or a field of the record that points to such an array
    /// (`record.field`). The safe record has a typed `Value` there.
    pub tagged_values: BTreeMap<String, String>,
    /// In/out record → the fields the caller sets (besides `version`), where the fields'
    /// comments give no direction (`IN:`, `[in]`, `input`): the safe method takes them as
    /// parameters and returns the rest. An empty list says every field is an output.
    pub inputs: BTreeMap<String, Vec<String>>,
    /// Unions read through a tag into a Rust enum: the enum's name → the union, the member
    /// each tag value (a header constant) selects, and the record fields of the union's type
    /// with the field of the same record that holds their tag. The safe record has the enum
    /// there, and no tag field; a tag no member is named for is kept with the union's bytes.
    pub tagged_unions: BTreeMap<String, UnionRule>,
    /// `record.field` of a union whose members are byte arrays of one size and which has no
    /// tag (the direction of the call picks the member) → the safe field's name: the safe
    /// record holds the bytes.
    pub byte_unions: BTreeMap<String, String>,
    /// What carries a yes or no, as the header's text says ("A boolean for ...", "True when
    /// ...", "0 for no pending remapping, 1 for pending remapping"): `bool` in the safe crate.
    /// Each is a `function.parameter` or a `record.field` of integer or enum type, or an enum
    /// typedef (`nvmlEnableState_t`) whose every use is one.
    pub booleans: BTreeSet<String>,
    /// Versioned record → the constant that gives its `version` field, where neither the
    /// header's `nvmlX_vN` naming nor the field's comment (`Set to NVML_X_VERSION`) does.
    pub struct_versions: BTreeMap<String, String>,
    /// `record.field` → its value (a header constant or a number) when the record is built
    /// from an older layout of a versioned family that lacks the field; other missing fields
    /// are zero. For sentinels such as "no MIG instance" (`0xFFFFFFFF`), where 0 is a real id.
    pub absent_fields: BTreeMap<String, SizeSpec>,
    /// `record.field` → the field's name in the record's older layouts, where a newer layout
    /// renamed a field (same place, same meaning): a conversion between layouts keeps it.
    pub former_names: BTreeMap<String, String>,
    /// `record.field` → an older layout of the record, where a driver answers the newer layout
    /// with the field empty although it fills it in the older one: when the answer's field is
    /// empty, the method asks again in the older layout and takes the field from it.
    pub fill_from_older: BTreeMap<String, String>,
    /// `record.field` (a list of entries) → the field of older layouts that a newer layout
    /// holds as one entry of the list, as the header says: a conversion from an older layout
    /// makes that entry (`entry`: each member of the entry from a header constant or the
    /// older field) and sets the list's `count` field to 1.
    pub list_fields: BTreeMap<String, ListFieldRule>,
    /// Doxygen group → sub-area → words: splits a group of the header too large for one
    /// generated file (see `rules/areas.rs`). An item whose C name contains one of a
    /// sub-area's words goes to `<group>_<sub-area>.rs`; the rest stay in `<group>.rs`.
    pub areas: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// Rules for the published headers before the default one, where their text does not yet
    /// say what the default header's text says (see [`OlderRules`]).
    pub older_headers: OlderRules,
    /// `record.array` → the field of the same record that says how many of the array's
    /// entries are filled, where the count field's comment does not name the array (then it
    /// is derived: "numCliques: Number of valid entries in cliques[]"). The safe record's list
    /// holds that many.
    pub counted: BTreeMap<String, String>,
}

/// Rules that make an older header read as the default one does, where only a later header's
/// text says how (the field comments NVIDIA added later, a C type NVIDIA corrected later), so
/// that every published header gives the safe crate the same API. They apply only to headers
/// older than the default one, and only where that header's own text does not already say
/// the same; `cargo xtask regen` does not use them. The corpus test checks that each one
/// changes the reading of at least one published header.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OlderRules {
    /// `record.field` or `function.parameter`: an integer older headers declare `unsigned`
    /// and newer ones `int` (the same bits: the driver writes a signed value), read as signed.
    /// The value says which header changed it.
    pub signed: BTreeMap<String, String>,
    /// As [`Rules::inputs`], for older headers whose fields have no direction comments yet.
    pub inputs: BTreeMap<String, Vec<String>>,
    /// As [`Rules::directions`], for older headers whose text does not give the direction.
    pub directions: BTreeMap<String, Direction>,
}

/// A better name for a type or constant, and the one a published release gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Renamed {
    pub name: String,
    /// The name a published release had: kept, deprecated, so that the rename is a minor
    /// release.
    #[serde(default)]
    pub former: Option<String>,
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
    /// A typedef every use of which carries it (`values` only).
    pub typedef: Option<String>,
    /// Set for the rules of the `values` table: the constants are values, not bits.
    #[serde(skip)]
    pub values: bool,
}

impl FlagsRule {
    /// Whether a value of C type `t` (or one it points to) is of the rule's typedef.
    pub fn carried_by(&self, t: &Ty) -> bool {
        let Some(td) = &self.typedef else { return false };
        match t {
            Ty::Named(n) => n == td,
            Ty::Pointer { pointee, .. } => matches!(&**pointee, Ty::Named(n) if n == td),
            _ => false,
        }
    }
}

/// A union read through a tag (see [`Rules::tagged_unions`]).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UnionRule {
    /// The union's name in the header.
    pub union: String,
    /// A header constant (a `#define` or an enum constant) → the member its tag value selects.
    pub members: BTreeMap<String, String>,
    /// `record.field` of the union's type → the field of the same record that holds its tag.
    pub fields: BTreeMap<String, String>,
}

/// Where the `nvmlValueType_t` of a `tagged_values` field is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum ValueTag {
    /// A field of the same record.
    Field(String),
    /// An output parameter of the function that fills an array of the record.
    Param { function: String, param: String },
    /// A field of the record that points to an array of the record.
    Outer { record: String, field: String },
}

impl ValueTag {
    /// The field of the same record, for a tag that is one.
    pub fn field(&self) -> Option<&str> {
        match self {
            ValueTag::Field(f) => Some(f),
            _ => None,
        }
    }
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
    /// Function or family → the deprecated former method names.
    pub former_methods: BTreeMap<String, Vec<String>>,
    /// Function → the paragraph its method's description ends with (`see_also`).
    pub see_also: BTreeMap<String, String>,
    /// `function.parameter` → the model name of the C enum it carries (`enums` rules).
    pub enum_params: BTreeMap<String, String>,
    /// Enum model name → its renamed safe type (the rule's keys resolved to the enum).
    pub type_renames: BTreeMap<String, Renamed>,
    pub constant_renames: BTreeMap<String, Renamed>,
    /// Function → reason.
    pub skipped: BTreeMap<String, String>,
    /// Function → hand-written file.
    pub manual: BTreeMap<String, String>,
    /// Id typedef → safe handle type.
    pub ids: BTreeMap<String, String>,
    pub directions: BTreeMap<String, Direction>,
    pub bitflags: BTreeMap<String, FlagsRule>,
    /// `record.field` → where the type that names its `nvmlValue_t` member is.
    pub tagged_values: BTreeMap<String, ValueTag>,
    /// The `tagged_unions` rules, by enum name.
    pub tagged_unions: BTreeMap<String, UnionRule>,
    /// `record.field` → the safe field holding a tagless union's bytes.
    pub byte_unions: BTreeMap<String, String>,
    /// In/out record → the fields the caller sets, from the `inputs` rules.
    pub inputs: BTreeMap<String, Vec<String>>,
    /// `function.parameter`s that carry a yes or no.
    pub booleans: BTreeSet<String>,
    /// Versioned record → constant holding its version, derived (`nvmlX_vN_t` → `nvmlX_vN`)
    /// or from `struct_versions`.
    pub struct_versions: BTreeMap<String, String>,
    /// `record.field` → the value of a field an older layout lacks: the constant's name (if
    /// given by one) and its value.
    pub absent_fields: BTreeMap<String, (Option<String>, u64)>,
    /// `record.field` → its name in older layouts (the `former_names` rules).
    pub former_names: BTreeMap<String, String>,
    /// `record.field` → the older layout that fills it (the `fill_from_older` rules).
    pub fill_from_older: BTreeMap<String, String>,
    /// `record.field` → how an older layout's field becomes an entry of it (`list_fields`).
    pub list_fields: BTreeMap<String, ListFieldRule>,
    /// `record.array` → the field that counts its filled entries (`counted` rules, and where
    /// the count field's comment names the array).
    pub counted: BTreeMap<String, String>,
    /// Which generated file each item goes to.
    pub areas: areas::Areas,
    /// Function → the module of the mock's engine that implements it by hand
    /// (`gen-config/mock.yaml`, see [`mock`]); empty until the pipeline reads that file.
    pub hand_written: BTreeMap<String, String>,
}

/// Reads and parses a rules file; YAML errors carry the file, line and column.
pub fn load(path: &Path) -> Result<Rules> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read rules file {}", path.display()))?;
    parse(&text, &path.display().to_string())
}

/// The rules file `text` with `released` set to `versions` (one version as a scalar, more as a
/// flow list), the rest of the file as it was; the key is added at the end if it has none.
pub fn with_released(text: &str, versions: &[String]) -> String {
    let value = match versions {
        [one] => one.clone(),
        more => format!("[{}]", more.join(", ")),
    };
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    let mut found = false;
    while let Some(line) = lines.next() {
        if found || !line.starts_with("released:") {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        found = true;
        out.push_str(&format!("released: {value}\n"));
        // A block list's items go with the old value.
        while lines.next_if(|l| l.trim_start().starts_with("- ")).is_some() {}
    }
    if !found {
        out.push_str(&format!("released: {value}\n"));
    }
    out
}

/// A YAML value that is one string or a list of strings.
fn one_or_more<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMore {
        One(String),
        More(Vec<String>),
    }
    Ok(match OneOrMore::deserialize(d)? {
        OneOrMore::One(v) => vec![v],
        OneOrMore::More(v) => v,
    })
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

/// Applies `rules` (read from `file`, for messages) to `model`: one function per table of rules,
/// each checking its table against the header.
pub fn apply(model: Model, rules: &Rules, file: &str) -> (Bindings, Diagnostics) {
    let mut d = Diagnostics::new("rules");
    let i = Inputs { model: &model, rules, file };
    released(&i, &mut d);
    handles(&i, &mut d);
    let families = versions(&i, &mut d);
    let strings = strings(&i, &mut d);
    let arrays = arrays(&i, &mut d);
    not_arrays(&i, &mut d);
    owned(&i, &mut d);
    renames(&i, &mut d);
    former_methods(&i, &mut d);
    let enum_params = enum_params(&i, &mut d);
    for (func, text) in &i.rules.see_also {
        let p = i.place("see_also", func);
        if function(i.model, func, &p, &mut d).is_some() && text.trim().is_empty() {
            d.error(p, "says nothing");
        }
    }
    let type_renames = type_renames(&i, &mut d);
    constant_renames(&i, &mut d);
    let skipped = skip(&i, &mut d);
    manual(&i, &skipped, &mut d);
    ids(&i, &mut d);
    directions(&i, &mut d);
    bitflags(&i, &mut d);
    let struct_versions = struct_versions(&i, &mut d);
    let absent_fields = absent_fields(&i, &mut d);
    let tagged_values = tagged_values(&i, &mut d);
    tagged_unions(&i, &mut d);
    byte_unions(&i, &mut d);
    raw_unions(&i, &tagged_values, &mut d);
    inputs(&i, &mut d);
    former_names(&i, &mut d);
    fill_from_older(&i, &mut d);
    list_fields(&i, &mut d);
    booleans(&i, &mut d);
    let counted = counted(&i, &mut d);
    let areas = areas::Areas::resolve(&rules.areas, &model, file, &mut d);

    let bindings = Bindings {
        areas,
        model,
        handles: rules.handles.clone(),
        families,
        strings,
        arrays,
        not_arrays: rules.not_arrays.clone(),
        owned: rules.owned.clone(),
        renames: rules.renames.clone(),
        former_methods: rules.former_methods.clone(),
        see_also: rules.see_also.clone(),
        enum_params,
        type_renames,
        constant_renames: rules.constant_renames.clone(),
        skipped,
        manual: rules.manual.clone(),
        ids: rules.ids.clone(),
        directions: rules.directions.clone(),
        bitflags: rules
            .bitflags
            .iter()
            .map(|(n, r)| (n.clone(), r.clone()))
            .chain(rules.values.iter().map(|(n, r)| (n.clone(), FlagsRule { values: true, ..r.clone() })))
            .collect(),
        tagged_values,
        tagged_unions: rules.tagged_unions.clone(),
        byte_unions: rules.byte_unions.clone(),
        inputs: rules.inputs.clone(),
        former_names: rules.former_names.clone(),
        fill_from_older: rules.fill_from_older.clone(),
        list_fields: rules.list_fields.clone(),
        counted,
        booleans: rules.booleans.clone(),
        struct_versions,
        absent_fields,
        hand_written: BTreeMap::new(),
    };
    (bindings, d)
}

/// What the check of every table reads: the header, the rules, and the rules' file (for messages).
#[derive(Clone, Copy)]
struct Inputs<'a> {
    model: &'a Model,
    rules: &'a Rules,
    file: &'a str,
}

impl Inputs<'_> {
    /// Where a diagnostic about `section.key` points.
    fn place(&self, section: &str, key: &str) -> String {
        format!("{}: {section}.{key}", self.file)
    }
}

/// Checks `released`: header versions, oldest first.
fn released(i: &Inputs, d: &mut Diagnostics) {
    let place = format!("{}: released", i.file);
    let mut before: Option<&String> = None;
    for v in &i.rules.released {
        if crate::model::version_key(v).is_none() {
            d.error(place.clone(), format!("`{v}` is not a header version such as 13.5.37"));
            continue;
        }
        if let Some(b) = before.filter(|b| crate::model::version_key(b) >= crate::model::version_key(v)) {
            d.error(place.clone(), format!("`{b}` before `{v}`: the release headers go oldest first, each once"));
        }
        before = Some(v);
    }
}

/// Checks `handles`: each names an opaque handle of the header and a Rust type name; a handle
/// without a rule is a warning.
fn handles(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for (typedef, safe) in &rules.handles {
        if !model.handles.contains_key(typedef) {
            d.error(i.place("handles", typedef), format!("`{typedef}` is not an opaque handle of the header"));
        } else if !is_rust_type_name(safe) {
            d.error(i.place("handles", typedef), format!("`{safe}` is not a Rust type name"));
        }
    }
    for h in model.handles.keys().filter(|h| !rules.handles.contains_key(*h)) {
        d.warn(format!("{}: handles", i.file), format!("opaque handle `{h}` has no rule; give it a safe type name"));
    }
}

/// Versioned families: those derived from the header, with the `versions` rules over them.
fn versions(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, Vec<String>> {
    let Inputs { model, rules, .. } = *i;
    let mut families = derive_families(model);
    for (api, symbols) in &rules.versions {
        let missing: Vec<&String> = symbols.iter().filter(|s| !model.functions.contains_key(*s)).collect();
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
            d.error(
                i.place("versions", api),
                format!("names functions the header does not declare: {}", names.join(", ")),
            );
            continue;
        }
        // One symbol is a family only in a header that lacks the API name itself (an older
        // header, where the renamed family's older member serves the method alone).
        if symbols.len() < 2 && (symbols.is_empty() || model.functions.contains_key(api)) {
            d.error(i.place("versions", api), "a versioned family needs at least two symbols");
            continue;
        }
        if families.get(api) == Some(symbols) {
            d.warn(i.place("versions", api), "matches nothing: the header already gives this order");
        }
        families.insert(api.clone(), symbols.clone());
    }
    families
}

/// String buffers stated by `strings` rules (the plan derives the others).
fn strings(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, StringBuffer> {
    let Inputs { model, rules, .. } = *i;
    let mut strings = BTreeMap::new();
    for (func, rule) in &rules.strings {
        let p = i.place("strings", func);
        let Some(f) = function(model, func, &p, d) else { continue };
        let ok = check_param(
            f,
            &rule.buffer,
            &p,
            d,
            |t| matches!(t, Ty::Pointer { pointee, is_const: false } if **pointee == Ty::Char),
        ) & rule.length.as_ref().is_none_or(|length| {
            check_param(f, length, &p, d, |t| {
                is_uint(t) || matches!(t, Ty::Pointer { pointee, .. } if is_uint(pointee))
            })
        });
        let size = match &rule.size {
            None => None,
            Some(SizeSpec::Bytes(n)) => Some((None, *n)),
            Some(SizeSpec::Constant(c)) => match constant_value(model, c) {
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
    strings
}

/// Counts and arrays stated by `arrays` rules (the plan derives the others).
fn arrays(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, ArrayBuffer> {
    let Inputs { model, rules, .. } = *i;
    let mut arrays = BTreeMap::new();
    for (func, rule) in &rules.arrays {
        let p = i.place("arrays", func);
        let Some(f) = function(model, func, &p, d) else { continue };
        let names = rule.array_names();
        let mut ok = !names.is_empty();
        if names.is_empty() {
            d.error(p.clone(), "names no `array` (or `arrays`)");
        }
        ok &= check_param(f, &rule.count, &p, d, |t| {
            is_uint(t) || is_int(t) || matches!(t, Ty::Pointer { pointee, is_const: false } if is_uint(pointee))
        });
        for a in &names {
            ok &= check_param(f, a, &p, d, |t| matches!(t, Ty::Pointer { .. }));
        }
        let capacity = match &rule.capacity {
            None => None,
            Some(spec) => match size_value(model, spec) {
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
            Some(c) => match enum_or_constant_value(model, c) {
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
    arrays
}

/// Checks that each `not_arrays` rule names a function of the header.
fn not_arrays(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for func in rules.not_arrays.keys() {
        function(model, func, &i.place("not_arrays", func), d);
    }
}

/// Checks `owned`: a handle with a `handles` rule, freed by a function that takes it (or that is
/// wrapped by hand).
fn owned(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for (handle, free) in &rules.owned {
        let p = i.place("owned", handle);
        if !rules.handles.contains_key(handle) {
            d.error(p.clone(), format!("`{handle}` has no `handles` rule"));
        }
        let takes_handle = |f: &Function| f.params.iter().any(|p| p.ty == Ty::Named(handle.clone()));
        if function(model, free, &p, d).is_some_and(|f| !takes_handle(f)) && !rules.manual.contains_key(free) {
            d.error(p, format!("`{free}` does not take a `{handle}`: a free function that takes a request record needs a `manual` rule"));
        }
    }
}

/// Checks `renames`: a function of the header and a snake_case method name.
fn renames(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for (func, name) in &rules.renames {
        let p = i.place("renames", func);
        if function(model, func, &p, d).is_some() && !is_rust_fn_name(name) {
            d.error(p, format!("`{name}` is not a snake_case Rust method name"));
        }
    }
}

/// Resolves `enums` rules: a parameter of a function of the header, and a C enum (by its name
/// or a typedef of it).
fn enum_params(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, String> {
    let Inputs { model, rules, .. } = *i;
    let mut out = BTreeMap::new();
    for (key, e) in &rules.enums {
        let p = i.place("enums", key);
        let Some((func, param)) = key.split_once('.') else {
            d.error(p, "is not `function.parameter`");
            continue;
        };
        let Some(f) = function(model, func, &p, d) else { continue };
        if !f.params.iter().any(|q| q.name == param) {
            d.error(p.clone(), format!("`{func}` has no parameter `{param}`"));
            continue;
        }
        match model.resolve_typedef(&Ty::Named(e.clone())) {
            Ty::Named(n) if model.enums.contains_key(n) => {
                out.insert(key.clone(), n.clone());
            }
            _ => d.error(p, format!("`{e}` is not an enum of the header")),
        }
    }
    out
}

/// Checks `former_methods`: a function of the header and snake_case method names, none of
/// them the name its `renames` rule gives.
fn former_methods(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for (func, names) in &rules.former_methods {
        let p = i.place("former_methods", func);
        if function(model, func, &p, d).is_none() {
            continue;
        }
        if names.is_empty() {
            d.error(p.clone(), "lists no former name");
        }
        for name in names {
            if !is_rust_fn_name(name) {
                d.error(p.clone(), format!("`{name}` is not a snake_case Rust method name"));
            } else if rules.renames.get(func) == Some(name) {
                d.error(p.clone(), format!("`{name}` is the method's current name (its `renames` rule)"));
            }
        }
    }
}

/// Resolves `type_renames` to the enums they name (by the enum's name or a typedef of it) and
/// checks the names: CamelCase, and a former name other than the new one.
fn type_renames(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, Renamed> {
    let Inputs { model, rules, .. } = *i;
    let mut out = BTreeMap::new();
    for (c, r) in &rules.type_renames {
        let p = i.place("type_renames", c);
        let enum_name = match model.typedefs.get(c).map(|t| model.resolve_typedef(&t.ty)) {
            Some(Ty::Named(n)) if model.enums.contains_key(n) => n.clone(),
            _ if model.enums.contains_key(c) => c.clone(),
            _ => {
                d.error(p, format!("`{c}` is not an enum of the header (or a typedef of one)"));
                continue;
            }
        };
        check_renamed(r, is_rust_type_name, "CamelCase Rust type", &p, d);
        out.insert(enum_name, r.clone());
    }
    out
}

/// Checks `constant_renames`: a constant of an enum of the header, and SCREAMING_CASE names.
fn constant_renames(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    let screaming = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_uppercase())
            && s.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    };
    for (c, r) in &rules.constant_renames {
        let p = i.place("constant_renames", c);
        let Some(e) = model.enums.values().find(|e| e.constants.iter().any(|k| k.name == *c)) else {
            d.error(p, format!("`{c}` is not a constant of an enum of the header"));
            continue;
        };
        check_renamed(r, screaming, "SCREAMING_CASE Rust constant", &p, d);
        // The other constants' names in the type, each derived or renamed.
        let cnames: Vec<&str> = e.constants.iter().map(|k| k.name.as_str()).collect();
        let others: BTreeSet<String> = cnames
            .iter()
            .zip(names::constant_names(&cnames))
            .filter(|(k, _)| **k != c.as_str())
            .flat_map(|(k, derived)| match rules.constant_renames.get(*k) {
                Some(o) => std::iter::once(o.name.clone()).chain(o.former.clone()).collect::<Vec<_>>(),
                None => vec![derived],
            })
            .collect();
        for n in std::iter::once(&r.name).chain(&r.former).filter(|n| others.contains(*n)) {
            d.error(p.clone(), format!("`{n}` is already the name of another constant of `{}`", e.name));
        }
    }
}

/// Checks a rename's new and former name against `valid`.
fn check_renamed(r: &Renamed, valid: impl Fn(&str) -> bool, what: &str, p: &str, d: &mut Diagnostics) {
    for n in std::iter::once(&r.name).chain(&r.former) {
        if !valid(n) {
            d.error(p.to_string(), format!("`{n}` is not a {what} name"));
        }
    }
    if r.former.as_ref() == Some(&r.name) {
        d.error(p.to_string(), format!("`{}` is both the new and the former name", r.name));
    }
}

/// The functions that `skip` patterns match, each with its reason.
fn skip(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, String> {
    let Inputs { model, rules, .. } = *i;
    let mut skipped = BTreeMap::new();
    for (pattern, reason) in &rules.skip {
        let matched: Vec<&String> = model.functions.keys().filter(|n| glob_match(pattern, n)).collect();
        if matched.is_empty() {
            if pattern.ends_with('*') {
                d.warn(i.place("skip", pattern), "matches no function of the header");
            } else {
                d.error(i.place("skip", pattern), format!("`{pattern}` is not a function of the header"));
            }
        }
        for m in matched {
            skipped.insert(m.clone(), reason.clone());
        }
    }
    skipped
}

/// Checks `manual`: a function of the header that is not also skipped.
fn manual(i: &Inputs, skipped: &BTreeMap<String, String>, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for func in rules.manual.keys() {
        let p = i.place("manual", func);
        if function(model, func, &p, d).is_some() && skipped.contains_key(func) {
            d.error(p, "is both skipped and wrapped by hand");
        }
    }
}

/// Checks `ids`: an integer typedef of the header and a Rust type name.
fn ids(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for (typedef, safe) in &rules.ids {
        let p = i.place("ids", typedef);
        match model.typedefs.get(typedef).map(|t| model.resolve_typedef(&t.ty)) {
            Some(Ty::UInt | Ty::Int | Ty::ULongLong) if is_rust_type_name(safe) => {}
            Some(_) => {
                d.error(p, format!("`{typedef}` is not an integer typedef, or `{safe}` is not a Rust type name"))
            }
            None => d.error(p, format!("`{typedef}` is not a typedef of the header")),
        }
    }
}

/// Checks `directions`: `function.parameter`, a pointer to non-const.
fn directions(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for key in rules.directions.keys() {
        let p = i.place("directions", key);
        match key.split_once('.') {
            Some((func, param)) => {
                if let Some(f) = function(model, func, &p, d) {
                    check_param(f, param, &p, d, |t| matches!(t, Ty::Pointer { is_const: false, .. }));
                }
            }
            None => d.error(p, "expected `function.parameter`"),
        }
    }
}

/// Checks `bitflags`: a type name, constants with the prefix and the aliases, excluded constants,
/// and the parameters and fields that carry the flags.
/// Each `booleans` entry names an integer or enum parameter (or a pointer to one) of a
/// function, an integer or enum field of a record (`record.field`, an array of them included),
/// or an enum typedef every use of which is a yes or no.
fn booleans(i: &Inputs, d: &mut Diagnostics) {
    let model = i.model;
    let yes_no = |t: &Ty| {
        let t = match model.resolve_typedef(t) {
            Ty::Pointer { pointee, .. } | Ty::Array { elem: pointee, .. } => model.resolve_typedef(pointee),
            t => t,
        };
        is_enum_or_integer(model, t) || matches!(t, Ty::UChar | Ty::Char | Ty::UShort | Ty::Short)
    };
    for key in &i.rules.booleans {
        let p = i.place("booleans", key);
        let Some((owner, member)) = key.split_once('.') else {
            let is_enum =
                model.typedefs.get(key).is_some_and(|t| is_enum_or_integer(model, &t.ty) && !is_integer(&t.ty))
                    || model.enums.contains_key(key);
            if !is_enum {
                d.error(
                    p,
                    format!(
                        "`{key}` is not an enum typedef of the header (or a `function.parameter`, a `record.field`)"
                    ),
                );
            }
            continue;
        };
        if model.records.contains_key(owner) {
            if let Some((r, _, field)) = record_field(model, key, &p, d) {
                if r.fields.iter().find(|f| f.name == field).is_some_and(|f| !yes_no(&f.ty)) {
                    d.error(p, format!("field `{field}` of `{owner}` is not an integer or an enum"));
                }
            }
        } else if let Some(f) = function(model, owner, &p, d) {
            check_param(f, member, &p, d, yes_no);
        }
    }
}

/// Each `tagged_values` rule names an `nvmlValue_t` field of a record and where its type is:
/// an enum or integer field of the same record, an enum or integer out-parameter of a function
/// that takes an array of the record, or such a field of a record that points to one. The
/// fields of one record read their type from one place.
fn tagged_values(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, ValueTag> {
    let model = i.model;
    let enum_or_integer = |t: &Ty| is_enum_or_integer(model, t);
    let field_ty =
        |r: &crate::model::Record, name: &str| r.fields.iter().find(|f| f.name == name).map(|f| f.ty.clone());
    let mut resolved = BTreeMap::new();
    let mut external: BTreeMap<&str, &ValueTag> = BTreeMap::new();
    for (key, tag) in &i.rules.tagged_values {
        let p = i.place("tagged_values", key);
        let Some((r, record, field)) = record_field(model, key, &p, d) else { continue };
        if !field_ty(r, field).is_some_and(|t| is_value_union(model, &t)) {
            d.error(p.clone(), format!("`{field}` is not an `nvmlValue_t` field of `{record}`"));
        }
        let tag = match tag.split_once('.') {
            None => {
                if !field_ty(r, tag).is_some_and(|t| enum_or_integer(&t)) {
                    d.error(p, format!("`{tag}` is not an enum or integer field of `{record}`"));
                    continue;
                }
                ValueTag::Field(tag.clone())
            }
            Some((func, param)) if model.functions.contains_key(func) => {
                let f = &model.functions[func];
                let out = |t: &Ty| matches!(t, Ty::Pointer { is_const: false, pointee } if enum_or_integer(pointee));
                if !check_param(f, param, &p, d, out) {
                    continue;
                }
                if !f.params.iter().any(|q| points_to(model, &q.ty, record)) {
                    d.error(p, format!("`{func}` takes no array of `{record}`"));
                    continue;
                }
                // Every function that fills the record answers the type there.
                let others = model.functions.values().filter(|g| g.name != *func);
                if let Some(g) = others.into_iter().find(|g| g.params.iter().any(|q| points_to(model, &q.ty, record))) {
                    d.error(p, format!("`{}` takes `{record}` too, without `{param}`", g.name));
                    continue;
                }
                ValueTag::Param { function: func.to_string(), param: param.to_string() }
            }
            Some((outer, of)) => {
                let Some(o) = model.records.get(outer) else {
                    d.error(p, format!("`{outer}` is neither a function nor a record of the header"));
                    continue;
                };
                if !field_ty(o, of).is_some_and(|t| enum_or_integer(&t)) {
                    d.error(p, format!("`{of}` is not an enum or integer field of `{outer}`"));
                    continue;
                }
                if !o.fields.iter().any(|f| points_to(model, &f.ty, record)) {
                    d.error(p, format!("`{outer}` has no field that points to `{record}`"));
                    continue;
                }
                ValueTag::Outer { record: outer.to_string(), field: of.to_string() }
            }
        };
        resolved.insert(key.clone(), tag);
    }
    for (key, tag) in &resolved {
        let record = key.split_once('.').map_or(key.as_str(), |(r, _)| r);
        if tag.field().is_none() && *external.entry(record).or_insert(tag) != tag {
            d.error(i.place("tagged_values", key), format!("the fields of `{record}` read their type from two places"));
        }
    }
    resolved
}

/// The record of a `record.field` key, and the key's two parts; reports a key of another
/// shape or naming no record of the header.
fn record_field<'k, 'm>(
    model: &'m Model,
    key: &'k str,
    place: &str,
    d: &mut Diagnostics,
) -> Option<(&'m crate::model::Record, &'k str, &'k str)> {
    let Some((record, field)) = key.split_once('.') else {
        d.error(place.to_string(), format!("`{key}`: expected `record.field`"));
        return None;
    };
    let Some(r) = model.records.get(record) else {
        d.error(place.to_string(), format!("`{record}` is not a record of the header"));
        return None;
    };
    Some((r, record, field))
}

/// Whether `t` is an enum or an integer type.
fn is_enum_or_integer(model: &Model, t: &Ty) -> bool {
    let t = model.resolve_typedef(t);
    is_integer(t) || matches!(t, Ty::Named(n) if model.enums.contains_key(n))
}

/// Whether `t` is `nvmlValue_t`.
fn is_value_union(model: &Model, t: &Ty) -> bool {
    matches!(model.resolve_typedef(t), Ty::Named(n) if n == "nvmlValue_st" || n == "nvmlValue_t")
}

/// Whether `t` points to record `record` (or is an array of it).
fn points_to(model: &Model, t: &Ty, record: &str) -> bool {
    match model.resolve_typedef(t) {
        Ty::Pointer { pointee, .. } | Ty::Array { elem: pointee, .. } => {
            matches!(model.resolve_typedef(pointee), Ty::Named(n) if n == record)
        }
        _ => false,
    }
}

/// The union record a field's type names, if it is one.
pub fn union_of<'m>(model: &'m Model, t: &Ty) -> Option<&'m crate::model::Record> {
    match model.resolve_typedef(t) {
        Ty::Named(n) => model.records.get(n).filter(|r| r.kind == crate::model::RecordKind::Union),
        _ => None,
    }
}

/// Each `tagged_unions` rule names a union of the header, a member of it for each constant,
/// and record fields of the union's type, each with an enum or integer tag field beside it.
fn tagged_unions(i: &Inputs, d: &mut Diagnostics) {
    let model = i.model;
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for (name, rule) in &i.rules.tagged_unions {
        let p = i.place("tagged_unions", name);
        if !is_rust_type_name(name) {
            d.error(p.clone(), format!("`{name}` is not a Rust type name"));
        }
        let Some(u) = model.records.get(&rule.union).filter(|r| r.kind == crate::model::RecordKind::Union) else {
            d.error(p, format!("`{}` is not a union of the header", rule.union));
            continue;
        };
        for (constant, member) in &rule.members {
            if constant_value(model, constant).is_none() && !is_enum_constant(model, constant) {
                d.error(p.clone(), format!("members: `{constant}` is not an integer constant of the header"));
            }
            if !u.fields.iter().any(|f| f.name == *member) {
                d.error(p.clone(), format!("members: `{member}` is not a member of `{}`", rule.union));
            }
        }
        if rule.fields.is_empty() {
            d.warn(p.clone(), format!("matches nothing: no record field of type `{}` is named", rule.union));
        }
        for (key, tag) in &rule.fields {
            let Some((record, field)) = key.split_once('.') else {
                d.error(p.clone(), format!("fields: `{key}`: expected `record.field`"));
                continue;
            };
            if let Some(other) = seen.insert(key, name) {
                d.error(p.clone(), format!("fields: `{key}` is named by `{other}` too"));
            }
            let Some(r) = model.records.get(record) else {
                d.error(p.clone(), format!("fields: `{record}` is not a record of the header"));
                continue;
            };
            let ty = |n: &str| r.fields.iter().find(|f| f.name == n).map(|f| f.ty.clone());
            let of_union = ty(field).and_then(|t| union_of(model, &t)).is_some_and(|x| x.name == u.name);
            if !of_union {
                d.error(p.clone(), format!("fields: `{field}` is not a `{}` field of `{record}`", rule.union));
            }
            if !ty(tag).is_some_and(|t| is_enum_or_integer(model, &t)) {
                d.error(p.clone(), format!("fields: `{tag}` is not an enum or integer field of `{record}`"));
            }
        }
    }
}

fn is_enum_constant(model: &Model, name: &str) -> bool {
    model.enums.values().any(|e| e.constants.iter().any(|k| k.name == name))
}

/// Each `byte_unions` rule names a union field whose members are byte arrays of one size.
fn byte_unions(i: &Inputs, d: &mut Diagnostics) {
    let model = i.model;
    for (key, name) in &i.rules.byte_unions {
        let p = i.place("byte_unions", key);
        let Some((r, record, field)) = record_field(model, key, &p, d) else { continue };
        let Some(u) = r.fields.iter().find(|f| f.name == field).and_then(|f| union_of(model, &f.ty)) else {
            d.error(p, format!("`{field}` is not a union field of `{record}`"));
            continue;
        };
        let lens: BTreeSet<Option<u64>> = u
            .fields
            .iter()
            .map(|f| match model.resolve_typedef(&f.ty) {
                Ty::Array { elem, len } if matches!(model.resolve_typedef(elem), Ty::UChar | Ty::Char) => Some(*len),
                _ => None,
            })
            .collect();
        if lens.len() != 1 || lens.contains(&None) {
            d.error(p.clone(), format!("the members of `{}` are not byte arrays of one size", u.name));
        }
        if r.fields.iter().any(|f| f.name != field && names::snake(&f.name) == *name) || names::snake(name) != *name {
            d.error(p, format!("`{name}` is not a free snake-case field name of `{record}`"));
        }
    }
}

/// Union fields of records without pointers that no rule reads: their safe record would show
/// the raw C union.
fn raw_unions(i: &Inputs, tagged_values: &BTreeMap<String, ValueTag>, d: &mut Diagnostics) {
    let model = i.model;
    let read: BTreeSet<&str> = tagged_values
        .keys()
        .chain(i.rules.byte_unions.keys())
        .chain(i.rules.tagged_unions.values().flat_map(|r| r.fields.keys()))
        .map(String::as_str)
        .collect();
    for r in model.records.values().filter(|r| r.kind == crate::model::RecordKind::Struct) {
        if r.fields.iter().any(|f| matches!(model.resolve_typedef(&f.ty), Ty::Pointer { .. } | Ty::FnPtr { .. })) {
            continue;
        }
        for f in r.fields.iter().filter(|f| union_of(model, &f.ty).is_some()) {
            let key = format!("{}.{}", r.name, f.name);
            if !read.contains(key.as_str()) {
                d.warn(
                    format!("{}: tagged_unions", i.file),
                    format!("`{key}` is a union no `tagged_values`, `tagged_unions` or `byte_unions` rule reads"),
                );
            }
        }
    }
}

/// Each `inputs` rule names a record of the header and fields of it other than `version`.
fn inputs(i: &Inputs, d: &mut Diagnostics) {
    for (record, fields) in &i.rules.inputs {
        let p = i.place("inputs", record);
        let Some(r) = i.model.records.get(record) else {
            d.error(p, format!("`{record}` is not a record of the header"));
            continue;
        };
        for field in fields {
            if field == "version" || !r.fields.iter().any(|f| f.name == *field) {
                d.error(p.clone(), format!("`{field}` is not a field of `{record}` the caller can set"));
            }
        }
    }
}

/// One `list_fields` rule.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListFieldRule {
    /// The field of the older layouts.
    pub from: String,
    /// The list's count field in the newer record.
    pub count: String,
    /// Each member of the entry → a header constant, or `from` (the older field's value).
    pub entry: BTreeMap<String, String>,
}

/// Each `list_fields` rule names an array field of records, its count field, and members of
/// the entry record set from constants of the header or from the older field.
fn list_fields(i: &Inputs, d: &mut Diagnostics) {
    let model = i.model;
    for (key, rule) in &i.rules.list_fields {
        let p = i.place("list_fields", key);
        let Some((record, _, field)) = record_field(model, key, &p, d) else { continue };
        let Some(elem) = model.array_record(record, field) else {
            d.error(p, format!("`{field}` is not an array of records"));
            continue;
        };
        if !record.fields.iter().any(|f| f.name == rule.count) {
            d.error(p.clone(), format!("`{}` is not a field of `{}`", rule.count, record.name));
        }
        for (member, value) in &rule.entry {
            if !elem.fields.iter().any(|f| f.name == *member) {
                d.error(p.clone(), format!("`{member}` is not a field of `{}`", elem.name));
            }
            if *value != rule.from && constant_value(model, value).is_none() {
                d.error(
                    p.clone(),
                    format!("`{value}` is neither `{}` nor an integer constant of the header", rule.from),
                );
            }
        }
    }
}

/// Each `former_names` key names a field of a record of the header.
/// The arrays of records whose filled entries a field of the record counts: derived where the
/// count field's comment names the array ("Number of valid entries in \\a cliques[]",
/// "Entries returned in \\a gridLicensableFeatures array"), and the `counted` rules, each of
/// an array and an integer field of one record (a rule the comments already give is reported).
fn counted(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, String> {
    let model = i.model;
    let mut out = derive_counted(model);
    for (key, count) in &i.rules.counted {
        let p = i.place("counted", key);
        let Some((r, _, array)) = record_field(model, key, &p, d) else { continue };
        let field = |n: &str| r.fields.iter().find(|f| f.name == n);
        if !field(array).is_some_and(|f| matches!(model.resolve_typedef(&f.ty), Ty::Array { .. })) {
            d.error(p.clone(), format!("`{array}` is not an array field of `{}`", r.name));
            continue;
        }
        if !field(count).is_some_and(|f| {
            is_integer(model.resolve_typedef(&f.ty)) || matches!(model.resolve_typedef(&f.ty), Ty::UChar | Ty::UShort)
        }) {
            d.error(p, format!("`{count}` is not an integer field of `{}`", r.name));
            continue;
        }
        if out.get(key) == Some(count) {
            d.warn(p, "matches nothing: the count field's comment names the array");
        }
        out.insert(key.clone(), count.clone());
    }
    out
}

/// `record.array` → count field, where the count field's comment names the array.
pub fn derive_counted(model: &Model) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for r in model.records.values() {
        let arrays: Vec<&str> = r
            .fields
            .iter()
            .filter(|f| matches!(model.resolve_typedef(&f.ty), Ty::Array { elem, .. } if !matches!(**elem, Ty::Char)))
            .map(|f| f.name.as_str())
            .collect();
        for f in r.fields.iter().filter(|f| is_integer(model.resolve_typedef(&f.ty)) || matches!(f.ty, Ty::UChar)) {
            let doc = f.doc.as_deref().unwrap_or("");
            let words: Vec<&str> = doc.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).collect();
            let counts = ["number", "entries", "count", "valid"].iter().any(|w| doc.to_ascii_lowercase().contains(w));
            if let (true, [array]) =
                (counts, arrays.iter().filter(|a| words.contains(a)).collect::<Vec<_>>().as_slice())
            {
                out.insert(format!("{}.{array}", r.name), f.name.clone());
            }
        }
    }
    out
}

fn former_names(i: &Inputs, d: &mut Diagnostics) {
    for key in i.rules.former_names.keys() {
        let p = i.place("former_names", key);
        let Some((record, _, field)) = record_field(i.model, key, &p, d) else { continue };
        if !record.fields.iter().any(|g| g.name == field) {
            d.error(p, format!("`{field}` is not a field of `{}`", record.name));
        }
    }
}

/// Each `fill_from_older` key names a field of a record, and its value another record that has
/// a field of that name.
fn fill_from_older(i: &Inputs, d: &mut Diagnostics) {
    for (key, older) in &i.rules.fill_from_older {
        let p = i.place("fill_from_older", key);
        let Some((record, _, field)) = record_field(i.model, key, &p, d) else { continue };
        if !record.fields.iter().any(|g| g.name == field) {
            d.error(p.clone(), format!("`{field}` is not a field of `{}`", record.name));
        }
        match i.model.records.get(older) {
            None => d.error(p, format!("`{older}` is not a record of the header")),
            Some(o) if !o.fields.iter().any(|g| g.name == field) => {
                d.error(p, format!("`{older}` has no field `{field}` to take"))
            }
            Some(_) => {}
        }
    }
}

fn bitflags(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    let tables = rules.bitflags.iter().map(|r| ("bitflags", r)).chain(rules.values.iter().map(|r| ("values", r)));
    for (table, (name, flags)) in tables {
        let p = i.place(table, name);
        if rules.bitflags.contains_key(name) && rules.values.contains_key(name) {
            d.error(p.clone(), format!("`{name}` is named by both `bitflags` and `values`"));
        }
        if let Some(td) = &flags.typedef {
            if table == "bitflags" {
                d.error(p.clone(), "`typedef` is for `values` rules");
            } else if !model.typedefs.contains_key(td) {
                d.error(p.clone(), format!("`{td}` is not a typedef of the header"));
            }
        }
        if !is_rust_type_name(name) {
            d.error(p.clone(), format!("`{name}` is not a Rust type name"));
        }
        if !model.constants.keys().any(|c| c.starts_with(&flags.prefix) && constant_value(model, c).is_some()) {
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
                    if let Some(f) = function(model, func, &p, d) {
                        check_param(
                            f,
                            param,
                            &p,
                            d,
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
}

/// The version constant of each versioned record: found by the header's naming (or its version
/// field's comment), with the `struct_versions` rules over it.
fn struct_versions(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, String> {
    let Inputs { model, rules, .. } = *i;
    let mut struct_versions = BTreeMap::new();
    for r in model.records.values().filter(|r| r.fields.first().is_some_and(|f| f.name == "version")) {
        let names = model
            .typedefs
            .values()
            .filter(|t| t.ty == Ty::Named(r.name.clone()))
            .map(|t| t.name.as_str())
            .chain([r.name.as_str()]);
        let found =
            names.filter_map(|n| n.strip_suffix("_t")).find(|c| constant_value(model, c).is_some()).map(str::to_string);
        // Else the version field's comment may name it: `IN: Set to NVML_GPM_SUPPORT_VERSION`.
        let named = || {
            let doc = r.fields[0].doc.as_deref()?;
            let rest = &doc[doc.find("Set to ")? + 7..];
            let c: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            constant_value(model, &c).is_some().then_some(c)
        };
        if let Some(c) = found.or_else(named) {
            struct_versions.insert(r.name.clone(), c);
        }
    }
    for (rec, c) in &rules.struct_versions {
        let p = i.place("struct_versions", rec);
        if !model.records.contains_key(rec) {
            d.error(p, format!("`{rec}` is not a record of the header"));
        } else if constant_value(model, c).is_none() {
            d.error(p, format!("`{c}` is not an integer constant of the header"));
        } else {
            if struct_versions.get(rec) == Some(c) {
                d.warn(p, "matches nothing: the header's naming gives the same constant");
            }
            struct_versions.insert(rec.clone(), c.clone());
        }
    }
    struct_versions
}

/// The values of `absent_fields` (fields that older layouts lack), resolved.
fn absent_fields(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, (Option<String>, u64)> {
    let Inputs { model, rules, .. } = *i;
    let mut absent_fields = BTreeMap::new();
    for (key, value) in &rules.absent_fields {
        let p = i.place("absent_fields", key);
        let known = key
            .split_once('.')
            .is_some_and(|(r, f)| model.records.get(r).is_some_and(|r| r.fields.iter().any(|x| x.name == f)));
        if !known {
            d.error(p.clone(), format!("`{key}` is not a `record.field` of the header"));
        }
        let resolved = match value {
            SizeSpec::Bytes(n) => Some((None, *n)),
            SizeSpec::Constant(c) => constant_value(model, c).map(|v| (Some(c.clone()), v)),
        };
        match resolved {
            Some(v) if known => {
                absent_fields.insert(key.clone(), v);
            }
            Some(_) => {}
            None => d.error(p, format!("`{value:?}` is not an integer constant of the header")),
        }
    }
    absent_fields
}

impl Bindings {
    /// The safe type of a handle typedef, opaque or id.
    pub fn handle_type(&self, typedef: &str) -> Option<&str> {
        self.handles.get(typedef).or_else(|| self.ids.get(typedef)).map(String::as_str)
    }

    /// Whether a `booleans` rule makes parameter `param` of `func` a `bool`: by name, or by its
    /// type (an enum typedef the rules name).
    pub fn boolean_param(&self, func: &str, param: &str) -> bool {
        if self.booleans.contains(&format!("{func}.{param}")) {
            return true;
        }
        let ty = self.model.functions.get(func).and_then(|f| f.params.iter().find(|p| p.name == param));
        ty.is_some_and(|p| self.boolean_type(&p.ty))
    }

    /// Whether a `booleans` rule makes field `field` of `record` a `bool`.
    pub fn boolean_field(&self, record: &str, field: &str) -> bool {
        if self.booleans.contains(&format!("{record}.{field}")) {
            return true;
        }
        let f = self.model.records.get(record).and_then(|r| r.fields.iter().find(|f| f.name == field));
        f.is_some_and(|f| self.boolean_type(&f.ty))
    }

    /// Whether `t` (or what it points to) is an enum typedef a `booleans` rule names.
    fn boolean_type(&self, t: &Ty) -> bool {
        let t = match t {
            Ty::Pointer { pointee, .. } => pointee,
            t => t,
        };
        let Ty::Named(n) = t else { return false };
        self.booleans.contains(n) || matches!(self.model.resolve_typedef(t), Ty::Named(e) if self.booleans.contains(e))
    }

    /// The bitflags type a parameter carries, if a rule says so.
    pub fn flags_of_param(&self, func: &str, param: &str) -> Option<String> {
        let key = format!("{func}.{param}");
        let ty = self.model.functions.get(func).and_then(|f| f.params.iter().find(|p| p.name == param)).map(|p| &p.ty);
        self.bitflags
            .iter()
            .find(|(_, r)| r.params.contains(&key) || ty.is_some_and(|t| r.carried_by(t)))
            .map(|(n, _)| n.clone())
    }

    /// The bitflags type a record field carries, if a rule says so.
    pub fn flags_of_field(&self, record: &str, field: &str) -> Option<String> {
        let key = format!("{record}.{field}");
        let ty = self.model.records.get(record).and_then(|r| r.fields.iter().find(|f| f.name == field)).map(|f| &f.ty);
        self.bitflags
            .iter()
            .find(|(_, r)| r.fields.contains(&key) || ty.is_some_and(|t| r.carried_by(t)))
            .map(|(n, _)| n.clone())
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
    fn released_is_one_version_or_a_list_and_is_rewritten_in_place() {
        let one = "# The last release.\nreleased: 13.5.37\n\nhandles: {}\n";
        assert_eq!(parse(one, "x").unwrap().released, ["13.5.37"]);
        let two = with_released(one, &["13.5.37".into(), "13.6.1".into()]);
        assert_eq!(two, "# The last release.\nreleased: [13.5.37, 13.6.1]\n\nhandles: {}\n");
        assert_eq!(parse(&two, "x").unwrap().released, ["13.5.37", "13.6.1"]);
        let block = "released:\n  - 13.5.37\n  - 13.6.1\nhandles: {}\n";
        assert_eq!(parse(block, "x").unwrap().released, ["13.5.37", "13.6.1"]);
        assert_eq!(with_released(block, &["13.6.1".into()]), "released: 13.6.1\nhandles: {}\n");
        assert_eq!(with_released("handles: {}\n", &["1.2.3".into()]), "handles: {}\nreleased: 1.2.3\n");
        assert!(parse("released: {a: 1}\n", "x").is_err());
        // Versions, oldest first, each once.
        let rules = parse("released: [13.5.37, 13.5.37, next, 13.4.92]\n", "x").unwrap();
        let (_, d) = apply(Model::default(), &rules, "x.yaml");
        let errors: Vec<String> =
            d.items().iter().filter(|d| d.place == "x.yaml: released").map(|d| d.message.clone()).collect();
        assert_eq!(
            errors,
            [
                "`13.5.37` before `13.5.37`: the release headers go oldest first, each once",
                "`next` is not a header version such as 13.5.37",
                "`13.5.37` before `13.4.92`: the release headers go oldest first, each once",
            ]
        );
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
