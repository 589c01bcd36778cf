//! What the access commands print, as a kubectl user expects it: `-o json|yaml`
//! in one shape per command, `-q`, documents named as `render` names them, a
//! `report` table that fits 120 columns, and the outputs the docs show. Each
//! through the real binary.

use std::path::Path;
use std::process::Command;

use crate::access_habits::{answer, cluster_role_binding, outcome, WIDGETS};
use crate::common::{repo, run_bin, text, BIN};

/// JSON and YAML of `who-can`, `can-i --list` and `report`: the same data.
#[test]
fn json_and_yaml_print_one_shape_each() {
    let parse = |args: &[&str]| -> serde_json::Value {
        let (code, json) = answer(&[args, &["-o", "json"]].concat(), WIDGETS);
        assert_eq!(code, Some(0), "{args:?}: {json}");
        let (code, yaml) = answer(&[args, &["-o", "yaml"]].concat(), WIDGETS);
        assert_eq!(code, Some(0), "{args:?}: {yaml}");
        let from_json: serde_json::Value = serde_json::from_str(&json).unwrap();
        let from_yaml: serde_json::Value = serde_saphyr::from_str(&yaml).unwrap();
        assert_eq!(from_json, from_yaml, "{args:?}");
        from_json
    };
    let who = parse(&["who-can", "create", "widgets", "-n", "team-a"]);
    assert_eq!(
        (&who["verb"], &who["resource"], &who["where"]),
        (&"create".into(), &"widgets.example.com".into(), &"team-a".into())
    );
    let bob = who["holders"].as_array().unwrap().iter().find(|h| h["subject"]["name"] == "bob").unwrap();
    assert_eq!(
        bob,
        &serde_json::json!({
            "subject": {"kind": "User", "name": "bob"},
            "where": "team-a",
            "grant": {
                "binding": {"kind": "RoleBinding", "name": "bob-edit", "namespace": "team-a", "builtIn": false},
                "roles": [{"name": "edit", "builtIn": true}, {"name": "widgets-edit", "builtIn": false}],
                "rule": {"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["create", "update", "patch", "delete"]}
            }
        })
    );
    let masters = &who["holders"][0];
    assert_eq!(masters["subject"], serde_json::json!({"kind": "Group", "name": "system:masters"}));
    assert_eq!((&masters["where"], &masters["grant"]["privilegedGroup"]), (&"*".into(), &true.into()));
    assert!(masters["grant"].get("binding").is_none(), "{masters}");
    let anyone = &who["holders"][1];
    assert_eq!(anyone["anyoneBoundTo"], serde_json::json!({"clusterRole": "admin", "clusterRoleBindingOnly": false}));
    assert_eq!(anyone["where"], "team-a");
    assert!(anyone.get("subject").is_none() && anyone["grant"].get("binding").is_none());
    let url = parse(&["who-can", "get", "/healthz", "-A"]);
    assert_eq!((&url["nonResourceURL"], &url["where"]), (&"/healthz".into(), &"each".into()));
    assert!(url.get("resource").is_none());

    let list = parse(&["can-i", "--list", "-A", "--as", "bob", "--builtin-roles=none"]);
    assert_eq!(list, serde_json::json!([]), "without the built-in edit, bob's binding grants nothing");
    let list = parse(&["can-i", "--list", "-A", "--as", "bob"]);
    let widgets = list.as_array().unwrap().iter().find(|p| p["resources"] == serde_json::json!(["widgets"])).unwrap();
    assert_eq!(
        widgets,
        &serde_json::json!({"where": "team-a", "apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["create", "update", "patch", "delete"]})
    );
    assert!(list.as_array().unwrap().iter().any(|p| p["where"] == "*" && p["nonResourceURLs"].is_array()));

    let report = parse(&["report"]);
    let row = &report["extensions"][0]["apis"][0];
    assert_eq!(row["api"], "widgets.example.com");
    assert_eq!(
        row["edit"],
        serde_json::json!([
            {"holder": "User bob", "where": ["team-a"]},
            {"holder": "anyone bound to ClusterRole admin", "where": ["where bound"]},
            {"holder": "anyone bound to ClusterRole edit", "where": ["where bound"]}
        ])
    );
    let format = answer(&["report", "--format", "json"], WIDGETS).1;
    assert_eq!(serde_json::from_str::<serde_json::Value>(&format).unwrap(), report, "--format is -o");
    let usage = run_bin(&["can-i", "get", "pods", "--as", "bob", "-o", "json"], WIDGETS);
    assert_eq!(
        outcome(&usage),
        (Some(2), String::new(), "error: -o/--output goes with --list: can-i VERB RESOURCE answers yes or no\n".into())
    );
}

#[test]
fn quiet_leaves_the_answer_alone() {
    let input = format!("{WIDGETS}---\nmetadata: {{name: stray}}\n");
    let line = WIDGETS.lines().count() + 2;
    let warning = format!(
        "warning: stray: this document is not a Kubernetes object (no apiVersion and no kind); ignored (line {line}) [-#3]\n"
    );
    let loud = run_bin(&["can-i", "create", "widgets", "-n", "team-a", "--as", "bob"], &input);
    assert_eq!(outcome(&loud), (Some(0), "yes\n".into(), warning.clone()));
    for (args, code) in [(vec!["-n", "team-a"], 0), (vec!["-n", "team-b"], 1)] {
        let quiet = run_bin(&[&["can-i", "create", "widgets", "--as", "bob", "-q"][..], &args].concat(), &input);
        assert_eq!(outcome(&quiet), (Some(code), String::new(), String::new()), "{args:?}");
    }
    // A resource nobody defines is asked about as named, as kubectl does: -q
    // leaves the answer alone, and without it the warning says so.
    let unknown = run_bin(&["can-i", "create", "gizmos", "--as", "bob", "--quiet"], &input);
    assert_eq!(outcome(&unknown), (Some(1), String::new(), String::new()));
    let said = run_bin(&["can-i", "create", "gizmos", "--as", "bob"], &input);
    assert!(
        text(&said.stderr).contains("warning: the server doesn't have a resource type \"gizmos\""),
        "{}",
        text(&said.stderr)
    );
    for args in [vec!["who-can", "create", "widgets", "-A"], vec!["report"], vec!["can-i", "--list", "--as", "bob"]] {
        let loud = run_bin(&args, &input);
        let quiet = run_bin(&[&args[..], &["-q"]].concat(), &input);
        assert_eq!(text(&loud.stderr), warning, "{args:?}");
        assert_eq!(outcome(&quiet), (Some(0), text(&loud.stdout), String::new()), "{args:?}");
    }
}

/// A document is named the same way by `render` and by the access commands:
/// object, field, message, and `[file#index]` counted from 0.
#[test]
fn documents_are_named_as_render_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("roles.yaml");
    std::fs::write(&file, "# header\n---\nmetadata: {name: stray}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: broken}\nrules: 5\n").unwrap();
    let path = file.to_str().unwrap();
    let config = repo("examples/guestbook/rbac.yaml");
    let render = Command::new(BIN).args(["render", "-c", config.to_str().unwrap(), path]).output().unwrap();
    let access = Command::new(BIN).args(["can-i", "get", "pods", "--as", "bob", "-f", path]).output().unwrap();
    let error = format!("error: ClusterRole broken: rules: must be a list (line 8, column 8) [{path}#1]");
    assert!(text(&render.stderr).lines().any(|l| l == error), "render: {}", text(&render.stderr));
    assert_eq!(outcome(&access), (Some(2), String::new(), format!("{error}\n")), "the access commands say the same");

    std::fs::write(&file, "# header\n---\nmetadata: {name: stray}\n").unwrap();
    let render = Command::new(BIN).args(["render", "-c", config.to_str().unwrap(), path]).output().unwrap();
    let access = Command::new(BIN).args(["report", "-f", path]).output().unwrap();
    let reference = format!("[{path}#0]");
    let named = |stderr: &str| {
        stderr.lines().find(|l| l.contains("stray")).map(|l| {
            l.starts_with("warning: stray: this document is not a Kubernetes object (no apiVersion and no kind);")
                && l.ends_with(&reference)
        })
    };
    assert_eq!(named(&text(&render.stderr)), Some(true), "render: {}", text(&render.stderr));
    assert_eq!(named(&text(&access.stderr)), Some(true), "report: {}", text(&access.stderr));

    let unbound = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {kind: ClusterRole}\n";
    assert_eq!(
        outcome(&run_bin(&["who-can", "get", "pods"], unbound)),
        (
            Some(2),
            String::new(),
            "error: ClusterRoleBinding b: roleRef: needs kind and name, as the API server requires [-#0]\n".into()
        )
    );
    let list = "apiVersion: v1\nkind: List\nitems:\n- kind: RoleBinding\n  metadata: {name: lost}\n";
    let (code, _, stderr) =
        outcome(&run_bin(&["can-i", "get", "pods", "--as", "bob"], &format!("{WIDGETS}---\n{list}")));
    assert_eq!(code, Some(1));
    let line = WIDGETS.lines().count() + 5;
    let expected = format!(
        "warning: List (unnamed): items[0]: this list item is not a Kubernetes object (no apiVersion); ignored (line {line}) [-#3]\n"
    );
    assert_eq!(stderr, expected);
}

/// Renders a bundle of `tests/fixtures/bundles` with a config.
fn rendered(bundle: &str, spec: &str, dir: &Path) -> String {
    let config = dir.join("rbac.yaml");
    std::fs::write(
        &config,
        format!("apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata: {{name: argocd}}\nspec:\n{spec}"),
    )
    .unwrap();
    let manifests = repo(&format!("tests/fixtures/bundles/{bundle}/manifests"));
    let out = Command::new(BIN)
        .args([
            "render",
            "-c",
            config.to_str().unwrap(),
            manifests.to_str().unwrap(),
            repo("examples/bind/namespaces.yaml").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

fn widest(report: &str) -> usize {
    report.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

#[test]
fn the_report_table_fits_120_columns() {
    let dir = tempfile::tempdir().unwrap();
    let bind = "  mode: Bind\n  bindings:\n  - role: edit\n    subjects: [{kind: Group, name: team-a-devs}, {kind: ServiceAccount, name: deployer, namespace: ci}]\n    namespaceSelector: {matchLabels: {tenant: team-a}}\n  - role: view\n    subjects: [{kind: Group, name: sre}]\n  - role: admin\n    subjects: [{kind: User, name: alice@example.com}]\n";
    for (spec, holder) in
        [("  mode: Aggregate\n", "anyone bound to ClusterRole edit"), (bind, "ServiceAccount ci/deployer")]
    {
        let manifests = rendered("argocd-operator-0.19.0", spec, dir.path());
        let (code, report) = answer(&["report"], &manifests);
        assert_eq!(code, Some(0));
        assert!(widest(&report) <= 120, "{} columns:\n{report}", widest(&report));
        assert!(report.contains("applicationsets.argoproj.io") && report.contains(holder), "{report}");
        // Each API once, each level on its own line.
        assert_eq!(report.matches("\napplications.argoproj.io ").count(), 1, "{report}");
    }
    let long = format!("{WIDGETS}{}", cluster_role_binding("long", "widgets-edit", &"u".repeat(150)));
    let (_, report) = answer(&["report"], &long);
    assert!(widest(&report) <= 120, "a 150-character user name wraps:\n{report}");
    let name_chars = report.matches('u').count() - "User bob\nUser \n".matches('u').count();
    assert!(name_chars >= 150, "the name is all there, wrapped: {report}");
}
