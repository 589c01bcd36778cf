//! KRM function mode: the guarantees that make it safe in a pipeline.

use crate::common::*;
use olm_rbac::run::function;

const AGGREGATE: &str = "  mode: Aggregate\n";

fn list_for(bundle: &str, spec: &str) -> String {
    resource_list(&docs_of(bundle), &config("ext", &admin_spec(bundle, spec)))
}

/// Splits a ResourceList built by [`resource_list`] at its `functionConfig:`.
fn split_at_config(list: &str) -> (&str, &str) {
    let at = list.find("\nfunctionConfig:\n").unwrap() + 1;
    list.split_at(at)
}

/// With bundle roles ignored nothing in the bundle needs a label, so every item
/// must come back byte for byte (adopted roles are covered by the goldens).
#[test]
fn every_item_passes_through_byte_for_byte_and_generated_items_follow() {
    for bundle in bundle_names() {
        let input = list_for(&bundle, "  mode: Aggregate\n  bundleRoles: Ignore\n");
        let out = function(&input);
        assert_eq!(out.code, 0, "{bundle}: {}", out.stderr);
        let (items, config) = split_at_config(&input);
        assert!(out.stdout.starts_with(items), "{bundle}: items before the generated ones must be unchanged");
        let rest = &out.stdout[items.len()..];
        let at = rest.find(config).unwrap_or_else(|| panic!("{bundle}: functionConfig must come back unchanged"));
        let generated = &rest[..at];
        let entries =
            generated.matches("\n- apiVersion:").count() + usize::from(generated.starts_with("- apiVersion:"));
        assert!(entries > 0, "{bundle}: nothing generated");
        assert_eq!(
            count(generated, "app.kubernetes.io/managed-by: olm-rbac"),
            entries,
            "{bundle}: every appended item is labelled as generated"
        );
        assert!(rest[at + config.len()..].starts_with("results:\n"), "{bundle}: results come last");
    }
}

/// Every result carries its code as the tag `olm-rbac.io/code`, which kpt
/// shows and a pipeline can match on: a summary when all went well, the
/// refusal's own code when the config is refused.
#[test]
fn every_result_is_tagged_with_its_code() {
    let out = function(&list_for("memcached-operator-0.0.1", AGGREGATE));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let results = function_results(&out);
    assert!(has_code(&results, "summary", Some("info")), "{results:#?}");
    assert!(out.stdout.contains("  tags:\n    olm-rbac.io/code: summary\n"), "{}", out.stdout);
    let out = function(&list_for("memcached-operator-0.0.1", "  mode: Aggregate\n  roles: []\n"));
    assert_eq!(out.code, 1, "{}", out.stderr);
    let results = function_results(&out);
    assert!(has_code(&results, "config-invalid", Some("error")), "{results:#?}");
}

#[test]
fn a_second_run_changes_nothing() {
    for bundle in ["argocd-operator-0.19.0", "cert-manager-1.16.5", "enmasse-0.30.2", "prometheus-0.56.3"] {
        let first = function(&list_for(bundle, AGGREGATE));
        let second = function(&first.stdout);
        assert_eq!(second.code, 0);
        assert_eq!(second.stdout, first.stdout, "{bundle}: idempotent");
    }
}

#[test]
fn the_same_input_gives_the_same_bytes_and_item_order_does_not_matter() {
    let mut docs = docs_of("strimzi-kafka-operator-1.2.0");
    let a = function(&resource_list(&docs, &config("ext", AGGREGATE)));
    assert_eq!(a, function(&resource_list(&docs, &config("ext", AGGREGATE))));
    docs.reverse();
    let b = function(&resource_list(&docs, &config("ext", AGGREGATE)));
    let generated = |s: &str| s[s.find("olm-rbac.io/api").unwrap()..].to_string();
    assert_eq!(generated(&a.stdout), generated(&b.stdout), "generated part is independent of input order");
}

