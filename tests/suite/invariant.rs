//! The invariant every run must keep, whatever the bundle holds: the output
//! grants nothing the input did not, beyond the bundle's own APIs. Checked
//! through the offline evaluator, on what each holder of the built-in roles
//! and each binding subject may do.

use std::collections::BTreeSet;

use olm_rbac::access::cover::{self, Atom};
use olm_rbac::access::{Policy, RoleRefKind};
use olm_rbac::check::load;
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
        let role = match (b.role_kind, &b.namespace) {
            (Some(RoleRefKind::ClusterRole), _) => p.cluster_roles.get(&b.role_name),
            (Some(RoleRefKind::Role), Some(ns)) => p.roles.get(&(ns.clone(), b.role_name.clone())),
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

// ---------------------------------------------------------------------------
// The install policy's invariant: with a gate (`spec.operator.policy` with
// `allow` or `deny`), on the cluster-to-be (the output plus what OLM grants
// for the CSV) no subject but the CSV's ServiceAccounts in the install
// namespace gains anything it did not hold without the bundle, beyond the
// bundle's own APIs; and those ServiceAccounts hold, in each namespace and
// cluster-wide, only what the allow entries applicable there cover and
// nothing a deny entry applicable there overlaps. Written from the docs
// (`docs/operator-permissions.md`, "The install policy"), not from
// `src/plan/install_policy.rs`.

use std::collections::BTreeMap;

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};
use olm_rbac::access::{BindingDef, RoleDef};

/// Where a grant applies: a namespace, or `None` for cluster-wide.
pub type Place = Option<String>;

/// What each subject holds, by place. Subjects are `ServiceAccount ns/name`,
/// `User name`, `Group name`, and `holders of ClusterRole NAME` for whoever
/// an admin binds to a built-in role.
pub type Holdings = BTreeMap<String, BTreeMap<Place, Vec<PolicyRule>>>;

/// The name the oracle gives the install namespace when the config leaves it
/// out: no namespace can be called this.
pub const UNKNOWN_NAMESPACE: &str = "(the install namespace)";

/// Where a policy entry applies.
#[derive(Debug, Clone, PartialEq)]
pub enum Scope {
    Anywhere,
    Cluster,
    /// Empty: the operator's own namespaces.
    Namespaces(Vec<String>),
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub rule: PolicyRule,
    pub scope: Scope,
}

/// `spec.operator` as the generator wrote it.
#[derive(Debug, Clone)]
pub struct Operator {
    /// `Unmanaged`, `Cluster` or `Namespaces`.
    pub permissions: &'static str,
    pub install_namespace: Option<String>,
    /// `targetNamespaces` and the admin's Namespaces the selector picks.
    pub targets: Vec<String>,
    pub allow: Option<Vec<Entry>>,
    pub deny: Vec<Entry>,
}

impl Operator {
    pub fn gated(&self) -> bool {
        self.allow.is_some() || !self.deny.is_empty()
    }
    pub fn install(&self) -> String {
        self.install_namespace.clone().unwrap_or_else(|| UNKNOWN_NAMESPACE.into())
    }
    /// `installNamespace` and the targets.
    pub fn own(&self) -> Vec<String> {
        let mut own = vec![self.install()];
        own.extend(self.targets.iter().cloned());
        own.sort();
        own.dedup();
        own
    }
}

/// What the CSV asks for: per entry, the ServiceAccount and its rules.
#[derive(Debug, Clone, Default)]
pub struct Csv {
    pub cluster: Vec<(String, Vec<PolicyRule>)>,
    pub namespaced: Vec<(String, Vec<PolicyRule>)>,
    pub all_namespaces: bool,
}

impl Csv {
    pub fn accounts(&self) -> Vec<String> {
        let mut out: Vec<String> = self.cluster.iter().chain(&self.namespaced).map(|(sa, _)| sa.clone()).collect();
        out.sort();
        out.dedup();
        out
    }
    pub fn rules(&self) -> Vec<PolicyRule> {
        self.cluster.iter().chain(&self.namespaced).flat_map(|(_, r)| r.iter().cloned()).collect()
    }
}

