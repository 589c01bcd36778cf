//! The trust boundary: checks on what the bundle claims, before anything is
//! granted on its word. The bundle is written by a third party; every check
//! here refuses with an error naming the object and field, or warns where the
//! bundle only endangers itself. See `docs/security.md`.

use std::collections::BTreeMap;

use crate::access::Resources;
use crate::config::Config;
use crate::findings::{Code, FileRef, Finding, ObjRef};
use crate::model::*;
use crate::reserved::{self, Owner};

use crate::plan::facts::origin::{own_folder, source_folder, Origins};
use crate::plan::types::{Api, ApiSource};

/// What an API takes on the cluster: one resource (a CRD), or a whole group
/// and version (an APIService routes every resource of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Takes<'a> {
    Resource(&'a str),
    Group,
}

/// May the config's roles grant on `group`? Platform groups are refused, and
/// in a group the platform shares with operators its own resources, or the
/// whole group for an APIService; OLM's own groups only with the config's
/// explicit opt-in.
pub(crate) fn check_group(
    config: &Config,
    group: &str,
    takes: Takes<'_>,
    object: &ObjRef,
    field: &str,
    file: Option<&FileRef>,
    results: &mut Vec<Finding>,
) -> bool {
    let owner = match takes {
        Takes::Resource(plural) => reserved::owner_of(group, plural),
        Takes::Group => reserved::serves_in(group),
    };
    let owner = match owner {
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
        Finding::error(
            Code::ApiGroupReserved,
            format!(
                "API group {group:?} is {}, not the bundle's own: olm-rbac refuses to grant access to it{remedy}",
                owner.describe()
            ),
        )
        .on(object)
        .at(field)
        .in_file(file),
    );
    false
}

/// Roles are generated only for APIs whose definition the input carries: a CSV
/// entry alone says nothing about what the API is or who serves it. An owned
/// APIService is defined by its CSV entry alone, and could name any group (say,
/// another operator's), so its group must be one the admin vouches for.
pub(crate) fn require_definitions(config: &Config, apis: &[Api], results: &mut Vec<Finding>) {
    for api in apis {
        let message = match api.source {
            ApiSource::Crd => continue,
            ApiSource::ApiService if config.api_service_groups.contains(&api.group) => continue,
            ApiSource::CsvEntry => format!(
                "owned CRD {:?} is not in the input: olm-rbac grants access only to APIs whose definition the bundle carries. Add the CRD to the inputs, or leave the API out with spec.apis.exclude in RBACConfig {:?}",
                api.name, config.name
            ),
            ApiSource::ApiService => format!(
                "the bundle says it serves API group {:?} through an APIService; that entry is the API's only definition, so olm-rbac cannot tell the group is the bundle's own. If it is, list {:?} in spec.apiServiceGroups of RBACConfig {:?}; otherwise leave {} out with spec.apis.exclude",
                api.group, api.group, config.name, api.name
            ),
        };
        let field = match api.source {
            ApiSource::ApiService => format!("{}.group", api.field),
            _ => api.field.clone(),
        };
        results.push(Finding::error(Code::ApiUndefined, message).on(&api.origin).at(field));
    }
}

/// The identity an object has on the cluster: group, kind, namespace (none
/// for kinds the scope table has cluster-scoped: the API server drops a
/// namespace written on them) and name.
pub(crate) fn identity(o: &InputObject, resources: &Resources) -> (String, String, Option<String>, String) {
    let group = o.header.group().unwrap_or_default();
    let kind = o.header.kind.as_deref().unwrap_or_default();
    let namespace = if resources.kind_is_cluster_scoped(group, kind) { None } else { o.header.namespace.clone() };
    (group.to_string(), kind.to_string(), namespace, o.header.name.clone().unwrap_or_default())
}

