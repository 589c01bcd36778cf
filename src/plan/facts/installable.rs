//! Whether OLM v1 installs the bundle at all: the refusals of
//! operator-controller v1.11.0, with its default feature gates, as facts of
//! the bundle. OLM does not fall back to another version when it refuses one,
//! so a bundle it refuses is never what a ClusterExtension gets, whatever its
//! RBAC verdict.
//!
//! Each rule names where operator-controller decides it: the manifest
//! provider (`internal/operator-controller/applier/provider.go`, `Get`) or one
//! of the registry+v1 validators
//! (`internal/operator-controller/rukpak/render/registryv1/validators/validator.go`).
//! Kinds of objects OLM refuses (`CheckObjectSupport`) are refused where the
//! bundle is read (`trust::check_bundle_kinds`). The CustomResourceDefinitions
//! no API server creates any more ([`crd_refusal`]) are refused where the
//! admin's ClusterExtension asks OLM v1 for the bundle, and warned of where
//! none does (`guard::pinning`); a catalog's verdict reads both as OLM's
//! refusal.
//!
//! What the cluster's OLM runs with and what the ClusterExtension asks for
//! count too ([`Install`]): with the alpha `SingleOwnNamespaceInstallSupport`
//! gate on (`spec.olmFeatureGates`), operator-controller installs
//! OwnNamespace and SingleNamespace bundles, given a
//! `spec.config.inline.watchNamespace` it validates against the bundle's
//! configuration schema (`rukpak/bundle/registryv1.go`,
//! `buildBundleConfigSchema`; `config/config.go`, `UnmarshalConfig`).

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{CrdView, CsvView, ExtensionConfig, InstallMode, WebhookView};
use crate::names::{is_dns1123_label, is_dns1123_subdomain};

/// The rule that refuses a bundle, by the function of operator-controller
/// v1.11.0 that decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rule {
    /// `provider.go`: owned `apiservicedefinitions` are not supported.
    ApiServices,
    /// `provider.go`: without `SingleOwnNamespaceInstallSupport`, only
    /// bundles that support `AllNamespaces`.
    AllNamespaces,
    /// `CheckDeploymentSpecUniqueness`, `CheckDeploymentNameIsDNS1123SubDomain`.
    DeploymentNames,
    /// `CheckCRDResourceUniqueness`, `CheckOwnedCRDExistence`.
    Crds,
    /// `CheckConversionWebhookSupport`: conversion webhooks only for bundles
    /// that support `AllNamespaces` and nothing else.
    ConversionWebhookModes,
    /// `CheckWebhookDeploymentReferentialIntegrity`, `CheckWebhookNameUniqueness`,
    /// `CheckWebhookNameIsDNS1123SubDomain`.
    WebhookNames,
    /// `CheckConversionWebhookCRDReferenceUniqueness`, `CheckConversionWebhooksReferenceOwnedCRDs`.
    ConversionCrds,
    /// `CheckWebhookRules`: admission webhooks on OLM's own API, on every group,
    /// or on webhook configurations.
    WebhookRules,
    /// `UnmarshalConfig`, against `buildBundleConfigSchema`'s schema: the
    /// ClusterExtension's `spec.config` as the bundle's install modes allow it.
    Config,
    /// Not operator-controller's own check: it reads a bundle's CRDs into
    /// `apiextensions.k8s.io/v1` ones (`bundle/source/source.go`,
    /// `GetBundle`) and applies them as written, and the API server has not
    /// served `apiextensions.k8s.io/v1beta1` since Kubernetes 1.22.
    CrdApiVersion,
    /// `rukpak/bundle/source/source.go`, `GetBundle`: every file of
    /// `manifests/`, and "subdirectories are not allowed" in it.
    ManifestsFolder,
}

