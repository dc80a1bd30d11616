//! The header's documentation in Rust terms, for the safe crate: a C function, type or
//! constant the text names becomes a link to the Rust item that stands for it, a record field
//! reads as the value it holds (not as a C out-parameter), and an `@return` condition keeps
//! only what a Rust caller can cause or meet (no NULL pointers, no C parameters the method
//! does not take).

use std::collections::BTreeMap;

use super::convert::{enum_constant_names, error_variant};
use super::Names;
use crate::rules::names::{prefixed_name, snake};
use crate::rules::Bindings;

/// The Rust item each C name of the header stands for, as an intra-doc link target.
pub struct Links {
    targets: BTreeMap<String, String>,
}

impl Links {
    /// No links (until the names are known).
    pub fn empty() -> Links {
        Links { targets: BTreeMap::new() }
    }

    pub fn new(b: &Bindings, names: &Names) -> Links {
        let m = &b.model;
        let mut targets = BTreeMap::new();
        for (symbol, method) in &names.methods {
            targets.insert(symbol.clone(), method.clone());
        }
        // The functions wrapped by hand, named as the plan would name their methods (the
        // hand-written files follow it; `cargo doc` fails on a link to a method they lack).
        for symbol in b.manual.keys() {
            let Some(f) = m.functions.get(symbol) else { continue };
            let owner = crate::plan::owner_of(b, f);
            let name = crate::plan::names::method_name(b, &owner, symbol);
            let name = name
                .rsplit_once("_v")
                .filter(|(_, v)| v.chars().all(|c| c.is_ascii_digit()))
                .map_or(name.as_str(), |(n, _)| n)
                .to_string();
            let ty = match &owner {
                crate::plan::Owner::Nvml => "Nvml".to_string(),
                crate::plan::Owner::Handle(h) => b.handle_type(h).unwrap_or(h).to_string(),
            };
            targets.entry(symbol.clone()).or_insert(format!("{ty}::{name}"));
        }
        for r in names.records.iter().chain(m.enums.keys()) {
            targets.insert(r.clone(), names.ty(r).to_string());
        }
        for t in m.typedefs.values() {
            if let crate::model::Ty::Named(n) = m.resolve_typedef(&t.ty) {
                if names.records.contains(n) || m.enums.contains_key(n) {
                    targets.insert(t.name.clone(), names.ty(n).to_string());
                }
            }
        }
        for e in m.enums.values() {
            let cnames: Vec<&str> = e.constants.iter().map(|k| k.name.as_str()).collect();
            let ty = names.ty(&e.name);
            for (k, rust) in cnames.iter().zip(enum_constant_names(b, e)) {
                let target = match error_variant(m, k) {
                    Some(v) => format!("Error::{v}"),
                    None if *k == "NVML_SUCCESS" => continue,
                    None => format!("{ty}::{rust}"),
                };
                targets.insert(k.to_string(), target);
            }
        }
        // The constants of `bitflags` and `values` rules, as the safe type names them.
        for (ty, rule) in &b.bitflags {
            let prefixes = std::iter::once(&rule.prefix).chain(&rule.aliases);
            for p in prefixes {
                // A bit mask's zero is no constant of its type (`bitflags` has `empty()`).
                let named = |c: &crate::model::Constant| match &c.value {
                    crate::model::ConstValue::Int { value, .. } => rule.values || value.as_i128() != 0,
                    _ => false,
                };
                let constants = m.constants.values().filter(|c| named(c)).map(|c| &c.name);
                for c in constants.filter(|c| c.starts_with(p.as_str()) && !rule.exclude.contains(*c)) {
                    let short = prefixed_name(c, p);
                    targets.entry(c.clone()).or_insert(format!("{ty}::{short}"));
                }
            }
        }
        // Any other constant: the raw layer's.
        for c in m.constants.keys() {
            targets.entry(c.clone()).or_insert(format!("sys::{c}"));
        }
        // A function the header's prose names in the singular ("nvmlGpmMetricGet" for
        // nvmlGpmMetricsGet) is that function.
        let singular: Vec<(String, String)> = targets
            .iter()
            .filter(|(k, _)| k.starts_with("nvml"))
            .map(|(k, v)| {
                let mut s = k.clone();
                while let Some(i) = s
                    .char_indices()
                    .find(|(i, c)| *c == 's' && s[i + 1..].starts_with(|u: char| u.is_ascii_uppercase()))
                    .map(|(i, _)| i)
                {
                    s.remove(i);
                }
                (s, v.clone())
            })
            .collect();
        for (k, v) in singular {
            targets.entry(k).or_insert(v);
        }
        Links { targets }
    }

