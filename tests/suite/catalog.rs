//! `catalog judge` on real file-based catalogs (`tests/fixtures/catalogs/`):
//! every bundle a ClusterExtension admits is judged, a bundle the policy
//! refuses fails the whole, an admitted bundle without manifests cannot pass,
//! and both catalog forms (manifests in the catalog, or in bundle folders)
//! give the same verdicts.

use crate::common::*;
use crate::json_schema::Validator;
use serde_json::json;

const WITH_OBJECTS: &str = "examples/catalog/kube-green-catalog.yaml";
const METADATA_ONLY: &str = "tests/fixtures/catalogs/csv-metadata-only/catalog";
const BUNDLES: &str = "tests/fixtures/catalogs/csv-metadata-only/bundles";

/// Denies creating ClusterRoles: kube-green 0.6.0 ships them, its neighbours do not.
const CONFIG: &str = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    policy:\n      deny:\n      - {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles, clusterrolebindings], verbs: [create, bind, escalate], scope: Cluster}\n";

fn extension(version: &str) -> String {
    format!("apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: kube-green\nspec:\n  namespace: kube-green\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: kube-green\n{version}")
}

fn judge(catalog: &str, bundles: Option<&str>, version: &str, output: &str) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let (config, ext) = (dir.path().join("rbac.yaml"), dir.path().join("ext.yaml"));
    std::fs::write(&config, CONFIG).unwrap();
    std::fs::write(&ext, extension(version)).unwrap();
    let catalog = repo(catalog);
    let mut args: Vec<String> =
        vec!["catalog".into(), "judge".into(), "--catalog".into(), catalog.display().to_string()];
    if let Some(b) = bundles {
        args.extend(["--bundles".into(), repo(b).display().to_string()]);
    }
    args.extend([
        "-c".into(),
        config.display().to_string(),
        "-f".into(),
        ext.display().to_string(),
        "-o".into(),
        output.into(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_bin(&args, "")
}

/// `catalog judge` of `catalog` with `config` and the ClusterExtension `ext`,
/// as text: its exit code and stdout.
fn judged_text(catalog: &std::path::Path, config: &std::path::Path, ext: &std::path::Path) -> (Option<i32>, String) {
    let [catalog, config, ext] = [catalog, config, ext].map(|p| p.display().to_string());
    let out = run_bin(&["catalog", "judge", "--catalog", &catalog, "-c", &config, "-f", &ext], "");
    (out.status.code(), text(&out.stdout) + &text(&out.stderr))
}

fn verdicts(out: &std::process::Output) -> Vec<(String, String)> {
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| (r["version"].as_str().unwrap().to_string(), r["verdict"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn a_range_that_admits_a_refused_bundle_fails_and_the_pinned_version_passes() {
    let range = judge(WITH_OBJECTS, None, "      version: \">=0.5.0\"\n", "json");
    assert_eq!(range.status.code(), Some(1), "{}", text(&range.stderr));
    let want: Vec<(String, String)> = [
        ("0.5.0", "pass"),
        ("0.5.1", "pass"),
        ("0.5.2", "pass"),
        ("0.6.0", "fail"),
        ("0.7.0", "pass"),
        ("0.7.1", "pass"),
    ]
    .iter()
    .map(|(v, w)| (v.to_string(), w.to_string()))
    .collect();
    assert_eq!(verdicts(&range), want);
    let pinned = judge(WITH_OBJECTS, None, "      version: \"0.5.2\"\n", "json");
    assert_eq!(pinned.status.code(), Some(0), "{}", text(&pinned.stderr));
    assert_eq!(verdicts(&pinned), [("0.5.2".to_string(), "pass".to_string())]);
    let unpinned = judge(WITH_OBJECTS, None, "", "text");
    assert_eq!(unpinned.status.code(), Some(1));
    assert_eq!(
        text(&unpinned.stdout).lines().filter(|l| l.starts_with("kube-green  kube-green.v")).count(),
        10,
        "no version: every bundle"
    );
}

#[test]
fn an_admitted_bundle_without_manifests_cannot_pass() {
    let out = judge(METADATA_ONLY, None, "      version: \"0.5.2\"\n", "text");
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("kube-green.v0.5.2") && stdout.contains("unjudged"), "{stdout}");
    assert!(stdout.contains("the catalog carries no manifests for kube-green.v0.5.2"), "{stdout}");
}

#[test]
fn bundle_folders_judge_as_the_catalogs_own_manifests_do() {
    let version = "      version: \">=0.3.0\"\n";
    let from_catalog = verdicts(&judge(WITH_OBJECTS, None, version, "json"));
    let from_folders = verdicts(&judge(METADATA_ONLY, Some(BUNDLES), version, "json"));
    assert_eq!(from_catalog.len(), 10);
    assert_eq!(from_catalog, from_folders);
}

#[test]
fn the_json_report_has_the_committed_shape() {
    let committed = committed_schema("docs/catalog.schema.json", &olm_rbac::catalog::json_schema(), "catalog");
    let schema: serde_json::Value = serde_json::from_str(&committed).unwrap();
    let out = judge(WITH_OBJECTS, None, "      version: \">=0.5.0\"\n", "json");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<_> = Validator::new(&schema).unwrap().iter_errors(&report).collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn unreadable_input_is_exit_2() {
    let out = judge("tests/fixtures/semver/SOURCES.md", None, "", "text");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let bad = judge(WITH_OBJECTS, None, "      version: \"1.2.3.4\"\n", "text");
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("spec.source.catalog.version"), "{}", text(&bad.stderr));
}

/// The catalog's text with `edit` applied, written to a scratch file.
fn edited_catalog(dir: &std::path::Path, edit: impl Fn(String) -> String) -> String {
    let text = std::fs::read_to_string(repo(WITH_OBJECTS)).unwrap();
    let path = dir.join("catalog.yaml");
    std::fs::write(&path, edit(text)).unwrap();
    path.display().to_string()
}

fn judge_at(catalog: &str, bundles: Option<&std::path::Path>, version: &str) -> std::process::Output {
    judge_with(catalog, bundles, version, &[])
}

/// [`judge_at`], with more arguments.
fn judge_with(catalog: &str, bundles: Option<&std::path::Path>, version: &str, more: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let (config, ext) = (dir.path().join("rbac.yaml"), dir.path().join("ext.yaml"));
    std::fs::write(&config, CONFIG).unwrap();
    std::fs::write(&ext, extension(version)).unwrap();
    let mut args = vec!["catalog", "judge", "--catalog", catalog];
    let bundles = bundles.map(|b| b.display().to_string());
    if let Some(b) = &bundles {
        args.extend(["--bundles", b.as_str()]);
    }
    let (config, ext) = (config.display().to_string(), ext.display().to_string());
    args.extend(["-c", config.as_str(), "-f", ext.as_str(), "-o", "json"]);
    args.extend(more);
    run_bin(&args, "")
}

/// A catalog's bundle names become folder names: one that climbs out, or
/// two bundles of one name, would have something else judged in a bundle's
/// place. Both are refused before anything is judged.
#[test]
fn a_catalog_cannot_name_another_folder_or_list_a_bundle_twice() {
    let dir = tempfile::tempdir().unwrap();
    let climbing =
        edited_catalog(dir.path(), |t| t.replace("name: kube-green.v0.5.2\n", "name: ../kube-green.v0.5.2\n"));
    let out = judge_at(&climbing, Some(&repo(BUNDLES)), "      version: \"0.5.2\"\n");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(
            "name \"../kube-green.v0.5.2\": operator-controller files each document at <package>/<schema>/<name>.json"
        ),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let twice = edited_catalog(dir.path(), |t| t.replace("name: kube-green.v0.5.1\n", "name: kube-green.v0.5.2\n"));
    let out = judge_at(&twice, None, "      version: \"0.5.2\"\n");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("a second olm.bundle \"kube-green.v0.5.2\" of package \"kube-green\""),
        "{}",
        text(&out.stderr)
    );
}

/// What a bundle carries in the catalog is the bundle's, whatever it is: an
/// RBACConfig of its own (to loosen the policy) fails the bundle.
#[test]
fn a_config_a_catalog_bundle_carries_fails_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = r#"{"apiVersion":"olm-rbac.io/v1alpha1","kind":"RBACConfig","metadata":{"name":"kube-green"},"spec":{"mode":"Unmanaged"}}"#;
    let data = base64(config.as_bytes());
    let catalog = edited_catalog(dir.path(), |t| {
        t.replacen(
            "name: kube-green.v0.5.2\npackage: kube-green\nproperties:\n",
            &format!("name: kube-green.v0.5.2\npackage: kube-green\nproperties:\n- type: olm.bundle.object\n  value:\n    data: {data}\n"),
            1,
        )
    });
    let out = judge_at(&catalog, None, "      version: \"0.5.2\"\n");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows[0]["verdict"], "fail");
    assert!(rows[0]["errors"][0].as_str().unwrap().contains("RBACConfig kube-green is among the inputs"), "{rows}");
}

#[test]
fn manifests_that_are_not_base64_are_unreadable_input() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = edited_catalog(dir.path(), |t| {
        t.replacen("name: kube-green.v0.5.2\npackage: kube-green\nproperties:\n", "name: kube-green.v0.5.2\npackage: kube-green\nproperties:\n- type: olm.bundle.object\n  value:\n    data: '%%%'\n", 1)
    });
    let out = judge_at(&catalog, None, "      version: \"0.5.2\"\n");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("bundle kube-green.v0.5.2: properties: olm.bundle.object #0: data is not base64")
    );
}

