//! Images written with `write_image` and read back with `Layouts::bundle`,
//! as OLM would read them; then the same images tampered with.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::*;

mod hostile;

fn file(path: &str, contents: &str) -> Entry {
    Entry::File { path: path.into(), contents: contents.as_bytes().to_vec() }
}

fn dir(path: &str) -> Entry {
    Entry::Dir { path: path.into() }
}

/// A bundle's layer: two manifests and its annotations.
fn bundle_layer() -> Layer {
    Layer {
        entries: vec![
            dir("manifests"),
            file("manifests/csv.yaml", "kind: ClusterServiceVersion\n"),
            file("manifests/crd.yaml", "kind: CustomResourceDefinition\n"),
            dir("metadata"),
            file("metadata/annotations.yaml", "annotations: {}\n"),
        ],
    }
}

fn spec(layers: Vec<Layer>) -> ImageSpec {
    let labels = BTreeMap::from([("operators.operatorframework.io.bundle.mediatype.v1".into(), "registry+v1".into())]);
    ImageSpec { layers, labels, platform: Platform::default(), compression: Compression::Gzip, format: Format::Oci }
}

fn read(layout: &Path, digest: &Digest) -> Result<BundleImage, ImageError> {
    Layouts::open(&[layout])?.bundle(digest, &Platform::default())
}

fn names(bundle: &BundleImage) -> Vec<&str> {
    bundle.manifests.iter().map(|(name, _)| name.as_str()).collect()
}

/// The manifest `digest` as JSON.
fn manifest(layout: &Path, digest: &Digest) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(blob::blob_path(layout, digest)).unwrap()).unwrap()
}

/// The blob of the manifest's layer `n`.
fn layer_path(layout: &Path, image: &Digest, n: usize) -> PathBuf {
    let digest = manifest(layout, image)["layers"][n]["digest"].as_str().map(Digest::parse).unwrap().unwrap();
    blob::blob_path(layout, &digest)
}

#[test]
fn a_one_layer_oci_image_reads_back() {
    let tmp = tempfile::tempdir().unwrap();
    let digest = write_image(tmp.path(), &spec(vec![bundle_layer()]), Some("v1")).unwrap();
    let layouts = Layouts::open(&[tmp.path()]).unwrap();
    assert!(layouts.holds(&digest));
    assert_eq!(layouts.digests().collect::<Vec<_>>(), vec![(&digest, Some("v1"))]);
    let bundle = layouts.bundle(&digest, &Platform::default()).unwrap();
    assert_eq!(bundle.digest, digest);
    assert_eq!(names(&bundle), ["crd.yaml", "csv.yaml"]);
    assert_eq!(bundle.manifests[1].1, b"kind: ClusterServiceVersion\n");
    assert_eq!(bundle.annotations.as_deref(), Some(&b"annotations: {}\n"[..]));
    assert!(bundle.subfolders.is_empty());
    let written = manifest(tmp.path(), &digest);
    assert_eq!(written["layers"][0]["mediaType"], "application/vnd.oci.image.layer.v1.tar+gzip");
    let config = written["config"]["digest"].as_str().map(Digest::parse).unwrap().unwrap();
    let config = manifest(tmp.path(), &config);
    assert_eq!(config["config"]["Labels"]["operators.operatorframework.io.bundle.mediatype.v1"], "registry+v1");
    assert_eq!(config["rootfs"]["diff_ids"].as_array().map(Vec::len), Some(1));
}

#[test]
fn docker_zstd_and_plain_images_read_back() {
    for (format, compression) in [
        (Format::Docker, Compression::Gzip),
        (Format::Docker, Compression::None),
        (Format::Oci, Compression::Zstd),
        (Format::Oci, Compression::None),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let spec = ImageSpec { format, compression, ..spec(vec![bundle_layer()]) };
        let digest = write_image(tmp.path(), &spec, None).unwrap();
        let bundle = read(tmp.path(), &digest).unwrap();
        assert_eq!(names(&bundle), ["crd.yaml", "csv.yaml"], "{format:?} {compression:?}");
        let media_type = manifest(tmp.path(), &digest)["mediaType"].clone();
        let expected = if format == Format::Docker { DOCKER_MANIFEST } else { OCI_MANIFEST };
        assert_eq!(media_type, expected);
    }
    let tmp = tempfile::tempdir().unwrap();
    let docker_zstd = ImageSpec { format: Format::Docker, compression: Compression::Zstd, ..spec(vec![]) };
    assert!(matches!(write_image(tmp.path(), &docker_zstd, None), Err(ImageError::Write { .. })));
}

