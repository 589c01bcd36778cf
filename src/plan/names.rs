//! Every name olm-rbac gives an object it generates, in one place, each
//! shortened with a stable hash past the API server's 253 characters
//! ([`bounded_name`]). Three families, each for a reason:
//!
//! - **An API's roles** are named for the API alone (`<plural>.<group>-admin`,
//!   or under `naming: OLMv0` as OLM v0 named them), so that a user who knew
//!   OLM v0's roles finds them; their Bind-mode bindings add the extension in
//!   front (`<extension>-<plural>.<group>-admin`), since two extensions may
//!   bind the same role.
//! - **What one extension installs** (its operator's and installer's roles,
//!   its OLM-API roles) starts with the extension's name.
//! - **Cluster-wide admission policies**, which guard objects other than the
//!   extension's own, start with `olm-rbac-`: `olm-rbac-<extension>-pin`,
//!   `olm-rbac-delegate-<team>`.

use crate::config::{Config, Naming, RoleKind};
use crate::names::bounded_name;
use crate::plan::types::{Api, ApiSource};

/// A role's name in two parts, so that bindings can prefix the first:
/// `(<api>, -admin)` or, under OLMv0, `(<name>-<version>, -admin)`, where
/// `<name>` is the owned entry's name as OLM v0 used it: `<plural>.<group>`
/// for a CRD, the bare plural for an APIService.
fn api_parts(naming: Naming, api: &Api, version: Option<&str>, role: RoleKind) -> (String, String) {
    match (naming, version) {
        (Naming::OlmV0, Some(v)) => {
            let suffix = if role == RoleKind::CrdView { "crdview" } else { role.as_str() };
            let name = if api.source == ApiSource::ApiService { &api.plural } else { &api.name };
            (format!("{name}-{v}"), format!("-{suffix}"))
        }
        _ => (api.name.clone(), format!("-{}", role.as_str())),
    }
}

/// `<plural>.<group>-admin` (Default) or, as OLM v0 named them,
/// `<plural>.<group>-<version>-admin` (an APIService: `<plural>-<version>-admin`).
pub(crate) fn api_role(naming: Naming, api: &Api, version: Option<&str>, role: RoleKind) -> String {
    let (base, suffix) = api_parts(naming, api, version, role);
    bounded_name(&base, &suffix)
}

/// A Bind-mode binding of an API's role: `<extension>-<api role name>`.
pub(crate) fn api_binding(config: &Config, api: &Api, version: Option<&str>, role: RoleKind) -> String {
    let (base, suffix) = api_parts(config.naming, api, version, role);
    bounded_name(&format!("{}-{base}", config.extension), &suffix)
}

/// `<extension>-olm-view` and its like: a role on OLM's own APIs for the
/// extension's users (`label` is the role's label value), and its bindings.
pub(crate) fn olm_api_role(extension: &str, label: &str) -> String {
    bounded_name(extension, &format!("-{label}"))
}

/// The operator's roles for one of its ServiceAccounts:
/// `<extension>-operator-<account>`, with `-all-namespaces` for the
/// ClusterRole that grants its namespaced permissions everywhere.
pub(crate) fn operator_role(extension: &str, account: &str, all_namespaces: bool) -> String {
    bounded_name(&format!("{extension}-operator-{account}"), if all_namespaces { "-all-namespaces" } else { "" })
}

/// What the install grants the operator's account beyond RBAC rules (its
/// webhooks, its pods' nodes, its Services' traffic), modelled as a role for
/// the diff and the catalog's gains, never written:
/// `<extension>-beyond-rbac-<account>`.
pub(crate) fn beyond_rbac_role(extension: &str, account: &str) -> String {
    bounded_name(&format!("{extension}-beyond-rbac-{account}"), "")
}

/// The installer account, and its roles and bindings: `<extension>-installer`.
pub(crate) fn installer(extension: &str) -> String {
    bounded_name(extension, "-installer")
}

/// A team's delegation: its ClusterRole, binding and policy,
/// `olm-rbac-delegate-<team>`.
pub(crate) fn delegate(team: &str) -> String {
    bounded_name("olm-rbac-delegate", &format!("-{team}"))
}

/// The policy pinning an extension to what was judged:
/// `olm-rbac-<extension>-pin`; with `catalog`, the one pinning its
/// ClusterCatalog's image, `olm-rbac-<extension>-pin-catalog`.
pub(crate) fn pin(extension: &str, catalog: bool) -> String {
    bounded_name(&format!("olm-rbac-{extension}"), if catalog { "-pin-catalog" } else { "-pin" })
}
