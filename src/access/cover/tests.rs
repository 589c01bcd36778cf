//! Hand-written cases of the API server's escalation rules. The property
//! that holds the box arithmetic to the authorizer on random rules is in
//! `tests/suite/property.rs`, with the suite's one random generator.

use super::*;

use crate::model::policy_rule as rule;

/// The permissions `servant` grants that no rule of `owner` covers, each once,
/// in a stable order: the atoms of [`uncovered_rules`], rule by rule.
fn uncovered(owner: &[PolicyRule], servant: &[PolicyRule]) -> Vec<Atom> {
    let mut missing: Vec<Atom> =
        servant.iter().flat_map(|s| uncovered_rules(owner, s)).flat_map(|r| atoms(&r)).collect();
    missing.sort();
    missing.dedup();
    missing
}

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
    let mixed =
        PolicyRule { non_resource_urls: Some(vec!["/metrics".into()]), ..rule(&["g.io"], &["foos"], &["get"], &[]) };
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
    let servant = [rule(&["g.io"], &["foos"], &["get", "delete"], &[]), rule(&["g.io"], &["foos"], &["delete"], &[])];
    let missing = uncovered(&owner, &servant);
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0].to_rule(), rule(&["g.io"], &["foos"], &["delete"], &[]));
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
    let owner = [PolicyRule { non_resource_urls: Some(vec![format!("/{}/1*", "p".repeat(200))]), ..urls_rule(&["*"]) }];
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
