//! One test per rule of operator-controller v1.11.0, each naming the
//! function it follows, with a bundle it refuses and one it installs.

use super::*;

/// A CSV that OLM v1 installs: AllNamespaces alone, one Deployment, one
/// owned CRD, `extra` appended under `spec`.
fn csv(extra: &str) -> CsvView {
    let text = format!(
        "spec:
  installModes:
  - {{type: OwnNamespace, supported: false}}
  - {{type: AllNamespaces, supported: true}}
  customresourcedefinitions:
    owned:
    - {{name: widgets.example.com, version: v1, kind: Widget}}
  install:
    spec:
      deployments:
      - name: widget-operator
{extra}"
    );
    serde_saphyr::from_str(&text).unwrap()
}

const CRDS: [&str; 1] = ["widgets.example.com"];

fn rules(view: &CsvView, crds: &[&str]) -> Vec<Rule> {
    refusals(view, crds.iter().copied(), &Install::default()).into_iter().map(|r| r.rule).collect()
}

#[test]
fn a_bundle_of_all_namespaces_with_its_crds_is_installable() {
    assert_eq!(refusals(&csv(""), CRDS, &Install::default()), Vec::new());
}

/// `applier/provider.go`, `Get`: "apiServiceDefintions are not supported".
#[test]
fn owned_api_services_are_refused() {
    let view = csv("  apiservicedefinitions:\n    owned:\n    - {name: v1.metrics.example.com}\n");
    assert_eq!(rules(&view, &CRDS), [Rule::ApiServices]);
    // Required ones are the cluster's to serve.
    let view = csv("  apiservicedefinitions:\n    required:\n    - {name: v1.metrics.example.com}\n");
    assert_eq!(rules(&view, &CRDS), []);
}

/// `applier/provider.go`, `Get`: without SingleOwnNamespaceInstallSupport,
/// `InstallMode{AllNamespaces, Supported: true}` must be listed.
#[test]
fn a_bundle_without_all_namespaces_is_refused_under_the_default_gates() {
    let own = csv("").spec.install_modes.len();
    assert_eq!(own, 2);
    let mut view = csv("");
    view.spec.install_modes[1].supported = false;
    let refused = refusals(&view, CRDS, &Install::default());
    assert_eq!(refused.iter().map(|r| r.rule).collect::<Vec<_>>(), [Rule::AllNamespaces]);
    assert!(refused[0].why.contains("(it supports none)"), "{}", refused[0].why);
    assert!(refused[0].message().starts_with("OLM v1 will not install this bundle (applier/provider.go, operator-controller v1.11.0): it does not support the AllNamespaces install mode"));
    // Listed but written otherwise is not AllNamespaces.
    view.spec.install_modes[1].supported = true;
    view.spec.install_modes[1].mode = Some("allnamespaces".into());
    assert_eq!(rules(&view, &CRDS), [Rule::AllNamespaces]);
}

/// `CheckDeploymentSpecUniqueness`, `CheckDeploymentNameIsDNS1123SubDomain`.
#[test]
fn deployment_names_are_unique_dns_subdomains() {
    let view = csv("      - name: widget-operator\n      - name: Widget_Operator\n");
    let refused = refusals(&view, CRDS, &Install::default());
    assert_eq!(refused.iter().map(|r| r.rule).collect::<Vec<_>>(), [Rule::DeploymentNames, Rule::DeploymentNames]);
    assert_eq!(refused[0].field, "spec.install.spec.deployments[1].name");
    assert!(refused[1].why.contains("not a DNS-1123 subdomain"));
    // Kubernetes' IsDNS1123Subdomain has no limit per dot-separated part.
    let long = format!("      - name: {}\n", "a".repeat(70));
    assert_eq!(rules(&csv(&long), &CRDS), []);
}

/// `CheckCRDResourceUniqueness`, `CheckOwnedCRDExistence`.
#[test]
fn owned_crds_are_shipped_once() {
    assert_eq!(rules(&csv(""), &[]), [Rule::Crds]);
    assert_eq!(rules(&csv(""), &[CRDS[0], CRDS[0]]), [Rule::Crds]);
    // A CRD shipped but not owned is OLM's to install all the same.
    assert_eq!(rules(&csv(""), &[CRDS[0], "gadgets.example.com"]), []);
}

