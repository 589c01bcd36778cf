//! Roles the bundle brings: which ones provide an API's admin, edit or view
//! role, and the label changes olm-rbac makes to them, recorded so that a
//! later run can take exactly those back.

use std::collections::{BTreeMap, BTreeSet};

use crate::config::{BundleRoles, Config, Mode, RoleKind};
use crate::model::*;
use crate::report::Finding;

use super::{role_name, Api, ApiSource};

const READ: [&str; 3] = ["get", "list", "watch"];
const WRITE: [&str; 5] = ["create", "update", "patch", "delete", "deletecollection"];

/// What a role's rules grant over the selected APIs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grants {
    /// Only the API at this index (subresources allowed), at this level.
    One(usize, RoleKind),
    /// Something else, touching these APIs (possibly none).
    Other(BTreeSet<usize>),
}

/// Classifies a role: `*` or every verb is admin, any write verb edit, only
/// read verbs view; `get` on exactly one API's CRD is its crdview role.
pub fn classify(rules: &[RuleView], apis: &[Api]) -> Grants {
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
    match (exclusive, one(&api_rules), one(&crd_rules)) {
        (true, None, Some(i)) if api_rules.is_empty() => Grants::One(i, RoleKind::CrdView),
        (true, Some(i), None) if crd_rules.is_empty() && on_main => match level(&verbs) {
            Some(level) => Grants::One(i, level),
            None => Grants::Other(touched),
        },
        _ => Grants::Other(touched),
    }
}

