//! The planner's steps for one config: remove its earlier output, find and
//! select the APIs (the config's `Planning`), drop or adopt the bundle's
//! objects, generate the roles (and in Bind mode the bindings), summarise,
//! then the operator's step (the install gate, the operator's RBAC, the
//! installer account), and annotate the extension's `ClusterExtension`.

use std::collections::{BTreeMap, BTreeSet};

use crate::config::{BundleObjects, Config, Mode, RoleKind};
use crate::findings::{Code, Finding, ObjRef, Severity};
use crate::model::*;

use crate::plan::apis::bundle::Provided;
use crate::plan::apis::roles::{cluster_roles, versions_for};
use crate::plan::facts::input::{Input, OperatorInput, Planning};
use crate::plan::facts::keep::Kept;
use crate::plan::facts::origin::{extension_object, Origin, Origins};
use crate::plan::facts::provenance::Claims;
use crate::plan::guard::pinning::PackageSource;
use crate::plan::names::api_role as role_name;
use crate::plan::types::{output_order, About, Api, ApiSource, Draft, Generated, Made, Object};
use crate::plan::{
    apis::bind, apis::bundle, apis::olm_apis, gate, guard::contradiction, guard::delegation, guard::pinning, installer,
    operator::permissions,
};

/// Plans one config into `plan`. The steps run in this order, and their
/// results come out in it.
pub(super) fn plan_one(config: &Config, input: &Input<'_>, claims: &Claims, plan: &mut Draft) {
    let earlier = earlier_output(config, input.objects, &claims.of);
    plan.remove.extend(earlier.iter().copied());
    let p = Planning::new(config, input, claims, &mut plan.results);
    check_package(&p, &mut plan.results);
    plan.shipped.extend(p.installed_members().iter().copied());
    let provided = bundle_objects(&p, plan);
    bundle::note_namespaced_roles(&p, &mut plan.results);
    let mut generated = match config.mode {
        Mode::Unmanaged => Vec::new(),
        Mode::Aggregate | Mode::Bind => generate(&p, &provided, &mut plan.results),
    };
    let summary = summarise(&p, &provided, &generated, &mut plan.results);
    generated.sort_by_cached_key(output_order);
    generated.extend(operator_step(&p, &mut plan.results, &mut plan.granted_by_olm));
    let (pinned, pin) = pinning::pin_step(&p, &mut plan.results);
    generated.extend(pinned);
    let (delegated, grants) = delegation::delegation_step(&p, &mut plan.results);
    generated.extend(delegated);
    if let Some(pin) = &pin {
        contradiction::warn(&p, pin, &grants, &mut plan.results);
    }
    report_removed(&p, &earlier, &generated, &mut plan.results);
    plan.generated.extend(generated.into_iter().map(|(about, object)| Generated {
        object,
        about,
        output_path: config.output_path.clone(),
    }));
    annotate_extension(&p, &summary, plan);
}

/// `spec.package`: a config written for one package judges no other. Each
/// place that names the judged bundle's package must name it
/// ([`pinning::package_claims`]), and so must the admin's ClusterExtension;
/// a package only the CSV's name suggests is an error under an install
/// policy, else a warning.
fn check_package(p: &Planning<'_>, results: &mut Vec<Finding>) {
    let Some(wanted) = &p.config.package else { return };
    let mut named: Vec<(String, &str)> =
        pinning::package_claims(p).into_iter().map(|(package, source)| (package, source.said())).collect();
    let extension = p.admin_extension().and_then(|(_, _, v)| v.spec.source.catalog.as_ref()?.package_name.clone());
    named.extend(extension.map(|n| (n, "the admin's ClusterExtension (spec.source.catalog.packageName)")));
    // The CSV's name is a guess: it counts only where nothing declares the package.
    let guessed = PackageSource::CsvName.said();
    let only_guessed = named.iter().all(|(_, whose)| *whose == guessed);
    if !only_guessed {
        named.retain(|(_, whose)| *whose != guessed);
    }
    let severity = if only_guessed && p.config.operator.policy.is_none() { Severity::Warning } else { Severity::Error };
    for (package, whose) in named.into_iter().filter(|(package, _)| package != wanted) {
        let message = format!(
            "names package {wanted:?}, but {whose} names package {package:?}: this config judges no other package"
        );
        let finding = Finding { severity, ..Finding::error(Code::ConfigInvalid, message) };
        results.push(finding.on(&p.config.object_ref()).at("spec.package"));
    }
}

