//! Offline access checks: who may do what, answered from rendered manifests
//! with Kubernetes RBAC semantics (rules, bindings, scope, aggregation).
//!
//! [`Policy`] is built from typed RBAC objects and answers [`Policy::can`] and
//! [`Policy::who_can`] with the chain that grants each answer. Nothing here
//! reads YAML or writes output: [`crate::check`] reads rendered manifests into
//! a policy and prints the answers.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::model::{
    selector_matches, BindingView, Body, CrdView, Header, InputObject, Operator, RoleView, RuleView, SubjectView,
};
use allowed::Place;
use builtin::Bootstrap;

/// A role: its own rules, and for ClusterRoles the selectors it aggregates.
#[derive(Debug, Clone, Default)]
pub struct RoleDef {
    /// `metadata.name`: what a binding's `roleRef.name` refers to.
    pub name: String,
    /// A Role's namespace (`default` when the manifest names none); `None` for a ClusterRole.
    pub namespace: Option<String>,
    /// Its labels, which an aggregating ClusterRole's selectors match.
    pub labels: BTreeMap<String, String>,
    /// The rules written on it; an aggregating ClusterRole's own are replaced by its members'
    /// ([`Policy::effective_rules`]). Shared: every judgement's policy holds
    /// Kubernetes' bootstrap roles, copied from one reading of them.
    pub rules: std::sync::Arc<[PolicyRule]>,
    /// `aggregationRule.clusterRoleSelectors`: the ClusterRoles whose rules it gathers. Empty for a Role.
    pub aggregation: Vec<LabelSelector>,
    /// Not in the input: Kubernetes' bootstrap role, modelled.
    pub builtin: bool,
    /// The input object it was read from, by index, where the caller gave one
    /// ([`Policy::add_object_from`]): how a holding names the object and field
    /// that grant it.
    pub source: Option<usize>,
}

/// A RoleBinding (namespace set) or ClusterRoleBinding.
#[derive(Debug, Clone)]
pub struct BindingDef {
    /// `metadata.name`, as the chain of a grant names it.
    pub name: String,
    /// A RoleBinding's namespace (`default` when the manifest names none), the one it grants in; `None` for a
    /// ClusterRoleBinding.
    pub namespace: Option<String>,
    /// The kind of role it refers to; `None` for a kind the API server
    /// refuses, which binds nothing.
    pub role_kind: Option<RoleRefKind>,
    /// `roleRef.name`: the ClusterRole, or the Role in the binding's namespace, it grants.
    pub role_name: String,
    /// Who it grants the role to: users, groups and ServiceAccounts, as written.
    pub subjects: Vec<Subject>,
    /// Its labels: how `report` finds the operator's and installer's bindings.
    pub labels: BTreeMap<String, String>,
    /// Not in the input: one of Kubernetes' bootstrap ClusterRoleBindings, modelled.
    pub builtin: bool,
    /// The input object it was read from, as for [`RoleDef::source`].
    pub source: Option<usize>,
}

impl BindingDef {
    /// The kind of role the binding refers to; `None` binds nothing.
    pub fn role_ref_kind(&self) -> Option<RoleRefKind> {
        self.role_kind
    }

    /// Whether what it grants holds in the place: a ClusterRoleBinding's
    /// everywhere, a RoleBinding's in its namespace.
    pub(crate) fn applies_in(&self, place: Place<'_>) -> bool {
        match (place, self.namespace.as_deref()) {
            (_, None) | (Place::Each, _) => true,
            (Place::Namespace(ns), Some(bound)) => ns == bound,
            (Place::ClusterWide, Some(_)) => false,
        }
    }
}

/// Everything the checks know: roles, bindings and resource scopes.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// The ClusterRoles, by name: the input's and, where added, Kubernetes' bootstrap ones (reconciled over the
    /// input's of the same name).
    pub cluster_roles: BTreeMap<String, RoleDef>,
    /// The Roles, by (namespace, name).
    pub roles: BTreeMap<(String, String), RoleDef>,
    /// Every RoleBinding and ClusterRoleBinding, in the order read: the first that grants a request is the chain
    /// `can-i --explain` shows.
    pub bindings: Vec<BindingDef>,
    /// Which resources exist and their scope: Kubernetes' own and the input's CRDs.
    pub resources: Resources,
    /// The operator APIs in the input (`<plural>.<group>`), with the extension
    /// whose generated RBAC serves each, if any.
    pub apis: BTreeMap<String, Option<String>>,
    /// The ClusterRoles and ClusterRoleBindings (kind, name) of the input that
    /// opt out of the API server's reconciliation of the bootstrap policy
    /// ([`builtin::AUTOUPDATE_ANNOTATION`] `"false"`): kept as written.
    pub kept_as_written: BTreeSet<(Bootstrap, String)>,
}

