//! The policy means what the admin wrote: each verb, API group and resource
//! of a `spec.operator.policy` entry is one the cluster to be has. Kubernetes
//! accepts any string in a rule, and matches it exactly, so `secret` or
//! `Bind` match nothing: a `deny` entry written so forbids nothing, and the
//! admin believes they are protected. A value that is a near miss of one
//! that exists (another case, a singular, a kind, a letter or two off, a
//! subresource no request names: `pods/execs`) is an error in `deny`, a
//! warning in `allow` (which then allows less than written, never more);
//! one olm-rbac does not know at all (an API of the cluster's that neither
//! Kubernetes, OLM nor the input defines) is a warning either way.

use std::collections::BTreeSet;

use crate::access::{builtin, danger, subresources, Resources};
use crate::config::{InstallPolicy, PolicyEntry};
use crate::findings::{Code, Finding};
use crate::model::*;
use crate::names::near_miss;

use crate::plan::facts::input::Planning;

/// The verbs the API server serves on resources, those Kubernetes'
/// admission and RBAC check besides (`bind` and `escalate` on roles,
/// `impersonate`, `use`, `approve`, `sign` and `attest`, `proxy`), and the
/// HTTP verbs of non-resource URLs.
const API_VERBS: [&str; 20] = [
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
    "post",
    "put",
    "head",
    "options",
];

/// Checks every entry of `allow` and `deny` against the verbs, groups and
/// resources of the cluster to be.
pub(super) fn check_entries(p: &Planning<'_>, policy: &InstallPolicy, results: &mut Vec<Finding>) {
    let verbs = known_verbs(p);
    let table = &p.input.resources;
    // What the platform serves, apart from the input's CRDs (see `Names`).
    let platform = Resources::builtin();
    let lists = [("allow", policy.allow.as_deref().unwrap_or_default()), ("deny", &policy.deny[..])];
    for (list, entries) in lists {
        for (i, entry) in entries.iter().enumerate() {
            for Unknown { field, why, meant } in unknown_parts(entry, &verbs, table, &platform) {
                let does = if list == "deny" { "denies" } else { "allows" };
                // A near miss is a typo: under deny, an error. A value olm-rbac
                // does not know may be an API of the cluster's it cannot see.
                let (message, typo) = match meant {
                    Some(m) => (
                        format!("{why}; did you mean {m:?}? Kubernetes matches rules exactly, so this part of the entry {does} nothing"),
                        true,
                    ),
                    None => (format!("{why}; if the cluster serves none, this part of the entry {does} nothing"), false),
                };
                let finding = if list == "deny" && typo {
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

/// Kubernetes' verbs, and the others a role of the cluster or of the
/// admin's input uses.
fn known_verbs(p: &Planning<'_>) -> BTreeSet<String> {
    let mut verbs: BTreeSet<String> = API_VERBS.iter().map(|v| v.to_string()).collect();
    if let Ok(bootstrap) = builtin::policy() {
        verbs.extend(
            bootstrap.cluster_roles.values().flat_map(|r| r.rules.iter()).flat_map(|r| r.verbs.iter().cloned()),
        );
    }
    // The admin's roles' verbs; never the bundle's, which could otherwise
    // make a typo in the admin's policy a verb.
    for (i, o) in p.objects().iter().enumerate() {
        if let (true, Body::Role(v)) = (p.origins().is_admin(i), &o.body) {
            verbs.extend(v.rules.iter().flat_map(|r| r.verbs.iter().cloned()));
        }
    }
    verbs.remove("*");
    // A verb written otherwise than Kubernetes' own is never one.
    verbs.retain(|v| API_VERBS.contains(&v.as_str()) || !API_VERBS.contains(&v.to_ascii_lowercase().as_str()));
    verbs
}

/// Each value of the entry that matches nothing.
fn unknown_parts(
    entry: &PolicyEntry,
    verbs: &BTreeSet<String>,
    table: &Resources,
    platform: &Resources,
) -> Vec<Unknown> {
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
                meant: verbs
                    .contains(&lower)
                    .then_some(lower)
                    .or_else(|| near_miss(verb, verbs.iter().map(String::as_str)).map(str::to_string)),
            });
        }
    }
    let groups: Vec<&str> = rule.api_groups.iter().flatten().map(String::as_str).collect();
    // What the platform serves (Kubernetes' and OLM's kinds, and what the
    // catalogue of dangerous permissions names), apart from the input's CRDs:
    // a CRD, the bundle's among them, cannot make a typo of the platform's
    // names one that exists.
    let names = Names { groups: &groups, table, platform };
    names.unknown_groups(&mut out);
    names.unknown_resources(rule.resources.iter().flatten(), &mut out);
    out
}

/// The names an entry is measured against: its groups, the cluster to be's
/// table, and the platform's alone.
struct Names<'a> {
    groups: &'a [&'a str],
    table: &'a Resources,
    platform: &'a Resources,
}

