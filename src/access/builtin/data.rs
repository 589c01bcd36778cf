//! The bootstrap policy's two data files, read into a [`Policy`].
//!
//! The files are embedded and fixed: each is one `kind: List` of
//! ClusterRoles or of ClusterRoleBindings, as the API server writes them.
//! The kernel reads their JSON renderings (`*.json` beside them, each the
//! YAML file's values, which the suite checks and `UPDATE_GOLDEN=1`
//! rewrites): parsing the YAML took 1.7 ms of every run, the JSON a tenth of
//! that. They are read with serde straight into the model's views, and each
//! item enters the policy through [`Policy::add_object`], as the input's
//! roles and bindings do. Nothing here reads the user's input, so the
//! kernel needs neither the crate's YAML reader nor its limits on hostile
//! input. A test of the checks (`check::tests`) proves this reading and the
//! input's reader of the YAML files make the same policy.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::{Policy, KUBERNETES_VERSION};
use crate::model::SubjectView;
use crate::model::{AggregationView, BindingView, Body, Header, InputObject, RoleRefView, RoleView, RuleView};

/// The bootstrap ClusterRoles, as `kubectl get clusterroles -o yaml` would list them.
#[cfg(test)]
const CLUSTER_ROLES: &str = include_str!("../../../data/kubernetes-v1.33/cluster-roles.yaml");
/// The bootstrap ClusterRoleBindings.
#[cfg(test)]
const CLUSTER_ROLE_BINDINGS: &str = include_str!("../../../data/kubernetes-v1.33/cluster-role-bindings.yaml");
/// [`CLUSTER_ROLES`]' values as JSON: what the kernel reads.
const CLUSTER_ROLES_JSON: &str = include_str!("../../../data/kubernetes-v1.33/cluster-roles.json");
/// [`CLUSTER_ROLE_BINDINGS`]' values as JSON.
const CLUSTER_ROLE_BINDINGS_JSON: &str = include_str!("../../../data/kubernetes-v1.33/cluster-role-bindings.json");

/// A data file's path in the repository.
fn path(name: &str) -> String {
    format!("data/kubernetes-v{KUBERNETES_VERSION}/{name}")
}

/// The YAML files, each with its path in the repository and its text.
#[cfg(test)]
pub(crate) fn files() -> [(String, &'static str); 2] {
    [(path("cluster-roles.yaml"), CLUSTER_ROLES), (path("cluster-role-bindings.yaml"), CLUSTER_ROLE_BINDINGS)]
}

/// A `kind: List` of one kind of object.
#[derive(Deserialize)]
struct List<T> {
    items: Vec<T>,
}

#[derive(Deserialize)]
struct Metadata {
    name: String,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    annotations: BTreeMap<String, String>,
}

/// A ClusterRole: its identity and its fields (`rules: null` is no rules, as
/// the API server reads it). Each kind's fields are written out rather than
/// flattened into one generic item: serde buffers a flattened struct's every
/// value first, and reading these files then took an eighth longer.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RoleItem {
    api_version: String,
    kind: String,
    metadata: Metadata,
    #[serde(default)]
    rules: Option<Vec<RuleView>>,
    #[serde(default)]
    aggregation_rule: Option<AggregationView>,
}

/// A ClusterRoleBinding: its identity and its fields.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BindingItem {
    api_version: String,
    kind: String,
    metadata: Metadata,
    role_ref: RoleRefView,
    #[serde(default)]
    subjects: Option<Vec<SubjectView>>,
}

/// Both files, every object in the policy; an error names the file.
pub(super) fn read() -> Result<Policy, String> {
    let mut policy = Policy::default();
    for item in parse::<RoleItem>("cluster-roles.json", CLUSTER_ROLES_JSON)? {
        let rules = item.rules.unwrap_or_default();
        let body = Body::Role(RoleView { rules, aggregation_rule: item.aggregation_rule });
        policy.add_object(&object(item.api_version, item.kind, item.metadata, body));
    }
    for item in parse::<BindingItem>("cluster-role-bindings.json", CLUSTER_ROLE_BINDINGS_JSON)? {
        let subjects = item.subjects.unwrap_or_default();
        let body = Body::Binding(BindingView { role_ref: item.role_ref, subjects });
        policy.add_object(&object(item.api_version, item.kind, item.metadata, body));
    }
    Ok(policy)
}

fn parse<T: DeserializeOwned>(name: &str, text: &str) -> Result<Vec<T>, String> {
    serde_json::from_str::<List<T>>(text).map(|list| list.items).map_err(|e| format!("{}: {e}", path(name)))
}

fn object(api_version: String, kind: String, metadata: Metadata, body: Body) -> InputObject {
    let header = Header {
        api_version: Some(api_version),
        kind: Some(kind),
        name: Some(metadata.name),
        labels: metadata.labels,
        annotations: metadata.annotations,
        ..Default::default()
    };
    InputObject { header, body, file: None }
}
