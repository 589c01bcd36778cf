//! Reading bundle images from OCI image layouts, as operator-controller
//! pulls them: by digest, an index's instance picked for the platform,
//! every blob checked against its digest and size, the layers applied in
//! order with their whiteouts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::blob::{blob_path, check_size, open_regular, read_json};
use super::digest::Digest;
use super::error::{io_at, ImageError};
use super::layers::{BundleImage, Reading, Tree};
use super::manifest::{is_layer, names_index, Descriptor, Document, Kind};
use super::platform::Platform;

/// The label catalogd reads to find a catalog image's file-based catalog.
pub const CONFIGS_LABEL: &str = "operators.operatorframework.io.index.configs.v1";

/// A catalog image's catalog, as catalogd reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogImage {
    /// The image manifest read.
    pub digest: Digest,
    /// Every file under the labelled folder, by its path below it, sorted.
    pub files: Vec<(String, Vec<u8>)>,
}

/// How deep indexes may nest (an index's instance an index, and so on).
const MAX_DEPTH: usize = 8;

/// The OCI image layouts read, and every manifest and index they reach
/// from their `index.json`.
#[derive(Debug)]
pub struct Layouts {
    roots: Vec<PathBuf>,
    known: BTreeMap<Digest, Known>,
    tops: Vec<(Digest, Option<String>)>,
}

/// A manifest or index reached: the layout that reached it first, and the
/// descriptor it was reached by.
#[derive(Debug)]
struct Known {
    layout: usize,
    descriptor: Descriptor,
}

impl Layouts {
    /// Reads the layouts at `paths`: each an OCI image layout, or a folder
    /// whose subfolders up to two levels down that are layouts are read (a
    /// folder holding none gives none). Every index reached is read and
    /// checked here; manifests and layers are read by [`Layouts::bundle`].
    pub fn open(paths: &[&Path]) -> Result<Layouts, ImageError> {
        let mut layouts = Layouts { roots: Vec::new(), known: BTreeMap::new(), tops: Vec::new() };
        for path in paths {
            for root in find_layouts(path)? {
                layouts.add(root)?;
            }
        }
        Ok(layouts)
    }

    fn add(&mut self, root: PathBuf) -> Result<(), ImageError> {
        check_version(&root)?;
        let path = root.join("index.json");
        let bytes = read_json(&path, "index.json", None)?;
        let index = Document::parse(&bytes, &path)?;
        let layout = self.roots.len();
        self.roots.push(root);
        for descriptor in index.manifests.unwrap_or_default() {
            self.tops.push((descriptor.digest.clone(), descriptor.ref_name().map(str::to_string)));
            self.reach(layout, descriptor, 0)?;
        }
        Ok(())
    }

    /// Records `descriptor`'s manifest or index and, for an index, what it
    /// reaches.
    fn reach(&mut self, layout: usize, descriptor: Descriptor, depth: usize) -> Result<(), ImageError> {
        if self.known.contains_key(&descriptor.digest) {
            return Ok(());
        }
        if depth > MAX_DEPTH {
            let what = format!("image indexes nested deeper than {MAX_DEPTH}");
            return Err(ImageError::Unsupported { digest: descriptor.digest, what });
        }
        let look = names_index(&descriptor.media_type) || descriptor.media_type.is_empty();
        self.known.insert(descriptor.digest.clone(), Known { layout, descriptor: descriptor.clone() });
        if !look {
            return Ok(());
        }
        let (found_in, document, kind) = self.read_document(layout, &descriptor)?;
        if kind == Kind::Index {
            for instance in document.manifests.unwrap_or_default() {
                self.reach(found_in, instance, depth + 1)?;
            }
        }
        Ok(())
    }

    /// Adds the image `digest` of the layout at `root` (read already, or
    /// read now): an image pulled into the cache after the layouts were
    /// opened, found without reading every `index.json` again.
    pub fn add_image(&mut self, root: &Path, digest: &Digest) -> Result<(), ImageError> {
        let layout = match self.roots.iter().position(|r| r == root) {
            Some(layout) => layout,
            None => {
                check_version(root)?;
                self.roots.push(root.to_path_buf());
                self.roots.len() - 1
            }
        };
        let path = blob_path(root, digest);
        let bytes = read_json(&path, "image manifest or index", None)?;
        if &Digest::of(&bytes) != digest {
            return Err(ImageError::Mismatch { digest: digest.clone(), found: Digest::of(&bytes), path });
        }
        let document = Document::parse(&bytes, &path)?;
        let kind = document.kind(digest, "")?;
        let media_type = document.media_type(kind);
        self.reach(layout, Descriptor::new(&media_type, digest.clone(), bytes.len() as u64), 0)
    }

    /// Whether a layout read reaches the manifest or index `digest`.
    pub fn holds(&self, digest: &Digest) -> bool {
        self.known.contains_key(digest)
    }

