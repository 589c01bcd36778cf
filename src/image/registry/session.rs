//! The HTTP side of the registry client: which scheme a registry answers
//! on, and the token or basic authorization it asks for.
//!
//! Each request goes out anonymously or with the authorization already
//! earned for its repository; a 401 with a `Bearer` challenge gets a token
//! from the challenge's realm (with the user's credentials when the
//! credential files have some), a `Basic` challenge the credentials
//! themselves, and the request is sent once more.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use ureq::http::{Request, Response};
use ureq::{Agent, Body, SendBody};

use super::error::RegistryError;
use crate::image::auth::{self, Lookup};
use crate::image::Reference;

/// What a request is for: the image (for messages and credentials) and
/// whether it writes.
pub(super) struct Target<'a> {
    pub reference: &'a Reference,
    pub push: bool,
}

impl Target<'_> {
    /// An error about this image's registry.
    pub fn unreachable(&self, detail: String) -> RegistryError {
        RegistryError::Unreachable {
            reference: self.reference.to_string(),
            registry: self.reference.registry.clone(),
            detail,
        }
    }
}

/// A request's body.
pub(super) enum Payload<'a> {
    Empty,
    Bytes(&'a [u8]),
    /// A blob streamed from its source, of the given length: sent once, so
    /// it is never retried after a challenge.
    Stream(&'a mut dyn Read, u64),
}

/// Where a registry answers, learnt once.
#[derive(Clone)]
struct Base {
    url: String,
    unverified: bool,
}

/// Agents, the registries' schemes, and the authorizations earned.
pub(super) struct Session {
    verified: Agent,
    unverified: Agent,
    tls_verify: bool,
    bases: HashMap<String, Base>,
    authorizations: HashMap<String, String>,
    credentials: HashMap<String, Lookup>,
    auth_files: Vec<PathBuf>,
}

fn agent(verify: bool) -> Agent {
    let tls = ureq::tls::TlsConfig::builder().disable_verification(!verify).build();
    Agent::config_builder()
        .http_status_as_error(false)
        // Blobs are hashed as sent: never let the client decompress them.
        .accept_encoding(ureq::config::AutoHeaderValue::None)
        .redirect_auth_headers(ureq::config::RedirectAuthHeaders::SameHost)
        .max_redirects(10)
        .user_agent(concat!("olm-rbac/", env!("CARGO_PKG_VERSION")))
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_recv_response(Some(Duration::from_secs(120)))
        .timeout_per_read(Some(Duration::from_secs(120)))
        .tls_config(tls)
        .build()
        .new_agent()
}

impl Session {
    pub fn new(tls_verify: bool, auth_files: Vec<PathBuf>) -> Session {
        Session {
            verified: agent(true),
            unverified: agent(false),
            tls_verify,
            bases: HashMap::new(),
            authorizations: HashMap::new(),
            credentials: HashMap::new(),
            auth_files,
        }
    }

    /// The registry's `scheme://host`: HTTPS, verified unless the registry
    /// is local or verification is off; then unverified HTTPS, else HTTP.
    fn base(&mut self, t: &Target) -> Result<Base, RegistryError> {
        let registry = &t.reference.registry;
        if let Some(base) = self.bases.get(registry) {
            return Ok(base.clone());
        }
        let host = t.reference.api_host();
        let lenient = !self.tls_verify || t.reference.is_local();
        let tries: &[(&str, bool)] = if lenient { &[("https", true), ("http", true)] } else { &[("https", false)] };
        let mut failures = Vec::new();
        for &(scheme, unverified) in tries {
            let url = format!("{scheme}://{host}");
            let agent = if unverified { &self.unverified } else { &self.verified };
            match agent.get(format!("{url}/v2/")).call() {
                Ok(_) => {
                    let base = Base { url, unverified };
                    self.bases.insert(registry.clone(), base.clone());
                    return Ok(base);
                }
                Err(e) => failures.push(format!("{url}: {e}")),
            }
        }
        Err(t.unreachable(failures.join("; ")))
    }

    /// Sends a request to the image's registry (`path` under its base, or
    /// an absolute URL a registry gave), authorizing it when challenged.
    pub fn send(
        &mut self,
        t: &Target,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        mut payload: Payload,
    ) -> Result<Response<Body>, RegistryError> {
        let base = self.base(t)?;
        let url = if path.starts_with('/') { format!("{}{path}", base.url) } else { path.to_string() };
        // Credentials go only to the registry itself, never to a URL it names elsewhere.
        let ours = url.starts_with(&format!("{}/", base.url));
        let key = format!("{} {} {}", t.reference.registry, t.reference.repository, t.push);
        let mut retried = false;
        loop {
            let authorization = self.authorizations.get(&key).filter(|_| ours).cloned();
            let mut request = Request::builder().method(method).uri(&url);
            for (name, value) in headers {
                request = request.header(*name, *value);
            }
            if let Some(value) = &authorization {
                request = request.header("Authorization", value);
            }
            let agent = if base.unverified { &self.unverified } else { &self.verified };
            let sent = match &mut payload {
                Payload::Empty => request.body(()).map(|r| agent.run(r)),
                Payload::Bytes(bytes) => request.body(*bytes).map(|r| agent.run(r)),
                Payload::Stream(reader, length) => request
                    .header("Content-Length", length.to_string())
                    .body(SendBody::from_reader(&mut **reader))
                    .map(|r| agent.run(r)),
            };
            let sent = sent.map_err(|e| t.unreachable(format!("{url}: {e}")))?;
            let response = sent.map_err(|e| t.unreachable(format!("{method} {url}: {e}")))?;
            let status = response.status().as_u16();
            let may_retry = !retried && ours && !matches!(payload, Payload::Stream(..));
            if status != 401 || !may_retry {
                return Ok(response);
            }
            let challenge = response.headers().get("WWW-Authenticate").and_then(|v| v.to_str().ok()).unwrap_or("");
            let value = self.authorize(t, &base, challenge)?;
            self.authorizations.insert(key.clone(), value);
            retried = true;
        }
    }

    /// What the credential files hold for the image's registry (read once).
    pub fn lookup(&mut self, t: &Target) -> Result<Lookup, RegistryError> {
        let r = t.reference;
        let key = r.name();
        if let Some(found) = self.credentials.get(&key) {
            return Ok(found.clone());
        }
        let found = auth::lookup(&self.auth_files, &r.registry, &r.repository).map_err(|detail| {
            RegistryError::Credentials { reference: r.to_string(), registry: r.registry.clone(), detail }
        })?;
        self.credentials.insert(key, found.clone());
        Ok(found)
    }

    /// The Authorization header a challenge asks for.
    fn authorize(&mut self, t: &Target, base: &Base, challenge: &str) -> Result<String, RegistryError> {
        let found = self.lookup(t)?;
        let basic = found
            .credentials
            .as_ref()
            .map(|c| format!("Basic {}", auth::base64_encode(format!("{}:{}", c.username, c.password).as_bytes())));
        let (scheme, params) = challenge.split_once(' ').unwrap_or((challenge, ""));
        if scheme.eq_ignore_ascii_case("basic") {
            return basic.ok_or_else(|| unauthorized(t, "a user name and password", &found));
        }
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(unauthorized(t, &format!("an authorization olm-rbac does not know ({challenge:?})"), &found));
        }
        let params = auth_params(params);
        let param = |name: &str| params.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
        let realm = param("realm").unwrap_or_default();
        // A token realm gets the user's credentials: over HTTPS only, unless
        // the registry itself is spoken to in plain HTTP.
        if !(realm.starts_with("https://") || (realm.starts_with("http://") && base.url.starts_with("http://"))) {
            return Err(t.unreachable(format!("its token service {realm:?} is not an https:// URL")));
        }
        let action = if t.push { "pull,push" } else { "pull" };
        let own_scope = format!("repository:{}:{action}", t.reference.repository);
        let mut url = format!(
            "{realm}{}scope={}",
            if realm.contains('?') { '&' } else { '?' },
            query(param("scope").unwrap_or(&own_scope))
        );
        if let Some(service) = param("service") {
            url.push_str(&format!("&service={}", query(service)));
        }
        let agent = if base.unverified { &self.unverified } else { &self.verified };
        let mut request = agent.get(&url);
        if let Some(basic) = &basic {
            request = request.header("Authorization", basic);
        }
        let mut response = request.call().map_err(|e| t.unreachable(format!("its token service {realm}: {e}")))?;
        if response.status().as_u16() != 200 {
            let what = format!("a token (its token service {realm} answered {})", response.status().as_u16());
            return Err(unauthorized(t, &what, &found));
        }
        let body = response.body_mut().with_config().limit(1 << 20).read_to_vec();
        let json: Option<serde_json::Value> = body.ok().and_then(|b| serde_json::from_slice(&b).ok());
        let token = json.as_ref().and_then(|j| j.get("token").or_else(|| j.get("access_token"))?.as_str());
        let token = token.ok_or_else(|| t.unreachable(format!("its token service {realm} sent no token")))?;
        Ok(format!("Bearer {token}"))
    }
}

