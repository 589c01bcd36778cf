//! Ways a hostile bundle author walked around the install gate (each
//! reproduced end to end, then closed): inputs the bundle controls that made
//! olm-rbac exit 0 under a policy that should refuse. Each test names the
//! function that now closes it.

use crate::common::*;
use crate::gate::{said, with_annotation, ACK, ALLOW};
use crate::invariant::policy;
use olm_rbac::access::{Identity, Request};
use olm_rbac::run::{function, render, Source};

/// The OLM v1 gate as the docs recommend it: OLM installs the bundle from the
/// catalog (`bundleObjects: Drop`), `permissions` stay `Unmanaged`.
fn olm_v1_spec(extra: &str) -> String {
    format!("  bundleObjects: Drop\n{extra}  operator:\n    installNamespace: ops\n{ALLOW}")
}

/// Everything `cluster-admin` holds, for everyone who can log in.
const EVERYONE_ADMIN: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: everyone-admin
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: Group, apiGroup: rbac.authorization.k8s.io, name: 'system:authenticated'}
";

/// ack's manifests under `bundle/manifests/`, plus `extra` at their paths.
fn files(extra: &[(&str, String)]) -> Vec<Source> {
    let mut docs: Vec<Source> = bundle_docs(ACK)
        .into_iter()
        .map(|(name, text)| Source { name: format!("bundle/manifests/{name}"), text })
        .collect();
    docs.extend(extra.iter().map(|(p, t)| Source { name: p.to_string(), text: t.clone() }));
    docs
}

fn admin_config(spec: &str) -> Vec<Source> {
    vec![Source { name: "admin/rbac.yaml".into(), text: config("ext", spec) }]
}

/// A bundle binding dressed as this extension's own earlier output
/// (operator shape: any rules, any subjects) is skipped by the gate and
/// "removed" from the output when its file is unknown (stdin, a ResourceList
/// without paths). With `bundleObjects: Drop` (or any OLM install) OLM still
/// creates it from the bundle image.
/// Closed in: `install_policy::Gate::bundle_granted` must measure a claimed item
/// unless `origins.is_admin(i)` (or unless this run writes the same object
/// again); `provenance::generated_claims` should not believe a claim for an
/// item of unknown origin under a policy.
#[test]
fn earlier_output_claimed_by_a_bundle_on_stdin_is_still_measured() {
    let labels = "  labels:\n    app.kubernetes.io/managed-by: olm-rbac\n    olm-rbac.io/extension: ext\n    olm-rbac.io/role: operator\n  annotations:\n    olm-rbac.io/service-account: ops/ack-s3-controller\n";
    let role = format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ext-operator-helper\n{labels}rules:\n- {{apiGroups: ['*'], resources: ['*'], verbs: ['*']}}\n"
    );
    let binding = format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: ext-operator-helper\n{labels}roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ext-operator-helper}}\nsubjects:\n- {{kind: Group, apiGroup: rbac.authorization.k8s.io, name: 'system:authenticated'}}\n"
    );
    let spec = olm_v1_spec("");
    let mut docs = docs_of(ACK);
    docs.push(role);
    docs.push(binding);
    let stdin: String = docs.iter().map(|d| format!("---\n{d}")).collect();
    let out = render(&[Source { name: "-".into(), text: stdin }], &admin_config(&spec));
    assert_eq!(
        out.code,
        1,
        "stdin: a bundle ClusterRoleBinding of system:authenticated to */*/* passed: {}",
        said(&out)
    );
    let out = function(&resource_list(&docs, &config("ext", &spec)));
    assert_eq!(out.code, 1, "KRM without paths: {}", said(&out));
}

