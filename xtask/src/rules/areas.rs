//! The `areas` rules: which generated file each item of the header goes to.
//!
//! Generated code is split by the header's own Doxygen groups (`@defgroup`): an item goes to
//! the innermost group around its declaration, named after the group (`nvmlDeviceQueries` →
//! `device_queries`). A legacy prototype (declared only under `NVML_NO_UNVERSIONED_FUNC_DEFS`,
//! outside every group) goes with the newest member of its family; anything else outside every
//! group goes to `ungrouped`. A group too large for one readable file is split further by an
//! `areas` rule: each sub-area takes the group's items whose C name contains one of its words.

use std::collections::BTreeMap;

use serde::Serialize;

use super::names::snake;
use crate::diag::Diagnostics;
use crate::model::version_of;
use crate::model::{Group, Model};

/// The module of items outside every group.
pub const UNGROUPED: &str = "ungrouped";

/// One generated file's worth of items.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Area {
    /// The Rust module name: `device_queries`, `device_queries_power`.
    pub module: String,
    /// What a reader calls it: the group's title, and the sub-area's name.
    pub title: String,
}

/// The resolved `areas` rules: group → sub-area → the words that send an item there.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Areas {
    splits: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

impl Areas {
    /// Checks the rules against the model: a group the header lacks, a sub-area that is not a
    /// Rust module name, or a word that matches no item of its group is a warning (the rule
    /// changes nothing); an item that two sub-areas claim is an error.
    pub fn resolve(
        rules: &BTreeMap<String, BTreeMap<String, Vec<String>>>,
        model: &Model,
        file: &str,
        d: &mut Diagnostics,
    ) -> Areas {
        let areas = Areas { splits: rules.clone() };
        for (group, sub, w) in Areas::unused_words(rules, model) {
            d.warn(format!("{file}: areas.{group}.{sub}"), format!("no item of `{group}` has `{w}` in its name"));
        }
        for (group, subs) in rules {
            let place = format!("{file}: areas.{group}");
            if !model.groups.iter().any(|g| &g.name == group) {
                d.warn(place, format!("the header has no group `{group}`"));
                continue;
            }
            let members = areas.members(model, group);
            for sub in subs.keys().filter(|sub| snake(sub) != **sub || sub.is_empty()) {
                d.error(format!("{place}.{sub}"), "a sub-area is named by a snake_case module name");
            }
            for m in &members {
                let claims: Vec<&String> =
                    subs.iter().filter(|(_, ws)| ws.iter().any(|w| m.contains(w.as_str()))).map(|(s, _)| s).collect();
                if claims.len() > 1 {
                    let list: Vec<&str> = claims.iter().map(|s| s.as_str()).collect();
                    d.error(place.clone(), format!("`{m}` has words of several sub-areas: {}", list.join(", ")));
                }
            }
        }
        areas
    }

    /// The `(group, sub-area, word)` of each word of `rules` that no item of its group has in
    /// its name (a header older than the rules lacks them).
    pub fn unused_words(
        rules: &BTreeMap<String, BTreeMap<String, Vec<String>>>,
        model: &Model,
    ) -> Vec<(String, String, String)> {
        let areas = Areas { splits: rules.clone() };
        let mut out = Vec::new();
        for (group, subs) in rules.iter().filter(|(g, _)| model.groups.iter().any(|x| &x.name == *g)) {
            let members = areas.members(model, group);
            for (sub, words) in subs {
                for w in words.iter().filter(|w| !members.iter().any(|m| m.contains(w.as_str()))) {
                    out.push((group.clone(), sub.clone(), w.clone()));
                }
            }
        }
        out
    }

    /// The names of the items of `group`.
    fn members<'m>(&'m self, model: &'m Model, group: &str) -> Vec<&'m str> {
        self.items(model).filter(|(_, g)| g.as_deref() == Some(group)).map(|(n, _)| n).collect()
    }

    /// Every named item of the model with the group it belongs to.
    fn items<'m>(&'m self, model: &'m Model) -> impl Iterator<Item = (&'m str, Option<String>)> + 'm {
        let group = move |line: u32| model.group_at(line).map(|g| g.name.clone());
        let functions = model
            .functions
            .values()
            .map(move |f| (f.name.as_str(), self.group_of(model, &f.name, f.line).map(|g| g.name.clone())));
        let records = model.records.values().map(move |r| (r.name.as_str(), group(r.line)));
        let enums = model.enums.values().map(move |e| (e.name.as_str(), group(e.line)));
        let constants = model.constants.values().map(move |c| (c.name.as_str(), group(c.line)));
        let handles = model.handles.values().map(move |h| (h.name.as_str(), group(h.line)));
        let typedefs = model.typedefs.values().map(move |t| (t.name.as_str(), group(t.line)));
        functions.chain(records).chain(enums).chain(constants).chain(handles).chain(typedefs)
    }

    /// The area of the item `name` declared on `line`.
    pub fn of(&self, model: &Model, name: &str, line: u32) -> Area {
        let Some(group) = self.group_of(model, name, line) else {
            return Area { module: UNGROUPED.to_string(), title: "Outside every group of nvml.h".to_string() };
        };
        let base = module_name(group);
        let sub = self.splits.get(&group.name).and_then(|subs| {
            subs.iter().find(|(_, words)| words.iter().any(|w| name.contains(w.as_str()))).map(|(s, _)| s)
        });
        match sub {
            Some(s) => {
                Area { module: format!("{base}_{s}"), title: format!("{}: {}", group.title, s.replace('_', " ")) }
            }
            None => Area { module: base, title: group.title.clone() },
        }
    }

    /// The group of the item `name` declared on `line`: the innermost around it, or for a
    /// legacy prototype (declared outside every group) that of the newest non-legacy member of
    /// its family (`nvmlDeviceGetCount` → `nvmlDeviceGetCount_v2`'s).
    fn group_of<'m>(&self, model: &'m Model, name: &str, line: u32) -> Option<&'m Group> {
        model.group_at(line).or_else(|| {
            let f = model.functions.get(name).filter(|f| f.legacy)?;
            let base = |n: &'m str| version_of(n).map_or(n, |(b, _)| b);
            let family = base(&f.name);
            // A member's name starts with the family's: the cheap test first.
            let member = |g: &'m crate::model::Function| g.name.starts_with(family) && base(&g.name) == family;
            let newest = model.functions.values().rev().find(|g| !g.legacy && member(g))?;
            model.group_at(newest.line)
        })
    }
}

