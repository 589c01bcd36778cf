//! Golden tests over every real bundle in `../shared/fixtures/bundles/`.
//!
//! Each golden file holds what olm-rbac adds for that bundle in Aggregate mode
//! (and the results it reports, as comments). The pass-through part is checked
//! byte for byte against the bundle itself. Regenerate after a reviewed change:
//! `UPDATE_GOLDEN=1 cargo test --test golden`.

mod common;

use common::*;
use olm_rbac::run::{render, Source};

fn golden_path(bundle: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(format!("{bundle}.yaml"))
}

/// The extension name for a bundle folder: its package name.
fn extension(bundle: &str) -> &str {
    bundle.rsplit_once('-').map_or(bundle, |(name, _)| name)
}

fn render_bundle(bundle: &str, spec: &str) -> (String, String, i32, String) {
    let docs = docs_of(bundle);
    let inputs: Vec<Source> =
        docs.iter().enumerate().map(|(i, d)| Source { name: format!("doc{i}.yaml"), text: d.clone() }).collect();
    let config = Source { name: "rbac.yaml".into(), text: config(extension(bundle), spec) };
    let out = render(&inputs, &[config]);
    (out.stdout, out.stderr, out.code, docs.join("---\n"))
}

#[test]
fn every_bundle_matches_its_golden_output() {
    let mut failures = Vec::new();
    for bundle in bundle_names() {
        let (stdout, stderr, code, passthrough) = render_bundle(&bundle, "  mode: Aggregate\n");
        assert_eq!(code, 0, "{bundle}: {stderr}");
        assert!(stdout.starts_with(&passthrough), "{bundle}: the bundle's documents must come out byte for byte first");
        let generated = stdout[passthrough.len()..].strip_prefix("---\n").unwrap_or(&stdout[passthrough.len()..]);
        let mut actual =
            format!("# olm-rbac output for {bundle} in Aggregate mode (extension {:?}).\n", extension(&bundle));
        actual.push_str("# Regenerate after review: UPDATE_GOLDEN=1 cargo test --test golden\n");
        for line in stderr.lines() {
            actual.push_str(&format!("# {line}\n"));
        }
        actual.push_str("---\n");
        actual.push_str(generated);
        let path = golden_path(&bundle);
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if expected == actual => {}
            Ok(_) => failures.push(format!("{bundle}: output differs from {}", path.display())),
            Err(_) => failures.push(format!("{bundle}: no golden file at {}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}\n(UPDATE_GOLDEN=1 rewrites them; review the diff)", failures.join("\n"));
}

#[test]
fn unmanaged_generates_nothing_for_any_bundle_and_says_so() {
    for bundle in bundle_names() {
        let (stdout, stderr, code, passthrough) = render_bundle(&bundle, "  mode: Unmanaged\n");
        assert_eq!(code, 0, "{bundle}: {stderr}");
        assert_eq!(stdout, passthrough, "{bundle}: Unmanaged must add nothing");
        assert!(stderr.contains("RBAC is unmanaged, so only cluster-admins can use"), "{bundle}: {stderr}");
    }
}

#[test]
fn render_is_idempotent_on_every_bundle() {
    for bundle in bundle_names() {
        let (first, _, _, _) = render_bundle(&bundle, "  mode: Aggregate\n");
        let config = Source { name: "rbac.yaml".into(), text: config(extension(&bundle), "  mode: Aggregate\n") };
        let again = render(&[Source { name: "-".into(), text: first.clone() }], &[config]);
        assert_eq!(again.code, 0);
        assert_eq!(again.stdout, first, "{bundle}: a second run must change nothing");
    }
}
