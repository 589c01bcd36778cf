use super::*;

const RBAC: &str = "rbac.authorization.k8s.io";
const ADMISSION: &str = "admissionregistration.k8s.io";

fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> PolicyRule {
    let v = |s: &[&str]| Some(s.iter().map(|x| x.to_string()).collect::<Vec<_>>());
    PolicyRule {
        api_groups: v(groups),
        resources: v(resources),
        verbs: verbs.iter().map(|x| x.to_string()).collect(),
        ..Default::default()
    }
}

fn named(mut r: PolicyRule, names: &[&str]) -> PolicyRule {
    r.resource_names = Some(names.iter().map(|x| x.to_string()).collect());
    r
}

fn names(rule: &PolicyRule, cluster_wide: bool) -> Vec<&'static str> {
    dangers(rule, cluster_wide).iter().map(|d| d.what).collect()
}

#[test]
fn each_entry_is_flagged_by_a_minimal_rule() {
    let cases = [
        (rule(&["apps"], &["deployments"], &["*"]), "wildcard verbs or resources"),
        (rule(&[""], &["secrets"], &["list"]), "read secrets cluster-wide"),
        (rule(&[""], &["secrets"], &["create"]), "write secrets cluster-wide"),
        (rule(&["apps"], &["deployments"], &["create"]), "create workloads cluster-wide"),
        (rule(&[""], &["pods/exec"], &["create"]), "exec, attach or port-forward into pods"),
        (rule(&[""], &["pods/ephemeralcontainers"], &["patch"]), "add ephemeral containers to pods"),
        (rule(&[""], &["persistentvolumes"], &["create"]), "create persistent volumes"),
        (rule(&[""], &["nodes/proxy"], &["get"]), "nodes/proxy"),
        (rule(&[RBAC], &["clusterroles"], &["escalate"]), "escalate on roles"),
        (rule(&[RBAC], &["roles"], &["bind"]), "bind roles"),
        (rule(&[RBAC], &["clusterrolebindings"], &["create"]), "write cluster roles or their bindings"),
        (rule(&[""], &["serviceaccounts"], &["impersonate"]), "impersonate"),
        (rule(&[""], &["serviceaccounts/token"], &["create"]), "request service account tokens"),
        (rule(&["certificates.k8s.io"], &["signers"], &["approve"]), "approve or sign certificates"),
        (rule(&[ADMISSION], &["mutatingwebhookconfigurations"], &["patch"]), "write admission webhooks"),
        (rule(&[ADMISSION], &["mutatingadmissionpolicies"], &["create"]), "write mutating admission policies"),
        (
            rule(&[ADMISSION], &["validatingadmissionpolicybindings"], &["delete"]),
            "write validating admission policies",
        ),
        (rule(&["apiregistration.k8s.io"], &["apiservices"], &["update"]), "write API services"),
        (
            rule(&["apiextensions.k8s.io"], &["customresourcedefinitions"], &["delete"]),
            "write custom resource definitions",
        ),
        (rule(&["operators.coreos.com"], &["installplans"], &["patch"]), "install operators"),
        (rule(&["olm.operatorframework.io"], &["clustercatalogs"], &["create"]), "write operator catalogs or groups"),
        (rule(&["argoproj.io"], &["applications"], &["create"]), "deploy through a GitOps controller"),
        (rule(&["kyverno.io"], &["clusterpolicies"], &["create"]), "write policy-engine policies"),
        (rule(&["source.toolkit.fluxcd.io"], &["gitrepositories"], &["update"]), "change GitOps sources"),
        (rule(&[""], &["services/status"], &["patch"]), "intercept service traffic"),
        (rule(&[""], &["namespaces"], &["patch"]), "modify namespaces"),
    ];
    for (r, what) in &cases {
        assert!(names(r, true).contains(what), "{what}: {:?}", names(r, true));
    }
    let covered: Vec<&str> = cases.iter().map(|c| c.1).collect();
    let listed: Vec<&str> = catalogue().iter().map(|d| d.what).collect();
    assert_eq!(covered, listed, "one case per entry, in the catalogue's order");
}

/// Every permission of every entry, written as the API server also reads
/// it: a `*` group, resource or verb, `*/sub` for a subresource, a
/// resource name, and the permission among others in a longer rule.
#[test]
fn every_entry_is_flagged_by_each_spelling_of_each_permission() {
    for d in catalogue().iter().filter(|d| !d.sets.is_empty()) {
        for g in d.sets {
            for (&group, &resource, &verb) in g
                .groups
                .iter()
                .flat_map(|gr| g.resources.iter().flat_map(move |r| g.verbs.iter().map(move |v| (gr, r, v))))
            {
                // A catalogue `/*` resource stands for every key; `scopes` is one.
                let concrete = resource.strip_suffix("/*").map(|b| format!("{b}/scopes"));
                let resource = concrete.as_deref().unwrap_or(resource);
                let verb = if verb == ALL { "get" } else { verb };
                let mut spellings = vec![
                    rule(&[group], &[resource], &[verb]),
                    rule(&[ALL], &[resource], &[verb]),
                    rule(&[group], &[ALL], &[verb]),
                    rule(&[group], &[resource], &[ALL]),
                    named(rule(&[group], &[resource], &[verb]), &["some-name"]),
                    rule(&["example.com", group], &["widgets", resource], &["watch", verb]),
                ];
                if let Some((_, sub)) = resource.split_once('/') {
                    spellings.push(rule(&[group], &[&format!("*/{sub}")], &[verb]));
                }
                for r in &spellings {
                    assert!(names(r, true).contains(&d.what), "{}: {r:?} gives {:?}", d.what, names(r, true));
                }
            }
        }
    }
}

