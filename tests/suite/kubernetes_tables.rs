//! Kubernetes' own test tables, as data, run through our evaluator: the RBAC
//! authorizer's (`plugin/pkg/auth/authorizer/rbac/rbac_test.go`: which
//! requests a rule allows), the escalation check's
//! (`staging/src/k8s.io/component-helpers/auth/rbac/validation/policy_comparator_test.go`:
//! which rules cover which) and the rule resolver's
//! (`pkg/registry/rbac/validation/rule_test.go`: which subjects a binding
//! applies to) and the subject locator's
//! (`plugin/pkg/auth/authorizer/rbac/subject_locator_test.go`: who may make a
//! request, `who-can`). The cases are Kubernetes'; the code is ours. Where a case
//! needs our wording (a request is `Policy::can` on a one-role policy, a
//! non-resource request is a one-URL rule for `cover::covers`), the comment
//! says so.
//!
//! Also here: the embedded bootstrap policy (`data/kubernetes-v1.33/`) is the
//! bytes its `SOURCES.md` names and parses, its aggregation comes out as on
//! a cluster, and a property ties `covers` to `can`.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};
use olm_rbac::access::cover::{atoms, covers, Atom};
use olm_rbac::access::{builtin, BindingDef, Identity, Policy, Request, RoleDef, RoleRefKind};
use olm_rbac::check::load;
use olm_rbac::input::Source;

use crate::common::{repo, request_for, run_bin, text};
use crate::property::Rng;

// ---------------------------------------------------------------------------
// Building blocks.

fn strings(csv: &str) -> Vec<String> {
    csv.split(',').map(String::from).collect()
}

/// Kubernetes' `newRule(verbs, apiGroups, resources, nonResourceURLs)`: each
/// a comma-separated list (an empty string is the list `[""]`).
fn k8s_rule(verbs: &str, groups: &str, resources: &str, urls: &str) -> PolicyRule {
    PolicyRule {
        verbs: strings(verbs),
        api_groups: Some(strings(groups)),
        resources: Some(strings(resources)),
        non_resource_urls: Some(strings(urls)),
        resource_names: None,
    }
}

/// A resource rule; an empty list stays empty.
fn rule(groups: &[&str], resources: &[&str], verbs: &[&str], names: &[&str]) -> PolicyRule {
    let list = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    PolicyRule {
        api_groups: list(groups),
        resources: list(resources),
        verbs: verbs.iter().map(|s| s.to_string()).collect(),
        resource_names: if names.is_empty() { None } else { list(names) },
        non_resource_urls: None,
    }
}

