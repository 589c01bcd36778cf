//! Decoding one file of a file-based catalog as opm decodes it: JSON or
//! YAML by content, keys as Go's JSON decoder matches them, `olm.bundle.object`
//! data as Go's base64 (see [`super::read`] for the catalog as a whole).

use std::hash::{BuildHasher, Hasher};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde_json::Value;

/// The fields OLM reads from a catalog's documents, at any depth. OLM reads
/// them as Go's JSON decoder does, matching a key to a field whatever its
/// case (and with Unicode's simple folding: `ſ` is `s`, `K` is `k`), the
/// last such key winning. olm-rbac reads keys exactly, so a key OLM would
/// read as one of these but that is not written exactly so, or two keys OLM
/// would read as one, could show olm-rbac another bundle than OLM installs:
/// both are refused.
const FIELDS: [&str; 20] = [
    "schema",
    "package",
    "name",
    "entries",
    "properties",
    "type",
    "value",
    "packageName",
    "version",
    "release",
    "data",
    "ref",
    "replaces",
    "skips",
    "skipRange",
    "image",
    "defaultChannel",
    "reference",
    "message",
    "relatedImages",
];

/// Refuses keys OLM would read otherwise than olm-rbac (see [`FIELDS`]), and
/// a `schema`, `package` or `name` that is not a string (opm refuses one).
fn check_keys(value: &Value, at: &str) -> Result<(), String> {
    if let Value::Object(map) = value {
        for key in ["schema", "package", "name"] {
            if map.get(key).is_some_and(|v| !v.is_string()) {
                return Err(format!("{at}: {key} is not a string; opm refuses the document"));
            }
        }
    }
    crate::gojson::check_folding(value, &FIELDS, at)
}

/// How many bytes opm's decoder looks at to tell JSON from YAML.
const SNIFF: usize = 4096;

/// Whether opm's decoder reads a file starting with `head` (its first 4096
/// bytes) as a stream of JSON values: its first character that is not
/// (Unicode) white space is `{`.
fn looks_like_json(head: &[u8]) -> bool {
    let head = &head[..head.len().min(SNIFF)];
    String::from_utf8_lossy(head).trim_start().starts_with('{')
}

/// A reader that feeds every byte it reads to a hasher: a file's fingerprint,
/// taken as it is streamed.
struct Fingerprinted<R, H> {
    inner: R,
    hasher: H,
}

impl<R: Read, H: Hasher> Read for Fingerprinted<R, H> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.write(&buf[..n]);
        Ok(n)
    }
}

/// Calls `each` with every document of the catalog file at `path` (its
/// index, the 1-based line it starts on: the first after its `---` (as
/// render's documents start), or its JSON value's `{`; and its value), decoded as opm decodes it
/// (see the module's docs), a document at a time: memory follows the largest
/// document, not the file, and lines are counted as the bytes go by.
/// Returns the file's fingerprint under `keys`.
pub(super) fn decode_file(
    path: &Path,
    keys: &impl BuildHasher,
    mut each: impl FnMut(usize, usize, Value) -> Result<(), String>,
) -> Result<u64, String> {
    let name = path.display().to_string();
    let open = || {
        let file = std::fs::File::open(path).map_err(|e| format!("{name}: {e}"))?;
        Ok::<_, String>(Fingerprinted { inner: BufReader::new(file), hasher: keys.build_hasher() })
    };
    let mut reader = open()?;
    let mut head = Vec::with_capacity(SNIFF);
    (&mut reader).take(SNIFF as u64).read_to_end(&mut head).map_err(|e| format!("{name}: {e}"))?;
    if looks_like_json(&head) {
        match json_documents(&name, std::io::Cursor::new(head).chain(&mut reader), &mut each)? {
            Json::Read => return finish(reader, &name),
            // opm's decoder reads the whole file as YAML when its first value is not JSON.
            Json::NotJson => reader = open()?,
        }
    } else {
        let rest = std::io::Cursor::new(head).chain(&mut reader);
        yaml_documents(&name, BufReader::new(rest), &mut each)?;
        return finish(reader, &name);
    }
    yaml_documents(&name, BufReader::new(&mut reader), &mut each)?;
    finish(reader, &name)
}

