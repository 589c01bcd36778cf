//! Bundle images: `catalog audit` over a catalog that carries no manifests
//! (as current community catalogs do), each bundle read from its image by
//! digest, against the same bundles as folders; and the peak resident set of
//! the binary reading them from OCI layouts and, where Debian's
//! docker-registry is installed, pulling them from a registry on this machine
//! with `--pull` into an empty cache. Each blob is streamed, so the peak must
//! not grow with the catalog: four times the bundles over 1.5x the peak of
//! one prints `IMAGE MEMORY GROWS` and fails the bench.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use olm_rbac::image::{
    write_image, Client, Compression, Digest, Entry, Format, ImageSpec, Layer, Options, Platform, Reference, Store,
};

/// A bundle image of `package` version 0.0.`i`: its CSV, a real CRD (kube-green's, 20 KB) and
/// its annotations, with 2 MB of an operator's files outside `manifests/` that every read streams past.
fn bundle_layers(package: &str, i: usize, csv: String) -> Vec<Layer> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let crd = std::fs::read(root.join(
        "tests/fixtures/catalogs/csv-metadata-only/bundles/kube-green/0.7.0/manifests/kube-green.com_sleepinfos.yaml",
    ))
    .expect("the CRD fixture");
    let annotations = format!("annotations:\n  operators.operatorframework.io.bundle.package.v1: {package}\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n");
    let padding: Vec<u8> = (0..2_000_000u32).map(|n| (n.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
    vec![
        Layer { entries: vec![Entry::File { path: format!("usr/share/{package}/{i}.bin"), contents: padding }] },
        Layer {
            entries: vec![
                Entry::Dir { path: "manifests".into() },
                Entry::File { path: "manifests/csv.yaml".into(), contents: csv.into_bytes() },
                Entry::File { path: "manifests/crd.yaml".into(), contents: crd },
                Entry::Dir { path: "metadata".into() },
                Entry::File { path: "metadata/annotations.yaml".into(), contents: annotations.into_bytes() },
            ],
        },
    ]
}

/// `packages` packages of `bundles` bundles each, as images in `dir/images`
/// and as folders in `dir/folders`, and a catalog naming each image by
/// digest under `repository`.
pub fn images_and_catalog(
    dir: &Path,
    packages: usize,
    bundles: usize,
    repository: &str,
    csv_of: impl Fn(&str, usize) -> String,
) -> (PathBuf, PathBuf, Vec<(String, Digest)>) {
    let layout = dir.join("images");
    let mut docs = Vec::new();
    let mut images = Vec::new();
    for p in 0..packages {
        let package = format!("bench{p}");
        docs.push(format!("schema: olm.package\nname: {package}\n"));
        let entries: String = (0..bundles).map(|i| format!("- name: {package}.v0.0.{i}\n")).collect();
        docs.push(format!("schema: olm.channel\npackage: {package}\nname: a\nentries:\n{entries}"));
        for i in 0..bundles {
            let layers = bundle_layers(&package, i, csv_of(&package, i));
            // The same manifests as a bundle folder, the baseline.
            let folder = dir.join("folders").join(format!("{package}.v0.0.{i}")).join("manifests");
            std::fs::create_dir_all(&folder).expect("a folder");
            for entry in &layers[1].entries {
                if let Entry::File { path, contents } = entry {
                    if let Some(name) = path.strip_prefix("manifests/") {
                        std::fs::write(folder.join(name), contents).expect("write a manifest");
                    }
                }
            }
            let spec = ImageSpec {
                layers,
                labels: Default::default(),
                platform: Platform::default(),
                compression: Compression::Gzip,
                format: Format::Oci,
            };
            let digest = write_image(&layout, &spec, Some(&format!("{package}-{i}"))).expect("an image");
            docs.push(format!(
                "schema: olm.bundle\nname: {package}.v0.0.{i}\npackage: {package}\nimage: {repository}/{package}@{digest}\nproperties:\n- {{type: olm.package, value: {{packageName: {package}, version: 0.0.{i}}}}}\n"
            ));
            images.push((format!("{repository}/{package}:v0.0.{i}"), digest));
        }
    }
    let catalog = dir.join("catalog.yaml");
    std::fs::write(&catalog, docs.join("---\n")).expect("write the catalog");
    (layout, catalog, images)
}

/// A distribution registry on 127.0.0.1 (Debian's docker-registry), killed on drop.
pub struct Registry {
    pub host: String,
    child: Child,
    _dir: tempfile::TempDir,
}

impl Registry {
    /// `None` when the binary is not installed or does not start.
    pub fn start() -> Option<Registry> {
        let binary = ["/usr/bin/docker-registry", "/usr/local/bin/docker-registry"]
            .into_iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())?;
        let dir = tempfile::tempdir().ok()?;
        let port = std::net::TcpListener::bind("127.0.0.1:0").ok()?.local_addr().ok()?.port();
        let config = dir.path().join("config.yml");
        let text = format!(
            "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: 127.0.0.1:{port}\n",
            dir.path().join("storage").display()
        );
        std::fs::write(&config, text).ok()?;
        let child =
            Command::new(binary).arg("serve").arg(&config).stdout(Stdio::null()).stderr(Stdio::null()).spawn().ok()?;
        let registry = Registry { host: format!("127.0.0.1:{port}"), child, _dir: dir };
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if ureq::get(format!("http://{}/v2/", registry.host)).call().is_ok() {
                return Some(registry);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    /// Pushes each image of `layout` to its reference.
    pub fn push_all(&self, layout: &Path, images: &[(String, Digest)]) {
        let store = Store::open_or_create(layout).expect("the layout");
        let mut client = Client::new(Options { tls_verify: true });
        for (reference, digest) in images {
            let reference = Reference::parse(reference).expect("a reference");
            store.push(&mut client, digest, &reference).expect("pushed");
        }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
