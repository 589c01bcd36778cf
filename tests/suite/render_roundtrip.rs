//! Files and streams agree: a saved output given back to `render` as a file
//! renders again byte for byte, as it does on stdin, with the same results;
//! and nothing about that lets a bundle's forged claims count.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::*;
use olm_rbac::run::{render, Source};

fn run_in(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = stdin {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    }
    child.wait_with_output().unwrap()
}

/// The results without the file each names, which differ by design between runs on different files.
fn results(stderr: &[u8]) -> Vec<String> {
    text(stderr)
        .lines()
        .filter(|l| !l.contains("read as an OLM bundle"))
        .map(|l| l.rsplit_once(" [").map_or(l, |(head, _)| head).to_string())
        .collect()
}

/// Renders `bundle` (a fixture, as a bundle's root) with `spec` into
/// `out/rendered.yaml`, then renders that file again, and from stdin.
fn round_trip(bundle: &str, spec: &str) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&bundles_dir().join(bundle), &dir.path().join("bundle"));
    std::fs::write(dir.path().join("rbac.yaml"), config("ext", &admin_spec(bundle, spec))).unwrap();
    let first = run_in(dir.path(), &["render", "--config", "rbac.yaml", "bundle/"], None);
    assert_eq!(first.status.code(), Some(0), "{bundle}: {}", text(&first.stderr));
    let saved = text(&first.stdout);
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    std::fs::write(dir.path().join("out/rendered.yaml"), &saved).unwrap();
    std::fs::write(dir.path().join("rendered.yaml"), &saved).unwrap();
    for path in ["out/rendered.yaml", "rendered.yaml"] {
        let again = run_in(dir.path(), &["render", "--config", "rbac.yaml", path], None);
        assert_eq!(again.status.code(), Some(0), "{bundle} {path}: {}", text(&again.stderr));
        assert_same_text(&text(&again.stdout), &saved, &format!("{bundle}: {path} rendered again"));
        // The one difference: a saved file holding the CSV sits in what reads as
        // a bundle's folder, so the namespaced bindings in it are measured as
        // the bundle's would be (OLM would put those in the install namespace);
        // without a policy, that is a warning per subject, and nothing else.
        let (again_results, first_results) = (results(&again.stderr), results(&first.stderr));
        let measured = |r: &&String| r.contains(": the bundle grants ") && r.starts_with("warning: RoleBinding ");
        let summary = |r: &&String| r.ends_with(" warnings") || r.ends_with(" warning");
        let same = |rs: &[String]| rs.iter().filter(|r| !measured(r) && !summary(r)).cloned().collect::<Vec<_>>();
        assert_eq!(same(&again_results), same(&first_results), "{bundle} {path}: the same results");
    }
    let piped = run_in(dir.path(), &["render", "--config", "rbac.yaml", "-"], Some(&saved));
    assert_same_text(&text(&piped.stdout), &saved, &format!("{bundle}: on stdin"));
}

#[test]
fn a_saved_output_given_back_as_a_file_renders_byte_identical() {
    round_trip("argocd-operator-0.19.0", "  mode: Aggregate\n");
    round_trip(
        "ack-s3-controller-1.10.0",
        "  mode: Bind\n  bindings:\n  - role: edit\n    subjects: [{kind: Group, name: devs}]\n    namespaces: [team-a]\n  operator:\n    permissions: Namespaces\n    installNamespace: ack-system\n",
    );
}

const FOO_CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: foos.example.com\nspec:\n  group: example.com\n  names: {plural: foos, kind: Foo}\n  scope: Namespaced\n  versions: [{name: v1, served: true, storage: true}]\n";
const FOO_CSV: &str = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: op.v1.0.0\nspec:\n  customresourcedefinitions:\n    owned: [{name: foos.example.com, version: v1, kind: Foo}]\n";

/// The bundle, in its own folder, and `extra` documents beside its CSV.
fn foo_bundle(extra: &[&str]) -> Vec<Source> {
    let mut out = vec![
        Source { name: "bundle/manifests/foos.yaml".into(), text: FOO_CRD.into() },
        Source { name: "bundle/manifests/op.clusterserviceversion.yaml".into(), text: FOO_CSV.into() },
    ];
    out.extend(
        extra
            .iter()
            .enumerate()
            .map(|(i, t)| Source { name: format!("bundle/manifests/x{i}.yaml"), text: t.to_string() }),
    );
    out
}

