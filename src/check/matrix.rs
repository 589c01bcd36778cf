//! The access report: per extension, which subjects hold each API's admin,
//! edit and view access, and where; and which APIs only cluster-admins can use.

use std::collections::BTreeMap;

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};
use serde::Serialize;

use crate::access::allowed::Place;
use crate::access::danger::dangers;
use crate::access::{
    as_named, describe_rule, AggregatingRole, Asked, BindingDef, Grantee, HeldAccess, Identity, Policy, Request,
    RoleRefKind, SubjectKind, Via, MASTERS,
};
use crate::model::{EDIT, EXTENSION_LABEL, MANAGED_BY, MANAGER, READ, ROLE_LABEL, VERBS};

mod write;
pub(super) use write::extension_title;
pub(crate) use write::{markdown, table};

/// The verbs that make up each level of access to an API, named after the
/// built-in role that grants it.
fn level_verbs(level: AggregatingRole) -> &'static [&'static str] {
    match level {
        AggregatingRole::Admin => &VERBS,
        AggregatingRole::Edit => &EDIT,
        AggregatingRole::View => &READ,
    }
}

/// What `report` prints: who holds each level of access to each operator
/// API, per extension, and what olm-rbac's ServiceAccounts may do.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct AccessMatrix {
    pub extensions: Vec<ExtensionAccess>,
    /// APIs nobody but cluster-admins can use.
    #[serde(rename = "clusterAdminsOnly")]
    pub cluster_admins_only: Vec<String>,
    /// The ServiceAccounts olm-rbac bound for an operator or installer: what
    /// each may do, where, and which of it is dangerous.
    #[serde(rename = "serviceAccounts", skip_serializing_if = "Vec::is_empty")]
    pub accounts: Vec<AccountAccess>,
}

/// One ServiceAccount olm-rbac bound, and every rule it holds.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct AccountAccess {
    /// `<namespace>/<name>`.
    pub account: String,
    /// `operator` or `installer`, and the extension.
    pub role: String,
    pub extension: String,
    pub rules: Vec<AccountRule>,
    /// For an account with a dangerous rule: who may act as it (run a pod as
    /// it, exec or attach into its pods, request its tokens), each as a path
    /// to what it may do: `Group team-a → create pods in ops →
    /// ServiceAccount ops/x → read secrets cluster-wide`.
    #[serde(rename = "actedAsBy", skip_serializing_if = "Vec::is_empty")]
    pub acted_as_by: Vec<String>,
    /// The same rules with the binding and role each comes through, for the
    /// graphs (`report -o dot`, the Mermaid graph of `-o markdown`).
    #[serde(skip)]
    pub routes: Vec<AccountRoute>,
}

/// A rule a ServiceAccount holds, and the binding and role it comes through.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AccountRoute {
    pub route: Route,
    pub rule: PolicyRule,
}

/// How a holder reaches an API or a rule: the binding (`None` for whoever is
/// bound to a built-in aggregating role, wherever that is) and the role it
/// binds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Route {
    /// A RoleBinding's namespace (`None` for a ClusterRoleBinding) and name.
    pub binding: Option<(Option<String>, String)>,
    pub role_kind: RoleRefKind,
    pub role: String,
}

impl Route {
    fn through(b: &BindingDef) -> Option<Route> {
        let role_kind = b.role_ref_kind()?;
        Some(Route { binding: Some((b.namespace.clone(), b.name.clone())), role_kind, role: b.role_name.clone() })
    }

    /// The route of a `who-can` answer: its binding and the role that binding binds.
    fn of(policy: &Policy, access: &HeldAccess) -> Option<Route> {
        match &access.chain.via {
            Via::AnyBindingTo(role) => {
                Some(Route { binding: None, role_kind: RoleRefKind::ClusterRole, role: role.name().to_string() })
            }
            Via::Binding { namespace, name, .. } => {
                policy.bindings.iter().find(|b| &b.namespace == namespace && &b.name == name).and_then(Route::through)
            }
            Via::PrivilegedGroup => None,
        }
    }
}

