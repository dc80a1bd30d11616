//! `cargo xtask header-diff`: what changed in the API between two headers, from their models.
//!
//! [`compare`] is a pure function of the old [`Model`] and the new header's [`Planned`] (the
//! current rules applied to it); it returns a [`HeaderDiff`], plain data in name order that
//! serialises to JSON for tools and renders as Markdown for a pull-request description
//! ([`HeaderDiff::to_markdown`]). Only what the model holds counts: comments, line numbers and
//! declaration order are not API changes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use crate::diag::{Diag, Level};
use crate::fetch::headers::available;
use crate::fetch::Pip;
use crate::model::{ConstValue, Enum, EnumConstant, Field, Function, HeaderInfo, Model, Record, RecordKind, Ty};
use crate::pipeline::{self, Inputs, Planned};
use crate::plan::Wrapping;

pub mod listing;
mod safe;
pub use safe::{ApiItem, ApiType, Breaking, Cause, SafeApi, SafeDiff};

/// Everything that changed between two headers.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HeaderDiff {
    pub old: HeaderInfo,
    pub new: HeaderInfo,
    /// The two files are byte for byte the same (same sha256).
    pub identical: bool,
    /// How many API changes the sections below hold (0 for "No API changes").
    pub api_changes: usize,
    /// Functions; a changed one has a new return type or parameter list (renames included).
    pub functions: Section,
    /// Added functions that are a new `_vN` (or `V`) version of a function the old header had.
    pub new_versions: Vec<NewVersion>,
    /// `#define nvmlX nvmlX_vN` and the other `#define`s that alias a function or type.
    pub versioned_defines: Section,
    /// Structs and unions, nested anonymous ones included.
    pub records: Section,
    pub enums: Section,
    /// Integer, float and string `#define`s.
    pub constants: Section,
    /// Typedefs and opaque handles.
    pub types: Section,
    /// Items in both headers whose deprecation changed.
    pub deprecations: Vec<Deprecation>,
    /// How the safe crate wraps each added function under the current rules.
    pub wrapping: Vec<Wrapped>,
    /// Warnings and errors from applying the current rules to the new header.
    pub rules: Vec<String>,
    /// The rules that do not apply to the new header, which lacks their subject (`section.key:
    /// why`): not errors (see [`crate::rules::adapt`]).
    pub rules_left_out: Vec<String>,
    /// The safe crate's API under the current rules, old header against new: methods (as
    /// `Type::method`) and types added, removed or changed, and what that means for semver.
    pub safe: SafeDiff,
}

/// Added, removed and changed items of one kind, each list in name order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Section {
    pub added: Vec<Item>,
    pub removed: Vec<Item>,
    pub changed: Vec<Change>,
}

/// An item with a one-line description: a prototype, a record's kind and size, a value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    pub name: String,
    pub detail: String,
}

/// An item in both headers that differs: its description in each, and what changed inside.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub name: String,
    pub old: String,
    pub new: String,
    /// Parameters, fields or enum constants.
    pub members: Vec<MemberChange>,
}

/// A change to one parameter, field or enum constant.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum MemberChange {
    Added {
        name: String,
        detail: String,
    },
    Removed {
        name: String,
        detail: String,
    },
    /// A parameter at the same position with a new name.
    Renamed {
        old: String,
        new: String,
    },
    /// A new C type (the return type is the member `return`).
    Retyped {
        name: String,
        old: String,
        new: String,
    },
    /// A field at a new offset: in bytes, or in bits for a bit-field.
    Moved {
        name: String,
        old: u64,
        new: u64,
    },
    /// An enum constant with a new value.
    Value {
        name: String,
        old: String,
        new: String,
    },
    /// A record or enum whose C tag changed (`None`: anonymous, named by its typedef only).
    Tag {
        old: Option<String>,
        new: Option<String>,
    },
}

/// An added function that versions a function of the old header.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NewVersion {
    pub name: String,
    /// The API name, e.g. `nvmlDeviceGetPciInfo`.
    pub base: String,
    /// The newest version the old header declared.
    pub previous: String,
}

/// How an item is marked deprecated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Deprecated {
    No,
    /// A `@deprecated` paragraph in its documentation.
    Documented,
    /// The `DEPRECATED(...)` attribute (functions only): Rust callers get a warning.
    Attribute,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Deprecation {
    /// `function`, `record`, `enum`, `enum constant`, `constant` or `type`.
    pub kind: &'static str,
    pub name: String,
    pub old: Deprecated,
    pub new: Deprecated,
}

