//! Every code block of every doc runs, the way a reader would run it.
//!
//! The docs are README.md, `docs/*.md`, the catalog README
//! (`functions/*/README.md`) and any README under `examples/`. For each fenced
//! block:
//!
//! - `sh`, `bash`, `shell`: each command runs with bash, in order, in a scratch
//!   folder of its own block (see [`scratch`]), with the built binary first on
//!   PATH as `olm-rbac` (`cargo run -- ...` runs it too). A command must exit 0;
//!   a `# yes` or `# no` comment after it (on its line or the next) is its
//!   expected answer, and `no` expects exit 1. Commands that need a tool run
//!   when it is on PATH (see [`how`]); those that need a cluster or the network
//!   never run, each for a stated reason.
//! - `text` or unlabelled blocks that hold `$ command` lines: the command runs as
//!   above and every line shown after it must appear in its output, in order
//!   (a line ending in `…` stands for any line that starts the same). A line
//!   that is only `…` says lines were left out there; standard output shown
//!   without one is shown whole, so a shortened output always says so. Other
//!   lines in an unlabelled block that read as olm-rbac's messages (`error:`,
//!   `warning:`, `info:`, `install policy:`) must be messages the program
//!   writes (the check in [`crate::docs`]).
//! - `yaml`: an RBACConfig (a block with `kind: RBACConfig` and `metadata`, or
//!   one that starts with `spec:`) must be a valid config; any other block must
//!   be YAML.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// A fenced block of a doc.
#[derive(Debug)]
struct Block {
    doc: String,
    /// The line of its opening fence, 1-based.
    line: usize,
    lang: String,
    text: String,
}

impl Block {
    fn at(&self) -> String {
        format!("{}:{}", self.doc, self.line)
    }
}

/// The docs, as paths relative to the repository.
fn docs() -> Vec<String> {
    fn walk(dir: &Path, base: &Path, only_readmes: bool, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, only_readmes, out);
            } else if path.extension().is_some_and(|e| e == "md")
                && (!only_readmes || path.file_name().is_some_and(|n| n == "README.md"))
            {
                out.push(path.strip_prefix(base).unwrap().display().to_string());
            }
        }
    }
    let base = repo("");
    let mut out = vec!["README.md".to_string()];
    walk(&repo("docs"), &base, false, &mut out);
    walk(&repo("functions"), &base, true, &mut out);
    walk(&repo("examples"), &base, true, &mut out);
    out.sort();
    out
}

fn blocks(doc: &str) -> Vec<Block> {
    let text = std::fs::read_to_string(repo(doc)).unwrap();
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        match (&mut open, fence) {
            (None, true) => {
                let lang = line.trim_start().trim_start_matches('`').trim().to_string();
                open = Some(Block { doc: doc.to_string(), line: i + 1, lang, text: String::new() });
            }
            (Some(_), true) => out.extend(open.take()),
            (Some(b), false) => {
                b.text.push_str(line);
                b.text.push('\n');
            }
            (None, false) => {}
        }
    }
    assert!(open.is_none(), "{doc}: a code block is never closed");
    out
}

/// What a shown command is expected to do.
#[derive(Debug, Default, PartialEq)]
struct Expect {
    /// `yes` or `no`: stdout's first line, and exit 0 or 1.
    answer: Option<&'static str>,
    /// Lines its output must hold, in order.
    lines: Vec<String>,
}

#[derive(Debug)]
struct Shown {
    command: String,
    expect: Expect,
}

/// The comment of a line (after ` #` or at its start), if it gives an answer.
fn answer_of(comment: &str) -> Option<&'static str> {
    let word = comment.trim().split(|c: char| !c.is_ascii_alphanumeric()).next()?;
    match word {
        "yes" => Some("yes"),
        "no" => Some("no"),
        _ => None,
    }
}

