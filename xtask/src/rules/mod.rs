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
mod bindings;
mod buffers;
mod check;
mod functions;
pub mod mock;
pub mod names;
mod records;
mod schema;
mod types;

pub use bindings::{ArrayBuffer, Bindings, Origin, StringBuffer};
pub use buffers::derive_counted;
pub use check::{glob_match, is_rust_fn_name, size_value};
pub use schema::*;

use std::collections::BTreeMap;

use crate::diag::Diagnostics;
use crate::model::Model;

/// Applies `rules` (read from `file`, for messages) to `model`: one function per table of rules,
/// each checking its table against the header.
pub fn apply(model: Model, rules: &Rules, file: &str) -> (Bindings, Diagnostics) {
    let mut d = Diagnostics::new("rules");
    let i = check::Inputs { model: &model, rules, file };
    functions::released(&i, &mut d);
    functions::handles(&i, &mut d);
    let families = functions::versions(&i, &mut d);
    let strings = buffers::strings(&i, &mut d);
    let arrays = buffers::arrays(&i, &mut d);
    buffers::not_arrays(&i, &mut d);
    functions::owned(&i, &mut d);
    functions::renames(&i, &mut d);
    functions::results(&i, &mut d);
    records::field_types(&i, &mut d);
    functions::former_methods(&i, &mut d);
    let enum_params = functions::enum_params(&i, &mut d);
    functions::see_also(&i, &mut d);
    let type_renames = types::type_renames(&i, &mut d);
    types::constant_renames(&i, &mut d);
    let skipped = functions::skip(&i, &mut d);
    functions::manual(&i, &skipped, &mut d);
    functions::ids(&i, &mut d);
    functions::directions(&i, &mut d);
    types::bitflags(&i, &mut d);
    let struct_versions = records::struct_versions(&i, &mut d);
    let absent_fields = records::absent_fields(&i, &mut d);
    let tagged_values = records::tagged_values(&i, &mut d);
    records::tagged_unions(&i, &mut d);
    records::byte_unions(&i, &mut d);
    records::raw_unions(&i, &tagged_values, &mut d);
    records::inputs(&i, &mut d);
    records::former_names(&i, &mut d);
    records::fill_from_older(&i, &mut d);
    records::list_fields(&i, &mut d);
    types::booleans(&i, &mut d);
    let counted = buffers::counted(&i, &mut d);
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
        results: rules.results.clone(),
        field_types: rules.field_types.clone(),
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
    fn globs_match_by_prefix() {
        assert!(glob_match("nvmlVgpu*", "nvmlVgpuTypeGetName"));
        assert!(!glob_match("nvmlVgpu", "nvmlVgpuTypeGetName"));
    }
}
