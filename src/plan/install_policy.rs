//! The install policy (`spec.operator.policy`): a ceiling on what the bundle
//! may grant, and permissions it must never grant. It applies in every mode,
//! since OLM grants the CSV's permissions whether or not olm-rbac writes them.
//!
//! What is measured is the access the cluster will hold after the install,
//! not the rule text: who gets each rule and where.
//! - The CSV's `clusterPermissions`, cluster-wide, and its `permissions`,
//!   where OLM (or olm-rbac, for `Cluster` and `Namespaces`) grants them:
//!   promoted cluster-wide, with read access to `namespaces` added, when the
//!   operator watches all namespaces; otherwise in its own namespaces.
//! - Every binding the bundle may have shipped (see `origin`): each subject
//!   gets the rules of the role it binds, cluster-wide or in the binding's
//!   namespace. A built-in role's name means the built-in role (Kubernetes'
//!   bootstrap policy, `access::builtin`), which the cluster keeps whatever
//!   the bundle ships under that name.
//! - The bundle's ClusterRoles that an aggregating role (the built-in
//!   `admin`, `edit`, `view`, or one of the input's) gathers by label: their
//!   rules reach whoever holds that role.
//!
//! A bundle may grant only its own ServiceAccounts (those the CSV names, in
//! the install namespace): under a policy any other subject is an error,
//! without one a warning. Coverage and overlap are decided by `access::cover`,
//! the API server's own escalation semantics.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::access::cover::{overlaps, uncovered_rules};
use crate::access::{self, describe_rule, selects};
use crate::config::{BundleObjects, Config, InstallPolicy, OperatorPermissions, PolicyEntry, PolicyScope, RoleKind};
use crate::model::*;
use crate::report::{Finding, ObjRef};
use crate::reserved::is_reserved_role_name;

use super::bundle::level_bound;
use super::operator::{promoted, read_namespaces, watched_namespaces, Grant};
use super::origin::{Origin, Origins};
use super::Api;

/// Where a grant applies.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    /// Cluster-wide: every namespace, and cluster-scoped resources.
    Cluster,
    /// In each of these namespaces.
    Namespaces(Vec<String>),
}

/// The name used for the operator's namespace when the config does not name
/// it (`permissions: Unmanaged` without `installNamespace`): no namespace can
/// be called this, so no policy entry lists it.
const UNNAMED_INSTALL_NAMESPACE: &str = "(the install namespace)";

/// One rule the bundle would grant, with who gets it, where, and where the
/// bundle asks for it.
struct Granted<'a> {
    who: String,
    rule: PolicyRule,
    place: Place,
    on: ObjRef,
    file: Option<&'a FileRef>,
    field: String,
}

/// What the checks share: the config, the operator's namespaces, and where
/// the findings go.
struct Gate<'a> {
    config: &'a Config,
    /// The bundle's own APIs: what users may be given through aggregation.
    apis: &'a [Api],
    /// The install namespace (or [`UNNAMED_INSTALL_NAMESPACE`]) and the targets.
    operator_namespaces: Vec<String>,
    install: String,
    /// The ServiceAccount names the CSV grants to.
    accounts: BTreeSet<String>,
    /// A ceiling is set: what cannot be measured is an error, not a warning.
    strict: bool,
}

/// Checks everything the bundle grants against the policy: each rule beyond
/// `allow`, and each rule sharing a permission with `deny`, is an error naming
/// who gets it, where, and where the bundle asks for it. Without a ceiling,
/// dangerous permissions are warned about instead.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_policy(
    config: &Config,
    apis: &[Api],
    csv: Option<usize>,
    grants: &[Grant],
    objects: &[InputObject],
    origins: &Origins,
    claims: &[Option<String>],
    rewritten: &BTreeSet<usize>,
    results: &mut Vec<Finding>,
) {
    let policy = config.operator.policy.as_ref();
    let gate = Gate::new(config, apis, grants, objects, origins);
    if gate.strict {
        refuse_unplaced_csvs(objects, origins, results);
    }
    let mut granted = csv.map(|i| gate.csv_granted(&objects[i], grants)).unwrap_or_default();
    if csv.is_some() {
        granted.extend(gate.bundle_granted(objects, origins, claims, rewritten, results));
    }
    let Some(policy) = policy else {
        warn_dangerous(&granted, results);
        return;
    };
    let Some(ceiling) = ceiling(config, policy, objects, origins, claims, results) else { return };
    match &ceiling {
        Some(allow) => gate.check_ceiling(allow, &granted, results),
        None => warn_dangerous(&granted, results),
    }
    gate.check_deny(&policy.deny, &granted, results);
}

