//! Helpers shared by the integration tests: the real bundles in
//! `tests/fixtures/bundles/`, and ResourceLists built from them the way a
//! runner would send them.

use std::path::PathBuf;

/// The olm-rbac binary cargo built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_olm-rbac");

/// A path in the repository.
pub fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A program's output as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
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

/// The documents of a bundle's `manifests/`, in file-name order, each as its
/// exact text (a leading `---` line dropped).
pub fn bundle_docs(bundle: &str) -> Vec<(String, String)> {
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