#[test]
fn the_wildcard_entry_is_flagged_by_each_wildcard() {
    let what = "wildcard verbs or resources";
    let urls =
        PolicyRule { non_resource_urls: Some(vec!["*".into()]), verbs: vec!["get".into()], ..Default::default() };
    for r in [
        rule(&["example.com"], &["widgets"], &["*"]),
        rule(&["example.com"], &["*"], &["get"]),
        rule(&["*"], &["widgets"], &["get"]),
        urls,
    ] {
        assert!(names(&r, false).contains(&what), "{r:?}");
    }
    assert!(!names(&rule(&["example.com"], &["widgets"], &["get"]), true).contains(&what));
}

/// Spellings the catalogue used to miss, and the permissions it lacked.
#[test]
fn the_gaps_are_closed() {
    let cases: &[(PolicyRule, &str)] = &[
        // impersonating any extra field: the API server checks `userextras/<key>`
        (rule(&["authentication.k8s.io"], &["userextras/scopes"], &["impersonate"]), "impersonate"),
        (rule(&["authentication.k8s.io"], &["*/scopes"], &["impersonate"]), "impersonate"),
        (rule(&["authentication.k8s.io"], &["userextras/*"], &["impersonate"]), "impersonate"),
        (rule(&["*"], &["*"], &["impersonate"]), "impersonate"),
        (named(rule(&["authentication.k8s.io"], &["userextras/scopes"], &["impersonate"]), &["view"]), "impersonate"),
        // constrained impersonation's identity verbs
        (rule(&["authentication.k8s.io"], &["users"], &["impersonate:user-info"]), "impersonate"),
        (rule(&["authentication.k8s.io"], &["serviceaccounts"], &["impersonate:serviceaccount"]), "impersonate"),
        (rule(&["authentication.k8s.io"], &["nodes"], &["impersonate:arbitrary-node"]), "impersonate"),
        // the rest of the admission family
        (rule(&[ADMISSION], &["mutatingadmissionpolicybindings"], &["update"]), "write mutating admission policies"),
        (rule(&[ADMISSION], &["validatingadmissionpolicies"], &["patch"]), "write validating admission policies"),
        // exec by another name
        (rule(&[""], &["pods/ephemeralcontainers"], &["update"]), "add ephemeral containers to pods"),
        (rule(&[""], &["*/ephemeralcontainers"], &["patch"]), "add ephemeral containers to pods"),
        // an API group routed to any service
        (rule(&["apiregistration.k8s.io"], &["apiservices"], &["create"]), "write API services"),
        // secrets written in every namespace
        (rule(&[""], &["secrets"], &["patch"]), "write secrets cluster-wide"),
        // namespace labels through the subresources
        (rule(&[""], &["namespaces/status"], &["update"]), "modify namespaces"),
        (rule(&[""], &["namespaces/finalize"], &["patch"]), "modify namespaces"),
    ];
    for (r, what) in cases {
        assert!(names(r, true).contains(what), "{what}: {r:?} gives {:?}", names(r, true));
    }
    assert!(names(&rule(&[""], &["secrets"], &["create"]), false).is_empty(), "in a namespace it is the job");
}