/// Several ClusterServiceVersions from no known file (stdin, a runner that
/// names none) may be one bundle's, of which OLM installs the last: under a
/// policy, olm-rbac cannot judge the one that counts.
fn refuse_unplaced_csvs(objects: &[InputObject], origins: &Origins, results: &mut Vec<Finding>) {
    let unplaced: Vec<&InputObject> = objects
        .iter()
        .enumerate()
        .filter(|(i, o)| matches!(o.body, Body::Csv(_)) && !origins.has_file(*i))
        .map(|(_, o)| o)
        .collect();
    if unplaced.len() > 1 {
        for o in &unplaced {
            results.push(
                Finding::error(format!(
                    "{} ClusterServiceVersions come from no known file, so olm-rbac cannot tell whether they are one bundle's, of which OLM installs the last; pass each bundle as files, or through kpt",
                    unplaced.len()
                ))
                .on(&o.object_ref())
                .in_file(o.file.as_ref()),
            );
        }
    }
}

/// The entries of `allow` and the rules of `allowClusterRole`: `Some(None)`
/// without a ceiling, `None` when the named ClusterRole cannot serve as one
/// (an error).
fn ceiling(
    config: &Config,
    policy: &InstallPolicy,
    objects: &[InputObject],
    origins: &Origins,
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) -> Option<Option<Vec<PolicyEntry>>> {
    if !policy.has_ceiling() {
        return Some(None);
    }
    let mut entries = policy.allow.clone().unwrap_or_default();
    if let Some(name) = &policy.allow_cluster_role {
        let cfg = config.object_ref();
        let field = "spec.operator.policy.allowClusterRole";
        let found = objects
            .iter()
            .enumerate()
            .find(|(_, o)| o.is("rbac.authorization.k8s.io", "ClusterRole") && o.header.name.as_deref() == Some(name));
        let problem = match found {
            None => Some(format!("ClusterRole {name:?} is not in the input")),
            Some((i, _)) if claims[i].is_some() => Some(format!("ClusterRole {name:?} is one olm-rbac generated")),
            Some((i, _)) if origins.is_bundle(i) => Some(format!(
                "ClusterRole {name:?} comes from a bundle's own folder: a bundle does not get to set its own ceiling"
            )),
            Some((_, o)) if matches!(&o.body, Body::Role(v) if v.aggregates()) => Some(format!(
                "ClusterRole {name:?} has an aggregationRule: its rules are whatever the cluster aggregates into it, which olm-rbac cannot know"
            )),
            Some((i, o)) => {
                if let Body::Role(v) = &o.body {
                    entries.extend(
                        v.rules.iter().map(|r| PolicyEntry { rule: r.to_policy_rule(), scope: PolicyScope::Anywhere }),
                    );
                }
                if origins.of(i) != Origin::Admin {
                    results.push(
                        Finding::warning(format!(
                            "ClusterRole {name:?} comes from no known file, so olm-rbac cannot tell it from one a bundle ships; pass your ceiling as a file of its own"
                        ))
                        .on(&cfg)
                        .at(field),
                    );
                }
                None
            }
        };
        if let Some(why) = problem {
            results.push(Finding::error(format!("{why}; name a ClusterRole of yours in the input")).on(&cfg).at(field));
            return None;
        }
    }
    Some(Some(entries))
}

