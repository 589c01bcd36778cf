//! The webhook rule matcher against the cases Kubernetes tests its own with
//! (k8s.io/apiserver, `predicates/rules/rules_test.go`: one condition per
//! table, the others left to match), and the property that ties it to the
//! RBAC rules `intercepted` writes: every request the matcher sends a webhook
//! is allowed by one of them, cluster-wide wherever the object is
//! cluster-scoped.

use super::*;
use crate::access::matches::rule_allows;
use crate::access::Request;

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// A rule as Kubernetes' case writes it: the lists it leaves out are `*`.
struct Case {
    name: &'static str,
    groups: &'static [&'static str],
    versions: &'static [&'static str],
    resources: &'static [&'static str],
    operations: &'static [&'static str],
    scope: Option<&'static str>,
    /// (operation, group, version, resource, subresource, namespace)
    matched: &'static [Attrs],
    unmatched: &'static [Attrs],
}

type Attrs = (&'static str, &'static str, &'static str, &'static str, &'static str, &'static str);

const ALL: &[&str] = &["*"];

const fn case(name: &'static str) -> Case {
    Case {
        name,
        groups: ALL,
        versions: ALL,
        resources: &["*/*"],
        operations: ALL,
        scope: None,
        matched: &[],
        unmatched: &[],
    }
}

