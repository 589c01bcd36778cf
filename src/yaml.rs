//! Reading YAML without losing a byte.
//!
//! The event parser reports where every node starts and ends. One walk over a
//! stream cuts it into the exact text of each item (a `ResourceList` entry or a
//! whole document) and, in the same walk, collects each item's [`Header`]. The
//! few kinds that need more (CRDs, CSVs, configs) are read afterwards from their
//! own text through small serde views, see [`parse_item`].

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use granit_parser::{Event, Parser, ScalarStyle, Span, StructureStyle};

pub use crate::model::Header;
use serde::de::DeserializeOwned;

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
}

impl Chunk<'_> {
    /// The text a view reads: `text` with the elided ranges turned into spaces,
    /// newlines kept, so every position outside them is unchanged.
    pub fn view_text(&self) -> Cow<'_, str> {
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
    /// The exact text of a top-level entry, for reading it through a view.
    pub fn entry(&self, key: &str) -> Option<&str> {
        self.entries.iter().find(|e| e.key == key).map(|e| e.text)
    }
}

/// [`options`] for reading `len` bytes: alias expansion may replay at most
/// [`ALIAS_REPLAY_PER_BYTE`] events per byte read (plus a small floor), so a
/// crafted alias tree costs time in proportion to its size, across however
/// many items it is spread over.
pub fn options_for(len: usize) -> serde_saphyr::Options {
    let mut options = options();
    let limit = ALIAS_REPLAY_FLOOR.saturating_add(len.saturating_mul(ALIAS_REPLAY_PER_BYTE));
    options.alias_limits.max_total_replayed_events = options.alias_limits.max_total_replayed_events.min(limit);
    options
}

/// See [`options_for`]. Real manifests that use anchors (Helm charts, hand
/// written files) repeat small maps a few times; a byte of YAML is at most one
/// event, so four replays per byte is generous.
pub const ALIAS_REPLAY_PER_BYTE: usize = 4;
const ALIAS_REPLAY_FLOOR: usize = 1_000;

/// Deserialization options sized for operator bundles: a single CRD can hold
/// millions of events and nest deeper than the library's defaults allow.
pub fn options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_events = usize::MAX / 2;
    budget.max_nodes = usize::MAX / 2;
    budget.max_total_scalar_bytes = usize::MAX / 2;
    budget.max_reader_input_bytes = None;
    budget.max_depth = 1024;
    budget.max_documents = usize::MAX / 2;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    // See `HeaderCollector::finish`: readers disagree on merge keys.
    options.merge_keys = serde_saphyr::options::MergeKeyPolicy::Error;
    options.with_snippet = false;
    options
}

fn parser_options() -> granit_parser::Options {
    let mut options = granit_parser::Options::default();
    options.block_nesting_limit = 1024;
    options
}

/// Reads one item through a serde view. Errors carry positions in the stream
/// the chunk was cut from and, where the position falls on a key, its path.
pub fn parse_item<T: DeserializeOwned>(chunk: &Chunk<'_>) -> Result<T, ViewError> {
    if !chunk.elide.is_empty() {
        if let Ok(value) = parse_text(&chunk.view_text(), chunk) {
            return Ok(value);
        }
        // An anchor inside an elided region, say: read everything, and report
        // whatever is wrong against the real text.
    }
    parse_text(&chunk.text, chunk)
}

fn parse_text<T: DeserializeOwned>(text: &str, chunk: &Chunk<'_>) -> Result<T, ViewError> {
    let result = match chunk.layout {
        Layout::Document => serde_saphyr::from_str_with_options::<T>(text, options_for(text.len())),
        Layout::SeqEntry { .. } => serde_saphyr::from_str_with_options::<Vec<T>>(text, options_for(text.len()))
            .and_then(|mut v| {
                v.pop().ok_or_else(|| <serde_saphyr::Error as serde::de::Error>::custom("the item is empty"))
            }),
    };
    result.map_err(|e| ViewError::from_saphyr(&e, text, chunk.line, chunk.layout))
}

/// A serde view failed: the message, the field path when known, the position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewError {
    pub message: String,
    pub path: Option<String>,
    pub pos: Option<Pos>,
}

impl ViewError {
    fn from_saphyr(e: &serde_saphyr::Error, text: &str, first_line: usize, layout: Layout) -> Self {
        let location = e.location();
        let mut message = e.without_snippet().to_string();
        if let Some(rest) = message.strip_prefix("error: ") {
            message = rest.to_string();
        }
        let (pos, path) = match location {
            Some(loc) if loc.line() > 0 => {
                let (line, col) = (loc.line() as usize, loc.column() as usize);
                // The position is reported once, in stream terms, by the caller.
                for relative in [format!("line {line} column {col}: "), format!(" at line {line}, column {col}")] {
                    message = message.replacen(&relative, "", 1);
                }
                let skip = usize::from(matches!(layout, Layout::SeqEntry { .. }));
                // A value of the wrong type is reported where it starts, which for a
                // map is its first key: the field is the collection, not that key.
                let wrong_type = message.contains("expected sequence")
                    || message.contains("invalid type")
                    || message.contains("missing field");
                let path = if wrong_type { collection_path_at(text, line, col, skip) } else { None }
                    .or_else(|| path_at(text, line, col, skip));
                (Some(Pos { line: line + first_line - 1, col }), path)
            }
            _ => (None, None),
        };
        let message = explain_type(&message, path.as_deref());
        ViewError { message, path, pos }
    }
}

/// Says a type mismatch in the terms of the field that has it, where the
/// field is one whose shape is worth spelling out.
fn explain_type(message: &str, path: Option<&str>) -> String {
    if message.ends_with("expected one of apiVersion, kind, metadata, spec") {
        return format!("{message}; the settings (mode, bindings, ...) go under spec:");
    }
    let list = message.contains("expected sequence") || message.contains("expected a sequence");
    if !list {
        return message.to_string();
    }
    let field = path.and_then(|p| p.rsplit('.').next()).map(|f| f.split('[').next().unwrap_or(f));
    let shape = match field {
        Some("subjects") => "a list of subjects, each {kind, name} (and namespace for a ServiceAccount)",
        Some("bindings") => "a list of bindings, each {role, subjects, and optionally namespaces or namespaceSelector}",
        Some("namespaces") => "a list of namespace names",
        Some("roles") => "a list of admin, edit, view, view-crdview",
        Some("include" | "exclude") => "a list of API name patterns (<plural>.<group>, with * and ?)",
        Some("matchExpressions") => "a list of {key, operator, values}",
        _ => "a list",
    };
    format!("must be {shape}")
}

