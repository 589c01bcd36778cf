//! The ClusterExtension beside a render is checked against the judged
//! bundle, field by field, and `admissionPolicy: Generate` writes a
//! ValidatingAdmissionPolicy whose CEL is evaluated here on ClusterExtensions
//! it must admit and refuse.

use cel::{Context, Program, Value as CelValue};
use olm_rbac::input::Source;
use olm_rbac::run::{render, Outcome};
use serde_json::{json, Value};

use crate::common::*;

const BUNDLE: &str = "memcached-operator-0.0.1";
const DIGEST: &str = "quay.io/example/catalog@sha256:5b0c3a1ce35b69eb0a8b6d0a6f1b3c4d2e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b";
/// A policy the bundle's operator passes: it holds no ClusterRoles.
const POLICY: &str =
    "  operator:\n    policy:\n      deny:\n      - {apiGroups: [''], resources: [nodes], verbs: [delete], scope: Cluster}\n";

fn extension(catalog: &str) -> String {
    format!(
        "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: memcached\nspec:\n  namespace: memcached-system\n  source:\n    sourceType: Catalog\n    catalog:\n{catalog}"
    )
}

const PINNED: &str = "      packageName: memcached-operator\n      version: \"0.0.1\"\n      selector:\n        matchLabels:\n          olm.operatorframework.io/metadata.name: community\n";

fn cluster_catalog(image: &str) -> String {
    format!("apiVersion: olm.operatorframework.io/v1\nkind: ClusterCatalog\nmetadata:\n  name: community\nspec:\n  source:\n    type: Image\n    image:\n      ref: {image}\n")
}

/// Renders the bundle from its folder with the admin's ClusterExtension
/// (and ClusterCatalog) in files of their own.
fn render_pinned(catalog_fields: &str, catalog: Option<&str>, spec: &str) -> Outcome {
    let mut inputs: Vec<Source> = bundle_docs(BUNDLE)
        .into_iter()
        .map(|(name, text)| Source { name: format!("{BUNDLE}/manifests/{name}"), text })
        .collect();
    inputs.push(Source { name: "admin/clusterextension.yaml".into(), text: extension(catalog_fields) });
    if let Some(image) = catalog {
        inputs.push(Source { name: "admin/clustercatalog.yaml".into(), text: cluster_catalog(image) });
    }
    let spec = format!("  mode: Aggregate\n{spec}");
    render(&inputs, &[Source { name: "admin/rbac.yaml".into(), text: config("memcached", &spec) }])
}

fn pin_findings(out: &Outcome) -> Vec<&str> {
    out.stderr
        .lines()
        .filter(|l| l.contains("ClusterExtension memcached: spec.") || l.contains("ClusterCatalog"))
        .collect()
}

#[test]
fn a_pinned_extension_from_a_digest_pinned_catalog_passes_silently() {
    let out = render_pinned(PINNED, Some(DIGEST), POLICY);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(pin_findings(&out).is_empty(), "{}", out.stderr);
}

