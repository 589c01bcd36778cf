//! One bundle judged, the gains between a package's versions, and the report.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::Entry;
use crate::access::danger::Severity;
use crate::input::Source;
use crate::outcome::Outcome;
use crate::semver::Version;

pub(super) mod gains;

/// `catalog judge -o` and `catalog audit -o`. `Text` (the default): one line per bundle in aligned columns,
/// its errors and deprecations indented below it; `Markdown`: a table, one row per bundle, its errors and
/// deprecations in the `why` column; `Json`: a list of rows, as `docs/catalog.schema.json` describes them.
// No doc comments on the variants: clap would show them as help of their own (hence `missing_docs` allowed).
#[allow(missing_docs)]
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
    /// `pass`, `fail`, `unjudged` (no manifests to judge, or manifests that are not the bundle's), or
    /// `uninstallable` (OLM v1 refuses the bundle whatever its RBAC; `errors` name the rule). An image named by
    /// tag keeps the policy's verdict: `pinned` says so, and `catalog judge` (without `--allow-tag-images`)
    /// fails it, its `errors` led by why.
    pub verdict: Verdict,
    /// The bundle image OLM installs, as the catalog names it.
    pub image: Option<String>,
    /// Whether that image is named by digest (`@sha256:`), so that the verdict binds its content.
    pub pinned: bool,
    /// What was judged: `image` (the bundle image of that digest, from `--bundles` or `--pull`), `folder` (a
    /// bundle folder under `--bundles`, standing in for the image) or `catalog` (the catalog's
    /// `olm.bundle.object`); none when nothing was found.
    pub source: Option<super::ReadFrom>,
    /// The `-c` file whose RBACConfig judged it: the one naming its package in `spec.package`, else the one
    /// naming none; none when no config was given (`catalog audit` without `-c`) or none judges its package.
    pub config: Option<String>,
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
    /// What render warns of besides the dangerous grants: its warnings on the bundle's objects (a pod's
    /// security, an unmeasurable aggregation, ...) and on the admin's config (a policy entry that
    /// matches nothing), as render says them.
    pub warnings: Vec<String>,
    /// What the package's `olm.deprecations` says of the bundle, of a channel that lists it, or of
    /// the package: OLM v1 still installs a deprecated bundle and reports it on the ClusterExtension.
    pub deprecations: Vec<String>,
    #[serde(skip)]
    #[schemars(skip)]
    parsed_version: Option<Version>,
    /// Those of `warnings` about the admin's RBACConfig, said once for the run.
    #[serde(skip)]
    #[schemars(skip)]
    config_warnings: Vec<String>,
    /// The roles and bindings its install leaves on the cluster, kept for the
    /// gains and then dropped: the objects, not the cluster's RBAC built from
    /// them, which holds Kubernetes' bootstrap roles too and would make a
    /// catalog's peak grow with its bundles.
    #[serde(skip)]
    #[schemars(skip)]
    rbac: Option<Vec<crate::model::InputObject>>,
    /// Where SARIF points the row's reasons: the manifest the first of them
    /// is about and the line its document starts on, as judged (named as the
    /// bundle's, `<bundle>/manifests/<file>`), until the catalog sets where
    /// it is on disk (`bundles::on_disk`).
    #[serde(skip)]
    #[schemars(skip)]
    pub(super) manifest: Option<super::read::Place>,
}

pub use crate::judge::Verdict;

impl Row {
    /// Whether its image is named by tag where only digests are accepted:
    /// no verdict binds what OLM pulls under a tag.
    pub(super) fn tag_refused(&self, images: super::Images) -> bool {
        images == super::Images::ByDigest && !self.pinned && self.image.is_some()
    }

    /// Whether it passes `catalog judge`: the policy's verdict is pass, OLM
    /// v1 installs it, and its image binds the verdict.
    pub(super) fn passes(&self, images: super::Images) -> bool {
        self.verdict == Verdict::Pass && !self.tag_refused(images)
    }
}

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
        source: None,
        config: None,
        worst: None,
        errors: Vec::new(),
        dangerous: Vec::new(),
        warnings: Vec::new(),
        gained: Vec::new(),
        deprecations: entry.deprecations.clone(),
        parsed_version: entry.version.clone(),
        config_warnings: Vec::new(),
        rbac: None,
        manifest: None,
    }
}