/// kustomize passes a bundle file's own `config.kubernetes.io/path`
/// through (and kyaml copies it to `internal.config.kubernetes.io/path`);
/// `Header::file_ref` prefers it to kustomize's `config.kubernetes.io/origin`,
/// so the bundle names its ClusterRoleBinding an admin file. Reproduced with
/// `kubectl kustomize --enable-alpha-plugins` (kustomize v5.5.0): the item
/// below is what kustomize sends. Without `originAnnotations` the forged path
/// is the only path in the list and wins the same way.
/// Closed in: `model::Header::file_ref` with `model::RunnerMarks`: path annotations
/// are believed only when the functionConfig carries kpt's mark, the origin
/// annotation only when it carries kustomize's origin.
#[test]
fn a_path_annotation_the_bundle_wrote_does_not_make_its_object_the_admins() {
    let spec = olm_v1_spec("");
    let origin = |doc: &str, name: &str| {
        with_annotation(doc, "config.kubernetes.io/origin", &format!("path: ../bundle/manifests/{name}\n"))
    };
    // As kustomize sends it with buildMetadata: [originAnnotations].
    let forged = with_annotation(
        &with_annotation(&origin(EVERYONE_ADMIN, "zz-evil.yaml"), "config.kubernetes.io/path", "site/admin-rbac.yaml"),
        "internal.config.kubernetes.io/path",
        "site/admin-rbac.yaml",
    );
    let mut docs: Vec<String> = bundle_docs(ACK).iter().map(|(n, d)| origin(d, n)).collect();
    docs.push(forged);
    let cfg = with_annotation(&config("ext", &spec), "config.kubernetes.io/origin", "path: olm-rbac.yaml\n");
    let out = function(&resource_list(&docs, &cfg));
    assert_eq!(out.code, 1, "kustomize with originAnnotations: {}", said(&out));

    // As kustomize sends it without originAnnotations.
    let forged = with_annotation(
        &with_annotation(EVERYONE_ADMIN, "config.kubernetes.io/path", "site/admin-rbac.yaml"),
        "internal.config.kubernetes.io/path",
        "site/admin-rbac.yaml",
    );
    let mut docs = docs_of(ACK);
    docs.push(forged);
    let out = function(&resource_list(&docs, &config("ext", &spec)));
    assert_eq!(out.code, 1, "kustomize without originAnnotations: {}", said(&out));
}

/// A file directly in a bundle's root (beside `manifests/` and
/// `metadata/`) is classified as the admin's, while the same file one folder
/// down is unknown. A bundle image's root is the bundle author's.
/// Closed in: `origin::Origins::classify`: a file whose folder is a bundle's root
/// (`BundleFolders::may_be_bundle` without the `folder != b.root` exception)
/// is `Origin::Unknown`.
#[test]
fn a_file_in_the_bundle_root_is_not_the_admins() {
    let spec = olm_v1_spec("");
    let out = render(&files(&[("bundle/extra.yaml", EVERYONE_ADMIN.to_string())]), &admin_config(&spec));
    assert_eq!(out.code, 1, "{}", said(&out));
}

/// OLM v1 (`BundleAdditionalResourcesGenerator`) and OLM v0 put every
/// namespaced bundle object in the install namespace, whatever namespace the
/// manifest names. The gate measures a bundle RoleBinding where it says it is.
/// Closed in: `install_policy::Gate::bound` and `role_rules`: a bundle Role or
/// RoleBinding is granted in the install namespace (and, for `bundleObjects:
/// Keep`, also where it is written); a written namespace other than the
/// install namespace is itself reported under a policy.
#[test]
fn a_namespace_written_on_bundle_rbac_is_not_where_olm_grants_it() {
    let spec = format!(
        "{}      - {{apiGroups: [''], resources: [pods, pods/exec], verbs: ['*'], scope: Namespaces, namespaces: [sandbox]}}\n",
        olm_v1_spec("")
    );
    let rbac = "apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ack-sandbox
  namespace: sandbox
rules:
- {apiGroups: [''], resources: [pods, pods/exec], verbs: ['*']}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ack-sandbox
  namespace: sandbox
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ack-sandbox}
subjects:
- {kind: ServiceAccount, name: ack-s3-controller, namespace: ops}
";
    let out = render(&files(&[("bundle/manifests/zz-sandbox.yaml", rbac.to_string())]), &admin_config(&spec));
    assert_eq!(out.code, 1, "OLM creates this Role and RoleBinding in ops: {}", said(&out));
}

