//! The installer account (`spec.installer`): the ServiceAccount OLM installs
//! the bundle as, and exactly what it needs to hold to do so.
//!
//! What it needs is derived from the bundle: for each object OLM writes,
//! `create`, `list` and `watch` (which Kubernetes cannot restrict by name)
//! and `get`, `update`, `patch`, `delete` on the names the bundle gives; and,
//! since Kubernetes lets nobody grant what they do not hold, every rule the
//! operator is granted, where it is granted. `Generate` writes the account
//! and its roles; `Check` measures an account already in the input.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::access::allowed::Place;
use crate::access::cover::Owners;
use crate::access::danger::{dangers, Severity};
use crate::access::{describe_rule, from_objects, Identity};
use crate::config::{Config, Installer, InstallerMode, Olm, OperatorPermissions};
use crate::kinds::{resource as resource_table, resource_of, ApiResource};
use crate::model::*;
use crate::names::bounded_name;
use crate::report::Finding;

use super::accounts::Account;
use super::operator::{promoted, read_namespaces, watched_namespaces, Grant};
use super::origin::{bundle_members, source_folder, Origins};
use super::{Made, Object};

/// The `olm-rbac.io/role` value of the installer's objects.
pub(crate) const INSTALLER_ROLE: &str = "installer";

/// One permission the installer needs: where (`None`: cluster-wide), and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Need {
    pub namespace: Option<String>,
    pub rule: PolicyRule,
    pub why: String,
    /// Held only because the installer grants it to others (the operator,
    /// the bundle's roles), which Kubernetes allows only to who holds it.
    pub to_grant: bool,
}

/// Plans `spec.installer` for `config`: the account's objects (`Generate`),
/// or the permissions an existing account lacks, as errors (`Check`).
pub(super) fn plan_installer(
    config: &Config,
    csv: Option<usize>,
    grants: &[Grant],
    objects: &[InputObject],
    origins: &Origins,
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) -> Vec<Made> {
    let Some(installer) = &config.installer else { return Vec::new() };
    let Some((csv, view)) = csv.and_then(|i| match &objects[i].body {
        Body::Csv(v) => Some((i, v)),
        _ => None,
    }) else {
        results.push(
            Finding::error(
                "spec.installer needs the bundle's ClusterServiceVersion in the input: it says what OLM installs",
            )
            .on(&config.object_ref())
            .at("spec.installer"),
        );
        return Vec::new();
    };
    let needs = needs(config, installer, csv, view, grants, objects, origins, claims, results);
    if source_folder(&objects[csv]).is_none() {
        results.push(
            Finding::warning(
                "spec.installer: the input does not say which file the ClusterServiceVersion came from, so only it and the CRDs count as the bundle's objects; the account holds nothing for the bundle's other manifests (pass the bundle as files, or through kpt)",
            )
            .on(&config.object_ref())
            .at("spec.installer"),
        );
    }
    warn_dangerous(installer, &needs, results);
    match installer.mode {
        InstallerMode::Check => {
            check_account(config, installer, &needs, objects, origins, claims, results);
            Vec::new()
        }
        InstallerMode::Generate => {
            let rules = minimised(&needs);
            results.push(
                Finding::info(format!(
                    "extension {:?}: {} ({}): generated {} rule(s) cluster-wide and {} in namespace(s) {}",
                    config.extension,
                    installer.account(),
                    installer.olm.as_str(),
                    rules.get(&None).map_or(0, Vec::len),
                    rules.iter().filter(|(ns, _)| ns.is_some()).map(|(_, r)| r.len()).sum::<usize>(),
                    namespaces(&needs).join(", "),
                ))
                .on(&config.object_ref()),
            );
            Writer { config, installer }.objects(rules)
        }
    }
}

