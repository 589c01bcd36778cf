//! What a ClusterServiceVersion grants its operator: every rule of its
//! `permissions` and `clusterPermissions`, each with the ServiceAccount it is
//! for, where OLM grants it, and where in the CSV it is. Read once per
//! planning (`input::OperatorInput`) for the gate, the operator's RBAC and
//! the installer alike.

use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::findings::{Code, Finding};
use crate::model::*;
use crate::names::is_dns1123_subdomain;

/// One rule the CSV grants one of the operator's ServiceAccounts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CsvGrant {
    /// The ServiceAccount's name (`default` where the CSV names none), in the
    /// install namespace.
    pub account: String,
    /// Where OLM grants it.
    pub scope: GrantScope,
    pub rule: PolicyRule,
    /// Where in the CSV the rule is, e.g. `spec.install.spec.permissions[0].rules[2]`.
    pub field: String,
}

/// Where OLM grants a rule of the CSV, by the list it is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GrantScope {
    /// `permissions`: where the operator is bound, in its install and target
    /// namespaces, unless they are promoted cluster-wide (see [`promoted`]).
    WhereBound,
    /// `clusterPermissions`: cluster-wide.
    Cluster,
}

/// Every rule the CSV grants, in its order: `permissions` first, then
/// `clusterPermissions`. A ServiceAccount name that cannot exist is an error.
pub(crate) fn csv_grants(csv: &InputObject, view: &CsvView, results: &mut Vec<Finding>) -> Vec<CsvGrant> {
    let spec = &view.spec.install.spec;
    let mut out = Vec::new();
    for (key, scope, entries) in [
        ("permissions", GrantScope::WhereBound, &spec.permissions),
        ("clusterPermissions", GrantScope::Cluster, &spec.cluster_permissions),
    ] {
        for (i, entry) in entries.iter().enumerate() {
            let field = format!("spec.install.spec.{key}[{i}]");
            let account = match entry.account() {
                name if is_dns1123_subdomain(name) => name.to_string(),
                name => {
                    results.push(
                        Finding::error(Code::CsvInvalid, format!("{name:?} is not a valid ServiceAccount name"))
                            .on(&csv.object_ref())
                            .at(format!("{field}.serviceAccountName"))
                            .in_file(csv.file.as_ref()),
                    );
                    continue;
                }
            };
            out.extend(entry.rules.iter().enumerate().map(|(j, r)| CsvGrant {
                account: account.clone(),
                scope,
                rule: r.to_policy_rule(),
                field: format!("{field}.rules[{j}]"),
            }));
        }
    }
    out
}

/// One rule OLM grants one of the operator's accounts once it installs the
/// bundle: the one model of OLM's grant, which the operator's writer writes,
/// the install gate judges and the installer needs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OlmGrant {
    /// The ServiceAccount's name, in the install namespace.
    pub account: String,
    pub rule: PolicyRule,
    /// The list of the CSV it comes from (`permissions`, `clusterPermissions`).
    pub scope: GrantScope,
    /// Granted cluster-wide: a `clusterPermissions` rule, or a `permissions`
    /// one OLM promotes; otherwise where the operator is bound.
    pub cluster_wide: bool,
    /// The field of the CSV that asks for it.
    pub field: String,
    /// Not in the CSV: the rule OLM adds to the `permissions` it promotes.
    pub added: bool,
}

/// The CSV's grants as OLM grants them: `clusterPermissions` cluster-wide;
/// `permissions` where the operator is bound, or, `promoted`, cluster-wide,
/// with the read access to `namespaces` OLM adds, once per account, after
/// every rule the CSV writes.
pub(crate) fn olm_grants(grants: &[CsvGrant], promoted: bool) -> Vec<OlmGrant> {
    let mut out: Vec<OlmGrant> = grants
        .iter()
        .map(|g| OlmGrant {
            account: g.account.clone(),
            rule: g.rule.clone(),
            scope: g.scope,
            cluster_wide: g.scope == GrantScope::Cluster || promoted,
            field: g.field.clone(),
            added: false,
        })
        .collect();
    if promoted {
        let accounts: std::collections::BTreeSet<&str> =
            grants.iter().filter(|g| g.scope == GrantScope::WhereBound).map(|g| g.account.as_str()).collect();
        out.extend(accounts.into_iter().map(|account| OlmGrant {
            account: account.to_string(),
            rule: read_namespaces(),
            scope: GrantScope::WhereBound,
            cluster_wide: true,
            field: "spec.install.spec.permissions".into(),
            added: true,
        }));
    }
    out
}

/// What OLM adds to `permissions` it promotes cluster-wide: an all-namespaces
/// operator lists the namespaces it serves.
pub(crate) fn read_namespaces() -> PolicyRule {
    PolicyRule {
        api_groups: Some(vec![String::new()]),
        resources: Some(vec!["namespaces".into()]),
        verbs: READ.iter().map(|v| v.to_string()).collect(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(account: &str, scope: GrantScope, resource: &str) -> CsvGrant {
        let rule = PolicyRule {
            api_groups: Some(vec![String::new()]),
            resources: Some(vec![resource.into()]),
            verbs: vec!["get".into()],
            ..Default::default()
        };
        CsvGrant { account: account.into(), scope, rule, field: format!("f.{resource}") }
    }

    /// OLM's grant, the one model: `clusterPermissions` cluster-wide always;
    /// `permissions` cluster-wide only promoted, and then with one
    /// `namespaces` rule per account that has them, after the CSV's own.
    #[test]
    fn olm_promotes_permissions_with_the_namespaces_rule_once_per_account() {
        let grants = [
            grant("a", GrantScope::WhereBound, "pods"),
            grant("a", GrantScope::WhereBound, "secrets"),
            grant("b", GrantScope::Cluster, "nodes"),
            grant("c", GrantScope::WhereBound, "configmaps"),
        ];
        let bound = olm_grants(&grants, false);
        assert_eq!(bound.iter().map(|g| g.cluster_wide).collect::<Vec<_>>(), [false, false, true, false]);
        assert!(bound.iter().all(|g| !g.added));
        let promoted = olm_grants(&grants, true);
        assert!(promoted.iter().all(|g| g.cluster_wide));
        let added: Vec<(&str, &str)> =
            promoted.iter().filter(|g| g.added).map(|g| (g.account.as_str(), g.field.as_str())).collect();
        assert_eq!(added, [("a", "spec.install.spec.permissions"), ("c", "spec.install.spec.permissions")]);
        assert!(promoted[..4].iter().zip(&grants).all(|(o, g)| o.rule == g.rule && o.field == g.field));
        assert!(promoted[4..].iter().all(|g| g.rule == read_namespaces()));
    }
}
