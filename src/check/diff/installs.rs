//! Who gains or loses the right to install what, between two renders with
//! delegated installs. The candidates are what olm-rbac's delegations policy
//! on either side says each team may install (its `olm-rbac.io/delegations`
//! annotation); each is then asked of both sides as `can-install` asks it,
//! through the RBAC and every admission policy, so that the answer is what
//! the cluster would enforce, not what the annotation claims. For each team
//! and subject it also asks for one ClusterExtension outside the delegation
//! in each way the policy refuses (another package, a range, another
//! namespace or catalog, SelfCertified, CRD safety off, `spec.config`, the
//! watch-namespace annotation, no team label or another team's, taking over
//! or deleting an admin's ClusterExtension), so that a policy weakened or
//! unbound in NEW is a gain too.
//! A request that cannot be told counts as allowed: a possible gain fails.

use std::collections::BTreeSet;

use serde_json::{json, Value as Json};

use crate::access::Identity;
use crate::admission::{Answer, Operation};
use crate::check::install::ask;
use crate::check::load::Loaded;
use crate::model::{DelegatedTeam, DELEGATIONS_ANNOTATION, DELEGATION_LABEL, MANAGED_BY, MANAGER};

/// One right to install: who, which package at which version, where, from
/// which catalog, for which team.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct InstallRight {
    pub subject_kind: String,
    pub subject: String,
    pub package: String,
    pub version: String,
    pub namespace: String,
    pub catalog: String,
    pub team: String,
    /// For a request outside the delegation: how it is outside.
    pub outside: Option<Outside>,
}

/// The ways a ClusterExtension can be outside a team's delegation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Outside {
    Package,
    Range,
    Namespace,
    Catalog,
    SelfCertified,
    CrdSafetyOff,
    Config,
    WatchAnnotation,
    Unlabelled,
    AnotherTeam,
    TakeOver,
    DeleteOthers,
}

impl Outside {
    const ALL: [Outside; 12] = [
        Outside::Package,
        Outside::Range,
        Outside::Namespace,
        Outside::Catalog,
        Outside::SelfCertified,
        Outside::CrdSafetyOff,
        Outside::Config,
        Outside::WatchAnnotation,
        Outside::Unlabelled,
        Outside::AnotherTeam,
        Outside::TakeOver,
        Outside::DeleteOthers,
    ];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Outside::Package => "a package not delegated",
            Outside::Range => "a version range",
            Outside::Namespace => "a namespace not delegated",
            Outside::Catalog => "a catalog not delegated",
            Outside::SelfCertified => "upgradeConstraintPolicy SelfCertified",
            Outside::CrdSafetyOff => "CRD upgrade safety off",
            Outside::Config => "a spec.config of its own",
            Outside::WatchAnnotation => "a watch-namespace annotation",
            Outside::Unlabelled => "no team label",
            Outside::AnotherTeam => "another team's label",
            Outside::TakeOver => "taking over a ClusterExtension that is not its team's",
            Outside::DeleteOthers => "deleting a ClusterExtension that is not its team's",
        }
    }
}

/// What a probe outside the delegation puts where the delegation's value was.
const UNDELEGATED: &str = "olm-rbac-probe-undelegated";

impl InstallRight {
    /// The right in a line: `Group team-monitoring may install prometheus
    /// 0.57.0 into monitoring from operatorhubio (team monitoring)`, or, outside
    /// the delegation, `... may install outside team monitoring's delegation:
    /// a version range`.
    pub(crate) fn text(&self) -> String {
        match self.outside {
            Some(how) => format!(
                "{} {} may install outside team {}'s delegation: {}",
                self.subject_kind,
                self.subject,
                self.team,
                how.as_str()
            ),
            None => format!(
                "{} {} may install {} {} into {} from {} (team {})",
                self.subject_kind, self.subject, self.package, self.version, self.namespace, self.catalog, self.team
            ),
        }
    }
}

