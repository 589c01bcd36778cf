//! Text from the input inside Markdown (`report -o markdown`, `diff -o
//! markdown`): a name is the input's, so nothing in it may end its heading or
//! table row, open a code span, a link, an HTML block or a comment, and hide
//! what follows from the reviewer.

use std::fmt::Write;

/// `s` as plain inline Markdown: the characters that open inline syntax or
/// split a table cell backslash-escaped (CommonMark's escapes), and what a
/// reader would not see as itself (`table::hidden`: control characters, a
/// line break among them, bidirectional overrides, zero-width characters)
/// written as `\u{…}`.
pub(crate) fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '&' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c if super::table::hidden(c) => {
                let _ = write!(out, "{}", c.escape_unicode());
            }
            c => out.push(c),
        }
    }
    out
}

/// `s` as a code span: delimited by one backtick more than its longest run of
/// them (padded when it starts or ends with one), `|` escaped as GFM tables
/// require even inside code, what a reader would not see as itself written
/// as `\u{…}`.
pub(crate) fn code(s: &str) -> String {
    let mut body = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '|' => body.push_str("\\|"),
            c if super::table::hidden(c) => {
                let _ = write!(body, "{}", c.escape_unicode());
            }
            c => body.push(c),
        }
    }
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if body.starts_with('`') || body.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{body}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_stay_inside_their_heading_cell_or_code_span() {
        assert_eq!(text("a\n<!--"), "a\\u{a}\\<\\!--");
        assert_eq!(text("team-a-devs"), "team-a-devs");
        assert_eq!(text("x|y`z"), "x\\|y\\`z");
        assert_eq!(code("pods"), "`pods`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
        assert_eq!(code("a|b\nc"), "`a\\|b\\u{a}c`");
        // A right-to-left override would reorder what the reviewer reads.
        assert_eq!(code("kube\u{202e}neerg"), "`kube\\u{202e}neerg`");
        assert_eq!(text("a\u{200b}b"), "a\\u{200b}b");
    }
}
