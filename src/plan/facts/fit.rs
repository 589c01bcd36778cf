//! How a bundle role fits the selected APIs: whether it serves exactly one
//! API's admin, edit, view or CRD-view role, read from its rules' shape and
//! then measured, as the API server reads rules, against that role's ceiling.

use std::collections::BTreeSet;

use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::access::cover;
use crate::config::RoleKind;
use crate::model::*;

use crate::plan::apis::roles::ceiling;
use crate::plan::types::{Api, ApiSource};

/// What a role's rules grant over the selected APIs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RoleFit {
    /// Only the API at this index (subresources allowed), at this level:
    /// the role can serve that API's role.
    Serves(usize, RoleKind),
    /// Something else, touching these APIs (possibly none).
    Other(BTreeSet<usize>),
}

impl RoleFit {
    /// The APIs the role grants anything on.
    pub(crate) fn apis_touched(&self) -> BTreeSet<usize> {
        match self {
            RoleFit::Serves(i, _) => BTreeSet::from([*i]),
            RoleFit::Other(t) => t.clone(),
        }
    }
}

/// Classifies a role: `*` or every verb is admin, any write verb edit, only
/// read verbs view; `get` on exactly one API's CRD is its crdview role.
pub(crate) fn classify(rules: &[RuleView], apis: &[Api]) -> RoleFit {
    let mut touched = BTreeSet::new();
    let mut crd_rules = BTreeSet::new();
    let mut api_rules = BTreeSet::new();
    let mut exclusive = !rules.is_empty();
    let mut verbs: BTreeSet<&str> = BTreeSet::new();
    let mut on_main = false;
    for rule in rules {
        let about: Vec<usize> = (0..apis.len()).filter(|&i| grants_anything_on(rule, &apis[i])).collect();
        touched.extend(about.iter().copied());
        if let Some(i) = reads_one_crd(rule, apis) {
            crd_rules.insert(i);
            continue;
        }
        match about[..] {
            [i] if is_about_only(rule, &apis[i]) => {
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
        (true, Some(i), None) if crd_rules.is_empty() && on_main => level_of_verbs(&verbs).map(|level| (i, level)),
        _ => None,
    };
    // The shape says which role it provides; the evaluator says whether
    // everything it grants, read as the API server reads it, fits that role.
    match candidate {
        Some((i, level)) if fits_under(rules, &ceiling(&apis[i], level)) => RoleFit::Serves(i, level),
        _ => RoleFit::Other(touched),
    }
}

/// Does `ceiling` cover everything `rules` grant?
fn fits_under(rules: &[RuleView], ceiling: &[PolicyRule]) -> bool {
    let rules: Vec<PolicyRule> = rules.iter().map(RuleView::to_policy_rule).collect();
    cover::covers(ceiling, &rules)
}

/// A rule about this API alone: its group, its resource or subresources, all
/// objects (no `resourceNames`).
fn is_about_only(rule: &RuleView, api: &Api) -> bool {
    rule.non_resource_urls.is_empty()
        && rule.resource_names.is_empty()
        && !rule.api_groups.is_empty()
        && rule.api_groups.iter().all(|g| *g == api.group)
        && !rule.resources.is_empty()
        && rule.resources.iter().all(|r| r.split('/').next() == Some(api.plural.as_str()))
}

/// The role level verbs make: admin for `*` or every verb, edit for writing
/// (and reading) verbs, view for reading verbs only; `None` for others.
fn level_of_verbs(verbs: &BTreeSet<&str>) -> Option<RoleKind> {
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
fn grants_anything_on(rule: &RuleView, api: &Api) -> bool {
    let group = rule.api_groups.iter().any(|g| *g == api.group || g == "*");
    let resource = rule
        .resources
        .iter()
        .any(|r| r == "*" || r.split('/').next() == Some(api.plural.as_str()) || r.starts_with("*/"));
    group && resource
}

/// The selected API whose CRD object alone the rule reads (`get` and other
/// reads on exactly that one name), if any.
fn reads_one_crd(rule: &RuleView, apis: &[Api]) -> Option<usize> {
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

/// What a role aggregated into `level` may grant: that level on each of the
/// bundle's own APIs, and reading its CRD object.
pub(crate) fn level_bound(apis: &[Api], level: RoleKind) -> Vec<PolicyRule> {
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
