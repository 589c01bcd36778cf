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
use crate::plan::guard::cel::{self, Cel};
use crate::plan::guard::pinning::CATALOG_NAME_LABEL;
use crate::plan::guard::policy::{policy_and_binding, PolicyDraft};
use crate::plan::types::{About, Made};

/// Whether the request's user is one of `subjects`: by name (users, and
/// ServiceAccounts by their username) or by a group.
pub(crate) fn membership(subjects: &[Subject]) -> String {
    let mut users: Vec<String> = Vec::new();
    let mut groups: Vec<String> = Vec::new();
    for s in subjects {
        match (s.kind, s.account()) {
            (SubjectKind::Group, _) => groups.push(Cel::string(&s.name).into()),
            (_, Some(account)) => users.push(Cel::string(&account.username()).into()),
            _ => users.push(Cel::string(&s.name).into()),
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

/// The CEL of the policy: its match condition, its variables (name,
/// expression) and its validations (expression, message).
pub(crate) struct Rules {
    pub condition: String,
    pub variables: Vec<(String, String)>,
    pub validations: Vec<(String, String)>,
}

/// The policy's CEL for the teams that may install. With `own_watch` (the
/// cluster's OLM installs OwnNamespace bundles), a ClusterExtension may have
/// its operator watch its own install namespace and nothing else: never more
/// than the AllNamespaces install judged, and what an OwnNamespace bundle
/// needs.
pub(crate) fn rules(grants: &[&Grant<'_>], own_watch: bool) -> Rules {
    let label = Cel::string(DELEGATION_LABEL);
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
            .map(|i| format!("(variables.{variable} == {} && variables.member{i})", Cel::string(teams[i])))
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
            unless_deleting(cel::not_self_certified()),
            "spec.source.catalog.upgradeConstraintPolicy must not be SelfCertified: it installs versions outside the catalog's upgrade edges, which the delegation did not judge; leave it out (CatalogProvided)".to_string(),
        ),
        match own_watch {
            false => (
                unless_deleting(cel::no_config()),
                "spec.config must not be set: a delegated install runs the bundle as judged, in the install mode and deployment it ships; its watch namespace and deployment settings are a cluster-admin's to change".to_string(),
            ),
            true => (
                unless_deleting(cel::no_config_or_own_watch()),
                "spec.config must be left out, or be exactly {configType: Inline, inline: {watchNamespace: <spec.namespace>}}: a delegated install runs the bundle as judged or watching its own namespace; other settings are a cluster-admin's to change".to_string(),
            ),
        },
        (
            unless_deleting(cel::no_watch_namespace_annotation()),
            format!("metadata.annotations[\"{}\"] must not be set: earlier OLM v1 releases read the watch namespace from it", cel::WATCH_NAMESPACE_ANNOTATION),
        ),
        (
            unless_deleting(cel::crd_upgrade_safety_on()),
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
    let theirs = |rule: Cel| {
        format!("request.operation == 'DELETE' || variables.team != {} || {}", Cel::string(team), rule.grouped())
    };
    let packages: Vec<&str> = g.packages.iter().map(|(p, _)| *p).collect();
    let versions = g.packages.iter().map(|(p, vs)| (*p, vs.iter().map(String::as_str).collect()));
    let allowed_versions =
        g.packages.iter().map(|(p, vs)| format!("{p} {}", vs.join(" or "))).collect::<Vec<_>>().join("; ");
    let namespaces: Vec<&str> = d.namespaces.iter().map(String::as_str).collect();
    let catalogs: Vec<&str> = d.catalogs.iter().map(String::as_str).collect();
    vec![
        (
            theirs(cel::package_in(packages.iter().copied())),
            format!("team {team} may install only {} (spec.source.catalog.packageName)", packages.join(", ")),
        ),
        (
            theirs(cel::package_versions(versions)),
            format!("team {team} may install only {allowed_versions}, each version written exactly (spec.source.catalog.version): a range or another version would install bundles nobody judged"),
        ),
        (
            theirs(cel::namespace_in(namespaces.iter().copied())),
            format!(
                "team {team} may install only into namespace{} {} (spec.namespace)",
                if namespaces.len() == 1 { "" } else { "s" },
                namespaces.join(", ")
            ),
        ),
        (
            theirs(cel::catalog_in(CATALOG_NAME_LABEL, catalogs.iter().copied())),
            format!(
                "team {team} may install only from ClusterCatalog {}: spec.source.catalog.selector.matchLabels must name it ({CATALOG_NAME_LABEL}: {})",
                catalogs.join(", "),
                catalogs[0]
            ),
        ),
    ]
}

/// A rule that holds for every request but a DELETE.
fn unless_deleting(rule: Cel) -> String {
    format!("request.operation == 'DELETE' || {rule}")
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
    let own_watch = crate::config::FeatureGate::single_own_namespace(&config.olm_feature_gates);
    let Rules { condition, variables, validations } = rules(grants, own_watch);
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
