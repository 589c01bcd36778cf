//! Writing images into an OCI image layout, reproducibly: the same
//! specification gives the same bytes, so the same digest (tar entries
//! sorted, times and owners zero, gzip without a timestamp, JSON keys in a
//! fixed order).

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

use super::blob::{blob_path, open_regular, read_json};
use super::digest::{Digest, HashingWriter};
use super::error::{io_at, ImageError};
use super::layout::check_version;
use super::manifest::{
    Descriptor, Document, DOCKER_CONFIG, DOCKER_LIST, DOCKER_MANIFEST, OCI_CONFIG, OCI_INDEX, OCI_MANIFEST, REF_NAME,
};
use super::platform::Platform;

/// An entry of a layer's tar, by its path in the image (`manifests/a.yaml`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A regular file, mode 0644.
    File {
        /// Its path.
        path: String,
        /// Its bytes.
        contents: Vec<u8>,
    },
    /// A folder, mode 0755.
    Dir {
        /// Its path.
        path: String,
    },
    /// A symbolic link.
    Symlink {
        /// Its path.
        path: String,
        /// What it points at.
        target: String,
    },
    /// A hard link.
    Hardlink {
        /// Its path.
        path: String,
        /// The path in the image it links to.
        target: String,
    },
    /// A whiteout: `path` removed from lower layers (`.wh.<name>`).
    Whiteout {
        /// The path removed.
        path: String,
    },
    /// An opaque folder: what lower layers put in `dir` hidden (`.wh..wh..opq`).
    Opaque {
        /// The folder (`""` for the top).
        dir: String,
    },
}

impl Entry {
    /// The path the entry has in the tar.
    fn tar_path(&self) -> String {
        let join = |dir: &str, name: &str| if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") };
        match self {
            Entry::File { path, .. }
            | Entry::Dir { path }
            | Entry::Symlink { path, .. }
            | Entry::Hardlink { path, .. } => path.clone(),
            Entry::Whiteout { path } => match path.rsplit_once('/') {
                Some((dir, name)) => join(dir, &format!(".wh.{name}")),
                None => format!(".wh.{path}"),
            },
            Entry::Opaque { dir } => join(dir.trim_end_matches('/'), ".wh..wh..opq"),
        }
    }
}

/// A layer: its entries, written sorted by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layer {
    /// The entries.
    pub entries: Vec<Entry>,
}

/// How layers are compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// A plain tar.
    None,
    /// gzip, without a timestamp.
    Gzip,
    /// zstd (OCI images only: Docker's manifests name no zstd layer).
    Zstd,
}

/// Which manifest and index media types an image is written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// OCI image manifests and indexes.
    Oci,
    /// Docker schema 2 manifests and manifest lists.
    Docker,
}

/// An image to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageSpec {
    /// Its layers, lowest first.
    pub layers: Vec<Layer>,
    /// The config's `config.Labels`.
    pub labels: BTreeMap<String, String>,
    /// Its platform.
    pub platform: Platform,
    /// How its layers are compressed.
    pub compression: Compression,
    /// Its manifest's format.
    pub format: Format,
}

/// One OCI image layout on disk, written to blob by blob: the images this
/// program writes, and the registry client's cache of what it pulls.
#[derive(Debug)]
pub struct Store {
    root: PathBuf,
}

/// Names temporary files apart within this process.
static TEMP: AtomicU64 = AtomicU64::new(0);

