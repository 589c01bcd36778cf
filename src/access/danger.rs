//! Permissions well known to let their holder escalate or reach beyond its
//! job, after the privilege-escalation risks in Kubernetes' RBAC good
//! practices. olm-rbac warns when a bundle grants one to its operator and no
//! install policy ceiling decides, and `report` flags them.
//!
//! Each entry holds one or more grants (verbs on resources of API groups), and
//! a rule is dangerous when it shares any one permission with a grant. The
//! rule is read as the API server reads it: `*` is every verb, group or
//! resource, `*/sub` is that subresource of every resource, and resource names
//! only narrow a rule to some of the objects, so they never clear it. Every
//! entry is a single permission, never a combination, so splitting a grant
//! over several rules or roles cannot hide it.
//!
//! A catalogue resource ending in `/*` stands for every subresource of that
//! resource (the API server checks impersonated extra fields as
//! `userextras/<key>`); in a rule, `userextras/*` is one key like any other.
//! That is why entries are matched here rather than with
//! `cover::overlaps`, which reads both sides as rules.

use std::fmt;

use k8s_openapi::api::rbac::v1::PolicyRule;

const ALL: &str = "*";

/// How much a dangerous permission gives its holder, from least to most, so
/// that `max` picks the worst. docs/dangerous-permissions.md defines each level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Weakens a safeguard, spreads what the holder already has, or damages
    /// what others run; it does not by itself give another identity's rights.
    Medium,
    /// Reaches the credentials, identities or code of other workloads or of a
    /// node, or replaces whole APIs; how far that goes depends on what runs in
    /// the cluster.
    High,
    /// Takes the cluster on its own: the holder can grant itself anything, act
    /// as any identity, run code in any pod or node, or see and change what
    /// others send to the API server.
    Critical,
}

impl Severity {
    /// The level as the docs and messages write it: "critical", "high", "medium".
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::High => "high",
            Severity::Medium => "medium",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A permission well known to let its holder escalate or reach beyond its job.
pub struct Danger {
    /// Short name used in messages, e.g. "escalate on roles".
    pub what: &'static str,
    /// Why it is dangerous, one sentence, for docs and `report`.
    pub why: &'static str,
    /// How much it gives its holder: the worst of what its permissions allow.
    pub severity: Severity,
    /// The permissions; none means the wildcard entry, which looks for `*`.
    grants: &'static [Grant],
    /// Dangerous only when granted in every namespace.
    cluster_only: bool,
}

/// Any of `verbs` on any of `resources` in any of `groups`.
struct Grant {
    groups: &'static [&'static str],
    resources: &'static [&'static str],
    verbs: &'static [&'static str],
}

const fn grant(
    groups: &'static [&'static str],
    resources: &'static [&'static str],
    verbs: &'static [&'static str],
) -> Grant {
    Grant { groups, resources, verbs }
}

const WRITE: &[&str] = &["create", "update", "patch", "delete", "deletecollection"];
const CREATE_OR_CHANGE: &[&str] = &["create", "update", "patch"];
const READ: &[&str] = &["get", "list", "watch"];
/// The verbs that impersonate an identity: `impersonate`, and those of
/// constrained impersonation (each also needs an `impersonate-on:` verb for
/// the action, which alone impersonates nobody).
const IMPERSONATE_AS: &[&str] = &[
    "impersonate:user-info",
    "impersonate:serviceaccount",
    "impersonate:arbitrary-node",
    "impersonate:associated-node",
];
const ADMISSION: &str = "admissionregistration.k8s.io";
const RBAC: &str = "rbac.authorization.k8s.io";