/// The operator's own permissions (`spec.operator`): its RBAC, when the config
/// manages it, the install policy, and the installer account
/// (`spec.installer`). Without either nothing is read.
fn operator_step(p: &Planning<'_>, results: &mut Vec<Finding>, granted_by_olm: &mut Vec<Made>) -> Vec<Made> {
    if !p.config.judges_operator_grants() {
        // Nothing is judged, but the cluster still holds what OLM v1 grants
        // the operator: the access checks with -c, diff -c and the catalog's
        // gains answer over it. What reading it found is not said: it is not
        // judged.
        let mut unjudged = Vec::new();
        granted_by_olm.extend(permissions::as_olm_v1_grants(&OperatorInput::new(p, &mut unjudged)));
        return Vec::new();
    }
    let operator = OperatorInput::new(p, results);
    granted_by_olm.extend(gate::check_policy(&operator, results));
    granted_by_olm.extend(permissions::as_olm_v1_grants(&operator));
    let mut written = permissions::plan_operator(&operator, results);
    written.extend(installer::plan_installer(&operator, results));
    written
}

/// Remove: the items this extension generated earlier (as far as their claim
/// holds) are replaced on every run; but for the installer account `Check`
/// measures, which is the account as it stands.
fn earlier_output(config: &Config, objects: &[InputObject], claims: &[Option<String>]) -> BTreeSet<usize> {
    (0..claims.len())
        .filter(|&i| claims[i].as_deref() == Some(config.extension.as_str()))
        .filter(|&i| !installer::is_checked_account(config, &objects[i]))
        .collect()
}

/// Who puts the bundle's own objects on the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Installs {
    /// Whoever applies this output: the bundle's objects are in it, changes included.
    ThisOutput,
    /// OLM, from its catalog, as the bundle has them: `bundleObjects: Drop` ...
    OlmDropped,
    /// ... or the extension's `ClusterExtension` is in the input (OLM v1
    /// installs what it names), while the bundle's files stay as input.
    OlmExtension,
}

/// Only a ClusterExtension from a known file of the admin's says OLM installs
/// the bundle: on stdin the bundle could have written it.
fn installer_of_bundle(config: &Config, objects: &[InputObject], origins: &Origins) -> Installs {
    match (
        config.bundle_objects,
        extension_object(&config.extension, objects, origins).filter(|&i| origins.is_admin(i)),
    ) {
        (BundleObjects::Drop, _) => Installs::OlmDropped,
        (BundleObjects::Keep, Some(_)) => Installs::OlmExtension,
        (BundleObjects::Keep, None) => Installs::ThisOutput,
    }
}

/// Drop and adopt: the bundle objects left out of the output
/// (`bundleObjects: Drop`), the bundle roles that serve an API's role instead
/// of a generated one, and the label changes on the bundle's roles. Returns
/// the adopted roles.
fn bundle_objects(p: &Planning<'_>, plan: &mut Draft) -> Provided {
    let config = p.config;
    let installs = installer_of_bundle(config, p.objects(), p.origins());
    let members = match installs {
        Installs::ThisOutput => BTreeSet::new(),
        Installs::OlmDropped | Installs::OlmExtension => p.bundle_members().clone(),
    };
    // When OLM installs the bundle, its roles reach the cluster unchanged: Bind
    // can bind them, but Aggregate cannot label them, so it generates its own.
    let adopt = match config.mode {
        Mode::Unmanaged => false,
        Mode::Aggregate => installs == Installs::ThisOutput,
        Mode::Bind => true,
    };
    let provided = if adopt { bundle::adopt(p, &mut plan.results) } else { Default::default() };
    let mut patches = bundle::label_patches(p, &provided, &mut plan.results);
    let wanted = patches.len();
    patches.retain(|i, _| !members.contains(i));
    let unreachable = wanted - patches.len();
    plan.patches.extend(patches);
    match installs {
        Installs::ThisOutput => {
            let believed = |i: usize| p.claims.get(i).is_some_and(Option::is_some);
            let kept = Kept {
                objects: p.objects(),
                origins: p.origins(),
                believed: &believed,
                resources: &p.input.resources,
                install: config.install_namespace(),
                bundle_present: p.csv.is_some(),
            };
            kept.check(&mut plan.results);
        }
        Installs::OlmDropped => {
            report_dropped(p, &members, &mut plan.results);
            plan.remove.extend(members);
        }
        Installs::OlmExtension => {
            if unreachable > 0 || config.strip_bundle_aggregation {
                let changes = if unreachable > 0 {
                    format!("{unreachable} label change(s) to the bundle's roles would not reach the cluster, so olm-rbac leaves their files as they are")
                } else {
                    "stripBundleAggregation cannot change the bundle's roles".to_string()
                };
                plan.results.push(
                    Finding::warning(Code::BundleUnchangeable, format!(
                        "{changes}: ClusterExtension {} is in the input, and OLM installs the bundle from its catalog as the bundle has it",
                        config.extension
                    ))
                    .on(&config.object_ref())
                    .at(if config.strip_bundle_aggregation { "spec.stripBundleAggregation" } else { "spec.mode" }),
                );
            }
        }
    }
    provided
}

