//! The ConfigMap form of the config: kpt's `key=value` settings
//! (`kpt fn eval --exec olm-rbac -- mode=Aggregate`), read into the written
//! [`Spec`](super::Spec) and then through the same checks as an `RBACConfig`.

use serde::Deserialize;
use std::collections::BTreeMap;

use super::{Config, ConfigMeta, Mode, RbacConfigDoc, Spec, API_VERSION, KIND};
use crate::findings::{Code, Finding, ObjRef};

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
                errors.push(Finding::error(Code::ConfigInvalid, message).on(&obj).at(format!("data.{key}")));
            }
        }
        let mut note = None;
        if data.is_empty() {
            errors.push(
                Finding::error(Code::ConfigMissing,
                    "the function got no configuration: pass an RBACConfig with --fn-config FILE, or settings after --, such as -- mode=Aggregate",
                )
                .on(&obj)
                .at("data"),
            );
        } else if spec.extension_name.is_none() && (name.is_empty() || name == "function-input") {
            match package {
                Some((package, from)) => {
                    note = Some(
                        Finding::info(Code::InputRead, format!(
                            "extension name {package:?} taken from the bundle's package ({from}); add extensionName=<name> to choose another"
                        ))
                        .on(&obj)
                        .at("data.extensionName"),
                    );
                    spec.extension_name = Some(package);
                }
                None => errors.push(
                    Finding::error(Code::ConfigInvalid,
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

/// How a ConfigMap key sets its `spec` field from the string value; the
/// message when the value is not one the typed config takes.
type Setter = fn(&mut Spec, &str) -> Result<(), String>;

/// The keys a ConfigMap config may hold, each with how it sets its `spec`
/// field, in the order the message for an unknown key lists them. Each key is
/// the name of the scalar field it sets (`configmap::tests` holds that).
const KEYS: [(&str, Setter); 18] = [
    ("mode", |spec, value| match enum_value(value)? {
        Mode::Bind => {
            Err("Bind mode needs bindings, which a ConfigMap cannot express: use an RBACConfig (--fn-config)".into())
        }
        mode => {
            spec.mode = mode;
            Ok(())
        }
    }),
    ("extensionName", |spec, value| {
        spec.extension_name = Some(value.to_string());
        Ok(())
    }),
    ("package", |spec, value| {
        spec.package = Some(value.to_string());
        Ok(())
    }),
    ("clusterServiceVersion", |spec, value| {
        spec.cluster_service_version = Some(value.to_string());
        Ok(())
    }),
    ("include", |spec, value| {
        spec.apis.include = comma_list(value);
        Ok(())
    }),
    ("exclude", |spec, value| {
        spec.apis.exclude = comma_list(value);
        Ok(())
    }),
    ("roles", |spec, value| {
        spec.roles = Some(comma_list(value).iter().map(|r| enum_value(r)).collect::<Result<_, _>>()?);
        Ok(())
    }),
    ("naming", |spec, value| {
        spec.naming = enum_value(value)?;
        Ok(())
    }),
    ("outputPath", |spec, value| {
        spec.output_path = Some(value.to_string());
        Ok(())
    }),
    ("bundleRoles", |spec, value| {
        spec.bundle_roles = enum_value(value)?;
        Ok(())
    }),
    ("bundleObjects", |spec, value| {
        spec.bundle_objects = enum_value(value)?;
        Ok(())
    }),
    ("stripBundleAggregation", |spec, value| {
        spec.strip_bundle_aggregation = bool_value(value)?;
        Ok(())
    }),
    ("allowOLMGroups", |spec, value| {
        spec.allow_olm_groups = Some(comma_list(value));
        Ok(())
    }),
    ("apiServiceGroups", |spec, value| {
        spec.api_service_groups = Some(comma_list(value));
        Ok(())
    }),
    ("allowNoAPIs", |spec, value| {
        spec.allow_no_apis = bool_value(value)?;
        Ok(())
    }),
    ("olmAPIs", |spec, value| {
        spec.olm_apis = enum_value(value)?;
        Ok(())
    }),
    ("admissionPolicy", |spec, value| {
        spec.admission_policy = enum_value(value)?;
        Ok(())
    }),
    ("olmFeatureGates", |spec, value| {
        spec.olm_feature_gates = comma_list(value).iter().map(|g| enum_value(g)).collect::<Result<_, _>>()?;
        Ok(())
    }),
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
    match KEYS.iter().find(|(k, _)| *k == key) {
        Some((_, set)) => set(spec, value),
        None => Err(format!("unknown key `{key}`, expected one of {}", KEYS.map(|(k, _)| k).join(", "))),
    }
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

#[cfg(test)]
mod tests {
    //! The ConfigMap's keys against `spec` as the JSON Schema describes it:
    //! every key is a scalar field and sets that field, every scalar field has
    //! a key or a reason in [`NOT_KEYS`].

    use super::*;
    use serde_json::{json, Map, Value};

    /// The `spec` fields that are deliberately no ConfigMap key, with the reason.
    const NOT_KEYS: [(&str, &str); 2] = [
        ("operator", "its policy holds rules and selectors, which key=value cannot express; its fields stay together"),
        ("installer", "its serviceAccount is an object (a name and a namespace), which key=value cannot express"),
    ];

    /// What a field of the schema holds, as far as a ConfigMap value can say it.
    #[derive(Debug, Clone)]
    enum Shape {
        Text,
        Bool,
        OneOf(Vec<String>),
        List(Box<Shape>),
        Object(Map<String, Value>),
        /// A list of objects, a map: structure a string cannot hold.
        Structure,
    }

    fn shape(schema: &Value, defs: &Value) -> Shape {
        if let Some(name) = schema["$ref"].as_str().and_then(|r| r.strip_prefix("#/$defs/")) {
            return shape(&defs[name], defs);
        }
        if let Some(any) = schema["anyOf"].as_array() {
            let not_null: Vec<&Value> = any.iter().filter(|s| s["type"] != "null").collect();
            return match not_null[..] {
                [one] => shape(one, defs),
                _ => Shape::Structure,
            };
        }
        if let Some(values) = schema["enum"].as_array() {
            return Shape::OneOf(values.iter().filter_map(|v| v.as_str().map(String::from)).collect());
        }
        if let Some(values) = schema["oneOf"].as_array() {
            return Shape::OneOf(values.iter().filter_map(|v| v["const"].as_str().map(String::from)).collect());
        }
        let types: Vec<&str> = match &schema["type"] {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect(),
            _ => Vec::new(),
        };
        match (&types[..], schema["properties"].as_object()) {
            (["string"], _) => Shape::Text,
            (["boolean"], _) => Shape::Bool,
            (["array"], _) => match shape(&schema["items"], defs) {
                item @ (Shape::Text | Shape::OneOf(_)) => Shape::List(Box::new(item)),
                _ => Shape::Structure,
            },
            (["object"], Some(properties)) => Shape::Object(properties.clone()),
            _ => Shape::Structure,
        }
    }

    /// Every scalar field under `spec`, by its path, through nested objects
    /// (`apis.include`), except the subtrees of [`NOT_KEYS`].
    fn scalar_fields() -> Vec<(Vec<String>, Shape)> {
        let schema: Value = serde_json::from_str(&crate::config::json_schema()).unwrap();
        let defs = &schema["$defs"];
        let Shape::Object(spec) = shape(&schema["properties"]["spec"], defs) else { panic!("spec is an object") };
        for (name, _) in NOT_KEYS {
            assert!(spec.contains_key(name), "NOT_KEYS names {name}, which spec no longer has");
        }
        let mut fields = Vec::new();
        let mut todo: Vec<(Vec<String>, Map<String, Value>)> = vec![(Vec::new(), spec)];
        while let Some((path, properties)) = todo.pop() {
            for (name, schema) in properties {
                let at = [path.clone(), vec![name.clone()]].concat();
                if path.is_empty() && NOT_KEYS.iter().any(|(n, _)| *n == name) {
                    continue;
                }
                match shape(&schema, defs) {
                    Shape::Object(inner) => todo.push((at, inner)),
                    Shape::Structure => {}
                    scalar => fields.push((at, scalar)),
                }
            }
        }
        fields
    }

    /// Values to try for a field: as JSON for the RBACConfig, as text for the
    /// ConfigMap. Each differs from what leaving the field out gives.
    fn samples(shape: &Shape) -> Vec<(Value, String)> {
        match shape {
            Shape::Text => vec![(json!("example"), "example".into())],
            Shape::Bool => vec![(json!(true), "true".into())],
            Shape::OneOf(values) => values.iter().map(|v| (json!(v), v.clone())).collect(),
            Shape::List(item) => {
                let items: Vec<String> = match &**item {
                    Shape::OneOf(values) => values.iter().take(2).cloned().collect(),
                    _ => vec!["example".into(), "example.com".into()],
                };
                vec![(json!(items), items.join(","))]
            }
            Shape::Object(_) | Shape::Structure => Vec::new(),
        }
    }

    fn from_spec(spec: Value) -> Result<Config, Vec<Finding>> {
        let doc = json!({"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": "x"}, "spec": spec});
        Config::from_doc(serde_json::from_value(doc).unwrap())
    }

    /// `{"apis": {"include": value}}` for the path `apis.include`.
    fn nested(path: &[String], value: Value) -> Value {
        path.iter().rev().fold(value, |inner, name| json!({ name: inner }))
    }

    #[test]
    fn every_config_map_key_is_a_scalar_spec_field_and_every_scalar_field_a_key() {
        let fields = scalar_fields();
        let keys: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
        for key in &keys {
            let named: Vec<String> = fields
                .iter()
                .filter(|(path, _)| path.last().is_some_and(|n| n == key))
                .map(|(p, _)| p.join("."))
                .collect();
            assert_eq!(named.len(), 1, "key {key} names {named:?}: it must name exactly one scalar field of spec");
        }
        for (path, shape) in &fields {
            let name = path.last().unwrap();
            assert!(
                keys.contains(&name.as_str()),
                "spec.{} ({shape:?}) has no ConfigMap key; add one to KEYS, or to NOT_KEYS with the reason",
                path.join(".")
            );
        }
        assert_eq!(fields.len(), keys.len());
    }

    #[test]
    fn each_config_map_key_sets_the_field_it_names() {
        let unset = from_spec(json!({}));
        for (path, shape) in scalar_fields() {
            let key = path.last().unwrap().clone();
            let field = format!("spec.{}", path.join("."));
            let mut changes = false;
            for (value, text) in samples(&shape) {
                let written = from_spec(nested(&path, value.clone()));
                let data = BTreeMap::from([(key.clone(), text.clone())]);
                let read = Config::from_config_map("x", &data, None);
                if key == "mode" && text == "Bind" {
                    let refused = read.unwrap_err();
                    assert!(refused[0].message.starts_with("Bind mode needs bindings"), "{refused:?}");
                    continue;
                }
                changes |= format!("{written:?}") != format!("{unset:?}");
                match (written, read) {
                    (Ok(written), Ok((read, note))) => {
                        assert_eq!(read, Config { config_map: true, ..written }, "{key}={text} against {field}");
                        assert_eq!(note, None);
                    }
                    (Err(written), Err(read)) => {
                        let expected: Vec<(String, Option<String>)> = written
                            .iter()
                            .map(|f| {
                                (
                                    f.message.clone(),
                                    f.field.as_ref().map(|p| p.replacen(&field, &format!("data.{key}"), 1)),
                                )
                            })
                            .collect();
                        let got: Vec<(String, Option<String>)> =
                            read.iter().map(|f| (f.message.clone(), f.field.clone())).collect();
                        assert_eq!(got, expected, "{key}={text} against {field}");
                    }
                    (written, read) => panic!("{key}={text} gave {read:?}, {field}: {value} gave {written:?}"),
                }
            }
            assert!(changes, "no value tried for {field} differs from leaving it out");
        }
    }

    #[test]
    fn an_unknown_key_is_refused_with_every_key_listed() {
        let data = BTreeMap::from([("mdoe".to_string(), "Aggregate".to_string())]);
        let refused = Config::from_config_map("x", &data, None).unwrap_err();
        assert_eq!(refused[0].field.as_deref(), Some("data.mdoe"));
        assert_eq!(
            refused[0].message,
            "unknown key `mdoe`, expected one of mode, extensionName, package, clusterServiceVersion, include, exclude, roles, naming, outputPath, bundleRoles, bundleObjects, stripBundleAggregation, allowOLMGroups, apiServiceGroups, allowNoAPIs, olmAPIs, admissionPolicy, olmFeatureGates"
        );
    }
}