fn url_rule(urls: &[&str], verbs: &[&str]) -> PolicyRule {
    PolicyRule {
        non_resource_urls: Some(urls.iter().map(|s| s.to_string()).collect()),
        verbs: verbs.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

/// `Kind:name` (Kubernetes' test notation); a ServiceAccount as `ServiceAccount:ns:name`.
fn subject(text: &str) -> Subject {
    let (kind, rest) = text.split_once(':').unwrap();
    let (namespace, name) = match kind {
        "ServiceAccount" => match rest.split_once(':') {
            Some((ns, name)) => (Some(ns.to_string()), name.to_string()),
            None => (None, rest.to_string()),
        },
        _ => (None, rest.to_string()),
    };
    let api_group = (kind != "ServiceAccount").then(|| "rbac.authorization.k8s.io".to_string());
    Subject { kind: kind.into(), name, namespace, api_group }
}

fn cluster_role(name: &str, rules: Vec<PolicyRule>) -> RoleDef {
    RoleDef { name: name.into(), rules: rules.into(), ..Default::default() }
}

/// A binding to a ClusterRole: a RoleBinding in `namespace`, else a ClusterRoleBinding.
fn binding(namespace: Option<&str>, role: &str, subjects: &[&str]) -> BindingDef {
    BindingDef {
        name: format!("{role}-binding"),
        namespace: namespace.map(String::from),
        role_kind: Some(RoleRefKind::ClusterRole),
        role_name: role.into(),
        subjects: subjects.iter().map(|s| subject(s)).collect(),
        labels: BTreeMap::new(),
        builtin: false,
        source: None,
    }
}

/// A policy of the given ClusterRoles and bindings only: no bootstrap policy.
fn policy(roles: Vec<RoleDef>, bindings: Vec<BindingDef>) -> Policy {
    Policy { cluster_roles: roles.into_iter().map(|r| (r.name.clone(), r)).collect(), bindings, ..Default::default() }
}

/// A user with exactly these groups (Kubernetes' tests add none).
fn who(user: &str, groups: &str) -> Identity {
    Identity { user: user.into(), groups: groups.split(',').filter(|g| !g.is_empty()).map(String::from).collect() }
}

/// Kubernetes' `defaultAttributes{user, groups, verb, resource, subresource, namespace, apiGroup}`.
type Attributes = (&'static str, &'static str, &'static str, &'static str, &'static str, &'static str, &'static str);

fn request(verb: &str, group: &str, resource: &str, subresource: &str, namespace: &str) -> Request {
    Request {
        verb: verb.into(),
        group: group.into(),
        resource: resource.into(),
        subresource: (!subresource.is_empty()).then(|| subresource.to_string()),
        name: None,
        namespace: (!namespace.is_empty()).then(|| namespace.to_string()),
    }
}

#[track_caller]
fn assert_authorizes(p: &Policy, pass: &[Attributes], fail: &[Attributes], case: &str) {
    for (expected, list) in [(true, pass), (false, fail)] {
        for &(user, groups, verb, resource, sub, ns, group) in list {
            let allowed = p.can(&who(user, groups), &request(verb, group, resource, sub, ns)).is_some();
            assert_eq!(allowed, expected, "{case}: {user} ({groups}) {verb} {group}/{resource}/{sub} in {ns:?}");
        }
    }
}

// ---------------------------------------------------------------------------
// rbac_test.go: TestAuthorizer.

#[test]
fn authorizer_a_rolebinding_to_a_clusterrole_grants_in_its_namespace_only() {
    let p = policy(
        vec![cluster_role("admin", vec![k8s_rule("*", "*", "*", "*")])],
        vec![binding(Some("ns1"), "admin", &["User:admin", "Group:admins"])],
    );
    let pass: &[Attributes] = &[
        ("admin", "", "get", "Pods", "", "ns1", ""),
        ("admin", "", "watch", "Pods", "", "ns1", ""),
        ("admin", "group1", "watch", "Foobar", "", "ns1", ""),
        ("joe", "admins", "watch", "Foobar", "", "ns1", ""),
        ("joe", "group1,admins", "watch", "Foobar", "", "ns1", ""),
    ];
    let fail: &[Attributes] = &[
        ("admin", "", "GET", "Pods", "", "ns2", ""),
        ("admin", "", "GET", "Nodes", "", "", ""),
        ("admin", "admins", "GET", "Pods", "", "ns2", ""),
        ("admin", "admins", "GET", "Nodes", "", "", ""),
    ];
    assert_authorizes(&p, pass, fail, "namespaced admin");
}

#[test]
fn authorizer_a_resource_does_not_match_its_subresources_nor_the_reverse() {
    let pods = policy(
        vec![cluster_role("admin", vec![k8s_rule("*", "*", "pods", "*")])],
        vec![binding(Some("ns1"), "admin", &["User:admin", "Group:admins"])],
    );
    assert_authorizes(
        &pods,
        &[("admin", "", "get", "pods", "", "ns1", "")],
        &[("admin", "", "get", "pods", "status", "ns1", "")],
        "pods",
    );
    let status = policy(
        vec![cluster_role("admin", vec![k8s_rule("*", "*", "pods/status", "*")])],
        vec![binding(Some("ns1"), "admin", &["User:admin", "Group:admins"])],
    );
    assert_authorizes(
        &status,
        &[("admin", "", "get", "pods", "status", "ns1", "")],
        &[("admin", "", "get", "pods", "", "ns1", "")],
        "pods/status",
    );
}

/// Our `Request` has no non-resource path: a non-resource request is the
/// one-URL, one-verb rule it asks for, covered (or not) by the subject's rules.
fn may_get_url(p: &Policy, user: &str, groups: &[&str], verb: &str, path: &str) -> bool {
    let bound = |b: &BindingDef| {
        b.namespace.is_none()
            && b.subjects.iter().any(|s| {
                (s.kind == "User" && s.name == user) || (s.kind == "Group" && groups.contains(&s.name.as_str()))
            })
    };
    let rules: Vec<PolicyRule> = p
        .bindings
        .iter()
        .filter(|b| bound(b))
        .filter_map(|b| p.cluster_roles.get(&b.role_name))
        .flat_map(|r| p.effective_rules(r).into_iter().map(|(_, rule)| rule))
        .collect();
    covers(&rules, &[url_rule(&[path], &[verb])])
}

#[test]
fn authorizer_non_resource_urls_match_exactly_or_by_a_trailing_star() {
    let p = policy(
        vec![
            cluster_role("non-resource-url-getter", vec![k8s_rule("get", "", "", "/apis")]),
            cluster_role("non-resource-url", vec![k8s_rule("*", "", "", "/apis")]),
            cluster_role("non-resource-url-prefix", vec![k8s_rule("get", "", "", "/apis/*")]),
        ],
        vec![
            binding(None, "non-resource-url-getter", &["User:foo", "Group:bar"]),
            binding(None, "non-resource-url", &["User:admin", "Group:admin"]),
            binding(None, "non-resource-url-prefix", &["User:prefixed", "Group:prefixed"]),
        ],
    );
    // (user, groups, verb, path)
    let pass: &[(&str, &[&str], &str, &str)] = &[
        ("foo", &[], "get", "/apis"),
        ("", &["bar"], "get", "/apis"),
        ("admin", &[], "get", "/apis"),
        ("", &["admin"], "get", "/apis"),
        ("admin", &[], "watch", "/apis"),
        ("", &["admin"], "watch", "/apis"),
        ("prefixed", &[], "get", "/apis/v1"),
        ("", &["prefixed"], "get", "/apis/v1"),
        ("prefixed", &[], "get", "/apis/v1/foobar"),
        ("", &["prefixed"], "get", "/apis/v1/foorbar"),
    ];
    let fail: &[(&str, &[&str], &str, &str)] = &[
        ("foo", &[], "watch", "/apis"),
        ("", &["bar"], "watch", "/apis"),
        ("foo", &[], "get", "/api/v1"),
        ("", &["bar"], "get", "/api/v1"),
        ("admin", &[], "get", "/api/v1"),
        ("", &["admin"], "get", "/api/v1"),
        ("prefixed", &[], "get", "/api/v1"),
        ("", &["prefixed"], "get", "/api/v1"),
    ];
    for (expected, list) in [(true, pass), (false, fail)] {
        for &(user, groups, verb, path) in list {
            assert_eq!(may_get_url(&p, user, groups, verb, path), expected, "{user} {groups:?} {verb} {path}");
        }
    }
}

/// Kubernetes trims every trailing `*` of a non-resource URL pattern
/// (`strings.TrimRight`), in the authorizer (`NonResourceURLMatches`) and in
/// the escalation check (`nonResourceURLCovers`) alike: `/logs**` is the
/// prefix `/logs`, for asking and for covering.
#[test]
fn every_trailing_star_of_a_url_pattern_is_trimmed_as_kubernetes_trims_it() {
    let p = policy(
        vec![cluster_role("logs", vec![k8s_rule("get", "", "", "/logs**")])],
        vec![binding(None, "logs", &["User:u"])],
    );
    assert!(may_get_url(&p, "u", &[], "get", "/logs/kubelet"));
    assert!(may_get_url(&p, "u", &[], "get", "/logsx"));
    assert!(!may_get_url(&p, "u", &[], "get", "/log"));
    let owner = [url_rule(&["/logs**"], &["get"])];
    assert!(covers(&owner, &[url_rule(&["/logs/*"], &["get"])]), "the prefix /logs covers /logs/*");
    assert!(covers(&owner, &[url_rule(&["/logs/kubelet"], &["get"])]));
    assert!(!covers(&owner, &[url_rule(&["/lo*"], &["get"])]));
}

// ---------------------------------------------------------------------------
// rbac_test.go: TestRuleMatches. One rule, bound cluster-wide to one user.

fn allows(rule: &PolicyRule, req: &Request) -> bool {
    let p = policy(vec![cluster_role("r", vec![rule.clone()])], vec![binding(None, "r", &["User:u"])]);
    p.can(&who("u", ""), req).is_some()
}

/// Every combination of two verbs, groups and resources (subresources when
/// `sub` is set): `expected` lists the allowed ones as `verb/group/resource`.
#[track_caller]
fn assert_matches(rule: &PolicyRule, sub: Option<(&str, &str)>, expected: &[&str]) {
    for verb in ["verb1", "verb2"] {
        for group in ["group1", "group2"] {
            for resource in ["resource1", "resource2"] {
                let (subresource, key) = match sub {
                    // Kubernetes' table pairs group2 with subresource2, group1 with subresource1.
                    Some((s1, s2)) => {
                        let s = if group == "group1" || resource == "resource2" { s1 } else { s2 };
                        (s, format!("{verb}/{group}/{resource}/{s}"))
                    }
                    None => ("", format!("{verb}/{group}/{resource}")),
                };
                let req = request(verb, group, resource, subresource, "");
                assert_eq!(allows(rule, &req), expected.contains(&key.as_str()), "{key} by {rule:?}");
            }
        }
    }
}

#[test]
fn rule_matches_stars_and_tuple_expansion() {
    let star_verb = rule(&["group1"], &["resource1"], &["*"], &[]);
    assert_matches(&star_verb, None, &["verb1/group1/resource1", "verb2/group1/resource1"]);
    let star_group = rule(&["*"], &["resource1"], &["verb1"], &[]);
    assert_matches(&star_group, None, &["verb1/group1/resource1", "verb1/group2/resource1"]);
    let star_resource = rule(&["group1"], &["*"], &["verb1"], &[]);
    assert_matches(&star_resource, None, &["verb1/group1/resource1", "verb1/group1/resource2"]);
    let tuples = rule(&["group1", "group2"], &["resource1", "resource2"], &["verb1", "verb2"], &[]);
    let all: Vec<String> = ["verb1", "verb2"]
        .iter()
        .flat_map(|v| ["group1", "group2"].map(|g| ["resource1", "resource2"].map(|r| format!("{v}/{g}/{r}"))))
        .flatten()
        .collect();
    assert_matches(&tuples, None, &all.iter().map(String::as_str).collect::<Vec<_>>());
    let subresource = rule(&["*"], &["resource1/subresource1"], &["*"], &[]);
    assert_matches(
        &subresource,
        Some(("subresource1", "subresource2")),
        &["verb1/group1/resource1/subresource1", "verb2/group1/resource1/subresource1"],
    );
}

#[test]
fn rule_matches_non_resource_urls() {
    // (rule's URLs, rule's verb, [(verb, path, allowed)])
    let paths = ["/foo", "/foo/bar", "/foo/baz", "/foo/bar/one", "/foo/baz/one"];
    let star = url_rule(&["*"], &["verb1"]);
    for path in paths {
        assert!(covers(std::slice::from_ref(&star), &[url_rule(&[path], &["verb1"])]), "* allows {path}");
        assert!(!covers(std::slice::from_ref(&star), &[url_rule(&[path], &["verb2"])]), "* allows only verb1");
    }
    let subpath = url_rule(&["/foo/*"], &["verb1"]);
    let allowed = |p: &str| covers(std::slice::from_ref(&subpath), &[url_rule(&[p], &["verb1"])]);
    assert!(!allowed("/foo"), "/foo/* is not /foo");
    for p in ["/foo/bar", "/foo/baz", "/foo/bar/one", "/foo/baz/one"] {
        assert!(allowed(p), "{p}");
    }
    for p in ["/notfoo", "/notfoo/bar", "/notfoo/baz", "/notfoo/bar/one", "/notfoo/baz/one"] {
        assert!(!allowed(p), "{p}");
    }
    let exact = url_rule(&["/foo", "/foo/bar/one"], &["*"]);
    for verb in ["verb1", "verb2"] {
        for path in paths {
            let expected = path == "/foo" || path == "/foo/bar/one";
            assert_eq!(covers(std::slice::from_ref(&exact), &[url_rule(&[path], &[verb])]), expected, "{verb} {path}");
        }
    }
}

// ---------------------------------------------------------------------------
// policy_comparator_test.go: Covers, and the uncovered rules it reports.

/// The servant's atoms no owner rule covers, as one-atom rules (Kubernetes'
/// "uncovered rules").
fn uncovered(owner: &[PolicyRule], servant: &[PolicyRule]) -> BTreeSet<String> {
    servant
        .iter()
        .flat_map(atoms)
        .filter(|a| !covers(owner, &[a.to_rule()]))
        .map(|a| format!("{:?}", a.to_rule()))
        .collect()
}

#[track_caller]
fn assert_covers(owner: &[PolicyRule], servant: &[PolicyRule], expected: bool, expected_uncovered: &[PolicyRule]) {
    assert_eq!(covers(owner, servant), expected, "covers({owner:?}, {servant:?})");
    let want: BTreeSet<String> = expected_uncovered.iter().map(|r| format!("{r:?}")).collect();
    assert_eq!(uncovered(owner, servant), want);
}

fn v1(verbs: &[&str], resources: &[&str]) -> PolicyRule {
    rule(&["v1"], resources, verbs, &[])
}

#[test]
fn covers_resources_verbs_and_groups() {
    // TestCoversExactMatch
    assert_covers(&[v1(&["get"], &["builds"])], &[v1(&["get"], &["builds"])], true, &[]);
    // TestCoversSubresourceWildcard
    assert_covers(&[v1(&["get"], &["*/scale"])], &[v1(&["get"], &["foo/scale"])], true, &[]);
    // TestCoversMultipleRulesCoveringSingleRule
    let owner =
        [v1(&["delete"], &["deployments"]), v1(&["delete"], &["builds"]), v1(&["update"], &["builds", "deployments"])];
    assert_covers(&owner, &[v1(&["delete", "update"], &["builds", "deployments"])], true, &[]);
    // TestCoversMultipleAPIGroupsCoveringSingleRule and TestCoversSingleAPIGroupsCoveringMultiple
    let g = |group: &str, verbs: &[&str], resources: &[&str]| rule(&[group], resources, verbs, &[]);
    let split = [
        g("group1", &["delete"], &["deployments"]),
        g("group1", &["delete"], &["builds"]),
        g("group1", &["update"], &["builds", "deployments"]),
        g("group2", &["delete"], &["deployments"]),
        g("group2", &["delete"], &["builds"]),
        g("group2", &["update"], &["builds", "deployments"]),
    ];
    let joined = [rule(&["group1", "group2"], &["builds", "deployments"], &["delete", "update"], &[])];
    assert_covers(&split, &joined, true, &[]);
    assert_covers(&joined, &split, true, &[]);
    // TestCoversMultipleRulesMissingSingleVerbResourceCombination
    let owner = [v1(&["delete", "update"], &["builds", "deployments"]), v1(&["delete"], &["pods"])];
    let servant = [v1(&["delete", "update"], &["builds", "deployments", "pods"])];
    assert_covers(&owner, &servant, false, &[v1(&["update"], &["pods"])]);
}

#[test]
fn covers_stars_only_by_stars() {
    let roles = |group: &str, verbs: &[&str]| rule(&[group], &["roles"], verbs, &[]);
    // TestCoversAPIGroupStarCoveringMultiple, …NotCoveringAPIGroupStar, …StarCoveringStar
    assert_covers(&[roles("*", &["get"])], &[rule(&["group1", "group2"], &["roles"], &["get"], &[])], true, &[]);
    assert_covers(&[roles("dummy-group", &["get"])], &[roles("*", &["get"])], false, &[roles("*", &["get"])]);
    assert_covers(&[roles("*", &["get"])], &[roles("*", &["get"])], true, &[]);
    // TestCoversVerbStarCoveringMultiple, …NotCoveringVerbStar, …StarCoveringStar
    assert_covers(&[v1(&["*"], &["roles"])], &[v1(&["watch", "list"], &["roles"])], true, &[]);
    let many = v1(&["get", "list", "watch", "create", "update", "delete", "exec"], &["roles"]);
    assert_covers(&[many], &[v1(&["*"], &["roles"])], false, &[v1(&["*"], &["roles"])]);
    assert_covers(&[v1(&["*"], &["roles"])], &[v1(&["*"], &["roles"])], true, &[]);
    // TestCoversResourceStarCoveringMultiple, …NotCoveringResourceStar, …StarCoveringStar
    assert_covers(&[v1(&["get"], &["*"])], &[v1(&["get"], &["resourcegroup:deployments"])], true, &[]);
    let listed = v1(&["get"], &["roles", "resourcegroup:deployments"]);
    assert_covers(&[listed], &[v1(&["get"], &["*"])], false, &[v1(&["get"], &["*"])]);
    assert_covers(&[v1(&["get"], &["*"])], &[v1(&["get"], &["*"])], true, &[]);
}

#[test]
fn covers_resource_names() {
    // TestCoversResourceNameEmptyCoveringMultiple, …NotCoveringResourceNameEmpty
    let all = rule(&["v1"], &["pods"], &["get"], &[]);
    let named = rule(&["v1"], &["pods"], &["get"], &["foo", "bar"]);
    assert_covers(std::slice::from_ref(&all), std::slice::from_ref(&named), true, &[]);
    assert_covers(&[named], std::slice::from_ref(&all), false, std::slice::from_ref(&all));
}

#[test]
fn covers_non_resource_urls() {
    // TestCoversNonResourceURLs, …URLsStar, …StarAfterPrefixDoesntCover, …StarAfterPrefix
    assert_covers(&[url_rule(&["/apis"], &["*"])], &[url_rule(&["/apis"], &["*"])], true, &[]);
    assert_covers(&[url_rule(&["*"], &["*"])], &[url_rule(&["/apis", "/apis/v1", "/"], &["*"])], true, &[]);
    let prefix = [url_rule(&["/apis/*"], &["*"])];
    assert_covers(&prefix, &[url_rule(&["/apis", "/apis/v1"], &["get"])], false, &[url_rule(&["/apis"], &["get"])]);
    assert_covers(&prefix, &[url_rule(&["/apis/v1/foo", "/apis/v1"], &["get"])], true, &[]);
    // TestCoversNonResourceURLsWithOtherFields, …WithOtherFieldsFailure
    let both = PolicyRule { non_resource_urls: Some(vec!["/apis".into()]), ..v1(&["get"], &["builds"]) };
    assert_covers(std::slice::from_ref(&both), std::slice::from_ref(&both), true, &[]);
    assert_covers(&[v1(&["get"], &["builds"])], &[both], false, &[url_rule(&["/apis"], &["get"])]);
}

#[test]
fn non_resource_url_covers() {
    // TestNonResourceURLCovers: (owner, requested, covered)
    let table = [
        ("*", "", true),
        ("*", "/", true),
        ("*", "/api", true),
        ("/*", "", false),
        ("/*", "/", true),
        ("/*", "/foo", true),
        ("/api", "/api", true),
        ("/apis", "/api", false),
        ("/api/v1", "/api", false),
        ("/api/v1", "/api/v1", true),
        ("/api/*", "/api/v1", true),
        ("/api/*", "/api", false),
        ("/api/*/*", "/api/v1", false),
        ("/*/v1/*", "/api/v1", false),
    ];
    for (owner, requested, expected) in table {
        let got = covers(&[url_rule(&[owner], &["get"])], &[url_rule(&[requested], &["get"])]);
        assert_eq!(got, expected, "{owner:?} covers {requested:?}");
    }
}

// ---------------------------------------------------------------------------
// rule_test.go: TestAppliesTo. A binding of the subjects to a role that reads
// pods applies to the user if the user may read pods there.

/// (subjects, user, groups, namespace, applies, case)
type AppliesTo = (&'static [&'static str], &'static str, &'static str, &'static str, bool, &'static str);

#[test]
fn bindings_apply_to_users_groups_and_service_accounts() {
    let table: &[AppliesTo] = &[
        (&["User:foobar"], "foobar", "", "", true, "single subject that matches username"),
        (&["User:barfoo", "User:foobar"], "foobar", "", "", true, "multiple subjects, one that matches username"),
        (&["User:barfoo", "User:foobar"], "zimzam", "", "", false, "multiple subjects, none that match username"),
        (&["User:barfoo", "Group:foobar"], "zimzam", "foobar", "", true, "multiple subjects, one that match group"),
        (
            &["User:barfoo", "Group:foobar"],
            "zimzam",
            "foobar",
            "namespace1",
            true,
            "multiple subjects, one that match group, should ignore namespace",
        ),
        (
            &["User:barfoo", "Group:foobar", "ServiceAccount:kube-system:default"],
            "system:serviceaccount:kube-system:default",
            "",
            "default",
            true,
            "multiple subjects with a service account that matches",
        ),
        (&["User:*"], "foobar", "", "default", false, "* user subject name doesn't match all users"),
        (
            &["Group:system:authenticated", "Group:system:unauthenticated"],
            "foobar",
            "system:authenticated",
            "default",
            true,
            "binding to all authenticated and unauthenticated subjects matches authenticated user",
        ),
        (
            &["Group:system:authenticated", "Group:system:unauthenticated"],
            "system:anonymous",
            "system:unauthenticated",
            "default",
            true,
            "binding to all authenticated and unauthenticated subjects matches anonymous user",
        ),
        // Kubernetes' appliesTo, beyond its table: a ServiceAccount subject without a
        // namespace takes its RoleBinding's, and in a ClusterRoleBinding matches nobody.
        (
            &["ServiceAccount:bot"],
            "system:serviceaccount:team-a:bot",
            "",
            "team-a",
            true,
            "SA in its RoleBinding's namespace",
        ),
        (&["ServiceAccount:bot"], "system:serviceaccount:team-b:bot", "", "team-a", false, "SA of another namespace"),
        (
            &["ServiceAccount:bot"],
            "system:serviceaccount:team-a:bot",
            "",
            "",
            false,
            "SA without namespace, cluster-wide",
        ),
        (
            &["Group:system:serviceaccounts:team-a"],
            "system:serviceaccount:team-a:bot",
            "system:serviceaccounts:team-a",
            "team-a",
            true,
            "SA group",
        ),
    ];
    for &(subjects, user, groups, namespace, applies, case) in table {
        let ns = (!namespace.is_empty()).then_some(namespace);
        let p = policy(
            vec![cluster_role("reader", vec![rule(&[""], &["pods"], &["get"], &[])])],
            vec![binding(ns, "reader", subjects)],
        );
        // Ask where the binding grants: its namespace, or one of any for a ClusterRoleBinding.
        let req = request("get", "", "pods", "", if namespace.is_empty() { "any" } else { namespace });
        assert_eq!(p.can(&who(user, groups), &req).is_some(), applies, "{case}");
    }
    // Identity::new adds what Kubernetes' authenticators add to a service account.
    let sa = Identity::new("system:serviceaccount:team-a:bot", &[]);
    assert!(sa.groups.contains("system:serviceaccounts:team-a") && sa.groups.contains("system:authenticated"));
}

// ---------------------------------------------------------------------------
// The embedded bootstrap policy.

/// SHA-256 (FIPS 180-4), enough to check the data files without a dependency.
fn sha256(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
        0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
        0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
        0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] =
        [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7].wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [t1.wrapping_add(t2), v[0], v[1], v[2], v[3].wrapping_add(t1), v[4], v[5], v[6]];
        }
        for (x, y) in h.iter_mut().zip(v) {
            *x = x.wrapping_add(y);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

#[test]
fn the_bootstrap_data_is_the_bytes_its_sources_name() {
    assert_eq!(sha256(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    let sources = std::fs::read_to_string(repo("data/kubernetes-v1.33/SOURCES.md")).unwrap();
    for (file, sum) in [
        ("cluster-roles.yaml", "dd2960dd706bd58befc7dc120f5c62a65aacc52ac4f246ed3def63713d88b6f1"),
        ("cluster-role-bindings.yaml", "08dd32300f4ed380af9cde6584378e5c81a75ae27d34fb8913c97fcbd2cd1eaa"),
    ] {
        let bytes = std::fs::read(repo(&format!("data/kubernetes-v1.33/{file}"))).unwrap();
        assert_eq!(sha256(&bytes), sum, "{file} changed: update SOURCES.md with where it comes from");
        assert!(sources.contains(&format!("{sum}  {file}")), "SOURCES.md lists {file}'s sum");
    }
    assert_eq!(builtin::KUBERNETES_VERSION, "1.33");
    let cargo = std::fs::read_to_string(repo("Cargo.toml")).unwrap();
    assert!(cargo.contains("features = [\"v1_33\"]"), "the data's release is k8s-openapi's");
}

/// The kernel reads the bootstrap policy from JSON renderings of the two
/// YAML files (a tenth of the time YAML took at every start): each holds
/// its YAML file's values, read as the input's reader reads YAML, pretty
/// printed. `UPDATE_GOLDEN=1` rewrites them.
#[test]
fn the_bootstrap_data_as_json_holds_the_yaml_files_values() {
    let rendering = |name: &str| {
        let yaml = std::fs::read_to_string(repo(&format!("data/kubernetes-v1.33/{name}.yaml"))).unwrap();
        let values: serde_json::Value = serde_saphyr::from_str(&yaml).unwrap();
        let text = serde_json::to_string_pretty(&values).unwrap() + "\n";
        (repo(&format!("data/kubernetes-v1.33/{name}.json")), text)
    };
    crate::golden::check(["cluster-roles", "cluster-role-bindings"].map(rendering).into());
}

#[test]
fn the_bootstrap_policy_parses_and_marks_everything_built_in() {
    let p = builtin::policy().expect("the embedded bootstrap policy parses");
    assert!(p.cluster_roles.values().all(|r| r.builtin) && p.bindings.iter().all(|b| b.builtin));
    for name in ["admin", "edit", "view", "cluster-admin", "system:basic-user", "system:aggregate-to-edit"] {
        assert!(builtin::is_builtin_role(name), "{name}");
    }
    assert!(!builtin::is_builtin_role("guestbooks.webapp.example.com-admin"));
}

fn load_str(yaml: &str) -> Policy {
    load(&[Source { name: "test.yaml".into(), text: yaml.into() }]).unwrap()
}

fn rolebinding(role: &str, user: &str) -> String {
    format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: {user}, namespace: x}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: {role}}}\nsubjects: [{{kind: User, name: {user}}}]\n"
    )
}