/// Says what `bundleObjects: Drop` left out, and what it could not tell apart.
fn report_dropped(p: &Planning<'_>, dropped: &BTreeSet<usize>, results: &mut Vec<Finding>) {
    let (config, origins, claims) = (p.config, p.origins(), &p.claims);
    let cfg = config.object_ref();
    results.push(
        Finding::info(Code::Removed, format!(
            "extension {:?}: {} bundle object(s) left out of the output (bundleObjects: Drop); OLM installs them from the catalog",
            config.extension,
            dropped.len()
        ))
        .on(&cfg),
    );
    if config.strip_bundle_aggregation {
        results.push(
            Finding::warning(Code::BundleUnchangeable, "stripBundleAggregation cannot change the bundle's roles when bundleObjects is Drop: OLM installs them as the bundle has them")
                .on(&cfg)
                .at("spec.stripBundleAggregation"),
        );
    }
    let unknown = (0..claims.len())
        .filter(|i| !dropped.contains(i) && origins.of(*i) == Origin::Unknown && claims[*i].is_none())
        .count();
    if unknown > 0 {
        results.push(
            Finding::warning(Code::OriginUnknown, format!(
                "bundleObjects: Drop left out the CSV and the CRDs, but {unknown} other object(s) come from no file olm-rbac can tell from the bundle's (stdin, a runner that names no files, or a folder beside manifests/), so bundle manifests among them were kept; with kustomize, add `buildMetadata: [originAnnotations]` to the kustomization"
            ))
            .on(&cfg)
            .at("spec.bundleObjects"),
        );
    }
}

/// Generate: the roles no bundle role provides and, in Bind mode, the
/// bindings, in that order.
fn generate(p: &Planning<'_>, provided: &Provided, results: &mut Vec<Finding>) -> Vec<Made> {
    let config = p.config;
    let mut generated: Vec<Made> = Vec::new();
    for api in &p.apis {
        generated.extend(
            cluster_roles(config, api)
                .into_iter()
                .filter(|(_, role, _)| !provided.contains_key(&(api.name.clone(), *role)))
                .map(|(version, role, r)| {
                    (About::Api { api: api.name.clone(), version, role }, Object::ClusterRole(r))
                }),
        );
    }
    generated.extend(olm_apis::cluster_roles(config));
    if config.mode == Mode::Bind {
        let role_for = |api: &Api, role: RoleKind| serving_roles(config, provided, p.objects(), api, role);
        generated.extend(bind::bindings(p, role_for, results));
    }
    generated
}

/// The ClusterRoles that serve `role` on `api`, each with the version it is
/// named for: the adopted bundle role, or the generated ones (none when the
/// config does not provide the role).
fn serving_roles(
    config: &Config,
    provided: &Provided,
    objects: &[InputObject],
    api: &Api,
    role: RoleKind,
) -> Vec<(Option<String>, String)> {
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
}