impl Names<'_> {
    fn in_groups(&self, g: &str) -> bool {
        self.groups.iter().any(|w| *w == "*" || *w == g)
    }

    fn platform_groups(&self) -> BTreeSet<&str> {
        let mut all = self.platform.groups();
        all.extend(danger::named_resources().map(|(g, _)| g));
        all
    }

    fn platform_plurals(&self) -> BTreeSet<&str> {
        let mut all = self.platform.plurals_in(self.groups);
        all.extend(danger::named_resources().filter(|(g, _)| self.in_groups(g)).map(|(_, r)| r));
        all
    }

    fn unknown_groups(&self, out: &mut Vec<Unknown>) {
        let (table, groups) = (self.table, self.groups);
        let platform_groups = || self.platform_groups();
        for (j, group) in groups.iter().enumerate() {
            let field = format!("apiGroups[{j}]");
            let why = format!("{group:?} is not an API group of Kubernetes, OLM or the input's CRDs");
            if *group == "*" || platform_groups().contains(group) {
                continue;
            }
            // The core group written as its version, or a group with its version.
            let meant = match group.split_once('/') {
                _ if matches!(*group, "v1" | "core") => Some(String::new()),
                Some(("core", _)) => Some(String::new()),
                Some((g, _)) if platform_groups().contains(g) || table.knows_group(g) => Some(g.to_string()),
                _ => None,
            };
            let typo = || {
                let lower = group.to_ascii_lowercase();
                let known = platform_groups().contains(lower.as_str()) || table.knows_group(&lower);
                known.then_some(lower).or_else(|| near_miss(group, platform_groups()).map(str::to_string))
            };
            match meant {
                Some(m) => out.push(Unknown { field, why, meant: Some(m) }),
                // A group only the input's CRDs define: theirs, unless it is a typo of the platform's.
                None if table.knows_group(group) => {
                    if let Some(m) = near_miss(group, platform_groups()) {
                        out.push(Unknown { field, why, meant: Some(m.to_string()) });
                    }
                }
                None => out.push(Unknown { field, why, meant: typo() }),
            }
        }
    }

    fn unknown_resources<'r>(&self, resources: impl Iterator<Item = &'r String>, out: &mut Vec<Unknown>) {
        let (table, groups, platform) = (self.table, self.groups, self.platform);
        let named = danger::named_resources;
        let in_groups = |g: &str| self.in_groups(g);
        let platform_plurals = || self.platform_plurals();
        for (j, resource) in resources.enumerate() {
            let (base, sub) = resource.split_once('/').map_or((resource.as_str(), None), |(b, s)| (b, Some(s)));
            // Resource and subresource names are lower case, always.
            let lower = sub.is_none_or(|s| s == s.to_lowercase());
            let field = format!("resources[{j}]");
            let on_platform = platform.knows_resource(groups, base) || named().any(|(g, r)| r == base && in_groups(g));
            // Known to the platform, or only to the input's CRDs and no typo of the platform's.
            let known = base == "*"
                || lower
                    && (on_platform
                        || table.knows_resource(groups, base)
                            && platform.meant(groups, base).is_none()
                            && near_miss(base, platform_plurals()).is_none());
            if known && sub != Some("") {
                // `userextras/<key>` names any key of an impersonated extra field.
                let any_key = base == "userextras";
                if let Some(sub) = sub.filter(|s| *s != "*" && !any_key && !subresources::is_subresource(s)) {
                    let meant = near_miss(sub, subresources::all()).map(|m| format!("{base}/{m}"));
                    let why = format!("{resource:?} names {sub:?}, which is not a subresource any request names");
                    out.push(Unknown { field, why, meant });
                }
                continue;
            }
            let plurals = || {
                let mut all = table.plurals_in(groups);
                all.extend(platform_plurals());
                all
            };
            let meant = match sub {
                // `clusterroles/`: the resource, with nothing after the slash.
                Some("") if known => Some(base.to_string()),
                _ => table.meant(groups, base).or_else(|| near_miss(base, plurals())).map(|m| match sub {
                    Some(s) if !s.is_empty() => format!("{m}/{}", s.to_lowercase()),
                    _ => m.to_string(),
                }),
            };
            let in_groups = groups.iter().map(|g| format!("{g:?}")).collect::<Vec<_>>().join(", ");
            out.push(Unknown {
                field,
                why: format!("{resource:?} is not a resource of API group(s) {in_groups}"),
                meant,
            });
        }
    }
}
