//! `RBACConfig`: the function's configuration, as written and as validated.
//!
//! The parts, by what each decides: `doc` is the document as written and its
//! JSON Schema; this file is the validated `Config` and the checks of
//! `spec`'s scalar fields; `bindings` is `spec.bindings` and the label
//! selectors; `operator` is `spec.operator` and its install policy;
//! `installer` is `spec.installer`; `configmap` reads kpt's `key=value` form
//! through the same checks.

use crate::findings::{Code, Finding, ObjRef};
use crate::names::{is_dns1123_subdomain, is_label_value, is_package_name};

mod bindings;
mod configmap;
mod delegation;
mod doc;
mod installer;
mod operator;

pub(crate) use crate::model::Operator;
pub(crate) use crate::model::SubjectKind;
use bindings::{check_bindings, check_selector};
pub(crate) use bindings::{Binding, BindingDoc, Scope, Selector, SelectorDoc, Subject};
pub(crate) use delegation::{DelegatedAccess, Delegation, DelegationDoc};
pub use doc::json_schema;
pub(crate) use doc::{
    AdmissionPolicy, BundleObjects, BundleRoles, ConfigMeta, FeatureGate, Mode, Naming, OlmApis, RbacConfigDoc,
    RoleKind, Spec,
};
pub(crate) use installer::{Installer, InstallerDoc, InstallerMode, Olm};
pub(crate) use operator::{InstallPolicy, OperatorDoc, OperatorPermissions, OperatorSpec, PolicyEntry, PolicyScope};

pub(crate) use crate::model::{CONFIG_API_VERSION as API_VERSION, CONFIG_KIND as KIND};

/// A validated configuration: what the pure core works from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Config {
    /// `metadata.name` of the config object, for results that point at it.
    pub name: String,
    pub extension: String,
    /// `spec.package`: the catalog package this config judges, when it names one.
    pub package: Option<String>,
    pub mode: Mode,
    pub cluster_service_version: Option<String>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    /// The roles to provide, without duplicates, in [`RoleKind`] order.
    pub roles: Vec<RoleKind>,
    pub naming: Naming,
    pub output_path: String,
    pub bindings: Vec<Binding>,
    pub bundle_roles: BundleRoles,
    pub strip_bundle_aggregation: bool,
    pub bundle_objects: BundleObjects,
    /// OLM groups the config lets roles grant on (see [`crate::reserved`]).
    pub allow_olm_groups: Vec<String>,
    /// Groups the bundle may serve through owned APIServices.
    pub api_service_groups: Vec<String>,
    /// An input without APIs is expected (see [`Spec::allow_no_apis`]).
    pub allow_no_apis: bool,
    /// `spec.operator`: the operator's own permissions and their policy.
    pub operator: OperatorSpec,
    /// `spec.installer`: the account OLM installs the bundle as.
    pub installer: Option<Installer>,
    /// `spec.olmAPIs`: access to OLM's own APIs for the levels' holders.
    pub olm_apis: OlmApis,
    /// `spec.admissionPolicy`: pin the cluster to the judged bundle.
    pub admission_policy: AdmissionPolicy,
    /// `spec.delegations`: who may install which operator, where.
    pub delegations: Vec<Delegation>,
    /// `spec.olmFeatureGates`: the cluster's OLM, beyond its defaults.
    pub olm_feature_gates: Vec<FeatureGate>,
    /// Read from a ConfigMap: results then point at it.
    pub config_map: bool,
}

