//! The installer account (`spec.installer`): the ServiceAccount OLM installs
//! the bundle as, and exactly what it needs to hold to do so.
//!
//! What it needs is derived from the bundle (`needs`): for each object OLM
//! writes, `create`, `list` and `watch` (which Kubernetes cannot restrict by
//! name) and `get`, `update`, `patch`, `delete` on the names the bundle gives;
//! and, since Kubernetes lets nobody grant what they do not hold, every rule
//! the operator is granted, where it is granted. `Generate` writes the account
//! and its roles, the needs minimised once (`minimise`); `Check` measures an
//! account already in the input.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::access::allowed;
use crate::access::cover::Owners;
use crate::access::danger::{dangers, Severity};
use crate::access::{describe_rule, from_objects, Identity};
use crate::config::{Config, Installer, InstallerMode};
use crate::findings::{Code, Finding};
use crate::model::*;

use crate::plan::facts::input::OperatorInput;
use crate::plan::operator::accounts::{claimed_account, Account, AccountRole};
use crate::plan::types::{Made, Object};

mod minimise;
mod needs;

use minimise::minimised;
use needs::{Need, Place};

/// What planning the installer reads: the operator's input, the installer
/// as configured, and the chosen ClusterServiceVersion.
struct Installing<'a> {
    operator: &'a OperatorInput<'a>,
    installer: &'a Installer,
    csv_index: usize,
    csv: &'a InputObject,
    view: &'a CsvView,
}

/// Plans `spec.installer`: the account's objects (`Generate`), or the
/// permissions an existing account lacks, as errors (`Check`).
pub(super) fn plan_installer(operator: &OperatorInput<'_>, results: &mut Vec<Finding>) -> Vec<Made> {
    let p = operator.planning;
    let config = p.config;
    let Some(installer) = &config.installer else { return Vec::new() };
    let (Some(csv_index), Some((csv, view))) = (p.csv, p.csv()) else {
        results.push(
            Finding::error(
                Code::CsvMissing,
                "spec.installer needs the bundle's ClusterServiceVersion in the input: it says what OLM installs",
            )
            .on(&config.object_ref())
            .at("spec.installer"),
        );
        return Vec::new();
    };
    let installing = Installing { operator, installer, csv_index, csv, view };
    let needs = installing.needs(results);
    if !p.origins().bundle_folder_known() {
        results.push(
            Finding::warning(Code::OriginUnknown,
                "the input does not say which folder is the bundle's (its ClusterServiceVersion came from stdin or from a file in the working directory), so every object beside it that a bundle may ship counts as the bundle's: the account may write it and holds the rules of its roles (pass the bundle's manifests folder as files, or through kpt, to count only those)",
            )
            .on(&config.object_ref())
            .at("spec.installer"),
        );
    }
    warn_dangerous(installer, &needs, results);
    match installer.mode {
        InstallerMode::Check => {
            installing.check_account(&needs, results);
            Vec::new()
        }
        InstallerMode::Generate => {
            let rules = minimised(&needs);
            results.push(
                Finding::info(
                    Code::Summary,
                    format!(
                        "extension {:?}: {} ({}): generated {} rule(s) cluster-wide and {} in namespace(s) {}",
                        config.extension,
                        installer.describe(),
                        installer.olm.as_str(),
                        rules.get(&Place::Cluster).map_or(0, Vec::len),
                        rules
                            .iter()
                            .filter(|(place, _)| **place != Place::Cluster)
                            .map(|(_, r)| r.len())
                            .sum::<usize>(),
                        namespaces(&needs).join(", "),
                    ),
                )
                .on(&config.object_ref()),
            );
            installing.objects(rules)
        }
    }
}

/// Is `o` one of the objects `Generate` wrote for the account `config`'s
/// `Check` measures? Then it is that account as it stands: kept, not replaced
/// as earlier output, and held when it comes from the admin's files. A copy
/// from anywhere else holds nothing, like any object that is not the admin's.
pub(super) fn is_checked_account(config: &Config, o: &InputObject) -> bool {
    let Some(installer) = config.installer.as_ref().filter(|i| i.mode == InstallerMode::Check) else { return false };
    let account = installer.account.qualified_name();
    o.header.labels.get(EXTENSION_LABEL) == Some(&config.extension)
        && claimed_account(o) == Some((AccountRole::Installer, account.as_str()))
}

