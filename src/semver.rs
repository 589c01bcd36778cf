//! Versions and version ranges as OLM v1 reads them. A `ClusterExtension`'s
//! `spec.source.catalog.version` is a range in the syntax of the Masterminds
//! semver library (v3), which operator-controller documents in its
//! version-ranges guide and reads with the library's defaults. This module
//! is that reading, rule for rule, and nothing else; it depends on nothing in
//! the crate. Its tests hold it to the library's own test tables and to a
//! grid of answers the library gave (`tests/fixtures/semver/`).
//!
//! - A version is `[v]MAJOR[.MINOR[.PATCH]][-PRERELEASE][+BUILD]`; missing
//!   parts are 0 and leading zeros are dropped. Build metadata is never
//!   compared: `1.0.0` admits `1.0.0+anything`.
//! - A range is terms joined by whitespace or a comma (all must hold), in
//!   alternatives joined by `||` (one must hold); `A - B` is `>= A, <= B`.
//! - Operators: `=` or none, `!=`, `<`, `<=` (`=<`), `>`, `>=` (`=>`), `~`
//!   (`~>`), `^`; `x`, `X`, `*` or a missing part makes a term a range.
//! - A pre-release version satisfies an alternative only when one of its
//!   terms names a pre-release.

use std::cmp::Ordering;
use std::fmt;

/// A semantic version, read as the library's `NewVersion` reads one.
#[derive(Debug, Clone, Eq)]
pub struct Version {
    /// The first number.
    pub major: u64,
    /// The second number; 0 when the text has none.
    pub minor: u64,
    /// The third number; 0 when the text has none.
    pub patch: u64,
    /// The dot-separated identifiers after `-`; empty for a release.
    pub pre: Vec<Ident>,
    /// What followed `+`, kept for display, never compared.
    pub build: String,
}

/// A pre-release identifier. Numeric ones (that fit a u64) sort numerically
/// and before alphanumeric ones, which sort by their bytes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ident {
    /// Digits only, read as a number (`rc.1`'s `1`).
    Numeric(u64),
    /// Any other identifier (`rc`, `beta-2`), or digits too long for a u64.
    Alpha(String),
}

/// Why a version or a range cannot be read, in the words OLM v1 would use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Not a version: the text as given.
    #[error("{0:?} is not a semantic version")]
    Version(String),
    /// Not a range OLM v1 can read: the text as given.
    #[error("{0:?} is not a version range OLM v1 can read")]
    Range(String),
}

impl Version {
    /// Reads a version: an optional lowercase `v`, one to three numeric
    /// parts, then a pre-release (no numeric identifier with a leading zero)
    /// and build metadata.
    pub fn parse(text: &str) -> Result<Version, Error> {
        let bad = || Error::Version(text.to_string());
        let rest = text.strip_prefix('v').unwrap_or(text);
        let (rest, build) = match rest.split_once('+') {
            Some((r, b)) if idents_ok(b, false) => (r, b.to_string()),
            Some(_) => return Err(bad()),
            None => (rest, String::new()),
        };
        let (core, pre) = match rest.split_once('-') {
            Some((c, p)) if idents_ok(p, true) => (c, p.split('.').map(Ident::of).collect()),
            Some(_) => return Err(bad()),
            None => (rest, Vec::new()),
        };
        let parts: Vec<&str> = core.split('.').collect();
        if parts.len() > 3 {
            return Err(bad());
        }
        let mut numbers = [0u64; 3];
        for (slot, part) in numbers.iter_mut().zip(&parts) {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            *slot = part.parse().map_err(|_| bad())?;
        }
        let [major, minor, patch] = numbers;
        Ok(Version { major, minor, patch, pre, build })
    }

    /// Whether it has a pre-release part (`1.0.0-rc.1`), which only a range naming a pre-release admits.
    pub fn is_prerelease(&self) -> bool {
        !self.pre.is_empty()
    }

    /// The version as a ClusterExtension writes it to admit this version and
    /// no other: without build metadata, which OLM v1 never compares
    /// (`1.2.3-rc.1+abc` is `1.2.3-rc.1`). The one spelling of "exactly this
    /// version" that pinning, delegations and the catalog share; see
    /// [`Version::parse_exact`].
    pub fn exact(&self) -> String {
        Version { build: String::new(), ..self.clone() }.to_string()
    }

    /// Reads `written` as one exact version, written as [`Version::exact`]
    /// writes it: what the generated admission policies compare a
    /// ClusterExtension's `spec.source.catalog.version` to, character for
    /// character. Build metadata, a `v` or `=`, a missing part or leading
    /// zeros name the same version to OLM v1 but another string to the
    /// policy, so they are refused, with the exact spelling in the error.
    pub fn parse_exact(written: &str) -> Result<Version, NotExact> {
        match Version::parse(written) {
            Ok(v) if v.exact() == written => Ok(v),
            Ok(v) => Err(NotExact::Spelling { written: written.to_string(), exact: v.exact() }),
            Err(_) => Err(NotExact::NotOne(written.to_string())),
        }
    }
}

