//! Cutting: a stream into the exact text of each item (a `ResourceList`
//! entry or a whole document), its header collected in the same walk.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::ops::Range;

use granit_parser::{Event, Parser, ScalarStyle, Span, StructureStyle};

use super::header::{notes_of, resolve_header, HeaderCollector, ItemHeader};
use super::merge::{Dispute, MergeCheck};
use super::quoted;
use super::text::{
    after_marker_line, dash_line, first_disputed_break, line_start, line_start_at_or_after, marker_line_start, offset,
    pos_of, relative, scan_error, LineCounter,
};
use super::walk::{parser_options, Step, Walker};
use super::{options_for, to_yaml, Chunk, Layout, ListText, Pos, TopEntry, ViewError, YamlError};

/// What [`split_list`] says of a stream with more than one document.
const SECOND_DOCUMENT: &str = "expected one ResourceList document, found another document";

/// Is this [`split_list`]'s error for a stream of several documents (plain manifests, most likely)?
pub fn is_second_document(e: &YamlError) -> bool {
    e.message == SECOND_DOCUMENT
}

/// Cuts a `ResourceList` into top-level entries and item chunks.
///
/// Returns `Ok(None)` when the list is not written in block style (JSON, or
/// `items` as a flow sequence); the caller then re-serialises it, see
/// [`normalize`].
pub fn split_list(src: &str) -> Result<Option<ListText<'_>>, YamlError> {
    check_line_breaks(src)?;
    let Some(scan) = ListScan::walk(src)? else { return Ok(None) };
    scan.cut(src)
}

/// What one walk over a `ResourceList` finds: where each top-level key's
/// line starts, where each item's node starts and where the sequence of items
/// ends, the items' headers, and where the document ends.
struct ListScan {
    key_starts: Vec<(String, usize)>,
    item_starts: Vec<usize>,
    items_end: Option<usize>,
    headers: HeaderCollector,
    documents: usize,
    doc_end: usize,
    seen_root: bool,
    api_version: Option<String>,
    kind: Option<String>,
}

impl ListScan {
    /// Walks the list once; `Ok(None)` when it is not in block style.
    fn walk(src: &str) -> Result<Option<ListScan>, YamlError> {
        let mut scan = ListScan {
            key_starts: Vec::new(),
            item_starts: Vec::new(),
            items_end: None,
            headers: HeaderCollector::new(2),
            documents: 0,
            doc_end: src.len(),
            seen_root: false,
            api_version: None,
            kind: None,
        };
        let mut walker = Walker::default();
        let mut merges = MergeCheck::new(src.len());
        for next in Parser::new_from_str_with_options(src, parser_options()) {
            let (event, span) = next.map_err(|e| scan_error(&e))?;
            let depth = walker.frames.len();
            if let Some(dispute) = merges.track(&event, &span)? {
                let in_item = depth >= 2 && walker.frames[0].key_is("items");
                place(dispute, &mut scan.headers, in_item)?;
            }
            if !scan.document(&event, &span, depth, src)? {
                return Ok(None);
            }
            let in_items = depth >= 1 && walker.frames[0].key_is("items");
            if depth == 1
                && in_items
                && !walker.frames[0].expect_key
                && event.is_node()
                && !items_in_block(&event, &span)?
            {
                return Ok(None);
            }
            if depth == 2 && in_items && event.is_node() {
                scan.item_starts.push(offset(&span.start, src));
                scan.headers.begin();
            }
            if depth == 2 && in_items && matches!(event, Event::SequenceEnd) {
                scan.items_end = Some(offset(&span.start, src));
            }
            if in_items && depth >= 2 {
                scan.headers.track(&walker, &event, offset(&span.start, src));
            }
            let step = walker.step(&event);
            if in_items && depth >= 2 {
                scan.headers.observe(&walker, &step);
            }
            match step {
                Step::Key(key) if depth == 1 => {
                    scan.key_starts.push((key.into_owned(), line_start(src, offset(&span.start, src))));
                }
                Step::Value(value) if depth == 1 => {
                    let value = value.map(Cow::into_owned);
                    if walker.frames[0].key_is("apiVersion") {
                        scan.api_version = value;
                    } else if walker.frames[0].key_is("kind") {
                        scan.kind = value;
                    }
                }
                _ => {}
            }
        }
        Ok(Some(scan))
    }

