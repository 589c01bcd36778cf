//! `can-i -A` and `can-i --list`: what one identity may do, in one namespace,
//! cluster-wide or in each, listed one entry per rule and place.

use super::commands;
use super::tests::{bind_user, load_str, user, POD_READER, SECRET_READER, WIDGET_VIEW};
use crate::access::allowed::{resource_text, Permission, Place, Target};
use crate::access::{Identity, Policy, Request};
use crate::input::Source;

/// jane reads pods in default (Role), dave reads secrets in development
/// (RoleBinding to a ClusterRole), the group manager reads secrets everywhere.
fn three_bindings() -> Policy {
    load_str(&format!(
        "{POD_READER}---\n{SECRET_READER}{}{}",
        bind_user("RoleBinding", "ClusterRole", "secret-reader", Some("development"), "{kind: User, name: dave}"),
        bind_user("ClusterRoleBinding", "ClusterRole", "secret-reader", None, "{kind: Group, name: manager}")
    ))
}

/// `can-i -A` asks what `kubectl auth can-i -A` asks: the request in every
/// namespace at once, which only cluster-wide grants answer (a RoleBinding
/// answers for its own namespace only).
#[test]
fn all_namespaces_is_answered_by_cluster_wide_grants_only() {
    let p = three_bindings();
    assert!(p.can(&user("jane"), &Request::on("get", "", "pods", Some("default"))).is_some(), "jane may in default");
    assert!(p.can(&user("jane"), &Request::on("get", "", "pods", None)).is_none(), "but not in every namespace");
    let managers = Identity::new("mia", &["manager".into()]);
    assert!(p.can(&managers, &Request::on("get", "", "secrets", None)).is_some(), "a ClusterRoleBinding answers");
}

fn resources(groups: &[&str], resources: &[&str], names: &[&str]) -> Target {
    let list = |v: &[&str]| v.iter().map(|x| x.to_string()).collect();
    Target::Resources { groups: list(groups), resources: list(resources), names: list(names) }
}

/// What `who` may do in `place` beyond what every authenticated user may
/// (the bootstrap policy's discovery and self-review grants).
fn own_permissions(p: &Policy, who: &Identity, place: Place<'_>) -> Vec<Permission> {
    let everyone = p.permissions(&user("someone-with-no-bindings"), place);
    p.permissions(who, place).into_iter().filter(|x| !everyone.contains(x)).collect()
}

fn resource(group: &str, resource: &str, name: Option<&str>) -> Target {
    resources(&[group], &[resource], name.as_slice())
}

fn permission(namespace: Option<&str>, target: Target, verbs: &[&str]) -> Permission {
    Permission { namespace: namespace.map(String::from), target, verbs: verbs.iter().map(|v| v.to_string()).collect() }
}

#[test]
fn permissions_follow_the_place_asked_about() {
    let p = three_bindings();
    let secrets = |ns: Option<&str>| permission(ns, resource("", "secrets", None), &["get", "list", "watch"]);
    let pods = |ns: Option<&str>| permission(ns, resource("", "pods", None), &["get", "list", "watch"]);
    assert!(own_permissions(&p, &user("jane"), Place::ClusterWide).is_empty(), "a Role grants nothing cluster-wide");
    assert_eq!(own_permissions(&p, &user("jane"), Place::Namespace("default")), [pods(Some("default"))]);
    assert!(own_permissions(&p, &user("jane"), Place::Namespace("development")).is_empty());
    assert_eq!(own_permissions(&p, &user("jane"), Place::Each), [pods(Some("default"))]);
    let both = Identity::new("dave", &["manager".into()]);
    assert_eq!(own_permissions(&p, &both, Place::ClusterWide), [secrets(None)]);
    assert_eq!(
        own_permissions(&p, &both, Place::Namespace("development")),
        [secrets(Some("development"))],
        "the cluster-wide and the namespace grant merge into one line"
    );
    assert_eq!(
        own_permissions(&p, &both, Place::Each),
        [secrets(None), secrets(Some("development"))],
        "cluster-wide first"
    );
}

