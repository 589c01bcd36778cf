//! What the core knows about the input: each object's header and, for the
//! kinds that matter, a small view of the fields it uses.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

use serde::Serialize;
use std::fmt;

mod rbac;
mod views;

pub use rbac::{AggregatingRole, RoleRefKind, SubjectKind};
pub(crate) use rbac::{InstallMode, ServiceAccountRef, OLM_V1_GROUP, RBAC_GROUP};
pub(crate) use views::*;

/// The identity and labels of a Kubernetes object, read from its text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// `apiVersion`, as written; `Header::group` reads its group as the API server does.
    pub api_version: Option<String>,
    /// `kind`.
    pub kind: Option<String>,
    /// `metadata.name`.
    pub name: Option<String>,
    /// `metadata.namespace`; `None` where the object names none.
    pub namespace: Option<String>,
    /// `metadata.labels`: what aggregation selectors match, and where olm-rbac marks what it generated (a claim,
    /// on an input's object).
    pub labels: BTreeMap<String, String>,
    /// `metadata.annotations`, among them the runners' records of an item's file.
    pub annotations: BTreeMap<String, String>,
    /// A top-level `items` key: Kubernetes clients read such an object as a
    /// list of the objects inside it, whatever its kind.
    pub list: bool,
}

/// The object a result is about.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjRef {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

/// The apiVersion and kind of olm-rbac's own configuration object.
pub(crate) const CONFIG_API_VERSION: &str = "olm-rbac.io/v1alpha1";
pub(crate) const CONFIG_KIND: &str = "RBACConfig";

impl ObjRef {
    /// The kind as messages name it: bare for the kinds the platform defines
    /// (Kubernetes' own, OLM's and the operator kinds [`crate::kinds`] knows)
    /// and for olm-rbac's own RBACConfig; any other kind with its group, as
    /// kubectl names resources (`ArgoCD.argoproj.io`; a kind the core group
    /// does not have with its apiVersion, `ClusterRole (v1)`), so that a
    /// bundle's `ClusterRole` of another group never reads as the real one.
    pub(crate) fn kind_in_words(&self) -> String {
        let Some(group) = group_of(&self.api_version) else { return self.kind.clone() };
        let own = self.api_version == CONFIG_API_VERSION && self.kind == CONFIG_KIND;
        // A list of the platform's: kubectl's `v1` List, or `<Kind>List`.
        let element = self.kind.strip_suffix("List").filter(|k| !k.is_empty());
        let list = (group.is_empty() && self.kind == "List")
            || element.is_some_and(|k| crate::kinds::resource_of(group, k).is_some());
        if own || list || crate::kinds::resource_of(group, &self.kind).is_some() {
            self.kind.clone()
        } else if group.is_empty() {
            // The core group has no name to add: say the apiVersion.
            format!("{} ({})", self.kind, self.api_version)
        } else {
            format!("{}.{group}", self.kind)
        }
    }
}

impl fmt::Display for ObjRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = if self.name.is_empty() { "(unnamed)" } else { &self.name };
        let kind = self.kind_in_words();
        match &self.namespace {
            Some(ns) => write!(f, "{kind} {ns}/{name}"),
            None => write!(f, "{kind} {name}"),
        }
    }
}

/// Which file (and which document or item in it) a result is about.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct FileRef {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
}

pub(crate) const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
pub(crate) const MANAGER: &str = "olm-rbac";
pub(crate) const EXTENSION_LABEL: &str = "olm-rbac.io/extension";
pub(crate) const ROLE_LABEL: &str = "olm-rbac.io/role";
/// The [`ROLE_LABEL`] of the admission policies and bindings `spec.admissionPolicy` writes.
pub(crate) const ADMISSION_POLICY_ROLE: &str = "admission-policy";
/// The [`ROLE_LABEL`] of the roles, bindings and admission policy `spec.delegations` writes.
pub(crate) const DELEGATION_ROLE: &str = "delegation";
/// The label on a delegated ClusterExtension that names the team whose it is.
pub(crate) const DELEGATION_LABEL: &str = "olm-rbac.io/delegation";
/// The annotation on the delegations' admission policy that lists what each
/// team may install, for `diff` to ask the policy about.
pub(crate) const DELEGATIONS_ANNOTATION: &str = "olm-rbac.io/delegations";

