//! The operator's own permissions: what the CSV grants its ServiceAccounts
//! (`spec.install.spec.permissions` and `clusterPermissions`), where, and the
//! Roles, ClusterRoles and bindings that grant it (`spec.operator`).
//!
//! OLM grants these itself when it installs the operator: for an
//! all-namespaces install it promotes `permissions` to ClusterRoles, with read
//! access to `namespaces` added; otherwise it writes a Role in the install
//! namespace and copies it into each target namespace (OLM v0). olm-rbac writes
//! the same grants as reviewable objects, `Cluster` as OLM promotes them,
//! `Namespaces` scoped to the namespaces the admin chose.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::config::{Config, OperatorPermissions};
use crate::findings::{Code, Finding};
use crate::model::*;
use crate::plan::names;

use crate::plan::facts::grants::{olm_grants, CsvGrant, GrantScope};
use crate::plan::facts::input::OperatorInput;
use crate::plan::operator::accounts::{Account, AccountRole};
use crate::plan::types::{About, Made};

/// Plans the operator's RBAC for `config` from the chosen CSV: the objects to
/// write, and the results that say what the operator must be told.
pub(crate) fn plan_operator(operator: &OperatorInput<'_>, results: &mut Vec<Finding>) -> Vec<Made> {
    let (config, grants) = (operator.config(), &operator.grants);
    let op = &config.operator;
    let cfg = config.object_ref();
    if op.permissions == OperatorPermissions::Unmanaged {
        return Vec::new();
    }
    let Some((csv, view)) = operator.planning.csv() else {
        results.push(
            Finding::error(Code::CsvMissing, format!(
                "permissions: {} needs the operator's ClusterServiceVersion in the input: its spec.install.spec.permissions say what the operator is granted",
                op.permissions.as_str()
            ))
            .on(&cfg)
            .at("spec.operator.permissions"),
        );
        return Vec::new();
    };
    let Some(install) = op.install_namespace.clone() else { return Vec::new() };
    let watched = operator.watched_namespaces(&install);
    operator.report_targets(results);
    check_install_modes(config, csv, view, &install, watched.as_deref(), results);
    if !grants.iter().all(|g| api_server_accepts(g, watched.is_some(), csv, results)) {
        return Vec::new();
    }
    report_watch(config, csv, view, watched.as_deref(), results);
    warn_default_account(config, csv, grants, &install, results);
    let mut granted: BTreeSet<String> = watched.iter().flatten().cloned().collect();
    granted.insert(install.clone());
    let writer = Writer { config, install: &install };
    let written = writer.objects(grants, watched.map(|_| granted));
    summarise(config, &install, &written, results);
    written
}

/// The install mode a set of watched namespaces needs, as OLM decides it:
/// `None` for all namespaces.
fn needed_modes(install: &str, watched: Option<&[String]>) -> Vec<InstallMode> {
    use InstallMode::*;
    match watched {
        None => vec![AllNamespaces],
        Some([one]) if one == install => vec![OwnNamespace],
        Some([_]) => vec![SingleNamespace],
        Some(many) if many.iter().any(|n| n == install) => vec![MultiNamespace, OwnNamespace],
        Some(_) => vec![MultiNamespace],
    }
}