#[test]
fn permissions_merge_verbs_break_down_rules_and_follow_aggregation() {
    let p = load_str(&format!(
        "{WIDGET_VIEW}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: widgets-edit\n  labels: {{rbac.authorization.k8s.io/aggregate-to-edit: \"true\"}}\nrules:\n- {{apiGroups: [example.com], resources: [widgets, widgets/status], verbs: [patch, create, custom]}}\n- {{apiGroups: [\"\"], resources: [configmaps], resourceNames: [b, a], verbs: [get]}}\n- {{apiGroups: [\"\"], resources: [configmaps], resourceNames: [a], verbs: [\"*\", update]}}\n{}",
        bind_user("RoleBinding", "ClusterRole", "edit", Some("team-a"), "{kind: User, name: u}")
    ));
    let all = own_permissions(&p, &user("u"), Place::Namespace("team-a"));
    let widgets_and_configmaps: Vec<Permission> = all
        .iter()
        .filter(|x| {
            matches!(&x.target, Target::Resources { groups, resources, names }
                if groups.iter().any(|g| g == "example.com") || (resources[..] == ["configmaps"] && !names.is_empty()))
        })
        .cloned()
        .collect();
    assert_eq!(
        widgets_and_configmaps,
        [
            permission(Some("team-a"), resource("", "configmaps", Some("a")), &["*"]),
            permission(Some("team-a"), resources(&[""], &["configmaps"], &["a", "b"]), &["get"]),
            permission(Some("team-a"), resource("example.com", "widgets", None), &["get", "list", "watch"]),
            permission(
                Some("team-a"),
                resources(&["example.com"], &["widgets", "widgets/status"], &[]),
                &["create", "patch", "custom"]
            ),
        ],
        "edit aggregates widgets-edit and, through view, widgets-view: one entry per rule"
    );
    assert_eq!(resource_text("example.com", "widgets/status"), "widgets.example.com/status");
    assert_eq!(resource("", "configmaps", Some("a")).resources_text(), "configmaps");
    assert_eq!(
        resources(&["example.com"], &["widgets", "widgets/status"], &[]).resources_text(),
        "widgets.example.com widgets.example.com/status"
    );
    assert_eq!(resources(&["", "apps"], &["deployments"], &[]).resources_text(), "deployments deployments.apps");
    assert_eq!(
        resources(&["", "apps"], &["deployments", "pods/log"], &[]).resources_text(),
        "{deployments,pods/log}.{\"\",apps}",
        "every resource in every group"
    );
    // The bootstrap edit role's own rules come through aggregation too.
    let u = user("u");
    for resource in ["pods", "configmaps", "secrets"] {
        assert!(p.can(&u, &Request::on("deletecollection", "", resource, Some("team-a"))).is_some(), "{resource}");
    }
    assert!(
        p.can(&u, &Request::on("create", "rbac.authorization.k8s.io", "roles", Some("team-a"))).is_none(),
        "role writing is admin's"
    );
}

#[test]
fn permissions_of_a_rolebinding_are_what_it_grants_in_its_namespace() {
    let p = load_str(&format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: mixed}}\nrules:\n- {{apiGroups: [\"\"], resources: [nodes, namespaces, pods], verbs: [get]}}\n- {{nonResourceURLs: [/logs], verbs: [get]}}\n{}{}",
        bind_user("RoleBinding", "ClusterRole", "mixed", Some("team-a"), "{kind: User, name: u}"),
        bind_user("ClusterRoleBinding", "ClusterRole", "mixed", None, "{kind: User, name: c}")
    ));
    assert_eq!(
        own_permissions(&p, &user("u"), Place::Each),
        [
            permission(Some("team-a"), resource("", "namespaces", Some("team-a")), &["get"]),
            permission(Some("team-a"), resource("", "pods", None), &["get"]),
        ],
        "no nodes, no URL; only its own Namespace object"
    );
    assert_eq!(
        own_permissions(&p, &user("c"), Place::ClusterWide),
        [
            permission(None, resources(&[""], &["namespaces", "nodes", "pods"], &[]), &["get"]),
            permission(None, Target::Urls(vec!["/logs".into()]), &["get"]),
        ],
        "a ClusterRoleBinding grants all of it, URLs last"
    );
    let masters = Identity::new("root", &["system:masters".into()]);
    assert_eq!(
        own_permissions(&p, &masters, Place::ClusterWide),
        [permission(None, resource("*", "*", None), &["*"]), permission(None, Target::Urls(vec!["*".into()]), &["*"])]
    );
}