/// A bundle folder under `--bundles` reached through a symbolic link could be
/// any folder: it is refused, not judged.
#[cfg(unix)]
#[test]
fn a_linked_bundle_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bundles = dir.path().join("bundles/kube-green");
    std::fs::create_dir_all(&bundles).unwrap();
    std::os::unix::fs::symlink(repo(BUNDLES).join("kube-green/0.5.1"), bundles.join("0.5.2")).unwrap();
    let out = judge_at(
        &repo(METADATA_ONLY).display().to_string(),
        Some(&dir.path().join("bundles")),
        "      version: \"0.5.2\"\n",
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("a symbolic link"), "{}", text(&out.stderr));
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `catalog audit` judges every package of a catalog folder, worst first;
/// with a config, its policy's verdict too.
#[test]
fn an_audit_ranks_every_bundle_of_every_package() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("catalog");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(repo(WITH_OBJECTS), folder.join("kube-green.yaml")).unwrap();
    std::fs::copy(
        repo("tests/fixtures/catalogs/with-bundle-objects/trident-operator.yaml"),
        folder.join("trident.yaml"),
    )
    .unwrap();
    let catalog = folder.display().to_string();
    let out = run_bin(&["catalog", "audit", "--catalog", &catalog, "-o", "json"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 22, "10 kube-green and 12 trident bundles");
    let rank = |r: &serde_json::Value| {
        let level = match r["worst"].as_str() {
            Some("critical") => 3,
            Some("high") => 2,
            Some("medium") => 1,
            _ => 0,
        };
        (level, r["dangerous"].as_array().unwrap().len())
    };
    assert!(rows.windows(2).all(|w| rank(&w[0]) >= rank(&w[1])), "worst first");
    assert!(rows.iter().all(|r| r["verdict"] == "pass"), "no policy: nothing fails");
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, CONFIG.replace("name: kube-green", "name: audit")).unwrap();
    let config = config.display().to_string();
    let judged = run_bin(&["catalog", "audit", "--catalog", &catalog, "-c", &config, "-o", "json"], "");
    assert_eq!(judged.status.code(), Some(1), "{}", text(&judged.stderr));
    let rows: serde_json::Value = serde_json::from_slice(&judged.stdout).unwrap();
    let failed: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["verdict"] == "fail")
        .map(|r| r["bundle"].as_str().unwrap())
        .collect();
    assert!(failed.contains(&"kube-green.v0.6.0"), "{failed:?}");
}

