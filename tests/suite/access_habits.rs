//! The access commands as a kubectl user runs them: Kubernetes' built-in roles
//! (`--builtin-roles`), `who-can -A`, non-resource URLs, resources by any of
//! their names, `-o json|yaml`, `-q`, documents named as `render` names them,
//! and a `report` table that fits 120 columns. Each through the real binary.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::{repo, text, BIN};

/// A namespaced API whose edit role joins the built-in `edit` by label, and
/// bob bound to the built-in `edit` in team-a by a RoleBinding, as a cluster
/// would hold it (the binding is not in rendered output).
const WIDGETS: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wdg]}
  scope: Namespaced
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widgets-edit
  labels: {rbac.authorization.k8s.io/aggregate-to-edit: \"true\"}
rules:
- {apiGroups: [example.com], resources: [widgets], verbs: [create, update, patch, delete]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bob-edit, namespace: team-a}
subjects: [{kind: User, name: bob, apiGroup: rbac.authorization.k8s.io}]
roleRef: {kind: ClusterRole, name: edit, apiGroup: rbac.authorization.k8s.io}
";

/// Runs the binary with `stdin` piped in.
fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A usage error exits before reading stdin: a broken pipe is fine then.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// `(exit code, stdout, stderr)`.
fn outcome(o: &Output) -> (Option<i32>, String, String) {
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

fn answer(args: &[&str], stdin: &str) -> (Option<i32>, String) {
    let o = run(args, stdin);
    (o.status.code(), text(&o.stdout))
}

#[test]
fn a_rolebinding_to_built_in_edit_grants_its_rules_and_those_aggregated_into_it() {
    let pods = run(&["can-i", "create", "pods", "-n", "team-a", "--as", "bob", "--explain"], WIDGETS);
    assert_eq!(
        outcome(&pods),
        (
            Some(0),
            "yes\n  RoleBinding team-a/bob-edit → edit (built-in, Kubernetes 1.33) ← aggregates system:aggregate-to-edit (built-in) → rule verbs=[create,delete,deletecollection,patch,update] apiGroups=[\"\"] resources=[pods,pods/attach,pods/exec,pods/portforward,pods/proxy]\n".into(),
            String::new()
        )
    );
    let widgets = run(&["can-i", "create", "widgets", "-n", "team-a", "--as", "bob", "--explain"], WIDGETS);
    assert_eq!(
        outcome(&widgets),
        (
            Some(0),
            "yes\n  RoleBinding team-a/bob-edit → edit (built-in, Kubernetes 1.33) ← aggregates widgets-edit → rule verbs=[create,update,patch,delete] apiGroups=[example.com] resources=[widgets]\n".into(),
            String::new()
        ),
        "a role labelled aggregate-to-edit joins the built-in edit"
    );
    // Through edit, bob also reads what view aggregates: two steps of aggregation.
    let read = run(&["can-i", "list", "configmaps", "-n", "team-a", "--as", "bob", "--explain"], WIDGETS);
    assert!(
        text(&read.stdout).contains("→ edit (built-in, Kubernetes 1.33) ← aggregates view (built-in) ← aggregates system:aggregate-to-view (built-in) → rule"),
        "{}",
        text(&read.stdout)
    );
    assert_eq!(answer(&["can-i", "create", "pods", "-n", "team-b", "--as", "bob"], WIDGETS), (Some(1), "no\n".into()));
    assert_eq!(answer(&["can-i", "create", "secrets", "--as", "bob"], WIDGETS), (Some(1), "no\n".into()));
}

#[test]
fn builtin_roles_none_reads_the_input_alone() {
    let none =
        run(&["can-i", "create", "pods", "-n", "team-a", "--as", "bob", "--explain", "--builtin-roles=none"], WIDGETS);
    assert_eq!(
        outcome(&none),
        (
            Some(1),
            "no\n  no binding in the input grants create on pods in namespace team-a to user \"bob\" (groups: system:authenticated)\n".into(),
            String::new()
        )
    );
    let named = ["can-i", "create", "pods", "-n", "team-a", "--as", "bob", "--builtin-roles", "kubernetes-1.33"];
    assert_eq!(answer(&named, WIDGETS), (Some(0), "yes\n".into()), "the default, named");
    let who = answer(&["who-can", "get", "pods", "-A"], WIDGETS).1;
    assert!(who.contains("Group system:masters") && who.contains("User bob"), "{who}");
    let who = answer(&["who-can", "get", "pods", "-A", "--builtin-roles=none"], WIDGETS).1;
    assert_eq!(who, "SUBJECT  WHERE  GRANTED BY\n", "no built-in edit, so nothing reaches bob; no bootstrap bindings");
    let report = answer(&["report", "-o", "json", "--builtin-roles=none"], WIDGETS).1;
    assert!(report.contains("\"clusterAdminsOnly\": [\n    \"widgets.example.com\"\n  ]"), "{report}");
    let wrong = run(&["can-i", "get", "pods", "--as", "bob", "--builtin-roles=kubernetes-1.30"], WIDGETS);
    assert_eq!(wrong.status.code(), Some(2));
    assert!(text(&wrong.stderr).contains("[possible values: kubernetes-1.33, none]"), "{}", text(&wrong.stderr));
}

fn cluster_role_binding(name: &str, role: &str, user: &str) -> String {
    format!("---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {{name: \"{name}\"}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: \"{role}\"}}\nsubjects: [{{kind: User, name: {user}}}]\n")
}

/// As `kubectl apply` of a role named `view` leaves it once the API server has
/// reconciled its bootstrap policy: aggregation restored; unless it opts out.
#[test]
fn an_input_role_or_binding_named_like_a_built_in_one_is_reconciled_unless_it_opts_out() {
    let view = |annotations: &str| {
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: view{annotations}}}\nrules: []\n{}", cluster_role_binding("carol-view", "view", "carol"))
    };
    let carol = ["can-i", "list", "pods", "-A", "--as", "carol"];
    assert_eq!(answer(&carol, &view("")), (Some(0), "yes\n".into()), "view's aggregation comes back");
    let kept = view(", annotations: {rbac.authorization.kubernetes.io/autoupdate: \"false\"}");
    assert_eq!(answer(&carol, &kept), (Some(1), "no\n".into()), "autoupdate \"false\": as written, empty");
    assert_eq!(answer(&[&carol[..], &["--builtin-roles=none"]].concat(), &view("")), (Some(1), "no\n".into()));

    // A binding of a bootstrap name keeps its subjects and gains the bootstrap ones...
    let admins = cluster_role_binding("cluster-admin", "cluster-admin", "dave");
    assert_eq!(answer(&["can-i", "delete", "nodes", "--as", "dave"], &admins), (Some(0), "yes\n".into()));
    let masters = ["can-i", "delete", "nodes", "--as", "root", "--as-group", "system:masters"];
    assert_eq!(answer(&masters, &admins), (Some(0), "yes\n".into()), "system:masters is added back");
    // ...unless it binds another role: then the bootstrap binding replaces it.
    let swapped = cluster_role_binding("system:discovery", "cluster-admin", "erin");
    assert_eq!(answer(&["can-i", "delete", "nodes", "--as", "erin"], &swapped), (Some(1), "no\n".into()));
    let explained = run(&["can-i", "get", "/version", "--as", "erin", "--explain"], &swapped);
    assert!(
        text(&explained.stdout).starts_with("yes\n  ClusterRoleBinding system:basic-user (built-in, Kubernetes 1.33)")
            || text(&explained.stdout)
                .starts_with("yes\n  ClusterRoleBinding system:discovery (built-in, Kubernetes 1.33)"),
        "{}",
        text(&explained.stdout)
    );
}