    /// The manifests and indexes the layouts' `index.json` files list, in
    /// their order, each with its `org.opencontainers.image.ref.name`.
    pub fn digests(&self) -> impl Iterator<Item = (&Digest, Option<&str>)> {
        self.tops.iter().map(|(digest, name)| (digest, name.as_deref()))
    }

    /// The bundle image `digest` names, a manifest or an index (then its
    /// instance for `platform`), with its layers applied.
    pub fn bundle(&self, digest: &Digest, platform: &Platform) -> Result<BundleImage, ImageError> {
        let (tree, _) = self.applied(digest, platform, |_, image| Ok(Tree::new(image)))?;
        tree.into_bundle()
    }

    /// The catalog image `digest` names: the files of the folder its label
    /// `operators.operatorframework.io.index.configs.v1` names, as catalogd
    /// reads it, by their path below that folder; and the image manifest read.
    pub fn catalog(&self, digest: &Digest, platform: &Platform) -> Result<CatalogImage, ImageError> {
        let (tree, image) = self.applied(digest, platform, |config, image| {
            let label = config.pointer(&format!("/config/Labels/{}", CONFIGS_LABEL.replace('/', "~1")));
            let folder = label.and_then(serde_json::Value::as_str).ok_or_else(|| ImageError::Unsupported {
                digest: image.clone(),
                what: format!("an image without the label {CONFIGS_LABEL}, so not a catalog image"),
            })?;
            let folder =
                super::layers::normalise(folder).filter(|f| !f.is_empty()).ok_or_else(|| ImageError::Unsupported {
                    digest: image.clone(),
                    what: format!("its label {CONFIGS_LABEL} names {folder:?}, which is not a folder inside the image"),
                })?;
            Ok(Tree::reading(image, Reading::Catalog(folder)))
        })?;
        let files = tree.into_catalog()?;
        if files.is_empty() {
            let what = format!("the folder its label {CONFIGS_LABEL} names holds no files");
            return Err(ImageError::Unsupported { digest: image, what });
        }
        Ok(CatalogImage { digest: image, files })
    }

    /// The image `digest` names resolved for `platform`, its config read and
    /// checked, and its layers applied to the tree `tree` makes of the config.
    fn applied(
        &self,
        digest: &Digest,
        platform: &Platform,
        tree: impl FnOnce(&serde_json::Value, Digest) -> Result<Tree, ImageError>,
    ) -> Result<(Tree, Digest), ImageError> {
        let known = self.known.get(digest).ok_or_else(|| ImageError::NotFound {
            digest: digest.clone(),
            layouts: self.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", "),
        })?;
        let (layout, image, document) = self.resolve(known.layout, &known.descriptor, platform)?;
        let unsupported = |what: &str| ImageError::Unsupported { digest: image.clone(), what: what.to_string() };
        let config = document.config.as_ref().ok_or_else(|| unsupported("an image manifest without a config"))?;
        let (_, config_path) = self.find_blob(layout, &config.digest)?;
        let bytes = read_json(&config_path, "image config", Some((&config.digest, config.size)))?;
        let config: serde_json::Value = serde_json::from_slice(&bytes).map_err(|source| ImageError::Json {
            path: config_path.clone(),
            what: "image config",
            source,
        })?;
        let mut tree = tree(&config, image.clone())?;
        for layer in document.layers.as_deref().unwrap_or_default() {
            if !is_layer(&layer.media_type) {
                return Err(ImageError::LayerType {
                    image: image.clone(),
                    layer: layer.digest.clone(),
                    media_type: layer.media_type.clone(),
                });
            }
            let (_, path) = self.find_blob(layout, &layer.digest)?;
            let (file, len) = open_regular(&path)?;
            check_size(&path, &layer.digest, layer.size, len)?;
            tree.apply_layer(file, &path, layer)?;
        }
        Ok((tree, image))
    }

    /// The image manifest `descriptor` names, through indexes: where it was
    /// found, its digest and the manifest.
    fn resolve(
        &self,
        layout: usize,
        descriptor: &Descriptor,
        platform: &Platform,
    ) -> Result<(usize, Digest, Document), ImageError> {
        let (mut layout, mut descriptor) = (layout, descriptor.clone());
        for _ in 0..=MAX_DEPTH {
            let (found_in, document, kind) = self.read_document(layout, &descriptor)?;
            if kind == Kind::Manifest {
                return Ok((found_in, descriptor.digest, document));
            }
            let instances = document.manifests.unwrap_or_default();
            descriptor = pick(&descriptor.digest, &instances, platform)?.clone();
            layout = found_in;
        }
        let what = format!("image indexes nested deeper than {MAX_DEPTH}");
        Err(ImageError::Unsupported { digest: descriptor.digest, what })
    }

    /// The manifest or index `descriptor` names, checked, and what it is.
    fn read_document(&self, layout: usize, descriptor: &Descriptor) -> Result<(usize, Document, Kind), ImageError> {
        let (found_in, path) = self.find_blob(layout, &descriptor.digest)?;
        let bytes = read_json(&path, "image manifest or index", Some((&descriptor.digest, descriptor.size)))?;
        let document = Document::parse(&bytes, &path)?;
        let kind = document.kind(&descriptor.digest, &descriptor.media_type)?;
        Ok((found_in, document, kind))
    }

    /// Where blob `digest` is: in layout `layout`, else the first other
    /// layout holding it.
    fn find_blob(&self, layout: usize, digest: &Digest) -> Result<(usize, PathBuf), ImageError> {
        let order = std::iter::once(layout).chain((0..self.roots.len()).filter(|i| *i != layout));
        for i in order {
            let Some(root) = self.roots.get(i) else { continue };
            let path = blob_path(root, digest);
            if path.symlink_metadata().is_ok() {
                return Ok((i, path));
            }
        }
        let layout = self.roots.get(layout).cloned().unwrap_or_default();
        Err(ImageError::MissingBlob { digest: digest.clone(), layout })
    }
}

