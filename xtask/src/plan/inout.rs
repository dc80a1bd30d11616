//! In/out records: which fields of a record the caller sets and which the library fills,
//! so that a method takes the inputs as parameters and returns the outputs; and how an older
//! member of a family that takes plain parameters maps onto the newest member's record, so
//! that one method serves both shapes.

use serde::Serialize;

use super::{Call, Role, Val};
use crate::model::{Model, Record, Ty};
use crate::rules::Bindings;

/// The fields of an in/out record by direction (`version` in neither: the safe record fills it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordIo {
    /// The fields the caller sets: the method's parameters, in the record's order.
    pub inputs: Vec<String>,
    /// The fields the library fills: what the method returns.
    pub outputs: Vec<String>,
    /// Where the directions come from: `rule` (an `inputs` rule) or `comments` (the fields'
    /// comments: `IN:`, `[in]`, `input`, `OUT:`, ...).
    pub basis: &'static str,
}

impl RecordIo {
    /// The output a method returns alone, when the record has exactly one.
    pub fn single_output(&self) -> Option<&str> {
        match self.outputs.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }
}

/// What a field's comment says of its direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cue {
    In,
    Out,
    InOut,
}

/// The direction a field comment opens with: `IN:`, `IN -`, `[in]`, `input: ...`, `OUT:`,
/// `[out]`, `output`, `IN/OUT`, `[in,out]`.
pub fn field_cue(doc: &str) -> Option<Cue> {
    let t = doc.trim_start();
    let lower = t.to_ascii_lowercase();
    let word_end = |s: &str| s.chars().next().is_none_or(|c| !c.is_ascii_alphanumeric());
    if ["in/out", "[in,out]", "[in/out]", "[in, out]", "inout"].iter().any(|p| lower.starts_with(p)) {
        return Some(Cue::InOut);
    }
    if lower.starts_with("[in]") || (t.starts_with("IN") && word_end(&t[2..])) {
        return Some(Cue::In);
    }
    if lower.starts_with("input") && word_end(&lower[5..]) {
        return Some(Cue::In);
    }
    if lower.starts_with("[out]") || (t.starts_with("OUT") && word_end(&t[3..])) {
        return Some(Cue::Out);
    }
    if lower.starts_with("output") && word_end(&lower[6..]) {
        return Some(Cue::Out);
    }
    None
}

/// The directions of `record`'s fields: from its `inputs` rule, else from the fields'
/// comments when at least one comment gives a direction; `None` when neither says.
pub fn record_io(b: &Bindings, record: &str) -> Option<RecordIo> {
    let r = b.model.records.get(record)?;
    let fields = || r.fields.iter().filter(|f| f.name != "version");
    if let Some(inputs) = b.inputs.get(record) {
        let outputs = fields().filter(|f| !inputs.contains(&f.name)).map(|f| f.name.clone()).collect();
        let inputs = fields().filter(|f| inputs.contains(&f.name)).map(|f| f.name.clone()).collect();
        return Some(RecordIo { inputs, outputs, basis: "rule" });
    }
    // A union's member is chosen by a direction or a tag the comments do not give per field,
    // unless a `tagged_unions` rule reads it through its tag (then it is one value, which the
    // field's comment directs like any other).
    let is_union = |f: &crate::model::Field| matches!(b.model.resolve_typedef(&f.ty), Ty::Named(n) if b.model.records.get(n).is_some_and(|u| u.kind == crate::model::RecordKind::Union));
    let tagged = |f: &crate::model::Field| {
        let key = format!("{record}.{}", f.name);
        b.tagged_unions.values().any(|rule| rule.fields.contains_key(&key))
    };
    if r.fields.iter().any(|f| is_union(f) && !tagged(f)) {
        return None;
    }
    cued_io(r)
}

/// The directions the fields' comments give, if any comment gives one.
pub fn cued_io(r: &Record) -> Option<RecordIo> {
    let cues: Vec<(&str, Option<Cue>)> = r
        .fields
        .iter()
        .filter(|f| f.name != "version")
        .map(|f| (f.name.as_str(), f.doc.as_deref().and_then(field_cue)))
        .collect();
    if cues.iter().all(|(_, c)| c.is_none()) {
        return None;
    }
    let (inputs, outputs): (Vec<_>, Vec<_>) = cues.iter().partition(|(_, c)| *c == Some(Cue::In));
    Some(RecordIo {
        inputs: inputs.iter().map(|(n, _)| n.to_string()).collect(),
        outputs: outputs.iter().map(|(n, _)| n.to_string()).collect(),
        basis: "comments",
    })
}

