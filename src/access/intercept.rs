//! What an admission webhook's rule gives the server that answers it, said
//! in RBAC's words so that the policy, the danger catalogue and the diff
//! judge it as they judge any rule.
//!
//! The API server sends a webhook every request its rules match
//! (k8s.io/apiserver's webhook rule matcher, [`matches`] here): scope, then
//! operation, group, version and resource, each `*` or exact. A rule's
//! resource is `resource/subresource`, and the two halves are matched apart:
//! `*` is every resource but no subresource, `*/*` every resource and every
//! subresource, `pods/*` pods and all of their subresources, `*/status` every
//! status subresource. RBAC's grammar differs (its `*` is every resource and
//! subresource, and it has no `pods/*`), so each pattern is written as the
//! RBAC resources that cover what it matches ([`rbac_resources`]).
//!
//! What the answering server may then do: a validating webhook is sent each
//! object it matches (`get`); a mutating one also rewrites each object
//! written through a request it matches (`create`, `update`, `patch`), for
//! create, update and connect requests, as if it held those verbs itself.
//! Some objects are worth more than the verbs on them ([`AMOUNTS_TO`]): a
//! TokenReview carries a bearer token, a rewritten access review answers
//! for anyone, and a rewritten role or binding escalates or binds with the
//! requester's rights, since the API server checks those after mutating
//! admission: each such rule also holds what it amounts to, cluster-wide.
//!
//! A namespaceSelector narrows only namespaced objects: a cluster-scoped
//! object (a Namespace included, matched by its own labels) reaches the
//! webhook whatever the selector says, so a rule that may match one is held
//! cluster-wide ([`Interception::cluster_wide`]).

use k8s_openapi::api::rbac::v1::PolicyRule;

use super::resources::Resources;
use crate::model::RBAC_GROUP;

/// One rule of a webhook, as written (`RuleWithOperations`).
#[derive(Debug, Clone, Copy)]
pub struct AdmissionRule<'a> {
    /// `apiGroups`.
    pub groups: &'a [String],
    /// `apiVersions`.
    pub versions: &'a [String],
    /// `resources`: `resource`, `resource/subresource`, with `*` for either half.
    pub resources: &'a [String],
    /// `operations`: `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`.
    pub operations: &'a [String],
    /// `scope`: `Cluster`, `Namespaced`, `*`; absent means `*`.
    pub scope: Option<&'a str>,
}

/// A webhook's `matchPolicy`: whether a request for a resource its rules do
/// not name is sent to it converted to an equivalent one they do (the same
/// objects served in another group).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatchPolicy {
    /// `Equivalent`, the API server's default.
    #[default]
    Equivalent,
    /// `Exact`.
    Exact,
}

impl MatchPolicy {
    /// As written; absent, or a value the API server refuses, is `Equivalent`
    /// (the wider reading).
    pub fn of(written: Option<&str>) -> MatchPolicy {
        match written {
            Some("Exact") => MatchPolicy::Exact,
            _ => MatchPolicy::Equivalent,
        }
    }
}

/// Resources Kubernetes 1.33 serves in two groups, the same objects either
/// way: a rule on one is sent the other's requests under `Equivalent`.
const EQUIVALENT: &[(GroupResource, GroupResource)] = &[(("", "events"), ("events.k8s.io", "events"))];

/// A resource by its API group and plural.
type GroupResource = (&'static str, &'static str);

/// What the webhook does with what it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookKind {
    /// A ValidatingWebhook: it sees each object, and may refuse it.
    Validating,
    /// A MutatingWebhook: it sees each object and may rewrite it.
    Mutating,
}

/// A request as the webhook rule matcher sees it.
#[derive(Debug, Clone, Copy)]
pub struct Attributes<'a> {
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: &'a str,
    /// The resource's API group.
    pub group: &'a str,
    /// The resource's version.
    pub version: &'a str,
    /// The resource's plural.
    pub resource: &'a str,
    /// The subresource, `""` for none.
    pub subresource: &'a str,
    /// The request's namespace, `""` for a cluster-scoped object (for a
    /// Namespace object, its own name).
    pub namespace: &'a str,
}

/// The scopes a rule may match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Scopes {
    cluster: bool,
    namespaced: bool,
}

impl Scopes {
    /// A scope the API server does not know (it refuses such a
    /// configuration) is read as every scope.
    fn of(scope: Option<&str>) -> Scopes {
        match scope {
            Some("Cluster") => Scopes { cluster: true, namespaced: false },
            Some("Namespaced") => Scopes { cluster: false, namespaced: true },
            _ => Scopes { cluster: true, namespaced: true },
        }
    }
}

