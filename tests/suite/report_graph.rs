//! `report -o dot` and the Mermaid graphs of `report -o markdown`: read by
//! the real Graphviz (required in CI) and, where it is installed, Mermaid's
//! own parser; names from the input, however hostile, stay inside their labels.

use std::path::Path;
use std::process::Command;

use crate::common::{repo, run, run_bin, skip, text, Tool};

const DOT: Tool = Tool { name: "dot", install: "install Graphviz (Debian package graphviz)" };

/// Five bindings and the operator's own RBAC, as an admin would write them.
const BIND: &str = "  mode: Bind
  bindings:
  - role: admin
    subjects: [{kind: User, name: alice@example.com}]
  - role: edit
    subjects: [{kind: Group, name: team-a-devs}, {kind: ServiceAccount, name: deployer, namespace: ci}]
    namespaceSelector: {matchLabels: {tenant: team-a}}
  - role: view
    subjects: [{kind: Group, name: sre}]
  - role: edit
    subjects: [{kind: Group, name: team-b-devs}]
    namespaces: [team-b]
  - role: view
    subjects: [{kind: Group, name: auditors}]
    namespaces: [team-a, team-b]
  operator:
    permissions: Cluster
    installNamespace: argocd
";

/// argocd-operator 0.19.0 rendered with `spec`.
fn rendered(spec: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("rbac.yaml");
    let doc = format!("apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata: {{name: argocd}}\nspec:\n{spec}");
    std::fs::write(&config, doc).unwrap();
    let manifests = repo("tests/fixtures/bundles/argocd-operator-0.19.0/manifests");
    let namespaces = repo("examples/bind/namespaces.yaml");
    let out = run_bin(
        &["render", "-c", config.to_str().unwrap(), manifests.to_str().unwrap(), namespaces.to_str().unwrap()],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// `report` with `args` on `manifests`: exit 0, nothing on stderr, stdout.
fn report(args: &[&str], manifests: &str) -> String {
    let out = run_bin(&[&["report", "-q"], args].concat(), manifests);
    assert_eq!((out.status.code(), text(&out.stderr)), (Some(0), String::new()));
    text(&out.stdout)
}

/// What Graphviz makes of `graph` in `format`: it must exit 0 and warn of nothing.
fn graphviz(dot: &Path, graph: &str, format: &str) -> String {
    let out = run(Command::new(dot).arg(format!("-T{format}")), graph);
    assert_eq!(out.status.code(), Some(0), "dot -T{format}: {}\n{graph}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "", "dot -T{format} warned about:\n{graph}");
    text(&out.stdout)
}

/// Nodes and edges Graphviz read, from its plain output.
fn counted(plain: &str) -> (usize, usize) {
    let count = |word: &str| plain.lines().filter(|l| l.starts_with(word)).count();
    (count("node "), count("edge "))
}

/// Nodes and edges the DOT text declares, one statement a line.
fn declared(graph: &str) -> (usize, usize) {
    let edges = graph.lines().filter(|l| l.contains(" -> ")).count();
    let nodes = graph
        .lines()
        .filter(|l| l.trim_start().starts_with('e') && l.contains(" [label=") && !l.contains(" -> "))
        .count();
    (nodes, edges)
}

#[test]
fn dot_draws_argocd_in_bind_and_aggregate_mode_as_graphviz_reads_it() {
    let Some(dot) = DOT.find() else { return };
    let manifests = rendered(BIND);
    let bind = report(&["-o", "dot"], &manifests);
    // Every holder the evaluator finds for an API is a subject of the picture.
    let json: serde_json::Value = serde_json::from_str(&report(&["-o", "json"], &manifests)).unwrap();
    let mut holders = 0;
    for api in json["extensions"][0]["apis"].as_array().unwrap() {
        for holder in ["admin", "edit", "view"].iter().flat_map(|l| api[l].as_array().unwrap()) {
            let node = format!("[label=\"{}\", shape=ellipse]", holder["holder"].as_str().unwrap());
            assert!(bind.contains(&node), "{node}:\n{bind}");
            holders += 1;
        }
    }
    assert!(holders > 50, "{holders}");
    assert_eq!(declared(&bind), counted(&graphviz(&dot, &bind, "plain")), "every node and edge as written:\n{bind}");
    graphviz(&dot, &bind, "svg");
    // Grouped: one node for alice's eight ClusterRoleBindings, one for the eight admin roles.
    assert!(bind.contains("[label=\"8 ClusterRoleBindings\\nargocd-&#8230;.argoproj.io-admin\", shape=box]"), "{bind}");
    assert!(bind.contains("[label=\"User alice@example.com\", shape=ellipse]"), "{bind}");
    // The operator's `*` on secrets, pods and service accounts is drawn red and bold.
    let critical = bind.lines().filter(|l| l.contains("[label=\"* (critical)\", color=\"#cc0000\"")).count();
    let high = bind.lines().filter(|l| l.contains("[label=\"* (high)\", color=\"#cc0000\"")).count();
    assert!(critical >= 3 && high >= 1, "{critical} critical, {high} high edges:\n{bind}");
    assert!(declared(&bind).0 <= 70, "grouped, not a node per rule or binding: {:?}", declared(&bind));

    let aggregate = report(&["-o", "dot"], &rendered("  mode: Aggregate\n"));
    graphviz(&dot, &aggregate, "svg");
    assert_eq!(declared(&aggregate), counted(&graphviz(&dot, &aggregate, "plain")));
    for level in ["admin", "edit", "view"] {
        let node = format!("[label=\"anyone bound to ClusterRole {level}\", shape=ellipse]");
        assert!(aggregate.contains(&node), "{aggregate}");
    }
    // Whoever is bound to `view` reaches every API of argoproj.io with `view`, in one edge.
    assert!(aggregate.contains("[label=\"view\"]"), "{aggregate}");
}

/// A binding and a role whose names try to end their label, add a statement
/// or a comment, run a script or a click handler.
const HOSTILE_NAME: &str =
    "x\\\"];\\n--> evil[\\\"pwn\\\"] %% `<script>alert(1)</script>` click n0 call alert() \\\\N & \\u00e9";

fn hostile() -> String {
    let guestbook = run_bin(&["render", repo("examples/guestbook/").to_str().unwrap()], "");
    assert_eq!(guestbook.status.code(), Some(0), "{}", text(&guestbook.stderr));
    let name = HOSTILE_NAME;
    format!(
        "{}---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {{name: \"{name}\"}}
subjects: [{{kind: User, name: \"{name}\"}}]
roleRef: {{kind: ClusterRole, name: \"{name}\", apiGroup: rbac.authorization.k8s.io}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {{name: \"{name}\"}}
rules:
- {{apiGroups: [webapp.example.com], resources: [guestbooks], verbs: [get, list, watch]}}
",
        text(&guestbook.stdout)
    )
}

#[test]
fn hostile_names_stay_inside_their_dot_labels() {
    let Some(dot) = DOT.find() else { return };
    let graph = report(&["-o", "dot"], &hostile());
    assert_eq!(declared(&graph), counted(&graphviz(&dot, &graph, "plain")), "no node or edge added:\n{graph}");
    let svg = graphviz(&dot, &graph, "svg");
    assert!(!svg.contains("<script") && !svg.contains("href"), "{svg}");
    let label = "User x\\\"];&#10;--> evil[\\\"pwn\\\"] %% `<script>alert(1)</script>` click n0 call alert() \\\\N &amp; &#233;";
    assert!(graph.contains(&format!("[label=\"{label}\", shape=ellipse]")), "{graph}");
}

/// The Mermaid blocks of a Markdown report.
fn mermaid_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<String> = None;
    for line in markdown.lines() {
        match (&mut open, line) {
            (None, "```mermaid") => open = Some(String::new()),
            (Some(_), "```") => blocks.extend(open.take()),
            (Some(block), _) => block.push_str(&format!("{line}\n")),
            (None, _) => {}
        }
    }
    blocks
}

/// Every line of a block is a statement the graph writer makes, with labels
/// of plain characters, entity codes and `<br>` only.
fn only_plain_statements(block: &str) {
    let plain = |s: &str| {
        let s = s.replace("<br>", "");
        let mut rest = s.as_str();
        while let Some(i) = rest.find('#') {
            let (head, tail) = rest.split_at(i);
            let code = tail[1..].split(';').next().unwrap_or("");
            assert!(!code.is_empty() && code.chars().all(|c| c.is_ascii_digit()), "{s}");
            assert!(head.chars().all(|c| c.is_ascii_alphanumeric() || " .,:-_/()*+=".contains(c)), "{s}");
            rest = &tail[code.len() + 2..];
        }
        assert!(rest.chars().all(|c| c.is_ascii_alphanumeric() || " .,:-_/()*+=".contains(c)), "{s}");
    };
    let mut lines = block.lines();
    assert_eq!(lines.next(), Some("flowchart LR"));
    for line in lines {
        if line.starts_with("  linkStyle ") {
            continue;
        }
        let line = line.strip_prefix("  n").unwrap_or_else(|| panic!("{line}"));
        // `n1 --> n2`, `n1 -->|"label"| n2`, or `n1<open>"label"<close>`.
        let quoted: Vec<&str> = line.split('"').collect();
        assert!(quoted.len() == 1 || quoted.len() == 3, "{line}");
        if quoted.len() == 3 {
            plain(quoted[1].trim_start_matches("⚠ "));
        }
    }
}

#[test]
fn hostile_names_stay_inside_their_mermaid_labels() {
    let markdown = report(&["-o", "markdown"], &hostile());
    let blocks = mermaid_blocks(&markdown);
    assert_eq!(blocks.len(), 1, "{markdown}");
    only_plain_statements(&blocks[0]);
    assert!(blocks[0].contains("[\"User x#34;#93;#59;#10;--#62; evil#91;#34;pwn#34;#93; #37;#37; #96;#60;script#62;alert(1)#60;/script#62;#96; click n0 call alert() #92;N #38; #233;\"]"), "{}", blocks[0]);
    mermaid_parses(&blocks);
}

#[test]
fn mermaid_graphs_of_argocd_parse() {
    let mut blocks = mermaid_blocks(&report(&["-o", "markdown"], &rendered(BIND)));
    blocks.extend(mermaid_blocks(&report(&["-o", "markdown"], &rendered("  mode: Aggregate\n"))));
    assert_eq!(blocks.len(), 2);
    for b in &blocks {
        only_plain_statements(b);
    }
    assert!(blocks[0].contains("|\"⚠ * (critical)\"|") && blocks[0].contains("linkStyle"), "{}", blocks[0]);
    mermaid_parses(&blocks);
}

/// Mermaid's own parser reads every block, where `node` and a folder with
/// `npm install mermaid jsdom` (named by OLM_RBAC_MERMAID_DIR) are there;
/// otherwise the check is skipped, even in CI (see docs/access-checks.md).
fn mermaid_parses(blocks: &[String]) {
    let (Some(dir), Some(node)) = (std::env::var_os("OLM_RBAC_MERMAID_DIR"), crate::common::on_path("node")) else {
        skip(
            "Mermaid's parser not checked: set OLM_RBAC_MERMAID_DIR to a folder where `npm install mermaid jsdom` ran",
        );
        return;
    };
    let mut cmd = Command::new(node);
    cmd.arg(repo("tests/mermaid/parse.mjs")).env("MERMAID_DIR", dir);
    let out = run(&mut cmd, &blocks.join("\n%%%\n"));
    assert_eq!(out.status.code(), Some(0), "mermaid.parse: {}", text(&out.stderr));
}

/// The report names an operator's account as the kernel does: a subject's
/// empty namespace is its RoleBinding's.
#[test]
fn an_account_with_an_empty_namespace_is_its_rolebindings() {
    let manifests = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules: [{apiGroups: [''], resources: [secrets], verbs: [get]}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: b\n  namespace: ops\n  labels: {app.kubernetes.io/managed-by: olm-rbac, olm-rbac.io/extension: x, olm-rbac.io/role: operator}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}\nsubjects: [{kind: ServiceAccount, name: op, namespace: ''}]\n";
    let out = report(&[], manifests);
    assert!(out.contains("ServiceAccount ops/op (operator of extension x)"), "{out}");
    assert!(out.contains("in ops: verbs=[get] apiGroups=[\"\"] resources=[secrets]"), "{out}");
}
