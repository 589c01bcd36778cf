//! Reading a file-based catalog a document at a time, and the
//! ClusterExtension whose admitted bundles are judged.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::{Entry, Wanted};
use crate::input::Source;
use crate::semver::{Range, Version};

/// The fields of a catalog document (`olm.package`, `olm.channel`,
/// `olm.bundle`) resolution and judging read.
#[derive(Deserialize)]
struct Doc {
    schema: Option<String>,
    name: Option<String>,
    package: Option<String>,
    #[serde(default)]
    entries: Vec<ChannelEntry>,
    #[serde(default)]
    properties: Vec<Property>,
    image: Option<String>,
}

#[derive(Deserialize)]
struct ChannelEntry {
    name: String,
}

#[derive(Deserialize)]
struct Property {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    value: Value,
}

/// The catalog's files: every file of its folder, whatever its name, as
/// OLM's loader reads them (walked as every command walks a path: no link
/// leading out).
fn files(catalog: &Path) -> Result<Vec<PathBuf>, String> {
    let files = crate::input::catalog_files(catalog)?;
    if files.is_empty() {
        return Err(format!("{}: no catalog files found", catalog.display()));
    }
    Ok(files)
}

/// The fields OLM reads from a catalog's documents, at any depth. OLM reads
/// them as Go's JSON decoder does, matching a key to a field whatever its
/// case (and with Unicode's simple folding: `ſ` is `s`, `K` is `k`), the
/// last such key winning. olm-rbac reads keys exactly, so a key OLM would
/// read as one of these but that is not written exactly so, or two keys OLM
/// would read as one, could show olm-rbac another bundle than OLM installs:
/// both are refused.
const FIELDS: [&str; 16] = [
    "schema",
    "package",
    "name",
    "entries",
    "properties",
    "type",
    "value",
    "packageName",
    "version",
    "release",
    "data",
    "ref",
    "replaces",
    "skips",
    "skipRange",
    "image",
];

