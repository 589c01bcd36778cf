//! What one identity may do: whether in any namespace at all (`can-i -A`),
//! and every permission its bindings give it (`can-i --list`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::ControlFlow;

use k8s_openapi::api::rbac::v1::PolicyRule;

use super::matches::{or_empty, sort_for_reading};
use super::{BindingDef, Identity, Policy, RoleDef, RoleRefKind};

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

/// What a permission is about: a rule of the input, as it acts where it is
/// granted. A row of `can-i --list` is one of these, however many API groups,
/// resources and names it spans, so the list grows with the rules, not with
/// their cross product.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Target {
    /// Every resource (`*` for any, `plural/subresource`, `*/subresource`) in
    /// every API group (`""` for the core group, `*` for any) listed, sorted;
    /// with names, only those objects.
    Resources { groups: Vec<String>, resources: Vec<String>, names: Vec<String> },
    /// Non-resource URLs such as `/healthz`, or `*`, sorted.
    Urls(Vec<String>),
}

/// A resource as `can-i` takes it: `plural.group[/subresource]`, core
/// resources without a group.
pub(crate) fn resource_text(group: &str, resource: &str) -> String {
    let (head, sub) = match resource.split_once('/') {
        Some((h, s)) => (h, Some(s)),
        None => (resource, None),
    };
    let mut text = if group.is_empty() { head.to_string() } else { format!("{head}.{group}") };
    if let Some(sub) = sub {
        text.push('/');
        text.push_str(sub);
    }
    text
}

