//! The delegations' admission policy: one `ValidatingAdmissionPolicy` (CEL
//! only) and its binding, matching CREATE, UPDATE and DELETE of
//! ClusterExtensions by a subject of a team that may install. The
//! ClusterExtension's label `olm-rbac.io/delegation` says whose it is: a user
//! may write only ClusterExtensions labelled with a team of theirs (before
//! and after the change), and each team's limits hold for the
//! ClusterExtensions labelled with it. Every message names the field and
//! what is allowed.

use std::collections::BTreeMap;

use crate::config::{Config, Subject};
use crate::model::*;

use super::{Grant, POLICY_NAME};
use crate::plan::guard::pinning::CATALOG_NAME_LABEL;
use crate::plan::guard::policy::{cel_string, policy_and_binding, PolicyDraft};
use crate::plan::{About, Made};

/// The annotation earlier OLM v1 releases read a ClusterExtension's watch
/// namespace from.
const WATCH_NAMESPACE_ANNOTATION: &str = "olm.operatorframework.io/watch-namespace";

const HAS_CATALOG: &str = "has(object.spec.source) && has(object.spec.source.catalog)";
const CATALOG: &str = "object.spec.source.catalog";

/// Whether the request's user is one of `subjects`: by name (users, and
/// ServiceAccounts by their username) or by a group.
pub(crate) fn membership(subjects: &[Subject]) -> String {
    let mut users = Vec::new();
    let mut groups = Vec::new();
    for s in subjects {
        match (s.kind, s.account()) {
            (SubjectKind::Group, _) => groups.push(cel_string(&s.name)),
            (_, Some(account)) => users.push(cel_string(&account.username())),
            _ => users.push(cel_string(&s.name)),
        }
    }
    let mut parts = Vec::new();
    if !users.is_empty() {
        parts.push(format!("request.userInfo.username in [{}]", users.join(", ")));
    }
    if !groups.is_empty() {
        parts.push(format!(
            "(has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in [{}]))",
            groups.join(", ")
        ));
    }
    parts.join(" || ")
}

fn list(items: &[&str]) -> String {
    items.iter().map(|i| cel_string(i)).collect::<Vec<_>>().join(", ")
}

/// The CEL of the policy: its match condition, its variables (name,
/// expression) and its validations (expression, message).
pub(crate) struct Rules {
    pub condition: String,
    pub variables: Vec<(String, String)>,
    pub validations: Vec<(String, String)>,
}

