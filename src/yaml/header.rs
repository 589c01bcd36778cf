//! Headers: what the walk learns of each item as it cuts (identity, labels,
//! annotations, the ranges no view reads, whether the header is indirect),
//! and the full read that replaces it for an indirect item.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use granit_parser::{Event, StructureStyle};

use super::merge::{is_merge_key, Dispute};
use super::view::REPEATED_KEY;
use super::walk::{Step, Walker};
use super::{parse_item, Chunk, Header, Pos, YamlError};

/// What the walk learns of one item: its header, the ranges no view reads
/// (absolute), whether it is [`Chunk::indirect`], and the merges readers
/// apply differently where no view reads (see [`notes_of`]).
pub(super) type ItemHeader = (Header, Vec<Range<usize>>, bool, Vec<Dispute>);

/// What an item's disputes come to: said, for a CustomResourceDefinition,
/// whose schema no view reads; refused for any other kind, whose `spec.validation`
/// or `spec.versions[].schema` is no schema and may be read.
pub(super) fn notes_of(header: &Header, disputes: Vec<Dispute>) -> Result<Vec<String>, YamlError> {
    let crd = crate::model::view_for(header) == Some(crate::model::ViewKind::Crd);
    match disputes.into_iter().next() {
        Some(first) if !crd => Err(first.into_error()),
        first => Ok(first.into_iter().map(|d| d.note()).collect()),
    }
}

/// Subtrees that no view reads but that make up most of a CRD's bytes: the
/// schema of each version (v1) and the validation schema (v1beta1).
const ELIDED: [&[&str]; 2] = [&["spec", "versions", "*", "schema"], &["spec", "validation"]];

/// Collects the [`Header`] and elidable ranges (absolute offsets) of each item
/// rooted at frame index `base`.
pub(super) struct HeaderCollector {
    base: usize,
    headers: Vec<Header>,
    elide: Vec<Vec<Range<usize>>>,
    /// Per item: see [`Chunk::indirect`].
    indirect: Vec<bool>,
    /// Per item: merges readers apply differently where no view reads.
    notes: Vec<Vec<Dispute>>,
    /// Header keys seen in the current item, by map (0 root, 1 metadata,
    /// 2 labels, 3 annotations), to notice a repeated one.
    seen: BTreeSet<(u8, String)>,
    /// An elided collection being walked: its start and its frame depth.
    open: Option<(usize, usize)>,
}

impl HeaderCollector {
    pub(super) fn new(base: usize) -> Self {
        HeaderCollector {
            base,
            headers: Vec::new(),
            elide: Vec::new(),
            indirect: Vec::new(),
            notes: Vec::new(),
            seen: BTreeSet::new(),
            open: None,
        }
    }

    pub(super) fn begin(&mut self) {
        self.headers.push(Header::default());
        self.elide.push(Vec::new());
        self.indirect.push(false);
        self.notes.push(Vec::new());
        self.seen.clear();
    }

    /// Is the walk inside a range no view reads (a CRD's schema)?
    pub(super) fn in_elided(&self) -> bool {
        self.open.is_some()
    }

    /// A dispute in a range no view reads, for [`notes_of`] to judge once
    /// the item's kind is known.
    pub(super) fn note(&mut self, dispute: Dispute) {
        if let Some(notes) = self.notes.last_mut() {
            notes.push(dispute);
        }
    }

    pub(super) fn mark_indirect(&mut self) {
        if let Some(flag) = self.indirect.last_mut() {
            *flag = true;
        }
    }

    /// Called before the walker takes `event`, which starts at byte `at`.
    pub(super) fn track(&mut self, walker: &Walker<'_>, event: &Event<'_>, at: usize) {
        let indirect = match event {
            Event::Alias(..) | Event::UnresolvedAlias(..) => true,
            Event::Scalar(_, _, anchor, tag) => {
                // A merge key brings keys the walk does not see (`<<: {kind: Role}`).
                let key = walker.frames.last().is_some_and(|f| f.is_map && f.expect_key);
                (key && is_merge_key(event)) || *anchor != 0 || tag.is_some()
            }
            Event::MappingStart(_, anchor, tag) | Event::SequenceStart(_, anchor, tag) => *anchor != 0 || tag.is_some(),
            _ => false,
        };
        // Only the header's own region matters: the item's top-level keys and
        // values, and everything under `metadata`. Anchors deep in a spec
        // change no header and no line olm-rbac edits.
        let region = walker.frames.get(self.base..).unwrap_or_default();
        let in_header = region.len() <= 1 || region.first().is_some_and(|f| f.key_is("metadata"));
        if indirect && in_header {
            self.mark_indirect();
        }
        let depth = walker.frames.len();
        match (self.open, event) {
            (Some((start, d)), Event::MappingEnd | Event::SequenceEnd) if d == depth => {
                if let Some(ranges) = self.elide.last_mut() {
                    ranges.push(start..at);
                }
                self.open = None;
            }
            (None, Event::MappingStart(style, ..) | Event::SequenceStart(style, ..)) => {
                let Some(frames) = walker.frames.get(self.base..) else { return };
                let in_value = frames.last().is_some_and(|f| !f.is_map || !f.expect_key);
                let matches = |pattern: &[&str]| {
                    pattern.len() == frames.len()
                        && pattern.iter().zip(frames).all(|(p, f)| match (f.is_map, f.key.as_deref()) {
                            (true, Some(k)) => *p == k,
                            (false, _) => *p == "*",
                            _ => false,
                        })
                };
                if in_value && ELIDED.iter().any(|p| matches(p)) {
                    // A flow collection keeps its brackets (`{` … `}`), so
                    // that what is left reads as an empty one: a manifest
                    // written as JSON is read once, not blanked into a
                    // syntax error and read again whole.
                    let inside = usize::from(*style == StructureStyle::Flow);
                    self.open = Some((at + inside, depth + 1));
                }
            }
            _ => {}
        }
    }