impl Config {
    /// A config for `extension` with every default, as a starting point.
    #[cfg(test)]
    pub(crate) fn new(extension: &str, mode: Mode) -> Self {
        Config {
            name: extension.to_string(),
            extension: extension.to_string(),
            package: None,
            mode,
            cluster_service_version: None,
            include: Vec::new(),
            exclude: Vec::new(),
            roles: RoleKind::ALL.to_vec(),
            naming: Naming::Default,
            output_path: default_output_path(extension),
            bindings: Vec::new(),
            bundle_roles: BundleRoles::Use,
            strip_bundle_aggregation: false,
            bundle_objects: BundleObjects::Keep,
            allow_olm_groups: Vec::new(),
            api_service_groups: Vec::new(),
            allow_no_apis: false,
            operator: OperatorSpec::default(),
            installer: None,
            olm_apis: OlmApis::Unmanaged,
            admission_policy: AdmissionPolicy::None,
            olm_feature_gates: Vec::new(),
            delegations: Vec::new(),
            config_map: false,
        }
    }

    /// Does planning with it judge what the bundle grants the operator (the
    /// install gate)? Whenever `spec.operator` says where the operator is
    /// installed, or the config grants the CSV's rules (to the operator, or to
    /// an installer that must hold them): with `permissions: Unmanaged`, OLM
    /// grants them, and that is the OLM v1 default the docs recommend.
    pub(crate) fn judges_operator_grants(&self) -> bool {
        let op = &self.operator;
        op.permissions != OperatorPermissions::Unmanaged
            || op.install_namespace.is_some()
            || op.policy.is_some()
            || self.installer.is_some()
    }

    /// The namespace OLM installs the bundle into, when the config says:
    /// `spec.operator.installNamespace`, else the installer account's
    /// namespace (OLM runs the installer where it installs; the two must
    /// agree when both are given).
    pub(crate) fn install_namespace(&self) -> Option<&str> {
        let installer = self.installer.as_ref().map(|i| i.account.namespace.as_str());
        self.operator.install_namespace.as_deref().or(installer)
    }

    pub(crate) fn object_ref(&self) -> ObjRef {
        if self.config_map {
            return ObjRef {
                api_version: "v1".into(),
                kind: "ConfigMap".into(),
                name: self.name.clone(),
                namespace: None,
            };
        }
        ObjRef { api_version: API_VERSION.into(), kind: KIND.into(), name: self.name.clone(), namespace: None }
    }

    /// Checks a written config; every problem is reported, each naming its field.
    pub(crate) fn from_doc(doc: RbacConfigDoc) -> Result<Config, Vec<Finding>> {
        let name = doc.metadata.name.clone().unwrap_or_default();
        let obj = ObjRef {
            api_version: doc.api_version.clone(),
            kind: doc.kind.clone(),
            name: name.clone(),
            namespace: None,
        };
        let mut errors = Vec::new();
        let mut err =
            |field: &str, message: String| errors.push(Finding::error(Code::ConfigInvalid, message).on(&obj).at(field));

        if doc.api_version != API_VERSION || doc.kind != KIND {
            err(
                "kind",
                format!("expected apiVersion {API_VERSION} and kind {KIND}, got {} {}", doc.api_version, doc.kind),
            );
        }
        let spec = doc.spec;
        let extension = check_extension(spec.extension_name, &name, &mut err);
        if let Some(package) = spec.package.as_deref().filter(|p| !is_package_name(p)) {
            err("spec.package", format!("{package:?} is not a package name"));
        }
        if let Some(csv) = &spec.cluster_service_version {
            if csv.is_empty() {
                err(
                    "spec.clusterServiceVersion",
                    "must not be empty; leave it out to use the only CSV in the input".into(),
                );
            }
        }
        check_api_patterns(&spec.apis.include, &spec.apis.exclude, &mut err);
        let roles = check_roles(spec.roles, &mut err);
        let output_path = spec.output_path.unwrap_or_else(|| default_output_path(&extension));
        if let Err(why) = check_output_path(&output_path) {
            err("spec.outputPath", why);
        }
        let bindings = check_bindings(spec.bindings.as_deref(), spec.mode, &roles, &mut err);
        let allow_olm_groups = spec.allow_olm_groups.unwrap_or_default();
        let api_service_groups = spec.api_service_groups.unwrap_or_default();
        check_groups(&allow_olm_groups, &api_service_groups, &mut err);
        let operator = operator::check_operator(spec.operator, &mut err);
        let installer = installer::check_installer(spec.installer, operator.install_namespace.as_deref(), &mut err);
        check_olm_apis(spec.mode, spec.olm_apis, &mut err);
        let delegations = delegation::check_delegations(spec.delegations, &mut err);
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(Config {
            name,
            extension,
            package: spec.package,
            mode: spec.mode,
            cluster_service_version: spec.cluster_service_version,
            include: spec.apis.include,
            exclude: spec.apis.exclude,
            roles,
            naming: spec.naming,
            output_path,
            bindings,
            bundle_roles: spec.bundle_roles,
            strip_bundle_aggregation: spec.strip_bundle_aggregation,
            bundle_objects: spec.bundle_objects,
            allow_olm_groups,
            api_service_groups,
            allow_no_apis: spec.allow_no_apis,
            operator,
            installer,
            olm_apis: spec.olm_apis,
            admission_policy: spec.admission_policy,
            delegations,
            olm_feature_gates: spec
                .olm_feature_gates
                .into_iter()
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect(),
            config_map: false,
        })
    }
}