/// The installer's own rights (writing the bundle's objects, OLM's own
/// writes) that the catalogue rates high or critical, each named once with
/// what it is for. What it holds only to grant the operator is the
/// operator's, reported with the install policy.
fn warn_dangerous(installer: &Installer, needs: &[Need], results: &mut Vec<Finding>) {
    let mut seen = BTreeSet::new();
    for n in needs.iter().filter(|n| !n.to_grant) {
        for d in dangers(&n.rule, n.namespace.is_none()).into_iter().filter(|d| d.severity >= Severity::High) {
            if !seen.insert((d.what, n.why.clone(), n.namespace.clone())) {
                continue;
            }
            results.push(
                Finding::warning(format!(
                    "{} must hold {} {} to {}: {} ({})",
                    installer.account(),
                    describe_rule(&n.rule),
                    n.namespace.as_ref().map_or("cluster-wide".to_string(), |ns| format!("in namespace {ns}")),
                    n.why,
                    d.what,
                    d.severity
                ))
                .on(&installer_ref(installer)),
            );
        }
    }
}

/// Everything the installer needs, in a stable order: OLM's own objects, the
/// bundle's objects, the operator's ServiceAccounts, Deployments and RBAC
/// objects, then the rules it grants.
#[allow(clippy::too_many_arguments)]
fn needs(
    config: &Config,
    installer: &Installer,
    csv: usize,
    view: &CsvView,
    grants: &[Grant],
    objects: &[InputObject],
    origins: &Origins,
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) -> Vec<Need> {
    let ns = installer.namespace.as_str();
    let mut needs = olm_needs(config, installer);
    if installer.olm == Olm::V0 {
        needs.extend(olm_v0_objects(&objects[csv], ns));
    }
    // The bundle's objects, by kind and name.
    let members = bundle_members(objects, origins, claims);
    let mut named: BTreeMap<ApiResource, BTreeSet<String>> = BTreeMap::new();
    for &i in &members {
        let o = &objects[i];
        // OLM v0 creates CRDs with its own rights; the CSV is OLM's to write.
        if i == csv || (installer.olm == Olm::V0 && matches!(o.body, Body::Crd(_))) {
            continue;
        }
        match resource(o, objects) {
            Some(r) => {
                named.entry(r).or_default().insert(o.header.name.clone().unwrap_or_default());
            }
            None => results.push(
                Finding::error(format!(
                    "spec.installer: olm-rbac does not know which API resource kind {} of {} is, so it cannot say what installing it takes",
                    o.header.kind.as_deref().unwrap_or_default(),
                    o.header.api_version.as_deref().unwrap_or_default()
                ))
                .on(&o.object_ref())
                .in_file(o.file.as_ref()),
            ),
        }
    }
    // What the CSV makes OLM write: Deployments and ServiceAccounts by name.
    let spec = &view.spec.install.spec;
    let deployments = spec.deployments.iter().filter_map(|d| d.name.clone());
    named.entry(core_resource("apps", "deployments")).or_default().extend(deployments);
    let accounts = grants.iter().map(|g| g.account.clone()).filter(|a| a != "default");
    named.entry(core_resource("", "serviceaccounts")).or_default().extend(accounts);
    named.retain(|_, names| !names.is_empty());
    for (r, names) in &named {
        let place = (!r.cluster).then(|| ns.to_string());
        needs.extend(manage(r, Some(names), place, "install and upgrade the bundle's objects"));
    }
    needs.extend(operator_needs(config, installer, view, grants, objects, origins, results));
    needs.extend(bundle_role_needs(&members, objects, ns, results));
    needs
}

