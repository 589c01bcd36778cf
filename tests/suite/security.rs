//! The bundle is untrusted: each class of attack from `docs/security.md`,
//! tried the way a bundle author would, through both runners (KRM and render)
//! and in every mode it applies to. Effects are asserted through the offline
//! evaluator: what the output lets someone do, not what it looks like.

use std::collections::BTreeSet;

use crate::common::*;
use crate::invariant::{self, policy};
use olm_rbac::access::{Identity, Request};
use olm_rbac::run::{function, render, Outcome, Source};
use olm_rbac::yaml::split_documents;

// ---------------------------------------------------------------------------
// Running a bundle both ways.

/// One document of the input and the file it comes from.
struct Doc {
    path: String,
    text: String,
}

fn doc(path: &str, text: &str) -> Doc {
    Doc { path: path.into(), text: text.into() }
}

const MODES: [&str; 3] = ["  mode: Aggregate\n", BIND_ALL, "  mode: Unmanaged\n"];

/// Bind with every kind of placement: cluster-wide, listed and selected.
const BIND_ALL: &str = "  mode: Bind\n  bindings:\n  - role: admin\n    subjects: [{kind: Group, name: ops}]\n  - role: edit\n    subjects: [{kind: Group, name: devs}]\n    namespaces: [team-a]\n  - role: view\n    subjects: [{kind: Group, name: readers}]\n    namespaceSelector: {matchLabels: {tenant: a}}\n";

/// What one run gave: its exit code, the objects it wrote, and its messages.
struct Run {
    runner: &'static str,
    code: i32,
    /// The output as manifests (a ResourceList in KRM mode).
    output: String,
    messages: String,
}

/// Runs the docs through KRM mode (with kpt's path annotations) and render
/// mode (with the files named), with the config `spec`.
fn run_both(docs: &[Doc], spec: &str) -> [Run; 2] {
    let config = config("ext", spec);
    let items: Vec<String> = docs.iter().map(|d| with_path(&d.text, &d.path)).collect();
    let krm = function(&resource_list(&items, &as_kpt_sends(&config)));
    let sources: Vec<Source> = docs.iter().map(|d| Source { name: d.path.clone(), text: d.text.clone() }).collect();
    let rendered = render(&sources, &[Source { name: "admin/rbac.yaml".into(), text: config }]);
    [as_run("krm", krm), as_run("render", rendered)]
}

fn as_run(runner: &'static str, o: Outcome) -> Run {
    Run { runner, code: o.code.code(), output: o.stdout.clone(), messages: format!("{}\n{}", o.stderr, o.stdout) }
}

/// Someone bound to the built-in `role` in namespace `team-a`, as a cluster
/// would hold it (the rendered output has no such binding).
fn holder_of(role: &str) -> (Identity, String) {
    let binding = format!(
        "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: {role}-holder, namespace: team-a}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: {role}}}\nsubjects: [{{apiGroup: rbac.authorization.k8s.io, kind: User, name: {role}-holder}}]\n"
    );
    (Identity::new(&format!("{role}-holder"), &[]), binding)
}

/// The output grants nothing the input did not, beyond the given custom APIs
/// (`(group, plural)`, with their subresources) and reading their CRD objects.
#[track_caller]
fn assert_grants_only_own_apis(input: &str, run: &Run, own: &[(&str, &str)]) {
    let own: Vec<(String, String)> = own.iter().map(|(g, p)| (g.to_string(), p.to_string())).collect();
    let beyond = invariant::beyond_own(input, &run.output, &own);
    assert!(beyond.is_empty(), "{}: the output grants beyond the bundle's own APIs: {beyond:?}", run.runner);
}

#[track_caller]
fn assert_refused(run: &Run, needle: &str) {
    assert_eq!(run.code, 1, "{}: expected a refusal mentioning {needle:?}:\n{}", run.runner, run.messages);
    assert!(run.messages.contains(needle), "{}: no {needle:?} in:\n{}", run.runner, run.messages);
    if run.runner == "render" {
        assert!(run.output.is_empty(), "render: an error leaves no partial output");
    }
}

fn crd(group: &str, plural: &str) -> String {
    crd_named(&format!("{plural}.{group}"), group, plural)
}

fn crd_named(name: &str, group: &str, plural: &str) -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {name:?}\nspec:\n  group: {group:?}\n  names: {{plural: {plural:?}, kind: Thing}}\n  scope: Namespaced\n  versions: [{{name: v1, served: true, storage: true}}]\n"
    )
}

/// A CSV owning the given CRD names (and APIServices as `(plural, group)`).
fn csv(owned: &[&str], apiservices: &[(&str, &str)], version: &str) -> String {
    let crds: Vec<String> =
        owned.iter().map(|name| format!("{{name: {name:?}, version: {version:?}, kind: Thing}}")).collect();
    let services: Vec<String> = apiservices
        .iter()
        .map(|(plural, group)| format!("{{name: {plural}, group: {group:?}, version: {version:?}, kind: Thing}}"))
        .collect();
    format!(
        "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: op.v1.0.0\nspec:\n  customresourcedefinitions:\n    owned: [{}]\n  apiservicedefinitions:\n    owned: [{}]\n",
        crds.join(", "),
        services.join(", ")
    )
}

fn role(name: &str, labels: &str, rules: &str) -> String {
    format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {name:?}\n  labels:\n    app: thing\n{labels}rules:\n{rules}"
    )
}

const FOO_VIEW: &str = "- {apiGroups: [example.com], resources: [foos], verbs: [get, list, watch]}\n";
const SECRETS: &str = "- {apiGroups: [\"\"], resources: [secrets], verbs: [get, list, watch]}\n";
const NAMESPACE_TEAM_A: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n  labels: {tenant: a}\n";

/// The bundle every case starts from: one CRD and a CSV owning it, in
/// `bundle/manifests/`, and the admin's Namespace in `admin/`.
fn bundle(extra: &[String]) -> Vec<Doc> {
    let mut docs = vec![
        doc("bundle/manifests/foos.yaml", &crd("example.com", "foos")),
        doc("bundle/manifests/op.clusterserviceversion.yaml", &csv(&["foos.example.com"], &[], "v1")),
        doc("admin/namespaces.yaml", NAMESPACE_TEAM_A),
    ];
    docs.extend(extra.iter().enumerate().map(|(i, t)| doc(&format!("bundle/manifests/extra{i}.yaml"), t)));
    docs
}

fn joined(docs: &[Doc]) -> String {
    docs.iter().map(|d| d.text.as_str()).collect::<Vec<_>>().join("---\n")
}

// ---------------------------------------------------------------------------
// 1. APIs that are not the bundle's own.