/// An added function and how the safe crate wraps it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wrapped {
    pub name: String,
    #[serde(flatten)]
    pub wrapping: Wrapping,
}

impl Section {
    pub fn len(&self) -> usize {
        self.added.len() + self.removed.len() + self.changed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Compares two headers: `old`'s model with `new`, the new header with the current rules
/// applied (`rule_diags` are that application's diagnostics).
pub fn compare(old: &Model, new: &Planned, rule_diags: &[Diag]) -> HeaderDiff {
    compare_with_api(old, None, new, rule_diags)
}

/// [`compare`], with the safe crate's API of the old header under the same rules (`None`: no
/// safe-crate section).
pub fn compare_with_api(old: &Model, old_api: Option<&SafeApi>, new: &Planned, rule_diags: &[Diag]) -> HeaderDiff {
    compare_headers(old, &new.bindings.model, old_api, new, rule_diags)
}

/// [`compare_with_api`] where the new header's model (`m`, as parsed) is not the one the plan
/// rests on (which holds what it keeps of the old header, see `model::keep`).
fn compare_headers(
    old: &Model,
    m: &Model,
    old_api: Option<&SafeApi>,
    new: &Planned,
    rule_diags: &[Diag],
) -> HeaderDiff {
    let functions = section(&old.functions, &m.functions, Function::prototype, compare_functions);
    let old_families = crate::model::derive_families(old);
    let new_versions = functions
        .added
        .iter()
        .filter_map(|item| {
            let (base, _) = crate::model::version_of(&item.name)?;
            let previous = match old_families.get(base) {
                Some(symbols) => symbols.first()?.clone(),
                None if old.functions.contains_key(base) => base.to_string(),
                None => return None,
            };
            Some(NewVersion { name: item.name.clone(), base: base.to_string(), previous })
        })
        .collect();
    let wrapping = functions
        .added
        .iter()
        .filter_map(|item| m.functions.get(&item.name))
        .map(|f| Wrapped { name: f.name.clone(), wrapping: new.plan.wrapping(f) })
        .collect();
    let mut diff = HeaderDiff {
        old: old.header.clone(),
        new: m.header.clone(),
        identical: old.header.sha256 == m.header.sha256,
        api_changes: 0,
        functions,
        new_versions,
        versioned_defines: section(&old.aliases, &m.aliases, |a| a.target.clone(), |_, _| Vec::new()),
        records: by_c_name(
            (old, &old.records),
            (m, &m.records),
            |r| (&r.name, &r.tag, &r.parent),
            record_summary,
            compare_records,
        ),
        enums: by_c_name(
            (old, &old.enums),
            (m, &m.enums),
            |e| (&e.name, &e.tag, &None),
            |e| e.repr.c_spelling(),
            compare_enums,
        ),
        constants: constants(old, m),
        types: section(&type_table(old), &type_table(m), |t| t.clone(), |_, _| Vec::new()),
        deprecations: deprecations(old, m),
        wrapping,
        rules: rule_diags.iter().filter(|d| d.level != Level::Note).map(|d| d.to_string()).collect(),
        rules_left_out: Vec::new(),
        safe: SafeDiff::default(),
    };
    if let (Some(old_api), Ok(new_api)) = (old_api, SafeApi::of(new)) {
        let mut typed = new.bindings.enum_params.clone();
        typed.extend(new.plan.typed_fields());
        diff.safe = safe::diff(old_api, &new_api, &diff, old, &typed);
        diff.safe.kept = new.bindings.model.kept.clone();
    }
    diff.api_changes =
        [&diff.functions, &diff.versioned_defines, &diff.records, &diff.enums, &diff.constants, &diff.types]
            .iter()
            .map(|s| s.len())
            .sum::<usize>()
            + diff.deprecations.len();
    diff
}

/// Added, removed and changed entries of two maps. `describe` gives the one-line description
/// (entries whose descriptions and members agree are unchanged); `inner` the member changes.
pub(crate) fn section<T>(
    old: &BTreeMap<String, T>,
    new: &BTreeMap<String, T>,
    describe: impl Fn(&T) -> String,
    inner: impl Fn(&T, &T) -> Vec<MemberChange>,
) -> Section {
    let mut s = Section::default();
    for (name, o) in old {
        match new.get(name) {
            None => s.removed.push(Item { name: name.clone(), detail: describe(o) }),
            Some(n) => {
                let (old_text, new_text, members) = (describe(o), describe(n), inner(o, n));
                if old_text != new_text || !members.is_empty() {
                    s.changed.push(Change { name: name.clone(), old: old_text, new: new_text, members });
                }
            }
        }
    }
    for (name, n) in new.iter().filter(|(name, _)| !old.contains_key(*name)) {
        s.added.push(Item { name: name.clone(), detail: describe(n) });
    }
    s
}

/// How signatures name a record or enum: for a tagged one, the typedef of its tag
/// (`nvmlPciInfo_t` for `typedef struct nvmlPciInfo_st {...} nvmlPciInfo_t`; of several, the
/// one named after the tag, else the first by line), or the tag when no typedef names it. An anonymous record or enum already
/// has its typedef's name; a nested anonymous record is named after its parent's C name.
fn c_name(m: &Model, name: &str, tagged: bool, parent: &Option<String>) -> String {
    if let Some(p) = parent.as_deref().and_then(|p| m.records.get(p)) {
        if let Some(rest) = name.strip_prefix(p.name.as_str()) {
            return format!("{}{rest}", c_name(m, &p.name, p.tag.is_some(), &p.parent));
        }
    }
    if !tagged {
        return name.to_string();
    }
    // The tag's own `_t` first (`} nvmlProcessInfo_v2_t, nvmlProcessInfo_t;` names the struct
    // `nvmlProcessInfo_v2_st` twice, on one line), then the first typedef by line and name.
    let stem = ["_st", "_enum", "_s"].iter().find_map(|s| name.strip_suffix(s)).unwrap_or(name);
    let own = format!("{stem}_t");
    m.typedefs
        .values()
        .filter(|t| matches!(&t.ty, Ty::Named(n) if n == name))
        .min_by_key(|t| (t.name != own, t.line, t.name.clone()))
        .map_or_else(|| name.to_string(), |t| t.name.clone())
}

/// The typedefs that are a record's or enum's C name (see [`c_name`]): they show in the records
/// and enums sections, not among the types.
fn naming_typedefs(m: &Model) -> std::collections::BTreeSet<String> {
    let records = m.records.values().filter(|r| r.tag.is_some() && r.parent.is_none()).map(|r| &r.name);
    let enums = m.enums.values().filter(|e| e.tag.is_some()).map(|e| &e.name);
    records.chain(enums).map(|name| c_name(m, name, true, &None)).filter(|n| m.typedefs.contains_key(n)).collect()
}

/// [`section`] for records or enums, matched and named by their C name (see [`c_name`]) with
/// the tag in parentheses where it differs (`nvmlPciInfo_t (nvmlPciInfo_st)`): a struct whose
/// tag is added, renamed or dropped is the same struct, changed. `ids` gives an item's model
/// name, tag and parent record.
fn by_c_name<T>(
    (old_model, old): (&Model, &BTreeMap<String, T>),
    (new_model, new): (&Model, &BTreeMap<String, T>),
    ids: impl Fn(&T) -> (&String, &Option<String>, &Option<String>),
    describe: impl Fn(&T) -> String,
    inner: impl Fn(&T, &T) -> Vec<MemberChange>,
) -> Section {
    let keyed = |m: &Model, items: &BTreeMap<String, T>| -> BTreeMap<String, (String, Option<String>)> {
        items
            .values()
            .map(|item| {
                let (name, tag, parent) = ids(item);
                (c_name(m, name, tag.is_some(), parent), (name.clone(), tag.clone()))
            })
            .collect()
    };
    let (old_keys, new_keys) = (keyed(old_model, old), keyed(new_model, new));
    fn by_key<'a, T>(
        keys: &BTreeMap<String, (String, Option<String>)>,
        items: &'a BTreeMap<String, T>,
    ) -> BTreeMap<String, &'a T> {
        keys.iter().filter_map(|(k, (name, _))| Some((k.clone(), items.get(name)?))).collect()
    }
    let (old_items, new_items) = (by_key(&old_keys, old), by_key(&new_keys, new));
    let mut s = section(&old_items, &new_items, |t| describe(t), |a, b| inner(a, b));
    let shown = |keys: &BTreeMap<String, (String, Option<String>)>, key: &str| match keys.get(key) {
        Some((_, Some(tag))) if tag != key => format!("{key} ({tag})"),
        _ => key.to_string(),
    };
    for i in &mut s.added {
        i.name = shown(&new_keys, &i.name);
    }
    for i in &mut s.removed {
        i.name = shown(&old_keys, &i.name);
    }
    let mut tagged = Vec::new();
    for (key, (_, old_tag)) in &old_keys {
        let Some((_, new_tag)) = new_keys.get(key) else { continue };
        if old_tag != new_tag {
            tagged.push((key.clone(), MemberChange::Tag { old: old_tag.clone(), new: new_tag.clone() }));
        }
    }
    for (key, tag) in tagged {
        match (s.changed.iter_mut().find(|c| c.name == key), new_items.get(&key)) {
            (Some(c), _) => c.members.insert(0, tag),
            (None, Some(item)) => {
                let text = describe(item);
                s.changed.push(Change { name: key, old: text.clone(), new: text, members: vec![tag] });
            }
            (None, None) => {}
        }
    }
    s.changed.sort_by(|a, b| a.name.cmp(&b.name));
    for c in &mut s.changed {
        c.name = shown(&new_keys, &c.name);
    }
    s
}

