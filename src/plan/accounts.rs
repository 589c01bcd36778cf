//! The objects olm-rbac writes for a ServiceAccount (the operator's or the
//! installer's): their labels and annotation, and a role with its binding.

use std::collections::BTreeMap;

use k8s_openapi::api::rbac::v1::{
    ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject as K8sSubject,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::model::*;

use super::{About, Made, Object};

/// `<namespace>/<name>` of the ServiceAccount an object is for.
pub(crate) const SERVICE_ACCOUNT_ANNOTATION: &str = "olm-rbac.io/service-account";

/// A ServiceAccount olm-rbac writes RBAC for.
pub(super) struct Account<'a> {
    pub extension: &'a str,
    /// The `olm-rbac.io/role` label: `operator` or `installer`.
    pub role: &'static str,
    pub namespace: &'a str,
    pub name: &'a str,
}

impl Account<'_> {
    /// Metadata of an object written for the account.
    pub(super) fn metadata(&self, name: &str, namespace: Option<&str>) -> ObjectMeta {
        ObjectMeta {
            name: Some(name.to_string()),
            namespace: namespace.map(String::from),
            labels: Some(BTreeMap::from([
                (MANAGED_BY.to_string(), MANAGER.to_string()),
                (EXTENSION_LABEL.to_string(), self.extension.to_string()),
                (ROLE_LABEL.to_string(), self.role.to_string()),
            ])),
            annotations: Some(BTreeMap::from([(
                SERVICE_ACCOUNT_ANNOTATION.to_string(),
                format!("{}/{}", self.namespace, self.name),
            )])),
            ..Default::default()
        }
    }

    fn subjects(&self) -> Option<Vec<K8sSubject>> {
        Some(vec![K8sSubject {
            api_group: Some(String::new()),
            kind: "ServiceAccount".into(),
            name: self.name.to_string(),
            namespace: Some(self.namespace.to_string()),
        }])
    }

    /// What the account's objects are for.
    pub(super) fn about(&self) -> About {
        About::Account(format!("{}/{}", self.namespace, self.name))
    }

    /// A ClusterRole with `rules` and its ClusterRoleBinding to the account.
    pub(super) fn cluster_pair(&self, name: &str, rules: Vec<PolicyRule>) -> [Made; 2] {
        [
            Object::ClusterRole(ClusterRole {
                metadata: self.metadata(name, None),
                rules: Some(rules),
                aggregation_rule: None,
            }),
            Object::ClusterRoleBinding(ClusterRoleBinding {
                metadata: self.metadata(name, None),
                role_ref: role_ref("ClusterRole", name),
                subjects: self.subjects(),
            }),
        ]
        .map(|o| (self.about(), o))
    }

    /// A Role with `rules` in `namespace` and its RoleBinding to the account.
    pub(super) fn namespace_pair(&self, name: &str, namespace: &str, rules: Vec<PolicyRule>) -> [Made; 2] {
        [
            Object::Role(Role { metadata: self.metadata(name, Some(namespace)), rules: Some(rules) }),
            Object::RoleBinding(RoleBinding {
                metadata: self.metadata(name, Some(namespace)),
                role_ref: role_ref("Role", name),
                subjects: self.subjects(),
            }),
        ]
        .map(|o| (self.about(), o))
    }
}

fn role_ref(kind: &str, name: &str) -> RoleRef {
    RoleRef { api_group: "rbac.authorization.k8s.io".into(), kind: kind.into(), name: name.to_string() }
}
