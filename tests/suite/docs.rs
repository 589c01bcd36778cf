//! The messages the docs quote are the program's: every quoted error or
//! warning must come from a message template in `src/` (or, for messages the
//! YAML and serde libraries word, from a real run), so the docs cannot drift.

use std::path::Path;

use crate::common::*;
use olm_rbac::run::{render, Source};

/// Every string literal in the Rust sources under `dir`, as it reads
/// (escapes undone), with format placeholders (`{...}`) kept.
fn literals(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            literals(&path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '"' {
                continue;
            }
            let mut lit = String::new();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => match chars.next() {
                        Some('n') => lit.push('\n'),
                        Some('\n') => {
                            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                                chars.next();
                            }
                        }
                        Some(other) => lit.push(other),
                        None => {}
                    },
                    '"' => break,
                    other => lit.push(other),
                }
            }
            out.push(lit);
        }
    }
}

/// The literal pieces of a message template, placeholders taken out.
fn pieces(template: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0;
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('{', Some('{')) | ('}', Some('}')) if depth == 0 => {
                out.last_mut().unwrap().push(c);
                chars.next();
            }
            ('{', _) => {
                depth += 1;
            }
            ('}', _) if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push(String::new());
                }
            }
            _ if depth > 0 => {}
            _ => out.last_mut().unwrap().push(c),
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

/// The message without what `Display` puts before it: the object
/// (`CustomResourceDefinition foos.example.com: `) and the field (`spec.group: `).
fn message_of(quote: &str) -> &str {
    let mut rest = quote;
    loop {
        let Some((head, tail)) = rest.split_once(": ") else { return rest };
        let object = head.split_once(' ').is_some_and(|(kind, name)| {
            kind.starts_with(|c: char| c.is_ascii_uppercase())
                && kind.chars().all(|c| c.is_ascii_alphanumeric())
                && !name.contains(' ')
        });
        let field = !head.contains(' ')
            && (head.starts_with("spec.")
                || head.starts_with("data")
                || head.starts_with("metadata.")
                || head == "apiVersion"
                || head == "kind");
        if !(object || field) {
            return rest;
        }
        rest = tail;
    }
}

/// How many characters of the quote the templates account for. `…` cuts the
/// quote into stretches; within one, a template's literal pieces must appear
/// in order, except that a stretch after `…` may begin at any piece and a
/// stretch before `…` may stop at any piece (even inside one). Most of what
/// the quote says must be covered.
fn covered_by(quote: &str, templates: &[Vec<String>]) -> bool {
    let message = message_of(quote);
    let stretches: Vec<&str> = message.split('…').collect();
    let mut covered = 0;
    let mut total = 0;
    for (k, stretch) in stretches.iter().enumerate() {
        let (after_cut, before_cut) = (k > 0, k + 1 < stretches.len());
        total += stretch.trim().chars().count();
        let mut marks = vec![false; stretch.len()];
        for pieces in templates {
            let starts = if after_cut { 0..pieces.len() } else { 0..1 };
            for first in starts {
                let mut at = 0;
                let mut hits = Vec::new();
                let mut ok = true;
                for piece in &pieces[first..] {
                    if let Some(i) = stretch[at..].find(piece.as_str()) {
                        hits.push((at + i, piece.len()));
                        at += i + piece.len();
                        continue;
                    }
                    let tail = stretch[at..].trim_end();
                    if before_cut && tail.len() >= 8 {
                        // The cut may fall inside this piece.
                        if let Some(i) = (0..tail.len())
                            .filter(|&i| tail.is_char_boundary(i))
                            .find(|&i| piece.starts_with(&tail[i..]))
                        {
                            hits.push((at + i, tail.len() - i));
                        }
                    }
                    ok = before_cut;
                    break;
                }
                let literal: usize = hits.iter().map(|h| h.1).sum();
                if ok && literal >= 12 {
                    for (i, n) in hits {
                        marks[i..i + n].iter_mut().for_each(|m| *m = true);
                    }
                }
            }
        }
        covered += stretch.trim().len().min(stretch.char_indices().filter(|(i, _)| marks[*i]).count());
    }
    covered * 10 >= total * 6
}

/// The messages a doc quotes: bold code spans starting a line (the user
/// guide's troubleshooting) and code spans in block quotes (the security model).
fn quotes(doc: &str) -> Vec<String> {
    let text = std::fs::read_to_string(repo(doc)).unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        let body = if let Some(rest) = line.strip_prefix("**`") {
            rest.split("`**").next()
        } else if let Some(rest) = line.strip_prefix("> `") {
            rest.rsplit_once('`').map(|(q, _)| q)
        } else {
            None
        };
        if let Some(q) = body {
            out.push(q.to_string());
        }
    }
    out
}

/// Messages whose words come from the YAML or serde libraries, each with an
/// input that makes olm-rbac print it.
const FROM_LIBRARIES: [(&str, &str); 2] = [
    ("unknown field `modee`, expected one of", "spec:\n  modee: Aggregate\n"),
    ("unknown variant `Agregate`, expected one of", "spec:\n  mode: Agregate\n"),
];

