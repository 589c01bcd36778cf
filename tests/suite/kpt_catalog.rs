//! The kpt functions catalog's conventions for olm-rbac's entry
//! (`functions/olm-rbac/`), checked as the catalog's own scripts check them
//! (scripts/verify-docs.py; the e2e runner of tests/e2etest): the metadata's
//! fields, the mdtogo markers of the function's README, every example named
//! after the function with its README and `.expected/`, and each example's
//! change: `kpt fn eval` run twice on a git copy, its `git diff` equal to
//! `.expected/diff.patch`.

use std::path::Path;
use std::process::Command;

use crate::common::*;

const FUNCTION: &str = "olm-rbac";

fn metadata() -> serde_json::Value {
    let text = std::fs::read_to_string(repo("functions/olm-rbac/metadata.yaml")).unwrap();
    serde_saphyr::from_str(&text).unwrap()
}

/// The examples named after the function, as the catalog names them.
fn catalog_examples() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo("examples"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with(&format!("{FUNCTION}-")))
        .collect();
    names.sort();
    names
}

#[test]
fn the_metadata_has_every_field_the_catalog_requires() {
    let m = metadata();
    for field in ["image", "description", "tags", "sourceURL", "examplePackageURLs", "emails", "license"] {
        assert!(!m[field].is_null(), "metadata.yaml needs {field}");
    }
    assert!(m["tags"].as_array().is_some_and(|t| !t.is_empty()));
    assert!(m["emails"].as_array().is_some_and(|e| !e.is_empty()), "a maintainer contact");
    assert!(m["sourceURL"].as_str().unwrap().ends_with("/functions/olm-rbac"), "the function's own folder");
    let urls: Vec<&str> = m["examplePackageURLs"].as_array().unwrap().iter().filter_map(|u| u.as_str()).collect();
    for url in &urls {
        let folder = url.rsplit_once("/tree/main/").unwrap().1;
        assert!(repo(folder).is_dir(), "{url} names a folder of this repository");
    }
    for example in catalog_examples() {
        assert!(urls.iter().any(|u| u.ends_with(&format!("/examples/{example}"))), "{example} is listed");
    }
    assert!(!catalog_examples().is_empty());
}

#[test]
fn the_function_readme_carries_the_mdtogo_sections() {
    let readme = std::fs::read_to_string(repo("functions/olm-rbac/README.md")).unwrap();
    let mut at = 0;
    for section in ["Short", "Long", "Examples"] {
        let open = format!("<!--mdtogo:{section}-->");
        let start = readme[at..].find(&open).map(|i| i + at).unwrap_or_else(|| panic!("no {open} after {at}"));
        let end =
            readme[start..].find("<!--mdtogo-->").map(|i| i + start).unwrap_or_else(|| panic!("{open} is not closed"));
        assert!(readme[start + open.len()..end].trim().len() > 10, "{open} holds text");
        at = end;
    }
    assert!(readme.starts_with("# olm-rbac\n"));
}

#[test]
fn each_example_has_the_catalogs_readme_and_expected_files() {
    for example in catalog_examples() {
        let dir = repo(&format!("examples/{example}"));
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
        let title = readme.lines().next().unwrap_or_default().to_lowercase();
        let suffix = example.trim_start_matches(&format!("{FUNCTION}-")).replace('-', " ");
        assert!(title.starts_with(&format!("# {FUNCTION}: ")) && title.contains(&suffix), "{example}: {title}");
        for heading in [
            "### Overview",
            "### Fetch the example package",
            "### Function invocation",
            "### Expected result",
            "### Function Reference",
        ] {
            assert!(readme.lines().any(|l| l == heading), "{example}: README lacks {heading}");
        }
        assert_eq!(std::fs::read_to_string(dir.join(".krmignore")).unwrap().trim(), ".expected");
        for file in ["config.yaml", "diff.patch"] {
            assert!(dir.join(".expected").join(file).is_file(), "{example}: .expected/{file}");
        }
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.email=test@olm-rbac.io", "-c", "user.name=test", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// As the catalog's e2e runner does: the package committed to a fresh git
/// repository, `kpt fn eval` with the case's args run twice (idempotent),
/// and the `git diff` from the first commit equal to `.expected/diff.patch`.
#[test]
fn each_example_changes_its_package_as_its_diff_patch_says() {
    let Some(kpt) = KPT.find() else { return };
    if on_path("git").is_none() {
        return skip("git is not on PATH");
    }
    for example in catalog_examples() {
        let tmp = tempfile::tempdir().unwrap();
        let pkg = tmp.path().join(&example);
        copy_dir(&repo(&format!("examples/{example}")), &pkg);
        let config: serde_json::Value =
            serde_saphyr::from_str(&std::fs::read_to_string(pkg.join(".expected/config.yaml")).unwrap()).unwrap();
        assert_eq!(config["testType"], "eval", "{example}");
        let args: Vec<String> = config["args"]
            .as_object()
            .map(|m| m.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default())).collect())
            .unwrap_or_default();
        git(&pkg, &["init", "-q"]);
        git(&pkg, &["add", "-A"]);
        git(&pkg, &["commit", "-q", "-m", "before"]);
        let first = git(&pkg, &["rev-parse", "HEAD"]).trim().to_string();
        for _ in 0..2 {
            let out = Command::new(&kpt)
                .args(["fn", "eval"])
                .arg(&pkg)
                .args(["--exec", BIN, "--"])
                .args(&args)
                .output()
                .unwrap();
            assert!(out.status.success(), "{example}: {}", text(&out.stderr));
        }
        git(&pkg, &["add", "-A"]);
        git(&pkg, &["commit", "-q", "-m", "after", "--allow-empty"]);
        let diff = git(&pkg, &["diff", &first, "HEAD"]);
        let expected = std::fs::read_to_string(pkg.join(".expected/diff.patch")).unwrap();
        assert_same_text(diff.trim(), expected.trim(), &format!("{example}: git diff against .expected/diff.patch"));
    }
}
