//! Container images as OLM reads them: bundle images from OCI image layouts
//! (as `skopeo copy … oci:DIR` and mirroring tools write them) and from
//! registries, each bound by digest and every blob checked against it; and
//! the judged catalog written as an image catalogd serves.
//!
//! A room of its own below the catalog commands: it knows images, layers and
//! registries, nothing of RBAC or of the catalog's documents.

mod auth;
mod blob;
mod cache;
mod decompress;
mod digest;
mod error;
mod headers;
mod layers;
mod layout;
mod manifest;
mod platform;
mod reference;
mod registry;
mod write;

pub use auth::{Credentials, Lookup};
pub use cache::default_cache_dir;
pub use digest::{Digest, Hashing, HashingWriter};
pub use error::ImageError;
pub use layers::BundleImage;
pub use layout::{CatalogImage, Layouts, CONFIGS_LABEL};
pub use manifest::{
    Descriptor, DOCKER_CONFIG, DOCKER_LIST, DOCKER_MANIFEST, OCI_CONFIG, OCI_INDEX, OCI_MANIFEST, REF_NAME,
};
pub use platform::Platform;
pub use reference::{pinned_digest, Reference};
pub use registry::{Client, Options, RegistryError, Sink, Source};
pub use write::{write_image, write_index, Compression, Entry, Format, ImageSpec, Layer, Store};

#[cfg(test)]
mod tests;