const CATALOGUE: &[Danger] = &[
    Danger {
        what: "wildcard verbs or resources",
        why: "`*` grants every verb or resource, including those added to the cluster later.",
        severity: Severity::Medium,
        grants: &[],
        cluster_only: false,
    },
    Danger {
        what: "read secrets cluster-wide",
        why: "get, list or watch on secrets in every namespace reveals every credential in the cluster, service account tokens included.",
        severity: Severity::High,
        grants: &[grant(&[""], &["secrets"], READ)],
        cluster_only: true,
    },
    Danger {
        what: "write secrets cluster-wide",
        why: "creating or changing secrets in every namespace replaces other workloads' keys and credentials, and a bootstrap token or service account token secret it creates is honoured by the control plane.",
        severity: Severity::High,
        grants: &[grant(&[""], &["secrets"], CREATE_OR_CHANGE)],
        cluster_only: true,
    },
    Danger {
        what: "create workloads cluster-wide",
        why: "whoever creates pods (or what makes pods) in a namespace can mount its secrets and run as any of its service accounts; in every namespace, that is all of them.",
        severity: Severity::Critical,
        grants: &[
            grant(&[""], &["pods", "replicationcontrollers"], CREATE_OR_CHANGE),
            grant(&["apps"], &["deployments", "replicasets", "statefulsets", "daemonsets"], CREATE_OR_CHANGE),
            grant(&["batch"], &["jobs", "cronjobs"], CREATE_OR_CHANGE),
        ],
        cluster_only: true,
    },
    Danger {
        what: "exec, attach or port-forward into pods",
        why: "a shell in another workload's container gets its service account, secrets and network position.",
        severity: Severity::High,
        grants: &[grant(&[""], &["pods/exec", "pods/attach", "pods/portforward"], &["create", "get"])],
        cluster_only: false,
    },
    Danger {
        what: "add ephemeral containers to pods",
        why: "an ephemeral container added to a running pod runs the holder's image and command in it, with its service account and volumes: exec by another name.",
        severity: Severity::High,
        grants: &[grant(&[""], &["pods/ephemeralcontainers"], &["update", "patch"])],
        cluster_only: false,
    },
    Danger {
        what: "create persistent volumes",
        why: "a hostPath persistent volume gives access to the node's file system.",
        severity: Severity::High,
        grants: &[grant(&[""], &["persistentvolumes"], &["create"])],
        cluster_only: false,
    },
    Danger {
        what: "nodes/proxy",
        why: "any verb on nodes/proxy, get included, reaches the kubelet API, which runs commands in every pod on the node and bypasses audit and admission.",
        severity: Severity::Critical,
        grants: &[grant(&[""], &["nodes/proxy"], &[ALL])],
        cluster_only: false,
    },
    Danger {
        what: "escalate on roles",
        why: "escalate lets the holder write roles granting more than it holds.",
        severity: Severity::Critical,
        grants: &[grant(&[RBAC], &["roles", "clusterroles"], &["escalate"])],
        cluster_only: false,
    },
    Danger {
        what: "bind roles",
        why: "bind lets the holder bind roles granting more than it holds, to anyone.",
        severity: Severity::Critical,
        grants: &[grant(&[RBAC], &["roles", "clusterroles"], &["bind"])],
        cluster_only: false,
    },
    Danger {
        what: "write cluster roles or their bindings",
        why: "writing ClusterRoles or ClusterRoleBindings changes who may do what in the whole cluster (within what the writer holds, unless it may also escalate or bind).",
        severity: Severity::Medium,
        grants: &[grant(&[RBAC], &["clusterroles", "clusterrolebindings"], WRITE)],
        cluster_only: false,
    },
    Danger {
        what: "impersonate",
        why: "impersonating a user, group, service account or node gains its rights.",
        severity: Severity::Critical,
        grants: &[
            grant(&[""], &["users", "groups", "serviceaccounts"], &["impersonate"]),
            grant(&["authentication.k8s.io"], &["uids", "userextras/*"], &["impersonate"]),
            grant(
                &["authentication.k8s.io"],
                &["users", "groups", "serviceaccounts", "nodes", "uids", "userextras/*"],
                IMPERSONATE_AS,
            ),
        ],
        cluster_only: false,
    },
    Danger {
        what: "request service account tokens",
        why: "creating serviceaccounts/token issues tokens for existing service accounts, with their rights.",
        severity: Severity::High,
        grants: &[grant(&[""], &["serviceaccounts/token"], &["create"])],
        cluster_only: false,
    },
    Danger {
        what: "approve or sign certificates",
        why: "approving certificate signing requests (or approving and signing for a signer) issues client certificates with any name, system components' included.",
        severity: Severity::Critical,
        grants: &[
            grant(&["certificates.k8s.io"], &["certificatesigningrequests/approval"], &["update", "patch"]),
            grant(&["certificates.k8s.io"], &["signers"], &["approve", "sign"]),
        ],
        cluster_only: false,
    },
    Danger {
        what: "write admission webhooks",
        why: "an admission webhook can be sent every object admitted to the cluster, and a mutating one can change them; deleting one removes a policy.",
        severity: Severity::Critical,
        grants: &[grant(&[ADMISSION], &["mutatingwebhookconfigurations", "validatingwebhookconfigurations"], WRITE)],
        cluster_only: false,
    },
    Danger {
        what: "write mutating admission policies",
        why: "a mutating admission policy rewrites any object admitted to the cluster, pods and their service accounts included, inside the API server.",
        severity: Severity::Critical,
        grants: &[grant(&[ADMISSION], &["mutatingadmissionpolicies", "mutatingadmissionpolicybindings"], WRITE)],
        cluster_only: false,
    },
    Danger {
        what: "write validating admission policies",
        why: "a validating admission policy can refuse any request in the cluster, and changing or deleting one removes a safeguard.",
        severity: Severity::Medium,
        grants: &[grant(&[ADMISSION], &["validatingadmissionpolicies", "validatingadmissionpolicybindings"], WRITE)],
        cluster_only: false,
    },
    Danger {
        what: "write API services",
        why: "an APIService routes a whole API group and version, built-in ones included, to a service of the writer's choosing, which then sees and answers every request for it.",
        severity: Severity::Critical,
        grants: &[grant(&["apiregistration.k8s.io"], &["apiservices"], WRITE)],
        cluster_only: false,
    },
    Danger {
        what: "write custom resource definitions",
        why: "writing CRDs can replace or delete any custom API in the cluster, other operators' included, with their data, or send its objects to a conversion webhook of the writer's choosing.",
        severity: Severity::High,
        grants: &[grant(&["apiextensions.k8s.io"], &["customresourcedefinitions"], WRITE)],
        cluster_only: false,
    },
    Danger {
        what: "modify namespaces",
        why: "changing a namespace's labels (its status and finalize subresources carry them too) can lower its Pod Security Admission level or take it out of network policies.",
        severity: Severity::Medium,
        grants: &[grant(&[""], &["namespaces", "namespaces/status", "namespaces/finalize"], &["update", "patch"])],
        cluster_only: false,
    },
];

