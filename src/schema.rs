//! The JSON Schemas olm-rbac publishes (`olm-rbac schema`): each from its
//! Rust type, with its `$id`, written one way.

use schemars::JsonSchema;

/// The JSON Schema of `T` under the id `https://olm-rbac.io/schemas/v1alpha1/<name>.json`,
/// pretty-printed with a final line break.
pub(crate) fn text_of<T: JsonSchema>(name: &str) -> String {
    let mut schema = schemars::schema_for!(T);
    schema.insert("$id".into(), format!("https://olm-rbac.io/schemas/v1alpha1/{name}.json").into());
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}
