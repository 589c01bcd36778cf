//! A small JSON Schema validator for the schema tests, covering exactly the
//! keywords `olm-rbac schema` emits, written from the JSON Schema 2020-12 core
//! and validation specifications.
//!
//! Assertions: `type` (one name or a list, `integer` being any number without
//! a fractional part), `enum`, `const`, `properties`, `additionalProperties`,
//! `required`, `items` (one schema for every element), `minItems`,
//! `uniqueItems`, `minimum`, `maximum`, `allOf`, `anyOf`, `oneOf`, and `$ref`
//! to a JSON pointer in the same document (`#/$defs/…`, or draft-07's
//! `#/definitions/…`), applied together with the keywords beside it.
//! Annotations (`title`, `description`, `default`, `format`, which draft-07
//! and 2020-12 make an annotation by default, …) never affect the result.
//!
//! Any other keyword makes [`Validator::new`] fail: a schema that starts to
//! use `pattern` or `maxLength` must extend this file rather than be half
//! checked (the SARIF test says why it leaves SARIF's patterns out).

use std::fmt;

use serde_json::{Map, Value};

/// Keywords that only annotate an instance and never reject one.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
];

/// Keywords this validator evaluates (`$defs` only holds schemas for `$ref`).
const ASSERTIONS: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "additionalProperties",
    "required",
    "items",
    "allOf",
    "anyOf",
    "oneOf",
    "$ref",
    "$defs",
    "definitions",
    "minItems",
    "uniqueItems",
    "minimum",
    "maximum",
];

const TYPES: &[&str] = &["null", "boolean", "object", "array", "number", "integer", "string"];

/// How many `$ref`s may be followed without moving into the instance: a
/// schema that refers to itself in place would otherwise never finish.
const MAX_REF_CHAIN: usize = 64;

/// One reason an instance does not validate.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    path: String,
    message: String,
}

