//! `who-can`: every subject a request is allowed to, where, and through what;
//! and whoever is bound to a built-in aggregated role that allows it.

use std::fmt;

use k8s_openapi::api::rbac::v1::Subject;

use super::allowed::Place;
use super::request::subject_namespace;
use super::{AggregatingRole, Asked, GrantChain, Policy, Request, SubjectKind, Via, MASTERS};

impl Policy {
    /// Every subject that may make the request in the place: cluster-wide
    /// (ClusterRoleBindings only), in one namespace, or in each namespace
    /// (each answer says where). The group `system:masters` comes first, for
    /// every request and whatever the input and the built-in roles hold, as
    /// Kubernetes' subject locator (`AllowedSubjects`) names it: the API
    /// server allows it everything. Holders of the built-in aggregated roles
    /// appear as [`Grantee::AnyoneBoundTo`], since bindings to them usually live
    /// on the cluster, not in the input.
    pub(crate) fn who_can(&self, asked: Asked<'_>, place: Place<'_>) -> Vec<HeldAccess> {
        let mut out = self.who_can_through_each(asked, place);
        out.dedup_by(|a, b| a.grantee == b.grantee && a.namespace == b.namespace);
        out
    }

    /// [`Policy::who_can`] before it keeps one answer per grantee and place:
    /// an answer per binding that grants it, in the same order (the report's
    /// graphs draw every binding through which a subject holds access).
    pub(crate) fn who_can_through_each(&self, asked: Asked<'_>, place: Place<'_>) -> Vec<HeldAccess> {
        // First among its own answers (the sort is stable), so that it is the
        // one `who_can` keeps of the privileged group's.
        let mut out: Vec<HeldAccess> = vec![privileged_group()];
        for b in &self.bindings {
            // The request as made where the binding could answer it.
            let scoped;
            let here = match asked {
                Asked::Resource(req) => {
                    let namespace = match place {
                        Place::ClusterWide => None,
                        Place::Namespace(ns) => Some(ns.to_string()),
                        Place::Each => b.namespace.clone(),
                    };
                    scoped = Request { namespace, ..req.clone() };
                    Asked::Resource(&scoped)
                }
                Asked::Url(_) => asked,
            };
            let Some(chain) = self.chains_through(b, here).into_iter().next() else { continue };
            for s in &b.subjects {
                let Some(subject) = as_named(s, b.namespace.as_deref()) else { continue };
                out.push(HeldAccess {
                    grantee: Grantee::Subject(subject),
                    namespace: b.namespace.clone(),
                    chain: chain.clone(),
                });
            }
        }
        out.extend(self.aggregated_role_holders(asked, place));
        out.sort_by(|a, b| (a.grantee.sort_key(), &a.namespace).cmp(&(b.grantee.sort_key(), &b.namespace)));
        out
    }

    /// Whoever is bound to `admin`, `edit` or `view`, if the role allows the
    /// request: for a cluster-scoped resource, a URL or a cluster-wide
    /// question, through a ClusterRoleBinding only.
    fn aggregated_role_holders(&self, asked: Asked<'_>, place: Place<'_>) -> Vec<HeldAccess> {
        let cluster_binding_only = place == Place::ClusterWide
            || match asked {
                Asked::Resource(req) => self.cluster_scoped(req),
                Asked::Url(_) => true,
            };
        let namespace = match place {
            Place::Namespace(ns) if !cluster_binding_only => Some(ns.to_string()),
            _ => None,
        };
        let mut out = Vec::new();
        for aggregated in AggregatingRole::ALL {
            let Some(role) = self.cluster_roles.get(aggregated.name()) else { continue };
            let Some((roles, rule)) = self.effective_rules(role).into_iter().find(|(_, r)| asked.allowed_by(r)) else {
                continue;
            };
            let chain = GrantChain {
                via: Via::AnyBindingTo(aggregated),
                roles: self.chain_roles(&roles, true),
                rule,
                namespace: namespace.clone(),
            };
            let grantee = Grantee::AnyoneBoundTo { role: aggregated, cluster_binding_only };
            out.push(HeldAccess { grantee, namespace: namespace.clone(), chain });
        }
        out
    }
}

/// `system:masters`, cluster-wide: the API server allows it every request
/// before RBAC is asked, so it holds whatever is asked, everywhere.
fn privileged_group() -> HeldAccess {
    let subject = Subject { kind: "Group".into(), name: MASTERS.into(), ..Default::default() };
    HeldAccess { grantee: Grantee::Subject(subject), namespace: None, chain: GrantChain::privileged_group() }
}

/// A binding's subject as one names it everywhere: without `apiGroup`
/// (written or not, the subject is the same), a ServiceAccount with its
/// namespace (its RoleBinding's when it has none). `None` for a
/// ServiceAccount that matches nobody (in a ClusterRoleBinding, without a
/// namespace).
pub(crate) fn as_named(s: &Subject, binding_namespace: Option<&str>) -> Option<Subject> {
    let mut subject = s.clone();
    subject.api_group = None;
    if SubjectKind::of(&subject) == Some(SubjectKind::ServiceAccount) {
        subject.namespace = Some(subject_namespace(s, binding_namespace)?.to_string());
    }
    Some(subject)
}

/// To whom access is granted: a subject of a binding, or whoever is bound to
/// a built-in aggregated role somewhere the input does not show.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Grantee {
    Subject(Subject),
    /// Whoever is bound to this built-in role; for a cluster-scoped request,
    /// only through a ClusterRoleBinding.
    AnyoneBoundTo {
        role: AggregatingRole,
        cluster_binding_only: bool,
    },
}

impl Grantee {
    /// `system:masters` first, as Kubernetes names it; then whoever is bound
    /// to a built-in role; then subjects by kind, namespace and name.
    fn sort_key(&self) -> (u8, String, String, String) {
        match self {
            Grantee::Subject(s) if SubjectKind::of(s) == Some(SubjectKind::Group) && s.name == MASTERS => {
                (0, String::new(), String::new(), String::new())
            }
            Grantee::AnyoneBoundTo { role, .. } => (1, String::new(), String::new(), role.name().to_string()),
            Grantee::Subject(s) => (2, s.kind.clone(), s.namespace.clone().unwrap_or_default(), s.name.clone()),
        }
    }
}

impl fmt::Display for Grantee {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Grantee::AnyoneBoundTo { role, cluster_binding_only: false } => {
                write!(f, "anyone bound to ClusterRole {role}")
            }
            Grantee::AnyoneBoundTo { role, cluster_binding_only: true } => {
                write!(f, "anyone bound to ClusterRole {role} by a ClusterRoleBinding")
            }
            Grantee::Subject(s) => match &s.namespace {
                Some(ns) => write!(f, "{} {ns}/{}", s.kind, s.name),
                None => write!(f, "{} {}", s.kind, s.name),
            },
        }
    }
}

/// One answer of [`Policy::who_can`]: a grantee that may make the request,
/// where, and the chain that grants it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HeldAccess {
    pub grantee: Grantee,
    /// `None`: cluster-wide, or for [`Grantee::AnyoneBoundTo`] without
    /// `cluster_binding_only`, wherever they are bound.
    pub namespace: Option<String>,
    pub chain: GrantChain,
}
