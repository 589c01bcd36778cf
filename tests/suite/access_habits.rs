//! The access commands as a kubectl user runs them: Kubernetes' built-in roles
//! (`--builtin-roles`), `who-can -A`, non-resource URLs, and resources by any
//! of their names. Each through the real binary; what they print is in
//! `access_output`.

use std::process::Output;

use crate::common::{run_bin, text};

/// `who-can`'s answer where nothing in the input grants the request: the
/// group Kubernetes' subject locator always names (the API server allows it
/// every request).
const MASTERS_ALONE: &str = "SUBJECT               WHERE         GRANTED BY\nGroup system:masters  cluster-wide  Kubernetes' privileged group: the API server allows it every request, whatever RBAC holds\n";

/// A namespaced API whose edit role joins the built-in `edit` by label, and
/// bob bound to the built-in `edit` in team-a by a RoleBinding, as a cluster
/// would hold it (the binding is not in rendered output).
pub(crate) const WIDGETS: &str = "\
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

/// `(exit code, stdout, stderr)`.
pub(crate) fn outcome(o: &Output) -> (Option<i32>, String, String) {
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

pub(crate) fn answer(args: &[&str], stdin: &str) -> (Option<i32>, String) {
    let o = run_bin(args, stdin);
    (o.status.code(), text(&o.stdout))
}

#[test]
fn a_rolebinding_to_built_in_edit_grants_its_rules_and_those_aggregated_into_it() {
    let pods = run_bin(&["can-i", "create", "pods", "-n", "team-a", "--as", "bob", "--explain"], WIDGETS);
    assert_eq!(
        outcome(&pods),
        (
            Some(0),
            "yes\n  RoleBinding team-a/bob-edit → edit (built-in, Kubernetes 1.33) ← aggregates system:aggregate-to-edit (built-in) → rule verbs=[create,delete,deletecollection,patch,update] apiGroups=[\"\"] resources=[pods,pods/attach,pods/exec,pods/portforward,pods/proxy]\n".into(),
            String::new()
        )
    );
    let widgets = run_bin(&["can-i", "create", "widgets", "-n", "team-a", "--as", "bob", "--explain"], WIDGETS);
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
    let read = run_bin(&["can-i", "list", "configmaps", "-n", "team-a", "--as", "bob", "--explain"], WIDGETS);
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
    let none = run_bin(
        &["can-i", "create", "pods", "-n", "team-a", "--as", "bob", "--explain", "--builtin-roles=none"],
        WIDGETS,
    );
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
    assert_eq!(
        who, MASTERS_ALONE,
        "no built-in edit, so nothing reaches bob; no bootstrap bindings; system:masters, as Kubernetes names it"
    );
    let report = answer(&["report", "-o", "json", "--builtin-roles=none"], WIDGETS).1;
    assert!(report.contains("\"clusterAdminsOnly\": [\n    \"widgets.example.com\"\n  ]"), "{report}");
    let wrong = run_bin(&["can-i", "get", "pods", "--as", "bob", "--builtin-roles=kubernetes-1.30"], WIDGETS);
    assert_eq!(wrong.status.code(), Some(2));
    assert!(text(&wrong.stderr).contains("[possible values: kubernetes-1.33, none]"), "{}", text(&wrong.stderr));
}

pub(crate) fn cluster_role_binding(name: &str, role: &str, user: &str) -> String {
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
    // Which is said: the input's role is not what answers.
    let said = run_bin(&carol, &view(""));
    assert!(
        text(&said.stderr).contains("warning: ClusterRole view in the input is read as the cluster holds it (Kubernetes 1.33's bootstrap policy reconciled over it): Kubernetes' role of that name aggregates, so the API server replaces its rules with what it aggregates, and the answers use those; pass --builtin-roles none to read the input as written"),
        "{}",
        text(&said.stderr)
    );
    for quiet in [run_bin(&[&carol[..], &["--builtin-roles=none"]].concat(), &view("")), run_bin(&carol, &kept)] {
        assert!(!text(&quiet.stderr).contains("is read as the cluster holds it"), "{}", text(&quiet.stderr));
    }

    // A binding of a bootstrap name keeps its subjects and gains the bootstrap ones...
    let admins = cluster_role_binding("cluster-admin", "cluster-admin", "dave");
    assert_eq!(answer(&["can-i", "delete", "nodes", "--as", "dave"], &admins), (Some(0), "yes\n".into()));
    let masters = ["can-i", "delete", "nodes", "--as", "root", "--as-group", "system:masters"];
    assert_eq!(answer(&masters, &admins), (Some(0), "yes\n".into()), "system:masters is added back");
    // ...unless it binds another role: then the bootstrap binding replaces it.
    let swapped = cluster_role_binding("system:discovery", "cluster-admin", "erin");
    assert_eq!(answer(&["can-i", "delete", "nodes", "--as", "erin"], &swapped), (Some(1), "no\n".into()));
    let said = run_bin(&["can-i", "delete", "nodes", "--as", "erin"], &swapped);
    assert!(
        text(&said.stderr)
            .contains("warning: ClusterRoleBinding system:discovery in the input is read as the cluster holds it"),
        "{}",
        text(&said.stderr)
    );
    let explained = run_bin(&["can-i", "get", "/version", "--as", "erin", "--explain"], &swapped);
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
        assert_eq!(run_bin(&question, &input).status.code(), Some(expected), "{question:?}");
    }
    let both = run_bin(&["who-can", "create", "widgets", "-A", "-n", "team-a"], &input);
    assert_eq!(both.status.code(), Some(2), "-A and -n together are a usage error");
}

