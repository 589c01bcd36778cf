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
    match value {
        Value::Object(map) => {
            let mut seen: BTreeMap<String, &str> = BTreeMap::new();
            for (key, inner) in map {
                let fold = folded(key);
                if let Some(other) = seen.insert(fold.clone(), key) {
                    return Err(format!(
                        "{at}: keys {other:?} and {key:?} differ only in case, and OLM reads them as one"
                    ));
                }
                if let Some(field) = fields.iter().find(|f| folded(f) == fold && **f != key) {
                    return Err(format!("{at}: key {key:?} is read by OLM as {field:?}; write it so"));
                }
                check_folding(inner, fields, &format!("{at}.{key}"))?;
            }
            Ok(())
        }
        Value::Array(items) => {
            items.iter().enumerate().try_for_each(|(i, v)| check_folding(v, fields, &format!("{at}[{i}]")))
        }
        _ => Ok(()),
    }
}