#[test]
fn aggregation_of_the_built_in_roles_comes_out_as_on_a_cluster() {
    let p = load_str(&["admin", "edit", "view"].map(|r| rolebinding(r, r)).join("---\n"));
    let can = |user: &str, verb: &str, group: &str, resource: &str| {
        p.can(&Identity::new(user, &[]), &request(verb, group, resource, "", "x")).is_some()
    };
    // view: read, no secrets; edit: + write, secrets; admin: + roles and bindings.
    assert!(can("view", "get", "", "pods") && !can("view", "create", "", "pods") && !can("view", "get", "", "secrets"));
    assert!(can("edit", "create", "", "pods") && can("edit", "get", "", "secrets") && can("edit", "get", "", "pods"));
    assert!(!can("edit", "create", "rbac.authorization.k8s.io", "rolebindings"));
    assert!(
        can("admin", "create", "rbac.authorization.k8s.io", "rolebindings")
            && can("admin", "delete", "apps", "deployments")
    );
    assert!(can("admin", "get", "", "pods") && !can("admin", "create", "", "nodes"));
    let admin = p.effective_rules(&p.cluster_roles["admin"]);
    let from = |role: &str| admin.iter().filter(|(chain, _)| chain.last().is_some_and(|r| r == role)).count();
    assert_eq!(
        (from("system:aggregate-to-admin"), from("system:aggregate-to-edit"), from("system:aggregate-to-view")),
        (2, 13, 10),
        "admin = aggregate-to-admin + edit (aggregate-to-edit + view (aggregate-to-view))"
    );
    // An input copy of a bootstrap role is reconciled as the API server reconciles
    // it at every start; one annotated autoupdate "false" is kept as written.
    let input = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: edit}\nrules: []\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: system:heapster}\nrules: []\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: system:basic-user, annotations: {rbac.authorization.kubernetes.io/autoupdate: \"false\"}}\nrules: []\n";
    let p = load_str(input);
    assert!(p.cluster_roles["edit"].builtin && !p.cluster_roles["edit"].aggregation.is_empty());
    assert!(p.cluster_roles["system:heapster"].builtin && !p.cluster_roles["system:heapster"].rules.is_empty());
    assert!(!p.cluster_roles["system:basic-user"].builtin && p.cluster_roles["system:basic-user"].rules.is_empty());
}

