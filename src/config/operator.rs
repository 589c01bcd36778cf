//! `spec.operator`: what olm-rbac does about the operator's own permissions
//! (the CSV's `spec.install.spec.permissions` and `clusterPermissions`), and
//! the install policy they are checked against.

use k8s_openapi::api::rbac::v1::PolicyRule;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{check_selector, Selector, SelectorDoc};
use crate::names::is_dns1123_label;

/// The operator's own permissions, as written.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct OperatorDoc {
    /// `Unmanaged` (default): nothing is generated for the operator. `Cluster`: what OLM does
    /// for an all-namespaces install (`permissions` promoted to ClusterRoles). `Namespaces`: a
    /// Role and RoleBinding per ServiceAccount in each target namespace. `clusterPermissions`
    /// become ClusterRoles and ClusterRoleBindings in both.
    #[serde(default)]
    pub permissions: OperatorPermissions,
    /// The namespace the operator runs in, where its ServiceAccounts live. Required unless
    /// `permissions` is `Unmanaged`; always a target namespace.
    pub install_namespace: Option<String>,
    /// `Namespaces` only: the namespaces the operator serves, besides `installNamespace`.
    pub target_namespaces: Option<Vec<String>>,
    /// `Namespaces` only: also every Namespace object of the input that matches.
    pub target_namespace_selector: Option<SelectorDoc>,
    /// The install ceiling: checked in every mode, `Unmanaged` included.
    pub policy: Option<PolicyDoc>,
}

/// How the operator's permissions are generated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum OperatorPermissions {
    #[default]
    Unmanaged,
    Cluster,
    Namespaces,
}

impl OperatorPermissions {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            OperatorPermissions::Unmanaged => "Unmanaged",
            OperatorPermissions::Cluster => "Cluster",
            OperatorPermissions::Namespaces => "Namespaces",
        }
    }
}

/// What the bundle may grant its operator.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct PolicyDoc {
    /// Everything the bundle grants (its `permissions`, `clusterPermissions`, and the rules of
    /// the Roles and ClusterRoles it ships) must be covered by these rules, as the API server's
    /// escalation check reads coverage. Without `allow` and `allowClusterRole`, everything not
    /// denied is allowed, and dangerous permissions are warned about.
    pub allow: Option<Vec<RuleDoc>>,
    /// A ClusterRole of yours in the input whose rules join `allow`.
    pub allow_cluster_role: Option<String>,
    /// Permissions the bundle must never grant, even where `allow` covers them: a grant that
    /// shares any permission with one of these rules is refused.
    pub deny: Option<Vec<RuleDoc>>,
    /// The Pod Security Standards level (Kubernetes' latest version) every pod the install
    /// creates must meet: `privileged`, `baseline` or `restricted`. Each pod template is
    /// checked as Kubernetes' PodSecurity admission checks a pod; a failed check is refused.
    /// Default: `baseline` when the policy has `allow`, `allowClusterRole` or `deny`.
    pub pod_security: Option<crate::podsecurity::Level>,
}

/// A PolicyRule, as in a Role.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct RuleDoc {
    #[serde(default)]
    pub api_groups: Vec<String>,
    #[serde(default)]
    pub resources: Vec<String>,
    #[serde(default)]
    pub resource_names: Vec<String>,
    #[serde(default, rename = "nonResourceURLs")]
    pub non_resource_urls: Vec<String>,
    #[serde(default)]
    pub verbs: Vec<String>,
    /// Where the entry applies (policy entries only). Left out: anywhere, cluster-wide and in
    /// every namespace. `Cluster`: grants made cluster-wide (a ClusterRoleBinding, or OLM's
    /// promotion of `permissions`); an `allow` entry so scoped still covers the same rule in
    /// one namespace. `Namespaces`: grants in the namespaces listed in `namespaces`, or, without
    /// that list, in the operator's own (`installNamespace` and its targets); a `deny` entry so
    /// scoped also forbids the rule cluster-wide, since a cluster-wide grant reaches those
    /// namespaces too.
    pub scope: Option<ScopeDoc>,
    /// With `scope: Namespaces`: the namespaces the entry applies in.
    pub namespaces: Option<Vec<String>>,
}