/// Gains are measured between a package's versions in version order, not in
/// the order the catalog lists them.
#[test]
fn gains_follow_version_order() {
    let out = run_bin(
        &[
            "catalog",
            "audit",
            "--catalog",
            &repo("tests/fixtures/catalogs/with-bundle-objects/trident-operator.yaml").display().to_string(),
            "-o",
            "json",
        ],
        "",
    );
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let lowest = rows.as_array().unwrap().iter().find(|r| r["version"] == "24.2.0").unwrap();
    assert!(lowest["gained"].as_array().unwrap().is_empty(), "the lowest version has nothing to gain over");
    let gained: usize = rows.as_array().unwrap().iter().map(|r| r["gained"].as_array().unwrap().len()).sum();
    assert!(gained > 0, "trident's upgrades grant more");
}

/// OLM reads a catalog's keys as Go's JSON decoder does, whatever their case
/// (`ſ` folding to `s`): a bundle written with such keys would be one OLM
/// installs and olm-rbac never sees. Every file of a catalog folder is read,
/// whatever its name, as OLM reads them.
#[test]
fn keys_and_files_olm_reads_otherwise_are_refused_or_read() {
    let dir = tempfile::tempdir().unwrap();
    for (edit, said) in [
        ("package: kube-green\nproperties:", "key \"Package\" is read by OLM as \"package\""),
        ("schema: olm.bundle", "key \"Schema\" is read by OLM as \"schema\""),
    ] {
        let catalog = edited_catalog(dir.path(), |t| {
            let capital = edit[..1].to_uppercase() + &edit[1..];
            t.replacen(edit, &capital, 1)
        });
        let out = judge_at(&catalog, None, "      version: \">=0.5.0\"\n");
        assert_eq!(out.status.code(), Some(2), "{said}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(said), "{}", text(&out.stderr));
    }
    let folded = edited_catalog(dir.path(), |t| {
        t.replacen(
            "    packageName: kube-green\n    version: 0.6.0\n",
            "    packageName: kube-green\n    version: 9.9.9\n    ver\u{17f}ion: 0.6.0\n",
            1,
        )
    });
    let out = judge_at(&folded, None, "      version: \">=0.5.0\"\n");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("differ only in case, and OLM reads them as one"), "{}", text(&out.stderr));
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(repo(WITH_OBJECTS), folder.join("catalog.txt")).unwrap();
    let out = judge_at(&folder.display().to_string(), None, "      version: \"0.6.0\"\n");
    assert_eq!(out.status.code(), Some(1), "a .txt file is read as OLM reads it: {}", text(&out.stderr));
}

