//! Who gains or loses the right to install what, between two renders with
//! delegated installs. The candidates are what olm-rbac's delegations policy
//! on either side says each team may install (its `olm-rbac.io/delegations`
//! annotation); each is then asked of both sides as `can-install` asks it,
//! through the RBAC and every admission policy, so that the answer is what
//! the cluster would enforce, not what the annotation claims.

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::{json, Value as Json};

use crate::access::{Identity, Request};
use crate::admission::{admit, AdmissionRequest, Answer, Operation};
use crate::check::load::Loaded;
use crate::model::{DELEGATIONS_ANNOTATION, DELEGATION_LABEL, MANAGED_BY, MANAGER, OLM_V1_GROUP};

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
}

impl InstallRight {
    /// The right in a line: `Group team-monitoring may install prometheus
    /// 0.57.0 into monitoring from operatorhubio (team monitoring)`.
    pub(crate) fn text(&self) -> String {
        format!(
            "{} {} may install {} {} into {} from {} (team {})",
            self.subject_kind, self.subject, self.package, self.version, self.namespace, self.catalog, self.team
        )
    }
}

#[derive(Deserialize)]
struct Team {
    team: String,
    subjects: Vec<TeamSubject>,
    packages: std::collections::BTreeMap<String, Vec<String>>,
    namespaces: Vec<String>,
    catalogs: Vec<String>,
}

#[derive(Deserialize)]
struct TeamSubject {
    kind: String,
    name: String,
    namespace: Option<String>,
}

/// The rights either side's delegations policy names.
fn candidates(side: &Loaded) -> BTreeSet<InstallRight> {
    let mut out = BTreeSet::new();
    for p in &side.admission.policies {
        let ours = p.metadata.labels.as_ref().and_then(|l| l.get(MANAGED_BY)).is_some_and(|m| m == MANAGER);
        let Some(listed) = p.metadata.annotations.as_ref().and_then(|a| a.get(DELEGATIONS_ANNOTATION)) else {
            continue;
        };
        let Ok(teams) = serde_json::from_str::<Vec<Team>>(listed) else { continue };
        if !ours {
            continue;
        }
        for t in &teams {
            for s in &t.subjects {
                let (kind, subject) = match &s.namespace {
                    Some(ns) if s.kind == "ServiceAccount" => (s.kind.clone(), format!("{ns}/{}", s.name)),
                    _ => (s.kind.clone(), s.name.clone()),
                };
                for (package, versions) in &t.packages {
                    for version in versions {
                        for namespace in &t.namespaces {
                            for catalog in &t.catalogs {
                                out.insert(InstallRight {
                                    subject_kind: kind.clone(),
                                    subject: subject.clone(),
                                    package: package.clone(),
                                    version: version.clone(),
                                    namespace: namespace.clone(),
                                    catalog: catalog.clone(),
                                    team: t.team.clone(),
                                });
                            }
                        }
                    }
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
    let extension: Json = json!({
        "apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension",
        "metadata": {"name": name, "labels": {DELEGATION_LABEL: right.team}},
        "spec": {"namespace": right.namespace, "source": {"sourceType": "Catalog", "catalog": {
            "packageName": right.package, "version": right.version,
            "selector": {"matchLabels": {"olm.operatorframework.io/metadata.name": right.catalog}}}}}
    });
    let request =
        Request { name: Some(name.to_string()), ..Request::on("create", OLM_V1_GROUP, "clusterextensions", None) };
    if side.policy.can(&who, &request).is_none() {
        return false;
    }
    let asked = AdmissionRequest {
        operation: Operation::Create,
        group: OLM_V1_GROUP,
        version: "v1",
        resource: "clusterextensions",
        kind: "ClusterExtension",
        name,
        object: Some(&extension),
        old_object: None,
        user: &who.user,
        groups: who.groups.iter().cloned().collect(),
    };
    admit(&side.admission, &asked).0 == Answer::Admitted
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