impl Granted<'_> {
    /// `finding` about this grant: on the object and field that ask for it.
    fn at(&self, finding: Finding) -> Finding {
        finding.on(&self.on).at(self.field.clone()).in_file(self.file)
    }

    /// Who gets what, and where, for messages.
    fn describe(&self, namespaces: Option<&[String]>) -> String {
        let place = match (&self.place, namespaces) {
            (Place::Cluster, _) => " cluster-wide".to_string(),
            (Place::Namespaces(_), Some(list)) => in_namespaces(list),
            (Place::Namespaces(list), None) => in_namespaces(list),
        };
        format!("{} would be granted {}{place}", self.who, describe_rule(&self.rule))
    }
}

fn in_namespaces(list: &[String]) -> String {
    if list.iter().any(|n| n == UNNAMED_INSTALL_NAMESPACE) && list.len() == 1 {
        return " in its namespace(s)".to_string();
    }
    // A selector can pick thousands: name a few, count the rest.
    const SHOWN: usize = 5;
    match list.len() {
        n if n > SHOWN => format!(" in namespace(s) {} and {} more", list[..SHOWN].join(", "), n - SHOWN),
        _ => format!(" in namespace(s) {}", list.join(", ")),
    }
}

impl<'a> Gate<'a> {
    fn new(
        config: &'a Config,
        apis: &'a [Api],
        grants: &[Grant],
        objects: &[InputObject],
        origins: &Origins,
    ) -> Gate<'a> {
        let op = &config.operator;
        let install = op.install_namespace.clone().unwrap_or_else(|| UNNAMED_INSTALL_NAMESPACE.to_string());
        let mut operator_namespaces: BTreeSet<String> = BTreeSet::from([install.clone()]);
        match op.permissions {
            // Findings about the targets are the operator step's to report.
            OperatorPermissions::Namespaces => {
                operator_namespaces.extend(watched_namespaces(config, &install, objects, origins, &mut Vec::new()))
            }
            _ => operator_namespaces.extend(op.target_namespaces.iter().cloned()),
        }
        // A policy that decides something (a ceiling or a deny list) refuses
        // what it cannot measure; `policy: {}` asks only for the warnings.
        let strict = op.policy.as_ref().is_some_and(|p| p.has_ceiling() || !p.deny.is_empty());
        Gate {
            config,
            apis,
            operator_namespaces: operator_namespaces.into_iter().collect(),
            install,
            accounts: grants.iter().map(|g| g.account.clone()).collect(),
            strict,
        }
    }

    fn account(&self, name: &str) -> String {
        if self.install == UNNAMED_INSTALL_NAMESPACE {
            format!("ServiceAccount {name}")
        } else {
            format!("ServiceAccount {}/{name}", self.install)
        }
    }

    /// The CSV's rules, where they are granted, and the `namespaces` rule
    /// added when `permissions` are promoted.
    fn csv_granted<'o>(&self, csv: &'o InputObject, grants: &[Grant]) -> Vec<Granted<'o>> {
        let promoted = match &csv.body {
            Body::Csv(view) => promoted(self.config, view),
            _ => false,
        };
        let place = |cluster: bool| {
            if cluster || promoted {
                Place::Cluster
            } else {
                Place::Namespaces(self.operator_namespaces.clone())
            }
        };
        let mut out: Vec<Granted> = grants
            .iter()
            .map(|g| Granted {
                who: self.account(&g.account),
                rule: g.rule.clone(),
                place: place(g.cluster),
                on: csv.object_ref(),
                file: csv.file.as_ref(),
                field: g.field.clone(),
            })
            .collect();
        if promoted {
            let accounts: BTreeSet<&str> = grants.iter().filter(|g| !g.cluster).map(|g| g.account.as_str()).collect();
            out.extend(accounts.into_iter().map(|a| Granted {
                who: self.account(a),
                rule: read_namespaces(),
                place: Place::Cluster,
                on: csv.object_ref(),
                file: csv.file.as_ref(),
                field: "spec.install.spec.permissions".into(),
            }));
        }
        out
    }

    /// What the bundle's own RBAC grants, subject by subject. What cannot be
    /// measured (aggregating roles, bindings to roles nobody ships, built-in
    /// roles olm-rbac does not model) is reported instead: an error under a
    /// policy, a warning otherwise.
    fn bundle_granted<'o>(
        &self,
        objects: &'o [InputObject],
        origins: &Origins,
        claims: &[Option<String>],
        rewritten: &BTreeSet<usize>,
        results: &mut Vec<Finding>,
    ) -> Vec<Granted<'o>> {
        // The admin's objects, olm-rbac's earlier output in the admin's files
        // included, are not the bundle's. A claim to be this extension's earlier
        // output is believed only there: on stdin the bundle could write one,
        // and OLM installs what the bundle ships whatever this run removes.
        // Unless the item is exactly a cluster-scoped object this run writes from
        // the admin's config: then the cluster holds that grant either way. (OLM
        // puts a bundle's namespaced objects in the install namespace, not where
        // this run writes its copy.)
        let present: Vec<Present> =
            objects.iter().enumerate().map(|(i, o)| Present { object: o, admin: origins.is_admin(i) }).collect();
        let mut out = Vec::new();
        for (i, o) in objects.iter().enumerate() {
            let cluster_scoped = o
                .header
                .group()
                .zip(o.header.kind.as_deref())
                .and_then(|(g, k)| crate::kinds::resource_of(g, k))
                .is_some_and(|r| r.cluster);
            if origins.is_admin(i) || (claims[i].is_some() && rewritten.contains(&i) && cluster_scoped) {
                continue;
            }
            match &o.body {
                Body::Role(v) => {
                    self.check_role_name(o, results);
                    if v.aggregates() {
                        let message = "the bundle ships this ClusterRole with an aggregationRule: it holds whatever the cluster aggregates into it, which olm-rbac cannot measure against spec.operator.policy";
                        results.push(
                            self.finding(message).on(&o.object_ref()).at("aggregationRule").in_file(o.file.as_ref()),
                        );
                    }
                    self.aggregated(o, &present, results);
                    if !v.aggregates() {
                        out.extend(self.installer_holds(o, v));
                    }
                }
                Body::Binding(b) => out.extend(self.bound(o, b, &present, results)),
                _ => {}
            }
        }
        out
    }

    /// The installer account olm-rbac writes or checks must hold every rule of
    /// every role the bundle ships, bound or not: Kubernetes lets nobody write
    /// a role granting more than they hold. So a role nobody binds still
    /// reaches that account.
    fn installer_holds<'o>(&self, o: &'o InputObject, v: &RoleView) -> Vec<Granted<'o>> {
        let Some(installer) = &self.config.installer else { return Vec::new() };
        // The installer writes OLM's copy of a Role: in the install namespace.
        let place = if o.is("rbac.authorization.k8s.io", "ClusterRole") {
            Place::Cluster
        } else {
            Place::Namespaces(vec![self.install.clone()])
        };
        v.rules
            .iter()
            .enumerate()
            .map(|(j, r)| Granted {
                who: format!("{} (which must hold what it writes)", installer.account()),
                rule: r.to_policy_rule(),
                place: place.clone(),
                on: o.object_ref(),
                file: o.file.as_ref(),
                field: format!("rules[{j}]"),
            })
            .collect()
    }

    /// An error under a policy, a warning otherwise.
    fn finding(&self, message: impl Into<String>) -> Finding {
        if self.strict {
            Finding::error(message)
        } else {
            Finding::warning(message)
        }
    }

    /// A bundle role named like one of Kubernetes' own replaces a platform
    /// object when applied (until the API server reconciles it), and bindings
    /// to that name get the cluster's role, not the bundle's.
    fn check_role_name(&self, o: &InputObject, results: &mut Vec<Finding>) {
        let name = o.header.name.as_deref().unwrap_or_default();
        if o.is("rbac.authorization.k8s.io", "ClusterRole") && is_reserved_role_name(name) {
            let message = format!(
                "the bundle ships a ClusterRole named {name:?}, the name of a role Kubernetes itself keeps: applying it rewrites a platform object, and whoever is bound to {name:?} holds the cluster's role, not this one"
            );
            results.push(self.finding(message).on(&o.object_ref()).at("metadata.name").in_file(o.file.as_ref()));
        }
    }

    /// A bundle ClusterRole that an aggregating role gathers by label gives
    /// its rules to whoever holds that role: users, not the operator. They may
    /// get the level that role stands for on the bundle's own APIs (the
    /// built-in `admin`, `edit`, `view`; `view` for an aggregating role of the
    /// input's), and nothing else. A label for an aggregating role olm-rbac
    /// does not see cannot be measured.
    fn aggregated(&self, o: &InputObject, present: &[Present], results: &mut Vec<Finding>) {
        let Body::Role(view) = &o.body else { return };
        if !o.is("rbac.authorization.k8s.io", "ClusterRole") || view.aggregates() {
            return;
        }
        let labels = &o.header.labels;
        let mut gatherers: BTreeMap<String, RoleKind> = BUILTIN_AGGREGATING
            .iter()
            .filter(|(_, label, _)| labels.get(*label).map(String::as_str) == Some("true"))
            .map(|(name, _, level)| (name.to_string(), *level))
            .collect();
        let unseen = labels
            .keys()
            .filter(|k| k.starts_with(AGGREGATE_PREFIX))
            .filter(|k| !BUILTIN_AGGREGATING.iter().any(|(_, label, _)| label == k));
        for key in unseen {
            let message = format!(
                "the bundle labels this ClusterRole {key}: a role olm-rbac does not see gathers its rules for whoever holds it, which olm-rbac cannot measure against spec.operator.policy"
            );
            results.push(
                self.finding(message).on(&o.object_ref()).at(format!("metadata.labels.{key}")).in_file(o.file.as_ref()),
            );
        }
        for r in present.iter().map(|p| p.object) {
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
            let bound = level_bound(self.apis, level);
            for (j, r) in view.rules.iter().enumerate() {
                let rule = r.to_policy_rule();
                let beyond: Vec<String> = uncovered_rules(&bound, &rule).iter().map(describe_rule).collect();
                if beyond.is_empty() {
                    continue;
                }
                let message = format!(
                    "whoever holds ClusterRole {gatherer}, which aggregates this one, would be granted {}, beyond {} on the bundle's own APIs: {}",
                    describe_rule(&rule),
                    level.as_str(),
                    beyond.join("; ")
                );
                results
                    .push(self.finding(message).on(&o.object_ref()).at(format!("rules[{j}]")).in_file(o.file.as_ref()));
            }
        }
    }

    /// What one of the bundle's bindings grants each of its subjects, where.
    fn bound<'o>(
        &self,
        o: &'o InputObject,
        b: &BindingView,
        present: &[Present<'o>],
        results: &mut Vec<Finding>,
    ) -> Vec<Granted<'o>> {
        // OLM writes a bundle's namespaced objects into the install namespace,
        // whatever namespace they name; applied as they are (bundleObjects:
        // Keep), they also land where they say. Each copy grants in its own
        // namespace, to subjects without a namespace of their own there.
        let role_binding = o.is("rbac.authorization.k8s.io", "RoleBinding");
        let mut copies: Vec<Option<&str>> = vec![None];
        if role_binding {
            copies = vec![Some(self.install.as_str())];
            let written = o.header.namespace.as_deref().filter(|ns| !ns.is_empty());
            if let Some(ns) =
                written.filter(|ns| *ns != self.install && self.config.bundle_objects == BundleObjects::Keep)
            {
                copies.push(Some(ns));
            }
        }
        let Some(rules) = self.role_rules(o, b, role_binding, present, results) else { return Vec::new() };
        let mut out = Vec::new();
        for copy in copies {
            let place = copy.map_or(Place::Cluster, |ns| Place::Namespaces(vec![ns.to_string()]));
            for (k, s) in b.subjects.iter().enumerate() {
                let Some(who) = self.subject(o, s, k, copy, results) else { continue };
                out.extend(rules.iter().map(|(rule, on, file, field)| Granted {
                    who: format!("{who} (through the bundle's {})", o.object_ref()),
                    rule: rule.clone(),
                    place: place.clone(),
                    on: on.clone(),
                    file: *file,
                    field: field.clone(),
                }));
            }
        }
        out
    }

    /// Names a binding's subject; a subject other than the bundle's own
    /// ServiceAccounts is reported (an error under a policy).
    fn subject(
        &self,
        o: &InputObject,
        s: &SubjectView,
        k: usize,
        binding_namespace: Option<&str>,
        results: &mut Vec<Finding>,
    ) -> Option<String> {
        let kind = s.kind.as_deref().unwrap_or_default();
        let name = s.name.as_deref().unwrap_or_default();
        // A RoleBinding's subject without a namespace is in the binding's (for
        // OLM's copy, the install namespace). Without a named install
        // namespace, that is the only account known to be the operator's.
        let written = s.namespace.as_deref().filter(|n| !n.is_empty());
        let namespace = written.or(binding_namespace);
        let own = kind == "ServiceAccount" && self.accounts.contains(name) && namespace == Some(self.install.as_str());
        let who = match (kind, namespace) {
            ("ServiceAccount", Some(ns)) => format!("ServiceAccount {ns}/{name}"),
            ("ServiceAccount", None) => return None, // matches nobody
            _ => format!("{kind} {name}"),
        };
        if !own {
            let message = format!(
                "the bundle grants {who}, which is not one of the operator's own ServiceAccounts{}: a bundle may grant only the accounts its ClusterServiceVersion runs as",
                if self.install == UNNAMED_INSTALL_NAMESPACE { String::new() } else { format!(" in {}", self.install) }
            );
            results
                .push(self.finding(message).on(&o.object_ref()).at(format!("subjects[{k}]")).in_file(o.file.as_ref()));
        }
        Some(who)
    }

    /// The rules of the role a binding refers to, each with the object and
    /// field it is written in: a built-in role the cluster keeps, or a role in
    /// the input. `None` when that cannot be told (reported).
    #[allow(clippy::type_complexity)]
    fn role_rules<'o>(
        &self,
        o: &'o InputObject,
        b: &BindingView,
        role_binding: bool,
        present: &[Present<'o>],
        results: &mut Vec<Finding>,
    ) -> Option<Vec<(PolicyRule, ObjRef, Option<&'o FileRef>, String)>> {
        let kind = b.role_ref.kind.as_deref().unwrap_or_default();
        let name = b.role_ref.name.as_deref().unwrap_or_default();
        if kind == "ClusterRole" && is_reserved_role_name(name) {
            // The cluster's own role, whatever the input holds under its name.
            let builtin = access::builtin::policy().ok().and_then(|p| Some((p, p.cluster_roles.get(name)?)));
            let Some((builtins, role)) = builtin else {
                let message = format!(
                    "the bundle binds the built-in ClusterRole {name:?}, whose rules are the cluster's, not the bundle's, and not among Kubernetes {}'s bootstrap roles: olm-rbac cannot hold it to spec.operator.policy",
                    access::builtin::KUBERNETES_VERSION
                );
                results.push(self.finding(message).on(&o.object_ref()).at("roleRef").in_file(o.file.as_ref()));
                return None;
            };
            let rules = builtins.effective_rules(role).into_iter();
            return Some(rules.map(|(_, r)| (r, o.object_ref(), o.file.as_ref(), "roleRef".to_string())).collect());
        }
        // A Role the bundle ships lands in the install namespace beside the
        // binding, whatever namespace either names; the admin's stays where it is.
        let namespace = o.header.namespace.as_deref();
        let role = present.iter().find(|p| {
            let r = p.object;
            matches!(r.body, Body::Role(_))
                && r.header.kind.as_deref() == Some(kind)
                && r.header.name.as_deref() == Some(name)
                && (kind == "ClusterRole" || !p.admin || (role_binding && r.header.namespace.as_deref() == namespace))
        });
        match role.map(|p| (p.object, &p.object.body)) {
            Some((r, Body::Role(v))) if !v.aggregates() => Some(
                v.rules
                    .iter()
                    .enumerate()
                    .map(|(j, rule)| (rule.to_policy_rule(), r.object_ref(), r.file.as_ref(), format!("rules[{j}]")))
                    .collect(),
            ),
            // An aggregating role is reported where it is shipped.
            Some(_) => None,
            None => {
                let message = format!(
                    "the bundle binds {kind} {name:?}, which it does not ship: olm-rbac cannot tell what that grants, so it cannot hold it to spec.operator.policy"
                );
                results.push(self.finding(message).on(&o.object_ref()).at("roleRef").in_file(o.file.as_ref()));
                None
            }
        }
    }

    /// The namespaces a scope names, the operator's own for an empty list.
    fn scope_namespaces<'s>(&'s self, list: &'s [String]) -> &'s [String] {
        if list.is_empty() {
            &self.operator_namespaces
        } else {
            list
        }
    }

    /// Does an `allow` entry cover grants in `place` (namespace `ns`, or cluster-wide)?
    fn allows_in(&self, entry: &PolicyEntry, ns: Option<&str>) -> bool {
        match (&entry.scope, ns) {
            (PolicyScope::Anywhere | PolicyScope::Cluster, _) => true,
            (PolicyScope::Namespaces(list), Some(ns)) => self.scope_namespaces(list).iter().any(|n| n == ns),
            (PolicyScope::Namespaces(_), None) => false,
        }
    }

    /// Does a `deny` entry forbid grants in `place`? A cluster-wide grant
    /// reaches every namespace, so every entry applies to it.
    fn denies_in(&self, entry: &PolicyEntry, ns: Option<&str>) -> bool {
        match (&entry.scope, ns) {
            (_, None) | (PolicyScope::Anywhere, _) => true,
            (PolicyScope::Cluster, Some(_)) => false,
            (PolicyScope::Namespaces(list), Some(ns)) => self.scope_namespaces(list).iter().any(|n| n == ns),
        }
    }

    fn check_ceiling(&self, allow: &[PolicyEntry], granted: &[Granted], results: &mut Vec<Finding>) {
        let mut results = Capped::new(results);
        // The entries that apply in each place, gathered once per place.
        let mut applicable: BTreeMap<Option<&str>, Vec<PolicyRule>> = BTreeMap::new();
        for g in granted {
            // Each place, with what the entries that apply there leave uncovered;
            // namespaces with the same answer are reported together.
            let mut beyond: Vec<(Vec<String>, Option<Vec<String>>)> = Vec::new();
            for ns in places(&g.place) {
                let rules = applicable.entry(ns).or_insert_with(|| {
                    allow.iter().filter(|e| self.allows_in(e, ns)).map(|e| e.rule.clone()).collect()
                });
                let missing: Vec<String> = uncovered_rules(rules, &g.rule).iter().map(describe_rule).collect();
                if missing.is_empty() {
                    continue;
                }
                match (ns, beyond.iter_mut().find(|(m, _)| *m == missing)) {
                    (Some(ns), Some((_, Some(list)))) => list.push(ns.to_string()),
                    (ns, _) => beyond.push((missing, ns.map(|n| vec![n.to_string()]))),
                }
            }
            for (missing, namespaces) in beyond {
                let message = format!(
                    "install policy: {}, beyond spec.operator.policy.allow: {}",
                    g.describe(namespaces.as_deref()),
                    missing.join("; ")
                );
                results.push(g, Finding::error(message));
            }
        }
        results.finish();
    }

    fn check_deny(&self, deny: &[PolicyEntry], granted: &[Granted], results: &mut Vec<Finding>) {
        let mut results = Capped::new(results);
        for g in granted {
            for (k, d) in deny.iter().enumerate().filter(|(_, d)| overlaps(&g.rule, &d.rule)) {
                let hit: Vec<String> = places(&g.place)
                    .into_iter()
                    .filter(|ns| self.denies_in(d, *ns))
                    .flatten()
                    .map(String::from)
                    .collect();
                let applies = g.place == Place::Cluster && self.denies_in(d, None) || !hit.is_empty();
                if !applies {
                    continue;
                }
                let namespaces = (g.place != Place::Cluster).then_some(hit);
                let message = format!(
                    "install policy: {}, which spec.operator.policy.deny[{k}] forbids ({})",
                    g.describe(namespaces.as_deref()),
                    describe_rule(&d.rule)
                );
                results.push(g, Finding::error(message));
            }
        }
        results.finish();
    }
}