impl Policy {
    /// Whether the request is cluster-scoped, as the scope table reads a
    /// request ([`Resources::request_is_cluster_scoped`]).
    fn cluster_scoped(&self, req: &Request) -> bool {
        let (name, namespace) = (req.name.as_deref(), req.namespace.as_deref());
        self.resources.request_is_cluster_scoped(&req.group, &req.resource, name, namespace)
    }

    /// Can a binding apply to this request at all, given its scope?
    fn binding_applies(&self, b: &BindingDef, asked: Asked<'_>) -> bool {
        match (&b.namespace, asked) {
            (None, _) => true,
            // A RoleBinding grants only namespaced resources, only in its namespace.
            (Some(ns), Asked::Resource(req)) => {
                !self.cluster_scoped(req) && req.namespace.as_deref() == Some(ns.as_str())
            }
            // Non-resource URLs are granted cluster-wide only.
            (Some(_), Asked::Url(_)) => false,
        }
    }

    /// The chains through one binding that grant the request, ignoring who
    /// asks: the first rule of its role that allows it, if any.
    fn chains_through(&self, b: &BindingDef, asked: Asked<'_>) -> Option<GrantChain> {
        if !self.binding_applies(b, asked) {
            return None;
        }
        let mut found = None;
        self.visit_binding(b, &mut |held| {
            if !asked.allowed_by(held.rule) {
                return ControlFlow::Continue(());
            }
            found = Some(GrantChain {
                via: Via::Binding { namespace: b.namespace.clone(), name: b.name.clone(), builtin: b.builtin },
                roles: self.chain_roles(held.roles, b.role_ref_kind() == Some(RoleRefKind::ClusterRole)),
                rule: held.rule.clone(),
                namespace: b.namespace.clone(),
            });
            ControlFlow::Break(())
        });
        found
    }

    /// The roles of a path of [`Policy::effective_rules`], marked built-in or
    /// not; the first is a Role, not a ClusterRole, unless `cluster` says so.
    fn chain_roles(&self, path: &[String], cluster: bool) -> Vec<ChainRole> {
        path.iter()
            .enumerate()
            .map(|(i, name)| ChainRole {
                name: name.clone(),
                builtin: (i > 0 || cluster) && self.cluster_roles.get(name).is_some_and(|r| r.builtin),
            })
            .collect()
    }

    /// `kubectl auth can-i`, offline: the first grant found, or `None`.
    pub fn can(&self, who: &Identity, req: &Request) -> Option<GrantChain> {
        self.can_asked(who, Asked::Resource(req))
    }

    /// `kubectl auth can-i VERB /path`, offline: only ClusterRoleBindings grant it.
    pub fn can_url(&self, who: &Identity, req: &UrlRequest) -> Option<GrantChain> {
        self.can_asked(who, Asked::Url(req))
    }

    pub(crate) fn can_asked(&self, who: &Identity, asked: Asked<'_>) -> Option<GrantChain> {
        // The API server allows system:masters every request before RBAC is
        // asked, whatever the policy holds.
        if who.groups.contains(MASTERS) {
            return Some(GrantChain::privileged_group());
        }
        let place = match asked {
            Asked::Resource(req) => req.namespace.as_deref().map_or(Place::ClusterWide, Place::Namespace),
            Asked::Url(_) => Place::ClusterWide,
        };
        self.bindings_for(who, place).find_map(|b| self.chains_through(b, asked))
    }
}

/// Label-selector semantics for aggregation rules ([`selector_matches`]). An
/// empty selector selects every ClusterRole, as Kubernetes reads it.
pub(crate) fn selects(selector: &LabelSelector, labels: &BTreeMap<String, String>) -> bool {
    let requirements = selector
        .match_expressions
        .iter()
        .flatten()
        .map(|e| (e.key.as_str(), Operator::parse(&e.operator), e.values.as_deref().unwrap_or_default()));
    selector_matches(selector.match_labels.iter().flatten(), requirements, labels)
}

/// The policy of the planner's typed views: the same roles and bindings the
/// rendered manifests give `check::load` (which reads them through the same
/// views), for checks that run before anything is rendered (an installer
/// account's rights).
pub(crate) fn from_objects<'a>(objects: impl IntoIterator<Item = &'a InputObject>) -> Policy {
    let mut policy = Policy { resources: Resources::builtin(), ..Default::default() };
    for o in objects {
        policy.add_object(o);
    }
    // The planner reads the cluster's roles as they will be; what the admin's
    // input had set aside is said by the checks that read rendered manifests.
    let _set_aside = builtin::reconcile_into(&mut policy);
    policy
}

