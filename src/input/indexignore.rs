//! `.indexignore`: which files of a file-based catalog opm does not read.
//!
//! opm (`declcfg.WalkMetasFS`, and so catalogd and operator-controller) reads
//! every file of a catalog's folder but those matched by the gitignore-style
//! patterns of the `.indexignore` files found anywhere in it. The rules below
//! are those of the matcher opm uses (go-git's gitignore patterns, loaded by
//! `joelanford/ignore`), which differ from git's in places:
//!
//! - every `.indexignore` in the tree is read, in the order a depth-first walk
//!   in name order meets them, each line trimmed of white space (Unicode's,
//!   as Go's `strings.TrimSpace` and Rust's `str::trim` both read it); empty lines
//!   and lines starting with `#` are skipped;
//! - a pattern applies only below the folder of its `.indexignore`, to paths
//!   relative to that folder;
//! - the patterns are tried last to first, and the first that matches
//!   decides: ignored, or kept when it starts with `!` (a kept file inside an
//!   ignored folder is kept, unlike git);
//! - a pattern without `/` (once a trailing `/` is taken off) matches any one
//!   component of the path, so a folder's name ignores all below it; with a
//!   trailing `/` it does not match the file's own name;
//! - a pattern with `/` matches the path's components from the start, one
//!   glob each, `**` matching any number of folders (the first fit taken,
//!   never revisited); components left over after the pattern still match;
//! - each glob is Go's `filepath.Match`: `*`, `?`, `[...]` (negated with
//!   `^`), `\` escaping; a malformed glob matches nothing.
//!
//! Files are only ever asked about as files (opm never asks about a folder).

/// The patterns of every `.indexignore` of a catalog, in the order opm loads them.
#[derive(Debug, Clone, Default)]
pub(crate) struct IndexIgnore {
    patterns: Vec<Pattern>,
}

#[derive(Debug, Clone)]
struct Pattern {
    /// The folder of the `.indexignore` it came from, by component.
    domain: Vec<String>,
    keep: bool,
    dir_only: bool,
    is_glob: bool,
    parts: Vec<String>,
}

impl IndexIgnore {
    /// Adds the lines of the `.indexignore` in the folder `domain` (its
    /// components, relative to the catalog's root; empty for the root).
    pub(crate) fn add(&mut self, domain: &[String], text: &str) {
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            self.patterns.push(Pattern::parse(line, domain));
        }
    }

    /// Whether opm skips the file at `path` (its components, relative to the root).
    pub(crate) fn ignores(&self, path: &[&str]) -> bool {
        self.patterns.iter().rev().find_map(|p| p.matches(path).then_some(!p.keep)).unwrap_or(false)
    }
}

impl Pattern {
    fn parse(line: &str, domain: &[String]) -> Pattern {
        let (keep, mut p) = match line.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        if !p.ends_with("\\ ") {
            p = p.trim_end_matches(' ');
        }
        let dir_only = p.ends_with('/');
        if dir_only {
            p = &p[..p.len() - 1];
        }
        Pattern {
            domain: domain.to_vec(),
            keep,
            dir_only,
            is_glob: p.contains('/'),
            parts: p.split('/').map(str::to_string).collect(),
        }
    }

    fn matches(&self, path: &[&str]) -> bool {
        if path.len() <= self.domain.len() || self.domain.iter().zip(path).any(|(d, p)| d != p) {
            return false;
        }
        let path = &path[self.domain.len()..];
        if self.is_glob {
            self.glob_match(path)
        } else {
            self.simple_match(path)
        }
    }

    /// A pattern without `/`: any one component.
    fn simple_match(&self, path: &[&str]) -> bool {
        for (i, name) in path.iter().enumerate() {
            if !go_match(&self.parts[0], name) {
                continue;
            }
            // Asked only about files: a folder-only pattern never matches the last component.
            return !(self.dir_only && i == path.len() - 1);
        }
        false
    }

    /// A pattern with `/`: the components from the start.
    fn glob_match(&self, mut path: &[&str]) -> bool {
        let mut matched = false;
        let mut traverse = false;
        for (i, part) in self.parts.iter().enumerate() {
            if part.is_empty() {
                traverse = false;
                continue;
            }
            if part == "**" {
                if i == self.parts.len() - 1 {
                    break;
                }
                traverse = true;
                continue;
            }
            if part.contains("**") || path.is_empty() {
                return false;
            }
            if traverse {
                traverse = false;
                while let Some((first, rest)) = path.split_first() {
                    path = rest;
                    if go_match(part, first) {
                        matched = true;
                        break;
                    }
                    if path.is_empty() {
                        matched = false;
                    }
                }
            } else {
                if !go_match(part, path[0]) {
                    return false;
                }
                matched = true;
                path = &path[1..];
            }
        }
        matched && !(self.dir_only && path.is_empty())
    }
}