/// Two images, one per platform, their manifests told apart by a file.
fn two_platforms(layout: &Path) -> (Digest, Digest) {
    let mut amd = bundle_layer();
    amd.entries.push(file("manifests/amd64.yaml", "x"));
    let mut arm = bundle_layer();
    arm.entries.push(file("manifests/arm64.yaml", "x"));
    let amd = write_image(layout, &spec(vec![amd]), None).unwrap();
    let arm_spec = ImageSpec { platform: Platform::parse("linux/arm64").unwrap(), ..spec(vec![arm]) };
    let arm = write_image(layout, &arm_spec, None).unwrap();
    (amd, arm)
}

#[test]
fn an_index_gives_the_instance_for_the_platform() {
    for format in [Format::Oci, Format::Docker] {
        let tmp = tempfile::tempdir().unwrap();
        let (amd, arm) = two_platforms(tmp.path());
        let platforms = [(amd.clone(), Platform::default()), (arm.clone(), Platform::parse("linux/arm64").unwrap())];
        let index = write_index(tmp.path(), &platforms, format, Some("latest")).unwrap();
        let layouts = Layouts::open(&[tmp.path()]).unwrap();
        let bundle = layouts.bundle(&index, &Platform::default()).unwrap();
        assert_eq!((&bundle.digest, names(&bundle)), (&amd, vec!["amd64.yaml", "crd.yaml", "csv.yaml"]));
        let bundle = layouts.bundle(&index, &Platform::parse("linux/arm64/v8").unwrap()).unwrap();
        assert_eq!((&bundle.digest, names(&bundle)), (&arm, vec!["arm64.yaml", "crd.yaml", "csv.yaml"]));
        let err = layouts.bundle(&index, &Platform::parse("linux/s390x").unwrap()).unwrap_err();
        assert!(matches!(err, ImageError::NoPlatform { .. }), "{err}");
        let message = err.to_string();
        assert!(message.contains("linux/s390x") && message.contains("linux/amd64, linux/arm64"), "{message}");
    }
}

/// Two images for one os and architecture (a variant, or a zstd copy beside
/// a gzip one): which the nodes pull depends on their CPU and the puller's
/// preferences, so neither is judged for the index.
#[test]
fn an_index_offering_two_images_for_one_cpu_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (amd, arm) = two_platforms(tmp.path());
    for (second, platform) in [(arm.clone(), "linux/amd64/v3"), (arm, "linux/amd64")] {
        let platforms = [(amd.clone(), Platform::default()), (second, Platform::parse(platform).unwrap())];
        let index = write_index(tmp.path(), &platforms, Format::Oci, None).unwrap();
        let layouts = Layouts::open(&[tmp.path()]).unwrap();
        let err = layouts.bundle(&index, &Platform::default()).unwrap_err().to_string();
        assert!(err.contains("an image index with 2 images for linux/amd64"), "{err}");
    }
}

#[test]
fn a_nested_index_is_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let (amd, arm) = two_platforms(tmp.path());
    let platforms = [(amd.clone(), Platform::default()), (arm, Platform::parse("linux/arm64").unwrap())];
    let inner = write_index(tmp.path(), &platforms, Format::Oci, None).unwrap();
    let outer = write_index(tmp.path(), &[(inner.clone(), Platform::default())], Format::Oci, Some("v1")).unwrap();
    let layouts = Layouts::open(&[tmp.path()]).unwrap();
    assert!(layouts.holds(&inner) && layouts.holds(&outer));
    assert_eq!(layouts.bundle(&outer, &Platform::default()).unwrap().digest, amd);
}

#[test]
fn upper_layers_add_replace_and_white_out() {
    let tmp = tempfile::tempdir().unwrap();
    let layers = vec![
        bundle_layer(),
        Layer {
            entries: vec![
                file("manifests/extra.yaml", "added"),
                file("manifests/csv.yaml", "replaced"),
                Entry::Whiteout { path: "manifests/crd.yaml".into() },
            ],
        },
    ];
    let bundle = read(tmp.path(), &write_image(tmp.path(), &spec(layers), None).unwrap()).unwrap();
    assert_eq!(names(&bundle), ["csv.yaml", "extra.yaml"]);
    assert_eq!(bundle.manifests[0].1, b"replaced");

    let opaque = vec![
        bundle_layer(),
        Layer { entries: vec![Entry::Opaque { dir: "manifests".into() }, file("manifests/only.yaml", "x")] },
    ];
    let bundle = read(tmp.path(), &write_image(tmp.path(), &spec(opaque), None).unwrap()).unwrap();
    assert_eq!(names(&bundle), ["only.yaml"]);
    assert!(bundle.annotations.is_some());

    let gone = vec![bundle_layer(), Layer { entries: vec![Entry::Whiteout { path: "metadata".into() }] }];
    let bundle = read(tmp.path(), &write_image(tmp.path(), &spec(gone), None).unwrap()).unwrap();
    assert_eq!((names(&bundle).len(), bundle.annotations), (2, None));
}

