//! The core's decisions, checked on typed values: no YAML involved.

use super::bundle::{classify, RoleFit};
use super::*;
use crate::config::{Config, Mode, Naming};
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
                ..Default::default()
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
        _ => panic!("no role {name} in {:?}", names(plan)),
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
    assert_eq!(labels[&AggregatingRole::Admin.label()], "true");
    assert_eq!(labels[MANAGED_BY], MANAGER);
    assert_eq!(labels[EXTENSION_LABEL], "cache");
    let edit = role(&plan, "memcacheds.cache.example.com-edit");
    assert_eq!(edit.rules.as_ref().unwrap()[0].verbs, ["create", "update", "patch", "delete"]);
    assert_eq!(edit.metadata.labels.as_ref().unwrap()[&AggregatingRole::Edit.label()], "true");
    let view = role(&plan, "memcacheds.cache.example.com-view");
    assert_eq!(view.rules.as_ref().unwrap()[0].verbs, ["get", "list", "watch"]);
    let crdview = role(&plan, "memcacheds.cache.example.com-view-crdview");
    let rule = &crdview.rules.as_ref().unwrap()[0];
    assert_eq!(rule.resources.as_deref(), Some(&["customresourcedefinitions".to_string()][..]));
    assert_eq!(rule.resource_names.as_deref(), Some(&["memcacheds.cache.example.com".to_string()][..]));
    assert_eq!(rule.verbs, ["get"]);
    assert_eq!(crdview.metadata.labels.as_ref().unwrap()[&AggregatingRole::View.label()], "true");
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
fn the_csv_decides_which_apis() {
    let objects = [
        crd("widgets", "example.com", "v1"),
        crd("unowned", "example.com", "v1"),
        csv("op.v1", &[("widgets.example.com", "v1")], &[]),
    ];
    let plan = plan(&[Config::new("op", Mode::Aggregate)], &objects);
    let apis: BTreeSet<String> = plan
        .generated
        .iter()
        .filter_map(|g| g.object.metadata().annotations.as_ref().map(|a| a[API_ANNOTATION].clone()))
        .collect();
    assert_eq!(apis, BTreeSet::from(["widgets.example.com".to_string()]));
    assert!(errors(&plan).is_empty() && warnings(&plan).is_empty(), "{:?}", plan.results);
}

#[test]
fn an_owned_crd_missing_from_the_input_is_an_error_unless_excluded() {
    let objects = [
        crd("widgets", "example.com", "v1"),
        csv("op.v1", &[("widgets.example.com", "v1"), ("gadgets.example.com", "v2")], &[]),
    ];
    let plan = plan(&[Config::new("op", Mode::Aggregate)], &objects);
    assert!(plan.generated.is_empty(), "an error means nothing is generated");
    let e = errors(&plan);
    assert_eq!(e.len(), 1);
    assert!(e[0].message.contains("owned CRD \"gadgets.example.com\" is not in the input"), "{}", e[0].message);
    assert_eq!(e[0].field.as_deref(), Some("spec.customresourcedefinitions.owned[1].name"));
    assert_eq!(e[0].object.as_ref().unwrap().name, "op.v1");

    let mut config = Config::new("op", Mode::Aggregate);
    config.exclude = vec!["gadgets.example.com".into()];
    let plan = plan_of(config, &objects);
    assert!(errors(&plan).is_empty(), "{:?}", plan.results);
    assert_eq!(plan.generated.len(), 4);
}

#[test]
fn owned_apiservices_get_three_roles_on_their_resource_in_groups_the_admin_vouches_for() {
    let objects = [csv("enmasse.v1", &[], &[("addressspaces", "enmasse.io")])];
    let refused = plan(&[Config::new("enmasse", Mode::Aggregate)], &objects);
    assert!(refused.generated.is_empty());
    assert_eq!(errors(&refused)[0].field.as_deref(), Some("spec.apiservicedefinitions.owned[0].group"));
    assert!(errors(&refused)[0].message.contains("list \"enmasse.io\" in spec.apiServiceGroups"));
    let mut config = Config::new("enmasse", Mode::Aggregate);
    config.api_service_groups = vec!["enmasse.io".into()];
    let plan = plan_of(config, &objects);
    assert_eq!(
        names(&plan),
        ["addressspaces.enmasse.io-admin", "addressspaces.enmasse.io-edit", "addressspaces.enmasse.io-view"]
    );
    let rule = &role(&plan, "addressspaces.enmasse.io-view").rules.as_ref().unwrap()[0];
    assert_eq!(rule.resources.as_deref(), Some(&["addressspaces".to_string()][..]));
    assert_eq!(rule.api_groups.as_deref(), Some(&["enmasse.io".to_string()][..]));
}

