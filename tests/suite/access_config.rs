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
