//! The invariant every run must keep, whatever the bundle holds: the output
//! grants nothing the input did not, beyond the bundle's own APIs. Checked
//! through the offline evaluator, on what each holder of the built-in roles
//! and each binding subject may do.

use std::collections::BTreeSet;

use olm_rbac::access::cover::{self, Atom};
use olm_rbac::access::{load, Policy};
use olm_rbac::run::Source;
use olm_rbac::yaml::split_documents;

pub fn policy(text: &str) -> Policy {
    load(&[Source { name: "manifests.yaml".into(), text: text.into() }]).unwrap()
}

/// Everything anybody may do according to `text`: each holder of the
/// built-in roles and each binding subject, with the permissions as atoms.
pub fn granted(text: &str) -> BTreeSet<(String, Atom)> {
    let p = policy(text);
    let mut out = BTreeSet::new();
    for role in ["admin", "edit", "view"] {
        if let Some(def) = p.cluster_roles.get(role) {
            for (_, rule) in p.effective_rules(def) {
                out.extend(cover::atoms(&rule).into_iter().map(|a| (format!("role {role}"), a)));
            }
        }
    }
    for b in p.bindings.iter().filter(|b| !b.builtin) {
        let role = match (b.role_kind.as_str(), &b.namespace) {
            ("ClusterRole", _) => p.cluster_roles.get(&b.role_name),
            (_, Some(ns)) => p.roles.get(&(ns.clone(), b.role_name.clone())),
            _ => None,
        };
        let Some(role) = role else { continue };
        for s in &b.subjects {
            let who = format!("{} {} in {:?}", s.kind, s.name, b.namespace);
            for (_, rule) in p.effective_rules(role) {
                out.extend(cover::atoms(&rule).into_iter().map(|a| (who.clone(), a)));
            }
        }
    }
    out
}

/// The bundle's own APIs as `(group, plural)`, read from the input without
/// olm-rbac's planner: every CRD named `<plural>.<group>` and every APIService
/// a CSV owns, outside the groups the platform reserves.
pub fn own_apis(input: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(docs) = split_documents(input) else { return out };
    for d in docs {
        // A repeated key deep in a schema does not change which API a CRD defines.
        let mut options = serde_saphyr::Options::default();
        options.duplicate_keys = serde_saphyr::options::DuplicateKeyPolicy::LastWins;
        let value: serde_json::Value = match serde_saphyr::from_str_with_options(&d.text, options) {
            Ok(v) => v,
            Err(_) => continue,
        };
        let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
        match d.header.kind.as_deref() {
            Some("CustomResourceDefinition") => {
                let (group, plural) = (s(&value["spec"]["group"]), s(&value["spec"]["names"]["plural"]));
                if d.header.name.as_deref() == Some(&format!("{plural}.{group}")) {
                    out.push((group, plural));
                }
            }
            Some("ClusterServiceVersion") => {
                for e in value["spec"]["apiservicedefinitions"]["owned"].as_array().into_iter().flatten() {
                    out.push((s(&e["group"]), s(&e["name"])));
                }
            }
            _ => {}
        }
    }
    out.retain(|(g, p)| !g.is_empty() && olm_rbac::reserved::owner_of(g, p).is_none());
    out
}

/// Is the permission within what any level may grant on the APIs: anything on
/// the resource and its subresources, and reading its CRD object?
pub fn within_own(atom: &Atom, own: &[(String, String)]) -> bool {
    match atom {
        Atom::Resource { group, resource, verb, name } => {
            let plural = resource.split('/').next().unwrap_or_default();
            own.iter().any(|(g, p)| g == group && p == plural)
                || (group == "apiextensions.k8s.io"
                    && resource == "customresourcedefinitions"
                    && ["get", "list", "watch"].contains(&verb.as_str())
                    && name.as_ref().is_some_and(|n| own.iter().any(|(g, p)| *n == format!("{p}.{g}"))))
        }
        Atom::Url { .. } => false,
    }
}

/// What `output` grants that `input` did not and that lies outside `own`.
pub fn beyond_own(input: &str, output: &str, own: &[(String, String)]) -> Vec<(String, Atom)> {
    let before = granted(input);
    granted(output).into_iter().filter(|g| !before.contains(g)).filter(|(_, atom)| !within_own(atom, own)).collect()
}