/// OLM v0's names for an owned entry's roles: the entry's `name` and
/// `version`, then the suffix (`crd` + `view` for the CRD reader).
fn olm_v0_names(owned_name: &str, version: &str, crd: bool) -> Vec<String> {
    let prefix = format!("{owned_name}-{version}-");
    let mut suffixes = [RoleKind::Admin, RoleKind::Edit, RoleKind::View].map(RoleKind::as_str).to_vec();
    if crd {
        suffixes.push("crdview");
    }
    suffixes.into_iter().map(|s| format!("{prefix}{s}")).collect()
}

#[test]
fn olmv0_naming_follows_olm_v0_for_crds_and_apiservices() {
    let objects = [
        crd("widgets", "example.com", "v1"),
        csv("op.v1", &[("widgets.example.com", "v1")], &[("addressspaces", "enmasse.io")]),
    ];
    let mut config = Config::new("op", Mode::Aggregate);
    config.naming = Naming::OlmV0;
    config.api_service_groups = vec!["enmasse.io".into()];
    let plan = plan_of(config, &objects);
    assert!(errors(&plan).is_empty(), "{:?}", plan.results);
    let got: BTreeSet<String> = names(&plan).into_iter().collect();
    // An APIService entry's `name` is the bare plural: OLM v0 put no group in these names.
    let want: BTreeSet<String> = olm_v0_names("widgets.example.com", "v1", true)
        .into_iter()
        .chain(olm_v0_names("addressspaces", "v1beta1", false))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_csv_is_known_by_its_kind_whatever_its_api_version() {
    for version in ["binding.operators.coreos.com/v1alpha1", "v1alpha1"] {
        let mut c = csv("op.v1", &[("widgets.example.com", "v1")], &[]);
        c.header.api_version = Some(version.into());
        let objects = [crd("widgets", "example.com", "v1"), crd("other", "example.com", "v1"), c];
        let mut config = Config::new("op", Mode::Aggregate);
        config.cluster_service_version = Some("op.v1".into());
        let plan = plan_of(config, &objects);
        assert!(errors(&plan).is_empty(), "{:?}", plan.results);
        assert_eq!(names(&plan).len(), 4, "the CSV decides: only widgets");
        let w = warnings(&plan);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].field.as_deref(), Some("apiVersion"));
        assert!(w[0].message.contains(&format!("apiVersion {version:?} is not operators.coreos.com/v1alpha1")));
    }
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
fn filters_apply_include_then_exclude_and_unused_patterns_are_named() {
    let mut config = Config::new("argocd", Mode::Aggregate);
    config.include = vec!["*.argoproj.io".into()];
    config.exclude = vec!["argocdexports.argoproj.io".into(), "*.nothing.io".into()];
    config.roles = vec![RoleKind::View];
    let objects = [
        crd("argocds", "argoproj.io", "v1"),
        crd("argocdexports", "argoproj.io", "v1"),
        crd("other", "example.com", "v1"),
    ];
    let plan = plan_of(config.clone(), &objects);
    assert_eq!(names(&plan), ["argocds.argoproj.io-view"]);
    let w = warnings(&plan);
    assert_eq!(w.len(), 1, "an exclude that matches nothing excludes nothing: a warning");
    assert_eq!(w[0].field.as_deref(), Some("spec.apis.exclude[1]"));

    // An include that matches nothing leaves out what was asked for: an error.
    config.include.push("*.argoproj.i".into());
    let plan = plan_of(config, &objects);
    assert!(plan.generated.is_empty());
    let e = errors(&plan);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].field.as_deref(), Some("spec.apis.include[1]"));
    assert_eq!(e[0].message, "pattern \"*.argoproj.i\" matches no API in the input");
}

