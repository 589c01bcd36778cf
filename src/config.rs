//! `RBACConfig`: the function's configuration, as written and as validated.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub(crate) use crate::model::Operator;
use crate::model::{selector_matches, AggregatingRole};
use crate::names::{is_dns1123_label, is_dns1123_subdomain, is_label_value};
use crate::report::{Finding, ObjRef};

mod installer;
mod operator;

pub(crate) use installer::{Installer, InstallerDoc, InstallerMode, Olm};
pub(crate) use operator::{InstallPolicy, OperatorDoc, OperatorPermissions, OperatorSpec, PolicyEntry, PolicyScope};

pub(crate) const API_VERSION: &str = "olm-rbac.io/v1alpha1";
pub(crate) const KIND: &str = "RBACConfig";

/// The configuration of olm-rbac, which renders RBAC for the APIs an OLM operator installs.
///
/// Unknown fields under `spec` are errors; `metadata` is read leniently because
/// runners add their own annotations to it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "RBACConfig")]
pub(crate) struct RbacConfigDoc {
    /// Always `olm-rbac.io/v1alpha1`.
    #[schemars(extend("const" = "olm-rbac.io/v1alpha1"))]
    pub api_version: String,
    /// Always `RBACConfig`.
    #[schemars(extend("const" = "RBACConfig"))]
    pub kind: String,
    #[serde(default)]
    pub metadata: ConfigMeta,
    #[serde(default)]
    pub spec: Spec,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub(crate) struct ConfigMeta {
    /// The config's name, and the extension name unless `spec.extensionName` is set.
    pub name: Option<String>,
    // Runners (kpt, kustomize) write these; the schema names them so that
    // editors accept them, and nothing else reads them.
    #[expect(dead_code, reason = "in RBACConfig's schema, read by no check")]
    pub namespace: Option<String>,
    #[serde(default)]
    #[expect(dead_code, reason = "in RBACConfig's schema, read by no check")]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    #[expect(dead_code, reason = "in RBACConfig's schema, read by no check")]
    pub annotations: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Spec {
    /// What to generate: `Aggregate` (roles aggregated into the built-in admin/edit/view),
    /// `Bind` (roles bound to `bindings`), or `Unmanaged` (nothing; the default).
    #[serde(default)]
    pub mode: Mode,
    /// Labels the generated objects (`olm-rbac.io/extension`); a label value. Defaults to `metadata.name`.
    pub extension_name: Option<String>,
    /// `metadata.name` of the ClusterServiceVersion whose owned APIs get roles; needed only when
    /// the input holds several.
    pub cluster_service_version: Option<String>,
    /// Which APIs (`<plural>.<group>`, globs) get roles.
    #[serde(default)]
    pub apis: ApiFilter,
    /// Which per-API roles to provide. Default: all four.
    pub roles: Option<Vec<RoleKind>>,
    /// `Default`: `<plural>.<group>-admin`; `OLMv0`: `<plural>.<group>-<version>-admin`.
    #[serde(default)]
    pub naming: Naming,
    /// Where kpt writes the generated objects, relative to the package. Default `rbac/<extension>.yaml`.
    pub output_path: Option<String>,
    /// Bind mode only: who gets which role, and where.
    pub bindings: Option<Vec<BindingDoc>>,
    /// `Use` (default): a ClusterRole in the input that grants on exactly one API is used instead of
    /// generating that role. `Ignore`: always generate.
    #[serde(default)]
    pub bundle_roles: BundleRoles,
    /// Bind and Unmanaged modes: remove the aggregation labels of bundle roles that grant on the
    /// APIs (recorded, and undone when turned off).
    #[serde(default)]
    pub strip_bundle_aggregation: bool,
    /// `Keep` (default) or `Drop` the bundle's own objects (CSV, CRDs, the rest of its folder)
    /// from the output, for OLM v1, where the cluster gets the bundle from a catalog.
    #[serde(default)]
    pub bundle_objects: BundleObjects,
    /// OLM's own API groups (`operators.coreos.com`, `olm.operatorframework.io`, ...) that the
    /// roles may grant on. Only OLM's own bundle owns them, and rights on them let users install
    /// operators, so each must be named here; every other platform group is always refused.
    #[serde(rename = "allowOLMGroups")]
    pub allow_olm_groups: Option<Vec<String>>,
    /// API groups the bundle may serve through APIServices it owns (`spec.apiservicedefinitions`).
    /// The CSV entry is such an API's only definition, so only the admin can vouch that the group
    /// is really the bundle's; APIs of owned APIServices in other groups are an error.
    pub api_service_groups: Option<Vec<String>>,
    /// Aggregate and Bind mode: an input with no API to manage is an error, so that a pipeline
    /// that renders nothing does not look like success. `true` makes it an `info` result.
    #[serde(default, rename = "allowNoAPIs")]
    pub allow_no_apis: bool,
    /// The operator's own permissions (the CSV's `permissions` and `clusterPermissions`): how
    /// to generate them, and the policy they must fit.
    pub operator: Option<OperatorDoc>,
    /// The ServiceAccount OLM installs the bundle as: its RBAC, derived from the bundle, or a check
    /// of an existing account's.
    pub installer: Option<InstallerDoc>,
}

/// Whether the bundle's own objects stay in the output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum BundleObjects {
    #[default]
    Keep,
    Drop,
}

/// Whether ClusterRoles in the input that already grant an API's access are
/// used instead of generating that role.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum BundleRoles {
    #[default]
    Use,
    Ignore,
}

