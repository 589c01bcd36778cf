//! Switching modes, each run on the previous run's output: no stale objects,
//! no leftover labels, and the bundle back byte for byte when management ends.

use crate::common::*;
use olm_rbac::run::function;

fn with_config(list: &str, spec: &str, extension: &str) -> String {
    let items = &list[..list.find("\nfunctionConfig:\n").unwrap() + 1];
    let mut out = items.to_string();
    out.push_str("functionConfig:\n");
    for line in config(extension, spec).lines() {
        out.push_str(&format!("  {line}\n"));
    }
    out
}

fn run(list: &str) -> String {
    let out = function(list);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
}

fn items(list: &str) -> &str {
    &list[..list.find("\nfunctionConfig:\n").unwrap() + 1]
}

const BIND: &str = "  mode: Bind\n  stripBundleAggregation: true\n  bindings:\n  - role: edit\n    subjects: [{kind: Group, name: devs}]\n    namespaces: [team-a]\n  - role: view\n    subjects: [{kind: Group, name: sre}]\n";

#[test]
fn aggregate_bind_unmanaged_aggregate() {
    for bundle in ["argocd-operator-0.19.0", "memcached-operator-0.0.1", "cert-manager-1.16.5"] {
        let ext = "ext";
        let original = resource_list(&docs_of(bundle), &config(ext, "  mode: Aggregate\n"));
        let aggregate = run(&original);
        assert!(aggregate.contains("olm-rbac.io/mode: Aggregate"));

        let bind = run(&with_config(&aggregate, BIND, ext));
        assert!(!bind.contains("olm-rbac.io/mode: Aggregate"), "{bundle}: no Aggregate leftovers");
        assert!(bind.contains("kind: RoleBinding"), "{bundle}");
        assert!(
            !bind.contains("+rbac.authorization.k8s.io/aggregate-to-"),
            "{bundle}: labels added for Aggregate are gone"
        );
        let generated = count(bind.split("\nresults:\n").next().unwrap(), "app.kubernetes.io/managed-by: olm-rbac");
        assert_eq!(
            generated,
            count(&run(&with_config(&original, BIND, ext)), "app.kubernetes.io/managed-by: olm-rbac"),
            "{bundle}: Bind after Aggregate equals Bind from scratch"
        );
        assert_same_text(
            items(&bind),
            items(&run(&with_config(&original, BIND, ext))),
            &format!("{bundle}: Bind after Aggregate"),
        );

        let unmanaged = run(&with_config(&bind, "  mode: Unmanaged\n", ext));
        assert_same_text(items(&unmanaged), items(&original), &format!("{bundle}: Unmanaged restores the bundle"));

        let again = run(&with_config(&unmanaged, "  mode: Aggregate\n", ext));
        assert_same_text(&again, &aggregate, &format!("{bundle}: back to Aggregate"));
    }
}

#[test]
fn stripped_bundle_aggregation_comes_back_when_stripping_stops() {
    let original = resource_list(&docs_of("cert-manager-1.16.5"), &config("cm", BIND));
    let stripped = run(&original);
    assert!(
        stripped.contains("olm-rbac.io/label-changes: \"cm: -rbac.authorization.k8s.io/aggregate-to-admin=true"),
        "{stripped}"
    );
    let view = stripped.split("\n- ").find(|i| i.contains("name: cert-manager-view\n")).unwrap();
    assert!(!view.contains("rbac.authorization.k8s.io/aggregate-to-view: \"true\""), "stripped: {view}");
    let kept = run(&with_config(
        &stripped,
        &BIND.replace("stripBundleAggregation: true", "stripBundleAggregation: false"),
        "cm",
    ));
    let view = kept.split("\n- ").find(|i| i.contains("name: cert-manager-view\n")).unwrap();
    assert!(view.contains("rbac.authorization.k8s.io/aggregate-to-view: \"true\""), "restored: {view}");
    assert!(!view.contains("label-changes"));
}
