//! Bundles judged from what OLM installs: the bundle image of the digest the
//! catalog names (OCI image layouts under `--bundles`, or pulled with
//! `--pull`), a folder only where no such image is given, and the catalog's
//! own copy only where neither is; where the catalog carries manifests and an
//! image or folder is given too, they must agree or the bundle is unjudged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::*;
use crate::registry::{Registry, SKOPEO};
use olm_rbac::image::{
    write_image, Client, Compression, Digest, Entry, Format, ImageSpec, Layer, Options, Platform, Reference, Store,
};
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

const METADATA_ONLY: &str = "tests/fixtures/catalogs/csv-metadata-only/catalog/kube-green.yaml";
const VERSIONS: [&str; 10] = ["0.3.0", "0.3.1", "0.4.0", "0.4.1", "0.5.0", "0.5.1", "0.5.2", "0.6.0", "0.7.0", "0.7.1"];
/// Denies creating ClusterRoles: kube-green 0.6.0 ships them, its neighbours do not.
const CONFIG: &str = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: kube-green\nspec:\n  mode: Aggregate\n  operator:\n    installNamespace: kube-green\n    policy:\n      deny:\n      - {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles, clusterrolebindings], verbs: [create, bind, escalate], scope: Cluster}\n";

/// The files of a bundle folder as one layer: `manifests/` and `metadata/`
/// (and its `tests/`, which OLM does not read), as a bundle image holds them.
fn bundle_layer(folder: &Path) -> Layer {
    let mut entries = Vec::new();
    for part in ["manifests", "metadata", "tests/scorecard"] {
        let dir = folder.join(part);
        let Ok(files) = std::fs::read_dir(&dir) else { continue };
        entries.push(Entry::Dir { path: part.into() });
        let mut files: Vec<_> = files.map(|f| f.unwrap().path()).filter(|p| p.is_file()).collect();
        files.sort();
        for file in files {
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            entries.push(Entry::File { path: format!("{part}/{name}"), contents: std::fs::read(&file).unwrap() });
        }
    }
    Layer { entries }
}

fn spec(layers: Vec<Layer>) -> ImageSpec {
    ImageSpec {
        layers,
        labels: Default::default(),
        platform: Platform::default(),
        compression: Compression::Gzip,
        format: Format::Oci,
    }
}

/// Writes kube-green `version`'s bundle folder as an image in `layout`, with `more` layers on top.
fn bundle_image(layout: &Path, version: &str, more: Vec<Layer>) -> Digest {
    let folder = repo(&format!("{FOLDERS}/kube-green/{version}"));
    let layers = std::iter::once(bundle_layer(&folder)).chain(more).collect();
    write_image(layout, &spec(layers), Some(version)).unwrap()
}

/// The metadata-only catalog with each bundle's image named `repository@digest`.
fn catalog_naming(dir: &Path, repository: &str, digests: &BTreeMap<&str, Digest>) -> String {
    let text = std::fs::read_to_string(repo(METADATA_ONLY)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let version = lines.get(i + 1).and_then(|next| next.strip_prefix("name: kube-green.v"));
        match (line.starts_with("image: "), version.and_then(|v| digests.get(v))) {
            (true, Some(digest)) => out.push_str(&format!("image: {repository}@{digest}\n")),
            _ => out.push_str(&format!("{line}\n")),
        }
    }
    let path = dir.join("catalog.yaml");
    std::fs::write(&path, out).unwrap();
    path.display().to_string()
}

/// Every kube-green version as an image in one layout, and the catalog naming them.
fn images_and_catalog(dir: &Path) -> (PathBuf, String, BTreeMap<&'static str, Digest>) {
    let layout = dir.join("images");
    let digests: BTreeMap<&str, Digest> = VERSIONS.iter().map(|v| (*v, bundle_image(&layout, v, Vec::new()))).collect();
    let catalog = catalog_naming(dir, "quay.io/example/kube-green", &digests);
    (layout, catalog, digests)
}

fn config_file(dir: &Path) -> String {
    let path = dir.join("rbac.yaml");
    std::fs::write(&path, CONFIG).unwrap();
    path.display().to_string()
}

