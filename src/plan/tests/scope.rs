//! One scope table: whether a resource is cluster-scoped is read from
//! Kubernetes' and OLM's kinds and the input's CRDs under one precedence
//! rule, and the planner (an object's identity) and the access kernel
//! (`can-i`, the gate's evaluator) read the same answer.

use super::*;
use crate::access::Resources;
use crate::plan::facts::trust::identity;

/// `crd`, with its kind and scope.
fn crd_scoped(plural: &str, group: &str, kind: &str, scope: &str) -> InputObject {
    let mut o = crd(plural, group, "v1");
    if let Body::Crd(v) = &mut o.body {
        v.spec.names.kind = Some(kind.into());
        v.spec.scope = Some(scope.into());
    }
    o
}

fn object(api_version: &str, kind: &str, namespace: &str) -> InputObject {
    let mut header = header(api_version, kind, "x");
    header.namespace = Some(namespace.into());
    InputObject { header, body: Body::Other, file: None }
}

#[test]
fn a_crd_sets_the_scope_of_an_operator_kind_for_every_reader_alike() {
    let monitor = object("monitoring.coreos.com/v1", "ServiceMonitor", "ops");
    // Without a CRD, the well-known kind's own scope: namespaced.
    let alone = Resources::of_input([&monitor]);
    assert_eq!(identity(&monitor, &alone).2.as_deref(), Some("ops"));
    // The input's CRD makes it cluster-scoped: the API server drops the
    // namespace, and the kernel reads the resource as cluster-scoped.
    let objects = [crd_scoped("servicemonitors", "monitoring.coreos.com", "ServiceMonitor", "Cluster"), monitor];
    let table = Resources::of_input(&objects);
    assert_eq!(identity(&objects[1], &table).2, None);
    assert_eq!(table.cluster_scoped("monitoring.coreos.com", "servicemonitors"), Some(true));
    let kernel = crate::access::from_objects(&objects);
    assert_eq!(kernel.resources.cluster_scoped("monitoring.coreos.com", "servicemonitors"), Some(true));
}

#[test]
fn the_platform_keeps_its_own_kinds_whatever_a_crd_says() {
    for (plural, group, kind, api_version) in [
        ("deployments", "apps", "Deployment", "apps/v1"),
        ("subscriptions", "operators.coreos.com", "Subscription", "operators.coreos.com/v1alpha1"),
    ] {
        let objects = [crd_scoped(plural, group, kind, "Cluster"), object(api_version, kind, "ops")];
        let table = Resources::of_input(&objects);
        assert_eq!(identity(&objects[1], &table).2.as_deref(), Some("ops"), "{kind}");
        assert_eq!(table.cluster_scoped(group, plural), Some(false), "{kind}");
        assert_eq!(crate::access::from_objects(&objects).resources.cluster_scoped(group, plural), Some(false));
    }
}

#[test]
fn kinds_are_read_as_written_and_unknown_ones_by_their_group() {
    let table = Resources::of_input(&[crd_scoped("widgets", "example.com", "Widget", "Cluster")]);
    assert!(table.kind_is_cluster_scoped("example.com", "Widget"));
    assert!(!table.kind_is_cluster_scoped("example.com", "widget"), "kinds are case-sensitive");
    assert!(table.kind_is_cluster_scoped("admissionregistration.k8s.io", "SomeNewPolicy"));
    assert!(table.kind_is_cluster_scoped("olm.operatorframework.io", "ClusterThing"));
    assert!(!table.kind_is_cluster_scoped("example.com", "Gadget"));
    assert!(table.kind_is_cluster_scoped("", "Namespace"));
    assert!(!table.kind_is_cluster_scoped("", "ConfigMap"));
}

/// A request's scope follows the same one rule for what the table does not
/// know as a kind's, by plural: never a second default.
#[test]
fn requests_are_read_by_the_same_rule_as_kinds() {
    let table = Resources::of_input(&[crd_scoped("widgets", "example.com", "Widget", "Cluster")]);
    let asks = |g: &str, p: &str| table.request_is_cluster_scoped(g, p, None, Some("team-a"));
    assert!(asks("example.com", "widgets"));
    assert!(asks("admissionregistration.k8s.io", "somenewpolicies"), "an unknown admission resource");
    assert!(asks("olm.operatorframework.io", "clusterthings"));
    assert!(!asks("example.com", "gadgets"));
    assert!(!asks("", "configmaps"));
    assert!(asks("", "namespaces"), "the Namespace objects are cluster-scoped");
    // One Namespace object, asked in itself, is asked in that namespace.
    assert!(!table.request_is_cluster_scoped("", "namespaces", Some("team-a"), Some("team-a")));
    assert!(table.request_is_cluster_scoped("", "namespaces", Some("team-b"), Some("team-a")));
}

#[test]
fn a_crd_scope_the_api_server_would_refuse_is_refused() {
    let objects = [crd_scoped("widgets", "example.com", "Widget", "cluster")];
    let plan = plan_of(Config::new("widgets", Mode::Aggregate), &objects);
    let said: Vec<String> = errors(&plan).iter().map(|f| f.said()).collect();
    assert!(
        said.iter()
            .any(|s| s.contains("spec.scope: \"cluster\" is not a scope: the API server takes Cluster or Namespaced")),
        "{said:?}"
    );
}