/// Member changes of two lists matched by name: removed and changed in the old order, then
/// added in the new order.
fn members<T>(
    old: &[T],
    new: &[T],
    name: impl Fn(&T) -> &String,
    changed: impl Fn(&T, &T) -> Vec<MemberChange>,
    describe: impl Fn(&T) -> String,
) -> Vec<MemberChange> {
    let mut out = Vec::new();
    for o in old {
        match new.iter().find(|n| name(n) == name(o)) {
            None => out.push(MemberChange::Removed { name: name(o).clone(), detail: describe(o) }),
            Some(n) => out.extend(changed(o, n)),
        }
    }
    for n in new.iter().filter(|n| !old.iter().any(|o| name(o) == name(n))) {
        out.push(MemberChange::Added { name: name(n).clone(), detail: describe(n) });
    }
    out
}

/// Parameters compared by position when the count is unchanged (so renames show), else by name.
fn compare_functions(old: &Function, new: &Function) -> Vec<MemberChange> {
    let retyped = |name: &str, a: &Ty, b: &Ty| {
        (a != b).then(|| MemberChange::Retyped { name: name.to_string(), old: a.c_spelling(), new: b.c_spelling() })
    };
    let mut out: Vec<MemberChange> = retyped("return", &old.ret, &new.ret).into_iter().collect();
    if old.params.len() != new.params.len() {
        out.extend(members(
            &old.params,
            &new.params,
            |p| &p.name,
            |a, b| retyped(&a.name, &a.ty, &b.ty).into_iter().collect(),
            |p| p.ty.c_spelling(),
        ));
        return out;
    }
    for (a, b) in old.params.iter().zip(&new.params) {
        if a.name != b.name {
            out.push(MemberChange::Renamed { old: a.name.clone(), new: b.name.clone() });
        }
        out.extend(retyped(&b.name, &a.ty, &b.ty));
    }
    out
}

