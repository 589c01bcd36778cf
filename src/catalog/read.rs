//! Reading a file-based catalog as opm reads it, and the ClusterExtension
//! whose admitted bundles are judged.
//!
//! opm (and catalogd and operator-controller, which load catalogs with it)
//! reads every file of the catalog's folder that no `.indexignore` ignores
//! ([`crate::input::catalog_files`]), whatever its name, and decodes each by
//! its content (apimachinery's `YAMLOrJSONDecoder`): a stream of JSON values
//! when its first character that is not white space, within its first 4096
//! bytes, is `{` (the whole file as YAML when the first value is not JSON),
//! YAML documents otherwise. olm-rbac decodes each file the same way, the
//! YAML through the reader `render` uses (`yaml::split_documents`, which
//! refuses what go-yaml would read otherwise: merge keys over written keys,
//! line breaks only go-yaml sees, `---` lines only Kubernetes splits at) with
//! an alias budget in proportion to each document's size, so the whole input
//! costs in proportion to its size. Each document's keys are then held to Go's
//! case-insensitive matching ([`check_keys`]).
//!
//! The catalog is read in two passes over its files, each streamed a
//! document at a time: the first reads every document (what resolution
//! needs, where each bundle is, each file's fingerprint), the second, for the
//! admitted bundles only, reads their files again, decodes their manifests,
//! and refuses a file whose bytes changed in between. Memory grows with the
//! largest document, not with the file or the catalog. Who judges every
//! bundle (`catalog audit`) needs no second pass: the first hands each
//! bundle's manifests on as it reads them ([`Catalog::read_with`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::decode::{base64, decode_file};
use super::Entry;

mod extension;
use crate::input::Source;
use crate::semver::Version;
pub(super) use extension::extension;

/// A catalog read once: its bundles, and where each stands.
pub(super) struct Catalog {
    /// Every bundle, in the order opm reads them.
    pub(super) entries: Vec<Entry>,
    files: Vec<PathBuf>,
    /// Each file's fingerprint, to tell a file that changed between the passes.
    fingerprints: Vec<u64>,
    hasher: std::hash::RandomState,
    /// Where each bundle's document is: (package, name) → (file, document,
    /// the line it starts on).
    located: BTreeMap<(String, String), (usize, usize, usize)>,
    /// Every `olm.package`: its name and default channel, in the catalog's order.
    pub(super) packages: Vec<(String, Option<String>)>,
    /// Where each `olm.package` document starts: name → (file, line).
    package_lines: BTreeMap<String, (usize, usize)>,
    /// Every `olm.channel`: its package, and its entries with their edges.
    pub(super) channels: Vec<(String, super::graph::Channel)>,
}

/// Where a catalog's document, or a bundle's manifest, starts: its file and
/// its 1-based line, where code scanning annotates what is said of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Place {
    pub(super) file: PathBuf,
    pub(super) line: usize,
}

#[derive(Deserialize)]
struct BundleDoc {
    name: String,
    #[serde(default)]
    package: String,
    image: Option<String>,
    #[serde(default)]
    properties: Vec<Property>,
}

#[derive(Deserialize)]
struct Property {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    value: Value,
}

#[derive(Deserialize)]
struct ChannelDoc {
    #[serde(default)]
    package: String,
    name: String,
    #[serde(default)]
    entries: Vec<ChannelEntry>,
}

#[derive(Deserialize)]
struct ChannelEntry {
    name: String,
    #[serde(default)]
    replaces: Option<String>,
    /// Go reads a `null` as no skips.
    #[serde(default)]
    skips: Option<Vec<String>>,
    #[serde(default, rename = "skipRange")]
    skip_range: Option<String>,
}

/// `olm.package`: what the filter keeps of it is its default channel.
#[derive(Deserialize)]
struct PackageDoc {
    name: String,
    #[serde(default, rename = "defaultChannel")]
    default_channel: Option<String>,
}

/// `olm.deprecations`: what a package's publisher deprecates.
#[derive(Deserialize)]
struct DeprecationsDoc {
    #[serde(default)]
    package: String,
    #[serde(default)]
    entries: Vec<DeprecationEntry>,
}

#[derive(Deserialize)]
struct DeprecationEntry {
    reference: Reference,
    #[serde(default)]
    message: String,
}

#[derive(Deserialize)]
struct Reference {
    #[serde(default)]
    schema: String,
    #[serde(default)]
    name: String,
}

/// What one document is, for the first pass.
fn typed<T: serde::de::DeserializeOwned>(value: Value, path: &Path, i: usize, what: &str) -> Result<T, String> {
    serde_json::from_value(value)
        .map_err(|e| format!("{} document {i}: not a file-based catalog's {what}: {e}", path.display()))
}

