//! The catalogue itself: each entry's permission sets, level and why, in the
//! order docs/dangerous-permissions.md lists them.

use super::severity::Severity;
use crate::access::matches::ALL;
use crate::access::Request;

/// A permission well known to let its holder escalate or reach beyond its job.
pub struct Danger {
    /// Its stable kebab-case id, one per entry: what a result names it by
    /// (its code is `danger-<id>`), so that a user can accept or suppress one
    /// kind of grant and not every other.
    pub id: &'static str,
    /// Short name used in messages, e.g. "escalate on roles".
    pub what: &'static str,
    /// Why it is dangerous, one sentence, for docs and `report`.
    pub why: &'static str,
    /// How much it gives its holder: the worst of what its permissions allow.
    pub severity: Severity,
    /// The permissions, as sets; none means the wildcard entry, which looks for `*`.
    pub(super) sets: &'static [PermissionSet],
    /// Dangerous only when granted in every namespace.
    pub(super) cluster_only: bool,
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
pub(super) struct PermissionSet {
    pub(super) groups: &'static [&'static str],
    pub(super) resources: &'static [&'static str],
    pub(super) verbs: &'static [&'static str],
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

pub(super) const CATALOGUE: &[Danger] = &[
    Danger {
        id: "wildcard",
        what: "wildcard verbs or resources",
        why: "`*` grants every verb or resource, including those added to the cluster later.",
        severity: Severity::Medium,
        sets: &[],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "read-secrets",
        what: "read secrets cluster-wide",
        why: "get, list or watch on secrets in every namespace reveals every credential in the cluster, service account tokens included.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["secrets"], READ)],
        cluster_only: true,
        deputy: None,
    },
    Danger {
        id: "write-secrets",
        what: "write secrets cluster-wide",
        why: "creating or changing secrets in every namespace replaces other workloads' keys and credentials, and a bootstrap token or service account token secret it creates is honoured by the control plane.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["secrets"], CREATE_OR_CHANGE)],
        cluster_only: true,
        deputy: None,
    },
    Danger {
        id: "create-workloads",
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
        id: "exec-pods",
        what: "exec, attach or port-forward into pods",
        why: "a shell in another workload's container gets its service account, secrets and network position.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["pods/exec", "pods/attach", "pods/portforward"], &["create", "get"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "ephemeral-containers",
        what: "add ephemeral containers to pods",
        why: "an ephemeral container added to a running pod runs the holder's image and command in it, with its service account and volumes: exec by another name.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["pods/ephemeralcontainers"], &["update", "patch"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "persistent-volumes",
        what: "create persistent volumes",
        why: "a hostPath persistent volume gives access to the node's file system.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["persistentvolumes"], &["create"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "nodes-proxy",
        what: "nodes/proxy",
        why: "any verb on nodes/proxy, get included, reaches the kubelet API, which runs commands in every pod on the node and bypasses audit and admission.",
        severity: Severity::Critical,
        sets: &[any_of(&[""], &["nodes/proxy"], &[ALL])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "escalate",
        what: "escalate on roles",
        why: "escalate lets the holder write roles granting more than it holds.",
        severity: Severity::Critical,
        sets: &[any_of(&[RBAC], &["roles", "clusterroles"], &["escalate"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "bind",
        what: "bind roles",
        why: "bind lets the holder bind roles granting more than it holds, to anyone.",
        severity: Severity::Critical,
        sets: &[any_of(&[RBAC], &["roles", "clusterroles"], &["bind"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "write-cluster-rbac",
        what: "write cluster roles or their bindings",
        why: "writing ClusterRoles or ClusterRoleBindings changes who may do what in the whole cluster (within what the writer holds, unless it may also escalate or bind).",
        severity: Severity::Medium,
        sets: &[any_of(&[RBAC], &["clusterroles", "clusterrolebindings"], WRITE)],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "impersonate",
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
        id: "service-account-tokens",
        what: "request service account tokens",
        why: "creating serviceaccounts/token issues tokens for existing service accounts, with their rights.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["serviceaccounts/token"], &["create"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "certificates",
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
        id: "admission-webhooks",
        what: "write admission webhooks",
        why: "an admission webhook can be sent every object admitted to the cluster, and a mutating one can change them; deleting one removes a policy.",
        severity: Severity::Critical,
        sets: &[any_of(&[ADMISSION], &["mutatingwebhookconfigurations", "validatingwebhookconfigurations"], WRITE)],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "mutating-policies",
        what: "write mutating admission policies",
        why: "a mutating admission policy rewrites any object admitted to the cluster, pods and their service accounts included, inside the API server.",
        severity: Severity::Critical,
        sets: &[any_of(&[ADMISSION], &["mutatingadmissionpolicies", "mutatingadmissionpolicybindings"], WRITE)],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "validating-policies",
        what: "write validating admission policies",
        why: "a validating admission policy can refuse any request in the cluster, and changing or deleting one removes a safeguard.",
        severity: Severity::Medium,
        sets: &[any_of(&[ADMISSION], &["validatingadmissionpolicies", "validatingadmissionpolicybindings"], WRITE)],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "api-services",
        what: "write API services",
        why: "an APIService routes a whole API group and version, built-in ones included, to a service of the writer's choosing, which then sees and answers every request for it.",
        severity: Severity::Critical,
        sets: &[any_of(&["apiregistration.k8s.io"], &["apiservices"], WRITE)],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "crds",
        what: "write custom resource definitions",
        why: "writing CRDs can replace or delete any custom API in the cluster, other operators' included, with their data, or send its objects to a conversion webhook of the writer's choosing.",
        severity: Severity::High,
        sets: &[any_of(&["apiextensions.k8s.io"], &["customresourcedefinitions"], WRITE)],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "install-operators",
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
        id: "operator-catalogs",
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
        id: "gitops-deploy",
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
        id: "policy-engines",
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
        id: "gitops-sources",
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
        id: "intercept-traffic",
        what: "intercept service traffic",
        why: "a Service's status sets a LoadBalancer's ingress address, and every node's proxy then sends traffic for that address, from any pod or node, to the Service's endpoints (CVE-2020-8554): the holder takes traffic meant for others. olm-rbac also counts a bundle Service's externalIPs, which do the same, as this.",
        severity: Severity::High,
        sets: &[any_of(&[""], &["services/status"], &["update", "patch"])],
        cluster_only: false,
        deputy: None,
    },
    Danger {
        id: "modify-namespaces",
        what: "modify namespaces",
        why: "changing a namespace's labels (its status and finalize subresources carry them too) can lower its Pod Security Admission level or take it out of network policies.",
        severity: Severity::Medium,
        sets: &[any_of(&[""], &["namespaces", "namespaces/status", "namespaces/finalize"], &["update", "patch"])],
        cluster_only: false,
        deputy: None,
    },
];
