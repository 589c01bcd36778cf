//! The views of objects that hold power beyond RBAC rules: Services (where
//! traffic goes), workloads (their pod templates), webhook configurations
//! (what they are sent) and console plugins (what the console forwards).

use serde::Deserialize;

use super::{nullable, text, PodTemplateView, WebhookRuleView};

/// A Service: what of its spec decides where traffic goes.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ServiceView {
    #[serde(default, deserialize_with = "nullable")]
    pub spec: ServiceSpecView,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServiceSpecView {
    /// `ClusterIP` (the default), `NodePort`, `LoadBalancer` or `ExternalName`.
    #[serde(default, rename = "type", deserialize_with = "text")]
    pub kind: Option<String>,
    /// Addresses every node's proxy sends to this Service's endpoints,
    /// whatever their owner.
    #[serde(default, rename = "externalIPs", deserialize_with = "nullable")]
    pub external_ips: Vec<String>,
    /// For `ExternalName`: the DNS name the Service's name resolves to.
    #[serde(default, deserialize_with = "text")]
    pub external_name: Option<String>,
}

/// A Pod, or a workload that makes pods, as written: its pod template is
/// found by its kind ([`WorkloadView::pod_template`]).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(transparent)]
pub(crate) struct WorkloadView {
    pub written: serde_json::Value,
}

impl WorkloadView {
    /// The pod template of a workload of `kind` (a Pod is its own), and the
    /// field that holds it (`""` for the object itself).
    pub(crate) fn pod_template(&self, kind: &str) -> (&'static str, PodTemplateView) {
        let (field, value) = match kind {
            "Pod" => ("", self.written.clone()),
            "CronJob" => {
                ("spec.jobTemplate.spec.template", self.written["spec"]["jobTemplate"]["spec"]["template"].clone())
            }
            _ => ("spec.template", self.written["spec"]["template"].clone()),
        };
        let template = serde_json::json!({ "metadata": value["metadata"], "spec": value["spec"] });
        let spec = serde_json::from_value(value["spec"].clone()).unwrap_or_default();
        (field, PodTemplateView { spec, written: template })
    }
}

/// A Mutating or ValidatingWebhookConfiguration: where each webhook is
/// served, and the requests its rules match.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct WebhookConfigView {
    #[serde(default, deserialize_with = "nullable")]
    pub webhooks: Vec<WebhookEntryView>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WebhookEntryView {
    #[serde(default, deserialize_with = "nullable")]
    pub client_config: ClientConfigView,
    /// `Exact` or `Equivalent` (the default).
    #[serde(default, deserialize_with = "text")]
    pub match_policy: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub rules: Vec<WebhookRuleView>,
}

/// Where the API server sends a webhook's requests: a URL, or a Service.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ClientConfigView {
    #[serde(default, deserialize_with = "text")]
    pub url: Option<String>,
    #[serde(default)]
    pub service: Option<ServiceRefView>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ServiceRefView {
    #[serde(default, deserialize_with = "text")]
    pub namespace: Option<String>,
    #[serde(default, deserialize_with = "text")]
    pub name: Option<String>,
}

/// An OpenShift ConsolePlugin: the backends the console proxies to.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ConsolePluginView {
    #[serde(default, deserialize_with = "nullable")]
    pub spec: ConsolePluginSpecView,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ConsolePluginSpecView {
    #[serde(default, deserialize_with = "nullable")]
    pub proxy: Vec<ConsoleProxyView>,
}

/// One proxied backend: `authorization: UserToken` sends it the token of
/// whoever uses the console.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ConsoleProxyView {
    #[serde(default, deserialize_with = "text")]
    pub authorization: Option<String>,
}
