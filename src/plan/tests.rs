//! The core's decisions, checked on typed values: no YAML involved.

use super::*;
use crate::config::Config;
use crate::report::FileRef;

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
            spec: CrdSpec {
                group: Some(group.into()),
                names: CrdNames { plural: Some(plural.into()), kind: None },
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
            },
        }),
        file: None,
    }
}

fn names(plan: &Plan) -> Vec<String> {
    plan.generated.iter().map(|g| g.object.metadata().name.clone().unwrap_or_default()).collect()
}

fn role<'a>(plan: &'a Plan, name: &str) -> &'a ClusterRole {
    let found = plan.generated.iter().find(|g| g.object.metadata().name.as_deref() == Some(name));
    match found.map(|g| &g.object) {
        Some(Object::ClusterRole(r)) => r,
        None => panic!("no role {name} in {:?}", names(plan)),
    }
}

fn errors(plan: &Plan) -> Vec<&Finding> {
    plan.results.iter().filter(|r| r.severity == Severity::Error).collect()
}

fn warnings(plan: &Plan) -> Vec<&Finding> {
    plan.results.iter().filter(|r| r.severity == Severity::Warning).collect()
}

#[test]
fn aggregate_writes_four_roles_per_crd_with_the_plural() {
    let plan = plan(&[Config::new("cache", Mode::Aggregate)], &[crd("memcacheds", "cache.example.com", "v1alpha1")]);
    assert!(errors(&plan).is_empty(), "{:?}", plan.results);
    assert_eq!(
        names(&plan),
        [
            "memcacheds.cache.example.com-admin",
            "memcacheds.cache.example.com-edit",
            "memcacheds.cache.example.com-view",
            "memcacheds.cache.example.com-view-crdview"
        ]
    );
    let admin = role(&plan, "memcacheds.cache.example.com-admin");
    let rule = &admin.rules.as_ref().unwrap()[0];
    assert_eq!(rule.api_groups.as_deref(), Some(&["cache.example.com".to_string()][..]));
    assert_eq!(rule.resources.as_deref(), Some(&["memcacheds".to_string()][..]));
    assert_eq!(rule.verbs, ["*"]);
    assert!(admin.aggregation_rule.is_none(), "an aggregationRule needs cluster-admin to apply");
    let labels = admin.metadata.labels.as_ref().unwrap();
    assert_eq!(labels["rbac.authorization.k8s.io/aggregate-to-admin"], "true");
    assert_eq!(labels[MANAGED_BY], MANAGER);
    assert_eq!(labels[EXTENSION_LABEL], "cache");
    let edit = role(&plan, "memcacheds.cache.example.com-edit");
    assert_eq!(edit.rules.as_ref().unwrap()[0].verbs, ["create", "update", "patch", "delete"]);
    assert_eq!(edit.metadata.labels.as_ref().unwrap()["rbac.authorization.k8s.io/aggregate-to-edit"], "true");
    let view = role(&plan, "memcacheds.cache.example.com-view");
    assert_eq!(view.rules.as_ref().unwrap()[0].verbs, ["get", "list", "watch"]);
    let crdview = role(&plan, "memcacheds.cache.example.com-view-crdview");
    let rule = &crdview.rules.as_ref().unwrap()[0];
    assert_eq!(rule.resources.as_deref(), Some(&["customresourcedefinitions".to_string()][..]));
    assert_eq!(rule.resource_names.as_deref(), Some(&["memcacheds.cache.example.com".to_string()][..]));
    assert_eq!(rule.verbs, ["get"]);
    assert_eq!(crdview.metadata.labels.as_ref().unwrap()["rbac.authorization.k8s.io/aggregate-to-view"], "true");
    let annotations = crdview.metadata.annotations.as_ref().unwrap();
    assert_eq!(annotations[API_ANNOTATION], "memcacheds.cache.example.com");
    assert_eq!(annotations[MODE_ANNOTATION], "Aggregate");
}

