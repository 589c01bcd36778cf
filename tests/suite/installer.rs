//! The installer account (`spec.installer`): derived from real bundles, it is
//! sufficient (every write the install makes and every grant it gives is
//! allowed, through the offline evaluator), minimal (removing any one rule
//! makes one of them fail), compared rule by rule with OLM v1's hand-derived
//! account for argocd-operator 0.6.0, and `Check` mode names what an existing
//! account lacks.

use k8s_openapi::api::rbac::v1::PolicyRule;
use serde_json::Value;

use crate::common::*;
use crate::invariant::policy;
use olm_rbac::access::cover::{self, Atom};
use olm_rbac::access::Identity;
use olm_rbac::run::{function, render, Outcome, Source};

const NS: &str = "argocd";

fn installer_spec(olm: &str, extra: &str) -> String {
    format!("  installer:\n    serviceAccount: {{name: argocd-installer, namespace: {NS}}}\n    for: {olm}\n{extra}")
}

fn sources(bundle: &str) -> Vec<Source> {
    bundle_docs(bundle)
        .into_iter()
        .map(|(name, text)| Source { name: format!("{bundle}/manifests/{name}"), text })
        .collect()
}

fn render_with(sources: Vec<Source>, name: &str, spec: &str) -> Outcome {
    render(&sources, &[Source { name: "admin/rbac.yaml".into(), text: config(name, spec) }])
}

fn yaml_docs(text: &str) -> Vec<Value> {
    olm_rbac::yaml::split_documents(text)
        .unwrap()
        .iter()
        .filter_map(|d| serde_saphyr::from_str::<Value>(&d.text).ok())
        .collect()
}

/// The rules of the installer's roles in `output`, by place (`None`: cluster-wide).
fn installer_rules(output: &str) -> Vec<(Option<String>, Vec<PolicyRule>)> {
    yaml_docs(output)
        .into_iter()
        .filter(|d| d["metadata"]["labels"]["olm-rbac.io/role"] == "installer")
        .filter(|d| d["kind"] == "ClusterRole" || d["kind"] == "Role")
        .map(|d| {
            let place = d["metadata"]["namespace"].as_str().map(String::from);
            (place, serde_json::from_value(d["rules"].clone()).unwrap())
        })
        .collect()
}

/// One thing the install must be allowed: a permission, where.
#[derive(Debug, Clone)]
struct Check {
    namespace: Option<String>,
    atom: Atom,
    what: String,
    /// A permission to hold (for the escalation check, which compares rules:
    /// a Role may name cluster-scoped resources) rather than a request to make.
    hold: bool,
}

fn checks_for(namespace: Option<&str>, rule: &PolicyRule, what: &str) -> Vec<Check> {
    cover::atoms(rule)
        .into_iter()
        .map(|atom| Check { namespace: namespace.map(String::from), atom, what: what.to_string(), hold: true })
        .collect()
}

fn rule(group: &str, resource: &str, verbs: &[&str], name: Option<&str>) -> PolicyRule {
    PolicyRule {
        api_groups: Some(vec![group.into()]),
        resources: Some(vec![resource.into()]),
        verbs: verbs.iter().map(|v| v.to_string()).collect(),
        resource_names: name.map(|n| vec![n.to_string()]),
        non_resource_urls: None,
    }
}

/// Writing one object: creating it (no name: Kubernetes authorizes creates
/// before the name is known), and reading, changing and deleting it by name.
fn writes(namespace: Option<&str>, group: &str, resource: &str, name: &str) -> Vec<Check> {
    let mut out = checks_for(namespace, &rule(group, resource, &["create", "list", "watch"], None), name);
    out.extend(checks_for(namespace, &rule(group, resource, &["get", "update", "patch", "delete"], Some(name)), name));
    out.iter_mut().for_each(|c| c.hold = false);
    out
}

