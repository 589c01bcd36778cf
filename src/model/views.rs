//! The typed views: the few fields of CRDs, CSVs, roles and bindings the core
//! reads, each from an item's own text.

use super::*;

/// The parts of a CustomResourceDefinition (v1 or v1beta1) the core reads.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CrdView {
    /// As written: the API server defaults `spec` by it ([`CrdView::scope`]).
    #[serde(default, rename = "apiVersion", deserialize_with = "text")]
    pub api_version: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub spec: CrdSpec,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CrdSpec {
    pub group: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub names: CrdNames,
    pub scope: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub versions: Vec<CrdVersion>,
    /// `apiextensions.k8s.io/v1beta1` only.
    pub version: Option<String>,
}

/// Where a CRD's objects live: in a namespace, or cluster-wide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CrdScope {
    Namespaced,
    Cluster,
}

impl CrdView {
    /// The scope the API server gives the CRD's resource, or why it refuses
    /// `spec.scope`: the one reading of the field. `Cluster` and `Namespaced`
    /// as written (case counts); empty or missing is `Namespaced` in
    /// `apiextensions.k8s.io/v1beta1`, whose defaulting fills it in
    /// (`SetDefaults_CustomResourceDefinitionSpec`), and refused in any other
    /// version, which has no such default and requires the field.
    pub(crate) fn scope(&self) -> Result<CrdScope, String> {
        match self.spec.scope.as_deref().unwrap_or_default() {
            "Cluster" => Ok(CrdScope::Cluster),
            "Namespaced" => Ok(CrdScope::Namespaced),
            "" if self.is_v1beta1() => Ok(CrdScope::Namespaced),
            "" => Err(format!(
                "is {}: the API server requires Cluster or Namespaced in {} (only apiextensions.k8s.io/v1beta1 defaulted it to Namespaced)",
                if self.spec.scope.is_some() { "empty" } else { "missing" },
                self.api_version.as_deref().unwrap_or("this apiVersion")
            )),
            other => Err(format!("{other:?} is not a scope: the API server takes Cluster or Namespaced, written so")),
        }
    }

    /// Whether the CRD's resource is cluster-scoped ([`CrdView::scope`]); a
    /// scope the API server refuses counts as namespaced, and is refused
    /// where the CRD is checked (`plan::discover`).
    pub(crate) fn cluster_scoped(&self) -> bool {
        self.scope() == Ok(CrdScope::Cluster)
    }

