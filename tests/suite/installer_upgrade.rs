//! The installer during an upgrade (`spec.installer.upgradeFrom`): the
//! previous version's bundle is read beside the new one only for what
//! updating and deleting its objects takes. Check mode names what an account
//! lacks for it, the generated account can make every write the upgrade
//! makes (through the offline evaluator), and the old bundle changes nothing
//! else the render writes.

use olm_rbac::access::{Identity, Request};
use olm_rbac::run::{render, Outcome, Source};

use crate::common::*;
use crate::invariant::policy;

const FROM: &str = "argocd-operator.v0.6.0";
const INSTALLER: &str = "system:serviceaccount:argocd:argocd-installer";

/// Objects the synthetic previous version has and 0.19.0 drops: kinds the
/// operator's own grants do not cover (a CRD, a PriorityClass), and kinds
/// they do (a Service, and a Deployment renamed in the old CSV).
const OLD_ONLY: &str = "apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: argocd-old-priority
value: 1000
---
apiVersion: v1
kind: Service
metadata:
  name: argocd-old-webhook
spec:
  ports: [{port: 443}]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: oldthings.argoproj.io
spec:
  group: argoproj.io
  names: {kind: OldThing, plural: oldthings}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
";

fn spec(mode: &str, upgrade: bool) -> String {
    let from = if upgrade { format!("    upgradeFrom: {FROM}\n") } else { String::new() };
    format!(
        "  clusterServiceVersion: argocd-operator.v0.19.0\n  installer:\n    serviceAccount: {{name: argocd-installer, namespace: argocd}}\n    for: OLMv1\n    mode: {mode}\n{from}"
    )
}

/// A bundle's files as render reads them, under `folder/manifests/`.
fn files(bundle: &str, folder: &str) -> Vec<Source> {
    bundle_docs(bundle)
        .into_iter()
        .map(|(name, text)| Source { name: format!("{folder}/manifests/{name}"), text })
        .collect()
}

/// argocd 0.6.0 with objects 0.19.0 does not have, and its Deployment renamed.
fn old_bundle() -> Vec<Source> {
    let mut old = files("argocd-operator-0.6.0", "old");
    for s in old.iter_mut().filter(|s| s.text.contains("\nkind: ClusterServiceVersion\n")) {
        s.text =
            s.text.replace("- name: argocd-operator-controller-manager\n", "- name: argocd-operator-old-manager\n");
        assert!(s.text.contains("argocd-operator-old-manager"), "the old CSV's Deployment is renamed");
    }
    old.push(Source { name: "old/manifests/old-only.yaml".into(), text: OLD_ONLY.into() });
    old
}

fn run(inputs: Vec<Source>, spec: &str) -> Outcome {
    render(&inputs, &[Source { name: "admin/rbac.yaml".into(), text: config("argocd", spec) }])
}

/// The installer objects of a render's output, as the admin's own files.
fn account_of(output: &str) -> Source {
    let text: String = olm_rbac::yaml::split_documents(output)
        .unwrap()
        .iter()
        .filter(|d| d.header.labels.get("olm-rbac.io/role").map(String::as_str) == Some("installer"))
        .map(|d| format!("---\n{}", d.text.replace("managed-by: olm-rbac", "managed-by: the-admin")))
        .collect();
    assert!(!text.is_empty(), "the render wrote an installer account");
    Source { name: "admin/installer.yaml".into(), text }
}

fn errors(out: &Outcome) -> Vec<&str> {
    out.stderr.lines().filter(|l| l.starts_with("error:")).collect()
}

#[test]
fn check_names_what_an_account_for_the_new_version_alone_lacks_to_upgrade() {
    let alone = run(files("argocd-operator-0.19.0", "new"), &spec("Generate", false));
    assert_eq!(alone.code, 0, "{}", alone.stderr);
    let mut inputs = old_bundle();
    inputs.extend(files("argocd-operator-0.19.0", "new"));
    inputs.push(account_of(&alone.stdout));
    let out = run(inputs, &spec("Check", true));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.is_empty(), "no partial output");
    let who = "error: ServiceAccount argocd/argocd-installer: installer ServiceAccount argocd/argocd-installer";
    assert_eq!(
        errors(&out),
        [
            format!("{who} cannot upgrade from {FROM}, which deletes the old version's CustomResourceDefinition oldthings.argoproj.io: it lacks verbs=[get,update,patch,delete] apiGroups=[apiextensions.k8s.io] resources=[customresourcedefinitions] resourceNames=[oldthings.argoproj.io] cluster-wide"),
            format!("{who} cannot upgrade from {FROM}, which deletes the old version's PriorityClass argocd-old-priority: it lacks verbs=[get,update,patch,delete] apiGroups=[scheduling.k8s.io] resources=[priorityclasses] resourceNames=[argocd-old-priority] cluster-wide"),
        ],
        "the Service and the Deployment are covered by the operator's grants, which the installer holds: {}",
        out.stderr
    );
    let doc = std::fs::read_to_string(repo("docs/installer-account.md")).unwrap();
    assert!(doc.contains(errors(&out)[1]), "docs/installer-account.md quotes {}", errors(&out)[1]);
}