fn record_summary(r: &Record) -> String {
    let kind = match r.kind {
        RecordKind::Struct => "struct",
        RecordKind::Union => "union",
    };
    format!("{kind}, {} bytes, align {}", r.size, r.align)
}

fn field_type(f: &Field) -> String {
    match f.bit_width {
        Some(w) => format!("{} : {w}", f.ty.c_spelling()),
        None => f.ty.c_spelling(),
    }
}

fn field_summary(f: &Field) -> String {
    match f.bit_width {
        Some(_) => format!("{} at bit {}", field_type(f), f.offset),
        None => format!("{} at offset {}", field_type(f), f.offset),
    }
}

fn compare_records(old: &Record, new: &Record) -> Vec<MemberChange> {
    members(
        &old.fields,
        &new.fields,
        |f| &f.name,
        |a, b| {
            let mut out = Vec::new();
            if a.ty != b.ty || a.bit_width != b.bit_width {
                out.push(MemberChange::Retyped { name: a.name.clone(), old: field_type(a), new: field_type(b) });
            }
            if a.offset != b.offset {
                out.push(MemberChange::Moved { name: a.name.clone(), old: a.offset, new: b.offset });
            }
            out
        },
        field_summary,
    )
}

fn compare_enums(old: &Enum, new: &Enum) -> Vec<MemberChange> {
    let value = |a: &EnumConstant, b: &EnumConstant| {
        (a.value != b.value)
            .then(|| MemberChange::Value { name: a.name.clone(), old: a.value.to_string(), new: b.value.to_string() })
            .into_iter()
            .collect()
    };
    members(&old.constants, &new.constants, |k| &k.name, value, |k| k.value.to_string())
}

