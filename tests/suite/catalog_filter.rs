//! `catalog filter` on the real catalogs (`tests/fixtures/catalogs/`,
//! `examples/catalog/`) and on hostile ones: the judged catalog holds exactly
//! the bundles that pass, as written; its upgrade edges name only them and
//! join them as the input did through the bundles left out; `catalog judge`
//! then passes every version; and a catalog that cannot be filtered so is
//! refused with nothing written.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use crate::common::*;
use serde_json::Value;

const KUBE_GREEN: &str = "examples/catalog/kube-green-catalog.yaml";
const TRIDENT: &str = "tests/fixtures/catalogs/with-bundle-objects/trident-operator.yaml";
const METADATA_ONLY: &str = "tests/fixtures/catalogs/csv-metadata-only/catalog";
const BUNDLES: &str = "tests/fixtures/catalogs/csv-metadata-only/bundles";

/// Denies creating ClusterRoles: kube-green 0.6.0 ships them, its neighbours do not.
const KUBE_GREEN_CONFIG: &str = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    installNamespace: kube-green\n    policy:\n      deny:\n      - {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles, clusterrolebindings], verbs: [create, bind, escalate], scope: Cluster}\n";

/// Denies trident's group snapshots, which 25.6.0 brought: the versions
/// from it on fail (trident's grants only grow).
const TRIDENT_CONFIG: &str = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: trident\nspec:\n  mode: Unmanaged\n  operator:\n    permissions: Cluster\n    installNamespace: trident\n    policy:\n      deny:\n      - {apiGroups: [trident.netapp.io], resources: [tridentgroupsnapshots], verbs: [create]}\n";

/// Every document of a catalog file (YAML documents or a JSON stream).
fn documents(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    if text.trim_start().starts_with('{') {
        return serde_json::Deserializer::from_str(&text).into_iter::<Value>().map(Result::unwrap).collect();
    }
    text.split("\n---")
        .map(|d| d.trim_start_matches("---"))
        .filter(|d| !d.trim().is_empty())
        .map(|d| serde_saphyr::from_str::<Value>(d).unwrap())
        .collect()
}

fn catalog_documents(path: &Path) -> Vec<Value> {
    match path.is_dir() {
        true => {
            let mut files: Vec<PathBuf> = std::fs::read_dir(path).unwrap().map(|e| e.unwrap().path()).collect();
            files.sort();
            files.iter().flat_map(|f| documents(f)).collect()
        }
        false => documents(path),
    }
}

fn of_schema<'a>(docs: &'a [Value], schema: &str) -> Vec<&'a Value> {
    docs.iter().filter(|d| d["schema"] == schema).collect()
}

/// (from, to) for every upgrade a channel entry declares (no catalog here has a skipRange).
fn edges(docs: &[Value]) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for channel in of_schema(docs, "olm.channel") {
        for e in channel["entries"].as_array().unwrap() {
            assert!(e.get("skipRange").is_none(), "the closure below reads no skipRange");
            let to = e["name"].as_str().unwrap().to_string();
            let from = e["replaces"]
                .as_str()
                .into_iter()
                .chain(e["skips"].as_array().into_iter().flatten().filter_map(Value::as_str));
            out.extend(from.map(|f| (f.to_string(), to.clone())));
        }
    }
    out
}

/// Which of `kept` each of `kept` upgrades to, in any number of steps.
fn closure(edges: &BTreeSet<(String, String)>, kept: &BTreeSet<String>) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for start in kept {
        let (mut seen, mut queue) = (BTreeSet::new(), VecDeque::from([start.clone()]));
        while let Some(at) = queue.pop_front() {
            for (_, to) in edges.iter().filter(|(f, _)| *f == at) {
                if seen.insert(to.clone()) {
                    queue.push_back(to.clone());
                    if kept.contains(to) && to != start {
                        out.insert((start.clone(), to.clone()));
                    }
                }
            }
        }
    }
    out
}

fn args_with(catalog: &Path, bundles: Option<&str>) -> Vec<String> {
    let mut args = vec!["--catalog".to_string(), catalog.display().to_string()];
    if let Some(b) = bundles {
        args.extend(["--bundles".into(), repo(b).display().to_string()]);
    }
    args
}

fn run_strings(args: &[String]) -> std::process::Output {
    run_bin(&args.iter().map(String::as_str).collect::<Vec<_>>(), "")
}

