//! The image cache: an OCI image layout the registry client pulls into, read
//! as any other layout. A pulled image is recorded in its `index.json` only
//! once every blob is in, under the reference it was pulled by, so a second
//! run finds it without asking the registry; blobs another image shares are
//! not pulled again.

use std::io::Read;
use std::path::PathBuf;

use super::registry::{Client, RegistryError, Sink, Source};
use super::write::Store;
use super::{Descriptor, Digest, Reference};

/// Where images are cached when no folder is named: `$XDG_CACHE_HOME/olm-rbac/images`,
/// else `$HOME/.cache/olm-rbac/images`; `None` without either.
pub fn default_cache_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = set("XDG_CACHE_HOME").or_else(|| set("HOME").map(|home| home.join(".cache")))?;
    Some(base.join("olm-rbac").join("images"))
}

impl Sink for Store {
    fn has(&self, digest: &Digest) -> bool {
        self.has_sound_blob(digest)
    }

    fn put(&mut self, digest: &Digest, body: &mut dyn Read) -> Result<u64, RegistryError> {
        self.put_blob(digest, body).map_err(|e| store_error(digest, &e))
    }

    fn record(&mut self, digest: &Digest, media_type: &str, size: u64, reference: &str) -> Result<(), RegistryError> {
        let descriptor = Descriptor::new(media_type, digest.clone(), size);
        self.add_to_index(descriptor, Some(reference)).map_err(|e| store_error(digest, &e))
    }
}

impl Source for Store {
    fn open(&self, digest: &Digest) -> Result<(Box<dyn Read>, u64), RegistryError> {
        let source_error = |detail: String| RegistryError::Source { digest: digest.clone(), detail };
        let path = self.blob_path(digest);
        let file = std::fs::File::open(&path).map_err(|e| source_error(format!("{}: {e}", path.display())))?;
        let size = file.metadata().map_err(|e| source_error(format!("{}: {e}", path.display())))?.len();
        Ok((Box::new(file), size))
    }
}

impl Store {
    /// Pushes the image (manifest or index) `digest` of this layout to
    /// `reference`, blobs first; the digest the registry holds it under.
    pub fn push(&self, client: &mut Client, digest: &Digest, reference: &Reference) -> Result<Digest, RegistryError> {
        let path = self.blob_path(digest);
        let bytes = std::fs::read(&path).map_err(|e| RegistryError::Source {
            digest: digest.clone(),
            detail: format!("{}: {e}", path.display()),
        })?;
        let media_type = serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .and_then(|v| v.get("mediaType")?.as_str().map(str::to_string))
            .unwrap_or_else(|| super::OCI_MANIFEST.to_string());
        client.push(reference, &bytes, &media_type, self)
    }
}

fn store_error(digest: &Digest, e: &dyn std::fmt::Display) -> RegistryError {
    RegistryError::Store { digest: digest.clone(), detail: e.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_is_where_the_user_caches() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        let xdg = env(&[("XDG_CACHE_HOME", "/c"), ("HOME", "/h")]);
        assert_eq!(default_cache_dir(&xdg), Some(PathBuf::from("/c/olm-rbac/images")));
        let home = env(&[("XDG_CACHE_HOME", ""), ("HOME", "/h")]);
        assert_eq!(default_cache_dir(&home), Some(PathBuf::from("/h/.cache/olm-rbac/images")));
        assert_eq!(default_cache_dir(&env(&[])), None);
    }
}
