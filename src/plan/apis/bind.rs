//! Bind mode: bindings of the per-API roles to named subjects, cluster-wide or
//! in chosen namespaces, granting what the admin meant rather than what one
//! role's verb list says.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::{ClusterRoleBinding, RoleBinding, Subject as K8sSubject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::config::{Binding, Config, RoleKind, Scope, Subject, SubjectKind};
use crate::findings::{Code, Finding, ObjRef};
use crate::model::*;

use crate::plan::apis::roles::metadata;
use crate::plan::facts::input::Planning;
use crate::plan::facts::namespaces::selected_namespaces;
use crate::plan::types::{About, Api, ApiSource, Made, Object};
use crate::plan::{apis::olm_apis, names};

/// The roles a binding of `role` grants: editors also read. (Everyone bound
/// can read the API's CRD object too: versions, schema, printer columns.)
fn roles_bound_with(role: RoleKind) -> Vec<RoleKind> {
    match role {
        RoleKind::Edit => vec![RoleKind::Edit, RoleKind::View],
        other => vec![other],
    }
}

/// One binding to write: what it is for, the role it binds, its subjects.
#[derive(Debug)]
struct Planned {
    about: About,
    role_name: String,
    subjects: BTreeSet<Subject>,
}

/// Writes the bindings of `config` for `apis`. `role_for` names the ClusterRole
/// that serves an API's role (generated or provided), per version.
pub(crate) fn bindings(
    p: &Planning<'_>,
    role_for: impl Fn(&Api, RoleKind) -> Vec<(Option<String>, String)>,
    results: &mut Vec<Finding>,
) -> Vec<Made> {
    let (config, apis) = (p.config, &p.apis);
    let cfg = config.object_ref();
    if config.bindings.is_empty() {
        results.push(
            Finding::warning(
                Code::BindingPartial,
                "Bind mode without spec.bindings: the roles are generated, but nobody is granted them",
            )
            .on(&cfg)
            .at("spec.bindings"),
        );
        return Vec::new();
    }
    let (namespaces, objects) = (&p.input.selectable_namespaces, p.objects());
    let mut plans = Plans { config, role_for, planned: BTreeMap::new() };
    for (i, binding) in config.bindings.iter().enumerate() {
        let field = format!("spec.bindings[{i}]");
        warn_broad_subjects(binding, &field, &cfg, results);
        let scope = binding_scope(binding, &field, namespaces, objects, &cfg, results);
        for api in apis {
            plans.binding_on(binding, api, scope.as_deref(), &field, results);
        }
        plans.olm_binding(binding, scope.as_deref());
    }
    if !config.roles.contains(&RoleKind::CrdView) && apis.iter().any(|a| a.source == ApiSource::Crd) {
        results.push(
            Finding::warning(Code::BindingPartial,
                "spec.roles leaves out view-crdview: bound subjects can use the APIs but cannot read their CustomResourceDefinition objects (kubectl get crd, and consoles that show an API's versions and schema from it)",
            )
            .on(&cfg)
            .at("spec.roles"),
        );
    }
    plans.planned.into_iter().map(|(key, p)| to_object(config, key, p)).collect()
}

/// The bindings being planned, by namespace (`None` for cluster-wide) and
/// binding name; one binding collects the subjects of every entry that
/// grants the same role there.
struct Plans<'a, F> {
    config: &'a Config,
    role_for: F,
    planned: BTreeMap<(Option<String>, String), Planned>,
}

impl<F: Fn(&Api, RoleKind) -> Vec<(Option<String>, String)>> Plans<'_, F> {
    /// Plans `binding` on `api`: in each of `namespaces`, or cluster-wide
    /// without them; and, for a CRD, cluster-wide reading of its definition.
    fn binding_on(
        &mut self,
        binding: &Binding,
        api: &Api,
        namespaces: Option<&[String]>,
        field: &str,
        results: &mut Vec<Finding>,
    ) {
        match namespaces {
            Some(_) if api.cluster_scoped() => {
                let scope_field = match &binding.scope {
                    Scope::Namespaces { names, .. } if names.is_empty() => format!("{field}.namespaceSelector"),
                    _ => format!("{field}.namespaces"),
                };
                results.push(
                    Finding::warning(Code::BindingPartial, format!(
                        "skipped {} for this binding: it is cluster-scoped, and a RoleBinding cannot grant access to cluster-scoped resources; bind it cluster-wide instead (leave out namespaces and namespaceSelector)",
                        api.name
                    ))
                    .on(&self.config.object_ref())
                    .at(scope_field),
                );
            }
            Some(list) => {
                for role in roles_bound_with(binding.role) {
                    for (version, role_name) in (self.role_for)(api, role) {
                        for ns in list {
                            let name = names::api_binding(self.config, api, version.as_deref(), role);
                            self.add(
                                (Some(ns.clone()), name),
                                api_about(api, &version, role),
                                &role_name,
                                &binding.subjects,
                            );
                        }
                    }
                }
            }
            None => {
                for role in roles_bound_with(binding.role) {
                    for (version, role_name) in (self.role_for)(api, role) {
                        let name = names::api_binding(self.config, api, version.as_deref(), role);
                        self.add((None, name), api_about(api, &version, role), &role_name, &binding.subjects);
                    }
                }
            }
        }
        if api.source == ApiSource::Crd {
            for (version, role_name) in (self.role_for)(api, RoleKind::CrdView) {
                let name = names::api_binding(self.config, api, version.as_deref(), RoleKind::CrdView);
                self.add((None, name), api_about(api, &version, RoleKind::CrdView), &role_name, &binding.subjects);
            }
        }
    }

    /// Plans `binding`'s share of OLM's own APIs (`spec.olmAPIs`): each role
    /// where the binding applies, but the cluster-scoped discovery role, which
    /// only a ClusterRoleBinding grants: it is bound cluster-wide for a
    /// namespaced binding too (it only reads which extensions and catalogs the
    /// cluster has), unless the binding applies in no namespace at all.
    fn olm_binding(&mut self, binding: &Binding, namespaces: Option<&[String]>) {
        for role in olm_apis::bound_with(self.config.olm_apis, binding.role) {
            let name = role.name(&self.config.extension);
            let places: Vec<Option<String>> = match namespaces {
                Some([]) => Vec::new(),
                Some(_) if role.cluster_scoped() => vec![None],
                Some(list) => list.iter().cloned().map(Some).collect(),
                None => vec![None],
            };
            for place in places {
                self.add((place, name.clone()), About::Olm(role), &name, &binding.subjects);
            }
        }
    }

    fn add(&mut self, key: (Option<String>, String), about: About, role_name: &str, subjects: &[Subject]) {
        let entry = self.planned.entry(key).or_insert_with(|| Planned {
            about,
            role_name: role_name.to_string(),
            subjects: BTreeSet::new(),
        });
        entry.subjects.extend(subjects.iter().cloned());
    }
}