/// The verdict stands for the image OLM pulls only when the manifests are
/// that bundle's and the image is named by digest: a bundle carrying another
/// bundle's CSV, or none, is unjudged; a tag image is judged, and fails
/// `catalog judge` unless `--allow-tag-images` accepts it; two bundles of one
/// version are refused.
#[test]
fn manifests_that_are_not_the_bundle_are_unjudged_and_a_tag_image_is_named() {
    let dir = tempfile::tempdir().unwrap();
    // 0.6.0's entry, carrying 0.5.2's manifests in its place (and no 0.5.2 in the channel).
    let swapped = edited_catalog(dir.path(), |t| {
        t.replacen("- name: kube-green.v0.5.2\n  replaces: kube-green.v0.5.1\n", "", 1)
            .split("\n---\n")
            .filter(|doc| !doc.contains("name: kube-green.v0.6.0\npackage: kube-green\nproperties:"))
            .map(|doc| {
                if doc.contains("name: kube-green.v0.5.2\npackage: kube-green\nproperties:") {
                    doc.replace("name: kube-green.v0.5.2\n", "name: kube-green.v0.6.0\n")
                        .replace("    version: 0.5.2\n", "    version: 0.6.0\n")
                } else {
                    doc.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n---\n")
    });
    let out = judge_at(&swapped, None, "      version: \"0.6.0\"\n");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows[0]["verdict"], "unjudged", "{rows}");
    assert!(
        rows[0]["errors"][0].as_str().unwrap().contains("named \"kube-green.v0.5.2\", not \"kube-green.v0.6.0\""),
        "{rows}"
    );
    let tagged = edited_catalog(dir.path(), |t| {
        // The bundle's image is the line before its name.
        let at = t.find("\nname: kube-green.v0.6.0\npackage: kube-green\nproperties:").unwrap();
        let image = t[..at].lines().last().unwrap().to_string();
        assert!(image.starts_with("image: ") && image.contains("@sha256:"), "{image}");
        t.replacen(&image, "image: quay.io/attacker/anything:latest", 1)
    });
    let out = judge_at(&tagged, None, "      version: \"0.6.0\"\n");
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1));
    // Judged all the same: the policy's verdict (0.6.0 ships ClusterRoles CONFIG denies), the image beside it.
    assert_eq!((&rows[0]["verdict"], &rows[0]["pinned"]), (&json!("fail"), &json!(false)), "{rows}");
    let why = rows[0]["errors"][0].as_str().unwrap();
    assert!(
        why.starts_with("its image is named by tag, not by digest")
            && why.ends_with("or pass --allow-tag-images to accept tag images"),
        "{why}"
    );
    assert!(
        text(&out.stderr).contains(
            "1 bundle image(s) named by tag, each judged but not accepted: pass --allow-tag-images to accept them"
        ),
        "{}",
        text(&out.stderr)
    );
    // Accepted, a tag image that passes clears the command.
    let tagged_pass = edited_catalog(dir.path(), |t| {
        let at = t.find("\nname: kube-green.v0.5.2\npackage: kube-green\nproperties:").unwrap();
        let image = t[..at].lines().last().unwrap().to_string();
        t.replacen(&image, "image: quay.io/example/kube-green-bundle:v0.5.2", 1)
    });
    let refused = judge_at(&tagged_pass, None, "      version: \"0.5.2\"\n");
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused.stderr));
    let accepted = judge_with(&tagged_pass, None, "      version: \"0.5.2\"\n", &["--allow-tag-images"]);
    assert_eq!(accepted.status.code(), Some(0), "{}", text(&accepted.stderr));
    let rows: serde_json::Value = serde_json::from_slice(&accepted.stdout).unwrap();
    assert_eq!((&rows[0]["verdict"], &rows[0]["pinned"]), (&json!("pass"), &json!(false)), "{rows}");
    // An empty image names none, tags accepted or not.
    let empty = edited_catalog(dir.path(), |t| {
        let at = t.find("\nname: kube-green.v0.5.2\npackage: kube-green\nproperties:").unwrap();
        let image = t[..at].lines().last().unwrap().to_string();
        t.replacen(&image, "image: \"\"", 1)
    });
    let out = judge_with(&empty, None, "      version: \"0.5.2\"\n", &["--allow-tag-images"]);
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((out.status.code(), &rows[0]["verdict"]), (Some(1), &json!("unjudged")), "{rows}");
    assert!(rows[0]["errors"][0].as_str().unwrap().contains("names no bundle image"), "{rows}");
    let twice = edited_catalog(dir.path(), |t| t.replacen("    version: 0.5.1\n", "    version: 0.5.2\n", 1));
    let out = judge_at(&twice, None, "      version: \"0.5.2\"\n");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("another bundle of package \"kube-green\" has that version"),
        "{}",
        text(&out.stderr)
    );
}