/// Refuses targets the operator does not support, except that an operator
/// that supports only AllNamespaces may be scoped to fewer namespaces (with a warning):
/// that is the install OLM's promotion toggle was proposed for.
fn check_install_modes(
    config: &Config,
    csv: &InputObject,
    view: &CsvView,
    install: &str,
    watched: Option<&[String]>,
    results: &mut Vec<Finding>,
) {
    // As the CSV writes them, unknown ones included: they are quoted back.
    let supported: Vec<&str> =
        view.spec.install_modes.iter().filter(|m| m.supported).filter_map(|m| m.mode.as_deref()).collect();
    let missing: Vec<&str> = needed_modes(install, watched)
        .into_iter()
        .map(InstallMode::as_str)
        .filter(|m| !supported.contains(m))
        .collect();
    if missing.is_empty() {
        return;
    }
    let targets = watched.map_or("all namespaces".to_string(), |w| w.join(", "));
    let supports = if supported.is_empty() { "none".to_string() } else { supported.join(", ") };
    // An operator that supports only AllNamespaces may be scoped to fewer
    // namespaces (OLM's promotion toggle); one that supports narrower modes
    // says which, and a target set it does not support is refused.
    let all = InstallMode::AllNamespaces.as_str();
    let all_only = supported.iter().all(|m| *m == all) && supported.contains(&all);
    if watched.is_some() && all_only {
        results.push(
            Finding::warning(Code::InstallModeUnsupported, format!(
                "the operator supports only the AllNamespaces install mode, not {} for {targets}; its RBAC is scoped to those namespaces, but unless its WATCH_NAMESPACE is set to them it will watch every namespace and fail where it has no access",
                missing.join(" with ")
            ))
            .on(&csv.object_ref())
            .at("spec.installModes")
            .in_file(csv.file.as_ref()),
        );
        return;
    }
    let fix = match config.operator.permissions {
        OperatorPermissions::Cluster => "; use permissions: Namespaces with targets it supports",
        _ => "; choose targets it supports",
    };
    results.push(
        Finding::error(Code::InstallModeUnsupported, format!(
            "permissions: {} for {targets} needs the {} install mode, which the CSV does not support (supported: {supports}){fix}",
            config.operator.permissions.as_str(),
            missing.join(" and "),
        ))
        .on(&csv.object_ref())
        .at("spec.installModes")
        .in_file(csv.file.as_ref()),
    );
}

/// Would the API server accept a role with this rule? One it refuses makes the
/// whole apply fail, so it is an error here, where it names the CSV field.
fn api_server_accepts(g: &CsvGrant, namespaced: bool, csv: &InputObject, results: &mut Vec<Finding>) -> bool {
    let r = &g.rule;
    let has = |v: &Option<Vec<String>>| v.as_ref().is_some_and(|v| !v.is_empty());
    let problem = if r.verbs.is_empty() {
        Some("has no verbs")
    } else if !has(&r.resources) && !has(&r.non_resource_urls) {
        Some("names no resources and no nonResourceURLs")
    } else if has(&r.resources) && !has(&r.api_groups) {
        Some("names resources without apiGroups")
    } else if has(&r.non_resource_urls) && (has(&r.resources) || (g.scope == GrantScope::WhereBound && namespaced)) {
        Some("has nonResourceURLs, which only a ClusterRole rule without resources can grant")
    } else {
        None
    };
    if let Some(why) = problem {
        results.push(
            Finding::error(
                Code::CsvInvalid,
                format!("this rule {why}; the API server would refuse the role olm-rbac writes from it"),
            )
            .on(&csv.object_ref())
            .at(g.field.clone())
            .in_file(csv.file.as_ref()),
        );
    }
    problem.is_none()
}

/// What the operator's Deployments must be told: the namespaces to watch.
fn report_watch(
    config: &Config,
    csv: &InputObject,
    view: &CsvView,
    watched: Option<&[String]>,
    results: &mut Vec<Finding>,
) {
    let value = watched.map_or(String::new(), |w| w.join(","));
    let deployments: Vec<&str> = view.spec.install.spec.deployments.iter().filter_map(|d| d.name.as_deref()).collect();
    // OLM v1 installs for all namespaces; one namespace only behind an alpha
    // feature gate, several never.
    let olm_v1 = match watched {
        None => String::new(),
        Some([one]) => format!("; with OLM v1, that is spec.config.inline.watchNamespace: {one:?} on the ClusterExtension, behind the alpha SingleOwnNamespaceInstallSupport feature gate (experimental CRD)"),
        Some(_) => "; OLM v1 cannot watch several namespaces (spec.config.inline.watchNamespace takes one, behind an alpha feature gate): under OLM v1, set the variable on the Deployments yourself".to_string(),
    };
    results.push(
        Finding::info(Code::WatchNamespace, format!(
            "extension {:?}: the operator must watch {}: set WATCH_NAMESPACE={value:?} on its Deployment(s) {} (OLM v0 writes the same value into their olm.targetNamespaces annotation{olm_v1})",
            config.extension,
            watched.map_or("all namespaces".to_string(), |w| w.join(", ")),
            if deployments.is_empty() { "(none named)".to_string() } else { deployments.join(", ") },
        ))
        .on(&csv.object_ref())
        .in_file(csv.file.as_ref()),
    );
}

