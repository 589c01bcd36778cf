//! Earlier output replaced, conflicts refused, and the rule that an error changes nothing.

use super::*;

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
    let removed = info.iter().find(|f| f.code == Code::Removed).unwrap();
    assert!(removed
        .message
        .contains("generated it for extension \"op\" earlier, and this run (Unmanaged mode) does not"));
    assert_eq!(removed.object.as_ref().unwrap().name, "widgets.example.com-admin");
    let unmanaged = info.iter().find(|f| f.code == Code::Summary).unwrap();
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
    assert_eq!(e[0].code, Code::OutputConflict);
    assert!(e[0].message.contains("widgets.example.com-view"));
    assert_eq!(e[0].object.as_ref().unwrap().name, "widgets.example.com-view");
    assert!(plan.generated.is_empty());
}

#[test]
fn two_configs_cannot_claim_one_extension() {
    let mut b = Config::new("op", Mode::Aggregate);
    b.name = "second".into();
    let plan = plan(&[Config::new("op", Mode::Aggregate), b], &[crd("widgets", "example.com", "v1")]);
    assert!(errors(&plan).iter().any(|e| e.code == Code::ConfigsOverlap), "{:?}", plan.results);
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

#[test]
fn a_plan_with_an_error_changes_nothing_however_the_error_arrives() {
    let draft = Draft {
        remove: BTreeSet::from([1]),
        generated: plan_of(Config::new("ext", Mode::Aggregate), &[crd("widgets", "example.com", "v1")]).generated,
        results: vec![Finding::info(Code::Summary, "generated"), Finding::error(Code::CrdInvalid, "bad")],
        ..Default::default()
    };
    assert!(!draft.generated.is_empty());
    let plan = Plan::decide(draft.clone());
    assert!(plan.remove().is_empty() && plan.generated().is_empty() && plan.patches().is_empty());
    assert_eq!(plan.results().len(), 1, "no result claims a change: {:?}", plan.results());
    let mut later = Plan::decide(Draft { results: vec![Finding::info(Code::Summary, "generated")], ..draft });
    assert!(!later.generated().is_empty());
    later.add_results(vec![Finding::error(Code::YamlInvalid, "the input had a problem")], Vec::new());
    assert!(later.generated().is_empty() && later.remove().is_empty(), "an error added later undoes the changes");
    assert!(Plan::refused(vec![Finding::warning(Code::YamlMergeAmbiguous, "w")]).generated().is_empty());
}
