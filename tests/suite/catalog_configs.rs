//! One platform policy with exceptions by package: the catalog commands take
//! `-c` more than once, a config naming a package (`spec.package`) judges
//! that package and the one naming none every other. The property: each
//! package's rows are those of a run with its config alone.

use std::path::{Path, PathBuf};

use crate::common::*;
use serde_json::Value;

const KUBE_GREEN: &str = "examples/catalog/kube-green-catalog.yaml";
const TRIDENT: &str = "tests/fixtures/catalogs/with-bundle-objects/trident-operator.yaml";

/// The platform's policy: no operator creates ClusterRoles or their bindings.
/// trident's operator does, and kube-green's 0.6.0 bundle ships aggregated roles.
const PLATFORM: &str = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: platform\nspec:\n  mode: Aggregate\n  operator:\n    installNamespace: operators\n    policy:\n      deny:\n      - {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles, clusterrolebindings], verbs: [create, bind, escalate], scope: Cluster}\n";

/// trident's exception: its grants are reviewed, and only node access is denied (it asks none).
const TRIDENT_EXCEPTION: &str = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: trident\nspec:\n  package: trident-operator\n  mode: Unmanaged\n  operator:\n    permissions: Cluster\n    installNamespace: trident\n    policy:\n      deny:\n      - {apiGroups: [\"\"], resources: [nodes/proxy], verbs: [get, create]}\n";

struct Setup {
    _dir: tempfile::TempDir,
    catalog: PathBuf,
    platform: PathBuf,
    trident: PathBuf,
    root: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    std::fs::create_dir(&catalog).unwrap();
    std::fs::copy(repo(KUBE_GREEN), catalog.join("kube-green.yaml")).unwrap();
    std::fs::copy(repo(TRIDENT), catalog.join("trident.yaml")).unwrap();
    let (platform, trident) = (dir.path().join("platform.yaml"), dir.path().join("trident.yaml"));
    std::fs::write(&platform, PLATFORM).unwrap();
    std::fs::write(&trident, TRIDENT_EXCEPTION).unwrap();
    Setup { root: dir.path().to_path_buf(), _dir: dir, catalog, platform, trident }
}

fn audit(catalog: &Path, configs: &[&Path]) -> std::process::Output {
    let mut args = vec!["catalog".to_string(), "audit".into(), "--catalog".into(), catalog.display().to_string()];
    for c in configs {
        args.extend(["-c".into(), c.display().to_string()]);
    }
    args.extend(["-o".into(), "json".into()]);
    run_bin(&args.iter().map(String::as_str).collect::<Vec<_>>(), "")
}

/// The rows of `package`, each without the config that judged it.
fn rows_of(out: &std::process::Output, package: &str) -> Vec<Value> {
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut rows: Vec<Value> = rows.as_array().unwrap().iter().filter(|r| r["package"] == package).cloned().collect();
    for r in &mut rows {
        r.as_object_mut().unwrap().remove("config");
    }
    rows
}

fn verdicts(rows: &[Value]) -> Vec<String> {
    rows.iter().map(|r| format!("{} {}", r["bundle"].as_str().unwrap(), r["verdict"].as_str().unwrap())).collect()
}

#[test]
fn each_package_is_judged_by_its_own_config_as_alone() {
    let s = setup();
    let both = audit(&s.catalog, &[&s.platform, &s.trident]);
    assert_eq!(both.status.code(), Some(1), "kube-green 0.6.0 fails: {}", text(&both.stderr));
    let alone = |config: &Path, package: &str| {
        let single = s.root.join(format!("only-{package}"));
        std::fs::create_dir(&single).unwrap();
        let file = if package == "kube-green" { KUBE_GREEN } else { TRIDENT };
        std::fs::copy(repo(file), single.join("catalog.yaml")).unwrap();
        rows_of(&audit(&single, &[config]), package)
    };
    for (package, config) in [("kube-green", &s.platform), ("trident-operator", &s.trident)] {
        assert_eq!(rows_of(&both, package), alone(config, package), "{package}");
    }
    // The exception changes trident's verdicts: under the platform's policy every bundle fails.
    let trident = rows_of(&both, "trident-operator");
    assert!(verdicts(&trident).iter().all(|v| v.ends_with(" pass")), "{:?}", verdicts(&trident));
    let platform_only = rows_of(&audit(&s.catalog, &[&s.platform]), "trident-operator");
    assert!(verdicts(&platform_only).iter().all(|v| v.ends_with(" fail")), "{:?}", verdicts(&platform_only));
    // Each row names the config that judged it, as given on the command line.
    let rows: Value = serde_json::from_slice(&both.stdout).unwrap();
    for r in rows.as_array().unwrap() {
        let want = if r["package"] == "trident-operator" { &s.trident } else { &s.platform };
        assert_eq!(r["config"], want.display().to_string(), "{}", r["bundle"]);
    }
}

#[test]
fn the_text_report_names_the_config_of_each_row_only_when_there_are_several() {
    let s = setup();
    let run = |configs: &[&Path]| {
        let mut args = vec!["catalog".to_string(), "audit".into(), "--catalog".into(), s.catalog.display().to_string()];
        for c in configs {
            args.extend(["-c".into(), c.display().to_string()]);
        }
        text(&run_bin(&args.iter().map(String::as_str).collect::<Vec<_>>(), "").stdout)
    };
    let several = run(&[&s.platform, &s.trident]);
    let header = several.lines().find(|l| l.starts_with("PACKAGE  ") && l.contains("VERDICT")).unwrap();
    assert!(header.ends_with("CONFIG"), "{header}");
    let line = several.lines().find(|l| l.contains("trident-operator.v26.2.1")).unwrap();
    assert!(line.ends_with(&s.trident.display().to_string()), "{line}");
    let one = run(&[&s.platform]);
    assert!(!one.contains("CONFIG"), "{one}");
}

#[test]
fn filter_keeps_what_each_packages_config_passes() {
    let s = setup();
    let filtered = |configs: &[&Path], out: &str| {
        let out = s.root.join(out);
        let mut args =
            vec!["catalog".to_string(), "filter".into(), "--catalog".into(), s.catalog.display().to_string()];
        for c in configs {
            args.extend(["-c".into(), c.display().to_string()]);
        }
        args.extend([
            "-o".into(),
            out.display().to_string(),
            "--allow-tag-images".into(),
            "--report".into(),
            "json".into(),
        ]);
        let run = run_bin(&args.iter().map(String::as_str).collect::<Vec<_>>(), "");
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
        let catalog = std::fs::read_to_string(out.join("catalog.json")).unwrap();
        let docs: Vec<Value> =
            serde_json::Deserializer::from_str(&catalog).into_iter::<Value>().map(Result::unwrap).collect();
        let mut packages: Vec<String> = docs
            .iter()
            .filter(|d| d["schema"] == "olm.package")
            .map(|d| d["name"].as_str().unwrap().to_string())
            .collect();
        packages.sort();
        packages
    };
    assert_eq!(filtered(&[&s.platform, &s.trident], "both"), ["kube-green", "trident-operator"]);
    assert_eq!(filtered(&[&s.platform], "platform"), ["kube-green"]);
}

#[test]
fn catalog_judge_takes_the_config_of_the_extensions_package() {
    let s = setup();
    let extension = repo("examples/catalog/clusterextension.yaml");
    let judge = |configs: &[&Path]| {
        let mut args = vec!["catalog".to_string(), "judge".into(), "--catalog".into(), s.catalog.display().to_string()];
        for c in configs {
            args.extend(["-c".into(), c.display().to_string()]);
        }
        args.extend(["-f".into(), extension.display().to_string(), "-o".into(), "json".into()]);
        run_bin(&args.iter().map(String::as_str).collect::<Vec<_>>(), "")
    };
    let out = judge(&[&s.trident, &s.platform]);
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!rows.as_array().unwrap().is_empty());
    assert!(rows.as_array().unwrap().iter().all(|r| r["config"] == s.platform.display().to_string()));
    // With only trident's exception, nothing judges kube-green: a usage error, before anything is read.
    let out = judge(&[&s.trident]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no config judges package \"kube-green\""), "{}", text(&out.stderr));
}