/// `spec.apis.include` and `exclude`: no empty pattern.
fn check_api_patterns(include: &[String], exclude: &[String], err: &mut impl FnMut(&str, String)) {
    for (field, patterns) in [("spec.apis.include", include), ("spec.apis.exclude", exclude)] {
        for (i, _) in patterns.iter().enumerate().filter(|(_, p)| p.is_empty()) {
            err(&format!("{field}[{i}]"), "must not be empty".into());
        }
    }
}

/// The extension's name: `spec.extensionName`, else `metadata.name`; a label value.
fn check_extension(extension_name: Option<String>, name: &str, err: &mut impl FnMut(&str, String)) -> String {
    let (extension, ext_field) = match extension_name {
        Some(e) => (e, "spec.extensionName"),
        None => (name.to_string(), "metadata.name"),
    };
    if extension.is_empty() {
        err("metadata.name", "is required: it names the extension unless spec.extensionName is set".into());
    } else if !is_label_value(&extension) {
        err(
            ext_field,
            format!(
                "{extension:?} is not a valid extension name: it must be a label value (at most 63 characters, letters, digits, '-', '_' or '.', starting and ending with a letter or digit)"
            ),
        );
    }
    extension
}

/// `spec.olmAPIs` grants through the roles a mode generates: in Unmanaged mode
/// there are none.
fn check_olm_apis(mode: Mode, olm_apis: OlmApis, err: &mut impl FnMut(&str, String)) {
    if mode == Mode::Unmanaged && olm_apis != OlmApis::Unmanaged {
        err(
            "spec.olmAPIs",
            format!(
                "olmAPIs: {} is only used in Aggregate and Bind mode, and this config's mode is Unmanaged: remove it, or set the mode to Aggregate or Bind",
                olm_apis.as_str()
            ),
        );
    }
}

/// `spec.roles`: all four when left out, otherwise at least one, sorted, once each.
fn check_roles(roles: Option<Vec<RoleKind>>, err: &mut impl FnMut(&str, String)) -> Vec<RoleKind> {
    match roles {
        None => RoleKind::ALL.to_vec(),
        Some(list) if list.is_empty() => {
            err(
                "spec.roles",
                "must name at least one of admin, edit, view, view-crdview (leave it out for all four)".into(),
            );
            Vec::new()
        }
        Some(mut list) => {
            list.sort();
            list.dedup();
            list
        }
    }
}