#[test]
fn non_resource_urls_are_asked_as_kubectl_asks_them() {
    let metrics = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: scraper}\nrules: [{nonResourceURLs: [/metrics, /debug/*], verbs: [get]}]\n";
    let bound = format!("{metrics}{}", cluster_role_binding("prom", "scraper", "prom"));
    let in_namespace = format!("{metrics}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: prom, namespace: mon}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: scraper}}\nsubjects: [{{kind: User, name: prom}}]\n");
    let explained = run_bin(&["can-i", "get", "/metrics", "--as", "prom", "--explain"], &bound);
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
    let refused = run_bin(&["can-i", "get", "/metrics", "--as", "prom", "-n", "mon", "--explain"], &in_namespace);
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
    let named = run_bin(&["can-i", "get", "/healthz", "x", "--as", "anyone"], &bound);
    assert_eq!(
        outcome(&named),
        (Some(2), String::new(), "error: /healthz is a non-resource URL, which takes no NAME (given \"x\")\n".into())
    );
    let who = answer(&["who-can", "get", "/metrics"], &bound).1;
    assert!(who.contains("User prom "), "{who}");
    assert!(who.contains("Group system:monitoring "), "the bootstrap monitoring binding: {who}");
    let who = answer(&["who-can", "get", "/metrics", "-A", "--builtin-roles=none"], &in_namespace).1;
    assert_eq!(who, MASTERS_ALONE, "a RoleBinding grants no URL, in any namespace");
    let cluster_scoped =
        run_bin(&["can-i", "list", "nodes", "-n", "mon", "--as", "root", "--as-group", "system:masters"], &bound);
    assert_eq!(
        outcome(&cluster_scoped),
        (Some(0), "yes\n".into(), "warning: nodes is cluster-scoped: -n mon is ignored\n".into())
    );
}

/// Issue 49: kubectl reads `TYPE/NAME` (`pods/web-0` is the pod named
/// web-0) and takes a subresource as `--subresource`. Where the part after
/// the `/` is a subresource's name, what was meant cannot be told: refused,
/// with both ways to say it. An unknown subresource is a warning.
#[test]
fn type_slash_name_and_subresource_are_read_as_kubectl_reads_them() {
    let named = ["can-i", "get", "pods/web-0", "-n", "team-a", "--as", "bob"];
    assert_eq!(answer(&named, WIDGETS).0, Some(0));
    let twice = ["can-i", "get", "pods/web-0", "web-1", "-n", "team-a", "--as", "bob"];
    assert_eq!(answer(&twice, WIDGETS).0, Some(2));
    let ambiguous = run_bin(&["can-i", "get", "crd/status", "--as", "bob"], WIDGETS);
    assert_eq!(ambiguous.status.code(), Some(2));
    assert!(
        text(&ambiguous.stderr).contains(
            "kubectl reads TYPE/NAME, the crd named \"status\"; for the subresource write `crd --subresource status`"
        ),
        "{}",
        text(&ambiguous.stderr)
    );
    let crd =
        run_bin(&["can-i", "get", "crd/widgets.example.com", "--as", "root", "--as-group", "system:masters"], WIDGETS);
    assert_eq!(crd.status.code(), Some(0), "{}", text(&crd.stderr));
    let unknown = run_bin(&["can-i", "get", "pods", "--subresource", "logs", "-n", "team-a", "--as", "bob"], WIDGETS);
    assert!(
        text(&unknown.stderr).contains("\"logs\" is no subresource the API server serves or authorizes"),
        "{}",
        text(&unknown.stderr)
    );
    let who = run_bin(&["who-can", "create", "pods", "--subresource", "exec", "-n", "team-a"], WIDGETS);
    assert_eq!(who.status.code(), Some(0), "{}", text(&who.stderr));
}

#[test]
fn resources_are_named_by_plural_singular_kind_or_short_name() {
    for name in ["widgets", "widget", "Widget", "WIDGETS", "wdg", "wdg.example.com", "Widget.v1.example.com"] {
        let args = ["can-i", "delete", name, "-n", "team-a", "--as", "bob"];
        assert_eq!(answer(&args, WIDGETS).0, Some(0), "{name}");
    }
    let status = ["can-i", "delete", "widgets", "--subresource", "status", "-n", "team-a", "--as", "bob"];
    assert_eq!(answer(&status, WIDGETS).0, Some(1), "the resource does not grant its subresource");
    for name in ["pods", "pod", "Pod", "po", "po.v1."] {
        assert_eq!(answer(&["can-i", "create", name, "-n", "team-a", "--as", "bob"], WIDGETS).0, Some(0), "{name}");
    }
    let exec = ["can-i", "create", "pods", "--subresource", "exec", "-n", "team-a", "--as", "bob"];
    assert_eq!(answer(&exec, WIDGETS).0, Some(0));
    for name in ["deploy", "deployment.apps", "Deployment"] {
        assert_eq!(answer(&["can-i", "patch", name, "-n", "team-a", "--as", "bob"], WIDGETS).0, Some(0), "{name}");
    }
    let scale = ["can-i", "patch", "deploy.v1.apps", "--subresource", "scale", "-n", "team-a", "--as", "bob"];
    assert_eq!(answer(&scale, WIDGETS).0, Some(0));
    let gadgets = "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: gadgets.other.io}\nspec: {group: other.io, names: {plural: gadgets, kind: Gadget, shortNames: [wdg, po]}, scope: Namespaced}\n";
    let both = format!("{WIDGETS}{gadgets}");
    let ambiguous = run_bin(&["can-i", "get", "wdg", "--as", "bob"], &both);
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
    let dotless = run_bin(&["can-i", "get", "pods.v1", "--as", "bob"], WIDGETS);
    assert_eq!(dotless.status.code(), Some(1), "asked about, as kubectl asks");
    assert!(
        text(&dotless.stderr).contains("warning: the server doesn't have a resource type \"pods\" in group \"v1\""),
        "{}",
        text(&dotless.stderr)
    );
}
