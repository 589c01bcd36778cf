//! Merge keys (`<<`), read as Kubernetes reads them.
//!
//! kubectl reads manifests with go-yaml v2 (through sigs.k8s.io/yaml): a
//! mapping's entries apply in order, a `<<` sets every key of the mapping (or
//! mappings, the first in a list winning) it names, over whatever the entries
//! before it set, and the entries after it set theirs over the merged ones.
//! go-yaml v3 (kustomize) and olm-rbac's own reader let the written keys win
//! wherever they stand. The two agree on everything but a key written *before*
//! a `<<` that also supplies it, and on a mapping with two `<<`s, which v3
//! refuses as a repeated key: those are refused here, so that every reading of
//! what passes is the cluster's. So is a `<<` whose value is not a mapping or
//! a list of them, which go-yaml refuses, and an anchored mapping that repeats
//! a key (a merge of it keeps the last for kubectl, the first for others).
//!
//! A `<<` tagged with YAML's non-specific tag (`! <<`, `! "<<"`, `!<!> <<`)
//! is a merge key to go-yaml (kubectl, kustomize) and a literal `<<` key to
//! readers that follow the YAML specification, olm-rbac's among them: it is
//! refused too. Any other tag (`!!str <<`) makes a literal key to all of them.
//!
//! [`MergeCheck`] walks beside the cutter, over the same events, and keeps
//! only what those rules need: the keys of each open mapping, and the keys
//! each anchored mapping supplies to a merge. The keys it copies for merges
//! are counted against the alias replay limit for the input's size, so that
//! many aliases of a large mapping fail at once rather than cost keys × aliases.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use granit_parser::{Event, ScalarStyle, Span, StructureStyle};

use super::text::pos_of;
use super::view::alias_replay_limit;
use super::{Pos, YamlError};

/// What a key's value reads as, when every reader reads it alike: a scalar
/// (plain or not, and its text). `None`: a collection, an alias or a tagged
/// scalar, which is not compared.
type Value = Option<(bool, String)>;

/// [`Value`] as read, borrowed from the text where the parser borrows it: a
/// key's value is kept only until its mapping closes, and most are never
/// compared.
type Read<'a> = Option<(bool, Cow<'a, str>)>;

/// A [`Read`] value, owned: what a merge supplies or a dispute names.
fn owned(value: &Read<'_>) -> Value {
    value.as_ref().map(|(plain, text)| (*plain, text.to_string()))
}

/// The keys a mapping supplies to a merge, each with its value.
type Supplied = BTreeMap<String, Value>;

/// A key written before a `<<` that sets it to another value: kubectl reads
/// the merged value, other readers the written one. Where no view reads the
/// text (a CRD's schema) it is only said; anywhere else it is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Dispute {
    key: String,
    key_line: usize,
    written: Value,
    merged: Value,
    /// The `<<`.
    pub pos: Pos,
    /// The disputed mapping, or one around it, is anchored: an alias may
    /// carry it where its value is read, so it is never only said.
    pub aliasable: bool,
}

impl Dispute {
    /// Whether it may be only said, where no view reads it: not when an alias
    /// may carry it elsewhere.
    pub(super) fn may_be_noted(&self) -> bool {
        !self.aliasable
    }

    pub(super) fn into_error(self) -> YamlError {
        YamlError {
            message: format!(
                "the key {:?} (line {}) is written before a merge key (<<) that sets it to another value: kubectl's YAML reader lets the merge win, other readers keep the written key; write the key after the <<, or leave it out of the merged mapping",
                self.key, self.key_line
            ),
            pos: self.pos,
        }
    }

    /// What to say of it where no view reads it.
    pub(super) fn note(&self) -> String {
        let text = |v: &Value| v.as_ref().map_or("a collection or an alias".to_string(), |(_, s)| format!("{s:?}"));
        format!(
            "the key {:?} (line {}) is written as {} before a merge key (<<, line {}) that sets it to {}: kubectl's YAML reader, and so the cluster, reads {}; this is in a CRD's schema, which olm-rbac does not read, so the bytes pass through as written",
            self.key,
            self.key_line,
            text(&self.written),
            self.pos.line,
            text(&self.merged),
            text(&self.merged)
        )
    }
}

/// The merge type's tag, `!!merge` in full.
const MERGE_TAG: &str = "tag:yaml.org,2002:merge";

