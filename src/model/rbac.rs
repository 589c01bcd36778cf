//! RBAC's and OLM's own vocabulary, each term a type: a ServiceAccount, the
//! kinds a binding refers to, the built-in roles that gather others by
//! label, and an operator's install modes.

use std::fmt;

use k8s_openapi::api::rbac::v1::{RoleRef, Subject};

use super::{ObjRef, AGGREGATE_PREFIX};

/// The API group of RBAC's kinds, and of a `User` or `Group` subject.
pub(crate) const RBAC_GROUP: &str = "rbac.authorization.k8s.io";
/// OLM v1's API group: `ClusterExtension`, `ClusterCatalog`.
pub(crate) const OLM_V1_GROUP: &str = "olm.operatorframework.io";

/// A ServiceAccount, by namespace and name. Written `<namespace>/<name>` in
/// lists and in olm-rbac's `service-account` annotation (`qualified_name`),
/// `ServiceAccount <namespace>/<name>` in messages (its `Display`), and
/// authenticated by the API server as `system:serviceaccount:<namespace>:<name>`
/// (`username`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct ServiceAccountRef {
    pub namespace: String,
    pub name: String,
}

impl ServiceAccountRef {
    pub(crate) fn new(namespace: impl Into<String>, name: impl Into<String>) -> ServiceAccountRef {
        ServiceAccountRef { namespace: namespace.into(), name: name.into() }
    }

    /// `<namespace>/<name>`.
    pub(crate) fn qualified_name(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }

    /// The user the API server authenticates the account as.
    pub(crate) fn username(&self) -> String {
        format!("system:serviceaccount:{}:{}", self.namespace, self.name)
    }

    /// The account as the object a result is about.
    pub(crate) fn object_ref(&self) -> ObjRef {
        ObjRef {
            api_version: "v1".into(),
            kind: "ServiceAccount".into(),
            name: self.name.clone(),
            namespace: Some(self.namespace.clone()),
        }
    }

    /// The account as a binding's subject.
    pub(crate) fn subject(&self) -> Subject {
        Subject {
            api_group: Some(String::new()),
            kind: "ServiceAccount".into(),
            name: self.name.clone(),
            namespace: Some(self.namespace.clone()),
        }
    }
}

impl fmt::Display for ServiceAccountRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ServiceAccount {}/{}", self.namespace, self.name)
    }
}

// The kind of a binding's subject. (Part of RBACConfig's JSON Schema, where a
// doc comment would become a description: hence `missing_docs` allowed.)
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Deserialize, schemars::JsonSchema)]
pub enum SubjectKind {
    User,
    Group,
    ServiceAccount,
}

impl SubjectKind {
    /// The kind as a binding's subject writes it (`User`, `Group`, `ServiceAccount`).
    pub fn as_str(self) -> &'static str {
        match self {
            SubjectKind::User => "User",
            SubjectKind::Group => "Group",
            SubjectKind::ServiceAccount => "ServiceAccount",
        }
    }

    /// The kind `subject` names; `None` for any other, which matches nobody.
    pub fn of(subject: &Subject) -> Option<SubjectKind> {
        [SubjectKind::User, SubjectKind::Group, SubjectKind::ServiceAccount]
            .into_iter()
            .find(|k| k.as_str() == subject.kind)
    }
}

/// The kind of role a binding refers to (`roleRef.kind`), and of a role object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleRefKind {
    /// A ClusterRole: cluster-wide rules, which a RoleBinding may also grant in its namespace.
    ClusterRole,
    /// A Role: rules in its own namespace, which only a RoleBinding there grants.
    Role,
}

impl RoleRefKind {
    /// The kind as `roleRef.kind` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            RoleRefKind::ClusterRole => "ClusterRole",
            RoleRefKind::Role => "Role",
        }
    }

    /// The kind a binding's `roleRef.kind` names; `None` for anything else,
    /// which binds nothing.
    pub fn parse(kind: &str) -> Option<RoleRefKind> {
        [RoleRefKind::ClusterRole, RoleRefKind::Role].into_iter().find(|k| k.as_str() == kind)
    }

    /// A `roleRef` to the role of this kind named `name`.
    pub(crate) fn role_ref(self, name: &str) -> RoleRef {
        RoleRef { api_group: RBAC_GROUP.into(), kind: self.as_str().into(), name: name.to_string() }
    }
}

/// Kubernetes' built-in ClusterRoles that gather other ClusterRoles by label:
/// whoever holds one of them holds the rules of every ClusterRole labelled
/// `rbac.authorization.k8s.io/aggregate-to-<name>: "true"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AggregatingRole {
    /// `admin`: full access within a namespace, its Roles and RoleBindings included (not its quota or the
    /// namespace itself); it gathers `edit`.
    Admin,
    /// `edit`: read and write of most objects in a namespace, but not its roles or bindings; it gathers `view`.
    Edit,
    /// `view`: read-only access to most objects in a namespace, its roles, bindings and Secrets excepted.
    View,
}

impl AggregatingRole {
    /// From the most access to the least.
    pub const ALL: [AggregatingRole; 3] = [AggregatingRole::Admin, AggregatingRole::Edit, AggregatingRole::View];

    /// The ClusterRole's name.
    pub fn name(self) -> &'static str {
        match self {
            AggregatingRole::Admin => "admin",
            AggregatingRole::Edit => "edit",
            AggregatingRole::View => "view",
        }
    }

    /// The label that puts a ClusterRole's rules into this role.
    pub(crate) fn label(self) -> String {
        format!("{AGGREGATE_PREFIX}{}", self.name())
    }

    /// The role a label key gathers into, if it is one of these.
    pub(crate) fn of_label(key: &str) -> Option<AggregatingRole> {
        AggregatingRole::ALL.into_iter().find(|r| key.strip_prefix(AGGREGATE_PREFIX) == Some(r.name()))
    }
}

impl fmt::Display for AggregatingRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The install modes an operator's ClusterServiceVersion declares
/// (`spec.installModes[].type`): which namespaces it can serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InstallMode {
    /// Its own namespace only.
    OwnNamespace,
    /// One namespace other than its own.
    SingleNamespace,
    /// Several namespaces.
    MultiNamespace,
    /// Every namespace.
    AllNamespaces,
}

impl InstallMode {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            InstallMode::OwnNamespace => "OwnNamespace",
            InstallMode::SingleNamespace => "SingleNamespace",
            InstallMode::MultiNamespace => "MultiNamespace",
            InstallMode::AllNamespaces => "AllNamespaces",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_service_account_is_written_one_way_in_each_place() {
        let sa = ServiceAccountRef::new("ops", "installer");
        assert_eq!(sa.to_string(), "ServiceAccount ops/installer");
        assert_eq!(sa.qualified_name(), "ops/installer");
        assert_eq!(sa.username(), "system:serviceaccount:ops:installer");
    }

    #[test]
    fn aggregation_labels_name_the_built_in_roles() {
        assert_eq!(AggregatingRole::Edit.label(), "rbac.authorization.k8s.io/aggregate-to-edit");
        for role in AggregatingRole::ALL {
            assert_eq!(AggregatingRole::of_label(&role.label()), Some(role));
        }
        assert_eq!(AggregatingRole::of_label("rbac.authorization.k8s.io/aggregate-to-cluster-reader"), None);
        assert_eq!(RoleRefKind::parse("Role"), Some(RoleRefKind::Role));
        assert_eq!(RoleRefKind::parse("role"), None);
    }
}
