//! The access checks with the admin's config (issue 49): `can-i`, `who-can`
//! and `report` with `-c` judge their `-f` paths as render judges them and
//! answer over the cluster after the install, as `diff -c` compares it;
//! without it, a rendered input that binds a role it does not hold is
//! warned about. And a bundle's root is read as OLM reads it: `manifests/`
//! alone, whatever else sits beside it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{copy_dir, repo, run, run_bin, text, BIN};

/// The OLM v1 setup the user guide describes: Bind mode, the bundle's
/// objects dropped from the output (OLM installs them), the operator's
/// permissions left to OLM.
const OLM_V1: &str = "apiVersion: olm-rbac.io/v1alpha1
kind: RBACConfig
metadata:
  name: memcached
spec:
  mode: Bind
  bundleObjects: Drop
  bindings:
  - role: edit
    subjects: [{kind: Group, name: memcached-editors}]
  operator:
    permissions: Unmanaged
    installNamespace: memcached
";

/// memcached-operator ships its editor and viewer roles, which Bind mode binds.
fn memcached() -> PathBuf {
    repo("tests/fixtures/bundles/memcached-operator-0.0.1")
}

/// A scratch folder with the config, and render's output for the bundle.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new(config: &str) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("rbac.yaml"), config).unwrap();
        Setup { dir }
    }

    fn config(&self) -> String {
        self.dir.path().join("rbac.yaml").display().to_string()
    }

    /// render's output for the bundle, as a file.
    fn rendered(&self) -> String {
        let out = run_bin(&["render", "-q", "-c", &self.config(), memcached().to_str().unwrap()], "");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let path = self.dir.path().join("rendered.yaml");
        std::fs::write(&path, &out.stdout).unwrap();
        path.display().to_string()
    }
}

const CREATE_MEMCACHEDS: [&str; 6] =
    ["can-i", "create", "memcacheds.cache.example.com", "--as", "ann", "--as-group=memcached-editors"];

