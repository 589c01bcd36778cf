//! Reading rendered manifests into a [`Policy`]: the one part of the access
//! checks that sees the input's YAML, with the same splitter as the function.
//! The kernel ([`crate::access`]) takes typed roles and bindings only.
//!
//! What it says about the input is a [`Finding`], written as `render` writes
//! its results: the object, the field, the message, and the document as
//! `[file#index]`, counted from 0 as `render` counts them.

use std::collections::BTreeSet;

mod unheld;
use unheld::BindingKey;

use crate::access::builtin::{self, BuiltinRoles};
use crate::access::{Policy, Resources};
use crate::admission::Policies;
use crate::findings::{Code, FileRef, Finding};
use crate::input::Source;
use crate::model::{
    view_for, BindingView, Body, CrdView, InputObject, ViewKind, API_ANNOTATION, EXTENSION_LABEL, MANAGED_BY, MANAGER,
    OLM_V1_GROUP,
};
use crate::yaml::{self, Chunk};

/// Reads manifests (documents, ResourceLists, `kind: List`) into a policy,
/// with Kubernetes' bootstrap roles. Problems name the file and object.
pub fn load(inputs: &[Source]) -> Result<Policy, Vec<String>> {
    read(inputs, BuiltinRoles::default())
        .map(|loaded| loaded.policy)
        .map_err(|errors| errors.iter().map(ToString::to_string).collect())
}

/// What the access checks answer over.
#[derive(Debug, Clone, Copy)]
pub enum Manifests<'a> {
    /// Rendered manifests (`-f`), read as written.
    Rendered(&'a [Source]),
    /// The cluster after an install, as render judges it with the admin's
    /// config (`-c`).
    Installed(&'a Installed),
}

impl<'a, T: AsRef<[Source]> + ?Sized> From<&'a T> for Manifests<'a> {
    fn from(sources: &'a T) -> Self {
        Manifests::Rendered(sources.as_ref())
    }
}

impl<'a> From<&'a Installed> for Manifests<'a> {
    fn from(installed: &'a Installed) -> Self {
        Manifests::Installed(installed)
    }
}

/// The roles and bindings the cluster holds after an install, and the
/// CustomResourceDefinitions it serves, as render judges the bundle with the
/// admin's config: what render writes, the bundle's objects as OLM installs
/// them (the bundle roles Bind binds among them), and OLM v1's grant of the
/// operator's permissions. `run::installed` builds it.
#[derive(Debug, Clone)]
pub struct Installed {
    objects: Vec<InputObject>,
    read: usize,
}

impl Installed {
    /// `objects` as the cluster holds them, judged from `read` objects read.
    pub(crate) fn new(objects: Vec<InputObject>, read: usize) -> Installed {
        Installed { objects, read }
    }
}

/// Reads what the checks answer over: rendered manifests as [`read`] does,
/// or the cluster after the install with Kubernetes' built-in roles added
/// as `builtins` says.
pub(crate) fn load_from(manifests: Manifests<'_>, builtins: BuiltinRoles) -> Result<Loaded, Vec<Finding>> {
    let installed = match manifests {
        Manifests::Rendered(sources) => return read(sources, builtins),
        Manifests::Installed(installed) => installed,
    };
    let (mut policy, warnings) = policy_and_set_aside(&installed.objects, builtins);
    for o in &installed.objects {
        note_api(&mut policy, &o.header);
    }
    let (admission, extensions, csvs) = (Policies::default(), Vec::new(), Vec::new());
    Ok(Loaded { policy, admission, extensions, csvs, objects: installed.read, warnings })
}

/// What [`read`] made of the input: the policy, how many Kubernetes objects
/// it held, and a warning for each item it skipped as not being one.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub policy: Policy,
    /// The input's ValidatingAdmissionPolicies and their bindings.
    pub admission: Policies,
    /// The input's ClusterExtensions, by name.
    pub extensions: Vec<(String, serde_json::Value)>,
    /// The names of the input's ClusterServiceVersions: OLM grants their
    /// permissions on install, which the manifests need not hold.
    pub csvs: Vec<String>,
    /// Objects with an `apiVersion` and a `kind` (list items counted, lists not).
    pub objects: usize,
    pub warnings: Vec<Finding>,
}