/// A rule a ServiceAccount holds, where, and what of it is dangerous.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct AccountRule {
    /// `*` for cluster-wide, else the namespace.
    #[serde(rename = "where")]
    pub scope: String,
    pub rule: String,
    /// The dangerous permissions it includes (docs/dangerous-permissions.md).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dangerous: Vec<String>,
}

/// The APIs one extension's generated RBAC serves, each with its holders.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct ExtensionAccess {
    /// The extension whose generated RBAC serves these APIs; `None` for APIs
    /// without generated RBAC.
    pub extension: Option<String>,
    pub apis: Vec<ApiAccess>,
}

/// One API: who holds each level of access to it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct ApiAccess {
    pub api: String,
    pub admin: Vec<LevelHolder>,
    pub edit: Vec<LevelHolder>,
    pub view: Vec<LevelHolder>,
    /// Each holder's ways to the API, with the access each gives, for the graphs.
    #[serde(skip)]
    pub routes: Vec<ApiRoute>,
}

/// One holder's way to an API, and the access it gives: the levels it holds
/// whole (`admin`; `edit`, `view`) and any other verbs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApiRoute {
    pub holder: String,
    pub route: Route,
    pub access: String,
}

impl ApiAccess {
    /// Who holds the level of access to the API.
    fn holders(&self, level: AggregatingRole) -> &[LevelHolder] {
        match level {
            AggregatingRole::Admin => &self.admin,
            AggregatingRole::Edit => &self.edit,
            AggregatingRole::View => &self.view,
        }
    }
}

/// Who holds one level of access to an API (as `who-can` writes a grantee),
/// and where: `["*"]` for cluster-wide, otherwise namespaces.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct LevelHolder {
    pub holder: String,
    #[serde(rename = "where")]
    pub scope: Vec<String>,
}

/// Builds the report from the policy's APIs. Cluster-admins (`system:masters`)
/// can do everything and are left out of the cells.
pub(crate) fn build(policy: &Policy) -> AccessMatrix {
    let mut by_ext: BTreeMap<Option<String>, Vec<ApiAccess>> = BTreeMap::new();
    let mut admins_only = Vec::new();
    for (api, ext) in &policy.apis {
        let Some((plural, group)) = api.split_once('.') else { continue };
        // Who holds each verb, asked once; levels, routes and "admins only" follow from it.
        let held: BTreeMap<&str, Vec<Held>> = level_verbs(AggregatingRole::Admin)
            .iter()
            .map(|v| (*v, holders_of_verb(policy, group, plural, v)))
            .collect();
        let per_verb: BTreeMap<&str, Scopes> = held.iter().map(|(v, h)| (*v, scopes_of(h))).collect();
        let [admin, edit, view] =
            AggregatingRole::ALL.map(|level| holders_of_every_verb(level_verbs(level), &per_verb));
        // Only cluster-admins: nobody else holds even one verb.
        if per_verb.values().all(BTreeMap::is_empty) {
            admins_only.push(api.clone());
        }
        let row = ApiAccess { api: api.clone(), admin, edit, view, routes: api_routes(&held) };
        by_ext.entry(ext.clone()).or_default().push(row);
    }
    AccessMatrix {
        extensions: by_ext.into_iter().map(|(extension, apis)| ExtensionAccess { extension, apis }).collect(),
        cluster_admins_only: admins_only,
        accounts: account_access(policy),
    }
}

