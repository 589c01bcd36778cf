//! The registry client against a real registry: the CNCF distribution
//! registry (Debian's docker-registry), started on a free port of this
//! machine for each test, with its storage in a temporary folder.

use std::collections::HashMap;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use olm_rbac::image::{Client, Digest, Hashing, Options, Platform, Reference, RegistryError, Sink, Source};

use crate::common::Tool;

const DOCKER_REGISTRY: Tool = Tool {
    name: "docker-registry",
    install: "install the CNCF distribution registry (Debian package docker-registry)",
};
pub const SKOPEO: Tool = Tool { name: "skopeo", install: "install skopeo (Debian package skopeo)" };

const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";

/// A distribution registry on 127.0.0.1, plain HTTP, stopped on drop.
pub struct Registry {
    pub port: u16,
    child: Option<Child>,
    #[allow(dead_code)]
    dir: tempfile::TempDir,
}

impl Registry {
    /// Starts a registry; None (the test skips, saying so) when the
    /// docker-registry binary is missing, a failure under OLM_RBAC_REQUIRE_TOOLS=1.
    pub fn start() -> Option<Registry> {
        let binary = DOCKER_REGISTRY.find()?;
        // A free port can be taken between finding and binding it: try again.
        for _ in 0..5 {
            let dir = tempfile::tempdir().unwrap();
            let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let config = dir.path().join("config.yml");
            let storage = dir.path().join("storage");
            std::fs::write(
                &config,
                format!(
                    "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: 127.0.0.1:{port}\n",
                    storage.display()
                ),
            )
            .unwrap();
            let log = std::fs::File::create(dir.path().join("registry.log")).unwrap();
            let child = Command::new(&binary)
                .arg("serve")
                .arg(&config)
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .unwrap();
            let mut registry = Registry { port, child: Some(child), dir };
            if registry.wait_until_up() {
                return Some(registry);
            }
            registry.stop();
        }
        panic!("docker-registry did not start on a free port in five tries");
    }

    /// Whether `GET /v2/` answers within 10 s (false if the registry exited).
    fn wait_until_up(&mut self) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if let Some(child) = &mut self.child {
                if child.try_wait().unwrap().is_some() {
                    return false;
                }
            }
            if ureq::get(format!("http://127.0.0.1:{}/v2/", self.port)).call().is_ok() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    /// `127.0.0.1:PORT`, as an image reference names the registry.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Stops the registry (a test of what works without it).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// What the registry logged, for a failure message.
    #[allow(dead_code)]
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("registry.log")).unwrap_or_default()
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Blobs in memory: the sink the tests pull into, checking each as stored.
#[derive(Default)]
pub struct MemorySink {
    pub blobs: HashMap<Digest, Vec<u8>>,
    pub records: Vec<(Digest, String, u64, String)>,
    pub puts: usize,
}

impl Sink for MemorySink {
    fn has(&self, digest: &Digest) -> bool {
        self.blobs.contains_key(digest)
    }

    fn put(&mut self, digest: &Digest, body: &mut dyn Read) -> Result<u64, RegistryError> {
        let store = |detail: String| RegistryError::Store { digest: digest.clone(), detail };
        let mut reader = Hashing::new(body);
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).map_err(|e| store(e.to_string()))?;
        let (actual, n) = reader.finish();
        if actual != *digest {
            return Err(store(format!("its bytes are {actual}")));
        }
        self.puts += 1;
        self.blobs.insert(digest.clone(), bytes);
        Ok(n)
    }

    fn record(&mut self, digest: &Digest, media_type: &str, size: u64, reference: &str) -> Result<(), RegistryError> {
        self.records.push((digest.clone(), media_type.to_string(), size, reference.to_string()));
        Ok(())
    }
}

/// Blobs in memory to push.
#[derive(Default)]
struct MemorySource(HashMap<Digest, Vec<u8>>);