#[test]
fn can_i_without_the_config_says_no_and_warns_and_with_it_says_yes_through_the_bundle_role() {
    let setup = Setup::new(OLM_V1);
    let rendered = setup.rendered();
    let blind = run_bin(&[&CREATE_MEMCACHEDS[..], &["-f", &rendered]].concat(), "");
    assert_eq!(blind.status.code(), Some(1), "the render binds a role it does not hold: {}", text(&blind.stderr));
    let stderr = text(&blind.stderr);
    assert!(
        stderr.lines().any(|l| l.starts_with("warning: ClusterRoleBinding ")
            && l.contains("binds ClusterRole memcached-operator-memcached-editor-role, which is neither in the input nor one of Kubernetes' built-in roles")
            && l.contains("-c CONFIG -f BUNDLE")),
        "{stderr}"
    );
    let quiet = run_bin(&[&CREATE_MEMCACHEDS[..], &["-f", &rendered, "-q"]].concat(), "");
    assert_eq!((quiet.status.code(), text(&quiet.stderr)), (Some(1), String::new()), "-q says nothing");

    let bundle = memcached().display().to_string();
    let seen = run_bin(&[&CREATE_MEMCACHEDS[..], &["-c", &setup.config(), "-f", &bundle, "--explain"]].concat(), "");
    assert_eq!(seen.status.code(), Some(0), "{}", text(&seen.stderr));
    assert!(text(&seen.stdout).contains("memcached-operator-memcached-editor-role"), "{}", text(&seen.stdout));
    assert!(!text(&seen.stderr).contains("neither in the input"), "{}", text(&seen.stderr));
    // Stdin, as -f -.
    let bundle_yaml: String = std::fs::read_dir(memcached().join("manifests"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<Vec<_>>()
        .join("\n---\n");
    let piped = run_bin(&[&CREATE_MEMCACHEDS[..], &["-c", &setup.config(), "-q"]].concat(), &bundle_yaml);
    assert_eq!(piped.status.code(), Some(0), "{}", text(&piped.stderr));
}

#[test]
fn who_can_with_the_config_names_the_operators_account_as_olm_grants_it() {
    let setup = Setup::new(OLM_V1);
    let account = "ServiceAccount memcached/memcached-operator-controller-manager";
    let ask = |input: &[&str]| {
        let out = run_bin(&[&["who-can", "patch", "deployments.apps", "-A", "-q"][..], input].concat(), "");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert!(!ask(&["-f", &setup.rendered()]).contains(account), "OLM's grant is not in render's output");
    let bundle = memcached().display().to_string();
    let seen = ask(&["-c", &setup.config(), "-f", &bundle]);
    assert!(seen.lines().any(|l| l.starts_with(account) && l.contains("cluster-wide")), "{seen}");
}

#[test]
fn report_with_the_config_sees_the_api_used_through_the_bundle_roles() {
    let setup = Setup::new(OLM_V1);
    let report = |input: &[&str]| -> Value {
        let out = run_bin(&[&["report", "-o", "json", "-q"][..], input].concat(), "");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let blind = report(&["-f", &setup.rendered()]);
    assert_eq!(blind["clusterAdminsOnly"], serde_json::json!(["memcacheds.cache.example.com"]), "{blind}");
    let bundle = memcached().display().to_string();
    let seen = report(&["-c", &setup.config(), "-f", &bundle]);
    assert_eq!(seen["clusterAdminsOnly"], serde_json::json!([]), "{seen}");
    let api = &seen["extensions"][0]["apis"][0];
    assert_eq!(api["api"], "memcacheds.cache.example.com", "{seen}");
    assert!(api["edit"].to_string().contains("memcached-editors"), "{seen}");
}

#[test]
fn with_the_config_what_render_refuses_is_refused_and_a_missing_config_is_an_input_error() {
    let policy = OLM_V1.replace(
        "    installNamespace: memcached\n",
        "    installNamespace: memcached\n    policy:\n      deny:\n      - {apiGroups: [apps], resources: [deployments], verbs: [create], scope: Cluster}\n",
    );
    let setup = Setup::new(&policy);
    let bundle = memcached().display().to_string();
    for command in [&CREATE_MEMCACHEDS[..], &["who-can", "get", "pods"], &["report"]] {
        let out = run_bin(&[command, &["-c", &setup.config(), "-f", &bundle]].concat(), "");
        assert_eq!(out.status.code(), Some(1), "{command:?}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "{command:?}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("spec.operator.policy.deny[0]")
                && stderr.contains("render refuses it with")
                && stderr.contains("so there is no install to answer for"),
            "{command:?}: {stderr}"
        );
    }
    let missing = setup.dir.path().join("no-such-config.yaml").display().to_string();
    for command in [&CREATE_MEMCACHEDS[..], &["who-can", "get", "pods"], &["report"]] {
        let out = run_bin(&[command, &["-c", &missing, "-f", &bundle]].concat(), "");
        assert_eq!(out.status.code(), Some(2), "{command:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("no-such-config.yaml"), "{command:?}: {}", text(&out.stderr));
    }
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    run(Command::new(BIN).current_dir(dir).args(args), "")
}

/// grafana-operator 5.24.0's bundle folder holds a stray `bundle/` copy of
/// its manifests: OLM installs only `manifests/`, and so every command reads
/// it; the stray copy is named, not read.
#[test]
fn a_stray_folder_beside_a_bundles_manifests_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("rbac.yaml"), OLM_V1).unwrap();
    let (plain, stray) = (dir.path().join("plain"), dir.path().join("stray"));
    copy_dir(&memcached(), &plain.join("memcached"));
    copy_dir(&memcached(), &stray.join("memcached"));
    copy_dir(&memcached().join("manifests"), &stray.join("memcached/bundle/manifests"));
    copy_dir(&memcached().join("metadata"), &stray.join("memcached/bundle/metadata"));
    std::fs::write(stray.join("memcached/extra.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
        .unwrap();

    let render = |root: &Path| run_in(root, &["render", "-c", "../rbac.yaml", "memcached"]);
    let (want, got) = (render(&plain), render(&stray));
    assert_eq!(got.status.code(), Some(0), "{}", text(&got.stderr));
    assert_eq!(text(&got.stdout), text(&want.stdout), "the same output as without the stray copy");
    let stderr = text(&got.stderr);
    assert!(
        stderr.contains("warning: memcached: bundle/, extra.yaml were not read: of a bundle's root OLM installs only what manifests/ holds"),
        "{stderr}"
    );

    let config = dir.path().join("rbac.yaml").display().to_string();
    let (old, new) = (plain.join("memcached").display().to_string(), stray.join("memcached").display().to_string());
    let diff = run_bin(&["diff", "-c", &config, &old, &new, "-o", "json"], "");
    assert_eq!(diff.status.code(), Some(0), "no duplicates, no change: {}", text(&diff.stderr));
    let json: Value = serde_json::from_slice(&diff.stdout).unwrap();
    assert_eq!(json["gained"], serde_json::json!([]), "{json}");
    // The access checks read the root so too.
    let can_i = run_bin(&[&CREATE_MEMCACHEDS[..], &["-c", &config, "-f", &new, "-q"]].concat(), "");
    assert_eq!(can_i.status.code(), Some(0), "{}", text(&can_i.stderr));
}

/// Review finding: a config that says nothing of the operator (no
/// `spec.operator`) still answers over OLM v1's grant of its permissions,
/// which the cluster holds whatever the config judges: `who-can` names the
/// account (in the install namespace's stand-in) and `diff -c` sees what a
/// new version adds to it.
#[test]
fn without_spec_operator_the_checks_still_hold_what_olm_grants() {
    let setup = Setup::new(
        "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n",
    );
    let bundles = repo("tests/fixtures/catalogs/csv-metadata-only/bundles/kube-green");
    let (old, new) = (bundles.join("0.5.2").display().to_string(), bundles.join("0.7.0").display().to_string());
    let who = run_bin(&["who-can", "patch", "statefulsets.apps", "-A", "-q", "-c", &setup.config(), "-f", &new], "");
    let said = text(&who.stdout);
    assert!(
        said.lines().any(|l| l.starts_with("ServiceAccount (the install namespace)/kube-green-controller-manager")),
        "{said}"
    );
    let diff = run_bin(&["diff", "-c", &setup.config(), &old, &new, "-o", "json"], "");
    assert_eq!(diff.status.code(), Some(1), "0.7.0 adds statefulsets to the operator: {}", text(&diff.stderr));
}

/// Review finding: OLM writes a bundle's namespaced roles and bindings into
/// the install namespace, whatever namespace they name; `-c` answers so, as
/// render judges them.
#[test]
fn with_the_config_a_bundles_rolebinding_is_where_olm_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("bundle");
    let csv = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: hb-op.v1.0.0\nspec:\n  version: 1.0.0\n  installModes:\n  - {type: AllNamespaces, supported: true}\n  install:\n    strategy: deployment\n    spec:\n      deployments:\n      - name: op\n        spec:\n          selector: {matchLabels: {app: op}}\n          template:\n            metadata: {labels: {app: op}}\n            spec:\n              serviceAccountName: op\n              containers: [{name: op, image: example.com/op@sha256:0000000000000000000000000000000000000000000000000000000000000000}]\n";
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: sec, namespace: kube-system}\nrules:\n- {apiGroups: [\"\"], resources: [secrets], verbs: [get]}\n";
    let binding = "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: sec, namespace: kube-system}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: sec}\nsubjects: [{kind: ServiceAccount, name: op}]\n";
    std::fs::create_dir_all(bundle.join("manifests")).unwrap();
    std::fs::create_dir_all(bundle.join("metadata")).unwrap();
    for (name, text) in [("csv.yaml", csv), ("role.yaml", role), ("binding.yaml", binding)] {
        std::fs::write(bundle.join("manifests").join(name), text).unwrap();
    }
    std::fs::write(
        bundle.join("metadata/annotations.yaml"),
        "annotations:\n  operators.operatorframework.io.bundle.package.v1: hb-op\n",
    )
    .unwrap();
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: hb\nspec:\n  mode: Aggregate\n  allowNoAPIs: true\n  bundleObjects: Drop\n  operator:\n    installNamespace: hb\n").unwrap();
    let (config, bundle) = (config.display().to_string(), bundle.display().to_string());
    let ask = |ns: &str| {
        let account = format!("system:serviceaccount:{ns}:op");
        run_bin(&["can-i", "get", "secrets", "-n", ns, "--as", &account, "-q", "-c", &config, "-f", &bundle], "")
    };
    assert_eq!(ask("hb").status.code(), Some(0), "OLM writes the binding into hb: {}", text(&ask("hb").stderr));
    assert_eq!(ask("kube-system").status.code(), Some(1), "nothing is written into kube-system");
}

/// Without `-c`, a bundle's ClusterServiceVersion read as it is says what
/// the answers leave out: OLM's grant of its permissions at install.
#[test]
fn without_the_config_a_csvs_grants_are_warned_of() {
    let bundle = memcached().display().to_string();
    let out = run_bin(&["who-can", "patch", "deployments.apps", "-A", "-f", &bundle], "");
    let said = text(&out.stderr);
    assert!(
        said.contains("grants ServiceAccount memcached-operator-controller-manager its permissions when OLM installs the bundle, and no binding in the input names that account"),
        "{said}"
    );
    assert!(!text(&out.stdout).contains("memcached-operator-controller-manager"));
    let quiet = run_bin(&["who-can", "patch", "deployments.apps", "-A", "-q", "-f", &bundle], "");
    assert_eq!(text(&quiet.stderr), "");
}

/// A hostile input's names reach the warnings (`role-unheld`,
/// `grant-unheld`), and no control character of theirs reaches the terminal:
/// standard error is written escaped, whatever message names them.
#[test]
fn names_in_the_warnings_cannot_drive_the_terminal() {
    let input = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: x.v1.0.0\nspec:\n  install:\n    strategy: deployment\n    spec:\n      clusterPermissions:\n      - serviceAccountName: \"evil\\e[2Jname\"\n        rules: [{apiGroups: [\"\"], resources: [pods], verbs: [get]}]\n      deployments: []\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: \"b\\e[31m\"}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: \"gone\\u202e\"}\nsubjects: [{kind: User, name: u}]\n";
    let out = run_bin(&["who-can", "get", "pods", "-A"], input);
    let said = text(&out.stderr);
    assert!(said.contains("grants ServiceAccount evil\\u{1b}[2Jname its permissions"), "{said}");
    assert!(said.contains("binds ClusterRole gone\\u{202e}, which is neither"), "{said}");
    assert!(!said.contains('\u{1b}') && !said.contains('\u{202e}'), "{said}");
}
