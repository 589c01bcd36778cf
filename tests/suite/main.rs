//! The integration tests, as one test binary: one link after a change to the
//! library instead of one per file. Each file is a module, so a test is named
//! `module::test`, e.g. `cargo test golden::` runs the golden tests.
//!
//! Helpers the modules share live in `common`; the bundle fixtures in
//! `tests/fixtures/`, the golden files in `tests/golden/`.

mod common;

mod access_cli;
mod access_config;
mod access_facts;
mod access_habits;
mod access_output;
mod bundle_images;
mod catalog;
mod catalog_configs;
mod catalog_filter;
mod command_line;
mod delegation;
mod delegation_catalog;
mod diff;
mod doc_blocks;
mod docs;
mod e2e;
mod errors;
mod gate;
mod gate_bypasses;
mod golden;
mod helm;
mod hostile_inputs;
mod hostile_reviews;
mod installable;
mod installer;
mod installer_upgrade;
mod invariant;
mod item_edits;
mod json_schema;
mod kpt_catalog;
mod krm;
mod kubernetes_tables;
mod modes;
mod olm_apis;
mod olm_reading;
mod operator;
mod pinning;
mod powers;
mod property;
mod registry;
mod render_habits;
mod render_roundtrip;
mod report_graph;
mod sarif;
mod schema;
mod security;
mod tidy;
mod workflow;
mod yaml_merge;

/// A new file directly in `tests/` would be a test binary of its own, linked
/// again after every library change: add a module here instead.
#[test]
fn integration_tests_are_modules_of_this_binary() {
    let stray: Vec<String> = std::fs::read_dir(common::repo("tests"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| p.display().to_string())
        .collect();
    assert!(stray.is_empty(), "move these into tests/suite/ as modules: {stray:?}");
}
