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
//! Wildcards in the rules being checked are values like any other: a `*` verb
//! is covered only by an owner rule with the `*` verb, as on a cluster.
//!
//! The atoms of a rule are the cross product of its lists, which a hostile
//! rule makes astronomically many; they are never listed. A rule is a box (a
//! product of value sets, one per dimension), and what one owner rule covers
//! of it is again a box, since each dimension is matched on its own. What is
//! left uncovered is found by subtracting the owner boxes one at a time
//! ([`Boxes`]), so the cost follows the number of rules and values, not of
//! atoms.

use std::collections::HashMap;
use std::rc::Rc;

use k8s_openapi::api::rbac::v1::PolicyRule;

use super::matches;

const ALL: &str = "*";

/// One permission: a single group, resource, verb and optional name, or a
/// single non-resource URL and verb.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Atom {
    Resource { group: String, resource: String, verb: String, name: Option<String> },
    Url { url: String, verb: String },
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

fn list(v: &Option<Vec<String>>) -> &[String] {
    v.as_deref().unwrap_or_default()
}

/// Every permission a rule grants, as atoms. A rule with resources but no API
/// groups (or the reverse) grants nothing, as on a cluster. There are as many
/// as the product of the rule's lists: for messages and tests on small rules;
/// the checks below never list them.
pub fn atoms(rule: &PolicyRule) -> Vec<Atom> {
    let mut out = Vec::new();
    let names = list(&rule.resource_names);
    for group in list(&rule.api_groups) {
        for resource in list(&rule.resources) {
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
    for url in list(&rule.non_resource_urls) {
        for verb in &rule.verbs {
            out.push(Atom::Url { url: url.clone(), verb: verb.clone() });
        }
    }
    out
}

/// Does `owner` grant the permission `atom`? The definition the box
/// arithmetic below implements, dimension by dimension, from the same
/// [`matches`] as the authorizer. Names differ from the authorizer's on
/// purpose, as Kubernetes' comparator reads them: an atom without a name is
/// covered only by an owner without `resourceNames`.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn rule_covers(owner: &PolicyRule, atom: &Atom) -> bool {
    match atom {
        Atom::Resource { group, resource, verb, name } => {
            let (head, sub) = match resource.split_once('/') {
                Some((h, s)) => (h, Some(s)),
                None => (resource.as_str(), None),
            };
            let names = list(&owner.resource_names);
            let name_ok = names.is_empty() || name.as_ref().is_some_and(|n| names.contains(n));
            matches::verb(owner, verb)
                && matches::api_group(owner, group)
                && matches::resource(owner, head, sub)
                && name_ok
        }
        Atom::Url { url, verb } => matches::verb(owner, verb) && matches::non_resource_url(owner, url),
    }
}

// ---------------------------------------------------------------------------
// Boxes.

/// Positions of values on one axis, ascending.
type Set = Rc<[u32]>;

/// A box of atoms: on each axis, a set of the measured rule's values; every
/// combination is in the box.
type Cell<const D: usize> = [Set; D];

/// The values of one dimension of the measured rule, sorted and without
/// repeats: a value is known by its position.
struct Axis<'a> {
    values: Vec<&'a str>,
}

impl<'a> Axis<'a> {
    fn new(values: impl IntoIterator<Item = &'a str>) -> Axis<'a> {
        let mut values: Vec<&str> = values.into_iter().collect();
        values.sort_unstable();
        values.dedup();
        Axis { values }
    }

    fn find(&self, value: &str) -> Option<u32> {
        self.values.binary_search(&value).ok().map(|i| i as u32)
    }

    fn all(&self) -> Set {
        (0..self.values.len() as u32).collect()
    }

    /// The positions of `wanted` on this axis, or every position if `wanted`
    /// holds `*`.
    fn select(&self, wanted: &[String]) -> Sel {
        if wanted.iter().any(|w| w == ALL) {
            return Sel::All;
        }
        Sel::of(wanted.iter().filter_map(|w| self.find(w)).collect())
    }
}

/// What an owner rule covers on one axis of the measured rule.
#[derive(Debug, Clone)]
enum Sel {
    All,
    /// Ascending positions.
    Only(Vec<u32>),
}

impl Sel {
    fn of(mut positions: Vec<u32>) -> Sel {
        positions.sort_unstable();
        positions.dedup();
        Sel::Only(positions)
    }

