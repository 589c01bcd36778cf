//! The shapes of a rule being measured: its resource permissions (groups,
//! resources, names, verbs) and its non-resource ones (URLs, verbs), each as
//! axes of its own values; what an owner rule covers of it, axis by axis; and
//! a box of it written back as a rule.

use std::collections::HashMap;

use k8s_openapi::api::rbac::v1::PolicyRule;

use super::boxes::{Axis, Cell, Sel, Set};
use crate::access::matches::{or_empty, sort_for_reading, ALL};

/// The resource permissions of a rule being measured: groups, resources,
/// names (one empty value standing for "any object" when it names none)
/// and verbs.
pub(super) struct ResourceShape<'a> {
    groups: Axis<'a>,
    resources: Axis<'a>,
    names: Axis<'a>,
    named: bool,
    verbs: Axis<'a>,
    /// The resources with a subresource, by subresource: what `*/sub` covers.
    by_sub: HashMap<&'a str, Vec<u32>>,
}

pub(super) const GROUPS: usize = 0;
pub(super) const RESOURCES: usize = 1;
pub(super) const NAMES: usize = 2;
pub(super) const VERBS: usize = 3;

impl<'a> ResourceShape<'a> {
    pub(super) fn new(rule: &'a PolicyRule) -> ResourceShape<'a> {
        let names = or_empty(&rule.resource_names);
        let resources = Axis::new(or_empty(&rule.resources).iter().map(String::as_str));
        let mut by_sub: HashMap<&str, Vec<u32>> = HashMap::new();
        for (i, r) in resources.values.iter().enumerate() {
            if let Some((_, sub)) = r.split_once('/') {
                by_sub.entry(sub).or_default().push(i as u32);
            }
        }
        ResourceShape {
            groups: Axis::new(or_empty(&rule.api_groups).iter().map(String::as_str)),
            resources,
            named: !names.is_empty(),
            names: if names.is_empty() { Axis::new([""]) } else { Axis::new(names.iter().map(String::as_str)) },
            verbs: Axis::new(rule.verbs.iter().map(String::as_str)),
            by_sub,
        }
    }

    pub(super) fn whole(&self) -> Cell<4> {
        [self.groups.all(), self.resources.all(), self.names.all(), self.verbs.all()]
    }

    /// What `owner` covers of this shape, axis by axis; `None` if nothing.
    pub(super) fn select(&self, owner: &PolicyRule) -> Option<[Sel; 4]> {
        let groups = self.groups.select(or_empty(&owner.api_groups));
        if groups.is_empty() {
            return None;
        }
        let verbs = self.verbs.select(&owner.verbs);
        if verbs.is_empty() {
            return None;
        }
        let owned = or_empty(&owner.resources);
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
        let owned = or_empty(&owner.resource_names);
        let names = match (owned.is_empty(), self.named) {
            (true, _) => Sel::All,
            (false, true) => Sel::of(owned.iter().filter_map(|n| self.names.find(n)).collect()),
            (false, false) => return None,
        };
        (!names.is_empty()).then_some([groups, resources, names, verbs])
    }

    pub(super) fn rule(&self, cell: &Cell<4>) -> PolicyRule {
        let strings = |axis: &Axis, set: &Set| set.iter().map(|&p| axis.values[p as usize].to_string()).collect();
        PolicyRule {
            api_groups: Some(strings(&self.groups, &cell[GROUPS])),
            resources: Some(strings(&self.resources, &cell[RESOURCES])),
            resource_names: self.named.then(|| strings(&self.names, &cell[NAMES])),
            verbs: in_reading_order(strings(&self.verbs, &cell[VERBS])),
            ..Default::default()
        }
    }
}

/// The non-resource permissions of a rule being measured: URLs and verbs.
pub(super) struct UrlShape<'a> {
    urls: Axis<'a>,
    verbs: Axis<'a>,
}

impl<'a> UrlShape<'a> {
    pub(super) fn new(rule: &'a PolicyRule) -> UrlShape<'a> {
        UrlShape {
            urls: Axis::new(or_empty(&rule.non_resource_urls).iter().map(String::as_str)),
            verbs: Axis::new(rule.verbs.iter().map(String::as_str)),
        }
    }

    pub(super) fn whole(&self) -> Cell<2> {
        [self.urls.all(), self.verbs.all()]
    }

    /// What `owner` covers: URLs exactly, or by the prefix before a trailing
    /// `*` (sorted values that share a prefix are contiguous).
    pub(super) fn select(&self, owner: &PolicyRule) -> Option<[Sel; 2]> {
        let verbs = self.verbs.select(&owner.verbs);
        if verbs.is_empty() {
            return None;
        }
        let values = &self.urls.values;
        let mut positions = Vec::new();
        let mut everything = false;
        for owned in or_empty(&owner.non_resource_urls) {
            positions.extend(self.urls.find(owned));
            if let Some(prefix) = crate::access::matches::url_prefix(owned) {
                let start = values.partition_point(|u| *u < prefix);
                let len = values[start..].partition_point(|u| u.starts_with(prefix));
                everything |= start == 0 && len == values.len();
                positions.extend(start as u32..(start + len) as u32);
            }
        }
        let urls = if everything { Sel::All } else { Sel::of(positions) };
        (!urls.is_empty()).then_some([urls, verbs])
    }

    pub(super) fn rule(&self, cell: &Cell<2>) -> PolicyRule {
        let strings = |axis: &Axis, set: &Set| set.iter().map(|&p| axis.values[p as usize].to_string()).collect();
        PolicyRule {
            non_resource_urls: Some(strings(&self.urls, &cell[0])),
            verbs: in_reading_order(strings(&self.verbs, &cell[1])),
            ..Default::default()
        }
    }
}

fn in_reading_order(mut verbs: Vec<String>) -> Vec<String> {
    sort_for_reading(&mut verbs);
    verbs
}