/// `crd_scoped`, written as `apiextensions.k8s.io/<version>` with `scope`
/// as given (`None`: no `spec.scope` at all).
fn crd_in(version: &str, scope: Option<&str>) -> InputObject {
    let mut o = crd_scoped("widgets", "example.com", "Widget", "Namespaced");
    let api_version = format!("apiextensions.k8s.io/{version}");
    o.header.api_version = Some(api_version.clone());
    if let Body::Crd(v) = &mut o.body {
        v.api_version = Some(api_version);
        v.spec.scope = scope.map(str::to_string);
    }
    o
}

/// `spec.scope` as the API server reads it, in one place (`CrdView::scope`),
/// for the planner and the scope table alike: apiextensions v1beta1's
/// defaulting (`SetDefaults_CustomResourceDefinitionSpec`) fills an empty or
/// missing scope in as Namespaced; v1's has no such default, and its
/// validation requires the field. Two real bundles (hive-operator 1.1.5,
/// multicluster-operators-subscription 0.2.6) write `scope: ""` on v1beta1 CRDs.
#[test]
fn a_crd_scope_is_read_as_the_api_server_defaults_and_validates_it() {
    use crate::model::CrdScope::{Cluster, Namespaced};
    let cases: [(&str, Option<&str>, Option<crate::model::CrdScope>); 10] = [
        ("v1", Some("Cluster"), Some(Cluster)),
        ("v1", Some("Namespaced"), Some(Namespaced)),
        ("v1beta1", Some("Cluster"), Some(Cluster)),
        ("v1beta1", Some("Namespaced"), Some(Namespaced)),
        ("v1beta1", Some(""), Some(Namespaced)),
        ("v1beta1", None, Some(Namespaced)),
        ("v1", Some(""), None),
        ("v1", None, None),
        ("v1", Some("cluster"), None),
        ("v1beta1", Some("namespaced"), None),
    ];
    for (version, scope, read) in cases {
        let objects = [crd_in(version, scope)];
        let Body::Crd(view) = &objects[0].body else { unreachable!() };
        assert_eq!(view.scope().ok(), read, "{version} {scope:?}");
        let plan = plan_of(Config::new("widgets", Mode::Aggregate), &objects);
        let refused =
            errors(&plan).iter().any(|f| f.code == Code::CrdInvalid && f.field.as_deref() == Some("spec.scope"));
        assert_eq!(refused, read.is_none(), "{version} {scope:?}: {:?}", plan.results());
        let cluster = Resources::of_input(&objects).cluster_scoped("example.com", "widgets");
        assert_eq!(cluster, Some(read == Some(Cluster)), "{version} {scope:?}");
    }
}

#[test]
fn a_crd_cannot_take_over_the_kind_of_a_platform_resource() {
    // A CRD declaring OLM v1's ClusterExtension kind under another plural
    // (sorting before `clusterextensions`) is never established: the kind
    // stays OLM's, cluster-scoped, so two copies are one object.
    let objects = [
        crd_scoped("aaa", "olm.operatorframework.io", "ClusterExtension", "Namespaced"),
        object("olm.operatorframework.io/v1", "ClusterExtension", "ops"),
    ];
    let table = Resources::of_input(&objects);
    let r = table.of_kind("olm.operatorframework.io", "ClusterExtension").unwrap();
    assert_eq!((r.plural.as_str(), r.cluster), ("clusterextensions", true));
    assert_eq!(identity(&objects[1], &table).2, None);
    // A kind only a CRD declares is that CRD's.
    let objects = [crd_scoped("gadgets", "example.com", "Gadget", "Cluster")];
    let r = Resources::of_input(&objects).of_kind("example.com", "Gadget").unwrap();
    assert_eq!((r.plural.as_str(), r.cluster), ("gadgets", true));
}

#[test]
fn a_later_crd_of_the_same_resource_takes_its_kind_and_the_old_kind_is_forgotten() {
    // Two CRDs of widgets.example.com: the later one, as the last applied,
    // names the kind; the earlier kind no longer names any resource.
    let objects = [
        crd_scoped("widgets", "example.com", "Widget", "Namespaced"),
        crd_scoped("widgets", "example.com", "Gizmo", "Cluster"),
    ];
    let table = Resources::of_input(&objects);
    assert_eq!(table.of_kind("example.com", "Widget"), None);
    let r = table.of_kind("example.com", "Gizmo").unwrap();
    assert_eq!((r.plural.as_str(), r.cluster), ("widgets", true));
    // Two resources declaring one kind: the first by plural, among equals.
    let objects = [
        crd_scoped("widgets", "example.com", "Widget", "Namespaced"),
        crd_scoped("awidgets", "example.com", "Widget", "Cluster"),
    ];
    let r = Resources::of_input(&objects).of_kind("example.com", "Widget").unwrap();
    assert_eq!((r.plural.as_str(), r.cluster), ("awidgets", true));
}
