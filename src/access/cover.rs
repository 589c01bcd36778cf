//! Kubernetes' escalation check, offline: does one set of rules cover every
//! permission another grants?
//!
//! The API server lets a user write a role or binding only if the user already
//! holds everything it grants. It decides that by breaking the new rules into
//! atoms (one API group, one resource, one verb and at most one name, or one
//! non-resource URL and one verb) and looking for an owner rule that covers
//! each atom. This module decides the same, so that olm-rbac can tell whether a
//! bundle's role grants anything beyond a level it is measured against.
//!
//! An owner rule covers an atom when the authorizer's matchers
//! ([`matches`](super::matches)) allow it, but for names, which Kubernetes'
//! comparator reads otherwise: an atom without a name is covered only by an
//! owner rule without `resourceNames`. Wildcards in the rules being checked
//! are values like any other: a `*` verb is covered only by an owner rule
//! with the `*` verb, as on a cluster.
//!
//! The atoms of a rule are the cross product of its lists, which a hostile
//! rule makes astronomically many; they are never listed. A rule is a box (a
//! product of value sets, one per dimension), and what one owner rule covers
//! of it is again a box, since each dimension is matched on its own. What is
//! left uncovered is found by subtracting the owner boxes one at a time
//! (`boxes`), each rule measured as the axes of its own values (`shapes`), so
//! the cost follows the number of rules and values, not of atoms. A property
//! (`tests/suite/property.rs`) holds the arithmetic to the authorizer, atom
//! by atom, on random rules.

use std::collections::HashMap;

use k8s_openapi::api::rbac::v1::PolicyRule;

use super::matches::{or_empty, ALL};
use boxes::{merge, uncovered_cells, Cell, Sel};
use shapes::{ResourceShape, UrlShape, GROUPS, NAMES, RESOURCES, VERBS};

mod boxes;
mod shapes;

/// One permission: a single group, resource, verb and optional name, or a
/// single non-resource URL and verb.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Atom {
    /// A verb on one resource of one API group, on every object or on one by name.
    Resource {
        /// The API group; `""` is the core group.
        group: String,
        /// The resource, with its subresource if any (`pods/exec`).
        resource: String,
        /// The verb (`get`, `create`, … or `*`).
        verb: String,
        /// One object's name (`resourceNames`); `None` for every object.
        name: Option<String>,
    },
    /// A verb on a non-resource URL (`/healthz`, `/metrics`), which only ClusterRoleBindings grant.
    Url {
        /// The URL path, possibly ending in `*`.
        url: String,
        /// The verb (`get`, … or `*`).
        verb: String,
    },
}

impl Atom {
    /// The atom as a rule, for messages.
    pub fn to_rule(&self) -> PolicyRule {
        let one = |s: &str| Some(vec![s.to_string()]);
        match self {
            Atom::Resource { group, resource, verb, name } => PolicyRule {
                api_groups: one(group),
                resources: one(resource),
                verbs: vec![verb.clone()],
                resource_names: name.as_deref().and_then(one),
                ..Default::default()
            },
            Atom::Url { url, verb } => {
                PolicyRule { non_resource_urls: one(url), verbs: vec![verb.clone()], ..Default::default() }
            }
        }
    }
}

/// Every permission a rule grants, as atoms. A rule with resources but no API
/// groups (or the reverse) grants nothing, as on a cluster. There are as many
/// as the product of the rule's lists: for messages and tests on small rules;
/// the checks below never list them.
pub fn atoms(rule: &PolicyRule) -> Vec<Atom> {
    let mut out = Vec::new();
    let names = or_empty(&rule.resource_names);
    for group in or_empty(&rule.api_groups) {
        for resource in or_empty(&rule.resources) {
            for verb in &rule.verbs {
                let atom = |name: Option<&String>| Atom::Resource {
                    group: group.clone(),
                    resource: resource.clone(),
                    verb: verb.clone(),
                    name: name.cloned(),
                };
                if names.is_empty() {
                    out.push(atom(None));
                } else {
                    out.extend(names.iter().map(|n| atom(Some(n))));
                }
            }
        }
    }
    for url in or_empty(&rule.non_resource_urls) {
        for verb in &rule.verbs {
            out.push(Atom::Url { url: url.clone(), verb: verb.clone() });
        }
    }
    out
}

/// What of one rule the owners leave uncovered, as boxes of its own values.
struct Gap<'a> {
    resources: ResourceShape<'a>,
    resource_cells: Vec<Cell<4>>,
    urls: UrlShape<'a>,
    url_cells: Vec<Cell<2>>,
}

