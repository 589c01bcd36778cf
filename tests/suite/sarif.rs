//! Results a CI reads: `render --sarif FILE` and `diff -o sarif` write SARIF
//! 2.1.0 logs, validated here against OASIS' schema
//! (`tests/fixtures/sarif/`), with each result at the file and line it is about.

use serde_json::Value;

use crate::common::*;
use crate::json_schema::Validator;

/// OASIS' SARIF 2.1.0 schema, without its `pattern`s: this validator does not
/// implement regular expressions, and the 20 patterns constrain fields
/// olm-rbac never writes (GUIDs, language tags, MIME types, dotted-quad file
/// versions). Every other keyword is checked.
fn sarif_validator() -> Validator {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if map.get("pattern").is_some_and(Value::is_string) {
                    map.remove("pattern");
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let text = std::fs::read_to_string(repo("tests/fixtures/sarif/sarif-schema-2.1.0.json")).unwrap();
    let mut schema: Value = serde_json::from_str(&text).unwrap();
    strip(&mut schema);
    Validator::new(&schema).unwrap()
}

fn assert_valid(log: &Value) {
    let errors: Vec<_> = sarif_validator().iter_errors(log).collect();
    assert!(errors.is_empty(), "{errors:?}\n{log:#}");
}

fn results(log: &Value) -> Vec<Value> {
    log["runs"][0]["results"].as_array().cloned().unwrap_or_default()
}

/// A refused render still writes its log: each error at its file and the
/// line its document starts on, the gate's verdicts under their own rule.
#[test]
fn render_writes_its_errors_and_the_gates_verdicts_as_sarif() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = bundles_dir().join("argocd-operator-0.19.0");
    let config = dir.path().join("rbac.yaml");
    let spec = "  operator:\n    permissions: Unmanaged\n    installNamespace: ops\n    policy:\n      deny:\n      - {apiGroups: [''], resources: [secrets], verbs: [get], scope: Cluster}\n";
    std::fs::write(&config, config_text(spec)).unwrap();
    let extension = dir.path().join("ce.yaml");
    std::fs::write(&extension, "# the admin's\napiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: argocd\nspec:\n  namespace: ops\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: argocd-operator\n").unwrap();
    let log_path = dir.path().join("out.sarif");
    let out = run_bin(
        &[
            "render",
            "-c",
            config.to_str().unwrap(),
            bundle.to_str().unwrap(),
            extension.to_str().unwrap(),
            "--sarif",
            log_path.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "no partial output");
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&log_path).unwrap()).unwrap();
    assert_valid(&log);
    let results = results(&log);
    // Each result under its code's rule, which the log's rule table lists.
    let rules: Vec<&str> = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    for r in &results {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(Some(r["ruleId"].as_str().unwrap()), rules.get(index).copied(), "{r:#}");
    }
    let under = |rule: &str| results.iter().filter(|r| r["ruleId"] == rule).collect::<Vec<_>>();
    let denied = under("policy-denied");
    assert!(!denied.is_empty(), "{results:#?}");
    assert!(denied.iter().all(|r| r["level"] == "error"), "{results:#?}");
    assert!(
        denied
            .iter()
            .all(|r| r["message"]["text"].as_str().unwrap().contains("spec.operator.policy.deny\\[0\\] forbids")),
        "{results:#?}"
    );
    let dangerous: Vec<_> =
        results.iter().filter(|r| r["ruleId"].as_str().is_some_and(|id| id.starts_with("danger-"))).collect();
    let kinds: std::collections::BTreeSet<&str> = dangerous.iter().filter_map(|r| r["ruleId"].as_str()).collect();
    assert!(kinds.len() > 1, "each kind of danger under its own rule: {kinds:?}");
    assert!(
        !dangerous.is_empty() && dangerous.iter().all(|r| r["level"] == "warning"),
        "the catalogue's warnings, without a ceiling"
    );
    let pin = results
        .iter()
        .find(|r| {
            r["message"]["text"].as_str().unwrap().starts_with("ClusterExtension argocd: spec.source.catalog.version")
        })
        .unwrap();
    assert_eq!(pin["ruleId"], "pin-version");
    let location = &pin["locations"][0]["physicalLocation"];
    let uri = location["artifactLocation"]["uri"].as_str().unwrap();
    assert!(uri.ends_with("/ce.yaml") && !uri.contains(' '), "{location:#}");
    assert_eq!(
        location["region"]["startLine"], 1,
        "the document starts on the file's first line, its comment included"
    );
    // Infos are not results: code scanning shows what to act on.
    assert!(results.iter().all(|r| r["level"] != "note"));
    assert_eq!(text(&out.stderr).matches("error: ").count(), results.iter().filter(|r| r["level"] == "error").count());
}

