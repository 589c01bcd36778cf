//! The pure core: from a validated config and typed input objects, decide what
//! to remove, what to generate and what to tell the user. No YAML in here.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, RoleBinding};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Serialize;

use crate::config::{BundleObjects, Config, Mode, Naming, RoleKind};
use crate::model::*;
use crate::names::{
    bounded_name, glob_match, is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, is_label_value,
};
use crate::report::{FileRef, Finding, ObjRef, Severity};

mod bind;
mod bundle;
mod provenance;
mod trust;

pub use bundle::{classify, Grants, Record};

/// The apiVersion of a ClusterServiceVersion as OLM defines it.
const CSV_API_VERSION: &str = "operators.coreos.com/v1alpha1";

/// An API the operator serves, learned from a CRD, a CSV entry or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Api {
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
    pub fn cluster_scoped(&self) -> bool {
        self.cluster_scoped
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiSource {
    Crd,
    ApiService,
    /// A CSV's owned CRD entry whose CRD is not in the input: the bundle
    /// carries no definition, so olm-rbac grants nothing on it.
    CsvEntry,
}

/// A Kubernetes object the function writes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Object {
    ClusterRole(ClusterRole),
    ClusterRoleBinding(ClusterRoleBinding),
    RoleBinding(RoleBinding),
}

impl Object {
    pub fn metadata(&self) -> &ObjectMeta {
        match self {
            Object::ClusterRole(o) => &o.metadata,
            Object::ClusterRoleBinding(o) => &o.metadata,
            Object::RoleBinding(o) => &o.metadata,
        }
    }

    pub fn metadata_mut(&mut self) -> &mut ObjectMeta {
        match self {
            Object::ClusterRole(o) => &mut o.metadata,
            Object::ClusterRoleBinding(o) => &mut o.metadata,
            Object::RoleBinding(o) => &mut o.metadata,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Object::ClusterRole(_) => "ClusterRole",
            Object::ClusterRoleBinding(_) => "ClusterRoleBinding",
            Object::RoleBinding(_) => "RoleBinding",
        }
    }

    /// Output order: by API, then roles before cluster bindings before
    /// namespaced ones, then namespace and name.
    fn sort_key(&self) -> (String, u8, String, String, u8, String) {
        let m = self.metadata();
        let label = |k: &str| m.labels.as_ref().and_then(|l| l.get(k)).cloned().unwrap_or_default();
        let api = m.annotations.as_ref().and_then(|a| a.get(API_ANNOTATION)).cloned().unwrap_or_default();
        let rank = match self {
            Object::ClusterRole(_) => 0,
            Object::ClusterRoleBinding(_) => 1,
            Object::RoleBinding(_) => 2,
        };
        let role = RoleKind::ALL.iter().position(|r| r.as_str() == label(ROLE_LABEL)).unwrap_or(9) as u8;
        let name = m.name.clone().unwrap_or_default();
        // The name without its role suffix keeps each version's roles together (OLMv0 naming).
        let base = ["-view-crdview", "-crdview", "-admin", "-edit", "-view"]
            .iter()
            .find_map(|suffix| name.strip_suffix(suffix))
            .unwrap_or(&name)
            .to_string();
        (api, rank, m.namespace.clone().unwrap_or_default(), base, role, name)
    }

