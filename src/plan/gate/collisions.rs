//! Bundle objects that collide where OLM puts them: written in different
//! namespaces, two Roles or RoleBindings of one name land as one object in
//! the install namespace.

use std::collections::BTreeMap;

use crate::findings::{Code, Finding};
use crate::model::*;

use crate::plan::facts::placement::in_install_namespace;
use crate::plan::gate::Gate;

impl Gate<'_> {
    /// Two of the bundle's Roles (or RoleBindings) of one name, written in
    /// different namespaces, land as one object where OLM puts them (the
    /// install namespace): one replaces the other, or the install fails, and
    /// which one the cluster holds cannot be told. Reported on the second.
    pub(super) fn check_placed_twice(&self, results: &mut Vec<Finding>) {
        let p = self.planning;
        let (objects, origins) = (p.objects(), p.origins());
        let mut seen: BTreeMap<(&str, &str, &str), &InputObject> = BTreeMap::new();
        for (i, o) in objects.iter().enumerate() {
            let rbac = matches!(o.body, Body::Role(_) | Body::Binding(_));
            let namespaced = rbac && in_install_namespace(o, &p.input.resources);
            // This config's earlier output, believed, is replaced by what this run writes.
            if origins.is_admin(i) || p.claims[i].is_some() || !namespaced {
                continue;
            }
            let (kind, name) =
                (o.header.kind.as_deref().unwrap_or_default(), o.header.name.as_deref().unwrap_or_default());
            if let Some(first) = seen.insert((o.header.group().unwrap_or_default(), kind, name), o) {
                let message = format!(
                    "OLM writes this {kind} into the install namespace, where the bundle's {} lands under the same name: one replaces the other, or the install fails, so what the bundle grants there cannot be told; give them distinct names",
                    first.object_ref()
                );
                results.push(self.finding_on(o, Code::InputDuplicate, "metadata.name", message));
            }
        }
    }
}
