//! How olm-rbac edits the items it did not write and cuts the input into
//! items, at the edges of the format: where an added label or annotation
//! lands, what comes back on undo, comments, CRLF and missing final line
//! breaks, flow style, repeated keys; and two decisions that once went wrong
//! on such inputs (a subresource write is not a view role; two configs on one
//! API conflict). Each test holds the input that showed the problem.

use crate::common::*;
use olm_rbac::run::{function, render, Source};
use olm_rbac::yaml::split_documents;

/// A config and one CRD, before the document under test.
const HDR: &str = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata: {name: ext}\nspec: {mode: Aggregate}\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: foos.example.com}\nspec: {group: example.com, names: {plural: foos, kind: Foo}, scope: Namespaced}\n---\n";

fn render_one(text: &str) -> olm_rbac::run::Outcome {
    render(&[Source { name: "in.yaml".into(), text: text.into() }], &[])
}

fn doc_named(stdout: &str, name: &str) -> olm_rbac::yaml::Header {
    split_documents(stdout)
        .unwrap()
        .into_iter()
        .find(|d| d.header.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no {name}"))
        .header
}

#[test]
fn an_added_annotation_never_lands_in_a_new_labels_block() {
    for indent in ["    ", "      "] {
        let role = format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  annotations:\n{indent}description: read foos\n  name: foo-viewer\nrules:\n- {{apiGroups: [example.com], resources: [foos], verbs: [get, list, watch]}}\n");
        let out = render_one(&format!("{HDR}{role}"));
        assert_eq!(out.code, 0, "{}", out.stderr);
        let h = doc_named(&out.stdout, "foo-viewer");
        assert_eq!(
            h.labels.keys().collect::<Vec<_>>(),
            ["rbac.authorization.k8s.io/aggregate-to-view"],
            "{}",
            out.stdout
        );
        assert_eq!(
            h.annotations.get("olm-rbac.io/label-changes").map(String::as_str),
            Some("ext: +rbac.authorization.k8s.io/aggregate-to-view")
        );
        assert_eq!(h.annotations.get("description").map(String::as_str), Some("read foos"));
    }
}

#[test]
fn write_access_to_a_subresource_is_not_a_view_role() {
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: foo-viewer\nrules:\n- {apiGroups: [example.com], resources: [foos], verbs: [get, list, watch]}\n- {apiGroups: [example.com], resources: [foos/status], verbs: [\"*\"]}\n";
    let out = render_one(&format!("{HDR}{role}"));
    assert_eq!(out.code, 0);
    assert!(!out.stderr.contains("provides the view role"), "{}", out.stderr);
    let h = doc_named(&out.stdout, "foo-viewer");
    assert!(
        !h.labels.contains_key("rbac.authorization.k8s.io/aggregate-to-view"),
        "viewers must not get * on foos/status"
    );
}

#[test]
fn an_item_without_a_final_line_break_is_followed_by_generated_items_on_a_line_of_their_own() {
    let list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  apiVersion: olm-rbac.io/v1alpha1\n  kind: RBACConfig\n  metadata:\n    name: ext\n  spec:\n    mode: Aggregate\nitems:\n- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  metadata:\n    name: foos.example.com\n  spec:\n    group: example.com\n    names:\n      plural: foos\n      kind: Foo\n    scope: Namespaced";
    let out = function(list);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("    scope: Namespaced\n- apiVersion: rbac.authorization.k8s.io/v1\n"),
        "{}",
        out.stdout
    );
    assert_eq!(function(&out.stdout).stdout, out.stdout);

    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nrules:\n- {apiGroups: [example.com], resources: [foos], verbs: [get, list, watch]}\nmetadata:\n  name: foo-viewer\n  labels:\n    app: foo";
    let out = render_one(&format!("{HDR}{role}"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let h = doc_named(&out.stdout, "foo-viewer");
    assert_eq!(h.labels.get("app").map(String::as_str), Some("foo"));
    assert_eq!(h.labels.get("rbac.authorization.k8s.io/aggregate-to-view").map(String::as_str), Some("true"));
}

#[test]
fn a_duplicate_items_key_is_an_error_not_a_panic() {
    let out = function("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a: 1\nitems:\n- b: 2\n");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("has the key \"items\" twice"), "{}", out.stderr);
}

#[test]
fn a_replaced_label_value_comes_back_on_undo() {
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: foo-viewer\n  labels:\n    rbac.authorization.k8s.io/aggregate-to-view: \"false\"\nrules:\n- {apiGroups: [example.com], resources: [foos], verbs: [get, list, watch]}\n";
    let aggregated = render_one(&format!("{HDR}{role}"));
    assert_eq!(aggregated.code, 0);
    assert_eq!(
        doc_named(&aggregated.stdout, "foo-viewer").labels["rbac.authorization.k8s.io/aggregate-to-view"],
        "true"
    );
    let unmanaged = render_one(&aggregated.stdout.replacen(
        "kind: RBACConfig\nmetadata: {name: ext}\nspec: {mode: Aggregate}",
        "kind: RBACConfig\nmetadata: {name: ext}\nspec: {mode: Unmanaged}",
        1,
    ));
    let _ = unmanaged;
    // The config is not echoed: run the undo with the config given separately.
    let docs: String =
        split_documents(&aggregated.stdout).unwrap().iter().map(|d| format!("---\n{}", d.text)).collect();
    let undo = render(
        &[Source { name: "in.yaml".into(), text: docs }],
        &[Source { name: "c.yaml".into(), text: config("ext", "  mode: Unmanaged\n") }],
    );
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    assert!(undo.stdout.contains(role), "the role comes back byte for byte:\n{}", undo.stdout);
}

#[test]
fn stripping_keeps_comments_that_belong_to_the_next_key() {
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  labels:\n    rbac.authorization.k8s.io/aggregate-to-view: \"true\"\n  # owned by team X\n  name: foo-viewer\nrules:\n- {apiGroups: [example.com], resources: [foos], verbs: [get, list, watch]}\n";
    let crd = &HDR[HDR.find("---\n").unwrap() + 4..];
    let strip = config("ext", "  mode: Unmanaged\n  stripBundleAggregation: true\n");
    let out = render(
        &[Source { name: "in.yaml".into(), text: format!("{crd}{role}") }],
        &[Source { name: "c.yaml".into(), text: strip }],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("  # owned by team X\n  name: foo-viewer\n"), "{}", out.stdout);
    let back = render(
        &[Source { name: "in.yaml".into(), text: out.stdout.clone() }],
        &[Source { name: "c.yaml".into(), text: config("ext", "  mode: Unmanaged\n") }],
    );
    assert!(back.stdout.contains(role), "restored:\n{}", back.stdout);
}

#[test]
fn two_configs_selecting_one_api_is_a_conflict() {
    let two = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata: {name: a}\nspec: {mode: Aggregate}\n---\napiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata: {name: b}\nspec: {mode: Aggregate}\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: foos.example.com}\nspec: {group: example.com, names: {plural: foos, kind: Foo}, scope: Namespaced}\n";
    let out = render_one(two);
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .contains("conflict: extensions \"a\" and \"b\" would both generate ClusterRole foos.example.com-admin"),
        "{}",
        out.stderr
    );
}

#[test]
fn dash_lines_with_comments_anchors_or_tags_are_cut_not_reserialised() {
    for dash in ["-  # the map", "-\t# c", "- &a", "- !!map"] {
        let list = format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{dash}\n  apiVersion: v1 # k\n  kind: ConfigMap\n  metadata: {{name: c}}\nfunctionConfig:\n  apiVersion: olm-rbac.io/v1alpha1\n  kind: RBACConfig\n  metadata:\n    name: ext\n");
        let out = function(&list);
        assert_eq!(out.code, 0, "{dash}: {}", out.stderr);
        assert!(
            out.stdout.starts_with(&list[..list.find("functionConfig").unwrap()]),
            "{dash:?}: items kept byte for byte:\n{}",
            out.stdout
        );
        assert!(!out.stderr.contains("re-serialised"), "{dash:?}");
    }
}

#[test]
fn the_flow_style_fallback_keeps_key_order_and_says_so() {
    let out = function(
        r#"{"kind":"ResourceList","apiVersion":"config.kubernetes.io/v1","items":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"}}],"functionConfig":{"apiVersion":"olm-rbac.io/v1alpha1","kind":"RBACConfig","metadata":{"name":"ext"}}}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with("kind: ResourceList\napiVersion: config.kubernetes.io/v1\nitems:\n- kind: ConfigMap\n"),
        "{}",
        out.stdout
    );
    assert!(out.stderr.contains("re-serialised as block YAML"), "{}", out.stderr);
}

/// Every line ends the way the input's lines end.
fn all_crlf(text: &str) -> bool {
    text.match_indices('\n').all(|(i, _)| i > 0 && text.as_bytes()[i - 1] == b'\r')
}

#[test]
fn crlf_input_gets_crlf_output() {
    let list = resource_list(&docs_of("memcached-operator-0.0.1"), &config("ext", "  mode: Aggregate\n"))
        .replace('\n', "\r\n");
    let out = function(&list);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("olm-rbac.io/label-changes"), "an adopted role was patched");
    assert!(all_crlf(&out.stdout), "generated items, patched lines and results follow the input");
    assert_eq!(function(&out.stdout).stdout, out.stdout, "idempotent");
    let at = out.stdout.find("functionConfig:").unwrap();
    let undo = function(&format!(
        "{}{}",
        &out.stdout[..at],
        out.stdout[at..].replacen("mode: Aggregate", "mode: Unmanaged", 1)
    ));
    let items = |s: &str| s[..s.find("functionConfig:").unwrap()].to_string();
    assert_eq!(items(&undo.stdout), items(&list), "undone byte for byte");

    let docs: Vec<Source> = docs_of("memcached-operator-0.0.1")
        .into_iter()
        .map(|d| Source { name: "d.yaml".into(), text: d.replace('\n', "\r\n") })
        .collect();
    let out = render(&docs, &[Source { name: "c.yaml".into(), text: config("ext", "  mode: Aggregate\n") }]);
    assert_eq!(out.code, 0);
    assert!(all_crlf(&out.stdout));
}
