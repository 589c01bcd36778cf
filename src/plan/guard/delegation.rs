//! Delegated installs (`spec.delegations`): per team, a ClusterRole and its
//! binding that let the team's subjects read ClusterExtensions and
//! ClusterCatalogs (and, with `Install`, write ClusterExtensions), and one
//! `ValidatingAdmissionPolicy` that refuses them any ClusterExtension outside
//! what their team was given (`admission`).
//!
//! The versions a team may install are, unless listed, the version of the
//! bundle judged in this render: the install policy passed it (a render
//! whose bundle fails writes nothing), and it is that package's by its own
//! declaration, which is what the catalog files it under. A package with no
//! judged version and no list is an error; listed versions this render did
//! not judge are a warning, as they rest on the admin's word alone.

use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, RoleRef};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::config::{Config, DelegatedAccess, Delegation};
use crate::findings::{Code, Finding};
use crate::model::*;
use crate::plan::apis::bind::k8s_subject;

use crate::plan::apis::roles::{generated_labels, strings};
use crate::plan::facts::input::Planning;
use crate::plan::types::{About, Made, Object};
use crate::semver::Version;

mod admission;

/// The admission policy's name, and its binding's: one for every delegation
/// on the cluster, so that a user in two teams is held to the team the
/// ClusterExtension names, not to both.
pub(crate) const POLICY_NAME: &str = "olm-rbac-delegated-installs";

/// What a team may install: each package with its versions, as the
/// admission policy compares them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Grant<'a> {
    pub delegation: &'a Delegation,
    /// Its place in `spec.delegations`, for results.
    pub index: usize,
    pub packages: Vec<(&'a str, Vec<String>)>,
}

/// What was judged here: the package (declared by the bundle, or under
/// `render --judged-catalog` by the catalog: `pinning::bundle_package`, the
/// one place that decides it), the bundle's version, every version of the
/// judged catalog's range that passed with this config, and whether an
/// install policy judged them.
struct Judged {
    package: Option<String>,
    version: Option<String>,
    /// The judged catalog's passing versions of the package, each written
    /// exactly (`render --judged-catalog`); empty otherwise.
    range: Vec<String>,
    policy: bool,
}

impl Judged {
    fn of(p: &Planning<'_>) -> Judged {
        let version = crate::plan::guard::pinning::bundle_version(p);
        let package = crate::plan::guard::pinning::bundle_package(p)
            .filter(|(_, declared)| *declared)
            .map(|(package, _)| package);
        let range = p
            .input
            .judged_range
            .filter(|range| package.as_deref() == Some(range.package.as_str()))
            .map(|range| range.passed.iter().filter_map(|(_, v)| Some(Version::parse_exact(v).ok()?.exact())).collect())
            .unwrap_or_default();
        Judged { package, version: version.map(|v| v.exact()), range, policy: p.config.operator.policy.is_some() }
    }

    /// The judged version of the bundle here, when it is of `package`.
    fn version_of(&self, package: &str) -> Option<&str> {
        (self.policy && self.package.as_deref() == Some(package)).then_some(self.version.as_deref()).flatten()
    }

    /// Every version of `package` judged here: the bundle's, and those of
    /// the judged catalog's range.
    fn versions_of(&self, package: &str) -> Vec<String> {
        let mut versions: Vec<String> = self.version_of(package).into_iter().map(str::to_string).collect();
        if self.policy && self.package.as_deref() == Some(package) {
            versions.extend(self.range.iter().filter(|v| !versions.contains(v)).cloned().collect::<Vec<_>>());
        }
        versions
    }

    /// Why `package` has no judged version here.
    fn why_not(&self, package: &str) -> String {
        if !self.policy {
            return "no install policy judged the bundle here (spec.operator.policy)".to_string();
        }
        match (&self.package, &self.version) {
            (None, _) => "the bundle judged here declares no package (its metadata/annotations.yaml, when its root folder is rendered, or its ClusterServiceVersion's operators.operatorframework.io.bundle.package.v1 annotation), and no judged catalog names it (render --judged-catalog)".to_string(),
            (Some(judged), _) if judged != package => format!("the bundle judged here is package {judged:?}"),
            _ => "the bundle judged here has no semantic spec.version written canonically (as 1.2.3)".to_string(),
        }
    }
}

/// The delegations' objects, with a result per team.
/// A team given the right to install the bundle judged here gets nothing
/// from it when OLM v1 refuses that bundle (and OLM does not fall back): said
/// once per team and package, with OLM's reason.
fn warn_uninstallable(p: &Planning<'_>, judged: &Judged, results: &mut Vec<Finding>) {
    let Some((_, refusals)) = p.olm_v1_refusals() else { return };
    let why = match refusals.first() {
        Some(first) => format!(
            "which OLM v1 will not install {}{}",
            first.reason(),
            match refusals.len() - 1 {
                0 => String::new(),
                more => format!(" (and {more} more reason(s))"),
            }
        ),
        None if single_namespace_only(p) => "which a delegated install cannot configure: the bundle supports SingleNamespace and neither AllNamespaces nor OwnNamespace, so OLM v1 installs it only watching another namespace than its own, a spec.config the delegation policy refuses; a cluster-admin installs it".to_string(),
        None => return,
    };
    for (i, d) in p.config.delegations.iter().enumerate() {
        for (j, package) in d.packages.iter().enumerate() {
            let Some(version) = judged.version_of(&package.name) else { continue };
            if d.access != DelegatedAccess::Install {
                continue;
            }
            results.push(
                Finding::warning(
                    Code::Uninstallable,
                    format!("team {} may install {} {version}, {why}", d.team, package.name),
                )
                .on(&p.config.object_ref())
                .at(format!("spec.delegations[{i}].packages[{j}]")),
            );
        }
    }
}

