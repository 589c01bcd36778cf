//! Roles the bundle brings: which ones provide an API's admin, edit or view
//! role, and the label changes olm-rbac makes to them, recorded so that a
//! later run can take exactly those back.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::access::cover;
use crate::access::describe_rule;
use crate::config::{BundleRoles, Config, Mode, RoleKind};
use crate::model::*;
use crate::report::Finding;
use crate::reserved;

use super::roles::{ceiling, role_name};
use super::{Api, ApiSource};

/// What a role's rules grant over the selected APIs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Grants {
    /// Only the API at this index (subresources allowed), at this level.
    One(usize, RoleKind),
    /// Something else, touching these APIs (possibly none).
    Other(BTreeSet<usize>),
}

/// Classifies a role: `*` or every verb is admin, any write verb edit, only
/// read verbs view; `get` on exactly one API's CRD is its crdview role.
pub(crate) fn classify(rules: &[RuleView], apis: &[Api]) -> Grants {
    let mut touched = BTreeSet::new();
    let mut crd_rules = BTreeSet::new();
    let mut api_rules = BTreeSet::new();
    let mut exclusive = !rules.is_empty();
    let mut verbs: BTreeSet<&str> = BTreeSet::new();
    let mut on_main = false;
    for rule in rules {
        let about: Vec<usize> = (0..apis.len()).filter(|&i| references(rule, &apis[i])).collect();
        touched.extend(about.iter().copied());
        if let Some(i) = crd_get_rule(rule, apis) {
            crd_rules.insert(i);
            continue;
        }
        match about[..] {
            [i] if only(rule, &apis[i]) => {
                api_rules.insert(i);
                on_main |= rule.resources.contains(&apis[i].plural);
                // Subresource verbs count too: a role is never classed below
                // anything it grants.
                verbs.extend(rule.verbs.iter().map(String::as_str));
            }
            _ => exclusive = false,
        }
    }
    let one = |set: &BTreeSet<usize>| if set.len() == 1 { set.first().copied() } else { None };
    let candidate = match (exclusive, one(&api_rules), one(&crd_rules)) {
        (true, None, Some(i)) if api_rules.is_empty() => Some((i, RoleKind::CrdView)),
        (true, Some(i), None) if crd_rules.is_empty() && on_main => level(&verbs).map(|level| (i, level)),
        _ => None,
    };
    // The shape says which role it provides; the evaluator says whether
    // everything it grants, read as the API server reads it, fits that role.
    match candidate {
        Some((i, level)) if within(rules, &ceiling(&apis[i], level)) => Grants::One(i, level),
        _ => Grants::Other(touched),
    }
}

fn within(rules: &[RuleView], ceiling: &[PolicyRule]) -> bool {
    let rules: Vec<PolicyRule> = rules.iter().map(RuleView::to_policy_rule).collect();
    cover::covers(ceiling, &rules)
}

/// Can this item be adopted, bound or relabelled at all? Not when its name is
/// a built-in role's, and not when an aggregation rule makes its rules
/// whatever it selects.
fn adoptable(o: &InputObject) -> Option<&RoleView> {
    let Body::Role(view) = &o.body else { return None };
    let reserved_name = o.header.name.as_deref().is_some_and(reserved::is_reserved_role_name);
    (o.is("rbac.authorization.k8s.io", "ClusterRole") && !view.aggregates() && !reserved_name).then_some(view)
}

impl Grants {
    /// The APIs the role grants anything on.
    pub(crate) fn touched(&self) -> BTreeSet<usize> {
        match self {
            Grants::One(i, _) => BTreeSet::from([*i]),
            Grants::Other(t) => t.clone(),
        }
    }
}

