//! Hostile inputs on the paths that read merge keys, believe exact copies of
//! earlier output, take a ClusterExtension as a sign that OLM installs the
//! bundle, model built-in roles and resource scopes in the access checks, and
//! write `render -o json`: each test holds an input that once made one of them
//! grant, hide or change what it must not.

use std::time::{Duration, Instant};

use crate::common::*;
use olm_rbac::access::{Identity, Policy, Request};
use olm_rbac::check::load;
use olm_rbac::run::{render, render_with, OutputFormat, RenderOptions, Source};

/// The guestbook example's bundle, as files in `bundle/manifests/`, plus `extra`.
fn guestbook(extra: &[(&str, &str)]) -> Vec<Source> {
    let dir = repo("examples/guestbook/manifests");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut out: Vec<Source> = files
        .iter()
        .map(|p| Source {
            name: format!("bundle/manifests/{}", p.file_name().unwrap().to_string_lossy()),
            text: std::fs::read_to_string(p).unwrap(),
        })
        .collect();
    out.extend(
        extra.iter().map(|(name, text)| Source { name: format!("bundle/manifests/{name}"), text: text.to_string() }),
    );
    out
}

fn rbac(spec: &str) -> Vec<Source> {
    let text =
        format!("apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: guestbook\nspec:\n{spec}");
    vec![Source { name: "rbac.yaml".into(), text }]
}

fn policy_of(docs: &[&str]) -> Policy {
    let sources: Vec<Source> =
        docs.iter().enumerate().map(|(i, d)| Source { name: format!("in{i}.yaml"), text: d.to_string() }).collect();
    load(&sources).unwrap_or_else(|e| panic!("{e:?}"))
}

/// bob holds the built-in `view` in team-a.
const BOB_VIEWS_TEAM_A: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bob-view, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}]
";

fn bob() -> Identity {
    Identity::new("bob", &[])
}

// ---------------------------------------------------------------------------
// 4. The ClusterExtension as a signal that OLM installs the bundle.