/// Everything installing `bundle` (promoted to all namespaces, as OLM v1 does
/// for an operator that supports it) takes, read from the bundle without
/// olm-rbac: its objects, the CSV's Deployments and ServiceAccounts, the
/// operator's RBAC objects (any name: OLM hashes them), and every rule the
/// operator is granted.
fn install_checks(bundle: &str, scoped: Option<&[&str]>, olm: &str) -> Vec<Check> {
    let mut checks = Vec::new();
    let mut grants = Vec::new();
    for (file, doc) in bundle_docs(bundle) {
        let v: Value = serde_saphyr::from_str(&doc).unwrap();
        let name = v["metadata"]["name"].as_str().unwrap_or_default().to_string();
        let kind = v["kind"].as_str().unwrap_or_default();
        let (group, resource, cluster) = match kind {
            // OLM v0 creates CRDs with its own rights.
            "CustomResourceDefinition" if olm == "OLMv0" => continue,
            "CustomResourceDefinition" => ("apiextensions.k8s.io", "customresourcedefinitions", true),
            "ClusterRole" => ("rbac.authorization.k8s.io", "clusterroles", true),
            "Service" => ("", "services", false),
            "ConfigMap" => ("", "configmaps", false),
            "ServiceMonitor" => ("monitoring.coreos.com", "servicemonitors", false),
            "Role" => ("rbac.authorization.k8s.io", "roles", false),
            "ClusterServiceVersion" => {
                if olm == "OLMv0" {
                    checks.extend(writes(Some(NS), "operators.coreos.com", "clusterserviceversions", &name));
                    let subscription = rule(
                        "operators.coreos.com",
                        "subscriptions",
                        &["get", "update", "patch"],
                        Some("my-subscription"),
                    );
                    checks.extend(checks_for(Some(NS), &subscription, "update the Subscription"));
                }
                let spec = &v["spec"]["install"]["spec"];
                for d in spec["deployments"].as_array().into_iter().flatten() {
                    checks.extend(writes(Some(NS), "apps", "deployments", d["name"].as_str().unwrap()));
                }
                for (key, cluster) in [("permissions", false), ("clusterPermissions", true)] {
                    for e in spec[key].as_array().into_iter().flatten() {
                        checks.extend(writes(
                            Some(NS),
                            "",
                            "serviceaccounts",
                            e["serviceAccountName"].as_str().unwrap(),
                        ));
                        for r in e["rules"].as_array().into_iter().flatten() {
                            grants.push((cluster, serde_json::from_value::<PolicyRule>(r.clone()).unwrap()));
                        }
                    }
                }
                continue;
            }
            other => panic!("{file}: add kind {other} to this test"),
        };
        checks.extend(writes((!cluster).then_some(NS), group, resource, &name));
        if kind == "ClusterRole" || kind == "Role" {
            let rules: Vec<PolicyRule> = serde_json::from_value(v["rules"].clone()).unwrap();
            for r in &rules {
                checks.extend(checks_for((!cluster).then_some(NS), r, &format!("write {kind} {name}")));
            }
        }
    }
    // The operator's ClusterRoles: for clusterPermissions, and for promoted permissions.
    if grants.iter().any(|(cluster, _)| *cluster || scoped.is_none()) {
        for resource in ["clusterroles", "clusterrolebindings"] {
            checks.extend(writes(None, "rbac.authorization.k8s.io", resource, "operator.v0-hash"));
        }
    }
    for (cluster, r) in &grants {
        match scoped {
            Some(namespaces) if !cluster => {
                for ns in namespaces {
                    checks.extend(checks_for(Some(ns), r, "grant the operator its rule there"));
                    for resource in ["roles", "rolebindings"] {
                        checks.extend(writes(Some(ns), "rbac.authorization.k8s.io", resource, "operator.v0-hash"));
                    }
                }
            }
            _ => checks.extend(checks_for(None, r, "grant the operator its rule")),
        }
    }
    if scoped.is_none() {
        let namespaces = rule("", "namespaces", &["get", "list", "watch"], None);
        checks.extend(checks_for(None, &namespaces, "grant the promoted operator namespaces"));
    }
    checks
}

