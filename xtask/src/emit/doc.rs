//! NVIDIA's Doxygen comments → rustdoc Markdown, and `#[doc]` attributes.
//!
//! The output must never turn into a doctest or a broken intra-doc link: indentation is
//! flattened (an indented line would be a Rust code block), brackets and angle brackets are
//! escaped, and bare URLs are wrapped in `<...>`.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::quote;

/// Converts one Doxygen comment to Markdown.
pub fn to_markdown(doxygen: &str) -> String {
    // An inline command at the end of a line takes its argument from the next line.
    let mut joined = String::with_capacity(doxygen.len());
    let mut lines = doxygen.lines().peekable();
    while let Some(line) = lines.next() {
        let l = line.trim_end();
        joined.push_str(l);
        let dangling = ["\\ref", "@ref", "\\p", "\\a", "\\c"]
            .iter()
            .any(|c| l.strip_suffix(c).is_some_and(|before| before.is_empty() || before.ends_with(' ')));
        if dangling && lines.peek().is_some_and(|n| !n.trim().is_empty()) {
            joined.push(' ');
            let next = lines.next().unwrap_or_default();
            joined.push_str(next.trim_start());
        }
        joined.push('\n');
    }
    let mut out: Vec<String> = Vec::new();
    // The indentation of the list item above, up to a blank line: a plain line continues that
    // item and is indented under it (Markdown would otherwise join it lazily).
    let mut list_indent: Option<usize> = None;
    // A `\code` block: a fenced C block, its lines as written less their common indentation.
    let mut code: Option<Vec<&str>> = None;
    for raw in joined.lines() {
        let line = raw.trim();
        if let Some(block) = &mut code {
            if ["\\endcode", "@endcode"].contains(&line) {
                let indent =
                    block.iter().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min();
                out.push("```c".into());
                out.extend(block.iter().map(|l| l.get(indent.unwrap_or(0)..).unwrap_or("").trim_end().to_string()));
                out.push("```".into());
                code = None;
            } else {
                block.push(raw);
            }
            continue;
        }
        if ["\\code", "@code"].contains(&line) {
            if out.last().is_some_and(|l| !l.is_empty()) {
                out.push(String::new());
            }
            code = Some(Vec::new());
            list_indent = None;
            continue;
        }
        if line.is_empty() {
            if out.last().is_some_and(|l| !l.is_empty()) {
                out.push(String::new());
            }
            list_indent = None;
            continue;
        }
        let Some((line, kind)) = convert_line(line) else { continue };
        if kind == Kind::Block && out.last().is_some_and(|l| !l.is_empty()) {
            out.push(String::new());
            list_indent = None;
        }
        let line = match (kind, item_indent(&line), list_indent) {
            (Kind::Text, Some(indent), _) => {
                list_indent = Some(indent);
                line
            }
            (Kind::Text, None, Some(indent)) => format!("{:indent$}{line}", ""),
            _ => line,
        };
        out.push(line);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// What a converted line is to the lines around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A block command (`@return`, `@note`, ...): a paragraph of its own.
    Block,
    /// Anything else: a line of text, or a list item (`@param`, or one written in Markdown).
    Text,
}

/// Where the text of a list item starts when Markdown reads `line` as one (`- x`, `1. x`):
/// the indentation its continuation lines need.
fn item_indent(line: &str) -> Option<usize> {
    if line.starts_with("- ") || line.starts_with("* ") || line.starts_with("+ ") {
        return Some(2);
    }
    let digits = line.find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
    (digits > 0 && digits < 10 && line[digits..].starts_with(". ")).then_some(digits + 2)
}

/// The Markdown of a function's comment without its `@param` and `@return` blocks, for a
/// method that documents its own arguments and errors. A block runs to a blank line or to
/// the next block command.
pub fn description(doxygen: &str) -> String {
    let mut kept = Vec::new();
    let mut skipping = false;
    for line in doxygen.lines() {
        let t = line.trim();
        let command = t.strip_prefix('@').or_else(|| t.strip_prefix('\\')).map(|c| {
            let end = c.find(|ch: char| !ch.is_ascii_alphabetic()).unwrap_or(c.len());
            &c[..end]
        });
        // A bare `return` line is a `@return` whose `@` the header forgot.
        let command = if t == "return" || t == "returns" { Some("return") } else { command };
        match command {
            Some("param" | "return" | "returns" | "retval") => skipping = true,
            Some(c) if !c.is_empty() && !["ref", "a", "p", "c", "b", "e"].contains(&c) => skipping = false,
            _ if t.is_empty() => skipping = false,
            _ => {}
        }
        if !skipping {
            kept.push(line);
        }
    }
    to_markdown(&kept.join("\n"))
}

/// One line of text (a parameter's or a return code's description) as Markdown on one line.
pub fn inline_text(text: &str) -> String {
    to_markdown(text).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One line, with block commands turned into Markdown; `None` drops the line.
fn convert_line(line: &str) -> Option<(String, Kind)> {
    if ["@{", "@}", "\\{", "\\}"].contains(&line) {
        return None;
    }
    let (cmd, rest) = match line.strip_prefix('@').or_else(|| line.strip_prefix('\\')) {
        Some(after) => {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '[' || c == ']' || c == ','))
                .unwrap_or(after.len());
            (Some(&after[..end]), after[end..].trim_start())
        }
        None => (None, line),
    };
    // A placeholder NVIDIA's tooling did not expand (`%RUBIN_OR_NEWER%`), written as the
    // header writes the expanded ones ("For Ampere &tm; or newer fully supported devices.").
    if let Some(arch) = line.strip_prefix('%').and_then(|l| l.strip_suffix("_OR_NEWER%")) {
        let mut name = arch.to_ascii_lowercase();
        if let Some(first) = name.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        return Some((format!("For {name} ™ or newer fully supported devices."), Kind::Text));
    }
    let (text, kind) = match cmd {
        Some(c) if c.starts_with("defgroup") || c.starts_with("ingroup") || c.starts_with("addtogroup") => return None,
        Some("brief" | "details") => (inline(rest), Kind::Text),
        Some(c) if c.starts_with("param") => {
            let dir = c.strip_prefix("param").unwrap_or("").trim_matches(|ch| ch == '[' || ch == ']');
            let (name, desc) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            let dir = if dir.is_empty() { String::new() } else { format!(" ({dir})") };
            (format!("* `{name}`{dir}: {}", inline(desc.trim_start())), Kind::Text)
        }
        Some("return" | "returns" | "retval") => {
            (format!("**Returns:** {}", inline(rest)).trim_end().to_string(), Kind::Block)
        }
        Some("note") => (format!("**Note:** {}", inline(rest)), Kind::Block),
        Some("deprecated") => (format!("**Deprecated:** {}", inline(rest)), Kind::Block),
        Some("see" | "sa") => (format!("See also: {}", inline(rest)), Kind::Block),
        Some("warning") => (format!("**Warning:** {}", inline(rest)), Kind::Block),
        _ => (inline(line), Kind::Text),
    };
    // Markdown would read a leading `#` as a heading and `1)` patterns are harmless.
    let text = match text.strip_prefix('#') {
        Some(r) => format!("\\#{r}"),
        None => text,
    };
    Some((text, kind))
}