    /// Checks an event against the shape of the whole: one document, a
    /// mapping at its root. `Ok(false)` when the root is in flow style.
    fn document(&mut self, event: &Event<'_>, span: &Span, depth: usize, src: &str) -> Result<bool, YamlError> {
        match event {
            Event::DocumentStart(..) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(YamlError { message: SECOND_DOCUMENT.into(), pos: pos_of(span) });
                }
            }
            Event::DocumentEnd if self.seen_root && self.doc_end == src.len() => {
                self.doc_end = offset(&span.start, src);
            }
            Event::MappingStart(style, ..) if depth == 0 => {
                self.seen_root = true;
                if *style == StructureStyle::Flow {
                    return Ok(false);
                }
            }
            Event::SequenceStart(..) | Event::Scalar(..) | Event::Alias(..) if depth == 0 => {
                return Err(YamlError {
                    message: "the input is not a ResourceList: expected a mapping at the top level".into(),
                    pos: pos_of(span),
                });
            }
            _ => {}
        }
        Ok(true)
    }

    /// Cuts the text at what the walk found: the preamble, each top-level
    /// entry, each item. `Ok(None)` when the items are not laid out so that
    /// they can be cut exactly.
    fn cut(self, src: &str) -> Result<Option<ListText<'_>>, YamlError> {
        let mut seen_keys = BTreeSet::new();
        for (key, at) in &self.key_starts {
            if !seen_keys.insert(key.as_str()) {
                return Err(YamlError {
                    message: format!("the ResourceList has the key {key:?} twice"),
                    pos: Pos { line: LineCounter::default().line_at(src, *at), col: 1 },
                });
            }
        }
        let first_key = self.key_starts.first().map_or(self.doc_end, |k| k.1);
        let mut list = ListText {
            preamble: &src[..first_key],
            entries: Vec::new(),
            items: Vec::new(),
            items_tail: "",
            item_indent: 0,
            api_version: self.api_version,
            kind: self.kind,
        };
        let ends: Vec<usize> = self.key_starts.iter().skip(1).map(|k| k.1).chain([self.doc_end]).collect();
        let item_headers = self.headers.finish();
        let mut entry_lines = LineCounter::default();
        for ((key, start), end) in self.key_starts.into_iter().zip(ends) {
            let line = entry_lines.line_at(src, start);
            if key == "items" && !self.item_starts.is_empty() {
                let Some(items) = cut_items(src, start..end, &self.item_starts, self.items_end, &item_headers)? else {
                    return Ok(None);
                };
                list.item_indent = items.indent;
                list.items = items.chunks;
                list.entries.push(TopEntry { key, text: &src[start..items.first], line });
                list.items_tail = &src[items.last_end..end];
            } else {
                list.entries.push(TopEntry { key, text: &src[start..end], line });
            }
        }
        Ok(Some(list))
    }
}

/// The `items` value must be a block sequence (or empty); a flow sequence is
/// `Ok(false)`, anything else an error.
fn items_in_block(event: &Event<'_>, span: &Span) -> Result<bool, YamlError> {
    match event {
        Event::SequenceStart(StructureStyle::Flow, ..) => Ok(false),
        Event::SequenceStart(StructureStyle::Block, ..) | Event::Scalar(..) => Ok(true),
        _ => Err(YamlError { message: "ResourceList field items must be a list".into(), pos: pos_of(span) }),
    }
}

/// The items of a list, cut at the lines of their dashes.
struct Items<'a> {
    chunks: Vec<Chunk<'a>>,
    /// Column of the dashes.
    indent: usize,
    /// Where the first item's text starts, and where the last one's ends.
    first: usize,
    last_end: usize,
}

/// Cuts the items of the `items` entry at `entry`; `Ok(None)` when an item's
/// dash is not where a line cut can separate it from the one before.
fn cut_items<'a>(
    src: &'a str,
    entry: Range<usize>,
    item_starts: &[usize],
    items_end: Option<usize>,
    item_headers: &[ItemHeader],
) -> Result<Option<Items<'a>>, YamlError> {
    let mut chunk_starts = Vec::with_capacity(item_starts.len());
    for &node_start in item_starts {
        match dash_line(src, node_start) {
            Some(s) if s >= chunk_starts.last().copied().unwrap_or(entry.start) => chunk_starts.push(s),
            _ => return Ok(None),
        }
    }
    let last_end = items_end.map_or(entry.end, |e| line_start_at_or_after(src, e).min(entry.end));
    let indent = chunk_starts.first().map_or(0, |&s| src[s..].len() - src[s..].trim_start_matches(' ').len());
    let bounds: Vec<usize> = chunk_starts.iter().skip(1).copied().chain([last_end]).collect();
    let mut lines = LineCounter::default();
    let mut chunks = Vec::with_capacity(chunk_starts.len());
    for (i, (&s, e)) in chunk_starts.iter().zip(bounds).enumerate() {
        let (header, elide, indirect, disputes) = item_headers.get(i).cloned().unwrap_or_default();
        let notes = notes_of(&header, disputes)?;
        let mut chunk = Chunk {
            text: Cow::Borrowed(&src[s..e]),
            layout: Layout::SeqEntry { indent },
            line: lines.line_at(src, s),
            header,
            elide: relative(elide, s..e),
            indirect,
            notes,
        };
        resolve_header(&mut chunk)?;
        chunks.push(chunk);
    }
    let first = chunk_starts.first().copied().unwrap_or(entry.start);
    Ok(Some(Items { chunks, indent, first, last_end }))
}