/// One line on what was written for the operator.
fn summarise(config: &Config, install: &str, written: &[Made], results: &mut Vec<Finding>) {
    let count = |kind: &str| written.iter().filter(|(_, o)| o.kind() == kind).count();
    let mut accounts: Vec<String> = written
        .iter()
        .filter_map(|(about, _)| match about {
            About::Operator(account) => Some(account.qualified_name()),
            About::Api { .. }
            | About::Installer(_)
            | About::Olm(_)
            | About::Pin
            | About::Delegation
            | About::Modelled => None,
        })
        .collect();
    accounts.sort();
    accounts.dedup();
    let mut namespaces: Vec<&str> = written.iter().filter_map(|(_, o)| o.metadata().namespace.as_deref()).collect();
    namespaces.sort();
    namespaces.dedup();
    let place = if namespaces.is_empty() {
        "cluster-wide".to_string()
    } else {
        format!("namespaced rules in {}", namespaces.join(", "))
    };
    results.push(
        Finding::info(Code::Summary, format!(
            "extension {:?}: operator permissions ({}, install namespace {install}): generated {} ClusterRole(s), {} ClusterRoleBinding(s), {} Role(s) and {} RoleBinding(s) for ServiceAccount(s) {}; {place}",
            config.extension,
            config.operator.permissions.as_str(),
            count("ClusterRole"),
            count("ClusterRoleBinding"),
            count("Role"),
            count("RoleBinding"),
            if accounts.is_empty() { "(none: the CSV grants nothing)".to_string() } else { accounts.join(", ") },
        ))
        .on(&config.object_ref()),
    );
}

/// Rules granted to `default` reach every pod in the namespace that names no
/// ServiceAccount of its own.
fn warn_default_account(
    config: &Config,
    csv: &InputObject,
    grants: &[CsvGrant],
    install: &str,
    results: &mut Vec<Finding>,
) {
    if let Some(g) = grants.iter().find(|g| g.account == "default") {
        let field = g.field.rsplit_once(".rules[").map_or(g.field.as_str(), |(entry, _)| entry);
        results.push(
            Finding::warning(Code::DefaultAccount, format!(
                "grants the operator's permissions to {} (no serviceAccountName): every pod in {install} without its own ServiceAccount gets them too (extension {:?})",
                ServiceAccountRef::new(install, "default"),
                config.extension
            ))
            .on(&csv.object_ref())
            .at(format!("{field}.serviceAccountName"))
            .in_file(csv.file.as_ref()),
        );
    }
}

/// Builds the objects for one extension's operator.
struct Writer<'a> {
    config: &'a Config,
    install: &'a str,
}

