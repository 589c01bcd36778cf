//! Offline access checks: who may do what, answered from rendered manifests
//! with Kubernetes RBAC semantics (rules, bindings, scope, aggregation).
//!
//! [`Policy`] is built from typed RBAC objects and answers [`Policy::can`] and
//! [`Policy::who_can`] with the chain that grants each answer. Nothing here
//! reads YAML; [`load`] does that, with the same splitter as the function.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::model::{selector_matches, Body, InputObject, Operator, RuleView, SubjectView};
use allowed::Place;

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

    fn is(&self, subject: &Subject, binding_namespace: Option<&str>) -> bool {
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

/// Why a request is allowed: binding → role → (aggregated roles) → rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Grant {
    pub binding: String,
    /// Role names from the bound role down to the one that holds the rule.
    pub roles: Vec<String>,
    pub rule: PolicyRule,
    /// `None`: cluster-wide.
    pub namespace: Option<String>,
}

impl fmt::Display for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.binding)?;
        for (i, role) in self.roles.iter().enumerate() {
            if i == 0 {
                write!(f, " → {role}")?;
            } else {
                write!(f, " → (aggregated) {role}")?;
            }
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

/// The scope of resources: what the input's CRDs say, and the built-in kinds.
#[derive(Debug, Clone, Default)]
pub struct Resources {
    /// `(group, plural)` → cluster-scoped?
    scope: BTreeMap<(String, String), bool>,
}

impl Resources {
    /// Every resource Kubernetes and OLM serve (`kinds`), with its scope.
    pub(crate) fn builtin() -> Resources {
        Resources { scope: crate::kinds::known_resources().map(|r| ((r.group, r.plural), r.cluster)).collect() }
    }

    pub(crate) fn add(&mut self, group: &str, plural: &str, cluster_scoped: bool) {
        self.scope.insert((group.to_string(), plural.to_string()), cluster_scoped);
    }

    pub fn cluster_scoped(&self, group: &str, plural: &str) -> Option<bool> {
        self.scope.get(&(group.to_string(), plural.to_string())).copied()
    }

    /// Resolves `plural`, `plural.group`, `plural/sub` and `plural.group/sub`
    /// as kubectl does: a bare plural must name exactly one known resource.
    pub(crate) fn resolve(&self, text: &str) -> Result<(String, String, Option<String>), String> {
        let (head, sub) = match text.split_once('/') {
            Some((h, s)) => (h, Some(s.to_string())),
            None => (text, None),
        };
        if head == "*" {
            return Ok(("*".into(), "*".into(), sub));
        }
        if let Some((plural, group)) = head.split_once('.') {
            // kubectl also takes `plural.version.group` (deployments.v1.apps), and
            // `plural.version.` for the core group.
            let group = match group.split_once('.') {
                Some((version, rest)) if is_version(version) => rest,
                _ => group,
            };
            // A dotless group is one of Kubernetes' own (apps, batch): `pods.v1`
            // names no group.
            let known =
                group.contains('.') || group.is_empty() || crate::reserved::kubernetes_groups().contains(&group);
            if !known {
                return Err(format!(
                    "{head:?} names the API group {group:?}, which is not one of Kubernetes' own and has no dot, so no CRD can define it; name a core resource alone ({plural}) or as {plural}.v1. (trailing dot), others as <plural>.<group>"
                ));
            }
            return Ok((group.to_string(), plural.to_string(), sub));
        }
        let matches: Vec<&(String, String)> = self.scope.keys().filter(|(_, p)| p == head).collect();
        // As kubectl does, the core group wins over a CRD of the same plural.
        let core = matches.iter().find(|(g, _)| g.is_empty());
        match (core, &matches[..]) {
            (Some((group, plural)), _) | (None, [(group, plural)]) => Ok((group.clone(), plural.clone(), sub)),
            (None, []) => Err(format!(
                "the resource {head:?} is not known from the input or the built-in kinds: name it as <plural>.<group>"
            )),
            (None, _) => Err(format!(
                "the resource {head:?} is ambiguous: {}",
                matches
                    .iter()
                    .map(|(g, p)| if g.is_empty() { p.clone() } else { format!("{p}.{g}") })
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

/// `v1`, `v1beta2`, `v2alpha1`: an API version segment.
fn is_version(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else { return false };
    let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let tail = &rest[digits..];
    digits > 0
        && (tail.is_empty()
            || ["alpha", "beta"]
                .iter()
                .any(|p| tail.strip_prefix(p).is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))))
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
}

impl Policy {
    /// Adds Kubernetes' bootstrap policy ([`builtin`], Kubernetes 1.33): every
    /// ClusterRole and ClusterRoleBinding an API server creates at start, each
    /// marked `builtin`. The input keeps priority, except for the roles the API
    /// server reconciles back at every start ([`builtin::is_reconciled`]:
    /// `cluster-admin`, and the aggregating `admin`, `edit` and `view`): an
    /// input copy of those would be reconciled away, so the real one is
    /// modelled. Other bootstrap roles the input holds (a dump of the cluster's
    /// roles, say) are taken as the input has them, and a bootstrap binding is
    /// added only when the input has no ClusterRoleBinding of its name.
    pub(crate) fn with_builtins(mut self) -> Policy {
        // The embedded data is proven to parse by a test; should it not, the
        // input alone is all there is to go on.
        let Ok(builtins) = builtin::policy() else { return self };
        for (name, role) in &builtins.cluster_roles {
            if builtin::is_reconciled(name) {
                self.cluster_roles.insert(name.clone(), role.clone());
            } else {
                self.cluster_roles.entry(name.clone()).or_insert_with(|| role.clone());
            }
        }
        for binding in &builtins.bindings {
            if !self.bindings.iter().any(|b| b.namespace.is_none() && b.name == binding.name) {
                self.bindings.push(binding.clone());
            }
        }
        self
    }

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

    fn bound_role(&self, b: &BindingDef) -> Option<&RoleDef> {
        match (b.role_kind.as_str(), &b.namespace) {
            ("ClusterRole", _) => self.cluster_roles.get(&b.role_name),
            ("Role", Some(ns)) => self.roles.get(&(ns.clone(), b.role_name.clone())),
            _ => None,
        }
    }

    fn describe_binding(b: &BindingDef) -> String {
        match &b.namespace {
            Some(ns) => format!("RoleBinding {ns}/{}", b.name),
            None => format!("ClusterRoleBinding {}", b.name),
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
    fn binding_applies(&self, b: &BindingDef, req: &Request) -> bool {
        match &b.namespace {
            None => true,
            // A RoleBinding grants only namespaced resources, only in its namespace.
            Some(ns) => !self.cluster_scoped(req) && req.namespace.as_deref() == Some(ns.as_str()),
        }
    }

    /// The grants of one binding for the request, ignoring who asks.
    fn grants(&self, b: &BindingDef, req: &Request) -> Vec<Grant> {
        if !self.binding_applies(b, req) {
            return Vec::new();
        }
        let Some(role) = self.bound_role(b) else { return Vec::new() };
        self.effective_rules(role)
            .into_iter()
            .filter(|(_, rule)| rule_allows(rule, req))
            .map(|(roles, rule)| Grant {
                binding: Self::describe_binding(b),
                roles,
                rule,
                namespace: b.namespace.clone(),
            })
            .collect()
    }

    /// `kubectl auth can-i`, offline: the first grant found, or `None`.
    pub fn can(&self, who: &Identity, req: &Request) -> Option<Grant> {
        let place = req.namespace.as_deref().map_or(Place::ClusterWide, Place::Namespace);
        self.bindings_for(who, place).find_map(|b| self.grants(b, req).into_iter().next())
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

    /// Every subject that may make the request: with a namespace, there; without,
    /// anywhere (each answer says where). Holders of the built-in aggregated
    /// roles appear as [`Holder::RoleHolders`] when no binding to them is known.
    pub(crate) fn who_can(&self, req: &Request) -> Vec<Access> {
        let mut out: Vec<Access> = Vec::new();
        for b in &self.bindings {
            // Without a namespace, a RoleBinding answers for its own namespace.
            let mut scoped = req.clone();
            if req.namespace.is_none() {
                scoped.namespace = b.namespace.clone();
            }
            let Some(grant) = self.grants(b, &scoped).into_iter().next() else { continue };
            for s in &b.subjects {
                let mut subject = s.clone();
                // Written with or without apiGroup, a subject is the same subject.
                subject.api_group = None;
                if subject.kind == "ServiceAccount" {
                    match subject_namespace(s, b.namespace.as_deref()) {
                        Some(ns) => subject.namespace = Some(ns.to_string()),
                        None => continue, // matches nobody
                    }
                }
                out.push(Access {
                    holder: Holder::Subject(subject),
                    namespace: b.namespace.clone(),
                    grant: grant.clone(),
                });
            }
        }
        // Bindings to the built-in aggregated roles usually live on the cluster,
        // not in the rendered output: say who they reach, whatever the input binds.
        let cluster_only = self.cluster_scoped(req);
        for name in ["admin", "edit", "view"] {
            let Some(role) = self.cluster_roles.get(name) else { continue };
            if let Some((roles, rule)) = self.effective_rules(role).into_iter().find(|(_, r)| rule_allows(r, req)) {
                let binding = format!("any binding to ClusterRole {name}");
                out.push(Access {
                    holder: Holder::RoleHolders { role: name.to_string(), cluster_only },
                    namespace: req.namespace.clone(),
                    grant: Grant { binding, roles, rule, namespace: req.namespace.clone() },
                });
            }
        }
        out.sort_by(|a, b| (a.holder.sort_key(), &a.namespace).cmp(&(b.holder.sort_key(), &b.namespace)));
        out.dedup_by(|a, b| a.holder == b.holder && a.namespace == b.namespace);
        out
    }
}

/// Who holds access: a subject of a binding, or whoever is bound to a
/// built-in aggregated role somewhere the input does not show.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Holder {
    Subject(Subject),
    /// Whoever is bound to this built-in role; for a cluster-scoped request,
    /// only through a ClusterRoleBinding.
    RoleHolders {
        role: String,
        cluster_only: bool,
    },
}

impl Holder {
    fn sort_key(&self) -> (u8, String, String, String) {
        match self {
            Holder::RoleHolders { role, .. } => (0, String::new(), String::new(), role.clone()),
            Holder::Subject(s) => (1, s.kind.clone(), s.namespace.clone().unwrap_or_default(), s.name.clone()),
        }
    }
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holder::RoleHolders { role, cluster_only: false } => write!(f, "anyone bound to ClusterRole {role}"),
            Holder::RoleHolders { role, cluster_only: true } => {
                write!(f, "anyone bound to ClusterRole {role} by a ClusterRoleBinding")
            }
            Holder::Subject(s) => match &s.namespace {
                Some(ns) => write!(f, "{} {ns}/{}", s.kind, s.name),
                None => write!(f, "{} {}", s.kind, s.name),
            },
        }
    }
}

/// One answer of [`Policy::who_can`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Access {
    pub holder: Holder,
    /// `None`: cluster-wide.
    pub namespace: Option<String>,
    pub grant: Grant,
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
    policy.with_builtins()
}

impl Policy {
    /// Adds one object: a ClusterRole, Role, binding, or a CRD's resource. The
    /// one way roles and bindings enter a policy, whether read from rendered
    /// manifests or handed over by the planner.
    pub(crate) fn add_object(&mut self, o: &InputObject) {
        let h = &o.header;
        let name = h.name.clone().unwrap_or_default();
        let labels = h.labels.clone();
        match (&o.body, h.kind.as_deref()) {
            (Body::Crd(crd), _) => {
                if let (Some(g), Some(p)) = (crd.spec.group.as_deref(), crd.spec.names.plural.as_deref()) {
                    self.resources.add(g, p, crd.spec.scope.as_deref() == Some("Cluster"));
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
mod load;
pub use load::load;
pub(crate) use load::read;
pub mod builtin;
pub mod commands;
pub mod cover;
pub mod danger;
pub(crate) mod matrix;

#[cfg(test)]
mod tests;
