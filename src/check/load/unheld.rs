//! What an access check's input leaves out of the cluster it answers for:
//! a role a binding names that the input does not hold, and the permissions
//! a ClusterServiceVersion of the input has OLM grant at install. Each is a
//! warning placed on the object that names it.

use crate::access::builtin;
use crate::access::{Policy, RoleRefKind};
use crate::findings::{Code, Finding};

/// A binding of the input whose role is neither in the input nor one of
/// Kubernetes' own: the answers grant nothing through it,
/// where the cluster may hold the role (a bundle's role, which OLM installs
/// and render leaves out under `bundleObjects: Drop`). One warning each,
/// placed on the binding.
pub(super) fn roles(policy: &Policy, bindings: Vec<(BindingKey, Finding)>) -> Vec<Finding> {
    let mut warnings = Vec::new();
    for (key, placed) in bindings {
        let found = policy.bindings.iter().find(|b| !b.builtin && (&b.namespace, &b.name) == (&key.0, &key.1));
        let Some(b) = found.filter(|b| !policy.binds_a_role(b)) else { continue };
        let Some(kind) = b.role_ref_kind() else { continue };
        // Kubernetes' own, which --builtin-roles none leaves out by choice.
        if kind == RoleRefKind::ClusterRole && builtin::is_builtin_role(&b.role_name) {
            continue;
        }
        let role = match (kind, &b.namespace) {
            (RoleRefKind::Role, Some(ns)) => format!("Role {ns}/{}", b.role_name),
            (kind, _) => format!("{} {}", kind.as_str(), b.role_name),
        };
        warnings.push(Finding {
            severity: crate::findings::Severity::Warning,
            code: Code::RoleUnheld,
            message: format!(
                "binds {role}, which is neither in the input nor one of Kubernetes' built-in roles: the answers grant nothing through it, and the cluster's may differ (OLM installs a bundle's roles, which render leaves out under bundleObjects: Drop); to answer over what the cluster will hold, pass the bundle with its RBACConfig: -c CONFIG -f BUNDLE"
            ),
            ..placed
        });
    }
    warnings
}

/// A ServiceAccount a ClusterServiceVersion of the input grants permissions
/// to, which no binding of the input names (in any namespace: where OLM
/// installs the bundle is not in a render's output): OLM v1 grants them at
/// install, so the cluster will answer yes where the input answers no, and
/// `who-can` would leave out the operator, the most privileged account.
pub(super) fn grants(policy: &Policy, accounts: Vec<(String, Finding)>) -> Vec<Finding> {
    let bound = |account: &str| {
        policy.bindings.iter().filter(|b| !b.builtin).flat_map(|b| &b.subjects).any(|s| {
            crate::model::SubjectKind::of(s) == Some(crate::model::SubjectKind::ServiceAccount) && s.name == account
        })
    };
    accounts
        .into_iter()
        .filter(|(account, _)| !bound(account))
        .map(|(account, placed)| Finding {
            message: format!(
                "grants ServiceAccount {account} its permissions when OLM installs the bundle, and no binding in the input names that account: the answers grant it nothing, and who-can leaves it out, where the cluster will not; to answer over what the cluster will hold, pass the bundle with its RBACConfig: -c CONFIG -f BUNDLE"
            ),
            ..placed
        })
        .collect()
}

/// A binding by its namespace (`None` for a ClusterRoleBinding) and name.
pub(super) type BindingKey = (Option<String>, String);
