//! Bad input: a clear error naming the object and field, exit 1, and no
//! partial output (KRM mode returns the items unchanged; render prints nothing).

use crate::common::*;
use olm_rbac::run::{function, render, Outcome, Source};

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names:\n    plural: widgets\n    kind: Widget\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n";

/// Runs the function on `docs` with `spec` and checks the error contract.
fn failing(docs: &[&str], spec: &str) -> Outcome {
    let docs: Vec<String> = docs.iter().map(|d| d.to_string()).collect();
    let input = resource_list(&docs, &config("ext", spec));
    let out = function(&input);
    assert_eq!(out.code, 1, "expected failure, got: {}", out.stderr);
    let items = &input[..input.find("functionConfig:").unwrap()];
    assert!(out.stdout.starts_with(items), "items must come back unchanged:\n{}", out.stdout);
    assert!(!out.stdout.contains("managed-by: olm-rbac"), "nothing generated on error");
    assert!(out.stdout.contains("severity: error"));
    assert!(out.stderr.starts_with("error: ") || out.stderr.contains("\nerror: "), "stderr: {}", out.stderr);
    out
}

fn has_result(out: &Outcome, field: &str, message_part: &str) {
    assert!(
        out.stdout.contains(&format!("field:\n    path: {field}\n")),
        "no result for field {field}:\n{}",
        out.stdout
    );
    assert!(out.stderr.contains(message_part), "stderr lacks {message_part:?}: {}", out.stderr);
}

#[test]
fn unknown_config_field_names_it_and_lists_the_allowed_ones() {
    let out = failing(&[CRD], "  modee: Aggregate\n");
    has_result(&out, "spec.modee", "unknown field `modee`, expected one of");
    assert!(out.stderr.contains("extensionName"), "lists what is allowed: {}", out.stderr);
    assert!(out.stderr.contains("RBACConfig ext"), "names the object: {}", out.stderr);
}

#[test]
fn nested_unknown_field() {
    let out = failing(&[CRD], "  apis:\n    inclde: [\"*\"]\n");
    has_result(&out, "spec.apis.inclde", "unknown field `inclde`, expected one of include, exclude");
}

#[test]
fn bad_enum_value_lists_the_choices() {
    let out = failing(&[CRD], "  mode: Agregate\n");
    has_result(&out, "spec.mode", "unknown variant `Agregate`, expected one of Aggregate, Bind, Unmanaged");
    let out = failing(&[CRD], "  mode: Aggregate\n  roles: [admin, editor]\n");
    has_result(&out, "spec.roles[1]", "expected one of admin, edit, view, view-crdview");
}

#[test]
fn wrong_type() {
    let out = failing(&[CRD], "  mode: Aggregate\n  roles: 3\n");
    has_result(&out, "spec.roles", "line");
}

#[test]
fn invalid_extension_name() {
    let out = failing(&[CRD], "  mode: Aggregate\n  extensionName: Team/A\n");
    has_result(&out, "spec.extensionName", "is not a valid extension name");
}

#[test]
fn bind_without_bindings_is_not_silently_a_no_op() {
    let out = function(&resource_list(&[CRD.to_string()], &config("ext", "  mode: Bind\n")));
    assert_eq!(out.code, 0);
    assert!(
        out.stderr.contains("warning: RBACConfig ext: spec.bindings: Bind mode without spec.bindings"),
        "{}",
        out.stderr
    );
}

#[test]
fn crd_missing_group_or_plural_names_the_crd_and_field() {
    let no_group = CRD.replace("  group: example.com\n", "");
    let out = failing(&[&no_group], "  mode: Aggregate\n");
    has_result(&out, "spec.group", "CustomResourceDefinition widgets.example.com: spec.group: is missing");
    let no_plural = CRD.replace("    plural: widgets\n", "");
    let out = failing(&[&no_plural], "  mode: Aggregate\n");
    has_result(
        &out,
        "spec.names.plural",
        "CustomResourceDefinition widgets.example.com: spec.names.plural: is missing",
    );
    assert!(out.stdout.contains("resourceRef:\n    apiVersion: apiextensions.k8s.io/v1\n    kind: CustomResourceDefinition\n    name: widgets.example.com\n"));
}

#[test]
fn crd_field_of_the_wrong_type() {
    let bad = CRD.replace("  group: example.com\n", "  group: [example.com]\n");
    let out = failing(&[&bad], "  mode: Aggregate\n");
    has_result(&out, "spec.group", "CustomResourceDefinition widgets.example.com");
}