/// The upgrade review under `permissions: Unmanaged` (what OLM v1 needs):
/// the config writes none of the operator's roles, but OLM v1 grants the
/// CSV's rules on install, so a version's gains are measured on them.
/// kube-green 0.7.0's operator gains update and patch on StatefulSets
/// cluster-wide over 0.5.2 (the last version that passed); no other admitted
/// version gains anything.
#[test]
fn gains_under_unmanaged_are_what_olm_v1_grants_the_operator() {
    let out = run_bin(
        &[
            "catalog",
            "judge",
            "--catalog",
            "examples/catalog/kube-green-catalog.yaml",
            "-c",
            "examples/catalog/rbac.yaml",
            "-f",
            "examples/catalog/clusterextension.yaml",
            "-o",
            "json",
        ],
        "",
    );
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let gains: Vec<(&str, usize)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["version"].as_str().unwrap(), r["gained"].as_array().unwrap().len()))
        .collect();
    assert_eq!(gains, [("0.5.0", 0), ("0.5.1", 0), ("0.5.2", 0), ("0.6.0", 0), ("0.7.0", 1), ("0.7.1", 0)]);
    let gained = &rows[4]["gained"][0];
    assert_eq!(gained["subject"]["name"], "kube-green-controller-manager", "{gained}");
    assert_eq!((&gained["apiGroups"], &gained["resources"]), (&json!(["apps"]), &json!(["statefulsets"])), "{gained}");
    assert!(gained["verbs"].as_array().unwrap().contains(&json!("update")), "{gained}");
    assert_eq!(gained["severity"], "critical");
}

/// `catalog judge` lists a package's bundles by version, as `audit` ranks
/// them within a level: 0.7.1 before 0.10.0, whatever the names' order.
#[test]
fn judge_lists_bundles_by_version_not_by_name() {
    let dir = tempfile::tempdir().unwrap();
    // kube-green.v0.5.0 sorts first by name; as 0.10.0 it is the newest.
    let renumbered = edited_catalog(dir.path(), |t| t.replacen("    version: 0.5.0\n", "    version: 0.10.0\n", 1));
    let out = judge_at(&renumbered, None, "      version: \">=0.5.1\"\n");
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let versions: Vec<&str> = rows.as_array().unwrap().iter().map(|r| r["version"].as_str().unwrap()).collect();
    assert_eq!(versions.last(), Some(&"0.10.0"), "{versions:?}");
    let parsed: Vec<Vec<u64>> = versions.iter().map(|v| v.split('.').map(|n| n.parse().unwrap()).collect()).collect();
    assert!(parsed.windows(2).all(|w| w[0] <= w[1]), "{versions:?}");
}

