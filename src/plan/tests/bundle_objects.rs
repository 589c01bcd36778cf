//! Who installs the bundle's objects (this output; OLM, after
//! `bundleObjects: Drop` or for a ClusterExtension in the input), and the
//! ClusterExtension's annotation.

use super::*;
use crate::config::{Scope, SubjectKind};

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
            // The admin's, in a file of its own: in the bundle's folder it is
            // a kind registry+v1 bundles may not hold, refused.
            "admin/ext.yaml",
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
    assert!(warnings(&p).iter().any(|w| w.code == Code::BundleUnchangeable), "and the run says why: {:?}", p.results);
}
