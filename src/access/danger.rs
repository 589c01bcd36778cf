//! Permissions well known to let their holder escalate or reach beyond its
//! job, after the privilege-escalation risks in Kubernetes' RBAC good
//! practices. olm-rbac warns when a bundle grants one to its operator and no
//! install policy ceiling decides, and `report` flags them.
//!
//! Each entry holds one or more permission sets (verbs on resources of API groups), and
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

use k8s_openapi::api::rbac::v1::PolicyRule;

use super::matches::{or_empty, ALL};
use super::Request;

mod severity;
pub use severity::Severity;

/// A permission well known to let its holder escalate or reach beyond its job.
pub struct Danger {
    /// Short name used in messages, e.g. "escalate on roles".
    pub what: &'static str,
    /// Why it is dangerous, one sentence, for docs and `report`.
    pub why: &'static str,
    /// How much it gives its holder: the worst of what its permissions allow.
    pub severity: Severity,
    /// The permissions, as sets; none means the wildcard entry, which looks for `*`.
    sets: &'static [PermissionSet],
    /// Dangerous only when granted in every namespace.
    cluster_only: bool,
    /// For a deputy's entry: the controllers that act, with their own
    /// rights, on what the holder writes.
    pub deputy: Option<&'static str>,
}

impl Danger {
    /// The entry for `*` itself, which names no resource.
    pub fn is_wildcard(&self) -> bool {
        self.sets.is_empty()
    }

    /// One request per verb and resource the entry names, in `namespace`
    /// or cluster-wide.
    pub(crate) fn requests(&self, namespace: Option<&str>) -> Vec<Request> {
        self.sets
            .iter()
            .flat_map(|set| {
                set.verbs.iter().flat_map(move |verb| {
                    set.groups
                        .iter()
                        .flat_map(move |g| set.resources.iter().map(move |r| Request::on(verb, g, r, namespace)))
                })
            })
            .collect()
    }
}

/// Any of `verbs` on any of `resources` in any of `groups`.
struct PermissionSet {
    groups: &'static [&'static str],
    resources: &'static [&'static str],
    verbs: &'static [&'static str],
}

