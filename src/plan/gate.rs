//! The install policy (`spec.operator.policy`): a ceiling on what the bundle
//! may grant, and permissions it must never grant. It applies in every mode,
//! since OLM grants the CSV's permissions whether or not olm-rbac writes them.
//!
//! What is measured is the access the cluster will hold after the install,
//! not the rule text: who gets each rule and where (`holdings`).
//! - The CSV's `clusterPermissions`, cluster-wide, and its `permissions`,
//!   where OLM (or olm-rbac, for `Cluster` and `Namespaces`) grants them:
//!   promoted cluster-wide, with read access to `namespaces` added, when the
//!   operator watches all namespaces; otherwise in its own namespaces.
//! - Every binding the bundle may have shipped (see `origin`): each subject
//!   gets the rules of the role it binds, cluster-wide or in the binding's
//!   namespace. A built-in role's name means the built-in role (Kubernetes'
//!   bootstrap policy, `access::builtin`), which the cluster keeps whatever
//!   the bundle ships under that name, with what the admin's ClusterRoles and
//!   every ClusterRole this run writes aggregate into it (`Input::built_in`).
//! - The bundle's ClusterRoles that an aggregating role (the built-in
//!   `admin`, `edit`, `view`, or one of the input's) gathers by label: their
//!   rules reach whoever holds that role.
//!
//! A bundle may grant only its own ServiceAccounts (those the CSV names, in
//! the install namespace): under a policy any other subject is an error,
//! without one a warning. Each holding is then measured (`verdict`) against
//! the scoped `allow` entries and `deny` entries, or, without a ceiling,
//! against the catalogue of dangerous permissions; coverage and overlap are
//! decided by `access::cover`, the API server's own escalation semantics.

use std::collections::BTreeSet;

use crate::config::{InstallPolicy, OperatorPermissions, PolicyEntry, PolicyScope};
use crate::findings::{Code, Finding};
use crate::model::*;

use crate::plan::facts::grants::CsvGrant;
use crate::plan::facts::input::{OperatorInput, Planning};
use crate::plan::facts::origin::Origin;
use crate::plan::types::Made;

mod beside;
mod collisions;
mod deputy;
mod entries;
mod holdings;
mod modelled;
mod network;
mod pods;
mod verdict;
mod webhooks;

use verdict::warn_dangerous;

/// A namespace a holding reaches: one with a name, or one the gate knows
/// only by its part, which no policy entry can list.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Namespace {
    Named(String),
    /// The operator's namespace when the config does not name it
    /// (`permissions: Unmanaged` without `installNamespace`): it could be
    /// any, so a `deny` scoped to namespaces applies to it, and an `allow`
    /// scoped to named namespaces does not.
    UnnamedInstall,
    /// Where a bundle RoleBinding that names no namespace lands when this
    /// output is applied (`bundleObjects: Keep`): the applier's current
    /// namespace, which could be any. A `deny` scoped to namespaces applies
    /// to it, and an `allow` scoped to namespaces does not.
    Applied,
}

impl Namespace {
    fn named(&self) -> Option<&str> {
        match self {
            Namespace::Named(n) => Some(n),
            _ => None,
        }
    }

    /// The namespace of a copy the kernel's policy holds, where the gate
    /// placed it under its name as written ([`Namespace`]'s `Display`). The
    /// unnamed ones' names are no namespace's (not DNS-1123 labels), and
    /// the placement never writes a copy in such a namespace.
    fn placed(name: &str) -> Namespace {
        [Namespace::UnnamedInstall, Namespace::Applied]
            .into_iter()
            .find(|unnamed| unnamed.to_string() == name)
            .unwrap_or_else(|| Namespace::Named(name.to_string()))
    }
}

impl std::fmt::Display for Namespace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Namespace::Named(n) => n,
            Namespace::UnnamedInstall => crate::plan::operator::permissions::UNNAMED_INSTALL_NAMESPACE,
            Namespace::Applied => "(the namespace it is applied in)",
        })
    }
}

/// What the checks share: the config's planning, the operator's namespaces,
/// and how strict to be.
struct Gate<'a> {
    planning: &'a Planning<'a>,
    /// The install namespace and the targets.
    operator_namespaces: Vec<Namespace>,
    install: Namespace,
    /// The ServiceAccount names the CSV grants to.
    accounts: BTreeSet<String>,
    /// A ceiling is set: what cannot be measured is an error, not a warning.
    strict: bool,
}

