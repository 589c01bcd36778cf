use super::*;

#[test]
fn every_verb_reading_first() {
    assert_eq!(VERBS, ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"]);
    assert!(EDIT.iter().all(|v| WRITE.contains(v)) && !EDIT.contains(&"deletecollection"));
}

#[test]
fn selectors_need_every_label_and_requirement() {
    let labels = BTreeMap::from([("tier".to_string(), "web".to_string())]);
    let web = ["web".to_string()];
    let matches = |op: Option<Operator>, key: &str| selector_matches([], [(key, op, &web[..])], &labels);
    assert!(matches(Some(Operator::In), "tier") && !matches(Some(Operator::NotIn), "tier"));
    assert!(matches(Some(Operator::Exists), "tier") && matches(Some(Operator::DoesNotExist), "zone"));
    assert!(!matches(None, "tier"), "an unknown operator holds for nothing");
    assert!(selector_matches([], [], &labels), "an empty selector selects everything");
    assert_eq!(Operator::parse("NotIn"), Some(Operator::NotIn));
    assert_eq!(Operator::parse("in"), None);
}

#[test]
fn the_group_is_what_comes_before_the_version() {
    assert_eq!(group_of("rbac.authorization.k8s.io/v1"), Some("rbac.authorization.k8s.io"));
    assert_eq!(group_of("v1"), Some(""));
    assert_eq!(ApiVersion::parse("apps/v1"), Some(ApiVersion { group: "apps", version: "v1" }));
    for refused in ["a/b/c", "/v1", "apps/", ""] {
        assert_eq!(group_of(refused), None, "{refused:?}");
    }
    let header = |v: Option<&str>| Header { api_version: v.map(String::from), ..Default::default() };
    assert_eq!(header(Some("v1")).group(), Some(""));
    assert_eq!(header(None).group(), None);
}

#[test]
fn a_kind_of_another_group_is_named_with_its_group() {
    let at = |api_version: &str, kind: &str| {
        ObjRef { api_version: api_version.into(), kind: kind.into(), name: "a".into(), namespace: None }.to_string()
    };
    assert_eq!(at("rbac.authorization.k8s.io/v1", "ClusterRole"), "ClusterRole a");
    assert_eq!(at("evil.example.com/v1", "ClusterRole"), "ClusterRole.evil.example.com a");
    assert_eq!(at("operators.coreos.com/v1alpha1", "ClusterServiceVersion"), "ClusterServiceVersion a");
    assert_eq!(at("argoproj.io/v1beta1", "ArgoCD"), "ArgoCD.argoproj.io a");
    assert_eq!(at("v1", "ConfigMap"), "ConfigMap a");
    assert_eq!(at("v1", "ClusterRole"), "ClusterRole (v1) a");
    assert_eq!(at("", "ClusterRole"), "ClusterRole a");
    assert_eq!(at("v1", "List"), "List a");
    assert_eq!(at("rbac.authorization.k8s.io/v1", "ClusterRoleList"), "ClusterRoleList a");
    assert_eq!(at("evil.example.com/v1", "ClusterRoleList"), "ClusterRoleList.evil.example.com a");
    assert_eq!(at(CONFIG_API_VERSION, CONFIG_KIND), "RBACConfig a");
    assert_eq!(at("olm-rbac.io/v1", CONFIG_KIND), "RBACConfig.olm-rbac.io a");
}
