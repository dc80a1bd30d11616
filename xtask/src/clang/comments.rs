//! Doc comments: comment markers stripped, Doxygen markup kept (the emitters turn that into
//! Markdown). Clang attaches comments to declarations; macros need a look at the source.

use std::collections::BTreeMap;

use crate::model::Group;

/// Strips `/** */`, `//!<`, `///` and friends from a raw comment and removes the common
/// indentation. Returns `None` for a comment with no text.
pub fn clean(raw: &str) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    for line in raw.lines() {
        let mut l = line.trim_end();
        let trimmed = l.trim_start();
        // Decorative rules such as `/*****/` or ` ***********`.
        if !trimmed.is_empty() && trimmed.chars().all(|c| matches!(c, '*' | '/' | '-' | '=')) && trimmed.len() > 2 {
            lines.push(String::new());
            continue;
        }
        for prefix in ["/**<", "/*!<", "//!<", "///<", "/**", "/*!", "///", "//!", "/*", "//"] {
            if let Some(rest) = trimmed.strip_prefix(prefix) {
                l = rest;
                break;
            }
        }
        let mut s = l.strip_suffix("*/").unwrap_or(l).trim_end();
        // Block-comment continuation lines: ` * text`.
        if let Some(rest) = s.trim_start().strip_prefix('*') {
            if !rest.starts_with('/') {
                s = rest;
            }
        }
        lines.push(s.to_string());
    }
    let indent =
        lines.iter().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    let lines: Vec<String> =
        lines.iter().map(|l| if l.trim().is_empty() { String::new() } else { l[indent..].to_string() }).collect();
    let text = lines.join("\n");
    let text = text.trim_matches('\n');
    (!text.trim().is_empty()).then(|| text.to_string())
}

/// The doc comment of the `#define` on 1-based `line`: a trailing `//!<` on that line, else a
/// `/** ... */` block that ends on the line before.
pub fn macro_doc(source_lines: &[&str], line: u32) -> Option<String> {
    let idx = (line as usize).checked_sub(1)?;
    let text = source_lines.get(idx)?;
    if let Some(doc) = trailing(source_lines, line) {
        return Some(doc);
    }
    for marker in ["/**<", "/*!<"] {
        if let Some(pos) = text.find(marker) {
            return clean(&text[pos..]);
        }
    }
    let prev = idx.checked_sub(1)?;
    if !source_lines.get(prev)?.trim_end().ends_with("*/") {
        return None;
    }
    let start = (0..=prev).rev().find(|&i| source_lines[i].contains("/*"))?;
    let block = source_lines[start..=prev].join("\n");
    let block = &block[block.find("/*")?..];
    if !(block.starts_with("/**") || block.starts_with("/*!")) {
        return None;
    }
    clean(block)
}

/// The comment a file opens with, cleaned, when it is a copyright notice.
pub fn leading_notice(source: &str) -> Option<String> {
    let start = source.trim_start();
    if !start.starts_with("/*") {
        return None;
    }
    let end = start.find("*/")? + 2;
    clean(&start[..end]).filter(|t| t.contains("Copyright"))
}

/// Whether a cleaned comment is only Doxygen grouping (`@}`, `@{`, `@name ...`), which says
/// nothing about the declaration it sits on.
pub fn is_grouping(doc: &str) -> bool {
    doc.lines().all(|l| {
        let t = l.trim();
        t.is_empty()
            || t == "@}"
            || t == "@{"
            || t.starts_with("@name")
            || t.starts_with("@addtogroup")
            || t.starts_with("@defgroup")
    })
}

/// The `/** ... */` block above the declaration on 1-based `line`, past blank lines and
/// one-line grouping comments (`/** @} */`), which clang attaches instead when one sits in
/// between.
pub fn block_above(source_lines: &[&str], line: u32) -> Option<String> {
    let mut idx = (line as usize).checked_sub(1)?;
    loop {
        idx = idx.checked_sub(1)?;
        let t = source_lines.get(idx)?.trim();
        let one_line_group = t.starts_with("/**") && t.ends_with("*/") && clean(t).as_deref().is_none_or(is_grouping);
        if t.is_empty() || one_line_group {
            continue;
        }
        if !t.ends_with("*/") {
            return None;
        }
        break;
    }
    let start = (0..=idx).rev().find(|&i| source_lines[i].contains("/*"))?;
    let block = source_lines[start..=idx].join("\n");
    let block = &block[block.find("/*")?..];
    if !(block.starts_with("/**") || block.starts_with("/*!")) {
        return None;
    }
    clean(block).filter(|d| !is_grouping(d))
}

/// The trailing comment of the declaration on 1-based `line` (`int x; //!< text`) together
/// with the comment-only lines below it whose `//` starts in the same column (`//!<`, `//!`
/// or a plain `//` continuation, which clang does not attach). `None` when the line has no
/// trailing doc comment.
pub fn trailing(source_lines: &[&str], line: u32) -> Option<String> {
    let idx = (line as usize).checked_sub(1)?;
    let first = source_lines.get(idx)?;
    let Some(col) = first.find("//!<").or_else(|| first.find("///<")) else {
        // A plain `/* ... */` after the code on one line (older headers' GPM records).
        let col = first.find("/*")?;
        let end = first[col..].find("*/")? + col;
        let text = first[col + 2..end].trim_start_matches(['*', '!', '<']).trim();
        return (!first[..col].trim().is_empty() && !text.is_empty()).then(|| text.to_string());
    };
    if first[..col].trim().is_empty() {
        return None;
    }
    let mut parts = vec![first[col..].to_string()];
    for next in &source_lines[idx + 1..] {
        let body = next.trim_start();
        if next.len() - body.len() != col
            || !body.starts_with("//")
            || body.starts_with("///") && !body.starts_with("///<")
        {
            break;
        }
        parts.push(body.to_string());
    }
    // Each line cleaned on its own: continuation lines carry their own indentation.
    let text: Vec<String> = parts.iter().filter_map(|p| clean(p)).map(|t| t.trim().to_string()).collect();
    (!text.is_empty()).then(|| text.join("\n"))
}