#[test]
fn who_can_create_pods_lists_edit_and_admin_holders() {
    let input = vec![Source { name: "x.yaml".into(), text: rolebinding("view", "v") }];
    let out = olm_rbac::check::commands::who_can(&input, "create", "pods", Some("x"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("anyone bound to ClusterRole admin")
            && out.stdout.contains("anyone bound to ClusterRole edit")
    );
    assert!(!out.stdout.contains("ClusterRole view") && !out.stdout.contains("User v"), "{}", out.stdout);
    assert!(out.stdout.contains("Group system:masters"), "{}", out.stdout);
}

// ---------------------------------------------------------------------------
// The subject locator's table (`plugin/pkg/auth/authorizer/rbac/subject_locator_test.go`,
// `TestSubjectLocator`): who may make a request, as `who-can --builtin-roles none`
// answers it. Kubernetes' `AllowedSubjects` names the group `system:masters`
// first for every request, whatever the roles and bindings, then the subjects
// of each binding whose role allows it. Where ours is worded otherwise:
// Kubernetes' rules and requests write the resource `Pods` (matched as
// written on both sides), here `pods`; its Role's rule also lists the URL `*`,
// which a Role cannot grant, left out here; its second case runs the authorizer
// with a super-user (`foo`), a setting the API server does not give it (and
// olm-rbac has none), so `foo` is not expected; and `who-can` orders subjects
// by kind and name after `system:masters` (Kubernetes, by binding), so the
// rest is compared as a set.

/// A ClusterRole or Role `name` with one rule (`verbs`, `resources`, in every group).
fn locator_role(kind: &str, namespace: Option<&str>, name: &str, verbs: &str, resources: &str, urls: bool) -> String {
    let namespace = namespace.map(|ns| format!("\n  namespace: {ns}")).unwrap_or_default();
    let urls = if urls { ", nonResourceURLs: [\"*\"]" } else { "" };
    format!("---\napiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: {name}{namespace}\nrules:\n- {{verbs: [\"{verbs}\"], apiGroups: [\"*\"], resources: [\"{resources}\"]{urls}}}\n")
}

/// A binding `name` of the role `role_kind/role` to `subjects` (`Kind:name`).
fn locator_binding(namespace: Option<&str>, name: &str, role_kind: &str, role: &str, subjects: &[&str]) -> String {
    let (kind, namespace) = match namespace {
        Some(ns) => ("RoleBinding", format!("\n  namespace: {ns}")),
        None => ("ClusterRoleBinding", String::new()),
    };
    let subjects: String = subjects
        .iter()
        .map(|s| s.split_once(':').unwrap())
        .map(|(k, n)| format!("- {{kind: {k}, name: {n}, apiGroup: rbac.authorization.k8s.io}}\n"))
        .collect();
    format!("---\napiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: {name}{namespace}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: {role_kind}, name: {role}}}\nsubjects:\n{subjects}")
}

/// `who-can VERB RESOURCE [-n NAMESPACE] --builtin-roles none -o json` of
/// `objects`: the subjects named, each `Kind name`, in order.
fn located(objects: &str, verb: &str, resource: &str, namespace: Option<&str>) -> Vec<String> {
    use olm_rbac::check::commands::{who_can_with, Common, Format, WhoCan};
    let inputs = [Source { name: "rbac.yaml".into(), text: objects.into() }];
    let question = WhoCan { verb, resource, namespace, all_namespaces: false, subresource: None };
    let common = Common { builtin_roles: builtin::BuiltinRoles::None, quiet: true };
    let out = who_can_with(&inputs, &question, Format::Json, common);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let answer: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let holders = answer["holders"].as_array().cloned().unwrap_or_default();
    let subject =
        |h: &serde_json::Value| Some(format!("{} {}", h["subject"]["kind"].as_str()?, h["subject"]["name"].as_str()?));
    holders.iter().filter_map(subject).collect()
}

/// A case: its name, the objects, the verb, resource and namespace asked,
/// and the subjects expected after `system:masters`.
type LocatorCase<'a> = (&'a str, &'a str, &'a str, &'a str, Option<&'a str>, &'a [&'a str]);

