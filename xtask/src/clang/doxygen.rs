//! A function's Doxygen comment, parsed once into [`FunctionDoc`]: each `@param` with its
//! direction annotation, wording and unit, and the `@return` list with the parameters each
//! condition names. The plan stage corroborates every reading of a parameter with this.

use crate::model::{DocDirection, FunctionDoc, ParamDoc, ReturnDoc};

/// Block commands: a line starting with one of them ends the section before it. Inline
/// commands (`\a`, `\ref`, `\p`, ...) do not.
const BLOCK: &[&str] = &[
    "param",
    "return",
    "returns",
    "retval",
    "note",
    "deprecated",
    "see",
    "sa",
    "brief",
    "details",
    "warning",
    "remark",
    "remarks",
    "since",
    "todo",
    "code",
    "endcode",
    "par",
    "pre",
    "post",
    "attention",
    "bug",
];

/// Units a parameter's description may name after `in`, as written there.
const UNITS: &[&str] = &[
    "bytes",
    "kib",
    "mib",
    "kb/s",
    "mb/s",
    "mhz",
    "khz",
    "milliwatts",
    "mw",
    "millijoules",
    "mj",
    "microseconds",
    "us",
    "milliseconds",
    "ms",
    "seconds",
    "ns",
    "nanoseconds",
    "mbps",
    "percent",
    "rpm",
    "celsius",
];

enum Section {
    None,
    Param(String),
    Return,
    Deprecated,
}

/// Parses the cleaned comment `doc` (see `comments::clean`).
pub fn parse(doc: &str) -> FunctionDoc {
    let mut out = FunctionDoc::default();
    let mut section = Section::None;
    for line in doc.lines() {
        let t = line.trim();
        if t.is_empty() {
            section = Section::None;
            continue;
        }
        // A `return` list whose `@` the header forgot (nvmlSystemGetConfComputeGpusReadyState).
        if t == "return" || t == "returns" {
            section = Section::Return;
            continue;
        }
        if let Some((command, rest)) = block_command(t) {
            section = match command {
                "param" => start_param(&mut out, rest),
                "return" | "returns" | "retval" => Section::Return,
                "deprecated" => {
                    push_text(out.deprecated.get_or_insert_with(String::new), rest);
                    Section::Deprecated
                }
                _ => Section::None,
            };
            continue;
        }
        match &section {
            Section::Param(name) => {
                if let Some(p) = out.params.get_mut(name) {
                    push_text(&mut p.text, t);
                }
            }
            Section::Return => match t.strip_prefix('-') {
                Some(item) => {
                    if let Some(r) = return_item(item.trim()) {
                        out.returns.push(r);
                    }
                }
                None => {
                    if let Some(r) = out.returns.last_mut() {
                        push_text(&mut r.when, t);
                    }
                }
            },
            Section::Deprecated => push_text(out.deprecated.get_or_insert_with(String::new), t),
            Section::None => {}
        }
    }
    for p in out.params.values_mut() {
        p.unit = unit_of(&p.text);
    }
    for r in &mut out.returns {
        r.params = mentioned(&r.when);
    }
    out.allows_null = null_allowed(doc);
    out
}