#[test]
fn no_api_to_manage_is_an_error_unless_expected() {
    let objects = [InputObject { header: header("v1", "ConfigMap", "c"), ..Default::default() }];
    for mode in [Mode::Aggregate, Mode::Bind] {
        let plan = plan_of(Config::new("op", mode), &objects);
        let e = errors(&plan);
        assert_eq!(e.len(), 1, "{mode:?}");
        assert!(
            e[0].message.starts_with("the input holds no API to grant access to (found 1 ConfigMap)"),
            "{}",
            e[0].message
        );
        assert!(e[0].message.ends_with("set spec.allowNoAPIs: true if nothing to do is expected"));
        let mut config = Config::new("op", mode);
        config.allow_no_apis = true;
        assert!(errors(&plan_of(config, &objects)).is_empty());
    }
    let plan = plan_of(Config::new("op", Mode::Unmanaged), &objects);
    assert!(errors(&plan).is_empty() && warnings(&plan).len() == 1);
}

/// An admin role as olm-rbac writes it for `<plural>.<group>`.
fn generated_item(name: &str, extension: &str) -> InputObject {
    let api = name.strip_suffix("-admin").unwrap();
    let (plural, group) = api.split_once('.').unwrap();
    let mut h = header("rbac.authorization.k8s.io/v1", "ClusterRole", name);
    h.labels.insert(MANAGED_BY.into(), MANAGER.into());
    h.labels.insert(EXTENSION_LABEL.into(), extension.into());
    h.labels.insert(ROLE_LABEL.into(), "admin".into());
    h.annotations.insert(API_ANNOTATION.into(), api.into());
    let rules = vec![rule(&[group], &[plural], &["*"])];
    InputObject { header: h, body: Body::Role(RoleView { rules, ..Default::default() }), file: None }
}

#[test]
fn unmanaged_removes_earlier_output_and_names_the_apis() {
    let objects = [
        crd("widgets", "example.com", "v1"),
        crd("other", "example.com", "v1"),
        generated_item("widgets.example.com-admin", "op"),
        generated_item("other.example.com-admin", "someone-else"),
    ];
    let mut config = Config::new("op", Mode::Unmanaged);
    config.include = vec!["widgets.example.com".into()];
    let plan = plan_of(config, &objects);
    assert!(plan.generated.is_empty());
    assert_eq!(plan.remove, BTreeSet::from([2]), "only this extension's earlier output goes");
    let info: Vec<&Finding> = plan.results.iter().filter(|r| r.severity == Severity::Info).collect();
    assert_eq!(info.len(), 2, "{info:?}");
    let removed = info.iter().find(|f| f.message.starts_with("removed: ")).unwrap();
    assert!(removed
        .message
        .contains("generated it for extension \"op\" earlier, and this run (Unmanaged mode) does not"));
    assert_eq!(removed.object.as_ref().unwrap().name, "widgets.example.com-admin");
    let unmanaged = info.iter().find(|f| f.message.contains("unmanaged")).unwrap();
    assert!(unmanaged.message.contains("widgets.example.com") && unmanaged.message.contains("spec.mode"));
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
    assert!(
        plan.results.iter().all(|r| r.severity != Severity::Info),
        "no result may claim something was generated: {:?}",
        plan.results
    );
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
    assert!(errors(&plan).iter().any(|e| e.message.contains("claimed by two configs")), "{:?}", plan.results);
    assert!(plan.generated.is_empty());
}

#[test]
fn output_is_sorted_whatever_the_input_order() {
    let a = [crd("b", "example.com", "v1"), crd("a", "example.com", "v1")];
    let b = [crd("a", "example.com", "v1"), crd("b", "example.com", "v1")];
    let config = [Config::new("op", Mode::Aggregate)];
    assert_eq!(plan(&config, &a).generated, plan(&config, &b).generated);
    assert_eq!(names(&plan(&config, &a))[0], "a.example.com-admin");
}

// ---------------------------------------------------------------------------
// Bundle roles, Bind mode, patches.

use crate::config::{Binding, BundleRoles, Scope, Selector, Subject, SubjectKind};

fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> RuleView {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect();
    RuleView { api_groups: s(groups), resources: s(resources), verbs: s(verbs), ..Default::default() }
}

fn cluster_role(name: &str, rules: Vec<RuleView>, labels: &[(&str, &str)]) -> InputObject {
    let mut h = header("rbac.authorization.k8s.io/v1", "ClusterRole", name);
    h.labels = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    InputObject { header: h, body: Body::Role(RoleView { rules, ..Default::default() }), file: None }
}

