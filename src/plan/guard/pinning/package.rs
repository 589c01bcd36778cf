//! Which package is judged here, and every place that names it: the one
//! decision the pin, the delegations and `spec.package` read.

use crate::plan::facts::input::Planning;

/// Where the judged bundle's package is named, in the order render trusts
/// them ([`bundle_package`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PackageSource {
    /// The bundle's `metadata/annotations.yaml`, when its root was read.
    Metadata,
    /// Its CSV's `operators.operatorframework.io.bundle.package.v1` annotation.
    CsvAnnotation,
    /// The package a catalog files it under: a catalog's bundle, or, under
    /// `render --judged-catalog`, the package of every bundle of the range.
    Catalog,
    /// What its CSV's name says, when nothing declares one: a guess.
    CsvName,
}

impl PackageSource {
    /// How a message names it.
    pub(crate) fn said(self) -> &'static str {
        match self {
            PackageSource::Metadata => "its metadata/annotations.yaml",
            PackageSource::CsvAnnotation => "its ClusterServiceVersion's annotation",
            PackageSource::Catalog => "the catalog it is filed in",
            PackageSource::CsvName => "its ClusterServiceVersion's name",
        }
    }
}

/// Every place that names the judged bundle's package, in the order of
/// [`PackageSource`]; the CSV's name only where its annotation is missing.
pub(crate) fn package_claims(p: &Planning<'_>) -> Vec<(String, PackageSource)> {
    let csv = p.csv.map(|i| &p.objects()[i]);
    let folder = csv.and_then(|c| c.file.as_ref()).map(|f| crate::plan::facts::origin::folder_of(&f.path));
    let from_csv = csv.and_then(crate::plan::facts::discover::package_of_csv);
    let mut claims = Vec::new();
    claims.extend(folder.and_then(|f| p.input.packages.get(f)).map(|n| (n.clone(), PackageSource::Metadata)));
    claims.extend(from_csv.clone().filter(|(_, declared)| *declared).map(|(n, _)| (n, PackageSource::CsvAnnotation)));
    claims.extend(p.input.catalog_package.map(|n| (n.to_string(), PackageSource::Catalog)));
    claims.extend(from_csv.filter(|(_, declared)| !declared).map(|(n, _)| (n, PackageSource::CsvName)));
    claims
}

/// The judged bundle's package, and whether it is declared: the first of
/// [`package_claims`]. The one place render decides which package is judged
/// here: the pin, the delegations and `spec.package` read it.
pub(crate) fn bundle_package(p: &Planning<'_>) -> Option<(String, bool)> {
    package_claims(p).into_iter().next().map(|(package, source)| (package, source != PackageSource::CsvName))
}
