//! How a range's text is scanned: spaces, version tokens, and Masterminds'
//! hyphen ranges (`A - B`), rewritten as the terms they mean before a range
//! is split into alternatives.

/// Whitespace as the library's patterns read it: not `\v`, nothing beyond ASCII.
pub(super) fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c')
}

/// `A - B` (whitespace on both sides of the hyphen) becomes `>= A, <= B `,
/// leftmost first, anywhere in the text, before it is split at `||`.
pub(super) fn rewrite_hyphen_ranges(text: &str) -> String {
    let mut out = String::new();
    let mut i = 0;
    let mut from = 0;
    while i < text.len() {
        if let Some((a, b, end)) = hyphen_range_at(text, i) {
            out.push_str(&text[from..i]);
            out.push_str(&format!(">= {a}, <= {b} "));
            i = end;
            from = end;
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    out.push_str(&text[from..]);
    out
}

/// `\s*A\s+-\s+B\s*` starting at `start`: the two versions and the end.
fn hyphen_range_at(text: &str, start: usize) -> Option<(&str, &str, usize)> {
    let i = skip_spaces(text, start);
    let a_end = version_token_end(text, i)?;
    let j = skip_spaces(text, a_end);
    if j == a_end || !text[j..].starts_with('-') {
        return None;
    }
    let k = skip_spaces(text, j + 1);
    if k == j + 1 {
        return None;
    }
    let b_end = version_token_end(text, k)?;
    Some((&text[i..a_end], &text[k..b_end], skip_spaces(text, b_end)))
}

pub(super) fn skip_spaces(text: &str, mut i: usize) -> usize {
    while let Some(c) = text[i..].chars().next().filter(|&c| is_space(c)) {
        i += c.len_utf8();
    }
    i
}

/// The end of the version a term is written with, starting at `i`: an
/// optional `v`, one to three parts of digits, `x`, `X`, `*` (or the pipe the
/// library's pattern lets in, to refuse later), then `-` and `+` identifiers.
pub(super) fn version_token_end(text: &str, i: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut j = i + usize::from(b.get(i) == Some(&b'v'));
    let part = |j: usize| {
        let mut k = j;
        while b.get(k).is_some_and(|c| c.is_ascii_digit() || matches!(c, b'x' | b'X' | b'*' | b'|')) {
            k += 1;
        }
        k
    };
    let end = part(j);
    if end == j {
        return None;
    }
    j = end;
    for _ in 0..2 {
        if b.get(j) == Some(&b'.') && part(j + 1) > j + 1 {
            j = part(j + 1);
        } else {
            break;
        }
    }
    for sign in [b'-', b'+'] {
        if b.get(j) == Some(&sign) {
            let ids = idents_end(b, j + 1);
            if ids > j + 1 {
                j = ids;
            }
        }
    }
    Some(j)
}

/// The end of dot-separated `[0-9A-Za-z-]` identifiers starting at `i`.
fn idents_end(b: &[u8], i: usize) -> usize {
    let ident = |k: usize| {
        let mut e = k;
        while b.get(e).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'-') {
            e += 1;
        }
        e
    };
    let mut end = ident(i);
    if end == i {
        return i;
    }
    while b.get(end) == Some(&b'.') && ident(end + 1) > end + 1 {
        end = ident(end + 1);
    }
    end
}
