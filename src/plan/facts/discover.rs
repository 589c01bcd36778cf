//! API discovery: the APIs the input defines (its CRDs, and the owned entries
//! of the chosen ClusterServiceVersion), each checked field by field, and the
//! config's choice among them.

use std::collections::BTreeMap;

use crate::config::{Config, Mode, Naming};
use crate::findings::{Code, FileRef, Finding, ObjRef, Severity};
use crate::model::*;
use crate::names::{
    glob_match, is_crd_group, is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, is_label_value,
};

use crate::plan::facts::trust::{self, Takes};
use crate::plan::types::{Api, ApiSource};

/// The apiVersion of a ClusterServiceVersion as OLM defines it.
const CSV_API_VERSION: &str = "operators.coreos.com/v1alpha1";

/// Finds the APIs of the config's ClusterServiceVersion, or of every CRD when
/// the input has no CSV; with the index of the chosen CSV among the objects.
pub(crate) fn discover(
    config: &Config,
    objects: &[InputObject],
    results: &mut Vec<Finding>,
) -> (Vec<Api>, Option<usize>) {
    // Every CRD is checked, used or not: a broken CRD fails on the cluster too.
    let crds = crd_apis(config, objects, results);
    let csvs = csvs(objects, results);
    let Ok(chosen) = choose_csv(config, &csvs, results) else { return (Vec::new(), None) };
    let csv_index = chosen.and_then(|(chosen, _)| objects.iter().position(|o| std::ptr::eq(o, chosen)));
    let apis: Vec<Api> = match chosen {
        None => crds.into_values().collect(),
        Some((csv_obj, csv)) => owned_apis(config, csv_obj, csv, &crds, results),
    };
    if config.naming == Naming::OlmV0 {
        for api in &apis {
            if api.versions.is_empty() {
                results.push(
                    Finding::error(Code::NamingVersion, format!(
                        "API {} has no version to name its roles by (naming: OLMv0); give the CSV entry a version or the CRD a storage version",
                        api.name
                    ))
                    .on(&config.object_ref())
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

/// The API of every valid CRD in the input, by the CRD's name.
fn crd_apis(config: &Config, objects: &[InputObject], results: &mut Vec<Finding>) -> BTreeMap<String, Api> {
    let mut crds: BTreeMap<String, Api> = BTreeMap::new();
    for obj in objects {
        if let Body::Crd(view) = &obj.body {
            if let Some(api) = crd_api(obj, view, config, results) {
                crds.insert(obj.header.name.clone().unwrap_or_else(|| api.name.clone()), api);
            }
        }
    }
    crds
}

/// The input's ClusterServiceVersions, recognised by kind; a warning for each
/// whose apiVersion OLM would not read.
fn csvs<'a>(objects: &'a [InputObject], results: &mut Vec<Finding>) -> Vec<(&'a InputObject, &'a CsvView)> {
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
                Finding::warning(Code::ApiVersionInvalid, format!(
                    "apiVersion {version:?} is not {CSV_API_VERSION}; olm-rbac reads it as a ClusterServiceVersion by its kind, but OLM may not"
                ))
                .on(&o.object_ref())
                .at("apiVersion")
                .in_file(o.file.as_ref()),
            );
        }
    }
    csvs
}

/// The CSV whose owned APIs get roles: the one `spec.clusterServiceVersion`
/// names, or the only one; `Ok(None)` without any. `Err` (reported) when the
/// named one is missing or several leave the choice open.
fn choose_csv<'a>(
    config: &Config,
    csvs: &[(&'a InputObject, &'a CsvView)],
    results: &mut Vec<Finding>,
) -> Result<Option<(&'a InputObject, &'a CsvView)>, ()> {
    let cfg = config.object_ref();
    let csv_names =
        || csvs.iter().map(|(o, _)| o.header.name.clone().unwrap_or_default()).collect::<Vec<_>>().join(", ");
    match &config.cluster_service_version {
        Some(want) => match csvs.iter().find(|(o, _)| o.header.name.as_deref() == Some(want)) {
            Some(c) => Ok(Some(*c)),
            None => {
                let have = if csvs.is_empty() { "none".to_string() } else { csv_names() };
                results.push(
                    Finding::error(
                        Code::CsvMissing,
                        format!("ClusterServiceVersion {want:?} is not in the input (found: {have})"),
                    )
                    .on(&cfg)
                    .at("spec.clusterServiceVersion"),
                );
                Err(())
            }
        },
        None if csvs.len() > 1 => {
            results.push(
                Finding::error(
                    Code::CsvAmbiguous,
                    format!(
                        "the input holds {} ClusterServiceVersions ({}); name the one to use",
                        csvs.len(),
                        csv_names()
                    ),
                )
                .on(&cfg)
                .at("spec.clusterServiceVersion"),
            );
            Err(())
        }
        None => Ok(csvs.first().copied()),
    }
}

