//! olm-rbac reads every file and byte as operator-controller (a bundle's
//! folder) and opm (a file-based catalog) read them, or refuses and says
//! why: a verdict about other bytes than OLM installs would be about another
//! bundle. Each case here was a way round the gate on an earlier build
//! (reproduced there: exit 0, or the failing bundle never judged).

use crate::common::*;

const KUBE_GREEN: &str = "examples/catalog/kube-green-catalog.yaml";
const BUNDLES: &str = "tests/fixtures/catalogs/csv-metadata-only/bundles";
const METADATA_ONLY: &str = "tests/fixtures/catalogs/csv-metadata-only/catalog";
/// 100 documents of about 480 bytes, each with an alias tree expanding to 111,000 nodes.
const ALIAS_TREES: &str = "tests/fixtures/catalogs/hostile-alias-trees/catalog.yaml";

/// Refuses what kube-green 0.6.0 ships (ClusterRoles and bindings); its
/// neighbours pass.
const CONFIG: &str = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    policy:\n      deny:\n      - {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles, clusterrolebindings], verbs: [create, bind, escalate], scope: Cluster}\n";

/// The 0.6.0 bundle's document, by the line that starts it in the catalog.
const V060: &str = "name: kube-green.v0.6.0\npackage: kube-green\nproperties:";

struct Judged {
    code: Option<i32>,
    rows: Vec<serde_json::Value>,
    stderr: String,
}

/// `catalog judge` of `catalog` (a file or folder) for a range admitting
/// 0.5.0 and later, JSON rows.
fn judge(catalog: &std::path::Path, bundles: Option<&std::path::Path>) -> Judged {
    judge_with(catalog, bundles, CONFIG)
}

/// [`judge`] with another RBACConfig.
fn judge_with(catalog: &std::path::Path, bundles: Option<&std::path::Path>, rbac: &str) -> Judged {
    let dir = tempfile::tempdir().unwrap();
    let (config, ext) = (dir.path().join("rbac.yaml"), dir.path().join("ce.yaml"));
    std::fs::write(&config, rbac).unwrap();
    std::fs::write(
        &ext,
        "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: kube-green\nspec:\n  namespace: kube-green\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: kube-green\n      version: \">=0.5.0\"\n",
    )
    .unwrap();
    let (catalog, config, ext) =
        (catalog.display().to_string(), config.display().to_string(), ext.display().to_string());
    let mut args = vec!["catalog", "judge", "--catalog", &catalog, "-c", &config, "-f", &ext, "-o", "json"];
    let bundles = bundles.map(|b| b.display().to_string());
    if let Some(b) = &bundles {
        args.extend(["--bundles", b]);
    }
    let out = run_bin(&args, "");
    let rows = serde_json::from_slice::<Vec<serde_json::Value>>(&out.stdout).unwrap_or_default();
    Judged { code: out.status.code(), rows, stderr: text(&out.stderr) }
}

/// `judged` refused the catalog as input (exit 2), saying `says`.
fn assert_refused(judged: &Judged, says: &str) {
    assert_eq!(judged.code, Some(2), "{}", judged.stderr);
    assert!(judged.stderr.contains(says), "{}", judged.stderr);
}

/// `render` of `bundle` with [`CONFIG`], written beside it in `dir`.
fn render_bundle(dir: &std::path::Path, bundle: &std::path::Path) -> std::process::Output {
    let config = dir.join("rbac.yaml");
    std::fs::write(&config, CONFIG).unwrap();
    run_bin(&["render", "-c", &config.display().to_string(), &bundle.display().to_string()], "")
}

/// A copy of the bundle folders under `dir`, with the path and text of
/// kube-green 0.5.2's ClusterServiceVersion, for a test to edit.
fn bundles_with_csv(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf, String) {
    let bundles = dir.join("bundles");
    copy_dir(&repo(BUNDLES), &bundles);
    let csv = bundles.join("kube-green/0.5.2/manifests/kube-green.clusterserviceversion.yaml");
    let written = std::fs::read_to_string(&csv).unwrap();
    (bundles, csv, written)
}

/// The kube-green catalog with `edit` applied, in a folder of its own.
fn catalog_with(dir: &std::path::Path, edit: impl Fn(String) -> String) -> std::path::PathBuf {
    let folder = dir.join("catalog");
    std::fs::create_dir_all(&folder).unwrap();
    let text = std::fs::read_to_string(repo(KUBE_GREEN)).unwrap();
    std::fs::write(folder.join("catalog.yaml"), edit(text)).unwrap();
    folder
}

/// `catalog audit -o json` of the metadata-only catalog with `bundles`.
fn audit(bundles: &std::path::Path) -> std::process::Output {
    let (catalog, bundles) = (repo(METADATA_ONLY).display().to_string(), bundles.display().to_string());
    run_bin(&["catalog", "audit", "--catalog", &catalog, "--bundles", &bundles, "-o", "json"], "")
}

fn verdict_of<'a>(judged: &'a Judged, version: &str) -> Option<&'a str> {
    judged.rows.iter().find(|r| r["version"] == version).and_then(|r| r["verdict"].as_str())
}

