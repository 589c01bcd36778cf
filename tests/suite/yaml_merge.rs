//! YAML merge keys as Kubernetes reads them: a published bundle that uses
//! them renders, its bytes pass through untouched, and the decisions are made
//! on the merged values. (What a hostile bundle can do with them is tried in
//! `security`.)

use std::time::{Duration, Instant};

use crate::common::*;
use olm_rbac::access::{Identity, Request};
use olm_rbac::check::load;
use olm_rbac::run::{function, render, Source};

/// The excerpt of Altinity's clickhouse-operator 0.27.2 (see `tests/fixtures/merge-keys/SOURCES.md`).
fn clickhouse() -> Vec<Source> {
    let dir = repo("tests/fixtures/merge-keys/clickhouse-operator-0.27.2/manifests");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .iter()
        .map(|p| Source {
            name: format!("bundle/manifests/{}", p.file_name().unwrap().to_string_lossy()),
            text: std::fs::read_to_string(p).unwrap(),
        })
        .collect()
}

const AGGREGATE: &str =
    "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: clickhouse\nspec:\n  mode: Aggregate\n";

#[test]
fn a_published_bundle_with_merge_keys_renders_and_passes_through_unchanged() {
    let bundle = clickhouse();
    assert!(bundle.iter().any(|s| s.text.contains("!!merge <<: *TypeStringBool")), "the fixture uses merge keys");
    let out = render(&bundle, &[Source { name: "rbac.yaml".into(), text: AGGREGATE.into() }]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for source in &bundle {
        assert!(out.stdout.contains(&source.text), "{} passes through byte for byte", source.name);
    }
    let api = "clickhouseoperatorconfigurations.clickhouse.altinity.com";
    for role in ["admin", "edit", "view", "view-crdview"] {
        assert!(out.stdout.contains(&format!("  name: {api}-{role}\n")), "{role}:\n{}", out.stderr);
    }
    // The same through the KRM function.
    let items: Vec<String> = bundle.iter().map(|s| with_path(&s.text, &s.name)).collect();
    let krm = function(&resource_list(&items, &as_kpt_sends(AGGREGATE)));
    assert_eq!(krm.code, 0, "{}", krm.stdout);
    assert!(krm.stdout.contains(&format!("name: {api}-view\n")), "{}", krm.stdout);
}

/// A ClusterRole whose only rule is the value of `key`, bound to bob.
fn role_with_rule_under(key: &str) -> Vec<Source> {
    let text = format!(
        "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: r
rules:
- {key}: {{apiGroups: [\"\"], resources: [secrets], verbs: [get]}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: r
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}}
subjects: [{{apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}}]
"
    );
    vec![Source { name: "role.yaml".into(), text }]
}

fn bob_gets_secrets(sources: &[Source]) -> Result<bool, Vec<String>> {
    let request = Request {
        verb: "get".into(),
        group: String::new(),
        resource: "secrets".into(),
        subresource: None,
        name: None,
        namespace: Some("team-a".into()),
    };
    Ok(load(sources)?.can(&Identity::new("bob", &[]), &request).is_some())
}

#[test]
fn a_double_less_than_key_that_readers_agree_on_is_read_as_they_read_it() {
    // Checked with `kubectl annotate --local -f role.yaml zz=1 -o json`.
    for merged in ["<<", "!!merge <<", "!!merge \"<<\"", "!<tag:yaml.org,2002:merge> <<"] {
        assert_eq!(bob_gets_secrets(&role_with_rule_under(merged)), Ok(true), "{merged} is a merge key to kubectl");
    }
    for literal in ["\"<<\"", "'<<'", "!!str <<", "!!str \"<<\"", "!custom <<"] {
        assert_eq!(
            bob_gets_secrets(&role_with_rule_under(literal)),
            Ok(false),
            "{literal} is a literal key to kubectl"
        );
    }
}

#[test]
fn a_merge_key_with_the_non_specific_tag_is_refused_in_every_spelling() {
    // The column is the `<<`'s.
    for (key, col) in [("! <<", 5), ("! \"<<\"", 5), ("! '<<'", 5), ("!<!> <<", 8)] {
        let errors = bob_gets_secrets(&role_with_rule_under(key)).expect_err(key);
        assert_eq!(
            errors,
            vec![format!("error: this merge key (<<) carries YAML's non-specific tag (!): kubectl's and kustomize's YAML readers merge it, while olm-rbac's reader, as the YAML specification says, takes a literal \"<<\" key; write a plain << to merge, or \"<<\" without a tag for a literal key (line 6, column {col}) [role.yaml]")],
            "{key}"
        );
    }
    // Nested anywhere in a bundle, too: render refuses it.
    let nested = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: {! <<: {k: v}}\n";
    let out = render(&[Source { name: "cm.yaml".into(), text: nested.into() }], &aggregate());
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("non-specific tag (!)") && out.stderr.contains("(line 6, column 9) [cm.yaml]"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
}

#[test]
fn a_key_written_before_a_merge_key_tagged_merge_is_refused() {
    // kubectl lets the merge win (view on secrets becomes `*` on secrets); a
    // reader that keeps the written key would judge `get` alone.
    let text = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: r
rules:
- verbs: [get]
  !!merge <<: {apiGroups: [\"\"], resources: [secrets], verbs: [\"*\"]}
";
    let errors = load(&[Source { name: "role.yaml".into(), text: text.into() }]).map(|_| ()).expect_err("refused");
    assert_eq!(errors, vec!["error: the key \"verbs\" (line 6) is written before a merge key (<<) that sets it to another value: kubectl's YAML reader lets the merge win, other readers keep the written key; write the key after the <<, or leave it out of the merged mapping (line 7, column 11) [role.yaml]".to_string()]);
}

fn aggregate() -> Vec<Source> {
    vec![Source { name: "rbac.yaml".into(), text: AGGREGATE.into() }]
}

/// Renders `doc`, which must fail at once with the merge budget's message.
fn fails_at_once_on_the_merge_budget(doc: String) {
    let len = doc.len();
    let started = Instant::now();
    let out = render(&[Source { name: "big.yaml".into(), text: doc }], &aggregate());
    let took = started.elapsed();
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("merge keys (<<) copy more keys than the alias replay limit allows"), "{}", out.stderr);
    assert!(took < Duration::from_secs(2), "{len} bytes took {took:?}");
}

#[test]
fn merge_keys_that_copy_keys_times_aliases_fail_at_once_on_600_kb() {
    // One map of n keys merged n times.
    let n = 40_000;
    let keys = (0..n).map(|i| format!("k{i}: 1")).collect::<Vec<_>>().join(", ");
    let aliases = vec!["*a"; n].join(", ");
    let doc = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nbase: &a {{{keys}}}\ndata:\n  <<: [{aliases}]\n"
    );
    assert!(doc.len() > 500_000);
    fails_at_once_on_the_merge_budget(doc);
    // A chain of anchors, each merging the one before and adding a key.
    let chain = (1..15_000).map(|i| format!("a{i}: &a{i} {{<<: *a{}, k{i}: 1}}\n", i - 1)).collect::<String>();
    let doc = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\na0: &a0 {{k0: 1}}\n{chain}");
    assert!(doc.len() > 500_000);
    fails_at_once_on_the_merge_budget(doc);
}

/// Altinity's clickhouse-operator 0.27.2, as published, writes `!!merge <<:`
/// throughout its CRDs, with keys before the merge that set the same value:
/// the whole bundle renders in every mode, its bytes passing through.
#[test]
fn the_clickhouse_operator_bundle_renders_whole_in_every_mode() {
    let bundle = "clickhouse-operator-0.27.2";
    let docs = bundle_docs(bundle);
    let inputs: Vec<olm_rbac::input::Source> = docs
        .iter()
        .map(|(name, text)| olm_rbac::input::Source { name: format!("{bundle}/manifests/{name}"), text: text.clone() })
        .collect();
    let specs = [
        "  mode: Unmanaged\n",
        "  mode: Aggregate\n",
        "  mode: Bind\n  bindings:\n  - role: view\n    subjects: [{kind: Group, name: sre}]\n",
        "  mode: Aggregate\n  operator:\n    permissions: Cluster\n    installNamespace: ops\n",
    ];
    for spec in specs {
        let out = olm_rbac::run::render(
            &inputs,
            &[olm_rbac::input::Source { name: "admin/rbac.yaml".into(), text: config("clickhouse", spec) }],
        );
        assert_eq!(out.code, 0, "{spec}: {}", out.stderr);
        for (name, text) in &docs {
            assert!(out.stdout.contains(text.as_str()), "{spec}: {name} passes through byte for byte");
        }
        assert!(!out.stderr.contains("merge key"), "{spec}: {}", out.stderr);
    }
}

/// Where the two readings differ in a CRD's schema, which no view reads, the
/// render goes on and says so, with both values; the same difference in a
/// role's rules is refused.
#[test]
fn a_differing_merge_in_a_schema_is_said_and_in_a_rule_refused() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {plural: widgets, kind: Widget}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          a: &str {type: string, description: text}\n          b:\n            type: integer\n            <<: *str\n";
    let out = render(
        &[Source { name: "bundle/crd.yaml".into(), text: crd.into() }],
        &[Source { name: "rbac.yaml".into(), text: AGGREGATE.into() }],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("            <<: *str\n"), "the bytes pass through");
    assert!(
        out.stderr.contains("warning: CustomResourceDefinition widgets.example.com: the key \"type\" (line 19) is written as \"integer\" before a merge key (<<, line 20) that sets it to \"string\": kubectl's YAML reader, and so the cluster, reads \"string\"; this is in a CRD's schema, which olm-rbac does not read, so the bytes pass through as written"),
        "{}",
        out.stderr
    );
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\nrules:\n- &view {apiGroups: [example.com], resources: [widgets], verbs: [get]}\n- verbs: ['*']\n  <<: *view\n";
    let refused = render(
        &[
            Source { name: "bundle/crd.yaml".into(), text: crd.into() },
            Source { name: "bundle/role.yaml".into(), text: role.into() },
        ],
        &[Source { name: "rbac.yaml".into(), text: AGGREGATE.into() }],
    );
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("the key \"verbs\" (line 7) is written before a merge key (<<) that sets it to another value"),
        "{}",
        refused.stderr
    );
}

/// Found in review: a warning read before planning (the schema note) must
/// not stop the planning, or the gate would never run. The bundle's
/// over-broad role and binding are still judged and refused.
#[test]
fn a_schema_note_does_not_switch_the_gate_off() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {plural: widgets, kind: Widget}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        example: {a: 1, <<: {a: 2}}\n";
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: helper\n  labels: {rbac.authorization.k8s.io/aggregate-to-admin: \"true\"}\nrules:\n- {apiGroups: [''], resources: [secrets], verbs: ['*']}\n";
    let out = render(
        &[
            Source { name: "bundle/crd.yaml".into(), text: crd.into() },
            Source { name: "bundle/role.yaml".into(), text: role.into() },
        ],
        &[Source { name: "rbac.yaml".into(), text: AGGREGATE.into() }],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("CRD's schema"), "{}", out.stderr);
    assert!(out.stderr.contains("generated 4 ClusterRole(s)"), "the planning ran: {}", out.stderr);
    assert!(
        out.stderr.contains("warning: ClusterRole helper: this bundle role carries aggregation labels"),
        "{}",
        out.stderr
    );
}

/// Found in review: a value after an alias used as a key is no value of the
/// key written before it, so `name` below still differs from the merged one.
#[test]
fn an_alias_key_does_not_lend_its_value_to_the_key_before_it() {
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  annotations: {note: &k generateName}\n  name: helper\n  *k : view\n  <<: {name: view}\nrules: []\n";
    let out = render(
        &[Source { name: "bundle/role.yaml".into(), text: role.into() }],
        &[Source { name: "rbac.yaml".into(), text: AGGREGATE.into() }],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("the key \"name\" (line 5) is written before a merge key (<<) that sets it to another value"),
        "{}",
        out.stderr
    );
}

/// Found in review: only a CRD's schema is unread. Under another kind's
/// `spec.validation`, or inside an anchored mapping an alias may carry into
/// what is read (a CSV's permissions), a differing merge is refused.
#[test]
fn a_differing_merge_outside_a_crds_schema_or_aliasable_is_refused() {
    let csv = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: op.v1.0.0\nspec:\n  validation:\n    x: {verbs: [get], <<: {verbs: ['*']}}\n";
    let out = render(
        &[Source { name: "bundle/csv.yaml".into(), text: csv.into() }],
        &[Source { name: "rbac.yaml".into(), text: AGGREGATE.into() }],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("sets it to another value"), "{}", out.stderr);
    let crd_anchored = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {plural: widgets, kind: Widget}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: &s {type: object, <<: {type: string}}\n";
    let out = render(
        &[Source { name: "bundle/crd.yaml".into(), text: crd_anchored.into() }],
        &[Source { name: "rbac.yaml".into(), text: AGGREGATE.into() }],
    );
    assert_eq!(out.code, 1, "an anchored dispute may be aliased elsewhere: {}", out.stderr);
}
