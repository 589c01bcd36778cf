//! Container images as OLM reads them: bundle images from OCI image layouts
//! (as `skopeo copy … oci:DIR` and mirroring tools write them) and from
//! registries, each bound by digest and every blob checked against it; and
//! the judged catalog written as an image catalogd serves.
//!
//! A room of its own below the catalog commands: it knows images, layers and
//! registries, nothing of RBAC or of the catalog's documents.

mod auth;
mod digest;
mod reference;
mod registry;

pub use auth::{Credentials, Lookup};
pub use digest::{Digest, Hashing, HashingWriter};
mod stub;
pub use stub::{write_image, BundleImage, Compression, Entry, Format, ImageError, ImageSpec, Layer, Layouts, Platform};
pub use reference::Reference;
pub use registry::{Client, Options, Platform as PullPlatform, RegistryError, Sink, Source};