#[test]
fn a_claim_in_a_bundle_folder_counts_only_as_exactly_what_the_run_writes() {
    let cfg = [Source { name: "rbac.yaml".into(), text: config("ext", "  mode: Aggregate\n") }];
    let clean = render(&foo_bundle(&[]), &cfg);
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    let admin = clean.stdout.split("---\n").find(|d| d.contains("name: foos.example.com-admin\n")).unwrap().to_string();
    // The bundle ships the very role olm-rbac writes: replacing it changes nothing.
    let same = render(&foo_bundle(&[&admin]), &cfg);
    assert_eq!(same.code, 0, "{}", same.stderr);
    assert_eq!(same.stdout, clean.stdout);
    assert_eq!(same.stderr, clean.stderr);
    // One verb more: the claim is not believed, the role is kept, and the generated one conflicts.
    let more = admin.replace("  - \"*\"\n", "  - \"*\"\n  - escalate\n");
    assert_ne!(more, admin);
    let forged = render(&foo_bundle(&[&more]), &cfg);
    assert_eq!(forged.code, 1, "{}", forged.stderr);
    assert!(
        forged.stderr.contains("it comes from a bundle's own folder, where olm-rbac never writes"),
        "{}",
        forged.stderr
    );
    assert!(
        forged.stderr.contains("conflict: olm-rbac would generate ClusterRole foos.example.com-admin"),
        "{}",
        forged.stderr
    );
    // A role this run does not write (edit is left out) is never believed: with
    // stripBundleAggregation its aggregation label goes, as on any bundle role.
    let edit = clean.stdout.split("---\n").find(|d| d.contains("name: foos.example.com-edit\n")).unwrap().to_string();
    let cfg = [Source {
        name: "rbac.yaml".into(),
        text: config("ext", "  mode: Aggregate\n  roles: [admin, view]\n  stripBundleAggregation: true\n"),
    }];
    let out = render(&foo_bundle(&[&edit]), &cfg);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("ClusterRole foos.example.com-edit: removed its aggregation labels"), "{}", out.stderr);
    assert!(!out.stdout.contains("    rbac.authorization.k8s.io/aggregate-to-edit: \"true\"\n"), "{}", out.stdout);
}

#[test]
fn a_run_on_its_own_output_reports_what_the_first_reported() {
    // No API to manage, and the operator's roles generated: the "no API" result
    // counts what the input holds, not what olm-rbac wrote on the first run.
    let csv = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: op.v1.0.0\nspec:\n  install:\n    strategy: deployment\n    spec:\n      clusterPermissions:\n      - serviceAccountName: op\n        rules: [{apiGroups: [\"\"], resources: [configmaps], verbs: [get]}]\n      deployments: [{name: op, spec: {template: {spec: {serviceAccountName: op}}}}]\n  installModes: [{type: AllNamespaces, supported: true}]\n";
    let cfg = [Source {
        name: "rbac.yaml".into(),
        text: config("ext", "  mode: Unmanaged\n  operator:\n    permissions: Cluster\n    installNamespace: ops\n"),
    }];
    let first = render(&[Source { name: "op.yaml".into(), text: csv.into() }], &cfg);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stderr.contains("(found 1 ClusterServiceVersion)"), "{}", first.stderr);
    let again = render(&[Source { name: "-".into(), text: first.stdout.clone() }], &cfg);
    assert_eq!(again.stdout, first.stdout);
    let strip = |s: &str| s.lines().map(|l| l.rsplit_once(" [").map_or(l, |(h, _)| h).to_string()).collect::<Vec<_>>();
    assert_eq!(strip(&again.stderr), strip(&first.stderr));
}

#[test]
fn the_output_of_drop_given_back_says_it_holds_only_earlier_output() {
    let cfg = [Source { name: "rbac.yaml".into(), text: config("ext", "  mode: Aggregate\n  bundleObjects: Drop\n") }];
    let first = render(&foo_bundle(&[]), &cfg);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(!first.stdout.contains("kind: CustomResourceDefinition"), "Drop leaves the bundle out");
    let again = render(&[Source { name: "rendered.yaml".into(), text: first.stdout }], &cfg);
    assert_eq!(again.code, 1);
    assert!(
        again.stderr.contains(
            "the input holds no API to grant access to (it holds only objects olm-rbac generated on an earlier run)"
        ),
        "{}",
        again.stderr
    );
}