/// Go's `filepath.Match` on Unix; a malformed pattern matches nothing.
fn go_match(pattern: &str, name: &str) -> bool {
    glob(pattern.as_bytes(), name.as_bytes()).unwrap_or(false)
}

/// A malformed pattern.
struct BadPattern;

fn glob(mut pattern: &[u8], mut name: &[u8]) -> Result<bool, BadPattern> {
    'pattern: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            return Ok(!name.contains(&b'/'));
        }
        let first = match_chunk(chunk, name);
        if let Ok(Some(t)) = first {
            if t.is_empty() || !pattern.is_empty() {
                name = t;
                continue;
            }
        }
        first?;
        if star {
            let mut i = 0;
            while i < name.len() && name[i] != b'/' {
                if let Some(t) = match_chunk(chunk, &name[i + 1..])? {
                    if pattern.is_empty() && !t.is_empty() {
                        i += 1;
                        continue;
                    }
                    name = t;
                    continue 'pattern;
                }
                i += 1;
            }
        }
        // The rest of the pattern must still be well formed.
        while !pattern.is_empty() {
            let (_, chunk, rest) = scan_chunk(pattern);
            pattern = rest;
            match_chunk(chunk, b"")?;
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

/// Leading stars, then the text up to the next star outside brackets.
fn scan_chunk(mut pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut star = false;
    while pattern.first() == Some(&b'*') {
        pattern = &pattern[1..];
        star = true;
    }
    let mut in_range = false;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'\\' if i + 1 < pattern.len() => i += 1,
            b'[' => in_range = true,
            b']' => in_range = false,
            b'*' if !in_range => break,
            _ => {}
        }
        i += 1;
    }
    (star, &pattern[..i], &pattern[i..])
}

/// What is left of `s` after `chunk` matched its start, if it did.
fn match_chunk<'a>(mut chunk: &[u8], mut s: &'a [u8]) -> Result<Option<&'a [u8]>, BadPattern> {
    let mut failed = false;
    while let Some(&c) = chunk.first() {
        if !failed && s.is_empty() {
            failed = true;
        }
        match c {
            b'[' => {
                let mut r = 0;
                if !failed {
                    let (rune, n) = decode(s);
                    r = rune;
                    s = &s[n..];
                }
                chunk = &chunk[1..];
                let negated = chunk.first() == Some(&b'^');
                if negated {
                    chunk = &chunk[1..];
                }
                let (mut matched, mut ranges) = (false, 0);
                loop {
                    if chunk.first() == Some(&b']') && ranges > 0 {
                        chunk = &chunk[1..];
                        break;
                    }
                    let (lo, rest) = escaped(chunk)?;
                    chunk = rest;
                    let mut hi = lo;
                    if chunk.first() == Some(&b'-') {
                        let (h, rest) = escaped(&chunk[1..])?;
                        hi = h;
                        chunk = rest;
                    }
                    matched |= lo <= r && r <= hi;
                    ranges += 1;
                }
                failed |= matched == negated;
            }
            b'?' => {
                if !failed {
                    failed = s[0] == b'/';
                    s = &s[decode(s).1..];
                }
                chunk = &chunk[1..];
            }
            _ => {
                if c == b'\\' {
                    chunk = &chunk[1..];
                    if chunk.is_empty() {
                        return Err(BadPattern);
                    }
                }
                if !failed {
                    failed = chunk[0] != s[0];
                    s = &s[1..];
                }
                chunk = &chunk[1..];
            }
        }
    }
    Ok((!failed).then_some(s))
}

/// One character of a bracket expression, `\` escaping it.
fn escaped(mut chunk: &[u8]) -> Result<(u32, &[u8]), BadPattern> {
    if matches!(chunk.first(), None | Some(b'-' | b']')) {
        return Err(BadPattern);
    }
    if chunk[0] == b'\\' {
        chunk = &chunk[1..];
        if chunk.is_empty() {
            return Err(BadPattern);
        }
    }
    let (r, n) = decode(chunk);
    if (r == 0xFFFD && n == 1) || chunk.len() == n {
        return Err(BadPattern);
    }
    Ok((r, &chunk[n..]))
}

