//! Doc comments: comment markers stripped, Doxygen markup kept (the emitters turn that into
//! Markdown). Clang attaches comments to declarations; macros need a look at the source.

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
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
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
    for marker in ["//!<", "///<", "/**<", "/*!<"] {
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
    fn macro_docs_from_source() {
        let src = ["/**", " * Buffer size", " */", "#define A 16", "#define B 2 //!< Two", "#define C 3"];
        assert_eq!(macro_doc(&src, 4).as_deref(), Some("Buffer size"));
        assert_eq!(macro_doc(&src, 5).as_deref(), Some("Two"));
        assert_eq!(macro_doc(&src, 6), None);
    }
}
