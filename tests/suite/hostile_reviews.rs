//! What a hostile bundle or name tries against the tools a reviewer trusts:
//! the gate's reading of built-in roles (olmAPIs, the admin's aggregated
//! roles), `diff` (a role left behind, slowness), the Markdown, terminal and
//! graph output of `diff` and `report`, and how a lookalike kind is named.

use std::time::{Duration, Instant};

use olm_rbac::check::commands::{report, Format};
use olm_rbac::check::diff::{diff, DiffOptions, FailOn};
use olm_rbac::run::{render, Source};

use crate::common::*;

fn src(name: &str, text: &str) -> Source {
    Source { name: name.into(), text: text.into() }
}

fn diff_of(old: &str, new: &str, format: Format) -> olm_rbac::outcome::Outcome {
    diff(
        &[src("old.yaml", old)],
        &[src("new.yaml", new)],
        DiffOptions { format, fail_on: FailOn::Gain, ..Default::default() },
    )
}

// ---------------------------------------------------------------------------
// (b) The install gate: a bundle's binding to the built-in `edit` is judged by
// the bootstrap role plus what *this config* generates; what another config of
// the same run, or the admin's own ClusterRole in the input, aggregates into
// `edit` is not counted, although the cluster will hold it.

const ACK: &str = "ack-s3-controller-1.10.0";

const BIND_TO_EDIT: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ack-edit
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects:
- {kind: ServiceAccount, name: ack-s3-controller, namespace: ops}
";

/// Installing operators is forbidden to the bundle's accounts.
const GATED: &str = "  mode: Aggregate
  operator:
    permissions: Namespaces
    installNamespace: ops
    targetNamespaces: [team-a]
    policy:
      deny:
      - {apiGroups: [operators.coreos.com], resources: [subscriptions], verbs: [create]}
";

fn ack_with_binding_to_edit() -> Vec<Source> {
    let mut inputs: Vec<Source> =
        bundle_docs(ACK).into_iter().map(|(name, text)| src(&format!("bundle/manifests/{name}"), &text)).collect();
    inputs.push(src("bundle/manifests/ack-edit.yaml", BIND_TO_EDIT));
    inputs
}

/// The run refuses the bundle's binding to edit: through it, the account could
/// create Subscriptions, which the policy's deny forbids.
fn assert_refused_for_subscriptions_through_edit(out: &olm_rbac::outcome::Outcome) {
    assert_eq!(
        out.code, 1,
        "the bundle's account can create Subscriptions through edit, which policy.deny forbids: {}",
        out.stderr
    );
    assert!(out.stderr.contains("spec.operator.policy.deny[0] forbids"), "{}", out.stderr);
}

#[test]
fn the_gate_counts_what_another_config_of_the_run_aggregates_into_edit() {
    // Config "other" (olmAPIs: Edit, Aggregate) puts creating Subscriptions into
    // edit; config "ext" forbids its bundle's accounts to create Subscriptions,
    // and the bundle binds its account to edit.
    let other = config(
        "other",
        "  mode: Aggregate\n  olmAPIs: Edit\n  allowNoAPIs: true\n  apis: {exclude: [buckets.s3.services.k8s.aws]}\n",
    );
    let configs = [src("admin/ext.yaml", &config("ext", GATED)), src("admin/other.yaml", &other)];
    let out = render(&ack_with_binding_to_edit(), &configs);
    assert!(out.stderr.contains("RBACConfig other: spec.olmAPIs: olmAPIs: Edit"), "{}", out.stderr);
    assert_refused_for_subscriptions_through_edit(&out);
}

#[test]
fn the_gate_counts_an_admins_clusterrole_aggregated_into_edit() {
    // OLM v0's own aggregate-olm-edit, as the admin's file among the inputs:
    // the cluster's edit holds it, so whoever the bundle binds to edit does too.
    let existing = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: aggregate-olm-edit
  labels: {rbac.authorization.k8s.io/aggregate-to-edit: 'true', rbac.authorization.k8s.io/aggregate-to-admin: 'true'}
rules:
- {apiGroups: [operators.coreos.com], resources: [subscriptions], verbs: [create, update, patch, delete]}
";
    let mut inputs = ack_with_binding_to_edit();
    inputs.push(src("admin/existing.yaml", existing));
    let out = render(&inputs, &[src("admin/ext.yaml", &config("ext", GATED))]);
    assert_refused_for_subscriptions_through_edit(&out);
}

// ---------------------------------------------------------------------------
// (d) diff.