/// Whether the judged bundle installs only watching another namespace than
/// its own (SingleNamespace alone of the modes OLM v1 installs).
fn single_namespace_only(p: &Planning<'_>) -> bool {
    use crate::model::InstallMode::*;
    p.csv().is_some_and(|(_, view)| {
        view.spec.supports(SingleNamespace) && !view.spec.supports(AllNamespaces) && !view.spec.supports(OwnNamespace)
    })
}

/// The delegations' objects and results; the grants, when every one could
/// be decided (and the objects are written).
pub(crate) fn delegation_step<'a>(p: &Planning<'a>, results: &mut Vec<Finding>) -> (Vec<Made>, Vec<Grant<'a>>) {
    let config = p.config;
    if config.delegations.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let judged = Judged::of(p);
    warn_uninstallable(p, &judged, results);
    let mut grants = Vec::new();
    let mut complete = true;
    for (i, d) in config.delegations.iter().enumerate() {
        let mut packages = Vec::new();
        for (j, package) in d.packages.iter().enumerate() {
            let field = format!("spec.delegations[{i}].packages[{j}].versions");
            let here = judged.versions_of(&package.name);
            let versions = match (&package.versions, here.is_empty()) {
                (Some(listed), _) => {
                    let unjudged: Vec<&str> =
                        listed.iter().map(String::as_str).filter(|v| !here.iter().any(|h| h == v)).collect();
                    if !unjudged.is_empty() {
                        results.push(
                            Finding::warning(Code::DelegationUnjudged, format!(
                                "{} of {} {} not judged in this render ({}): team {} may install {} on this config's word alone; judge every bundle it lists (olm-rbac catalog judge), or leave the field out for the version judged here",
                                unjudged.join(", "),
                                package.name,
                                if unjudged.len() == 1 { "was" } else { "were" },
                                judged.why_not(&package.name).replace("the bundle judged here is", "it judged"),
                                d.team,
                                if unjudged.len() == 1 { "it" } else { "them" },
                            ))
                            .on(&config.object_ref())
                            .at(field),
                        );
                    }
                    listed.clone()
                }
                (None, false) => here,
                (None, true) => {
                    complete = false;
                    results.push(
                        Finding::error(Code::DelegationUnjudged, format!(
                            "is left out, so team {} may install the versions of {} judged here, and there are none: {}; render the package's bundle with this config, or list the versions",
                            d.team,
                            package.name,
                            judged.why_not(&package.name)
                        ))
                        .on(&config.object_ref())
                        .at(field),
                    );
                    continue;
                }
            };
            packages.push((package.name.as_str(), versions));
        }
        grants.push(Grant { delegation: d, index: i, packages });
    }
    if !complete {
        return (Vec::new(), Vec::new());
    }
    let mut made = Vec::new();
    for grant in &grants {
        made.extend(team_objects(config, grant.delegation));
        results.push(Finding::info(Code::Summary, describe(grant)).on(&config.object_ref()).at("spec.delegations"));
    }
    let installers: Vec<&Grant<'_>> =
        grants.iter().filter(|g| g.delegation.access == DelegatedAccess::Install).collect();
    if !installers.is_empty() {
        made.extend(admission::objects(config, &installers));
    }
    (made, grants)
}

/// What a team may do, in a result.
fn describe(grant: &Grant<'_>) -> String {
    let d = grant.delegation;
    let who: Vec<String> = d.subjects.iter().map(ToString::to_string).collect();
    match d.access {
        DelegatedAccess::View => {
            format!("team {} ({}) may read ClusterExtensions and ClusterCatalogs", d.team, who.join(", "))
        }
        DelegatedAccess::Install => {
            let what: Vec<String> = grant.packages.iter().map(|(p, vs)| format!("{p} {}", vs.join(" or "))).collect();
            format!(
                "team {} ({}) may install {} into {} from {}, each ClusterExtension labelled {DELEGATION_LABEL}: {}",
                d.team,
                who.join(", "),
                what.join("; "),
                listing("namespace", &d.namespaces),
                listing("ClusterCatalog", &d.catalogs),
                d.team
            )
        }
    }
}

fn listing(what: &str, names: &[String]) -> String {
    format!("{what}{} {}", if names.len() == 1 { "" } else { "s" }, names.join(", "))
}

/// The team's ClusterRole and ClusterRoleBinding.
fn team_objects(config: &Config, d: &Delegation) -> [Made; 2] {
    let name = crate::plan::names::delegate(&d.team);
    let metadata = || ObjectMeta {
        name: Some(name.clone()),
        labels: Some(generated_labels(&config.extension, DELEGATION_ROLE)),
        ..Default::default()
    };
    let mut extension_verbs = vec!["get", "list", "watch"];
    if d.access == DelegatedAccess::Install {
        extension_verbs.extend(["create", "update", "patch", "delete"]);
    }
    let rule = |resource: &str, verbs: &[&str]| PolicyRule {
        api_groups: Some(strings(&[OLM_V1_GROUP])),
        resources: Some(strings(&[resource])),
        verbs: strings(verbs),
        ..Default::default()
    };
    let role = ClusterRole {
        metadata: metadata(),
        rules: Some(vec![
            rule("clusterextensions", &extension_verbs),
            rule("clustercatalogs", &["get", "list", "watch"]),
        ]),
        aggregation_rule: None,
    };
    let binding = ClusterRoleBinding {
        metadata: metadata(),
        role_ref: RoleRef { api_group: RBAC_GROUP.to_string(), kind: "ClusterRole".to_string(), name: name.clone() },
        subjects: Some(d.subjects.iter().map(k8s_subject).collect()),
    };
    [(About::Delegation, Object::ClusterRole(role)), (About::Delegation, Object::ClusterRoleBinding(binding))]
}