#[test]
fn configs_that_overlap_or_judge_nothing_are_said() {
    let s = setup();
    let out = audit(&s.catalog, &[&s.platform, &s.platform]);
    assert_eq!(out.status.code(), Some(2));
    let said = text(&out.stderr);
    assert!(said.contains("both name no spec.package, so both would judge every other package"), "{said}");
    let out = audit(&s.catalog, &[&s.trident, &s.trident]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("both name package \"trident-operator\" in spec.package"));
    let typo = s.root.join("typo.yaml");
    std::fs::write(&typo, TRIDENT_EXCEPTION.replace("package: trident-operator", "package: trident-operater")).unwrap();
    let out = audit(&s.catalog, &[&s.platform, &typo]);
    let said = text(&out.stderr);
    assert!(
        said.contains("names package \"trident-operater\", which the catalog does not list: it judged nothing"),
        "{said}"
    );
    // Without a config for the rest, another package's bundles are unjudged, each saying why.
    let out = audit(&s.catalog, &[&s.trident]);
    let kube_green = rows_of(&out, "kube-green");
    assert!(kube_green.iter().all(|r| r["verdict"] == "unjudged"));
    assert!(kube_green[0]["errors"][0].as_str().unwrap().starts_with("no config judges package \"kube-green\""));
}