fn const_text(v: &ConstValue, with_type: bool) -> String {
    match v {
        ConstValue::Int { value, ty } if with_type => format!("{value} ({})", ty.c_spelling()),
        ConstValue::Int { value, .. } => value.to_string(),
        ConstValue::Float(f) => format!("{f:?}"),
        ConstValue::Str(s) => format!("{s:?}"),
    }
}

/// Constants by value; the C type is shown only where it is all that changed.
fn constants(old: &Model, new: &Model) -> Section {
    let mut s = section(&old.constants, &new.constants, |c| const_text(&c.value, false), |_, _| Vec::new());
    for (name, o) in &old.constants {
        let Some(n) = new.constants.get(name) else { continue };
        if o.value != n.value && const_text(&o.value, false) == const_text(&n.value, false) {
            s.changed.push(Change {
                name: name.clone(),
                old: const_text(&o.value, true),
                new: const_text(&n.value, true),
                members: Vec::new(),
            });
        }
    }
    s.changed.sort_by(|a, b| a.name.cmp(&b.name));
    s
}

/// Typedefs and handles, as one table of C definitions; a typedef that is a record's or enum's
/// C name is that record or enum (its section shows it).
fn type_table(m: &Model) -> BTreeMap<String, String> {
    let naming = naming_typedefs(m);
    let mut out: BTreeMap<String, String> = m
        .typedefs
        .values()
        .filter(|t| !naming.contains(&t.name))
        .map(|t| (t.name.clone(), t.ty.c_spelling()))
        .collect();
    for h in m.handles.values() {
        out.insert(h.name.clone(), format!("opaque handle (struct {} *)", h.tag));
    }
    out
}

fn documented(doc: &Option<String>) -> Deprecated {
    let tagged = doc.as_deref().is_some_and(|d| d.contains("@deprecated") || d.contains("\\deprecated"));
    if tagged {
        Deprecated::Documented
    } else {
        Deprecated::No
    }
}

/// Every item of `m` with its deprecation state, keyed by (kind, name).
fn deprecation_table(m: &Model) -> BTreeMap<(&'static str, String), Deprecated> {
    let mut t = BTreeMap::new();
    for f in m.functions.values() {
        let state = if f.deprecated { Deprecated::Attribute } else { documented(&f.doc) };
        t.insert(("function", f.name.clone()), state);
    }
    for r in m.records.values() {
        t.insert(("record", c_name(m, &r.name, r.tag.is_some(), &r.parent)), documented(&r.doc));
    }
    for e in m.enums.values() {
        t.insert(("enum", c_name(m, &e.name, e.tag.is_some(), &None)), documented(&e.doc));
        for k in &e.constants {
            t.insert(("enum constant", k.name.clone()), documented(&k.doc));
        }
    }
    for c in m.constants.values() {
        t.insert(("constant", c.name.clone()), documented(&c.doc));
    }
    // A typedef of a record or enum shares its comment, which the record or enum reports.
    let aliases_item = |ty: &Ty| matches!(ty, Ty::Named(n) if m.records.contains_key(n) || m.enums.contains_key(n));
    for td in m.typedefs.values().filter(|td| !aliases_item(&td.ty)) {
        t.insert(("type", td.name.clone()), documented(&td.doc));
    }
    t
}

fn deprecations(old: &Model, new: &Model) -> Vec<Deprecation> {
    let new_table = deprecation_table(new);
    deprecation_table(old)
        .into_iter()
        .filter_map(|((kind, name), was)| {
            let now = *new_table.get(&(kind, name.clone()))?;
            (now != was).then_some(Deprecation { kind, name, old: was, new: now })
        })
        .collect()
}

