//! Where the bundle's roles and bindings land, in the access kernel's own
//! policy type. OLM writes each namespaced object of a bundle into the
//! install namespace, whatever namespace it names, and each cluster-scoped
//! one as it is; with `bundleObjects: Keep` the rendered output also applies
//! each namespaced one as written. The installer and the install gate both
//! resolve the bundle's bindings over this one placement, through the
//! kernel's resolver ([`Policy::binding_rules`], [`Policy::binds_a_role`]), as
//! the cluster will.

use crate::access::{Policy, Resources};
use crate::model::{Body, InputObject};
use crate::names::is_dns1123_label;

/// Where the bundle's objects are applied.
pub(crate) struct Placement<'n> {
    /// The install namespace: where OLM writes each namespaced object.
    pub install: &'n str,
    /// `bundleObjects: Keep`: each namespaced object is also applied as
    /// written, and one that names no namespace lands in this one.
    pub applied: Option<&'n str>,
    /// The scope table that says which kinds are namespaced.
    pub table: &'n Resources,
}

impl<'n> Placement<'n> {
    /// The namespace OLM writes the object in: the install namespace for a
    /// namespaced kind, none for a cluster-scoped one.
    pub(crate) fn olm_namespace(&self, o: &InputObject) -> Option<&'n str> {
        in_install_namespace(o, self.table).then_some(self.install)
    }

    /// Adds the roles and bindings among `members` (indices into `objects`)
    /// to `policy` where they land ([`Placement::copies`]), each recording
    /// its index as its source.
    pub(crate) fn place(&self, policy: &mut Policy, objects: &[InputObject], members: impl IntoIterator<Item = usize>) {
        for i in members {
            let Some(o) = objects.get(i) else { continue };
            if matches!(o.body, Body::Role(_) | Body::Binding(_)) {
                for copy in self.copies(o) {
                    policy.add_object_from(&copy, Some(i));
                }
            }
        }
    }

    /// The copies of a bundle object the cluster holds: OLM's, then with
    /// [`Placement::applied`] the copy applied as written, when that is
    /// elsewhere. A written namespace the API server refuses (not a DNS-1123
    /// label) holds no copy.
    pub(crate) fn copies(&self, o: &InputObject) -> Vec<InputObject> {
        let olm = self.olm_namespace(o);
        let mut copies = vec![in_namespace(o, olm)];
        if let (Some(_), Some(applied)) = (olm, self.applied) {
            match o.header.namespace.as_deref().filter(|ns| !ns.is_empty()) {
                Some(ns) if ns == self.install || !is_dns1123_label(ns) => {}
                Some(ns) => copies.push(in_namespace(o, Some(ns))),
                None => copies.push(in_namespace(o, Some(applied))),
            }
        }
        copies
    }
}

/// The copies of a bundle's role or binding the cluster holds once OLM
/// installs it into `install` ([`Placement::copies`]), with Kubernetes' own
/// kinds' scopes, which are all a role or binding needs.
pub(crate) fn olm_copies(o: &InputObject, install: &str, applied: Option<&str>) -> Vec<InputObject> {
    Placement { install, applied, table: Resources::builtin_table() }.copies(o)
}

/// Whether OLM writes the bundle object into the install namespace: one of
/// a namespaced kind, as the scope table has it, whatever namespace it names.
pub(crate) fn in_install_namespace(o: &InputObject, table: &Resources) -> bool {
    let (group, kind) = (o.header.group().unwrap_or_default(), o.header.kind.as_deref().unwrap_or_default());
    !table.kind_is_cluster_scoped(group, kind)
}

/// A copy of a role or binding in `namespace`.
fn in_namespace(o: &InputObject, namespace: Option<&str>) -> InputObject {
    let mut header = o.header.clone();
    header.namespace = namespace.map(str::to_string);
    InputObject { header, body: o.body.clone(), file: None }
}