/// Cuts a multi-document stream into documents (empty ones are skipped).
///
/// Quoted scalars continued left of where the YAML specification allows are
/// read as Kubernetes' reader reads them: the text is cut through a padded
/// copy and every offset taken back to it (`quoted`).
pub fn split_documents(src: &str) -> Result<Vec<Chunk<'_>>, YamlError> {
    check_line_breaks(src)?;
    let mut under_indented = false;
    match documents_in(src, src, &|at| at, &mut under_indented) {
        Err(e) if under_indented => match quoted::padded(src) {
            Some(padded) => documents_in(&padded.text, src, &|at| padded.original(at), &mut under_indented),
            None => Err(e),
        },
        cut => cut,
    }
}

/// Cuts `read` into documents, each chunk's text taken from `original` at
/// the offsets `back` gives for `read`'s (the two differ only where `quoted`
/// padded a continuation line). `under_indented` is set when the parser
/// refused such a line.
fn documents_in<'a>(
    read: &str,
    original: &'a str,
    back: &dyn Fn(usize) -> usize,
    under_indented: &mut bool,
) -> Result<Vec<Chunk<'a>>, YamlError> {
    let src = read;
    let mut walker = Walker::default();
    let mut merges = MergeCheck::new(src.len());
    let mut headers = HeaderCollector::new(0);
    let mut docs: Vec<Doc> = Vec::new();
    // Where the next implicit document would start (after a `...` line).
    let mut resume = 0usize;
    // Kubernetes' stream reader splits only at `---` lines and go-yaml reads
    // the first document of each piece: whether this piece has one already.
    let mut piece_has_content = false;
    for next in Parser::new_from_str_with_options(src, parser_options()) {
        let (event, span) = next.map_err(|e| {
            *under_indented = quoted::is_under_indented(&e);
            scan_error(&e)
        })?;
        if let Some(dispute) = merges.track(&event, &span)? {
            place(dispute, &mut headers, true)?;
        }
        match &event {
            Event::DocumentStart(explicit, _) => {
                piece_has_content &= !*explicit;
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
            if piece_has_content {
                return Err(YamlError {
                    message: "this document follows another after a ... line, with no --- line between: Kubernetes' reader (kubectl, OLM, opm) splits documents only at --- lines and reads the first of the two, so the cluster would never see this one; write --- before it".into(),
                    pos: pos_of(&span),
                });
            }
            piece_has_content = true;
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
    chunks_of(docs, headers, src, original, back)
}

/// Where a document stands in the text read, and whether it holds a mapping.
struct Doc {
    start: usize,
    end: usize,
    content: bool,
}

/// The chunks of the documents with content, their text taken from
/// `original` (see [`documents_in`]).
fn chunks_of<'a>(
    docs: Vec<Doc>,
    headers: HeaderCollector,
    src: &str,
    original: &'a str,
    back: &dyn Fn(usize) -> usize,
) -> Result<Vec<Chunk<'a>>, YamlError> {
    let mut item_headers = headers.finish().into_iter();
    let mut lines = LineCounter::default();
    docs.into_iter()
        .filter(|d| d.content)
        .map(|d| {
            let (header, elide, indirect, disputes) = item_headers.next().unwrap_or_default();
            let notes = notes_of(&header, disputes)?;
            let range = back(d.start)..back(d.end.max(d.start));
            let elide = elide.into_iter().map(|r| back(r.start)..back(r.end)).collect();
            let mut chunk = Chunk {
                text: Cow::Borrowed(&original[range.clone()]),
                layout: Layout::Document,
                line: lines.line_at(src, d.start),
                header,
                elide: relative(elide, range),
                indirect,
                notes,
            };
            resolve_header(&mut chunk)?;
            Ok(chunk)
        })
        .collect()
}