/// Where an item sits: its document, and within a list document its index
/// and the line its text starts on in the document (when the list was read
/// as written, not re-serialised).
struct ItemPlace<'a> {
    file: FileRef,
    list: Option<(&'a Chunk<'a>, usize, Option<usize>)>,
}

impl ItemPlace<'_> {
    /// A result about `chunk`, placed: on the list and at `items[i]` for a
    /// list item, on the object itself otherwise; positions made the file's.
    fn finding(&self, finding: Finding, chunk: &Chunk<'_>, field: Option<String>) -> Finding {
        let (object, field) = match self.list {
            Some((list, i, _)) => {
                let inner = field.map(|f| format!(".{f}")).unwrap_or_default();
                (list.header.object_ref(), Some(format!("items[{i}]{inner}")))
            }
            None => (chunk.header.object_ref(), field),
        };
        let finding = finding.on(&object).in_file(Some(&self.file));
        match field {
            Some(field) => finding.at(field),
            None => finding,
        }
    }

    /// The line of the stream a line of the item's text is on, when known.
    fn line(&self, line: usize) -> Option<usize> {
        match self.list {
            Some((_, _, offset)) => offset.map(|o| o + line.saturating_sub(1)),
            None => Some(line),
        }
    }
}

/// [`load`], keeping what the commands tell the user about: the number of
/// objects, and the items that were skipped because they lack `apiVersion`
/// or `kind`. With [`BuiltinRoles::None`], the input's roles and bindings only.
pub(crate) fn read(inputs: &[Source], builtins: BuiltinRoles) -> Result<Loaded, Vec<Finding>> {
    let mut policy = Policy { resources: Resources::builtin(), ..Default::default() };
    let mut read = Read::default();
    let mut errors = Vec::new();
    let mut seen = Seen { objects: 0, warnings: Vec::new() };
    for input in inputs {
        let docs = match yaml::split_documents(&input.text) {
            Ok(d) => d,
            Err(e) => {
                let message = format!("{} (line {}, column {})", e.message, e.pos.line, e.pos.col);
                errors.push(
                    Finding::error(Code::YamlInvalid, message)
                        .in_file(Some(&FileRef { path: input.name.clone(), index: None })),
                );
                continue;
            }
        };
        for (index, doc) in docs.iter().enumerate() {
            let file = FileRef { path: input.name.clone(), index: Some(index) };
            // ResourceList, List, and typed lists such as ClusterRoleBindingList.
            let is_list = doc.header.kind.as_deref().is_some_and(|k| k == "ResourceList" || k.ends_with("List"));
            if !is_list {
                let place = ItemPlace { file, list: None };
                if seen.is_object(doc, &place) {
                    add_or_report(&mut policy, &mut read, doc, &place, &mut errors);
                }
                continue;
            }
            // JSON or flow-style lists are re-serialised first, as in function mode.
            let normalized = match yaml::split_list(&doc.text) {
                Ok(Some(_)) => None,
                _ => yaml::normalize(&doc.text).ok(),
            };
            match yaml::split_list(normalized.as_deref().unwrap_or(&doc.text)) {
                Ok(Some(list)) => {
                    for (i, item) in list.items.iter().enumerate() {
                        // Lines of a re-serialised list are not the input's.
                        let offset = normalized.is_none().then_some(doc.line);
                        let place = ItemPlace { file: file.clone(), list: Some((doc, i, offset)) };
                        if seen.is_object(item, &place) {
                            add_or_report(&mut policy, &mut read, item, &place, &mut errors);
                        }
                    }
                }
                Ok(None) => errors.push(
                    Finding::error(Code::YamlInvalid, format!("could not read the list at line {}", doc.line))
                        .on(&doc.header.object_ref())
                        .in_file(Some(&file)),
                ),
                Err(e) => {
                    let message = format!("{} (line {}, column {})", e.message, e.pos.line, e.pos.col);
                    errors.push(
                        Finding::error(Code::YamlInvalid, message).on(&doc.header.object_ref()).in_file(Some(&file)),
                    );
                }
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut warnings = seen.warnings;
    if builtins != BuiltinRoles::None {
        warnings.extend(builtin::reconcile_into(&mut policy).iter().map(set_aside_warning));
    }
    warnings.extend(unheld::roles(&policy, read.bindings));
    warnings.extend(unheld::grants(&policy, read.operator_accounts));
    let (admission, extensions, csvs) = (read.admission, read.extensions, read.csvs);
    Ok(Loaded { policy, admission, extensions, csvs, objects: seen.objects, warnings })
}

/// The cluster's RBAC after `objects` are applied, as [`read`] builds it from
/// manifests, from objects already read (a render's, as `judge` decided it),
/// with Kubernetes' built-in roles and bindings reconciled over them.
pub(crate) fn policy_of(objects: &[InputObject]) -> Policy {
    policy_with(objects, BuiltinRoles::default())
}

/// [`policy_of`], with [`BuiltinRoles::None`] the objects' roles and bindings only.
pub(crate) fn policy_with(objects: &[InputObject], builtins: BuiltinRoles) -> Policy {
    policy_and_set_aside(objects, builtins).0
}

/// [`policy_with`], and what the cluster would not hold as written.
fn policy_and_set_aside(objects: &[InputObject], builtins: BuiltinRoles) -> (Policy, Vec<Finding>) {
    let mut policy = Policy { resources: Resources::builtin(), ..Default::default() };
    for o in objects {
        policy.add_object(o);
    }
    let mut warnings = Vec::new();
    if builtins != BuiltinRoles::None {
        warnings.extend(builtin::reconcile_into(&mut policy).iter().map(set_aside_warning));
    }
    (policy, warnings)
}

/// The API a role olm-rbac generated serves, and its extension, from the
/// role's labels and annotation.
fn note_api(policy: &mut Policy, h: &crate::model::Header) {
    if h.labels.get(MANAGED_BY).map(String::as_str) == Some(MANAGER) {
        if let (Some(ext), Some(api)) = (h.labels.get(EXTENSION_LABEL), h.annotations.get(API_ANNOTATION)) {
            policy.apis.insert(api.clone(), Some(ext.clone()));
        }
    }
}

/// Says what of the input the cluster would not hold as written, because
/// Kubernetes reconciles its bootstrap policy over it.
fn set_aside_warning(set_aside: &builtin::SetAside) -> Finding {
    use builtin::SetAside::*;
    let (kind, name, what) = match set_aside {
        RulesOfAggregatingRole(name) => (
            "ClusterRole",
            name,
            "Kubernetes' role of that name aggregates, so the API server replaces its rules with what it aggregates, and the answers use those",
        ),
        RulesAdded(name) => ("ClusterRole", name, "the API server adds Kubernetes' rules for that role that it lacks, and the answers include them"),
        Aggregation(name) => ("ClusterRole", name, "Kubernetes' role of that name does not aggregate, so the API server drops its aggregationRule, and the answers do"),
        Binding(name) => (
            "ClusterRoleBinding",
            name,
            "it binds another role than Kubernetes' binding of that name, which the API server restores, and the answers use Kubernetes' binding",
        ),
    };
    Finding::warning(Code::BuiltinReconciled, format!(
        "{kind} {name} in the input is read as the cluster holds it (Kubernetes {}'s bootstrap policy reconciled over it): {what}; pass --builtin-roles none to read the input as written",
        builtin::KUBERNETES_VERSION
    ))
}

/// Counts the input's objects and warns about the items that are not ones.
struct Seen {
    objects: usize,
    warnings: Vec<Finding>,
}

impl Seen {
    /// Whether the item is a Kubernetes object (it has `apiVersion` and `kind`);
    /// if not, a warning naming where it is.
    fn is_object(&mut self, chunk: &Chunk<'_>, place: &ItemPlace<'_>) -> bool {
        let h = &chunk.header;
        let missing: Vec<&str> = [("apiVersion", &h.api_version), ("kind", &h.kind)]
            .into_iter()
            .filter(|(_, v)| v.as_deref().is_none_or(str::is_empty))
            .map(|(field, _)| field)
            .collect();
        if missing.is_empty() {
            self.objects += 1;
            return true;
        }
        let what = if place.list.is_some() { "list item" } else { "document" };
        let line = place.line(chunk.line).map(|l| format!(" (line {l})")).unwrap_or_default();
        let message =
            format!("this {what} is not a Kubernetes object (no {}); ignored{line}", missing.join(" and no "));
        self.warnings.push(place.finding(Finding::warning(Code::NotAnObject, message), chunk, None));
        false
    }
}

/// Adds one item of a file to the policy; a problem is an error placed in it.
/// What the input holds besides roles and bindings: admission policies and
/// ClusterExtensions, for `can-install`.
#[derive(Default)]
struct Read {
    admission: Policies,
    extensions: Vec<(String, serde_json::Value)>,
    csvs: Vec<String>,
    /// The ServiceAccounts each ClusterServiceVersion's permissions are for
    /// (OLM grants them at install), with a result placed on its install spec.
    operator_accounts: Vec<(String, Finding)>,
    /// Each binding read, with a result placed on its `roleRef`.
    bindings: Vec<(BindingKey, Finding)>,
}

fn add_or_report(
    policy: &mut Policy,
    read: &mut Read,
    chunk: &Chunk<'_>,
    place: &ItemPlace<'_>,
    errors: &mut Vec<Finding>,
) {
    let h = &chunk.header;
    match crate::model::view_for(h) {
        Some(ViewKind::Csv) => {
            read.csvs.push(h.name.clone().unwrap_or_default());
            let install = yaml::parse_item::<crate::model::CsvView>(chunk).map(|csv| csv.spec.install.spec);
            let accounts: BTreeSet<String> = install
                .iter()
                .flat_map(|spec| spec.permissions.iter().chain(&spec.cluster_permissions))
                .map(|p| p.account().to_string())
                .collect();
            let placed =
                place.finding(Finding::warning(Code::GrantUnheld, ""), chunk, Some("spec.install.spec".into()));
            read.operator_accounts.extend(accounts.into_iter().map(|a| (a, placed.clone())));
        }
        Some(ViewKind::Binding) if h.group() == Some("rbac.authorization.k8s.io") => {
            let namespace = (h.kind.as_deref() == Some("RoleBinding"))
                .then(|| h.namespace.clone().unwrap_or_else(|| "default".into()));
            let placed = place.finding(Finding::warning(Code::RoleUnheld, ""), chunk, Some("roleRef".into()));
            read.bindings.push(((namespace, h.name.clone().unwrap_or_default()), placed));
        }
        _ => {}
    }
    if let Err(e) = add_item(policy, chunk).and_then(|()| add_admission(read, chunk)) {
        let mut message = e.message;
        if let Some(line) = e.pos.and_then(|p| place.line(p.line).map(|l| (l, p.col))) {
            message = format!("{message} (line {}, column {})", line.0, line.1);
        }
        errors.push(place.finding(Finding::error(Code::ObjectInvalid, message), chunk, e.path));
    }
}

fn add_item(policy: &mut Policy, chunk: &Chunk<'_>) -> Result<(), yaml::ViewError> {
    let h = &chunk.header;
    note_api(policy, h);
    let body = match (h.group().unwrap_or_default(), h.kind.as_deref()) {
        ("rbac.authorization.k8s.io", Some(_)) => match rbac_body(chunk)? {
            Some(body) => body,
            None => return Ok(()),
        },
        ("apiextensions.k8s.io", Some("CustomResourceDefinition")) => {
            let crd: CrdView = yaml::parse_item(chunk)?;
            // The API server refuses such a CRD; reading it would shadow `pods.v1`-like names.
            if let Some(g) = crd.spec.group.as_deref().filter(|g| !crate::names::is_crd_group(g)) {
                return Err(yaml::ViewError {
                    message: format!(
                        "spec.group {g:?} has no dot (or is not a DNS subdomain): the API server refuses such a CRD"
                    ),
                    path: Some("spec.group".into()),
                    pos: None,
                });
            }
            Body::Crd(crd)
        }
        _ => return Ok(()),
    };
    policy.add_object(&InputObject { header: chunk.header.clone(), body, file: None });
    Ok(())
}

/// Reads an admission policy, its binding, or a ClusterExtension.
fn add_admission(read: &mut Read, chunk: &Chunk<'_>) -> Result<(), yaml::ViewError> {
    let h = &chunk.header;
    let name = h.name.clone().unwrap_or_default();
    let twice = |kind: &str| {
        yaml::ViewError {
        message: format!("the input holds {kind} {name} twice: the cluster keeps the one applied last, so what is admitted cannot be told; remove one"),
        path: Some("metadata.name".into()),
        pos: None,
    }
    };
    let named =
        |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| m.name.as_deref() == Some(name.as_str());
    match (h.group().unwrap_or_default(), h.kind.as_deref()) {
        ("admissionregistration.k8s.io", Some(kind @ "ValidatingAdmissionPolicy")) => {
            if read.admission.policies.iter().any(|p| named(&p.metadata)) {
                return Err(twice(kind));
            }
            read.admission.policies.push(yaml::parse_item(chunk)?)
        }
        ("admissionregistration.k8s.io", Some(kind @ "ValidatingAdmissionPolicyBinding")) => {
            if read.admission.bindings.iter().any(|b| named(&b.metadata)) {
                return Err(twice(kind));
            }
            read.admission.bindings.push(yaml::parse_item(chunk)?)
        }
        // What the offline check cannot evaluate, kept with the rules it matches by.
        (
            "admissionregistration.k8s.io",
            Some(
                kind @ ("ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration" | "MutatingAdmissionPolicy"),
            ),
        ) => {
            let value: serde_json::Value = yaml::parse_item(chunk)?;
            let rules: Vec<serde_json::Value> = match kind {
                "MutatingAdmissionPolicy" => value
                    .pointer("/spec/matchConstraints/resourceRules")
                    .and_then(|r| r.as_array())
                    .cloned()
                    .unwrap_or_default(),
                _ => value
                    .get("webhooks")
                    .and_then(|w| w.as_array())
                    .into_iter()
                    .flatten()
                    .flat_map(|w| w.get("rules").and_then(|r| r.as_array()).cloned().unwrap_or_default())
                    .collect(),
            };
            read.admission.others.push((kind.to_string(), name, rules));
        }
        (OLM_V1_GROUP, Some("ClusterExtension")) => {
            read.extensions.push((h.name.clone().unwrap_or_default(), yaml::parse_item(chunk)?))
        }
        _ => {}
    }
    Ok(())
}

/// Reads a role or a binding of the RBAC API group through the planner's own
/// views. A binding must name its role, as the API server requires.
fn rbac_body(chunk: &Chunk<'_>) -> Result<Option<Body>, yaml::ViewError> {
    Ok(match view_for(&chunk.header) {
        Some(ViewKind::Role) => Some(Body::Role(yaml::parse_item(chunk)?)),
        Some(ViewKind::Binding) => {
            let view: BindingView = yaml::parse_item(chunk)?;
            if view.role_ref.kind.is_none() || view.role_ref.name.is_none() {
                return Err(yaml::ViewError {
                    message: "needs kind and name, as the API server requires".into(),
                    path: Some("roleRef".into()),
                    pos: None,
                });
            }
            Some(Body::Binding(view))
        }
        _ => None,
    })
}
