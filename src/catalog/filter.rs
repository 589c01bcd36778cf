//! `catalog filter`: the judged catalog. Every bundle of a file-based catalog
//! is judged as `catalog judge` judges it; the catalog is written again with
//! only the bundles that pass, so that OLM v1, upgrading on its own inside a
//! `ClusterExtension`'s range, can only reach judged bundles.
//!
//! Three steps. The catalog is read and every bundle judged, a document at a
//! time (as `catalog audit` reads it). Then, from values alone, what is kept
//! ([`Kept`]): the bundles that pass, each package's channels rewired
//! ([`super::graph`]), the deprecations that still name something. Then the
//! catalog's files are read again, each document written as it is read
//! (kept, rewired or left out) into one file, `catalog.json`, which replaces
//! the output folder's only once every document is written: a refusal
//! leaves nothing behind. A file that changed between the reads is refused.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::graph::{self, Filtered};
use super::report::Row;
use super::{read, Images, INPUT_ERROR};
use crate::outcome::Outcome;

mod image;
mod report;

pub use report::{json_schema, Report};

/// What `catalog filter` takes.
pub struct FilterArgs<'a> {
    /// The file-based catalog: a file or folder of olm.package, olm.channel and olm.bundle documents.
    pub catalog: &'a Path,
    /// Bundle images and folders (`--bundles`), and the platform.
    pub bundles: super::BundleArgs<'a>,
    /// The admin's RBACConfigs, which judge every bundle: each package's, else the one naming none.
    pub configs: &'a super::Configs,
    /// The folder the judged catalog is written to, as `catalog.json`.
    pub output: &'a Path,
    /// `--allow-tag-images`: a bundle image named by tag may be kept.
    pub allow_tag_images: bool,
    /// `--image-layout`: also write the judged catalog as an image, in this OCI image layout.
    pub image_layout: Option<&'a Path>,
    /// `--push`: also push that image to this reference (with a tag).
    pub push: Option<&'a str>,
    /// How the report is written to standard output.
    pub report: Report,
}

/// The name of the one file the judged catalog is written to.
pub const CATALOG_FILE: &str = "catalog.json";