/// The installer's own rights (writing the bundle's objects, OLM's own
/// writes) that the catalogue rates high or critical, each named once with
/// what it is for. What it holds only to grant the operator is the
/// operator's, reported with the install policy.
fn warn_dangerous(installer: &Installer, needs: &[Need], results: &mut Vec<Finding>) {
    let mut seen = BTreeSet::new();
    for n in needs.iter().filter(|n| !n.to_grant) {
        let cluster = n.place == Place::Cluster;
        for d in dangers(&n.rule, cluster).into_iter().filter(|d| d.severity >= Severity::High) {
            if !seen.insert((d.what, n.why.clone(), n.place.clone())) {
                continue;
            }
            results.push(
                Finding::warning(
                    Code::InstallerDangerous,
                    format!(
                        "{} must hold {} {} to {}: {} ({})",
                        installer.describe(),
                        describe_rule(&n.rule),
                        n.place.describe(),
                        n.why,
                        d.what,
                        d.severity
                    ),
                )
                .on(&installer.account.object_ref()),
            );
        }
    }
}

/// The namespaces the installer needs anything in, in order.
fn namespaces(needs: &[Need]) -> Vec<String> {
    let set: BTreeSet<String> = needs
        .iter()
        .filter_map(|n| match &n.place {
            Place::Namespace(ns) => Some(ns.clone()),
            Place::Cluster => None,
        })
        .collect();
    set.into_iter().collect()
}

impl Installing<'_> {
    /// `Check`: every need the account's bindings do not cover is an error
    /// naming what is missing and why it is needed. Only what exists before
    /// the install counts as held: the admin's own roles and bindings. The
    /// bundle's are created by the installer itself, and objects of unknown
    /// origin may be the bundle's; olm-rbac's earlier output comes from the
    /// admin's files or is unknown like any other object; this extension's is
    /// replaced by this run, but for the account checked, which `Generate`
    /// may have written ([`is_checked_account`]).
    fn check_account(&self, needs: &[Need], results: &mut Vec<Finding>) {
        let (p, installer) = (self.operator.planning, self.installer);
        // This extension's earlier output is removed by this run, so it holds nothing.
        let replaced = |i: usize| {
            p.claims[i].as_deref() == Some(p.config.extension.as_str())
                && !is_checked_account(p.config, &p.objects()[i])
        };
        let held = |i: usize| p.origins().is_admin(i) && !replaced(i);
        let policy = from_objects(p.objects().iter().enumerate().filter(|(i, _)| held(*i)).map(|(_, o)| o));
        let who = Identity::new(&installer.account.username(), &[]);
        let held: BTreeMap<&Place, Vec<PolicyRule>> = needs
            .iter()
            .map(|n| &n.place)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .map(|place| match place {
                Place::Cluster => (place, policy.held_rules(&who, allowed::Place::ClusterWide)),
                Place::Namespace(name) => (place, policy.held_rules(&who, allowed::Place::Namespace(name))),
            })
            .collect();
        let owners: BTreeMap<&Place, Owners> = held.iter().map(|(place, rules)| (*place, Owners::new(rules))).collect();
        for n in needs {
            let Some(rules) = owners.get(&n.place) else { continue };
            let missing: Vec<String> = rules.uncovered_rules(&n.rule).iter().map(describe_rule).collect();
            if missing.is_empty() {
                continue;
            }
            results.push(
                Finding::error(
                    Code::InstallerLacks,
                    format!(
                        "{} cannot {}: it lacks {} {}",
                        installer.describe(),
                        n.why,
                        missing.join("; "),
                        n.place.describe()
                    ),
                )
                .on(&installer.account.object_ref()),
            );
        }
    }

    /// `Generate`: the account, and per place a role with `rules` bound to it.
    fn objects(&self, rules: BTreeMap<Place, Vec<PolicyRule>>) -> Vec<Made> {
        let extension = &self.operator.config().extension;
        let sa = &self.installer.account;
        let account = Account { extension, role: AccountRole::Installer, account: sa.clone() };
        let name = crate::plan::names::installer(extension);
        let mut out = vec![(
            account.about(),
            Object::ServiceAccount(ServiceAccount {
                metadata: account.metadata(&sa.name, Some(&sa.namespace)),
                ..Default::default()
            }),
        )];
        for (place, rules) in rules {
            match place {
                Place::Cluster => out.extend(account.cluster_pair(&name, rules)),
                Place::Namespace(ns) => out.extend(account.namespace_pair(&name, &ns, rules)),
            }
        }
        out
    }
}