impl Error {
    /// Where in the instance, as a JSON pointer (`""` is the whole instance).
    pub fn instance_path(&self) -> &str {
        &self.path
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

pub struct Validator {
    root: Value,
}

impl Validator {
    /// Checks that `schema` uses only the keywords above, well formed, and
    /// that every `$ref` resolves.
    pub fn new(schema: &Value) -> Result<Self, String> {
        check_schema(schema, schema, "#")?;
        Ok(Validator { root: schema.clone() })
    }

    pub fn iter_errors(&self, instance: &Value) -> std::vec::IntoIter<Error> {
        let mut errors = Vec::new();
        self.validate(&self.root, instance, "", 0, &mut errors);
        errors.into_iter()
    }

    pub fn is_valid(&self, instance: &Value) -> bool {
        self.iter_errors(instance).next().is_none()
    }

    fn validate(&self, schema: &Value, instance: &Value, path: &str, refs: usize, errors: &mut Vec<Error>) {
        let mut fail = |message: String| errors.push(Error { path: path.to_string(), message });
        let schema = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return fail(format!("{instance} is not allowed here")),
            Value::Object(schema) => schema,
            // check_schema refused everything else.
            _ => unreachable!("not a schema: {schema}"),
        };
        if let Some(types) = schema.get("type") {
            let names: Vec<&str> = match types {
                Value::String(name) => vec![name],
                Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
                _ => vec![],
            };
            if !names.iter().any(|name| has_type(instance, name)) {
                fail(format!("{instance} is not of type {}", names.join(" or ")));
            }
        }
        if let Some(Value::Array(allowed)) = schema.get("enum") {
            if !allowed.iter().any(|a| equal(a, instance)) {
                let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
                fail(format!("{instance} is not one of {}", list.join(", ")));
            }
        }
        if let Some(constant) = schema.get("const") {
            if !equal(constant, instance) {
                fail(format!("{instance} is not {constant}"));
            }
        }
        if let Value::Object(object) = instance {
            if let Some(Value::Array(required)) = schema.get("required") {
                for name in required.iter().filter_map(Value::as_str) {
                    if !object.contains_key(name) {
                        fail(format!("{name:?} is a required property"));
                    }
                }
            }
            let properties = schema.get("properties").and_then(Value::as_object);
            for (key, value) in object {
                let at = format!("{path}/{}", escape(key));
                match properties.and_then(|p| p.get(key)) {
                    Some(sub) => self.validate(sub, value, &at, 0, errors),
                    None => match schema.get("additionalProperties") {
                        // Reported at the object, which is where the unknown key is.
                        Some(Value::Bool(false)) => errors.push(Error {
                            path: path.to_string(),
                            message: format!("additional property {key:?} is not allowed"),
                        }),
                        Some(sub) => self.validate(sub, value, &at, 0, errors),
                        None => {}
                    },
                }
            }
        }
        if let (Value::Array(elements), Some(sub)) = (instance, schema.get("items")) {
            for (i, element) in elements.iter().enumerate() {
                self.validate(sub, element, &format!("{path}/{i}"), 0, errors);
            }
        }
        if let Value::Array(elements) = instance {
            if let Some(least) = schema.get("minItems").and_then(Value::as_u64) {
                if (elements.len() as u64) < least {
                    errors.push(Error { path: path.to_string(), message: format!("fewer than {least} items") });
                }
            }
            let unique = schema.get("uniqueItems") == Some(&Value::Bool(true));
            if unique && elements.iter().enumerate().any(|(i, a)| elements[..i].iter().any(|b| equal(a, b))) {
                errors.push(Error { path: path.to_string(), message: "items are not unique".into() });
            }
        }
        if let Value::Number(n) = instance {
            let value = n.as_f64().unwrap_or(f64::NAN);
            if let Some(least) = schema.get("minimum").and_then(Value::as_f64) {
                if value < least {
                    errors.push(Error { path: path.to_string(), message: format!("{n} is less than {least}") });
                }
            }
            if let Some(most) = schema.get("maximum").and_then(Value::as_f64) {
                if value > most {
                    errors.push(Error { path: path.to_string(), message: format!("{n} is more than {most}") });
                }
            }
        }
        if let Some(Value::Array(all)) = schema.get("allOf") {
            for sub in all {
                self.validate(sub, instance, path, refs, errors);
            }
        }
        if let Some(Value::Array(any)) = schema.get("anyOf") {
            if !any.iter().any(|sub| self.matches(sub, instance, path, refs)) {
                errors.push(Error { path: path.to_string(), message: format!("{instance} matches none of anyOf") });
            }
        }
        if let Some(Value::Array(one)) = schema.get("oneOf") {
            let matching = one.iter().filter(|sub| self.matches(sub, instance, path, refs)).count();
            if matching != 1 {
                errors.push(Error {
                    path: path.to_string(),
                    message: format!("{instance} matches {matching} of oneOf's schemas, not exactly one"),
                });
            }
        }
        if let Some(Value::String(reference)) = schema.get("$ref") {
            if refs >= MAX_REF_CHAIN {
                errors.push(Error { path: path.to_string(), message: format!("$ref {reference} never ends") });
            } else if let Some(target) = resolve(&self.root, reference) {
                self.validate(target, instance, path, refs + 1, errors);
            }
        }
    }

    fn matches(&self, schema: &Value, instance: &Value, path: &str, refs: usize) -> bool {
        let mut errors = Vec::new();
        self.validate(schema, instance, path, refs, &mut errors);
        errors.is_empty()
    }
}

fn has_type(instance: &Value, name: &str) -> bool {
    match (name, instance) {
        ("null", Value::Null) | ("boolean", Value::Bool(_)) | ("object", Value::Object(_)) => true,
        ("array", Value::Array(_)) | ("string", Value::String(_)) | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    }
}

/// JSON equality: numbers by value (`1` equals `1.0`), objects whatever
/// their key order.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
            (Some(x), Some(y), _, _) => x == y,
            (_, _, Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// A JSON pointer segment for an object key.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `#` or `#/a/b` (a JSON pointer fragment) within `root`.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.contains('%') {
        return None; // percent-encoded fragments: not needed, so not supported
    }
    root.pointer(pointer)
}