/// Judges the bundle as `render` would its folder, with `config` (and what
/// reading its folder found of its layout, `roots`), and writes the
/// judgement's verdict as a row: its reasons, every dangerous grant (worst
/// first, none left out), the worst level, and the cluster's RBAC for the
/// gains.
pub(super) fn judge_one(
    entry: &Entry,
    sources: &[Source],
    config: &[Source],
    extension: crate::judge::Extension<'_>,
    roots: &[crate::input::BundleRoot],
) -> Row {
    let mut row = row_of(entry);
    let judged = crate::judge::judge_filed(sources, config, roots, &entry.package);
    let decision = judged.verdict(extension);
    if decision.verdict == Verdict::Unjudged {
        let unread = |f: &crate::findings::Finding| {
            format!("its manifests cannot be read as OLM reads them: {}", f.said_in_file())
        };
        row.errors = decision.reasons.iter().map(unread).collect();
        row.manifest = manifest_of(&judged, &decision.reasons);
        return row;
    }
    if let Some(why) = not_the_bundle(entry, &judged) {
        row.errors.push(why);
        return row;
    }
    row.verdict = decision.verdict;
    row.manifest = manifest_of(&judged, &decision.reasons);
    row.errors = decision.reasons.iter().map(|f| f.said_in_file()).collect();
    row.dangerous = decision.dangerous.iter().map(|f| f.said_in_file()).collect();
    row.warnings = decision.warnings.iter().map(|f| f.said_in_file()).collect();
    row.config_warnings = decision.about_the_config().map(|f| f.said_in_file()).collect();
    row.worst = decision.worst();
    // What OLM v1 refuses is never installed, and what did not render left
    // nothing: neither is a version to gain over.
    if decision.rendered && decision.verdict != Verdict::Uninstallable {
        row.rbac = Some(judged.rbac());
    }
    row
}

/// The first of `reasons` about one of the bundle's manifests: its file and
/// the line its document starts on.
fn manifest_of(judged: &crate::judge::Judged<'_>, reasons: &[crate::findings::Finding]) -> Option<super::read::Place> {
    reasons.iter().find_map(|f| {
        let file = f.file.as_ref()?;
        let line = *judged.lines(true).get(&(file.path.as_str(), file.index))?;
        Some(super::read::Place { file: file.path.clone().into(), line })
    })
}

/// Why the manifests read are not the bundle OLM installs, if they are
/// not: other than exactly one ClusterServiceVersion, named as the bundle,
/// at the catalog's version (the bundle is unjudged, never failed).
/// Read from the judgement's own values, so each manifest is read once.
fn not_the_bundle(entry: &Entry, judged: &crate::judge::Judged<'_>) -> Option<String> {
    use crate::model::{view_for, ViewKind};
    let csvs: Vec<Option<&str>> = judged
        .kept
        .iter()
        .filter(|(c, _)| view_for(&c.header) == Some(ViewKind::Csv))
        .map(|(c, _)| c.header.name.as_deref())
        .collect();
    let [name] = csvs.as_slice() else {
        return Some(format!(
            "its manifests hold {} ClusterServiceVersions, not one: what the operator is granted cannot be judged",
            csvs.len()
        ));
    };
    if *name != Some(entry.name.as_str()) {
        return Some(format!(
            "its ClusterServiceVersion is named {:?}, not {:?}: these manifests are not the bundle the catalog names",
            name.unwrap_or_default(),
            entry.name
        ));
    }
    let version = judged.csv().and_then(|view| view.spec.version.as_deref()).and_then(|v| Version::parse(v).ok());
    match (&entry.version, version) {
        (Some(listed), Some(csv)) if *listed != csv => Some(format!(
            "its ClusterServiceVersion is version {csv}, but the catalog lists {listed}: these manifests are not the bundle the catalog names"
        )),
        _ => None,
    }
}

/// How a report lists its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Listing {
    /// By package, then version (1.6.1 before 1.10.0): `catalog judge`.
    ByVersion,
    /// Worst first, then the most dangerous grants, then by package and
    /// version, after a roll-up of one line per package (so that one
    /// package's versions cannot fill the top of the list): `catalog audit`.
    Ranked,
}

impl Listing {
    fn sort(self, rows: &mut [Row]) {
        match self {
            Listing::ByVersion => rows.sort_by(|a, b| {
                (&a.package, &a.parsed_version, &a.bundle).cmp(&(&b.package, &b.parsed_version, &b.bundle))
            }),
            Listing::Ranked => rows.sort_by(|a, b| {
                (b.worst, b.dangerous.len())
                    .cmp(&(a.worst, a.dangerous.len()))
                    .then_with(|| (&a.package, &a.parsed_version).cmp(&(&b.package, &b.parsed_version)))
            }),
        }
    }
}

