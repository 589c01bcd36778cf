//! Bundles judged from what OLM installs: the bundle image of the digest the
//! catalog names (OCI image layouts under `--bundles`, or pulled with
//! `--pull`), a folder only where no such image is given, and the catalog's
//! own copy only where neither is; where the catalog carries manifests and an
//! image or folder is given too, they must agree or the bundle is unjudged.

use crate::common::*;
use serde_json::Value;

const WITH_OBJECTS: &str = "examples/catalog/kube-green-catalog.yaml";
const FOLDERS: &str = "tests/fixtures/catalogs/csv-metadata-only/bundles";

/// `catalog audit -o json` of `catalog` with `more` arguments: the exit code and the rows.
fn audit(catalog: &str, more: &[&str]) -> (Option<i32>, Vec<Value>, String) {
    let mut args = vec!["catalog", "audit", "--catalog", catalog, "-o", "json"];
    args.extend(more);
    let out = run_bin(&args, "");
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code(), rows.as_array().cloned().unwrap_or_default(), text(&out.stderr))
}

/// Each row's version, verdict and source.
fn summary(rows: &[Value]) -> Vec<(String, String, String)> {
    let field = |r: &Value, k: &str| r[k].as_str().unwrap_or("-").to_string();
    let mut rows: Vec<_> =
        rows.iter().map(|r| (field(r, "version"), field(r, "verdict"), field(r, "source"))).collect();
    rows.sort();
    rows
}

/// Round-5 finding 07: the admin's folder for a bundle the catalog also
/// carries was ignored in favour of the catalog's copy. Now a folder that
/// agrees is what is judged (`source: folder`), and one that differs (here a
/// ClusterRole added, as an edited bundle would) leaves the bundle unjudged.
#[test]
fn a_folder_beside_the_catalogs_manifests_must_agree_with_them() {
    let catalog = repo(WITH_OBJECTS).display().to_string();
    let (code, alone, _) = audit(&catalog, &[]);
    assert_eq!(code, Some(0));
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo(FOLDERS), dir.path());
    let folders = dir.path().display().to_string();
    let (code, beside, _) = audit(&catalog, &["--bundles", &folders]);
    assert_eq!(code, Some(0));
    let (a, b) = (summary(&alone), summary(&beside));
    assert_eq!(a.len(), 10);
    for ((version, verdict, source), (version_b, verdict_b, source_b)) in a.iter().zip(&b) {
        assert_eq!(source, "catalog");
        assert_eq!((version_b, verdict_b, source_b.as_str()), (version, verdict, "folder"), "{b:?}");
    }
    std::fs::write(
        dir.path().join("kube-green/0.4.0/manifests/extra.yaml"),
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: extra\nrules:\n- apiGroups: ['*']\n  resources: ['*']\n  verbs: ['*']\n",
    )
    .unwrap();
    let (code, edited, _) = audit(&catalog, &["--bundles", &folders]);
    assert_eq!(code, Some(1));
    let row = edited.iter().find(|r| r["version"] == "0.4.0").unwrap();
    assert_eq!((row["verdict"].as_str(), row["source"].as_str()), (Some("unjudged"), Some("folder")));
    let why = row["errors"][0].as_str().unwrap_or_default();
    assert!(
        why.contains("differ (only in the folder under --bundles: ClusterRole extra; only in the catalog: none)"),
        "{why}"
    );
}