/// Real community bundles (kube-green 0.3.0 to 0.7.1) as images behind a
/// catalog without manifests judge as their folders do, each row from its
/// image; a layout per image, found under a folder, reads the same.
#[test]
fn bundle_images_judge_as_their_folders_do() {
    let dir = tempfile::tempdir().unwrap();
    let (layout, catalog, digests) = images_and_catalog(dir.path());
    let config = config_file(dir.path());
    let (code, from_folders, _) = audit(
        &repo(METADATA_ONLY).display().to_string(),
        &["--bundles", &repo(FOLDERS).display().to_string(), "-c", &config],
    );
    assert_eq!(code, Some(1), "0.6.0 fails the policy");
    let (code, from_images, stderr) = audit(&catalog, &["--bundles", layout.to_str().unwrap(), "-c", &config]);
    assert_eq!(code, Some(1), "{stderr}");
    let verdicts = |rows: &[Value]| summary(rows).into_iter().map(|(v, verdict, _)| (v, verdict)).collect::<Vec<_>>();
    assert_eq!(verdicts(&from_images), verdicts(&from_folders));
    assert_eq!(verdicts(&from_images).iter().filter(|(_, v)| v == "fail").count(), 1);
    assert!(summary(&from_images).iter().all(|(_, _, source)| source == "image"), "{from_images:?}");
    // One layout per image, under a folder: found two levels down.
    let apart = dir.path().join("apart");
    for version in VERSIONS {
        assert_eq!(&bundle_image(&apart.join("quay").join(version), version, Vec::new()), &digests[version]);
    }
    let (_, from_apart, _) = audit(&catalog, &["--bundles", apart.to_str().unwrap(), "-c", &config]);
    assert_eq!(summary(&from_apart), summary(&from_images));
}