#[test]
fn crds_in_platform_groups_are_refused_in_every_mode() {
    let groups = [
        ("", "secrets"),
        ("apps", "deployments"),
        ("rbac.authorization.k8s.io", "clusterroles"),
        ("apiextensions.k8s.io", "customresourcedefinitions"),
        ("authorization.k8s.io", "subjectaccessreviews"),
        ("certificates.k8s.io", "certificatesigningrequests"),
        ("extensions", "ingresses"),
        ("metrics.k8s.io", "pods"),
        ("route.openshift.io", "routes"),
        ("security.openshift.io", "securitycontextconstraints"),
        ("config.openshift.io", "clusterversions"),
        ("operator.openshift.io", "olms"),
        ("console.openshift.io", "consolelinks"),
        ("console.openshift.io", "consoleplugins"),
        ("operators.coreos.com", "subscriptions"),
        ("olm.operatorframework.io", "clusterextensions"),
    ];
    for (group, plural) in groups {
        let name = format!("{plural}.{group}");
        let docs = vec![
            doc("bundle/manifests/a.yaml", &crd(group, plural)),
            doc("bundle/manifests/op.clusterserviceversion.yaml", &csv(&[&name], &[], "v1")),
        ];
        for spec in MODES {
            for run in run_both(&docs, spec) {
                let expected = if group.is_empty() { "spec.group" } else { "olm-rbac refuses to grant access to it" };
                assert_refused(&run, expected);
            }
        }
    }
}

#[test]
fn owned_apiservices_in_platform_groups_are_refused() {
    // A group the platform shares with operators is still the platform's to route: an APIService takes all of it.
    for group in [
        "apps",
        "metrics.k8s.io",
        "user.openshift.io",
        "packages.operators.coreos.com",
        "operator.openshift.io",
        "console.openshift.io",
    ] {
        let docs = vec![doc("bundle/manifests/op.clusterserviceversion.yaml", &csv(&[], &[("things", group)], "v1"))];
        for run in run_both(&docs, "  mode: Aggregate\n") {
            assert_refused(&run, "spec.apiservicedefinitions.owned[0].group");
        }
    }
}

#[test]
fn look_alike_groups_that_operators_really_own_keep_working() {
    for (group, plural) in [
        ("hive.openshift.io", "clusterdeployments"),
        ("oadp.openshift.io", "dataprotectionapplications"),
        ("operator.openshift.io", "certmanagers"),
        // opendatahub-operator 1.4.1 to 1.11.0 ship it: a resource of its own in a group the console shares.
        ("console.openshift.io", "odhquickstarts"),
        ("app.k8s.io", "applications"),
        ("externaldns.k8s.io", "dnsendpoints"),
        ("cluster.x-k8s.io", "clusters"),
        ("external.metrics.k8s.io", "scaledobjects"),
    ] {
        let name = format!("{plural}.{group}");
        let docs = vec![
            doc("bundle/manifests/a.yaml", &crd(group, plural)),
            doc("bundle/manifests/op.clusterserviceversion.yaml", &csv(&[&name], &[], "v1")),
        ];
        let input = joined(&docs);
        for run in run_both(&docs, "  mode: Aggregate\n") {
            assert_eq!(run.code, 0, "{group}: {}", run.messages);
            assert_grants_only_own_apis(&input, &run, &[(group, plural)]);
            let p = policy(&format!("{}{}", run.output, holder_of("view").1));
            assert!(
                p.can(&holder_of("view").0, &Request::on("list", group, plural, Some("team-a"))).is_some(),
                "{group}"
            );
        }
    }
}

#[test]
fn olm_groups_need_the_explicit_opt_in() {
    let docs = vec![
        doc("bundle/manifests/a.yaml", &crd("operators.coreos.com", "subscriptions")),
        doc("bundle/manifests/op.clusterserviceversion.yaml", &csv(&["subscriptions.operators.coreos.com"], &[], "v1")),
    ];
    for run in run_both(&docs, "  mode: Aggregate\n") {
        assert_refused(&run, "list \"operators.coreos.com\" in spec.allowOLMGroups");
    }
    let allowed = "  mode: Aggregate\n  allowOLMGroups: [operators.coreos.com]\n";
    for run in run_both(&docs, allowed) {
        assert_eq!(run.code, 0, "{}", run.messages);
        assert_grants_only_own_apis(&joined(&docs), &run, &[("operators.coreos.com", "subscriptions")]);
    }
    // The opt-in names OLM's groups only: a Kubernetes group cannot be let in.
    for run in run_both(&docs, "  mode: Aggregate\n  allowOLMGroups: [apps]\n") {
        assert_refused(&run, "spec.allowOLMGroups[0]");
    }
}

#[test]
fn a_csv_entry_without_its_crd_grants_nothing() {
    // The CSV claims another operator's API (or a platform one's plural in a custom group).
    let docs = bundle(&[csv(&["foos.example.com", "widgets.other-operator.io"], &[], "v1")]);
    let docs: Vec<Doc> = docs.into_iter().filter(|d| !d.path.ends_with("op.clusterserviceversion.yaml")).collect();
    for spec in MODES {
        for run in run_both(&docs, spec) {
            if spec.contains("Unmanaged") {
                // Nothing is granted in Unmanaged mode, so there is nothing to refuse.
                assert_eq!(run.code, 0, "{}", run.messages);
                continue;
            }
            assert_refused(&run, "owned CRD \"widgets.other-operator.io\" is not in the input");
            assert!(run.messages.contains("spec.customresourcedefinitions.owned[1].name"), "{}", run.messages);
        }
    }
    // Left out by the admin, it is no longer a question.
    for run in run_both(&docs, "  mode: Aggregate\n  apis:\n    exclude: [widgets.other-operator.io]\n") {
        assert_eq!(run.code, 0, "{}", run.messages);
        assert_grants_only_own_apis(&joined(&docs), &run, &[("example.com", "foos")]);
    }
}

#[test]
fn a_crd_whose_name_disagrees_with_its_spec_is_refused() {
    for name in ["secrets.example.com", "foos.example.org", "foos.example.com.", "Foos.example.com"] {
        let docs = vec![doc("bundle/manifests/a.yaml", &crd_named(name, "example.com", "foos"))];
        for run in run_both(&docs, "  mode: Aggregate\n") {
            assert_refused(&run, "metadata.name");
        }
    }
}

/// The API server refuses a CRD whose group has no dot (`v1`, `apps`): such a
/// group is a version or one of Kubernetes' own, and olm-rbac grants nothing on it.
#[test]
fn a_crd_in_a_group_without_a_dot_is_refused() {
    for group in ["v1", "apps", "core"] {
        let docs = vec![doc("bundle/manifests/a.yaml", &crd_named(&format!("foos.{group}"), group, "foos"))];
        for run in run_both(&docs, "  mode: Aggregate\n") {
            assert_refused(&run, "spec.group");
            assert!(
                run.messages.contains("a DNS subdomain with a dot") || run.messages.contains("reserved"),
                "{}",
                run.messages
            );
        }
    }
}

// ---------------------------------------------------------------------------
// 2. Bundle roles that are not what they look like.