/// Judges every bundle of the catalog and writes the ones that pass.
pub fn filter(args: &FilterArgs<'_>) -> Outcome {
    let target = match output_file(args.output) {
        Ok(target) => target,
        Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    let mut bundles = match super::bundles::Bundles::open(&args.bundles) {
        Ok(bundles) => bundles,
        Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    let (_extracted, path) = match super::catalog_at(&mut bundles, args.catalog) {
        Ok(at) => at,
        Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    let (catalog, rows) = match super::audit_all(&path, &mut bundles, |e| args.configs.chosen(&e.package)) {
        Ok((catalog, Ok(rows))) => (catalog, rows),
        Ok((_, Err(e))) | Err(e) => return Outcome::failure(&e, INPUT_ERROR),
    };
    if catalog.entries.is_empty() {
        let said = format!("the catalog {} lists no bundles: nothing was written", args.catalog.display());
        return Outcome::failure(&said, crate::outcome::Exit::Refused);
    }
    let packages = match packages_of(&catalog) {
        Ok(packages) => packages,
        Err(e) => return Outcome::failure(format!("{}: {e}", args.catalog.display()), INPUT_ERROR),
    };
    let images = if args.allow_tag_images { Images::Any } else { Images::ByDigest };
    let kept = Kept::decide(&packages, &rows, images);
    if kept.bundles.is_empty() {
        let said = match kept.refused.as_slice() {
            [] => format!("no bundle of {} passes: nothing was written", args.catalog.display()),
            refused => format!(
                "no package of {} can be served with only the bundles that pass ({}): nothing was written",
                args.catalog.display(),
                refused.iter().map(|(_, why)| why.as_str()).collect::<Vec<_>>().join("; ")
            ),
        };
        let written = report::write(&catalog, rows, &kept, images, args.report, &said);
        return Outcome { code: crate::outcome::Exit::Refused, ..args.configs.warn(catalog.package_names(), written) };
    }
    if let Err(e) = write_catalog(&catalog, &kept, &target) {
        return Outcome::failure(&e, INPUT_ERROR);
    }
    let mut said = format!("wrote {}", target.display());
    if let Some(layout) = args.image_layout {
        let tls_verify = args.bundles.pull.as_ref().is_none_or(|p| p.tls_verify);
        match image::write(&target, layout).and_then(|digest| image::push(layout, &digest, args.push, tls_verify)) {
            Ok(said_image) => said.push_str(&said_image),
            Err(e) => return Outcome::failure(&e, INPUT_ERROR),
        }
    }
    args.configs.warn(catalog.package_names(), report::write(&catalog, rows, &kept, images, args.report, &said))
}

/// Where the judged catalog goes: `catalog.json` in the output folder, which
/// holds nothing else (opm serves every file of a catalog's folder, so
/// anything beside it would be served unjudged).
fn output_file(folder: &Path) -> Result<PathBuf, String> {
    match std::fs::read_dir(folder) {
        Ok(entries) => {
            let mut others: Vec<String> = entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| name != CATALOG_FILE)
                .collect();
            others.sort();
            if !others.is_empty() {
                return Err(format!(
                    "{}: holds {} beside {CATALOG_FILE}; opm would serve every file of the folder with the judged catalog, so give an empty or new folder",
                    folder.display(),
                    others.join(", ")
                ));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("{}: {e}", folder.display())),
    }
    Ok(folder.join(CATALOG_FILE))
}

/// Each package's upgrade graph, checked as opm checks a catalog before it
/// serves it: one `olm.package` per package, with a default channel among its
/// channels; each channel of a known package, named once, each entry once,
/// and one opm accepts ([`graph::opm_refuses`]); each bundle of a known
/// package, in a channel, at a version opm reads. A catalog opm refuses
/// cannot be written as opm expects it.
fn packages_of(catalog: &read::Catalog) -> Result<Vec<graph::Package>, String> {
    let refused = |what: String| Err(format!("{what}; opm refuses such a catalog"));
    let mut packages: BTreeMap<&str, graph::Package> = BTreeMap::new();
    for (name, default_channel) in &catalog.packages {
        let package = graph::Package {
            name: name.clone(),
            default_channel: default_channel.clone(),
            channels: Vec::new(),
            bundles: BTreeMap::new(),
        };
        // A second package of one name is refused as it is read (`read::check_filing`).
        if name.is_empty() {
            return refused("olm.package: name: empty".into());
        }
        packages.insert(name, package);
    }
    for (package, channel) in &catalog.channels {
        let Some(p) = packages.get_mut(package.as_str()) else {
            return refused(format!("olm.channel {:?}: package: {package:?} has no olm.package", channel.name));
        };
        let mut names = BTreeSet::new();
        if channel.name.is_empty() {
            return refused(format!("olm.channel of package {package:?}: name: empty"));
        }
        if let Some(twice) = channel.links.iter().find(|l| !names.insert(&l.name)) {
            return refused(format!(
                "olm.channel {:?} of package {package:?}: entries: {:?} twice",
                channel.name, twice.name
            ));
        }
        if let Some(why) = graph::opm_refuses(channel) {
            return refused(format!("olm.channel {:?} of package {package:?}: {why}", channel.name));
        }
        p.channels.push(channel.clone());
    }
    for entry in &catalog.entries {
        let Some(p) = packages.get_mut(entry.package.as_str()) else {
            return refused(format!("olm.bundle {:?}: package: {:?} has no olm.package", entry.name, entry.package));
        };
        if entry.channels.is_empty() {
            return refused(format!("olm.bundle {:?} of package {:?}: in no channel", entry.name, entry.package));
        }
        let version = entry.written_version.as_deref().and_then(crate::semver::blang::parse_strict);
        if version.is_none() {
            return refused(format!(
                "olm.bundle {:?}: properties: olm.package version {:?} is not a strict semantic version",
                entry.name,
                entry.written_version.as_deref().unwrap_or_default()
            ));
        }
        p.bundles.insert(entry.name.clone(), version);
    }
    for p in packages.values() {
        let default = p.default_channel.as_deref().unwrap_or_default();
        if !p.channels.iter().any(|c| c.name == default) {
            return refused(format!(
                "olm.package {:?}: defaultChannel: {default:?} is not one of its channels",
                p.name
            ));
        }
    }
    Ok(packages.into_values().collect())
}

/// What the judged catalog keeps, decided from the values alone.
pub(super) struct Kept {
    /// (package, bundle) of every bundle kept.
    bundles: BTreeSet<(String, String)>,
    /// Each package that keeps a bundle: its channels as rewired.
    packages: BTreeMap<String, Filtered>,
    /// The packages that keep none, left out whole.
    dropped: Vec<String>,
    /// The packages whose passing bundles cannot be served as opm and OLM
    /// v1 expect, left out whole, each with why.
    refused: Vec<(String, String)>,
}

impl Kept {
    /// The bundles that pass as `catalog judge` passes them (its policy's
    /// verdict, installable, its image by digest unless tags are accepted),
    /// and each package's graph without the others.
    ///
    /// A package whose passing bundles cannot be served as opm and OLM v1
    /// expect (its default channel keeps none while others do, a channel opm
    /// would refuse) is left out whole, with why, and the rest is kept: one
    /// unservable package does not cost the others their judged bundles.
    fn decide(packages: &[graph::Package], rows: &[Row], images: Images) -> Kept {
        let bundles: BTreeSet<(String, String)> =
            rows.iter().filter(|r| r.passes(images)).map(|r| (r.package.clone(), r.bundle.clone())).collect();
        let mut kept = Kept { bundles, packages: BTreeMap::new(), dropped: Vec::new(), refused: Vec::new() };
        for p in packages {
            let names: BTreeSet<&str> =
                kept.bundles.iter().filter(|(pkg, _)| *pkg == p.name).map(|(_, b)| b.as_str()).collect();
            match graph::filter(p, &names) {
                Ok(filtered) if filtered.channels.is_empty() => kept.dropped.push(p.name.clone()),
                Ok(filtered) => {
                    kept.packages.insert(p.name.clone(), filtered);
                }
                Err(why) => kept.refused.push((p.name.clone(), why)),
            }
        }
        kept.bundles.retain(|(package, _)| !kept.refused.iter().any(|(p, _)| p == package));
        kept
    }

    /// The document as the judged catalog holds it, if it holds it.
    fn document(&self, mut value: Value) -> Option<Value> {
        let schema = value.get("schema").and_then(Value::as_str).unwrap_or_default().to_string();
        let field = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
        let package = if schema == "olm.package" { field(&value, "name") } else { field(&value, "package") };
        match schema.as_str() {
            "olm.bundle" => self.bundles.contains(&(package, field(&value, "name"))).then_some(value),
            "olm.channel" => {
                let channel = self.packages.get(&package)?.channels.iter().find(|c| c.name == field(&value, "name"))?;
                rewire(&mut value, channel);
                Some(value)
            }
            "olm.deprecations" => {
                let filtered = self.packages.get(&package)?;
                let entries = value.get_mut("entries").and_then(Value::as_array_mut)?;
                entries.retain(|e| {
                    let reference = |key| e.get("reference").and_then(|r| r.get(key)).and_then(Value::as_str);
                    match (reference("schema"), reference("name").unwrap_or_default()) {
                        (Some("olm.bundle"), name) => self.bundles.contains(&(package.clone(), name.to_string())),
                        (Some("olm.channel"), name) => filtered.channels.iter().any(|c| c.name == name),
                        _ => true,
                    }
                });
                (!entries.is_empty()).then_some(value)
            }
            // The package's own document, and any other schema (served as written).
            _ => (package.is_empty() || self.packages.contains_key(&package)).then_some(value),
        }
    }
}

/// The channel document's entries as `channel` keeps them: an entry left
/// out is removed; a kept entry whose edges changed gets its new `replaces`
/// and `skips`; every other entry, and every other key, stays as written.
fn rewire(value: &mut Value, channel: &graph::Channel) {
    let Some(entries) = value.get_mut("entries").and_then(Value::as_array_mut) else { return };
    entries.retain(|e| {
        let name = e.get("name").and_then(Value::as_str).unwrap_or_default();
        channel.links.iter().any(|l| l.name == name)
    });
    for entry in entries.iter_mut() {
        let name = entry.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
        let (Some(link), Some(map)) = (channel.links.iter().find(|l| l.name == name), entry.as_object_mut()) else {
            continue;
        };
        let replaces = map.get("replaces").and_then(Value::as_str).filter(|r| !r.is_empty());
        if replaces != link.replaces.as_deref() {
            match &link.replaces {
                Some(r) => map.insert("replaces".into(), Value::String(r.clone())),
                None => map.remove("replaces"),
            };
        }
        let skips: Vec<&str> =
            map.get("skips").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        if skips != link.skips.iter().map(String::as_str).collect::<Vec<_>>() {
            match link.skips.is_empty() {
                true => map.remove("skips"),
                false => map.insert("skips".into(), link.skips.iter().cloned().map(Value::String).collect()),
            };
        }
    }
}

/// Writes every document the judged catalog keeps, in the catalog's order,
/// to `target` through a file beside it that replaces it once all is written.
fn write_catalog(catalog: &read::Catalog, kept: &Kept, target: &Path) -> Result<(), String> {
    let folder = target.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let partial = folder.join(format!(".{CATALOG_FILE}.partial"));
    let written = (|| {
        let file = std::fs::File::create(&partial).map_err(|e| format!("{}: {e}", partial.display()))?;
        let mut out = std::io::BufWriter::new(file);
        let failed = |e: std::io::Error| format!("{}: {e}", partial.display());
        catalog.each_document(|_, value| {
            if let Some(value) = kept.document(value) {
                serde_json::to_writer_pretty(&mut out, &value).map_err(|e| failed(e.into()))?;
                out.write_all(b"\n").map_err(failed)?;
            }
            Ok(())
        })?;
        out.flush().map_err(failed)?;
        std::fs::rename(&partial, target).map_err(|e| format!("{}: {e}", target.display()))
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}