#[test]
fn who_can_asks_cluster_wide_in_one_namespace_or_in_each() {
    let input = format!("{WIDGETS}{}", cluster_role_binding("ann-widgets", "widgets-edit", "ann"));
    let rows = |args: &[&str]| -> Vec<String> {
        let (code, stdout) = answer(args, &input);
        assert_eq!(code, Some(0), "{args:?}");
        // Subject and place, the padding collapsed; the bootstrap policy's masters left out.
        stdout
            .lines()
            .skip(1)
            .filter(|l| !l.contains("system:masters") && !l.starts_with('#'))
            .map(|l| l.split("  ").filter(|c| !c.is_empty()).take(2).map(str::trim).collect::<Vec<_>>().join(" @ "))
            .collect()
    };
    assert_eq!(
        rows(&["who-can", "create", "widgets"]),
        [
            "anyone bound to ClusterRole admin by a ClusterRoleBinding @ cluster-wide",
            "anyone bound to ClusterRole edit by a ClusterRoleBinding @ cluster-wide",
            "User ann @ cluster-wide"
        ],
        "without -n: what can-i without -n answers; bob's RoleBinding does not"
    );
    assert_eq!(
        rows(&["who-can", "create", "widgets", "-n", "team-a"]),
        [
            "anyone bound to ClusterRole admin @ team-a",
            "anyone bound to ClusterRole edit @ team-a",
            "User ann @ cluster-wide",
            "User bob @ team-a"
        ]
    );
    assert_eq!(
        rows(&["who-can", "create", "wdg", "--all-namespaces"]),
        [
            "anyone bound to ClusterRole admin @ where bound",
            "anyone bound to ClusterRole edit @ where bound",
            "User ann @ cluster-wide",
            "User bob @ team-a"
        ]
    );
    assert_eq!(rows(&["who-can", "create", "widgets", "-n", "team-b"]).len(), 3, "bob's binding is in team-a");
    // who-can agrees with can-i for the users it lists, and for one it leaves out.
    for (args, expected) in [
        (vec!["-n", "team-a", "--as", "bob"], 0),
        (vec!["--as", "bob"], 1),
        (vec!["-A", "--as", "bob"], 1),
        (vec!["--as", "ann"], 0),
    ] {
        let question = [&["can-i", "create", "widgets"][..], &args].concat();
        assert_eq!(run(&question, &input).status.code(), Some(expected), "{question:?}");
    }
    let both = run(&["who-can", "create", "widgets", "-A", "-n", "team-a"], &input);
    assert_eq!(both.status.code(), Some(2), "-A and -n together are a usage error");
}

