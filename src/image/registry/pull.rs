//! Pulling an image by digest: its manifest (or index, then the manifests
//! for one platform), then the blobs the sink does not hold yet.

use super::session::{Payload, Target};
use super::{
    answer_error, api_path, digest_of, for_image, parse, Client, Descriptor, Kind, Parsed, Platform, RegistryError,
    Sink, Tally, DOCKER_LIST, DOCKER_MANIFEST, MANIFEST_LIMIT, OCI_INDEX, OCI_MANIFEST,
};
use crate::image::{Digest, Reference};

impl Client {
    /// Pulls the image `reference` names by digest into `sink`: the manifest
    /// or index, for an index the manifests for `platform`, and every config
    /// and layer the sink does not hold yet; then records the manifest under
    /// the reference. Returns the manifest's digest.
    pub fn pull(
        &mut self,
        reference: &Reference,
        platform: &Platform,
        sink: &mut dyn Sink,
    ) -> Result<Digest, RegistryError> {
        let digest = reference
            .digest
            .clone()
            .ok_or_else(|| RegistryError::TagOnly { reference: reference.to_string(), name: reference.name() })?;
        let t = Target { reference, push: false };
        let mut tally = Tally::default();
        let (bytes, media_type, kind, parsed) = self.manifest(&t, &digest, "the manifest")?;
        store(&t, sink, &digest, &bytes, &mut tally)?;
        match kind {
            Kind::Image => self.blobs(&t, &parsed, sink, &mut tally)?,
            Kind::Index => self.children(&t, &parsed, platform, sink, &mut tally)?,
        }
        let size = bytes.len() as u64;
        sink.record(&digest, &media_type, size, &reference.to_string()).map_err(for_image(reference))?;
        let line = match tally.fetched {
            0 => format!("{reference}: already pulled ({} blobs held)", tally.held),
            n => format!("{reference}: pulled {n} blobs ({} bytes), {} already held", tally.bytes, tally.held),
        };
        self.say(&line);
        Ok(digest)
    }

    /// Fetches the manifest or index `digest`, checked against it.
    fn manifest(
        &mut self,
        t: &Target,
        digest: &Digest,
        what: &str,
    ) -> Result<(Vec<u8>, String, Kind, Parsed), RegistryError> {
        let accept = [OCI_MANIFEST, OCI_INDEX, DOCKER_MANIFEST, DOCKER_LIST].join(", ");
        let path = api_path(t.reference, "manifests", &digest.to_string());
        let response = self.session.send(t, "GET", &path, &[("Accept", &accept)], Payload::Empty)?;
        if response.status().as_u16() != 200 {
            return Err(answer_error(&mut self.session, t, what, response));
        }
        let content_type =
            response.headers().get("Content-Type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
        let (reference, registry) = (t.reference.to_string(), t.reference.registry.clone());
        let bytes = match response.into_body().into_with_config().limit(MANIFEST_LIMIT).read_to_vec() {
            Ok(bytes) => bytes,
            Err(ureq::Error::BodyExceedsLimit(_)) => {
                let what = what.to_string();
                return Err(RegistryError::TooLarge { reference, registry, what, limit: MANIFEST_LIMIT });
            }
            Err(e) => return Err(t.unreachable(format!("reading {what}: {e}"))),
        };
        let actual = Digest::of(&bytes);
        if actual != *digest {
            let (what, expected, actual) = (what.to_string(), digest.clone(), actual.to_string());
            return Err(RegistryError::DigestMismatch { reference, registry, what, expected, actual });
        }
        let (kind, media_type, parsed) = parse(t, &bytes, &content_type, what)?;
        Ok((bytes, media_type, kind, parsed))
    }

    /// Pulls the manifests of an index for `platform`, and their blobs.
    fn children(
        &mut self,
        t: &Target,
        index: &Parsed,
        platform: &Platform,
        sink: &mut dyn Sink,
        tally: &mut Tally,
    ) -> Result<(), RegistryError> {
        let listed = index.manifests.as_deref().unwrap_or_default();
        let chosen: Vec<&Descriptor> = listed.iter().filter(|d| matches(platform, d)).collect();
        if chosen.is_empty() {
            let available: Vec<String> =
                listed.iter().filter_map(|d| d.platform.as_ref()).map(|p| p.to_string()).collect();
            let available = if available.is_empty() { "none named".to_string() } else { available.join(", ") };
            let (reference, platform) = (t.reference.to_string(), platform.to_string());
            return Err(RegistryError::NoPlatform { reference, platform, available });
        }
        for d in chosen {
            let digest = digest_of(t, d, "the image index")?;
            let what = format!("the {platform} manifest {digest}");
            let (bytes, _, kind, parsed) = self.manifest(t, &digest, &what)?;
            if let Kind::Index = kind {
                let (reference, detail) = (t.reference.to_string(), "an index inside an index".to_string());
                return Err(RegistryError::BadManifest { reference, what, detail });
            }
            store(t, sink, &digest, &bytes, tally)?;
            self.blobs(t, &parsed, sink, tally)?;
        }
        Ok(())
    }

    /// Pulls an image manifest's config and layers the sink does not hold.
    fn blobs(
        &mut self,
        t: &Target,
        manifest: &Parsed,
        sink: &mut dyn Sink,
        tally: &mut Tally,
    ) -> Result<(), RegistryError> {
        for d in manifest.config.iter().chain(&manifest.layers) {
            let digest = digest_of(t, d, "the manifest")?;
            if sink.has(&digest) {
                tally.held += 1;
                continue;
            }
            let what = format!("the blob {digest}");
            let path = api_path(t.reference, "blobs", &digest.to_string());
            let response = self.session.send(t, "GET", &path, &[], Payload::Empty)?;
            if response.status().as_u16() != 200 {
                return Err(answer_error(&mut self.session, t, &what, response));
            }
            // No more than the manifest says: a registry cannot fill the disk.
            let mut body = response.into_body().into_with_config().limit(d.size).reader();
            let stored = sink.put(&digest, &mut body).map_err(for_image(t.reference))?;
            if stored != d.size {
                let (reference, detail) = (t.reference.to_string(), format!("it is {stored} bytes, not {}", d.size));
                return Err(RegistryError::BadManifest { reference, what, detail });
            }
            tally.fetched += 1;
            tally.bytes += stored;
        }
        Ok(())
    }
}

/// Stores a manifest's bytes unless the sink holds them.
fn store(
    t: &Target,
    sink: &mut dyn Sink,
    digest: &Digest,
    bytes: &[u8],
    tally: &mut Tally,
) -> Result<(), RegistryError> {
    if sink.has(digest) {
        tally.held += 1;
        return Ok(());
    }
    sink.put(digest, &mut &bytes[..]).map_err(for_image(t.reference))?;
    tally.fetched += 1;
    tally.bytes += bytes.len() as u64;
    Ok(())
}

/// Whether an index entry is for `platform`, as the layout reader picks one.
fn matches(platform: &Platform, d: &Descriptor) -> bool {
    d.platform.as_ref().is_some_and(|offered| platform.matches(offered))
}