/// The fingerprint of everything `reader` read, once it is read to its end.
fn finish<R: Read, H: Hasher>(mut reader: Fingerprinted<R, H>, name: &str) -> Result<u64, String> {
    std::io::copy(&mut reader, &mut std::io::sink()).map_err(|e| format!("{name}: {e}"))?;
    Ok(reader.hasher.finish())
}

/// How a file opm reads as JSON went.
enum Json {
    Read,
    NotJson,
}

/// The JSON values of a stream; [`Json::NotJson`] when the first is not one.
fn json_documents(
    name: &str,
    reader: impl Read,
    each: &mut impl FnMut(usize, usize, Value) -> Result<(), String>,
) -> Result<Json, String> {
    let lines = std::cell::Cell::new(Lines::default());
    let counted = Counted { inner: reader, lines: &lines };
    for (i, next) in serde_json::Deserializer::from_reader(counted).into_iter::<Value>().enumerate() {
        match next {
            Ok(value) => {
                let line = lines.get().start.unwrap_or(1);
                lines.set(Lines { start: None, ..lines.get() });
                check_keys(&value, &format!("{name} document {i}"))?;
                each(i, line, value)?;
            }
            Err(_) if i == 0 => return Ok(Json::NotJson),
            Err(e) => {
                return Err(format!("{name}: document {i} is not JSON ({e}), and opm reads the file as a JSON stream"))
            }
        }
    }
    Ok(Json::Read)
}

/// Where a JSON stream's reader stands: the line breaks it has passed, and
/// the line of the first byte past white space since `start` was last
/// cleared, which is where the next value starts. serde_json pulls a stream's
/// bytes one at a time and stops at an object's closing `}`, so every byte
/// of the white space before a value goes by after the value before it was
/// handed on. (A value that is not an object, which no catalog document is,
/// may be read a byte past its end.)
#[derive(Debug, Clone, Copy, Default)]
struct Lines {
    breaks: usize,
    start: Option<usize>,
}

/// A reader that counts the lines of what goes through it into [`Lines`].
struct Counted<'a, R> {
    inner: R,
    lines: &'a std::cell::Cell<Lines>,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut lines = self.lines.get();
        for &b in &buf[..n] {
            match b {
                b'\n' => lines.breaks += 1,
                // JSON's white space.
                b' ' | b'\t' | b'\r' => {}
                _ if lines.start.is_none() => lines.start = Some(lines.breaks + 1),
                _ => {}
            }
        }
        self.lines.set(lines);
        Ok(n)
    }
}

/// The YAML documents of a stream, cut as Kubernetes' stream reader cuts it
/// (at every line that starts with `---`) and each piece read by the reader
/// `render` uses; positions are the file's.
fn yaml_documents(
    name: &str,
    mut reader: impl BufRead,
    each: &mut impl FnMut(usize, usize, Value) -> Result<(), String>,
) -> Result<(), String> {
    let mut piece: Vec<u8> = Vec::new();
    let (mut first_line, mut line, mut index) = (1usize, 1usize, 0usize);
    loop {
        let mut next = Vec::new();
        let read = reader.read_until(b'\n', &mut next).map_err(|e| format!("{name}: {e}"))?;
        if read == 0 || (next.starts_with(b"---") && !piece.is_empty()) {
            yaml_piece(name, std::mem::take(&mut piece), first_line, &mut index, each)?;
            first_line = line;
        }
        if read == 0 {
            return Ok(());
        }
        piece.extend_from_slice(&next);
        line += 1;
    }
}

/// One piece of a YAML stream (see [`yaml_documents`]), starting at `first_line`.
fn yaml_piece(
    name: &str,
    piece: Vec<u8>,
    first_line: usize,
    index: &mut usize,
    each: &mut impl FnMut(usize, usize, Value) -> Result<(), String>,
) -> Result<(), String> {
    let text = String::from_utf8(piece).map_err(|e| {
        let line = first_line + e.as_bytes()[..e.utf8_error().valid_up_to()].iter().filter(|&&b| b == b'\n').count();
        format!("{name}: line {line}: not UTF-8; opm reads catalogs as UTF-8")
    })?;
    let at = |line: usize| first_line + line - 1;
    let chunks = crate::yaml::split_documents(&text)
        .map_err(|e| format!("{name}: line {}, column {}: {}", at(e.pos.line), e.pos.col, e.message))?;
    for chunk in &chunks {
        let value: Value = crate::yaml::parse_item(chunk).map_err(|e| {
            let line = e.pos.map_or(chunk.line, |p| p.line);
            format!("{name}: line {}: {}", at(line), e.message)
        })?;
        check_keys(&value, &format!("{name} document {index} (line {})", at(chunk.line)))?;
        each(*index, at(chunk.line), value)?;
        *index += 1;
    }
    Ok(())
}

