//! What installing the bundle takes, need by need: OLM's own writes, the
//! bundle's objects by kind and name, what the CSV makes OLM write, the
//! operator's RBAC and the rules it grants, and the rules of the roles the
//! bundle ships (Kubernetes lets nobody grant what they do not hold).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::access::{self, Resources};
use crate::config::{Olm, OperatorPermissions};
use crate::findings::{Code, Finding};
use crate::kinds::{resource as resource_table, ApiResource};
use crate::model::policy_rule as rule;
use crate::model::*;

use crate::plan::facts::grants::olm_grants;
use crate::plan::facts::placement::Placement;
use crate::plan::installer::Installing;
use crate::plan::operator::permissions::promoted;

/// One permission the installer needs: where, and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Need {
    pub place: Place,
    pub rule: PolicyRule,
    pub why: String,
    /// Held only because the installer grants it to others (the operator,
    /// the bundle's roles), which Kubernetes allows only to who holds it.
    pub to_grant: bool,
}

/// Where the installer needs a rule: cluster-wide (first in every order), or
/// in one namespace.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Place {
    Cluster,
    Namespace(String),
}

impl Place {
    /// `cluster-wide` or `in namespace <name>`, for messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Place::Cluster => "cluster-wide".to_string(),
            Place::Namespace(ns) => format!("in namespace {ns}"),
        }
    }
}

