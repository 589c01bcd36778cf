//! `bundleObjects: Keep` means as OLM would install it.
//!
//! When this output applies the bundle's objects (Keep, and no
//! ClusterExtension of the admin's says OLM installs them), each reaches the
//! cluster where it is written, with the applier's rights. OLM would place a
//! bundle's namespaced objects in the install namespace whatever they say;
//! applied as written, a ConfigMap `kube-system/aws-auth` or a bootstrap-token
//! Secret in `kube-system` would land in a namespace nobody judged. An object
//! of no known file (stdin without the runner's file marks, a file beside
//! `manifests/`) cannot be told from the bundle's when a bundle is in the
//! input, so it is held to the same placement. (An object of a kind OLM does
//! not install is refused from the bundle's folder by
//! `trust::check_bundle_kinds`; from no known file it is not yet refused: the
//! admin's own Namespaces, Kptfiles and configs arrive that way.)

use crate::access::Resources;
use crate::findings::{Code, Finding};
use crate::model::{Body, InputObject};

use super::origin::Origins;

/// What is kept, and where it would land.
pub(crate) struct Kept<'a> {
    pub objects: &'a [InputObject],
    pub origins: &'a Origins,
    /// Per item, whether it is earlier output olm-rbac believes and writes again.
    pub believed: &'a dyn Fn(usize) -> bool,
    pub resources: &'a Resources,
    /// The install namespace, when the config names it.
    pub install: Option<&'a str>,
    /// The input holds a bundle (a ClusterServiceVersion): an object of no
    /// known file may be its.
    pub bundle_present: bool,
}

impl Kept<'_> {
    /// Refuses each kept object of the bundle's (or of no known file) that
    /// OLM would not install where this output applies it.
    pub(crate) fn check(&self, results: &mut Vec<Finding>) {
        for (i, o) in self.objects.iter().enumerate() {
            if self.origins.is_admin(i) || (self.believed)(i) {
                continue;
            }
            let kind = o.header.kind.as_deref().unwrap_or_default();
            let group = o.header.group().unwrap_or_default();
            if !self.origins.is_bundle(i) && !self.bundle_present {
                continue;
            }
            // The ClusterServiceVersion is OLM's description of the bundle, which
            // OLM v1 reads and never applies; bundles write `placeholder` there.
            if matches!(o.body, Body::Csv(_)) {
                continue;
            }
            let Some(written) = o.header.namespace.as_deref().filter(|n| !n.is_empty()) else { continue };
            if self.resources.kind_is_cluster_scoped(group, kind) || Some(written) == self.install {
                continue;
            }
            let olm = match self.install {
                Some(ns) => format!("OLM would place it in the install namespace {ns:?}"),
                None => "OLM would place it in the install namespace, which the config does not name (spec.operator.installNamespace)".to_string(),
            };
            results.push(
                Finding::error(
                    Code::BundlePlacement,
                    format!("with bundleObjects: Keep this output applies it in namespace {written:?}, where {olm}: no one judged what it does there; drop the bundle's objects (bundleObjects: Drop) and let OLM place them"),
                )
                .on(&o.object_ref())
                .at("metadata.namespace")
                .in_file(o.file.as_ref()),
            );
        }
    }
}