#[test]
fn each_loose_field_is_named_with_its_fix_an_error_under_a_policy_and_a_warning_without() {
    let cases: [(&str, &str, &str); 6] = [
        (
            "      packageName: memcached-operator\n      selector: {matchLabels: {olm.operatorframework.io/metadata.name: community}}\n",
            "spec.source.catalog.version: is not set",
            "pin the judged bundle: spec.source.catalog.version: \"0.0.1\"",
        ),
        (
            "      packageName: memcached-operator\n      version: \">=0.0.1\"\n      selector: {matchLabels: {olm.operatorframework.io/metadata.name: community}}\n",
            "\">=0.0.1\" admits versions besides 0.0.1",
            "olm-rbac catalog judge",
        ),
        (
            "      packageName: memcached-operator\n      version: \"0.0.x\"\n      selector: {matchLabels: {olm.operatorframework.io/metadata.name: community}}\n",
            "\"0.0.x\" admits versions besides 0.0.1",
            "spec.source.catalog.version: \"0.0.1\"",
        ),
        (
            "      packageName: memcached-operator\n      version: \"0.0.1\"\n",
            "spec.source.catalog.selector: does not name one catalog",
            "matchLabels: {olm.operatorframework.io/metadata.name: <catalog>}",
        ),
        (
            &format!("{PINNED}      upgradeConstraintPolicy: SelfCertified\n"),
            "spec.source.catalog.upgradeConstraintPolicy: SelfCertified",
            "remove the field",
        ),
        (
            "      packageName: memcached-operator\n      version: \"0.0.1\"\n      selector: {matchLabels: {olm.operatorframework.io/metadata.name: community}}\n  install:\n    preflight:\n      crdUpgradeSafety:\n        enforcement: None\n",
            "spec.install.preflight.crdUpgradeSafety.enforcement: None",
            "remove the field",
        ),
    ];
    for (fields, said, fix) in cases {
        let warned = render_pinned(fields, Some(DIGEST), "");
        assert_eq!(warned.code, 0, "{}", warned.stderr);
        let line =
            warned.stderr.lines().find(|l| l.contains(said)).unwrap_or_else(|| panic!("{said}: {}", warned.stderr));
        assert!(line.starts_with("warning: ClusterExtension memcached: ") && line.contains(fix), "{line}");
        let refused = render_pinned(fields, Some(DIGEST), POLICY);
        assert_eq!(refused.code, 1, "{said}: {}", refused.stderr);
        assert!(refused.stdout.is_empty(), "no partial output");
        assert!(refused
            .stderr
            .lines()
            .any(|l| l.starts_with("error: ClusterExtension memcached: ") && l.contains(said)));
    }
}

#[test]
fn what_cannot_install_the_judged_bundle_is_an_error_even_without_a_policy() {
    for (fields, said) in [
        (PINNED.replace("\"0.0.1\"", "\"0.6.0\""), "\"0.6.0\" does not admit 0.0.1, the version judged here"),
        (PINNED.replace("\"0.0.1\"", "\"1.2.3.4\""), "is not a version range OLM v1 can read"),
    ] {
        let out = render_pinned(&fields, Some(DIGEST), "");
        assert_eq!(out.code, 1, "{said}: {}", out.stderr);
        assert!(out.stderr.lines().any(|l| l.starts_with("error: ") && l.contains(said)), "{said}: {}", out.stderr);
    }
}

#[test]
fn a_catalog_served_under_a_tag_or_not_in_the_input_is_unjudged_content() {
    let tagged = render_pinned(PINNED, Some("quay.io/example/catalog:latest"), POLICY);
    assert_eq!(tagged.code, 1, "{}", tagged.stderr);
    assert!(tagged.stderr.contains("error: ClusterCatalog community: spec.source.image.ref: \"quay.io/example/catalog:latest\" is not pinned by digest"), "{}", tagged.stderr);
    let absent = render_pinned(PINNED, None, POLICY);
    assert_eq!(absent.code, 0, "{}", absent.stderr);
    assert!(absent.stderr.contains("warning: ClusterExtension memcached: spec.source.catalog.selector: names ClusterCatalog community, which is not in the input"), "{}", absent.stderr);
}

/// The package is the bundle's annotation when its CSV carries it (an
/// error when it differs), else a guess from the CSV's name (a warning).
#[test]
fn another_package_than_the_judged_one_is_named() {
    let evil = PINNED.replace("memcached-operator", "evil-operator");
    let guessed = render_pinned(&evil, Some(DIGEST), "");
    assert_eq!(guessed.code, 0, "{}", guessed.stderr);
    assert!(guessed.stderr.contains("warning: ClusterExtension memcached: spec.source.catalog.packageName: \"evil-operator\" is not the package judged here: the judged bundle's ClusterServiceVersion is named as if its package were \"memcached-operator\""), "{}", guessed.stderr);
    let mut inputs: Vec<Source> = Vec::new();
    for (name, text) in bundle_docs(BUNDLE) {
        let text = text.replacen(
            "  annotations:\n",
            "  annotations:\n    operators.operatorframework.io.bundle.package.v1: memcached-operator\n",
            1,
        );
        inputs.push(Source { name: format!("{BUNDLE}/manifests/{name}"), text });
    }
    inputs.push(Source { name: "admin/clusterextension.yaml".into(), text: extension(&evil) });
    let spec = "  mode: Aggregate\n";
    let out = render(&inputs, &[Source { name: "admin/rbac.yaml".into(), text: config("memcached", spec) }]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("error: ClusterExtension memcached: spec.source.catalog.packageName: \"evil-operator\" is not the package judged here: the judged bundle's package is \"memcached-operator\""), "{}", out.stderr);
}

