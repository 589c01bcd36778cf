//! Decoding one file of a file-based catalog as opm decodes it: JSON or
//! YAML by content, keys as Go's JSON decoder matches them, `olm.bundle.object`
//! data as Go's base64 (see [`super::read`] for the catalog as a whole).

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

/// Whether opm's decoder reads `text` as a stream of JSON values: its first
/// character that is not (Unicode) white space, within the first 4096 bytes, is `{`.
fn looks_like_json(text: &str) -> bool {
    let head = &text.as_bytes()[..text.len().min(SNIFF)];
    let head = String::from_utf8_lossy(head);
    head.trim_start().starts_with('{')
}

/// Calls `each` with every document of one catalog file (its index and
/// value), decoded as opm decodes it (see the module's docs).
pub(super) fn decode(
    path: &Path,
    text: &str,
    mut each: impl FnMut(usize, Value) -> Result<(), String>,
) -> Result<(), String> {
    let name = path.display();
    if looks_like_json(text) {
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
        let mut i = 0;
        loop {
            let at = stream.byte_offset();
            match stream.next() {
                None => return Ok(()),
                Some(Ok(value)) => {
                    check_keys(&value, &format!("{name} document {i} (line {})", line_at(text, at)))?;
                    each(i, value)?;
                }
                // opm's decoder reads the whole file as YAML when its first value is not JSON.
                Some(Err(_)) if i == 0 => break,
                Some(Err(e)) => {
                    return Err(format!(
                        "{name}: document {i} is not JSON ({e}), and opm reads the file as a JSON stream"
                    ))
                }
            }
            i += 1;
        }
    }
    let chunks = crate::yaml::split_documents(text)
        .map_err(|e| format!("{name}: line {}, column {}: {}", e.pos.line, e.pos.col, e.message))?;
    for (i, chunk) in chunks.iter().enumerate() {
        let value: Value = crate::yaml::parse_item(chunk).map_err(|e| {
            let line = e.pos.map_or(chunk.line, |p| p.line);
            format!("{name}: line {line}: {}", e.message)
        })?;
        check_keys(&value, &format!("{name} document {i} (line {})", chunk.line))?;
        each(i, value)?;
    }
    Ok(())
}

fn line_at(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1 + usize::from(text[at..].starts_with('\n'))
}

/// A catalog file's text; a catalog is UTF-8, as opm's decoders read it.
pub(super) fn read_text(path: &Path) -> Result<(String, Vec<u8>), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8(bytes.clone()).map_err(|e| {
        format!("{}: not UTF-8 (byte {}); opm reads catalogs as UTF-8", path.display(), e.utf8_error().valid_up_to())
    })?;
    Ok((text, bytes))
}

/// Standard base64 as Go's JSON decoder reads a `[]byte`: padding required,
/// line breaks ignored; `None` for anything else.
pub(super) fn base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let clean: Vec<u8> = text.bytes().filter(|b| !matches!(b, b'\r' | b'\n')).collect();
    if !clean.len().is_multiple_of(4) {
        return None;
    }
    let body = clean.strip_suffix(b"==").or_else(|| clean.strip_suffix(b"=")).unwrap_or(&clean);
    let mut out = Vec::with_capacity(clean.len() / 4 * 3);
    for chunk in body.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        let take = match chunk.len() {
            4 => 3,
            3 => 2,
            2 => 1,
            _ => return None,
        };
        out.extend_from_slice(&n.to_be_bytes()[1..1 + take]);
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
    }

    #[test]
    fn json_is_told_from_yaml_by_content_as_opm_does() {
        assert!(looks_like_json(" \n\t{\"schema\": \"olm.package\"}"));
        assert!(looks_like_json("\u{a0}{}"), "Go's unicode.IsSpace");
        assert!(!looks_like_json("schema: olm.package\n"));
        assert!(!looks_like_json("\u{feff}{}"), "a byte order mark is not white space");
        assert!(!looks_like_json(&format!("{}{{}}", " ".repeat(SNIFF))), "only the first 4096 bytes are looked at");
        let values = |text: &str| {
            let mut seen = Vec::new();
            decode(Path::new("c"), text, |_, v| {
                seen.push(v["name"].as_str().unwrap_or_default().to_string());
                Ok(())
            })
            .map(|()| seen)
        };
        assert_eq!(values("{\"schema\":\"s\",\"name\":\"a\"}{\"schema\":\"s\",\"name\":\"b\"}").unwrap(), ["a", "b"]);
        assert_eq!(values("{schema: s, name: a}\n").unwrap(), ["a"], "not JSON at first: read as YAML");
        assert!(values("{\"schema\":\"s\",\"name\":\"a\"}\n---\nschema: s\n").unwrap_err().contains("not JSON"));
        assert!(values("schema: 1\n").unwrap_err().contains("schema is not a string"));
    }
}