/// What [`Catalog::read_with`] calls for every bundle as its document is
/// read: its entry as far as its own document tells it (no channels, no
/// deprecations: those are read from other documents), and its manifests as
/// [`Catalog::each_bundle`] hands them.
pub(super) type EachRead<'f> = dyn FnMut(Entry, Result<Option<Vec<Source>>, String>) -> Result<(), String> + 'f;

impl Catalog {
    /// The packages it lists: each `olm.package`'s name and each bundle's package.
    pub(super) fn package_names(&self) -> impl Iterator<Item = &str> {
        self.packages.iter().map(|(name, _)| name.as_str()).chain(self.entries.iter().map(|e| e.package.as_str()))
    }

    /// The first pass: every document of every file.
    pub(super) fn read(catalog: &Path) -> Result<Catalog, String> {
        Catalog::read_with(catalog, None)
    }

    /// [`Catalog::read`], each bundle's manifests also decoded and handed to
    /// `each` as its document is read: one pass for those who judge every
    /// bundle (`catalog audit`), with no second pass to see a file change.
    pub(super) fn read_with(catalog: &Path, mut each: Option<&mut EachRead<'_>>) -> Result<Catalog, String> {
        let files = crate::input::catalog_files(catalog).map_err(|e| e.to_string())?;
        if files.is_empty() {
            return Err(format!("{}: no catalog files found", catalog.display()));
        }
        let mut read = Catalog {
            entries: Vec::new(),
            files: Vec::new(),
            fingerprints: Vec::new(),
            hasher: std::hash::RandomState::new(),
            located: BTreeMap::new(),
            packages: Vec::new(),
            package_lines: BTreeMap::new(),
            channels: Vec::new(),
        };
        let mut channels: Vec<ChannelDoc> = Vec::new();
        let mut deprecations: Vec<DeprecationsDoc> = Vec::new();
        let mut filed = BTreeSet::new();
        for (f, path) in files.iter().enumerate() {
            let fingerprint = decode_file(path, &read.hasher, |i, line, value| {
                check_filing(&value, &format!("{} document {i}", path.display()), &mut filed)?;
                match value.get("schema").and_then(Value::as_str) {
                    None | Some("") => {
                        return Err(format!(
                            "{} document {i}: no schema; opm refuses a document without one",
                            path.display()
                        ))
                    }
                    Some("olm.bundle") => {
                        let doc: BundleDoc = typed(value, path, i, "olm.bundle")?;
                        read.located.insert((doc.package.clone(), doc.name.clone()), (f, i, line));
                        let entry = entry_of(&doc)?;
                        if let Some(each) = each.as_deref_mut() {
                            each(entry.clone(), objects_of(&entry, &doc))?;
                        }
                        read.entries.push(entry);
                    }
                    Some("olm.channel") => channels.push(typed(value, path, i, "olm.channel")?),
                    Some("olm.package") => {
                        let doc: PackageDoc = typed(value, path, i, "olm.package")?;
                        read.package_lines.insert(doc.name.clone(), (f, line));
                        read.packages.push((doc.name, doc.default_channel.filter(|d| !d.is_empty())));
                    }
                    Some("olm.deprecations") => deprecations.push(typed(value, path, i, "olm.deprecations")?),
                    Some(_) => {}
                }
                Ok(())
            })?;
            read.fingerprints.push(fingerprint);
        }
        read.files = files;
        check_names(&read.entries)?;
        add_channels(&mut read.entries, &channels)?;
        add_deprecations(&mut read.entries, &channels, &deprecations)?;
        read.channels = channels.into_iter().map(ChannelDoc::into_graph).collect();
        Ok(read)
    }

    /// The second pass: calls `each` for every admitted bundle, in catalog
    /// order, with its manifests when the catalog carries them
    /// (`olm.bundle.object`, decoded), or why they cannot be read.
    pub(super) fn each_bundle<'a>(
        &self,
        admitted: &'a [Entry],
        mut each: impl FnMut(&'a Entry, Result<Option<Vec<Source>>, String>) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut wanted: BTreeMap<usize, BTreeMap<usize, &'a Entry>> = BTreeMap::new();
        for entry in admitted {
            if let Some(&(f, i, _)) = self.located.get(&(entry.package.clone(), entry.name.clone())) {
                wanted.entry(f).or_default().insert(i, entry);
            }
        }
        for (f, docs) in wanted {
            let path = &self.files[f];
            // What was judged from a file that changed since the first pass is
            // thrown away with the error.
            let fingerprint = decode_file(path, &self.hasher, |i, _, value| match docs.get(&i) {
                Some(entry) => {
                    let doc: BundleDoc = typed(value, path, i, "olm.bundle")?;
                    each(entry, objects_of(entry, &doc))
                }
                None => Ok(()),
            })?;
            if fingerprint != self.fingerprints[f] {
                return Err(format!("{}: changed while the catalog was being read; judge it again", path.display()));
            }
        }
        Ok(())
    }
}

