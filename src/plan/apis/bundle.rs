//! Roles the bundle brings: which ones provide an API's admin, edit or view
//! role (`fit`: classified by shape, then measured against the role's
//! ceiling with `access::cover`), and the label changes olm-rbac makes to
//! them (`labels`), recorded so that a later run can take exactly those back.

use std::collections::BTreeMap;

use crate::config::{BundleRoles, Mode, RoleKind};
use crate::findings::{Code, Finding};
use crate::model::*;
use crate::reserved;

use crate::plan::facts::input::Planning;
use crate::plan::names::api_role as role_name;

mod labels;

use crate::plan::facts::fit::RoleFit;
pub(crate) use labels::label_patches;

/// Can this item be adopted, bound or relabelled at all? Not when its name is
/// a built-in role's, and not when an aggregation rule makes its rules
/// whatever it selects.
fn adoptable(o: &InputObject) -> Option<&RoleView> {
    let Body::Role(view) = &o.body else { return None };
    let reserved_name = o.header.name.as_deref().is_some_and(reserved::is_reserved_role_name);
    (o.role_kind() == Some(RoleRefKind::ClusterRole) && !view.aggregates() && !reserved_name).then_some(view)
}

/// The roles the input provides, keyed by (API name, role), with the index of
/// the providing object.
pub(crate) type Provided = BTreeMap<(String, RoleKind), usize>;

/// Chooses the bundle roles to use. A ClusterRole named exactly like a role
/// olm-rbac would generate, and granting that, comes first; then roles by name.
pub(crate) fn adopt(p: &Planning<'_>, results: &mut Vec<Finding>) -> Provided {
    let (config, apis, objects, claims) = (p.config, &p.apis, p.objects(), &p.claims);
    let mut provided = Provided::new();
    // Stripping means the bundle's aggregation is not trusted: in Aggregate
    // mode that includes labelling its roles, so every role is generated.
    let strip_aggregate = config.strip_bundle_aggregation && config.mode == Mode::Aggregate;
    if config.bundle_roles == BundleRoles::Ignore || strip_aggregate {
        return provided;
    }
    let mut candidates: Vec<(usize, &InputObject, usize, RoleKind)> = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        // Anything wearing olm-rbac's labels, believed or not, is not a bundle role to use.
        if claims[i].is_some() || o.header.labels.get(MANAGED_BY).map(String::as_str) == Some(MANAGER) {
            continue;
        }
        if adoptable(o).is_none() {
            continue;
        }
        if let Some(&RoleFit::Serves(a, role)) = p.role_fit(i) {
            if config.roles.contains(&role) {
                candidates.push((i, o, a, role));
            }
        }
    }
    let name_of = |o: &InputObject| o.header.name.clone().unwrap_or_default();
    let same_name = |o: &InputObject, a: usize, role: RoleKind| {
        let api = &apis[a];
        let mut names = vec![role_name(config.naming, api, None, role)];
        names.extend(api.versions.iter().map(|v| role_name(config.naming, api, Some(v), role)));
        names.contains(&name_of(o))
    };
    candidates.sort_by_key(|&(_, o, a, role)| (!same_name(o, a, role), name_of(o)));
    for (i, o, a, role) in candidates {
        let api = &apis[a];
        match provided.get(&(api.name.clone(), role)) {
            Some(&first) => results.push(
                Finding::info(
                    Code::BundleRoles,
                    format!(
                        "also grants the {} role for {}, but {} already provides it; not used",
                        role.as_str(),
                        api.name,
                        name_of(&objects[first])
                    ),
                )
                .on(&o.object_ref())
                .in_file(o.file.as_ref()),
            ),
            None => {
                results.push(
                    Finding::info(
                        Code::BundleRoles,
                        format!(
                            "provides the {} role for {}: olm-rbac uses it instead of generating {}",
                            role.as_str(),
                            api.name,
                            role_name(config.naming, api, None, role)
                        ),
                    )
                    .on(&o.object_ref())
                    .in_file(o.file.as_ref()),
                );
                provided.insert((api.name.clone(), role), i);
            }
        }
    }
    provided
}

/// Namespaced Roles that grant on a selected API: worth knowing, never adopted.
pub(crate) fn note_namespaced_roles(p: &Planning<'_>, results: &mut Vec<Finding>) {
    let (apis, objects, claims) = (&p.apis, p.objects(), &p.claims);
    for (i, (o, claim)) in objects.iter().zip(claims).enumerate() {
        let Some(fit) = p.role_fit(i) else { continue };
        // olm-rbac's own (the operator's Roles) are no bundle roles.
        if o.role_kind() != Some(RoleRefKind::Role) || claim.is_some() {
            continue;
        }
        let touched = fit.apis_touched();
        if touched.is_empty() {
            continue;
        }
        let names: Vec<&str> = touched.iter().map(|&i| apis[i].name.as_str()).collect();
        results.push(
            Finding::info(Code::BundleRoles, format!(
                "this namespaced Role grants on {} only in the namespace it is created in; olm-rbac does not adopt Roles, it generates cluster-wide roles",
                names.join(", ")
            ))
            .on(&o.object_ref())
            .in_file(o.file.as_ref()),
        );
    }
}