/// A ClusterExtension the bundle ships is the bundle's claim: it is neither
/// checked as the admin's nor read for the admission policy.
#[test]
fn a_clusterextension_in_the_bundle_is_not_the_admins() {
    let mut inputs: Vec<Source> = bundle_docs(BUNDLE)
        .into_iter()
        .map(|(name, text)| Source { name: format!("{BUNDLE}/manifests/{name}"), text })
        .collect();
    inputs.push(Source { name: format!("{BUNDLE}/manifests/zz-extension.yaml"), text: extension(PINNED) });
    let spec = "  mode: Aggregate\n  admissionPolicy: Generate\n";
    let (out, coded) =
        render_results(&inputs, &[Source { name: "admin/rbac.yaml".into(), text: config("memcached", spec) }]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(has_code(&coded, "admission-policy-blocked", Some("error")), "{coded:#?}");
    // Not checked as the admin's either.
    assert!(!coded.iter().any(|r| r.code.starts_with("pin-")), "{coded:#?}");
}

/// The bundle's CSV writes the version the policy pins; a version that is not
/// a semantic version (CEL, say) is never written into it.
#[test]
fn a_csv_version_cannot_write_cel() {
    let mut inputs: Vec<Source> = Vec::new();
    for (name, text) in bundle_docs(BUNDLE) {
        let text = text.replace("  version: 0.0.1\n", "  version: \"0.0.1' || true || '\"\n");
        inputs.push(Source { name: format!("{BUNDLE}/manifests/{name}"), text });
    }
    inputs.push(Source { name: "admin/clusterextension.yaml".into(), text: extension(PINNED) });
    let spec = "  mode: Aggregate\n  admissionPolicy: Generate\n";
    let (out, coded) =
        render_results(&inputs, &[Source { name: "admin/rbac.yaml".into(), text: config("memcached", spec) }]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.is_empty());
    assert!(has_code(&coded, "pin-version", Some("warning")), "{coded:#?}");
    assert!(has_code(&coded, "admission-policy-blocked", Some("error")), "nothing pinned: {coded:#?}");
}

/// The generated objects, as JSON values, by kind.
fn generated(out: &Outcome, kind: &str) -> Vec<Value> {
    let docs: Vec<Value> = serde_saphyr::from_multiple(&out.stdout).unwrap();
    docs.into_iter().filter(|d| d["kind"] == kind).collect()
}

fn cel(expression: &str, object: &Value) -> Result<bool, String> {
    let program = Program::compile(expression).map_err(|e| format!("{expression}: {e}"))?;
    let mut context = Context::default();
    context.add_variable("object", object).map_err(|e| e.to_string())?;
    match program.execute(&context) {
        Ok(CelValue::Bool(b)) => Ok(b),
        other => Err(format!("{expression}: {other:?}")),
    }
}

/// What the API server would do with `object` under `policy`: `None` when
/// the policy does not apply, else whether every validation holds. An
/// evaluation error counts as a refusal (`failurePolicy: Fail`).
pub fn admits(policy: &Value, object: &Value) -> Option<bool> {
    let spec = &policy["spec"];
    assert_eq!(spec["failurePolicy"], "Fail");
    for condition in spec["matchConditions"].as_array().unwrap() {
        if !cel(condition["expression"].as_str().unwrap(), object).unwrap_or(true) {
            return None;
        }
    }
    Some(
        spec["validations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| cel(v["expression"].as_str().unwrap(), object) == Ok(true)),
    )
}

fn clusterextension(name: &str, catalog: Value) -> Value {
    json!({"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension", "metadata": {"name": name},
           "spec": {"namespace": "memcached-system", "source": {"sourceType": "Catalog", "catalog": catalog}}})
}

#[test]
fn the_admission_policy_admits_the_judged_extension_and_refuses_every_other() {
    let out = render_pinned(PINNED, Some(DIGEST), &format!("{POLICY}  admissionPolicy: Generate\n"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let policies = generated(&out, "ValidatingAdmissionPolicy");
    let bindings = generated(&out, "ValidatingAdmissionPolicyBinding");
    assert_eq!(policies.len(), 2, "the extension's and the catalog's");
    for (p, b) in policies.iter().zip(&bindings) {
        assert_eq!(b["spec"]["policyName"], p["metadata"]["name"]);
        assert_eq!(b["spec"]["validationActions"], json!(["Deny"]));
        let rules = &p["spec"]["matchConstraints"]["resourceRules"][0];
        assert_eq!(rules["operations"], json!(["CREATE", "UPDATE"]));
    }
    let extension_policy = policies
        .iter()
        .find(|p| p["spec"]["matchConstraints"]["resourceRules"][0]["resources"] == json!(["clusterextensions"]))
        .unwrap();
    let selector = json!({"matchLabels": {"olm.operatorframework.io/metadata.name": "community"}});
    let judged = json!({"packageName": "memcached-operator", "version": "0.0.1", "selector": selector});
    let with = |changes: Value| {
        let mut c = judged.clone();
        for (k, v) in changes.as_object().unwrap() {
            if v.is_null() {
                c.as_object_mut().unwrap().remove(k);
            } else {
                c[k] = v.clone();
            }
        }
        c
    };
    let cases: Vec<(&str, Value, Option<bool>)> = vec![
        ("the judged extension", clusterextension("memcached", judged.clone()), Some(true)),
        ("the same under another name", clusterextension("cache", judged.clone()), Some(true)),
        ("with channels", clusterextension("memcached", with(json!({"channels": ["alpha"]}))), Some(true)),
        (
            "CatalogProvided",
            clusterextension("memcached", with(json!({"upgradeConstraintPolicy": "CatalogProvided"}))),
            Some(true),
        ),
        (
            "another package, another name",
            clusterextension("other", with(json!({"packageName": "other-operator", "version": "9.9.9"}))),
            None,
        ),
        ("no version", clusterextension("memcached", with(json!({"version": null}))), Some(false)),
        ("a range", clusterextension("memcached", with(json!({"version": ">=0.0.1"}))), Some(false)),
        ("the version written with =", clusterextension("memcached", with(json!({"version": "=0.0.1"}))), Some(false)),
        ("another version", clusterextension("memcached", with(json!({"version": "0.0.2"}))), Some(false)),
        (
            "SelfCertified",
            clusterextension("memcached", with(json!({"upgradeConstraintPolicy": "SelfCertified"}))),
            Some(false),
        ),
        ("no selector", clusterextension("memcached", with(json!({"selector": null}))), Some(false)),
        (
            "another catalog",
            clusterextension(
                "memcached",
                with(json!({"selector": {"matchLabels": {"olm.operatorframework.io/metadata.name": "evil"}}})),
            ),
            Some(false),
        ),
        (
            "a selector by expression only",
            clusterextension(
                "memcached",
                with(
                    json!({"selector": {"matchExpressions": [{"key": "olm.operatorframework.io/metadata.name", "operator": "In", "values": ["community", "evil"]}]}}),
                ),
            ),
            Some(false),
        ),
        (
            "the extension's name, another package",
            clusterextension("memcached", with(json!({"packageName": "evil-operator"}))),
            Some(false),
        ),
        (
            "the package under another name, unpinned",
            clusterextension("sneaky", with(json!({"version": null}))),
            Some(false),
        ),
        (
            "the extension's name with no catalog",
            json!({"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension", "metadata": {"name": "memcached"}, "spec": {"namespace": "x", "source": {"sourceType": "Catalog"}}}),
            Some(false),
        ),
    ];
    assert!(cases.len() >= 10);
    for (what, object, want) in cases {
        assert_eq!(admits(extension_policy, &object), want, "{what}");
    }
    let catalog_policy = policies
        .iter()
        .find(|p| p["spec"]["matchConstraints"]["resourceRules"][0]["resources"] == json!(["clustercatalogs"]))
        .unwrap();
    let catalog = |name: &str, image: &str| json!({"metadata": {"name": name}, "spec": {"source": {"type": "Image", "image": {"ref": image}}}});
    assert_eq!(admits(catalog_policy, &catalog("community", DIGEST)), Some(true));
    assert_eq!(admits(catalog_policy, &catalog("community", "quay.io/example/catalog:latest")), Some(false));
    assert_eq!(admits(catalog_policy, &catalog("other", "quay.io/example/catalog:latest")), None);
}

/// Rendered from the bundle's root, the package is what its
/// `metadata/annotations.yaml` names, and another one is an error.
#[test]
fn the_package_of_a_bundle_root_is_its_metadata_annotation() {
    let dir = tempfile::tempdir().unwrap();
    let (ce, cfg) = (dir.path().join("ce.yaml"), dir.path().join("rbac.yaml"));
    std::fs::write(&ce, extension(&PINNED.replace("memcached-operator", "evil-operator"))).unwrap();
    std::fs::write(&cfg, config("memcached", "  mode: Aggregate\n")).unwrap();
    let root = bundles_dir().join(BUNDLE);
    let out = run_bin(&["render", "-c", cfg.to_str().unwrap(), root.to_str().unwrap(), ce.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("error: ClusterExtension memcached: spec.source.catalog.packageName: \"evil-operator\" is not the package judged here: the judged bundle's package is \"memcached-operator\" (its operators.operatorframework.io.bundle.package.v1 annotation)"), "{}", text(&out.stderr));
}

/// The bundle's CSV decides the version the check ties the ClusterExtension
/// to: without a semantic one, nothing can be tied, which an install policy
/// refuses; a bundle cannot switch the version check off that way.
#[test]
fn a_csv_without_a_version_cannot_switch_the_version_check_off() {
    let open = PINNED.replace("\"0.0.1\"", "\">=0.0.0\"");
    // `v0.0.1` and `0.0.01` read as 0.0.1, which in a catalog is another bundle's version.
    for version in ["", "  version: latest\n", "  version: 1.0.0.0\n", "  version: v0.0.1\n", "  version: 0.0.01\n"] {
        let mut inputs: Vec<Source> = Vec::new();
        for (name, text) in bundle_docs(BUNDLE) {
            let text = text.replace("  version: 0.0.1\n", version);
            inputs.push(Source { name: format!("{BUNDLE}/manifests/{name}"), text });
        }
        inputs.push(Source { name: "admin/clusterextension.yaml".into(), text: extension(&open) });
        inputs.push(Source { name: "admin/clustercatalog.yaml".into(), text: cluster_catalog(DIGEST) });
        let spec = format!("  mode: Aggregate\n{POLICY}");
        let out = render(&inputs, &[Source { name: "admin/rbac.yaml".into(), text: config("memcached", &spec) }]);
        assert_eq!(out.code, 1, "{version:?}: {}", out.stderr);
        assert!(out.stderr.contains("error: ClusterExtension memcached: spec.source.catalog.version: \">=0.0.0\" cannot be tied to the bundle judged here"), "{}", out.stderr);
    }
}

/// The admission policy pins the version as render asks it written: the
/// judged version without build metadata, exactly.
#[test]
fn the_version_is_written_exactly_as_the_policy_pins_it() {
    let eq = render_pinned(&PINNED.replace("\"0.0.1\"", "\"=0.0.1\""), Some(DIGEST), POLICY);
    assert_eq!(eq.code, 1, "{}", eq.stderr);
    assert!(eq.stderr.contains("\"=0.0.1\" admits only the judged version, but the admission policy pins it written exactly; pin the judged bundle: spec.source.catalog.version: \"0.0.1\""), "{}", eq.stderr);
    let mut inputs: Vec<Source> = Vec::new();
    for (name, text) in bundle_docs(BUNDLE) {
        let text = text.replace("  version: 0.0.1\n", "  version: 0.0.1+rebuild.2\n");
        inputs.push(Source { name: format!("{BUNDLE}/manifests/{name}"), text });
    }
    inputs.push(Source { name: "admin/clusterextension.yaml".into(), text: extension(PINNED) });
    inputs.push(Source { name: "admin/clustercatalog.yaml".into(), text: cluster_catalog(DIGEST) });
    let spec = format!("  mode: Aggregate\n{POLICY}  admissionPolicy: Generate\n");
    let out = render(&inputs, &[Source { name: "admin/rbac.yaml".into(), text: config("memcached", &spec) }]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let policy = generated(&out, "ValidatingAdmissionPolicy").into_iter().next().unwrap();
    let selector = json!({"matchLabels": {"olm.operatorframework.io/metadata.name": "community"}});
    let pinned = clusterextension(
        "memcached",
        json!({"packageName": "memcached-operator", "version": "0.0.1", "selector": selector}),
    );
    assert_eq!(
        admits(&policy, &pinned),
        Some(true),
        "the ClusterExtension render accepts is the one the policy admits"
    );
}

/// A package render cannot establish is said, an error under a policy.
#[test]
fn an_unknown_package_is_said() {
    let mut inputs: Vec<Source> = Vec::new();
    for (name, text) in bundle_docs(BUNDLE) {
        let text = text.replace("name: memcached-operator.v0.0.1\n", "name: operator\n");
        inputs.push(Source { name: format!("{BUNDLE}/manifests/{name}"), text });
    }
    inputs.push(Source {
        name: "admin/clusterextension.yaml".into(),
        text: extension(&PINNED.replace("memcached-operator", "some-other-package")),
    });
    inputs.push(Source { name: "admin/clustercatalog.yaml".into(), text: cluster_catalog(DIGEST) });
    let spec = format!("  mode: Aggregate\n{POLICY}");
    let out = render(&inputs, &[Source { name: "admin/rbac.yaml".into(), text: config("memcached", &spec) }]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("error: ClusterExtension memcached: spec.source.catalog.packageName: \"some-other-package\" cannot be checked: the judged bundle's package is not known"), "{}", out.stderr);
}

/// The bundle writes its `metadata/annotations.yaml`: one that is not YAML,
/// or names its package with a non-string, is no package, never a failure;
/// and one that names the admin's package only silences a mismatch the
/// catalog and the admission policy would still hold to.
#[test]
fn a_hostile_annotations_file_names_no_package() {
    for annotations in
        ["annotations: [\n", "annotations:\n  operators.operatorframework.io.bundle.package.v1: {a: 1}\n", "\u{0}\u{1}"]
    {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&bundles_dir().join(BUNDLE), &dir.path().join("b"));
        std::fs::write(dir.path().join("b/metadata/annotations.yaml"), annotations).unwrap();
        std::fs::write(dir.path().join("ce.yaml"), extension(PINNED)).unwrap();
        std::fs::write(dir.path().join("rbac.yaml"), config("memcached", "  mode: Aggregate\n")).unwrap();
        let out = std::process::Command::new(BIN)
            .args(["render", "-c", "rbac.yaml", "b", "ce.yaml"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{annotations:?}: {}", text(&out.stderr));
        assert!(!text(&out.stderr).contains("panicked"), "{}", text(&out.stderr));
    }
}

/// The pin holds what render judged beside the version: the namespace the
/// operator was judged in, CRD upgrade safety on, and the bundle as it ships
/// (no `spec.config`, nor the annotation earlier releases read a watch
/// namespace from).
#[test]
fn the_pin_holds_the_judged_namespace_and_the_bundle_as_it_ships() {
    let spec = format!("{POLICY}    installNamespace: memcached-system\n  admissionPolicy: Generate\n");
    let out = render_pinned(PINNED, Some(DIGEST), &spec);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let policies = generated(&out, "ValidatingAdmissionPolicy");
    let pin = policies
        .iter()
        .find(|p| p["spec"]["matchConstraints"]["resourceRules"][0]["resources"] == json!(["clusterextensions"]))
        .unwrap();
    let selector = json!({"matchLabels": {"olm.operatorframework.io/metadata.name": "community"}});
    let judged = clusterextension(
        "memcached",
        json!({"packageName": "memcached-operator", "version": "0.0.1", "selector": selector}),
    );
    let with = |path: &[&str], value: Value| {
        let mut o = judged.clone();
        let mut at = &mut o;
        for key in &path[..path.len() - 1] {
            at = &mut at[*key];
        }
        at[path[path.len() - 1]] = value;
        o
    };
    let cases = [
        ("the judged extension", judged.clone(), Some(true)),
        (
            "CRD safety Strict",
            with(&["spec", "install"], json!({"preflight": {"crdUpgradeSafety": {"enforcement": "Strict"}}})),
            Some(true),
        ),
        ("another namespace", with(&["spec", "namespace"], json!("kube-system")), Some(false)),
        (
            "CRD safety off",
            with(&["spec", "install"], json!({"preflight": {"crdUpgradeSafety": {"enforcement": "None"}}})),
            Some(false),
        ),
        (
            "a watch namespace",
            with(&["spec", "config"], json!({"configType": "Inline", "inline": {"watchNamespace": "team-a"}})),
            Some(false),
        ),
        (
            "the older watch annotation",
            with(&["metadata", "annotations"], json!({"olm.operatorframework.io/watch-namespace": "team-a"})),
            Some(false),
        ),
        ("another annotation", with(&["metadata", "annotations"], json!({"example.com/note": "x"})), Some(true)),
    ];
    for (what, object, want) in cases {
        assert_eq!(admits(pin, &object), want, "{what}");
    }
}

/// Render says first what the pin would refuse: a ClusterExtension that
/// installs the bundle elsewhere or otherwise than judged fails under a policy.
#[test]
fn a_clusterextension_that_installs_otherwise_than_judged_fails_under_a_policy() {
    let spec = format!("{POLICY}    installNamespace: memcached-system\n");
    let mut inputs: Vec<Source> = bundle_docs(BUNDLE)
        .into_iter()
        .map(|(name, text)| Source { name: format!("{BUNDLE}/manifests/{name}"), text })
        .collect();
    inputs.push(Source { name: "admin/clustercatalog.yaml".into(), text: cluster_catalog(DIGEST) });
    let rbac =
        [Source { name: "admin/rbac.yaml".into(), text: config("memcached", &format!("  mode: Aggregate\n{spec}")) }];
    let judged = extension(PINNED);
    for (what, text, field) in [
        (
            "namespace",
            judged.replace("namespace: memcached-system", "namespace: kube-system"),
            "spec.namespace: \"kube-system\" is not \"memcached-system\"",
        ),
        (
            "config",
            judged.replace(
                "  source:\n",
                "  config:\n    configType: Inline\n    inline: {watchNamespace: team-a}\n  source:\n",
            ),
            "spec.config.inline.watchNamespace: OLM v1 will not install this bundle (config.UnmarshalConfig, bundle.buildBundleConfigSchema, operator-controller v1.11.0): a watch namespace is not a setting of this bundle",
        ),
        (
            "annotation",
            judged.replace(
                "  name: memcached\n",
                "  name: memcached\n  annotations: {olm.operatorframework.io/watch-namespace: team-a}\n",
            ),
            "metadata.annotations[\"olm.operatorframework.io/watch-namespace\"]",
        ),
    ] {
        let mut all = inputs.clone();
        all.push(Source { name: "admin/clusterextension.yaml".into(), text });
        let out = render(&all, &rbac);
        assert_eq!(out.code, 1, "{what}: {}", out.stderr);
        assert!(out.stderr.contains(&format!("error: ClusterExtension memcached: {field}")), "{what}: {}", out.stderr);
    }
}

/// A package the bundle contradicts, by its CSV's name alone, is an error
/// under a policy; and no pin is written for a package the render did not
/// establish, whatever the policy says.
#[test]
fn a_package_the_csv_name_contradicts_fails_under_a_policy_and_is_never_pinned() {
    let evil = PINNED.replace("memcached-operator", "not-memcached");
    let judged = render_pinned(&evil, Some(DIGEST), POLICY);
    assert_eq!(judged.code, 1, "{}", judged.stderr);
    assert!(judged.stderr.contains("error: ClusterExtension memcached: spec.source.catalog.packageName: \"not-memcached\" is not the package judged here: the judged bundle's ClusterServiceVersion is named as if its package were \"memcached-operator\""), "{}", judged.stderr);
    let pinned = render_pinned(&evil, Some(DIGEST), "  admissionPolicy: Generate\n");
    assert_eq!(pinned.code, 1, "{}", pinned.stderr);
    assert!(pinned.stderr.contains("spec.admissionPolicy: cannot be written: the ClusterExtension installs package \"not-memcached\", which is not the package established for the judged bundle (\"memcached-operator\")"), "{}", pinned.stderr);
    assert!(!pinned.stdout.contains("ValidatingAdmissionPolicy"), "{}", pinned.stdout);
}
