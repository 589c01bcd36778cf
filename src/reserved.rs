//! What the platform owns: API groups it serves itself, and role names it
//! reserves. A bundle may not claim either; see `docs/security.md`.

use k8s_openapi::api as k8s;
use k8s_openapi::Resource;

/// Why a group is reserved, which decides whether a config may opt in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// Built into Kubernetes: never grantable through olm-rbac.
    Kubernetes,
    /// OpenShift's platform APIs: never grantable through olm-rbac.
    OpenShift,
    /// OLM's own APIs: grantable only with `spec.allowOLMGroups`, since OLM's
    /// own bundle owns them and rights on them let users install operators.
    Olm,
}

impl Owner {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Owner::Kubernetes => "an API group built into Kubernetes",
            Owner::OpenShift => "an OpenShift platform API group",
            Owner::Olm => "an API group of OLM itself",
        }
    }
}

fn group<T: Resource>() -> &'static str {
    T::GROUP
}

/// The API groups built into Kubernetes, read from the API definitions of the
/// `k8s-openapi` version this build uses (one type per group), plus groups
/// that Kubernetes served in earlier releases or that its own projects define
/// for aggregated servers. A test checks that every group of those
/// definitions is here, so a dependency update cannot leave one out.
pub(crate) fn kubernetes_groups() -> Vec<&'static str> {
    let mut groups = vec![
        group::<k8s::core::v1::Pod>(),
        group::<k8s::admissionregistration::v1::ValidatingWebhookConfiguration>(),
        group::<k8s::apiserverinternal::v1alpha1::StorageVersion>(),
        group::<k8s::apps::v1::Deployment>(),
        group::<k8s::authentication::v1::TokenReview>(),
        group::<k8s::authorization::v1::SubjectAccessReview>(),
        group::<k8s::autoscaling::v2::HorizontalPodAutoscaler>(),
        group::<k8s::batch::v1::Job>(),
        group::<k8s::certificates::v1::CertificateSigningRequest>(),
        group::<k8s::coordination::v1::Lease>(),
        group::<k8s::discovery::v1::EndpointSlice>(),
        group::<k8s::events::v1::Event>(),
        group::<k8s::flowcontrol::v1::FlowSchema>(),
        group::<k8s::networking::v1::Ingress>(),
        group::<k8s::node::v1::RuntimeClass>(),
        group::<k8s::policy::v1::PodDisruptionBudget>(),
        group::<k8s::rbac::v1::ClusterRole>(),
        group::<k8s::resource::v1beta2::ResourceClaim>(),
        group::<k8s::scheduling::v1::PriorityClass>(),
        group::<k8s::storage::v1::StorageClass>(),
        group::<k8s::storagemigration::v1alpha1::StorageVersionMigration>(),
        group::<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition>(),
        group::<k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService>(),
    ];
    groups.extend(KUBERNETES_EXTRA);
    groups
}

/// Kubernetes groups the API definitions above do not carry: retired built-in
/// groups, groups of later releases, and the resource-metrics API that the
/// platform's metrics server serves. The custom and external metrics APIs are
/// not here: adapters installed as operators (KEDA, prometheus-adapter) serve
/// them as their own.
const KUBERNETES_EXTRA: [&str; 7] = [
    "extensions",
    "settings.k8s.io",
    "auditregistration.k8s.io",
    "imagepolicy.k8s.io",
    "metrics.k8s.io",
    "lifecycle.k8s.io",
    "checkpoint.k8s.io",
];