#[test]
fn the_kube_green_catalog_as_written_judges_0_6_0_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let judged = judge(&catalog_with(dir.path(), |t| t), None);
    assert_eq!(judged.code, Some(1), "{}", judged.stderr);
    assert_eq!(verdict_of(&judged, "0.6.0"), Some("fail"));
    assert_eq!(judged.rows.len(), 6);
}

/// go-yaml lets a merge key win over a key written before it; a `! <<` is a
/// merge key to go-yaml and a plain key to YAML 1.2 readers; two `<<` keys
/// are merged one after the other by go-yaml. Each hid kube-green 0.6.0 (as
/// package `decoy`, or at version 9.9.9) from the judgement while opm serves
/// it as kube-green 0.6.0.
#[test]
fn merge_keys_that_would_hide_a_bundle_from_the_judgement_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (what, edit) in [
        (
            "a key written before <<",
            ("package: kube-green\nproperties:", "package: decoy\n<<: {package: kube-green}\nproperties:"),
        ),
        ("! <<", ("package: kube-green\nproperties:", "package: decoy\n! <<: {package: kube-green}\nproperties:")),
        (
            "two <<",
            ("package: kube-green\nproperties:", "<<: {package: decoy}\n<<: {package: kube-green}\nproperties:"),
        ),
    ] {
        let catalog = catalog_with(dir.path(), |t| {
            let at = t.find(V060).unwrap();
            format!("{}{}", &t[..at], t[at..].replacen(edit.0, edit.1, 1))
        });
        let judged = judge(&catalog, None);
        assert_eq!(judged.code, Some(2), "{what}: {}", judged.stderr);
        assert!(judged.rows.is_empty(), "{what}: nothing is judged");
        assert!(judged.stderr.contains("catalog.yaml: line"), "{what}: {}", judged.stderr);
    }
    // On the version: go-yaml reads 0.6.0, a YAML 1.2 reader 9.9.9.
    let catalog = catalog_with(dir.path(), |t| {
        t.replacen(
            "    packageName: kube-green\n    version: 0.6.0\n",
            "    packageName: kube-green\n    version: 9.9.9\n    <<: {version: 0.6.0}\n",
            1,
        )
    });
    let judged = judge(&catalog, None);
    assert_refused(&judged, "is written before a merge key");
}

/// Go ends a comment at U+2028, U+2029 or U+0085: what follows is a key to
/// opm, and part of the comment to a YAML 1.2 reader.
#[test]
fn line_breaks_only_go_sees_are_refused_in_catalogs() {
    let dir = tempfile::tempdir().unwrap();
    for brk in ['\u{2028}', '\u{2029}', '\u{85}'] {
        let catalog = catalog_with(dir.path(), |t| {
            let at = t.find(V060).unwrap();
            let hidden =
                t[at..].replacen("package: kube-green\n", &format!("# a comment{brk}package: kube-green\n"), 1);
            format!("{}{hidden}", &t[..at])
        });
        let judged = judge(&catalog, None);
        assert_eq!(judged.code, Some(2), "{brk:?}: {}", judged.stderr);
        assert!(judged.stderr.contains("takes for a line break"), "{}", judged.stderr);
    }
}

/// opm reads every file of a catalog's folder that no `.indexignore`
/// ignores: a folder laid out like a bundle's root is read whole.
#[test]
fn a_catalog_folder_laid_out_like_a_bundle_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo(KUBE_GREEN)).unwrap();
    let docs: Vec<&str> = text.split("\n---\n").collect();
    let (hidden, rest): (Vec<&str>, Vec<&str>) = docs.iter().partition(|d| d.contains(V060));
    let folder = dir.path().join("catalog");
    std::fs::create_dir_all(folder.join("x/manifests")).unwrap();
    std::fs::create_dir_all(folder.join("x/metadata")).unwrap();
    std::fs::write(folder.join("catalog.yaml"), rest.join("\n---\n")).unwrap();
    std::fs::write(folder.join("x/manifests/readme.yaml"), "schema: olm.readme\n").unwrap();
    std::fs::write(folder.join("x/metadata/annotations.yaml"), format!("---\n{}\n", hidden[0])).unwrap();
    let judged = judge(&folder, None);
    assert_eq!(judged.code, Some(1), "{}", judged.stderr);
    assert_eq!(verdict_of(&judged, "0.6.0"), Some("fail"), "{:?}", judged.rows);
    // What .indexignore ignores, opm does not read either.
    std::fs::write(folder.join(".indexignore"), "x/metadata/\n").unwrap();
    let judged = judge(&folder, None);
    assert!(judged.stderr.contains("names no olm.bundle of the package"), "{}", judged.stderr);
}

/// A channel entry that names no bundle: opm refuses the catalog.
#[test]
fn a_channel_entry_naming_no_bundle_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let catalog =
        catalog_with(dir.path(), |t| t.replacen("- name: kube-green.v0.7.1\n", "- name: kube-green.v9.9.9\n", 1));
    let judged = judge(&catalog, None);
    assert_eq!(judged.code, Some(2), "{}", judged.stderr);
    assert!(
        judged.stderr.contains("olm.channel \"alpha\" of package \"kube-green\": entries: \"kube-green.v9.9.9\" names no olm.bundle of the package"),
        "{}",
        judged.stderr
    );
}