/// Is `check` allowed by these rules, cluster-wide ones applying everywhere?
fn allowed_by(rules: &[(Option<String>, Vec<PolicyRule>)], check: &Check) -> bool {
    let held: Vec<PolicyRule> = rules
        .iter()
        .filter(|(place, _)| place.is_none() || *place == check.namespace)
        .flat_map(|(_, r)| r.iter().cloned())
        .collect();
    cover::covers(&held, &[check.atom.to_rule()])
}

/// Does the bundle's operator support the AllNamespaces install mode?
fn all_namespaces(bundle: &str) -> bool {
    let csv = docs_of(bundle).into_iter().find(|d| d.contains("\nkind: ClusterServiceVersion\n")).unwrap();
    let v: Value = serde_saphyr::from_str(&csv).unwrap();
    v["spec"]["installModes"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|m| m["type"] == "AllNamespaces" && m["supported"] == true)
}

fn assert_sufficient_and_minimal(bundle: &str, olm: &str, operator: &str, scoped: Option<&[&str]>) {
    let out = render_with(sources(bundle), "argocd", &format!("{operator}{}", installer_spec(olm, "")));
    assert_eq!(out.code, 0, "{bundle}: {}", out.stderr);
    let mut checks = install_checks(bundle, scoped, olm);
    if olm == "OLMv1" {
        let finalizers = rule("olm.operatorframework.io", "clusterextensions/finalizers", &["update"], Some("argocd"));
        checks.extend(checks_for(None, &finalizers, "ClusterExtension finalizer"));
        let revisions = rule("olm.operatorframework.io", "clusterobjectsets/finalizers", &["update"], None);
        checks.extend(checks_for(None, &revisions, "ClusterObjectSet finalizers"));
    }
    // Sufficient, through the evaluator: every resource permission is allowed.
    let p = policy(&out.stdout);
    let sa = Identity::new(&format!("system:serviceaccount:{NS}:argocd-installer"), &[]);
    let rules = installer_rules(&out.stdout);
    for c in &checks {
        match request_for(&c.atom, c.namespace.as_deref()).filter(|_| !c.hold) {
            Some(req) => assert!(
                p.can(&sa, &req).is_some(),
                "{bundle}: the installer cannot {:?} in {:?} ({})",
                c.atom,
                c.namespace,
                c.what
            ),
            None => assert!(allowed_by(&rules, c), "{bundle}: the installer does not hold {:?} ({})", c.atom, c.what),
        }
    }
    // Minimal: without any one rule, something the install takes is refused.
    // A check is one permission, which one rule grants whole or not at all, so
    // a rule is needed exactly when some check is allowed by it and no other.
    let mut needed: Vec<Vec<bool>> = rules.iter().map(|(_, list)| vec![false; list.len()]).collect();
    for c in &checks {
        let mut allowing = rules.iter().enumerate().flat_map(|(i, (place, list))| {
            let applies = place.is_none() || *place == c.namespace;
            list.iter()
                .enumerate()
                .filter(move |(_, r)| applies && cover::covers(std::slice::from_ref(*r), &[c.atom.to_rule()]))
                .map(move |(j, _)| (i, j))
        });
        if let (Some((i, j)), None) = (allowing.next(), allowing.next()) {
            needed[i][j] = true;
        }
    }
    for (i, (place, list)) in rules.iter().enumerate() {
        for (j, spare) in list.iter().enumerate() {
            assert!(needed[i][j], "{bundle}: rule {j} of the installer's role in {place:?} is not needed: {spare:?}");
        }
    }
    assert!(rules.iter().map(|(_, r)| r.len()).sum::<usize>() > 5, "{bundle}");
}

