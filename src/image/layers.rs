//! Applying an image's layers in order, as OLM's unpacker does, keeping only
//! what OLM reads of a bundle: `manifests/` and `metadata/`.
//!
//! A layer is streamed (hashing reader, decompressor, tar reader) and read
//! to its last byte; its changes are applied only once its bytes are known
//! to be the blob its digest names.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use super::blob::check_size;
use super::decompress::decompressed;
use super::digest::{Digest, Hashing};
use super::error::ImageError;
use super::headers::{Header, Kind};
use super::manifest::Descriptor;

/// What OLM reads of a bundle image: `manifests/` and
/// `metadata/annotations.yaml`, once its layers are applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleImage {
    /// The image manifest read: the digest asked, or the instance an index
    /// gave for the platform.
    pub digest: Digest,
    /// The regular files directly in `manifests/`, by file name, sorted.
    pub manifests: Vec<(String, Vec<u8>)>,
    /// The folders in `manifests/` (`manifests/sub`), sorted: OLM refuses a
    /// bundle with any.
    pub subfolders: Vec<String>,
    /// `metadata/annotations.yaml`, which OLM v1 requires.
    pub annotations: Option<Vec<u8>>,
}

/// The most bytes kept of `manifests/` and `metadata/` (file contents and
/// paths, over all layers).
pub(super) const KEPT_LIMIT: u64 = 128 << 20;

/// The most bytes kept of a catalog image's catalog.
pub(super) const CATALOG_LIMIT: u64 = 1 << 30;

/// What the layers applied so far leave of what is read: `manifests/` and
/// `metadata/` of a bundle, the catalog's folder of a catalog image.
pub(super) struct Tree {
    image: Digest,
    nodes: BTreeMap<String, Node>,
    kept: u64,
    reading: Reading,
    /// Every symbolic link any layer made, anywhere in the image: an entry
    /// below one would be written through it.
    links: BTreeSet<String>,
}

/// What of an image is read.
pub(super) enum Reading {
    /// A bundle, as operator-controller reads one.
    Bundle,
    /// A catalog image's catalog: every file under this folder (normalised),
    /// as catalogd reads the folder its label names.
    Catalog(String),
}

impl Reading {
    fn kept(&self, path: &str) -> bool {
        match self {
            Reading::Bundle => kept(path),
            Reading::Catalog(dir) => path == dir || path.strip_prefix(dir.as_str()).is_some_and(|r| r.starts_with('/')),
        }
    }

    fn keeps_contents(&self, path: &str) -> bool {
        match self {
            Reading::Bundle => keeps_contents(path),
            Reading::Catalog(_) => self.kept(path),
        }
    }

    fn limit(&self) -> u64 {
        match self {
            Reading::Bundle => KEPT_LIMIT,
            Reading::Catalog(_) => CATALOG_LIMIT,
        }
    }
}

/// An entry of the tree; only files OLM reads keep their contents.
enum Node {
    Dir,
    File(Vec<u8>),
    /// A link, and the layer that put it there.
    Link(Digest),
}

/// One layer's changes, applied to the tree below them at once (a whiteout
/// hides only what lower layers gave, wherever it is in the layer's tar).
#[derive(Default)]
struct Changes {
    opaques: Vec<String>,
    whiteouts: Vec<String>,
    adds: Vec<(String, Node)>,
    kept: u64,
    /// The symbolic links this layer made, and the paths where it replaced or
    /// whited out a lower layer's link, in the order of its entries.
    links: BTreeSet<String>,
    unlinked: BTreeSet<String>,
}

/// Whether OLM reads anything at `path` (`manifests`, `metadata` or below).
fn kept(path: &str) -> bool {
    let first = path.split('/').next().unwrap_or_default();
    first == "manifests" || first == "metadata"
}

/// Whether OLM reads the contents of the file at `path`.
fn keeps_contents(path: &str) -> bool {
    path == "metadata/annotations.yaml" || path.strip_prefix("manifests/").is_some_and(|name| !name.contains('/'))
}