/// A bundle of another package with the same name as an admitted one is not
/// judged in its place, nor reported as this package's.
#[test]
fn documents_are_matched_to_bundles_by_package_and_name() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = catalog_with(dir.path(), |t| {
        let at = t.find(V060).unwrap();
        let start = t[..at].rfind("\n---\n").unwrap() + 5;
        let end = t[at..].find("\n---\n").map_or(t.len(), |e| at + e);
        // 0.6.0's manifests, under 0.5.2's name, in package "other".
        let other = t[start..end]
            .replacen("name: kube-green.v0.6.0\npackage: kube-green\n", "name: kube-green.v0.5.2\npackage: other\n", 1)
            .replacen("packageName: kube-green", "packageName: other", 1);
        format!("{t}\n---\nname: other\nschema: olm.package\n---\n{other}\n")
    });
    let judged = judge(&catalog, None);
    let rows: Vec<(&str, &str, &str)> = judged
        .rows
        .iter()
        .map(|r| (r["package"].as_str().unwrap(), r["bundle"].as_str().unwrap(), r["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(rows.iter().filter(|r| r.1 == "kube-green.v0.5.2").count(), 1, "{rows:?}");
    assert!(rows.contains(&("kube-green", "kube-green.v0.5.2", "pass")), "{rows:?}");
    assert!(rows.iter().all(|r| r.0 == "kube-green"), "{rows:?}");
}

/// A catalog that deprecates a bundle and a channel is judged, each row
/// saying what its deprecations say; one that deprecates what does not
/// exist, or twice, is refused as opm refuses it.
#[test]
fn deprecations_are_read_and_reported_beside_the_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let deprecations = "schema: olm.deprecations\npackage: kube-green\nentries:\n- reference: {schema: olm.bundle, name: kube-green.v0.5.0}\n  message: 0.5.0 leaks memory\n- reference: {schema: olm.channel, name: alpha}\n  message: use stable\n";
    let catalog = catalog_with(dir.path(), |t| format!("{t}\n---\n{deprecations}"));
    let judged = judge(&catalog, None);
    assert_eq!(judged.code, Some(1), "{}", judged.stderr);
    let of = |v: &str| judged.rows.iter().find(|r| r["version"] == v).unwrap()["deprecations"].clone();
    assert_eq!(
        of("0.5.0"),
        serde_json::json!(["bundle deprecated: 0.5.0 leaks memory", "channel alpha deprecated: use stable"])
    );
    assert_eq!(of("0.7.1"), serde_json::json!(["channel alpha deprecated: use stable"]));
    for bad in
        [deprecations.replace("kube-green.v0.5.0", "kube-green.v9"), format!("{deprecations}---\n{deprecations}")]
    {
        let catalog = catalog_with(dir.path(), |t| format!("{t}\n---\n{bad}"));
        let judged = judge(&catalog, None);
        assert_refused(&judged, "olm.deprecations of package \"kube-green\"");
    }
}

/// A bundle folder under `--bundles` with 0.5.2's manifests and a file with
/// no `.yaml` name binding the operator to cluster-admin: operator-controller
/// installs that file too.
fn bundles_with_extra_rbac(dir: &std::path::Path) -> std::path::PathBuf {
    let bundles = dir.join("bundles");
    copy_dir(&repo(BUNDLES), &bundles);
    std::fs::write(
        bundles.join("kube-green/0.5.2/manifests/extra-rbac"),
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: extra\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects:\n- {kind: ServiceAccount, name: kube-green-controller-manager, namespace: kube-green}\n",
    )
    .unwrap();
    bundles
}

#[test]
fn a_manifest_without_a_yaml_name_is_read_as_operator_controller_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let bundles = bundles_with_extra_rbac(dir.path());
    let judged = judge(&repo(METADATA_ONLY), Some(&bundles));
    assert_eq!(judged.code, Some(1), "{}", judged.stderr);
    assert_eq!(verdict_of(&judged, "0.5.2"), Some("fail"), "{:?}", judged.rows);
    // render of the bundle's folder, alike.
    let bundle = bundles.join("kube-green/0.5.2");
    let out = render_bundle(dir.path(), &bundle);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("extra-rbac"), "{}", text(&out.stderr));
}

