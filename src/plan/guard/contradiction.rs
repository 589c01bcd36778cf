//! Whether render's own admission policies contradict each other. The pin's
//! policy (`spec.admissionPolicy: Generate`) holds every ClusterExtension of
//! the judged package, a team's included, to the judged namespace, versions,
//! catalog and watch namespace; the delegations' policy holds a team's to
//! what its delegation lists. Where a delegation lists what the pin refuses,
//! the team is told it may install what the cluster (and `can-install`) will
//! refuse: a warning on the delegation's field, naming the pin's value.
//!
//! The package cannot contradict: the pin holds only ClusterExtensions of its
//! own package (or of the extension's name), so a delegation of another
//! package is outside it, and one of the pin's package names the same one.
//! Decided from the values the plan already holds, nothing read again.

use crate::config::{DelegatedAccess, FeatureGate};
use crate::findings::{Code, Finding};
use crate::plan::facts::input::Planning;
use crate::plan::guard::delegation::Grant;
use crate::plan::guard::pinning::Pin;

/// One contradiction: the delegation's field, and what to say there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Contradiction {
    pub field: String,
    pub message: String,
}

/// Warns, on the config, of each contradiction between the pin written
/// here and the delegations.
pub(crate) fn warn(p: &Planning<'_>, pin: &Pin<'_>, grants: &[Grant<'_>], results: &mut Vec<Finding>) {
    let own_watch = FeatureGate::single_own_namespace(&p.config.olm_feature_gates);
    for c in contradictions(pin, grants, own_watch) {
        results
            .push(Finding::warning(Code::DelegationContradictsPin, c.message).on(&p.config.object_ref()).at(c.field));
    }
}

/// What the pin refuses of what each team that may install is given, for
/// the pin's package. With `own_watch`, the delegations' policy lets a
/// ClusterExtension watch its own install namespace.
pub(crate) fn contradictions(pin: &Pin<'_>, grants: &[Grant<'_>], own_watch: bool) -> Vec<Contradiction> {
    let mut found = Vec::new();
    for g in grants.iter().filter(|g| g.delegation.access == DelegatedAccess::Install) {
        for (j, (package, versions)) in g.packages.iter().enumerate() {
            if *package != pin.package {
                continue;
            }
            let say = |field: String, what: String, only: String| {
                Contradiction {
                field,
                message: format!(
                    "team {} may install {package} {what}, but the pin's admission policy (spec.admissionPolicy: Generate) admits ClusterExtensions of {package} only {only}: the cluster will refuse the team's install (can-install answers no); change the delegation or the pin so that they agree",
                    g.delegation.team
                ),
            }
            };
            let at = |what: &str| format!("spec.delegations[{}].{what}", g.index);
            if let Some(found_here) = versions_refused(pin, versions) {
                found.push(say(at(&format!("packages[{j}].versions")), found_here.0, found_here.1));
            }
            if let Some(namespace) = pin.namespace {
                let outside = others(&g.delegation.namespaces, namespace);
                if !outside.is_empty() {
                    let (what, only) = (plural("namespace", &outside), format!("into namespace {namespace}"));
                    found.push(say(at("namespaces"), format!("into {what}"), format!("{only} (spec.namespace)")));
                }
            }
            let outside = others(&g.delegation.catalogs, pin.catalog);
            if !outside.is_empty() {
                let only = format!("from ClusterCatalog {} (spec.source.catalog.selector)", pin.catalog);
                found.push(say(at("catalogs"), format!("from {}", plural("ClusterCatalog", &outside)), only));
            }
            if let Some(watch) = pin.watch_namespace {
                if !(own_watch && g.delegation.namespaces.iter().any(|n| n == watch)) {
                    let only = format!("watching namespace {watch} (spec.config.inline.watchNamespace), which a team may not set under the delegations' policy");
                    found.push(say(at("namespaces"), "without a watch namespace of its own".to_string(), only));
                }
            }
        }
    }
    found
}

/// The versions of `versions` the pin refuses, and what it admits; `None`
/// when it admits every one.
fn versions_refused(pin: &Pin<'_>, versions: &[String]) -> Option<(String, String)> {
    let admitted = pin.versions.join(", ");
    if pin.range {
        // The pin compares the version field to the range as written, and a
        // team must write one exact version: no install passes both.
        return Some((
            format!("at {}, each written exactly", versions.join(" or ")),
            format!(
                "with spec.source.catalog.version written exactly {admitted:?}, the range judged in the judged catalog"
            ),
        ));
    }
    let outside: Vec<&str> =
        versions.iter().map(String::as_str).filter(|v| !pin.versions.iter().any(|p| p == v)).collect();
    (!outside.is_empty()).then(|| {
        (format!("at {}", outside.join(" or ")), format!("at version {admitted} (spec.source.catalog.version)"))
    })
}

/// The names of `names` other than `admitted`.
fn others<'n>(names: &'n [String], admitted: &str) -> Vec<&'n str> {
    names.iter().map(String::as_str).filter(|n| *n != admitted).collect()
}

