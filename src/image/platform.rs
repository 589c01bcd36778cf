//! The platform an image is built for, and which instance of an image index
//! matches it as containers/image picks one.

use serde::{Deserialize, Serialize};

use super::error::ImageError;

/// An image's platform: `linux/amd64`, `linux/arm64/v8`. As an index
/// descriptor's `platform` it may name more (`os.version`, `os.features`);
/// those are not read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Platform {
    /// The operating system, `linux`.
    pub os: String,
    /// The CPU architecture as Go names it: `amd64`, `arm64`, `s390x`.
    pub architecture: String,
    /// The CPU variant (`v8` of arm64), if named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

impl Platform {
    /// `os/architecture[/variant]`, as `linux/arm64/v8`.
    pub fn parse(text: &str) -> Result<Platform, ImageError> {
        let parts: Vec<&str> = text.split('/').collect();
        let good = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !(2..=3).contains(&parts.len()) || !parts.iter().all(good) {
            return Err(ImageError::Platform { text: text.to_string() });
        }
        Ok(Platform {
            os: parts[0].to_string(),
            architecture: parts[1].to_string(),
            variant: parts.get(2).map(|v| v.to_string()),
        })
    }

    /// Whether an index instance built for `offered` runs here: the same
    /// os and architecture and, when this platform names a variant, the
    /// same variant (an instance naming none has its architecture's default
    /// one: v8 for arm64, v7 for arm).
    pub fn matches(&self, offered: &Platform) -> bool {
        if self.os != offered.os || self.architecture != offered.architecture {
            return false;
        }
        let Some(wanted) = &self.variant else { return true };
        let default = match self.architecture.as_str() {
            "arm64" => Some("v8"),
            "arm" => Some("v7"),
            _ => None,
        };
        match &offered.variant {
            Some(variant) => variant == wanted,
            None => default == Some(wanted.as_str()),
        }
    }
}

impl Default for Platform {
    /// `linux/amd64`, the platform OLM's clusters normally run.
    fn default() -> Platform {
        Platform { os: "linux".into(), architecture: "amd64".into(), variant: None }
    }
}

impl std::fmt::Display for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.os, self.architecture)?;
        match &self.variant {
            Some(variant) => write!(f, "/{variant}"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platforms_parse_print_and_match() {
        let arm = Platform::parse("linux/arm64/v8").unwrap();
        assert_eq!(arm.to_string(), "linux/arm64/v8");
        assert_eq!(Platform::default().to_string(), "linux/amd64");
        assert!(arm.matches(&Platform::parse("linux/arm64").unwrap()));
        assert!(!arm.matches(&Platform::parse("linux/arm64/v9").unwrap()));
        assert!(Platform::parse("linux/arm64").unwrap().matches(&arm));
        assert!(!Platform::default().matches(&arm));
        for bad in ["linux", "linux/", "a/b/c/d", "linux/amd 64", ""] {
            assert!(Platform::parse(bad).is_err(), "{bad}");
        }
    }
}