/// Checks everything the bundle grants against the policy: each rule beyond
/// `allow`, and each rule sharing a permission with `deny`, is an error naming
/// who gets it, where, and where the bundle asks for it. Without a ceiling,
/// dangerous permissions are warned about instead.
///
/// Returns what the install grants beyond RBAC rules, as the roles and
/// bindings that would hold the same access (`modelled`), for the judgement's
/// model of the cluster: the diff and the catalog's gains measure them as
/// they measure any grant. They are never written.
pub(super) fn check_policy(operator: &OperatorInput<'_>, results: &mut Vec<Finding>) -> Vec<Made> {
    let p = operator.planning;
    let policy = p.config.operator.policy.as_ref();
    let gate = Gate::new(operator);
    if gate.strict {
        refuse_unplaced_csvs(p, results);
    }
    let mut holdings = p.csv().map(|(csv, _)| gate.csv_holdings(csv, &operator.grants)).unwrap_or_default();
    let webhooks = p.csv().map(|(csv, _)| gate.webhook_holdings(csv)).unwrap_or_default();
    // What is held beyond RBAC rules, modelled for the cluster (`modelled`).
    let mut beyond = webhooks.clone();
    holdings.extend(webhooks);
    if p.csv.is_some() {
        holdings.extend(gate.bundle_holdings(results));
    }
    let beside = beside::check_beside(p, policy.and_then(|p| p.pod_security()), gate.strict, results);
    holdings.extend(beside.judged);
    beyond.extend(beside.modelled);
    if p.config.operator.permissions == OperatorPermissions::Namespaces {
        gate.warn_beyond_scope(&holdings, results);
    }
    gate.warn_who_can_become(&holdings, results);
    gate.check_runs_as(results);
    // Judged by their own findings (interception, pod security), and
    // modelled for the cluster as what they amount to.
    let holder = |account: &str| gate.operator_account(account);
    beyond.extend(network::check_interception(p, gate.strict, &holder, results));
    if let Some((csv, view)) = p.csv() {
        beyond.extend(pods::check_pods(csv, view, policy.and_then(|p| p.pod_security()), &holder, results));
    }
    let powers = modelled::as_grants(&p.config.extension, &beyond);
    let Some(policy) = policy else {
        warn_dangerous(&holdings, false, results);
        return powers;
    };
    entries::check_entries(p, policy, results);
    let Some(ceiling) = ceiling_entries(p, policy, results) else { return powers };
    match &ceiling {
        Some(allow) => gate.check_ceiling(allow, &holdings, results),
        None => warn_dangerous(&holdings, true, results),
    }
    gate.check_deny(&policy.deny, &holdings, results);
    powers
}

impl<'a> Gate<'a> {
    fn new(operator: &OperatorInput<'a>) -> Gate<'a> {
        let op = &operator.config().operator;
        let install = match operator.config().install_namespace() {
            Some(ns) => Namespace::Named(ns.to_string()),
            None => Namespace::UnnamedInstall,
        };
        let mut operator_namespaces: BTreeSet<Namespace> = BTreeSet::from([install.clone()]);
        match op.permissions {
            // Findings about the targets are the operator step's to report;
            // none listed or selected is the install namespace alone.
            OperatorPermissions::Namespaces => operator_namespaces.extend(
                operator.watched_namespaces("").into_iter().flatten().filter(|n| !n.is_empty()).map(Namespace::Named),
            ),
            // OLM v1 grants `permissions` in the watch namespace alone.
            OperatorPermissions::Unmanaged if operator.planning.watch_namespace().is_some() => {
                operator_namespaces =
                    operator.planning.watch_namespace().map(|w| Namespace::Named(w.into())).into_iter().collect();
            }
            _ => operator_namespaces.extend(op.target_namespaces.iter().cloned().map(Namespace::Named)),
        }
        // A policy that decides something (a ceiling or a deny list) refuses
        // what it cannot measure; `policy: {}` asks only for the warnings.
        let strict = op.policy.as_ref().is_some_and(|p| p.decides());
        Gate {
            planning: operator.planning,
            operator_namespaces: operator_namespaces.into_iter().collect(),
            install,
            accounts: operator.grants.iter().map(|g: &CsvGrant| g.account.clone()).collect(),
            strict,
        }
    }

    /// What the CSV's admission webhooks give the operator (`webhooks`):
    /// their namespaceSelector matches the operator's namespaces, or every
    /// namespace when it watches all.
    fn webhook_holdings<'o>(&self, csv: &'o InputObject) -> Vec<holdings::Holding<'o>> {
        let p = self.planning;
        let everywhere = matches!(&csv.body, Body::Csv(v) if crate::plan::operator::permissions::judged_everywhere(p.config, v, p.watch_namespace()));
        let selected = if everywhere {
            holdings::Reach::Cluster
        } else {
            holdings::Reach::Namespaces(self.operator_namespaces.clone())
        };
        let holder = |account: &str| self.operator_account(account);
        let webhooks = webhooks::Webhooks { apis: &p.apis, resources: &p.input.resources, selected, holder: &holder };
        webhooks.holdings(csv)
    }

    /// The install namespace, when the config names it.
    fn install_named(&self) -> Option<&str> {
        self.install.named()
    }

    /// An error under a policy, a warning otherwise.
    fn finding(&self, code: Code, message: impl Into<String>) -> Finding {
        if self.strict {
            Finding::error(code, message)
        } else {
            Finding::warning(code, message)
        }
    }

    /// [`Gate::finding`] about `field` of `o`, in its file.
    fn finding_on(&self, o: &InputObject, code: Code, field: impl Into<String>, message: impl Into<String>) -> Finding {
        self.finding(code, message).on(&o.object_ref()).at(field).in_file(o.file.as_ref())
    }
}