/// A key as Go's case-insensitive matching sees it.
fn folded(key: &str) -> String {
    key.chars()
        .map(|c| match c {
            '\u{17f}' => 's',
            '\u{212a}' => 'k',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// Refuses keys OLM would read otherwise than olm-rbac (see [`FIELDS`]).
fn check_keys(value: &Value, at: &str) -> Result<(), String> {
    match value {
        Value::Object(map) => {
            let mut seen: std::collections::BTreeMap<String, &str> = Default::default();
            for (key, inner) in map {
                let fold = folded(key);
                if let Some(other) = seen.insert(fold.clone(), key) {
                    return Err(format!(
                        "{at}: keys {other:?} and {key:?} differ only in case, and OLM reads them as one"
                    ));
                }
                if let Some(field) = FIELDS.iter().find(|f| folded(f) == fold && **f != key) {
                    return Err(format!("{at}: key {key:?} is read by OLM as {field:?}; write it so"));
                }
                check_keys(inner, &format!("{at}.{key}"))?;
            }
            Ok(())
        }
        Value::Array(items) => items.iter().enumerate().try_for_each(|(i, v)| check_keys(v, &format!("{at}[{i}]"))),
        _ => Ok(()),
    }
}

/// Calls `each` with every document of the catalog, one at a time.
fn documents(catalog: &Path, mut each: impl FnMut(Doc) -> Result<(), String>) -> Result<(), String> {
    for path in files(catalog)? {
        let file = File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut reader = BufReader::new(file);
        let where_ = |e: &dyn std::fmt::Display| format!("{}: not a file-based catalog: {e}", path.display());
        let mut one = |i: usize, value: Value| -> Result<(), String> {
            check_keys(&value, &format!("{} document {i}", path.display()))?;
            each(serde_json::from_value(value).map_err(|e| where_(&e))?)
        };
        if path.extension().is_some_and(|e| e == "json") {
            for (i, doc) in serde_json::Deserializer::from_reader(reader).into_iter::<Value>().enumerate() {
                one(i, doc.map_err(|e| where_(&e))?)?;
            }
        } else {
            for (i, doc) in serde_saphyr::read::<_, Value>(&mut reader).enumerate() {
                one(i, doc.map_err(|e| where_(&e))?)?;
            }
        }
    }
    Ok(())
}

/// Every bundle the catalog lists, with its channels; the manifests are counted, not kept.
pub(super) fn entries(catalog: &Path) -> Result<Vec<Entry>, String> {
    let mut bundles: Vec<Entry> = Vec::new();
    let mut channels: Vec<(String, String, Vec<String>)> = Vec::new();
    documents(catalog, |doc| {
        match doc.schema.as_deref() {
            Some("olm.bundle") => {
                let name = doc.name.clone().ok_or("an olm.bundle without a name")?;
                let package = doc.package.clone().unwrap_or_default();
                let version = doc
                    .properties
                    .iter()
                    .find(|p| p.kind == "olm.package")
                    .and_then(|p| p.value.get("version")?.as_str().map(str::to_string))
                    .and_then(|v| Version::parse(&v).ok());
                let objects = doc.properties.iter().filter(|p| p.kind == "olm.bundle.object").count();
                let image = doc.image.clone();
                bundles.push(Entry { name, package, version, channels: Vec::new(), objects, image });
            }
            Some("olm.channel") => {
                let entries = doc.entries.iter().map(|e| e.name.clone()).collect();
                channels.push((doc.package.unwrap_or_default(), doc.name.unwrap_or_default(), entries));
            }
            _ => {}
        }
        Ok(())
    })?;
    check_names(&bundles)?;
    for (package, channel, names) in channels {
        for b in bundles.iter_mut().filter(|b| b.package == package && names.contains(&b.name)) {
            b.channels.push(channel.clone());
        }
    }
    Ok(bundles)
}

/// A bundle's name becomes a folder's name (its manifests', and under
/// `--bundles` the folder they are read from), so it must be a Kubernetes
/// object name, as a CSV's is, and name one bundle: a catalog's `../other`
/// would have another folder judged in its place.
fn check_names(bundles: &[Entry]) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    let mut versions = std::collections::BTreeSet::new();
    for b in bundles {
        if !crate::names::is_dns1123_subdomain(&b.name) {
            return Err(format!(
                "olm.bundle {:?}: name: not a Kubernetes object name (lowercase letters, digits, '-' and '.'), so it cannot name the bundle's folder",
                b.name
            ));
        }
        if let Some(v) = b.version.as_ref().filter(|v| !versions.insert((&b.package, v.to_string()))) {
            return Err(format!(
                "olm.bundle {:?}: properties: olm.package version {v}: another bundle of package {:?} has that version; which one OLM v1 installs cannot be told",
                b.name, b.package
            ));
        }
        if !seen.insert((&b.package, &b.name)) {
            return Err(format!(
                "olm.bundle {:?}: name: the catalog lists two bundles of that name in package {:?}; which one OLM v1 installs cannot be told",
                b.name, b.package
            ));
        }
    }
    Ok(())
}

/// Calls `each` for every admitted bundle, in catalog order, with its
/// manifests when the catalog carries them (`olm.bundle.object`, decoded).
pub(super) fn each_bundle(
    catalog: &Path,
    admitted: &[Entry],
    mut each: impl FnMut(&Entry, Option<Vec<Source>>) -> Result<(), String>,
) -> Result<(), String> {
    documents(catalog, |doc| {
        if doc.schema.as_deref() != Some("olm.bundle") {
            return Ok(());
        }
        let Some(entry) = admitted.iter().find(|e| Some(&e.name) == doc.name.as_ref()) else { return Ok(()) };
        let mut objects = Vec::new();
        for (i, p) in doc.properties.iter().filter(|p| p.kind == "olm.bundle.object").enumerate() {
            let data = p.value.get("data").and_then(Value::as_str).unwrap_or_default();
            let bytes = base64(data).ok_or_else(|| {
                format!("bundle {}: properties: olm.bundle.object #{i}: data is not base64", entry.name)
            })?;
            let text = String::from_utf8(bytes)
                .map_err(|_| format!("bundle {}: properties: olm.bundle.object #{i}: data is not UTF-8", entry.name))?;
            objects.push(Source { name: format!("{}/manifests/object-{i:03}.json", entry.name), text });
        }
        each(entry, (!objects.is_empty()).then_some(objects))
    })
}

/// Standard base64 (padding optional); `None` for anything else.
fn base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let bytes = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        let take = match chunk.len() {
            4 => 3,
            3 => 2,
            2 => 1,
            _ => return None,
        };
        out.extend_from_slice(&n.to_be_bytes()[1..1 + take]);
    }
    Some(out)
}

/// What the ClusterExtension (the only one in `sources`) asks for, read
/// through the planner's own view of one (`model::ExtensionView`).
pub(super) fn extension(sources: &[Source]) -> Result<Wanted, String> {
    use crate::model::{view_for, ExtensionView, ViewKind};
    let mut found = Vec::new();
    for s in sources {
        let chunks = crate::yaml::split_documents(&s.text).map_err(|e| format!("{}: {}", s.name, e.message))?;
        for chunk in chunks.iter().filter(|c| view_for(&c.header) == Some(ViewKind::Extension)) {
            let view: ExtensionView =
                crate::yaml::parse_item(chunk).map_err(|e| format!("{}: {}", s.name, e.message))?;
            found.push((s, view));
        }
    }
    let [(source, view)] = found.as_slice() else {
        return Err(format!(
            "-f must hold exactly one ClusterExtension (olm.operatorframework.io/v1); it holds {}",
            found.len()
        ));
    };
    let catalog = view.spec.source.catalog.clone().unwrap_or_default();
    let package = catalog
        .package_name
        .ok_or_else(|| format!("{}: ClusterExtension: spec.source.catalog.packageName is missing", source.name))?;
    let range = match catalog.version.filter(|v| !v.is_empty()) {
        None => None,
        Some(v) => Some(
            Range::parse(&v)
                .map_err(|e| format!("{}: ClusterExtension: spec.source.catalog.version: {e}", source.name))?,
        ),
    };
    let self_certified = catalog.upgrade_constraint_policy.as_deref() == Some("SelfCertified");
    Ok(Wanted { package, range, channels: catalog.channels, self_certified })
}

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn base64_decodes_with_and_without_padding_and_refuses_the_rest() {
        assert_eq!(base64("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64("aGVsbG8").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64("aGk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64("a$==").as_deref(), None);
        assert_eq!(base64("a"), None);
    }
}