#[test]
fn kpt_path_annotations_send_generated_items_to_the_output_file() {
    let out = function(&list_for("webhook-operator-0.0.5", "  mode: Aggregate\n  outputPath: rbac/memcached.yaml\n"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    for key in ["config.kubernetes.io/path", "internal.config.kubernetes.io/path"] {
        assert_eq!(count(&out.stdout, &format!("    {key}: rbac/memcached.yaml\n")), 4, "{key}");
    }
    for i in 0..4 {
        for key in ["config.kubernetes.io/index", "internal.config.kubernetes.io/index"] {
            assert_eq!(count(&out.stdout, &format!("    {key}: \"{i}\"\n")), 1, "{key} {i}");
        }
    }
}

#[test]
fn unmanaged_removes_earlier_output_and_reports_the_apis() {
    let generated = function(&list_for("memcached-operator-0.0.1", AGGREGATE));
    let (items, _) = split_at_config(&generated.stdout);
    let switched = format!(
        "{items}functionConfig:\n  apiVersion: olm-rbac.io/v1alpha1\n  kind: RBACConfig\n  metadata:\n    name: ext\n  spec:\n    mode: Unmanaged\n"
    );
    let out = function(&switched);
    assert_eq!(out.code, 0);
    assert!(!out.stdout.contains("managed-by: olm-rbac"), "no stale generated objects");
    let original = list_for("memcached-operator-0.0.1", AGGREGATE);
    assert!(out.stdout.starts_with(split_at_config(&original).0), "the bundle comes back exactly");
    assert!(out.stdout.contains("severity: info"));
    assert!(out.stderr.contains("memcacheds.cache.example.com"), "{}", out.stderr);
    assert!(out.stderr.contains("set spec.mode to Aggregate"));
}

#[test]
fn names_yaml_1_1_reads_as_booleans_are_quoted() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: on.example.com\nspec:\n  group: example.com\n  names:\n    plural: \"on\"\n    kind: On\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n";
    let out =
        function(&resource_list(&[crd.to_string()], &config("ext", "  mode: Aggregate\n  extensionName: \"yes\"\n")));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("olm-rbac.io/extension: \"yes\""), "{}", out.stdout);
    assert!(out.stdout.contains("  - \"on\"\n"), "resources: [\"on\"] must stay a string");
    assert!(!out.stdout.contains("- on\n"));
}

#[test]
fn flow_style_and_json_lists_are_read_and_written_in_block_style() {
    let json = r#"{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","names":{"plural":"widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true}]}}],"functionConfig":{"apiVersion":"olm-rbac.io/v1alpha1","kind":"RBACConfig","metadata":{"name":"w"},"spec":{"mode":"Aggregate"}}}"#;
    let out = function(json);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(count(&out.stdout, "olm-rbac.io/role:"), 4);
    assert!(out.stdout.contains("name: widgets.example.com-view-crdview"));
    assert!(out.stderr.contains("re-serialised as block YAML"), "the fallback says so");
    let again = function(&out.stdout);
    let items = |s: &str| s[..s.find("\nresults:\n").unwrap_or(s.len())].to_string();
    assert_eq!(items(&again.stdout), items(&out.stdout), "block output is stable");
    assert!(!again.stderr.contains("re-serialised"), "and needs no second re-serialisation");
}

#[test]
fn an_empty_list_is_an_error_unless_expected() {
    let list = |spec: &str| {
        format!(
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n{}",
            config("ext", spec).lines().map(|l| format!("  {l}\n")).collect::<String>()
        )
    };
    let out = function(&list(AGGREGATE));
    assert_eq!(out.code, 1, "a pipeline that syncs nothing must not look like success");
    assert!(out.stdout.contains("items: []\n"));
    assert!(
        out.stderr.contains("error: RBACConfig ext: the input holds no API to grant access to (the input is empty)"),
        "{}",
        out.stderr
    );
    let out = function(&list(&format!("{AGGREGATE}  allowNoAPIs: true\n")));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("items: []\n"));
}

#[test]
fn v1beta1_resource_lists_are_accepted() {
    let input = list_for("memcached-operator-0.0.1", AGGREGATE).replacen(
        "config.kubernetes.io/v1\n",
        "config.kubernetes.io/v1beta1\n",
        1,
    );
    let out = function(&input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("apiVersion: config.kubernetes.io/v1beta1\n"));
}

#[test]
fn ten_thousand_crds() {
    let docs: Vec<String> = (0..10_000)
        .map(|i| format!("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: w{i}s.example.com\nspec:\n  group: example.com\n  names:\n    plural: w{i}s\n    kind: W{i}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n"))
        .collect();
    let out = function(&resource_list(&docs, &config("ext", AGGREGATE)));
    assert_eq!(out.code, 0, "{}", &out.stderr[..out.stderr.len().min(500)]);
    assert_eq!(count(&out.stdout, "olm-rbac.io/role:"), 40_000);
}
