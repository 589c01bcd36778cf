//! Helpers shared by the integration tests: the real bundles in
//! `tests/fixtures/bundles/`, ResourceLists built from them the way a runner
//! would send them, and the external tools some tests run.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The olm-rbac binary cargo built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_olm-rbac");

/// A path in the repository.
pub fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The committed JSON Schema at `path`, after asserting it is what
/// `olm-rbac schema <command>` writes now (`generated`); a stale one fails
/// with the command that rewrites it.
pub fn committed_schema(path: &str, generated: &str, command: &str) -> String {
    let committed = std::fs::read_to_string(repo(path)).unwrap();
    let run = if command.is_empty() { "schema".to_string() } else { format!("schema {command}") };
    assert!(committed == generated, "{path} is stale: run `cargo run -- {run} > {path}`");
    committed
}

/// A program's output as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A program a test runs, found on PATH.
pub struct Tool {
    pub name: &'static str,
    /// How to get it, for the failure message.
    pub install: &'static str,
}

pub const KPT: Tool =
    Tool { name: "kpt", install: "install kpt v1 (https://kpt.dev/installation/) so that `kpt version` works" };
pub const KUBECTL: Tool = Tool {
    name: "kubectl",
    install: "install kubectl (https://kubernetes.io/docs/tasks/tools/), which embeds kustomize",
};
pub const BASH: Tool = Tool { name: "bash", install: "install bash with the system's package manager" };

/// The environment variable that turns a missing tool from a skip into a
/// failure; `.ci/run` sets it.
pub const REQUIRE_TOOLS: &str = "OLM_RBAC_REQUIRE_TOOLS";

impl Tool {
    /// The tool's path. When it is missing, the calling test prints that it
    /// skips and should return, or, with OLM_RBAC_REQUIRE_TOOLS=1, fails with
    /// how to install the tool.
    pub fn find(&self) -> Option<PathBuf> {
        if let Some(path) = on_path(self.name) {
            return Some(path);
        }
        if std::env::var_os(REQUIRE_TOOLS).is_some_and(|v| v == "1") {
            panic!("{} is needed for this test and is not on PATH ({REQUIRE_TOOLS}=1): {}", self.name, self.install);
        }
        skip(&format!("{} not found on PATH (set {REQUIRE_TOOLS}=1 to make this a failure)", self.name));
        None
    }
}

/// An executable file called `name` in a PATH directory.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths).map(|dir| dir.join(name)).find(|p| is_executable(p))
}

/// Whether `path` is an executable file.
pub fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// Prints `<test>: skipped: <reason>` where `cargo test` shows it: straight
/// to stderr, which the test harness does not capture.
pub fn skip(reason: &str) {
    let thread = std::thread::current();
    let test = thread.name().filter(|n| *n != "main").map(|n| format!("{n}: ")).unwrap_or_default();
    let _ = writeln!(std::io::stderr(), "{test}skipped: {reason}");
}

/// Copies a folder and everything in it.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// Makes `file` executable (a script written by a test).
pub fn make_executable(file: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    #[cfg(not(unix))]
    let _ = file;
}

/// PATH with `dirs` first, then the test's own PATH.
pub fn path_with(dirs: &[PathBuf]) -> OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(dirs.iter().cloned().chain(std::env::split_paths(&rest))).unwrap()
}

/// Writes an executable `docker` into `dir` that runs the built binary, for
/// kustomize's container functions: `docker run --rm -i ... IMAGE` becomes
/// olm-rbac reading the ResourceList on stdin. No container engine is needed,
/// and kustomize's own code path up to `docker run` is the real one.
pub fn stand_in_docker(dir: &Path) {
    let docker = dir.join("docker");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(&docker, format!("#!/bin/sh\n# kustomize runs: docker run --rm -i ... IMAGE\nexec '{BIN}'\n"))
        .unwrap();
    make_executable(&docker);
}

/// The folder holding the built binary.
pub fn bin_dir() -> PathBuf {
    Path::new(BIN).parent().unwrap().to_path_buf()
}

/// PATH with the built binary first, as a user who installed olm-rbac has it.
pub fn path_with_binary() -> OsString {
    path_with(&[bin_dir()])
}