/// One package's bundles at a glance: how many, how many pass, the worst
/// level and the most dangerous grants any of them holds, and the bundle
/// that ranks first.
struct Package<'a> {
    name: &'a str,
    bundles: usize,
    passed: usize,
    worst: Option<Severity>,
    dangerous: usize,
    first: &'a str,
}

/// The packages of ranked rows, in the order of each one's first row.
fn packages(ranked: &[Row]) -> Vec<Package<'_>> {
    let mut out: Vec<Package<'_>> = Vec::new();
    for r in ranked {
        let passed = usize::from(r.verdict == Verdict::Pass);
        match out.iter_mut().find(|p| p.name == r.package) {
            Some(p) => {
                p.bundles += 1;
                p.passed += passed;
            }
            None => out.push(Package {
                name: &r.package,
                bundles: 1,
                passed,
                worst: r.worst,
                dangerous: r.dangerous.len(),
                first: &r.bundle,
            }),
        }
    }
    out
}

/// The warnings about the admin's RBACConfig, the same for every bundle
/// judged with it: each once, on stderr, as render says them (what each row
/// warns of on its own objects is in `-o json`).
pub(super) fn config_warnings(rows: &[Row]) -> String {
    let mut said = std::collections::BTreeSet::new();
    let mut out = String::new();
    for w in rows.iter().flat_map(|r| &r.config_warnings) {
        if said.insert(w) {
            out.push_str(&format!("warning: {}\n", crate::check::table::printable(w)));
        }
    }
    out
}

/// What a bundle image named by tag says where only digests are accepted.
pub(super) const TAG_IMAGE: &str = "its image is named by tag, not by digest: what OLM pulls under it can change after this judgement, so the verdict does not bind it; name the bundle image by digest in the catalog, or pass --allow-tag-images to accept tag images";

/// The report: exit 0 when every bundle passes (and, where only digests are
/// accepted, names its image by digest), 1 otherwise.
pub(super) fn write(mut rows: Vec<Row>, listing: Listing, format: Format, images: super::Images) -> Outcome {
    let stdout = rendered(&mut rows, listing, format, images);
    let tagged = |r: &Row| r.tag_refused(images);
    let failed = rows.iter().filter(|r| !r.passes(images)).count();
    let mut stderr =
        format!("{} bundle(s): {} pass, {failed} fail or cannot be judged\n", rows.len(), rows.len() - failed);
    stderr.insert_str(0, &config_warnings(&rows));
    let tags = rows.iter().filter(|r| tagged(r)).count();
    if tags > 0 {
        stderr.push_str(&format!(
            "{tags} bundle image(s) named by tag, each judged but not accepted: pass --allow-tag-images to accept them\n"
        ));
    }
    Outcome { stdout, stderr, code: crate::outcome::Exit::refused_if(failed > 0) }
}

/// The rows as `format` writes them, in `listing`'s order; where only
/// digests are accepted, a bundle image named by tag leads its row's errors
/// with why (the verdict stays the policy's).
pub(super) fn rendered(rows: &mut [Row], listing: Listing, format: Format, images: super::Images) -> String {
    listing.sort(rows);
    for row in rows.iter_mut().filter(|r| r.tag_refused(images)) {
        row.errors.insert(0, TAG_IMAGE.to_string());
    }
    match format {
        Format::Json => serde_json::to_string_pretty(&rows).map(|s| s + "\n").unwrap_or_default(),
        Format::Text => text(rows, listing),
        Format::Markdown => markdown(rows, listing),
    }
}

/// The `IMAGE` column: `digest`, `tag`, or `-` for a bundle that names none.
fn image_column(r: &Row) -> &'static str {
    match (&r.image, r.pinned) {
        (None, _) => "-",
        (Some(_), true) => "digest",
        (Some(_), false) => "tag",
    }
}