/// The path of the collection that starts at `line`/`col`, if one does.
fn collection_path_at(text: &str, line: usize, col: usize, skip: usize) -> Option<String> {
    let mut walker = Walker::default();
    for next in Parser::new_from_str_with_options(text, parser_options()) {
        let Ok((event, span)) = next else { break };
        let at = span.start.line() == line && span.start.col() + 1 == col;
        let opens = matches!(event, Event::MappingStart(..) | Event::SequenceStart(..));
        // A map's position may be that of its first key.
        let first_key = matches!(event, Event::Scalar(..))
            && walker.frames.last().is_some_and(|f| f.is_map && f.expect_key && f.key.is_none());
        if at && (opens || first_key) {
            return join_path(walker.frames.iter().skip(skip).filter_map(Frame::segment).collect());
        }
        walker.step(&event);
    }
    None
}

/// The dotted key path of the node at `line`/`col` (1-based) in `text`,
/// dropping the first `skip` levels (the wrapping sequence of an entry).
pub fn path_at(text: &str, line: usize, col: usize, skip: usize) -> Option<String> {
    let mut walker = Walker::default();
    let segments = |w: &Walker<'_>| -> Vec<String> { w.frames.iter().skip(skip).filter_map(Frame::segment).collect() };
    // A collection starts where its first key does: prefer the key's path, and
    // fall back to the collection's own when the next event is elsewhere.
    let mut collection: Option<Vec<String>> = None;
    for next in Parser::new_from_str_with_options(text, parser_options()) {
        let Ok((event, span)) = next else { break };
        let at = span.start.line() == line && span.start.col() + 1 == col;
        if !at && collection.is_some() && event.is_node() {
            break;
        }
        let before = segments(&walker);
        match (walker.step(&event), at) {
            (Step::Key(_), true) => return join_path(segments(&walker)),
            (Step::Value(_), true) => return join_path(before),
            (Step::Open, true) if collection.is_none() => collection = Some(before),
            _ => {}
        }
    }
    collection.and_then(join_path)
}

fn join_path(segments: Vec<String>) -> Option<String> {
    let mut out = String::new();
    for s in segments {
        if !out.is_empty() && !s.starts_with('[') {
            out.push('.');
        }
        out.push_str(&s);
    }
    (!out.is_empty()).then_some(out)
}

/// Cuts a `ResourceList` into top-level entries and item chunks.
///
/// Returns `Ok(None)` when the list is not written in block style (JSON, or
/// `items` as a flow sequence); the caller then re-serialises it, see
/// [`normalize`].
pub fn split_list(src: &str) -> Result<Option<ListText<'_>>, YamlError> {
    check_line_breaks(src)?;
    let mut walker = Walker::default();
    let mut list = ListText {
        preamble: "",
        entries: Vec::new(),
        items: Vec::new(),
        items_tail: "",
        item_indent: 0,
        api_version: None,
        kind: None,
    };
    let mut key_starts: Vec<(String, usize)> = Vec::new();
    let mut item_starts: Vec<(usize, usize)> = Vec::new();
    let mut items_end: Option<usize> = None;
    let mut headers = HeaderCollector::new(2);
    let mut documents = 0usize;
    let mut doc_end = src.len();
    let mut seen_root = false;

    for next in Parser::new_from_str_with_options(src, parser_options()) {
        let (event, span) = next.map_err(|e| scan_error(&e))?;
        let depth = walker.frames.len();
        match &event {
            Event::DocumentStart(..) => {
                documents += 1;
                if documents > 1 {
                    return Err(YamlError {
                        message: "expected one ResourceList document, found another document".into(),
                        pos: pos_of(&span),
                    });
                }
            }
            Event::DocumentEnd if seen_root && doc_end == src.len() => {
                doc_end = offset(&span.start, src);
            }
            Event::MappingStart(style, ..) if depth == 0 => {
                seen_root = true;
                if *style == StructureStyle::Flow {
                    return Ok(None);
                }
            }
            Event::SequenceStart(..) | Event::Scalar(..) | Event::Alias(..) if depth == 0 => {
                return Err(YamlError {
                    message: "the input is not a ResourceList: expected a mapping at the top level".into(),
                    pos: pos_of(&span),
                });
            }
            _ => {}
        }
        let in_items = depth >= 1 && walker.frames[0].key_is("items");
        if depth == 1 && in_items && !walker.frames[0].expect_key && event.is_node() {
            match &event {
                Event::SequenceStart(StructureStyle::Flow, ..) => return Ok(None),
                Event::SequenceStart(StructureStyle::Block, ..) | Event::Scalar(..) => {}
                _ => {
                    return Err(YamlError {
                        message: "ResourceList field items must be a list".into(),
                        pos: pos_of(&span),
                    })
                }
            }
        }
        if depth == 2 && in_items && event.is_node() {
            let start = offset(&span.start, src);
            item_starts.push((start, span.start.line()));
            headers.begin();
        }
        if depth == 2 && in_items && matches!(event, Event::SequenceEnd) {
            items_end = Some(offset(&span.start, src));
        }
        if in_items && depth >= 2 {
            headers.track(&walker, &event, offset(&span.start, src));
        }
        let step = walker.step(&event);
        if in_items && depth >= 2 {
            headers.observe(&walker, &step);
        }
        match step {
            Step::Key(key) if depth == 1 => {
                key_starts.push((key.into_owned(), line_start(src, offset(&span.start, src))));
            }
            Step::Value(value) if depth == 1 => {
                let value = value.map(Cow::into_owned);
                if walker.frames[0].key_is("apiVersion") {
                    list.api_version = value;
                } else if walker.frames[0].key_is("kind") {
                    list.kind = value;
                }
            }
            _ => {}
        }
    }

    let mut seen_keys = BTreeSet::new();
    for (key, at) in &key_starts {
        if !seen_keys.insert(key.as_str()) {
            return Err(YamlError {
                message: format!("the ResourceList has the key {key:?} twice"),
                pos: Pos { line: LineCounter::default().line_at(src, *at), col: 1 },
            });
        }
    }
    let first_key = key_starts.first().map_or(doc_end, |k| k.1);
    list.preamble = &src[..first_key];
    let ends: Vec<usize> = key_starts.iter().skip(1).map(|k| k.1).chain([doc_end]).collect();
    let item_headers = headers.finish(src)?;
    let mut entry_lines = LineCounter::default();
    for ((key, start), end) in key_starts.into_iter().zip(ends) {
        let line = entry_lines.line_at(src, start);
        if key == "items" && !item_starts.is_empty() {
            let mut chunk_starts = Vec::with_capacity(item_starts.len());
            for &(node_start, _) in &item_starts {
                match dash_line(src, node_start) {
                    Some(s) if s >= chunk_starts.last().copied().unwrap_or(start) => chunk_starts.push(s),
                    _ => return Ok(None),
                }
            }
            let last_end = items_end.map_or(end, |e| line_start_at_or_after(src, e).min(end));
            list.item_indent =
                chunk_starts.first().map_or(0, |&s| src[s..].len() - src[s..].trim_start_matches(' ').len());
            let bounds: Vec<usize> = chunk_starts.iter().skip(1).copied().chain([last_end]).collect();
            let mut lines = LineCounter::default();
            for (i, (&s, e)) in chunk_starts.iter().zip(bounds).enumerate() {
                let (header, elide, indirect) = item_headers.get(i).cloned().unwrap_or_default();
                let mut chunk = Chunk {
                    text: Cow::Borrowed(&src[s..e]),
                    layout: Layout::SeqEntry { indent: list.item_indent },
                    line: lines.line_at(src, s),
                    header,
                    elide: relative(elide, s..e),
                    indirect,
                };
                resolve_header(&mut chunk)?;
                list.items.push(chunk);
            }
            list.entries.push(TopEntry { key, text: &src[start..chunk_starts[0]], line });
            list.items_tail = &src[last_end..end];
        } else {
            list.entries.push(TopEntry { key, text: &src[start..end], line });
        }
    }
    Ok(Some(list))
}