/// Inline commands (`\ref x`, `\p x`, ...) and escaping.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut words = text.split(' ').peekable();
    let mut first = true;
    while let Some(w) = words.next() {
        if !first {
            out.push(' ');
        }
        first = false;
        let code_cmd = ["\\ref", "@ref", "\\p", "@p", "\\a", "@a", "\\c", "@c", "\\b", "@b", "\\e", "@e"];
        // A command may follow an opening bracket or quote: "(\ref nvmlCPERCursor_v1_t)".
        let opened = w.trim_start_matches(['(', '"']);
        if opened.len() < w.len() && code_cmd.contains(&opened) {
            out.push_str(&w[..w.len() - opened.len()]);
        }
        if code_cmd.contains(&opened) {
            // Skip runs of spaces between the command and its argument.
            while words.peek() == Some(&"") {
                words.next();
            }
            if let Some(arg) = words.next() {
                let end = arg.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':')).unwrap_or(arg.len());
                let (ident, tail) = arg.split_at(end);
                let ident = ident.rsplit("::").next().unwrap_or(ident);
                if ident.is_empty() {
                    out.push_str(&escape(tail));
                } else {
                    out.push('`');
                    out.push_str(ident);
                    out.push('`');
                    out.push_str(&escape(tail));
                }
            }
            continue;
        }
        out.push_str(&escape(w));
    }
    out
}