/// Lines of cells in columns as wide as their widest cell; the columns
/// `right` names (counts) are aligned right.
fn columns(lines: &[Vec<String>], right: &[usize]) -> String {
    let widths: Vec<usize> = (0..lines.first().map_or(0, Vec::len))
        .map(|i| lines.iter().map(|l| l.get(i).map_or(0, |c| c.chars().count())).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for line in lines {
        let cells = line.iter().zip(&widths).enumerate().map(|(i, (c, &w))| match right.contains(&i) {
            true => format!("{c:>w$}"),
            false => format!("{c:<w$}"),
        });
        out.push_str(cells.collect::<Vec<_>>().join("  ").trim_end());
        out.push('\n');
    }
    out
}

fn text(rows: &[Row], listing: Listing) -> String {
    let printable = crate::check::table::printable;
    let mut out = String::new();
    if listing == Listing::Ranked {
        let mut lines =
            vec![["PACKAGE", "BUNDLES", "PASS", "WORST", "DANGEROUS", "WORST BUNDLE"].map(String::from).to_vec()];
        for p in packages(rows) {
            lines.push(vec![
                printable(p.name),
                p.bundles.to_string(),
                p.passed.to_string(),
                p.worst.map_or("-", Severity::as_str).into(),
                p.dangerous.to_string(),
                printable(p.first),
            ]);
        }
        out.push_str(&columns(&lines, &[1, 2, 4]));
        out.push('\n');
    }
    let header = ["PACKAGE", "BUNDLE", "VERSION", "VERDICT", "IMAGE", "WORST", "DANGEROUS", "GAINED", "CONFIG"];
    let by_config = by_config(rows);
    let mut lines = vec![header[..header.len() - usize::from(!by_config)].iter().map(|h| h.to_string()).collect()];
    let mut notes: Vec<Vec<String>> = vec![Vec::new()];
    for r in rows {
        let mut line = vec![
            printable(&r.package),
            printable(&r.bundle),
            r.version.clone().unwrap_or_else(|| "-".into()),
            r.verdict.as_str().into(),
            image_column(r).into(),
            r.worst.map_or("-", Severity::as_str).into(),
            r.dangerous.len().to_string(),
            r.gained.len().to_string(),
        ];
        if by_config {
            line.push(r.config.as_deref().map_or("-".into(), printable));
        }
        lines.push(line);
        notes.push(r.errors.iter().chain(&r.deprecations).map(|e| format!("  {}\n", printable(e))).collect());
    }
    for (line, notes) in columns(&lines, &[6, 7]).lines().zip(notes) {
        out.push_str(line);
        out.push('\n');
        out.extend(notes);
    }
    out
}

fn markdown(rows: &[Row], listing: Listing) -> String {
    use crate::check::markdown::{code, text};
    let mut out = String::new();
    if listing == Listing::Ranked {
        out.push_str("| package | bundles | pass | worst | dangerous | worst bundle |\n|---|---|---|---|---|---|\n");
        for p in packages(rows) {
            let worst = p.worst.map_or("-", Severity::as_str);
            let (name, first) = (code(p.name), code(p.first));
            out.push_str(&format!("| {name} | {} | {} | {worst} | {} | {first} |\n", p.bundles, p.passed, p.dangerous));
        }
        out.push('\n');
    }
    let by_config = by_config(rows);
    let (head, rule) = if by_config { (" config |", "---|") } else { ("", "") };
    out.push_str(&format!(
        "| package | bundle | version | verdict | image | worst | dangerous | gained |{head} why |\n|---|---|---|---|---|---|---|---|{rule}---|\n",
    ));
    for r in rows {
        let why: Vec<String> = r.errors.iter().chain(&r.deprecations).map(|e| text(e)).collect();
        let config =
            if by_config { format!(" {} |", r.config.as_deref().map_or("-".into(), code)) } else { String::new() };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |{config} {} |\n",
            code(&r.package),
            code(&r.bundle),
            r.version.as_deref().unwrap_or("-"),
            r.verdict.as_str(),
            image_column(r),
            r.worst.map_or("-", Severity::as_str),
            r.dangerous.len(),
            r.gained.len(),
            why.join("<br>")
        ));
    }
    out
}

/// Whether the rows were judged with more than one config (`-c` given for a
/// package's exception): then the text and Markdown say which judged each.
fn by_config(rows: &[Row]) -> bool {
    let configs: std::collections::BTreeSet<Option<&str>> = rows.iter().map(|r| r.config.as_deref()).collect();
    configs.len() > 1
}

/// The JSON Schema of `catalog judge -o json` and `catalog audit -o json`
/// (`olm-rbac schema catalog`).
pub fn json_schema() -> String {
    crate::schema::text_of::<Vec<Row>>("catalog")
}
