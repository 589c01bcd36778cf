//! `render --judged-catalog`: every bundle the render's ClusterExtension
//! admits from the judged catalog (`catalog filter`'s output), judged with
//! the render's own config, so that render may accept a version range: the
//! cluster, held to that catalog's image by digest, can then install no
//! bundle that was not judged here.
//!
//! The range is read as OLM v1 reads it, and every channel of the package is
//! taken whatever the ClusterExtension names (judging more than OLM might
//! install is safe, and the admission policy does not hold the channels).

use std::path::Path;

use super::report::Row;
use super::{read, resolve, Images};
use crate::input::Source;
use crate::judge::JudgedRange;

/// The judged catalog at `path`, and the ClusterExtension among `inputs`:
/// each bundle its range admits there, judged with `configs`. An error when
/// the catalog cannot be read, or the inputs hold no one ClusterExtension
/// with a version range.
pub(crate) fn judged_range(
    path: &Path,
    bundles: &super::BundleArgs<'_>,
    allow_tag_images: bool,
    inputs: &[Source],
    configs: &[Source],
) -> Result<JudgedRange, String> {
    let at = |e: String| format!("--judged-catalog {}: {e}", path.display());
    let mut wanted = read::extension(inputs).map_err(at)?;
    let Some(range) = wanted.written_range.clone() else {
        return Err(at("the ClusterExtension sets no spec.source.catalog.version: a judged catalog makes a version range safe, and there is none to judge".into()));
    };
    wanted.channels.clear();
    wanted.self_certified = false;
    let mut bundles = super::bundles::Bundles::open(bundles)?;
    let (_extracted, read_from) = super::catalog_at(&mut bundles, path)?;
    let catalog = read::Catalog::read(&read_from).map_err(at)?;
    let admitted = resolve::admitted(&catalog.entries, &wanted);
    let asked = crate::judge::Asked { namespace: wanted.namespace.as_deref(), config: wanted.config.as_ref() };
    let extension = crate::judge::Extension::Given { asked: Some(asked), object: Some(&wanted.object) };
    let rows = super::judge_all(&catalog, &mut bundles, &admitted, extension, |_| {
        Ok(super::configs::Chosen { sources: configs.to_vec(), file: None })
    })
    .map_err(at)?;
    let images = if allow_tag_images { Images::Any } else { Images::ByDigest };
    let (passed, failed): (Vec<&Row>, Vec<&Row>) = rows.iter().partition(|r| r.passes(images));
    let said = |r: &Row| r.version.clone().unwrap_or_else(|| "-".into());
    let why = |r: &Row| match r.tag_refused(images) {
        true => super::report::TAG_IMAGE.to_string(),
        false => r.errors.first().cloned().unwrap_or_else(|| format!("{:?}", r.verdict)),
    };
    Ok(JudgedRange {
        catalog: path.display().to_string(),
        package: wanted.package.clone(),
        range,
        passed: passed.iter().map(|r| (r.bundle.clone(), said(r))).collect(),
        failed: failed.iter().map(|r| (r.bundle.clone(), why(r))).collect(),
    })
}
