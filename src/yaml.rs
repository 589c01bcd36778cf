//! Reading YAML without losing a byte.
//!
//! The event parser reports where every node starts and ends. One walk over a
//! stream cuts it into the exact text of each item (a `ResourceList` entry or a
//! whole document) and, in the same walk, collects each item's [`Header`]. The
//! few kinds that need more (CRDs, CSVs, configs) are read afterwards from their
//! own text through small serde views, see [`parse_item`].
//!
//! The parts, in the order the bytes meet them: `walk` (the path to the
//! current event), `cut` (streams into items, with `header` collecting each
//! item's header in the same walk, and `text` for offsets and lines), `view`
//! (an item through a serde type), `edit` (label changes as line edits) and
//! `write` (values back to YAML).

use std::borrow::Cow;
use std::ops::Range;

pub use crate::model::Header;

mod cut;
mod edit;
mod header;
mod merge;
mod quoted;
mod text;
mod view;
mod walk;
mod write;

pub(crate) use cut::normalize;
pub use cut::{is_second_document, split_documents, split_list};
pub(crate) use edit::patched_text;
pub(crate) use view::{json_value, options_for, parse_item, ViewError};
pub(crate) use write::{as_seq_entry, line_ending, to_yaml, with_line_ending};

/// Where a problem sits in the bytes we were given: 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

/// A YAML problem with its position in the whole input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (line {}, column {})", pos.line, pos.col)]
pub struct YamlError {
    pub message: String,
    pub pos: Pos,
}

/// How an item's text is laid out, which decides how to read it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A block-sequence entry, `- ` included, its dash at this column.
    SeqEntry { indent: usize },
    /// A whole YAML document, without its `---` line.
    Document,
}

/// One item: its exact text, where it came from, and its header.
#[derive(Debug, Clone)]
pub struct Chunk<'a> {
    pub text: Cow<'a, str>,
    pub layout: Layout,
    /// 1-based line of the chunk's first byte in the stream it was cut from.
    pub line: usize,
    pub header: Header,
    /// Byte ranges of `text` that no view reads (CRD schemas): [`parse_item`]
    /// blanks them out before parsing.
    pub elide: Vec<Range<usize>>,
    /// The header does not say plainly what it holds: anchors, aliases or tags
    /// among the top-level keys or under `metadata`, or a repeated header key.
    /// Its header is then read with full YAML semantics, and edits re-serialise
    /// it instead of editing lines (an edited anchor would change its aliases).
    pub indirect: bool,
    /// What the reading found to say that does not stop it: a merge key that
    /// readers apply differently where no view reads (a CRD's schema).
    pub notes: Vec<String>,
}

impl Chunk<'_> {
    /// The text a view reads: `text` with the elided ranges turned into spaces,
    /// newlines kept, so every position outside them is unchanged.
    pub(crate) fn view_text(&self) -> Cow<'_, str> {
        if self.elide.is_empty() {
            return Cow::Borrowed(&self.text);
        }
        let mut bytes = self.text.as_bytes().to_vec();
        for r in &self.elide {
            if let Some(region) = bytes.get_mut(r.clone()) {
                region.iter_mut().filter(|b| **b != b'\n').for_each(|b| *b = b' ');
            }
        }
        // Only ASCII bytes were written, so this cannot fail; fall back to the full text if it did.
        String::from_utf8(bytes).map_or(Cow::Borrowed(&self.text), Cow::Owned)
    }
}

/// A top-level entry of a `ResourceList`, with the exact text it occupies.
#[derive(Debug, Clone)]
pub struct TopEntry<'a> {
    pub key: String,
    pub text: &'a str,
    /// 1-based line where the entry starts.
    pub line: usize,
}

/// A `ResourceList` cut into pieces that can be written back unchanged.
#[derive(Debug, Clone)]
pub struct ListText<'a> {
    /// Comments and directives before the first key.
    pub preamble: &'a str,
    /// Top-level entries in input order; the `items` entry's text holds only the
    /// key line and any comments before the first item.
    pub entries: Vec<TopEntry<'a>>,
    pub items: Vec<Chunk<'a>>,
    /// Text after the last item that still belongs to the `items` entry.
    pub items_tail: &'a str,
    /// Column of the items' dashes, for appending more in the same style.
    pub item_indent: usize,
    pub api_version: Option<String>,
    pub kind: Option<String>,
}

impl ListText<'_> {
    /// The exact text of a top-level entry.
    #[cfg(test)]
    pub(crate) fn entry(&self, key: &str) -> Option<&str> {
        self.entries.iter().find(|e| e.key == key).map(|e| e.text)
    }
}
