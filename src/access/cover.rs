//! Kubernetes' escalation check, offline: does one set of rules cover every
//! permission another grants?
//!
//! The API server lets a user write a role or binding only if the user already
//! holds everything it grants. It decides that by breaking the new rules into
//! atoms (one API group, one resource, one verb and at most one name, or one
//! non-resource URL and one verb) and looking for an owner rule that covers
//! each atom. This module does the same, so that olm-rbac can tell whether a
//! bundle's role grants anything beyond a level it is measured against.
//!
//! Wildcards in the rules being checked are values like any other: a `*` verb
//! is covered only by an owner rule with the `*` verb, as on a cluster.

use k8s_openapi::api::rbac::v1::PolicyRule;

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
/// groups (or the reverse) grants nothing, as on a cluster.
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

/// Does `owner` grant the permission `atom`?
pub(crate) fn rule_covers(owner: &PolicyRule, atom: &Atom) -> bool {
    let has = |set: &[String], value: &str| set.iter().any(|s| s == value);
    let verb_ok = |verb: &str| has(&owner.verbs, ALL) || has(&owner.verbs, verb);
    match atom {
        Atom::Resource { group, resource, verb, name } => {
            let groups = list(&owner.api_groups);
            let resources = list(&owner.resources);
            let names = list(&owner.resource_names);
            let group_ok = has(groups, ALL) || has(groups, group);
            // `*` covers every resource; `*/sub` covers that subresource of any resource.
            let resource_ok = has(resources, ALL)
                || has(resources, resource)
                || resource.split_once('/').is_some_and(|(_, sub)| has(resources, &format!("*/{sub}")));
            let name_ok = names.is_empty() || name.as_ref().is_some_and(|n| has(names, n));
            verb_ok(verb) && group_ok && resource_ok && name_ok
        }
        Atom::Url { url, verb } => {
            let url_ok = list(&owner.non_resource_urls)
                .iter()
                .any(|owned| owned == url || owned.strip_suffix('*').is_some_and(|prefix| url.starts_with(prefix)));
            verb_ok(verb) && url_ok
        }
    }
}

/// The permissions `servant` grants that no rule of `owner` covers, each once,
/// in a stable order. Empty means `owner` covers `servant` entirely.
pub(crate) fn uncovered(owner: &[PolicyRule], servant: &[PolicyRule]) -> Vec<Atom> {
    let mut missing: Vec<Atom> =
        servant.iter().flat_map(atoms).filter(|atom| !owner.iter().any(|o| rule_covers(o, atom))).collect();
    missing.sort();
    missing.dedup();
    missing
}

/// Does `owner` cover everything `servant` grants?
pub fn covers(owner: &[PolicyRule], servant: &[PolicyRule]) -> bool {
    servant.iter().flat_map(atoms).all(|atom| owner.iter().any(|o| rule_covers(o, &atom)))
}

/// Atoms as few rules as read well: one per group, resource and name (or
/// URL), with its verbs in the order kubectl users read them.
fn as_rules(atoms: &[Atom]) -> Vec<PolicyRule> {
    let mut rules: Vec<PolicyRule> = Vec::new();
    for atom in atoms {
        let rule = atom.to_rule();
        match rules.iter_mut().find(|r| PolicyRule { verbs: rule.verbs.clone(), ..(*r).clone() } == rule) {
            Some(r) => r.verbs.extend(rule.verbs),
            None => rules.push(rule),
        }
    }
    let rank = |v: &String| crate::model::VERBS.iter().position(|o| o == v).unwrap_or(crate::model::VERBS.len());
    for r in &mut rules {
        r.verbs.sort_by_key(|v| (rank(v), v.clone()));
        r.verbs.dedup();
    }
    rules
}

/// What `servant` grants beyond `owner`, as few rules as read well.
pub(crate) fn uncovered_rules(owner: &[PolicyRule], servant: &PolicyRule) -> Vec<PolicyRule> {
    as_rules(&uncovered(owner, std::slice::from_ref(servant)))
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
