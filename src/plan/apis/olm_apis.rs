//! OLM's own APIs (`spec.olmAPIs`): the roles that let the holders of the
//! levels read OLM's objects (and, with `Edit`, write Subscriptions), as OLM
//! v0's `aggregate-olm-view` and `aggregate-olm-edit` ClusterRoles do, plus
//! reading OLM v1's ClusterExtensions and ClusterCatalogs.
//!
//! The roles belong to the extension: `<extension>-olm-view`,
//! `<extension>-olm-discovery` and `<extension>-olm-edit`, labelled like every
//! generated object, so that two extensions never write the same object and
//! each one's roles are removed with its other earlier output. They are
//! generated with the per-API roles (aggregated into the built-in roles, or
//! bound by `bind`), conflict-checked by `conflicts` and recognised as earlier
//! output by `provenance` through [`check_claim`]. Their rules are fixed here:
//! nothing in the input changes them, and they carry no aggregation rule.

use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::config::{Config, Mode, OlmApis, RoleKind};
use crate::findings::{Code, Finding};
use crate::model::*;

use crate::plan::apis::roles::{generated_cluster_role, metadata, strings};
use crate::plan::types::{About, Made, Object, OlmRole};

/// OLM v0's API group, and the group its package server serves PackageManifests in.
const OPERATORS: &str = "operators.coreos.com";
const PACKAGES: &str = "packages.operators.coreos.com";

impl OlmRole {
    const ALL: [OlmRole; 3] = [OlmRole::View, OlmRole::Discovery, OlmRole::Edit];

    /// The `olm-rbac.io/role` label's value.
    pub(crate) fn label(self) -> &'static str {
        match self {
            OlmRole::View => "olm-view",
            OlmRole::Discovery => "olm-discovery",
            OlmRole::Edit => "olm-edit",
        }
    }

    /// The role a label value names, if it is one of these.
    pub(crate) fn of_label(value: &str) -> Option<OlmRole> {
        OlmRole::ALL.into_iter().find(|r| r.label() == value)
    }

    /// `<extension>-olm-view`: the ClusterRole's name, and its bindings'.
    pub(crate) fn name(self, extension: &str) -> String {
        crate::plan::names::olm_api_role(extension, self.label())
    }

    /// The built-in role it aggregates into in Aggregate mode (and, through
    /// Kubernetes' own labels, view into edit into admin).
    fn aggregates_to(self) -> AggregatingRole {
        match self {
            OlmRole::View | OlmRole::Discovery => AggregatingRole::View,
            OlmRole::Edit => AggregatingRole::Edit,
        }
    }

    /// Whether its rules are on cluster-scoped resources only, which only a
    /// ClusterRoleBinding grants.
    pub(crate) fn cluster_scoped(self) -> bool {
        self == OlmRole::Discovery
    }

    /// The rules it grants.
    pub(crate) fn rules(self) -> Vec<PolicyRule> {
        let rule = |group: &str, resources: &[&str], verbs: &[&str]| PolicyRule {
            api_groups: Some(strings(&[group])),
            resources: Some(strings(resources)),
            verbs: strings(verbs),
            ..Default::default()
        };
        match self {
            OlmRole::View => vec![
                rule(
                    OPERATORS,
                    &["clusterserviceversions", "catalogsources", "installplans", "subscriptions", "operatorgroups"],
                    &READ,
                ),
                rule(PACKAGES, &["packagemanifests", "packagemanifests/icon"], &READ),
            ],
            OlmRole::Discovery => vec![rule(OLM_V1_GROUP, &["clusterextensions", "clustercatalogs"], &READ)],
            OlmRole::Edit => vec![
                rule(OPERATORS, &["subscriptions"], &EDIT),
                rule(
                    OPERATORS,
                    &["clusterserviceversions", "catalogsources", "installplans", "subscriptions"],
                    &["delete"],
                ),
            ],
        }
    }
}

/// The roles `spec.olmAPIs` asks for.
fn roles_for(olm: OlmApis) -> Vec<OlmRole> {
    match olm {
        OlmApis::Unmanaged => Vec::new(),
        OlmApis::View => vec![OlmRole::View, OlmRole::Discovery],
        OlmApis::Edit => OlmRole::ALL.to_vec(),
    }
}

