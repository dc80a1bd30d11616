//! The rules resolved against a header: [`Bindings`], what the plan and the emitters read.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{Model, Ty};

use serde::Serialize;

use super::areas;
use super::schema::*;

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
    /// Function → the name of the struct its method returns (the `results` rules).
    pub results: BTreeMap<String, String>,
    /// `record.field` → the hand-written type a method takes for it (the `field_types` rules).
    pub field_types: BTreeMap<String, String>,
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