/// Every blob is checked against its digest: a flipped byte in a layer, a
/// manifest blob holding another manifest's bytes, and a catalog naming a
/// digest no layout holds leave the bundle unjudged (exit 1), never passed.
#[test]
fn a_tampered_image_or_another_digest_is_unjudged() {
    let dir = tempfile::tempdir().unwrap();
    let (layout, catalog, digests) = images_and_catalog(dir.path());
    let row_of = |rows: &[Value], version: &str| rows.iter().find(|r| r["version"] == version).cloned().unwrap();
    // A flipped byte in 0.5.2's layer.
    let manifest: Value = serde_json::from_slice(&std::fs::read(blob(&layout, &digests["0.5.2"])).unwrap()).unwrap();
    let layer = Digest::parse(manifest["layers"][0]["digest"].as_str().unwrap()).unwrap();
    let mut bytes = std::fs::read(blob(&layout, &layer)).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(blob(&layout, &layer), &bytes).unwrap();
    // 0.7.0's manifest blob holds 0.7.1's manifest.
    std::fs::copy(blob(&layout, &digests["0.7.1"]), blob(&layout, &digests["0.7.0"])).unwrap();
    let (code, rows, _) = audit(&catalog, &["--bundles", layout.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    for version in ["0.5.2", "0.7.0"] {
        let row = row_of(&rows, version);
        assert_eq!((row["verdict"].as_str(), row["source"].as_str()), (Some("unjudged"), Some("image")), "{row}");
        let why = row["errors"][0].as_str().unwrap();
        assert!(why.contains("cannot be read as OLM reads it") && why.contains("sha256:"), "{why}");
    }
    assert_eq!(row_of(&rows, "0.5.1")["verdict"], "pass");
    // A catalog naming a digest no layout holds: another image is not it.
    let mut other = digests.clone();
    other.insert("0.5.1", Digest::of(b"not an image"));
    let renamed = tempfile::tempdir().unwrap();
    let catalog = catalog_naming(renamed.path(), "quay.io/example/kube-green", &other);
    let (_, rows, _) = audit(&catalog, &["--bundles", layout.to_str().unwrap()]);
    let row = row_of(&rows, "0.5.1");
    assert_eq!((row["verdict"].as_str(), row["source"].as_str()), (Some("unjudged"), None), "{row}");
    assert!(row["errors"][0].as_str().unwrap().contains("--bundles holds no image of its digest"), "{row}");
}

fn blob(layout: &Path, digest: &Digest) -> PathBuf {
    layout.join("blobs/sha256").join(digest.hex())
}

/// The layers are applied in order: a ClusterRole the policy denies, added
/// by a second layer, fails the bundle; whited out by a third, it is gone.
/// A link in `manifests/` is unjudged; an image without
/// `metadata/annotations.yaml` is uninstallable, as OLM v1 refuses it.
#[test]
fn layers_apply_in_order_and_what_olm_refuses_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let layout = dir.path().join("images");
    // The CSV replaced by one whose operator asks to create ClusterRoles, which the policy denies.
    let csv = "manifests/kube-green.clusterserviceversion.yaml";
    let original = std::fs::read_to_string(repo(&format!("{FOLDERS}/kube-green/0.5.0/{csv}"))).unwrap();
    let asking = original.replacen(
        "      - rules:\n",
        "      - rules:\n        - {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [create]}\n",
        1,
    );
    assert_ne!(asking, original);
    let replaced = Layer { entries: vec![Entry::File { path: csv.into(), contents: asking.into() }] };
    // A Pod, which a registry+v1 bundle may not hold, added and then whited out.
    let pod =
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: extra\nspec:\n  containers:\n  - name: c\n    image: busybox\n";
    let added = Layer { entries: vec![Entry::File { path: "manifests/pod.yaml".into(), contents: pod.into() }] };
    let whiteout = Layer { entries: vec![Entry::Whiteout { path: "manifests/pod.yaml".into() }] };
    let link =
        Layer { entries: vec![Entry::Symlink { path: "manifests/service.yaml".into(), target: "/etc/passwd".into() }] };
    let bare = Layer { entries: vec![Entry::Whiteout { path: "metadata".into() }] };
    let cases: [(&str, Vec<Layer>, &str); 7] = [
        ("0.5.0", vec![replaced], "fail"),
        ("0.4.0", vec![added.clone()], "uninstallable"),
        ("0.4.1", vec![added, whiteout], "pass"),
        ("0.5.1", Vec::new(), "pass"),
        ("0.5.2", vec![link], "unjudged"),
        ("0.7.0", vec![bare], "uninstallable"),
        ("0.7.1", Vec::new(), "pass"),
    ];
    let digests: BTreeMap<&str, Digest> =
        cases.iter().map(|(v, layers, _)| (*v, bundle_image(&layout, v, layers.clone()))).collect();
    let catalog = catalog_naming(dir.path(), "quay.io/example/kube-green", &digests);
    let config = config_file(dir.path());
    let (_, rows, _) = audit(&catalog, &["--bundles", layout.to_str().unwrap(), "-c", &config]);
    for (version, _, verdict) in &cases {
        let row = rows.iter().find(|r| r["version"] == *version).unwrap();
        assert_eq!(row["verdict"], *verdict, "{version}: {row}");
    }
    let why = |v: &str| rows.iter().find(|r| r["version"] == v).unwrap()["errors"].to_string();
    assert!(why("0.5.2").contains("link"), "{}", why("0.5.2"));
    assert!(why("0.7.0").contains("no metadata/annotations.yaml"), "{}", why("0.7.0"));
}

/// Pushes every image of `layout` named in `digests` to the registry under
/// `repository`, tagged with its version.
fn push_all(layout: &Path, registry: &Registry, digests: &BTreeMap<&str, Digest>) {
    let store = Store::open_or_create(layout).unwrap();
    let mut client = Client::new(Options { tls_verify: true });
    for (version, digest) in digests {
        let reference = Reference::parse(&format!("{}/kube-green/bundle:v{version}", registry.host())).unwrap();
        assert_eq!(&store.push(&mut client, digest, &reference).unwrap(), digest);
    }
}

/// `--pull` fetches each bundle image by digest from a real registry into
/// the image cache and judges it as from a layout; a second run, with the
/// registry stopped, works from the cache alone. A registry that cannot be
/// reached leaves the bundle unjudged, never passed.
#[test]
fn pulled_images_judge_as_layouts_and_a_second_run_needs_no_registry() {
    let Some(mut registry) = Registry::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (layout, _, digests) = images_and_catalog(dir.path());
    push_all(&layout, &registry, &digests);
    let catalog = catalog_naming(dir.path(), &format!("{}/kube-green/bundle", registry.host()), &digests);
    let config = config_file(dir.path());
    let cache = dir.path().join("cache");
    let pull = ["--pull", "--image-cache", cache.to_str().unwrap(), "-c", &config];
    let (code, pulled, stderr) = audit(&catalog, &pull);
    assert_eq!(code, Some(1), "{stderr}");
    let (_, from_layout, _) = audit(&catalog, &["--bundles", layout.to_str().unwrap(), "-c", &config]);
    assert_eq!(summary(&pulled), summary(&from_layout));
    assert_eq!(summary(&pulled).iter().filter(|(_, v, _)| v == "pass").count(), 9, "{pulled:?}");
    // A blob damaged in the cache is fetched again, and the bundle judged as before.
    let cache_layout = Store::open_or_create(&cache).unwrap();
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(cache_layout.blob_path(&digests["0.6.0"])).unwrap()).unwrap();
    let layer = Digest::parse(manifest["layers"][0]["digest"].as_str().unwrap()).unwrap();
    std::fs::write(cache_layout.blob_path(&layer), b"damaged").unwrap();
    let (_, healed, stderr) = audit(&catalog, &pull);
    assert_eq!(summary(&healed), summary(&pulled), "{stderr}");
    assert_ne!(std::fs::read(cache_layout.blob_path(&layer)).unwrap(), b"damaged");
    registry.stop();
    let (code, again, stderr) = audit(&catalog, &pull);
    assert_eq!((code, summary(&again)), (Some(1), summary(&pulled)), "{stderr}");
    // Not in the cache, and the registry is gone: unjudged, saying why.
    let empty = dir.path().join("empty-cache");
    let (_, unreachable, _) = audit(&catalog, &["--pull", "--image-cache", empty.to_str().unwrap()]);
    assert!(unreachable.iter().all(|r| r["verdict"] == "unjudged"), "{unreachable:?}");
    let why = unreachable[0]["errors"][0].as_str().unwrap();
    assert!(why.contains("could not be pulled") && why.contains(&registry.host()), "{why}");
}

