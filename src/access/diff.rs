//! What a cluster's RBAC gains and loses between two policies: for each
//! holder (a binding's subject, or whoever holds a built-in aggregating
//! role), in each scope (cluster-wide, each namespace a RoleBinding names),
//! what one side holds that the other's rules do not cover
//! ([`Owners::uncovered_rules`], the escalation check's arithmetic), so a
//! rule only written differently is no change; a change's severity is the
//! catalogue's ([`dangers`]). `olm-rbac diff` and the catalog's gains are
//! its callers; what a holder holds is [`Policy::permissions_through`], as
//! `can-i --list` answers.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};

use super::allowed::Place;
use super::cover::Owners;
use super::danger::{dangers, Severity};
use super::{as_named, AggregatingRole, BindingDef, Policy, RoleDef, RoleRefKind, SubjectKind};

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

/// What the cluster's RBAC gains and loses when NEW is applied over OLD
/// without pruning, as `olm-rbac diff` measures it, on two values: for each pair
/// `(old, new)` of indices into `policies`, in the pairs' order. A catalog's
/// versions are each the new side of one upgrade and the old of the next:
/// what a policy's holders hold is measured once for both.
pub(crate) fn upgrades(policies: &[&Policy], pairs: &[(usize, usize)]) -> Vec<Changes> {
    let sides: Vec<std::cell::OnceCell<Side<'_>>> = policies.iter().map(|_| Default::default()).collect();
    let side = |i: usize| sides[i].get_or_init(|| Side::of(policies[i]));
    let mut out = Vec::with_capacity(pairs.len());
    for &(old, new) in pairs {
        let (old, new) = (side(old), side(new));
        out.push(match left_behind(old.policy, new.policy, &mut Vec::new()) {
            Some(kept) => changes_between(old, &Side::of(&kept)),
            None => changes_between(old, new),
        });
    }
    out
}