/// Parses both headers, applies the rules file (default: `gen-config/nvml.yaml`) to each,
/// adapted to it (see [`crate::rules::adapt`]: a rule whose subject a header lacks does not
/// apply to it), without failing on their errors, and compares them. Each header is a
/// vendored version, a path, or a version in the header cache; pip fetches a version that is
/// in neither into the cache first.
pub fn between(root: &Path, old: &str, new: &str, rules_file: Option<&Path>, pip: &Pip) -> Result<HeaderDiff> {
    between_keeping(root, old, new, rules_file, pip, Keep::FromOld)
}

/// What the new side of a comparison keeps of what NVIDIA removed (see `model::keep`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// What the old header declares, then what the rules' `released` headers older than it
    /// declare: the new header as the release after the old one.
    FromOld,
    /// What the rules' `released` headers declare, as `cargo xtask regen` does.
    AsRegen,
}

/// [`between`], keeping on the new side what `keep` says.
pub fn between_keeping(
    root: &Path,
    old: &str,
    new: &str,
    rules_file: Option<&Path>,
    pip: &Pip,
    keep: Keep,
) -> Result<HeaderDiff> {
    let inputs = |spec: Option<String>| Inputs {
        header: spec,
        rules: rules_file.map(Path::to_path_buf),
        verbose: false,
        keep_from: None,
    };
    // Parameters an older header leaves undocumented are read as the default header documents
    // them, under the default rules.
    let default = match rules_file {
        None => pipeline::planned_lenient(root, &inputs(None)).ok().map(|(p, _)| p),
        Some(_) => None,
    };
    let old_inputs = inputs(Some(available(root, old, pip)?));
    // Both headers as they are, for their own sections (the plans' models hold what they keep).
    let (old_model, old_diags) = pipeline::parse(root, old_inputs.header.as_deref())?;
    old_diags.finish(false)?;
    // The safe crate the rules give the old header (with what its release kept): its own rule
    // problems are not reported.
    let old_planned = pipeline::adapted(root, &old_inputs, default.as_ref()).ok().map(|(p, _, _)| p);
    let old_api = old_planned.as_ref().and_then(|p| SafeApi::of(p).ok());
    let kept_before = old_planned.map(|p| p.bindings.model.kept).unwrap_or_default();
    let keep_from = match keep {
        Keep::FromOld => old_inputs.header.clone(),
        Keep::AsRegen => None,
    };
    let new_inputs = Inputs { keep_from, ..inputs(Some(available(root, new, pip)?)) };
    // A header older than the default one is one the rules cover: they are adapted to it. The
    // default header, a newer one, or a file outside the published versions is what a regen
    // takes as the default: every rule must hold for it, and each that does not is an error.
    // A header is known by its content: a file with a published header's hash is that version.
    let (header, _) = pipeline::parse(root, new_inputs.header.as_deref())?;
    let covered =
        match (crate::model::version_key(&header.header.version), crate::fetch::headers::default_version(root)) {
            (Some(v), Ok(d)) => crate::model::version_key(&d).is_some_and(|d| v < d),
            _ => false,
        };
    let mut diff = if covered {
        let (planned, diags, adapted) = pipeline::adapted(root, &new_inputs, default.as_ref())?;
        let expected = |d: &Diag| adapted.left_raw.iter().any(|k| d.message.contains(&format!("`{k}` is a union no")));
        let diags: Vec<Diag> = diags.into_iter().filter(|d| !expected(d)).collect();
        let mut diff = compare_headers(&old_model, &header, old_api.as_ref(), &planned, &diags);
        diff.rules_left_out = adapted.left_out.iter().map(|l| format!("{}: {}", l.rule, l.why)).collect();
        diff
    } else {
        let (planned, diags) = pipeline::planned_lenient(root, &new_inputs)?;
        compare_headers(&old_model, &header, old_api.as_ref(), &planned, &diags)
    };
    // What the old header's release kept already is no news.
    diff.safe.kept.retain(|k| !kept_before.contains(k));
    Ok(diff)
}

fn header_name(h: &HeaderInfo) -> String {
    match crate::model::version_key(&h.version) {
        Some(_) => format!("nvml.h {}", h.version),
        None => h.version.clone(),
    }
}

/// Appends a Markdown subsection `### title` with one bullet per line, if there are any.
pub fn list(out: &mut String, title: &str, lines: Vec<String>) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n### {title} ({})\n", lines.len());
    for l in lines {
        let _ = writeln!(out, "- {l}");
    }
}

