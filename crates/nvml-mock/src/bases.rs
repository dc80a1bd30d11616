//! A profile's tree with its `base`s merged in: each base in order, then the profile, mapping
//! by mapping. `build.rs` includes this file to merge the built-in profiles when the library is
//! built (their packed trees are the merged ones); the library merges any other profile so
//! when it loads.

use serde_yaml::{Mapping, Value};

/// `root` (a profile's tree, from `origin`) with its bases merged in: `base(name, depth)` is
/// the merged tree of each base it names, at `depth` (one below the profile's). Lists and
/// values replace, and the profile's own device list replaces a base's.
pub fn merge_bases(
    root: Value,
    origin: &str,
    depth: usize,
    base: &mut dyn FnMut(&str, usize) -> Result<Value, String>,
) -> Result<Value, String> {
    let Some(top) = root.as_mapping() else { return Ok(root) };
    let bases = match top.get("base") {
        None => return Ok(root),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Sequence(v)) => v
            .iter()
            .map(|b| b.as_str().map(String::from))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| format!("profile {origin}: base: expected names"))?,
        Some(_) => return Err(format!("profile {origin}: base: expected a name or a list of names")),
    };
    if depth > 16 {
        return Err(format!("profile {origin}: base: bases nest too deep (a cycle?)"));
    }
    let mut merged = Value::Mapping(Mapping::new());
    for b in &bases {
        merge_owned(&mut merged, base(b, depth + 1)?);
    }
    let mut own = root;
    if let Some(m) = own.as_mapping_mut() {
        m.remove("base");
        // The profile's own device list replaces a base's.
        if let (true, Some(base)) = (m.contains_key("devices"), merged.as_mapping_mut()) {
            base.remove("devices");
        }
    }
    merge_owned(&mut merged, own);
    Ok(merged)
}

/// `over` replaces what it names in `base`, mapping by mapping, its values moved rather than
/// copied. An error entry (`{error: ...}`) replaces a value whole, and is replaced whole.
pub fn merge_owned(base: &mut Value, over: Value) {
    let is_error = |v: &Value| v.as_mapping().is_some_and(|m| m.contains_key("error"));
    if is_error(base) || is_error(&over) {
        *base = over;
        return;
    }
    match (base, over) {
        (Value::Mapping(b), Value::Mapping(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(existing) => merge_owned(existing, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, o) => *b = o,
    }
}
