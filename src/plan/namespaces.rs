//! Namespaces chosen by label: a `namespaceSelector` (Bind mode) or
//! `targetNamespaceSelector` (the operator's targets) reads the admin's own
//! Namespace objects, never a bundle's.

use crate::config::Selector;
use crate::findings::{Finding, ObjRef};
use crate::model::*;
use crate::names::is_dns1123_label;

use super::origin::Origins;

/// The Namespace objects a `namespaceSelector` reads: the admin's own. When
/// the runner says which file each object came from, Namespaces in the
/// bundle's folder (beside its CSV) are the bundle's, and a bundle does not get
/// to choose where its users are granted access.
pub(super) fn selectable_namespaces<'a>(objects: &'a [InputObject], origins: &Origins) -> Vec<&'a InputObject> {
    objects
        .iter()
        .enumerate()
        .filter(|(i, o)| o.is("", "Namespace") && !origins.is_bundle(*i))
        .map(|(_, o)| o)
        .collect()
}

/// The names of the Namespaces a selector picked, each a valid namespace name
/// (an error otherwise), with a warning for the platform's own namespaces.
fn check_selected(matched: Vec<&InputObject>, field: &str, cfg: &ObjRef, results: &mut Vec<Finding>) -> Vec<String> {
    let mut names = Vec::new();
    for o in matched {
        let name = o.header.name.as_deref().unwrap_or_default();
        if !is_dns1123_label(name) {
            results.push(
                Finding::error(format!(
                    "{name:?} is not a valid namespace name (a DNS-1123 label), yet {field} selects this Namespace"
                ))
                .on(&o.object_ref())
                .at("metadata.name")
                .in_file(o.file.as_ref()),
            );
            continue;
        }
        if name == "default" || name.starts_with("kube-") || name.starts_with("openshift-") {
            results.push(
                Finding::warning(format!(
                    "{} selects the platform namespace {name:?}: access is granted there too; narrow the selector if that is not meant",
                    selector_key(field)
                ))
                .on(cfg)
                .at(field),
            );
        }
        names.push(name.to_string());
    }
    names
}

/// The namespaces a `namespaceSelector` picks, with a warning for what it
/// cannot pick: Namespaces from the bundle's folder, or of unknown files.
pub(super) fn selected_namespaces(
    sel: &Selector,
    field: &str,
    namespaces: &[&InputObject],
    objects: &[InputObject],
    cfg: &ObjRef,
    results: &mut Vec<Finding>,
) -> Vec<String> {
    let matched: Vec<&InputObject> = namespaces.iter().copied().filter(|o| sel.matches(&o.header.labels)).collect();
    let matched = check_selected(matched, field, cfg, results);
    let from_bundle = objects.iter().filter(|o| {
        o.is("", "Namespace") && !namespaces.iter().any(|n| std::ptr::eq(*n, *o)) && sel.matches(&o.header.labels)
    });
    let unknown: Vec<&str> = namespaces
        .iter()
        .filter(|o| o.file.is_none() || o.file.as_ref().is_some_and(|f| f.path == "-"))
        .filter(|o| sel.matches(&o.header.labels))
        .filter_map(|o| o.header.name.as_deref())
        .collect();
    if !unknown.is_empty() && objects.iter().any(|o| matches!(o.body, Body::Csv(_))) {
        results.push(
            Finding::warning(format!(
                "{} selects Namespace object(s) whose files are not known ({}), so olm-rbac cannot tell yours from ones a bundle ships; name your Namespace files as inputs, or list the namespaces",
                selector_key(field),
                unknown.join(", ")
            ))
            .on(cfg)
            .at(field),
        );
    }
    for o in from_bundle {
        results.push(
            Finding::warning(format!(
                "{field} matches this Namespace, but it comes from the bundle's own folder, and the selector reads only your Namespace files: nothing is granted in it"
            ))
            .on(&o.object_ref())
            .in_file(o.file.as_ref()),
        );
    }
    if matched.is_empty() {
        results.push(
            Finding::warning(format!(
                "{} matches none of the {} Namespace object(s) in the input; only namespaces present in the input can be selected",
                selector_key(field),
                namespaces.len()
            ))
            .on(cfg)
            .at(field),
        );
    }
    matched
}

/// The selector's own key (`namespaceSelector`), for messages that also give its full path.
fn selector_key(field: &str) -> &str {
    field.rsplit('.').next().unwrap_or(field)
}
