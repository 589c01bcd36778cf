//! The installer's needs as the fewest rules that cover them, per place.

use std::collections::{BTreeMap, HashMap, HashSet};

use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::access::cover::Owners;

use crate::plan::installer::needs::{Need, Place};

/// The needs as the fewest rules that cover them, per place: rules with the
/// same groups, resources and names merged, then every rule that the others
/// (and, in a namespace, the cluster-wide ones) already cover dropped. Each
/// rule left is needed: removing it leaves some need uncovered.
///
/// The bundle writes the needs, so the cost stays near-linear in them: rules
/// are merged through a map, and each coverage check looks only at the rules
/// that share an API group or resource with the one checked ([`Owners`]).
pub(crate) fn minimised(needs: &[Need]) -> BTreeMap<Place, Vec<PolicyRule>> {
    type Same<'a> =
        (&'a Option<Vec<String>>, &'a Option<Vec<String>>, &'a Option<Vec<String>>, &'a Option<Vec<String>>);
    let mut places: BTreeMap<Place, Vec<(PolicyRule, HashSet<&str>)>> = BTreeMap::new();
    let mut at: HashMap<(&Place, Same), usize> = HashMap::new();
    for n in needs {
        let r = &n.rule;
        let rules = places.entry(n.place.clone()).or_default();
        let key = (&n.place, (&r.api_groups, &r.resources, &r.resource_names, &r.non_resource_urls));
        let i = *at.entry(key).or_insert_with(|| {
            rules.push((PolicyRule { verbs: Vec::new(), ..r.clone() }, HashSet::new()));
            rules.len() - 1
        });
        let (merged, seen) = &mut rules[i];
        for v in &r.verbs {
            if seen.insert(v) {
                merged.verbs.push(v.clone());
            }
        }
    }
    let mut places: BTreeMap<Place, Vec<PolicyRule>> =
        places.into_iter().map(|(place, rules)| (place, rules.into_iter().map(|(r, _)| r).collect())).collect();
    let cluster = drop_covered(places.remove(&Place::Cluster).unwrap_or_default(), &[]);
    let mut out: BTreeMap<Place, Vec<PolicyRule>> = places
        .into_iter()
        .map(|(place, rules)| (place, drop_covered(rules, &cluster)))
        .filter(|(_, rules)| !rules.is_empty())
        .collect();
    if !cluster.is_empty() {
        out.insert(Place::Cluster, cluster);
    }
    out
}

/// `rules` without those covered by `also`, the rules kept before them and
/// the rules after them. A rule dropped is covered by what is kept: a later
/// rule it relied on is itself dropped only when the rest covers it.
fn drop_covered(rules: Vec<PolicyRule>, also: &[PolicyRule]) -> Vec<PolicyRule> {
    let mut owners = Owners::new(also.iter().chain(&rules));
    let mut dropped = vec![false; rules.len()];
    for (i, r) in rules.iter().enumerate() {
        // The others: `also`, the rules kept so far and every later rule.
        owners.switch(also.len() + i, false);
        dropped[i] = owners.covers(r);
        owners.switch(also.len() + i, !dropped[i]);
    }
    rules.into_iter().zip(dropped).filter(|(_, d)| !d).map(|(r, _)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::policy_rule as rule;

    fn need(ns: Option<&str>, resources: &[&str], verbs: &[&str]) -> Need {
        Need {
            place: ns.map_or(Place::Cluster, |ns| Place::Namespace(ns.into())),
            rule: rule(&[""], resources, verbs, &[]),
            why: String::new(),
            to_grant: false,
        }
    }

    #[test]
    fn minimised_keeps_one_of_equal_rules_and_drops_what_cluster_rules_cover() {
        let needs = [
            need(None, &["pods"], &["get"]),
            need(None, &["pods"], &["get"]),
            need(None, &["pods", "services"], &["get"]),
            need(Some("a"), &["pods"], &["get", "list"]),
            need(Some("a"), &["services"], &["get"]),
        ];
        let m = minimised(&needs);
        assert_eq!(
            m[&Place::Cluster],
            vec![rule(&[""], &["pods", "services"], &["get"], &[])],
            "the broader rule covers both"
        );
        assert_eq!(
            m[&Place::Namespace("a".into())],
            vec![rule(&[""], &["pods"], &["get", "list"], &[])],
            "services get is cluster-wide"
        );
        let twins = minimised(&[need(None, &["pods"], &["get"]), need(None, &["pods"], &["get", "get"])]);
        assert_eq!(twins[&Place::Cluster].len(), 1, "two rules granting the same keep one: {twins:?}");
    }
}