fn webhook(kind: &str, name: &str, extra: &str) -> String {
    format!("  webhookdefinitions:\n  - type: {kind}\n    generateName: {name}\n    deploymentName: widget-operator\n{extra}")
}

/// `CheckConversionWebhookSupport`: the install modes with `supported: true`
/// must be AllNamespaces and nothing else; an unknown type counts.
#[test]
fn conversion_webhooks_need_all_namespaces_alone() {
    let convert = webhook("ConversionWebhook", "cwidget.example.com", "    conversionCRDs: [widgets.example.com]\n");
    assert_eq!(rules(&csv(&convert), &CRDS), []);
    let mut view = csv(&convert);
    view.spec.install_modes[0].supported = true;
    assert_eq!(rules(&view, &CRDS), [Rule::ConversionWebhookModes]);
    view.spec.install_modes[0].mode = Some("Elsewhere".into());
    assert_eq!(rules(&view, &CRDS), [Rule::ConversionWebhookModes]);
    // A supported mode without a type is one more type to OLM (the empty one).
    view.spec.install_modes[0].mode = None;
    assert_eq!(rules(&view, &CRDS), [Rule::ConversionWebhookModes]);
    // Admission webhooks are not held to it.
    let mut view = csv(&webhook("ValidatingAdmissionWebhook", "vwidget.example.com", ""));
    view.spec.install_modes[0].supported = true;
    assert_eq!(rules(&view, &CRDS), []);
}

/// `CheckWebhookDeploymentReferentialIntegrity`, `CheckWebhookNameUniqueness`,
/// `CheckWebhookNameIsDNS1123SubDomain`.
#[test]
fn webhooks_name_their_deployment_and_are_named_once() {
    let other =
        webhook("ValidatingAdmissionWebhook", "vwidget.example.com", "").replace("widget-operator", "elsewhere");
    assert_eq!(rules(&csv(&other), &CRDS), [Rule::WebhookNames]);
    let twice = format!(
        "{}  - {{type: ValidatingAdmissionWebhook, generateName: vwidget.example.com, deploymentName: widget-operator}}\n  - {{type: MutatingAdmissionWebhook, generateName: vwidget.example.com, deploymentName: widget-operator}}\n",
        webhook("ValidatingAdmissionWebhook", "vwidget.example.com", "")
    );
    assert_eq!(rules(&csv(&twice), &CRDS), [Rule::WebhookNames], "the same name twice in one type only");
    assert_eq!(rules(&csv(&webhook("ValidatingAdmissionWebhook", "V_Widget", "")), &CRDS), [Rule::WebhookNames]);
}

/// `CheckConversionWebhooksReferenceOwnedCRDs`, `CheckConversionWebhookCRDReferenceUniqueness`.
#[test]
fn conversion_webhooks_convert_owned_crds_one_each() {
    let foreign = webhook("ConversionWebhook", "cwidget.example.com", "    conversionCRDs: [gadgets.example.com]\n");
    assert_eq!(rules(&csv(&foreign), &CRDS), [Rule::ConversionCrds]);
    let shared = format!(
        "{}  - {{type: ConversionWebhook, generateName: cwidget2.example.com, deploymentName: widget-operator, conversionCRDs: [widgets.example.com]}}\n",
        webhook("ConversionWebhook", "cwidget.example.com", "    conversionCRDs: [widgets.example.com]\n")
    );
    assert_eq!(rules(&csv(&shared), &CRDS), [Rule::ConversionCrds]);
}

