//! Permissions well known to let their holder escalate or reach beyond its
//! job, after the privilege-escalation risks in Kubernetes' RBAC good
//! practices. olm-rbac warns when a bundle grants one to its operator and no
//! install policy ceiling decides, and `report` flags them.
//!
//! Each entry holds one or more permission sets (verbs on resources of API groups), and
//! a rule is dangerous when it shares any one permission with a grant. The
//! rule is read as the API server reads it: `*` is every verb, group or
//! resource, `*/sub` is that subresource of every resource, and resource names
//! only narrow a rule to some of the objects, so they never clear it. Every
//! entry is a single permission, never a combination, so splitting a grant
//! over several rules or roles cannot hide it.
//!
//! A catalogue resource ending in `/*` stands for every subresource of that
//! resource (the API server checks impersonated extra fields as
//! `userextras/<key>`); in a rule, `userextras/*` is one key like any other.
//! That is why entries are matched here rather than with
//! `cover::overlaps`, which reads both sides as rules.

use k8s_openapi::api::rbac::v1::PolicyRule;

use super::matches::{or_empty, ALL};

mod severity;
pub use severity::Severity;

mod catalogue;
pub use catalogue::Danger;
use catalogue::{PermissionSet, CATALOGUE};

/// Every entry of the catalogue, in the order the docs list them.
pub fn catalogue() -> &'static [Danger] {
    CATALOGUE
}

/// Every resource the catalogue names, as `(group, resource)` without its
/// subresource: Kubernetes' virtual resources (`users`, `groups`, `signers`,
/// ...) and the deputies' APIs, which exist whatever the input defines.
pub(crate) fn named_resources() -> impl Iterator<Item = (&'static str, &'static str)> {
    CATALOGUE.iter().flat_map(|d| d.sets).flat_map(|set| {
        set.groups.iter().flat_map(move |g| set.resources.iter().map(move |r| (*g, r.split('/').next().unwrap_or(r))))
    })
}

/// What a danger permits, said with where it is held: cluster-wide
/// (`namespace` `None`; an entry that counts only cluster-wide says so
/// already) or in a namespace.
pub fn said_where(what: &str, namespace: Option<&str>) -> String {
    match namespace {
        None if what.ends_with("cluster-wide") => what.to_string(),
        None => format!("{what} cluster-wide"),
        Some(ns) => format!("{what} in {ns}"),
    }
}

impl Danger {
    /// Whether it counts only when granted in every namespace (a ClusterRole
    /// bound by a ClusterRoleBinding); otherwise it counts anywhere.
    pub fn cluster_wide_only(&self) -> bool {
        self.cluster_only
    }

    /// The permissions the entry stands for, as docs/dangerous-permissions.md
    /// lists them, e.g. "`create` on `serviceaccounts/token` in `""`".
    pub fn permissions(&self) -> String {
        if self.sets.is_empty() {
            return "a `*` verb, resource, API group or non-resource URL".to_string();
        }
        let code = |items: &[&str]| items.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ");
        let shown: Vec<String> = self
            .sets
            .iter()
            .map(|g| {
                let verbs = if g.verbs == [ALL] { "any verb".to_string() } else { code(g.verbs) };
                let resources: Vec<String> = g
                    .resources
                    .iter()
                    .map(|r| match r.strip_suffix("/*") {
                        Some(base) => format!("`{base}/<any>`"),
                        None => format!("`{r}`"),
                    })
                    .collect();
                let groups: Vec<String> = g
                    .groups
                    .iter()
                    .map(|x| if x.is_empty() { "`\"\"`".to_string() } else { format!("`{x}`") })
                    .collect();
                format!("{verbs} on {} in {}", resources.join(", "), groups.join(", "))
            })
            .collect();
        shown.join("; ")
    }

    fn matches(&self, rule: &PolicyRule, cluster_wide: bool) -> bool {
        if self.cluster_only && !cluster_wide {
            return false;
        }
        if self.sets.is_empty() {
            return wildcard(rule);
        }
        self.sets.iter().any(|g| g.shares_a_permission_with(rule))
    }
}

impl PermissionSet {
    /// Does `rule` grant one of this grant's permissions? Resource names are
    /// not looked at: a named object is still one of the resource's objects.
    fn shares_a_permission_with(&self, rule: &PolicyRule) -> bool {
        let verbs = rule.verbs.iter().any(|v| v == ALL || self.verbs.iter().any(|w| *w == ALL || w == v));
        let groups = or_empty(&rule.api_groups).iter().any(|g: &String| g == ALL || self.groups.contains(&g.as_str()));
        let resources =
            or_empty(&rule.resources).iter().any(|r| self.resources.iter().any(|pattern| resource_meets(r, pattern)));
        verbs && groups && resources
    }
}

/// Does the rule's resource `granted` include some resource the catalogue's
/// `pattern` names? `granted` is read as the API server reads it: `*` is
/// every resource and `*/sub` the subresource `sub` of every resource. A
/// `pattern` ending in `/*` is every subresource of its resource.
fn resource_meets(granted: &str, pattern: &str) -> bool {
    if granted == ALL || granted == pattern {
        return true;
    }
    let any_resource_sub = granted.strip_prefix("*/").filter(|sub| !sub.is_empty());
    match pattern.strip_suffix("/*") {
        Some(base) => {
            any_resource_sub.is_some()
                || granted.strip_prefix(base).and_then(|rest| rest.strip_prefix('/')).is_some_and(|k| !k.is_empty())
        }
        None => any_resource_sub.is_some_and(|sub| pattern.split_once('/').is_some_and(|(_, s)| s == sub)),
    }
}

/// A `*` verb on anything, or a `*` resource (or `*` group with any
/// resource): it grants what nobody reviewed, now and as the cluster grows.
/// A `*` non-resource URL counts too.
fn wildcard(rule: &PolicyRule) -> bool {
    let has = |v: &Option<Vec<String>>| v.as_ref().is_some_and(|v| v.iter().any(|x| x == ALL));
    let grants_something = rule.resources.as_ref().is_some_and(|r| !r.is_empty())
        || rule.non_resource_urls.as_ref().is_some_and(|u| !u.is_empty());
    grants_something
        && (rule.verbs.iter().any(|v| v == ALL)
            || has(&rule.resources)
            || has(&rule.api_groups)
            || has(&rule.non_resource_urls))
}

/// The dangerous permissions `rule` grants; `cluster_wide` says whether the
/// rule applies in every namespace (a ClusterRole bound by a
/// ClusterRoleBinding) or in one namespace.
pub fn dangers(rule: &PolicyRule, cluster_wide: bool) -> Vec<&'static Danger> {
    CATALOGUE.iter().filter(|d| d.matches(rule, cluster_wide)).collect()
}

#[cfg(test)]
mod tests;
