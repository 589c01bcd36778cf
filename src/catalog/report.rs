//! One admitted bundle judged, and the report of them all.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::{Entry, Verdict};
use crate::check::commands::Common;
use crate::check::commands::Format as CheckFormat;
use crate::check::diff::{diff, DiffOptions, FailOn};
use crate::input::Source;
use crate::outcome::Outcome;

/// `catalog judge -o`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Markdown,
    Json,
}

/// One admitted bundle (`catalog judge -o json` prints a list of them).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CatalogJudgeRow")]
pub struct Row {
    /// The `olm.bundle`'s name.
    pub bundle: String,
    /// Its `olm.package` version, when it has one.
    pub version: Option<String>,
    /// `pass`, `fail`, or `unjudged` (admitted, but no manifests to judge).
    pub verdict: VerdictOut,
    /// Why it fails or cannot be judged: render's errors.
    pub errors: Vec<String>,
    /// What its operator or installer would hold that the dangerous-permissions catalogue marks.
    pub dangerous: Vec<String>,
    /// What each subject gains from the previous admitted bundle that was rendered (`diff -o json`'s `gained`).
    pub gained: Vec<Value>,
    #[serde(skip)]
    #[schemars(skip)]
    pub rendered: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum VerdictOut {
    Pass,
    Fail,
    Unjudged,
}

impl From<Verdict> for VerdictOut {
    fn from(v: Verdict) -> Self {
        match v {
            Verdict::Pass => VerdictOut::Pass,
            Verdict::Fail => VerdictOut::Fail,
            Verdict::Unjudged => VerdictOut::Unjudged,
        }
    }
}

/// Renders the bundle as `render` would its folder, with the admin's config.
pub(super) fn judge_one(entry: &Entry, sources: &[Source], config: &[Source], previous: Option<&str>) -> Row {
    let version = entry.version.as_ref().map(ToString::to_string);
    let mut row = Row {
        bundle: entry.name.clone(),
        version,
        verdict: VerdictOut::Unjudged,
        errors: Vec::new(),
        dangerous: Vec::new(),
        gained: Vec::new(),
        rendered: None,
    };
    if sources.is_empty() {
        row.errors.push(format!(
            "the catalog carries no manifests for {} (no olm.bundle.object), and --bundles has no folder for it: it cannot be judged",
            entry.name
        ));
        return row;
    }
    let out = crate::run::render(sources, config);
    let lines = |prefix: &str| -> Vec<String> {
        out.stderr.lines().filter_map(|l| l.strip_prefix(prefix)).map(str::to_string).collect()
    };
    row.errors = lines("error: ");
    row.dangerous = lines("warning: ").into_iter().filter(|l| l.contains("would be granted")).collect();
    row.verdict = if out.code == 0 { VerdictOut::Pass } else { VerdictOut::Fail };
    if out.code == 0 {
        if let Some(previous) = previous {
            let old = [Source { name: "previous".into(), text: previous.to_string() }];
            let new = [Source { name: entry.name.clone(), text: out.stdout.clone() }];
            let options = DiffOptions { format: CheckFormat::Json, fail_on: FailOn::None, common: Common::default() };
            let changes: Value = serde_json::from_str(&diff(&old, &new, options).stdout).unwrap_or_default();
            row.gained = changes["gained"].as_array().cloned().unwrap_or_default();
        }
        row.rendered = Some(out.stdout);
    }
    row
}

/// The report, exit 0 when every admitted bundle passes, 1 otherwise.
pub(super) fn write(rows: &[Row], format: Format) -> Outcome {
    let failed = rows.iter().filter(|r| r.verdict != VerdictOut::Pass).count();
    let code = i32::from(failed > 0);
    let stdout = match format {
        Format::Json => serde_json::to_string_pretty(rows).map(|s| s + "\n").unwrap_or_default(),
        Format::Text => {
            let mut out =
                format!("{:<40} {:<12} {:<9} {:>9} {:>7}\n", "BUNDLE", "VERSION", "VERDICT", "DANGEROUS", "GAINED");
            for r in rows {
                out.push_str(&format!(
                    "{:<40} {:<12} {:<9} {:>9} {:>7}\n",
                    r.bundle,
                    r.version.as_deref().unwrap_or("-"),
                    verdict_word(r.verdict),
                    r.dangerous.len(),
                    r.gained.len()
                ));
                for e in &r.errors {
                    out.push_str(&format!("  {e}\n"));
                }
            }
            out
        }
        Format::Markdown => {
            let mut out =
                String::from("| bundle | version | verdict | dangerous | gained | why |\n|---|---|---|---|---|---|\n");
            for r in rows {
                let why: Vec<String> = r.errors.iter().map(|e| crate::check::markdown::text(e)).collect();
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} | {} |\n",
                    crate::check::markdown::text(&r.bundle),
                    r.version.as_deref().unwrap_or("-"),
                    verdict_word(r.verdict),
                    r.dangerous.len(),
                    r.gained.len(),
                    why.join("<br>")
                ));
            }
            out
        }
    };
    let stderr =
        format!("{} admitted bundle(s): {} pass, {failed} fail or cannot be judged\n", rows.len(), rows.len() - failed);
    Outcome { stdout, stderr, code }
}

fn verdict_word(v: VerdictOut) -> &'static str {
    match v {
        VerdictOut::Pass => "pass",
        VerdictOut::Fail => "fail",
        VerdictOut::Unjudged => "unjudged",
    }
}

/// The JSON Schema of `catalog judge -o json` (`olm-rbac schema catalog-judge`).
pub fn json_schema() -> String {
    crate::schema::text_of::<Vec<Row>>("catalog-judge")
}