impl Rule {
    /// Where operator-controller v1.11.0 decides it.
    pub(crate) fn source(self) -> &'static str {
        match self {
            Rule::ApiServices | Rule::AllNamespaces => "applier/provider.go",
            Rule::DeploymentNames => "CheckDeploymentSpecUniqueness, CheckDeploymentNameIsDNS1123SubDomain",
            Rule::Crds => "CheckCRDResourceUniqueness, CheckOwnedCRDExistence",
            Rule::ConversionWebhookModes => "CheckConversionWebhookSupport",
            Rule::WebhookNames => {
                "CheckWebhookDeploymentReferentialIntegrity, CheckWebhookNameUniqueness, CheckWebhookNameIsDNS1123SubDomain"
            }
            Rule::ConversionCrds => "CheckConversionWebhookCRDReferenceUniqueness, CheckConversionWebhooksReferenceOwnedCRDs",
            Rule::WebhookRules => "CheckWebhookRules",
            Rule::Config => "config.UnmarshalConfig, bundle.buildBundleConfigSchema",
            Rule::CrdApiVersion => "the API server, Kubernetes 1.22 and later",
            Rule::ManifestsFolder => "bundle/source/source.go GetBundle",
        }
    }
}

/// One reason OLM v1 refuses the bundle: the rule, the field, and what is
/// wrong there with what would make it installable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub rule: Rule,
    /// The field that breaks the rule: the ClusterServiceVersion's, or, for
    /// [`Rule::Config`], the ClusterExtension's.
    pub field: String,
    pub why: String,
}

impl Refusal {
    fn new(rule: Rule, field: impl Into<String>, why: impl Into<String>) -> Refusal {
        Refusal { rule, field: field.into(), why: why.into() }
    }

    /// Whether the field is the ClusterExtension's, not the CSV's.
    pub(crate) fn on_extension(&self) -> bool {
        self.rule == Rule::Config
    }

    /// The whole sentence, as render and the catalog commands say it.
    pub(crate) fn message(&self) -> String {
        format!("OLM v1 will not install this bundle {}", self.reason())
    }

    /// The rule's source and what breaks it, with the fix.
    pub(crate) fn reason(&self) -> String {
        match self.rule {
            Rule::CrdApiVersion => format!("({}): {}", self.rule.source(), self.why),
            _ => format!("({}, operator-controller v1.11.0): {}", self.rule.source(), self.why),
        }
    }
}

/// Why OLM v1 refuses a bundle whose `manifests/` holds `folder` (as the
/// reader reached it): operator-controller reads the files of `manifests/`
/// and fails on a folder there. A refusal of the bundle's layout, no field.
pub(crate) fn subfolder_refusal(folder: &str) -> Refusal {
    Refusal::new(
        Rule::ManifestsFolder,
        "",
        format!("its manifests/ holds the folder {folder:?}, and operator-controller reads only files there and refuses a bundle with a folder in it (olm-rbac did not read the folder); move its files into manifests/, or out of the bundle"),
    )
}

/// Why OLM v1 cannot create a CustomResourceDefinition the bundle ships, if
/// it cannot: one written `apiextensions.k8s.io/v1beta1`, which no API
/// server has served since Kubernetes 1.22. A refusal of its `apiVersion`.
pub(crate) fn crd_refusal(crd: &CrdView) -> Option<Refusal> {
    crd.is_v1beta1().then(|| {
        Refusal::new(
            Rule::CrdApiVersion,
            "apiVersion",
            "the API server has not served apiextensions.k8s.io/v1beta1 since Kubernetes 1.22, so OLM v1 cannot create this CustomResourceDefinition; install a version of the bundle whose CRDs are apiextensions.k8s.io/v1, or ask its publisher for one (a v1 CRD gives each version its own schema)",
        )
    })
}

/// What the cluster's OLM runs with, and what the ClusterExtension asks of
/// it when it is known.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Install<'a> {
    /// operator-controller's alpha `SingleOwnNamespaceInstallSupport` gate.
    pub single_own_namespace: bool,
    /// The admin's ClusterExtension: `None` where there is none to read
    /// (`catalog audit`, a render without one).
    pub extension: Option<Asked<'a>>,
}

/// What a ClusterExtension asks: its install namespace and configuration.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Asked<'a> {
    pub namespace: Option<&'a str>,
    pub config: Option<&'a ExtensionConfig>,
}

impl<'a> Asked<'a> {
    /// `spec.config.inline.watchNamespace`, when it is a string.
    pub(crate) fn watch_namespace(&self) -> Option<&'a str> {
        self.config?.inline.as_ref()?.get(WATCH_NAMESPACE)?.as_str()
    }
}

