//! The picture as a Mermaid flowchart, for a fenced ```mermaid block that
//! GitHub and GitLab render. Every label is quoted, and every character of it
//! but letters, digits and a few plain signs is written as Mermaid's entity
//! code (`#34;`), so that no name can end a label, start a comment (`%%`) or
//! add a statement (`click`, `-->`, a line break).

use super::{edge_text, Cluster, Column};
use crate::access::danger::Severity;

/// `cluster` as a Mermaid flowchart, left to right, with node ids `n0`, `n1`, …
pub(crate) fn mermaid(cluster: &Cluster) -> String {
    let mut out = String::from("flowchart LR\n");
    for (i, n) in cluster.nodes.iter().enumerate() {
        let label = n.lines.iter().map(|l| escape(l)).collect::<Vec<_>>().join("<br>");
        let (open, close) = match n.column {
            Column::Subject => ("([\"", "\"])"),
            Column::Binding => ("[\"", "\"]"),
            Column::Role => ("[[\"", "\"]]"),
            Column::Target => ("[(\"", "\")]"),
        };
        out.push_str(&format!("  n{i}{open}{label}{close}\n"));
    }
    let mut styles = Vec::new();
    for (i, e) in cluster.edges.iter().enumerate() {
        let arrow = match edge_text(e) {
            Some(text) if e.severity.is_some() => format!("-->|\"⚠ {}\"|", escape(&text)),
            Some(text) => format!("-->|\"{}\"|", escape(&text)),
            None => "-->".to_string(),
        };
        out.push_str(&format!("  n{} {arrow} n{}\n", e.from, e.to));
        if let Some(s) = e.severity {
            styles.push(format!("  linkStyle {i} {}\n", link_style(s)));
        }
    }
    out.extend(styles);
    out
}

/// Red and thick for critical and high, orange for medium.
fn link_style(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "stroke:#c00,stroke-width:4px,color:#c00",
        Severity::High => "stroke:#c00,stroke-width:2px,color:#c00",
        Severity::Medium => "stroke:#d80,stroke-width:2px,color:#d80",
    }
}

/// Text for inside a quoted label: letters, digits and ` .,:-_/()*+=` as they
/// are, anything else as an entity code.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || " .,:-_/()*+=".contains(c) {
            out.push(c);
        } else {
            out.push_str(&format!("#{};", u32::from(c)));
        }
    }
    out
}
