//! What is asked, and by whom: a request as the API server's authorizer sees
//! it, a non-resource URL, and the identity asking with the groups it is in.

use std::collections::BTreeSet;

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};

use super::matches::{self, rule_allows};

/// A request, as the API server's authorizer sees it. `namespace: None` asks
/// cluster-wide (which only ClusterRoleBindings answer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub verb: String,
    pub group: String,
    pub resource: String,
    pub subresource: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
}

/// Who is asking: a user and its groups, as the API server would see them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub user: String,
    pub groups: BTreeSet<String>,
}

impl Identity {
    /// `--as USER --as-group G...`: every user is in `system:authenticated`, and
    /// a service account user (`system:serviceaccount:NS:NAME`) is also in
    /// `system:serviceaccounts` and `system:serviceaccounts:NS`.
    pub fn new(user: &str, groups: &[String]) -> Identity {
        let mut all: BTreeSet<String> = groups.iter().cloned().collect();
        if user == "system:anonymous" {
            all.insert("system:unauthenticated".into());
        } else {
            all.insert("system:authenticated".into());
        }
        if let Some((ns, _)) = service_account(user) {
            all.insert("system:serviceaccounts".into());
            all.insert(format!("system:serviceaccounts:{ns}"));
        }
        Identity { user: user.to_string(), groups: all }
    }

    pub(crate) fn is_subject(&self, subject: &Subject, binding_namespace: Option<&str>) -> bool {
        match subject.kind.as_str() {
            "User" => subject.name == self.user,
            "Group" => self.groups.contains(&subject.name),
            "ServiceAccount" => match subject_namespace(subject, binding_namespace) {
                Some(ns) => service_account(&self.user) == Some((ns, subject.name.as_str())),
                None => false,
            },
            _ => false,
        }
    }
}

/// A ServiceAccount subject's namespace: its own when set (an empty string
/// counts as unset), else its RoleBinding's; a ClusterRoleBinding subject
/// without one matches nobody.
pub(super) fn subject_namespace<'a>(subject: &'a Subject, binding_namespace: Option<&'a str>) -> Option<&'a str> {
    subject.namespace.as_deref().filter(|ns| !ns.is_empty()).or(binding_namespace)
}

fn service_account(user: &str) -> Option<(&str, &str)> {
    let rest = user.strip_prefix("system:serviceaccount:")?;
    rest.split_once(':')
}

/// A request for a non-resource URL (`/healthz`, `/metrics`): a verb and a
/// path, which only ClusterRoleBindings grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlRequest {
    pub verb: String,
    pub path: String,
}

/// What is asked: a resource request or a non-resource URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Asked<'a> {
    Resource(&'a Request),
    Url(&'a UrlRequest),
}

impl Asked<'_> {
    /// Does the rule allow it?
    pub(super) fn allowed_by(self, rule: &PolicyRule) -> bool {
        match self {
            Asked::Resource(req) => rule_allows(rule, req),
            Asked::Url(req) => matches::verb(rule, &req.verb) && matches::non_resource_url(rule, &req.path),
        }
    }
}