/// Every entry of the catalogue, in the order the docs list them.
pub fn catalogue() -> &'static [Danger] {
    CATALOGUE
}

impl Danger {
    /// Whether it counts only when granted in every namespace (a ClusterRole
    /// bound by a ClusterRoleBinding); otherwise it counts anywhere.
    pub fn cluster_wide_only(&self) -> bool {
        self.cluster_only
    }

    /// The permissions the entry stands for, as docs/dangerous-permissions.md
    /// lists them, e.g. "`create` on `serviceaccounts/token` in `""`".
    pub fn permissions(&self) -> String {
        if self.grants.is_empty() {
            return "a `*` verb, resource, API group or non-resource URL".to_string();
        }
        let code = |items: &[&str]| items.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ");
        let shown: Vec<String> = self
            .grants
            .iter()
            .map(|g| {
                let verbs = if g.verbs == [ALL] { "any verb".to_string() } else { code(g.verbs) };
                let resources: Vec<String> = g
                    .resources
                    .iter()
                    .map(|r| match r.strip_suffix("/*") {
                        Some(base) => format!("`{base}/<any>`"),
                        None => format!("`{r}`"),
                    })
                    .collect();
                let groups: Vec<String> = g
                    .groups
                    .iter()
                    .map(|x| if x.is_empty() { "`\"\"`".to_string() } else { format!("`{x}`") })
                    .collect();
                format!("{verbs} on {} in {}", resources.join(", "), groups.join(", "))
            })
            .collect();
        shown.join("; ")
    }