/// The CSV among `docs`, read on its own (`None`: there is none, or it does
/// not read as a CSV).
pub fn csv(docs: &[String]) -> Option<Csv> {
    let options = || {
        let mut options = serde_saphyr::Options::default();
        options.duplicate_keys = serde_saphyr::options::DuplicateKeyPolicy::LastWins;
        options
    };
    let mut found = None;
    for d in docs {
        let Ok(chunks) = split_documents(d) else { continue };
        for c in chunks {
            if c.header.kind.as_deref() != Some("ClusterServiceVersion") {
                continue;
            }
            if found.is_some() {
                return None; // two CSVs: not a bundle the oracle knows how to read
            }
            let v: serde_json::Value = serde_saphyr::from_str_with_options(&c.text, options()).ok()?;
            let spec = &v["spec"]["install"]["spec"];
            let entries = |field: &str| -> Option<Vec<(String, Vec<PolicyRule>)>> {
                let mut out = Vec::new();
                for e in spec[field].as_array().into_iter().flatten() {
                    let sa = match &e["serviceAccountName"] {
                        serde_json::Value::Null => "default".to_string(),
                        serde_json::Value::String(s) if s.is_empty() => "default".to_string(),
                        serde_json::Value::String(s) => s.clone(),
                        _ => return None,
                    };
                    let rules: Vec<PolicyRule> = match &e["rules"] {
                        serde_json::Value::Null => Vec::new(),
                        r => serde_json::from_value(r.clone()).ok()?,
                    };
                    out.push((sa, rules));
                }
                Some(out)
            };
            let all_namespaces = v["spec"]["installModes"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|m| m["type"] == "AllNamespaces" && m["supported"] == true);
            found = Some(Csv {
                cluster: entries("clusterPermissions")?,
                namespaced: entries("permissions")?,
                all_namespaces,
            });
        }
    }
    found
}

/// `(kind, name)` of every Role and RoleBinding in `text` written without a
/// namespace: OLM creates those in the install namespace.
fn namespaceless(text: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let Ok(docs) = split_documents(text) else { return out };
    let mut visit = |h: &olm_rbac::yaml::Header| {
        if let (Some(kind @ ("Role" | "RoleBinding")), None) = (h.kind.as_deref(), &h.namespace) {
            out.insert((kind.to_string(), h.name.clone().unwrap_or_default()));
        }
    };
    for d in &docs {
        visit(&d.header);
        if d.header.kind.as_deref().is_some_and(|k| k.ends_with("List")) {
            if let Ok(Some(list)) = olm_rbac::yaml::split_list(&d.text) {
                list.items.iter().for_each(|i| visit(&i.header));
            }
        }
    }
    out
}

/// The rule OLM adds when it promotes `permissions`: reading namespaces.
pub fn namespaces_read() -> PolicyRule {
    PolicyRule {
        api_groups: Some(vec![String::new()]),
        resources: Some(vec!["namespaces".into()]),
        verbs: vec!["get".into(), "list".into(), "watch".into()],
        ..Default::default()
    }
}

/// Does OLM grant `permissions` cluster-wide?
pub fn promoted(op: &Operator, csv: &Csv) -> bool {
    op.permissions == "Cluster" || (op.permissions == "Unmanaged" && csv.all_namespaces)
}

/// The cluster-to-be: `text` read by the evaluator (Kubernetes' bootstrap
/// policy included), its namespace-less Roles and RoleBindings moved to the
/// install namespace, and, with `csv`, what OLM grants for the CSV.
pub fn cluster(text: &str, op: &Operator, csv: Option<&Csv>) -> Policy {
    let mut p = policy(text);
    let install = op.install();
    let moved = namespaceless(text);
    let roles = std::mem::take(&mut p.roles);
    for ((ns, name), mut role) in roles {
        if ns == "default" && moved.contains(&("Role".into(), name.clone())) {
            role.namespace = Some(install.clone());
            p.roles.insert((install.clone(), name), role);
        } else {
            p.roles.insert((ns, name), role);
        }
    }
    for b in &mut p.bindings {
        if !b.builtin
            && b.namespace.as_deref() == Some("default")
            && moved.contains(&("RoleBinding".into(), b.name.clone()))
        {
            b.namespace = Some(install.clone());
        }
    }
    let Some(csv) = csv else { return p };
    let grant = |p: &mut Policy, name: String, namespace: Option<String>, sa: &str, rules: Vec<PolicyRule>| {
        let role =
            RoleDef { name: name.clone(), namespace: namespace.clone(), rules: rules.into(), ..Default::default() };
        match &namespace {
            None => p.cluster_roles.insert(name.clone(), role),
            Some(ns) => p.roles.insert((ns.clone(), name.clone()), role),
        };
        p.bindings.push(BindingDef {
            name: name.clone(),
            namespace: namespace.clone(),
            role_kind: Some(if namespace.is_some() { RoleRefKind::Role } else { RoleRefKind::ClusterRole }),
            role_name: name,
            subjects: vec![Subject {
                kind: "ServiceAccount".into(),
                name: sa.into(),
                namespace: Some(install.clone()),
                api_group: None,
            }],
            labels: Default::default(),
            builtin: false,
            source: None,
        });
    };
    for (i, (sa, rules)) in csv.cluster.iter().enumerate() {
        grant(&mut p, format!("(olm) clusterPermissions[{i}]"), None, sa, rules.clone());
    }
    for (i, (sa, rules)) in csv.namespaced.iter().enumerate() {
        if promoted(op, csv) {
            let mut rules = rules.clone();
            rules.push(namespaces_read());
            grant(&mut p, format!("(olm) permissions[{i}]"), None, sa, rules);
        } else {
            for ns in op.own() {
                grant(&mut p, format!("(olm) permissions[{i}]"), Some(ns), sa, rules.clone());
            }
        }
    }
    p
}