/// The error for a registry that wants credentials olm-rbac does not have.
pub(super) fn unauthorized(t: &Target, what: &str, found: &Lookup) -> RegistryError {
    let hint = match (&found.credentials, &found.helper, &found.source) {
        (Some(_), _, Some(source)) => format!("; the credentials used are from {source}"),
        (None, Some(helper), _) => {
            format!("; its credentials are kept by the credential helper {helper}, which olm-rbac does not run: log in with `skopeo login` or `podman login` so that they are in auth.json")
        }
        _ => "; no credentials for it were found in the credential files (log in with `skopeo login`, or set REGISTRY_AUTH_FILE)".to_string(),
    };
    RegistryError::Unauthorized {
        reference: t.reference.to_string(),
        registry: t.reference.registry.clone(),
        what: what.to_string(),
        hint,
    }
}

/// `key="value", key=token` pairs of a challenge.
fn auth_params(text: &str) -> Vec<(String, String)> {
    let mut params = Vec::new();
    let mut rest = text.trim();
    while let Some((key, after)) = rest.split_once('=') {
        let key = key.trim().trim_start_matches(',').trim().to_string();
        let (value, after) = match after.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"').unwrap_or(quoted.len());
                (quoted[..end].to_string(), quoted.get(end + 1..).unwrap_or(""))
            }
            None => {
                let end = after.find(',').unwrap_or(after.len());
                (after[..end].trim().to_string(), &after[end..])
            }
        };
        params.push((key, value));
        rest = after.trim_start().trim_start_matches(',');
    }
    params
}

/// Percent-encodes a query value.
pub(super) fn query(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => char::from(b).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_read() {
        let params = auth_params(
            r#"realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/busybox:pull,push""#,
        );
        let want = [
            ("realm", "https://auth.docker.io/token"),
            ("service", "registry.docker.io"),
            ("scope", "repository:library/busybox:pull,push"),
        ];
        assert_eq!(params, want.map(|(k, v)| (k.to_string(), v.to_string())));
        assert_eq!(auth_params(r#"realm=x, error="invalid_token""#).len(), 2);
        assert_eq!(auth_params(r#"realm="unterminated"#), [("realm".to_string(), "unterminated".to_string())]);
        assert_eq!(query("repository:a/b:pull,push"), "repository%3Aa%2Fb%3Apull%2Cpush");
    }
}
