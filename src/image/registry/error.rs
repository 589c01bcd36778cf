//! Why a pull or push failed, worded for the user.

use crate::image::Digest;

/// Why a pull or push failed, naming the image, the registry and the step.
// The variants' fields are named what they hold, the same in every variant:
// `reference` as the user wrote it, `registry`, `what` was being fetched or
// sent, `detail` what went wrong; documenting each again would add nothing.
#[allow(missing_docs)]
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// A pull by tag.
    #[error("{reference}: images are pulled by digest only; name it as {name}@sha256:<digest>")]
    TagOnly { reference: String, name: String },
    /// A push with neither tag nor digest.
    #[error("{reference}: a push needs a tag or a digest to store the manifest under")]
    NoTag { reference: String },
    /// No answer, or not an HTTP one.
    #[error("cannot reach the registry {registry} for {reference}: {detail}")]
    Unreachable { reference: String, registry: String, detail: String },
    /// Credentials missing or refused.
    #[error("the registry {registry} refused {what} for {reference}{hint}")]
    Unauthorized { reference: String, registry: String, what: String, hint: String },
    /// A manifest or blob the registry does not have.
    #[error("the registry {registry} has no {what} for {reference}")]
    NotFound { reference: String, registry: String, what: String },
    /// Another unexpected answer.
    #[error("the registry {registry} answered {status} to {what} for {reference}{detail}")]
    Status { reference: String, registry: String, what: String, status: u16, detail: String },
    /// Bytes that are not the ones named.
    #[error("the registry {registry} sent, as {what} for {reference}, bytes whose digest is {actual}, not {expected}")]
    DigestMismatch { reference: String, registry: String, what: String, expected: Digest, actual: String },
    /// A manifest over the 4 MiB cap.
    #[error("the registry {registry} sent, as {what} for {reference}, more than {limit} bytes")]
    TooLarge { reference: String, registry: String, what: String, limit: u64 },
    /// A manifest kind this client does not read.
    #[error("{reference}: {what} is of media type {media_type:?}, which olm-rbac does not read{hint}")]
    Unsupported { reference: String, what: String, media_type: String, hint: String },
    /// A manifest that is not one.
    #[error("{reference}: {what} is not a manifest olm-rbac can read: {detail}")]
    BadManifest { reference: String, what: String, detail: String },
    /// An index without the platform asked for.
    #[error("{reference}: the image index has no manifest for {platform}; it has {available}")]
    NoPlatform { reference: String, platform: String, available: String },
    /// An unreadable credentials file.
    #[error("{reference}: cannot get credentials for the registry {registry}: {detail}")]
    Credentials { reference: String, registry: String, detail: String },
    /// A sink that cannot store a blob (the sink's own error).
    #[error("cannot store the blob {digest}: {detail}")]
    Store { digest: Digest, detail: String },
    /// A source that cannot give a blob (the source's own error).
    #[error("cannot read the blob {digest} to push: {detail}")]
    Source { digest: Digest, detail: String },
    /// A sink's or source's error, with the image it happened for.
    #[error("{reference}: {source}")]
    For { reference: String, source: Box<RegistryError> },
}