/// The bundles `catalog audit -c` passes (verdict pass, image by digest).
fn passing(catalog: &Path, bundles: Option<&str>, config: &Path, allow_tags: bool) -> BTreeSet<String> {
    let mut args = vec!["catalog".to_string(), "audit".into()];
    args.extend(args_with(catalog, bundles));
    args.extend(["-c".into(), config.display().to_string(), "-o".into(), "json".into()]);
    let rows: Value = serde_json::from_slice(&run_strings(&args).stdout).unwrap();
    let rows = rows.as_array().unwrap().iter();
    rows.filter(|r| r["verdict"] == "pass" && (allow_tags || r["pinned"] == true))
        .map(|r| r["bundle"].as_str().unwrap().to_string())
        .collect()
}

fn filter(catalog: &Path, bundles: Option<&str>, config: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["catalog".to_string(), "filter".into()];
    args.extend(args_with(catalog, bundles));
    args.extend(["-c".into(), config.display().to_string(), "-o".into(), out.display().to_string()]);
    args.extend(extra.iter().map(|a| a.to_string()));
    run_strings(&args)
}

/// One case of the property: a catalog, its bundle folders, a policy that
/// leaves some versions out, and the package and namespace to judge it in.
struct Case {
    catalog: PathBuf,
    bundles: Option<&'static str>,
    config: &'static str,
    package: &'static str,
    namespace: &'static str,
    left_out: Vec<&'static str>,
    /// `--allow-tag-images`.
    allow_tags: bool,
}

fn check(case: &Case, dir: &Path) {
    let at = format!("{}", case.catalog.display());
    let config = dir.join("rbac.yaml");
    std::fs::write(&config, case.config).unwrap();
    let passing = passing(&case.catalog, case.bundles, &config, case.allow_tags);
    let tags: &[&str] = if case.allow_tags { &["--allow-tag-images"] } else { &[] };
    let input = catalog_documents(&case.catalog);
    let all: BTreeSet<String> =
        of_schema(&input, "olm.bundle").iter().map(|b| b["name"].as_str().unwrap().into()).collect();
    let left_out: BTreeSet<String> = all.difference(&passing).cloned().collect();
    assert_eq!(left_out, case.left_out.iter().map(|s| s.to_string()).collect(), "{at}: the policy leaves these out");

    let out = dir.join("judged");
    let filtered = filter(&case.catalog, case.bundles, &config, &out, &[tags, &["--report", "json"]].concat());
    assert_eq!(filtered.status.code(), Some(0), "{at}: {}", text(&filtered.stderr));
    let output = documents(&out.join("catalog.json"));
    // Exactly the passing bundles, each as the input wrote it.
    let bundles: BTreeMap<String, &Value> =
        of_schema(&output, "olm.bundle").into_iter().map(|b| (b["name"].as_str().unwrap().into(), b)).collect();
    assert_eq!(bundles.keys().cloned().collect::<BTreeSet<_>>(), passing, "{at}");
    for b in of_schema(&input, "olm.bundle").into_iter().filter(|b| passing.contains(b["name"].as_str().unwrap())) {
        assert_eq!(bundles[b["name"].as_str().unwrap()], b, "{at}: a kept bundle is written as read");
    }
    // Entries and edges name only kept bundles, and join them as before.
    let (before, after) = (edges(&input), edges(&output));
    for (from, to) in &after {
        assert!(passing.contains(from) && passing.contains(to), "{at}: {from} -> {to} names a bundle left out");
    }
    for channel in of_schema(&output, "olm.channel") {
        for e in channel["entries"].as_array().unwrap() {
            assert!(passing.contains(e["name"].as_str().unwrap()), "{at}: {e}");
        }
    }
    assert_eq!(closure(&after, &passing), closure(&before, &passing), "{at}: upgrades between kept bundles");
    let report: Value = serde_json::from_slice(&filtered.stdout).unwrap();
    let reported: BTreeSet<String> =
        report["removed"].as_array().unwrap().iter().map(|r| r["bundle"].as_str().unwrap().into()).collect();
    assert_eq!(reported, left_out, "{at}: the report names every bundle left out");

    // catalog judge on the judged catalog, every version admitted: all pass.
    let ext = dir.join("ext.yaml");
    std::fs::write(&ext, format!("apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: {0}\nspec:\n  namespace: {1}\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: {0}\n", case.package, case.namespace)).unwrap();
    let mut args = vec!["catalog".to_string(), "judge".into()];
    args.extend(args_with(&out, case.bundles));
    args.extend(["-c".into(), config.display().to_string(), "-f".into(), ext.display().to_string()]);
    args.extend(tags.iter().map(|t| t.to_string()));
    let judged = run_strings(&args);
    assert_eq!(judged.status.code(), Some(0), "{at}: {}{}", text(&judged.stdout), text(&judged.stderr));

    // The same input and config give the same bytes.
    let again = dir.join("again");
    assert_eq!(filter(&case.catalog, case.bundles, &config, &again, tags).status.code(), Some(0));
    assert_eq!(std::fs::read(out.join("catalog.json")).unwrap(), std::fs::read(again.join("catalog.json")).unwrap());
}

