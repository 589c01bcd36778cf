//! The plan's shared types: the APIs found, the objects generated and what
//! each is about, the steps' draft and the plan it becomes. Every room of the
//! planner reads them from here; `plan.rs` only runs the steps.

mod kernel;

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::admissionregistration::v1::{ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding};
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Serialize;

use crate::config::RoleKind;
use crate::findings::{Finding, ObjRef, Severity};
use crate::model::*;

/// An API the operator serves, learned from a CRD, a CSV entry or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Api {
    /// `<plural>.<group>`, also the CRD's name.
    pub name: String,
    pub group: String,
    pub plural: String,
    pub kind: Option<String>,
    pub source: ApiSource,
    /// Versions for `naming: OLMv0`: the CSV entries' versions, or the CRD's
    /// storage version.
    pub versions: Vec<String>,
    /// `spec.scope: Cluster` in the CRD. Unknown (CSV entry only, APIService)
    /// counts as namespaced.
    pub cluster_scoped: bool,
    /// The object the API was learned from, for results.
    pub origin: ObjRef,
    /// The field of `origin` it was learned from.
    pub field: String,
}

impl Api {
    pub(crate) fn cluster_scoped(&self) -> bool {
        self.cluster_scoped
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ApiSource {
    Crd,
    ApiService,
    /// A CSV's owned CRD entry whose CRD is not in the input: the bundle
    /// carries no definition, so olm-rbac grants nothing on it.
    CsvEntry,
}

/// A Kubernetes object the function writes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum Object {
    ClusterRole(ClusterRole),
    ClusterRoleBinding(ClusterRoleBinding),
    Role(Role),
    RoleBinding(RoleBinding),
    ServiceAccount(ServiceAccount),
    AdmissionPolicy(Box<ValidatingAdmissionPolicy>),
    AdmissionPolicyBinding(Box<ValidatingAdmissionPolicyBinding>),
}

impl Object {
    pub(crate) fn metadata(&self) -> &ObjectMeta {
        match self {
            Object::ClusterRole(o) => &o.metadata,
            Object::ClusterRoleBinding(o) => &o.metadata,
            Object::Role(o) => &o.metadata,
            Object::RoleBinding(o) => &o.metadata,
            Object::ServiceAccount(o) => &o.metadata,
            Object::AdmissionPolicy(o) => &o.metadata,
            Object::AdmissionPolicyBinding(o) => &o.metadata,
        }
    }

    pub(crate) fn metadata_mut(&mut self) -> &mut ObjectMeta {
        match self {
            Object::ClusterRole(o) => &mut o.metadata,
            Object::ClusterRoleBinding(o) => &mut o.metadata,
            Object::Role(o) => &mut o.metadata,
            Object::RoleBinding(o) => &mut o.metadata,
            Object::ServiceAccount(o) => &mut o.metadata,
            Object::AdmissionPolicy(o) => &mut o.metadata,
            Object::AdmissionPolicyBinding(o) => &mut o.metadata,
        }
    }

    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Object::ClusterRole(_) => "ClusterRole",
            Object::ClusterRoleBinding(_) => "ClusterRoleBinding",
            Object::Role(_) => "Role",
            Object::RoleBinding(_) => "RoleBinding",
            Object::ServiceAccount(_) => "ServiceAccount",
            Object::AdmissionPolicy(_) => "ValidatingAdmissionPolicy",
            Object::AdmissionPolicyBinding(_) => "ValidatingAdmissionPolicyBinding",
        }
    }

    /// `Kind name` or `Kind namespace/name`, for results.
    pub(crate) fn describe(&self) -> String {
        let m = self.metadata();
        match &m.namespace {
            Some(ns) => format!("{} {ns}/{}", self.kind(), m.name.as_deref().unwrap_or_default()),
            None => format!("{} {}", self.kind(), m.name.as_deref().unwrap_or_default()),
        }
    }

    /// The apiVersion it is written with.
    pub(crate) fn api_version(&self) -> &'static str {
        match self {
            Object::ServiceAccount(_) => "v1",
            Object::AdmissionPolicy(_) | Object::AdmissionPolicyBinding(_) => "admissionregistration.k8s.io/v1",
            _ => "rbac.authorization.k8s.io/v1",
        }
    }

    pub(crate) fn object_ref(&self) -> ObjRef {
        let m = self.metadata();
        ObjRef {
            api_version: self.api_version().into(),
            kind: self.kind().into(),
            name: m.name.clone().unwrap_or_default(),
            namespace: m.namespace.clone(),
        }
    }
}

