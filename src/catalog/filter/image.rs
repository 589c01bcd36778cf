//! The judged catalog as an image: what a ClusterCatalog serves is an image,
//! so `catalog filter --image-layout DIR` writes the judged catalog as an OCI
//! image layout too, ready to push and to pin by digest.
//!
//! One layer holds the catalog under `configs/`, and the image's config
//! carries the label catalogd reads to find it. The image is reproducible:
//! the same judged catalog gives the same bytes and so the same digest, so a
//! digest pinned in git can be checked by running the filter again.

use std::collections::BTreeMap;
use std::path::Path;

use crate::image::{Compression, Digest, Entry, Format, ImageSpec, Layer, Platform, CONFIGS_LABEL};

/// Where in the image the catalog is.
const CONFIGS_DIR: &str = "configs";

/// Writes `catalog_file` (the judged catalog) as the one image of the OCI
/// layout `layout`: a new or empty folder, or a layout this wrote before
/// (whose index then lists only the new image). Its manifest's digest.
pub(super) fn write(catalog_file: &Path, layout: &Path) -> Result<Digest, String> {
    let at = |e: &dyn std::fmt::Display| format!("--image-layout {}: {e}", layout.display());
    check_target(layout).map_err(|e| at(&e))?;
    let contents = std::fs::read(catalog_file).map_err(|e| format!("{}: {e}", catalog_file.display()))?;
    let file = format!("{CONFIGS_DIR}/{}", super::CATALOG_FILE);
    let spec = ImageSpec {
        layers: vec![Layer {
            entries: vec![Entry::Dir { path: CONFIGS_DIR.into() }, Entry::File { path: file, contents }],
        }],
        labels: BTreeMap::from([(CONFIGS_LABEL.to_string(), format!("/{CONFIGS_DIR}"))]),
        platform: Platform::default(),
        compression: Compression::Gzip,
        format: Format::Oci,
    };
    crate::image::write_image(layout, &spec, None).map_err(|e| at(&e))
}

/// Pushes the image `digest` of `layout` to `push`, when asked; what to say
/// of the image: where it is, and what to pin the ClusterCatalog to.
pub(super) fn push(layout: &Path, digest: &Digest, push: Option<&str>, tls_verify: bool) -> Result<String, String> {
    let written = format!(", and the judged catalog image {digest} to the OCI image layout {}", layout.display());
    let Some(target) = push else {
        return Ok(format!(
            "{written}: push it (skopeo copy --preserve-digests oci:{} docker://REGISTRY/REPOSITORY:TAG, or --push) and pin the ClusterCatalog's spec.source.image.ref to REGISTRY/REPOSITORY@{digest}",
            layout.display()
        ));
    };
    let reference = crate::image::Reference::parse(target).map_err(|e| format!("--push {target:?}: {e}"))?;
    let store = crate::image::Store::open_or_create(layout).map_err(|e| format!("--image-layout: {e}"))?;
    let mut client = crate::image::Client::new(crate::image::Options { tls_verify });
    let pushed = store.push(&mut client, digest, &reference).map_err(|e| format!("--push {target}: {e}"))?;
    Ok(format!(
        "{written}, pushed to {target}: pin the ClusterCatalog's spec.source.image.ref to {}@{pushed}",
        reference.name()
    ))
}

/// The folder is new, empty, or an OCI image layout (one written before):
/// anything else in it would be overwritten or served beside the catalog.
/// A layout's index is removed, so that it lists only the image written now.
fn check_target(layout: &Path) -> Result<(), String> {
    let names: Vec<String> = match std::fs::read_dir(layout) {
        Ok(entries) => entries.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e.to_string()),
    };
    if names.is_empty() {
        return Ok(());
    }
    let layout_files = ["oci-layout", "index.json", "blobs"];
    if !names.iter().any(|n| n == "oci-layout") || names.iter().any(|n| !layout_files.contains(&n.as_str())) {
        return Err("holds files that are not an OCI image layout; give an empty or new folder".into());
    }
    match std::fs::remove_file(layout.join("index.json")) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.to_string()),
        _ => Ok(()),
    }
}