/// A bundle role that aggregates reading Secrets into the built-in `view`.
const SECRETS_INTO_VIEW: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: guestbook-secrets
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: \"true\"
rules:
- apiGroups: [\"\"]
  resources: [secrets]
  verbs: [get, list, watch]
";

/// A ClusterExtension named like the admin's extension, shipped by the bundle itself.
const SHIPPED_EXTENSION: &str = "apiVersion: olm.operatorframework.io/v1
kind: ClusterExtension
metadata:
  name: guestbook
spec:
  namespace: guestbook-system
  source:
    sourceType: Catalog
    catalog: {packageName: guestbook-operator}
";

#[test]
fn a_clusterextension_the_bundle_ships_does_not_turn_off_strip_bundle_aggregation() {
    let config = rbac("  mode: Aggregate\n  stripBundleAggregation: true\n");
    // Without the bundle's ClusterExtension the label is stripped: view gains nothing.
    let plain = render(&guestbook(&[("secrets.yaml", SECRETS_INTO_VIEW)]), &config);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    let p = policy_of(&[&plain.stdout, BOB_VIEWS_TEAM_A]);
    assert!(p.can(&bob(), &Request::on("get", "", "secrets", Some("team-a"))).is_none(), "stripped: {}", plain.stderr);
    // The bundle adds a ClusterExtension named like the extension: the admin
    // still asked for every aggregation label to go, and whoever applies this
    // output applies the role with it.
    let out = render(&guestbook(&[("secrets.yaml", SECRETS_INTO_VIEW), ("ce.yaml", SHIPPED_EXTENSION)]), &config);
    if out.code == 0 {
        let p = policy_of(&[&out.stdout, BOB_VIEWS_TEAM_A]);
        assert!(
            p.can(&bob(), &Request::on("get", "", "secrets", Some("team-a"))).is_none(),
            "a ClusterExtension from the bundle's own folder kept the bundle's aggregation into view:\n{}",
            out.stderr
        );
    }
}

// ---------------------------------------------------------------------------
// 2. Exact copies of earlier output in a bundle's folder.

const BIND_TEAM_A_UNDER_POLICY: &str = "  mode: Bind
  bindings:
  - role: edit
    subjects: [{kind: Group, name: team-a-devs}]
    namespaces: [team-a]
  operator:
    installNamespace: guestbook-system
    policy:
      allow:
      - apiGroups: [webapp.example.com]
        resources: [\"*\"]
        verbs: [\"*\"]
";

/// The RoleBinding this config generates in team-a, as the bundle copies it.
const COPIED_ROLEBINDING: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  annotations:
    olm-rbac.io/api: guestbooks.webapp.example.com
    olm-rbac.io/mode: Bind
  labels:
    app.kubernetes.io/managed-by: olm-rbac
    olm-rbac.io/extension: guestbook
    olm-rbac.io/role: edit
  name: guestbook-guestbooks.webapp.example.com-edit
  namespace: team-a
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: guestbooks.webapp.example.com-edit
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: team-a-devs
";

#[test]
fn a_bundle_rolebinding_that_copies_a_generated_one_is_still_judged_by_the_install_gate() {
    let config = rbac(BIND_TEAM_A_UNDER_POLICY);
    let clean = render(&guestbook(&[]), &config);
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    assert!(clean.stdout.contains(COPIED_ROLEBINDING), "the copy is exactly what this run writes:\n{}", clean.stdout);
    // OLM installs the bundle's namespaced objects in the install namespace,
    // so this copy binds team-a-devs in guestbook-system, which the admin never
    // configured; the gate refuses such a binding when it lacks olm-rbac's labels.
    let unlabelled = COPIED_ROLEBINDING
        .lines()
        .filter(|l| !l.contains("olm-rbac") && !l.trim().ends_with("annotations:") && !l.trim().ends_with("labels:"))
        .collect::<Vec<_>>()
        .join("\n");
    let refused = render(&guestbook(&[("rb.yaml", &unlabelled)]), &config);
    assert_eq!(refused.code, 1, "the gate refuses the bundle's binding:\n{}", refused.stderr);
    // The bundle's claim of being olm-rbac's output does not change what OLM installs.
    let copied = render(&guestbook(&[("rb.yaml", COPIED_ROLEBINDING)]), &config);
    assert_eq!(
        copied.code, 1,
        "the same binding with olm-rbac's labels passed spec.operator.policy:\n{}",
        copied.stderr
    );
}

// ---------------------------------------------------------------------------
// 1. Merge keys.

/// A bundle role whose second rule is brought in by a merge key with YAML's
/// non-specific tag (!): go-yaml (kubectl and kustomize) merges it.
const TAGGED_MERGE: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: guestbook-extra
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: \"true\"
rules:
- apiGroups: [webapp.example.com]
  resources: [guestbooks]
  verbs: [get]
- ! <<: {apiGroups: [\"\"], resources: [secrets], verbs: [get, list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: guestbook-extra
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: guestbook-extra}
subjects: [{kind: ServiceAccount, name: guestbook-controller, namespace: guestbook-system}]
";

#[test]
fn a_merge_key_with_the_non_specific_tag_is_judged_as_kubectl_merges_it() {
    let config = rbac(
        "  mode: Aggregate
  operator:
    installNamespace: guestbook-system
    policy:
      allow:
      - apiGroups: [webapp.example.com]
        resources: [\"*\"]
        verbs: [\"*\"]
",
    );
    // Written without the tag, the gate refuses the Secrets rule.
    let untagged = TAGGED_MERGE.replace("- ! <<: ", "- ");
    let plain = render(&guestbook(&[("role.yaml", &untagged)]), &config);
    assert_eq!(plain.code, 1, "{}", plain.stderr);
    // `! <<` is a merge key to kubectl (`kubectl annotate --local -o json` shows
    // the rule with apiGroups [""], resources [secrets]), and to kustomize.
    let tagged = render(&guestbook(&[("role.yaml", TAGGED_MERGE)]), &config);
    assert_eq!(tagged.code, 1, "`! <<:` hid a Secrets rule from spec.operator.policy:\n{}", tagged.stderr);
}

/// Expectation changed from "reads it as kubectl does" to "refuses it": the
/// YAML specification makes `! <<` a literal key, go-yaml a merge key, and
/// olm-rbac's reader follows the specification; refusing where readers part
/// is the policy for merge keys (docs/security.md), and a refusal cannot be
/// read as "no access" the way a literal key was.
#[test]
fn can_i_refuses_a_merge_key_with_the_non_specific_tag_rather_than_answer_no() {
    let role = TAGGED_MERGE.split("---\n").next().unwrap();
    let sources: Vec<Source> = [role, BOB_VIEWS_TEAM_A]
        .iter()
        .enumerate()
        .map(|(i, d)| Source { name: format!("in{i}.yaml"), text: d.to_string() })
        .collect();
    let errors = load(&sources).map(|p| p.can(&bob(), &Request::on("get", "", "secrets", Some("team-a"))).is_some());
    assert_eq!(
        errors,
        Err(vec!["error: this merge key (<<) carries YAML's non-specific tag (!): kubectl's and kustomize's YAML readers merge it, while olm-rbac's reader, as the YAML specification says, takes a literal \"<<\" key; write a plain << to merge, or \"<<\" without a tag for a literal key (line 11, column 5) [in0.yaml]".to_string()]),
        "kubectl applies the merged rule, so view holders read Secrets: answering no would be wrong"
    );
}

#[test]
fn merge_keys_over_many_aliases_are_read_in_time_proportional_to_the_input() {
    // 5,000 keys merged 5,000 times: 69 kB. Each alias is one event to the
    // parser; reading it should not cost keys × aliases.
    let n = 5000;
    let keys = (0..n).map(|i| format!("k{i}: 1")).collect::<Vec<_>>().join(", ");
    let aliases = vec!["*a"; n].join(", ");
    let doc = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nbase: &a {{{keys}}}\ndata:\n  <<: [{aliases}]\n"
    );
    assert!(doc.len() < 100_000);
    let started = Instant::now();
    let out = render(&[Source { name: "big.yaml".into(), text: doc }], &rbac("  mode: Aggregate\n"));
    let took = started.elapsed();
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(took < Duration::from_secs(2), "a 69 kB input took {took:?}");
}

// ---------------------------------------------------------------------------
// 5. The access checks: resources and aggregation.

#[test]
fn a_crd_does_not_make_olms_namespaced_resources_cluster_scoped_in_the_access_checks() {
    let grant = "apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: installer, namespace: team-a}
rules:
- apiGroups: [operators.coreos.com]
  resources: [subscriptions]
  verbs: [create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: installer, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: installer}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}]
";
    // OLM serves subscriptions namespaced; a CRD's scope cannot be changed once
    // created, so a bundle's copy saying Cluster changes nothing on a cluster.
    let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: subscriptions.operators.coreos.com
spec:
  group: operators.coreos.com
  names: {kind: Subscription, plural: subscriptions, singular: subscription, listKind: SubscriptionList}
  scope: Cluster
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
";
    let ask = Request::on("create", "operators.coreos.com", "subscriptions", Some("team-a"));
    assert!(policy_of(&[grant]).can(&bob(), &ask).is_some(), "bob may subscribe in team-a");
    assert!(
        policy_of(&[crd, grant]).can(&bob(), &ask).is_some(),
        "a CRD in the input hid bob's grant to install operators in team-a"
    );
}

#[test]
fn roles_that_aggregate_each_other_keep_the_rules_the_aggregation_controller_leaves() {
    // The controller sets each aggregating role's rules to those of the roles
    // it selects, as they are now: ring-a takes ring-b's, ring-b takes
    // ring-a's, and both keep `get secrets`, whichever goes first.
    let rings = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ring-a
  labels: {ring: a}
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {ring: b}}]
rules:
- {apiGroups: [\"\"], resources: [secrets], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ring-b
  labels: {ring: b}
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {ring: a}}]
rules:
- {apiGroups: [\"\"], resources: [secrets], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ring}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ring-a}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}]
";
    assert!(
        policy_of(&[rings]).can(&bob(), &Request::on("get", "", "secrets", Some("team-a"))).is_some(),
        "the cycle's rules were dropped: can-i says no where the cluster says yes"
    );
}

// ---------------------------------------------------------------------------
// 6. render -o json.

#[test]
fn render_json_writes_plain_scalars_as_kubectl_reads_them() {
    // kubectl (go-yaml v2): `tRUE` is a string (only true/True/TRUE are
    // booleans), `0x_1F` is 31 (underscores are dropped before the number is
    // read). Checked with `kubectl annotate --local -f cm.yaml a=b -o json`.
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  flag: tRUE\n  hex: 0x_1F\n";
    let options = RenderOptions { output: OutputFormat::Json, ..Default::default() };
    let out = render_with(&guestbook(&[("cm.yaml", cm)]), &rbac("  mode: Aggregate\n"), &options);
    if out.code != 0 {
        return; // refusing the values, naming them, is as good
    }
    let list: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let items = list["items"].as_array().unwrap();
    let data = &items.iter().find(|i| i["kind"] == "ConfigMap").unwrap()["data"];
    assert_eq!(data["flag"], serde_json::json!("tRUE"), "a string became a boolean");
    assert_eq!(data["hex"], serde_json::json!(31), "a number kubectl reads became a string");
}