impl Store {
    /// The layout at `dir`, created (folder, `oci-layout`, an empty
    /// `index.json`, `blobs/sha256/`) where absent.
    pub fn open_or_create(dir: &Path) -> Result<Store, ImageError> {
        let blobs = dir.join("blobs").join("sha256");
        fs::create_dir_all(&blobs).map_err(io_at(&blobs))?;
        let store = Store { root: dir.to_path_buf() };
        if dir.join("oci-layout").symlink_metadata().is_ok() {
            check_version(dir)?;
        } else {
            store.write_atomic("oci-layout", br#"{"imageLayoutVersion":"1.0.0"}"#)?;
        }
        if dir.join("index.json").symlink_metadata().is_err() {
            let empty = format!(r#"{{"schemaVersion":2,"mediaType":"{OCI_INDEX}","manifests":[]}}"#);
            store.write_atomic("index.json", empty.as_bytes())?;
        }
        Ok(store)
    }

    /// The layout's folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the layout keeps blob `digest`.
    pub fn blob_path(&self, digest: &Digest) -> PathBuf {
        blob_path(&self.root, digest)
    }

    /// Whether the layout has blob `digest` as a regular file (not checked
    /// here: reading it checks it).
    pub fn has_blob(&self, digest: &Digest) -> bool {
        self.blob_path(digest).symlink_metadata().is_ok_and(|m| m.is_file())
    }

    /// Whether the layout has blob `digest` and its bytes hash to it: a blob
    /// damaged or planted in a cache is then fetched again.
    pub fn has_sound_blob(&self, digest: &Digest) -> bool {
        let Ok((file, _)) = open_regular(&self.blob_path(digest)) else { return false };
        let mut hashing = super::Hashing::new(file);
        io::copy(&mut hashing, &mut io::sink()).is_ok() && &hashing.finish().0 == digest
    }

    /// Streams `body` into blob `expected` (a temporary file renamed in
    /// place once its bytes hash to `expected`), and gives its size. A blob
    /// already there whose bytes are its digest is kept and `body` left
    /// unread; one that is not is replaced.
    pub fn put_blob(&mut self, expected: &Digest, body: &mut dyn Read) -> Result<u64, ImageError> {
        let path = self.blob_path(expected);
        if self.has_sound_blob(expected) {
            return Ok(open_regular(&path)?.1);
        }
        let (temp, file) = self.temp_file()?;
        let written = stream_into(file, body, &temp);
        let result = match written {
            Ok((found, _)) if &found != expected => {
                Err(ImageError::Mismatch { digest: expected.clone(), found, path: path.clone() })
            }
            Ok((_, size)) => fs::rename(&temp, &path).map(|()| size).map_err(io_at(&path)),
            Err(e) => Err(e),
        };
        if result.is_err() {
            let _ = fs::remove_file(&temp);
        }
        result
    }

    /// Writes `bytes` as a blob and gives its digest.
    pub fn put_bytes(&mut self, bytes: &[u8]) -> Result<Digest, ImageError> {
        let digest = Digest::of(bytes);
        self.put_blob(&digest, &mut &bytes[..])?;
        Ok(digest)
    }

    /// Lists `descriptor` in `index.json`, named `ref_name` if given (an
    /// entry of that name is replaced; without a name, an unnamed entry of
    /// the same digest). Other entries and fields are kept as they are.
    pub fn add_to_index(&mut self, descriptor: Descriptor, ref_name: Option<&str>) -> Result<(), ImageError> {
        let path = self.root.join("index.json");
        let bytes = read_json(&path, "index.json", None)?;
        let json_error = |source| ImageError::Json { path: path.clone(), what: "index.json", source };
        let mut index: serde_json::Value = serde_json::from_slice(&bytes).map_err(json_error)?;
        let mut descriptor = descriptor;
        if let Some(name) = ref_name {
            descriptor.annotations.insert(REF_NAME.to_string(), name.to_string());
        }
        let entry = serde_json::to_value(&descriptor).map_err(json_error)?;
        let not_index = || ImageError::Write { reason: format!("{} has no manifests list", path.display()) };
        let list = index
            .as_object_mut()
            .map(|o| o.entry("manifests").or_insert_with(|| serde_json::Value::Array(Vec::new())))
            .and_then(serde_json::Value::as_array_mut)
            .ok_or_else(not_index)?;
        let digest = descriptor.digest.to_string();
        list.retain(|old| {
            let name = old.pointer("/annotations/org.opencontainers.image.ref.name").and_then(|n| n.as_str());
            match ref_name {
                Some(_) => name != ref_name,
                None => name.is_some() || old.get("digest").and_then(|d| d.as_str()) != Some(digest.as_str()),
            }
        });
        list.push(entry);
        let bytes = serde_json::to_vec(&index).map_err(json_error)?;
        self.write_atomic("index.json", &bytes)
    }

    /// A new temporary file in the layout's folder.
    fn temp_file(&self) -> Result<(PathBuf, File), ImageError> {
        let n = TEMP.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let path = self.root.join(format!(".tmp-{}-{n}-{nanos}", std::process::id()));
        let file = OpenOptions::new().write(true).create_new(true).open(&path).map_err(io_at(&path))?;
        Ok((path, file))
    }

    /// Writes the layout's file `name` whole: a temporary file renamed over it.
    fn write_atomic(&self, name: &str, bytes: &[u8]) -> Result<(), ImageError> {
        let (temp, mut file) = self.temp_file()?;
        let target = self.root.join(name);
        let written = file.write_all(bytes).and_then(|()| file.sync_all()).map_err(io_at(&temp));
        let result = written.and_then(|()| fs::rename(&temp, &target).map_err(io_at(&target)));
        if result.is_err() {
            let _ = fs::remove_file(&temp);
        }
        result
    }
}

/// Copies `body` into `file`, hashing it: the digest and size written.
fn stream_into(file: File, body: &mut dyn Read, path: &Path) -> Result<(Digest, u64), ImageError> {
    let mut writer = HashingWriter::new(BufWriter::new(file));
    io::copy(body, &mut writer).map_err(io_at(path))?;
    let (digest, size, buffered) = writer.finish();
    let file =
        buffered.into_inner().map_err(|e| ImageError::Io { path: path.to_path_buf(), source: e.into_error() })?;
    file.sync_all().map_err(io_at(path))?;
    Ok((digest, size))
}

#[derive(Serialize)]
struct ManifestOut<'a> {
    #[serde(rename = "schemaVersion")]
    schema_version: u32,
    #[serde(rename = "mediaType")]
    media_type: &'a str,
    config: Descriptor,
    layers: Vec<Descriptor>,
}

#[derive(Serialize)]
struct IndexOut<'a> {
    #[serde(rename = "schemaVersion")]
    schema_version: u32,
    #[serde(rename = "mediaType")]
    media_type: &'a str,
    manifests: Vec<Descriptor>,
}