/// The policy's CEL for the teams that may install.
pub(crate) fn rules(grants: &[&Grant<'_>]) -> Rules {
    let label = cel_string(DELEGATION_LABEL);
    let teams: Vec<&str> = grants.iter().map(|g| g.delegation.team.as_str()).collect();
    let condition =
        grants.iter().map(|g| format!("({})", membership(&g.delegation.subjects))).collect::<Vec<_>>().join(" || ");
    let mut variables = vec![
        (
            "team".to_string(),
            format!("request.operation != 'DELETE' && has(object.metadata.labels) && {label} in object.metadata.labels ? object.metadata.labels[{label}] : ''"),
        ),
        (
            "owner".to_string(),
            format!("request.operation != 'CREATE' && has(oldObject.metadata.labels) && {label} in oldObject.metadata.labels ? oldObject.metadata.labels[{label}] : ''"),
        ),
    ];
    for (i, g) in grants.iter().enumerate() {
        variables.push((format!("member{i}"), membership(&g.delegation.subjects)));
    }
    let of_yours = |variable: &str| {
        (0..grants.len())
            .map(|i| format!("(variables.{variable} == {} && variables.member{i})", cel_string(teams[i])))
            .collect::<Vec<_>>()
            .join(" || ")
    };
    let mut validations = vec![
        (
            format!("request.operation == 'DELETE' || {}", of_yours("team")),
            format!(
                "metadata.labels[\"{DELEGATION_LABEL}\"] must name the team the ClusterExtension is installed for, one you are in (teams that may install: {})",
                teams.join(", ")
            ),
        ),
        (
            format!("request.operation == 'CREATE' || {}", of_yours("owner")),
            format!("this ClusterExtension is not your team's (its label {DELEGATION_LABEL} before the change names another team, or none): only its team, or a cluster-admin, may change or delete it"),
        ),
        (
            format!("request.operation == 'DELETE' || !({HAS_CATALOG}) || !has({CATALOG}.upgradeConstraintPolicy) || {CATALOG}.upgradeConstraintPolicy != 'SelfCertified'"),
            "spec.source.catalog.upgradeConstraintPolicy must not be SelfCertified: it installs versions outside the catalog's upgrade edges, which the delegation did not judge; leave it out (CatalogProvided)".to_string(),
        ),
        (
            "request.operation == 'DELETE' || !has(object.spec.config)".to_string(),
            "spec.config must not be set: a delegated install runs the bundle as judged, in the install mode and deployment it ships; its watch namespace and deployment settings are a cluster-admin's to change".to_string(),
        ),
        (
            format!("request.operation == 'DELETE' || !has(object.metadata.annotations) || !({} in object.metadata.annotations)", cel_string(WATCH_NAMESPACE_ANNOTATION)),
            format!("metadata.annotations[\"{WATCH_NAMESPACE_ANNOTATION}\"] must not be set: earlier OLM v1 releases read the watch namespace from it"),
        ),
        (
            "request.operation == 'DELETE' || !has(object.spec.install) || !has(object.spec.install.preflight) || !has(object.spec.install.preflight.crdUpgradeSafety) || !has(object.spec.install.preflight.crdUpgradeSafety.enforcement) || object.spec.install.preflight.crdUpgradeSafety.enforcement != 'None'".to_string(),
            "spec.install.preflight.crdUpgradeSafety.enforcement must not be None: a delegated install may not switch off the CRD upgrade safety checks; leave it out (Strict)".to_string(),
        ),
    ];
    for g in grants {
        validations.extend(team_rules(g));
    }
    Rules { condition, variables, validations }
}

/// One team's limits, holding for the ClusterExtensions labelled with it.
fn team_rules(g: &Grant<'_>) -> Vec<(String, String)> {
    let d = g.delegation;
    let team = &d.team;
    let guard = format!("request.operation == 'DELETE' || variables.team != {} || ", cel_string(team));
    let packages: Vec<&str> = g.packages.iter().map(|(p, _)| *p).collect();
    let versions = g
        .packages
        .iter()
        .map(|(p, vs)| {
            let vs: Vec<&str> = vs.iter().map(String::as_str).collect();
            format!("({CATALOG}.packageName == {} && {CATALOG}.version in [{}])", cel_string(p), list(&vs))
        })
        .collect::<Vec<_>>()
        .join(" || ");
    let allowed_versions =
        g.packages.iter().map(|(p, vs)| format!("{p} {}", vs.join(" or "))).collect::<Vec<_>>().join("; ");
    let namespaces: Vec<&str> = d.namespaces.iter().map(String::as_str).collect();
    let catalogs: Vec<&str> = d.catalogs.iter().map(String::as_str).collect();
    let name_label = cel_string(CATALOG_NAME_LABEL);
    let selector = format!("{CATALOG}.selector.matchLabels");
    vec![
        (
            format!("{guard}({HAS_CATALOG} && has({CATALOG}.packageName) && {CATALOG}.packageName in [{}])", list(&packages)),
            format!("team {team} may install only {} (spec.source.catalog.packageName)", packages.join(", ")),
        ),
        (
            format!("{guard}({HAS_CATALOG} && has({CATALOG}.packageName) && has({CATALOG}.version) && ({versions}))"),
            format!("team {team} may install only {allowed_versions}, each version written exactly (spec.source.catalog.version): a range or another version would install bundles nobody judged"),
        ),
        (
            format!("{guard}(has(object.spec.namespace) && object.spec.namespace in [{}])", list(&namespaces)),
            format!(
                "team {team} may install only into namespace{} {} (spec.namespace)",
                if namespaces.len() == 1 { "" } else { "s" },
                namespaces.join(", ")
            ),
        ),
        (
            format!("{guard}({HAS_CATALOG} && has({CATALOG}.selector) && has({selector}) && {name_label} in {selector} && {selector}[{name_label}] in [{}])", list(&catalogs)),
            format!(
                "team {team} may install only from ClusterCatalog {}: spec.source.catalog.selector.matchLabels must name it ({CATALOG_NAME_LABEL}: {})",
                catalogs.join(", "),
                catalogs[0]
            ),
        ),
    ]
}

/// What each team may install, for `diff` to ask the policy about: team,
/// subjects, packages with their versions, namespaces, catalogs.
fn annotation(grants: &[&Grant<'_>]) -> String {
    let teams: Vec<DelegatedTeam> = grants
        .iter()
        .map(|g| {
            let d = g.delegation;
            let subjects = d
                .subjects
                .iter()
                .map(|s| DelegatedSubject {
                    kind: s.kind.as_str().into(),
                    name: s.name.clone(),
                    namespace: s.namespace.clone(),
                })
                .collect();
            let packages = g.packages.iter().map(|(p, vs)| (p.to_string(), vs.clone())).collect();
            DelegatedTeam {
                team: d.team.clone(),
                subjects,
                packages,
                namespaces: d.namespaces.clone(),
                catalogs: d.catalogs.clone(),
            }
        })
        .collect();
    serde_json::to_string(&teams).unwrap_or_default()
}

/// The policy and its binding.
pub(super) fn objects(config: &Config, grants: &[&Grant<'_>]) -> [Made; 2] {
    let Rules { condition, variables, validations } = rules(grants);
    let draft = PolicyDraft {
        name: POLICY_NAME.to_string(),
        role: DELEGATION_ROLE,
        about: About::Delegation,
        resource: "clusterextensions",
        operations: &["CREATE", "UPDATE", "DELETE"],
        condition: ("delegated-subjects", condition),
        variables,
        validations,
        annotations: Some(BTreeMap::from([(DELEGATIONS_ANNOTATION.to_string(), annotation(grants))])),
    };
    policy_and_binding(config, draft)
}