/// Cuts a multi-document stream into documents (empty ones are skipped).
pub fn split_documents(src: &str) -> Result<Vec<Chunk<'_>>, YamlError> {
    check_line_breaks(src)?;
    struct Doc {
        start: usize,
        end: usize,
        content: bool,
    }
    let mut walker = Walker::default();
    let mut headers = HeaderCollector::new(0);
    let mut docs: Vec<Doc> = Vec::new();
    // Where the next implicit document would start (after a `...` line).
    let mut resume = 0usize;
    for next in Parser::new_from_str_with_options(src, parser_options()) {
        let (event, span) = next.map_err(|e| scan_error(&e))?;
        match &event {
            Event::DocumentStart(explicit, _) => {
                let start = if *explicit { after_marker_line(src, offset(&span.end, src)) } else { resume };
                docs.push(Doc { start, end: src.len(), content: false });
            }
            Event::DocumentEnd => {
                let at = offset(&span.start, src);
                if let Some(doc) = docs.last_mut() {
                    if span.end == span.start {
                        // Implicit end: the text runs up to the next `---` line.
                        doc.end = marker_line_start(src, at);
                    } else {
                        doc.end = line_start(src, at);
                        resume = after_marker_line(src, offset(&span.end, src));
                    }
                }
            }
            _ => {}
        }
        if walker.frames.is_empty() && event.is_node() {
            if let Event::MappingStart(..) = event {
                if let Some(doc) = docs.last_mut() {
                    doc.content = true;
                    headers.begin();
                }
            } else if !matches!(&event, Event::Scalar(v, ScalarStyle::Plain, ..) if v.is_empty() || v == "~" || v == "null")
            {
                return Err(YamlError {
                    message: "the document is not a Kubernetes object: expected a mapping".into(),
                    pos: pos_of(&span),
                });
            }
        }
        headers.track(&walker, &event, offset(&span.start, src));
        let step = walker.step(&event);
        headers.observe(&walker, &step);
    }
    let mut item_headers = headers.finish(src)?.into_iter();
    let mut lines = LineCounter::default();
    docs.into_iter()
        .filter(|d| d.content)
        .map(|d| {
            let (header, elide, indirect) = item_headers.next().unwrap_or_default();
            let range = d.start..d.end.max(d.start);
            let mut chunk = Chunk {
                text: Cow::Borrowed(&src[range.clone()]),
                layout: Layout::Document,
                line: lines.line_at(src, d.start),
                header,
                elide: relative(elide, range),
                indirect,
            };
            resolve_header(&mut chunk)?;
            Ok(chunk)
        })
        .collect()
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
fn resolve_header(chunk: &mut Chunk<'_>) -> Result<(), YamlError> {
    if !chunk.indirect {
        return Ok(());
    }
    let view: HeaderView = parse_item(chunk).map_err(|e| {
        // The parser's own positions are within the item; the error carries the stream's.
        let why = e.message.split(" at line ").next().unwrap_or_default().trim_end_matches(':').to_string();
        YamlError {
            message: format!(
                "this item uses YAML anchors, aliases, merge keys, tags or a repeated key, and cannot be read as a whole: {why}"
            ),
            pos: e.pos.unwrap_or(Pos { line: chunk.line, col: 1 }),
        }
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

/// Refuses characters that YAML readers disagree about. Kubernetes' reader
/// (go-yaml, YAML 1.1) ends a line at NEL (U+0085), LINE SEPARATOR (U+2028),
/// PARAGRAPH SEPARATOR (U+2029) and a carriage return on its own; olm-rbac's
/// (YAML 1.2) does not. Text after one in a comment would be a comment to
/// olm-rbac and a rule or a label to the cluster.
fn check_line_breaks(src: &str) -> Result<(), YamlError> {
    let bytes = src.as_bytes();
    let found = bytes.iter().enumerate().find_map(|(i, &b)| {
        let next = |k: usize| bytes.get(i + k).copied();
        match b {
            b'\r' if next(1) != Some(b'\n') => Some((i, "a carriage return that is not followed by a line feed")),
            0xC2 if next(1) == Some(0x85) => Some((i, "NEXT LINE (U+0085)")),
            0xE2 if next(1) == Some(0x80) && next(2) == Some(0xA8) => Some((i, "LINE SEPARATOR (U+2028)")),
            0xE2 if next(1) == Some(0x80) && next(2) == Some(0xA9) => Some((i, "PARAGRAPH SEPARATOR (U+2029)")),
            _ => None,
        }
    });
    let Some((at, what)) = found else { return Ok(()) };
    let line = LineCounter::default().line_at(src, at);
    let col = src[line_start(src, at)..at].chars().count() + 1;
    Err(YamlError {
        message: format!(
            "the input holds {what}, which Kubernetes' YAML reader takes for a line break and olm-rbac's does not; olm-rbac refuses input the two would read differently"
        ),
        pos: Pos { line, col },
    })
}

/// Re-serialises a `ResourceList` that is not in block style, so that it can be
/// cut like any other. Comments in it are lost; that is the price of flow style.
pub fn normalize(src: &str) -> Result<String, YamlError> {
    check_line_breaks(src)?;
    let value: serde_json::Value = serde_saphyr::from_str_with_options(src, options_for(src.len())).map_err(|e| {
        let v = ViewError::from_saphyr(&e, src, 1, Layout::Document);
        YamlError { message: v.message, pos: v.pos.unwrap_or(Pos { line: 1, col: 1 }) }
    })?;
    let serde_json::Value::Object(map) = value else {
        return Err(YamlError {
            message: "the input is not a ResourceList: expected a mapping at the top level".into(),
            pos: Pos { line: 1, col: 1 },
        });
    };
    let mut out = String::new();
    for (key, value) in map {
        let mut one = serde_json::Map::new();
        let value = if key == "items" && value.is_null() { serde_json::Value::Array(Vec::new()) } else { value };
        let empty_items = key == "items" && value.as_array().is_some_and(Vec::is_empty);
        if empty_items {
            continue;
        }
        one.insert(key, value);
        out.push_str(&to_yaml(&one).map_err(|message| YamlError { message, pos: Pos { line: 1, col: 1 } })?);
    }
    Ok(out)
}

/// Serialises a value as block YAML that YAML 1.1 readers read back the same.
/// Long strings stay on one line, as kubectl writes them: easier to diff.
pub fn to_yaml<T: serde::Serialize>(value: &T) -> Result<String, String> {
    let mut options = serde_saphyr::SerializerOptions::default();
    options.prefer_block_scalars = false;
    serde_saphyr::to_string_with_options(value, options).map_err(|e| e.to_string())
}

/// Writes `text` (a serialised object) as a block-sequence entry at `indent`.
pub fn as_seq_entry(text: &str, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() {
            out.push('\n');
            continue;
        }
        out.push_str(&pad);
        out.push_str(if i == 0 { "- " } else { "  " });
        out.push_str(line);
        out.push('\n');
    }
}

// ---------------------------------------------------------------------------
// Editing metadata in place.

/// One `metadata.labels` or `metadata.annotations` map as laid out in an item.
#[derive(Debug, Default)]
struct MapLayout {
    /// Start of the line holding `labels:`.
    key_line: usize,
    block: bool,
    /// Each entry's key and where its key starts.
    entries: Vec<(String, usize)>,
    /// Where each entry's value ends (parallel to `entries`).
    value_ends: Vec<usize>,
    /// Where the map ends (the start of whatever follows it).
    end: usize,
}

#[derive(Debug, Default)]
struct MetaLayout {
    /// The keys inside `metadata` (a block map) and where each starts.
    keys: Vec<(String, usize)>,
    /// Where the metadata map ends.
    end: usize,
    maps: BTreeMap<String, MapLayout>,
}

/// Where to insert an entry with `key` among `entries` so that sorted maps stay
/// sorted: before the first greater key, or at `end`.
fn sorted_position(text: &str, entries: &[(String, usize)], key: &str, end: usize) -> usize {
    let Some((_, next)) = entries.iter().find(|(k, _)| k.as_str() > key) else {
        return line_start_at_or_after(text, end);
    };
    // Comment lines right above a key belong to it: the new entry goes above them.
    let mut at = line_start(text, *next);
    while at > 0 {
        let prev = line_start(text, at - 1);
        if !text[prev..at].trim_start().starts_with('#') {
            break;
        }
        at = prev;
    }
    at
}

fn meta_layout(text: &str, base: usize) -> Option<MetaLayout> {
    let mut walker = Walker::default();
    let mut layout = MetaLayout::default();
    let mut open_map: Option<String> = None;
    for next in Parser::new_from_str_with_options(text, parser_options()) {
        let (event, span) = next.ok()?;
        let at = offset(&span.start, text);
        let depth = walker.frames.len();
        let in_meta = depth > base + 1 && walker.frames[base].key_is("metadata");
        if let (Event::MappingStart(style, ..), true) =
            (&event, in_meta || (depth == base + 1 && walker.frames[base].key_is("metadata")))
        {
            if depth == base + 1 && *style == StructureStyle::Flow {
                return None;
            }
            if depth == base + 2 {
                if let Some(key) = walker.frames[base + 1].key.as_deref() {
                    if let Some(map) = layout.maps.get_mut(key) {
                        map.block = *style == StructureStyle::Block;
                        open_map = Some(key.to_string());
                    }
                }
            }
        }
        if matches!(event, Event::MappingEnd) && depth == base + 3 {
            if let Some(key) = open_map.take() {
                if let Some(map) = layout.maps.get_mut(&key) {
                    map.end = at;
                }
            }
        }
        if matches!(event, Event::MappingEnd) && depth == base + 2 && walker.frames[base].key_is("metadata") {
            layout.end = at;
        }
        let step = walker.step(&event);
        if let Step::Key(key) = step {
            if depth == base + 2 && walker.frames[base].key_is("metadata") {
                layout.keys.push((key.to_string(), at));
                if key == "labels" || key == "annotations" {
                    layout
                        .maps
                        .insert(key.to_string(), MapLayout { key_line: line_start(text, at), ..Default::default() });
                }
            } else if depth == base + 3 {
                if let Some(map) = open_map.as_ref().and_then(|k| layout.maps.get_mut(k)) {
                    map.entries.push((key.to_string(), at));
                }
            }
        } else if let (Step::Value(_), true) = (&step, depth == base + 3) {
            if let Some(map) = open_map.as_ref().and_then(|k| layout.maps.get_mut(k)) {
                map.value_ends.push(offset(&span.end, text));
            }
        }
    }
    Some(layout)
}

/// The item's text with `patch` applied: line edits where the layout allows,
/// otherwise the item alone re-serialised (losing its comments).
pub fn patched_text(chunk: &Chunk<'_>, patch: &crate::model::MetaPatch) -> Result<Patched, String> {
    if let Some(text) = edit_metadata(chunk, patch).filter(|t| edited_as_planned(chunk, patch, t)) {
        return Ok(Patched { text, rewritten: false });
    }
    // Re-serialising reads every scalar as YAML 1.2 and writes it so; where
    // kubectl (YAML 1.1) would have read it otherwise, that changes the object.
    if let Some((line, value)) = yaml11_differs(&chunk.text) {
        return Err(format!(
            "its labels must change, but its metadata is not laid out so that olm-rbac can edit lines (flow style, anchors, aliases or tags), and rewriting it would change `{value}` (line {}), which kubectl's YAML 1.1 reads differently: write metadata.labels as a plain block map, or quote that value",
            chunk.line + line - 1
        ));
    }
    let mut value: serde_json::Value = parse_item(chunk).map_err(|e| e.message)?;
    let metadata = value
        .as_object_mut()
        .map(|o| o.entry("metadata").or_insert_with(|| serde_json::json!({})))
        .and_then(|m| m.as_object_mut())
        .ok_or("metadata is not a mapping")?;
    let (labels, annotations) = patch.apply(&chunk.header);
    for (key, map) in [("labels", labels), ("annotations", annotations)] {
        if map.is_empty() {
            metadata.remove(key);
        } else {
            let map = map.into_iter().map(|(k, v)| (k, serde_json::Value::String(v))).collect();
            metadata.insert(key.to_string(), serde_json::Value::Object(map));
        }
    }
    let text = to_yaml(&value)?;
    let text = match chunk.layout {
        Layout::Document => text,
        Layout::SeqEntry { indent } => {
            let mut out = String::new();
            as_seq_entry(&text, indent, &mut out);
            out
        }
    };
    Ok(Patched { text, rewritten: true })
}

/// An item's text after a patch, and whether it had to be re-serialised
/// whole (losing comments and layout) rather than edited line by line.
pub struct Patched {
    pub text: String,
    pub rewritten: bool,
}

/// The first plain scalar (1-based line within `text`, and the scalar) that a
/// YAML 1.1 reader such as kubectl's reads as something else than a YAML 1.2
/// reader: `yes`/`no`/`on`/`off`/`y`/`n`, octal `0644`, binary `0b1`, digits
/// with `_`, sexagesimal `1:30`, exponents without a dot `1e3`.
pub fn yaml11_differs(text: &str) -> Option<(usize, String)> {
    for next in Parser::new_from_str_with_options(text, parser_options()) {
        let Ok((Event::Scalar(value, ScalarStyle::Plain, _, None), span)) = next else { continue };
        if yaml11_scalar_differs(&value) {
            return Some((span.start.line(), value.into_owned()));
        }
    }
    None
}

fn yaml11_scalar_differs(v: &str) -> bool {
    const BOOLS: [&str; 16] =
        ["y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"];
    let unsigned = v.strip_prefix(['-', '+']).unwrap_or(v);
    let digits = |s: &str, ok: fn(u8) -> bool| !s.is_empty() && s.bytes().all(ok);
    let octal =
        unsigned.len() > 1 && unsigned.starts_with('0') && digits(&unsigned[1..], |b| (b'0'..=b'7').contains(&b));
    let binary = unsigned.strip_prefix("0b").is_some_and(|r| digits(r, |b| b == b'0' || b == b'1' || b == b'_'));
    let underscored = unsigned.contains('_') && digits(unsigned, |b| b.is_ascii_digit() || b == b'_' || b == b'.');
    let sexagesimal = unsigned.contains(':')
        && unsigned.split(':').all(|part| digits(part, |b| b.is_ascii_digit() || b == b'.'))
        && !unsigned.starts_with('0');
    let exponent = unsigned.split_once(['e', 'E']).is_some_and(|(m, e)| {
        digits(m, |b| b.is_ascii_digit()) && digits(e.strip_prefix(['-', '+']).unwrap_or(e), |b| b.is_ascii_digit())
    });
    BOOLS.contains(&v) || octal || binary || underscored || sexagesimal || exponent
}

/// Reads the edited text back and checks that its labels and annotations are
/// exactly the planned ones: line edits are placed by position, and a layout
/// they misjudge must not reach the output.
fn edited_as_planned(chunk: &Chunk<'_>, patch: &crate::model::MetaPatch, edited: &str) -> bool {
    let header = match chunk.layout {
        Layout::Document => split_documents(edited).ok().and_then(|d| (d.len() == 1).then(|| d[0].header.clone())),
        Layout::SeqEntry { .. } => {
            let list = format!("items:\n{edited}");
            split_list(&list).ok().flatten().and_then(|l| (l.items.len() == 1).then(|| l.items[0].header.clone()))
        }
    };
    let Some(header) = header else { return false };
    let mut rest_before = chunk.header.clone();
    let mut rest_after = header.clone();
    for h in [&mut rest_before, &mut rest_after] {
        h.labels.clear();
        h.annotations.clear();
    }
    rest_before == rest_after && (header.labels, header.annotations) == patch.apply(&chunk.header)
}

/// Applies label and annotation edits to one item's text as whole-line edits,
/// so that everything else (comments, order, quoting) stays as it was, and an
/// edit undone later restores the original bytes. `None` when the metadata is
/// not laid out in block style; the caller then re-serialises the item.
pub fn edit_metadata(chunk: &Chunk<'_>, patch: &crate::model::MetaPatch) -> Option<String> {
    use crate::model::Edit;
    if chunk.indirect {
        return None;
    }
    let text: &str = &chunk.text;
    let base = usize::from(matches!(chunk.layout, Layout::SeqEntry { .. }));
    let layout = meta_layout(text, base)?;
    let eol = line_ending(text);
    let first_key = layout.keys.first()?.1;
    let meta_col = first_key - line_start(text, first_key);
    if layout.keys.iter().any(|(_, at)| !text[line_start(text, *at)..*at].trim().is_empty()) {
        return None;
    }
    // (start, end, replacement), applied from the end backwards.
    let mut splices: Vec<(usize, usize, String)> = Vec::new();
    // In metadata's sorted order, so that insertions at one place come out sorted.
    for (map_key, edits) in [("annotations", &patch.annotations), ("labels", &patch.labels)] {
        if edits.is_empty() {
            continue;
        }
        let removes: BTreeSet<&str> = edits
            .iter()
            .map(|e| match e {
                Edit::Remove(k) | Edit::Set(k, _) => k.as_str(),
            })
            .collect();
        let sets: BTreeMap<&str, &str> = edits
            .iter()
            .filter_map(|e| match e {
                Edit::Set(k, v) => Some((k.as_str(), v.as_str())),
                Edit::Remove(_) => None,
            })
            .collect();
        let line = |indent: usize, k: &str, v: &str| -> Option<String> {
            let entry = to_yaml(&BTreeMap::from([(k, v)])).ok()?;
            Some(format!("{}{}{eol}", " ".repeat(indent), entry.trim_end_matches('\n')))
        };
        match layout.maps.get(map_key) {
            Some(map) => {
                if !map.block || map.entries.is_empty() || map.value_ends.len() != map.entries.len() {
                    return None; // flow style, or a value that is not a scalar
                }
                // An entry is its lines up to the end of its value's line; comments on
                // the lines after it belong to what follows.
                let ends: Vec<usize> = map.value_ends.iter().map(|&e| line_end_after(text, e)).collect();
                let remaining = map.entries.iter().filter(|(k, _)| !removes.contains(k.as_str())).count();
                if remaining == 0 && sets.is_empty() {
                    splices.push((map.key_line, *ends.last()?, String::new()));
                    continue;
                }
                for ((key, at), end) in map.entries.iter().zip(ends.iter().copied()) {
                    let start = line_start(text, *at);
                    if !text[start..*at].trim().is_empty() {
                        return None;
                    }
                    if removes.contains(key.as_str()) {
                        splices.push((start, end, String::new()));
                    }
                }
                let col = map.entries.first().map(|(_, at)| *at - line_start(text, *at))?;
                let kept: Vec<(String, usize)> =
                    map.entries.iter().filter(|(k, _)| !removes.contains(k.as_str())).cloned().collect();
                let last_end = *ends.last()?;
                for (k, v) in &sets {
                    let at = sorted_position(text, &kept, k, last_end);
                    splices.push((at, at, line(col, k, v)?));
                }
            }
            None if sets.is_empty() => {}
            None => {
                let at = sorted_position(text, &layout.keys, map_key, line_start_at_or_after(text, layout.end));
                let mut block = format!("{}{map_key}:{eol}", " ".repeat(meta_col));
                for (k, v) in &sets {
                    block.push_str(&line(meta_col + 2, k, v)?);
                }
                splices.push((at, at, block));
            }
        }
    }
    // From the end backwards; insertions at one position go in reverse so that
    // they come out in the order they were planned (sorted by key).
    let mut order: Vec<usize> = (0..splices.len()).collect();
    order.sort_by(|&a, &b| (splices[b].0, splices[b].1, b).cmp(&(splices[a].0, splices[a].1, a)));
    let mut out = text.to_string();
    let mut floor = usize::MAX;
    for i in order {
        let (start, end, replacement) = &splices[i];
        if *end > floor {
            return None; // overlapping edits: not a layout this handles
        }
        // Inserting after a last line without its newline: end that line first.
        if !replacement.is_empty() && *start == text.len() && !text.ends_with('\n') {
            out.replace_range(*start..*end, &format!("{eol}{replacement}"));
        } else {
            out.replace_range(*start..*end, replacement);
        }
        floor = *start;
    }
    Some(out)
}

// ---------------------------------------------------------------------------
// The walk.

#[derive(Debug, Default)]
struct Frame<'a> {
    is_map: bool,
    expect_key: bool,
    key: Option<Cow<'a, str>>,
    index: usize,
}

impl Frame<'_> {
    fn key_is(&self, k: &str) -> bool {
        self.key.as_deref() == Some(k)
    }

    fn segment(&self) -> Option<String> {
        if self.is_map {
            self.key.as_ref().map(|k| k.to_string())
        } else {
            Some(format!("[{}]", self.index))
        }
    }
}