/// How YAML readers take a key scalar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KeyReading {
    /// Not a merge key to any reader: `a`, `"<<"`, `!!str <<`.
    Literal,
    /// A merge key to every reader: a plain, untagged `<<`, or `<<` tagged
    /// `!!merge` in any style (go-yaml, the YAML merge type, olm-rbac's reader).
    Merge,
    /// `<<` with the non-specific tag (!), in any style: go-yaml merges it,
    /// readers that follow the YAML specification read a literal key.
    Disputed,
}

/// The namespace of YAML's own types (`!!binary`, `!!int`, `!!str`, …).
const YAML_TAGS: &str = "tag:yaml.org,2002:";

/// Whether a key with this tag, as (handle, suffix), is decoded by go-yaml
/// into other text than written: YAML's own types but `!!str` (`!!binary` is
/// read as the text it encodes, `!!int 0x1b` as 27). A local tag (`!custom`)
/// or the non-specific `!` leaves the key as written, to every reader.
fn is_decoded_tag((handle, suffix): (&str, &str)) -> bool {
    let full = format!("{handle}{suffix}");
    full.strip_prefix(YAML_TAGS).is_some_and(|t| t != "str")
}

/// How readers take this scalar as a mapping key; see [`KeyReading`].
pub(super) fn key_reading(event: &Event<'_>) -> KeyReading {
    let Event::Scalar(value, style, _, tag) = event else { return KeyReading::Literal };
    if value != "<<" {
        return KeyReading::Literal;
    }
    match tag.as_ref().map(|t| t.parts()) {
        None if *style == ScalarStyle::Plain => KeyReading::Merge,
        Some((handle, suffix)) if MERGE_TAG.strip_prefix(handle) == Some(suffix) => KeyReading::Merge,
        Some(("", "!")) => KeyReading::Disputed,
        _ => KeyReading::Literal,
    }
}

/// Is this key scalar a merge key to every reader? See [`KeyReading`].
pub(super) fn is_merge_key(event: &Event<'_>) -> bool {
    key_reading(event) == KeyReading::Merge
}

/// What a collection is to the merge rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// An ordinary node, or a complex key.
    Plain,
    /// The mapping a `<<` names inline.
    Source,
    /// The list a `<<` names.
    List,
    /// A mapping in that list.
    ListItem,
}

#[derive(Debug)]
struct Frame {
    role: Role,
    anchor: usize,
    is_map: bool,
    /// A mapping: whether the next node is a key.
    expect_key: bool,
    /// A mapping: where its explicit keys start in [`MergeCheck::keys`].
    keys_from: usize,
    /// A mapping: the next value is a `<<`'s, and where that `<<` is.
    merge_value: Option<Pos>,
    /// A mapping: where its `<<` was, once seen.
    merged_at: Option<Pos>,
    /// A mapping: the keys its merges supplied. A merge list: the keys of its items so far.
    supplied: Supplied,
    /// A merge list: the anchors whose keys it holds already.
    aliased: HashSet<usize>,
    /// A complex key is open: the value comes after it.
    in_key: bool,
    /// The value being read is that of the last key pushed in [`MergeCheck::keys`]
    /// (not of an alias or a complex key, which have no slot there).
    value_slot: bool,
    /// A flow collection (`{…}`, `[…]`).
    flow: bool,
}

impl Frame {
    fn new(role: Role, anchor: usize, is_map: bool, keys_from: usize) -> Frame {
        Frame {
            role,
            anchor,
            is_map,
            expect_key: is_map,
            keys_from,
            merge_value: None,
            merged_at: None,
            supplied: Supplied::new(),
            aliased: HashSet::new(),
            in_key: false,
            value_slot: false,
            flow: false,
        }
    }
}

/// The merge rules over one stream's events; see the module's documentation.
#[derive(Debug)]
pub(super) struct MergeCheck<'a> {
    frames: Vec<Frame>,
    /// The explicit keys of the open mappings, innermost last, with where each
    /// is and its value, once read.
    keys: Vec<(Cow<'a, str>, Pos, Read<'a>)>,
    /// For each anchor in the current document, the keys a merge of it supplies
    /// (`None`: it is not a mapping).
    anchors: HashMap<usize, Option<Supplied>>,
    /// How many more keys merges may copy: the alias replay limit for the input's size.
    budget: usize,
    /// A dispute the last event brought, for the caller to place.
    dispute: Option<Dispute>,
}