#[test]
fn missing_or_wrong_function_config() {
    let input = format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n{}", items(&[CRD.to_string()]));
    let out = function(&input);
    assert_eq!(out.code, 1);
    assert!(out.stdout.starts_with(&input));
    assert!(out.stderr.contains("functionConfig is missing"), "{}", out.stderr);

    let cm = format!("{input}functionConfig:\n  apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n");
    let out = function(&cm);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("functionConfig must be an RBACConfig"), "{}", out.stderr);
    assert!(out.stdout.contains("kind: Secret\n    name: s\n"), "the result points at the config object");
}

#[test]
fn malformed_yaml_reports_line_and_column() {
    let out = function("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a: [1, 2\n  b: c\n");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("malformed YAML"), "{}", out.stderr);
    assert!(out.stderr.contains("(line 5, column"), "{}", out.stderr);
    assert!(out.stdout.contains("kind: ResourceList\nitems: []\nresults:\n"), "{}", out.stdout);
}

#[test]
fn not_a_resource_list() {
    let out = function("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("the input is not a ResourceList"), "{}", out.stderr);
    let out = function("- just\n- a list\n");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("not a ResourceList"), "{}", out.stderr);
}

#[test]
fn render_prints_nothing_on_error_and_names_the_file() {
    let inputs = [Source { name: "bundle/bad.yaml".into(), text: "kind: A\n  b: [\n".into() }];
    let out = render(&inputs, &[Source { name: "rbac.yaml".into(), text: config("ext", "  mode: Aggregate\n") }]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains("[bundle/bad.yaml]"), "{}", out.stderr);

    let inputs = [Source { name: "crd.yaml".into(), text: CRD.replace("  group: example.com\n", "") }];
    let out = render(&inputs, &[Source { name: "rbac.yaml".into(), text: config("ext", "  mode: Aggregate\n") }]);
    assert_eq!((out.code.code(), out.stdout.as_str()), (1, ""));
    assert!(out.stderr.contains("spec.group: is missing"), "{}", out.stderr);
    assert!(out.stderr.contains("[crd.yaml#0]"), "{}", out.stderr);

    let out = render(&[Source { name: "crd.yaml".into(), text: CRD.into() }], &[]);
    assert_eq!((out.code.code(), out.stdout.as_str()), (1, ""));
    assert!(out.stderr.contains("no RBACConfig found"), "{}", out.stderr);
}

/// No byte sequence makes the function panic: every prefix and many single-byte
/// mutations of a real list end in exit 0 or 1.
#[test]
fn never_panics() {
    let input = resource_list(&docs_of("memcached-operator-0.0.1"), &config("ext", "  mode: Aggregate\n"));
    let bytes = input.as_bytes();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut cases: Vec<Vec<u8>> = (0..bytes.len()).step_by(97).map(|n| bytes[..n].to_vec()).collect();
    for _ in 0..400 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut m = bytes.to_vec();
        let at = (seed as usize) % m.len();
        m[at] = b"-:[]{}#&*!|>'\"%@` \n\t0"[(seed >> 32) as usize % 21];
        cases.push(m);
    }
    for case in cases {
        let text = String::from_utf8_lossy(&case);
        let out = std::panic::catch_unwind(|| function(&text));
        let out = out.unwrap_or_else(|_| panic!("panicked on:\n{text}"));
        assert!(out.code == 0 || out.code == 1);
        if out.code == 1 {
            assert!(out.stderr.contains("error: "), "an error says why");
        }
    }
}

const BIND_OK: &str = "  mode: Bind\n  bindings:\n  - role: view\n    subjects: [{kind: Group, name: g}]\n";