pub fn bundles_dir() -> PathBuf {
    let dir = repo("tests/fixtures/bundles");
    assert!(dir.is_dir(), "the bundle fixtures are missing: expected {}", dir.display());
    dir
}

pub fn bundle_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(bundles_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The documents of a bundle's `manifests/` as the tests of what render makes
/// of a bundle read them: [`published_docs`], but for CRDs written
/// `apiextensions.k8s.io/v1beta1` (enmasse's), read with their apiVersion
/// line as v1. OLM v1 refuses a bundle of v1beta1 CRDs, which no API server
/// has served since Kubernetes 1.22 (`installable`); every other fact of the
/// bundle (its APIServices, its CRDs' several versions) is kept.
pub fn bundle_docs(bundle: &str) -> Vec<(String, String)> {
    published_docs(bundle).into_iter().map(|(name, doc)| (name, legacy_crd_as_v1(doc))).collect()
}

/// A document (or a file of them) that starts as an
/// `apiextensions.k8s.io/v1beta1` CRD, with that line written as v1 (see
/// [`bundle_docs`]); any other as it is.
pub fn legacy_crd_as_v1(doc: String) -> String {
    match doc.strip_prefix("apiVersion: apiextensions.k8s.io/v1beta1\n") {
        Some(rest) => format!("apiVersion: apiextensions.k8s.io/v1\n{rest}"),
        None => doc,
    }
}

/// The documents of a bundle's `manifests/`, in file-name order, each as its
/// exact text (a leading `---` line dropped).
pub fn published_docs(bundle: &str) -> Vec<(String, String)> {
    let dir = bundles_dir().join(bundle).join("manifests");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut docs = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let text = text.strip_prefix("---\n").unwrap_or(&text).to_string();
        for (i, doc) in text.split("\n---\n").enumerate() {
            let mut doc = doc.to_string();
            if !doc.ends_with('\n') {
                doc.push('\n');
            }
            if !doc.trim().is_empty() {
                docs.push((format!("{}#{i}", f.file_name().unwrap().to_string_lossy()), doc));
            }
        }
    }
    docs
}

