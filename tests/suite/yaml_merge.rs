//! YAML merge keys as Kubernetes reads them: a published bundle that uses
//! them renders, its bytes pass through untouched, and the decisions are made
//! on the merged values. (What a hostile bundle can do with them is tried in
//! `security`.)

use crate::common::*;
use olm_rbac::run::{function, render, Source};

/// The excerpt of Altinity's clickhouse-operator 0.27.2 (see `tests/fixtures/merge-keys/SOURCES.md`).
fn clickhouse() -> Vec<Source> {
    let dir = repo("tests/fixtures/merge-keys/clickhouse-operator-0.27.2/manifests");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .iter()
        .map(|p| Source {
            name: format!("bundle/manifests/{}", p.file_name().unwrap().to_string_lossy()),
            text: std::fs::read_to_string(p).unwrap(),
        })
        .collect()
}

const AGGREGATE: &str =
    "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: clickhouse\nspec:\n  mode: Aggregate\n";

#[test]
fn a_published_bundle_with_merge_keys_renders_and_passes_through_unchanged() {
    let bundle = clickhouse();
    assert!(bundle.iter().any(|s| s.text.contains("!!merge <<: *TypeStringBool")), "the fixture uses merge keys");
    let out = render(&bundle, &[Source { name: "rbac.yaml".into(), text: AGGREGATE.into() }]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for source in &bundle {
        assert!(out.stdout.contains(&source.text), "{} passes through byte for byte", source.name);
    }
    let api = "clickhouseoperatorconfigurations.clickhouse.altinity.com";
    for role in ["admin", "edit", "view", "view-crdview"] {
        assert!(out.stdout.contains(&format!("  name: {api}-{role}\n")), "{role}:\n{}", out.stderr);
    }
    // The same through the KRM function.
    let items: Vec<String> = bundle.iter().map(|s| with_path(&s.text, &s.name)).collect();
    let krm = function(&resource_list(&items, &as_kpt_sends(AGGREGATE)));
    assert_eq!(krm.code, 0, "{}", krm.stdout);
    assert!(krm.stdout.contains(&format!("name: {api}-view\n")), "{}", krm.stdout);
}
