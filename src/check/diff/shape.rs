//! What `diff` prints: a table per holder for a terminal (wrapped to 120
//! columns, as `report`), Markdown for a pull-request comment, and the JSON
//! or YAML shape [`DiffOut`], whose JSON Schema `olm-rbac schema diff-output`
//! prints (docs/diff-output.schema.json).

use std::collections::BTreeMap;

use k8s_openapi::api::rbac::v1::{PolicyRule, Subject};
use schemars::JsonSchema;
use serde::Serialize;

use super::{Change, Changes, Holder, InstallRight};
use crate::access::allowed::Target;
use crate::access::danger::Severity;
use crate::access::Grantee;
use crate::check::commands::{encoded, Format};
use crate::check::markdown;

use crate::check::table::{printable, wrapped, TERMINAL};
use crate::outcome::Outcome;

/// What a diff with no change says, on its one line.
pub(crate) const NO_CHANGE: &str = "no change in access: OLD and NEW grant the same";

/// `diff -o json|yaml`: every rule gained, and every rule lost.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "DiffOutput")]
pub struct DiffOut {
    /// What NEW allows that OLD does not.
    pub gained: Vec<ChangeOut>,
    /// What OLD allows that NEW does not.
    pub lost: Vec<ChangeOut>,
    /// Rights to install an operator (delegated installs) NEW grants that OLD does not.
    #[serde(rename = "installsGained", default, skip_serializing_if = "Vec::is_empty")]
    pub installs_gained: Vec<InstallOut>,
    /// Rights to install an operator OLD grants that NEW does not.
    #[serde(rename = "installsLost", default, skip_serializing_if = "Vec::is_empty")]
    pub installs_lost: Vec<InstallOut>,
}

/// A right to install: who may create a ClusterExtension of `package` at
/// `version` into `namespace` from `catalog`, labelled for `team`; asked of
/// each side's RBAC and admission policies.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InstallOut {
    pub subject: SubjectOut,
    pub package: String,
    pub version: String,
    pub namespace: String,
    pub catalog: String,
    pub team: String,
    /// For a ClusterExtension outside the team's delegation, how it is outside
    /// (`a version range`, `a namespace not delegated`, ...); absent for a
    /// delegated one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outside: Option<String>,
}

impl InstallOut {
    fn of(r: &InstallRight) -> InstallOut {
        let (namespace, name) = match r.subject.split_once('/') {
            Some((ns, name)) if r.subject_kind == "ServiceAccount" => (Some(ns.to_string()), name.to_string()),
            _ => (None, r.subject.clone()),
        };
        InstallOut {
            subject: SubjectOut { kind: r.subject_kind.clone(), name, namespace },
            package: r.package.clone(),
            version: r.version.clone(),
            namespace: r.namespace.clone(),
            catalog: r.catalog.clone(),
            team: r.team.clone(),
            outside: r.outside.map(|o| o.as_str().to_string()),
        }
    }
}

/// The install rights gained and lost, as lines after the access changes.
fn install_lines(installs: &(Vec<InstallRight>, Vec<InstallRight>), markdown: bool) -> String {
    let (gained, lost) = installs;
    if gained.is_empty() && lost.is_empty() {
        return String::new();
    }
    let mut out = if markdown { String::from("\n### Install rights\n\n") } else { String::from("\ninstall rights\n") };
    for (sign, r) in gained.iter().map(|r| ("+", r)).chain(lost.iter().map(|r| ("-", r))) {
        out.push_str(&format!("{}{sign} {}\n", if markdown { "- " } else { "  " }, r.text()));
    }
    out
}

