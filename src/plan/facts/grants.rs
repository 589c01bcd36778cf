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