impl<'a> MergeCheck<'a> {
    /// The rules over a stream of `len` bytes.
    pub(super) fn new(len: usize) -> Self {
        MergeCheck {
            frames: Vec::new(),
            keys: Vec::new(),
            anchors: HashMap::new(),
            budget: alias_replay_limit(len),
            dispute: None,
        }
    }

    /// Takes the next event; an error when it breaks a rule, a [`Dispute`]
    /// when it completes a merge that a written key disputes.
    pub(super) fn track(&mut self, event: &Event<'a>, span: &Span) -> Result<Option<Dispute>, YamlError> {
        self.step(event, span)?;
        Ok(self.dispute.take())
    }

    fn step(&mut self, event: &Event<'a>, span: &Span) -> Result<(), YamlError> {
        let pos = pos_of(span);
        match event {
            Event::DocumentStart(..) => {
                self.anchors.clear();
                Ok(())
            }
            Event::MappingStart(style, anchor, _) | Event::SequenceStart(style, anchor, _) => {
                let is_map = matches!(event, Event::MappingStart(..));
                let role = self.child_role(is_map, pos)?;
                let mut frame = Frame::new(role, *anchor, is_map, self.keys.len());
                frame.flow = *style == StructureStyle::Flow;
                self.frames.push(frame);
                Ok(())
            }
            Event::MappingEnd | Event::SequenceEnd => self.close(pos),
            Event::Scalar(value, _, anchor, _) => {
                if *anchor != 0 {
                    self.anchors.insert(*anchor, None);
                }
                // Only a key's text is kept; values are not cloned.
                let at_key = self.frames.last().is_some_and(|f| f.is_map && f.expect_key);
                let reading = if at_key { key_reading(event) } else { KeyReading::Literal };
                if reading == KeyReading::Disputed {
                    return Err(YamlError {
                        message: "this merge key (<<) carries YAML's non-specific tag (!): kubectl's and kustomize's YAML readers merge it, while olm-rbac's reader, as the YAML specification says, takes a literal \"<<\" key; write a plain << to merge, or \"<<\" without a tag for a literal key".into(),
                        pos,
                    });
                }
                let Event::Scalar(_, style, _, tag) = event else { return Ok(()) };
                let in_flow = self.frames.last().is_some_and(|f| f.flow);
                if in_flow && *style == ScalarStyle::Plain && (value.starts_with(['?', ':']) || value.ends_with(':')) {
                    return Err(YamlError {
                        message: format!(
                            "the plain value {value:?} in a flow collection ({{…}} or […]) starts with ? or : or ends with :, which go-yaml (Kubernetes, OLM, opm) reads as a key or value indicator there (`{{?kind: X}}` is the key kind to it) and olm-rbac's reader as text; quote it"
                        ),
                        pos,
                    });
                }
                if at_key && reading == KeyReading::Literal && tag.as_ref().is_some_and(|t| is_decoded_tag(t.parts())) {
                    return Err(YamlError {
                        message: format!(
                            "the key {value:?} carries a tag of YAML's own types: go-yaml (Kubernetes, OLM, opm) decodes such a key (a !!binary key is read as the text it encodes) where olm-rbac's checks compare keys as written, so two keys could read as one to the cluster; write the key as plain text"
                        ),
                        pos,
                    });
                }
                let read_alike = tag.is_none().then(|| (*style == ScalarStyle::Plain, value.clone()));
                self.scalar(reading == KeyReading::Merge, at_key.then(|| value.clone()), read_alike, pos)
            }
            Event::Alias(id) => self.alias(*id, pos),
            _ => Ok(()),
        }
    }

    /// The role of a collection opening here, or an error where a merge takes no such node.
    fn child_role(&mut self, is_map: bool, pos: Pos) -> Result<Role, YamlError> {
        let Some(top) = self.frames.last_mut() else { return Ok(Role::Plain) };
        if top.is_map && top.expect_key {
            // A complex key (`? [a, b]`): its value comes after it closes.
            top.expect_key = false;
            top.in_key = true;
            top.value_slot = false;
            return Ok(Role::Plain);
        }
        if top.is_map && top.merge_value.is_some() {
            return Ok(if is_map { Role::Source } else { Role::List });
        }
        if top.role == Role::List {
            return if is_map { Ok(Role::ListItem) } else { Err(not_mergeable(pos)) };
        }
        Ok(Role::Plain)
    }