/// One rule a subject gained or lost, and where.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChangeOut {
    // No doc comment: it would be the field's description in the published schema
    // (docs/diff-output.schema.json), which `SubjectOut`'s gives.
    #[allow(missing_docs)]
    pub subject: SubjectOut,
    /// Where it holds; absent: cluster-wide.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// API groups (`""` is the core group); empty for non-resource URLs.
    pub api_groups: Vec<String>,
    /// Resources, `plural` or `plural/subresource`; empty for non-resource URLs.
    pub resources: Vec<String>,
    /// Only these objects; empty: every object.
    pub resource_names: Vec<String>,
    // No doc comment: it would be a new description in the published schema.
    #[allow(missing_docs)]
    pub verbs: Vec<String>,
    /// Non-resource URLs such as `/metrics`; empty for resources.
    #[serde(rename = "nonResourceURLs")]
    pub non_resource_urls: Vec<String>,
    /// The worst entry of the dangerous-permissions catalogue the rule grants
    /// there (docs/dangerous-permissions.md); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
}

/// Who: a binding's subject (`User`, `Group`, `ServiceAccount` with its
/// namespace), or `ClusterRole` `admin`, `edit` or `view` for whoever is
/// bound to that built-in aggregating role.
// No doc comments on the fields: each would be a new description in the published schema
// (docs/diff-output.schema.json); the struct's, above, says what they hold.
#[allow(missing_docs)]
#[derive(Debug, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubjectOut {
    pub kind: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

/// The JSON Schema of [`DiffOut`] (`olm-rbac schema diff-output`).
pub fn json_schema() -> String {
    crate::schema::text_of::<DiffOut>("diff-output")
}

/// The changes in the format asked, exit 0; `artifact` is the file NEW was
/// read from, where a SARIF result points.
pub(super) fn write(
    changes: &Changes,
    installs: &(Vec<InstallRight>, Vec<InstallRight>),
    format: Format,
    artifact: Option<&str>,
) -> Outcome {
    let unchanged = changes.gained.is_empty() && changes.lost.is_empty();
    let installs_changed = !installs.0.is_empty() || !installs.1.is_empty();
    let stdout = match format {
        Format::Sarif => sarif(changes, artifact),
        Format::Json | Format::Yaml => {
            let out = DiffOut {
                gained: changes.gained.iter().map(ChangeOut::of).collect(),
                lost: changes.lost.iter().map(ChangeOut::of).collect(),
                installs_gained: installs.0.iter().map(InstallOut::of).collect(),
                installs_lost: installs.1.iter().map(InstallOut::of).collect(),
            };
            return encoded(&out, format);
        }
        // The command line offers no dot for diff.
        Format::Table | Format::Dot if unchanged && installs_changed => {
            install_lines(installs, false).trim_start().to_string()
        }
        Format::Table | Format::Dot => text(changes) + &install_lines(installs, false),
        Format::Markdown => markdown(changes) + &install_lines(installs, true),
    };
    Outcome { stdout, stderr: String::new(), code: crate::outcome::Exit::Ok }
}

/// Each gain as a SARIF result: a warning, an error when the catalogue of
/// dangerous permissions marks it.
fn sarif(changes: &Changes, artifact: Option<&str>) -> String {
    use crate::sarif::{self, Level};
    let results: Vec<sarif::Result> = changes
        .gained
        .iter()
        .map(|c| {
            let [resources, urls, names, verbs] = rule_cells(&c.rule).map(|v| v.join(" "));
            let what =
                if urls.is_empty() { format!("[{verbs}] on [{resources}]") } else { format!("[{verbs}] on [{urls}]") };
            let names = if names.is_empty() { String::new() } else { format!(" named [{names}]") };
            let danger = c.severity.map(|s| format!(" (dangerous: {s})")).unwrap_or_default();
            sarif::Result {
                rule: crate::findings::Code::AccessGained,
                level: if c.severity.is_some() { Level::Error } else { Level::Warning },
                message: format!("{} gains {what}{names} {}{danger}", holder_text(&c.holder), place_text(&c.namespace)),
                uri: artifact.filter(|a| *a != "-").map(String::from),
                line: None,
            }
        })
        .collect();
    sarif::log(env!("CARGO_PKG_VERSION"), &results)
}