/// The roles a binding of `level` gets in Bind mode: every level reads;
/// `edit` and `admin` also write, under `Edit`.
pub(crate) fn bound_with(olm: OlmApis, level: RoleKind) -> Vec<OlmRole> {
    let writes = matches!(level, RoleKind::Admin | RoleKind::Edit);
    roles_for(olm).into_iter().filter(|r| *r != OlmRole::Edit || writes).collect()
}

/// The ClusterRoles `spec.olmAPIs` asks for, aggregated in Aggregate mode.
pub(crate) fn cluster_roles(config: &Config) -> Vec<Made> {
    roles_for(config.olm_apis)
        .into_iter()
        .map(|role| {
            let (metadata, name) = (metadata(config, None, role.label()), role.name(&config.extension));
            let object = generated_cluster_role(config, metadata, name, role.aggregates_to(), role.rules());
            (About::Olm(role), Object::ClusterRole(object))
        })
        .collect()
}

/// Says what was generated for OLM's APIs and, under `Edit`, what it lets
/// its holders do.
pub(crate) fn report(config: &Config, generated: &[Made], results: &mut Vec<Finding>) {
    if config.olm_apis == OlmApis::Unmanaged {
        return;
    }
    let cfg = config.object_ref();
    let written: Vec<String> =
        generated.iter().filter(|(about, _)| matches!(about, About::Olm(_))).map(|(_, o)| o.describe()).collect();
    let how = match config.mode {
        Mode::Aggregate => "aggregated into the built-in view (read) and edit (write) roles",
        _ => "bound where spec.bindings binds the extension's roles",
    };
    results.push(
        Finding::info(
            Code::Summary,
            format!(
                "extension {:?}: OLM's own APIs (olmAPIs: {}): generated {}, {how}",
                config.extension,
                config.olm_apis.as_str(),
                written.join(", ")
            ),
        )
        .on(&cfg),
    );
    if config.olm_apis == OlmApis::Edit {
        let who = match config.mode {
            Mode::Aggregate => "everyone who holds the built-in edit or admin role",
            _ => "the subjects of every binding with role edit or admin",
        };
        results.push(
            Finding::warning(Code::OlmApisInstall, format!(
                "olmAPIs: Edit lets {who} create Subscriptions where they hold it, that is install operators from the cluster's catalogs; OLM then grants each such operator the permissions its ClusterServiceVersion asks for, which can be far more than its installer holds. Use View unless they may install operators"
            ))
            .on(&cfg)
            .at("spec.olmAPIs"),
        );
    }
}

/// Whether an item claiming to be `extension`'s output for `role` has the
/// shape olm-rbac writes: the role under its name with exactly its rules and
/// at most its own aggregation label, or a binding of that role (a
/// RoleBinding only for a role on namespaced resources).
pub(crate) fn check_claim(o: &InputObject, role: OlmRole, extension: &str) -> Result<(), String> {
    let name = role.name(extension);
    let rbac = |kind: &str| o.is(RBAC_GROUP, kind);
    match &o.body {
        Body::Role(view) if rbac("ClusterRole") => {
            let rules: Vec<PolicyRule> = view.rules.iter().map(RuleView::to_policy_rule).collect();
            if o.header.name.as_deref() != Some(name.as_str()) || view.aggregates() || rules != role.rules() {
                return Err(format!("it is not the ClusterRole {name} olm-rbac writes for OLM's own APIs"));
            }
            let allowed = role.aggregates_to().label();
            if o.header.labels.iter().any(|(k, v)| k.starts_with(AGGREGATE_PREFIX) && (*k != allowed || v != "true")) {
                return Err(format!("it has aggregation labels olm-rbac does not write on {name}"));
            }
            Ok(())
        }
        Body::Binding(view) if rbac("ClusterRoleBinding") || (rbac("RoleBinding") && !role.cluster_scoped()) => {
            let kind = view.role_ref.kind.as_deref().and_then(RoleRefKind::parse);
            if kind != Some(RoleRefKind::ClusterRole) || view.role_ref.name.as_deref() != Some(name.as_str()) {
                return Err(format!("it does not bind the ClusterRole {name}"));
            }
            Ok(())
        }
        _ => Err("olm-rbac writes only ClusterRoles and bindings for OLM's own APIs".into()),
    }
}