/// One member's change as a line: `noun` names the member (`parameter`, `field`, `constant`).
pub fn member_line(noun: &str, c: &MemberChange) -> String {
    match c {
        MemberChange::Added { name, detail } => format!("{noun} `{name}` added: {detail}"),
        MemberChange::Removed { name, detail } => format!("{noun} `{name}` removed (was {detail})"),
        MemberChange::Renamed { old, new } => format!("{noun} `{old}` renamed to `{new}`"),
        MemberChange::Retyped { name, old, new } if name == "return" => format!("return type `{old}` → `{new}`"),
        MemberChange::Retyped { name, old, new } => format!("{noun} `{name}`: `{old}` → `{new}`"),
        MemberChange::Moved { name, old, new } => format!("{noun} `{name}` moved: offset {old} → {new}"),
        MemberChange::Value { name, old, new } => format!("{noun} `{name}`: {old} → {new}"),
        MemberChange::Tag { old, new } => {
            let tag = |t: &Option<String>| t.as_ref().map_or("none (anonymous)".to_string(), |t| format!("`{t}`"));
            format!("tag {} → {}", tag(old), tag(new))
        }
    }
}

/// How one kind of item renders: its heading, the noun for its members, and whether the
/// descriptions are code.
struct Style {
    title: &'static str,
    member: &'static str,
    code: bool,
}

fn render_section(out: &mut String, style: &Style, s: &Section) {
    if s.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n## {}", style.title);
    let text = |d: &str| if style.code { format!("`{d}`") } else { d.to_string() };
    list(out, "Added", s.added.iter().map(|i| format!("`{}`: {}", i.name, text(&i.detail))).collect());
    list(out, "Removed", s.removed.iter().map(|i| format!("`{}`: {}", i.name, text(&i.detail))).collect());
    let changed = s
        .changed
        .iter()
        .map(|c| {
            let mut line = if c.old == c.new {
                format!("`{}`", c.name)
            } else {
                format!("`{}`: {} → {}", c.name, text(&c.old), text(&c.new))
            };
            for m in &c.members {
                let _ = write!(line, "\n  - {}", member_line(style.member, m));
            }
            line
        })
        .collect();
    list(out, "Changed", changed);
}

