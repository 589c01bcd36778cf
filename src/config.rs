//! `RBACConfig`: the function's configuration, as written and as validated.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::names::is_label_value;
use crate::report::{Finding, ObjRef};

pub const API_VERSION: &str = "olm-rbac.io/v1alpha1";
pub const KIND: &str = "RBACConfig";

/// An `RBACConfig` as written. Unknown fields under `spec` are errors; metadata
/// is read leniently because runners add their own annotations to it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RbacConfigDoc {
    pub api_version: String,
    pub kind: String,
    #[serde(default)]
    pub metadata: ConfigMeta,
    #[serde(default)]
    pub spec: Spec,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct ConfigMeta {
    pub name: Option<String>,
    pub namespace: Option<String>,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Spec {
    #[serde(default)]
    pub mode: Mode,
    pub extension_name: Option<String>,
    pub cluster_service_version: Option<String>,
    #[serde(default)]
    pub apis: ApiFilter,
    pub roles: Option<Vec<RoleKind>>,
    #[serde(default)]
    pub naming: Naming,
    pub output_path: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum Mode {
    Aggregate,
    Bind,
    #[default]
    Unmanaged,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Aggregate => "Aggregate",
            Mode::Bind => "Bind",
            Mode::Unmanaged => "Unmanaged",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum Naming {
    #[default]
    Default,
    #[serde(rename = "OLMv0")]
    OlmV0,
}

/// The per-API roles, in the order they are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
pub enum RoleKind {
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
    pub const ALL: [RoleKind; 4] = [RoleKind::Admin, RoleKind::Edit, RoleKind::View, RoleKind::CrdView];

    pub fn as_str(self) -> &'static str {
        match self {
            RoleKind::Admin => "admin",
            RoleKind::Edit => "edit",
            RoleKind::View => "view",
            RoleKind::CrdView => "view-crdview",
        }
    }

    /// The built-in ClusterRole this role aggregates into.
    pub fn aggregates_to(self) -> &'static str {
        match self {
            RoleKind::Admin => "admin",
            RoleKind::Edit => "edit",
            RoleKind::View | RoleKind::CrdView => "view",
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiFilter {
    #[serde(default)]
    pub include: Vec<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// A validated configuration: what the pure core works from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
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
}

impl Config {
    /// A config for `extension` with every default, as a starting point.
    pub fn new(extension: &str, mode: Mode) -> Self {
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
        }
    }

    pub fn object_ref(&self) -> ObjRef {
        ObjRef { api_version: API_VERSION.into(), kind: KIND.into(), name: self.name.clone(), namespace: None }
    }

    /// Checks a written config; every problem is reported, each naming its field.
    pub fn from_doc(doc: RbacConfigDoc) -> Result<Config, Vec<Finding>> {
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
        let (extension, ext_field) = match spec.extension_name {
            Some(e) => (e, "spec.extensionName"),
            None => (name.clone(), "metadata.name"),
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
        let roles = match spec.roles {
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
        };
        let output_path = spec.output_path.unwrap_or_else(|| default_output_path(&extension));
        if let Err(why) = check_output_path(&output_path) {
            err("spec.outputPath", why);
        }
        if spec.mode == Mode::Bind {
            err(
                "spec.mode",
                "Bind is not supported yet by this version of olm-rbac; use Aggregate, or Unmanaged to generate nothing".into(),
            );
        }
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
        })
    }
}

pub fn default_output_path(extension: &str) -> String {
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
            mode: Mode::Bind,
            ..Default::default()
        };
        let errs = Config::from_doc(doc(spec, "x")).unwrap_err();
        let fields: Vec<&str> = errs.iter().filter_map(|e| e.field.as_deref()).collect();
        assert_eq!(fields, ["spec.extensionName", "spec.roles", "spec.outputPath", "spec.mode"]);
        assert!(errs[3].message.contains("not supported yet"));
    }

    #[test]
    fn roles_are_deduplicated_in_order() {
        let spec = Spec { roles: Some(vec![RoleKind::View, RoleKind::Admin, RoleKind::View]), ..Default::default() };
        assert_eq!(Config::from_doc(doc(spec, "x")).unwrap().roles, [RoleKind::Admin, RoleKind::View]);
    }
}
