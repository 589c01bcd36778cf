//! `diff OLD NEW`: the access each subject gains and loses between two
//! renders, per scope (cluster-wide, each namespace a RoleBinding names).
//!
//! Nothing is re-derived: each side is read as `can-i -f` reads its input
//! ([`super::commands::with_policy`]); what a subject holds in a scope is
//! `can-i --list`'s answer ([`Policy::permissions_through`] over the bindings
//! that name the subject); a gain is what NEW holds that OLD's rules do not
//! cover ([`Owners::uncovered_rules`], the escalation check's arithmetic), so
//! a rule only written differently is no change; a gain's severity is the
//! catalogue's ([`dangers`]). The shapes it prints are in [`shape`].

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};

use super::commands::{with_policy, Common, Format};
use crate::access::allowed::Place;
use crate::access::cover::Owners;
use crate::access::danger::{dangers, Severity};
use crate::access::{as_named, AggregatingRole, BindingDef, Policy, RoleRefKind, SubjectKind};
use crate::input::Source;
use crate::outcome::Outcome;

mod shape;

pub use shape::{json_schema, ChangeOut, DiffOut, SubjectOut};

/// When `diff` exits 1 (`--fail-on`): never, on any gain (the default), or
/// on a gain the dangerous-permissions catalogue marks.
// No doc comments on the variants: clap would show them as help of their own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    None,
    #[default]
    Gain,
    Dangerous,
}

/// What `diff` takes besides its two inputs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiffOptions {
    pub format: Format,
    pub fail_on: FailOn,
    pub common: Common,
}

/// Who holds access: a binding's subject, or whoever is bound to a built-in
/// aggregating role (where the input's bindings to it usually are not).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Holder {
    Role(AggregatingRole),
    Subject { kind: SubjectKind, namespace: Option<String>, name: String },
}

impl Holder {
    /// The holder a binding's subject names; `None` for one that matches nobody.
    fn of(subject: &Subject, binding_namespace: Option<&str>) -> Option<Holder> {
        let s = as_named(subject, binding_namespace)?;
        let kind = SubjectKind::of(&s)?;
        Some(Holder::Subject {
            kind,
            namespace: s.namespace.filter(|_| kind == SubjectKind::ServiceAccount),
            name: s.name,
        })
    }
}

/// One change: a rule a holder gained or lost, where (`None`: cluster-wide),
/// and how dangerous it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change {
    pub holder: Holder,
    pub namespace: Option<String>,
    pub rule: PolicyRule,
    pub severity: Option<Severity>,
}

/// What NEW grants that OLD does not (`gained`), and the reverse (`lost`).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Changes {
    pub gained: Vec<Change>,
    pub lost: Vec<Change>,
}

/// `diff OLD NEW`: the changes in the format asked; exit 0, or 1 when
/// `fail_on` says a gain fails; 2 when an input cannot be read.
pub fn diff(old: &[Source], new: &[Source], options: DiffOptions) -> Outcome {
    let common = options.common;
    with_policy(old, common, |old_policy, _| {
        with_policy(new, common, |new_policy, warnings| {
            let kept = left_behind(old_policy, new_policy, warnings);
            let changes = changes(old_policy, kept.as_ref().unwrap_or(new_policy));
            let failed = match options.fail_on {
                FailOn::None => false,
                FailOn::Gain => !changes.gained.is_empty(),
                FailOn::Dangerous => changes.gained.iter().any(|c| c.severity.is_some()),
            };
            let mut out = shape::write(&changes, options.format);
            if out.code == 0 && failed {
                out.code = 1;
            }
            if common.quiet {
                out.stdout.clear();
            }
            out
        })
    })
}