/// Every ServiceAccount a binding olm-rbac wrote for an operator or an
/// installer names, with all it may do: through those bindings and any other.
fn account_access(policy: &Policy) -> Vec<AccountAccess> {
    let mut found: BTreeMap<(String, String), (String, String)> = BTreeMap::new();
    for b in &policy.bindings {
        let label = |k: &str| b.labels.get(k).map(String::as_str);
        let role = label(ROLE_LABEL).filter(|r| matches!(*r, "operator" | "installer"));
        let (Some(role), Some(MANAGER), Some(ext)) = (role, label(MANAGED_BY), label(EXTENSION_LABEL)) else {
            continue;
        };
        // The account as the kernel names it: a subject's empty namespace is
        // its RoleBinding's, and one with none in a ClusterRoleBinding matches nobody.
        let accounts = b.subjects.iter().filter_map(|s| as_named(s, b.namespace.as_deref()));
        for s in accounts.filter(|s| SubjectKind::of(s) == Some(SubjectKind::ServiceAccount)) {
            let Some(ns) = s.namespace.clone() else { continue };
            found.entry((ns, s.name.clone())).or_insert((role.to_string(), ext.to_string()));
        }
    }
    found
        .into_iter()
        .map(|((ns, name), (role, extension))| {
            let who = Identity::service_account(&ns, &name);
            let mut rules = Vec::new();
            let mut routes = Vec::new();
            // Every binding that names the account, wherever it applies.
            let _ = policy.visit_rules_for(&who, Place::Each, &mut |held| {
                let (b, rule) = (held.binding, held.rule);
                let scope = b.namespace.clone().unwrap_or_else(|| "*".into());
                let found = dangers(rule, b.namespace.is_none());
                let dangerous = found.iter().map(|d| d.what.to_string()).collect();
                let row = AccountRule { scope, rule: describe_rule(rule), dangerous };
                if !rules.contains(&row) {
                    rules.push(row);
                }
                // Kubernetes' bootstrap bindings, which every user or service account
                // holds, stay in the table but out of the pictures.
                if let Some(route) = Route::through(b).filter(|_| !b.builtin) {
                    let way = AccountRoute { route, rule: rule.clone() };
                    if !routes.contains(&way) {
                        routes.push(way);
                    }
                }
                std::ops::ControlFlow::Continue(())
            });
            rules.sort_by(|a, b| (a.scope != "*", &a.scope).cmp(&(b.scope != "*", &b.scope)));
            let acted_as_by = acted_as_by(policy, &ns, &name, &rules);
            AccountAccess { account: format!("{ns}/{name}"), role, extension, rules, acted_as_by, routes }
        })
        .collect()
}

/// Who may act as the account, each as a path to the dangerous permissions
/// it holds (none when it holds none).
fn acted_as_by(policy: &Policy, namespace: &str, account: &str, rules: &[AccountRule]) -> Vec<String> {
    let mut dangers: Vec<String> = Vec::new();
    for rule in rules {
        for what in &rule.dangerous {
            let said = crate::access::danger::said_where(what, Some(rule.scope.as_str()).filter(|s| *s != "*"));
            if !dangers.contains(&said) {
                dangers.push(said);
            }
        }
    }
    if dangers.is_empty() {
        return Vec::new();
    }
    let what = dangers.join(", ");
    policy
        .who_can_become(namespace, account)
        .iter()
        .map(|b| format!("{} → {what}", b.path_to(namespace, account)))
        .collect()
}

/// One answer to who may use a verb: the holder (as `who-can` writes a
/// grantee), where (`*` for cluster-wide), and through what.
struct Held {
    holder: String,
    scope: String,
    route: Option<Route>,
}

/// Who may use one verb on the API, where, and through what: an answer per
/// binding, so that the graphs draw every way; cluster-admins left out.
fn holders_of_verb(policy: &Policy, group: &str, plural: &str, verb: &str) -> Vec<Held> {
    let req = Request {
        verb: verb.to_string(),
        group: group.to_string(),
        resource: plural.to_string(),
        subresource: None,
        name: None,
        namespace: None,
    };
    let mut held = Vec::new();
    for access in policy.who_can_through_each(Asked::Resource(&req), Place::Each) {
        let masters = |s: &Subject| SubjectKind::of(s) == Some(SubjectKind::Group) && s.name == MASTERS;
        if matches!(&access.grantee, Grantee::Subject(s) if masters(s)) {
            continue;
        }
        // Kubernetes' own bindings reach control-plane components (the
        // controller manager lists and watches everything), not users.
        if access.chain.via.kubernetes_own() {
            continue;
        }
        let scope = match (&access.grantee, &access.namespace) {
            (Grantee::AnyoneBoundTo { cluster_binding_only: false, .. }, _) => "where bound".to_string(),
            (Grantee::AnyoneBoundTo { cluster_binding_only: true, .. }, _) | (_, None) => "*".to_string(),
            (_, Some(ns)) => ns.clone(),
        };
        held.push(Held { holder: access.grantee.to_string(), scope, route: Route::of(policy, &access) });
    }
    held
}