    /// Whether it is written as `apiextensions.k8s.io/v1beta1`, the version
    /// API servers stopped serving in Kubernetes 1.22.
    pub(crate) fn is_v1beta1(&self) -> bool {
        self.api_version.as_deref().and_then(ApiVersion::parse).map(|v| (v.group, v.version))
            == Some(("apiextensions.k8s.io", "v1beta1"))
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CrdNames {
    pub plural: Option<String>,
    pub kind: Option<String>,
    /// How else kubectl lets a user name the resource (`can-i`, `who-can`).
    pub singular: Option<String>,
    #[serde(default, rename = "shortNames", deserialize_with = "nullable")]
    pub short_names: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CrdVersion {
    pub name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub storage: bool,
}

/// The parts of a ClusterServiceVersion the core reads.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CsvView {
    #[serde(default, deserialize_with = "nullable")]
    pub spec: CsvSpec,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CsvSpec {
    #[serde(default, deserialize_with = "nullable")]
    pub customresourcedefinitions: Owned<OwnedCrd>,
    #[serde(default, deserialize_with = "nullable")]
    pub apiservicedefinitions: Owned<OwnedApiService>,
    /// What the operator itself is granted, and how it runs.
    #[serde(default, deserialize_with = "nullable")]
    pub install: CsvInstall,
    #[serde(default, rename = "installModes", deserialize_with = "nullable")]
    pub install_modes: Vec<InstallModeView>,
    /// The bundle's version; `None` when missing or not a string.
    #[serde(default, deserialize_with = "text")]
    pub version: Option<String>,
    /// The admission and conversion webhooks OLM writes for the operator.
    #[serde(default, deserialize_with = "nullable")]
    pub webhookdefinitions: Vec<WebhookView>,
}

impl CsvSpec {
    /// Whether it declares the install mode supported, as OLM reads
    /// `installModes` (`type` as written, `supported: true`).
    pub(crate) fn supports(&self, mode: InstallMode) -> bool {
        self.install_modes.iter().any(|m| m.supported && m.mode.as_deref() == Some(mode.as_str()))
    }
}

/// One of the CSV's `webhookdefinitions`: OLM v1 writes a Mutating or
/// ValidatingWebhookConfiguration from it, calling the operator's Service on
/// every request its rules match, cluster-wide for an AllNamespaces install.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WebhookView {
    #[serde(default, rename = "type", deserialize_with = "text")]
    pub kind: Option<String>,
    /// The CSV Deployment that serves it: whose account receives the requests.
    #[serde(default, deserialize_with = "text")]
    pub deployment_name: Option<String>,
    /// Its name, from which OLM names the webhook configuration.
    #[serde(default, deserialize_with = "text")]
    pub generate_name: Option<String>,
    /// `Exact` or `Equivalent` (the default).
    #[serde(default, deserialize_with = "text")]
    pub match_policy: Option<String>,
    /// A conversion webhook's CustomResourceDefinitions, by name.
    #[serde(default, rename = "conversionCRDs", deserialize_with = "nullable")]
    pub conversion_crds: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub rules: Vec<WebhookRuleView>,
}

/// A webhook rule: the requests it is sent.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WebhookRuleView {
    #[serde(default, deserialize_with = "nullable")]
    pub api_groups: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub resources: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub operations: Vec<String>,
    #[serde(default, rename = "apiVersions", deserialize_with = "nullable")]
    pub api_versions: Vec<String>,
    /// `Cluster`, `Namespaced` or `*`; absent means `*`.
    #[serde(default, deserialize_with = "text")]
    pub scope: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CsvInstall {
    #[serde(default, deserialize_with = "nullable")]
    pub spec: CsvInstallSpec,
}

/// `spec.install.spec`: the operator's Deployments and the rules its
/// ServiceAccounts get, namespaced (`permissions`) and cluster-wide
/// (`clusterPermissions`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CsvInstallSpec {
    #[serde(default, deserialize_with = "nullable")]
    pub permissions: Vec<PermissionView>,
    #[serde(default, deserialize_with = "nullable")]
    pub cluster_permissions: Vec<PermissionView>,
    #[serde(default, deserialize_with = "nullable")]
    pub deployments: Vec<DeploymentView>,
}

impl PermissionView {
    /// The account OLM grants the entry's rules to, as written
    /// (`default` where it names none).
    pub(crate) fn account(&self) -> &str {
        self.service_account_name.as_deref().filter(|n| !n.is_empty()).unwrap_or(DEFAULT_ACCOUNT)
    }
}

/// The ServiceAccount Kubernetes and OLM use where none is named.
pub(crate) const DEFAULT_ACCOUNT: &str = "default";

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PermissionView {
    /// Empty or missing: OLM uses the namespace's `default` ServiceAccount.
    pub service_account_name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub rules: Vec<RuleView>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct DeploymentView {
    pub name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub spec: DeploymentSpecView,
}

impl DeploymentView {
    /// The ServiceAccount its pods run as ([`PodSpecView::runs_as`]).
    pub(crate) fn runs_as(&self) -> &str {
        self.spec.template.spec.runs_as()
    }
}

impl PodSpecView {
    /// The ServiceAccount a pod runs as, as Kubernetes decides it:
    /// `serviceAccountName`, else the deprecated `serviceAccount`, else `default`.
    pub(crate) fn runs_as(&self) -> &str {
        [&self.service_account_name, &self.service_account]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .find(|n| !n.is_empty())
            .unwrap_or(DEFAULT_ACCOUNT)
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct DeploymentSpecView {
    #[serde(default, deserialize_with = "nullable")]
    pub template: PodTemplateView,
}

/// A pod template: the few fields the planner reads as a view, and the
/// template as written, which the Pod Security check reads with Kubernetes'
/// own types (`PodTemplateView::as_kubernetes`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(try_from = "serde_json::Value")]
pub(crate) struct PodTemplateView {
    pub spec: PodSpecView,
    pub written: serde_json::Value,
}

impl TryFrom<serde_json::Value> for PodTemplateView {
    type Error = serde_json::Error;

    fn try_from(written: serde_json::Value) -> Result<Self, Self::Error> {
        #[derive(Deserialize)]
        struct Spec {
            #[serde(default, deserialize_with = "nullable")]
            spec: PodSpecView,
        }
        let Spec { spec } = serde_json::from_value(written.clone())?;
        Ok(PodTemplateView { spec, written })
    }
}

impl PodTemplateView {
    /// The template in Kubernetes' own types, as the API server would decode
    /// it; the decoder's error when it would not.
    pub(crate) fn as_kubernetes(&self) -> Result<k8s_openapi::api::core::v1::PodTemplateSpec, serde_json::Error> {
        serde_json::from_value(self.written.clone())
    }
}

/// What of a pod's spec decides whose rights it runs with; the rest of it is
/// read with Kubernetes' types, for the Pod Security check.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PodSpecView {
    #[serde(default, deserialize_with = "text")]
    pub service_account_name: Option<String>,
    #[serde(default, deserialize_with = "text")]
    pub service_account: Option<String>,
}

/// One of the CSV's `installModes`: which sets of target namespaces the
/// operator supports.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct InstallModeView {
    #[serde(rename = "type")]
    pub mode: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub supported: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>"))]
pub(crate) struct Owned<T> {
    #[serde(default = "Vec::new", deserialize_with = "nullable")]
    pub owned: Vec<T>,
}

impl<T> Default for Owned<T> {
    fn default() -> Self {
        Owned { owned: Vec::new() }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct OwnedCrd {
    pub name: Option<String>,
    pub version: Option<String>,
    pub kind: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct OwnedApiService {
    pub name: Option<String>,
    pub group: Option<String>,
    pub version: Option<String>,
    pub kind: Option<String>,
}

/// A resource rule from its parts; no `resourceNames` when `names` is empty.
pub(crate) fn policy_rule(
    groups: &[&str],
    resources: &[&str],
    verbs: &[&str],
    names: &[&str],
) -> k8s_openapi::api::rbac::v1::PolicyRule {
    let list = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    k8s_openapi::api::rbac::v1::PolicyRule {
        api_groups: Some(list(groups)),
        resources: Some(list(resources)),
        verbs: list(verbs),
        resource_names: (!names.is_empty()).then(|| list(names)),
        non_resource_urls: None,
    }
}

/// The rules of a ClusterRole or Role.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RoleView {
    #[serde(default, deserialize_with = "nullable")]
    pub rules: Vec<RuleView>,
    /// Present (whatever it selects): the role's rules are whatever the
    /// aggregation controller gathers, not `rules`.
    #[serde(default)]
    pub aggregation_rule: Option<AggregationView>,
}

/// A ClusterRole's `aggregationRule`: the label selectors of the roles whose
/// rules it gathers.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AggregationView {
    #[serde(default, deserialize_with = "nullable")]
    pub cluster_role_selectors: Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
}

impl RoleView {
    pub(crate) fn aggregates(&self) -> bool {
        self.aggregation_rule.is_some()
    }
}

/// The role a ClusterRoleBinding or RoleBinding refers to.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BindingView {
    #[serde(default, deserialize_with = "nullable")]
    pub role_ref: RoleRefView,
    #[serde(default, deserialize_with = "nullable")]
    pub subjects: Vec<SubjectView>,
}

/// One subject of a binding.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SubjectView {
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub api_group: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RoleRefView {
    pub kind: Option<String>,
    pub name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RuleView {
    #[serde(default, deserialize_with = "nullable")]
    pub api_groups: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub resources: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub verbs: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub resource_names: Vec<String>,
    #[serde(default, rename = "nonResourceURLs", deserialize_with = "nullable")]
    pub non_resource_urls: Vec<String>,
}

impl RuleView {
    pub(crate) fn to_policy_rule(&self) -> k8s_openapi::api::rbac::v1::PolicyRule {
        let some = |v: &Vec<String>| (!v.is_empty()).then(|| v.clone());
        k8s_openapi::api::rbac::v1::PolicyRule {
            api_groups: some(&self.api_groups),
            resources: some(&self.resources),
            verbs: self.verbs.clone(),
            resource_names: some(&self.resource_names),
            non_resource_urls: some(&self.non_resource_urls),
        }
    }
}

/// A string field, `None` when it holds anything else: a view that only
/// reads it should not refuse the object over it.
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Text {
        Text(String),
        Other(serde::de::IgnoredAny),
    }
    Ok(match Option::<Text>::deserialize(d)? {
        Some(Text::Text(s)) => Some(s),
        _ => None,
    })
}

/// An explicit `null` reads as the default, as the API server treats it.
pub(super) fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

mod olm_v1;
pub(crate) use olm_v1::*;

mod powers;
pub(crate) use powers::*;
