//! A channel entry's `skipRange`, and the installed version it is held
//! against, as OLM reads them: with the blang semver library (v4), which OLM
//! v0 used and operator-controller keeps for `skipRange` alone (a catalog's
//! upgrade edges must mean what they meant to OLM v0). Its reading differs
//! from a `ClusterExtension`'s ranges ([`super::Range`]): versions are strict
//! (`MAJOR.MINOR.PATCH`, no `v`, no leading zeros), a pre-release compares as
//! any version does (no rule keeps it out of a range), terms are joined by
//! spaces only, and `x` is the only wildcard. A range blang cannot read is no
//! edge to OLM, and `opm validate` refuses it.

use super::{Ident, Version};

/// A `skipRange`: any of its alternatives, each all of its terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkipRange {
    any_of: Vec<Vec<(Cmp, Version)>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

impl SkipRange {
    /// Reads a range as blang's `ParseRange` does; `None` where it errs.
    pub fn parse(text: &str) -> Option<SkipRange> {
        let parts = split_and_trim(text);
        let mut any_of = Vec::new();
        for alternative in split_or(&parts)? {
            let mut terms = Vec::new();
            for term in expand_wildcards(alternative)? {
                let (op, version) = split_comparator(&term)?;
                terms.push((comparator(op)?, parse_strict(version)?));
            }
            any_of.push(terms);
        }
        Some(SkipRange { any_of })
    }

    /// Does `v` satisfy the range?
    pub fn admits(&self, v: &Version) -> bool {
        self.any_of.iter().any(|terms| {
            terms.iter().all(|(cmp, bound)| {
                let order = v.cmp(bound);
                match cmp {
                    Cmp::Eq => order.is_eq(),
                    Cmp::Ne => order.is_ne(),
                    Cmp::Gt => order.is_gt(),
                    Cmp::Ge => order.is_ge(),
                    Cmp::Lt => order.is_lt(),
                    Cmp::Le => order.is_le(),
                }
            })
        })
    }
}

/// Reads a version as blang's `Parse` does: exactly `MAJOR.MINOR.PATCH`,
/// digits without leading zeros, then `-` and non-empty pre-release
/// identifiers (numeric ones without leading zeros), then `+` and non-empty
/// build identifiers, each of letters, digits and `-`. `None` where it errs.
pub fn parse_strict(text: &str) -> Option<Version> {
    let mut parts = text.splitn(3, '.');
    let (major, minor, rest) = (parts.next()?, parts.next()?, parts.next()?);
    let (rest, build) = match rest.split_once('+') {
        Some((rest, build)) => (rest, Some(build)),
        None => (rest, None),
    };
    let (patch, pre) = match rest.split_once('-') {
        Some((patch, pre)) => (patch, Some(pre)),
        None => (rest, None),
    };
    let mut version = Version {
        major: number(major)?,
        minor: number(minor)?,
        patch: number(patch)?,
        pre: Vec::new(),
        build: String::new(),
    };
    for id in pre.map(|p| p.split('.').collect::<Vec<_>>()).unwrap_or_default() {
        let numeric = !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit());
        version.pre.push(match numeric {
            true => Ident::Numeric(number(id)?),
            false if !id.is_empty() && alphanumeric(id) => Ident::Alpha(id.to_string()),
            false => return None,
        });
    }
    if let Some(build) = build {
        if build.split('.').any(|id| id.is_empty() || !alphanumeric(id)) {
            return None;
        }
        version.build = build.to_string();
    }
    Some(version)
}

/// Digits that fit a u64, without a leading zero.
fn number(text: &str) -> Option<u64> {
    if !text.bytes().all(|b| b.is_ascii_digit()) || (text.len() > 1 && text.starts_with('0')) {
        return None;
    }
    text.parse().ok()
}