/// Kubernetes' cases: `a(...)` and `namespacedAttributes` ask in namespace
/// `ns`, `clusterScopedAttributes` in none.
const CASES: &[Case] = &[
    Case { groups: &["*"], matched: &[("CREATE", "g", "v", "r", "", "ns")], ..case("group wildcard") },
    Case {
        groups: &["g1", "g2"],
        matched: &[("CREATE", "g1", "v", "r", "", "ns"), ("CREATE", "g2", "v2", "r3", "", "ns")],
        unmatched: &[("CREATE", "g3", "v", "r", "", "ns"), ("CREATE", "g4", "v", "r", "", "ns")],
        ..case("group exact")
    },
    Case { versions: &["*"], matched: &[("CREATE", "g", "v", "r", "", "ns")], ..case("version wildcard") },
    Case {
        versions: &["v1", "v2"],
        matched: &[("CREATE", "g1", "v1", "r", "", "ns"), ("CREATE", "g2", "v2", "r", "", "ns")],
        unmatched: &[("CREATE", "g1", "v3", "r", "", "ns"), ("CREATE", "g2", "v4", "r", "", "ns")],
        ..case("version exact")
    },
    Case {
        operations: &["*"],
        matched: &[
            ("CREATE", "g", "v", "r", "", "ns"),
            ("UPDATE", "g", "v", "r", "", "ns"),
            ("DELETE", "g", "v", "r", "", "ns"),
            ("CONNECT", "g", "v", "r", "", "ns"),
        ],
        ..case("operation wildcard")
    },
    Case {
        operations: &["CREATE"],
        matched: &[("CREATE", "g", "v", "r", "", "ns")],
        unmatched: &[
            ("UPDATE", "g", "v", "r", "", "ns"),
            ("DELETE", "g", "v", "r", "", "ns"),
            ("CONNECT", "g", "v", "r", "", "ns"),
        ],
        ..case("operation create")
    },
    Case {
        operations: &["UPDATE"],
        matched: &[("UPDATE", "g", "v", "r", "", "ns")],
        unmatched: &[
            ("CREATE", "g", "v", "r", "", "ns"),
            ("DELETE", "g", "v", "r", "", "ns"),
            ("CONNECT", "g", "v", "r", "", "ns"),
        ],
        ..case("operation update")
    },
    Case {
        operations: &["DELETE"],
        matched: &[("DELETE", "g", "v", "r", "", "ns")],
        unmatched: &[
            ("CREATE", "g", "v", "r", "", "ns"),
            ("UPDATE", "g", "v", "r", "", "ns"),
            ("CONNECT", "g", "v", "r", "", "ns"),
        ],
        ..case("operation delete")
    },
    Case {
        operations: &["CONNECT"],
        matched: &[("CONNECT", "g", "v", "r", "", "ns")],
        unmatched: &[
            ("CREATE", "g", "v", "r", "", "ns"),
            ("UPDATE", "g", "v", "r", "", "ns"),
            ("DELETE", "g", "v", "r", "", "ns"),
        ],
        ..case("operation connect")
    },
    Case {
        operations: &["UPDATE", "DELETE"],
        matched: &[("UPDATE", "g", "v", "r", "", "ns"), ("DELETE", "g", "v", "r", "", "ns")],
        unmatched: &[("CREATE", "g", "v", "r", "", "ns"), ("CONNECT", "g", "v", "r", "", "ns")],
        ..case("operation multiple")
    },
    Case {
        resources: &["*"],
        matched: &[("CREATE", "g", "v", "r", "", "ns"), ("CREATE", "2", "v", "r2", "", "ns")],
        unmatched: &[("CREATE", "g", "v", "r", "exec", "ns"), ("CREATE", "2", "v", "r2", "proxy", "ns")],
        ..case("no subresources")
    },
    Case {
        resources: &["r/*"],
        matched: &[("CREATE", "g", "v", "r", "", "ns"), ("CREATE", "g", "v", "r", "exec", "ns")],
        unmatched: &[("CREATE", "2", "v", "r2", "", "ns"), ("CREATE", "2", "v", "r2", "proxy", "ns")],
        ..case("r and subresources")
    },
    Case {
        resources: &["r/*", "r2"],
        matched: &[
            ("CREATE", "g", "v", "r", "", "ns"),
            ("CREATE", "g", "v", "r", "exec", "ns"),
            ("CREATE", "2", "v", "r2", "", "ns"),
        ],
        unmatched: &[("CREATE", "2", "v", "r2", "proxy", "ns")],
        ..case("r and subresources or r2")
    },
    Case {
        resources: &["*/proxy", "*/exec"],
        matched: &[
            ("CREATE", "g", "v", "r", "exec", "ns"),
            ("CREATE", "2", "v", "r2", "proxy", "ns"),
            ("CREATE", "2", "v", "r3", "proxy", "ns"),
        ],
        unmatched: &[
            ("CREATE", "g", "v", "r", "", "ns"),
            ("CREATE", "2", "v", "r2", "", "ns"),
            ("CREATE", "2", "v", "r4", "scale", "ns"),
        ],
        ..case("proxy or exec")
    },
    Case {
        resources: &["*"],
        scope: Some("Cluster"),
        matched: &[
            ("CREATE", "g", "v", "r", "", ""),
            ("CREATE", "g", "v", "r", "exec", ""),
            ("CREATE", "", "v1", "namespaces", "", ""),
            ("CREATE", "", "v1", "namespaces", "finalize", ""),
            ("CREATE", "", "v1", "namespaces", "", "ns"),
            ("CREATE", "", "v1", "namespaces", "finalize", "ns"),
        ],
        unmatched: &[("CREATE", "g", "v", "r", "", "ns"), ("CREATE", "g", "v", "r", "exec", "ns")],
        ..case("cluster scope")
    },
    Case {
        resources: &["*"],
        scope: Some("Namespaced"),
        matched: &[("CREATE", "g", "v", "r", "", "ns"), ("CREATE", "g", "v", "r", "exec", "ns")],
        unmatched: &[
            ("CREATE", "", "v1", "namespaces", "", ""),
            ("CREATE", "", "v1", "namespaces", "finalize", ""),
            ("CREATE", "", "v1", "namespaces", "", "ns"),
            ("CREATE", "", "v1", "namespaces", "finalize", "ns"),
            ("CREATE", "g", "v", "r", "", ""),
            ("CREATE", "g", "v", "r", "exec", ""),
        ],
        ..case("namespace scope")
    },
    Case {
        resources: &["*"],
        scope: Some("*"),
        matched: &[
            ("CREATE", "g", "v", "r", "", "ns"),
            ("CREATE", "g", "v", "r", "exec", "ns"),
            ("CREATE", "g", "v", "r", "", ""),
            ("CREATE", "g", "v", "r", "exec", ""),
            ("CREATE", "", "v1", "namespaces", "", ""),
            ("CREATE", "", "v1", "namespaces", "finalize", ""),
            ("CREATE", "", "v1", "namespaces", "", "ns"),
            ("CREATE", "", "v1", "namespaces", "finalize", "ns"),
        ],
        ..case("all scopes")
    },
];

