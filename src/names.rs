//! Kubernetes name rules, and names that fit them.

/// The longest object name the API server accepts for most kinds.
pub(crate) const MAX_NAME: usize = 253;

/// A label value: at most 63 characters, alphanumeric at both ends, and
/// `-`, `_`, `.` or alphanumerics between. Empty is allowed by Kubernetes but
/// not here: an extension needs a name.
pub(crate) fn is_label_value(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// A catalog package's name as a config may name it (`spec.package`, a
/// delegation's packages): a label value, since olm-rbac labels the objects
/// of a delegated install with it.
pub(crate) fn is_package_name(s: &str) -> bool {
    is_label_value(s)
}

/// A DNS-1123 label (namespace names): lowercase alphanumerics and `-`,
/// alphanumeric at both ends, at most 63 characters.
pub(crate) fn is_dns1123_label(s: &str) -> bool {
    s.len() <= 63 && is_dns1123_part(s)
}

/// Lowercase alphanumerics and `-`, alphanumeric at both ends: a label
/// without its length limit, and each dot-separated part of a subdomain.
fn is_dns1123_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
}

/// A DNS-1035 label (API version names): a DNS-1123 label that starts with a
/// letter.
pub(crate) fn is_dns1035_label(s: &str) -> bool {
    is_dns1123_label(s) && s.as_bytes()[0].is_ascii_lowercase()
}

/// A DNS-1123 subdomain (most object names, API groups, CRD names), as
/// Kubernetes' `IsDNS1123Subdomain` checks it: at most 253 characters of
/// dot-separated parts, each lowercase alphanumerics and `-`, alphanumeric at
/// both ends. Unlike a label, a part has no length limit of its own.
pub(crate) fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= MAX_NAME && s.split('.').all(is_dns1123_part)
}

/// `base` + `suffix`, shortened to [`MAX_NAME`] with a stable hash of the full
/// name when it would not fit. Readable when it fits, unique when it does not.
pub(crate) fn bounded_name(base: &str, suffix: &str) -> String {
    let full = format!("{base}{suffix}");
    if full.len() <= MAX_NAME {
        return full;
    }
    let hash = format!("{:016x}", fnv1a64(full.as_bytes()));
    let keep = MAX_NAME - suffix.len() - hash.len() - 1;
    let mut cut = keep.min(base.len());
    while !base.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = base[..cut].trim_end_matches(['-', '.']);
    format!("{head}-{hash}{suffix}")
}

/// FNV-1a: tiny, stable across platforms and releases, good enough to tell
/// long names apart (no security rests on it).
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Shell-style glob with `*` (any run) and `?` (one character).
pub(crate) fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Can `group` be a CustomResourceDefinition's API group? The API server
/// requires a DNS subdomain with at least one dot: a dotless name such as
/// `v1` or `apps` is a version or one of Kubernetes' own groups.
pub(crate) fn is_crd_group(group: &str) -> bool {
    is_dns1123_subdomain(group) && group.contains('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values() {
        assert!(is_label_value("argocd"));
        assert!(is_label_value("a.b_c-d"));
        assert!(!is_label_value("-a"));
        assert!(!is_label_value("a/b"));
        assert!(!is_label_value(&"a".repeat(64)));
        assert!(!is_label_value(""));
    }

    #[test]
    fn dns_names() {
        assert!(is_dns1123_label("team-a"));
        assert!(!is_dns1123_label("Team"));
        assert!(is_dns1123_subdomain("argoproj.io"));
        assert!(!is_dns1123_subdomain("argoproj..io"));
    }

    #[test]
    fn long_names_are_cut_with_a_stable_hash() {
        let base = "x".repeat(260);
        let a = bounded_name(&base, "-view-crdview");
        assert_eq!(a.len(), MAX_NAME);
        assert!(a.ends_with("-view-crdview"));
        assert_eq!(a, bounded_name(&base, "-view-crdview"));
        assert_ne!(a, bounded_name(&"x".repeat(261), "-view-crdview"));
        assert_eq!(bounded_name("a.b", "-admin"), "a.b-admin");
    }

    #[test]
    fn globs() {
        assert!(glob_match("*.argoproj.io", "argocds.argoproj.io"));
        assert!(!glob_match("*.argoproj.io", "argocds.argoproj.io.evil"));
        assert!(glob_match("argocd?.argoproj.io", "argocds.argoproj.io"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("a*b", "acbd"));
    }
}

/// The one of `known` that `word` most likely misspells: the nearest by
/// edits (an insertion, a deletion, a substitution or two neighbours
/// swapped), at most one, in a word of four letters or more (a longer reach
/// reads real names as typos: `scheduling.x-k8s.io` is two edits from
/// `scheduling.k8s.io`); never `word` itself. What a typo in a policy was
/// meant as.
pub(crate) fn near_miss<'k>(word: &str, known: impl IntoIterator<Item = &'k str>) -> Option<&'k str> {
    let most = usize::from(word.chars().count() >= 4);
    known
        .into_iter()
        .filter(|k| *k != word)
        .map(|k| (edits(word, k), k))
        .filter(|(d, _)| *d <= most)
        .min()
        .map(|(_, k)| k)
}

/// The edits that turn `a` into `b` (optimal string alignment distance).
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    rows[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1).min(rows[i][j - 1] + 1).min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod near_miss_tests {
    use super::near_miss;

    #[test]
    fn a_typo_is_read_as_the_nearest_known_word() {
        assert_eq!(near_miss("execs", ["exec", "attach"]), Some("exec"));
        assert_eq!(
            near_miss("rbac.authorisation.k8s.io", ["rbac.authorization.k8s.io", "apps"]),
            Some("rbac.authorization.k8s.io")
        );
        assert_eq!(near_miss("signer", ["signers"]), Some("signers"));
        assert_eq!(near_miss("sercets", ["secrets"]), Some("secrets"), "two letters swapped");
        // Short words and far ones are not guessed at.
        assert_eq!(near_miss("log", ["pod"]), None);
        assert_eq!(near_miss("widgets", ["gadgets"]), None);
        assert_eq!(near_miss("exec", ["exec"]), None, "a known word is no miss");
    }
}