/// What one event meant for the structure.
#[derive(Debug)]
enum Step<'a> {
    Key(Cow<'a, str>),
    /// A scalar (or alias, `None`) in value position.
    Value(Option<Cow<'a, str>>),
    Open,
    /// A collection closed; the walker is back at its parent.
    Close,
    Other,
}

/// Tracks the path from the root to the current event.
#[derive(Debug, Default)]
struct Walker<'a> {
    frames: Vec<Frame<'a>>,
}

impl<'a> Walker<'a> {
    fn step(&mut self, event: &Event<'a>) -> Step<'a> {
        match event {
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let is_map = matches!(event, Event::MappingStart(..));
                self.frames.push(Frame { is_map, expect_key: is_map, key: None, index: 0 });
                Step::Open
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.frames.pop();
                self.after_value();
                Step::Close
            }
            Event::Scalar(value, ..) => {
                if let Some(top) = self.frames.last_mut() {
                    if top.is_map && top.expect_key {
                        top.expect_key = false;
                        top.key = Some(value.clone());
                        return Step::Key(value.clone());
                    }
                }
                let step = Step::Value(Some(value.clone()));
                self.after_value();
                step
            }
            Event::Alias(..) | Event::UnresolvedAlias(..) => {
                if let Some(top) = self.frames.last_mut() {
                    if top.is_map && top.expect_key {
                        top.expect_key = false;
                        top.key = None;
                        return Step::Key(Cow::Borrowed(""));
                    }
                }
                self.after_value();
                Step::Value(None)
            }
            _ => Step::Other,
        }
    }