/// A rule about this API alone: its group, its resource or subresources, all
/// objects (no `resourceNames`).
fn only(rule: &RuleView, api: &Api) -> bool {
    rule.non_resource_urls.is_empty()
        && rule.resource_names.is_empty()
        && !rule.api_groups.is_empty()
        && rule.api_groups.iter().all(|g| *g == api.group)
        && !rule.resources.is_empty()
        && rule.resources.iter().all(|r| r.split('/').next() == Some(api.plural.as_str()))
}

fn level(verbs: &BTreeSet<&str>) -> Option<RoleKind> {
    if verbs.contains("*") || VERBS.iter().all(|v| verbs.contains(v)) {
        Some(RoleKind::Admin)
    } else if verbs.iter().any(|v| WRITE.contains(v)) {
        verbs.iter().all(|v| READ.contains(v) || WRITE.contains(v)).then_some(RoleKind::Edit)
    } else if !verbs.is_empty() && verbs.iter().all(|v| READ.contains(v)) {
        Some(RoleKind::View)
    } else {
        None
    }
}

/// Does the rule grant anything on the API (or its subresources)?
fn references(rule: &RuleView, api: &Api) -> bool {
    let group = rule.api_groups.iter().any(|g| *g == api.group || g == "*");
    let resource = rule
        .resources
        .iter()
        .any(|r| r == "*" || r.split('/').next() == Some(api.plural.as_str()) || r.starts_with("*/"));
    group && resource
}

/// `get` (and other reads) on exactly one selected API's CRD object.
fn crd_get_rule(rule: &RuleView, apis: &[Api]) -> Option<usize> {
    let shape = rule.api_groups == ["apiextensions.k8s.io"]
        && rule.resources == ["customresourcedefinitions"]
        && !rule.verbs.is_empty()
        && rule.verbs.iter().all(|v| READ.contains(&v.as_str()));
    let [name] = &rule.resource_names[..] else { return None };
    if !shape {
        return None;
    }
    apis.iter().position(|a| a.source == ApiSource::Crd && a.name == *name)
}

/// The roles the input provides, keyed by (API name, role), with the index of
/// the providing object.
pub(crate) type Provided = BTreeMap<(String, RoleKind), usize>;

/// Chooses the bundle roles to use. A ClusterRole named exactly like a role
/// olm-rbac would generate, and granting that, comes first; then roles by name.
pub(crate) fn adopt(
    config: &Config,
    apis: &[Api],
    objects: &[InputObject],
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) -> Provided {
    let mut provided = Provided::new();
    // Stripping means the bundle's aggregation is not trusted: in Aggregate
    // mode that includes labelling its roles, so every role is generated.
    let strip_aggregate = config.strip_bundle_aggregation && config.mode == Mode::Aggregate;
    if config.bundle_roles == BundleRoles::Ignore || strip_aggregate {
        return provided;
    }
    let mut candidates: Vec<(usize, &InputObject, usize, RoleKind)> = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        // Anything wearing olm-rbac's labels, believed or not, is not a bundle role to use.
        if claims[i].is_some() || o.header.labels.get(MANAGED_BY).map(String::as_str) == Some(MANAGER) {
            continue;
        }
        let Some(view) = adoptable(o) else { continue };
        if let Grants::One(a, role) = classify(&view.rules, apis) {
            if config.roles.contains(&role) {
                candidates.push((i, o, a, role));
            }
        }
    }
    let name_of = |o: &InputObject| o.header.name.clone().unwrap_or_default();
    let same_name = |o: &InputObject, a: usize, role: RoleKind| {
        let api = &apis[a];
        let mut names = vec![role_name(config.naming, api, None, role)];
        names.extend(api.versions.iter().map(|v| role_name(config.naming, api, Some(v), role)));
        names.contains(&name_of(o))
    };
    candidates.sort_by_key(|&(_, o, a, role)| (!same_name(o, a, role), name_of(o)));
    for (i, o, a, role) in candidates {
        let api = &apis[a];
        match provided.get(&(api.name.clone(), role)) {
            Some(&first) => results.push(
                Finding::info(format!(
                    "also grants the {} role for {}, but {} already provides it; not used",
                    role.as_str(),
                    api.name,
                    name_of(&objects[first])
                ))
                .on(&o.object_ref())
                .in_file(o.file.as_ref()),
            ),
            None => {
                results.push(
                    Finding::info(format!(
                        "provides the {} role for {}: olm-rbac uses it instead of generating {}",
                        role.as_str(),
                        api.name,
                        role_name(config.naming, api, None, role)
                    ))
                    .on(&o.object_ref())
                    .in_file(o.file.as_ref()),
                );
                provided.insert((api.name.clone(), role), i);
            }
        }
    }
    provided
}

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
    config: &Config,
    apis: &[Api],
    provided: &Provided,
    objects: &[InputObject],
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) -> BTreeMap<usize, MetaPatch> {
    let adopted: BTreeMap<usize, RoleKind> = provided.iter().map(|((_, role), &i)| (i, *role)).collect();
    let mut patches = BTreeMap::new();
    for (i, o) in objects.iter().enumerate() {
        if claims[i].is_some() {
            continue;
        }
        if let Some(patch) = label_patch(config, apis, adopted.get(&i).copied(), o, results) {
            patches.insert(i, patch);
        }
    }
    patches
}