#[test]
fn non_resource_urls_are_asked_as_kubectl_asks_them() {
    let metrics = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: scraper}\nrules: [{nonResourceURLs: [/metrics, /debug/*], verbs: [get]}]\n";
    let bound = format!("{metrics}{}", cluster_role_binding("prom", "scraper", "prom"));
    let in_namespace = format!("{metrics}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: prom, namespace: mon}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: scraper}}\nsubjects: [{{kind: User, name: prom}}]\n");
    let explained = run(&["can-i", "get", "/metrics", "--as", "prom", "--explain"], &bound);
    assert_eq!(
        outcome(&explained),
        (
            Some(0),
            "yes\n  ClusterRoleBinding prom → scraper → rule verbs=[get] nonResourceURLs=[/metrics,/debug/*]\n".into(),
            String::new()
        )
    );
    assert_eq!(answer(&["can-i", "get", "/debug/pprof", "--as", "prom"], &bound), (Some(0), "yes\n".into()));
    assert_eq!(answer(&["can-i", "post", "/metrics", "--as", "prom"], &bound), (Some(1), "no\n".into()));
    let refused = run(&["can-i", "get", "/metrics", "--as", "prom", "-n", "mon", "--explain"], &in_namespace);
    assert_eq!(
        outcome(&refused),
        (
            Some(1),
            "no\n  no binding in the input or Kubernetes 1.33's bootstrap policy grants get on /metrics cluster-wide (a non-resource URL: only ClusterRoleBindings grant it) to user \"prom\" (groups: system:authenticated)\n".into(),
            "warning: /metrics is a non-resource URL, which has no namespace: -n mon is ignored\n".into()
        ),
        "a RoleBinding grants no URL"
    );
    // Every authenticated user may read /healthz and /version (the bootstrap discovery roles).
    assert_eq!(answer(&["can-i", "get", "/healthz", "--as", "anyone"], &bound), (Some(0), "yes\n".into()));
    let named = run(&["can-i", "get", "/healthz", "x", "--as", "anyone"], &bound);
    assert_eq!(
        outcome(&named),
        (Some(2), String::new(), "error: /healthz is a non-resource URL, which takes no NAME (given \"x\")\n".into())
    );
    let who = answer(&["who-can", "get", "/metrics"], &bound).1;
    assert!(who.contains("User prom "), "{who}");
    assert!(who.contains("Group system:monitoring "), "the bootstrap monitoring binding: {who}");
    let who = answer(&["who-can", "get", "/metrics", "-A", "--builtin-roles=none"], &in_namespace).1;
    assert_eq!(who, "SUBJECT  WHERE  GRANTED BY\n", "a RoleBinding grants no URL, in any namespace");
    let cluster_scoped =
        run(&["can-i", "list", "nodes", "-n", "mon", "--as", "root", "--as-group", "system:masters"], &bound);
    assert_eq!(
        outcome(&cluster_scoped),
        (Some(0), "yes\n".into(), "warning: nodes is cluster-scoped: -n mon is ignored\n".into())
    );
}

#[test]
fn resources_are_named_by_plural_singular_kind_or_short_name() {
    for name in
        ["widgets", "widget", "Widget", "WIDGETS", "wdg", "wdg.example.com", "Widget.v1.example.com", "widgets/status"]
    {
        let args = ["can-i", "delete", name, "-n", "team-a", "--as", "bob"];
        assert_eq!(answer(&args, WIDGETS).0, Some(if name.ends_with("/status") { 1 } else { 0 }), "{name}");
    }
    for name in ["pods", "pod", "Pod", "po", "po.v1.", "pods/exec"] {
        assert_eq!(answer(&["can-i", "create", name, "-n", "team-a", "--as", "bob"], WIDGETS).0, Some(0), "{name}");
    }
    for name in ["deploy", "deployment.apps", "Deployment", "deploy.v1.apps/scale"] {
        assert_eq!(answer(&["can-i", "patch", name, "-n", "team-a", "--as", "bob"], WIDGETS).0, Some(0), "{name}");
    }
    let gadgets = "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: gadgets.other.io}\nspec: {group: other.io, names: {plural: gadgets, kind: Gadget, shortNames: [wdg, po]}, scope: Namespaced}\n";
    let both = format!("{WIDGETS}{gadgets}");
    let ambiguous = run(&["can-i", "get", "wdg", "--as", "bob"], &both);
    assert_eq!(
        outcome(&ambiguous),
        (
            Some(2),
            String::new(),
            "error: the resource \"wdg\" is ambiguous: it may be widgets.example.com, gadgets.other.io; name one of them\n"
                .into()
        )
    );
    assert_eq!(answer(&["can-i", "create", "po", "-n", "team-a", "--as", "bob"], &both).0, Some(0), "core pods win");
    assert_eq!(answer(&["can-i", "get", "gadget", "-n", "team-a", "--as", "bob"], &both).0, Some(1));
    let dotless = run(&["can-i", "get", "pods.v1", "--as", "bob"], WIDGETS);
    assert_eq!(dotless.status.code(), Some(2));
    assert!(text(&dotless.stderr).contains("no CRD can define it"), "{}", text(&dotless.stderr));
}

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
    let anyone = &who["holders"][0];
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
    let usage = run(&["can-i", "get", "pods", "--as", "bob", "-o", "json"], WIDGETS);
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
    let loud = run(&["can-i", "create", "widgets", "-n", "team-a", "--as", "bob"], &input);
    assert_eq!(outcome(&loud), (Some(0), "yes\n".into(), warning.clone()));
    for (args, code) in [(vec!["-n", "team-a"], 0), (vec!["-n", "team-b"], 1)] {
        let quiet = run(&[&["can-i", "create", "widgets", "--as", "bob", "-q"][..], &args].concat(), &input);
        assert_eq!(outcome(&quiet), (Some(code), String::new(), String::new()), "{args:?}");
    }
    let broken = run(&["can-i", "create", "gizmos", "--as", "bob", "--quiet"], &input);
    assert_eq!(
        outcome(&broken),
        (
            Some(2),
            String::new(),
            "error: the resource \"gizmos\" is not known from the input or the built-in kinds: name it as <plural>.<group>\n".into()
        ),
        "an error still says why"
    );
    for args in [vec!["who-can", "create", "widgets", "-A"], vec!["report"], vec!["can-i", "--list", "--as", "bob"]] {
        let loud = run(&args, &input);
        let quiet = run(&[&args[..], &["-q"]].concat(), &input);
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

    let list = "apiVersion: v1\nkind: List\nitems:\n- kind: RoleBinding\n  metadata: {name: lost}\n";
    let (code, _, stderr) = outcome(&run(&["can-i", "get", "pods", "--as", "bob"], &format!("{WIDGETS}---\n{list}")));
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

/// The outputs docs/access-checks.md shows are the ones the commands print.
#[test]
fn the_docs_show_what_the_commands_print() {
    let docs = std::fs::read_to_string(repo("docs/access-checks.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let render = |paths: &[&str]| {
        let args: Vec<String> = paths.iter().map(|p| repo(p).display().to_string()).collect();
        text(&Command::new(BIN).arg("render").args(&args).output().unwrap().stdout)
    };
    let bind = dir.path().join("rendered.yaml");
    std::fs::write(&bind, render(&["examples/bind/", "examples/guestbook/manifests"])).unwrap();
    let aggregated = dir.path().join("aggregated.yaml");
    std::fs::write(&aggregated, render(&["examples/guestbook/"])).unwrap();
    let existing = dir.path().join("existing.yaml");
    let block = docs.split("cat > existing.yaml <<'EOF'\n").nth(1).and_then(|b| b.split("EOF\n").next()).unwrap();
    std::fs::write(&existing, block).unwrap();
    let f = |p: &Path| p.to_str().unwrap().to_string();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["can-i", "create", "guestbooks", "-A", "--as", "bob", "--as-group", "team-a-devs", "-f", &f(&bind)]
                .into_iter()
                .map(String::from)
                .collect(),
            "# no            (exit code 1: bob's grants are RoleBindings, one namespace each)",
        ),
        (
            vec![
                "can-i",
                "create",
                "pods",
                "-n",
                "team-a",
                "--as",
                "bob",
                "-f",
                &f(&bind),
                "-f",
                &f(&existing),
                "--explain",
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            "",
        ),
        (
            vec![
                "can-i",
                "create",
                "guestbooks",
                "-n",
                "team-a",
                "--as",
                "bob",
                "-f",
                &f(&aggregated),
                "-f",
                &f(&existing),
                "--explain",
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            "",
        ),
        (
            vec![
                "can-i",
                "create",
                "pods",
                "-n",
                "team-a",
                "--as",
                "bob",
                "-f",
                &f(&bind),
                "-f",
                &f(&existing),
                "--builtin-roles=none",
                "--explain",
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            "",
        ),
    ];
    for (args, note) in cases {
        let out = Command::new(BIN).args(&args).output().unwrap();
        let stdout = text(&out.stdout);
        let mut lines = stdout.lines();
        let first = lines.next().unwrap_or_default();
        assert!(docs.contains(&format!("# {first}")), "{args:?}: {first}");
        for line in lines {
            assert!(docs.contains(&format!("#   {}\n", line.trim_start())), "{args:?}: the docs do not show\n{line}");
        }
        assert!(docs.contains(note), "{note}");
        assert_eq!(out.status.code(), Some(if first == "yes" { 0 } else { 1 }));
    }
    let report = Command::new(BIN).args(["report", "-f", &f(&bind)]).output().unwrap();
    assert!(
        docs.contains(&format!("$ olm-rbac report -f rendered.yaml\n{}", text(&report.stdout).trim_end())),
        "{}",
        text(&report.stdout)
    );
    let who = Command::new(BIN).args(["who-can", "delete", "guestbook", "-f", &f(&bind)]).output().unwrap();
    assert!(
        docs.contains(&format!("$ olm-rbac who-can delete guestbook -f rendered.yaml\n{}", text(&who.stdout))),
        "{}",
        text(&who.stdout)
    );
}