/// What a binding of an API's role is for.
fn api_about(api: &Api, version: &Option<String>, role: RoleKind) -> About {
    About::Api { api: api.name.clone(), version: version.clone(), role }
}

/// Where a binding applies: `None` cluster-wide, or the namespaces it lists
/// and those its selector picks among the admin's Namespace objects.
fn binding_scope(
    binding: &Binding,
    field: &str,
    namespaces: &[&InputObject],
    objects: &[InputObject],
    cfg: &ObjRef,
    results: &mut Vec<Finding>,
) -> Option<Vec<String>> {
    match &binding.scope {
        Scope::Cluster => None,
        Scope::Namespaces { names, selector } => {
            let mut all: BTreeSet<String> = names.iter().cloned().collect();
            if let Some(sel) = selector {
                all.extend(selected_namespaces(
                    sel,
                    &format!("{field}.namespaceSelector"),
                    namespaces,
                    objects,
                    cfg,
                    results,
                ));
            }
            Some(all.into_iter().collect())
        }
    }
}

/// A planned binding as the object to write: a ClusterRoleBinding, or a
/// RoleBinding in its namespace, of the ClusterRole that serves the role.
fn to_object(config: &Config, (namespace, name): (Option<String>, String), p: Planned) -> Made {
    let subjects: Vec<K8sSubject> = p.subjects.iter().map(k8s_subject).collect();
    let role_ref = RoleRefKind::ClusterRole.role_ref(&p.role_name);
    let mut meta: ObjectMeta = match &p.about {
        About::Api { api, role, .. } => metadata(config, Some(api), role.as_str()),
        About::Olm(role) => metadata(config, None, role.label()),
        About::Operator(_) | About::Installer(_) | About::Pin | About::Delegation | About::Modelled => {
            ObjectMeta::default()
        }
    };
    meta.name = Some(name);
    let object = match namespace {
        None => Object::ClusterRoleBinding(ClusterRoleBinding { metadata: meta, role_ref, subjects: Some(subjects) }),
        Some(ns) => {
            meta.namespace = Some(ns);
            Object::RoleBinding(RoleBinding { metadata: meta, role_ref, subjects: Some(subjects) })
        }
    };
    (p.about, object)
}

/// A config's subject as RBAC writes it.
pub(crate) fn k8s_subject(s: &Subject) -> K8sSubject {
    K8sSubject {
        api_group: Some(match s.kind {
            SubjectKind::User | SubjectKind::Group => RBAC_GROUP.into(),
            SubjectKind::ServiceAccount => String::new(),
        }),
        kind: s.kind.as_str().into(),
        name: s.name.clone(),
        namespace: s.namespace.clone(),
    }
}

fn warn_broad_subjects(binding: &Binding, field: &str, cfg: &ObjRef, results: &mut Vec<Finding>) {
    for s in &binding.subjects {
        let everyone = match (s.kind, s.name.as_str()) {
            (SubjectKind::Group, "system:authenticated") => Some("every authenticated user"),
            (SubjectKind::Group, "system:serviceaccounts") => Some("every service account in the cluster"),
            _ => None,
        };
        if let Some(who) = everyone {
            results.push(
                Finding::warning(
                    Code::BindingEveryone,
                    format!(
                        "group {:?} means {who}: this binding grants the {} role to all of them",
                        s.name,
                        binding.role.as_str()
                    ),
                )
                .on(cfg)
                .at(format!("{field}.subjects")),
            );
        }
    }
}
