//! Finding and selecting the APIs: CRDs, CSV entries, APIServices, naming, filters.

use super::*;

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
    assert_eq!(e[0].code, Code::ApiUndefined, "{}", e[0].message);
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
    assert_eq!(errors(&refused)[0].code, Code::ApiUndefined);
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
