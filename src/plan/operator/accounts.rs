//! The objects olm-rbac writes for a ServiceAccount (the operator's or the
//! installer's): their labels and annotation, and a role with its binding.

use std::collections::BTreeMap;

use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::model::*;

use crate::plan::apis::roles::generated_labels;
use crate::plan::types::{About, Made, Object};

/// `<namespace>/<name>` of the ServiceAccount an object is for.
pub(crate) const SERVICE_ACCOUNT_ANNOTATION: &str = "olm-rbac.io/service-account";

/// Whose account olm-rbac writes RBAC for: its `olm-rbac.io/role` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AccountRole {
    /// The operator's: the CSV's rules (`spec.operator`).
    Operator,
    /// The installer's: what installing the bundle takes (`spec.installer`).
    Installer,
}

impl AccountRole {
    /// The `olm-rbac.io/role` label's value.
    pub(crate) fn label(self) -> &'static str {
        match self {
            AccountRole::Operator => "operator",
            AccountRole::Installer => "installer",
        }
    }

    /// The role a label value names, if it is an account's.
    pub(crate) fn of_label(value: &str) -> Option<AccountRole> {
        [AccountRole::Operator, AccountRole::Installer].into_iter().find(|r| r.label() == value)
    }
}

/// What an object says it was written for: whose account (its
/// `olm-rbac.io/role` label) and which (its `olm-rbac.io/service-account`
/// annotation), when it says both. A claim, like every label: the caller
/// decides what it is worth by where the object comes from.
pub(crate) fn claimed_account(o: &InputObject) -> Option<(AccountRole, &str)> {
    let role = o.header.labels.get(ROLE_LABEL).and_then(|r| AccountRole::of_label(r))?;
    Some((role, o.header.annotations.get(SERVICE_ACCOUNT_ANNOTATION)?.as_str()))
}

/// A ServiceAccount olm-rbac writes RBAC for.
pub(crate) struct Account<'a> {
    pub extension: &'a str,
    pub role: AccountRole,
    pub account: ServiceAccountRef,
}

impl Account<'_> {
    /// Metadata of an object written for the account.
    pub(crate) fn metadata(&self, name: &str, namespace: Option<&str>) -> ObjectMeta {
        ObjectMeta {
            name: Some(name.to_string()),
            namespace: namespace.map(String::from),
            labels: Some(generated_labels(self.extension, self.role.label())),
            annotations: Some(BTreeMap::from([(
                SERVICE_ACCOUNT_ANNOTATION.to_string(),
                self.account.qualified_name(),
            )])),
            ..Default::default()
        }
    }

    /// What the account's objects are for.
    pub(crate) fn about(&self) -> About {
        match self.role {
            AccountRole::Operator => About::Operator(self.account.clone()),
            AccountRole::Installer => About::Installer(self.account.clone()),
        }
    }

    /// A ClusterRole with `rules` and its ClusterRoleBinding to the account.
    pub(crate) fn cluster_pair(&self, name: &str, rules: Vec<PolicyRule>) -> [Made; 2] {
        [
            Object::ClusterRole(ClusterRole {
                metadata: self.metadata(name, None),
                rules: Some(rules),
                aggregation_rule: None,
            }),
            Object::ClusterRoleBinding(ClusterRoleBinding {
                metadata: self.metadata(name, None),
                role_ref: RoleRefKind::ClusterRole.role_ref(name),
                subjects: Some(vec![self.account.subject()]),
            }),
        ]
        .map(|o| (self.about(), o))
    }

    /// A Role with `rules` in `namespace` and its RoleBinding to the account.
    pub(crate) fn namespace_pair(&self, name: &str, namespace: &str, rules: Vec<PolicyRule>) -> [Made; 2] {
        [
            Object::Role(Role { metadata: self.metadata(name, Some(namespace)), rules: Some(rules) }),
            Object::RoleBinding(RoleBinding {
                metadata: self.metadata(name, Some(namespace)),
                role_ref: RoleRefKind::Role.role_ref(name),
                subjects: Some(vec![self.account.subject()]),
            }),
        ]
        .map(|o| (self.about(), o))
    }
}