/// An input object, and whether it is known to be the admin's.
#[derive(Clone, Copy)]
struct Present<'o> {
    object: &'o InputObject,
    admin: bool,
}

/// The aggregating built-in ClusterRoles, the label each gathers, and the
/// level each stands for.
const BUILTIN_AGGREGATING: [(&str, &str, RoleKind); 3] = [
    ("admin", "rbac.authorization.k8s.io/aggregate-to-admin", RoleKind::Admin),
    ("edit", "rbac.authorization.k8s.io/aggregate-to-edit", RoleKind::Edit),
    ("view", "rbac.authorization.k8s.io/aggregate-to-view", RoleKind::View),
];

/// The namespaces of a place, `None` standing for cluster-wide.
fn places(place: &Place) -> Vec<Option<&str>> {
    match place {
        Place::Cluster => vec![None],
        Place::Namespaces(list) => list.iter().map(|n| Some(n.as_str())).collect(),
    }
}

fn warn_dangerous(granted: &[Granted], results: &mut Vec<Finding>) {
    let mut results = Capped::new(results);
    for g in granted {
        let dangers = crate::access::danger::dangers(&g.rule, g.place == Place::Cluster);
        if dangers.is_empty() {
            continue;
        }
        let what: Vec<String> = dangers.iter().map(|d| format!("{} ({})", d.what, d.severity)).collect();
        let message = format!(
            "{}: {} (see docs/dangerous-permissions.md; set spec.operator.policy to decide what the operator may hold)",
            g.describe(None),
            what.join(", ")
        );
        results.push(g, Finding::warning(message));
    }
    results.finish();
}