fn config_text(spec: &str) -> String {
    config("argocd", spec)
}

/// `diff -o sarif`: each gain a result, an error when it is dangerous.
#[test]
fn diff_writes_each_gain_as_a_sarif_result() {
    let dir = tempfile::tempdir().unwrap();
    let spec = "  operator:\n    permissions: Cluster\n    installNamespace: ops\n";
    let mut paths = Vec::new();
    for bundle in ["argocd-operator-0.6.0", "argocd-operator-0.19.0"] {
        let config = dir.path().join(format!("{bundle}.rbac.yaml"));
        std::fs::write(&config, config_text(spec)).unwrap();
        let rendered =
            run_bin(&["render", "-c", config.to_str().unwrap(), bundles_dir().join(bundle).to_str().unwrap()], "");
        assert_eq!(rendered.status.code(), Some(0), "{}", text(&rendered.stderr));
        let path = dir.path().join(format!("{bundle}.yaml"));
        std::fs::write(&path, &rendered.stdout).unwrap();
        paths.push(path);
    }
    let out = run_bin(&["diff", paths[0].to_str().unwrap(), paths[1].to_str().unwrap(), "-o", "sarif"], "");
    assert_eq!(out.status.code(), Some(1), "gains fail the diff as before: {}", text(&out.stderr));
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_valid(&log);
    let results = results(&log);
    assert!(!results.is_empty());
    assert!(results.iter().all(|r| r["ruleId"] == "access-gained"));
    assert!(results
        .iter()
        .any(|r| r["level"] == "error" && r["message"]["text"].as_str().unwrap().contains("(dangerous: ")));
    assert!(results.iter().all(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].is_string()));
    let report = run_bin(&["report", "-o", "sarif", "-f", paths[1].to_str().unwrap()], "");
    assert_eq!(report.status.code(), Some(2), "report writes no SARIF");
}

/// Found in review: an input that cannot be read is in the log too, so CI
/// never uploads an older one; and a name cannot unescape a bracket.
#[test]
fn an_unreadable_input_is_logged_and_brackets_stay_text() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("bundle")).unwrap();
    std::fs::write(dir.path().join("bundle/bad.yaml"), [0xff, 0xfe, b'\n']).unwrap();
    std::fs::write(dir.path().join("rbac.yaml"), config("x", "  mode: Aggregate\n")).unwrap();
    let log_path = dir.path().join("out.sarif");
    std::fs::write(&log_path, "an older log").unwrap();
    let out = std::process::Command::new(BIN)
        .args(["render", "-c", "rbac.yaml", "bundle", "--sarif", log_path.to_str().unwrap()])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "unreadable input: {}", text(&out.stderr));
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&log_path).unwrap()).unwrap();
    assert_valid(&log);
    let results = results(&log);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["level"], "error");
}

/// Denies creating ClusterRoles: kube-green 0.6.0 ships them, its neighbours do not.
const KUBE_GREEN_CONFIG: &str = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    installNamespace: kube-green\n    policy:\n      deny:\n      - {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles, clusterrolebindings], verbs: [create, bind, escalate], scope: Cluster}\n";
const KUBE_GREEN: &str = "examples/catalog/kube-green-catalog.yaml";
const TRIDENT: &str = "tests/fixtures/catalogs/with-bundle-objects/trident-operator.yaml";

/// `catalog filter --report sarif` on `catalog` (with `bundles`), judged by
/// kube-green's policy: the log, valid SARIF, whether or not anything passes.
fn filter_sarif(dir: &std::path::Path, catalog: &std::path::Path, bundles: Option<&std::path::Path>) -> Value {
    let config = dir.join("rbac.yaml");
    std::fs::write(&config, KUBE_GREEN_CONFIG).unwrap();
    let (catalog, config, out) = (catalog.display().to_string(), config.display().to_string(), dir.join("judged"));
    let mut args = vec!["catalog", "filter", "--catalog", &catalog, "-c", &config];
    let out = out.display().to_string();
    args.extend(["-o", &out, "--report", "sarif"]);
    let bundles = bundles.map(|b| b.display().to_string());
    if let Some(b) = &bundles {
        args.extend(["--bundles", b]);
    }
    let run = run_bin(&args, "");
    // 1 when nothing passes, and nothing is written: the report says why all the same.
    assert!(matches!(run.status.code(), Some(0 | 1)), "{}", text(&run.stderr));
    let log: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_valid(&log);
    log
}