#[test]
fn the_generated_installer_can_do_everything_the_install_takes_and_no_rule_is_spare() {
    // As OLM installs each bundle: promoted to all namespaces where the operator supports it.
    // The bundles side by side: each is a render and a proof of its own.
    std::thread::scope(|s| {
        for bundle in bundle_names() {
            s.spawn(move || {
                for olm in ["OLMv0", "OLMv1"] {
                    let scoped: Option<&[&str]> = if all_namespaces(&bundle) { None } else { Some(&[NS]) };
                    assert_sufficient_and_minimal(&bundle, olm, "", scoped);
                }
            });
        }
    });
    // Scoped by spec.operator: the operator's Roles, and so the installer's rights, in two namespaces.
    let scoped = format!(
        "  operator:\n    permissions: Namespaces\n    installNamespace: {NS}\n    targetNamespaces: [team-a]\n"
    );
    assert_sufficient_and_minimal("ack-s3-controller-1.10.0", "OLMv1", &scoped, Some(&[NS, "team-a"]));
    assert_sufficient_and_minimal("ack-s3-controller-1.10.0", "OLMv0", &scoped, Some(&[NS, "team-a"]));
}

/// The reference account's rules, by place: OLM v1's guide's ClusterRoles and
/// Role for argocd-operator 0.6.0.
fn reference_rules() -> Vec<(Option<String>, Vec<PolicyRule>)> {
    let text =
        std::fs::read_to_string(repo("tests/fixtures/reference/olmv1-argocd-0.6.0-installer-sample.yaml")).unwrap();
    yaml_docs(&text)
        .into_iter()
        .filter(|d| d["kind"] == "ClusterRole" || d["kind"] == "Role")
        .map(|d| {
            (d["metadata"]["namespace"].as_str().map(String::from), serde_json::from_value(d["rules"].clone()).unwrap())
        })
        .collect()
}

/// Permissions one set of roles grants that the other does not, per place.
fn beyond(a: &[(Option<String>, Vec<PolicyRule>)], b: &[(Option<String>, Vec<PolicyRule>)]) -> Vec<String> {
    let mut out = Vec::new();
    for (place, rules) in a {
        for r in rules {
            for atom in cover::atoms(r) {
                let c = Check { namespace: place.clone(), atom: atom.clone(), what: String::new(), hold: true };
                if !allowed_by(b, &c) {
                    out.push(format!("{place:?} {}", olm_rbac::access::describe_rule(&atom.to_rule())));
                }
            }
        }
    }
    out
}

/// Rule by rule against OLM v1's guide: the differences are exactly these,
/// each explained in docs/installer-account.md.
#[test]
fn compared_with_olm_v1s_hand_derived_account() {
    let out = render_with(sources("argocd-operator-0.6.0"), "argocd", &installer_spec("OLMv1", ""));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ours = installer_rules(&out.stdout);
    let reference = reference_rules();
    // More than the guide: what the install grants cluster-wide, which the
    // guide's account may create only through `escalate` (part of its `*` on
    // rbac.authorization.k8s.io): leases (the operator's `permissions`, which
    // OLM v1 promotes to a ClusterRole for an all-namespaces install) and
    // /metrics (the bundle's metrics-reader ClusterRole).
    let leases: Vec<String> = ["get", "list", "watch", "create", "update", "patch", "delete"]
        .iter()
        .map(|v| format!("None verbs=[{v}] apiGroups=[coordination.k8s.io] resources=[leases]"))
        .collect();
    let mut expected_extra = leases;
    expected_extra.push("None verbs=[get] nonResourceURLs=[/metrics]".into());
    assert_eq!(beyond(&ours, &reference), expected_extra);
    // Less than the guide: nothing.
    assert_eq!(beyond(&reference, &ours), Vec::<String>::new());
}

