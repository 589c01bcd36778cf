//! The verdict on each holding: beyond the scoped `allow` entries (the
//! ceiling), sharing a permission with a scoped `deny` entry, or, without a
//! ceiling, dangerous by the catalogue. Findings about one holder are capped.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::access::cover::{overlaps, uncovered_rules};
use crate::access::danger::{dangers, Danger};
use crate::access::describe_rule;
use crate::config::{PolicyEntry, PolicyScope};
use crate::findings::{Code, Finding, Shown};

use super::{Gate, Namespace};
use crate::plan::gate::holdings::{BoundSubject, Holder, Holding, Reach};

impl Holding<'_> {
    /// `finding` about this holding: on the object and field that ask for it.
    fn at(&self, finding: Finding) -> Finding {
        finding.on(&self.on).at(self.field.clone()).in_file(self.file)
    }

    /// Who gets what, and where, for messages: in `namespaces` when given.
    fn describe(&self, namespaces: Option<&[String]>) -> String {
        let place = match (&self.reach, namespaces) {
            (Reach::Cluster, _) => " cluster-wide".to_string(),
            (Reach::Namespaces(_), Some(list)) => in_namespaces(list),
            (Reach::Namespaces(list), None) => {
                if list.as_slice() == [Namespace::UnnamedInstall] {
                    return format!("{} would be granted {} in its namespace(s)", self.who, describe_rule(&self.rule));
                }
                in_namespaces(&list.iter().map(ToString::to_string).collect::<Vec<_>>())
            }
        };
        format!("{} would be granted {}{place}", self.who, describe_rule(&self.rule))
    }
}

fn in_namespaces(list: &[String]) -> String {
    if list.len() == 1 && list[0] == Namespace::UnnamedInstall.to_string() {
        return " in its namespace(s)".to_string();
    }
    // A selector can pick thousands: name a few, count the rest.
    const SHOWN: usize = 5;
    match list.len() {
        n if n > SHOWN => format!(" in namespace(s) {} and {} more", list[..SHOWN].join(", "), n - SHOWN),
        _ => format!(" in namespace(s) {}", list.join(", ")),
    }
}

/// Each namespace a holding reaches, `None` standing for cluster-wide.
fn each_namespace(reach: &Reach) -> Vec<Option<&Namespace>> {
    match reach {
        Reach::Cluster => vec![None],
        Reach::Namespaces(list) => list.iter().map(Some).collect(),
    }
}

impl Gate<'_> {
    /// Whether a scope's namespaces hold `ns`: those it lists, or the
    /// operator's own for an empty list. A namespace without a name is in no list.
    fn in_scope(&self, list: &[String], ns: &Namespace) -> bool {
        if list.is_empty() {
            self.operator_namespaces.contains(ns)
        } else {
            ns.named().is_some_and(|n| list.iter().any(|l| l == n))
        }
    }

    /// Does an `allow` entry cover grants in namespace `ns` (or cluster-wide)?
    fn allows_in(&self, entry: &PolicyEntry, ns: Option<&Namespace>) -> bool {
        match (&entry.scope, ns) {
            (PolicyScope::Anywhere | PolicyScope::Cluster, _) => true,
            (PolicyScope::Namespaces(_), Some(Namespace::Applied)) => false,
            (PolicyScope::Namespaces(list), Some(ns)) => self.in_scope(list, ns),
            (PolicyScope::Namespaces(_), None) => false,
        }
    }

    /// Does a `deny` entry forbid grants in namespace `ns` (or cluster-wide)?
    /// A cluster-wide grant reaches every namespace, so every entry applies to
    /// it; so does one in a namespace the gate knows only by its part (the
    /// install namespace the config does not name, where a delegated team may
    /// install into any of its namespaces; the applier's).
    fn denies_in(&self, entry: &PolicyEntry, ns: Option<&Namespace>) -> bool {
        match (&entry.scope, ns) {
            (_, None) | (PolicyScope::Anywhere, _) => true,
            (PolicyScope::Cluster, Some(_)) => false,
            // Either could be any namespace: the one listed, too.
            (PolicyScope::Namespaces(_), Some(Namespace::Applied | Namespace::UnnamedInstall)) => true,
            (PolicyScope::Namespaces(list), Some(ns)) => self.in_scope(list, ns),
        }
    }

    pub(super) fn check_ceiling(&self, allow: &[PolicyEntry], holdings: &[Holding], results: &mut Vec<Finding>) {
        let mut results = Capped::new(results);
        // The entries that apply in each place, gathered once per place.
        let mut applicable: BTreeMap<Option<&Namespace>, Vec<PolicyRule>> = BTreeMap::new();
        for g in holdings {
            // Each place, with what the entries that apply there leave uncovered;
            // namespaces with the same answer are reported together.
            let mut beyond: Vec<(Vec<String>, Option<Vec<String>>)> = Vec::new();
            for ns in each_namespace(&g.reach) {
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
                results.push(g, Finding::error(Code::PolicyNotAllowed, message));
            }
        }
        results.finish();
    }

    pub(super) fn check_deny(&self, deny: &[PolicyEntry], holdings: &[Holding], results: &mut Vec<Finding>) {
        let mut results = Capped::new(results);
        for g in holdings {
            for (k, d) in deny.iter().enumerate().filter(|(_, d)| overlaps(&g.rule, &d.rule)) {
                let hit: Vec<String> = each_namespace(&g.reach)
                    .into_iter()
                    .filter(|ns| self.denies_in(d, *ns))
                    .flatten()
                    .map(ToString::to_string)
                    .collect();
                let applies = g.reach == Reach::Cluster && self.denies_in(d, None) || !hit.is_empty();
                if !applies {
                    continue;
                }
                let namespaces = (g.reach != Reach::Cluster).then_some(hit);
                let message = format!(
                    "install policy: {}, which spec.operator.policy.deny[{k}] forbids ({})",
                    g.describe(namespaces.as_deref()),
                    describe_rule(&d.rule)
                );
                results.push(g, Finding::error(Code::PolicyDenied, message));
            }
        }
        results.finish();
    }
}

