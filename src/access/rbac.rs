//! The RBAC API's own words, as types: the kinds of subject, of role and of
//! binding, and the built-in roles whose holders the checks name. A string
//! from the input becomes one of these where a decision is made on it; one
//! that is none of them grants nothing, as on a cluster.

/// The kind of a binding: a RoleBinding grants in its namespace, a
/// ClusterRoleBinding everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum BindingKind {
    /// A RoleBinding: grants its role in its own namespace only.
    RoleBinding,
    /// A ClusterRoleBinding: grants its ClusterRole in every namespace and cluster-wide.
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

    /// The kind as a manifest writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            BindingKind::RoleBinding => "RoleBinding",
            BindingKind::ClusterRoleBinding => "ClusterRoleBinding",
        }
    }
}
