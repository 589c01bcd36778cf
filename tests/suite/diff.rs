//! `olm-rbac diff OLD NEW`: what each subject gains and loses between two
//! renders. Every change it reports is checked through the evaluator (`can`
//! on each side's policy), not only by its text; its JSON against the struct
//! and the committed JSON Schema docs/diff-output.schema.json.

use std::path::Path;

use olm_rbac::access::cover::atoms;
use olm_rbac::access::{Identity, Policy};
use olm_rbac::check::commands::Format;
use olm_rbac::check::diff::{diff, DiffOptions, FailOn};
use olm_rbac::input::{read_path, Source};
use serde::Deserialize;
use serde_json::Value;

use crate::common::*;
use crate::json_schema::Validator;

/// `diff -o json`, as its documented shape: any other field fails to read.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DiffOut {
    gained: Vec<ChangeOut>,
    lost: Vec<ChangeOut>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ChangeOut {
    subject: SubjectOut,
    namespace: Option<String>,
    api_groups: Vec<String>,
    resources: Vec<String>,
    resource_names: Vec<String>,
    verbs: Vec<String>,
    #[serde(rename = "nonResourceURLs")]
    non_resource_urls: Vec<String>,
    severity: Option<String>,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct SubjectOut {
    kind: String,
    name: String,
    namespace: Option<String>,
}

/// A ClusterRoleBinding of the built-in `edit` to the user `edit-holder`: how
/// the evaluator is asked what "anyone bound to ClusterRole edit" may do.
const EDIT_HOLDER: &str = "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: probe-edit\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: edit\nsubjects:\n- {kind: User, name: edit-holder}\n";

/// A bundle's manifests rendered with the config's spec (legacy CRDs read as
/// v1, as `bundle_docs` reads them); panics on an error.
fn rendered(bundle: &str, spec: &str) -> String {
    let read = read_path(&bundles_dir().join(bundle)).unwrap();
    let inputs: Vec<Source> =
        read.into_iter().map(|s| Source { text: legacy_crd_as_v1(s.text), name: s.name }).collect();
    let configs = [Source { name: "rbac.yaml".into(), text: config(bundle, &admin_spec(bundle, spec)) }];
    let out = olm_rbac::run::render(&inputs, &configs);
    assert_eq!(out.code, 0, "{bundle}: {}", out.stderr);
    out.stdout
}

fn source(name: &str, text: &str) -> Vec<Source> {
    vec![Source { name: name.into(), text: text.into() }]
}

fn options(format: Format, fail_on: FailOn) -> DiffOptions {
    DiffOptions { format, fail_on, ..Default::default() }
}

/// `diff -o json` of two texts, read as its shape, and the exit code.
fn json_diff(old: &str, new: &str) -> (DiffOut, i32) {
    let out = diff(&source("old.yaml", old), &source("new.yaml", new), options(Format::Json, FailOn::Gain));
    let shaped: DiffOut = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    (shaped, out.code.code())
}

fn policy(text: &str) -> Policy {
    olm_rbac::check::load(&source("side.yaml", &format!("{text}{EDIT_HOLDER}"))).unwrap()
}

/// Who the change is about, as the API server would see a request of theirs.
fn identity(s: &SubjectOut) -> Identity {
    match s.kind.as_str() {
        "ServiceAccount" => Identity::service_account(s.namespace.as_deref().unwrap(), &s.name),
        "User" => Identity::new(&s.name, &[]),
        "Group" => Identity::new("a-member", std::slice::from_ref(&s.name)),
        "ClusterRole" if s.name == "edit" => Identity::new("edit-holder", &[]),
        other => panic!("no probe for {other} {}", s.name),
    }
}

/// Whether the side allows the change's first permission (its first atom)
/// to its subject where it applies.
fn allows(side: &Policy, c: &ChangeOut) -> bool {
    let rule = k8s_openapi::api::rbac::v1::PolicyRule {
        api_groups: Some(c.api_groups.clone()),
        resources: Some(c.resources.clone()),
        resource_names: (!c.resource_names.is_empty()).then(|| c.resource_names.clone()),
        non_resource_urls: Some(c.non_resource_urls.clone()),
        verbs: c.verbs.clone(),
    };
    let atom = atoms(&rule).into_iter().next().expect("a change grants something");
    let who = identity(&c.subject);
    match request_for(&atom, c.namespace.as_deref()) {
        Some(req) => side.can(&who, &req).is_some(),
        None => {
            let olm_rbac::access::cover::Atom::Url { url, verb } = atom else { unreachable!() };
            side.can_url(&who, &olm_rbac::access::UrlRequest { verb, path: url }).is_some()
        }
    }
}

/// Every gain is allowed by NEW and not by OLD, every loss the reverse, for
/// the changes whose holders the evaluator can be asked about.
#[track_caller]
fn assert_through_the_evaluator(old: &str, new: &str, d: &DiffOut) {
    let (old_p, new_p) = (policy(old), policy(new));
    let probed = |c: &&ChangeOut| c.subject.kind != "ClusterRole" || c.subject.name == "edit";
    for c in d.gained.iter().filter(probed) {
        assert!(allows(&new_p, c) && !allows(&old_p, c), "a gain the evaluator does not see: {c:?}");
    }
    for c in d.lost.iter().filter(probed) {
        assert!(allows(&old_p, c) && !allows(&new_p, c), "a loss the evaluator does not see: {c:?}");
    }
}

/// The spec of the worked example: Aggregate, and the operator's own RBAC.
const OPERATOR_SPEC: &str =
    "  mode: Aggregate\n  operator:\n    permissions: Cluster\n    installNamespace: argocd-system\n";

#[test]
fn a_render_diffed_with_itself_is_empty() {
    for bundle in bundle_names() {
        let text = rendered(&bundle, "  mode: Aggregate\n");
        let out = diff(&source("a.yaml", &text), &source("b.yaml", &text), DiffOptions::default());
        assert_eq!(
            (out.code.code(), out.stdout.as_str()),
            (0, "no change in access: OLD and NEW grant the same\n"),
            "{bundle}: {}",
            out.stderr
        );
        let (shaped, code) = json_diff(&text, &text);
        assert!(shaped.gained.is_empty() && shaped.lost.is_empty() && code == 0, "{bundle}");
    }
}

fn is_operator(c: &ChangeOut) -> bool {
    c.subject
        == SubjectOut {
            kind: "ServiceAccount".into(),
            name: "argocd-operator-controller-manager".into(),
            namespace: Some("argocd-system".into()),
        }
}

#[test]
fn the_argocd_upgrade_lists_the_operators_new_permissions_and_the_users_new_apis() {
    let old = rendered("argocd-operator-0.6.0", OPERATOR_SPEC);
    let new = rendered("argocd-operator-0.19.0", OPERATOR_SPEC);
    let (d, code) = json_diff(&old, &new);
    assert_eq!(code, 1, "a gain fails the diff by default");
    assert_through_the_evaluator(&old, &new, &d);
    let gained = |subject: &dyn Fn(&ChangeOut) -> bool, resource: &str| {
        d.gained.iter().any(|c| subject(c) && c.resources.iter().any(|r| r == resource))
    };
    for resource in ["networkpolicies", "prometheusrules", "imageupdaters", "apiservices"] {
        assert!(gained(&is_operator, resource), "the operator gains {resource}: {d:#?}");
    }
    let editors = |c: &ChangeOut| c.subject.kind == "ClusterRole" && c.subject.name == "edit";
    for api in ["imageupdaters", "namespacemanagements", "notificationsconfigurations"] {
        assert!(gained(&editors, api), "editors gain the new API {api}");
    }
    assert!(!gained(&editors, "applications"), "an API both versions serve is no gain");
    let lost: Vec<&ChangeOut> = d.lost.iter().filter(|c| is_operator(c)).collect();
    assert!(lost.iter().any(|c| c.resources == ["deploymentconfigs"]), "0.19.0 drops deploymentconfigs: {lost:?}");
    // 0.6.0's one rule on pods, secrets and more is split in 0.19.0: no change.
    assert!(!d.gained.iter().chain(&d.lost).any(|c| is_operator(c) && c.resources.iter().any(|r| r == "pods")));
}

/// The team-b developers an admin already made editors of team-b.
const TEAM_B_EDITORS: &str = "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: team-b-editors\n  namespace: team-b\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: edit\nsubjects:\n- {kind: Group, name: team-b-devs}\n";

#[test]
fn aggregate_to_bind_moves_access_from_the_builtin_roles_holders_to_the_bound_subjects() {
    let bundle = "argocd-operator-0.19.0";
    let bind = "  mode: Bind\n  bindings:\n  - role: edit\n    subjects: [{kind: Group, name: team-a-devs}]\n    namespaces: [team-a]\n";
    let old = format!("{}{TEAM_B_EDITORS}", rendered(bundle, "  mode: Aggregate\n"));
    let new = format!("{}{TEAM_B_EDITORS}", rendered(bundle, bind));
    let (d, _) = json_diff(&old, &new);
    assert_through_the_evaluator(&old, &new, &d);
    let about = |changes: &[ChangeOut], name: &str, ns: Option<&str>, resource: &str| {
        changes.iter().any(|c| {
            c.subject.name == name && c.namespace.as_deref() == ns && c.resources.iter().any(|r| r == resource)
        })
    };
    for api in ["argocds", "applications", "imageupdaters"] {
        assert!(about(&d.lost, "team-b-devs", Some("team-b"), api), "team-b's editors lose {api}: {d:#?}");
        assert!(about(&d.lost, "edit", None, api), "whoever holds edit loses {api}");
        assert!(about(&d.gained, "team-a-devs", Some("team-a"), api), "team-a-devs gain {api} in team-a");
        assert!(!about(&d.gained, "team-a-devs", None, api), "but not cluster-wide");
    }
}

const ALICE_READS_PODS: &str = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: pod-reader\nrules:\n- {apiGroups: [\"\"], resources: [pods], verbs: [get, list]}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: alice-reads-pods\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: pod-reader}\nsubjects:\n- {kind: User, name: alice}\n";

const ALICE_READS_SECRETS_IN_TEAM_A: &str = "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: secret-reader\n  namespace: team-a\nrules:\n- {apiGroups: [\"\"], resources: [secrets, pods], verbs: [get]}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: alice-reads-secrets\n  namespace: team-a\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: secret-reader}\nsubjects:\n- {kind: User, name: alice}\n";

#[test]
fn a_namespaced_gain_the_cluster_wide_grant_already_holds_is_not_repeated() {
    let old = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n";
    let new = format!("{ALICE_READS_PODS}{ALICE_READS_SECRETS_IN_TEAM_A}");
    let (d, _) = json_diff(old, &new);
    assert_through_the_evaluator(old, &new, &d);
    let rows: Vec<(Option<&str>, &[String], &[String])> =
        d.gained.iter().map(|c| (c.namespace.as_deref(), &c.resources[..], &c.verbs[..])).collect();
    let pods = ["pods".to_string()];
    let secrets = ["secrets".to_string()];
    assert_eq!(
        rows,
        [
            (None, &pods[..], &["get".to_string(), "list".into()][..]),
            (Some("team-a"), &secrets[..], &["get".to_string()][..])
        ],
        "get pods in team-a is held cluster-wide already"
    );
}

#[test]
fn fail_on_sets_the_threshold_of_exit_1() {
    let empty = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n";
    let wildcard = ALICE_READS_PODS.replace("verbs: [get, list]", "verbs: [\"*\"]");
    let cases = [
        (ALICE_READS_PODS, FailOn::Gain, 1),
        (ALICE_READS_PODS, FailOn::Dangerous, 0),
        (ALICE_READS_PODS, FailOn::None, 0),
        (wildcard.as_str(), FailOn::Dangerous, 1),
        (wildcard.as_str(), FailOn::None, 0),
        (empty, FailOn::Gain, 0),
    ];
    for (new, fail_on, code) in cases {
        let out = diff(&source("old.yaml", empty), &source("new.yaml", new), options(Format::Table, fail_on));
        assert_eq!(out.code, code, "{fail_on:?} on {new}\n{}", out.stdout);
    }
    // A loss alone never fails.
    let out = diff(&source("old.yaml", ALICE_READS_PODS), &source("new.yaml", empty), DiffOptions::default());
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.contains("gained 0 rules, lost 1 rule, for 1 subject"), "{}", out.stdout);
}

#[test]
fn a_wildcard_gain_is_marked_with_the_catalogues_severity() {
    let empty = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n";
    // Every verb on configmaps: the catalogue's wildcard entry, and nothing worse.
    let wildcard =
        ALICE_READS_PODS.replace("resources: [pods], verbs: [get, list]", "resources: [configmaps], verbs: [\"*\"]");
    let (d, _) = json_diff(empty, &wildcard);
    assert_eq!(d.gained.len(), 1);
    assert_eq!(d.gained[0].severity.as_deref(), Some("medium"));
    let md = diff(&source("old.yaml", empty), &source("new.yaml", &wildcard), options(Format::Markdown, FailOn::Gain));
    assert!(
        md.stdout
            .starts_with("## Access changes\n\ngained 1 rule (dangerous: 1 medium), lost 0 rules, for 1 subject.\n"),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout.contains("| **gained** | cluster-wide | `configmaps` |  |  | `*` | ⚠️ **medium** |"),
        "{}",
        md.stdout
    );
}

fn schema_validator() -> Validator {
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo("docs/diff-output.schema.json")).unwrap()).unwrap();
    Validator::new(&schema).unwrap()
}

