//! Which bundles OLM v1 refuses to install (operator-controller v1.11.0,
//! default feature gates), through render with the admin's ClusterExtension:
//! every fixture bundle, each answer checked against the rule it follows.

use olm_rbac::input::Source;

use crate::common::*;

/// Renders `bundle` from its folder with an admin's ClusterExtension for it:
/// the `uninstallable` results, each as `field: message`.
fn refusals(bundle: &str) -> (i32, Vec<Coded>) {
    let mut inputs: Vec<Source> = published_docs(bundle)
        .into_iter()
        .map(|(name, text)| Source { name: format!("{bundle}/manifests/{name}"), text })
        .collect();
    let extension = "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: ext\nspec:\n  namespace: ops\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: some-package\n";
    inputs.push(Source { name: "admin/clusterextension.yaml".into(), text: extension.into() });
    let configs = [Source { name: "admin/rbac.yaml".into(), text: config("ext", "  mode: Aggregate\n") }];
    let (out, results) = render_results(&inputs, &configs);
    (out.code.code(), results.into_iter().filter(|r| r.code == "uninstallable").collect())
}

/// Each fixture bundle, and the start of each refusal OLM v1 gives it.
#[test]
fn installability_follows_operator_controller_on_every_fixture_bundle() {
    let expected: &[(&str, &[&str])] = &[
        ("ack-s3-controller-1.10.0", &[]),
        ("argocd-operator-0.19.0", &[]),
        ("argocd-operator-0.6.0", &[]),
        ("cert-manager-1.16.5", &[]),
        ("clickhouse-operator-0.27.2", &[]),
        // Its 8 CRDs are apiextensions.k8s.io/v1beta1, which no API server
        // serves since Kubernetes 1.22; provider.go: "apiServiceDefintions are
        // not supported".
        ("enmasse-0.30.2", &[
            "OLM v1 will not install this bundle (applier/provider.go, operator-controller v1.11.0): it owns API services",
            "CustomResourceDefinition addressplans.admin.enmasse.io: apiVersion: OLM v1 will not install this bundle (the API server, Kubernetes 1.22 and later): the API server has not served apiextensions.k8s.io/v1beta1",
            "CustomResourceDefinition addressspaceplans.admin.enmasse.io: apiVersion: OLM v1",
            "CustomResourceDefinition authenticationservices.admin.enmasse.io: apiVersion: OLM v1",
            "CustomResourceDefinition brokeredinfraconfigs.admin.enmasse.io: apiVersion: OLM v1",
            "CustomResourceDefinition consoleservices.admin.enmasse.io: apiVersion: OLM v1",
            "CustomResourceDefinition iotconfigs.iot.enmasse.io: apiVersion: OLM v1",
            "CustomResourceDefinition iotprojects.iot.enmasse.io: apiVersion: OLM v1",
            "CustomResourceDefinition standardinfraconfigs.admin.enmasse.io: apiVersion: OLM v1",
        ]),
        ("memcached-operator-0.0.1", &[]),
        ("opentelemetry-operator-0.158.0", &[]),
        // provider.go: "bundle does not support AllNamespaces install mode".
        ("prometheus-0.56.3", &["OLM v1 will not install this bundle (applier/provider.go, operator-controller v1.11.0): it does not support the AllNamespaces install mode (it supports OwnNamespace, SingleNamespace)"]),
        ("strimzi-kafka-operator-1.2.0", &[]),
        ("webhook-operator-0.0.5", &[]),
    ];
    let mut wrong = Vec::new();
    for (bundle, refused) in expected {
        let (code, said) = refusals(bundle);
        let matches = said.len() == refused.len() && said.iter().zip(*refused).all(|(s, r)| s.message.contains(r));
        let code_right = refused.is_empty() || code == 1;
        if !matches || !code_right {
            wrong.push(format!("{bundle} (exit {code}): {said:#?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// prometheus 0.56.3 supports OwnNamespace and SingleNamespace, not
/// AllNamespaces. With operator-controller's alpha
/// SingleOwnNamespaceInstallSupport gate on (`spec.olmFeatureGates`), OLM v1
/// installs it given a watch namespace: render requires one on the
/// ClusterExtension, judges the operator's `permissions` in that namespace
/// alone (not cluster-wide), and the pin admits exactly that configuration.
#[test]
fn with_the_gate_a_namespaced_bundle_is_judged_in_its_watch_namespace_and_pinned_to_it() {
    let bundle = "prometheus-0.56.3";
    let mut inputs: Vec<Source> = bundle_docs(bundle)
        .into_iter()
        .map(|(name, text)| Source { name: format!("{bundle}/manifests/{name}"), text })
        .collect();
    inputs.push(Source {
        name: "admin/clustercatalog.yaml".into(),
        text: "apiVersion: olm.operatorframework.io/v1\nkind: ClusterCatalog\nmetadata:\n  name: operatorhubio\nspec:\n  source:\n    type: Image\n    image: {ref: \"quay.io/operatorhubio/catalog@sha256:5b0c3a1ce35b69eb0a8b6d0a6f1b3c4d2e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b\"}\n".into(),
    });
    let extension = |settings: &str| {
        format!("apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: prometheus\nspec:\n  namespace: monitoring\n{settings}  source:\n    sourceType: Catalog\n    catalog:\n      packageName: prometheusoperator\n      version: \"0.56.3\"\n      selector:\n        matchLabels: {{olm.operatorframework.io/metadata.name: operatorhubio}}\n")
    };
    let spec = "  mode: Aggregate\n  olmFeatureGates: [SingleOwnNamespaceInstallSupport]\n  admissionPolicy: Generate\n  operator:\n    installNamespace: monitoring\n    policy: {}\n";
    let render = |settings: &str, spec: &str| {
        let mut all = inputs.clone();
        all.push(Source { name: "admin/clusterextension.yaml".into(), text: extension(settings) });
        let configs = [Source { name: "admin/rbac.yaml".into(), text: config("prometheus", spec) }];
        render_results(&all, &configs)
    };
    // Without a watch namespace: refused, at the ClusterExtension's field.
    let (out, results) = render("", spec);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("error: ClusterExtension prometheus: spec.config.inline.watchNamespace: OLM v1 will not install this bundle (config.UnmarshalConfig, bundle.buildBundleConfigSchema, operator-controller v1.11.0): it needs a watch namespace"), "{}", out.stderr);
    assert!(results.iter().any(|r| r.code == "uninstallable"));
    // Without the gate: refused by provider.go, whatever the watch namespace.
    let watch = "  config:\n    configType: Inline\n    inline: {watchNamespace: monitoring}\n";
    let (out, _) = render(watch, &spec.replace("  olmFeatureGates: [SingleOwnNamespaceInstallSupport]\n", ""));
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains(
            "(applier/provider.go, operator-controller v1.11.0): it does not support the AllNamespaces install mode"
        ),
        "{}",
        out.stderr
    );
    // With it: installable, judged in monitoring.
    let (out, results) = render(watch, spec);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let dangerous: Vec<&str> =
        results.iter().filter(|r| r.code.starts_with("danger-")).map(|r| r.message.as_str()).collect();
    assert!(!dangerous.is_empty(), "{}", out.stderr);
    assert!(
        dangerous.iter().all(|m| !m.contains(" cluster-wide: ") || m.contains("clusterPermissions")),
        "{dangerous:#?}"
    );
    assert!(dangerous.iter().any(|m| m.contains("in namespace(s) monitoring: ")), "{dangerous:#?}");
    // The pin admits exactly that configuration.
    let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple(&out.stdout).unwrap();
    let pin = docs
        .iter()
        .find(|d| {
            d["kind"] == "ValidatingAdmissionPolicy"
                && d["spec"]["matchConstraints"]["resourceRules"][0]["resources"]
                    == serde_json::json!(["clusterextensions"])
        })
        .unwrap_or_else(|| panic!("{}", out.stdout));
    let judged: serde_json::Value = serde_saphyr::from_str(&extension(watch)).unwrap();
    let with_config = |config: serde_json::Value| {
        let mut o = judged.clone();
        o["spec"]["config"] = config;
        o
    };
    let without = {
        let mut o = judged.clone();
        o["spec"].as_object_mut().unwrap().remove("config");
        o
    };
    let cases = [
        ("the judged watch namespace", judged.clone(), true),
        ("no configuration", without, false),
        (
            "another watch namespace",
            with_config(serde_json::json!({"configType": "Inline", "inline": {"watchNamespace": "team-a"}})),
            false,
        ),
        (
            "a deploymentConfig beside it",
            with_config(
                serde_json::json!({"configType": "Inline", "inline": {"watchNamespace": "monitoring", "deploymentConfig": {}}}),
            ),
            false,
        ),
    ];
    for (what, object, want) in cases {
        assert_eq!(crate::pinning::admits(pin, &object), Some(want), "{what}");
    }
}

/// Found in review: an admin's ClusterExtension that installs the judged
/// package under another name than the extension's is not the judged
/// install; render says so instead of passing in silence.
#[test]
fn a_clusterextension_of_the_judged_package_under_another_name_is_warned_about() {
    let bundle = "prometheus-0.56.3";
    let mut inputs: Vec<Source> = bundle_docs(bundle)
        .into_iter()
        .map(|(name, text)| Source { name: format!("{bundle}/manifests/{name}"), text })
        .collect();
    let extension = "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: prom-prod\nspec:\n  namespace: kube-system\n  config:\n    configType: Inline\n    inline: {watchNamespace: kube-system}\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: prometheusoperator\n";
    inputs.push(Source { name: "admin/clusterextension.yaml".into(), text: extension.into() });
    let spec = "  mode: Aggregate\n  olmFeatureGates: [SingleOwnNamespaceInstallSupport]\n  operator:\n    installNamespace: monitoring\n";
    let configs = [Source { name: "admin/rbac.yaml".into(), text: config("prometheus", spec) }];
    let (out, results) = render_results(&inputs, &configs);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("warning: ClusterExtension prom-prod: metadata.name: installs package \"prometheusoperator\", judged here, but is named \"prom-prod\", not \"prometheus\""),
        "{}",
        out.stderr
    );
    assert!(results.iter().any(|r| r.code == "pin-package"));
}

/// A bundle cut down from multicluster-operators-subscription 0.2.6
/// (`tests/fixtures/derived/SOURCES.md`): its `deployables` CRD is written
/// `apiextensions.k8s.io/v1beta1` with `scope: ""`.
const EMPTY_SCOPE: &str = "tests/fixtures/derived/empty-scope";

/// The manifests of a bundle folder under `tests/fixtures/`, in file-name
/// order, each named as render names a file of the folder.
fn manifests_of(folder: &str) -> Vec<Source> {
    let dir = repo(folder).join("manifests");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let name = |f: &std::path::Path| format!("{folder}/manifests/{}", f.file_name().unwrap().to_string_lossy());
    files.iter().map(|f| Source { name: name(f), text: std::fs::read_to_string(f).unwrap() }).collect()
}

/// Regression (issue 47): a v1beta1 CRD written `scope: ""` was refused as
/// `crd-invalid`, though the API server's v1beta1 defaulting reads an empty
/// scope as Namespaced; two community bundles that rendered before no
/// longer did. The scope is read as the API server defaults it, and it
/// renders again, with a warning of what OLM v1 refuses it for: its CRD's
/// apiVersion (an error where a ClusterExtension asks OLM v1 for it).
#[test]
fn a_crd_written_with_an_empty_scope_is_read_as_the_api_server_defaults_it() {
    let spec = "  mode: Aggregate\n";
    let configs =
        [Source { name: "admin/rbac.yaml".into(), text: config("multicluster-operators-subscription", spec) }];
    let (out, results) = render_results(&manifests_of(EMPTY_SCOPE), &configs);
    assert!(!has_code(&results, "crd-invalid", None), "{results:#?}");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(results.iter().all(|r| r.severity != "error"), "{results:#?}");
    let on_the_crd = "warning: CustomResourceDefinition deployables.apps.open-cluster-management.io: apiVersion: OLM v1 will not install this bundle";
    assert!(out.stderr.contains(on_the_crd), "{}", out.stderr);
}

/// Issue 47: no API server has served `apiextensions.k8s.io/v1beta1` since
/// Kubernetes 1.22, so OLM v1 cannot install a bundle that ships such a
/// CRD. Each is an `uninstallable` result on its `apiVersion`: an error
/// where a ClusterExtension in the input asks OLM v1 for the bundle, a
/// warning where none does (the catalog commands, whose bundles are OLM
/// v1's, read it as the refusal); the same CRD written as v1 passes.
#[test]
fn a_bundle_with_a_v1beta1_crd_is_uninstallable_with_or_without_a_clusterextension() {
    let bundle = "memcached-operator-0.0.1";
    let docs = bundle_docs(bundle);
    let crd = docs.iter().position(|(_, d)| d.contains("kind: CustomResourceDefinition")).unwrap();
    for v1beta1 in [false, true] {
        for with_extension in [false, true] {
            let mut inputs: Vec<Source> = docs
                .iter()
                .enumerate()
                .map(|(i, (name, text))| {
                    let text = match i == crd && v1beta1 {
                        true => text.replacen("apiextensions.k8s.io/v1\n", "apiextensions.k8s.io/v1beta1\n", 1),
                        false => text.clone(),
                    };
                    Source { name: format!("{bundle}/manifests/{name}"), text }
                })
                .collect();
            if with_extension {
                let extension = "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: ext\nspec:\n  namespace: ops\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: memcached-operator\n";
                inputs.push(Source { name: "admin/clusterextension.yaml".into(), text: extension.into() });
            }
            let configs = [Source { name: "admin/rbac.yaml".into(), text: config("ext", "  mode: Aggregate\n") }];
            let (out, results) = render_results(&inputs, &configs);
            let refused: Vec<&Coded> = results.iter().filter(|r| r.code == "uninstallable").collect();
            let case = format!("v1beta1 {v1beta1}, ClusterExtension {with_extension}");
            assert_eq!(refused.len(), usize::from(v1beta1), "{case}: {refused:#?}");
            if v1beta1 {
                assert_eq!(out.code, i32::from(with_extension), "{case}: {}", out.stderr);
                let severity = if with_extension { "error" } else { "warning" };
                assert!(refused.iter().all(|r| r.severity == severity), "{case}: {refused:#?}");
                assert!(
                    out.stderr.contains(": apiVersion: OLM v1 will not install this bundle (the API server, Kubernetes 1.22 and later): the API server has not served apiextensions.k8s.io/v1beta1 since Kubernetes 1.22"),
                    "{case}: {}",
                    out.stderr
                );
            }
        }
    }
}
