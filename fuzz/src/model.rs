//! Models of headers for the generator's targets: parsed once per process through the
//! generator's own clang stage (and so its own libclang), with the names they hold.

use std::collections::BTreeSet;
use std::path::Path;

use xtask::model::{HeaderInfo, Model};

/// The model of the header at `path` (relative to the workspace root); a header that does not
/// parse is a broken checkout, not a finding.
pub fn parse(root: &Path, path: &str) -> Model {
    let info = HeaderInfo { version: path.to_string(), sha256: String::new() };
    match xtask::clang::parse_header(&root.join(path), info) {
        Ok((model, _)) => model,
        Err(e) => panic!("{path} does not parse: {e:#}"),
    }
}

/// Every name a rule may give: functions and `function.parameter`s, records and
/// `record.field`s, handles, typedefs, enums, constants and groups; and the keys of the rules'
/// own tables.
pub fn words(model: &Model) -> Vec<String> {
    let mut w = BTreeSet::new();
    for f in model.functions.values() {
        w.insert(f.name.clone());
        w.extend(f.params.iter().map(|p| format!("{}.{}", f.name, p.name)));
        w.extend(f.params.iter().map(|p| p.name.clone()));
    }
    for r in model.records.values() {
        w.insert(r.name.clone());
        w.extend(r.fields.iter().map(|f| format!("{}.{}", r.name, f.name)));
    }
    w.extend(model.handles.keys().cloned());
    w.extend(model.typedefs.keys().cloned());
    w.extend(model.enums.keys().cloned());
    w.extend(model.constants.keys().cloned());
    w.extend(model.groups.iter().map(|g| g.name.clone()));
    let tables = serde_yaml::to_value(xtask::rules::Rules::default()).unwrap_or_default();
    if let Some(m) = tables.as_mapping() {
        w.extend(m.keys().filter_map(|k| k.as_str()).map(String::from));
    }
    let keys = [
        "buffer",
        "length",
        "size",
        "count",
        "array",
        "arrays",
        "capacity",
        "out_only",
        "null_probe",
        "bytes",
        "unused",
        "prefix",
        "exclude",
        "aliases",
        "params",
        "fields",
        "typedef",
        "union",
        "members",
        "entry",
        "from",
        "hand_written",
        "in",
        "out",
        "inout",
        "functions",
        "default",
        "oldest",
        "branches",
        "drivers",
        "Device",
        "Unit",
    ];
    w.extend(keys.map(String::from));
    w.into_iter().collect()
}
