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

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};

use super::commands::{with_loaded, Common, Format};
use crate::access::allowed::Place;
use crate::access::cover::Owners;
use crate::access::danger::{dangers, Severity};
use crate::access::{as_named, AggregatingRole, BindingDef, Policy, RoleDef, RoleRefKind, SubjectKind};
use crate::input::Source;
use crate::outcome::Outcome;

mod installs;
mod shape;

pub(crate) use installs::InstallRight;

pub use shape::{json_schema, ChangeOut, DiffOut, SubjectOut};

/// When `diff` exits 1 (`--fail-on`): never, on any gain (the default), or
/// on a gain the dangerous-permissions catalogue marks.
// No doc comments on the variants: clap would show them as help of their own (hence `missing_docs` allowed).
#[allow(missing_docs)]
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
    /// `-o`: how the changes are printed (table, Markdown, JSON, YAML or SARIF).
    pub format: Format,
    /// `--fail-on`: which changes make it exit 1.
    pub fail_on: FailOn,
    /// The built-in roles added to each side, and `-q`.
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
    with_loaded(old, common, |old_loaded, _| {
        with_loaded(new, common, |new_loaded, warnings| {
            let (old_policy, new_policy) = (&old_loaded.policy, &new_loaded.policy);
            let kept = left_behind(old_policy, new_policy, warnings);
            let changes = changes(old_policy, kept.as_ref().unwrap_or(new_policy));
            let installs = installs::install_changes(old_loaded, new_loaded);
            if let Some(csv) = old_loaded.csvs.iter().chain(&new_loaded.csvs).next() {
                warnings.push(format!(
                    "warning: the manifests hold ClusterServiceVersion {csv:?}: OLM grants its operator's permissions on install, and these manifests hold them only where render wrote them (spec.operator.permissions other than Unmanaged); to compare what the operator will hold as OLM v1 grants it, pass the config: olm-rbac diff -c CONFIG OLD NEW"
                ));
            }
            written(&changes, &installs, options, new.first().map(|s| s.name.as_str()))
        })
    })
}

/// [`diff`] of two clusters' RBAC given as values, each built by its caller
/// (`diff -c` judges two bundles and builds each from what the cluster
/// holds after the install, OLM's grants included). The sides hold no
/// admission policies, so no right to install changes. What [`diff`] says of
/// roles left behind is on stderr (unless quiet).
pub(crate) fn diff_policies(old: &Policy, new: &Policy, options: DiffOptions, artifact: Option<&str>) -> Outcome {
    let mut warnings = Vec::new();
    let kept = left_behind(old, new, &mut warnings);
    let changes = changes(old, kept.as_ref().unwrap_or(new));
    let mut out = written(&changes, &(Vec::new(), Vec::new()), options, artifact);
    if !options.common.quiet {
        out.stderr = warnings.iter().map(|w| format!("{w}\n")).collect::<String>() + &out.stderr;
    }
    out
}

/// The changes written as `options` say, and the exit code: 1 when
/// `fail_on` says a gain fails. A right to install an operator is a right to
/// run a bundle as cluster-admin: every such gain is dangerous.
fn written(
    changes: &Changes,
    installs: &(Vec<InstallRight>, Vec<InstallRight>),
    options: DiffOptions,
    artifact: Option<&str>,
) -> Outcome {
    let failed = match options.fail_on {
        FailOn::None => false,
        FailOn::Gain => !changes.gained.is_empty() || !installs.0.is_empty(),
        FailOn::Dangerous => changes.gained.iter().any(|c| c.severity.is_some()) || !installs.0.is_empty(),
    };
    let mut out = shape::write(changes, installs, options.format, artifact);
    if out.code == 0 && failed {
        out.code = 1;
    }
    if options.common.quiet {
        out.stdout.clear();
    }
    out
}

