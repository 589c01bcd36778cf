//! The access commands as a user runs them: `can-i -A`, `can-i --list`, what
//! they say about stdin, empty input and skipped items, and their `--help`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::{run_bin, text, BIN};

/// A namespaced API: bob edits it in team-a (RoleBinding); the group auditors
/// views it everywhere through the built-in `view` role (ClusterRoleBinding).
const WIDGETS: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  scope: Namespaced
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widgets-edit
rules:
- apiGroups: [example.com]
  resources: [widgets]
  verbs: [create, update, patch, delete]
- apiGroups: [apiextensions.k8s.io]
  resources: [customresourcedefinitions]
  resourceNames: [widgets.example.com]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widgets-view
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: \"true\"
rules:
- apiGroups: [example.com]
  resources: [widgets]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: bob-edits-widgets
  namespace: team-a
subjects:
- {kind: User, name: bob, apiGroup: rbac.authorization.k8s.io}
roleRef: {kind: ClusterRole, name: widgets-edit, apiGroup: rbac.authorization.k8s.io}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: auditors-view
subjects:
- {kind: Group, name: auditors, apiGroup: rbac.authorization.k8s.io}
roleRef: {kind: ClusterRole, name: view, apiGroup: rbac.authorization.k8s.io}
";

/// `(exit code, stdout, stderr)`.
fn outcome(o: &Output) -> (Option<i32>, String, String) {
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

fn widgets_file(dir: &Path) -> PathBuf {
    let path = dir.join("widgets.yaml");
    std::fs::write(&path, WIDGETS).unwrap();
    path
}

/// `-A` asks what `kubectl auth can-i -A` asks: the request in every namespace
/// at once, which a cluster answers from cluster-wide grants only.
#[test]
fn all_namespaces_asks_as_kubectl_does() {
    let in_team_a = run_bin(&["can-i", "create", "widgets", "-n", "team-a", "--as", "bob"], WIDGETS);
    assert_eq!(outcome(&in_team_a), (Some(0), "yes\n".into(), String::new()), "bob's RoleBinding is in team-a");
    let everywhere = run_bin(&["can-i", "create", "widgets", "-A", "--as", "bob", "--explain"], WIDGETS);
    assert_eq!(
        outcome(&everywhere),
        (
            Some(1),
            "no\n  no binding in the input or Kubernetes 1.33's bootstrap policy grants create on widgets.example.com in all namespaces at once (only cluster-wide grants answer that) to user \"bob\" (groups: system:authenticated)\n".into(),
            String::new()
        )
    );
    let auditor = run_bin(&["can-i", "watch", "widgets", "-A", "--as", "ann", "--as-group", "auditors"], WIDGETS);
    assert_eq!(auditor.status.code(), Some(0), "a ClusterRoleBinding answers for every namespace");
    let both = run_bin(&["can-i", "get", "widgets", "-A", "-n", "team-a", "--as", "bob"], WIDGETS);
    assert_eq!(both.status.code(), Some(2), "-A and -n together are a usage error");
}

/// The rows of a `--list` table that mention `needle`, after the header, with
/// the columns' padding collapsed (the bootstrap policy's rows widen them).
fn rows_about(table: &str, needle: &str) -> Vec<String> {
    let squeeze = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut lines = table.lines();
    lines.next().map(squeeze).into_iter().chain(lines.filter(|l| l.contains(needle)).map(squeeze)).collect()
}

#[test]
fn list_prints_what_the_user_may_do_in_the_place_asked() {
    let cluster = run_bin(&["can-i", "--list", "--as", "bob"], WIDGETS);
    let (code, stdout, stderr) = outcome(&cluster);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert_eq!(
        rows_about(&stdout, "widgets"),
        ["Resources Non-Resource URLs Resource Names Verbs"],
        "bob's only binding is a RoleBinding; the CRD rule cannot act through it"
    );
    // What Kubernetes' bootstrap policy grants every authenticated user, as
    // `kubectl auth can-i --list` shows it: self-reviews and discovery.
    assert_eq!(
        rows_about(&stdout, "selfsubjectaccessreviews"),
        [
            "Resources Non-Resource URLs Resource Names Verbs",
            "selfsubjectaccessreviews.authorization.k8s.io selfsubjectrulesreviews.authorization.k8s.io [] [] [create]"
        ]
    );
    assert_eq!(
        rows_about(&stdout, "/apis/*"),
        [
            "Resources Non-Resource URLs Resource Names Verbs",
            "[/api /api/* /apis /apis/* /healthz /livez /openapi /openapi/* /readyz /version /version/] [] [get]"
        ]
    );
    assert_eq!(stdout.lines().count(), 5, "a header, 2 self-review rows and 2 discovery rows, one per rule: {stdout}");
    let team_a = run_bin(&["can-i", "--list", "-n", "team-a", "--as", "bob", "--as-group", "auditors"], WIDGETS);
    assert_eq!(
        rows_about(&text(&team_a.stdout), "widgets"),
        [
            "Resources Non-Resource URLs Resource Names Verbs",
            "widgets.example.com [] [] [get list watch create update patch delete]"
        ],
        "team-a's RoleBinding and the ClusterRoleBinding merge"
    );
    assert_eq!(
        rows_about(&text(&team_a.stdout), "pods"),
        [
            "Resources Non-Resource URLs Resource Names Verbs",
            "bindings events limitranges namespaces/status pods/log pods/status replicationcontrollers/status resourcequotas resourcequotas/status [] [] [get list watch]",
            "configmaps endpoints persistentvolumeclaims persistentvolumeclaims/status pods replicationcontrollers replicationcontrollers/scale serviceaccounts services services/status [] [] [get list watch]"
        ],
        "the bootstrap view role's own rules, through aggregation"
    );
    let each = run_bin(&["can-i", "--list", "-A", "--as", "bob", "--as-group", "auditors"], WIDGETS);
    let (code, stdout, _) = outcome(&each);
    assert_eq!(code, Some(0));
    assert_eq!(
        rows_about(&stdout, "widgets"),
        [
            "Namespace Resources Non-Resource URLs Resource Names Verbs",
            "* widgets.example.com [] [] [get list watch]",
            "team-a widgets.example.com [] [] [create update patch delete]"
        ]
    );
    let masters = run_bin(&["can-i", "--list", "--as", "root", "--as-group", "system:masters"], WIDGETS);
    assert_eq!(
        rows_about(&text(&masters.stdout), "*"),
        [
            "Resources Non-Resource URLs Resource Names Verbs",
            "*.* [] [] [*]",
            "[*] [] [*]",
            "[/api /api/* /apis /apis/* /healthz /livez /openapi /openapi/* /readyz /version /version/] [] [get]"
        ],
        "cluster-admin's rules, and the discovery URLs every user has"
    );
}

/// The example of docs/access-checks.md: one line per rule, its resources as
/// `can-i` takes them, and every resource in every group when it has several
/// of both.
#[test]
fn list_keeps_each_rule_whole() {
    let input = "\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ci-reader}
rules:
- {apiGroups: [apps, extensions], resources: [deployments, replicasets], verbs: [get, list, watch]}
- {apiGroups: [apps], resources: [deployments, deployments/scale], verbs: [patch]}
- {apiGroups: [\"\"], resources: [configmaps, secrets], resourceNames: [app-config], verbs: [get]}
- {nonResourceURLs: [/healthz, /readyz], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ci-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ci-reader}
subjects: [{kind: User, name: ci}]
";
    let expected = "\
Resources                                     Non-Resource URLs                              Resource Names   Verbs
configmaps secrets                            []                                             [app-config]     [get]
deployments.apps deployments.apps/scale       []                                             []               [patch]
selfsubjectaccessreviews.authorization.k8s.io selfsubjectrulesreviews.authorization.k8s.io   []                                             []               [create]
selfsubjectreviews.authentication.k8s.io      []                                             []               [create]
{deployments,replicasets}.{apps,extensions}   []                                             []               [get list watch]
                                              [/api /api/* /apis /apis/* /healthz /livez /openapi /openapi/* /readyz /version /version/]   []               [get]
                                              [/healthz /livez /readyz /version /version/]   []               [get]
                                              [/healthz /readyz]                             []               [get]
";
    assert_eq!(outcome(&run_bin(&["can-i", "--list", "--as", "ci"], input)), (Some(0), expected.into(), String::new()));
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/access-checks.md")).unwrap();
    assert!(docs.contains(expected), "the docs quote this output");
}

/// A 4 KB role of 32 groups × 32 resources × 8 verbs × 64 names, bound
/// cluster-wide and in a namespace, lists as two lines per place: kubectl's
/// breakdown would print 65,536 lines (over 7 MB).
#[test]
fn list_of_a_huge_rule_is_one_line() {
    let list = |prefix: &str, n: usize| (0..n).map(|i| format!("{prefix}{i}")).collect::<Vec<_>>().join(", ");
    let input = format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: big}}\nrules:\n- {{apiGroups: [{}], resources: [{}], resourceNames: [{}], verbs: [get, list, watch, create, update, patch, delete, deletecollection]}}\n- {{nonResourceURLs: [{}], verbs: [get]}}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {{name: big}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: big}}\nsubjects: [{{kind: User, name: bob}}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: big, namespace: team-a}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: big}}\nsubjects: [{{kind: User, name: bob}}]\n",
        list("g", 32),
        list("r", 32),
        list("n", 64),
        list("/u", 64)
    );
    let (code, stdout, _) = outcome(&run_bin(&["can-i", "--list", "-A", "--as", "bob"], &input));
    assert_eq!(code, Some(0));
    // Leave out what the bootstrap policy grants every authenticated user.
    let everyone = ["selfsubject", "/healthz"];
    let lines: Vec<&str> = stdout.lines().filter(|l| !everyone.iter().any(|e| l.contains(e))).collect();
    assert_eq!(lines.len(), 4, "a header, the rule and the URLs cluster-wide, the rule in team-a: {stdout}");
    assert!(lines[1].starts_with("*  ") && lines[1].contains("{r0,r1,") && lines[1].contains("}.{g0,g1,"));
    assert!(lines[1].ends_with("[get list watch create update patch delete deletecollection]"));
    assert!(lines[2].starts_with("*  ") && lines[2].contains("[/u0 /u1 "));
    assert!(lines[3].starts_with("team-a  "));
    assert!(stdout.len() < 3 * input.len(), "{} bytes for {} of input", stdout.len(), input.len());
}

#[test]
fn list_and_a_question_do_not_mix() {
    let missing = run_bin(&["can-i", "--as", "bob"], WIDGETS);
    let (code, _, stderr) = outcome(&missing);
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with("error: the following required arguments were not provided:\n  <VERB>\n  <RESOURCE>\n"),
        "{stderr}"
    );
    assert!(stderr.contains("olm-rbac can-i --list --as <USER>"), "the usage shows both forms: {stderr}");
    let mixed = run_bin(&["can-i", "--list", "get", "widgets", "--as", "bob"], WIDGETS);
    let (code, _, stderr) = outcome(&mixed);
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with("error: the argument '--list' cannot be used with:\n  [VERB]\n  [RESOURCE]\n"),
        "{stderr}"
    );
    let explain = run_bin(&["can-i", "--list", "--explain", "--as", "bob"], WIDGETS);
    assert_eq!(explain.status.code(), Some(2));
}

/// Runs `command` with a terminal as stdin, under util-linux `script`.
fn on_a_terminal(command: &str) -> Output {
    Command::new("script").args(["-qec", command, "/dev/null"]).stdin(Stdio::null()).output().unwrap_or_else(|e| {
        panic!("util-linux `script` is needed to give the binary a terminal ({e}): install util-linux")
    })
}

#[test]
fn a_terminal_on_stdin_without_f_fails_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = widgets_file(dir.path());
    for (command, args) in [("can-i", "get widgets --as bob"), ("who-can", "get widgets"), ("report", "")] {
        let out = on_a_terminal(&format!("'{BIN}' {command} {args}"));
        let said = text(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{command}: {said}");
        assert!(
            said.contains(&format!(
                "error: {command} reads rendered manifests, and stdin is a terminal: pass them with -f FILE, or pipe them in (olm-rbac render ... | olm-rbac {command} ...)"
            )),
            "{command}: {said}"
        );
        // With -f, the terminal does not matter.
        let out = on_a_terminal(&format!("'{BIN}' {command} {args} -f '{}'", file.display()));
        assert!(matches!(out.status.code(), Some(0 | 1)), "{command} -f: {}", text(&out.stdout));
    }
}

#[test]
fn empty_input_is_an_error_that_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.yaml");
    std::fs::write(&empty, "# nothing rendered\n---\n").unwrap();
    let expected = "error: the input holds no Kubernetes objects: pass the rendered manifests with -f or on stdin\n";
    for args in [
        vec!["can-i", "get", "guestbooks", "--as", "bob"],
        vec!["can-i", "--list", "--as", "bob"],
        vec!["who-can", "get", "guestbooks"],
        vec!["report"],
    ] {
        let from_stdin = run_bin(&args, "");
        assert_eq!(outcome(&from_stdin), (Some(2), String::new(), expected.into()), "{args:?} on stdin");
        let mut with_file = args.clone();
        with_file.extend(["-f", empty.to_str().unwrap()]);
        let from_file = run_bin(&with_file, "");
        assert_eq!(outcome(&from_file), (Some(2), String::new(), expected.into()), "{args:?} -f");
    }
    let only_junk = run_bin(&["report"], "metadata: {name: x}\n");
    assert_eq!(
        text(&only_junk.stderr),
        format!("warning: x: this document is not a Kubernetes object (no apiVersion and no kind); ignored (line 1) [-#0]\n{expected}")
    );
}

#[test]
fn items_without_apiversion_or_kind_are_named_and_skipped() {
    let input = format!(
        "{WIDGETS}---\nkind: RoleBinding\nmetadata: {{name: lost, namespace: team-b}}\nsubjects: [{{kind: User, name: bob}}]\nroleRef: {{kind: ClusterRole, name: widgets-edit}}\n---\napiVersion: v1\nkind: List\nitems:\n- name: not-an-object\n"
    );
    let warnings = "\
warning: RoleBinding team-b/lost: this document is not a Kubernetes object (no apiVersion); ignored (line 51) [-#5]
warning: List (unnamed): items[0]: this list item is not a Kubernetes object (no apiVersion and no kind); ignored (line 59) [-#6]
";
    let no = run_bin(&["can-i", "create", "widgets", "-n", "team-b", "--as", "bob"], &input);
    assert_eq!(
        outcome(&no),
        (Some(1), "no\n".into(), warnings.into()),
        "the binding without apiVersion grants nothing"
    );
    let who = run_bin(&["who-can", "create", "widgets"], &input);
    assert_eq!((who.status.code(), text(&who.stderr)), (Some(0), warnings.into()));
    let report = run_bin(&["report", "--format", "json"], &input);
    assert_eq!((report.status.code(), text(&report.stderr)), (Some(0), warnings.into()));
}

/// A help line that starts an entry, without its indent; `None` for a
/// description line of long help.
fn entry_of(line: &str) -> Option<&str> {
    let entry = line.trim_start();
    (line.len() - entry.len() < 10 && !entry.is_empty()).then_some(entry)
}

/// The entries of a help section (`Arguments:`, `Options:`, `Commands:`)
/// that have no description: none after the name, none on the next line.
fn undocumented(help: &str) -> Vec<String> {
    let lines: Vec<&str> = help.lines().collect();
    let mut section = "";
    let mut missing = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !line.starts_with(' ') {
            section = line;
            continue;
        }
        if !matches!(section, "Arguments:" | "Options:" | "Commands:") {
            continue;
        }
        // An entry sits two spaces in (six for a flag without a short form);
        // long help puts its description on the next line, ten spaces in.
        let Some(entry) = entry_of(line) else { continue };
        let after = entry.split_once("  ").map_or("", |(_, d)| d.trim());
        let below = lines.get(i + 1).filter(|l| l.starts_with("          ")).map_or("", |l| l.trim());
        let description = if after.is_empty() { below } else { after };
        // `[default: …]` alone is not a description.
        if description.is_empty() || description.starts_with('[') {
            missing.push(entry.to_string());
        }
    }
    missing
}

/// The flags of the `Options:` section, as `(short, long)`.
fn options(help: &str) -> Vec<(Option<String>, String)> {
    let mut in_options = false;
    let mut out = Vec::new();
    for line in help.lines() {
        if !line.starts_with(' ') {
            in_options = line == "Options:";
            continue;
        }
        let Some(entry) = entry_of(line).filter(|_| in_options) else { continue };
        let flags = entry.split("  ").next().unwrap_or_default();
        let mut short = None;
        let mut long = None;
        for token in flags.split([',', ' ']).filter(|t| t.starts_with('-')) {
            // A flag whose value may be left out is shown `--flag[=<VALUE>]`.
            let token = token.split('[').next().unwrap_or_default();
            if token.starts_with("--") {
                long = Some(token.to_string());
            } else {
                short = Some(token.to_string());
            }
        }
        out.extend(long.map(|l| (short, l)));
    }
    out
}

/// Each flag the usage shows, with whether it sits inside `[...]`.
fn usage_flags(help: &str) -> Vec<(String, bool)> {
    let usage: String = help
        .lines()
        .skip_while(|l| !l.starts_with("Usage:"))
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let mut depth = 0i32;
    let mut out = Vec::new();
    for token in usage.split_whitespace() {
        let opening = token.matches('[').count() as i32;
        let flag = token.trim_matches(|c| matches!(c, '[' | ']' | '.' | '|'));
        let flag = flag.split('[').next().unwrap_or_default();
        if flag.starts_with('-') {
            out.push((flag.to_string(), depth + opening > 0));
        }
        depth += opening - token.matches(']').count() as i32;
    }
    out
}

#[test]
fn every_help_describes_every_argument_and_the_usage_shows_every_flag() {
    for command in [&[][..], &["render"], &["schema"], &["can-i"], &["who-can"], &["report"], &["diff"]] {
        let out = Command::new(BIN).args(command).arg("--help").output().unwrap();
        assert!(out.status.success(), "{command:?}");
        let help = text(&out.stdout);
        assert_eq!(undocumented(&help), Vec::<String>::new(), "{command:?} --help:\n{help}");
        let shown = usage_flags(&help);
        for (short, long) in options(&help) {
            if ["--help", "--version"].contains(&long.as_str()) {
                continue;
            }
            let uses: Vec<bool> = shown
                .iter()
                .filter(|(f, _)| *f == long || Some(f) == short.as_ref())
                .map(|(_, optional)| *optional)
                .collect();
            assert!(!uses.is_empty(), "{command:?}: the usage does not show {long}:\n{help}");
            // --as is required; --list is what the second form of can-i is about.
            if !["--as", "--list"].contains(&long.as_str()) {
                assert!(uses.iter().all(|o| *o), "{command:?}: {long} is optional but not shown so:\n{help}");
            }
        }
    }
    let can_i = text(&Command::new(BIN).args(["can-i", "--help"]).output().unwrap().stdout);
    assert!(
        can_i.contains(
            "Usage: olm-rbac can-i <VERB> <RESOURCE> [NAME] [--subresource <SUBRESOURCE>] --as <USER> [--as-group <GROUP>]... [-n <NAMESPACE> | -A] [-f <PATH>]... [-c <FILE>] [--explain] [-q] [--builtin-roles <SET>]\n       olm-rbac can-i --list --as <USER> [--as-group <GROUP>]... [-n <NAMESPACE> | -A] [-f <PATH>]... [-c <FILE>] [-o <FORMAT>] [-q] [--builtin-roles <SET>]\n"
        ),
        "{can_i}"
    );
}

/// A bundle CRD whose plural is a core resource's does not make `secrets`
/// ambiguous (kubectl answers for the core resource), and a CRD in a group
/// without a dot, which the API server refuses, is an error.
#[test]
fn core_resources_win_and_dotless_crd_groups_are_refused() {
    let crd = |group: &str| {
        format!("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: secrets.{group}}}\nspec: {{group: {group}, names: {{plural: secrets, kind: Secret}}, scope: Namespaced}}\n---\n")
    };
    let binding = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: r}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}\nsubjects: [{kind: User, name: bob}]\n";
    let input = format!("{}{binding}", crd("evil.example.com"));
    let (code, stdout, stderr) = outcome(&run_bin(&["can-i", "get", "secrets", "-n", "a", "--as", "bob"], &input));
    assert_eq!((code, stdout.as_str()), (Some(1), "no\n"), "view does not read core secrets: {stderr}");
    // `pods.v1` names the group "v1", as kubectl reads it: asked about, and the
    // warning says how the core group is written.
    let (code, stdout, stderr) = outcome(&run_bin(&["can-i", "get", "pods.v1", "--as", "bob"], binding));
    assert_eq!((code, stdout.as_str()), (Some(1), "no\n"), "{stderr}");
    assert!(stderr.contains("name it pods or pods.v1. (with the trailing dot)"), "{stderr}");
    let (code, _, stderr) =
        outcome(&run_bin(&["can-i", "get", "secrets", "--as", "bob"], &format!("{}{binding}", crd("v1"))));
    assert_ne!(code, Some(0));
    assert!(stderr.contains("spec.group \"v1\" has no dot"), "{stderr}");
}

/// An operator that reads secrets cluster-wide, and alice, who edits in its
/// namespace.
const DEPUTY: &str = "\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: op}
rules:
- {apiGroups: [\"\"], resources: [secrets], verbs: [get, list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: op}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: op}
subjects: [{kind: ServiceAccount, name: argocd-operator, namespace: ops}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice, namespace: ops}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}]
";

/// `who-can` shows who reaches a request through a ServiceAccount, as a
/// path (alice → create pods in ops → ServiceAccount ops/argocd-operator →
/// the grant), in text and JSON; `can-i` stays kubectl's answer.
#[test]
fn who_can_shows_paths_through_a_service_account() {
    let out = run_bin(&["who-can", "get", "secrets", "-A"], DEPUTY);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.contains("# Through a ServiceAccount above"), "{table}");
    let (_, through) = table.split_once("# Through a ServiceAccount above").unwrap_or_else(|| panic!("{table}"));
    let alice = through.lines().find(|l| l.starts_with("User alice ")).unwrap_or_else(|| panic!("{table}"));
    let alice: Vec<&str> = alice.split_whitespace().collect();
    assert_eq!(
        alice.join(" "),
        "User alice cluster-wide create pods in ops → ServiceAccount ops/argocd-operator → ClusterRoleBinding op → op → rule verbs=[get,list] apiGroups=[\"\"] resources=[secrets]"
    );
    let json = run_bin(&["who-can", "get", "secrets", "-A", "-o", "json"], DEPUTY);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let paths = json["throughServiceAccounts"].as_array().cloned().unwrap_or_default();
    let through = paths.iter().find(|t| t["holder"] == "User alice").unwrap_or_else(|| panic!("{json}"));
    assert_eq!(through["path"], "User alice → create pods in ops → ServiceAccount ops/argocd-operator");
    assert_eq!(through["serviceAccount"], "ops/argocd-operator");
    assert_eq!(through["where"], "*");
    assert_eq!(through["ways"].as_array().map(Vec::len), Some(7), "{through}");
    // kubectl's answer: alice's own bindings do not let her read secrets cluster-wide.
    let can_i = run_bin(&["can-i", "get", "secrets", "-A", "--as", "alice"], DEPUTY);
    assert_eq!((can_i.status.code(), text(&can_i.stdout)), (Some(1), "no\n".to_string()));
}

/// A subject name holding an escape sequence or a bidirectional override
/// (a binding the bundle may ship) reaches the terminal escaped, in
/// `who-can`'s paths and in `report`'s "who may act as it".
#[test]
fn hostile_names_in_paths_reach_the_terminal_escaped() {
    let hostile = DEPUTY.replace("name: alice", "name: \"al\\e[2Jice\\u202e\"");
    let who = text(&run_bin(&["who-can", "get", "secrets", "-A"], &hostile).stdout);
    assert!(who.contains("User al\\u{1b}[2Jice\\u{202e}"), "{who}");
    assert!(!who.contains('\u{1b}') && !who.contains('\u{202e}'), "{who}");
    let report = text(&run_bin(&["report"], &hostile).stdout);
    assert!(!report.contains('\u{1b}') && !report.contains('\u{202e}'), "{report}");
}

/// Whoever may write what a deputy acts on (a ClusterExtension, which OLM v1
/// installs as cluster-admin) may have it act for them, with rights the
/// input does not show: `who-can` says so under a line of its own, for any
/// request on a resource, in text and JSON.
#[test]
fn who_can_shows_who_may_have_a_deputy_act_for_them() {
    let installer = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: installs}
rules:
- {apiGroups: [olm.operatorframework.io], resources: [clusterextensions], verbs: [create]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: carol-installs}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: installs}
subjects: [{kind: User, name: carol, apiGroup: rbac.authorization.k8s.io}]
";
    let out = run_bin(&["who-can", "get", "secrets", "-A"], installer);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let (_, deputies) = table.split_once("# Through a deputy: ").unwrap_or_else(|| panic!("{table}"));
    let carol = deputies.lines().find(|l| l.starts_with("User carol ")).unwrap_or_else(|| panic!("{table}"));
    let carol: Vec<&str> = carol.split_whitespace().collect();
    assert_eq!(
        carol.join(" "),
        "User carol cluster-wide create clusterextensions.olm.operatorframework.io → OLM acts for it (install operators), granted by ClusterRoleBinding carol-installs → installs → rule verbs=[create] apiGroups=[olm.operatorframework.io] resources=[clusterextensions]"
    );
    let json = run_bin(&["who-can", "get", "secrets", "-A", "-o", "json"], installer);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let deputy = &json["throughDeputies"][0];
    assert_eq!((deputy["holder"].as_str(), deputy["deputy"].as_str()), (Some("User carol"), Some("OLM")), "{json}");
    assert_eq!(deputy["danger"], "install operators");
    // A non-resource URL is the API server's own: no deputy serves it.
    let url = text(&run_bin(&["who-can", "get", "/healthz"], installer).stdout);
    assert!(!url.contains("Through a deputy"), "{url}");
}

/// Patching an existing ClusterExtension makes OLM install another bundle,
/// and an Application written in any namespace has Argo CD act cluster-wide:
/// every write verb, wherever the question is asked (third review).
#[test]
fn who_can_finds_every_deputy_write_wherever_it_is_asked() {
    let patcher = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: patches}
rules:
- {apiGroups: [olm.operatorframework.io], resources: [clusterextensions], verbs: [patch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: carol-patches}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: patches}
subjects: [{kind: User, name: carol, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: apps, namespace: argocd}
rules:
- {apiGroups: [argoproj.io], resources: [applications], verbs: [update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-apps, namespace: argocd}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: apps}
subjects: [{kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}]
";
    let table = text(&run_bin(&["who-can", "create", "secrets", "-n", "team-a"], patcher).stdout);
    let (_, deputies) = table.split_once("# Through a deputy: ").unwrap_or_else(|| panic!("{table}"));
    assert!(
        deputies.contains("User carol") && deputies.contains("patch clusterextensions.olm.operatorframework.io"),
        "{table}"
    );
    assert!(deputies.contains("User alice") && deputies.contains("update applications.argoproj.io"), "{table}");
}
