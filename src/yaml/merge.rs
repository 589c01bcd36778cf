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
//! [`MergeCheck`] walks beside the cutter, over the same events, and keeps
//! only what those rules need: the keys of each open mapping, and the keys
//! each anchored mapping supplies to a merge.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use granit_parser::{Event, ScalarStyle, Span};

use super::text::pos_of;
use super::{Pos, YamlError};

/// Is this key scalar a merge key? A plain, untagged `<<`, or one tagged
/// `!!merge` (go-yaml, the YAML merge type, and olm-rbac's reader agree).
pub(super) fn is_merge_key(event: &Event<'_>) -> bool {
    match event {
        Event::Scalar(value, style, _, tag) if value == "<<" => match tag {
            None => *style == ScalarStyle::Plain,
            Some(tag) => tag.is_yaml_core_schema_tag("merge"),
        },
        _ => false,
    }
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
    supplied: BTreeSet<String>,
    /// A complex key is open: the value comes after it.
    in_key: bool,
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
            supplied: BTreeSet::new(),
            in_key: false,
        }
    }
}

/// The merge rules over one stream's events; see the module's documentation.
#[derive(Debug, Default)]
pub(super) struct MergeCheck<'a> {
    frames: Vec<Frame>,
    /// The explicit keys of the open mappings, innermost last, with where each is.
    keys: Vec<(Cow<'a, str>, Pos)>,
    /// For each anchor in the current document, the keys a merge of it supplies
    /// (`None`: it is not a mapping).
    anchors: HashMap<usize, Option<BTreeSet<String>>>,
}

impl<'a> MergeCheck<'a> {
    /// Takes the next event; an error when it breaks a rule.
    pub(super) fn track(&mut self, event: &Event<'a>, span: &Span) -> Result<(), YamlError> {
        let pos = pos_of(span);
        match event {
            Event::DocumentStart(..) => {
                self.anchors.clear();
                Ok(())
            }
            Event::MappingStart(_, anchor, _) | Event::SequenceStart(_, anchor, _) => {
                let is_map = matches!(event, Event::MappingStart(..));
                let role = self.child_role(is_map, pos)?;
                self.frames.push(Frame::new(role, *anchor, is_map, self.keys.len()));
                Ok(())
            }
            Event::MappingEnd | Event::SequenceEnd => self.close(),
            Event::Scalar(value, _, anchor, _) => {
                if *anchor != 0 {
                    self.anchors.insert(*anchor, None);
                }
                // Only a key's text is kept; values are not cloned.
                let at_key = self.frames.last().is_some_and(|f| f.is_map && f.expect_key);
                self.scalar(is_merge_key(event), at_key.then(|| value.clone()), pos)
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

    fn scalar(&mut self, merge: bool, key: Option<Cow<'a, str>>, pos: Pos) -> Result<(), YamlError> {
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
                self.keys.push((key, pos));
            }
            return Ok(());
        }
        if (top.is_map && top.merge_value.is_some()) || top.role == Role::List {
            // `<<: ~`, `<<: x`, or a scalar in a merge list.
            return Err(not_mergeable(pos));
        }
        self.after_value();
        Ok(())
    }

    fn alias(&mut self, id: usize, pos: Pos) -> Result<(), YamlError> {
        let Some(top) = self.frames.last_mut() else { return Ok(()) };
        if top.is_map && top.expect_key {
            top.expect_key = false; // an alias as a key: not a merge, and no name to compare
            return Ok(());
        }
        let merging = (top.is_map && top.merge_value.is_some()) || top.role == Role::List;
        if merging {
            match self.anchors.get(&id) {
                Some(Some(keys)) => {
                    let keys = keys.clone();
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
    fn supply(&mut self, keys: BTreeSet<String>, pos: Pos) -> Result<(), YamlError> {
        let Some(top) = self.frames.last_mut() else { return Ok(()) };
        if top.role == Role::List {
            top.supplied.extend(keys);
            return Ok(());
        }
        let at = top.merge_value.take().unwrap_or(pos);
        let written = &self.keys[top.keys_from..];
        if let Some((key, key_pos)) = written.iter().find(|(k, _)| keys.contains(k.as_ref())) {
            return Err(YamlError {
                message: format!(
                    "the key {key:?} (line {}) is written before a merge key (<<) that sets it too: kubectl's YAML reader lets the merge win, other readers keep the written key; write the key after the <<, or leave it out of the merged mapping",
                    key_pos.line
                ),
                pos: at,
            });
        }
        top.supplied.extend(keys);
        self.after_value();
        Ok(())
    }

    fn close(&mut self) -> Result<(), YamlError> {
        let Some(frame) = self.frames.pop() else { return Ok(()) };
        let mut effective = BTreeSet::new();
        if frame.is_map && (frame.anchor != 0 || matches!(frame.role, Role::Source | Role::ListItem)) {
            for (key, pos) in &self.keys[frame.keys_from..] {
                if !effective.insert(key.to_string()) {
                    return Err(YamlError {
                        message: format!(
                            "the key {key:?} is written twice in a mapping that a merge key (<<) may copy: kubectl's YAML reader keeps the last one, others the first"
                        ),
                        pos: *pos,
                    });
                }
            }
            effective.extend(frame.supplied.iter().cloned());
        }
        self.keys.truncate(frame.keys_from);
        if frame.anchor != 0 {
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
        let mut check = MergeCheck::default();
        for next in Parser::new_from_str_with_options(src, parser_options()) {
            let (event, span) = next.map_err(|e| super::super::text::scan_error(&e))?;
            check.track(&event, &span)?;
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
            ("b:\n  <<: ~\n", "takes a mapping", 2),
            ("a: &x [1]\nb: {<<: *x}\n", "takes a mapping", 2),
            ("b: {<<: [[{p: 1}]]}\n", "takes a mapping", 1),
            ("a: &x {p: 1, p: 2}\nb: {<<: *x}\n", "written twice in a mapping that a merge key (<<) may copy", 1),
            ("a: &x {p: {<<: *x}}\n", "takes a mapping", 1),
        ] {
            let err = check(bad).expect_err(bad);
            assert!(err.message.contains(says), "{bad}: {}", err.message);
            assert_eq!(err.pos.line, line, "{bad}: {}", err.message);
        }
    }

    #[test]
    fn anchors_belong_to_their_document() {
        assert!(check("a: &x {p: 1}\n---\nb: {<<: *x}\n").is_err(), "an alias to another document's anchor");
    }
}