impl<'a> Gap<'a> {
    /// Measures `servant` against `owners` (only those that may meet it need
    /// be given, in any fixed order).
    fn measure<'o>(
        owners: impl Iterator<Item = &'o PolicyRule> + Clone,
        servant: &'a PolicyRule,
        first_only: bool,
    ) -> Gap<'a> {
        let resources = ResourceShape::new(servant);
        let whole = resources.whole();
        let resource_cells = if whole.iter().any(|s| s.is_empty()) {
            Vec::new()
        } else {
            let sels: Vec<[Sel; 4]> = owners.clone().filter_map(|o| resources.select(o)).collect();
            uncovered_cells(whole, &sels, first_only)
        };
        let urls = UrlShape::new(servant);
        let whole = urls.whole();
        let url_cells = if (first_only && !resource_cells.is_empty()) || whole.iter().any(|s| s.is_empty()) {
            Vec::new()
        } else {
            let sels: Vec<[Sel; 2]> = owners.filter_map(|o| urls.select(o)).collect();
            uncovered_cells(whole, &sels, first_only)
        };
        Gap { resources, resource_cells, urls, url_cells }
    }

    fn is_empty(&self) -> bool {
        self.resource_cells.is_empty() && self.url_cells.is_empty()
    }

    /// As few rules as read well: boxes merged where they differ in one
    /// dimension, resource rules first.
    fn rules(self) -> Vec<PolicyRule> {
        let resource_cells = merge(self.resource_cells, &[VERBS, NAMES, RESOURCES, GROUPS]);
        let url_cells = merge(self.url_cells, &[1, 0]);
        let mut out: Vec<PolicyRule> = resource_cells.iter().map(|c| self.resources.rule(c)).collect();
        out.extend(url_cells.iter().map(|c| self.urls.rule(c)));
        out
    }
}

/// Does `owner` cover everything `servant` grants?
pub fn covers(owner: &[PolicyRule], servant: &[PolicyRule]) -> bool {
    servant.iter().all(|rule| Gap::measure(owner.iter(), rule, true).is_empty())
}

/// What `servant` grants beyond `owner`, as few rules as read well.
pub fn uncovered_rules(owner: &[PolicyRule], servant: &PolicyRule) -> Vec<PolicyRule> {
    Gap::measure(owner.iter(), servant, false).rules()
}

/// A set of owner rules indexed for measuring many rules against it: each
/// measure looks only at the owners that share an API group or a resource
/// with the rule measured (or have `*`), and at the owners with
/// non-resource URLs. Owners can be switched off and on again by position.
pub struct Owners<'a> {
    rules: Vec<&'a PolicyRule>,
    on: Vec<bool>,
    by_group: HashMap<&'a str, Vec<usize>>,
    any_group: Vec<usize>,
    by_resource: HashMap<&'a str, Vec<usize>>,
    any_resource: Vec<usize>,
    with_urls: Vec<usize>,
}

impl<'a> Owners<'a> {
    /// Indexes the owner rules, every one switched on.
    pub fn new(rules: impl IntoIterator<Item = &'a PolicyRule>) -> Owners<'a> {
        let rules: Vec<&PolicyRule> = rules.into_iter().collect();
        let mut owners = Owners {
            on: vec![true; rules.len()],
            rules: Vec::new(),
            by_group: HashMap::new(),
            any_group: Vec::new(),
            by_resource: HashMap::new(),
            any_resource: Vec::new(),
            with_urls: Vec::new(),
        };
        for (i, rule) in rules.iter().enumerate() {
            index(i, or_empty(&rule.api_groups), &mut owners.by_group, &mut owners.any_group);
            index(i, or_empty(&rule.resources), &mut owners.by_resource, &mut owners.any_resource);
            if !or_empty(&rule.non_resource_urls).is_empty() {
                owners.with_urls.push(i);
            }
        }
        owners.rules = rules;
        owners
    }

    /// Counts the owner at `position` (in the order given) in later measures, or not.
    pub fn switch(&mut self, position: usize, on: bool) {
        if let Some(slot) = self.on.get_mut(position) {
            *slot = on;
        }
    }

    /// The owners that may cover part of `servant`, in their order.
    fn candidates(&self, servant: &PolicyRule) -> Vec<&'a PolicyRule> {
        let lookup = |index: &HashMap<&str, Vec<usize>>, any: &[usize], keys: &mut dyn Iterator<Item = String>| {
            let mut found: Vec<usize> = any.to_vec();
            for key in keys {
                found.extend(index.get(key.as_str()).into_iter().flatten());
            }
            found
        };
        let groups = or_empty(&servant.api_groups);
        let resources = or_empty(&servant.resources);
        let mut found = if groups.is_empty() || resources.is_empty() {
            Vec::new()
        } else {
            let by_group = lookup(&self.by_group, &self.any_group, &mut groups.iter().cloned());
            let mut subs = resources.iter().filter_map(|r| r.split_once('/')).map(|(_, s)| format!("*/{s}"));
            let mut keys = resources.iter().cloned().chain(&mut subs);
            let by_resource = lookup(&self.by_resource, &self.any_resource, &mut keys);
            if by_group.len() <= by_resource.len() {
                by_group
            } else {
                by_resource
            }
        };
        if !or_empty(&servant.non_resource_urls).is_empty() {
            found.extend(&self.with_urls);
        }
        found.sort_unstable();
        found.dedup();
        found.into_iter().filter(|&i| self.on[i]).map(|i| self.rules[i]).collect()
    }