/// Whether OLM v1 reads a watch namespace for the bundle
/// (`isWatchNamespaceConfigurable`): it supports OwnNamespace or SingleNamespace.
pub(crate) fn watch_namespace_configurable(csv: &CsvView) -> bool {
    csv.spec.supports(InstallMode::OwnNamespace) || csv.spec.supports(InstallMode::SingleNamespace)
}

/// The key of the watch namespace in `spec.config.inline`.
const WATCH_NAMESPACE: &str = "watchNamespace";

/// What OLM v1 refuses in a bundle: its ClusterServiceVersion, the names of
/// the CustomResourceDefinitions it ships, and how it is asked to install
/// it. Empty when it installs it.
pub(crate) fn refusals<'c>(
    csv: &CsvView,
    crds: impl IntoIterator<Item = &'c str>,
    install: &Install<'_>,
) -> Vec<Refusal> {
    let spec = &csv.spec;
    let mut out = Vec::new();
    if !spec.apiservicedefinitions.owned.is_empty() {
        out.push(Refusal::new(
            Rule::ApiServices,
            "spec.apiservicedefinitions.owned",
            "it owns API services (an aggregated API server), which OLM v1 does not install; only OLM v0 does",
        ));
    }
    // As written, unknown types included: OLM counts them too.
    let modes: BTreeSet<&str> =
        spec.install_modes.iter().filter(|m| m.supported).map(|m| m.mode.as_deref().unwrap_or_default()).collect();
    mode_refusals(csv, &modes, install.single_own_namespace, &mut out);
    if let Some(asked) = &install.extension {
        config_refusals(csv, &modes, asked, install.single_own_namespace, &mut out);
    }
    let deployments = &spec.install.spec.deployments;
    let mut seen = BTreeSet::new();
    for (i, d) in deployments.iter().enumerate() {
        let name = d.name.as_deref().unwrap_or_default();
        let field = format!("spec.install.spec.deployments[{i}].name");
        if !seen.insert(name) {
            out.push(Refusal::new(
                Rule::DeploymentNames,
                &field,
                format!("the Deployment name {name:?} is written twice"),
            ));
        } else if !is_dns1123_subdomain(name) {
            out.push(Refusal::new(
                Rule::DeploymentNames,
                &field,
                format!("the Deployment name {name:?} is not a DNS-1123 subdomain"),
            ));
        }
    }
    let shipped: BTreeSet<&str> = {
        let mut shipped = BTreeSet::new();
        for name in crds {
            if !shipped.insert(name) {
                out.push(Refusal::new(
                    Rule::Crds,
                    "spec.customresourcedefinitions",
                    format!("the bundle ships the CustomResourceDefinition {name:?} twice"),
                ));
            }
        }
        shipped
    };
    let owned: BTreeSet<&str> = spec.customresourcedefinitions.owned.iter().filter_map(|c| c.name.as_deref()).collect();
    for (i, c) in spec.customresourcedefinitions.owned.iter().enumerate() {
        let name = c.name.as_deref().unwrap_or_default();
        if !shipped.contains(name) {
            out.push(Refusal::new(
                Rule::Crds,
                format!("spec.customresourcedefinitions.owned[{i}].name"),
                format!("it owns the CustomResourceDefinition {name:?}, which the bundle does not ship"),
            ));
        }
    }
    webhook_refusals(csv, &modes, &owned, &mut out);
    out
}

/// `applier/provider.go`: the install modes OLM v1 installs, with the
/// cluster's gate.
fn mode_refusals(csv: &CsvView, modes: &BTreeSet<&str>, gate: bool, out: &mut Vec<Refusal>) {
    let spec = &csv.spec;
    if !spec.supports(InstallMode::AllNamespaces) && !gate {
        out.push(Refusal::new(
            Rule::AllNamespaces,
            "spec.installModes",
            format!(
                "it does not support the AllNamespaces install mode (it supports {}), and OLM v1 installs others only with its alpha SingleOwnNamespaceInstallSupport feature gate on and spec.config.inline.watchNamespace set; use a version that supports AllNamespaces, or, if the cluster's operator-controller runs with that gate, say so (spec.olmFeatureGates: [SingleOwnNamespaceInstallSupport]) and set the watch namespace",
                said(modes)
            ),
        ));
    }
    let namespaced = [InstallMode::AllNamespaces, InstallMode::SingleNamespace, InstallMode::OwnNamespace];
    if gate && !namespaced.iter().any(|m| spec.supports(*m)) {
        out.push(Refusal::new(
            Rule::AllNamespaces,
            "spec.installModes",
            format!(
                "it supports none of AllNamespaces, SingleNamespace and OwnNamespace (it supports {}), one of which OLM v1 needs",
                said(modes)
            ),
        ));
    }
}