impl MemorySource {
    /// Adds a blob; its descriptor.
    fn add(&mut self, media_type: &str, bytes: Vec<u8>) -> serde_json::Value {
        let digest = Digest::of(&bytes);
        let descriptor =
            serde_json::json!({"mediaType": media_type, "digest": digest.to_string(), "size": bytes.len()});
        self.0.insert(digest, bytes);
        descriptor
    }
}

impl Source for MemorySource {
    fn open(&self, digest: &Digest) -> Result<(Box<dyn Read>, u64), RegistryError> {
        let bytes = self.0.get(digest).cloned().ok_or_else(|| RegistryError::Source {
            digest: digest.clone(),
            detail: "not in the test's blobs".to_string(),
        })?;
        let n = bytes.len() as u64;
        Ok((Box::new(std::io::Cursor::new(bytes)), n))
    }
}

/// A gzip'd tar holding one bundle file.
fn layer(text: &str) -> Vec<u8> {
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default()));
    let mut header = tar::Header::new_gnu();
    header.set_size(text.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, "manifests/csv.yaml", text.as_bytes()).unwrap();
    tar.into_inner().unwrap().finish().unwrap()
}

/// A one-layer image manifest of `media_type` whose blobs are in `blobs`.
fn image(blobs: &mut MemorySource, media_type: &str, arch: &str) -> Vec<u8> {
    let docker = media_type == DOCKER_MANIFEST;
    let config_type = if docker {
        "application/vnd.docker.container.image.v1+json"
    } else {
        "application/vnd.oci.image.config.v1+json"
    };
    let layer_type = if docker {
        "application/vnd.docker.image.rootfs.diff.tar.gzip"
    } else {
        "application/vnd.oci.image.layer.v1.tar+gzip"
    };
    let config = serde_json::json!({"architecture": arch, "os": "linux", "rootfs": {"type": "layers", "diff_ids": []}});
    let config = blobs.add(config_type, serde_json::to_vec(&config).unwrap());
    let layer = blobs.add(layer_type, layer(&format!("kind: ClusterServiceVersion # {arch}\n")));
    let manifest =
        serde_json::json!({"schemaVersion": 2, "mediaType": media_type, "config": config, "layers": [layer]});
    serde_json::to_vec(&manifest).unwrap()
}

fn reference(registry: &Registry, rest: &str) -> Reference {
    Reference::parse(&format!("{}/{rest}", registry.host())).unwrap()
}

fn client() -> Client {
    Client::with_auth_files(Options::default(), Vec::new())
}

/// The digests a manifest names.
fn named(manifest: &[u8]) -> Vec<Digest> {
    let json: serde_json::Value = serde_json::from_slice(manifest).unwrap();
    let config = std::iter::once(&json["config"]);
    config
        .chain(json["layers"].as_array().unwrap())
        .map(|d| Digest::parse(d["digest"].as_str().unwrap()).unwrap())
        .collect()
}

#[test]
fn an_image_pushed_by_tag_is_pulled_by_digest_blob_for_blob() {
    let Some(mut registry) = Registry::start() else { return };
    let mut blobs = MemorySource::default();
    let manifest = image(&mut blobs, OCI_MANIFEST, "amd64");
    let mut client = client();
    let lines = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let said = lines.clone();
    client.on_progress(move |line| said.borrow_mut().push(line.to_string()));
    let pushed = client.push(&reference(&registry, "olm/bundle:v1"), &manifest, OCI_MANIFEST, &blobs).unwrap();
    assert_eq!(pushed, Digest::of(&manifest));
    // Pushed again: every blob is there already.
    client.push(&reference(&registry, "olm/bundle:v2"), &manifest, OCI_MANIFEST, &blobs).unwrap();

    let by_digest = reference(&registry, &format!("olm/bundle@{pushed}"));
    let mut sink = MemorySink::default();
    assert_eq!(client.pull(&by_digest, &Platform::default(), &mut sink).unwrap(), pushed);
    assert_eq!(sink.blobs[&pushed], manifest);
    for digest in named(&manifest) {
        assert_eq!(sink.blobs[&digest], blobs.0[&digest], "{digest}");
    }
    assert_eq!(sink.puts, 3);
    let record = (pushed.clone(), OCI_MANIFEST.to_string(), manifest.len() as u64, by_digest.to_string());
    assert_eq!(sink.records, [record]);

    // A second pull into the same sink stores nothing again.
    client.pull(&by_digest, &Platform::default(), &mut sink).unwrap();
    assert_eq!((sink.puts, sink.records.len()), (3, 2));
    let lines = lines.borrow().clone();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines[1].contains("0 blobs uploaded, 2 already there"), "{lines:?}");
    assert!(lines[3].contains("already pulled (3 blobs held)"), "{lines:?}");

    // With the registry gone, the pull says which registry it could not reach.
    registry.stop();
    let err = client.pull(&by_digest, &Platform::default(), &mut MemorySink::default()).unwrap_err().to_string();
    assert!(err.contains(&format!("registry {}", registry.host())) && err.contains(&by_digest.to_string()), "{err}");
}

