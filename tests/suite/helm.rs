//! Helm: the post-renderer in `examples/helm/`, as Helm 3 runs it (a path)
//! and as Helm 4 runs it (a `postrenderer/v1` plugin, `examples/helm/olm-rbac/`).
//!
//! Helm is not installed where CI runs: the tests below run the script the way
//! each Helm runs it, and check the plugin's `plugin.yaml` against what Helm 4
//! accepts. The last test runs the real `helm` when it is on PATH.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

/// The Helm 4 plugin's folder. `helm plugin install ./olm-rbac` links it into
/// Helm's plugins folder under this folder's name.
const PLUGIN: &str = "examples/helm/olm-rbac";

/// The stream `helm template` (or `helm install`) hands a post-renderer, built
/// from the example chart: `---`, a `# Source:` comment, each template.
fn helm_stream() -> String {
    let templates = repo("examples/helm/chart/templates");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&templates).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let body = std::fs::read_to_string(f)
                .unwrap()
                .replace("{{ .Release.Name }}", "guestbook")
                .replace("{{ .Chart.AppVersion }}", "0.1.0");
            format!("---\n# Source: guestbook-operator/templates/{}\n{body}", f.file_name().unwrap().to_string_lossy())
        })
        .collect()
}

/// Every chart document comes back as it went in, followed by `roles`
/// ClusterRoles.
#[track_caller]
fn assert_stream_kept_and_rbac_added(out: &Output, stream: &str, roles: usize) {
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    // The leading `---` lines are separators.
    for doc in stream.split("---\n").filter(|d| !d.is_empty()) {
        assert!(stdout.contains(doc), "a chart document was changed:\n{doc}");
    }
    assert!(stdout.contains("# Source: guestbook-operator/templates/deployment.yaml\n"), "comments survive");
    assert_eq!(kinds(&stdout).get("ClusterRole"), Some(&roles), "{stdout}");
}

/// Helm 3: `--post-renderer ./post-renderer.sh`, run from the folder helm runs in.
#[test]
fn helm_3_post_renderer_appends_rbac_to_the_stream() {
    let stream = helm_stream();
    let out = run(
        Command::new(repo("examples/helm/post-renderer.sh"))
            .current_dir(repo("examples/helm"))
            .env("PATH", path_with_binary())
            .env_remove("OLM_RBAC_CONFIG"),
        &stream,
    );
    // No CSV in a chart: every CRD gets roles.
    assert_stream_kept_and_rbac_added(&out, &stream, 8);
}

/// Helm 3 and Helm 4 run the same script, so the two forms cannot drift apart.
#[test]
fn helm_3_and_helm_4_run_the_same_script() {
    let helm3 = std::fs::canonicalize(repo("examples/helm/post-renderer.sh")).unwrap();
    let helm4 = std::fs::canonicalize(repo(PLUGIN).join("post-renderer.sh")).unwrap();
    assert_eq!(helm3, helm4);
}

