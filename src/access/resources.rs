//! The scope table: the resources the cluster-to-be serves, whether each is
//! cluster-scoped, and how a user names them. Kubernetes' and OLM's kinds
//! (`kinds`), then the input's CRDs, under one precedence rule
//! ([`Resources::add_named`]); built once per input ([`Resources::of_input`])
//! and read by the planner (an object's identity, what installing it needs)
//! and by the access checks alike. Resource arguments resolve as kubectl
//! resolves them.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::kinds::ApiResource;
use crate::model::{Body, CrdView, InputObject};

/// What the checks know of a resource: its scope and the names a user may
/// call it by besides its plural.
#[derive(Debug, Clone, Default)]
/// Its names are shared: every policy starts from a copy of the built-in table.
struct Known {
    cluster: bool,
    /// The kind in lower case, as a user may name it.
    kind: Option<Arc<str>>,
    /// The kind as its definition writes it, as objects name it.
    kind_written: Option<Arc<str>>,
    singular: Option<Arc<str>>,
    short: Arc<[String]>,
    /// One of Kubernetes' own: kubectl prefers it over a CRD's of the same name.
    kubernetes: bool,
    /// From the kinds table (Kubernetes', OLM's and the well-known operator
    /// kinds), not only from a CRD of the input.
    builtin: bool,
}

/// The resources the input's CRDs define, and the built-in kinds. The table
/// is shared: every policy starts from the built-in kinds, and a copy is made
/// only when an input's CRD adds to it ([`Resources::add_named`]).
#[derive(Debug, Clone, Default)]
pub struct Resources {
    table: Arc<Table>,
}

#[derive(Debug, Clone, Default)]
struct Table {
    /// `(group, plural)` → what is known of it.
    scope: BTreeMap<(String, String), Known>,
    /// `(group, kind as written)` → the plurals that declare it: an object's
    /// kind is looked up once per object, so not by a walk of the table.
    by_kind: BTreeMap<(String, Arc<str>), BTreeSet<String>>,
}

/// A resource argument, resolved ([`Resources::resolve`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub group: String,
    pub plural: String,
    pub subresource: Option<String>,
    /// Said when neither the input nor the built-in kinds define the resource.
    pub unknown: Option<String>,
}

/// A resource as a CRD names it (`spec.names`), for [`Resources::add_named`].
#[derive(Debug, Clone, Default)]
pub(crate) struct CrdNames<'a> {
    pub kind: Option<&'a str>,
    pub singular: Option<&'a str>,
    pub short: &'a [String],
}

impl Resources {
    /// Every resource Kubernetes and OLM serve (`kinds`), with its scope and names.
    pub(crate) fn builtin() -> Resources {
        Resources::builtin_table().clone()
    }

