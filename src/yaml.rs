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
    /// The line, counted from 1.
    pub line: usize,
    /// The column, counted from 1.
    pub col: usize,
}

/// A YAML problem with its position in the whole input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (line {}, column {})", pos.line, pos.col)]
pub struct YamlError {
    /// What is wrong, without the position.
    pub message: String,
    /// Where in the whole input it was found.
    pub pos: Pos,
}

/// How an item's text is laid out, which decides how to read it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A block-sequence entry, `- ` included, its dash at this column.
    SeqEntry {
        /// How many spaces precede the dash.
        indent: usize,
    },
    /// A whole YAML document, without its `---` line.
    Document,
}

/// One item: its exact text, where it came from, and its header.
#[derive(Debug, Clone)]
pub struct Chunk<'a> {
    /// The item's exact text, comments and layout included: what is written back when nothing patches it.
    pub text: Cow<'a, str>,
    /// Whether the text is a `ResourceList` entry or a whole document.
    pub layout: Layout,
    /// 1-based line of the chunk's first byte in the stream it was cut from.
    pub line: usize,
    /// Its apiVersion, kind, name, namespace, labels and annotations, read in the same walk that cut it.
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
    /// The key: `apiVersion`, `kind`, `items`, `functionConfig`, `results`, …
    pub key: String,
    /// Its exact text, from the key's line to the next key's.
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
    /// The items, each cut at the line of its dash.
    pub items: Vec<Chunk<'a>>,
    /// Text after the last item that still belongs to the `items` entry.
    pub items_tail: &'a str,
    /// Column of the items' dashes, for appending more in the same style.
    pub item_indent: usize,
    /// The list's own `apiVersion` (`config.kubernetes.io/v1`), if it has one.
    pub api_version: Option<String>,
    /// The list's own `kind` (`ResourceList`), if it has one.
    pub kind: Option<String>,
}

impl ListText<'_> {
    /// The exact text of a top-level entry.
    #[cfg(test)]
    pub(crate) fn entry(&self, key: &str) -> Option<&str> {
        self.entries.iter().find(|e| e.key == key).map(|e| e.text)
    }
}
