//! The rules of `gen-config/nvml.yaml` for another header than the default one.
//!
//! The rules are written for the default header and claim to hold for every published header
//! that has their subject: a rule about a function, handle, record or field applies where the
//! header declares it and says nothing where it does not (`nvmlSystemEventSet_t` is new in
//! 12.9; an older header simply has no such handle). [`to_header`] drops, for one header, the
//! rules whose subject it lacks, and lists them: header-diff and the corpus show them as notes,
//! never as errors. Everything left is then checked like any rule (an error is an error), so the
//! corpus test, which adapts the rules to each of the 33 published headers, checks the rules
//! against every header they cover.

use std::collections::BTreeMap;

use super::{FlagsRule, Rules};
use crate::model::{Model, Ty};

/// A rule left out for a header: `section.key` and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    pub rule: String,
    pub why: String,
}

/// What [`to_header`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Adapted {
    /// The rules whose subject the header lacks.
    pub left_out: Vec<LeftOut>,
    /// `tagged_unions` fields whose tag field the header names otherwise (before 12.2.140 the
    /// scheduler's `arrMode` was the flag `isEnabledARR`): the union stays raw there, and the
    /// rules stage's warning about it is expected.
    pub left_raw: Vec<String>,
    /// The `older_headers` rules that changed this header's reading (`section.key`).
    pub older_applied: Vec<String>,
}

/// Applies the `older_headers` rules (see [`super::OlderRules`]) to an older header: `signed`
/// retypes the model's integers, `inputs` and `directions` join the rules (the pipeline drops
/// those the header's own text gives after reading it).
pub fn older(rules: &mut Rules, model: &mut Model, out: &mut Adapted) {
    let older = std::mem::take(&mut rules.older_headers);
    for key in older.signed.keys() {
        let Some((owner, member)) = key.split_once('.') else { continue };
        let slot: Option<&mut Ty> = if let Some(r) = model.records.get_mut(owner) {
            r.fields.iter_mut().find(|f| f.name == member).map(|f| &mut f.ty)
        } else {
            model
                .functions
                .get_mut(owner)
                .and_then(|f| f.params.iter_mut().find(|p| p.name == member))
                .map(|p| &mut p.ty)
        };
        if let Some(t) = slot {
            if signed(t) {
                out.older_applied.push(format!("signed.{key}"));
            }
        }
    }
    for (record, inputs) in older.inputs {
        if model.records.contains_key(&record) && !rules.inputs.contains_key(&record) {
            out.older_applied.push(format!("inputs.{record}"));
            rules.inputs.insert(record, inputs);
        }
    }
    for (key, dir) in older.directions {
        let function = key.split('.').next().unwrap_or(&key);
        if model.functions.contains_key(function) && !rules.directions.contains_key(&key) {
            out.older_applied.push(format!("directions.{key}"));
            rules.directions.insert(key, dir);
        }
    }
}

/// Makes an unsigned integer (or the one a pointer or array holds) signed; whether it was one.
fn signed(t: &mut Ty) -> bool {
    match t {
        Ty::UInt => {
            *t = Ty::Int;
            true
        }
        Ty::ULongLong => {
            *t = Ty::LongLong;
            true
        }
        Ty::Pointer { pointee, .. } => signed(pointee),
        Ty::Array { elem, .. } => signed(elem),
        _ => false,
    }
}