/// `spec.allowOLMGroups` must name OLM's own groups; `spec.apiServiceGroups`
/// must be API groups.
fn check_groups(allow_olm_groups: &[String], api_service_groups: &[String], err: &mut impl FnMut(&str, String)) {
    for (i, g) in allow_olm_groups.iter().enumerate() {
        if !crate::reserved::OLM_GROUPS.contains(&g.as_str()) {
            err(
                &format!("spec.allowOLMGroups[{i}]"),
                format!(
                    "{g:?} is not one of OLM's API groups ({}); other groups need no opt-in, and platform groups cannot be allowed",
                    crate::reserved::OLM_GROUPS.join(", ")
                ),
            );
        }
    }
    for (i, g) in api_service_groups.iter().enumerate() {
        if !is_dns1123_subdomain(g) {
            err(&format!("spec.apiServiceGroups[{i}]"), format!("{g:?} is not a valid API group (a DNS subdomain)"));
        }
    }
}

pub(crate) fn default_output_path(extension: &str) -> String {
    format!("rbac/{extension}.yaml")
}

fn check_output_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("must not be empty".into());
    }
    if path.starts_with('/') || path.contains('\\') {
        return Err(format!("{path:?} must be a relative path with '/' separators"));
    }
    if path.split('/').any(|seg| seg == ".." || seg.is_empty()) {
        return Err(format!("{path:?} must stay inside the package: no '..' and no empty segments"));
    }
    if !(path.ends_with(".yaml") || path.ends_with(".yml")) {
        return Err(format!("{path:?} must end in .yaml or .yml"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn doc(spec: Spec, name: &str) -> RbacConfigDoc {
        RbacConfigDoc {
            api_version: API_VERSION.into(),
            kind: KIND.into(),
            metadata: ConfigMeta { name: Some(name.into()), ..Default::default() },
            spec,
        }
    }

    #[test]
    fn defaults() {
        let c = Config::from_doc(doc(Spec::default(), "argocd")).unwrap();
        assert_eq!(c, Config::new("argocd", Mode::Unmanaged));
        assert_eq!(c.output_path, "rbac/argocd.yaml");
    }

    #[test]
    fn bad_values_name_their_fields() {
        let spec = Spec {
            extension_name: Some("Not/Valid".into()),
            roles: Some(vec![]),
            output_path: Some("../x.yaml".into()),
            mode: Mode::Aggregate,
            bindings: Some(vec![]),
            ..Default::default()
        };
        let errs = Config::from_doc(doc(spec, "x")).unwrap_err();
        let fields: Vec<&str> = errs.iter().filter_map(|e| e.field.as_deref()).collect();
        assert_eq!(fields, ["spec.extensionName", "spec.roles", "spec.outputPath", "spec.bindings"]);
        assert!(errs[3].message.contains("only used in Bind mode"));
    }

    #[test]
    fn a_config_map_without_an_extension_name_takes_the_bundles_package() {
        let data = BTreeMap::from([("mode".to_string(), "Aggregate".to_string())]);
        let from = ObjRef { kind: "ClusterServiceVersion".into(), name: "op.v1".into(), ..Default::default() };
        let (c, note) = Config::from_config_map("function-input", &data, Some(("op".into(), from))).unwrap();
        assert_eq!(c.extension, "op");
        assert!(note.unwrap().message.starts_with("extension name \"op\" taken from the bundle's package"));
        let errs = Config::from_config_map("function-input", &data, None).unwrap_err();
        assert_eq!(errs[0].field.as_deref(), Some("data.extensionName"));
        let errs = Config::from_config_map("function-input", &BTreeMap::new(), None).unwrap_err();
        assert!(errs[0].message.contains("pass an RBACConfig with --fn-config FILE"), "{}", errs[0].message);
    }

    #[test]
    fn roles_are_deduplicated_in_order() {
        let spec = Spec { roles: Some(vec![RoleKind::View, RoleKind::Admin, RoleKind::View]), ..Default::default() };
        assert_eq!(Config::from_doc(doc(spec, "x")).unwrap().roles, [RoleKind::Admin, RoleKind::View]);
    }
}
