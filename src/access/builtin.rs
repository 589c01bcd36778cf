//! Kubernetes' bootstrap RBAC policy, as data: the ClusterRoles and
//! ClusterRoleBindings every API server creates at start, for the Kubernetes
//! release this crate's `k8s-openapi` feature names (1.33).
//!
//! The files in `data/kubernetes-v1.33/` are Kubernetes' own test data for its
//! bootstrap policy (`plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata`,
//! provenance in `data/kubernetes-v1.33/SOURCES.md`), kept byte for byte and read
//! once per process, from JSON renderings of their values ([`data`]: straight
//! into the model's views, not through the YAML reader of the user's input).
//!
//! Controller roles (`system:controller:*`, bound to service accounts in
//! `kube-system`) and the namespaced bootstrap roles are not part of it.

use std::sync::OnceLock;

use k8s_openapi::api::rbac::v1::Subject;

use super::Policy;

mod data;
#[cfg(test)]
#[cfg(test)]
pub(crate) use data::files;

/// The Kubernetes release the data comes from.
pub const KUBERNETES_VERSION: &str = "1.33";

/// The annotation by which a role or binding opts out of the API server's
/// reconciliation of the bootstrap policy (`"false"`).
pub(crate) const AUTOUPDATE_ANNOTATION: &str = "rbac.authorization.kubernetes.io/autoupdate";

/// The kinds of the bootstrap policy's objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bootstrap {
    /// A bootstrap ClusterRole (`admin`, `system:discovery`, …).
    ClusterRole,
    /// A bootstrap ClusterRoleBinding (`cluster-admin`, `system:basic-user`, …).
    ClusterRoleBinding,
}

/// Which built-in roles and bindings the access checks add to the input's:
/// Kubernetes 1.33's bootstrap policy (`--builtin-roles=kubernetes-1.33`, the
/// default), or none (`--builtin-roles=none`: the input's alone).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BuiltinRoles {
    /// `kubernetes-1.33`: the input read as a 1.33 cluster holds it, the bootstrap policy reconciled over it.
    #[default]
    Kubernetes1_33,
    /// `none`: the input's roles and bindings alone, as written.
    None,
}

/// Is `name` one of Kubernetes' bootstrap ClusterRoles (`admin`,
/// `system:node`, …)? A bundle that ships a ClusterRole by such a name asks to
/// replace a role of the platform.
pub fn is_builtin_role(name: &str) -> bool {
    policy().is_ok_and(|p| p.cluster_roles.contains_key(name))
}

/// What reconciling an input's object with the bootstrap policy set aside of
/// it, by the object's name: a role or binding of the input is not what the
/// cluster holds, and a reader should be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SetAside {
    /// An aggregating bootstrap role (`admin`, `edit`, `view`, ...): its own
    /// rules give way to what it aggregates.
    RulesOfAggregatingRole(String),
    /// A bootstrap role whose rules the input's do not cover: the API server adds them.
    RulesAdded(String),
    /// A bootstrap role without aggregation: the input's aggregation rule is dropped.
    Aggregation(String),
    /// A bootstrap ClusterRoleBinding whose roleRef the input changed: the bootstrap one replaces it.
    Binding(String),
}

/// Adds the bootstrap policy to an input's, as a cluster holds it once the
/// API server has reconciled its bootstrap policy (which it does at every
/// start): a bootstrap role or binding the input lacks is added; one the
/// input has by the same name is reconciled as the API server reconciles it,
/// unless the input's carries `rbac.authorization.kubernetes.io/autoupdate:
/// "false"`, which the API server leaves as it is. Reconciling a role adds
/// the bootstrap labels it lacks (the input's values win), the bootstrap
/// rules its own rules do not cover, and the bootstrap aggregation selectors
/// it lacks (a bootstrap role without aggregation loses the input's); an
/// aggregating role's rules are then what it aggregates, as the aggregation
/// controller computes them. Reconciling a binding adds the bootstrap subjects
/// it lacks; one whose roleRef differs is replaced by the bootstrap one.
/// Returns what of the input's objects that set aside.
pub(crate) fn reconcile_into(input: &mut Policy) -> Vec<SetAside> {
    let mut set_aside = Vec::new();
    // The embedded data is proven to parse by a test; should it not, the
    // input alone is all there is to go on.
    let Ok(builtins) = policy() else { return set_aside };
    for (name, expected) in &builtins.cluster_roles {
        if input.kept_as_written.contains(&(Bootstrap::ClusterRole, name.clone())) {
            continue;
        }
        let Some(role) = input.cluster_roles.get_mut(name) else {
            input.cluster_roles.insert(name.clone(), expected.clone());
            continue;
        };
        for (key, value) in &expected.labels {
            role.labels.entry(key.clone()).or_insert_with(|| value.clone());
        }
        let missing: Vec<_> =
            expected.rules.iter().flat_map(|rule| super::cover::uncovered_rules(&role.rules, rule)).collect();
        let gains_aggregation = expected.aggregation.iter().any(|s| !role.aggregation.contains(s));
        if !expected.aggregation.is_empty() && (!role.rules.is_empty() || gains_aggregation) {
            set_aside.push(SetAside::RulesOfAggregatingRole(name.clone()));
        } else if !missing.is_empty() {
            set_aside.push(SetAside::RulesAdded(name.clone()));
        }
        if !missing.is_empty() {
            role.rules = role.rules.iter().cloned().chain(missing).collect();
        }
        if expected.aggregation.is_empty() {
            if !role.aggregation.is_empty() {
                set_aside.push(SetAside::Aggregation(name.clone()));
            }
            role.aggregation.clear();
        }
        for selector in &expected.aggregation {
            if !role.aggregation.contains(selector) {
                role.aggregation.push(selector.clone());
            }
        }
        role.builtin = true;
    }
    for expected in &builtins.bindings {
        if input.kept_as_written.contains(&(Bootstrap::ClusterRoleBinding, expected.name.clone())) {
            continue;
        }
        let same_name = |b: &&mut super::BindingDef| b.namespace.is_none() && b.name == expected.name;
        match input.bindings.iter_mut().find(same_name) {
            None => input.bindings.push(expected.clone()),
            Some(b) if (&b.role_kind, &b.role_name) != (&expected.role_kind, &expected.role_name) => {
                set_aside.push(SetAside::Binding(expected.name.clone()));
                *b = expected.clone();
            }
            // The input's binding, with what the API server adds to it: its
            // own subjects stay the input's, for the report to show.
            Some(b) => {
                let same =
                    |x: &Subject, y: &Subject| (&x.kind, &x.name, &x.namespace) == (&y.kind, &y.name, &y.namespace);
                for subject in &expected.subjects {
                    if !b.subjects.iter().any(|s| same(s, subject)) {
                        b.subjects.push(subject.clone());
                    }
                }
            }
        }
    }
    set_aside
}

/// The bootstrap policy: every role and binding marked `builtin`, resources
/// unset. Parsed on first use; an error means the embedded data is broken
/// (a test proves it is not).
pub fn policy() -> Result<&'static Policy, &'static str> {
    static POLICY: OnceLock<Result<Policy, String>> = OnceLock::new();
    POLICY.get_or_init(parse).as_ref().map_err(String::as_str)
}

fn parse() -> Result<Policy, String> {
    let mut policy = data::read()?;
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
    }
}