    fn after_value(&mut self) {
        if let Some(top) = self.frames.last_mut() {
            if top.is_map {
                top.expect_key = true;
            } else {
                top.index += 1;
            }
        }
    }
}

/// What the walk learns of one item: its header, the ranges no view reads
/// (absolute), and whether it is [`Chunk::indirect`].
type ItemHeader = (Header, Vec<Range<usize>>, bool);

/// Subtrees that no view reads but that make up most of a CRD's bytes: the
/// schema of each version (v1) and the validation schema (v1beta1).
const ELIDED: [&[&str]; 2] = [&["spec", "versions", "*", "schema"], &["spec", "validation"]];

/// Collects the [`Header`] and elidable ranges (absolute offsets) of each item
/// rooted at frame index `base`.
struct HeaderCollector {
    base: usize,
    headers: Vec<Header>,
    elide: Vec<Vec<Range<usize>>>,
    /// Per item: see [`Chunk::indirect`].
    indirect: Vec<bool>,
    /// Header keys seen in the current item, by map (0 root, 1 metadata,
    /// 2 labels, 3 annotations), to notice a repeated one.
    seen: BTreeSet<(u8, String)>,
    /// Where the first merge key (`<<`) is, if any.
    merge_key: Option<usize>,
    /// An elided collection being walked: its start and its frame depth.
    open: Option<(usize, usize)>,
}