    fn scalar(&mut self, merge: bool, key: Option<Cow<'a, str>>, value: Read<'a>, pos: Pos) -> Result<(), YamlError> {
        let Some(top) = self.frames.last_mut() else { return Ok(()) };
        if top.is_map && top.expect_key {
            top.expect_key = false;
            if merge {
                if top.merged_at.is_some() {
                    return Err(YamlError {
                        message: "this mapping has a second merge key (<<): kustomize's YAML reader refuses a repeated key, and kubectl's applies the second over the first; merge one list instead (<<: [*a, *b])".into(),
                        pos,
                    });
                }
                top.merged_at = Some(pos);
                top.merge_value = Some(pos);
            } else if let Some(key) = key {
                self.keys.push((key, pos, None));
                top.value_slot = true;
                return Ok(());
            }
            top.value_slot = false;
            return Ok(());
        }
        if (top.is_map && top.merge_value.is_some()) || top.role == Role::List {
            // `<<: ~`, `<<: x`, or a scalar in a merge list.
            return Err(not_mergeable(pos));
        }
        // A scalar value of the mapping's last explicit key, when it is that
        // key's (after an alias or a complex key it is not).
        if top.is_map && top.value_slot && self.keys.len() > top.keys_from {
            if let Some(last) = self.keys.last_mut() {
                last.2 = value;
            }
        }
        self.after_value();
        Ok(())
    }

    fn alias(&mut self, id: usize, pos: Pos) -> Result<(), YamlError> {
        let Some(top) = self.frames.last_mut() else { return Ok(()) };
        if top.is_map && top.expect_key {
            top.expect_key = false; // an alias as a key: not a merge, and no name to compare
            top.value_slot = false;
            return Ok(());
        }
        let merging = (top.is_map && top.merge_value.is_some()) || top.role == Role::List;
        if merging {
            match self.anchors.get(&id) {
                Some(Some(keys)) => {
                    let count = keys.len();
                    self.spend(count, pos)?;
                    // An anchor named twice in one list adds nothing the second time.
                    if let Some(list) = self.frames.last_mut().filter(|f| f.role == Role::List) {
                        if !list.aliased.insert(id) {
                            return Ok(());
                        }
                    }
                    let keys = self.anchors.get(&id).and_then(Option::clone).unwrap_or_default();
                    return self.supply(keys, pos);
                }
                // A scalar or list, or an anchor still open (a merge of itself).
                _ => return Err(not_mergeable(pos)),
            }
        }
        self.after_value();
        Ok(())
    }

    /// Keys a merge supplies, from an alias or a closed source, to the merge
    /// list being read or the mapping whose `<<` this is.
    fn supply(&mut self, keys: Supplied, pos: Pos) -> Result<(), YamlError> {
        let aliasable = self.frames.iter().any(|f| f.anchor != 0);
        let Some(top) = self.frames.last_mut() else { return Ok(()) };
        if top.role == Role::List {
            join(&mut top.supplied, keys);
            return Ok(());
        }
        let at = top.merge_value.take().unwrap_or(pos);
        let written = &self.keys[top.keys_from..];
        // A key written before the `<<` whose merged value reads the same
        // (`type: string` over a merged `type: string`) is read alike by all.
        let differs = |(k, _, value): &&(Cow<'a, str>, Pos, Read<'a>)| match keys.get(k.as_ref()) {
            None => false,
            Some(merged) => {
                let written = value.as_ref().map(|(plain, text)| (*plain, text.as_ref()));
                value.is_none() || merged.as_ref().map(|(plain, text)| (*plain, text.as_str())) != written
            }
        };
        if let Some((key, key_pos, value)) = written.iter().find(differs) {
            let merged = keys.get(key.as_ref()).cloned().flatten();
            self.dispute = Some(Dispute {
                key: key.to_string(),
                key_line: key_pos.line,
                written: owned(value),
                merged,
                pos: at,
                aliasable,
            });
        }
        join(&mut top.supplied, keys);
        self.after_value();
        Ok(())
    }

    /// Counts `keys` copied for a merge against the budget, two events (a key
    /// and its value) each, as alias expansion would replay them.
    fn spend(&mut self, keys: usize, pos: Pos) -> Result<(), YamlError> {
        self.budget = self.budget.checked_sub(keys.saturating_mul(2)).ok_or_else(|| YamlError {
            message: "merge keys (<<) copy more keys than the alias replay limit allows for an input of this size (four events per byte, a key and its value being two); merge fewer or smaller mappings".into(),
            pos,
        })?;
        Ok(())
    }