/// Summarise: what the extension's APIs got, as results, and the one line
/// its `ClusterExtension` is annotated with.
fn summarise(p: &Planning<'_>, provided: &Provided, generated: &[Made], results: &mut Vec<Finding>) -> String {
    let (config, apis) = (p.config, &p.apis);
    let cfg = config.object_ref();
    if config.mode == Mode::Unmanaged {
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
        results.push(Finding::info(Code::Summary, message).on(&cfg));
        return format!("Unmanaged: only cluster-admins can use its {} API(s)", apis.len());
    }
    let for_apis: Vec<&Object> =
        generated.iter().filter(|(about, _)| matches!(about, About::Api { .. })).map(|(_, o)| o).collect();
    let roles = for_apis.iter().filter(|o| matches!(o, Object::ClusterRole(_))).count();
    let bindings = for_apis.len() - roles;
    report_per_api(apis, provided, generated, p.objects(), results);
    crate::plan::apis::roles::warn_deputies(generated, results);
    let how = match config.mode {
        Mode::Aggregate => "aggregated into the built-in admin, edit and view roles".to_string(),
        _ => format!("bound by {bindings} binding(s)"),
    };
    results.push(
        Finding::info(
            Code::Summary,
            format!(
                "extension {:?}: generated {roles} ClusterRole(s) for {} API(s), {how}{}",
                config.extension,
                apis.len(),
                if provided.is_empty() { String::new() } else { format!("; {} bundle role(s) used", provided.len()) }
            ),
        )
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
    olm_apis::report(config, generated, results);
    summary
}

/// One result per API: the objects generated for it and the bundle roles used.
fn report_per_api(
    apis: &[Api],
    provided: &Provided,
    generated: &[Made],
    objects: &[InputObject],
    results: &mut Vec<Finding>,
) {
    let mut by_api: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (about, o) in generated {
        if let About::Api { api, .. } = about {
            by_api.entry(api).or_default().push(o.describe());
        }
    }
    let mut adopted_by_api: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for ((api, role), &i) in provided {
        if let Some(n) = &objects[i].header.name {
            adopted_by_api.entry(api).or_default().push(format!("{n} ({})", role.as_str()));
        }
    }
    for api in apis {
        let mine = by_api.remove(api.name.as_str()).unwrap_or_default();
        let adopted = adopted_by_api.remove(api.name.as_str()).unwrap_or_default();
        let mut message =
            format!("API {}: generated {}", api.name, if mine.is_empty() { "nothing".into() } else { mine.join(", ") });
        if !adopted.is_empty() {
            message.push_str(&format!("; bundle roles used: {}", adopted.join(", ")));
        }
        results.push(Finding::info(Code::Summary, message).on(&api.origin));
    }
}

/// Names every earlier output of this config that this run does not write
/// again: nothing olm-rbac removes disappears unsaid.
fn report_removed(p: &Planning<'_>, earlier: &BTreeSet<usize>, generated: &[Made], results: &mut Vec<Finding>) {
    let (config, objects) = (p.config, p.objects());
    let rewritten: BTreeSet<ObjRef> = generated.iter().map(|(_, o)| o.object_ref()).collect();
    for &i in earlier {
        let mut r = objects[i].object_ref();
        if r.kind != "ServiceAccount" {
            r.api_version = "rbac.authorization.k8s.io/v1".into();
        }
        if !rewritten.contains(&r) {
            results.push(
                Finding::info(
                    Code::Removed,
                    format!(
                        "removed: olm-rbac generated it for extension {:?} earlier, and this run ({} mode) does not",
                        config.extension,
                        config.mode.as_str()
                    ),
                )
                .on(&objects[i].object_ref())
                .in_file(objects[i].file.as_ref()),
            );
        }
    }
}

/// Shows the outcome on the extension's `ClusterExtension`, if it is in the input.
fn annotate_extension(p: &Planning<'_>, summary: &str, plan: &mut Draft) {
    let objects = p.objects();
    let Some(i) = extension_object(&p.config.extension, objects, p.origins()) else { return };
    let o = &objects[i];
    if o.header.annotations.get(STATUS_ANNOTATION).map(String::as_str) != Some(summary) {
        let patch = plan.patches.entry(i).or_default();
        patch.annotations.push(Edit::Set(STATUS_ANNOTATION.into(), summary.into()));
    }
    plan.results.push(
        Finding::info(Code::Summary, format!("annotated with {STATUS_ANNOTATION}: {summary}"))
            .on(&o.object_ref())
            .in_file(o.file.as_ref()),
    );
}