/// Each byte's value as a base64 digit; [`NOT_BASE64`] for any other byte.
const DIGITS: [u8; 256] = {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut table = [NOT_BASE64; 256];
    let mut i = 0;
    while i < alphabet.len() {
        table[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    table
};
const NOT_BASE64: u8 = 0xFF;

/// Standard base64 as Go's JSON decoder reads a `[]byte`: padding required,
/// line breaks ignored; `None` for anything else. Table-driven, a group of
/// four digits at a time: a bundle's manifests are most of a catalog's bytes.
pub(super) fn base64(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    // A line break is no digit: text without one decodes at the first try.
    decode_digits(bytes).or_else(|| {
        let clean: Vec<u8> = bytes.iter().copied().filter(|b| !matches!(b, b'\r' | b'\n')).collect();
        (clean.len() < bytes.len()).then(|| decode_digits(&clean)).flatten()
    })
}

/// [`base64`] of text without line breaks.
fn decode_digits(clean: &[u8]) -> Option<Vec<u8>> {
    if !clean.len().is_multiple_of(4) {
        return None;
    }
    let body = clean.strip_suffix(b"==").or_else(|| clean.strip_suffix(b"=")).unwrap_or(clean);
    let (groups, tail) = body.split_at(body.len() / 4 * 4);
    let mut out = vec![0u8; groups.len() / 4 * 3];
    for (group, three) in groups.chunks_exact(4).zip(out.chunks_exact_mut(3)) {
        let [a, b, c, d] = [0, 1, 2, 3].map(|i| DIGITS[usize::from(group[i])]);
        // A digit is below 64; NOT_BASE64 has the two high bits set.
        if (a | b | c | d) & 0xC0 != 0 {
            return None;
        }
        let n = u32::from(a) << 18 | u32::from(b) << 12 | u32::from(c) << 6 | u32::from(d);
        three.copy_from_slice(&n.to_be_bytes()[1..]);
    }
    let mut n = 0u32;
    for (i, &c) in tail.iter().enumerate() {
        let digit = DIGITS[usize::from(c)];
        if digit == NOT_BASE64 {
            return None;
        }
        n |= u32::from(digit) << (18 - 6 * i);
    }
    match tail.len() {
        0 => {}
        2 | 3 => out.extend_from_slice(&n.to_be_bytes()[1..tail.len()]),
        _ => return None,
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_as_go_and_refuses_the_rest() {
        assert_eq!(base64("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64("aGVs\r\nbG8=").as_deref(), Some(&b"hello"[..]), "line breaks are skipped");
        assert_eq!(base64("aGk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64("aGVsbG8"), None, "padding is required");
        assert_eq!(base64("a$=="), None);
        assert_eq!(base64("a"), None);
        assert_eq!(base64("aGVs bG8="), None, "other white space is not");
        assert_eq!(base64("===="), None);
        assert_eq!(base64("aGk=aGk="), None, "padding only at the end");
        assert_eq!(base64("").as_deref(), Some(&b""[..]));
        // Every byte value, at every length's padding, round trips.
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let bytes: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for len in [0, 1, 2, 3, 4, 5, 255, 511, 512] {
            let mut text = String::new();
            for group in bytes[..len].chunks(3) {
                let n = group.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
                for i in 0..4 {
                    let digit = alphabet[(n >> (18 - 6 * i) & 63) as usize] as char;
                    text.push(if i <= group.len() { digit } else { '=' });
                }
            }
            assert_eq!(base64(&text).as_deref(), Some(&bytes[..len]), "{len} bytes");
        }
    }

    #[test]
    fn json_is_told_from_yaml_by_content_as_opm_does() {
        assert!(looks_like_json(b" \n\t{\"schema\": \"olm.package\"}"));
        assert!(looks_like_json("\u{a0}{}".as_bytes()), "Go's unicode.IsSpace");
        assert!(!looks_like_json(b"schema: olm.package\n"));
        assert!(!looks_like_json("\u{feff}{}".as_bytes()), "a byte order mark is not white space");
        assert!(!looks_like_json(format!("{}{{}}", " ".repeat(SNIFF)).as_bytes()), "only the first 4096 bytes");
        let values = |text: &str| {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("c");
            std::fs::write(&path, text).unwrap();
            let mut seen = Vec::new();
            decode_file(&path, &std::hash::RandomState::new(), |_, _, v| {
                seen.push(v["name"].as_str().unwrap_or_default().to_string());
                Ok(())
            })
            .map(|_| seen)
        };
        assert_eq!(values("{\"schema\":\"s\",\"name\":\"a\"}{\"schema\":\"s\",\"name\":\"b\"}").unwrap(), ["a", "b"]);
        assert_eq!(values("{schema: s, name: a}\n").unwrap(), ["a"], "not JSON at first: read as YAML");
        assert!(values("{\"schema\":\"s\",\"name\":\"a\"}\n---\nschema: s\n").unwrap_err().contains("not JSON"));
        assert!(values("schema: 1\n").unwrap_err().contains("schema is not a string"));
        // Pieces at --- lines, positions the file's.
        assert_eq!(
            values("schema: s\nname: a\n---\nschema: s\nname: b\n--- # c\nschema: s\nname: c\n").unwrap(),
            ["a", "b", "c"]
        );
        let err = values("schema: s\nname: a\n---\nschema: s\nname: [\n").unwrap_err();
        assert!(err.contains("c: line 5"), "{err}");
    }

    /// The line each document starts on (the line after its `---`, or its
    /// JSON value's `{`), counted as the file streams by: across `---` lines, a JSON
    /// stream's values on one line or many, and CRLF line endings.
    #[test]
    fn each_document_is_handed_on_with_the_line_it_starts_on() {
        let lines = |text: &str| {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("c");
            std::fs::write(&path, text).unwrap();
            let mut seen = Vec::new();
            decode_file(&path, &std::hash::RandomState::new(), |i, line, v| {
                seen.push((i, line, v["name"].as_str().unwrap_or_default().to_string()));
                Ok(())
            })
            .unwrap();
            seen.into_iter().map(|(_, line, name)| (line, name)).collect::<Vec<_>>()
        };
        let at = |pairs: &[(usize, &str)]| pairs.iter().map(|(l, n)| (*l, n.to_string())).collect::<Vec<_>>();
        let yaml = "schema: s\nname: a\n---\nschema: s\nname: b\n--- # c\n\nschema: s\nname: c\n---\n---\nschema: s\nname: d\n";
        // A YAML document's text starts on the line after its `---`, as render's do.
        assert_eq!(lines(yaml), at(&[(1, "a"), (4, "b"), (7, "c"), (12, "d")]));
        assert_eq!(lines(&format!("---\n{yaml}")), at(&[(2, "a"), (5, "b"), (8, "c"), (13, "d")]), "a leading ---");
        assert_eq!(lines(&yaml.replace('\n', "\r\n")), at(&[(1, "a"), (4, "b"), (7, "c"), (12, "d")]), "CRLF");
        let json = "{\"schema\":\"s\",\"name\":\"a\"}{\"schema\":\"s\",\"name\":\"b\"}\n\n  {\n    \"schema\": \"s\",\n    \"name\": \"c\"\n  }\n{\"schema\": \"s\",\n \"name\": \"d\"}\n";
        assert_eq!(lines(json), at(&[(1, "a"), (1, "b"), (3, "c"), (7, "d")]));
        assert_eq!(lines(&format!("\n\n{json}")), at(&[(3, "a"), (3, "b"), (5, "c"), (9, "d")]), "blank lines first");
        assert_eq!(lines(&json.replace('\n', "\r\n")), at(&[(1, "a"), (1, "b"), (3, "c"), (7, "d")]), "CRLF");
        // Past the 4096 bytes opm's decoder looks at: the count goes on.
        let long = format!("{{\"schema\":\"s\",\"name\":\"a\",\"x\":\"{}\"}}\n{json}", "y".repeat(5000));
        assert_eq!(lines(&long), at(&[(1, "a"), (2, "a"), (2, "b"), (4, "c"), (8, "d")]));
    }
}
