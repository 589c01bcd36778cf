//! Offline access checks: who may do what, answered from rendered manifests
//! with Kubernetes RBAC semantics (rules, bindings, scope, aggregation).
//!
//! [`Policy`] is built from typed RBAC objects and answers [`Policy::can`] and
//! [`Policy::who_can`] with the chain that grants each answer. Nothing here
//! reads YAML or writes output: [`crate::check`] reads rendered manifests into
//! a policy and prints the answers.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::model::{selector_matches, Body, InputObject, Operator, RuleView, SubjectView};
use allowed::Place;
use builtin::Bootstrap;

/// A role: its own rules, and for ClusterRoles the selectors it aggregates.
#[derive(Debug, Clone, Default)]
pub struct RoleDef {
    pub name: String,
    pub namespace: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub rules: Vec<PolicyRule>,
    pub aggregation: Vec<LabelSelector>,
    /// Not in the input: Kubernetes' bootstrap role, modelled.
    pub builtin: bool,
}

/// A RoleBinding (namespace set) or ClusterRoleBinding.
#[derive(Debug, Clone)]
pub struct BindingDef {
    pub name: String,
    pub namespace: Option<String>,
    pub role_kind: String,
    pub role_name: String,
    pub subjects: Vec<Subject>,
    /// Its labels: how `report` finds the operator's and installer's bindings.
    pub labels: BTreeMap<String, String>,
    pub builtin: bool,
}

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

    pub(crate) fn is(&self, subject: &Subject, binding_namespace: Option<&str>) -> bool {
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
fn subject_namespace<'a>(subject: &'a Subject, binding_namespace: Option<&'a str>) -> Option<&'a str> {
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
    fn allowed_by(self, rule: &PolicyRule) -> bool {
        match self {
            Asked::Resource(req) => rule_allows(rule, req),
            Asked::Url(req) => matches::verb(rule, &req.verb) && matches::non_resource_url(rule, &req.path),
        }
    }
}

/// A role of a grant's chain, and whether it is Kubernetes' built-in one
/// (from the bootstrap policy, [`builtin`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainRole {
    pub name: String,
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
    Binding { namespace: Option<String>, name: String, builtin: bool },
    /// Any binding to this built-in ClusterRole, wherever one is.
    AnyBindingTo(String),
}

impl Via {
    /// Is it one of Kubernetes' bootstrap bindings?
    pub fn builtin(&self) -> bool {
        matches!(self, Via::Binding { builtin: true, .. })
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
        }
    }
}

/// Why a request is allowed: binding → role → (aggregated roles) → rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Grant {
    pub via: Via,
    /// The roles from the bound role down to the one that holds the rule,
    /// each aggregated into the one before it.
    pub roles: Vec<ChainRole>,
    pub rule: PolicyRule,
    /// `None`: cluster-wide.
    pub namespace: Option<String>,
}

/// `RoleBinding team-a/x → edit (built-in, Kubernetes 1.33) ← aggregates
/// view (built-in) ← aggregates widgets-view → rule …`: each role after the
/// first is one the role before it aggregates; the first built-in binding or
/// role of the chain names the Kubernetes release, the others are `(built-in)`.
impl fmt::Display for Grant {
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
        write!(f, "{}{}", self.via, mark(self.via.builtin()))?;
        for (i, role) in self.roles.iter().enumerate() {
            let step = if i == 0 { "→" } else { "← aggregates" };
            write!(f, " {step} {}{}", role.name, mark(role.builtin))?;
        }
        write!(f, " → rule {}", describe_rule(&self.rule))
    }
}

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

