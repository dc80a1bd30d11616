//! The field-id history: the number of every `NVML_FI_*` field id in every published header, and
//! the first driver version of each header, so that the safe crate can send each driver its own
//! numbers and the mock can read them as that driver does.
//!
//! NVIDIA renumbered field ids between releases: `NVML_FI_PWR_SMOOTHING_ENABLED` is 251 in
//! 12.8.55, 256 in 12.9.40 to 13.0.39 and 251 again from 13.0.87, and 199 and 200 swap meaning
//! between 12.4 and 12.5. `cargo xtask history` records each field's number where it changes
//! (the `fields:` section of `gen-config/function-history.yaml`, with the `drivers:` section of
//! [`FIRST_DRIVERS`]); `cargo xtask regen` turns that into nvml-sys's
//! `generated/field_numbering.rs` ([`FieldTable`]): for each header, the default header's field
//! ids that it numbers differently and those it lacks.

use std::collections::BTreeMap;

use crate::model::{version_key, ConstValue, Model};

/// Header version → the first Linux x86_64 driver of the CUDA toolkit release that shipped it
/// (the "CUDA Toolkit and Corresponding Driver Versions" table of NVIDIA's CUDA release notes).
/// Written by hand. A header left out has no known first driver (CUDA 13.4 and later ship no
/// driver; 13.2.86 is a rebuild of 13.2 Update 1's header): no driver version selects it, and a
/// driver newer than every branch here gets the newest header's numbering.
pub const FIRST_DRIVERS: &[(&str, &str)] = &[
    ("11.7.91", "515.48.07"),
    ("11.8.86", "520.61.05"),
    ("12.0.76", "525.60.13"),
    ("12.0.140", "525.85.12"),
    ("12.1.55", "530.30.02"),
    ("12.1.105", "530.30.02"),
    ("12.2.81", "535.54.03"),
    ("12.2.128", "535.86.09"),
    ("12.2.140", "535.104.05"),
    ("12.3.52", "545.23.06"),
    ("12.3.101", "545.23.08"),
    ("12.4.99", "550.54.14"),
    ("12.4.127", "550.54.15"),
    ("12.5.39", "555.42.02"),
    ("12.5.82", "555.42.06"),
    ("12.6.37", "560.28.03"),
    ("12.6.68", "560.35.03"),
    ("12.6.77", "560.35.03"),
    ("12.8.55", "570.26"),
    ("12.8.90", "570.124.06"),
    ("12.9.40", "575.51.03"),
    ("12.9.79", "575.57.08"),
    ("13.0.39", "580.65.06"),
    ("13.0.87", "580.82.07"),
    ("13.1.68", "590.44.01"),
    ("13.1.115", "590.48.01"),
    ("13.2.51", "595.45.04"),
    ("13.2.82", "595.58.03"),
    ("13.3.29", "610.43.02"),
];

/// `NVML_FI_MAX` counts the field ids; it names no field.
const NOT_A_FIELD: &str = "NVML_FI_MAX";

/// The `NVML_FI_*` field ids of one header: name → number.
pub fn field_ids(model: &Model) -> BTreeMap<String, u32> {
    model
        .constants
        .values()
        .filter(|c| c.name.starts_with("NVML_FI_") && c.name != NOT_A_FIELD)
        .filter_map(|c| match &c.value {
            ConstValue::Int { value, .. } => u32::try_from(value.as_i128()).ok().map(|v| (c.name.clone(), v)),
            _ => None,
        })
        .collect()
}

/// One field's number where it changes, oldest header first: `(header, number)`, `None` where
/// a header drops it. The first entry is the header that declares it first.
pub type Changes = Vec<(String, Option<u32>)>;

/// Each field ever declared by `headers` (oldest first: version, its field ids) → its changes.
pub fn changes(headers: &[(String, BTreeMap<String, u32>)]) -> BTreeMap<String, Changes> {
    let mut out: BTreeMap<String, Changes> = BTreeMap::new();
    let names: std::collections::BTreeSet<&String> = headers.iter().flat_map(|(_, f)| f.keys()).collect();
    for name in names {
        let mut list: Changes = Vec::new();
        for (version, ids) in headers {
            let now = ids.get(name).copied();
            let before = list.last().and_then(|(_, n)| *n);
            if (list.is_empty() && now.is_some()) || (!list.is_empty() && now != before) {
                list.push((version.clone(), now));
            }
        }
        out.insert(name.clone(), list);
    }
    out
}

/// How many fields changed their number (a field a header drops does not count).
pub fn renumbered(changes: &BTreeMap<String, Changes>) -> usize {
    changes.values().filter(|c| c.iter().filter(|(_, n)| n.is_some()).count() > 1).count()
}