/// A subject as one key, whatever the spelling: a ServiceAccount's namespace
/// from its binding when unset, a User named like a ServiceAccount as that
/// ServiceAccount. `None`: it matches nobody.
fn subject_key(s: &Subject, binding_namespace: Option<&str>) -> Option<String> {
    match s.kind.as_str() {
        "ServiceAccount" => {
            let ns = s.namespace.as_deref().filter(|n| !n.is_empty()).or(binding_namespace)?;
            Some(format!("ServiceAccount {ns}/{}", s.name))
        }
        "User" => match s.name.strip_prefix("system:serviceaccount:").and_then(|r| r.split_once(':')) {
            Some((ns, name)) => Some(format!("ServiceAccount {ns}/{name}")),
            None => Some(format!("User {}", s.name)),
        },
        "Group" => Some(format!("Group {}", s.name)),
        _ => None,
    }
}

pub fn account(namespace: &str, name: &str) -> String {
    format!("ServiceAccount {namespace}/{name}")
}

/// Who holds what, where: every binding's subjects with the rules of the role
/// it refers to (aggregation followed), and the holders of each built-in
/// ClusterRole, which an admin may bind anywhere.
pub fn holdings(p: &Policy) -> Holdings {
    let mut out = Holdings::new();
    for b in &p.bindings {
        let role = match (b.role_kind, &b.namespace) {
            (Some(RoleRefKind::ClusterRole), _) => p.cluster_roles.get(&b.role_name),
            (Some(RoleRefKind::Role), Some(ns)) => p.roles.get(&(ns.clone(), b.role_name.clone())),
            _ => None,
        };
        let Some(role) = role else { continue };
        let rules: Vec<PolicyRule> = p.effective_rules(role).into_iter().map(|(_, r)| r).collect();
        for s in &b.subjects {
            let Some(who) = subject_key(s, b.namespace.as_deref()) else { continue };
            out.entry(who).or_default().entry(b.namespace.clone()).or_default().extend(rules.iter().cloned());
        }
    }
    if let Ok(builtins) = olm_rbac::access::builtin::policy() {
        for name in builtins.cluster_roles.keys() {
            if let Some(role) = p.cluster_roles.get(name) {
                let rules = p.effective_rules(role).into_iter().map(|(_, r)| r);
                out.entry(format!("holders of ClusterRole {name}")).or_default().entry(None).or_default().extend(rules);
            }
        }
    }
    out
}

/// What `who` holds at `place` that `before` did not give it there (or
/// cluster-wide), atom by atom.
pub fn gained(now: &Holdings, before: &Holdings, who: &str, place: &Place) -> Vec<Atom> {
    let Some(rules) = now.get(who).and_then(|m| m.get(place)) else { return Vec::new() };
    let held = before.get(who);
    let mut owner: Vec<PolicyRule> = held.and_then(|m| m.get(place)).cloned().unwrap_or_default();
    if place.is_some() {
        owner.extend(held.and_then(|m| m.get(&None)).cloned().unwrap_or_default());
    }
    let mut out = Vec::new();
    for rule in rules {
        if cover::covers(&owner, std::slice::from_ref(rule)) {
            continue;
        }
        out.extend(cover::atoms(rule).into_iter().filter(|a| !cover::covers(&owner, &[a.to_rule()])));
    }
    out.sort();
    out.dedup();
    out
}

/// The allow entries that apply at `place`: `Cluster` ones everywhere (a rule
/// allowed cluster-wide is allowed in one namespace too), `Namespaces` ones in
/// their namespaces only.
pub fn allowed_at(entries: &[Entry], place: &Place, own: &[String]) -> Vec<PolicyRule> {
    entries
        .iter()
        .filter(|e| match (&e.scope, place) {
            (Scope::Anywhere | Scope::Cluster, _) => true,
            (Scope::Namespaces(_), None) => false,
            (Scope::Namespaces(list), Some(ns)) => if list.is_empty() { own } else { list }.contains(ns),
        })
        .map(|e| e.rule.clone())
        .collect()
}

/// The deny entries that apply at `place`: `Cluster` ones to cluster-wide
/// grants, `Namespaces` ones in their namespaces and cluster-wide (which
/// reaches them).
pub fn denied_at(entries: &[Entry], place: &Place, own: &[String]) -> Vec<PolicyRule> {
    entries
        .iter()
        .filter(|e| match (&e.scope, place) {
            (Scope::Anywhere, _) | (_, None) => true,
            (Scope::Cluster, Some(_)) => false,
            (Scope::Namespaces(list), Some(ns)) => if list.is_empty() { own } else { list }.contains(ns),
        })
        .map(|e| e.rule.clone())
        .collect()
}