/// NEW as the cluster holds it after NEW is applied over OLD without pruning
/// (`kubectl apply`, Argo CD's default): a role NEW's bindings refer to but
/// only OLD defines stays on the cluster and grants what OLD wrote, so a
/// binding cannot hide a gain behind a role the upgrade stops shipping. Each
/// such role is a warning (with pruning, the binding grants nothing). `None`
/// when there is none.
fn left_behind(old: &Policy, new: &Policy, warnings: &mut Vec<String>) -> Option<Policy> {
    let mut kept = new.clone();
    let mut any = false;
    for b in &new.bindings {
        let (kind, name) = (b.role_ref_kind(), b.role_name.clone());
        let (present, from_old) = match (kind, &b.namespace) {
            (Some(RoleRefKind::ClusterRole), _) => {
                (kept.cluster_roles.contains_key(&name), old.cluster_roles.get(&name).filter(|r| !r.builtin))
            }
            (Some(RoleRefKind::Role), Some(ns)) => {
                let key = (ns.clone(), name.clone());
                (kept.roles.contains_key(&key), old.roles.get(&key))
            }
            _ => continue,
        };
        let Some(role) = from_old.filter(|_| !present) else { continue };
        let kind = kind.map_or("", RoleRefKind::as_str);
        let binding = match &b.namespace {
            Some(ns) => format!("RoleBinding {ns}/{}", b.name),
            None => format!("ClusterRoleBinding {}", b.name),
        };
        warnings.push(format!(
            "warning: {binding}: roleRef: {kind} {name} is defined only in OLD: counted as OLD defines it, since applying NEW without pruning leaves it on the cluster (with pruning, the binding grants nothing)"
        ));
        match &role.namespace {
            Some(ns) => kept.roles.insert((ns.clone(), name), role.clone()),
            None => kept.cluster_roles.insert(name, role.clone()),
        };
        any = true;
    }
    any.then_some(kept)
}

/// Every holder's gains and losses: cluster-wide, then in each namespace
/// where a RoleBinding of either side names it, leaving out there what the
/// same side's cluster-wide grants already hold.
pub(crate) fn changes(old: &Policy, new: &Policy) -> Changes {
    let (old_by, new_by) = (by_holder(old), by_holder(new));
    let mut holders: BTreeSet<Holder> = AggregatingRole::ALL.into_iter().map(Holder::Role).collect();
    holders.extend(old_by.keys().cloned());
    holders.extend(new_by.keys().cloned());
    let mut out = Changes::default();
    for holder in holders {
        let (old_side, new_side) = (Side { policy: old, by: &old_by }, Side { policy: new, by: &new_by });
        let (old_c, new_c) = (old_side.held(&holder, Place::ClusterWide), new_side.held(&holder, Place::ClusterWide));
        out.gained.extend(changed(&holder, None, &new_c, &[&old_c]));
        out.lost.extend(changed(&holder, None, &old_c, &[&new_c]));
        let mut namespaces = old_side.namespaces_of(&holder);
        namespaces.extend(new_side.namespaces_of(&holder));
        for ns in namespaces {
            let (old_n, new_n) =
                (old_side.held(&holder, Place::Namespace(ns)), new_side.held(&holder, Place::Namespace(ns)));
            out.gained.extend(changed(&holder, Some(ns), &new_n, &[&old_n, &new_c]));
            out.lost.extend(changed(&holder, Some(ns), &old_n, &[&new_n, &old_c]));
        }
    }
    out
}

/// What of `held` none of `owners` covers, as changes of the holder there.
fn changed(holder: &Holder, namespace: Option<&str>, held: &[PolicyRule], owners: &[&[PolicyRule]]) -> Vec<Change> {
    let owners = Owners::new(owners.iter().flat_map(|o| o.iter()));
    let uncovered = held.iter().flat_map(|rule| owners.uncovered_rules(rule));
    with_names_merged(uncovered)
        .into_iter()
        .map(|rule| Change {
            holder: holder.clone(),
            namespace: namespace.map(String::from),
            severity: dangers(&rule, namespace.is_none()).iter().map(|d| d.severity).max(),
            rule,
        })
        .collect()
}

