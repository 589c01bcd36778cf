//! Why a request is allowed: the chain from a binding through the roles it
//! reaches to the rule that allows it, and how each is written for a user.

use std::fmt;

use k8s_openapi::api::rbac::v1::PolicyRule;

use super::{builtin, AggregatingRole};

/// A role of a grant's chain, and whether it is Kubernetes' built-in one
/// (from the bootstrap policy, [`builtin`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainRole {
    /// Its name: a ClusterRole's or, first in a chain whose binding names a Role, that Role's.
    pub name: String,
    /// Kubernetes' bootstrap ClusterRole, written `(built-in)` in the chain.
    pub builtin: bool,
}

impl PartialEq<&str> for ChainRole {
    fn eq(&self, other: &&str) -> bool {
        self.name == *other
    }
}

/// What a grant comes through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// A binding: a RoleBinding (its namespace set) or a ClusterRoleBinding;
    /// `builtin` when it is Kubernetes' own ([`builtin`]).
    Binding {
        /// The RoleBinding's namespace; `None` for a ClusterRoleBinding.
        namespace: Option<String>,
        /// The binding's name.
        name: String,
        /// One of Kubernetes' bootstrap ClusterRoleBindings, not the input's.
        builtin: bool,
    },
    /// Any binding to this built-in ClusterRole, wherever one is.
    AnyBindingTo(AggregatingRole),
    /// Kubernetes' privileged group, `system:masters`: the API server allows
    /// it every request, whatever RBAC holds, and RBAC's subject locator
    /// (`AllowedSubjects`) names it for every request.
    PrivilegedGroup,
}

impl Via {
    /// Is it one of Kubernetes' bootstrap bindings?
    pub fn builtin(&self) -> bool {
        matches!(self, Via::Binding { builtin: true, .. })
    }

    /// Is it Kubernetes' own, not the input's: a bootstrap binding, or the
    /// privileged group?
    pub fn kubernetes_own(&self) -> bool {
        self.builtin() || *self == Via::PrivilegedGroup
    }
}

/// `RoleBinding NAMESPACE/NAME`, `ClusterRoleBinding NAME`, or `any binding
/// to ClusterRole NAME`.
impl fmt::Display for Via {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Via::Binding { namespace: Some(ns), name, .. } => write!(f, "RoleBinding {ns}/{name}"),
            Via::Binding { namespace: None, name, .. } => write!(f, "ClusterRoleBinding {name}"),
            Via::AnyBindingTo(role) => write!(f, "any binding to ClusterRole {role}"),
            Via::PrivilegedGroup => {
                write!(f, "Kubernetes' privileged group: the API server allows it every request, whatever RBAC holds")
            }
        }
    }
}

/// Why a request is allowed: binding → role → (aggregated roles) → rule.
#[derive(Debug, Clone, PartialEq)]
pub struct GrantChain {
    /// The binding that grants it, or any binding to a built-in role.
    pub via: Via,
    /// The roles from the bound role down to the one that holds the rule,
    /// each aggregated into the one before it.
    pub roles: Vec<ChainRole>,
    /// The rule that allows the request.
    pub rule: PolicyRule,
    /// `None`: cluster-wide.
    pub namespace: Option<String>,
}

/// `RoleBinding team-a/x → edit (built-in, Kubernetes 1.33) ← aggregates
/// view (built-in) ← aggregates widgets-view → rule …`: each role after the
/// first is one the role before it aggregates; the first built-in binding or
/// role of the chain names the Kubernetes release, the others are `(built-in)`.
impl fmt::Display for GrantChain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut versioned = false;
        let mut mark = |builtin: bool| match (builtin, versioned) {
            (false, _) => String::new(),
            (true, true) => " (built-in)".to_string(),
            (true, false) => {
                versioned = true;
                format!(" (built-in, Kubernetes {})", builtin::KUBERNETES_VERSION)
            }
        };
        if self.via == Via::PrivilegedGroup {
            return write!(f, "{}", self.via);
        }
        write!(f, "{}{}", self.via, mark(self.via.builtin()))?;
        for (i, role) in self.roles.iter().enumerate() {
            let step = if i == 0 { "→" } else { "← aggregates" };
            write!(f, " {step} {}{}", role.name, mark(role.builtin))?;
        }
        write!(f, " → rule {}", describe_rule(&self.rule))
    }
}

/// A rule as the checks and results write it: `verbs=[…] apiGroups=[…] resources=[…]`, then its non-resource
/// URLs and resource names when it has any (the core group written `""`).
pub fn describe_rule(rule: &PolicyRule) -> String {
    let list = |v: &Option<Vec<String>>| v.as_deref().map(|v| v.join(",")).unwrap_or_default();
    // The core group is the empty string: show it as "".
    let groups: Vec<&str> =
        rule.api_groups.iter().flatten().map(|g| if g.is_empty() { "\"\"" } else { g.as_str() }).collect();
    let urls = list(&rule.non_resource_urls);
    if !urls.is_empty() && rule.resources.as_ref().is_none_or(|r| r.is_empty()) {
        return format!("verbs=[{}] nonResourceURLs=[{urls}]", rule.verbs.join(","));
    }
    let mut out = format!(
        "verbs=[{}] apiGroups=[{}] resources=[{}]",
        rule.verbs.join(","),
        groups.join(","),
        list(&rule.resources)
    );
    if !urls.is_empty() {
        out.push_str(&format!(" nonResourceURLs=[{urls}]"));
    }
    if rule.resource_names.as_ref().is_some_and(|n| !n.is_empty()) {
        out.push_str(&format!(" resourceNames=[{}]", list(&rule.resource_names)));
    }
    out
}

impl GrantChain {
    /// `system:masters`' grant: the API server allows the group every
    /// request before RBAC is asked, cluster-wide.
    pub(crate) fn privileged_group() -> GrantChain {
        let every = || Some(vec!["*".to_string()]);
        let rule = PolicyRule {
            verbs: vec!["*".into()],
            api_groups: every(),
            resources: every(),
            non_resource_urls: every(),
            resource_names: None,
        };
        GrantChain { via: Via::PrivilegedGroup, roles: Vec::new(), rule, namespace: None }
    }
}
