//! The policy means what the admin wrote: each verb, API group and resource
//! of a `spec.operator.policy` entry is one the cluster to be has. Kubernetes
//! accepts any string in a rule, and matches it exactly, so `secret` or
//! `Bind` match nothing: a `deny` entry written so forbids nothing, and the
//! admin believes they are protected. Each such value is named with what it
//! most likely meant: an error in `deny`, a warning in `allow` (which then
//! allows less than written, never more).

use std::collections::BTreeSet;

use crate::access::{builtin, Resources};
use crate::config::{InstallPolicy, PolicyEntry};
use crate::findings::{Code, Finding};
use crate::model::*;

use crate::plan::facts::input::Planning;

/// The verbs the API server serves on resources, and those Kubernetes'
/// admission and RBAC check besides: `bind` and `escalate` on roles,
/// `impersonate`, `use` (pod security policies), `approve`, `sign` and
/// `attest` (certificates), `proxy`.
const API_VERBS: [&str; 16] = [
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "bind",
    "escalate",
    "impersonate",
    "use",
    "approve",
    "sign",
    "attest",
    "proxy",
];

/// Checks every entry of `allow` and `deny` against the verbs, groups and
/// resources of the cluster to be.
pub(super) fn check_entries(p: &Planning<'_>, policy: &InstallPolicy, results: &mut Vec<Finding>) {
    let verbs = known_verbs(p);
    let table = &p.input.resources;
    let lists = [("allow", policy.allow.as_deref().unwrap_or_default()), ("deny", &policy.deny[..])];
    for (list, entries) in lists {
        for (i, entry) in entries.iter().enumerate() {
            for Unknown { field, why, meant } in unknown_parts(entry, &verbs, table) {
                let meant = meant.map(|m| format!("; did you mean {m:?}?")).unwrap_or_default();
                let message = match list {
                    "deny" => format!(
                        "{why}{meant} Kubernetes matches rules exactly, so this part of the entry denies nothing"
                    ),
                    _ => format!(
                        "{why}{meant} Kubernetes matches rules exactly, so this part of the entry allows nothing"
                    ),
                };
                let finding = if list == "deny" {
                    Finding::error(Code::PolicyEntryUnknown, message)
                } else {
                    Finding::warning(Code::PolicyEntryUnknown, message)
                };
                results
                    .push(finding.on(&p.config.object_ref()).at(format!("spec.operator.policy.{list}[{i}].{field}")));
            }
        }
    }
}

/// A value of an entry that matches nothing: where, why, and what it most
/// likely meant.
struct Unknown {
    field: String,
    why: String,
    meant: Option<String>,
}

/// Kubernetes' verbs on resources, and the others a role of the cluster or
/// of the input uses (`bind`, `escalate`, `impersonate`, `use`, `approve`, ...).
fn known_verbs(p: &Planning<'_>) -> BTreeSet<String> {
    let mut verbs: BTreeSet<String> = API_VERBS.iter().map(|v| v.to_string()).collect();
    if let Ok(bootstrap) = builtin::policy() {
        verbs.extend(bootstrap.cluster_roles.values().flat_map(|r| &r.rules).flat_map(|r| r.verbs.iter().cloned()));
    }
    for o in p.objects() {
        match &o.body {
            Body::Role(v) => verbs.extend(v.rules.iter().flat_map(|r| r.verbs.iter().cloned())),
            Body::Csv(v) => {
                let spec = &v.spec.install.spec;
                let rules = spec.permissions.iter().chain(&spec.cluster_permissions).flat_map(|g| &g.rules);
                verbs.extend(rules.flat_map(|r| r.verbs.iter().cloned()));
            }
            _ => {}
        }
    }
    verbs.remove("*");
    verbs
}

/// Each value of the entry that matches nothing.
fn unknown_parts(entry: &PolicyEntry, verbs: &BTreeSet<String>, table: &Resources) -> Vec<Unknown> {
    let rule = &entry.rule;
    let mut out = Vec::new();
    for (j, verb) in rule.verbs.iter().enumerate() {
        // Constrained impersonation's verbs name a mode (and an action) of their own.
        let constrained = verb.starts_with("impersonate:") || verb.starts_with("impersonate-on:");
        if verb != "*" && !constrained && !verbs.contains(verb) {
            let lower = verb.to_ascii_lowercase();
            out.push(Unknown {
                field: format!("verbs[{j}]"),
                why: format!("{verb:?} is not a verb the cluster serves"),
                meant: verbs.contains(&lower).then_some(lower),
            });
        }
    }
    let groups: Vec<&str> = rule.api_groups.iter().flatten().map(String::as_str).collect();
    for (j, group) in groups.iter().enumerate() {
        if *group != "*" && !table.knows_group(group) {
            let lower = group.to_ascii_lowercase();
            out.push(Unknown {
                field: format!("apiGroups[{j}]"),
                why: format!("{group:?} is not an API group of Kubernetes, OLM or the input's CRDs"),
                meant: table.knows_group(&lower).then_some(lower),
            });
        }
    }
    for (j, resource) in rule.resources.iter().flatten().enumerate() {
        let (base, sub) = resource.split_once('/').map_or((resource.as_str(), None), |(b, s)| (b, Some(s)));
        // Resource and subresource names are lower case, always.
        let lower = sub.is_none_or(|s| s == s.to_lowercase());
        if base == "*" || (lower && table.knows_resource(&groups, base)) {
            continue;
        }
        let meant = table.meant(&groups, base).map(|m| match sub {
            Some(s) => format!("{m}/{}", s.to_lowercase()),
            None => m.to_string(),
        });
        let in_groups = groups.iter().map(|g| format!("{g:?}")).collect::<Vec<_>>().join(", ");
        out.push(Unknown {
            field: format!("resources[{j}]"),
            why: format!("{resource:?} is not a resource of API group(s) {in_groups}"),
            meant,
        });
    }
    out
}