    pub fn object_ref(&self) -> ObjRef {
        let m = self.metadata();
        ObjRef {
            api_version: "rbac.authorization.k8s.io/v1".into(),
            kind: self.kind().into(),
            name: m.name.clone().unwrap_or_default(),
            namespace: m.namespace.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    pub object: Object,
    /// Where a runner that writes files (kpt) should put it.
    pub output_path: String,
}

/// What to do with a list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// Indices of input objects to drop (earlier output of these configs).
    pub remove: BTreeSet<usize>,
    /// Changes to the metadata of input objects olm-rbac did not generate:
    /// adopted bundle roles and the extension's `ClusterExtension`.
    pub patches: BTreeMap<usize, MetaPatch>,
    pub generated: Vec<Generated>,
    pub results: Vec<Finding>,
}

impl Plan {
    pub fn has_errors(&self) -> bool {
        self.results.iter().any(|r| r.severity == Severity::Error)
    }
}

/// Decides the output for `configs` over `objects`. If anything is an error,
/// the plan removes and generates nothing: the input comes back unchanged.
pub fn plan(configs: &[Config], objects: &[InputObject]) -> Plan {
    let mut plan = Plan::default();
    let mut seen: BTreeMap<&str, &Config> = BTreeMap::new();
    for config in configs {
        if let Some(first) = seen.insert(&config.extension, config) {
            plan.results.push(
                Finding::error(format!(
                    "extension {:?} is claimed by two configs ({} and {}); give each an own spec.extensionName",
                    config.extension, first.name, config.name
                ))
                .on(&config.object_ref())
                .at("spec.extensionName"),
            );
        }
    }
    let claims = provenance::generated_claims(objects, &bundle_folders(objects), &mut plan.results);
    trust::check_input(objects, &claims, &mut plan.results);
    for config in configs {
        let before = plan.patches.clone();
        plan_one(config, objects, &claims, &mut plan);
        for (i, _) in before.iter().filter(|(i, p)| plan.patches.get(i) != Some(p)) {
            plan.results.push(
                Finding::error(format!(
                    "two configs change this object (the second is RBACConfig {:?}); give each extension its own APIs with spec.apis",
                    config.name
                ))
                .on(&objects[*i].object_ref())
                .in_file(objects[*i].file.as_ref()),
            );
        }
    }
    check_conflicts(objects, &mut plan);
    if plan.has_errors() {
        // Nothing is changed, so no result may say otherwise.
        plan.remove.clear();
        plan.patches.clear();
        plan.generated.clear();
        plan.results.retain(|r| r.severity != Severity::Info);
    }
    plan
}

fn plan_one(config: &Config, objects: &[InputObject], claims: &[Option<String>], plan: &mut Plan) {
    let earlier: BTreeSet<usize> =
        (0..objects.len()).filter(|&i| claims[i].as_deref() == Some(config.extension.as_str())).collect();
    plan.remove.extend(earlier.iter().copied());
    let (apis, csv) = discover_with_csv(config, objects, &mut plan.results);
    let apis = select(config, apis, &mut plan.results);
    if config.mode != Mode::Unmanaged {
        trust::require_definitions(config, &apis, &mut plan.results);
    }
    let claims = &trust::disown_claims_on(config, &apis, objects, claims, &mut plan.results);
    let cfg = config.object_ref();

    let dropped = match config.bundle_objects {
        BundleObjects::Keep => BTreeSet::new(),
        BundleObjects::Drop => bundle_members(csv, objects, claims),
    };
    // With the bundle dropped, its roles reach the cluster through OLM, unchanged:
    // Bind can bind them, but Aggregate cannot label them, so it generates its own.
    let adopt =
        !matches!((config.mode, config.bundle_objects), (Mode::Unmanaged, _) | (Mode::Aggregate, BundleObjects::Drop));
    let provided =
        if adopt { bundle::adopt(config, &apis, objects, claims, &mut plan.results) } else { Default::default() };
    let mut patches = bundle::label_patches(config, &apis, &provided, objects, claims, &mut plan.results);
    patches.retain(|i, _| !dropped.contains(i));
    plan.patches.extend(patches);
    if !dropped.is_empty() {
        plan.results.push(
            Finding::info(format!(
                "extension {:?}: {} bundle object(s) left out of the output (bundleObjects: Drop); OLM installs them from the catalog",
                config.extension,
                dropped.len()
            ))
            .on(&cfg),
        );
        if config.strip_bundle_aggregation {
            plan.results.push(
                Finding::warning("stripBundleAggregation cannot change the bundle's roles when bundleObjects is Drop: OLM installs them as the bundle has them")
                    .on(&cfg)
                    .at("spec.stripBundleAggregation"),
            );
        }
        let unknown = objects
            .iter()
            .enumerate()
            .filter(|(i, o)| !dropped.contains(i) && source_folder(o).is_none() && claims[*i].is_none())
            .count();
        if unknown > 0 {
            plan.results.push(
                Finding::warning(format!(
                    "bundleObjects: Drop left out the CSV and the CRDs, but {unknown} other object(s) do not say which file they came from, so bundle manifests among them were kept; with kustomize, add `buildMetadata: [originAnnotations]` to the kustomization"
                ))
                .on(&cfg)
                .at("spec.bundleObjects"),
            );
        }
        plan.remove.extend(dropped);
    }
    bundle::note_namespaced_roles(&apis, objects, &mut plan.results);

    let mut generated: Vec<Object> = Vec::new();
    let summary = match config.mode {
        Mode::Unmanaged => {
            let names: Vec<&str> = apis.iter().map(|a| a.name.as_str()).collect();
            let message = if names.is_empty() {
                format!("extension {:?}: RBAC is unmanaged and no APIs were found; nothing to do", config.extension)
            } else {
                format!(
                    "extension {:?}: RBAC is unmanaged, so only cluster-admins can use its {} API(s): {}. To grant access, set spec.mode to Aggregate (into the built-in admin/edit/view roles) or Bind in RBACConfig {:?}",
                    config.extension,
                    names.len(),
                    names.join(", "),
                    config.name
                )
            };
            plan.results.push(Finding::info(message).on(&cfg));
            format!("Unmanaged: only cluster-admins can use its {} API(s)", apis.len())
        }
        Mode::Aggregate | Mode::Bind => {
            for api in &apis {
                generated.extend(
                    cluster_roles(config, api)
                        .into_iter()
                        .filter(|(_, role, _)| !provided.contains_key(&(api.name.clone(), *role)))
                        .map(|(_, _, r)| Object::ClusterRole(r)),
                );
            }
            if config.mode == Mode::Bind {
                let role_for = |api: &Api, role: RoleKind| -> Vec<(Option<String>, String)> {
                    if let Some(&i) = provided.get(&(api.name.clone(), role)) {
                        return objects[i].header.name.clone().map(|n| (None, n)).into_iter().collect();
                    }
                    if !config.roles.contains(&role) || (role == RoleKind::CrdView && api.source != ApiSource::Crd) {
                        return Vec::new();
                    }
                    versions_for(config, api)
                        .into_iter()
                        .map(|v| (v.map(String::from), role_name(config.naming, api, v, role)))
                        .collect()
                };
                let bundle = bundle_folders(objects);
                generated.extend(bind::bindings(config, &apis, role_for, objects, &bundle, &mut plan.results));
            }
            let roles = generated.iter().filter(|o| matches!(o, Object::ClusterRole(_))).count();
            let bindings = generated.len() - roles;
            let mut by_api: BTreeMap<&str, Vec<String>> = BTreeMap::new();
            for o in &generated {
                if let Some(api) = o.metadata().annotations.as_ref().and_then(|a| a.get(API_ANNOTATION)) {
                    by_api.entry(api).or_default().push(describe_generated(o));
                }
            }
            let mut adopted_by_api: BTreeMap<&str, Vec<String>> = BTreeMap::new();
            for ((api, role), &i) in &provided {
                if let Some(n) = &objects[i].header.name {
                    adopted_by_api.entry(api).or_default().push(format!("{n} ({})", role.as_str()));
                }
            }
            for api in &apis {
                let mine = by_api.remove(api.name.as_str()).unwrap_or_default();
                let adopted = adopted_by_api.remove(api.name.as_str()).unwrap_or_default();
                let mut message = format!(
                    "API {}: generated {}",
                    api.name,
                    if mine.is_empty() { "nothing".into() } else { mine.join(", ") }
                );
                if !adopted.is_empty() {
                    message.push_str(&format!("; bundle roles used: {}", adopted.join(", ")));
                }
                plan.results.push(Finding::info(message).on(&api.origin));
            }
            let how = match config.mode {
                Mode::Aggregate => "aggregated into the built-in admin, edit and view roles".to_string(),
                _ => format!("bound by {bindings} binding(s)"),
            };
            plan.results.push(
                Finding::info(format!(
                    "extension {:?}: generated {roles} ClusterRole(s) for {} API(s), {how}{}",
                    config.extension,
                    apis.len(),
                    if provided.is_empty() {
                        String::new()
                    } else {
                        format!("; {} bundle role(s) used", provided.len())
                    }
                ))
                .on(&cfg),
            );
            let mut summary = format!("{}: {roles} ClusterRole(s)", config.mode.as_str());
            if config.mode == Mode::Bind {
                summary.push_str(&format!(", {bindings} binding(s)"));
            }
            summary.push_str(&format!(" generated for {} API(s)", apis.len()));
            if !provided.is_empty() {
                summary.push_str(&format!(", {} bundle role(s) used", provided.len()));
            }
            summary
        }
    };
    generated.sort_by_cached_key(Object::sort_key);
    report_removed(config, &earlier, &generated, objects, &mut plan.results);
    plan.generated
        .extend(generated.into_iter().map(|object| Generated { object, output_path: config.output_path.clone() }));
    annotate_extension(config, &summary, objects, plan);
}

/// Names every earlier output of this config that this run does not write
/// again: nothing olm-rbac removes disappears unsaid.
fn report_removed(
    config: &Config,
    earlier: &BTreeSet<usize>,
    generated: &[Object],
    objects: &[InputObject],
    results: &mut Vec<Finding>,
) {
    let rewritten: BTreeSet<ObjRef> = generated.iter().map(Object::object_ref).collect();
    for &i in earlier {
        let mut r = objects[i].object_ref();
        r.api_version = "rbac.authorization.k8s.io/v1".into();
        if !rewritten.contains(&r) {
            results.push(
                Finding::info(format!(
                    "removed: olm-rbac generated it for extension {:?} earlier, and this run ({} mode) does not",
                    config.extension,
                    config.mode.as_str()
                ))
                .on(&objects[i].object_ref())
                .in_file(objects[i].file.as_ref()),
            );
        }
    }
}

fn describe_generated(o: &Object) -> String {
    let m = o.metadata();
    match &m.namespace {
        Some(ns) => format!("{} {ns}/{}", o.kind(), m.name.as_deref().unwrap_or_default()),
        None => format!("{} {}", o.kind(), m.name.as_deref().unwrap_or_default()),
    }
}

/// Shows the outcome on the extension's `ClusterExtension`, if it is in the input.
fn annotate_extension(config: &Config, summary: &str, objects: &[InputObject], plan: &mut Plan) {
    for (i, o) in objects.iter().enumerate() {
        if o.is("olm.operatorframework.io", "ClusterExtension") && o.header.name.as_deref() == Some(&config.extension) {
            if o.header.annotations.get(STATUS_ANNOTATION).map(String::as_str) != Some(summary) {
                let patch = plan.patches.entry(i).or_default();
                patch.annotations.push(Edit::Set(STATUS_ANNOTATION.into(), summary.into()));
            }
            plan.results.push(
                Finding::info(format!("annotated with {STATUS_ANNOTATION}: {summary}"))
                    .on(&o.object_ref())
                    .in_file(o.file.as_ref()),
            );
        }
    }
}

fn versions_for<'a>(config: &Config, api: &'a Api) -> Vec<Option<&'a str>> {
    match config.naming {
        Naming::Default => vec![None],
        Naming::OlmV0 => api.versions.iter().map(|v| Some(v.as_str())).collect(),
    }
}