/// The commands of a shell block: comments and blank lines taken out, line
/// continuations joined, `# yes` / `# no` read as answers.
fn shell_commands(block: &str) -> Vec<Shown> {
    let mut out: Vec<Shown> = Vec::new();
    let mut pending = String::new();
    // The delimiter of a here-document being read: its lines belong to the command.
    let mut here: Option<String> = None;
    // Whether the comment lines read now belong to the last command's output.
    let mut answering = false;
    for line in block.lines() {
        if let Some(end) = &here {
            let last = out.last_mut().expect("a here-document follows its command");
            last.command.push('\n');
            last.command.push_str(line);
            if line.trim() == end {
                here = None;
            }
            continue;
        }
        let trimmed = line.trim_start();
        if let Some(comment) = trimmed.strip_prefix('#') {
            match out.last_mut() {
                // The answer, on the line after the command...
                Some(last) if pending.is_empty() && answering && last.expect.answer.is_none() => {
                    last.expect.answer = answer_of(comment);
                    answering = last.expect.answer.is_some();
                }
                // ...and what follows it (`--explain`'s chain), indented.
                Some(last) if answering && comment.starts_with("   ") => {
                    last.expect.lines.push(comment[1..].to_string())
                }
                _ => answering = false,
            }
            continue;
        }
        answering = false;
        let (code, comment) = match line.find(" #") {
            Some(at) => (&line[..at], Some(&line[at + 2..])),
            None => (line, None),
        };
        let code = code.trim();
        match code.strip_suffix('\\') {
            Some(part) => {
                pending.push_str(part);
                pending.push(' ');
            }
            None if pending.is_empty() && code.is_empty() => {}
            None => {
                pending.push_str(code);
                let command = pending.split_whitespace().collect::<Vec<_>>().join(" ");
                pending.clear();
                here = command
                    .split_once("<<")
                    .map(|(_, d)| d.trim_start_matches('-').trim().trim_matches('\'').to_string());
                let answer = comment.and_then(answer_of);
                answering = true;
                out.push(Shown { command, expect: Expect { answer, lines: Vec::new() } });
            }
        }
    }
    out
}

/// The `$ command` lines of a transcript, each with the lines shown after it.
fn transcript(block: &str) -> Vec<Shown> {
    let mut out: Vec<Shown> = Vec::new();
    for line in block.lines() {
        if let Some(command) = line.strip_prefix("$ ") {
            out.push(Shown { command: command.trim().to_string(), expect: Expect::default() });
        } else if let Some(last) = out.last_mut() {
            if !line.trim().is_empty() {
                last.expect.lines.push(line.trim_end().to_string());
            }
        }
    }
    out
}

