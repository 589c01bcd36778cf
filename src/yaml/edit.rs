//! Edits: label and annotation changes applied to an item's text as whole
//! lines, or the item re-serialised alone where its layout does not allow that.

use std::collections::{BTreeMap, BTreeSet};

use granit_parser::{Event, Parser, ScalarStyle, StructureStyle};

use crate::model::{Edit, MetaPatch};

use super::text::{line_end_after, line_start, line_start_at_or_after, offset};
use super::walk::{parser_options, Step, Walker};
use super::{as_seq_entry, line_ending, parse_item, split_documents, split_list, to_yaml, Chunk, Layout};

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
pub(crate) fn patched_text(chunk: &Chunk<'_>, patch: &MetaPatch) -> Result<Patched, String> {
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
pub(crate) struct Patched {
    pub text: String,
    pub rewritten: bool,
}

/// The first plain scalar (1-based line within `text`, and the scalar) that a
/// YAML 1.1 reader such as kubectl's reads as something else than a YAML 1.2
/// reader: `yes`/`no`/`on`/`off`/`y`/`n`, octal `0644`, binary `0b1`, digits
/// with `_`, sexagesimal `1:30`, exponents without a dot `1e3`.
pub(crate) fn yaml11_differs(text: &str) -> Option<(usize, String)> {
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
    // kubectl reads true/false/null (and the words above) only in three casings
    // (`true`, `True`, `TRUE`); olm-rbac's reader in any (`tRUE` is a boolean).
    let words = ["true", "false", "null", "y", "yes", "n", "no", "on", "off"];
    let odd_case = words.iter().any(|w| v.eq_ignore_ascii_case(w))
        && !words.iter().any(|w| [w.to_string(), capitalised(w), w.to_ascii_uppercase()].contains(&v.to_string()));
    // Underscores after a 0x/0o prefix: kubectl drops them (`0x_1F` is 31).
    let prefixed = unsigned.get(..2).is_some_and(|p| ["0x", "0X", "0o", "0O"].contains(&p))
        && unsigned[2..].contains('_')
        && digits(&unsigned[2..], |b| b.is_ascii_hexdigit() || b == b'_');
    BOOLS.contains(&v) || octal || binary || underscored || sexagesimal || exponent || odd_case || prefixed
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// Reads the edited text back and checks that its labels and annotations are
/// exactly the planned ones: line edits are placed by position, and a layout
/// they misjudge must not reach the output.
fn edited_as_planned(chunk: &Chunk<'_>, patch: &MetaPatch, edited: &str) -> bool {
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
pub(crate) fn edit_metadata(chunk: &Chunk<'_>, patch: &MetaPatch) -> Option<String> {
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
    let mut splices: Vec<Splice> = Vec::new();
    // In metadata's sorted order, so that insertions at one place come out sorted.
    for (map_key, edits) in [("annotations", &patch.annotations), ("labels", &patch.labels)] {
        if !edits.is_empty() {
            splices.extend(map_splices(text, &layout, map_key, edits, meta_col, eol)?);
        }
    }
    apply_splices(text, &splices, eol)
}

/// A replacement of `text[start..end]`: (start, end, replacement).
type Splice = (usize, usize, String);

/// The splices that apply `edits` to the map `map_key` (`labels` or
/// `annotations`) of metadata at column `meta_col`: whole entries removed,
/// new ones inserted in sorted position, the map added or removed whole.
/// `None` when the map is not a block map of scalars.
fn map_splices(
    text: &str,
    layout: &MetaLayout,
    map_key: &str,
    edits: &[Edit],
    meta_col: usize,
    eol: &str,
) -> Option<Vec<Splice>> {
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
    let mut splices = Vec::new();
    let Some(map) = layout.maps.get(map_key) else {
        if !sets.is_empty() {
            let at = sorted_position(text, &layout.keys, map_key, line_start_at_or_after(text, layout.end));
            let mut block = format!("{}{map_key}:{eol}", " ".repeat(meta_col));
            for (k, v) in &sets {
                block.push_str(&line(meta_col + 2, k, v)?);
            }
            splices.push((at, at, block));
        }
        return Some(splices);
    };
    if !map.block || map.entries.is_empty() || map.value_ends.len() != map.entries.len() {
        return None; // flow style, or a value that is not a scalar
    }
    // An entry is its lines up to the end of its value's line; comments on
    // the lines after it belong to what follows.
    let ends: Vec<usize> = map.value_ends.iter().map(|&e| line_end_after(text, e)).collect();
    let remaining = map.entries.iter().filter(|(k, _)| !removes.contains(k.as_str())).count();
    if remaining == 0 && sets.is_empty() {
        splices.push((map.key_line, *ends.last()?, String::new()));
        return Some(splices);
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
    Some(splices)
}

/// Applies the splices from the end backwards; insertions at one position go
/// in reverse so that they come out in the order they were planned (sorted by
/// key). `None` when two overlap.
fn apply_splices(text: &str, splices: &[Splice], eol: &str) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::split_list;

    fn patch(labels: Vec<crate::model::Edit>, annotations: Vec<crate::model::Edit>) -> MetaPatch {
        MetaPatch { labels, annotations }
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
    fn scalars_yaml_1_1_reads_otherwise_are_found() {
        for v in ["yes", "No", "on", "OFF", "y", "0644", "-0755", "0b101", "1_000", "1:30", "1e3", "2E-5"] {
            assert!(yaml11_scalar_differs(v), "{v}");
        }
        for v in ["true", "false", "0", "10", "0x1F", "1.5", "v1", "a:b", "", "null", "~", "08:00:00Z", "app"] {
            assert!(!yaml11_scalar_differs(v), "{v}");
        }
        assert_eq!(yaml11_differs("a: \"0644\"\nb: 'yes'\nc: |\n  on\nd: 0400\n"), Some((5, "0400".into())));
        for (v, differs) in [
            ("tRUE", true),
            ("yES", true),
            ("0x_1F", true),
            ("0o_17", true),
            ("True", false),
            ("0x1F", false),
            ("nULL", true),
            ("Null", false),
        ] {
            assert_eq!(yaml11_differs(&format!("a: {v}\n")).is_some(), differs, "{v}");
        }
    }
}
