//! What the cluster will hold after the install, holding by holding: the
//! CSV's rules where OLM grants them, the rules of every role a binding the
//! bundle may ship refers to, for each of its subjects, the rules of bundle
//! ClusterRoles that an aggregating role gathers, and what the installer must
//! hold to write the bundle's roles. What cannot be measured is reported.

use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};

use crate::access::cover::uncovered_rules;
use crate::access::{self, describe_rule, selects, BindingDef, Policy, SourcedRule};
use crate::config::{BundleObjects, RoleKind, SubjectKind};
use crate::findings::{Code, Finding, ObjRef};
use crate::model::*;
use crate::reserved::is_reserved_role_name;

use crate::plan::apis::roles::level_gathered_by;
use crate::plan::facts::grants::{olm_grants, CsvGrant};
use crate::plan::facts::placement::Placement;
use crate::plan::gate::{Gate, Namespace};
use crate::plan::operator::permissions::judged_everywhere;

/// One rule someone will hold after the install: who, which rule, where, and
/// the object and field that ask for it.
#[derive(Clone)]
pub(super) struct Holding<'a> {
    pub who: Holder,
    pub rule: PolicyRule,
    pub reach: Reach,
    pub on: ObjRef,
    pub file: Option<&'a FileRef>,
    pub field: String,
}

/// Who holds a rule.
#[derive(Debug, Clone)]
pub(super) enum Holder {
    /// One of the operator's ServiceAccounts, by the name the CSV gives it,
    /// in the install namespace when the config names it.
    Operator { name: String, namespace: Option<String> },
    /// A subject of one of the bundle's bindings.
    Bound { subject: BoundSubject, binding: ObjRef },
    /// The installer account, which must hold what it writes.
    Installer(ServiceAccountRef),
    /// Whoever holds a well-known project's aggregating ClusterRole, which
    /// gathers a bundle ClusterRole by its label (`access::aggregators`).
    Aggregated(&'static crate::access::aggregators::Aggregator),
    /// The server a webhook configuration beside the bundle sends requests to.
    Endpoint(String),
}

/// A subject of a binding, as the bundle writes it.
#[derive(Debug, Clone)]
pub(super) enum BoundSubject {
    Account(ServiceAccountRef),
    /// A user or a group (or a kind Kubernetes does not know), by name.
    Other {
        kind: String,
        name: String,
    },
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holder::Operator { name, namespace: Some(ns) } => write!(f, "{}", ServiceAccountRef::new(ns, name)),
            Holder::Operator { name, namespace: None } => write!(f, "ServiceAccount {name}"),
            Holder::Bound { subject, binding } => write!(f, "{subject} (through the bundle's {binding})"),
            Holder::Installer(account) => write!(f, "installer {account} (which must hold what it writes)"),
            Holder::Endpoint(server) => write!(f, "{server} (a webhook beside the bundle sends it requests)"),
            Holder::Aggregated(a) => {
                write!(
                    f,
                    "{} (through {}'s ClusterRole {}, which gathers {}=true)",
                    a.holder, a.project, a.role, a.label
                )
            }
        }
    }
}

impl fmt::Display for BoundSubject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoundSubject::Account(account) => write!(f, "{account}"),
            BoundSubject::Other { kind, name } => write!(f, "{kind} {name}"),
        }
    }
}

/// Where a holding applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Reach {
    /// Cluster-wide: every namespace, and cluster-scoped resources.
    Cluster,
    /// In each of these namespaces.
    Namespaces(Vec<Namespace>),
}

/// What a bundle ClusterRole gives the holders of the well-known aggregating
/// roles its labels gather it into: each rule, cluster-wide, held by them.
fn aggregated_holdings<'o>(o: &'o InputObject, v: &RoleView) -> Vec<Holding<'o>> {
    if o.role_kind() != Some(RoleRefKind::ClusterRole) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (label, aggregator) in crate::access::aggregators::gathering(&o.header.labels) {
        for (j, r) in v.rules.iter().enumerate() {
            out.push(Holding {
                who: Holder::Aggregated(aggregator),
                rule: r.to_policy_rule(),
                reach: Reach::Cluster,
                on: o.object_ref(),
                file: o.file.as_ref(),
                field: format!("rules[{j}] (gathered by metadata.labels.{label})"),
            });
        }
    }
    out
}