    fn is_empty(&self) -> bool {
        matches!(self, Sel::Only(v) if v.is_empty())
    }
}

/// Does `set` share a position with `sel`?
fn meets(set: &[u32], sel: &Sel) -> bool {
    match sel {
        Sel::All => !set.is_empty(),
        Sel::Only(v) if v.len() < set.len() => v.iter().any(|p| set.binary_search(p).is_ok()),
        Sel::Only(v) => set.iter().any(|p| v.binary_search(p).is_ok()),
    }
}

/// `set` split into what `sel` covers and what it does not.
fn part(set: &Set, sel: &Sel) -> (Set, Set) {
    match sel {
        Sel::All => (set.clone(), Rc::from([])),
        Sel::Only(v) => {
            let (inside, outside): (Vec<u32>, Vec<u32>) = set.iter().partition(|p| v.binary_search(p).is_ok());
            (inside.into(), outside.into())
        }
    }
}

/// What of `cell` the owner `sel` leaves uncovered, as disjoint boxes (none
/// when it covers the whole cell), or `None` when they do not meet at all.
fn subtract<const D: usize>(cell: &Cell<D>, sel: &[Sel; D]) -> Option<Vec<Cell<D>>> {
    if !cell.iter().zip(sel).all(|(set, s)| meets(set, s)) {
        return None;
    }
    let mut rest = Vec::new();
    let mut current = cell.clone();
    for d in 0..D {
        let (inside, outside) = part(&current[d], &sel[d]);
        if !outside.is_empty() {
            let mut piece = current.clone();
            piece[d] = outside;
            rest.push(piece);
        }
        current[d] = inside;
    }
    Some(rest)
}

/// The parts of `whole` that no owner covers, as disjoint boxes. Each owner
/// is subtracted from what the owners before it left; with `first_only`, the
/// search stops at the first uncovered box.
fn uncovered_cells<const D: usize>(whole: Cell<D>, owners: &[[Sel; D]], first_only: bool) -> Vec<Cell<D>> {
    let mut out = Vec::new();
    if whole.iter().any(|set| set.is_empty()) {
        return out;
    }
    // Explicit stack: a hostile rule set would make recursion as deep as it is long.
    let mut stack = vec![(whole, 0usize)];
    while let Some((cell, from)) = stack.pop() {
        let next = owners.iter().enumerate().skip(from).find_map(|(k, o)| subtract(&cell, o).map(|rest| (k, rest)));
        match next {
            Some((k, rest)) => stack.extend(rest.into_iter().map(|piece| (piece, k + 1))),
            None => {
                out.push(cell);
                if first_only {
                    break;
                }
            }
        }
    }
    out
}

/// Disjoint boxes merged where they differ on one axis only, axis by axis in
/// `order`, so that what is reported reads as few rules.
fn merge<const D: usize>(mut cells: Vec<Cell<D>>, order: &[usize]) -> Vec<Cell<D>> {
    for _ in 0..2 {
        for &d in order {
            let mut at: HashMap<Cell<D>, usize> = HashMap::new();
            let mut merged: Vec<(Cell<D>, Vec<u32>)> = Vec::new();
            for cell in cells {
                let mut key = cell.clone();
                key[d] = Rc::from([]);
                match at.get(&key) {
                    Some(&i) => merged[i].1.extend(cell[d].iter()),
                    None => {
                        at.insert(key, merged.len());
                        merged.push((cell.clone(), cell[d].to_vec()));
                    }
                }
            }
            cells = merged
                .into_iter()
                .map(|(mut cell, mut values)| {
                    values.sort_unstable();
                    cell[d] = values.into();
                    cell
                })
                .collect();
        }
    }
    cells.sort();
    cells
}

/// The resource permissions of a rule being measured: groups, resources,
/// names (one empty value standing for "any object" when it names none)
/// and verbs.
struct ResourceShape<'a> {
    groups: Axis<'a>,
    resources: Axis<'a>,
    names: Axis<'a>,
    named: bool,
    verbs: Axis<'a>,
    /// The resources with a subresource, by subresource: what `*/sub` covers.
    by_sub: HashMap<&'a str, Vec<u32>>,
}