/// A merge that readers apply differently: said on its item where no view
/// reads (a CRD's schema: the cluster and olm-rbac decide nothing by it),
/// refused anywhere else.
fn place(dispute: Dispute, headers: &mut HeaderCollector, in_item: bool) -> Result<(), YamlError> {
    if in_item && headers.in_elided() && dispute.may_be_noted() {
        headers.note(dispute);
        return Ok(());
    }
    Err(dispute.into_error())
}

/// Refuses characters and lines that YAML readers disagree about.
///
/// Kubernetes' reader (go-yaml, YAML 1.1) ends a line at NEL (U+0085), LINE
/// SEPARATOR (U+2028), PARAGRAPH SEPARATOR (U+2029) and a carriage return on
/// its own; olm-rbac's (YAML 1.2) does not. Text after one in a comment would
/// be a comment to olm-rbac and a rule or a label to the cluster.
///
/// Before go-yaml reads anything, Kubernetes' stream reader (apimachinery's
/// `YAMLReader`, which kubectl, operator-controller and opm use) splits the
/// stream at every line that starts with `---`, and refuses one where other
/// text than a comment follows. YAML starts a document only at `---` followed
/// by white space or the line's end: a line such as `---#`, `--- x` or `----`
/// is refused here, so that both split the stream at the same lines.
fn check_line_breaks(src: &str) -> Result<(), YamlError> {
    check_separators(src)?;
    let Some((at, what)) = first_disputed_break(src.as_bytes()) else { return Ok(()) };
    let line = LineCounter::default().line_at(src, at);
    let col = src[line_start(src, at)..at].chars().count() + 1;
    Err(YamlError {
        message: format!(
            "the input holds {what}, which Kubernetes' YAML reader takes for a line break and olm-rbac's does not; olm-rbac refuses input the two would read differently"
        ),
        pos: Pos { line, col },
    })
}

/// Refuses a line that starts with `---` and is not a document separator
/// to both Kubernetes' stream reader and YAML (see [`check_line_breaks`]).
fn check_separators(src: &str) -> Result<(), YamlError> {
    for (i, text) in src.split('\n').enumerate() {
        let line = i + 1;
        let Some(rest) = text.strip_prefix("---") else { continue };
        let rest = rest.strip_suffix('\r').unwrap_or(rest);
        let separator = rest.is_empty()
            || (rest.starts_with([' ', '\t']) && {
                let after = rest.trim_start_matches([' ', '\t']);
                after.is_empty() || after.starts_with('#')
            });
        if !separator {
            return Err(YamlError {
                message: format!(
                    "the line {:?} starts with ---: Kubernetes' reader (kubectl, OLM, opm) splits documents at every such line and refuses one followed by anything but a comment, while YAML does not split there; write --- alone on its line",
                    text.chars().take(40).collect::<String>()
                ),
                pos: Pos { line, col: 1 },
            });
        }
    }
    Ok(())
}

