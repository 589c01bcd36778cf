//! What the CSV's admission webhooks give the operator.
//!
//! OLM writes a Mutating or ValidatingWebhookConfiguration for each Mutating
//! or Validating `webhookdefinitions` entry, its namespaceSelector the target
//! namespaces (none for an AllNamespaces install), and the API server then
//! sends the Deployment that serves it every request its rules match. No
//! RBAC rule shows this: `access::intercept` reads each rule with the API
//! server's admission grammar and says what it gives as RBAC rules,
//! cluster-wide where it may match a cluster-scoped object (no
//! namespaceSelector narrows those), and each is a holding of the serving
//! Deployment's account, judged as any other. The bundle's own resources
//! (the group and plural of each API it defines) are left out; another
//! resource of the same group is not its own.

use crate::access::intercept::{intercepted, AdmissionRule, MatchPolicy, WebhookKind};
use crate::access::Resources;
use crate::model::*;
use crate::plan::types::{Api, ApiSource};

use super::holdings::{Holder, Holding, Reach};

/// Where the operator's webhooks are sent namespaced objects (`selected`:
/// the namespaces their namespaceSelector matches), and whose they are.
pub(super) struct Webhooks<'p> {
    pub apis: &'p [Api],
    pub resources: &'p Resources,
    pub selected: Reach,
    pub holder: &'p dyn Fn(&str) -> Holder,
}

impl Webhooks<'_> {
    /// One holding per group and reach of each admission rule.
    pub(super) fn holdings<'o>(&self, csv: &'o InputObject) -> Vec<Holding<'o>> {
        let Body::Csv(view) = &csv.body else { return Vec::new() };
        let deployments = &view.spec.install.spec.deployments;
        let mut out = Vec::new();
        for (i, w) in view.spec.webhookdefinitions.iter().enumerate() {
            let kind = match w.kind.as_deref() {
                Some("MutatingAdmissionWebhook") => WebhookKind::Mutating,
                Some("ValidatingAdmissionWebhook") => WebhookKind::Validating,
                _ => continue,
            };
            let serving = deployments.iter().find(|d| d.name.is_some() && d.name == w.deployment_name);
            let account = serving.or(deployments.first()).map_or(DEFAULT_ACCOUNT, |d| d.runs_as());
            for (j, r) in w.rules.iter().enumerate() {
                for held in intercepted(
                    &admission_rule(r),
                    kind,
                    MatchPolicy::of(w.match_policy.as_deref()),
                    self.resources,
                    |g, p| self.owns(g, p),
                ) {
                    out.push(Holding {
                        who: (self.holder)(account),
                        rule: held.rule,
                        reach: if held.cluster_wide { Reach::Cluster } else { self.selected.clone() },
                        on: csv.object_ref(),
                        file: csv.file.as_ref(),
                        field: format!("spec.webhookdefinitions[{i}].rules[{j}]"),
                    });
                }
            }
        }
        out
    }

    /// Whether the resource is one of the bundle's own APIs: exactly the
    /// group and plural of an API it defines (a CRD it ships, an APIService
    /// it serves), never the rest of that group, and never a resource the
    /// danger catalogue names (a deputy's API, Argo CD's `applications`):
    /// shipping its CRD does not make another project's API the bundle's.
    fn owns(&self, group: &str, plural: &str) -> bool {
        let catalogued = crate::access::danger::named_resources().any(|(g, r)| g == group && r == plural);
        !catalogued
            && self.apis.iter().any(|a| a.source != ApiSource::CsvEntry && a.group == group && a.plural == plural)
    }
}

/// A webhook rule as written (a CSV's `webhookdefinitions`, or a webhook
/// configuration's), in the admission kernel's terms.
pub(super) fn admission_rule(r: &WebhookRuleView) -> AdmissionRule<'_> {
    AdmissionRule {
        groups: &r.api_groups,
        versions: &r.api_versions,
        resources: &r.resources,
        operations: &r.operations,
        scope: r.scope.as_deref(),
    }
}