fn api(plural: &str, group: &str) -> Api {
    Api {
        name: format!("{plural}.{group}"),
        group: group.into(),
        plural: plural.into(),
        kind: None,
        source: ApiSource::Crd,
        versions: vec!["v1".into()],
        cluster_scoped: false,
        origin: ObjRef::default(),
        field: "spec.group".into(),
    }
}

#[test]
fn classification_follows_the_verbs_on_one_api() {
    let apis = [api("memcacheds", "cache.example.com"), api("other", "cache.example.com")];
    let status = rule(&["cache.example.com"], &["memcacheds/status"], &["get"]);
    let main = |verbs: &[&str]| rule(&["cache.example.com"], &["memcacheds"], verbs);
    assert_eq!(classify(&[main(&["*"]), status.clone()], &apis), RoleFit::Serves(0, RoleKind::Admin));
    let all = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];
    assert_eq!(classify(&[main(&all)], &apis), RoleFit::Serves(0, RoleKind::Admin));
    let editor = ["create", "delete", "get", "list", "patch", "update", "watch"];
    assert_eq!(classify(&[main(&editor), status.clone()], &apis), RoleFit::Serves(0, RoleKind::Edit));
    assert_eq!(classify(&[main(&["get", "list", "watch"]), status.clone()], &apis), RoleFit::Serves(0, RoleKind::View));
    // Two APIs, a subresource alone, other resources, resourceNames: not one API's role.
    let both = rule(&["cache.example.com"], &["memcacheds", "other"], &["get"]);
    assert_eq!(classify(&[both], &apis), RoleFit::Other([0, 1].into()));
    assert_eq!(classify(&[status], &apis), RoleFit::Other([0].into()));
    let mixed = [main(&["get"]), rule(&[""], &["configmaps"], &["get"])];
    assert_eq!(classify(&mixed, &apis), RoleFit::Other([0].into()));
    let mut named = main(&["get"]);
    named.resource_names = vec!["one".into()];
    assert_eq!(classify(&[named], &apis), RoleFit::Other([0].into()));
    let mut crd = rule(&["apiextensions.k8s.io"], &["customresourcedefinitions"], &["get"]);
    crd.resource_names = vec!["memcacheds.cache.example.com".into()];
    assert_eq!(classify(&[crd], &apis), RoleFit::Serves(0, RoleKind::CrdView));
}

fn editor_role(name: &str) -> InputObject {
    cluster_role(
        name,
        vec![rule(&["example.com"], &["widgets"], &["create", "delete", "get", "list", "patch", "update", "watch"])],
        &[],
    )
}

#[test]
fn a_bundle_role_replaces_the_generated_one_and_gains_its_label_in_aggregate_mode() {
    let objects = [crd("widgets", "example.com", "v1"), editor_role("widget-editor-role")];
    let plan = plan(&[Config::new("op", Mode::Aggregate)], &objects);
    assert!(!names(&plan).contains(&"widgets.example.com-edit".to_string()));
    assert_eq!(names(&plan).len(), 3);
    let patch = &plan.patches[&1];
    assert_eq!(patch.labels, [Edit::Set(AggregatingRole::Edit.label(), "true".into())]);
    assert_eq!(
        patch.annotations,
        [Edit::Set(LABEL_CHANGES_ANNOTATION.into(), format!("op: +{}", AggregatingRole::Edit.label()))]
    );
    assert!(plan.results.iter().any(|r| r.message.starts_with("provides the edit role for widgets.example.com")
        && r.object.as_ref().is_some_and(|o| o.name == "widget-editor-role")));

    let mut ignore = Config::new("op", Mode::Aggregate);
    ignore.bundle_roles = BundleRoles::Ignore;
    assert_eq!(names(&plan_of(ignore, &objects)).len(), 4, "bundleRoles: Ignore generates all four");
}

fn plan_of(config: Config, objects: &[InputObject]) -> Plan {
    plan(&[config], objects)
}

/// The role as a later run sees it after `patch` was written.
fn applied(o: &InputObject, patch: &MetaPatch) -> InputObject {
    let mut o = o.clone();
    (o.header.labels, o.header.annotations) = patch.apply(&o.header);
    o
}