/// `path` without leading `./` and `/`, `.` components and empty ones;
/// `None` when a component is `..`.
pub(super) fn normalise(path: &str) -> Option<String> {
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// The folder and name of a path (`("", name)` at the top).
fn split_last(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

impl Tree {
    /// An empty tree for the image manifest `image`.
    pub fn new(image: Digest) -> Tree {
        Tree::reading(image, Reading::Bundle)
    }

    /// An empty tree for the image manifest `image`, keeping what `reading` reads.
    pub fn reading(image: Digest, reading: Reading) -> Tree {
        Tree { image, nodes: BTreeMap::new(), kept: 0, reading, links: BTreeSet::new() }
    }

    /// Reads the layer `descriptor` names from `file` (the blob at `path`)
    /// and applies it, unless its bytes are not that blob.
    pub fn apply_layer(&mut self, file: File, path: &Path, descriptor: &Descriptor) -> Result<(), ImageError> {
        let layer = &descriptor.digest;
        let mut hashing = Hashing::new(file);
        let changes = {
            let mut buffered = BufReader::new(&mut hashing);
            let changes = self.read_layer(&mut buffered, layer);
            let drained = io::copy(&mut buffered, &mut io::sink());
            drained.map_err(|source| ImageError::Layer { layer: layer.clone(), source }).and(changes)
        };
        let (found, size) = hashing.finish();
        if &found != layer {
            return Err(ImageError::Mismatch { digest: layer.clone(), found, path: path.to_path_buf() });
        }
        check_size(path, layer, descriptor.size, size)?;
        self.apply(changes?, layer)
    }

    fn read_layer(&self, source: &mut BufReader<&mut Hashing<File>>, layer: &Digest) -> Result<Changes, ImageError> {
        let broken = |source| ImageError::Layer { layer: layer.clone(), source };
        let mut archive = tar::Archive::new(decompressed(source).map_err(broken)?);
        let mut changes = Changes { kept: self.kept, ..Changes::default() };
        let mut headers = super::headers::Headers::default();
        for entry in archive.entries().map_err(broken)?.raw(true) {
            let mut entry = entry.map_err(broken)?;
            let refused = |why| ImageError::Header { layer: layer.clone(), why };
            if let super::headers::Step::Entry(header) = headers.read(&mut entry).map_err(refused)? {
                self.read_entry(&mut changes, layer, header, &mut entry)?;
            }
        }
        // The rest of the stream after the tar's end: the compressed
        // stream's own checks (gzip's CRC) run, and every byte is hashed.
        io::copy(&mut archive.into_inner(), &mut io::sink()).map_err(broken)?;
        Ok(changes)
    }

    fn read_entry<R: Read>(
        &self,
        changes: &mut Changes,
        layer: &Digest,
        header: Header,
        entry: &mut tar::Entry<'_, R>,
    ) -> Result<(), ImageError> {
        let written = header.path;
        let path = normalise(&written).ok_or_else(|| ImageError::Climb { layer: layer.clone(), path: written })?;
        self.check_not_under_link(changes, layer, &path)?;
        // An entry replaces a link at its path (an unpacker removes what is
        // there first); a whiteout removes it.
        let replaced = match split_last(&path).1.strip_prefix(".wh.") {
            Some(hidden) if !hidden.starts_with(".wh.") => {
                let dir = split_last(&path).0;
                if dir.is_empty() {
                    hidden.to_string()
                } else {
                    format!("{dir}/{hidden}")
                }
            }
            _ => path.clone(),
        };
        if changes.links.remove(&replaced) || self.links.contains(&replaced) {
            changes.unlinked.insert(replaced);
        }
        if header.kind == Kind::Symlink {
            changes.links.insert(path.clone());
        }
        let (dir, name) = split_last(&path);
        if name == ".wh..wh..opq" {
            if dir.is_empty() || self.reading.kept(dir) {
                changes.keep(self, dir.len() as u64)?;
                changes.opaques.push(dir.to_string());
            }
            return Ok(());
        }
        if name.starts_with(".wh..wh.") {
            return Ok(());
        }
        if let Some(hidden) = name.strip_prefix(".wh.") {
            let target = if dir.is_empty() { hidden.to_string() } else { format!("{dir}/{hidden}") };
            if !hidden.is_empty() && self.reading.kept(&target) {
                changes.keep(self, target.len() as u64)?;
                changes.whiteouts.push(target);
            }
            return Ok(());
        }
        if !self.reading.kept(&path) {
            return Ok(());
        }
        let node = self.node(changes, layer, &path, header.kind, entry)?;
        changes.keep(self, path.len() as u64)?;
        changes.adds.push((path, node));
        Ok(())
    }

    fn node<R: Read>(
        &self,
        changes: &mut Changes,
        layer: &Digest,
        path: &str,
        kind: Kind,
        entry: &mut tar::Entry<'_, R>,
    ) -> Result<Node, ImageError> {
        Ok(match kind {
            Kind::File if self.reading.keeps_contents(path) => {
                changes.keep(self, entry.size())?;
                let mut contents = Vec::new();
                entry
                    .read_to_end(&mut contents)
                    .map_err(|source| ImageError::Layer { layer: layer.clone(), source })?;
                Node::File(contents)
            }
            Kind::File => Node::File(Vec::new()),
            Kind::Dir => Node::Dir,
            Kind::Symlink | Kind::Hardlink => Node::Link(layer.clone()),
            Kind::Special(kind) => {
                return Err(ImageError::Special {
                    layer: layer.clone(),
                    path: path.to_string(),
                    kind: kind.to_string(),
                });
            }
        })
    }

    /// An error when a folder above `path` is a symbolic link some layer
    /// made (this one included): OLM's unpacker would write through it, to
    /// wherever it points, so what lands where cannot be told.
    fn check_not_under_link(&self, changes: &Changes, layer: &Digest, path: &str) -> Result<(), ImageError> {
        let mut end = 0;
        while let Some(slash) = path[end..].find('/') {
            end += slash;
            let parent = &path[..end];
            let lower = self.links.contains(parent) && !changes.unlinked.contains(parent);
            if lower || changes.links.contains(parent) {
                let (path, link) = (path.to_string(), parent.to_string());
                return Err(ImageError::UnderLink { layer: layer.clone(), path, link });
            }
            end += 1;
        }
        Ok(())
    }

    /// Applies a layer's changes: opaque folders and whiteouts first, then
    /// its entries in order.
    fn apply(&mut self, changes: Changes, layer: &Digest) -> Result<(), ImageError> {
        for dir in &changes.opaques {
            self.remove_below(dir);
        }
        for path in &changes.whiteouts {
            self.nodes.remove(path);
            self.remove_below(path);
        }
        for (path, node) in changes.adds {
            self.make_parents(&path, layer)?;
            match (&node, self.nodes.get(&path)) {
                (Node::Dir, Some(Node::Dir)) => {}
                _ => {
                    self.remove_below(&path);
                    self.nodes.insert(path, node);
                }
            }
        }
        self.kept = changes.kept;
        self.links.retain(|l| !changes.unlinked.contains(l));
        self.links.extend(changes.links);
        Ok(())
    }

    /// Makes every folder above `path` a folder: a file there is replaced,
    /// a link there is an error (the layer would write through it).
    fn make_parents(&mut self, path: &str, layer: &Digest) -> Result<(), ImageError> {
        let mut end = 0;
        while let Some(slash) = path[end..].find('/') {
            end += slash;
            let parent = &path[..end];
            match self.nodes.get(parent) {
                Some(Node::Dir) => {}
                Some(Node::Link(_)) => {
                    return Err(ImageError::Link { layer: layer.clone(), path: parent.to_string() });
                }
                _ => {
                    self.nodes.insert(parent.to_string(), Node::Dir);
                }
            }
            end += 1;
        }
        Ok(())
    }

    /// Removes everything below the folder `dir` (everything, for `""`).
    fn remove_below(&mut self, dir: &str) {
        if dir.is_empty() {
            self.nodes.clear();
            return;
        }
        let prefix = format!("{dir}/");
        let below: Vec<String> = self
            .nodes
            .range(prefix.clone()..)
            .map(|(k, _)| k)
            .take_while(|k| k.starts_with(&prefix))
            .cloned()
            .collect();
        for key in below {
            self.nodes.remove(&key);
        }
    }

    /// What OLM reads of the image: the files directly in `manifests/`, the
    /// folders in it, and `metadata/annotations.yaml`.
    pub fn into_bundle(self) -> Result<BundleImage, ImageError> {
        let image = self.image;
        if let Some((path, Node::Link(layer))) = self.nodes.iter().find(|(_, node)| matches!(node, Node::Link(_))) {
            return Err(ImageError::Link { layer: layer.clone(), path: path.clone() });
        }
        if let Some(Node::File(_)) = self.nodes.get("manifests") {
            return Err(ImageError::Shape { image, path: "manifests".into(), what: "a file, not a folder" });
        }
        let annotations = match self.nodes.get("metadata/annotations.yaml") {
            Some(Node::Dir) => {
                return Err(ImageError::Shape {
                    image,
                    path: "metadata/annotations.yaml".into(),
                    what: "a folder, not a file",
                });
            }
            Some(Node::File(contents)) => Some(contents.clone()),
            _ => None,
        };
        let (mut manifests, mut subfolders) = (Vec::new(), Vec::new());
        for (path, node) in self.nodes {
            let Some(name) = path.strip_prefix("manifests/") else { continue };
            match node {
                _ if name.contains('/') => {}
                Node::File(contents) => manifests.push((name.to_string(), contents)),
                Node::Dir => subfolders.push(path),
                Node::Link(_) => {}
            }
        }
        Ok(BundleImage { digest: image, manifests, subfolders, annotations })
    }
}

impl Tree {
    /// The files under the catalog's folder, by their path below it, sorted;
    /// a link there is refused (catalogd would follow it out of the folder).
    pub fn into_catalog(self) -> Result<Vec<(String, Vec<u8>)>, ImageError> {
        let Reading::Catalog(dir) = &self.reading else { return Ok(Vec::new()) };
        let prefix = format!("{dir}/");
        let mut files = Vec::new();
        for (path, node) in &self.nodes {
            let Some(below) = path.strip_prefix(&prefix) else { continue };
            match node {
                Node::Link(layer) => return Err(ImageError::Link { layer: layer.clone(), path: path.clone() }),
                Node::File(contents) => files.push((below.to_string(), contents.clone())),
                Node::Dir => {}
            }
        }
        Ok(files)
    }
}

impl Changes {
    /// Counts `bytes` more kept; an error past [`KEPT_LIMIT`].
    fn keep(&mut self, tree: &Tree, bytes: u64) -> Result<(), ImageError> {
        self.kept = self.kept.saturating_add(bytes);
        let limit = tree.reading.limit();
        if self.kept > limit {
            return Err(ImageError::BundleTooLarge { image: tree.image.clone(), limit });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_lose_their_dots_and_slashes_but_never_climb() {
        assert_eq!(normalise("./manifests/a.yaml").as_deref(), Some("manifests/a.yaml"));
        assert_eq!(normalise("/manifests//./b/").as_deref(), Some("manifests/b"));
        assert_eq!(normalise("manifests/../etc"), None);
        assert!(keeps_contents("manifests/a.yaml") && !keeps_contents("manifests/sub/a.yaml"));
        assert!(kept("metadata") && kept("manifests/x") && !kept("manifestsx") && !kept(""));
    }

    /// Applies the tar `bytes` as a layer to `tree`.
    fn apply(tree: &mut Tree, bytes: &[u8]) -> Result<(), ImageError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("layer");
        std::fs::write(&path, bytes).unwrap();
        let descriptor = Descriptor::new("", Digest::of(bytes), bytes.len() as u64);
        tree.apply_layer(File::open(&path).unwrap(), &path, &descriptor)
    }

    #[test]
    fn what_is_kept_is_capped() {
        let entry = super::super::write::Entry::File { path: "manifests/a.yaml".into(), contents: vec![b'x'; 64] };
        let tar = super::super::write::layer_tar(&super::super::write::Layer { entries: vec![entry] }).unwrap();
        let mut tree = Tree::new(Digest::of(b"image"));
        tree.kept = KEPT_LIMIT - 70;
        assert!(matches!(apply(&mut tree, &tar), Err(ImageError::BundleTooLarge { .. })));
        tree.kept = KEPT_LIMIT - 100;
        assert!(apply(&mut tree, &tar).is_ok());
    }

    #[test]
    fn devices_and_fifos_in_the_bundle_folders_are_refused() {
        let mut builder = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Fifo);
        header.set_size(0);
        builder.append_data(&mut header, "metadata/pipe", &[][..]).unwrap();
        let tar = builder.into_inner().unwrap();
        let err = apply(&mut Tree::new(Digest::of(b"image")), &tar).unwrap_err();
        assert!(matches!(&err, ImageError::Special { kind, .. } if kind == "fifo"), "{err}");
    }
}
