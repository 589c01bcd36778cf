//! What `catalog filter` says: every bundle as `catalog judge` lists it, then
//! each bundle left out with why (its code and its errors), each entry whose
//! edges were rewired, and the channels and packages left empty.

use schemars::JsonSchema;
use serde::Serialize;

use super::Kept;
use crate::catalog::read::{Catalog, Place};
use crate::catalog::report::{self as rows, Format, Listing, Row, Verdict};
use crate::catalog::Images;
use crate::findings::Code;
use crate::outcome::Outcome;

/// `catalog filter --report`: `text` (the default), `markdown`, `json` or `sarif` (a result per bundle left
/// out and per entry rewired, for code scanning).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Report {
    #[default]
    Text,
    Markdown,
    Json,
    Sarif,
}

/// A bundle left out, and why.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Removed<'a> {
    /// Its package.
    package: &'a str,
    /// The `olm.bundle`'s name.
    bundle: &'a str,
    /// Its `olm.package` version.
    version: Option<&'a str>,
    /// The result code: `catalog-bundle-fails`, `-uninstallable`, `-unjudged` or `-tag-image`.
    code: &'static str,
    /// That code, as SARIF files the result.
    #[serde(skip)]
    #[schemars(skip)]
    rule: Code,
    /// Its row's errors: why.
    why: &'a [String],
    /// The manifest its first reason is about, when judged from its folder.
    #[serde(skip)]
    #[schemars(skip)]
    manifest: &'a Option<Place>,
}

/// A kept entry whose edges changed.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Rewired<'a> {
    /// Its package.
    package: &'a str,
    /// The channel whose entry changed.
    channel: &'a str,
    /// The kept bundle whose entry it is.
    bundle: &'a str,
    /// Its `replaces` as the catalog wrote it.
    replaces_before: Option<&'a str>,
    /// Its `replaces` now.
    replaces: Option<&'a str>,
    /// Left-out bundles its edges no longer name.
    dropped: &'a [String],
    /// Kept bundles added to its `skips`.
    added: &'a [String],
}

/// A channel left with no bundle, dropped.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DroppedChannel<'a> {
    /// Its package.
    package: &'a str,
    /// The channel.
    channel: &'a str,
}

/// A package left out whole, and why: its passing bundles cannot be served
/// as opm and OLM v1 expect.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RefusedPackage<'a> {
    /// The package.
    package: &'a str,
    /// The result code, `catalog-package-left-out`.
    code: &'static str,
    /// Why: its default channel keeps no bundle while others do, or a channel opm would refuse.
    why: &'a str,
}

/// `catalog filter --report json`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(rename = "CatalogFilterReport")]
struct Out<'a> {
    /// What was done: the file written, or why nothing was.
    said: &'a str,
    /// How many bundles the judged catalog keeps.
    kept: usize,
    /// Each bundle left out, and why.
    removed: Vec<Removed<'a>>,
    /// Each kept entry whose upgrade edges changed.
    rewired: Vec<Rewired<'a>>,
    /// The channels left empty.
    dropped_channels: Vec<DroppedChannel<'a>>,
    /// The packages that keep no bundle, left out whole.
    dropped_packages: &'a [String],
    /// The packages left out whole although bundles of theirs pass, each with why; the rest is written.
    refused_packages: Vec<RefusedPackage<'a>>,
    /// Every bundle as `catalog judge -o json` lists it.
    bundles: &'a [Row],
}

/// The JSON Schema of `catalog filter --report json` (`olm-rbac schema catalog-filter`).
pub fn json_schema() -> String {
    crate::schema::text_of::<Out<'static>>("catalog-filter")
}

/// Why a row is left out: its code.
fn code_of(row: &Row) -> Code {
    match row.verdict {
        Verdict::Fail => Code::CatalogBundleFails,
        Verdict::Uninstallable => Code::CatalogBundleUninstallable,
        Verdict::Unjudged => Code::CatalogBundleUnjudged,
        Verdict::Pass => Code::CatalogBundleTagImage,
    }
}