/// One team as [`DELEGATIONS_ANNOTATION`] lists it (a JSON array of these):
/// written by render, read by `diff`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct DelegatedTeam {
    pub team: String,
    pub subjects: Vec<DelegatedSubject>,
    /// Each package with the versions the team may install.
    pub packages: std::collections::BTreeMap<String, Vec<String>>,
    pub namespaces: Vec<String>,
    pub catalogs: Vec<String>,
}

/// A subject of a [`DelegatedTeam`]: `User`, `Group`, or `ServiceAccount` with its namespace.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct DelegatedSubject {
    pub kind: String,
    pub name: String,
    pub namespace: Option<String>,
}
pub(crate) const API_ANNOTATION: &str = "olm-rbac.io/api";
pub(crate) const MODE_ANNOTATION: &str = "olm-rbac.io/mode";
/// kustomize's record of the file an object came from.
pub(crate) const ORIGIN_ANNOTATION: &str = "config.kubernetes.io/origin";

/// Which of the items' file annotations the runner wrote, as the marks it
/// leaves on the functionConfig (which comes from the admin, never from the
/// bundle) show. kpt writes its path annotations over whatever each file
/// says, and marks the functionConfig with `internal.config.kubernetes.io/index`;
/// kustomize passes a file's own `config.kubernetes.io/path` through (even
/// copying it to the internal key), and writes `config.kubernetes.io/origin`
/// over each item's own only with `buildMetadata: [originAnnotations]`, when
/// the functionConfig carries one too. (Observed with kpt 1.0 and kubectl's
/// kustomize 5.5.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RunnerMarks {
    /// kpt ran: the path annotations are its.
    pub paths: bool,
    /// kustomize with originAnnotations ran: the origin annotations are its.
    pub origin: bool,
}

impl RunnerMarks {
    /// What the functionConfig's annotations show.
    pub(crate) fn of_function_config(annotations: &BTreeMap<String, String>) -> RunnerMarks {
        RunnerMarks {
            paths: annotations.contains_key("internal.config.kubernetes.io/index"),
            origin: annotations.contains_key(ORIGIN_ANNOTATION),
        }
    }
}

/// One input item, as the core sees it.
#[derive(Debug, Clone, Default)]
pub(crate) struct InputObject {
    pub header: Header,
    pub body: Body,
    pub file: Option<FileRef>,
}

#[derive(Debug, Clone, Default)]
pub(crate) enum Body {
    Crd(CrdView),
    Csv(CsvView),
    /// A ClusterRole or a Role.
    Role(RoleView),
    /// A ClusterRoleBinding or a RoleBinding.
    Binding(BindingView),
    /// An OLM v1 ClusterExtension.
    Extension(ExtensionView),
    /// An OLM v1 ClusterCatalog.
    Catalog(CatalogView),
    /// A Service: where it sends traffic.
    Service(ServiceView),
    /// A Pod or a workload that makes pods: its pod template.
    Workload(WorkloadView),
    /// A Mutating or ValidatingWebhookConfiguration.
    WebhookConfig(WebhookConfigView),
    /// An OpenShift console plugin: what the console forwards to its backend.
    ConsolePlugin(ConsolePluginView),
    #[default]
    Other,
}

/// Verbs that read, and verbs that write: every level of access to an API is
/// made of these.
pub(crate) const READ: [&str; 3] = ["get", "list", "watch"];
pub(crate) const WRITE: [&str; 5] = ["create", "update", "patch", "delete", "deletecollection"];
/// Every verb of an API's resources, reading first: the order kubectl users
/// read them in.
pub(crate) const VERBS: [&str; 8] = {
    let mut all = [""; 8];
    let mut i = 0;
    while i < all.len() {
        all[i] = if i < READ.len() { READ[i] } else { WRITE[i - READ.len()] };
        i += 1;
    }
    all
};
/// The verbs an `edit` role's rule grants, as OLM v0 wrote it: writing,
/// without `deletecollection` (which only `*`, the admin's, grants).
pub(crate) const EDIT: [&str; 4] = ["create", "update", "patch", "delete"];

pub(crate) const LABEL_CHANGES_ANNOTATION: &str = "olm-rbac.io/label-changes";
/// The annotation that names a bundle's package: in its `metadata/annotations.yaml`, and on some CSVs.
pub(crate) const BUNDLE_PACKAGE_ANNOTATION: &str = "operators.operatorframework.io.bundle.package.v1";
pub(crate) const STATUS_ANNOTATION: &str = "olm-rbac.io/rbac";
pub(crate) const AGGREGATE_PREFIX: &str = "rbac.authorization.k8s.io/aggregate-to-";