/// Everything the checks know: roles, bindings and resource scopes.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    pub cluster_roles: BTreeMap<String, RoleDef>,
    pub roles: BTreeMap<(String, String), RoleDef>,
    pub bindings: Vec<BindingDef>,
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
    /// A role's rules with the chain of roles each comes from, following
    /// aggregation rules by label (transitively, cycles cut).
    pub fn effective_rules(&self, role: &RoleDef) -> Vec<(Vec<String>, PolicyRule)> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        self.collect(role, &mut vec![role.name.clone()], &mut seen, &mut out);
        out
    }

    fn collect(
        &self,
        role: &RoleDef,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
        out: &mut Vec<(Vec<String>, PolicyRule)>,
    ) {
        if !seen.insert(format!("{}/{}", role.namespace.as_deref().unwrap_or_default(), role.name)) {
            return;
        }
        if role.aggregation.is_empty() || role.namespace.is_some() {
            out.extend(role.rules.iter().map(|r| (path.clone(), r.clone())));
            return;
        }
        // The aggregation controller replaces an aggregating role's rules with
        // those of the roles it selects; its own `rules` are not kept.
        for member in self.cluster_roles.values() {
            if member.name != role.name && role.aggregation.iter().any(|s| selects(s, &member.labels)) {
                path.push(member.name.clone());
                self.collect(member, path, seen, out);
                path.pop();
            }
        }
    }

    pub(crate) fn bound_role(&self, b: &BindingDef) -> Option<&RoleDef> {
        match (b.role_kind.as_str(), &b.namespace) {
            ("ClusterRole", _) => self.cluster_roles.get(&b.role_name),
            ("Role", Some(ns)) => self.roles.get(&(ns.clone(), b.role_name.clone())),
            _ => None,
        }
    }

    /// Whether the request is cluster-scoped (unknown resources count as
    /// namespaced). A request for one Namespace object is made in that
    /// namespace, so RoleBindings there apply to it, as on a cluster.
    fn cluster_scoped(&self, req: &Request) -> bool {
        let own_namespace =
            req.group.is_empty() && req.resource == "namespaces" && req.name.is_some() && req.name == req.namespace;
        !own_namespace && self.resources.cluster_scoped(&req.group, &req.resource).unwrap_or(false)
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

    /// The grants of one binding for the request, ignoring who asks.
    fn grants(&self, b: &BindingDef, asked: Asked<'_>) -> Vec<Grant> {
        if !self.binding_applies(b, asked) {
            return Vec::new();
        }
        let Some(role) = self.bound_role(b) else { return Vec::new() };
        self.effective_rules(role)
            .into_iter()
            .filter(|(_, rule)| asked.allowed_by(rule))
            .map(|(roles, rule)| Grant {
                via: Via::Binding { namespace: b.namespace.clone(), name: b.name.clone(), builtin: b.builtin },
                roles: self.chain(&roles, b.role_kind == "ClusterRole"),
                rule,
                namespace: b.namespace.clone(),
            })
            .collect()
    }

    /// The roles of a path of [`Policy::effective_rules`], marked built-in or
    /// not; the first is a Role, not a ClusterRole, unless `cluster` says so.
    fn chain(&self, path: &[String], cluster: bool) -> Vec<ChainRole> {
        path.iter()
            .enumerate()
            .map(|(i, name)| ChainRole {
                name: name.clone(),
                builtin: (i > 0 || cluster) && self.cluster_roles.get(name).is_some_and(|r| r.builtin),
            })
            .collect()
    }

    /// `kubectl auth can-i`, offline: the first grant found, or `None`.
    pub fn can(&self, who: &Identity, req: &Request) -> Option<Grant> {
        self.can_asked(who, Asked::Resource(req))
    }

    /// `kubectl auth can-i VERB /path`, offline: only ClusterRoleBindings grant it.
    pub fn can_url(&self, who: &Identity, req: &UrlRequest) -> Option<Grant> {
        self.can_asked(who, Asked::Url(req))
    }

    pub(crate) fn can_asked(&self, who: &Identity, asked: Asked<'_>) -> Option<Grant> {
        let place = match asked {
            Asked::Resource(req) => req.namespace.as_deref().map_or(Place::ClusterWide, Place::Namespace),
            Asked::Url(_) => Place::ClusterWide,
        };
        self.bindings_for(who, place).find_map(|b| self.grants(b, asked).into_iter().next())
    }

    /// The bindings that reach the identity and apply in the place: the one
    /// resolver of who holds what where, for `can`, `can-i --list` and the
    /// installer's held rights.
    pub(crate) fn bindings_for<'a>(
        &'a self,
        who: &'a Identity,
        place: Place<'a>,
    ) -> impl Iterator<Item = &'a BindingDef> + 'a {
        self.bindings.iter().filter(move |b| {
            let here = match (place, b.namespace.as_deref()) {
                (_, None) | (Place::Each, _) => true,
                (Place::Namespace(ns), Some(bound)) => ns == bound,
                (Place::ClusterWide, Some(_)) => false,
            };
            here && b.subjects.iter().any(|s| who.is(s, b.namespace.as_deref()))
        })
    }
}

/// The matchers every decision about what a rule grants is made of, named
/// and composed as Kubernetes' authorizer composes its own (`VerbMatches`,
/// `APIGroupMatches`, `ResourceMatches`, `NonResourceURLMatches`): the
/// authorizer's [`rule_allows`] and the escalation check's `cover::rule_covers`
/// both call these, so the two cannot read a rule differently.
pub(crate) mod matches {
    use k8s_openapi::api::rbac::v1::PolicyRule;

    const ALL: &str = "*";

    fn list(v: &Option<Vec<String>>) -> &[String] {
        v.as_deref().unwrap_or_default()
    }

    /// The rule names `verb`, or every verb.
    pub(crate) fn verb(rule: &PolicyRule, verb: &str) -> bool {
        rule.verbs.iter().any(|v| v == ALL || v == verb)
    }

    /// The rule names API group `group` (`""`: the core group), or every group.
    pub(crate) fn api_group(rule: &PolicyRule, group: &str) -> bool {
        list(&rule.api_groups).iter().any(|g| g == ALL || g == group)
    }

    /// The rule names `resource` (with `subresource`, as `resource/sub`), or
    /// every resource, or, as `*/sub`, that subresource of every resource.
    pub(crate) fn resource(rule: &PolicyRule, resource: &str, subresource: Option<&str>) -> bool {
        list(&rule.resources).iter().any(|r| {
            r == ALL
                || match subresource {
                    Some(sub) => {
                        r.strip_prefix("*/") == Some(sub)
                            || r.split_once('/').is_some_and(|(head, tail)| head == resource && tail == sub)
                    }
                    None => r == resource,
                }
        })
    }