/// `spec.config` as the bundle's configuration schema allows it: only
/// `watchNamespace` (olm-rbac judges no `deploymentConfig`), configurable
/// where the bundle supports OwnNamespace or SingleNamespace, required where
/// it does not support AllNamespaces (with the gate on), the install
/// namespace for an OwnNamespace-only bundle and another for a
/// SingleNamespace-only one.
fn config_refusals(csv: &CsvView, modes: &BTreeSet<&str>, asked: &Asked<'_>, gate: bool, out: &mut Vec<Refusal>) {
    let spec = &csv.spec;
    let (own, single) = (spec.supports(InstallMode::OwnNamespace), spec.supports(InstallMode::SingleNamespace));
    let configurable = watch_namespace_configurable(csv);
    let required = configurable && !spec.supports(InstallMode::AllNamespaces);
    let inline = asked.config.and_then(|c| c.inline.as_ref());
    let mut refuse = |field: &str, why: String| out.push(Refusal::new(Rule::Config, field, why));
    if let Some(config) = asked.config {
        if config.config_type.as_deref() != Some("Inline") {
            refuse(
                "spec.config.configType",
                "its configType must be Inline, the only configuration type OLM v1 reads".into(),
            );
        }
    }
    for key in inline.into_iter().flat_map(|i| i.keys()).filter(|k| *k != WATCH_NAMESPACE) {
        let why = match key.as_str() {
            // Read by OLM only behind its DeploymentConfig gate; never judged here.
            "deploymentConfig" => "deploymentConfig changes the operator's Deployment (its environment, volumes, placement), which olm-rbac does not judge, and OLM v1 reads it only behind its DeploymentConfig feature gate; remove it".to_string(),
            _ => format!("{key} is not a key of the bundle's configuration schema, which OLM v1 validates the configuration against; remove it"),
        };
        refuse(&format!("spec.config.inline.{key}"), why);
    }
    let value = inline.and_then(|i| i.get(WATCH_NAMESPACE)).filter(|v| !v.is_null());
    let field = "spec.config.inline.watchNamespace";
    match value.map(|v| v.as_str()) {
        None if gate && required => refuse(
            field,
            format!("it needs a watch namespace: it supports {} and not AllNamespaces, so OLM v1 installs it only to watch one namespace; set spec.config.inline.watchNamespace", said(modes)),
        ),
        None => {}
        Some(None) => refuse(field, "the watch namespace must be a string, a namespace's name".into()),
        Some(Some(_)) if !configurable => refuse(
            field,
            "a watch namespace is not a setting of this bundle: it supports only AllNamespaces, so OLM v1 refuses one; remove it".into(),
        ),
        Some(Some(ns)) if !is_dns1123_label(ns) => {
            refuse(field, format!("the watch namespace {ns:?} is not a namespace's name (a DNS-1123 label)"))
        }
        Some(Some(ns)) => match (own, single, asked.namespace) {
            (true, false, Some(install)) if ns != install => refuse(
                field,
                format!("the watch namespace {ns:?} must be {install:?}, the install namespace (spec.namespace): the bundle supports OwnNamespace, not SingleNamespace"),
            ),
            (false, true, Some(install)) if ns == install => refuse(
                field,
                format!("the watch namespace {ns:?} must not be {install:?}, the install namespace (spec.namespace): the bundle supports SingleNamespace, not OwnNamespace"),
            ),
            _ => {}
        },
    }
}