/// The APIs a CSV owns: its CRD entries, then its APIServices, each entry
/// checked; the entries of one API (one per served version) make one API.
fn owned_apis(
    config: &Config,
    csv_obj: &InputObject,
    csv: &CsvView,
    crds: &BTreeMap<String, Api>,
    results: &mut Vec<Finding>,
) -> Vec<Api> {
    let mut by_name: BTreeMap<String, Api> = BTreeMap::new();
    for (i, entry) in csv.spec.customresourcedefinitions.owned.iter().enumerate() {
        if let Some(api) = owned_crd(config, csv_obj, i, entry, crds, results) {
            merge_api(&mut by_name, api);
        }
    }
    for (i, entry) in csv.spec.apiservicedefinitions.owned.iter().enumerate() {
        if let Some(api) = owned_api_service(config, csv_obj, i, entry, results) {
            merge_api(&mut by_name, api);
        }
    }
    by_name.into_values().collect()
}

/// The API of owned CRD entry `i`: the CRD's, at the entry's version, when
/// the input has the CRD; otherwise what the entry's name says.
fn owned_crd(
    config: &Config,
    csv_obj: &InputObject,
    i: usize,
    entry: &OwnedCrd,
    crds: &BTreeMap<String, Api>,
    results: &mut Vec<Finding>,
) -> Option<Api> {
    let csv_ref = csv_obj.object_ref();
    let file = csv_obj.file.as_ref();
    let field = format!("spec.customresourcedefinitions.owned[{i}]");
    let Some(name) = entry.name.as_deref().filter(|n| !n.is_empty()) else {
        results.push(
            Finding::error(Code::CsvInvalid, "is missing").on(&csv_ref).at(format!("{field}.name")).in_file(file),
        );
        return None;
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
                    Finding::error(
                        Code::CsvInvalid,
                        format!("{name:?} is not a CRD name of the form <plural>.<group>"),
                    )
                    .on(&csv_ref)
                    .at(format!("{field}.name"))
                    .in_file(file),
                );
                return None;
            };
            let takes = Takes::Resource(plural);
            if !trust::check_group(config, group, takes, &csv_ref, &format!("{field}.name"), file, results) {
                return None;
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
    versions_ok(config, entry.version.as_deref(), &csv_ref, &format!("{field}.version"), file, results).then_some(api)
}

/// The API of owned APIService entry `i`, every field checked.
fn owned_api_service(
    config: &Config,
    csv_obj: &InputObject,
    i: usize,
    entry: &OwnedApiService,
    results: &mut Vec<Finding>,
) -> Option<Api> {
    let csv_ref = csv_obj.object_ref();
    let file = csv_obj.file.as_ref();
    let field = format!("spec.apiservicedefinitions.owned[{i}]");
    let plural = entry.name.as_deref().unwrap_or_default();
    let group = entry.group.as_deref().unwrap_or_default();
    let mut bad = false;
    for (sub, value, ok) in [("name", plural, is_dns1123_label(plural)), ("group", group, is_dns1123_subdomain(group))]
    {
        if !ok {
            bad = true;
            let message = if value.is_empty() { "is missing".to_string() } else { format!("{value:?} is not valid") };
            results.push(
                Finding::error(Code::CsvInvalid, message).on(&csv_ref).at(format!("{field}.{sub}")).in_file(file),
            );
        }
    }
    if bad
        || !trust::check_group(config, group, Takes::Group, &csv_ref, &format!("{field}.group"), file, results)
        || !versions_ok(config, entry.version.as_deref(), &csv_ref, &format!("{field}.version"), file, results)
    {
        return None;
    }
    Some(Api {
        name: format!("{plural}.{group}"),
        group: group.to_string(),
        plural: plural.to_string(),
        kind: entry.kind.clone(),
        source: ApiSource::ApiService,
        versions: entry.version.iter().cloned().collect(),
        cluster_scoped: false,
        origin: csv_ref,
        field,
    })
}

/// The bundle's package name, from the input's only ClusterServiceVersion:
/// its `operators.operatorframework.io.bundle.package.v1` annotation, or its
/// name without the version (`argocd-operator.v0.6.0` is `argocd-operator`,
/// `enmasse.0.30.2` is `enmasse`). With the object it was read from.
pub(crate) fn bundle_package(objects: &[InputObject]) -> Option<(String, ObjRef)> {
    let mut csvs = objects.iter().filter(|o| matches!(o.body, Body::Csv(_)));
    let (csv, None) = (csvs.next()?, csvs.next()) else { return None };
    package_of_csv(csv).map(|(package, _)| (package, csv.object_ref()))
}

