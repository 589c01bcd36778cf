//! Claims about earlier output: which input items olm-rbac generated on an
//! earlier run. (Whose each item is by its file is decided in `origin`.)
//!
//! The labels that say so are claims, written by whoever wrote the item: an
//! item counts as generated only when it is of a kind olm-rbac writes, has the
//! shape olm-rbac writes, and is about an API the input defines. Anything else
//! carrying the labels is an ordinary item: never removed, never trusted.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::{PolicyRule, RoleRef, Subject};

use crate::access;
use crate::config::RoleKind;
use crate::findings::{Code, Finding};
use crate::model::*;
use crate::names::{is_dns1123_label, is_dns1123_subdomain};
use crate::reserved;

use crate::plan::apis::olm_apis;
use crate::plan::apis::roles::rule_for_parts;
use crate::plan::facts::origin::Origins;
use crate::plan::operator::accounts::{AccountRole, SERVICE_ACCOUNT_ANNOTATION};
use crate::plan::types::Object;
use crate::plan::types::OlmRole;

/// Which input items are earlier output.
pub(crate) struct Claims {
    /// For each input item, the extension it was generated for, if the claim holds.
    pub of: Vec<Option<String>>,
    /// Of the items this run writes again exactly (see [`is_exactly`] and
    /// [`crate::plan::plan`]; only they may be earlier output in a bundle's own
    /// folder), the items whose copy OLM would install, were they the
    /// bundle's, is an object this run writes too (see [`Believed`]): the
    /// install gate does not count them as the bundle's.
    pub held_anyway: BTreeSet<usize>,
}

/// Which claims a planning believes: the items it writes again exactly, and
/// of those the items the cluster holds whoever ships them. OLM would put a
/// bundle's namespaced object in the install namespace, so a namespaced item
/// is held anyway only when this run writes it there too (an installer's
/// binding in its own namespace, the operator's Role written in every
/// namespace it serves); a cluster-scoped one, when this run writes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Believed {
    pub rewritten: BTreeSet<usize>,
    pub held_anyway: BTreeSet<usize>,
}

impl Believed {
    /// Every item whose claim has the shape olm-rbac writes, believed both ways.
    pub(crate) fn at_most(objects: &[InputObject]) -> Believed {
        let all = candidates(objects);
        Believed { rewritten: all.clone(), held_anyway: all }
    }

    /// What a planning that believed `self` bears out: the items it removed and
    /// wrote again exactly, and of those the items whose OLM copy it writes too,
    /// in the install namespace `install` gives for the item's extension.
    pub(crate) fn borne_out<'c>(
        &self,
        objects: &[InputObject],
        removed: &BTreeSet<usize>,
        written: &[&Object],
        install: impl Fn(&str) -> Option<&'c str>,
    ) -> Believed {
        let rewritten: BTreeSet<usize> = self
            .rewritten
            .iter()
            .copied()
            .filter(|i| removed.contains(i) && written.iter().any(|g| is_exactly(&objects[*i], g)))
            .collect();
        let olm_copy_written = |i: &usize| {
            let o = &objects[*i];
            let extension = o.header.labels.get(EXTENSION_LABEL).map(String::as_str).unwrap_or_default();
            let at = match &o.header.namespace {
                None => None,
                Some(_) => match install(extension) {
                    Some(ns) => Some(ns),
                    None => return false,
                },
            };
            written.iter().any(|g| is_exactly_in(o, g, at) || (at.is_some() && covered_in_place(o, g, at)))
        };
        let held_anyway =
            self.held_anyway.iter().copied().filter(|i| rewritten.contains(i)).filter(olm_copy_written).collect();
        Believed { rewritten, held_anyway }
    }
}

/// The items whose claim to be earlier output has the shape olm-rbac writes,
/// wherever they come from: what [`crate::plan::plan`] starts from when it settles
/// which claims this run writes again exactly.
pub(crate) fn candidates(objects: &[InputObject]) -> BTreeSet<usize> {
    let defined = defined_apis(objects);
    (0..objects.len())
        .filter(|&i| claims_generated(&objects[i]) && check_claim(&objects[i], &defined).is_ok())
        .collect()
}

