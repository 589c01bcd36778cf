//! The admission policy that pins the cluster to what was judged: a
//! `ValidatingAdmissionPolicy` (CEL only) and its binding, denying any
//! CREATE or UPDATE of a ClusterExtension of the judged package (or of the
//! extension's name) that does not install exactly a judged version of that
//! package from the judged catalog, or that sets `SelfCertified`; and, when
//! the catalog's image is known by digest, a second pair denying any other
//! image for that ClusterCatalog.

use crate::config::Config;
use crate::model::*;

use super::{Pin, CATALOG_NAME_LABEL};
use crate::plan::guard::cel::{self, Cel};
use crate::plan::guard::policy::{policy_and_binding, PolicyDraft};
use crate::plan::types::{About, Made};

/// The CEL expressions of the ClusterExtension policy: its match condition
/// and its validations, each with the message the cluster gives.
pub(crate) fn extension_rules(pin: &Pin<'_>) -> (String, Vec<(String, String)>) {
    let condition = Cel::any([cel::named(pin.extension), cel::package_in([pin.package]).grouped()]);
    let mut validations = vec![
        (
            cel::package_in([pin.package]),
            format!("ClusterExtension {} installs package {} only, the package olm-rbac judged", pin.extension, pin.package),
        ),
        (
            cel::version_in(pin.versions.iter().map(String::as_str)),
            match pin.range {
                true => format!(
                    "spec.source.catalog.version must be exactly {}: olm-rbac judged every bundle of {} it admits in ClusterCatalog {}, at its judged image; another range is a change in git, judged again",
                    pin.versions.join(", "),
                    pin.package,
                    pin.catalog
                ),
                false => format!(
                    "spec.source.catalog.version must be exactly one of the versions of {} olm-rbac judged ({}): a new version is a change in git, judged again",
                    pin.package,
                    pin.versions.join(", ")
                ),
            },
        ),
        (
            cel::not_self_certified(),
            "spec.source.catalog.upgradeConstraintPolicy must not be SelfCertified: it lets OLM v1 install versions olm-rbac did not judge".to_string(),
        ),
        (
            cel::catalog_in(CATALOG_NAME_LABEL, [pin.catalog]),
            format!(
                "spec.source.catalog.selector.matchLabels must name the judged catalog: {CATALOG_NAME_LABEL}: {}",
                pin.catalog
            ),
        ),
        (
            cel::crd_upgrade_safety_on(),
            "spec.install.preflight.crdUpgradeSafety.enforcement must not be None: olm-rbac judged the bundle with OLM's CRD upgrade safety checks on; leave it out (Strict)".to_string(),
        ),
        (
            cel::config_as_judged(pin.watch_namespace),
            match pin.watch_namespace {
                None => "spec.config must not be set: olm-rbac judged the bundle as it ships, without a configuration of its own".to_string(),
                Some(w) => format!("spec.config must be exactly {{configType: Inline, inline: {{watchNamespace: {w}}}}}: olm-rbac judged the operator watching {w} alone"),
            },
        ),
        (
            cel::no_watch_namespace_annotation(),
            format!("metadata.annotations[\"{}\"] must not be set: earlier OLM v1 releases read the watch namespace from it, and olm-rbac judged the bundle without one", cel::WATCH_NAMESPACE_ANNOTATION),
        ),
    ];
    if let Some(namespace) = pin.namespace {
        validations.push((
            cel::namespace_in([namespace]),
            format!("spec.namespace must be {namespace}, the namespace olm-rbac judged the operator in"),
        ));
    }
    (condition.into(), validations.into_iter().map(|(c, m)| (c.into(), m)).collect())
}

/// The CEL expressions of the ClusterCatalog policy, when its image is known.
pub(crate) fn catalog_rules(pin: &Pin<'_>) -> Option<(String, Vec<(String, String)>)> {
    let image = pin.catalog_image?;
    let validation = (
        Cel::all([
            Cel::fixed("has(object.spec) && has(object.spec.source) && has(object.spec.source.image) && has(object.spec.source.image.ref)"),
            Cel::fixed("object.spec.source.image.ref").eq(Cel::string(image)),
        ])
        .into(),
        format!("ClusterCatalog {} serves the image olm-rbac judged only: {image}", pin.catalog),
    );
    Some((cel::named(pin.catalog).into(), vec![validation]))
}

/// The policies and their bindings.
pub(super) fn objects(config: &Config, pin: &Pin<'_>) -> Vec<Made> {
    let mut made = Vec::new();
    let (condition, validations) = extension_rules(pin);
    let name = crate::plan::names::pin(&config.extension, false);
    made.extend(pair(config, name, "clusterextensions", ("this-extension", condition), validations));
    if let Some((condition, validations)) = catalog_rules(pin) {
        let name = crate::plan::names::pin(&config.extension, true);
        made.extend(pair(config, name, "clustercatalogs", ("the-judged-catalog", condition), validations));
    }
    made
}

/// A policy on CREATE and UPDATE of OLM v1's `resource`, and its binding.
fn pair(
    config: &Config,
    name: String,
    resource: &str,
    condition: (&str, String),
    validations: Vec<(String, String)>,
) -> [Made; 2] {
    let draft = PolicyDraft {
        name,
        role: ADMISSION_POLICY_ROLE,
        about: About::Pin,
        resource,
        operations: &["CREATE", "UPDATE"],
        condition,
        variables: Vec::new(),
        validations,
        annotations: None,
    };
    policy_and_binding(config, draft)
}