#[test]
fn an_account_generated_with_the_upgrade_in_view_passes_check_and_can_make_every_upgrade_write() {
    let mut inputs = old_bundle();
    inputs.extend(files("argocd-operator-0.19.0", "new"));
    let generated = run(inputs.clone(), &spec("Generate", true));
    assert_eq!(generated.code, 0, "{}", generated.stderr);
    inputs.push(account_of(&generated.stdout));
    let checked = run(inputs, &spec("Check", true));
    assert_eq!(checked.code, 0, "{}", checked.stderr);

    let p = policy(&generated.stdout);
    let who = Identity::new(INSTALLER, &[]);
    let can = |verb: &str, group: &str, resource: &str, name: Option<&str>, ns: Option<&str>| {
        let req = Request { name: name.map(String::from), ..Request::on(verb, group, resource, ns) };
        p.can(&who, &req).is_some()
    };
    // The old version's objects the new one drops: read, updated, deleted by name.
    let old_only = [
        ("apiextensions.k8s.io", "customresourcedefinitions", "oldthings.argoproj.io", None),
        ("scheduling.k8s.io", "priorityclasses", "argocd-old-priority", None),
        ("", "services", "argocd-old-webhook", Some("argocd")),
        ("apps", "deployments", "argocd-operator-old-manager", Some("argocd")),
    ];
    for (group, resource, name, ns) in old_only {
        for verb in ["get", "update", "patch", "delete"] {
            assert!(can(verb, group, resource, Some(name), ns), "{verb} {resource} {name}");
        }
    }
    // The new version's objects: created, and updated by name.
    let new_objects = [
        ("apiextensions.k8s.io", "customresourcedefinitions", "imageupdaters.argocd-image-updater.argoproj.io", None),
        ("", "services", "argocd-operator-webhook-service", Some("argocd")),
        ("rbac.authorization.k8s.io", "clusterroles", "argocd-operator-namespacemanagement-editor-role", None),
    ];
    for (group, resource, name, ns) in new_objects {
        assert!(can("create", group, resource, None, ns), "create {resource}");
        for verb in ["get", "update", "patch"] {
            assert!(can(verb, group, resource, Some(name), ns), "{verb} {resource} {name}");
        }
    }
    // By name only: the upgrade gives no delete on other PriorityClasses or CRDs.
    assert!(!can("delete", "scheduling.k8s.io", "priorityclasses", Some("system-cluster-critical"), None));
    assert!(!can("delete", "apiextensions.k8s.io", "customresourcedefinitions", Some("pods.example.io"), None));
}

#[test]
fn upgrading_argocd_from_0_6_0_to_0_19_0_needs_nothing_more_than_installing_0_19_0() {
    // 0.6.0's objects are all in 0.19.0 by name, so nothing is deleted.
    let mut inputs = files("argocd-operator-0.6.0", "old");
    inputs.extend(files("argocd-operator-0.19.0", "new"));
    let upgrade = run(inputs, &spec("Generate", true));
    let alone = run(files("argocd-operator-0.19.0", "new"), &spec("Generate", false));
    assert_eq!((upgrade.code.code(), alone.code.code()), (0, 0), "{}{}", upgrade.stderr, alone.stderr);
    assert_same_text(&upgrade.stdout, &alone.stdout, "the upgrade's render");
    // The previous version's files are left out of the output, and the run says so.
    let said = "info: RBACConfig argocd: spec.installer.upgradeFrom: the previous version \"argocd-operator.v0.6.0\": 9 object(s) from old/manifests read for the installer's upgrade only; they are not planned from or written";
    assert!(upgrade.stderr.contains(said), "{}", upgrade.stderr);
}