#[test]
fn olmv0_naming_uses_each_csv_version_and_crdview_suffix() {
    let mut config = Config::new("argocd", Mode::Aggregate);
    config.naming = Naming::OlmV0;
    let objects = [
        crd("argocds", "argoproj.io", "v1beta1"),
        csv("argocd.v1", &[("argocds.argoproj.io", "v1alpha1"), ("argocds.argoproj.io", "v1beta1")], &[]),
    ];
    let plan = plan(&[config], &objects);
    assert_eq!(
        names(&plan),
        [
            "argocds.argoproj.io-v1alpha1-admin",
            "argocds.argoproj.io-v1alpha1-edit",
            "argocds.argoproj.io-v1alpha1-view",
            "argocds.argoproj.io-v1alpha1-crdview",
            "argocds.argoproj.io-v1beta1-admin",
            "argocds.argoproj.io-v1beta1-edit",
            "argocds.argoproj.io-v1beta1-view",
            "argocds.argoproj.io-v1beta1-crdview",
        ]
    );
}

#[test]
fn the_csv_decides_which_apis_and_a_missing_crd_is_a_warning() {
    let objects = [
        crd("widgets", "example.com", "v1"),
        crd("unowned", "example.com", "v1"),
        csv("op.v1", &[("widgets.example.com", "v1"), ("gadgets.example.com", "v2")], &[]),
    ];
    let plan = plan(&[Config::new("op", Mode::Aggregate)], &objects);
    let apis: BTreeSet<String> = plan
        .generated
        .iter()
        .filter_map(|g| g.object.metadata().annotations.as_ref().map(|a| a[API_ANNOTATION].clone()))
        .collect();
    assert_eq!(apis, BTreeSet::from(["gadgets.example.com".to_string(), "widgets.example.com".to_string()]));
    let w = warnings(&plan);
    assert_eq!(w.len(), 1);
    assert!(w[0].message.contains("gadgets.example.com"));
    assert_eq!(w[0].field.as_deref(), Some("spec.customresourcedefinitions.owned[1].name"));
    assert_eq!(w[0].object.as_ref().unwrap().name, "op.v1");
}

#[test]
fn owned_apiservices_get_three_roles_on_their_resource() {
    let objects = [csv("enmasse.v1", &[], &[("addressspaces", "enmasse.io")])];
    let plan = plan(&[Config::new("enmasse", Mode::Aggregate)], &objects);
    assert_eq!(
        names(&plan),
        ["addressspaces.enmasse.io-admin", "addressspaces.enmasse.io-edit", "addressspaces.enmasse.io-view"]
    );
    let rule = &role(&plan, "addressspaces.enmasse.io-view").rules.as_ref().unwrap()[0];
    assert_eq!(rule.resources.as_deref(), Some(&["addressspaces".to_string()][..]));
    assert_eq!(rule.api_groups.as_deref(), Some(&["enmasse.io".to_string()][..]));
}

#[test]
fn several_csvs_need_a_name() {
    let objects = [csv("a.v1", &[], &[]), csv("b.v1", &[], &[])];
    let plan1 = plan(&[Config::new("x", Mode::Aggregate)], &objects);
    let e = errors(&plan1);
    assert_eq!(e.len(), 1);
    assert!(e[0].message.contains("a.v1, b.v1"), "{}", e[0].message);
    assert_eq!(e[0].field.as_deref(), Some("spec.clusterServiceVersion"));

    let mut config = Config::new("x", Mode::Aggregate);
    config.cluster_service_version = Some("c.v1".into());
    let plan2 = plan(&[config], &objects);
    assert!(errors(&plan2)[0].message.contains("\"c.v1\" is not in the input (found: a.v1, b.v1)"));
}

#[test]
fn filters_apply_include_then_exclude_and_warn_on_unused_patterns() {
    let mut config = Config::new("argocd", Mode::Aggregate);
    config.include = vec!["*.argoproj.io".into(), "*.nothing.io".into()];
    config.exclude = vec!["argocdexports.argoproj.io".into()];
    config.roles = vec![RoleKind::View];
    let objects = [
        crd("argocds", "argoproj.io", "v1"),
        crd("argocdexports", "argoproj.io", "v1"),
        crd("other", "example.com", "v1"),
    ];
    let plan = plan(&[config], &objects);
    assert_eq!(names(&plan), ["argocds.argoproj.io-view"]);
    let w = warnings(&plan);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].field.as_deref(), Some("spec.apis.include[1]"));
}