    pub(super) fn observe(&mut self, walker: &Walker<'_>, step: &Step<'_>) {
        let Some(frames) = walker.frames.get(self.base..) else { return };
        let Some(header) = self.headers.last_mut() else { return };
        if let Step::Key(key) = step {
            let key_of = |i: usize| frames.get(i).and_then(|f| if f.is_map { f.key.as_deref() } else { None });
            let map = match (frames.len(), key_of(0), key_of(1)) {
                (1, ..) => Some(0),
                (2, Some("metadata"), _) => Some(1),
                (3, Some("metadata"), Some("labels")) => Some(2),
                (3, Some("metadata"), Some("annotations")) => Some(3),
                _ => None,
            };
            header.list |= frames.len() == 1 && key == "items";
            if let Some(map) = map {
                if !self.seen.insert((map, key.to_string())) {
                    self.mark_indirect();
                }
            }
            return;
        }
        let Step::Value(Some(value)) = step else { return };
        let key = |i: usize| frames.get(i).and_then(|f| if f.is_map { f.key.as_deref() } else { None });
        match frames.len() {
            1 => match key(0) {
                Some("apiVersion") => header.api_version = Some(value.to_string()),
                Some("kind") => header.kind = Some(value.to_string()),
                _ => {}
            },
            2 if key(0) == Some("metadata") => match key(1) {
                Some("name") => header.name = Some(value.to_string()),
                Some("namespace") => header.namespace = Some(value.to_string()),
                _ => {}
            },
            3 if key(0) == Some("metadata") => {
                let map = match key(1) {
                    Some("labels") => &mut header.labels,
                    Some("annotations") => &mut header.annotations,
                    _ => return,
                };
                if let Some(k) = key(2) {
                    map.insert(k.to_string(), value.to_string());
                }
            }
            _ => {}
        }
    }

    /// Each item's header, its elided ranges (absolute), and whether it is
    /// indirect. (Merge keys are checked beside the walk, in `merge`.)
    pub(super) fn finish(self) -> Vec<ItemHeader> {
        let items = self.headers.into_iter().zip(self.elide).zip(self.indirect).zip(self.notes);
        items.map(|(((h, e), i), n)| (h, e, i, n)).collect()
    }
}

/// The header fields, read the way Kubernetes reads them: aliases and merge
/// keys expanded, tags applied, a repeated key an error.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeaderView {
    api_version: Option<String>,
    kind: Option<String>,
    #[serde(default)]
    metadata: Option<MetaView>,
    #[serde(default, deserialize_with = "present")]
    items: bool,
}

#[derive(serde::Deserialize)]
struct MetaView {
    name: Option<String>,
    namespace: Option<String>,
    labels: Option<BTreeMap<String, String>>,
    annotations: Option<BTreeMap<String, String>>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    <serde::de::IgnoredAny as serde::Deserialize>::deserialize(d).map(|_| true)
}

/// For an [`Chunk::indirect`] item, replaces the header the walk saw (which
/// cannot follow aliases) with the one its full parse gives. An item whose
/// header cannot be read so (an alias to another item's anchor, a repeated
/// key, too much alias expansion) is refused.
pub(super) fn resolve_header(chunk: &mut Chunk<'_>) -> Result<(), YamlError> {
    if !chunk.indirect {
        return Ok(());
    }
    let view: HeaderView = parse_item(chunk).map_err(|e| {
        // The parser's own positions are within the item; the error carries the stream's.
        let why = e.message.split(" at line ").next().unwrap_or_default().trim_end_matches(':').to_string();
        let why = match &e.path {
            Some(path) => format!("{path}: {why}"),
            None => why,
        };
        let message = if why.contains(REPEATED_KEY) {
            format!("this item cannot be read as a whole: {why}")
        } else {
            format!(
                "this item uses YAML anchors, aliases, merge keys, tags or a repeated key, and cannot be read as a whole: {why}"
            )
        };
        YamlError { message, pos: e.pos.unwrap_or(Pos { line: chunk.line, col: 1 }) }
    })?;
    let meta = view.metadata;
    chunk.header = Header {
        api_version: view.api_version,
        kind: view.kind,
        name: meta.as_ref().and_then(|m| m.name.clone()),
        namespace: meta.as_ref().and_then(|m| m.namespace.clone()),
        labels: meta.as_ref().and_then(|m| m.labels.clone()).unwrap_or_default(),
        annotations: meta.and_then(|m| m.annotations).unwrap_or_default(),
        list: view.items,
    };
    Ok(())
}