/// OpenShift's platform API groups: every group OpenShift's API repository
/// defines (served by its API servers, installed as CRDs with the cluster, or
/// used in its configuration files), those it removed, and the groups of
/// cluster operators outside that repository. Operators installed through OLM
/// own other `*.openshift.io` groups (`hive.openshift.io`, `oadp.openshift.io`,
/// `local.storage.openshift.io`, ...): those are not reserved.
/// `operator.openshift.io` is reserved resource by resource instead, see
/// [`OPENSHIFT_OPERATOR_RESOURCES`].
pub(crate) const OPENSHIFT_GROUPS: [&str; 42] = [
    // Served by openshift-apiserver and oauth-apiserver.
    "apps.openshift.io",
    "authorization.openshift.io",
    "build.openshift.io",
    "image.openshift.io",
    "oauth.openshift.io",
    "project.openshift.io",
    "quota.openshift.io",
    "route.openshift.io",
    "security.openshift.io",
    "template.openshift.io",
    "user.openshift.io",
    // Installed as CRDs with the cluster.
    "apiextensions.openshift.io",
    "apiserver.openshift.io",
    "cloud.network.openshift.io",
    "config.openshift.io",
    "controlplane.operator.openshift.io",
    "etcd.openshift.io",
    "helm.openshift.io",
    "imageregistry.operator.openshift.io",
    "ingress.operator.openshift.io",
    "insights.openshift.io",
    "machine.openshift.io",
    "machineconfiguration.openshift.io",
    "monitoring.openshift.io",
    "network.openshift.io",
    "network.operator.openshift.io",
    "samples.operator.openshift.io",
    "security.internal.openshift.io",
    "sharedresource.openshift.io",
    "unidling.openshift.io",
    // Configuration-file groups, never served, and removed groups.
    "kubecontrolplane.config.openshift.io",
    "legacy.config.openshift.io",
    "openshiftcontrolplane.config.openshift.io",
    "osin.config.openshift.io",
    "servicecertsigner.config.openshift.io",
    "platform.openshift.io",
    "webconsole.config.openshift.io",
    "webconsole.openshift.io",
    // Cluster operators whose APIs live outside the API repository.
    "autoscaling.openshift.io",
    "cloudcredential.openshift.io",
    "tuned.openshift.io",
    "performance.openshift.io",
];

/// The platform's resources in `operator.openshift.io`. Operators installed
/// through OLM own other resources in that group (the cert-manager, descheduler
/// and secondary-scheduler operators), so the group is reserved resource by
/// resource.
pub(crate) const OPENSHIFT_OPERATOR_RESOURCES: [&str; 26] = [
    "authentications",
    "cloudcredentials",
    "clusterapis",
    "clustercsidrivers",
    "clusterversionoperators",
    "configs",
    "consoles",
    "csisnapshotcontrollers",
    "dnses",
    "etcdbackups",
    "etcds",
    "imagecontentsourcepolicies",
    "ingresscontrollers",
    "ingresses",
    "insightsoperators",
    "kubeapiservers",
    "kubecontrollermanagers",
    "kubeschedulers",
    "kubestorageversionmigrators",
    "machineconfigurations",
    "networks",
    "olms",
    "openshiftapiservers",
    "openshiftcontrollermanagers",
    "servicecas",
    "storages",
];

/// The platform's resources in `console.openshift.io` (openshift/api,
/// `console/v1`). Operators add their own console resources there
/// (opendatahub-operator ships `odhquickstarts`), so the group is reserved
/// resource by resource, as `operator.openshift.io` is.
pub(crate) const OPENSHIFT_CONSOLE_RESOURCES: [&str; 9] = [
    "consoleclidownloads",
    "consolecustomizations",
    "consoleexternalloglinks",
    "consolelinks",
    "consolenotifications",
    "consoleplugins",
    "consolequickstarts",
    "consolesamples",
    "consoleyamlsamples",
];

/// The groups the platform shares with operators: it reserves its own
/// resources there, not the group.
const SHARED_GROUPS: [(&str, &[&str]); 2] =
    [("operator.openshift.io", &OPENSHIFT_OPERATOR_RESOURCES), ("console.openshift.io", &OPENSHIFT_CONSOLE_RESOURCES)];

/// OLM's own API groups, v0 and v1, including the groups earlier releases
/// served.
pub(crate) const OLM_GROUPS: [&str; 8] = [
    "operators.coreos.com",
    "packages.operators.coreos.com",
    "olm.operatorframework.io",
    "catalogd.operatorframework.io",
    "operators.operatorframework.io",
    "core.rukpak.io",
    "packages.apps.redhat.com",
    "app.coreos.com",
];

/// Who owns the API `plural` in `group`, if the platform does: the whole
/// group, or, in a group it shares with operators, its own resources.
pub fn owner_of(group: &str, plural: &str) -> Option<Owner> {
    match SHARED_GROUPS.iter().find(|(g, _)| *g == group) {
        Some((_, platforms)) => platforms.contains(&plural).then_some(Owner::OpenShift),
        None => owner(group),
    }
}

/// Who serves any resource of `group`, if the platform does: what routing
/// the whole group elsewhere (an APIService) would take from it.
pub(crate) fn serves_in(group: &str) -> Option<Owner> {
    owner(group).or_else(|| SHARED_GROUPS.iter().any(|(g, _)| *g == group).then_some(Owner::OpenShift))
}