#[test]
fn check_mode_names_what_an_existing_account_lacks() {
    let mut inputs = sources("argocd-operator-0.6.0");
    let reference =
        std::fs::read_to_string(repo("tests/fixtures/reference/olmv1-argocd-0.6.0-installer-sample.yaml")).unwrap();
    inputs.push(Source { name: "admin/installer.yaml".into(), text: reference });
    let out = render_with(inputs.clone(), "argocd", &installer_spec("OLMv1", "    mode: Check\n"));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.is_empty(), "no partial output");
    let errors: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(
        errors,
        [
            "error: ServiceAccount argocd/argocd-installer: installer ServiceAccount argocd/argocd-installer cannot grant the operator spec.install.spec.permissions[0].rules[1]: it lacks verbs=[get,list,watch,create,update,patch,delete] apiGroups=[coordination.k8s.io] resources=[leases] cluster-wide",
            "error: ServiceAccount argocd/argocd-installer: installer ServiceAccount argocd/argocd-installer cannot write the bundle's ClusterRole argocd-operator-metrics-reader: it lacks verbs=[get] nonResourceURLs=[/metrics] cluster-wide",
        ],
        "{}",
        out.stderr
    );
    let doc = std::fs::read_to_string(repo("docs/installer-account.md")).unwrap();
    for e in &errors {
        assert!(doc.contains(e), "docs/installer-account.md quotes {e}");
    }
    // The account olm-rbac generates passes the check, once it is the admin's.
    let generated = render_with(sources("argocd-operator-0.6.0"), "argocd", &installer_spec("OLMv1", ""));
    let mut with_generated = sources("argocd-operator-0.6.0");
    let account: String = olm_rbac::yaml::split_documents(&generated.stdout)
        .unwrap()
        .iter()
        .filter(|d| d.header.labels.get("olm-rbac.io/role").map(String::as_str) == Some("installer"))
        .map(|d| format!("---\n{}", d.text.replace("managed-by: olm-rbac", "managed-by: the-admin")))
        .collect();
    with_generated.push(Source { name: "admin/installer.yaml".into(), text: account });
    let checked = render_with(with_generated, "argocd", &installer_spec("OLMv1", "    mode: Check\n"));
    assert_eq!(checked.code, 0, "{}", checked.stderr);
}

fn krm(bundle: &str, spec: &str) -> Outcome {
    // As kpt sends it: the earlier output, in the config's output file, is the admin's.
    function(&resource_list(&kpt_items(bundle), &as_kpt_sends(&config("argocd", spec))))
}

#[test]
fn idempotent_deterministic_and_reverted_like_everything_olm_rbac_writes() {
    let spec = installer_spec("OLMv0", "");
    let first = krm("ack-s3-controller-1.10.0", &spec);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let without_paths = function(&resource_list(&docs_of("ack-s3-controller-1.10.0"), &config("argocd", &spec)));
    assert!(
        without_paths.stdout.contains("so every object beside it that a bundle may ship counts as the bundle's"),
        "without paths, said so"
    );
    assert_eq!(
        count(&first.stdout, "olm-rbac.io/role: installer"),
        5,
        "ServiceAccount, ClusterRole, binding, Role, binding"
    );
    let second = function(&first.stdout);
    assert_same_text(&second.stdout, &first.stdout, "a second run");
    assert!(krm("ack-s3-controller-1.10.0", &spec) == first, "deterministic");
    let items = &first.stdout[..first.stdout.find("functionConfig:").unwrap()];
    let unmanaged: String = config("argocd", "  mode: Unmanaged\n").lines().map(|l| format!("  {l}\n")).collect();
    let reverted = function(&format!("{items}functionConfig:\n{unmanaged}"));
    assert_eq!(reverted.code, 0, "{}", reverted.stderr);
    assert_eq!(count(&reverted.stdout, "olm-rbac.io/role: installer"), 0, "everything the installer had is gone");
    assert_eq!(count(&reverted.stdout, "removed: olm-rbac generated it"), 5, "and each removal is reported");
}

