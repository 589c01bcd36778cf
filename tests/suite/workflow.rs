//! The kpt + OLM v1 workflow of `examples/kpt-olmv1/`: the bundle stays in
//! git as olm-rbac's input, `kpt fn render` writes the RBAC into `rbac/`, a kpt
//! package of its own, and only `rbac/` and `extension/` (the ClusterExtension)
//! are applied; OLM installs the bundle from its catalog.
//!
//! Without a cluster, what is checked is what decides what gets applied: the
//! files on disk after each render, which objects kubectl reads from the
//! applied folders, where kpt finds an inventory, and what the RBAC grants.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

const EXAMPLE: &str = "examples/kpt-olmv1";

/// The kinds `rbac/` may hold.
const RBAC_KINDS: [&str; 4] = ["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"];

/// A copy of the example in a scratch folder.
fn example_copy(tmp: &Path) -> PathBuf {
    let pkg = tmp.join("kpt-olmv1");
    copy_dir(&repo(EXAMPLE), &pkg);
    pkg
}

/// The example as a user has it before the first render: no `rbac/guestbook.yaml`,
/// and the ClusterExtension without olm-rbac's annotation.
fn before_first_render(pkg: &Path) {
    std::fs::remove_file(pkg.join("rbac/guestbook.yaml")).unwrap();
    let ext = pkg.join("extension/clusterextension.yaml");
    let text = std::fs::read_to_string(&ext).unwrap();
    let annotation =
        "  annotations:\n    olm-rbac.io/rbac: \"Bind: 8 ClusterRole(s), 6 binding(s) generated for 2 API(s)\"\n";
    assert!(text.contains(annotation), "the committed ClusterExtension carries the summary");
    std::fs::write(&ext, text.replace(annotation, "")).unwrap();
}

#[test]
fn kpt_olm_v1_render_keeps_every_file_and_writes_the_rbac_apart() {
    let Some(kpt) = KPT.find() else { return };
    let committed = snapshot(&repo(EXAMPLE));
    let tmp = tempfile::tempdir().unwrap();
    let pkg = example_copy(tmp.path());
    before_first_render(&pkg);
    let before = snapshot(&pkg);

    let log = kpt_render(&kpt, &pkg);
    assert!(
        log.contains("[info] olm-rbac.io/v1alpha1/RBACConfig/guestbook: extension \"guestbook\": generated 8 ClusterRole(s) for 2 API(s), bound by 6 binding(s)"),
        "{log}"
    );
    assert!(!log.contains("[warning]") && !log.contains("[error]"), "{log}");
    let after = snapshot(&pkg);
    for (file, bytes) in &before {
        if file != "extension/clusterextension.yaml" {
            assert!(after.get(file) == Some(bytes), "{file} was changed or removed by the render");
        }
    }
    assert_eq!(after, committed, "the render writes rbac/guestbook.yaml and the summary annotation, as committed");
    kpt_render(&kpt, &pkg);
    assert_eq!(snapshot(&pkg), committed, "a second render changes nothing");

    let rbac: Vec<&String> = committed.keys().filter(|f| f.starts_with("rbac/")).collect();
    assert_eq!(rbac, ["rbac/Kptfile", "rbac/guestbook.yaml"]);
    let generated = kinds(&text(&committed["rbac/guestbook.yaml"]));
    assert!(generated.keys().all(|k| RBAC_KINDS.contains(&k.as_str())), "rbac/ holds only RBAC: {generated:?}");
    assert_eq!(generated, BTreeMap::from([("ClusterRole".into(), 8), ("ClusterRoleBinding".into(), 6)]));
}