    /// [`Resources::builtin`], shared: read once, for those who only read it.
    pub(crate) fn builtin_table() -> &'static Resources {
        static BUILTIN: std::sync::OnceLock<Resources> = std::sync::OnceLock::new();
        BUILTIN.get_or_init(Resources::read_builtin)
    }

    /// [`Resources::builtin`], read from the `kinds` table.
    fn read_builtin() -> Resources {
        let scope: BTreeMap<(String, String), Known> = crate::kinds::known_named()
            .map(|(r, n)| {
                let known = Known {
                    cluster: r.cluster,
                    kind_written: Some(n.kind.as_str().into()),
                    kind: Some(n.kind.into()),
                    singular: Some(n.singular.into()),
                    short: n.short.into(),
                    kubernetes: n.kubernetes,
                    builtin: true,
                };
                ((r.group, r.plural), known)
            })
            .collect();
        let mut by_kind: BTreeMap<(String, Arc<str>), BTreeSet<String>> = BTreeMap::new();
        for ((g, p), k) in &scope {
            if let Some(kind) = &k.kind_written {
                by_kind.entry((g.clone(), kind.clone())).or_default().insert(p.clone());
            }
        }
        Resources { table: Arc::new(Table { scope, by_kind }) }
    }

    /// The table of an input: the built-in kinds, then each of its CRDs in
    /// order (a later CRD of the same resource wins, as the last one applied does).
    pub(crate) fn of_input<'a>(objects: impl IntoIterator<Item = &'a InputObject>) -> Resources {
        let mut table = Resources::builtin();
        for o in objects {
            if let Body::Crd(crd) = &o.body {
                table.add_crd(crd);
            }
        }
        table
    }

    /// A CRD's resource, under [`Resources::add_named`]'s rule; its
    /// `(group, plural)` when it names both.
    pub(crate) fn add_crd<'c>(&mut self, crd: &'c CrdView) -> Option<(&'c str, &'c str)> {
        let names = &crd.spec.names;
        let (g, p) = (crd.spec.group.as_deref()?, names.plural.as_deref()?);
        let named =
            CrdNames { kind: names.kind.as_deref(), singular: names.singular.as_deref(), short: &names.short_names };
        self.add_named(g, p, crd.cluster_scoped(), &named);
        Some((g, p))
    }

    /// The resource objects of `kind` in `group` are: by the kind as written
    /// (kinds are case-sensitive). Where several resources declare the kind,
    /// Kubernetes' own wins, then the platform's (OLM's, whose CRDs the
    /// cluster already serves: another CRD declaring their kind is never
    /// established), then the kinds table's, then the input's CRDs.
    pub(crate) fn of_kind(&self, group: &str, kind: &str) -> Option<ApiResource> {
        let tier = |(g, p): &(String, String), k: &Known| match () {
            _ if k.kubernetes => 0,
            _ if crate::reserved::owner_of(g, p).is_some() && k.builtin => 1,
            _ if k.builtin => 2,
            _ => 3,
        };
        let plurals = self.table.by_kind.get(&(group.to_string(), Arc::from(kind)))?;
        let ((g, p), k) = plurals
            .iter()
            .filter_map(|p| self.table.scope.get_key_value(&(group.to_string(), p.clone())))
            .min_by_key(|(key, k)| tier(key, k))?;
        Some(ApiResource { group: g.clone(), plural: p.clone(), cluster: k.cluster })
    }

    /// Whether objects of `kind` in `group` have no namespace (the API server
    /// drops one written on them): as the table has it; a kind the table does
    /// not know in a group whose kinds are all cluster-scoped (admission
    /// policies, OLM v1's APIs) counts as one; any other unknown kind does not.
    pub(crate) fn kind_is_cluster_scoped(&self, group: &str, kind: &str) -> bool {
        self.of_kind(group, kind).map_or_else(|| unknown_is_cluster_scoped(group), |r| r.cluster)
    }

    /// Whether a request for `plural` of `group` is made cluster-wide: as the
    /// table has the resource, or, for one it does not know, by
    /// [`unknown_is_cluster_scoped`]. A request for one Namespace object
    /// (`name` the namespace asked in) is made in that namespace, so
    /// RoleBindings there apply to it, as on a cluster.
    pub(crate) fn request_is_cluster_scoped(
        &self,
        group: &str,
        plural: &str,
        name: Option<&str>,
        namespace: Option<&str>,
    ) -> bool {
        let own_namespace = group.is_empty() && plural == "namespaces" && name.is_some() && name == namespace;
        !own_namespace && self.cluster_scoped(group, plural).unwrap_or_else(|| unknown_is_cluster_scoped(group))
    }

    /// A CRD's resource: its scope, and the kind, singular and short names it
    /// declares. One of Kubernetes' own resources keeps its scope and names: the
    /// API server serves it, whatever a CRD of the same group and plural says.
    pub(crate) fn add_named(&mut self, group: &str, plural: &str, cluster_scoped: bool, names: &CrdNames<'_>) {
        // The platform serves its own resources (Kubernetes', OLM's): a CRD in the
        // input cannot change what the cluster's API server says of them.
        let key = (group.to_string(), plural.to_string());
        let platforms = |known: &Known| known.kubernetes || crate::reserved::owner_of(group, plural).is_some();
        if self.table.scope.get(&key).is_some_and(platforms) {
            return;
        }
        let Table { scope, by_kind } = Arc::make_mut(&mut self.table);
        let known = scope.entry(key).or_default();
        known.cluster = cluster_scoped;
        let lower = |n: Option<&str>| n.filter(|n| !n.is_empty()).map(|n| Arc::from(n.to_lowercase()));
        if let Some(kind) = names.kind.filter(|k| !k.is_empty()) {
            let kind: Arc<str> = kind.into();
            if let Some(old) = known.kind_written.replace(kind.clone()) {
                let old = (group.to_string(), old);
                if let Some(plurals) = by_kind.get_mut(&old) {
                    plurals.remove(plural);
                    if plurals.is_empty() {
                        by_kind.remove(&old);
                    }
                }
            }
            by_kind.entry((group.to_string(), kind)).or_default().insert(plural.to_string());
        }
        known.kind = lower(names.kind).or(known.kind.take());
        known.singular = lower(names.singular).or_else(|| known.kind.clone());
        known.short = names.short.iter().map(|n| n.to_lowercase()).collect();
    }

    /// Whether the resource (group, plural) is cluster-scoped; `None` when neither the built-in kinds nor the input's
    /// CRDs define it: a request reads it by [`unknown_is_cluster_scoped`]
    /// ([`Resources::request_is_cluster_scoped`]), a webhook's rule at its widest.
    pub fn cluster_scoped(&self, group: &str, plural: &str) -> Option<bool> {
        self.table.scope.get(&(group.to_string(), plural.to_string())).map(|k| k.cluster)
    }

    /// The cluster-scoped resources, as `(group, plural)`.
    pub(crate) fn cluster_scoped_resources(&self) -> impl Iterator<Item = (&str, &str)> {
        self.table.scope.iter().filter(|(_, k)| k.cluster).map(|((g, p), _)| (g.as_str(), p.as_str()))
    }

    /// Resolves a resource as kubectl does, case aside: its plural, singular,
    /// kind or a short name, alone or with `.group` or `.version.group`, each
    /// with `/subresource`. A name alone must name one resource: Kubernetes'
    /// core group wins, then Kubernetes' other groups, as kubectl prefers
    /// them; any other tie is ambiguous. A resource neither the input nor the
    /// built-in kinds define is asked about as named, as kubectl asks the API
    /// server when discovery does not know it, with a warning.
    pub(crate) fn resolve(&self, text: &str) -> Result<Resolved, String> {
        let lower = text.to_lowercase();
        let (head, subresource) = match lower.split_once('/') {
            Some((h, s)) => (h, Some(s.to_string())),
            None => (lower.as_str(), None),
        };
        let resolved = |group: &str, plural: &str, unknown: Option<String>| Resolved {
            group: group.to_string(),
            plural: plural.to_string(),
            subresource: subresource.clone(),
            unknown,
        };
        if head == "*" {
            return Ok(resolved("*", "*", None));
        }
        if let Some((name, group)) = head.split_once('.') {
            // kubectl also takes `plural.version.group` (deployments.v1.apps), and
            // `plural.version.` for the core group.
            let group = match group.split_once('.') {
                Some((version, rest)) if is_version(version) => rest,
                _ => group,
            };
            return Ok(match self.named(name, Some(group))[..] {
                [(_, plural)] => resolved(group, plural, None),
                _ => {
                    let mut unknown = format!("the server doesn't have a resource type {name:?} in group {group:?} (neither the input nor the built-in kinds define it); answering for it as named");
                    if is_version(group) {
                        unknown.push_str(&format!(
                            "; if you meant the core group, name it {name} or {name}.{group}. (with the trailing dot)"
                        ));
                    }
                    resolved(group, name, Some(unknown))
                }
            });
        }
        let matches = self.named(head, None);
        // As kubectl does, Kubernetes' own resources win over a CRD's, the core group first.
        let tier = |(g, p): &(&str, &str)| match g.is_empty() {
            true => 0,
            false if self.table.scope.get(&(g.to_string(), p.to_string())).is_some_and(|k| k.kubernetes) => 1,
            false => 2,
        };
        let best = matches.iter().map(tier).min();
        let first: Vec<&(&str, &str)> = matches.iter().filter(|m| Some(tier(m)) == best).collect();
        match first[..] {
            [(group, plural)] => Ok(resolved(group, plural, None)),
            [] => Ok(resolved(
                "",
                head,
                Some(format!("the server doesn't have a resource type {head:?} (neither the input nor the built-in kinds define it); answering for it as named, in the core group; name another group as <plural>.<group>")),
            )),
            _ => Err(format!(
                "the resource {head:?} is ambiguous: it may be {}; name one of them",
                first.iter().map(|(g, p)| super::allowed::resource_text(g, p)).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// Whether an API group serves any resource the table knows.
    pub(crate) fn knows_group(&self, group: &str) -> bool {
        self.table.scope.keys().any(|(g, _)| g == group)
    }

    /// Every API group the table knows, each once.
    pub(crate) fn groups(&self) -> std::collections::BTreeSet<&str> {
        self.table.scope.keys().map(|(g, _)| g.as_str()).collect()
    }

    /// Every resource of one of `groups` (any, for `*`), each once.
    pub(crate) fn plurals_in(&self, groups: &[&str]) -> std::collections::BTreeSet<&str> {
        let wanted = |g: &str| groups.iter().any(|want| *want == "*" || *want == g);
        self.table.scope.keys().filter(|(g, _)| wanted(g)).map(|(_, p)| p.as_str()).collect()
    }

    /// Whether `plural` is a resource of one of `groups` (any, for `*`).
    pub(crate) fn knows_resource(&self, groups: &[&str], plural: &str) -> bool {
        self.table.scope.keys().any(|(g, p)| p == plural && groups.iter().any(|want| *want == "*" || want == g))
    }

    /// The plural a policy's resource name was most likely meant as: the one
    /// it names as kubectl would (case aside; by singular, kind or short
    /// name) in one of `groups`, if one does.
    pub(crate) fn meant(&self, groups: &[&str], name: &str) -> Option<&str> {
        let lower = name.to_lowercase();
        let any = groups.contains(&"*");
        self.named(&lower, None).into_iter().find(|(g, _)| any || groups.contains(g)).map(|(_, plural)| plural)
    }

    /// The resources (in `group`, if given) that `name` names: by plural,
    /// singular, kind or short name.
    fn named(&self, name: &str, group: Option<&str>) -> Vec<(&str, &str)> {
        self.table
            .scope
            .iter()
            .filter(|((g, _), _)| group.is_none_or(|group| g == group))
            .filter(|((_, plural), k)| {
                plural == name
                    || k.singular.as_deref() == Some(name)
                    || k.kind.as_deref().is_some_and(|kind| kind.eq_ignore_ascii_case(name))
                    || k.short.iter().any(|s| s == name)
            })
            .map(|((g, p), _)| (g.as_str(), p.as_str()))
            .collect()
    }
}

/// `v1`, `v1beta2`, `v2alpha1`: an API version segment.
fn is_version(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else { return false };
    let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let tail = &rest[digits..];
    digits > 0
        && (tail.is_empty()
            || ["alpha", "beta"]
                .iter()
                .any(|p| tail.strip_prefix(p).is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))))
}

/// The one rule for a resource or kind the table does not know: in a group
/// whose resources are all cluster-scoped (admission policies, OLM v1's
/// APIs) it is cluster-scoped; in any other, namespaced.
pub(crate) fn unknown_is_cluster_scoped(group: &str) -> bool {
    matches!(group, "admissionregistration.k8s.io" | "olm.operatorframework.io")
}
