//! The messages the docs quote are the program's: every quoted error or
//! warning must come from a message template in `src/` (or, for messages the
//! YAML and serde libraries word, from a real run), so the docs cannot drift.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use olm_rbac::run::{render, Source};

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

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

/// Does the quoted message come from the template: its literal pieces in
/// order, covering most of the message? `…` in a quote stands for elided text.
fn from_template(quote: &str, template: &str) -> bool {
    let pieces = pieces(template);
    let literal: usize = pieces.iter().map(|p| p.chars().count()).sum();
    if literal < 12 {
        return false;
    }
    let mut at = 0;
    let mut covered = 0;
    for piece in &pieces {
        // A quote may elide any part: a piece counts only where it appears whole.
        match quote[at..].find(piece.as_str()) {
            Some(i) => {
                at += i + piece.len();
                covered += piece.chars().count();
            }
            None if quote.contains('…') => {
                // The quote may stop inside this piece: what is left must start it.
                let rest = quote[at..].trim_end_matches('…').trim_end();
                let head: String = piece.chars().take(12).collect();
                if let Some(i) = rest.find(head.as_str()).filter(|_| !rest.is_empty()) {
                    if piece.starts_with(&rest[i..]) {
                        covered += rest[i..].chars().count();
                        at = quote.len();
                    }
                }
            }
            None => return false,
        }
    }
    covered * 2 >= quote.replace('…', "").chars().count().min(literal * 2)
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

#[test]
fn every_quoted_message_is_one_the_program_writes() {
    let mut templates = Vec::new();
    literals(&repo("src"), &mut templates);
    let mut missing = Vec::new();
    for doc in ["docs/user-guide.md", "docs/security.md"] {
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
            if !templates.iter().any(|t| from_template(&quote, t)) {
                missing.push(format!("{doc}: {quote}"));
            }
        }
    }
    assert!(missing.is_empty(), "quoted messages the program does not write:\n{}", missing.join("\n"));
}

#[test]
fn the_check_itself_tells_real_messages_from_drifted_ones() {
    let t = "pattern {p:?} matches no API in the input";
    assert!(from_template("pattern \"*.x\" matches no API in the input", t));
    assert!(!from_template("pattern \"*.x\" matches no APIs in the input", t), "one word changed");
    assert!(from_template("… matches no API in the input", t), "an elided start");
    let _ = docs_of; // the shared helpers are linked in for the other suites
}