/// `CheckWebhookRules`: no admission webhook on `*`, on
/// `olm.operatorframework.io`, or on webhook configurations (any case).
#[test]
fn admission_webhooks_stay_off_olm_and_webhook_configurations() {
    let on = |groups: &str, resources: &str| {
        csv(&webhook(
            "MutatingAdmissionWebhook",
            "mwidget.example.com",
            &format!("    rules:\n    - {{apiGroups: {groups}, resources: {resources}, operations: [CREATE]}}\n"),
        ))
    };
    assert_eq!(rules(&on("['*']", "[pods]"), &CRDS), [Rule::WebhookRules]);
    assert_eq!(rules(&on("[olm.operatorframework.io]", "[clusterextensions]"), &CRDS), [Rule::WebhookRules]);
    assert_eq!(
        rules(&on("[admissionregistration.k8s.io]", "[ValidatingWebhookConfigurations]"), &CRDS),
        [Rule::WebhookRules]
    );
    assert_eq!(rules(&on("[admissionregistration.k8s.io]", "[validatingadmissionpolicies]"), &CRDS), []);
    // Lowered as Go's strings.ToLower lowers it: U+0130 is `i`.
    assert_eq!(
        rules(&on("[admissionregistration.k8s.io]", "[mutat\u{130}ngwebhookconfigurations]"), &CRDS),
        [Rule::WebhookRules]
    );
    assert_eq!(rules(&on("[apps]", "['*']"), &CRDS), []);
    // Conversion webhooks have no rules to hold.
    let convert = webhook(
        "ConversionWebhook",
        "cwidget.example.com",
        "    conversionCRDs: [widgets.example.com]\n    rules:\n    - {apiGroups: ['*'], resources: ['*']}\n",
    );
    assert_eq!(rules(&csv(&convert), &CRDS), []);
}

/// A CSV of these install modes (each supported), with the widget CRD.
fn with_modes(modes: &[&str]) -> CsvView {
    let mut view = csv("");
    view.spec.install_modes =
        modes.iter().map(|m| serde_saphyr::from_str(&format!("{{type: {m}, supported: true}}")).unwrap()).collect();
    view
}

/// What a ClusterExtension in namespace `ops` asks, `inline` as written.
fn config(inline: &str) -> ExtensionConfig {
    serde_saphyr::from_str(&format!("configType: Inline\ninline: {inline}\n")).unwrap()
}

fn asked_rules(view: &CsvView, gate: bool, config: Option<&ExtensionConfig>) -> Vec<(Rule, String)> {
    let install = Install { single_own_namespace: gate, extension: Some(Asked { namespace: Some("ops"), config }) };
    refusals(view, CRDS, &install).into_iter().map(|r| (r.rule, r.field)).collect()
}

/// `applier/provider.go`, `Get`, with `SingleOwnNamespaceInstallSupport` on:
/// an OwnNamespace or SingleNamespace bundle is installable, and
/// `buildBundleConfigSchema` then requires `watchNamespace`
/// (`isWatchNamespaceConfigRequired`).
#[test]
fn with_the_gate_a_namespaced_bundle_needs_its_watch_namespace() {
    let own = with_modes(&["OwnNamespace"]);
    let refused = asked_rules(&own, false, None);
    assert_eq!(refused, [(Rule::AllNamespaces, "spec.installModes".to_string())]);
    let watch = "spec.config.inline.watchNamespace".to_string();
    assert_eq!(asked_rules(&own, true, None), [(Rule::Config, watch.clone())]);
    assert_eq!(asked_rules(&own, true, Some(&config("{watchNamespace: ops}"))), []);
    // Without a ClusterExtension (catalog audit), the gate alone decides.
    let install = Install { single_own_namespace: true, extension: None };
    assert_eq!(refusals(&own, CRDS, &install), Vec::new());
}

/// `config.UnmarshalConfig`'s formats: `ownNamespaceInstallMode` (the install
/// namespace) for an OwnNamespace-only bundle, `singleNamespaceInstallMode`
/// (another) for a SingleNamespace-only one, neither for both; a DNS-1123
/// label; a string.
#[test]
fn the_watch_namespace_is_validated_as_operator_controller_validates_it() {
    let watch = |r: &[(Rule, String)]| r.iter().filter(|(rule, _)| *rule == Rule::Config).count();
    let own = with_modes(&["OwnNamespace"]);
    assert_eq!(watch(&asked_rules(&own, true, Some(&config("{watchNamespace: team-a}")))), 1);
    let single = with_modes(&["SingleNamespace"]);
    assert_eq!(watch(&asked_rules(&single, true, Some(&config("{watchNamespace: ops}")))), 1);
    assert_eq!(watch(&asked_rules(&single, true, Some(&config("{watchNamespace: team-a}")))), 0);
    let both = with_modes(&["OwnNamespace", "SingleNamespace"]);
    for ns in ["ops", "team-a"] {
        assert_eq!(watch(&asked_rules(&both, true, Some(&config(&format!("{{watchNamespace: {ns}}}"))))), 0, "{ns}");
    }
    assert_eq!(watch(&asked_rules(&both, true, Some(&config("{watchNamespace: Team_A}")))), 1);
    assert_eq!(watch(&asked_rules(&both, true, Some(&config("{watchNamespace: 3}")))), 1);
    // `null` is no watch namespace: required for these.
    assert_eq!(watch(&asked_rules(&both, true, Some(&config("{watchNamespace: null}")))), 1);
}