/// A block-sequence entry holding `doc` exactly, as kpt indents items.
pub fn entry(doc: &str) -> String {
    let mut out = String::new();
    for (i, line) in doc.lines().enumerate() {
        if line.is_empty() {
            out.push('\n');
        } else {
            out.push_str(if i == 0 { "- " } else { "  " });
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `spec` as the admin of `bundle` would write it: for enmasse, vouching for
/// the API groups its owned APIServices serve.
pub fn admin_spec(bundle: &str, spec: &str) -> String {
    if bundle.starts_with("enmasse-") && !spec.contains("Unmanaged") {
        format!("{spec}  apiServiceGroups: [enmasse.io, user.enmasse.io]\n")
    } else {
        spec.to_string()
    }
}

pub fn config(name: &str, spec: &str) -> String {
    format!("apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: {name}\nspec:\n{spec}")
}

/// The items part of a ResourceList: `items:` and the entries.
pub fn items(docs: &[String]) -> String {
    let mut out = String::from("items:\n");
    for d in docs {
        out.push_str(&entry(d));
    }
    out
}

/// A ResourceList with `docs` as items and `config` as functionConfig.
pub fn resource_list(docs: &[String], config: &str) -> String {
    let mut out = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n");
    out.push_str(&items(docs));
    out.push_str("functionConfig:\n");
    for line in config.lines() {
        out.push_str("  ");
        out.push_str(line);
        out.push('\n');
    }
    out
}

pub fn docs_of(bundle: &str) -> Vec<String> {
    bundle_docs(bundle).into_iter().map(|(_, d)| d).collect()
}

/// Label value of `key` on each generated item in a KRM output, by item.
pub fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// Compares two texts and, when they differ, reports the first differing line
/// instead of both texts (which can be megabytes).
#[track_caller]
pub fn assert_same_text(actual: &str, expected: &str, what: &str) {
    if actual == expected {
        return;
    }
    let line = actual.lines().zip(expected.lines()).position(|(a, e)| a != e);
    match line {
        Some(i) => panic!(
            "{what}: first difference at line {}:\n  actual:   {:?}\n  expected: {:?}",
            i + 1,
            actual.lines().nth(i).unwrap_or(""),
            expected.lines().nth(i).unwrap_or("")
        ),
        None => panic!("{what}: one text is a prefix of the other ({} vs {} bytes)", actual.len(), expected.len()),
    }
}

/// Namespaces for the selector cases, including one named `no`, which YAML 1.1
/// reads as a boolean.
pub const NAMESPACES: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n  labels:\n    tenant: a\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a-staging\n  labels:\n    tenant: a\n    stage: staging\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-b\n  labels:\n    tenant: b\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: \"no\"\n";

/// A Bind config with cluster-wide, namespaced (including the namespace `no`)
/// and selector bindings, a duplicate subject, and a group called `on`.
pub fn bind_spec(strip_bundle_aggregation: bool) -> String {
    let strip = if strip_bundle_aggregation { "  stripBundleAggregation: true\n" } else { "" };
    format!("  mode: Bind\n{strip}{}", BIND_BINDINGS)
}

const BIND_BINDINGS: &str = "  bindings:
  - role: edit
    subjects:
    - {kind: Group, name: team-a-devs}
    - {kind: User, name: alice@example.com}
    - {kind: ServiceAccount, name: ci, namespace: ci}
    - {kind: Group, name: team-a-devs}
    namespaces: [team-a, \"no\"]
  - role: view
    subjects: [{kind: Group, name: auditors}]
    namespaceSelector:
      matchLabels: {tenant: a}
      matchExpressions:
      - {key: stage, operator: DoesNotExist}
  - role: view
    subjects: [{kind: Group, name: \"on\"}]
";

/// The request an atom stands for, in `namespace`; `None` for a URL.
pub fn request_for(atom: &olm_rbac::access::cover::Atom, namespace: Option<&str>) -> Option<olm_rbac::access::Request> {
    let olm_rbac::access::cover::Atom::Resource { group, resource, verb, name } = atom else { return None };
    let (resource, subresource) = match resource.split_once('/') {
        Some((r, s)) => (r.to_string(), Some(s.to_string())),
        None => (resource.clone(), None),
    };
    Some(olm_rbac::access::Request {
        verb: verb.clone(),
        group: group.clone(),
        resource,
        subresource,
        name: name.clone(),
        namespace: namespace.map(String::from),
    })
}

/// `config` as kpt sends a functionConfig read from a file: with the index
/// annotation kpt writes, which tells olm-rbac that the items' path
/// annotations are kpt's (`model::RunnerMarks`).
pub fn as_kpt_sends(config: &str) -> String {
    config.replacen("\nmetadata:\n", "\nmetadata:\n  annotations:\n    internal.config.kubernetes.io/index: '0'\n", 1)
}

/// The document with kpt's path annotation, as kpt sends items.
pub fn with_path(text: &str, path: &str) -> String {
    let annotation = format!("internal.config.kubernetes.io/path: {path:?}");
    if let Some(at) = text.find("\n  annotations:\n") {
        let split = at + "\n  annotations:\n".len();
        return format!("{}    {annotation}\n{}", &text[..split], &text[split..]);
    }
    match text.find("metadata:\n") {
        Some(at) => {
            let split = at + "metadata:\n".len();
            format!("{}  annotations:\n    {annotation}\n{}", &text[..split], &text[split..])
        }
        None => text.to_string(),
    }
}

/// `bundle`'s documents as kpt sends them: each with the path of its file
/// (`BUNDLE/manifests/NAME`) in kpt's annotation.
pub fn kpt_items(bundle: &str) -> Vec<String> {
    bundle_docs(bundle)
        .into_iter()
        .map(|(name, text)| with_path(&text, &format!("{bundle}/manifests/{name}")))
        .collect()
}

/// Runs `cmd` with `stdin` written to its standard input.
/// The built binary with `args`, `stdin` piped in.
pub fn run_bin(args: &[&str], stdin: &str) -> std::process::Output {
    run(std::process::Command::new(BIN).args(args), stdin)
}

pub fn run(cmd: &mut std::process::Command, stdin: &str) -> std::process::Output {
    use std::process::Stdio;
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // A program that fails before reading its input closes the pipe: that is its answer, not the test's error.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// Every file under `dir`, by its path relative to `dir`, with its bytes.
pub fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.insert(p.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    files
}

/// How many documents of each kind a manifest stream holds (top-level
/// `kind:` lines, as olm-rbac and kpt write them).
pub fn kinds(manifests: &str) -> std::collections::BTreeMap<String, usize> {
    let mut kinds = std::collections::BTreeMap::new();
    for line in manifests.lines().filter_map(|l| l.strip_prefix("kind: ")) {
        *kinds.entry(line.to_string()).or_insert(0) += 1;
    }
    kinds
}

/// `kpt fn render --allow-exec` on `pkg` with the built binary on PATH; its log.
pub fn kpt_render(kpt: &Path, pkg: &Path) -> String {
    let out = std::process::Command::new(kpt)
        .args(["fn", "render", "--allow-exec", "--truncate-output=false"])
        .arg(pkg)
        .env("PATH", path_with_binary())
        .output()
        .unwrap();
    assert!(out.status.success(), "kpt fn render failed: {}", text(&out.stderr));
    text(&out.stderr)
}

/// A claim of olm-rbac's output in a bundle's folder that is not exactly what
/// the run writes: not believed, kept as the bundle's, and a clash with the
/// ClusterRole `role` the run generates.
#[track_caller]
pub fn assert_refused_as_a_forged_copy(out: &olm_rbac::run::Outcome, role: &str) {
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("it comes from a bundle's own folder, where olm-rbac never writes"), "{}", out.stderr);
    let conflict = format!("conflict: olm-rbac would generate ClusterRole {role}");
    assert!(out.stderr.contains(&conflict), "{}", out.stderr);
}

/// A result with its code (`docs/runners.md#result-codes`), as a run reports
/// it: what a test matches when a message's wording is not what it checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coded {
    pub code: String,
    /// `error`, `warning` or `info` (SARIF's `note`).
    pub severity: String,
    pub message: String,
}

/// The results of a KRM function run, each with its code: the
/// `olm-rbac.io/code` tag of each of the ResourceList's `results`.
#[track_caller]
pub fn function_results(out: &olm_rbac::run::Outcome) -> Vec<Coded> {
    let list: serde_json::Value = serde_saphyr::from_str(&out.stdout).unwrap();
    let results = list["results"].as_array().cloned().unwrap_or_default();
    results
        .iter()
        .map(|r| {
            let code = r["tags"]["olm-rbac.io/code"].as_str();
            let code = code.unwrap_or_else(|| panic!("a result without its code: {r:#}")).to_string();
            Coded {
                code,
                severity: r["severity"].as_str().unwrap().into(),
                message: r["message"].as_str().unwrap().into(),
            }
        })
        .collect()
}

/// `render`, and its errors and warnings each with its code: the rule its
/// SARIF log files it under (render's text on stderr leaves the codes out,
/// and its infos reach no SARIF log).
pub fn render_results(
    inputs: &[olm_rbac::run::Source],
    configs: &[olm_rbac::run::Source],
) -> (olm_rbac::run::Outcome, Vec<Coded>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("render.sarif");
    let options = olm_rbac::run::RenderOptions { sarif: Some(path.clone()), ..Default::default() };
    let out = olm_rbac::run::render_with(inputs, configs, &options);
    let log: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let results = log["runs"][0]["results"].as_array().cloned().unwrap_or_default();
    let coded = results
        .iter()
        .map(|r| Coded {
            code: r["ruleId"].as_str().unwrap().into(),
            severity: r["level"].as_str().unwrap().replace("note", "info"),
            // SARIF's plain text escapes brackets and backslashes.
            message: r["message"]["text"]
                .as_str()
                .unwrap()
                .replace("\\[", "[")
                .replace("\\]", "]")
                .replace("\\\\", "\\"),
        })
        .collect();
    (out, coded)
}

/// Whether a result of `code` is among `results`, with `severity` when given.
pub fn has_code(results: &[Coded], code: &str, severity: Option<&str>) -> bool {
    results.iter().any(|r| r.code == code && severity.is_none_or(|s| r.severity == s))
}
