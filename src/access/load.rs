//! Reading rendered manifests into a [`Policy`]: the one part of the access
//! checks that sees YAML (with `builtin`, which reads its data the same way),
//! with the same splitter as the function. The kernel
//! (`access.rs`, `cover`, `allowed`) takes typed roles and bindings only.

use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};

use super::{BindingDef, Policy, Resources, RoleDef};
use crate::input::Source;
use crate::model::{CrdView, API_ANNOTATION, EXTENSION_LABEL, MANAGED_BY, MANAGER};
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
        ("rbac.authorization.k8s.io", Some(kind)) => add_rbac(policy, chunk, kind),
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

/// Adds a role or a binding of the RBAC API group to the policy.
fn add_rbac(policy: &mut Policy, chunk: &Chunk<'_>, kind: &str) -> Result<(), yaml::ViewError> {
    match kind {
        "ClusterRole" => {
            let r = yaml::parse_item::<ClusterRole>(chunk)?;
            let name = r.metadata.name.clone().unwrap_or_default();
            let def = RoleDef {
                name: name.clone(),
                namespace: None,
                labels: r.metadata.labels.unwrap_or_default(),
                rules: r.rules.unwrap_or_default(),
                aggregation: r.aggregation_rule.and_then(|a| a.cluster_role_selectors).unwrap_or_default(),
                builtin: false,
            };
            policy.cluster_roles.insert(name, def);
        }
        "Role" => {
            let r = yaml::parse_item::<Role>(chunk)?;
            let name = r.metadata.name.clone().unwrap_or_default();
            let ns = r.metadata.namespace.clone().unwrap_or_else(|| "default".into());
            let def = RoleDef {
                name: name.clone(),
                namespace: Some(ns.clone()),
                labels: r.metadata.labels.unwrap_or_default(),
                rules: r.rules.unwrap_or_default(),
                ..Default::default()
            };
            policy.roles.insert((ns, name), def);
        }
        "ClusterRoleBinding" => {
            let b = yaml::parse_item::<ClusterRoleBinding>(chunk)?;
            policy.bindings.push(BindingDef {
                name: b.metadata.name.unwrap_or_default(),
                namespace: None,
                role_kind: b.role_ref.kind,
                role_name: b.role_ref.name,
                labels: b.metadata.labels.unwrap_or_default(),
                subjects: b.subjects.unwrap_or_default(),
                builtin: false,
            });
        }
        "RoleBinding" => {
            let b = yaml::parse_item::<RoleBinding>(chunk)?;
            policy.bindings.push(BindingDef {
                name: b.metadata.name.unwrap_or_default(),
                namespace: Some(b.metadata.namespace.unwrap_or_else(|| "default".into())),
                role_kind: b.role_ref.kind,
                role_name: b.role_ref.name,
                labels: b.metadata.labels.unwrap_or_default(),
                subjects: b.subjects.unwrap_or_default(),
                builtin: false,
            });
        }
        _ => {}
    }
    Ok(())
}
