//! The install gate as a bundle author would attack it: grants to subjects
//! other than the operator's own accounts, roles named like Kubernetes' own,
//! grants wider than the admin allowed, OLM's promotion, provenance the
//! bundle writes itself, and an installer account that only looks sufficient.
//! Each case runs every way the input can arrive: `render` with named files,
//! `render` on stdin, and the KRM function (with and without the runner's
//! path annotations).

use crate::common::*;
use olm_rbac::run::{function, render, Outcome, Source};

pub(crate) const ACK: &str = "ack-s3-controller-1.10.0";
const OWN: &str = "ack-s3-controller";

const NAMESPACES: &str =
    "  operator:\n    permissions: Namespaces\n    installNamespace: ops\n    targetNamespaces: [team-a]\n";

/// A ceiling that covers ack's own CSV and reading configmaps.
pub(crate) const ALLOW: &str = "    policy:
      allow:
      - {apiGroups: [coordination.k8s.io], resources: [leases], verbs: ['*']}
      - {apiGroups: [''], resources: [events], verbs: [create, patch]}
      - {apiGroups: [''], resources: [configmaps, secrets, namespaces], verbs: [get, list, watch, patch]}
      - {apiGroups: [s3.services.k8s.aws, services.k8s.aws, iam.services.k8s.aws], resources: ['*'], verbs: ['*']}
";

/// The ways one input reaches olm-rbac.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Way {
    /// `render` with files named on the command line.
    Files,
    /// `render -`.
    Stdin,
    /// The KRM function with kpt's path annotations on every item.
    KptPaths,
    /// The KRM function with no path annotations (a runner that names no files).
    NoPaths,
}

const WAYS: [Way; 4] = [Way::Files, Way::Stdin, Way::KptPaths, Way::NoPaths];

/// ack's manifests (under `bundle/manifests/` unless `root` says otherwise)
/// plus `extra` documents at their paths, rendered with `spec` one `way`.
fn run(way: Way, extra: &[(&str, &str)], spec: &str) -> Outcome {
    run_coded(way, extra, spec).0
}

/// [`run`], with its results' codes: the function's every result, render's
/// errors and warnings.
fn run_coded(way: Way, extra: &[(&str, &str)], spec: &str) -> (Outcome, Vec<Coded>) {
    let mut docs: Vec<(String, String)> =
        bundle_docs(ACK).into_iter().map(|(name, text)| (format!("bundle/manifests/{name}"), text)).collect();
    docs.extend(extra.iter().map(|(p, t)| (p.to_string(), t.to_string())));
    let cfg = config("ext", spec);
    let coded = |out: Outcome| {
        let results = function_results(&out);
        (out, results)
    };
    match way {
        Way::Files => render_results(
            &docs.into_iter().map(|(name, text)| Source { name, text }).collect::<Vec<_>>(),
            &[Source { name: "admin/rbac.yaml".into(), text: cfg }],
        ),
        Way::Stdin => {
            let text: String = docs.iter().map(|(_, t)| format!("---\n{t}")).collect();
            render_results(
                &[Source { name: "-".into(), text }],
                &[Source { name: "admin/rbac.yaml".into(), text: cfg }],
            )
        }
        Way::KptPaths => {
            let items: Vec<String> =
                docs.iter().map(|(p, t)| with_annotation(t, "internal.config.kubernetes.io/path", p)).collect();
            coded(function(&resource_list(&items, &as_kpt_sends(&cfg))))
        }
        Way::NoPaths => coded(function(&resource_list(&docs.into_iter().map(|(_, t)| t).collect::<Vec<_>>(), &cfg))),
    }
}

/// `doc` with one more annotation (the doc's `metadata:` is a block map).
pub(crate) fn with_annotation(doc: &str, key: &str, value: &str) -> String {
    let line = format!("    {key}: {value:?}\n");
    if doc.contains("\n  annotations:\n") {
        doc.replacen("\n  annotations:\n", &format!("\n  annotations:\n{line}"), 1)
    } else {
        doc.replacen("\nmetadata:\n", &format!("\nmetadata:\n  annotations:\n{line}"), 1)
    }
}

/// The results of a run, however it reports them.
pub(crate) fn said(out: &Outcome) -> String {
    format!("{}{}", out.stdout, out.stderr)
}

fn binding(kind: &str, name: &str, namespace: Option<&str>, role: (&str, &str), subject: &str) -> String {
    let ns = namespace.map_or(String::new(), |n| format!("  namespace: {n}\n"));
    format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: {name}\n{ns}roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: {}, name: {}}}\nsubjects:\n- {subject}\n",
        role.0, role.1
    )
}

fn cluster_role(name: &str, rule: &str) -> String {
    format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {name}\nrules:\n- {rule}\n"
    )
}

const READ_CONFIGMAPS: &str = "{apiGroups: [''], resources: [configmaps], verbs: [get]}";
const EVERYTHING: &str = "{apiGroups: ['*'], resources: ['*'], verbs: ['*']}";

fn own_account() -> String {
    format!("{{kind: ServiceAccount, name: {OWN}, namespace: ops}}")
}

