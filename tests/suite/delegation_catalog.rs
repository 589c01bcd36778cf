//! Delegations beside the pin and the judged catalog, through the binary:
//! under `render --judged-catalog` the package a delegation names is the
//! judged catalog's, and a delegation without versions gets every version
//! judged there; where a delegation lets a team install what render's own
//! pin refuses, render warns, and `can-install` answers no exactly then.

use std::path::{Path, PathBuf};

use crate::common::*;

/// The kube-green catalog, with its bundles inline.
const KUBE_GREEN: &str = "examples/catalog/kube-green-catalog.yaml";
/// kube-green 0.7.0's bundle: its root (metadata/annotations.yaml names the package) holds `manifests/`.
const BUNDLE_0_7_0: &str = "tests/fixtures/catalogs/csv-metadata-only/bundles/kube-green/0.7.0";

const CONFIG: &str = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    installNamespace: kube-green\n    policy:\n      deny:\n      - {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles, clusterrolebindings], verbs: [create, bind, escalate], scope: Cluster}\n";

/// A ClusterCatalog serving the judged catalog, pinned by digest.
const CATALOG_OBJECT: &str = "apiVersion: olm.operatorframework.io/v1\nkind: ClusterCatalog\nmetadata:\n  name: judged\nspec:\n  source:\n    type: Image\n    image:\n      ref: registry.example.com/judged-catalog@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n";

/// Team greens (group greens) may install kube-green into `namespace` from the judged catalog.
fn delegation(namespace: &str, versions: &str) -> String {
    format!("  delegations:\n  - team: greens\n    access: Install\n    subjects: [{{kind: Group, name: greens}}]\n    packages: [{{name: kube-green{versions}}}]\n    namespaces: [{namespace}]\n    catalogs: [judged]\n")
}

/// A ClusterExtension of kube-green at `version` into `namespace`, of team
/// greens when `team`, named `name`.
fn extension(name: &str, version: &str, namespace: &str, team: bool) -> String {
    let labels = if team { "  labels:\n    olm-rbac.io/delegation: greens\n" } else { "" };
    format!("apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: {name}\n{labels}spec:\n  namespace: {namespace}\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: kube-green\n      version: {version:?}\n      selector:\n        matchLabels:\n          olm.operatorframework.io/metadata.name: judged\n")
}

/// The kube-green catalog filtered with the config: its passing bundles.
fn judged_catalog(dir: &Path) -> PathBuf {
    let config = dir.join("filter-rbac.yaml");
    std::fs::write(&config, CONFIG).unwrap();
    let out = dir.join("judged");
    let catalog = repo(KUBE_GREEN).display().to_string();
    let filtered = run_bin(
        &["catalog", "filter", "--catalog", &catalog, "-c", config.to_str().unwrap(), "-o", out.to_str().unwrap()],
        "",
    );
    assert_eq!(filtered.status.code(), Some(0), "{}", text(&filtered.stderr));
    out
}

/// Renders `bundle` with the config plus `spec`, the admin's ClusterExtension
/// at `version` and the pinned ClusterCatalog, and `more` arguments: the
/// output written to `rendered.yaml`, the exit code and stderr.
fn render(dir: &Path, spec: &str, version: &str, bundle: &Path, more: &[&str]) -> (PathBuf, Option<i32>, String) {
    let config = dir.join("rbac.yaml");
    std::fs::write(&config, CONFIG.to_string() + spec).unwrap();
    let (ext, catalog) = (dir.join("ext.yaml"), dir.join("clustercatalog.yaml"));
    std::fs::write(&ext, extension("kube-green", version, "kube-green", false)).unwrap();
    std::fs::write(&catalog, CATALOG_OBJECT).unwrap();
    let mut args = vec!["render", "-c", config.to_str().unwrap(), ext.to_str().unwrap(), catalog.to_str().unwrap()];
    args.push(bundle.to_str().unwrap());
    args.extend(more);
    let out = run_bin(&args, "");
    let rendered = dir.join("rendered.yaml");
    std::fs::write(&rendered, &out.stdout).unwrap();
    (rendered, out.status.code(), text(&out.stderr))
}

