//! Image references as containers/image and docker read them:
//! `[registry/]repository[:tag][@sha256:<hex>]`, docker.io by default.
//!
//! Validated strictly, because a reference comes from a catalog someone else
//! wrote and ends up in a URL: a repository is lowercase path components
//! joined by `/`, a tag is a word of at most 128 characters, a registry a
//! host name or address with an optional port. Nothing else gets through, so
//! no `..`, `?`, `#`, `%` or space can reach a request path.

use super::Digest;

/// The registry a reference without one names.
pub const DOCKER_HUB: &str = "docker.io";

/// The host docker.io's registry API answers on.
pub const DOCKER_HUB_API: &str = "registry-1.docker.io";

/// A parsed image reference: where the image is and which one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference {
    /// The registry's host, with its port when one is given: `quay.io`,
    /// `localhost:5000`, `docker.io` (not its API host).
    pub registry: String,
    /// The repository within the registry: `org/img`, `library/busybox`.
    pub repository: String,
    /// The tag, when one is given.
    pub tag: Option<String>,
    /// The manifest's digest, when one is given.
    pub digest: Option<Digest>,
}

/// The digest an image reference names its content by (`…@sha256:<hex>`,
/// lowercase as containers/image requires), if it names one: what a verdict
/// about the image binds.
pub fn pinned_digest(image: &str) -> Option<Digest> {
    image.rsplit_once('@').and_then(|(_, digest)| Digest::parse(digest))
}

impl Reference {
    /// Reads an image reference, or says in the user's terms why it is not one.
    pub fn parse(text: &str) -> Result<Reference, String> {
        if text.is_empty() || text.len() > 512 {
            return Err("it is empty or longer than 512 characters".to_string());
        }
        let (name, digest) = match text.split_once('@') {
            Some((name, digest)) => {
                let digest = Digest::parse(digest)
                    .ok_or_else(|| format!("{digest:?} is not a digest (sha256: and 64 lowercase hex digits)"))?;
                (name, Some(digest))
            }
            None => (text, None),
        };
        // A tag's `:` comes after the last `/`; a port's comes before it.
        let last_slash = name.rfind('/').map_or(0, |i| i + 1);
        let (name, tag) = match name[last_slash..].rfind(':') {
            Some(i) => (&name[..last_slash + i], Some(&name[last_slash + i + 1..])),
            None => (name, None),
        };
        if let Some(tag) = tag.filter(|t| !valid_tag(t)) {
            return Err(format!(
                "its tag {tag:?} is not a tag (a letter, digit or _, then up to 127 of those, . or -)"
            ));
        }
        let (registry, repository) = split_registry(name)?;
        let repository = match (registry.as_str(), repository.contains('/')) {
            (DOCKER_HUB, false) => format!("library/{repository}"),
            _ => repository.to_string(),
        };
        if let Some(bad) = repository.split('/').find(|c| !valid_component(c)) {
            return Err(format!(
                "its repository path has {bad:?}, which is not a lowercase name (letters, digits, and single ., _, __ or - between them)"
            ));
        }
        if registry.len() + 1 + repository.len() > 255 {
            return Err("its name is longer than 255 characters".to_string());
        }
        Ok(Reference { registry, repository, tag: tag.map(str::to_string), digest })
    }

    /// The host the registry's API answers on (docker.io's differs from its name).
    pub fn api_host(&self) -> &str {
        if self.registry == DOCKER_HUB {
            DOCKER_HUB_API
        } else {
            &self.registry
        }
    }

    /// Whether the registry is this machine, where plain HTTP is allowed.
    pub fn is_local(&self) -> bool {
        let host = match self.registry.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or_default(),
            None => self.registry.split(':').next().unwrap_or_default(),
        };
        matches!(host, "localhost" | "127.0.0.1" | "::1")
    }

    /// `registry/repository`: the image without tag or digest.
    pub fn name(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }
}

/// Splits `name` into registry and repository: the first component is a
/// registry when it has a `.` or `:`, is `localhost`, or has an uppercase
/// letter (which no repository has); otherwise the registry is docker.io.
fn split_registry(name: &str) -> Result<(String, &str), String> {
    let (first, rest) = match name.split_once('/') {
        Some((first, rest))
            if first.contains(['.', ':']) || first == "localhost" || first.bytes().any(|b| b.is_ascii_uppercase()) =>
        {
            (first, rest)
        }
        _ => return Ok((DOCKER_HUB.to_string(), name)),
    };
    if !valid_registry(first) {
        return Err(format!("{first:?} is not a registry host (a host name or address and an optional port)"));
    }
    let registry = if first == "index.docker.io" { DOCKER_HUB } else { first };
    Ok((registry.to_string(), rest))
}

