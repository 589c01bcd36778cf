//! The label changes olm-rbac makes to roles it did not generate (adopted
//! roles gain their aggregation label; `stripBundleAggregation` removes the
//! bundle's), each recorded in the role's `olm-rbac.io/label-changes`
//! annotation so that a later run takes back exactly those, as far as the
//! record, which whoever wrote the role may have forged, can be believed.

use std::collections::{BTreeMap, BTreeSet};

use crate::access::cover;
use crate::access::describe_rule;
use crate::config::{Config, Mode, RoleKind};
use crate::findings::{Code, Finding};
use crate::model::*;

use super::{adoptable, Provided};
use crate::plan::apis::roles::level_gathered_by;
use crate::plan::facts::fit::RoleFit;
use crate::plan::facts::input::Planning;

/// The record of what olm-rbac changed in an item's labels, kept in its
/// `olm-rbac.io/label-changes` annotation: `<extension>: +added -removed=value`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Record {
    pub added: BTreeMap<String, String>,
    pub removed: BTreeMap<String, String>,
}

impl Record {
    /// Reads this extension's record; `None` when the record is another
    /// extension's. Entries olm-rbac never writes (any key outside
    /// `rbac.authorization.k8s.io/aggregate-to-*`, or unreadable ones) are
    /// returned apart, so that they are reported and never acted on.
    pub(crate) fn parse(text: &str, extension: &str) -> Option<(Record, Vec<String>)> {
        let (ext, ops) = text.split_once(':')?;
        if ext.trim() != extension {
            return None;
        }
        let mut record = Record::default();
        let mut forged = Vec::new();
        for op in ops.split_whitespace() {
            let ours = |key: &str| key.strip_prefix(AGGREGATE_PREFIX).is_some_and(|to| !to.is_empty());
            if let Some(key) = op.strip_prefix('+').filter(|k| ours(k)) {
                record.added.insert(key.to_string(), "true".into());
            } else if let Some((key, value)) =
                op.strip_prefix('-').and_then(|kv| kv.split_once('=')).filter(|(k, _)| ours(k))
            {
                record.removed.insert(key.to_string(), value.to_string());
            } else {
                forged.push(op.to_string());
            }
        }
        Some((record, forged))
    }

    pub(crate) fn format(&self, extension: &str) -> String {
        let ops = self
            .added
            .keys()
            .map(|k| format!("+{k}"))
            .chain(self.removed.iter().map(|(k, v)| format!("-{k}={v}")))
            .collect::<Vec<_>>()
            .join(" ");
        format!("{extension}: {ops}")
    }

    fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }
}

/// Decides the label changes on items olm-rbac did not generate, for this
/// run: first undo what this extension recorded earlier, as far as that is
/// safe, then apply what the mode wants, and patch the item only where the two
/// differ.
///
/// The record is written into the item, so whoever wrote the item may have
/// forged it: undoing a recorded addition only removes a label, and a recorded
/// removal is restored only onto a role whose every permission stays within
/// the bundle's own APIs at the level the label aggregates into.
pub(crate) fn label_patches(
    p: &Planning<'_>,
    provided: &Provided,
    results: &mut Vec<Finding>,
) -> BTreeMap<usize, MetaPatch> {
    let (objects, claims) = (p.objects(), &p.claims);
    let adopted: BTreeMap<usize, RoleKind> = provided.iter().map(|((_, role), &i)| (i, *role)).collect();
    let mut patches = BTreeMap::new();
    for (i, o) in objects.iter().enumerate() {
        if claims[i].is_some() {
            continue;
        }
        if let Some(patch) = label_patch(p, p.role_fit(i), adopted.get(&i).copied(), o, results) {
            patches.insert(i, patch);
        }
    }
    patches
}

