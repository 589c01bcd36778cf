//! Effective access, not YAML shape: for each mode, on real bundles, the exact
//! set of (identity, API, namespace, verbs) facts the rendered RBAC allows,
//! computed by the offline evaluator, plus the negatives that matter.
//!
//! The cluster is assumed to already hold some ordinary bindings to the
//! built-in roles (EXISTING), as most clusters do; that shows how each mode
//! interacts with them. Facts live in tests/golden/facts/ (review the diff;
//! UPDATE_GOLDEN=1 rewrites them).

use crate::common::*;
use olm_rbac::access::{Identity, Policy, Request};
use olm_rbac::check::load;
use olm_rbac::run::{render, Source};

/// Bindings to the built-in roles a cluster already has: edit in team-a,
/// view cluster-wide, admin in team-b.
pub(crate) const EXISTING: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: devs-edit, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: team-a-devs}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: auditors-view}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: auditors}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-admin, namespace: team-b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice@example.com}]
";

/// Bind mode as an isolating cluster would use it: bundle roles' own
/// aggregation labels stripped, so only these bindings grant access.
fn bind() -> String {
    bind_spec(true)
}

const VERBS: [&str; 8] = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];
const PLACES: [Option<&str>; 5] = [None, Some("team-a"), Some("team-a-staging"), Some("team-b"), Some("no")];

fn identities() -> Vec<(&'static str, Identity)> {
    vec![
        ("dev (team-a-devs)", Identity::new("dev", &["team-a-devs".into()])),
        ("alice@example.com", Identity::new("alice@example.com", &[])),
        ("sa ci/ci", Identity::new("system:serviceaccount:ci:ci", &[])),
        ("auditor (auditors)", Identity::new("auditor", &["auditors".into()])),
        ("member of group on", Identity::new("olly", &["on".into()])),
        ("nobody", Identity::new("nobody", &[])),
    ]
}

/// Renders the bundle with the config, and loads the result with the
/// existing bindings, as the cluster would hold them.
fn rendered_policy(bundle: &str, spec: &str) -> Policy {
    let mut inputs: Vec<Source> =
        docs_of(bundle).into_iter().map(|d| Source { name: "bundle.yaml".into(), text: d }).collect();
    // The admin's Namespaces, from a folder of their own: the only ones a selector reads.
    inputs.push(Source { name: "admin/namespaces.yaml".into(), text: NAMESPACES.into() });
    let out = render(&inputs, &[Source { name: "rbac.yaml".into(), text: config("ext", spec) }]);
    assert_eq!(out.code, 0, "{bundle}: {}", out.stderr);
    load(&[
        Source { name: "rendered.yaml".into(), text: out.stdout },
        Source { name: "existing.yaml".into(), text: EXISTING.into() },
    ])
    .unwrap_or_else(|e| panic!("{e:?}"))
}

fn request(verb: &str, group: &str, resource: &str, namespace: Option<&str>, name: Option<&str>) -> Request {
    Request {
        verb: verb.into(),
        group: group.into(),
        resource: resource.into(),
        subresource: None,
        name: name.map(String::from),
        namespace: namespace.map(String::from),
    }
}

/// One line per identity, API (or `crd/<api>` for the CRD object) and place
/// with any allowed verb: `identity | api | place | verbs`.
fn facts(policy: &Policy) -> Vec<String> {
    let apis: Vec<String> = policy.apis.keys().cloned().collect();
    let mut lines = Vec::new();
    for (label, who) in identities() {
        for api in &apis {
            let (plural, group) = api.split_once('.').unwrap();
            // A cluster-scoped API has no namespaces to ask about.
            let cluster = policy.resources.cluster_scoped(group, plural) == Some(true);
            for place in PLACES.into_iter().filter(|p| !cluster || p.is_none()) {
                let allowed: Vec<&str> = VERBS
                    .iter()
                    .copied()
                    .filter(|v| policy.can(&who, &request(v, group, plural, place, None)).is_some())
                    .collect();
                if !allowed.is_empty() {
                    lines.push(format!("{label} | {api} | {} | {}", place.unwrap_or("*"), allowed.join(",")));
                }
            }
            let crd = request("get", "apiextensions.k8s.io", "customresourcedefinitions", None, Some(api));
            if policy.can(&who, &crd).is_some() {
                lines.push(format!("{label} | crd/{api} | * | get"));
            }
        }
    }
    lines
}

fn check_golden(name: &str, policy: &Policy) -> Vec<String> {
    let facts = facts(policy);
    let text = facts.join("\n") + "\n";
    let path = repo("tests/golden/facts").join(format!("{name}.txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).unwrap();
    } else {
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            expected == text,
            "{name}: allowed facts differ from {} (UPDATE_GOLDEN=1 rewrites; review the diff)",
            path.display()
        );
    }
    facts
}

fn allows(facts: &[String], who: &str, api: &str, place: &str, verb: &str) -> bool {
    facts.iter().any(|f| {
        let parts: Vec<&str> = f.split(" | ").collect();
        parts[0] == who && parts[1] == api && parts[2] == place && parts[3].split(',').any(|v| v == verb)
    })
}