impl ChannelDoc {
    /// The channel's package, and the channel as its upgrade graph reads it
    /// (an empty `replaces` or `skipRange` is none, as OLM reads it).
    fn into_graph(self) -> (String, super::graph::Channel) {
        let some = |s: Option<String>| s.filter(|s| !s.is_empty());
        let links = self
            .entries
            .into_iter()
            .map(|e| super::graph::Link {
                name: e.name,
                replaces: some(e.replaces),
                skips: e.skips.unwrap_or_default(),
                skip_range: some(e.skip_range),
            })
            .collect();
        (self.package, super::graph::Channel { name: self.name, links })
    }
}

impl Catalog {
    /// Every document of every file again, in the first pass's order, each
    /// with its file's path: for the filter, which writes what it keeps. A
    /// file whose bytes changed since the first pass is an error, once read
    /// (what was handed on from it must then be thrown away).
    pub(super) fn each_document(&self, mut each: impl FnMut(&Path, Value) -> Result<(), String>) -> Result<(), String> {
        for (path, fingerprint) in self.files.iter().zip(&self.fingerprints) {
            if decode_file(path, &self.hasher, |_, _, value| each(path, value))? != *fingerprint {
                return Err(format!("{}: changed while the catalog was being read; run again", path.display()));
            }
        }
        Ok(())
    }

    /// Where a bundle's `olm.bundle` document starts.
    pub(super) fn place_of(&self, package: &str, name: &str) -> Option<Place> {
        let &(f, _, line) = self.located.get(&(package.to_string(), name.to_string()))?;
        Some(Place { file: self.files.get(f)?.clone(), line })
    }

    /// Where a package's `olm.package` document starts.
    pub(super) fn package_place(&self, package: &str) -> Option<Place> {
        let &(f, line) = self.package_lines.get(package)?;
        Some(Place { file: self.files.get(f)?.clone(), line })
    }
}

/// The schemas OLM v1 resolves from.
const RESOLVED: [&str; 4] = ["olm.package", "olm.channel", "olm.bundle", "olm.deprecations"];

/// Where operator-controller files the document in its cache of the
/// catalog: `<package>/<schema>/<name>.json` (an `olm.package` under its own
/// name, a document without a name under its schema's), the path joined and
/// cleaned, each package then read back from its folder alone, and a later
/// document at the same path replacing an earlier one. So a part that is not
/// one plain path segment (`kube-green/`, `olm.channel/.`, `../x`) files the
/// document as another package's, schema's or name's, and a second document
/// at one path hides the first: both are refused, as is a package name opm
/// refuses (not a DNS-1123 label). `filed`: the paths of the documents OLM
/// resolves from, so far.
fn check_filing(value: &Value, at: &str, filed: &mut BTreeSet<(String, String, String)>) -> Result<(), String> {
    let field = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
    let (schema, name) = (field("schema"), field("name"));
    let package = if schema == "olm.package" { name.clone() } else { field("package") };
    let file = if name.is_empty() { schema.clone() } else { name.clone() };
    for (what, part) in [("package", &package), ("schema", &schema), ("name", &file)] {
        if part.contains('/') || part == "." || part == ".." {
            return Err(format!(
                "{at}: {what} {part:?}: operator-controller files each document at <package>/<schema>/<name>.json, and this one would be filed as another's; refused"
            ));
        }
    }
    if !RESOLVED.contains(&schema.as_str()) {
        return Ok(());
    }
    if !package.is_empty() && !crate::names::is_dns1123_label(&package) {
        return Err(format!("{at}: package {package:?}: not a DNS-1123 label; opm refuses such a package name"));
    }
    // A second olm.deprecations is said where deprecations are read.
    if schema != "olm.deprecations" && !filed.insert((package.clone(), schema.clone(), file)) {
        return Err(format!(
            "{at}: a second {schema} {name:?} of package {package:?}: operator-controller keeps only the last one it reads, so which one OLM resolves from cannot be told; opm refuses it too"
        ));
    }
    Ok(())
}

/// A bundle as resolution reads it.
fn entry_of(doc: &BundleDoc) -> Result<Entry, String> {
    let packages: Vec<&Property> = doc.properties.iter().filter(|p| p.kind == "olm.package").collect();
    let written = match packages.as_slice() {
        [one] if one.value.get("packageName").and_then(Value::as_str) != Some(doc.package.as_str()) => {
            return Err(format!(
                "olm.bundle {:?}: properties: olm.package packageName {:?} is not its package {:?}; opm refuses such a bundle, and which package OLM would take it for cannot be told",
                doc.name,
                one.value.get("packageName").and_then(Value::as_str).unwrap_or_default(),
                doc.package
            ))
        }
        [one] => one.value.get("version").and_then(Value::as_str).map(String::from),
        _ => {
            return Err(format!(
                "olm.bundle {:?}: properties: {} olm.package properties; opm refuses a bundle without exactly one",
                doc.name,
                packages.len()
            ))
        }
    };
    let objects = doc.properties.iter().filter(|p| p.kind == "olm.bundle.object").count();
    Ok(Entry {
        name: doc.name.clone(),
        package: doc.package.clone(),
        version: written.as_deref().and_then(|v| Version::parse(v).ok()),
        written_version: written,
        channels: Vec::new(),
        objects,
        image: doc.image.clone(),
        deprecations: Vec::new(),
    })
}