/// Does the item carry the label that says olm-rbac generated it?
fn claims_generated(o: &InputObject) -> bool {
    o.header.labels.get(MANAGED_BY).map(String::as_str) == Some(MANAGER)
}

/// For each input item, the extension it was generated for, if the claim
/// holds. In a bundle's own folder a claim holds only for the items in
/// `rewritten`: those this run writes again exactly.
pub(crate) fn generated_claims(
    objects: &[InputObject],
    origins: &Origins,
    believed: &Believed,
    results: &mut Vec<Finding>,
) -> Claims {
    let rewritten = &believed.rewritten;
    let defined = defined_apis(objects);
    let of = objects
        .iter()
        .enumerate()
        .map(|(i, o)| {
            if !claims_generated(o) {
                return None;
            }
            let claim = check_claim(o, &defined);
            // olm-rbac writes to its output path, never into a bundle.
            let claim = match claim {
                Ok(extension) if origins.is_bundle(i) && rewritten.contains(&i) => Ok(extension),
                _ if origins.is_bundle(i) => Err(IN_BUNDLE.to_string()),
                other => other,
            };
            match claim {
                Ok(extension) => Some(extension),
                Err(why) => {
                    results.push(
                        Finding::warning(Code::ClaimIgnored, format!(
                            "carries the label {MANAGED_BY}: {MANAGER}, but {why}; olm-rbac treats it as an ordinary item: it neither removes nor replaces it"
                        ))
                        .on(&o.object_ref())
                        .in_file(o.file.as_ref()),
                    );
                    None
                }
            }
        })
        .collect();
    Claims { of, held_anyway: believed.held_anyway.clone() }
}

const IN_BUNDLE: &str = "it comes from a bundle's own folder, where olm-rbac never writes";

/// Is the item exactly `g`, in everything that grants or identifies: kind,
/// name and namespace, labels and annotations (the runners' own path
/// annotations aside), and the rules, or the role and subjects? Then
/// replacing the item with `g` changes nothing on the cluster.
pub(crate) fn is_exactly(o: &InputObject, g: &Object) -> bool {
    is_exactly_in(o, g, o.header.namespace.as_deref())
}

/// [`is_exactly`], for the item moved into `namespace`.
fn is_exactly_in(o: &InputObject, g: &Object, namespace: Option<&str>) -> bool {
    let r = g.object_ref();
    let m = g.metadata();
    let own = |map: &BTreeMap<String, String>| -> Vec<(String, String)> {
        map.iter().filter(|(k, _)| !is_runners(k)).map(|(k, v)| (k.clone(), v.clone())).collect()
    };
    let h = &o.header;
    let same_meta = h.api_version.as_deref() == Some(r.api_version.as_str())
        && h.kind.as_deref() == Some(r.kind.as_str())
        && h.name == m.name
        && namespace == m.namespace.as_deref()
        && own(&h.labels) == own(&m.labels.clone().unwrap_or_default())
        && own(&h.annotations) == own(&m.annotations.clone().unwrap_or_default());
    let rules = |v: &crate::model::RoleView| -> Option<Vec<PolicyRule>> {
        (!v.aggregates()).then(|| v.rules.iter().map(RuleView::to_policy_rule).collect())
    };
    let binding = |v: &crate::model::BindingView, role_ref: &RoleRef, subjects: &Option<Vec<Subject>>| {
        let subjects: Vec<Subject> = subjects.clone().unwrap_or_default();
        v.role_ref.kind.as_deref() == Some(role_ref.kind.as_str())
            && v.role_ref.name.as_deref() == Some(role_ref.name.as_str())
            && v.subjects.len() == subjects.len()
            && v.subjects.iter().zip(&subjects).all(|(a, b)| {
                a.kind.as_deref() == Some(b.kind.as_str())
                    && a.name.as_deref() == Some(b.name.as_str())
                    && a.namespace == b.namespace
                    && a.api_group == b.api_group
            })
    };
    same_meta
        && match (&o.body, g) {
            (Body::Role(v), Object::ClusterRole(c)) => {
                c.aggregation_rule.is_none() && rules(v) == Some(c.rules.clone().unwrap_or_default())
            }
            (Body::Role(v), Object::Role(c)) => rules(v) == Some(c.rules.clone().unwrap_or_default()),
            (Body::Binding(v), Object::ClusterRoleBinding(b)) => binding(v, &b.role_ref, &b.subjects),
            (Body::Binding(v), Object::RoleBinding(b)) => binding(v, &b.role_ref, &b.subjects),
            // A ServiceAccount holds nothing by itself: its header is all it is.
            (Body::Other, Object::ServiceAccount(_)) => true,
            _ => false,
        }
}