/// The bundle role `name` must not be adopted: in Aggregate mode it gets no
/// aggregation label and olm-rbac writes its own view role; in Bind mode no
/// binding refers to it.
#[track_caller]
fn assert_not_adopted(bundle_role: &str, name: &str) {
    let docs = bundle(&[bundle_role.to_string()]);
    let input = joined(&docs);
    for spec in MODES {
        for run in run_both(&docs, spec) {
            assert_eq!(run.code, 0, "{}: {}", run.runner, run.messages);
            assert!(!run.messages.contains(&format!("ClusterRole {name}: provides")), "{}", run.messages);
            assert_grants_only_own_apis(&input, &run, &[("example.com", "foos")]);
            let p = policy(&run.output);
            // The output's own object: the checks' policy models the cluster's
            // admin, edit, view and cluster-admin, whatever the input says.
            let docs = olm_rbac::yaml::split_documents(&run.output).unwrap();
            let own = docs
                .iter()
                .map(|d| &d.header)
                .find(|h| h.kind.as_deref() == Some("ClusterRole") && h.name.as_deref() == Some(name));
            if let Some(h) = own {
                assert!(!h.labels.keys().any(|k| k.contains("aggregate-to")), "{}: {name} was labelled", run.runner);
            }
            assert!(
                p.bindings.iter().filter(|b| !b.builtin).all(|b| b.role_name != name),
                "{}: a binding refers to the bundle's {name}",
                run.runner
            );
            if spec.contains("Aggregate") {
                assert!(p.cluster_roles.contains_key("foos.example.com-view"), "olm-rbac writes its own view role");
            }
        }
    }
}

#[test]
fn roles_with_reserved_names_are_never_adopted() {
    for name in ["view", "edit", "admin", "cluster-admin", "system:aggregate-to-view", "system:foo-viewer"] {
        assert_not_adopted(&role(name, "", FOO_VIEW), name);
    }
}

#[test]
fn a_role_with_an_aggregation_rule_is_never_adopted() {
    // Its rules look like a view role; on a cluster they are whatever it selects
    // (here: every bootstrap role, cluster-admin included).
    let aggregating = format!(
        "{}aggregationRule:\n  clusterRoleSelectors:\n  - matchLabels: {{kubernetes.io/bootstrapping: rbac-defaults}}\n",
        role("foo-viewer", "", FOO_VIEW)
    );
    assert_not_adopted(&aggregating, "foo-viewer");
    let empty_selector =
        format!("{}aggregationRule: {{clusterRoleSelectors: [{{}}]}}\n", role("foo-viewer", "", FOO_VIEW));
    assert_not_adopted(&empty_selector, "foo-viewer");
}

#[test]
fn a_role_granting_anything_beyond_its_level_is_never_adopted() {
    let cases = [
        format!("{FOO_VIEW}{SECRETS}"),
        format!("{FOO_VIEW}- {{nonResourceURLs: [\"/metrics\"], verbs: [get]}}\n"),
        "- {apiGroups: [example.com], resources: [foos], verbs: [get, list, watch], nonResourceURLs: [\"*\"]}\n".into(),
        "- {apiGroups: [example.com, \"\"], resources: [foos], verbs: [get, list, watch]}\n".into(),
        "- {apiGroups: [\"*\"], resources: [foos], verbs: [get, list, watch]}\n".into(),
        "- {apiGroups: [example.com], resources: [\"*\"], verbs: [get, list, watch]}\n".into(),
        "- {apiGroups: [example.com], resources: [foos, foos/exec], verbs: [get, list, watch]}\n".into(),
        "- {apiGroups: [example.com], resources: [foos], verbs: [get, list, watch, escalate]}\n".into(),
        "- {apiGroups: [example.com], resources: [foos], verbs: [get, list, watch]}\n- {apiGroups: [example.com], resources: [foos/finalizers], verbs: [get]}\n".into(),
    ];
    for rules in cases {
        assert_not_adopted(&role("foo-viewer", "", &rules), "foo-viewer");
    }
}

#[test]
fn a_kubebuilder_viewer_role_is_still_adopted() {
    let viewer = role(
        "foo-viewer-role",
        "",
        "- {apiGroups: [example.com], resources: [foos], verbs: [get, list, watch]}\n- {apiGroups: [example.com], resources: [foos/status], verbs: [get]}\n",
    );
    let docs = bundle(&[viewer]);
    for run in run_both(&docs, "  mode: Aggregate\n") {
        assert_eq!(run.code, 0, "{}", run.messages);
        assert!(run.messages.contains("ClusterRole foo-viewer-role: provides the view role"), "{}", run.messages);
    }
}

// ---------------------------------------------------------------------------
// 3. olm-rbac's own labels and annotations in the input are claims.

const RECORD: &str = "olm-rbac.io/label-changes";

fn with_annotation(text: &str, key: &str, value: &str) -> String {
    text.replacen("metadata:\n", &format!("metadata:\n  annotations:\n    {key}: {value:?}\n"), 1)
}

#[test]
fn a_forged_record_never_adds_a_label_that_raises_access() {
    // The record claims olm-rbac stripped aggregate-to-admin from a role that
    // reads secrets: "undoing" that would hand every namespace admin the secrets.
    for record in [
        "ext: -rbac.authorization.k8s.io/aggregate-to-admin=true",
        "ext: -rbac.authorization.k8s.io/aggregate-to-view=true -rbac.authorization.k8s.io/aggregate-to-edit=true",
        "ext: -rbac.authorization.k8s.io/aggregate-to-view=true +rbac.authorization.k8s.io/aggregate-to-view",
        "ext: -app.kubernetes.io/name=x -rbac.authorization.k8s.io/aggregate-to-cluster-reader=true",
    ] {
        let forged = with_annotation(&role("reader", "", SECRETS), RECORD, record);
        let docs = bundle(&[forged]);
        let input = joined(&docs);
        for spec in MODES.iter().map(|m| m.to_string()).chain([format!("{BIND_ALL}  stripBundleAggregation: true\n")]) {
            for run in run_both(&docs, &spec) {
                assert_eq!(run.code, 0, "{}", run.messages);
                assert_grants_only_own_apis(&input, &run, &[("example.com", "foos")]);
                assert!(run.messages.contains("it is not put back"), "{record}: {}", run.messages);
                // The built-in edit role reads secrets on its own: what matters
                // is that no built-in role aggregates the bundle's reader.
                let p = policy(&run.output);
                for role in ["admin", "edit", "view"] {
                    let through_reader = p
                        .effective_rules(&p.cluster_roles[role])
                        .into_iter()
                        .any(|(chain, _)| chain.iter().any(|r| r == "reader"));
                    assert!(!through_reader, "{record}: {role} aggregates the bundle's reader");
                }
            }
        }
    }
}