/// A bundle ClusterRole labelled for an aggregating role olm-rbac
/// does not model (OpenShift's `cluster-reader`, any third-party aggregator)
/// reaches whoever holds that role; under a policy this is only a warning.
/// With `bundleObjects: Drop`, `stripBundleAggregation` changes nothing OLM
/// installs.
/// Closed in: `install_policy::Gate::aggregated`: under a strict policy, any
/// `rbac.authorization.k8s.io/aggregate-to-*` label that no known aggregator
/// selects is an error ("cannot be measured").
#[test]
fn aggregation_labels_for_unknown_aggregators_are_refused_under_a_policy() {
    let spec = olm_v1_spec("");
    let role = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ack-cluster-reader-extras
  labels:
    rbac.authorization.k8s.io/aggregate-to-cluster-reader: \"true\"
rules:
- {apiGroups: [''], resources: [secrets, pods/exec], verbs: ['*']}
";
    let out = render(&files(&[("bundle/manifests/zz-agg.yaml", role.to_string())]), &admin_config(&spec));
    assert_eq!(out.code, 1, "{}", said(&out));
}

/// With `spec.clusterServiceVersion` set, a second CSV in the same
/// bundle folder is ignored by the gate. OLM v1 (`fsBundleSource.GetBundle`)
/// keeps the last CSV it reads from `manifests/` and grants its permissions.
/// Closed in: `trust::one_csv_a_bundle`: more than one CSV in one bundle's own
/// folder is an error (and, under a policy, more than one of unknown origin).
#[test]
fn a_second_csv_beside_the_named_one_is_gated_too() {
    let spec = olm_v1_spec("  clusterServiceVersion: ack-s3-controller.v1.10.0\n");
    let (name, csv) = bundle_docs(ACK).into_iter().find(|(n, _)| n.contains("clusterserviceversion")).unwrap();
    assert!(name.starts_with("ack-s3-controller.clusterserviceversion"));
    let evil = csv.replacen("name: ack-s3-controller.v1.10.0", "name: ack-s3-controller.v1.10.1", 1).replacen(
        "      clusterPermissions:\n      - rules:\n",
        "      clusterPermissions:\n      - rules:\n        - {apiGroups: ['*'], resources: ['*'], verbs: ['*']}\n",
        1,
    );
    assert_ne!(evil, csv);
    let out = render(&files(&[("bundle/manifests/zz-evil.clusterserviceversion.yaml", evil)]), &admin_config(&spec));
    assert_eq!(out.code, 1, "OLM v1 installs the last CSV, which grants */*/*: {}", said(&out));
}

/// Without `installNamespace` (allowed with `Unmanaged`, the OLM v1
/// gate), a ServiceAccount of the CSV's name in ANY namespace counts as the
/// operator's own, so a bundle may grant `kube-system/ack-s3-controller` or a
/// tenant's namespace whatever `allow` covers.
/// Closed in: `install_policy::Gate::subject`: with the install namespace unknown,
/// only a RoleBinding subject without a namespace (which OLM places in the
/// install namespace) is the operator's; a named namespace is reported, or a
/// policy requires `installNamespace`.
#[test]
fn without_an_install_namespace_a_foreign_namespace_account_is_not_the_operators() {
    let spec = format!("  operator:\n{ALLOW}");
    let rbac = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ack-extra
rules:
- {apiGroups: [''], resources: [secrets], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ack-extra
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ack-extra}
subjects:
- {kind: ServiceAccount, name: ack-s3-controller, namespace: kube-system}
";
    let out = render(&files(&[("bundle/manifests/zz-crb.yaml", rbac.to_string())]), &admin_config(&spec));
    assert_eq!(out.code, 1, "{}", said(&out));
}