#[test]
fn label_changes_are_recorded_and_undone_by_the_next_mode() {
    let crd = crd("widgets", "example.com", "v1");
    let role = editor_role("widget-editor-role");
    let aggregated =
        applied(&role, &plan_of(Config::new("op", Mode::Aggregate), &[crd.clone(), role.clone()]).patches[&1]);
    // Same mode again: already right, nothing to patch.
    assert!(plan_of(Config::new("op", Mode::Aggregate), &[crd.clone(), aggregated.clone()]).patches.is_empty());
    // Another mode: exactly what was added goes again.
    let undo = plan_of(Config::new("op", Mode::Unmanaged), &[crd.clone(), aggregated.clone()]).patches[&1].clone();
    let back = applied(&aggregated, &undo);
    assert_eq!(back.header.labels, role.header.labels);
    assert_eq!(back.header.annotations, role.header.annotations);
}

#[test]
fn bundle_aggregation_is_named_in_bind_mode_and_stripped_on_request() {
    let view = cluster_role(
        "widgets-view",
        vec![rule(&["example.com"], &["widgets", "gadgets"], &["get", "list", "watch"])],
        &[(&AggregatingRole::View.label(), "true"), ("app", "x")],
    );
    let objects = [crd("widgets", "example.com", "v1"), crd("gadgets", "example.com", "v1"), view];
    let mut config = Config::new("op", Mode::Unmanaged);
    let p = plan_of(config.clone(), &objects);
    let w = warnings(&p);
    assert_eq!(w.len(), 1);
    assert!(w[0].message.contains(&AggregatingRole::View.label()) && w[0].message.contains("stripBundleAggregation"));
    assert_eq!(w[0].object.as_ref().unwrap().name, "widgets-view");
    assert!(p.patches.is_empty());

    config.strip_bundle_aggregation = true;
    let p = plan_of(config.clone(), &objects);
    let patch = &p.patches[&2];
    assert_eq!(patch.labels, [Edit::Remove(AggregatingRole::View.label())]);
    let stripped = applied(&objects[2], patch);
    assert_eq!(
        stripped.header.annotations[LABEL_CHANGES_ANNOTATION],
        format!("op: -{}=true", AggregatingRole::View.label())
    );
    // Turning it off restores the label.
    config.strip_bundle_aggregation = false;
    let restored =
        applied(&stripped, &plan_of(config, &[objects[0].clone(), objects[1].clone(), stripped.clone()]).patches[&2]);
    assert_eq!(restored.header.labels, objects[2].header.labels);
    assert!(!restored.header.annotations.contains_key(LABEL_CHANGES_ANNOTATION));
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
    plan.generated
        .iter()
        .filter_map(|g| {
            let (kind, role_ref, subjects) = match &g.object {
                Object::ClusterRoleBinding(b) => ("ClusterRoleBinding", &b.role_ref, &b.subjects),
                Object::RoleBinding(b) => ("RoleBinding", &b.role_ref, &b.subjects),
                Object::ClusterRole(_) | Object::Role(_) | Object::ServiceAccount(_) => return None,
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

#[test]
fn bind_edit_also_binds_view_and_crdview_cluster_wide() {
    let mut config = Config::new("op", Mode::Bind);
    config.bindings = vec![bind(
        RoleKind::Edit,
        vec![subject(SubjectKind::Group, "devs", None)],
        Scope::Namespaces { names: vec!["team-a".into()], selector: None },
    )];
    let p = plan_of(config, &[crd("widgets", "example.com", "v1")]);
    assert!(errors(&p).is_empty(), "{:?}", p.results);
    let devs = vec!["Group:devs".to_string()];
    assert_eq!(
        bindings_of(&p),
        [
            (
                "ClusterRoleBinding".into(),
                None,
                "op-widgets.example.com-view-crdview".into(),
                "widgets.example.com-view-crdview".into(),
                devs.clone()
            ),
            (
                "RoleBinding".into(),
                Some("team-a".into()),
                "op-widgets.example.com-edit".into(),
                "widgets.example.com-edit".into(),
                devs.clone()
            ),
            (
                "RoleBinding".into(),
                Some("team-a".into()),
                "op-widgets.example.com-view".into(),
                "widgets.example.com-view".into(),
                devs
            ),
        ]
    );
    let role = role(&p, "widgets.example.com-edit");
    assert!(
        !role.metadata.labels.as_ref().unwrap().keys().any(|k| k.starts_with(AGGREGATE_PREFIX)),
        "no aggregation in Bind"
    );
}

#[test]
fn bindings_merge_subjects_and_names_ignore_their_order() {
    let alice = subject(SubjectKind::User, "alice", None);
    let bob = subject(SubjectKind::User, "bob", None);
    let mk = |subjects: Vec<Subject>| {
        let mut c = Config::new("op", Mode::Bind);
        c.bindings = vec![
            bind(RoleKind::View, subjects, Scope::Cluster),
            bind(RoleKind::View, vec![subject(SubjectKind::ServiceAccount, "ci", Some("ci"))], Scope::Cluster),
        ];
        plan_of(c, &[crd("widgets", "example.com", "v1")])
    };
    let mut sorted = vec![alice.clone(), bob.clone()];
    sorted.sort();
    let a = mk(sorted);
    let b = mk(vec![bob, alice]);
    assert_eq!(bindings_of(&a), bindings_of(&b));
    let view = bindings_of(&a).into_iter().find(|b| b.2 == "op-widgets.example.com-view").unwrap();
    assert_eq!(view.4, ["User:alice", "User:bob", "ServiceAccount:ci"]);
}

#[test]
fn namespaced_binding_of_a_cluster_scoped_api_is_skipped_with_a_warning() {
    let mut issuers = crd("clusterissuers", "cert-manager.io", "v1");
    if let Body::Crd(v) = &mut issuers.body {
        v.spec.scope = Some("Cluster".into());
    }
    let mut config = Config::new("cm", Mode::Bind);
    config.bindings = vec![bind(
        RoleKind::View,
        vec![subject(SubjectKind::Group, "auditors", None)],
        Scope::Namespaces { names: vec!["team-a".into()], selector: None },
    )];
    let p = plan_of(config, &[issuers]);
    let w = warnings(&p);
    assert_eq!(w.len(), 1);
    assert!(w[0].message.contains("clusterissuers.cert-manager.io") && w[0].message.contains("bind it cluster-wide"));
    assert_eq!(w[0].field.as_deref(), Some("spec.bindings[0].namespaces"));
    let kinds: Vec<String> = bindings_of(&p).into_iter().map(|b| b.0).collect();
    assert_eq!(kinds, ["ClusterRoleBinding"], "only the crdview binding, which is cluster-wide anyway");
}

#[test]
fn selectors_pick_namespaces_from_the_input_and_warn_when_none_match() {
    let ns = |name: &str, tenant: &str| {
        let mut h = header("v1", "Namespace", name);
        h.labels.insert("tenant".into(), tenant.into());
        InputObject { header: h, ..Default::default() }
    };
    let selector = |tenant: &str| Selector {
        match_labels: [("tenant".to_string(), tenant.to_string())].into(),
        ..Default::default()
    };
    let mut config = Config::new("op", Mode::Bind);
    config.bindings = vec![
        bind(
            RoleKind::View,
            vec![subject(SubjectKind::Group, "a", None)],
            Scope::Namespaces { names: vec![], selector: Some(selector("a")) },
        ),
        bind(
            RoleKind::View,
            vec![subject(SubjectKind::Group, "z", None)],
            Scope::Namespaces { names: vec![], selector: Some(selector("z")) },
        ),
    ];
    let objects = [crd("widgets", "example.com", "v1"), ns("team-a", "a"), ns("team-b", "b"), ns("team-a2", "a")];
    let p = plan_of(config, &objects);
    let namespaces: Vec<Option<String>> =
        bindings_of(&p).into_iter().filter(|b| b.0 == "RoleBinding").map(|b| b.1).collect();
    assert_eq!(namespaces, [Some("team-a".into()), Some("team-a2".into())]);
    let w = warnings(&p);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].field.as_deref(), Some("spec.bindings[1].namespaceSelector"));
}

#[test]
fn a_hand_written_binding_with_a_generated_name_is_a_conflict() {
    let mut config = Config::new("op", Mode::Bind);
    config.bindings = vec![bind(RoleKind::View, vec![subject(SubjectKind::Group, "g", None)], Scope::Cluster)];
    let existing = InputObject {
        header: header("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "op-widgets.example.com-view"),
        ..Default::default()
    };
    let p = plan_of(config, &[crd("widgets", "example.com", "v1"), existing]);
    let e = errors(&p);
    assert_eq!(e.len(), 1);
    assert!(e[0].message.contains("ClusterRoleBinding op-widgets.example.com-view"), "{}", e[0].message);
    assert!(p.generated.is_empty() && p.patches.is_empty());
}

#[test]
fn the_cluster_extension_shows_the_outcome() {
    let ext =
        InputObject { header: header("olm.operatorframework.io/v1", "ClusterExtension", "op"), ..Default::default() };
    let objects = [crd("widgets", "example.com", "v1"), ext];
    let p = plan_of(Config::new("op", Mode::Aggregate), &objects);
    assert_eq!(
        p.patches[&1].annotations,
        [Edit::Set(STATUS_ANNOTATION.into(), "Aggregate: 4 ClusterRole(s) generated for 1 API(s)".into())]
    );
    let p = plan_of(Config::new("op", Mode::Unmanaged), &objects);
    assert_eq!(
        p.patches[&1].annotations,
        [Edit::Set(STATUS_ANNOTATION.into(), "Unmanaged: only cluster-admins can use its 1 API(s)".into())]
    );
    let other = InputObject {
        header: header("olm.operatorframework.io/v1", "ClusterExtension", "someone-else"),
        ..Default::default()
    };
    assert!(plan_of(Config::new("op", Mode::Aggregate), &[crd("widgets", "example.com", "v1"), other])
        .patches
        .is_empty());
}

#[test]
fn long_binding_names_are_shortened_but_stay_distinct() {
    let ext = "e".repeat(63);
    let plural = "p".repeat(63);
    let group = format!("{}.{}.example.com", "g".repeat(63), "h".repeat(63));
    let mut config = Config::new(&ext, Mode::Bind);
    config.bindings = vec![bind(RoleKind::Edit, vec![subject(SubjectKind::Group, "g", None)], Scope::Cluster)];
    let p = plan_of(config, &[crd(&plural, &group, "v1")]);
    assert!(errors(&p).is_empty(), "{:?}", p.results);
    let names: Vec<String> = bindings_of(&p).into_iter().map(|b| b.2).collect();
    assert_eq!(names.len(), 3);
    assert!(names.iter().all(|n| n.len() <= 253), "{names:?}");
    for suffix in ["-edit", "-view", "-view-crdview"] {
        assert!(names.iter().any(|n| n.ends_with(suffix) && n.starts_with("eeee")), "{suffix} in {names:?}");
    }
    let unique: BTreeSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), 3);
}

fn in_file(mut o: InputObject, path: &str) -> InputObject {
    o.file = Some(FileRef { path: path.into(), index: Some(0) });
    o
}

#[test]
fn bundle_objects_drop_leaves_out_the_bundle_folder_only() {
    let mut config = Config::new("op", Mode::Aggregate);
    config.bundle_objects = crate::config::BundleObjects::Drop;
    let service = InputObject { header: header("v1", "Service", "metrics"), ..Default::default() };
    let objects = [
        in_file(csv("op.v1", &[("widgets.example.com", "v1")], &[]), "bundle/manifests/op.csv.yaml"),
        in_file(crd("widgets", "example.com", "v1"), "bundle/manifests/widgets.yaml"),
        in_file(service.clone(), "bundle/manifests/service.yaml"),
        in_file(editor_role("widget-editor-role"), "bundle/manifests/editor.yaml"),
        in_file(
            InputObject {
                header: header("olm.operatorframework.io/v1", "ClusterExtension", "op"),
                ..Default::default()
            },
            "bundle/manifests/ext.yaml",
        ),
        in_file(
            InputObject { header: header("v1", "Service", "installer-metrics"), ..Default::default() },
            "installer/service.yaml",
        ),
    ];
    let p = plan_of(config.clone(), &objects);
    assert!(errors(&p).is_empty(), "{:?}", p.results);
    assert_eq!(p.remove, BTreeSet::from([0, 1, 2, 3]), "the ClusterExtension and other folders stay");
    assert_eq!(names(&p).len(), 4, "Aggregate cannot label a role OLM installs, so it generates all four");
    assert!(p.patches.keys().all(|i| !p.remove.contains(i)), "no patches on dropped objects");

    config.mode = Mode::Bind;
    config.bindings = vec![bind(RoleKind::Edit, vec![subject(SubjectKind::Group, "g", None)], Scope::Cluster)];
    let p = plan_of(config, &objects);
    let edit = bindings_of(&p).into_iter().find(|b| b.2 == "op-widgets.example.com-edit").unwrap();
    assert_eq!(edit.3, "widget-editor-role", "Bind binds the bundle's role, which OLM installs");
}

/// With the extension's ClusterExtension in the input, OLM v1 installs the
/// bundle from its catalog: its files are input only, so changing them would
/// reach nobody, and Aggregate generates the roles it cannot label.
#[test]
fn a_cluster_extension_in_the_input_leaves_the_bundles_files_alone() {
    let extension =
        InputObject { header: header("olm.operatorframework.io/v1", "ClusterExtension", "op"), ..Default::default() };
    let objects = [
        in_file(csv("op.v1", &[("widgets.example.com", "v1")], &[]), "bundle/manifests/op.csv.yaml"),
        in_file(crd("widgets", "example.com", "v1"), "bundle/manifests/widgets.yaml"),
        in_file(editor_role("widget-editor-role"), "bundle/manifests/editor.yaml"),
        in_file(extension, "extension/op.yaml"),
    ];
    let p = plan_of(Config::new("op", Mode::Aggregate), &objects);
    assert!(errors(&p).is_empty(), "{:?}", p.results);
    assert!(p.remove.is_empty(), "Keep: nothing leaves the output");
    assert_eq!(names(&p).len(), 4, "all four roles generated, the bundle's editor role not adopted");
    assert!(p.patches.keys().all(|i| *i == 3), "only the ClusterExtension is annotated: {:?}", p.patches);

    let without = plan_of(Config::new("op", Mode::Aggregate), &objects[..3]);
    assert_eq!(names(&without).len(), 3, "without it, the bundle's editor role serves edit");
    assert!(without.patches.contains_key(&2), "and gains its aggregation label");

    let mut strip = Config::new("op", Mode::Bind);
    strip.strip_bundle_aggregation = true;
    let mut labelled = editor_role("widget-editor-role");
    labelled.header.labels.insert(AggregatingRole::Edit.label(), "true".into());
    let objects =
        [objects[0].clone(), objects[1].clone(), in_file(labelled, "bundle/manifests/editor.yaml"), objects[3].clone()];
    let p = plan_of(strip, &objects);
    assert!(!p.patches.contains_key(&2), "the bundle's role keeps its label: OLM installs it so");
    assert!(
        warnings(&p).iter().any(|w| w.message.contains("ClusterExtension op is in the input")),
        "and the run says why: {:?}",
        p.results
    );
}

#[test]
fn the_bundle_package_comes_from_the_csv_annotation_or_its_name() {
    for (name, package) in [
        ("argocd-operator.v0.6.0", "argocd-operator"),
        ("enmasse.0.30.2", "enmasse"),
        ("prometheusoperator.0.56.3", "prometheusoperator"),
        ("cert-manager.v1.16.5", "cert-manager"),
    ] {
        let objects = [csv(name, &[], &[])];
        assert_eq!(bundle_package(&objects).map(|(p, _)| p).as_deref(), Some(package), "{name}");
    }
    let mut annotated = csv("op.v1.0.0", &[], &[]);
    annotated.header.annotations.insert("operators.operatorframework.io.bundle.package.v1".into(), "my-op".into());
    assert_eq!(bundle_package(&[annotated]).map(|(p, _)| p).as_deref(), Some("my-op"));
    assert_eq!(bundle_package(&[csv("no-version", &[], &[])]), None);
    assert_eq!(bundle_package(&[csv("a.v1", &[], &[]), csv("b.v1", &[], &[])]), None, "which one?");
}

#[test]
fn a_plan_with_an_error_changes_nothing_however_the_error_arrives() {
    let draft = Draft {
        remove: BTreeSet::from([1]),
        generated: plan_of(Config::new("ext", Mode::Aggregate), &[crd("widgets", "example.com", "v1")]).generated,
        results: vec![Finding::info("generated"), Finding::error("bad")],
        ..Default::default()
    };
    assert!(!draft.generated.is_empty());
    let plan = Plan::decide(draft.clone());
    assert!(plan.remove().is_empty() && plan.generated().is_empty() && plan.patches().is_empty());
    assert_eq!(plan.results().len(), 1, "no result claims a change: {:?}", plan.results());
    let mut later = Plan::decide(Draft { results: vec![Finding::info("generated")], ..draft });
    assert!(!later.generated().is_empty());
    later.add_results(vec![Finding::error("the input had a problem")], Vec::new());
    assert!(later.generated().is_empty() && later.remove().is_empty(), "an error added later undoes the changes");
    assert!(Plan::refused(vec![Finding::warning("w")]).generated().is_empty());
}