    fn matches(&self, rule: &PolicyRule, cluster_wide: bool) -> bool {
        if self.cluster_only && !cluster_wide {
            return false;
        }
        if self.grants.is_empty() {
            return wildcard(rule);
        }
        self.grants.iter().any(|g| g.shares_a_permission_with(rule))
    }
}

impl Grant {
    /// Does `rule` grant one of this grant's permissions? Resource names are
    /// not looked at: a named object is still one of the resource's objects.
    fn shares_a_permission_with(&self, rule: &PolicyRule) -> bool {
        let verbs = rule.verbs.iter().any(|v| v == ALL || self.verbs.iter().any(|w| *w == ALL || w == v));
        let groups = list(&rule.api_groups).iter().any(|g: &String| g == ALL || self.groups.contains(&g.as_str()));
        let resources =
            list(&rule.resources).iter().any(|r| self.resources.iter().any(|pattern| resource_meets(r, pattern)));
        verbs && groups && resources
    }
}

fn list(v: &Option<Vec<String>>) -> &[String] {
    v.as_deref().unwrap_or_default()
}

/// Does the rule's resource `granted` include some resource the catalogue's
/// `pattern` names? `granted` is read as the API server reads it: `*` is
/// every resource and `*/sub` the subresource `sub` of every resource. A
/// `pattern` ending in `/*` is every subresource of its resource.
fn resource_meets(granted: &str, pattern: &str) -> bool {
    if granted == ALL || granted == pattern {
        return true;
    }
    let any_resource_sub = granted.strip_prefix("*/").filter(|sub| !sub.is_empty());
    match pattern.strip_suffix("/*") {
        Some(base) => {
            any_resource_sub.is_some()
                || granted.strip_prefix(base).and_then(|rest| rest.strip_prefix('/')).is_some_and(|k| !k.is_empty())
        }
        None => any_resource_sub.is_some_and(|sub| pattern.split_once('/').is_some_and(|(_, s)| s == sub)),
    }
}