fn check_schema(root: &Value, schema: &Value, at: &str) -> Result<(), String> {
    let object = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(object) => object,
        _ => return Err(format!("{at}: a schema must be an object or a boolean")),
    };
    for (keyword, value) in object {
        let here = format!("{at}/{}", escape(keyword));
        match keyword.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "type" => {
                let names: Vec<&Value> = match value {
                    Value::Array(names) if !names.is_empty() => names.iter().collect(),
                    Value::Array(_) => vec![],
                    name => vec![name],
                };
                if names.is_empty() || !names.iter().all(|n| n.as_str().is_some_and(|n| TYPES.contains(&n))) {
                    return Err(format!("{here}: not a type name or a list of them: {value}"));
                }
            }
            "enum" if !value.is_array() => return Err(format!("{here}: must be an array")),
            "enum" | "const" => {}
            "required" => {
                if !value.as_array().is_some_and(|names| names.iter().all(Value::is_string)) {
                    return Err(format!("{here}: must be an array of property names"));
                }
            }
            "minItems" if !value.is_u64() => return Err(format!("{here}: must be a non-negative integer")),
            "uniqueItems" if !value.is_boolean() => return Err(format!("{here}: must be a boolean")),
            "minimum" | "maximum" if !value.is_number() => return Err(format!("{here}: must be a number")),
            "minItems" | "uniqueItems" | "minimum" | "maximum" => {}
            "properties" | "$defs" | "definitions" => {
                let map: &Map<String, Value> = value.as_object().ok_or(format!("{here}: must be an object"))?;
                for (name, sub) in map {
                    check_schema(root, sub, &format!("{here}/{}", escape(name)))?;
                }
            }
            "additionalProperties" | "items" => check_schema(root, value, &here)?,
            "allOf" | "anyOf" | "oneOf" => {
                let subs = value.as_array().filter(|s| !s.is_empty());
                let subs = subs.ok_or(format!("{here}: must be a non-empty array of schemas"))?;
                for (i, sub) in subs.iter().enumerate() {
                    check_schema(root, sub, &format!("{here}/{i}"))?;
                }
            }
            "$ref" => {
                let target = value.as_str().and_then(|r| resolve(root, r));
                match target {
                    Some(Value::Bool(_) | Value::Object(_)) => {}
                    _ => return Err(format!("{here}: {value} is not a schema in this document")),
                }
            }
            other => {
                assert!(!ASSERTIONS.contains(&other), "{other} is handled above");
                return Err(format!("{here}: keyword {other:?} is not supported by this validator"));
            }
        }
    }
    Ok(())
}

mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: Value, instance: Value) -> Vec<(String, String)> {
        let validator = Validator::new(&schema).unwrap();
        validator.iter_errors(&instance).map(|e| (e.instance_path().to_string(), e.to_string())).collect()
    }

    fn paths(schema: Value, instance: Value) -> Vec<String> {
        errors(schema, instance).into_iter().map(|(p, _)| p).collect()
    }

    #[test]
    fn type_names_and_lists() {
        let cases = [
            ("null", json!(null), json!(0)),
            ("boolean", json!(false), json!("false")),
            ("object", json!({}), json!([])),
            ("array", json!([]), json!({})),
            ("number", json!(1.5), json!("1.5")),
            ("integer", json!(3), json!(3.5)),
            ("string", json!(""), json!(null)),
        ];
        for (name, good, bad) in cases {
            assert_eq!(paths(json!({"type": name}), good), Vec::<String>::new(), "{name}");
            assert_eq!(paths(json!({"type": name}), bad), [""], "{name}");
        }
        assert!(paths(json!({"type": "integer"}), json!(3.0)).is_empty(), "3.0 has no fractional part");
        assert!(paths(json!({"type": "number"}), json!(3)).is_empty(), "an integer is a number");
        let nullable = json!({"type": ["string", "null"]});
        assert!(paths(nullable.clone(), json!("a")).is_empty());
        assert!(paths(nullable.clone(), json!(null)).is_empty());
        assert_eq!(paths(nullable, json!(1)), [""]);
    }

    #[test]
    fn enum_and_const_compare_json_values() {
        let schema = json!({"enum": ["a", 1, {"k": [true]}]});
        for good in [json!("a"), json!(1), json!(1.0), json!({"k": [true]})] {
            assert!(paths(schema.clone(), good.clone()).is_empty(), "{good}");
        }
        for bad in [json!("A"), json!(2), json!({"k": [false]}), json!(["a"]), json!(null)] {
            assert_eq!(paths(schema.clone(), bad.clone()), [""], "{bad}");
        }
        let schema = json!({"const": {"a": 1, "b": 2}});
        assert!(paths(schema.clone(), json!({"b": 2, "a": 1})).is_empty(), "key order does not matter");
        assert_eq!(paths(schema.clone(), json!({"a": 1})), [""]);
        assert_eq!(paths(json!({"const": "x"}), json!("y")), [""]);
    }

    #[test]
    fn properties_required_and_additional_properties() {
        let schema = json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "a/b": {"type": "integer"}},
            "required": ["name"],
            "additionalProperties": false
        });
        assert!(paths(schema.clone(), json!({"name": "n", "a/b": 1})).is_empty());
        assert_eq!(paths(schema.clone(), json!({"name": 1})), ["/name"]);
        assert_eq!(paths(schema.clone(), json!({"name": "n", "a/b": "x"})), ["/a~1b"], "keys are escaped");
        let missing = errors(schema.clone(), json!({}));
        assert_eq!(missing, [("".to_string(), "\"name\" is a required property".to_string())]);
        let extra = errors(schema.clone(), json!({"name": "n", "nmae": "m"}));
        assert_eq!(extra, [("".to_string(), "additional property \"nmae\" is not allowed".to_string())]);
        assert!(paths(schema, json!("not an object")).len() == 1, "only type applies to a string");

        let open = json!({"properties": {"a": {"type": "string"}}});
        assert!(paths(open, json!({"a": "x", "b": 1})).is_empty(), "additionalProperties defaults to anything");
        let typed = json!({"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}});
        assert_eq!(paths(typed.clone(), json!({"a": "x", "b": 1, "c": "y"})), ["/b"]);
        assert!(paths(typed, json!({"a": "x", "b": "z"})).is_empty());
    }

    #[test]
    fn items_apply_to_every_element() {
        let schema = json!({"type": "array", "items": {"enum": ["x", "y"]}});
        assert!(paths(schema.clone(), json!([])).is_empty());
        assert!(paths(schema.clone(), json!(["y", "x"])).is_empty());
        assert_eq!(paths(schema.clone(), json!(["x", "z", "y", 1])), ["/1", "/3"]);
        assert!(paths(json!({"items": false}), json!([])).is_empty());
        assert_eq!(paths(json!({"items": false}), json!([1])), ["/0"]);
    }

    #[test]
    fn refs_resolve_in_defs_and_apply_with_their_siblings() {
        let schema = json!({
            "properties": {
                "mode": {"$ref": "#/$defs/Mode", "description": "ignored", "default": "B"},
                "nested": {"$ref": "#/$defs/a~1b"},
                "both": {"$ref": "#/$defs/Mode", "const": "A"},
                "self": {"$ref": "#"}
            },
            "additionalProperties": false,
            "$defs": {"Mode": {"type": "string", "enum": ["A", "B"]}, "a/b": {"$ref": "#/$defs/Mode"}}
        });
        assert!(paths(schema.clone(), json!({"mode": "B", "nested": "A", "both": "A"})).is_empty());
        assert_eq!(paths(schema.clone(), json!({"mode": "C"})), ["/mode"]);
        assert_eq!(paths(schema.clone(), json!({"nested": 1})), ["/nested", "/nested"], "type and enum both fail");
        assert_eq!(paths(schema.clone(), json!({"both": "B"})), ["/both"], "const beside $ref applies too");
        assert_eq!(paths(schema.clone(), json!({"self": {"self": {"mode": "X"}}})), ["/self/self/mode"]);
        assert_eq!(paths(schema, json!({"self": {"other": 1}})), ["/self"]);
    }

    #[test]
    fn all_any_one_of() {
        let string = json!({"type": "string"});
        let short = json!({"enum": ["a", "b", 1]});
        assert!(paths(json!({"allOf": [string, short]}), json!("a")).is_empty());
        assert_eq!(paths(json!({"allOf": [string, short]}), json!(1)), [""]);
        assert_eq!(paths(json!({"allOf": [string, short]}), json!(true)), ["", ""]);

        let nullable_ref = json!({"anyOf": [{"$ref": "#/$defs/S"}, {"type": "null"}], "$defs": {"S": {"type": "object", "additionalProperties": false}}});
        assert!(paths(nullable_ref.clone(), json!(null)).is_empty());
        assert!(paths(nullable_ref.clone(), json!({})).is_empty());
        assert_eq!(paths(nullable_ref.clone(), json!({"x": 1})), [""]);
        assert_eq!(paths(nullable_ref, json!("s")), [""]);

        let one = json!({"oneOf": [string, short]});
        assert!(paths(one.clone(), json!("c")).is_empty(), "only the first matches");
        assert!(paths(one.clone(), json!(1)).is_empty(), "only the second matches");
        assert_eq!(paths(one.clone(), json!("a")), [""], "both match");
        assert_eq!(paths(one, json!(null)), [""], "neither matches");
    }

    #[test]
    fn boolean_schemas() {
        assert!(paths(json!(true), json!({"anything": [1]})).is_empty());
        assert_eq!(paths(json!(false), json!(null)), [""]);
    }

    #[test]
    fn annotations_never_reject() {
        let schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "x", "title": "t", "description": "d", "default": 1, "examples": [2], "$comment": "c"});
        assert!(paths(schema, json!("anything")).is_empty());
    }

    #[test]
    fn counts_bounds_and_uniqueness_are_checked_and_format_only_annotates() {
        let schema = json!({"type": "array", "minItems": 1, "uniqueItems": true, "items": {"type": "integer", "minimum": 1, "maximum": 3, "format": "int32"}});
        assert!(paths(schema.clone(), json!([1, 2, 3])).is_empty());
        assert_eq!(paths(schema.clone(), json!([])), [""]);
        assert_eq!(paths(schema.clone(), json!([1, 1.0])), [""], "1 and 1.0 are one value");
        assert_eq!(paths(schema.clone(), json!([0, 4])), ["/0", "/1"]);
        let defs = json!({"$ref": "#/definitions/A", "definitions": {"A": {"type": "string"}}});
        assert_eq!(paths(defs, json!(1)), [""], "draft-07's definitions hold schemas for $ref");
    }

    #[test]
    fn schemas_it_cannot_check_fully_are_refused() {
        for schema in [
            json!({"type": "string", "pattern": "^a"}),
            json!({"minItems": -1}),
            json!({"uniqueItems": "yes"}),
            json!({"minimum": "1"}),
            json!({"$defs": {"A": {"maxLength": 3}}}),
            json!({"items": [{"type": "string"}]}),
            json!({"prefixItems": [{"type": "string"}]}),
            json!({"$ref": "#/$defs/Missing"}),
            json!({"$ref": "other.json#/a"}),
            json!({"$ref": "#/$defs/%41", "$defs": {"A": true}}),
            json!({"type": "text"}),
            json!({"type": []}),
            json!({"required": "name"}),
            json!({"enum": "a"}),
            json!({"anyOf": []}),
            json!({"properties": {"a": 1}}),
            json!(3),
        ] {
            assert!(Validator::new(&schema).is_err(), "{schema} must be refused");
        }
    }

    #[test]
    fn a_ref_that_never_reaches_the_instance_is_an_error_not_a_hang() {
        let schema = json!({"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}});
        assert_eq!(paths(schema, json!(1)), [""]);
    }
}