impl Grants {
    /// The APIs the role grants anything on.
    pub fn touched(&self) -> BTreeSet<usize> {
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
    if verbs.contains("*") || READ.iter().chain(&WRITE).all(|v| verbs.contains(v)) {
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
pub type Provided = BTreeMap<(String, RoleKind), usize>;

/// Chooses the bundle roles to use. A ClusterRole named exactly like a role
/// olm-rbac would generate, and granting that, comes first; then roles by name.
pub fn adopt(config: &Config, apis: &[Api], objects: &[InputObject], results: &mut Vec<Finding>) -> Provided {
    let mut provided = Provided::new();
    if config.bundle_roles == BundleRoles::Ignore {
        return provided;
    }
    let mut candidates: Vec<(usize, &InputObject, usize, RoleKind)> = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        let Body::Role(view) = &o.body else { continue };
        if !o.is("rbac.authorization.k8s.io", "ClusterRole") || o.generated() {
            continue;
        }
        if let Grants::One(a, role) = classify(&view.rules, apis) {
            if config.roles.contains(&role) {
                candidates.push((i, o, a, role));
            }
        }
    }
    let name_of = |o: &InputObject| o.header.name.clone().unwrap_or_default();
    let same_name = |o: &InputObject, a: usize, role: RoleKind| {
        let api = &apis[a];
        let mut names = vec![role_name(config.naming, &api.name, None, role)];
        names.extend(api.versions.iter().map(|v| role_name(config.naming, &api.name, Some(v), role)));
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
                        role_name(config.naming, &api.name, None, role)
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
pub struct Record {
    pub added: BTreeMap<String, String>,
    pub removed: BTreeMap<String, String>,
}

impl Record {
    pub fn parse(text: &str, extension: &str) -> Option<Record> {
        let (ext, ops) = text.split_once(':')?;
        if ext.trim() != extension {
            return None;
        }
        let mut record = Record::default();
        for op in ops.split_whitespace() {
            if let Some(key) = op.strip_prefix('+') {
                record.added.insert(key.to_string(), "true".into());
            } else if let Some((key, value)) = op.strip_prefix('-').and_then(|kv| kv.split_once('=')) {
                record.removed.insert(key.to_string(), value.to_string());
            }
        }
        Some(record)
    }

    pub fn format(&self, extension: &str) -> String {
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

/// Decides the label changes on bundle ClusterRoles for this run: first undo
/// what this extension recorded earlier, then apply what the mode wants, and
/// patch the item only where the two differ.
pub fn label_patches(
    config: &Config,
    apis: &[Api],
    provided: &Provided,
    objects: &[InputObject],
    results: &mut Vec<Finding>,
) -> BTreeMap<usize, MetaPatch> {
    let adopted: BTreeMap<usize, RoleKind> = provided.iter().map(|((_, role), &i)| (i, *role)).collect();
    let mut patches = BTreeMap::new();
    for (i, o) in objects.iter().enumerate() {
        if !o.is("rbac.authorization.k8s.io", "ClusterRole") || o.generated() {
            continue;
        }
        let recorded = o.header.annotations.get(LABEL_CHANGES_ANNOTATION);
        let earlier = match recorded {
            Some(text) => match Record::parse(text, &config.extension) {
                Some(r) => r,
                None => continue, // another extension's record: not ours to touch
            },
            None => Record::default(),
        };
        let touched = match &o.body {
            Body::Role(view) => classify(&view.rules, apis).touched(),
            _ => BTreeSet::new(),
        };
        let touches = !touched.is_empty();
        if recorded.is_none() && !touches {
            continue;
        }
        // The labels as the bundle wrote them.
        let mut original = o.header.labels.clone();
        original.retain(|k, _| !earlier.added.contains_key(k));
        original.extend(earlier.removed.clone());

        let mut wanted = Record::default();
        let aggregation: BTreeMap<String, String> = original
            .iter()
            .filter(|(k, _)| k.starts_with(AGGREGATE_PREFIX))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        match (config.mode, adopted.get(&i)) {
            (Mode::Aggregate, Some(role)) => {
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
            }
            (Mode::Bind | Mode::Unmanaged, _) if touches && !aggregation.is_empty() => {
                let keys = aggregation.keys().cloned().collect::<Vec<_>>().join(", ");
                if config.strip_bundle_aggregation {
                    results.push(
                        Finding::info(format!("removed its aggregation labels ({keys}) because spec.stripBundleAggregation is true; the change is recorded in annotation {LABEL_CHANGES_ANNOTATION} and undone when that changes"))
                            .on(&o.object_ref())
                            .in_file(o.file.as_ref()),
                    );
                    wanted.removed = aggregation;
                } else {
                    results.push(
                        Finding::warning(format!(
                            "this bundle role carries aggregation labels ({keys}), so it grants access to {} API(s) through the built-in roles, beyond what {} mode grants; set spec.stripBundleAggregation: true to remove them",
                            touched.len(),
                            config.mode.as_str()
                        ))
                        .on(&o.object_ref())
                        .in_file(o.file.as_ref()),
                    );
                }
            }
            _ => {}
        }
        if wanted == earlier {
            continue;
        }
        let mut target = original;
        target.retain(|k, _| !wanted.removed.contains_key(k));
        target.extend(wanted.added.clone());
        let mut patch = MetaPatch::default();
        for (k, v) in &o.header.labels {
            if target.get(k) != Some(v) {
                patch.labels.push(Edit::Remove(k.clone()));
            }
        }
        for (k, v) in &target {
            if o.header.labels.get(k) != Some(v) {
                patch.labels.push(Edit::Set(k.clone(), v.clone()));
            }
        }
        patch.annotations.push(if wanted.is_empty() {
            Edit::Remove(LABEL_CHANGES_ANNOTATION.into())
        } else {
            Edit::Set(LABEL_CHANGES_ANNOTATION.into(), wanted.format(&config.extension))
        });
        patches.insert(i, patch);
    }
    patches
}

/// Namespaced Roles that grant on a selected API: worth knowing, never adopted.
pub fn note_namespaced_roles(apis: &[Api], objects: &[InputObject], results: &mut Vec<Finding>) {
    for o in objects {
        let Body::Role(view) = &o.body else { continue };
        if !o.is("rbac.authorization.k8s.io", "Role") {
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