#[test]
fn record_entries_olm_rbac_never_writes_are_ignored_and_reported() {
    let forged = with_annotation(&role("foo-viewer", "", FOO_VIEW), RECORD, "ext: +team/owner -app=thing");
    let docs = bundle(&[forged]);
    for run in run_both(&docs, "  mode: Unmanaged\n") {
        assert_eq!(run.code, 0, "{}", run.messages);
        assert!(
            run.messages.contains("holds entries olm-rbac never writes (+team/owner -app=thing)"),
            "{}",
            run.messages
        );
        let p = policy(&run.output);
        assert_eq!(p.cluster_roles["foo-viewer"].labels.get("app").map(String::as_str), Some("thing"));
    }
}

#[test]
fn a_genuine_record_is_still_undone() {
    // What olm-rbac itself wrote when stripping a role within the bundle's own APIs comes back.
    let stripped = with_annotation(
        &role("foo-viewer", "", FOO_VIEW),
        RECORD,
        "ext: -rbac.authorization.k8s.io/aggregate-to-view=true",
    );
    let docs = bundle(&[stripped]);
    for run in run_both(&docs, BIND_ALL) {
        assert_eq!(run.code, 0, "{}", run.messages);
        assert!(run.messages.contains("put back rbac.authorization.k8s.io/aggregate-to-view=true"), "{}", run.messages);
    }
}

#[test]
fn stripping_leaves_no_bundle_aggregation_label_anywhere() {
    let labels = "    rbac.authorization.k8s.io/aggregate-to-admin: \"true\"\n    rbac.authorization.k8s.io/aggregate-to-view: \"true\"\n";
    let extra = vec![
        role("reader", labels, SECRETS),
        role("foo-viewer", labels, FOO_VIEW),
        // A role of another extension, as far as its record says.
        with_annotation(&role("other", labels, SECRETS), RECORD, "someone-else: +rbac.authorization.k8s.io/aggregate-to-view"),
        // A role claiming to be olm-rbac's own output, but not in its shape.
        role("secrets.example.com-view", &format!("{labels}    app.kubernetes.io/managed-by: olm-rbac\n    olm-rbac.io/extension: ext\n    olm-rbac.io/role: view\n"), SECRETS),
        // Any other kind: labels on it grant nothing, but none may stay.
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n{labels}data: {{}}\n"),
    ];
    let docs = bundle(&extra);
    for mode in MODES {
        let spec = format!("{mode}  stripBundleAggregation: true\n");
        for run in run_both(&docs, &spec) {
            // The other extension's record is a clash the admin must settle.
            assert_refused(&run, "says another extension manages them");
        }
        let docs: Vec<Doc> = bundle(&[extra[0].clone(), extra[1].clone(), extra[3].clone(), extra[4].clone()]);
        for run in run_both(&docs, &spec) {
            assert_eq!(run.code, 0, "{}", run.messages);
            for d in split_documents(&run.output).unwrap() {
                let olm_rbac_wrote = run.output.contains("kind: ResourceList")
                    || d.header.labels.get("app.kubernetes.io/managed-by").map(String::as_str) == Some("olm-rbac");
                let generated = olm_rbac_wrote && d.header.annotations.contains_key("olm-rbac.io/api");
                if !generated {
                    let kept: Vec<&String> = d.header.labels.keys().filter(|k| k.contains("aggregate-to")).collect();
                    assert!(kept.is_empty(), "{}: {:?} keeps {kept:?}", run.runner, d.header.name);
                }
            }
            assert_grants_only_own_apis(&joined(&docs), &run, &[("example.com", "foos")]);
            let (viewer, binding) = holder_of("view");
            let p = policy(&format!("{}{binding}", run.output));
            assert!(p.can(&viewer, &Request::on("get", "", "secrets", Some("team-a"))).is_none());
        }
    }
}

#[test]
fn forged_generated_by_labels_never_make_an_item_disappear() {
    let forged = "  labels:\n    app.kubernetes.io/managed-by: olm-rbac\n    olm-rbac.io/extension: ext\n    olm-rbac.io/role: admin\n  annotations:\n    olm-rbac.io/api: foos.example.com\n";
    let extra = vec![
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: operator\n{forged}data: {{}}\n"),
        format!("apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n{forged}data: {{}}\n"),
        // A ClusterRole whose rule is not the one olm-rbac writes for its API.
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: sneaky\n{forged}rules:\n{SECRETS}"),
        // A binding to a reserved role.
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: sneaky\n{forged}roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}}\nsubjects: [{{kind: Group, name: x, apiGroup: rbac.authorization.k8s.io}}]\n"),
    ];
    let docs = bundle(&extra);
    for spec in MODES {
        for run in run_both(&docs, spec) {
            assert_eq!(run.code, 0, "{}", run.messages);
            let out: BTreeSet<(Option<String>, Option<String>)> =
                split_documents(&run.output).unwrap().into_iter().map(|d| (d.header.kind, d.header.name)).collect();
            for (kind, name) in [
                ("ConfigMap", "operator"),
                ("Secret", "creds"),
                ("ClusterRole", "sneaky"),
                ("ClusterRoleBinding", "sneaky"),
            ] {
                if run.runner == "render" {
                    assert!(out.contains(&(Some(kind.into()), Some(name.into()))), "{kind} {name} disappeared");
                } else {
                    assert!(run.output.contains(&format!("name: {name}\n")), "{kind} {name} disappeared");
                }
                assert!(
                    run.messages
                        .contains(&format!("{kind} {name}: carries the label app.kubernetes.io/managed-by: olm-rbac")),
                    "{kind} {name}: {}",
                    run.messages
                );
            }
        }
    }
}