/// `catalog audit` leads with one line per package, ranked by its worst
/// bundle, so that one package's many versions cannot fill the top of the
/// list; each row names its package (text and Markdown).
#[test]
fn audit_rolls_up_each_package_and_rows_name_their_package() {
    let dir = tempfile::tempdir().unwrap();
    for file in [WITH_OBJECTS, "tests/fixtures/catalogs/with-bundle-objects/trident-operator.yaml"] {
        let name = std::path::Path::new(file).file_name().unwrap();
        std::fs::copy(repo(file), dir.path().join(name)).unwrap();
    }
    let catalog = dir.path().display().to_string();
    let out = run_bin(&["catalog", "audit", "--catalog", &catalog], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let (roll_up, rows) = stdout.split_once("\n\n").unwrap();
    let roll_up: Vec<Vec<&str>> = roll_up.lines().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(roll_up[0], ["PACKAGE", "BUNDLES", "PASS", "WORST", "DANGEROUS", "WORST", "BUNDLE"]);
    assert_eq!(roll_up[1], ["trident-operator", "12", "12", "critical", "12", "trident-operator.v24.2.0"]);
    assert_eq!(roll_up[2], ["kube-green", "10", "10", "critical", "5", "kube-green.v0.6.0"]);
    assert_eq!(roll_up.len(), 3, "one line per package");
    assert!(rows.starts_with("PACKAGE "), "{rows}");
    assert_eq!(rows.lines().filter(|l| l.starts_with("kube-green ")).count(), 10, "{rows}");
    let markdown = run_bin(&["catalog", "audit", "--catalog", &catalog, "-o", "markdown"], "");
    let markdown = text(&markdown.stdout);
    assert!(markdown.starts_with("| package | bundles | pass | worst | dangerous | worst bundle |\n"), "{markdown}");
    assert!(markdown.contains("| `kube-green` | 10 | 10 | critical | 5 | `kube-green.v0.6.0` |\n"), "{markdown}");
    assert!(markdown.contains("| `kube-green` | `kube-green.v0.6.0` | 0.6.0 | pass |"), "{markdown}");
}

/// The typo policy of issue 36 (`secret`, `Bind`) is refused with the near
/// misses named, where Kubernetes' exact matching would have let trident,
/// which reads and writes secrets cluster-wide, pass; written right, the
/// same policy fails trident.
#[test]
fn a_mistyped_deny_is_refused_and_the_corrected_one_fails_trident() {
    let dir = tempfile::tempdir().unwrap();
    let ext = dir.path().join("ext.yaml");
    std::fs::write(&ext, "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: trident\nspec:\n  namespace: trident\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: trident-operator\n      version: \"24.2.0\"\n").unwrap();
    let judge = |deny: &str| {
        let config = dir.path().join("rbac.yaml");
        std::fs::write(&config, format!("apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: trident\nspec:\n  mode: Aggregate\n  operator:\n    policy:\n      deny:\n      - {deny}\n")).unwrap();
        let catalog = repo("tests/fixtures/catalogs/with-bundle-objects/trident-operator.yaml");
        judged_text(&catalog, &config, &ext)
    };
    let (code, typo) = judge("{apiGroups: [''], resources: [secret], verbs: [get, Bind]}");
    assert_eq!(code, Some(1), "{typo}");
    assert!(typo.contains("\"secret\" is not a resource of API group(s) \"\"; did you mean \"secrets\"?"), "{typo}");
    assert!(typo.contains("\"Bind\" is not a verb the cluster serves; did you mean \"bind\"?"), "{typo}");
    let (code, right) = judge("{apiGroups: [''], resources: [secrets], verbs: [get, bind]}");
    assert_eq!(code, Some(1), "{right}");
    assert!(right.contains("trident-operator.v24.2.0") && right.contains(" fail "), "{right}");
    assert!(right.contains("spec.operator.policy.deny[0]"), "{right}");
    assert!(!right.contains("did you mean"), "{right}");
    // A subresource no request names, a group a letter off, a singular the
    // table does not list (a virtual resource): each denies nothing as
    // written, so each is refused with what it was meant as.
    for (deny, said) in [
        (
            "{apiGroups: [''], resources: [pods/execs], verbs: [create]}",
            "\"pods/execs\" names \"execs\", which is not a subresource any request names; did you mean \"pods/exec\"?",
        ),
        (
            "{apiGroups: [rbac.authorisation.k8s.io], resources: [clusterroles], verbs: [escalate]}",
            "\"rbac.authorisation.k8s.io\" is not an API group of Kubernetes, OLM or the input's CRDs; did you mean \"rbac.authorization.k8s.io\"?",
        ),
        (
            "{apiGroups: [certificates.k8s.io], resources: [signer], verbs: [sign]}",
            "\"signer\" is not a resource of API group(s) \"certificates.k8s.io\"; did you mean \"signers\"?",
        ),
        // The core group written as its version, a group with its version,
        // a resource with an empty subresource (found in review).
        (
            "{apiGroups: [v1], resources: [secrets], verbs: [get]}",
            "\"v1\" is not an API group of Kubernetes, OLM or the input's CRDs; did you mean \"\"?",
        ),
        (
            "{apiGroups: [rbac.authorization.k8s.io/v1], resources: [clusterroles], verbs: [escalate]}",
            "did you mean \"rbac.authorization.k8s.io\"?",
        ),
        (
            "{apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles/], verbs: [escalate]}",
            "\"clusterroles/\" is not a resource of API group(s) \"rbac.authorization.k8s.io\"; did you mean \"clusterroles\"?",
        ),
    ] {
        let (code, typo) = judge(deny);
        assert_eq!(code, Some(1), "{deny}: {typo}");
        assert!(typo.contains(said), "{deny}: {typo}");
    }
    // Real groups two edits from Kubernetes' are no typo of them.
    let (_, real) =
        judge("{apiGroups: [scheduling.x-k8s.io, autoscaling.x-k8s.io], resources: [podgroups], verbs: [create]}");
    assert!(!real.contains("did you mean"), "{real}");
    // Subresources requests do name pass, the kubelet's and finalizers too.
    let (_, fine) = judge("{apiGroups: ['', apps, authentication.k8s.io], resources: [pods/exec, nodes/metrics, deployments/finalizers, userextras/anything], verbs: [create, get, update, impersonate]}");
    assert!(!fine.contains("warning:") && !fine.contains("did you mean"), "{fine}");
    // What is only a warning (a name olm-rbac does not know may be an API
    // of the cluster's) is said once, as render says it, not dropped.
    let (_, unknown) = judge("{apiGroups: [widgets.example.com], resources: [widgets], verbs: [get]}");
    assert_eq!(
        count(&unknown, "warning: RBACConfig trident: spec.operator.policy.deny[0].apiGroups[0]: \"widgets.example.com\" is not an API group"),
        1,
        "{unknown}"
    );
}

/// Found in review: `catalog judge` holds the ClusterExtension's namespace
/// to the one the operator was judged in, as render does.
#[test]
fn a_clusterextension_installing_elsewhere_than_judged_fails_catalog_judge() {
    let dir = tempfile::tempdir().unwrap();
    let (config, ext) = (dir.path().join("rbac.yaml"), dir.path().join("ext.yaml"));
    std::fs::write(&config, format!("{CONFIG}    installNamespace: kube-green\n")).unwrap();
    let judge = |namespace: &str| {
        std::fs::write(
            &ext,
            extension("      version: \"0.5.2\"\n")
                .replace("namespace: kube-green", &format!("namespace: {namespace}")),
        )
        .unwrap();
        let catalog = repo(WITH_OBJECTS);
        judged_text(&catalog, &config, &ext)
    };
    assert_eq!(judge("kube-green").0, Some(0));
    let (code, out) = judge("kube-system");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(
            "spec.namespace: \"kube-system\" is not \"kube-green\", the namespace olm-rbac judged the operator in"
        ),
        "{out}"
    );
}

