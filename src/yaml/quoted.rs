//! Quoted scalars continued at their block's indentation, read as
//! Kubernetes reads them.
//!
//! A single- or double-quoted scalar may run over several lines. The YAML
//! specification asks each continuation line to be indented more than the
//! block the scalar sits in, and olm-rbac's parser holds to it; libyaml and
//! its Go port, go-yaml (kubectl, operator-controller, opm), read the lines
//! whatever their indentation. Folding strips a continuation line's leading
//! white space, so the value is the same at any indentation: the readers
//! differ only in whether they read the text at all. Real bundles write it
//! (opendatahub-operator's CRDs continue a single-quoted description at the
//! key's own column), so olm-rbac reads it as they do.
//!
//! How: when the parser refuses a continuation line for its indentation, the
//! scalar holding it is found (from the last event the parser gave, past
//! indicators, comments and properties, to its opening quote, then to its
//! closing one, escapes read), and each of its continuation lines that stands
//! left of the opening quote is padded with spaces to that column, in a copy
//! ([`Padded`]). The copy is read in place of the text, and every offset read
//! from it is taken back to the text ([`Padded::original`]), whose bytes are
//! what olm-rbac writes. Only spaces are inserted, only at the start of lines
//! the parser itself reported inside a quoted scalar, so no line number and no
//! value changes. A line that is a document marker (`---`, `...`) inside the
//! scalar is never padded: go-yaml refuses it too. At most [`MAX_SCALARS`]
//! scalars are padded in one text, each costing a parse, so that a crafted
//! input cannot make reading it quadratic.

use granit_parser::{ErrorKind, Parser, ScanError};

use super::walk::parser_options;

/// The most quoted scalars padded in one text.
pub(super) const MAX_SCALARS: usize = 256;

/// A text with the quoted scalars' under-indented continuation lines padded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Padded {
    /// The padded copy, read in place of the text.
    pub(super) text: String,
    /// Where spaces were inserted: (offset in the original text, how many), ascending.
    inserts: Vec<(usize, usize)>,
}

impl Padded {
    /// The original text's offset for `at`, an offset in the padded copy. An
    /// offset among inserted spaces is the line start they were inserted at.
    pub(super) fn original(&self, at: usize) -> usize {
        let mut shift = 0;
        for &(orig, n) in &self.inserts {
            let padded = orig + shift;
            if at < padded {
                break;
            }
            if at < padded + n {
                return orig;
            }
            shift += n;
        }
        at - shift
    }
}

/// Is `e` the parser's refusal of a quoted scalar's continuation line for its indentation?
pub(super) fn is_under_indented(e: &ScanError) -> bool {
    matches!(e.kind(), ErrorKind::InvalidQuotedScalarIndent)
}

/// `src` with every quoted scalar the parser refuses for the indentation of
/// a continuation line padded (see the module's docs). `None` when nothing
/// was padded, or when a refused scalar cannot be padded safely: the caller
/// then reports the parser's own error.
pub(super) fn padded(src: &str) -> Option<Padded> {
    let mut inserts: Vec<(usize, usize)> = Vec::new();
    let mut current = Padded { text: src.to_string(), inserts: Vec::new() };
    for round in 0..=MAX_SCALARS {
        let Some((last_end, error_at)) = first_refusal(&current.text) else {
            return (!inserts.is_empty()).then_some(current);
        };
        if round == MAX_SCALARS {
            return None;
        }
        for (at, n) in pads(&current.text, last_end, error_at)? {
            let orig = current.original(at);
            match inserts.binary_search_by_key(&orig, |&(o, _)| o) {
                Ok(i) => inserts[i].1 += n,
                Err(i) => inserts.insert(i, (orig, n)),
            }
        }
        current = Padded { text: with_spaces(src, &inserts), inserts: inserts.clone() };
    }
    None
}

/// `src` with `n` spaces inserted at each of `inserts`.
fn with_spaces(src: &str, inserts: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(src.len() + inserts.iter().map(|i| i.1).sum::<usize>());
    let mut from = 0;
    for &(at, n) in inserts {
        out.push_str(&src[from..at]);
        out.extend(std::iter::repeat_n(' ', n));
        from = at;
    }
    out.push_str(&src[from..]);
    out
}

/// Where the parser first refuses a continuation line's indentation: the end
/// of the last event it gave before, and the refused line's first character
/// (byte offsets). `None` when it refuses nothing so, or something else first.
fn first_refusal(text: &str) -> Option<(usize, usize)> {
    let mut last_end = 0;
    for next in Parser::new_from_str_with_options(text, parser_options()) {
        match next {
            Ok((_, span)) => last_end = span.end.byte_offset().unwrap_or(last_end),
            Err(e) if is_under_indented(&e) => return Some((last_end, e.marker().byte_offset()?)),
            Err(_) => return None,
        }
    }
    None
}

