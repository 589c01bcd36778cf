//! The RBAC API's own words, as types: the kinds of subject, of role and of
//! binding, and the built-in roles whose holders the checks name. A string
//! from the input becomes one of these where a decision is made on it; one
//! that is none of them grants nothing, as on a cluster.

use std::fmt;

use k8s_openapi::api::rbac::v1::Subject;

/// The kind of a binding's subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SubjectKind {
    User,
    Group,
    ServiceAccount,
}

impl SubjectKind {
    /// The kind `subject` names; `None` for any other, which matches nobody.
    pub fn of(subject: &Subject) -> Option<SubjectKind> {
        match subject.kind.as_str() {
            "User" => Some(SubjectKind::User),
            "Group" => Some(SubjectKind::Group),
            "ServiceAccount" => Some(SubjectKind::ServiceAccount),
            _ => None,
        }
    }
}

/// The kind of role a binding's `roleRef` names, and of a role object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RoleRefKind {
    Role,
    ClusterRole,
}

impl RoleRefKind {
    /// `Role` or `ClusterRole`; `None` for any other kind, which binds nothing.
    pub fn parse(kind: &str) -> Option<RoleRefKind> {
        match kind {
            "Role" => Some(RoleRefKind::Role),
            "ClusterRole" => Some(RoleRefKind::ClusterRole),
            _ => None,
        }
    }
}

/// The kind of a binding: a RoleBinding grants in its namespace, a
/// ClusterRoleBinding everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum BindingKind {
    RoleBinding,
    ClusterRoleBinding,
}

impl BindingKind {
    /// `RoleBinding` or `ClusterRoleBinding`; `None` for any other kind.
    pub fn parse(kind: &str) -> Option<BindingKind> {
        match kind {
            "RoleBinding" => Some(BindingKind::RoleBinding),
            "ClusterRoleBinding" => Some(BindingKind::ClusterRoleBinding),
            _ => None,
        }
    }

    /// The kind of a binding that is in `namespace` (a RoleBinding) or in none.
    pub fn in_namespace(namespace: Option<&str>) -> BindingKind {
        match namespace {
            Some(_) => BindingKind::RoleBinding,
            None => BindingKind::ClusterRoleBinding,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            BindingKind::RoleBinding => "RoleBinding",
            BindingKind::ClusterRoleBinding => "ClusterRoleBinding",
        }
    }
}

/// Kubernetes' user-facing roles that aggregate others by label (`admin`,
/// `edit`, `view`): the access levels `report` lists, and the roles whose
/// holders `who-can` names, since bindings to them usually live on the
/// cluster rather than in the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AggregatedRole {
    Admin,
    Edit,
    View,
}

impl AggregatedRole {
    /// From the most access to the least.
    pub const ALL: [AggregatedRole; 3] = [AggregatedRole::Admin, AggregatedRole::Edit, AggregatedRole::View];

    /// The ClusterRole's name.
    pub fn name(self) -> &'static str {
        match self {
            AggregatedRole::Admin => "admin",
            AggregatedRole::Edit => "edit",
            AggregatedRole::View => "view",
        }
    }
}

impl fmt::Display for AggregatedRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