/// Whether a user of group greens may create team greens' ClusterExtension
/// of kube-green at `version` into `namespace`: can-install's exit code and stdout.
fn greens_may_install(dir: &Path, rendered: &Path, version: &str, namespace: &str) -> (Option<i32>, String) {
    let ce = dir.join("ask.yaml");
    std::fs::write(&ce, extension("greens-kube-green", version, namespace, true)).unwrap();
    let args =
        ["can-install", ce.to_str().unwrap(), "--as", "bob", "--as-group", "greens", "-f", rendered.to_str().unwrap()];
    let out = run_bin(&args, "");
    (out.status.code(), text(&out.stdout))
}

/// The user's report: a delegation without versions, rendered with the
/// judged catalog from a bundle folder that declares no package (its
/// `manifests/` alone, without `metadata/`), was refused for want of a
/// package. The judged catalog names it: the team may install each version
/// judged there, and no other.
#[test]
fn under_a_judged_catalog_a_delegation_without_versions_gets_the_catalogs_package_and_versions() {
    let dir = tempfile::tempdir().unwrap();
    let judged = judged_catalog(dir.path());
    let manifests = repo(BUNDLE_0_7_0).join("manifests");
    let args = ["--judged-catalog", judged.to_str().unwrap()];
    let (rendered, code, stderr) = render(dir.path(), &delegation("kube-green", ""), ">=0.5.0", &manifests, &args);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("declares no package"), "{stderr}");
    assert!(stderr.contains("team greens (Group greens) may install kube-green 0.7.0 or 0.5.0 or 0.5.1 or 0.5.2 or 0.7.1 into namespace kube-green"), "{stderr}");
    for version in ["0.7.0", "0.5.0", "0.7.1"] {
        assert_eq!(
            greens_may_install(dir.path(), &rendered, version, "kube-green"),
            (Some(0), "yes\n".into()),
            "{version}"
        );
    }
    let (code, said) = greens_may_install(dir.path(), &rendered, "0.6.0", "kube-green");
    assert_eq!(code, Some(1), "0.6.0 fails the policy and is not in the judged catalog: {said}");
    // Without the judged catalog, the folder declares no package: refused as before.
    let (_, code, stderr) = render(dir.path(), &delegation("kube-green", ""), "0.7.0", &manifests, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("declares no package"), "{stderr}");
}

/// The user's second report: a delegation into a namespace the pin refuses
/// rendered silently, and `can-install` then said no. Render warns, naming
/// the team's field and the pin's namespace, and the exit code is what it
/// was; can-install answers no exactly where the warning is, yes where the
/// delegation and the pin agree.
#[test]
fn a_delegation_the_pin_contradicts_is_warned_of_and_can_install_says_no() {
    let dir = tempfile::tempdir().unwrap();
    let root = repo(BUNDLE_0_7_0);
    let pinned = |namespace: &str| {
        let spec = format!("  admissionPolicy: Generate\n{}", delegation(namespace, ""));
        render(dir.path(), &spec, "0.7.0", &root, &[])
    };
    let (rendered, code, stderr) = pinned("payments-mq");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("warning: RBACConfig kube-green: spec.delegations[0].namespaces: team greens may install kube-green into namespace payments-mq, but the pin's admission policy (spec.admissionPolicy: Generate) admits ClusterExtensions of kube-green only into namespace kube-green (spec.namespace)"), "{stderr}");
    let (code, said) = greens_may_install(dir.path(), &rendered, "0.7.0", "payments-mq");
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("spec.namespace must be kube-green"), "{said}");

    let (rendered, code, stderr) = pinned("kube-green");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("pin's admission policy"), "{stderr}");
    assert_eq!(greens_may_install(dir.path(), &rendered, "0.7.0", "kube-green"), (Some(0), "yes\n".into()));

    // A pinned range: a team writes exact versions, which the pin refuses.
    let judged = judged_catalog(dir.path());
    let spec = format!("  admissionPolicy: Generate\n{}", delegation("kube-green", ""));
    let args = ["--judged-catalog", judged.to_str().unwrap()];
    let (rendered, code, stderr) = render(dir.path(), &spec, ">=0.5.0", &root, &args);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("spec.delegations[0].packages[0].versions: team greens may install kube-green at 0.7.0 or 0.5.0 or 0.5.1 or 0.5.2 or 0.7.1, each written exactly, but the pin's admission policy"), "{stderr}");
    let (code, said) = greens_may_install(dir.path(), &rendered, "0.7.0", "kube-green");
    assert_eq!(code, Some(1), "{said}");
}