/// What OLM itself writes as the installer, beyond the bundle.
fn olm_needs(config: &Config, installer: &Installer) -> Vec<Need> {
    match installer.olm {
        // OLM v1 makes the ClusterExtension (and, with its Boxcutter applier,
        // the ClusterObjectSet revisions it names per install) the owner of
        // every object, with blockOwnerDeletion, which needs update on the
        // owner's finalizers.
        Olm::V1 => vec![
            Need {
                namespace: None,
                rule: rule(
                    &["olm.operatorframework.io"],
                    &["clusterextensions/finalizers"],
                    &["update"],
                    &[&config.extension],
                ),
                why: "set blockOwnerDeletion on the objects the ClusterExtension owns".into(),
                to_grant: false,
            },
            Need {
                namespace: None,
                rule: rule(&["olm.operatorframework.io"], &["clusterobjectsets/finalizers"], &["update"], &[]),
                why:
                    "set blockOwnerDeletion on the objects a ClusterObjectSet revision owns (revision names are OLM's)"
                        .into(),
                to_grant: false,
            },
        ],
        // OLM v0 writes the CSV (and updates the Subscription) through the
        // OperatorGroup's account; it creates CRDs with its own rights.
        Olm::V0 => Vec::new(),
    }
}

/// What OLM v0 writes through the account besides the bundle's objects: the
/// CSV by name, and the admin's Subscription (by any name: olm-rbac does not
/// know it).
fn olm_v0_objects(csv: &InputObject, namespace: &str) -> Vec<Need> {
    let why = "write the ClusterServiceVersion and update the Subscription, as OLM v0 does through this account";
    let csvs = core_resource("operators.coreos.com", "clusterserviceversions");
    let names: BTreeSet<String> = csv.header.name.iter().cloned().collect();
    let mut needs = manage(&csvs, Some(&names), Some(namespace.to_string()), why);
    needs.push(Need {
        namespace: Some(namespace.to_string()),
        rule: rule(&["operators.coreos.com"], &["subscriptions"], &["get", "update", "patch"], &[]),
        why: why.into(),
        to_grant: false,
    });
    needs
}

/// The operator's RBAC objects and the rules they grant: where OLM writes
/// them, as `spec.operator` scopes them, or as OLM promotes them.
fn operator_needs(
    config: &Config,
    installer: &Installer,
    view: &CsvView,
    grants: &[Grant],
    objects: &[InputObject],
    origins: &Origins,
    results: &mut Vec<Finding>,
) -> Vec<Need> {
    let ns = installer.namespace.as_str();
    let promoted = promoted(config, view);
    let mut places: BTreeSet<String> = BTreeSet::from([ns.to_string()]);
    if config.operator.permissions == OperatorPermissions::Namespaces {
        places.extend(watched_namespaces(config, ns, objects, origins, results));
    }
    let mut needs = Vec::new();
    // OLM names these objects with a hash of their content, so no resourceNames.
    let why = "write the operator's RBAC (OLM names it with a hash, so by any name)";
    let rbac = |plural: &str| core_resource("rbac.authorization.k8s.io", plural);
    if grants.iter().any(|g| g.cluster) || (promoted && grants.iter().any(|g| !g.cluster)) {
        needs.extend(manage(&rbac("clusterroles"), None, None, why));
        needs.extend(manage(&rbac("clusterrolebindings"), None, None, why));
    }
    if !promoted && grants.iter().any(|g| !g.cluster) {
        for place in &places {
            needs.extend(manage(&rbac("roles"), None, Some(place.clone()), why));
            needs.extend(manage(&rbac("rolebindings"), None, Some(place.clone()), why));
        }
    }
    for g in grants {
        let why = format!("grant the operator {}", g.field);
        if g.cluster || promoted {
            needs.push(Need { namespace: None, rule: g.rule.clone(), why, to_grant: true });
        } else {
            needs.extend(places.iter().map(|p| Need {
                namespace: Some(p.clone()),
                rule: g.rule.clone(),
                why: why.clone(),
                to_grant: true,
            }));
        }
    }
    if promoted && grants.iter().any(|g| !g.cluster) {
        needs.push(Need {
            namespace: None,
            rule: read_namespaces(),
            why: "grant the operator read access to namespaces, which OLM adds when it promotes permissions".into(),
            to_grant: true,
        });
    }
    needs
}