/// Findings about grants, at most [`Capped::EACH`] for any one holder: a role
/// of many rules bound many times would otherwise say the same thing
/// rules × bindings times. What is left out is counted, once per holder.
struct Capped<'r> {
    results: &'r mut Vec<Finding>,
    said: BTreeMap<String, usize>,
    first: BTreeMap<String, Finding>,
}

impl<'r> Capped<'r> {
    const EACH: usize = 10;

    fn new(results: &'r mut Vec<Finding>) -> Capped<'r> {
        Capped { results, said: BTreeMap::new(), first: BTreeMap::new() }
    }

    fn push(&mut self, g: &Granted, finding: Finding) {
        let n = self.said.entry(g.who.clone()).or_default();
        *n += 1;
        if *n <= Self::EACH {
            self.results.push(g.at(finding));
        } else {
            self.first.entry(g.who.clone()).or_insert_with(|| g.at(finding));
        }
    }
}

impl Capped<'_> {
    /// Counts what was left out, once per holder.
    fn finish(self) {
        for (who, first) in self.first {
            let more = self.said.get(&who).copied().unwrap_or_default() - Self::EACH;
            let message = format!("and {more} more like it for {who} (the first {} are shown)", Self::EACH);
            self.results.push(Finding { message, ..first });
        }
    }
}