impl HeaderCollector {
    fn new(base: usize) -> Self {
        HeaderCollector {
            base,
            headers: Vec::new(),
            elide: Vec::new(),
            indirect: Vec::new(),
            seen: BTreeSet::new(),
            merge_key: None,
            open: None,
        }
    }

    fn begin(&mut self) {
        self.headers.push(Header::default());
        self.elide.push(Vec::new());
        self.indirect.push(false);
        self.seen.clear();
    }

    fn mark_indirect(&mut self) {
        if let Some(flag) = self.indirect.last_mut() {
            *flag = true;
        }
    }

    /// Called before the walker takes `event`, which starts at byte `at`.
    fn track(&mut self, walker: &Walker<'_>, event: &Event<'_>, at: usize) {
        let indirect = match event {
            Event::Alias(..) | Event::UnresolvedAlias(..) => true,
            Event::Scalar(value, style, anchor, tag) => {
                let key = walker.frames.last().is_some_and(|f| f.is_map && f.expect_key);
                if key && value == "<<" && (*style == ScalarStyle::Plain || tag.is_some()) {
                    self.merge_key.get_or_insert(at);
                }
                *anchor != 0 || tag.is_some()
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
            (None, Event::MappingStart(..) | Event::SequenceStart(..)) => {
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
                    self.open = Some((at, depth + 1));
                }
            }
            _ => {}
        }
    }

