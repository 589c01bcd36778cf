//! Objects beside a bundle that no file of the admin's vouches for.
//!
//! An object of no known file (stdin without the runner's file marks, a file
//! beside `manifests/`) cannot be told from the bundle's, and the output
//! applies it whatever `bundleObjects` says. A webhook configuration or a
//! workload in the bundle's own folder is refused as a kind OLM does not
//! install (`trust::check_bundle_kinds`); beside it, where the admin's own
//! objects may also be, each is judged as the bundle's would be: a webhook
//! configuration's rules with the admission grammar (`access::intercept`),
//! as holdings of whoever serves it, cluster-wide (its namespaceSelector is
//! the bundle's to write); a workload's pod template against the Pod
//! Security level, as the CSV's Deployments are.

use crate::access::intercept::{intercepted, MatchPolicy, WebhookKind};
use crate::findings::Finding;
use crate::model::*;
use crate::plan::facts::input::Planning;
use crate::podsecurity::Level;

use super::holdings::{Holder, Holding, Reach};
use super::pods::check_template;
use super::webhooks::admission_rule;

/// Judges each object of no known file beside the bundle; returns the
/// holdings its webhook configurations give their servers.
pub(super) fn check_beside<'o>(
    p: &Planning<'o>,
    enforced: Option<Level>,
    results: &mut Vec<Finding>,
) -> Vec<Holding<'o>> {
    let mut out = Vec::new();
    if p.csv.is_none() {
        return out;
    }
    for (i, o) in p.objects().iter().enumerate() {
        if p.origins().is_admin(i) || p.origins().is_bundle(i) {
            continue;
        }
        let kind = o.header.kind.as_deref().unwrap_or_default();
        match &o.body {
            Body::Workload(view) => {
                let (field, template) = view.pod_template(kind);
                let what = format!(
                    "{kind} {:?}, of no file of yours beside the bundle,",
                    o.header.name.as_deref().unwrap_or_default()
                );
                check_template(o, &what, field, &template, enforced, results);
            }
            Body::WebhookConfig(view) => {
                let webhook = match kind {
                    "MutatingWebhookConfiguration" => WebhookKind::Mutating,
                    _ => WebhookKind::Validating,
                };
                for (j, w) in view.webhooks.iter().enumerate() {
                    let server = served_by(&w.client_config);
                    for (k, r) in w.rules.iter().enumerate() {
                        for held in intercepted(
                            &admission_rule(r),
                            webhook,
                            MatchPolicy::of(w.match_policy.as_deref()),
                            &p.input.resources,
                            |_, _| false,
                        ) {
                            out.push(Holding {
                                who: Holder::Endpoint(server.clone()),
                                rule: held.rule,
                                reach: Reach::Cluster,
                                on: o.object_ref(),
                                file: o.file.as_ref(),
                                field: format!("webhooks[{j}].rules[{k}]"),
                            });
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Who receives a webhook's requests, in words.
fn served_by(config: &ClientConfigView) -> String {
    match (&config.url, &config.service) {
        (Some(url), _) => format!("the server at {url}"),
        (None, Some(s)) => format!(
            "the pods behind Service {}/{}",
            s.namespace.as_deref().unwrap_or_default(),
            s.name.as_deref().unwrap_or_default()
        ),
        (None, None) => "the server its clientConfig names".to_string(),
    }
}
