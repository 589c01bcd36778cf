//! What reading a bundle's root found of its layout, as render's results:
//! what was not read and why, and what OLM v1 refuses in it.

use crate::findings::{Code, Finding};
use crate::input::BundleRoot;

/// Every result about how `root` was read.
pub(super) fn findings(root: &BundleRoot) -> impl Iterator<Item = Finding> + '_ {
    layout_note(root).into_iter().chain(stray_warning(root)).chain(subfolder_refusals(root))
}

/// Says how a bundle's root was read, when its `metadata/` or `tests/` was
/// left out.
fn layout_note(root: &BundleRoot) -> Option<Finding> {
    let parts: Vec<&str> = root
        .skipped
        .iter()
        .filter_map(|s| match s.as_str() {
            "metadata" => Some("metadata/ (the bundle's annotations)"),
            "tests" => Some("tests/ (its scorecard tests)"),
            _ => None,
        })
        .collect();
    if parts.is_empty() {
        return None;
    }
    let (verb, holds) = if parts.len() == 1 { ("was", "it holds") } else { ("were", "they hold") };
    Some(Finding::info(Code::InputRead, format!(
        "{}: read as an OLM bundle (registry+v1 layout): its objects are in manifests/; {} {verb} not read, since {holds} no objects to apply",
        root.path,
        parts.join(" and ")
    )))
}

/// Names what else of a bundle's root was not read (a stray `bundle/` copy
/// of the manifests, a file beside them): OLM installs only `manifests/`.
fn stray_warning(root: &BundleRoot) -> Option<Finding> {
    let stray: Vec<String> = root
        .stray()
        .map(|s| match std::path::Path::new(&root.path).join(s).is_dir() {
            true => format!("{s}/"),
            false => s.to_string(),
        })
        .collect();
    if stray.is_empty() {
        return None;
    }
    let (verb, it) = if stray.len() == 1 { ("was", "it") } else { ("were", "them") };
    Some(Finding::warning(Code::InputRead, format!(
        "{}: {} {verb} not read: of a bundle's root OLM installs only what manifests/ holds, and every command reads it so; to read {it} anyway, name {it} on its own",
        root.path,
        stray.join(", ")
    )))
}

/// A folder inside a bundle's `manifests/`: OLM v1 refuses the bundle
/// (`plan::installable::subfolder_refusal`), whatever its RBAC.
fn subfolder_refusals(root: &BundleRoot) -> impl Iterator<Item = Finding> + '_ {
    let folders = root.subfolders.iter().map(|folder| {
        let refusal = crate::plan::installable::subfolder_refusal(folder);
        Finding::error(Code::Uninstallable, format!("{}: {}", root.path, refusal.message()))
    });
    let missing = (root.metadata == crate::input::Metadata::MissingFromImage).then(|| {
        Finding::error(Code::Uninstallable, format!(
            "{}: the bundle image holds no metadata/annotations.yaml: OLM v1 reads a registry+v1 bundle's package and media type from it, and refuses a bundle without it",
            root.path
        ))
    });
    folders.chain(missing)
}