/// `catalog filter --image-layout` writes the judged catalog as an image
/// catalogd serves: one layer with the catalog under /configs, the label
/// catalogd reads, the same digest for the same input, printed; skopeo reads
/// it, and `--push` puts it in a registry under that digest.
#[test]
fn the_judged_catalog_is_a_reproducible_catalog_image() {
    let dir = tempfile::tempdir().unwrap();
    let config = config_file(dir.path());
    let catalog = repo(WITH_OBJECTS).display().to_string();
    let filter = |out: &str, layout: &Path, more: &[&str]| {
        let out = dir.path().join(out);
        let mut args = vec!["catalog", "filter", "--catalog", &catalog, "-c", &config, "-o", out.to_str().unwrap()];
        args.extend(["--image-layout", layout.to_str().unwrap()]);
        args.extend(more);
        let run = run_bin(&args, "");
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
        text(&run.stderr)
    };
    let digest_in = |said: &str| {
        let at = said.find("the judged catalog image sha256:").unwrap() + "the judged catalog image ".len();
        Digest::parse(&said[at..at + 71]).unwrap()
    };
    let (first, second) = (dir.path().join("image-1"), dir.path().join("image-2"));
    let digest = digest_in(&filter("judged-1", &first, &[]));
    assert_eq!(digest_in(&filter("judged-2", &second, &[])), digest, "reproducible");
    assert_eq!(digest_in(&filter("judged-1", &first, &[])), digest, "written again over itself");
    let index: Value = serde_json::from_slice(&std::fs::read(first.join("index.json")).unwrap()).unwrap();
    assert_eq!(index["manifests"].as_array().unwrap().len(), 1);
    assert_eq!(index["manifests"][0]["digest"], digest.to_string());
    let manifest: Value = serde_json::from_slice(&std::fs::read(blob(&first, &digest)).unwrap()).unwrap();
    let config_digest = Digest::parse(manifest["config"]["digest"].as_str().unwrap()).unwrap();
    let image_config: Value = serde_json::from_slice(&std::fs::read(blob(&first, &config_digest)).unwrap()).unwrap();
    assert_eq!(image_config["config"]["Labels"]["operators.operatorframework.io.index.configs.v1"], "/configs");
    // The layer holds configs/catalog.json, the filter's output byte for byte.
    let layer = Digest::parse(manifest["layers"][0]["digest"].as_str().unwrap()).unwrap();
    let gz = flate2::read::GzDecoder::new(std::fs::File::open(blob(&first, &layer)).unwrap());
    let mut files = BTreeMap::new();
    for entry in tar::Archive::new(gz).entries().unwrap() {
        let mut entry = entry.unwrap();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut bytes).unwrap();
        files.insert(entry.path().unwrap().display().to_string().trim_end_matches('/').to_string(), bytes);
    }
    assert_eq!(files.keys().collect::<Vec<_>>(), ["configs", "configs/catalog.json"]);
    assert_eq!(files["configs/catalog.json"], std::fs::read(dir.path().join("judged-1/catalog.json")).unwrap());
    if let Some(skopeo) = SKOPEO.find() {
        let out = std::process::Command::new(skopeo)
            .args(["inspect", "--raw", &format!("oci:{}", first.display())])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(Digest::of(&out.stdout), digest, "skopeo reads the image written");
    }
    // The catalog commands read a catalog image as catalogd does: the folder its label names.
    let (code, from_image, stderr) = audit(first.to_str().unwrap(), &[]);
    assert_eq!((code, from_image.len()), (Some(0), 9), "{stderr}");
    let bundle_layout = dir.path().join("bundle-image");
    bundle_image(&bundle_layout, "0.5.2", Vec::new());
    let (code, _, stderr) = audit(bundle_layout.to_str().unwrap(), &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("without the label operators.operatorframework.io.index.configs.v1"), "{stderr}");
    let Some(registry) = Registry::start() else { return };
    let target = format!("{}/judged/catalog:v1", registry.host());
    let said = filter("judged-3", &dir.path().join("image-3"), &["--push", &target]);
    let pinned = format!("{}/judged/catalog@{digest}", registry.host());
    assert!(said.contains(&format!("pin the ClusterCatalog's spec.source.image.ref to {pinned}")), "{said}");
    let mut sink = crate::registry::MemorySink::default();
    let pulled = Client::new(Options { tls_verify: true })
        .pull(&Reference::parse(&pinned).unwrap(), &Platform::default(), &mut sink)
        .unwrap();
    assert_eq!(pulled, digest);
    // And pulled by that digest, as the ClusterCatalog will pin it: the same
    // bundles (whose own images --pull then fetches from quay.io, if it can).
    let cache = dir.path().join("cache");
    let (_, pulled_rows, stderr) = audit(&pinned, &["--pull", "--image-cache", cache.to_str().unwrap()]);
    let bundles = |rows: &[Value]| rows.iter().map(|r| r["bundle"].clone()).collect::<Vec<_>>();
    assert_eq!(bundles(&pulled_rows), bundles(&from_image), "{stderr}");
}