    fn observe(&mut self, walker: &Walker<'_>, step: &Step<'_>) {
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
    /// indirect. A merge key anywhere is refused: YAML readers apply it
    /// differently (Kubernetes' lets a `<<` override keys written before it,
    /// the YAML spec does not), so no reading of the item can be trusted.
    fn finish(self, src: &str) -> Result<Vec<ItemHeader>, YamlError> {
        if let Some(at) = self.merge_key {
            let line = LineCounter::default().line_at(src, at);
            return Err(YamlError {
                message: "the input uses a YAML merge key (<<), which YAML readers apply differently (Kubernetes' lets it override keys written before it); write the keys out".into(),
                pos: Pos { line, col: src[line_start(src, at)..at].chars().count() + 1 },
            });
        }
        Ok(self.headers.into_iter().zip(self.elide).zip(self.indirect).map(|((h, e), i)| (h, e, i)).collect())
    }
}

// ---------------------------------------------------------------------------
// Offsets and lines.

fn offset(marker: &granit_parser::Marker, src: &str) -> usize {
    marker.byte_offset().unwrap_or(src.len()).min(src.len())
}

fn pos_of(span: &Span) -> Pos {
    Pos { line: span.start.line(), col: span.start.col() + 1 }
}

fn scan_error(e: &granit_parser::ScanError) -> YamlError {
    let m = e.marker();
    YamlError { message: format!("malformed YAML: {}", e.info()), pos: Pos { line: m.line(), col: m.col() + 1 } }
}

fn line_start(src: &str, at: usize) -> usize {
    src[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The line boundary a node ending at `at` ends on: the start of `at`'s line
/// when only indentation precedes it there (the next token's line), otherwise
/// the start of the next line.
fn line_start_at_or_after(src: &str, at: usize) -> usize {
    let ls = line_start(src, at);
    if src[ls..at].bytes().all(|b| b == b' ' || b == b'\t') {
        ls
    } else {
        src[at..].find('\n').map_or(src.len(), |i| at + i + 1)
    }
}

/// Absolute ranges made relative to `chunk`, dropping any that stray outside it.
fn relative(ranges: Vec<Range<usize>>, chunk: Range<usize>) -> Vec<Range<usize>> {
    ranges
        .into_iter()
        .filter(|r| chunk.start <= r.start && r.start <= r.end && r.end <= chunk.end)
        .map(|r| r.start - chunk.start..r.end - chunk.start)
        .collect()
}

/// The line ending a text uses: `\r\n` if it has any, else `\n`. Lines olm-rbac
/// writes into or after someone's text follow it.
pub fn line_ending(text: &str) -> &'static str {
    if text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

/// `text` (written with `\n`) with the given line ending.
pub fn with_line_ending(text: &str, eol: &str) -> String {
    if eol == "\n" {
        text.to_string()
    } else {
        text.replace('\n', eol)
    }
}

/// The start of the line after the one holding `at` (or the end of the text).
fn line_end_after(src: &str, at: usize) -> usize {
    if at > 0 && src.as_bytes().get(at - 1) == Some(&b'\n') {
        return at;
    }
    src[at..].find('\n').map_or(src.len(), |i| at + i + 1)
}

/// Line numbers of increasing offsets, counted once over the text.
#[derive(Default)]
struct LineCounter {
    at: usize,
    newlines: usize,
}

impl LineCounter {
    fn line_at(&mut self, src: &str, at: usize) -> usize {
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
fn dash_line(src: &str, node: usize) -> Option<usize> {
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
fn after_marker_line(src: &str, after: usize) -> usize {
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
fn marker_line_start(src: &str, at: usize) -> usize {
    let ls = line_start(src, at);
    if src[ls..at].trim().is_empty() {
        ls
    } else {
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) const LIST: &str = "apiVersion: config.kubernetes.io/v1 # c\nkind: ResourceList\nitems:\n# lead\n- apiVersion: v1\n  kind: ConfigMap # x\n  metadata:\n    name: a\n    labels:\n      app: \"on\"\n  data:\n    k: |\n      hi\n\n# between\n-   {apiVersion: v1, kind: Secret, metadata: {name: b, namespace: ns}}\n  # trailing\nfunctionConfig:\n  x: 1\n";

    #[test]
    fn cuts_items_exactly_and_reads_headers() {
        let list = split_list(LIST).unwrap().unwrap();
        assert_eq!(list.items.len(), 2);
        assert_eq!(
            list.items[0].text,
            "- apiVersion: v1\n  kind: ConfigMap # x\n  metadata:\n    name: a\n    labels:\n      app: \"on\"\n  data:\n    k: |\n      hi\n\n# between\n"
        );
        assert_eq!(
            list.items[1].text,
            "-   {apiVersion: v1, kind: Secret, metadata: {name: b, namespace: ns}}\n  # trailing\n"
        );
        assert_eq!(list.items[0].header.kind.as_deref(), Some("ConfigMap"));
        assert_eq!(list.items[0].header.labels.get("app").map(String::as_str), Some("on"));
        assert_eq!(list.items[1].header.name.as_deref(), Some("b"));
        assert_eq!(list.items[1].header.namespace.as_deref(), Some("ns"));
        assert_eq!(list.entry("items"), Some("items:\n# lead\n"));
        assert_eq!(list.entry("functionConfig"), Some("functionConfig:\n  x: 1\n"));
        assert_eq!(list.kind.as_deref(), Some("ResourceList"));
        let whole: String = list.preamble.to_string()
            + list.entries[0].text
            + list.entries[1].text
            + list.entries[2].text
            + &list.items[0].text
            + &list.items[1].text
            + list.items_tail
            + list.entries[3].text;
        assert_eq!(whole, LIST);
    }

    #[test]
    fn flow_items_ask_for_normalising() {
        assert!(split_list("apiVersion: v1\nitems: [{a: 1}]\n").unwrap().is_none());
        assert!(split_list("{\"apiVersion\": \"v1\", \"items\": []}").unwrap().is_none());
        let n = normalize("{\"kind\": \"ResourceList\", \"items\": [{\"a\": \"on\"}]}").unwrap();
        let list = split_list(&n).unwrap().unwrap();
        assert_eq!(list.items.len(), 1);
        assert_eq!(list.items[0].text, "- a: \"on\"\n");
    }

    #[test]
    fn documents_keep_their_text() {
        let src = "# head\na: 1\n---\n# c\nkind: B\n...\n---\n---\nkind: C\nmetadata: {name: c}\n";
        let docs = split_documents(src).unwrap();
        let texts: Vec<&str> = docs.iter().map(|d| d.text.as_ref()).collect();
        assert_eq!(texts, ["# head\na: 1\n", "# c\nkind: B\n", "kind: C\nmetadata: {name: c}\n"]);
        assert_eq!(docs[2].header.name.as_deref(), Some("c"));
        assert_eq!(docs[1].line, 4);
    }

    #[test]
    fn malformed_yaml_reports_position() {
        let err = split_list("apiVersion: v1\nitems:\n- a: [\n").unwrap_err();
        assert_eq!((err.pos.line, err.pos.col), (3, 6));
        assert!(err.message.starts_with("malformed YAML"));
    }

    #[test]
    fn crd_schemas_are_blanked_for_views_with_lines_kept() {
        let crd = "kind: CustomResourceDefinition\nspec:\n  group: g.io\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        type: object # big\n    storage: true\n  - name: v2\n    schema: {openAPIV3Schema: {}}\n  names:\n    plural: ps\n";
        let docs = split_documents(crd).unwrap();
        let view = docs[0].view_text();
        assert_eq!(view.len(), crd.len());
        assert_eq!(view.lines().count(), crd.lines().count());
        assert!(!view.contains("openAPIV3Schema") && !view.contains("# big"));
        assert!(view.contains("    storage: true\n  - name: v2\n"));
        assert!(view.contains("  names:\n    plural: ps\n"));
        let list = format!(
            "apiVersion: v1\nkind: ResourceList\nitems:\n{}",
            crd.lines()
                .enumerate()
                .map(|(i, l)| format!("{}{l}\n", if i == 0 { "- " } else { "  " }))
                .collect::<String>()
        );
        let list = split_list(&list).unwrap().unwrap();
        assert_eq!(list.items[0].elide.len(), 2);
        assert!(!list.items[0].view_text().contains("openAPIV3Schema"));
    }

    fn patch(labels: Vec<crate::model::Edit>, annotations: Vec<crate::model::Edit>) -> crate::model::MetaPatch {
        crate::model::MetaPatch { labels, annotations }
    }

    #[test]
    fn metadata_edits_touch_only_their_lines_and_undo_exactly() {
        use crate::model::Edit::{Remove, Set};
        let original = "apiVersion: v1\nkind: ClusterRole\nmetadata:\n  creationTimestamp: null # keep\n  labels:\n    a: b\n  name: r\nrules: []\n";
        let docs = split_documents(original).unwrap();
        let add = patch(vec![Set("x/y".into(), "true".into())], vec![Set("note".into(), "on: off".into())]);
        let edited = edit_metadata(&docs[0], &add).unwrap();
        assert_eq!(
            edited,
            "apiVersion: v1\nkind: ClusterRole\nmetadata:\n  annotations:\n    note: \"on: off\"\n  creationTimestamp: null # keep\n  labels:\n    a: b\n    x/y: \"true\"\n  name: r\nrules: []\n"
        );
        let edited_docs = split_documents(&edited).unwrap();
        assert_eq!(edited_docs[0].header.labels.get("x/y").map(String::as_str), Some("true"));
        let undo = patch(vec![Remove("x/y".into())], vec![Remove("note".into())]);
        assert_eq!(edit_metadata(&edited_docs[0], &undo).unwrap(), original);
    }

    #[test]
    fn metadata_edits_in_list_items_and_flow_fallback() {
        use crate::model::Edit::Set;
        let list = "apiVersion: v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata:\n    name: a\n- kind: B\n  metadata: {name: b}\n";
        let list = split_list(list).unwrap().unwrap();
        let p = patch(vec![Set("k".into(), "no".into())], vec![]);
        assert_eq!(
            edit_metadata(&list.items[0], &p).unwrap(),
            "- kind: A\n  metadata:\n    labels:\n      k: \"no\"\n    name: a\n"
        );
        assert_eq!(edit_metadata(&list.items[1], &p), None, "flow metadata is not edited by lines");
        let patched = patched_text(&list.items[1], &p).unwrap();
        assert!(patched.rewritten);
        let reserialised = patched.text;
        assert!(
            reserialised.starts_with("- kind: B\n") && reserialised.contains("      k: \"no\"\n"),
            "{reserialised}"
        );
    }

    #[test]
    fn line_breaks_only_some_readers_see_are_refused() {
        for (text, what) in [
            ("kind: A # x\u{2028}- y\n", "LINE SEPARATOR (U+2028)"),
            ("kind: A\u{2029}\n", "PARAGRAPH SEPARATOR (U+2029)"),
            ("kind: A # \u{85}b\n", "NEXT LINE (U+0085)"),
            ("kind: A\rmetadata: {}\n", "a carriage return that is not followed by a line feed"),
        ] {
            let err = split_documents(text).unwrap_err();
            assert!(err.message.contains(what), "{}", err.message);
            assert_eq!(err.pos.line, 1);
            assert!(split_list(text).is_err() && normalize(text).is_err());
        }
        assert!(
            split_documents("kind: A\r\nmetadata: {name: \"\u{2027}\"}\r\n").is_ok(),
            "CRLF and other characters are fine"
        );
    }

    #[test]
    fn merge_keys_are_refused_wherever_they_are() {
        for text in [
            "kind: A\nmetadata:\n  <<: {name: a}\n",
            "kind: A\nrules:\n- apiGroups: [x]\n  <<: {apiGroups: [\"*\"]}\n",
            "kind: A\nspec: {!!merge <<: {a: 1}}\n",
        ] {
            let err = split_documents(text).unwrap_err();
            assert!(err.message.contains("merge key"), "{text}: {}", err.message);
        }
        // A key that only looks like one is fine.
        assert!(split_documents("kind: A\ndata: {\"<<\": x}\n").is_ok());
    }

    #[test]
    fn scalars_yaml_1_1_reads_otherwise_are_found() {
        for v in ["yes", "No", "on", "OFF", "y", "0644", "-0755", "0b101", "1_000", "1:30", "1e3", "2E-5"] {
            assert!(yaml11_scalar_differs(v), "{v}");
        }
        for v in ["true", "false", "0", "10", "0x1F", "1.5", "v1", "a:b", "", "null", "~", "08:00:00Z", "app"] {
            assert!(!yaml11_scalar_differs(v), "{v}");
        }
        assert_eq!(yaml11_differs("a: \"0644\"\nb: 'yes'\nc: |\n  on\nd: 0400\n"), Some((5, "0400".into())));
    }

    #[test]
    fn path_at_names_nested_keys() {
        let text = "spec:\n  apis:\n    inclde: [a]\n";
        assert_eq!(path_at(text, 3, 5, 0).as_deref(), Some("spec.apis.inclde"));
        assert_eq!(path_at("- spec:\n    mode: x\n", 2, 11, 1).as_deref(), Some("spec.mode"));
    }
}