/// What `kubectl apply -f rbac/ -f extension/` would send: kubectl reads the
/// same files offline with `annotate --local`. The negative control reads the
/// whole package, which would also send the bundle.
#[test]
fn kpt_olm_v1_applied_folders_hold_no_bundle_object() {
    let Some(kubectl) = KUBECTL.find() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let read = |args: &[&str]| {
        let out = Command::new(&kubectl)
            .args(["annotate", "--local", "-o", "name"])
            .args(args)
            .arg("olm-rbac.io/check=1")
            .current_dir(repo(EXAMPLE))
            .env("KUBECONFIG", tmp.path().join("no-cluster"))
            .output()
            .unwrap();
        assert!(out.status.success(), "kubectl: {}", text(&out.stderr));
        let mut names: BTreeMap<String, usize> = BTreeMap::new();
        for line in text(&out.stdout).lines() {
            *names.entry(line.split('/').next().unwrap_or_default().to_string()).or_insert(0) += 1;
        }
        names
    };
    let applied = read(&["-f", "rbac/", "-f", "extension/"]);
    assert_eq!(
        applied,
        BTreeMap::from([
            ("clustercatalog.olm.operatorframework.io".into(), 1),
            ("clusterextension.olm.operatorframework.io".into(), 1),
            ("clusterrole.rbac.authorization.k8s.io".into(), 8),
            ("clusterrolebinding.rbac.authorization.k8s.io".into(), 6),
        ])
    );
    let everything = read(&["-R", "-f", "."]);
    assert_eq!(everything.get("customresourcedefinition.apiextensions.k8s.io"), Some(&2), "{everything:?}");
    assert_eq!(everything.get("clusterserviceversion.operators.coreos.com"), Some(&1), "{everything:?}");
}

/// The documents of `dir`'s own files, leaving out the kpt packages below it
/// (folders with a Kptfile), as kpt reads a package's inventory.
fn own_documents(dir: &Path, root: bool) -> Vec<String> {
    if !root && dir.join("Kptfile").is_file() {
        return Vec::new();
    }
    let mut docs = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            docs.extend(own_documents(&p, false));
        } else {
            docs.push(std::fs::read_to_string(&p).unwrap());
        }
    }
    docs
}

/// `kpt live apply` takes its inventory from the package it is given, leaving
/// out subpackages (kpt's `pkg.LocalInventory`); `kpt live init` writes one.
/// After `kpt live init rbac/` and `kpt live init extension/`, the root still
/// has none, so `kpt live apply` on the root (which would apply the bundle) is
/// refused; and the inventories are input olm-rbac passes through.
#[test]
fn kpt_olm_v1_inventories_stay_in_the_applied_packages() {
    let Some(kpt) = KPT.find() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let pkg = example_copy(tmp.path());
    for sub in ["rbac", "extension"] {
        let out = Command::new(&kpt)
            .args(["live", "init"])
            .arg(pkg.join(sub))
            .env("KUBECONFIG", tmp.path().join("no-cluster"))
            .output()
            .unwrap();
        assert!(out.status.success(), "kpt live init {sub}/: {}", text(&out.stderr));
        let rg = std::fs::read_to_string(pkg.join(sub).join("resourcegroup.yaml")).unwrap();
        assert!(rg.contains("kind: ResourceGroup\n"), "{rg}");
    }
    let root = own_documents(&pkg, true);
    assert!(root.len() >= 5, "the root's Kptfile, config and bundle are read");
    assert!(!root.iter().any(|d| d.contains("kind: ResourceGroup\n")), "no inventory in the root package");
    assert!(!root.iter().any(|d| d.contains("\ninventory:")), "no inventory in the root Kptfile");

    let before = snapshot(&pkg);
    kpt_render(&kpt, &pkg);
    assert_eq!(snapshot(&pkg), before, "the render leaves kpt's inventories and everything else as they are");
}

#[test]
fn kpt_olm_v1_grants_what_the_config_says() {
    // The cluster will hold rbac/ and what OLM installs from the bundle (its CRDs
    // tell can-i the resources' groups).
    let can_i = |args: &[&str]| {
        let out = Command::new(BIN)
            .arg("can-i")
            .args(args)
            .args(["-f", "rbac/", "-f", "bundle/"])
            .current_dir(repo(EXAMPLE))
            .output()
            .unwrap();
        (out.status.code(), text(&out.stdout))
    };
    let yes = (Some(0), "yes\n".to_string());
    let no = (Some(1), "no\n".to_string());
    assert_eq!(can_i(&["create", "guestbooks", "-n", "team-a", "--as", "bob", "--as-group", "guestbook-editors"]), yes);
    assert_eq!(can_i(&["delete", "guestbookthemes", "--as", "bob", "--as-group", "guestbook-editors"]), yes);
    assert_eq!(can_i(&["list", "guestbooks", "-A", "--as", "carol", "--as-group", "sre"]), yes);
    assert_eq!(can_i(&["delete", "guestbooks", "-n", "team-a", "--as", "carol", "--as-group", "sre"]), no);
    assert_eq!(can_i(&["get", "guestbooks", "-n", "team-a", "--as", "mallory"]), no);
}

