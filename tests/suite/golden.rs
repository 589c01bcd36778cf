//! Golden tests over every real bundle in `tests/fixtures/bundles/`.
//!
//! A golden file holds what olm-rbac changes for a bundle: each bundle document
//! it patched (adopted roles gain a label, recorded in an annotation) and each
//! object it generated, plus its results as comments. Every other document must
//! come out byte for byte. Regenerate after a reviewed change:
//! `UPDATE_GOLDEN=1 cargo test --test suite golden::`.

use std::path::PathBuf;

use crate::common::*;
use olm_rbac::run::{render, Source};
use olm_rbac::yaml::split_documents;

/// The extension name for a bundle folder: its package name.
fn extension(bundle: &str) -> &str {
    bundle.rsplit_once('-').map_or(bundle, |(name, _)| name)
}

/// Renders a bundle (plus `extra` documents) and returns the golden text, after
/// checking that every document it did not patch passed through byte for byte.
fn golden_text(bundle: &str, spec: &str, extra: &str) -> String {
    let mut docs = docs_of(bundle);
    let bundle_docs = docs.len();
    docs.extend(split_documents(extra).unwrap().into_iter().map(|c| c.text.into_owned()));
    // The extra documents (the admin's Namespaces) from a folder of their own:
    // the only Namespaces a selector reads.
    let name = |i: usize| if i < bundle_docs { format!("doc{i}.yaml") } else { format!("admin/doc{i}.yaml") };
    let inputs: Vec<Source> = docs.iter().enumerate().map(|(i, d)| Source { name: name(i), text: d.clone() }).collect();
    let config = Source { name: "rbac.yaml".into(), text: config(extension(bundle), spec) };
    let out = render(&inputs, &[config]);
    assert_eq!(out.code, 0, "{bundle}: {}", out.stderr);
    let output: Vec<String> = split_documents(&out.stdout).unwrap().into_iter().map(|c| c.text.into_owned()).collect();
    assert!(output.len() >= docs.len(), "{bundle}: no input document may go missing");
    let mut text = format!("# olm-rbac output for {bundle} (extension {:?}) with spec:\n", extension(bundle));
    for line in spec.lines() {
        text.push_str(&format!("#{line}\n"));
    }
    text.push_str("# Regenerate after review: UPDATE_GOLDEN=1 cargo test --test suite golden::\n#\n# Results:\n");
    for line in out.stderr.lines() {
        text.push_str(&format!("# {line}\n"));
    }
    for (i, (input, output)) in docs.iter().zip(&output).enumerate() {
        if input != output {
            text.push_str(&format!("---\n# changed: bundle document {i}\n{output}"));
        }
    }
    for doc in &output[docs.len()..] {
        text.push_str("---\n");
        text.push_str(doc);
    }
    text
}

/// Each case's text against its committed file: a missing or different
/// file fails, naming each; `UPDATE_GOLDEN=1` writes them instead.
pub fn check(cases: Vec<(PathBuf, String)>) {
    let mut failures = Vec::new();
    for (path, actual) in cases {
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if expected == actual => {}
            Ok(_) => failures.push(format!("output differs from {}", path.display())),
            Err(_) => failures.push(format!("no golden file at {}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}\n(UPDATE_GOLDEN=1 rewrites them; review the diff)", failures.join("\n"));
}

fn golden_dir() -> PathBuf {
    repo("tests/golden")
}

#[test]
fn aggregate_mode_on_every_bundle() {
    check(
        bundle_names()
            .into_iter()
            .map(|b| {
                let spec = admin_spec(&b, "  mode: Aggregate\n");
                (golden_dir().join(format!("{b}.yaml")), golden_text(&b, &spec, ""))
            })
            .collect(),
    );
}

#[test]
fn bind_mode_on_bundles_with_roles_and_cluster_scoped_apis() {
    check(
        ["argocd-operator-0.19.0", "memcached-operator-0.0.1", "cert-manager-1.16.5"]
            .into_iter()
            .map(|b| {
                (golden_dir().join("bind").join(format!("{b}.yaml")), golden_text(b, &bind_spec(false), NAMESPACES))
            })
            .collect(),
    );
}

#[test]
fn unmanaged_generates_nothing_for_any_bundle_and_says_so() {
    for bundle in bundle_names() {
        let docs = docs_of(&bundle);
        let inputs: Vec<Source> = docs.iter().map(|d| Source { name: "doc.yaml".into(), text: d.clone() }).collect();
        let config = Source { name: "rbac.yaml".into(), text: config(extension(&bundle), "  mode: Unmanaged\n") };
        let out = render(&inputs, &[config]);
        assert_eq!(out.code, 0, "{bundle}: {}", out.stderr);
        assert_eq!(out.stdout, docs.join("---\n"), "{bundle}: Unmanaged must add or change nothing");
        assert!(out.stderr.contains("RBAC is unmanaged, so only cluster-admins can use"), "{bundle}: {}", out.stderr);
    }
}

#[test]
fn render_is_idempotent_on_every_bundle() {
    for bundle in bundle_names() {
        for spec in ["  mode: Aggregate\n".to_string(), bind_spec(false)] {
            let docs = docs_of(&bundle);
            let inputs: Vec<Source> =
                docs.iter().map(|d| Source { name: "doc.yaml".into(), text: d.clone() }).collect();
            let cfg =
                || Source { name: "rbac.yaml".into(), text: config(extension(&bundle), &admin_spec(&bundle, &spec)) };
            let first = render(&inputs, &[cfg()]);
            assert_eq!(first.code, 0, "{bundle}: {}", first.stderr);
            let again = render(&[Source { name: "-".into(), text: first.stdout.clone() }], &[cfg()]);
            assert_eq!(again.code, 0);
            assert_eq!(again.stdout, first.stdout, "{bundle}: a second run must change nothing");
        }
    }
}