fn alphanumeric(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// The range's words: split at spaces, except a space after `>`, `<` or `=`
/// (so `>= 1.0.0` is one word); a word of one character is dropped, as blang
/// drops it; spaces inside a word are removed.
fn split_and_trim(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let (mut out, mut last, mut last_char) = (Vec::new(), 0usize, 0u8);
    for (i, &b) in bytes.iter().enumerate() {
        if b == b' ' && !matches!(last_char, b'>' | b'<' | b'=') {
            if last + 1 < i {
                out.push(&text[last..i]);
            }
            last = i + 1;
        } else if b != b' ' {
            last_char = b;
        }
    }
    if last + 1 < bytes.len() {
        out.push(&text[last..]);
    }
    out.into_iter().map(|w| w.replace(' ', "")).collect()
}

/// The alternatives between `||` words; none may be empty at either end.
fn split_or(words: &[String]) -> Option<Vec<&[String]>> {
    let mut out = Vec::new();
    let mut last = 0;
    for (i, w) in words.iter().enumerate() {
        if w == "||" {
            if i == 0 {
                return None;
            }
            out.push(&words[last..i]);
            last = i + 1;
        }
    }
    if last == words.len() {
        return None;
    }
    out.push(&words[last..]);
    Some(out)
}

/// The operator before the first digit, and the version from it.
fn split_comparator(word: &str) -> Option<(&str, &str)> {
    let i = word.find(|c: char| c.is_numeric())?;
    Some((word[..i].trim(), &word[i..]))
}

fn comparator(op: &str) -> Option<Cmp> {
    Some(match op {
        "" | "=" | "==" => Cmp::Eq,
        ">" => Cmp::Gt,
        ">=" => Cmp::Ge,
        "<" => Cmp::Lt,
        "<=" => Cmp::Le,
        "!" | "!=" => Cmp::Ne,
        _ => return None,
    })
}

/// Each word holding an `x` rewritten as blang rewrites it: `1.2.x` is at
/// least `1.2.0` and below `1.3.0`, `>1.x` at least `2.0.0`, and so on. What
/// blang makes of an `x` that is no wildcard (in a pre-release, say) is a word
/// it cannot read, and so is it here.
fn expand_wildcards(words: &[String]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for word in words {
        if !word.contains('x') {
            out.push(word.clone());
            continue;
        }
        let (op, version) = split_comparator(word)?;
        let dots = version.split('.').count();
        let wildcard = version.rsplit('.').next() == Some("x");
        let flat = {
            let once = version.replacen(".x.x", ".x", 1).replacen(".x", ".0", 1);
            if once.split('.').count() == 2 {
                once + ".0"
            } else {
                once
            }
        };
        let (result_op, bump) = match op {
            ">" => (">=", true),
            ">=" => (">=", false),
            "<" => ("<", false),
            "<=" => ("<", true),
            "" | "=" | "==" => {
                out.push(format!(">={flat}"));
                ("<", true)
            }
            "!=" | "!" => {
                out.push(format!("<{flat}"));
                (">=", true)
            }
            _ => ("", false),
        };
        let result_version = match (bump, wildcard, dots) {
            (false, _, _) => flat,
            (true, true, 3) => increment(&flat, 1),
            (true, true, 2) => increment(&flat, 0),
            (true, _, _) => String::new(),
        };
        out.push(format!("{result_op}{result_version}"));
    }
    Some(out)
}

/// `flat` with its `at`th dot-separated part one higher (the rest kept as
/// they are, as blang keeps them); empty where that part is not a number.
fn increment(flat: &str, at: usize) -> String {
    let mut parts: Vec<String> = flat.split('.').map(String::from).collect();
    let Some(n) = parts.get(at).and_then(|p| p.parse::<i64>().ok()) else { return String::new() };
    parts[at] = (n + 1).to_string();
    parts.join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admits(range: &str, version: &str) -> bool {
        let range = SkipRange::parse(range).unwrap_or_else(|| panic!("{range:?} should parse"));
        range.admits(&parse_strict(version).unwrap_or_else(|| panic!("{version:?} should parse")))
    }

    /// Rows of blang's own range tests, and the forms real catalogs write.
    #[test]
    fn ranges_read_as_blang_reads_them() {
        for (range, version, want) in [
            (">1.0.0", "1.0.1", true),
            (">1.0.0", "1.0.0", false),
            (">=1.0.0 <2.0.0", "1.9.9", true),
            (">=1.0.0 <2.0.0", "2.0.0", false),
            (">= 1.0.0 < 2.0.0", "1.5.0", true),
            ("<2.0.0 || >=3.0.0", "3.1.0", true),
            ("<2.0.0 || >=3.0.0", "2.5.0", false),
            ("!=1.2.3", "1.2.3", false),
            ("1.2.3", "1.2.3", true),
            ("==1.2.3", "1.2.4", false),
            (">=0.3.0 <0.5.0", "0.4.0-rc.1", true),
            ("<1.0.0", "1.0.0-alpha", true),
            ("1.2.x", "1.2.9", true),
            ("1.2.x", "1.3.0", false),
            (">1.x", "2.0.0", true),
            (">1.x", "1.9.0", false),
            ("<=1.2.x", "1.2.99", true),
            ("<=1.2.x", "1.3.0", false),
            ("!=1.x", "1.5.0", false),
            // blang expands `!=1.x` to `<1.0.0` and `>=2.0.0`, both to hold: nothing does.
            ("!=1.x", "2.0.0", false),
            ("!=1.x", "0.9.0", false),
            (">=1.0.0 <1.0.0+build", "1.0.0", false),
        ] {
            assert_eq!(admits(range, version), want, "{range:?} admits {version:?}");
        }
    }

    #[test]
    fn what_blang_cannot_read_is_no_range() {
        for range in
            ["", "||", ">=1.0.0 ||", "|| <1.0.0", ">=v1.0.0", ">=1.0", "~1.0.0", "^1.0.0", ">=01.0.0", "1.0.0-x"]
        {
            assert_eq!(SkipRange::parse(range), None, "{range:?}");
        }
        for version in ["v1.0.0", "1.0", "1.0.0-", "1.0.0-01", "1.0.0+", "1.0.0+a..b", "01.0.0", "1.0.0-a_b"] {
            assert_eq!(parse_strict(version), None, "{version:?}");
        }
        assert_eq!(parse_strict("1.0.0-rc.1+b.2").map(|v| v.to_string()), Some("1.0.0-rc.1+b.2".into()));
    }
}
