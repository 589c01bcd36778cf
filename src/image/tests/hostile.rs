//! Images OLM would refuse or that were tampered with: each read is an error
//! naming what is wrong, never a partial bundle.

use super::*;

fn written(layers: Vec<Layer>) -> (tempfile::TempDir, Digest) {
    let tmp = tempfile::tempdir().unwrap();
    let digest = write_image(tmp.path(), &spec(layers), None).unwrap();
    (tmp, digest)
}

fn with(entry: Entry) -> Vec<Layer> {
    let mut layer = bundle_layer();
    layer.entries.push(entry);
    vec![layer]
}

#[test]
fn links_in_the_bundle_folders_are_refused() {
    let link = |path: &str| Entry::Symlink { path: path.into(), target: "/etc/passwd".into() };
    for layers in [
        with(link("manifests/evil.yaml")),
        with(link("metadata/annotations.yaml")),
        with(Entry::Hardlink { path: "manifests/hard.yaml".into(), target: "etc/passwd".into() }),
        vec![Layer { entries: vec![link("manifests")] }],
        vec![Layer { entries: vec![link("manifests")] }, Layer { entries: vec![file("manifests/a.yaml", "x")] }],
    ] {
        let (tmp, digest) = written(layers);
        let err = read(tmp.path(), &digest).unwrap_err();
        assert!(matches!(err, ImageError::Link { .. } | ImageError::UnderLink { .. }), "{err}");
    }
    // A link anywhere that an entry is written through, even from outside the
    // bundle's folders: OLM's unpacker follows it (`m -> manifests`, then `m/x`).
    for layers in [
        with(Entry::Symlink { path: "m".into(), target: "manifests".into() })
            .into_iter()
            .chain([Layer { entries: vec![file("m/evil.yaml", "kind: ClusterRole")] }])
            .collect::<Vec<_>>(),
        vec![Layer {
            entries: vec![
                Entry::Symlink { path: "m".into(), target: "manifests".into() },
                file("m/evil.yaml", "kind: ClusterRole"),
            ],
        }],
        vec![Layer {
            entries: vec![
                Entry::Symlink { path: "m".into(), target: "manifests".into() },
                Entry::Whiteout { path: "m/csv.yaml".into() },
            ],
        }],
    ] {
        let (tmp, digest) = written(layers);
        let err = read(tmp.path(), &digest).unwrap_err();
        assert!(matches!(err, ImageError::UnderLink { .. }), "{err}");
    }
    // A link elsewhere is no part of what OLM reads, and a link whited out is gone.
    let (tmp, digest) = written(with(link("usr/bin/tool")));
    assert!(read(tmp.path(), &digest).is_ok());
    let gone = vec![
        Layer { entries: vec![link("manifests/evil.yaml")] },
        Layer { entries: vec![Entry::Whiteout { path: "manifests/evil.yaml".into() }] },
    ];
    let (tmp, digest) = written(gone);
    assert!(read(tmp.path(), &digest).is_ok());
    // A folder replaces a link a lower layer put there, as an unpacker does.
    let (tmp, digest) = written(vec![Layer { entries: vec![link("manifests")] }, bundle_layer()]);
    assert_eq!(read(tmp.path(), &digest).unwrap().manifests.len(), 2);
}

#[test]
fn a_path_climbing_out_is_refused() {
    let (tmp, digest) = written(with(file("manifests/../../etc/x.yaml", "x")));
    let err = read(tmp.path(), &digest).unwrap_err();
    assert!(matches!(err, ImageError::Climb { .. }), "{err}");
}

#[test]
fn a_flipped_byte_in_a_layer_is_a_mismatch() {
    for compression in [Compression::Gzip, Compression::None, Compression::Zstd] {
        let tmp = tempfile::tempdir().unwrap();
        let digest = write_image(tmp.path(), &ImageSpec { compression, ..spec(vec![bundle_layer()]) }, None).unwrap();
        let path = layer_path(tmp.path(), &digest, 0);
        let mut bytes = std::fs::read(&path).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x20;
        std::fs::write(&path, bytes).unwrap();
        let err = read(tmp.path(), &digest).unwrap_err();
        assert!(matches!(err, ImageError::Mismatch { .. }), "{compression:?}: {err}");
    }
}

#[test]
fn another_valid_blob_in_a_blobs_place_is_refused() {
    let (tmp, digest) = written(vec![bundle_layer()]);
    let config = manifest(tmp.path(), &digest)["config"]["digest"].as_str().map(Digest::parse).unwrap().unwrap();
    let layer = layer_path(tmp.path(), &digest, 0);
    std::fs::copy(blob::blob_path(tmp.path(), &config), &layer).unwrap();
    let err = read(tmp.path(), &digest).unwrap_err();
    assert!(matches!(err, ImageError::Size { .. } | ImageError::Mismatch { .. }), "{err}");
}

#[test]
fn a_manifest_blob_holding_another_manifest_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (amd, arm) = two_platforms(tmp.path());
    let arm_bytes = std::fs::read(blob::blob_path(tmp.path(), &arm)).unwrap();
    std::fs::write(blob::blob_path(tmp.path(), &amd), &arm_bytes).unwrap();
    // index.json given the size of the bytes now there: only the digest tells.
    let index_path = tmp.path().join("index.json");
    let mut index: serde_json::Value = serde_json::from_slice(&std::fs::read(&index_path).unwrap()).unwrap();
    for entry in index["manifests"].as_array_mut().unwrap() {
        if entry["digest"] == amd.to_string() {
            entry["size"] = arm_bytes.len().into();
        }
    }
    std::fs::write(&index_path, serde_json::to_vec(&index).unwrap()).unwrap();
    let err = read(tmp.path(), &amd).unwrap_err();
    assert!(matches!(&err, ImageError::Mismatch { digest, .. } if *digest == amd), "{err}");
}