fn escape(word: &str) -> String {
    // Most words hold nothing to rewrite.
    if !word.bytes().any(|c| matches!(c, b'&' | b':' | b'[' | b']' | b'<' | b'>' | b'`' | b'\\')) {
        return word.to_string();
    }
    // HTML entities of the header, as the characters they stand for.
    // (`&tm` alone: the header's "Blackwell &tm GB20x;" misspells it.)
    let word = if word == "&tm" { "™".to_string() } else { word.replace("&tm;", "™") };
    let word = word.replace("&reg;", "®").replace("&amp;", "&");
    if let Some(pos) = word.find("http://").or_else(|| word.find("https://")) {
        let (before, rest) = word.split_at(pos);
        let end = rest.find([')', ',', '"']).unwrap_or(rest.len());
        let url = rest[..end].trim_end_matches('.');
        return format!("{}<{url}>{}", escape(before), escape(&rest[url.len()..]));
    }
    let mut s = String::with_capacity(word.len());
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '[' => s.push_str("\\["),
            ']' => s.push_str("\\]"),
            '<' => s.push_str("\\<"),
            '>' => s.push_str("\\>"),
            '`' => s.push_str("\\`"),
            '\\' => match chars.peek().copied() {
                Some(n @ ('%' | '\\' | '&' | '#' | '"' | '@' | '$')) => {
                    chars.next();
                    s.push(n);
                }
                _ => s.push_str("\\\\"),
            },
            _ => s.push(c),
        }
    }
    s
}

/// `#[doc = "..."]` attributes, one per line, for an optional Doxygen comment.
pub fn attrs(doxygen: Option<&str>) -> TokenStream {
    match doxygen {
        Some(d) => lines(&to_markdown(d)),
        None => TokenStream::new(),
    }
}