/// Who owns all of `group`, if the platform does.
pub(crate) fn owner(group: &str) -> Option<Owner> {
    if kubernetes_groups().contains(&group) {
        Some(Owner::Kubernetes)
    } else if OPENSHIFT_GROUPS.contains(&group) {
        Some(Owner::OpenShift)
    } else if OLM_GROUPS.contains(&group) {
        Some(Owner::Olm)
    } else {
        None
    }
}

/// Role names Kubernetes reserves for its bootstrap roles: a bundle role with
/// one of these names replaces a built-in role when applied, so olm-rbac never
/// adopts, binds or relabels it.
pub(crate) fn is_reserved_role_name(name: &str) -> bool {
    matches!(name, "cluster-admin" | "admin" | "edit" | "view") || name.starts_with("system:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubernetes_groups_include_the_core_group_and_the_rbac_group() {
        let groups = kubernetes_groups();
        for g in ["", "apps", "batch", "rbac.authorization.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io"] {
            assert!(groups.contains(&g), "{g:?}");
        }
        assert_eq!(owner("extensions"), Some(Owner::Kubernetes));
        assert_eq!(owner("operators.coreos.com"), Some(Owner::Olm));
        for custom in [
            "argoproj.io",
            "gateway.networking.k8s.io",
            "app.k8s.io",
            "externaldns.k8s.io",
            "cluster.x-k8s.io",
            "hive.openshift.io",
            "oadp.openshift.io",
            "external.metrics.k8s.io",
        ] {
            assert_eq!(owner(custom), None, "{custom} belongs to whoever defines it");
        }
        assert_eq!(owner("route.openshift.io"), Some(Owner::OpenShift));
        assert_eq!(owner_of("operator.openshift.io", "olms"), Some(Owner::OpenShift));
        assert_eq!(owner_of("operator.openshift.io", "certmanagers"), None, "an OLM operator's own API");
    }

    /// Every group in the API definitions this build compiles is in the list:
    /// reads the `k8s-openapi` sources that cargo resolved for this build.
    #[test]
    fn every_group_of_the_kubernetes_api_definitions_is_reserved() {
        let dir = k8s_openapi_sources().expect("cargo metadata names the k8s-openapi sources of this build");
        let mut found = std::collections::BTreeSet::new();
        let mut stack = vec![dir];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap().flatten() {
                let p = entry.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Ok(text) = std::fs::read_to_string(&p) {
                    for line in text.lines() {
                        if let Some(rest) = line.trim().strip_prefix("const GROUP: &'static str = \"") {
                            found.insert(rest.trim_end_matches("\";").to_string());
                        }
                    }
                }
            }
        }
        assert!(found.len() > 15, "read too few groups: {found:?}");
        let ours = kubernetes_groups();
        let missing: Vec<&String> = found.iter().filter(|g| !ours.contains(&g.as_str())).collect();
        assert!(missing.is_empty(), "add these groups to kubernetes_groups(): {missing:?}");
    }

    /// `src/v1_NN/` of the k8s-openapi package this build uses, for the
    /// Kubernetes version feature enabled in Cargo.toml.
    fn k8s_openapi_sources() -> Option<std::path::PathBuf> {
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let cargo_toml = std::fs::read_to_string(&manifest).ok()?;
        let feature = cargo_toml.lines().find(|l| l.starts_with("k8s-openapi"))?;
        let version_feature = feature.split('"').find(|s| s.starts_with("v1_"))?.to_string();
        let rustc = std::process::Command::new("rustc").arg("-vV").output().ok()?;
        let host = String::from_utf8_lossy(&rustc.stdout).lines().find_map(|l| l.strip_prefix("host: "))?.to_string();
        let out = std::process::Command::new(env!("CARGO"))
            .args(["metadata", "--format-version", "1", "--offline", "--filter-platform", &host, "--manifest-path"])
            .arg(&manifest)
            .output()
            .ok()?;
        let meta: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
        let pkg = meta["packages"].as_array()?.iter().find(|p| p["name"] == "k8s-openapi")?;
        let dir = std::path::Path::new(pkg["manifest_path"].as_str()?).parent()?.join("src").join(version_feature);
        dir.is_dir().then_some(dir)
    }
}