/// Layouts as skopeo writes them: a Docker (v2 schema 2) bundle image copied
/// with `--preserve-digests` keeps the digest the catalog names and is judged
/// from the image; copied without it, skopeo converts it to OCI under another
/// digest, and the bundle is not judged from it (the docs say so).
#[test]
fn skopeo_layouts_of_docker_images_keep_their_digest_only_when_told() {
    let Some(registry) = Registry::start() else { return };
    let Some(skopeo) = SKOPEO.find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let layout = dir.path().join("images");
    let digest = bundle_image(&layout, "0.5.2", Vec::new());
    push_all(&layout, &registry, &BTreeMap::from([("0.5.2", digest)]));
    let skopeo_run = |args: &[&str]| {
        let out = std::process::Command::new(&skopeo).args(args).output().unwrap();
        assert!(out.status.success(), "skopeo {args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    let (oci, docker) = (
        format!("{}/kube-green/bundle:v0.5.2", registry.host()),
        format!("{}/kube-green/docker:v0.5.2", registry.host()),
    );
    let tls = ["--src-tls-verify=false", "--dest-tls-verify=false"];
    skopeo_run(
        &[&["copy", "-q", "--format", "v2s2"][..], &tls, &[&format!("docker://{oci}"), &format!("docker://{docker}")]]
            .concat(),
    );
    let docker_digest =
        skopeo_run(&["inspect", "--tls-verify=false", "--format", "{{.Digest}}", &format!("docker://{docker}")]);
    let docker_digest = Digest::parse(docker_digest.trim()).unwrap();
    let catalog = catalog_naming(
        dir.path(),
        &format!("{}/kube-green/docker", registry.host()),
        &BTreeMap::from([("0.5.2", docker_digest.clone())]),
    );
    let by_digest = format!("docker://{}/kube-green/docker@{docker_digest}", registry.host());
    let (kept, converted) = (dir.path().join("kept"), dir.path().join("converted"));
    skopeo_run(&[
        "copy",
        "-q",
        "--src-tls-verify=false",
        "--preserve-digests",
        &by_digest,
        &format!("oci:{}", kept.display()),
    ]);
    skopeo_run(&["copy", "-q", "--src-tls-verify=false", &by_digest, &format!("oci:{}", converted.display())]);
    let row = |layout: &Path| {
        let (_, rows, _) = audit(&catalog, &["--bundles", layout.to_str().unwrap()]);
        rows.into_iter().find(|r| r["version"] == "0.5.2").unwrap()
    };
    let kept_row = row(&kept);
    assert_eq!(
        (kept_row["verdict"].as_str(), kept_row["source"].as_str()),
        (Some("pass"), Some("image")),
        "{kept_row}"
    );
    let converted_row = row(&converted);
    assert_eq!(converted_row["verdict"], "unjudged", "{converted_row}");
    assert!(converted_row["errors"][0].as_str().unwrap().contains("holds no image of its digest"), "{converted_row}");
}

/// A catalog naming a multi-platform image: the instance for `--platform`
/// is judged, and the row says which; each platform is judged on its own.
#[test]
fn an_image_index_is_judged_for_the_platform_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let layout = dir.path().join("images");
    let amd = bundle_image(&layout, "0.5.2", Vec::new());
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: extra\n";
    let added = Layer { entries: vec![Entry::File { path: "manifests/pod.yaml".into(), contents: pod.into() }] };
    let folder = repo(&format!("{FOLDERS}/kube-green/0.5.2"));
    let arm_platform = Platform::parse("linux/arm64").unwrap();
    let arm = write_image(
        &layout,
        &ImageSpec { platform: arm_platform.clone(), ..spec(vec![bundle_layer(&folder), added]) },
        None,
    )
    .unwrap();
    let index = olm_rbac::image::write_index(
        &layout,
        &[(amd.clone(), Platform::default()), (arm, arm_platform)],
        Format::Oci,
        None,
    )
    .unwrap();
    let catalog = catalog_naming(dir.path(), "quay.io/example/kube-green", &BTreeMap::from([("0.5.2", index.clone())]));
    let row = |more: &[&str]| {
        let mut args = vec!["--bundles", layout.to_str().unwrap()];
        args.extend(more);
        let (_, rows, _) = audit(&catalog, &args);
        rows.into_iter().find(|r| r["version"] == "0.5.2").unwrap()
    };
    let amd_row = row(&[]);
    assert_eq!(amd_row["verdict"], "pass");
    let said = format!("its image {index} is an image index: its linux/amd64 instance {amd} was judged");
    assert!(amd_row["warnings"].to_string().contains(&said), "{amd_row}");
    assert_eq!(row(&["--platform", "linux/arm64"])["verdict"], "uninstallable");
}