#[test]
fn a_bundle_may_grant_only_its_own_service_accounts() {
    let strangers = [
        "{kind: Group, name: 'system:authenticated', apiGroup: rbac.authorization.k8s.io}",
        "{kind: Group, name: 'system:unauthenticated'}",
        "{kind: Group, name: 'system:serviceaccounts', apiGroup: rbac.authorization.k8s.io}",
        "{kind: User, name: bob}",
        "{kind: ServiceAccount, name: default, namespace: kube-system}",
        "{kind: ServiceAccount, name: ack-s3-controller, namespace: elsewhere}",
    ];
    let role = cluster_role("ack-reader", READ_CONFIGMAPS);
    for stranger in strangers {
        for (kind, ns) in [("ClusterRoleBinding", None), ("RoleBinding", Some("ops"))] {
            let b = binding(kind, "ack-reader", ns, ("ClusterRole", "ack-reader"), stranger);
            let extra = [("bundle/manifests/r.yaml", role.as_str()), ("bundle/manifests/b.yaml", b.as_str())];
            for way in WAYS {
                let (out, coded) = run_coded(way, &extra, &format!("{NAMESPACES}{ALLOW}"));
                assert_eq!(out.code, 1, "{way:?} {kind} {stranger}: {}", said(&out));
                assert!(has_code(&coded, "subject-foreign", Some("error")), "{way:?}: {coded:#?}");
                // Without a policy that decides anything, the same is a warning.
                let (out, coded) = run_coded(way, &extra, NAMESPACES);
                assert_eq!(out.code, 0, "{way:?} {stranger}: {}", said(&out));
                assert!(has_code(&coded, "subject-foreign", Some("warning")), "{way:?}: {coded:#?}");
            }
        }
    }
    // Its own account, bound to what the ceiling allows, passes.
    let b = binding("ClusterRoleBinding", "ack-reader", None, ("ClusterRole", "ack-reader"), &own_account());
    let extra = [("bundle/manifests/r.yaml", role.as_str()), ("bundle/manifests/b.yaml", b.as_str())];
    for way in WAYS {
        let out = run(way, &extra, &format!("{NAMESPACES}{ALLOW}"));
        assert_eq!(out.code, 0, "{way:?}: {}", said(&out));
    }
}

#[test]
fn a_role_named_like_a_built_in_one_is_judged_as_the_built_in_one() {
    for name in ["admin", "edit", "view", "cluster-admin", "system:aggregate-to-admin"] {
        let role = cluster_role(name, READ_CONFIGMAPS);
        let b = binding("ClusterRoleBinding", "ack-extra", None, ("ClusterRole", name), &own_account());
        let extra = [("bundle/manifests/r.yaml", role.as_str()), ("bundle/manifests/b.yaml", b.as_str())];
        for way in WAYS {
            let out = run(way, &extra, &format!("{NAMESPACES}{ALLOW}"));
            assert_eq!(out.code, 1, "{way:?} {name}: {}", said(&out));
            let text = said(&out);
            assert!(
                text.contains(&format!(
                    "the bundle ships a ClusterRole named {name:?}, the name of a role Kubernetes itself keeps"
                )),
                "{way:?}: {text}"
            );
            // Judged as the cluster's role (Kubernetes' bootstrap policy), not the bundle's one rule:
            // every one of these holds more than reading configmaps.
            let judged = "(through the bundle's ClusterRoleBinding ack-extra) would be granted";
            assert!(
                text.contains(judged) && text.contains("beyond spec.operator.policy.allow"),
                "{way:?} {name}: {text}"
            );
            if name == "cluster-admin" {
                assert!(text.contains("would be granted verbs=[*] apiGroups=[*] resources=[*] cluster-wide, beyond"));
            }
        }
    }
}

#[test]
fn a_grant_is_judged_where_it_applies() {
    // Reading pods is allowed in the operator's own namespaces only.
    let spec =
        format!("{NAMESPACES}{ALLOW}      - {{apiGroups: [''], resources: [pods], verbs: [get], scope: Namespaces}}\n");
    let role = cluster_role("ack-pods", "{apiGroups: [''], resources: [pods], verbs: [get]}");
    let beyond = "beyond spec.operator.policy.allow: verbs=[get] apiGroups=[\"\"] resources=[pods]";
    // Applied as written (bundleObjects: Keep), a RoleBinding for another namespace than the install
    // namespace is refused whatever it grants: OLM would place it in the install namespace.
    let cases = [
        (
            binding("RoleBinding", "s", Some("team-a"), ("ClusterRole", "ack-pods"), &own_account()),
            Some("metadata.namespace: with bundleObjects: Keep this output applies it in namespace \"team-a\", where OLM would place it in the install namespace \"ops\"".to_string()),
        ),
        (binding("RoleBinding", "s", Some("ops"), ("ClusterRole", "ack-pods"), &own_account()), None),
        (
            binding("RoleBinding", "s", Some("kube-system"), ("ClusterRole", "ack-pods"), &own_account()),
            Some(format!("in namespace(s) kube-system, {beyond}")),
        ),
        (
            binding("ClusterRoleBinding", "s", None, ("ClusterRole", "ack-pods"), &own_account()),
            Some(format!("cluster-wide, {beyond}")),
        ),
    ];
    for (b, expected) in &cases {
        let extra = [("bundle/manifests/r.yaml", role.as_str()), ("bundle/manifests/b.yaml", b.as_str())];
        for way in WAYS {
            let out = run(way, &extra, &spec);
            match expected {
                None => assert_eq!(out.code, 0, "{way:?}: {}", said(&out)),
                Some(message) => {
                    assert_eq!(out.code, 1, "{way:?}: {}", said(&out));
                    assert!(said(&out).contains(message.as_str()), "{way:?}: {}", said(&out));
                }
            }
        }
    }
    // ack's CSV reads secrets cluster-wide (clusterPermissions): allowed only in namespaces, that is refused.
    let spec = format!(
        "{NAMESPACES}{}      - {{apiGroups: [''], resources: [secrets], verbs: [get, list, watch, patch], scope: Namespaces, namespaces: [ops]}}\n",
        ALLOW.replace("configmaps, secrets, namespaces", "configmaps, namespaces")
    );
    let out = run(Way::Files, &[], &spec);
    assert_eq!(out.code, 1);
    assert!(said(&out).contains("ServiceAccount ops/ack-s3-controller would be granted verbs=[get,list,patch,watch] apiGroups=[\"\"] resources=[configmaps,secrets] cluster-wide, beyond spec.operator.policy.allow: verbs=[get,list,watch,patch] apiGroups=[\"\"] resources=[secrets]"), "{}", said(&out));
}