/// The channels that list each bundle; an entry that names no bundle of its
/// package is refused, as opm refuses the catalog.
fn add_channels(entries: &mut [Entry], channels: &[ChannelDoc]) -> Result<(), String> {
    let names: BTreeSet<(&str, &str)> = entries.iter().map(|e| (e.package.as_str(), e.name.as_str())).collect();
    for channel in channels {
        if let Some(missing) =
            channel.entries.iter().find(|e| !names.contains(&(channel.package.as_str(), e.name.as_str())))
        {
            return Err(format!(
                "olm.channel {:?} of package {:?}: entries: {:?} names no olm.bundle of the package; opm refuses such a catalog",
                channel.name, channel.package, missing.name
            ));
        }
    }
    let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
    for (entry, name) in entries.iter_mut().zip(names) {
        for channel in channels.iter().filter(|c| c.package == entry.package) {
            if channel.entries.iter().any(|e| e.name == name) {
                entry.channels.push(channel.name.clone());
            }
        }
    }
    Ok(())
}

/// What each package's `olm.deprecations` says of each bundle (of it, of a
/// channel that lists it, of its package), checked as opm checks them: at
/// most one per package, each naming a bundle or channel that exists.
fn add_deprecations(entries: &mut [Entry], channels: &[ChannelDoc], docs: &[DeprecationsDoc]) -> Result<(), String> {
    let mut seen = BTreeSet::new();
    for doc in docs {
        let at = format!("olm.deprecations of package {:?}", doc.package);
        if !seen.insert(&doc.package) {
            return Err(format!("{at}: a second one; opm allows at most one per package"));
        }
        for (i, d) in doc.entries.iter().enumerate() {
            let (schema, name) = (d.reference.schema.as_str(), d.reference.name.as_str());
            let applies = |e: &Entry| match schema {
                "olm.package" => true,
                "olm.bundle" => e.name == name,
                _ => e.channels.iter().any(|c| c == name),
            };
            let said = match schema {
                "olm.package" if name.is_empty() => format!("package deprecated: {}", d.message),
                "olm.bundle" if entries.iter().any(|e| e.package == doc.package && e.name == name) => {
                    format!("bundle deprecated: {}", d.message)
                }
                "olm.channel" if channels.iter().any(|c| c.package == doc.package && c.name == name) => {
                    format!("channel {name} deprecated: {}", d.message)
                }
                _ => {
                    return Err(format!(
                        "{at}: entries[{i}]: reference {{schema: {schema:?}, name: {name:?}}} names nothing in the package; opm refuses such a catalog"
                    ))
                }
            };
            for e in entries.iter_mut().filter(|e| e.package == doc.package && applies(e)) {
                e.deprecations.push(said.clone());
            }
        }
    }
    Ok(())
}

/// A bundle's name becomes a folder's name (its manifests', and under
/// `--bundles` the folder they are read from), so it must be a Kubernetes
/// object name, as a CSV's is, and name one bundle: a catalog's `../other`
/// would have another folder judged in its place.
fn check_names(bundles: &[Entry]) -> Result<(), String> {
    // Two bundles of one name are refused as they are read (`check_filing`).
    let mut versions = BTreeSet::new();
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
    }
    Ok(())
}

/// A bundle's manifests as the catalog carries them (`olm.bundle.object`,
/// decoded); `None` when it carries none.
fn objects_of(entry: &Entry, doc: &BundleDoc) -> Result<Option<Vec<Source>>, String> {
    let mut objects = Vec::new();
    for (i, p) in doc.properties.iter().filter(|p| p.kind == "olm.bundle.object").enumerate() {
        let at = format!("bundle {}: properties: olm.bundle.object #{i}", entry.name);
        let data = p.value.get("data").and_then(Value::as_str).ok_or_else(|| format!("{at}: no data"))?;
        let bytes = base64(data).ok_or_else(|| format!("{at}: data is not base64"))?;
        let text = String::from_utf8(bytes).map_err(|_| format!("{at}: data is not UTF-8"))?;
        objects.push(Source { name: format!("{}/manifests/object-{i:03}.json", entry.name), text });
    }
    Ok((!objects.is_empty()).then_some(objects))
}