/// A folder inside a bundle's `manifests/`: operator-controller reads the
/// files of `manifests/` and refuses a bundle with a folder there
/// (`bundle/source/source.go`, `GetBundle`: "subdirectories are not
/// allowed"), so the bundle is `uninstallable`, the folder named: render
/// exits 1 (not 2, the bundle is readable), the catalog's row says so, and
/// what the folder holds is not read. Issue 47.
#[test]
fn a_bundle_with_a_folder_in_its_manifests_is_uninstallable() {
    let dir = tempfile::tempdir().unwrap();
    let (bundles, _, _) = bundles_with_csv(dir.path());
    let bundle = bundles.join("kube-green/0.5.2");
    std::fs::create_dir(bundle.join("manifests/more")).unwrap();
    std::fs::write(bundle.join("manifests/more/hidden.yaml"), "kind: not yaml: [\n").unwrap();
    let folder = bundle.join("manifests/more").display().to_string();
    let (config, sarif) = (dir.path().join("rbac.yaml"), dir.path().join("render.sarif"));
    std::fs::write(&config, CONFIG).unwrap();
    let (config, path, log) = (config.display().to_string(), bundle.display().to_string(), sarif.display().to_string());
    let out = run_bin(&["render", "-c", &config, &path, "--sarif", &log], "");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "nothing is written");
    let log: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let errors: Vec<&serde_json::Value> =
        log["runs"][0]["results"].as_array().unwrap().iter().filter(|r| r["level"] == "error").collect();
    let said = format!("its manifests/ holds the folder {folder:?}");
    assert!(errors.len() == 1 && errors[0]["ruleId"] == "uninstallable", "{errors:#?}");
    assert!(errors[0]["message"]["text"].as_str().unwrap().contains(&said), "{errors:#?}");
    let judged = judge(&repo(METADATA_ONLY), Some(&bundles));
    assert_eq!(judged.code, Some(1), "{}", judged.stderr);
    let row = judged.rows.iter().find(|r| r["version"] == "0.5.2").unwrap();
    assert_eq!(row["verdict"], "uninstallable", "{row}");
    assert!(row["errors"].as_array().unwrap().iter().any(|e| e.as_str().unwrap().contains(&said)), "{row}");
    // The folder's parent as a bundle's manifests/ named on its own, alike.
    let out = render_bundle(dir.path(), &bundle.join("manifests"));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(&said), "{}", text(&out.stderr));
}

/// opendatahub-operator's CRDs continue a single-quoted description at the
/// key's own column. go-yaml reads it; so does olm-rbac, bytes unchanged.
const ODH_DESCRIPTION: &str =
    "            description: 'Foo is the\n            Schema for the foos API, ''quoted''.'\n";

#[test]
fn a_description_continued_at_its_keys_column_is_read_and_passes_through() {
    let dir = tempfile::tempdir().unwrap();
    let bundles = dir.path().join("bundles");
    copy_dir(&repo(BUNDLES), &bundles);
    let manifests = bundles.join("kube-green/0.5.2/manifests");
    let crd = std::fs::read_dir(&manifests)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| std::fs::read_to_string(p).unwrap().contains("kind: CustomResourceDefinition"))
        .unwrap();
    let original = std::fs::read_to_string(&crd).unwrap();
    let line =
        original.lines().find(|l| l.starts_with("            description: ") && !l.contains('\'')).unwrap().to_string();
    let edited = original.replacen(&format!("{line}\n"), ODH_DESCRIPTION, 1);
    assert_ne!(edited, original);
    std::fs::write(&crd, &edited).unwrap();
    let judged = judge(&repo(METADATA_ONLY), Some(&bundles));
    assert_eq!(verdict_of(&judged, "0.5.2"), Some("pass"), "{:?} {}", judged.rows, judged.stderr);
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, CONFIG).unwrap();
    let out = run_bin(&["render", "-c", &config.display().to_string(), &manifests.display().to_string()], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains(&edited), "the CRD's bytes pass through unchanged");
}

/// What OLM cannot read is never a policy word: the bundle is unjudged, with
/// the file, line and cause.
#[test]
fn manifests_olm_cannot_read_make_the_bundle_unjudged_not_failed() {
    let dir = tempfile::tempdir().unwrap();
    let bundles = dir.path().join("bundles");
    copy_dir(&repo(BUNDLES), &bundles);
    std::fs::write(bundles.join("kube-green/0.5.2/manifests/broken.yaml"), "kind: ConfigMap\nmetadata: [\n").unwrap();
    let judged = judge(&repo(METADATA_ONLY), Some(&bundles));
    let row = judged.rows.iter().find(|r| r["version"] == "0.5.2").unwrap();
    assert_eq!(row["verdict"], "unjudged", "{row}");
    let why = row["errors"][0].as_str().unwrap();
    assert!(
        why.contains("cannot be read as OLM reads them")
            && why.contains("(line 2, column 11) [kube-green.v0.5.2/manifests/broken.yaml]"),
        "{why}"
    );
}

/// Many small documents each holding an alias tree: the budget is in
/// proportion to each document, so the catalog is refused at once instead
/// of costing a second a document (the timing is in `benches/`).
#[test]
fn alias_trees_spread_over_many_documents_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("catalog");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(repo(ALIAS_TREES), folder.join("catalog.yaml")).unwrap();
    let judged = judge(&folder, None);
    assert_refused(&judged, "alias");
}