/// Several ClusterServiceVersions from no known file (stdin, a runner that
/// names none) may be one bundle's, of which OLM installs the last: under a
/// policy, olm-rbac cannot judge the one that counts.
/// The annotation that names the ServiceAccount a token Secret is for.
const TOKEN_FOR: &str = "kubernetes.io/service-account.name";

impl Gate<'_> {
    /// What is judged is what the CSV's accounts hold: the operator must run
    /// as one of them. A CSV Deployment whose pods run as another account in
    /// the install namespace (`default`, the installer account, any other),
    /// or a bundle Secret that asks for a token of another account (which
    /// any pod there may mount, with no RBAC needed), would hold that
    /// account's rights, which no rule of the bundle shows: an error under a
    /// policy, a warning without.
    fn check_runs_as(&self, results: &mut Vec<Finding>) {
        let p = self.planning;
        let Some((csv, view)) = p.csv() else { return };
        let spec = &view.spec.install.spec;
        let judged: BTreeSet<&str> =
            spec.permissions.iter().chain(&spec.cluster_permissions).map(|g| g.account()).collect();
        let named = |set: &BTreeSet<&str>| set.iter().copied().collect::<Vec<_>>().join(", ");
        for (i, d) in spec.deployments.iter().enumerate() {
            let account = d.runs_as();
            if !judged.contains(account) {
                let message = format!(
                    "Deployment {:?} runs as ServiceAccount {account:?}, which none of the CSV's permissions or clusterPermissions name (they name {}): its pods would hold whatever that account holds in the install namespace, none of it judged here; run it as one of the CSV's accounts",
                    d.name.as_deref().unwrap_or_default(),
                    named(&judged)
                );
                results.push(
                    self.finding(Code::AccountUnjudged, message)
                        .on(&csv.object_ref())
                        .at(format!("spec.install.spec.deployments[{i}].spec.template.spec.serviceAccountName"))
                        .in_file(csv.file.as_ref()),
                );
            }
        }
        for (i, o) in p.objects().iter().enumerate() {
            let Some(account) = o.header.annotations.get(TOKEN_FOR) else { continue };
            if !o.is("", "Secret") || p.origins().is_admin(i) || judged.contains(account.as_str()) {
                continue;
            }
            let message = format!(
                "a token Secret for ServiceAccount {account:?}, which none of the CSV's permissions name: OLM installs it in the install namespace, where any pod may mount it and act as that account, with rights none of the bundle's rules show; leave it out"
            );
            results.push(
                self.finding(Code::AccountUnjudged, message)
                    .on(&o.object_ref())
                    .at(format!("metadata.annotations.{TOKEN_FOR}"))
                    .in_file(o.file.as_ref()),
            );
        }
    }
}

fn refuse_unplaced_csvs(p: &Planning<'_>, results: &mut Vec<Finding>) {
    let unplaced: Vec<&InputObject> = p
        .objects()
        .iter()
        .enumerate()
        .filter(|(i, o)| matches!(o.body, Body::Csv(_)) && !p.origins().has_file(*i))
        .map(|(_, o)| o)
        .collect();
    if unplaced.len() > 1 {
        for o in &unplaced {
            results.push(
                Finding::error(Code::CsvAmbiguous, format!(
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
fn ceiling_entries(
    p: &Planning<'_>,
    policy: &InstallPolicy,
    results: &mut Vec<Finding>,
) -> Option<Option<Vec<PolicyEntry>>> {
    if !policy.has_ceiling() {
        return Some(None);
    }
    let (objects, origins, claims) = (p.objects(), p.origins(), &p.claims);
    let mut entries = policy.allow.clone().unwrap_or_default();
    if let Some(name) = &policy.allow_cluster_role {
        let cfg = p.config.object_ref();
        let field = "spec.operator.policy.allowClusterRole";
        let found = objects
            .iter()
            .enumerate()
            .find(|(_, o)| o.role_kind() == Some(RoleRefKind::ClusterRole) && o.header.name.as_deref() == Some(name));
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
                        Finding::warning(Code::OriginUntrusted, format!(
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
            results.push(
                Finding::error(Code::CeilingInvalid, format!("{why}; name a ClusterRole of yours in the input"))
                    .on(&cfg)
                    .at(field),
            );
            return None;
        }
    }
    Some(Some(entries))
}