#[test]
fn the_committed_diff_output_schema_is_current() {
    committed_schema("docs/diff-output.schema.json", &olm_rbac::check::diff::json_schema(), "diff-output");
}

#[test]
fn the_json_output_has_the_documented_shape() {
    let old = rendered("argocd-operator-0.6.0", OPERATOR_SPEC);
    let new = rendered("argocd-operator-0.19.0", OPERATOR_SPEC);
    let out = diff(&source("old.yaml", &old), &source("new.yaml", &new), options(Format::Json, FailOn::Gain));
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let errors: Vec<_> = schema_validator().iter_errors(&value).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let shaped: DiffOut = serde_json::from_value(value).unwrap();
    assert!(shaped.gained.iter().any(|c| c.severity.is_some()) && !shaped.lost.is_empty());
    assert!(shaped.gained.iter().all(|c| !c.verbs.is_empty()));
    // An unchanged render: empty lists, which the schema takes too.
    let out = diff(&source("a.yaml", &new), &source("b.yaml", &new), options(Format::Json, FailOn::Gain));
    assert_eq!(out.stdout, "{\n  \"gained\": [],\n  \"lost\": []\n}\n");
    assert!(schema_validator().is_valid(&serde_json::from_str(&out.stdout).unwrap()));
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn one_side_may_come_on_stdin_and_q_prints_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "old.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n");
    let out = run_bin(&["diff", &empty, "-"], ALICE_READS_PODS);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("gained 1 rule, lost 0 rules, for 1 subject\n\nUser alice\n"), "{stdout}");
    let out = run_bin(&["diff", "-", &empty, "-q"], ALICE_READS_PODS);
    assert_eq!((out.status.code(), text(&out.stdout), text(&out.stderr)), (Some(0), String::new(), String::new()));
}