/// `catalog audit` reads the catalog once, judging each bundle as it is
/// read: what it reports is what reading it all first, then judging, would
/// report. Deprecations written after the bundles reach their rows; a
/// bundle whose manifests cannot be read is unreadable input, unless the
/// catalog itself is refused, which is said first.
#[test]
fn an_audit_read_in_one_pass_reports_what_two_would() {
    let dir = tempfile::tempdir().unwrap();
    let deprecations = "schema: olm.deprecations\npackage: kube-green\nentries:\n- reference: {schema: olm.bundle, name: kube-green.v0.5.2}\n  message: 0.5.2 leaks memory\n";
    let audit = |catalog: &str| run_bin(&["catalog", "audit", "--catalog", catalog, "-o", "json"], "");
    let catalog = edited_catalog(dir.path(), |t| format!("{t}\n---\n{deprecations}"));
    let out = audit(&catalog);
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let of = |v: &str| rows.as_array().unwrap().iter().find(|r| r["version"] == v).unwrap()["deprecations"].clone();
    assert_eq!(of("0.5.2"), json!(["bundle deprecated: 0.5.2 leaks memory"]), "{rows}");
    assert_eq!(of("0.6.0"), json!([]));
    let not_base64 = |t: String| {
        t.replacen(
            "name: kube-green.v0.5.2\npackage: kube-green\nproperties:\n",
            "name: kube-green.v0.5.2\npackage: kube-green\nproperties:\n- type: olm.bundle.object\n  value:\n    data: '%%%'\n",
            1,
        )
    };
    let out = audit(&edited_catalog(dir.path(), not_base64));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("bundle kube-green.v0.5.2: properties: olm.bundle.object #0: data is not base64")
    );
    let twice = format!("{deprecations}---\n{deprecations}");
    let out = audit(&edited_catalog(dir.path(), |t| format!("{}\n---\n{twice}", not_base64(t))));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("a second one; opm allows at most one per package"), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("not base64"), "{}", text(&out.stderr));
}

