//! Whether the ClusterExtension's version is held to what was judged: one
//! exact version, or (`render --judged-catalog`) a range every bundle of
//! which the judged catalog holds and this render's config passes.

use super::Place;
use crate::findings::{Code, Finding, Severity};
use crate::plan::facts::input::Planning;
use crate::plan::types::JudgedRange;
use crate::semver::{Range, Version};

/// `spec.source.catalog.version` admits the judged version, and nothing
/// else, written exactly as the admission policy pins it: the judged
/// version without build metadata (which OLM v1 does not compare).
///
/// With the judged catalog (`render --judged-catalog`), a range is
/// accepted when every bundle it admits there passed, the judged version
/// among them: the range, written so, is returned for the admission policy
/// to hold.
pub(super) fn check_version(
    written: Option<&str>,
    judged: Option<&Version>,
    package: &str,
    severity: Severity,
    at: &Place<'_>,
    results: &mut Vec<Finding>,
    p: &Planning<'_>,
) -> Option<String> {
    const FIELD: &str = "spec.source.catalog.version";
    let exact = judged.map(Version::exact);
    let fix = match &exact {
        Some(v) => format!("pin the judged bundle: {FIELD}: \"{v}\""),
        None => "give the bundle's ClusterServiceVersion a semantic spec.version, and pin it here".to_string(),
    };
    let Some(written) = written.filter(|w| !w.is_empty()) else {
        results.push(at.say(Code::PinVersion,
            severity,
            FIELD,
            format!("is not set, so OLM v1 installs the newest {package} the catalog serves and upgrades to every newer one on its own, none of them judged here; {fix}"),
        ));
        return None;
    };
    let range = match Range::parse(written) {
        Ok(range) => range,
        Err(e) => {
            results.push(at.say(Code::PinVersion, Severity::Error, FIELD, format!("{e}; {fix}")));
            return None;
        }
    };
    let (Some(judged), Some(exact)) = (judged, exact) else {
        results.push(at.say(Code::PinVersion,
            severity,
            FIELD,
            format!("{written:?} cannot be tied to the bundle judged here, whose ClusterServiceVersion has no semantic version; {fix}"),
        ));
        return None;
    };
    if !range.admits(judged) {
        results.push(at.say(Code::PinVersion,
            Severity::Error,
            FIELD,
            format!("{written:?} does not admit {exact}, the version judged here: the cluster would install a bundle olm-rbac has not seen; {fix}"),
        ));
    } else if Version::parse_exact(written).is_ok() {
        // One exact version that admits the judged one: the judged version.
    } else if let Some(range) = p.input.judged_range {
        return judged_range(written, judged, range, at, results);
    } else if range.exact_versions().is_some_and(|vs| vs.iter().all(|v| *v == judged)) {
        results.push(at.say(
            Code::PinVersion,
            severity,
            FIELD,
            format!(
                "{written:?} admits only the judged version, but the admission policy pins it written exactly; {fix}"
            ),
        ));
    } else {
        results.push(at.say(Code::PinVersion,
            severity,
            FIELD,
            format!("{written:?} admits versions besides {exact}, the one judged here, and OLM v1 upgrades to the newest of them on its own; {fix}, or judge every bundle it admits (olm-rbac catalog judge) and give render the judged catalog (olm-rbac catalog filter, render --judged-catalog)"),
        ));
    }
    None
}

/// A range held against the judged catalog: accepted (returned) when every
/// bundle it admits there passed with this render's config, the version
/// judged here among them; an error naming each one that did not.
fn judged_range(
    written: &str,
    judged: &Version,
    range: &JudgedRange,
    at: &Place<'_>,
    results: &mut Vec<Finding>,
) -> Option<String> {
    const FIELD: &str = "spec.source.catalog.version";
    let catalog = &range.catalog;
    let refused = if range.range != written {
        Some(format!("{written:?} is not the range {:?} the judged catalog {catalog} was judged for", range.range))
    } else if !range.failed.is_empty() {
        let each: Vec<String> = range.failed.iter().map(|(b, why)| format!("{b}: {why}")).collect();
        Some(format!(
            "{written:?} admits bundles of the judged catalog {catalog} that do not pass with this config ({}); narrow the range, or filter the catalog with this config (olm-rbac catalog filter)",
            each.join("; ")
        ))
    } else if !range.passed.iter().any(|(_, v)| Version::parse(v).ok().as_ref() == Some(judged)) {
        Some(format!(
            "the judged catalog {catalog} holds no bundle of the range at {}, the version judged here: give render the judged catalog this bundle comes from",
            judged.exact()
        ))
    } else {
        None
    };
    if let Some(why) = refused {
        results.push(at.say(Code::PinVersion, Severity::Error, FIELD, why));
        return None;
    }
    let versions: Vec<&str> = range.passed.iter().map(|(_, v)| v.as_str()).collect();
    results.push(at.say(
        Code::Summary,
        Severity::Info,
        FIELD,
        format!(
            "{written:?} admits {} bundle(s) of the judged catalog {catalog}, each judged here with this config and passing ({}): OLM v1 may upgrade among them on its own",
            versions.len(),
            versions.join(", ")
        ),
    ));
    Some(written.to_string())
}