/// Grantee → where they hold it (`*` for cluster-wide).
type Scopes = BTreeMap<String, Vec<String>>;

fn scopes_of(held: &[Held]) -> Scopes {
    let mut scopes = Scopes::new();
    for h in held {
        let scope = scopes.entry(h.holder.clone()).or_default();
        if !scope.contains(&h.scope) {
            scope.push(h.scope.clone());
        }
    }
    scopes
}

/// Each holder's ways to the API, each with the verbs it gives, written as
/// the levels it gives whole and the other verbs.
fn api_routes(held: &BTreeMap<&str, Vec<Held>>) -> Vec<ApiRoute> {
    let mut found: Vec<(String, Route, Vec<&str>)> = Vec::new();
    for (verb, answers) in held {
        for h in answers {
            let Some(route) = &h.route else { continue };
            match found.iter_mut().find(|(holder, r, _)| holder == &h.holder && r == route) {
                Some((_, _, verbs)) if verbs.contains(verb) => {}
                Some((_, _, verbs)) => verbs.push(verb),
                None => found.push((h.holder.clone(), route.clone(), vec![verb])),
            }
        }
    }
    found.into_iter().map(|(holder, route, verbs)| ApiRoute { holder, route, access: access_text(&verbs) }).collect()
}

/// `admin`; else the levels held whole (`edit, view`) and the other verbs, as given.
pub(super) fn access_text<S: AsRef<str>>(verbs: &[S]) -> String {
    let holds = |v: &str| verbs.iter().any(|w| w.as_ref() == v);
    let whole = |level: AggregatingRole| level_verbs(level).iter().all(|v| holds(v));
    if whole(AggregatingRole::Admin) {
        return AggregatingRole::Admin.name().to_string();
    }
    let levels: Vec<AggregatingRole> =
        [AggregatingRole::Edit, AggregatingRole::View].into_iter().filter(|l| whole(*l)).collect();
    let mut parts: Vec<&str> = levels.iter().map(|l| l.name()).collect();
    let in_level = |v: &str| levels.iter().any(|l| level_verbs(*l).contains(&v));
    parts.extend(verbs.iter().map(AsRef::as_ref).filter(|v| !in_level(v)));
    parts.join(", ")
}

/// Holders that may use every verb of a level, each with where.
fn holders_of_every_verb(verbs: &[&str], per_verb: &BTreeMap<&str, Scopes>) -> Vec<LevelHolder> {
    let mut common: Option<Scopes> = None;
    for verb in verbs {
        let these = per_verb.get(verb).cloned().unwrap_or_default();
        common = Some(match common {
            None => these,
            Some(prev) => prev
                .into_iter()
                .filter_map(|(h, scopes)| {
                    let other = these.get(&h)?;
                    // Cluster-wide on one side and namespaced on the other: the narrower wins.
                    let kept: Vec<String> = if other.contains(&"*".to_string()) {
                        scopes
                    } else if scopes.contains(&"*".to_string()) {
                        other.clone()
                    } else {
                        scopes.into_iter().filter(|s| other.contains(s)).collect()
                    };
                    (!kept.is_empty()).then_some((h, kept))
                })
                .collect(),
        });
    }
    common
        .unwrap_or_default()
        .into_iter()
        .map(|(holder, mut scope)| {
            // Cluster-wide covers every namespace.
            if scope.iter().any(|s| s == "*") {
                scope = vec!["*".to_string()];
            }
            scope.sort();
            scope.dedup();
            LevelHolder { holder, scope }
        })
        .collect()
}