/// The patch one item needs, if any: `fit` is how it fits the APIs, if it
/// is a role, and `adopted` the API role it provides.
fn label_patch(
    p: &Planning<'_>,
    fit: Option<&RoleFit>,
    adopted: Option<RoleKind>,
    o: &InputObject,
    results: &mut Vec<Finding>,
) -> Option<MetaPatch> {
    let config = p.config;
    let is_role = o.role_kind() == Some(RoleRefKind::ClusterRole);
    let has_aggregation = o.header.labels.keys().any(|k| k.starts_with(AGGREGATE_PREFIX));
    let recorded = o.header.annotations.get(LABEL_CHANGES_ANNOTATION);
    let earlier = earlier_record(config, o, has_aggregation, results)?;
    let touched = match (fit, is_role) {
        (Some(fit), true) => fit.apis_touched(),
        _ => BTreeSet::new(),
    };
    if recorded.is_none() && touched.is_empty() && !(has_aggregation && (is_role || config.strip_bundle_aggregation)) {
        return None;
    }
    let original = believed_original(p, o, &earlier, results);
    let aggregation: BTreeMap<String, String> =
        original.iter().filter(|(k, _)| k.starts_with(AGGREGATE_PREFIX)).map(|(k, v)| (k.clone(), v.clone())).collect();
    let mut wanted = Record::default();
    if config.strip_bundle_aggregation && !aggregation.is_empty() {
        let keys = aggregation.keys().cloned().collect::<Vec<_>>().join(", ");
        results.push(finding_on(o, Finding::info(Code::LabelsChanged, format!(
            "removed its aggregation labels ({keys}) because spec.stripBundleAggregation is true; the change is recorded in annotation {LABEL_CHANGES_ANNOTATION} and undone when that changes"
        ))));
        wanted.removed = aggregation.clone();
    } else if let (Mode::Aggregate, Some(role)) = (config.mode, adopted) {
        let key = role.aggregates_to().label();
        match original.get(&key).map(String::as_str) {
            Some("true") => {}
            // Another value is replaced, and recorded so that it comes back.
            Some(other) => {
                wanted.removed.insert(key.clone(), other.to_string());
                wanted.added.insert(key, "true".into());
            }
            None => {
                wanted.added.insert(key, "true".into());
            }
        }
    } else if is_role && !aggregation.is_empty() {
        warn_bundle_aggregation(p, o, &aggregation, &touched, results);
    }
    if wanted == earlier && original == o.header.labels {
        return None;
    }
    let mut target = original;
    target.retain(|k, _| !wanted.removed.contains_key(k));
    target.extend(wanted.added.clone());
    report_undone(o, &earlier, &target, results);
    let patch = patch_to(o, &target, &wanted, &config.extension);
    if patch.labels.is_empty() && recorded.map(String::as_str) == Some(&wanted.format(&config.extension)) {
        return None;
    }
    Some(patch)
}

/// `f` as a result about `o`, in its file.
fn finding_on(o: &InputObject, f: Finding) -> Finding {
    f.on(&o.object_ref()).in_file(o.file.as_ref())
}

/// What this extension recorded on `o` earlier (empty without a record).
/// `None` when the record is another extension's: its labels are that
/// extension's to manage, and stripping them too is an error.
fn earlier_record(
    config: &Config,
    o: &InputObject,
    has_aggregation: bool,
    results: &mut Vec<Finding>,
) -> Option<Record> {
    let recorded = o.header.annotations.get(LABEL_CHANGES_ANNOTATION);
    match recorded.map(|text| Record::parse(text, &config.extension)) {
        Some(Some((record, forged))) => {
            if !forged.is_empty() {
                results.push(finding_on(
                    o,
                    Finding::warning(Code::LabelRecordIgnored, format!(
                        "annotation {LABEL_CHANGES_ANNOTATION} holds entries olm-rbac never writes ({}); they are ignored",
                        forged.join(" ")
                    )),
                ));
            }
            Some(record)
        }
        // Another extension's record: its labels are that extension's to manage,
        // unless this config strips every bundle aggregation label.
        Some(None) if config.strip_bundle_aggregation && has_aggregation => {
            results.push(finding_on(
                o,
                Finding::error(Code::ConfigsOverlap, format!(
                    "spec.stripBundleAggregation would remove its aggregation labels, but annotation {LABEL_CHANGES_ANNOTATION} says another extension manages them; give the two extensions' configs the same setting"
                ))
                .at(format!("metadata.annotations.{LABEL_CHANGES_ANNOTATION}")),
            ));
            None
        }
        Some(None) => None,
        None => Some(Record::default()),
    }
}

/// The labels as the bundle wrote them, as far as the record may be believed.
fn believed_original(
    p: &Planning<'_>,
    o: &InputObject,
    earlier: &Record,
    results: &mut Vec<Finding>,
) -> BTreeMap<String, String> {
    let mut original = o.header.labels.clone();
    original.retain(|k, _| !earlier.added.contains_key(k));
    for (key, value) in &earlier.removed {
        match restorable(p, o, key) {
            Ok(()) => {
                original.insert(key.clone(), value.clone());
            }
            Err(why) => results.push(finding_on(o, Finding::warning(Code::LabelRecordIgnored, format!(
                "annotation {LABEL_CHANGES_ANNOTATION} says olm-rbac removed label {key}={value}; it is not put back, because {why}. If the bundle really had it, restore the file from the bundle"
            )))),
        }
    }
    original
}