    fn close(&mut self, pos: Pos) -> Result<(), YamlError> {
        let Some(mut frame) = self.frames.pop() else { return Ok(()) };
        let mut effective = Supplied::new();
        if frame.is_map && (frame.anchor != 0 || matches!(frame.role, Role::Source | Role::ListItem)) {
            for (key, pos, value) in &self.keys[frame.keys_from..] {
                if effective.insert(key.to_string(), owned(value)).is_some() {
                    return Err(YamlError {
                        message: format!(
                            "the key {key:?} is written twice in a mapping that a merge key (<<) may copy: kubectl's YAML reader keeps the last one, others the first"
                        ),
                        pos: *pos,
                    });
                }
            }
            join(&mut effective, std::mem::take(&mut frame.supplied));
        }
        self.keys.truncate(frame.keys_from);
        if frame.anchor != 0 {
            if frame.is_map {
                self.spend(effective.len(), pos)?;
            }
            self.anchors.insert(frame.anchor, frame.is_map.then(|| effective.clone()));
        }
        let Some(parent) = self.frames.last_mut() else { return Ok(()) };
        if parent.in_key {
            parent.in_key = false;
            return Ok(());
        }
        // The position is the `<<`'s, which the mapping that has it still holds.
        let here = Pos { line: 0, col: 0 };
        match frame.role {
            Role::Source | Role::ListItem => self.supply(effective, here),
            Role::List => self.supply(frame.supplied, here),
            Role::Plain => {
                self.after_value();
                Ok(())
            }
        }
    }

    fn after_value(&mut self) {
        if let Some(top) = self.frames.last_mut() {
            if top.is_map {
                top.expect_key = true;
            }
        }
    }
}

/// Adds `more` to `set`, the keys already in `set` keeping their values (a
/// mapping's own keys, and the earlier items of a merge list, win), moving the
/// smaller into the larger, so that keys passed up through nested merges are
/// not copied at every level.
fn join(set: &mut Supplied, mut more: Supplied) {
    if more.len() > set.len() {
        std::mem::swap(set, &mut more);
        for (k, v) in more {
            set.insert(k, v);
        }
        return;
    }
    for (k, v) in more {
        set.entry(k).or_insert(v);
    }
}

fn not_mergeable(pos: Pos) -> YamlError {
    YamlError {
        message: "a merge key (<<) takes a mapping, an alias of one, or a list of those; Kubernetes' YAML reader refuses anything else".into(),
        pos,
    }
}

#[cfg(test)]
mod tests {
    use granit_parser::Parser;

    use super::super::walk::parser_options;
    use super::*;

    fn check(src: &str) -> Result<(), YamlError> {
        check_within(src, alias_replay_limit(src.len()))
    }

    fn check_within(src: &str, budget: usize) -> Result<(), YamlError> {
        let mut check = MergeCheck { budget, ..MergeCheck::new(0) };
        for next in Parser::new_from_str_with_options(src, parser_options()) {
            let (event, span) = next.map_err(|e| super::super::text::scan_error(&e))?;
            if let Some(dispute) = check.track(&event, &span)? {
                return Err(dispute.into_error());
            }
        }
        Ok(())
    }

    #[test]
    fn merges_all_readers_apply_alike_pass() {
        for ok in [
            "a: &x {p: 1, q: 2}\nb:\n  <<: *x\n  p: 3\n",
            "a: &x {p: 1}\nc: &y {q: 2}\nb:\n  <<: [*x, *y, {r: 3}]\n  s: 4\n",
            "b:\n  s: 4\n  <<: {p: 1}\n",
            "a: &x {p: 1}\nb: {!!merge <<: *x, p: 2}\n",
            "a: &x {<<: {p: 1}, q: 2}\nb: {q: 3, <<: {r: 1}, <<x: 2}\n",
            "b: {\"<<\": {p: 1}, p: 2}\n",
            "a: &x [1]\nb: *x\nc: &y 1\nd: [*y, {<<: {p: 1}}]\n",
            "? [complex]\n: {<<: {p: 1}}\n",
            "b: {!!str <<: {p: 1}, p: 2, !custom '<<': 3}\n",
            "a: &x {p: 1}\nb: {<<: [*x, *x], q: 1}\n",
            // A key written before the << that supplies the same value: read alike.
            "a: &x {type: string, q: 2}\nb:\n  type: string\n  <<: *x\n",
            "b:\n  p: 1\n  <<: [{p: 1}, {p: 2}]\n",
            "a: &x {p: \"s\"}\nb: {p: \"s\", <<: *x}\n",
        ] {
            assert!(check(ok).is_ok(), "{ok}: {:?}", check(ok));
        }
    }