// Where a policy entry applies. (Part of RBACConfig's JSON Schema, where a doc
// comment would become a description.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum ScopeDoc {
    Cluster,
    Namespaces,
}

/// Where a policy entry applies, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PolicyScope {
    /// Cluster-wide and in every namespace: the default.
    Anywhere,
    /// Grants made cluster-wide.
    Cluster,
    /// Grants in these namespaces; empty: the operator's own namespaces.
    Namespaces(Vec<String>),
}

/// One entry of `allow` or `deny`: a rule and where it applies.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PolicyEntry {
    pub rule: PolicyRule,
    pub scope: PolicyScope,
}

/// `spec.operator`, checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct OperatorSpec {
    pub permissions: OperatorPermissions,
    pub install_namespace: Option<String>,
    /// Listed targets besides the install namespace: sorted, once each.
    pub target_namespaces: Vec<String>,
    pub target_selector: Option<Selector>,
    pub policy: Option<InstallPolicy>,
}

/// `spec.operator.policy`, checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct InstallPolicy {
    /// `None`: no ceiling, only `deny`.
    pub allow: Option<Vec<PolicyEntry>>,
    pub allow_cluster_role: Option<String>,
    pub deny: Vec<PolicyEntry>,
    /// `podSecurity` as written.
    pub pod_security: Option<crate::podsecurity::Level>,
}

impl Eq for InstallPolicy {}

impl InstallPolicy {
    /// Is there a ceiling (rules or a ClusterRole) to measure grants against?
    pub(crate) fn has_ceiling(&self) -> bool {
        self.allow.is_some() || self.allow_cluster_role.is_some()
    }

    /// Does the policy decide anything (a ceiling, a deny list, a Pod
    /// Security level)? Such a policy refuses what it cannot measure;
    /// `policy: {}` asks only for the warnings.
    pub(crate) fn decides(&self) -> bool {
        self.has_ceiling() || !self.deny.is_empty() || self.pod_security.is_some()
    }

    /// The Pod Security level the install's pods must meet, where the policy
    /// decides anything: `podSecurity`, else `baseline`.
    pub(crate) fn pod_security(&self) -> Option<crate::podsecurity::Level> {
        self.decides().then(|| self.pod_security.unwrap_or(crate::podsecurity::Level::Baseline))
    }
}

/// Checks `spec.operator`, reporting each problem at its field.
pub(super) fn check_operator(doc: Option<OperatorDoc>, err: &mut impl FnMut(&str, String)) -> OperatorSpec {
    let Some(doc) = doc else { return OperatorSpec::default() };
    let mut fail = |f: String, m: String| err(&f, m);
    let managed = doc.permissions != OperatorPermissions::Unmanaged;
    match &doc.install_namespace {
        None if managed => fail(
            "spec.operator.installNamespace".into(),
            format!(
                "is required with permissions: {}: it is where the operator's ServiceAccounts live",
                doc.permissions.as_str()
            ),
        ),
        Some(ns) if !is_dns1123_label(ns) => fail(
            "spec.operator.installNamespace".into(),
            format!("{ns:?} is not a valid namespace name (a DNS-1123 label: lowercase letters, digits and '-', at most 63)"),
        ),
        _ => {}
    }
    let scoped = doc.target_namespaces.is_some() || doc.target_namespace_selector.is_some();
    if scoped && doc.permissions != OperatorPermissions::Namespaces {
        let field = if doc.target_namespaces.is_some() { "targetNamespaces" } else { "targetNamespaceSelector" };
        fail(
            format!("spec.operator.{field}"),
            format!(
                "applies only with permissions: Namespaces (it is {}); Cluster grants in every namespace",
                doc.permissions.as_str()
            ),
        );
    }
    let mut target_namespaces = Vec::new();
    for (i, ns) in doc.target_namespaces.iter().flatten().enumerate() {
        if is_dns1123_label(ns) {
            target_namespaces.push(ns.clone());
        } else {
            fail(
                format!("spec.operator.targetNamespaces[{i}]"),
                format!("{ns:?} is not a valid namespace name (a DNS-1123 label)"),
            );
        }
    }
    target_namespaces.sort();
    target_namespaces.dedup();
    let target_selector = doc
        .target_namespace_selector
        .as_ref()
        .map(|sel| check_selector(sel, "spec.operator.targetNamespaceSelector", &mut fail));
    let policy = doc.policy.map(|p| check_policy(p, &mut fail));
    OperatorSpec {
        permissions: doc.permissions,
        install_namespace: doc.install_namespace,
        target_namespaces,
        target_selector,
        policy,
    }
}