/// The instance of index `index` for `platform`; an instance that is an
/// index naming no platform is looked into when none names it.
///
/// Where the index offers more than one image for the platform's os and
/// architecture (variants, or one per compression), which one a node pulls
/// depends on its CPU and on the puller's preferences (containers/image
/// prefers an exact variant, then zstd, then the first): nothing tells which
/// image the cluster installs, so the index is refused.
fn pick<'a>(index: &Digest, instances: &'a [Descriptor], platform: &Platform) -> Result<&'a Descriptor, ImageError> {
    let same_cpu = |p: &Platform| p.os == platform.os && p.architecture == platform.architecture;
    let mut candidates: Vec<&Descriptor> =
        instances.iter().filter(|d| d.platform.as_ref().is_some_and(same_cpu)).collect();
    candidates.dedup_by(|a, b| a.digest == b.digest);
    if candidates.len() > 1 {
        let offered: Vec<String> = candidates
            .iter()
            .map(|d| format!("{} {}", d.platform.as_ref().map(Platform::to_string).unwrap_or_default(), d.digest))
            .collect();
        return Err(ImageError::Unsupported {
            digest: index.clone(),
            what: format!(
                "an image index with {} images for {}/{} ({}): which one a node pulls depends on its CPU variant and the puller's preferences (compression), so what the cluster installs cannot be told",
                candidates.len(),
                platform.os,
                platform.architecture,
                offered.join(", ")
            ),
        });
    }
    let named = instances.iter().find(|d| d.platform.as_ref().is_some_and(|p| platform.matches(p)));
    let nested = || instances.iter().find(|d| d.platform.is_none() && names_index(&d.media_type));
    named.or_else(nested).ok_or_else(|| {
        let offered: Vec<String> =
            instances.iter().filter_map(|d| d.platform.as_ref()).map(Platform::to_string).collect();
        ImageError::NoPlatform {
            digest: index.clone(),
            platform: platform.to_string(),
            offered: if offered.is_empty() { "none".to_string() } else { offered.join(", ") },
        }
    })
}

/// Whether `dir` holds an `oci-layout` file.
fn is_layout(dir: &Path) -> bool {
    dir.join("oci-layout").symlink_metadata().is_ok()
}

/// The layouts at `path`: itself, or its subfolders up to two levels down.
fn find_layouts(path: &Path) -> Result<Vec<PathBuf>, ImageError> {
    let meta = std::fs::metadata(path).map_err(io_at(path))?;
    if is_layout(path) {
        return Ok(vec![path.to_path_buf()]);
    }
    if !meta.is_dir() {
        return Err(ImageError::NotLayout { path: path.to_path_buf() });
    }
    let mut found = Vec::new();
    for child in subfolders(path)? {
        if is_layout(&child) {
            found.push(child);
            continue;
        }
        found.extend(subfolders(&child)?.into_iter().filter(|grandchild| is_layout(grandchild)));
    }
    Ok(found)
}

/// The folders in `dir` (not links to folders), sorted.
fn subfolders(dir: &Path) -> Result<Vec<PathBuf>, ImageError> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_at(dir))? {
        let entry = entry.map_err(io_at(dir))?;
        if entry.file_type().map_err(io_at(&entry.path()))?.is_dir() {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}

/// An error unless `root/oci-layout` names layout version 1.0.0.
pub(super) fn check_version(root: &Path) -> Result<(), ImageError> {
    #[derive(serde::Deserialize)]
    struct OciLayout {
        #[serde(rename = "imageLayoutVersion", default)]
        version: String,
    }
    let path = root.join("oci-layout");
    let bytes = read_json(&path, "oci-layout file", None)?;
    let layout: OciLayout = serde_json::from_slice(&bytes).map_err(|source| ImageError::Json {
        path: path.clone(),
        what: "oci-layout file",
        source,
    })?;
    if layout.version != "1.0.0" {
        return Err(ImageError::LayoutVersion { path, found: layout.version });
    }
    Ok(())
}