/// A bundle ClusterRole with an aggregationRule, bound to the operator,
/// gathers another of the bundle's ClusterRoles by label: the operator holds
/// the gathered rules, which no rule of the bound role shows. The gate judged
/// only "cannot be measured" and let the rules themselves go unnamed.
/// Closed in: `gate::holdings::cluster_to_be`: the bundle's bindings are
/// resolved by the access kernel over the cluster to be, aggregation
/// included, and each gathered rule is judged at the role that writes it.
#[test]
fn a_bound_aggregating_role_is_judged_by_the_rules_it_gathers() {
    let rbac = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ack-gather
aggregationRule:
  clusterRoleSelectors:
  - matchLabels: {ack.example/part: 'true'}
rules: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ack-part
  labels: {ack.example/part: 'true'}
rules:
- {apiGroups: [''], resources: [pods/exec], verbs: [create]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ack-gather
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ack-gather}
subjects:
- {kind: ServiceAccount, name: ack-s3-controller, namespace: ops}
";
    let (out, results) = render_results(
        &files(&[("bundle/manifests/zz-gather.yaml", rbac.to_string())]),
        &admin_config(&olm_v1_spec("")),
    );
    assert_eq!(out.code, 1, "{}", said(&out));
    let beyond: Vec<&Coded> = results.iter().filter(|r| r.code == "policy-not-allowed").collect();
    assert!(
        beyond.iter().any(|r| r.message.starts_with(
            "ClusterRole ack-part: rules[0]: install policy: ServiceAccount ops/ack-s3-controller (through the bundle's ClusterRoleBinding ack-gather) would be granted verbs=[create] apiGroups=[\"\"] resources=[pods/exec] cluster-wide"
        )),
        "the gathered rule is judged where it is written: {results:#?}"
    );
}

/// The API server refuses a ClusterRoleBinding to a Role, so it grants
/// nothing anywhere, whatever Role of that name the bundle ships. The gate
/// found the Role by name and judged its rules as granted cluster-wide: a
/// refusal for a grant that cannot exist.
/// Closed in: `gate::holdings::resolve`: the role a binding gets is the
/// kernel's `Policy::bound_role`, as the installer's.
#[test]
fn a_cluster_role_binding_to_a_role_grants_nothing() {
    let rbac = "apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ack-pods
rules:
- {apiGroups: [''], resources: [pods/exec], verbs: [create]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ack-pods
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ack-pods}
subjects:
- {kind: ServiceAccount, name: ack-s3-controller, namespace: ops}
";
    let (out, results) =
        render_results(&files(&[("bundle/manifests/zz-pods.yaml", rbac.to_string())]), &admin_config(&olm_v1_spec("")));
    let cluster_wide: Vec<&Coded> =
        results.iter().filter(|r| r.message.contains("(through the bundle's ClusterRoleBinding ack-pods)")).collect();
    assert!(cluster_wide.is_empty(), "{cluster_wide:#?}");
    // The same Role bound where OLM places it is judged there.
    let bound = rbac.replace("kind: ClusterRoleBinding", "kind: RoleBinding");
    let (out2, results) =
        render_results(&files(&[("bundle/manifests/zz-pods.yaml", bound)]), &admin_config(&olm_v1_spec("")));
    assert_eq!(out2.code, 1, "{}", said(&out2));
    assert!(
        results.iter().any(|r| r.code == "policy-not-allowed"
            && r.message.starts_with("Role ack-pods: rules[0]: install policy: ServiceAccount ops/ack-s3-controller (through the bundle's RoleBinding ack-pods) would be granted verbs=[create] apiGroups=[\"\"] resources=[pods/exec] in namespace(s) ops")),
        "{results:#?}"
    );
    assert_eq!(out.code, 0, "{}", said(&out));
}

/// Under `bundleObjects: Keep` a bundle RoleBinding is also applied where it
/// is written. A written namespace that is no namespace's name (here the
/// gate's own name for "the install namespace" when the config names none)
/// must not pass for the install namespace: the API server refuses the copy,
/// and the subject it names stays foreign.
#[test]
fn a_namespace_the_api_server_refuses_is_no_copy_of_the_install_namespace() {
    let spec = format!("  bundleObjects: Keep\n  operator:\n{ALLOW}");
    let rbac = "apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ack-leases
  namespace: (the install namespace)
rules:
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ack-leases
  namespace: (the install namespace)
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ack-leases}
subjects:
- {kind: ServiceAccount, name: ack-s3-controller, namespace: (the install namespace)}
";
    let (out, results) =
        render_results(&files(&[("bundle/manifests/zz-leases.yaml", rbac.to_string())]), &admin_config(&spec));
    assert_eq!(out.code, 1, "{}", said(&out));
    assert!(results.iter().any(|r| r.code == "subject-foreign"), "{results:#?}");
}