    /// Does this set cover everything `servant` grants?
    pub fn covers(&self, servant: &PolicyRule) -> bool {
        Gap::measure(self.candidates(servant).into_iter(), servant, true).is_empty()
    }

    /// What `servant` grants beyond this set, as few rules as read well.
    pub fn uncovered_rules(&self, servant: &PolicyRule) -> Vec<PolicyRule> {
        Gap::measure(self.candidates(servant).into_iter(), servant, false).rules()
    }
}

/// Files owner `i` under each of its values, or under "any" if it has `*`.
fn index<'a>(i: usize, values: &'a [String], by: &mut HashMap<&'a str, Vec<usize>>, any: &mut Vec<usize>) {
    if values.iter().any(|v| v == ALL) {
        any.push(i);
        return;
    }
    for v in values {
        let slot = by.entry(v.as_str()).or_default();
        if slot.last() != Some(&i) {
            slot.push(i);
        }
    }
}

/// Do `a` and `b` both grant some one permission? Used for rules that must
/// never be granted: a grant is refused when it shares any permission with a
/// denied rule, however either is written. Wildcards are read as the API
/// server reads them: `*` is every verb, group, resource (subresources
/// included) or name, `*/sub` that subresource of every resource, and a URL
/// ending in `*` every URL it prefixes.
pub(crate) fn overlaps(a: &PolicyRule, b: &PolicyRule) -> bool {
    let verbs = a.verbs.iter().any(|v| v == ALL || b.verbs.iter().any(|w| w == ALL || w == v));
    verbs && (resources_overlap(a, b) || urls_overlap(or_empty(&a.non_resource_urls), or_empty(&b.non_resource_urls)))
}

fn resources_overlap(a: &PolicyRule, b: &PolicyRule) -> bool {
    let any_shared = |x: &[String], y: &[String]| x.iter().any(|p| p == ALL || y.iter().any(|q| q == ALL || q == p));
    let (a_names, b_names) = (or_empty(&a.resource_names), or_empty(&b.resource_names));
    any_shared(or_empty(&a.api_groups), or_empty(&b.api_groups))
        && or_empty(&a.resources).iter().any(|p| or_empty(&b.resources).iter().any(|q| resource_patterns_meet(p, q)))
        && (a_names.is_empty() || b_names.is_empty() || a_names.iter().any(|n| b_names.contains(n)))
}

/// Some resource matches both patterns: `*`, `*/sub`, or a name (with or
/// without a subresource).
fn resource_patterns_meet(p: &str, q: &str) -> bool {
    let sub = |r: &str| r.split_once('/').map(|(_, s)| s.to_string());
    match (p, q) {
        (ALL, _) | (_, ALL) => true,
        _ if p == q => true,
        _ if p.starts_with("*/") => sub(q).as_deref() == p.strip_prefix("*/"),
        _ if q.starts_with("*/") => sub(p).as_deref() == q.strip_prefix("*/"),
        _ => false,
    }
}

fn urls_overlap(a: &[String], b: &[String]) -> bool {
    let meet = |p: &str, q: &str| match (super::matches::url_prefix(p), super::matches::url_prefix(q)) {
        (Some(x), Some(y)) => x.starts_with(y) || y.starts_with(x),
        (Some(x), None) => q.starts_with(x),
        (None, Some(y)) => p.starts_with(y),
        (None, None) => p == q,
    };
    a.iter().any(|p| b.iter().any(|q| meet(p, q)))
}
#[cfg(test)]
mod tests;