/// Drops from `rules` what `model` gives no subject to (see the module docs).
pub fn to_header(rules: &mut Rules, model: &Model) -> Adapted {
    let mut out = Adapted::default();
    let mut note = |section: &str, key: &str, why: &str| {
        out.left_out.push(LeftOut { rule: format!("{section}.{key}"), why: why.to_string() });
    };
    let function = |k: &str| model.functions.contains_key(k.split('.').next().unwrap_or(k));
    let record = |k: &str| model.records.contains_key(k.split('.').next().unwrap_or(k));
    let field = |k: &str, other: &str| {
        let (r, f) = k.split_once('.').unwrap_or((k, ""));
        model.records.get(r).is_some_and(|r| [f, other].iter().all(|f| r.fields.iter().any(|g| g.name == *f)))
    };
    let constant = |c: &str| {
        model.constants.contains_key(c) || model.enums.values().any(|e| e.constants.iter().any(|k| k.name == c))
    };
    let no_function = "the header has no such function";
    let no_record = "the header has no such record";
    macro_rules! keep {
        ($section:literal, $map:expr, $has:expr, $why:expr) => {
            $map.retain(|k, _| {
                let keep = $has(k.as_str());
                if !keep {
                    note($section, k, $why);
                }
                keep
            });
        };
    }
    keep!("handles", rules.handles, |k: &str| model.handles.contains_key(k), "the header has no such handle");
    keep!("owned", rules.owned, |k: &str| model.handles.contains_key(k), "the header has no such handle");
    keep!("ids", rules.ids, |k: &str| model.typedefs.contains_key(k), "the header has no such typedef");
    keep!("renames", rules.renames, function, no_function);
    keep!("results", rules.results, function, no_function);
    keep!("former_methods", rules.former_methods, function, no_function);
    keep!("see_also", rules.see_also, function, no_function);
    keep!("enums", rules.enums, function, no_function);
    rules.enums.retain(|k, e| {
        let keep = model.enums.contains_key(e) || model.typedefs.contains_key(e);
        if !keep {
            note("enums", k, "the header has no such enum");
        }
        keep
    });
    keep!(
        "type_renames",
        rules.type_renames,
        |k: &str| model.enums.contains_key(k) || model.typedefs.contains_key(k),
        "the header has no such enum"
    );
    keep!("constant_renames", rules.constant_renames, constant, "the header has no such constant");
    keep!("manual", rules.manual, function, no_function);
    keep!("directions", rules.directions, function, no_function);
    keep!("strings", rules.strings, function, no_function);
    keep!("arrays", rules.arrays, function, no_function);
    keep!("not_arrays", rules.not_arrays, function, no_function);
    keep!("struct_versions", rules.struct_versions, record, no_record);
    keep!("inputs", rules.inputs, record, no_record);
    keep!(
        "field_types",
        rules.field_types,
        |k: &str| field(k, k.rsplit('.').next().unwrap_or(k)),
        "the header has no such field"
    );
    keep!("former_names", rules.former_names, record, no_record);
    keep!("fill_from_older", rules.fill_from_older, record, no_record);
    keep!("list_fields", rules.list_fields, record, no_record);
    keep!("counted", rules.counted, record, no_record);
    keep!("tagged_values", rules.tagged_values, record, no_record);
    rules.tagged_values.retain(|k, tag| {
        let keep = !tag.contains('.') || function(tag) || record(tag);
        if !keep {
            note("tagged_values", k, "the header has no function or record of its tag");
        }
        keep
    });
    keep!(
        "byte_unions",
        rules.byte_unions,
        |k: &str| field(k, k.split_once('.').map_or("", |(_, f)| f)),
        "the header has no such field"
    );
    rules.booleans.retain(|k| {
        let keep = match k.split_once('.') {
            // An enum typedef: every parameter and field of the type.
            None => model.typedefs.contains_key(k) || model.enums.contains_key(k),
            Some((_, f)) => function(k) || field(k, f),
        };
        if !keep {
            note("booleans", k, "the header has no such function, field or enum typedef");
        }
        keep
    });
    for (section, table) in [("bitflags", &mut rules.bitflags), ("values", &mut rules.values)] {
        flags_to_header(section, table, model, &mut note);
    }
    rules.versions.retain(|api, symbols| {
        symbols.retain(|s| model.functions.contains_key(s));
        let keep = !symbols.is_empty();
        if !keep {
            note("versions", api, "the header has none of its functions");
        }
        keep
    });
    rules.values.retain(|name, v| {
        let keep = v.typedef.as_ref().is_none_or(|t| model.typedefs.contains_key(t));
        if !keep {
            note("values", name, "the header has no such typedef");
        }
        keep
    });
    for rule in rules.tagged_unions.values_mut() {
        for k in rule.fields.keys() {
            if field(k, k.split_once('.').map_or("", |(_, f)| f)) {
                out.left_raw.push(k.clone());
            }
        }
        rule.fields.retain(|k, tag| field(k, tag));
        out.left_raw.retain(|k| !rule.fields.contains_key(k));
        rule.members.retain(|c, _| constant(c));
    }
    let unions: Vec<String> = rules
        .tagged_unions
        .iter()
        .filter(|(_, rule)| !model.records.contains_key(&rule.union) || rule.fields.is_empty())
        .map(|(k, _)| k.clone())
        .collect();
    for k in unions {
        rules.tagged_unions.remove(&k);
        note("tagged_unions", &k, "the header has no such union, or no field of it with its tag");
    }
    // Words of the areas that name functions or types the header does not have yet.
    for (group, sub, word) in super::areas::Areas::unused_words(&rules.areas, model) {
        if let Some(words) = rules.areas.get_mut(&group).and_then(|subs| subs.get_mut(&sub)) {
            words.retain(|w| *w != word);
        }
    }
    for subs in rules.areas.values_mut() {
        subs.retain(|_, words| !words.is_empty());
    }
    rules.areas.retain(|group, subs| !subs.is_empty() && model.groups.iter().any(|g| &g.name == group));
    out
}