/// Issue 49: a bundle folder is matched by the package its
/// `metadata/annotations.yaml` names where its folder is named otherwise
/// (the community repositories' `operators/konflux` holds package
/// `konflux-operator`), and judged as under its package's name.
#[test]
fn bundle_folders_are_matched_by_their_annotations_package() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo(&format!("{FOLDERS}/kube-green")), &dir.path().join("green-ops"));
    let catalog = repo(METADATA_ONLY).display().to_string();
    let (code, renamed, stderr) = audit(&catalog, &["--bundles", dir.path().to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let (_, named, _) = audit(&catalog, &["--bundles", &repo(FOLDERS).display().to_string()]);
    assert_eq!(summary(&renamed), summary(&named));
    assert!(summary(&renamed).iter().all(|(_, _, source)| source == "folder"), "{renamed:?}");
    // Two folders claiming one package and version: which stands for the bundle cannot be told.
    copy_dir(&repo(&format!("{FOLDERS}/kube-green")), &dir.path().join("other"));
    let (code, twice, _) = audit(&catalog, &["--bundles", dir.path().to_str().unwrap()]);
    assert_eq!(code, Some(1));
    let row = twice.iter().find(|r| r["version"] == "0.5.2").unwrap();
    assert_eq!(row["verdict"], "unjudged", "{row}");
    assert!(
        row["errors"][0].as_str().unwrap().contains("2 folders name package \"kube-green\" version 0.5.2"),
        "{row}"
    );
}