/// A copy of trident's catalog with 24.6.0's image named by tag (as the
/// catalog names those of 24.10.1 and later): a middle version left out for
/// its image, whatever the policy says.
fn trident_with_a_tag(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(repo(TRIDENT)).unwrap();
    let (head, tail) = text.split_once("\nname: trident-operator.v24.6.0\n").unwrap();
    let image_at = head.rfind("\nimage: ").unwrap();
    let tagged = format!("{}\nimage: quay.io/community-operator-pipeline-prod/trident-operator:24.6.0\nname: trident-operator.v24.6.0\n{tail}", &head[..image_at]);
    let path = dir.join("trident-tagged.yaml");
    std::fs::write(&path, tagged).unwrap();
    path
}

#[test]
fn the_judged_catalog_keeps_exactly_what_passes_and_every_upgrade_between_them() {
    let dir = tempfile::tempdir().unwrap();
    let kube_green = |catalog: &str, bundles| Case {
        catalog: repo(catalog),
        bundles,
        config: KUBE_GREEN_CONFIG,
        package: "kube-green",
        namespace: "kube-green",
        left_out: vec!["kube-green.v0.6.0"],
        allow_tags: false,
    };
    let trident = |catalog: PathBuf, left_out, allow_tags| Case {
        catalog,
        bundles: None,
        config: TRIDENT_CONFIG,
        package: "trident-operator",
        namespace: "trident",
        left_out,
        allow_tags,
    };
    // The catalog names 24.10.1's image and every later one by tag.
    const TAGGED: [&str; 9] = [
        "trident-operator.v24.10.1",
        "trident-operator.v25.10.0",
        "trident-operator.v25.2.0",
        "trident-operator.v25.2.1",
        "trident-operator.v25.6.0",
        "trident-operator.v25.6.1",
        "trident-operator.v25.6.2",
        "trident-operator.v26.2.0",
        "trident-operator.v26.2.1",
    ];
    let with_24_6_0 = [&TAGGED[..], &["trident-operator.v24.6.0"]].concat();
    // With tags accepted, the policy leaves out 25.6.0 and later.
    let policy_only = TAGGED[1..].iter().copied().filter(|b| !b.contains("25.2.")).collect();
    let cases = [
        kube_green(KUBE_GREEN, None),
        kube_green(METADATA_ONLY, Some(BUNDLES)),
        trident(repo(TRIDENT), TAGGED.to_vec(), false),
        trident(repo(TRIDENT), policy_only, true),
        trident(trident_with_a_tag(dir.path()), with_24_6_0, false),
    ];
    for (i, case) in cases.iter().enumerate() {
        let case_dir = dir.path().join(format!("case-{i}"));
        std::fs::create_dir_all(&case_dir).unwrap();
        check(case, &case_dir);
    }
}

/// kube-green's catalog with `channels` (YAML documents) in place of its
/// own: its package document (default channel `alpha`), then the channels,
/// then its ten bundles as written.
fn kube_green_with(dir: &Path, channels: &str) -> PathBuf {
    let text = std::fs::read_to_string(repo(KUBE_GREEN)).unwrap();
    let (package, rest) = text.split_once("schema: olm.package\n").unwrap();
    let (_, bundles) = rest.split_once("schema: olm.channel\n").unwrap();
    let path = dir.join("catalog.yaml");
    std::fs::write(&path, format!("{package}schema: olm.package\n{channels}{bundles}")).unwrap();
    path
}