/// Why a text is not one exact version as ClusterExtensions write it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotExact {
    /// A version, but spelt otherwise than [`Version::exact`] writes it (`v1.2`, `1.2.3+build`).
    #[error("{written:?} must be written exactly as ClusterExtensions write it: {exact:?}")]
    Spelling {
        /// The text as given.
        written: String,
        /// The same version as it must be written.
        exact: String,
    },
    /// Not a version at all: a range, a pattern or anything else.
    #[error(
        "{0:?} is not one exact version (such as 1.2.3): a range or a pattern would hand out versions nobody judged"
    )]
    NotOne(String),
}

/// Identifiers separated by dots, each non-empty `[0-9A-Za-z-]`; in a
/// pre-release a numeric identifier has no leading zero.
fn idents_ok(text: &str, pre: bool) -> bool {
    text.split('.').all(|id| {
        let numeric = id.bytes().all(|b| b.is_ascii_digit());
        !id.is_empty()
            && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !(pre && numeric && id.len() > 1 && id.starts_with('0'))
    })
}

impl Ident {
    fn of(id: &str) -> Ident {
        match id.parse() {
            Ok(n) if id.bytes().all(|b| b.is_ascii_digit()) => Ident::Numeric(n),
            _ => Ident::Alpha(id.to_string()),
        }
    }
}

impl PartialEq for Version {
    /// Equal precedence: build metadata aside.
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Ord for Version {
    /// Precedence as semver 2.0.0 defines it: a release after its
    /// pre-releases, identifiers compared in turn, a shorter list first.
    fn cmp(&self, other: &Self) -> Ordering {
        (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch)).then_with(|| {
            match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => self.pre.cmp(&other.pre),
            }
        })
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        for (i, id) in self.pre.iter().enumerate() {
            f.write_str(if i == 0 { "-" } else { "." })?;
            match id {
                Ident::Numeric(n) => write!(f, "{n}")?,
                Ident::Alpha(s) => f.write_str(s)?,
            }
        }
        if !self.build.is_empty() {
            write!(f, "+{}", self.build)?;
        }
        Ok(())
    }
}

/// A version range: any of its alternatives, each all of its terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    any_of: Vec<Alternative>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Alternative {
    terms: Vec<Term>,
    /// One of the terms names a pre-release: only then may a pre-release
    /// version satisfy the alternative.
    admits_prereleases: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Tilde,
    Caret,
}

/// What a term's version leaves open: nothing, the patch, the minor
/// version and patch, or everything (a wildcard major version).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    None,
    Patch,
    Minor,
    All,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Term {
    op: Op,
    /// The version written, open parts as 0.
    version: Version,
    open: Open,
}

/// The operators, longest spelling first so that a prefix never hides one.
const OPERATORS: [(&str, Op); 12] = [
    ("!=", Op::Ne),
    (">=", Op::Ge),
    ("=>", Op::Ge),
    ("<=", Op::Le),
    ("=<", Op::Le),
    ("~>", Op::Tilde),
    ("=", Op::Eq),
    (">", Op::Gt),
    ("<", Op::Lt),
    ("~", Op::Tilde),
    ("^", Op::Caret),
    ("", Op::Eq),
];

impl Range {
    /// Reads a range. An empty or blank text is an error, as it is to the
    /// library: a `ClusterExtension` without a version admits every version,
    /// which its callers say in their own words.
    pub fn parse(text: &str) -> Result<Range, Error> {
        let bad = || Error::Range(text.to_string());
        let rewritten = rewrite_hyphen_ranges(text);
        let any_of = rewritten
            .split("||")
            .map(|alternative| {
                let terms = parse_terms(alternative).ok_or_else(bad)?;
                let admits_prereleases = terms.iter().any(|t| t.version.is_prerelease());
                Ok(Alternative { terms, admits_prereleases })
            })
            .collect::<Result<_, _>>()?;
        Ok(Range { any_of })
    }

    /// Does `v` satisfy the range?
    pub fn admits(&self, v: &Version) -> bool {
        self.any_of
            .iter()
            .any(|alt| (alt.admits_prereleases || !v.is_prerelease()) && alt.terms.iter().all(|t| t.admits(v)))
    }

    /// The versions the range names one by one, when it admits nothing else
    /// (each alternative a single `=` or bare term with no open part);
    /// `None` for any other range, however narrow.
    pub fn exact_versions(&self) -> Option<Vec<&Version>> {
        self.any_of
            .iter()
            .map(|alt| match alt.terms.as_slice() {
                [t] if t.op == Op::Eq && t.open == Open::None => Some(&t.version),
                _ => None,
            })
            .collect()
    }
}

