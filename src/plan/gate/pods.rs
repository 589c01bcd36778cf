//! The operator's pods, held to Kubernetes' Pod Security Standards.
//!
//! A pod's spec gives it power no RBAC rule shows: a privileged container,
//! the node's namespaces or a hostPath volume hold the node and every
//! credential on it. Each pod template the install creates (the CSV's
//! Deployments, which OLM writes as given) is read with Kubernetes' own types
//! and checked as the PodSecurity admission plugin checks a pod
//! (`crate::podsecurity`). Under a policy that decides anything, a check the
//! level `spec.operator.policy.podSecurity` sets (baseline by default) fails
//! is an error naming Kubernetes' check id; without one, each baseline
//! violation is a warning with its danger level.

use crate::findings::{Code, DangerLevel, Finding};
use crate::model::*;
use crate::podsecurity::{self, Level};

use super::holdings::{Holder, Holding, Reach};

/// Checks every Deployment of the CSV against `enforced` (`None`: no policy
/// decides, so baseline violations are warned about). Returns, for each
/// Deployment whose pods fail baseline, what that amounts to for its
/// account (`modelled::node_access`): the judgement's model of the cluster
/// holds it, so an upgrade that makes a pod privileged is a gain.
pub(super) fn check_pods<'o>(
    csv: &'o InputObject,
    view: &CsvView,
    enforced: Option<Level>,
    holder: &dyn Fn(&str) -> Holder,
    results: &mut Vec<Finding>,
) -> Vec<Holding<'o>> {
    let mut held = Vec::new();
    for (i, d) in view.spec.install.spec.deployments.iter().enumerate() {
        let what = format!("Deployment {:?}", d.name.as_deref().unwrap_or_default());
        let template = format!("spec.install.spec.deployments[{i}].spec.template");
        if check_template(csv, &what, &template, &d.spec.template, enforced, results) {
            held.push(Holding {
                who: holder(d.runs_as()),
                rule: super::modelled::node_access(),
                reach: Reach::Cluster,
                on: csv.object_ref(),
                file: csv.file.as_ref(),
                field: format!("{template}.spec"),
            });
        }
    }
    held
}

/// Checks one pod template of `o`, at `field` (`""`: the object is a Pod),
/// as `what` says it; whether its pods fail baseline.
pub(super) fn check_template(
    o: &InputObject,
    what: &str,
    field: &str,
    template: &PodTemplateView,
    enforced: Option<Level>,
    results: &mut Vec<Finding>,
) -> bool {
    let on = |f: Finding, at: String| f.on(&o.object_ref()).at(at).in_file(o.file.as_ref());
    let under = |rest: &str| if field.is_empty() { rest.to_string() } else { format!("{field}.{rest}") };
    let pod = match template.as_kubernetes() {
        Ok(pod) => pod,
        Err(e) => {
            let message = format!(
                "the pod template of {what} does not decode as Kubernetes' PodTemplateSpec ({e}): the API server would refuse it, and olm-rbac cannot hold its pods to the Pod Security Standards"
            );
            let finding = match enforced {
                Some(_) => Finding::error(Code::Unmeasurable, message),
                None => Finding::warning(Code::Unmeasurable, message),
            };
            results.push(on(finding, if field.is_empty() { "spec".into() } else { field.to_string() }));
            return false;
        }
    };
    let spec = pod.spec.unwrap_or_default();
    let privileged = podsecurity::level_needed(pod.metadata.as_ref(), &spec) == Level::Privileged;
    let level = enforced.unwrap_or(Level::Baseline);
    for v in podsecurity::check(pod.metadata.as_ref(), &spec, level) {
        let at = match v.field.strip_prefix("metadata.") {
            Some(meta) => under(&format!("metadata.{meta}")),
            None => under(&format!("spec.{}", v.field)),
        };
        let finding = match enforced {
            Some(level) => Finding::error(
                Code::PodSecurity,
                format!(
                    "{what} runs pods that the Pod Security level {level} refuses ({}: {}); spec.operator.policy.podSecurity is {level}",
                    v.check, v.reason
                ),
            ),
            None => Finding::warning(
                Code::PodSecurity,
                format!(
                    "{what} runs pods that the Pod Security level baseline refuses ({}: {}): {} ({}; set spec.operator.policy.podSecurity to decide the level its pods may need)",
                    v.check,
                    v.reason,
                    power(v.check),
                    danger(v.check).as_str(),
                ),
            )
            .dangerous(danger(v.check)),
        };
        results.push(on(finding, at));
    }
    privileged
}

/// What a baseline check keeps a pod from holding.
fn power(check: &str) -> &'static str {
    match check {
        "privileged" | "hostProcess" => "its pods would hold the node, and every credential on it",
        "hostNamespaces" => "its pods would share the node's process, IPC or network namespace",
        "hostPathVolumes" => {
            "its pods would mount the node's file system, kubelet credentials and other pods' Secrets included"
        }
        "capabilities_baseline" => "its pods would hold Linux capabilities beyond the default set",
        _ => "its pods would reach past what Kubernetes isolates for a default pod",
    }
}

/// How dangerous a failed baseline check is: the node itself, or less.
fn danger(check: &str) -> DangerLevel {
    match check {
        "privileged" | "hostProcess" | "hostNamespaces" | "hostPathVolumes" => DangerLevel::Critical,
        _ => DangerLevel::High,
    }
}