/// Finds the APIs of the config's ClusterServiceVersion, or of every CRD when
/// the input has no CSV.
pub fn discover(config: &Config, objects: &[InputObject], results: &mut Vec<Finding>) -> Vec<Api> {
    discover_with_csv(config, objects, results).0
}

/// [`discover`], also telling which input object is the chosen CSV.
fn discover_with_csv(
    config: &Config,
    objects: &[InputObject],
    results: &mut Vec<Finding>,
) -> (Vec<Api>, Option<usize>) {
    let cfg = config.object_ref();
    // Every CRD is checked, used or not: a broken CRD fails on the cluster too.
    let mut crds: BTreeMap<String, Api> = BTreeMap::new();
    for obj in objects {
        if let Body::Crd(view) = &obj.body {
            if let Some(api) = crd_api(obj, view, config, results) {
                crds.insert(obj.header.name.clone().unwrap_or_else(|| api.name.clone()), api);
            }
        }
    }
    let csvs: Vec<(&InputObject, &CsvView)> = objects
        .iter()
        .filter_map(|o| match &o.body {
            Body::Csv(v) => Some((o, v)),
            _ => None,
        })
        .collect();
    for (o, _) in &csvs {
        let version = o.header.api_version.as_deref().unwrap_or_default();
        if version != CSV_API_VERSION {
            results.push(
                Finding::warning(format!(
                    "apiVersion {version:?} is not {CSV_API_VERSION}; olm-rbac reads it as a ClusterServiceVersion by its kind, but OLM may not"
                ))
                .on(&o.object_ref())
                .at("apiVersion")
                .in_file(o.file.as_ref()),
            );
        }
    }
    let index_of = |chosen: &InputObject| objects.iter().position(|o| std::ptr::eq(o, chosen));
    let csv_names =
        || csvs.iter().map(|(o, _)| o.header.name.clone().unwrap_or_default()).collect::<Vec<_>>().join(", ");
    let chosen = match &config.cluster_service_version {
        Some(want) => match csvs.iter().find(|(o, _)| o.header.name.as_deref() == Some(want)) {
            Some(c) => Some(*c),
            None => {
                let have = if csvs.is_empty() { "none".to_string() } else { csv_names() };
                results.push(
                    Finding::error(format!("ClusterServiceVersion {want:?} is not in the input (found: {have})"))
                        .on(&cfg)
                        .at("spec.clusterServiceVersion"),
                );
                return (Vec::new(), None);
            }
        },
        None if csvs.len() > 1 => {
            results.push(
                Finding::error(format!(
                    "the input holds {} ClusterServiceVersions ({}); name the one to use",
                    csvs.len(),
                    csv_names()
                ))
                .on(&cfg)
                .at("spec.clusterServiceVersion"),
            );
            return (Vec::new(), None);
        }
        None => csvs.first().copied(),
    };

    let csv_index = chosen.and_then(|(o, _)| index_of(o));
    let mut apis: Vec<Api> = Vec::new();
    match chosen {
        None => apis.extend(crds.into_values()),
        Some((csv_obj, csv)) => {
            let csv_ref = csv_obj.object_ref();
            let file = csv_obj.file.as_ref();
            let mut by_name: BTreeMap<String, Api> = BTreeMap::new();
            for (i, entry) in csv.spec.customresourcedefinitions.owned.iter().enumerate() {
                let field = format!("spec.customresourcedefinitions.owned[{i}]");
                let Some(name) = entry.name.as_deref().filter(|n| !n.is_empty()) else {
                    results.push(Finding::error("is missing").on(&csv_ref).at(format!("{field}.name")).in_file(file));
                    continue;
                };
                let api = match crds.get(name) {
                    Some(api) => {
                        let mut api = api.clone();
                        if let Some(v) = &entry.version {
                            api.versions = vec![v.clone()];
                        }
                        api
                    }
                    None => {
                        let Some((plural, group)) =
                            name.split_once('.').filter(|(p, g)| is_dns1123_label(p) && is_dns1123_subdomain(g))
                        else {
                            results.push(
                                Finding::error(format!("{name:?} is not a CRD name of the form <plural>.<group>"))
                                    .on(&csv_ref)
                                    .at(format!("{field}.name"))
                                    .in_file(file),
                            );
                            continue;
                        };
                        if !trust::check_group(config, group, plural, &csv_ref, &format!("{field}.name"), file, results)
                        {
                            continue;
                        }
                        Api {
                            name: name.to_string(),
                            group: group.to_string(),
                            plural: plural.to_string(),
                            kind: entry.kind.clone(),
                            source: ApiSource::CsvEntry,
                            versions: entry.version.iter().cloned().collect(),
                            cluster_scoped: false,
                            origin: csv_ref.clone(),
                            field: format!("{field}.name"),
                        }
                    }
                };
                if !versions_ok(config, entry.version.as_deref(), &csv_ref, &format!("{field}.version"), file, results)
                {
                    continue;
                }
                merge_api(&mut by_name, api);
            }
            for (i, entry) in csv.spec.apiservicedefinitions.owned.iter().enumerate() {
                let field = format!("spec.apiservicedefinitions.owned[{i}]");
                let plural = entry.name.as_deref().unwrap_or_default();
                let group = entry.group.as_deref().unwrap_or_default();
                let mut bad = false;
                for (sub, value, ok) in
                    [("name", plural, is_dns1123_label(plural)), ("group", group, is_dns1123_subdomain(group))]
                {
                    if !ok {
                        bad = true;
                        let message =
                            if value.is_empty() { "is missing".to_string() } else { format!("{value:?} is not valid") };
                        results.push(Finding::error(message).on(&csv_ref).at(format!("{field}.{sub}")).in_file(file));
                    }
                }
                if bad
                    || !trust::check_group(config, group, plural, &csv_ref, &format!("{field}.group"), file, results)
                    || !versions_ok(
                        config,
                        entry.version.as_deref(),
                        &csv_ref,
                        &format!("{field}.version"),
                        file,
                        results,
                    )
                {
                    continue;
                }
                merge_api(
                    &mut by_name,
                    Api {
                        name: format!("{plural}.{group}"),
                        group: group.to_string(),
                        plural: plural.to_string(),
                        kind: entry.kind.clone(),
                        source: ApiSource::ApiService,
                        versions: entry.version.iter().cloned().collect(),
                        cluster_scoped: false,
                        origin: csv_ref.clone(),
                        field: field.clone(),
                    },
                );
            }
            apis.extend(by_name.into_values());
        }
    }
    if config.naming == Naming::OlmV0 {
        for api in &apis {
            if api.versions.is_empty() {
                results.push(
                    Finding::error(format!(
                        "API {} has no version to name its roles by (naming: OLMv0); give the CSV entry a version or the CRD a storage version",
                        api.name
                    ))
                    .on(&cfg)
                    .at("spec.naming"),
                );
            }
        }
    }
    if apis.is_empty() && !results.iter().any(|r| r.severity == Severity::Error) {
        results.push(no_apis(config, objects));
    }
    (apis, csv_index)
}