/// Whether the API server sends a request with these attributes to a
/// webhook with this rule: k8s.io/apiserver's matcher, condition by
/// condition. Each list must hold `*` or the request's value; an empty list
/// matches nothing.
pub fn matches(rule: &AdmissionRule<'_>, attrs: &Attributes<'_>) -> bool {
    let any_or = |items: &[String], value: &str| items.iter().any(|i| i == "*" || i == value);
    let namespace_object = attrs.group.is_empty() && attrs.resource == "namespaces" && attrs.version == "v1";
    let scope = match rule.scope {
        None | Some("*") => true,
        Some("Namespaced") => !namespace_object && !attrs.namespace.is_empty(),
        Some("Cluster") => namespace_object || attrs.namespace.is_empty(),
        Some(_) => false,
    };
    let resource = rule.resources.iter().any(|written| {
        let (res, sub) = written.split_once('/').unwrap_or((written, ""));
        (res == "*" || res == attrs.resource) && (sub == "*" || sub == attrs.subresource)
    });
    scope
        && any_or(rule.operations, attrs.operation)
        && any_or(rule.groups, attrs.group)
        && any_or(rule.versions, attrs.version)
        && resource
}

pub use super::subresources::SUBRESOURCES;

/// The RBAC resources that cover every request an admission rule's resource
/// pattern matches.
pub fn rbac_resources(pattern: &str) -> Vec<String> {
    let (res, sub) = pattern.split_once('/').unwrap_or((pattern, ""));
    match (res, sub) {
        // RBAC's `*` is every resource and subresource: it covers `*` too.
        ("*", "*") | ("*", "") => vec!["*".into()],
        ("*", sub) => vec![format!("*/{sub}")],
        (res, "*") => {
            std::iter::once(res.to_string()).chain(SUBRESOURCES.iter().map(|s| format!("{res}/{s}"))).collect()
        }
        (res, "") => vec![res.to_string()],
        (res, sub) => vec![format!("{res}/{sub}")],
    }
}

/// What one rule gives the webhook's server, in RBAC's words.
#[derive(Debug, Clone, PartialEq)]
pub struct Interception {
    /// The access, as an RBAC rule.
    pub rule: PolicyRule,
    /// It may match cluster-scoped objects (or resources whose scope the
    /// cluster-to-be does not tell), which no namespaceSelector narrows: it
    /// is held cluster-wide. Otherwise it reaches the namespaces the
    /// webhook's namespaceSelector matches.
    pub cluster_wide: bool,
}

/// The verbs a webhook holds on what it is sent.
fn verbs(kind: WebhookKind, operations: &[String]) -> Vec<String> {
    let rewrites = kind == WebhookKind::Mutating
        && operations.iter().any(|o| matches!(o.as_str(), "*" | "CREATE" | "UPDATE" | "CONNECT"));
    let verbs: &[&str] = if rewrites { &["get", "create", "update", "patch"] } else { &["get"] };
    verbs.iter().map(|v| v.to_string()).collect()
}

/// What a webhook's rule gives the server that answers it: one
/// [`Interception`] per API group and reach, left out where
/// `own(group, plural)` says the resource is the bundle's own (a wildcard
/// group or resource never is).
///
/// A rule the API server refuses to store (an empty list, an unknown scope)
/// is read at its widest, each empty list as `*` and the scope as every
/// scope: a verdict never rests on the API server refusing what the bundle
/// wrote, since the install then fails anyway.
pub fn intercepted(
    rule: &AdmissionRule<'_>,
    kind: WebhookKind,
    policy: MatchPolicy,
    scopes: &Resources,
    own: impl Fn(&str, &str) -> bool,
) -> Vec<Interception> {
    let allowed = Scopes::of(rule.scope);
    let every = |list: &[String], all: &str| if list.is_empty() { vec![all.to_string()] } else { list.to_vec() };
    let verbs = verbs(kind, &every(rule.operations, "*"));
    let mut out: Vec<Interception> = Vec::new();
    let mut groups = every(rule.groups, "*");
    groups.sort();
    groups.dedup();
    let patterns = every(rule.resources, "*/*");
    for group in &groups {
        let (mut cluster, mut namespaced) = (Vec::new(), Vec::new());
        for pattern in &patterns {
            let res = pattern.split('/').next().unwrap_or(pattern);
            if group != "*" && res != "*" && own(group, res) {
                continue;
            }
            // The Namespace object is cluster-scoped; a resource the table
            // does not know, or a wildcard, may be.
            let is_cluster = match (group.as_str(), res) {
                (_, "*") | ("*", _) => None,
                (g, r) => scopes.cluster_scoped(g, r),
            };
            let (to_cluster, to_namespaces) = match is_cluster {
                Some(true) => (allowed.cluster, false),
                Some(false) => (false, allowed.namespaced),
                None if allowed.cluster => (true, false),
                None => (false, allowed.namespaced),
            };
            let target = if to_cluster {
                &mut cluster
            } else if to_namespaces {
                &mut namespaced
            } else {
                continue;
            };
            for r in rbac_resources(pattern) {
                if !target.contains(&r) {
                    target.push(r);
                }
            }
        }
        for (resources, cluster_wide) in [(cluster, true), (namespaced, false)] {
            if resources.is_empty() {
                continue;
            }
            let rule = PolicyRule {
                api_groups: Some(vec![group.clone()]),
                resources: Some(resources),
                verbs: verbs.clone(),
                ..Default::default()
            };
            out.push(Interception { rule, cluster_wide });
        }
    }
    out.extend(amounts_to(&groups, &patterns, kind, &own));
    if policy == MatchPolicy::Equivalent {
        out.extend(equivalents(&out));
    }
    out
}