#[test]
fn a_deny_can_say_never_cluster_wide() {
    let deny = "    policy:\n      deny:\n      - {apiGroups: [''], resources: [secrets], verbs: [get, list, watch], scope: Cluster}\n";
    // ack's CSV reads secrets cluster-wide itself.
    let out = run(Way::Files, &[], &format!("{NAMESPACES}{deny}"));
    assert_eq!(out.code, 1);
    assert!(said(&out).contains("spec.install.spec.clusterPermissions[0].rules[0]: install policy: ServiceAccount ops/ack-s3-controller would be granted verbs=[get,list,patch,watch] apiGroups=[\"\"] resources=[configmaps,secrets] cluster-wide, which spec.operator.policy.deny[0] forbids"), "{}", said(&out));
    // strimzi reads secrets only in the namespaces it serves: the same deny lets it pass
    // in Namespaces mode, and refuses it where OLM would promote it (Cluster).
    let sources: Vec<Source> = bundle_docs("strimzi-kafka-operator-1.2.0")
        .into_iter()
        .map(|(name, text)| Source { name: format!("strimzi/manifests/{name}"), text })
        .collect();
    let go = |spec: &str| render(&sources, &[Source { name: "admin/rbac.yaml".into(), text: config("ext", spec) }]);
    let (_, coded) = render_results(
        &sources,
        &[Source { name: "admin/rbac.yaml".into(), text: config("ext", &format!("{NAMESPACES}{deny}")) }],
    );
    assert!(!has_code(&coded, "policy-denied", None), "{coded:#?}");
    let out = go(&format!("  operator:\n    permissions: Cluster\n    installNamespace: ops\n{deny}"));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("cluster-wide, which spec.operator.policy.deny[0] forbids"), "{}", out.stderr);
    // An unscoped deny refuses it anywhere, as before.
    let out = go(&format!("{NAMESPACES}{}", deny.replace(", scope: Cluster", "")));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("in namespace(s) ops, team-a, which spec.operator.policy.deny[0] forbids"),
        "{}",
        out.stderr
    );
}

#[test]
fn olm_promotes_an_all_namespaces_operator_and_the_gate_knows() {
    // enmasse supports AllNamespaces; with Unmanaged and no targets OLM grants its
    // `permissions` (which read and write secrets) cluster-wide.
    let deny =
        "    policy:\n      deny:\n      - {apiGroups: [''], resources: [secrets], verbs: [get], scope: Cluster}\n";
    let sources: Vec<Source> = bundle_docs("enmasse-0.30.2")
        .into_iter()
        .map(|(name, text)| Source { name: format!("enmasse/manifests/{name}"), text })
        .collect();
    let go = |spec: &str| render(&sources, &[Source { name: "admin/rbac.yaml".into(), text: config("ext", spec) }]);
    let out = go(&format!("  operator:\n    installNamespace: ops\n{deny}"));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("install policy: ServiceAccount ops/enmasse-operator would be granted verbs=[get,list,watch,update,create,patch,delete] apiGroups=[\"\"] resources=[configmaps,secrets,persistentvolumeclaims,services] cluster-wide, which spec.operator.policy.deny[0] forbids"), "{}", out.stderr);
    // Scoped to its own namespace by olm-rbac, it is granted them there, not cluster-wide.
    let spec = format!("  operator:\n    permissions: Namespaces\n    installNamespace: ops\n{deny}");
    let (out, coded) =
        render_results(&sources, &[Source { name: "admin/rbac.yaml".into(), text: config("ext", &spec) }]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!has_code(&coded, "policy-denied", None), "{coded:#?}");
}

#[test]
fn an_unsupported_install_mode_is_refused_even_when_all_namespaces_is_supported() {
    // enmasse supports OwnNamespace, SingleNamespace and AllNamespaces, not MultiNamespace.
    let sources: Vec<Source> = bundle_docs("enmasse-0.30.2")
        .into_iter()
        .map(|(name, text)| Source { name: format!("enmasse/manifests/{name}"), text })
        .collect();
    let spec = admin_spec(
        "enmasse-0.30.2",
        "  operator:\n    permissions: Namespaces\n    installNamespace: ops\n    targetNamespaces: [team-a, team-b]\n",
    );
    let (out, coded) =
        render_results(&sources, &[Source { name: "admin/rbac.yaml".into(), text: config("ext", &spec) }]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("needs the MultiNamespace install mode, which the CSV does not support"),
        "{}",
        out.stderr
    );
    // Refused, and not also said as the warning for an AllNamespaces-only operator.
    let modes: Vec<&Coded> = coded.iter().filter(|r| r.code == "install-mode-unsupported").collect();
    assert!(modes.len() == 1 && modes[0].severity == "error", "{coded:#?}");
}