impl HeaderDiff {
    /// The report as Markdown, for a pull-request description.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("# {} → {}\n\n", header_name(&self.old), header_name(&self.new));
        let _ = writeln!(out, "- old: {} (sha256 `{}`)", header_name(&self.old), self.old.sha256);
        let _ = writeln!(out, "- new: {} (sha256 `{}`)", header_name(&self.new), self.new.sha256);
        if self.api_changes == 0 {
            out.push_str(if self.identical {
                "\nNo API changes: the headers are identical.\n"
            } else {
                "\nNo API changes: the headers differ only in comments, layout or other text the model ignores.\n"
            });
        } else {
            self.summary(&mut out);
            self.details(&mut out);
        }
        self.safe_section(&mut out);
        if !self.rules.is_empty() {
            out.push_str("\n## Rules against the new header\n\n");
            for r in &self.rules {
                let _ = writeln!(out, "- {r}");
            }
        }
        if !self.rules_left_out.is_empty() {
            let _ = writeln!(
                out,
                "\n## Rules that do not apply to the new header ({})\n\nThe header lacks their subject, so they say nothing about it.\n",
                self.rules_left_out.len()
            );
            for r in &self.rules_left_out {
                let _ = writeln!(out, "- {r}");
            }
        }
        out
    }

    /// The safe crate's changes, under the current rules, and the semver verdict.
    fn safe_section(&self, out: &mut String) {
        let safe = &self.safe;
        let n = safe.methods.len() + safe.types.len();
        if safe.semver.is_empty() || (n == 0 && self.api_changes == 0) {
            return;
        }
        let _ = writeln!(
            out,
            "\n## The safe crate\n\n{n} change(s) to nvmlkit's API under the current rules: a {} release.",
            safe.semver
        );
        if !safe.breaking.is_empty() {
            let _ = writeln!(out, "\n### Why a major release ({})\n", safe.breaking.len());
            for b in &safe.breaking {
                let cause = match b.cause {
                    Cause::NvidiaRemoved => "NVIDIA removed",
                    Cause::NvidiaChanged => "NVIDIA changed",
                    Cause::NvidiaTyped => "NVIDIA typed",
                    Cause::Generator => "generator",
                };
                let _ = writeln!(out, "- `{}` {} ({cause}): {}", b.item, b.change, b.why);
            }
        }
        if !safe.kept.is_empty() {
            let _ = writeln!(
                out,
                "\n### Kept from the old header ({})\n\nNVIDIA removed these from nvml.h; the crates keep them, deprecated, as the old header declared them (a driver without a function answers `FunctionNotFound`).\n",
                safe.kept.len()
            );
            for k in &safe.kept {
                let _ = writeln!(out, "- `{k}`");
            }
        }
        let style = |title| Style { title, member: "", code: true };
        render_section(out, &style("Safe crate: methods"), &safe.methods);
        render_section(out, &style("Safe crate: types"), &safe.types);
        if !safe.raw.is_empty() {
            let _ = writeln!(
                out,
                "\n## Raw conversions (`nvml::raw`, outside the stable API)\n\n{} impl(s) added, {} removed: no part of the verdict.",
                safe.raw.added.len(),
                safe.raw.removed.len()
            );
            list(out, "Added", safe.raw.added.iter().map(|i| format!("`{}`", i.name)).collect());
            list(out, "Removed", safe.raw.removed.iter().map(|i| format!("`{}`", i.name)).collect());
        }
    }

    fn sections(&self) -> [(Style, &Section); 6] {
        let style = |title, member, code| Style { title, member, code };
        [
            (style("Functions", "parameter", true), &self.functions),
            (style("Versioned defines", "", true), &self.versioned_defines),
            (style("Structs and unions", "field", false), &self.records),
            (style("Enums", "constant", true), &self.enums),
            (style("Constants", "", true), &self.constants),
            (style("Typedefs and handles", "", true), &self.types),
        ]
    }

    fn summary(&self, out: &mut String) {
        let _ = writeln!(out, "\n{} API change(s).\n", self.api_changes);
        out.push_str("| | added | removed | changed |\n|---|--:|--:|--:|\n");
        for (style, s) in self.sections() {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                style.title.to_lowercase(),
                s.added.len(),
                s.removed.len(),
                s.changed.len()
            );
        }
        let auto = self.wrapping.iter().filter(|w| matches!(w.wrapping, Wrapping::Automatic(_))).count();
        let _ = writeln!(
            out,
            "\nNew versions of existing functions: {}. Deprecation changes: {}. New functions wrapped automatically: {auto} of {}.",
            self.new_versions.len(),
            self.deprecations.len(),
            self.wrapping.len()
        );
    }

    fn details(&self, out: &mut String) {
        for (style, s) in self.sections() {
            render_section(out, &style, s);
        }
        if !self.new_versions.is_empty() {
            out.push_str("\n## New versions of existing functions\n\n");
            for v in &self.new_versions {
                let _ = writeln!(out, "- `{}` (newest before: `{}`)", v.name, v.previous);
            }
        }
        if !self.deprecations.is_empty() {
            out.push_str("\n## Deprecations\n\n");
            for d in &self.deprecations {
                let _ =
                    writeln!(out, "- {} `{}`: {} → {}", d.kind, d.name, deprecated_text(d.old), deprecated_text(d.new));
            }
        }
        if !self.wrapping.is_empty() {
            out.push_str("\n## Wrapping the new functions (safe crate, current rules)\n");
            let pick = |want: fn(&Wrapping) -> Option<&String>| -> Vec<String> {
                self.wrapping.iter().filter_map(|w| Some(format!("`{}`: {}", w.name, want(&w.wrapping)?))).collect()
            };
            list(out, "Wrapped automatically", pick(|w| if let Wrapping::Automatic(s) = w { Some(s) } else { None }));
            list(
                out,
                "Need a rule or hand-written code",
                pick(|w| if let Wrapping::NeedsRule(s) = w { Some(s) } else { None }),
            );
            list(
                out,
                "Wrapped by hand (`manual` rule)",
                pick(|w| if let Wrapping::Manual(s) = w { Some(s) } else { None }),
            );
            list(out, "Skipped (`skip` rule)", pick(|w| if let Wrapping::Skipped(s) = w { Some(s) } else { None }));
        }
    }
}

fn deprecated_text(d: Deprecated) -> &'static str {
    match d {
        Deprecated::No => "not deprecated",
        Deprecated::Documented => "documented as deprecated",
        Deprecated::Attribute => "`DEPRECATED` attribute",
    }
}