#[test]
fn a_bundle_cannot_make_the_installer_hold_what_it_cannot_name() {
    let binding = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: extra\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects:\n- {kind: ServiceAccount, name: ack-s3-controller, namespace: argocd}\n";
    let odd = "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n";
    let mut inputs = sources("ack-s3-controller-1.10.0");
    for (i, text) in [binding, odd].iter().enumerate() {
        inputs.push(Source {
            name: format!("ack-s3-controller-1.10.0/manifests/extra-{i}.yaml"),
            text: text.to_string(),
        });
    }
    let out = render_with(inputs, "argocd", &installer_spec("OLMv1", ""));
    assert_eq!(out.code, 1);
    assert!(out.stdout.is_empty(), "no partial output");
    assert!(out.stderr.contains("error: ClusterRoleBinding extra: roleRef: spec.installer: the bundle binds ClusterRole \"cluster-admin\", which it does not ship: the installer would have to hold whatever that grants"), "{}", out.stderr);
    assert!(out.stderr.contains("error: Gadget.example.com g: spec.installer: olm-rbac does not know which API resource kind Gadget of example.com/v1 is"), "{}", out.stderr);
}

/// The installer resolves a bundle binding's role as the kernel does, where
/// OLM puts both: a ClusterRoleBinding cannot bind a Role (the API server
/// refuses it), whatever Role of that name the bundle ships.
#[test]
fn a_binding_resolves_its_role_where_olm_places_both() {
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: leases\n  namespace: elsewhere\nrules:\n- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get]}\n";
    let in_place = "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: leases\n  namespace: other\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: leases}\nsubjects:\n- {kind: ServiceAccount, name: ack-s3-controller}\n";
    let cluster_wide = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: leases-everywhere\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: leases}\nsubjects:\n- {kind: ServiceAccount, name: ack-s3-controller, namespace: argocd}\n";
    let with = |extra: &[&str]| {
        let mut inputs = sources("ack-s3-controller-1.10.0");
        for (i, text) in extra.iter().enumerate() {
            inputs.push(Source {
                name: format!("ack-s3-controller-1.10.0/manifests/extra-{i}.yaml"),
                text: text.to_string(),
            });
        }
        render_with(inputs, "argocd", &installer_spec("OLMv1", ""))
    };
    // Both land in the install namespace, whatever namespaces they name: found.
    let placed = with(&[role, in_place]);
    assert!(!placed.stderr.contains("which it does not ship"), "{}", placed.stderr);
    // A ClusterRoleBinding to a Role binds nothing the bundle ships.
    let out = with(&[role, cluster_wide]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("error: ClusterRoleBinding leases-everywhere: roleRef: spec.installer: the bundle binds Role \"leases\", which it does not ship"), "{}", out.stderr);
}

#[test]
fn the_installer_and_the_operator_share_the_install_namespace() {
    let spec = format!(
        "  operator:\n    permissions: Namespaces\n    installNamespace: elsewhere\n{}",
        installer_spec("OLMv1", "")
    );
    let out = render_with(sources("ack-s3-controller-1.10.0"), "argocd", &spec);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("spec.installer.serviceAccount.namespace: is \"argocd\", but spec.operator.installNamespace is \"elsewhere\""), "{}", out.stderr);
}

/// The documents of a render's output that olm-rbac wrote for the installer.
fn installer_account(rendered: &str) -> Vec<String> {
    rendered.split("---\n").filter(|d| d.contains("olm-rbac.io/role: installer")).map(String::from).collect()
}

