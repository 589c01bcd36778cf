//! Whether the cluster installs what was judged. OLM v1 installs what the
//! extension's `ClusterExtension` resolves in a catalog, and upgrades within
//! its version range on its own, as cluster-admin: the verdict on the bundle
//! in the input binds the cluster only when the ClusterExtension names that
//! bundle's package, admits exactly its version, keeps to the range, and
//! takes it from one named catalog whose content cannot change. This step
//! checks each of those, field by field (errors under an install policy,
//! warnings without one), and with `spec.admissionPolicy: Generate` writes
//! the `ValidatingAdmissionPolicy` that lets the cluster accept nothing else
//! (`admission`).

use crate::config::AdmissionPolicy;
use crate::findings::{Code, Finding, ObjRef, Severity};
use crate::model::*;
use crate::semver::Version;

use crate::plan::facts::input::Planning;
use crate::plan::facts::origin::extension_object;
use crate::plan::types::Made;

mod admission;
mod package;
mod version;

pub(crate) use package::{bundle_package, package_claims, PackageSource};

/// The label catalogd sets on every ClusterCatalog: its name. A selector on
/// it names one catalog.
pub(crate) const CATALOG_NAME_LABEL: &str = "olm.operatorframework.io/metadata.name";

/// What the render judged, and what the ClusterExtension would install.
pub(crate) struct Pin<'a> {
    pub extension: &'a str,
    pub package: &'a str,
    pub versions: Vec<String>,
    /// `versions` is the one range the judged catalog was judged for
    /// (`render --judged-catalog`), not exact versions.
    pub range: bool,
    pub catalog: &'a str,
    /// The catalog's image, when the ClusterCatalog is in the admin's input
    /// and names it by digest.
    pub catalog_image: Option<&'a str>,
    /// The namespace the operator was judged in, when the config names one.
    pub namespace: Option<&'a str>,
    /// The namespace the operator was judged watching, when the
    /// ClusterExtension names one (`spec.config.inline.watchNamespace`).
    pub watch_namespace: Option<&'a str>,
}

/// Checks the extension's ClusterExtension, if the admin's files hold it,
/// against the bundle judged here; and writes the admission policy when the
/// config asks for it.
///
/// With the policy written, what it admits ([`Pin`]), for the delegations to
/// be held to (`guard::contradiction`).
pub(crate) fn pin_step<'a>(p: &Planning<'a>, results: &mut Vec<Finding>) -> (Vec<Made>, Option<Pin<'a>>) {
    let config = p.config;
    let objects = p.objects();
    let Some(i) = admin_extension(p, results) else {
        // No OLM v1 install is asked: what no API server creates is said all
        // the same, as a warning (the catalog's verdict reads it as OLM's refusal).
        crd_refusals(p, Severity::Warning, results);
        return (Vec::new(), None);
    };
    check_installable(p, results);
    crd_refusals(p, Severity::Error, results);
    let extension = &objects[i];
    let Body::Extension(view) = &extension.body else { return (Vec::new(), None) };
    let at = Place { object: extension.object_ref(), file: extension.file.as_ref() };
    let severity = if config.operator.policy.is_some() { Severity::Error } else { Severity::Warning };
    let judged = judged_version(p, &at, results);
    let Some(source) = view.spec.source.catalog.as_ref() else {
        results.push(at.say(
            Code::PinCatalog,
            Severity::Error,
            "spec.source.catalog",
            "is missing: OLM v1 installs only from a catalog, so what this ClusterExtension installs cannot be told",
        ));
        return (Vec::new(), None);
    };
    let package = check_package(p, source.package_name.as_deref(), severity, &at, results);
    let written = source.version.as_deref();
    let range =
        version::check_version(written, judged.as_ref(), package.unwrap_or("the package"), severity, &at, results, p);
    check_upgrades(view, severity, &at, results);
    check_as_judged(view, &extension.header, config.install_namespace(), severity, &at, results);
    let catalog = check_catalog(p, source.selector.as_ref(), package, severity, &at, results);
    if range.is_some() && catalog.is_none_or(|(_, image)| image.is_none()) {
        results.push(at.say(Code::PinCatalog,
            Severity::Error,
            "spec.source.catalog.selector",
            "a version range is accepted only from the judged catalog: name its ClusterCatalog, and put that ClusterCatalog in the input with spec.source.image.ref pinned by digest to the judged catalog's image",
        ));
    }
    if config.admission_policy != AdmissionPolicy::Generate {
        return (Vec::new(), None);
    }
    if !package_established(p, package, results) {
        return (Vec::new(), None);
    }
    let (Some(package), Some(judged), Some((catalog, catalog_image))) = (package, judged, catalog) else {
        results.push(
            Finding::error(Code::AdmissionPolicyBlocked,
                "cannot be written: the ClusterExtension must name its package and one catalog (spec.source.catalog.packageName, and selector.matchLabels olm.operatorframework.io/metadata.name), and the ClusterServiceVersion must have a spec.version",
            )
            .on(&config.object_ref())
            .at("spec.admissionPolicy"),
        );
        return (Vec::new(), None);
    };
    let pin = Pin {
        extension: &config.extension,
        package,
        versions: vec![range.clone().unwrap_or_else(|| judged.exact())],
        range: range.is_some(),
        catalog,
        catalog_image,
        namespace: config.install_namespace(),
        watch_namespace: p.watch_namespace(),
    };
    let made = admission::objects(config, &pin);
    results.push(
        Finding::info(Code::Summary, format!(
            "the cluster will admit ClusterExtensions of {package} only at {}, from ClusterCatalog {catalog}{}, by the ValidatingAdmissionPolicy written here; apply it before the ClusterExtension",
            match &range { Some(r) => format!("version range {r:?}, each bundle of it judged"), None => format!("version {judged}") },
            if catalog_image.is_some() { " at its judged image" } else { "" }
        ))
        .on(&config.object_ref())
        .at("spec.admissionPolicy"),
    );
    (made, Some(pin))
}