/// The Doxygen commands that open a group.
const GROUP_COMMANDS: [&str; 4] = ["@defgroup", "\\defgroup", "@addtogroup", "\\addtogroup"];

/// The Doxygen groups of a header, from its text (clang keeps no trace of them): each
/// `@defgroup name Title` or `@addtogroup name` opens a span at the `@{` that follows it,
/// and the matching `@}` closes it. A `@}` with no group open is ignored.
pub fn groups(source: &str) -> Vec<Group> {
    let mut titles: BTreeMap<String, String> = BTreeMap::new();
    let mut out: Vec<Group> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut pending: Option<String> = None;
    for (i, line) in source.lines().enumerate() {
        let n = i as u32 + 1;
        // Every command below names a group: most lines name none.
        let commands = if line.contains("group") { &GROUP_COMMANDS[..] } else { &[] };
        for cmd in commands.iter().copied() {
            if let Some(rest) = line.split_once(cmd).map(|(_, r)| r.trim()) {
                let (name, title) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                let name = name.trim_end_matches("*/").trim();
                // `/** @} */ // @defgroup x` closes x; it opens nothing.
                if name.is_empty() || line.contains("@}") {
                    continue;
                }
                let title = title.trim().trim_end_matches("*/").trim();
                if cmd.ends_with("defgroup") && !title.is_empty() {
                    titles.insert(name.to_string(), title.to_string());
                }
                pending = Some(name.to_string());
            }
        }
        let braces = line.contains('@');
        if braces && line.contains("@{") {
            if let Some(name) = pending.take() {
                open.push(out.len());
                out.push(Group { title: String::new(), name, first_line: n, last_line: n });
            }
        } else if braces && line.contains("@}") {
            if let Some(g) = open.pop() {
                out[g].last_line = n;
            }
        }
    }
    for g in &mut out {
        g.title = titles.get(&g.name).cloned().unwrap_or_else(|| g.name.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_comment_is_dedented() {
        let raw = "/**\n * Retrieves the name.\n *\n * @param device   The device\n *   - nested\n */";
        assert_eq!(clean(raw).as_deref(), Some("Retrieves the name.\n\n@param device   The device\n  - nested"));
    }

    #[test]
    fn trailing_comments() {
        assert_eq!(clean("//!< The bus id").as_deref(), Some("The bus id"));
        assert_eq!(clean("/**< x */").as_deref(), Some("x"));
        assert_eq!(clean("//!<").as_deref(), None);
    }

    #[test]
    fn trailing_comments_keep_plain_continuation_lines() {
        let src = [
            "struct s {",
            "    unsigned int gpuInstanceId;  //!< If MIG is enabled, stores a valid id. It is set to",
            "                                 //  0xFFFFFFFF otherwise.",
            "    // A comment about the next field, in another column.",
            "    unsigned int next;           //!< Next",
            "};",
        ];
        assert_eq!(
            trailing(&src, 2).as_deref(),
            Some("If MIG is enabled, stores a valid id. It is set to\n0xFFFFFFFF otherwise.")
        );
        assert_eq!(trailing(&src, 5).as_deref(), Some("Next"));
        assert_eq!(trailing(&src, 1), None);
        assert_eq!(trailing(&src, 3), None);
    }

    #[test]
    fn a_grouping_comment_between_doc_and_declaration_is_skipped() {
        let src = [
            "/**",
            " * Retrieve the common ancestor",
            " * @param pathInfo  The path",
            " */",
            "",
            "/** @} */",
            "nvmlReturn_t f(int *pathInfo);",
        ];
        assert_eq!(block_above(&src, 7).as_deref(), Some("Retrieve the common ancestor\n@param pathInfo  The path"));
        assert!(is_grouping("@}"));
        assert!(!is_grouping("Retrieve"));
    }

    #[test]
    fn macro_docs_from_source() {
        let src = ["/**", " * Buffer size", " */", "#define A 16", "#define B 2 //!< Two", "#define C 3"];
        assert_eq!(macro_doc(&src, 4).as_deref(), Some("Buffer size"));
        assert_eq!(macro_doc(&src, 5).as_deref(), Some("Two"));
        assert_eq!(macro_doc(&src, 6), None);
    }

    #[test]
    fn groups_nest_reopen_and_take_titles() {
        let h = "/** @defgroup nvmlDeviceQueries Device Queries\n *  @{\n */\nA\n/** @defgroup nvmlAffinity CPU Affinity\n *  @{\n */\nB\n/** @} */\n * @} // @defgroup nvmlDeviceQueries Device Queries\n/** @addtogroup nvmlDeviceQueries\n *  @{\n */\nC\n/** @} */\n/** @} */";
        let g = groups(h);
        let spans: Vec<(&str, &str, u32, u32)> =
            g.iter().map(|g| (g.name.as_str(), g.title.as_str(), g.first_line, g.last_line)).collect();
        assert_eq!(
            spans,
            [
                ("nvmlDeviceQueries", "Device Queries", 2, 10),
                ("nvmlAffinity", "CPU Affinity", 6, 9),
                ("nvmlDeviceQueries", "Device Queries", 12, 15),
            ]
        );
    }
}