/// `Check` accepts, as the admin's files, the account `Generate` wrote for the
/// same bundle: the account is kept as it stands, not replaced as earlier output.
#[test]
fn check_accepts_the_account_generate_wrote_for_the_same_bundle() {
    let names = bundle_names();
    for olm in ["OLMv0", "OLMv1"] {
        let mut checked = 0;
        for bundle in &names {
            let generated = render_with(sources(bundle), "argocd", &installer_spec(olm, "    mode: Generate\n"));
            if generated.code != 0 {
                continue;
            }
            let account = installer_account(&generated.stdout);
            assert!(account.len() >= 3, "{bundle} {olm}: a ServiceAccount, a role and its binding");
            let mut inputs = sources(bundle);
            inputs.push(Source { name: "admin/installer.yaml".into(), text: account.join("---\n") });
            let check = render_with(inputs, "argocd", &installer_spec(olm, "    mode: Check\n"));
            assert_eq!(check.code, 0, "{bundle} {olm}: {}", check.stderr);
            assert!(!check.stderr.contains("removed: "), "{bundle} {olm}: {}", check.stderr);
            for doc in &account {
                assert!(check.stdout.contains(doc.as_str()), "{bundle} {olm}: the account comes out as it went in");
            }
            checked += 1;
        }
        assert!(checked * 2 > names.len(), "{olm}: only {checked} of {} bundles", names.len());
    }
    // And the check is real: the same account without the rule that writes the
    // bundle's metrics-reader role is refused, naming what it lacks.
    let generated = render_with(sources("argocd-operator-0.19.0"), "argocd", &installer_spec("OLMv1", ""));
    let account = installer_account(&generated.stdout).join("---\n");
    let metrics = "- nonResourceURLs:\n  - /metrics\n  verbs:\n  - get\n";
    assert!(account.contains(metrics), "{account}");
    let mut inputs = sources("argocd-operator-0.19.0");
    inputs.push(Source { name: "admin/installer.yaml".into(), text: account.replace(metrics, "") });
    let check = render_with(inputs, "argocd", &installer_spec("OLMv1", "    mode: Check\n"));
    assert_eq!(check.code, 1, "{}", check.stderr);
    assert!(
        check.stderr.contains("cannot write the bundle's ClusterRole argocd-operator-metrics-reader: it lacks verbs=[get] nonResourceURLs=[/metrics] cluster-wide"),
        "{}",
        check.stderr
    );
}

