//! `spec.bindings` (Bind mode): who gets which role, and where, as written
//! and as checked; and the label selectors bindings and `spec.operator` share.

use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;

use super::{Mode, Operator, RoleKind};
use crate::model::{selector_matches, SubjectKind};
use crate::names::{is_dns1123_label, is_dns1123_subdomain};

/// One entry of `spec.bindings`, as written.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct BindingDoc {
    /// The per-API role to grant; `edit` also grants `view`.
    pub role: BindRole,
    /// Users, groups and service accounts.
    pub subjects: Vec<SubjectDoc>,
    /// A RoleBinding in each of these namespaces.
    pub namespaces: Option<Vec<String>>,
    /// A RoleBinding in each Namespace object of the input that matches. Without `namespaces`
    /// and `namespaceSelector`, a ClusterRoleBinding.
    pub namespace_selector: Option<SelectorDoc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum BindRole {
    #[serde(rename = "admin")]
    Admin,
    #[serde(rename = "edit")]
    Edit,
    #[serde(rename = "view")]
    View,
}

impl From<BindRole> for RoleKind {
    fn from(r: BindRole) -> Self {
        match r {
            BindRole::Admin => RoleKind::Admin,
            BindRole::Edit => RoleKind::Edit,
            BindRole::View => RoleKind::View,
        }
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct SubjectDoc {
    pub kind: SubjectKind,
    pub name: String,
    pub namespace: Option<String>,
    pub api_group: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct SelectorDoc {
    #[serde(default)]
    pub match_labels: BTreeMap<String, String>,
    #[serde(default)]
    pub match_expressions: Vec<RequirementDoc>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RequirementDoc {
    pub key: String,
    pub operator: Operator,
    #[serde(default)]
    pub values: Vec<String>,
}

/// A subject, checked: `User` and `Group` carry the RBAC API group, a
/// `ServiceAccount` a namespace.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Subject {
    pub kind: SubjectKind,
    pub namespace: Option<String>,
    pub name: String,
}

impl Subject {
    /// The ServiceAccount it names, for a ServiceAccount subject.
    pub(crate) fn account(&self) -> Option<crate::model::ServiceAccountRef> {
        let ns = self.namespace.as_deref().filter(|_| self.kind == SubjectKind::ServiceAccount)?;
        Some(crate::model::ServiceAccountRef::new(ns, self.name.as_str()))
    }
}

/// As messages say it: `Group monitoring-admins`, `ServiceAccount ci/deployer`.
impl std::fmt::Display for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.account() {
            Some(account) => write!(f, "{account}"),
            None => write!(f, "{} {}", self.kind.as_str(), self.name),
        }
    }
}

/// Where a binding applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scope {
    Cluster,
    /// Listed namespaces and those the selector matches among the input's
    /// Namespace objects.
    Namespaces {
        names: Vec<String>,
        selector: Option<Selector>,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Selector {
    pub match_labels: BTreeMap<String, String>,
    pub match_expressions: Vec<(String, Operator, Vec<String>)>,
}

impl Selector {
    /// Label-selector semantics ([`selector_matches`]): every label and every
    /// expression must hold.
    pub(crate) fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let requirements =
            self.match_expressions.iter().map(|(key, op, values)| (key.as_str(), Some(*op), &values[..]));
        selector_matches(&self.match_labels, requirements, labels)
    }
}

/// One validated entry of `spec.bindings`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding {
    pub role: RoleKind,
    /// Sorted, without duplicates.
    pub subjects: Vec<Subject>,
    pub scope: Scope,
}

/// `spec.bindings`: only in Bind mode, each entry checked; the usable ones.
pub(super) fn check_bindings(
    bindings: Option<&[BindingDoc]>,
    mode: Mode,
    roles: &[RoleKind],
    err: &mut impl FnMut(&str, String),
) -> Vec<Binding> {
    match (bindings, mode) {
        (Some(_), Mode::Aggregate | Mode::Unmanaged) => {
            err(
                "spec.bindings",
                format!("bindings are only used in Bind mode, and this config's mode is {}: remove them, or set spec.mode: Bind", mode.as_str()),
            );
            Vec::new()
        }
        (Some(list), Mode::Bind) => list
            .iter()
            .enumerate()
            .filter_map(|(i, b)| check_binding(b, &format!("spec.bindings[{i}]"), roles, err))
            .collect(),
        (None, _) => Vec::new(),
    }
}

