//! The operator's own permissions (`spec.operator`): over real bundles, in
//! `Cluster` and `Namespaces` mode, the operator's ServiceAccounts may do what
//! their CSV asks where it is asked and nothing more, checked through the
//! offline evaluator; the install-mode checks; the install policy with exact
//! messages; and the guarantees every generated object keeps (idempotency,
//! determinism, revert).

use k8s_openapi::api::rbac::v1::PolicyRule;
use serde_json::Value;

use crate::common::*;
use crate::invariant::{granted, policy};
use olm_rbac::access::cover;
use olm_rbac::access::{Identity, Request};
use olm_rbac::run::{function, render, Outcome, Source};

const BUNDLES: [&str; 4] = [
    "argocd-operator-0.19.0",
    "ack-s3-controller-1.10.0",
    "strimzi-kafka-operator-1.2.0",
    "opentelemetry-operator-0.158.0",
];

const CLUSTER: &str = "  operator:\n    permissions: Cluster\n    installNamespace: ops\n";
const NAMESPACES: &str =
    "  operator:\n    permissions: Namespaces\n    installNamespace: ops\n    targetNamespaces: [team-a, team-b]\n";

/// Renders `bundle` (its manifests named as files, as `olm-rbac render` reads
/// them) with `spec`.
fn render_bundle(bundle: &str, spec: &str) -> Outcome {
    render(&sources(bundle), &[Source { name: "admin/rbac.yaml".into(), text: config("ext", spec) }])
}

fn sources(bundle: &str) -> Vec<Source> {
    bundle_docs(bundle)
        .into_iter()
        .map(|(name, text)| Source { name: format!("{bundle}/manifests/{name}"), text })
        .collect()
}

/// The CSV's grants, read without olm-rbac: `(account, cluster, rule)`.
fn csv_rules(bundle: &str) -> Vec<(String, bool, PolicyRule)> {
    let csv = docs_of(bundle).into_iter().find(|d| d.contains("\nkind: ClusterServiceVersion\n")).unwrap();
    let value: Value = serde_saphyr::from_str(&csv).unwrap();
    let mut out = Vec::new();
    for (key, cluster) in [("permissions", false), ("clusterPermissions", true)] {
        for entry in value["spec"]["install"]["spec"][key].as_array().into_iter().flatten() {
            let account = entry["serviceAccountName"].as_str().filter(|s| !s.is_empty()).unwrap_or("default");
            for rule in entry["rules"].as_array().into_iter().flatten() {
                out.push((account.to_string(), cluster, serde_json::from_value(rule.clone()).unwrap()));
            }
        }
    }
    out
}

fn service_account(name: &str) -> Identity {
    Identity::new(&format!("system:serviceaccount:ops:{name}"), &[])
}

fn read_namespaces() -> PolicyRule {
    PolicyRule {
        api_groups: Some(vec![String::new()]),
        resources: Some(vec!["namespaces".into()]),
        verbs: vec!["get".into(), "list".into(), "watch".into()],
        ..Default::default()
    }
}

/// In each mode, every permission the CSV asks for is allowed where it is
/// asked (cluster rules everywhere; namespaced rules everywhere when promoted,
/// in the install and target namespaces otherwise), and namespaced rules are
/// not allowed in other namespaces.
#[test]
fn the_operator_may_do_what_its_csv_asks_where_it_is_asked() {
    for bundle in BUNDLES {
        for (mode, spec) in [("Cluster", CLUSTER), ("Namespaces", NAMESPACES)] {
            let out = render_bundle(bundle, spec);
            assert_eq!(out.code, 0, "{bundle} {mode}: {}", out.stderr);
            let p = policy(&out.stdout);
            let rules = csv_rules(bundle);
            let mut checked = 0;
            for (account, cluster, rule) in &rules {
                let sa = service_account(account);
                let own_cluster: Vec<PolicyRule> =
                    rules.iter().filter(|(a, c, _)| a == account && *c).map(|(_, _, r)| r.clone()).collect();
                for atom in cover::atoms(rule) {
                    let allowed = |ns: Option<&str>| request_for(&atom, ns).map(|r| p.can(&sa, &r).is_some());
                    if *cluster || mode == "Cluster" {
                        assert_eq!(
                            allowed(None),
                            Some(true).filter(|_| request_for(&atom, None).is_some()).or(None),
                            "{bundle} {mode}: {account} {atom:?} cluster-wide"
                        );
                        assert_ne!(
                            allowed(Some("elsewhere")),
                            Some(false),
                            "{bundle} {mode}: {account} {atom:?} anywhere"
                        );
                    } else {
                        for ns in ["ops", "team-a", "team-b"] {
                            assert_ne!(allowed(Some(ns)), Some(false), "{bundle} {mode}: {account} {atom:?} in {ns}");
                        }
                        if !cover::covers(&own_cluster, std::slice::from_ref(&atom.to_rule())) {
                            assert_ne!(
                                allowed(Some("elsewhere")),
                                Some(true),
                                "{bundle} {mode}: {account} {atom:?} must not reach other namespaces"
                            );
                        }
                    }
                    checked += 1;
                }
            }
            assert!(checked > 10, "{bundle} {mode}: only {checked} permissions checked");
        }
    }
}

