//! Text tables for a terminal: left-aligned columns (`can-i --list`,
//! `who-can`), and columns wrapped to a width (`report`).

/// The widest a cell may make its column in [`columns`]: a longer cell (a
/// rule listing hundreds of resources) overflows its own line instead of
/// padding every other line to its width.
const MAX_COLUMN: usize = 80;

/// The width `report` keeps its lines to: a terminal of 120 columns.
pub(crate) const TERMINAL: usize = 120;

fn width(s: &str) -> usize {
    s.chars().count()
}

pub(crate) use crate::outcome::{hidden, printable};

/// Left-aligned columns, `gap` spaces apart; the last column is not padded,
/// and cells wider than [`MAX_COLUMN`] do not widen theirs. A row of a single
/// cell is a line of its own (a note between rows), counted in no width.
pub(crate) fn columns(header: &[String], rows: &[Vec<String>], gap: usize) -> String {
    let last = header.len().saturating_sub(1);
    let table_rows = || rows.iter().filter(|r| r.len() > 1);
    let widths: Vec<usize> = (0..last)
        .map(|i| {
            let cells = table_rows().filter_map(|r| r.get(i)).map(|c| width(c)).filter(|&w| w <= MAX_COLUMN);
            cells.chain([width(&header[i])]).max().unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        let start = out.len();
        for (i, cell) in row.iter().enumerate() {
            let cell = &printable(cell);
            out.push_str(cell);
            if let (Some(w), true) = (widths.get(i), row.len() > 1) {
                out.extend(std::iter::repeat_n(' ', w.saturating_sub(width(cell)) + gap));
            }
        }
        let end = out[start..].trim_end().len() + start;
        out.truncate(end);
        out.push('\n');
    }
    out
}

/// Columns `gap` spaces apart that fit `total` characters: when the cells
/// would make the table wider, the widest columns narrow (to no less than
/// their header), and each cell wraps within its column, at spaces where it
/// can, mid-word where a word alone is wider.
pub(crate) fn wrapped(header: &[&str], rows: &[Vec<String>], gap: usize, total: usize) -> String {
    let n = header.len();
    let mut widths: Vec<usize> = (0..n)
        .map(|i| rows.iter().filter_map(|r| r.get(i)).map(|c| width(c)).chain([width(header[i])]).max().unwrap_or(0))
        .collect();
    let budget = total.saturating_sub(gap * n.saturating_sub(1));
    while widths.iter().sum::<usize>() > budget {
        let Some((i, _)) =
            widths.iter().enumerate().filter(|(i, w)| **w > width(header[*i]).max(8)).max_by_key(|(_, w)| **w)
        else {
            break;
        };
        widths[i] -= 1;
    }
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    let mut out = String::new();
    for row in std::iter::once(&header).chain(rows) {
        let cells: Vec<Vec<String>> =
            (0..n).map(|i| wrap(&printable(row.get(i).map_or("", String::as_str)), widths[i])).collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        for line in 0..height {
            let mut text = String::new();
            for (i, cell) in cells.iter().enumerate() {
                let part = cell.get(line).map_or("", String::as_str);
                text.push_str(part);
                if i + 1 < n {
                    text.extend(std::iter::repeat_n(' ', widths[i].saturating_sub(width(part)) + gap));
                }
            }
            out.push_str(text.trim_end());
            out.push('\n');
        }
    }
    out
}

/// `text` in lines of at most `max` characters, broken after spaces where it
/// can; always at least one line.
pub(crate) fn wrap(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let needed = if line.is_empty() { width(word) } else { width(&line) + 1 + width(word) };
        if needed > max && !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        let mut start = line.len();
        for c in word.chars() {
            if width(&line) == max {
                // A word longer than the line breaks after its last `.`, `/`
                // or `-` that fits (`customresourcedefinitions.` then
                // `apiextensions.k8s.io`), else where the line is full.
                let cut = line[start..].rfind(['.', '/', '-']).map(|i| start + i + 1).filter(|&i| i > start);
                let rest = line.split_off(cut.unwrap_or(line.len()));
                lines.push(std::mem::replace(&mut line, rest));
                start = 0;
            }
            line.push(c);
        }
    }
    lines.push(line);
    lines
}

/// `text` in lines of at most `max` characters: the first indented as the
/// text is, the others by `indent` spaces.
pub(crate) fn wrap_indented(text: &str, max: usize, indent: usize) -> Vec<String> {
    let body = text.trim_start_matches(' ');
    let lead = text.len() - body.len();
    // Names from the input never reach the terminal as control or format characters.
    let body = printable(body);
    let mut lines = wrap(&body, max.saturating_sub(lead));
    if lines.len() > 1 {
        let rest = lines.split_off(1).join(" ");
        let pad = " ".repeat(indent);
        lines.extend(wrap(&rest, max.saturating_sub(indent)).into_iter().map(|l| format!("{pad}{l}")));
    }
    lines[0].insert_str(0, &" ".repeat(lead));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_every_line_within_the_width_and_every_character() {
        let text = "anyone bound to ClusterRole admin (where bound); a-very-long-name-without-any-space-at-all";
        for max in [1, 5, 12, 40, 200] {
            let lines = wrap(text, max);
            assert!(lines.iter().all(|l| width(l) <= max), "{max}: {lines:?}");
            assert_eq!(lines.concat().replace(' ', ""), text.replace(' ', ""), "{max}");
        }
        assert_eq!(wrap("a b c", 3), ["a b", "c"]);
        assert_eq!(
            wrap("[customresourcedefinitions.apiextensions.k8s.io]", 30),
            ["[customresourcedefinitions.", "apiextensions.k8s.io]"]
        );
        assert_eq!(wrap("aaaa.bbbbbbbbbb", 6), ["aaaa.", "bbbbbb", "bbbb"]);
        assert_eq!(wrap("", 3), [""]);
    }

    #[test]
    fn a_wrapped_table_fits_its_width() {
        let long = "x ".repeat(100);
        let rows = vec![vec!["api.example.com".to_string(), "admin".into(), long.clone(), long]];
        let table = wrapped(&["API", "ACCESS", "HOLDER", "WHERE"], &rows, 2, 60);
        assert!(table.lines().all(|l| width(l) <= 60), "{table}");
        assert!(table.starts_with("API"), "{table}");
        let narrow = wrapped(&["A", "B"], &[vec!["1".into(), "2".into()]], 2, 60);
        assert_eq!(narrow, "A  B\n1  2\n");
    }
}