/// The rules of the roles the bundle ships: the installer must hold them to
/// write them. A binding to a role the bundle does not ship cannot be held to
/// anything known.
fn bundle_role_needs(
    members: &BTreeSet<usize>,
    objects: &[InputObject],
    ns: &str,
    results: &mut Vec<Finding>,
) -> Vec<Need> {
    let mut needs = Vec::new();
    for &i in members {
        let o = &objects[i];
        let cluster = o.header.kind.as_deref() == Some("ClusterRole");
        match &o.body {
            Body::Role(v) if v.aggregates() => results.push(
                Finding::error(
                    "spec.installer: the bundle ships this ClusterRole with an aggregationRule; what writing it takes depends on the cluster's roles, which olm-rbac cannot know",
                )
                .on(&o.object_ref())
                .in_file(o.file.as_ref()),
            ),
            Body::Role(v) => {
                let why = format!("write the bundle's {}", o.object_ref());
                let place = (!cluster).then(|| ns.to_string());
                needs.extend(
                    v.rules.iter().map(|r| Need {
                        namespace: place.clone(),
                        rule: r.to_policy_rule(),
                        why: why.clone(),
                        to_grant: true,
                    }),
                );
            }
            Body::Binding(b) => {
                let shipped = members.iter().any(|&j| {
                    matches!(objects[j].body, Body::Role(_))
                        && objects[j].header.kind == b.role_ref.kind
                        && objects[j].header.name == b.role_ref.name
                });
                if !shipped {
                    results.push(
                        Finding::error(format!(
                            "spec.installer: the bundle binds {} {:?}, which it does not ship: the installer would have to hold whatever that grants",
                            b.role_ref.kind.as_deref().unwrap_or("role"),
                            b.role_ref.name.as_deref().unwrap_or_default()
                        ))
                        .on(&o.object_ref())
                        .at("roleRef")
                        .in_file(o.file.as_ref()),
                    );
                }
            }
            _ => {}
        }
    }
    needs
}

/// The API resource of a bundle object: a Kubernetes or well-known kind, or
/// a CRD of the input.
fn resource(o: &InputObject, objects: &[InputObject]) -> Option<ApiResource> {
    let group = o.header.group()?;
    let kind = o.header.kind.as_deref()?;
    resource_of(group, kind).or_else(|| {
        objects.iter().find_map(|c| match &c.body {
            Body::Crd(v) if v.spec.group.as_deref() == Some(group) && v.spec.names.kind.as_deref() == Some(kind) => {
                Some(ApiResource {
                    group: group.to_string(),
                    plural: v.spec.names.plural.clone()?,
                    cluster: v.spec.scope.as_deref() == Some("Cluster"),
                })
            }
            _ => None,
        })
    })
}

/// One of Kubernetes' own resources, which the resource table knows.
fn core_resource(group: &str, plural: &str) -> ApiResource {
    resource_table(group, plural).unwrap_or(ApiResource { group: group.into(), plural: plural.into(), cluster: false })
}

use crate::model::policy_rule as rule;

/// Writing objects of one resource: `create`, `list`, `watch` on any (no
/// name to restrict them by), and the rest on `names`, or on any when OLM
/// chooses the names.
fn manage(r: &ApiResource, names: Option<&BTreeSet<String>>, namespace: Option<String>, why: &str) -> Vec<Need> {
    let g = [r.group.as_str()];
    let p = [r.plural.as_str()];
    let need = |rule: PolicyRule| Need { namespace: namespace.clone(), rule, why: why.to_string(), to_grant: false };
    match names {
        Some(names) => {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            vec![
                need(rule(&g, &p, &["create", "list", "watch"], &[])),
                need(rule(&g, &p, &["get", "update", "patch", "delete"], &names)),
            ]
        }
        None => vec![need(rule(&g, &p, &["create", "list", "watch", "get", "update", "patch", "delete"], &[]))],
    }
}

