//! `spec.delegations`: who may install which operator, at which versions,
//! where. One entry per team, as written and as checked. Everything a
//! delegation hands out is listed: no list may be empty (an empty list would
//! read as "everything"), no entry may be a wildcard, and no subject may be
//! everyone.

use schemars::JsonSchema;
use serde::Deserialize;

use super::bindings::{check_subject, SubjectDoc};
use super::Subject;
use crate::model::SubjectKind;
use crate::names::{is_dns1123_label, is_dns1123_subdomain, is_package_name};
use crate::semver::Version;

/// One team's delegation, as written.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct DelegationDoc {
    /// The team's name, a DNS label: its ClusterExtensions carry it in the label
    /// `olm-rbac.io/delegation`, which marks whose each one is.
    pub team: String,
    /// `Install`: the subjects may create, change and delete the team's ClusterExtensions within
    /// what is listed here. `View`: they may read ClusterExtensions and ClusterCatalogs only.
    pub access: DelegatedAccess,
    /// Who the team is: users, groups and ServiceAccounts, as in `spec.bindings`.
    pub subjects: Vec<SubjectDoc>,
    /// The packages the team may install, each at the versions judged here or at listed ones.
    pub packages: Vec<DelegatedPackageDoc>,
    /// The namespaces a ClusterExtension of the team may install into (`spec.namespace`).
    pub namespaces: Vec<String>,
    /// The ClusterCatalogs it may install from: its selector must name one of them
    /// (`matchLabels: {olm.operatorframework.io/metadata.name: <catalog>}`).
    pub catalogs: Vec<String>,
}

/// What a delegation lets its subjects do with ClusterExtensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum DelegatedAccess {
    View,
    Install,
}

/// A package a team may install, as written.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DelegatedPackageDoc {
    /// The package's name in the catalog (`spec.source.catalog.packageName`).
    pub name: String,
    /// The versions the team may install, each written exactly (`1.2.3`), as ClusterExtensions
    /// must write them. Left out: the version of the bundle judged in this render, when it is
    /// this package's (an error otherwise).
    pub versions: Option<Vec<String>>,
}

/// One team's delegation, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Delegation {
    pub team: String,
    pub access: DelegatedAccess,
    /// Sorted, without duplicates.
    pub subjects: Vec<Subject>,
    pub packages: Vec<DelegatedPackage>,
    pub namespaces: Vec<String>,
    pub catalogs: Vec<String>,
}

/// A package of a delegation, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DelegatedPackage {
    pub name: String,
    /// `None`: the versions judged in the render. Without duplicates, in
    /// the order written.
    pub versions: Option<Vec<String>>,
}

/// Groups that hold every authenticated user or every ServiceAccount: a
/// delegation to one of them is a delegation to everyone.
const EVERYONE: [&str; 2] = ["system:authenticated", "system:serviceaccounts"];

/// Checks `spec.delegations`; the usable entries.
pub(super) fn check_delegations(
    docs: Option<Vec<DelegationDoc>>,
    err: &mut impl FnMut(&str, String),
) -> Vec<Delegation> {
    let Some(docs) = docs else { return Vec::new() };
    let mut out: Vec<Delegation> = Vec::new();
    for (i, doc) in docs.into_iter().enumerate() {
        let field = format!("spec.delegations[{i}]");
        let mut fail = |f: String, m: String| err(&f, m);
        if !is_dns1123_label(&doc.team) {
            fail(
                format!("{field}.team"),
                format!("{:?} is not a DNS label (lowercase letters, digits and '-', at most 63)", doc.team),
            );
        } else if out.iter().any(|d| d.team == doc.team) {
            fail(format!("{field}.team"), format!("{:?} is delegated twice; one entry per team", doc.team));
        }
        let subjects = check_subjects(&doc.subjects, &field, &mut fail);
        let packages = check_packages(doc.packages, &field, &mut fail);
        let namespaces =
            check_names(doc.namespaces, &format!("{field}.namespaces"), "namespace", is_dns1123_label, &mut fail);
        let catalogs =
            check_names(doc.catalogs, &format!("{field}.catalogs"), "ClusterCatalog", is_dns1123_subdomain, &mut fail);
        out.push(Delegation { team: doc.team, access: doc.access, subjects, packages, namespaces, catalogs });
    }
    out
}