impl Policy {
    /// Adds one object: a ClusterRole, Role, binding, or a CRD's resource. The
    /// one way roles and bindings enter a policy, whether read from rendered
    /// manifests or handed over by the planner.
    pub(crate) fn add_object(&mut self, o: &InputObject) {
        self.add_object_from(o, None)
    }

    /// [`Policy::add_object`], recording the role or binding as read from
    /// input object `source` ([`RoleDef::source`]).
    pub(crate) fn add_object_from(&mut self, o: &InputObject, source: Option<usize>) {
        let kind = o.header.kind.as_deref();
        match &o.body {
            Body::Crd(crd) => self.add_crd(crd),
            Body::Role(r) => {
                if let Some(kind) = kind.and_then(RoleRefKind::parse) {
                    self.add_role(&o.header, kind, r, source);
                }
            }
            Body::Binding(b) => {
                if let Some(kind) = kind.and_then(BindingKind::parse) {
                    self.add_binding(&o.header, kind, b, source);
                }
            }
            _ => {}
        }
    }

    /// A CRD's resource: its scope and names, and its API.
    fn add_crd(&mut self, crd: &CrdView) {
        if let Some((g, p)) = self.resources.add_crd(crd) {
            self.apis.entry(format!("{p}.{g}")).or_insert(None);
        }
    }

    fn add_role(&mut self, h: &Header, kind: RoleRefKind, r: &RoleView, source: Option<usize>) {
        let name = h.name.clone().unwrap_or_default();
        let labels = h.labels.clone();
        let rules = r.rules.iter().map(RuleView::to_policy_rule).collect();
        match kind {
            RoleRefKind::ClusterRole => {
                let aggregation = r.aggregation_rule.clone().map(|a| a.cluster_role_selectors).unwrap_or_default();
                let def =
                    RoleDef { name: name.clone(), namespace: None, labels, rules, aggregation, builtin: false, source };
                if opted_out(h) {
                    self.kept_as_written.insert((Bootstrap::ClusterRole, name.clone()));
                }
                self.cluster_roles.insert(name, def);
            }
            RoleRefKind::Role => {
                let ns = h.namespace.clone().unwrap_or_else(|| "default".into());
                let def = RoleDef {
                    name: name.clone(),
                    namespace: Some(ns.clone()),
                    labels,
                    rules,
                    source,
                    ..Default::default()
                };
                self.roles.insert((ns, name), def);
            }
        }
    }

    fn add_binding(&mut self, h: &Header, kind: BindingKind, b: &BindingView, source: Option<usize>) {
        let name = h.name.clone().unwrap_or_default();
        let namespace = match kind {
            BindingKind::RoleBinding => Some(h.namespace.clone().unwrap_or_else(|| "default".into())),
            BindingKind::ClusterRoleBinding => None,
        };
        if opted_out(h) && namespace.is_none() {
            self.kept_as_written.insert((Bootstrap::ClusterRoleBinding, name.clone()));
        }
        self.bindings.push(BindingDef {
            name,
            namespace,
            role_kind: b.role_ref.kind.as_deref().and_then(RoleRefKind::parse),
            role_name: b.role_ref.name.clone().unwrap_or_default(),
            subjects: b.subjects.iter().map(subject_of).collect(),
            labels: h.labels.clone(),
            builtin: false,
            source,
        });
    }
}

/// Does the object opt out of the API server's reconciliation of the
/// bootstrap policy ([`builtin::AUTOUPDATE_ANNOTATION`] `"false"`)?
fn opted_out(h: &Header) -> bool {
    h.annotations.get(builtin::AUTOUPDATE_ANNOTATION).is_some_and(|v| v == "false")
}

fn subject_of(s: &SubjectView) -> Subject {
    Subject {
        kind: s.kind.clone().unwrap_or_default(),
        name: s.name.clone().unwrap_or_default(),
        namespace: s.namespace.clone(),
        api_group: s.api_group.clone(),
    }
}

pub(crate) mod aggregators;
pub(crate) mod allowed;
pub mod builtin;
mod chain;
pub mod cover;
pub mod danger;
mod deputy;
pub(crate) mod diff;
pub mod intercept;
pub(crate) mod matches;
mod rbac;
mod request;
mod resolve;
mod resources;
pub(crate) mod subresources;
pub use crate::model::{AggregatingRole, RoleRefKind, SubjectKind};
pub use chain::{describe_rule, ChainRole, GrantChain, Via};
pub use rbac::BindingKind;
pub(crate) use request::Asked;
pub(crate) use request::MASTERS;
pub use request::{Identity, Request, UrlRequest};
pub use resolve::SourcedRule;
#[cfg(test)]
pub(crate) use resources::CrdNames;
pub use resources::Resources;
mod who;
pub(crate) use deputy::{ByDeputy, Through};
pub(crate) use who::{as_named, Grantee, HeldAccess};
