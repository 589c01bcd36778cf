//! What the steps read, each part built once and then only read: [`Input`]
//! per plan (the objects and what is decided about them whatever the
//! config), [`Planning`] per config (its APIs, its ClusterServiceVersion,
//! the claims it believes), and [`OperatorInput`] for the operator's steps
//! (the rules the CSV grants, the namespaces the operator serves). A step
//! takes one of them and the findings sink, `&mut Vec<Finding>`.

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::access::{self, Policy, RoleDef};
use crate::config::{Config, FeatureGate, Mode, OperatorPermissions, RoleKind};
use crate::findings::Finding;
use crate::model::*;

use crate::plan::facts::discover::{discover, select};
use crate::plan::facts::fit::{classify, level_bound, RoleFit};
use crate::plan::facts::grants::{csv_grants, CsvGrant};
use crate::plan::facts::installable::{refusals, watch_namespace_configurable, Asked, Install, Refusal};
use crate::plan::facts::namespaces::{selectable_namespaces, selected_namespaces};
use crate::plan::facts::origin::{bundle_members, extension_object, installed_members, Origins};
use crate::plan::facts::provenance::Claims;
use crate::plan::facts::trust;
use crate::plan::types::{Api, Generated, Object};

/// The input as every config's planning reads it, decided once per plan
/// (both plannings of [`crate::plan::plan`] share it).
pub(crate) struct Input<'a> {
    pub objects: &'a [InputObject],
    /// Whose each object is.
    pub origins: Origins,
    /// The scope table: Kubernetes' and OLM's kinds and the input's CRDs.
    pub resources: access::Resources,
    /// The Namespace objects a selector may pick: the admin's own.
    pub selectable_namespaces: Vec<&'a InputObject>,
    /// The cluster's ClusterRoles as they will be after this run: Kubernetes'
    /// bootstrap roles, reconciled with the admin's ClusterRoles (never the
    /// bundle's), and the ClusterRoles every config of the run writes (see
    /// [`Input::hold_written`]). What a bundle's binding to a built-in role's
    /// name gets, aggregation included, is read here. `None` when the
    /// bootstrap data cannot be read.
    pub built_in: Option<Policy>,
    /// The package each bundle folder's annotations name (see [`crate::plan::types::BundleRoots`]).
    pub packages: &'a BTreeMap<String, String>,
    /// The judged catalog's verdicts on the ClusterExtension's range, when given.
    pub judged_range: Option<&'a crate::plan::types::JudgedRange>,
    /// The package a catalog files the bundle under, when one does (see [`crate::plan::types::BundleRoots`]).
    pub catalog_package: Option<&'a str>,
}

impl<'a> Input<'a> {
    pub(crate) fn new(objects: &'a [InputObject], roots: &'a crate::plan::types::BundleRoots) -> Input<'a> {
        let origins = Origins::classify_in(objects, &roots.roots);
        let packages = &roots.packages;
        let admins = objects
            .iter()
            .enumerate()
            .filter(|&(i, o)| origins.is_admin(i) && o.role_kind() == Some(RoleRefKind::ClusterRole));
        let built_in = access::builtin::policy().ok().map(|_| access::from_objects(admins.map(|(_, o)| o)));
        Input {
            objects,
            resources: access::Resources::of_input(objects),
            selectable_namespaces: selectable_namespaces(objects, &origins),
            origins,
            built_in,
            packages,
            judged_range: roots.judged_range.as_ref(),
            catalog_package: roots.catalog_package.as_deref(),
        }
    }

    /// Adds the ClusterRoles a planning of the run writes (every config's) to
    /// [`Input::built_in`]; true when an aggregating role gathers one of them,
    /// so that a planning that judged bindings without them must be done again.
    pub(crate) fn hold_written(&mut self, generated: &[Generated]) -> bool {
        let Some(policy) = self.built_in.as_mut() else { return false };
        let mut gathered = false;
        for g in generated {
            if let Object::ClusterRole(role) = &g.object {
                let name = role.metadata.name.clone().unwrap_or_default();
                let labels = role.metadata.labels.clone().unwrap_or_default();
                let rules = role.rules.clone().unwrap_or_default();
                gathered |=
                    policy.cluster_roles.values().any(|r| r.aggregation.iter().any(|s| access::selects(s, &labels)));
                policy
                    .cluster_roles
                    .insert(name.clone(), RoleDef { name, labels, rules: rules.into(), ..Default::default() });
            }
        }
        gathered
    }
}

