//! Views: reading one item's text through a small serde type, with errors
//! that say where (in the whole stream) and which field.

use granit_parser::{Event, Parser};
use serde::de::DeserializeOwned;

use super::walk::{parser_options, Frame, Step, Walker};
use super::{Chunk, Layout, Pos};

/// [`options`] for reading `len` bytes: alias expansion may replay at most
/// [`ALIAS_REPLAY_PER_BYTE`] events per byte read (plus a small floor), so a
/// crafted alias tree costs time in proportion to its size, across however
/// many items it is spread over.
pub(crate) fn options_for(len: usize) -> serde_saphyr::Options {
    let mut options = options();
    options.alias_limits.max_total_replayed_events =
        options.alias_limits.max_total_replayed_events.min(alias_replay_limit(len));
    options
}

/// How many events alias expansion may replay in reading `len` bytes; merge
/// keys may copy as many keys (`merge`).
pub(crate) fn alias_replay_limit(len: usize) -> usize {
    ALIAS_REPLAY_FLOOR.saturating_add(len.saturating_mul(ALIAS_REPLAY_PER_BYTE))
}

/// See [`options_for`]. Real manifests that use anchors (Helm charts, hand
/// written files) repeat small maps a few times; a byte of YAML is at most one
/// event, so four replays per byte is generous.
pub(crate) const ALIAS_REPLAY_PER_BYTE: usize = 4;
const ALIAS_REPLAY_FLOOR: usize = 1_000;

/// Deserialization options sized for operator bundles: a single CRD can hold
/// millions of events and nest deeper than the library's defaults allow.
pub(crate) fn options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_events = usize::MAX / 2;
    budget.max_nodes = usize::MAX / 2;
    budget.max_total_scalar_bytes = usize::MAX / 2;
    budget.max_reader_input_bytes = None;
    budget.max_depth = 1024;
    budget.max_documents = usize::MAX / 2;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    // Merge keys as Kubernetes applies them; where readers would disagree, the
    // cut has refused the input already (`merge`).
    options.merge_keys = serde_saphyr::options::MergeKeyPolicy::Merge;
    options.with_snippet = false;
    options
}

/// Reads one item through a serde view. Errors carry positions in the stream
/// the chunk was cut from and, where the position falls on a key, its path.
pub(crate) fn parse_item<T: DeserializeOwned>(chunk: &Chunk<'_>) -> Result<T, ViewError> {
    if !chunk.elide.is_empty() {
        if let Ok(value) = parse_text(&chunk.view_text(), chunk) {
            return Ok(value);
        }
        // An anchor inside an elided region, say: read everything, and report
        // whatever is wrong against the real text.
    }
    parse_text(&chunk.text, chunk)
}

/// Reads `text` through a view; a quoted scalar continued where only
/// Kubernetes' reader reads it is read as that reader does (`quoted`).
fn parse_text<T: DeserializeOwned>(text: &str, chunk: &Chunk<'_>) -> Result<T, ViewError> {
    let read = |text: &str| match chunk.layout {
        Layout::Document => serde_saphyr::from_str_with_options::<T>(text, options_for(text.len())),
        Layout::SeqEntry { .. } => serde_saphyr::from_str_with_options::<Vec<T>>(text, options_for(text.len()))
            .and_then(|mut v| {
                v.pop().ok_or_else(|| <serde_saphyr::Error as serde::de::Error>::custom("the item is empty"))
            }),
    };
    match read(text) {
        Ok(value) => Ok(value),
        Err(e) => match super::quoted::padded(text) {
            Some(padded) => {
                read(&padded.text).map_err(|e| ViewError::from_saphyr(&e, &padded.text, chunk.line, chunk.layout))
            }
            None => Err(ViewError::from_saphyr(&e, text, chunk.line, chunk.layout)),
        },
    }
}

/// A whole document's values as JSON (`render -o json`), read as Kubernetes
/// reads them. The error's line (within `text`) and why, where a plain value
/// reads otherwise to kubectl's YAML 1.1 than to olm-rbac's reader, which
/// would change it.
pub(crate) fn json_value(text: &str) -> Result<serde_json::Value, (Option<usize>, String)> {
    if let Some((line, value)) = super::edit::yaml11_differs(text) {
        return Err((
            Some(line),
            format!(
                "the plain value {value:?} reads otherwise to kubectl's YAML 1.1 (a number or a boolean where YAML 1.2 reads something else), so its JSON would not be what kubectl applies; quote it in the input, or use -o yaml, which passes it through as written"
            ),
        ));
    }
    serde_saphyr::from_str_with_options(text, options_for(text.len())).map_err(|e| {
        let v = ViewError::from_saphyr(&e, text, 1, Layout::Document);
        (v.pos.map(|p| p.line), v.message)
    })
}

/// A serde view failed: the message, the field path when known, the position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ViewError {
    pub message: String,
    pub path: Option<String>,
    pub pos: Option<Pos>,
}

impl ViewError {
    pub(super) fn from_saphyr(e: &serde_saphyr::Error, text: &str, first_line: usize, layout: Layout) -> Self {
        let location = e.location();
        let mut message = match e.without_snippet() {
            serde_saphyr::Error::DuplicateMappingKey { key, .. } => repeated_key(key.as_deref()),
            other => other.to_string(),
        };
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

/// What every repeated key says, in whichever item and field.
pub(super) const REPEATED_KEY: &str = "is written twice in one mapping";

/// A repeated key, said in olm-rbac's words. Readers disagree on it: kubectl
/// converts YAML to JSON keeping the last value without a word (the API server
/// never sees the first), while kustomize and the API server's strict field
/// validation, given the YAML itself, refuse it.
fn repeated_key(key: Option<&str>) -> String {
    let key = key.map_or_else(|| "a key".to_string(), |k| format!("the key {k:?}"));
    format!(
        "{key} {REPEATED_KEY}: kubectl keeps the last one without a word, while kustomize and the API server's strict field validation refuse it; keep one"
    )
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
pub(crate) fn path_at(text: &str, line: usize, col: usize, skip: usize) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_read_merge_keys_as_kubernetes_does() {
        let src = "a: &x {p: 1, d: x}\nb: &y {p: 2, q: 2}\nc:\n  <<: [*x, *y]\n  d: own\n";
        let docs = super::super::split_documents(src).unwrap();
        let v: serde_json::Value = parse_item(&docs[0]).unwrap();
        // The first mapping of a list wins, and keys written after the `<<` win over it.
        assert_eq!(v["c"], serde_json::json!({"p": 1, "q": 2, "d": "own"}));
    }

    #[test]
    fn a_repeated_key_is_said_in_olm_rbacs_words() {
        let docs = super::super::split_documents("kind: A\nspec:\n  a: 1\n  a: 2\n").unwrap();
        let e = parse_item::<serde_json::Value>(&docs[0]).unwrap_err();
        assert_eq!(e.message, "the key \"a\" is written twice in one mapping: kubectl keeps the last one without a word, while kustomize and the API server's strict field validation refuse it; keep one");
        assert_eq!((e.pos.map(|p| p.line), e.path.as_deref()), (Some(4), Some("spec.a")));
    }

    #[test]
    fn path_at_names_nested_keys() {
        let text = "spec:\n  apis:\n    inclde: [a]\n";
        assert_eq!(path_at(text, 3, 5, 0).as_deref(), Some("spec.apis.inclde"));
        assert_eq!(path_at("- spec:\n    mode: x\n", 2, 11, 1).as_deref(), Some("spec.mode"));
    }
}