#[test]
fn who_can_names_the_subjects_kubernetes_subject_locator_names() {
    let no_super_user = [
        locator_role("ClusterRole", None, "admin", "*", "*", true),
        locator_binding(None, "admin", "ClusterRole", "admin", &["User:super-admin", "Group:super-admins"]),
        locator_binding(Some("ns1"), "admin", "ClusterRole", "admin", &["User:admin", "Group:admins"]),
    ]
    .concat();
    let local_roles = [
        locator_role("ClusterRole", None, "admin", "*", "*", true),
        locator_binding(None, "admin", "ClusterRole", "admin", &["User:super-admin", "Group:super-admins"]),
        locator_role("Role", Some("ns1"), "admin", "get", "pods", false),
        locator_binding(Some("ns1"), "admin", "Role", "admin", &["User:admin", "Group:admins"]),
    ]
    .concat();
    let everyone = ["User super-admin", "Group super-admins", "User admin", "Group admins"].as_slice();
    let cluster_admins = ["User super-admin", "Group super-admins"].as_slice();
    let cases: [LocatorCase; 6] = [
        ("no super user, star matches star", &no_super_user, "get", "pods", Some("ns1"), everyone),
        (
            "no super user: cluster role matches star in namespace",
            &no_super_user,
            "*",
            "pods",
            Some("*"),
            cluster_admins,
        ),
        ("no super user: empty ns", &no_super_user, "*", "pods", None, cluster_admins),
        ("super user, local roles work", &local_roles, "get", "pods", Some("ns1"), everyone),
        ("super user: verb matches correctly", &local_roles, "create", "pods", Some("ns1"), cluster_admins),
        ("super user: binding only works in correct ns", &local_roles, "get", "pods", Some("ns2"), cluster_admins),
    ];
    for (case, objects, verb, resource, namespace, rest) in cases {
        let subjects = located(objects, verb, resource, namespace);
        assert_eq!(subjects.first().map(String::as_str), Some("Group system:masters"), "{case}: {subjects:?}");
        let got: BTreeSet<&str> = subjects[1..].iter().map(String::as_str).collect();
        assert_eq!(subjects.len() - 1, got.len(), "{case}: each subject once: {subjects:?}");
        assert_eq!(got, rest.iter().copied().collect::<BTreeSet<_>>(), "{case}");
    }
    // Not cases of the table, but what `AllowedSubjects` gives by its code:
    // with no binding at all, for a resource or a URL, system:masters alone.
    let nothing = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: ns1}\n";
    for (resource, namespace) in [("pods", Some("ns1")), ("pods", None), ("/healthz", None)] {
        assert_eq!(located(nothing, "get", resource, namespace), ["Group system:masters"], "get {resource}");
    }
}