/// OLM v1 installs the bundle for the admin's ClusterExtension only if it
/// installs it at all: each refusal is an error, whatever the policy (OLM
/// does not fall back to another version).
fn check_installable(p: &Planning<'_>, results: &mut Vec<Finding>) {
    let Some((csv, refusals)) = p.olm_v1_refusals() else { return };
    let extension = p.admin_extension().map(|(_, o, _)| o);
    for refusal in refusals {
        // A refusal of what the ClusterExtension asks points at it.
        let on = extension.filter(|_| refusal.on_extension()).unwrap_or(csv);
        results.push(
            Finding::error(Code::Uninstallable, refusal.message())
                .on(&on.object_ref())
                .at(refusal.field.as_str())
                .in_file(on.file.as_ref()),
        );
    }
}

/// The bundle's CustomResourceDefinitions OLM v1 cannot create
/// (`installable::crd_refusal`: `apiextensions.k8s.io/v1beta1`, which no API
/// server has served since Kubernetes 1.22), each on its `apiVersion`: an
/// error where the admin's ClusterExtension asks OLM v1 to install the bundle,
/// a warning otherwise. Only with a ClusterServiceVersion: without one, there
/// is no bundle.
fn crd_refusals(p: &Planning<'_>, severity: Severity, results: &mut Vec<Finding>) {
    if p.csv().is_none() {
        return;
    }
    let objects = p.objects();
    for o in objects.iter().enumerate().filter(|(i, _)| p.origins().is_bundle(*i)).map(|(_, o)| o) {
        let crate::model::Body::Crd(view) = &o.body else { continue };
        if let Some(refusal) = crate::plan::facts::installable::crd_refusal(view) {
            let finding = Finding::new(Code::Uninstallable, severity, refusal.message());
            let finding = finding.on(&o.object_ref()).at(refusal.field.as_str()).in_file(o.file.as_ref());
            if !results.contains(&finding) {
                results.push(finding);
            }
        }
    }
}

