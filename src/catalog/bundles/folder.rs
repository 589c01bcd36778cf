//! A bundle folder under `--bundles`, standing in for the bundle's image:
//! found by its name or its annotations' package, read as the image's
//! `manifests/` and `metadata/annotations.yaml` are, and no link followed.

use std::path::{Path, PathBuf};

use crate::catalog::Entry;
use crate::input::Inputs as Manifests;
use crate::input::{BundleRoot, Metadata, Source};

/// `<root>/<folder>/<version>/manifests/` whose `metadata/annotations.yaml`
/// names the entry's package, where the folder is named otherwise (the
/// community repositories' `operators/konflux` holds package
/// `konflux-operator`): the package is what OLM reads from the image.
pub(super) fn by_annotations(root: &Path, entry: &Entry) -> Result<Option<PathBuf>, String> {
    let Some(version) = entry.version.as_ref().map(ToString::to_string) else { return Ok(None) };
    let Ok(read) = std::fs::read_dir(root) else { return Ok(None) };
    let mut folders: Vec<PathBuf> = read.filter_map(Result::ok).map(|e| e.path()).collect();
    folders.sort();
    let matching: Vec<PathBuf> = folders
        .into_iter()
        .map(|f| f.join(&version))
        .filter(|bundle| {
            let annotations = std::fs::read_to_string(bundle.join("metadata").join("annotations.yaml")).ok();
            let package = annotations.and_then(|a| crate::judge::package_of(&a).ok().flatten());
            package.as_deref() == Some(entry.package.as_str()) && bundle.join("manifests").is_dir()
        })
        .collect();
    match matching.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one.join("manifests"))),
        several => Err(format!(
            "--bundles {}: {} folders name package {:?} version {version} in their metadata/annotations.yaml ({}): which one stands for the bundle cannot be told",
            root.display(),
            several.len(),
            entry.package,
            several.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// A folder's manifests, named as the bundle's.
pub(super) fn read_folder(dir: &Path, bundle: &str) -> Result<Manifests, String> {
    let named = format!("{bundle}/manifests");
    let read = crate::input::read_bundle_manifests(dir).map_err(|e| e.to_string())?;
    let file_name = |name: &str| Path::new(name).file_name().map(|f| f.to_string_lossy().to_string());
    let sources = read
        .sources
        .into_iter()
        .map(|s| Source { name: format!("{named}/{}", file_name(&s.name).unwrap_or_default()), text: s.text })
        .collect();
    // The folder stands in for the image: its root is read as the image's
    // is, under the bundle's name, its metadata/annotations.yaml with it.
    let subfolders = read.bundle_roots.into_iter().flat_map(|r| r.subfolders).collect();
    let metadata = folder_annotations(dir)?;
    let root = BundleRoot { path: bundle.to_string(), skipped: Vec::new(), subfolders, metadata };
    Ok(Manifests { sources, bundle_roots: vec![root] })
}

/// The `metadata/annotations.yaml` beside a bundle folder's `manifests/`,
/// read as a bundle image's is (the package it declares is held to the
/// catalog's and the config's); a link there is refused, as under `manifests/`.
fn folder_annotations(manifests: &Path) -> Result<Metadata, String> {
    let Some(root) = manifests.parent() else { return Ok(Metadata::Absent) };
    let (folder, file) = (root.join("metadata"), root.join("metadata").join("annotations.yaml"));
    for at in [&folder, &file] {
        match std::fs::symlink_metadata(at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!("{}: a symbolic link; a bundle's metadata must be the file itself", at.display()))
            }
            Ok(_) => {}
            Err(_) => return Ok(Metadata::Absent),
        }
    }
    let bytes = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let text =
        String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text; OLM cannot decode it", file.display()))?;
    Ok(Metadata::Read(text))
}

/// A bundle's folder is judged as found under `--bundles`: one reached
/// through a symbolic link could be any folder on the machine.
pub(super) fn refuse_links(root: &Path, dir: &Path) -> Result<(), String> {
    let mut at = root.to_path_buf();
    for part in dir.strip_prefix(root).map_err(|_| format!("{}: not under --bundles", dir.display()))?.components() {
        at.push(part);
        let meta = std::fs::symlink_metadata(&at).map_err(|e| format!("{}: {e}", at.display()))?;
        if meta.file_type().is_symlink() {
            return Err(format!(
                "{}: a symbolic link; a bundle's folder under --bundles must be the folder itself",
                at.display()
            ));
        }
    }
    Ok(())
}
