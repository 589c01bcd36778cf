//! `report`'s access matrix written for people: a table that fits a
//! terminal, and Markdown for a pull-request comment.

use super::{AccessMatrix, LevelHolder};
use crate::access::AggregatingRole;
use crate::check::markdown;
use crate::check::table::{wrap_indented, wrapped, TERMINAL};

fn cell_text(h: &[LevelHolder]) -> String {
    if h.is_empty() {
        return "-".into();
    }
    h.iter()
        .map(|h| {
            let scope = if h.scope == ["*"] { "cluster-wide".to_string() } else { h.scope.join(", ") };
            format!("{} ({scope})", h.holder)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

pub(crate) fn extension_title(ext: &Option<String>) -> String {
    match ext {
        Some(e) => format!("extension {e}"),
        None => "APIs without olm-rbac RBAC".to_string(),
    }
}

/// Markdown, for a pull-request comment; `picture` draws an extension's
/// graph (Mermaid), when there is one to draw.
pub(crate) fn markdown(r: &AccessMatrix, picture: impl Fn(&Option<String>) -> Option<String>) -> String {
    let mut out = String::from("## Access to operator APIs\n\n");
    for e in &r.extensions {
        out.push_str(&format!(
            "### {}\n\n| API | admin | edit | view |\n|---|---|---|---|\n",
            markdown::text(&extension_title(&e.extension))
        ));
        for a in &e.apis {
            let [admin, edit, view] = AggregatingRole::ALL.map(|level| markdown::text(&cell_text(a.holders(level))));
            out.push_str(&format!("| {} | {admin} | {edit} | {view} |\n", markdown::code(&a.api)));
        }
        out.push('\n');
        if let Some(mermaid) = picture(&e.extension) {
            out.push_str(&format!("```mermaid\n{mermaid}```\n\n"));
        }
    }
    if !r.cluster_admins_only.is_empty() {
        out.push_str("**Only cluster-admins can use:** ");
        out.push_str(&r.cluster_admins_only.iter().map(|a| markdown::code(a)).collect::<Vec<_>>().join(", "));
        out.push('\n');
    }
    for a in &r.accounts {
        out.push_str(&format!(
            "\n### ServiceAccount {} ({} of extension {})\n\n| where | rule | dangerous |\n|---|---|---|\n",
            markdown::code(&a.account.to_string()),
            markdown::text(&a.role.to_string()),
            markdown::text(&a.extension.to_string())
        ));
        for rule in &a.rules {
            let scope = if rule.scope == "*" { "cluster-wide".to_string() } else { markdown::code(&rule.scope) };
            let (text, danger) = (markdown::code(&rule.rule), markdown::text(&rule.dangerous.join(", ")));
            out.push_str(&format!("| {scope} | {text} | {danger} |\n"));
        }
        if !a.acted_as_by.is_empty() {
            out.push_str("\nWho may act as it (and so holds what it holds):\n\n");
            out.extend(a.acted_as_by.iter().map(|p| format!("- {}\n", markdown::text(p))));
        }
    }
    out
}

/// A plain-text table for terminals that fits [`TERMINAL`] columns: per
/// extension, a line per API, level and holder (the API and the level written
/// on their first line only), long cells wrapped within their column; then the
/// APIs only cluster-admins can use, and each ServiceAccount's rules, wrapped.
pub(crate) fn table(r: &AccessMatrix) -> String {
    let mut out = String::new();
    for e in &r.extensions {
        out.push_str(&format!("{}\n", extension_title(&e.extension)));
        let mut rows: Vec<Vec<String>> = Vec::new();
        for a in &e.apis {
            for (i, level) in AggregatingRole::ALL.into_iter().enumerate() {
                let api = if i == 0 { a.api.clone() } else { String::new() };
                let holders = a.holders(level);
                if holders.is_empty() {
                    rows.push(vec![api.clone(), level.to_string(), "-".into(), String::new()]);
                }
                for (j, h) in holders.iter().enumerate() {
                    let first = |s: &str| if j == 0 { s.to_string() } else { String::new() };
                    rows.push(vec![first(&api), first(level.name()), h.holder.clone(), scope_text(&h.scope)]);
                }
            }
        }
        out.push_str(&wrapped(&["API", "ACCESS", "HOLDER", "WHERE"], &rows, 2, TERMINAL));
        out.push('\n');
    }
    if !r.cluster_admins_only.is_empty() {
        let line = format!("only cluster-admins can use: {}", r.cluster_admins_only.join(", "));
        out.extend(wrap_indented(&line, TERMINAL, 2).into_iter().map(|l| l + "\n"));
    }
    for a in &r.accounts {
        let line = format!("ServiceAccount {} ({} of extension {})", a.account, a.role, a.extension);
        out.extend(wrap_indented(&line, TERMINAL, 2).into_iter().map(|l| l + "\n"));
        for rule in &a.rules {
            let scope = if rule.scope == "*" { "cluster-wide".to_string() } else { format!("in {}", rule.scope) };
            let text = format!("  {scope}: {}", rule.rule);
            let flag = (!rule.dangerous.is_empty()).then(|| format!("DANGEROUS: {}", rule.dangerous.join(", ")));
            // The flag follows the rule on its line when both fit, else on its own.
            let lines = match flag {
                Some(flag) if width_of(&text) + 2 + width_of(&flag) <= TERMINAL => vec![format!("{text}  {flag}")],
                Some(flag) => {
                    let mut lines = wrap_indented(&text, TERMINAL, 4);
                    lines.extend(wrap_indented(&format!("    {flag}"), TERMINAL, 6));
                    lines
                }
                None => wrap_indented(&text, TERMINAL, 4),
            };
            out.extend(lines.into_iter().map(|l| l + "\n"));
        }
        if !a.acted_as_by.is_empty() {
            out.push_str("  who may act as it (and so holds what it holds):\n");
            for path in &a.acted_as_by {
                out.extend(wrap_indented(&format!("    {path}"), TERMINAL, 6).into_iter().map(|l| l + "\n"));
            }
        }
        out.push('\n');
    }
    out
}

fn width_of(s: &str) -> usize {
    s.chars().count()
}

/// Where a holder holds access, as the table writes it.
fn scope_text(scope: &[String]) -> String {
    if scope == ["*"] {
        "cluster-wide".to_string()
    } else {
        scope.join(", ")
    }
}