/// The index of the extension's ClusterExtension among the admin's objects;
/// when the admission policy needs it and it is not there, said why.
fn admin_extension(p: &Planning<'_>, results: &mut Vec<Finding>) -> Option<usize> {
    let config = p.config;
    let objects = p.objects();
    let admin = |i: &usize| p.origins().is_admin(*i);
    let found = extension_object(&config.extension, objects, p.origins()).filter(admin);
    if found.is_none() {
        warn_unnamed_installs(p, results);
    }
    if found.is_none() {
        let elsewhere = extension_object(&config.extension, objects, p.origins()).is_some()
            || objects.iter().enumerate().any(|(i, o)| {
                p.origins().is_bundle(i)
                    && o.is(OLM_V1_GROUP, "ClusterExtension")
                    && o.header.name.as_deref() == Some(&config.extension)
            });
        if config.admission_policy == AdmissionPolicy::Generate {
            let why = if elsewhere {
                "; the input holds it, but in the bundle's folder or on stdin, where the bundle could have written it: keep it in a file of its own, apart from the bundle's files (a saved output that holds the bundle's CSV is the bundle's folder)"
            } else {
                ""
            };
            results.push(
                Finding::error(Code::AdmissionPolicyBlocked, format!(
                    "needs the extension's ClusterExtension (olm.operatorframework.io/v1, named {:?}) among the admin's files: it names the package and the catalog the admission policy pins{why}",
                    config.extension
                ))
                .on(&config.object_ref())
                .at("spec.admissionPolicy"),
            );
        }
    }
    found
}

/// An admin's ClusterExtension that installs the judged package under
/// another name than the extension's is not read as the judged install, so
/// nothing holds it to the judgement (its watch namespace, its version):
/// said, with the fix.
fn warn_unnamed_installs(p: &Planning<'_>, results: &mut Vec<Finding>) {
    let Some((package, _)) = bundle_package(p) else { return };
    let admins = p.objects().iter().enumerate().filter(|(i, _)| p.origins().is_admin(*i));
    for o in admins.map(|(_, o)| o) {
        let Body::Extension(view) = &o.body else { continue };
        if view.spec.source.catalog.as_ref().and_then(|c| c.package_name.as_deref()) != Some(package.as_str()) {
            continue;
        }
        let (name, extension) = (o.header.name.as_deref().unwrap_or_default(), &p.config.extension);
        let message = format!("installs package {package:?}, judged here, but is named {name:?}, not {extension:?} (the extension's name): olm-rbac did not judge this install against the bundle (its namespace, its configuration, its version); name it {extension:?}, or set spec.extensionName");
        results.push(
            Finding::warning(Code::PinPackage, message)
                .on(&o.object_ref())
                .at("metadata.name")
                .in_file(o.file.as_ref()),
        );
    }
}

/// Whether the ClusterExtension's package is the one the render established
/// for the judged bundle: the pin names no other (said when it would).
fn package_established(p: &Planning<'_>, package: Option<&str>, results: &mut Vec<Finding>) -> bool {
    let config = p.config;
    let established = bundle_package(p).map(|(bundle, _)| bundle);
    if let Some(named) = package.filter(|n| established.as_deref() != Some(*n)) {
        results.push(
            Finding::error(
                Code::PinPackage,
                format!(
                    "cannot be written: the ClusterExtension installs package {named:?}, which is not the package established for the judged bundle ({}); the policy would admit a bundle nobody judged",
                    established.as_deref().map_or("not known".to_string(), |b| format!("{b:?}"))
                ),
            )
            .on(&config.object_ref())
            .at("spec.admissionPolicy"),
        );
        return false;
    }
    true
}

/// How the ClusterExtension upgrades: outside its catalog's upgrade edges,
/// past CRD safety checks; and the account field OLM v1 no longer reads.
fn check_upgrades(view: &ExtensionView, severity: Severity, at: &Place<'_>, results: &mut Vec<Finding>) {
    let source = view.spec.source.catalog.as_ref();
    if source.and_then(|s| s.upgrade_constraint_policy.as_deref()) == Some("SelfCertified") {
        results.push(at.say(Code::PinUpgrades,
            severity,
            "spec.source.catalog.upgradeConstraintPolicy",
            "SelfCertified lets OLM v1 move to any version the range admits, downgrades included, whatever the catalog's upgrade edges say; remove the field (the default, CatalogProvided)",
        ));
    }
    let enforcement = view.spec.install.preflight.as_ref().and_then(|p| p.crd_upgrade_safety.as_ref());
    if enforcement.and_then(|s| s.enforcement.as_deref()) == Some("None") {
        results.push(at.say(Code::PinUpgrades,
            severity,
            "spec.install.preflight.crdUpgradeSafety.enforcement",
            "None lets an upgrade change a CRD in ways that break the other users of its API; remove the field (the default, Strict)",
        ));
    }
    if view.spec.service_account.is_some() {
        results.push(at.say(Code::ServiceAccountIgnored,
            Severity::Info,
            "spec.serviceAccount",
            "is ignored by OLM v1 since operator-controller 1.11, which installs every bundle as cluster-admin; keep it only for older releases",
        ));
    }
}