#[test]
fn files_and_folders_replace_each_other_across_layers() {
    let tmp = tempfile::tempdir().unwrap();
    let layers = vec![
        Layer { entries: vec![file("manifests/a", "file"), file("manifests/b/x.yaml", "deep")] },
        Layer { entries: vec![file("manifests/a/inner.yaml", "now a folder"), file("manifests/b", "now a file")] },
    ];
    let bundle = read(tmp.path(), &write_image(tmp.path(), &spec(layers), None).unwrap()).unwrap();
    assert_eq!(names(&bundle), ["b"]);
    assert_eq!(bundle.subfolders, ["manifests/a"]);
}

#[test]
fn missing_annotations_and_subfolders_are_reported_as_found() {
    let tmp = tempfile::tempdir().unwrap();
    let layer = Layer {
        entries: vec![
            file("manifests/csv.yaml", "x"),
            dir("manifests/sub"),
            file("manifests/sub/deep.yaml", "not read"),
            file("metadata/other.yaml", "not read"),
        ],
    };
    let bundle = read(tmp.path(), &write_image(tmp.path(), &spec(vec![layer]), None).unwrap()).unwrap();
    assert_eq!(names(&bundle), ["csv.yaml"]);
    assert_eq!(bundle.subfolders, ["manifests/sub"]);
    assert_eq!(bundle.annotations, None);
}

#[test]
fn a_large_file_outside_the_bundle_folders_is_streamed_past() {
    let tmp = tempfile::tempdir().unwrap();
    let big = Entry::File { path: "usr/share/big.bin".into(), contents: vec![7; 12 << 20] };
    let mut layer = bundle_layer();
    layer.entries.push(big);
    let bundle = read(tmp.path(), &write_image(tmp.path(), &spec(vec![layer]), None).unwrap()).unwrap();
    assert_eq!(names(&bundle), ["crd.yaml", "csv.yaml"]);
}

/// Every file of a layout, by path relative to it.
fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.insert(path.strip_prefix(root).unwrap().to_path_buf(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn writing_is_reproducible() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut layers =
        vec![bundle_layer(), Layer { entries: vec![Entry::Whiteout { path: "manifests/crd.yaml".into() }] }];
    layers[0].entries.reverse();
    for compression in [Compression::Gzip, Compression::Zstd, Compression::None] {
        let spec = ImageSpec { compression, ..spec(layers.clone()) };
        let first = write_image(a.path(), &spec, Some("v1")).unwrap();
        assert_eq!(write_image(b.path(), &spec, Some("v1")).unwrap(), first);
        assert_eq!(files(a.path()), files(b.path()));
        // The same name written again replaces its entry; the file stays one entry long.
        assert_eq!(write_image(a.path(), &spec, Some("v1")).unwrap(), first);
        assert_eq!(Layouts::open(&[a.path()]).unwrap().digests().count(), 1);
    }
}

/// `skopeo` reads what `write_image` writes, and what it copies reads back.
/// OCI images only: containers/image lists no Docker manifest found in an
/// OCI layout's index.json ("no descriptor found for reference").
#[test]
fn skopeo_reads_and_copies_written_images() {
    let found = std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("skopeo").is_file()));
    if !found {
        println!("skipped: skopeo not found");
        return;
    }
    let skopeo = |args: &[&str]| {
        let out = std::process::Command::new("skopeo").arg("--insecure-policy").args(args).output().unwrap();
        assert!(out.status.success(), "skopeo {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    for compression in [Compression::Gzip, Compression::Zstd, Compression::None] {
        let (from, to) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let digest =
            write_image(from.path(), &ImageSpec { compression, ..spec(vec![bundle_layer()]) }, Some("v1")).unwrap();
        let source = format!("oci:{}:v1", from.path().display());
        assert_eq!(Digest::of(&skopeo(&["inspect", "--raw", &source])), digest);
        skopeo(&["copy", "--quiet", &source, &format!("oci:{}:v1", to.path().display())]);
        let layouts = Layouts::open(&[to.path()]).unwrap();
        let copied = layouts.digests().find(|(_, name)| *name == Some("v1")).map(|(d, _)| d.clone()).unwrap();
        let bundle = layouts.bundle(&copied, &Platform::default()).unwrap();
        assert_eq!(names(&bundle), ["crd.yaml", "csv.yaml"], "{compression:?}");
        assert!(bundle.annotations.is_some());
    }
}