#[test]
fn bind_config_errors_name_their_fields() {
    let cases: &[(&str, &str, &str)] = &[
        ("  mode: Aggregate\n  bindings: []\n", "spec.bindings", "only used in Bind mode"),
        (
            "  mode: Bind\n  bindings:\n  - role: edit\n    subjects: [{kind: ServiceAccount, name: ci}]\n",
            "spec.bindings[0].subjects[0].namespace",
            "needs the namespace it lives in",
        ),
        (
            "  mode: Bind\n  bindings:\n  - role: view\n    subjects: [{kind: Group, name: g}]\n    namespaces: [team-a, Team_B]\n",
            "spec.bindings[0].namespaces[1]",
            "\"Team_B\" is not a valid namespace name",
        ),
        (
            "  mode: Bind\n  bindings:\n  - role: view\n    subjects: [{kind: Group, name: \"system:unauthenticated\"}]\n",
            "spec.bindings[0].subjects[0].name",
            "would grant access to unauthenticated requests",
        ),
        ("  mode: Bind\n  bindings:\n  - role: view\n    subjects: []\n", "spec.bindings[0].subjects", "at least one subject"),
        (
            "  mode: Bind\n  bindings:\n  - role: view\n    subjects: [{kind: Robot, name: r}]\n",
            "spec.bindings[0].subjects[0].kind",
            "expected one of User, Group, ServiceAccount",
        ),
        (
            "  mode: Bind\n  bindings:\n  - role: view\n    subjects: [{kind: Group, name: g}]\n    namespace: [a]\n",
            "spec.bindings[0].namespace",
            "unknown field `namespace`",
        ),
        (
            "  mode: Bind\n  bindings:\n  - role: view\n    subjects: [{kind: Group, name: g}]\n    namespaceSelector:\n      matchExpressions: [{key: k, operator: In}]\n",
            "spec.bindings[0].namespaceSelector.matchExpressions[0].values",
            "needs at least one value",
        ),
        (
            "  mode: Bind\n  roles: [edit, admin]\n  bindings:\n  - role: edit\n    subjects: [{kind: Group, name: g}]\n",
            "spec.bindings[0].role",
            "needs the view role",
        ),
        (
            "  mode: Bind\n  bindings:\n  - role: view\n    subjects: [{kind: Group, name: g}]\n    namespaces: []\n",
            "spec.bindings[0].namespaces",
            "leave it out for a cluster-wide binding",
        ),
        ("  mode: Aggregate\n  bundleRoles: Adopt\n", "spec.bundleRoles", "expected one of Use, Ignore"),
    ];
    for (spec, field, message) in cases {
        let out = failing(&[CRD], spec);
        has_result(&out, field, message);
    }
}

#[test]
fn binding_everyone_is_a_warning_not_an_error() {
    let spec = BIND_OK.replace("name: g", "name: \"system:authenticated\"");
    let input = resource_list(&[CRD.to_string()], &config("ext", &spec));
    let out = function(&input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("warning: RBACConfig ext: spec.bindings[0].subjects: group \"system:authenticated\" means every authenticated user"), "{}", out.stderr);
}

/// Messages point at the field as the admin wrote it, and say what it should be.
#[test]
fn config_mistakes_are_explained_in_the_configs_terms() {
    let bundle = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: foos.example.com}\nspec: {group: example.com, names: {plural: foos, kind: Foo}, scope: Namespaced}\n";
    let cases = [
        (
            "apiVersion: wrong.io/v1alpha1\nkind: RBACConfig\nmetadata: {name: g}\nspec: {mode: Aggregate}\n",
            "error: RBACConfig.wrong.io g: apiVersion: expected an RBACConfig (olm-rbac.io/v1alpha1), found apiVersion \"wrong.io/v1alpha1\" [rbac.yaml#0]",
        ),
        (
            "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: g\nmode: Aggregate\n",
            "error: RBACConfig g: mode: unknown field `mode`, expected one of apiVersion, kind, metadata, spec; the settings (mode, bindings, ...) go under spec: (line 5, column 1) [rbac.yaml#0]",
        ),
        (
            "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: g\nspec:\n  mode: Bind\n  bindings:\n  - role: view\n    subjects:\n      kind: Group\n      name: g\n",
            "error: RBACConfig g: spec.bindings[0].subjects: must be a list of subjects, each {kind, name} (and namespace for a ServiceAccount) (line 10, column 7) [rbac.yaml#0]",
        ),
        (
            "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: g\nspec:\n  mode: Bind\n  bindings:\n  - role: view\n    subjects: [{kind: Group}]\n",
            "error: RBACConfig g: spec.bindings[0].subjects[0]: missing field `name` (line 9, column 17) [rbac.yaml#0]",
        ),
        (
            "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata: {name: g}\nspec:\n  mode: Aggregate\n  apis: {include: \"*.example.com\"}\n",
            "error: RBACConfig g: spec.apis.include: must be a list of API name patterns (<plural>.<group>, with * and ?) (line 6, column 19) [rbac.yaml#0]",
        ),
    ];
    for (config, expected) in cases {
        let out = render(
            &[Source { name: "bundle.yaml".into(), text: bundle.into() }],
            &[Source { name: "rbac.yaml".into(), text: config.into() }],
        );
        assert_eq!(out.code, 1);
        assert_eq!(out.stderr.trim_end(), format!("{expected}\n1 error, 0 warnings"));
    }
}