/// One entry of `spec.bindings`, as written.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct BindingDoc {
    /// The per-API role to grant; `edit` also grants `view`.
    pub role: BindRole,
    /// Users, groups and service accounts.
    pub subjects: Vec<SubjectDoc>,
    /// A RoleBinding in each of these namespaces.
    pub namespaces: Option<Vec<String>>,
    /// A RoleBinding in each Namespace object of the input that matches. Without `namespaces`
    /// and `namespaceSelector`, a ClusterRoleBinding.
    pub namespace_selector: Option<SelectorDoc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum BindRole {
    #[serde(rename = "admin")]
    Admin,
    #[serde(rename = "edit")]
    Edit,
    #[serde(rename = "view")]
    View,
}

impl From<BindRole> for RoleKind {
    fn from(r: BindRole) -> Self {
        match r {
            BindRole::Admin => RoleKind::Admin,
            BindRole::Edit => RoleKind::Edit,
            BindRole::View => RoleKind::View,
        }
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct SubjectDoc {
    pub kind: SubjectKind,
    pub name: String,
    pub namespace: Option<String>,
    pub api_group: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
pub(crate) enum SubjectKind {
    User,
    Group,
    ServiceAccount,
}

impl SubjectKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            SubjectKind::User => "User",
            SubjectKind::Group => "Group",
            SubjectKind::ServiceAccount => "ServiceAccount",
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct SelectorDoc {
    #[serde(default)]
    pub match_labels: BTreeMap<String, String>,
    #[serde(default)]
    pub match_expressions: Vec<RequirementDoc>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RequirementDoc {
    pub key: String,
    pub operator: Operator,
    #[serde(default)]
    pub values: Vec<String>,
}

/// A subject, checked: `User` and `Group` carry the RBAC API group, a
/// `ServiceAccount` a namespace.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Subject {
    pub kind: SubjectKind,
    pub namespace: Option<String>,
    pub name: String,
}

/// Where a binding applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scope {
    Cluster,
    /// Listed namespaces and those the selector matches among the input's
    /// Namespace objects.
    Namespaces {
        names: Vec<String>,
        selector: Option<Selector>,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Selector {
    pub match_labels: BTreeMap<String, String>,
    pub match_expressions: Vec<(String, Operator, Vec<String>)>,
}

impl Selector {
    /// Label-selector semantics ([`selector_matches`]): every label and every
    /// expression must hold.
    pub(crate) fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let requirements =
            self.match_expressions.iter().map(|(key, op, values)| (key.as_str(), Some(*op), &values[..]));
        selector_matches(&self.match_labels, requirements, labels)
    }
}

/// One validated entry of `spec.bindings`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding {
    pub role: RoleKind,
    /// Sorted, without duplicates.
    pub subjects: Vec<Subject>,
    pub scope: Scope,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub(crate) enum Mode {
    Aggregate,
    Bind,
    #[default]
    Unmanaged,
}

impl Mode {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Mode::Aggregate => "Aggregate",
            Mode::Bind => "Bind",
            Mode::Unmanaged => "Unmanaged",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum Naming {
    #[default]
    Default,
    #[serde(rename = "OLMv0")]
    OlmV0,
}

/// The per-API roles, in the order they are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, JsonSchema)]
pub(crate) enum RoleKind {
    #[serde(rename = "admin")]
    Admin,
    #[serde(rename = "edit")]
    Edit,
    #[serde(rename = "view")]
    View,
    #[serde(rename = "view-crdview")]
    CrdView,
}

impl RoleKind {
    pub(crate) const ALL: [RoleKind; 4] = [RoleKind::Admin, RoleKind::Edit, RoleKind::View, RoleKind::CrdView];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RoleKind::Admin => "admin",
            RoleKind::Edit => "edit",
            RoleKind::View => "view",
            RoleKind::CrdView => "view-crdview",
        }
    }

    /// The role named by its label value (`admin`, `edit`, `view`, `view-crdview`).
    pub(crate) fn parse(s: &str) -> Option<RoleKind> {
        RoleKind::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The built-in ClusterRole this role aggregates into.
    pub(crate) fn aggregates_to(self) -> AggregatingRole {
        match self {
            RoleKind::Admin => AggregatingRole::Admin,
            RoleKind::Edit => AggregatingRole::Edit,
            RoleKind::View | RoleKind::CrdView => AggregatingRole::View,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ApiFilter {
    /// API names to keep (all when empty); `*` and `?` globs.
    #[serde(default)]
    pub include: Vec<String>,
    /// API names to drop, applied after `include`.
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// A validated configuration: what the pure core works from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Config {
    /// `metadata.name` of the config object, for results that point at it.
    pub name: String,
    pub extension: String,
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
            config_map: false,
        }
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
        let mut err = |field: &str, message: String| errors.push(Finding::error(message).on(&obj).at(field));

        if doc.api_version != API_VERSION || doc.kind != KIND {
            err(
                "kind",
                format!("expected apiVersion {API_VERSION} and kind {KIND}, got {} {}", doc.api_version, doc.kind),
            );
        }
        let spec = doc.spec;
        let extension = check_extension(spec.extension_name, &name, &mut err);
        if let Some(csv) = &spec.cluster_service_version {
            if csv.is_empty() {
                err(
                    "spec.clusterServiceVersion",
                    "must not be empty; leave it out to use the only CSV in the input".into(),
                );
            }
        }
        for (field, patterns) in [("spec.apis.include", &spec.apis.include), ("spec.apis.exclude", &spec.apis.exclude)]
        {
            for (i, p) in patterns.iter().enumerate() {
                if p.is_empty() {
                    err(&format!("{field}[{i}]"), "must not be empty".into());
                }
            }
        }
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
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(Config {
            name,
            extension,
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
            config_map: false,
        })
    }

    /// The settings of a ConfigMap, as `kpt fn eval --exec olm-rbac -- key=value`
    /// sends them: the scalar fields of `spec` as strings, lists comma-separated.
    /// Bindings need structure, so Bind mode needs an RBACConfig.
    ///
    /// kpt names the ConfigMap `function-input`, which names no extension: then
    /// `package` (the bundle's package, and the object it was read from) names
    /// it, with an `info` result saying so, unless `extensionName` is given.
    pub(crate) fn from_config_map(
        name: &str,
        data: &BTreeMap<String, String>,
        package: Option<(String, ObjRef)>,
    ) -> Result<(Config, Option<Finding>), Vec<Finding>> {
        let obj =
            ObjRef { api_version: "v1".into(), kind: "ConfigMap".into(), name: name.to_string(), namespace: None };
        let mut errors = Vec::new();
        let mut spec = Spec::default();
        for (key, value) in data {
            if let Err(message) = set_from_data(&mut spec, key, value) {
                errors.push(Finding::error(message).on(&obj).at(format!("data.{key}")));
            }
        }
        let mut note = None;
        if data.is_empty() {
            errors.push(
                Finding::error(
                    "the function got no configuration: pass an RBACConfig with --fn-config FILE, or settings after --, such as -- mode=Aggregate",
                )
                .on(&obj)
                .at("data"),
            );
        } else if spec.extension_name.is_none() && (name.is_empty() || name == "function-input") {
            match package {
                Some((package, from)) => {
                    note = Some(
                        Finding::info(format!(
                            "extension name {package:?} taken from the bundle's package ({from}); add extensionName=<name> to choose another"
                        ))
                        .on(&obj)
                        .at("data.extensionName"),
                    );
                    spec.extension_name = Some(package);
                }
                None => errors.push(
                    Finding::error(
                        "name the extension: add extensionName=<name> (kpt names this ConfigMap function-input, and the input has no single ClusterServiceVersion to take the bundle's package name from)",
                    )
                    .on(&obj)
                    .at("data.extensionName"),
                ),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let doc = RbacConfigDoc {
            api_version: API_VERSION.into(),
            kind: KIND.into(),
            metadata: ConfigMeta { name: Some(name.to_string()), ..Default::default() },
            spec,
        };
        // Field paths from the shared checks name spec fields; here they are data keys.
        Config::from_doc(doc)
            .map(|mut c| {
                c.name = name.to_string();
                c.config_map = true;
                (c, note)
            })
            .map_err(|errs| {
                errs.into_iter()
                    .map(|mut f| {
                        f.object = Some(obj.clone());
                        f.field = f.field.map(|p| p.replacen("spec.apis.", "data.", 1).replacen("spec.", "data.", 1));
                        f
                    })
                    .collect()
            })
    }
}

/// The keys a ConfigMap config may hold.
pub(crate) const CONFIG_MAP_KEYS: [&str; 14] = [
    "mode",
    "extensionName",
    "clusterServiceVersion",
    "include",
    "exclude",
    "roles",
    "naming",
    "outputPath",
    "bundleRoles",
    "bundleObjects",
    "stripBundleAggregation",
    "allowOLMGroups",
    "apiServiceGroups",
    "allowNoAPIs",
];

/// Reads an enum from a string the way the typed config does, with the same
/// "expected one of" message.
fn enum_value<'de, T: Deserialize<'de>>(value: &'de str) -> Result<T, String> {
    use serde::de::IntoDeserializer;
    T::deserialize(IntoDeserializer::<serde::de::value::Error>::into_deserializer(value)).map_err(|e| e.to_string())
}

/// Checks one binding entry; `None` (with errors reported) when it is unusable.
fn check_binding(
    b: &BindingDoc,
    field: &str,
    roles: &[RoleKind],
    err: &mut impl FnMut(&str, String),
) -> Option<Binding> {
    let mut failures = 0usize;
    let mut fail = |f: String, m: String| {
        failures += 1;
        err(&f, m);
    };
    let role = RoleKind::from(b.role);
    for needed in std::iter::once(role).chain((role == RoleKind::Edit).then_some(RoleKind::View)) {
        if !roles.contains(&needed) {
            fail(
                format!("{field}.role"),
                format!(
                    "binding {} needs the {} role, which spec.roles leaves out{}",
                    role.as_str(),
                    needed.as_str(),
                    if needed == role {
                        ""
                    } else {
                        " (editors are also bound to view so that they can read what they write)"
                    }
                ),
            );
        }
    }
    if b.subjects.is_empty() {
        fail(format!("{field}.subjects"), "must name at least one subject".into());
    }
    let mut subjects: Vec<Subject> = Vec::new();
    for (j, s) in b.subjects.iter().enumerate() {
        subjects.extend(check_subject(s, &format!("{field}.subjects[{j}]"), &mut fail));
    }
    subjects.sort();
    subjects.dedup();
    let mut names = Vec::new();
    if let Some(list) = &b.namespaces {
        if list.is_empty() {
            fail(format!("{field}.namespaces"), "is empty; leave it out for a cluster-wide binding".into());
        }
        for (j, ns) in list.iter().enumerate() {
            if is_dns1123_label(ns) {
                names.push(ns.clone());
            } else {
                fail(format!("{field}.namespaces[{j}]"), format!("{ns:?} is not a valid namespace name (a DNS-1123 label: lowercase letters, digits and '-', at most 63)"));
            }
        }
    }
    names.sort();
    names.dedup();
    let selector =
        b.namespace_selector.as_ref().map(|sel| check_selector(sel, &format!("{field}.namespaceSelector"), &mut fail));
    if failures > 0 {
        return None;
    }
    let scope = if b.namespaces.is_none() && selector.is_none() {
        Scope::Cluster
    } else {
        Scope::Namespaces { names, selector }
    };
    Some(Binding { role, subjects, scope })
}

/// Checks one subject at `sf`; `None` when it has no name.
fn check_subject(s: &SubjectDoc, sf: &str, fail: &mut impl FnMut(String, String)) -> Option<Subject> {
    if s.name.is_empty() {
        fail(format!("{sf}.name"), "must not be empty".into());
        return None;
    }
    let expected_group = match s.kind {
        SubjectKind::User | SubjectKind::Group => "rbac.authorization.k8s.io",
        SubjectKind::ServiceAccount => "",
    };
    if let Some(g) = &s.api_group {
        if g != expected_group {
            fail(
                format!("{sf}.apiGroup"),
                format!(
                    "a {} subject has apiGroup {expected_group:?}, not {g:?} (it may be left out)",
                    s.kind.as_str()
                ),
            );
        }
    }
    match (s.kind, &s.namespace) {
        (SubjectKind::ServiceAccount, None) => {
            fail(format!("{sf}.namespace"), format!("ServiceAccount {:?} needs the namespace it lives in", s.name));
        }
        (SubjectKind::ServiceAccount, Some(ns)) if !is_dns1123_label(ns) => {
            fail(format!("{sf}.namespace"), format!("{ns:?} is not a valid namespace name (a DNS-1123 label)"));
        }
        (SubjectKind::ServiceAccount, Some(_)) if !is_dns1123_subdomain(&s.name) => {
            fail(format!("{sf}.name"), format!("{:?} is not a valid ServiceAccount name", s.name));
        }
        (SubjectKind::User | SubjectKind::Group, Some(_)) => {
            fail(format!("{sf}.namespace"), format!("a {} is not namespaced; remove the namespace", s.kind.as_str()));
        }
        _ => {}
    }
    let anonymous = matches!(
        (s.kind, s.name.as_str()),
        (SubjectKind::Group, "system:unauthenticated") | (SubjectKind::User, "system:anonymous")
    );
    if anonymous {
        fail(
            format!("{sf}.name"),
            format!(
                "binding {} {:?} would grant access to unauthenticated requests; olm-rbac refuses to",
                s.kind.as_str(),
                s.name
            ),
        );
    }
    Some(Subject { kind: s.kind, namespace: s.namespace.clone(), name: s.name.clone() })
}

/// Checks a `namespaceSelector`: `In` and `NotIn` need values, `Exists` and
/// `DoesNotExist` take none.
fn check_selector(sel: &SelectorDoc, field: &str, fail: &mut impl FnMut(String, String)) -> Selector {
    let mut match_expressions = Vec::new();
    for (j, r) in sel.match_expressions.iter().enumerate() {
        let rf = format!("{field}.matchExpressions[{j}]");
        match (r.operator, r.values.is_empty()) {
            (Operator::In | Operator::NotIn, true) => {
                fail(format!("{rf}.values"), format!("operator {:?} needs at least one value", r.operator))
            }
            (Operator::Exists | Operator::DoesNotExist, false) => {
                fail(format!("{rf}.values"), format!("operator {:?} takes no values", r.operator))
            }
            _ => {}
        }
        match_expressions.push((r.key.clone(), r.operator, r.values.clone()));
    }
    Selector { match_labels: sel.match_labels.clone(), match_expressions }
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

/// `spec.bindings`: only in Bind mode, each entry checked; the usable ones.
fn check_bindings(
    bindings: Option<&[BindingDoc]>,
    mode: Mode,
    roles: &[RoleKind],
    err: &mut impl FnMut(&str, String),
) -> Vec<Binding> {
    match (bindings, mode) {
        (Some(_), Mode::Aggregate | Mode::Unmanaged) => {
            err(
                "spec.bindings",
                format!("bindings are only used in Bind mode, and this config's mode is {}: remove them, or set spec.mode: Bind", mode.as_str()),
            );
            Vec::new()
        }
        (Some(list), Mode::Bind) => list
            .iter()
            .enumerate()
            .filter_map(|(i, b)| check_binding(b, &format!("spec.bindings[{i}]"), roles, err))
            .collect(),
        (None, _) => Vec::new(),
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

/// Sets the `spec` field a ConfigMap key names, from its string value; the
/// message when the key or the value is not one the typed config takes.
fn set_from_data(spec: &mut Spec, key: &str, value: &str) -> Result<(), String> {
    match key {
        "mode" => match enum_value(value)? {
            Mode::Bind => {
                return Err(
                    "Bind mode needs bindings, which a ConfigMap cannot express: use an RBACConfig (--fn-config)"
                        .into(),
                )
            }
            m => spec.mode = m,
        },
        "extensionName" => spec.extension_name = Some(value.to_string()),
        "clusterServiceVersion" => spec.cluster_service_version = Some(value.to_string()),
        "include" => spec.apis.include = comma_list(value),
        "exclude" => spec.apis.exclude = comma_list(value),
        "roles" => {
            spec.roles =
                Some(comma_list(value).iter().map(|r| enum_value::<RoleKind>(r)).collect::<Result<Vec<_>, _>>()?)
        }
        "naming" => spec.naming = enum_value(value)?,
        "outputPath" => spec.output_path = Some(value.to_string()),
        "bundleRoles" => spec.bundle_roles = enum_value(value)?,
        "bundleObjects" => spec.bundle_objects = enum_value(value)?,
        "allowOLMGroups" => spec.allow_olm_groups = Some(comma_list(value)),
        "apiServiceGroups" => spec.api_service_groups = Some(comma_list(value)),
        "allowNoAPIs" => spec.allow_no_apis = bool_value(value)?,
        "stripBundleAggregation" => spec.strip_bundle_aggregation = bool_value(value)?,
        _ => return Err(format!("unknown key `{key}`, expected one of {}", CONFIG_MAP_KEYS.join(", "))),
    }
    Ok(())
}

/// A comma-separated list, items trimmed, empty ones left out.
fn comma_list(v: &str) -> Vec<String> {
    v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
}

fn bool_value(value: &str) -> Result<bool, String> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("{value:?} is not true or false")),
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

/// The JSON Schema of `RBACConfig`, for editors and CI checks (`olm-rbac schema`).
pub fn json_schema() -> String {
    let mut schema = schemars::schema_for!(RbacConfigDoc);
    schema.insert("$id".into(), "https://olm-rbac.io/schemas/v1alpha1/rbacconfig.json".into());
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

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
