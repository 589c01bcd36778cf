//! The install policy (`spec.operator.policy`): a ceiling on what the bundle
//! may grant its operator, and permissions it must never grant. It applies in
//! every mode, since OLM grants the CSV's permissions whether or not olm-rbac
//! writes them.
//!
//! What is measured: every rule of the CSV's `permissions` and
//! `clusterPermissions` (and the rule olm-rbac adds when it promotes them),
//! and every rule of the Roles and ClusterRoles the bundle ships, which OLM
//! installs as they are. Coverage and overlap are decided by `access::cover`,
//! the API server's own escalation semantics.

use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::access::cover::{overlaps, uncovered_rules};
use crate::access::describe_rule;
use crate::config::{Config, InstallPolicy, OperatorPermissions};
use crate::model::*;
use crate::report::{Finding, ObjRef};

use super::operator::{read_namespaces, Grant};
use super::origin::{Origin, Origins};

/// One rule the bundle would grant, with who gets it and where it is written.
struct Granted<'a> {
    who: String,
    rule: PolicyRule,
    cluster_wide: bool,
    on: ObjRef,
    file: Option<&'a FileRef>,
    field: String,
}

/// Checks everything the bundle grants against the policy: each rule beyond
/// `allow`, and each rule sharing a permission with `deny`, is an error naming
/// who gets it and where the bundle asks for it. Without a ceiling, dangerous
/// permissions are warned about instead.
pub(super) fn check_policy(
    config: &Config,
    csv: Option<usize>,
    grants: &[Grant],
    objects: &[InputObject],
    origins: &Origins,
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) {
    let granted = granted(config, csv, grants, objects, origins, claims, results);
    let Some(policy) = &config.operator.policy else {
        warn_dangerous(&granted, results);
        return;
    };
    let Some(ceiling) = ceiling(config, policy, objects, origins, claims, results) else { return };
    match &ceiling {
        Some(allow) => check_ceiling(allow, &granted, results),
        None => warn_dangerous(&granted, results),
    }
    check_deny(&policy.deny, &granted, results);
}

/// The rules of `allow` and of `allowClusterRole`: `Some(None)` without a
/// ceiling, `None` when the named ClusterRole cannot serve as one (an error).
fn ceiling(
    config: &Config,
    policy: &InstallPolicy,
    objects: &[InputObject],
    origins: &Origins,
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) -> Option<Option<Vec<PolicyRule>>> {
    if !policy.has_ceiling() {
        return Some(None);
    }
    let mut rules = policy.allow.clone().unwrap_or_default();
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
                    rules.extend(v.rules.iter().map(RuleView::to_policy_rule));
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
    Some(Some(rules))
}

impl Granted<'_> {
    /// `finding` about this grant: on the object and field that ask for it.
    fn at(&self, finding: Finding) -> Finding {
        finding.on(&self.on).at(self.field.clone()).in_file(self.file)
    }

    /// Who gets what, and where, for messages.
    fn describe(&self) -> String {
        format!("{} would be granted {}{}", self.who, describe_rule(&self.rule), scope(self.cluster_wide))
    }
}

fn check_ceiling(allow: &[PolicyRule], granted: &[Granted], results: &mut Vec<Finding>) {
    for g in granted {
        let missing = uncovered_rules(allow, &g.rule);
        if missing.is_empty() {
            continue;
        }
        let beyond: Vec<String> = missing.iter().map(describe_rule).collect();
        let message =
            format!("install policy: {}, beyond spec.operator.policy.allow: {}", g.describe(), beyond.join("; "));
        results.push(g.at(Finding::error(message)));
    }
}

fn check_deny(deny: &[PolicyRule], granted: &[Granted], results: &mut Vec<Finding>) {
    for g in granted {
        for (k, d) in deny.iter().enumerate().filter(|(_, d)| overlaps(&g.rule, d)) {
            let message = format!(
                "install policy: {}, which spec.operator.policy.deny[{k}] forbids ({})",
                g.describe(),
                describe_rule(d)
            );
            results.push(g.at(Finding::error(message)));
        }
    }
}

fn warn_dangerous(granted: &[Granted], results: &mut Vec<Finding>) {
    for g in granted {
        let dangers = crate::access::danger::dangers(&g.rule, g.cluster_wide);
        if dangers.is_empty() {
            continue;
        }
        let what: Vec<&str> = dangers.iter().map(|d| d.what).collect();
        let message = format!(
            "{}: {} (see docs/dangerous-permissions.md; set spec.operator.policy to decide what the operator may hold)",
            g.describe(),
            what.join(", ")
        );
        results.push(g.at(Finding::warning(message)));
    }
}

fn scope(cluster_wide: bool) -> &'static str {
    if cluster_wide {
        " cluster-wide"
    } else {
        " in its namespace(s)"
    }
}

/// Everything the bundle would grant: the CSV's rules, for their
/// ServiceAccounts, and the rules of the bundle's Roles and ClusterRoles.
fn granted<'a>(
    config: &Config,
    csv: Option<usize>,
    grants: &[Grant],
    objects: &'a [InputObject],
    origins: &Origins,
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) -> Vec<Granted<'a>> {
    let mut out = csv.map(|i| csv_granted(config, &objects[i], grants)).unwrap_or_default();
    out.extend(bundle_granted(config, csv, objects, origins, claims, results));
    out
}

