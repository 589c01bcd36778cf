//! What the install grants beyond RBAC rules, in the judgement's model of
//! the cluster: the operator's admission webhooks (what they are sent), its
//! pods' reach into their nodes, and the traffic its Services take, each as
//! the roles and bindings that would hold the same access. Never written:
//! `judge::Judged::rbac` hands them with OLM's grants to `diff -c` and the
//! catalog's gains, which measure them as any grant, so an upgrade that adds
//! a webhook or a privileged pod is a gain.

use std::collections::BTreeMap;

use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::model::*;
use crate::plan::operator::accounts::{Account, AccountRole};
use crate::plan::operator::permissions::UNNAMED_INSTALL_NAMESPACE;
use crate::plan::types::{About, Made, Object};

use super::holdings::{Holder, Holding, Reach};
use super::Namespace;

/// What a pod that fails baseline (privileged, the node's namespaces, a
/// hostPath) amounts to: the node, and with it every pod on it, as the
/// kubelet's API gives it (`nodes/proxy`, which the danger catalogue marks).
pub(super) fn node_access() -> PolicyRule {
    rule("", "nodes/proxy", &["get", "create"])
}

/// What a Service with `externalIPs` amounts to: taking traffic for any
/// address, as writing a Service's status (a LoadBalancer's ingress IP)
/// does (CVE-2020-8554, which the danger catalogue marks).
pub(super) fn traffic_interception() -> PolicyRule {
    rule("", "services/status", &["update", "patch"])
}

fn rule(group: &str, resource: &str, verbs: &[&str]) -> PolicyRule {
    PolicyRule {
        api_groups: Some(vec![group.to_string()]),
        resources: Some(vec![resource.to_string()]),
        verbs: verbs.iter().map(|v| v.to_string()).collect(),
        ..Default::default()
    }
}

/// Holdings of the operator's accounts as the roles and bindings that would
/// grant the same access: a ClusterRole and its binding for what reaches
/// cluster-wide, a Role and its binding in each namespace the rest reaches,
/// one pair per account named `<extension>-beyond-rbac-<account>`. A
/// namespace known only as "where it is applied" has no name to hold a role
/// in, and is left out.
pub(super) fn as_grants<'h>(extension: &str, holdings: impl IntoIterator<Item = &'h Holding<'h>>) -> Vec<Made> {
    type Rules = Vec<k8s_openapi::api::rbac::v1::PolicyRule>;
    let mut by_account: BTreeMap<(String, String), (Rules, BTreeMap<String, Rules>)> = BTreeMap::new();
    let mut endpoints: BTreeMap<&str, Rules> = BTreeMap::new();
    for h in holdings {
        if let Holder::Endpoint(server) = &h.who {
            endpoints.entry(server.as_str()).or_default().push(h.rule.clone());
            continue;
        }
        let Holder::Operator { name, namespace } = &h.who else { continue };
        let install = namespace.clone().unwrap_or_else(|| UNNAMED_INSTALL_NAMESPACE.to_string());
        let (cluster, namespaced) = by_account.entry((install.clone(), name.clone())).or_default();
        match &h.reach {
            Reach::Cluster => cluster.push(h.rule.clone()),
            Reach::Namespaces(list) => {
                for ns in list {
                    let ns = match ns {
                        Namespace::Named(n) => n.clone(),
                        Namespace::UnnamedInstall => install.clone(),
                        Namespace::Applied => continue,
                    };
                    namespaced.entry(ns).or_default().push(h.rule.clone());
                }
            }
        }
    }
    let mut out = Vec::new();
    for ((install, name), (cluster, namespaced)) in by_account {
        let account = Account {
            extension,
            role: AccountRole::Operator,
            account: ServiceAccountRef::new(install.as_str(), name.as_str()),
        };
        let role = crate::plan::names::beyond_rbac_role(extension, &name);
        if !cluster.is_empty() {
            out.extend(account.cluster_pair(&role, cluster));
        }
        for (ns, rules) in namespaced {
            out.extend(account.namespace_pair(&role, &ns, rules));
        }
    }
    // The server a webhook beside the bundle names, as a User of that name:
    // the diff says who gained what by it.
    for (n, (server, rules)) in endpoints.into_iter().enumerate() {
        out.extend(server_pair(
            &crate::plan::names::beyond_rbac_role(extension, &format!("server-{n}")),
            server,
            rules,
        ));
    }
    out
}

/// A ClusterRole with `rules` and its binding to the User named `server`.
fn server_pair(name: &str, server: &str, rules: Vec<PolicyRule>) -> [Made; 2] {
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Subject};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    let metadata = ObjectMeta { name: Some(name.to_string()), ..Default::default() };
    let subject = Subject {
        kind: SubjectKind::User.as_str().to_string(),
        api_group: Some(RBAC_GROUP.to_string()),
        name: server.to_string(),
        namespace: None,
    };
    [
        Object::ClusterRole(ClusterRole { metadata: metadata.clone(), rules: Some(rules), aggregation_rule: None }),
        Object::ClusterRoleBinding(ClusterRoleBinding {
            metadata,
            role_ref: RoleRefKind::ClusterRole.role_ref(name),
            subjects: Some(vec![subject]),
        }),
    ]
    .map(|o| (About::Modelled, o))
}