/// A change to an item's `metadata.labels` or `metadata.annotations`: the only
/// changes olm-rbac makes to items it did not generate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MetaPatch {
    pub labels: Vec<Edit>,
    pub annotations: Vec<Edit>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Edit {
    Remove(String),
    Set(String, String),
}

impl MetaPatch {
    /// The labels and annotations of `header` after this patch.
    pub(crate) fn apply(&self, header: &Header) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
        (apply_edits(&header.labels, &self.labels), apply_edits(&header.annotations, &self.annotations))
    }
}

fn apply_edits(map: &BTreeMap<String, String>, edits: &[Edit]) -> BTreeMap<String, String> {
    let mut map = map.clone();
    for edit in edits {
        match edit {
            Edit::Remove(k) => {
                map.remove(k);
            }
            Edit::Set(k, v) => {
                map.insert(k.clone(), v.clone());
            }
        }
    }
    map
}

/// An image reference that names its content, `...@sha256:<64 lowercase hex
/// digits>` (the digest a registry and OLM pull by), rather than a tag whose
/// content may change.
pub(crate) fn is_digest_ref(image: &str) -> bool {
    crate::image::pinned_digest(image).is_some()
}

/// An apiVersion, read the one way the API server reads it: `group/version`,
/// or a bare `version` of the core group `""`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ApiVersion<'a> {
    pub group: &'a str,
    pub version: &'a str,
}

impl<'a> ApiVersion<'a> {
    /// `None` for what the API server refuses: an empty version, an empty
    /// group before a `/`, or more than one `/`.
    pub(crate) fn parse(text: &'a str) -> Option<ApiVersion<'a>> {
        let (group, version) = text.split_once('/').unwrap_or(("", text));
        let ok = !version.is_empty() && !version.contains('/') && (group.is_empty() != text.contains('/'));
        ok.then_some(ApiVersion { group, version })
    }
}

/// The API group of an apiVersion ([`ApiVersion::parse`]); `None` when the API
/// server would refuse the apiVersion.
pub(crate) fn group_of(api_version: &str) -> Option<&str> {
    ApiVersion::parse(api_version).map(|v| v.group)
}

// The operator of a label-selector requirement. (Part of RBACConfig's JSON
// Schema, where a doc comment would become a description.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum Operator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

impl Operator {
    /// The operator Kubernetes spells `text`, if it is one.
    pub(crate) fn parse(text: &str) -> Option<Operator> {
        match text {
            "In" => Some(Operator::In),
            "NotIn" => Some(Operator::NotIn),
            "Exists" => Some(Operator::Exists),
            "DoesNotExist" => Some(Operator::DoesNotExist),
            _ => None,
        }
    }
}

/// Label-selector semantics, as Kubernetes reads them: every label in
/// `match_labels` and every requirement (key, operator, values) must hold; a
/// requirement whose operator Kubernetes does not know (`None`) holds for
/// nothing. An empty selector selects everything.
pub(crate) fn selector_matches<'a>(
    match_labels: impl IntoIterator<Item = (&'a String, &'a String)>,
    requirements: impl IntoIterator<Item = (&'a str, Option<Operator>, &'a [String])>,
    labels: &BTreeMap<String, String>,
) -> bool {
    match_labels.into_iter().all(|(k, v)| labels.get(k) == Some(v))
        && requirements.into_iter().all(|(key, op, values)| {
            let value = labels.get(key);
            match op {
                Some(Operator::In) => value.is_some_and(|v| values.contains(v)),
                Some(Operator::NotIn) => value.is_none_or(|v| !values.contains(v)),
                Some(Operator::Exists) => value.is_some(),
                Some(Operator::DoesNotExist) => value.is_none(),
                None => false,
            }
        })
}

/// The apiVersion the API server serves ClusterExtensions as (OLM v1 1.0
/// and later; `v1alpha1` is served no more).
pub(crate) const EXTENSION_API_VERSION: &str = "olm.operatorframework.io/v1";

/// Whether `header` is a ClusterExtension, decided once for every command:
/// `Ok(true)` for one the API server serves (`olm.operatorframework.io/v1`),
/// `Ok(false)` for another kind, why not for a ClusterExtension of another
/// version of the group, which no cluster would accept as written.
pub(crate) fn is_extension(header: &Header) -> Result<bool, String> {
    if header.group() != Some(OLM_V1_GROUP) || header.kind.as_deref() != Some("ClusterExtension") {
        return Ok(false);
    }
    match header.api_version.as_deref() {
        Some(EXTENSION_API_VERSION) => Ok(true),
        other => Err(format!(
            "apiVersion {}: the API server serves ClusterExtensions as {EXTENSION_API_VERSION} only",
            other.unwrap_or_default()
        )),
    }
}