/// What a generated object is for, as the plan knew it when it made it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum About {
    /// A role, or a binding of one, for an API's role; named for a version
    /// under `naming: OLMv0`.
    Api { api: String, version: Option<String>, role: RoleKind },
    /// An object that grants the operator's ServiceAccount the CSV's rules.
    Operator(ServiceAccountRef),
    /// The installer's ServiceAccount, or an object that grants it what
    /// installing the bundle takes.
    Installer(ServiceAccountRef),
    /// A role, or a binding of one, for OLM's own APIs (`spec.olmAPIs`).
    Olm(OlmRole),
    /// The admission policy, or its binding, that pins the cluster to the
    /// judged bundle (`spec.admissionPolicy`).
    Pin,
    /// A team's role or binding, or the admission policy or its binding,
    /// for delegated installs (`spec.delegations`).
    Delegation,
    /// A role, or its binding, of the judgement's model of the cluster: what
    /// the install grants beyond RBAC rules (`gate::modelled`), never written.
    Modelled,
}

impl About {
    /// The ServiceAccount the object is for: the operator's or the installer's.
    pub(crate) fn account(&self) -> Option<&ServiceAccountRef> {
        match self {
            About::Api { .. } | About::Olm(_) | About::Pin | About::Delegation | About::Modelled => None,
            About::Operator(account) | About::Installer(account) => Some(account),
        }
    }

    /// What the object is for, in a message: `API <name>`, or the account.
    pub(crate) fn purpose(&self) -> String {
        match (self, self.account()) {
            (About::Api { api, .. }, _) => format!("API {api}"),
            (About::Olm(_), _) => "OLM's own APIs (spec.olmAPIs)".to_string(),
            (About::Pin, _) => "the admission policy (spec.admissionPolicy)".to_string(),
            (About::Delegation, _) => "delegated installs (spec.delegations)".to_string(),
            (About::Modelled, _) => "what the install grants beyond RBAC rules".to_string(),
            (_, Some(account)) => account.to_string(),
            (_, None) => String::new(),
        }
    }
}

/// An object the plan makes, with what it is for.
pub(crate) type Made = (About, Object);

/// Output order of an API's objects: by API (OLM's own APIs after the
/// bundle's), then roles before cluster bindings before namespaced ones, then
/// namespace, version, role and name.
pub(crate) fn output_order((about, object): &Made) -> (bool, String, u8, String, Option<String>, u8, String) {
    let m = object.metadata();
    let rank = match object {
        Object::ClusterRole(_) => 0,
        Object::ClusterRoleBinding(_) => 1,
        Object::Role(_) => 2,
        Object::RoleBinding(_) => 3,
        Object::ServiceAccount(_) => 4,
        Object::AdmissionPolicy(_) => 5,
        Object::AdmissionPolicyBinding(_) => 6,
    };
    let (api, version, role) = match about {
        About::Api { api, version, role } => (api.clone(), version.clone(), *role as u8),
        About::Olm(role) => (String::new(), None, *role as u8),
        About::Operator(_) | About::Installer(_) | About::Pin | About::Delegation | About::Modelled => {
            (String::new(), None, 9)
        }
    };
    let olm = matches!(about, About::Olm(_));
    (olm, api, rank, m.namespace.clone().unwrap_or_default(), version, role, m.name.clone().unwrap_or_default())
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Generated {
    pub object: Object,
    pub about: About,
    /// Where a runner that writes files (kpt) should put it.
    pub output_path: String,
}

/// What the steps decide, as they go: what `plan` turns into a [`Plan`].
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Draft {
    /// Indices of input objects to drop (earlier output of these configs).
    pub remove: BTreeSet<usize>,
    /// Changes to the metadata of input objects olm-rbac did not generate:
    /// adopted bundle roles and the extension's `ClusterExtension`.
    pub patches: BTreeMap<usize, MetaPatch>,
    pub generated: Vec<Generated>,
    /// See [`Plan::granted_by_olm`].
    pub granted_by_olm: Vec<Made>,
    /// See [`Plan::shipped`].
    pub shipped: BTreeSet<usize>,
    pub results: Vec<Finding>,
}

/// What to do with a list. A plan whose results hold an error changes
/// nothing, by construction: it is built only by [`Plan::decide`] and
/// [`Plan::refused`], and results added later go through the same rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Plan {
    pub(in crate::plan) remove: BTreeSet<usize>,
    pub(in crate::plan) patches: BTreeMap<usize, MetaPatch>,
    pub(in crate::plan) generated: Vec<Generated>,
    /// The operator's RBAC as OLM v1 grants it on install where the config
    /// writes none (`permissions: Unmanaged`): never output, but what the
    /// cluster will hold, so the upgrade review measures it.
    pub(in crate::plan) granted_by_olm: Vec<Made>,
    /// Indices of the input objects OLM installs from the bundle, as the
    /// bundle ships them, whatever the output holds of them.
    pub(in crate::plan) shipped: BTreeSet<usize>,
    /// What the outputs say.
    pub(in crate::plan) results: Vec<Finding>,
    /// Findings past the text's cap (`Shown::PastCap`): values only.
    pub(in crate::plan) past_cap: Vec<Finding>,
    /// Whether the input was planned at all, not refused before planning:
    /// only then are the facts of what OLM installs (`shipped`) known.
    pub(in crate::plan) planned: bool,
}