/// `buildBundleConfigSchema`: a bundle that supports only AllNamespaces has
/// no `watchNamespace` (OLM refuses it as an unknown field); one that also
/// supports OwnNamespace takes it without the gate, and is then installed
/// watching that namespace; keys olm-rbac does not judge
/// (`deploymentConfig`) and a `configType` other than Inline are refused.
#[test]
fn a_configuration_the_schema_does_not_allow_is_refused() {
    let all = with_modes(&["AllNamespaces"]);
    let refused = asked_rules(&all, false, Some(&config("{watchNamespace: ops}")));
    assert_eq!(refused, [(Rule::Config, "spec.config.inline.watchNamespace".to_string())]);
    let all_own = with_modes(&["AllNamespaces", "OwnNamespace"]);
    assert_eq!(asked_rules(&all_own, false, Some(&config("{watchNamespace: ops}"))), []);
    assert_eq!(asked_rules(&all_own, false, None), []);
    let refused = asked_rules(&all_own, false, Some(&config("{deploymentConfig: {env: []}}")));
    assert_eq!(refused, [(Rule::Config, "spec.config.inline.deploymentConfig".to_string())]);
    let other: ExtensionConfig = serde_saphyr::from_str("configType: Secret\n").unwrap();
    let refused = asked_rules(&all_own, false, Some(&other));
    assert_eq!(refused, [(Rule::Config, "spec.config.configType".to_string())]);
}

/// `applier/provider.go`, `Get`: with the gate on, a bundle must still
/// support one of AllNamespaces, SingleNamespace and OwnNamespace.
#[test]
fn with_the_gate_a_multi_namespace_only_bundle_is_refused() {
    let multi = with_modes(&["MultiNamespace"]);
    let install = Install { single_own_namespace: true, extension: None };
    let refused = refusals(&multi, CRDS, &install);
    assert_eq!(refused.iter().map(|r| r.rule).collect::<Vec<_>>(), [Rule::AllNamespaces]);
    assert!(refused[0].why.starts_with("it supports none of AllNamespaces, SingleNamespace and OwnNamespace"));
}

/// Not a check of operator-controller's: it reads a bundle's CRDs into v1
/// ones and applies them as written (`bundle/source/source.go`), and no API
/// server has served `apiextensions.k8s.io/v1beta1` since Kubernetes 1.22.
#[test]
fn a_v1beta1_crd_cannot_be_created() {
    let crd = |api_version: &str| -> CrdView {
        serde_saphyr::from_str(&format!("apiVersion: {api_version}\nspec: {{group: example.com, scope: Namespaced}}\n"))
            .unwrap()
    };
    let refused = crd_refusal(&crd("apiextensions.k8s.io/v1beta1")).map(|r| (r.rule, r.field));
    assert_eq!(refused, Some((Rule::CrdApiVersion, "apiVersion".to_string())));
    assert_eq!(crd_refusal(&crd("apiextensions.k8s.io/v1")), None);
    let said = crd_refusal(&crd("apiextensions.k8s.io/v1beta1")).map(|r| r.message()).unwrap_or_default();
    assert!(said.contains("has not served apiextensions.k8s.io/v1beta1 since Kubernetes 1.22"), "{said}");
    assert!(!said.contains("operator-controller v1.11.0"), "not operator-controller's own check: {said}");
}