#[test]
fn unreadable_input_and_usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.yaml", ALICE_READS_PODS);
    let broken = write(dir.path(), "broken.yaml", "kind: [unclosed\n");
    let missing = dir.path().join("missing.yaml").display().to_string();
    for args in [
        vec!["diff", &good, &missing],
        vec!["diff", &broken, &good],
        vec!["diff", "-", "-"],
        vec!["diff", &good],
        vec!["diff", &good, &good, "--fail-on", "sometimes"],
    ] {
        let out = run_bin(&args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "{args:?}: no partial output");
        assert!(!out.stderr.is_empty(), "{args:?}: says why");
    }
    let out = run_bin(&["diff", "-", "-"], "");
    assert_eq!(text(&out.stderr), "error: diff reads stdin for one of OLD and NEW, not both\n");
}

/// The upgrade review as OLM v1 will do it (issue 35): under
/// `permissions: Unmanaged`, which writes none of the operator's roles,
/// `diff -c` judges both bundles and shows what the operator gains as OLM
/// grants it (kube-green 0.5.2 → 0.7.0: update and patch on statefulsets
/// cluster-wide, critical), from bundle folders and from renders alike;
/// `diff` of the renders alone sees nothing and says why. Between each pair
/// of consecutive versions, `diff -c` counts the gains `catalog audit -c`'s
/// GAINED column counts.
#[test]
fn diff_with_the_config_shows_what_olm_grants_the_operator() {
    let kube_green = repo("tests/fixtures/catalogs/csv-metadata-only/bundles/kube-green");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    permissions: Unmanaged\n    installNamespace: kube-green\n").unwrap();
    let (c, old, new) = (config.to_str().unwrap(), kube_green.join("0.5.2"), kube_green.join("0.7.0"));
    let out = run_bin(&["diff", "-c", c, old.to_str().unwrap(), new.to_str().unwrap(), "-o", "json"], "");
    assert_eq!(out.status.code(), Some(1), "a gain: {}", text(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let gained = json["gained"].as_array().unwrap();
    assert_eq!(gained.len(), 1, "{json}");
    assert_eq!(gained[0]["subject"]["name"], "kube-green-controller-manager");
    assert_eq!(gained[0]["severity"], "critical", "{json}");
    assert_eq!(gained[0]["resources"], serde_json::json!(["statefulsets"]), "{json}");
    // Renders under Unmanaged hold no operator roles: diff alone sees no
    // change, and says so; with the config it sees the gain.
    let render = |bundle: &std::path::Path, file: &str| {
        let out = run_bin(&["render", "-q", "-c", c, bundle.to_str().unwrap()], "");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let path = dir.path().join(file);
        std::fs::write(&path, &out.stdout).unwrap();
        path.display().to_string()
    };
    let (old_yaml, new_yaml) = (render(&old, "old.yaml"), render(&new, "new.yaml"));
    let blind = run_bin(&["diff", &old_yaml, &new_yaml], "");
    assert_eq!(blind.status.code(), Some(0));
    assert!(text(&blind.stderr).contains("to compare what the operator will hold as OLM v1 grants it, pass the config: olm-rbac diff -c CONFIG OLD NEW"), "{}", text(&blind.stderr));
    let seen = run_bin(&["diff", "-c", c, &old_yaml, &new_yaml], "");
    assert_eq!(seen.status.code(), Some(1), "{}", text(&seen.stderr));
    assert!(text(&seen.stdout).contains("[statefulsets.apps]"), "{}", text(&seen.stdout));
    // Each consecutive pair counts what the catalog's GAINED column counts.
    let audit = run_bin(
        &[
            "catalog",
            "audit",
            "--catalog",
            repo("tests/fixtures/catalogs/csv-metadata-only/catalog").to_str().unwrap(),
            "--bundles",
            repo("tests/fixtures/catalogs/csv-metadata-only/bundles").to_str().unwrap(),
            "-c",
            c,
            "-o",
            "json",
        ],
        "",
    );
    let rows: Vec<Value> = serde_json::from_slice(&audit.stdout).unwrap();
    let versions = ["0.5.0", "0.5.1", "0.5.2", "0.6.0", "0.7.0", "0.7.1"];
    for pair in versions.windows(2) {
        let row = rows.iter().find(|r| r["version"] == pair[1]).unwrap();
        let (a, b) = (kube_green.join(pair[0]), kube_green.join(pair[1]));
        let out = run_bin(&["diff", "-c", c, a.to_str().unwrap(), b.to_str().unwrap(), "-o", "json"], "");
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            json["gained"].as_array().map(Vec::len),
            row["gained"].as_array().map(Vec::len),
            "{pair:?}: {json}\n{row}"
        );
    }
}

/// `diff -c` with a side the config refuses fails as render fails: the
/// refusal, exit 1, nothing on stdout.
#[test]
fn diff_with_the_config_refuses_what_render_refuses() {
    let kube_green = repo("tests/fixtures/catalogs/csv-metadata-only/bundles/kube-green");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    installNamespace: kube-green\n    policy:\n      deny:\n      - {apiGroups: [apps], resources: [statefulsets], verbs: [patch], scope: Cluster}\n").unwrap();
    let (old, new) = (kube_green.join("0.5.2"), kube_green.join("0.7.0"));
    let out = run_bin(&["diff", "-c", config.to_str().unwrap(), old.to_str().unwrap(), new.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("spec.operator.policy.deny[0]") && stderr.contains("so there is no upgrade to review"),
        "{stderr}"
    );
}

/// Found in review: OLM installs the bundle's objects as they ship, whatever
/// render's output holds of them: under `bundleObjects: Drop` (what OLM v1
/// needs) `diff -c` still sees a ClusterRoleBinding the new version ships.
#[test]
fn diff_with_the_config_counts_the_bundle_objects_as_shipped() {
    let kube_green = repo("tests/fixtures/catalogs/csv-metadata-only/bundles/kube-green");
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new");
    copy_dir(&kube_green.join("0.5.2"), &new);
    std::fs::write(
        new.join("manifests/extra_crb.yaml"),
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: kube-green-admin\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects:\n- {kind: ServiceAccount, name: kube-green-controller-manager, namespace: kube-green}\n",
    )
    .unwrap();
    for objects in ["Keep", "Drop"] {
        let config = dir.path().join("rbac.yaml");
        std::fs::write(&config, format!("apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  bundleObjects: {objects}\n  operator:\n    installNamespace: kube-green\n")).unwrap();
        let old = kube_green.join("0.5.2");
        let out = run_bin(
            &["diff", "-c", config.to_str().unwrap(), old.to_str().unwrap(), new.to_str().unwrap(), "-o", "json"],
            "",
        );
        assert_eq!(out.status.code(), Some(1), "{objects}: {}", text(&out.stderr));
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            json["gained"].as_array().is_some_and(|g| g.iter().any(|c| c["verbs"] == serde_json::json!(["*"]))),
            "{objects}: {json}"
        );
    }
}
