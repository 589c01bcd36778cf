//! What one identity may do: whether in any namespace at all (`can-i -A`),
//! and every permission its bindings give it (`can-i --list`).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::PolicyRule;

use super::{BindingDef, Identity, Policy};
use crate::model::VERBS;

/// Where to list an identity's permissions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place<'a> {
    /// What ClusterRoleBindings grant: cluster-wide, and so in every namespace.
    ClusterWide,
    /// What applies in one namespace: ClusterRoleBindings and the RoleBindings there.
    Namespace(&'a str),
    /// Every binding, each permission tagged with where it applies.
    Each,
}

/// What a permission is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Target {
    /// A resource (`*` for any, `plural/subresource`, `*/subresource`) in an
    /// API group (`""` for the core group, `*` for any), or one object of it.
    Resource { group: String, resource: String, name: Option<String> },
    /// A non-resource URL such as `/healthz`, or `*`.
    Url(String),
}

impl Target {
    /// The resource as `can-i` takes it: `plural.group[/subresource]`, core
    /// resources without a group; `None` for a URL.
    pub(crate) fn resource_text(&self) -> Option<String> {
        let Target::Resource { group, resource, .. } = self else { return None };
        let (head, sub) = match resource.split_once('/') {
            Some((h, s)) => (h, Some(s)),
            None => (resource.as_str(), None),
        };
        let mut text = if group.is_empty() { head.to_string() } else { format!("{head}.{group}") };
        if let Some(sub) = sub {
            text.push('/');
            text.push_str(sub);
        }
        Some(text)
    }
}

/// One permission: the verbs allowed on a target, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Permission {
    /// [`Place::ClusterWide`]: `None`. [`Place::Namespace`]: that namespace.
    /// [`Place::Each`]: `None` for a ClusterRoleBinding's, else the RoleBinding's namespace.
    pub namespace: Option<String>,
    pub target: Target,
    /// get, list, watch, create, update, patch, delete, deletecollection, then
    /// any others by name; just `*` when `*` is among them.
    pub verbs: Vec<String>,
}

/// The verbs in the order kubectl users read them ([`VERBS`]); others follow
/// by name.
fn ordered_verbs(verbs: BTreeSet<String>) -> Vec<String> {
    if verbs.contains("*") {
        return vec!["*".to_string()];
    }
    let mut verbs: Vec<String> = verbs.into_iter().collect();
    verbs.sort_by_key(|v| (VERBS.iter().position(|o| o == v).unwrap_or(VERBS.len()), v.clone()));
    verbs
}

impl Policy {
    /// The bindings that reach the identity and apply in the place.
    fn bindings_for<'a>(&'a self, who: &'a Identity, place: Place<'a>) -> impl Iterator<Item = &'a BindingDef> + 'a {
        self.bindings.iter().filter(move |b| {
            let here = match (place, b.namespace.as_deref()) {
                (_, None) | (Place::Each, _) => true,
                (Place::Namespace(ns), Some(bound)) => ns == bound,
                (Place::ClusterWide, Some(_)) => false,
            };
            here && b.subjects.iter().any(|s| who.is(s, b.namespace.as_deref()))
        })
    }

    /// Every rule that applies to the identity in the place (through
    /// aggregation), as written: what an escalation check measures against.
    pub(crate) fn held_rules(&self, who: &Identity, place: Place<'_>) -> Vec<PolicyRule> {
        let mut rules = Vec::new();
        for b in self.bindings_for(who, place) {
            if let Some(role) = self.bound_role(b) {
                rules.extend(self.effective_rules(role).into_iter().map(|(_, r)| r));
            }
        }
        rules
    }

    /// `can-i --list`: what the identity may do in the place, one entry per
    /// target with its verbs merged over every rule that grants them, through
    /// aggregation as [`Policy::effective_rules`] models it. A RoleBinding's
    /// rules count as they act: no non-resource URLs, no cluster-scoped
    /// resources except its own Namespace object.
    ///
    /// Sorted by place (cluster-wide first), then non-resource URLs after
    /// resources, each by the text a user sees.
    pub(crate) fn permissions(&self, who: &Identity, place: Place<'_>) -> Vec<Permission> {
        let mut merged: BTreeMap<(Option<String>, Target), BTreeSet<String>> = BTreeMap::new();
        for b in self.bindings_for(who, place) {
            let Some(role) = self.bound_role(b) else { continue };
            let namespace = match place {
                Place::ClusterWide => None,
                Place::Namespace(ns) => Some(ns.to_string()),
                Place::Each => b.namespace.clone(),
            };
            for (_, rule) in self.effective_rules(role) {
                if rule.verbs.is_empty() {
                    continue;
                }
                for target in self.targets(&rule, b.namespace.as_deref()) {
                    merged.entry((namespace.clone(), target)).or_default().extend(rule.verbs.iter().cloned());
                }
            }
        }
        let mut out: Vec<Permission> = merged
            .into_iter()
            .map(|((namespace, target), verbs)| Permission { namespace, target, verbs: ordered_verbs(verbs) })
            .collect();
        out.sort_by_cached_key(|p| {
            let (url, text, name) = match &p.target {
                Target::Resource { name, .. } => (false, p.target.resource_text().unwrap_or_default(), name.clone()),
                Target::Url(u) => (true, u.clone(), None),
            };
            (p.namespace.clone(), url, text, name)
        });
        out
    }

    /// The built-in `admin`, `edit` and `view` roles (modelled through
    /// aggregation only) that the identity is bound to in the place: their
    /// rules for Kubernetes' own resources are missing from [`Policy::permissions`].
    pub(crate) fn builtin_roles_bound(&self, who: &Identity, place: Place<'_>) -> BTreeSet<String> {
        self.bindings_for(who, place)
            .filter_map(|b| self.bound_role(b))
            .filter(|r| r.builtin && ["admin", "edit", "view"].contains(&r.name.as_str()))
            .map(|r| r.name.clone())
            .collect()
    }

    /// A rule broken down into targets: each API group × resource × name, and
    /// each non-resource URL. For a RoleBinding's rule (`binding_namespace`
    /// set), only what it grants in that namespace.
    fn targets(&self, rule: &PolicyRule, binding_namespace: Option<&str>) -> Vec<Target> {
        let names: Vec<Option<&str>> = match rule.resource_names.as_deref() {
            None | Some([]) => vec![None],
            Some(names) => names.iter().map(|n| Some(n.as_str())).collect(),
        };
        let mut out = Vec::new();
        for group in rule.api_groups.iter().flatten() {
            for resource in rule.resources.iter().flatten() {
                let head = resource.split_once('/').map_or(resource.as_str(), |(h, _)| h);
                let target = |name: Option<&str>| Target::Resource {
                    group: group.clone(),
                    resource: resource.clone(),
                    name: name.map(String::from),
                };
                match binding_namespace {
                    Some(ns) if self.resources.cluster_scoped(group, head) == Some(true) => {
                        // A RoleBinding reaches one cluster-scoped object: its own Namespace.
                        let own = group.is_empty() && head == "namespaces";
                        if own && names.iter().any(|n| n.is_none_or(|n| n == ns)) {
                            out.push(target(Some(ns)));
                        }
                    }
                    _ => out.extend(names.iter().map(|n| target(*n))),
                }
            }
        }
        if binding_namespace.is_none() {
            out.extend(rule.non_resource_urls.iter().flatten().map(|u| Target::Url(u.clone())));
        }
        out
    }
}