/// The rights either side's delegations policy names.
fn candidates(side: &Loaded) -> BTreeSet<InstallRight> {
    let mut out = BTreeSet::new();
    for p in &side.admission.policies {
        let ours = p.metadata.labels.as_ref().and_then(|l| l.get(MANAGED_BY)).is_some_and(|m| m == MANAGER);
        let Some(listed) = p.metadata.annotations.as_ref().and_then(|a| a.get(DELEGATIONS_ANNOTATION)) else {
            continue;
        };
        let Ok(teams) = serde_json::from_str::<Vec<DelegatedTeam>>(listed) else { continue };
        if !ours {
            continue;
        }
        for t in &teams {
            for s in &t.subjects {
                let (kind, subject) = match &s.namespace {
                    Some(ns) if s.kind == "ServiceAccount" => (s.kind.clone(), format!("{ns}/{}", s.name)),
                    _ => (s.kind.clone(), s.name.clone()),
                };
                let mut first = None;
                for (package, versions) in &t.packages {
                    for version in versions {
                        for namespace in &t.namespaces {
                            for catalog in &t.catalogs {
                                let right = InstallRight {
                                    subject_kind: kind.clone(),
                                    subject: subject.clone(),
                                    package: package.clone(),
                                    version: version.clone(),
                                    namespace: namespace.clone(),
                                    catalog: catalog.clone(),
                                    team: t.team.clone(),
                                    outside: None,
                                };
                                first.get_or_insert_with(|| right.clone());
                                out.insert(right);
                            }
                        }
                    }
                }
                if let Some(first) = first {
                    out.extend(
                        Outside::ALL.into_iter().map(|how| InstallRight { outside: Some(how), ..first.clone() }),
                    );
                }
            }
        }
    }
    out
}

/// Whether `side` lets the right's subject create its ClusterExtension.
fn holds(side: &Loaded, right: &InstallRight) -> bool {
    let who = match right.subject_kind.as_str() {
        "User" => Identity::new(&right.subject, &[]),
        "ServiceAccount" => match right.subject.split_once('/') {
            Some((ns, name)) => Identity::service_account(ns, name),
            None => return false,
        },
        // A member of the group with no other group of its own.
        _ => Identity::new("olm-rbac:a-member", std::slice::from_ref(&right.subject)),
    };
    let name = "olm-rbac-probe";
    let extension = probe(right);
    // An admin's ClusterExtension, of no team, as the cluster holds it.
    let theirs = json!({"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension",
        "metadata": {"name": name}, "spec": {"namespace": UNDELEGATED,
        "source": {"sourceType": "Catalog", "catalog": {"packageName": UNDELEGATED}}}});
    let (operation, object, old) = match right.outside {
        Some(Outside::TakeOver) => (Operation::Update, Some(&extension), Some(&theirs)),
        Some(Outside::DeleteOthers) => (Operation::Delete, None, Some(&theirs)),
        _ => (Operation::Create, Some(&extension), None),
    };
    let (rbac, (answer, _)) = ask(side, &who, operation, name, object, old);
    // What cannot be told may be allowed.
    rbac.is_some() && answer != Answer::Refused
}

/// The ClusterExtension a right asks for.
fn probe(right: &InstallRight) -> Json {
    let or = |how: Outside, value: &str| {
        if right.outside == Some(how) {
            UNDELEGATED.to_string()
        } else {
            value.to_string()
        }
    };
    let version =
        if right.outside == Some(Outside::Range) { format!(">={}", right.version) } else { right.version.clone() };
    let mut extension = json!({
        "apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension",
        "metadata": {"name": "olm-rbac-probe", "labels": {DELEGATION_LABEL: right.team}},
        "spec": {"namespace": or(Outside::Namespace, &right.namespace), "source": {"sourceType": "Catalog", "catalog": {
            "packageName": or(Outside::Package, &right.package), "version": version,
            "selector": {"matchLabels": {"olm.operatorframework.io/metadata.name": or(Outside::Catalog, &right.catalog)}}}}}
    });
    match right.outside {
        Some(Outside::SelfCertified) => {
            extension["spec"]["source"]["catalog"]["upgradeConstraintPolicy"] = json!("SelfCertified");
        }
        Some(Outside::CrdSafetyOff) => {
            extension["spec"]["install"] = json!({"preflight": {"crdUpgradeSafety": {"enforcement": "None"}}});
        }
        Some(Outside::Config) => {
            extension["spec"]["config"] = json!({"configType": "Inline", "inline": {"watchNamespace": UNDELEGATED}});
        }
        Some(Outside::WatchAnnotation) => {
            extension["metadata"]["annotations"] = json!({"olm.operatorframework.io/watch-namespace": UNDELEGATED});
        }
        Some(Outside::Unlabelled) => extension["metadata"]["labels"] = json!({}),
        Some(Outside::AnotherTeam) => extension["metadata"]["labels"] = json!({DELEGATION_LABEL: UNDELEGATED}),
        _ => {}
    }
    extension
}

/// The rights NEW grants that OLD does not, and the reverse.
pub(crate) fn install_changes(old: &Loaded, new: &Loaded) -> (Vec<InstallRight>, Vec<InstallRight>) {
    let mut all = candidates(old);
    all.extend(candidates(new));
    let (mut gained, mut lost) = (Vec::new(), Vec::new());
    for right in all {
        match (holds(old, &right), holds(new, &right)) {
            (false, true) => gained.push(right),
            (true, false) => lost.push(right),
            _ => {}
        }
    }
    (gained, lost)
}