    /// The rule names non-resource URL `url`, or a prefix of it ending in `*`.
    pub(crate) fn non_resource_url(rule: &PolicyRule, url: &str) -> bool {
        list(&rule.non_resource_urls)
            .iter()
            .any(|u| u == url || u.strip_suffix('*').is_some_and(|p| url.starts_with(p)))
    }
}

/// Does the rule allow the request? [`matches`] on the verb, the API group
/// and the resource; `resourceNames`, when set, must hold the requested name
/// (`""` for a request that names none, as Kubernetes reads it).
pub(crate) fn rule_allows(rule: &PolicyRule, req: &Request) -> bool {
    let names_ok = match rule.resource_names.as_deref() {
        None | Some([]) => true,
        Some(names) => names.iter().any(|n| *n == req.name.as_deref().unwrap_or_default()),
    };
    matches::verb(rule, &req.verb)
        && matches::api_group(rule, &req.group)
        && matches::resource(rule, &req.resource, req.subresource.as_deref())
        && names_ok
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
/// rendered manifests give [`load`] (which reads them through the same
/// views), for checks that run before anything is rendered (an installer
/// account's rights).
pub(crate) fn from_objects<'a>(objects: impl IntoIterator<Item = &'a InputObject>) -> Policy {
    let mut policy = Policy { resources: Resources::builtin(), ..Default::default() };
    for o in objects {
        policy.add_object(o);
    }
    builtin::reconcile_into(&mut policy);
    policy
}

impl Policy {
    /// Adds one object: a ClusterRole, Role, binding, or a CRD's resource. The
    /// one way roles and bindings enter a policy, whether read from rendered
    /// manifests or handed over by the planner.
    pub(crate) fn add_object(&mut self, o: &InputObject) {
        let h = &o.header;
        let name = h.name.clone().unwrap_or_default();
        let labels = h.labels.clone();
        let opted_out = h.annotations.get(builtin::AUTOUPDATE_ANNOTATION).is_some_and(|v| v == "false");
        match (&o.body, h.kind.as_deref()) {
            (Body::Crd(crd), _) => {
                let names = &crd.spec.names;
                if let (Some(g), Some(p)) = (crd.spec.group.as_deref(), names.plural.as_deref()) {
                    let named = CrdNames {
                        kind: names.kind.as_deref(),
                        singular: names.singular.as_deref(),
                        short: &names.short_names,
                    };
                    self.resources.add_named(g, p, crd.spec.scope.as_deref() == Some("Cluster"), &named);
                    self.apis.entry(format!("{p}.{g}")).or_insert(None);
                }
            }
            (Body::Role(r), Some("ClusterRole")) => {
                let def = RoleDef {
                    name: name.clone(),
                    namespace: None,
                    labels,
                    rules: r.rules.iter().map(RuleView::to_policy_rule).collect(),
                    aggregation: r.aggregation_rule.clone().map(|a| a.cluster_role_selectors).unwrap_or_default(),
                    builtin: false,
                };
                if opted_out {
                    self.kept_as_written.insert((Bootstrap::ClusterRole, name.clone()));
                }
                self.cluster_roles.insert(name, def);
            }
            (Body::Role(r), Some("Role")) => {
                let ns = h.namespace.clone().unwrap_or_else(|| "default".into());
                let rules = r.rules.iter().map(RuleView::to_policy_rule).collect();
                let def =
                    RoleDef { name: name.clone(), namespace: Some(ns.clone()), labels, rules, ..Default::default() };
                self.roles.insert((ns, name), def);
            }
            (Body::Binding(b), Some(kind @ ("ClusterRoleBinding" | "RoleBinding"))) => {
                let namespace =
                    (kind == "RoleBinding").then(|| h.namespace.clone().unwrap_or_else(|| "default".into()));
                if opted_out && namespace.is_none() {
                    self.kept_as_written.insert((Bootstrap::ClusterRoleBinding, name.clone()));
                }
                self.bindings.push(BindingDef {
                    name,
                    namespace,
                    role_kind: b.role_ref.kind.clone().unwrap_or_default(),
                    role_name: b.role_ref.name.clone().unwrap_or_default(),
                    subjects: b.subjects.iter().map(subject_of).collect(),
                    labels,
                    builtin: false,
                });
            }
            _ => {}
        }
    }
}

fn subject_of(s: &SubjectView) -> Subject {
    Subject {
        kind: s.kind.clone().unwrap_or_default(),
        name: s.name.clone().unwrap_or_default(),
        namespace: s.namespace.clone(),
        api_group: s.api_group.clone(),
    }
}

pub(crate) mod allowed;
mod resources;
pub(crate) use resources::CrdNames;
pub use resources::Resources;
mod who;
pub(crate) use who::{Access, Holder};
pub mod builtin;
pub mod cover;
pub mod danger;
