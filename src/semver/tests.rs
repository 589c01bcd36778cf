//! The reading held to the library's own answers (`tests/fixtures/semver/`).

use super::*;

const VECTORS: &str = include_str!("../../tests/fixtures/semver/vectors.tsv");

/// The rows tagged `tag`, split at tabs, comments left out.
fn rows(tag: &str) -> Vec<Vec<&'static str>> {
    let rows: Vec<Vec<&str>> = VECTORS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|cols| cols[0] == tag)
        .map(|cols| cols[1..].iter().copied().take_while(|c| !c.starts_with('#')).collect())
        .collect();
    assert!(!rows.is_empty(), "no {tag} rows");
    rows
}

/// A Go-quoted string, with the escapes the vectors use.
fn unquote(text: &str) -> String {
    let inner = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(text);
    inner.replace("\\t", "\t").replace("\\n", "\n").replace("\\u00a0", "\u{a0}").replace("\\\"", "\"")
}

fn admits(range: &str, version: &str) -> bool {
    let range = Range::parse(range).unwrap_or_else(|e| panic!("{e}"));
    range.admits(&Version::parse(version).unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn every_answer_of_the_librarys_check_tests() {
    let mut wrong = Vec::new();
    for row in rows("CHECK").into_iter().chain(rows("PROBE_CHECK")).chain(rows("OCRANGE")) {
        let want = row[2] == "true";
        if admits(row[0], row[1]) != want {
            wrong.push(format!("{:?} admits {:?}: want {want}", row[0], row[1]));
        }
    }
    assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn precedence_as_the_library_compares() {
    for row in rows("COMPARE") {
        let (a, b) = (Version::parse(row[0]).unwrap(), Version::parse(row[1]).unwrap());
        let want = match row[2] {
            "-1" => Ordering::Less,
            "0" => Ordering::Equal,
            _ => Ordering::Greater,
        };
        assert_eq!(a.cmp(&b), want, "{} vs {}", row[0], row[1]);
    }
}

#[test]
fn versions_read_and_refused_as_the_library_does() {
    for row in rows("NEWVERSION") {
        assert_eq!(Version::parse(row[0]).is_ok(), row[1] == "ok", "{:?}", row[0]);
    }
}

#[test]
fn ranges_read_and_refused_as_the_library_does() {
    for row in rows("BADCONSTRAINT").into_iter().chain(rows("OCBAD")) {
        assert!(Range::parse(row[0]).is_err(), "{:?} is refused", row[0]);
    }
    for row in rows("PROBE_PARSE") {
        let text = unquote(row[0]);
        assert_eq!(Range::parse(&text).is_ok(), row[1] == "ok", "{text:?}");
    }
}

/// Every example of OLM v1's documentation whose meaning is itself a range
/// admits the same versions as that meaning, over a grid of releases and
/// pre-releases.
#[test]
fn the_documented_examples_mean_what_the_documentation_says() {
    let mut grid = Vec::new();
    for major in 0..5 {
        for minor in 0..8 {
            for patch in 0..5 {
                grid.push(format!("{major}.{minor}.{patch}"));
                grid.push(format!("{major}.{minor}.{patch}-alpha"));
            }
        }
    }
    let mut compared = 0;
    for row in rows("DOC_API").into_iter().chain(rows("DOC")) {
        let Ok(meaning) = Range::parse(row[1]) else { continue };
        let example = Range::parse(row[0]).unwrap();
        for v in &grid {
            let v = Version::parse(v).unwrap();
            assert_eq!(example.admits(&v), meaning.admits(&v), "{:?} against {:?} at {v}", row[0], row[1]);
        }
        compared += 1;
    }
    assert!(compared >= 43, "only {compared} examples compared");
}

#[test]
fn only_single_exact_terms_name_their_versions() {
    let exact = |t: &str| {
        Range::parse(t).unwrap().exact_versions().map(|vs| vs.iter().map(|v| v.to_string()).collect::<Vec<_>>())
    };
    assert_eq!(exact("1.0.0"), Some(vec!["1.0.0".to_string()]));
    assert_eq!(exact("=v1.0.0 || 1.1.0"), Some(vec!["1.0.0".to_string(), "1.1.0".to_string()]));
    for open in ["1.0", "1.0.x", ">=1.0.0, <=1.0.0", "~1.0.0", "^1.0.0", "!=1.0.0", "*"] {
        assert_eq!(exact(open), None, "{open}");
    }
}

/// "Exactly this version" is one fact: a text [`Version::parse_exact`]
/// accepts, read as OLM v1 reads a range, admits that version (whatever its
/// build metadata) and nothing else; and the spellings it refuses are the
/// ones a string comparison in an admission policy would tell apart.
#[test]
fn an_exact_version_admits_itself_and_nothing_else() {
    let grid: Vec<Version> =
        ["1.2.3", "1.2.3+a", "1.2.3+b", "1.2.3-rc.1", "1.2.3-rc.1+x", "1.2.4", "1.2.2", "0.0.0", "2.0.0-0"]
            .iter()
            .map(|v| Version::parse(v).unwrap())
            .collect();
    for written in ["1.2.3", "1.2.3-rc.1", "0.0.0", "2.0.0-0"] {
        let exact = Version::parse_exact(written).unwrap();
        assert_eq!(exact.exact(), written);
        let range = Range::parse(written).unwrap();
        for v in &grid {
            assert_eq!(range.admits(v), *v == exact, "{written:?} against {v}");
        }
    }
    for spelled in ["v1.2.3", "1.2.3+a", "1.2", "=1.2.3", "01.2.3", " 1.2.3"] {
        assert!(
            matches!(Version::parse_exact(spelled), Err(NotExact::Spelling { .. }) | Err(NotExact::NotOne(_))),
            "{spelled:?}"
        );
    }
    assert_eq!(
        Version::parse_exact("1.2.3+a"),
        Err(NotExact::Spelling { written: "1.2.3+a".into(), exact: "1.2.3".into() })
    );
    for range in ["1.2.x", ">=1.2.3", "1.2.3 || 1.2.4", "~1.2.3"] {
        assert_eq!(Version::parse_exact(range), Err(NotExact::NotOne(range.into())), "{range:?}");
    }
}
