//! Files of a layout opened as only regular files, and JSON blobs read
//! whole once checked against their digest and size.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::digest::Digest;
use super::error::{io_at, ImageError};

/// The largest JSON document (index.json, manifest, index, config) read.
pub(super) const JSON_LIMIT: u64 = 4 << 20;

/// Where a layout keeps blob `digest`.
pub(super) fn blob_path(layout: &Path, digest: &Digest) -> PathBuf {
    layout.join("blobs").join("sha256").join(digest.hex())
}

/// Opens `path` if it is a regular file, not a symbolic link (checked
/// before opening, and that the file opened is the one checked), and gives
/// its size.
pub(super) fn open_regular(path: &Path) -> Result<(File, u64), ImageError> {
    let before = path.symlink_metadata().map_err(io_at(path))?;
    if before.file_type().is_symlink() {
        return Err(ImageError::Symlink { path: path.to_path_buf() });
    }
    if !before.is_file() {
        return Err(ImageError::NotRegular { path: path.to_path_buf() });
    }
    let file = File::open(path).map_err(io_at(path))?;
    let after = file.metadata().map_err(io_at(path))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if (before.dev(), before.ino()) != (after.dev(), after.ino()) {
            return Err(ImageError::Symlink { path: path.to_path_buf() });
        }
    }
    if !after.is_file() {
        return Err(ImageError::NotRegular { path: path.to_path_buf() });
    }
    Ok((file, after.len()))
}

/// The bytes of a JSON file of at most [`JSON_LIMIT`] bytes; when it is a
/// blob, checked to be `size` bytes hashing to `digest`.
pub(super) fn read_json(path: &Path, what: &'static str, blob: Option<(&Digest, u64)>) -> Result<Vec<u8>, ImageError> {
    let (file, len) = open_regular(path)?;
    if let Some((digest, size)) = blob {
        check_size(path, digest, size, len)?;
    }
    if len > JSON_LIMIT {
        return Err(ImageError::TooLarge { path: path.to_path_buf(), what, size: len, limit: JSON_LIMIT });
    }
    let mut bytes = Vec::new();
    file.take(JSON_LIMIT + 1).read_to_end(&mut bytes).map_err(io_at(path))?;
    let read = bytes.len() as u64;
    if read > JSON_LIMIT {
        return Err(ImageError::TooLarge { path: path.to_path_buf(), what, size: read, limit: JSON_LIMIT });
    }
    if let Some((digest, size)) = blob {
        let found = Digest::of(&bytes);
        if &found != digest {
            return Err(ImageError::Mismatch { digest: digest.clone(), found, path: path.to_path_buf() });
        }
        check_size(path, digest, size, read)?;
    }
    Ok(bytes)
}

/// An [`ImageError::Size`] unless `found` is `expected`.
pub(super) fn check_size(path: &Path, digest: &Digest, expected: u64, found: u64) -> Result<(), ImageError> {
    if expected == found {
        return Ok(());
    }
    Err(ImageError::Size { digest: digest.clone(), expected, found, path: path.to_path_buf() })
}