/// Do two rules share a permission? Wildcards as the API server reads them:
/// `*` is every value (subresources included), `*/sub` that subresource of
/// every resource, a URL ending in `*` every URL it prefixes; `resourceNames`
/// narrow, an empty list being every name. (Written for the oracle; the
/// product has its own.)
pub fn share_a_permission(a: &PolicyRule, b: &PolicyRule) -> bool {
    let l = |v: &Option<Vec<String>>| v.clone().unwrap_or_default();
    let meet = |x: &[String], y: &[String]| x.iter().any(|p| y.iter().any(|q| p == "*" || q == "*" || p == q));
    if !meet(&a.verbs, &b.verbs) {
        return false;
    }
    let resource = |p: &str, q: &str| {
        let sub = |r: &str| r.split_once('/').map(|(_, s)| s.to_string());
        p == "*"
            || q == "*"
            || p == q
            || (p.starts_with("*/") && sub(q).as_deref() == p.strip_prefix("*/"))
            || (q.starts_with("*/") && sub(p).as_deref() == q.strip_prefix("*/"))
    };
    let (an, bn) = (l(&a.resource_names), l(&b.resource_names));
    let resources = meet(&l(&a.api_groups), &l(&b.api_groups))
        && l(&a.resources).iter().any(|p| l(&b.resources).iter().any(|q| resource(p, q)))
        && (an.is_empty() || bn.is_empty() || an.iter().any(|n| bn.contains(n)));
    let url = |p: &str, q: &str| match (p.strip_suffix('*'), q.strip_suffix('*')) {
        (Some(x), Some(y)) => x.starts_with(y) || y.starts_with(x),
        (Some(x), None) => q.starts_with(x),
        (None, Some(y)) => p.starts_with(y),
        (None, None) => p == q,
    };
    let urls = l(&a.non_resource_urls).iter().any(|p| l(&b.non_resource_urls).iter().any(|q| url(p, q)));
    resources || urls
}

/// Where a place is, for messages.
pub fn place_name(place: &Place) -> String {
    place.as_ref().map_or("cluster-wide".into(), |ns| format!("in {ns}"))
}

/// What an installer account may hold beyond the policy's ceiling: writing
/// the objects it installs (`get`, `update`, `patch`, `delete` by name;
/// `create`, `list`, `watch` on a kind, which Kubernetes cannot restrict by
/// name) and OLM's own needs (finalizers of its ClusterExtension and
/// ClusterObjectSets, OLM v0's Subscription, the operator's RBAC objects by
/// any name, as OLM names them by a hash). Never a wildcard, a URL,
/// `escalate`, `bind` or `impersonate`, nor reading a kind by any name.
pub fn installer_may_hold(atom: &Atom) -> bool {
    let Atom::Resource { group, resource, verb, name } = atom else { return false };
    if group == "*" || resource == "*" || resource.starts_with("*/") {
        return false;
    }
    let olm = matches!(
        (group.as_str(), resource.as_str(), verb.as_str()),
        ("olm.operatorframework.io", "clusterextensions/finalizers" | "clusterobjectsets/finalizers", "update")
            | ("operators.coreos.com", "subscriptions", "get" | "update" | "patch")
            // The operator's RBAC objects, which OLM names by a hash: by any name.
            | (
                "rbac.authorization.k8s.io",
                "clusterroles" | "clusterrolebindings" | "roles" | "rolebindings",
                "get" | "update" | "patch" | "delete"
            )
    );
    olm || match verb.as_str() {
        "get" | "update" | "patch" | "delete" => name.is_some(),
        "create" | "list" | "watch" => true,
        _ => false,
    }
}

/// Does a CustomResourceDefinition in `input` not read as YAML? olm-rbac
/// reads a CRD's header and names without its schema, so a schema broken in
/// a way the API server would refuse still counts there as the bundle's API;
/// [`own_apis`], reading whole documents, leaves it out. On such input the
/// two disagree about which APIs are the bundle's, and there is nothing to
/// compare.
pub fn malformed_crd(input: &str) -> bool {
    let Ok(docs) = split_documents(input) else { return false };
    docs.iter().filter(|d| d.header.kind.as_deref() == Some("CustomResourceDefinition")).any(|d| {
        let mut options = serde_saphyr::Options::default();
        options.duplicate_keys = serde_saphyr::options::DuplicateKeyPolicy::LastWins;
        serde_saphyr::from_str_with_options::<serde_json::Value>(&d.text, options).is_err()
    })
}
