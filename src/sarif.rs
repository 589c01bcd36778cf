//! Results as a SARIF 2.1.0 log, the format code scanning reads (GitHub,
//! GitLab): one run of olm-rbac, each result with its rule, level, message
//! and, when known, the file and line it is about. Its rules are the codes
//! of olm-rbac's results (`findings::Code`), each with its description, all
//! it takes from the crate; `run` (render's findings) and `check::diff` (its
//! gains) hand it [`Result`]s under them.

use serde_json::{json, Value};

use crate::findings::Code;

/// How much a result matters, in SARIF's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// `error`: render's errors (an unreadable input among them), and a gain the dangerous-permissions catalogue
    /// marks.
    Error,
    /// `warning`: render's warnings, and any other gain.
    Warning,
    /// `note`: SARIF's lowest level, for what is worth reading but is no problem.
    Note,
}

impl Level {
    fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

/// One result: which rule, how much it matters, what it says, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Result {
    /// Its rule: the result's code (one of [`RULES`], every code being one).
    pub(crate) rule: Code,
    /// How much it matters.
    pub level: Level,
    /// What it says, as render or `diff` words it.
    pub message: String,
    /// The file, as the command was given it (a relative path stays relative).
    pub uri: Option<String>,
    /// The 1-based line the object the result is about starts on.
    pub line: Option<usize>,
}

/// The rules olm-rbac reports under, with what each covers: every code a
/// result can carry, in the order `Code::ALL` lists them.
pub const RULES: [(&str, &str); Code::ALL.len()] = {
    let mut rules = [("", ""); Code::ALL.len()];
    let mut i = 0;
    while i < rules.len() {
        rules[i] = (Code::ALL[i].id(), Code::ALL[i].describe());
        i += 1;
    }
    rules
};

/// The SARIF log of one run.
pub fn log(version: &str, results: &[Result]) -> String {
    let rules: Vec<Value> =
        RULES.iter().map(|(id, text)| json!({"id": id, "shortDescription": {"text": text}})).collect();
    let results: Vec<Value> = results
        .iter()
        .map(|r| {
            let mut result = json!({
                "ruleId": r.rule.id(),
                // `RULES` lists `Code::ALL` in order: a code's place is its rule's.
                "ruleIndex": r.rule as usize,
                "level": r.level.as_str(),
                "message": {"text": plain_text(&r.message)},
            });
            if let Some(uri) = &r.uri {
                let mut location = json!({"physicalLocation": {"artifactLocation": {"uri": uri_of(uri)}}});
                if let Some(line) = r.line {
                    location["physicalLocation"]["region"] = json!({"startLine": line.max(1)});
                }
                result["locations"] = json!([location]);
            }
            result
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "olm-rbac",
                "version": version,
                "informationUri": "https://github.com/olm-rbac/olm-rbac",
                "rules": rules,
            }},
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).map(|s| s + "\n").unwrap_or_default()
}

/// A message as SARIF's plain text: a `[` or `]` written as itself would
/// start an embedded link (SARIF 2.1.0, 3.11.6), which a viewer may follow;
/// each is escaped with a backslash, and so is every backslash, so that no run
/// of them can unescape a bracket.
fn plain_text(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for c in message.chars() {
        if matches!(c, '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A path as a URI reference: relative paths stay relative (code scanning
/// resolves them against the checkout), separators are `/`, and the
/// characters a URI cannot hold are percent-encoded.
fn uri_of(path: &str) -> String {
    let mut out = String::new();
    for b in path.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_never_start_an_embedded_link() {
        assert_eq!(plain_text("verbs=[get] [evil](https://x)"), "verbs=\\[get\\] \\[evil\\](https://x)");
        assert_eq!(plain_text("a\\b"), "a\\\\b");
        assert_eq!(
            plain_text("x\\\\[click\\\\](https://evil.example/)"),
            "x\\\\\\\\\\[click\\\\\\\\\\](https://evil.example/)"
        );
    }

    #[test]
    fn every_code_is_a_rule() {
        let ids: Vec<&str> = RULES.iter().map(|(id, _)| *id).collect();
        let codes: Vec<&str> = Code::ALL.iter().map(|c| c.id()).collect();
        assert_eq!(ids, codes);
        assert!(ids.contains(&"access-gained") && ids.contains(&"policy-denied"));
    }

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri_of("bundle/manifests/a b.yaml"), "bundle/manifests/a%20b.yaml");
        assert_eq!(uri_of("C:\\x\\y.yaml"), "C%3A/x/y.yaml");
    }
}