/// A RoleBinding's rule over groups where some resources are cluster-scoped:
/// each group keeps what it grants in the namespace, in few entries.
#[test]
fn a_rolebinding_takes_cluster_scoped_resources_out_group_by_group() {
    let crd = |group: &str, plural: &str, scope: &str| {
        format!("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: {plural}.{group}}}\nspec: {{group: {group}, names: {{plural: {plural}, kind: K}}, scope: {scope}}}\n---\n")
    };
    let p = load_str(&format!(
        "{}{}apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: mixed}}\nrules:\n- {{apiGroups: [a.io, b.io, c.io, \"\"], resources: [tops, things, namespaces, pods], resourceNames: [x, team-a], verbs: [get]}}\n{}",
        crd("a.io", "tops", "Cluster"),
        crd("b.io", "things", "Cluster"),
        bind_user("RoleBinding", "ClusterRole", "mixed", Some("team-a"), "{kind: User, name: u}")
    ));
    let names = ["team-a", "x"];
    assert_eq!(
        own_permissions(&p, &user("u"), Place::Namespace("team-a")),
        [
            permission(Some("team-a"), resource("", "namespaces", Some("team-a")), &["get"]),
            permission(Some("team-a"), resources(&["a.io"], &["namespaces", "things"], &names), &["get"]),
            permission(Some("team-a"), resources(&["b.io"], &["namespaces", "tops"], &names), &["get"]),
            permission(
                Some("team-a"),
                resources(&["c.io"], &["namespaces", "pods", "things", "tops"], &names),
                &["get"]
            ),
            permission(Some("team-a"), resources(&["", "a.io", "b.io"], &["pods"], &names), &["get"]),
            permission(Some("team-a"), resources(&[""], &["things", "tops"], &names), &["get"]),
        ],
        "every pair but the three cluster-scoped ones, and the own Namespace"
    );
}

/// The worst shapes a bundle can write: many groups × resources × verbs ×
/// names in one rule, many rules, many bindings, long names. `--list` has one
/// entry per rule and place, never one per group × resource × name.
#[test]
fn listing_grows_with_the_rules_not_their_cross_product() {
    let values =
        |prefix: &str, n: usize| -> Vec<String> { (0..n).map(|i| format!("{prefix}{i}-{}", "x".repeat(60))).collect() };
    let (groups, plurals, names) = (values("g", 200), values("r", 200), values("n", 200));
    let verbs = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];
    let flow = |v: &[String]| v.join(", ");
    let mut yaml = format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: big}}\nrules:\n- {{apiGroups: [{}], resources: [{}], resourceNames: [{}], verbs: [{}]}}\n",
        flow(&groups),
        flow(&plurals),
        flow(&names),
        verbs.join(", ")
    );
    for (i, g) in groups.iter().enumerate() {
        yaml.push_str(&format!("- {{apiGroups: [{g}], resources: [{}], verbs: [get]}}\n", plurals[i]));
    }
    for i in 0..50 {
        yaml.push_str(
            &bind_user("ClusterRoleBinding", "ClusterRole", "big", None, "{kind: User, name: u}")
                .replace("name: b-big\n", &format!("name: b{i}\n")),
        );
        yaml.push_str(&bind_user(
            "RoleBinding",
            "ClusterRole",
            "big",
            Some(&format!("ns{i}")),
            "{kind: User, name: u}",
        ));
    }
    let p = load_str(&yaml);
    let cluster = own_permissions(&p, &user("u"), Place::ClusterWide);
    assert_eq!(cluster.len(), 201, "one entry per rule, however many bindings grant it");
    let big: Vec<&Permission> = cluster.iter().filter(|e| e.verbs.len() > 1).collect();
    let [big] = big[..] else { panic!("one entry for the big rule: {big:?}") };
    let Target::Resources { groups: g, resources: r, names: n } = &big.target else { panic!() };
    assert_eq!((g.len(), r.len(), n.len()), (200, 200, 200));
    assert_eq!(big.verbs, verbs);
    let each = own_permissions(&p, &user("u"), Place::Each);
    assert_eq!(each.len(), 201 * 51, "the cluster-wide entries, then each namespace's");
    let out = commands::can_i_list(
        &[Source { name: "in.yaml".into(), text: yaml.clone() }],
        &commands::CanIList { namespace: None, all_namespaces: false, user: "u", groups: &[] },
    );
    assert_eq!(out.stdout.lines().count(), 206, "a header, a line per rule, and four every authenticated user holds");
    assert!(out.stdout.len() < 4 * yaml.len(), "{} bytes out for {} in", out.stdout.len(), yaml.len());
}
