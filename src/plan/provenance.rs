//! Claims about earlier output: which input items olm-rbac generated on an
//! earlier run. (Whose each item is by its file is decided in `origin`.)
//!
//! The labels that say so are claims, written by whoever wrote the item: an
//! item counts as generated only when it is of a kind olm-rbac writes, has the
//! shape olm-rbac writes, and is about an API the input defines. Anything else
//! carrying the labels is an ordinary item: never removed, never trusted.

use std::collections::BTreeSet;

use crate::config::RoleKind;
use crate::model::*;
use crate::names::{is_dns1123_label, is_dns1123_subdomain};
use crate::report::Finding;
use crate::reserved;

use super::accounts::SERVICE_ACCOUNT_ANNOTATION;
use super::installer::INSTALLER_ROLE;
use super::operator::OPERATOR_ROLE;
use super::origin::Origins;
use super::roles::rule_for_parts;

/// For each input item, the extension it was generated for, if the claim holds.
pub(crate) fn generated_claims(
    objects: &[InputObject],
    origins: &Origins,
    results: &mut Vec<Finding>,
) -> Vec<Option<String>> {
    let defined = defined_apis(objects);
    objects
        .iter()
        .enumerate()
        .map(|(i, o)| {
            if o.header.labels.get(MANAGED_BY).map(String::as_str) != Some(MANAGER) {
                return None;
            }
            // olm-rbac writes to its output path, never into a bundle.
            let claim = if origins.is_bundle(i) {
                Err("it comes from a bundle's own folder, where olm-rbac never writes".to_string())
            } else {
                check_claim(o, &defined)
            };
            match claim {
                Ok(extension) => Some(extension),
                Err(why) => {
                    results.push(
                        Finding::warning(format!(
                            "carries the label {MANAGED_BY}: {MANAGER}, but {why}; olm-rbac treats it as an ordinary item: it neither removes nor replaces it"
                        ))
                        .on(&o.object_ref())
                        .in_file(o.file.as_ref()),
                    );
                    None
                }
            }
        })
        .collect()
}

/// `<plural>.<group>` of every API the input defines: its CRDs and the
/// APIServices its CSVs own, outside the groups the platform reserves.
fn defined_apis(objects: &[InputObject]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut add = |plural: Option<&str>, group: Option<&str>| {
        if let (Some(p), Some(g)) = (plural, group) {
            if is_dns1123_label(p) && is_dns1123_subdomain(g) && reserved::owner_of(g, p).is_none() {
                out.insert(format!("{p}.{g}"));
            }
        }
    };
    for o in objects {
        match &o.body {
            Body::Crd(v) => add(v.spec.names.plural.as_deref(), v.spec.group.as_deref()),
            Body::Csv(v) => {
                for entry in &v.spec.apiservicedefinitions.owned {
                    add(entry.name.as_deref(), entry.group.as_deref());
                }
            }
            _ => {}
        }
    }
    out
}

fn check_claim(o: &InputObject, defined: &BTreeSet<String>) -> Result<String, String> {
    let labels = &o.header.labels;
    let extension = labels.get(EXTENSION_LABEL).ok_or_else(|| format!("it has no {EXTENSION_LABEL} label"))?;
    match labels.get(ROLE_LABEL).map(String::as_str) {
        Some(OPERATOR_ROLE) => return check_operator_claim(o).map(|()| extension.clone()),
        Some(INSTALLER_ROLE) if o.is("", "ServiceAccount") => {
            return o
                .header
                .annotations
                .contains_key(SERVICE_ACCOUNT_ANNOTATION)
                .then(|| extension.clone())
                .ok_or_else(|| format!("it has no {SERVICE_ACCOUNT_ANNOTATION} annotation"));
        }
        Some(INSTALLER_ROLE) => return check_operator_claim(o).map(|()| extension.clone()),
        _ => {}
    }
    let role = labels
        .get(ROLE_LABEL)
        .and_then(|r| RoleKind::parse(r))
        .ok_or_else(|| format!("its {ROLE_LABEL} label is not one of admin, edit, view, view-crdview"))?;
    let api = o
        .header
        .annotations
        .get(API_ANNOTATION)
        .filter(|a| defined.contains(a.as_str()))
        .ok_or_else(|| format!("its {API_ANNOTATION} annotation does not name an API the input defines"))?;
    let (plural, group) =
        api.split_once('.').ok_or_else(|| "its API annotation is not <plural>.<group>".to_string())?;
    let rbac = |kind: &str| o.is("rbac.authorization.k8s.io", kind);
    match &o.body {
        Body::Role(view) if rbac("ClusterRole") => {
            let expected = rule_for_parts(api, group, plural, role);
            if view.aggregates() || view.rules.len() != 1 || view.rules[0].to_policy_rule() != expected {
                return Err(format!("its rules are not the {} rule olm-rbac writes for {api}", role.as_str()));
            }
            let allowed = format!("{AGGREGATE_PREFIX}{}", role.aggregates_to());
            if labels.iter().any(|(k, v)| k.starts_with(AGGREGATE_PREFIX) && (*k != allowed || v != "true")) {
                return Err(format!("it has aggregation labels olm-rbac does not write on a {} role", role.as_str()));
            }
        }
        Body::Binding(view) if rbac("ClusterRoleBinding") || rbac("RoleBinding") => {
            let role_ref = &view.role_ref;
            let name = role_ref.name.as_deref().unwrap_or_default();
            if role_ref.kind.as_deref() != Some("ClusterRole")
                || name.is_empty()
                || reserved::is_reserved_role_name(name)
            {
                return Err("it does not bind a per-API ClusterRole".into());
            }
        }
        _ => return Err("olm-rbac writes only ClusterRoles and bindings".into()),
    }
    Ok(extension.clone())
}

/// The operator's and the installer's objects: the RBAC kinds olm-rbac writes for a ServiceAccount
/// it names. Their rules follow the CSV, which changes between versions, so
/// only their shape is checked; removing one never grants anything, and every
/// removal is reported.
fn check_operator_claim(o: &InputObject) -> Result<(), String> {
    let rbac = |kind: &str| o.is("rbac.authorization.k8s.io", kind);
    if !o.header.annotations.contains_key(SERVICE_ACCOUNT_ANNOTATION) {
        return Err(format!("it has no {SERVICE_ACCOUNT_ANNOTATION} annotation"));
    }
    match &o.body {
        Body::Role(view) if rbac("ClusterRole") || rbac("Role") => {
            if view.aggregates() || o.header.labels.keys().any(|k| k.starts_with(AGGREGATE_PREFIX)) {
                return Err("olm-rbac writes the operator's roles without aggregation".into());
            }
        }
        Body::Binding(view) if rbac("ClusterRoleBinding") || rbac("RoleBinding") => {
            let name = view.role_ref.name.as_deref().unwrap_or_default();
            let kind_ok = match view.role_ref.kind.as_deref() {
                Some("ClusterRole") => true,
                Some("Role") => rbac("RoleBinding"),
                _ => false,
            };
            if !kind_ok || name.is_empty() || reserved::is_reserved_role_name(name) {
                return Err("it does not bind a role olm-rbac writes for an operator".into());
            }
        }
        _ => return Err("olm-rbac writes only Roles, ClusterRoles and bindings".into()),
    }
    Ok(())
}