/// The CSV's rules, and the `namespaces` rule olm-rbac adds when it promotes
/// `permissions` (`permissions: Cluster`).
fn csv_granted<'a>(config: &Config, csv: &'a InputObject, grants: &[Grant]) -> Vec<Granted<'a>> {
    let promoted = config.operator.permissions == OperatorPermissions::Cluster;
    let account = |name: &str| match &config.operator.install_namespace {
        Some(ns) => format!("ServiceAccount {ns}/{name}"),
        None => format!("ServiceAccount {name}"),
    };
    let mut out: Vec<Granted> = grants
        .iter()
        .map(|g| Granted {
            who: account(&g.account),
            rule: g.rule.clone(),
            cluster_wide: g.cluster || promoted,
            on: csv.object_ref(),
            file: csv.file.as_ref(),
            field: g.field.clone(),
        })
        .collect();
    if promoted {
        let mut accounts: Vec<&str> = grants.iter().filter(|g| !g.cluster).map(|g| g.account.as_str()).collect();
        accounts.sort();
        accounts.dedup();
        out.extend(accounts.into_iter().map(|a| Granted {
            who: account(a),
            rule: read_namespaces(),
            cluster_wide: true,
            on: config.object_ref(),
            file: None,
            field: "spec.operator.permissions".into(),
        }));
    }
    out
}

/// The rules of the Roles and ClusterRoles the bundle ships. What cannot be
/// measured (aggregated roles, bindings to roles the bundle does not ship) is
/// reported instead: an error under a ceiling, a warning otherwise.
fn bundle_granted<'a>(
    config: &Config,
    csv: Option<usize>,
    objects: &'a [InputObject],
    origins: &Origins,
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) -> Vec<Granted<'a>> {
    let mut out = Vec::new();
    let ceiling = config.operator.policy.as_ref().is_some_and(InstallPolicy::has_ceiling);
    let bundle: Vec<&InputObject> = bundle_rbac(config, csv, objects, origins, claims);
    for o in &bundle {
        match &o.body {
            Body::Role(v) if v.aggregates() => {
                // It may gather the built-in roles' rules (aggregate-to-admin) and be
                // bound to the operator: under a ceiling that is refused.
                let message = "the bundle ships this ClusterRole with an aggregationRule: it holds whatever the cluster aggregates into it, which olm-rbac cannot measure against spec.operator.policy";
                let finding = if ceiling { Finding::error(message) } else { Finding::warning(message) };
                results.push(finding.on(&o.object_ref()).at("aggregationRule").in_file(o.file.as_ref()));
            }
            Body::Role(v) => {
                let cluster_wide = o.header.kind.as_deref() == Some("ClusterRole");
                for (j, r) in v.rules.iter().enumerate() {
                    out.push(Granted {
                        who: format!("the bundle's {}", o.object_ref()),
                        rule: r.to_policy_rule(),
                        cluster_wide,
                        on: o.object_ref(),
                        file: o.file.as_ref(),
                        field: format!("rules[{j}]"),
                    });
                }
            }
            Body::Binding(v) if !binds_own_role(o, &v.role_ref, &bundle) => {
                let role = format!(
                    "{} {:?}",
                    v.role_ref.kind.as_deref().unwrap_or("role"),
                    v.role_ref.name.as_deref().unwrap_or_default()
                );
                let message = format!(
                    "the bundle binds {role}, which it does not ship: olm-rbac cannot tell what that grants, so it cannot hold it to spec.operator.policy"
                );
                let finding = if ceiling { Finding::error(message) } else { Finding::warning(message) };
                results.push(finding.on(&o.object_ref()).at("roleRef").in_file(o.file.as_ref()));
            }
            _ => {}
        }
    }
    out
}

/// Does a binding of the bundle refer to one of the bundle's own roles (whose
/// rules are measured themselves)?
fn binds_own_role(binding: &InputObject, role_ref: &RoleRefView, bundle: &[&InputObject]) -> bool {
    bundle.iter().any(|r| {
        matches!(r.body, Body::Role(_))
            && r.header.kind == role_ref.kind
            && r.header.name == role_ref.name
            && (role_ref.kind.as_deref() == Some("ClusterRole") || r.header.namespace == binding.header.namespace)
    })
}

/// The Roles, ClusterRoles and bindings the bundle may have shipped, when a
/// CSV is in the input: every one not known to be the admin's, whatever its
/// labels say, except this extension's own earlier output (which this run
/// replaces). An object of unknown origin may be the bundle's, so it is
/// measured.
fn bundle_rbac<'a>(
    config: &Config,
    csv: Option<usize>,
    objects: &'a [InputObject],
    origins: &Origins,
    claims: &[Option<String>],
) -> Vec<&'a InputObject> {
    let mine = |i: usize| claims[i].as_deref() == Some(config.extension.as_str());
    objects
        .iter()
        .enumerate()
        .filter(|(i, o)| {
            csv.is_some() && matches!(o.body, Body::Role(_) | Body::Binding(_)) && !origins.is_admin(*i) && !mine(*i)
        })
        .map(|(_, o)| o)
        .collect()
}
