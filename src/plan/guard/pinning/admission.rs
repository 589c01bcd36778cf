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
use crate::plan::guard::policy::{cel_string, policy_and_binding, PolicyDraft};
use crate::plan::{About, Made};

/// `object.spec.source.catalog` is there (each step checked, so a missing
/// field is false rather than an error).
const HAS_CATALOG: &str = "has(object.spec) && has(object.spec.source) && has(object.spec.source.catalog)";
const CATALOG: &str = "object.spec.source.catalog";

/// The CEL expressions of the ClusterExtension policy: its match condition
/// and its validations, each with the message the cluster gives.
pub(crate) fn extension_rules(pin: &Pin<'_>) -> (String, Vec<(String, String)>) {
    let package = cel_string(pin.package);
    let versions: Vec<String> = pin.versions.iter().map(|v| cel_string(v)).collect();
    let catalog = cel_string(pin.catalog);
    let label = cel_string(CATALOG_NAME_LABEL);
    let condition = format!(
        "object.metadata.name == {} || ({HAS_CATALOG} && has({CATALOG}.packageName) && {CATALOG}.packageName == {package})",
        cel_string(pin.extension)
    );
    let validations = vec![
        (
            format!("{HAS_CATALOG} && has({CATALOG}.packageName) && {CATALOG}.packageName == {package}"),
            format!("ClusterExtension {} installs package {} only, the package olm-rbac judged", pin.extension, pin.package),
        ),
        (
            format!("{HAS_CATALOG} && has({CATALOG}.version) && {CATALOG}.version in [{}]", versions.join(", ")),
            format!(
                "spec.source.catalog.version must be exactly one of the versions of {} olm-rbac judged ({}): a new version is a change in git, judged again",
                pin.package,
                pin.versions.join(", ")
            ),
        ),
        (
            format!("!({HAS_CATALOG}) || !has({CATALOG}.upgradeConstraintPolicy) || {CATALOG}.upgradeConstraintPolicy != 'SelfCertified'"),
            "spec.source.catalog.upgradeConstraintPolicy must not be SelfCertified: it lets OLM v1 install versions olm-rbac did not judge".to_string(),
        ),
        (
            format!(
                "{HAS_CATALOG} && has({CATALOG}.selector) && has({CATALOG}.selector.matchLabels) && {label} in {CATALOG}.selector.matchLabels && {CATALOG}.selector.matchLabels[{label}] == {catalog}"
            ),
            format!(
                "spec.source.catalog.selector.matchLabels must name the judged catalog: {CATALOG_NAME_LABEL}: {}",
                pin.catalog
            ),
        ),
    ];
    (condition, validations)
}

/// The CEL expressions of the ClusterCatalog policy, when its image is known.
pub(crate) fn catalog_rules(pin: &Pin<'_>) -> Option<(String, Vec<(String, String)>)> {
    let image = pin.catalog_image?;
    let condition = format!("object.metadata.name == {}", cel_string(pin.catalog));
    let validation = (
        format!(
            "has(object.spec) && has(object.spec.source) && has(object.spec.source.image) && has(object.spec.source.image.ref) && object.spec.source.image.ref == {}",
            cel_string(image)
        ),
        format!("ClusterCatalog {} serves the image olm-rbac judged only: {image}", pin.catalog),
    );
    Some((condition, vec![validation]))
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