    #[test]
    fn merges_readers_apply_differently_are_refused() {
        for (bad, says, line) in [
            ("a: &x {p: 1}\nb:\n  p: 3\n  <<: *x\n", "the key \"p\" (line 3) is written before a merge key (<<)", 4),
            ("b:\n  p: 3\n  <<: [{q: 1}, {p: 1}]\n", "the key \"p\" (line 2)", 3),
            ("a: &x {<<: {p: 1}}\nb: {p: 2, <<: *x}\n", "the key \"p\"", 2),
            ("b:\n  <<: {p: 1}\n  <<: {q: 1}\n", "a second merge key (<<)", 3),
            // Another value, or one that may read otherwise (quoted against plain, a collection).
            ("b:\n  p: 1\n  <<: [{p: 2}, {p: 1}]\n", "sets it to another value", 3),
            ("a: &x {p: 1}\nb: {p: \"1\", <<: *x}\n", "the key \"p\"", 2),
            ("a: &x {p: [1]}\nb: {p: [1], <<: *x}\n", "the key \"p\"", 2),
            ("b:\n  <<: ~\n", "takes a mapping", 2),
            ("a: &x [1]\nb: {<<: *x}\n", "takes a mapping", 2),
            ("b: {<<: [[{p: 1}]]}\n", "takes a mapping", 1),
            ("a: &x {p: 1, p: 2}\nb: {<<: *x}\n", "written twice in a mapping that a merge key (<<) may copy", 1),
            ("a: &x {p: {<<: *x}}\n", "takes a mapping", 1),
            ("a: &x {p: 1}\nb: {p: 2, !!merge <<: *x}\n", "the key \"p\"", 2),
            ("a: &x {p: 1}\nb: {p: 2, !<tag:yaml.org,2002:merge> \"<<\": *x}\n", "the key \"p\"", 2),
            ("b:\n  ! <<: {p: 1}\n", "non-specific tag (!)", 2),
            ("b: {!<!> '<<': {p: 1}}\n", "non-specific tag (!)", 1),
            // Keys go-yaml decodes into other text (found in review: a merged !!binary
            // `properties` hid a catalog's bundle).
            ("b: {<<: {!!binary cA==: 1}, p: 2}\n", "carries a tag of YAML's own types", 1),
            ("b: {!<tag:yaml.org,2002:int> 0x1b: 1}\n", "carries a tag of YAML's own types", 1),
            // go-yaml reads ? and : as indicators in flow context (found in review:
            // `{?clusterPermissions: …}` hid a CSV's rules from the gate).
            ("a: {?b: c}\n", "in a flow collection", 1),
            ("- [?b: c]\n", "in a flow collection", 1),
            ("a: {!!str :x}\n", "in a flow collection", 1),
            ("a: {b: ?c}\n", "in a flow collection", 1),
        ] {
            let err = check(bad).expect_err(bad);
            assert!(err.message.contains(says), "{bad}: {}", err.message);
            assert_eq!(err.pos.line, line, "{bad}: {}", err.message);
        }
    }

    #[test]
    fn merges_are_counted_two_events_a_key_and_refused_past_the_budget() {
        // An anchor of two keys (4), merged four times (16): 20 events.
        let src = "a: &x {p: 1, q: 2}\nb: {<<: [*x, *x, *x, *x]}\n";
        assert!(check_within(src, 20).is_ok());
        let err = check_within(src, 19).expect_err("past the budget");
        assert!(err.message.starts_with("merge keys (<<) copy more keys than"), "{}", err.message);
        assert_eq!((err.pos.line, err.pos.col), (2, 22), "the fourth alias");
    }

    #[test]
    fn anchors_belong_to_their_document() {
        assert!(check("a: &x {p: 1}\n---\nb: {<<: *x}\n").is_err(), "an alias to another document's anchor");
    }
}