/// Nobody gains anything beyond the CSV's own rules for its ServiceAccounts
/// (and, when promoted, reading namespaces, as OLM adds): not other accounts,
/// not users.
#[test]
fn the_output_grants_nothing_the_csv_does_not_ask_for() {
    let mut rendered = 0;
    for bundle in bundle_names() {
        let bundle = bundle.as_str();
        let input: String = docs_of(bundle).iter().map(|d| format!("---\n{d}")).collect();
        let before = granted(&input);
        for (mode, spec) in [("Cluster", CLUSTER), ("Namespaces", NAMESPACES)] {
            let out = render_bundle(bundle, spec);
            if out.code != 0 {
                assert!(
                    out.stderr.contains("install mode, which the CSV does not support"),
                    "{bundle} {mode}: {}",
                    out.stderr
                );
                continue;
            }
            rendered += 1;
            let rules = csv_rules(bundle);
            for (who, atom) in granted(&out.stdout).into_iter().filter(|g| !before.contains(g)) {
                let account = who
                    .strip_prefix("ServiceAccount ")
                    .and_then(|rest| rest.split_once(' '))
                    .map(|(name, _)| name.to_string())
                    .unwrap_or_else(|| panic!("{bundle} {mode}: {who} gains {atom:?}"));
                let mut allowed: Vec<PolicyRule> =
                    rules.iter().filter(|(a, _, _)| *a == account).map(|(_, _, r)| r.clone()).collect();
                if mode == "Cluster" {
                    allowed.push(read_namespaces());
                }
                assert!(
                    cover::covers(&allowed, std::slice::from_ref(&atom.to_rule())),
                    "{bundle} {mode}: {who} gains {atom:?}, which its CSV does not ask for"
                );
            }
        }
    }
    assert!(rendered >= 16, "most bundles render in both modes ({rendered})");
}

fn messages(out: &Outcome) -> String {
    format!("{}{}", out.stderr, out.stdout)
}