/// A copy of the installer role `Generate` writes, with one rule widened, is
/// not this run's output: in the bundle's folder it is judged as the bundle's
/// and refused as a clash; on stdin it is replaced, and judged all the same.
#[test]
fn a_widened_copy_of_the_installer_role_is_judged_as_the_bundles() {
    let spec = installer_spec("OLMv1", "");
    let generated = render_with(sources("argocd-operator-0.19.0"), "argocd", &spec);
    assert_eq!(generated.code, 0, "{}", generated.stderr);
    let role = installer_account(&generated.stdout)
        .into_iter()
        .find(|d| d.contains("\nkind: ClusterRole\n"))
        .expect("the installer's ClusterRole");
    let widened = role.replacen("  - /metrics\n  verbs:\n  - get\n", "  - /metrics\n  verbs:\n  - get\n  - post\n", 1);
    assert_ne!(widened, role);
    let judged = "ClusterRole argocd-installer: rules[";
    // Exactly the role, in the bundle's folder: written again, not judged.
    let mut inputs = sources("argocd-operator-0.19.0");
    inputs.push(Source { name: "argocd-operator-0.19.0/manifests/installer.yaml".into(), text: role.clone() });
    let same = render_with(inputs, "argocd", &spec);
    assert_eq!(same.code, 0, "{}", same.stderr);
    assert!(!same.stderr.contains(judged), "{}", same.stderr);
    // Widened, in the bundle's folder: the bundle's, judged, and a clash.
    let mut inputs = sources("argocd-operator-0.19.0");
    inputs.push(Source { name: "argocd-operator-0.19.0/manifests/installer.yaml".into(), text: widened.clone() });
    let forged = render_with(inputs, "argocd", &spec);
    assert_refused_as_a_forged_copy(&forged, "argocd-installer");
    // Widened, in a saved output on stdin: replaced by the role this run writes,
    // and judged as the bundle's, since the bundle could have shipped it.
    let saved = generated.stdout.replacen(&role, &widened, 1);
    assert_ne!(saved, generated.stdout);
    let again = render(
        &[Source { name: "-".into(), text: saved }],
        &[Source { name: "admin/rbac.yaml".into(), text: config("argocd", &spec) }],
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(again.stdout, generated.stdout, "the widened role is replaced by the one this run writes");
    assert!(again.stderr.contains(judged), "{}", again.stderr);
}

/// A bundle cannot pass off an account of its own as the one `Check`
/// measures: a copy of `Generate`'s account, labels and all, counts as held
/// only from the admin's files. In the bundle's folder, or on stdin, it holds
/// nothing, and the check fails.
#[test]
fn a_bundle_cannot_ship_the_account_check_measures() {
    let generated = render_with(sources("argocd-operator-0.19.0"), "argocd", &installer_spec("OLMv1", ""));
    let account = installer_account(&generated.stdout).join("---\n");
    let check = installer_spec("OLMv1", "    mode: Check\n");
    let mut inputs = sources("argocd-operator-0.19.0");
    inputs.push(Source { name: "argocd-operator-0.19.0/manifests/installer.yaml".into(), text: account.clone() });
    let shipped = render_with(inputs, "argocd", &check);
    assert_eq!(shipped.code, 1, "{}", shipped.stderr);
    assert!(shipped.stdout.is_empty(), "no partial output");
    assert!(
        shipped.stderr.contains(&format!("installer ServiceAccount {NS}/argocd-installer cannot ")),
        "{}",
        shipped.stderr
    );
    let mut stream: String = docs_of("argocd-operator-0.19.0").join("---\n");
    stream.push_str("---\n");
    stream.push_str(&account);
    let piped = render(
        &[Source { name: "-".into(), text: stream }],
        &[Source { name: "admin/rbac.yaml".into(), text: config("argocd", &check) }],
    );
    assert_eq!(piped.code, 1, "{}", piped.stderr);
}

/// On stdin the installer counts every object a bundle may ship as the
/// bundle's, so a role the stream carries is one the account must hold to
/// write. That cannot slip past the gate: the role is judged as the bundle's,
/// said without a policy and refused under one that denies what it grants.
#[test]
fn a_role_on_stdin_the_installer_must_hold_is_judged_as_the_bundles() {
    let evil = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: evil\nrules:\n- apiGroups: ['']\n  resources: [secrets]\n  verbs: [get, list]\n";
    let mut stream: String = docs_of("argocd-operator-0.19.0").join("---\n");
    stream.push_str("---\n");
    stream.push_str(evil);
    let run = |spec: &str| {
        render(
            &[Source { name: "-".into(), text: stream.clone() }],
            &[Source { name: "admin/rbac.yaml".into(), text: config("argocd", spec) }],
        )
    };
    let warned = run(&installer_spec("OLMv1", ""));
    assert_eq!(warned.code, 0, "{}", warned.stderr);
    assert!(warned.stderr.contains("the input does not say which folder is the bundle's"), "{}", warned.stderr);
    assert!(
        warned.stderr.contains(&format!("warning: ClusterRole evil: rules[0]: installer ServiceAccount {NS}/argocd-installer (which must hold what it writes) would be granted")),
        "{}",
        warned.stderr
    );
    let deny = "  operator:\n    policy:\n      deny:\n      - {apiGroups: [''], resources: [secrets], verbs: [get], scope: Cluster}\n";
    let refused = run(&format!("{deny}{}", installer_spec("OLMv1", "")));
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(refused.stdout.is_empty(), "no partial output");
    assert!(refused.stderr.contains("error: ClusterRole evil: rules[0]: "), "{}", refused.stderr);
}
