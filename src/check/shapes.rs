//! The shapes `-o json` and `-o yaml` print, each defined once for both
//! encodings (docs/access-checks.md, "Output for scripts"): `who-can`'s
//! holders, `can-i --list`'s permissions; `report`'s is [`super::matrix::AccessMatrix`].
//! Wherever a place is written, `"*"` means cluster-wide, as in `report`.

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};
use serde::Serialize;

use crate::access::allowed::Permission;
use crate::access::{BindingKind, GrantChain, Grantee, HeldAccess, Via};

/// How a command prints what it found, named on the command line as here
/// (`-o table`): `Table`, columns for a terminal; `Markdown`, a Markdown
/// table for a pull-request comment with a Mermaid graph (`report` only);
/// `Json`; `Yaml`; `Dot`, Graphviz's language (`report` only); `Sarif`, a
/// SARIF 2.1.0 log for code scanning (`diff` only).
// No doc comments on the variants: clap would show them as help of their own (hence `missing_docs` allowed).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    #[default]
    Table,
    Markdown,
    Json,
    Yaml,
    Dot,
    Sarif,
}

/// `value` as YAML for [`Format::Yaml`], else as JSON (pretty, with a final
/// line break).
pub(crate) fn encode<T: Serialize>(value: &T, format: Format) -> Result<String, String> {
    match format {
        Format::Yaml => crate::yaml::to_yaml(value),
        _ => serde_json::to_string_pretty(value).map(|s| s + "\n").map_err(|e| e.to_string()),
    }
}

/// The place of a grant: `"*"` for cluster-wide, else the namespace.
fn where_text(namespace: &Option<String>) -> String {
    namespace.clone().unwrap_or_else(|| "*".into())
}

/// `who-can -o json|yaml`: the question and every holder.
#[derive(Debug, Serialize)]
pub(crate) struct WhoCanOut {
    pub verb: String,
    /// `plural.group[/subresource]` (core resources without a group); absent for a URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    #[serde(rename = "nonResourceURL", skip_serializing_if = "Option::is_none")]
    pub non_resource_url: Option<String>,
    /// Where the question was asked: `"*"` cluster-wide (no `-n`), a
    /// namespace (`-n`), or `"each"` (`-A`).
    #[serde(rename = "where")]
    pub scope: String,
    pub holders: Vec<HeldAccessOut>,
    /// Who may make the request by acting as a ServiceAccount among the
    /// holders: running a pod as it, exec or attach into its pods, or
    /// requesting its tokens in its namespace.
    #[serde(rename = "throughServiceAccounts", skip_serializing_if = "Vec::is_empty")]
    pub through: Vec<ThroughOut>,
    /// Who may have a deputy (OLM, a GitOps controller, a policy engine) act
    /// for them, with rights the input does not show.
    #[serde(rename = "throughDeputies", skip_serializing_if = "Vec::is_empty")]
    pub deputies: Vec<DeputyOut>,
}

/// One subject that may have a deputy act for it.
#[derive(Debug, Serialize)]
pub(crate) struct DeputyOut {
    /// As `holders` names a holder.
    pub holder: String,
    /// What it may write: `create clusterextensions.olm.operatorframework.io`.
    pub writes: String,
    /// The controllers that act on it.
    pub deputy: String,
    /// The danger catalogue's name for the power: `install operators`.
    pub danger: String,
    /// Where it may write it: `"*"` cluster-wide, or the namespace.
    #[serde(rename = "where")]
    pub scope: String,
    /// The chain that grants it the write.
    pub grant: GrantChainOut,
}

impl DeputyOut {
    pub(crate) fn of(d: &crate::access::ByDeputy) -> DeputyOut {
        DeputyOut {
            holder: d.held.grantee.to_string(),
            writes: d.writes.clone(),
            deputy: d.deputy.to_string(),
            danger: d.what.to_string(),
            scope: where_text(&d.held.namespace),
            grant: GrantChainOut::of(&d.held.chain),
        }
    }
}

/// One path to the request through a ServiceAccount.
#[derive(Debug, Serialize)]
pub(crate) struct ThroughOut {
    /// `Group team-a → create pods in ops → ServiceAccount ops/x`.
    pub path: String,
    /// Who may act as the account, as `holders` names a holder.
    pub holder: String,
    /// How: `create pods`, `create or change workloads`, `exec into pods`,
    /// `attach to pods`, `request its tokens`.
    pub ways: Vec<String>,
    /// `<namespace>/<name>`.
    #[serde(rename = "serviceAccount")]
    pub service_account: String,
    /// Where the account holds the request: `"*"` cluster-wide, or the namespace.
    #[serde(rename = "where")]
    pub scope: String,
    /// The chain that grants the account the request.
    pub grant: GrantChainOut,
}