/// Kubernetes' scope cases test the scope alone, whatever the resource:
/// with `*` as the resource, a subresource does not match it, so those cases
/// are held with `*/*`, which matches every resource.
fn resources_for(case: &Case) -> Vec<String> {
    if case.scope.is_some() {
        strings(&["*/*"])
    } else {
        strings(case.resources)
    }
}

fn attributes(a: &Attrs) -> Attributes<'static> {
    let (operation, group, version, resource, subresource, namespace) = *a;
    Attributes { operation, group, version, resource, subresource, namespace }
}

#[test]
fn the_matcher_decides_kubernetes_own_cases_as_kubernetes_does() {
    let mut checked = 0;
    for case in CASES {
        let (groups, versions, resources, operations) =
            (strings(case.groups), strings(case.versions), resources_for(case), strings(case.operations));
        let rule = AdmissionRule {
            groups: &groups,
            versions: &versions,
            resources: &resources,
            operations: &operations,
            scope: case.scope,
        };
        for a in case.matched {
            assert!(matches(&rule, &attributes(a)), "{}: {a:?} should match", case.name);
            checked += 1;
        }
        for a in case.unmatched {
            assert!(!matches(&rule, &attributes(a)), "{}: {a:?} should not match", case.name);
            checked += 1;
        }
    }
    assert_eq!(checked, 76, "every case of the table is checked");
}

/// The resource patterns' own meanings, without the scope cases' `*/*`.
#[test]
fn a_resource_pattern_matches_its_halves_apart() {
    let all = strings(ALL);
    let resources = strings(&["*"]);
    let rule = |resources| AdmissionRule { groups: &all, versions: &all, resources, operations: &all, scope: None };
    let star = rule(&resources);
    assert!(!matches(&star, &attributes(&("CREATE", "", "v1", "pods", "exec", "ns"))));
    let both = strings(&["*/*"]);
    assert!(matches(&rule(&both), &attributes(&("CREATE", "", "v1", "pods", "exec", "ns"))));
    let empty: Vec<String> = Vec::new();
    assert!(!matches(&rule(&empty), &attributes(&("CREATE", "", "v1", "pods", "", "ns"))));
}