/// The parameters named in a sentence that allows them to be NULL, or that describes the size
/// query (`Set to 0 to query the size without allocating an \a addresses buffer`).
fn null_allowed(doc: &str) -> Vec<String> {
    let text = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    for sentence in text.split(". ") {
        let lower = sentence.to_ascii_lowercase();
        let allows = ["allowed to be null", "can be null", "may be null", "set to null", "query the size"]
            .iter()
            .any(|p| lower.contains(p));
        if allows {
            for name in mentioned(sentence) {
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
    }
    out
}

/// `@word rest` or `\word rest` for a block command `word` (a direction annotation such as
/// `@param[in]` stays in `rest`).
fn block_command(t: &str) -> Option<(&str, &str)> {
    let body = t.strip_prefix('@').or_else(|| t.strip_prefix('\\'))?;
    let end = body.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(body.len());
    let word = &body[..end];
    BLOCK.contains(&word).then(|| (word, &body[end..]))
}

/// Starts the section of `@param[dir] name text`.
fn start_param(out: &mut FunctionDoc, rest: &str) -> Section {
    let mut rest = rest.trim_start();
    let mut direction = None;
    if let Some(after) = rest.strip_prefix('[') {
        if let Some(close) = after.find(']') {
            let annot: String =
                after[..close].chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
            direction = match annot.as_str() {
                "in" => Some(DocDirection::In),
                "out" => Some(DocDirection::Out),
                "in,out" | "inout" | "in/out" | "out,in" => Some(DocDirection::InOut),
                _ => None,
            };
            rest = after[close + 1..].trim_start();
        }
    }
    let name_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let name = rest[..name_end].to_string();
    if name.is_empty() {
        return Section::None;
    }
    let mut text = String::new();
    push_text(&mut text, rest[name_end..].trim());
    out.params.entry(name.clone()).or_insert(ParamDoc { direction, text, unit: None });
    Section::Param(name)
}

/// `\ref NVML_ERROR_X if ...` (or without `\ref`).
fn return_item(item: &str) -> Option<ReturnDoc> {
    let item = item.strip_prefix("\\ref").unwrap_or(item).trim_start();
    let end = item.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(item.len());
    let code = &item[..end];
    if !code.starts_with("NVML_") {
        return None;
    }
    Some(ReturnDoc { code: code.to_string(), when: item[end..].trim().to_string(), params: Vec::new() })
}

fn push_text(text: &mut String, line: &str) {
    if line.is_empty() {
        return;
    }
    if !text.is_empty() {
        text.push(' ');
    }
    text.push_str(line);
}

/// The unit after `in` (`in MHz`, `in bytes`), from [`UNITS`].
fn unit_of(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, ',' | '.' | ')' | '(' | ';')).to_ascii_lowercase())
        .collect();
    words.windows(2).find(|w| w[0] == "in" && UNITS.contains(&w[1].as_str())).map(|w| w[1].clone())
}

/// The names a condition refers to with `\a name` (or `\p name`).
fn mentioned(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut words = text.split_whitespace().peekable();
    while let Some(w) = words.next() {
        if w == "\\a" || w == "\\p" {
            if let Some(name) = words.peek() {
                let name: String = name.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !name.is_empty() && !out.contains(&name) {
                    out.push(name);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_returns_and_units() {
        let doc = "Gets the thing.\n\n\
                   @param[in]  device   The device\n\
                   @param pstates       Container to return the list\n                     of states\n\
                   @param size          Size of the supplied \\a pstates array in bytes\n\
                   @param[in,out] info  A record\n\
                   \n\
                   @return\n\
                   \x20       - \\ref NVML_SUCCESS                 if done\n\
                   \x20       - \\ref NVML_ERROR_INVALID_ARGUMENT  if \\a device is invalid or \\a pstates is\n\
                   \x20                                            NULL\n\
                   @see other";
        let d = parse(doc);
        assert_eq!(d.params["device"].direction, Some(DocDirection::In));
        assert_eq!(d.params["pstates"].text, "Container to return the list of states");
        assert_eq!(d.params["size"].unit.as_deref(), Some("bytes"));
        assert_eq!(d.params["info"].direction, Some(DocDirection::InOut));
        assert_eq!(d.returns.len(), 2);
        assert_eq!(d.returns[1].code, "NVML_ERROR_INVALID_ARGUMENT");
        assert_eq!(d.returns[1].when, "if \\a device is invalid or \\a pstates is NULL");
        assert_eq!(d.returns[1].params, ["device", "pstates"]);
        assert!(d.refuses_null("pstates"));
        assert!(!d.refuses_null("size"));
    }

    #[test]
    fn a_sentence_allowing_null_wins_over_the_return_list() {
        let doc = "Gets processes. For this call \\a infos is allowed to be NULL.\n\n\
                   @param infos   The array\n\n@return\n - \\ref NVML_ERROR_INVALID_ARGUMENT if \\a infos is NULL";
        let d = parse(doc);
        assert_eq!(d.allows_null, ["infos"]);
        assert!(!d.refuses_null("infos"));
        let probe = parse("First invoke the function with \\a samples set to NULL.\n\n@return\n - \\ref NVML_ERROR_INVALID_ARGUMENT if a count of 0 is passed with a non-NULL \\a samples");
        assert_eq!(probe.allows_null, ["samples"]);
        let non_null = parse(
            "@return\n - \\ref NVML_ERROR_INVALID_ARGUMENT if a count of 0 is passed with a non-NULL \\a samples",
        );
        assert!(!non_null.refuses_null("samples"), "non-NULL is not NULL");
    }

    #[test]
    fn inline_commands_do_not_end_a_section() {
        let d = parse("@param count  Reference in which to provide the\n\\a infos array size");
        assert_eq!(d.params["count"].text, "Reference in which to provide the \\a infos array size");
    }
}