/// A result's file and line.
fn place(result: &Value) -> (String, u64) {
    let location = &result["locations"][0]["physicalLocation"];
    let uri = location["artifactLocation"]["uri"].as_str().unwrap_or_else(|| panic!("no file: {result:#}"));
    let line = location["region"]["startLine"].as_u64().unwrap_or_else(|| panic!("no line: {result:#}"));
    (uri.to_string(), line)
}

/// The line the catalog document of `schema` named `name` starts on in
/// `text`, found by reading the text: a YAML document's the line after its
/// `---` (or the file's first), a JSON value's the line of its `{`.
fn document_line(text: &str, schema: &str, name: &str) -> u64 {
    let lines: Vec<&str> = text.lines().collect();
    let json = text.trim_start().starts_with('{');
    let starts = |l: &str| if json { l.starts_with('{') } else { l.starts_with("---") };
    let (named, typed) = match json {
        true => (format!("\"name\": \"{name}\""), format!("\"schema\": \"{schema}\"")),
        false => (format!("name: {name}"), format!("schema: {schema}")),
    };
    // A document's own keys: at the left margin in YAML, indented once in `opm render`'s JSON.
    let key = |l: &str, want: &str| match json {
        true => l.strip_prefix("  ").is_some_and(|k| k.trim_end_matches(',') == want),
        false => l == want,
    };
    for (i, _) in lines.iter().enumerate().filter(|(_, l)| key(l, &named)) {
        let start = (0..=i).rev().find(|&j| starts(lines[j])).map_or(0, |j| if json { j } else { j + 1 });
        let end = (i + 1..lines.len()).find(|&j| starts(lines[j])).unwrap_or(lines.len());
        if lines[start..end].iter().any(|l| key(l, &typed)) {
            return start as u64 + 1;
        }
    }
    panic!("no {schema} {name:?} in the text")
}

/// Where each result of a filter's log should point, by its message: a
/// bundle left out or rewired at its `olm.bundle` document, a package left
/// out at its `olm.package` document; each checked against the file's text.
/// The results, for more checks.
fn assert_at_their_documents(log: &Value) -> Vec<Value> {
    let results = results(log);
    assert!(!results.is_empty());
    for r in &results {
        let message = r["message"]["text"].as_str().unwrap();
        let (schema, name) = match r["ruleId"].as_str().unwrap() {
            "catalog-package-left-out" => {
                ("olm.package", message.strip_prefix("package ").unwrap().split(' ').next().unwrap())
            }
            "catalog-edge-rewired" => ("olm.bundle", message.split(": ").nth(1).unwrap().split(' ').next().unwrap()),
            _ => ("olm.bundle", message.split(' ').next().unwrap()),
        };
        let (uri, line) = place(r);
        let text = std::fs::read_to_string(&uri).unwrap();
        assert_eq!(line, document_line(&text, schema, name), "{schema} {name} in {uri}: {r:#}");
        assert!(line > 1, "none of these is a file's first document: {r:#}");
    }
    results
}

/// Issue 49: a filter's SARIF results point at the line the bundle's
/// document starts on, in a YAML catalog and in the same catalog as `opm
/// render` writes it (a stream of JSON objects, each over many lines).
#[test]
fn catalog_sarif_results_are_at_the_line_of_the_bundles_document() {
    let dir = tempfile::tempdir().unwrap();
    let log = filter_sarif(dir.path(), &repo(KUBE_GREEN), None);
    let rules: Vec<Value> = assert_at_their_documents(&log).iter().map(|r| r["ruleId"].clone()).collect();
    assert_eq!(rules, ["catalog-bundle-fails", "catalog-edge-rewired"]);
    let json = tempfile::tempdir().unwrap();
    let yaml = std::fs::read_to_string(repo(KUBE_GREEN)).unwrap();
    let docs = yaml.split("\n---").map(|d| d.trim_start_matches("---")).filter(|d| !d.trim().is_empty());
    let docs: Vec<String> =
        docs.map(|d| serde_json::to_string_pretty(&serde_saphyr::from_str::<Value>(d).unwrap()).unwrap()).collect();
    let catalog = json.path().join("catalog.json");
    std::fs::write(&catalog, docs.join("\n") + "\n").unwrap();
    let from_json = filter_sarif(json.path(), &catalog, None);
    let results = assert_at_their_documents(&from_json);
    assert_eq!(results.iter().map(|r| r["ruleId"].clone()).collect::<Vec<_>>(), rules);
    assert_ne!(place(&results[0]).1, place(&assert_at_their_documents(&log)[0]).1, "the JSON's lines are its own");
}

