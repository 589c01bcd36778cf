//! Bundle roles: classified, adopted, relabelled, and their label changes undone.

use super::*;
use crate::config::BundleRoles;
use crate::plan::facts::fit::{classify, RoleFit};

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
    assert_eq!(w[0].code, Code::BundleAggregation);
    assert!(w[0].message.contains(&AggregatingRole::View.label()), "{}", w[0].message);
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