/// What OLM v1 installs beside the version: the namespace the operator was
/// judged in, and no watch namespace annotation (earlier releases read it,
/// and the operator was judged without it), which the pin then holds.
fn check_as_judged(
    view: &ExtensionView,
    header: &Header,
    judged_in: Option<&str>,
    severity: Severity,
    at: &Place<'_>,
    results: &mut Vec<Finding>,
) {
    match (view.spec.namespace.as_deref(), judged_in) {
        (None, _) => results.push(at.say(Code::PinInstall, Severity::Error, "spec.namespace", "is missing: OLM v1 needs the namespace to install the bundle into")),
        (Some(written), Some(judged)) if written != judged => results.push(at.say(
            Code::PinInstall,
            severity,
            "spec.namespace",
            format!("{written:?} is not {judged:?}, the namespace olm-rbac judged the operator in (spec.operator.installNamespace): its namespaced permissions would land in another namespace than judged; set one to the other"),
        )),
        _ => {}
    }
    // `spec.config` is OLM's to validate, and its refusals are render's
    // (`check_installable`): what passes is a watch namespace, which the
    // operator is judged in and the pin holds.
    if header.annotations.contains_key(crate::plan::guard::cel::WATCH_NAMESPACE_ANNOTATION) {
        results.push(at.say(
            Code::PinInstall,
            severity,
            &format!("metadata.annotations[{:?}]", crate::plan::guard::cel::WATCH_NAMESPACE_ANNOTATION)[..],
            "earlier OLM v1 releases read the watch namespace from it, and olm-rbac judged the bundle without one; remove it",
        ));
    }
}

/// Where a finding about the ClusterExtension points.
struct Place<'a> {
    object: ObjRef,
    file: Option<&'a FileRef>,
}

impl Place<'_> {
    fn say(&self, code: Code, severity: Severity, field: &str, message: impl Into<String>) -> Finding {
        Finding::new(code, severity, message).on(&self.object).at(field).in_file(self.file)
    }
}

/// The version of the bundle judged here: its CSV's `spec.version`, written
/// as OLM's catalogs write it. `v1.2.3`, `1.2` or `01.2.3` would read as
/// 1.2.3 or 1.2.0, which is another bundle's version than this one's.
pub(crate) fn bundle_version(p: &Planning<'_>) -> Option<Version> {
    let (_, view) = p.csv()?;
    let written = view.spec.version.as_deref()?;
    Version::parse(written).ok().filter(|v| v.to_string() == written)
}

/// [`bundle_version`], and a warning on the CSV when it has none.
fn judged_version(p: &Planning<'_>, at: &Place<'_>, results: &mut Vec<Finding>) -> Option<Version> {
    let csv = &p.objects()[p.csv?];
    match bundle_version(p) {
        Some(v) => Some(v),
        None => {
            results.push(
                Finding::new(Code::PinVersion,
                    Severity::Warning,
                    format!(
                        "has no semantic version in spec.version written as catalogs write it (1.2.3), so whether ClusterExtension {} installs this bundle cannot be told",
                        at.object.name
                    ),
                )
                .on(&csv.object_ref())
                .at("spec.version")
                .in_file(csv.file.as_ref()),
            );
            None
        }
    }
}

