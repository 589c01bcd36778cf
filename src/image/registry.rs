//! A small client of the OCI distribution API: pulls an image by digest into
//! a [`Sink`] (an OCI layout on disk, in the program) and pushes one from a
//! [`Source`].
//!
//! Pulls are by digest only, and every byte is checked: the manifest against
//! the reference's digest (at most 4 MiB of it), the blobs against the
//! manifest's digests as the sink stores them, streamed, never held whole.
//! An index (or docker manifest list) brings the manifests for one platform,
//! linux/amd64 unless told otherwise. Docker schema 1 manifests are refused.
//!
//! TLS: verified, except for a registry on this machine (`localhost`,
//! `127.0.0.1`, `[::1]`) or when [`Options::tls_verify`] is false; then
//! HTTPS is tried without verifying the certificate, and plain HTTP if the
//! registry does not speak HTTPS (as skopeo's `--tls-verify=false` does).

mod error;
mod pull;
mod push;
mod session;

use std::io::Read;
use std::path::PathBuf;

use serde::Deserialize;

use super::{Digest, Reference};
pub use error::RegistryError;
use session::{Session, Target};

use super::manifest::{DOCKER_LIST, DOCKER_MANIFEST, OCI_INDEX, OCI_MANIFEST};
pub(crate) use super::Platform;

/// The most manifest bytes a pull reads.
const MANIFEST_LIMIT: u64 = 4 << 20;

/// Where pulled blobs go (an OCI layout on disk, in the program).
pub trait Sink {
    /// Whether the blob is already stored (then it is not pulled again).
    fn has(&self, digest: &Digest) -> bool;
    /// Stores a blob streamed from the registry; the sink checks it against `digest` as it writes it.
    fn put(&mut self, digest: &Digest, body: &mut dyn Read) -> Result<u64, RegistryError>;
    /// Records a pulled manifest or index (its bytes already stored) under the reference it was pulled by.
    fn record(&mut self, digest: &Digest, media_type: &str, size: u64, reference: &str) -> Result<(), RegistryError>;
}

/// Where pushed blobs come from.
pub trait Source {
    /// The blob's bytes and its length.
    fn open(&self, digest: &Digest) -> Result<(Box<dyn Read>, u64), RegistryError>;
}

/// The client's options.
#[derive(Debug, Clone)]
pub struct Options {
    /// Verify registries' TLS certificates (registries on this machine never are).
    pub tls_verify: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { tls_verify: true }
    }
}

/// What is told one line per image pulled or pushed.
type Progress = Box<dyn FnMut(&str)>;

/// A registry client: one per program run, so that what it learns of a
/// registry (scheme, tokens, credentials) is learnt once.
pub struct Client {
    session: Session,
    progress: Option<Progress>,
}

/// The parts of a manifest or index a pull or push reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Parsed {
    schema_version: Option<u64>,
    media_type: Option<String>,
    config: Option<Descriptor>,
    #[serde(default)]
    layers: Vec<Descriptor>,
    manifests: Option<Vec<Descriptor>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor {
    digest: String,
    size: u64,
    platform: Option<Platform>,
}

/// What a manifest's bytes are.
enum Kind {
    Index,
    Image,
}

/// What a pull did, for its progress line.
#[derive(Default)]
struct Tally {
    fetched: usize,
    bytes: u64,
    held: usize,
}

impl Client {
    /// A client reading credentials where skopeo and podman read them.
    pub fn new(options: Options) -> Client {
        let files = super::auth::auth_files(&|name| std::env::var(name).ok());
        Client::with_auth_files(options, files)
    }

    /// A client reading credentials from these files only, in order.
    pub fn with_auth_files(options: Options, auth_files: Vec<PathBuf>) -> Client {
        Client { session: Session::new(options.tls_verify, auth_files), progress: None }
    }

    /// Has one line said per image pulled or pushed (for a terminal).
    pub fn on_progress(&mut self, progress: impl FnMut(&str) + 'static) {
        self.progress = Some(Box::new(progress));
    }

    fn say(&mut self, line: &str) {
        if let Some(progress) = &mut self.progress {
            progress(line);
        }
    }
}

/// The sink's or source's error, told with the image.
fn for_image(reference: &Reference) -> impl Fn(RegistryError) -> RegistryError + '_ {
    move |e| RegistryError::For { reference: reference.to_string(), source: Box::new(e) }
}

/// The error for an answer other than the one expected.
fn answer_error(
    session: &mut Session,
    t: &Target,
    what: &str,
    mut response: ureq::http::Response<ureq::Body>,
) -> RegistryError {
    let (reference, registry, what) = (t.reference.to_string(), t.reference.registry.clone(), what.to_string());
    match response.status().as_u16() {
        404 => RegistryError::NotFound { reference, registry, what },
        401 | 403 => {
            let found = session.lookup(t).unwrap_or_default();
            session::unauthorized(t, &what, &found)
        }
        status => {
            let body = response.body_mut().with_config().limit(64 << 10).read_to_string().unwrap_or_default();
            let json: Option<serde_json::Value> = serde_json::from_str(&body).ok();
            let message = json.as_ref().and_then(|j| j.pointer("/errors/0/message")?.as_str().map(str::to_string));
            let detail = message.map(|m| format!(": {m}")).unwrap_or_default();
            RegistryError::Status { reference, registry, what, status, detail }
        }
    }
}

