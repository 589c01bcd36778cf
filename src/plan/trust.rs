//! The trust boundary: checks on what the bundle claims, before anything is
//! granted on its word. The bundle is written by a third party; every check
//! here refuses with an error naming the object and field, or warns where the
//! bundle only endangers itself. See `docs/security.md`.

use crate::config::Config;
use crate::model::*;
use crate::report::{FileRef, Finding, ObjRef};
use crate::reserved::{self, Owner};

use super::{Api, ApiSource};

/// May the config's roles grant on `group`? Platform groups are refused; OLM's
/// own groups only with the config's explicit opt-in.
pub fn check_group(
    config: &Config,
    group: &str,
    plural: &str,
    object: &ObjRef,
    field: &str,
    file: Option<&FileRef>,
    results: &mut Vec<Finding>,
) -> bool {
    let owner = match reserved::owner_of(group, plural) {
        None => return true,
        Some(Owner::Olm) if config.allow_olm_groups.iter().any(|g| g == group) => return true,
        Some(owner) => owner,
    };
    let remedy = match owner {
        Owner::Olm => format!(
            "; rights on OLM's APIs let users install operators: if this is OLM's own bundle and that is what you want, list {group:?} in spec.allowOLMGroups"
        ),
        Owner::Kubernetes | Owner::OpenShift => String::new(),
    };
    results.push(
        Finding::error(format!(
            "API group {group:?} is {}, not the bundle's own: olm-rbac refuses to grant access to it{remedy}",
            owner.describe()
        ))
        .on(object)
        .at(field)
        .in_file(file),
    );
    false
}

/// Roles are generated only for APIs whose definition the input carries: a CSV
/// entry alone says nothing about what the API is or who serves it.
pub fn require_definitions(config: &Config, apis: &[Api], results: &mut Vec<Finding>) {
    for api in apis.iter().filter(|a| a.source == ApiSource::CsvEntry) {
        results.push(
            Finding::error(format!(
                "owned CRD {:?} is not in the input: olm-rbac grants access only to APIs whose definition the bundle carries. Add the CRD to the inputs, or leave the API out with spec.apis.exclude in RBACConfig {:?}",
                api.name, config.name
            ))
            .on(&api.origin)
            .at(&api.field),
        );
    }
}

/// Checks on the input as a whole, whatever the config says.
pub fn check_input(objects: &[InputObject], claims: &[Option<String>], results: &mut Vec<Finding>) {
    for (o, claim) in objects.iter().zip(claims) {
        let kind = o.header.kind.as_deref().unwrap_or_default();
        // Kubernetes clients apply an object with a top-level `items` key as
        // the list of objects inside it, where a ClusterRole could travel
        // unseen by every check below.
        if o.header.list {
            results.push(
                Finding::error(format!(
                    "this {} has a top-level items key, so kubectl applies the objects inside it, which olm-rbac cannot check; give them as separate objects",
                    if kind.is_empty() { "object" } else { kind }
                ))
                .on(&o.object_ref())
                .at("items")
                .in_file(o.file.as_ref()),
            );
            continue;
        }
        let rbac_kind = o.header.api_version.as_deref().is_some_and(|v| v.starts_with("rbac.authorization.k8s.io/"))
            && matches!(kind, "ClusterRole" | "ClusterRoleBinding");
        let name = o.header.name.as_deref().unwrap_or_default();
        if rbac_kind && claim.is_none() && reserved::is_reserved_role_name(name) {
            results.push(
                Finding::warning(format!(
                    "the name {name:?} is reserved for Kubernetes' built-in {kind}: applying this object replaces the built-in one for everybody. olm-rbac never adopts, binds or relabels it"
                ))
                .on(&o.object_ref())
                .at("metadata.name")
                .in_file(o.file.as_ref()),
            );
        }
    }
}