/// A channel document: each entry `name[<replaces][!skip,skip][~skipRange]`, versions only.
fn channel(name: &str, entries: &[&str]) -> String {
    let mut out = String::from("---\nschema: olm.channel\npackage: kube-green\nname: ");
    out.push_str(name);
    out.push_str("\nentries:\n");
    for e in entries {
        let (e, range) = e.split_once('~').map_or((*e, None), |(e, r)| (e, Some(r)));
        let (e, skips) = e.split_once('!').map_or((e, None), |(e, s)| (e, Some(s)));
        let (e, replaces) = e.split_once('<').map_or((e, None), |(e, r)| (e, Some(r)));
        out.push_str(&format!("- name: kube-green.v{e}\n"));
        if let Some(r) = replaces {
            out.push_str(&format!("  replaces: kube-green.v{r}\n"));
        }
        if let Some(s) = skips {
            let names: Vec<String> = s.split(',').map(|s| format!("kube-green.v{s}")).collect();
            out.push_str(&format!("  skips: [{}]\n", names.join(", ")));
        }
        if let Some(r) = range {
            out.push_str(&format!("  skipRange: '{r}'\n"));
        }
    }
    out
}

const CHAIN_TO_0_5_2: [&str; 7] =
    ["0.3.0", "0.3.1<0.3.0", "0.4.0<0.3.1", "0.4.1<0.4.0", "0.5.0<0.4.1", "0.5.1<0.5.0", "0.5.2<0.5.1"];

/// Runs the filter on `catalog` with kube-green's policy, into a new folder.
fn filter_kube_green(dir: &Path, catalog: &Path) -> (std::process::Output, PathBuf) {
    let config = dir.join("rbac.yaml");
    std::fs::write(&config, KUBE_GREEN_CONFIG).unwrap();
    let out = dir.join("judged");
    (filter(catalog, None, &config, &out, &[]), out)
}

/// 0.5.1 is upgraded from only by 0.6.0, which skips it and which the
/// policy leaves out: 0.7.0 now skips it, and replaces what 0.6.0 replaced.
/// What still reaches 0.7.0 through kept bundles gets no new edge.
#[test]
fn a_bundle_reached_only_through_a_left_out_one_is_joined_to_the_next_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut entries = CHAIN_TO_0_5_2[..5].to_vec();
    entries.extend(["0.5.1", "0.5.2<0.5.0", "0.6.0<0.5.2!0.5.1", "0.7.0<0.6.0", "0.7.1<0.7.0"]);
    let catalog = kube_green_with(dir.path(), &channel("alpha", &entries));
    let (out, folder) = filter_kube_green(dir.path(), &catalog);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let docs = documents(&folder.join("catalog.json"));
    let alpha = of_schema(&docs, "olm.channel")[0];
    let entry = alpha["entries"].as_array().unwrap().iter().find(|e| e["name"] == "kube-green.v0.7.0").unwrap();
    let want = serde_json::json!({"name": "kube-green.v0.7.0", "replaces": "kube-green.v0.5.2", "skips": ["kube-green.v0.5.1"]});
    assert_eq!(entry, &want);
    assert!(text(&out.stdout).contains(
        "rewired   kube-green  channel alpha: kube-green.v0.7.0 replaces kube-green.v0.5.2 (was kube-green.v0.6.0); skips kube-green.v0.5.1 too"
    ), "{}", text(&out.stdout));
}

