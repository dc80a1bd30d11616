//! Reading one function: the role of every parameter, each with the basis it rests on.
//!
//! A role comes from the C type where the type decides (a value, a `const` pointer, the
//! handle a method is called on), from a rule, or from the header's documentation (see
//! [`crate::model::FunctionDoc`]). Names only propose: `sessionCount` next to `averageFps`
//! looks like a count and its array, but the documentation ("Reference to an unsigned int for
//! trailing average FPS") says otherwise. A reading the documentation does not confirm, or
//! contradicts, is recorded as a doubt; the plan stops regen on a doubt in any function a
//! generated method calls, naming it, until a rule states the shape.

use std::collections::BTreeSet;

use serde::Serialize;

use super::inout::{field_cue, Cue};
use super::{owner_of, Call, ListRecord, Owner, ParamPlan, Probe, Role, Val};
use crate::model::constant_value;
use crate::model::{Field, Function, Model, Param, RecordKind, Ty};
use crate::rules::{ArrayBuffer, Bindings, Direction, Origin, StringBuffer, ValueTag};

/// Elements a list whose NULL size probe the library refuses starts with; it grows to what the
/// library asks for.
pub const FIRST_CAPACITY: u64 = 32;

/// What a parameter's role rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Basis {
    /// The C type alone decides.
    Type,
    /// The documentation: the cue found in it.
    Doc(String),
    /// A rule of the rules file, `section.key`.
    Rule(String),
}

impl std::fmt::Display for Basis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Basis::Type => write!(f, "type"),
            Basis::Doc(cue) => write!(f, "doc: {cue}"),
            Basis::Rule(r) => write!(f, "rule {r}"),
        }
    }
}

/// A count and the arrays it sizes, as read.
#[derive(Debug, Clone)]
pub(super) struct Counted {
    count: String,
    /// The count is a pointer (in/out or out-only); otherwise a length by value.
    by_ptr: bool,
    arrays: Vec<String>,
    capacity: Option<u64>,
    out_only: bool,
    probe_refused: bool,
    bytes: bool,
    unused: Option<String>,
    basis: Basis,
}

pub(super) struct Reader<'a> {
    pub b: &'a Bindings,
    pub records: &'a BTreeSet<String>,
}

