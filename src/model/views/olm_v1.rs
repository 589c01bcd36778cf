//! The views of OLM v1's own objects: a ClusterExtension (what it installs,
//! where, from which catalog, how it upgrades) and a ClusterCatalog (its image).

use super::nullable;
use serde::Deserialize;

/// The parts of an OLM v1 `ClusterExtension` the pin check reads: what it
/// installs, from where, and how it upgrades.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ExtensionView {
    #[serde(default, deserialize_with = "nullable")]
    pub spec: ExtensionSpec,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExtensionSpec {
    /// Deprecated: operator-controller 1.11 and later ignore it.
    #[serde(default)]
    pub service_account: Option<serde::de::IgnoredAny>,
    #[serde(default, deserialize_with = "nullable")]
    pub source: ExtensionSource,
    #[serde(default, deserialize_with = "nullable")]
    pub install: ExtensionInstall,
    /// The namespace OLM v1 installs the bundle's namespaced objects into.
    pub namespace: Option<String>,
    /// The bundle's configuration: its watch namespace, for one.
    #[serde(default, deserialize_with = "nullable")]
    pub config: Option<ExtensionConfig>,
}

/// `spec.config`, as OLM v1 reads it: `configType: Inline` and the `inline`
/// object, which operator-controller validates against the bundle's
/// configuration schema (`watchNamespace`; `deploymentConfig` behind its
/// own feature gate).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExtensionConfig {
    pub config_type: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub inline: Option<std::collections::BTreeMap<String, serde_json::Value>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExtensionSource {
    #[serde(default, deserialize_with = "nullable")]
    pub catalog: Option<CatalogSourceView>,
}

/// `spec.source.catalog`: which package, which versions, from which catalogs.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CatalogSourceView {
    pub package_name: Option<String>,
    pub version: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub channels: Vec<String>,
    pub selector: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    pub upgrade_constraint_policy: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ExtensionInstall {
    #[serde(default, deserialize_with = "nullable")]
    pub preflight: Option<ExtensionPreflight>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExtensionPreflight {
    #[serde(default, deserialize_with = "nullable")]
    pub crd_upgrade_safety: Option<CrdUpgradeSafety>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CrdUpgradeSafety {
    pub enforcement: Option<String>,
}

/// The part of an OLM v1 `ClusterCatalog` the pin check reads: the image its
/// content is served from.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CatalogView {
    #[serde(default, deserialize_with = "nullable")]
    pub spec: CatalogSpec,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CatalogSpec {
    #[serde(default, deserialize_with = "nullable")]
    pub source: CatalogImageSource,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CatalogImageSource {
    #[serde(default, deserialize_with = "nullable")]
    pub image: Option<CatalogImage>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CatalogImage {
    #[serde(rename = "ref")]
    pub reference: Option<String>,
}