/// Reads a manifest or index as olm-rbac pulls and pushes them; `media_type`
/// is what the registry or the caller says it is, the bytes' own
/// `mediaType` first.
fn parse(t: &Target, bytes: &[u8], media_type: &str, what: &str) -> Result<(Kind, String, Parsed), RegistryError> {
    let reference = t.reference.to_string();
    let bad =
        |detail: String| RegistryError::BadManifest { reference: reference.clone(), what: what.to_string(), detail };
    let parsed: Parsed = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
    let media_type =
        parsed.media_type.clone().unwrap_or_else(|| media_type.split(';').next().unwrap_or("").trim().to_string());
    let schema1 = parsed.schema_version == Some(1) || media_type.contains("manifest.v1");
    let kind = match media_type.as_str() {
        OCI_INDEX | DOCKER_LIST => Kind::Index,
        OCI_MANIFEST | DOCKER_MANIFEST => Kind::Image,
        "" if parsed.manifests.is_some() => Kind::Index,
        "" if parsed.config.is_some() && !schema1 => Kind::Image,
        _ => {
            let hint = if schema1 {
                "; it is a docker schema 1 manifest: copy the image again with a current tool (skopeo copy --format v2s2)"
            } else {
                ""
            };
            let media_type = if media_type.is_empty() && schema1 { "docker schema 1".to_string() } else { media_type };
            return Err(RegistryError::Unsupported {
                reference,
                what: what.to_string(),
                media_type,
                hint: hint.to_string(),
            });
        }
    };
    match kind {
        Kind::Index if parsed.manifests.is_none() => return Err(bad("an index without manifests".to_string())),
        Kind::Image if parsed.config.is_none() => return Err(bad("an image manifest without a config".to_string())),
        _ => {}
    }
    Ok((kind, media_type, parsed))
}

/// A descriptor's digest, strictly read.
fn digest_of(t: &Target, d: &Descriptor, what: &str) -> Result<Digest, RegistryError> {
    Digest::parse(&d.digest).ok_or_else(|| RegistryError::BadManifest {
        reference: t.reference.to_string(),
        what: what.to_string(),
        detail: format!("{:?} is not a sha256 digest", d.digest),
    })
}

/// `/v2/<repository>/<kind>/<digest or tag>`: every part validated already.
fn api_path(reference: &Reference, kind: &str, name: &str) -> String {
    format!("/v2/{}/{kind}/{name}", reference.repository)
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;

    use super::*;

    type Answer = (u16, String, Vec<u8>);

    /// A registry on this machine that answers `answer(its port, path,
    /// authorization)`: a lying one, to see the client check what a real
    /// registry never gets wrong.
    fn serve(answer: impl Fn(u16, &str, &str) -> Answer + Send + 'static) -> u16 {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(&stream);
                let (mut path, mut authorization, mut line) = (String::new(), String::new(), String::new());
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    if let Some(rest) = line.strip_prefix("GET ") {
                        path = rest.split(' ').next().unwrap_or_default().to_string();
                    }
                    if line.to_ascii_lowercase().starts_with("authorization:") {
                        authorization = line[14..].trim().to_string();
                    }
                    line.clear();
                }
                let (status, headers, body) = answer(port, &path, &authorization);
                let length = body.len();
                let head =
                    format!("HTTP/1.1 {status} X\r\nContent-Length: {length}\r\nConnection: close\r\n{headers}\r\n");
                let mut stream = &stream;
                let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(&body));
            }
        });
        port
    }

    #[test]
    fn tokens_are_fetched_and_lying_registries_are_caught() {
        let schema1 = br#"{"schemaVersion": 1, "name": "org/img", "fsLayers": []}"#.to_vec();
        let schema1_digest = Digest::of(&schema1);
        let wanted = Digest::of(b"the manifest the catalog names");
        let wanted_path = format!("/v2/org/img/manifests/{wanted}");
        let port = serve(move |port, path, authorization| match path {
            p if p.starts_with("/token?") => {
                let asked = p.contains("scope=repository%3Aorg%2Fimg%3Apull") && p.contains("service=test");
                let token: &[u8] = if asked { br#"{"token": "t0k"}"# } else { b"{}" };
                (200, String::new(), token.to_vec())
            }
            _ if authorization != "Bearer t0k" => {
                let realm = format!("http://127.0.0.1:{port}/token");
                (401, format!("WWW-Authenticate: Bearer realm=\"{realm}\",service=\"test\"\r\n"), Vec::new())
            }
            p if p == wanted_path => (200, String::new(), br#"{"schemaVersion": 2}"#.to_vec()),
            _ => (
                200,
                "Content-Type: application/vnd.docker.distribution.manifest.v1+prettyjws\r\n".into(),
                schema1.clone(),
            ),
        });
        let mut client = Client::with_auth_files(Options::default(), Vec::new());
        let mut sink = Nothing;
        let at = |digest: &Digest| Reference::parse(&format!("127.0.0.1:{port}/org/img@{digest}")).unwrap();
        let err = client.pull(&at(&wanted), &Platform::default(), &mut sink).unwrap_err();
        assert!(matches!(err, RegistryError::DigestMismatch { .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.contains(&format!("registry 127.0.0.1:{port}")) && text.contains(&wanted.to_string()), "{text}");
        let err = client.pull(&at(&schema1_digest), &Platform::default(), &mut sink).unwrap_err().to_string();
        assert!(err.contains("docker schema 1 manifest"), "{err}");
    }

    /// A sink a test never reaches.
    struct Nothing;

    impl Sink for Nothing {
        fn has(&self, _: &Digest) -> bool {
            false
        }
        fn put(&mut self, digest: &Digest, _: &mut dyn Read) -> Result<u64, RegistryError> {
            panic!("{digest} was stored")
        }
        fn record(&mut self, digest: &Digest, _: &str, _: u64, _: &str) -> Result<(), RegistryError> {
            panic!("{digest} was recorded")
        }
    }
}
