//! One bundle judged, the gains between a package's versions, and the report.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::Entry;
use crate::access::danger::Severity;
use crate::check::commands::{Common, Format as CheckFormat};
use crate::check::diff::{diff, DiffOptions, FailOn};
use crate::input::Source;
use crate::outcome::Outcome;
use crate::semver::Version;

/// `catalog judge -o` and `catalog audit -o`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Markdown,
    Json,
}

/// One bundle (`-o json` prints a list of them).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CatalogRow")]
pub struct Row {
    /// The package it is a bundle of.
    pub package: String,
    /// The `olm.bundle`'s name.
    pub bundle: String,
    /// Its `olm.package` version, when it has one.
    pub version: Option<String>,
    /// `pass`, `fail`, or `unjudged` (no manifests to judge, manifests that are not the bundle's, or,
    /// for `catalog judge`, an image not named by digest).
    pub verdict: Verdict,
    /// The bundle image OLM installs, as the catalog names it.
    pub image: Option<String>,
    /// Whether that image is named by digest (`@sha256:`), so that the verdict binds its content.
    pub pinned: bool,
    /// The worst level of what the install grants that the dangerous-permissions catalogue marks
    /// (a bundle role the cluster fills by aggregation counts as critical: it is unbounded).
    pub worst: Option<Severity>,
    /// Why it fails or cannot be judged: render's errors.
    pub errors: Vec<String>,
    /// What the install would grant that the dangerous-permissions catalogue marks, as render says it.
    pub dangerous: Vec<String>,
    /// What each subject gains over the package's next lower version that rendered (`diff -o json`'s
    /// `gained`); empty for the lowest, and for a bundle that did not render.
    pub gained: Vec<Value>,
    /// What the package's `olm.deprecations` says of the bundle, of a channel that lists it, or of
    /// the package: OLM v1 still installs a deprecated bundle and reports it on the ClusterExtension.
    pub deprecations: Vec<String>,
    #[serde(skip)]
    #[schemars(skip)]
    parsed_version: Option<Version>,
    /// The RBAC documents of its render, kept for the gains and then dropped.
    #[serde(skip)]
    #[schemars(skip)]
    rbac: Option<String>,
}

/// How one bundle fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
    Unjudged,
}

impl Verdict {
    fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Unjudged => "unjudged",
        }
    }
}

/// What render says of a bundle role the cluster fills by aggregation.
const UNMEASURED: &str = "it holds whatever the cluster aggregates into it";

/// A bundle that cannot be judged, and why.
pub(super) fn unjudged(entry: &Entry, why: String) -> Row {
    let mut row = row_of(entry);
    row.errors.push(why);
    row
}

fn row_of(entry: &Entry) -> Row {
    Row {
        package: entry.package.clone(),
        bundle: entry.name.clone(),
        version: entry.version.as_ref().map(ToString::to_string),
        verdict: Verdict::Unjudged,
        image: entry.image.clone(),
        pinned: entry.image.as_deref().is_some_and(crate::model::is_digest_ref),
        worst: None,
        errors: Vec::new(),
        dangerous: Vec::new(),
        gained: Vec::new(),
        deprecations: entry.deprecations.clone(),
        parsed_version: entry.version.clone(),
        rbac: None,
    }
}

/// Renders the bundle as `render` would its folder, with `config`.
pub(super) fn judge_one(entry: &Entry, sources: &[Source], config: &[Source]) -> Row {
    let mut row = row_of(entry);
    let out = crate::run::render(sources, config);
    let lines = |prefix: &str| -> Vec<String> {
        out.stderr.lines().filter_map(|l| l.strip_prefix(prefix)).map(str::to_string).collect()
    };
    row.errors = lines("error: ");
    row.dangerous =
        lines("warning: ").into_iter().filter(|l| l.contains("would be granted") || l.contains(UNMEASURED)).collect();
    row.worst = row.errors.iter().chain(&row.dangerous).filter_map(|l| level_named(l)).max();
    row.verdict = if out.code == 0 { Verdict::Pass } else { Verdict::Fail };
    if out.code == 0 {
        row.rbac = Some(rbac_documents(&out.stdout));
    }
    row
}

/// The role and binding documents of a render: what `diff` compares, a
/// small part of a bundle (its CRDs, the bulk, left out).
fn rbac_documents(rendered: &str) -> String {
    use crate::model::{view_for, ViewKind};
    let Ok(chunks) = crate::yaml::split_documents(rendered) else { return String::new() };
    chunks
        .iter()
        .filter(|c| matches!(view_for(&c.header), Some(ViewKind::Role | ViewKind::Binding)))
        .map(|c| c.text.as_ref())
        .collect::<Vec<_>>()
        .join("---\n")
}