#[test]
fn provenance_an_object_writes_about_itself_is_not_believed() {
    let role = cluster_role("ack-extra", EVERYTHING);
    let b = binding("ClusterRoleBinding", "ack-extra", None, ("ClusterRole", "ack-extra"), &own_account());
    let spec = format!("{NAMESPACES}{ALLOW}");
    // A forged kustomize origin (the runner did not write one: no origin on the functionConfig).
    let forged = |doc: &str| with_annotation(doc, "config.kubernetes.io/origin", "path: admin/mine.yaml\n");
    let items = [forged(&role), forged(&b)];
    let mut docs = docs_of(ACK);
    docs.extend(items.iter().cloned());
    let out = function(&resource_list(&docs, &config("ext", &spec)));
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("would be granted verbs=[*] apiGroups=[*] resources=[*] cluster-wide, beyond"),
        "{}",
        out.stdout
    );
    // The same annotations written by kustomize with originAnnotations (the functionConfig
    // carries one too) are the runner's word: the admin's own files are not the bundle's.
    let cfg = with_annotation(&config("ext", &spec), "config.kubernetes.io/origin", "path: rbac.yaml\n");
    let mut docs: Vec<String> = bundle_docs(ACK)
        .into_iter()
        .map(|(name, text)| {
            with_annotation(&text, "config.kubernetes.io/origin", &format!("path: bundle/manifests/{name}\n"))
        })
        .collect();
    docs.extend(items.iter().cloned());
    let out = function(&resource_list(&docs, &cfg));
    assert_eq!(out.code, 0, "{}", out.stdout);

    // A claim to be another extension's generated output, on stdin.
    let claimed = |doc: &str| {
        doc.replacen(
            "\nmetadata:\n",
            "\nmetadata:\n  labels: {app.kubernetes.io/managed-by: olm-rbac, olm-rbac.io/extension: other, olm-rbac.io/role: operator}\n  annotations: {olm-rbac.io/service-account: ops/ack-s3-controller}\n",
            1,
        )
    };
    let extra = [("bundle/manifests/r.yaml", claimed(&role)), ("bundle/manifests/b.yaml", claimed(&b))];
    let extra: Vec<(&str, &str)> = extra.iter().map(|(p, t)| (*p, t.as_str())).collect();
    for way in [Way::Stdin, Way::NoPaths] {
        let out = run(way, &extra, &spec);
        assert_eq!(out.code, 1, "{way:?}: {}", said(&out));
        assert!(
            said(&out).contains("would be granted verbs=[*] apiGroups=[*] resources=[*] cluster-wide, beyond"),
            "{way:?}: {}",
            said(&out)
        );
    }
}