/// Each hostile catalog gets a clear error and nothing written: never a
/// catalog that lets an unjudged bundle in.
#[test]
fn a_catalog_that_cannot_be_filtered_as_opm_expects_is_refused_and_nothing_is_written() {
    let all_in_beta = |first: &str| {
        let mut beta = CHAIN_TO_0_5_2.to_vec();
        beta.extend(["0.7.0<0.5.2", "0.7.1<0.7.0"]);
        channel("alpha", &[first]) + &channel("beta", &beta)
    };
    let mut two_heads = CHAIN_TO_0_5_2.to_vec();
    two_heads.extend(["0.7.0", "0.6.0<0.5.2!0.7.0"]);
    let mut cycle = CHAIN_TO_0_5_2.to_vec();
    cycle[0] = "0.3.0<0.7.1";
    cycle.extend(["0.6.0<0.5.2", "0.7.0<0.6.0", "0.7.1<0.7.0"]);
    let mut absent = CHAIN_TO_0_5_2.to_vec();
    absent.extend(["0.6.0<0.5.2", "0.7.0<0.6.0", "0.7.1<0.7.0", "9.9.9<0.7.1"]);
    let cases: [(String, i32, &str); 5] = [
        (
            all_in_beta("0.6.0"),
            1,
            "package \"kube-green\": its default channel \"alpha\" keeps no bundle that passes, while channel(s) beta do",
        ),
        (
            channel("alpha", &two_heads) + &channel("beta", &["0.7.1"]),
            1,
            "channel \"alpha\" of package \"kube-green\": with the failing bundles removed, opm would refuse it: multiple channel heads found in graph: kube-green.v0.5.2, kube-green.v0.7.0",
        ),
        (channel("alpha", &cycle), 2, "no channel head found in graph; opm refuses such a catalog"),
        (channel("alpha", &absent), 2, "entries: \"kube-green.v9.9.9\" names no olm.bundle of the package"),
        (channel("alpha", &CHAIN_TO_0_5_2), 2, "olm.bundle \"kube-green.v0.6.0\" of package \"kube-green\": in no channel; opm refuses such a catalog"),
    ];
    for (channels, code, said) in cases {
        let dir = tempfile::tempdir().unwrap();
        let catalog = kube_green_with(dir.path(), &channels);
        let (out, folder) = filter_kube_green(dir.path(), &catalog);
        assert_eq!(out.status.code(), Some(code), "{channels}\n{}", text(&out.stderr));
        assert!(text(&out.stderr).contains(said), "{}", text(&out.stderr));
        assert!(!folder.exists(), "nothing is written: {}", folder.display());
    }
    // A bundle named twice, and YAML alias trees: refused as read.
    let dir = tempfile::tempdir().unwrap();
    let text_of = std::fs::read_to_string(repo(KUBE_GREEN)).unwrap();
    let twice = dir.path().join("twice.yaml");
    let last = text_of.rfind("---\nimage:").unwrap();
    std::fs::write(&twice, format!("{text_of}{}", &text_of[last..])).unwrap();
    // A bundle whose olm.package property names another package than its own.
    let other = dir.path().join("other.yaml");
    std::fs::write(&other, text_of.replacen("packageName: kube-green\n", "packageName: other\n", 1)).unwrap();
    // Documents operator-controller would file as another package's, schema's
    // or name's (it files each at <package>/<schema>/<name>.json, the path
    // cleaned), and a second channel of one name (it keeps only the last).
    let bundle_06 = {
        let start = text_of.find("\n---\nimage: ").unwrap();
        let docs: Vec<&str> = text_of[start..].split("\n---\n").collect();
        docs.iter().find(|d| d.contains("\nname: kube-green.v0.6.0\n")).unwrap().to_string()
    };
    let filed_elsewhere = [
        format!(
            "---\nschema: olm.package\nname: kube-green/\ndefaultChannel: alpha\n---\n{}\n",
            bundle_06.replace("\npackage: kube-green\n", "\npackage: kube-green/\n")
        ),
        "---\nschema: olm.channel/.\npackage: kube-green\nname: alpha\n".to_string(),
        "---\nschema: olm.channel\npackage: kube-green\nname: ../../kube-green/olm.channel/alpha\nentries: []\n"
            .to_string(),
        "---\nschema: olm.channel\npackage: kube-green\nname: alpha\nentries:\n- name: kube-green.v0.6.0\n".to_string(),
    ];
    let mut refused_as_read = vec![twice, other, repo("tests/fixtures/catalogs/hostile-alias-trees/catalog.yaml")];
    for (i, extra) in filed_elsewhere.iter().enumerate() {
        let path = dir.path().join(format!("filed-{i}.yaml"));
        std::fs::write(&path, format!("{text_of}{extra}")).unwrap();
        refused_as_read.push(path);
    }
    for catalog in refused_as_read {
        let (out, folder) = filter_kube_green(dir.path(), &catalog);
        assert_eq!(out.status.code(), Some(2), "{}: {}", catalog.display(), text(&out.stderr));
        assert!(!folder.exists());
    }
}

/// opm serves every file of a catalog's folder: the filter writes only into
/// one that holds nothing else, and leaves such a folder as it was.
#[test]
fn the_output_folder_must_hold_nothing_but_the_judged_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, KUBE_GREEN_CONFIG).unwrap();
    let out = dir.path().join("judged");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("unjudged.yaml"), "schema: olm.package\nname: other\n").unwrap();
    let refused = filter(&repo(KUBE_GREEN), None, &config, &out, &[]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains(
            "holds unjudged.yaml beside catalog.json; opm would serve every file of the folder with the judged catalog"
        ),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(snapshot(&out).keys().collect::<Vec<_>>(), ["unjudged.yaml"]);
    // Written again over its own catalog.json, the same bytes.
    std::fs::remove_file(out.join("unjudged.yaml")).unwrap();
    assert_eq!(filter(&repo(KUBE_GREEN), None, &config, &out, &[]).status.code(), Some(0));
    let first = std::fs::read(out.join("catalog.json")).unwrap();
    assert_eq!(filter(&repo(KUBE_GREEN), None, &config, &out, &[]).status.code(), Some(0));
    assert_eq!(std::fs::read(out.join("catalog.json")).unwrap(), first);
    assert_eq!(snapshot(&out).len(), 1, "no partial file is left behind");
}