fn generated_item(name: &str, extension: &str) -> InputObject {
    let mut h = header("rbac.authorization.k8s.io/v1", "ClusterRole", name);
    h.labels.insert(MANAGED_BY.into(), MANAGER.into());
    h.labels.insert(EXTENSION_LABEL.into(), extension.into());
    InputObject { header: h, ..Default::default() }
}

#[test]
fn unmanaged_removes_earlier_output_and_names_the_apis() {
    let objects = [
        crd("widgets", "example.com", "v1"),
        generated_item("widgets.example.com-admin", "op"),
        generated_item("other.example.com-admin", "someone-else"),
    ];
    let plan = plan(&[Config::new("op", Mode::Unmanaged)], &objects);
    assert!(plan.generated.is_empty());
    assert_eq!(plan.remove, BTreeSet::from([1]), "only this extension's earlier output goes");
    let info: Vec<&Finding> = plan.results.iter().filter(|r| r.severity == Severity::Info).collect();
    assert_eq!(info.len(), 1);
    assert!(info[0].message.contains("widgets.example.com"));
    assert!(info[0].message.contains("spec.mode"));
}

#[test]
fn rerunning_replaces_earlier_output_instead_of_conflicting() {
    let objects = [crd("widgets", "example.com", "v1"), generated_item("widgets.example.com-admin", "op")];
    let plan = plan(&[Config::new("op", Mode::Aggregate)], &objects);
    assert!(errors(&plan).is_empty(), "{:?}", plan.results);
    assert_eq!(plan.remove, BTreeSet::from([1]));
    assert_eq!(plan.generated.len(), 4);
}

#[test]
fn a_crd_without_group_or_plural_is_an_error_and_nothing_is_generated() {
    let mut broken = crd("widgets", "example.com", "v1");
    if let Body::Crd(v) = &mut broken.body {
        v.spec.group = None;
        v.spec.names.plural = None;
    }
    let objects = [broken, crd("gadgets", "example.com", "v1"), generated_item("gadgets.example.com-admin", "op")];
    let plan = plan(&[Config::new("op", Mode::Aggregate)], &objects);
    let e = errors(&plan);
    let fields: Vec<&str> = e.iter().filter_map(|f| f.field.as_deref()).collect();
    assert_eq!(fields, ["spec.group", "spec.names.plural"]);
    assert_eq!(e[0].object.as_ref().unwrap().name, "widgets.example.com");
    assert_eq!(e[0].file.as_ref().unwrap().path, "example.com_widgets.yaml");
    assert!(plan.generated.is_empty() && plan.remove.is_empty(), "no partial output");
}

#[test]
fn a_foreign_object_with_a_generated_name_is_a_conflict() {
    let mut hand_written = header("rbac.authorization.k8s.io/v1", "ClusterRole", "widgets.example.com-view");
    hand_written.labels.insert("team".into(), "a".into());
    let objects = [crd("widgets", "example.com", "v1"), InputObject { header: hand_written, ..Default::default() }];
    let plan = plan(&[Config::new("op", Mode::Aggregate)], &objects);
    let e = errors(&plan);
    assert_eq!(e.len(), 1);
    assert!(e[0].message.contains("widgets.example.com-view"));
    assert!(e[0].message.contains("not generated by olm-rbac"));
    assert_eq!(e[0].object.as_ref().unwrap().name, "widgets.example.com-view");
    assert!(plan.generated.is_empty());
}

#[test]
fn two_configs_cannot_claim_one_extension() {
    let mut b = Config::new("op", Mode::Aggregate);
    b.name = "second".into();
    let plan = plan(&[Config::new("op", Mode::Aggregate), b], &[crd("widgets", "example.com", "v1")]);
    assert_eq!(errors(&plan).len(), 1);
    assert!(errors(&plan)[0].message.contains("claimed by two configs"));
}

#[test]
fn output_is_sorted_whatever_the_input_order() {
    let a = [crd("b", "example.com", "v1"), crd("a", "example.com", "v1")];
    let b = [crd("a", "example.com", "v1"), crd("b", "example.com", "v1")];
    let config = [Config::new("op", Mode::Aggregate)];
    assert_eq!(plan(&config, &a).generated, plan(&config, &b).generated);
    assert_eq!(names(&plan(&config, &a))[0], "a.example.com-admin");
}