#[test]
fn rendering_a_bundle_root_or_nesting_its_csv_hides_nothing() {
    let role = cluster_role("ack-extra", EVERYTHING);
    let b = binding("ClusterRoleBinding", "ack-extra", None, ("ClusterRole", "ack-extra"), &own_account());
    let spec = format!("{NAMESPACES}{ALLOW}");
    // Beside the manifests, in the bundle's root.
    for way in [Way::Files, Way::KptPaths] {
        let out = run(way, &[("bundle/extra/r.yaml", &role), ("bundle/extra/b.yaml", &b)], &spec);
        assert_eq!(out.code, 1, "{way:?}: {}", said(&out));
        assert!(said(&out).contains("verbs=[*] apiGroups=[*] resources=[*] cluster-wide, beyond"), "{way:?}");
    }
    // The CSV nested below manifests/, the roles beside it.
    let mut sources: Vec<Source> = bundle_docs(ACK)
        .into_iter()
        .map(|(name, text)| {
            let sub = if name.ends_with("clusterserviceversion.yaml") { "sub/" } else { "" };
            Source { name: format!("bundle/manifests/{sub}{name}"), text }
        })
        .collect();
    sources.push(Source { name: "bundle/manifests/r.yaml".into(), text: role.clone() });
    sources.push(Source { name: "bundle/manifests/b.yaml".into(), text: b.clone() });
    let out = render(&sources, &[Source { name: "admin/rbac.yaml".into(), text: config("ext", &spec) }]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("verbs=[*] apiGroups=[*] resources=[*] cluster-wide, beyond"), "{}", out.stderr);
    // An RBACConfig a bundle keeps beside its manifests is not the admin's.
    let mut with_config: Vec<Source> = bundle_docs(ACK)
        .into_iter()
        .map(|(name, text)| Source { name: format!("bundle/manifests/{name}"), text })
        .collect();
    with_config.push(Source { name: "bundle/metadata/rbac.yaml".into(), text: config("evil", "  mode: Aggregate\n") });
    let (out, coded) = render_results(&with_config, &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(has_code(&coded, "config-misplaced", Some("error")), "{coded:#?}");
}

#[test]
fn the_installer_holds_only_what_exists_before_the_install() {
    let ns = "ops";
    let spec = format!(
        "{NAMESPACES}  installer:\n    serviceAccount: {{name: installer, namespace: {ns}}}\n    for: OLMv1\n    mode: Check\n"
    );
    let account = format!("{{kind: ServiceAccount, name: installer, namespace: {ns}}}");
    let admin_role = cluster_role("installer-some", READ_CONFIGMAPS);
    let admin_binding =
        binding("ClusterRoleBinding", "installer-some", None, ("ClusterRole", "installer-some"), &account);
    // The bundle binds the installer account to everything: OLM would have to create that
    // binding with the account itself, so it holds nothing yet.
    let bundle_binding =
        binding("ClusterRoleBinding", "installer-all", None, ("ClusterRole", "cluster-admin"), &account);
    for way in [Way::Files, Way::KptPaths] {
        let extra = [
            ("admin/role.yaml", admin_role.as_str()),
            ("admin/binding.yaml", admin_binding.as_str()),
            ("bundle/manifests/b.yaml", bundle_binding.as_str()),
        ];
        let (out, coded) = run_coded(way, &extra, &spec);
        assert_eq!(out.code, 1, "{way:?}: {}", said(&out));
        assert!(has_code(&coded, "installer-lacks", Some("error")), "{way:?}: {coded:#?}");
    }
    // The same account bound to cluster-admin by the admin's own file holds everything.
    let admin_all = binding("ClusterRoleBinding", "installer-all", None, ("ClusterRole", "cluster-admin"), &account);
    let out = run(Way::Files, &[("admin/binding.yaml", admin_all.as_str())], &spec);
    assert_eq!(out.code, 0, "{}", said(&out));
    // Of unknown origin, even the admin's grant does not count.
    let (out, coded) = run_coded(Way::Stdin, &[("x", &admin_role), ("y", &admin_binding)], &spec);
    assert_eq!(out.code, 1);
    assert!(has_code(&coded, "installer-lacks", Some("error")), "{coded:#?}");
}

/// An apiVersion the API server would not read as one group and version is
/// refused, so no check reads it one way and a client another.
#[test]
fn an_api_version_with_two_slashes_is_refused() {
    let role =
        cluster_role("ack-extra", EVERYTHING).replace("rbac.authorization.k8s.io/v1", "rbac.authorization.k8s.io/v1/x");
    for way in WAYS {
        let (out, coded) = run_coded(way, &[("bundle/manifests/r.yaml", role.as_str())], NAMESPACES);
        assert_eq!(out.code, 1, "{way:?}: {}", said(&out));
        assert!(has_code(&coded, "api-version-invalid", Some("error")), "{way:?}: {coded:#?}");
    }
}

/// However the bundle spells a denied permission (wildcards, subresource
/// patterns, the core group, split rules) and however it spreads it (several
/// bindings, several accounts of its own), the deny list sees it.
#[test]
fn a_denied_permission_is_seen_in_every_spelling() {
    let deny = "    policy:\n      deny:\n      - {apiGroups: [''], resources: [secrets, pods/exec], verbs: [get, create], scope: Cluster}\n";
    // (ack's own CSV reads secrets cluster-wide too; each extra binding is named on its own.)
    let spellings = [
        "{apiGroups: ['*'], resources: [secrets], verbs: [get]}",
        "{apiGroups: [''], resources: ['*'], verbs: [get]}",
        "{apiGroups: [''], resources: [secrets], verbs: ['*']}",
        "{apiGroups: [''], resources: ['*/exec'], verbs: [create]}",
        "{apiGroups: ['*'], resources: ['*'], verbs: ['*']}",
        "{apiGroups: [''], resources: [secrets], resourceNames: [one], verbs: [get]}",
        "{apiGroups: [apps, ''], resources: [deployments, secrets], verbs: [list, get]}",
    ];
    for spelling in spellings {
        // Split over a role with a harmless rule first, bound twice, to two of its own accounts.
        let role = format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: split\nrules:\n- {READ_CONFIGMAPS}\n- {spelling}\n"
        );
        let one = binding("ClusterRoleBinding", "one", None, ("ClusterRole", "split"), &own_account());
        let two = binding("ClusterRoleBinding", "two", None, ("ClusterRole", "split"), &own_account());
        let extra = [
            ("bundle/manifests/r.yaml", role.as_str()),
            ("bundle/manifests/1.yaml", one.as_str()),
            ("bundle/manifests/2.yaml", two.as_str()),
        ];
        for way in WAYS {
            let out = run(way, &extra, &format!("{NAMESPACES}{deny}"));
            assert_eq!(out.code, 1, "{way:?} {spelling}: {}", said(&out));
            for b in ["one", "two"] {
                assert!(
                    said(&out).contains(&format!("(through the bundle's ClusterRoleBinding {b}) would be granted")),
                    "{way:?} {spelling}: {}",
                    said(&out)
                );
            }
        }
        // In a namespace of its own, the same is allowed by a deny that says cluster-wide.
        let in_ns = binding("RoleBinding", "one", Some("team-a"), ("ClusterRole", "split"), &own_account());
        let out = run(
            Way::Files,
            &[("bundle/manifests/r.yaml", &role), ("bundle/manifests/1.yaml", &in_ns)],
            &format!("{NAMESPACES}{deny}"),
        );
        assert!(!said(&out).contains("(through the bundle's RoleBinding one)"), "{spelling}: {}", said(&out));
    }
}