/// Checks one binding entry; `None` (with errors reported) when it is unusable.
fn check_binding(
    b: &BindingDoc,
    field: &str,
    roles: &[RoleKind],
    err: &mut impl FnMut(&str, String),
) -> Option<Binding> {
    let mut failures = 0usize;
    let mut fail = |f: String, m: String| {
        failures += 1;
        err(&f, m);
    };
    let role = RoleKind::from(b.role);
    for needed in std::iter::once(role).chain((role == RoleKind::Edit).then_some(RoleKind::View)) {
        if !roles.contains(&needed) {
            fail(
                format!("{field}.role"),
                format!(
                    "binding {} needs the {} role, which spec.roles leaves out{}",
                    role.as_str(),
                    needed.as_str(),
                    if needed == role {
                        ""
                    } else {
                        " (editors are also bound to view so that they can read what they write)"
                    }
                ),
            );
        }
    }
    if b.subjects.is_empty() {
        fail(format!("{field}.subjects"), "must name at least one subject".into());
    }
    let mut subjects: Vec<Subject> = Vec::new();
    for (j, s) in b.subjects.iter().enumerate() {
        subjects.extend(check_subject(s, &format!("{field}.subjects[{j}]"), &mut fail));
    }
    subjects.sort();
    subjects.dedup();
    let mut names = Vec::new();
    if let Some(list) = &b.namespaces {
        if list.is_empty() {
            fail(format!("{field}.namespaces"), "is empty; leave it out for a cluster-wide binding".into());
        }
        for (j, ns) in list.iter().enumerate() {
            if is_dns1123_label(ns) {
                names.push(ns.clone());
            } else {
                fail(format!("{field}.namespaces[{j}]"), format!("{ns:?} is not a valid namespace name (a DNS-1123 label: lowercase letters, digits and '-', at most 63)"));
            }
        }
    }
    names.sort();
    names.dedup();
    let selector =
        b.namespace_selector.as_ref().map(|sel| check_selector(sel, &format!("{field}.namespaceSelector"), &mut fail));
    if failures > 0 {
        return None;
    }
    let scope = if b.namespaces.is_none() && selector.is_none() {
        Scope::Cluster
    } else {
        Scope::Namespaces { names, selector }
    };
    Some(Binding { role, subjects, scope })
}

/// Checks one subject at `sf`; `None` when it has no name.
pub(super) fn check_subject(s: &SubjectDoc, sf: &str, fail: &mut impl FnMut(String, String)) -> Option<Subject> {
    if s.name.is_empty() {
        fail(format!("{sf}.name"), "must not be empty".into());
        return None;
    }
    let expected_group = match s.kind {
        SubjectKind::User | SubjectKind::Group => "rbac.authorization.k8s.io",
        SubjectKind::ServiceAccount => "",
    };
    if let Some(g) = &s.api_group {
        if g != expected_group {
            fail(
                format!("{sf}.apiGroup"),
                format!(
                    "a {} subject has apiGroup {expected_group:?}, not {g:?} (it may be left out)",
                    s.kind.as_str()
                ),
            );
        }
    }
    match (s.kind, &s.namespace) {
        (SubjectKind::ServiceAccount, None) => {
            fail(format!("{sf}.namespace"), format!("ServiceAccount {:?} needs the namespace it lives in", s.name));
        }
        (SubjectKind::ServiceAccount, Some(ns)) if !is_dns1123_label(ns) => {
            fail(format!("{sf}.namespace"), format!("{ns:?} is not a valid namespace name (a DNS-1123 label)"));
        }
        (SubjectKind::ServiceAccount, Some(_)) if !is_dns1123_subdomain(&s.name) => {
            fail(format!("{sf}.name"), format!("{:?} is not a valid ServiceAccount name", s.name));
        }
        (SubjectKind::User | SubjectKind::Group, Some(_)) => {
            fail(format!("{sf}.namespace"), format!("a {} is not namespaced; remove the namespace", s.kind.as_str()));
        }
        _ => {}
    }
    let anonymous = matches!(
        (s.kind, s.name.as_str()),
        (SubjectKind::Group, "system:unauthenticated") | (SubjectKind::User, "system:anonymous")
    );
    if anonymous {
        fail(
            format!("{sf}.name"),
            format!(
                "binding {} {:?} would grant access to unauthenticated requests; olm-rbac refuses to",
                s.kind.as_str(),
                s.name
            ),
        );
    }
    Some(Subject { kind: s.kind, namespace: s.namespace.clone(), name: s.name.clone() })
}

/// Checks a `namespaceSelector`: `In` and `NotIn` need values, `Exists` and
/// `DoesNotExist` take none.
pub(super) fn check_selector(sel: &SelectorDoc, field: &str, fail: &mut impl FnMut(String, String)) -> Selector {
    let mut match_expressions = Vec::new();
    for (j, r) in sel.match_expressions.iter().enumerate() {
        let rf = format!("{field}.matchExpressions[{j}]");
        match (r.operator, r.values.is_empty()) {
            (Operator::In | Operator::NotIn, true) => {
                fail(format!("{rf}.values"), format!("operator {:?} needs at least one value", r.operator))
            }
            (Operator::Exists | Operator::DoesNotExist, false) => {
                fail(format!("{rf}.values"), format!("operator {:?} takes no values", r.operator))
            }
            _ => {}
        }
        match_expressions.push((r.key.clone(), r.operator, r.values.clone()));
    }
    Selector { match_labels: sel.match_labels.clone(), match_expressions }
}