/// One config's planning: the config, the input, and what is decided once
/// for it before anything is generated.
pub(crate) struct Planning<'a> {
    pub config: &'a Config,
    pub input: &'a Input<'a>,
    /// The APIs the config selected.
    pub apis: Vec<Api>,
    /// The index of the ClusterServiceVersion whose APIs these are.
    pub csv: Option<usize>,
    /// For each input item, the extension it is earlier output of, as this
    /// config believes it: another extension's claim on one of its APIs is not.
    pub claims: Vec<Option<String>>,
    /// The items the cluster holds whoever ships them (see [`Claims::held_anyway`]).
    pub held_anyway: &'a BTreeSet<usize>,
    /// The bundle's own objects, decided on first use.
    members: OnceCell<BTreeSet<usize>>,
    /// What OLM installs, as the installer reads it, decided on first use.
    installed: OnceCell<BTreeSet<usize>>,
    /// How each of the input's roles fits the APIs, classified on first use.
    fits: Vec<OnceCell<RoleFit>>,
    /// What a role aggregated into each level may grant, on first use.
    level_bounds: OnceCell<BTreeMap<RoleKind, Vec<PolicyRule>>>,
}

impl<'a> Planning<'a> {
    /// Discovers and selects the config's APIs and settles which claims it
    /// believes, reporting as it goes.
    pub(crate) fn new(
        config: &'a Config,
        input: &'a Input<'a>,
        claims: &'a Claims,
        results: &mut Vec<Finding>,
    ) -> Planning<'a> {
        let (apis, csv) = discover(config, input.objects, results);
        let apis = select(config, apis, results);
        if config.mode != Mode::Unmanaged {
            trust::require_definitions(config, &apis, results);
        }
        let claims_here = trust::disown_claims_on(config, &apis, input.objects, &claims.of, results);
        Planning {
            config,
            input,
            apis,
            csv,
            claims: claims_here,
            held_anyway: &claims.held_anyway,
            members: OnceCell::new(),
            installed: OnceCell::new(),
            fits: input.objects.iter().map(|_| OnceCell::new()).collect(),
            level_bounds: OnceCell::new(),
        }
    }

    pub(crate) fn objects(&self) -> &'a [InputObject] {
        self.input.objects
    }

    pub(crate) fn origins(&self) -> &'a Origins {
        &self.input.origins
    }

    /// The chosen ClusterServiceVersion and its view.
    pub(crate) fn csv(&self) -> Option<(&'a InputObject, &'a CsvView)> {
        let o = self.objects().get(self.csv?)?;
        match &o.body {
            Body::Csv(view) => Some((o, view)),
            _ => None,
        }
    }

    /// How the role at `i` fits the selected APIs (see [`classify`]); `None`
    /// for an object that is no Role or ClusterRole.
    pub(crate) fn role_fit(&self, i: usize) -> Option<&RoleFit> {
        let Body::Role(view) = &self.objects().get(i)?.body else { return None };
        Some(self.fits.get(i)?.get_or_init(|| classify(&view.rules, &self.apis)))
    }

    /// What a role aggregated into `level` may grant (see [`level_bound`]).
    pub(crate) fn level_bound(&self, level: RoleKind) -> &[PolicyRule] {
        let bounds = self
            .level_bounds
            .get_or_init(|| RoleKind::ALL.into_iter().map(|l| (l, level_bound(&self.apis, l))).collect());
        bounds.get(&level).map_or(&[], Vec::as_slice)
    }

    /// The bundle's own objects (see [`bundle_members`]).
    pub(crate) fn bundle_members(&self) -> &BTreeSet<usize> {
        self.members.get_or_init(|| bundle_members(self.objects(), self.origins(), &self.claims))
    }

    /// What OLM installs, as the installer account reads it (see [`installed_members`]).
    pub(crate) fn installed_members(&self) -> &BTreeSet<usize> {
        self.installed.get_or_init(|| installed_members(self.objects(), self.origins(), &self.claims))
    }

    /// Why OLM v1 would refuse to install the bundle (its CSV and the CRDs
    /// OLM installs with it), with the CSV they are about: empty when it
    /// installs it, or when there is no CSV.
    pub(crate) fn olm_v1_refusals(&self) -> Option<(&'a InputObject, Vec<Refusal>)> {
        let (csv, view) = self.csv()?;
        let objects = self.objects();
        let crds = self
            .installed_members()
            .iter()
            .filter_map(|&i| objects.get(i))
            .filter(|o| matches!(o.body, Body::Crd(_)))
            .filter_map(|o| o.header.name.as_deref());
        Some((csv, refusals(view, crds, &self.olm_install())))
    }

    /// The extension's ClusterExtension among the admin's objects, with its
    /// index.
    pub(crate) fn admin_extension(&self) -> Option<(usize, &'a InputObject, &'a ExtensionView)> {
        let (objects, origins) = (self.objects(), self.origins());
        let i = extension_object(&self.config.extension, objects, origins).filter(|&i| origins.is_admin(i))?;
        match &objects[i].body {
            Body::Extension(view) => Some((i, &objects[i], view)),
            _ => None,
        }
    }

    /// How OLM v1 is asked to install the bundle: the cluster's feature
    /// gates (`spec.olmFeatureGates`), and the admin's ClusterExtension.
    pub(crate) fn olm_install(&self) -> Install<'a> {
        let extension = self
            .admin_extension()
            .map(|(_, _, view)| Asked { namespace: view.spec.namespace.as_deref(), config: view.spec.config.as_ref() });
        let single_own_namespace = FeatureGate::single_own_namespace(&self.config.olm_feature_gates);
        Install { single_own_namespace, extension }
    }

    /// The namespace OLM v1 has the operator watch, when the admin's
    /// ClusterExtension names one (`spec.config.inline.watchNamespace`) and
    /// the bundle may be configured so: OLM then grants the CSV's
    /// `permissions` there, not cluster-wide.
    pub(crate) fn watch_namespace(&self) -> Option<&'a str> {
        let (_, view) = self.csv()?;
        let configurable = watch_namespace_configurable(view);
        configurable.then(|| self.olm_install().extension?.watch_namespace()).flatten()
    }
}