/// A bundle's admission webhook object, which the installer would have to
/// hold the right to write (critical), is refused: registry+v1 bundles may
/// not hold one, and passed on it would be applied unjudged. An APIService a
/// bundle names after a platform API group is refused too: writing it
/// re-routes that API for everybody.
#[test]
fn the_installers_own_dangerous_rights_are_named() {
    let spec =
        format!("{NAMESPACES}  installer:\n    serviceAccount: {{name: installer, namespace: ops}}\n    for: OLMv1\n");
    let webhook = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: ack-defaults\nwebhooks: []\n";
    // (Where no file is known, only the CSV and CRDs count as the bundle's objects to install.)
    for way in [Way::Files, Way::KptPaths] {
        let out = run(way, &[("bundle/manifests/w.yaml", webhook)], &spec);
        assert_eq!(out.code, 1, "{way:?}: {}", said(&out));
        assert!(
            said(&out).contains("kind: the bundle holds a \"MutatingWebhookConfiguration\", a kind registry+v1 bundles may not hold: OLM refuses the bundle"),
            "{way:?}: {}",
            said(&out)
        );
    }
    let api_service = "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: v1.apps\nspec: {group: apps, version: v1, service: {name: evil, namespace: ops}, groupPriorityMinimum: 1, versionPriority: 1}\n";
    for way in WAYS {
        let out = run(way, &[("bundle/manifests/a.yaml", api_service)], &spec);
        assert_eq!(out.code, 1, "{way:?}: {}", said(&out));
        assert!(said(&out).contains("this APIService serves \"apps\", an API group built into Kubernetes: applying it re-routes that API for the whole cluster"), "{way:?}: {}", said(&out));
    }
}

/// A bundle ClusterRole that the built-in admin, edit or view gathers by label
/// gives its rules to their holders: users, not the operator. They may get the
/// level on the bundle's own APIs and nothing else, whatever the operator's
/// ceiling allows (a property-test find: the ceiling allows `iam.services.k8s.aws`,
/// which is not ack-s3's API).
#[test]
fn aggregation_into_built_in_roles_is_held_to_the_bundles_own_apis() {
    let labelled = |level: &str, rule: &str| {
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ack-extra-{level}\n  labels:\n    rbac.authorization.k8s.io/aggregate-to-{level}: \"true\"\nrules:\n- {rule}\n")
    };
    let beyond = labelled("admin", "{apiGroups: [iam.services.k8s.aws], resources: [roles], verbs: [get]}");
    let within = labelled(
        "view",
        "{apiGroups: [s3.services.k8s.aws], resources: [buckets, buckets/status], verbs: [get, list, watch]}",
    );
    let spec = format!("{NAMESPACES}{ALLOW}");
    for way in WAYS {
        let out = run(way, &[("bundle/manifests/r.yaml", beyond.as_str())], &spec);
        assert_eq!(out.code, 1, "{way:?}: {}", said(&out));
        assert!(said(&out).contains("whoever holds ClusterRole admin, which aggregates this one, would be granted verbs=[get] apiGroups=[iam.services.k8s.aws] resources=[roles], beyond admin on the bundle's own APIs"), "{way:?}: {}", said(&out));
        let (_, coded) = run_coded(way, &[("bundle/manifests/r.yaml", within.as_str())], &spec);
        assert!(!has_code(&coded, "aggregation-beyond", None), "{way:?}: {coded:#?}");
    }
}

/// What the gate says grows with the input, not with rules × bindings ×
/// namespaces: at most ten findings per holder, the rest counted, and a few
/// namespaces named, the rest counted.
#[test]
fn findings_stay_in_proportion_to_the_input() {
    let rules: String =
        (0..30).map(|i| format!("- {{apiGroups: [g{i}.example.com], resources: [r], verbs: [get]}}\n")).collect();
    let role = format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: many\nrules:\n{rules}"
    );
    let bindings: Vec<String> = (0..20)
        .map(|i| {
            binding("RoleBinding", &format!("b{i}"), Some(&format!("t{i}")), ("ClusterRole", "many"), &own_account())
        })
        .collect();
    let mut extra = vec![("bundle/manifests/r.yaml".to_string(), role)];
    extra.extend(bindings.into_iter().enumerate().map(|(i, b)| (format!("bundle/manifests/b{i}.yaml"), b)));
    let extra: Vec<(&str, &str)> = extra.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let out = run(Way::Files, &extra, &format!("{NAMESPACES}{ALLOW}"));
    assert_eq!(out.code, 1);
    assert_eq!(count(&out.stderr, "beyond spec.operator.policy.allow"), 20 * 10, "ten per binding");
    assert_eq!(
        count(&out.stderr, "and 50 more like it for ServiceAccount ops/ack-s3-controller (through"),
        20,
        "{}",
        out.stderr
    );
    let targets: String = (0..40).map(|i| format!("n{i}, ")).collect();
    let spec = format!(
        "{}{}",
        NAMESPACES
            .replace("targetNamespaces: [team-a]", &format!("targetNamespaces: [{}]", targets.trim_end_matches(", "))),
        ALLOW.replace(
            "resources: [events], verbs: [create, patch]}",
            "resources: [events], verbs: [create, patch], scope: Namespaces, namespaces: [ops]}"
        )
    );
    let out = run(Way::Files, &[], &spec);
    assert!(
        out.stderr.contains("resources=[events] in namespace(s) n0, n1, n10, n11, n12 and 35 more, beyond"),
        "{}",
        out.stderr
    );
}

