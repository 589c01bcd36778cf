//! The command line's decisions that no other module's tests reach: which of
//! render's inputs is its config file, and which output formats each command
//! takes.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::*;

const CONFIG: &str =
    "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: guestbook\nspec:\n  mode: Aggregate\n";

/// Runs the binary in `dir` with `args`, stdin empty.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN).args(args).current_dir(dir).stdin(Stdio::null()).output().unwrap()
}

/// `render --config pkg/rbac.yaml pkg`: the config file is read once, as the
/// config, not again as an input (where an RBACConfig beside `--config` is an
/// error), however the path reaches it.
#[test]
fn render_reads_its_config_file_once_when_it_sits_among_the_paths() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo("examples/guestbook/manifests"), &dir.path().join("pkg/manifests"));
    std::fs::write(dir.path().join("pkg/rbac.yaml"), CONFIG).unwrap();
    let apart = run_in(dir.path(), &["render", "--config", "pkg/rbac.yaml", "pkg/manifests"]);
    assert_eq!(apart.status.code(), Some(0), "{}", text(&apart.stderr));
    for config in ["pkg/rbac.yaml", "./pkg/manifests/../rbac.yaml"] {
        let among = run_in(dir.path(), &["render", "--config", config, "pkg"]);
        assert_eq!(among.status.code(), Some(0), "--config {config}: {}", text(&among.stderr));
        assert_eq!(text(&among.stdout), text(&apart.stdout), "--config {config}");
    }
    // Another RBACConfig among the paths is still refused.
    std::fs::write(dir.path().join("pkg/other.yaml"), CONFIG).unwrap();
    let refused = run_in(dir.path(), &["render", "--config", "pkg/rbac.yaml", "pkg"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused.stderr).contains("is among the inputs, but --config gives the configuration"));
}

/// `can-i --list` and `who-can` print a table, JSON or YAML; markdown is
/// `report`'s alone, and clap says so as for any value it does not take.
#[test]
fn every_output_format_but_markdown_is_a_list_format() {
    let dir = tempfile::tempdir().unwrap();
    let rendered = run_in(&repo(""), &["render", "examples/bind/", "examples/guestbook/manifests"]);
    assert_eq!(rendered.status.code(), Some(0), "{}", text(&rendered.stderr));
    std::fs::write(dir.path().join("rendered.yaml"), &rendered.stdout).unwrap();
    let refusal = "error: invalid value 'markdown' for '--output <FORMAT>'\n  [possible values: table, json, yaml]\n\nFor more information, try '--help'.\n";
    for args in [
        &["who-can", "get", "guestbooks", "-A", "-f", "rendered.yaml"][..],
        &["can-i", "--list", "-A", "--as", "alice", "--as-group", "team-a-devs", "-f", "rendered.yaml"],
    ] {
        for format in ["table", "json", "yaml"] {
            let out = run_in(dir.path(), &[args, &["-o", format]].concat());
            assert_eq!(out.status.code(), Some(0), "{args:?} -o {format}: {}", text(&out.stderr));
        }
        let out = run_in(dir.path(), &[args, &["-o", "markdown"]].concat());
        assert_eq!((out.status.code(), text(&out.stderr)), (Some(2), refusal.to_string()), "{args:?}");
        assert!(out.stdout.is_empty());
    }
    let report = run_in(dir.path(), &["report", "--format", "markdown", "-f", "rendered.yaml"]);
    assert_eq!(report.status.code(), Some(0), "{}", text(&report.stderr));
    assert!(text(&report.stdout).contains("\n| API | admin | edit | view |\n|---|"), "{}", text(&report.stdout));
}

/// A path render cannot read is unreadable input (exit 2), never the code of
/// a policy's refusal (1), and nothing is written.
#[test]
fn a_path_render_cannot_read_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-bundle");
    let out = run_bin(&["render", &missing.display().to_string()], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("no-such-bundle"), "{}", text(&out.stderr));
}

/// The catalog commands' help shows examples, and each runs as written from a
/// clone's root: it judges (exit 0 or 1, a report on stdout), never fails to
/// read its input.
#[test]
fn the_catalog_commands_help_examples_run_from_a_clone() {
    // The filter writes its folder where it runs: a copy of what the examples read.
    let scratch = tempfile::tempdir().unwrap();
    copy_dir(&repo("examples/catalog"), &scratch.path().join("examples/catalog"));
    for command in ["judge", "audit", "filter"] {
        let at = if command == "filter" { scratch.path().to_path_buf() } else { repo("") };
        let help = text(&run_in(&repo(""), &["catalog", command, "--help"]).stdout);
        let (_, examples) = help.split_once("Examples:\n").unwrap_or_else(|| panic!("catalog {command}: no examples"));
        let lines: Vec<&str> = examples.lines().map(str::trim).filter(|l| l.starts_with("olm-rbac ")).collect();
        assert!(lines.len() >= 2, "catalog {command}: {examples}");
        for line in lines {
            let args: Vec<&str> = line.split_whitespace().skip(1).collect();
            let out = run_in(&at, &args);
            assert!(matches!(out.status.code(), Some(0 | 1)), "`{line}`: {}", text(&out.stderr));
            assert!(!out.stdout.is_empty(), "`{line}`: {}", text(&out.stderr));
        }
    }
}

/// Issue 49: `-q` on every command, as a user who scripts one expects of the others.
#[test]
fn every_command_takes_quiet() {
    let commands: [&[&str]; 11] = [
        &["render"],
        &["schema"],
        &["can-i"],
        &["can-install"],
        &["who-can"],
        &["report"],
        &["diff"],
        &["catalog", "judge"],
        &["catalog", "audit"],
        &["catalog", "filter"],
        &["catalog"],
    ];
    for command in &commands[..10] {
        let out = run_bin(&[command, &["--help"][..]].concat(), "");
        assert!(text(&out.stdout).contains("-q, --quiet"), "{command:?} takes no -q:\n{}", text(&out.stdout));
    }
    let help = text(&run_bin(&["--help"], "").stdout);
    let listed = help.lines().skip_while(|l| *l != "Commands:").skip(1).take_while(|l| l.starts_with("  "));
    let names: Vec<&str> = listed.filter_map(|l| l.split_whitespace().next()).filter(|n| *n != "help").collect();
    for name in names {
        assert!(commands.iter().any(|c| c[0] == name), "{name} is a command this test does not know: add it");
    }
    let schema = run_bin(&["schema", "-q"], "");
    assert_eq!(schema.status.code(), Some(0));
    assert!(text(&schema.stdout).starts_with('{'));
}
