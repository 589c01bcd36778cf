//! Pushing an image: the blobs its manifest names that the registry lacks,
//! each in one upload, then the manifest under its tag or digest. An index
//! is pushed after the manifests it names.

use super::session::{query, Payload, Target};
use super::{
    answer_error, api_path, digest_of, for_image, parse, Client, Descriptor, Kind, RegistryError, Source, Tally,
};
use crate::image::{Digest, Reference};

impl Client {
    /// Pushes `manifest` (of `media_type`) under the tag, else the digest,
    /// of `reference`, after uploading the config and layers it names that
    /// the registry lacks, read from `blobs`. For an index, the manifests it
    /// names must have been pushed already. Returns the manifest's digest.
    pub fn push(
        &mut self,
        reference: &Reference,
        manifest: &[u8],
        media_type: &str,
        blobs: &dyn Source,
    ) -> Result<Digest, RegistryError> {
        let digest = Digest::of(manifest);
        let name = match (&reference.tag, &reference.digest) {
            (_, Some(named)) if *named != digest => {
                let (reference, what) = (reference.to_string(), "the manifest to push".to_string());
                let detail = format!("its digest is {digest}, not the reference's");
                return Err(RegistryError::BadManifest { reference, what, detail });
            }
            (Some(tag), _) => tag.clone(),
            (None, Some(named)) => named.to_string(),
            (None, None) => return Err(RegistryError::NoTag { reference: reference.to_string() }),
        };
        let t = Target { reference, push: true };
        let (kind, media_type, parsed) = parse(&t, manifest, media_type, "the manifest to push")?;
        let mut tally = Tally::default();
        match kind {
            Kind::Image => {
                for d in parsed.config.iter().chain(&parsed.layers) {
                    self.upload(&t, d, blobs, &mut tally)?;
                }
            }
            Kind::Index => {
                for d in parsed.manifests.iter().flatten() {
                    self.check_pushed(&t, d)?;
                }
            }
        }
        let path = api_path(reference, "manifests", &name);
        let headers = [("Content-Type", media_type.as_str())];
        let response = self.session.send(&t, "PUT", &path, &headers, Payload::Bytes(manifest))?;
        if !matches!(response.status().as_u16(), 200..=202) {
            return Err(answer_error(&mut self.session, &t, "the upload of the manifest", response));
        }
        let stored = response.headers().get("Docker-Content-Digest").and_then(|v| v.to_str().ok());
        if let Some(stored) = stored.filter(|s| *s != digest.to_string()) {
            let (reference, registry) = (reference.to_string(), reference.registry.clone());
            let (what, actual) = ("the stored manifest".to_string(), stored.to_string());
            return Err(RegistryError::DigestMismatch { reference, registry, what, expected: digest, actual });
        }
        let line =
            format!("{reference}: pushed {digest}, {} blobs uploaded, {} already there", tally.fetched, tally.held);
        self.say(&line);
        Ok(digest)
    }

    /// Uploads a blob unless the repository has it.
    fn upload(
        &mut self,
        t: &Target,
        d: &Descriptor,
        blobs: &dyn Source,
        tally: &mut Tally,
    ) -> Result<(), RegistryError> {
        let digest = digest_of(t, d, "the manifest to push")?;
        let what = format!("the blob {digest}");
        let path = api_path(t.reference, "blobs", &digest.to_string());
        let head = self.session.send(t, "HEAD", &path, &[], Payload::Empty)?;
        match head.status().as_u16() {
            200 => {
                tally.held += 1;
                return Ok(());
            }
            404 => {}
            _ => return Err(answer_error(&mut self.session, t, &format!("checking for {what}"), head)),
        }
        let start = format!("/v2/{}/blobs/uploads/", t.reference.repository);
        let response = self.session.send(t, "POST", &start, &[], Payload::Bytes(&[]))?;
        if response.status().as_u16() != 202 {
            return Err(answer_error(&mut self.session, t, &format!("starting the upload of {what}"), response));
        }
        let location = response.headers().get("Location").and_then(|v| v.to_str().ok()).unwrap_or_default();
        if !(location.starts_with('/') || location.starts_with("https://") || location.starts_with("http://")) {
            return Err(
                t.unreachable(format!("starting the upload of {what}, it gave no usable Location ({location:?})"))
            );
        }
        let separator = if location.contains('?') { '&' } else { '?' };
        let url = format!("{location}{separator}digest={}", query(&digest.to_string()));
        let (mut body, size) = blobs.open(&digest).map_err(for_image(t.reference))?;
        if size != d.size {
            let (reference, what) = (t.reference.to_string(), "the manifest to push".to_string());
            let detail = format!("it gives {digest} {} bytes, and the blob is {size}", d.size);
            return Err(RegistryError::BadManifest { reference, what, detail });
        }
        let headers = [("Content-Type", "application/octet-stream")];
        let response = self.session.send(t, "PUT", &url, &headers, Payload::Stream(&mut body, size))?;
        if !matches!(response.status().as_u16(), 201 | 204) {
            return Err(answer_error(&mut self.session, t, &format!("the upload of {what}"), response));
        }
        tally.fetched += 1;
        tally.bytes += size;
        Ok(())
    }

    /// An index's manifest must be in the repository before the index.
    fn check_pushed(&mut self, t: &Target, d: &Descriptor) -> Result<(), RegistryError> {
        let digest = digest_of(t, d, "the index to push")?;
        let path = api_path(t.reference, "manifests", &digest.to_string());
        let accept = [super::OCI_MANIFEST, super::OCI_INDEX, super::DOCKER_MANIFEST, super::DOCKER_LIST].join(", ");
        let head = self.session.send(t, "HEAD", &path, &[("Accept", &accept)], Payload::Empty)?;
        if head.status().as_u16() == 200 {
            return Ok(());
        }
        let what = format!("the manifest {digest} the index names (push it before the index)");
        Err(answer_error(&mut self.session, t, &what, head))
    }
}