/// Is the Role `o`, moved into `namespace`, the same object on the cluster as
/// the Role `g` (kind, name, namespace) with rules `g`'s cover? Then whichever
/// of the two is applied last grants no more than `g`: OLM's copy of a Role
/// the run writes with fewer rules in another namespace (the installer's
/// Role in a target namespace, beside its Role in the install namespace).
fn covered_in_place(o: &InputObject, g: &Object, namespace: Option<&str>) -> bool {
    let (Body::Role(v), Object::Role(role)) = (&o.body, g) else { return false };
    let m = &role.metadata;
    let rules: Vec<PolicyRule> = v.rules.iter().map(RuleView::to_policy_rule).collect();
    o.role_kind() == Some(RoleRefKind::Role)
        && o.header.name == m.name
        && namespace == m.namespace.as_deref()
        && access::cover::covers(role.rules.as_deref().unwrap_or_default(), &rules)
}

/// An annotation kpt or kustomize writes on every item it sends.
fn is_runners(key: &str) -> bool {
    ["config.kubernetes.io/", "internal.config.kubernetes.io/", "kustomize.config.k8s.io/"]
        .iter()
        .any(|p| key.starts_with(p))
}

/// `<plural>.<group>` of every API the input defines: its CRDs and the
/// APIServices its CSVs own, outside the groups the platform reserves.
fn defined_apis(objects: &[InputObject]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut add = |plural: Option<&str>, group: Option<&str>| {
        if let (Some(p), Some(g)) = (plural, group) {
            if is_dns1123_label(p) && is_dns1123_subdomain(g) && reserved::owner_of(g, p).is_none() {
                out.insert(format!("{p}.{g}"));
            }
        }
    };
    for o in objects {
        match &o.body {
            Body::Crd(v) => add(v.spec.names.plural.as_deref(), v.spec.group.as_deref()),
            Body::Csv(v) => {
                for entry in &v.spec.apiservicedefinitions.owned {
                    add(entry.name.as_deref(), entry.group.as_deref());
                }
            }
            _ => {}
        }
    }
    out
}