#[test]
fn diff_does_not_say_no_change_when_new_binds_a_role_only_old_defines() {
    // OLD defines op-role; NEW binds it and no longer ships it. Applied
    // without pruning (kubectl apply, Argo CD's default), the role stays and
    // the account gains everything.
    let old = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: op-role}
rules: [{apiGroups: ['*'], resources: ['*'], verbs: ['*']}]
";
    let new = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: rb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: op-role}
subjects: [{kind: ServiceAccount, name: op, namespace: ops}]
";
    let out = diff_of(old, new, Format::Table);
    assert!(
        out.code != 0 || out.stderr.contains("op-role"),
        "diff exits {} and says only {:?}{:?}: a gain (or at least the dangling binding) goes unreported",
        out.code.code(),
        out.stdout,
        out.stderr
    );
}

const HIDING_SUBJECT: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: op}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: ServiceAccount, name: op, namespace: ops}
- {kind: User, name: \"a\\n<!--\", apiGroup: rbac.authorization.k8s.io}
";

const NOTHING: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: a}\n";

#[test]
fn diff_markdown_keeps_a_subject_name_inside_its_heading() {
    // A line break in a User's name ends the heading; the next line `<!--`
    // opens an HTML comment that hides every table after it in a PR comment.
    let out = diff_of(NOTHING, HIDING_SUBJECT, Format::Markdown);
    let raw: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("<!--") || l.contains("<!--")).collect();
    assert!(raw.is_empty(), "a name writes raw HTML into the Markdown: {raw:?}\n{}", out.stdout);
}

#[test]
fn diff_text_writes_no_control_characters_from_names() {
    let new = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: rb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: User, name: \"m\\e[1A\\r\\e[2Kx\", apiGroup: rbac.authorization.k8s.io}]
";
    let out = diff_of(NOTHING, new, Format::Table);
    assert!(!out.stdout.contains('\u{1b}') && !out.stdout.contains('\r'), "{:?}", out.stdout);
}

#[test]
fn report_markdown_keeps_a_subject_name_inside_its_cell_so_the_graph_shows() {
    // The same name in report -o markdown's table hides the Mermaid graph after it.
    let guestbook: Vec<Source> = bundle_docs_of_example();
    let rendered = render(&guestbook, &[src("admin/rbac.yaml", &config("guestbook", "  mode: Aggregate\n"))]);
    assert_eq!(rendered.code, 0, "{}", rendered.stderr);
    let out = report(&[src("rendered.yaml", &rendered.stdout), src("extra.yaml", HIDING_SUBJECT)], Format::Markdown);
    let raw: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("<!--")).collect();
    assert!(raw.is_empty(), "a name starts an HTML comment that hides the rest: {raw:?}");
}

fn bundle_docs_of_example() -> Vec<Source> {
    let dir = repo("examples/guestbook/manifests");
    let mut out: Vec<Source> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            src(
                &format!("bundle/manifests/{}", p.file_name().unwrap().to_string_lossy()),
                &std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[test]
fn diff_shows_no_resources_for_a_non_resource_url_gain() {
    let new = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: rb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: User, name: mallory, apiGroup: rbac.authorization.k8s.io}]
";
    for format in [Format::Table, Format::Markdown] {
        let out = diff_of(NOTHING, new, format);
        assert!(!out.stdout.contains("{}.{}"), "a URL rule is shown with resources {{}}.{{}}:\n{}", out.stdout);
    }
}

#[test]
fn diff_finishes_in_two_seconds_on_a_render_with_many_namespaces() {
    // 185 kB: one ClusterRole of 1,500 rules bound cluster-wide and in 300
    // namespaces to one user. Each namespace compares all 1,500 cluster-wide
    // rules again: 7 s in a release build (52 s at 2,500 namespaces, 730 kB).
    let rules: String = (0..1500)
        .map(|i| format!("- {{apiGroups: [g{i}.example.com], resources: [r{i}], verbs: [get, list]}}\n"))
        .collect();
    let mut text = format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: big}}\nrules:\n{rules}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {{name: crb}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: big}}\nsubjects: [{{kind: User, name: u, apiGroup: rbac.authorization.k8s.io}}]\n"
    );
    for n in 0..300 {
        text.push_str(&format!("---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: rb, namespace: n{n}}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: big}}\nsubjects: [{{kind: User, name: u, apiGroup: rbac.authorization.k8s.io}}]\n"));
    }
    assert!(text.len() < 200_000);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.yaml");
    std::fs::write(&file, &text).unwrap();
    let path = file.to_str().unwrap();
    let mut child = std::process::Command::new(BIN)
        .args(["diff", "-q", path, path])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // A debug build is slower than the release build the limit is for: allow it 10 s.
    let start = Instant::now();
    let limit = Duration::from_secs(10);
    while start.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("diff of a 185 kB render with itself ran for more than {limit:?}");
}

