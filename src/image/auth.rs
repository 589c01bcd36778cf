//! Registry credentials where skopeo and podman read them: containers'
//! `auth.json` files, then docker's `config.json`.
//!
//! The files, as containers-auth.json(5) orders them: `$REGISTRY_AUTH_FILE`
//! alone when it is set; otherwise `$XDG_RUNTIME_DIR/containers/auth.json`,
//! `$XDG_CONFIG_HOME/containers/auth.json` (`~/.config/…` by default), and
//! docker's `$DOCKER_CONFIG/config.json` (`~/.docker/config.json` when
//! `DOCKER_CONFIG` is unset). The first file with an entry for the image wins.
//!
//! Within a file, `auths` keys are matched most specific first: a
//! repository-scoped key (`quay.io/org/img`, then `quay.io/org`) before the
//! registry's (`quay.io`), then docker's URL forms (`https://quay.io`,
//! `https://index.docker.io/v1/` for docker.io). Credential helpers
//! (`credHelpers`, `credsStore`) are not run: a lookup only notes them, for
//! the error when the registry turns out to need credentials.

use std::path::{Path, PathBuf};

/// A user name and password for a registry.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    /// The user name.
    pub username: String,
    /// The password or token.
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Credentials({:?}, <password>)", self.username)
    }
}

/// What the credential files say about one image's registry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lookup {
    /// The credentials found, if any.
    pub credentials: Option<Credentials>,
    /// Where they were found: `FILE (key KEY)`.
    pub source: Option<String>,
    /// A credential helper a file names for this registry, which olm-rbac
    /// does not run: `docker-credential-NAME (in FILE)`.
    pub helper: Option<String>,
}

/// The credential files to read, in order, given the environment (`env`
/// reads one variable; `HOME` included).
pub fn auth_files(env: &dyn Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(file) = set("REGISTRY_AUTH_FILE") {
        return vec![file];
    }
    let home = set("HOME");
    let mut files = Vec::new();
    if let Some(runtime) = set("XDG_RUNTIME_DIR") {
        files.push(runtime.join("containers/auth.json"));
    }
    if let Some(config) = set("XDG_CONFIG_HOME").or_else(|| home.as_ref().map(|h| h.join(".config"))) {
        files.push(config.join("containers/auth.json"));
    }
    if let Some(docker) = set("DOCKER_CONFIG").or_else(|| home.as_ref().map(|h| h.join(".docker"))) {
        files.push(docker.join("config.json"));
    }
    files
}

/// Looks up credentials for `registry` (as a reference names it:
/// `docker.io`, `quay.io`, `localhost:5000`) and `repository` in `files`;
/// missing files are skipped, a file that is not JSON is an error naming it.
pub fn lookup(files: &[PathBuf], registry: &str, repository: &str) -> Result<Lookup, String> {
    let mut found = Lookup::default();
    for file in files {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("cannot read the credentials file {}: {e}", file.display())),
        };
        let json: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("the credentials file {} is not JSON: {e}", file.display()))?;
        if found.helper.is_none() {
            found.helper = helper_in(&json, registry, file);
        }
        if let Some((key, auth)) = entry_in(&json, registry, repository) {
            let credentials = decode_auth(auth).ok_or_else(|| {
                format!("the credentials for {key:?} in {} are not base64 of user:password", file.display())
            })?;
            found.credentials = Some(credentials);
            found.source = Some(format!("{} (key {key})", file.display()));
            return Ok(found);
        }
    }
    Ok(found)
}

/// The credential helper a file names for `registry`: its `credHelpers`
/// entry, else its `credsStore`.
fn helper_in(json: &serde_json::Value, registry: &str, file: &Path) -> Option<String> {
    let helpers = json.get("credHelpers").and_then(|h| h.as_object());
    let named = helpers.and_then(|h| h.iter().find(|(key, _)| normalized(key) == registry)).map(|(_, v)| v);
    let helper = named.or_else(|| json.get("credsStore"))?.as_str().filter(|h| !h.is_empty())?;
    Some(format!("docker-credential-{helper} (in {})", file.display()))
}

/// The most specific `auths` key for the image with a non-empty `auth`.
fn entry_in<'a>(json: &'a serde_json::Value, registry: &str, repository: &str) -> Option<(String, &'a str)> {
    let auths = json.get("auths")?.as_object()?;
    let auth_of = |key: &str| auths.get(key)?.get("auth")?.as_str().filter(|a| !a.is_empty());
    let mut scope = format!("{registry}/{repository}");
    loop {
        if let Some(auth) = auth_of(&scope) {
            return Some((scope, auth));
        }
        match scope.rfind('/') {
            Some(i) => scope.truncate(i),
            None => break,
        }
    }
    auths
        .keys()
        .filter(|key| key.contains("://") || *key == "index.docker.io")
        .find(|key| normalized(key) == registry)
        .and_then(|key| Some((key.clone(), auth_of(key)?)))
}