/// A bundle holds only the kinds registry+v1 allows: OLM refuses any other
/// (so the bundle cannot be installed), and applied as it is
/// (`bundleObjects: Keep`) such an object would reach the cluster with the
/// runner's rights, judged by nobody: a Pod, a webhook, a ClusterExtension
/// installing another operator. The admin's ClusterExtension belongs in a
/// file of its own, never in the bundle's folder. Then the CRDs OLM cannot
/// create ([`check_crd_versions`]).
fn check_bundle_kinds(
    objects: &[InputObject],
    origins: &Origins,
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) {
    // olm-rbac's own earlier output in a saved render is believed only where
    // this run writes it again exactly (`provenance`): an admission policy it wrote.
    let believed = |i: usize| claims.get(i).is_some_and(Option::is_some);
    let bundle = objects.iter().enumerate().filter(|(i, _)| origins.is_bundle(*i) && !believed(*i)).map(|(_, o)| o);
    for o in bundle {
        let kind = o.header.kind.as_deref().unwrap_or_default();
        let group = o.header.group().unwrap_or_default();
        // The ClusterServiceVersion is read by its kind whatever its group,
        // by OLM and olm-rbac alike (`discover` warns about the group).
        let judged_by_kind = matches!(o.body, crate::model::Body::Csv(_));
        let expected = crate::kinds::registry_v1_group(kind).filter(|g| *g != group && !judged_by_kind);
        if let Some(expected) = expected {
            let served = if expected.is_empty() { "the core group".to_string() } else { format!("{expected:?}") };
            results.push(
                Finding::error(
                    Code::BundleKindUnsupported,
                    format!("the bundle holds a {kind:?} of API group {group:?}: OLM installs a {kind} by its kind alone, as the one of {served}, while olm-rbac would judge it as another API's object; a bundle's {kind} belongs to {served}"),
                )
                .on(&o.object_ref())
                .at("apiVersion")
                .in_file(o.file.as_ref()),
            );
        } else if !crate::kinds::registry_v1_holds(kind) {
            results.push(
                Finding::error(
                    Code::BundleKindUnsupported,
                    format!("the bundle holds a {kind:?}, a kind registry+v1 bundles may not hold: OLM refuses the bundle (unsupported resource), and olm-rbac does not pass it on"),
                )
                .on(&o.object_ref())
                .at("kind")
                .in_file(o.file.as_ref()),
            );
        }
    }
}

/// Checks on the input as a whole, whatever the config says.
pub(crate) fn check_input(
    objects: &[InputObject],
    origins: &Origins,
    resources: &Resources,
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) {
    check_bundle_kinds(objects, origins, claims, results);
    // Two items with one identity are one object on the cluster: the last one
    // applied wins, and olm-rbac might judge the other.
    let mut seen: BTreeMap<_, &InputObject> = BTreeMap::new();
    for o in objects.iter().filter(|o| o.header.name.is_some() && o.header.kind.is_some()) {
        if let Some(first) = seen.insert(identity(o, resources), o) {
            let where_first = first.file.as_ref().map(|f| format!(" (first in {})", f.path)).unwrap_or_default();
            results.push(
                Finding::error(Code::InputDuplicate, format!(
                    "the input holds this object twice{where_first}: applying both leaves only the last, and olm-rbac cannot tell which one you meant; remove one"
                ))
                .on(&o.object_ref())
                .in_file(o.file.as_ref()),
            );
        }
    }
    one_csv_a_bundle(objects, results);
    for (i, (o, claim)) in objects.iter().zip(claims).enumerate() {
        if o.header.api_version.is_none() || o.header.kind.is_none() {
            let missing = match (&o.header.api_version, &o.header.kind) {
                (None, None) => "no apiVersion and no kind",
                (None, Some(_)) => "no apiVersion",
                _ => "no kind",
            };
            results.push(
                Finding::warning(Code::NotAnObject, format!(
                    "this document is not a Kubernetes object ({missing}); it passes through unchanged, but kubectl will refuse it. Leave files such as Chart.yaml and metadata/annotations.yaml out of the inputs"
                ))
                .on(&o.object_ref())
                .in_file(o.file.as_ref()),
            );
            continue;
        }
        let kind = o.header.kind.as_deref().unwrap_or_default();
        // Kubernetes clients apply an object with a top-level `items` key as
        // the list of objects inside it, where a ClusterRole could travel
        // unseen by every check below.
        if o.header.list {
            results.push(
                Finding::error(Code::NotAnObject, format!(
                    "this {} has a top-level items key, so kubectl applies the objects inside it, which olm-rbac cannot check; give them as separate objects",
                    if kind.is_empty() { "object" } else { kind }
                ))
                .on(&o.object_ref())
                .at("items")
                .in_file(o.file.as_ref()),
            );
            continue;
        }
        if !api_version_readable(o, results) {
            continue;
        }
        if let Err(why) = crate::model::is_extension(&o.header) {
            let refused = Finding::error(Code::ApiVersionInvalid, why);
            results.push(refused.on(&o.object_ref()).at("apiVersion").in_file(o.file.as_ref()));
            continue;
        }
        let rbac_kind = o.header.group() == Some(RBAC_GROUP) && matches!(kind, "ClusterRole" | "ClusterRoleBinding");
        let name = o.header.name.as_deref().unwrap_or_default();
        if rbac_kind && claim.is_none() && reserved::is_reserved_role_name(name) {
            results.push(
                Finding::warning(Code::ReservedRoleName, format!(
                    "the name {name:?} is reserved for Kubernetes' built-in {kind}: applying this object replaces the built-in one for everybody. olm-rbac never adopts, binds or relabels it"
                ))
                .on(&o.object_ref())
                .at("metadata.name")
                .in_file(o.file.as_ref()),
            );
        }
        if !origins.is_admin(i) {
            check_api_service(o, results);
        }
    }
}