/// Every request Kubernetes' cases send a webhook is one the RBAC rules of
/// [`intercepted`] allow: `get` for a validating webhook, and the writes for
/// a mutating one on create, update and connect; held cluster-wide for a
/// cluster-scoped object.
#[test]
fn every_request_a_webhook_is_sent_is_one_its_interceptions_allow() {
    let scopes = Resources::builtin();
    let mut checked = 0;
    for case in CASES {
        let (groups, versions, resources, operations) =
            (strings(case.groups), strings(case.versions), resources_for(case), strings(case.operations));
        let rule = AdmissionRule {
            groups: &groups,
            versions: &versions,
            resources: &resources,
            operations: &operations,
            scope: case.scope,
        };
        for kind in [WebhookKind::Validating, WebhookKind::Mutating] {
            let held = intercepted(&rule, kind, MatchPolicy::Equivalent, &scopes, |_, _| false);
            for a in case.matched {
                let attrs = attributes(a);
                let cluster_scoped =
                    attrs.namespace.is_empty() || (attrs.group.is_empty() && attrs.resource == "namespaces");
                let mut verbs = vec!["get"];
                if kind == WebhookKind::Mutating && matches!(attrs.operation, "CREATE" | "UPDATE" | "CONNECT") {
                    verbs.extend(["create", "update", "patch"]);
                }
                for verb in verbs {
                    let request = Request {
                        subresource: Some(attrs.subresource).filter(|s| !s.is_empty()).map(String::from),
                        ..Request::on(
                            verb,
                            attrs.group,
                            attrs.resource,
                            Some(attrs.namespace).filter(|n| !n.is_empty()),
                        )
                    };
                    let found =
                        held.iter().any(|i| rule_allows(&i.rule, &request) && (i.cluster_wide || !cluster_scoped));
                    assert!(found, "{} ({kind:?}): {a:?} as {verb} is not held: {held:?}", case.name);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 80, "{checked}");
}

#[test]
fn the_bundle_owns_resources_not_groups() {
    let scopes = Resources::builtin();
    let (groups, all, ops) = (strings(&["argoproj.io"]), strings(ALL), strings(&["CREATE"]));
    let own = |g: &str, r: &str| g == "argoproj.io" && r == "widgets";
    let rule = |resources| AdmissionRule { groups: &groups, versions: &all, resources, operations: &ops, scope: None };
    let widgets = strings(&["widgets", "widgets/status"]);
    assert!(intercepted(&rule(&widgets), WebhookKind::Mutating, MatchPolicy::Equivalent, &scopes, own).is_empty());
    let applications = strings(&["widgets", "applications"]);
    let held = intercepted(&rule(&applications), WebhookKind::Mutating, MatchPolicy::Equivalent, &scopes, own);
    let names: Vec<&Vec<String>> = held.iter().filter_map(|i| i.rule.resources.as_ref()).collect();
    assert_eq!(names, [&strings(&["applications"])]);
    // A wildcard is never the bundle's own.
    let every = strings(&["*"]);
    assert_eq!(intercepted(&rule(&every), WebhookKind::Mutating, MatchPolicy::Equivalent, &scopes, own).len(), 1);
}

#[test]
fn a_namespace_selector_never_narrows_a_cluster_scoped_object() {
    let scopes = Resources::builtin();
    let (rbac, all, ops) = (strings(&["rbac.authorization.k8s.io"]), strings(ALL), strings(&["*"]));
    let resources = strings(&["clusterrolebindings", "rolebindings"]);
    let rule = AdmissionRule { groups: &rbac, versions: &all, resources: &resources, operations: &ops, scope: None };
    let held = intercepted(&rule, WebhookKind::Mutating, MatchPolicy::Equivalent, &scopes, |_, _| false);
    let reach: Vec<(Vec<String>, bool)> =
        held.iter().map(|i| (i.rule.resources.clone().unwrap_or_default(), i.cluster_wide)).collect();
    assert_eq!(reach[..2], [(strings(&["clusterrolebindings"]), true), (strings(&["rolebindings"]), false)]);
    // Rewriting a binding binds with the requester's rights.
    assert_eq!(reach[2..], [(strings(&["roles", "clusterroles"]), true)]);
    // Namespaced scope leaves the cluster-scoped resource out.
    let rule = AdmissionRule { scope: Some("Namespaced"), ..rule };
    let held = intercepted(&rule, WebhookKind::Validating, MatchPolicy::Equivalent, &scopes, |_, _| false);
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].rule.resources, Some(strings(&["rolebindings"])));
    assert_eq!(held[0].rule.verbs, ["get"]);
}

#[test]
fn a_rule_the_api_server_refuses_is_read_at_its_widest() {
    let scopes = Resources::builtin();
    let (all, none, pods) = (strings(ALL), Vec::new(), strings(&["pods"]));
    let core = strings(&[""]);
    for (versions, operations, scope) in [(&none, &all, None), (&all, &none, None), (&all, &all, Some("Everywhere"))] {
        let rule = AdmissionRule { groups: &core, versions, resources: &pods, operations, scope };
        let held = intercepted(&rule, WebhookKind::Mutating, MatchPolicy::Equivalent, &scopes, |_, _| false);
        assert_eq!(held.len(), 1, "{held:?}");
        assert_eq!(held[0].rule.verbs, ["get", "create", "update", "patch"]);
    }
    let rule = AdmissionRule { groups: &none, versions: &all, resources: &none, operations: &all, scope: None };
    let held = intercepted(&rule, WebhookKind::Validating, MatchPolicy::Equivalent, &scopes, |_, _| false);
    // Every resource, and TokenReviews' tokens among them.
    assert_eq!(held.len(), 2, "{held:?}");
    assert_eq!(
        (held[0].rule.api_groups.clone(), held[0].rule.resources.clone()),
        (Some(strings(&["*"])), Some(strings(&["*"])))
    );
    assert!(held[0].cluster_wide);
}

#[test]
fn rbac_resources_cover_each_pattern() {
    assert_eq!(rbac_resources("*/*"), ["*"]);
    assert_eq!(rbac_resources("*"), ["*"]);
    assert_eq!(rbac_resources("*/status"), ["*/status"]);
    assert_eq!(rbac_resources("pods/exec"), ["pods/exec"]);
    let pods = rbac_resources("pods/*");
    assert!(pods.contains(&"pods".to_string()) && pods.contains(&"pods/exec".to_string()));
    assert!(pods.contains(&"pods/ephemeralcontainers".to_string()));
}

#[test]
fn what_an_interception_amounts_to_is_held_too() {
    let scopes = Resources::builtin();
    let (all, ops) = (strings(ALL), strings(&["CREATE", "UPDATE"]));
    let rbac = strings(&["rbac.authorization.k8s.io"]);
    let bindings = strings(&["rolebindings"]);
    let rule = AdmissionRule { groups: &rbac, versions: &all, resources: &bindings, operations: &ops, scope: None };
    let bind = |held: &[Interception]| {
        let request = Request::on("bind", "rbac.authorization.k8s.io", "clusterroles", None);
        held.iter().any(|i| i.cluster_wide && rule_allows(&i.rule, &request))
    };
    assert!(bind(&intercepted(&rule, WebhookKind::Mutating, MatchPolicy::Equivalent, &scopes, |_, _| false)));
    // Seeing a binding binds nothing.
    assert!(!bind(&intercepted(&rule, WebhookKind::Validating, MatchPolicy::Equivalent, &scopes, |_, _| false)));
    // A TokenReview's token is seen by a validating webhook too.
    let (authn, reviews) = (strings(&["authentication.k8s.io"]), strings(&["tokenreviews"]));
    let rule = AdmissionRule { groups: &authn, versions: &all, resources: &reviews, operations: &ops, scope: None };
    let held = intercepted(&rule, WebhookKind::Validating, MatchPolicy::Equivalent, &scopes, |_, _| false);
    let impersonate = Request::on("impersonate", "", "users", None);
    assert!(held.iter().any(|i| rule_allows(&i.rule, &impersonate)), "{held:?}");
}

#[test]
fn an_equivalent_resource_in_another_group_is_sent_too_unless_exact() {
    let scopes = Resources::builtin();
    let (events_group, all, events) = (strings(&["events.k8s.io"]), strings(ALL), strings(&["events"]));
    let rule =
        AdmissionRule { groups: &events_group, versions: &all, resources: &events, operations: &all, scope: None };
    let core_events = Request::on("create", "", "events", Some("ns"));
    let held = intercepted(&rule, WebhookKind::Mutating, MatchPolicy::Equivalent, &scopes, |_, _| false);
    assert!(held.iter().any(|i| rule_allows(&i.rule, &core_events)), "{held:?}");
    let held = intercepted(&rule, WebhookKind::Mutating, MatchPolicy::Exact, &scopes, |_, _| false);
    assert!(!held.iter().any(|i| rule_allows(&i.rule, &core_events)), "{held:?}");
}