/// A docker-style key as a reference's registry: without scheme or path,
/// docker.io's other names as `docker.io`.
fn normalized(key: &str) -> &str {
    let host = key.split_once("://").map_or(key, |(_, rest)| rest);
    let host = host.split('/').next().unwrap_or_default();
    match host {
        "index.docker.io" | "registry-1.docker.io" => "docker.io",
        host => host,
    }
}

/// `base64("user:password")` as docker writes `auth`.
fn decode_auth(auth: &str) -> Option<Credentials> {
    let text = String::from_utf8(base64_decode(auth.trim())?).ok()?;
    let (username, password) = text.split_once(':')?;
    Some(Credentials { username: username.to_string(), password: password.to_string() })
}

/// Standard base64 with its padding; anything else is refused.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for (i, chunk) in bytes.chunks(4).enumerate() {
        let last = i + 1 == bytes.len() / 4;
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &chunk[..4 - pad] {
            n = n << 6 | u32::from(value(c)?);
        }
        n <<= 6 * pad as u32;
        out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
    }
    Some(out)
}

/// Encodes `user:password` for a `Basic` Authorization header.
pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            let c = if i <= chunk.len() { ALPHABET[(n >> (18 - 6 * i) & 63) as usize] } else { b'=' };
            out.push(char::from(c));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_is_strict() {
        for text in ["", "a", "ab", "abc", "user:pass", "üser:p@ss:with:colons"] {
            let encoded = base64_encode(text.as_bytes());
            assert_eq!(base64_decode(&encoded).as_deref(), Some(text.as_bytes()), "{encoded}");
        }
        assert_eq!(base64_encode(b"user:pass"), "dXNlcjpwYXNz");
        for bad in ["dXNlcjpwYXN", "dXNl cjpw", "dX==cjpw", "dXNlcjpwYXNz===", "dXNlcjpwYXN-", "===="] {
            assert_eq!(base64_decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn files_are_read_where_skopeo_reads_them() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        let files = auth_files(&env(&[("HOME", "/h"), ("XDG_RUNTIME_DIR", "/run/u")]));
        let want = ["/run/u/containers/auth.json", "/h/.config/containers/auth.json", "/h/.docker/config.json"];
        assert_eq!(files, want.map(PathBuf::from));
        let files = auth_files(&env(&[("HOME", "/h"), ("XDG_CONFIG_HOME", "/c"), ("DOCKER_CONFIG", "/d")]));
        assert_eq!(files, ["/c/containers/auth.json", "/d/config.json"].map(PathBuf::from));
        let files = auth_files(&env(&[("HOME", "/h"), ("REGISTRY_AUTH_FILE", "/a.json")]));
        assert_eq!(files, [PathBuf::from("/a.json")]);
    }

    fn write(dir: &Path, name: &str, json: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, json).unwrap();
        path
    }

    #[test]
    fn the_most_specific_key_in_the_first_file_wins() {
        let dir = tempfile::tempdir().unwrap();
        let (org, reg, hub) = (base64_encode(b"org:1"), base64_encode(b"reg:2"), base64_encode(b"hub:3"));
        let first = write(
            dir.path(),
            "auth.json",
            &format!(r#"{{"auths": {{"quay.io": {{"auth": "{reg}"}}, "quay.io/org": {{"auth": "{org}"}}}}}}"#),
        );
        let docker = write(
            dir.path(),
            "config.json",
            &format!(
                r#"{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{hub}"}}, "https://ghcr.io": {{"auth": "{reg}"}}}},
                   "credHelpers": {{"gcr.io": "gcloud"}}}}"#
            ),
        );
        let files = [dir.path().join("missing.json"), first, docker];
        let user = |registry: &str, repo: &str| lookup(&files, registry, repo).unwrap().credentials.map(|c| c.username);
        assert_eq!(user("quay.io", "org/img").as_deref(), Some("org"));
        assert_eq!(user("quay.io", "other/img").as_deref(), Some("reg"));
        assert_eq!(user("docker.io", "library/busybox").as_deref(), Some("hub"));
        assert_eq!(user("ghcr.io", "a/b").as_deref(), Some("reg"));
        assert_eq!(user("example.com", "a/b"), None);
        let gcr = lookup(&files, "gcr.io", "p/img").unwrap();
        assert_eq!(gcr.credentials, None);
        assert!(gcr.helper.is_some_and(|h| h.starts_with("docker-credential-gcloud (in ")));
        let found = lookup(&files, "quay.io", "org/img").unwrap();
        assert!(found.source.is_some_and(|s| s.ends_with("auth.json (key quay.io/org)")));
    }

    #[test]
    fn broken_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let bad = write(dir.path(), "bad.json", "{not json");
        assert!(lookup(std::slice::from_ref(&bad), "quay.io", "a").unwrap_err().contains("bad.json is not JSON"));
        let bad = write(dir.path(), "bad64.json", r#"{"auths": {"quay.io": {"auth": "%%%%"}}}"#);
        assert!(lookup(&[bad], "quay.io", "a").unwrap_err().contains("not base64"));
    }
}