/// The `drivers:` and `fields:` sections of the history file: every header of the corpus with
/// its first driver (`~` where not known), and every field's changes.
pub fn render(versions: &[String], changes: &BTreeMap<String, Changes>) -> String {
    let mut s = String::from(
        "# drivers: each header of the corpus and the first driver version of the CUDA toolkit\n\
         # release that shipped it (`FIRST_DRIVERS` in xtask/src/history/fields.rs; ~: not known).\n\
         # fields: every NVML_FI_* field id of any header and its number from each header where\n\
         # it changes (~: that header drops it). `cargo xtask regen` turns both into\n\
         # crates/nvml-sys/src/generated/field_numbering.rs: the safe crate sends each driver its\n\
         # own numbers, and the mock reads them as its profile's driver does.\n\
         drivers:\n",
    );
    for v in versions {
        match FIRST_DRIVERS.iter().find(|(h, _)| h == v) {
            Some((_, d)) => s.push_str(&format!("  {v}: {d}\n")),
            None => s.push_str(&format!("  {v}: ~\n")),
        }
    }
    s.push_str("fields:\n");
    for (name, list) in changes {
        let items: Vec<String> = list
            .iter()
            .map(|(v, n)| match n {
                Some(n) => format!("{v}: {n}"),
                None => format!("{v}: ~"),
            })
            .collect();
        s.push_str(&format!("  {name}: {{{}}}\n", items.join(", ")));
    }
    s
}

/// What regen emits for nvml-sys: per header, how it numbers the default header's fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldTable {
    /// Oldest first.
    pub headers: Vec<FieldHeader>,
    /// The distinct numberings, in the order headers first use them.
    pub numberings: Vec<Numbering>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldHeader {
    pub version: String,
    /// `[major, minor, patch]` of its first driver, if known.
    pub first_driver: Option<[u32; 3]>,
    /// Index into [`FieldTable::numberings`].
    pub numbering: usize,
}

/// One header's numbering of the default header's field ids, as differences.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Numbering {
    /// `(default id, this header's id)`, sorted by the default id.
    pub moved: Vec<(u32, u32)>,
    /// The same pairs as `(this header's id, default id)`, sorted by this header's id.
    pub back: Vec<(u32, u32)>,
    /// Default ids of fields this header lacks whose number another header gives another
    /// field: never sent to its drivers, sorted.
    pub absent: Vec<u32>,
    /// Default ids of fields this header lacks whose number no header gives another field:
    /// sent as they are (a later driver of the branch may know them), sorted.
    pub later: Vec<u32>,
}

/// `580.82.07` → `[580, 82, 7]`; `570.26` → `[570, 26, 0]`.
pub fn driver_key(v: &str) -> Option<[u32; 3]> {
    match version_key(v)?[..] {
        [a] => Some([a, 0, 0]),
        [a, b] => Some([a, b, 0]),
        [a, b, c] => Some([a, b, c]),
        _ => None,
    }
}