/// Re-serialises a `ResourceList` that is not in block style, so that it can be
/// cut like any other. Comments in it are lost; that is the price of flow style.
pub(crate) fn normalize(src: &str) -> Result<String, YamlError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = "apiVersion: config.kubernetes.io/v1 # c\nkind: ResourceList\nitems:\n# lead\n- apiVersion: v1\n  kind: ConfigMap # x\n  metadata:\n    name: a\n    labels:\n      app: \"on\"\n  data:\n    k: |\n      hi\n\n# between\n-   {apiVersion: v1, kind: Secret, metadata: {name: b, namespace: ns}}\n  # trailing\nfunctionConfig:\n  x: 1\n";

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
        // A flow schema keeps its brackets: the view still reads.
        assert!(view.contains(&format!("    schema: {{{}}}\n", " ".repeat(19))), "{view}");
        let json = r#"{"kind": "CustomResourceDefinition", "spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": {"type": "object"}}, "storage": true}], "validation": [1]}}"#;
        let docs = split_documents(json).unwrap();
        let view = docs[0].view_text();
        assert!(!view.contains("openAPIV3Schema") && view.contains("\"validation\": [ ]"), "{view}");
        let read: serde_json::Value = serde_saphyr::from_str(&view).unwrap();
        assert_eq!(read["spec"]["versions"][0]["storage"], true);
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
        for pad in 24..72 {
            // Across the scan's blocks of 32 bytes.
            let text = format!("kind: A # {}\u{2028}\n", "x".repeat(pad));
            let err = split_documents(&text).unwrap_err();
            assert_eq!((err.pos.line, err.pos.col), (1, pad + 11), "{pad}");
            assert!(split_documents(&format!("kind: A # {}\u{2027}\r\n", "x".repeat(pad))).is_ok());
            let err = split_documents(&format!("kind: A # {}\r", "x".repeat(pad))).unwrap_err();
            assert_eq!(err.pos.col, pad + 11, "{pad}");
        }
        assert!(
            split_documents("kind: A\r\nmetadata: {name: \"\u{2027}\"}\r\n").is_ok(),
            "CRLF and other characters are fine"
        );
    }

    #[test]
    fn only_lines_both_readers_split_at_may_start_with_three_dashes() {
        for ok in ["a: 1\n---\nb: 2\n", "a: 1\n--- \nb: 2\n", "a: 1\n--- # c\r\nb: 2\r\n", "a: 1\n---\t\nb: 2\n"] {
            assert_eq!(split_documents(ok).unwrap().len(), 2, "{ok:?}");
        }
        for bad in [
            "a: 1\n--- {b: 2}\n",
            "a: 1\n---#\nb: 2\n",
            "a: 1\n----\nb: 2\n",
            "--- !!map\na: 1\n",
            "a: 1\n---\u{a0}\nb: 2\n",
        ] {
            let err = split_documents(bad).unwrap_err();
            assert!(err.message.contains("splits documents at every such line"), "{bad:?}: {}", err.message);
        }
    }

    #[test]
    fn a_document_after_a_dots_line_without_dashes_is_refused() {
        // Kubernetes' reader hands go-yaml "a: 1\n...\nkind: B\n" whole, and go-yaml reads only a: 1.
        let err = split_documents("a: 1\n...\nkind: B\n").unwrap_err();
        assert!(err.message.contains("reads the first of the two"), "{}", err.message);
        assert_eq!(err.pos.line, 3);
        // A null document counts: go-yaml reads it, and nothing after it in the piece.
        let err = split_documents("---\n~\n...\nkind: B\n").unwrap_err();
        assert!(err.message.contains("reads the first of the two"), "{}", err.message);
        assert_eq!(split_documents("---\n---\nkind: B\n").unwrap().len(), 1, "an empty document between --- lines");
        assert_eq!(split_documents("a: 1\n...\n---\nkind: B\n").unwrap().len(), 2);
        assert_eq!(split_documents("a: 1\n...\n# only a comment\n").unwrap().len(), 1);
    }

    #[test]
    fn quoted_scalars_continued_at_the_keys_column_are_read_and_kept_byte_for_byte() {
        let src =
            "kind: A\nmetadata: {name: a}\nspec:\n  description: 'one\n  two'\n---\nkind: B\nmetadata:\n  name: b\n";
        let docs = split_documents(src).unwrap();
        assert_eq!(docs[0].text, "kind: A\nmetadata: {name: a}\nspec:\n  description: 'one\n  two'\n");
        assert_eq!(docs[1].text, "kind: B\nmetadata:\n  name: b\n");
        assert_eq!((docs[1].line, docs[1].header.name.as_deref()), (7, Some("b")));
        let value: serde_json::Value = crate::yaml::parse_item(&docs[0]).unwrap();
        assert_eq!(value["spec"]["description"], "one two");
    }

    #[test]
    fn headers_written_through_merge_keys_are_the_merged_ones() {
        let docs = split_documents(
            "base: &b {kind: Role, metadata: {name: r}}\n<<: *b\n---\nkind: A\nmetadata:\n  labels: {x: \"1\"}\n  <<: {name: a, labels: {y: \"2\"}}\n",
        );
        // A key written before a `<<` that sets it to another value: readers disagree.
        assert!(docs.unwrap_err().message.contains("\"labels\" (line 6) is written before a merge key (<<)"));
        let docs = split_documents(
            "base: &b {kind: Role, metadata: {name: r}}\n<<: *b\n---\nkind: A\nmetadata: {<<: {name: a}}\n",
        )
        .unwrap();
        assert_eq!((docs[0].header.kind.as_deref(), docs[0].header.name.as_deref()), (Some("Role"), Some("r")));
        assert_eq!(docs[1].header.name.as_deref(), Some("a"));
        assert!(docs.iter().all(|d| d.indirect), "a merged header is read whole");
        assert!(split_documents("kind: A\ndata: {\"<<\": x}\n").is_ok(), "a key that only looks like one");
        assert!(split_list("apiVersion: v1\nitems:\n- kind: A\n  spec: {a: 1, <<: {a: 2}}\n").is_err(), "lists too");
    }
}
