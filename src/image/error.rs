//! What can go wrong reading or writing an image, each error naming the
//! file, digest or path it is about.

use std::path::PathBuf;

use super::digest::Digest;

/// An image that cannot be read or written as asked. Reading never keeps a
/// partial result: any of these discards everything read for the image.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// A file or folder of a layout could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A path given as a layout is neither a layout nor a folder.
    #[error("{path} is neither an OCI image layout (a folder with an oci-layout file) nor a folder of them")]
    NotLayout {
        /// The path given.
        path: PathBuf,
    },
    /// An `oci-layout` file names another layout version.
    #[error("{path}: imageLayoutVersion {found:?}, and only OCI image layout version \"1.0.0\" is read")]
    LayoutVersion {
        /// The `oci-layout` file.
        path: PathBuf,
        /// The version it names (empty when it names none).
        found: String,
    },
    /// A layout's `index.json`, `oci-layout` or a blob is a symbolic link.
    #[error("{path} is a symbolic link: a layout's index.json and blobs must be regular files")]
    Symlink {
        /// The link.
        path: PathBuf,
    },
    /// A layout's `index.json`, `oci-layout` or a blob is not a regular file.
    #[error("{path} is not a regular file")]
    NotRegular {
        /// The file.
        path: PathBuf,
    },
    /// A JSON document (index, manifest, config) does not parse.
    #[error("{path}: not a valid {what}: {source}")]
    Json {
        /// The file the document was read from.
        path: PathBuf,
        /// What the document should have been ("image manifest", "index.json").
        what: &'static str,
        /// What the parser said.
        #[source]
        source: serde_json::Error,
    },
    /// A JSON document is larger than such documents are read.
    #[error("{path} is {size} bytes; a {what} is read up to {limit} bytes")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// What the document is.
        what: &'static str,
        /// Its size.
        size: u64,
        /// The cap.
        limit: u64,
    },
    /// A blob's bytes do not hash to the digest that names it.
    #[error("{path} is not blob {digest}: its bytes hash to {found}")]
    Mismatch {
        /// The digest the blob was asked by.
        digest: Digest,
        /// The digest of the bytes found.
        found: Digest,
        /// The blob's file.
        path: PathBuf,
    },
    /// A blob's size is not the one its descriptor gives.
    #[error("{path}: blob {digest} is {found} bytes where its descriptor says {expected}")]
    Size {
        /// The blob's digest.
        digest: Digest,
        /// The size the descriptor gives.
        expected: u64,
        /// The size found.
        found: u64,
        /// The blob's file.
        path: PathBuf,
    },
    /// No layout read holds a manifest or index by this digest.
    #[error("{digest} is no image manifest or index of the layouts read ({layouts})")]
    NotFound {
        /// The digest asked.
        digest: Digest,
        /// The layouts read, comma-separated.
        layouts: String,
    },
    /// A blob a manifest or index names is not in the layout.
    #[error("blob {digest} is missing from the layout {layout}")]
    MissingBlob {
        /// The blob's digest.
        digest: Digest,
        /// The layout looked in first.
        layout: PathBuf,
    },
    /// An image index has no instance for the platform asked.
    #[error("image index {digest} has no image for {platform}; it offers {offered}")]
    NoPlatform {
        /// The index.
        digest: Digest,
        /// The platform asked.
        platform: String,
        /// The platforms the index offers, comma-separated.
        offered: String,
    },
    /// A document or image is of a kind not read (Docker schema 1, an artifact).
    #[error("{digest}: {what}")]
    Unsupported {
        /// The document.
        digest: Digest,
        /// What it is and why it is not read.
        what: String,
    },
    /// A layer's media type is not one of an image layer OLM unpacks.
    #[error("image {image}: layer {layer} has media type {media_type:?}, not an image layer OLM unpacks")]
    LayerType {
        /// The image manifest.
        image: Digest,
        /// The layer.
        layer: Digest,
        /// Its media type.
        media_type: String,
    },
    /// A layer entry's path has a `..` component.
    #[error("layer {layer}: entry {path:?} climbs out of the image with `..`")]
    Climb {
        /// The layer.
        layer: Digest,
        /// The entry's path as the layer writes it.
        path: String,
    },
    /// A layer's tar header that readers read differently.
    #[error("layer {layer}: {why}; what OLM's unpacker makes of it cannot be told, so the image is not read")]
    Header {
        /// The layer.
        layer: Digest,
        /// The header's oddity.
        why: String,
    },
    /// An entry written through a symbolic link an earlier entry made.
    #[error("layer {layer}: {path} is written through the symbolic link {link}, which OLM's unpacker follows; where it lands cannot be told, so the image is not read")]
    UnderLink {
        /// The layer.
        layer: Digest,
        /// The entry's path.
        path: String,
        /// The link above it.
        link: String,
    },
    /// A symbolic or hard link under `manifests/` or `metadata/`.
    #[error("layer {layer}: {path} is a link, and OLM's reader would follow it outside the bundle")]
    Link {
        /// The layer that put the link there.
        layer: Digest,
        /// The link's path in the image.
        path: String,
    },
    /// A device node, fifo or other special entry under `manifests/` or `metadata/`.
    #[error("layer {layer}: {path} is a {kind}, not a file or folder of a bundle")]
    Special {
        /// The layer.
        layer: Digest,
        /// The entry's path in the image.
        path: String,
        /// What the entry is.
        kind: String,
    },
    /// A layer that does not decompress or is not a tar archive.
    #[error("layer {layer} is not a readable tar archive: {source}")]
    Layer {
        /// The layer.
        layer: Digest,
        /// What the decompressor or tar reader said.
        #[source]
        source: std::io::Error,
    },
    /// `manifests/` and `metadata/` hold more than is kept of an image.
    #[error("image {image}: manifests/ and metadata/ hold more than {limit} bytes")]
    BundleTooLarge {
        /// The image manifest.
        image: Digest,
        /// The cap.
        limit: u64,
    },
    /// `manifests` or `metadata/annotations.yaml` is not what OLM reads it as.
    #[error("image {image}: {path} is {what}")]
    Shape {
        /// The image manifest.
        image: Digest,
        /// The path in the image.
        path: String,
        /// What it is instead.
        what: &'static str,
    },
    /// A platform that does not parse.
    #[error("{text:?} is not a platform: expected os/architecture[/variant], as linux/amd64")]
    Platform {
        /// The text given.
        text: String,
    },
    /// An image that cannot be written as specified.
    #[error("cannot write the image: {reason}")]
    Write {
        /// Why.
        reason: String,
    },
}

/// An [`ImageError::Io`] about `path`, for `map_err`.
pub(super) fn io_at(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> ImageError + '_ {
    move |source| ImageError::Io { path: path.to_path_buf(), source }
}
