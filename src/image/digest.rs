//! Content digests: what an OCI image names each blob by, and the one check
//! that bytes are the blob named.

use std::io::{Read, Write};

use sha2::{Digest as _, Sha256};

/// A `sha256:<64 lowercase hex>` digest, the only algorithm registries and
/// OLM's catalogs name bundle images by. Parsed strictly: an uppercase or
/// short hex, or another algorithm, is not this digest (a path built from it
/// must never leave `blobs/sha256/`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Digest {
    hex: String,
}

impl Digest {
    /// `sha256:<hex>` as written in a manifest, an index or an image reference.
    pub fn parse(text: &str) -> Option<Digest> {
        let hex = text.strip_prefix("sha256:")?;
        let lower_hex = |c: u8| c.is_ascii_digit() || (b'a'..=b'f').contains(&c);
        (hex.len() == 64 && hex.bytes().all(lower_hex)).then(|| Digest { hex: hex.to_string() })
    }

    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest::from_hasher(Sha256::new_with_prefix(bytes))
    }

    fn from_hasher(hasher: Sha256) -> Digest {
        let hex = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Digest { hex }
    }

    /// The 64 hex digits: the blob's file name in an OCI layout.
    pub fn hex(&self) -> &str {
        &self.hex
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sha256:{}", self.hex)
    }
}

impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Digest, D::Error> {
        let text = String::deserialize(deserializer)?;
        Digest::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not a sha256:<64 lowercase hex> digest")))
    }
}

/// A reader that hashes what passes through it, so that a blob is checked
/// as it is streamed, never held whole to be checked.
pub struct Hashing<R> {
    inner: R,
    hasher: Sha256,
    read: u64,
}

impl<R: Read> Hashing<R> {
    /// Hashes what is read from `inner`.
    pub fn new(inner: R) -> Hashing<R> {
        Hashing { inner, hasher: Sha256::new(), read: 0 }
    }

    /// The digest of everything read so far, and how many bytes that was.
    pub fn finish(self) -> (Digest, u64) {
        (Digest::from_hasher(self.hasher), self.read)
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.read += n as u64;
        Ok(n)
    }
}

/// A writer that hashes what passes through it (a blob being written or
/// downloaded).
pub struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
    written: u64,
}

impl<W: Write> HashingWriter<W> {
    /// Hashes what is written to `inner`.
    pub fn new(inner: W) -> HashingWriter<W> {
        HashingWriter { inner, hasher: Sha256::new(), written: 0 }
    }

    /// The digest of everything written, how many bytes, and the writer.
    pub fn finish(self) -> (Digest, u64, W) {
        (Digest::from_hasher(self.hasher), self.written, self.inner)
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_sha256_strictly_written() {
        let empty = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assert_eq!(Digest::of(b"").to_string(), empty);
        assert_eq!(Digest::parse(empty), Some(Digest::of(b"")));
        for bad in [
            "sha512:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85",
            "sha256:../../../../etc/passwd/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ] {
            assert_eq!(Digest::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn streamed_hashes_equal_the_whole_ones() {
        let mut reader = Hashing::new(&b"hello world"[..]);
        let mut out = Vec::new();
        std::io::copy(&mut reader, &mut out).ok();
        assert_eq!(reader.finish(), (Digest::of(b"hello world"), 11));
        let mut writer = HashingWriter::new(Vec::new());
        writer.write_all(b"hello world").ok();
        let (digest, n, bytes) = writer.finish();
        assert_eq!((digest, n, bytes.as_slice()), (Digest::of(b"hello world"), 11, &b"hello world"[..]));
    }
}