impl ThroughOut {
    pub(crate) fn of(t: &crate::access::Through) -> ThroughOut {
        ThroughOut {
            path: t.path(),
            holder: t.becomer.grantee.to_string(),
            ways: t.becomer.ways.iter().map(|w| w.to_string()).collect(),
            service_account: format!("{}/{}", t.account.0, t.account.1),
            scope: where_text(&t.held.namespace),
            grant: GrantChainOut::of(&t.held.chain),
        }
    }
}

/// One holder: a binding's subject, or whoever is bound to a built-in role.
#[derive(Debug, Serialize)]
pub(crate) struct HeldAccessOut {
    /// As the binding names it (without `apiGroup`; a ServiceAccount with its namespace).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<Subject>,
    /// Instead of `subject`: whoever is bound to this built-in ClusterRole.
    #[serde(rename = "anyoneBoundTo", skip_serializing_if = "Option::is_none")]
    pub anyone_bound_to: Option<AnyoneBoundTo>,
    /// `"*"` cluster-wide or the namespace; absent for `anyoneBoundTo` when
    /// it is wherever they are bound.
    #[serde(rename = "where", skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    pub grant: GrantChainOut,
}

#[derive(Debug, Serialize)]
pub(crate) struct AnyoneBoundTo {
    #[serde(rename = "clusterRole")]
    pub cluster_role: String,
    /// Only a ClusterRoleBinding to it grants this (a cluster-scoped resource, a URL).
    #[serde(rename = "clusterRoleBindingOnly")]
    pub cluster_role_binding_only: bool,
}

/// The chain that grants it: binding, roles, rule.
#[derive(Debug, Serialize)]
pub(crate) struct GrantChainOut {
    /// Absent for `anyoneBoundTo` and the privileged group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding: Option<BindingOut>,
    /// `true` for `system:masters`, which the API server allows every
    /// request whatever RBAC holds (no binding, no roles); absent otherwise.
    #[serde(rename = "privilegedGroup", skip_serializing_if = "std::ops::Not::not")]
    pub privileged_group: bool,
    /// From the bound role to the one that holds the rule, each aggregated
    /// into the one before it.
    pub roles: Vec<ChainRoleOut>,
    pub rule: PolicyRule,
}

/// A binding, and whether it is Kubernetes' built-in one.
#[derive(Debug, Serialize)]
pub(crate) struct BindingOut {
    /// `RoleBinding` or `ClusterRoleBinding`.
    pub kind: &'static str,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(rename = "builtIn")]
    pub builtin: bool,
}

/// A role by name, and whether it is Kubernetes' built-in one.
#[derive(Debug, Serialize)]
pub(crate) struct ChainRoleOut {
    pub name: String,
    #[serde(rename = "builtIn")]
    pub builtin: bool,
}

impl GrantChainOut {
    fn of(grant: &GrantChain) -> GrantChainOut {
        let binding = match &grant.via {
            Via::AnyBindingTo(_) | Via::PrivilegedGroup => None,
            Via::Binding { namespace, name, builtin } => Some(BindingOut {
                kind: BindingKind::in_namespace(namespace.as_deref()).as_str(),
                name: name.clone(),
                namespace: namespace.clone(),
                builtin: *builtin,
            }),
        };
        let roles = grant.roles.iter().map(|r| ChainRoleOut { name: r.name.clone(), builtin: r.builtin }).collect();
        let privileged_group = grant.via == Via::PrivilegedGroup;
        GrantChainOut { binding, privileged_group, roles, rule: grant.rule.clone() }
    }
}

impl HeldAccessOut {
    pub(crate) fn of(access: &HeldAccess) -> HeldAccessOut {
        let grant = GrantChainOut::of(&access.chain);
        match &access.grantee {
            Grantee::Subject(s) => HeldAccessOut {
                subject: Some(s.clone()),
                anyone_bound_to: None,
                scope: Some(where_text(&access.namespace)),
                grant,
            },
            Grantee::AnyoneBoundTo { role, cluster_binding_only } => HeldAccessOut {
                subject: None,
                anyone_bound_to: Some(AnyoneBoundTo {
                    cluster_role: role.name().to_string(),
                    cluster_role_binding_only: *cluster_binding_only,
                }),
                scope: (*cluster_binding_only || access.namespace.is_some()).then(|| where_text(&access.namespace)),
                grant,
            },
        }
    }
}

/// `can-i --list -o json|yaml`: one entry per line of the table, a rule as
/// Kubernetes writes one, with where it holds.
#[derive(Debug, Serialize)]
pub(crate) struct PermissionOut {
    /// `"*"`: cluster-wide; a namespace: there (with `-n`, what holds there,
    /// cluster-wide grants included).
    #[serde(rename = "where")]
    pub scope: String,
    #[serde(flatten)]
    pub rule: PolicyRule,
}

impl PermissionOut {
    pub(crate) fn of(p: &Permission) -> PermissionOut {
        let rule = p.rule();
        PermissionOut { scope: where_text(&p.namespace), rule }
    }
}
