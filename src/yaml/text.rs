//! Offsets and lines: where events and items start and end in the text.

use std::ops::Range;

use granit_parser::Span;

use super::{Pos, YamlError};

pub(super) fn offset(marker: &granit_parser::Marker, src: &str) -> usize {
    marker.byte_offset().unwrap_or(src.len()).min(src.len())
}

pub(super) fn pos_of(span: &Span) -> Pos {
    Pos { line: span.start.line(), col: span.start.col() + 1 }
}

pub(super) fn scan_error(e: &granit_parser::ScanError) -> YamlError {
    let m = e.marker();
    let message = match e.kind() {
        granit_parser::ErrorKind::DirectiveDisallowed => "a YAML directive (%YAML, %TAG): Kubernetes' reader (kubectl, OLM, opm) cuts it off from the document after the --- line and refuses both; leave it out".to_string(),
        _ => format!("malformed YAML: {}", e.info()),
    };
    YamlError { message, pos: Pos { line: m.line(), col: m.col() + 1 } }
}

pub(super) fn line_start(src: &str, at: usize) -> usize {
    src[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The line boundary a node ending at `at` ends on: the start of `at`'s line
/// when only indentation precedes it there (the next token's line), otherwise
/// the start of the next line.
pub(super) fn line_start_at_or_after(src: &str, at: usize) -> usize {
    let ls = line_start(src, at);
    if src[ls..at].bytes().all(|b| b == b' ' || b == b'\t') {
        ls
    } else {
        src[at..].find('\n').map_or(src.len(), |i| at + i + 1)
    }
}

/// Absolute ranges made relative to `chunk`, dropping any that stray outside it.
pub(super) fn relative(ranges: Vec<Range<usize>>, chunk: Range<usize>) -> Vec<Range<usize>> {
    ranges
        .into_iter()
        .filter(|r| chunk.start <= r.start && r.start <= r.end && r.end <= chunk.end)
        .map(|r| r.start - chunk.start..r.end - chunk.start)
        .collect()
}

/// The start of the line after the one holding `at` (or the end of the text).
pub(super) fn line_end_after(src: &str, at: usize) -> usize {
    if at > 0 && src.as_bytes().get(at - 1) == Some(&b'\n') {
        return at;
    }
    src[at..].find('\n').map_or(src.len(), |i| at + i + 1)
}

/// Line numbers of increasing offsets, counted once over the text.
#[derive(Default)]
pub(super) struct LineCounter {
    at: usize,
    newlines: usize,
}

impl LineCounter {
    pub(super) fn line_at(&mut self, src: &str, at: usize) -> usize {
        if at < self.at {
            *self = LineCounter::default();
        }
        self.newlines += src.as_bytes()[self.at..at].iter().filter(|&&b| b == b'\n').count();
        self.at = at;
        self.newlines + 1
    }
}

/// The start of the line holding the `-` that introduces the node at `node`:
/// the node's own line, or an earlier one with only a dash (and comments
/// between). `None` when the layout is not one we can cut exactly.
pub(super) fn dash_line(src: &str, node: usize) -> Option<usize> {
    let mut ls = line_start(src, node);
    let before = &src[ls..node];
    if before.trim_start().starts_with('-') {
        return Some(ls);
    }
    if !before.trim().is_empty() {
        return None;
    }
    while ls > 0 {
        let prev = line_start(src, ls - 1);
        let line = src[prev..ls].trim();
        // `-` alone on its line, or followed by a comment, an anchor or a tag.
        if let Some(rest) = line.strip_prefix('-') {
            let rest = rest.trim_start();
            if rest.is_empty() || (rest.len() < line.len() - 1 && rest.starts_with(['#', '&', '!'])) {
                return Some(prev);
            }
        }
        if !(line.is_empty() || line.starts_with('#')) {
            return None;
        }
        ls = prev;
    }
    None
}

/// Where the body of a document starts after a `---` ending at `after`.
pub(super) fn after_marker_line(src: &str, after: usize) -> usize {
    let rest = &src[after..];
    let line_end = rest.find('\n').map_or(src.len(), |i| after + i + 1);
    let same_line = src[after..line_end].trim();
    if same_line.is_empty() || same_line.starts_with('#') {
        line_end
    } else {
        after
    }
}

/// The start of the `---` (or `...`) line at or after `at`, if the text between
/// is blank; otherwise `at`.
pub(super) fn marker_line_start(src: &str, at: usize) -> usize {
    let ls = line_start(src, at);
    if src[ls..at].trim().is_empty() {
        ls
    } else {
        at
    }
}

/// The first line break only Kubernetes' reader sees (see
/// `cut::check_line_breaks`), and what it is. Each starts with a carriage
/// return or a byte above ASCII: blocks of plain ASCII without a carriage
/// return, nearly all of a manifest, are passed over a block at a time.
pub(super) fn first_disputed_break(bytes: &[u8]) -> Option<(usize, &'static str)> {
    const BLOCK: usize = 32;
    let at = |i: usize| {
        let next = |k: usize| bytes.get(i + k).copied();
        match bytes[i] {
            b'\r' if next(1) != Some(b'\n') => Some((i, "a carriage return that is not followed by a line feed")),
            0xC2 if next(1) == Some(0x85) => Some((i, "NEXT LINE (U+0085)")),
            0xE2 if next(1) == Some(0x80) && next(2) == Some(0xA8) => Some((i, "LINE SEPARATOR (U+2028)")),
            0xE2 if next(1) == Some(0x80) && next(2) == Some(0xA9) => Some((i, "PARAGRAPH SEPARATOR (U+2029)")),
            _ => None,
        }
    };
    let blocks = bytes.chunks_exact(BLOCK);
    let tail = blocks.remainder().len();
    for (n, block) in blocks.enumerate() {
        if block.iter().fold(false, |seen, &b| seen | (b == b'\r') | (b >= 0x80)) {
            if let Some(found) = (n * BLOCK..(n + 1) * BLOCK).find_map(at) {
                return Some(found);
            }
        }
    }
    (bytes.len() - tail..bytes.len()).find_map(at)
}
