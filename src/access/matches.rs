//! The matchers every decision about what a rule grants is made of, named
//! and composed as Kubernetes' authorizer composes its own (`VerbMatches`,
//! `APIGroupMatches`, `ResourceMatches`, `NonResourceURLMatches`): the
//! authorizer's [`rule_allows`] is made of these, and the escalation check
//! (`cover`) is proven to agree with them on random rules.

use k8s_openapi::api::rbac::v1::PolicyRule;

use super::Request;
use crate::model::VERBS;

/// The value of a rule's list that stands for every value.
pub(crate) const ALL: &str = "*";

/// A rule's optional list, absent read as empty.
pub(crate) fn or_empty(v: &Option<Vec<String>>) -> &[String] {
    v.as_deref().unwrap_or_default()
}

/// The rule names `verb`, or every verb.
pub(crate) fn verb(rule: &PolicyRule, verb: &str) -> bool {
    rule.verbs.iter().any(|v| v == ALL || v == verb)
}

/// The rule names API group `group` (`""`: the core group), or every group.
pub(crate) fn api_group(rule: &PolicyRule, group: &str) -> bool {
    or_empty(&rule.api_groups).iter().any(|g| g == ALL || g == group)
}

/// The rule names `resource` (with `subresource`, as `resource/sub`), or
/// every resource, or, as `*/sub`, that subresource of every resource.
pub(crate) fn resource(rule: &PolicyRule, resource: &str, subresource: Option<&str>) -> bool {
    or_empty(&rule.resources).iter().any(|r| {
        r == ALL
            || match subresource {
                Some(sub) => {
                    r.strip_prefix("*/") == Some(sub)
                        || r.split_once('/').is_some_and(|(head, tail)| head == resource && tail == sub)
                }
                None => r == resource,
            }
    })
}

/// The rule names non-resource URL `url`, or a prefix of it ending in `*`.
pub(crate) fn non_resource_url(rule: &PolicyRule, url: &str) -> bool {
    or_empty(&rule.non_resource_urls).iter().any(|u| u == url || url_prefix(u).is_some_and(|p| url.starts_with(p)))
}

/// The prefix a non-resource URL pattern ending in `*` stands for, as the
/// authorizer and the escalation check read it: every trailing `*` trimmed
/// (`/logs**` is `/logs`). `None` for a URL without a trailing `*`.
pub(crate) fn url_prefix(pattern: &str) -> Option<&str> {
    pattern.ends_with('*').then(|| pattern.trim_end_matches('*'))
}

/// Sorts verbs in the order kubectl users read them ([`VERBS`]); others
/// follow by name.
pub(crate) fn sort_for_reading(verbs: &mut [String]) {
    let rank = |v: &String| VERBS.iter().position(|o| o == v).unwrap_or(VERBS.len());
    verbs.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
}

/// Does the rule allow the request? The matchers above on the verb, the API group
/// and the resource; `resourceNames`, when set, must hold the requested name
/// (`""` for a request that names none, as Kubernetes reads it).
pub(crate) fn rule_allows(rule: &PolicyRule, req: &Request) -> bool {
    let names_ok = match rule.resource_names.as_deref() {
        None | Some([]) => true,
        Some(names) => names.iter().any(|n| *n == req.name.as_deref().unwrap_or_default()),
    };
    verb(rule, &req.verb)
        && api_group(rule, &req.group)
        && resource(rule, &req.resource, req.subresource.as_deref())
        && names_ok
}