/// The rules on `webhookdefinitions`.
fn webhook_refusals(csv: &CsvView, modes: &BTreeSet<&str>, owned: &BTreeSet<&str>, out: &mut Vec<Refusal>) {
    let spec = &csv.spec;
    let deployments: BTreeSet<&str> = spec.install.spec.deployments.iter().filter_map(|d| d.name.as_deref()).collect();
    let only_all = modes.len() == 1 && modes.contains(InstallMode::AllNamespaces.as_str());
    let mut names: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut converting: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (i, w) in spec.webhookdefinitions.iter().enumerate() {
        let at = |field: &str| format!("spec.webhookdefinitions[{i}]{field}");
        let kind = w.kind.as_deref().unwrap_or_default();
        let name = w.generate_name.as_deref().unwrap_or_default();
        let conversion = kind == "ConversionWebhook";
        if conversion && !only_all {
            out.push(Refusal::new(
                Rule::ConversionWebhookModes,
                at(".type"),
                format!(
                    "it has the conversion webhook {name:?} and supports {}: OLM v1 installs conversion webhooks only for a bundle that supports AllNamespaces alone",
                    said(modes)
                ),
            ));
        }
        let deployment = w.deployment_name.as_deref().unwrap_or_default();
        if !deployments.contains(deployment) {
            out.push(Refusal::new(
                Rule::WebhookNames,
                at(".deploymentName"),
                format!("the webhook {name:?} is served by the Deployment {deployment:?}, which spec.install.spec.deployments does not hold"),
            ));
        }
        if !names.insert((kind, name)) {
            out.push(Refusal::new(
                Rule::WebhookNames,
                at(".generateName"),
                format!("the {kind} name {name:?} is written twice"),
            ));
        } else if !is_dns1123_subdomain(name) {
            out.push(Refusal::new(
                Rule::WebhookNames,
                at(".generateName"),
                format!("the webhook name {name:?} is not a DNS-1123 subdomain"),
            ));
        }
        if conversion {
            for (j, crd) in w.conversion_crds.iter().enumerate() {
                converting.entry(crd).or_default().push(name);
                if !owned.contains(crd.as_str()) {
                    out.push(Refusal::new(
                        Rule::ConversionCrds,
                        at(&format!(".conversionCRDs[{j}]")),
                        format!("the conversion webhook {name:?} converts {crd:?}, which the bundle does not own"),
                    ));
                }
            }
            continue;
        }
        rule_refusals(w, i, out);
    }
    for (crd, webhooks) in converting {
        if webhooks.len() > 1 {
            out.push(Refusal::new(
                Rule::ConversionCrds,
                "spec.webhookdefinitions",
                format!("the conversion webhooks {} all convert {crd:?}; one may", webhooks.join(", ")),
            ));
        }
    }
}

/// `CheckWebhookRules`: an admission webhook's rules may not name every
/// group, OLM's own, or webhook configurations.
fn rule_refusals(w: &WebhookView, i: usize, out: &mut Vec<Refusal>) {
    let name = w.generate_name.as_deref().unwrap_or_default();
    for (j, r) in w.rules.iter().enumerate() {
        for group in &r.api_groups {
            if group == "*" || group == "olm.operatorframework.io" {
                out.push(Refusal::new(
                    Rule::WebhookRules,
                    format!("spec.webhookdefinitions[{i}].rules[{j}].apiGroups"),
                    format!("the webhook {name:?} intercepts API group {group:?}, which OLM v1 forbids"),
                ));
            }
            if group == "admissionregistration.k8s.io" {
                let forbidden = r.resources.iter().filter(|res| {
                    matches!(
                        go_lower(res).as_str(),
                        "*" | "mutatingwebhookconfiguration"
                            | "mutatingwebhookconfigurations"
                            | "validatingwebhookconfiguration"
                            | "validatingwebhookconfigurations"
                    )
                });
                for res in forbidden {
                    out.push(Refusal::new(
                        Rule::WebhookRules,
                        format!("spec.webhookdefinitions[{i}].rules[{j}].resources"),
                        format!("the webhook {name:?} intercepts {res:?} of admissionregistration.k8s.io, which OLM v1 forbids"),
                    ));
                }
            }
        }
    }
}

/// A string as Go's `strings.ToLower` lowers it, which OLM compares webhook
/// resources with: Unicode's simple lowercase mapping, rune by rune. It
/// differs from Rust's full mapping for `İ` alone, which Go lowers to `i`.
fn go_lower(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{130}' => 'i',
            c => c.to_lowercase().next().unwrap_or(c),
        })
        .collect()
}

/// Install modes as a sentence: `OwnNamespace, SingleNamespace`, or `none`.
fn said(modes: &BTreeSet<&str>) -> String {
    if modes.is_empty() {
        return "none".to_string();
    }
    modes.iter().map(|m| if m.is_empty() { "(a mode without a type)" } else { m }).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests;