/// Where a parameter of an older member of another shape goes in the newest member's record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Maps {
    /// The handle the method is called on.
    SelfHandle,
    /// The value of this input field (a parameter of the method).
    Input(String),
    /// An out-parameter that fills this output field.
    Output(String),
    /// An out-parameter record converted into the newest record, by field.
    Whole,
}

/// How a member of another shape serves a method whose newest member takes an in/out record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Across {
    /// The newest member's in/out record.
    pub record: String,
    /// Per parameter of the member, in order.
    pub maps: Vec<Maps>,
}

/// The newest member's one in/out record with known directions, if it has exactly one.
pub fn inout_record(b: &Bindings, head: &Call) -> Option<(String, RecordIo)> {
    let mut records = head.params.iter().filter_map(|p| match &p.role {
        Role::InOut(Val::Record(r)) => Some(r),
        _ => None,
    });
    let r = records.next()?;
    if records.next().is_some() {
        return None;
    }
    Some((r.clone(), record_io(b, r)?))
}

/// How `c`, a member of another shape, maps onto `head`'s in/out record: every input field
/// from a parameter of the same name and type, its out-parameters into output fields (an
/// integer into the only output field, or the one of its name) or its out-record converted
/// into the record by field. `None` when any parameter has no place.
pub fn across(b: &Bindings, head: &Call, c: &Call) -> Option<Across> {
    let m = &b.model;
    let (record, io) = inout_record(b, head)?;
    let r = m.records.get(&record)?;
    let field = |name: &str| r.fields.iter().find(|f| f.name == name);
    if head.params.first()?.role != Role::SelfHandle || head.params[0].ty != c.params.first()?.ty {
        return None;
    }
    // The record is all the newest member answers.
    if head.outputs().count() != 1 {
        return None;
    }
    let mut maps = Vec::new();
    let mut outputs = 0;
    for p in &c.params {
        let map = match &p.role {
            Role::SelfHandle => Maps::SelfHandle,
            Role::In(_) => {
                let f = field(&p.name).filter(|f| io.inputs.contains(&f.name))?;
                (m.resolve_typedef(&f.ty) == m.resolve_typedef(&p.ty)).then(|| Maps::Input(f.name.clone()))?
            }
            Role::Out(Val::Record(o)) if !shares_fields(m, o, r) => return None,
            Role::Out(Val::Record(_)) => Maps::Whole,
            Role::Out(Val::Scalar(t)) => {
                let name =
                    io.single_output().or_else(|| io.outputs.iter().find(|o| **o == p.name).map(String::as_str))?;
                let f = field(name)?;
                let integer = |t: &Ty| matches!(t, Ty::Int | Ty::UInt | Ty::LongLong | Ty::ULongLong);
                let (ft, pt) = (m.resolve_typedef(&f.ty), m.resolve_typedef(t));
                if !(integer(ft) && integer(pt)) || super::sentinel(m, f).is_some() {
                    return None;
                }
                Maps::Output(name.to_string())
            }
            _ => return None,
        };
        outputs += usize::from(matches!(map, Maps::Output(_) | Maps::Whole));
        maps.push(map);
    }
    let every_input = io.inputs.iter().all(|i| maps.contains(&Maps::Input(i.clone())));
    (every_input && outputs > 0).then_some(Across { record, maps })
}

/// Whether records `a` and `b` have a field of the same name besides `version`.
fn shares_fields(m: &Model, a: &str, b: &Record) -> bool {
    m.records
        .get(a)
        .is_some_and(|a| a.fields.iter().any(|f| f.name != "version" && b.fields.iter().any(|g| g.name == f.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cues_as_the_header_writes_them() {
        assert_eq!(field_cue("IN: Handle to vGPU type"), Some(Cue::In));
        assert_eq!(field_cue("IN - the API version number"), Some(Cue::In));
        assert_eq!(field_cue("[in] Maximum amount of time to wait"), Some(Cue::In));
        assert_eq!(field_cue("input: spdm supports 32 bytes on nonce"), Some(Cue::In));
        assert_eq!(field_cue("IN/OUT - DRAM Encryption state"), Some(Cue::InOut));
        assert_eq!(field_cue("OUT: the fan speed in RPM"), Some(Cue::Out));
        assert_eq!(field_cue("[out] UUID for the GPU"), Some(Cue::Out));
        assert_eq!(field_cue("output"), Some(Cue::Out));
        // Words that only begin like a cue.
        assert_eq!(field_cue("INdex of the fan"), None);
        assert_eq!(field_cue("Inputs are read"), None);
        assert_eq!(field_cue("the fan index"), None);
    }
}