#[test]
fn install_modes_are_checked_as_olm_checks_them() {
    // prometheus supports OwnNamespace and SingleNamespace only.
    let out = render_bundle("prometheus-0.56.3", CLUSTER);
    assert_eq!(out.code, 1);
    assert!(
        messages(&out).contains("spec.installModes: permissions: Cluster for all namespaces needs the AllNamespaces install mode, which the CSV does not support (supported: OwnNamespace, SingleNamespace); use permissions: Namespaces with targets it supports"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "no partial output");
    let out = render_bundle("prometheus-0.56.3", NAMESPACES);
    assert_eq!(out.code, 1);
    assert!(
        messages(&out).contains("permissions: Namespaces for team-a, team-b needs the MultiNamespace install mode"),
        "{}",
        out.stderr
    );
    let own = "  operator:\n    permissions: Namespaces\n    installNamespace: ops\n";
    assert_eq!(render_bundle("prometheus-0.56.3", own).code, 0, "its own namespace only: OwnNamespace");
    let single =
        "  operator:\n    permissions: Namespaces\n    installNamespace: ops\n    targetNamespaces: [team-a]\n";
    let out = render_bundle("prometheus-0.56.3", single);
    assert_eq!(out.code, 0, "one other namespace: SingleNamespace: {}", out.stderr);
    assert!(
        out.stderr.contains("set WATCH_NAMESPACE=\"team-a\" on its Deployment(s) prometheus-operator"),
        "{}",
        out.stderr
    );
    // An AllNamespaces-only operator may be scoped, with a warning.
    let out = render_bundle("argocd-operator-0.19.0", NAMESPACES);
    assert_eq!(out.code, 0);
    assert!(out.stderr.contains("warning: ClusterServiceVersion placeholder/argocd-operator.v0.19.0: spec.installModes: the operator supports only the AllNamespaces install mode, not MultiNamespace for team-a, team-b; its RBAC is scoped to those namespaces, but unless its WATCH_NAMESPACE is set to them it will watch every namespace and fail where it has no access"), "{}", out.stderr);
}

/// ack-s3-controller's rules, and a policy that covers them.
const ACK_ALLOW: &str = "    policy:
      allow:
      - {apiGroups: [coordination.k8s.io], resources: [leases], verbs: ['*']}
      - {apiGroups: [''], resources: [events], verbs: [create, patch]}
      - {apiGroups: [''], resources: [configmaps, secrets, namespaces], verbs: [get, list, watch, patch]}
      - {apiGroups: [s3.services.k8s.aws, services.k8s.aws, iam.services.k8s.aws], resources: ['*'], verbs: ['*']}
";

#[test]
fn a_policy_that_covers_the_bundle_passes() {
    let spec = format!("{NAMESPACES}{ACK_ALLOW}");
    let (out, coded) = render_results(
        &sources("ack-s3-controller-1.10.0"),
        &[Source { name: "admin/rbac.yaml".into(), text: config("ext", &spec) }],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let verdicts = ["policy-not-allowed", "policy-denied"];
    assert!(!coded.iter().any(|r| verdicts.contains(&r.code.as_str()) || r.code.starts_with("danger-")), "{coded:#?}");
}

#[test]
fn a_policy_the_bundle_exceeds_fails_with_each_rule_named() {
    // The same ceiling without secrets, and a deny on reading them.
    let spec =
        format!("{NAMESPACES}{}", ACK_ALLOW.replace("configmaps, secrets, namespaces", "configmaps, namespaces"));
    let out = render_bundle("ack-s3-controller-1.10.0", &spec);
    assert_eq!(out.code, 1);
    assert!(out.stdout.is_empty(), "no partial output");
    let expected = "error: ClusterServiceVersion placeholder/ack-s3-controller.v1.10.0: spec.install.spec.clusterPermissions[0].rules[0]: install policy: ServiceAccount ops/ack-s3-controller would be granted verbs=[get,list,patch,watch] apiGroups=[\"\"] resources=[configmaps,secrets] cluster-wide, beyond spec.operator.policy.allow: verbs=[get,list,watch,patch] apiGroups=[\"\"] resources=[secrets]";
    assert!(out.stderr.contains(expected), "{}", out.stderr);
    assert_eq!(count(&out.stderr, "install policy:"), 1, "one error per rule beyond the ceiling: {}", out.stderr);
    let doc = std::fs::read_to_string(repo("docs/operator-permissions.md")).unwrap();
    let quoted = |message: &str| {
        message
            .split_once("install policy:")
            .map(|(_, m)| format!("install policy:{m}").replace("ops/", "ack-system/"))
            .unwrap()
    };
    assert!(doc.contains(&quoted(expected)), "docs/operator-permissions.md quotes this error as it is written");

    let deny = format!("{NAMESPACES}{ACK_ALLOW}      deny:\n      - {{apiGroups: [''], resources: [secrets], verbs: [get, list, watch]}}\n");
    let out = render_bundle("ack-s3-controller-1.10.0", &deny);
    assert_eq!(out.code, 1);
    let expected = "install policy: ServiceAccount ops/ack-s3-controller would be granted verbs=[get,list,patch,watch] apiGroups=[\"\"] resources=[configmaps,secrets] cluster-wide, which spec.operator.policy.deny[0] forbids (verbs=[get,list,watch] apiGroups=[\"\"] resources=[secrets])";
    assert!(out.stderr.contains(expected), "{}", out.stderr);
    assert!(doc.contains(&quoted(expected)), "docs/operator-permissions.md quotes this error as it is written");
}

#[test]
fn the_policy_applies_when_olm_grants_the_permissions_itself() {
    let spec =
        format!("  operator:\n{}", ACK_ALLOW.replace("configmaps, secrets, namespaces", "configmaps, namespaces"));
    let out = render_bundle("ack-s3-controller-1.10.0", &spec);
    assert_eq!(out.code, 1, "Unmanaged is still gated");
    assert!(out.stderr.contains("install policy: ServiceAccount ack-s3-controller would be granted"), "{}", out.stderr);
}

fn krm(bundle: &str, spec: &str) -> Outcome {
    // As kpt sends it: the earlier output, in the config's output file, is the admin's.
    function(&resource_list(&kpt_items(bundle), &as_kpt_sends(&config("ext", spec))))
}

#[test]
fn a_second_run_changes_nothing_and_the_same_input_gives_the_same_bytes() {
    for spec in [CLUSTER, NAMESPACES] {
        let first = krm("strimzi-kafka-operator-1.2.0", spec);
        assert_eq!(first.code, 0, "{}", first.stderr);
        assert!(first.stdout.contains("olm-rbac.io/role: operator"));
        let second = function(&first.stdout);
        assert_eq!(second.code, 0, "{}", second.stderr);
        assert_same_text(&second.stdout, &first.stdout, "a second run");
        assert!(krm("strimzi-kafka-operator-1.2.0", spec) == first, "deterministic");
        let mut docs = docs_of("strimzi-kafka-operator-1.2.0");
        docs.reverse();
        let reversed = function(&resource_list(&docs, &config("ext", spec)));
        let generated =
            |s: &str| s[s.find("olm-rbac.io/role: operator").unwrap()..s.find("functionConfig:").unwrap()].to_string();
        assert_same_text(&generated(&reversed.stdout), &generated(&first.stdout), "input order does not matter");
    }
}

#[test]
fn switching_to_unmanaged_removes_the_operators_objects_and_says_so() {
    let first = krm("ack-s3-controller-1.10.0", NAMESPACES);
    let items = &first.stdout[..first.stdout.find("functionConfig:").unwrap()];
    let config: String =
        config("ext", "  operator:\n    permissions: Unmanaged\n").lines().map(|l| format!("  {l}\n")).collect();
    let list = format!("{items}functionConfig:\n{config}");
    let reverted = function(&list);
    assert_eq!(reverted.code, 0, "{}", reverted.stderr);
    assert!(!reverted.stdout.contains("olm-rbac.io/role: operator"), "every operator object is gone");
    assert_eq!(
        count(&reverted.stdout, "removed: olm-rbac generated it for extension \\\"ext\\\" earlier"),
        8,
        "{}",
        reverted.stdout
    );
    let again = function(&reverted.stdout);
    let items = |s: &str| s[..s.find("\nresults:\n").unwrap()].to_string();
    assert_same_text(&items(&again.stdout), &items(&reverted.stdout), "a run after the revert");
}

// ---------------------------------------------------------------------------
// What a bundle author might try.

/// The ack bundle with extra documents in its own folder.
fn ack_with(extra: &[&str]) -> Vec<Source> {
    let mut s = sources("ack-s3-controller-1.10.0");
    for (i, text) in extra.iter().enumerate() {
        s.push(Source { name: format!("ack-s3-controller-1.10.0/manifests/extra-{i}.yaml"), text: text.to_string() });
    }
    s
}

fn render_with(sources: Vec<Source>, spec: &str) -> Outcome {
    render(&sources, &[Source { name: "admin/rbac.yaml".into(), text: config("ext", spec) }])
}

const CLUSTER_ADMIN_BINDING: &str = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: ack-extra\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects:\n- {kind: ServiceAccount, name: ack-s3-controller, namespace: ops}\n";
const WILD_BINDING: &str = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: ack-extra\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ack-extra}\nsubjects:\n- {kind: ServiceAccount, name: ack-s3-controller, namespace: ops}\n";
const WILD_ROLE: &str = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ack-extra\nrules:\n- {apiGroups: ['*'], resources: ['*'], verbs: ['*']}\n";

#[test]
fn roles_and_bindings_the_bundle_ships_are_held_to_the_policy() {
    let spec = format!("{NAMESPACES}{ACK_ALLOW}");
    // A role nobody binds grants nothing; bound to the operator, it is measured where it is bound.
    let out = render_with(ack_with(&[WILD_ROLE]), &spec);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = render_with(ack_with(&[WILD_ROLE, WILD_BINDING]), &spec);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("error: ClusterRole ack-extra: rules[0]: install policy: ServiceAccount ops/ack-s3-controller (through the bundle's ClusterRoleBinding ack-extra) would be granted verbs=[*] apiGroups=[*] resources=[*] cluster-wide, beyond spec.operator.policy.allow: verbs=[*] apiGroups=[*] resources=[*]"), "{}", out.stderr);
    // A binding to cluster-admin is measured as what cluster-admin holds: everything.
    let out = render_with(ack_with(&[CLUSTER_ADMIN_BINDING]), &spec);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("error: ClusterRoleBinding ack-extra: roleRef: install policy: ServiceAccount ops/ack-s3-controller (through the bundle's ClusterRoleBinding ack-extra) would be granted verbs=[*] apiGroups=[*] resources=[*] cluster-wide, beyond spec.operator.policy.allow: verbs=[*] apiGroups=[*] resources=[*]"), "{}", out.stderr);
    // Without a ceiling, the same is a warning.
    let out = render_with(ack_with(&[CLUSTER_ADMIN_BINDING, WILD_ROLE]), NAMESPACES);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("warning: ClusterRoleBinding ack-extra: roleRef: ServiceAccount ops/ack-s3-controller (through the bundle's ClusterRoleBinding ack-extra) would be granted verbs=[*] apiGroups=[*] resources=[*] cluster-wide: escalate on roles (critical)"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_ceiling_is_the_admins_not_the_bundles() {
    let ceiling = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: operator-ceiling\nrules:\n- {apiGroups: ['*'], resources: ['*'], verbs: ['*']}\n";
    let spec = format!("{NAMESPACES}    policy:\n      allowClusterRole: operator-ceiling\n");
    let out = render_with(ack_with(&[ceiling]), &spec);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("spec.operator.policy.allowClusterRole: ClusterRole \"operator-ceiling\" comes from a bundle's own folder: a bundle does not get to set its own ceiling; name a ClusterRole of yours in the input"), "{}", out.stderr);
    let out = render_with(sources("ack-s3-controller-1.10.0"), &spec);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("ClusterRole \"operator-ceiling\" is not in the input"), "{}", out.stderr);
    let mut own = sources("ack-s3-controller-1.10.0");
    own.push(Source { name: "admin/ceiling.yaml".into(), text: ceiling.into() });
    let out = render_with(own, &spec);
    assert_eq!(out.code, 0, "the admin's own ClusterRole is a ceiling: {}", out.stderr);
}