impl ChangeOut {
    pub(crate) fn of(c: &Change) -> ChangeOut {
        let list = |v: &Option<Vec<String>>| v.clone().unwrap_or_default();
        ChangeOut {
            subject: SubjectOut::of(&c.holder),
            namespace: c.namespace.clone(),
            api_groups: list(&c.rule.api_groups),
            resources: list(&c.rule.resources),
            resource_names: list(&c.rule.resource_names),
            verbs: c.rule.verbs.clone(),
            non_resource_urls: list(&c.rule.non_resource_urls),
            severity: c.severity,
        }
    }
}

impl SubjectOut {
    fn of(holder: &Holder) -> SubjectOut {
        match holder {
            Holder::Role(role) => SubjectOut { kind: "ClusterRole".into(), name: role.name().into(), namespace: None },
            Holder::Subject { kind, namespace, name } => {
                SubjectOut { kind: kind.as_str().into(), name: name.clone(), namespace: namespace.clone() }
            }
        }
    }
}

/// The holder as `who-can` names a grantee.
fn holder_text(holder: &Holder) -> String {
    let grantee = match holder {
        Holder::Role(role) => Grantee::AnyoneBoundTo { role: *role, cluster_binding_only: false },
        Holder::Subject { kind, namespace, name } => Grantee::Subject(Subject {
            kind: kind.as_str().into(),
            name: name.clone(),
            namespace: namespace.clone(),
            api_group: None,
        }),
    };
    grantee.to_string()
}

/// Gained or lost.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Sign {
    Gained,
    Lost,
}

/// Each holder's changes, cluster-wide first, then by namespace; in each
/// place gains before losses.
fn by_holder(changes: &Changes) -> BTreeMap<&Holder, Vec<(Sign, &Change)>> {
    let mut out: BTreeMap<&Holder, Vec<(Sign, &Change)>> = BTreeMap::new();
    let signed = changes.gained.iter().map(|c| (Sign::Gained, c)).chain(changes.lost.iter().map(|c| (Sign::Lost, c)));
    for (sign, c) in signed {
        out.entry(&c.holder).or_default().push((sign, c));
    }
    for rows in out.values_mut() {
        rows.sort_by_key(|(sign, c)| (c.namespace.clone(), *sign));
    }
    out
}

/// `gained 12 rules (dangerous: 1 critical, 2 high), lost 4 rules, for 3 subjects`.
fn summary(changes: &Changes) -> String {
    let mut dangerous: BTreeMap<std::cmp::Reverse<Severity>, usize> = BTreeMap::new();
    for s in changes.gained.iter().filter_map(|c| c.severity) {
        *dangerous.entry(std::cmp::Reverse(s)).or_default() += 1;
    }
    let dangerous = if dangerous.is_empty() {
        String::new()
    } else {
        let counts: Vec<String> = dangerous.iter().map(|(s, n)| format!("{n} {}", s.0)).collect();
        format!(" (dangerous: {})", counts.join(", "))
    };
    let holders = by_holder(changes).len();
    let plural = |n: usize, word: &str| if n == 1 { format!("{n} {word}") } else { format!("{n} {word}s") };
    format!(
        "gained {}{dangerous}, lost {}, for {}",
        plural(changes.gained.len(), "rule"),
        plural(changes.lost.len(), "rule"),
        plural(holders, "subject")
    )
}

/// The columns of a rule: resources as `can-i` takes them, URLs, names, verbs.
fn rule_cells(rule: &PolicyRule) -> [Vec<String>; 4] {
    let list = |v: &Option<Vec<String>>| v.clone().unwrap_or_default();
    let (groups, resources) = (list(&rule.api_groups), list(&rule.resources));
    // A non-resource rule names no resources (nor groups): nothing to show.
    let resources = if resources.is_empty() {
        Vec::new()
    } else {
        let target = Target::Resources { groups, resources, names: Vec::new() };
        target.resources_text().split(' ').filter(|r| !r.is_empty()).map(String::from).collect()
    };
    [resources, list(&rule.non_resource_urls), list(&rule.resource_names), rule.verbs.clone()]
}