#[test]
fn the_old_bundle_cannot_widen_anything_the_new_install_writes() {
    // A previous version that aggregates into admin and binds cluster-admin:
    // input only, so none of it reaches the roles, bindings or gate.
    let hostile = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: argocd-old-everything
  labels: {rbac.authorization.k8s.io/aggregate-to-admin: \"true\"}
rules: [{apiGroups: [\"*\"], resources: [\"*\"], verbs: [\"*\"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: argocd-old-admin
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: Group, name: system:authenticated, apiGroup: rbac.authorization.k8s.io}]
";
    let mut inputs = old_bundle();
    inputs.push(Source { name: "old/manifests/hostile.yaml".into(), text: hostile.into() });
    inputs.extend(files("argocd-operator-0.19.0", "new"));
    let aggregate = "  mode: Aggregate\n";
    let upgrade = run(inputs, &format!("{aggregate}{}", spec("Generate", true)));
    let alone = run(files("argocd-operator-0.19.0", "new"), &format!("{aggregate}{}", spec("Generate", false)));
    assert_eq!((upgrade.code.code(), alone.code.code()), (0, 0), "{}{}", upgrade.stderr, alone.stderr);
    assert!(!upgrade.stdout.contains("argocd-old-everything"), "the old bundle is not written");
    let not_installer = |out: &str| -> Vec<String> {
        olm_rbac::yaml::split_documents(out)
            .unwrap()
            .iter()
            .filter(|d| d.header.labels.get("olm-rbac.io/role").map(String::as_str) != Some("installer"))
            .map(|d| d.text.to_string())
            .collect()
    };
    assert_eq!(
        not_installer(&upgrade.stdout),
        not_installer(&alone.stdout),
        "everything but the installer is the same"
    );
    // The installer gains only by-name rules on the old names: the hostile
    // ClusterRole's and ClusterRoleBinding's, which it may delete, not grant.
    let (up, before) = (policy(&upgrade.stdout), policy(&alone.stdout));
    let who = Identity::new(INSTALLER, &[]);
    let can = |p: &olm_rbac::access::Policy, verb: &str, resource: &str, name: &str| {
        let req = Request { name: Some(name.into()), ..Request::on(verb, "", resource, Some("argocd")) };
        p.can(&who, &req).is_some()
    };
    for resource in ["secrets", "pods", "nodes"] {
        assert_eq!(can(&up, "get", resource, "x"), can(&before, "get", resource, "x"), "{resource}");
    }
    let admin = Identity::new("someone", &[]);
    assert!(
        up.can(&admin, &Request::on("get", "", "secrets", Some("argocd"))).is_none(),
        "no binding from the old bundle"
    );
}

#[test]
fn upgrade_from_a_version_the_input_does_not_hold_is_an_error_naming_the_field() {
    let out = run(files("argocd-operator-0.19.0", "new"), &spec("Generate", true));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.is_empty(), "no partial output");
    assert_eq!(
        errors(&out),
        [format!("error: RBACConfig argocd: spec.installer.upgradeFrom: the input holds no ClusterServiceVersion \"{FROM}\" in a bundle folder of its own: pass the previous version's bundle folder to render beside the new one")]
    );
    let doc = std::fs::read_to_string(repo("docs/installer-account.md")).unwrap();
    assert!(doc.contains(errors(&out)[0]), "docs/installer-account.md quotes {}", errors(&out)[0]);
}

#[test]
fn a_new_bundle_cannot_pass_its_own_folder_off_as_the_previous_version() {
    // The new bundle ships a ClusterServiceVersion (of any group) under the
    // name upgradeFrom gives, hoping its own folder is taken for the previous
    // version's, out of the output and unread by the gate: two CSVs of that
    // name leave the previous version unknown, so the run is refused and
    // nothing is written (and with the fake alone, its folder holds the CSV
    // being installed, which is refused too).
    let mut inputs = old_bundle();
    inputs.extend(new_with_fake());
    let out = run(inputs, &spec("Generate", true));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.is_empty(), "no partial output");
    assert!(
        out.stderr.contains("the input holds 2 ClusterServiceVersions named \"argocd-operator.v0.6.0\""),
        "{}",
        out.stderr
    );
    let alone: Vec<Source> = new_with_fake().into_iter().filter(|s| s.name.starts_with("new/")).collect();
    let out = run(alone, &spec("Generate", true));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.is_empty(), "no partial output");
    assert!(
        out.stderr.contains("the previous version's bundle folder also holds this ClusterServiceVersion"),
        "{}",
        out.stderr
    );
}

/// The new bundle with a ClusterServiceVersion of another group named like the previous version.
fn new_with_fake() -> Vec<Source> {
    let mut new = files("argocd-operator-0.19.0", "new");
    let fake = format!("apiVersion: evil.example.com/v1\nkind: ClusterServiceVersion\nmetadata:\n  name: {FROM}\n");
    new.insert(0, Source { name: "new/manifests/000-fake.yaml".into(), text: fake });
    new
}