/// A catalog folder of several files: each result names the file its
/// document is in, and a package left out whole points at its
/// `olm.package` document (kube-green's default channel made to hold only a
/// bundle that fails, while its alpha channel keeps others).
#[test]
fn catalog_sarif_results_in_a_folder_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    std::fs::create_dir(&catalog).unwrap();
    let kube_green =
        std::fs::read_to_string(repo(KUBE_GREEN)).unwrap().replace("defaultChannel: alpha\n", "defaultChannel: beta\n")
            + "---\nentries:\n- name: kube-green.v0.6.0\nname: beta\npackage: kube-green\nschema: olm.channel\n";
    std::fs::write(catalog.join("kube-green.yaml"), kube_green).unwrap();
    std::fs::copy(repo(TRIDENT), catalog.join("trident.yaml")).unwrap();
    let log = filter_sarif(dir.path(), &catalog, None);
    let results = assert_at_their_documents(&log);
    let files: std::collections::BTreeSet<String> =
        results.iter().map(|r| place(r).0.rsplit('/').next().unwrap().to_string()).collect();
    assert_eq!(files, ["kube-green.yaml", "trident.yaml"].map(String::from).into(), "{results:#?}");
    assert!(results.iter().any(|r| r["ruleId"] == "catalog-package-left-out"), "{results:#?}");
}

/// A bundle judged from its folder under `--bundles`: its result points at
/// the manifest its first reason is about, at the line that object's
/// document starts on (the bundle's manifests here one multi-document file);
/// the bundles with nothing to judge, at their catalog documents.
#[test]
fn a_folder_bundles_sarif_result_is_at_its_manifests_line() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = repo("tests/fixtures/catalogs/csv-metadata-only/bundles/kube-green/0.6.0");
    let bundle = dir.path().join("bundles/kube-green/0.6.0");
    copy_dir(&fixture.join("metadata"), &bundle.join("metadata"));
    let mut files: Vec<_> = std::fs::read_dir(fixture.join("manifests")).unwrap().map(|e| e.unwrap().path()).collect();
    // Last to first: the ClusterRoles the policy refuses come after the others.
    files.sort_by(|a, b| b.cmp(a));
    let docs: Vec<String> = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
    assert!(docs.iter().all(|d| !d.contains("\n---") && !d.starts_with("---") && d.ends_with('\n')));
    std::fs::create_dir_all(bundle.join("manifests")).unwrap();
    let all = bundle.join("manifests/all.yaml");
    std::fs::write(&all, docs.join("---\n")).unwrap();
    let catalog = repo("tests/fixtures/catalogs/csv-metadata-only/catalog");
    let log = filter_sarif(dir.path(), &catalog, Some(&dir.path().join("bundles")));
    let results = results(&log);
    let (from_folder, others): (Vec<&Value>, Vec<&Value>) =
        results.iter().partition(|r| r["message"]["text"].as_str().unwrap().starts_with("kube-green.v0.6.0 "));
    let [failed] = from_folder.as_slice() else { panic!("{results:#?}") };
    assert_eq!(failed["ruleId"], "catalog-bundle-fails");
    // The first reason names its document: `[kube-green.v0.6.0/manifests/all.yaml#N]`.
    let message = failed["message"]["text"].as_str().unwrap();
    let (_, after) = message.split_once("manifests/all.yaml#").unwrap();
    let n: usize = after.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
    let text = std::fs::read_to_string(&all).unwrap();
    let expected =
        1 + text.lines().enumerate().filter(|(_, l)| *l == "---").nth(n.wrapping_sub(1)).map_or(0, |(i, _)| i + 1);
    let (uri, line) = place(failed);
    assert_eq!(std::path::Path::new(&uri), all, "{failed:#}");
    assert_eq!(line as usize, expected, "document #{n} of {uri}");
    assert!(n > 0 && line > 1, "not the file's first document, so the line is not 1 by luck");
    for r in &others {
        let (uri, line) = place(r);
        assert!(uri.ends_with("catalog/kube-green.yaml"), "{r:#}");
        let name = r["message"]["text"].as_str().unwrap().split(' ').next().unwrap();
        assert_eq!(line, document_line(&std::fs::read_to_string(&uri).unwrap(), "olm.bundle", name), "{r:#}");
    }
    assert!(!others.is_empty());
}