/// The YAML values of a file's documents.
fn values(bytes: &[u8]) -> Vec<serde_json::Value> {
    let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple(&text(bytes)).unwrap();
    docs.into_iter().filter(|d| !d.is_null()).collect()
}

/// What a render does to a real bundle's files in this layout. olm-rbac, in
/// Bind mode, changes none: the bundle comes out exactly as a function that
/// changes nothing leaves it (memcached ships kubebuilder roles, which Bind
/// adopts; cert-manager ships roles with aggregation labels). kpt itself
/// writes every file back in its own YAML style on the first render: bytes
/// change, values do not, except that kpt's writer adds a line break to a
/// folded description with more-indented lines (strimzi's CSV). Later renders
/// change no byte.
#[test]
fn kpt_first_render_restyles_bundle_files_once() {
    let Some(kpt) = KPT.find() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let identity = tmp.path().join("identity.sh");
    std::fs::write(&identity, "#!/bin/sh\nexec cat\n").unwrap();
    make_executable(&identity);
    for (bundle, changed_values) in [
        ("memcached-operator-0.0.1", vec![]),
        ("cert-manager-1.16.5", vec![]),
        ("strimzi-kafka-operator-1.2.0", vec!["strimzi-cluster-operator.v1.2.0.clusterserviceversion.yaml"]),
    ] {
        let pkg = tmp.path().join(bundle);
        for file in ["Kptfile", "rbac.yaml", "rbac/Kptfile"] {
            std::fs::create_dir_all(pkg.join(file).parent().unwrap()).unwrap();
            std::fs::copy(repo(EXAMPLE).join(file), pkg.join(file)).unwrap();
        }
        copy_dir(&bundles_dir().join(bundle).join("manifests"), &pkg.join("bundle"));
        let original = snapshot(&pkg.join("bundle"));
        let twin = tmp.path().join(format!("{bundle}-kpt-only"));
        copy_dir(&pkg.join("bundle"), &twin);

        let log = kpt_render(&kpt, &pkg);
        assert!(log.contains("generated"), "{bundle}: {log}");
        let first = snapshot(&pkg.join("bundle"));
        let out = Command::new(&kpt).args(["fn", "eval"]).arg(&twin).arg("--exec").arg(&identity).output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(first == snapshot(&twin), "{bundle}: olm-rbac changed a bundle file beyond what kpt does to any");

        assert_eq!(first.keys().collect::<Vec<_>>(), original.keys().collect::<Vec<_>>(), "{bundle}: same files");
        let restyled = original.keys().filter(|f| first[*f] != original[*f]).count();
        assert!(restyled > 0, "{bundle}: kpt restyled no file; if kpt keeps bytes now, update docs/runners.md");
        let mut differ: Vec<&str> = Vec::new();
        for (file, bytes) in &original {
            let (mut was, mut is) = (values(bytes), values(&first[file]));
            if was != is {
                for doc in was.iter_mut().chain(is.iter_mut()) {
                    if let Some(spec) = doc.get_mut("spec").and_then(|s| s.as_object_mut()) {
                        spec.remove("description");
                    }
                }
                assert_eq!(was, is, "{bundle}/{file}: kpt changed more than spec.description");
                differ.push(file);
            }
        }
        assert_eq!(differ, changed_values, "{bundle}: files whose values kpt changed");

        kpt_render(&kpt, &pkg);
        assert!(snapshot(&pkg.join("bundle")) == first, "{bundle}: a second render changes no byte");
    }
}