/// NEW as the cluster holds it after NEW is applied over OLD without pruning
/// (`kubectl apply`, Argo CD's default): a role NEW's bindings refer to but
/// only OLD defines stays on the cluster and grants what OLD wrote, so a
/// binding cannot hide a gain behind a role the upgrade stops shipping. Each
/// such role is a warning (with pruning, the binding grants nothing). `None`
/// when there is none.
pub(crate) fn left_behind(old: &Policy, new: &Policy, warnings: &mut Vec<String>) -> Option<Policy> {
    // The roles to keep, by (namespace, name): NEW is copied only when there is one.
    let mut kept: BTreeMap<(Option<String>, String), &RoleDef> = BTreeMap::new();
    for b in &new.bindings {
        let (kind, name) = (b.role_ref_kind(), b.role_name.clone());
        let (present, from_old) = match (kind, &b.namespace) {
            (Some(RoleRefKind::ClusterRole), _) => (
                new.cluster_roles.contains_key(&name) || kept.contains_key(&(None, name.clone())),
                old.cluster_roles.get(&name).filter(|r| !r.builtin),
            ),
            (Some(RoleRefKind::Role), Some(ns)) => {
                let key = (ns.clone(), name.clone());
                (
                    new.roles.contains_key(&key) || kept.contains_key(&(Some(ns.clone()), name.clone())),
                    old.roles.get(&key),
                )
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
        kept.insert((role.namespace.clone(), name), role);
    }
    if kept.is_empty() {
        return None;
    }
    let mut cluster = new.clone();
    for ((namespace, name), role) in kept {
        match namespace {
            Some(ns) => cluster.roles.insert((ns, name), role.clone()),
            None => cluster.cluster_roles.insert(name, role.clone()),
        };
    }
    Some(cluster)
}

/// Every holder's gains and losses: cluster-wide, then in each namespace
/// where a RoleBinding of either side names it, leaving out there what the
/// same side's cluster-wide grants already hold.
pub(crate) fn changes(old: &Policy, new: &Policy) -> Changes {
    changes_between(&Side::of(old), &Side::of(new))
}

/// [`changes`] between two sides, each measured as it is asked.
fn changes_between(old_side: &Side<'_>, new_side: &Side<'_>) -> Changes {
    let mut holders: BTreeSet<Holder> = AggregatingRole::ALL.into_iter().map(Holder::Role).collect();
    holders.extend(old_side.by.keys().cloned());
    holders.extend(new_side.by.keys().cloned());
    let mut out = Changes::default();
    // Whether the sides know the same cluster-scoped resources, which decide
    // what a RoleBinding grants.
    let (old, new) = (&old_side.policy.resources, &new_side.policy.resources);
    let same_scopes = old.cluster_scoped_resources().eq(new.cluster_scoped_resources());
    for holder in holders {
        // A built-in aggregating role is bound cluster-wide only, where what it
        // grants is its effective rules: the same rules on both sides, no change.
        if let Holder::Role(role) = &holder {
            if old_side.aggregated(*role) == new_side.aggregated(*role) {
                continue;
            }
        }
        if old_side.holds_alike(new_side, &holder, same_scopes) {
            continue;
        }
        let (old_c, new_c) = (old_side.held(&holder, Place::ClusterWide), new_side.held(&holder, Place::ClusterWide));
        out.gained.extend(changed(&holder, None, &new_c, &[&old_c]));
        out.lost.extend(changed(&holder, None, &old_c, &[&new_c]));
        let (old_rb, new_rb) = (old_side.role_bindings_of(&holder), new_side.role_bindings_of(&holder));
        let namespaces: BTreeSet<&str> = old_rb.keys().chain(new_rb.keys()).copied().collect();
        // Namespaces where each side binds the holder to the same ClusterRoles
        // (none of which names its namespace) differ alike: each is measured
        // once, then told under each namespace's name. Comparing 1,500
        // cluster-wide rules again in each of 300 namespaces took seconds.
        let mut measured: HashMap<(Vec<&str>, Vec<&str>), Changes> = HashMap::new();
        for ns in namespaces {
            let key = old_side.shared_grant(old_rb.get(ns)).zip(new_side.shared_grant(new_rb.get(ns)));
            let here = match key.as_ref().and_then(|k| measured.get(k)) {
                Some(seen) => seen.clone(),
                None => {
                    let (old_n, new_n) =
                        (old_side.held(&holder, Place::Namespace(ns)), new_side.held(&holder, Place::Namespace(ns)));
                    let here = Changes {
                        gained: changed(&holder, Some(ns), &new_n, &[&old_n, &new_c]),
                        lost: changed(&holder, Some(ns), &old_n, &[&new_n, &old_c]),
                    };
                    if let Some(key) = key {
                        measured.insert(key, here.clone());
                    }
                    here
                }
            };
            let in_ns = |c: Change| Change { namespace: Some(ns.to_string()), ..c };
            out.gained.extend(here.gained.into_iter().map(in_ns));
            out.lost.extend(here.lost.into_iter().map(in_ns));
        }
    }
    out
}

/// What of `held` none of `owners` covers, as changes of the holder there.
fn changed(holder: &Holder, namespace: Option<&str>, held: &[PolicyRule], owners: &[&[PolicyRule]]) -> Vec<Change> {
    // An owner that holds exactly these rules covers them all: the common
    // case of an upgrade (a built-in role, an unchanged account), told
    // without measuring a rule.
    if held.is_empty() || owners.contains(&held) {
        return Vec::new();
    }
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

/// The ClusterRoles of one side whose grants through a RoleBinding depend
/// on the namespace's name ([`Policy::grants_by_namespace_name`]).
fn named_by_namespace(policy: &Policy) -> BTreeSet<&str> {
    policy
        .cluster_roles
        .values()
        .filter(|role| policy.grants_by_namespace_name(role))
        .map(|role| role.name.as_str())
        .collect()
}

/// One side of the diff: its policy, its bindings by holder, and its
/// ClusterRoles that grant by the namespace's name; what it was asked of
/// each holder, kept for the next upgrade it is a side of.
struct Side<'p> {
    policy: &'p Policy,
    by: BTreeMap<Holder, Vec<&'p BindingDef>>,
    by_namespace_name: BTreeSet<&'p str>,
    /// [`Side::held`] by holder and namespace (`None`: cluster-wide).
    held: RefCell<HeldBy>,
    /// [`Side::aggregated`] by role.
    aggregated: RefCell<BTreeMap<AggregatingRole, Rc<Option<EffectiveRules<'p>>>>>,
}

/// What each holder holds, by holder and namespace (`None`: cluster-wide).
type HeldBy = BTreeMap<(Holder, Option<String>), Rc<[PolicyRule]>>;

/// A role's effective rules, borrowed from its side's policy: what it
/// grants, whichever roles they come through.
type EffectiveRules<'p> = Vec<&'p PolicyRule>;

impl<'p> Side<'p> {
    fn of(policy: &'p Policy) -> Side<'p> {
        Side {
            policy,
            by: by_holder(policy),
            by_namespace_name: named_by_namespace(policy),
            held: RefCell::default(),
            aggregated: RefCell::default(),
        }
    }

    /// What a built-in aggregating role grants on this side: its effective rules.
    fn aggregated(&self, role: AggregatingRole) -> Rc<Option<EffectiveRules<'p>>> {
        let rules = || {
            let role = self.policy.cluster_roles.get(role.name())?;
            let mut rules = Vec::new();
            self.policy.each_effective_rule(role, |rule| rules.push(rule));
            Some(rules)
        };
        self.aggregated.borrow_mut().entry(role).or_insert_with(|| Rc::new(rules())).clone()
    }

    /// What the holder may do in the place, as `can-i --list` lists it, as
    /// rules; measured once per holder and place.
    fn held(&self, holder: &Holder, place: Place<'_>) -> Rc<[PolicyRule]> {
        let key = (holder.clone(), if let Place::Namespace(ns) = place { Some(ns.to_string()) } else { None });
        if let Some(seen) = self.held.borrow().get(&key) {
            return seen.clone();
        }
        let held: Rc<[PolicyRule]> = self.measure(holder, place).into();
        self.held.borrow_mut().insert(key, held.clone());
        held
    }

    fn measure(&self, holder: &Holder, place: Place<'_>) -> Vec<PolicyRule> {
        let permissions = match holder {
            Holder::Role(role) => {
                // Bound by a ClusterRoleBinding: the most the role can give.
                let binding = BindingDef {
                    name: String::new(),
                    namespace: None,
                    role_kind: Some(RoleRefKind::ClusterRole),
                    role_name: role.name().to_string(),
                    subjects: Vec::new(),
                    labels: BTreeMap::new(),
                    builtin: true,
                    source: None,
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

    /// Whether the subject holds on `other` what it holds here, without
    /// measuring (equal holdings give no change): the same bindings name it,
    /// in order, each to a role written alike that aggregates nothing; a
    /// RoleBinding also needs the same cluster-scoped resources on both
    /// (`same_scopes`). Most holders of an upgrade, Kubernetes' own, are so.
    fn holds_alike(&self, other: &Side<'_>, holder: &Holder, same_scopes: bool) -> bool {
        if matches!(holder, Holder::Role(_)) {
            return false;
        }
        let (mine, theirs) = (self.by.get(holder), other.by.get(holder));
        let (mine, theirs) = (mine.map_or(&[][..], Vec::as_slice), theirs.map_or(&[][..], Vec::as_slice));
        let role_alike = |a: &BindingDef, b: &BindingDef| match (self.policy.bound_role(a), other.policy.bound_role(b))
        {
            (None, None) => true,
            (Some(x), Some(y)) => {
                x.aggregation.is_empty()
                    && y.aggregation.is_empty()
                    && x.namespace == y.namespace
                    && (std::sync::Arc::ptr_eq(&x.rules, &y.rules) || x.rules == y.rules)
            }
            _ => false,
        };
        mine.len() == theirs.len()
            && mine.iter().zip(theirs).all(|(a, b)| {
                a.namespace == b.namespace
                    && a.role_kind == b.role_kind
                    && a.role_name == b.role_name
                    && (a.namespace.is_none() || same_scopes)
                    && role_alike(a, b)
            })
    }

    /// The RoleBindings that name the holder, by namespace.
    fn role_bindings_of(&self, holder: &Holder) -> BTreeMap<&'p str, Vec<&'p BindingDef>> {
        let mut out: BTreeMap<&str, Vec<&BindingDef>> = BTreeMap::new();
        for b in self.by.get(holder).into_iter().flatten().copied() {
            if let Some(ns) = b.namespace.as_deref() {
                out.entry(ns).or_default().push(b);
            }
        }
        out
    }

    /// The ClusterRoles the RoleBindings bind, sorted, when what they grant
    /// is the same in any namespace; `None` when one binds a Role (which
    /// lives in its namespace) or a ClusterRole that grants by the
    /// namespace's name. Bindings to no role grant nothing and are left out.
    fn shared_grant(&self, bindings: Option<&Vec<&'p BindingDef>>) -> Option<Vec<&'p str>> {
        let mut names = Vec::new();
        for b in bindings.into_iter().flatten() {
            let Some(role) = self.policy.bound_role(b) else { continue };
            if role.namespace.is_some() || self.by_namespace_name.contains(role.name.as_str()) {
                return None;
            }
            names.push(role.name.as_str());
        }
        names.sort_unstable();
        names.dedup();
        Some(names)
    }
}

#[cfg(test)]
mod tests;