#[test]
fn render_refuses_a_bundle_of_another_package_than_the_config_names() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, PLATFORM.replace("spec:\n", "spec:\n  package: trident-operator\n")).unwrap();
    let bundle = repo("tests/fixtures/catalogs/csv-metadata-only/bundles/kube-green/0.5.2");
    let out = run_bin(&["render", "-c", config.to_str().unwrap(), bundle.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    let said = text(&out.stderr);
    assert!(
        said.contains(
            "spec.package: names package \"trident-operator\", but its metadata/annotations.yaml names package \"kube-green\""
        ),
        "{said}"
    );
    std::fs::write(&config, PLATFORM.replace("spec:\n", "spec:\n  package: kube-green\n")).unwrap();
    let out = run_bin(&["render", "-c", config.to_str().unwrap(), bundle.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The admin's ClusterExtension installs another package than the config is for.
    let extension = dir.path().join("ce.yaml");
    std::fs::write(&extension, "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: platform\nspec:\n  namespace: operators\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: trident-operator\n      version: 0.5.2\n").unwrap();
    let manifests = bundle.join("manifests");
    let out = run_bin(
        &["render", "-c", config.to_str().unwrap(), extension.to_str().unwrap(), manifests.to_str().unwrap()],
        "",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let said = text(&out.stderr);
    assert!(
        said.contains(
            "but the admin's ClusterExtension (spec.source.catalog.packageName) names package \"trident-operator\""
        ),
        "{said}"
    );
}

#[test]
fn a_catalog_config_that_judges_nothing_of_the_operator_is_warned_of() {
    let s = setup();
    let plain = s.root.join("plain.yaml");
    std::fs::write(&plain, "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: plain\nspec:\n  package: kube-green\n  mode: Aggregate\n").unwrap();
    let out = audit(&s.catalog, &[&s.platform, &plain]);
    let said = text(&out.stderr);
    let expected = format!(
        "warning: -c {}: RBACConfig \"plain\" names neither spec.operator.installNamespace nor spec.operator.policy",
        plain.display()
    );
    assert!(said.contains(&expected), "{said}");
}

/// A hostile bundle folder filed under the exception's package in the
/// catalog but declaring another in its metadata/annotations.yaml does not
/// get the exception's lenient config: it fails, naming the package; its
/// metadata reached through a link is refused.
#[test]
fn a_bundle_folder_declaring_another_package_does_not_take_the_exception() {
    let dir = tempfile::tempdir().unwrap();
    let bundles = dir.path().join("bundles");
    copy_dir(&repo("tests/fixtures/catalogs/csv-metadata-only/bundles"), &bundles);
    let annotations = bundles.join("kube-green/0.7.0/metadata/annotations.yaml");
    let text = std::fs::read_to_string(&annotations).unwrap();
    std::fs::write(&annotations, text.replace("package.v1: kube-green", "package.v1: evil-op")).unwrap();
    let exception = dir.path().join("kube-green.yaml");
    std::fs::write(&exception, "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kg\nspec:\n  package: kube-green\n  mode: Aggregate\n  operator:\n    installNamespace: kube-green\n").unwrap();
    let catalog = repo("tests/fixtures/catalogs/csv-metadata-only/catalog");
    let platform = repo("examples/catalog/platform.yaml");
    let rows = |bundles: &Path| {
        let args = [
            "catalog",
            "audit",
            "--catalog",
            catalog.to_str().unwrap(),
            "--bundles",
            bundles.to_str().unwrap(),
            "-c",
            platform.to_str().unwrap(),
            "-c",
            exception.to_str().unwrap(),
            "-o",
            "json",
        ];
        let rows: Value = serde_json::from_slice(&run_bin(&args, "").stdout).unwrap();
        rows.as_array().unwrap().clone()
    };
    let row = |rows: &[Value], bundle: &str| rows.iter().find(|r| r["bundle"] == bundle).unwrap().clone();
    let judged = rows(&bundles);
    let hostile = row(&judged, "kube-green.v0.7.0");
    assert_eq!(hostile["verdict"], "fail");
    assert!(
        hostile["errors"][0].as_str().unwrap().contains("its metadata/annotations.yaml names package \"evil-op\""),
        "{hostile}"
    );
    assert_eq!(row(&judged, "kube-green.v0.7.1")["verdict"], "pass");
    // The metadata through a link is not read: the bundle is unjudged.
    let elsewhere = dir.path().join("elsewhere.yaml");
    std::fs::write(&elsewhere, text).unwrap();
    std::fs::remove_file(&annotations).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &annotations).unwrap();
    let linked = row(&rows(&bundles), "kube-green.v0.7.0");
    assert_eq!(linked["verdict"], "unjudged", "{linked}");
}