/// The [`FieldTable`] of the history's `drivers` and `fields` for the default header `default`.
/// Errors name what is wrong: a driver that is not a version, a field the default header
/// numbers like another.
pub fn table(
    drivers: &BTreeMap<String, Option<String>>,
    fields: &BTreeMap<String, BTreeMap<String, Option<u32>>>,
    default: &str,
) -> Result<FieldTable, String> {
    let mut versions: Vec<&String> = drivers.keys().collect();
    versions.sort_by_key(|v| version_key(v));
    // Each field's number in each header, replaying its changes.
    let number_at = |changes: &BTreeMap<String, Option<u32>>, header: &str| -> Option<u32> {
        let key = version_key(header);
        changes.iter().filter(|(v, _)| version_key(v) <= key).max_by_key(|(v, _)| version_key(v)).and_then(|(_, n)| *n)
    };
    // Default id → the names it has there (an alias such as
    // NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP = NVML_FI_DEV_PERF_POLICY_POWER gives two).
    let mut defaults: BTreeMap<u32, Vec<&String>> = BTreeMap::new();
    for (name, c) in fields {
        if let Some(n) = number_at(c, default) {
            defaults.entry(n).or_default().push(name);
        }
    }
    // Every field a number names in some header: a field a header lacks is still sent by its
    // default number when no header gives that number to another field (a driver later than
    // the header it is matched with may know it, as 580.159.04 knows fields of 13.x headers
    // newer than 13.0.87; one that does not answers an error for it, never another field).
    let mut owners: BTreeMap<u32, std::collections::BTreeSet<&String>> = BTreeMap::new();
    for (name, c) in fields {
        for v in &versions {
            if let Some(n) = number_at(c, v) {
                owners.entry(n).or_default().insert(name);
            }
        }
    }
    let mut out = FieldTable::default();
    for v in versions.iter().copied() {
        let first_driver = match &drivers[v] {
            Some(d) => Some(driver_key(d).ok_or_else(|| format!("drivers.{v}: `{d}` is not a driver version"))?),
            None => None,
        };
        let mut n = Numbering::default();
        for (default_id, names) in &defaults {
            let mut here: Vec<u32> = names.iter().filter_map(|name| number_at(&fields[*name], v)).collect();
            here.dedup();
            match here[..] {
                [] if owners.get(default_id).is_some_and(|o| o.iter().all(|x| names.contains(x))) => {
                    n.later.push(*default_id)
                }
                [] => n.absent.push(*default_id),
                [id] if id != *default_id => n.moved.push((*default_id, id)),
                [_] => {}
                _ => {
                    let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
                    return Err(format!(
                        "fields: {} are one field id ({default_id}) in {default} but {here:?} in {v}",
                        names.join(" and ")
                    ));
                }
            }
        }
        n.moved.sort_unstable();
        n.absent.sort_unstable();
        n.later.sort_unstable();
        n.back = n.moved.iter().map(|(d, h)| (*h, *d)).collect();
        n.back.sort_unstable();
        let numbering = match out.numberings.iter().position(|x| *x == n) {
            Some(i) => i,
            None => {
                out.numberings.push(n);
                out.numberings.len() - 1
            }
        };
        out.headers.push(FieldHeader { version: v.clone(), first_driver, numbering });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(pairs: &[(&str, u32)]) -> BTreeMap<String, u32> {
        pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    #[test]
    fn changes_record_first_declaration_moves_and_drops() {
        let headers = vec![
            ("12.4.99".to_string(), ids(&[("NVML_FI_A", 1), ("NVML_FI_MIG", 199)])),
            ("12.5.39".to_string(), ids(&[("NVML_FI_A", 1), ("NVML_FI_MIG", 200), ("NVML_FI_THR", 199)])),
            ("12.8.55".to_string(), ids(&[("NVML_FI_MIG", 199), ("NVML_FI_THR", 200)])),
        ];
        let c = changes(&headers);
        let v = |n: &str| c[n].iter().map(|(h, x)| (h.as_str(), *x)).collect::<Vec<_>>();
        assert_eq!(v("NVML_FI_A"), [("12.4.99", Some(1)), ("12.8.55", None)]);
        assert_eq!(v("NVML_FI_MIG"), [("12.4.99", Some(199)), ("12.5.39", Some(200)), ("12.8.55", Some(199))]);
        assert_eq!(v("NVML_FI_THR"), [("12.5.39", Some(199)), ("12.8.55", Some(200))]);
        assert_eq!(renumbered(&c), 2);

        // Through the file's text and back to the table regen emits.
        let versions: Vec<String> = headers.iter().map(|(v, _)| v.clone()).collect();
        let text = format!("x:\n{}", render(&versions, &c));
        #[derive(serde::Deserialize)]
        struct F {
            drivers: BTreeMap<String, Option<String>>,
            fields: BTreeMap<String, BTreeMap<String, Option<u32>>>,
        }
        let f: F = serde_yaml::from_str(&text.replacen("x:\n", "", 1)).unwrap();
        assert_eq!(f.drivers["12.4.99"].as_deref(), Some("550.54.14"));
        let t = table(&f.drivers, &f.fields, "12.8.55").unwrap();
        assert_eq!(t.headers.len(), 3);
        assert_eq!(t.headers[1].first_driver, Some([555, 42, 2]));
        let n = |i: usize| &t.numberings[t.headers[i].numbering];
        // 12.4.99 has MIG where 12.8.55 has it, and lacks THR.
        assert_eq!((n(0).moved.clone(), n(0).absent.clone()), (vec![], vec![200]));
        // 12.5.39 swaps them.
        assert_eq!(n(1).moved, [(199, 200), (200, 199)]);
        assert_eq!(n(1).back, [(199, 200), (200, 199)]);
        assert_eq!(n(2), &Numbering::default());
    }

    #[test]
    fn driver_versions_have_up_to_three_numbers() {
        assert_eq!(driver_key("580.82.07"), Some([580, 82, 7]));
        assert_eq!(driver_key("570.26"), Some([570, 26, 0]));
        assert_eq!(driver_key("r570"), None);
        assert_eq!(driver_key("1.2.3.4"), None);
        for (h, d) in FIRST_DRIVERS {
            assert!(driver_key(d).is_some() && version_key(h).is_some(), "{h}: {d}");
        }
    }
}
