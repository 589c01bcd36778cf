//! The core's decisions, checked on typed values: no YAML involved. The
//! builders shared by every subject are here; each subject has its module.

use super::*;
use crate::config::RoleKind;
use crate::config::{Binding, Config, Mode, Naming, Scope, Subject, SubjectKind};
use crate::findings::FileRef;
use crate::findings::Severity;
use k8s_openapi::api::rbac::v1::ClusterRole;
use std::collections::BTreeSet;

fn header(api_version: &str, kind: &str, name: &str) -> Header {
    Header {
        api_version: Some(api_version.into()),
        kind: Some(kind.into()),
        name: Some(name.into()),
        ..Default::default()
    }
}

fn crd(plural: &str, group: &str, version: &str) -> InputObject {
    InputObject {
        header: header("apiextensions.k8s.io/v1", "CustomResourceDefinition", &format!("{plural}.{group}")),
        body: Body::Crd(CrdView {
            api_version: Some("apiextensions.k8s.io/v1".into()),
            spec: CrdSpec {
                group: Some(group.into()),
                names: CrdNames { plural: Some(plural.into()), kind: None, ..Default::default() },
                scope: Some("Namespaced".into()),
                versions: vec![CrdVersion { name: Some(version.into()), storage: true }],
                version: None,
            },
        }),
        file: Some(FileRef { path: format!("{group}_{plural}.yaml"), index: Some(0) }),
    }
}

fn csv(name: &str, owned: &[(&str, &str)], apiservices: &[(&str, &str)]) -> InputObject {
    InputObject {
        header: header("operators.coreos.com/v1alpha1", "ClusterServiceVersion", name),
        body: Body::Csv(CsvView {
            spec: CsvSpec {
                customresourcedefinitions: Owned {
                    owned: owned
                        .iter()
                        .map(|(n, v)| OwnedCrd { name: Some(n.to_string()), version: Some(v.to_string()), kind: None })
                        .collect(),
                },
                apiservicedefinitions: Owned {
                    owned: apiservices
                        .iter()
                        .map(|(n, g)| OwnedApiService {
                            name: Some(n.to_string()),
                            group: Some(g.to_string()),
                            version: Some("v1beta1".into()),
                            kind: None,
                        })
                        .collect(),
                },
                // What OLM v1 installs (`installable`).
                install_modes: vec![InstallModeView { mode: Some("AllNamespaces".into()), supported: true }],
                ..Default::default()
            },
        }),
        file: None,
    }
}

fn names(plan: &Plan) -> Vec<String> {
    plan.generated().iter().map(|g| g.object.metadata().name.clone().unwrap_or_default()).collect()
}

fn role<'a>(plan: &'a Plan, name: &str) -> &'a ClusterRole {
    let found = plan.generated().iter().find(|g| g.object.metadata().name.as_deref() == Some(name));
    match found.map(|g| &g.object) {
        Some(Object::ClusterRole(r)) => r,
        _ => panic!("no role {name} in {:?}", names(plan)),
    }
}

fn errors(plan: &Plan) -> Vec<&Finding> {
    plan.results().iter().filter(|r| r.severity == Severity::Error).collect()
}

fn warnings(plan: &Plan) -> Vec<&Finding> {
    plan.results().iter().filter(|r| r.severity == Severity::Warning).collect()
}

fn plan_of(config: Config, objects: &[InputObject]) -> Plan {
    plan(&[config], objects)
}

fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> RuleView {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect();
    RuleView { api_groups: s(groups), resources: s(resources), verbs: s(verbs), ..Default::default() }
}

fn cluster_role(name: &str, rules: Vec<RuleView>, labels: &[(&str, &str)]) -> InputObject {
    let mut h = header("rbac.authorization.k8s.io/v1", "ClusterRole", name);
    h.labels = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    InputObject { header: h, body: Body::Role(RoleView { rules, ..Default::default() }), file: None }
}

fn editor_role(name: &str) -> InputObject {
    cluster_role(
        name,
        vec![rule(&["example.com"], &["widgets"], &["create", "delete", "get", "list", "patch", "update", "watch"])],
        &[],
    )
}

fn subject(kind: SubjectKind, name: &str, namespace: Option<&str>) -> Subject {
    Subject { kind, name: name.into(), namespace: namespace.map(String::from) }
}

fn bind(role: RoleKind, subjects: Vec<Subject>, scope: Scope) -> Binding {
    Binding { role, subjects, scope }
}

/// (kind, namespace, name, roleRef name, subjects as `Kind:name`)
type BindingSummary = (String, Option<String>, String, String, Vec<String>);

fn bindings_of(plan: &Plan) -> Vec<BindingSummary> {
    plan.generated()
        .iter()
        .filter_map(|g| {
            let (kind, role_ref, subjects) = match &g.object {
                Object::ClusterRoleBinding(b) => ("ClusterRoleBinding", &b.role_ref, &b.subjects),
                Object::RoleBinding(b) => ("RoleBinding", &b.role_ref, &b.subjects),
                _ => return None,
            };
            let m = g.object.metadata();
            let subjects = subjects.iter().flatten().map(|s| format!("{}:{}", s.kind, s.name)).collect();
            Some((
                kind.to_string(),
                m.namespace.clone(),
                m.name.clone().unwrap_or_default(),
                role_ref.name.clone(),
                subjects,
            ))
        })
        .collect()
}

mod apis;
mod bindings;
mod bundle_objects;
mod bundle_roles;
mod earlier_output;
mod scope;