/// A CSV's package, and whether the CSV declares it (its package annotation)
/// or its name only suggests it (`<package>.v<version>`).
pub(crate) fn package_of_csv(csv: &InputObject) -> Option<(String, bool)> {
    let declared = csv.header.annotations.get(BUNDLE_PACKAGE_ANNOTATION).cloned().map(|p| (p, true));
    let package = declared.or_else(|| {
        let name = csv.header.name.as_deref()?;
        let cut = name.match_indices('.').map(|(i, _)| i).find(|&i| {
            let rest = name[i + 1..].strip_prefix('v').unwrap_or(&name[i + 1..]);
            rest.starts_with(|c: char| c.is_ascii_digit())
        });
        cut.map(|i| (name[..i].to_string(), false))
    })?;
    is_label_value(&package.0).then_some(package)
}

/// An input with no API to manage: a pipeline that syncs nothing should not
/// look like success. An error in Aggregate and Bind mode (unless the config
/// expects it), a warning in Unmanaged mode; either way it says what was found,
/// leaving out what olm-rbac wrote on an earlier run (by its label: this is
/// only a count), so that a run on its own output says the same.
fn no_apis(config: &Config, objects: &[InputObject]) -> Finding {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let written_by_us = |o: &&InputObject| o.header.labels.get(MANAGED_BY).map(String::as_str) == Some(MANAGER);
    for o in objects.iter().filter(|o| !written_by_us(o)) {
        *kinds.entry(o.header.kind.as_deref().unwrap_or("(no kind)")).or_default() += 1;
    }
    let found = if kinds.is_empty() && !objects.is_empty() {
        "it holds only objects olm-rbac generated on an earlier run".to_string()
    } else if kinds.is_empty() {
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
        Mode::Unmanaged => Finding::warning(Code::NoApis, message).on(&cfg),
        _ if config.allow_no_apis => Finding::info(Code::NoApis, message).on(&cfg),
        _ => {
            Finding::error(Code::NoApis, format!("{message}; set spec.allowNoAPIs: true if nothing to do is expected"))
                .on(&cfg)
        }
    }
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
                Finding::error(Code::NamingVersion, format!(
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
        results.push(Finding::error(Code::CrdInvalid, message).on(&obj_ref).at(field).in_file(file));
    };
    let spec = &view.spec;
    let group = spec.group.as_deref().unwrap_or_default();
    let plural = spec.names.plural.as_deref().unwrap_or_default();
    // The scope as the API server reads it, defaults included (`CrdView::scope`).
    let scope = view.scope().map_err(|why| fail("spec.scope", why));
    if !fields_ok(obj.header.name.as_deref().unwrap_or_default(), group, plural, &mut fail) || scope.is_err() {
        return None;
    }
    let name = format!("{plural}.{group}");
    if obj.header.name.as_deref() != Some(name.as_str()) {
        results.push(
            Finding::error(Code::CrdInvalid, format!(
                "must be {name:?} (<spec.names.plural>.<spec.group>), as the API server requires; olm-rbac does not guess which of the two the CRD means"
            ))
            .on(&obj_ref)
            .at("metadata.name")
            .in_file(file),
        );
        return None;
    }
    if !trust::check_group(config, group, Takes::Resource(plural), &obj_ref, "spec.group", file, results) {
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
        let message = "names no storage version, which naming: OLMv0 needs without a CSV entry";
        results.push(Finding::error(Code::NamingVersion, message).on(&obj_ref).at("spec.versions").in_file(file));
    }
    Some(Api {
        name,
        group: group.to_string(),
        plural: plural.to_string(),
        kind: spec.names.kind.clone(),
        source: ApiSource::Crd,
        versions: storage.into_iter().collect(),
        cluster_scoped: scope == Ok(CrdScope::Cluster),
        origin: obj_ref,
        field: "spec.group".into(),
    })
}

/// The fields that name a CRD's resource, each said where it is wrong.
fn fields_ok(name: &str, group: &str, plural: &str, fail: &mut impl FnMut(&str, String)) -> bool {
    let mut ok = true;
    if name.is_empty() {
        fail("metadata.name", "is missing".into());
        ok = false;
    }
    if group.is_empty() {
        fail("spec.group", "is missing: a CRD needs an API group".into());
        ok = false;
    } else if !is_crd_group(group) {
        fail("spec.group", format!("{group:?} is not a CRD's API group (a DNS subdomain with a dot)"));
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
    ok
}

/// Applies `spec.apis`: include (all when empty), then exclude. A pattern that
/// matches nothing is a warning: it is probably a typo.
pub(crate) fn select(config: &Config, apis: Vec<Api>, results: &mut Vec<Finding>) -> Vec<Api> {
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
            let finding = if i < n_inc {
                Finding::error(Code::SelectorUnmatched, message)
            } else {
                Finding::warning(Code::SelectorUnmatched, message)
            };
            results.push(finding.on(&cfg).at(field));
        }
    }
    selected
}
