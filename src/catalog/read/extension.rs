//! The ClusterExtension `catalog judge` and `render --judged-catalog` read
//! beside a catalog (`-f`): what it asks of the catalog's bundles.

use crate::catalog::Wanted;
use crate::input::Source;
use crate::semver::Range;

/// What the ClusterExtension (the only one in `sources`) asks for, read
/// through the planner's own view of one (`model::ExtensionView`).
pub(in crate::catalog) fn extension(sources: &[Source]) -> Result<Wanted, String> {
    use crate::model::{view_for, ExtensionView, ViewKind};
    let mut found = Vec::new();
    for s in sources {
        let chunks = crate::yaml::split_documents(&s.text).map_err(|e| format!("{}: {}", s.name, e.message))?;
        for chunk in &chunks {
            crate::model::is_extension(&chunk.header).map_err(|why| format!("{}: {why}", s.name))?;
            if view_for(&chunk.header) != Some(ViewKind::Extension) {
                continue;
            }
            let view: ExtensionView =
                crate::yaml::parse_item(chunk).map_err(|e| format!("{}: {}", s.name, e.message))?;
            found.push((s, view, chunk.header.object_ref()));
        }
    }
    let [(source, view, object)] = found.as_slice() else {
        return Err(format!(
            "-f must hold exactly one ClusterExtension (olm.operatorframework.io/v1); it holds {}",
            found.len()
        ));
    };
    let catalog = view.spec.source.catalog.clone().unwrap_or_default();
    let package = catalog
        .package_name
        .ok_or_else(|| format!("{}: ClusterExtension: spec.source.catalog.packageName is missing", source.name))?;
    let written_range = catalog.version.clone().filter(|v| !v.is_empty());
    let range = match catalog.version.filter(|v| !v.is_empty()) {
        None => None,
        Some(v) => Some(
            Range::parse(&v)
                .map_err(|e| format!("{}: ClusterExtension: spec.source.catalog.version: {e}", source.name))?,
        ),
    };
    let self_certified = catalog.upgrade_constraint_policy.as_deref() == Some("SelfCertified");
    let (namespace, config) = (view.spec.namespace.clone(), view.spec.config.clone());
    Ok(Wanted {
        package,
        range,
        written_range,
        channels: catalog.channels,
        self_certified,
        namespace,
        config,
        object: object.clone(),
    })
}
