//! A generated object as the judgement and the kernel read objects: the
//! typed views a role or binding read from the input has, built field by
//! field from the object olm-rbac writes, never through its text.

use k8s_openapi::api::rbac::v1::{AggregationRule, PolicyRule, RoleRef, Subject};
use k8s_openapi::Resource;

use super::Object;
use crate::model::{
    AggregationView, BindingView, Body, Header, InputObject, RoleRefView, RoleView, RuleView, SubjectView,
};

impl Object {
    /// The object as an input's role or binding is read (`None` for the
    /// other kinds, which hold no RBAC): what `kubectl apply` of it leaves
    /// for the kernel to resolve.
    pub(crate) fn as_input_object(&self) -> Option<InputObject> {
        use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
        let (api_version, kind, body) = match self {
            Object::ClusterRole(r) => (
                ClusterRole::API_VERSION,
                ClusterRole::KIND,
                Body::Role(role(r.rules.as_deref(), r.aggregation_rule.as_ref())),
            ),
            Object::Role(r) => (Role::API_VERSION, Role::KIND, Body::Role(role(r.rules.as_deref(), None))),
            Object::ClusterRoleBinding(b) => (
                ClusterRoleBinding::API_VERSION,
                ClusterRoleBinding::KIND,
                Body::Binding(binding(&b.role_ref, b.subjects.as_deref())),
            ),
            Object::RoleBinding(b) => (
                RoleBinding::API_VERSION,
                RoleBinding::KIND,
                Body::Binding(binding(&b.role_ref, b.subjects.as_deref())),
            ),
            Object::ServiceAccount(_) | Object::AdmissionPolicy(_) | Object::AdmissionPolicyBinding(_) => return None,
        };
        let meta = self.metadata();
        let header = Header {
            api_version: Some(api_version.to_string()),
            kind: Some(kind.to_string()),
            name: meta.name.clone(),
            namespace: meta.namespace.clone(),
            labels: meta.labels.clone().unwrap_or_default(),
            annotations: meta.annotations.clone().unwrap_or_default(),
            list: false,
        };
        Some(InputObject { header, body, file: None })
    }
}

fn role(rules: Option<&[PolicyRule]>, aggregation: Option<&AggregationRule>) -> RoleView {
    RoleView {
        rules: rules.unwrap_or_default().iter().map(rule).collect(),
        aggregation_rule: aggregation
            .map(|a| AggregationView { cluster_role_selectors: a.cluster_role_selectors.clone().unwrap_or_default() }),
    }
}

fn rule(r: &PolicyRule) -> RuleView {
    let list = |v: &Option<Vec<String>>| v.clone().unwrap_or_default();
    RuleView {
        api_groups: list(&r.api_groups),
        resources: list(&r.resources),
        verbs: r.verbs.clone(),
        resource_names: list(&r.resource_names),
        non_resource_urls: list(&r.non_resource_urls),
    }
}

fn binding(role_ref: &RoleRef, subjects: Option<&[Subject]>) -> BindingView {
    BindingView {
        role_ref: RoleRefView { kind: Some(role_ref.kind.clone()), name: Some(role_ref.name.clone()) },
        subjects: subjects
            .unwrap_or_default()
            .iter()
            .map(|s| SubjectView {
                kind: Some(s.kind.clone()),
                name: Some(s.name.clone()),
                namespace: s.namespace.clone(),
                api_group: s.api_group.clone(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::rbac::v1::{ClusterRole, RoleBinding};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};

    /// What the typed conversion gives is what reading the object's own
    /// JSON through the input's views gives: the same header, rules and
    /// subjects, field for field.
    #[test]
    fn the_conversion_reads_as_the_objects_text_reads() {
        let meta = |name: &str, ns: Option<&str>| ObjectMeta {
            name: Some(name.into()),
            namespace: ns.map(str::to_string),
            labels: Some([("a".to_string(), "b".to_string())].into()),
            annotations: Some([("c".to_string(), "d".to_string())].into()),
            ..Default::default()
        };
        let objects = [
            Object::ClusterRole(ClusterRole {
                metadata: meta("r", None),
                rules: Some(vec![
                    PolicyRule {
                        api_groups: Some(vec!["".into()]),
                        resources: Some(vec!["pods".into(), "pods/exec".into()]),
                        verbs: vec!["get".into()],
                        resource_names: Some(vec!["x".into()]),
                        non_resource_urls: None,
                    },
                    PolicyRule {
                        non_resource_urls: Some(vec!["/healthz".into()]),
                        verbs: vec!["get".into()],
                        ..Default::default()
                    },
                ]),
                aggregation_rule: Some(AggregationRule {
                    cluster_role_selectors: Some(vec![LabelSelector {
                        match_labels: Some([("k".to_string(), "v".to_string())].into()),
                        ..Default::default()
                    }]),
                }),
            }),
            Object::RoleBinding(RoleBinding {
                metadata: meta("b", Some("ns")),
                role_ref: RoleRef {
                    api_group: "rbac.authorization.k8s.io".into(),
                    kind: "Role".into(),
                    name: "r".into(),
                },
                subjects: Some(vec![Subject {
                    kind: "ServiceAccount".into(),
                    name: "sa".into(),
                    namespace: Some("ns".into()),
                    api_group: None,
                }]),
            }),
        ];
        for object in &objects {
            let typed = object.as_input_object().unwrap();
            let value = serde_json::to_value(object).unwrap();
            let read: Body = match &typed.body {
                Body::Role(_) => Body::Role(serde_json::from_value(value.clone()).unwrap()),
                _ => Body::Binding(serde_json::from_value(value.clone()).unwrap()),
            };
            assert_eq!(format!("{:?}", typed.body), format!("{read:?}"));
            assert_eq!(typed.header.api_version.as_deref(), value["apiVersion"].as_str());
            assert_eq!(typed.header.kind.as_deref(), value["kind"].as_str());
            assert_eq!(typed.header.name.as_deref(), value["metadata"]["name"].as_str());
            assert_eq!(typed.header.namespace.as_deref(), value["metadata"]["namespace"].as_str());
            assert_eq!(typed.header.labels.get("a").map(String::as_str), Some("b"));
        }
    }
}