/// A role nobody binds grants nothing to the operator, but the installer
/// account must hold its rules to write it: with `spec.installer`, the policy
/// measures them as the installer's (a property-test find).
#[test]
fn an_unbound_bundle_role_is_held_by_the_installer() {
    let role = cluster_role("ack-extra", EVERYTHING);
    let with_policy = format!(
        "{NAMESPACES}{ALLOW}  installer:\n    serviceAccount: {{name: installer, namespace: ops}}\n    for: OLMv1\n"
    );
    for way in WAYS {
        let out = run(way, &[("bundle/manifests/r.yaml", role.as_str())], &with_policy);
        assert_eq!(out.code, 1, "{way:?}: {}", said(&out));
        assert!(said(&out).contains("install policy: installer ServiceAccount ops/installer (which must hold what it writes) would be granted verbs=[*] apiGroups=[*] resources=[*] cluster-wide, beyond"), "{way:?}: {}", said(&out));
        // Without spec.installer, OLM installs as cluster-admin and nobody is granted the role.
        let out = run(way, &[("bundle/manifests/r.yaml", role.as_str())], &format!("{NAMESPACES}{ALLOW}"));
        assert_eq!(out.code, 0, "{way:?}: {}", said(&out));
    }
}

/// A RoleBinding the bundle writes into another namespace, with a subject
/// without a namespace: OLM's copy (in the install namespace) grants the
/// operator's account, but the copy applied as written (bundleObjects: Keep)
/// grants the account of that name in the other namespace (a property-test find).
#[test]
fn a_rolebinding_applied_as_written_grants_that_namespaces_account() {
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: reader\n  namespace: elsewhere\nrules:\n- {apiGroups: [''], resources: [configmaps], verbs: [get]}\n";
    let b = binding(
        "RoleBinding",
        "reader",
        Some("elsewhere"),
        ("Role", "reader"),
        &format!("{{kind: ServiceAccount, name: {OWN}}}"),
    );
    let extra = [("bundle/manifests/r.yaml", role), ("bundle/manifests/b.yaml", b.as_str())];
    for way in WAYS {
        let out = run(way, &extra, &format!("{NAMESPACES}{ALLOW}"));
        assert_eq!(out.code, 1, "{way:?}: {}", said(&out));
        assert!(said(&out).contains("the bundle grants ServiceAccount elsewhere/ack-s3-controller, which is not one of the operator's own ServiceAccounts in ops"), "{way:?}: {}", said(&out));
        // With the bundle left to OLM, only its copy in the install namespace exists
        // (Drop is refused under kpt, which would delete the bundle's files).
        if way != Way::KptPaths {
            let out = run(way, &extra, &format!("{NAMESPACES}{ALLOW}  bundleObjects: Drop\n"));
            assert_eq!(out.code, 0, "{way:?}: {}", said(&out));
        }
    }
}

/// When the CSV's own file is unknown (a runner or a hand-made list that
/// names no file for it), olm-rbac cannot tell where the bundle is, so no
/// object is known to be outside it (a property-test find).
#[test]
fn without_the_csvs_file_nothing_is_known_to_be_the_admins() {
    let role = cluster_role("ack-extra", EVERYTHING);
    let b = binding("ClusterRoleBinding", "ack-extra", None, ("ClusterRole", "ack-extra"), &own_account());
    let mut items: Vec<String> = bundle_docs(ACK).into_iter().map(|(_, text)| text).collect();
    for (path, doc) in [("admin/r.yaml", &role), ("admin/b.yaml", &b)] {
        items.push(with_annotation(doc, "internal.config.kubernetes.io/path", path));
    }
    let out = function(&resource_list(&items, &as_kpt_sends(&config("ext", &format!("{NAMESPACES}{ALLOW}")))));
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("would be granted verbs=[*] apiGroups=[*] resources=[*] cluster-wide, beyond"));
}

#[test]
fn a_binding_to_a_built_in_role_is_judged_with_what_this_run_aggregates_into_it() {
    // With olmAPIs: Edit, Aggregate mode puts creating Subscriptions (installing
    // operators) into the built-in edit role: a bundle that binds its account to
    // edit gets that too, and a deny on it must see it.
    let b = binding("ClusterRoleBinding", "ack-edit", None, ("ClusterRole", "edit"), &own_account());
    let extra = [("bundle/manifests/b.yaml", b.as_str())];
    let deny = "    policy:\n      deny:\n      - {apiGroups: [operators.coreos.com], resources: [subscriptions], verbs: [create]}\n";
    let refused = "(through the bundle's ClusterRoleBinding ack-edit) would be granted verbs=[create,update,patch,delete] apiGroups=[operators.coreos.com] resources=[subscriptions] cluster-wide";
    for way in WAYS {
        let edit = run(way, &extra, &format!("  mode: Aggregate\n  olmAPIs: Edit\n{NAMESPACES}{deny}"));
        assert_eq!(edit.code, 1, "{way:?}: {}", edit.stderr);
        assert!(said(&edit).contains(refused), "{way:?}: {}", said(&edit));
        let (view, coded) = run_coded(way, &extra, &format!("  mode: Aggregate\n  olmAPIs: View\n{NAMESPACES}{deny}"));
        assert_eq!(view.code, 0, "{way:?}: {}", view.stderr);
        assert!(!has_code(&coded, "policy-denied", None), "{way:?}: {coded:#?}");
    }
}