impl Reader<'_> {
    /// The roles of `f`'s parameters, or why it fits no shape the generator has.
    pub fn read(&self, f: &Function) -> Result<Call, String> {
        let b = self.b;
        if f.ret != Ty::Named("nvmlReturn_t".into()) {
            return Err(format!("returns `{}`, not `nvmlReturn_t`", f.ret.c_spelling()));
        }
        if let Some(why) = self.variable_size_record(f) {
            return Err(why);
        }
        let mut doubts = Vec::new();
        let string = self.string_buffer(f);
        let counted = self.counted(f, string.as_ref().map(|(s, _)| s), &mut doubts);
        let owner = owner_of(b, f);
        let mut params = Vec::new();
        for (i, p) in f.params.iter().enumerate() {
            let place = format!("parameter `{}` (`{}`)", p.name, p.ty.c_spelling());
            let (role, basis) = if i == 0 && owner != Owner::Nvml {
                match self.destroys(f) {
                    Some(cue) => (Role::SelfConsumed, cue),
                    None => (Role::SelfHandle, Basis::Type),
                }
            } else if let Some((s, basis)) = string.as_ref().filter(|(s, _)| s.buffer == p.name) {
                match s.size {
                    Some((_, size)) => (Role::StrBuf { size }, basis.clone()),
                    None => {
                        return Err(format!(
                            "string buffer `{}` has no known size (a `strings` rule can give one)",
                            s.buffer
                        ))
                    }
                }
            } else if let Some((_, basis)) =
                string.as_ref().filter(|(s, _)| s.length.as_deref() == Some(p.name.as_str()))
            {
                (Role::StrLen { by_ptr: matches!(p.ty, Ty::Pointer { .. }) }, basis.clone())
            } else if let Some(c) = counted.as_ref().filter(|c| c.count == p.name) {
                let role = match (c.by_ptr, c.out_only) {
                    (true, true) => Role::CappedCount,
                    (true, false) => Role::Count {
                        probe: if c.probe_refused {
                            Probe::Capacity(c.capacity.unwrap_or(FIRST_CAPACITY))
                        } else if f.doc.as_deref().is_some_and(|d| {
                            d.split_whitespace()
                                .collect::<Vec<_>>()
                                .join(" ")
                                .contains("The return code will be NVML_ERROR_INSUFFICIENT_SIZE with an updated count")
                        }) {
                            Probe::NullSizeError
                        } else {
                            Probe::Null
                        },
                    },
                    (false, _) => Role::SizedLen { bytes: c.bytes, capacity: c.capacity },
                };
                (role, c.basis.clone())
            } else if let Some(c) = counted.as_ref().filter(|c| c.arrays.contains(&p.name)) {
                let val = self.pointee_val(f, p).map_err(|e| format!("{place}: {e}"))?;
                let role = match (c.by_ptr, c.out_only, c.capacity) {
                    (true, true, Some(capacity)) => Role::Capped { val, capacity },
                    (true, _, _) => Role::Array { val, unused: c.unused.clone() },
                    (false, _, _) => {
                        let input = matches!(val, Val::Record(_)) && c.capacity.is_none();
                        Role::SizedArray { val, input, unused: c.unused.clone() }
                    }
                };
                (role, c.basis.clone())
            } else if let Some(list) = self.record_list(p) {
                list.map_err(|e| format!("{place}: {e}"))?
            } else {
                let (role, basis) = self.role(f, p, &mut doubts).map_err(|e| format!("{place}: {e}"))?;
                if let Some(cue) = array_cue(&doc_text(f, &p.name)) {
                    if matches!(role, Role::Out(_) | Role::InOut(_) | Role::InPtr(_))
                        && !matches!(basis, Basis::Rule(_))
                    {
                        doubts.push(format!(
                            "`{}` is read as one value, but its documentation calls it an array (\"{cue}\")",
                            p.name
                        ));
                    }
                }
                (role, basis)
            };
            params.push(ParamPlan {
                name: p.name.clone(),
                ty: p.ty.clone(),
                role,
                basis,
                types_another: false,
                none: None,
            });
        }
        Ok(Call { symbol: f.name.clone(), params, doubts })
    }

    /// A `strings` rule, or `char *buf, unsigned int length` (or `unsigned int *length`) sized
    /// by the one `..._SIZE`/`..._LEN` constant the documentation names, if it names exactly
    /// one.
    fn string_buffer(&self, f: &Function) -> Option<(StringBuffer, Basis)> {
        if let Some(s) = self.b.strings.get(&f.name) {
            return Some((s.clone(), Basis::Rule(format!("strings.{}", f.name))));
        }
        self.derived_string(f)
    }

    /// The string buffer of `f` as the header gives it, rules aside.
    pub fn derived_string(&self, f: &Function) -> Option<(StringBuffer, Basis)> {
        let m = &self.b.model;
        let i = f
            .params
            .iter()
            .position(|p| matches!(&p.ty, Ty::Pointer { pointee, is_const: false } if **pointee == Ty::Char))?;
        let len = f.params.get(i + 1)?;
        let len_ok =
            len.ty == Ty::UInt || matches!(&len.ty, Ty::Pointer { pointee, is_const: false } if **pointee == Ty::UInt);
        if !len_ok {
            return None;
        }
        let mentioned: BTreeSet<&str> = f
            .doc
            .as_deref()
            .unwrap_or("")
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.starts_with("NVML_") && (w.ends_with("_SIZE") || w.ends_with("_LEN")))
            .filter(|w| constant_value(m, w).is_some())
            .collect();
        let (size, basis) = match mentioned.into_iter().collect::<Vec<_>>().as_slice() {
            [one] => {
                (Some((Some(one.to_string()), constant_value(m, one)?)), Basis::Doc(format!("names the size {one}")))
            }
            _ => (None, Basis::Doc("a char buffer and its length".into())),
        };
        let s = StringBuffer {
            buffer: f.params[i].name.clone(),
            length: Some(len.name.clone()),
            size,
            origin: Origin::Derived,
        };
        Some((s, basis))
    }

    /// The count and arrays of `f`: an `arrays` rule, or a count the documentation confirms.
    fn counted(&self, f: &Function, string: Option<&StringBuffer>, doubts: &mut Vec<String>) -> Option<Counted> {
        if let Some(r) = self.b.arrays.get(&f.name) {
            return Some(self.counted_by_rule(f, r));
        }
        if self.b.not_arrays.contains_key(&f.name) {
            return None;
        }
        self.derived_counted(f, string, doubts)
    }

    /// Whether the header alone gives `f` the shape of an `arrays` rule (with no doubt): the
    /// rule then changes nothing.
    pub fn derives_arrays_rule(&self, f: &Function) -> bool {
        let Some(r) = self.b.arrays.get(&f.name) else { return false };
        let mut doubts = Vec::new();
        let string = self.derived_string(f).map(|(s, _)| s);
        let Some(derived) = self.derived_counted(f, string.as_ref(), &mut doubts) else { return false };
        let ruled = self.counted_by_rule(f, r);
        doubts.is_empty()
            && derived.count == ruled.count
            && derived.arrays == ruled.arrays
            && derived.probe_refused == ruled.probe_refused
            && derived.bytes == ruled.bytes
            && ruled.capacity.is_none()
            && ruled.unused.is_none()
            && !ruled.out_only
    }

    /// The count and arrays of `f` as the header gives them, rules aside.
    pub(super) fn derived_counted(
        &self,
        f: &Function,
        string: Option<&StringBuffer>,
        doubts: &mut Vec<String>,
    ) -> Option<Counted> {
        let docs = &f.docs;
        let in_string = |name: &str| string.is_some_and(|s| s.buffer == name || s.length.as_deref() == Some(name));
        let ps = &f.params;
        let is_array_ptr = |p: &Param| {
            !in_string(&p.name)
                && matches!(&p.ty, Ty::Pointer { pointee, is_const: false } if !matches!(**pointee, Ty::Char | Ty::Void))
        };
        // A pointer count: named like one, or documented as an array's size.
        let count_at = ps.iter().position(|p| {
            matches!(&p.ty, Ty::Pointer { pointee, is_const: false } if **pointee == Ty::UInt)
                && (p.name.contains("count") || p.name.contains("Count") || count_cue(&doc_text(f, &p.name)).is_some())
        });
        if let Some(i) = count_at {
            let neighbour = [i + 1, i.wrapping_sub(1)].into_iter().find(|&j| ps.get(j).is_some_and(is_array_ptr));
            if let Some(j) = neighbour {
                let (count, array) = (&ps[i].name, &ps[j].name);
                let (count_doc, array_doc) = (doc_text(f, count), doc_text(f, array));
                // The count: called an array's size, or a number of elements of the array it names.
                let count_says = count_cue(&count_doc).map(String::from).or_else(|| {
                    (count_doc.to_ascii_lowercase().contains("number of") && names(&count_doc, array))
                        .then(|| format!("the number of `{array}` entries"))
                });
                // The array: called one, or the only pointer a count documented as an array's
                // size can size, or documented as NULL to discover the count.
                let pointers = ps.iter().enumerate().filter(|(k, p)| *k != i && is_array_ptr(p)).count();
                let array_says = array_cue(&array_doc)
                    .map(String::from)
                    .or_else(|| names_as_array(&count_doc, array))
                    .or_else(|| {
                        (count_cue(&count_doc).is_some() && pointers == 1)
                            .then(|| format!("`{array}` is the only array a count can size"))
                    });
                let probe_says = array_doc
                    .to_ascii_lowercase()
                    .contains("can be null to discover")
                    .then(|| "NULL discovers the count".to_string());
                if let Some(cue) = scalar_cue(&array_doc).or_else(|| scalar_cue(&count_doc)) {
                    doubts.push(format!(
                        "`{count}` and `{array}` look like a count and its array by their names, but the documentation reads them as single values (\"{cue}\"); state the shape with an `arrays` or `not_arrays` rule"
                    ));
                    return None;
                }
                let basis = match (count_says, array_says, probe_says) {
                    (Some(c), Some(a), _) => Basis::Doc(format!("{c}; {a}")),
                    (_, _, Some(p)) => Basis::Doc(p),
                    _ => {
                        doubts.push(format!(
                            "`{count}` and `{array}` look like a count and its array by their names, but the documentation does not call them an array's size and an array; state the shape with an `arrays` or `not_arrays` rule"
                        ));
                        Basis::Doc("names only".into())
                    }
                };
                // Further pointers the documentation calls arrays share the count.
                let mut arrays = vec![array.clone()];
                for (k, p) in ps.iter().enumerate() {
                    if k != i
                        && k != j
                        && is_array_ptr(p)
                        && (array_cue(&doc_text(f, &p.name)).is_some() || names_as_array(&count_doc, &p.name).is_some())
                    {
                        arrays.push(p.name.clone());
                    }
                }
                let probe_refused = arrays.iter().any(|a| docs.refuses_null(a));
                let bytes = docs.param(count).and_then(|d| d.unit.as_deref()) == Some("bytes");
                return Some(Counted {
                    count: count.clone(),
                    by_ptr: true,
                    arrays,
                    capacity: None,
                    out_only: false,
                    probe_refused,
                    bytes,
                    unused: None,
                    basis,
                });
            }
        }
        // A length by value next to the array it sizes.
        for (i, p) in ps.iter().enumerate() {
            if in_string(&p.name) || !matches!(self.b.model.resolve_typedef(&p.ty), Ty::Int | Ty::UInt) {
                continue;
            }
            let n = p.name.to_ascii_lowercase();
            if !(n.ends_with("count") || n.ends_with("size") || n.ends_with("length")) {
                continue;
            }
            let Some(j) = [i + 1, i.wrapping_sub(1)]
                .into_iter()
                .find(|&j| ps.get(j).is_some_and(|a| is_array_ptr(a) && !self.is_handle_ptr(a)))
            else {
                continue;
            };
            let (len_doc, array_doc) = (doc_text(f, &p.name), doc_text(f, &ps[j].name));
            let array_says = array_cue(&array_doc).map(String::from).or_else(|| names_as_array(&len_doc, &ps[j].name));
            let basis = match array_says {
                Some(a) => Basis::Doc(a),
                None => {
                    doubts.push(format!(
                        "`{}` looks like the length of `{}` by its name, but the documentation does not call `{}` an array; state the shape with an `arrays` or `not_arrays` rule",
                        p.name, ps[j].name, ps[j].name
                    ));
                    Basis::Doc("names only".into())
                }
            };
            let bytes = docs.param(&p.name).and_then(|d| d.unit.as_deref()) == Some("bytes");
            return Some(Counted {
                count: p.name.clone(),
                by_ptr: false,
                arrays: vec![ps[j].name.clone()],
                capacity: None,
                out_only: false,
                probe_refused: false,
                bytes,
                unused: None,
                basis,
            });
        }
        None
    }

    /// `record *buf, unsigned int *bufferSize` where the documentation calls the size that of
    /// the buffer, not of an array: one record of variable size, sized in bytes (the vGPU
    /// migration metadata), which no generated shape fits.
    fn variable_size_record(&self, f: &Function) -> Option<String> {
        if self.b.arrays.contains_key(&f.name) {
            return None;
        }
        let ps = &f.params;
        ps.iter().enumerate().find_map(|(i, count)| {
            if !matches!(&count.ty, Ty::Pointer { pointee, is_const: false } if **pointee == Ty::UInt) {
                return None;
            }
            let count_doc = doc_text(f, &count.name).to_ascii_lowercase();
            if !count_doc.contains("buffer") || count_doc.contains("array") {
                return None;
            }
            let buf = [i + 1, i.wrapping_sub(1)].into_iter().filter_map(|j| ps.get(j)).find(|b| {
                matches!(self.b.model.resolve_typedef(&b.ty), Ty::Pointer { pointee, is_const: false }
                    if matches!(self.b.model.resolve_typedef(pointee), Ty::Named(n) if self.b.model.records.contains_key(n)))
            })?;
            doc_text(f, &buf.name).to_ascii_lowercase().contains("buffer").then(|| {
                format!("`{}` is a buffer of `{}` bytes holding one record of variable size, which needs hand-written code", buf.name, count.name)
            })
        })
    }

    fn counted_by_rule(&self, f: &Function, r: &ArrayBuffer) -> Counted {
        let docs = &f.docs;
        let by_ptr = f.params.iter().find(|p| p.name == r.count).is_some_and(|p| matches!(p.ty, Ty::Pointer { .. }));
        let probe_refused = match r.null_probe {
            Some(allowed) => !allowed,
            None => r.arrays.iter().any(|a| docs.refuses_null(a)),
        };
        let bytes = r.bytes || docs.param(&r.count).and_then(|d| d.unit.as_deref()) == Some("bytes");
        Counted {
            count: r.count.clone(),
            by_ptr,
            arrays: r.arrays.clone(),
            capacity: r.capacity,
            out_only: r.out_only,
            probe_refused,
            bytes,
            unused: r.unused.as_ref().map(|(c, _)| c.clone()),
            basis: Basis::Rule(format!("arrays.{}", f.name)),
        }
    }

    /// A pointer to a record that holds a list: one pointer field the record's comments call
    /// an array (or a list, or a buffer) of typed elements (or of bytes, a `void *` its count
    /// gives in bytes), and one in/out count field beside it; every other field but `version`
    /// an input (its comment says `IN`, or an `inputs` rule names it) or an output (its comment
    /// says `OUT`, or a `tagged_values` rule reads the elements by it). A record without a
    /// `version` field holds a list only when its count's comment says `IN/OUT`. `None` when
    /// the record has no such list; `Err` when it has one the role cannot take (an in/out field
    /// beside the list, a field of no known direction).
    fn record_list(&self, p: &Param) -> Option<Result<(Role, Basis), String>> {
        let m = &self.b.model;
        let Ty::Pointer { pointee, is_const: false } = m.resolve_typedef(&p.ty) else { return None };
        let Ty::Named(name) = m.resolve_typedef(pointee) else { return None };
        let r = m.records.get(name).filter(|r| r.kind == RecordKind::Struct)?;
        let pointers: Vec<&Field> =
            r.fields.iter().filter(|fl| matches!(m.resolve_typedef(&fl.ty), Ty::Pointer { .. })).collect();
        let [array] = pointers.as_slice() else { return None };
        let Ty::Pointer { pointee: elem_ty, is_const: false } = m.resolve_typedef(&array.ty) else { return None };
        // A `void *` has no element type: its size can only count bytes.
        let bytes = matches!(m.resolve_typedef(elem_ty), Ty::Void);
        if matches!(m.resolve_typedef(elem_ty), Ty::Char) {
            return None;
        }
        let array_doc = array.doc.as_deref().unwrap_or("").to_ascii_lowercase();
        let array_word = ["array", "list", "buffer"].into_iter().find(|w| array_doc.contains(w));
        // A versioned record: the library reads its layout from the `version` field.
        let versioned = r.fields.iter().any(|fl| fl.name == "version");
        // The count: named like one (or like a size, for bytes), and passed both ways (a count
        // the comment calls an input or an output alone is no capacity the library answers).
        let byte_elems = bytes || matches!(m.resolve_typedef(elem_ty), Ty::UChar);
        let countish = |fl: &&Field| {
            let n = fl.name.to_ascii_lowercase();
            let cue = fl.doc.as_deref().and_then(field_cue);
            fl.name != "version"
                && matches!(m.resolve_typedef(&fl.ty), Ty::UInt)
                && (n.contains("count") || n.starts_with("num") || byte_elems && n.ends_with("size"))
                && !matches!(cue, Some(Cue::In | Cue::Out))
                && (versioned || cue == Some(Cue::InOut))
        };
        let counts: Vec<&Field> = r.fields.iter().filter(countish).collect();
        let [count] = counts.as_slice() else { return None };
        // The array's comment calls it an array, or the count's counts it by name ("Count of
        // the placement IDs" for `placementIds`).
        let array_cue = match array_word {
            Some(w) => format!("which its comment calls {} {w}", if w == "array" { "an" } else { "a" }),
            None => {
                let words = crate::rules::names::snake(&array.name).replace('_', " ");
                let count_doc = count.doc.as_deref().unwrap_or("").to_ascii_lowercase();
                let counted = ["count of ", "count of the "].iter().any(|c| count_doc.contains(&format!("{c}{words}")));
                if !counted {
                    return None;
                }
                format!("by name (\"count of ... {words}\")")
            }
        };
        let elem = match &**elem_ty {
            _ if bytes => Val::Scalar(Ty::UChar),
            Ty::Named(h) if self.b.handle_type(h).is_some() => Val::Handle(h.clone()),
            _ => match self.val(m.resolve_typedef(elem_ty)) {
                Ok(v) => v,
                Err(e) => return Some(Err(format!("the list `{}` of `{name}`: {e}", array.name))),
            },
        };
        // The record of the elements reads them by a field of this record (`sampleValType`).
        let typed_by = match elem {
            Val::Record(ref e) => self.b.tagged_values.iter().find_map(|(k, tag)| match tag {
                ValueTag::Outer { record, field } if record == name && k.starts_with(&format!("{e}.")) => {
                    Some(field.clone())
                }
                _ => None,
            }),
            _ => None,
        };
        let ruled = self.b.inputs.get(name);
        let (mut inputs, mut outputs, mut in_out) = (Vec::new(), Vec::new(), Vec::new());
        for fl in r
            .fields
            .iter()
            .filter(|fl| ![array.name.as_str(), count.name.as_str(), "version"].contains(&fl.name.as_str()))
        {
            let cue = fl.doc.as_deref().and_then(field_cue);
            let by_rule = ruled.is_some_and(|fields| fields.contains(&fl.name));
            let tag = typed_by.as_deref() == Some(fl.name.as_str());
            let input = match (cue, by_rule || tag) {
                _ if tag => false,
                (Some(Cue::In), _) | (None, true) => true,
                (Some(Cue::Out), _) => false,
                (Some(_), _) => match self.b.field_types.get(&format!("{name}.{}", fl.name)) {
                    // An opaque in/out field (a cursor), by the hand-written type of its rule.
                    Some(ty) => {
                        in_out.push((fl.name.clone(), ty.clone()));
                        continue;
                    }
                    None => {
                        return Some(Err(format!(
                            "`{name}` holds a list, and `{}` is an in/out field beside it, which needs hand-written code (or a `field_types` rule)",
                            fl.name
                        )))
                    }
                },
                (None, false) => {
                    let why = "is not documented (an `inputs` rule can give it)";
                    return Some(Err(format!("`{name}` holds a list, and the direction of `{}` {why}", fl.name)));
                }
            };
            if tag {
                continue;
            }
            match (self.field_val(fl), input) {
                (Ok(v), true) => inputs.push((fl.name.clone(), v)),
                (Ok(v), false) => outputs.push((fl.name.clone(), v)),
                (Err(e), _) => return Some(Err(format!("field `{}` of `{name}`: {e}", fl.name))),
            }
        }
        let version = match self.b.struct_versions.get(name) {
            Some(v) => Some(v.clone()),
            None if versioned => return Some(Err(format!("`{name}` has a `version` field but no version constant"))),
            None => None,
        };
        // The older layouts of the family (by version constant) that hold the same list.
        let older: Vec<(String, String)> = super::layouts::older_of(self.b, name)
            .into_iter()
            .filter(|rec| {
                m.records
                    .get(*rec)
                    .is_some_and(|o| [&count.name, &array.name].iter().all(|f| o.fields.iter().any(|x| x.name == **f)))
            })
            .filter_map(|rec| Some((rec.to_string(), self.b.struct_versions.get(rec)?.clone())))
            .collect();
        let basis = Basis::Doc(format!(
            "`{}` counts `{}`, {array_cue}{}{}",
            count.name,
            array.name,
            if bytes { " of bytes" } else { "" },
            match ruled {
                Some(_) => format!("; inputs by rule inputs.{name}"),
                None => String::new(),
            }
        ));
        // "On return, set to required or used size; 0 means no (more) records."
        let none_when_empty = count.doc.as_deref().is_some_and(|d| d.contains("0 means no (more)"));
        let list = ListRecord {
            record: name.clone(),
            version,
            older,
            count: count.name.clone(),
            array: array.name.clone(),
            elem,
            bytes,
            inputs,
            outputs,
            typed_by,
            in_out,
            none_when_empty,
        };
        Some(Ok((Role::RecordList(list), basis)))
    }

    /// The value an input field of a list's record carries: a handle, the enum its comment
    /// names ("One of \ref nvmlProcessMode_t"), or its C scalar.
    fn field_val(&self, fl: &Field) -> Result<Val, String> {
        let m = &self.b.model;
        if let Ty::Named(h) = &fl.ty {
            if self.b.handle_type(h).is_some() {
                return Ok(Val::Handle(h.clone()));
            }
        }
        let doc = fl.doc.as_deref().unwrap_or("");
        let named = doc.split("One of \\ref ").nth(1).and_then(|rest| rest.split_whitespace().next());
        if let Some(e) = named.and_then(|n| match m.resolve_typedef(&Ty::Named(n.to_string())) {
            Ty::Named(e) if m.enums.contains_key(e) => Some(e.clone()),
            _ => None,
        }) {
            return Ok(Val::Enum(e));
        }
        match self.val(m.resolve_typedef(&fl.ty))? {
            v @ (Val::Scalar(_) | Val::Enum(_) | Val::Handle(_)) => Ok(v),
            _ => Err("not a value the method can take as an argument".into()),
        }
    }

    fn is_handle_ptr(&self, p: &Param) -> bool {
        matches!(&p.ty, Ty::Pointer { pointee, .. } if matches!(&**pointee, Ty::Named(n) if self.b.handle_type(n).is_some()))
    }

    /// For a function whose only parameter is its handle and that frees or destroys it (its
    /// name ends in `Free` or `Destroy`, and its documentation says so): the cue.
    fn destroys(&self, f: &Function) -> Option<Basis> {
        if f.params.len() != 1 {
            return None;
        }
        if let Some((h, _)) = self.b.owned.iter().find(|(_, free)| **free == f.name) {
            return Some(Basis::Rule(format!("owned.{h}")));
        }
        if !(f.name.ends_with("Free") || f.name.ends_with("Destroy")) {
            return None;
        }
        let doc = f.doc.as_deref().unwrap_or("").to_ascii_lowercase();
        ["destroy", "free", "release"]
            .iter()
            .find(|w| doc.contains(*w))
            .map(|w| Basis::Doc(format!("the summary says \"{w}\"")))
    }

    /// Any other parameter.
    fn role(&self, f: &Function, p: &Param, doubts: &mut Vec<String>) -> Result<(Role, Basis), String> {
        let m = &self.b.model;
        if let Some(v) = self.named_val(f, p, &p.ty) {
            return Ok((Role::In(v?), Basis::Type));
        }
        match m.resolve_typedef(&p.ty) {
            Ty::Pointer { pointee, is_const } => {
                if matches!(m.resolve_typedef(pointee), Ty::Char) {
                    return if *is_const {
                        Ok((Role::InStr, Basis::Type))
                    } else {
                        Err("a `char` buffer with no length".into())
                    };
                }
                let val = self.pointee_val(f, p)?;
                if *is_const {
                    return Ok((Role::InPtr(val), Basis::Type));
                }
                let record = matches!(val, Val::Record(_) | Val::Raw(_));
                let (dir, basis) = self.direction(f, &p.name, pointee_fields(m, &p.ty));
                if matches!(basis, Basis::Doc(ref cue) if cue.is_empty()) {
                    let read = match dir {
                        Direction::In => "an input, by the function's name alone",
                        _ => "an output, for want of any other reading",
                    };
                    doubts.push(format!("`{}` has no documentation that gives its direction (read as {read}); state it with a `directions` rule", p.name));
                }
                let role = match dir {
                    Direction::In => Role::InPtr(val),
                    Direction::InOut if record => Role::InOut(val),
                    Direction::InOut => return Err("an in/out scalar (give it `directions: in` or `out`)".into()),
                    Direction::Out => Role::Out(val),
                };
                Ok((role, basis))
            }
            t => Ok((Role::In(self.val(t)?), Basis::Type)),
        }
    }

    /// The direction of a non-const pointer and what it rests on: a `directions` rule; else the
    /// `@param[in|out|in,out]` annotation; else the wording (a record described as holding
    /// inputs and outputs, or with a field documented as an input, is in/out; a record the
    /// description or the function's summary calls something to set is an input); else an
    /// output, confirmed by a description that is not empty.
    fn direction(&self, f: &Function, param: &str, record: Option<&[Field]>) -> (Direction, Basis) {
        if let Some(d) = self.b.directions.get(&format!("{}.{param}", f.name)) {
            return (*d, Basis::Rule(format!("directions.{}.{param}", f.name)));
        }
        derived_direction(self.b, f, param, record)
    }

    /// A handle or bitflags parameter, recognised before typedefs are followed.
    fn named_val(&self, f: &Function, p: &Param, ty: &Ty) -> Option<Result<Val, String>> {
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
        if self.b.boolean_param(&f.name, &p.name) && !matches!(ty, Ty::Pointer { .. }) {
            return Some(Ok(Val::Bool(self.b.model.resolve_typedef(ty).clone())));
        }
        if let (Some(e), false) =
            (self.b.enum_params.get(&format!("{}.{}", f.name, p.name)), matches!(ty, Ty::Pointer { .. }))
        {
            return Some(Ok(Val::Enum(e.clone())));
        }
        match ty {
            Ty::Named(n) if self.b.handle_type(n).is_some() => Some(Ok(Val::Handle(n.clone()))),
            _ => None,
        }
    }

    fn pointee_val(&self, f: &Function, p: &Param) -> Result<Val, String> {
        let Ty::Pointer { pointee, .. } = self.b.model.resolve_typedef(&p.ty) else {
            return Err("not a pointer".into());
        };
        if let Some(flags) = self.b.flags_of_param(&f.name, &p.name) {
            return Ok(Val::Flags(flags, self.b.model.resolve_typedef(pointee).clone()));
        }
        if self.b.boolean_param(&f.name, &p.name) {
            return Ok(Val::Bool(self.b.model.resolve_typedef(pointee).clone()));
        }
        if let Some(e) = self.b.enum_params.get(&format!("{}.{}", f.name, p.name)) {
            return Ok(Val::Enum(e.clone()));
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
                Some(r) if r.kind == RecordKind::Union && !super::has_pointer(m, n) => Ok(Val::Raw(n.clone())),
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

/// The direction the header's text gives a non-const pointer (see `Reader::direction`), with
/// its basis; an output without any description comes with an empty cue.
pub fn derived_direction(b: &Bindings, f: &Function, param: &str, record: Option<&[Field]>) -> (Direction, Basis) {
    let doc = f.docs.param(param);
    match doc.and_then(|d| d.direction) {
        Some(crate::model::DocDirection::In) => return (Direction::In, Basis::Doc("@param[in]".into())),
        Some(crate::model::DocDirection::Out) => return (Direction::Out, Basis::Doc("@param[out]".into())),
        Some(crate::model::DocDirection::InOut) => return (Direction::InOut, Basis::Doc("@param[in,out]".into())),
        None => {}
    }
    let text = doc.map(|d| d.text.to_ascii_lowercase()).unwrap_or_default();
    // A getter's record the description says holds input (with or without output) is read and
    // written.
    if record.is_some() && !setter(b, f) && text.contains("input") {
        return (Direction::InOut, Basis::Doc("describes input it holds".into()));
    }
    // A single value described as the one to set is an input.
    if record.is_none() {
        if let Some(cue) = ["value to be set", "to be set", "value to set"].into_iter().find(|c| text.contains(c)) {
            return (Direction::In, Basis::Doc(format!("\"{cue}\"")));
        }
    }
    if let Some(fields) = record {
        if setter(b, f) {
            if let Some(cue) = input_cue(&text).or_else(|| input_cue(&summary(f))) {
                return (Direction::In, Basis::Doc(cue.into()));
            }
        }
        // A record whose every field is documented as an input alone is one (a setter's,
        // whose fields all say `IN:`), not one the library writes back.
        let own: Vec<&Field> = fields.iter().filter(|fl| fl.name != "version").collect();
        if !own.is_empty() && own.iter().all(|fl| only_input(fl.doc.as_deref().unwrap_or(""))) {
            return (Direction::In, Basis::Doc("every field is documented as an input".into()));
        }
        if let Some(field) =
            fields.iter().find(|fl| fl.name != "version" && documented_input(fl.doc.as_deref().unwrap_or("")))
        {
            return (Direction::InOut, Basis::Doc(format!("field `{}` is documented as an input", field.name)));
        }
        if setter(b, f) {
            // A setter's record with no wording either way: an input by the name alone.
            return (Direction::In, Basis::Doc(String::new()));
        }
    }
    if text.trim().is_empty() {
        return (Direction::Out, Basis::Doc(String::new()));
    }
    let words: Vec<&str> = doc.map(|d| d.text.split_whitespace().take(8).collect()).unwrap_or_default();
    (Direction::Out, Basis::Doc(format!("\"{}\"", words.join(" "))))
}

/// Whether the verb after the object is `Set`, `Create` or `Register` (`nvmlDeviceSetX`,
/// `nvmlSystemEventSetCreate`, not the `Set` of `EventSet`).
fn setter(b: &Bindings, f: &Function) -> bool {
    let mut stem = f.name.strip_prefix("nvml").unwrap_or(&f.name);
    // An empty name (a rules error, which header-diff goes past) would strip nothing, forever.
    let mut objects: Vec<&str> =
        b.handles.values().chain(b.ids.values()).map(String::as_str).filter(|o| !o.is_empty()).collect();
    objects.extend(["System", "VgpuType"]);
    objects.sort_by_key(|o| std::cmp::Reverse(o.len()));
    while let Some(rest) = objects.iter().find_map(|o| stem.strip_prefix(o)) {
        stem = rest;
    }
    ["Set", "Create", "Register"].iter().any(|w| stem.starts_with(w))
}

/// The function's description before its first command, lowercased.
fn summary(f: &Function) -> String {
    let doc = f.doc.as_deref().unwrap_or("");
    doc.lines().take_while(|l| !l.trim_start().starts_with('@')).collect::<Vec<_>>().join(" ").to_ascii_lowercase()
}

/// Wording that makes a record an input of a setter.
fn input_cue(text: &str) -> Option<&'static str> {
    [
        "to set",
        "to be set",
        "to apply",
        "to activate",
        "to update",
        "to clear",
        "requested",
        "desired",
        "new value",
        "sets ",
        "set the",
        "specif",
        "configure",
        "input",
    ]
    .into_iter()
    .find(|c| text.contains(c))
}

/// Whether a field's comment starts by calling it an input: `IN:`, `IN/OUT:`, `[in]`,
/// `[in,out]`, `input:`.
/// Whether a field's comment documents it as an input and not an output: `IN:`, `[in]`,
/// `input:`.
fn only_input(doc: &str) -> bool {
    let d = doc.trim_start().to_ascii_lowercase();
    ["in:", "[in]", "input:", "in -"].iter().any(|p| d.starts_with(p))
}

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

/// The description of a parameter (empty without one).
pub(super) fn doc_text(f: &Function, param: &str) -> String {
    f.docs.param(param).map(|d| d.text.clone()).unwrap_or_default()
}

/// The documentation calls the parameter itself an array, a buffer or a list: the phrase.
pub fn array_cue(text: &str) -> Option<&'static str> {
    let t = text.to_ascii_lowercase();
    const STARTS: &[&str] =
        &["array", "an array", "buffer", "a buffer", "the buffer", "caller-supplied buffer", "caller-supplied array"];
    if let Some(s) = STARTS.iter().find(|s| t.starts_with(*s) && t[s.len()..].starts_with([' ', ','])) {
        return Some(s);
    }
    const PHRASES: &[&str] = &[
        "pointer to array",
        "pointer to an array",
        "pointer to caller-supplied array",
        "pointer to caller-supplied buffer",
        "pointer to caller supplied array",
        "pointer to caller supplied buffer",
        "array reference",
        "array in which",
        "array holding",
        "array of",
        "list of",
        "buffer to write",
        "buffer in which",
    ];
    PHRASES.iter().find(|p| t.contains(*p)).copied()
}