#[test]
fn service_account_names_that_cannot_exist_are_refused() {
    let csv = sources("ack-s3-controller-1.10.0");
    let hostile: Vec<Source> = csv
        .into_iter()
        .map(|mut s| {
            s.text = s.text.replace("serviceAccountName: ack-s3-controller", "serviceAccountName: \"x:y/../z\"");
            s
        })
        .collect();
    let out = render_with(hostile, NAMESPACES);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains(
            "spec.install.spec.permissions[0].serviceAccountName: \"x:y/../z\" is not a valid ServiceAccount name"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn an_object_in_the_bundle_claiming_to_be_operator_output_is_kept() {
    let forged = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ext-operator-ack-s3-controller\n  labels: {app.kubernetes.io/managed-by: olm-rbac, olm-rbac.io/extension: ext, olm-rbac.io/role: operator}\n  annotations: {olm-rbac.io/service-account: ops/ack-s3-controller}\nrules: []\n";
    let out = render_with(ack_with(&[forged]), NAMESPACES);
    assert_eq!(out.code, 1, "kept, so the generated role with its name conflicts");
    assert!(out.stderr.contains("it comes from a bundle's own folder, where olm-rbac never writes"), "{}", out.stderr);
    assert!(
        out.stderr.contains("conflict: olm-rbac would generate ClusterRole ext-operator-ack-s3-controller"),
        "{}",
        out.stderr
    );
}

#[test]
fn config_mistakes_name_their_fields() {
    let cases = [
        (
            "  operator:\n    permissions: Cluster\n",
            "spec.operator.installNamespace: is required with permissions: Cluster",
        ),
        (
            "  operator:\n    permissions: Cluster\n    installNamespace: ops\n    targetNamespaces: [a]\n",
            "spec.operator.targetNamespaces: applies only with permissions: Namespaces (it is Cluster)",
        ),
        (
            "  operator:\n    policy:\n      allow:\n      - {resources: [pods], verbs: [get]}\n",
            "spec.operator.policy.allow[0].apiGroups: needs apiGroups with resources",
        ),
        (
            "  operator:\n    policy:\n      deny:\n      - {apiGroups: [''], resources: [pods]}\n",
            "spec.operator.policy.deny[0].verbs: must name at least one verb",
        ),
    ];
    for (spec, expected) in cases {
        let out = render_bundle("ack-s3-controller-1.10.0", spec);
        assert_eq!(out.code, 1, "{spec}");
        assert!(out.stderr.contains(expected), "{spec}: {}", out.stderr);
    }
}

#[test]
fn the_selector_reads_the_admins_namespaces_not_the_bundles() {
    let labelled =
        |name: &str| format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n  labels: {{s3: enabled}}\n");
    // On stdin, where the bundle could have written it (in the bundle's
    // folder it is refused outright: a kind registry+v1 bundles may not hold).
    let mut inputs = ack_with(&[]);
    inputs.push(Source { name: "-".into(), text: labelled("bundle-picked") });
    inputs.push(Source { name: "admin/namespaces.yaml".into(), text: labelled("team-c") });
    let spec = "  operator:\n    permissions: Namespaces\n    installNamespace: ops\n    targetNamespaceSelector: {matchLabels: {s3: enabled}}\n";
    let out = render_with(inputs, spec);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let p = policy(&out.stdout);
    let lease = |ns: &str| Request {
        verb: "update".into(),
        group: "coordination.k8s.io".into(),
        resource: "leases".into(),
        subresource: None,
        name: None,
        namespace: Some(ns.into()),
    };
    let sa = service_account("ack-s3-controller");
    assert!(p.can(&sa, &lease("team-c")).is_some(), "the admin's Namespace is a target");
    assert!(p.can(&sa, &lease("ops")).is_some(), "the install namespace always is");
    assert!(p.can(&sa, &lease("bundle-picked")).is_none(), "a Namespace from the bundle's folder is not");
    assert!(
        out.stderr
            .contains("spec.operator.targetNamespaceSelector matches this Namespace, but it is not known to be yours"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("set WATCH_NAMESPACE=\"team-c\""), "{}", out.stderr);
}

/// With every Namespace of unknown origin, the selector's warning counts the
/// admin's Namespaces (none) and says how many were left out and why,
/// instead of "none of the 0 Namespace object(s)" beside four of them.
#[test]
fn a_selector_that_matches_nothing_says_which_namespaces_were_left_out() {
    let mut inputs = ack_with(&[]);
    for name in ["a", "b", "c", "d"] {
        let ns = format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n  labels: {{s3: enabled}}\n");
        inputs.push(Source { name: "-".into(), text: ns });
    }
    let spec = "  operator:\n    permissions: Namespaces\n    installNamespace: ops\n    targetNamespaceSelector: {matchLabels: {s3: enabled}}\n";
    let out = render_with(inputs, spec);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("targetNamespaceSelector matches none of the 0 Namespace object(s) of yours in the input (4 more in the input are not known to be yours and are not selected: pass your Namespace files from a folder of their own)"),
        "{}",
        out.stderr
    );
}

/// `report` shows what each of the operator's ServiceAccounts may do, where,
/// flagging the dangerous grants; `can-i` answers for it.
#[test]
fn report_and_can_i_answer_for_the_operator() {
    let out = render_bundle("ack-s3-controller-1.10.0", NAMESPACES);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rendered = vec![Source { name: "rendered.yaml".into(), text: out.stdout }];
    let report = olm_rbac::check::commands::report(&rendered, olm_rbac::check::commands::Format::Table);
    let expected = "ServiceAccount ops/ack-s3-controller (operator of extension ext)
  cluster-wide: verbs=[get,list,patch,watch] apiGroups=[\"\"] resources=[configmaps,secrets]
    DANGEROUS: read secrets cluster-wide, write secrets cluster-wide
  cluster-wide: verbs=[get,list,watch] apiGroups=[\"\"] resources=[namespaces]
  cluster-wide: verbs=[get,list] apiGroups=[iam.services.k8s.aws] resources=[roles,roles/status]
  cluster-wide: verbs=[create,delete,get,list,patch,update,watch] apiGroups=[s3.services.k8s.aws] resources=[buckets]
  cluster-wide: verbs=[get,patch,update] apiGroups=[s3.services.k8s.aws] resources=[buckets/status]
  cluster-wide: verbs=[create,delete,get,list,patch,update,watch] apiGroups=[services.k8s.aws]
    resources=[fieldexports,iamroleselectors]
  cluster-wide: verbs=[get,patch,update] apiGroups=[services.k8s.aws]
    resources=[fieldexports/status,iamroleselectors/status]
  cluster-wide: verbs=[create] apiGroups=[authorization.k8s.io]
    resources=[selfsubjectaccessreviews,selfsubjectrulesreviews]
  cluster-wide: verbs=[create] apiGroups=[authentication.k8s.io] resources=[selfsubjectreviews]
  cluster-wide: verbs=[get]
    nonResourceURLs=[/api,/api/*,/apis,/apis/*,/healthz,/livez,/openapi,/openapi/*,/readyz,/version,/version/]
  cluster-wide: verbs=[get] nonResourceURLs=[/healthz,/livez,/readyz,/version,/version/]
  cluster-wide: verbs=[get] nonResourceURLs=[/.well-known/openid-configuration,/openid/v1/jwks]
  in ops: verbs=[get,list,watch,create,update,patch,delete] apiGroups=[coordination.k8s.io] resources=[leases]
  in ops: verbs=[create,patch] apiGroups=[\"\"] resources=[events]
  in team-a: verbs=[get,list,watch,create,update,patch,delete] apiGroups=[coordination.k8s.io] resources=[leases]
  in team-a: verbs=[create,patch] apiGroups=[\"\"] resources=[events]
  in team-b: verbs=[get,list,watch,create,update,patch,delete] apiGroups=[coordination.k8s.io] resources=[leases]
  in team-b: verbs=[create,patch] apiGroups=[\"\"] resources=[events]
  who may act as it (and so holds what it holds):
    anyone bound to ClusterRole admin → create pods in ops → ServiceAccount ops/ack-s3-controller → read secrets
      cluster-wide, write secrets cluster-wide
    anyone bound to ClusterRole edit → create pods in ops → ServiceAccount ops/ack-s3-controller → read secrets
      cluster-wide, write secrets cluster-wide
";
    assert!(report.stdout.trim_end().ends_with(expected.trim_end()), "{}", report.stdout);
    let json = olm_rbac::check::commands::report(&rendered, olm_rbac::check::commands::Format::Json);
    assert!(json.stdout.contains("\"serviceAccounts\"") && json.stdout.contains("\"read secrets cluster-wide\""));
    let can_i = |ns: &str| {
        let args = [
            "can-i",
            "create",
            "leases.coordination.k8s.io",
            "-n",
            ns,
            "--as",
            "system:serviceaccount:ops:ack-s3-controller",
        ];
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("rendered.yaml");
        std::fs::write(&file, &rendered[0].text).unwrap();
        let out = std::process::Command::new(BIN).args(args).arg("-f").arg(&file).output().unwrap();
        text(&out.stdout)
    };
    assert_eq!(can_i("team-a"), "yes\n");
    assert_eq!(can_i("elsewhere"), "no\n");
}

/// A bundle ClusterRole that aggregates the built-in admin role's rules, bound
/// to the operator, would hold whatever admin holds: under a ceiling that is
/// refused, since it cannot be measured.
#[test]
fn an_aggregating_bundle_role_cannot_slip_past_the_ceiling() {
    let gather = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ack-gather\naggregationRule:\n  clusterRoleSelectors:\n  - matchLabels: {rbac.authorization.k8s.io/aggregate-to-admin: \"true\"}\nrules: []\n";
    let bind = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: ack-gather\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ack-gather}\nsubjects:\n- {kind: ServiceAccount, name: ack-s3-controller, namespace: ops}\n";
    let spec = format!("{NAMESPACES}{ACK_ALLOW}");
    let out = render_with(ack_with(&[gather, bind]), &spec);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr.contains(
            "error: ClusterRole ack-gather: aggregationRule: the bundle ships this ClusterRole with an aggregationRule"
        ),
        "{}",
        out.stderr
    );
}

/// The operator's and the installer's steps both use the selected targets;
/// what selecting them found is said once.
#[test]
fn a_selector_finding_is_said_once_when_the_installer_uses_the_targets_too() {
    let spec = "  operator:\n    permissions: Namespaces\n    installNamespace: ops\n    targetNamespaceSelector: {matchLabels: {s3: enabled}}\n  installer:\n    serviceAccount: {name: inst, namespace: ops}\n    for: OLMv1\n";
    let out = render_bundle("ack-s3-controller-1.10.0", spec);
    assert_eq!(
        count(&out.stderr, "targetNamespaceSelector matches none of the 0 Namespace object(s)"),
        1,
        "{}",
        out.stderr
    );
}

/// The OLM v1 default the docs recommend (`permissions: Unmanaged`: OLM
/// grants the CSV's rules) is warned about as `Cluster` is: OLM promotes
/// them cluster-wide for an operator that supports AllNamespaces, whoever
/// writes them.
#[test]
fn the_olm_v1_default_gets_the_danger_warnings_cluster_gets() {
    let dangers = |spec: &str| -> Vec<String> {
        let out = render_bundle("argocd-operator-0.19.0", spec);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stderr.lines().filter(|l| l.starts_with("warning: ClusterServiceVersion ")).map(str::to_string).collect()
    };
    let unmanaged = dangers("  operator:\n    permissions: Unmanaged\n    installNamespace: ops\n");
    assert!(unmanaged.len() >= 5, "{unmanaged:#?}");
    assert_eq!(unmanaged, dangers(CLUSTER));
    assert!(unmanaged.iter().any(|w| w.contains("read secrets cluster-wide (high)")), "{unmanaged:#?}");
    assert!(dangers("  mode: Unmanaged\n").is_empty(), "without spec.operator nothing is read");
}

/// What to set for the namespaces the operator must watch, under OLM v0 and
/// OLM v1: one namespace is OLM v1's `watchNamespace` (an alpha feature),
/// several are beyond it.
#[test]
fn the_watch_namespace_result_says_what_olm_v1_can_do() {
    let spec = |targets: &str| {
        format!(
            "  operator:\n    permissions: Namespaces\n    installNamespace: ops\n    targetNamespaces: [{targets}]\n"
        )
    };
    let one = render_bundle("ack-s3-controller-1.10.0", &spec("team-a"));
    assert!(
        one.stderr.contains("with OLM v1, that is spec.config.inline.watchNamespace: \"team-a\" on the ClusterExtension, behind the alpha SingleOwnNamespaceInstallSupport feature gate"),
        "{}",
        one.stderr
    );
    let two = render_bundle("ack-s3-controller-1.10.0", &spec("team-a, team-b"));
    assert!(two.stderr.contains("OLM v1 cannot watch several namespaces"), "{}", two.stderr);
}

/// Under `permissions: Namespaces` the admin chose where the operator acts;
/// a binding the bundle ships that reaches its account beyond them is said,
/// even when an unscoped `allow` lets the rule through.
#[test]
fn a_bundle_binding_beyond_the_chosen_namespaces_is_said() {
    let binding = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: ack-s3-everywhere\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ack-s3-reader-all}\nsubjects:\n- {kind: ServiceAccount, name: ack-s3-controller, namespace: ops}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ack-s3-reader-all\nrules:\n- apiGroups: [s3.services.k8s.aws]\n  resources: [buckets]\n  verbs: [get, list]\n";
    let mut inputs = sources("ack-s3-controller-1.10.0");
    inputs.push(Source { name: "ack-s3-controller-1.10.0/manifests/zz-binding.yaml".into(), text: binding.into() });
    let spec = "  operator:\n    permissions: Namespaces\n    installNamespace: ops\n    targetNamespaces: [team-a]\n    policy:\n      allow:\n      - {apiGroups: ['*'], resources: ['*'], verbs: ['*']}\n";
    let out = render(&inputs, &[Source { name: "admin/rbac.yaml".into(), text: config("ack-s3", spec) }]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("warning: ClusterRole ack-s3-reader-all: rules[0]: the bundle's ClusterRoleBinding ack-s3-everywhere grants the operator's ServiceAccount ops/ack-s3-controller cluster-wide, in every namespace, beyond the namespaces spec.operator chose (ops, team-a)"),
        "{}",
        out.stderr
    );
    let (_, cluster) = render_results(
        &inputs,
        &[Source {
            name: "admin/rbac.yaml".into(),
            text: config(
                "ack-s3",
                &spec.replace("Namespaces", "Cluster").replace("    targetNamespaces: [team-a]\n", ""),
            ),
        }],
    );
    assert!(!has_code(&cluster, "beyond-namespaces", None), "{cluster:#?}");
}

/// Found in review: a bundle RoleBinding that names no namespace, applied as
/// it is (`bundleObjects: Keep`), lands in whatever namespace it is applied
/// in: beyond the chosen namespaces, said; outside a namespace-scoped allow, refused.
#[test]
fn a_bundle_rolebinding_without_a_namespace_may_land_anywhere() {
    let objects = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: secrets-reader\nrules:\n- {apiGroups: [''], resources: [secrets], verbs: [get]}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: secrets-reader\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: secrets-reader}\nsubjects:\n- {kind: ServiceAccount, name: ack-s3-controller, namespace: ops}\n";
    let mut inputs = sources("ack-s3-controller-1.10.0");
    inputs.push(Source { name: "ack-s3-controller-1.10.0/manifests/zz-rbac.yaml".into(), text: objects.into() });
    let spec = "  operator:\n    permissions: Namespaces\n    installNamespace: ops\n    targetNamespaces: [team-a]\n    policy:\n      allow:\n      - {apiGroups: [''], resources: [secrets], verbs: [get], scope: Namespaces}\n";
    let out = render(&inputs, &[Source { name: "admin/rbac.yaml".into(), text: config("ack-s3", spec) }]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("in namespace(s) (the namespace it is applied in), beyond the namespaces spec.operator chose"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("error: Role secrets-reader: rules[0]: install policy:"), "{}", out.stderr);
}