#[test]
fn bind_mode_grants_exactly_what_the_config_says() {
    for bundle in ["cert-manager-1.16.5", "memcached-operator-0.0.1"] {
        let policy = rendered_policy(bundle, &bind());
        let facts = check_golden(&format!("{bundle}-bind"), &policy);
        let api =
            if bundle.starts_with("cert") { "certificates.cert-manager.io" } else { "memcacheds.cache.example.com" };
        // Namespaced edit: create and read in team-a and "no", nothing in team-b or cluster-wide.
        for place in ["team-a", "no"] {
            for verb in ["create", "delete", "get", "list"] {
                assert!(allows(&facts, "dev (team-a-devs)", api, place, verb), "{bundle}: dev {verb} in {place}");
                assert!(allows(&facts, "sa ci/ci", api, place, verb), "{bundle}: ci {verb} in {place}");
            }
        }
        for place in ["team-b", "team-a-staging", "*"] {
            assert!(
                !allows(&facts, "dev (team-a-devs)", api, place, "get"),
                "{bundle}: a team-a binding grants nothing in {place}"
            );
        }
        // The selector picked team-a only; auditors read there and cannot delete.
        assert!(allows(&facts, "auditor (auditors)", api, "team-a", "list"), "{bundle}");
        assert!(
            !allows(&facts, "auditor (auditors)", api, "team-a", "delete"),
            "{bundle}: a view-only group cannot delete"
        );
        assert!(
            !allows(&facts, "auditor (auditors)", api, "team-a-staging", "list"),
            "{bundle}: excluded by the selector"
        );
        // Cluster-wide view for "on"; and every bound subject can read the CRD object,
        // which only the crdview ClusterRoleBinding grants.
        assert!(
            allows(&facts, "member of group on", api, "*", "watch")
                && !allows(&facts, "member of group on", api, "*", "create")
        );
        for who in ["dev (team-a-devs)", "auditor (auditors)", "member of group on", "alice@example.com"] {
            assert!(allows(&facts, who, &format!("crd/{api}"), "*", "get"), "{bundle}: {who} reads the CRD");
        }
        assert!(!facts.iter().any(|f| f.starts_with("nobody |")), "{bundle}: nobody gets nothing");
    }
    // cert-manager's cluster-scoped clusterissuers: the namespaced bindings skip it.
    let facts = facts(&rendered_policy("cert-manager-1.16.5", &bind()));
    assert!(
        !facts.iter().any(|f| f.starts_with("dev (team-a-devs) | clusterissuers")),
        "a RoleBinding cannot grant it"
    );
    assert!(allows(&facts, "member of group on", "clusterissuers.cert-manager.io", "*", "list"));
}

#[test]
fn aggregate_mode_follows_the_existing_bindings_to_built_in_roles() {
    let policy = rendered_policy("memcached-operator-0.0.1", "  mode: Aggregate\n");
    let facts = check_golden("memcached-operator-0.0.1-aggregate", &policy);
    let api = "memcacheds.cache.example.com";
    // edit in team-a (existing RoleBinding): write and, through view → edit, read.
    assert!(
        allows(&facts, "dev (team-a-devs)", api, "team-a", "create")
            && allows(&facts, "dev (team-a-devs)", api, "team-a", "get")
    );
    assert!(!allows(&facts, "dev (team-a-devs)", api, "team-b", "get"), "a team-a binding grants nothing in team-b");
    // A namespaced binding cannot grant the cluster-scoped CRD object, even with crdview aggregated.
    assert!(!allows(&facts, "dev (team-a-devs)", &format!("crd/{api}"), "*", "get"));
    // view everywhere (existing ClusterRoleBinding): read, never write, CRD readable.
    assert!(
        allows(&facts, "auditor (auditors)", api, "team-b", "list")
            && !allows(&facts, "auditor (auditors)", api, "team-b", "delete")
    );
    assert!(allows(&facts, "auditor (auditors)", &format!("crd/{api}"), "*", "get"));
    // admin in team-b: everything there, via the bundle's own admin role.
    assert!(allows(&facts, "alice@example.com", api, "team-b", "deletecollection"));
    assert!(
        !allows(&facts, "member of group on", api, "team-a", "get"),
        "Bind's subjects get nothing in Aggregate mode"
    );
}

#[test]
fn unmanaged_leaves_operator_apis_to_cluster_admins_unless_bundle_roles_aggregate() {
    let memcached = facts(&rendered_policy("memcached-operator-0.0.1", "  mode: Unmanaged\n"));
    assert!(memcached.is_empty(), "memcached's bundle roles carry no aggregation labels: {memcached:?}");
    let root = Identity::new("root", &["system:masters".into()]);
    let policy = rendered_policy("memcached-operator-0.0.1", "  mode: Unmanaged\n");
    assert!(policy.can(&root, &request("delete", "cache.example.com", "memcacheds", Some("team-a"), None)).is_some());

    // cert-manager's bundle roles aggregate into the built-in ones whatever the mode…
    let policy = rendered_policy("cert-manager-1.16.5", "  mode: Unmanaged\n");
    let cm = check_golden("cert-manager-1.16.5-unmanaged", &policy);
    assert!(allows(&cm, "dev (team-a-devs)", "certificates.cert-manager.io", "team-a", "deletecollection"));
    // …until stripBundleAggregation removes their labels.
    let stripped =
        facts(&rendered_policy("cert-manager-1.16.5", "  mode: Unmanaged\n  stripBundleAggregation: true\n"));
    assert!(stripped.is_empty(), "{stripped:?}");
}
