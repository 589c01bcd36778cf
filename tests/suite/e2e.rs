//! End to end: the built binary, on its own and run by the real kpt.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::*;

#[test]
fn version_and_help() {
    let out = Command::new(BIN).arg("--version").output().unwrap();
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), format!("olm-rbac {}\n", env!("CARGO_PKG_VERSION")));
    let out = Command::new(BIN).arg("--help").output().unwrap();
    let help = text(&out.stdout);
    assert!(help.contains("KRM function") && help.contains("Examples:") && help.contains("render"), "{help}");
}

#[test]
fn quick_start_renders_the_example() {
    let out = Command::new(BIN).args(["render", repo("examples/guestbook").to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for role in ["admin", "edit", "view", "view-crdview"] {
        for api in ["guestbooks", "guestbookthemes"] {
            assert!(stdout.contains(&format!("name: {api}.webapp.example.com-{role}\n")), "{api} {role}");
        }
    }
    assert!(!stdout.contains("kind: RBACConfig"), "an input config is not echoed");
    assert!(stdout.contains("kind: ClusterServiceVersion"), "the bundle passes through");
    assert!(text(&out.stderr).contains("generated 8 ClusterRole(s) for 2 API(s)"));
}

#[test]
fn the_bind_example_grants_what_its_comments_say() {
    let out = Command::new(BIN)
        .args([
            "render",
            repo("examples/guestbook/manifests").to_str().unwrap(),
            repo("examples/bind").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    // team-a-devs edit (and view) guestbooks in the two team-a namespaces only.
    for ns in ["team-a", "team-a-staging"] {
        for role in ["edit", "view"] {
            assert!(
                stdout
                    .contains(&format!("  name: guestbook-guestbooks.webapp.example.com-{role}\n  namespace: {ns}\n")),
                "{ns} {role}"
            );
        }
    }
    assert!(!stdout.contains("namespace: team-b\n"), "team-b is not selected");
    // Themes are cluster-scoped: the namespaced binding skips them, and says so.
    assert!(
        stderr.contains("spec.bindings[0].namespaceSelector: skipped guestbookthemes.webapp.example.com"),
        "{stderr}"
    );
    assert!(stdout.contains("  name: guestbook-guestbookthemes.webapp.example.com-admin\n"));
    assert!(stdout.contains("olm-rbac.io/rbac: \"Bind: 8 ClusterRole(s), 10 binding(s) generated for 2 API(s)\""));
    assert!(!stdout.contains("aggregate-to-"), "Bind mode does not aggregate");
}

#[test]
fn function_mode_on_stdin_and_exit_codes() {
    let list = resource_list(&docs_of("memcached-operator-0.0.1"), &config("memcached", "  mode: Aggregate\n"));
    let out = run(&mut Command::new(BIN), &list);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The bundle's kubebuilder roles provide admin, edit and view: only crdview is generated.
    assert_eq!(count(&text(&out.stdout), "olm-rbac.io/role:"), 1);
    assert!(text(&out.stderr).contains("memcached-operator-memcached-editor-role: provides the edit role"));

    let out = run(&mut Command::new(BIN), "apiVersion: v1\nkind: List\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("not a ResourceList"));
}

#[test]
fn render_reads_stdin_and_directories_like_a_helm_post_renderer() {
    let stream = docs_of("argocd-operator-0.6.0").join("---\n");
    let cfg = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(cfg.path(), config("argocd", "  mode: Aggregate\n")).unwrap();
    let out = run(Command::new(BIN).args(["render", "--config", cfg.path().to_str().unwrap(), "-"]), &stream);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with(&stream), "the stream passes through first, unchanged");
    assert_eq!(count(&stdout[stream.len()..], "kind: ClusterRole\n"), 20);
}

fn kpt_eval(kpt: &Path, pkg: &Path, exec: &Path, config: Option<&Path>) -> Output {
    let mut cmd = Command::new(kpt);
    cmd.args(["fn", "eval", "--truncate-output=false"]).arg(pkg).arg("--exec").arg(exec);
    if let Some(c) = config {
        cmd.arg("--fn-config").arg(c);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "kpt failed: {}\n{}", text(&out.stdout), text(&out.stderr));
    out
}

/// `kpt fn eval --exec` on a real bundle: only the RBAC file appears, a second
/// run changes nothing, and Unmanaged removes it again.
#[test]
fn kpt_fn_eval_exec_lifecycle() {
    let Some(kpt) = KPT.find() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    std::fs::create_dir(&pkg).unwrap();
    for e in std::fs::read_dir(bundles_dir().join("argocd-operator-0.19.0/manifests")).unwrap() {
        let p = e.unwrap().path();
        std::fs::write(pkg.join(p.file_name().unwrap()), std::fs::read(&p).unwrap()).unwrap();
    }
    // kpt rewrites every file with its own YAML writer whatever a function does:
    // let an identity function do that first, and compare against its result.
    let identity = tmp.path().join("identity.sh");
    std::fs::write(&identity, "#!/bin/sh\nexec cat\n").unwrap();
    make_executable(&identity);
    kpt_eval(&kpt, &pkg, &identity, None);
    let baseline = snapshot(&pkg);

    let cfg = tmp.path().join("rbac.yaml");
    std::fs::write(&cfg, config("argocd", "  mode: Aggregate\n")).unwrap();
    let out = kpt_eval(&kpt, &pkg, Path::new(BIN), Some(&cfg));
    assert!(text(&out.stderr).contains("generated 30 ClusterRole(s) for 8 API(s)"), "{}", text(&out.stderr));
    let mut first = snapshot(&pkg);
    let rbac = first.remove("rbac/argocd.yaml").expect("the roles are written to spec.outputPath's default");
    // The bundle's namespacemanagement editor and viewer roles are used instead of
    // generated ones, and gain their aggregation label plus the record of it.
    for (file, role) in [("editor", "edit"), ("viewer", "view")] {
        let name =
            format!("argocd-operator-namespacemanagement-{file}-role_rbac.authorization.k8s.io_v1_clusterrole.yaml");
        let before = text(&baseline[&name]);
        let after = text(&first[&name]);
        let added: Vec<&str> = after.lines().filter(|l| !before.lines().any(|b| b == *l)).collect();
        assert_eq!(
            added,
            [
                "  annotations:".to_string(),
                format!("    olm-rbac.io/label-changes: \"argocd: +rbac.authorization.k8s.io/aggregate-to-{role}\""),
                "  labels:".to_string(),
                format!("    rbac.authorization.k8s.io/aggregate-to-{role}: \"true\""),
            ],
            "{name}"
        );
        first.insert(name.clone(), baseline[&name].clone());
    }
    assert_eq!(first, baseline, "every other file is unchanged on disk");
    let rbac = text(&rbac);
    assert_eq!(count(&rbac, "kind: ClusterRole\n"), 30);
    assert!(!rbac.contains("config.kubernetes.io/"), "kpt strips its path annotations when writing");

    let before = snapshot(&pkg);
    kpt_eval(&kpt, &pkg, Path::new(BIN), Some(&cfg));
    assert_eq!(snapshot(&pkg), before, "a second run changes nothing");

    std::fs::write(&cfg, config("argocd", "  mode: Unmanaged\n")).unwrap();
    let out = kpt_eval(&kpt, &pkg, Path::new(BIN), Some(&cfg));
    assert!(text(&out.stderr).contains("RBAC is unmanaged"));
    assert_eq!(snapshot(&pkg), baseline, "switching to Unmanaged removes exactly what was generated and added");
}

/// kubectl reads YAML 1.1, where an unquoted `no` or `on` is a boolean. It
/// decodes manifests before it needs a cluster, so a type error shows offline.
#[test]
fn kubectl_reads_names_like_no_and_on_as_strings() {
    let Some(kubectl) = KUBECTL.find() else { return };
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names: {plural: widgets, kind: Widget}\n  scope: Namespaced\n  versions: [{name: v1, served: true, storage: true}]\n";
    let spec = "  mode: Bind\n  bindings:\n  - role: view\n    subjects: [{kind: Group, name: \"on\"}, {kind: User, name: \"yes\"}]\n    namespaces: [\"no\"]\n";
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("rbac.yaml");
    std::fs::write(&cfg, config("y", spec)).unwrap();
    let out = run(Command::new(BIN).args(["render", "--config", cfg.to_str().unwrap(), "-"]), crd);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rendered = text(&out.stdout);
    assert!(rendered.contains("  namespace: \"no\"\n") && rendered.contains("  name: \"on\"\n"));

    let decode = |manifest: &str| {
        let path = tmp.path().join("m.yaml");
        std::fs::write(&path, manifest).unwrap();
        let out = Command::new(&kubectl)
            .args(["create", "--dry-run=client", "--validate=false", "-o", "json", "-f"])
            .arg(&path)
            .env("KUBECONFIG", tmp.path().join("no-cluster"))
            .output()
            .unwrap();
        text(&out.stderr)
    };
    let errors = decode(&rendered);
    assert!(!errors.contains("cannot unmarshal"), "kubectl misread a generated value: {errors}");
    // The same manifests with the quotes dropped: kubectl must trip, or this test proves nothing.
    let unquoted = rendered.replace("\"no\"", "no").replace("\"on\"", "on");
    assert!(decode(&unquoted).contains("cannot unmarshal bool"), "the negative control did not fail");
}

/// `kpt fn render` on the example package: the committed package is already
/// rendered, so rendering changes nothing, and rendering from scratch gives
/// the committed RBAC file.
#[test]
fn kpt_fn_render_on_the_example_package() {
    let Some(kpt) = KPT.find() else { return };
    let example = repo("examples/kpt");
    let committed = snapshot(&example);
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("kpt");
    copy_dir(&example, &pkg);
    let log = kpt_render(&kpt, &pkg);
    assert!(
        log.contains(
            "[info] olm-rbac.io/v1alpha1/RBACConfig/guestbook: extension \"guestbook\": generated 8 ClusterRole(s)"
        ),
        "{log}"
    );
    assert_eq!(snapshot(&pkg), committed, "rendering the rendered package changes nothing, comments included");
    std::fs::remove_dir_all(pkg.join("rbac")).unwrap();
    kpt_render(&kpt, &pkg);
    assert_eq!(snapshot(&pkg), committed, "rendering from scratch writes the committed rbac/guestbook.yaml");
    kpt_render(&kpt, &pkg);
    assert_eq!(snapshot(&pkg), committed, "and a second render changes nothing");
}

/// `kpt fn render` writes the function's output back over the package: with
/// `bundleObjects: Drop` olm-rbac refuses, and every file of the package is
/// still there, byte for byte.
#[test]
fn kpt_fn_render_with_drop_deletes_nothing() {
    let Some(kpt) = KPT.find() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("kpt");
    copy_dir(&repo("examples/kpt"), &pkg);
    let config = pkg.join("rbac.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replacen("spec:\n", "spec:\n  bundleObjects: Drop\n", 1)).unwrap();
    let before = snapshot(&pkg);
    let out = Command::new(&kpt)
        .args(["fn", "render", "--allow-exec", "--truncate-output=false"])
        .arg(&pkg)
        .env("PATH", path_with_binary())
        .output()
        .unwrap();
    assert!(!out.status.success(), "kpt fn render must fail: {}", text_of(&out));
    assert!(text_of(&out).contains("bundleObjects: Drop would delete the bundle's manifests"), "{}", text_of(&out));
    assert_eq!(snapshot(&pkg), before, "no file of the package changed or went away");
}

fn text_of(out: &Output) -> String {
    format!("{}{}", text(&out.stdout), text(&out.stderr))
}

/// `kpt fn eval --exec olm-rbac -- key=value` sends a ConfigMap.
#[test]
fn kpt_fn_eval_with_key_value_config() {
    let Some(kpt) = KPT.find() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("kpt");
    copy_dir(&repo("examples/kpt"), &pkg);
    let committed = snapshot(&pkg);
    std::fs::remove_dir_all(pkg.join("rbac")).unwrap();
    let eval = |args: &[&str]| {
        Command::new(&kpt)
            .args(["fn", "eval", "--truncate-output=false"])
            .arg(&pkg)
            .args(["--exec", BIN, "--"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = eval(&["mode=Aggregate", "extensionName=guestbook", "outputPath=rbac/guestbook.yaml"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("[info] v1/ConfigMap/function-input: extension \"guestbook\""),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(snapshot(&pkg), committed, "the ConfigMap form writes the same RBAC as the RBACConfig");

    let out = eval(&["mode=Agregate"]);
    assert!(!out.status.success(), "a bad value fails the run");
    let log = text(&out.stderr);
    assert_eq!(log.matches("data.mode: unknown variant `Agregate`").count(), 1, "each result once: {log}");

    // The form kpt users type first: the extension is named after the bundle's package.
    std::fs::remove_dir_all(pkg.join("rbac")).unwrap();
    let out = eval(&["mode=Aggregate"]);
    let log = text(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("data.extensionName: extension name \"guestbook-operator\" taken from the bundle's package (ClusterServiceVersion guestbook-operator.v0.1.0)"),
        "{log}"
    );
    assert_eq!(log.matches("generated 8 ClusterRole(s)").count(), 1, "kpt shows each result once: {log}");
    assert!(pkg.join("rbac/guestbook-operator.yaml").is_file());

    // A run on the package's own earlier output under another extension name
    // fails; kpt cuts the results after a few lines, and the first it shows
    // is the error with its fix.
    std::fs::remove_dir_all(pkg.join("rbac")).unwrap();
    copy_dir(&repo("examples/kpt/rbac"), &pkg.join("rbac"));
    let out = Command::new(&kpt)
        .args(["fn", "eval"])
        .arg(&pkg)
        .args(["--exec", BIN, "--", "mode=Aggregate"])
        .output()
        .unwrap();
    let log = text(&out.stderr);
    assert!(!out.status.success(), "{log}");
    let is_result = |l: &&str| ["[error]", "[warning]", "[info]"].iter().any(|s| l.trim_start().starts_with(s));
    let first = log.lines().find(is_result).unwrap_or_default();
    assert!(first.contains("[error]") && first.contains("extensionName=guestbook"), "{log}");
    std::fs::remove_dir_all(pkg.join("rbac")).unwrap();

    // No configuration at all.
    let out = eval(&[]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("pass an RBACConfig with --fn-config FILE"), "{}", text(&out.stderr));
}

/// `kubectl kustomize --enable-alpha-plugins` on an example, with a stand-in
/// `docker` on PATH that runs the built binary (see [`stand_in_docker`]).
/// None when kubectl is missing and the test is skipped.
fn kustomize(example: &str) -> Option<(String, String, bool)> {
    let kubectl = KUBECTL.find()?;
    let tmp = tempfile::tempdir().unwrap();
    stand_in_docker(tmp.path());
    let out = Command::new(kubectl)
        .args(["kustomize", "--enable-alpha-plugins"])
        .arg(repo(example))
        .env("PATH", path_with(&[tmp.path().to_path_buf()]))
        .output()
        .unwrap();
    Some((text(&out.stdout), text(&out.stderr), out.status.success()))
}

#[test]
fn kustomize_runs_the_container_transformer() {
    let Some((out, err, ok)) = kustomize("examples/kustomize/container") else { return };
    assert!(ok, "{err}");
    let expected: BTreeMap<String, usize> =
        [("ClusterRole".into(), 8), ("ClusterServiceVersion".into(), 1), ("CustomResourceDefinition".into(), 2)].into();
    assert_eq!(kinds(&out), expected, "the bundle passes through and the roles are added");
    assert!(out.contains("name: guestbooks.webapp.example.com-edit\n"));
    assert!(out.contains("rbac.authorization.k8s.io/aggregate-to-edit: \"true\""));
    assert!(err.contains("generated 8 ClusterRole(s)"), "kustomize shows the function's stderr: {err}");
}

#[test]
fn kustomize_olm_v1_example_keeps_only_the_extension_and_its_rbac() {
    let Some((out, err, ok)) = kustomize("examples/kustomize/olm-v1") else { return };
    assert!(ok, "{err}");
    let expected: BTreeMap<String, usize> = [
        ("ClusterCatalog".into(), 1),
        ("ClusterExtension".into(), 1),
        ("ClusterRole".into(), 8),
        ("ClusterRoleBinding".into(), 6),
        ("ValidatingAdmissionPolicy".into(), 2),
        ("ValidatingAdmissionPolicyBinding".into(), 2),
    ]
    .into();
    assert_eq!(kinds(&out), expected, "{out}");
    assert!(
        out.contains("olm-rbac.io/rbac: 'Bind: 8 ClusterRole(s), 6 binding(s) generated for 2 API(s)'")
            || out.contains("olm-rbac.io/rbac: \"Bind: 8 ClusterRole(s), 6 binding(s) generated for 2 API(s)\""),
        "{out}"
    );
    assert!(!err.contains("warning"), "origin annotations tell the bundle apart: {err}");
}

/// The documented pitfall: kubectl's kustomize has no --enable-exec, and skips
/// exec functions without a word.
#[test]
fn kubectl_kustomize_silently_skips_exec_functions() {
    let Some((out, _, ok)) = kustomize("examples/kustomize/exec") else { return };
    assert!(ok);
    assert_eq!(
        kinds(&out).get("ClusterRole"),
        None,
        "if this starts failing, kubectl learned --enable-exec: update the docs"
    );
}

#[derive(serde::Deserialize)]
struct Plugin {
    spec: PluginSpec,
}

#[derive(serde::Deserialize)]
struct PluginSpec {
    generate: PluginCommand,
}

#[derive(serde::Deserialize)]
struct PluginCommand {
    command: Vec<String>,
    #[serde(default)]
    args: Vec<String>,
}

/// Copies a folder with every file mode 0644, as Argo CD checks repos out.
fn copy_as_argocd(from: &Path, to: &Path) {
    copy_dir(from, to);
    #[cfg(unix)]
    for (file, _) in snapshot(to) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(to.join(file), std::fs::Permissions::from_mode(0o644)).unwrap();
    }
}

/// Runs the plugin's `generate` command as Argo CD's cmp server would: in the
/// application's source folder, with the app's environment.
fn argocd_generate(app: &Path, env: &[(&str, &str)]) -> Output {
    let plugin: Plugin =
        serde_saphyr::from_str(&std::fs::read_to_string(repo("examples/argocd/plugin.yaml")).unwrap()).unwrap();
    let (program, args) = plugin.spec.generate.command.split_first().unwrap();
    let mut cmd = Command::new(program);
    cmd.args(args).args(&plugin.spec.generate.args).current_dir(app).env("PATH", path_with_binary());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn argocd_plugin_generate_prints_plain_manifests() {
    // The plugin's command is `bash -c`.
    if BASH.find().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let app = tmp.path().join("app");
    copy_as_argocd(&repo("examples/argocd/app"), &app);
    let env = [
        ("ARGOCD_APP_NAME", "guestbook-rbac"),
        ("ARGOCD_APP_NAMESPACE", "argocd"),
        ("ARGOCD_ENV_RBAC_CONFIG", "rbac.yaml"),
    ];
    let out = argocd_generate(&app, &env);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains("ResourceList"), "Argo CD wants plain manifests");
    let expected: BTreeMap<String, usize> =
        [("ClusterCatalog".into(), 1), ("ClusterExtension".into(), 1), ("ClusterRole".into(), 8)].into();
    assert_eq!(kinds(&stdout), expected, "the bundle is input only: {stdout}");

    // A typo in the config fails the sync with the reason on stderr.
    let config = app.join("rbac.yaml");
    std::fs::write(&config, std::fs::read_to_string(&config).unwrap().replace("mode:", "mdoe:")).unwrap();
    let out = argocd_generate(&app, &env);
    assert!(!out.status.success());
    assert_eq!(text(&out.stdout), "", "no partial manifests");
    assert!(text(&out.stderr).contains("spec.mdoe: unknown field `mdoe`"), "{}", text(&out.stderr));
}

/// The access commands on the Bind example's rendered output, as a reviewer
/// would run them on a pull request.
#[test]
fn can_i_who_can_and_report_on_rendered_output() {
    let tmp = tempfile::tempdir().unwrap();
    let rendered = tmp.path().join("rendered.yaml");
    let out = Command::new(BIN)
        .args([
            "render",
            repo("examples/bind").to_str().unwrap(),
            repo("examples/guestbook/manifests").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    std::fs::write(&rendered, &out.stdout).unwrap();
    let f = rendered.to_str().unwrap();
    let can_i = |args: &[&str]| Command::new(BIN).arg("can-i").args(args).args(["-f", f]).output().unwrap();

    let yes = can_i(&["create", "guestbooks", "-n", "team-a", "--as", "bob", "--as-group", "team-a-devs", "--explain"]);
    assert_eq!(yes.status.code(), Some(0));
    let explained = text(&yes.stdout);
    assert!(explained.starts_with("yes\n  RoleBinding team-a/guestbook-guestbooks.webapp.example.com-edit → guestbooks.webapp.example.com-edit → rule verbs=[create,update,patch,delete]"), "{explained}");

    let no = can_i(&["create", "guestbooks", "-n", "team-b", "--as", "bob", "--as-group", "team-a-devs"]);
    assert_eq!((no.status.code(), text(&no.stdout).as_str()), (Some(1), "no\n"));
    let sa = can_i(&[
        "update",
        "guestbooks.webapp.example.com",
        "-n",
        "team-a-staging",
        "--as",
        "system:serviceaccount:ci:deployer",
    ]);
    assert_eq!(sa.status.code(), Some(0), "the selector picked team-a-staging for the ServiceAccount");
    let unknown = can_i(&["get", "gizmos", "--as", "bob"]);
    assert_eq!(unknown.status.code(), Some(1), "a resource nobody defines is asked about, as kubectl asks");
    assert!(text(&unknown.stderr).contains("<plural>.<group>"));

    let who = Command::new(BIN).args(["who-can", "delete", "guestbookthemes", "-f", f]).output().unwrap();
    let listing = text(&who.stdout);
    assert!(listing.contains("User alice@example.com") && listing.contains("cluster-wide"), "{listing}");
    assert!(!listing.contains("team-a-devs"), "namespaced bindings cannot reach the cluster-scoped themes: {listing}");

    let md = Command::new(BIN).args(["report", "--format", "markdown", "-f", f]).output().unwrap();
    let report = text(&md.stdout);
    assert!(
        report.contains("### extension guestbook\n\n| API | admin | edit | view |\n|---|---|---|---|\n"),
        "{report}"
    );
    assert!(
        report.contains("| `guestbookthemes.webapp.example.com` | User alice@example.com (cluster-wide) |"),
        "{report}"
    );
    let json = Command::new(BIN).args(["report", "--format", "json", "-f", f]).output().unwrap();
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["extensions"][0]["extension"], "guestbook");
}