/// What the suite does with a command.
enum How {
    /// Runs offline with the built binary.
    Run,
    /// Runs when the tool is on PATH; without it the command is skipped, or,
    /// with OLM_RBAC_REQUIRE_TOOLS=1, the test fails.
    Needs(&'static Tool),
    /// Runs when the program is on PATH, and is skipped otherwise: CI does not
    /// install it.
    Optional(&'static str),
    /// Never run by the suite, for this reason.
    Never(&'static str),
}

const CLUSTER: &str = "it needs a Kubernetes cluster";

/// How the suite runs a command, by the program it starts with (a pipeline
/// is run as its first program needs).
fn how(command: &str) -> How {
    let words: Vec<&str> = command.split_whitespace().collect();
    match words.as_slice() {
        ["olm-rbac", ..] if words.iter().any(|w| *w == "--pull" || w.starts_with("--push")) => How::Never(
            "it needs a registry and the network (tests/suite/bundle_images.rs runs it against a local registry)",
        ),
        ["cargo", "run", ..]
        | ["olm-rbac", ..]
        | ["cd", ..]
        | ["cat", ..]
        | ["sed", ..]
        | ["mkdir", ..]
        | ["cp", ..] => How::Run,
        ["skopeo", ..] => How::Never("it needs a registry and the network"),
        ["cargo", "test", ..] => How::Never("it is the command that runs this test"),
        ["cargo", "install", ..] => How::Never("it builds a release binary into ~/.cargo/bin"),
        ["docker", ..] => How::Never("it needs a container engine and the network"),
        ["kpt", "fn", ..] if words.contains(&"--image") => How::Never("it needs a container engine and the network"),
        ["kpt", "fn", ..] => How::Needs(&KPT),
        ["kpt", ..] => How::Never(CLUSTER),
        ["kubectl", "kustomize", ..] => How::Needs(&KUBECTL),
        ["kubectl", ..] => How::Never(CLUSTER),
        ["kustomize", ..] => How::Optional("kustomize"),
        ["helm", "template", ..] | ["helm", "plugin", ..] => How::Optional("helm"),
        ["helm", ..] => How::Never(CLUSTER),
        _ => panic!("no rule in doc_blocks::how for `{command}`: say how the suite runs it"),
    }
}

/// The objects the docs' examples take to be on the cluster or in the user's
/// files: `cluster-rbac.yaml`, `ci.yaml`, `existing.yaml`.
const DOC_FIXTURES: &str = "tests/fixtures/docs";

/// The bundles the docs speak of, where a doc is not about the guestbook
/// example: its `bundle/manifests/` and `my-package/` hold this bundle, and its
/// `rbac.yaml` is the doc's own first RBACConfig.
const BUNDLE_OF: &[(&str, &str)] = &[
    ("docs/operator-permissions.md", "ack-s3-controller-1.10.0"),
    ("functions/olm-rbac/README.md", "argocd-operator-0.19.0"),
];

/// What a doc's commands read from the repository beyond `examples/`: each
/// path is copied into the doc's scratch folder where a clone holds it, so
/// that the doc's commands run as written from a clone's root.
const CLONE_PATHS_OF: &[(&str, &[&str])] = &[
    (
        "docs/upgrade-review.md",
        &[
            "tests/fixtures/bundles/argocd-operator-0.6.0",
            "tests/fixtures/bundles/argocd-operator-0.19.0",
            "tests/fixtures/catalogs/csv-metadata-only/bundles/kube-green/0.5.2",
            "tests/fixtures/catalogs/csv-metadata-only/bundles/kube-green/0.7.0",
        ],
    ),
    ("docs/delegating-installs.md", &["tests/fixtures/bundles/prometheus-0.56.3"]),
    ("docs/access-checks.md", &["tests/fixtures/bundles/memcached-operator-0.0.1"]),
    (
        "docs/catalogs-and-pinning.md",
        &[
            "tests/fixtures/catalogs/csv-metadata-only/bundles/kube-green/0.7.0",
            "tests/fixtures/catalogs/with-bundle-objects",
        ],
    ),
];

/// A doc's scratch folder, which its blocks share in order as a reader's
/// folder would: a copy of `examples/`, `my-package/` and `bundle/manifests/`
/// (the guestbook bundle unless [`BUNDLE_OF`] says otherwise), `chart/`,
/// `rbac.yaml` (the guestbook config), the files in [`DOC_FIXTURES`], the
/// paths of [`CLONE_PATHS_OF`], and a catalog example's own package.
fn scratch(doc: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let at = |p: &str| dir.path().join(p);
    copy_dir(&repo("examples"), &at("examples"));
    copy_dir(&repo("examples/helm/chart"), &at("chart"));
    copy_dir(&repo(DOC_FIXTURES), dir.path());
    // A catalog example's README fetches its own package (`kpt pkg get`, which
    // needs the network): the package is where that would put it.
    if let Some(example) = doc.strip_prefix("examples/").and_then(|d| d.strip_suffix("/README.md")) {
        if example.starts_with("olm-rbac-") {
            copy_dir(&repo(&format!("examples/{example}")), &at(example));
        }
    }
    for (_, paths) in CLONE_PATHS_OF.iter().filter(|(d, _)| *d == doc) {
        for path in *paths {
            copy_dir(&repo(path), &at(path));
        }
    }
    match BUNDLE_OF.iter().find(|(d, _)| *d == doc) {
        Some((_, bundle)) => {
            copy_dir(&bundles_dir().join(bundle).join("manifests"), &at("bundle/manifests"));
            copy_dir(&bundles_dir().join(bundle).join("manifests"), &at("my-package"));
            let config = blocks(doc).into_iter().find(is_config).expect("the doc shows its config");
            std::fs::write(at("rbac.yaml"), config.text).unwrap();
        }
        None => {
            copy_dir(&repo("examples/guestbook/manifests"), &at("bundle/manifests"));
            copy_dir(&repo("examples/guestbook/manifests"), &at("my-package"));
            std::fs::copy(repo("examples/guestbook/rbac.yaml"), at("rbac.yaml")).unwrap();
        }
    }
    dir
}

/// Runs a block's commands in the doc's scratch folder, in order; the failures, each
/// naming the doc, line and command.
fn run_block(bash: &Path, dir: &Path, block: &Block, shown: &[Shown], failures: &mut Vec<String>) {
    let docker = dir.join(".stand-in");
    stand_in_docker(&docker);
    let mut cwd: PathBuf = dir.to_path_buf();
    for Shown { command, expect } in shown {
        match how(command) {
            How::Run => {}
            How::Needs(tool) => {
                if tool.find().is_none() {
                    return;
                }
            }
            How::Optional(program) => {
                if on_path(program).is_none() {
                    skip(&format!("{program} not found on PATH, so `{command}` ({}) was not run", block.at()));
                    return;
                }
            }
            How::Never(reason) => {
                eprintln!("doc_blocks: not run: `{command}` ({}): {reason}", block.at());
                continue;
            }
        }
        if let Some(to) = command.strip_prefix("cd ") {
            cwd = cwd.join(to.trim());
            continue;
        }
        let script = match command.strip_prefix("cargo run -- ") {
            Some(args) => format!("olm-rbac {args}"),
            None => command.clone(),
        };
        let out = Command::new(bash)
            .args(["-c", &format!("set -eo pipefail\n{script}")])
            .current_dir(&cwd)
            .env("PATH", path_with(&[bin_dir(), docker.clone()]))
            .output()
            .unwrap();
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        let code = out.status.code().unwrap_or(-1);
        let said = format!("exit {code}\nstdout:\n{stdout}\nstderr:\n{stderr}");
        let fail = |why: String| format!("{}: `{command}`: {why}\n{said}", block.at());
        let answers = command.starts_with("olm-rbac can-i") && !command.contains("--list");
        let expected_code = match expect.answer {
            Some("no") => 1,
            _ => 0,
        };
        if answers && expect.answer.is_none() {
            if code != 0 && code != 1 {
                failures.push(fail("can-i gave no answer".into()));
            }
        } else if code != expected_code {
            failures.push(fail(format!("expected exit {expected_code}")));
            continue;
        }
        if let Some(answer) = expect.answer {
            if stdout.lines().next() != Some(answer) {
                failures.push(fail(format!("expected the answer {answer}")));
            }
        }
        if let Some(missing) = missing_line(&expect.lines, &format!("{stdout}{stderr}")) {
            failures.push(fail(format!("the doc shows this line, which the output lacks (in order): {missing:?}")));
        } else if let Some(gap) = unmarked_shortening(&expect.lines, answered(&stdout, expect.answer)) {
            failures
                .push(fail(format!("the doc shortens the output without saying so: {gap}; mark it with a line `…`")));
        }
    }
}

/// The first of `shown` that `output` lacks, taking them in order; a shown
/// line ending in `…` matches a line that starts with what comes before it,
/// and a line that is only `…` stands for lines left out.
/// Indentation is not compared: runners indent what a function says.
fn missing_line(shown: &[String], output: &str) -> Option<String> {
    let lines: Vec<&str> = output.lines().map(str::trim_end).collect();
    let mut at = 0;
    for want in shown.iter().filter(|w| !is_elision(w)) {
        match position(&lines[at..], want) {
            Some(i) => at += i + 1,
            None => return Some(want.clone()),
        }
    }
    None
}

/// Where a shown line first matches in `lines` (see [`missing_line`]).
fn position(lines: &[&str], want: &str) -> Option<usize> {
    match want.strip_suffix('…') {
        Some(prefix) => lines.iter().position(|l| l.trim_start().starts_with(prefix.trim())),
        None => lines.iter().position(|l| l.trim_start() == want.trim()),
    }
}

/// Standard output after the answer, when the doc gives it as `# yes` or `# no`.
fn answered<'a>(stdout: &'a str, answer: Option<&str>) -> &'a str {
    match answer {
        Some(_) => stdout.split_once('\n').map_or("", |(_, rest)| rest),
        None => stdout,
    }
}

/// A shown line that says lines were left out here.
fn is_elision(line: &str) -> bool {
    line.trim() == "…"
}

/// Where the doc leaves lines of the command's standard output out without
/// a `…` line saying so: a reader takes an output shown whole for the whole.
/// What is shown of standard error (warnings, the summary line) may be a
/// part: it is diagnostics, not the answer.
fn unmarked_shortening(shown: &[String], stdout: &str) -> Option<String> {
    let lines: Vec<&str> = stdout.lines().map(str::trim_end).filter(|l| !l.trim().is_empty()).collect();
    let (mut at, mut marked) = (0, false);
    for want in shown {
        if is_elision(want) {
            marked = true;
            continue;
        }
        // A line not in what is left of stdout is stderr's.
        let Some(i) = position(&lines[at..], want) else { continue };
        if i > 0 && !marked {
            return Some(format!("{i} line(s) of standard output left out before {want:?}"));
        }
        (at, marked) = (at + i + 1, false);
    }
    let left = lines.len() - at;
    (left > 0 && !marked && at > 0).then(|| format!("the last {left} line(s) of standard output left out"))
}

fn is_shell(b: &Block) -> bool {
    matches!(b.lang.as_str(), "sh" | "bash" | "shell")
}

fn is_transcript(b: &Block) -> bool {
    matches!(b.lang.as_str(), "" | "text" | "console") && b.text.lines().any(|l| l.starts_with("$ "))
}

fn is_config(b: &Block) -> bool {
    b.lang == "yaml"
        && ((b.text.contains("kind: RBACConfig") && b.text.contains("metadata:")) || b.text.starts_with("spec:"))
}

#[test]
fn every_command_block_runs() {
    let Some(bash) = BASH.find() else { return };
    // The docs are independent of each other: run them side by side.
    let results: Vec<(usize, Vec<String>)> = std::thread::scope(|s| {
        let runs: Vec<_> = docs()
            .into_iter()
            .map(|doc| {
                let bash = &bash;
                s.spawn(move || {
                    let (mut ran, mut failures) = (0, Vec::new());
                    let dir = scratch(&doc);
                    for block in blocks(&doc) {
                        let shown = if is_shell(&block) {
                            shell_commands(&block.text)
                        } else if is_transcript(&block) {
                            transcript(&block.text)
                        } else {
                            continue;
                        };
                        ran += shown.len();
                        run_block(bash, dir.path(), &block, &shown, &mut failures);
                    }
                    (ran, failures)
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let ran: usize = results.iter().map(|r| r.0).sum();
    let failures: Vec<String> = results.into_iter().flat_map(|r| r.1).collect();
    assert!(ran >= 40, "the docs' commands are found ({ran})");
    assert!(failures.is_empty(), "doc commands that do not do what the doc says:\n\n{}", failures.join("\n\n"));
}

#[test]
fn every_config_block_is_a_valid_config() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for doc in docs() {
        for block in blocks(&doc).into_iter().filter(is_config) {
            let text = if block.text.starts_with("spec:") {
                format!("apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: docs\n{}", block.text)
            } else {
                block.text.clone()
            };
            // With no input at all, a valid config's only errors are that the input lacks what it needs.
            let out = olm_rbac::run::render(&[], &[olm_rbac::run::Source { name: "rbac.yaml".into(), text }]);
            let errors: Vec<&str> = out
                .stderr
                .lines()
                .filter(|l| {
                    l.starts_with("error:") && !l.contains(" in the input") && !l.contains("the input holds no API")
                })
                .collect();
            if !errors.is_empty() {
                failures.push(format!("{}:\n{}", block.at(), errors.join("\n")));
            }
            checked += 1;
        }
    }
    assert!(checked >= 8, "the docs' configs are found ({checked})");
    assert!(failures.is_empty(), "configs in the docs that olm-rbac refuses:\n\n{}", failures.join("\n\n"));
}

#[test]
fn every_yaml_block_is_yaml() {
    let mut failures = Vec::new();
    for doc in docs() {
        for block in blocks(&doc).into_iter().filter(|b| b.lang == "yaml") {
            if let Err(e) = serde_saphyr::from_str::<serde_json::Value>(&block.text) {
                failures.push(format!("{}: {e}", block.at()));
            }
        }
    }
    assert!(failures.is_empty(), "YAML blocks that do not parse:\n{}", failures.join("\n"));
}

/// Lines of unlabelled blocks that read as olm-rbac's own messages are ones
/// the program writes.
#[test]
fn every_message_block_quotes_the_program() {
    let mut missing = Vec::new();
    for doc in docs() {
        for block in blocks(&doc).into_iter().filter(|b| b.lang.is_empty() && !is_transcript(b)) {
            for line in block.text.lines() {
                let message = ["error: ", "warning: ", "info: "]
                    .iter()
                    .find_map(|p| line.strip_prefix(p))
                    .or_else(|| line.strip_prefix("[info] ").and_then(|l| l.split_once(": ").map(|(_, m)| m)))
                    .or_else(|| line.starts_with("install policy: ").then_some(line));
                if let Some(message) = message {
                    if !crate::docs::is_the_programs(message) {
                        missing.push(format!("{}: {line}", block.at()));
                    }
                }
            }
        }
    }
    assert!(missing.is_empty(), "messages in the docs the program does not write:\n{}", missing.join("\n"));
}

/// The Quick start works on a machine with only a Rust toolchain.
#[test]
fn the_quick_start_is_two_cargo_commands() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let section = readme.split("\n## ").find(|s| s.starts_with("Quick start")).expect("README has a Quick start");
    let block = section.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("with a sh block");
    let commands: Vec<String> = shell_commands(block).into_iter().map(|s| s.command).collect();
    assert_eq!(commands, ["cargo run -- render examples/guestbook/", "cargo test"]);
}

#[test]
fn the_block_reader_reads_answers_transcripts_and_continuations() {
    let shell = shell_commands(
        "olm-rbac can-i a b # yes\nolm-rbac can-i c d\n# no            (exit code 1)\n#   Role r → rule\n\
         olm-rbac x \\\n  --y   # a note\n# yes, but only after a note\n# a remark\n#   not output\n",
    );
    assert_eq!(shell[1].expect.lines, ["  Role r → rule"]);
    assert!(shell[2].expect.lines.is_empty());
    let got: Vec<(&str, Option<&str>)> = shell.iter().map(|s| (s.command.as_str(), s.expect.answer)).collect();
    assert_eq!(
        got,
        [("olm-rbac can-i a b", Some("yes")), ("olm-rbac can-i c d", Some("no")), ("olm-rbac x --y", Some("yes"))]
    );
    let here = shell_commands("cat > a.yaml <<'EOF'\nkind: X # not a comment\nEOF\nolm-rbac render a.yaml\n");
    assert_eq!(here[0].command, "cat > a.yaml <<'EOF'\nkind: X # not a comment\nEOF");
    assert_eq!(here[1].command, "olm-rbac render a.yaml");
    let t = transcript("$ olm-rbac report\nA  B\n\n1  2\n$ olm-rbac x\n");
    assert_eq!(t[0].expect.lines, ["A  B", "1  2"]);
    assert!(t[1].expect.lines.is_empty());
    assert_eq!(missing_line(&["a".into(), "c…".into()], "a\nb\ncd\n"), None);
    assert_eq!(missing_line(&["c".into(), "a".into()], "a\nb\nc\n"), Some("a".into()), "in order");
    let shown = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert_eq!(unmarked_shortening(&shown(&["a", "b", "c"]), "a\nb\nc\n"), None);
    assert_eq!(unmarked_shortening(&shown(&["a", "…", "c"]), "a\nb\nc\n"), None);
    assert_eq!(unmarked_shortening(&shown(&["a", "…"]), "a\nb\nc\n"), None);
    assert!(unmarked_shortening(&shown(&["a", "c"]), "a\nb\nc\n").is_some());
    assert!(unmarked_shortening(&shown(&["a", "b"]), "a\nb\nc\n").is_some());
    assert_eq!(missing_line(&shown(&["a", "…", "c"]), "a\nc\n"), None, "… stands for no line too");
}