/// The needs as the fewest rules that cover them, per place: rules with the
/// same groups, resources and names merged, then every rule that the others
/// (and, in a namespace, the cluster-wide ones) already cover dropped. Each
/// rule left is needed: removing it leaves some need uncovered.
///
/// The bundle writes the needs, so the cost stays near-linear in them: rules
/// are merged through a map, and each coverage check looks only at the rules
/// that share an API group or resource with the one checked ([`Owners`]).
pub(crate) fn minimised(needs: &[Need]) -> BTreeMap<Option<String>, Vec<PolicyRule>> {
    type Same<'a> =
        (&'a Option<Vec<String>>, &'a Option<Vec<String>>, &'a Option<Vec<String>>, &'a Option<Vec<String>>);
    let mut places: BTreeMap<Option<String>, Vec<(PolicyRule, HashSet<&str>)>> = BTreeMap::new();
    let mut at: HashMap<(&Option<String>, Same), usize> = HashMap::new();
    for n in needs {
        let r = &n.rule;
        let rules = places.entry(n.namespace.clone()).or_default();
        let key = (&n.namespace, (&r.api_groups, &r.resources, &r.resource_names, &r.non_resource_urls));
        let i = *at.entry(key).or_insert_with(|| {
            rules.push((PolicyRule { verbs: Vec::new(), ..r.clone() }, HashSet::new()));
            rules.len() - 1
        });
        let (merged, seen) = &mut rules[i];
        for v in &r.verbs {
            if seen.insert(v) {
                merged.verbs.push(v.clone());
            }
        }
    }
    let mut places: BTreeMap<Option<String>, Vec<PolicyRule>> =
        places.into_iter().map(|(ns, rules)| (ns, rules.into_iter().map(|(r, _)| r).collect())).collect();
    let cluster = drop_covered(places.remove(&None).unwrap_or_default(), &[]);
    let mut out: BTreeMap<Option<String>, Vec<PolicyRule>> = places
        .into_iter()
        .map(|(ns, rules)| (ns, drop_covered(rules, &cluster)))
        .filter(|(_, rules)| !rules.is_empty())
        .collect();
    if !cluster.is_empty() {
        out.insert(None, cluster);
    }
    out
}

/// `rules` without those covered by `also`, the rules kept before them and
/// the rules after them. A rule dropped is covered by what is kept: a later
/// rule it relied on is itself dropped only when the rest covers it.
fn drop_covered(rules: Vec<PolicyRule>, also: &[PolicyRule]) -> Vec<PolicyRule> {
    let mut owners = Owners::new(also.iter().chain(&rules));
    let mut dropped = vec![false; rules.len()];
    for (i, r) in rules.iter().enumerate() {
        // The others: `also`, the rules kept so far and every later rule.
        owners.switch(also.len() + i, false);
        dropped[i] = owners.covers(r);
        owners.switch(also.len() + i, !dropped[i]);
    }
    rules.into_iter().zip(dropped).filter(|(_, d)| !d).map(|(r, _)| r).collect()
}

fn namespaces(needs: &[Need]) -> Vec<String> {
    let set: BTreeSet<String> = needs.iter().filter_map(|n| n.namespace.clone()).collect();
    set.into_iter().collect()
}