const fn any_of(
    groups: &'static [&'static str],
    resources: &'static [&'static str],
    verbs: &'static [&'static str],
) -> PermissionSet {
    PermissionSet { groups, resources, verbs }
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
        sets: &[],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "read secrets cluster-wide",
        why: "get, list or watch on secrets in every namespace reveals every credential in the cluster, service account tokens included.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["secrets"], READ)],
        cluster_only: true,
        deputy: None,
    },
    Danger {
        what: "write secrets cluster-wide",
        why: "creating or changing secrets in every namespace replaces other workloads' keys and credentials, and a bootstrap token or service account token secret it creates is honoured by the control plane.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["secrets"], CREATE_OR_CHANGE)],
        cluster_only: true,
        deputy: None,
    },
    Danger {
        what: "create workloads cluster-wide",
        why: "whoever creates pods (or what makes pods) in a namespace can mount its secrets and run as any of its service accounts; in every namespace, that is all of them.",
        severity: Severity::Critical,
        sets: &[
            any_of(&[""], &["pods", "replicationcontrollers"], CREATE_OR_CHANGE),
            any_of(&["apps"], &["deployments", "replicasets", "statefulsets", "daemonsets"], CREATE_OR_CHANGE),
            any_of(&["batch"], &["jobs", "cronjobs"], CREATE_OR_CHANGE),
        ],
        cluster_only: true,
        deputy: None,
    },
    Danger {
        what: "exec, attach or port-forward into pods",
        why: "a shell in another workload's container gets its service account, secrets and network position.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["pods/exec", "pods/attach", "pods/portforward"], &["create", "get"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "add ephemeral containers to pods",
        why: "an ephemeral container added to a running pod runs the holder's image and command in it, with its service account and volumes: exec by another name.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["pods/ephemeralcontainers"], &["update", "patch"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "create persistent volumes",
        why: "a hostPath persistent volume gives access to the node's file system.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["persistentvolumes"], &["create"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "nodes/proxy",
        why: "any verb on nodes/proxy, get included, reaches the kubelet API, which runs commands in every pod on the node and bypasses audit and admission.",
        severity: Severity::Critical,
        sets: &[any_of(&[""], &["nodes/proxy"], &[ALL])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "escalate on roles",
        why: "escalate lets the holder write roles granting more than it holds.",
        severity: Severity::Critical,
        sets: &[any_of(&[RBAC], &["roles", "clusterroles"], &["escalate"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "bind roles",
        why: "bind lets the holder bind roles granting more than it holds, to anyone.",
        severity: Severity::Critical,
        sets: &[any_of(&[RBAC], &["roles", "clusterroles"], &["bind"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "write cluster roles or their bindings",
        why: "writing ClusterRoles or ClusterRoleBindings changes who may do what in the whole cluster (within what the writer holds, unless it may also escalate or bind).",
        severity: Severity::Medium,
        sets: &[any_of(&[RBAC], &["clusterroles", "clusterrolebindings"], WRITE)],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "impersonate",
        why: "impersonating a user, group, service account or node gains its rights.",
        severity: Severity::Critical,
        sets: &[
            any_of(&[""], &["users", "groups", "serviceaccounts"], &["impersonate"]),
            any_of(&["authentication.k8s.io"], &["uids", "userextras/*"], &["impersonate"]),
            any_of(
                &["authentication.k8s.io"],
                &["users", "groups", "serviceaccounts", "nodes", "uids", "userextras/*"],
                IMPERSONATE_AS,
            ),
        ],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "request service account tokens",
        why: "creating serviceaccounts/token issues tokens for existing service accounts, with their rights.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["serviceaccounts/token"], &["create"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "approve or sign certificates",
        why: "approving certificate signing requests (or approving and signing for a signer) issues client certificates with any name, system components' included.",
        severity: Severity::Critical,
        sets: &[
            any_of(&["certificates.k8s.io"], &["certificatesigningrequests/approval"], &["update", "patch"]),
            any_of(&["certificates.k8s.io"], &["signers"], &["approve", "sign"]),
        ],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "write admission webhooks",
        why: "an admission webhook can be sent every object admitted to the cluster, and a mutating one can change them; deleting one removes a policy.",
        severity: Severity::Critical,
        sets: &[any_of(&[ADMISSION], &["mutatingwebhookconfigurations", "validatingwebhookconfigurations"], WRITE)],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "write mutating admission policies",
        why: "a mutating admission policy rewrites any object admitted to the cluster, pods and their service accounts included, inside the API server.",
        severity: Severity::Critical,
        sets: &[any_of(&[ADMISSION], &["mutatingadmissionpolicies", "mutatingadmissionpolicybindings"], WRITE)],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "write validating admission policies",
        why: "a validating admission policy can refuse any request in the cluster, and changing or deleting one removes a safeguard.",
        severity: Severity::Medium,
        sets: &[any_of(&[ADMISSION], &["validatingadmissionpolicies", "validatingadmissionpolicybindings"], WRITE)],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "write API services",
        why: "an APIService routes a whole API group and version, built-in ones included, to a service of the writer's choosing, which then sees and answers every request for it.",
        severity: Severity::Critical,
        sets: &[any_of(&["apiregistration.k8s.io"], &["apiservices"], WRITE)],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "write custom resource definitions",
        why: "writing CRDs can replace or delete any custom API in the cluster, other operators' included, with their data, or send its objects to a conversion webhook of the writer's choosing.",
        severity: Severity::High,
        sets: &[any_of(&["apiextensions.k8s.io"], &["customresourcedefinitions"], WRITE)],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "install operators",
        why: "OLM installs what a Subscription, an approved InstallPlan or a ClusterExtension asks for with its own rights (OLM v1 as cluster-admin), and OLM v0 runs the Deployments and grants the permissions a ClusterServiceVersion written in a namespace it watches asks for: whoever writes them runs a bundle of their choosing with rights they do not hold.",
        severity: Severity::Critical,
        sets: &[
            any_of(&["operators.coreos.com"], &["subscriptions", "installplans", "clusterserviceversions"], CREATE_OR_CHANGE),
            any_of(&["olm.operatorframework.io"], &["clusterextensions"], CREATE_OR_CHANGE),
        ],
        cluster_only: false,
        deputy: Some("OLM"),
    },
    Danger {
        what: "write operator catalogs or groups",
        why: "a CatalogSource or ClusterCatalog decides which bundles OLM can install, and an OperatorGroup which namespaces an installed operator's permissions reach: writing them changes what others' installs grant.",
        severity: Severity::High,
        sets: &[
            any_of(&["operators.coreos.com"], &["catalogsources", "operatorgroups"], WRITE),
            any_of(&["olm.operatorframework.io"], &["clustercatalogs"], WRITE),
        ],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "deploy through a GitOps controller",
        why: "Argo CD applies what an Application or ApplicationSet names, within what its AppProject allows, Flux what a Kustomization or HelmRelease names, each with the controller's own account, usually cluster-admin, Rancher Fleet what a GitRepo, HelmOp or Bundle names, and a Tekton PipelineRun or TaskRun or an Argo Workflow runs its steps as any ServiceAccount of its namespace it names: whoever writes them deploys or runs anything, anywhere the controller reaches.",
        severity: Severity::Critical,
        sets: &[
            any_of(&["argoproj.io"], &["applications", "applicationsets", "appprojects"], CREATE_OR_CHANGE),
            any_of(&["kustomize.toolkit.fluxcd.io"], &["kustomizations"], CREATE_OR_CHANGE),
            any_of(&["helm.toolkit.fluxcd.io"], &["helmreleases"], CREATE_OR_CHANGE),
            any_of(&["tekton.dev"], &["pipelineruns", "taskruns"], CREATE_OR_CHANGE),
            any_of(&["argoproj.io"], &["workflows", "cronworkflows"], CREATE_OR_CHANGE),
            any_of(&["fleet.cattle.io"], &["gitrepos", "helmops", "bundles"], CREATE_OR_CHANGE),
        ],
        cluster_only: false,
        deputy: Some("Argo CD, Flux, Fleet, Tekton or Argo Workflows"),
    },
    Danger {
        what: "write policy-engine policies",
        why: "Kyverno's policies mutate and generate any object with Kyverno's own rights, and Gatekeeper's mutators rewrite any object as it is admitted, before the API server checks the requester's escalation and binding: whoever writes them changes what others create, roles and bindings included.",
        severity: Severity::Critical,
        sets: &[
            any_of(&["kyverno.io"], &["clusterpolicies", "policies"], CREATE_OR_CHANGE),
            any_of(&["policies.kyverno.io"], &["mutatingpolicies", "generatingpolicies"], CREATE_OR_CHANGE),
            any_of(&["mutations.gatekeeper.sh"], &["assign", "assignmetadata", "modifyset", "assignimage"], CREATE_OR_CHANGE),
        ],
        cluster_only: false,
        deputy: Some("Kyverno or Gatekeeper"),
    },
    Danger {
        what: "change GitOps sources",
        why: "a Flux GitRepository, OCIRepository, HelmRepository, HelmChart or Bucket says where the manifests a Kustomization or HelmRelease applies come from: pointing it elsewhere deploys someone else's manifests with the controller's rights.",
        severity: Severity::High,
        sets: &[any_of(
            &["source.toolkit.fluxcd.io"],
            &["gitrepositories", "ocirepositories", "helmrepositories", "helmcharts", "buckets"],
            CREATE_OR_CHANGE,
        )],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "intercept service traffic",
        why: "a Service's status sets a LoadBalancer's ingress address, and every node's proxy then sends traffic for that address, from any pod or node, to the Service's endpoints (CVE-2020-8554): the holder takes traffic meant for others. olm-rbac also counts a bundle Service's externalIPs, which do the same, as this.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["services/status"], &["update", "patch"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        what: "modify namespaces",
        why: "changing a namespace's labels (its status and finalize subresources carry them too) can lower its Pod Security Admission level or take it out of network policies.",
        severity: Severity::Medium,
        sets: &[any_of(&[""], &["namespaces", "namespaces/status", "namespaces/finalize"], &["update", "patch"])],
        cluster_only: false,
        deputy: None,
    },
];

/// Every entry of the catalogue, in the order the docs list them.
pub fn catalogue() -> &'static [Danger] {
    CATALOGUE
}

/// Every resource the catalogue names, as `(group, resource)` without its
/// subresource: Kubernetes' virtual resources (`users`, `groups`, `signers`,
/// ...) and the deputies' APIs, which exist whatever the input defines.
pub(crate) fn named_resources() -> impl Iterator<Item = (&'static str, &'static str)> {
    CATALOGUE.iter().flat_map(|d| d.sets).flat_map(|set| {
        set.groups.iter().flat_map(move |g| set.resources.iter().map(move |r| (*g, r.split('/').next().unwrap_or(r))))
    })
}

/// What a danger permits, said with where it is held: cluster-wide
/// (`namespace` `None`; an entry that counts only cluster-wide says so
/// already) or in a namespace.
pub fn said_where(what: &str, namespace: Option<&str>) -> String {
    match namespace {
        None if what.ends_with("cluster-wide") => what.to_string(),
        None => format!("{what} cluster-wide"),
        Some(ns) => format!("{what} in {ns}"),
    }
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
        if self.sets.is_empty() {
            return "a `*` verb, resource, API group or non-resource URL".to_string();
        }
        let code = |items: &[&str]| items.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ");
        let shown: Vec<String> = self
            .sets
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
        if self.sets.is_empty() {
            return wildcard(rule);
        }
        self.sets.iter().any(|g| g.shares_a_permission_with(rule))
    }
}

impl PermissionSet {
    /// Does `rule` grant one of this grant's permissions? Resource names are
    /// not looked at: a named object is still one of the resource's objects.
    fn shares_a_permission_with(&self, rule: &PolicyRule) -> bool {
        let verbs = rule.verbs.iter().any(|v| v == ALL || self.verbs.iter().any(|w| *w == ALL || w == v));
        let groups = or_empty(&rule.api_groups).iter().any(|g: &String| g == ALL || self.groups.contains(&g.as_str()));
        let resources =
            or_empty(&rule.resources).iter().any(|r| self.resources.iter().any(|pattern| resource_meets(r, pattern)));
        verbs && groups && resources
    }
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
mod tests;