#[test]
fn genuine_earlier_output_is_replaced_and_what_goes_is_named() {
    let docs = bundle(&[]);
    let [krm, _] = run_both(&docs, "  mode: Aggregate\n");
    let generated: Vec<String> = split_documents(&krm.output)
        .unwrap()
        .into_iter()
        .filter(|d| d.header.kind.as_deref() == Some("ResourceList"))
        .map(|d| d.text.into_owned())
        .collect();
    assert_eq!(generated.len(), 1);
    // Feed the generated roles back in, as kpt does, and switch to Unmanaged.
    let rendered = render(
        &docs.iter().map(|d| Source { name: d.path.clone(), text: d.text.clone() }).collect::<Vec<_>>(),
        &[Source { name: "rbac.yaml".into(), text: config("ext", "  mode: Aggregate\n") }],
    );
    let again = render(
        &[Source { name: "out.yaml".into(), text: rendered.stdout }],
        &[Source { name: "rbac.yaml".into(), text: config("ext", "  mode: Unmanaged\n") }],
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    for name in
        ["foos.example.com-admin", "foos.example.com-edit", "foos.example.com-view", "foos.example.com-view-crdview"]
    {
        assert!(
            again.stderr.contains(&format!("info: ClusterRole {name}: removed: olm-rbac generated it")),
            "{}",
            again.stderr
        );
    }
}

// ---------------------------------------------------------------------------
// 4. YAML anchors, aliases, merge keys, tags.

#[test]
fn labels_and_kinds_written_through_aliases_merge_keys_and_tags_are_read_as_the_cluster_reads_them() {
    let cases = [
        // An alias of an anchored map.
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nx: &l {rbac.authorization.k8s.io/aggregate-to-view: \"true\"}\nmetadata:\n  name: reader\n  labels: *l\nrules:\n- {apiGroups: [\"\"], resources: [secrets], verbs: [get]}\n",
        // An anchor on the labels, used again elsewhere.
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  labels: &l {rbac.authorization.k8s.io/aggregate-to-view: \"true\"}\nx: *l\nrules:\n- {apiGroups: [\"\"], resources: [secrets], verbs: [get]}\n",
        // A tagged key.
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  labels:\n    !!str rbac.authorization.k8s.io/aggregate-to-view: \"true\"\nrules:\n- {apiGroups: [\"\"], resources: [secrets], verbs: [get]}\n",
        // Through merge keys, which the cluster applies: the kind, from an anchored mapping merged at the top level.
        "base: &b {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole}\n<<: *b\nmetadata:\n  name: reader\n  labels: {rbac.authorization.k8s.io/aggregate-to-view: \"true\"}\nrules:\n- {apiGroups: [\"\"], resources: [secrets], verbs: [get]}\n",
        // The labels, merged into metadata.
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  <<: {labels: {rbac.authorization.k8s.io/aggregate-to-view: \"true\"}}\n  name: reader\nrules:\n- {apiGroups: [\"\"], resources: [secrets], verbs: [get]}\n",
        // The labels map itself, merged from a list.
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  labels:\n    <<: [{rbac.authorization.k8s.io/aggregate-to-view: \"true\"}, {app: x}]\nrules:\n- {apiGroups: [\"\"], resources: [secrets], verbs: [get]}\n",
    ];
    for case in cases {
        let docs = bundle(&[case.to_string()]);
        for mode in MODES {
            let spec = format!("{mode}  stripBundleAggregation: true\n");
            for run in run_both(&docs, &spec) {
                assert_eq!(run.code, 0, "{case}\n{}", run.messages);
                assert!(
                    run.messages.contains("ClusterRole reader: removed its aggregation labels"),
                    "{case}\n{}",
                    run.messages
                );
                let (viewer, binding) = holder_of("view");
                let p = policy(&format!("{}{binding}", run.output));
                assert!(p.can(&viewer, &Request::on("get", "", "secrets", Some("team-a"))).is_none(), "{case}");
            }
        }
        // Without stripping, the label stays, but never unremarked.
        for run in run_both(&docs, "  mode: Unmanaged\n") {
            assert!(
                run.messages.contains("ClusterRole reader: this bundle role carries aggregation labels"),
                "{}",
                run.messages
            );
        }
    }
}

#[test]
fn merge_keys_are_refused_because_readers_apply_them_differently() {
    // Kubernetes' reader lets a later `<<` override the keys before it: this
    // rule reads as view on foos to a YAML 1.2 reader, and as `*` on `*` to kubectl.
    let cases = [
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: foo-viewer\nrules:\n- apiGroups: [example.com]\n  resources: [foos]\n  verbs: [get, list, watch]\n  <<: {apiGroups: [\"*\"], resources: [\"*\"], verbs: [\"*\"]}\n",
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  labels: {app: x}\n  <<: {labels: {rbac.authorization.k8s.io/aggregate-to-view: \"true\"}}\nrules: []\n",
    ];
    for case in cases {
        for spec in MODES {
            for run in run_both(&bundle(&[case.to_string()]), spec) {
                assert_refused(&run, "merge key (<<)");
            }
        }
    }
}

#[test]
fn a_rule_written_through_a_merge_key_is_the_merged_rule() {
    // To the cluster this rule is `*` on `*`: the merge brings the groups and resources.
    let wildcard = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: foo-viewer\n  labels: {rbac.authorization.k8s.io/aggregate-to-view: \"true\"}\nrules:\n- <<: {apiGroups: [\"*\"], resources: [\"*\"]}\n  verbs: [\"*\"]\n";
    let docs = bundle(&[wildcard.to_string()]);
    for run in run_both(&docs, "  mode: Aggregate\n") {
        assert_eq!(run.code, 0, "{}", run.messages);
        assert!(!run.messages.contains("provides the view role"), "never adopted: {}", run.messages);
        assert!(
            run.messages
                .contains("grants more than view on the bundle's own APIs (verbs=[*] apiGroups=[*] resources=[*])"),
            "{}",
            run.messages
        );
    }
    for run in run_both(&docs, "  mode: Aggregate\n  stripBundleAggregation: true\n") {
        assert_eq!(run.code, 0, "{}", run.messages);
        assert_grants_only_own_apis(&joined(&docs), &run, &[("example.com", "foos")]);
    }
}

#[test]
fn a_merge_key_that_overrides_or_repeats_is_refused() {
    let cases = [
        // Written before the `<<` that sets it again: kubectl reads ClusterRole, others ConfigMap.
        ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ConfigMap\n<<: {kind: ClusterRole}\nmetadata: {name: reader}\nrules: []\n", "is written before a merge key (<<) that sets it to another value"),
        // Two merges in one mapping: kubectl applies both, kustomize refuses.
        ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  <<: {labels: {app: x}}\n  <<: {labels: {rbac.authorization.k8s.io/aggregate-to-view: \"true\"}}\nrules: []\n", "a second merge key (<<)"),
        // A merge of something that is not a mapping.
        ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  <<: ~\nrules: []\n", "a merge key (<<) takes a mapping"),
    ];
    for (case, says) in cases {
        for spec in MODES {
            for run in run_both(&bundle(&[case.to_string()]), spec) {
                assert_refused(&run, says);
            }
        }
    }
}

#[test]
fn line_breaks_only_kubernetes_sees_are_refused() {
    // After U+2028, a comment goes on as a second rule for Kubernetes' reader.
    let hidden = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: foo-viewer\nrules:\n- apiGroups: [example.com]\n  resources: [foos]\n  verbs: [get, list, watch] # read-only\u{2028}- apiGroups: [\"*\"]\u{2028}  resources: [\"*\"]\u{2028}  verbs: [\"*\"]\n";
    for sep in ['\u{2028}', '\u{2029}', '\u{85}', '\r'] {
        let case = hidden.replace('\u{2028}', &sep.to_string());
        for run in run_both(&bundle(&[case]), "  mode: Aggregate\n") {
            assert_refused(&run, "which Kubernetes' YAML reader takes for a line break");
        }
    }
}

#[test]
fn two_items_with_one_identity_are_refused() {
    // The cluster keeps the last; olm-rbac must not judge the first.
    let harmless = role("foo-viewer", "", FOO_VIEW);
    let harmful = role("foo-viewer", "", "- {apiGroups: [\"*\"], resources: [\"*\"], verbs: [\"*\"]}\n");
    // A namespace on a cluster-scoped object changes nothing: the API server drops it.
    let namespaced = harmful.replacen("metadata:\n", "metadata:\n  namespace: elsewhere\n", 1);
    for second in [harmful, namespaced] {
        for spec in MODES {
            for run in run_both(&bundle(&[harmless.clone(), second.clone()]), spec) {
                assert_refused(&run, "the input holds this object twice");
            }
        }
    }
    // Any of the platform's cluster-scoped kinds, not only RBAC's: two IngressClasses
    // written in two namespaces are one object on the cluster.
    let class = |ns: &str| {
        format!("apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: web\n  namespace: {ns}\nspec:\n  controller: example.com/{ns}\n")
    };
    for run in run_both(&bundle(&[class("a"), class("b")]), "  mode: Aggregate\n") {
        assert_refused(&run, "the input holds this object twice");
    }
    // A generated name taken by a cluster-scoped object with a namespace is still a conflict.
    let taken = role("foos.example.com-view", "", FOO_VIEW).replacen("metadata:\n", "metadata:\n  namespace: x\n", 1);
    for run in run_both(&bundle(&[taken]), "  mode: Aggregate\n  bundleRoles: Ignore\n") {
        assert_refused(&run, "conflict: olm-rbac would generate ClusterRole foos.example.com-view");
    }
}

#[test]
fn apiservice_groups_need_the_admins_word() {
    // The CSV says the bundle serves another operator's API group.
    let docs = vec![doc(
        "bundle/manifests/op.clusterserviceversion.yaml",
        &csv(&[], &[("applications", "argoproj.io")], "v1alpha1"),
    )];
    for run in run_both(&docs, "  mode: Aggregate\n") {
        assert_refused(&run, "list \"argoproj.io\" in spec.apiServiceGroups");
    }
    for run in run_both(&docs, "  mode: Aggregate\n  apiServiceGroups: [argoproj.io]\n") {
        assert_eq!(run.code, 0, "{}", run.messages);
    }
}

#[test]
fn a_claim_to_be_another_extensions_output_for_this_bundles_api_is_not_believed() {
    let forged = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: foos.example.com-admin-other\n  labels:\n    app.kubernetes.io/managed-by: olm-rbac\n    olm-rbac.io/extension: some-other-extension\n    olm-rbac.io/role: admin\n    rbac.authorization.k8s.io/aggregate-to-admin: \"true\"\n  annotations:\n    olm-rbac.io/api: foos.example.com\nrules:\n- apiGroups: [example.com]\n  resources: [foos]\n  verbs: [\"*\"]\n";
    // Outside the bundle's folder, so only the API gives it away.
    let mut docs = bundle(&[]);
    docs.push(doc("rbac/other.yaml", forged));
    for run in run_both(&docs, &format!("{BIND_ALL}  stripBundleAggregation: true\n")) {
        assert_eq!(run.code, 0, "{}", run.messages);
        assert!(
            run.messages.contains("claims to be olm-rbac's output for extension \"some-other-extension\""),
            "{}",
            run.messages
        );
        let (admin, binding) = holder_of("admin");
        let p = policy(&format!("{}{binding}", run.output));
        assert!(
            p.can(&admin, &Request::on("delete", "example.com", "foos", Some("team-a"))).is_none(),
            "{}",
            run.runner
        );
    }
    // In the bundle's folder, no claim is believed at all.
    for run in run_both(&bundle(&[forged.to_string()]), &format!("{BIND_ALL}  stripBundleAggregation: true\n")) {
        assert!(run.messages.contains("it comes from a bundle's own folder"), "{}", run.messages);
    }
}

#[test]
fn a_rewrite_that_would_change_a_value_for_kubectl_is_refused_and_others_are_named() {
    // Stripping needs a rewrite (the labels are anchored); `0400` is octal to kubectl.
    let octal = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: &l {rbac.authorization.k8s.io/aggregate-to-view: \"true\"}\nmode: 0400\nx: *l\n";
    for run in run_both(&bundle(&[octal.to_string()]), &format!("{BIND_ALL}  stripBundleAggregation: true\n")) {
        assert_refused(&run, "which kubectl's YAML 1.1 reads differently");
    }
    let plain = octal.replace("mode: 0400", "mode: \"0400\"");
    for run in run_both(&bundle(&[plain]), &format!("{BIND_ALL}  stripBundleAggregation: true\n")) {
        assert_eq!(run.code, 0, "{}", run.messages);
        assert!(
            run.messages.contains("ConfigMap c: its labels changed") && run.messages.contains("re-serialised"),
            "{}",
            run.messages
        );
    }
}

#[test]
fn a_reserved_name_written_with_a_tag_is_still_reserved() {
    // `!!binary YWRtaW4=` is "admin" to Kubernetes.
    let disguised = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: !!binary YWRtaW4=\nrules:\n- {apiGroups: [example.com], resources: [foos], verbs: [get, list, watch]}\n";
    let docs = bundle(&[disguised.to_string()]);
    for run in run_both(&docs, "  mode: Aggregate\n") {
        assert_eq!(run.code, 0, "{}", run.messages);
        assert!(
            run.messages.contains("ClusterRole admin: metadata.name: the name \"admin\" is reserved"),
            "{}",
            run.messages
        );
        assert!(!run.messages.contains("provides the view role"), "{}", run.messages);
    }
}

#[test]
fn repeated_header_keys_and_aliases_to_other_items_are_refused() {
    let repeated = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  labels: {a: b}\n  labels: {rbac.authorization.k8s.io/aggregate-to-view: \"true\"}\nrules: []\n";
    for run in run_both(&bundle(&[repeated.to_string()]), "  mode: Aggregate\n") {
        assert_refused(&run, "cannot be read as a whole");
    }
    // In a ResourceList, an item may not lean on another item's anchor.
    let list = format!(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    labels: &l {{rbac.authorization.k8s.io/aggregate-to-view: \"true\"}}\n- apiVersion: rbac.authorization.k8s.io/v1\n  kind: ClusterRole\n  metadata:\n    name: reader\n    labels: *l\n  rules: []\nfunctionConfig:\n{}",
        config("ext", "  mode: Aggregate\n").lines().map(|l| format!("  {l}\n")).collect::<String>()
    );
    let out = function(&list);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("cannot be read as a whole"), "{}", out.stderr);
}

#[test]
fn an_edit_never_loses_a_value_written_through_an_alias() {
    // The labels map is anchored and reused as a selector: editing the labels
    // by lines would change the selector too.
    let reused = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: foo-viewer\n  labels: &l\n    app: thing\n    rbac.authorization.k8s.io/aggregate-to-view: \"true\"\nselector: *l\nrules:\n- {apiGroups: [example.com], resources: [foos], verbs: [get, list, watch]}\n";
    let docs = bundle(&[reused.to_string()]);
    for run in run_both(&docs, &format!("{BIND_ALL}  stripBundleAggregation: true\n")) {
        assert_eq!(run.code, 0, "{}", run.messages);
        let out = &run.output[run.output.find("name: foo-viewer").unwrap()..];
        let selector = &out[out.find("selector:").unwrap()..];
        assert!(selector.contains("rbac.authorization.k8s.io/aggregate-to-view: \"true\""), "{}: {out}", run.runner);
        assert!(selector.contains("app: thing"), "{out}");
    }
}

#[test]
fn alias_expansion_is_bounded_by_the_size_of_the_input() {
    // 50 small roles, each an alias tree that expands to about 600,000 events:
    // under the old per-item budget, 30 million events in all.
    let mut extra = Vec::new();
    for i in 0..50 {
        let mut tree = String::from("  a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for k in 1..6 {
            tree.push_str(&format!("  a{k}: &a{k} [{}]\n", vec![format!("*a{}", k - 1); 9].join(", ")));
        }
        extra.push(format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r{i}\nx:\n{tree}rules: []\n"));
    }
    let docs = bundle(&extra);
    assert!(joined(&docs).len() < 100_000);
    for run in run_both(&docs, "  mode: Aggregate\n") {
        assert_refused(&run, "alias replay limit exceeded");
    }
}

// ---------------------------------------------------------------------------
// 5. Namespaces.

#[test]
fn a_namespace_shipped_in_the_bundle_is_not_selected() {
    // The bundle ships kube-system with the admin's tenant label: a kind
    // registry+v1 bundles may not hold, so the bundle is refused, and the
    // selector still never picks it.
    let shipped = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kube-system\n  labels: {tenant: a}\n";
    let docs = bundle(&[shipped.to_string()]);
    for run in run_both(&docs, BIND_ALL) {
        assert_eq!(run.code, 1, "{}", run.messages);
        for said in [
            "matches this Namespace, but it is not known to be yours",
            "kind: the bundle holds a \"Namespace\", a kind registry+v1 bundles may not hold",
        ] {
            assert!(run.messages.contains(said), "{}: {}", run.runner, run.messages);
        }
        let p = policy(&run.output);
        let readers = Identity::new("r", &["readers".into()]);
        assert!(
            p.can(&readers, &Request::on("get", "example.com", "foos", Some("kube-system"))).is_none(),
            "{}",
            run.runner
        );
    }
}

#[test]
fn selected_namespaces_are_valid_names_and_platform_ones_are_flagged() {
    let mut docs = bundle(&[]);
    docs.push(doc(
        "admin/system.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kube-public\n  labels: {tenant: a}\n",
    ));
    for run in run_both(&docs, BIND_ALL) {
        assert_eq!(run.code, 0, "{}", run.messages);
        assert!(run.messages.contains("selects the platform namespace \"kube-public\""), "{}", run.messages);
    }
    for bad in ["Team-A", "team_a", "a.b", "-a"] {
        let mut docs = bundle(&[]);
        docs.push(doc(
            "admin/bad.yaml",
            &format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {bad:?}\n  labels: {{tenant: a}}\n"),
        ));
        for run in run_both(&docs, BIND_ALL) {
            assert_refused(&run, "is not a valid namespace name");
        }
    }
    for bad in ["\"\"", "Team-A", "kube_system"] {
        let spec = format!("  mode: Bind\n  bindings:\n  - role: view\n    subjects: [{{kind: Group, name: g}}]\n    namespaces: [{bad}]\n");
        for run in run_both(&bundle(&[]), &spec) {
            assert_refused(&run, "spec.bindings[0].namespaces[0]");
        }
    }
}

// ---------------------------------------------------------------------------
// 6. Configuration only from the admin.

#[test]
fn render_never_takes_a_config_from_the_inputs_when_one_is_given() {
    let shipped = config(
        "ext",
        "  mode: Bind\n  bindings:\n  - role: admin\n    subjects: [{kind: Group, name: system:authenticated}]\n",
    );
    let docs = bundle(std::slice::from_ref(&shipped));
    let sources: Vec<Source> = docs.iter().map(|d| Source { name: d.path.clone(), text: d.text.clone() }).collect();
    let out = render(&sources, &[Source { name: "rbac.yaml".into(), text: config("ext", "  mode: Aggregate\n") }]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr.contains("RBACConfig ext: RBACConfig ext is among the inputs, but --config gives the configuration")
            && out.stderr.contains("[bundle/manifests/extra0.yaml#0]"),
        "{}",
        out.stderr
    );
    // Without --config, one shipped beside the CSV is refused too.
    let out = render(&sources, &[]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("sits in the bundle's own folder"), "{}", out.stderr);
    // The admin's own, in the admin's folder, is used.
    let mut sources: Vec<Source> =
        bundle(&[]).iter().map(|d| Source { name: d.path.clone(), text: d.text.clone() }).collect();
    sources.push(Source { name: "admin/rbac.yaml".into(), text: config("ext", "  mode: Aggregate\n") });
    assert_eq!(render(&sources, &[]).code, 0);
}

#[test]
fn the_krm_function_takes_its_config_from_function_config_only() {
    let shipped =
        config("ext", "  mode: Bind\n  bindings:\n  - role: admin\n    subjects: [{kind: Group, name: everyone}]\n");
    let docs = bundle(&[shipped]);
    let items: Vec<String> = docs.iter().map(|d| d.text.clone()).collect();
    let out = function(&resource_list(&items, &config("ext", "  mode: Aggregate\n")));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let p = policy(&out.stdout);
    assert!(p.bindings.iter().all(|b| b.builtin), "the shipped RBACConfig bound nobody");
    assert!(out.stdout.contains("kind: RBACConfig"), "the item passes through untouched");
}

// ---------------------------------------------------------------------------
// 7. Files: see the unit tests of `input`; here, through the binary.

#[test]
fn render_refuses_a_directory_that_links_outside_itself() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("bundle");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(tmp.path().join("private.yaml"), "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n").unwrap();
    std::os::unix::fs::symlink(tmp.path().join("private.yaml"), dir.join("a.yaml")).unwrap();
    std::fs::write(tmp.path().join("rbac.yaml"), config("ext", "  mode: Aggregate\n")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_olm-rbac"))
        .args(["render", "--config"])
        .arg(tmp.path().join("rbac.yaml"))
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "unreadable input");
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("a.yaml: a symbolic link to"), "{out:?}");
}

// ---------------------------------------------------------------------------
// 8. Names from input.

#[test]
fn versions_that_would_become_part_of_names_are_checked() {
    for version in ["v1/../x", "V1", "1", "v1 beta", "v1.2"] {
        let docs = vec![
            doc("bundle/manifests/foos.yaml", &crd("example.com", "foos")),
            doc("bundle/manifests/op.clusterserviceversion.yaml", &csv(&["foos.example.com"], &[], version)),
        ];
        for run in run_both(&docs, "  mode: Aggregate\n  naming: OLMv0\n") {
            assert_refused(&run, "spec.customresourcedefinitions.owned[0].version");
        }
        // Default naming puts no version into names.
        for run in run_both(&docs, "  mode: Aggregate\n") {
            assert_eq!(run.code, 0, "{version}: {}", run.messages);
        }
    }
}

// ---------------------------------------------------------------------------
// Lists.

#[test]
fn objects_kubectl_would_unpack_as_lists_are_refused() {
    let hidden = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: rbac.authorization.k8s.io/v1\n  kind: ClusterRole\n  metadata:\n    name: reader\n    labels: {rbac.authorization.k8s.io/aggregate-to-view: \"true\"}\n  rules:\n  - {apiGroups: [\"\"], resources: [secrets], verbs: [get]}\n";
    let disguised = hidden.replace("kind: List", "kind: Thing");
    for list in [hidden.to_string(), disguised] {
        for spec in MODES {
            for run in run_both(&bundle(std::slice::from_ref(&list)), spec) {
                assert_refused(&run, "has a top-level items key");
            }
        }
    }
}

#[test]
fn earlier_output_in_a_bundle_folder_counts_only_as_exactly_what_this_run_writes() {
    // Under a policy, a bundle binding to anyone but the operator's accounts is
    // an error; a copy of the very cluster-scoped binding the admin's config
    // makes is not a bundle grant, since the cluster holds it either way. A
    // namespaced copy is: OLM puts it in the install namespace, not in team-a.
    let spec = "  mode: Bind\n  bindings:\n  - role: edit\n    subjects: [{kind: Group, name: devs}]\n    namespaces: [team-a]\n  operator:\n    installNamespace: ops\n    policy:\n      allow: []\n";
    let clean = run_both(&bundle(&[]), spec);
    assert!(clean.iter().all(|r| r.code == 0), "{}", clean[1].messages);
    let generated_doc = |kind: &str, name: &str| {
        clean[1]
            .output
            .split("---\n")
            .find(|d| d.contains(&format!("kind: {kind}\n")) && d.contains(&format!("name: {name}\n")))
            .unwrap_or_else(|| panic!("no {kind} {name} in\n{}", clean[1].output))
            .to_string()
    };
    let namespaced = generated_doc("RoleBinding", "ext-foos.example.com-edit");
    for run in run_both(&bundle(std::slice::from_ref(&namespaced)), spec) {
        assert_refused(&run, "so it cannot hold it to spec.operator.policy");
    }
    let generated = generated_doc("ClusterRoleBinding", "ext-foos.example.com-view-crdview");
    for (copy, run) in run_both(&bundle(std::slice::from_ref(&generated)), spec).into_iter().zip(&clean) {
        assert_eq!(copy.code, 0, "{}: {}", copy.runner, copy.messages);
        assert_eq!(copy.output, run.output, "{}: replacing the copy changes nothing", copy.runner);
    }
    // The same binding, granting everyone: an ordinary bundle binding, measured and refused.
    let everyone = generated.replace("name: devs", "name: system:authenticated");
    assert_ne!(everyone, generated);
    for run in run_both(&bundle(&[everyone]), spec) {
        assert_refused(&run, "so it cannot hold it to spec.operator.policy");
        assert!(
            run.messages.contains("it comes from a bundle's own folder, where olm-rbac never writes"),
            "{}",
            run.messages
        );
    }
}

/// A Namespace beside the bundle's manifests in its root (`bundle/extra/`),
/// whose origin cannot be told, is not the admin's: a selector that matches
/// it grants nothing there, and says so.
#[test]
fn a_namespace_beside_the_bundle_in_its_root_is_not_selected() {
    let dir = tempfile::tempdir().unwrap();
    let at = |p: &str| dir.path().join(p);
    for d in ["bundle/manifests", "bundle/extra", "mine"] {
        std::fs::create_dir_all(at(d)).unwrap();
    }
    for f in std::fs::read_dir(repo("examples/guestbook/manifests")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, at("bundle/manifests").join(f.file_name().unwrap())).unwrap();
    }
    let ns =
        |name: &str| format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n  labels: {{tenant: a}}\n");
    std::fs::write(at("bundle/extra/ns.yaml"), ns("sneaky")).unwrap();
    std::fs::write(at("mine/ns.yaml"), ns("team-a")).unwrap();
    let spec = "  mode: Bind\n  bindings:\n  - role: edit\n    subjects: [{kind: Group, name: devs}]\n    namespaceSelector: {matchLabels: {tenant: a}}\n";
    std::fs::write(at("rbac.yaml"), config("guestbook", spec)).unwrap();
    let out = std::process::Command::new(BIN)
        .args(["render", "--config", "rbac.yaml", "bundle/manifests", "bundle/extra", "mine"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rendered = text(&out.stdout);
    assert!(!rendered.contains("namespace: sneaky"), "no binding in the bundle's Namespace");
    assert!(rendered.contains("namespace: team-a"), "the admin's Namespace is selected");
    assert!(text(&out.stderr).contains("warning: Namespace sneaky: spec.bindings[0].namespaceSelector matches this Namespace, but it is not known to be yours"), "{}", text(&out.stderr));
}

/// Found in review: a bundle's root (registry+v1: `manifests/` and
/// `metadata/annotations.yaml`) is the bundle's whole, wherever the bundle
/// puts its CSV; moving the CSV out of `manifests/` does not make the rest of
/// the root the admin's.
#[test]
fn a_bundle_root_is_the_bundles_wherever_its_csv_sits() {
    let dir = tempfile::tempdir().unwrap();
    let at = |p: &str| dir.path().join(p);
    for d in ["bundle/manifests", "bundle/metadata", "bundle/extra", "admin"] {
        std::fs::create_dir_all(at(d)).unwrap();
    }
    std::fs::write(
        at("bundle/metadata/annotations.yaml"),
        "annotations:\n  operators.operatorframework.io.bundle.package.v1: guestbook-operator\n",
    )
    .unwrap();
    for f in std::fs::read_dir(repo("examples/guestbook/manifests")).unwrap() {
        let f = f.unwrap().path();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let to = if name.contains("clusterserviceversion") { "bundle/extra" } else { "bundle/manifests" };
        std::fs::copy(&f, at(to).join(name)).unwrap();
    }
    let ns =
        |name: &str| format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n  labels: {{tenant: a}}\n");
    std::fs::write(at("bundle/manifests/ns.yaml"), ns("prod-payments")).unwrap();
    std::fs::write(at("admin/ns.yaml"), ns("team-a")).unwrap();
    let spec = "  mode: Bind\n  bindings:\n  - role: edit\n    subjects: [{kind: Group, name: devs}]\n    namespaceSelector: {matchLabels: {tenant: a}}\n";
    std::fs::write(at("admin/rbac.yaml"), config("guestbook", spec)).unwrap();
    let out = std::process::Command::new(BIN)
        .args(["render", "--config", "admin/rbac.yaml", "bundle/", "admin/ns.yaml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    // The Namespace under the bundle's root is the bundle's, wherever its
    // CSV sits: a kind registry+v1 bundles may not hold, so it is refused.
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(
            "Namespace prod-payments: kind: the bundle holds a \"Namespace\", a kind registry+v1 bundles may not hold"
        ),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stdout).is_empty(), "nothing is written");
}