#[test]
fn a_digest_no_layout_holds_is_not_found() {
    let (tmp, _) = written(vec![bundle_layer()]);
    let err = read(tmp.path(), &Digest::of(b"elsewhere")).unwrap_err();
    assert!(matches!(err, ImageError::NotFound { .. }), "{err}");
}

#[cfg(unix)]
#[test]
fn a_symlinked_blob_or_index_is_refused() {
    let (tmp, digest) = written(vec![bundle_layer()]);
    let layer = layer_path(tmp.path(), &digest, 0);
    let moved = tmp.path().join("moved");
    std::fs::rename(&layer, &moved).unwrap();
    std::os::unix::fs::symlink(&moved, &layer).unwrap();
    let err = read(tmp.path(), &digest).unwrap_err();
    assert!(matches!(err, ImageError::Symlink { .. }), "{err}");
    let index = tmp.path().join("index.json");
    std::fs::rename(&index, tmp.path().join("index.moved")).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("index.moved"), &index).unwrap();
    let err = Layouts::open(&[tmp.path()]).unwrap_err();
    assert!(matches!(err, ImageError::Symlink { .. }), "{err}");
}

#[test]
fn layouts_are_found_two_levels_down_and_versions_checked() {
    let root = tempfile::tempdir().unwrap();
    let a = write_image(&root.path().join("a"), &spec(vec![bundle_layer()]), Some("a")).unwrap();
    let b = write_image(&root.path().join("b/c"), &spec(with(file("manifests/b.yaml", "b"))), Some("b")).unwrap();
    std::fs::create_dir_all(root.path().join("plain/manifests")).unwrap();
    let layouts = Layouts::open(&[root.path()]).unwrap();
    assert_eq!(layouts.digests().collect::<Vec<_>>(), vec![(&a, Some("a")), (&b, Some("b"))]);
    assert_eq!(layouts.bundle(&b, &Platform::default()).unwrap().manifests.len(), 3);
    assert_eq!(Layouts::open(&[&root.path().join("plain")]).unwrap().digests().count(), 0);
    std::fs::write(root.path().join("a/oci-layout"), r#"{"imageLayoutVersion":"2.0.0"}"#).unwrap();
    let err = Layouts::open(&[root.path()]).unwrap_err();
    assert!(matches!(err, ImageError::LayoutVersion { .. }), "{err}");
    let err = Layouts::open(&[&root.path().join("a/index.json")]).unwrap_err();
    assert!(matches!(err, ImageError::NotLayout { .. }), "{err}");
}

/// A manifest written as given into the layout at `root`, listed in its index.json.
fn raw_manifest(root: &Path, json: &serde_json::Value, media_type: &str) -> Digest {
    let mut store = Store::open_or_create(root).unwrap();
    let bytes = serde_json::to_vec(json).unwrap();
    let digest = store.put_bytes(&bytes).unwrap();
    store.add_to_index(Descriptor::new(media_type, digest.clone(), bytes.len() as u64), None).unwrap();
    digest
}

#[test]
fn schema1_artifacts_and_foreign_layers_are_refused() {
    let (tmp, digest) = written(vec![bundle_layer()]);
    let schema1 = serde_json::json!({"schemaVersion": 1, "name": "x", "fsLayers": []});
    let digest1 = raw_manifest(tmp.path(), &schema1, "application/vnd.docker.distribution.manifest.v1+prettyjws");
    let err = read(tmp.path(), &digest1).unwrap_err();
    assert!(matches!(err, ImageError::Unsupported { .. }) && err.to_string().contains("schema 1"), "{err}");

    let mut foreign = manifest(tmp.path(), &digest);
    foreign["layers"][0]["mediaType"] = "application/vnd.docker.image.rootfs.foreign.diff.tar.gzip".into();
    let foreign = raw_manifest(tmp.path(), &foreign, DOCKER_MANIFEST);
    let err = read(tmp.path(), &foreign).unwrap_err();
    assert!(matches!(err, ImageError::LayerType { .. }), "{err}");

    let mut untyped = manifest(tmp.path(), &digest);
    untyped.as_object_mut().unwrap().remove("mediaType");
    let untyped = raw_manifest(tmp.path(), &untyped, "");
    assert_eq!(read(tmp.path(), &untyped).unwrap().manifests.len(), 2);

    let mut contradicted = manifest(tmp.path(), &digest);
    contradicted["mediaType"] = OCI_INDEX.into();
    let contradicted = raw_manifest(tmp.path(), &contradicted, OCI_MANIFEST);
    let err = read(tmp.path(), &contradicted).unwrap_err();
    assert!(matches!(err, ImageError::Unsupported { .. }), "{err}");
}

#[test]
fn a_blob_put_under_the_wrong_digest_leaves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Store::open_or_create(tmp.path()).unwrap();
    let wanted = Digest::of(b"wanted");
    let err = store.put_blob(&wanted, &mut &b"other"[..]).unwrap_err();
    assert!(matches!(err, ImageError::Mismatch { .. }), "{err}");
    assert!(!store.has_blob(&wanted));
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 3, "{left:?}");
    assert_eq!(store.put_blob(&wanted, &mut &b"wanted"[..]).unwrap(), 6);
    assert!(store.has_blob(&wanted));
}
