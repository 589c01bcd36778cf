//! The ConfigMap form of the config: kpt's `key=value` settings
//! (`kpt fn eval --exec olm-rbac -- mode=Aggregate`), read into the written
//! [`Spec`](super::Spec) and then through the same checks as an `RBACConfig`.

use serde::Deserialize;
use std::collections::BTreeMap;

use super::{Config, ConfigMeta, Mode, RbacConfigDoc, RoleKind, Spec, API_VERSION, KIND};
use crate::report::{Finding, ObjRef};

impl Config {
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