/// A bundle's `metadata/annotations.yaml` names its package; operator-controller
/// reads it with go-yaml, so it is read with the same care as the manifests,
/// and one OLM cannot read is said, not taken for "no package".
#[test]
fn a_bundles_annotations_are_read_as_operator_controller_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("bundle");
    copy_dir(&repo(BUNDLES).join("kube-green/0.5.2"), &bundle);
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, CONFIG).unwrap();
    const KEY: &str = "operators.operatorframework.io.bundle.package.v1";
    for (annotations, said) in [
        (format!("annotations:\n  {KEY}: decoy\n  <<: {{{KEY}: kube-green}}\n"), "is written before a merge key"),
        (format!("annotations:\n  # c\u{2028}{KEY}: kube-green\n"), "takes for a line break"),
        (format!("annotations:\n  {KEY}: {{a: 1}}\n"), "not a string"),
        // Go's JSON decoder reads `annotation\u{17f}` as `annotations`, the last one winning.
        (format!("annotations: {{{KEY}: judged}}\nannotation\u{17f}: {{{KEY}: real}}\n"), "differ only in case"),
    ] {
        std::fs::write(bundle.join("metadata/annotations.yaml"), &annotations).unwrap();
        let out = run_bin(&["render", "-c", &config.display().to_string(), &bundle.display().to_string()], "");
        assert_eq!(out.status.code(), Some(1), "{annotations:?}: {}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains("metadata/annotations.yaml: ") && stderr.contains(said), "{stderr}");
        assert!(
            stderr.contains("OLM cannot read the file") || stderr.contains("OLM would read another package"),
            "{stderr}"
        );
    }
}

/// go-yaml decodes a `!!binary` key to the text it encodes, so a merged
/// `!!binary cHJvcGVydGllcw==` (`properties`) is one key with the written
/// `properties` to opm, and another to a reader that compares keys as
/// written: it hid kube-green 0.6.0 at version 0.4.9 (found in review).
/// A directive is cut off from its document by Kubernetes' reader.
#[test]
fn tagged_keys_and_directives_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = catalog_with(dir.path(), |t| {
        let at = t.find(V060).unwrap();
        let merged = "<<: {!!binary cHJvcGVydGllcw==: [{type: olm.package, value: {packageName: kube-green, version: 0.4.9}}]}\nproperties:";
        format!("{}{}", &t[..at], t[at..].replacen("properties:", merged, 1))
    });
    let judged = judge(&catalog, None);
    assert_refused(&judged, "\"cHJvcGVydGllcw==\" carries a tag of YAML's own types");
    let catalog = catalog_with(dir.path(), |t| format!("%YAML 1.1\n{t}"));
    let judged = judge(&catalog, None);
    assert_refused(&judged, "a YAML directive (%YAML, %TAG)");
}

/// The catalog reads the judgement's values, not render's text: a bundle
/// with seventeen dangerous grants (more than render's text shows for one
/// account; one rule both reads and writes secrets) reports seventeen, and a resource name holding a line break cannot
/// move the worst level out of reach.
#[test]
fn every_dangerous_grant_is_counted_and_the_worst_is_a_value() {
    let dir = tempfile::tempdir().unwrap();
    let (bundles, csv, written) = bundles_with_csv(dir.path());
    let rules: String = (0..13)
        .map(|i| {
            format!(
                "        - {{apiGroups: [''], resources: [secrets], resourceNames: [\"s{i}\\nx\"], verbs: [get]}}\n"
            )
        })
        .collect();
    std::fs::write(
        &csv,
        written.replacen(
            "      clusterPermissions:\n      - rules:\n",
            &format!("      clusterPermissions:\n      - rules:\n{rules}"),
            1,
        ),
    )
    .unwrap();
    let out = audit(&bundles);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let row = rows.iter().find(|r| r["version"] == "0.5.2").unwrap();
    assert_eq!(row["dangerous"].as_array().unwrap().len(), 17, "{row}");
    assert_eq!(row["worst"], "critical");
    // Worst first.
    assert!(row["dangerous"][0].as_str().unwrap().contains("(critical)"), "{row}");
    let top = rows.first().unwrap();
    assert_eq!(
        (top["version"].as_str(), top["worst"].as_str()),
        (Some("0.5.2"), Some("critical")),
        "ranked first: most grants"
    );
}

/// In a flow collection go-yaml reads `?` (and `:` after a tag or anchor) as
/// an indicator: `{?clusterPermissions: …}` is the CSV's clusterPermissions
/// to OLM and a key named `?clusterPermissions` to a YAML 1.2 reader; both
/// hid what OLM installs (found in the second review).
#[test]
fn indicators_go_yaml_reads_in_flow_collections_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("bundle");
    copy_dir(&repo(BUNDLES).join("kube-green/0.5.2"), &bundle);
    let csv = bundle.join("manifests/kube-green.clusterserviceversion.yaml");
    let written = std::fs::read_to_string(&csv).unwrap();
    let hidden = "      ? {?clusterPermissions: [{serviceAccountName: x, rules: [{apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [create]}]}]}\n      : hidden\n";
    std::fs::write(
        &csv,
        written.replacen("      clusterPermissions:\n", &format!("{hidden}      clusterPermissions:\n"), 1),
    )
    .unwrap();
    let out = render_bundle(dir.path(), &bundle);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("in a flow collection"), "{}", text(&out.stderr));
    let decoy = "{schema: olm.decoy, ?schema: olm.channel, package: kube-green, name: beta, entries: [{name: kube-green.v0.6.0}]}";
    let catalog = catalog_with(dir.path(), |t| format!("{t}\n---\n{decoy}\n"));
    let judged = judge(&catalog, None);
    assert_refused(&judged, "in a flow collection");
}

