//! `RBACConfig` as written: the document serde reads, and its JSON Schema
//! (`olm-rbac schema`). The words a config is written in (modes, role kinds,
//! naming) are defined here once and used by the checked [`Config`](super::Config) too.

use crate::model::AggregatingRole;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::{BindingDoc, DelegationDoc, InstallerDoc, OperatorDoc};

/// The configuration of olm-rbac, which renders RBAC for the APIs an OLM operator installs.
///
/// Unknown fields under `spec` are errors; `metadata` is read leniently because
/// runners add their own annotations to it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "RBACConfig")]
pub(crate) struct RbacConfigDoc {
    /// Always `olm-rbac.io/v1alpha1`.
    #[schemars(extend("const" = "olm-rbac.io/v1alpha1"))]
    pub api_version: String,
    /// Always `RBACConfig`.
    #[schemars(extend("const" = "RBACConfig"))]
    pub kind: String,
    #[serde(default)]
    pub metadata: ConfigMeta,
    #[serde(default)]
    pub spec: Spec,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub(crate) struct ConfigMeta {
    /// The config's name, and the extension name unless `spec.extensionName` is set.
    pub name: Option<String>,
    // Runners (kpt, kustomize) write these; the schema names them so that
    // editors accept them, and nothing else reads them.
    #[expect(dead_code, reason = "in RBACConfig's schema, read by no check")]
    pub namespace: Option<String>,
    #[serde(default)]
    #[expect(dead_code, reason = "in RBACConfig's schema, read by no check")]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    #[expect(dead_code, reason = "in RBACConfig's schema, read by no check")]
    pub annotations: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Spec {
    /// What to generate: `Aggregate` (roles aggregated into the built-in admin/edit/view),
    /// `Bind` (roles bound to `bindings`), or `Unmanaged` (nothing; the default).
    #[serde(default)]
    pub mode: Mode,
    /// Labels the generated objects (`olm-rbac.io/extension`); a label value. Defaults to `metadata.name`.
    pub extension_name: Option<String>,
    /// The catalog package this config judges. The catalog commands take a config per package that is an
    /// exception (`-c`, repeatable) and one without this field for every other package; render refuses a
    /// bundle that declares another package.
    pub package: Option<String>,
    /// `metadata.name` of the ClusterServiceVersion whose owned APIs get roles; needed only when
    /// the input holds several.
    pub cluster_service_version: Option<String>,
    /// Which APIs (`<plural>.<group>`, globs) get roles.
    #[serde(default)]
    pub apis: ApiFilter,
    /// Which per-API roles to provide. Default: all four.
    pub roles: Option<Vec<RoleKind>>,
    /// `Default`: `<plural>.<group>-admin`; `OLMv0`: `<plural>.<group>-<version>-admin`.
    #[serde(default)]
    pub naming: Naming,
    /// Where kpt writes the generated objects, relative to the package. Default `rbac/<extension>.yaml`.
    pub output_path: Option<String>,
    /// Bind mode only: who gets which role, and where.
    pub bindings: Option<Vec<BindingDoc>>,
    /// `Use` (default): a ClusterRole in the input that grants on exactly one API is used instead of
    /// generating that role. `Ignore`: always generate.
    #[serde(default)]
    pub bundle_roles: BundleRoles,
    /// Bind and Unmanaged modes: remove the aggregation labels of bundle roles that grant on the
    /// APIs (recorded, and undone when turned off).
    #[serde(default)]
    pub strip_bundle_aggregation: bool,
    /// `Keep` (default) or `Drop` the bundle's own objects (CSV, CRDs, the rest of its folder)
    /// from the output, for OLM v1, where the cluster gets the bundle from a catalog.
    #[serde(default)]
    pub bundle_objects: BundleObjects,
    /// OLM's own API groups (`operators.coreos.com`, `olm.operatorframework.io`, ...) that the
    /// roles may grant on. Only OLM's own bundle owns them, and rights on them let users install
    /// operators, so each must be named here; every other platform group is always refused.
    #[serde(rename = "allowOLMGroups")]
    pub allow_olm_groups: Option<Vec<String>>,
    /// API groups the bundle may serve through APIServices it owns (`spec.apiservicedefinitions`).
    /// The CSV entry is such an API's only definition, so only the admin can vouch that the group
    /// is really the bundle's; APIs of owned APIServices in other groups are an error.
    pub api_service_groups: Option<Vec<String>>,
    /// Aggregate and Bind mode: an input with no API to manage is an error, so that a pipeline
    /// that renders nothing does not look like success. `true` makes it an `info` result.
    #[serde(default, rename = "allowNoAPIs")]
    pub allow_no_apis: bool,
    /// The operator's own permissions (the CSV's `permissions` and `clusterPermissions`): how
    /// to generate them, and the policy they must fit.
    pub operator: Option<OperatorDoc>,
    /// The ServiceAccount OLM installs the bundle as: its RBAC, derived from the bundle, or a check
    /// of an existing account's.
    pub installer: Option<InstallerDoc>,
    /// Aggregate and Bind mode: access to OLM's own APIs for the holders of the levels.
    /// `Unmanaged` (default): none. `View`: read OLM v0's Subscriptions, ClusterServiceVersions,
    /// InstallPlans, CatalogSources, OperatorGroups and PackageManifests, and OLM v1's
    /// ClusterExtensions and ClusterCatalogs. `Edit`: also write Subscriptions (edit and admin),
    /// which lets their holders install operators.
    #[serde(default, rename = "olmAPIs")]
    pub olm_apis: OlmApis,
    /// `Generate`: also write a ValidatingAdmissionPolicy and its binding that refuse any
    /// ClusterExtension of this extension's package (or name) whose version is not the judged
    /// bundle's, written exactly, whose upgradeConstraintPolicy is SelfCertified, or whose
    /// selector does not name the ClusterExtension's catalog; and any change of that
    /// ClusterCatalog's image when it is in the input. Needs the extension's ClusterExtension
    /// among the admin's files. `None` (default): no policy.
    #[serde(default)]
    pub admission_policy: AdmissionPolicy,
    /// Delegated installs: per team, the users, groups and ServiceAccounts that may create
    /// ClusterExtensions, of which packages, at which versions (the ones judged here unless
    /// listed), into which namespaces, from which ClusterCatalogs. Render writes a ClusterRole and
    /// binding per team and one ValidatingAdmissionPolicy that refuses the teams anything else.
    pub delegations: Option<Vec<DelegationDoc>>,
    /// The feature gates the cluster's operator-controller runs with, beyond its release's
    /// defaults (operator-controller v1.11.0: none of these is on by default). They decide which
    /// bundles OLM v1 installs: with `SingleOwnNamespaceInstallSupport`, bundles that do not
    /// support the AllNamespaces install mode, given `spec.config.inline.watchNamespace` on the
    /// ClusterExtension.
    #[serde(default)]
    pub olm_feature_gates: Vec<FeatureGate>,
}

/// A feature gate of operator-controller that changes what OLM v1 installs
/// (`spec.olmFeatureGates`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
pub(crate) enum FeatureGate {
    /// Alpha: installs bundles that support only OwnNamespace or SingleNamespace, in the
    /// namespace `spec.config.inline.watchNamespace` names.
    SingleOwnNamespaceInstallSupport,
}

impl FeatureGate {
    /// Whether `gates` install OwnNamespace and SingleNamespace bundles.
    pub(crate) fn single_own_namespace(gates: &[FeatureGate]) -> bool {
        gates.contains(&FeatureGate::SingleOwnNamespaceInstallSupport)
    }
}

/// Whether render writes the admission policy that pins the cluster to the
/// judged bundle (`spec.admissionPolicy`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum AdmissionPolicy {
    #[default]
    None,
    Generate,
}

/// How much of OLM's own APIs the levels' holders get (`spec.olmAPIs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
pub(crate) enum OlmApis {
    #[default]
    Unmanaged,
    View,
    Edit,
}

impl OlmApis {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            OlmApis::Unmanaged => "Unmanaged",
            OlmApis::View => "View",
            OlmApis::Edit => "Edit",
        }
    }
}