/// The spaces to insert (offset, how many) so that every continuation line
/// of the quoted scalar refused at `error_at` stands at its opening quote's
/// column; `None` when that scalar cannot be found exactly, or holds a line
/// go-yaml would refuse.
fn pads(text: &str, last_end: usize, error_at: usize) -> Option<Vec<(usize, usize)>> {
    let bytes = text.as_bytes();
    let open = opening_quote(bytes, last_end, error_at)?;
    let close = closing_quote(bytes, open)?;
    if !(open < error_at && error_at <= close) {
        return None;
    }
    let line_of_open = text[..open].rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_of_open..open].chars().count();
    let mut pads = Vec::new();
    let mut fixes_error_line = false;
    for (i, _) in text[open..close].match_indices('\n') {
        let start = open + i + 1;
        let content = start + bytes[start..].iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
        if matches!(bytes.get(content), None | Some(b'\n' | b'\r')) {
            continue; // an empty line: its white space is not read
        }
        if is_document_marker(&bytes[start..]) {
            return None;
        }
        let at = content - start;
        if at < column {
            pads.push((start, column - at));
            fixes_error_line |= (start..=content).contains(&error_at);
        }
    }
    fixes_error_line.then_some(pads)
}

/// The opening quote of the scalar the parser was reading, from the end of
/// the last event it gave: past white space, comments, the indicators `-`,
/// `?` and `:`, and properties (`&anchor`, `!tag`).
fn opening_quote(bytes: &[u8], from: usize, before: usize) -> Option<usize> {
    let mut i = from;
    while i < before {
        match bytes[i] {
            b' ' | b'\t' | b'\r' | b'\n' | b'-' | b'?' | b':' => i += 1,
            b'#' => i += bytes[i..].iter().take_while(|&&b| b != b'\n').count(),
            b'&' | b'!' => i += bytes[i..].iter().take_while(|b| !b.is_ascii_whitespace()).count(),
            b'\'' | b'"' => return Some(i),
            _ => return None,
        }
    }
    None
}

/// The closing quote of the scalar opened at `open`: `''` is a quote in a
/// single-quoted scalar, `\` escapes the next character in a double-quoted one.
fn closing_quote(bytes: &[u8], open: usize) -> Option<usize> {
    let quote = bytes[open];
    let mut i = open + 1;
    loop {
        match *bytes.get(i)? {
            b'\\' if quote == b'"' => i += if matches!(bytes.get(i + 1), Some(b'\n' | b'\r')) { 1 } else { 2 },
            b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote => return Some(i),
            _ => i += 1,
        }
    }
}

/// A line that starts with `---` or `...` and then white space or its end.
fn is_document_marker(line: &[u8]) -> bool {
    (line.starts_with(b"---") || line.starts_with(b"..."))
        && matches!(line.get(3), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// opendatahub-operator's CRDs continue a description at the key's column.
    const OPENDATAHUB: &str =
        "spec:\n  description: 'Foo is the\n  thing, ''quoted''.'\n  other: \"a\n  b\\\"\n  c\"\n";

    #[test]
    fn continuation_lines_are_padded_to_the_quote_and_offsets_taken_back() {
        assert!(first_refusal(OPENDATAHUB).is_some(), "the parser refuses it as written");
        let padded = padded(OPENDATAHUB).unwrap();
        assert_eq!(
            padded.text,
            "spec:\n  description: 'Foo is the\n               thing, ''quoted''.'\n  other: \"a\n         b\\\"\n         c\"\n"
        );
        assert!(first_refusal(&padded.text).is_none());
        let value: serde_json::Value = serde_saphyr::from_str(&padded.text).unwrap();
        assert_eq!(value["spec"]["description"], "Foo is the thing, 'quoted'.");
        assert_eq!(value["spec"]["other"], "a b\" c");
        // Every offset outside the inserted spaces maps to the same byte.
        for (at, c) in padded.text.char_indices() {
            if c != ' ' {
                assert_eq!(OPENDATAHUB[padded.original(at)..].chars().next(), Some(c), "at {at}");
            }
        }
        assert_eq!(padded.original(padded.text.len()), OPENDATAHUB.len());
    }

    #[test]
    fn what_go_yaml_refuses_or_cannot_be_found_exactly_is_not_padded() {
        // A document marker inside the scalar ends it for every reader.
        assert_eq!(padded("a:\n  b: 'x\n---\n  y'\n"), None);
        // Unclosed.
        assert_eq!(padded("a:\n  b: 'x\n  y\n"), None);
        // Nothing to pad.
        assert_eq!(padded("a: 'x\n  y'\n"), None);
        // Properties and comments before the quote are passed over.
        let p = padded("a:\n  b: &x !t # c\n    'x\n  y'\n").unwrap();
        assert!(p.text.contains("\n    y'"), "{}", p.text);
    }

    #[test]
    fn the_number_of_padded_scalars_is_bounded() {
        let one = "  k: 'x\n  y'\n";
        let many = format!("a:\n{}", one.repeat(MAX_SCALARS + 1).replace("k:", "k0:"));
        // Keys repeat, which the parser does not mind; the bound does.
        assert_eq!(padded(&many), None);
        let enough =
            format!("a:\n{}", (0..MAX_SCALARS).map(|i| one.replace('k', &format!("k{i}"))).collect::<String>());
        assert!(padded(&enough).is_some());
    }
}