/// What the operator's steps read (the install gate, the operator's RBAC,
/// the installer account): the config's planning, the rules the chosen CSV
/// grants, and the namespaces a `Namespaces` operator serves.
pub(crate) struct OperatorInput<'a> {
    pub planning: &'a Planning<'a>,
    /// Every rule the CSV grants, in its order.
    pub grants: Vec<CsvGrant>,
    /// `permissions: Namespaces`: the targets listed and selected.
    targets: Option<Targets>,
}

/// The namespaces `targetNamespaces` lists and `targetNamespaceSelector`
/// picks, with what selecting them found.
struct Targets {
    namespaces: BTreeSet<String>,
    findings: Vec<Finding>,
    /// Whether a step has reported `findings` already: the operator's and the
    /// installer's steps both use the targets, and a finding is said once.
    reported: std::cell::Cell<bool>,
}

impl<'a> OperatorInput<'a> {
    /// Reads the CSV's grants (reporting names that cannot exist) and
    /// selects the operator's target namespaces (reporting nothing yet: each
    /// step that uses them reports what selecting them found).
    pub(crate) fn new(planning: &'a Planning<'a>, results: &mut Vec<Finding>) -> OperatorInput<'a> {
        let grants = planning.csv().map(|(o, view)| csv_grants(o, view, results)).unwrap_or_default();
        let op = &planning.config.operator;
        let targets = (op.permissions == OperatorPermissions::Namespaces).then(|| {
            let mut findings = Vec::new();
            let mut namespaces: BTreeSet<String> = op.target_namespaces.iter().cloned().collect();
            if let Some(sel) = &op.target_selector {
                let field = "spec.operator.targetNamespaceSelector";
                let input = planning.input;
                let cfg = planning.config.object_ref();
                namespaces.extend(selected_namespaces(
                    sel,
                    field,
                    &input.selectable_namespaces,
                    input.objects,
                    &cfg,
                    &mut findings,
                ));
            }
            Targets { namespaces, findings, reported: std::cell::Cell::new(false) }
        });
        OperatorInput { planning, grants, targets }
    }

    pub(crate) fn config(&self) -> &'a Config {
        self.planning.config
    }

    /// The namespaces a `Namespaces` operator serves: those listed and those
    /// the selector picks, or `install` when there are none. `None` for any
    /// other `permissions`.
    pub(crate) fn watched_namespaces(&self, install: &str) -> Option<Vec<String>> {
        let targets = self.targets.as_ref()?;
        if targets.namespaces.is_empty() {
            return Some(vec![install.to_string()]);
        }
        Some(targets.namespaces.iter().cloned().collect())
    }

    /// Reports what selecting the target namespaces found, for the first
    /// step that uses them.
    pub(crate) fn report_targets(&self, results: &mut Vec<Finding>) {
        if let Some(t) = &self.targets {
            if !t.reported.replace(true) {
                results.extend(t.findings.iter().cloned());
            }
        }
    }
}
