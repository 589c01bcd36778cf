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

/// Kubernetes kinds a bundle installs, and those its installer writes.
fn kubernetes() -> [(&'static str, &'static str, &'static str, bool); 18] {
    [
        entry::<k8s::core::v1::ConfigMap>(),
        entry::<k8s::core::v1::Secret>(),
        entry::<k8s::core::v1::Service>(),
        entry::<k8s::core::v1::ServiceAccount>(),
        entry::<k8s::core::v1::Namespace>(),
        entry::<k8s::apps::v1::Deployment>(),
        entry::<k8s::rbac::v1::ClusterRole>(),
        entry::<k8s::rbac::v1::ClusterRoleBinding>(),
        entry::<k8s::rbac::v1::Role>(),
        entry::<k8s::rbac::v1::RoleBinding>(),
        entry::<k8s::policy::v1::PodDisruptionBudget>(),
        entry::<k8s::scheduling::v1::PriorityClass>(),
        entry::<k8s::networking::v1::NetworkPolicy>(),
        entry::<k8s::admissionregistration::v1::MutatingWebhookConfiguration>(),
        entry::<k8s::admissionregistration::v1::ValidatingWebhookConfiguration>(),
        entry::<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition>(),
        entry::<k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService>(),
        entry::<k8s::autoscaling::v2::HorizontalPodAutoscaler>(),
    ]
}

/// Operator kinds registry+v1 bundles may ship besides Kubernetes' own.
const OPERATOR_KINDS: [(&str, &str, &str, bool); 8] = [
    ("monitoring.coreos.com", "ServiceMonitor", "servicemonitors", false),
    ("monitoring.coreos.com", "PrometheusRule", "prometheusrules", false),
    ("autoscaling.k8s.io", "VerticalPodAutoscaler", "verticalpodautoscalers", false),
    ("console.openshift.io", "ConsoleYAMLSample", "consoleyamlsamples", true),
    ("console.openshift.io", "ConsoleQuickStart", "consolequickstarts", true),
    ("console.openshift.io", "ConsoleCLIDownload", "consoleclidownloads", true),
    ("console.openshift.io", "ConsoleLink", "consolelinks", true),
    ("console.openshift.io", "ConsolePlugin", "consoleplugins", true),
];

/// The resource of a `kind` in `group`, if known here (custom kinds: see the
/// input's CRDs).
pub(crate) fn resource_of(group: &str, kind: &str) -> Option<ApiResource> {
    kubernetes()
        .into_iter()
        .chain(OPERATOR_KINDS)
        .find(|(g, k, _, _)| *g == group && *k == kind)
        .map(|(group, _, plural, cluster)| ApiResource { group: group.into(), plural: plural.into(), cluster })
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
    }
}