    /// `md` with each C name of the header, written as code or as a word, made a link to the
    /// Rust item that stands for it; names without one are left as they are.
    pub fn apply(&self, md: &str) -> String {
        let mut out = String::with_capacity(md.len());
        let mut fenced = false;
        for (i, line) in md.lines().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            if fenced {
                out.push_str(line);
                continue;
            }
            out.push_str(&self.line(line));
        }
        out
    }

    fn line(&self, line: &str) -> String {
        crate::emit::doc::rewrite_names(line, |out, word, ticked, after| {
            // A call in code, `nvmlDeviceGetCpuAffinity()`, is the function too.
            let call = ticked && after.starts_with("()`");
            let closes = !ticked || call || after.starts_with('`');
            // A name inside a link already, or followed by `*` (a family of constants), stays.
            let inside_link = out.ends_with('[') || out.ends_with("[`");
            if !closes || inside_link || after.starts_with('*') {
                return None;
            }
            let target = self.targets.get(word)?;
            // The call's parentheses would read as an empty link target after the link.
            let skip = if after.starts_with("()") { 2 } else { 0 } + usize::from(ticked);
            Some((format!("[`{target}`]"), skip))
        })
    }
}

/// A record field's (or an output's) description as the value it holds: "Reference to an
/// unsigned int for the fan speed" → "The fan speed"; direction cues (`OUT:`, `[in]`) go.
pub fn as_value(text: &str) -> String {
    let text = without_null_usage(text);
    let mut t = text.trim();
    // Direction cues first: `OUT:`, `IN/OUT -`, `[out]`, `output` alone.
    for cue in ["[in,out]", "[in/out]", "[out]", "[in]", "IN/OUT", "OUT", "IN", "output", "input"] {
        if let Some(rest) = t.strip_prefix(cue) {
            let after = rest.trim_start();
            if rest.is_empty() || after.starts_with([':', '-']) || (rest.starts_with(' ') && cue.starts_with('[')) {
                t = after.trim_start_matches([':', '-', ' ']);
                break;
            }
        }
    }
    let lower = t.to_ascii_lowercase();
    let prefixes = [
        "reference to an unsigned int for ",
        "reference to an unsigned int in which to return ",
        "reference in which to return ",
        "reference to return ",
        "reference for ",
        "reference that is ",
        "reference to ",
        "pointer to ",
        "returns ",
    ];
    let rest = prefixes.iter().find(|p| lower.starts_with(*p)).map(|p| &t[p.len()..]);
    // "Reference to \a unsigned int" names the C type and nothing else: no description.
    if let Some(rest) = rest {
        let words = rest.replace("\\a ", "").replace('`', "").trim().trim_end_matches('.').to_ascii_lowercase();
        if ["unsigned int", "int", "unsigned long long", "unsigned long", "char"].contains(&words.as_str()) {
            return String::new();
        }
    }
    let text = match rest {
        Some(rest) if !rest.trim().is_empty() => rest,
        _ => t,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The text of a yes or no that the method or field reads as `bool`: the header's enabled
/// and disabled constants (links by now) are `true` and `false`, and the pointer to the enum
/// of available modes goes.
pub fn yes_no_as_bool(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut rest = md;
    while let Some(start) = rest.find("[`") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("`]") else { break };
        let target = &after[..end];
        let constant = target.rsplit("::").next().unwrap_or(target);
        let from_header = target.starts_with("EnableState::") || target.starts_with("sys::NVML_");
        let word = |suffixes: &[&str]| from_header && suffixes.iter().any(|s| constant.ends_with(s));
        if word(&["ENABLED", "ENABLE", "_TRUE", "_ON"]) {
            out.push_str("`true`");
        } else if word(&["DISABLED", "DISABLE", "_FALSE", "_OFF"]) {
            out.push_str("`false`");
        } else {
            out.push_str(&rest[start..start + 2 + end + 2]);
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    for sentence in ["See [`EnableState`] for details on available modes.", "See [`EnableState`] for available modes."]
    {
        out = out.replace(&format!("{sentence}\n\n"), "").replace(sentence, "");
    }
    out.replace("[`EnableState`] where ", "")
}

/// How an `@return` condition names a C parameter in Rust: the handle the method is called on
/// ("the device"), an argument (`` `sensor_type` ``); `None` for one the method does not take.
pub struct Params {
    pub rust: BTreeMap<String, Option<String>>,
}

impl Params {
    /// The handle phrase of a safe handle type: `GpuInstance` → "the GPU instance".
    pub fn handle_phrase(ty: &str) -> String {
        let words: Vec<String> = snake(ty)
            .split('_')
            .map(|w| match w {
                "gpu" => "GPU".to_string(),
                "vgpu" => "vGPU".to_string(),
                "gpm" => "GPM".to_string(),
                "id" => String::new(),
                w => w.to_string(),
            })
            .filter(|w| !w.is_empty())
            .collect();
        format!("the {}", words.join(" "))
    }
}

/// An `@return` condition ("if \a device is invalid or \a temp is NULL") in Rust terms ("if
/// the device is invalid"), from the header's raw text; `None` when nothing of it is left for
/// a Rust caller (it only speaks of NULL pointers or of parameters the method does not take).
pub fn condition(raw: &str, params: &Params) -> Option<String> {
    let text = raw.trim().trim_end_matches('.');
    let (lead, body) = match ["if ", "If ", "when ", "When "].iter().find_map(|p| Some((*p, text.strip_prefix(p)?))) {
        Some((p, b)) => (p.trim().to_ascii_lowercase(), b),
        None => (String::new(), text),
    };
    // Segments between commas and `or`/`and`; a segment of subjects alone shares the
    // predicate of the next one ("\a device, \a counter or \a link is invalid").
    let seg_re = regex_split(body);
    struct Group {
        subjects: Vec<String>,
        predicate: String,
        free: bool,
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    for seg in seg_re {
        let (subjects, predicate) = subjects_of(&seg);
        if subjects.is_empty() {
            groups.push(Group {
                subjects: std::mem::take(&mut pending),
                predicate: seg.trim().to_string(),
                free: true,
            });
            continue;
        }
        pending.extend(subjects);
        if !predicate.trim().is_empty() {
            groups.push(Group {
                subjects: std::mem::take(&mut pending),
                predicate: predicate.trim().to_string(),
                free: false,
            });
        }
    }
    if !pending.is_empty() {
        groups.push(Group { subjects: pending, predicate: String::new(), free: false });
    }
    let mut kept = Vec::new();
    for g in groups {
        // A NULL pointer, or a parameter the method does not take, is nothing a caller meets.
        if g.predicate.contains("NULL")
            || !refs_of(&g.predicate).iter().all(|r| params.rust.get(r).is_some_and(Option::is_some))
        {
            continue;
        }
        if g.free && g.subjects.is_empty() {
            kept.push(rename_words(&g.predicate, params));
            continue;
        }
        let names: Vec<String> = g.subjects.iter().filter_map(|s| params.rust.get(s).cloned().flatten()).collect();
        if names.is_empty() {
            continue;
        }
        let mut predicate = rename_words(&g.predicate, params);
        let _ = &g.free;
        if names.len() == 1 {
            for (plural, singular) in
                [("are ", "is "), ("have ", "has "), ("do not ", "does not "), ("don't ", "doesn't ")]
            {
                if let Some(rest) = predicate.strip_prefix(plural) {
                    predicate = format!("{singular}{rest}");
                }
            }
        }
        let subjects = match names.as_slice() {
            [one] => one.clone(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
            [] => String::new(),
        };
        kept.push(format!("{subjects} {predicate}").trim().to_string());
    }
    if kept.is_empty() {
        return None;
    }
    let body = match kept.as_slice() {
        [one] => one.clone(),
        [init @ .., last] => format!("{}, or {last}", init.join(", ")),
        [] => String::new(),
    };
    Some(tidy(&if lead.is_empty() { body } else { format!("{lead} {body}") }))
}

/// A rewritten condition less the doubled words that joining its kept segments can leave: a
/// segment's own `or` after the joining one, `the` before a name that has one ("the \\a device"
/// became "the the device"), and an `or` right after the lead.
fn tidy(text: &str) -> String {
    let mut out = text.to_string();
    for (from, to) in [(", or, or ", ", or "), ("or or ", "or "), ("the the ", "the "), ("The the ", "The ")] {
        while out.contains(from) {
            out = out.replace(from, to);
        }
    }
    for lead in ["if ", "when "] {
        if let Some(rest) = out.strip_prefix(lead).and_then(|r| r.strip_prefix("or ")) {
            out = format!("{lead}{rest}");
        }
    }
    out
}

/// The segments of a condition: split at commas and at ` or ` / ` and ` between clauses.
fn regex_split(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let words: Vec<&str> = body.split(' ').collect();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if (w == "or" || w == "and") && !cur.trim().is_empty() {
            out.push(std::mem::take(&mut cur));
            i += 1;
            continue;
        }
        if let Some(head) = w.strip_suffix(',') {
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(head);
            out.push(std::mem::take(&mut cur));
            i += 1;
            continue;
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(w);
        i += 1;
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out.into_iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
}

/// The parameter a `\a name` (or `\p`, `\c`) reference at the start of `text` names, with a
/// record field after `->` (`params->index`), and the text after it.
fn reference(text: &str) -> Option<(String, &str)> {
    let after = ["\\a ", "\\p ", "\\c "].iter().find_map(|p| text.strip_prefix(p))?.trim_start();
    let ident = |t: &str| t.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(t.len());
    let mut end = ident(after);
    if let Some(field) = after[end..].strip_prefix("->") {
        end += 2 + ident(field);
    }
    Some((after[..end].to_string(), &after[end..]))
}

/// Where the next reference starts in `text`.
fn next_reference(text: &str) -> Option<usize> {
    ["\\a ", "\\p ", "\\c "].iter().filter_map(|p| text.find(p)).min()
}

/// The `\a name` subjects a segment starts with, and the rest (its predicate).
fn subjects_of(seg: &str) -> (Vec<String>, String) {
    let mut subjects = Vec::new();
    let mut rest = seg.trim();
    while let Some((name, after)) = reference(rest) {
        subjects.push(name);
        rest = after.trim_start();
        // "\\a device reference" and the like.
        for noun in ["reference", "pointer", "(output refererence)", "(output reference)"] {
            rest = rest.strip_prefix(noun).unwrap_or(rest).trim_start();
        }
    }
    (subjects, rest.to_string())
}

/// The `\a name` (and `\p name`) references of a text.
fn refs_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = next_reference(rest) {
        match reference(&rest[i..]) {
            Some((name, after)) => {
                out.push(name);
                rest = after;
            }
            None => break,
        }
    }
    out
}

/// A predicate as Markdown, its `\a name` references in Rust terms (every one the method
/// takes: see [`condition`]).
fn rename_words(text: &str, params: &Params) -> String {
    // Placeholders through the conversion, which would escape the backticks of the names.
    let mut names = Vec::new();
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = next_reference(rest) {
        out.push_str(&rest[..i]);
        let Some((name, after)) = reference(&rest[i..]) else { break };
        out.push_str(&format!("RUSTNAME{}X", names.len()));
        names.push(params.rust.get(&name).cloned().flatten().unwrap_or_else(|| format!("`{name}`")));
        rest = after;
    }
    out.push_str(rest);
    let mut md = crate::emit::doc::inline_text(&out);
    for (i, n) in names.iter().enumerate().rev() {
        md = md.replace(&format!("RUSTNAME{i}X"), n);
    }
    md
}

/// A function's description less what only a C caller does: the C examples (`\\code`
/// blocks), the notes that the caller must set a record's `version` (the method does), the
/// paragraphs on calling with NULL buffers to learn a size (the method asks for the size
/// itself), and the C string's terminator.
pub fn without_c_usage(md: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut fenced = false;
    for para in md.split("\n\n") {
        let trimmed = para.trim_start();
        if trimmed.starts_with("```c") && trimmed.trim_end().ends_with("```") {
            continue;
        }
        if !fenced && !trimmed.starts_with("```") && para.replace("NULL terminat", "").contains("NULL") {
            continue;
        }
        let para = &without_terminator(para);
        if trimmed.starts_with("```") {
            fenced = !fenced;
        }
        if fenced {
            out.push(para.to_string());
            continue;
        }
        // The sentences that tell the caller to set the record's version, and the "For
        // example:" that introduced the C example after them.
        let mut kept = Vec::new();
        let mut dropped = false;
        for sentence in sentences(para) {
            let lower = sentence.to_ascii_lowercase();
            let version_note =
                lower.contains("version") && (lower.contains("caller must set") || lower.contains("caller should"));
            if version_note || (dropped && lower.trim() == "for example:") {
                dropped = true;
                continue;
            }
            kept.push(sentence);
        }
        let para = kept.concat();
        let para = para.trim_end();
        if para.is_empty() || para.trim() == "**Note:**" {
            continue;
        }
        out.push(para.to_string());
    }
    out.join("\n\n")
}

/// A text less the parentheses that count a C string's terminator ("(including the NULL
/// terminator)", "(& NULL terminator)"): a Rust `String` has none.
pub fn without_terminator(text: &str) -> String {
    let mut out = text.to_string();
    while let Some(t) = out.find("NULL terminat") {
        let (Some(open), Some(close)) = (out[..t].rfind('('), out[t..].find(')').map(|c| t + c)) else { break };
        if out[open..t].contains(')') {
            break;
        }
        let start = out[..open].trim_end().len();
        out.replace_range(start..=close, "");
    }
    out
}

/// A parameter's or field's text less its C usage: the sentences on passing NULL (the method
/// handles the buffer itself) and the C string's terminator ("Can be NULL to discover number of
/// allowed placements").
pub fn without_null_usage(text: &str) -> String {
    let text = without_terminator(text);
    let kept: String = sentences(&text)
        .into_iter()
        .filter(|s| !s.replace("NULL-terminated", "").replace("NULL terminated", "").contains("NULL"))
        .collect();
    kept.trim_end().to_string()
}

/// A paragraph's sentences (ending at `.` or `:`), each with the space or line break after it.
fn sentences(para: &str) -> Vec<&str> {
    crate::emit::doc::sentences(para, b".:")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        let mut rust = BTreeMap::new();
        rust.insert("device".to_string(), Some("the device".to_string()));
        rust.insert("sensorType".to_string(), Some("`sensor_type`".to_string()));
        rust.insert("temp".to_string(), None);
        rust.insert("count".to_string(), None);
        Params { rust }
    }

    #[test]
    fn conditions_keep_what_a_rust_caller_meets() {
        let p = params();
        assert_eq!(
            condition("if \\a device is invalid or \\a temp is NULL", &p).as_deref(),
            Some("if the device is invalid")
        );
        assert_eq!(
            condition("If \\a device, \\a sensorType or \\a temp are invalid", &p).as_deref(),
            Some("if the device or `sensor_type` are invalid")
        );
        assert_eq!(
            condition("If \\a device or \\a count are invalid", &p).as_deref(),
            Some("if the device is invalid")
        );
        assert_eq!(condition("if \\a temp is NULL", &p), None);
        assert_eq!(condition("if \\a count is too small", &p), None);
        assert_eq!(
            condition("if the library has not been successfully initialized", &p).as_deref(),
            Some("if the library has not been successfully initialized")
        );
        assert_eq!(condition("on any unexpected error", &p).as_deref(), Some("on any unexpected error"));
        assert_eq!(
            condition("if the \\a device is in use, or or \\a sensorType is invalid", &p).as_deref(),
            Some("if the device is in use, or `sensor_type` is invalid")
        );
        assert_eq!(condition("if or \\a device is invalid", &p).as_deref(), Some("if the device is invalid"));
    }

    #[test]
    fn a_call_becomes_a_link_without_its_parentheses() {
        let mut targets = BTreeMap::new();
        targets.insert("nvmlDeviceGetCpuAffinity".to_string(), "Device::cpu_affinity".to_string());
        let links = Links { targets };
        assert_eq!(
            links.apply("given in nvmlDeviceGetCpuAffinity().  See also nvmlDeviceGetCpuAffinity"),
            "given in [`Device::cpu_affinity`].  See also [`Device::cpu_affinity`]"
        );
        assert_eq!(
            links.apply("`nvmlDeviceGetCpuAffinity()` and `nvmlDeviceGetCpuAffinity`"),
            "[`Device::cpu_affinity`] and [`Device::cpu_affinity`]"
        );
        assert_eq!(
            links.apply("`nvmlDeviceGetCpuAffinity(x)`"),
            "`nvmlDeviceGetCpuAffinity(x)`",
            "a call with arguments stays code"
        );
    }

    #[test]
    fn fields_read_as_values() {
        assert_eq!(as_value("Reference to an unsigned int for the fan speed"), "The fan speed");
        assert_eq!(as_value("OUT: the fan speed in RPM"), "The fan speed in RPM");
        assert_eq!(as_value("[out] In-band enable requested"), "In-band enable requested");
        assert_eq!(as_value("IN/OUT - DRAM Encryption state"), "DRAM Encryption state");
        assert_eq!(as_value("Process ID"), "Process ID");
        assert_eq!(as_value("Reference to \\a unsigned int"), "", "a C type alone describes nothing");
        assert_eq!(as_value("Reference in which to return the current ECC mode"), "The current ECC mode");
    }

    #[test]
    fn c_usage_and_terminators_leave_the_description() {
        let md = "Gets the serial.\n\nAt most 30 characters (including the NULL terminator).\n\nTo size the buffer, call with `infos` set to NULL.\nThen call again.\n\nThe end.";
        assert_eq!(without_c_usage(md), "Gets the serial.\n\nAt most 30 characters.\n\nThe end.");
        assert_eq!(without_terminator("PCI identifier (& NULL terminator)"), "PCI identifier");
        assert_eq!(
            without_null_usage("Returns placements. Can be NULL to count them. If non-NULL must be large enough."),
            "Returns placements."
        );
        assert_eq!(
            without_null_usage("Not guaranteed to be NULL-terminated."),
            "Not guaranteed to be NULL-terminated."
        );
        assert_eq!(without_terminator("NULL terminated"), "NULL terminated", "no parenthesis: left as is");
        assert_eq!(without_terminator("in length\n(including the NULL terminator).  See"), "in length.  See");
    }
}
