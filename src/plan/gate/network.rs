//! Traffic and credentials the install's objects take from others.
//!
//! OLM installs a bundle's Services in the install namespace. A Service's
//! `externalIPs` make every node's proxy send traffic for those addresses,
//! from any pod or node, to the Service's endpoints: whoever writes one
//! intercepts traffic meant for another (CVE-2020-8554, which Kubernetes
//! leaves to the `DenyServiceExternalIPs` admission plugin). An
//! `ExternalName` Service pointing at a name inside the cluster redirects its
//! clients to another namespace's Service, or to the API server. No RBAC rule
//! shows either: each is high, an error under a policy that decides
//! anything, a warning without one. A ConsolePlugin proxy with
//! `authorization: UserToken` has the OpenShift console send the token of
//! whoever uses it to the bundle's backend: high too, but always a warning,
//! since an admin enables a plugin before it runs.

use crate::findings::{Code, DangerLevel, Finding};
use crate::model::*;

use crate::plan::facts::input::Planning;

use super::holdings::{Holder, Holding, Reach};

/// Each Service of the bundle's (or of no known file) that takes traffic
/// meant for others: an error when `strict`, else a warning. Returns what
/// `externalIPs` amount to (`modelled::traffic_interception`) for each
/// account the CSV's Deployments run as, whose pods the Service sends to.
pub(super) fn check_interception<'o>(
    p: &Planning<'o>,
    strict: bool,
    holder: &dyn Fn(&str) -> Holder,
    results: &mut Vec<Finding>,
) -> Vec<Holding<'o>> {
    let mut held = Vec::new();
    let accounts: Vec<&str> =
        p.csv().map(|(_, v)| v.spec.install.spec.deployments.iter().map(|d| d.runs_as()).collect()).unwrap_or_default();
    let finding =
        |code, message: String| if strict { Finding::error(code, message) } else { Finding::warning(code, message) };
    for (i, o) in p.objects().iter().enumerate() {
        if let Body::ConsolePlugin(view) = &o.body {
            for (j, proxy) in view.spec.proxy.iter().enumerate() {
                if proxy.authorization.as_deref() == Some("UserToken") {
                    let message = "the console plugin asks the OpenShift console to send the token of whoever uses it, cluster-admins included, to the bundle's backend, once an admin enables the plugin; no RBAC rule shows it (high)";
                    // The admin's enabling decides it, so it is said, never refused.
                    let finding = Finding::warning(Code::Interception, message).dangerous(DangerLevel::High);
                    let at = format!("spec.proxy[{j}].authorization");
                    results.push(finding.on(&o.object_ref()).at(at).in_file(o.file.as_ref()));
                }
            }
            continue;
        }
        let Body::Service(view) = &o.body else { continue };
        if p.origins().is_admin(i) {
            continue;
        }
        let spec = &view.spec;
        let mut intercepts = |field: &str, message: String| {
            let finding = finding(Code::Interception, message).dangerous(DangerLevel::High);
            results.push(finding.on(&o.object_ref()).at(field).in_file(o.file.as_ref()));
            held.extend(accounts.iter().map(|a| Holding {
                who: holder(a),
                rule: super::modelled::traffic_interception(),
                reach: Reach::Cluster,
                on: o.object_ref(),
                file: o.file.as_ref(),
                field: field.to_string(),
            }));
        };
        if !spec.external_ips.is_empty() {
            intercepts("spec.externalIPs", format!(
                "the Service takes externalIPs {}: every node's proxy sends traffic for those addresses, from any pod or node, to its endpoints, intercepting what was meant for whoever holds them (CVE-2020-8554); no RBAC rule shows it (high)",
                spec.external_ips.join(", ")
            ));
        }
        let external = spec.kind.as_deref() == Some("ExternalName");
        if let Some(name) = spec.external_name.as_deref().filter(|n| external && inside_the_cluster(n)) {
            intercepts("spec.externalName", format!(
                "the Service is an ExternalName for {name:?}, a name inside the cluster: its clients are sent to another namespace's Service, or the API server, chosen by the bundle (high)"
            ));
        }
    }
    held
}

/// Whether an ExternalName target reaches inside the cluster: a Service's
/// name (`<service>.<namespace>.svc`, with the cluster domain or without),
/// a pod's (`<a-b-c-d>.<namespace>.pod...`, which cluster DNS answers with
/// any address, the API server's included), the API server's
/// (`kubernetes.default`), anything under `cluster.local`, or an address
/// written as such (proxies connect to it directly). A public name whose
/// records point into the cluster cannot be told offline.
fn inside_the_cluster(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name.ends_with(".svc")
        || name.contains(".svc.")
        || name.contains(".pod.")
        || name.ends_with(".pod")
        || name.ends_with("cluster.local")
        || name == "kubernetes.default"
        || name.starts_with("kubernetes.default.")
        || name.parse::<std::net::IpAddr>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::inside_the_cluster;

    #[test]
    fn a_name_inside_the_cluster_is_a_services_or_the_api_servers() {
        for inside in ["web.other.svc", "web.other.svc.cluster.local.", "KUBERNETES.default", "kubernetes.default.svc"]
        {
            assert!(inside_the_cluster(inside), "{inside}");
        }
        for outside in ["example.com", "svc.example.com", "kubernetes.io"] {
            assert!(!inside_the_cluster(outside), "{outside}");
        }
    }
}