impl Writer<'_> {
    /// Per ServiceAccount, in name order: its cluster rules as a ClusterRole
    /// and binding; its namespaced rules promoted (`namespaces` = `None`) or as
    /// a Role and RoleBinding in each namespace.
    fn objects(&self, grants: &[CsvGrant], namespaces: Option<BTreeSet<String>>) -> Vec<Made> {
        // OLM's grant ([`olm_grants`]): promoted where no namespaces are
        // listed, the `namespaces` rule then among the promoted ones.
        let mut by_account: BTreeMap<String, (Vec<PolicyRule>, Vec<PolicyRule>)> = BTreeMap::new();
        for g in olm_grants(grants, namespaces.is_none()) {
            let (namespaced, cluster) = by_account.entry(g.account).or_default();
            let list = match g.scope {
                GrantScope::Cluster => cluster,
                GrantScope::WhereBound => namespaced,
            };
            if !list.contains(&g.rule) {
                list.push(g.rule);
            }
        }
        let mut out = Vec::new();
        for (name, (namespaced, cluster)) in by_account {
            let account = Account {
                extension: &self.config.extension,
                role: AccountRole::Operator,
                account: ServiceAccountRef::new(self.install, &name),
            };
            if !cluster.is_empty() {
                out.extend(account.cluster_pair(&names::operator_role(&self.config.extension, &name, false), cluster));
            }
            if namespaced.is_empty() {
                continue;
            }
            match &namespaces {
                None => {
                    let role = names::operator_role(&self.config.extension, &name, true);
                    out.extend(account.cluster_pair(&role, namespaced));
                }
                Some(list) => {
                    for ns in list {
                        out.extend(account.namespace_pair(
                            &names::operator_role(&self.config.extension, &name, false),
                            ns,
                            namespaced.clone(),
                        ));
                    }
                }
            }
        }
        out
    }
}

/// The operator's RBAC as OLM v1 grants it on install, where the config
/// writes none (`permissions: Unmanaged`): OLM v1 installs a bundle for all
/// namespaces (the only mode it installs under its default gates), so the
/// CSV's `permissions` are promoted with the `namespaces` rule, as
/// `permissions: Cluster` writes them. In the install namespace, or, when the
/// config names none, one named for it that no real namespace can have.
pub(crate) fn as_olm_v1_grants(operator: &OperatorInput<'_>) -> Vec<Made> {
    let config = operator.config();
    if config.operator.permissions != OperatorPermissions::Unmanaged || operator.planning.csv().is_none() {
        return Vec::new();
    }
    let install = config.install_namespace().unwrap_or(UNNAMED_INSTALL_NAMESPACE);
    // With a watch namespace, OLM v1 grants `permissions` there alone (its
    // target namespace), not in the install namespace.
    let watched = operator.planning.watch_namespace().map(|w| BTreeSet::from([w.to_string()]));
    Writer { config, install }.objects(&operator.grants, watched)
}

/// The install namespace's stand-in where the config names none: not a
/// DNS-1123 label, so no object of the input can be in it.
pub(crate) const UNNAMED_INSTALL_NAMESPACE: &str = "(the install namespace)";

/// Are the CSV's `permissions` granted cluster-wide? `Cluster` promotes them
/// as OLM does; `Namespaces` does not; with `Unmanaged`, OLM v1 grants them
/// in the watch namespace the ClusterExtension names (`watch`,
/// [`crate::plan::facts::input::Planning::watch_namespace`]), and without
/// one promotes them for an operator that supports AllNamespaces.
pub(crate) fn promoted(config: &Config, view: &CsvView, watch: Option<&str>) -> bool {
    match config.operator.permissions {
        OperatorPermissions::Cluster => true,
        OperatorPermissions::Namespaces => false,
        OperatorPermissions::Unmanaged => view.spec.supports(InstallMode::AllNamespaces) && watch.is_none(),
    }
}

/// Whether the gate judges the CSV's `permissions` as reaching every
/// namespace: where OLM promotes them ([`promoted`]), and, with `Unmanaged`,
/// for an operator that does not support AllNamespaces when no watch
/// namespace is known (no ClusterExtension read: `catalog judge`, a render
/// without it): the one it will be given could be any.
pub(crate) fn judged_everywhere(config: &Config, view: &CsvView, watch: Option<&str>) -> bool {
    promoted(config, view, watch) || (config.operator.permissions == OperatorPermissions::Unmanaged && watch.is_none())
}