/// Whether an object is a ClusterExtension is one fact for every command:
/// the API server serves them as olm.operatorframework.io/v1 only, so one
/// written otherwise is refused by render, catalog judge and can-install
/// alike, with the same words.
#[test]
fn the_three_clusterextension_readers_give_one_answer() {
    let dir = tempfile::tempdir().unwrap();
    let ce = dir.path().join("ce.yaml");
    std::fs::write(
        &ce,
        "apiVersion: olm.operatorframework.io/v1alpha1\nkind: ClusterExtension\nmetadata:\n  name: kube-green\nspec:\n  namespace: kube-green\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: kube-green\n      version: 0.5.2\n",
    )
    .unwrap();
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, CONFIG).unwrap();
    let (ce, config) = (ce.display().to_string(), config.display().to_string());
    let said = "apiVersion olm.operatorframework.io/v1alpha1: the API server serves ClusterExtensions as olm.operatorframework.io/v1 only";
    let bundle = repo(BUNDLES).join("kube-green/0.5.2").display().to_string();
    let render = run_bin(&["render", "-c", &config, &bundle, &ce], "");
    let judge = run_bin(&["catalog", "judge", "--catalog", KUBE_GREEN, "-c", &config, "-f", &ce], "");
    let install = run_bin(&["can-install", &ce, "--as", "alice", "-f", &ce], "");
    for (what, out) in [("render", render), ("catalog judge", judge), ("can-install", install)] {
        assert_ne!(out.status.code(), Some(0), "{what}");
        assert!(text(&out.stderr).contains(said), "{what}: {}", text(&out.stderr));
    }
}

/// What is judged is what the CSV's accounts hold, so the operator must run
/// as one of them: pods running as another account of the install namespace
/// (the installer's, `default`), or a token Secret the bundle ships for one,
/// would hold rights no rule of the bundle shows (found in the third review).
#[test]
fn the_operator_runs_only_as_an_account_the_csv_names() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("bundle");
    copy_dir(&repo(BUNDLES).join("kube-green/0.5.2"), &bundle);
    let csv = bundle.join("manifests/kube-green.clusterserviceversion.yaml");
    let written = std::fs::read_to_string(&csv).unwrap();
    let pod = "              serviceAccountName: kube-green-controller-manager\n";
    assert!(written.contains(pod));
    std::fs::write(&csv, written.replacen(pod, "              serviceAccountName: installer\n", 1)).unwrap();
    let out = render_bundle(dir.path(), &bundle);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(
            "runs as ServiceAccount \"installer\", which none of the CSV's permissions or clusterPermissions name"
        ),
        "{}",
        text(&out.stderr)
    );
    std::fs::write(&csv, &written).unwrap();
    std::fs::write(
        bundle.join("manifests/token.yaml"),
        "apiVersion: v1\nkind: Secret\ntype: kubernetes.io/service-account-token\nmetadata:\n  name: t\n  annotations:\n    kubernetes.io/service-account.name: installer\n",
    )
    .unwrap();
    let out = render_bundle(dir.path(), &bundle);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("a token Secret for ServiceAccount \"installer\""), "{}", text(&out.stderr));
    std::fs::remove_file(bundle.join("manifests/token.yaml")).unwrap();
    assert_eq!(render_bundle(dir.path(), &bundle).status.code(), Some(0), "as shipped, it passes");
}

/// OLM writes an admission webhook configuration for each of the CSV's
/// webhookdefinitions, and the API server sends the operator every request
/// its rules match: a mutating webhook on ClusterRoleBindings can make any
/// binding the operator's. Each rule beyond the bundle's own API groups is a
/// holding of the serving Deployment's account, judged by the policy as any
/// other (found in the fourth review: it passed render and catalog judge).
#[test]
fn a_webhook_beyond_the_bundles_own_apis_is_judged_as_a_grant() {
    let dir = tempfile::tempdir().unwrap();
    let bundles = dir.path().join("bundles");
    copy_dir(&repo(BUNDLES), &bundles);
    let bundle = bundles.join("kube-green/0.5.2");
    let csv = bundle.join("manifests/kube-green.clusterserviceversion.yaml");
    let written = std::fs::read_to_string(&csv).unwrap();
    let webhook = written
        .replacen(
            "      - kube-green.com\n      apiVersions:",
            "      - rbac.authorization.k8s.io\n      apiVersions:",
            1,
        )
        .replacen("      - sleepinfos\n    sideEffects", "      - clusterrolebindings\n    sideEffects", 1)
        .replacen("    type: ValidatingAdmissionWebhook\n", "    type: MutatingAdmissionWebhook\n", 1);
    assert_ne!(webhook, written);
    std::fs::write(&csv, &webhook).unwrap();
    let out = render_bundle(dir.path(), &bundle);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("spec.webhookdefinitions[0].rules[0]: install policy: ServiceAccount"), "{stderr}");
    assert!(
        stderr.contains("resources=[clusterrolebindings] cluster-wide, which spec.operator.policy.deny[0] forbids"),
        "{stderr}"
    );
    let judged = judge(&repo(METADATA_ONLY), Some(&bundles));
    assert_eq!(verdict_of(&judged, "0.5.2"), Some("fail"), "{:?}", judged.rows);
    // On its own API group, as shipped, it passes.
    std::fs::write(&csv, &written).unwrap();
    assert_eq!(render_bundle(dir.path(), &bundle).status.code(), Some(0));
}