/// Whether the bundle's own objects stay in the output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum BundleObjects {
    #[default]
    Keep,
    Drop,
}

/// Whether ClusterRoles in the input that already grant an API's access are
/// used instead of generating that role.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum BundleRoles {
    #[default]
    Use,
    Ignore,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub(crate) enum Mode {
    Aggregate,
    Bind,
    #[default]
    Unmanaged,
}

impl Mode {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Mode::Aggregate => "Aggregate",
            Mode::Bind => "Bind",
            Mode::Unmanaged => "Unmanaged",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum Naming {
    #[default]
    Default,
    #[serde(rename = "OLMv0")]
    OlmV0,
}

/// The per-API roles, in the order they are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, JsonSchema)]
pub(crate) enum RoleKind {
    #[serde(rename = "admin")]
    Admin,
    #[serde(rename = "edit")]
    Edit,
    #[serde(rename = "view")]
    View,
    #[serde(rename = "view-crdview")]
    CrdView,
}

impl RoleKind {
    pub(crate) const ALL: [RoleKind; 4] = [RoleKind::Admin, RoleKind::Edit, RoleKind::View, RoleKind::CrdView];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RoleKind::Admin => "admin",
            RoleKind::Edit => "edit",
            RoleKind::View => "view",
            RoleKind::CrdView => "view-crdview",
        }
    }

    /// The role named by its label value (`admin`, `edit`, `view`, `view-crdview`).
    pub(crate) fn parse(s: &str) -> Option<RoleKind> {
        RoleKind::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The built-in ClusterRole this role aggregates into.
    pub(crate) fn aggregates_to(self) -> AggregatingRole {
        match self {
            RoleKind::Admin => AggregatingRole::Admin,
            RoleKind::Edit => AggregatingRole::Edit,
            RoleKind::View | RoleKind::CrdView => AggregatingRole::View,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ApiFilter {
    /// API names to keep (all when empty); `*` and `?` globs.
    #[serde(default)]
    pub include: Vec<String>,
    /// API names to drop, applied after `include`.
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// The JSON Schema of `RBACConfig`, for editors and CI checks (`olm-rbac schema`).
pub fn json_schema() -> String {
    crate::schema::text_of::<RbacConfigDoc>("rbacconfig")
}