/// `#[doc]` attributes for Markdown that is already written.
pub fn lines(markdown: &str) -> TokenStream {
    let attrs = markdown.lines().map(|l| {
        let l = format!(" {l}");
        quote!(#[doc = #l])
    });
    quote!(#(#attrs)*)
}

/// `text` with each name in it (an identifier, or one in backticks) rewritten by `f`, called
/// with the text written so far, the name, whether it is in backticks and the text after it:
/// `Some((replacement, n))` puts the replacement for the name (and its opening backtick) and
/// skips `n` bytes after it; `None` keeps the name, and code in backticks that is more than a
/// name (`nvmlFoo(x)`, `a = b`) stays code, whole.
pub fn rewrite_names(text: &str, mut f: impl FnMut(&str, &str, bool, &str) -> Option<(String, usize)>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '`') {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let ticked = rest.starts_with('`');
        let body = if ticked { &rest[1..] } else { rest };
        let end = body.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(body.len());
        let word = &body[..end];
        match (!word.is_empty()).then(|| f(&out, word, ticked, &body[end..])).flatten() {
            Some((replacement, skip)) => {
                out.push_str(&replacement);
                rest = body[end..].get(skip..).unwrap_or("");
            }
            None if ticked => {
                let len = body.find('`').map_or(0, |close| close + 1);
                out.push('`');
                out.push_str(&body[..len]);
                rest = &body[len..];
            }
            None if end == 0 => {
                out.push_str(&rest[..1]);
                rest = &rest[1..];
            }
            None => {
                out.push_str(word);
                rest = &body[end..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Phrases of a description about a buffer the Rust method owns (it sizes and allocates it):
/// a sentence with one of them goes.
const OWNED_BUFFER: &[&str] = &[
    "caller-supplied buffer",
    "Caller-supplied buffer",
    "caller supplied",
    "Caller supplied",
    "supplied buffer",
    "provided length",
    "provided buffer",
    "passes in buffer",
];

/// A method's description (Markdown) in Rust terms: each C name of `names`, written as code
/// or, when it is camelCase, as a word, becomes its Rust text (`Some`: an argument's name, a
/// field's), and a sentence that names one the method does not take (`None`: an output, a
/// count or a buffer, which the method handles) goes, as do sentences about a buffer the
/// method owns and the pointers to `EnableState` of values read as `bool` ("See
/// [`EnableState`] for details"), and the `false` or `true` that repeats a `bool`'s range.
/// Code blocks and links stay as they are.
pub fn in_rust_terms(md: &str, names: &RustNames) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut fenced = false;
    for para in md.split("\n\n") {
        if para.trim_start().starts_with("```") || fenced {
            fenced ^= para.matches("```").count() % 2 == 1;
            out.push(para.to_string());
            continue;
        }
        // A list's items (and a heading) are read one line at a time, prose a sentence at a time.
        let listed = para.lines().any(|l| {
            let t = l.trim_start();
            t.starts_with("- ") || t.starts_with("* ") || t.starts_with('#')
        });
        let pieces: Vec<String> = if listed {
            para.lines().map(|l| format!("{l}\n")).collect()
        } else {
            sentences(para, b".").into_iter().map(String::from).collect()
        };
        let kept: String = pieces.iter().filter_map(|piece| sentence_in_rust_terms(piece, names)).collect();
        let kept = kept.trim_end();
        if kept.is_empty() || kept == "**Note:**" {
            continue;
        }
        out.push(kept.to_string());
    }
    out.join("\n\n")
}

/// One sentence (or list item) of [`in_rust_terms`]: `None` when it goes.
fn sentence_in_rust_terms(s: &str, names: &RustNames) -> Option<String> {
    if OWNED_BUFFER.iter().any(|b| s.contains(b)) || s.trim_start().starts_with("See [`EnableState`]") {
        return None;
    }
    let mut dropped = false;
    let mut out = rewrite_names(s, |out, word, ticked, after| {
        let closes = !ticked || after.starts_with('`');
        // A name inside a link (`[`Device::name`]`) stays.
        if out.ends_with('[') || out.ends_with("[`") {
            return None;
        }
        // camelCase: `sessionCount`, not `vGPU` or `infoROM` (words), nor NVML's or CUDA's
        // functions (`nvmlDeviceGetCount`, which the links name, `cuDeviceGetAttribute`).
        let camel = word.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && word
                .find(|c: char| c.is_ascii_uppercase())
                .is_some_and(|i| word[i..].chars().any(|c| c.is_ascii_lowercase()))
            && !word.starts_with("nvml")
            && !word.starts_with("cu");
        // A camelCase name the header's prose spells otherwise than its prototype
        // (`vgpuInstanceSampleCount` for `vgpuInstanceSamplesCount`) is that name; any other
        // camelCase name of the header's (a parameter of another function, a table's column)
        // reads as a Rust name.
        let spelled = camel.then(|| names.loosely(word)).flatten();
        let fallback = (camel && closes)
            .then(|| spelled.unwrap_or_else(|| Some(format!("`{}`", crate::rules::names::snake(word)))));
        // A name of `names` written as a word: any with a capital after its first letter
        // (`averageFPS`).
        let known =
            word.chars().next().is_some_and(|c| c.is_ascii_lowercase()) && word.chars().any(|c| c.is_ascii_uppercase());
        match names.get(word).or(fallback).filter(|_| closes && (ticked || camel || known))? {
            None => {
                dropped = true;
                None
            }
            Some(rust) => Some((rust, usize::from(ticked))),
        }
    });
    if dropped {
        return None;
    }
    // Each rewrite copies the text only where it applies.
    let mut replace = |from: &str, to: &str| {
        if out.contains(from) {
            out = out.replace(from, to);
        }
    };
    // An empty link target, which a call's parentheses left (`[`Device::name`]()`), goes.
    replace("`]()", "`]");
    // What the header calls a buffer is the handle of the sample the method fills.
    replace("Buffer to read samples into", "The sample the library fills");
    if out.contains("`false` or `true`") {
        for range in
            [", either `false` or `true`", " either `false` or `true`", ", `false` or `true`", " `false` or `true`"]
        {
            out = out.replace(range, "");
        }
    }
    Some(out)
}

/// The C names a text uses and their Rust text, for [`in_rust_terms`]: `own`, a method's
/// (`None` for one the method handles), over the names every method's texts share.
#[derive(Debug, Default)]
pub struct RustNames<'s> {
    own: BTreeMap<String, Option<String>>,
    /// The shared names that are not names here.
    hidden: BTreeSet<String>,
    shared: Option<&'s SharedNames>,
    /// Whether the shared names read as words (their Rust text without the backticks).
    shared_as_words: bool,
}

/// The names every method's texts share (record fields, the functions' parameters): their
/// Rust text as code, and each by its loose spelling, made once for all the methods.
#[derive(Debug, Default)]
pub struct SharedNames {
    names: BTreeMap<String, String>,
    /// [`loose`] spelling → the names so spelled, sorted.
    loose: BTreeMap<String, Vec<String>>,
}

/// A name spelled loosely: lower case, without `s` (`vgpuInstanceSampleCount` and
/// `vgpuInstanceSamplesCount` are one name).
fn loose(name: &str) -> String {
    name.to_ascii_lowercase().replace('s', "")
}

impl SharedNames {
    /// `names`, each as the code of its snake-case Rust name; the first of equal names counts.
    pub fn new<'n>(names: impl Iterator<Item = &'n String>) -> SharedNames {
        let mut shared = SharedNames::default();
        for n in names {
            if !shared.names.contains_key(n) {
                shared.names.insert(n.clone(), format!("`{}`", crate::rules::names::snake(n)));
            }
        }
        for n in shared.names.keys() {
            shared.loose.entry(loose(n)).or_default().push(n.clone());
        }
        shared
    }
}

impl<'s> RustNames<'s> {
    /// `own` alone.
    pub fn new(own: BTreeMap<String, Option<String>>) -> RustNames<'static> {
        RustNames { own, ..RustNames::default() }
    }

    /// `own` over `shared` (a name of both is `own`'s).
    pub fn over(own: BTreeMap<String, Option<String>>, shared: &'s SharedNames) -> RustNames<'s> {
        RustNames { own, shared: Some(shared), ..RustNames::default() }
    }

    /// The names for prose: those `code` gives a Rust text (a method's arguments) as code, the
    /// others as words, without the ones the method handles.
    pub fn as_words_but(self, code: &BTreeMap<String, Option<String>>) -> RustNames<'s> {
        let mut hidden = self.hidden;
        let mut own = BTreeMap::new();
        for (c, r) in self.own {
            match r {
                Some(r) if code.get(&c).is_some_and(Option::is_some) => drop(own.insert(c, Some(r))),
                Some(r) => drop(own.insert(c, Some(r.trim_matches('`').to_string()))),
                None => drop(hidden.insert(c)),
            }
        }
        RustNames { own, hidden, shared: self.shared, shared_as_words: true }
    }

    /// The Rust text of `name`: `Some(None)` for a name the method handles, `None` for none.
    pub fn get(&self, name: &str) -> Option<Option<String>> {
        if let Some(r) = self.own.get(name) {
            return Some(r.clone());
        }
        if self.hidden.contains(name) {
            return None;
        }
        let r = self.shared?.names.get(name)?;
        Some(Some(if self.shared_as_words { r.trim_matches('`').to_string() } else { r.clone() }))
    }

    /// [`RustNames::get`] of the first name (in order) spelled as `word` is, loosely.
    fn loosely(&self, word: &str) -> Option<Option<String>> {
        let key = loose(word);
        let own = self.own.keys().find(|k| loose(k) == key);
        let shared =
            self.shared.and_then(|s| s.loose.get(&key)).and_then(|ks| ks.iter().find(|k| !self.hidden.contains(*k)));
        let first = match (own, shared) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        self.get(first)
    }
}

/// A paragraph's sentences, each ending at one of `ends` followed by whitespace (or the end),
/// with the space or line break after it (so they concatenate back to the paragraph).
pub fn sentences<'p>(para: &'p str, ends: &[u8]) -> Vec<&'p str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = para.as_bytes();
    for i in 0..bytes.len() {
        if ends.contains(&bytes[i]) && bytes.get(i + 1).is_none_or(|c| c.is_ascii_whitespace()) {
            let end = (i + 2).min(bytes.len());
            out.push(&para[start..end]);
            start = end;
        }
    }
    if start < para.len() {
        out.push(&para[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{description, in_rust_terms, to_markdown, RustNames};

    #[test]
    fn doxygen_to_markdown() {
        let md = to_markdown(
            "Retrieves the name.\n\nSee \\ref\nnvmlConstants::NVML_DEVICE_NAME_V2_BUFFER_SIZE.\n\n@param[out] name   Reference in which to return \\a name\n@return\n        - \\ref NVML_SUCCESS if set\n    indented [1] <x> https://docs.nvidia.com/x.",
        );
        assert_eq!(
            md,
            "Retrieves the name.\n\nSee `NVML_DEVICE_NAME_V2_BUFFER_SIZE`.\n\n* `name` (out): Reference in which to return `name`\n\n**Returns:**\n- `NVML_SUCCESS` if set\n  indented \\[1\\] \\<x\\> <https://docs.nvidia.com/x>."
        );
    }

    #[test]
    fn code_blocks_placeholders_and_entities() {
        let md = to_markdown(
            "For example:\n\\code\n    nvmlX_t x =\n        { .version = 1 };\n\\endcode\n%RUBIN_OR_NEWER%\nA &amp; B &reg; C &tm;",
        );
        assert_eq!(
            md,
            "For example:\n\n```c\nnvmlX_t x =\n    { .version = 1 };\n```\nFor Rubin ™ or newer fully supported devices.\nA & B ® C ™"
        );
    }

    #[test]
    fn a_command_after_an_opening_bracket_is_read() {
        assert_eq!(
            super::inline("the \\a cursor (\\ref nvmlCPERCursor_v1_t) struct"),
            "the `cursor` (`nvmlCPERCursor_v1_t`) struct"
        );
        assert_eq!(super::inline("(\\a x, \\a y)"), "(`x`, `y`)");
    }

    #[test]
    fn groups_and_headings() {
        assert_eq!(to_markdown("@{\n#define X\nTesla &tm; C2070"), "\\#define X\nTesla ™ C2070");
    }

    #[test]
    fn list_items_keep_their_continuation_lines() {
        let md = to_markdown("@param values Array of structures.\nEach fieldId must be set.\n@return\n- a if\nit fails\n- b\n\nModes:\n1. HMM: on\nthe GPU.\n10. None.\n\nAfter.");
        assert_eq!(
            md,
            "* `values`: Array of structures.\n  Each fieldId must be set.\n\n**Returns:**\n- a if\n  it fails\n- b\n\nModes:\n1. HMM: on\n   the GPU.\n10. None.\n\nAfter."
        );
    }

    #[test]
    fn descriptions_leave_out_params_and_returns() {
        let text = "Gets the power.\n\n@param device The device\n       (continued)\n@param[out] power Its power\n\n@return\n  - \\ref NVML_SUCCESS if set\n  - \\ref NVML_ERROR_UNKNOWN otherwise\n@note See \\a power.\n\nMore.";
        assert_eq!(description(text), "Gets the power.\n\n**Note:** See `power`.\n\nMore.");
    }

    #[test]
    fn descriptions_in_rust_terms() {
        let names: std::collections::BTreeMap<String, Option<String>> = [
            ("lastSeenTimeStamp", Some("`last_seen_time_stamp`")),
            ("device", Some("the device")),
            ("sessionCount", None),
            ("timeStamp", Some("`time_stamp`")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.map(String::from)))
        .collect();
        let md = "Gets sessions on a device. The count is passed in `sessionsCount`. A `deviceCount` of nvmlDeviceGetCount. Set lastSeenTimeStamp to a timeStamp of `device`, as [`PciInfo`]::timeStamp from [`Device::name`]() says.\n\nAn array is returned in the caller-supplied buffer.\n\nSee [`EnableState`] for details.\n\nThe current mode, `false` or `true`.\n\n```c\nsessionCount = 0;\n```\n\n- `sessionCount` out\n- kept [`Device::name`]";
        assert_eq!(
            in_rust_terms(md, &RustNames::new(names)),
            "Gets sessions on a device. A `device_count` of nvmlDeviceGetCount. Set `last_seen_time_stamp` to a `time_stamp` of the device, as [`PciInfo`]::`time_stamp` from [`Device::name`] says.\n\nThe current mode.\n\n```c\nsessionCount = 0;\n```\n\n- kept [`Device::name`]"
        );
    }
}