/// One alternative: terms each an operator and a version (whitespace allowed
/// between them), separated by whitespace or one comma; `None` if it is not
/// that, or is blank.
fn parse_terms(text: &str) -> Option<Vec<Term>> {
    let mut terms = Vec::new();
    let mut i = skip_spaces(text, 0);
    loop {
        let (op, after_op) =
            OPERATORS.iter().filter(|(spelling, _)| text[i..].starts_with(spelling)).find_map(|(spelling, op)| {
                let v = skip_spaces(text, i + spelling.len());
                version_token_end(text, v).map(|end| (*op, (v, end)))
            })?;
        let (start, end) = after_op;
        terms.push(term(op, &text[start..end])?);
        let spaced = skip_spaces(text, end);
        if spaced == text.len() {
            return Some(terms);
        }
        i = if text[spaced..].starts_with(',') {
            skip_spaces(text, spaced + 1)
        } else if spaced > end {
            spaced
        } else {
            return None;
        };
        if i == text.len() {
            return None;
        }
    }
}

/// A term's version: a wildcard (or missing) part leaves it and what follows
/// open, and what follows it is not read; the rest is read as a version.
fn term(op: Op, text: &str) -> Option<Term> {
    let body = text.strip_prefix('v').unwrap_or(text);
    let core_end = body.find(['-', '+']).unwrap_or(body.len());
    let (core, tail) = body.split_at(core_end);
    let pre = tail.split('+').next().unwrap_or_default();
    let parts: Vec<&str> = core.split('.').collect();
    let is_x = |p: Option<&&str>| p.is_none_or(|p| matches!(*p, "x" | "X" | "*"));
    let (written, open) = if is_x(parts.first()) {
        ("0.0.0".to_string(), Open::All)
    } else if is_x(parts.get(1)) {
        (format!("{}.0.0", parts[0]), Open::Minor)
    } else if is_x(parts.get(2)) {
        (format!("{}.{}.0", parts[0], parts[1]), Open::Patch)
    } else {
        return Some(Term { op, version: Version::parse(text).ok()?, open: Open::None });
    };
    let version = Version::parse(&format!("{written}{pre}")).ok()?;
    Some(Term { op, version, open })
}

impl Term {
    fn admits(&self, v: &Version) -> bool {
        let c = &self.version;
        let open = self.open != Open::None;
        let minor_open = self.open == Open::Minor;
        let patch_open = self.open == Open::Patch;
        match self.op {
            Op::Eq if open => tilde(v, c, minor_open, patch_open),
            Op::Eq => v == c,
            Op::Ne if !open => v != c,
            Op::Ne => {
                if v.major != c.major || (!minor_open && v.minor != c.minor) {
                    true
                } else if minor_open {
                    false
                } else if !patch_open && v.patch != c.patch {
                    true
                } else if patch_open {
                    (v.is_prerelease() || c.is_prerelease()) && v.pre != c.pre
                } else {
                    v != c
                }
            }
            Op::Gt if !open => v > c,
            Op::Gt => match v.major.cmp(&c.major) {
                Ordering::Greater => true,
                Ordering::Less => false,
                Ordering::Equal if minor_open => false,
                Ordering::Equal if patch_open => v.minor > c.minor,
                Ordering::Equal => v > c,
            },
            Op::Lt => v < c,
            Op::Ge => v >= c,
            Op::Le if !open => v <= c,
            Op::Le => !(v.major > c.major || (v.major == c.major && v.minor > c.minor && !minor_open)),
            Op::Tilde => tilde(v, c, minor_open, patch_open),
            Op::Caret => {
                if v < c {
                    false
                } else if c.major > 0 || minor_open {
                    v.major == c.major
                } else if v.major > 0 {
                    false
                } else if c.minor > 0 || patch_open {
                    v.minor == c.minor
                } else if v.minor > 0 {
                    false
                } else {
                    v.patch == c.patch
                }
            }
        }
    }
}

/// `~`: at least the version, within its minor version (its major version
/// when the minor is open); `~0.0.0` admits any.
fn tilde(v: &Version, c: &Version, minor_open: bool, patch_open: bool) -> bool {
    if v < c {
        return false;
    }
    if c.major == 0 && c.minor == 0 && c.patch == 0 && !minor_open && !patch_open {
        return true;
    }
    v.major == c.major && (minor_open || v.minor == c.minor)
}

pub mod blang;
mod scan;
use scan::{rewrite_hyphen_ranges, skip_spaces, version_token_end};

#[cfg(test)]
mod tests;
