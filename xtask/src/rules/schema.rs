//! The schema of `gen-config/nvml.yaml`: the tables of rules as serde reads them (unknown keys
//! are errors), and the file read and rewritten.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::model::Ty;

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
    /// Function → the name of the struct its method returns, where the method returns several
    /// values (a list and the fields beside it): methods of one rule's name share the struct
    /// when they return the same fields.
    pub results: BTreeMap<String, String>,
    /// `record.field` (an in/out field beside a list inside the record) → the hand-written Rust
    /// type the method takes by `&mut` for it, which implements `raw::ToRaw` and `raw::FromRaw`
    /// of the field's C type: where the field is opaque to the caller (a cursor).
    pub field_types: BTreeMap<String, String>,
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
pub fn one_or_more<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Vec<String>, D::Error> {
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