/// What the cluster's RBAC gains and loses when NEW is applied over OLD
/// without pruning, as [`diff`] measures it, on two values: for each pair
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
fn left_behind(old: &Policy, new: &Policy, warnings: &mut Vec<String>) -> Option<Policy> {
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

    /// Today's arithmetic without the sharing: every namespace measured on
    /// its own, as `changes` did before namespaces were measured once.
    fn changes_one_namespace_at_a_time(old: &Policy, new: &Policy) -> Changes {
        let side = |policy| Side { by_namespace_name: BTreeSet::new(), ..Side::of(policy) };
        let (old_side, new_side) = (side(old), side(new));
        let mut holders: BTreeSet<Holder> = AggregatingRole::ALL.into_iter().map(Holder::Role).collect();
        holders.extend(old_side.by.keys().chain(new_side.by.keys()).cloned());
        let mut out = Changes::default();
        for holder in holders {
            let (old_c, new_c) =
                (old_side.held(&holder, Place::ClusterWide), new_side.held(&holder, Place::ClusterWide));
            out.gained.extend(changed(&holder, None, &new_c, &[&old_c]));
            out.lost.extend(changed(&holder, None, &old_c, &[&new_c]));
            let mut namespaces: BTreeSet<&str> = old_side.role_bindings_of(&holder).into_keys().collect();
            namespaces.extend(new_side.role_bindings_of(&holder).into_keys());
            for ns in namespaces {
                let (old_n, new_n) =
                    (old_side.held(&holder, Place::Namespace(ns)), new_side.held(&holder, Place::Namespace(ns)));
                out.gained.extend(changed(&holder, Some(ns), &new_n, &[&old_n, &new_c]));
                out.lost.extend(changed(&holder, Some(ns), &old_n, &[&new_n, &old_c]));
            }
        }
        out
    }

    /// The next number below `n` drawn from `seed`.
    fn draw(seed: &mut u64, n: u64) -> u64 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (*seed >> 33) % n
    }

    const RULES: [&str; 10] = [
        r#"{apiGroups: [""], resources: [pods], verbs: [get, list]}"#,
        r#"{apiGroups: [""], resources: [namespaces], resourceNames: [n1], verbs: [get]}"#,
        r#"{apiGroups: [""], resources: [namespaces, nodes, configmaps], verbs: [get, delete]}"#,
        r#"{apiGroups: ["", apps], resources: [secrets, deployments], verbs: ["*"]}"#,
        r#"{apiGroups: [""], resources: [configmaps], resourceNames: [a, b], verbs: [update, get]}"#,
        r#"{nonResourceURLs: [/healthz], verbs: [get]}"#,
        r#"{apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [bind, escalate]}"#,
        r#"{apiGroups: ["*"], resources: ["*"], verbs: [list]}"#,
        r#"{apiGroups: [apps], resources: [deployments/scale], verbs: [patch, get]}"#,
        r#"{apiGroups: [example.com], resources: [widgets, pods], verbs: [get, delete]}"#,
    ];

    const HEAD: &str = "apiVersion: rbac.authorization.k8s.io/v1";

    /// One to three of [`RULES`], as a YAML sequence.
    fn rules(seed: &mut u64) -> String {
        (0..1 + draw(seed, 3)).map(|_| format!("- {}\n", RULES[draw(seed, 10) as usize])).collect()
    }

    /// The CRD of `widgets.example.com`, of the scope given.
    fn widgets(scope: &str) -> String {
        format!("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: widgets.example.com}}\nspec: {{group: example.com, names: {{plural: widgets, kind: Widget}}, scope: {scope}, versions: [{{name: v1, served: true, storage: true}}]}}\n")
    }

    /// A render drawn from `seed`, as documents, each under a key that
    /// [`mutate`] picks by: three ClusterRoles (among them rules on the core
    /// `namespaces`, by name and not), a Role in some namespaces, bindings of
    /// a user and a ServiceAccount in six namespaces, so that many namespaces
    /// bind the same roles and some bind a missing one, and a namespaced CRD.
    fn render_docs(seed: &mut u64) -> Vec<(String, String)> {
        let mut docs = Vec::new();
        for c in 0..3 {
            let text = format!("{HEAD}\nkind: ClusterRole\nmetadata: {{name: c{c}}}\nrules:\n{}", rules(seed));
            docs.push((format!("c{c}"), text));
        }
        for n in 0..6 {
            if draw(seed, 2) == 0 {
                let text =
                    format!("{HEAD}\nkind: Role\nmetadata: {{name: r, namespace: n{n}}}\nrules:\n{}", rules(seed));
                docs.push((format!("r{n}"), text));
            }
        }
        let subjects = "[{kind: User, name: u}, {kind: ServiceAccount, name: sa, namespace: n0}]";
        for b in 0..2 {
            if draw(seed, 2) == 0 {
                let role = format!("{{kind: ClusterRole, name: c{}}}", draw(seed, 3));
                let text = format!("{HEAD}\nkind: ClusterRoleBinding\nmetadata: {{name: b{b}}}\nroleRef: {role}\nsubjects: {subjects}\n");
                docs.push(("binding".into(), text));
            }
        }
        for n in 0..6 {
            for b in 0..draw(seed, 3) {
                let role = match draw(seed, 5) {
                    4 => "{kind: Role, name: r}".to_string(),
                    c => format!("{{kind: ClusterRole, name: c{c}}}"),
                };
                let text = format!("{HEAD}\nkind: RoleBinding\nmetadata: {{name: b{b}, namespace: n{n}}}\nroleRef: {role}\nsubjects: {subjects}\n");
                docs.push(("binding".into(), text));
            }
        }
        docs.push(("crd".into(), widgets("Namespaced")));
        docs
    }

    fn load_docs(docs: &[(String, String)]) -> Policy {
        let text: String = docs.iter().map(|(_, doc)| format!("---\n{doc}")).collect();
        crate::check::load(&[Source { name: "side.yaml".into(), text }]).unwrap_or_else(|e| panic!("{e:?}"))
    }

    fn render(seed: &mut u64) -> Policy {
        load_docs(&render_docs(seed))
    }

    /// One change drawn from `seed`, as an upgrade makes: a ClusterRole's
    /// rules rewritten, a ClusterRole made to aggregate those labelled for
    /// it (its written rules kept) and another labelled, a binding dropped,
    /// the CRD made cluster-scoped, or nothing.
    fn mutate(docs: &mut Vec<(String, String)>, seed: &mut u64) {
        let c = draw(seed, 3);
        let at = |docs: &[(String, String)], key: &str| docs.iter().position(|(k, _)| k == key);
        match draw(seed, 5) {
            0 => {
                if let Some(i) = at(docs, &format!("c{c}")) {
                    docs[i].1 = format!("{HEAD}\nkind: ClusterRole\nmetadata: {{name: c{c}}}\nrules:\n{}", rules(seed));
                }
            }
            1 => {
                // Its written rules stay: the aggregation replaces them.
                let selector =
                    format!("aggregationRule: {{clusterRoleSelectors: [{{matchLabels: {{agg: c{c}}}}}]}}\nrules:");
                if let Some(i) = at(docs, &format!("c{c}")) {
                    docs[i].1 = docs[i].1.replacen("rules:", &selector, 1);
                }
                let member = (c + 1 + draw(seed, 2)) % 3;
                if let Some(i) = at(docs, &format!("c{member}")) {
                    let labelled = format!("name: c{member}, labels: {{agg: c{c}}}");
                    docs[i].1 = docs[i].1.replacen(&format!("name: c{member}"), &labelled, 1);
                }
            }
            2 => {
                let bindings: Vec<usize> = (0..docs.len()).filter(|&i| docs[i].0 == "binding").collect();
                if !bindings.is_empty() {
                    docs.remove(bindings[draw(seed, bindings.len() as u64) as usize]);
                }
            }
            3 => {
                if let Some(i) = at(docs, "crd") {
                    docs[i].1 = widgets("Cluster");
                }
            }
            _ => {}
        }
    }

    #[test]
    fn namespaces_measured_once_give_what_measuring_each_gives() {
        let mut seed = 20;
        let mut shared = 0;
        for _ in 0..60 {
            let (old, new) = (render(&mut seed), render(&mut seed));
            let expected = changes_one_namespace_at_a_time(&old, &new);
            assert_eq!(changes(&old, &new), expected);
            assert_eq!(changes(&new, &new), Changes::default());
            shared += usize::from(expected.gained.iter().any(|c| c.namespace.is_some()));
        }
        assert!(shared > 30, "too few renders gain anything in a namespace: {shared}");
    }

    /// An upgrade changes little: most holders hold alike on both sides and
    /// are told so without measuring (`Side::holds_alike`). What is told must
    /// be what measuring every holder in every namespace gives.
    #[test]
    fn holders_told_alike_without_measuring_give_what_measuring_gives() {
        let mut seed = 34;
        let (mut changed, mut alike_bound) = (0, 0);
        for _ in 0..120 {
            let old_docs = render_docs(&mut seed);
            let mut new_docs = old_docs.clone();
            mutate(&mut new_docs, &mut seed);
            let (old, new) = (load_docs(&old_docs), load_docs(&new_docs));
            for (a, b) in [(&old, &new), (&new, &old)] {
                let expected = changes_one_namespace_at_a_time(a, b);
                assert_eq!(changes(a, b), expected, "old:\n{old_docs:#?}\nnew:\n{new_docs:#?}");
                changed += usize::from(expected != Changes::default());
            }
            let (old_side, new_side) = (Side::of(&old), Side::of(&new));
            let user = Holder::Subject { kind: SubjectKind::User, namespace: None, name: "u".into() };
            alike_bound += usize::from(old_side.by.contains_key(&user) && old_side.holds_alike(&new_side, &user, true));
        }
        assert!(changed > 60, "too few upgrades change anything: {changed}");
        assert!(alike_bound > 10, "too few upgrades leave the bound user alike: {alike_bound}");
    }

    #[test]
    fn a_chain_of_upgrades_measured_once_gives_what_each_upgrade_gives_alone() {
        let mut seed = 7;
        for _ in 0..10 {
            let chain: Vec<Policy> = (0..4).map(|_| render(&mut seed)).collect();
            let policies: Vec<&Policy> = chain.iter().collect();
            let pairs = [(0, 1), (1, 2), (2, 3), (3, 0), (1, 1)];
            let alone = |&(old, new): &(usize, usize)| {
                let kept = left_behind(&chain[old], &chain[new], &mut Vec::new());
                changes(&chain[old], kept.as_ref().unwrap_or(&chain[new]))
            };
            assert_eq!(upgrades(&policies, &pairs), pairs.iter().map(alone).collect::<Vec<_>>());
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
