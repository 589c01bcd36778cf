//! One test per RBAC rule, built on the examples of the Kubernetes RBAC
//! documentation (pod-reader, secret-reader, configmap-updater, monitoring).

use super::load::read;
use super::{commands, load, matrix};
use crate::access::builtin::BuiltinRoles;
use crate::access::matches::rule_allows;
use crate::access::*;
use crate::input::Source;
use k8s_openapi::api::rbac::v1::PolicyRule;

pub(super) fn load_str(yaml: &str) -> Policy {
    load(&[Source { name: "test.yaml".into(), text: yaml.into() }]).unwrap()
}

/// `who-can`: in the request's namespace, or cluster-wide without one.
fn who_can(p: &Policy, req: &Request) -> Vec<HeldAccess> {
    let place = req.namespace.as_deref().map_or(allowed::Place::ClusterWide, allowed::Place::Namespace);
    p.who_can(Asked::Resource(req), place)
}

/// `who-can -A`: anywhere, each answer saying where.
fn who_can_anywhere(p: &Policy, req: &Request) -> Vec<HeldAccess> {
    p.who_can(Asked::Resource(req), allowed::Place::Each)
}

/// A CRD's resource, without names of its own.
fn add(r: &mut Resources, group: &str, plural: &str, cluster: bool) {
    r.add_named(group, plural, cluster, &CrdNames::default());
}

pub(super) fn user(name: &str) -> Identity {
    Identity::new(name, &[])
}

pub(super) const POD_READER: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  namespace: default
  name: pod-reader