/// A rule a binding's role grants, with the object and field it is written in.
type RoleRule<'o> = (PolicyRule, ObjRef, Option<&'o FileRef>, String);

impl<'a> Gate<'a> {
    pub(super) fn operator_account(&self, name: &str) -> Holder {
        Holder::Operator { name: name.to_string(), namespace: self.install_named().map(String::from) }
    }

    /// OLM's grant of the CSV's rules ([`olm_grants`]), judged where it
    /// reaches: cluster-wide, or in the namespaces the operator is bound in.
    pub(super) fn csv_holdings<'o>(&self, csv: &'o InputObject, grants: &[CsvGrant]) -> Vec<Holding<'o>> {
        let (config, watch) = (self.planning.config, self.planning.watch_namespace());
        let everywhere = matches!(&csv.body, Body::Csv(v) if judged_everywhere(config, v, watch));
        olm_grants(grants, everywhere)
            .into_iter()
            .map(|g| Holding {
                who: self.operator_account(&g.account),
                reach: if g.cluster_wide {
                    Reach::Cluster
                } else {
                    Reach::Namespaces(self.operator_namespaces.clone())
                },
                rule: g.rule,
                on: csv.object_ref(),
                file: csv.file.as_ref(),
                field: g.field,
            })
            .collect()
    }

    /// What the bundle's own RBAC grants, subject by subject. What cannot be
    /// measured (aggregating roles, bindings to roles nobody ships, built-in
    /// roles olm-rbac does not model) is reported instead: an error under a
    /// policy, a warning otherwise.
    pub(super) fn bundle_holdings(&self, results: &mut Vec<Finding>) -> Vec<Holding<'a>> {
        let p = self.planning;
        let (objects, origins) = (p.objects(), p.origins());
        // The admin's objects, olm-rbac's earlier output in the admin's files
        // included, are not the bundle's. A claim to be this extension's earlier
        // output is believed only there: on stdin the bundle could write one,
        // and OLM installs what the bundle ships whatever this run removes.
        // Unless the item is exactly an object this run writes, and so is the
        // copy OLM would install were it the bundle's (in the install
        // namespace, for a namespaced one): then the cluster holds that grant
        // either way (`provenance::Believed`).
        self.check_placed_twice(results);
        let cluster = self.cluster_to_be();
        let mut out = Vec::new();
        for (i, o) in objects.iter().enumerate() {
            if origins.is_admin(i) || (p.claims[i].is_some() && p.held_anyway.contains(&i)) {
                continue;
            }
            match &o.body {
                Body::Role(v) => {
                    self.check_role_name(o, results);
                    if v.aggregates() {
                        let message = "the bundle ships this ClusterRole with an aggregationRule: it holds whatever the cluster aggregates into it, which olm-rbac cannot measure against spec.operator.policy";
                        // Unbounded: whatever the cluster aggregates, so critical.
                        let finding = self.finding_on(o, Code::Unmeasurable, "aggregationRule", message);
                        results.push(finding.dangerous(crate::findings::DangerLevel::Critical));
                    }
                    self.check_aggregated(o, results);
                    if !v.aggregates() {
                        out.extend(self.installer_holdings(o, v));
                        out.extend(aggregated_holdings(o, v));
                    }
                }
                Body::Binding(_) => out.extend(self.bound(o, i, &cluster, results)),
                _ => {}
            }
        }
        out
    }

    /// The installer account olm-rbac writes or checks must hold every rule of
    /// every role the bundle ships, bound or not: Kubernetes lets nobody write
    /// a role granting more than they hold. So a role nobody binds still
    /// reaches that account.
    fn installer_holdings<'o>(&self, o: &'o InputObject, v: &RoleView) -> Vec<Holding<'o>> {
        let Some(installer) = &self.planning.config.installer else { return Vec::new() };
        // The installer writes OLM's copy of a Role: in the install namespace.
        let place = if o.role_kind() == Some(RoleRefKind::ClusterRole) {
            Reach::Cluster
        } else {
            Reach::Namespaces(vec![self.install.clone()])
        };
        v.rules
            .iter()
            .enumerate()
            .map(|(j, r)| Holding {
                who: Holder::Installer(installer.account.clone()),
                rule: r.to_policy_rule(),
                reach: place.clone(),
                on: o.object_ref(),
                file: o.file.as_ref(),
                field: format!("rules[{j}]"),
            })
            .collect()
    }

    /// A bundle role named like one of Kubernetes' own replaces a platform
    /// object when applied (until the API server reconciles it), and bindings
    /// to that name get the cluster's role, not the bundle's.
    fn check_role_name(&self, o: &InputObject, results: &mut Vec<Finding>) {
        let name = o.header.name.as_deref().unwrap_or_default();
        if o.role_kind() == Some(RoleRefKind::ClusterRole) && is_reserved_role_name(name) {
            let message = format!(
                "the bundle ships a ClusterRole named {name:?}, the name of a role Kubernetes itself keeps: applying it rewrites a platform object, and whoever is bound to {name:?} holds the cluster's role, not this one"
            );
            results.push(self.finding_on(o, Code::ReservedRoleName, "metadata.name", message));
        } else if o.role_kind() == Some(RoleRefKind::Role) && name.starts_with("system:") {
            // Kubernetes keeps namespaced Roles of its own too (in kube-system
            // and kube-public), and restores their rules when its API server
            // restarts; a binding to the name then holds the cluster's rules.
            let message = format!(
                "the bundle ships a Role named {name:?}, a name Kubernetes keeps for Roles of its own (in kube-system and kube-public): applied where one is, it rewrites a platform object whose rules the API server restores, and whoever is bound to it holds the cluster's role, not this one"
            );
            results.push(self.finding_on(o, Code::ReservedRoleName, "metadata.name", message));
        }
    }

    /// A bundle ClusterRole that an aggregating role gathers by label gives
    /// its rules to whoever holds that role: users, not the operator. They may
    /// get the level that role stands for on the bundle's own APIs (the
    /// built-in `admin`, `edit`, `view`; `view` for an aggregating role of the
    /// input's), and nothing else. A label for an aggregating role olm-rbac
    /// does not see cannot be measured.
    fn check_aggregated(&self, o: &InputObject, results: &mut Vec<Finding>) {
        let Body::Role(view) = &o.body else { return };
        if o.role_kind() != Some(RoleRefKind::ClusterRole) || view.aggregates() {
            return;
        }
        let labels = &o.header.labels;
        let mut gatherers: BTreeMap<String, RoleKind> = AggregatingRole::ALL
            .into_iter()
            .filter(|role| labels.get(&role.label()).map(String::as_str) == Some("true"))
            .map(|role| (role.name().to_string(), level_gathered_by(role)))
            .collect();
        let known = |k: &str| crate::access::aggregators::AGGREGATORS.iter().any(|a| a.label == k);
        let unseen = labels
            .keys()
            .filter(|k| k.starts_with(AGGREGATE_PREFIX) || crate::access::aggregators::looks_aggregating(k))
            .filter(|k| AggregatingRole::of_label(k).is_none() && !known(k));
        for key in unseen {
            let message = format!(
                "the bundle labels this ClusterRole {key}: a role olm-rbac does not see gathers its rules for whoever holds it, which olm-rbac cannot measure against spec.operator.policy"
            );
            results.push(self.finding_on(o, Code::Unmeasurable, format!("metadata.labels.{key}"), message));
        }
        for r in self.planning.objects() {
            if let (Body::Role(v), Some(name)) = (&r.body, r.header.name.as_deref()) {
                let selects_it = v
                    .aggregation_rule
                    .as_ref()
                    .is_some_and(|a| a.cluster_role_selectors.iter().any(|s| selects(s, labels)));
                if selects_it && r.header.name != o.header.name {
                    gatherers.entry(name.to_string()).or_insert(RoleKind::View);
                }
            }
        }
        for (gatherer, level) in gatherers {
            let bound = self.planning.level_bound(level);
            for (j, r) in view.rules.iter().enumerate() {
                let rule = r.to_policy_rule();
                let beyond: Vec<String> = uncovered_rules(bound, &rule).iter().map(describe_rule).collect();
                if beyond.is_empty() {
                    continue;
                }
                let message = format!(
                    "whoever holds ClusterRole {gatherer}, which aggregates this one, would be granted {}, beyond {} on the bundle's own APIs: {}",
                    describe_rule(&rule),
                    level.as_str(),
                    beyond.join("; ")
                );
                results.push(self.finding_on(o, Code::AggregationBeyond, format!("rules[{j}]"), message));
            }
        }
    }

    /// The cluster the bundle's bindings are resolved over, in the kernel's
    /// policy type: the cluster's ClusterRoles as they will be
    /// ([`crate::plan::facts::input::Input::built_in`]), the admin's roles
    /// as written, and the bundle's where they land ([`Placement`]). A
    /// bundle ClusterRole named like one of Kubernetes' own is left out: the
    /// cluster keeps its own (reported by `check_role_name`).
    fn cluster_to_be(&self) -> Policy {
        let p = self.planning;
        let (objects, origins) = (p.objects(), p.origins());
        let table = &p.input.resources;
        let mut policy = p.input.built_in.clone().unwrap_or_default();
        let reserved = |o: &InputObject| {
            o.role_kind() == Some(RoleRefKind::ClusterRole)
                && is_reserved_role_name(o.header.name.as_deref().unwrap_or_default())
        };
        let (admin, bundle): (Vec<usize>, Vec<usize>) = (0..objects.len())
            .filter(|&i| matches!(objects[i].body, Body::Role(_)))
            .partition(|&i| origins.is_admin(i));
        for i in admin {
            // Kubernetes' own roles are already there, reconciled.
            if p.input.built_in.is_none() || !reserved(&objects[i]) {
                policy.add_object_from(&objects[i], Some(i));
            }
        }
        let bindings =
            (0..objects.len()).filter(|&i| !origins.is_admin(i) && matches!(objects[i].body, Body::Binding(_)));
        let roles: Vec<usize> = bundle.into_iter().filter(|&i| !reserved(&objects[i])).collect();
        let (install, applied) = (self.install.to_string(), Namespace::Applied.to_string());
        let keep = p.config.bundle_objects == BundleObjects::Keep;
        let placement = Placement { install: &install, applied: keep.then_some(applied.as_str()), table };
        placement.place(&mut policy, objects, roles.into_iter().chain(bindings));
        policy
    }

    /// What one of the bundle's bindings grants each of its subjects, where:
    /// each copy of it in `cluster` (OLM's, and the one applied as written)
    /// gives its subjects the rules of the role it resolves to, in its own
    /// namespace or cluster-wide.
    fn bound(&self, o: &'a InputObject, i: usize, cluster: &Policy, results: &mut Vec<Finding>) -> Vec<Holding<'a>> {
        let (objects, mut out) = (self.planning.objects(), Vec::new());
        // OLM's copy comes first. What a copy binds that the input does not
        // hold is reported once per binding (applied as written, a RoleBinding
        // binds whatever Role of that name its namespace holds: Kubernetes
        // keeps Roles of its own in kube-system); what a subject is, once.
        let mut reported = false;
        for (n, copy) in cluster.bindings.iter().filter(|b| b.source == Some(i)).enumerate() {
            let report = !reported;
            let found = self.resolve(o, copy, cluster, n == 0, report, results);
            reported |= report && found.is_none();
            let Some(held) = found else { continue };
            let rules: Vec<RoleRule<'a>> = held
                .into_iter()
                .map(|held| match held.source.and_then(|j| objects.get(j)) {
                    Some(r) => (held.rule, r.object_ref(), r.file.as_ref(), format!("rules[{}]", held.index)),
                    None => (held.rule, o.object_ref(), o.file.as_ref(), "roleRef".to_string()),
                })
                .collect();
            let namespace = copy.namespace.as_deref().map(Namespace::placed);
            let place = namespace.clone().map_or(Reach::Cluster, |ns| Reach::Namespaces(vec![ns]));
            for (k, s) in copy.subjects.iter().enumerate() {
                let mut said = Vec::new();
                let subject = self.subject(o, s, k, namespace.as_ref(), &mut said);
                said.retain(|f| !results.contains(f));
                results.append(&mut said);
                let Some(subject) = subject else { continue };
                let who = Holder::Bound { subject, binding: o.object_ref() };
                out.extend(rules.iter().map(|(rule, on, file, field)| Holding {
                    who: who.clone(),
                    rule: rule.clone(),
                    reach: place.clone(),
                    on: on.clone(),
                    file: *file,
                    field: field.clone(),
                }));
            }
        }
        out
    }

    /// The role one copy of a bundle binding resolves to in the cluster to
    /// be. `None` when it binds nothing, or when what it binds cannot be told
    /// (a built-in role olm-rbac does not model, or a role nobody ships
    /// there: reported when `report`).
    fn resolve(
        &self,
        o: &InputObject,
        copy: &BindingDef,
        cluster: &Policy,
        olm_copy: bool,
        report: bool,
        results: &mut Vec<Finding>,
    ) -> Option<Vec<SourcedRule>> {
        let (kind, name) = (copy.role_kind, copy.role_name.as_str());
        // A ClusterRoleBinding to a Role binds nothing (the API server refuses it).
        if kind == Some(RoleRefKind::Role) && copy.namespace.is_none() {
            return None;
        }
        let found = cluster.binding_rules(copy);
        if found.is_none() && report && !olm_copy && kind == Some(RoleRefKind::Role) {
            let ns = copy.namespace.as_deref().map(Namespace::placed).map(|n| n.to_string()).unwrap_or_default();
            let message = format!(
                "applied as written (bundleObjects: Keep), this RoleBinding lands in namespace {ns} and binds whatever Role {name:?} that namespace holds, which the bundle does not ship there: olm-rbac cannot tell what that grants, so it cannot hold it to spec.operator.policy; drop the bundle's objects (bundleObjects: Drop) or ship the Role beside it"
            );
            results.push(self.finding_on(o, Code::BundleRoleForeign, "metadata.namespace", message));
        } else if found.is_none() && report {
            let finding = if kind == Some(RoleRefKind::ClusterRole) && is_reserved_role_name(name) {
                let message = format!(
                    "the bundle binds the built-in ClusterRole {name:?}, whose rules are the cluster's, not the bundle's, and not among Kubernetes {}'s bootstrap roles: olm-rbac cannot hold it to spec.operator.policy",
                    access::builtin::KUBERNETES_VERSION
                );
                self.finding_on(o, Code::Unmeasurable, "roleRef", message)
            } else {
                let written = match &o.body {
                    Body::Binding(b) => b.role_ref.kind.clone().unwrap_or_default(),
                    _ => String::new(),
                };
                let message = format!(
                    "the bundle binds {written} {name:?}, which it does not ship: olm-rbac cannot tell what that grants, so it cannot hold it to spec.operator.policy"
                );
                self.finding_on(o, Code::BundleRoleForeign, "roleRef", message)
            };
            results.push(finding);
        }
        found
    }

    /// Names a binding's subject; a subject other than the bundle's own
    /// ServiceAccounts is reported (an error under a policy).
    fn subject(
        &self,
        o: &InputObject,
        s: &Subject,
        k: usize,
        binding_namespace: Option<&Namespace>,
        results: &mut Vec<Finding>,
    ) -> Option<BoundSubject> {
        let (kind, name) = (s.kind.as_str(), s.name.as_str());
        // A RoleBinding's subject without a namespace is in the binding's (for
        // OLM's copy, the install namespace). Without a named install
        // namespace, that is the only account known to be the operator's.
        let written = s.namespace.as_deref().filter(|n| !n.is_empty()).map(|n| Namespace::Named(n.to_string()));
        let namespace = written.or(binding_namespace.cloned());
        let account = kind == SubjectKind::ServiceAccount.as_str();
        let own = account && self.accounts.contains(name) && namespace.as_ref() == Some(&self.install);
        let subject = match (account, namespace) {
            (true, Some(ns)) => BoundSubject::Account(ServiceAccountRef::new(ns.to_string(), name)),
            (true, None) => return None, // matches nobody
            (false, _) => BoundSubject::Other { kind: kind.to_string(), name: name.to_string() },
        };
        if !own {
            let message = format!(
                "the bundle grants {subject}, which is not one of the operator's own ServiceAccounts{}: a bundle may grant only the accounts its ClusterServiceVersion runs as",
                self.install_named().map(|ns| format!(" in {ns}")).unwrap_or_default()
            );
            results.push(self.finding_on(o, Code::SubjectForeign, format!("subjects[{k}]"), message));
        }
        Some(subject)
    }
}