// ---------------------------------------------------------------------------
// A property: covers agrees with can.

const VERBS: [&str; 4] = ["get", "list", "create", "*"];
const GROUPS: [&str; 3] = ["", "apps", "*"];
const RESOURCES: [&str; 6] = ["pods", "pods/log", "deployments", "*/log", "*", "deployments/scale"];
const NAMES: [&str; 2] = ["a", "b"];
const URLS: [&str; 4] = ["/metrics", "/logs/*", "/logs/a", "*"];

fn some<'a>(rng: &mut Rng, items: &[&'a str], most: usize) -> Vec<&'a str> {
    let mut out: Vec<&str> = (0..1 + rng.below(most)).map(|_| *rng.pick(items)).collect();
    out.sort();
    out.dedup();
    out
}

fn random_rule(rng: &mut Rng) -> PolicyRule {
    if rng.chance(15) {
        return url_rule(&some(rng, &URLS, 2), &some(rng, &VERBS, 2));
    }
    let names = if rng.chance(30) { some(rng, &NAMES, 2) } else { Vec::new() };
    rule(&some(rng, &GROUPS, 2), &some(rng, &RESOURCES, 2), &some(rng, &VERBS, 2), &names)
}

fn random_request(rng: &mut Rng) -> Request {
    let resource = *rng.pick(&["pods", "pods/log", "deployments", "deployments/scale", "secrets/log"]);
    let (resource, sub) = resource.split_once('/').unwrap_or((resource, ""));
    let verb = *rng.pick(&["get", "list", "create", "delete"]);
    let group = *rng.pick(&["", "apps"]);
    let mut req = request(verb, group, resource, sub, "");
    req.name = rng.chance(50).then(|| rng.pick(&NAMES).to_string());
    req
}