// ---------------------------------------------------------------------------
// (d) The report's graphs.

fn guestbook_aggregated() -> String {
    let out = render(&bundle_docs_of_example(), &[src("admin/rbac.yaml", &config("guestbook", "  mode: Aggregate\n"))]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
}

fn crb(name: &str, role: &str, user: &str) -> String {
    format!("---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {{name: {name}}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: {role}}}\nsubjects: [{{kind: User, name: {user}, apiGroup: rbac.authorization.k8s.io}}]\n")
}

/// The node ids the DOT edges from the node labelled `label` go to.
fn dot_targets(dot: &str, label: &str) -> Vec<String> {
    let id = dot
        .lines()
        .find(|l| l.contains(&format!("[label=\"{label}\"")))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no node {label}:\n{dot}"))
        .to_string();
    dot.lines()
        .filter_map(|l| l.trim().strip_prefix(&format!("{id} -> ")))
        .map(|rest| rest.trim_end_matches(';').split_whitespace().next().unwrap().to_string())
        .collect()
}

#[test]
fn two_groups_of_bindings_whose_names_share_the_same_summary_are_two_nodes() {
    // mallory: admin on both APIs through x-1-y and x-2-y; bob: view on both
    // through x-3-y and x-4-y. Both groups are drawn "2 ClusterRoleBindings
    // x-…-y", and since a node is found by its label they become one node:
    // the picture says bob reaches the admin edges, and counts 2 bindings for 4.
    let extra = [
        crb("x-1-y", "guestbooks.webapp.example.com-admin", "mallory"),
        crb("x-2-y", "guestbookthemes.webapp.example.com-admin", "mallory"),
        crb("x-3-y", "guestbooks.webapp.example.com-view", "bob"),
        crb("x-4-y", "guestbookthemes.webapp.example.com-view", "bob"),
    ]
    .concat();
    let out = report(&[src("rendered.yaml", &guestbook_aggregated()), src("extra.yaml", &extra)], Format::Dot);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (mallory, bob) = (dot_targets(&out.stdout, "User mallory"), dot_targets(&out.stdout, "User bob"));
    assert!(
        mallory.iter().all(|n| !bob.contains(n)),
        "mallory {mallory:?} and bob {bob:?} share a binding node:\n{}",
        out.stdout
    );
}

#[test]
fn the_graph_shows_every_binding_through_which_a_holder_reaches_an_api() {
    // mallory holds admin on guestbooks through two ClusterRoleBindings; the
    // picture draws only the first, so deleting it looks like it ends her access.
    let extra = [
        crb("x-1-y", "guestbooks.webapp.example.com-admin", "mallory"),
        crb("x-2-y", "guestbooks.webapp.example.com-admin", "mallory"),
    ]
    .concat();
    let out = report(&[src("rendered.yaml", &guestbook_aggregated()), src("extra.yaml", &extra)], Format::Dot);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("x-2-y") || out.stdout.contains("2 ClusterRoleBindings"),
        "the second binding is not drawn:\n{}",
        out.stdout
    );
}

// ---------------------------------------------------------------------------
// Item 4: kind_in_words.

#[test]
fn a_lookalike_clusterrole_of_the_core_api_version_is_not_named_bare() {
    // `apiVersion: v1, kind: ClusterRole` is no Kubernetes kind, yet it is named
    // "ClusterRole cluster-admin", as the real one would be.
    let fake = "apiVersion: v1\nkind: ClusterRole\nmetadata: {name: cluster-admin}\nrules: [{apiGroups: ['*'], resources: ['*'], verbs: ['*']}]\n";
    let mut inputs = bundle_docs_of_example();
    inputs.push(src("bundle/manifests/fake.yaml", fake));
    let spec = "  mode: Aggregate\n  operator: {installNamespace: ops}\n  installer: {for: OLMv1, serviceAccount: {name: inst, namespace: ops}}\n";
    let out = render(&inputs, &[src("admin/rbac.yaml", &config("guestbook", spec))]);
    let bare: Vec<&str> = out.stderr.lines().filter(|l| l.contains(": ClusterRole cluster-admin:")).collect();
    assert!(bare.is_empty(), "a v1 ClusterRole reads as the real one: {bare:?}");
}
