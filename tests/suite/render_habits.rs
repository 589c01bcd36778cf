//! `render` as kubectl's users expect it: `-f` as well as paths, `-o yaml|json`,
//! `-q`, a bundle's root read as a bundle, and no waiting on a terminal.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::*;

const CONFIG: &str =
    "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: guestbook\nspec:\n  mode: Aggregate\n";

/// Runs the binary in `dir` with `args`, stdin empty.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN).args(args).current_dir(dir).stdin(Stdio::null()).output().unwrap()
}

/// A scratch folder with the guestbook bundle laid out as a bundle's root
/// (`bundle/manifests`, `bundle/metadata`, `bundle/tests/scorecard`) and the config.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let at = |p: &str| dir.path().join(p);
    copy_dir(&repo("examples/guestbook/manifests"), &at("bundle/manifests"));
    std::fs::create_dir_all(at("bundle/metadata")).unwrap();
    std::fs::write(
        at("bundle/metadata/annotations.yaml"),
        "annotations:\n  operators.operatorframework.io.bundle.package.v1: guestbook-operator\n",
    )
    .unwrap();
    std::fs::create_dir_all(at("bundle/tests/scorecard")).unwrap();
    std::fs::write(
        at("bundle/tests/scorecard/config.yaml"),
        "apiVersion: scorecard.operatorframework.io/v1alpha3\nkind: Configuration\nmetadata:\n  name: config\n",
    )
    .unwrap();
    std::fs::write(at("rbac.yaml"), CONFIG).unwrap();
    dir
}

#[test]
fn f_reads_files_as_positional_paths_do() {
    let dir = scratch();
    let positional = run_in(dir.path(), &["render", "--config", "rbac.yaml", "bundle/manifests"]);
    let with_f = run_in(dir.path(), &["render", "--config", "rbac.yaml", "-f", "bundle/manifests"]);
    assert_eq!(positional.status.code(), Some(0), "{}", text(&positional.stderr));
    assert_eq!(text(&with_f.stdout), text(&positional.stdout));
    // Repeatable, and read before the positional paths.
    let files: Vec<String> = std::fs::read_dir(dir.path().join("bundle/manifests"))
        .unwrap()
        .map(|e| format!("bundle/manifests/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    let mut args = vec!["render", "-c", "rbac.yaml"];
    for f in &files[1..] {
        args.extend(["-f", f.as_str()]);
    }
    args.push(&files[0]);
    let out = run_in(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let first = std::fs::read_to_string(dir.path().join(&files[1])).unwrap();
    assert!(text(&out.stdout).starts_with(&first), "-f files come first");
}

#[test]
fn a_bundle_root_is_read_as_a_bundle_and_says_so() {
    let dir = scratch();
    let out = run_in(dir.path(), &["render", "--config", "rbac.yaml", "bundle/"]);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stdout.contains("operators.operatorframework.io.bundle.package.v1"), "metadata/ is not emitted");
    assert!(!stdout.contains("kind: Configuration"), "tests/ is not emitted");
    assert!(!stderr.contains("not a Kubernetes object"), "{stderr}");
    assert!(
        stderr.lines().next().is_some_and(|l| l == "info: bundle/: read as an OLM bundle (registry+v1 layout): its objects are in manifests/; metadata/ (the bundle's annotations) and tests/ (its scorecard tests) were not read, since they hold no objects to apply"),
        "{stderr}"
    );
    // The same objects as naming manifests/ itself.
    let manifests = run_in(dir.path(), &["render", "--config", "rbac.yaml", "bundle/manifests"]);
    assert_eq!(stdout, text(&manifests.stdout));
}

#[test]
fn output_json_is_one_list_of_the_same_objects() {
    let dir = scratch();
    let yaml = run_in(dir.path(), &["render", "-c", "rbac.yaml", "bundle/manifests"]);
    let json = run_in(dir.path(), &["render", "-c", "rbac.yaml", "-o", "json", "bundle/manifests"]);
    assert_eq!(json.status.code(), Some(0), "{}", text(&json.stderr));
    assert_eq!(json.stderr, yaml.stderr, "the same results");
    let list: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!((list["apiVersion"].as_str(), list["kind"].as_str()), (Some("v1"), Some("List")));
    assert!(text(&json.stdout).starts_with("{\n    \"apiVersion\": \"v1\",\n    \"items\": ["), "kubectl's layout");
    let rendered = text(&yaml.stdout);
    let docs = olm_rbac::yaml::split_documents(&rendered).unwrap();
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), docs.len());
    for (item, doc) in items.iter().zip(&docs) {
        let from_yaml: serde_json::Value = serde_saphyr::from_str(&doc.text).unwrap();
        assert_eq!(item, &from_yaml, "{}", doc.text);
    }
}

#[test]
fn output_json_refuses_a_value_kubectl_reads_otherwise() {
    let dir = scratch();
    std::fs::write(
        dir.path().join("bundle/manifests/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: modes\ndata:\n  mode: 0644\n",
    )
    .unwrap();
    let out = run_in(dir.path(), &["render", "-c", "rbac.yaml", "-o", "json", "bundle/manifests"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        text(&out.stderr),
        "error: ConfigMap modes: cannot be written as JSON: the plain value \"0644\" reads otherwise to kubectl's YAML 1.1 (a number or a boolean where YAML 1.2 reads something else), so its JSON would not be what kubectl applies; quote it in the input, or use -o yaml, which passes it through as written (line 6) [bundle/manifests/cm.yaml#0]\n1 error, 0 warnings\n"
    );
    // -o yaml passes it through as written.
    let out = run_in(dir.path(), &["render", "-c", "rbac.yaml", "bundle/manifests"]);
    assert!(text(&out.stdout).contains("  mode: 0644\n"));
}

#[test]
fn quiet_leaves_only_errors_on_stderr() {
    let dir = scratch();
    let out = run_in(dir.path(), &["render", "-c", "rbac.yaml", "-q", "bundle/"]);
    assert_eq!((out.status.code(), text(&out.stderr).as_str()), (Some(0), ""));
    std::fs::write(dir.path().join("bundle/manifests/bad.yaml"), "kind: A\n  b: [\n").unwrap();
    let out = run_in(dir.path(), &["render", "-c", "rbac.yaml", "--quiet", "bundle/"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.lines().all(|l| l.starts_with("error: ")) && stderr.lines().count() == 1, "{stderr}");
}

/// Runs `command` with a terminal as stdin, under util-linux `script`.
fn on_a_terminal(dir: &Path, command: &str) -> Output {
    Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| {
            panic!("util-linux `script` is needed to give the binary a terminal ({e}): install util-linux")
        })
}

#[test]
fn render_and_the_function_do_not_wait_on_a_terminal() {
    let dir = scratch();
    let out = on_a_terminal(dir.path(), &format!("'{BIN}' render --config rbac.yaml"));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("error: render without a path reads manifests from stdin, and stdin is a terminal: pass files or directories (olm-rbac render --config rbac.yaml bundle/manifests/), or pipe them in (helm template my-release chart/ | olm-rbac render --config rbac.yaml -)"),
        "{}",
        text(&out.stdout)
    );
    let out = on_a_terminal(dir.path(), &format!("'{BIN}'"));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("error: olm-rbac without a command is a KRM function and reads a ResourceList from stdin, and stdin is a terminal: run it through kpt or kustomize, or render plain manifests with olm-rbac render (see olm-rbac --help)"),
        "{}",
        text(&out.stdout)
    );
    // With a path, the terminal does not matter.
    let out = on_a_terminal(dir.path(), &format!("'{BIN}' render --config rbac.yaml bundle/manifests"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}
