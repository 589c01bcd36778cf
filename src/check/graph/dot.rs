//! The picture as Graphviz DOT: one digraph, a cluster per extension. Every
//! id is made here (`e0n1`: extension 0, node 1); every label is a quoted
//! string, with `\` and `"` escaped as the DOT grammar says, `&` written as
//! an entity (Graphviz reads entities in labels), and control and non-ASCII
//! characters as numeric entities, so a name can neither end its string nor
//! bring an escape such as `\N` or `\l` that Graphviz would expand.

use super::{edge_text, Cluster, Column};
use crate::access::danger::Severity;

/// Every cluster in one digraph, left to right.
pub(crate) fn dot(clusters: &[Cluster]) -> String {
    let mut out =
        String::from("digraph access {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n  edge [fontsize=9];\n");
    for (c, cluster) in clusters.iter().enumerate() {
        out.push_str(&format!("  subgraph cluster_{c} {{\n    label=\"{}\";\n", escape(&cluster.title)));
        for (i, n) in cluster.nodes.iter().enumerate() {
            let label = n.lines.iter().map(|l| escape(l)).collect::<Vec<_>>().join("\\n");
            let shape = match n.column {
                Column::Subject => "ellipse",
                Column::Binding => "box",
                Column::Role => "box, style=rounded",
                Column::Target => "cylinder",
            };
            out.push_str(&format!("    e{c}n{i} [label=\"{label}\", shape={shape}];\n"));
        }
        for e in &cluster.edges {
            let mut attrs = Vec::new();
            if let Some(text) = edge_text(e) {
                attrs.push(format!("label=\"{}\"", escape(&text)));
            }
            if let Some(s) = e.severity {
                attrs.push(danger_style(s).to_string());
            }
            let attrs = if attrs.is_empty() { String::new() } else { format!(" [{}]", attrs.join(", ")) };
            out.push_str(&format!("    e{c}n{} -> e{c}n{}{attrs};\n", e.from, e.to));
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

/// Red and bold for critical, red for high, orange for medium.
fn danger_style(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "color=\"#cc0000\", fontcolor=\"#cc0000\", penwidth=3, style=bold",
        Severity::High => "color=\"#cc0000\", fontcolor=\"#cc0000\", penwidth=2",
        Severity::Medium => "color=\"#dd8800\", fontcolor=\"#dd8800\"",
    }
}

/// Text for inside a DOT quoted string.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '&' => out.push_str("&amp;"),
            c if c.is_ascii_control() || !c.is_ascii() => out.push_str(&format!("&#{};", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}