/// The bundle's package name, from the input's only ClusterServiceVersion:
/// its `operators.operatorframework.io.bundle.package.v1` annotation, or its
/// name without the version (`argocd-operator.v0.6.0` is `argocd-operator`,
/// `enmasse.0.30.2` is `enmasse`). With the object it was read from.
pub fn bundle_package(objects: &[InputObject]) -> Option<(String, ObjRef)> {
    let mut csvs = objects.iter().filter(|o| matches!(o.body, Body::Csv(_)));
    let (csv, None) = (csvs.next()?, csvs.next()) else { return None };
    let name = csv.header.name.as_deref()?;
    let package =
        csv.header.annotations.get("operators.operatorframework.io.bundle.package.v1").cloned().or_else(|| {
            let cut = name.match_indices('.').map(|(i, _)| i).find(|&i| {
                let rest = name[i + 1..].strip_prefix('v').unwrap_or(&name[i + 1..]);
                rest.starts_with(|c: char| c.is_ascii_digit())
            });
            cut.map(|i| name[..i].to_string())
        })?;
    is_label_value(&package).then(|| (package, csv.object_ref()))
}

/// An input with no API to manage: a pipeline that syncs nothing should not
/// look like success. An error in Aggregate and Bind mode (unless the config
/// expects it), a warning in Unmanaged mode; either way it says what was found.
fn no_apis(config: &Config, objects: &[InputObject]) -> Finding {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for o in objects {
        *kinds.entry(o.header.kind.as_deref().unwrap_or("(no kind)")).or_default() += 1;
    }
    let found = if kinds.is_empty() {
        "the input is empty".to_string()
    } else {
        let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        format!("found {}", list.join(", "))
    };
    let message = format!(
        "the input holds no API to grant access to ({found}): no ClusterServiceVersion with owned APIs and no CustomResourceDefinition. Check that the bundle's manifests/ folder is among the inputs, that helm template renders the CRDs (Helm passes crds/ to no post-renderer), and spec.apis"
    );
    let cfg = config.object_ref();
    match config.mode {
        Mode::Unmanaged => Finding::warning(message).on(&cfg),
        _ if config.allow_no_apis => Finding::info(message).on(&cfg),
        _ => Finding::error(format!("{message}; set spec.allowNoAPIs: true if nothing to do is expected")).on(&cfg),
    }
}

