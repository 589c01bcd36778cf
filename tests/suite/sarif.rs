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