/// Drops from a `bitflags` or `values` table the parameters, fields and excluded constants the
/// header lacks, takes an older prefix from an alias, and drops the rules with no constant.
fn flags_to_header(
    section: &str,
    table: &mut BTreeMap<String, FlagsRule>,
    model: &Model,
    note: &mut impl FnMut(&str, &str, &str),
) {
    let function = |k: &str| model.functions.contains_key(k.split('.').next().unwrap_or(k));
    let field = |k: &str| {
        let (r, f) = k.split_once('.').unwrap_or((k, ""));
        model.records.get(r).is_some_and(|r| r.fields.iter().any(|g| g.name == f))
    };
    for (name, flags) in table.iter_mut() {
        flags.params.retain(|p| {
            let keep = function(p);
            if !keep {
                note(section, &format!("{name}.params.{p}"), "the header has no such function");
            }
            keep
        });
        flags.fields.retain(|p| {
            let keep = field(p);
            if !keep {
                note(section, &format!("{name}.fields.{p}"), "the header has no such field");
            }
            keep
        });
        flags.exclude.retain(|c| model.constants.contains_key(c));
        // A prefix an older header does not spell yet takes its constants from the first alias
        // prefix it does (`nvmlClocksThrottleReason*` before `nvmlClocksEventReason*`).
        let spelled = |p: &str| model.constants.keys().any(|c| c.starts_with(p));
        if !spelled(&flags.prefix) {
            if let Some(i) = flags.aliases.iter().position(|a| spelled(a)) {
                flags.prefix = flags.aliases.remove(i);
            }
        }
        flags.aliases.retain(|a| spelled(a));
    }
    table.retain(|name, flags| {
        let keep = model.constants.keys().any(|c| c.starts_with(&flags.prefix));
        if !keep {
            note(section, name, "the header has no constant of its prefix");
        }
        keep
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Typedef;

    #[test]
    fn a_booleans_rule_on_an_enum_typedef_holds_where_the_header_has_the_typedef() {
        let mut model = Model::default();
        let ty = Ty::Named("nvmlEnableState_enum".into());
        model
            .typedefs
            .insert("nvmlEnableState_t".into(), Typedef { name: "nvmlEnableState_t".into(), ty, doc: None, line: 1 });
        let mut rules = Rules {
            booleans: ["nvmlEnableState_t", "nvmlGone_t", "nvmlDeviceGetGone.flag"].map(String::from).into(),
            ..Rules::default()
        };
        let adapted = to_header(&mut rules, &model);
        assert_eq!(rules.booleans.iter().collect::<Vec<_>>(), ["nvmlEnableState_t"]);
        let left: Vec<&str> = adapted.left_out.iter().map(|l| l.rule.as_str()).collect();
        assert_eq!(left, ["booleans.nvmlDeviceGetGone.flag", "booleans.nvmlGone_t"]);
    }

    #[test]
    fn values_and_enums_rules_keep_what_an_older_header_has() {
        let mut model = Model::default();
        model.constants.insert(
            "NVML_GPU_INSTANCE_PROFILE_1_SLICE".into(),
            crate::model::Constant {
                name: "NVML_GPU_INSTANCE_PROFILE_1_SLICE".into(),
                value: crate::model::ConstValue::Str(String::new()),
                doc: None,
                line: 1,
            },
        );
        let flags = |prefix: &str, exclude: &[&str], fields: &[&str]| FlagsRule {
            prefix: prefix.into(),
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
            fields: fields.iter().map(|s| s.to_string()).collect(),
            ..FlagsRule::default()
        };
        let mut rules = Rules {
            values: [
                (
                    "GpuInstanceProfile".into(),
                    flags("NVML_GPU_INSTANCE_PROFILE_", &["NVML_GPU_INSTANCE_PROFILE_CAPS_P2P"], &[]),
                ),
                ("Engine".into(), flags("NVML_VGPU_SCHEDULER_ENGINE_TYPE_", &[], &["nvmlGone_t.engineId"])),
            ]
            .into(),
            enums: [("nvmlDeviceGetNvLinkVersion.version".into(), "nvmlNvlinkVersion_t".into())].into(),
            ..Rules::default()
        };
        let adapted = to_header(&mut rules, &model);
        assert_eq!(rules.values.keys().collect::<Vec<_>>(), ["GpuInstanceProfile"]);
        assert!(rules.values["GpuInstanceProfile"].exclude.is_empty());
        assert!(rules.enums.is_empty());
        let left: Vec<&str> = adapted.left_out.iter().map(|l| l.rule.as_str()).collect();
        assert_eq!(
            left,
            ["enums.nvmlDeviceGetNvLinkVersion.version", "values.Engine.fields.nvmlGone_t.engineId", "values.Engine"]
        );
    }
}