/// An apiVersion the API server refuses (`a/b/c`) is an error: no check may
/// read it one way while a client reads it another.
fn api_version_readable(o: &InputObject, results: &mut Vec<Finding>) -> bool {
    if o.header.group().is_some() {
        return true;
    }
    results.push(
        Finding::error(Code::ApiVersionInvalid, format!(
            "apiVersion {:?} is not <group>/<version> or a core <version>: the API server refuses it, and olm-rbac cannot tell which API it means",
            o.header.api_version.as_deref().unwrap_or_default()
        ))
        .on(&o.object_ref())
        .at("apiVersion")
        .in_file(o.file.as_ref()),
    );
    false
}

/// A bundle has one ClusterServiceVersion: OLM installs whichever of several
/// in one bundle folder it reads last, so olm-rbac cannot judge the one that
/// counts. CSVs whose file is unknown cannot be told apart (see the install
/// policy, which refuses several of them).
fn one_csv_a_bundle(objects: &[InputObject], results: &mut Vec<Finding>) {
    let mut by_folder: BTreeMap<String, Vec<&InputObject>> = BTreeMap::new();
    for o in objects.iter().filter(|o| matches!(o.body, Body::Csv(_))) {
        if let Some(folder) = source_folder(o) {
            by_folder.entry(own_folder(&folder)).or_default().push(o);
        }
    }
    for (folder, csvs) in by_folder.into_iter().filter(|(_, c)| c.len() > 1) {
        let names: Vec<String> = csvs.iter().map(|o| o.object_ref().name).collect();
        for o in &csvs[1..] {
            results.push(
                Finding::error(Code::CsvAmbiguous, format!(
                    "the bundle in {folder:?} holds {} ClusterServiceVersions ({}): OLM installs whichever it reads last, so olm-rbac cannot judge the one that counts; a bundle has one",
                    csvs.len(),
                    names.join(", ")
                ))
                .on(&o.object_ref())
                .in_file(o.file.as_ref()),
            );
        }
    }
}

/// An APIService (`<version>.<group>`) for a group the platform serves
/// re-routes that API, for everybody, to whatever service it names: no
/// bundle may ship one, and an installer account would need the right to
/// rewrite the platform's own.
fn check_api_service(o: &InputObject, results: &mut Vec<Finding>) {
    if !o.is("apiregistration.k8s.io", "APIService") {
        return;
    }
    let name = o.header.name.as_deref().unwrap_or_default();
    let group = name.split_once('.').map_or("", |(_, g)| g);
    if let Some(owner) = reserved::serves_in(group) {
        results.push(
            Finding::error(Code::ApiGroupReserved, format!(
                "this APIService serves {group:?}, {}: applying it re-routes that API for the whole cluster; olm-rbac refuses it unless it comes from your own files",
                owner.describe()
            ))
            .on(&o.object_ref())
            .at("metadata.name")
            .in_file(o.file.as_ref()),
        );
    }
}

/// Another extension's output is about that extension's APIs. An item that
/// claims to be another extension's output for an API this config manages is
/// not believed: for this config it is an ordinary item (so, for one,
/// `stripBundleAggregation` applies to it).
pub(crate) fn disown_claims_on(
    config: &Config,
    apis: &[Api],
    objects: &[InputObject],
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) -> Vec<Option<String>> {
    objects
        .iter()
        .zip(claims)
        .map(|(o, claim)| match claim {
            Some(ext) if *ext != config.extension => {
                let api = o.header.annotations.get(API_ANNOTATION).map(String::as_str).unwrap_or_default();
                if apis.iter().any(|a| a.name == api) {
                    results.push(
                        Finding::warning(Code::ClaimIgnored, format!(
                            "claims to be olm-rbac's output for extension {ext:?}, but its API {api} is extension {:?}'s; treated as an ordinary item",
                            config.extension
                        ))
                        .on(&o.object_ref())
                        .in_file(o.file.as_ref()),
                    );
                    None
                } else {
                    claim.clone()
                }
            }
            _ => claim.clone(),
        })
        .collect()
}