/// The folder an object's file is in, when the runner says (stdin, `-`, says nothing).
fn source_folder(o: &InputObject) -> Option<String> {
    let f = o.file.as_ref().filter(|f| f.path != "-")?;
    Some(f.path.rsplit_once('/').map_or("", |(dir, _)| dir).to_string())
}

/// The folders that hold the input's ClusterServiceVersions: what is in them,
/// or below them, is a bundle's. Files named one by one in the working
/// directory (folder `""`) cannot be told apart, so that folder is none.
fn bundle_folders(objects: &[InputObject]) -> Vec<String> {
    let mut folders: Vec<String> = objects
        .iter()
        .filter(|o| matches!(o.body, Body::Csv(_)))
        .filter_map(source_folder)
        .filter(|f| !f.is_empty())
        .collect();
    folders.sort();
    folders.dedup();
    folders
}

/// Is the object's file in one of `folders`, or below one?
fn in_bundle(o: &InputObject, folders: &[String]) -> bool {
    source_folder(o).is_some_and(|f| folders.iter().any(|b| f == *b || f.starts_with(&format!("{b}/"))))
}

/// The bundle's own objects, for `bundleObjects: Drop`: the CSV, the CRDs, and
/// whatever else came from the CSV's folder (when the runner says which file
/// each item came from), except kinds that never belong to a bundle.
fn bundle_members(csv: Option<usize>, objects: &[InputObject], claims: &[Option<String>]) -> BTreeSet<usize> {
    let folder = source_folder;
    let csv_folder = csv.and_then(|i| folder(&objects[i]));
    let never_bundled = |i: usize, o: &InputObject| {
        let group = o.header.api_version.as_deref().and_then(|v| v.rsplit_once('/')).map_or("", |(g, _)| g);
        matches!(
            group,
            "olm.operatorframework.io" | "olm-rbac.io" | "kpt.dev" | "kustomize.config.k8s.io" | "config.kubernetes.io"
        ) || o.is("", "Namespace")
            || claims[i].is_some()
    };
    objects
        .iter()
        .enumerate()
        .filter(|(i, o)| {
            Some(*i) == csv
                || matches!(o.body, Body::Crd(_))
                || (csv_folder.is_some() && folder(o) == csv_folder && !never_bundled(*i, o))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Under `naming: OLMv0` a version becomes part of role names: it must be a
/// Kubernetes version name (a DNS-1035 label such as `v1beta2`).
fn versions_ok(
    config: &Config,
    version: Option<&str>,
    object: &ObjRef,
    field: &str,
    file: Option<&FileRef>,
    results: &mut Vec<Finding>,
) -> bool {
    match version {
        Some(v) if config.naming == Naming::OlmV0 && !is_dns1035_label(v) => {
            results.push(
                Finding::error(format!(
                    "version {v:?} is not a valid API version name (lowercase letters, digits and '-', starting with a letter), and naming: OLMv0 puts it into role names"
                ))
                .on(object)
                .at(field)
                .in_file(file),
            );
            false
        }
        _ => true,
    }
}

/// Two CSV entries for one API (one per served version): one API, both versions.
fn merge_api(by_name: &mut BTreeMap<String, Api>, api: Api) {
    match by_name.get_mut(&api.name) {
        Some(existing) => {
            for v in api.versions {
                if !existing.versions.contains(&v) {
                    existing.versions.push(v);
                }
            }
        }
        None => {
            by_name.insert(api.name.clone(), api);
        }
    }
}

/// Reads an API from a CRD, reporting every missing or invalid field.
fn crd_api(obj: &InputObject, view: &CrdView, config: &Config, results: &mut Vec<Finding>) -> Option<Api> {
    let obj_ref = obj.object_ref();
    let file = obj.file.as_ref();
    let mut fail = |field: &str, message: String| {
        results.push(Finding::error(message).on(&obj_ref).at(field).in_file(file));
    };
    let spec = &view.spec;
    let group = spec.group.as_deref().unwrap_or_default();
    let plural = spec.names.plural.as_deref().unwrap_or_default();
    let mut ok = true;
    if obj.header.name.as_deref().unwrap_or_default().is_empty() {
        fail("metadata.name", "is missing".into());
        ok = false;
    }
    if group.is_empty() {
        fail("spec.group", "is missing: a CRD needs an API group".into());
        ok = false;
    } else if !is_dns1123_subdomain(group) {
        fail("spec.group", format!("{group:?} is not a valid API group (a DNS subdomain)"));
        ok = false;
    }
    if plural.is_empty() {
        fail("spec.names.plural", "is missing: RBAC rules name the plural resource".into());
        ok = false;
    } else if !is_dns1123_label(plural) {
        fail(
            "spec.names.plural",
            format!("{plural:?} is not a valid resource name (lowercase letters, digits and '-')"),
        );
        ok = false;
    }
    if !ok {
        return None;
    }
    let name = format!("{plural}.{group}");
    if obj.header.name.as_deref() != Some(name.as_str()) {
        results.push(
            Finding::error(format!(
                "must be {name:?} (<spec.names.plural>.<spec.group>), as the API server requires; olm-rbac does not guess which of the two the CRD means"
            ))
            .on(&obj_ref)
            .at("metadata.name")
            .in_file(file),
        );
        return None;
    }
    if !trust::check_group(config, group, plural, &obj_ref, "spec.group", file, results) {
        return None;
    }
    let storage = spec
        .versions
        .iter()
        .find(|v| v.storage)
        .or_else(|| if spec.versions.len() == 1 { spec.versions.first() } else { None })
        .and_then(|v| v.name.clone())
        .or_else(|| spec.version.clone());
    let naming = config.naming;
    if !versions_ok(config, storage.as_deref(), &obj_ref, "spec.versions", file, results) {
        return None;
    }
    if storage.is_none() && naming == Naming::OlmV0 {
        results.push(
            Finding::error("names no storage version, which naming: OLMv0 needs without a CSV entry".to_string())
                .on(&obj_ref)
                .at("spec.versions")
                .in_file(file),
        );
    }
    Some(Api {
        name,
        group: group.to_string(),
        plural: plural.to_string(),
        kind: spec.names.kind.clone(),
        source: ApiSource::Crd,
        versions: storage.into_iter().collect(),
        cluster_scoped: spec.scope.as_deref() == Some("Cluster"),
        origin: obj_ref,
        field: "spec.group".into(),
    })
}

/// Applies `spec.apis`: include (all when empty), then exclude. A pattern that
/// matches nothing is a warning: it is probably a typo.
pub fn select(config: &Config, apis: Vec<Api>, results: &mut Vec<Finding>) -> Vec<Api> {
    let cfg = config.object_ref();
    let mut used = vec![false; config.include.len() + config.exclude.len()];
    let n_inc = config.include.len();
    let selected: Vec<Api> = apis
        .into_iter()
        .filter(|api| {
            let mut included = config.include.is_empty();
            for (i, p) in config.include.iter().enumerate() {
                if glob_match(p, &api.name) {
                    used[i] = true;
                    included = true;
                }
            }
            let mut excluded = false;
            for (i, p) in config.exclude.iter().enumerate() {
                if glob_match(p, &api.name) {
                    used[n_inc + i] = true;
                    excluded = true;
                }
            }
            included && !excluded
        })
        .collect();
    for (i, p) in config.include.iter().chain(&config.exclude).enumerate() {
        if !used[i] {
            let field =
                if i < n_inc { format!("spec.apis.include[{i}]") } else { format!("spec.apis.exclude[{}]", i - n_inc) };
            // An include that matches nothing leaves out what the admin asked for: a typo.
            let message = format!("pattern {p:?} matches no API in the input");
            let finding = if i < n_inc { Finding::error(message) } else { Finding::warning(message) };
            results.push(finding.on(&cfg).at(field));
        }
    }
    selected
}

/// The ClusterRoles for one API, each with the version it is named for.
pub fn cluster_roles(config: &Config, api: &Api) -> Vec<(Option<String>, RoleKind, ClusterRole)> {
    let mut out = Vec::new();
    for version in versions_for(config, api) {
        for &role in &config.roles {
            if role == RoleKind::CrdView && api.source != ApiSource::Crd {
                continue;
            }
            let name = role_name(config.naming, api, version, role);
            out.push((version.map(String::from), role, build_role(config, api, role, name)));
        }
    }
    out
}

/// A role's name in two parts, so that bindings can prefix the first:
/// `(<api>, -admin)` or, under OLMv0, `(<name>-<version>, -admin)`, where
/// `<name>` is the owned entry's name as OLM v0 used it: `<plural>.<group>`
/// for a CRD, the bare plural for an APIService.
pub fn name_parts(naming: Naming, api: &Api, version: Option<&str>, role: RoleKind) -> (String, String) {
    match (naming, version) {
        (Naming::OlmV0, Some(v)) => {
            let suffix = if role == RoleKind::CrdView { "crdview" } else { role.as_str() };
            let name = if api.source == ApiSource::ApiService { &api.plural } else { &api.name };
            (format!("{name}-{v}"), format!("-{suffix}"))
        }
        _ => (api.name.clone(), format!("-{}", role.as_str())),
    }
}

/// `<plural>.<group>-admin` (Default) or, as OLM v0 named them,
/// `<plural>.<group>-<version>-admin` (an APIService: `<plural>-<version>-admin`).
pub fn role_name(naming: Naming, api: &Api, version: Option<&str>, role: RoleKind) -> String {
    let (base, suffix) = name_parts(naming, api, version, role);
    bounded_name(&base, &suffix)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The rule a role grants, as OLM v0 wrote it: no subresources, no
/// `deletecollection` outside `*`.
pub fn rule_for(api: &Api, role: RoleKind) -> PolicyRule {
    rule_for_parts(&api.name, &api.group, &api.plural, role)
}

/// [`rule_for`] from the API's parts: `name` is `<plural>.<group>`.
pub fn rule_for_parts(name: &str, group: &str, plural: &str, role: RoleKind) -> PolicyRule {
    let verbs: &[&str] = match role {
        RoleKind::Admin => &["*"],
        RoleKind::Edit => &["create", "update", "patch", "delete"],
        RoleKind::View => &["get", "list", "watch"],
        RoleKind::CrdView => {
            return PolicyRule {
                api_groups: Some(strings(&["apiextensions.k8s.io"])),
                resources: Some(strings(&["customresourcedefinitions"])),
                resource_names: Some(vec![name.to_string()]),
                verbs: strings(&["get"]),
                ..Default::default()
            }
        }
    };
    PolicyRule {
        api_groups: Some(vec![group.to_string()]),
        resources: Some(vec![plural.to_string()]),
        verbs: strings(verbs),
        ..Default::default()
    }
}

/// Verbs that read, and verbs that write: a level's verbs are made of these.
pub const READ: [&str; 3] = ["get", "list", "watch"];
pub const WRITE: [&str; 5] = ["create", "update", "patch", "delete", "deletecollection"];

/// Everything a role level may grant on an API: the yardstick a bundle role is
/// measured against before olm-rbac adopts it or puts back its labels. `view`
/// reads, `edit` also writes, `admin` may do anything, each on the resource and,
/// for a CRD, on the only subresources a CRD can have (`status`, `scale`);
/// `view-crdview` reads the API's CustomResourceDefinition object.
pub fn ceiling(api: &Api, level: RoleKind) -> Vec<PolicyRule> {
    let verbs: Vec<&str> = match level {
        RoleKind::Admin => vec!["*"],
        RoleKind::Edit => READ.iter().chain(&WRITE).copied().collect(),
        RoleKind::View => READ.to_vec(),
        RoleKind::CrdView => {
            let mut rule = rule_for(api, level);
            rule.verbs = strings(&READ);
            return vec![rule];
        }
    };
    let mut resources = vec![api.plural.clone()];
    if api.source == ApiSource::Crd {
        resources.extend(["status", "scale"].map(|sub| format!("{}/{sub}", api.plural)));
    }
    vec![PolicyRule {
        api_groups: Some(vec![api.group.clone()]),
        resources: Some(resources),
        verbs: strings(&verbs),
        ..Default::default()
    }]
}

/// Labels and annotations every generated object carries.
fn metadata(config: &Config, api: &str, role: RoleKind) -> ObjectMeta {
    let labels = BTreeMap::from([
        (MANAGED_BY.to_string(), MANAGER.to_string()),
        (EXTENSION_LABEL.to_string(), config.extension.clone()),
        (ROLE_LABEL.to_string(), role.as_str().to_string()),
    ]);
    let annotations = BTreeMap::from([
        (API_ANNOTATION.to_string(), api.to_string()),
        (MODE_ANNOTATION.to_string(), config.mode.as_str().to_string()),
    ]);
    ObjectMeta { labels: Some(labels), annotations: Some(annotations), ..Default::default() }
}

fn build_role(config: &Config, api: &Api, role: RoleKind, name: String) -> ClusterRole {
    let mut metadata = metadata(config, &api.name, role);
    metadata.name = Some(name);
    if config.mode == Mode::Aggregate {
        if let Some(labels) = metadata.labels.as_mut() {
            labels.insert(format!("{AGGREGATE_PREFIX}{}", role.aggregates_to()), "true".into());
        }
    }
    ClusterRole { metadata, rules: Some(vec![rule_for(api, role)]), aggregation_rule: None }
}

/// Refuses to write an object whose kind and name another input item already
/// has: a hand-written role, or one another extension generated.
fn check_conflicts(objects: &[InputObject], plan: &mut Plan) {
    let scopes = trust::crd_scopes(objects);
    let mut taken: BTreeMap<(String, String, Option<String>, String), &InputObject> = BTreeMap::new();
    for (i, o) in objects.iter().enumerate() {
        if plan.remove.contains(&i) {
            continue;
        }
        taken.insert(trust::identity(o, &scopes), o);
    }
    let mut conflicts = Vec::new();
    for g in &plan.generated {
        let r = g.object.object_ref();
        let key = ("rbac.authorization.k8s.io".to_string(), r.kind.clone(), r.namespace.clone(), r.name.clone());
        if let Some(existing) = taken.get(&key) {
            let owner = match existing.header.labels.get(EXTENSION_LABEL) {
                Some(ext) if existing.header.labels.get(MANAGED_BY).map(String::as_str) == Some(MANAGER) => {
                    format!("it was generated for extension {ext:?}")
                }
                _ => "it was not generated by olm-rbac".to_string(),
            };
            conflicts.push(
                Finding::error(format!(
                    "conflict: olm-rbac would generate {} for API {}, but the input already has an object of that kind and name ({owner}); nothing was overwritten. Rename or remove it, or leave the API out with spec.apis.exclude",
                    describe_generated(&g.object),
                    g.object.metadata().annotations.as_ref().and_then(|a| a.get(API_ANNOTATION)).map_or("?", String::as_str)
                ))
                .on(&existing.object_ref())
                .in_file(existing.file.as_ref()),
            );
        }
    }
    // Two configs generating the same object (both selected one API).
    let mut generated: BTreeMap<(String, Option<String>, String), &Generated> = BTreeMap::new();
    for g in &plan.generated {
        let r = g.object.object_ref();
        if let Some(first) = generated.insert((r.kind.clone(), r.namespace.clone(), r.name.clone()), g) {
            let ext = |g: &Generated| {
                g.object.metadata().labels.as_ref().and_then(|l| l.get(EXTENSION_LABEL)).cloned().unwrap_or_default()
            };
            conflicts.push(
                Finding::error(format!(
                    "conflict: extensions {:?} and {:?} would both generate {}; select each API in one config only (spec.apis)",
                    ext(first),
                    ext(g),
                    describe_generated(&g.object)
                ))
                .on(&r),
            );
        }
    }
    plan.results.extend(conflicts);
}

#[cfg(test)]
mod tests;