#[derive(Serialize)]
struct ConfigOut<'a> {
    architecture: &'a str,
    os: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    variant: Option<&'a str>,
    config: Labels<'a>,
    rootfs: RootFs,
}

#[derive(Serialize)]
struct Labels<'a> {
    #[serde(rename = "Labels")]
    labels: &'a BTreeMap<String, String>,
}

#[derive(Serialize)]
struct RootFs {
    #[serde(rename = "type")]
    kind: &'static str,
    diff_ids: Vec<Digest>,
}

/// JSON bytes of `value`, keys in its fields' order.
fn json<T: Serialize>(value: &T) -> Result<Vec<u8>, ImageError> {
    serde_json::to_vec(value).map_err(|e| ImageError::Write { reason: e.to_string() })
}

/// The media types of an image's layers, config and manifest.
fn media_types(format: Format, compression: Compression) -> Result<[&'static str; 3], ImageError> {
    Ok(match (format, compression) {
        (Format::Oci, Compression::None) => ["application/vnd.oci.image.layer.v1.tar", OCI_CONFIG, OCI_MANIFEST],
        (Format::Oci, Compression::Gzip) => ["application/vnd.oci.image.layer.v1.tar+gzip", OCI_CONFIG, OCI_MANIFEST],
        (Format::Oci, Compression::Zstd) => ["application/vnd.oci.image.layer.v1.tar+zstd", OCI_CONFIG, OCI_MANIFEST],
        (Format::Docker, Compression::None) => {
            ["application/vnd.docker.image.rootfs.diff.tar", DOCKER_CONFIG, DOCKER_MANIFEST]
        }
        (Format::Docker, Compression::Gzip) => {
            ["application/vnd.docker.image.rootfs.diff.tar.gzip", DOCKER_CONFIG, DOCKER_MANIFEST]
        }
        (Format::Docker, Compression::Zstd) => {
            let reason = "Docker image manifests name no zstd layers: write the image in OCI format".to_string();
            return Err(ImageError::Write { reason });
        }
    })
}

/// Writes the image `spec` into the layout at `layout` (created if absent),
/// lists its manifest in `index.json` (named `ref_name` if given), and gives
/// the manifest's digest.
pub fn write_image(layout: &Path, spec: &ImageSpec, ref_name: Option<&str>) -> Result<Digest, ImageError> {
    let [layer_type, config_type, manifest_type] = media_types(spec.format, spec.compression)?;
    let mut store = Store::open_or_create(layout)?;
    let (mut layers, mut diff_ids) = (Vec::new(), Vec::new());
    for layer in &spec.layers {
        let tar = layer_tar(layer).map_err(|e| ImageError::Write { reason: format!("a layer's tar: {e}") })?;
        diff_ids.push(Digest::of(&tar));
        let blob = compress(tar, spec.compression).map_err(|e| ImageError::Write { reason: e.to_string() })?;
        layers.push(Descriptor::new(layer_type, store.put_bytes(&blob)?, blob.len() as u64));
    }
    let platform = &spec.platform;
    let config = json(&ConfigOut {
        architecture: &platform.architecture,
        os: &platform.os,
        variant: platform.variant.as_deref(),
        config: Labels { labels: &spec.labels },
        rootfs: RootFs { kind: "layers", diff_ids },
    })?;
    let config = Descriptor::new(config_type, store.put_bytes(&config)?, config.len() as u64);
    let manifest = json(&ManifestOut { schema_version: 2, media_type: manifest_type, config, layers })?;
    let digest = store.put_bytes(&manifest)?;
    let mut descriptor = Descriptor::new(manifest_type, digest.clone(), manifest.len() as u64);
    descriptor.platform = Some(platform.clone());
    store.add_to_index(descriptor, ref_name)?;
    Ok(digest)
}