/// `olm.deprecations` keeps what still names something (opm refuses an
/// entry naming a bundle or channel the catalog lacks); a document of
/// another schema is served as written.
#[test]
fn deprecations_of_left_out_bundles_go_and_other_documents_stay() {
    let dir = tempfile::tempdir().unwrap();
    let mut entries = CHAIN_TO_0_5_2.to_vec();
    entries.extend(["0.6.0<0.5.2", "0.7.0<0.6.0", "0.7.1<0.7.0"]);
    let extra = "---\nschema: olm.deprecations\npackage: kube-green\nentries:\n- reference: {schema: olm.bundle, name: kube-green.v0.6.0}\n  message: broken\n- reference: {schema: olm.bundle, name: kube-green.v0.5.0}\n  message: old\n- reference: {schema: olm.package}\n  message: moving\n---\nschema: example.com.notes\npackage: kube-green\nnote: kept as written\n";
    let catalog = kube_green_with(dir.path(), &(channel("alpha", &entries) + extra));
    let (out, folder) = filter_kube_green(dir.path(), &catalog);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let docs = documents(&folder.join("catalog.json"));
    let deprecations = of_schema(&docs, "olm.deprecations");
    let names: Vec<&str> =
        deprecations[0]["entries"].as_array().unwrap().iter().map(|e| e["message"].as_str().unwrap()).collect();
    assert_eq!(names, ["old", "moving"]);
    assert_eq!(of_schema(&docs, "example.com.notes")[0]["note"], "kept as written");
}

/// A ClusterCatalog serving the judged catalog, pinned by digest.
const JUDGED_CATALOG_OBJECT: &str = "apiVersion: olm.operatorframework.io/v1\nkind: ClusterCatalog\nmetadata:\n  name: judged\nspec:\n  source:\n    type: Image\n    image:\n      ref: registry.example.com/judged-catalog@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n";

fn ranged_extension(range: &str) -> String {
    format!("apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: kube-green\nspec:\n  namespace: kube-green\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: kube-green\n      version: {range:?}\n      selector:\n        matchLabels:\n          olm.operatorframework.io/metadata.name: judged\n")
}

/// render of kube-green 0.7.0 with a ClusterExtension whose range is
/// `range`, with `judged` as the judged catalog (none when `None`).
fn render_ranged(dir: &Path, range: &str, judged: Option<&Path>, with_catalog: bool) -> std::process::Output {
    render_ranged_with(dir, range, judged, with_catalog, &[])
}

/// [`render_ranged`], with more arguments.
fn render_ranged_with(
    dir: &Path,
    range: &str,
    judged: Option<&Path>,
    with_catalog: bool,
    more: &[String],
) -> std::process::Output {
    let config = dir.join("render-rbac.yaml");
    std::fs::write(&config, KUBE_GREEN_CONFIG.to_string() + "  admissionPolicy: Generate\n").unwrap();
    let ext = dir.join("ext.yaml");
    std::fs::write(&ext, ranged_extension(range)).unwrap();
    let catalog = dir.join("clustercatalog.yaml");
    std::fs::write(&catalog, JUDGED_CATALOG_OBJECT).unwrap();
    let mut args = vec!["render".to_string(), "-c".into(), config.display().to_string(), ext.display().to_string()];
    if with_catalog {
        args.push(catalog.display().to_string());
    }
    args.push(repo(&format!("{BUNDLES}/kube-green/0.7.0")).display().to_string());
    if let Some(j) = judged {
        args.extend(["--judged-catalog".into(), j.display().to_string()]);
    }
    args.extend(more.iter().cloned());
    run_strings(&args)
}