#[test]
fn a_repeated_key_names_the_key_file_and_line_in_olm_rbacs_words() {
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: a\nrules:\n- apiGroups: [\"\"]\n  resources: [pods]\n  verbs: [get]\n  verbs: [\"*\"]\n";
    let cfg = [Source { name: "rbac.yaml".into(), text: config("ext", "  mode: Aggregate\n") }];
    let out = render(&[Source { name: "bundle/dup.yaml".into(), text: role.into() }], &cfg);
    assert_eq!((out.code.code(), out.stdout.as_str()), (1, ""));
    assert_eq!(
        out.stderr,
        "error: ClusterRole a: rules[0].verbs: the key \"verbs\" is written twice in one mapping: kubectl keeps the last one without a word, while kustomize and the API server's strict field validation refuse it; keep one (line 9, column 3) [bundle/dup.yaml#0]\n1 error, 0 warnings\n"
    );
    assert!(!out.stderr.contains("DuplicateKeyPolicy"), "no library wording");
    // In an item's header too, where the whole item is read.
    let header = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n";
    let out = render(&[Source { name: "cm.yaml".into(), text: header.into() }], &cfg);
    assert!(
        out.stderr.starts_with("error: this item cannot be read as a whole: metadata.name: the key \"name\" is written twice in one mapping:"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("(line 5, column 3) [cm.yaml]"), "{}", out.stderr);
}

#[test]
fn plain_manifests_sent_to_the_function_point_to_render() {
    for input in [
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
    ] {
        let out = function(input);
        assert_eq!(out.code, 1);
        assert!(
            out.stderr.contains("olm-rbac without a command is a KRM function, which reads one ResourceList (what kpt and kustomize send); to render plain manifests, use olm-rbac render --config FILE - instead\n1 error, 0 warnings\n"),
            "{}",
            out.stderr
        );
    }
    assert!(function("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\nkind: B\n")
        .stderr
        .starts_with("error: the input holds several YAML documents, not one ResourceList:"));
    // Files run together without `---` (cat *.yaml | olm-rbac) read as one mapping with repeated keys.
    let run_together =
        function("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\napiVersion: v1\nkind: Secret\n");
    assert!(
        run_together.stderr.starts_with(
            "error: the input is not a ResourceList (it has no kind: ResourceList): olm-rbac without a command is a KRM function"
        ),
        "{}",
        run_together.stderr
    );
}

#[test]
fn results_end_with_errors_and_a_summary_line() {
    // A warning (an exclude pattern that matches nothing), an error (a CRD without its group).
    let broken = CRD.replace("widgets", "gadgets").replace("  group: example.com\n", "");
    let out = failing(&[CRD, &broken], "  mode: Aggregate\n  apis:\n    exclude: [nothing.example.com]\n");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.last(), Some(&"1 error, 1 warning"), "{}", out.stderr);
    let kinds: Vec<&str> = lines[..lines.len() - 1].iter().map(|l| l.split(':').next().unwrap()).collect();
    let mut sorted = kinds.clone();
    sorted.sort_by_key(|k| ["info", "warning", "error"].iter().position(|s| s == k));
    assert_eq!(kinds, sorted, "infos, then warnings, then errors: {}", out.stderr);
    assert_eq!(kinds.last(), Some(&"error"));
    // The ResourceList's results come errors first: kpt shows the first few
    // and cuts the rest, so the first a kpt user sees is the error and its fix.
    // The summary is not one of them.
    let results = &out.stdout[out.stdout.find("results:").unwrap()..];
    let severities: Vec<&str> = results.lines().filter_map(|l| l.trim().strip_prefix("severity: ")).collect::<Vec<_>>();
    let mut errors_first = severities.clone();
    errors_first.sort_by_key(|k| ["error", "warning", "info"].iter().position(|s| s == k));
    assert_eq!(severities, errors_first, "{results}");
    assert_eq!(severities.first(), Some(&"error"), "{results}");
    assert!(!results.contains("1 error, 1 warning"));
}

/// A path that cannot be read is unreadable input (exit 2, as for the other
/// commands), not the exit code of a policy refusal (1), and nothing is
/// written.
#[test]
fn a_missing_path_is_unreadable_input_not_a_refusal() {
    let missing = repo("no/such/bundle");
    for config in [None, Some(repo("examples/guestbook/rbac.yaml"))] {
        let mut args = vec!["render".to_string()];
        if let Some(c) = &config {
            args.extend(["-c".into(), c.display().to_string()]);
        }
        args.push(missing.display().to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_bin(&args, "");
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(out.stdout.is_empty());
        assert!(text(&out.stderr).contains("no/such/bundle: No such file or directory"), "{}", text(&out.stderr));
    }
    let out = run_bin(&["render", "-c", &repo("no/such/rbac.yaml").display().to_string()], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}