fn check_subjects(docs: &[SubjectDoc], field: &str, fail: &mut impl FnMut(String, String)) -> Vec<Subject> {
    if docs.is_empty() {
        fail(format!("{field}.subjects"), "must name at least one user, group or ServiceAccount".into());
    }
    let mut subjects = Vec::new();
    for (j, s) in docs.iter().enumerate() {
        let sf = format!("{field}.subjects[{j}]");
        if s.kind == SubjectKind::Group && EVERYONE.contains(&s.name.as_str()) {
            fail(
                format!("{sf}.name"),
                format!("Group {:?} holds every {}: a delegation to it hands installing operators to all of them; name the team's own group", s.name, if s.name == EVERYONE[0] { "authenticated user" } else { "ServiceAccount" }),
            );
            continue;
        }
        if s.kind == SubjectKind::Group && s.name.starts_with("system:serviceaccounts:") {
            fail(
                format!("{sf}.name"),
                format!("Group {:?} holds every ServiceAccount of a namespace, present and future, an operator's own included: name the accounts", s.name),
            );
            continue;
        }
        if let Some(subject) = check_subject(s, &sf, fail) {
            subjects.push(subject);
        }
    }
    subjects.sort();
    subjects.dedup();
    subjects
}

fn check_packages(
    docs: Vec<DelegatedPackageDoc>,
    field: &str,
    fail: &mut impl FnMut(String, String),
) -> Vec<DelegatedPackage> {
    if docs.is_empty() {
        fail(format!("{field}.packages"), "must name at least one package; there is no \"every package\"".into());
    }
    let mut packages: Vec<DelegatedPackage> = Vec::new();
    for (j, p) in docs.into_iter().enumerate() {
        let pf = format!("{field}.packages[{j}]");
        if !is_package_name(&p.name) {
            fail(format!("{pf}.name"), format!("{:?} is not a package name", p.name));
        } else if packages.iter().any(|q| q.name == p.name) {
            fail(format!("{pf}.name"), format!("{:?} is listed twice", p.name));
        }
        if let Some(versions) = &p.versions {
            if versions.is_empty() {
                fail(format!("{pf}.versions"), "is empty, which would mean no version, or every one; list versions, or leave the field out for the version judged here".into());
            }
            for (k, v) in versions.iter().enumerate() {
                if let Some(why) = exact_version_problem(v) {
                    fail(format!("{pf}.versions[{k}]"), why);
                }
            }
        }
        let versions = p.versions.map(|mut vs| {
            let mut seen = std::collections::BTreeSet::new();
            vs.retain(|v| seen.insert(v.clone()));
            vs
        });
        packages.push(DelegatedPackage { name: p.name, versions });
    }
    packages
}

/// Why a listed version is not one exact version written as a
/// ClusterExtension must write it; `None` when it is.
fn exact_version_problem(written: &str) -> Option<String> {
    Version::parse_exact(written).err().map(|e| e.to_string())
}

fn check_names(
    names: Vec<String>,
    field: &str,
    what: &str,
    valid: fn(&str) -> bool,
    fail: &mut impl FnMut(String, String),
) -> Vec<String> {
    if names.is_empty() {
        fail(field.to_string(), format!("must name at least one {what}; there is no \"every {what}\""));
    }
    for (k, n) in names.iter().enumerate() {
        if !valid(n) {
            fail(format!("{field}[{k}]"), format!("{n:?} is not a {what} name (wildcards are not read)"));
        }
    }
    let mut names = names;
    names.sort();
    names.dedup();
    names
}