/// The interceptions of the resources equivalent to those `held` names, in
/// their other group.
fn equivalents(held: &[Interception]) -> Vec<Interception> {
    let mut out = Vec::new();
    for i in held {
        let (groups, resources) =
            (i.rule.api_groups.as_deref().unwrap_or_default(), i.rule.resources.as_deref().unwrap_or_default());
        for pair in EQUIVALENT {
            for ((g, r), (other_group, other)) in [(pair.0, pair.1), (pair.1, pair.0)] {
                let names =
                    groups.iter().any(|x| x == g) && resources.iter().any(|x| x == r || x.split('/').next() == Some(r));
                if !names {
                    continue;
                }
                let subs: Vec<String> = resources
                    .iter()
                    .filter_map(|x| {
                        if x == r {
                            Some(other.to_string())
                        } else {
                            x.strip_prefix(&format!("{r}/")).map(|s| format!("{other}/{s}"))
                        }
                    })
                    .collect();
                let rule = PolicyRule {
                    api_groups: Some(vec![other_group.to_string()]),
                    resources: Some(subs),
                    verbs: i.rule.verbs.clone(),
                    ..Default::default()
                };
                out.push(Interception { rule, cluster_wide: i.cluster_wide });
            }
        }
    }
    out
}

/// Where being sent a request is worth more than the verbs on what is sent:
/// a review API whose objects carry credentials or decide access, and RBAC,
/// whose escalation check runs after mutation and against the requester.
/// Each is (group, resource, mutating only, what it amounts to, as a rule).
const AMOUNTS_TO: &[(&str, &str, bool, Amount)] = &[
    // A TokenReview carries the bearer token under review: whoever is sent
    // it may act as that token's user, group or ServiceAccount.
    ("authentication.k8s.io", "tokenreviews", false, ("", &["users", "groups", "serviceaccounts"], &["impersonate"])),
    // A rewritten access review answers for whoever the webhook likes.
    (
        "authorization.k8s.io",
        "subjectaccessreviews",
        true,
        ("", &["users", "groups", "serviceaccounts"], &["impersonate"]),
    ),
    (
        "authorization.k8s.io",
        "localsubjectaccessreviews",
        true,
        ("", &["users", "groups", "serviceaccounts"], &["impersonate"]),
    ),
    // The API server checks escalation on a role, and binding on a binding,
    // against the requester (OLM, an admin), after mutating admission: a
    // webhook rewriting them escalates and binds with their rights.
    (RBAC_GROUP, "roles", true, (RBAC_GROUP, &["roles", "clusterroles"], &["escalate"])),
    (RBAC_GROUP, "clusterroles", true, (RBAC_GROUP, &["roles", "clusterroles"], &["escalate"])),
    (RBAC_GROUP, "rolebindings", true, (RBAC_GROUP, &["roles", "clusterroles"], &["bind"])),
    (RBAC_GROUP, "clusterrolebindings", true, (RBAC_GROUP, &["roles", "clusterroles"], &["bind"])),
    // A rewritten certificate request (a node's, a signer's) is signed as
    // the approver approved another.
    (
        "certificates.k8s.io",
        "certificatesigningrequests",
        true,
        ("certificates.k8s.io", &["signers"], &["approve", "sign"]),
    ),
];

/// A rule, as (group, resources, verbs).
type Amount = (&'static str, &'static [&'static str], &'static [&'static str]);

/// The rules [`AMOUNTS_TO`] says the rule's interceptions amount to, each
/// cluster-wide.
fn amounts_to(
    groups: &[String],
    patterns: &[String],
    kind: WebhookKind,
    own: &impl Fn(&str, &str) -> bool,
) -> Vec<Interception> {
    let mut out: Vec<Interception> = Vec::new();
    for (group, resource, mutating_only, (g, resources, verbs)) in AMOUNTS_TO {
        if *mutating_only && kind != WebhookKind::Mutating || own(group, resource) {
            continue;
        }
        let group_matches = groups.iter().any(|x| x == "*" || x == group);
        let resource_matches = patterns.iter().any(|p| {
            let res = p.split('/').next().unwrap_or(p);
            res == "*" || res == *resource
        });
        if !(group_matches && resource_matches) {
            continue;
        }
        let rule = PolicyRule {
            api_groups: Some(vec![g.to_string()]),
            resources: Some(resources.iter().map(|r| r.to_string()).collect()),
            verbs: verbs.iter().map(|v| v.to_string()).collect(),
            ..Default::default()
        };
        let held = Interception { rule, cluster_wide: true };
        if !out.contains(&held) {
            out.push(held);
        }
    }
    out
}

#[cfg(test)]
mod tests;
