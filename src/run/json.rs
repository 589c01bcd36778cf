//! `render -o json`: the output as one `v1` `List`, the way `kubectl get -o
//! json` prints several objects (its keys in kubectl's order, indented by
//! four spaces), so that `jq '.items[]'` finds every object, however many.
//!
//! The input's objects are written with the values olm-rbac read, which are
//! the values kubectl reads, but for plain scalars that YAML 1.1 (kubectl)
//! reads otherwise than YAML 1.2 (`0644`, `1e3`): an item holding one is an
//! error that names it, since only `-o yaml` passes it through as written.

use serde_json::{json, Value};

use crate::findings::{Code, FileRef, Finding, ObjRef};
use crate::plan::Object;
use crate::yaml;

/// One object of the output.
pub(super) enum Item<'a> {
    /// An input document's text (edited where the plan says), its object, where it starts and its file.
    Text { text: &'a str, object: ObjRef, line: usize, file: &'a FileRef },
    /// An object olm-rbac generated.
    Object(&'a Object),
}

/// The items as a `List`, or the error of the first that cannot be written.
pub(super) fn list<'a>(items: impl Iterator<Item = Item<'a>>) -> Result<String, Box<Finding>> {
    let mut values = Vec::new();
    for item in items {
        values.push(match item {
            Item::Text { text, object, line, file } => yaml::json_value(text).map_err(|(at, why)| {
                let at = at.map(|l| format!(" (line {})", line + l - 1)).unwrap_or_default();
                Finding::error(Code::OutputFailed, format!("cannot be written as JSON: {why}{at}"))
                    .on(&object)
                    .in_file(Some(file))
            })?,
            Item::Object(o) => serde_json::to_value(o).map_err(|e| {
                Box::new(Finding::error(Code::OutputFailed, format!("could not write {} as JSON: {e}", o.describe())))
            })?,
        });
    }
    let list = json!({"apiVersion": "v1", "items": values, "kind": "List", "metadata": {"resourceVersion": ""}});
    Ok(pretty(&list))
}

/// JSON indented by four spaces, as kubectl prints it, with a final newline.
fn pretty(value: &Value) -> String {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    // Writing a Value to memory cannot fail, and serde_json writes UTF-8.
    let _ = serde::Serialize::serialize(value, &mut serializer);
    let mut text = String::from_utf8(out).unwrap_or_default();
    text.push('\n');
    text
}