/// Which typed view an item needs, decided from its header alone.
pub(crate) fn view_for(header: &Header) -> Option<ViewKind> {
    match (header.group(), header.kind.as_deref()) {
        (Some("apiextensions.k8s.io"), Some("CustomResourceDefinition")) => Some(ViewKind::Crd),
        // Recognised by kind: published bundles carry odd apiVersions (see `plan`).
        (_, Some("ClusterServiceVersion")) => Some(ViewKind::Csv),
        (Some("rbac.authorization.k8s.io"), Some("ClusterRole" | "Role")) => Some(ViewKind::Role),
        (Some("rbac.authorization.k8s.io"), Some("ClusterRoleBinding" | "RoleBinding")) => Some(ViewKind::Binding),
        (Some(OLM_V1_GROUP), Some("ClusterExtension")) if is_extension(header) == Ok(true) => Some(ViewKind::Extension),
        (Some(OLM_V1_GROUP), Some("ClusterCatalog")) => Some(ViewKind::Catalog),
        (Some(""), Some("Service")) => Some(ViewKind::Service),
        (Some(""), Some("Pod" | "ReplicationController"))
        | (Some("apps"), Some("Deployment" | "DaemonSet" | "StatefulSet" | "ReplicaSet"))
        | (Some("batch"), Some("Job" | "CronJob")) => Some(ViewKind::Workload),
        (
            Some("admissionregistration.k8s.io"),
            Some("MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration"),
        ) => Some(ViewKind::WebhookConfig),
        (Some("console.openshift.io"), Some("ConsolePlugin")) => Some(ViewKind::ConsolePlugin),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ViewKind {
    Crd,
    Csv,
    Role,
    Binding,
    Extension,
    Catalog,
    Service,
    Workload,
    WebhookConfig,
    ConsolePlugin,
}

impl InputObject {
    pub(crate) fn object_ref(&self) -> ObjRef {
        self.header.object_ref()
    }

    pub(crate) fn is(&self, group: &str, kind: &str) -> bool {
        self.header.kind.as_deref() == Some(kind) && self.header.group() == Some(group)
    }

    /// Which kind of role of the RBAC API it is, if it is one: what a
    /// `roleRef` of that kind and name finds.
    pub(crate) fn role_kind(&self) -> Option<RoleRefKind> {
        (self.header.group() == Some(RBAC_GROUP)).then_some(())?;
        RoleRefKind::parse(self.header.kind.as_deref()?)
    }
}

impl Header {
    /// The API group of the object's apiVersion (see [`ApiVersion`]); `None`
    /// without an apiVersion, or with one the API server refuses.
    pub(crate) fn group(&self) -> Option<&str> {
        self.api_version.as_deref().and_then(group_of)
    }

    /// The object as a result names it (`Kind namespace/name`, shown by its `Display`), absent fields empty.
    pub fn object_ref(&self) -> ObjRef {
        ObjRef {
            api_version: self.api_version.clone().unwrap_or_default(),
            kind: self.kind.clone().unwrap_or_default(),
            name: self.name.clone().unwrap_or_default(),
            namespace: self.namespace.clone(),
        }
    }

    /// The file and index the runner says this item came from, if the runner
    /// is known to have written it ([`RunnerMarks`]): kpt's path annotations,
    /// or kustomize's `config.kubernetes.io/origin`. Otherwise the item's own
    /// annotations are claims like any other, and the file is unknown.
    pub(crate) fn file_ref(&self, runner: RunnerMarks) -> Option<FileRef> {
        let a = &self.annotations;
        let path = a.get("internal.config.kubernetes.io/path").or_else(|| a.get("config.kubernetes.io/path"));
        let Some(path) = path.filter(|_| runner.paths) else {
            let origin = a.get(ORIGIN_ANNOTATION).filter(|_| runner.origin)?;
            let path = origin.lines().find_map(|l| l.trim().strip_prefix("path:"))?.trim().trim_matches(['"', '\'']);
            return Some(FileRef { path: path.to_string(), index: None });
        };
        let index = a
            .get("internal.config.kubernetes.io/index")
            .or_else(|| a.get("config.kubernetes.io/index"))
            .and_then(|i| i.parse().ok());
        Some(FileRef { path: path.clone(), index })
    }
}

#[cfg(test)]
mod tests;