/// A group's module name: its name less `nvml`, in snake case (`nvmlDeviceQueries` →
/// `device_queries`), or its title's words where that leaves nothing (older headers have a
/// `@defgroup nvml vGPU Migration`); other characters (`nvmlSystem/nvmlDevice`) separate words.
fn module_name(group: &Group) -> String {
    // Lowercase words joined by `_`; anything but letters and digits separates words.
    let words = |s: &str| -> String {
        let s: String = s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { ' ' }).collect();
        s.split([' ', '_']).filter(|w| !w.is_empty()).collect::<Vec<_>>().join("_")
    };
    let from_name = words(&snake(&words(group.name.strip_prefix("nvml").unwrap_or(&group.name))));
    let name = if from_name.is_empty() { words(&group.title.to_ascii_lowercase()) } else { from_name };
    match name.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => name,
        _ => format!("group_{name}"),
    }
}

impl super::Bindings {
    /// The area of the item `name` declared on `line`.
    pub fn area(&self, name: &str, line: u32) -> Area {
        self.areas.of(&self.model, name, line)
    }

    /// The area of a type of the header, by name (a typedef, record, enum or handle).
    pub fn type_area(&self, name: &str) -> Area {
        let m = &self.model;
        let line = m
            .typedefs
            .get(name)
            .map(|t| t.line)
            .or_else(|| m.records.get(name).map(|r| r.line))
            .or_else(|| m.enums.get(name).map(|e| e.line))
            .or_else(|| m.handles.get(name).map(|h| h.line))
            .unwrap_or(0);
        self.area(name, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(name: &str, title: &str) -> Group {
        Group { name: name.into(), title: title.into(), first_line: 1, last_line: 1 }
    }

    #[test]
    fn module_names_from_group_names_or_titles() {
        assert_eq!(module_name(&group("nvmlDeviceQueries", "Device Queries")), "device_queries");
        assert_eq!(module_name(&group("NvLink", "NvLink Methods")), "nv_link");
        assert_eq!(module_name(&group("nvml", "vGPU Migration")), "vgpu_migration");
        assert_eq!(module_name(&group("nvmlSystem/nvmlDevice", "definitions")), "system_nvml_device");
        assert_eq!(module_name(&group("nvml", "1 thing")), "group_1_thing");
    }

    #[test]
    fn items_go_to_their_group_its_sub_areas_or_their_familys() {
        let mut m = Model {
            groups: vec![
                Group {
                    name: "nvmlDeviceQueries".into(),
                    title: "Device Queries".into(),
                    first_line: 10,
                    last_line: 20,
                },
                Group { name: "nvmlAffinity".into(), title: "Affinity".into(), first_line: 12, last_line: 14 },
            ],
            ..Model::default()
        };
        let f = |name: &str, line: u32, legacy: bool| crate::model::Function {
            name: name.into(),
            ret: crate::model::Ty::Void,
            params: vec![],
            doc: None,
            docs: Default::default(),
            deprecated: false,
            legacy,
            line,
        };
        for func in [f("nvmlDeviceGetPowerUsage", 11, false), f("nvmlDeviceGetCount_v2", 15, false)] {
            m.functions.insert(func.name.clone(), func);
        }
        m.functions.insert("nvmlDeviceGetCount".into(), f("nvmlDeviceGetCount", 30, true));
        let rules: BTreeMap<String, BTreeMap<String, Vec<String>>> =
            [("nvmlDeviceQueries".to_string(), [("power".to_string(), vec!["Power".to_string()])].into())].into();
        let mut d = Diagnostics::new("rules");
        let areas = Areas::resolve(&rules, &m, "rules.yaml", &mut d);
        let module = |name: &str, line: u32| areas.of(&m, name, line).module;
        assert_eq!(module("nvmlDeviceGetPowerUsage", 11), "device_queries_power");
        assert_eq!(module("nvmlDeviceGetCount_v2", 15), "device_queries");
        assert_eq!(module("nvmlDeviceGetCount", 30), "device_queries", "a legacy prototype goes with its family");
        assert_eq!(module("nvmlSetAffinity", 13), "affinity", "the innermost group");
        assert_eq!(module("nvmlOther", 40), UNGROUPED);
        assert!(d.items().is_empty(), "{d:?}");
        // A word nothing has is reported; an item two sub-areas claim is an error.
        let rules: BTreeMap<String, BTreeMap<String, Vec<String>>> = [(
            "nvmlDeviceQueries".to_string(),
            [
                ("a".to_string(), vec!["Power".to_string()]),
                ("b".to_string(), vec!["Usage".to_string(), "Fan".to_string()]),
            ]
            .into(),
        )]
        .into();
        let mut d = Diagnostics::new("rules");
        Areas::resolve(&rules, &m, "rules.yaml", &mut d);
        let text = format!("{d:?}");
        assert!(text.contains("no item of `nvmlDeviceQueries` has `Fan`"), "{text}");
        assert!(text.contains("`nvmlDeviceGetPowerUsage` has words of several sub-areas: a, b"), "{text}");
    }
}