/// Writes an image index (a Docker manifest list for [`Format::Docker`])
/// of `instances`, manifests or indexes already in the layout, lists it in
/// `index.json` (named `ref_name` if given), and gives its digest.
pub fn write_index(
    layout: &Path,
    instances: &[(Digest, Platform)],
    format: Format,
    ref_name: Option<&str>,
) -> Result<Digest, ImageError> {
    let mut store = Store::open_or_create(layout)?;
    let mut manifests = Vec::new();
    for (digest, platform) in instances {
        let path = store.blob_path(digest);
        if !store.has_blob(digest) {
            return Err(ImageError::MissingBlob { digest: digest.clone(), layout: layout.to_path_buf() });
        }
        let size = open_regular(&path)?.1;
        let bytes = read_json(&path, "image manifest or index", Some((digest, size)))?;
        let document = Document::parse(&bytes, &path)?;
        let kind = document.kind(digest, "")?;
        let mut descriptor = Descriptor::new(&document.media_type(kind), digest.clone(), size);
        descriptor.platform = Some(platform.clone());
        manifests.push(descriptor);
    }
    let media_type = match format {
        Format::Oci => OCI_INDEX,
        Format::Docker => DOCKER_LIST,
    };
    let index = json(&IndexOut { schema_version: 2, media_type, manifests })?;
    let digest = store.put_bytes(&index)?;
    store.add_to_index(Descriptor::new(media_type, digest.clone(), index.len() as u64), ref_name)?;
    Ok(digest)
}

/// A layer's bytes compressed as asked (gzip without a timestamp).
fn compress(tar: Vec<u8>, compression: Compression) -> io::Result<Vec<u8>> {
    match compression {
        Compression::None => Ok(tar),
        Compression::Gzip => {
            let mut encoder = flate2::GzBuilder::new().mtime(0).write(Vec::new(), flate2::Compression::default());
            encoder.write_all(&tar)?;
            encoder.finish()
        }
        Compression::Zstd => {
            Ok(ruzstd::encoding::compress_to_vec(&tar[..], ruzstd::encoding::CompressionLevel::Fastest))
        }
    }
}

/// A layer's tar: entries sorted by path, times, owners and names zero.
pub(super) fn layer_tar(layer: &Layer) -> io::Result<Vec<u8>> {
    let mut entries: Vec<(String, &Entry)> = layer.entries.iter().map(|e| (e.tar_path(), e)).collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut builder = tar::Builder::new(Vec::new());
    for (path, entry) in entries {
        append(&mut builder, &path, entry)?;
    }
    builder.into_inner()
}

fn append(builder: &mut tar::Builder<Vec<u8>>, path: &str, entry: &Entry) -> io::Result<()> {
    use tar::EntryType as T;
    let mut header = tar::Header::new_gnu();
    header.set_mtime(0);
    header.set_uid(0);
    header.set_gid(0);
    header.set_username("")?;
    header.set_groupname("")?;
    let (kind, mode, contents, target): (T, u32, &[u8], Option<&str>) = match entry {
        Entry::File { contents, .. } => (T::Regular, 0o644, contents, None),
        Entry::Dir { .. } => (T::Directory, 0o755, &[], None),
        Entry::Symlink { target, .. } => (T::Symlink, 0o777, &[], Some(target)),
        Entry::Hardlink { target, .. } => (T::Link, 0o644, &[], Some(target)),
        Entry::Whiteout { .. } | Entry::Opaque { .. } => (T::Regular, 0o644, &[], None),
    };
    header.set_entry_type(kind);
    header.set_mode(mode);
    header.set_size(contents.len() as u64);
    // Short names are written as given, `..` and all: tests write hostile
    // layers with them. Longer ones take the tar crate's GNU long names.
    let fits = |s: &str| s.len() <= 100 && !s.contains('\0');
    if fits(path) && target.is_none_or(fits) {
        let old = header.as_old_mut();
        old.name[..path.len()].copy_from_slice(path.as_bytes());
        if let Some(target) = target {
            old.linkname[..target.len()].copy_from_slice(target.as_bytes());
        }
        header.set_cksum();
        return builder.append(&header, contents);
    }
    match target {
        Some(target) => builder.append_link(&mut header, path, target),
        None => builder.append_data(&mut header, path, contents),
    }
}