/// Says which earlier changes this run takes back.
fn report_undone(o: &InputObject, earlier: &Record, target: &BTreeMap<String, String>, results: &mut Vec<Finding>) {
    let mut undone: Vec<String> = earlier
        .added
        .keys()
        .filter(|k| o.header.labels.contains_key(*k) && !target.contains_key(*k))
        .map(|k| format!("removed {k}"))
        .collect();
    undone.extend(
        earlier
            .removed
            .iter()
            .filter(|(k, v)| target.get(*k) == Some(v) && o.header.labels.get(*k) != Some(v))
            .map(|(k, v)| format!("put back {k}={v}")),
    );
    if !undone.is_empty() {
        results.push(finding_on(
            o,
            Finding::info(
                Code::LabelsChanged,
                format!(
                    "undid label changes olm-rbac recorded earlier in annotation {LABEL_CHANGES_ANNOTATION}: {}",
                    undone.join(", ")
                ),
            ),
        ));
    }
}

/// The edits that take `o`'s labels to `target`, and its record to `wanted`.
fn patch_to(o: &InputObject, target: &BTreeMap<String, String>, wanted: &Record, extension: &str) -> MetaPatch {
    let mut patch = MetaPatch::default();
    for (k, v) in &o.header.labels {
        if target.get(k) != Some(v) {
            patch.labels.push(Edit::Remove(k.clone()));
        }
    }
    for (k, v) in target {
        if o.header.labels.get(k) != Some(v) {
            patch.labels.push(Edit::Set(k.clone(), v.clone()));
        }
    }
    patch.annotations.push(if wanted.is_empty() {
        Edit::Remove(LABEL_CHANGES_ANNOTATION.into())
    } else {
        Edit::Set(LABEL_CHANGES_ANNOTATION.into(), wanted.format(extension))
    });
    patch
}

/// May a recorded removal of `key` be undone on `o`? Labels on other kinds
/// grant nothing. On a ClusterRole, an aggregation label adds its rules to
/// every holder of the role it names, so it comes back only onto a role that
/// grants nothing beyond the bundle's own APIs at that level (`view` for
/// roles outside admin, edit and view, such as OpenShift's cluster-reader).
fn restorable(p: &Planning<'_>, o: &InputObject, key: &str) -> Result<(), String> {
    if o.role_kind() != Some(RoleRefKind::ClusterRole) {
        return Ok(());
    }
    let Some(view) = adoptable(o) else {
        return Err("the role is reserved or aggregates other roles".into());
    };
    let level = AggregatingRole::of_label(key).map_or(RoleKind::View, level_gathered_by);
    let bound = p.level_bound(level);
    let beyond = view.rules.iter().find_map(|r| cover::uncovered_rules(bound, &r.to_policy_rule()).into_iter().next());
    match beyond {
        None => Ok(()),
        Some(rule) => Err(format!(
            "the role grants more than {} on the bundle's own APIs ({})",
            level.as_str(),
            describe_rule(&rule)
        )),
    }
}

/// Aggregation labels the bundle put on its own roles pass through (unless
/// stripped), but never unremarked.
fn warn_bundle_aggregation(
    p: &Planning<'_>,
    o: &InputObject,
    aggregation: &BTreeMap<String, String>,
    touched: &BTreeSet<usize>,
    results: &mut Vec<Finding>,
) {
    let config = p.config;
    let keys = aggregation.keys().cloned().collect::<Vec<_>>().join(", ");
    let beyond = aggregation.keys().find_map(|k| restorable(p, o, k).err());
    let (code, message) = match (beyond, touched.is_empty()) {
        (Some(why), _) => (Code::AggregationBeyond, format!(
            "this bundle role carries aggregation labels ({keys}) and {}: everyone holding those roles gets it. Set spec.stripBundleAggregation: true to remove the labels",
            why.replace("the role grants", "grants")
        )),
        (None, false) if config.mode != Mode::Aggregate => (Code::BundleAggregation, format!(
            "this bundle role carries aggregation labels ({keys}), so it grants access to {} API(s) through the built-in roles, beyond what {} mode grants; set spec.stripBundleAggregation: true to remove them",
            touched.len(),
            config.mode.as_str()
        )),
        _ => return,
    };
    results.push(Finding::warning(code, message).on(&o.object_ref()).in_file(o.file.as_ref()));
}