const GROUPS: usize = 0;
const RESOURCES: usize = 1;
const NAMES: usize = 2;
const VERBS: usize = 3;

impl<'a> ResourceShape<'a> {
    fn new(rule: &'a PolicyRule) -> ResourceShape<'a> {
        let names = list(&rule.resource_names);
        let resources = Axis::new(list(&rule.resources).iter().map(String::as_str));
        let mut by_sub: HashMap<&str, Vec<u32>> = HashMap::new();
        for (i, r) in resources.values.iter().enumerate() {
            if let Some((_, sub)) = r.split_once('/') {
                by_sub.entry(sub).or_default().push(i as u32);
            }
        }
        ResourceShape {
            groups: Axis::new(list(&rule.api_groups).iter().map(String::as_str)),
            resources,
            named: !names.is_empty(),
            names: if names.is_empty() { Axis::new([""]) } else { Axis::new(names.iter().map(String::as_str)) },
            verbs: Axis::new(rule.verbs.iter().map(String::as_str)),
            by_sub,
        }
    }

    fn whole(&self) -> Cell<4> {
        [self.groups.all(), self.resources.all(), self.names.all(), self.verbs.all()]
    }

    /// What `owner` covers of this shape, axis by axis; `None` if nothing.
    fn select(&self, owner: &PolicyRule) -> Option<[Sel; 4]> {
        let groups = self.groups.select(list(&owner.api_groups));
        if groups.is_empty() {
            return None;
        }
        let verbs = self.verbs.select(&owner.verbs);
        if verbs.is_empty() {
            return None;
        }
        let owned = list(&owner.resources);
        let resources = if owned.iter().any(|r| r == ALL) {
            Sel::All
        } else {
            let mut positions: Vec<u32> = owned.iter().filter_map(|r| self.resources.find(r)).collect();
            for sub in owned.iter().filter_map(|r| r.strip_prefix("*/")) {
                positions.extend(self.by_sub.get(sub).into_iter().flatten());
            }
            Sel::of(positions)
        };
        if resources.is_empty() {
            return None;
        }
        // Names narrow the owner: a rule naming objects covers only those,
        // and never a request for any object.
        let owned = list(&owner.resource_names);
        let names = match (owned.is_empty(), self.named) {
            (true, _) => Sel::All,
            (false, true) => Sel::of(owned.iter().filter_map(|n| self.names.find(n)).collect()),
            (false, false) => return None,
        };
        (!names.is_empty()).then_some([groups, resources, names, verbs])
    }

    fn rule(&self, cell: &Cell<4>) -> PolicyRule {
        let strings = |axis: &Axis, set: &Set| set.iter().map(|&p| axis.values[p as usize].to_string()).collect();
        PolicyRule {
            api_groups: Some(strings(&self.groups, &cell[GROUPS])),
            resources: Some(strings(&self.resources, &cell[RESOURCES])),
            resource_names: self.named.then(|| strings(&self.names, &cell[NAMES])),
            verbs: ranked(strings(&self.verbs, &cell[VERBS])),
            ..Default::default()
        }
    }

    #[cfg(test)]
    fn atoms(&self, cell: &Cell<4>, out: &mut Vec<Atom>) {
        for &g in cell[GROUPS].iter() {
            for &r in cell[RESOURCES].iter() {
                for &v in cell[VERBS].iter() {
                    for &n in cell[NAMES].iter() {
                        out.push(Atom::Resource {
                            group: self.groups.values[g as usize].to_string(),
                            resource: self.resources.values[r as usize].to_string(),
                            verb: self.verbs.values[v as usize].to_string(),
                            name: self.named.then(|| self.names.values[n as usize].to_string()),
                        });
                    }
                }
            }
        }
    }
}

/// The non-resource permissions of a rule being measured: URLs and verbs.
struct UrlShape<'a> {
    urls: Axis<'a>,
    verbs: Axis<'a>,
}