fn place_text(namespace: &Option<String>) -> String {
    namespace.clone().unwrap_or_else(|| "cluster-wide".to_string())
}

/// For a terminal: a summary line, then per holder a table of its changes
/// (`+` gained, `-` lost), kubectl's columns, wrapped to 120 columns.
fn text(changes: &Changes) -> String {
    if changes.gained.is_empty() && changes.lost.is_empty() {
        return format!("{NO_CHANGE}\n");
    }
    let mut out = format!("{}\n", summary(changes));
    let header = ["", "WHERE", "RESOURCES", "NON-RESOURCE URLS", "RESOURCE NAMES", "VERBS", "DANGER"];
    for (holder, rows) in by_holder(changes) {
        out.push_str(&format!("\n{}\n", printable(&holder_text(holder))));
        let rows: Vec<Vec<Option<String>>> = rows
            .iter()
            .map(|(sign, c)| {
                let mark = if *sign == Sign::Gained { "+" } else { "-" };
                let [resources, urls, names, verbs] =
                    rule_cells(&c.rule).map(|v| (!v.is_empty()).then(|| format!("[{}]", v.join(" "))));
                let danger = c.severity.map(|s| s.to_string());
                vec![Some(mark.into()), Some(place_text(&c.namespace)), resources, urls, names, verbs, danger]
            })
            .collect();
        // A column no row fills is left out, but for resources and verbs.
        let shown: Vec<usize> =
            (0..header.len()).filter(|&i| matches!(i, 0..=2 | 5) || rows.iter().any(|r| r[i].is_some())).collect();
        let cells: Vec<Vec<String>> =
            rows.iter().map(|r| shown.iter().map(|&i| r[i].clone().unwrap_or_default()).collect()).collect();
        let header: Vec<&str> = shown.iter().map(|&i| header[i]).collect();
        out.push_str(&wrapped(&header, &cells, 2, TERMINAL));
    }
    out
}

/// For a pull-request comment: a heading, the summary, and per holder a
/// table; dangerous gains in bold with a warning sign.
fn markdown(changes: &Changes) -> String {
    let mut out = String::from("## Access changes\n\n");
    if changes.gained.is_empty() && changes.lost.is_empty() {
        let mut line = NO_CHANGE.to_string();
        line[..1].make_ascii_uppercase();
        out.push_str(&format!("{line}.\n"));
        return out;
    }
    out.push_str(&format!("{}.\n", summary(changes)));
    for (holder, rows) in by_holder(changes) {
        out.push_str(&format!("\n### {}\n\n", markdown::text(&holder_text(holder))));
        out.push_str("| change | where | resources | non-resource URLs | resource names | verbs | danger |\n");
        out.push_str("|---|---|---|---|---|---|---|\n");
        for (sign, c) in rows {
            let code = |v: Vec<String>| {
                if v.is_empty() {
                    String::new()
                } else {
                    v.iter().map(|x| markdown::code(x)).collect::<Vec<_>>().join(" ")
                }
            };
            let [resources, urls, names, verbs] = rule_cells(&c.rule).map(code);
            let (change, danger) = match (sign, c.severity) {
                (Sign::Gained, Some(s)) => ("**gained**", format!("⚠️ **{s}**")),
                (Sign::Gained, None) => ("gained", String::new()),
                (Sign::Lost, s) => ("lost", s.map(|s| s.to_string()).unwrap_or_default()),
            };
            let place = markdown::text(&place_text(&c.namespace));
            out.push_str(&format!("| {change} | {place} | {resources} | {urls} | {names} | {verbs} | {danger} |\n"));
        }
    }
    out
}