/// Where a binding reaches an operator's account beyond the chosen namespaces
/// (`None`: cluster-wide), with the first holding that says so.
type Beyond<'h, 'o> = (Option<BTreeSet<String>>, &'h Holding<'o>);

impl Gate<'_> {
    /// Under `permissions: Namespaces`, the admin chose where the operator may
    /// act; a binding the bundle ships that reaches one of the operator's
    /// accounts beyond those namespaces undoes that choice, whatever the
    /// policy allows: said once per binding and account, with where it reaches.
    pub(super) fn warn_beyond_scope(&self, holdings: &[Holding], results: &mut Vec<Finding>) {
        let chosen: BTreeSet<&Namespace> = self.operator_namespaces.iter().collect();
        let mut beyond: BTreeMap<(String, String), Beyond<'_, '_>> = BTreeMap::new();
        for g in holdings {
            let Holder::Bound { subject: BoundSubject::Account(account), binding } = &g.who else { continue };
            if Some(account.namespace.as_str()) != self.install_named() || !self.accounts.contains(&account.name) {
                continue;
            }
            let reached: Option<BTreeSet<String>> = match &g.reach {
                Reach::Cluster => None,
                Reach::Namespaces(list) => {
                    let outside: BTreeSet<String> =
                        list.iter().filter(|ns| !chosen.contains(ns)).map(ToString::to_string).collect();
                    if outside.is_empty() {
                        continue;
                    }
                    Some(outside)
                }
            };
            let key = (binding.to_string(), account.to_string());
            let entry = beyond.entry(key).or_insert((Some(BTreeSet::new()), g));
            match (&mut entry.0, reached) {
                (Some(all), Some(more)) => all.extend(more),
                (slot, None) => *slot = None,
                (None, Some(_)) => {}
            }
        }
        for ((binding, account), (reached, g)) in beyond {
            let place = match reached {
                None => "cluster-wide, in every namespace".to_string(),
                Some(list) => format!("in namespace(s) {}", list.into_iter().collect::<Vec<_>>().join(", ")),
            };
            results.push(g.at(Finding::warning(Code::BeyondNamespaces, format!(
                "the bundle's {binding} grants the operator's {account} {place}, beyond the namespaces spec.operator chose ({}): permissions: Namespaces scopes what olm-rbac writes, not what the bundle's own bindings grant, which OLM installs as they are; refuse it with spec.operator.policy (allow entries scoped to these namespaces), or choose permissions: Cluster",
                chosen.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            ))));
        }
    }
}

/// Without a ceiling: a warning for each holding the catalogue of dangerous
/// permissions names, with what would decide it: a policy, or, where one is
/// set without a ceiling, an `allow` ceiling or a `deny` entry.
pub(super) fn warn_dangerous(holdings: &[Holding], policy_set: bool, results: &mut Vec<Finding>) {
    let decide = if policy_set {
        "add a ceiling (spec.operator.policy.allow) or a deny entry to decide whether the operator may hold it"
    } else {
        "set spec.operator.policy to decide what the operator may hold"
    };
    let mut results = Capped::new(results);
    // One result per kind of danger a holding grants, each under its own
    // code, so that a user accepts or suppresses one kind, never a rule's
    // others; worst first, so that the cap on the text never hides a grant
    // more dangerous than those it shows (the order is otherwise the CSV's).
    let mut dangerous: Vec<(&Holding, &Danger)> = holdings
        .iter()
        .flat_map(|g| dangers(&g.rule, g.reach == Reach::Cluster).into_iter().map(move |d| (g, d)))
        .collect();
    dangerous.sort_by_key(|(_, d)| std::cmp::Reverse(d.severity));
    for (g, d) in dangerous {
        let message =
            format!("{}: {} ({}) (see docs/dangerous-permissions.md; {decide})", g.describe(None), d.what, d.severity);
        results.push(g, Finding::warning(Code::of_danger(d), message).dangerous(d.severity));
    }
    results.finish();
}

/// Findings about holdings, at most [`Capped::EACH`] for any one holder: a
/// role of many rules bound many times would otherwise say the same thing
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

    /// Every finding is kept as a value; past the cap, out of the text.
    fn push(&mut self, g: &Holding, finding: Finding) {
        let finding = g.at(finding);
        let who = g.who.to_string();
        let n = self.said.entry(who.clone()).or_default();
        *n += 1;
        if *n > Self::EACH {
            self.first.entry(who).or_insert_with(|| finding.clone());
            self.results.push(Finding { shown: Shown::PastCap, ..finding });
        } else {
            self.results.push(finding);
        }
    }

    /// Counts in the text what it left out, once per holder.
    fn finish(self) {
        for (who, first) in self.first {
            let more = self.said.get(&who).copied().unwrap_or_default() - Self::EACH;
            let message = format!(
                "and {more} more like it for {who} (the first {} are shown; the KRM function's results, render --sarif and the catalog commands' -o json list every one)",
                Self::EACH
            );
            self.results.push(Finding { message, danger: None, shown: Shown::CapCount, ..first });
        }
    }
}
