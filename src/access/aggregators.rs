//! Aggregating ClusterRoles that well-known projects install, and who holds
//! each by default: a ClusterRole carrying one of their labels hands its
//! rules to that holder, as one carrying Kubernetes' `aggregate-to-*`
//! labels hands them to whoever holds `admin`, `edit` or `view`.
//!
//! Read from each project's default manifests or chart (the release and
//! namespace each names by default): Crossplane 2.3
//! (`cluster/charts/crossplane`), Kyverno 1.19 (`charts/kyverno`, release
//! `kyverno`), OpenShift's bootstrap policy (`openshift/openshift-apiserver`,
//! `pkg/bootstrappolicy`), Knative Serving 1.23 and Eventing 1.22
//! (`config/core`). cert-manager, Istio, Argo CD and kube-prometheus ship no
//! aggregating role. Kubernetes' own (`admin`, `edit`, `view`) are
//! `model::AggregatingRole`.

/// One project's aggregating ClusterRole: the label that gathers a role
/// into it (with the value `"true"`), its name, and who holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Aggregator {
    /// The label key; its value must be `"true"`.
    pub label: &'static str,
    /// The project that installs the aggregating role.
    pub project: &'static str,
    /// The aggregating ClusterRole's name, as the default install names it.
    pub role: &'static str,
    /// Who holds it by default, as a binding's subject would be said.
    pub holder: &'static str,
}

const fn agg(label: &'static str, project: &'static str, role: &'static str, holder: &'static str) -> Aggregator {
    Aggregator { label, project, role, holder }
}

/// Every aggregating role of the projects above, by the label it gathers.
pub(crate) const AGGREGATORS: &[Aggregator] = &[
    agg("rbac.crossplane.io/aggregate-to-crossplane", "Crossplane", "crossplane", "ServiceAccount crossplane-system/crossplane (Crossplane's core controller)"),
    agg("rbac.crossplane.io/aggregate-to-allowed-provider-permissions", "Crossplane", "crossplane:allowed-provider-permissions", "every Crossplane provider's ServiceAccount (the RBAC manager grants what this role allows)"),
    agg("rbac.crossplane.io/aggregate-to-admin", "Crossplane", "crossplane-admin", "Group crossplane:masters"),
    agg("rbac.crossplane.io/aggregate-to-edit", "Crossplane", "crossplane-edit", "whoever is bound to crossplane-edit"),
    agg("rbac.crossplane.io/aggregate-to-view", "Crossplane", "crossplane-view", "whoever is bound to crossplane-view"),
    agg("rbac.crossplane.io/aggregate-to-browse", "Crossplane", "crossplane-browse", "whoever is bound to crossplane-browse"),
    agg("rbac.kyverno.io/aggregate-to-admission-controller", "Kyverno", "kyverno:admission-controller", "ServiceAccount kyverno/kyverno-admission-controller"),
    agg("rbac.kyverno.io/aggregate-to-background-controller", "Kyverno", "kyverno:background-controller", "ServiceAccount kyverno/kyverno-background-controller (it runs generate and mutate-existing rules)"),
    agg("rbac.kyverno.io/aggregate-to-cleanup-controller", "Kyverno", "kyverno:cleanup-controller", "ServiceAccount kyverno/kyverno-cleanup-controller (it deletes what cleanup policies name)"),
    agg("rbac.kyverno.io/aggregate-to-reports-controller", "Kyverno", "kyverno:reports-controller", "ServiceAccount kyverno/kyverno-reports-controller"),
    agg("rbac.authorization.k8s.io/aggregate-to-cluster-reader", "OpenShift", "cluster-reader", "Group system:cluster-readers"),
    agg("authorization.openshift.io/aggregate-to-basic-user", "OpenShift", "basic-user", "Group system:authenticated (every authenticated user)"),
    agg("storage.openshift.io/aggregate-to-storage-admin", "OpenShift", "storage-admin", "whoever is bound to storage-admin"),
    agg("serving.knative.dev/controller", "Knative Serving", "knative-serving-admin", "ServiceAccount knative-serving/controller"),
    agg("duck.knative.dev/addressable", "Knative", "knative-serving-aggregated-addressable-resolver, addressable-resolver", "ServiceAccounts knative-serving/controller, knative-eventing/eventing-controller, knative-eventing/eventing-webhook and knative-eventing/imc-controller"),
    agg("duck.knative.dev/channelable", "Knative Eventing", "channelable-manipulator", "ServiceAccount knative-eventing/eventing-controller"),
    agg("duck.knative.dev/crossnamespace-subscribable", "Knative Eventing", "crossnamespace-subscriber", "ServiceAccount knative-eventing/eventing-controller"),
    agg("duck.knative.dev/podspecable", "Knative Eventing", "podspecable-binding", "ServiceAccount knative-eventing/eventing-webhook"),
    agg("duck.knative.dev/source", "Knative Eventing", "source-observer", "ServiceAccount knative-eventing/eventing-controller"),
];

/// The aggregating roles a ClusterRole with these labels is gathered into.
pub(crate) fn gathering<'l>(
    labels: impl IntoIterator<Item = (&'l String, &'l String)>,
) -> impl Iterator<Item = (&'l str, &'static Aggregator)> {
    labels
        .into_iter()
        .filter(|(_, v)| v.as_str() == "true")
        .flat_map(|(k, _)| AGGREGATORS.iter().filter(move |a| a.label == k.as_str()).map(move |a| (k.as_str(), a)))
}

/// Whether a label key reads as an aggregation label of some project, known
/// or not: olm-rbac cannot see who a role it does not know gathers for.
pub(crate) fn looks_aggregating(key: &str) -> bool {
    key.contains("aggregate-to")
}
