//! How Go's `encoding/json` matches an object's keys to a struct's fields,
//! which OLM's readers (operator-controller, opm) decode through: whatever
//! their case, with Unicode's simple folding (`ſ` is `s`, the Kelvin sign
//! `K` is `k`; no other character folds onto ASCII), the last matching key
//! winning. olm-rbac reads keys exactly, so [`check_folding`] refuses what
//! the two would read apart. One place for this fact, for every reader that
//! holds a document to it (catalogs, a bundle's `metadata/annotations.yaml`).

use std::collections::BTreeMap;

use serde_json::Value;

/// A key as Go's case-insensitive matching sees it.
pub(crate) fn folded(key: &str) -> String {
    key.chars()
        .map(|c| match c {
            '\u{17f}' => 's',
            '\u{212a}' => 'k',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// Refuses, at any depth of `value`, a key Go would read as one of `fields`
/// but that is not written exactly so, and two keys Go would read as one.
pub(crate) fn check_folding(value: &Value, fields: &[&str], at: &str) -> Result<(), String> {
    // Folded once, not once per key: a catalog document has thousands.
    let fields: Vec<(String, &str)> = fields.iter().map(|f| (folded(f), *f)).collect();
    check_within(value, &fields, &mut Vec::new()).map_err(|(path, why)| format!("{at}{path}: {why}"))
}

/// A step of the path to a value: an object's key or an array's index.
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

/// [`check_folding`] below `path`; the error names the path (said only
/// then, never built for a value that passes) and what is wrong there.
fn check_within<'v>(
    value: &'v Value,
    fields: &[(String, &str)],
    path: &mut Vec<Step<'v>>,
) -> Result<(), (String, String)> {
    let said = |path: &[Step<'_>], why: String| {
        let path = path.iter().map(|s| match s {
            Step::Key(k) => format!(".{k}"),
            Step::Index(i) => format!("[{i}]"),
        });
        (path.collect(), why)
    };
    match value {
        Value::Object(map) => {
            let mut seen: BTreeMap<String, &str> = BTreeMap::new();
            for (key, inner) in map {
                let fold = folded(key);
                if let Some(other) = seen.get(&fold) {
                    return Err(said(
                        path,
                        format!("keys {other:?} and {key:?} differ only in case, and OLM reads them as one"),
                    ));
                }
                if let Some((_, field)) = fields.iter().find(|(f, name)| *f == fold && name != key) {
                    return Err(said(path, format!("key {key:?} is read by OLM as {field:?}; write it so")));
                }
                seen.insert(fold, key);
                path.push(Step::Key(key));
                check_within(inner, fields, path)?;
                path.pop();
            }
            Ok(())
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Step::Index(i));
                check_within(item, fields, path)?;
                path.pop();
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