/// A judged catalog without manifests (as every current community catalog
/// is): render reads its bundles from `--bundles` as the catalog commands do,
/// and says which flag is missing when none is given; `--bundles` without
/// `--judged-catalog` reads nothing, and says so.
#[test]
fn render_reads_a_judged_catalogs_bundles_from_bundles() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, KUBE_GREEN_CONFIG).unwrap();
    let judged = dir.path().join("judged");
    let filtered = filter(&repo(METADATA_ONLY), Some(BUNDLES), &config, &judged, &[]);
    assert_eq!(filtered.status.code(), Some(0), "{}", text(&filtered.stderr));
    let bundles = vec!["--bundles".to_string(), repo(BUNDLES).display().to_string()];
    let out = render_ranged_with(dir.path(), ">=0.5.0", Some(&judged), true, &bundles);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("\">=0.5.0\" admits 5 bundle(s) of the judged catalog"),
        "{}",
        text(&out.stderr)
    );
    let without = render_ranged(dir.path(), ">=0.5.0", Some(&judged), true);
    assert_eq!(without.status.code(), Some(1));
    assert!(text(&without.stderr).contains("and no --bundles were given"), "{}", text(&without.stderr));
    let stray = render_ranged_with(dir.path(), ">=0.5.0", None, true, &bundles);
    assert_eq!(stray.status.code(), Some(2));
    assert!(
        text(&stray.stderr).contains("--bundles reads the bundles of --judged-catalog, and none is given"),
        "{}",
        text(&stray.stderr)
    );
}

/// With the judged catalog, a range whose every bundle passes is accepted,
/// and the admission policy holds the extension to that range and catalog:
/// what the cluster admits is checked by `can-install` on the output.
/// Without it, with the unfiltered catalog, or without the ClusterCatalog
/// pinned in the input, the exact-version rule stands.
#[test]
fn a_range_is_accepted_against_the_judged_catalog_and_held_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let (filtered, judged) = filter_kube_green(dir.path(), &repo(KUBE_GREEN));
    assert_eq!(filtered.status.code(), Some(0));
    let out = render_ranged(dir.path(), ">=0.5.0", Some(&judged), true);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("\">=0.5.0\" admits 5 bundle(s) of the judged catalog"),
        "{}",
        text(&out.stderr)
    );
    let rendered = dir.path().join("rendered.yaml");
    std::fs::write(&rendered, &out.stdout).unwrap();
    let admin = |range: &str| {
        let ext = dir.path().join("ask.yaml");
        std::fs::write(&ext, ranged_extension(range)).unwrap();
        let args = [
            "can-install",
            ext.to_str().unwrap(),
            "--as",
            "admin",
            "--as-group",
            "system:masters",
            "-f",
            rendered.to_str().unwrap(),
            "--operation",
            "create",
        ];
        run_bin(&args, "").status.code()
    };
    assert_eq!(admin(">=0.5.0"), Some(0), "the judged range is admitted");
    assert_eq!(admin(">=0.4.0"), Some(1), "a wider range is refused");
    assert_eq!(admin("0.6.0"), Some(1), "another version is refused");

    // The unfiltered catalog: 0.6.0 is in the range and fails.
    let unfiltered = render_ranged(dir.path(), ">=0.5.0", Some(&repo(KUBE_GREEN)), true);
    assert_eq!(unfiltered.status.code(), Some(1));
    assert!(text(&unfiltered.stderr).contains("admits bundles of the judged catalog"), "{}", text(&unfiltered.stderr));
    assert!(text(&unfiltered.stderr).contains("kube-green.v0.6.0: "), "{}", text(&unfiltered.stderr));
    // No judged catalog: a range is not one judged version.
    let none = render_ranged(dir.path(), ">=0.5.0", None, true);
    assert_eq!(none.status.code(), Some(1));
    assert!(text(&none.stderr).contains("admits versions besides 0.7.0"), "{}", text(&none.stderr));
    // The ClusterCatalog not in the input: its content cannot be tied to the judged catalog.
    let unpinned = render_ranged(dir.path(), ">=0.5.0", Some(&judged), false);
    assert_eq!(unpinned.status.code(), Some(1));
    assert!(
        text(&unpinned.stderr).contains("a version range is accepted only from the judged catalog"),
        "{}",
        text(&unpinned.stderr)
    );
}