/// The dangerous-permission level a message of render's names, as
/// `(critical)`, `(high)` or `(medium)`; a role filled by aggregation is
/// unbounded, so critical.
fn level_named(line: &str) -> Option<Severity> {
    if line.contains(UNMEASURED) {
        return Some(Severity::Critical);
    }
    [Severity::Critical, Severity::High, Severity::Medium]
        .into_iter()
        .find(|s| line.contains(&format!("({})", s.as_str())))
}

/// Fills each row's gains over its package's next lower version that
/// rendered, then drops the renders.
pub(super) fn add_gains(rows: &mut [Row]) {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| {
        (&rows[a].package, &rows[a].parsed_version).cmp(&(&rows[b].package, &rows[b].parsed_version))
    });
    let mut previous: Option<usize> = None;
    for i in order {
        let Some(new) = rows[i].rbac.clone() else { continue };
        if let Some(p) = previous.filter(|&p| rows[p].package == rows[i].package) {
            let old = [Source { name: rows[p].bundle.clone(), text: rows[p].rbac.clone().unwrap_or_default() }];
            let new = [Source { name: rows[i].bundle.clone(), text: new }];
            let options = DiffOptions { format: CheckFormat::Json, fail_on: FailOn::None, common: Common::default() };
            let changes: Value = serde_json::from_str(&diff(&old, &new, options).stdout).unwrap_or_default();
            rows[i].gained = changes["gained"].as_array().cloned().unwrap_or_default();
        }
        previous = Some(i);
    }
    for row in rows.iter_mut() {
        row.rbac = None;
    }
}

/// Worst first, then the most dangerous grants, then by package and version.
pub(super) fn rank(rows: &mut [Row]) {
    rows.sort_by(|a, b| {
        (b.worst, b.dangerous.len())
            .cmp(&(a.worst, a.dangerous.len()))
            .then_with(|| (&a.package, &a.parsed_version).cmp(&(&b.package, &b.parsed_version)))
    });
}

/// The report: exit 0 when every bundle passes, 1 otherwise.
pub(super) fn write(rows: &[Row], format: Format) -> Outcome {
    let failed = rows.iter().filter(|r| r.verdict != Verdict::Pass).count();
    let stdout = match format {
        Format::Json => serde_json::to_string_pretty(rows).map(|s| s + "\n").unwrap_or_default(),
        Format::Text => text(rows),
        Format::Markdown => markdown(rows),
    };
    let stderr = format!("{} bundle(s): {} pass, {failed} fail or cannot be judged\n", rows.len(), rows.len() - failed);
    Outcome { stdout, stderr, code: i32::from(failed > 0) }
}

fn text(rows: &[Row]) -> String {
    let line = |cells: [&str; 7]| {
        format!(
            "{:<40} {:<12} {:<9} {:<7} {:<9} {:>9} {:>7}\n",
            cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6]
        )
    };
    let mut out = line(["BUNDLE", "VERSION", "VERDICT", "IMAGE", "WORST", "DANGEROUS", "GAINED"]);
    for r in rows {
        let (dangerous, gained) = (r.dangerous.len().to_string(), r.gained.len().to_string());
        let version = r.version.as_deref().unwrap_or("-");
        let worst = r.worst.map_or("-", Severity::as_str);
        let image = if r.pinned { "digest" } else { "tag" };
        let bundle = crate::check::table::printable(&r.bundle);
        out.push_str(&line([&bundle, version, r.verdict.as_str(), image, worst, &dangerous, &gained]));
        for e in &r.errors {
            out.push_str(&format!("  {}\n", crate::check::table::printable(e)));
        }
        for d in &r.deprecations {
            out.push_str(&format!("  {}\n", crate::check::table::printable(d)));
        }
    }
    out
}

fn markdown(rows: &[Row]) -> String {
    let mut out = String::from(
        "| bundle | version | verdict | image | worst | dangerous | gained | why |\n|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let why: Vec<String> =
            r.errors.iter().chain(&r.deprecations).map(|e| crate::check::markdown::text(e)).collect();
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            crate::check::markdown::code(&r.bundle),
            r.version.as_deref().unwrap_or("-"),
            r.verdict.as_str(),
            if r.pinned { "digest" } else { "tag" },
            r.worst.map_or("-", Severity::as_str),
            r.dangerous.len(),
            r.gained.len(),
            why.join("<br>")
        ));
    }
    out
}

/// The JSON Schema of `catalog judge -o json` and `catalog audit -o json`
/// (`olm-rbac schema catalog`).
pub fn json_schema() -> String {
    crate::schema::text_of::<Vec<Row>>("catalog")
}