/// The report, exit 0: the filter did what was asked (`said` tells what).
pub(super) fn write(
    catalog: &Catalog,
    mut all: Vec<Row>,
    kept: &Kept,
    images: Images,
    report: Report,
    said: &str,
) -> Outcome {
    let table = match report {
        Report::Markdown => rows::rendered(&mut all, Listing::ByVersion, Format::Markdown, images),
        Report::Json => rows::rendered(&mut all, Listing::ByVersion, Format::Json, images),
        _ => rows::rendered(&mut all, Listing::ByVersion, Format::Text, images),
    };
    let removed: Vec<Removed<'_>> = all
        .iter()
        .filter(|r| !r.passes(images))
        .map(|r| Removed {
            package: &r.package,
            bundle: &r.bundle,
            version: r.version.as_deref(),
            code: code_of(r).id(),
            rule: code_of(r),
            why: &r.errors,
            manifest: &r.manifest,
        })
        .collect();
    let rewired: Vec<Rewired<'_>> = kept
        .packages
        .iter()
        .flat_map(|(p, f)| f.rewired.iter().map(move |r| (p, r)))
        .map(|(package, r)| Rewired {
            package,
            channel: &r.channel,
            bundle: &r.bundle,
            replaces_before: r.replaces.0.as_deref(),
            replaces: r.replaces.1.as_deref(),
            dropped: &r.dropped,
            added: &r.added,
        })
        .collect();
    let dropped_channels: Vec<DroppedChannel<'_>> = kept
        .packages
        .iter()
        .flat_map(|(p, f)| f.dropped.iter().map(move |c| DroppedChannel { package: p, channel: c }))
        .collect();
    let out = Out {
        said,
        kept: kept.bundles.len(),
        removed,
        rewired,
        dropped_channels,
        dropped_packages: &kept.dropped,
        refused_packages: kept
            .refused
            .iter()
            .map(|(package, why)| RefusedPackage { package, code: Code::CatalogPackageLeftOut.id(), why })
            .collect(),
        bundles: &all,
    };
    let stdout = match report {
        Report::Json => serde_json::to_string_pretty(&out).map(|s| s + "\n").unwrap_or_default(),
        Report::Sarif => sarif(catalog, &out),
        Report::Text => table + "\n" + &text(&out),
        Report::Markdown => table + "\n" + &markdown(&out),
    };
    // What render warns of the admin's config (a deny entry that denies
    // nothing) is said first, once, as `catalog judge` and `audit` say it.
    let stderr = format!(
        "{}{} of {} bundle(s) kept, {} left out, {} entr(ies) rewired; {said}\n",
        rows::config_warnings(&all),
        out.kept,
        all.len(),
        out.removed.len(),
        out.rewired.len()
    );
    Outcome { stdout, stderr, code: crate::outcome::Exit::Ok }
}

/// `replaces` as a rewired entry now says it.
fn replaces_said(r: &Rewired<'_>) -> String {
    match (r.replaces_before, r.replaces) {
        (before, after) if before == after => String::new(),
        (Some(before), Some(after)) => format!("replaces {after} (was {before})"),
        (Some(before), None) => format!("replaces nothing (was {before})"),
        (None, Some(after)) => format!("replaces {after}"),
        (None, None) => String::new(),
    }
}

/// What changed of a rewired entry, in words.
fn rewired_said(r: &Rewired<'_>) -> String {
    let mut parts = vec![replaces_said(r)];
    if !r.added.is_empty() {
        parts.push(format!("skips {} too", r.added.join(", ")));
    }
    let dropped: Vec<&str> = r
        .dropped
        .iter()
        .map(String::as_str)
        .filter(|d| Some(*d) != r.replaces_before || r.replaces.is_none())
        .collect();
    if !dropped.is_empty() {
        parts.push(format!("no longer names {}", dropped.join(", ")));
    }
    parts.retain(|p| !p.is_empty());
    parts.join("; ")
}