/// Whether a message (without `error: ` or the like before it) is one a
/// template in `src/` writes.
pub(crate) fn is_the_programs(message: &str) -> bool {
    static TEMPLATES: std::sync::OnceLock<Vec<(String, Vec<String>)>> = std::sync::OnceLock::new();
    let templates = TEMPLATES.get_or_init(|| {
        let mut found = Vec::new();
        literals(&repo("src"), &mut found);
        found.into_iter().map(|t| (pieces(&t), t)).map(|(p, t)| (t, p)).collect()
    });
    let pieced: Vec<Vec<String>> = templates.iter().map(|(_, p)| p.clone()).collect();
    covered_by(message, &pieced) || templates.iter().any(|(raw, p)| whole_template(message, raw, p))
}

/// Whether a whole message line is one template with its placeholders filled:
/// every literal piece in order, the first at the start and the last at the
/// end unless a placeholder stands there, and at least 20 literal characters,
/// so that a template of a few words vouches for nothing.
fn whole_template(line: &str, raw: &str, pieces: &[String]) -> bool {
    let (Some(first), Some(last)) = (pieces.first(), pieces.last()) else { return false };
    if pieces.iter().map(String::len).sum::<usize>() < 20 {
        return false;
    }
    let open_start = raw.starts_with('{') && !raw.starts_with("{{");
    let open_end = raw.ends_with('}') && !raw.ends_with("}}");
    if (!open_start && !line.starts_with(first.as_str())) || (!open_end && !line.ends_with(last.as_str())) {
        return false;
    }
    let mut at = 0;
    for piece in pieces {
        match line[at..].find(piece.as_str()) {
            Some(i) => at += i + piece.len(),
            None => return false,
        }
    }
    true
}

#[test]
fn every_quoted_message_is_one_the_program_writes() {
    let mut templates = Vec::new();
    literals(&repo("src"), &mut templates);
    let pieced: Vec<Vec<String>> = templates.iter().map(|t| pieces(t)).collect();
    let mut missing = Vec::new();
    for doc in ["docs/user-guide.md", "docs/security.md", "docs/operator-permissions.md"] {
        for quote in quotes(doc) {
            if quote.starts_with("olm-rbac ") {
                continue; // a command line, not a message
            }
            if let Some((prefix, spec)) = FROM_LIBRARIES.iter().find(|(p, _)| quote.starts_with(p)) {
                let config =
                    format!("apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata: {{name: g}}\n{spec}");
                let out = render(&[], &[Source { name: "rbac.yaml".into(), text: config }]);
                assert!(out.stderr.contains(&quote), "{doc}: the program says\n{}\nnot\n{quote}", out.stderr);
                let _ = prefix;
                continue;
            }
            if !covered_by(&quote, &pieced) {
                missing.push(format!("{doc}: {quote}"));
            }
        }
    }
    assert!(missing.is_empty(), "quoted messages the program does not write:\n{}", missing.join("\n"));
}

#[test]
fn the_check_itself_tells_real_messages_from_drifted_ones() {
    let templates = vec![
        pieces("pattern {p:?} matches no API in the input"),
        pieces("an API group built into Kubernetes"),
        pieces("API group {group:?} is {}, not the bundle's own: olm-rbac refuses to grant access to it{remedy}"),
    ];
    assert!(covered_by("pattern \"*.x\" matches no API in the input", &templates));
    assert!(!covered_by("pattern \"*.x\" matches no APIs in the input", &templates), "one word changed");
    assert!(
        covered_by("ConfigMap c: data.x: pattern \"*.x\" matches no API in the input", &templates),
        "with its object and field"
    );
    assert!(covered_by("API group \"apps\" is an API group built into Kubernetes, not the bundle's own: olm-rbac refuses to grant access to it", &templates));
    assert!(
        !covered_by("API group \"apps\" is an API group built into Kubernetes, not the bundle's own: olm-rbac declines to grant access to it", &templates),
        "a short template inside a drifted message does not vouch for it"
    );
}

/// docs/dangerous-permissions.md lists exactly the catalogue olm-rbac checks, in its order, each row with
/// the entry's result code, severity, permissions and scope as the code has them, and explains every entry and level.
#[test]
fn the_dangerous_permission_table_is_the_catalogue() {
    let doc = std::fs::read_to_string(repo("docs/dangerous-permissions.md")).unwrap();
    let rows: Vec<Vec<String>> = doc
        .lines()
        .skip_while(|l| !l.starts_with("| what | code | severity | permissions | counts |"))
        .skip(2)
        .take_while(|l| l.starts_with("| "))
        .map(|l| l.trim_start_matches("| ").trim_end_matches(" |").split(" | ").map(str::to_string).collect())
        .collect();
    let catalogue = olm_rbac::access::danger::catalogue();
    let expected: Vec<Vec<String>> = catalogue
        .iter()
        .map(|d| {
            let counts = if d.cluster_wide_only() { "cluster-wide only" } else { "anywhere" };
            let code = format!("`danger-{}`", d.id);
            vec![d.what.to_string(), code, d.severity.to_string(), d.permissions(), counts.to_string()]
        })
        .collect();
    assert_eq!(rows, expected);
    for d in catalogue {
        assert!(doc.contains(&format!("**{}**", d.what)), "the docs say why {:?} is dangerous", d.what);
        assert!(doc.contains(&format!("- **{}**: ", d.severity)), "the docs define the level {}", d.severity);
    }
}
