//! Rust laid out as text, for big regular files (tables of literals), exactly as prettyplease
//! lays out the same items: no token stream is built, parsed or printed for them.
//!
//! prettyplease breaks a list that does not fit in its margin into a line per element, each
//! with a trailing comma, and keeps one that fits on one line; [`Lay`] does the same.

/// prettyplease's margin: a line it keeps whole is at most this long.
const MARGIN: usize = 89;

use anyhow::{Context, Result};
use proc_macro2::TokenStream;

/// A value of a table: a literal, or a tuple or array of values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lay {
    /// A token as it is written (`12`, `-1`, `"name"`).
    Atom(String),
    /// `(a, b)`.
    Tuple(Vec<Lay>),
    /// `open a, b ]`: `&[` or `[` as `open`.
    List(&'static str, Vec<Lay>),
}

impl Lay {
    /// A string literal, escaped as `quote` writes it.
    pub fn str(s: &str) -> Lay {
        Lay::Atom(proc_macro2::Literal::string(s).to_string())
    }

    /// An integer, negative ones with a minus sign.
    pub fn int(v: impl std::fmt::Display) -> Lay {
        Lay::Atom(v.to_string())
    }

    fn parts(&self) -> (&str, &[Lay], &str) {
        match self {
            Lay::Atom(a) => (a.as_str(), &[], ""),
            Lay::Tuple(items) => ("(", items, ")"),
            Lay::List(open, items) => (open, items, "]"),
        }
    }

    /// The value on one line.
    fn one_line(&self, out: &mut String) {
        let (open, items, close) = self.parts();
        out.push_str(open);
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            item.one_line(out);
        }
        out.push_str(close);
    }

    /// Writes the value starting at column `column` of a line indented by `indent`, `after`
    /// (`,` or `;`) following it: on one line where that fits the margin, else a line per
    /// element. The trailing comma of a list's last element does not count (prettyplease
    /// writes it only once the list is broken), so `counted` says whether `after` does.
    fn write(&self, out: &mut String, indent: usize, column: usize, after: &str, counted: bool) {
        let start = out.len();
        self.one_line(out);
        let width = column + (out.len() - start) + if counted { after.len() } else { 0 };
        if width <= MARGIN || matches!(self, Lay::Atom(_)) {
            out.push_str(after);
            return;
        }
        out.truncate(start);
        let (open, items, close) = self.parts();
        out.push_str(open);
        out.push('\n');
        for (i, item) in items.iter().enumerate() {
            push_indent(out, indent + 4);
            item.write(out, indent + 4, indent + 4, ",", i + 1 < items.len());
            out.push('\n');
        }
        push_indent(out, indent);
        out.push_str(close);
        out.push_str(after);
    }
}

fn push_indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

/// Items laid out one by one: as text where the emitter wrote them and every line is short
/// enough that prettyplease would keep it whole, else by prettyplease from their tokens.
/// prettyplease lays out a file's items each on its own lines, so the two join exactly.
#[derive(Debug, Default)]
pub struct Items {
    pub text: String,
    /// How many items were laid out by prettyplease.
    pub formatted: usize,
}

/// A line at most this long is one prettyplease keeps whole, with room to spare.
const SHORT: usize = MARGIN - 8;

impl Items {
    /// Adds an item: `text` (its lines, each ending in a newline) where it is `Some` and
    /// every line is short, else `tokens()` laid out by prettyplease.
    pub fn push(&mut self, text: Option<String>, tokens: impl FnOnce() -> TokenStream) -> Result<()> {
        match text {
            Some(text) if text.lines().all(|l| l.len() <= SHORT) => self.text.push_str(&text),
            _ => {
                let file: syn::File =
                    syn::parse2(tokens()).context("an emitted item does not parse (a generator bug)")?;
                self.text.push_str(&prettyplease::unparse(&file));
                self.formatted += 1;
            }
        }
        Ok(())
    }
}

/// Writes `/// line` for each line of `doc`, indented by `indent`.
pub fn doc(out: &mut String, indent: usize, doc: &str) {
    for line in doc.lines() {
        push_indent(out, indent);
        out.push_str("///");
        if !line.is_empty() {
            out.push(' ');
            out.push_str(line);
        }
        out.push('\n');
    }
}

/// Writes the item `head = value;` (`head` as `pub const X: T`) at the top level.
pub fn item(out: &mut String, head: &str, value: &Lay) {
    out.push_str(head);
    out.push_str(" = ");
    value.write(out, 0, head.len() + 3, ";", true);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_that_fits_stays_on_one_line_and_one_that_does_not_breaks() {
        let pair = |n: &str| Lay::Tuple(vec![Lay::int(1), Lay::str(n)]);
        let mut out = String::new();
        item(&mut out, "pub const A: &[(i32, &str)]", &Lay::List("&[", vec![pair("a"), pair("b")]));
        assert_eq!(out, "pub const A: &[(i32, &str)] = &[(1, \"a\"), (1, \"b\")];\n");
        let long = "x".repeat(80);
        let mut out = String::new();
        item(&mut out, "pub const B: &[(i32, &str)]", &Lay::List("&[", vec![pair("a"), pair(&long)]));
        let want = format!(
            "pub const B: &[(i32, &str)] = &[\n    (1, \"a\"),\n    (\n        1,\n        \"{long}\",\n    ),\n];\n"
        );
        assert_eq!(out, want);
    }
}