rules:
- apiGroups: [\"\"]
  resources: [\"pods\"]
  verbs: [\"get\", \"watch\", \"list\"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: read-pods
  namespace: default
subjects:
- kind: User
  name: jane
  apiGroup: rbac.authorization.k8s.io
roleRef:
  kind: Role
  name: pod-reader
  apiGroup: rbac.authorization.k8s.io
";

#[test]
fn a_role_and_rolebinding_grant_in_their_namespace_only() {
    let p = load_str(POD_READER);
    assert!(p.can(&user("jane"), &Request::on("get", "", "pods", Some("default"))).is_some());
    assert!(p.can(&user("jane"), &Request::on("list", "", "pods", Some("default"))).is_some());
    assert!(p.can(&user("jane"), &Request::on("get", "", "pods", Some("kube-system"))).is_none(), "other namespace");
    assert!(p.can(&user("jane"), &Request::on("get", "", "pods", None)).is_none(), "not cluster-wide");
    assert!(p.can(&user("jane"), &Request::on("delete", "", "pods", Some("default"))).is_none(), "verb not granted");
    assert!(p.can(&user("bob"), &Request::on("get", "", "pods", Some("default"))).is_none(), "other user");
    assert!(p.can(&user("jane"), &Request::on("get", "", "secrets", Some("default"))).is_none(), "other resource");
}

pub(super) const SECRET_READER: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: secret-reader
rules:
- apiGroups: [\"\"]
  resources: [\"secrets\"]
  verbs: [\"get\", \"watch\", \"list\"]
";

#[test]
fn a_rolebinding_to_a_clusterrole_is_limited_to_its_namespace() {
    let p = load_str(&format!(
        "{SECRET_READER}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: read-secrets\n  namespace: development\nsubjects:\n- kind: User\n  name: dave\n  apiGroup: rbac.authorization.k8s.io\nroleRef:\n  kind: ClusterRole\n  name: secret-reader\n  apiGroup: rbac.authorization.k8s.io\n"
    ));
    assert!(p.can(&user("dave"), &Request::on("get", "", "secrets", Some("development"))).is_some());
    assert!(p.can(&user("dave"), &Request::on("get", "", "secrets", Some("default"))).is_none());
}

#[test]
fn a_clusterrolebinding_grants_in_every_namespace() {
    let p = load_str(&format!(
        "{SECRET_READER}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: read-secrets-global\nsubjects:\n- kind: Group\n  name: manager\n  apiGroup: rbac.authorization.k8s.io\nroleRef:\n  kind: ClusterRole\n  name: secret-reader\n  apiGroup: rbac.authorization.k8s.io\n"
    ));
    let managers = Identity::new("mia", &["manager".into()]);
    for ns in [Some("default"), Some("kube-system"), None] {
        assert!(p.can(&managers, &Request::on("get", "", "secrets", ns)).is_some(), "{ns:?}");
    }
    assert!(p.can(&user("mia"), &Request::on("get", "", "secrets", Some("default"))).is_none(), "not in the group");
}

#[test]
fn resource_names_restrict_to_named_objects_and_exclude_list_and_create() {
    let p = load_str("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: configmap-updater\nrules:\n- apiGroups: [\"\"]\n  resources: [\"configmaps\"]\n  resourceNames: [\"my-configmap\"]\n  verbs: [\"update\", \"get\"]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: u\nsubjects: [{kind: User, name: ann, apiGroup: rbac.authorization.k8s.io}]\nroleRef: {kind: ClusterRole, name: configmap-updater, apiGroup: rbac.authorization.k8s.io}\n");
    let mut named = Request::on("update", "", "configmaps", Some("default"));
    named.name = Some("my-configmap".into());
    assert!(p.can(&user("ann"), &named).is_some());
    named.name = Some("other".into());
    assert!(p.can(&user("ann"), &named).is_none());
    assert!(
        p.can(&user("ann"), &Request::on("get", "", "configmaps", Some("default"))).is_none(),
        "a request without a name"
    );
}

#[test]
fn subresources_match_exactly_or_through_star_slash() {
    let rule = |resources: &[&str]| PolicyRule {
        api_groups: Some(vec!["".into(), "apps".into()]),
        resources: Some(resources.iter().map(|r| r.to_string()).collect()),
        verbs: vec!["get".into()],
        ..Default::default()
    };
    let mut log = Request::on("get", "", "pods", Some("default"));
    log.subresource = Some("log".into());
    assert!(rule_allows(&rule(&["pods/log"]), &log));
    assert!(!rule_allows(&rule(&["pods"]), &log), "the resource does not grant its subresource");
    assert!(
        !rule_allows(&rule(&["pods/log"]), &Request::on("get", "", "pods", Some("default"))),
        "nor the other way round"
    );
    let mut scale = Request::on("get", "apps", "deployments", Some("default"));
    scale.subresource = Some("scale".into());
    assert!(rule_allows(&rule(&["*/scale"]), &scale));
    assert!(!rule_allows(&rule(&["*/scale"]), &log));
    assert!(rule_allows(&rule(&["*"]), &log), "* covers subresources");
}

#[test]
fn wildcards_in_verbs_groups_and_resources() {
    let all = PolicyRule {
        api_groups: Some(vec!["*".into()]),
        resources: Some(vec!["*".into()]),
        verbs: vec!["*".into()],
        ..Default::default()
    };
    assert!(rule_allows(&all, &Request::on("deletecollection", "example.com", "widgets", Some("a"))));
    let core_only = PolicyRule { api_groups: Some(vec!["".into()]), ..all.clone() };
    assert!(!rule_allows(&core_only, &Request::on("get", "apps", "deployments", Some("a"))));
}

#[test]
fn a_rolebinding_cannot_grant_cluster_scoped_resources() {
    let p = load_str("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: node-reader\nrules:\n- apiGroups: [\"\"]\n  resources: [\"nodes\"]\n  verbs: [\"get\"]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: n\n  namespace: default\nsubjects: [{kind: User, name: nina, apiGroup: rbac.authorization.k8s.io}]\nroleRef: {kind: ClusterRole, name: node-reader, apiGroup: rbac.authorization.k8s.io}\n");
    assert!(p.can(&user("nina"), &Request::on("get", "", "nodes", Some("default"))).is_none());
    assert!(p.can(&user("nina"), &Request::on("get", "", "nodes", None)).is_none());
}

#[test]
fn aggregation_rules_collect_labelled_roles_with_their_chain() {
    let p = load_str("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: monitoring\naggregationRule:\n  clusterRoleSelectors:\n  - matchLabels:\n      rbac.example.com/aggregate-to-monitoring: \"true\"\nrules: []\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: monitoring-endpoints\n  labels:\n    rbac.example.com/aggregate-to-monitoring: \"true\"\nrules:\n- apiGroups: [\"\"]\n  resources: [\"services\", \"endpointslices\", \"pods\"]\n  verbs: [\"get\", \"list\", \"watch\"]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: mon\nsubjects: [{kind: Group, name: sre, apiGroup: rbac.authorization.k8s.io}]\nroleRef: {kind: ClusterRole, name: monitoring, apiGroup: rbac.authorization.k8s.io}\n");
    let sre = Identity::new("sam", &["sre".into()]);
    let grant = p.can(&sre, &Request::on("list", "", "services", Some("default"))).expect("aggregated");
    assert_eq!(grant.roles, ["monitoring", "monitoring-endpoints"]);
    assert!(
        grant.to_string().contains(
            "ClusterRoleBinding mon → monitoring ← aggregates monitoring-endpoints → rule verbs=[get,list,watch]"
        ),
        "{grant}"
    );
    assert!(p.can(&sre, &Request::on("delete", "", "services", Some("default"))).is_none());
}

pub(super) const WIDGET_VIEW: &str = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: widgets-view\n  labels:\n    rbac.authorization.k8s.io/aggregate-to-view: \"true\"\nrules:\n- apiGroups: [example.com]\n  resources: [widgets]\n  verbs: [get, list, watch]\n";

#[test]
fn built_in_roles_aggregate_view_into_edit_into_admin() {
    let binding = |role: &str| {
        format!("---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: b\n  namespace: team-a\nsubjects: [{{kind: User, name: u, apiGroup: rbac.authorization.k8s.io}}]\nroleRef: {{kind: ClusterRole, name: {role}, apiGroup: rbac.authorization.k8s.io}}\n")
    };
    for role in ["view", "edit", "admin"] {
        let p = load_str(&format!("{WIDGET_VIEW}{}", binding(role)));
        let grant = p
            .can(&user("u"), &Request::on("list", "example.com", "widgets", Some("team-a")))
            .unwrap_or_else(|| panic!("{role}"));
        assert_eq!(grant.roles.last().map(|r| r.name.as_str()), Some("widgets-view"), "{role}: {grant}");
        assert!(p.can(&user("u"), &Request::on("list", "example.com", "widgets", Some("team-b"))).is_none());
    }
    let p = load_str(&format!("{WIDGET_VIEW}{}", binding("edit")));
    let grant = p.can(&user("u"), &Request::on("get", "example.com", "widgets", Some("team-a"))).unwrap();
    assert_eq!(grant.roles, ["edit", "view", "widgets-view"], "edit aggregates view, which aggregates the label");
}

#[test]
fn service_accounts_and_their_groups() {
    let p = load_str(&("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: sa\nsubjects:\n- {kind: ServiceAccount, name: deployer, namespace: ci}\nroleRef: {kind: ClusterRole, name: cluster-admin, apiGroup: rbac.authorization.k8s.io}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: all-sa\n  namespace: ci\nsubjects:\n- {kind: Group, name: \"system:serviceaccounts:ci\", apiGroup: rbac.authorization.k8s.io}\nroleRef: {kind: ClusterRole, name: secret-reader, apiGroup: rbac.authorization.k8s.io}\n---\n".to_string() + SECRET_READER));
    let deployer = user("system:serviceaccount:ci:deployer");
    assert!(p.can(&deployer, &Request::on("delete", "", "nodes", None)).is_some());
    let other = user("system:serviceaccount:ci:other");
    assert!(p.can(&other, &Request::on("delete", "", "nodes", None)).is_none());
    assert!(p.can(&other, &Request::on("get", "", "secrets", Some("ci"))).is_some(), "via system:serviceaccounts:ci");
    assert!(p.can(&user("system:serviceaccount:prod:other"), &Request::on("get", "", "secrets", Some("ci"))).is_none());
    assert!(
        p.can(&user("alice"), &Request::on("get", "", "secrets", Some("ci"))).is_none(),
        "a person is not a service account"
    );
}

#[test]
fn everyone_is_authenticated_except_anonymous_and_masters_are_admins() {
    let p = load_str(&format!("{SECRET_READER}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: everyone\nsubjects: [{{kind: Group, name: \"system:authenticated\", apiGroup: rbac.authorization.k8s.io}}]\nroleRef: {{kind: ClusterRole, name: secret-reader, apiGroup: rbac.authorization.k8s.io}}\n"));
    assert!(p.can(&user("anyone"), &Request::on("get", "", "secrets", Some("x"))).is_some());
    assert!(p.can(&user("system:anonymous"), &Request::on("get", "", "secrets", Some("x"))).is_none());
    let master = Identity::new("root", &["system:masters".into()]);
    assert!(
        p.can(&master, &Request::on("escalate", "rbac.authorization.k8s.io", "clusterroles", None)).is_some(),
        "cluster-admin allows everything"
    );
}

#[test]
fn who_can_lists_subjects_and_where() {
    let p = load_str(POD_READER);
    let all = who_can_anywhere(&p, &Request::on("get", "", "pods", None));
    let names: Vec<String> =
        all.iter().map(|a| format!("{} @ {}", a.grantee, a.namespace.as_deref().unwrap_or("*"))).collect();
    // system:masters first, as Kubernetes names it; then the bootstrap policy's
    // holders: whoever is bound to admin, edit or view (which read pods), and
    // the scheduler (`system:kube-scheduler`).
    assert_eq!(
        names,
        [
            "Group system:masters @ *",
            "anyone bound to ClusterRole admin @ *",
            "anyone bound to ClusterRole edit @ *",
            "anyone bound to ClusterRole view @ *",
            "User jane @ default",
            "User system:kube-scheduler @ *"
        ]
    );
    assert!(
        who_can(&p, &Request::on("get", "", "pods", Some("kube-system")))
            .iter()
            .all(|a| a.namespace.is_none() || matches!(a.grantee, Grantee::AnyoneBoundTo { .. })),
        "only cluster-wide grants there"
    );
    let cluster_wide: Vec<String> =
        who_can(&p, &Request::on("get", "", "pods", None)).iter().map(|a| a.grantee.to_string()).collect();
    assert_eq!(
        cluster_wide,
        [
            "Group system:masters",
            "anyone bound to ClusterRole admin by a ClusterRoleBinding",
            "anyone bound to ClusterRole edit by a ClusterRoleBinding",
            "anyone bound to ClusterRole view by a ClusterRoleBinding",
            "User system:kube-scheduler"
        ],
        "without a namespace, what `can-i` without -n answers: jane's RoleBinding does not"
    );
}

/// A resolved resource as (group, plural, subresource), known to the table.
fn triple(r: &Resources, name: &str) -> (String, String, Option<String>) {
    let x = r.resolve(name).unwrap();
    assert_eq!(x.unknown, None, "{name}");
    (x.group, x.plural, x.subresource)
}

#[test]
fn resources_resolve_by_singular_kind_and_short_name_preferring_kubernetes_own() {
    let mut r = Resources::builtin();
    let short = ["wdg".to_string()];
    let names = CrdNames { kind: Some("Widget"), singular: Some("widget"), short: &short };
    r.add_named("example.com", "widgets", false, &names);
    for name in ["widgets", "widget", "Widget", "WIDGETS", "wdg", "wdg.example.com", "Widget.v1.example.com"] {
        assert_eq!(triple(&r, name), ("example.com".into(), "widgets".into(), None), "{name}");
    }
    for name in ["pods", "pod", "Pod", "po", "po.v1.", "pod/log"] {
        assert_eq!(triple(&r, name).1, "pods", "{name}");
    }
    assert_eq!(triple(&r, "deploy.apps/scale"), ("apps".into(), "deployments".into(), Some("scale".into())));
    assert_eq!(triple(&r, "csv").1, "clusterserviceversions");
    // `ip`: Kubernetes' ipaddresses win over OLM's installplans, as kubectl prefers Kubernetes' groups.
    assert_eq!(triple(&r, "ip"), ("networking.k8s.io".into(), "ipaddresses".into(), None));
    // `ev`: the core events over events.k8s.io's.
    assert_eq!(triple(&r, "ev"), ("".into(), "events".into(), None));
    // Two CRDs' short names collide: ambiguous, naming both.
    let taken = ["wdg".to_string()];
    r.add_named("other.io", "gadgets", false, &CrdNames { kind: Some("Gadget"), singular: None, short: &taken });
    assert_eq!(
        r.resolve("wdg").unwrap_err(),
        "the resource \"wdg\" is ambiguous: it may be widgets.example.com, gadgets.other.io; name one of them"
    );
    assert_eq!(triple(&r, "gadget").1, "gadgets", "the singular defaults to the kind in lower case");
    // A CRD's short name never shadows Kubernetes' own.
    let evil = ["po".to_string(), "secret".to_string()];
    r.add_named("evil.example.com", "things", false, &CrdNames { kind: Some("Thing"), singular: None, short: &evil });
    assert_eq!(triple(&r, "po").0, "");
    assert_eq!(triple(&r, "secret"), ("".into(), "secrets".into(), None));
    // Nor does a CRD of Kubernetes' own group and plural change its scope.
    r.add_named("networking.k8s.io", "ingresses", true, &CrdNames::default());
    assert_eq!(r.cluster_scoped("networking.k8s.io", "ingresses"), Some(false));
}

#[test]
fn resources_resolve_like_kubectl() {
    let mut r = Resources::builtin();
    add(&mut r, "example.com", "widgets", false);
    assert_eq!(triple(&r, "widgets"), ("example.com".into(), "widgets".into(), None));
    assert_eq!(triple(&r, "pods/log"), ("".into(), "pods".into(), Some("log".into())));
    assert_eq!(triple(&r, "deployments.apps/scale"), ("apps".into(), "deployments".into(), Some("scale".into())));
    add(&mut r, "other.io", "widgets", false);
    assert!(r.resolve("widgets").unwrap_err().contains("ambiguous"));
    // A resource nobody defines is asked about as named, as kubectl asks, and said.
    let gizmos = r.resolve("gizmos").unwrap();
    assert_eq!((gizmos.group.as_str(), gizmos.plural.as_str()), ("", "gizmos"));
    assert!(gizmos.unknown.unwrap().contains("<plural>.<group>"));
    // A CRD whose plural is a core resource's: kubectl answers for the core one.
    add(&mut r, "evil.example.com", "secrets", false);
    assert_eq!(triple(&r, "secrets"), ("".into(), "secrets".into(), None));
    assert_eq!(triple(&r, "secrets.evil.example.com").0, "evil.example.com");
    assert_eq!(triple(&r, "poddisruptionbudgets.policy").0, "policy");
    assert_eq!(triple(&r, "pods.v1."), ("".into(), "pods".into(), None));
    // Any group is asked about, as kubectl asks; `pods.v1` names the group
    // "v1", which the warning says, with the core group's spelling.
    let v1 = r.resolve("pods.v1").unwrap();
    assert_eq!((v1.group.as_str(), v1.plural.as_str()), ("v1", "pods"));
    assert!(v1.unknown.unwrap().contains("name it pods or pods.v1."));
    let any = r.resolve("resource1.group1/subresource1").unwrap();
    assert_eq!(
        (any.group.as_str(), any.plural.as_str(), any.subresource.as_deref()),
        ("group1", "resource1", Some("subresource1"))
    );
}

// ---------------------------------------------------------------------------
// Found in review.

pub(super) fn bind_user(kind: &str, role_kind: &str, role: &str, namespace: Option<&str>, subject: &str) -> String {
    let ns = namespace.map(|n| format!("  namespace: {n}\n")).unwrap_or_default();
    format!("---\napiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: b-{role}\n{ns}subjects: [{subject}]\nroleRef: {{kind: {role_kind}, name: {role}, apiGroup: rbac.authorization.k8s.io}}\n")
}

#[test]
fn a_rolebinding_reaches_its_own_namespace_object() {
    let p = load_str(&format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {{name: ns-admin, namespace: team-a}}\nrules: [{{apiGroups: [\"\"], resources: [namespaces], verbs: [get, delete]}}]\n{}",
        bind_user("RoleBinding", "Role", "ns-admin", Some("team-a"), "{kind: User, name: bob}")
    ));
    let mut own = Request::on("delete", "", "namespaces", Some("team-a"));
    own.name = Some("team-a".into());
    assert!(p.can(&user("bob"), &own).is_some());
    own.name = Some("team-b".into());
    own.namespace = Some("team-b".into());
    assert!(p.can(&user("bob"), &own).is_none(), "only its own namespace");
}

#[test]
fn an_empty_aggregation_selector_selects_every_clusterrole() {
    let p = load_str(&format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: everything}}\naggregationRule: {{clusterRoleSelectors: [{{}}]}}\n---\n{SECRET_READER}{}",
        bind_user("ClusterRoleBinding", "ClusterRole", "everything", None, "{kind: User, name: eve}")
    ));
    assert!(p.can(&user("eve"), &Request::on("get", "", "secrets", None)).is_some());
    assert!(p.can(&user("eve"), &Request::on("delete", "", "nodes", None)).is_some(), "cluster-admin's rules too");
}

#[test]
fn an_aggregating_role_has_only_the_rules_it_selects() {
    let p = load_str(&format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: agg}}\naggregationRule: {{clusterRoleSelectors: [{{matchLabels: {{x: y}}}}]}}\nrules: [{{apiGroups: [\"\"], resources: [secrets], verbs: [get]}}]\n{}",
        bind_user("ClusterRoleBinding", "ClusterRole", "agg", None, "{kind: User, name: eve}")
    ));
    assert!(
        p.can(&user("eve"), &Request::on("get", "", "secrets", None)).is_none(),
        "the controller replaces its rules"
    );
}

#[test]
fn service_account_subject_namespaces() {
    let empty = load_str(&bind_user(
        "RoleBinding",
        "ClusterRole",
        "cluster-admin",
        Some("ci"),
        "{kind: ServiceAccount, name: deployer, namespace: \"\"}",
    ));
    assert!(
        empty.can(&user("system:serviceaccount:ci:deployer"), &Request::on("get", "", "pods", Some("ci"))).is_some(),
        "empty means the binding's"
    );
    let names: Vec<String> =
        who_can(&empty, &Request::on("get", "", "pods", Some("ci"))).iter().map(|a| a.grantee.to_string()).collect();
    assert!(names.contains(&"ServiceAccount ci/deployer".to_string()), "{names:?}");
    let none = load_str(&bind_user(
        "ClusterRoleBinding",
        "ClusterRole",
        "cluster-admin",
        None,
        "{kind: ServiceAccount, name: builder}",
    ));
    assert!(
        none.can(&user("system:serviceaccount::builder"), &Request::on("get", "", "pods", None)).is_none(),
        "matches nobody"
    );
    assert!(who_can(&none, &Request::on("get", "", "pods", None))
        .iter()
        .all(|a| !a.grantee.to_string().contains("builder")));
}

#[test]
fn who_can_lists_a_subject_once_with_or_without_api_group() {
    let mut yaml = SECRET_READER.to_string();
    for (i, subject) in ["{kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}", "{kind: User, name: alice}"]
        .iter()
        .enumerate()
    {
        yaml.push_str(
            &bind_user("ClusterRoleBinding", "ClusterRole", "secret-reader", None, subject)
                .replace("b-secret-reader", &format!("b{i}")),
        );
    }
    let p = load_str(&yaml);
    let alice = who_can(&p, &Request::on("get", "", "secrets", None))
        .into_iter()
        .filter(|a| a.grantee.to_string() == "User alice")
        .count();
    assert_eq!(alice, 1);
}

#[test]
fn holders_of_built_in_roles_are_always_shown_and_cluster_scope_says_how() {
    let mut cluster = WIDGET_VIEW.to_string();
    cluster.push_str("---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec: {group: example.com, names: {plural: widgets, kind: Widget}, scope: Cluster}\n");
    cluster.push_str(&bind_user("RoleBinding", "Role", "view", Some("x"), "{kind: User, name: u}"));
    let p = load_str(&cluster);
    let holders: Vec<String> = who_can(&p, &Request::on("get", "example.com", "widgets", None))
        .iter()
        .map(|a| a.grantee.to_string())
        .collect();
    assert!(holders.contains(&"anyone bound to ClusterRole view by a ClusterRoleBinding".to_string()), "{holders:?}");
}

#[test]
fn explanations_show_the_core_group_and_kubectl_resource_forms_resolve() {
    let rule = PolicyRule {
        api_groups: Some(vec!["".into(), "apps".into()]),
        resources: Some(vec!["pods".into()]),
        verbs: vec!["get".into()],
        ..Default::default()
    };
    assert!(describe_rule(&rule).contains("apiGroups=[\"\",apps]"), "{}", describe_rule(&rule));
    let r = Resources::builtin();
    assert_eq!(triple(&r, "deployments.v1.apps"), ("apps".into(), "deployments".into(), None));
    assert_eq!(r.resolve("widgets.v1beta2.example.com").unwrap().group, "example.com");
    assert_eq!(triple(&r, "*"), ("*".into(), "*".into(), None));
}

#[test]
fn typed_lists_are_read() {
    let p = load_str("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBindingList\nitems:\n- apiVersion: rbac.authorization.k8s.io/v1\n  kind: ClusterRoleBinding\n  metadata: {name: bob-admin}\n  subjects: [{kind: User, name: bob}]\n  roleRef: {kind: ClusterRole, name: cluster-admin, apiGroup: rbac.authorization.k8s.io}\n");
    assert!(p.can(&user("bob"), &Request::on("get", "", "pods", None)).is_some());
}

#[test]
fn the_report_counts_partial_access_and_collapses_cluster_wide_scope() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec: {group: example.com, names: {plural: widgets, kind: Widget}, scope: Namespaced}\n";
    let writer = "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: w}\nrules: [{apiGroups: [example.com], resources: [widgets], verbs: [create, update, patch]}]\n";
    let p = load_str(&format!(
        "{crd}{writer}{}",
        bind_user("ClusterRoleBinding", "ClusterRole", "w", None, "{kind: User, name: bob}")
    ));
    assert!(matrix::build(&p).cluster_admins_only.is_empty(), "bob can create widgets");

    let all = "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: all}\nrules: [{apiGroups: [example.com], resources: [widgets], verbs: [\"*\"]}]\n";
    let both = format!(
        "{crd}{all}{}{}",
        bind_user("ClusterRoleBinding", "ClusterRole", "all", None, "{kind: User, name: alice}"),
        bind_user("RoleBinding", "ClusterRole", "all", Some("team-a"), "{kind: User, name: alice}")
    );
    let report = matrix::build(&load_str(&both));
    let admin = &report.extensions[0].apis[0].admin;
    assert_eq!(admin.iter().find(|h| h.holder == "User alice").map(|h| h.scope.clone()), Some(vec!["*".to_string()]));
}

#[test]
fn only_stdin_from_a_terminal_is_refused() {
    let refused = commands::refuse_terminal("who-can", false, true).expect("no -f, a terminal");
    assert_eq!(refused.code, commands::INPUT_ERROR);
    assert!(refused.stderr.starts_with("error: who-can reads rendered manifests, and stdin is a terminal"));
    assert!(commands::refuse_terminal("who-can", true, true).is_none(), "-f given");
    assert!(commands::refuse_terminal("who-can", false, false).is_none(), "a pipe or a file on stdin");
}

#[test]
fn read_counts_objects_and_warns_about_items_without_apiversion_or_kind() {
    let text = format!(
        "{SECRET_READER}---\nmetadata: {{name: orphan}}\nrules: []\n---\napiVersion: v1\nkind: List\nitems:\n- kind: ClusterRole\n  metadata: {{name: half}}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: c}}\n---\n# only a comment\n"
    );
    let loaded = read(&[Source { name: "in.yaml".into(), text }], BuiltinRoles::default()).unwrap();
    assert_eq!(loaded.objects, 2, "the ClusterRole and the ConfigMap; not the List itself");
    assert_eq!(
        loaded.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "warning: orphan: this document is not a Kubernetes object (no apiVersion and no kind); ignored (line 10) [in.yaml#1]",
            "warning: List (unnamed): items[0]: this list item is not a Kubernetes object (no apiVersion); ignored (line 16) [in.yaml#2]",
        ]
    );
    assert!(loaded.policy.cluster_roles.contains_key("secret-reader"));
    assert!(!loaded.policy.cluster_roles.contains_key("half"), "an item without apiVersion is skipped");
    let empty = read(&[Source { name: "-".into(), text: String::new() }], BuiltinRoles::default()).unwrap();
    assert_eq!((empty.objects, empty.warnings.len()), (0, 0));
}

/// Kubernetes' authorizer reads a request without a name as the name `""`,
/// so `resourceNames: [""]` allows it; the escalation check, as Kubernetes'
/// comparator, does not read an unnamed atom as covered by named rules.
#[test]
fn an_empty_resource_name_is_a_request_without_a_name() {
    let rule = PolicyRule {
        api_groups: Some(vec![String::new()]),
        resources: Some(vec!["configmaps".into()]),
        resource_names: Some(vec![String::new()]),
        verbs: vec!["list".into()],
        ..Default::default()
    };
    assert!(rule_allows(&rule, &Request::on("list", "", "configmaps", Some("a"))));
    let mut named = Request::on("list", "", "configmaps", Some("a"));
    named.name = Some("x".into());
    assert!(!rule_allows(&rule, &named));
    let atom =
        cover::Atom::Resource { group: String::new(), resource: "configmaps".into(), verb: "list".into(), name: None };
    assert!(!cover::covers(&[rule], &[atom.to_rule()]));
}

/// The kernel reads Kubernetes' bootstrap data without the input's YAML
/// reader; read as rendered manifests, the same files make the same roles
/// and bindings, label for label and rule for rule.
#[test]
fn the_bootstrap_data_reads_as_the_same_manifests_would() {
    let inputs: Vec<Source> =
        builtin::files().into_iter().map(|(name, text)| Source { name, text: text.to_string() }).collect();
    let mut read = read(&inputs, BuiltinRoles::None).unwrap().policy;
    read.cluster_roles.values_mut().for_each(|r| r.builtin = true);
    read.bindings.iter_mut().for_each(|b| b.builtin = true);
    let kernel = builtin::policy().unwrap();
    assert_eq!(format!("{:?}", read.cluster_roles), format!("{:?}", kernel.cluster_roles));
    assert_eq!(format!("{:?}", read.bindings), format!("{:?}", kernel.bindings));
    assert_eq!(read.kept_as_written, kernel.kept_as_written);
    assert!(read.roles.is_empty() && kernel.roles.is_empty() && kernel.apis.is_empty());
    assert_eq!((kernel.cluster_roles.len(), kernel.bindings.len()), (31, 12));
}

/// Who may act as a ServiceAccount: each way opens by its own request (a
/// token only for that account, a workload by create, update or patch, exec
/// by create on pods/exec), anywhere a binding reaches the account's
/// namespace; the account itself and bindings elsewhere do not count.
#[test]
fn who_can_become_a_service_account() {
    let role = |name: &str, rule: &str| {
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: {name}}}\nrules: [{rule}]\n---\n")
    };
    let bind = |kind: &str, ns: Option<&str>, role: &str, subject: &str| {
        let (binding, ns) = match ns {
            Some(ns) => ("RoleBinding", format!(", namespace: {ns}")),
            None => ("ClusterRoleBinding", String::new()),
        };
        format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: {binding}\nmetadata: {{name: {role}-{kind}{}{ns}}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: {role}}}\nsubjects: [{subject}]\n---\n", subject.len())
    };
    let user = |name: &str| format!("{{kind: User, name: {name}, apiGroup: rbac.authorization.k8s.io}}");
    let op = "{kind: ServiceAccount, name: op, namespace: ops}";
    let yaml = [
        role("pods", "{apiGroups: [''], resources: [pods], verbs: [create]}"),
        role(
            "other-token",
            "{apiGroups: [''], resources: [serviceaccounts/token], verbs: [create], resourceNames: [other]}",
        ),
        role("op-token", "{apiGroups: [''], resources: [serviceaccounts/token], verbs: [create], resourceNames: [op]}"),
        role("patch-deploys", "{apiGroups: [apps], resources: [deployments], verbs: [patch]}"),
        role("exec", "{apiGroups: [''], resources: [pods/exec], verbs: [create]}"),
        role("patch-pods", "{apiGroups: [''], resources: [pods], verbs: [patch]}"),
        role("ephemeral", "{apiGroups: [''], resources: [pods/ephemeralcontainers], verbs: [update]}"),
        role("ws-exec", "{apiGroups: [''], resources: [pods/attach], verbs: [get]}"),
        role("make-secrets", "{apiGroups: [''], resources: [secrets], verbs: [create]}"),
        role("read-secrets", "{apiGroups: [''], resources: [secrets], verbs: [get]}"),
        role(
            "impersonate-op",
            "{apiGroups: [''], resources: [serviceaccounts], verbs: [impersonate], resourceNames: [op]}",
        ),
        bind("a", Some("ops"), "other-token", &user("alice")),
        bind("b", Some("ops"), "patch-deploys", &user("bob")),
        bind("c", None, "exec", &user("carol")),
        bind("d", Some("team-a"), "pods", &user("dave")),
        bind("e", Some("ops"), "op-token", &user("eve")),
        bind("f", Some("ops"), "patch-pods", &user("frank")),
        bind("g", Some("ops"), "ephemeral", &user("gina")),
        bind("h", Some("ops"), "make-secrets", &user("hank")),
        bind("i", Some("ops"), "make-secrets", &user("ivy")),
        bind("i2", Some("ops"), "read-secrets", &user("ivy")),
        bind("j", Some("ops"), "impersonate-op", &user("jo")),
        bind("k", Some("ops"), "ws-exec", &user("karl")),
        bind("o", Some("ops"), "pods", op),
    ]
    .concat();
    let p = load_str(&yaml);
    let found: Vec<(String, Vec<&str>)> =
        p.who_can_become("ops", "op").into_iter().map(|b| (b.grantee.to_string(), b.ways)).collect();
    let all = [
        "create pods",
        "create or change workloads",
        "change pods",
        "exec into or attach to pods",
        "create a token Secret for it and read it",
        "request its tokens",
        "impersonate it",
    ];
    let want = vec![
        ("User bob".to_string(), vec!["create or change workloads"]),
        ("User carol".to_string(), vec!["exec into or attach to pods"]),
        ("User eve".to_string(), vec!["request its tokens"]),
        ("User frank".to_string(), vec!["change pods"]),
        ("User gina".to_string(), vec!["add ephemeral containers"]),
        // Creating Secrets alone reads no token: hank is no one's deputy.
        ("User ivy".to_string(), vec!["create a token Secret for it and read it"]),
        ("User jo".to_string(), vec!["impersonate it"]),
        ("User karl".to_string(), vec!["exec into or attach to pods"]),
        // Kubernetes' admin and edit roles do these, where they are bound.
        ("anyone bound to ClusterRole admin".to_string(), all.to_vec()),
        ("anyone bound to ClusterRole edit".to_string(), all.to_vec()),
    ];
    let mut found = found;
    found.sort();
    assert_eq!(found, want);
}

/// Text from the input never reorders or hides what a terminal shows:
/// control characters, bidirectional overrides and zero-width characters
/// are written as escapes.
#[test]
fn printable_escapes_what_a_terminal_would_not_show_as_itself() {
    use super::table::printable;
    assert_eq!(printable("plain-name.v1"), "plain-name.v1");
    assert_eq!(printable("a\u{202e}b"), "a\\u{202e}b");
    assert_eq!(printable("a\u{200b}b\u{1b}[2J"), "a\\u{200b}b\\u{1b}[2J");
    assert_eq!(printable("a\u{2066}b\u{feff}"), "a\\u{2066}b\\u{feff}");
}
