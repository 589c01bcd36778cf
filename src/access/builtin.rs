//! Kubernetes' bootstrap RBAC policy, as data: the ClusterRoles and
//! ClusterRoleBindings every API server creates at start, for the Kubernetes
//! release this crate's `k8s-openapi` feature names (1.33).
//!
//! The files in `data/kubernetes-v1.33/` are Kubernetes' own test data for its
//! bootstrap policy (`plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata`,
//! provenance in `data/kubernetes-v1.33/SOURCES.md`), kept byte for byte and read
//! with the crate's own YAML splitter, once per process.
//!
//! Controller roles (`system:controller:*`, bound to service accounts in
//! `kube-system`) and the namespaced bootstrap roles are not part of it.

use std::sync::OnceLock;

use super::Policy;
use crate::yaml;

/// The Kubernetes release the data comes from.
pub const KUBERNETES_VERSION: &str = "1.33";

/// The bootstrap ClusterRoles, as `kubectl get clusterroles -o yaml` would list them.
pub(crate) const CLUSTER_ROLES: &str = include_str!("../../data/kubernetes-v1.33/cluster-roles.yaml");
/// The bootstrap ClusterRoleBindings.
pub(crate) const CLUSTER_ROLE_BINDINGS: &str = include_str!("../../data/kubernetes-v1.33/cluster-role-bindings.yaml");

/// The built-in roles a cluster keeps as it defines them, whatever an input
/// says: the API server reconciles these bootstrap roles at every start
/// (`rbac.authorization.kubernetes.io/autoupdate: "true"`), restoring
/// `cluster-admin`'s rules and the aggregation rules of `admin`, `edit` and
/// `view`, whose own rules the aggregation controller then replaces. An input
/// copy of one of these would be reconciled away, so the checks model the real one.
const RECONCILED: &[&str] = &["admin", "cluster-admin", "edit", "view"];

/// Is `name` one of Kubernetes' bootstrap ClusterRoles (`admin`,
/// `system:node`, …)? A bundle that ships a ClusterRole by such a name asks to
/// replace a role of the platform.
pub fn is_builtin_role(name: &str) -> bool {
    policy().is_ok_and(|p| p.cluster_roles.contains_key(name))
}

/// Is `name` a built-in role that the cluster restores whatever an input
/// defines (`admin`, `edit`, `view`, `cluster-admin`)? For these, the checks
/// use the built-in definition instead of the input's.
pub fn is_reconciled(name: &str) -> bool {
    RECONCILED.contains(&name)
}

/// The bootstrap policy: every role and binding marked `builtin`, resources
/// unset. Parsed on first use; an error means the embedded data is broken
/// (a test proves it is not).
pub fn policy() -> Result<&'static Policy, &'static str> {
    static POLICY: OnceLock<Result<Policy, String>> = OnceLock::new();
    POLICY.get_or_init(parse).as_ref().map_err(String::as_str)
}

fn parse() -> Result<Policy, String> {
    let mut policy = Policy::default();
    let mut errors = Vec::new();
    for (name, text) in [("cluster-roles.yaml", CLUSTER_ROLES), ("cluster-role-bindings.yaml", CLUSTER_ROLE_BINDINGS)] {
        let file = format!("data/kubernetes-v{KUBERNETES_VERSION}/{name}");
        let list = yaml::split_list(text).map_err(|e| format!("{file}: {e}"))?;
        let list = list.ok_or_else(|| format!("{file}: not a list"))?;
        for item in &list.items {
            super::load::add(&mut policy, item, &file, &mut errors);
        }
    }
    if !errors.is_empty() {
        return Err(errors.join("; "));
    }
    for role in policy.cluster_roles.values_mut() {
        role.builtin = true;
    }
    for binding in &mut policy.bindings {
        binding.builtin = true;
    }
    Ok(policy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_policy_parses_with_every_role_and_binding() {
        let p = policy().expect("the embedded bootstrap policy parses");
        assert_eq!(p.cluster_roles.len(), 31);
        assert_eq!(p.bindings.len(), 12);
        assert!(p.cluster_roles.values().all(|r| r.builtin) && p.bindings.iter().all(|b| b.builtin));
        assert!(p.roles.is_empty() && p.apis.is_empty());
        let admin = &p.cluster_roles["admin"];
        assert!(admin.rules.is_empty() && admin.aggregation.len() == 1, "admin is aggregated: {admin:?}");
    }

    #[test]
    fn built_in_names() {
        assert!(is_builtin_role("admin") && is_builtin_role("system:node") && is_builtin_role("system:basic-user"));
        assert!(!is_builtin_role("guestbook-admin") && !is_builtin_role("system:controller:job-controller"));
        assert!(is_reconciled("edit") && !is_reconciled("system:node"));
    }
}
