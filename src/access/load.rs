//! Reading rendered manifests into a [`Policy`]: the one part of the access
//! checks that sees YAML (with `builtin`, which reads its data the same way),
//! with the same splitter as the function. The kernel
//! (`access.rs`, `cover`, `allowed`) takes typed roles and bindings only.

use super::{Policy, Resources};
use crate::input::Source;
use crate::model::{
    view_for, BindingView, Body, CrdView, InputObject, ViewKind, API_ANNOTATION, EXTENSION_LABEL, MANAGED_BY, MANAGER,
};
use crate::yaml::{self, Chunk};

/// Reads manifests (documents, ResourceLists, `kind: List`) into a policy.
/// Problems name the file and object.
pub fn load(inputs: &[Source]) -> Result<Policy, Vec<String>> {
    read(inputs).map(|loaded| loaded.policy)
}

/// What [`read`] made of the input: the policy, how many Kubernetes objects
/// it held, and a warning for each item it skipped as not being one.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub policy: Policy,
    /// Objects with an `apiVersion` and a `kind` (list items counted, lists not).
    pub objects: usize,
    pub warnings: Vec<String>,
}

/// [`load`], keeping what the commands tell the user about: the number of
/// objects, and the items that were skipped because they lack `apiVersion`
/// or `kind` (each named by file, document, list item and name).
pub(crate) fn read(inputs: &[Source]) -> Result<Loaded, Vec<String>> {
    let mut policy = Policy { resources: Resources::builtin(), ..Default::default() };
    let mut errors = Vec::new();
    let mut seen = Seen { objects: 0, warnings: Vec::new() };
    for input in inputs {
        let docs = match yaml::split_documents(&input.text) {
            Ok(d) => d,
            Err(e) => {
                errors.push(format!("{}: {e}", input.name));
                continue;
            }
        };
        for (index, doc) in docs.iter().enumerate() {
            let place = format!("document {}", index + 1);
            // ResourceList, List, and typed lists such as ClusterRoleBindingList.
            let is_list = doc.header.kind.as_deref().is_some_and(|k| k == "ResourceList" || k.ends_with("List"));
            if !is_list {
                if seen.object(doc, &input.name, &place, Some(doc.line)) {
                    add(&mut policy, doc, &input.name, &mut errors);
                }
                continue;
            }
            // JSON or flow-style lists are re-serialised first, as in function mode.
            let normalized = match yaml::split_list(&doc.text) {
                Ok(Some(_)) => None,
                _ => yaml::normalize(&doc.text).ok(),
            };
            match yaml::split_list(normalized.as_deref().unwrap_or(&doc.text)) {
                Ok(Some(list)) => {
                    for (i, item) in list.items.iter().enumerate() {
                        let place = format!("document {}, item {}", index + 1, i + 1);
                        // Lines of a re-serialised list are not the input's.
                        let line = normalized.is_none().then(|| doc.line + item.line.saturating_sub(1));
                        if seen.object(item, &input.name, &place, line) {
                            add(&mut policy, item, &input.name, &mut errors);
                        }
                    }
                }
                Ok(None) => errors.push(format!("{}: could not read the list at line {}", input.name, doc.line)),
                Err(e) => errors.push(format!("{}: {e}", input.name)),
            }
        }
    }
    if errors.is_empty() {
        Ok(Loaded { policy: policy.with_builtins(), objects: seen.objects, warnings: seen.warnings })
    } else {
        Err(errors)
    }
}

/// Counts the input's objects and warns about the items that are not ones.
struct Seen {
    objects: usize,
    warnings: Vec<String>,
}

impl Seen {
    /// Whether the item is a Kubernetes object (it has `apiVersion` and `kind`);
    /// if not, a warning naming where it is.
    fn object(&mut self, chunk: &Chunk<'_>, file: &str, place: &str, line: Option<usize>) -> bool {
        let h = &chunk.header;
        let missing: Vec<&str> = [("apiVersion", &h.api_version), ("kind", &h.kind)]
            .into_iter()
            .filter(|(_, v)| v.as_deref().is_none_or(str::is_empty))
            .map(|(field, _)| field)
            .collect();
        if missing.is_empty() {
            self.objects += 1;
            return true;
        }
        let details: Vec<String> = line
            .map(|l| format!("line {l}"))
            .into_iter()
            .chain(h.name.as_ref().map(|n| format!("name {n:?}")))
            .collect();
        let details = if details.is_empty() { String::new() } else { format!(" ({})", details.join(", ")) };
        self.warnings.push(format!(
            "{file}: {place}{details} is not a Kubernetes object: it has no {}; ignored",
            missing.join(" and no ")
        ));
        false
    }
}

pub(super) fn add(policy: &mut Policy, chunk: &Chunk<'_>, file: &str, errors: &mut Vec<String>) {
    let h = &chunk.header;
    if h.labels.get(MANAGED_BY).map(String::as_str) == Some(MANAGER) {
        if let (Some(ext), Some(api)) = (h.labels.get(EXTENSION_LABEL), h.annotations.get(API_ANNOTATION)) {
            policy.apis.insert(api.clone(), Some(ext.clone()));
        }
    }
    let group = h.group().unwrap_or_default();
    let added = match (group, h.kind.as_deref()) {
        ("rbac.authorization.k8s.io", Some(_)) => add_rbac(policy, chunk),
        ("apiextensions.k8s.io", Some("CustomResourceDefinition")) => {
            yaml::parse_item::<CrdView>(chunk).and_then(|crd| match (crd.spec.group, crd.spec.names.plural) {
                // The API server refuses such a CRD; reading it would shadow `pods.v1`-like names.
                (Some(g), Some(_)) if !crate::names::is_crd_group(&g) => Err(yaml::ViewError {
                    message: format!(
                        "spec.group {g:?} has no dot (or is not a DNS subdomain): the API server refuses such a CRD"
                    ),
                    path: Some("spec.group".into()),
                    pos: None,
                }),
                (Some(g), Some(p)) => {
                    policy.resources.add(&g, &p, crd.spec.scope.as_deref() == Some("Cluster"));
                    policy.apis.entry(format!("{p}.{g}")).or_insert(None);
                    Ok(())
                }
                _ => Ok(()),
            })
        }
        _ => Ok(()),
    };
    if let Err(e) = added {
        errors.push(format!(
            "{file}: {} {}: {}",
            h.kind.as_deref().unwrap_or("object"),
            h.name.as_deref().unwrap_or("(unnamed)"),
            e.message
        ));
    }
}

/// Reads a role or a binding of the RBAC API group through the planner's own
/// views, and adds it the one way roles and bindings enter a policy
/// ([`Policy::add_object`]). A binding must name its role, as the API server
/// requires.
fn add_rbac(policy: &mut Policy, chunk: &Chunk<'_>) -> Result<(), yaml::ViewError> {
    let body = match view_for(&chunk.header) {
        Some(ViewKind::Role) => Body::Role(yaml::parse_item(chunk)?),
        Some(ViewKind::Binding) => {
            let view: BindingView = yaml::parse_item(chunk)?;
            if view.role_ref.kind.is_none() || view.role_ref.name.is_none() {
                return Err(yaml::ViewError {
                    message: "roleRef needs kind and name, as the API server requires".into(),
                    path: Some("roleRef".into()),
                    pos: None,
                });
            }
            Body::Binding(view)
        }
        _ => return Ok(()),
    };
    policy.add_object(&InputObject { header: chunk.header.clone(), body, file: None });
    Ok(())
}