/// `Check`: every need the account's bindings do not cover is an error
/// naming what is missing and why it is needed. Only what exists before the
/// install counts as held: the admin's own roles and bindings. The bundle's
/// are created by the installer itself, and objects of unknown origin may be
/// the bundle's; olm-rbac's earlier output comes from the admin's files or
/// is unknown like any other object; this extension's is replaced by this run.
fn check_account(
    config: &Config,
    installer: &Installer,
    needs: &[Need],
    objects: &[InputObject],
    origins: &Origins,
    claims: &[Option<String>],
    results: &mut Vec<Finding>,
) {
    // This extension's earlier output is removed by this run, so it holds nothing.
    let held = |i: usize| origins.is_admin(i) && claims[i].as_deref() != Some(config.extension.as_str());
    let policy = from_objects(objects.iter().enumerate().filter(|(i, _)| held(*i)).map(|(_, o)| o));
    let who = Identity::new(&format!("system:serviceaccount:{}:{}", installer.namespace, installer.name), &[]);
    let held: BTreeMap<&Option<String>, Vec<PolicyRule>> = needs
        .iter()
        .map(|n| &n.namespace)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(|ns| match ns {
            None => (ns, policy.held_rules(&who, Place::ClusterWide)),
            Some(name) => (ns, policy.held_rules(&who, Place::Namespace(name))),
        })
        .collect();
    let owners: BTreeMap<&Option<String>, Owners> = held.iter().map(|(ns, rules)| (*ns, Owners::new(rules))).collect();
    for n in needs {
        let Some(rules) = owners.get(&n.namespace) else { continue };
        let missing: Vec<String> = rules.uncovered_rules(&n.rule).iter().map(describe_rule).collect();
        if missing.is_empty() {
            continue;
        }
        results.push(
            Finding::error(format!(
                "{} cannot {}: it lacks {} {}",
                installer.account(),
                n.why,
                missing.join("; "),
                n.namespace.as_ref().map_or("cluster-wide".to_string(), |ns| format!("in namespace {ns}"))
            ))
            .on(&installer_ref(installer)),
        );
    }
}

fn installer_ref(installer: &Installer) -> ObjRef {
    ObjRef {
        api_version: "v1".into(),
        kind: "ServiceAccount".into(),
        name: installer.name.clone(),
        namespace: Some(installer.namespace.clone()),
    }
}

/// Builds the installer's objects.
struct Writer<'a> {
    config: &'a Config,
    installer: &'a Installer,
}

impl Writer<'_> {
    fn objects(&self, rules: BTreeMap<Option<String>, Vec<PolicyRule>>) -> Vec<Made> {
        let account = Account {
            extension: &self.config.extension,
            role: INSTALLER_ROLE,
            namespace: &self.installer.namespace,
            name: &self.installer.name,
        };
        let name = bounded_name(&self.config.extension, "-installer");
        let mut out = vec![(
            account.about(),
            Object::ServiceAccount(ServiceAccount {
                metadata: account.metadata(&self.installer.name, Some(&self.installer.namespace)),
                ..Default::default()
            }),
        )];
        for (place, rules) in rules {
            match place {
                None => out.extend(account.cluster_pair(&name, rules)),
                Some(ns) => out.extend(account.namespace_pair(&name, &ns, rules)),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn need(ns: Option<&str>, resources: &[&str], verbs: &[&str]) -> Need {
        Need {
            namespace: ns.map(String::from),
            rule: rule(&[""], resources, verbs, &[]),
            why: String::new(),
            to_grant: false,
        }
    }

    #[test]
    fn minimised_keeps_one_of_equal_rules_and_drops_what_cluster_rules_cover() {
        let needs = [
            need(None, &["pods"], &["get"]),
            need(None, &["pods"], &["get"]),
            need(None, &["pods", "services"], &["get"]),
            need(Some("a"), &["pods"], &["get", "list"]),
            need(Some("a"), &["services"], &["get"]),
        ];
        let m = minimised(&needs);
        assert_eq!(m[&None], vec![rule(&[""], &["pods", "services"], &["get"], &[])], "the broader rule covers both");
        assert_eq!(
            m[&Some("a".into())],
            vec![rule(&[""], &["pods"], &["get", "list"], &[])],
            "services get is cluster-wide"
        );
        let twins = minimised(&[need(None, &["pods"], &["get"]), need(None, &["pods"], &["get", "get"])]);
        assert_eq!(twins[&None].len(), 1, "two rules granting the same keep one: {twins:?}");
    }
}