/// A request needs one verb, group, resource and name: an atom with a `*` is not one.
fn expressible(atom: &Atom) -> bool {
    matches!(atom, Atom::Resource { group, resource, verb, name }
        if ![group, resource, verb].iter().any(|s| s.contains('*')) && name.as_deref().is_none_or(|n| !n.contains('*')))
}

fn holder(rules: Vec<PolicyRule>) -> Policy {
    policy(vec![cluster_role("r", rules)], vec![binding(None, "r", &["User:u"])])
}

#[test]
fn covering_rules_allow_every_request_the_covered_ones_allow() {
    let mut rng = Rng(0x5eed_0b5e);
    let u = who("u", "");
    let (mut covered, mut not) = (0, 0);
    for case in 0..3000 {
        let owner: Vec<PolicyRule> = (0..1 + rng.below(3)).map(|_| random_rule(&mut rng)).collect();
        let servant = random_rule(&mut rng);
        let (owner_p, servant_p) = (holder(owner.clone()), holder(vec![servant.clone()]));
        let servant_atoms = atoms(&servant);
        if covers(&owner, std::slice::from_ref(&servant)) {
            covered += 1;
            let mut asks: Vec<Request> =
                servant_atoms.iter().filter(|a| expressible(a)).filter_map(|a| request_for(a, None)).collect();
            asks.extend((0..8).map(|_| random_request(&mut rng)));
            for req in asks.iter().filter(|r| servant_p.can(&u, r).is_some()) {
                assert!(owner_p.can(&u, req).is_some(), "case {case}: {owner:?} covers {servant:?} but not {req:?}");
            }
        } else {
            not += 1;
            let missing: Vec<&Atom> = servant_atoms.iter().filter(|a| !covers(&owner, &[a.to_rule()])).collect();
            assert!(!missing.is_empty(), "case {case}: not covered, yet every atom is");
            for atom in missing.into_iter().filter(|a| expressible(a)) {
                let req = request_for(atom, None).unwrap();
                assert!(owner_p.can(&u, &req).is_none(), "case {case}: {owner:?} allows uncovered {req:?}");
            }
        }
    }
    assert!(covered > 300 && not > 300, "both sides exercised: {covered} covered, {not} not");
}