fn check_claim(o: &InputObject, defined: &BTreeSet<String>) -> Result<String, String> {
    let labels = &o.header.labels;
    let extension = labels.get(EXTENSION_LABEL).ok_or_else(|| format!("it has no {EXTENSION_LABEL} label"))?;
    match labels.get(ROLE_LABEL).and_then(|r| AccountRole::of_label(r)) {
        Some(AccountRole::Operator) => return check_operator_claim(o).map(|()| extension.clone()),
        Some(AccountRole::Installer) if o.is("", "ServiceAccount") => {
            return o
                .header
                .annotations
                .contains_key(SERVICE_ACCOUNT_ANNOTATION)
                .then(|| extension.clone())
                .ok_or_else(|| format!("it has no {SERVICE_ACCOUNT_ANNOTATION} annotation"));
        }
        Some(AccountRole::Installer) => return check_operator_claim(o).map(|()| extension.clone()),
        None => {}
    }
    if labels.get(ROLE_LABEL).map(String::as_str) == Some(ADMISSION_POLICY_ROLE) {
        let admission = |kind: &str| o.is("admissionregistration.k8s.io", kind);
        return (admission("ValidatingAdmissionPolicy") || admission("ValidatingAdmissionPolicyBinding"))
            .then(|| extension.clone())
            .ok_or_else(|| {
                "olm-rbac writes only ValidatingAdmissionPolicies and their bindings for spec.admissionPolicy".into()
            });
    }
    if labels.get(ROLE_LABEL).map(String::as_str) == Some(DELEGATION_ROLE) {
        let admission = |kind: &str| o.is("admissionregistration.k8s.io", kind);
        let rbac = |kind: &str| o.is(RBAC_GROUP, kind);
        return (admission("ValidatingAdmissionPolicy")
            || admission("ValidatingAdmissionPolicyBinding")
            || rbac("ClusterRole")
            || rbac("ClusterRoleBinding"))
        .then(|| extension.clone())
        .ok_or_else(|| {
            "olm-rbac writes only ClusterRoles, their bindings, a ValidatingAdmissionPolicy and its binding for spec.delegations".into()
        });
    }
    if let Some(role) = labels.get(ROLE_LABEL).and_then(|r| OlmRole::of_label(r)) {
        return olm_apis::check_claim(o, role, extension).map(|()| extension.clone());
    }
    let role = labels
        .get(ROLE_LABEL)
        .and_then(|r| RoleKind::parse(r))
        .ok_or_else(|| format!("its {ROLE_LABEL} label is not one of admin, edit, view, view-crdview"))?;
    let api = o
        .header
        .annotations
        .get(API_ANNOTATION)
        .filter(|a| defined.contains(a.as_str()))
        .ok_or_else(|| format!("its {API_ANNOTATION} annotation does not name an API the input defines"))?;
    let (plural, group) =
        api.split_once('.').ok_or_else(|| "its API annotation is not <plural>.<group>".to_string())?;
    let rbac = |kind: &str| o.is(RBAC_GROUP, kind);
    match &o.body {
        Body::Role(view) if rbac("ClusterRole") => {
            let expected = rule_for_parts(api, group, plural, role);
            if view.aggregates() || view.rules.len() != 1 || view.rules[0].to_policy_rule() != expected {
                return Err(format!("its rules are not the {} rule olm-rbac writes for {api}", role.as_str()));
            }
            let allowed = role.aggregates_to().label();
            if labels.iter().any(|(k, v)| k.starts_with(AGGREGATE_PREFIX) && (*k != allowed || v != "true")) {
                return Err(format!("it has aggregation labels olm-rbac does not write on a {} role", role.as_str()));
            }
        }
        Body::Binding(view) if rbac("ClusterRoleBinding") || rbac("RoleBinding") => {
            let role_ref = &view.role_ref;
            let name = role_ref.name.as_deref().unwrap_or_default();
            if role_ref.kind.as_deref().and_then(RoleRefKind::parse) != Some(RoleRefKind::ClusterRole)
                || name.is_empty()
                || reserved::is_reserved_role_name(name)
            {
                return Err("it does not bind a per-API ClusterRole".into());
            }
        }
        _ => return Err("olm-rbac writes only ClusterRoles and bindings".into()),
    }
    Ok(extension.clone())
}

/// The operator's and the installer's objects: the RBAC kinds olm-rbac writes for a ServiceAccount
/// it names. Their rules follow the CSV, which changes between versions, so
/// only their shape is checked; removing one never grants anything, and every
/// removal is reported.
fn check_operator_claim(o: &InputObject) -> Result<(), String> {
    let rbac = |kind: &str| o.is(RBAC_GROUP, kind);
    if !o.header.annotations.contains_key(SERVICE_ACCOUNT_ANNOTATION) {
        return Err(format!("it has no {SERVICE_ACCOUNT_ANNOTATION} annotation"));
    }
    match &o.body {
        Body::Role(view) if rbac("ClusterRole") || rbac("Role") => {
            if view.aggregates() || o.header.labels.keys().any(|k| k.starts_with(AGGREGATE_PREFIX)) {
                return Err("olm-rbac writes the operator's roles without aggregation".into());
            }
        }
        Body::Binding(view) if rbac("ClusterRoleBinding") || rbac("RoleBinding") => {
            let name = view.role_ref.name.as_deref().unwrap_or_default();
            let kind_ok = match view.role_ref.kind.as_deref().and_then(RoleRefKind::parse) {
                Some(RoleRefKind::ClusterRole) => true,
                Some(RoleRefKind::Role) => rbac("RoleBinding"),
                None => false,
            };
            if !kind_ok || name.is_empty() || reserved::is_reserved_role_name(name) {
                return Err("it does not bind a role olm-rbac writes for an operator".into());
            }
        }
        _ => return Err("olm-rbac writes only Roles, ClusterRoles and bindings".into()),
    }
    Ok(())
}