#[test]
fn an_index_brings_the_manifest_for_the_platform_asked_for() {
    let Some(registry) = Registry::start() else { return };
    let mut blobs = MemorySource::default();
    let mut client = client();
    let mut entries = Vec::new();
    for (arch, variant) in [("amd64", None), ("arm64", Some("v8"))] {
        let manifest = image(&mut blobs, DOCKER_MANIFEST, arch);
        let digest = client.push(&reference(&registry, "olm/multi"), &manifest, DOCKER_MANIFEST, &blobs);
        assert!(matches!(digest, Err(RegistryError::NoTag { .. })), "{digest:?}");
        let at = reference(&registry, &format!("olm/multi@{}", Digest::of(&manifest)));
        let digest = client.push(&at, &manifest, DOCKER_MANIFEST, &blobs).unwrap();
        let mut platform = serde_json::json!({"os": "linux", "architecture": arch});
        if let Some(variant) = variant {
            platform["variant"] = variant.into();
        }
        entries.push((manifest.clone(), serde_json::json!({"mediaType": DOCKER_MANIFEST, "digest": digest.to_string(), "size": manifest.len(), "platform": platform})));
    }
    let index = serde_json::json!({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": entries.iter().map(|(_, d)| d).collect::<Vec<_>>()});
    let index = serde_json::to_vec(&index).unwrap();
    let pushed = client.push(&reference(&registry, "olm/multi:v1"), &index, OCI_INDEX, &blobs).unwrap();

    let by_digest = reference(&registry, &format!("olm/multi@{pushed}"));
    let mut sink = MemorySink::default();
    client.pull(&by_digest, &Platform::default(), &mut sink).unwrap();
    let (amd64, arm64) = (&entries[0].0, &entries[1].0);
    assert!(sink.has(&pushed) && sink.has(&Digest::of(amd64)) && !sink.has(&Digest::of(arm64)));
    assert!(named(amd64).iter().all(|d| sink.has(d)) && !named(arm64).iter().any(|d| sink.has(d)));
    assert_eq!(sink.records[0].1, OCI_INDEX);

    let arm = Platform { os: "linux".into(), architecture: "arm64".into(), variant: Some("v8".into()) };
    client.pull(&by_digest, &arm, &mut sink).unwrap();
    assert!(named(arm64).iter().all(|d| sink.has(d)));
    let s390x = Platform { os: "linux".into(), architecture: "s390x".into(), variant: None };
    let err = client.pull(&by_digest, &s390x, &mut sink).unwrap_err().to_string();
    assert!(err.contains("no manifest for linux/s390x; it has linux/amd64, linux/arm64/v8"), "{err}");

    // An index whose manifest the repository lacks is refused before it is pushed.
    let missing = serde_json::json!({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": [{"mediaType": OCI_MANIFEST, "digest": Digest::of(b"x").to_string(), "size": 1}]});
    let err =
        client.push(&reference(&registry, "olm/multi:v2"), &serde_json::to_vec(&missing).unwrap(), OCI_INDEX, &blobs);
    assert!(err.unwrap_err().to_string().contains("push it before the index"));
}

#[test]
fn digests_the_registry_lacks_and_tags_are_refused_plainly() {
    let Some(registry) = Registry::start() else { return };
    let mut blobs = MemorySource::default();
    let manifest = image(&mut blobs, OCI_MANIFEST, "amd64");
    let mut client = client();
    client.push(&reference(&registry, "olm/bundle:v1"), &manifest, OCI_MANIFEST, &blobs).unwrap();

    // Another valid digest, as a tampered catalog would give: nothing is stored.
    let tampered = reference(&registry, &format!("olm/bundle@{}", Digest::of(b"tampered")));
    let mut sink = MemorySink::default();
    let err = client.pull(&tampered, &Platform::default(), &mut sink).unwrap_err();
    assert!(matches!(err, RegistryError::NotFound { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains(&registry.host()) && text.contains(&tampered.to_string()) && text.contains("manifest"),
        "{text}"
    );
    assert!(sink.blobs.is_empty() && sink.records.is_empty());

    let missing_repo = reference(&registry, &format!("olm/nothing@{}", Digest::of(&manifest)));
    assert!(matches!(client.pull(&missing_repo, &Platform::default(), &mut sink), Err(RegistryError::NotFound { .. })));

    let by_tag = reference(&registry, "olm/bundle:v1");
    let err = client.pull(&by_tag, &Platform::default(), &mut sink).unwrap_err().to_string();
    assert!(err.contains("pulled by digest only") && err.contains("olm/bundle@sha256:<digest>"), "{err}");

    // A manifest naming a blob its source does not have: the source's error, with the image.
    let other = image(&mut MemorySource::default(), OCI_MANIFEST, "arm64");
    let err =
        client.push(&reference(&registry, "olm/bundle:v3"), &other, OCI_MANIFEST, &blobs).unwrap_err().to_string();
    assert!(err.contains("olm/bundle:v3") && err.contains("not in the test's blobs"), "{err}");
}

#[test]
fn skopeo_reads_what_was_pushed_and_writes_what_is_pulled() {
    let Some(registry) = Registry::start() else { return };
    let Some(skopeo) = SKOPEO.find() else { return };
    let mut blobs = MemorySource::default();
    let manifest = image(&mut blobs, OCI_MANIFEST, "amd64");
    let mut client = client();
    let pushed = client.push(&reference(&registry, "olm/bundle:v1"), &manifest, OCI_MANIFEST, &blobs).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let layout = dir.path().join("layout");
    let source = format!("docker://{}/olm/bundle@{pushed}", registry.host());
    let copy = |args: &[&str]| {
        let out = Command::new(&skopeo).arg("copy").args(args).output().unwrap();
        assert!(out.status.success(), "skopeo copy {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    copy(&["--src-tls-verify=false", &source, &format!("oci:{}", layout.display())]);
    for digest in named(&manifest).iter().chain([&pushed]) {
        let blob = std::fs::read(layout.join("blobs/sha256").join(digest.hex())).unwrap();
        assert_eq!(Digest::of(&blob), *digest);
    }

    // skopeo pushes the layout back under another name; the client pulls it.
    let digest_file = dir.path().join("digest");
    let target = format!("docker://{}/olm/copied:v1", registry.host());
    let digest_arg = format!("--digestfile={}", digest_file.display());
    copy(&["--dest-tls-verify=false", &digest_arg, &format!("oci:{}", layout.display()), &target]);
    let copied = Digest::parse(std::fs::read_to_string(&digest_file).unwrap().trim()).unwrap();
    let mut sink = MemorySink::default();
    client.pull(&reference(&registry, &format!("olm/copied@{copied}")), &Platform::default(), &mut sink).unwrap();
    assert!(named(&sink.blobs[&copied]).iter().all(|d| sink.has(d)));
}
