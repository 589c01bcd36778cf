//! Permissions well known to let their holder escalate or reach beyond its
//! job, after the privilege-escalation risks in Kubernetes' RBAC good
//! practices. olm-rbac warns when a bundle grants one to its operator and no
//! install policy ceiling decides, and `report` flags them.
//!
//! Each entry is a rule: a grant is dangerous when it shares any permission
//! with it ([`overlaps`]), so wildcards and `*/subresource` patterns are
//! caught however they are written.

use k8s_openapi::api::rbac::v1::PolicyRule;

use super::cover::overlaps;

/// A permission well known to let its holder escalate or reach beyond its job.
pub struct Danger {
    /// Short name used in messages, e.g. "escalate on roles".
    pub what: &'static str,
    /// Why it is dangerous, one sentence, for docs and `report`.
    pub why: &'static str,
    groups: &'static [&'static str],
    resources: &'static [&'static str],
    verbs: &'static [&'static str],
    /// Dangerous only when granted in every namespace.
    cluster_only: bool,
}

const WRITE: &[&str] = &["create", "update", "patch", "delete", "deletecollection"];
const WORKLOADS: &[&str] =
    &["pods", "deployments", "replicasets", "statefulsets", "daemonsets", "jobs", "cronjobs", "replicationcontrollers"];

const CATALOGUE: &[Danger] = &[
    Danger {
        what: "wildcard verbs or resources",
        why: "`*` grants every verb or resource, including those added to the cluster later.",
        groups: &[],
        resources: &[],
        verbs: &[],
        cluster_only: false,
    },
    Danger {
        what: "read secrets cluster-wide",
        why: "get, list or watch on secrets in every namespace reveals every credential in the cluster, service account tokens included.",
        groups: &[""],
        resources: &["secrets"],
        verbs: &["get", "list", "watch"],
        cluster_only: true,
    },
    Danger {
        what: "create workloads cluster-wide",
        why: "whoever creates pods (or what makes pods) in a namespace can mount its secrets and run as any of its service accounts; in every namespace, that is all of them.",
        groups: &["", "apps", "batch"],
        resources: WORKLOADS,
        verbs: &["create", "update", "patch"],
        cluster_only: true,
    },
    Danger {
        what: "exec, attach or port-forward into pods",
        why: "a shell in another workload's container gets its service account, secrets and network position.",
        groups: &[""],
        resources: &["pods/exec", "pods/attach", "pods/portforward"],
        verbs: &["create", "get"],
        cluster_only: false,
    },
    Danger {
        what: "create persistent volumes",
        why: "a hostPath persistent volume gives access to the node's file system.",
        groups: &[""],
        resources: &["persistentvolumes"],
        verbs: &["create"],
        cluster_only: false,
    },
    Danger {
        what: "nodes/proxy",
        why: "any verb on nodes/proxy, get included, reaches the kubelet API, which runs commands in every pod on the node and bypasses audit and admission.",
        groups: &[""],
        resources: &["nodes/proxy"],
        verbs: &["*"],
        cluster_only: false,
    },
    Danger {
        what: "escalate on roles",
        why: "escalate lets the holder write roles granting more than it holds.",
        groups: &["rbac.authorization.k8s.io"],
        resources: &["roles", "clusterroles"],
        verbs: &["escalate"],
        cluster_only: false,
    },
    Danger {
        what: "bind roles",
        why: "bind lets the holder bind roles granting more than it holds, to anyone.",
        groups: &["rbac.authorization.k8s.io"],
        resources: &["roles", "clusterroles"],
        verbs: &["bind"],
        cluster_only: false,
    },
    Danger {
        what: "write cluster roles or their bindings",
        why: "writing ClusterRoles or ClusterRoleBindings changes who may do what in the whole cluster (within what the writer holds, unless it may also escalate or bind).",
        groups: &["rbac.authorization.k8s.io"],
        resources: &["clusterroles", "clusterrolebindings"],
        verbs: WRITE,
        cluster_only: false,
    },
    Danger {
        what: "impersonate",
        why: "impersonating a user, group or service account gains its rights.",
        groups: &["", "authentication.k8s.io"],
        resources: &["users", "groups", "serviceaccounts", "userextras/*", "uids"],
        verbs: &["impersonate"],
        cluster_only: false,
    },
    Danger {
        what: "request service account tokens",
        why: "creating serviceaccounts/token issues tokens for existing service accounts, with their rights.",
        groups: &[""],
        resources: &["serviceaccounts/token"],
        verbs: &["create"],
        cluster_only: false,
    },
    Danger {
        what: "approve or sign certificates",
        why: "approving certificate signing requests (or approving and signing for a signer) issues client certificates with any name, system components' included.",
        groups: &["certificates.k8s.io"],
        resources: &["certificatesigningrequests/approval", "signers"],
        verbs: &["update", "patch", "approve", "sign"],
        cluster_only: false,
    },
    Danger {
        what: "write admission webhooks",
        why: "an admission webhook sees every object admitted to the cluster, and a mutating one can change them; deleting one removes a policy.",
        groups: &["admissionregistration.k8s.io"],
        resources: &[
            "mutatingwebhookconfigurations",
            "validatingwebhookconfigurations",
            "validatingadmissionpolicies",
            "validatingadmissionpolicybindings",
        ],
        verbs: WRITE,
        cluster_only: false,
    },
    Danger {
        what: "write custom resource definitions",
        why: "writing CRDs can replace or delete any custom API in the cluster, other operators' included, with their data.",
        groups: &["apiextensions.k8s.io"],
        resources: &["customresourcedefinitions"],
        verbs: WRITE,
        cluster_only: false,
    },
    Danger {
        what: "modify namespaces",
        why: "changing a namespace's labels can lower its Pod Security Admission level or take it out of network policies.",
        groups: &[""],
        resources: &["namespaces"],
        verbs: &["update", "patch"],
        cluster_only: false,
    },
];