/// The first character of `s` and its length in bytes; U+FFFD and 1 for a
/// byte that starts none, as Go's `utf8.DecodeRune`.
fn decode(s: &[u8]) -> (u32, usize) {
    let len = match s.first() {
        Some(b) if *b < 0x80 => 1,
        Some(b) if b >> 5 == 0b110 => 2,
        Some(b) if b >> 4 == 0b1110 => 3,
        Some(b) if b >> 3 == 0b11110 => 4,
        _ => return (0xFFFD, 1),
    };
    match s.get(..len).and_then(|b| std::str::from_utf8(b).ok()).and_then(|t| t.chars().next()) {
        Some(c) => (c as u32, len),
        None => (0xFFFD, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_globs_match_as_filepath_match_does() {
        // From Go's own filepath.Match test table.
        for (pattern, name, want) in [
            ("abc", "abc", true),
            ("*", "abc", true),
            ("*c", "abc", true),
            ("a*", "a", true),
            ("a*", "abc", true),
            ("a*", "ab/c", false),
            ("a*/b", "abc/b", true),
            ("a*/b", "a/c/b", false),
            ("a*b*c*d*e*/f", "axbxcxdxe/f", true),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/f", true),
            ("a*b*c*d*e*/f", "axbxcxdxe/xxx/f", false),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/fff", false),
            ("a*b?c*x", "abxbbxdbxebxczzx", true),
            ("a*b?c*x", "abxbbxdbxebxczzy", false),
            ("ab[c]", "abc", true),
            ("ab[b-d]", "abc", true),
            ("ab[e-g]", "abc", false),
            ("ab[^c]", "abc", false),
            ("ab[^b-d]", "abc", false),
            ("ab[^e-g]", "abc", true),
            ("a\\*b", "a*b", true),
            ("a\\*b", "ab", false),
            ("a?b", "a☺b", true),
            ("a[^a]b", "a☺b", true),
            ("a???b", "a☺b", false),
            ("a[^a][^a][^a]b", "a☺b", false),
            ("[a-ζ]*", "α", true),
            ("*[a-ζ]", "A", false),
            ("a?b", "a/b", false),
            ("a*b", "a/b", false),
            ("[\\]a]", "]", true),
            ("[\\-]", "-", true),
            ("[x\\-]", "x", true),
            ("[x\\-]", "-", true),
            ("[x\\-]", "z", false),
            ("[\\-x]", "x", true),
            ("[\\-x]", "a", false),
            ("[]a]", "]", false),
            ("[-]", "-", false),
            ("[x-]", "x", false),
            ("[a-b-c]", "a", false),
            ("[", "a", false),
            ("[^", "a", false),
            ("a[", "a", false),
            ("a[", "x", false),
            ("*x", "xxx", true),
            ("[!a]", "b", false),
        ] {
            assert_eq!(go_match(pattern, name), want, "{pattern:?} {name:?}");
        }
    }

    fn ignored(files: &[(&str, &str)], path: &str) -> bool {
        let mut ignore = IndexIgnore::default();
        for (folder, text) in files {
            let domain: Vec<String> = folder.split('/').filter(|c| !c.is_empty()).map(str::to_string).collect();
            ignore.add(&domain, text);
        }
        ignore.ignores(&path.split('/').collect::<Vec<_>>())
    }

    #[test]
    fn patterns_match_as_opms_matcher_does() {
        let root = |text: &'static str| vec![("", text)];
        // A simple name matches any component; a folder's name, all below it.
        assert!(ignored(&root("objects\n"), "p/objects/csv.yaml"));
        assert!(ignored(&root("*.md\n"), "p/README.md"));
        assert!(!ignored(&root("*.md\n"), "p/catalog.yaml"));
        // A trailing / never matches the file's own name.
        assert!(ignored(&root("objects/\n"), "objects/a.yaml"));
        assert!(!ignored(&root("objects/\n"), "p/objects"));
        // A pattern with / is anchored, and matches what is below what it names.
        assert!(ignored(&root("p/objects\n"), "p/objects/a.yaml"));
        assert!(!ignored(&root("objects/a.yaml\n"), "p/objects/a.yaml"));
        assert!(ignored(&root("**/a.yaml\n"), "p/objects/a.yaml"));
        assert!(ignored(&root("p/**\n"), "p/objects/a.yaml"));
        assert!(ignored(&root("/p/*/a.yaml\n"), "p/objects/a.yaml"));
        // Last match wins, negation keeps a file even inside an ignored folder.
        assert!(!ignored(&root("objects\n!objects/keep.yaml\n"), "objects/keep.yaml"));
        assert!(ignored(&root("!keep.yaml\nkeep.yaml\n"), "keep.yaml"));
        // Comments, blank lines and surrounding white space.
        assert!(!ignored(&root("# a.yaml\n\n"), "a.yaml"));
        assert!(ignored(&root("  a.yaml \t\n"), "a.yaml"));
        assert!(!ignored(&root("\\#a.yaml\n"), "a.yaml"));
        assert!(ignored(&root("\\#a.yaml\n"), "#a.yaml"));
        // A subfolder's patterns apply below it only, relative to it.
        let nested = [("p", "*.yaml\n")];
        assert!(ignored(&nested, "p/x/a.yaml"));
        assert!(!ignored(&nested, "q/a.yaml"));
        assert!(!ignored(&nested, "p.yaml"));
        // A malformed glob matches nothing.
        assert!(!ignored(&root("[\n"), "["));
    }
}