#[test]
fn near_misses_are_not_flagged() {
    let quiet = [
        rule(&[""], &["secrets"], &["delete"]),
        rule(&[""], &["configmaps"], &["get", "list", "watch"]),
        rule(&[""], &["pods"], &["get", "list", "delete"]),
        rule(&[""], &["pods/log"], &["get"]),
        rule(&[""], &["pods/status"], &["patch"]),
        rule(&[""], &["pods/ephemeralcontainers"], &["get"]),
        rule(&[""], &["*/*"], &["create"]),
        rule(&[""], &["nodes"], &["get"]),
        rule(&[RBAC], &["roles", "rolebindings"], &["create", "update"]),
        rule(&[RBAC], &["clusterroles"], &["get", "list", "watch"]),
        rule(&["apiextensions.k8s.io"], &["customresourcedefinitions"], &["get", "list", "watch"]),
        rule(&[""], &["namespaces"], &["get", "list", "watch"]),
        rule(&["coordination.k8s.io"], &["leases"], &["get", "create", "update"]),
        rule(&[ADMISSION], &["mutatingadmissionpolicies", "validatingwebhookconfigurations"], &["get", "list"]),
        rule(&["apiregistration.k8s.io"], &["apiservices"], &["get", "list", "watch"]),
        rule(&["certificates.k8s.io"], &["certificatesigningrequests"], &["create", "get"]),
        rule(&["certificates.k8s.io"], &["signers"], &["update"]),
        rule(&["authentication.k8s.io"], &["tokenreviews"], &["create"]),
        rule(&["authorization.k8s.io"], &["subjectaccessreviews"], &["create"]),
        // the extra field's key is a subresource; `userextras` alone is checked for nothing
        rule(&["authentication.k8s.io"], &["userextras"], &["impersonate"]),
        // extra fields and uids are impersonated in authentication.k8s.io, not the core group
        rule(&[""], &["userextras/scopes"], &["impersonate"]),
        // an action verb of constrained impersonation impersonates nobody on its own
        rule(&[""], &["pods"], &["impersonate-on:user-info:list"]),
        rule(&["apps"], &["pods"], &["create"]),
    ];
    for r in quiet {
        assert!(names(&r, true).is_empty(), "{r:?}: {:?}", names(&r, true));
    }
}

#[test]
fn some_entries_count_only_cluster_wide() {
    let secrets = rule(&[""], &["secrets"], &["get", "list", "watch"]);
    assert!(names(&secrets, false).is_empty(), "reading the secrets of the namespaces it serves is its job");
    let pods = rule(&[""], &["pods"], &["create"]);
    assert!(names(&pods, false).is_empty() && !names(&pods, true).is_empty());
    let exec = rule(&[""], &["pods/exec"], &["create"]);
    assert!(!names(&exec, false).is_empty(), "exec is flagged in a namespace too");
    let only: Vec<&str> = catalogue().iter().filter(|d| d.cluster_wide_only()).map(|d| d.what).collect();
    assert_eq!(only, ["read secrets cluster-wide", "write secrets cluster-wide", "create workloads cluster-wide"]);
}

#[test]
fn wildcard_rules_are_flagged_for_every_pattern_they_meet() {
    let all = names(&rule(&["*"], &["*"], &["*"]), true);
    assert_eq!(all.len(), catalogue().len(), "{all:?}");
    let core_star = names(&rule(&[""], &["*"], &["get"]), true);
    assert!(core_star.contains(&"read secrets cluster-wide") && core_star.contains(&"nodes/proxy"));
    assert!(core_star.contains(&"wildcard verbs or resources"));
    let sub = names(&rule(&[""], &["*/exec"], &["create"]), false);
    assert_eq!(sub, ["exec, attach or port-forward into pods"]);
}

/// The levels are pinned here so that changing one is a decision.
#[test]
fn every_entry_has_its_severity() {
    use Severity::*;
    let levels: Vec<(&str, Severity)> = catalogue().iter().map(|d| (d.what, d.severity)).collect();
    let expected = [
        ("wildcard verbs or resources", Medium),
        ("read secrets cluster-wide", High),
        ("write secrets cluster-wide", High),
        ("create workloads cluster-wide", Critical),
        ("exec, attach or port-forward into pods", High),
        ("add ephemeral containers to pods", High),
        ("create persistent volumes", High),
        ("nodes/proxy", Critical),
        ("escalate on roles", Critical),
        ("bind roles", Critical),
        ("write cluster roles or their bindings", Medium),
        ("impersonate", Critical),
        ("request service account tokens", High),
        ("approve or sign certificates", Critical),
        ("write admission webhooks", Critical),
        ("write mutating admission policies", Critical),
        ("write validating admission policies", Medium),
        ("write API services", Critical),
        ("write custom resource definitions", High),
        ("install operators", Critical),
        ("write operator catalogs or groups", High),
        ("deploy through a GitOps controller", Critical),
        ("write policy-engine policies", Critical),
        ("change GitOps sources", High),
        ("intercept service traffic", High),
        ("modify namespaces", Medium),
    ];
    assert_eq!(levels, expected);
    assert!(Critical > High && High > Medium, "max() picks the worst");
    let worst = dangers(&rule(&[""], &["*"], &["get"]), true).iter().map(|d| d.severity).max();
    assert_eq!(worst, Some(Critical));
    assert_eq!(Critical.to_string(), "critical");
}

#[test]
fn permissions_read_as_the_docs_list_them() {
    let text = |what: &str| catalogue().iter().find(|d| d.what == what).map(|d| d.permissions());
    assert_eq!(
        text("request service account tokens").as_deref(),
        Some("`create` on `serviceaccounts/token` in `\"\"`")
    );
    assert_eq!(text("nodes/proxy").as_deref(), Some("any verb on `nodes/proxy` in `\"\"`"));
    let impersonate = text("impersonate").unwrap_or_default();
    assert!(impersonate.contains("`uids`, `userextras/<any>` in `authentication.k8s.io`"), "{impersonate}");
}
