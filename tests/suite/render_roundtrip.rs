//! Files and streams agree: a saved output given back to `render` as a file
//! renders again byte for byte, as it does on stdin, with the same results;
//! and nothing about that lets a bundle's forged claims count.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::*;
use olm_rbac::run::{function, render, Source};

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
    assert_refused_as_a_forged_copy(&forged, "foos.example.com-admin");
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

/// What a render of its own output may say that the first render did not:
/// that the input names no bundle folder (a saved output on stdin, or in the
/// working directory beside its CSV), and the summary count that follows.
fn about_the_input(line: &str) -> bool {
    line.contains("read as an OLM bundle")
        || line.contains("the input does not say which folder is the bundle's")
        || line.ends_with(" warnings")
        || line.ends_with(" warning")
}

/// `render` on `bundle`'s manifests with `spec`, then on its own output as a
/// file in a folder and on stdin: the same
/// bytes each time, and no result the first run did not give. Then the KRM
/// function on the bundle as kpt sends it, and on its own output. Returns
/// whether the first render passed (a scenario some bundle cannot take, such
/// as target namespaces its install modes refuse, is an error both times).
fn renders_its_own_output_alike(bundle: &str, spec: &str) -> bool {
    let spec = admin_spec(bundle, spec);
    let cfg = [Source { name: "admin/rbac.yaml".into(), text: config("ext", &spec) }];
    let manifests: Vec<Source> = bundle_docs(bundle)
        .into_iter()
        .map(|(name, text)| Source { name: format!("{bundle}/manifests/{name}"), text })
        .collect();
    let first = render(&manifests, &cfg);
    if first.code != 0 {
        return false;
    }
    let firsts: BTreeSet<String> =
        results(first.stderr.as_bytes()).into_iter().filter(|l| !about_the_input(l)).collect();
    // A file in the working directory beside its CSV reads as stdin does: no bundle folder.
    for name in ["out/rendered.yaml", "-"] {
        let again = render(&[Source { name: name.into(), text: first.stdout.clone() }], &cfg);
        let what = format!("{bundle} with\n{spec}rendered again from {name}");
        assert_eq!(again.code, 0, "{what}: {}", again.stderr);
        assert_same_text(&again.stdout, &first.stdout, &what);
        // The one measure a saved output without file names adds: a RoleBinding
        // this run wrote outside the install namespace could be the bundle's,
        // and OLM would install a bundle's copy in `ops`, where the run writes
        // none (docs/user-guide.md, "A saved output").
        // So is what it grants, where the catalogue of dangerous permissions
        // marks it (creating Argo CD Applications, say).
        let outside_ops = |l: &String| {
            (l.starts_with("warning: RoleBinding ")
                && !l.starts_with("warning: RoleBinding ops/")
                && l.contains(": the bundle grants "))
                || (l.contains("(through the bundle's RoleBinding ")
                    && !l.contains("(through the bundle's RoleBinding ops/"))
        };
        let new: Vec<String> = results(again.stderr.as_bytes())
            .into_iter()
            .filter(|l| !about_the_input(l) && !firsts.contains(l) && !outside_ops(l))
            .collect();
        assert!(new.is_empty(), "{what}: new results:\n{}", new.join("\n"));
    }
    let sent = resource_list(&kpt_items(bundle), &as_kpt_sends(&config("ext", &spec)));
    let krm = function(&sent);
    assert_eq!(krm.code, 0, "{bundle} with\n{spec}as a KRM function: {}", krm.stderr);
    let krm_again = function(&krm.stdout);
    assert_same_text(&krm_again.stdout, &krm.stdout, &format!("{bundle} with\n{spec}as a KRM function, again"));
    true
}

/// Every fixture bundle through one scenario; most bundles must take it.
fn every_bundle_renders_its_own_output_alike(spec: &str) {
    let names = bundle_names();
    let passed = names.iter().filter(|b| renders_its_own_output_alike(b, spec)).count();
    assert!(passed * 2 > names.len(), "only {passed} of {} bundles render with\n{spec}", names.len());
}

const OPERATOR_CLUSTER: &str = "  operator:\n    permissions: Cluster\n    installNamespace: ops\n";
const OPERATOR_TARGETS: &str =
    "  operator:\n    permissions: Namespaces\n    installNamespace: ops\n    targetNamespaces: [team-a]\n";
const BIND_TEAM_A: &str =
    "  mode: Bind\n  bindings:\n  - role: edit\n    subjects: [{kind: Group, name: devs}]\n    namespaces: [team-a]\n";

fn installer(olm: &str) -> String {
    format!(
        "  installer:\n    serviceAccount: {{name: installer, namespace: ops}}\n    for: {olm}\n    mode: Generate\n"
    )
}

#[test]
fn a_render_of_a_render_is_the_render_in_every_mode() {
    every_bundle_renders_its_own_output_alike("  mode: Unmanaged\n");
    every_bundle_renders_its_own_output_alike("  mode: Aggregate\n");
    every_bundle_renders_its_own_output_alike(BIND_TEAM_A);
}

#[test]
fn a_render_of_a_render_is_the_render_with_the_operator() {
    // With the operator promoted (Cluster), below with an OLM v1 installer.
    every_bundle_renders_its_own_output_alike(&format!("{BIND_TEAM_A}{OPERATOR_TARGETS}"));
}

#[test]
fn a_render_of_a_render_is_the_render_with_an_olm_v1_installer() {
    every_bundle_renders_its_own_output_alike(&format!("  mode: Unmanaged\n{}", installer("OLMv1")));
    every_bundle_renders_its_own_output_alike(&format!("  mode: Aggregate\n{OPERATOR_CLUSTER}{}", installer("OLMv1")));
}

#[test]
fn a_render_of_a_render_is_the_render_with_an_olm_v0_installer() {
    every_bundle_renders_its_own_output_alike(&format!("  mode: Aggregate\n{}", installer("OLMv0")));
    every_bundle_renders_its_own_output_alike(&format!("{BIND_TEAM_A}{OPERATOR_TARGETS}{}", installer("OLMv0")));
}