/// The config render uses (with `admissionPolicy: Generate`) judges a
/// catalog's bundles as the same config without it: the admission policy is
/// about render's own ClusterExtension, which a catalog's bundle has none of.
#[test]
fn the_renders_own_config_judges_a_catalog_as_without_its_admission_policy() {
    let dir = tempfile::tempdir().unwrap();
    let verdicts = |config: &str| {
        let path = dir.path().join("rbac.yaml");
        std::fs::write(&path, config).unwrap();
        let mut args = vec!["catalog".to_string(), "audit".into()];
        args.extend(args_with(&repo(KUBE_GREEN), None));
        args.extend(["-c".into(), path.display().to_string(), "-o".into(), "json".into()]);
        let rows: Value = serde_json::from_slice(&run_strings(&args).stdout).unwrap();
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| (r["bundle"].clone(), r["verdict"].clone(), r["errors"].clone()))
            .collect::<Vec<_>>()
    };
    let plain = verdicts(KUBE_GREEN_CONFIG);
    assert_eq!(plain.iter().filter(|(_, v, _)| v == "pass").count(), 9);
    assert_eq!(verdicts(&(KUBE_GREEN_CONFIG.to_string() + "  admissionPolicy: Generate\n")), plain);
}

#[test]
fn the_json_report_has_the_committed_shape() {
    let committed =
        committed_schema("docs/catalog-filter.schema.json", &olm_rbac::catalog::filter_json_schema(), "catalog-filter");
    let schema: Value = serde_json::from_str(&committed).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, KUBE_GREEN_CONFIG).unwrap();
    let out = filter(&repo(KUBE_GREEN), None, &config, &dir.path().join("judged"), &["--report", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["removed"][0]["code"], "catalog-bundle-fails");
    assert_eq!(report["rewired"][0]["replaces"], "kube-green.v0.5.2");
    let errors: Vec<_> = crate::json_schema::Validator::new(&schema).unwrap().iter_errors(&report).collect();
    assert!(errors.is_empty(), "{errors:?}");
    // SARIF: one result per bundle left out and per entry rewired, each at its rule.
    let sarif = filter(&repo(KUBE_GREEN), None, &config, &dir.path().join("judged"), &["--report", "sarif"]);
    let log: Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let rules: Vec<&str> =
        log["runs"][0]["results"].as_array().unwrap().iter().map(|r| r["ruleId"].as_str().unwrap()).collect();
    assert_eq!(rules, ["catalog-bundle-fails", "catalog-edge-rewired"]);
}

/// Issue 49: one unservable package does not cost the others their judged
/// bundles. kube-green's default channel keeps no bundle (its one entry is a
/// tag image, left out) while its beta channel keeps bundles: OLM v1 would
/// install from an empty default channel, so the package is left out whole,
/// named with why; trident's passing bundles are written, exit 0.
#[test]
fn an_unservable_package_is_left_out_whole_and_the_rest_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    std::fs::create_dir(&catalog).unwrap();
    let mut beta = CHAIN_TO_0_5_2.to_vec();
    beta.extend(["0.7.0<0.5.2", "0.7.1<0.7.0"]);
    let kube_green = kube_green_with(dir.path(), &(channel("alpha", &["0.6.0"]) + &channel("beta", &beta)));
    let tagged = std::fs::read_to_string(&kube_green).unwrap().replace(
        "image: quay.io/community-operator-pipeline-prod/kube-green@sha256:5454491ad316d474619cc0574d8238cac793f8677ae265501beb3c87c9f2b0a6\n",
        "image: quay.io/community-operator-pipeline-prod/kube-green:0.6.0\n",
    );
    std::fs::write(catalog.join("kube-green.yaml"), tagged).unwrap();
    std::fs::copy(repo(TRIDENT), catalog.join("trident.yaml")).unwrap();
    let config = dir.path().join("rbac.yaml");
    std::fs::write(&config, TRIDENT_CONFIG).unwrap();
    let out_dir = dir.path().join("judged");
    let out = filter(&catalog, None, &config, &out_dir, &["--report", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["refusedPackages"][0]["package"], "kube-green");
    assert_eq!(report["refusedPackages"][0]["code"], "catalog-package-left-out");
    let why = report["refusedPackages"][0]["why"].as_str().unwrap();
    assert!(
        why.contains("its default channel \"alpha\" keeps no bundle that passes, while channel(s) beta do"),
        "{why}"
    );
    let docs = documents(&out_dir.join("catalog.json"));
    let packages: Vec<&str> = of_schema(&docs, "olm.package").iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(packages, ["trident-operator"]);
    assert!(of_schema(&docs, "olm.bundle").iter().all(|b| b["package"] == "trident-operator"));
    assert_eq!(of_schema(&docs, "olm.bundle").len(), report["kept"].as_u64().unwrap() as usize);
}