/// Without a named install namespace the gate knows the operator's namespace
/// only by its part: a subject whose namespace is written as the gate's name
/// for that part is another namespace's account, not the operator's.
#[test]
fn the_unnamed_install_namespace_is_no_name_a_bundle_can_write() {
    let role = cluster_role("reader", READ_CONFIGMAPS);
    let b = binding(
        "ClusterRoleBinding",
        "reader",
        None,
        ("ClusterRole", "reader"),
        &format!("{{kind: ServiceAccount, name: {OWN}, namespace: '(the install namespace)'}}"),
    );
    let extra = [("bundle/manifests/r.yaml", role.as_str()), ("bundle/manifests/b.yaml", b.as_str())];
    let (out, coded) = run_coded(Way::Files, &extra, &format!("  operator:\n    permissions: Unmanaged\n{ALLOW}"));
    assert_eq!(out.code, 1, "{}", said(&out));
    assert!(has_code(&coded, "subject-foreign", Some("error")), "{coded:#?}");
}

/// The text shows at most ten dangerous grants per holder, worst first: what
/// the cap leaves out is never more dangerous than what it shows (a
/// `*`/`*`/`*` rule written last in a CSV of many risky rules).
#[test]
fn the_cap_never_hides_a_worse_grant_than_it_shows() {
    const BUNDLE: &str = "memcached-operator-0.0.1";
    let reads: String = (0..12)
        .map(|i| {
            format!("        - {{apiGroups: [\"\"], resources: [secrets], verbs: [get], resourceNames: [s{i}]}}\n")
        })
        .collect();
    let everything = "        - {apiGroups: [\"*\"], resources: [\"*\"], verbs: [\"*\"]}\n";
    let inputs: Vec<Source> = bundle_docs(BUNDLE)
        .into_iter()
        .map(|(name, text)| {
            let text = text.replacen(
                "      clusterPermissions:\n      - rules:\n",
                &format!("      clusterPermissions:\n      - rules:\n{reads}{everything}"),
                1,
            );
            Source { name: format!("{BUNDLE}/manifests/{name}"), text }
        })
        .collect();
    let out = render(
        &inputs,
        &[Source {
            name: "admin/rbac.yaml".into(),
            text: config(
                "memcached",
                "  mode: Aggregate\n  operator:\n    permissions: Cluster\n    installNamespace: memcached-system\n",
            ),
        }],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains(" more like it for "), "the cap applies: {}", out.stderr);
    let critical = out.stderr.lines().find(|l| l.contains("verbs=[*] apiGroups=[*] resources=[*] cluster-wide"));
    assert!(critical.is_some_and(|l| l.contains("(critical)")), "the worst grant is shown: {}", out.stderr);
}

/// Over every real bundle in the tests, granted cluster-wide: each dangerous
/// rule is a result (SARIF carries them all), the text shows or counts each
/// one, and for each account what the text leaves out is never worse than
/// the least it shows.
#[test]
fn every_dangerous_grant_of_every_real_bundle_is_a_result_and_none_worse_is_hidden() {
    const LEVELS: [&str; 4] = ["(low)", "(medium)", "(high)", "(critical)"];
    let level = |m: &str| LEVELS.iter().rposition(|l| m.contains(l)).unwrap_or(0);
    let holder =
        |m: &str| m.split(" would be granted").next().and_then(|h| h.rsplit(": ").next()).unwrap_or("").to_string();
    let spec = "  mode: Aggregate\n  operator:\n    permissions: Cluster\n    installNamespace: ops\n";
    let mut bundles: Vec<String> = std::fs::read_dir(bundles_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| bundles_dir().join(n).join("manifests").is_dir())
        .collect();
    bundles.sort();
    assert!(bundles.len() >= 10, "{bundles:?}");
    let mut measured = 0;
    for bundle in &bundles {
        let inputs: Vec<Source> = bundle_docs(bundle)
            .into_iter()
            .map(|(name, text)| Source { name: format!("{bundle}/manifests/{name}"), text })
            .collect();
        let configs = [Source { name: "admin/rbac.yaml".into(), text: config("x", spec) }];
        let (out, results) = render_results(&inputs, &configs);
        let dangerous: Vec<&str> =
            results.iter().filter(|r| r.code.starts_with("danger-")).map(|r| r.message.as_str()).collect();
        assert!(dangerous.iter().all(|m| !m.contains(" more like it ")), "SARIF carries values, not the text's count");
        let shown: Vec<&str> =
            out.stderr.lines().filter(|l| l.contains("(see docs/dangerous-permissions.md")).collect();
        let counted: usize = out
            .stderr
            .lines()
            .filter_map(|l| l.split("and ").nth(1)?.split(" more like it").next()?.parse::<usize>().ok())
            .sum();
        assert_eq!(shown.len() + counted, dangerous.len(), "{bundle}: shown + counted = results\n{}", out.stderr);
        // The KRM function's results are values too: every one, no count.
        let list = resource_list(&docs_of(bundle), &config("x", spec));
        let krm = function_results(&olm_rbac::run::function(&list));
        let krm_dangerous = krm.iter().filter(|r| r.code.starts_with("danger-")).count();
        assert_eq!(krm_dangerous, dangerous.len(), "{bundle}: the ResourceList's results hold every one");
        assert!(krm.iter().all(|r| !r.message.contains(" more like it ")), "{bundle}: no count among values");
        for m in &dangerous {
            let said = shown.iter().any(|l| l.contains(m));
            let who = holder(m);
            let least_shown = shown.iter().filter(|l| holder(l) == who).map(|l| level(l)).min().unwrap_or(usize::MAX);
            assert!(said || level(m) <= least_shown, "{bundle}: hidden but worse than shown: {m}");
        }
        measured += dangerous.len();
    }
    assert!(measured > 50, "the bundles hold dangerous grants: {measured}");
}
