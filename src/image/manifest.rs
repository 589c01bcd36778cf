//! The JSON documents of an image (descriptors, manifests, indexes) as serde
//! views, and the media types that say which is which.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::digest::Digest;
use super::error::ImageError;
use super::platform::Platform;

/// OCI image manifest.
pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
/// OCI image index.
pub const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
/// OCI image config.
pub const OCI_CONFIG: &str = "application/vnd.oci.image.config.v1+json";
/// Docker image manifest, schema 2.
pub const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";
/// Docker manifest list.
pub const DOCKER_LIST: &str = "application/vnd.docker.distribution.manifest.list.v2+json";
/// Docker image config.
pub const DOCKER_CONFIG: &str = "application/vnd.docker.container.image.v1+json";
/// The annotation naming an image in a layout's `index.json` (a tag).
pub const REF_NAME: &str = "org.opencontainers.image.ref.name";

/// The layer media types OLM unpacks: OCI tar, gzip and zstd layers, their
/// non-distributable variants, and Docker's layers.
const LAYERS: &[&str] = &[
    "application/vnd.oci.image.layer.v1.tar",
    "application/vnd.oci.image.layer.v1.tar+gzip",
    "application/vnd.oci.image.layer.v1.tar+zstd",
    "application/vnd.oci.image.layer.nondistributable.v1.tar",
    "application/vnd.oci.image.layer.nondistributable.v1.tar+gzip",
    "application/vnd.oci.image.layer.nondistributable.v1.tar+zstd",
    "application/vnd.docker.image.rootfs.diff.tar.gzip",
    "application/vnd.docker.image.rootfs.diff.tar",
];

/// Docker's schema 1 manifests, signed or not.
const SCHEMA1: &[&str] = &[
    "application/vnd.docker.distribution.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v1+prettyjws",
];

/// Whether OLM unpacks a layer of this media type.
pub(super) fn is_layer(media_type: &str) -> bool {
    LAYERS.contains(&media_type)
}

/// A content descriptor: a blob's media type, digest and size, as indexes
/// and manifests name blobs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Descriptor {
    /// The blob's media type (empty when a document omits it).
    #[serde(rename = "mediaType", default)]
    pub media_type: String,
    /// The blob's digest.
    pub digest: Digest,
    /// The blob's size in bytes.
    pub size: u64,
    /// The platform of an index's instance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    /// Annotations (a layout's `index.json` names images by [`REF_NAME`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

impl Descriptor {
    /// A descriptor with no platform and no annotations.
    pub fn new(media_type: &str, digest: Digest, size: u64) -> Descriptor {
        Descriptor { media_type: media_type.to_string(), digest, size, platform: None, annotations: BTreeMap::new() }
    }

    /// Its [`REF_NAME`] annotation.
    pub fn ref_name(&self) -> Option<&str> {
        self.annotations.get(REF_NAME).map(String::as_str)
    }
}

/// A manifest or an index, read leniently enough to tell which it is.
#[derive(Debug, Deserialize)]
pub(super) struct Document {
    #[serde(rename = "schemaVersion", default)]
    schema_version: Option<i64>,
    #[serde(rename = "mediaType", default)]
    media_type: Option<String>,
    #[serde(default)]
    pub config: Option<Descriptor>,
    #[serde(default)]
    pub layers: Option<Vec<Descriptor>>,
    #[serde(default)]
    pub manifests: Option<Vec<Descriptor>>,
}

/// What a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Index,
    Manifest,
}

fn kind_of(media_type: &str) -> Option<Kind> {
    match media_type {
        OCI_INDEX | DOCKER_LIST => Some(Kind::Index),
        OCI_MANIFEST | DOCKER_MANIFEST => Some(Kind::Manifest),
        _ => None,
    }
}

/// Whether a descriptor's media type says it names an index.
pub(super) fn names_index(media_type: &str) -> bool {
    kind_of(media_type) == Some(Kind::Index)
}

impl Document {
    /// Parses a manifest or index read from `path`.
    pub fn parse(bytes: &[u8], path: &std::path::Path) -> Result<Document, ImageError> {
        serde_json::from_slice(bytes).map_err(|source| ImageError::Json {
            path: path.to_path_buf(),
            what: "image manifest or index",
            source,
        })
    }

    /// The document's own media type, else the descriptor's, else whether
    /// it lists `manifests` or `layers`. Docker schema 1, artifacts and
    /// documents whose own media type contradicts the descriptor's are not
    /// read.
    pub fn kind(&self, digest: &Digest, descriptor_type: &str) -> Result<Kind, ImageError> {
        let unsupported = |what: String| ImageError::Unsupported { digest: digest.clone(), what };
        let own = self.media_type.as_deref().unwrap_or("");
        if self.schema_version == Some(1) || SCHEMA1.contains(&own) || SCHEMA1.contains(&descriptor_type) {
            return Err(unsupported(
                "a Docker image manifest of schema 1, which is not read (copy the image again to get schema 2)".into(),
            ));
        }
        let (own_kind, named_kind) = (kind_of(own), kind_of(descriptor_type));
        if let (Some(a), Some(b)) = (own_kind, named_kind) {
            if a != b {
                return Err(unsupported(format!("the document says it is {own}, its descriptor {descriptor_type}")));
            }
        }
        let named = if own.is_empty() { descriptor_type } else { own };
        match (own_kind.or(named_kind), named.is_empty()) {
            (Some(kind), _) => Ok(kind),
            (None, false) => Err(unsupported(format!("media type {named:?} is not an image manifest or index"))),
            (None, true) if self.manifests.is_some() => Ok(Kind::Index),
            (None, true) if self.layers.is_some() => Ok(Kind::Manifest),
            (None, true) => Err(unsupported("neither an image manifest nor an index: no layers, no manifests".into())),
        }
    }

    /// The media type a descriptor of this document gives.
    pub fn media_type(&self, kind: Kind) -> String {
        match (&self.media_type, kind) {
            (Some(own), _) if !own.is_empty() => own.clone(),
            (_, Kind::Index) => OCI_INDEX.to_string(),
            (_, Kind::Manifest) => OCI_MANIFEST.to_string(),
        }
    }
}
