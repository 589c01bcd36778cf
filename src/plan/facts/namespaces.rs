//! Namespaces chosen by label: a `namespaceSelector` (Bind mode) or
//! `targetNamespaceSelector` (the operator's targets) reads the admin's own
//! Namespace objects, never a bundle's.

use crate::config::Selector;
use crate::findings::{Code, Finding, ObjRef};
use crate::model::*;
use crate::names::is_dns1123_label;

use crate::plan::facts::origin::Origins;

/// The Namespace objects a `namespaceSelector` reads: the admin's own, known
/// by their files (`origin`). A Namespace from the bundle's folder, beside it
/// in its root, from stdin or from no known file may be the bundle's, and a
/// bundle does not get to choose where its users are granted access: unknown
/// is read on its safe side, as everywhere.
pub(crate) fn selectable_namespaces<'a>(objects: &'a [InputObject], origins: &Origins) -> Vec<&'a InputObject> {
    objects.iter().enumerate().filter(|(i, o)| o.is("", "Namespace") && origins.is_admin(*i)).map(|(_, o)| o).collect()
}

/// The names of the Namespaces a selector picked, each a valid namespace name
/// (an error otherwise), with a warning for the platform's own namespaces.
fn check_selected(matched: Vec<&InputObject>, field: &str, cfg: &ObjRef, results: &mut Vec<Finding>) -> Vec<String> {
    let mut names = Vec::new();
    for o in matched {
        let name = o.header.name.as_deref().unwrap_or_default();
        if !is_dns1123_label(name) {
            results.push(
                Finding::error(
                    Code::ObjectInvalid,
                    format!(
                        "{name:?} is not a valid namespace name (a DNS-1123 label), yet {field} selects this Namespace"
                    ),
                )
                .on(&o.object_ref())
                .at("metadata.name")
                .in_file(o.file.as_ref()),
            );
            continue;
        }
        if name == "default" || name.starts_with("kube-") || name.starts_with("openshift-") {
            results.push(
                Finding::warning(Code::NamespacePlatform, format!(
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
pub(crate) fn selected_namespaces(
    sel: &Selector,
    field: &str,
    namespaces: &[&InputObject],
    objects: &[InputObject],
    cfg: &ObjRef,
    results: &mut Vec<Finding>,
) -> Vec<String> {
    let matched: Vec<&InputObject> = namespaces.iter().copied().filter(|o| sel.matches(&o.header.labels)).collect();
    let matched = check_selected(matched, field, cfg, results);
    let not_yours = objects.iter().filter(|o| {
        o.is("", "Namespace") && !namespaces.iter().any(|n| std::ptr::eq(*n, *o)) && sel.matches(&o.header.labels)
    });
    for o in not_yours {
        results.push(
            Finding::warning(Code::OriginUntrusted, format!(
                "{field} matches this Namespace, but it is not known to be yours (it comes from the bundle's folder or its root, from stdin, or from no known file), and a bundle does not get to choose where access is granted: nothing is granted in it; pass your Namespace files from a folder of their own, or list the namespaces"
            ))
            .on(&o.object_ref())
            .in_file(o.file.as_ref()),
        );
    }
    if matched.is_empty() {
        let left_out = objects.iter().filter(|o| o.is("", "Namespace")).count().saturating_sub(namespaces.len());
        let left_out = match left_out {
            0 => String::new(),
            n => format!(" ({n} more in the input are not known to be yours and are not selected: pass your Namespace files from a folder of their own)"),
        };
        results.push(
            Finding::warning(Code::SelectorUnmatched, format!(
                "{} matches none of the {} Namespace object(s) of yours in the input{left_out}; only namespaces present in the input can be selected",
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
