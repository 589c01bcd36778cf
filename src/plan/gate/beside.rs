//! Objects beside a bundle that no file of the admin's vouches for.
//!
//! An object of no known file (stdin without the runner's file marks, a file
//! beside `manifests/` that a KRM runner sends; render and `diff -c` read
//! none there) cannot be told from the bundle's, and the output
//! applies it whatever `bundleObjects` says. A webhook configuration or a
//! workload in the bundle's own folder is refused as a kind OLM does not
//! install (`trust::check_bundle_kinds`); beside it, where the admin's own
//! objects may also be, each is judged as the bundle's would be: a webhook
//! configuration's rules with the admission grammar (`access::intercept`),
//! as holdings of whoever serves it, cluster-wide (its namespaceSelector is
//! the bundle's to write); a workload's pod template against the Pod
//! Security level, as the CSV's Deployments are. Any other kind is let
//! through only where it is one a bundle may ship (in its own group) or one
//! of the admin's configuration kinds ([`passes_beside`]): anything else
//! (an APIService, an admission policy, OpenShift's RBAC, a
//! SecurityContextConstraints, a workload kind olm-rbac does not read) is
//! refused under a policy that decides anything, and said without one.

use std::ops::Not;

use crate::access::intercept::{intercepted, MatchPolicy, WebhookKind};
use crate::findings::{Code, Finding};
use crate::model::*;
use crate::plan::facts::input::Planning;
use crate::podsecurity::Level;

use super::holdings::{Holder, Holding, Reach};
use super::pods::check_template;
use super::webhooks::admission_rule;

/// What objects beside the bundle hold: `judged` by the gate (what webhook
/// configurations give their servers), and `modelled`, held only in the
/// judgement's model of the cluster (a privileged workload's node), both
/// for the diff.
#[derive(Default)]
pub(super) struct Held<'o> {
    pub judged: Vec<Holding<'o>>,
    pub modelled: Vec<Holding<'o>>,
}

/// Judges each object of no known file beside the bundle.
pub(super) fn check_beside<'o>(
    p: &Planning<'o>,
    enforced: Option<Level>,
    strict: bool,
    results: &mut Vec<Finding>,
) -> Held<'o> {
    let mut out = Held::default();
    if p.csv.is_none() {
        return out;
    }
    let install = p.config.install_namespace();
    for (i, o) in p.objects().iter().enumerate() {
        // olm-rbac's earlier output passes only where it is exactly an object
        // this run writes again: a claim alone is the bundle's to make.
        let written_again = p.claims[i].is_some() && p.held_anyway.contains(&i);
        if p.origins().is_admin(i) || p.origins().is_bundle(i) || written_again {
            continue;
        }
        let kind = o.header.kind.as_deref().unwrap_or_default();
        let name = o.header.name.as_deref().unwrap_or_default();
        match &o.body {
            Body::Workload(view) => {
                let (field, template) = view.pod_template(kind);
                let what = format!("{kind} {name:?}, of no file of yours beside the bundle,");
                if check_template(o, &what, field, &template, enforced, results) {
                    let namespace = o.header.namespace.as_deref().or(install).map(String::from);
                    out.modelled.push(Holding {
                        who: Holder::Operator { name: template.spec.runs_as().to_string(), namespace },
                        rule: super::modelled::node_access(),
                        reach: Reach::Cluster,
                        on: o.object_ref(),
                        file: o.file.as_ref(),
                        field: field.to_string(),
                    });
                }
            }
            Body::WebhookConfig(view) => {
                let webhook = match kind {
                    "MutatingWebhookConfiguration" => WebhookKind::Mutating,
                    _ => WebhookKind::Validating,
                };
                for (j, w) in view.webhooks.iter().enumerate() {
                    let server = served_by(&w.client_config);
                    let policy = MatchPolicy::of(w.match_policy.as_deref());
                    for (k, r) in w.rules.iter().enumerate() {
                        for held in intercepted(&admission_rule(r), webhook, policy, &p.input.resources, |_, _| false) {
                            out.judged.push(Holding {
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
            _ => {
                if let Some(refusal) = unread(o) {
                    let group = o.header.group().unwrap_or_default();
                    let message = format!(
                        "a {kind} of API group {group:?} from no file of yours beside the bundle: olm-rbac cannot tell it from the bundle's, and {refusal}; pass your own objects as files outside the bundle's folder"
                    );
                    let finding = match refusal {
                        Unread::ForeignGroup(_) => Finding::error(Code::BundleKindUnsupported, message),
                        Unread::Unjudged if strict => Finding::error(Code::Unmeasurable, message),
                        Unread::Unjudged => Finding::warning(Code::Unmeasurable, message),
                    };
                    results.push(finding.on(&o.object_ref()).at("kind").in_file(o.file.as_ref()));
                }
            }
        }
    }
    out.modelled.extend(out.judged.iter().cloned());
    out
}

/// Why an object beside the bundle that olm-rbac does not read is not let
/// through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unread {
    /// A kind a bundle may ship, in another group than its own: OLM v0
    /// installs it by its kind, and OpenShift serves some of them
    /// (`authorization.openshift.io`'s RBAC).
    ForeignGroup(&'static str),
    /// Any other kind: what it does is not judged.
    Unjudged,
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unread::ForeignGroup(group) => write!(
                f,
                "a bundle's object of that kind belongs to {}, where olm-rbac would judge it",
                if group.is_empty() { "the core group".to_string() } else { format!("{group:?}") }
            ),
            Unread::Unjudged => write!(f, "olm-rbac does not judge what an object of that kind may do"),
        }
    }
}

/// Whether an object beside the bundle that olm-rbac reads no view of
/// passes: a kind a bundle may ship in its own group, or one of the admin's
/// configuration objects ([`passes_beside`]); `None` when it does.
fn unread(o: &InputObject) -> Option<Unread> {
    let (group, kind) = (o.header.group().unwrap_or_default(), o.header.kind.as_deref().unwrap_or_default());
    if let Some(expected) = crate::kinds::registry_v1_group(kind) {
        return (expected != group).then_some(Unread::ForeignGroup(expected));
    }
    passes_beside(o).not().then_some(Unread::Unjudged)
}

/// Namespace labels that decide what pods the namespace admits: Kubernetes'
/// Pod Security levels, and OpenShift's run level (a namespace at run level
/// 0 or 1 skips security context constraints) and SCC settings.
const SECURITY_LABELS: [&str; 3] = ["pod-security.kubernetes.io/", "openshift.io/run-level", "security.openshift.io/"];

/// The admin's own configuration objects, which a rendered package holds
/// beside the bundle: this tool's and kpt's configuration, and a Namespace
/// that sets no Pod Security level (its labels decide what pods it admits).
/// A ClusterExtension installs a package as cluster-admin, and the pin
/// judges only one from the admin's files; a ClusterCatalog decides what OLM
/// may install: neither passes from no known file.
fn passes_beside(o: &InputObject) -> bool {
    let (group, kind) = (o.header.group().unwrap_or_default(), o.header.kind.as_deref().unwrap_or_default());
    match (group, kind) {
        ("olm-rbac.io", "RBACConfig") | ("kpt.dev", "Kptfile") => true,
        ("", "Namespace") => !o.header.labels.keys().any(|k| SECURITY_LABELS.iter().any(|p| k.starts_with(p))),
        _ => false,
    }
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