/// Every entry of the catalogue, in the order the docs list them.
pub fn catalogue() -> &'static [Danger] {
    CATALOGUE
}

impl Danger {
    fn matches(&self, rule: &PolicyRule, cluster_wide: bool) -> bool {
        if self.cluster_only && !cluster_wide {
            return false;
        }
        if self.groups.is_empty() {
            return wildcard(rule);
        }
        let strings = |s: &[&str]| Some(s.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        let pattern = PolicyRule {
            api_groups: strings(self.groups),
            resources: strings(self.resources),
            verbs: self.verbs.iter().map(|v| v.to_string()).collect(),
            ..Default::default()
        };
        overlaps(rule, &pattern)
    }
}

/// A `*` verb on anything, or a `*` resource (or `*` group with any
/// resource): it grants what nobody reviewed, now and as the cluster grows.
/// A `*` non-resource URL counts too.
fn wildcard(rule: &PolicyRule) -> bool {
    let has = |v: &Option<Vec<String>>| v.as_ref().is_some_and(|v| v.iter().any(|x| x == "*"));
    let grants_something = rule.resources.as_ref().is_some_and(|r| !r.is_empty())
        || rule.non_resource_urls.as_ref().is_some_and(|u| !u.is_empty());
    grants_something
        && (rule.verbs.iter().any(|v| v == "*")
            || has(&rule.resources)
            || has(&rule.api_groups)
            || has(&rule.non_resource_urls))
}

/// The dangerous permissions `rule` grants; `cluster_wide` says whether the
/// rule applies in every namespace (a ClusterRole bound by a
/// ClusterRoleBinding) or in one namespace.
pub fn dangers(rule: &PolicyRule, cluster_wide: bool) -> Vec<&'static Danger> {
    CATALOGUE.iter().filter(|d| d.matches(rule, cluster_wide)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> PolicyRule {
        let v = |s: &[&str]| Some(s.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        PolicyRule {
            api_groups: v(groups),
            resources: v(resources),
            verbs: verbs.iter().map(|x| x.to_string()).collect(),
            ..Default::default()
        }
    }

    fn names(rule: &PolicyRule, cluster_wide: bool) -> Vec<&'static str> {
        dangers(rule, cluster_wide).iter().map(|d| d.what).collect()
    }

    #[test]
    fn each_entry_is_flagged_by_a_minimal_rule() {
        let cases = [
            (rule(&[""], &["secrets"], &["list"]), "read secrets cluster-wide"),
            (rule(&["apps"], &["deployments"], &["create"]), "create workloads cluster-wide"),
            (rule(&[""], &["pods/exec"], &["create"]), "exec, attach or port-forward into pods"),
            (rule(&[""], &["persistentvolumes"], &["create"]), "create persistent volumes"),
            (rule(&[""], &["nodes/proxy"], &["get"]), "nodes/proxy"),
            (rule(&["rbac.authorization.k8s.io"], &["clusterroles"], &["escalate"]), "escalate on roles"),
            (rule(&["rbac.authorization.k8s.io"], &["roles"], &["bind"]), "bind roles"),
            (
                rule(&["rbac.authorization.k8s.io"], &["clusterrolebindings"], &["create"]),
                "write cluster roles or their bindings",
            ),
            (rule(&[""], &["serviceaccounts"], &["impersonate"]), "impersonate"),
            (rule(&[""], &["serviceaccounts/token"], &["create"]), "request service account tokens"),
            (rule(&["certificates.k8s.io"], &["signers"], &["approve"]), "approve or sign certificates"),
            (
                rule(&["admissionregistration.k8s.io"], &["mutatingwebhookconfigurations"], &["patch"]),
                "write admission webhooks",
            ),
            (
                rule(&["apiextensions.k8s.io"], &["customresourcedefinitions"], &["delete"]),
                "write custom resource definitions",
            ),
            (rule(&[""], &["namespaces"], &["patch"]), "modify namespaces"),
            (rule(&["apps"], &["deployments"], &["*"]), "wildcard verbs or resources"),
        ];
        for (r, what) in &cases {
            assert!(names(r, true).contains(what), "{what}: {:?}", names(r, true));
        }
        assert_eq!(catalogue().len(), cases.len(), "every entry has a case");
    }

    #[test]
    fn near_misses_are_not_flagged() {
        let quiet = [
            rule(&[""], &["secrets"], &["create"]),
            rule(&[""], &["configmaps"], &["get", "list", "watch"]),
            rule(&[""], &["pods"], &["get", "list", "delete"]),
            rule(&[""], &["pods/log"], &["get"]),
            rule(&[""], &["nodes"], &["get"]),
            rule(&["rbac.authorization.k8s.io"], &["roles", "rolebindings"], &["create", "update"]),
            rule(&["rbac.authorization.k8s.io"], &["clusterroles"], &["get", "list", "watch"]),
            rule(&["apiextensions.k8s.io"], &["customresourcedefinitions"], &["get", "list", "watch"]),
            rule(&[""], &["namespaces"], &["get", "list", "watch"]),
            rule(&["coordination.k8s.io"], &["leases"], &["get", "create", "update"]),
        ];
        for r in quiet {
            assert!(names(&r, true).is_empty(), "{r:?}: {:?}", names(&r, true));
        }
    }

    #[test]
    fn some_entries_count_only_cluster_wide() {
        let secrets = rule(&[""], &["secrets"], &["get", "list", "watch"]);
        assert!(names(&secrets, false).is_empty(), "reading the secrets of the namespaces it serves is its job");
        let pods = rule(&[""], &["pods"], &["create"]);
        assert!(names(&pods, false).is_empty() && !names(&pods, true).is_empty());
        let exec = rule(&[""], &["pods/exec"], &["create"]);
        assert!(!names(&exec, false).is_empty(), "exec is flagged in a namespace too");
    }

    #[test]
    fn wildcard_rules_are_flagged_for_every_pattern_they_meet() {
        let all = names(&rule(&["*"], &["*"], &["*"]), true);
        assert_eq!(all.len(), catalogue().len(), "{all:?}");
        let core_star = names(&rule(&[""], &["*"], &["get"]), true);
        assert!(core_star.contains(&"read secrets cluster-wide") && core_star.contains(&"nodes/proxy"));
        assert!(core_star.contains(&"wildcard verbs or resources"));
        let sub = names(&rule(&[""], &["*/exec"], &["create"]), false);
        assert_eq!(sub, ["exec, attach or port-forward into pods"]);
    }
}
