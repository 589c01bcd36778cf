//! Which bundles OLM v1 refuses to install (operator-controller v1.11.0,
//! default feature gates), through render with the admin's ClusterExtension:
//! every fixture bundle, each answer checked against the rule it follows.

use olm_rbac::input::Source;

use crate::common::*;

/// Renders `bundle` from its folder with an admin's ClusterExtension for it:
/// the `uninstallable` results, each as `field: message`.
fn refusals(bundle: &str) -> (i32, Vec<Coded>) {
    let mut inputs: Vec<Source> = bundle_docs(bundle)
        .into_iter()
        .map(|(name, text)| Source { name: format!("{bundle}/manifests/{name}"), text })
        .collect();
    let extension = "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: ext\nspec:\n  namespace: ops\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: some-package\n";
    inputs.push(Source { name: "admin/clusterextension.yaml".into(), text: extension.into() });
    let configs = [Source { name: "admin/rbac.yaml".into(), text: config("ext", "  mode: Aggregate\n") }];
    let (out, results) = render_results(&inputs, &configs);
    (out.code, results.into_iter().filter(|r| r.code == "uninstallable").collect())
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
        // provider.go: "apiServiceDefintions are not supported".
        ("enmasse-0.30.2", &["OLM v1 will not install this bundle (applier/provider.go, operator-controller v1.11.0): it owns API services"]),
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