fn text(out: &Out<'_>) -> String {
    let printable = crate::check::table::printable;
    let mut s = String::new();
    for r in &out.removed {
        s.push_str(&format!("left out  {}  {}  {}\n", printable(r.package), printable(r.bundle), r.code));
    }
    for r in &out.rewired {
        let (p, c, b) = (printable(r.package), printable(r.channel), printable(r.bundle));
        s.push_str(&format!("rewired   {p}  channel {c}: {b} {}\n", printable(&rewired_said(r))));
    }
    for d in &out.dropped_channels {
        s.push_str(&format!("dropped   {}  channel {}: no bundle kept\n", printable(d.package), printable(d.channel)));
    }
    for p in out.dropped_packages {
        s.push_str(&format!("dropped   {}  package: no bundle kept\n", printable(p)));
    }
    for r in &out.refused_packages {
        s.push_str(&format!("left out  {}  package  {}: {}\n", printable(r.package), r.code, printable(r.why)));
    }
    s
}

fn markdown(out: &Out<'_>) -> String {
    use crate::check::markdown::{code, text};
    let mut s = String::from("| change | package | what | why |\n|---|---|---|---|\n");
    for r in &out.removed {
        let why = r.why.iter().map(|w| text(w)).collect::<Vec<_>>().join("<br>");
        s.push_str(&format!("| left out | {} | {} | `{}`: {why} |\n", code(r.package), code(r.bundle), r.code));
    }
    for r in &out.rewired {
        let what = format!("channel {}: {}", code(r.channel), code(r.bundle));
        s.push_str(&format!("| rewired | {} | {what} | {} |\n", code(r.package), text(&rewired_said(r))));
    }
    for d in &out.dropped_channels {
        s.push_str(&format!("| dropped | {} | channel {} | no bundle kept |\n", code(d.package), code(d.channel)));
    }
    for p in out.dropped_packages {
        s.push_str(&format!("| dropped | {} | package | no bundle kept |\n", code(p)));
    }
    for r in &out.refused_packages {
        s.push_str(&format!("| left out | {} | package | `{}`: {} |\n", code(r.package), r.code, text(r.why)));
    }
    s
}

/// A result per bundle left out (a warning), per entry rewired (a note) and
/// per package left out whole (a warning), each at a line: a bundle judged
/// from its folder at the manifest its first reason is about, where the
/// object's document starts; any other bundle at its `olm.bundle` document
/// in the catalog, a package at its `olm.package` document.
fn sarif(catalog: &Catalog, out: &Out<'_>) -> String {
    use crate::sarif::{Level, Result};
    let at = |place: Option<Place>| place.map(|p| (p.file.display().to_string(), p.line)).unzip();
    let bundle_at = |package: &str, bundle: &str| at(catalog.place_of(package, bundle));
    let mut results: Vec<Result> = out
        .removed
        .iter()
        .map(|r| {
            let (uri, line) = match &r.manifest {
                Some(manifest) => at(Some(manifest.clone())),
                None => bundle_at(r.package, r.bundle),
            };
            Result {
                rule: r.rule,
                level: Level::Warning,
                message: format!("{} of package {} is left out: {}", r.bundle, r.package, r.why.join("; ")),
                uri,
                line,
            }
        })
        .collect();
    results.extend(out.rewired.iter().map(|r| {
        let (uri, line) = bundle_at(r.package, r.bundle);
        Result {
            rule: Code::CatalogEdgeRewired,
            level: Level::Note,
            message: format!("channel {} of package {}: {} {}", r.channel, r.package, r.bundle, rewired_said(r)),
            uri,
            line,
        }
    }));
    results.extend(out.refused_packages.iter().map(|r| {
        let (uri, line) = at(catalog.package_place(r.package));
        Result {
            rule: Code::CatalogPackageLeftOut,
            level: Level::Warning,
            message: format!("package {} is left out whole: {}", r.package, r.why),
            uri,
            line,
        }
    }));
    crate::sarif::log(env!("CARGO_PKG_VERSION"), &results)
}