impl Target {
    /// The resources as `can-i` takes them (`plural.group[/subresource]`,
    /// space-separated) when the rule has one API group or one resource;
    /// with several of each, every resource in every group, written
    /// `{plural,...}.{group,...}` (the core group as `""`). Empty for URLs.
    pub(crate) fn resources_text(&self) -> String {
        let Target::Resources { groups, resources, .. } = self else { return String::new() };
        match (groups.as_slice(), resources.as_slice()) {
            ([group], _) => resources.iter().map(|r| resource_text(group, r)).collect::<Vec<_>>().join(" "),
            (_, [resource]) => groups.iter().map(|g| resource_text(g, resource)).collect::<Vec<_>>().join(" "),
            _ => {
                let groups: Vec<&str> = groups.iter().map(|g| if g.is_empty() { "\"\"" } else { g.as_str() }).collect();
                format!("{{{}}}.{{{}}}", resources.join(","), groups.join(","))
            }
        }
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

impl Permission {
    /// The permission as a rule Kubernetes would write: its API groups,
    /// resources and names, or its URLs, with its verbs.
    pub(crate) fn rule(&self) -> PolicyRule {
        let some = |v: &[String]| (!v.is_empty()).then(|| v.to_vec());
        match &self.target {
            Target::Resources { groups, resources, names } => PolicyRule {
                api_groups: Some(groups.clone()),
                resources: Some(resources.clone()),
                resource_names: some(names),
                verbs: self.verbs.clone(),
                ..Default::default()
            },
            Target::Urls(urls) => {
                PolicyRule { non_resource_urls: Some(urls.clone()), verbs: self.verbs.clone(), ..Default::default() }
            }
        }
    }
}

/// A resource without its subresource: `pods` of `pods/log`.
fn resource_head(resource: &str) -> &str {
    resource.split_once('/').map_or(resource, |(head, _)| head)
}

/// The verbs in the order kubectl users read them
/// ([`sort_for_reading`]), or just `*` when `*` is among them.
fn ordered_verbs(verbs: BTreeSet<String>) -> Vec<String> {
    if verbs.contains("*") {
        return vec!["*".to_string()];
    }
    let mut verbs: Vec<String> = verbs.into_iter().collect();
    sort_for_reading(&mut verbs);
    verbs
}

impl Policy {
    /// Every rule that applies to the identity in the place (through
    /// aggregation), as written: what an escalation check measures against.
    pub(crate) fn held_rules(&self, who: &Identity, place: Place<'_>) -> Vec<PolicyRule> {
        let mut rules = Vec::new();
        let _all = self.visit_rules_for(who, place, &mut |held| {
            rules.push(held.rule.clone());
            ControlFlow::Continue(())
        });
        rules
    }

    /// `can-i --list`: what the identity may do in the place, one entry per
    /// rule (its API groups, resources and names, or its URLs), with the verbs
    /// of every rule that grants exactly that target merged, through
    /// aggregation as [`Policy::effective_rules`] models it. A RoleBinding's
    /// rules count as they act: no non-resource URLs, no cluster-scoped
    /// resources except its own Namespace object.
    ///
    /// Sorted by place (cluster-wide first), then non-resource URLs after
    /// resources, each by the text a user sees.
    pub(crate) fn permissions(&self, who: &Identity, place: Place<'_>) -> Vec<Permission> {
        self.permissions_through(self.bindings_for(who, place), place)
    }

    /// [`Policy::permissions`] through the bindings given (those that name
    /// one subject, for `diff`): those of them that apply in the place.
    ///
    /// It reads each binding's namespace and role reference, the bound
    /// role's effective rules and, through a RoleBinding, which resources
    /// are cluster-scoped: `diff` tells two sides' holdings equal without
    /// measuring when exactly these are alike (`check::diff`'s
    /// `Side::holds_alike`), so whatever else this comes to read must be
    /// compared there too.
    pub(crate) fn permissions_through<'a>(
        &'a self,
        bindings: impl Iterator<Item = &'a BindingDef>,
        place: Place<'_>,
    ) -> Vec<Permission> {
        // Many bindings of one role in one place grant the same: read it once.
        // (place listed, binding's namespace, role's name and namespace)
        type Reach<'r> = (Option<String>, Option<&'r str>, &'r str, Option<&'r str>);
        let mut reached: BTreeSet<Reach> = BTreeSet::new();
        let mut merged: HashMap<(Option<String>, Target), BTreeSet<String>> = HashMap::new();
        for b in bindings.filter(|b| b.applies_in(place)) {
            let namespace = match place {
                Place::ClusterWide => None,
                Place::Namespace(ns) => Some(ns.to_string()),
                Place::Each => b.namespace.clone(),
            };
            // The role a binding names: a Role lives in the binding's namespace.
            let role_namespace = b.namespace.as_deref().filter(|_| b.role_kind == Some(RoleRefKind::Role));
            let key = (namespace.clone(), b.namespace.as_deref(), b.role_name.as_str(), role_namespace);
            if !reached.insert(key) {
                continue;
            }
            let _all = self.visit_binding(b, &mut |held| {
                let rule = held.rule;
                if !rule.verbs.is_empty() {
                    for target in self.targets(rule, b.namespace.as_deref()) {
                        merged.entry((namespace.clone(), target)).or_default().extend(rule.verbs.iter().cloned());
                    }
                }
                ControlFlow::Continue(())
            });
        }
        let mut out: Vec<Permission> = merged
            .into_iter()
            .map(|((namespace, target), verbs)| Permission { namespace, target, verbs: ordered_verbs(verbs) })
            .collect();
        out.sort_by_cached_key(|p| {
            let url = matches!(p.target, Target::Urls(_));
            (p.namespace.clone(), url, p.target.resources_text(), p.target.clone(), p.verbs.clone())
        });
        out
    }

    /// Whether what the role grants through a RoleBinding depends on which
    /// namespace the binding is in, beyond the namespace it is listed under:
    /// a rule naming the core group's `namespaces` reaches the binding's own
    /// Namespace object, by its name ([`Policy::targets`]). Otherwise the role
    /// grants the same rules in every namespace it is bound in.
    pub(crate) fn grants_by_namespace_name(&self, role: &RoleDef) -> bool {
        let mut found = false;
        self.each_effective_rule(role, |rule| {
            found = found
                || or_empty(&rule.api_groups).iter().any(|g| g.is_empty())
                    && or_empty(&rule.resources).iter().any(|r| resource_head(r) == "namespaces");
        });
        found
    }

