//! Which of a catalog's bundles a ClusterExtension admits: its package, in
//! one of its channels (any, when it names none), at a version its range
//! admits (any, when it has none). `SelfCertified` is read as admitting any
//! version of the package: judging more than OLM v1 might install is safe,
//! judging less is not.

use crate::semver::{Range, Version};

/// A bundle as the catalog lists it: enough to resolve, not its manifests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The `olm.bundle`'s name.
    pub name: String,
    /// The package it is a bundle of.
    pub package: String,
    /// Its `olm.package` property's version; `None` when it has none, which no range rules out.
    pub version: Option<Version>,
    /// That version as written: opm and OLM read it strictly (with blang)
    /// for the upgrade graph.
    pub written_version: Option<String>,
    /// The channels that list it.
    pub channels: Vec<String>,
    /// How many manifests the catalog carries for it (`olm.bundle.object`).
    pub objects: usize,
    /// The bundle image OLM pulls to install it.
    pub image: Option<String>,
    /// What the package's `olm.deprecations` says of it, of a channel that
    /// lists it, or of its package: OLM v1 still installs it, and says so.
    pub deprecations: Vec<String>,
}

/// What the ClusterExtension asks for.
#[derive(Debug, Clone, Default)]
pub struct Wanted {
    /// `spec.source.catalog.packageName`.
    pub package: String,
    /// `spec.source.catalog.version`, parsed; `None` admits every version.
    pub range: Option<Range>,
    /// That range as written.
    pub written_range: Option<String>,
    /// `spec.source.catalog.channels`; empty admits every channel.
    pub channels: Vec<String>,
    /// `upgradeConstraintPolicy: SelfCertified`, read as admitting every version of the package.
    pub self_certified: bool,
    /// `spec.namespace`: where OLM v1 installs each admitted bundle.
    pub namespace: Option<String>,
    /// `spec.config`: how it configures each (its watch namespace).
    pub config: Option<crate::model::ExtensionConfig>,
    /// The ClusterExtension, as results name it.
    pub object: crate::model::ObjRef,
}

pub(super) fn admitted(entries: &[Entry], wanted: &Wanted) -> Vec<Entry> {
    entries
        .iter()
        .filter(|e| e.package == wanted.package)
        .filter(|e| wanted.channels.is_empty() || e.channels.iter().any(|c| wanted.channels.contains(c)))
        .filter(|e| {
            wanted.self_certified
                || match (&wanted.range, &e.version) {
                    (None, _) => true,
                    (Some(range), Some(v)) => range.admits(v),
                    // A bundle without a version cannot be ruled out.
                    (Some(_), None) => true,
                }
        })
        .cloned()
        .collect()
}

/// Why [`admitted`] admits nothing, so that the fix is plain: the package
/// is not in the catalog, none of its bundles is in the channels named, or
/// no version of those is in the range (pre-releases only where a range
/// names one, as OLM v1 reads it).
pub(super) fn why_none(entries: &[Entry], wanted: &Wanted) -> String {
    let list = |items: Vec<String>| if items.is_empty() { "none".to_string() } else { items.join(", ") };
    let of_package: Vec<&Entry> = entries.iter().filter(|e| e.package == wanted.package).collect();
    if of_package.is_empty() {
        let packages: std::collections::BTreeSet<String> = entries.iter().map(|e| format!("{:?}", e.package)).collect();
        return format!(
            "the catalog has no package {:?} (it has {}): check spec.source.catalog.packageName",
            wanted.package,
            list(packages.into_iter().collect())
        );
    }
    let in_channels: Vec<&Entry> = of_package
        .iter()
        .copied()
        .filter(|e| wanted.channels.is_empty() || e.channels.iter().any(|c| wanted.channels.contains(c)))
        .collect();
    if in_channels.is_empty() {
        let channels: std::collections::BTreeSet<String> =
            of_package.iter().flat_map(|e| &e.channels).map(|c| format!("{c:?}")).collect();
        return format!(
            "no bundle of package {:?} is in channel(s) {} (its channels: {}): check spec.source.catalog.channels",
            wanted.package,
            wanted.channels.iter().map(|c| format!("{c:?}")).collect::<Vec<_>>().join(", "),
            list(channels.into_iter().collect())
        );
    }
    let mut versions: Vec<&Version> = in_channels.iter().filter_map(|e| e.version.as_ref()).collect();
    versions.sort();
    let pre = if !versions.is_empty() && versions.iter().all(|v| v.is_prerelease()) {
        "; each is a pre-release, which a range admits only where it names a pre-release of the same major.minor.patch"
    } else {
        ""
    };
    format!(
        "no version of package {:?} is in the range spec.source.catalog.version admits (the catalog has {}){pre}: check the range",
        wanted.package,
        list(versions.iter().map(|v| v.to_string()).collect())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, version: &str, channels: &[&str]) -> Entry {
        Entry {
            name: name.into(),
            package: "p".into(),
            version: Version::parse(version).ok(),
            written_version: Some(version.into()),
            channels: channels.iter().map(|c| c.to_string()).collect(),
            objects: 1,
            image: None,
            deprecations: Vec::new(),
        }
    }

    #[test]
    fn package_channels_and_range_each_narrow_and_self_certified_widens() {
        let entries = [
            entry("p.v1", "1.0.0", &["stable"]),
            entry("p.v2", "2.0.0", &["stable", "fast"]),
            entry("p.v3", "3.0.0-rc.1", &["fast"]),
        ];
        let names = |w: &Wanted| admitted(&entries, w).into_iter().map(|e| e.name).collect::<Vec<_>>();
        let mut w = Wanted { package: "p".into(), ..Default::default() };
        assert_eq!(names(&w), ["p.v1", "p.v2", "p.v3"]);
        w.range = Range::parse(">=1.0.0").ok();
        assert_eq!(names(&w), ["p.v1", "p.v2"], "no pre-release unless the range names one");
        w.channels = vec!["fast".into()];
        assert_eq!(names(&w), ["p.v2"]);
        w.self_certified = true;
        assert_eq!(names(&w), ["p.v2", "p.v3"]);
        w.package = "q".into();
        assert!(names(&w).is_empty());
    }

    /// Each of the three causes says its own fix.
    #[test]
    fn why_nothing_is_admitted_names_the_field_to_check() {
        let entries = [entry("p.v1", "1.0.0", &["stable"]), entry("p.v3", "3.0.0-rc.1", &["fast"])];
        let mut w = Wanted { package: "q".into(), ..Default::default() };
        assert_eq!(
            why_none(&entries, &w),
            "the catalog has no package \"q\" (it has \"p\"): check spec.source.catalog.packageName"
        );
        w.package = "p".into();
        w.channels = vec!["candidate".into()];
        assert_eq!(
            why_none(&entries, &w),
            "no bundle of package \"p\" is in channel(s) \"candidate\" (its channels: \"fast\", \"stable\"): check spec.source.catalog.channels"
        );
        w.channels = vec!["fast".into()];
        w.range = Range::parse(">=3.0.0").ok();
        assert!(admitted(&entries, &w).is_empty());
        assert_eq!(
            why_none(&entries, &w),
            "no version of package \"p\" is in the range spec.source.catalog.version admits (the catalog has 3.0.0-rc.1); each is a pre-release, which a range admits only where it names a pre-release of the same major.minor.patch: check the range"
        );
    }
}
