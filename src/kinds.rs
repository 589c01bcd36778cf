//! Which API resource an object is: the group, plural and scope of the kinds
//! an operator bundle ships, for permissions on them. Kubernetes' own kinds are
//! read from the `k8s-openapi` definitions; a few well-known operator kinds
//! that registry+v1 bundles may carry are listed; custom kinds come from the
//! input's CRDs.

use std::any::TypeId;

use k8s_openapi::api as k8s;
use k8s_openapi::{ClusterResourceScope, Resource};

/// An API resource: `(group, plural)` and whether it is cluster-scoped.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ApiResource {
    pub group: String,
    pub plural: String,
    pub cluster: bool,
}

fn entry<T: Resource>() -> (&'static str, &'static str, &'static str, bool)
where
    T::Scope: 'static,
{
    (T::GROUP, T::KIND, T::URL_PATH_SEGMENT, TypeId::of::<T::Scope>() == TypeId::of::<ClusterResourceScope>())
}

/// Every resource Kubernetes serves in the version this build models (the
/// `k8s-openapi` feature in Cargo.toml), alpha and beta versions included,
/// read from its API definitions. Subresources (scale, eviction, token) are
/// not resources of their own.
fn kubernetes() -> [(&'static str, &'static str, &'static str, bool); 88] {
    [
        entry::<k8s::admissionregistration::v1::MutatingWebhookConfiguration>(),
        entry::<k8s::admissionregistration::v1::ValidatingAdmissionPolicy>(),
        entry::<k8s::admissionregistration::v1::ValidatingAdmissionPolicyBinding>(),
        entry::<k8s::admissionregistration::v1::ValidatingWebhookConfiguration>(),
        entry::<k8s::admissionregistration::v1alpha1::MutatingAdmissionPolicy>(),
        entry::<k8s::admissionregistration::v1alpha1::MutatingAdmissionPolicyBinding>(),
        entry::<k8s::admissionregistration::v1beta1::ValidatingAdmissionPolicy>(),
        entry::<k8s::admissionregistration::v1beta1::ValidatingAdmissionPolicyBinding>(),
        entry::<k8s::apiserverinternal::v1alpha1::StorageVersion>(),
        entry::<k8s::apps::v1::ControllerRevision>(),
        entry::<k8s::apps::v1::DaemonSet>(),
        entry::<k8s::apps::v1::Deployment>(),
        entry::<k8s::apps::v1::ReplicaSet>(),
        entry::<k8s::apps::v1::StatefulSet>(),
        entry::<k8s::authentication::v1::SelfSubjectReview>(),
        entry::<k8s::authentication::v1::TokenReview>(),
        entry::<k8s::authorization::v1::LocalSubjectAccessReview>(),
        entry::<k8s::authorization::v1::SelfSubjectAccessReview>(),
        entry::<k8s::authorization::v1::SelfSubjectRulesReview>(),
        entry::<k8s::authorization::v1::SubjectAccessReview>(),
        entry::<k8s::autoscaling::v1::HorizontalPodAutoscaler>(),
        entry::<k8s::autoscaling::v2::HorizontalPodAutoscaler>(),
        entry::<k8s::batch::v1::CronJob>(),
        entry::<k8s::batch::v1::Job>(),
        entry::<k8s::certificates::v1::CertificateSigningRequest>(),
        entry::<k8s::certificates::v1alpha1::ClusterTrustBundle>(),
        entry::<k8s::certificates::v1beta1::ClusterTrustBundle>(),
        entry::<k8s::coordination::v1::Lease>(),
        entry::<k8s::coordination::v1alpha2::LeaseCandidate>(),
        entry::<k8s::coordination::v1beta1::LeaseCandidate>(),
        entry::<k8s::core::v1::Binding>(),
        entry::<k8s::core::v1::ComponentStatus>(),
        entry::<k8s::core::v1::ConfigMap>(),
        entry::<k8s::core::v1::Endpoints>(),
        entry::<k8s::core::v1::Event>(),
        entry::<k8s::core::v1::LimitRange>(),
        entry::<k8s::core::v1::Namespace>(),
        entry::<k8s::core::v1::Node>(),
        entry::<k8s::core::v1::PersistentVolume>(),
        entry::<k8s::core::v1::PersistentVolumeClaim>(),
        entry::<k8s::core::v1::Pod>(),
        entry::<k8s::core::v1::PodTemplate>(),
        entry::<k8s::core::v1::ReplicationController>(),
        entry::<k8s::core::v1::ResourceQuota>(),
        entry::<k8s::core::v1::Secret>(),
        entry::<k8s::core::v1::Service>(),
        entry::<k8s::core::v1::ServiceAccount>(),
        entry::<k8s::discovery::v1::EndpointSlice>(),
        entry::<k8s::events::v1::Event>(),
        entry::<k8s::flowcontrol::v1::FlowSchema>(),
        entry::<k8s::flowcontrol::v1::PriorityLevelConfiguration>(),
        entry::<k8s::networking::v1::Ingress>(),
        entry::<k8s::networking::v1::IngressClass>(),
        entry::<k8s::networking::v1::IPAddress>(),
        entry::<k8s::networking::v1::NetworkPolicy>(),
        entry::<k8s::networking::v1::ServiceCIDR>(),
        entry::<k8s::networking::v1beta1::IPAddress>(),
        entry::<k8s::networking::v1beta1::ServiceCIDR>(),
        entry::<k8s::node::v1::RuntimeClass>(),
        entry::<k8s::policy::v1::PodDisruptionBudget>(),
        entry::<k8s::rbac::v1::ClusterRole>(),
        entry::<k8s::rbac::v1::ClusterRoleBinding>(),
        entry::<k8s::rbac::v1::Role>(),
        entry::<k8s::rbac::v1::RoleBinding>(),
        entry::<k8s::resource::v1alpha3::DeviceClass>(),
        entry::<k8s::resource::v1alpha3::DeviceTaintRule>(),
        entry::<k8s::resource::v1alpha3::ResourceClaim>(),
        entry::<k8s::resource::v1alpha3::ResourceClaimTemplate>(),
        entry::<k8s::resource::v1alpha3::ResourceSlice>(),
        entry::<k8s::resource::v1beta1::DeviceClass>(),
        entry::<k8s::resource::v1beta1::ResourceClaim>(),
        entry::<k8s::resource::v1beta1::ResourceClaimTemplate>(),
        entry::<k8s::resource::v1beta1::ResourceSlice>(),
        entry::<k8s::resource::v1beta2::DeviceClass>(),
        entry::<k8s::resource::v1beta2::ResourceClaim>(),
        entry::<k8s::resource::v1beta2::ResourceClaimTemplate>(),
        entry::<k8s::resource::v1beta2::ResourceSlice>(),
        entry::<k8s::scheduling::v1::PriorityClass>(),
        entry::<k8s::storage::v1::CSIDriver>(),
        entry::<k8s::storage::v1::CSINode>(),
        entry::<k8s::storage::v1::CSIStorageCapacity>(),
        entry::<k8s::storage::v1::StorageClass>(),
        entry::<k8s::storage::v1::VolumeAttachment>(),
        entry::<k8s::storage::v1alpha1::VolumeAttributesClass>(),
        entry::<k8s::storage::v1beta1::VolumeAttributesClass>(),
        entry::<k8s::storagemigration::v1alpha1::StorageVersionMigration>(),
        entry::<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition>(),
        entry::<k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService>(),
    ]
}

/// Operator kinds registry+v1 bundles may ship besides Kubernetes' own, and
/// OLM's own (v0 and v1).
const OPERATOR_KINDS: [(&str, &str, &str, bool); 16] = [
    ("olm.operatorframework.io", "ClusterExtension", "clusterextensions", true),
    ("olm.operatorframework.io", "ClusterCatalog", "clustercatalogs", true),
    ("operators.coreos.com", "ClusterServiceVersion", "clusterserviceversions", false),
    ("operators.coreos.com", "Subscription", "subscriptions", false),
    ("operators.coreos.com", "OperatorGroup", "operatorgroups", false),
    ("operators.coreos.com", "InstallPlan", "installplans", false),
    ("operators.coreos.com", "CatalogSource", "catalogsources", false),
    ("packages.operators.coreos.com", "PackageManifest", "packagemanifests", false),
    ("monitoring.coreos.com", "ServiceMonitor", "servicemonitors", false),
    ("monitoring.coreos.com", "PrometheusRule", "prometheusrules", false),
    ("autoscaling.k8s.io", "VerticalPodAutoscaler", "verticalpodautoscalers", false),
    ("console.openshift.io", "ConsoleYAMLSample", "consoleyamlsamples", true),
    ("console.openshift.io", "ConsoleQuickStart", "consolequickstarts", true),
    ("console.openshift.io", "ConsoleCLIDownload", "consoleclidownloads", true),
    ("console.openshift.io", "ConsoleLink", "consolelinks", true),
    ("console.openshift.io", "ConsolePlugin", "consoleplugins", true),
];

/// The short names the API server's discovery gives each resource that has
/// some (`kubectl api-resources`, SHORTNAMES), as `(group, plural, names)`:
/// Kubernetes 1.33's own, and those the operator kinds' CRDs declare.
const SHORT_NAMES: [(&str, &str, &[&str]); 38] = [
    ("", "componentstatuses", &["cs"]),
    ("", "configmaps", &["cm"]),
    ("", "endpoints", &["ep"]),
    ("", "events", &["ev"]),
    ("", "limitranges", &["limits"]),
    ("", "namespaces", &["ns"]),
    ("", "nodes", &["no"]),
    ("", "persistentvolumeclaims", &["pvc"]),
    ("", "persistentvolumes", &["pv"]),
    ("", "pods", &["po"]),
    ("", "replicationcontrollers", &["rc"]),
    ("", "resourcequotas", &["quota"]),
    ("", "serviceaccounts", &["sa"]),
    ("", "services", &["svc"]),
    ("apiextensions.k8s.io", "customresourcedefinitions", &["crd", "crds"]),
    ("apps", "daemonsets", &["ds"]),
    ("apps", "deployments", &["deploy"]),
    ("apps", "replicasets", &["rs"]),
    ("apps", "statefulsets", &["sts"]),
    ("autoscaling", "horizontalpodautoscalers", &["hpa"]),
    ("batch", "cronjobs", &["cj"]),
    ("certificates.k8s.io", "certificatesigningrequests", &["csr"]),
    ("events.k8s.io", "events", &["ev"]),
    ("networking.k8s.io", "ingresses", &["ing"]),
    ("networking.k8s.io", "ipaddresses", &["ip"]),
    ("networking.k8s.io", "networkpolicies", &["netpol"]),
    ("policy", "poddisruptionbudgets", &["pdb"]),
    ("scheduling.k8s.io", "priorityclasses", &["pc"]),
    ("storage.k8s.io", "storageclasses", &["sc"]),
    ("storage.k8s.io", "volumeattributesclasses", &["vac"]),
    ("operators.coreos.com", "clusterserviceversions", &["csv", "csvs"]),
    ("operators.coreos.com", "subscriptions", &["sub", "subs"]),
    ("operators.coreos.com", "installplans", &["ip"]),
    ("operators.coreos.com", "operatorgroups", &["og"]),
    ("operators.coreos.com", "catalogsources", &["catsrc"]),
    ("monitoring.coreos.com", "servicemonitors", &["smon"]),
    ("monitoring.coreos.com", "prometheusrules", &["promrule"]),
    ("autoscaling.k8s.io", "verticalpodautoscalers", &["vpa"]),
];

/// How a user may name a resource besides its plural: its kind, its singular
/// (for Kubernetes' own resources and these operator kinds, the kind in lower
/// case, as discovery gives it) and its short names; and whether it is one of
/// Kubernetes' own (which kubectl prefers over a CRD's of the same name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResourceNames {
    pub kind: String,
    pub singular: String,
    pub short: Vec<String>,
    pub kubernetes: bool,
}

/// Every resource known here, once each (the first version that defines it).
pub(crate) fn known_resources() -> impl Iterator<Item = ApiResource> {
    known_named().map(|(resource, _)| resource)
}

/// [`known_resources`], each with the names a user may call it by.
pub(crate) fn known_named() -> impl Iterator<Item = (ApiResource, ResourceNames)> {
    let mut seen = std::collections::BTreeSet::new();
    let own = kubernetes().into_iter().map(|entry| (entry, true));
    own.chain(OPERATOR_KINDS.into_iter().map(|entry| (entry, false)))
        .filter(move |((g, _, p, _), _)| seen.insert((*g, *p)))
        .map(|((group, kind, plural, cluster), kubernetes)| {
            let short = SHORT_NAMES
                .iter()
                .filter(|(g, p, _)| *g == group && *p == plural)
                .flat_map(|(_, _, names)| names.iter().map(|n| n.to_string()))
                .collect();
            let names = ResourceNames { kind: kind.into(), singular: kind.to_lowercase(), short, kubernetes };
            (ApiResource { group: group.into(), plural: plural.into(), cluster }, names)
        })
}

/// The resource `plural` in `group`, if known here (custom resources: see
/// the input's CRDs).
pub(crate) fn resource(group: &str, plural: &str) -> Option<ApiResource> {
    known_resources().find(|r| r.group == group && r.plural == plural)
}

/// The resource of a `kind` in `group`, if known here (custom kinds: see the
/// input's CRDs).
pub(crate) fn resource_of(group: &str, kind: &str) -> Option<ApiResource> {
    kubernetes()
        .into_iter()
        .chain(OPERATOR_KINDS)
        .find(|(g, k, _, _)| *g == group && *k == kind)
        .map(|(group, _, plural, cluster)| ApiResource { group: group.into(), plural: plural.into(), cluster })
}

/// The kinds a registry+v1 bundle may hold, as operator-registry lists them
/// (`pkg/lib/bundle/supported_resources.go`, v1.73.0, which operator-controller
/// builds with): OLM refuses a bundle holding any other kind
/// (operator-controller's `CheckObjectSupport`). Read by kind alone, as OLM
/// reads it, whatever the group.
const REGISTRY_V1_KINDS: [(&str, &str); 22] = [
    ("operators.coreos.com", "ClusterServiceVersion"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("", "Secret"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("", "ConfigMap"),
    ("", "ServiceAccount"),
    ("", "Service"),
    ("rbac.authorization.k8s.io", "Role"),
    ("rbac.authorization.k8s.io", "RoleBinding"),
    ("monitoring.coreos.com", "PrometheusRule"),
    ("monitoring.coreos.com", "ServiceMonitor"),
    ("policy", "PodDisruptionBudget"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("autoscaling.k8s.io", "VerticalPodAutoscaler"),
    ("console.openshift.io", "ConsoleYAMLSample"),
    ("console.openshift.io", "ConsoleQuickStart"),
    ("console.openshift.io", "ConsoleCLIDownload"),
    ("console.openshift.io", "ConsoleLink"),
    ("console.openshift.io", "ConsolePlugin"),
    ("networking.k8s.io", "NetworkPolicy"),
    ("monitoring.coreos.com", "PodMonitor"),
];

/// Whether a registry+v1 bundle may hold an object of `kind`. OLM reads the
/// kind alone, so a listed kind of any group passes its check.
pub(crate) fn registry_v1_holds(kind: &str) -> bool {
    REGISTRY_V1_KINDS.iter().any(|(_, k)| *k == kind)
}

/// The group a kind registry+v1 holds is served in, where `kind` is one:
/// OLM v0 installs such an object by its kind alone (a `ClusterRoleBinding`
/// of any group becomes an RBAC binding), and OLM v1 applies it in the group
/// written, where another API (OpenShift's `authorization.openshift.io`)
/// may turn it into RBAC too; olm-rbac judges only the group it names.
pub(crate) fn registry_v1_group(kind: &str) -> Option<&'static str> {
    REGISTRY_V1_KINDS.iter().find(|(_, k)| *k == kind).map(|(g, _)| *g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubernetes_kinds_carry_their_plural_and_scope() {
        let r = |g: &str, k: &str| resource_of(g, k).map(|r| (r.plural, r.cluster));
        assert_eq!(r("", "ConfigMap"), Some(("configmaps".into(), false)));
        assert_eq!(r("apps", "Deployment"), Some(("deployments".into(), false)));
        assert_eq!(r("rbac.authorization.k8s.io", "ClusterRole"), Some(("clusterroles".into(), true)));
        assert_eq!(
            r("apiextensions.k8s.io", "CustomResourceDefinition"),
            Some(("customresourcedefinitions".into(), true))
        );
        assert_eq!(r("scheduling.k8s.io", "PriorityClass"), Some(("priorityclasses".into(), true)));
        assert_eq!(r("monitoring.coreos.com", "ServiceMonitor"), Some(("servicemonitors".into(), false)));
        assert_eq!(r("apps", "ConfigMap"), None, "the group is part of the kind");
        assert_eq!(r("admissionregistration.k8s.io", "MutatingAdmissionPolicy").map(|r| r.1), Some(true));
        assert_eq!(r("olm.operatorframework.io", "ClusterExtension").map(|r| r.1), Some(true));
        let scope = |g: &str, p: &str| resource(g, p).map(|r| r.cluster);
        assert_eq!(
            (scope("", "nodes"), scope("", "pods"), scope("", "bindings")),
            (Some(true), Some(false), Some(false))
        );
        assert_eq!(scope("autoscaling", "scale"), None, "a subresource is not a resource");
        let all: Vec<ApiResource> = known_resources().collect();
        let pairs: std::collections::BTreeSet<(&str, &str)> =
            all.iter().map(|r| (r.group.as_str(), r.plural.as_str())).collect();
        assert_eq!(pairs.len(), all.len(), "once each");
    }

    #[test]
    fn every_short_name_is_of_a_known_resource_and_singulars_are_lower_case_kinds() {
        let named: Vec<(ApiResource, ResourceNames)> = known_named().collect();
        for (group, plural, _) in &SHORT_NAMES {
            assert!(named.iter().any(|(r, _)| r.group == *group && r.plural == *plural), "{plural}.{group}");
        }
        let names =
            |g: &str, p: &str| named.iter().find(|(r, _)| r.group == g && r.plural == p).map(|(_, n)| n.clone());
        let deployments = names("apps", "deployments").unwrap();
        assert_eq!((deployments.kind.as_str(), deployments.singular.as_str()), ("Deployment", "deployment"));
        assert_eq!((deployments.short.clone(), deployments.kubernetes), (vec!["deploy".to_string()], true));
        let csv = names("operators.coreos.com", "clusterserviceversions").unwrap();
        assert_eq!((csv.short, csv.kubernetes), (vec!["csv".to_string(), "csvs".to_string()], false));
        assert_eq!(names("", "pods").unwrap().short, ["po"]);
    }
}
