//! README.md's shell commands, run the way a reader would run them: every
//! command in its `sh` code blocks is either run here, offline, with the built
//! binary as `olm-rbac` (and as `cargo run --`), or listed in [`COMMANDS`] with
//! the tool it needs or the reason it is not run. A command added to the README
//! without an entry here fails [`every_readme_command_is_known`].
//!
//! Each command runs with bash from a scratch folder holding a copy of
//! `examples/` and the placeholders the README names (`my-package/`,
//! `bundle/manifests/`, `chart/` and `rbac.yaml`, taken from the guestbook
//! example), with the built binary and a stand-in `docker` first on PATH.

use std::path::Path;
use std::process::Command;

use crate::common::*;

/// What the suite does with a README command.
enum How {
    /// Runs offline with the built binary; its stdout must contain the text.
    Run(&'static str),
    /// Runs when the tool is on PATH. Without it the command is skipped, or,
    /// with OLM_RBAC_REQUIRE_TOOLS=1, the test fails.
    Needs(&'static Tool),
    /// Runs when the tool is on PATH, and is skipped otherwise: CI does not
    /// install it, so OLM_RBAC_REQUIRE_TOOLS does not apply.
    Optional(&'static str),
    /// Never run by the suite, for this reason.
    Never(&'static str),
}

/// Every command of the README, as written there (without its comment).
const COMMANDS: &[(&str, How)] = &[
    ("cargo run -- render examples/guestbook/", How::Run("name: guestbooks.webapp.example.com-view-crdview\n")),
    ("cargo test", How::Never("it is the command that runs this test")),
    (
        "cargo install --locked --path .",
        How::Never("it builds a release binary into ~/.cargo/bin; the suite runs the binary cargo built for it"),
    ),
    ("docker build -t olm-rbac .", How::Never("it needs a container engine and the network")),
    ("kpt fn render --allow-exec examples/kpt", How::Needs(&KPT)),
    ("kpt fn eval my-package/ --exec olm-rbac --fn-config rbac.yaml", How::Needs(&KPT)),
    ("kubectl kustomize --enable-alpha-plugins examples/kustomize/container", How::Needs(&KUBECTL)),
    ("olm-rbac render --config rbac.yaml bundle/manifests/", How::Run("name: guestbookthemes.webapp.example.com-admin\n")),
    ("helm template my-release chart/ | olm-rbac render --config rbac.yaml -", How::Optional("helm")),
    (
        "olm-rbac render examples/bind/ examples/guestbook/manifests | olm-rbac can-i create guestbooks -n team-a --as bob --as-group team-a-devs",
        How::Run("yes\n"),
    ),
];

/// The commands in README.md's `sh` code blocks, by section: comments,
/// blank lines and line continuations taken out.
fn readme_commands() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let mut commands = Vec::new();
    let mut section = String::new();
    let mut in_block = false;
    let mut pending = String::new();
    for line in readme.lines() {
        if !in_block {
            if let Some(title) = line.strip_prefix("## ") {
                section = title.to_string();
            }
            in_block = matches!(line.trim_end(), "```sh" | "```bash" | "```shell");
            continue;
        }
        if line.starts_with("```") {
            in_block = false;
            continue;
        }
        let code = line.find(" #").map_or(line, |at| &line[..at]);
        let code = if line.trim_start().starts_with('#') { "" } else { code.trim() };
        match code.strip_suffix('\\') {
            Some(part) => pending.push_str(part),
            None if pending.is_empty() && code.is_empty() => {}
            None => {
                pending.push_str(code);
                let command = pending.split_whitespace().collect::<Vec<_>>().join(" ");
                commands.push((section.clone(), command));
                pending.clear();
            }
        }
    }
    commands
}

#[test]
fn every_readme_command_is_known() {
    let commands = readme_commands();
    let unknown: Vec<&str> =
        commands.iter().map(|(_, c)| c.as_str()).filter(|c| !COMMANDS.iter().any(|(k, _)| k == c)).collect();
    assert!(unknown.is_empty(), "README commands missing from COMMANDS in tests/suite/readme.rs: {unknown:#?}");
    let stale: Vec<&str> = COMMANDS.iter().map(|(k, _)| *k).filter(|k| !commands.iter().any(|(_, c)| c == k)).collect();
    assert!(stale.is_empty(), "COMMANDS entries the README no longer has: {stale:#?}");
}

/// The Quick start works on a machine with only a Rust toolchain.
#[test]
fn the_quick_start_is_two_cargo_commands() {
    let quick: Vec<String> =
        readme_commands().into_iter().filter(|(section, _)| section == "Quick start").map(|(_, c)| c).collect();
    assert_eq!(quick, ["cargo run -- render examples/guestbook/", "cargo test"]);
}

/// A scratch folder with what the README's commands name.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let at = |p: &str| dir.path().join(p);
    copy_dir(&repo("examples"), &at("examples"));
    copy_dir(&repo("examples/guestbook/manifests"), &at("my-package"));
    copy_dir(&repo("examples/guestbook/manifests"), &at("bundle/manifests"));
    copy_dir(&repo("examples/helm/chart"), &at("chart"));
    std::fs::copy(repo("examples/guestbook/rbac.yaml"), at("rbac.yaml")).unwrap();
    dir
}

/// Runs one README command in a fresh scratch folder; panics with its output
/// when it fails or its stdout lacks `expect`.
fn run_command(bash: &Path, command: &str, expect: &str) {
    let dir = scratch();
    let docker = dir.path().join("stand-in");
    stand_in_docker(&docker);
    let script = match command.strip_prefix("cargo run -- ") {
        Some(args) => format!("olm-rbac {args}"),
        None => command.to_string(),
    };
    let out = Command::new(bash)
        .args(["-c", &format!("set -euo pipefail\n{script}")])
        .current_dir(dir.path())
        .env("PATH", path_with(&[bin_dir(), docker]))
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "README command failed: {command}\n{}", text(&out.stderr));
    assert!(stdout.contains(expect), "README command {command}: stdout lacks {expect:?}:\n{stdout}");
}

/// The commands that need nothing but the built binary.
#[test]
fn offline_commands_run() {
    let Some(bash) = BASH.find() else { return };
    let mut ran = 0;
    for (command, how) in COMMANDS {
        if let How::Run(expect) = how {
            run_command(&bash, command, expect);
            ran += 1;
        }
    }
    assert!(ran >= 3, "the README's offline commands are run");
}

/// The commands that need kpt, kubectl or helm, when they are there.
#[test]
fn commands_with_external_tools_run() {
    let Some(bash) = BASH.find() else { return };
    for (command, how) in COMMANDS {
        match how {
            How::Needs(tool) => {
                if tool.find().is_some() {
                    run_command(&bash, command, "");
                }
            }
            How::Optional(tool) => match on_path(tool) {
                Some(_) => run_command(&bash, command, "kind: ClusterRole\n"),
                None => skip(&format!("{tool} not found on PATH, so `{command}` was not run")),
            },
            How::Never(reason) => eprintln!("readme: not run by the suite: `{command}`: {reason}"),
            How::Run(_) => {}
        }
    }
}