    /// A rule as targets: its API groups × resources × names, and its URLs.
    /// For a RoleBinding's rule (`binding_namespace` set), only what it
    /// grants in that namespace: the cluster-scoped resources of a group are
    /// taken out of it, in as few targets as the groups that have some (a
    /// group's own target holds only the resources that are cluster-scoped
    /// somewhere in the rule), and `namespaces` comes back named after the
    /// binding's namespace.
    fn targets(&self, rule: &PolicyRule, binding_namespace: Option<&str>) -> Vec<Target> {
        let sorted = |v: &Option<Vec<String>>| {
            let mut v = v.clone().unwrap_or_default();
            v.sort();
            v.dedup();
            v
        };
        let (groups, resources, names) =
            (sorted(&rule.api_groups), sorted(&rule.resources), sorted(&rule.resource_names));
        let mut out = Vec::new();
        let boxed = |groups: Vec<String>, resources: Vec<String>, names: Vec<String>| {
            (!groups.is_empty() && !resources.is_empty()).then_some(Target::Resources { groups, resources, names })
        };
        match binding_namespace {
            None => {
                out.extend(boxed(groups, resources, names));
                let urls = sorted(&rule.non_resource_urls);
                if !urls.is_empty() {
                    out.push(Target::Urls(urls));
                }
            }
            Some(ns) => {
                let head = |r: &str| resource_head(r).to_string();
                // The (group, resource) pairs of the rule that are cluster-scoped,
                // found from the known scopes rather than from every pair.
                let mut by_head: HashMap<String, Vec<usize>> = HashMap::new();
                for (i, r) in resources.iter().enumerate() {
                    by_head.entry(head(r)).or_default().push(i);
                }
                let mut cluster: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
                for (group, plural) in self.resources.cluster_scoped_resources() {
                    if let (Ok(g), Some(rs)) = (groups.binary_search_by(|x| x.as_str().cmp(group)), by_head.get(plural))
                    {
                        cluster.entry(groups[g].as_str()).or_default().extend(rs);
                    }
                }
                let touched: BTreeSet<usize> = cluster.values().flatten().copied().collect();
                let plain_groups: Vec<String> =
                    groups.iter().filter(|g| !cluster.contains_key(g.as_str())).cloned().collect();
                out.extend(boxed(plain_groups, resources.clone(), names.clone()));
                let untouched: Vec<String> = resources
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !touched.contains(i))
                    .map(|(_, r)| r.clone())
                    .collect();
                out.extend(boxed(cluster.keys().map(|g| g.to_string()).collect(), untouched, names.clone()));
                // Each group with cluster-scoped resources: the rule's other
                // touched resources, grouped by what is left.
                let mut left: BTreeMap<Vec<usize>, Vec<String>> = BTreeMap::new();
                for (group, scoped) in &cluster {
                    let rest: Vec<usize> = touched.difference(scoped).copied().collect();
                    left.entry(rest).or_default().push(group.to_string());
                }
                for (rest, gs) in left {
                    out.extend(boxed(gs, rest.iter().map(|&i| resources[i].clone()).collect(), names.clone()));
                }
                // A RoleBinding reaches one cluster-scoped object: its own Namespace.
                if let Some(scoped) = cluster.get("") {
                    let own: Vec<String> =
                        scoped.iter().map(|&i| resources[i].clone()).filter(|r| head(r) == "namespaces").collect();
                    if names.is_empty() || names.iter().any(|n| n == ns) {
                        out.extend(boxed(vec![String::new()], own, vec![ns.to_string()]));
                    }
                }
            }
        }
        out
    }
}