/// A `*` verb on anything, or a `*` resource (or `*` group with any
/// resource): it grants what nobody reviewed, now and as the cluster grows.
/// A `*` non-resource URL counts too.
fn wildcard(rule: &PolicyRule) -> bool {
    let has = |v: &Option<Vec<String>>| v.as_ref().is_some_and(|v| v.iter().any(|x| x == ALL));
    let grants_something = rule.resources.as_ref().is_some_and(|r| !r.is_empty())
        || rule.non_resource_urls.as_ref().is_some_and(|u| !u.is_empty());
    grants_something
        && (rule.verbs.iter().any(|v| v == ALL)
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

    fn named(mut r: PolicyRule, names: &[&str]) -> PolicyRule {
        r.resource_names = Some(names.iter().map(|x| x.to_string()).collect());
        r
    }

    fn names(rule: &PolicyRule, cluster_wide: bool) -> Vec<&'static str> {
        dangers(rule, cluster_wide).iter().map(|d| d.what).collect()
    }

    #[test]
    fn each_entry_is_flagged_by_a_minimal_rule() {
        let cases = [
            (rule(&["apps"], &["deployments"], &["*"]), "wildcard verbs or resources"),
            (rule(&[""], &["secrets"], &["list"]), "read secrets cluster-wide"),
            (rule(&[""], &["secrets"], &["create"]), "write secrets cluster-wide"),
            (rule(&["apps"], &["deployments"], &["create"]), "create workloads cluster-wide"),
            (rule(&[""], &["pods/exec"], &["create"]), "exec, attach or port-forward into pods"),
            (rule(&[""], &["pods/ephemeralcontainers"], &["patch"]), "add ephemeral containers to pods"),
            (rule(&[""], &["persistentvolumes"], &["create"]), "create persistent volumes"),
            (rule(&[""], &["nodes/proxy"], &["get"]), "nodes/proxy"),
            (rule(&[RBAC], &["clusterroles"], &["escalate"]), "escalate on roles"),
            (rule(&[RBAC], &["roles"], &["bind"]), "bind roles"),
            (rule(&[RBAC], &["clusterrolebindings"], &["create"]), "write cluster roles or their bindings"),
            (rule(&[""], &["serviceaccounts"], &["impersonate"]), "impersonate"),
            (rule(&[""], &["serviceaccounts/token"], &["create"]), "request service account tokens"),
            (rule(&["certificates.k8s.io"], &["signers"], &["approve"]), "approve or sign certificates"),
            (rule(&[ADMISSION], &["mutatingwebhookconfigurations"], &["patch"]), "write admission webhooks"),
            (rule(&[ADMISSION], &["mutatingadmissionpolicies"], &["create"]), "write mutating admission policies"),
            (
                rule(&[ADMISSION], &["validatingadmissionpolicybindings"], &["delete"]),
                "write validating admission policies",
            ),
            (rule(&["apiregistration.k8s.io"], &["apiservices"], &["update"]), "write API services"),
            (
                rule(&["apiextensions.k8s.io"], &["customresourcedefinitions"], &["delete"]),
                "write custom resource definitions",
            ),
            (rule(&[""], &["namespaces"], &["patch"]), "modify namespaces"),
        ];
        for (r, what) in &cases {
            assert!(names(r, true).contains(what), "{what}: {:?}", names(r, true));
        }
        let covered: Vec<&str> = cases.iter().map(|c| c.1).collect();
        let listed: Vec<&str> = catalogue().iter().map(|d| d.what).collect();
        assert_eq!(covered, listed, "one case per entry, in the catalogue's order");
    }

    /// Every permission of every entry, written as the API server also reads
    /// it: a `*` group, resource or verb, `*/sub` for a subresource, a
    /// resource name, and the permission among others in a longer rule.
    #[test]
    fn every_entry_is_flagged_by_each_spelling_of_each_permission() {
        for d in catalogue().iter().filter(|d| !d.grants.is_empty()) {
            for g in d.grants {
                for (&group, &resource, &verb) in g
                    .groups
                    .iter()
                    .flat_map(|gr| g.resources.iter().flat_map(move |r| g.verbs.iter().map(move |v| (gr, r, v))))
                {
                    // A catalogue `/*` resource stands for every key; `scopes` is one.
                    let concrete = resource.strip_suffix("/*").map(|b| format!("{b}/scopes"));
                    let resource = concrete.as_deref().unwrap_or(resource);
                    let verb = if verb == ALL { "get" } else { verb };
                    let mut spellings = vec![
                        rule(&[group], &[resource], &[verb]),
                        rule(&[ALL], &[resource], &[verb]),
                        rule(&[group], &[ALL], &[verb]),
                        rule(&[group], &[resource], &[ALL]),
                        named(rule(&[group], &[resource], &[verb]), &["some-name"]),
                        rule(&["example.com", group], &["widgets", resource], &["watch", verb]),
                    ];
                    if let Some((_, sub)) = resource.split_once('/') {
                        spellings.push(rule(&[group], &[&format!("*/{sub}")], &[verb]));
                    }
                    for r in &spellings {
                        assert!(names(r, true).contains(&d.what), "{}: {r:?} gives {:?}", d.what, names(r, true));
                    }
                }
            }
        }
    }

    #[test]
    fn the_wildcard_entry_is_flagged_by_each_wildcard() {
        let what = "wildcard verbs or resources";
        let urls =
            PolicyRule { non_resource_urls: Some(vec!["*".into()]), verbs: vec!["get".into()], ..Default::default() };
        for r in [
            rule(&["example.com"], &["widgets"], &["*"]),
            rule(&["example.com"], &["*"], &["get"]),
            rule(&["*"], &["widgets"], &["get"]),
            urls,
        ] {
            assert!(names(&r, false).contains(&what), "{r:?}");
        }
        assert!(!names(&rule(&["example.com"], &["widgets"], &["get"]), true).contains(&what));
    }

    /// Spellings the catalogue used to miss, and the permissions it lacked.
    #[test]
    fn the_gaps_are_closed() {
        let cases: &[(PolicyRule, &str)] = &[
            // impersonating any extra field: the API server checks `userextras/<key>`
            (rule(&["authentication.k8s.io"], &["userextras/scopes"], &["impersonate"]), "impersonate"),
            (rule(&["authentication.k8s.io"], &["*/scopes"], &["impersonate"]), "impersonate"),
            (rule(&["authentication.k8s.io"], &["userextras/*"], &["impersonate"]), "impersonate"),
            (rule(&["*"], &["*"], &["impersonate"]), "impersonate"),
            (
                named(rule(&["authentication.k8s.io"], &["userextras/scopes"], &["impersonate"]), &["view"]),
                "impersonate",
            ),
            // constrained impersonation's identity verbs
            (rule(&["authentication.k8s.io"], &["users"], &["impersonate:user-info"]), "impersonate"),
            (rule(&["authentication.k8s.io"], &["serviceaccounts"], &["impersonate:serviceaccount"]), "impersonate"),
            (rule(&["authentication.k8s.io"], &["nodes"], &["impersonate:arbitrary-node"]), "impersonate"),
            // the rest of the admission family
            (
                rule(&[ADMISSION], &["mutatingadmissionpolicybindings"], &["update"]),
                "write mutating admission policies",
            ),
            (rule(&[ADMISSION], &["validatingadmissionpolicies"], &["patch"]), "write validating admission policies"),
            // exec by another name
            (rule(&[""], &["pods/ephemeralcontainers"], &["update"]), "add ephemeral containers to pods"),
            (rule(&[""], &["*/ephemeralcontainers"], &["patch"]), "add ephemeral containers to pods"),
            // an API group routed to any service
            (rule(&["apiregistration.k8s.io"], &["apiservices"], &["create"]), "write API services"),
            // secrets written in every namespace
            (rule(&[""], &["secrets"], &["patch"]), "write secrets cluster-wide"),
            // namespace labels through the subresources
            (rule(&[""], &["namespaces/status"], &["update"]), "modify namespaces"),
            (rule(&[""], &["namespaces/finalize"], &["patch"]), "modify namespaces"),
        ];
        for (r, what) in cases {
            assert!(names(r, true).contains(what), "{what}: {r:?} gives {:?}", names(r, true));
        }
        assert!(names(&rule(&[""], &["secrets"], &["create"]), false).is_empty(), "in a namespace it is the job");
    }

    #[test]
    fn near_misses_are_not_flagged() {
        let quiet = [
            rule(&[""], &["secrets"], &["delete"]),
            rule(&[""], &["configmaps"], &["get", "list", "watch"]),
            rule(&[""], &["pods"], &["get", "list", "delete"]),
            rule(&[""], &["pods/log"], &["get"]),
            rule(&[""], &["pods/status"], &["patch"]),
            rule(&[""], &["pods/ephemeralcontainers"], &["get"]),
            rule(&[""], &["*/*"], &["create"]),
            rule(&[""], &["nodes"], &["get"]),
            rule(&[RBAC], &["roles", "rolebindings"], &["create", "update"]),
            rule(&[RBAC], &["clusterroles"], &["get", "list", "watch"]),
            rule(&["apiextensions.k8s.io"], &["customresourcedefinitions"], &["get", "list", "watch"]),
            rule(&[""], &["namespaces"], &["get", "list", "watch"]),
            rule(&["coordination.k8s.io"], &["leases"], &["get", "create", "update"]),
            rule(&[ADMISSION], &["mutatingadmissionpolicies", "validatingwebhookconfigurations"], &["get", "list"]),
            rule(&["apiregistration.k8s.io"], &["apiservices"], &["get", "list", "watch"]),
            rule(&["certificates.k8s.io"], &["certificatesigningrequests"], &["create", "get"]),
            rule(&["certificates.k8s.io"], &["signers"], &["update"]),
            rule(&["authentication.k8s.io"], &["tokenreviews"], &["create"]),
            rule(&["authorization.k8s.io"], &["subjectaccessreviews"], &["create"]),
            // the extra field's key is a subresource; `userextras` alone is checked for nothing
            rule(&["authentication.k8s.io"], &["userextras"], &["impersonate"]),
            // extra fields and uids are impersonated in authentication.k8s.io, not the core group
            rule(&[""], &["userextras/scopes"], &["impersonate"]),
            // an action verb of constrained impersonation impersonates nobody on its own
            rule(&[""], &["pods"], &["impersonate-on:user-info:list"]),
            rule(&["apps"], &["pods"], &["create"]),
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
        let only: Vec<&str> = catalogue().iter().filter(|d| d.cluster_wide_only()).map(|d| d.what).collect();
        assert_eq!(only, ["read secrets cluster-wide", "write secrets cluster-wide", "create workloads cluster-wide"]);
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

    /// The levels are pinned here so that changing one is a decision.
    #[test]
    fn every_entry_has_its_severity() {
        use Severity::*;
        let levels: Vec<(&str, Severity)> = catalogue().iter().map(|d| (d.what, d.severity)).collect();
        let expected = [
            ("wildcard verbs or resources", Medium),
            ("read secrets cluster-wide", High),
            ("write secrets cluster-wide", High),
            ("create workloads cluster-wide", Critical),
            ("exec, attach or port-forward into pods", High),
            ("add ephemeral containers to pods", High),
            ("create persistent volumes", High),
            ("nodes/proxy", Critical),
            ("escalate on roles", Critical),
            ("bind roles", Critical),
            ("write cluster roles or their bindings", Medium),
            ("impersonate", Critical),
            ("request service account tokens", High),
            ("approve or sign certificates", Critical),
            ("write admission webhooks", Critical),
            ("write mutating admission policies", Critical),
            ("write validating admission policies", Medium),
            ("write API services", Critical),
            ("write custom resource definitions", High),
            ("modify namespaces", Medium),
        ];
        assert_eq!(levels, expected);
        assert!(Critical > High && High > Medium, "max() picks the worst");
        let worst = dangers(&rule(&[""], &["*"], &["get"]), true).iter().map(|d| d.severity).max();
        assert_eq!(worst, Some(Critical));
        assert_eq!(Critical.to_string(), "critical");
    }

    #[test]
    fn permissions_read_as_the_docs_list_them() {
        let text = |what: &str| catalogue().iter().find(|d| d.what == what).map(|d| d.permissions());
        assert_eq!(
            text("request service account tokens").as_deref(),
            Some("`create` on `serviceaccounts/token` in `\"\"`")
        );
        assert_eq!(text("nodes/proxy").as_deref(), Some("any verb on `nodes/proxy` in `\"\"`"));
        let impersonate = text("impersonate").unwrap_or_default();
        assert!(impersonate.contains("`uids`, `userextras/<any>` in `authentication.k8s.io`"), "{impersonate}");
    }
}
