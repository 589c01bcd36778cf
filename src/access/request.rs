//! What is asked, and by whom: a request as the API server's authorizer sees
//! it, a non-resource URL, and the identity asking with the groups it is in.

use std::collections::BTreeSet;

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};

use super::matches::{self, rule_allows};
use super::SubjectKind;

/// The user the API server takes an unauthenticated request as.
const ANONYMOUS: &str = "system:anonymous";
/// The group of every authenticated user, and of every unauthenticated one.
const AUTHENTICATED: &str = "system:authenticated";
const UNAUTHENTICATED: &str = "system:unauthenticated";
/// A ServiceAccount's username is this, its namespace, `:` and its name.
const SERVICE_ACCOUNT_USER: &str = "system:serviceaccount:";
/// The group of every ServiceAccount; with `:NAMESPACE`, of those in one namespace.
const SERVICE_ACCOUNTS: &str = "system:serviceaccounts";
/// The group whose members may do everything (cluster-admins).
pub(crate) const MASTERS: &str = "system:masters";

/// A request, as the API server's authorizer sees it. `namespace: None` asks
/// cluster-wide (which only ClusterRoleBindings answer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The verb: `get`, `list`, `create`, `escalate`, …
    pub verb: String,
    /// The API group; `""` is the core group.
    pub group: String,
    /// The resource's plural (`deployments`).
    pub resource: String,
    /// The subresource (`status`, `exec`), matched as `resource/subresource`.
    pub subresource: Option<String>,
    /// One object's name, which rules with `resourceNames` may allow; `None` asks of every object.
    pub name: Option<String>,
    /// The namespace asked in; `None` asks cluster-wide.
    pub namespace: Option<String>,
}

impl Request {
    /// A request on a whole resource (no subresource, no name), in `namespace`
    /// or cluster-wide.
    pub fn on(verb: &str, group: &str, resource: &str, namespace: Option<&str>) -> Request {
        Request {
            verb: verb.into(),
            group: group.into(),
            resource: resource.into(),
            subresource: None,
            name: None,
            namespace: namespace.map(String::from),
        }
    }
}

/// Who is asking: a user and its groups, as the API server would see them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The username (`alice`, `system:serviceaccount:NS:NAME`), matched by `User` and `ServiceAccount` subjects.
    pub user: String,
    /// Every group it is in, the implied ones included ([`Identity::new`]), matched by `Group` subjects.
    pub groups: BTreeSet<String>,
}

impl Identity {
    /// `--as USER --as-group G...`: every user is in `system:authenticated`, and
    /// a service account user (`system:serviceaccount:NS:NAME`) is also in
    /// `system:serviceaccounts` and `system:serviceaccounts:NS`.
    pub fn new(user: &str, groups: &[String]) -> Identity {
        let mut all: BTreeSet<String> = groups.iter().cloned().collect();
        if user == ANONYMOUS {
            all.insert(UNAUTHENTICATED.into());
        } else {
            all.insert(AUTHENTICATED.into());
        }
        if let Some((ns, _)) = service_account(user) {
            all.insert(SERVICE_ACCOUNTS.into());
            all.insert(format!("{SERVICE_ACCOUNTS}:{ns}"));
        }
        Identity { user: user.to_string(), groups: all }
    }

    /// The ServiceAccount `namespace/name`, as the API server sees it.
    pub fn service_account(namespace: &str, name: &str) -> Identity {
        Identity::new(&format!("{SERVICE_ACCOUNT_USER}{namespace}:{name}"), &[])
    }

    pub(crate) fn is_subject(&self, subject: &Subject, binding_namespace: Option<&str>) -> bool {
        match SubjectKind::of(subject) {
            Some(SubjectKind::User) => subject.name == self.user,
            Some(SubjectKind::Group) => self.groups.contains(&subject.name),
            Some(SubjectKind::ServiceAccount) => match subject_namespace(subject, binding_namespace) {
                Some(ns) => service_account(&self.user) == Some((ns, subject.name.as_str())),
                None => false,
            },
            None => false,
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
    let rest = user.strip_prefix(SERVICE_ACCOUNT_USER)?;
    rest.split_once(':')
}

/// A request for a non-resource URL (`/healthz`, `/metrics`): a verb and a
/// path, which only ClusterRoleBindings grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlRequest {
    /// The verb (`get`, `post`, …).
    pub verb: String,
    /// The URL path, as asked (`/healthz/ready`).
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