fn check_policy(doc: PolicyDoc, fail: &mut impl FnMut(String, String)) -> InstallPolicy {
    let mut rules = |list: Option<Vec<RuleDoc>>, field: &str| -> Option<Vec<PolicyEntry>> {
        let list = list?;
        Some(list.iter().enumerate().filter_map(|(i, r)| check_entry(r, &format!("{field}[{i}]"), fail)).collect())
    };
    let allow = rules(doc.allow, "spec.operator.policy.allow");
    let deny = rules(doc.deny, "spec.operator.policy.deny").unwrap_or_default();
    if doc.allow_cluster_role.as_deref() == Some("") {
        fail("spec.operator.policy.allowClusterRole".into(), "must not be empty; leave it out".into());
    }
    InstallPolicy { allow, allow_cluster_role: doc.allow_cluster_role, deny, pod_security: doc.pod_security }
}

/// A policy entry: its rule and where it applies.
fn check_entry(r: &RuleDoc, field: &str, fail: &mut impl FnMut(String, String)) -> Option<PolicyEntry> {
    let scope = match (r.scope, &r.namespaces) {
        (None, None) => PolicyScope::Anywhere,
        (Some(ScopeDoc::Cluster), None) => PolicyScope::Cluster,
        (Some(ScopeDoc::Namespaces), list) => {
            let list = list.clone().unwrap_or_default();
            for (i, ns) in list.iter().enumerate() {
                if !is_dns1123_label(ns) {
                    fail(format!("{field}.namespaces[{i}]"), format!("{ns:?} is not a valid namespace name"));
                }
            }
            PolicyScope::Namespaces(list)
        }
        (_, Some(_)) => {
            fail(format!("{field}.namespaces"), "goes with scope: Namespaces".into());
            return None;
        }
    };
    Some(PolicyEntry { rule: check_rule(r, field, fail)?, scope })
}

/// A rule the API server would accept in a ClusterRole: verbs, and either
/// API groups with resources or non-resource URLs.
fn check_rule(r: &RuleDoc, field: &str, fail: &mut impl FnMut(String, String)) -> Option<PolicyRule> {
    let before = (r.verbs.is_empty(), r.resources.is_empty(), r.non_resource_urls.is_empty());
    let problem = match before {
        (true, _, _) => Some(("verbs", "must name at least one verb (or \"*\")")),
        (false, true, true) => Some(("resources", "needs resources (with apiGroups) or nonResourceURLs")),
        (false, false, false) => Some(("nonResourceURLs", "a rule has resources or nonResourceURLs, not both")),
        (false, false, true) if r.api_groups.is_empty() => {
            Some(("apiGroups", "needs apiGroups with resources (\"\" for the core group)"))
        }
        _ => None,
    };
    if let Some((sub, message)) = problem {
        fail(format!("{field}.{sub}"), message.into());
        return None;
    }
    let some = |v: &Vec<String>| (!v.is_empty()).then(|| v.clone());
    Some(PolicyRule {
        api_groups: some(&r.api_groups),
        resources: some(&r.resources),
        resource_names: some(&r.resource_names),
        non_resource_urls: some(&r.non_resource_urls),
        verbs: r.verbs.clone(),
    })
}