/// `spec.source.catalog.packageName` against the judged bundle's package:
/// its `metadata/annotations.yaml` (when its root was read) or its CSV's
/// annotation, else what its CSV's name says (a guess, so a mismatch with it
/// is only a warning).
fn check_package<'v>(
    p: &Planning<'_>,
    named: Option<&'v str>,
    severity: Severity,
    at: &Place<'_>,
    results: &mut Vec<Finding>,
) -> Option<&'v str> {
    const FIELD: &str = "spec.source.catalog.packageName";
    let Some(named) = named.filter(|n| !n.is_empty()) else {
        results.push(at.say(
            Code::PinPackage,
            Severity::Error,
            FIELD,
            "is missing: OLM v1 needs the package to install",
        ));
        return None;
    };
    let (bundle, certain) = match bundle_package(p) {
        Some((package, declared)) => (Some(package), declared),
        None => (None, false),
    };
    match bundle {
        None => results.push(at.say(Code::PinPackage,
            severity,
            FIELD,
            format!("{named:?} cannot be checked: the judged bundle's package is not known; render the bundle's root folder (with its metadata/annotations.yaml), or set {BUNDLE_PACKAGE_ANNOTATION} on its ClusterServiceVersion"),
        )),
        Some(bundle) if bundle != named => {
            let (severity, whose) = if certain {
                (
                    Severity::Error,
                    format!("the judged bundle's package is {bundle:?} (its {BUNDLE_PACKAGE_ANNOTATION} annotation)"),
                )
            } else {
                (
                    severity,
                    format!("the judged bundle's ClusterServiceVersion is named as if its package were {bundle:?}"),
                )
            };
            results.push(at.say(Code::PinPackage,
                severity,
                FIELD,
                format!("{named:?} is not the package judged here: {whose}, so the cluster would install a bundle olm-rbac has not seen"),
            ));
        }
        _ => {}
    }
    Some(named)
}

/// The catalog: a selector naming one ClusterCatalog, and that catalog's
/// image pinned by digest when the admin's input holds it. Returns the
/// catalog's name, with its image when pinned.
fn check_catalog<'v>(
    p: &Planning<'v>,
    selector: Option<&'v k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    package: Option<&str>,
    severity: Severity,
    at: &Place<'_>,
    results: &mut Vec<Finding>,
) -> Option<(&'v str, Option<&'v str>)> {
    const FIELD: &str = "spec.source.catalog.selector";
    let named = selector.and_then(|s| s.match_labels.as_ref()).and_then(|l| l.get(CATALOG_NAME_LABEL));
    let Some(name) = named else {
        results.push(at.say(Code::PinCatalog,
            severity,
            FIELD,
            format!(
                "does not name one catalog, so any ClusterCatalog on the cluster, one added later included, may serve {}; name the judged catalog: {FIELD}.matchLabels: {{{CATALOG_NAME_LABEL}: <catalog>}}",
                package.unwrap_or("the package")
            ),
        ));
        return None;
    };
    let objects = p.objects();
    let catalog = objects.iter().enumerate().find(|(i, o)| {
        p.origins().is_admin(*i) && o.is(OLM_V1_GROUP, "ClusterCatalog") && o.header.name.as_deref() == Some(name)
    });
    let Some((_, catalog)) = catalog else {
        results.push(at.say(Code::PinCatalog,
            Severity::Warning,
            FIELD,
            format!("names ClusterCatalog {name}, which is not in the input: whether its content is pinned cannot be told, and what it serves after this render is unjudged"),
        ));
        return Some((name.as_str(), None));
    };
    let image = match &catalog.body {
        Body::Catalog(view) => view.spec.source.image.as_ref().and_then(|i| i.reference.as_deref()),
        _ => None,
    };
    match image {
        Some(image) if is_digest_ref(image) => Some((name.as_str(), Some(image))),
        _ => {
            results.push(
                Finding::new(Code::PinCatalog,
                    severity,
                    format!(
                        "{} is not pinned by digest: the content it serves can change after this render, and what it will serve was not judged; pin it: spec.source.image.ref: <image>@sha256:<digest>",
                        image.map_or("no image".to_string(), |i| format!("{i:?}"))
                    ),
                )
                .on(&catalog.object_ref())
                .at("spec.source.image.ref")
                .in_file(catalog.file.as_ref()),
            );
            Some((name.as_str(), None))
        }
    }
}