/// The patch one item needs, if any; `adopted` is the role it provides.
fn label_patch(
    config: &Config,
    apis: &[Api],
    adopted: Option<RoleKind>,
    o: &InputObject,
    results: &mut Vec<Finding>,
) -> Option<MetaPatch> {
    let is_role = o.is("rbac.authorization.k8s.io", "ClusterRole");
    let has_aggregation = o.header.labels.keys().any(|k| k.starts_with(AGGREGATE_PREFIX));
    let recorded = o.header.annotations.get(LABEL_CHANGES_ANNOTATION);
    let earlier = earlier_record(config, o, has_aggregation, results)?;
    let touched = match (&o.body, is_role) {
        (Body::Role(view), true) => classify(&view.rules, apis).touched(),
        _ => BTreeSet::new(),
    };
    if recorded.is_none() && touched.is_empty() && !(has_aggregation && (is_role || config.strip_bundle_aggregation)) {
        return None;
    }
    let original = believed_original(o, &earlier, apis, results);
    let aggregation: BTreeMap<String, String> =
        original.iter().filter(|(k, _)| k.starts_with(AGGREGATE_PREFIX)).map(|(k, v)| (k.clone(), v.clone())).collect();
    let mut wanted = Record::default();
    if config.strip_bundle_aggregation && !aggregation.is_empty() {
        let keys = aggregation.keys().cloned().collect::<Vec<_>>().join(", ");
        results.push(note(o, Finding::info(format!(
            "removed its aggregation labels ({keys}) because spec.stripBundleAggregation is true; the change is recorded in annotation {LABEL_CHANGES_ANNOTATION} and undone when that changes"
        ))));
        wanted.removed = aggregation.clone();
    } else if let (Mode::Aggregate, Some(role)) = (config.mode, adopted) {
        let key = format!("{AGGREGATE_PREFIX}{}", role.aggregates_to());
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
        warn_bundle_aggregation(config, o, &aggregation, &touched, apis, results);
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

/// A result about `o`.
fn note(o: &InputObject, f: Finding) -> Finding {
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
                results.push(note(
                    o,
                    Finding::warning(format!(
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
            results.push(note(
                o,
                Finding::error(format!(
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
    o: &InputObject,
    earlier: &Record,
    apis: &[Api],
    results: &mut Vec<Finding>,
) -> BTreeMap<String, String> {
    let mut original = o.header.labels.clone();
    original.retain(|k, _| !earlier.added.contains_key(k));
    for (key, value) in &earlier.removed {
        match restorable(o, key, apis) {
            Ok(()) => {
                original.insert(key.clone(), value.clone());
            }
            Err(why) => results.push(note(o, Finding::warning(format!(
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
        results.push(note(
            o,
            Finding::info(format!(
                "undid label changes olm-rbac recorded earlier in annotation {LABEL_CHANGES_ANNOTATION}: {}",
                undone.join(", ")
            )),
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

/// What a role aggregated into `level` may grant: that level on each of the
/// bundle's own APIs, and reading its CRD object.
pub(super) fn level_bound(apis: &[Api], level: RoleKind) -> Vec<PolicyRule> {
    apis.iter()
        .flat_map(|api| {
            let mut rules = ceiling(api, level);
            if api.source == ApiSource::Crd {
                rules.extend(ceiling(api, RoleKind::CrdView));
            }
            rules
        })
        .collect()
}

/// May a recorded removal of `key` be undone on `o`? Labels on other kinds
/// grant nothing. On a ClusterRole, an aggregation label adds its rules to
/// every holder of the role it names, so it comes back only onto a role that
/// grants nothing beyond the bundle's own APIs at that level (`view` for
/// roles outside admin, edit and view, such as OpenShift's cluster-reader).
fn restorable(o: &InputObject, key: &str, apis: &[Api]) -> Result<(), String> {
    if !o.is("rbac.authorization.k8s.io", "ClusterRole") {
        return Ok(());
    }
    let Some(view) = adoptable(o) else {
        return Err("the role is reserved or aggregates other roles".into());
    };
    let level = match key.strip_prefix(AGGREGATE_PREFIX) {
        Some("admin") => RoleKind::Admin,
        Some("edit") => RoleKind::Edit,
        _ => RoleKind::View,
    };
    let bound = level_bound(apis, level);
    let beyond = view.rules.iter().find_map(|r| cover::uncovered_rules(&bound, &r.to_policy_rule()).into_iter().next());
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
    config: &Config,
    o: &InputObject,
    aggregation: &BTreeMap<String, String>,
    touched: &BTreeSet<usize>,
    apis: &[Api],
    results: &mut Vec<Finding>,
) {
    let keys = aggregation.keys().cloned().collect::<Vec<_>>().join(", ");
    let beyond = aggregation.keys().find_map(|k| restorable(o, k, apis).err());
    let message = match (beyond, touched.is_empty()) {
        (Some(why), _) => format!(
            "this bundle role carries aggregation labels ({keys}) and {}: everyone holding those roles gets it. Set spec.stripBundleAggregation: true to remove the labels",
            why.replace("the role grants", "grants")
        ),
        (None, false) if config.mode != Mode::Aggregate => format!(
            "this bundle role carries aggregation labels ({keys}), so it grants access to {} API(s) through the built-in roles, beyond what {} mode grants; set spec.stripBundleAggregation: true to remove them",
            touched.len(),
            config.mode.as_str()
        ),
        _ => return,
    };
    results.push(Finding::warning(message).on(&o.object_ref()).in_file(o.file.as_ref()));
}

/// Namespaced Roles that grant on a selected API: worth knowing, never adopted.
pub(crate) fn note_namespaced_roles(
    apis: &[Api],
    objects: &[InputObject],
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) {
    for (o, claim) in objects.iter().zip(claims) {
        let Body::Role(view) = &o.body else { continue };
        // olm-rbac's own (the operator's Roles) are no bundle roles.
        if !o.is("rbac.authorization.k8s.io", "Role") || claim.is_some() {
            continue;
        }
        let touched = classify(&view.rules, apis).touched();
        if touched.is_empty() {
            continue;
        }
        let names: Vec<&str> = touched.iter().map(|&i| apis[i].name.as_str()).collect();
        results.push(
            Finding::info(format!(
                "this namespaced Role grants on {} only in the namespace it is created in; olm-rbac does not adopt Roles, it generates cluster-wide roles",
                names.join(", ")
            ))
            .on(&o.object_ref())
            .in_file(o.file.as_ref()),
        );
    }
}