/// A deny entry with a typo matches nothing, since Kubernetes compares rule
/// strings exactly: `secret` and `Bind` forbade nothing, and the bundle that
/// reads secrets cluster-wide passed with no word.
/// Closed in: `gate::entries::check_entries`: every verb, group and resource
/// of an entry is one the cluster to be has, or an error under `deny` (a
/// warning under `allow`) that names the near miss.
#[test]
fn a_typo_in_a_deny_entry_is_an_error_naming_the_near_miss() {
    let spec = "  bundleObjects: Drop\n  operator:\n    installNamespace: ops\n    policy:\n      deny:\n      - {apiGroups: [''], resources: [secret, pods/Exec], verbs: [get, Bind]}\n      - {apiGroups: [Apps, rbac.authorization.k8s.io], resources: [clusterroles], verbs: [escalate]}\n";
    let (out, results) = render_results(&files(&[]), &admin_config(spec));
    assert_eq!(out.code, 1, "{}", said(&out));
    let unknown: Vec<&str> =
        results.iter().filter(|r| r.code == "policy-entry-unknown").map(|r| r.message.as_str()).collect();
    let expected = [
        "RBACConfig ext: spec.operator.policy.deny[0].verbs[1]: \"Bind\" is not a verb the cluster serves; did you mean \"bind\"?",
        "RBACConfig ext: spec.operator.policy.deny[0].resources[0]: \"secret\" is not a resource of API group(s) \"\"; did you mean \"secrets\"?",
        "RBACConfig ext: spec.operator.policy.deny[0].resources[1]: \"pods/Exec\" is not a resource of API group(s) \"\"; did you mean \"pods/exec\"? Kubernetes matches rules exactly, so this part of the entry denies nothing",
        "RBACConfig ext: spec.operator.policy.deny[1].apiGroups[0]: \"Apps\" is not an API group of Kubernetes, OLM or the input's CRDs; did you mean \"apps\"?",
    ];
    assert_eq!(unknown.len(), expected.len(), "{unknown:#?}");
    for (said, want) in unknown.iter().zip(expected) {
        assert!(said.starts_with(want), "{said}\n  wanted: {want}");
    }
    // Entries a careful admin writes: virtual resources, deputies' APIs, a
    // group the input does not define (only a warning), URL verbs, and a
    // bundle that uses the typo as a verb of its own changes nothing.
    let legit = "  bundleObjects: Drop\n  operator:\n    installNamespace: ops\n    policy:\n      deny:\n      - {apiGroups: [''], resources: [users, groups], verbs: [impersonate]}\n      - {apiGroups: [argoproj.io], resources: [applications], verbs: [create]}\n      - {apiGroups: [security.openshift.io], resources: [securitycontextconstraints], verbs: [use]}\n      - {nonResourceURLs: ['/healthz'], verbs: [post, put]}\n";
    let (_, results) = render_results(&files(&[]), &admin_config(legit));
    let unknown: Vec<&Coded> = results.iter().filter(|r| r.code == "policy-entry-unknown").collect();
    assert!(unknown.iter().all(|r| r.severity == "warning"), "{unknown:#?}");
    assert_eq!(unknown.len(), 2, "the OpenShift group and its resource, as warnings: {unknown:#?}");
    let decoy = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: decoy\nrules:\n- {apiGroups: [''], resources: [pods], verbs: [Bind]}\n";
    let (out, results) =
        render_results(&files(&[("bundle/manifests/zz.yaml", decoy.to_string())]), &admin_config(spec));
    assert_eq!(out.code, 1);
    assert!(results.iter().any(|r| r.code == "policy-entry-unknown" && r.message.contains("\"Bind\"")), "{results:#?}");
    // Written as Kubernetes reads it, the entry is judged: the bundle reads secrets.
    let fixed = "  bundleObjects: Drop\n  operator:\n    installNamespace: ops\n    policy:\n      deny:\n      - {apiGroups: [''], resources: [secrets], verbs: [get]}\n";
    let (out, results) = render_results(&files(&[]), &admin_config(fixed));
    assert_eq!(out.code, 1, "{}", said(&out));
    assert!(results.iter().all(|r| r.code != "policy-entry-unknown"), "{results:#?}");
    assert!(results.iter().any(|r| r.code == "policy-denied"), "{results:#?}");
}