fn plural(what: &str, names: &[&str]) -> String {
    format!("{what}{} {}", if names.len() == 1 { "" } else { "s" }, names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Delegation;

    fn pin<'a>(versions: &[&str], range: bool, namespace: Option<&'a str>) -> Pin<'a> {
        Pin {
            extension: "rabbitmq",
            package: "rabbitmq-cluster-operator",
            versions: versions.iter().map(|v| v.to_string()).collect(),
            range,
            catalog: "operatorhubio",
            catalog_image: None,
            namespace,
            watch_namespace: None,
        }
    }

    fn delegation(access: DelegatedAccess, namespaces: &[&str], catalogs: &[&str]) -> Delegation {
        Delegation {
            team: "payments".into(),
            access,
            subjects: Vec::new(),
            packages: Vec::new(),
            namespaces: namespaces.iter().map(|n| n.to_string()).collect(),
            catalogs: catalogs.iter().map(|n| n.to_string()).collect(),
        }
    }

    fn grant<'a>(d: &'a Delegation, package: &'a str, versions: &[&str]) -> Grant<'a> {
        Grant { delegation: d, index: 2, packages: vec![(package, versions.iter().map(|v| v.to_string()).collect())] }
    }

    fn fields(found: &[Contradiction]) -> Vec<&str> {
        found.iter().map(|c| c.field.as_str()).collect()
    }

    #[test]
    fn a_delegation_within_the_pin_contradicts_nothing() {
        let d = delegation(DelegatedAccess::Install, &["rabbitmq-system"], &["operatorhubio"]);
        let found = contradictions(
            &pin(&["2.9.0"], false, Some("rabbitmq-system")),
            &[grant(&d, "rabbitmq-cluster-operator", &["2.9.0"])],
            false,
        );
        assert_eq!(found, Vec::new());
    }

    #[test]
    fn a_namespace_the_pin_refuses_names_the_team_the_field_and_the_pins_namespace() {
        let d = delegation(DelegatedAccess::Install, &["payments-mq", "rabbitmq-system"], &["operatorhubio"]);
        let found = contradictions(
            &pin(&["2.9.0"], false, Some("rabbitmq-system")),
            &[grant(&d, "rabbitmq-cluster-operator", &["2.9.0"])],
            false,
        );
        assert_eq!(fields(&found), ["spec.delegations[2].namespaces"]);
        assert!(found[0].message.starts_with("team payments may install rabbitmq-cluster-operator into namespace payments-mq, but the pin's admission policy (spec.admissionPolicy: Generate) admits ClusterExtensions of rabbitmq-cluster-operator only into namespace rabbitmq-system (spec.namespace)"), "{}", found[0].message);
    }

    #[test]
    fn versions_the_pin_refuses_are_named_with_the_pinned_one() {
        let d = delegation(DelegatedAccess::Install, &["rabbitmq-system"], &["operatorhubio"]);
        let found = contradictions(
            &pin(&["2.9.0"], false, None),
            &[grant(&d, "rabbitmq-cluster-operator", &["2.9.0", "2.10.0"])],
            false,
        );
        assert_eq!(fields(&found), ["spec.delegations[2].packages[0].versions"]);
        assert!(
            found[0].message.contains("may install rabbitmq-cluster-operator at 2.10.0, but")
                && found[0].message.contains("only at version 2.9.0 (spec.source.catalog.version)"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn a_pinned_range_refuses_every_exact_version_a_team_may_write() {
        let d = delegation(DelegatedAccess::Install, &["rabbitmq-system"], &["operatorhubio"]);
        let found = contradictions(
            &pin(&[">=2.0.0"], true, None),
            &[grant(&d, "rabbitmq-cluster-operator", &["2.9.0"])],
            false,
        );
        assert_eq!(fields(&found), ["spec.delegations[2].packages[0].versions"]);
        assert!(found[0].message.contains("written exactly \">=2.0.0\""), "{}", found[0].message);
    }

    #[test]
    fn a_catalog_and_a_watch_namespace_the_pin_refuses_are_said() {
        let d = delegation(DelegatedAccess::Install, &["rabbitmq-system"], &["community", "operatorhubio"]);
        let mut watching = pin(&["2.9.0"], false, Some("rabbitmq-system"));
        watching.watch_namespace = Some("rabbitmq-system");
        let grants = [grant(&d, "rabbitmq-cluster-operator", &["2.9.0"])];
        let found = contradictions(&watching, &grants, false);
        assert_eq!(fields(&found), ["spec.delegations[2].catalogs", "spec.delegations[2].namespaces"]);
        assert!(found[0].message.contains("from ClusterCatalog community, but"), "{}", found[0].message);
        assert!(found[1].message.contains("watching namespace rabbitmq-system"), "{}", found[1].message);
        // With OwnNamespace installs delegated, the team may watch its own namespace, the pin's.
        assert_eq!(fields(&contradictions(&watching, &grants, true)), ["spec.delegations[2].catalogs"]);
    }

    #[test]
    fn another_package_or_a_viewing_team_is_outside_the_pin() {
        let d = delegation(DelegatedAccess::Install, &["payments-mq"], &["community"]);
        let p = pin(&["2.9.0"], false, Some("rabbitmq-system"));
        assert_eq!(contradictions(&p, &[grant(&d, "cert-manager", &["1.0.0"])], false), Vec::new());
        let viewer = delegation(DelegatedAccess::View, &["payments-mq"], &["community"]);
        assert_eq!(contradictions(&p, &[grant(&viewer, "rabbitmq-cluster-operator", &["1.0.0"])], false), Vec::new());
    }
}