impl Installing<'_> {
    /// Everything the installer needs, in a stable order: OLM's own objects,
    /// the bundle's objects, the operator's ServiceAccounts, Deployments and
    /// RBAC objects, then the rules it grants.
    pub(super) fn needs(&self, results: &mut Vec<Finding>) -> Vec<Need> {
        let (installer, objects) = (self.installer, self.operator.planning.objects());
        let ns = installer.account.namespace.as_str();
        let mut needs = self.olm_needs();
        if installer.olm == Olm::V0 {
            needs.extend(olm_v0_objects(self.csv, ns));
        }
        // The bundle's objects, by kind and name.
        let members = self.operator.planning.installed_members();
        let mut named: BTreeMap<ApiResource, BTreeSet<String>> = BTreeMap::new();
        for &i in members {
            let o = &objects[i];
            // OLM v0 creates CRDs with its own rights; the CSV is OLM's to write.
            if i == self.csv_index || (installer.olm == Olm::V0 && matches!(o.body, Body::Crd(_))) {
                continue;
            }
            match kind_of(o, &self.operator.planning.input.resources) {
                Some(r) => {
                    named.entry(r).or_default().insert(o.header.name.clone().unwrap_or_default());
                }
                None => results.push(
                    Finding::error(Code::Unmeasurable, format!(
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
        let spec = &self.view.spec.install.spec;
        let deployments = spec.deployments.iter().filter_map(|d| d.name.clone());
        named.entry(core_resource("apps", "deployments")).or_default().extend(deployments);
        let accounts = self.operator.grants.iter().map(|g| g.account.clone()).filter(|a| a != "default");
        named.entry(core_resource("", "serviceaccounts")).or_default().extend(accounts);
        named.retain(|_, names| !names.is_empty());
        for (r, names) in &named {
            let place = if r.cluster { Place::Cluster } else { Place::Namespace(ns.to_string()) };
            needs.extend(writing(r, Some(names), place, "install and upgrade the bundle's objects"));
        }
        if let Some(from) = &installer.upgrade_from {
            needs.extend(self.upgrade_needs(from, &named, results));
        }
        needs.extend(self.operator_needs(results));
        needs.extend(bundle_role_needs(members, objects, ns, &self.operator.planning.input.resources, results));
        needs
    }

    /// What upgrading from the previous version takes beyond installing this
    /// one. OLM v1 applies the new release over the old one: objects in both
    /// are updated (the new needs hold them by name), objects only in the old
    /// one are deleted, so the account needs `get`, `update`, `patch` and
    /// `delete` on each of those names. OLM v0 creates the new CSV beside the
    /// old one and deletes the old CSV with its own rights once the new one
    /// succeeds; Kubernetes' garbage collector deletes what the old CSV owned,
    /// so the account needs nothing more.
    fn upgrade_needs(
        &self,
        from: &str,
        named: &BTreeMap<ApiResource, BTreeSet<String>>,
        results: &mut Vec<Finding>,
    ) -> Vec<Need> {
        let (installer, config) = (self.installer, self.operator.config());
        let previous = &installer.previous.0;
        let old_csv = previous.iter().find_map(|o| match &o.body {
            Body::Csv(view) if o.header.name.as_deref() == Some(from) => Some(view),
            _ => None,
        });
        let Some(old_csv) = old_csv else {
            results.push(
                Finding::error(Code::CsvMissing, format!(
                    "the input holds no ClusterServiceVersion {from:?} in a bundle folder of its own: pass the previous version's bundle folder to render beside the new one"
                ))
                .on(&config.object_ref())
                .at("spec.installer.upgradeFrom"),
            );
            return Vec::new();
        };
        if installer.olm == Olm::V0 {
            return Vec::new();
        }
        let mut old: BTreeMap<(ApiResource, String), String> = BTreeMap::new();
        let old_table = Resources::of_input(previous);
        for o in previous.iter().filter(|o| !matches!(o.body, Body::Csv(_))) {
            let (Some(r), Some(name)) = (kind_of(o, &old_table), o.header.name.clone()) else { continue };
            old.insert((r, name), o.header.kind.clone().unwrap_or_default());
        }
        let spec = &old_csv.spec.install.spec;
        for name in spec.deployments.iter().filter_map(|d| d.name.clone()) {
            old.insert((core_resource("apps", "deployments"), name), "Deployment".into());
        }
        let accounts = spec.permissions.iter().chain(&spec.cluster_permissions);
        for name in accounts.filter_map(|p| p.service_account_name.clone()).filter(|a| a != "default") {
            old.insert((core_resource("", "serviceaccounts"), name), "ServiceAccount".into());
        }
        let ns = installer.account.namespace.as_str();
        old.into_iter()
            .filter(|((r, name), _)| !named.get(r).is_some_and(|names| names.contains(name)))
            .map(|((r, name), kind)| Need {
                place: if r.cluster { Place::Cluster } else { Place::Namespace(ns.to_string()) },
                rule: rule(&[r.group.as_str()], &[r.plural.as_str()], &["get", "update", "patch", "delete"], &[&name]),
                why: format!("upgrade from {from}, which deletes the old version's {kind} {name}"),
                to_grant: false,
            })
            .collect()
    }

    /// What OLM itself writes as the installer, beyond the bundle.
    fn olm_needs(&self) -> Vec<Need> {
        match self.installer.olm {
            // OLM v1 makes the ClusterExtension (and, with its Boxcutter applier,
            // the ClusterObjectSet revisions it names per install) the owner of
            // every object, with blockOwnerDeletion, which needs update on the
            // owner's finalizers.
            Olm::V1 => vec![
                Need {
                    place: Place::Cluster,
                    rule: rule(
                        &[OLM_V1_GROUP],
                        &["clusterextensions/finalizers"],
                        &["update"],
                        &[&self.operator.config().extension],
                    ),
                    why: "set blockOwnerDeletion on the objects the ClusterExtension owns".into(),
                    to_grant: false,
                },
                Need {
                    place: Place::Cluster,
                    rule: rule(&[OLM_V1_GROUP], &["clusterobjectsets/finalizers"], &["update"], &[]),
                    why: "set blockOwnerDeletion on the objects a ClusterObjectSet revision owns (revision names are OLM's)"
                        .into(),
                    to_grant: false,
                },
            ],
            // OLM v0 writes the CSV (and updates the Subscription) through the
            // OperatorGroup's account; it creates CRDs with its own rights.
            Olm::V0 => Vec::new(),
        }
    }

    /// The operator's RBAC objects and the rules they grant: where OLM writes
    /// them, as `spec.operator` scopes them, or as OLM promotes them.
    fn operator_needs(&self, results: &mut Vec<Finding>) -> Vec<Need> {
        let (config, grants) = (self.operator.config(), &self.operator.grants);
        let ns = self.installer.account.namespace.as_str();
        let watch = self.operator.planning.watch_namespace();
        let promoted = promoted(config, self.view, watch);
        let mut places: BTreeSet<String> = BTreeSet::from([ns.to_string()]);
        places.extend(watch.map(str::to_string));
        if config.operator.permissions == OperatorPermissions::Namespaces {
            self.operator.report_targets(results);
            places.extend(self.operator.watched_namespaces(ns).into_iter().flatten());
        }
        let olm = olm_grants(grants, promoted);
        let mut needs = Vec::new();
        // OLM names these objects with a hash of their content, so no resourceNames.
        let why = "write the operator's RBAC (OLM names it with a hash, so by any name)";
        let rbac = |plural: &str| core_resource(RBAC_GROUP, plural);
        if olm.iter().any(|g| g.cluster_wide) {
            needs.extend(writing(&rbac("clusterroles"), None, Place::Cluster, why));
            needs.extend(writing(&rbac("clusterrolebindings"), None, Place::Cluster, why));
        }
        if olm.iter().any(|g| !g.cluster_wide) {
            for place in &places {
                needs.extend(writing(&rbac("roles"), None, Place::Namespace(place.clone()), why));
                needs.extend(writing(&rbac("rolebindings"), None, Place::Namespace(place.clone()), why));
            }
        }
        for g in olm {
            let why = if g.added {
                "grant the operator read access to namespaces, which OLM adds when it promotes permissions".to_string()
            } else {
                format!("grant the operator {}", g.field)
            };
            if g.cluster_wide {
                needs.push(Need { place: Place::Cluster, rule: g.rule, why, to_grant: true });
            } else {
                needs.extend(places.iter().map(|p| Need {
                    place: Place::Namespace(p.clone()),
                    rule: g.rule.clone(),
                    why: why.clone(),
                    to_grant: true,
                }));
            }
        }
        needs
    }
}

/// What OLM v0 writes through the account besides the bundle's objects: the
/// CSV by name, and the admin's Subscription (by any name: olm-rbac does not
/// know it).
fn olm_v0_objects(csv: &InputObject, namespace: &str) -> Vec<Need> {
    let why = "write the ClusterServiceVersion and update the Subscription, as OLM v0 does through this account";
    let csvs = core_resource("operators.coreos.com", "clusterserviceversions");
    let names: BTreeSet<String> = csv.header.name.iter().cloned().collect();
    let mut needs = writing(&csvs, Some(&names), Place::Namespace(namespace.to_string()), why);
    needs.push(Need {
        place: Place::Namespace(namespace.to_string()),
        rule: rule(&["operators.coreos.com"], &["subscriptions"], &["get", "update", "patch"], &[]),
        why: why.into(),
        to_grant: false,
    });
    needs
}

/// The rules of the roles the bundle ships: the installer must hold them to
/// write them. A binding to a role the bundle does not ship cannot be held to
/// anything known.
fn bundle_role_needs(
    members: &BTreeSet<usize>,
    objects: &[InputObject],
    ns: &str,
    table: &Resources,
    results: &mut Vec<Finding>,
) -> Vec<Need> {
    let mut needs = Vec::new();
    // The bundle's roles and bindings as OLM places them, and nothing else: a
    // binding to a role the bundle does not ship resolves to nothing.
    let placement = Placement { install: ns, applied: None, table };
    let mut placed = access::Policy { resources: table.clone(), ..Default::default() };
    placement.place(&mut placed, objects, members.iter().copied());
    for &i in members {
        let o = &objects[i];
        let cluster = o.header.kind.as_deref() == Some("ClusterRole");
        match &o.body {
            Body::Role(v) if v.aggregates() => results.push(
                Finding::error(Code::Unmeasurable,
                    "spec.installer: the bundle ships this ClusterRole with an aggregationRule; what writing it takes depends on the cluster's roles, which olm-rbac cannot know",
                )
                .on(&o.object_ref())
                .in_file(o.file.as_ref()),
            ),
            Body::Role(v) => {
                let why = format!("write the bundle's {}", o.object_ref());
                let place = if cluster { Place::Cluster } else { Place::Namespace(ns.to_string()) };
                needs.extend(v.rules.iter().map(|r| Need {
                    place: place.clone(),
                    rule: r.to_policy_rule(),
                    why: why.clone(),
                    to_grant: true,
                }));
            }
            Body::Binding(b) => {
                // The role the binding gets where OLM puts both, as the kernel resolves it.
                let def = placed.bindings.iter().find(|d| d.source == Some(i));
                if !def.is_some_and(|d| placed.binds_a_role(d)) {
                    results.push(
                        Finding::error(Code::InstallerNeedsForeignRole, format!(
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

/// The API resource of an object, as the scope table has its kind.
fn kind_of(o: &InputObject, table: &Resources) -> Option<ApiResource> {
    table.of_kind(o.header.group()?, o.header.kind.as_deref()?)
}

/// One of Kubernetes' own resources, which the resource table knows.
fn core_resource(group: &str, plural: &str) -> ApiResource {
    resource_table(group, plural).unwrap_or(ApiResource { group: group.into(), plural: plural.into(), cluster: false })
}

/// What writing objects of one resource takes: `create`, `list`, `watch` on
/// any (no name to restrict them by), and the rest on `names`, or on any when
/// OLM chooses the names.
fn writing(r: &ApiResource, names: Option<&BTreeSet<String>>, place: Place, why: &str) -> Vec<Need> {
    let g = [r.group.as_str()];
    let p = [r.plural.as_str()];
    let need = |rule: PolicyRule| Need { place: place.clone(), rule, why: why.to_string(), to_grant: false };
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