/// A bundle Role and a RoleBinding to it, the binding written in `binding_ns`.
fn role_and_binding(role: &str, role_ns: &str, binding_ns: Option<&str>) -> String {
    let ns = binding_ns.map(|n| format!("  namespace: {n}\n")).unwrap_or_default();
    format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: '{role}'\n  namespace: {role_ns}\nrules:\n- {{apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get]}}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: ack-extra\n{ns}roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: '{role}'}}\nsubjects:\n- {{kind: ServiceAccount, name: ack-s3-controller, namespace: ops}}\n"
    )
}

/// Under `bundleObjects: Keep` a bundle RoleBinding is also applied where it
/// is written, and there it binds whatever Role of its name that namespace
/// holds: in kube-system, Kubernetes' own `system:controller:token-cleaner`,
/// which deletes secrets. The bundle's harmless Role of that name lands in
/// the install namespace, so the gate judged the harmless one and passed.
/// Closed in: `gate::holdings::bound`: every copy of a binding resolves
/// where it lands, and a copy whose Role the input does not hold there is
/// `bundle-role-foreign` (an error under a policy).
#[test]
fn a_kept_role_binding_cannot_borrow_a_role_the_cluster_holds_elsewhere() {
    let spec = format!("  bundleObjects: Keep\n  operator:\n    installNamespace: ops\n{ALLOW}");
    let cases = [
        ("system:controller:token-cleaner", Some("kube-system")),
        ("deployer", Some("team-a")),
        // Applied in whatever namespace the applier is in.
        ("deployer", None),
    ];
    for (role, binding_ns) in cases {
        let rbac = role_and_binding(role, "ops", binding_ns);
        let (out, results) = render_results(&files(&[("bundle/manifests/zz.yaml", rbac)]), &admin_config(&spec));
        assert_eq!(out.code, 1, "{role} in {binding_ns:?}: {}", said(&out));
        assert!(results.iter().any(|r| r.code == "bundle-role-foreign"), "{results:#?}");
    }
    // In the install namespace, beside its Role, it is judged as it is.
    let rbac = role_and_binding("deployer", "ops", Some("ops"));
    let (out, _) = render_results(&files(&[("bundle/manifests/zz.yaml", rbac)]), &admin_config(&spec));
    assert_eq!(out.code, 0, "{}", said(&out));
}

/// Two bundle Roles of one name, written in different namespaces, land as
/// one object in the install namespace: which one the cluster holds cannot be
/// told, and the gate judged whichever came last in the input.
/// Closed in: `gate::holdings::check_placed_twice`: an error under a policy,
/// whatever the order.
#[test]
fn two_bundle_roles_that_land_as_one_are_refused_in_either_order() {
    let spec = format!("  bundleObjects: Drop\n  operator:\n    installNamespace: ops\n{ALLOW}");
    let danger = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: ack-extra\n  namespace: team-a\nrules:\n- {apiGroups: [''], resources: [secrets, pods/exec], verbs: ['*']}\n";
    let benign = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: ack-extra\n  namespace: team-b\nrules:\n- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get]}\n";
    let binding = "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: ack-extra\n  namespace: ops\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ack-extra}\nsubjects:\n- {kind: ServiceAccount, name: ack-s3-controller, namespace: ops}\n";
    for (a, b) in [(danger, benign), (benign, danger)] {
        let rbac = format!("{a}---\n{b}---\n{binding}");
        let (out, results) = render_results(&files(&[("bundle/manifests/zz.yaml", rbac)]), &admin_config(&spec));
        assert_eq!(out.code, 1, "{}", said(&out));
        assert!(results.iter().any(|r| r.code == "input-duplicate"), "{results:#?}");
    }
}

