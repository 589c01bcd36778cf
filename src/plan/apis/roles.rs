//! The roles olm-rbac generates: their names, the one rule each grants, and
//! the ceiling a bundle role is measured against.

use std::collections::BTreeMap;

use k8s_openapi::api::rbac::v1::{ClusterRole, PolicyRule};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::config::{Config, Mode, Naming, RoleKind};
use crate::model::*;

use crate::findings::{Code, Finding};
use crate::plan::names;
use crate::plan::types::{About, Api, ApiSource, Made, Object};

/// The ClusterRoles for one API, each with the version it is named for.
pub(crate) fn cluster_roles(config: &Config, api: &Api) -> Vec<(Option<String>, RoleKind, ClusterRole)> {
    let mut out = Vec::new();
    for version in versions_for(config, api) {
        for &role in &config.roles {
            if role == RoleKind::CrdView && api.source != ApiSource::Crd {
                continue;
            }
            let name = names::api_role(config.naming, api, version, role);
            out.push((version.map(String::from), role, build_role(config, api, role, name)));
        }
    }
    out
}

pub(crate) fn versions_for<'a>(config: &Config, api: &'a Api) -> Vec<Option<&'a str>> {
    match config.naming {
        Naming::Default => vec![None],
        Naming::OlmV0 => api.versions.iter().map(|v| Some(v.as_str())).collect(),
    }
}

pub(crate) fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The rule a role grants, as OLM v0 wrote it: no subresources, no
/// `deletecollection` outside `*`.
pub(crate) fn rule_for(api: &Api, role: RoleKind) -> PolicyRule {
    rule_for_parts(&api.name, &api.group, &api.plural, role)
}

/// [`rule_for`] from the API's parts: `name` is `<plural>.<group>`.
pub(crate) fn rule_for_parts(name: &str, group: &str, plural: &str, role: RoleKind) -> PolicyRule {
    let verbs: &[&str] = match role {
        RoleKind::Admin => &["*"],
        RoleKind::Edit => &EDIT,
        RoleKind::View => &READ,
        RoleKind::CrdView => {
            return PolicyRule {
                api_groups: Some(strings(&["apiextensions.k8s.io"])),
                resources: Some(strings(&["customresourcedefinitions"])),
                resource_names: Some(vec![name.to_string()]),
                verbs: strings(&["get"]),
                ..Default::default()
            }
        }
    };
    PolicyRule {
        api_groups: Some(vec![group.to_string()]),
        resources: Some(vec![plural.to_string()]),
        verbs: strings(verbs),
        ..Default::default()
    }
}

/// Everything a role level may grant on an API: the yardstick a bundle role is
/// measured against before olm-rbac adopts it or puts back its labels. `view`
/// reads, `edit` also writes, `admin` may do anything, each on the resource and,
/// for a CRD, on the only subresources a CRD can have (`status`, `scale`);
/// `view-crdview` reads the API's CustomResourceDefinition object.
pub(crate) fn ceiling(api: &Api, level: RoleKind) -> Vec<PolicyRule> {
    let verbs: Vec<&str> = match level {
        RoleKind::Admin => vec!["*"],
        RoleKind::Edit => VERBS.to_vec(),
        RoleKind::View => READ.to_vec(),
        RoleKind::CrdView => {
            let mut rule = rule_for(api, level);
            rule.verbs = strings(&READ);
            return vec![rule];
        }
    };
    let mut resources = vec![api.plural.clone()];
    if api.source == ApiSource::Crd {
        resources.extend(["status", "scale"].map(|sub| format!("{}/{sub}", api.plural)));
    }
    vec![PolicyRule {
        api_groups: Some(vec![api.group.clone()]),
        resources: Some(resources),
        verbs: strings(&verbs),
        ..Default::default()
    }]
}

/// The level of access a built-in aggregating role stands for: the role
/// whose generated ClusterRoles aggregate into it.
pub(crate) fn level_gathered_by(aggregating: AggregatingRole) -> RoleKind {
    RoleKind::ALL.into_iter().find(|role| role.aggregates_to() == aggregating).unwrap_or(RoleKind::View)
}

/// The labels every generated object carries: managed by olm-rbac, the
/// extension, and what it is for (`olm-rbac.io/role`).
pub(crate) fn generated_labels(extension: &str, role: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        (MANAGED_BY.to_string(), MANAGER.to_string()),
        (EXTENSION_LABEL.to_string(), extension.to_string()),
        (ROLE_LABEL.to_string(), role.to_string()),
    ])
}

/// Labels and annotations of a role (or binding) generated from the config:
/// the labels above, the mode, and the API it serves when there is one.
pub(crate) fn metadata(config: &Config, api: Option<&str>, role: &str) -> ObjectMeta {
    let mut annotations = BTreeMap::from([(MODE_ANNOTATION.to_string(), config.mode.as_str().to_string())]);
    if let Some(api) = api {
        annotations.insert(API_ANNOTATION.to_string(), api.to_string());
    }
    let labels = generated_labels(&config.extension, role);
    ObjectMeta { labels: Some(labels), annotations: Some(annotations), ..Default::default() }
}

/// A ClusterRole generated from the config, named `name`: in Aggregate mode
/// labelled to aggregate into `into`.
pub(crate) fn generated_cluster_role(
    config: &Config,
    mut metadata: ObjectMeta,
    name: String,
    into: AggregatingRole,
    rules: Vec<PolicyRule>,
) -> ClusterRole {
    metadata.name = Some(name);
    if config.mode == Mode::Aggregate {
        metadata.labels.get_or_insert_with(BTreeMap::new).insert(into.label(), "true".into());
    }
    ClusterRole { metadata, rules: Some(rules), aggregation_rule: None }
}

pub(crate) fn build_role(config: &Config, api: &Api, role: RoleKind, name: String) -> ClusterRole {
    let metadata = metadata(config, Some(&api.name), role.as_str());
    generated_cluster_role(config, metadata, name, role.aggregates_to(), vec![rule_for(api, role)])
}

/// A per-API role olm-rbac writes grants the selected level on the bundle's
/// API, and nothing else; but where that API is one the danger catalogue
/// names (a deputy's: Argo CD's `applications`, Flux's `kustomizations`),
/// writing it is the deputy's power, and whoever holds the role gets it.
/// Said as a warning with its level, in any namespace (`edit` and `admin`
/// are bound namespace by namespace).
pub(crate) fn warn_deputies(generated: &[Made], results: &mut Vec<Finding>) {
    for (about, o) in generated {
        let (About::Api { api, role, .. }, Object::ClusterRole(r)) = (about, o) else { continue };
        for rule in r.rules.iter().flatten() {
            let found = crate::access::danger::dangers(rule, false).into_iter().filter(|d| !d.is_wildcard());
            for d in found {
                results.push(
                    Finding::warning(
                        Code::of_danger(d),
                        format!(
                            "the {} role olm-rbac writes for API {api} lets whoever holds it {} ({}): a controller acts on what they write, with its own rights (see docs/dangerous-permissions.md)",
                            role.as_str(),
                            d.what,
                            d.severity
                        ),
                    )
                    .dangerous(d.severity)
                    .on(&o.object_ref()),
                );
            }
        }
    }
}