/// A host name (`a-b.c`), an IPv4 address, or a bracketed IPv6 address,
/// and an optional `:port`.
fn valid_registry(text: &str) -> bool {
    let (host, port) = if let Some(v6) = text.strip_prefix('[') {
        let Some((addr, after)) = v6.split_once(']') else { return false };
        let addr_ok = !addr.is_empty() && addr.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
        if !addr_ok {
            return false;
        }
        match after.strip_prefix(':') {
            _ if after.is_empty() => return true,
            Some(port) => ("x", Some(port)),
            None => return false,
        }
    } else {
        match text.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (text, None),
        }
    };
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    let port_ok = port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
    host.split('.').all(label_ok) && port_ok
}

/// A repository path component: `[a-z0-9]+` runs joined by `.`, `_`, `__`
/// or a run of `-`.
fn valid_component(text: &str) -> bool {
    let bytes = text.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if bytes.is_empty() || !alnum(bytes[0]) || !alnum(bytes[bytes.len() - 1]) {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        if alnum(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !alnum(bytes[i]) {
            i += 1;
        }
        let separator = &text[start..i];
        if !(matches!(separator, "." | "_" | "__") || separator.bytes().all(|b| b == b'-')) {
            return false;
        }
    }
    true
}

/// `[\w][\w.-]{0,127}`.
fn valid_tag(text: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = text.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 128
        && word(bytes[0])
        && bytes.iter().all(|&b| word(b) || b == b'.' || b == b'-')
}

impl std::fmt::Display for Reference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn parts(text: &str) -> (String, String, Option<String>, Option<String>) {
        let r = Reference::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        (r.registry, r.repository, r.tag, r.digest.map(|d| d.to_string()))
    }

    #[test]
    fn references_read_as_containers_read_them() {
        let digest = format!("sha256:{HEX}");
        let s = |v: &str| v.to_string();
        assert_eq!(parts("busybox"), (s("docker.io"), s("library/busybox"), None, None));
        assert_eq!(parts("busybox:1.36"), (s("docker.io"), s("library/busybox"), Some(s("1.36")), None));
        assert_eq!(parts("org/img"), (s("docker.io"), s("org/img"), None, None));
        assert_eq!(parts("index.docker.io/org/img").0, "docker.io");
        assert_eq!(
            parts(&format!("quay.io/org/img@{digest}")),
            (s("quay.io"), s("org/img"), None, Some(digest.clone()))
        );
        assert_eq!(
            parts(&format!("img:v1@{digest}")),
            (s("docker.io"), s("library/img"), Some(s("v1")), Some(digest.clone()))
        );
        assert_eq!(parts("localhost:5000/x"), (s("localhost:5000"), s("x"), None, None));
        assert_eq!(parts("localhost/x:t"), (s("localhost"), s("x"), Some(s("t")), None));
        assert_eq!(parts("[::1]:5000/a/b-c__d.e"), (s("[::1]:5000"), s("a/b-c__d.e"), None, None));
        assert_eq!(parts("registry.example.com:443/a/b/c:latest").2, Some(s("latest")));
        assert_eq!(parts("a---b/c").1, "a---b/c");
    }

    #[test]
    fn hostile_strings_are_not_references() {
        for bad in [
            "",
            "quay.io/../etc/passwd",
            "quay.io/org/img:../x",
            "quay.io/org/Img",
            "quay.io/org/img?x=1",
            "quay.io/org/img#frag",
            "quay.io/org/img%2f",
            "quay.io//img",
            "quay.io/org/img/",
            "quay.io/org/-img",
            "quay.io/org/img:",
            "quay.io/org/img@sha256:abc",
            "quay.io/org/img@sha512:abc",
            "quay.io/org/a..b",
            "quay.io/org/a___b",
            "qu ay.io/org/img",
            "quay.io:port/org/img",
            "http://quay.io/org/img",
            "quay.io/org/img:.tag",
            "img:tag:tag",
        ] {
            assert!(Reference::parse(bad).is_err(), "{bad:?} was read as a reference");
        }
        let long_tag = format!("img:{}", "a".repeat(129));
        assert!(Reference::parse(&long_tag).is_err());
        assert!(Reference::parse(&format!("img:{}", "a".repeat(128))).is_ok());
    }

    #[test]
    fn display_round_trips_and_hosts_are_told() {
        for text in [
            "docker.io/library/busybox",
            "quay.io/org/img:v1",
            &format!("localhost:5000/a/b:t@sha256:{HEX}"),
            &format!("[::1]/a@sha256:{HEX}"),
        ] {
            let r = Reference::parse(text).unwrap();
            assert_eq!(r.to_string(), text);
            assert_eq!(Reference::parse(&r.to_string()).unwrap(), r);
        }
        assert_eq!(Reference::parse("busybox").unwrap().to_string(), "docker.io/library/busybox");
        assert_eq!(Reference::parse("busybox").unwrap().api_host(), "registry-1.docker.io");
        assert_eq!(Reference::parse("quay.io/a/b").unwrap().api_host(), "quay.io");
        for (text, local) in
            [("localhost:5000/x", true), ("127.0.0.1:5000/x", true), ("[::1]:5000/x", true), ("quay.io/x", false)]
        {
            assert_eq!(Reference::parse(text).unwrap().is_local(), local, "{text}");
        }
    }
}