/// The deputies: a bundle whose operator may create Subscriptions and Argo
/// CD Applications installs and deploys whatever it likes with OLM's and
/// Argo CD's rights, and was judged `pass` with no dangerous grant.
/// Closed in: `access::danger`'s catalogue ("install operators", "deploy
/// through a GitOps controller").
#[test]
fn a_deputy_api_is_a_dangerous_grant() {
    let rbac = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ack-deputy
rules:
- {apiGroups: [operators.coreos.com], resources: [subscriptions], verbs: [create]}
- {apiGroups: [argoproj.io], resources: [applications], verbs: [create, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ack-deputy
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ack-deputy}
subjects:
- {kind: ServiceAccount, name: ack-s3-controller, namespace: ops}
";
    let spec = "  bundleObjects: Drop\n  operator:\n    installNamespace: ops\n    policy: {}\n";
    let (_, results) = render_results(&files(&[("bundle/manifests/zz.yaml", rbac.to_string())]), &admin_config(spec));
    let dangerous: Vec<&str> =
        results.iter().filter(|r| r.code.starts_with("danger-")).map(|r| r.message.as_str()).collect();
    // A policy is set, without a ceiling: the fix is one.
    assert!(
        dangerous.iter().all(|m| m.ends_with(
            "add a ceiling (spec.operator.policy.allow) or a deny entry to decide whether the operator may hold it)"
        )),
        "{dangerous:#?}"
    );
    for what in ["install operators (critical)", "deploy through a GitOps controller (critical)"] {
        assert!(
            dangerous.iter().any(|m| m.contains("ClusterRole ack-deputy") && m.contains(what)),
            "{what}: {dangerous:#?}"
        );
    }
    for code in ["danger-install-operators", "danger-gitops-deploy"] {
        assert!(results.iter().any(|r| r.code == code), "{code}, a rule of its own: {results:#?}");
    }
}

/// The operator is a deputy too: a pod in its namespace may run as its
/// ServiceAccount, so a team given `edit` there (which creates pods) holds
/// the operator's cluster-wide secrets, and nothing said so.
/// Closed in: `gate::deputy::warn_who_can_become`: each subject of the
/// input's bindings that may create pods or workloads, exec into pods or
/// request the account's tokens in the install namespace is named, with
/// the operator's worst grant; the operator's own accounts are not.
#[test]
fn whoever_can_become_the_operator_is_named() {
    let team = "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: team-edit\n  namespace: ops\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}\nsubjects:\n- {kind: Group, name: team-a, apiGroup: rbac.authorization.k8s.io}\n";
    let spec = "  bundleObjects: Drop\n  operator:\n    installNamespace: ops\n    policy: {}\n";
    let mut inputs = files(&[]);
    inputs.push(Source { name: "admin/team.yaml".into(), text: team.into() });
    let (_, results) = render_results(&inputs, &admin_config(spec));
    let reachable: Vec<&str> =
        results.iter().filter(|r| r.code == "operator-reachable").map(|r| r.message.as_str()).collect();
    assert_eq!(reachable.len(), 1, "{results:#?}");
    assert!(
        reachable[0] == "RBACConfig ext: spec.operator.installNamespace: whoever may run a pod as ServiceAccount ops/ack-s3-controller holds what it holds: Group team-a (create pods, create or change workloads, change pods, exec into or attach to pods, create a token Secret for it and read it, request its tokens, impersonate it), and anyone bound to admin or edit there; for one, Group team-a → create pods in ops → ServiceAccount ops/ack-s3-controller → write secrets cluster-wide (high); bind no one else in namespace ops, or only to roles that create no pods there",
        "{}",
        reachable[0]
    );
    // The operator's own account, bound to make pods in its namespace, is no one else.
    let own = team.replace(
        "{kind: Group, name: team-a, apiGroup: rbac.authorization.k8s.io}",
        "{kind: ServiceAccount, name: ack-s3-controller, namespace: ops}",
    );
    let mut inputs = files(&[]);
    inputs.push(Source { name: "admin/team.yaml".into(), text: own });
    let (_, results) = render_results(&inputs, &admin_config(spec));
    assert!(results.iter().all(|r| r.code != "operator-reachable"), "{results:#?}");
    // Elsewhere, the team reaches nothing of the operator's.
    let elsewhere = team.replace("namespace: ops", "namespace: team-a");
    let mut inputs = files(&[]);
    inputs.push(Source { name: "admin/team.yaml".into(), text: elsewhere });
    let (_, results) = render_results(&inputs, &admin_config(spec));
    assert!(results.iter().all(|r| r.code != "operator-reachable"), "{results:#?}");
}

/// Bind mode's `edit` is the bundle's APIs' edit role, not Kubernetes' `edit`:
/// bound in the install namespace it creates no pods there, so it hands the
/// team none of the operator's rights, and nothing is warned (the evaluator
/// says the team cannot create pods or workloads there).
#[test]
fn a_bind_mode_edit_binding_in_the_install_namespace_makes_no_deputy() {
    let spec = "  mode: Bind\n  bindings:\n  - role: edit\n    subjects: [{kind: Group, name: team-a}]\n    namespaces: [ops]\n  bundleObjects: Drop\n  operator:\n    permissions: Cluster\n    installNamespace: ops\n";
    let (out, results) = render_results(&files(&[]), &admin_config(spec));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(results.iter().all(|r| r.code != "operator-reachable"), "{results:#?}");
    let p = policy(&out.stdout);
    let team = Identity::new("u", &["team-a".to_string()]);
    for (group, resource) in [("", "pods"), ("apps", "deployments"), ("batch", "jobs")] {
        let create = Request::on("create", group, resource, Some("ops"));
        assert!(p.can(&team, &create).is_none(), "team-a may create {resource} in ops");
    }
}

/// Found in review: without `installNamespace`, the operator's namespace is
/// known only by its part, and a delegated team may install into any of its
/// namespaces; a `deny` scoped to named namespaces must apply there too
/// (an OwnNamespace bundle under the SingleOwnNamespaceInstallSupport gate
/// is granted its `permissions` there, not cluster-wide).
/// Closed in: `gate::verdict::denies_in` reads the unnamed install namespace
/// as possibly any.
#[test]
fn a_deny_scoped_to_namespaces_applies_where_the_install_namespace_is_unnamed() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("rbac.yaml");
    let spec = "  mode: Aggregate\n  bundleObjects: Drop\n  olmFeatureGates: [SingleOwnNamespaceInstallSupport]\n  operator:\n    policy:\n      deny:\n      - {apiGroups: [''], resources: [secrets], verbs: [get], scope: Namespaces, namespaces: [monitoring]}\n";
    std::fs::write(&cfg, config("prometheus", spec)).unwrap();
    let root = bundles_dir().join("prometheus-0.56.3");
    let out = run_bin(&["render", "-c", cfg.to_str().unwrap(), root.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("spec.operator.policy.deny[0]"), "{}", text(&out.stderr));
}

/// Found in review: a bundle RoleBinding is judged in each place it lands
/// (OLM's copy in the install namespace, the applied one under `Keep`), but
/// what its subject is, is said once.
#[test]
fn a_bundle_bindings_foreign_subject_is_said_once() {
    let binding = "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: everyone\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}\nsubjects:\n- {kind: Group, name: system:authenticated, apiGroup: rbac.authorization.k8s.io}\n";
    let spec = "  bundleObjects: Keep\n  operator:\n    installNamespace: ops\n    policy: {}\n";
    let (out, _) =
        render_results(&files(&[("bundle/manifests/everyone.yaml", binding.to_string())]), &admin_config(spec));
    let said = out.stderr.lines().filter(|l| l.contains("RoleBinding everyone: subjects[0]")).count();
    assert_eq!(said, 1, "{}", out.stderr);
}

/// A bundle's CRD cannot make a typo in the admin's deny entry one that
/// exists: a CRD whose plural is `secret` left `resources: [secret]`
/// (meant as Kubernetes' `secrets`) a silent no-op, and the bundle, which
/// reads secrets cluster-wide, passed. Found in review.
/// Closed in: `gate::entries::unknown_parts`, which measures a name against
/// the platform's before the input's CRDs.
#[test]
fn a_bundle_crd_named_like_a_typo_does_not_hide_the_typo() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: secret.decoy.example.com\nspec:\n  group: decoy.example.com\n  names: {kind: Secret, plural: secret, singular: secret}\n  scope: Namespaced\n  versions:\n  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}\n";
    let spec = "  operator:\n    installNamespace: ops\n    policy:\n      deny:\n      - {apiGroups: ['*'], resources: [secret], verbs: [get]}\n";
    let (out, results) =
        render_results(&files(&[("bundle/manifests/decoy.yaml", crd.to_string())]), &admin_config(spec));
    assert_eq!(out.code, 1, "{}", out.stderr);
    let typo = results.iter().find(|r| r.code == "policy-entry-unknown" && r.severity == "error");
    assert!(typo.is_some_and(|r| r.message.contains("did you mean \"secrets\"?")), "{results:#?}");
}