impl Plan {
    /// The draft's changes, unless its results hold an error.
    pub(super) fn decide(draft: Draft) -> Plan {
        let Draft { remove, patches, generated, granted_by_olm, shipped, results } = draft;
        let (past_cap, results) = results.into_iter().partition(|f| f.shown == crate::findings::Shown::PastCap);
        let mut plan = Plan { remove, patches, generated, granted_by_olm, shipped, results, past_cap, planned: true };
        plan.change_nothing_on_error();
        plan
    }

    /// A plan that changes nothing: the input was refused before planning.
    pub(crate) fn refused(results: Vec<Finding>) -> Plan {
        let mut plan = Plan { results, ..Plan::default() };
        plan.change_nothing_on_error();
        plan
    }

    /// Adds results from the runner: `earlier` before the plan's own (reading
    /// the input), `later` after (writing it). An error among them undoes
    /// every change.
    pub(crate) fn add_results(&mut self, earlier: Vec<Finding>, later: Vec<Finding>) {
        let own = std::mem::take(&mut self.results);
        self.results = [earlier, own, later].concat();
        self.change_nothing_on_error();
    }

    /// With an error, nothing is changed, so no result may say otherwise.
    fn change_nothing_on_error(&mut self) {
        if self.results.iter().any(|r| r.severity == Severity::Error) {
            self.remove.clear();
            self.patches.clear();
            self.generated.clear();
            self.granted_by_olm.clear();
            self.results.retain(|r| r.severity != Severity::Info);
        }
    }

    pub(crate) fn remove(&self) -> &BTreeSet<usize> {
        &self.remove
    }

    pub(crate) fn patches(&self) -> &BTreeMap<usize, MetaPatch> {
        &self.patches
    }

    pub(crate) fn generated(&self) -> &[Generated] {
        &self.generated
    }

    pub(crate) fn results(&self) -> &[Finding] {
        &self.results
    }

    /// See the field: whether the input was planned, not refused before.
    pub(crate) fn planned(&self) -> bool {
        self.planned
    }

    /// See the field: what OLM installs from the bundle, as shipped.
    pub(crate) fn shipped(&self) -> &BTreeSet<usize> {
        &self.shipped
    }

    /// See the field: the operator's RBAC OLM v1 grants where this output writes none.
    pub(crate) fn granted_by_olm(&self) -> impl Iterator<Item = &Object> {
        self.granted_by_olm.iter().map(|(_, object)| object)
    }

    /// Every finding as a value: those the outputs say, less the counts of
    /// what their cap left out, and those past the cap.
    pub(crate) fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.results.iter().chain(&self.past_cap).filter(|f| f.shown != crate::findings::Shown::CapCount)
    }

    pub(crate) fn into_results(self) -> Vec<Finding> {
        self.results
    }
}

/// What the runner learned reading bundles' roots (folders laid out as
/// registry+v1: `manifests/` and `metadata/annotations.yaml`): the roots
/// themselves, whose files are all the bundle's, wherever its CSV sits; and
/// the package each names, by the folder its objects are in
/// (`<root>/manifests`).
/// Also what the run knows of the judged catalog, when one is given.
#[derive(Debug, Clone, Default)]
pub(crate) struct BundleRoots {
    pub roots: Vec<String>,
    pub packages: BTreeMap<String, String>,
    /// `render --judged-catalog`: every bundle the ClusterExtension's range
    /// admits there, judged with this render's config.
    pub judged_range: Option<JudgedRange>,
    /// The package a catalog files the bundle judged here under: a catalog's
    /// bundle judged by `catalog judge`, `audit` or `filter` (each one of
    /// render's judged range included), or render's bundle under
    /// `--judged-catalog` (the range's package).
    pub catalog_package: Option<String>,
}

/// Every bundle a ClusterExtension's version range admits in a judged
/// catalog (`catalog filter`'s output), each judged with the render's own
/// config as `catalog judge` judges it (`render --judged-catalog`): with
/// the ClusterCatalog pinned by digest to that catalog's image, the range
/// is then as safe as one exact version.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JudgedRange {
    /// The catalog as given, for messages.
    pub catalog: String,
    /// The package of every bundle judged there: the one the
    /// ClusterExtension names, as the catalog files each bundle under it.
    pub package: String,
    /// The range, as the ClusterExtension writes it.
    pub range: String,
    /// Each bundle it admits there that passed: (bundle, version).
    pub passed: Vec<(String, String)>,
    /// Each one that did not: (bundle, why).
    pub failed: Vec<(String, String)>,
}

/// One of the roles olm-rbac writes for OLM's own APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum OlmRole {
    /// What OLM v0's `aggregate-olm-view` holds: reading its namespaced objects.
    View,
    /// Reading OLM v1's cluster-scoped ClusterExtensions and ClusterCatalogs:
    /// which extensions are installed, from which catalogs.
    Discovery,
    /// What OLM v0's `aggregate-olm-edit` holds: writing Subscriptions, and
    /// deleting ClusterServiceVersions, CatalogSources and InstallPlans.
    Edit,
}