/// The documentation of a count calls it an array's size (or a number of elements): the phrase.
pub fn count_cue(text: &str) -> Option<&'static str> {
    let t = text.to_ascii_lowercase();
    [
        "array size",
        "buffer size",
        "size of the array",
        "size of the buffer",
        "size of the supplied",
        "number of elements",
    ]
    .into_iter()
    .find(|p| t.contains(p))
    .or_else(|| {
        (t.starts_with("size of") && (t.contains("array") || t.contains("buffer"))).then_some("size of ... array")
    })
}

/// Another parameter's documentation calls `name` an array (`the \a infos array size`).
fn names_as_array(text: &str, name: &str) -> Option<String> {
    ["array", "buffer"].iter().find_map(|w| {
        let marked = format!("\\a {name} {w}");
        let plain = format!("{name} {w}");
        (text.contains(&marked) || text.contains(&plain)).then(|| format!("\"{name} {w}\""))
    })
}

/// Whether `text` names parameter `name` (`\a name`).
fn names(text: &str, name: &str) -> bool {
    text.contains(&format!("\\a {name} ")) || text.ends_with(&format!("\\a {name}"))
}

/// The documentation reads the parameter as a single value: the phrase.
pub fn scalar_cue(text: &str) -> Option<&'static str> {
    let t = text.to_ascii_lowercase();
    ["reference to an unsigned int", "reference to an unsigned long", "reference to an int", "reference to a boolean"]
        .into_iter()
        .find(|p| t.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cues() {
        assert_eq!(array_cue("Buffer to write the page retirement timestamps into"), Some("buffer"));
        assert_eq!(array_cue("Array of \\a valuesCount structures"), Some("array"));
        assert_eq!(array_cue("Reference in which to return list of process ids"), Some("list of"));
        assert_eq!(
            array_cue("Reference in which to provide the size (in number of elements) of the circular buffer"),
            None
        );
        assert_eq!(
            scalar_cue("Reference to an unsigned int for trailing average FPS of all active sessions"),
            Some("reference to an unsigned int")
        );
        assert_eq!(
            count_cue("Reference in which to provide the \\a infos array size, and to return the number"),
            Some("array size")
        );
        assert_eq!(count_cue("Size of hwbcEntries array"), Some("size of ... array"));
        assert_eq!(count_cue("Reference to an unsigned int for count of active encoder sessions"), None);
        assert_eq!(
            names_as_array("provide the \\a clocksMHz array size", "clocksMHz").as_deref(),
            Some("\"clocksMHz array\"")
        );
    }
}