/// A CSV Deployment whose pods reach into their node (privileged, hostPath,
/// host namespaces, added capabilities) holds the node, which no RBAC rule
/// shows: without a policy, each failed baseline check of the Pod Security
/// Standards is said as a danger, counted in the catalog's values (under a
/// policy it is refused: `powers::a_pod_that_reaches_into_its_node_is_refused_under_a_policy`).
#[test]
fn a_deployment_that_reaches_into_its_node_is_a_critical_danger() {
    let dir = tempfile::tempdir().unwrap();
    let (bundles, csv, written) = bundles_with_csv(dir.path());
    let pod = "              serviceAccountName: kube-green-controller-manager\n";
    let host =
        format!("{pod}              hostPID: true\n              volumes: [{{name: root, hostPath: {{path: /}}}}]\n");
    std::fs::write(&csv, written.replacen(pod, &host, 1)).unwrap();
    let out = audit(&bundles);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let row = rows.iter().find(|r| r["version"] == "0.5.2").unwrap();
    let said: Vec<&str> = row["dangerous"].as_array().unwrap().iter().filter_map(|d| d.as_str()).collect();
    assert!(
        said.iter()
            .any(|d| d.contains("spec.template.spec.hostPID: Deployment \"kube-green-controller-manager\" runs pods that the Pod Security level baseline refuses (hostNamespaces: ")),
        "{said:?}"
    );
    assert_eq!(row["worst"], "critical");
}

/// A bundle holds only the kinds registry+v1 allows (operator-registry's
/// supported resources, which operator-controller's `CheckObjectSupport`
/// reads by kind): OLM refuses any other, and olm-rbac refuses to pass one
/// on, where `bundleObjects: Keep` would apply it with the runner's rights.
#[test]
fn a_bundle_object_of_a_kind_olm_refuses_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (bundles, _, _) = bundles_with_csv(dir.path());
    let bundle = bundles.join("kube-green/0.5.2");
    let control = render_bundle(dir.path(), &bundle);
    assert_eq!(control.status.code(), Some(0), "{}", text(&control.stderr));
    for (kind, api_version, extra) in [
        ("ClusterExtension", "olm.operatorframework.io/v1", "spec:\n  namespace: x\n  source:\n    sourceType: Catalog\n    catalog: {packageName: other-operator, upgradeConstraintPolicy: SelfCertified}\n"),
        ("Pod", "v1", "spec:\n  hostPID: true\n  containers: [{name: x, image: busybox}]\n"),
        ("MutatingWebhookConfiguration", "admissionregistration.k8s.io/v1", "webhooks: []\n"),
    ] {
        let file = bundle.join("manifests/extra.yaml");
        std::fs::write(&file, format!("apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: evil\n{extra}")).unwrap();
        let out = render_bundle(dir.path(), &bundle);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{kind}: {stderr}");
        assert!(stderr.contains(&format!("kind: the bundle holds a {kind:?}, a kind registry+v1 bundles may not hold: OLM refuses the bundle")), "{kind}: {stderr}");
        assert!(text(&out.stdout).is_empty(), "{kind}: nothing is written");
        // The catalog's verdict is the same judgement's: OLM refuses the
        // bundle, so it is uninstallable, not a policy's fail.
        let judged = judge(&repo(METADATA_ONLY), Some(&bundles));
        assert_eq!(verdict_of(&judged, "0.5.2"), Some("uninstallable"), "{kind}: {:#?}", judged.rows);
    }
    // Every kind registry+v1 allows passes that check (a Secret, say).
    std::fs::write(bundle.join("manifests/extra.yaml"), "apiVersion: v1\nkind: Secret\nmetadata:\n  name: fine\n")
        .unwrap();
    let out = render_bundle(dir.path(), &bundle);
    assert!(!text(&out.stderr).contains("registry+v1 bundles may not hold"), "{}", text(&out.stderr));
}