/// A TestRuleMatches rule (groups, resources, verbs) and the subresources its requests name.
type RuleCase =
    (&'static [&'static str], &'static [&'static str], &'static [&'static str], Option<(&'static str, &'static str)>);

/// `can-i VERB RESOURCE --as u --builtin-roles none` on `input`.
fn ask_as_u(input: &[Source], verb: &str, resource: &str) -> olm_rbac::outcome::Outcome {
    ask_as_u_sub(input, verb, resource, None)
}

/// [`ask_as_u`] with `--subresource`.
fn ask_as_u_sub(input: &[Source], verb: &str, resource: &str, subresource: Option<&str>) -> olm_rbac::outcome::Outcome {
    use olm_rbac::check::commands::{can_i, CanI, Common};
    let query = CanI {
        verb,
        resource,
        name: None,
        subresource,
        namespace: None,
        all_namespaces: false,
        user: "u",
        groups: &[],
        explain: false,
        common: Common { builtin_roles: olm_rbac::access::builtin::BuiltinRoles::None, quiet: false },
    };
    can_i(input, &query)
}

/// The same TestRuleMatches requests asked through `can-i`, as kubectl asks
/// them (`kubectl auth can-i verb1 resource1.group1 --subresource
/// subresource1`): every group is taken, known or not, and the answer is the
/// authorizer's.
#[test]
fn rule_matches_asked_through_can_i_as_kubectl_asks() {
    let flow =
        |items: &[&str]| format!("[{}]", items.iter().map(|i| format!("\"{i}\"")).collect::<Vec<_>>().join(", "));
    let cases: [RuleCase; 5] = [
        (&["group1"], &["resource1"], &["*"], None),
        (&["*"], &["resource1"], &["verb1"], None),
        (&["group1"], &["*"], &["verb1"], None),
        (&["group1", "group2"], &["resource1", "resource2"], &["verb1", "verb2"], None),
        (&["*"], &["resource1/subresource1"], &["*"], Some(("subresource1", "subresource2"))),
    ];
    let mut asked = 0;
    for (groups, resources, verbs, sub) in cases {
        let manifest = format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: r}}\nrules:\n- apiGroups: {}\n  resources: {}\n  verbs: {}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {{name: r}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}}\nsubjects: [{{kind: User, name: u, apiGroup: rbac.authorization.k8s.io}}]\n",
            flow(groups),
            flow(resources),
            flow(verbs)
        );
        let rule = rule(groups, resources, verbs, &[]);
        let input = [Source { name: "rbac.yaml".into(), text: manifest }];
        for verb in ["verb1", "verb2"] {
            for group in ["group1", "group2"] {
                for resource in ["resource1", "resource2"] {
                    let subresource = match sub {
                        Some((s1, s2)) => Some(if group == "group1" || resource == "resource2" { s1 } else { s2 }),
                        None => None,
                    };
                    let argument = format!("{resource}.{group}");
                    let out = ask_as_u_sub(&input, verb, &argument, subresource);
                    let want = allows(&rule, &request(verb, group, resource, subresource.unwrap_or(""), ""));
                    assert_eq!(out.code, if want { 0 } else { 1 }, "can-i {verb} {argument}: {}", out.stderr);
                    assert!(
                        out.stderr.contains("the server doesn't have a resource type"),
                        "kubectl's warning: {}",
                        out.stderr
                    );
                    asked += 1;
                }
            }
        }
    }
    assert_eq!(asked, 40);
}

/// The authorizer's side of the same rule, asked through `can-i`.
#[test]
fn can_i_asks_a_url_under_a_pattern_of_several_stars_as_the_authorizer_does() {
    let manifest = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: logs}\nrules:\n- {nonResourceURLs: ['/logs**'], verbs: [get]}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: logs}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: logs}\nsubjects: [{kind: User, name: u, apiGroup: rbac.authorization.k8s.io}]\n";
    let input = [Source { name: "rbac.yaml".into(), text: manifest.into() }];
    for (url, want) in [("/logsx", 0), ("/logs/kubelet", 0), ("/log", 1)] {
        assert_eq!(ask_as_u(&input, "get", url).code, want, "{url}");
    }
}

/// can-i agrees with who-can: the API server allows `system:masters` every
/// request before RBAC is asked, so with no role or binding at all, and no
/// built-in roles, a member of it may do anything anywhere.
#[test]
fn can_i_allows_system_masters_whatever_the_policy_holds() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.yaml");
    std::fs::write(&empty, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n").unwrap();
    let file = empty.display().to_string();
    let ask = |group: &str| {
        run_bin(
            &["can-i", "delete", "nodes", "-f", &file, "--as", "alice", "--as-group", group, "--builtin-roles", "none"],
            "",
        )
    };
    let out = ask("system:masters");
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).starts_with("yes"), "{}", text(&out.stdout));
    let out = ask("team-a");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
}