/// The rules, those that differ only in their (named) resources made one:
/// the same permissions, one row per kind of access rather than per name.
fn with_names_merged(rules: impl IntoIterator<Item = PolicyRule>) -> Vec<PolicyRule> {
    let mut out: Vec<PolicyRule> = Vec::new();
    for rule in rules {
        let named = |r: &PolicyRule| r.resource_names.as_ref().is_some_and(|n| !n.is_empty());
        let same_but_names = |r: &PolicyRule| {
            (&r.api_groups, &r.resources, &r.verbs, &r.non_resource_urls)
                == (&rule.api_groups, &rule.resources, &rule.verbs, &rule.non_resource_urls)
        };
        match out.iter_mut().find(|r| named(r) && named(&rule) && same_but_names(r)) {
            Some(r) => {
                let names = r.resource_names.get_or_insert_with(Vec::new);
                names.extend(rule.resource_names.into_iter().flatten());
                names.sort();
                names.dedup();
            }
            None => out.push(rule),
        }
    }
    out
}

/// The bindings of one side, by the holder each names.
fn by_holder(policy: &Policy) -> BTreeMap<Holder, Vec<&BindingDef>> {
    let mut out: BTreeMap<Holder, Vec<&BindingDef>> = BTreeMap::new();
    for b in &policy.bindings {
        for s in &b.subjects {
            if let Some(holder) = Holder::of(s, b.namespace.as_deref()) {
                let slot = out.entry(holder).or_default();
                if !slot.iter().any(|seen| std::ptr::eq(*seen, b)) {
                    slot.push(b);
                }
            }
        }
    }
    out
}

/// One side of the diff: its policy, and its bindings by holder.
struct Side<'p> {
    policy: &'p Policy,
    by: &'p BTreeMap<Holder, Vec<&'p BindingDef>>,
}

impl<'p> Side<'p> {
    /// What the holder may do in the place, as `can-i --list` lists it, as rules.
    fn held(&self, holder: &Holder, place: Place<'_>) -> Vec<PolicyRule> {
        let permissions = match holder {
            Holder::Role(role) => {
                // Bound by a ClusterRoleBinding: the most the role can give.
                let binding = BindingDef {
                    name: String::new(),
                    namespace: None,
                    role_kind: RoleRefKind::ClusterRole.as_str().to_string(),
                    role_name: role.name().to_string(),
                    subjects: Vec::new(),
                    labels: BTreeMap::new(),
                    builtin: true,
                };
                self.policy.permissions_through(std::iter::once(&binding), place)
            }
            Holder::Subject { .. } => {
                let bindings = self.by.get(holder).into_iter().flatten().copied();
                self.policy.permissions_through(bindings, place)
            }
        };
        permissions.iter().map(|p| p.rule()).collect()
    }

    /// The namespaces of the RoleBindings that name the holder.
    fn namespaces_of(&self, holder: &Holder) -> BTreeSet<&'p str> {
        self.by.get(holder).into_iter().flatten().filter_map(|b| b.namespace.as_deref()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(resources: &[&str], names: &[&str], verbs: &[&str]) -> PolicyRule {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        PolicyRule {
            api_groups: Some(vec![String::new()]),
            resources: Some(list(resources)),
            resource_names: (!names.is_empty()).then(|| list(names)),
            verbs: list(verbs),
            non_resource_urls: None,
        }
    }

    #[test]
    fn rows_that_differ_only_in_names_are_one_row_and_an_unnamed_rule_stays_apart() {
        let merged = with_names_merged([
            rule(&["configmaps"], &["b"], &["get"]),
            rule(&["configmaps"], &[], &["get"]),
            rule(&["configmaps"], &["a", "b"], &["get"]),
            rule(&["configmaps"], &["c"], &["list"]),
        ]);
        assert_eq!(
            merged,
            [
                rule(&["configmaps"], &["a", "b"], &["get"]),
                rule(&["configmaps"], &[], &["get"]),
                rule(&["configmaps"], &["c"], &["list"])
            ]
        );
    }
}