/// A bundle OLM v1 refuses to install (here, 0.5.2 rewritten to support
/// OwnNamespace alone: operator-controller v1.11.0's `provider.go` needs
/// AllNamespaces under its default gates) gets the verdict `uninstallable`,
/// whatever its RBAC, with the rule and the field; `catalog judge` exits 1,
/// as OLM does not fall back to another version.
#[test]
fn a_bundle_olm_v1_refuses_is_uninstallable() {
    let dir = tempfile::tempdir().unwrap();
    let bundles = dir.path().join("bundles");
    copy_dir(&repo(BUNDLES), &bundles);
    let csv = bundles.join("kube-green/0.5.2/manifests/kube-green.clusterserviceversion.yaml");
    let text = std::fs::read_to_string(&csv).unwrap();
    let own = text
        .replace("  - supported: false\n    type: OwnNamespace", "  - supported: true\n    type: OwnNamespace")
        .replace("  - supported: true\n    type: AllNamespaces", "  - supported: false\n    type: AllNamespaces");
    assert_ne!(own, text);
    std::fs::write(&csv, own).unwrap();
    let judged = judge(&repo(METADATA_ONLY), Some(&bundles));
    assert_eq!(judged.code, Some(1), "{}", judged.stderr);
    let row = judged.rows.iter().find(|r| r["version"] == "0.5.2").unwrap();
    assert_eq!(row["verdict"], "uninstallable", "{row}");
    let why = row["errors"][0].as_str().unwrap();
    assert!(
        why.starts_with("ClusterServiceVersion placeholder/kube-green.v0.5.2: spec.installModes: OLM v1 will not install this bundle (applier/provider.go, operator-controller v1.11.0): it does not support the AllNamespaces install mode (it supports OwnNamespace)"),
        "{why}"
    );
    let others: Vec<&serde_json::Value> = judged.rows.iter().filter(|r| r["version"] != "0.5.2").collect();
    assert!(others.iter().all(|r| r["verdict"] != "uninstallable"), "{others:#?}");
}

/// A bundle that ships an `apiextensions.k8s.io/v1beta1` CRD, which no API
/// server has served since Kubernetes 1.22, is `uninstallable` in the
/// catalog as in render (issue 47): `catalog judge` and `catalog audit` alike,
/// the CRD's apiVersion named.
#[test]
fn a_bundle_with_a_v1beta1_crd_is_uninstallable_in_the_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let bundles = dir.path().join("bundles");
    copy_dir(&repo(BUNDLES), &bundles);
    let crd = bundles.join("kube-green/0.5.2/manifests/kube-green.com_sleepinfos.yaml");
    let written = std::fs::read_to_string(&crd).unwrap();
    let legacy =
        written.replacen("apiVersion: apiextensions.k8s.io/v1\n", "apiVersion: apiextensions.k8s.io/v1beta1\n", 1);
    assert_ne!(legacy, written);
    std::fs::write(&crd, legacy).unwrap();
    let said = "CustomResourceDefinition sleepinfos.kube-green.com: apiVersion: OLM v1 will not install this bundle (the API server, Kubernetes 1.22 and later)";
    let judged = judge(&repo(METADATA_ONLY), Some(&bundles));
    assert_eq!(judged.code, Some(1), "{}", judged.stderr);
    let row = judged.rows.iter().find(|r| r["version"] == "0.5.2").unwrap();
    assert_eq!(row["verdict"], "uninstallable", "{row}");
    assert!(row["errors"].as_array().unwrap().iter().any(|e| e.as_str().unwrap().contains(said)), "{row}");
    let audited: Vec<serde_json::Value> = serde_json::from_slice(&audit(&bundles).stdout).unwrap();
    let row = audited.iter().find(|r| r["version"] == "0.5.2").unwrap();
    assert_eq!(row["verdict"], "uninstallable", "{row}");
    let others = audited.iter().filter(|r| r["version"] != "0.5.2");
    assert!(others.clone().all(|r| r["verdict"] != "uninstallable"), "{:#?}", others.collect::<Vec<_>>());
}

/// What OLM v1 grants the operator is measured beside the bundle's own RBAC:
/// a bundle ClusterRole named as olm-rbac names OLM's grant neither replaces
/// it nor hides what it grants from the gains.
#[test]
fn a_bundle_role_named_like_olms_grant_hides_no_gain() {
    let dir = tempfile::tempdir().unwrap();
    let bundles = dir.path().join("bundles");
    copy_dir(&repo(BUNDLES), &bundles);
    let gains = |name: &str| {
        let rbac = format!("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {name}\nrules:\n- {{apiGroups: [''], resources: [pods/exec], verbs: [create]}}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: {name}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: {name}}}\nsubjects:\n- {{kind: ServiceAccount, name: kube-green-controller-manager, namespace: kube-green}}\n");
        std::fs::write(bundles.join("kube-green/0.7.1/manifests/zz-extra.yaml"), rbac).unwrap();
        let config = CONFIG.replace("  operator:\n", "  operator:\n    installNamespace: kube-green\n");
        let judged = judge_with(&repo(METADATA_ONLY), Some(&bundles), &config);
        let row = judged.rows.iter().find(|r| r["version"] == "0.7.1").unwrap().clone();
        assert_eq!(row["verdict"], "pass", "{row}");
        row["gained"].as_array().unwrap().iter().any(|g| g["resources"] == serde_json::json!(["pods/exec"]))
    };
    assert!(gains("kube-green-extra"));
    assert!(gains("kube-green-operator-kube-green-controller-manager"), "named as olm-rbac names OLM's grant");
}