/// Issue 49: `-q` on the catalog commands, as on render and the access
/// checks: only errors on stderr, the rows still on stdout.
#[test]
fn the_catalog_commands_take_quiet() {
    let catalog = repo(WITH_OBJECTS).display().to_string();
    let loud = run_bin(&["catalog", "audit", "--catalog", &catalog], "");
    assert!(text(&loud.stderr).contains("10 bundle(s): 10 pass"), "{}", text(&loud.stderr));
    for command in ["audit", "judge", "filter"] {
        let dir = tempfile::tempdir().unwrap();
        let (config, ext, out) = (dir.path().join("rbac.yaml"), dir.path().join("ext.yaml"), dir.path().join("out"));
        std::fs::write(&config, CONFIG).unwrap();
        std::fs::write(&ext, extension("      version: \">=0.7.0\"\n")).unwrap();
        let [config, ext, out] = [config, ext, out].map(|p| p.display().to_string());
        let mut args = vec!["catalog", command, "--catalog", &catalog, "-c", &config, "-q"];
        match command {
            "judge" => args.extend(["-f", ext.as_str()]),
            "filter" => args.extend(["-o", out.as_str()]),
            _ => {}
        }
        let quiet = run_bin(&args, "");
        let expected = if command == "audit" { 1 } else { 0 }; // audit: 0.6.0 fails the policy
        assert_eq!(quiet.status.code(), Some(expected), "{command}: {}", text(&quiet.stderr));
        assert_eq!(text(&quiet.stderr), "", "{command}");
        assert!(text(&quiet.stdout).contains("kube-green.v0.7.1"), "{command}: {}", text(&quiet.stdout));
    }
    let missing = run_bin(&["catalog", "audit", "--catalog", "no-such-catalog", "-q"], "");
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).starts_with("error: "), "{}", text(&missing.stderr));
}

/// Issue 49: `--progress` says how far a catalog run has got on stderr (off
/// by default without a terminal, as here; never under `-q`), and the rows
/// on stdout are the same either way.
#[test]
fn progress_is_said_when_asked_and_changes_nothing_else() {
    let catalog = repo(WITH_OBJECTS).display().to_string();
    let plain = run_bin(&["catalog", "audit", "--catalog", &catalog, "-o", "json"], "");
    assert!(!text(&plain.stderr).contains("progress:"), "{}", text(&plain.stderr));
    let said = run_bin(&["catalog", "audit", "--catalog", &catalog, "-o", "json", "--progress"], "");
    assert_eq!(said.stdout, plain.stdout);
    assert_eq!(said.status.code(), plain.status.code());
    let first = text(&said.stderr).lines().next().unwrap_or_default().to_string();
    assert_eq!(first, "progress: judging bundle 1 (kube-green.v0.3.0, package kube-green), 0 s");
    let quiet = run_bin(&["catalog", "audit", "--catalog", &catalog, "--progress", "-q"], "");
    assert_eq!(text(&quiet.stderr), "");
    let off = run_bin(&["catalog", "audit", "--catalog", &catalog, "--progress=false"], "");
    assert!(!text(&off.stderr).contains("progress:"));
    // What only --judged-catalog reads is refused without it, naming the flag.
    for flag in [&["--progress"][..], &["--platform", "linux/arm64"]] {
        let mut args = vec!["render"];
        args.extend(flag);
        args.push("-");
        let out = run_bin(&args, "");
        assert_eq!(out.status.code(), Some(2), "{flag:?}");
        assert!(text(&out.stderr).starts_with(&format!("error: {} reads the bundles of --judged-catalog", flag[0])));
    }
}
