//! Bind mode: the bindings, where they apply, and their names.

use super::*;
use crate::config::{Scope, Selector, SubjectKind};

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
    assert_eq!(w[0].code, Code::BindingPartial);
    assert!(w[0].message.contains("clusterissuers.cert-manager.io"), "{}", w[0].message);
    assert_eq!(w[0].field.as_deref(), Some("spec.bindings[0].namespaces"));
    let kinds: Vec<String> = bindings_of(&p).into_iter().map(|b| b.0).collect();
    assert_eq!(kinds, ["ClusterRoleBinding"], "only the crdview binding, which is cluster-wide anyway");
}

#[test]
fn selectors_pick_namespaces_from_the_input_and_warn_when_none_match() {
    // The admin's own Namespace files: a selector reads no others.
    let ns = |name: &str, tenant: &str| {
        let mut h = header("v1", "Namespace", name);
        h.labels.insert("tenant".into(), tenant.into());
        let file = Some(FileRef { path: format!("admin/{name}.yaml"), index: Some(0) });
        InputObject { header: h, file, ..Default::default() }
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
    assert_eq!(e[0].code, Code::OutputConflict, "{}", e[0].message);
    assert_eq!(e[0].object.as_ref().unwrap().name, "op-widgets.example.com-view");
    assert!(p.generated.is_empty() && p.patches.is_empty());
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
