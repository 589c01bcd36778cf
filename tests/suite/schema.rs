//! The JSON Schema of RBACConfig (`olm-rbac schema`): current, and in
//! agreement with the examples and with the function's own reader. Configs
//! are checked with the validator in `json_schema.rs`, which refuses the
//! schema if it uses a keyword that validator does not implement.

use std::path::{Path, PathBuf};

use crate::common::{committed_schema, config, repo};
use crate::json_schema::Validator;
use serde_json::Value;

fn validator() -> Validator {
    let schema: Value = serde_json::from_str(&olm_rbac::config::json_schema()).unwrap();
    Validator::new(&schema).unwrap()
}

fn yaml(text: &str) -> Value {
    serde_saphyr::from_str(text).unwrap()
}

/// Every RBACConfig document under examples/.
fn example_configs() -> Vec<(PathBuf, Value)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                // Helm templates are YAML only once Helm has rendered them.
                if p.file_name().is_some_and(|n| n != "templates") {
                    walk(&p, out);
                }
            } else if p.extension().is_some_and(|x| x == "yaml") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&repo("examples"), &mut files);
    files.sort();
    let mut configs = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for doc in olm_rbac::yaml::split_documents(&text).unwrap() {
            if doc.header.kind.as_deref() == Some("RBACConfig") {
                configs.push((f.clone(), yaml(&doc.text)));
            }
        }
    }
    configs
}

#[test]
fn the_committed_schema_is_current() {
    committed_schema("schema/rbacconfig.schema.json", &olm_rbac::config::json_schema(), "");
}

#[test]
fn every_example_config_validates() {
    let validator = validator();
    let configs = example_configs();
    assert!(configs.len() >= 8, "found only {} example configs", configs.len());
    for (file, config) in configs {
        let errors: Vec<String> =
            validator.iter_errors(&config).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", file.display());
    }
}

#[test]
fn typos_and_bad_values_do_not_validate() {
    let validator = validator();
    for (spec, path) in [
        ("  modee: Aggregate\n", "/spec"),
        ("  mode: Agregate\n", "/spec/mode"),
        (
            "  mode: Bind\n  bindings:\n  - role: edit\n    subjects: [{kind: Group, name: g}]\n    namespace: [a]\n",
            "/spec/bindings/0",
        ),
        ("  roles: [admin, editor]\n", "/spec/roles/1"),
        ("  apis:\n    inclde: [\"*\"]\n", "/spec/apis"),
    ] {
        let config = yaml(&config("x", spec));
        let errors: Vec<String> = validator.iter_errors(&config).map(|e| e.instance_path().to_string()).collect();
        assert!(errors.iter().any(|p| p == path), "{spec:?}: expected an error at {path}, got {errors:?}");
        // The function refuses the same config.
        let out =
            olm_rbac::run::render(&[], &[olm_rbac::run::Source { name: "rbac.yaml".into(), text: config_text(spec) }]);
        assert_eq!(out.code, 1, "{spec:?}");
    }
    let wrong_kind = yaml("apiVersion: olm-rbac.io/v1alpha1\nkind: RbacConfig\nmetadata: {name: x}\n");
    assert!(!validator.is_valid(&wrong_kind));
}

fn config_text(spec: &str) -> String {
    config("x", spec)
}