// What Helm 4 accepts in a plugin.yaml, from Helm's source (helm/helm, tags
// v4.0.0 to v4.2.4):
// - internal/plugin/loader.go: `apiVersion: v1` selects the v1 schema, decoded
//   with KnownFields(true) since v4.1.0, so an unknown field fails the load.
// - internal/plugin/metadata_v1.go: the fields apiVersion, name, type, runtime,
//   version, sourceURL, config, runtimeConfig; Validate() wants name to match
//   ^[A-Za-z0-9_-]+$, apiVersion "v1", type and runtime set, and (since v4.1.0)
//   version, strict semver.
// - internal/plugin/plugin_type_registry.go and schema/postrenderer.go: type
//   `postrenderer/v1`, whose config (ConfigPostRendererV1) has no fields and is
//   decoded with KnownFields(true).
// - internal/plugin/runtime_subprocess.go: runtime `subprocess`, runtimeConfig
//   platformCommand, platformHooks, protocolCommands; subprocess_commands.go:
//   each platformCommand has os, arch, command, args. The command is split on
//   spaces; its first word is expanded with the plugin's environment
//   (HELM_PLUGIN_DIR, HELM_PLUGIN_NAME) in every 4.x, the other words and args
//   only since v4.1.0 (v4.0 expanded them from helm's own environment, which
//   has no HELM_PLUGIN_DIR). Each --post-renderer-args value is appended
//   (schema/postrenderer.go: ExtraArgs). The command runs in helm's working
//   directory, with the manifests on stdin; stdout is what helm installs.
// The draft HIP-0026 (helm/community) wrote the type as
// `postrender.plugins.helm.sh/v1`; Helm shipped `postrenderer/v1`.

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // Read to check the file's shape, as Helm decodes it.
struct PluginV1 {
    #[serde(rename = "apiVersion")]
    api_version: String,
    name: String,
    #[serde(rename = "type")]
    kind: String,
    runtime: String,
    version: String,
    #[serde(rename = "sourceURL")]
    source_url: Option<String>,
    config: Option<BTreeMap<String, serde_json::Value>>,
    #[serde(rename = "runtimeConfig")]
    runtime_config: Subprocess,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Subprocess {
    #[serde(rename = "platformCommand")]
    platform_command: Vec<PlatformCommand>,
    #[serde(rename = "platformHooks")]
    platform_hooks: Option<serde_json::Value>,
    #[serde(rename = "protocolCommands")]
    protocol_commands: Option<serde_json::Value>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PlatformCommand {
    os: Option<String>,
    arch: Option<String>,
    command: String,
    #[serde(default)]
    args: Vec<String>,
}

fn plugin() -> PluginV1 {
    let text = std::fs::read_to_string(repo(PLUGIN).join("plugin.yaml")).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{PLUGIN}/plugin.yaml is not what Helm 4 reads: {e}"))
}

/// The command and arguments Helm 4 runs for the plugin on this platform,
/// with `--post-renderer-args` values `extra`.
fn helm4_command(plugin: &PluginV1, dir: &Path, extra: &[&str]) -> (String, Vec<String>) {
    let entry = plugin
        .runtime_config
        .platform_command
        .iter()
        .find(|c| c.os.as_deref().is_none_or(|os| os == std::env::consts::OS) && c.arch.is_none())
        .expect("a platformCommand for any platform");
    let expand = |s: &str| s.replace("${HELM_PLUGIN_DIR}", &dir.display().to_string());
    let mut words = entry.command.split(' ').map(expand);
    let program = words.next().unwrap();
    let args = words.chain(entry.args.iter().map(|a| expand(a))).chain(extra.iter().map(|a| a.to_string())).collect();
    (program, args)
}

#[test]
fn helm_4_plugin_yaml_has_what_helm_4_requires() {
    let plugin = plugin();
    assert_eq!(plugin.api_version, "v1");
    assert_eq!(plugin.kind, "postrenderer/v1");
    assert_eq!(plugin.runtime, "subprocess");
    assert!(!plugin.name.is_empty() && plugin.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
    assert_eq!(plugin.name, "olm-rbac", "the name users pass to --post-renderer, as the docs show it");
    assert!(repo(PLUGIN).ends_with(&plugin.name), "helm plugin install names the link after the folder");
    let parts: Vec<&str> = plugin.version.split('.').collect();
    assert!(
        parts.len() == 3 && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())),
        "version {:?} must be strict semver",
        plugin.version
    );
    assert!(plugin.config.as_ref().is_none_or(|c| c.is_empty()), "postrenderer/v1 takes no config fields");
    for entry in &plugin.runtime_config.platform_command {
        assert!(
            entry.command.starts_with("${HELM_PLUGIN_DIR}/") && !entry.command.contains(' '),
            "the script is found in the plugin's folder, with no arguments to expand: {}",
            entry.command
        );
        assert!(entry.args.iter().all(|a| !a.contains('$')), "Helm 4.0 expands args from its own environment");
    }
    let (program, _) = helm4_command(&plugin, &repo(PLUGIN), &[]);
    assert!(is_executable(Path::new(&program)), "{program} must be an executable file");
}

/// Runs the plugin as Helm 4 does: its command from plugin.yaml, with
/// HELM_PLUGIN_DIR and HELM_PLUGIN_NAME set, `extra` as the
/// `--post-renderer-args`, in the folder helm runs in (`cwd`).
fn run_as_helm_4(cwd: &Path, extra: &[&str], env: &[(&str, &str)], stream: &str) -> Output {
    let plugin = plugin();
    let dir = repo(PLUGIN);
    let (program, args) = helm4_command(&plugin, &dir, extra);
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .env("HELM_PLUGIN_DIR", &dir)
        .env("HELM_PLUGIN_NAME", &plugin.name)
        .env("PATH", path_with_binary())
        .env_remove("OLM_RBAC_CONFIG");
    for (k, v) in env {
        cmd.env(k, v);
    }
    run(&mut cmd, stream)
}

#[test]
fn helm_4_plugin_renders_the_rbac_with_the_config_from_post_renderer_args() {
    let stream = helm_stream();
    let out = run_as_helm_4(&repo("examples/helm"), &["rbac.yaml"], &[], &stream);
    assert_stream_kept_and_rbac_added(&out, &stream, 8);
    assert!(!text(&out.stdout).contains("kind: ClusterRoleBinding"), "the example's config is Aggregate");
}

/// The config named in `--post-renderer-args` is the one used: a Bind config
/// there gives bindings the example's Aggregate config does not.
#[test]
fn helm_4_plugin_takes_the_config_named_in_post_renderer_args() {
    let stream = helm_stream();
    let tmp = tempfile::tempdir().unwrap();
    let bind = "  mode: Bind\n  bindings:\n  - role: view\n    subjects: [{kind: Group, name: sre}]\n";
    std::fs::write(tmp.path().join("bind.yaml"), config("guestbook", bind)).unwrap();
    std::fs::write(tmp.path().join("rbac.yaml"), config("guestbook", "  mode: Aggregate\n")).unwrap();

    // A relative path is read from helm's working directory.
    let out = run_as_helm_4(tmp.path(), &["bind.yaml"], &[], &stream);
    assert_stream_kept_and_rbac_added(&out, &stream, 8);
    let stdout = text(&out.stdout);
    assert_eq!(kinds(&stdout).get("ClusterRoleBinding"), Some(&4), "view and view-crdview for each API: {stdout}");

    // The argument wins over OLM_RBAC_CONFIG, which wins over ./rbac.yaml.
    let out = run_as_helm_4(tmp.path(), &["bind.yaml"], &[("OLM_RBAC_CONFIG", "rbac.yaml")], &stream);
    assert_eq!(kinds(&text(&out.stdout)).get("ClusterRoleBinding"), Some(&4));
    let out = run_as_helm_4(tmp.path(), &[], &[("OLM_RBAC_CONFIG", "bind.yaml")], &stream);
    assert_eq!(kinds(&text(&out.stdout)).get("ClusterRoleBinding"), Some(&4));
    let out = run_as_helm_4(tmp.path(), &[], &[], &stream);
    assert_stream_kept_and_rbac_added(&out, &stream, 8);
    assert_eq!(kinds(&text(&out.stdout)).get("ClusterRoleBinding"), None, "./rbac.yaml, Aggregate");
}

#[test]
fn helm_4_plugin_fails_with_nothing_on_stdout() {
    let stream = helm_stream();
    let tmp = tempfile::tempdir().unwrap();
    let out = run_as_helm_4(tmp.path(), &["missing.yaml"], &[], &stream);
    assert_eq!(out.status.code(), Some(2), "unreadable input: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "", "nothing partial for helm to install");
    assert!(text(&out.stderr).contains("missing.yaml"), "{}", text(&out.stderr));

    let out = run_as_helm_4(tmp.path(), &["--config", "rbac.yaml"], &[], &stream);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "post-renderer.sh: expected at most one argument, the RBACConfig file; got 2\n",
        "one --post-renderer-args value, the file"
    );
}

/// With the real `helm` on PATH: Helm 4 installs the plugin and runs it by
/// name; Helm 3 runs the script by path. Without helm the test says it skipped.
#[test]
fn helm_runs_the_post_renderer() {
    let Some(helm) = on_path("helm") else {
        skip("helm not found on PATH, so the post-renderer was not run by Helm (no package registry here carries it)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("helm");
    copy_dir(&repo("examples/helm"), &work);
    let helm_cmd = |args: &[&str]| {
        let out = Command::new(&helm)
            .args(args)
            .current_dir(&work)
            .env("PATH", path_with_binary())
            .env("HELM_DATA_HOME", tmp.path().join("data"))
            .env("HELM_CONFIG_HOME", tmp.path().join("config"))
            .env("HELM_CACHE_HOME", tmp.path().join("cache"))
            .env_remove("HELM_PLUGINS")
            .env_remove("OLM_RBAC_CONFIG")
            .output()
            .unwrap();
        assert!(out.status.success(), "helm {args:?}: {}{}", text(&out.stdout), text(&out.stderr));
        text(&out.stdout)
    };
    let version = helm_cmd(&["version", "--short"]);
    let rendered = if version.starts_with("v3.") {
        helm_cmd(&["template", "guestbook", "chart/", "--post-renderer", "./post-renderer.sh"])
    } else {
        helm_cmd(&["plugin", "install", "./olm-rbac"]);
        helm_cmd(&[
            "template",
            "guestbook",
            "chart/",
            "--post-renderer",
            "olm-rbac",
            "--post-renderer-args",
            "rbac.yaml",
        ])
    };
    assert_eq!(kinds(&rendered).get("ClusterRole"), Some(&8), "helm {version}: {rendered}");
    assert_eq!(kinds(&rendered).get("CustomResourceDefinition"), Some(&2), "the chart's manifests stay");
}