impl<'a> UrlShape<'a> {
    fn new(rule: &'a PolicyRule) -> UrlShape<'a> {
        UrlShape {
            urls: Axis::new(list(&rule.non_resource_urls).iter().map(String::as_str)),
            verbs: Axis::new(rule.verbs.iter().map(String::as_str)),
        }
    }

    fn whole(&self) -> Cell<2> {
        [self.urls.all(), self.verbs.all()]
    }

    /// What `owner` covers: URLs exactly, or by the prefix before a trailing
    /// `*` (sorted values that share a prefix are contiguous).
    fn select(&self, owner: &PolicyRule) -> Option<[Sel; 2]> {
        let verbs = self.verbs.select(&owner.verbs);
        if verbs.is_empty() {
            return None;
        }
        let values = &self.urls.values;
        let mut positions = Vec::new();
        let mut everything = false;
        for owned in list(&owner.non_resource_urls) {
            positions.extend(self.urls.find(owned));
            if let Some(prefix) = owned.strip_suffix('*') {
                let start = values.partition_point(|u| *u < prefix);
                let len = values[start..].partition_point(|u| u.starts_with(prefix));
                everything |= start == 0 && len == values.len();
                positions.extend(start as u32..(start + len) as u32);
            }
        }
        let urls = if everything { Sel::All } else { Sel::of(positions) };
        (!urls.is_empty()).then_some([urls, verbs])
    }

    fn rule(&self, cell: &Cell<2>) -> PolicyRule {
        let strings = |axis: &Axis, set: &Set| set.iter().map(|&p| axis.values[p as usize].to_string()).collect();
        PolicyRule {
            non_resource_urls: Some(strings(&self.urls, &cell[0])),
            verbs: ranked(strings(&self.verbs, &cell[1])),
            ..Default::default()
        }
    }

    #[cfg(test)]
    fn atoms(&self, cell: &Cell<2>, out: &mut Vec<Atom>) {
        for &u in cell[0].iter() {
            for &v in cell[1].iter() {
                out.push(Atom::Url {
                    url: self.urls.values[u as usize].to_string(),
                    verb: self.verbs.values[v as usize].to_string(),
                });
            }
        }
    }
}

/// Verbs in the order kubectl users read them; others follow by name.
fn ranked(mut verbs: Vec<String>) -> Vec<String> {
    let rank = |v: &String| crate::model::VERBS.iter().position(|o| o == v).unwrap_or(crate::model::VERBS.len());
    verbs.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
    verbs
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

    #[cfg(test)]
    fn atoms(&self, out: &mut Vec<Atom>) {
        for cell in &self.resource_cells {
            self.resources.atoms(cell, out);
        }
        for cell in &self.url_cells {
            self.urls.atoms(cell, out);
        }
    }
}

#[cfg(test)]
/// The permissions `servant` grants that no rule of `owner` covers, each once,
/// in a stable order. Empty means `owner` covers `servant` entirely. As many
/// as the atoms left over: prefer [`covers`] or [`uncovered_rules`] where a
/// rule may be large.
pub(crate) fn uncovered(owner: &[PolicyRule], servant: &[PolicyRule]) -> Vec<Atom> {
    let mut missing = Vec::new();
    for rule in servant {
        Gap::measure(owner.iter(), rule, false).atoms(&mut missing);
    }
    missing.sort();
    missing.dedup();
    missing
}

/// Does `owner` cover everything `servant` grants?
pub fn covers(owner: &[PolicyRule], servant: &[PolicyRule]) -> bool {
    servant.iter().all(|rule| Gap::measure(owner.iter(), rule, true).is_empty())
}

/// What `servant` grants beyond `owner`, as few rules as read well.
pub(crate) fn uncovered_rules(owner: &[PolicyRule], servant: &PolicyRule) -> Vec<PolicyRule> {
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
            index(i, list(&rule.api_groups), &mut owners.by_group, &mut owners.any_group);
            index(i, list(&rule.resources), &mut owners.by_resource, &mut owners.any_resource);
            if !list(&rule.non_resource_urls).is_empty() {
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
        let groups = list(&servant.api_groups);
        let resources = list(&servant.resources);
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
        if !list(&servant.non_resource_urls).is_empty() {
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
    verbs && (resources_overlap(a, b) || urls_overlap(list(&a.non_resource_urls), list(&b.non_resource_urls)))
}

fn resources_overlap(a: &PolicyRule, b: &PolicyRule) -> bool {
    let any_shared = |x: &[String], y: &[String]| x.iter().any(|p| p == ALL || y.iter().any(|q| q == ALL || q == p));
    let (a_names, b_names) = (list(&a.resource_names), list(&b.resource_names));
    any_shared(list(&a.api_groups), list(&b.api_groups))
        && list(&a.resources).iter().any(|p| list(&b.resources).iter().any(|q| resource_patterns_meet(p, q)))
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
    let meet = |p: &str, q: &str| match (p.strip_suffix('*'), q.strip_suffix('*')) {
        (Some(x), Some(y)) => x.starts_with(y) || y.starts_with(x),
        (Some(x), None) => q.starts_with(x),
        (None, Some(y)) => p.starts_with(y),
        (None, None) => p == q,
    };
    a.iter().any(|p| b.iter().any(|q| meet(p, q)))
}

#[cfg(test)]
mod tests {
    //! Hand-written cases of the API server's escalation rules.
    use super::*;

    use crate::model::policy_rule as rule;

    fn urls(urls: &[&str], verbs: &[&str]) -> PolicyRule {
        PolicyRule {
            non_resource_urls: Some(urls.iter().map(|x| x.to_string()).collect()),
            verbs: verbs.iter().map(|x| x.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn exact_rules_cover_themselves_and_their_parts() {
        let owner = [rule(&["g.io"], &["foos"], &["get", "list", "watch"], &[])];
        assert!(covers(&owner, &owner));
        assert!(covers(&owner, &[rule(&["g.io"], &["foos"], &["get"], &[])]));
        assert!(!covers(&owner, &[rule(&["g.io"], &["foos"], &["get", "delete"], &[])]));
        assert!(!covers(&owner, &[rule(&["h.io"], &["foos"], &["get"], &[])]), "other group");
        assert!(!covers(&owner, &[rule(&["g.io"], &["bars"], &["get"], &[])]), "other resource");
    }

    #[test]
    fn wildcards_in_the_owner_cover_everything_of_their_kind() {
        let owner = [rule(&["*"], &["*"], &["*"], &[])];
        assert!(covers(&owner, &[rule(&[""], &["secrets"], &["get"], &[])]));
        assert!(covers(&owner, &[rule(&["*"], &["*"], &["*"], &[])]));
        assert!(!covers(&owner, &[urls(&["/healthz"], &["get"])]), "resources never cover URLs");
    }

    #[test]
    fn wildcards_in_the_servant_need_wildcards_in_the_owner() {
        let owner = [rule(&["g.io"], &["foos"], &["get", "list", "watch", "create", "update", "patch", "delete"], &[])];
        assert!(!covers(&owner, &[rule(&["g.io"], &["foos"], &["*"], &[])]), "a * verb is more than any list");
        assert!(!covers(&owner, &[rule(&["*"], &["foos"], &["get"], &[])]), "a * group is every group");
        assert!(!covers(&owner, &[rule(&["g.io"], &["*"], &["get"], &[])]), "a * resource is every resource");
    }

    #[test]
    fn subresources_are_resources_of_their_own() {
        let owner = [rule(&["g.io"], &["foos"], &["*"], &[])];
        assert!(!covers(&owner, &[rule(&["g.io"], &["foos/status"], &["get"], &[])]));
        let owner = [rule(&["g.io"], &["foos", "foos/status"], &["get"], &[])];
        assert!(covers(&owner, &[rule(&["g.io"], &["foos/status"], &["get"], &[])]));
        assert!(!covers(&owner, &[rule(&["g.io"], &["foos/scale"], &["get"], &[])]));
        // `*/status` covers the status of every resource, and nothing else.
        let owner = [rule(&["g.io"], &["*/status"], &["get"], &[])];
        assert!(covers(&owner, &[rule(&["g.io"], &["bars/status"], &["get"], &[])]));
        assert!(!covers(&owner, &[rule(&["g.io"], &["bars"], &["get"], &[])]));
    }

    #[test]
    fn resource_names_narrow_the_servant_but_not_the_other_way() {
        let named = [rule(&["g.io"], &["foos"], &["get"], &["a", "b"])];
        let all = [rule(&["g.io"], &["foos"], &["get"], &[])];
        assert!(covers(&all, &named), "all objects cover some");
        assert!(!covers(&named, &all), "some objects do not cover all");
        assert!(covers(&named, &[rule(&["g.io"], &["foos"], &["get"], &["b"])]));
        assert!(!covers(&named, &[rule(&["g.io"], &["foos"], &["get"], &["c"])]));
    }

    #[test]
    fn non_resource_urls_match_exactly_or_by_trailing_star() {
        let owner = [urls(&["/metrics", "/logs/*"], &["get"])];
        assert!(covers(&owner, &[urls(&["/metrics"], &["get"])]));
        assert!(covers(&owner, &[urls(&["/logs/kubelet.log"], &["get"])]));
        assert!(!covers(&owner, &[urls(&["/metrics"], &["post"])]));
        assert!(!covers(&owner, &[urls(&["/healthz"], &["get"])]));
        assert!(!covers(&owner, &[urls(&["*"], &["get"])]), "a * URL needs a * owner");
    }

    #[test]
    fn a_rule_mixing_resources_and_urls_is_checked_for_both() {
        let mixed = PolicyRule {
            non_resource_urls: Some(vec!["/metrics".into()]),
            ..rule(&["g.io"], &["foos"], &["get"], &[])
        };
        assert!(!covers(&[rule(&["g.io"], &["foos"], &["get"], &[])], std::slice::from_ref(&mixed)));
        assert!(covers(&[rule(&["g.io"], &["foos"], &["get"], &[]), urls(&["/metrics"], &["get"])], &[mixed]));
    }

    #[test]
    fn rules_that_grant_nothing_are_covered_by_nothing() {
        let empty_groups = rule(&[], &["secrets"], &["get"], &[]);
        assert!(covers(&[], &[empty_groups]));
        assert!(covers(&[], &[]));
    }

    #[test]
    fn uncovered_lists_each_missing_permission_once() {
        let owner = [rule(&["g.io"], &["foos"], &["get"], &[])];
        let servant =
            [rule(&["g.io"], &["foos"], &["get", "delete"], &[]), rule(&["g.io"], &["foos"], &["delete"], &[])];
        let missing = uncovered(&owner, &servant);
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].to_rule(), rule(&["g.io"], &["foos"], &["delete"], &[]));
    }

    /// A small, seedable generator (SplitMix64), so that a failure repeats.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn some<'a>(&mut self, pool: &[&'a str], max: usize) -> Vec<&'a str> {
            let n = (self.next() % (max as u64 + 1)) as usize;
            (0..n).map(|_| pool[(self.next() % pool.len() as u64) as usize]).collect()
        }
    }

    /// A rule over few values, wildcards and subresources included, so that
    /// random rules meet, overlap and nest.
    fn random_rule(rng: &mut Rng) -> PolicyRule {
        let groups = rng.some(&["", "g", "h", "*"], 3);
        let resources = rng.some(&["a", "b", "a/status", "b/status", "a/scale", "*", "*/status", "a/x/y", "*/x/y"], 3);
        let verbs = rng.some(&["get", "list", "delete", "*"], 3);
        let names = rng.some(&["n", "m", "*"], 2);
        let urls = rng.some(&["/a", "/a/b", "/b", "/a*", "/*", "*", "/a/b*"], 2);
        let mut r = rule(&groups, &resources, &verbs, &names);
        if rng.next().is_multiple_of(3) {
            r.non_resource_urls = Some(urls.iter().map(|u| u.to_string()).collect());
        }
        if rng.next().is_multiple_of(4) {
            r.resource_names = Some(Vec::new());
        }
        r
    }

    /// The definition: every atom, looked up in every owner rule.
    fn oracle(owner: &[PolicyRule], servant: &[PolicyRule]) -> Vec<Atom> {
        let mut out: Vec<Atom> =
            servant.iter().flat_map(atoms).filter(|a| !owner.iter().any(|o| rule_covers(o, a))).collect();
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn the_box_arithmetic_agrees_with_atom_by_atom_on_random_rules() {
        let mut rng = Rng(17);
        for case in 0..3000 {
            let owner: Vec<PolicyRule> = (0..rng.next() % 5).map(|_| random_rule(&mut rng)).collect();
            let servant: Vec<PolicyRule> = (0..rng.next() % 3 + 1).map(|_| random_rule(&mut rng)).collect();
            let expected = oracle(&owner, &servant);
            assert_eq!(uncovered(&owner, &servant), expected, "case {case}: {owner:?} / {servant:?}");
            assert_eq!(covers(&owner, &servant), expected.is_empty(), "case {case}");
            let indexed = Owners::new(&owner);
            for s in &servant {
                let rules = uncovered_rules(&owner, s);
                let mut reported: Vec<Atom> = rules.iter().flat_map(atoms).collect();
                reported.sort();
                assert_eq!(
                    reported.len(),
                    {
                        reported.dedup();
                        reported.len()
                    },
                    "case {case}: rows overlap"
                );
                assert_eq!(reported, oracle(&owner, std::slice::from_ref(s)), "case {case}: {rules:?}");
                assert_eq!(indexed.uncovered_rules(s), rules, "case {case}: the index changes nothing");
                assert_eq!(indexed.covers(s), rules.is_empty(), "case {case}");
            }
        }
    }

    #[test]
    fn switched_off_owners_do_not_count() {
        let owner = [rule(&["g"], &["a"], &["get"], &[]), rule(&["*"], &["*"], &["*"], &[])];
        let mut indexed = Owners::new(&owner);
        let servant = rule(&["g"], &["a"], &["get"], &[]);
        indexed.switch(1, false);
        assert!(indexed.covers(&servant));
        indexed.switch(0, false);
        assert!(!indexed.covers(&servant));
        indexed.switch(1, true);
        assert!(indexed.covers(&servant));
    }

    fn values(prefix: &str, n: usize) -> Vec<String> {
        (0..n).map(|i| format!("{prefix}{i}-{}", "x".repeat(40))).collect()
    }

    fn strs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }

    /// A rule of 300 groups, resources and names and 8 verbs grants 216
    /// million atoms; half its groups allowed leaves a single box.
    #[test]
    fn a_huge_rule_half_allowed_leaves_one_row() {
        let (groups, resources, names) = (values("g", 300), values("r", 300), values("n", 300));
        let verbs = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];
        let servant = rule(&strs(&groups), &strs(&resources), &verbs, &strs(&names));
        let owner = [rule(&strs(&groups[..150]), &["*"], &["*"], &[])];
        let missing = uncovered_rules(&owner, &servant);
        assert_eq!(missing.len(), 1, "one row");
        let mut rest = groups[150..].to_vec();
        rest.sort();
        assert_eq!(missing[0].api_groups.as_deref(), Some(rest.as_slice()));
        assert_eq!(missing[0].resources.as_ref().map(Vec::len), Some(300));
        assert_eq!(missing[0].resource_names.as_ref().map(Vec::len), Some(300));
        assert_eq!(missing[0].verbs, verbs);
        assert!(!covers(&owner, std::slice::from_ref(&servant)));
        assert!(covers(&[rule(&["*"], &["*"], &["*"], &[])], &[servant]));
    }

    /// One owner rule per group and resource, each allowing one name: what
    /// is missing is reported per group and resource pair at most, never per atom.
    #[test]
    fn many_owner_rules_leave_rows_bounded_by_the_rules() {
        let (groups, resources, names) = (values("g", 40), values("r", 40), values("n", 40));
        let servant = rule(&strs(&groups), &strs(&resources), &["get", "list"], &strs(&names));
        let owner: Vec<PolicyRule> = groups
            .iter()
            .zip(&resources)
            .zip(&names)
            .map(|((g, r), n)| rule(&[g.as_str()], &[r.as_str()], &["get", "list"], &[n.as_str()]))
            .collect();
        let missing = uncovered_rules(&owner, &servant);
        assert!(missing.len() <= 3 * owner.len() + 1, "{} rows for {} owner rules", missing.len(), owner.len());
        let atoms_reported: usize = missing
            .iter()
            .map(|r| {
                let n = |v: &Option<Vec<String>>| v.as_ref().map_or(1, Vec::len);
                n(&r.api_groups) * n(&r.resources) * n(&r.resource_names) * r.verbs.len()
            })
            .sum();
        assert_eq!(atoms_reported, 40 * 40 * 40 * 2 - 40 * 2, "every missing atom once, no covered one");
        let mut all = owner.clone();
        all.push(rule(&strs(&groups), &strs(&resources), &["get", "list"], &[]));
        assert!(covers(&all, &[servant]));
    }

    /// Thousands of rules measured against thousands: the index keeps each
    /// measure to the owners that share a group.
    #[test]
    fn many_rules_against_many_owners() {
        let groups = values("g", 2000);
        let owner: Vec<PolicyRule> = groups.iter().map(|g| rule(&[g.as_str()], &["*"], &["get"], &[])).collect();
        let indexed = Owners::new(&owner);
        for (i, g) in groups.iter().enumerate() {
            let servant = rule(&[g.as_str()], &["pods", "secrets"], &["get", "list"], &[]);
            let missing = indexed.uncovered_rules(&servant);
            assert_eq!(missing, [rule(&[g.as_str()], &["pods", "secrets"], &["list"], &[])], "rule {i}");
        }
        let servant: Vec<PolicyRule> = groups.iter().map(|g| rule(&[g.as_str()], &["pods"], &["get"], &[])).collect();
        assert!(covers(&owner, &servant));
    }

    #[test]
    fn long_urls_and_prefixes() {
        let urls: Vec<String> = (0..500).map(|i| format!("/{}/{i}", "p".repeat(200))).collect();
        let servant = PolicyRule { non_resource_urls: Some(urls.clone()), ..urls_rule(&["get", "post"]) };
        let owner =
            [PolicyRule { non_resource_urls: Some(vec![format!("/{}/1*", "p".repeat(200))]), ..urls_rule(&["*"]) }];
        let missing = uncovered_rules(&owner, &servant);
        assert_eq!(missing.len(), 1);
        let left = missing[0].non_resource_urls.as_ref().map_or(0, Vec::len);
        assert_eq!(left, 500 - 111, "/1, /10-/19 and /100-/199 are covered");
        assert_eq!(missing[0].verbs, ["get", "post"]);
    }

    fn urls_rule(verbs: &[&str]) -> PolicyRule {
        PolicyRule { verbs: verbs.iter().map(|v| v.to_string()).collect(), ..Default::default() }
    }

    #[test]
    fn rules_overlap_when_they_share_one_permission() {
        let secrets_get = rule(&[""], &["secrets"], &["get"], &[]);
        assert!(overlaps(&rule(&["*"], &["*"], &["*"], &[]), &secrets_get), "everything meets everything");
        assert!(overlaps(&secrets_get, &rule(&[""], &["secrets"], &["get", "list"], &["one"])), "a name of all");
        assert!(!overlaps(&secrets_get, &rule(&[""], &["secrets"], &["list"], &[])), "other verb");
        assert!(!overlaps(&secrets_get, &rule(&["apps"], &["secrets"], &["get"], &[])), "other group");
        assert!(!overlaps(&secrets_get, &rule(&[""], &["configmaps"], &["get"], &[])), "other resource");
        let named = |n: &str| rule(&[""], &["secrets"], &["get"], &[n]);
        assert!(!overlaps(&named("a"), &named("b")) && overlaps(&named("a"), &named("a")));
        // `*` is every resource, subresources included; `*/x` only that subresource.
        let exec = rule(&[""], &["pods/exec"], &["create"], &[]);
        assert!(overlaps(&rule(&[""], &["*"], &["create"], &[]), &exec));
        assert!(overlaps(&rule(&[""], &["*/exec"], &["create"], &[]), &exec));
        assert!(!overlaps(&rule(&[""], &["pods"], &["create"], &[]), &exec), "pods is not pods/exec");
        assert!(!overlaps(&rule(&[""], &["*/log"], &["create"], &[]), &exec));
        assert!(overlaps(&rule(&[""], &["*/exec"], &["*"], &[]), &rule(&[""], &["*/exec"], &["create"], &[])));
    }

    #[test]
    fn urls_overlap_by_prefix_from_either_side() {
        assert!(overlaps(&urls(&["/logs/*"], &["get"]), &urls(&["/logs/a"], &["get"])));
        assert!(overlaps(&urls(&["/logs/a"], &["*"]), &urls(&["/logs*"], &["get"])));
        assert!(overlaps(&urls(&["/lo*"], &["get"]), &urls(&["/logs/*"], &["get"])), "two prefixes meet");
        assert!(!overlaps(&urls(&["/metrics"], &["get"]), &urls(&["/healthz"], &["get"])));
        assert!(!overlaps(&urls(&["*"], &["get"]), &rule(&["*"], &["*"], &["get"], &[])), "URLs never meet resources");
    }
}
