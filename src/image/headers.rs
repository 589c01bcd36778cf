//! Tar headers read as Go's `archive/tar` reads them (operator-controller
//! and catalogd unpack layers with it), or refused where two readers could
//! give one entry two paths.
//!
//! tar has several header dialects (v7, ustar, PAX, GNU, star), and readers
//! disagree on the edges: which of two PAX records with one key wins, whether
//! an extension header without the ustar magic counts, how long a star
//! prefix is, whether a GNU header's access time is a prefix. A layer that
//! leans on any of these could put a file in `manifests/` for OLM and
//! elsewhere for olm-rbac, so each is refused and the image is not judged.
//! Paths are taken from the raw header bytes here, never from a library's
//! reading of them.

use std::io::Read;

/// The most bytes of a PAX or GNU long-name extension read.
const EXTENSION_LIMIT: u64 = 1 << 20;

/// A header's entry, once its extensions are applied.
pub(super) struct Header {
    /// Its path as written (not yet normalised).
    pub(super) path: String,
    /// The entry's kind.
    pub(super) kind: Kind,
}

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    File,
    Dir,
    Symlink,
    Hardlink,
    /// A device, fifo or another kind, by name.
    Special(&'static str),
}

/// What one raw tar entry was.
pub(super) enum Step {
    /// An extension header, held for the next entry.
    Extension,
    /// An entry.
    Entry(Header),
}

/// The extensions read for the next entry.
#[derive(Default)]
pub(super) struct Headers {
    path: Option<String>,
}

impl Headers {
    /// Reads one raw entry's header (and an extension's data); why it is refused, if it is.
    pub(super) fn read<R: Read>(&mut self, entry: &mut tar::Entry<'_, R>) -> Result<Step, String> {
        let raw = *entry.header().as_bytes();
        match raw[156] {
            b'x' => {
                let data = extension_data(entry)?;
                self.pax(&data)?;
                Ok(Step::Extension)
            }
            b'L' => {
                let data = extension_data(entry)?;
                let name = data.split(|b| *b == 0).next().unwrap_or_default();
                self.set_path(utf8(name, "a GNU long name")?)?;
                Ok(Step::Extension)
            }
            b'K' => {
                extension_data(entry)?;
                Ok(Step::Extension)
            }
            b'g' => Err("a global PAX header, which tar readers apply differently".into()),
            flag => {
                let written = header_path(&raw)?;
                let path = self.path.take().unwrap_or(written);
                Ok(Step::Entry(Header { path, kind: kind_of(flag) }))
            }
        }
    }

    fn set_path(&mut self, path: String) -> Result<(), String> {
        if self.path.replace(path).is_some() {
            return Err("two extension headers naming one entry's path".into());
        }
        Ok(())
    }

    /// A PAX header's records: `path` is the next entry's; a key written
    /// twice, `size` and GNU's sparse records are refused (readers differ on
    /// each).
    fn pax(&mut self, data: &[u8]) -> Result<(), String> {
        let mut seen = std::collections::BTreeSet::new();
        let mut rest = data;
        while !rest.is_empty() {
            let space = rest.iter().position(|b| *b == b' ').ok_or("a PAX record without its length")?;
            let len: usize = std::str::from_utf8(&rest[..space])
                .ok()
                .and_then(|n| n.parse().ok())
                .filter(|n| *n > space + 1 && *n <= rest.len())
                .ok_or("a PAX record whose length is not its length")?;
            let record = rest.get(space + 1..len - 1).filter(|_| rest[len - 1] == b'\n');
            let record = record.ok_or("a PAX record not ended by a line break")?;
            let eq = record.iter().position(|b| *b == b'=').ok_or("a PAX record without '='")?;
            let key = utf8(&record[..eq], "a PAX key")?;
            if !seen.insert(key.clone()) {
                return Err(format!("the PAX record {key:?} written twice, which tar readers read differently"));
            }
            if key == "size" || key.starts_with("GNU.sparse.") {
                return Err(format!("the PAX record {key:?}, which tar readers read differently"));
            }
            if key == "path" {
                self.set_path(utf8(&record[eq + 1..], "a PAX path")?)?;
            }
            rest = &rest[len..];
        }
        Ok(())
    }
}

/// An extension's data, at most [`EXTENSION_LIMIT`] bytes.
fn extension_data<R: Read>(entry: &mut tar::Entry<'_, R>) -> Result<Vec<u8>, String> {
    if entry.size() > EXTENSION_LIMIT {
        return Err(format!("an extension header of {} bytes", entry.size()));
    }
    let mut data = Vec::new();
    entry.read_to_end(&mut data).map_err(|e| format!("an extension header cannot be read: {e}"))?;
    Ok(data)
}

/// The path a plain header writes, by its magic: v7 (none) and GNU the
/// name field alone, ustar the prefix joined to it. A star header (whose
/// prefix Go reads shorter), an unknown magic, and a GNU header whose access
/// or change time is not a number (which Go reads as a prefix) are refused.
fn header_path(raw: &[u8; 512]) -> Result<String, String> {
    let field = |range: std::ops::Range<usize>| {
        let bytes = &raw[range];
        &bytes[..bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len())]
    };
    let name = utf8(field(0..100), "an entry's name")?;
    match (&raw[257..263], &raw[263..265]) {
        (b"ustar\0", b"00") => {
            if &raw[508..512] == b"tar\0" {
                return Err("a star header, whose path tar readers read differently".into());
            }
            let prefix = utf8(field(345..500), "an entry's prefix")?;
            Ok(if prefix.is_empty() { name } else { format!("{prefix}/{name}") })
        }
        (b"ustar ", b" \0") => {
            let numeric =
                |bytes: &[u8]| bytes[0] & 0x80 != 0 || bytes.iter().all(|b| matches!(b, b'0'..=b'7' | b' ' | 0));
            if !numeric(&raw[345..357]) || !numeric(&raw[357..369]) {
                return Err("a GNU header whose times are not numbers, which Go's reader reads as a path prefix".into());
            }
            Ok(name)
        }
        _ if raw[257..265].iter().all(|b| *b == 0) => Ok(name),
        (magic, _) => Err(format!("a header of unknown magic {:?}", String::from_utf8_lossy(magic))),
    }
}

fn kind_of(flag: u8) -> Kind {
    match flag {
        b'0' | 0 | b'7' => Kind::File,
        b'5' => Kind::Dir,
        b'2' => Kind::Symlink,
        b'1' => Kind::Hardlink,
        b'3' => Kind::Special("character device"),
        b'4' => Kind::Special("block device"),
        b'6' => Kind::Special("fifo"),
        b'S' => Kind::Special("GNU sparse file"),
        _ => Kind::Special("tar entry of another type"),
    }
}

/// `bytes` as UTF-8: a path that is not would be one path to olm-rbac and
/// another to Go (which keeps the bytes).
fn utf8(bytes: &[u8], what: &str) -> Result<String, String> {
    String::from_utf8(bytes.to_vec()).map_err(|_| format!("{what} that is not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The magics a header may carry.
    #[derive(Clone, Copy)]
    enum Magic {
        V7,
        Ustar,
        Gnu,
        Star,
    }

    /// A 512-byte header with its checksum.
    fn header(name: &[u8], flag: u8, size: usize, magic: Magic, prefix: &[u8]) -> Vec<u8> {
        let mut h = vec![0u8; 512];
        h[..name.len()].copy_from_slice(name);
        h[100..107].copy_from_slice(b"0000644");
        h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
        h[136..147].copy_from_slice(b"00000000000");
        h[156] = flag;
        match magic {
            Magic::V7 => {}
            Magic::Ustar | Magic::Star => {
                h[257..263].copy_from_slice(b"ustar\0");
                h[263..265].copy_from_slice(b"00");
            }
            Magic::Gnu => {
                h[257..263].copy_from_slice(b"ustar ");
                h[263..265].copy_from_slice(b" \0");
            }
        }
        h[345..345 + prefix.len()].copy_from_slice(prefix);
        if let Magic::Star = magic {
            h[508..512].copy_from_slice(b"tar\0");
        }
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|b| u32::from(*b)).sum();
        h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        h
    }

    /// An entry: its header and its data, padded to blocks.
    fn entry(name: &[u8], flag: u8, data: &[u8], magic: Magic, prefix: &[u8]) -> Vec<u8> {
        let mut out = header(name, flag, data.len(), magic, prefix);
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(512) * 512, 0);
        out
    }

    fn pax(records: &[(&str, &str)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (k, v) in records {
            let body = format!(" {k}={v}\n");
            let mut len = body.len() + 1;
            while format!("{len}{body}").len() != len {
                len += 1;
            }
            out.extend_from_slice(format!("{len}{body}").as_bytes());
        }
        out
    }

    /// The paths of the entries a tar's headers give, or the first refusal.
    fn paths(entries: &[Vec<u8>]) -> Result<Vec<String>, String> {
        let mut tar: Vec<u8> = entries.concat();
        tar.extend_from_slice(&[0u8; 1024]);
        let mut archive = tar::Archive::new(&tar[..]);
        let mut headers = Headers::default();
        let mut out = Vec::new();
        for e in archive.entries().map_err(|e| e.to_string())?.raw(true) {
            let mut e = e.map_err(|e| e.to_string())?;
            if let Step::Entry(h) = headers.read(&mut e)? {
                out.push(h.path);
            }
        }
        Ok(out)
    }

    /// The header forms real images use read as every reader reads them.
    #[test]
    fn plain_headers_and_their_extensions_give_their_paths() {
        let file = |name: &[u8], magic| entry(name, b'0', b"x", magic, b"");
        assert_eq!(paths(&[file(b"manifests/a.yaml", Magic::Ustar)]), Ok(vec!["manifests/a.yaml".into()]));
        assert_eq!(paths(&[file(b"manifests/a.yaml", Magic::V7)]), Ok(vec!["manifests/a.yaml".into()]));
        assert_eq!(paths(&[file(b"manifests/a.yaml", Magic::Gnu)]), Ok(vec!["manifests/a.yaml".into()]));
        let prefixed = entry(b"a.yaml", b'0', b"x", Magic::Ustar, b"manifests");
        assert_eq!(paths(&[prefixed]), Ok(vec!["manifests/a.yaml".into()]));
        let long = pax(&[("path", "manifests/long.yaml"), ("mtime", "1.5")]);
        let with_pax = [entry(b"PaxHeaders/x", b'x', &long, Magic::Ustar, b""), file(b"short", Magic::Ustar)];
        assert_eq!(paths(&with_pax), Ok(vec!["manifests/long.yaml".into()]));
        // As Go reads them: extension headers count whatever their magic.
        let v7_pax = [entry(b"PaxHeaders/x", b'x', &long, Magic::V7, b""), file(b"junk/x", Magic::V7)];
        assert_eq!(paths(&v7_pax), Ok(vec!["manifests/long.yaml".into()]));
        let v7_long = [entry(b"././@LongLink", b'L', b"manifests/l.yaml\0", Magic::V7, b""), file(b"junk", Magic::V7)];
        assert_eq!(paths(&v7_long), Ok(vec!["manifests/l.yaml".into()]));
    }

    /// Each form on which tar readers part gives no paths, but a refusal.
    #[test]
    fn headers_readers_read_differently_are_refused() {
        let file = |name: &[u8], magic| entry(name, b'0', b"x", magic, b"");
        let cases: Vec<(&str, Vec<Vec<u8>>)> = vec![
            (
                "written twice",
                vec![
                    entry(b"p", b'x', &pax(&[("path", "junk/x"), ("path", "manifests/x")]), Magic::Ustar, b""),
                    file(b"f", Magic::Ustar),
                ],
            ),
            ("\"size\"", vec![entry(b"p", b'x', &pax(&[("size", "1")]), Magic::Ustar, b""), file(b"f", Magic::Ustar)]),
            (
                "GNU.sparse.name",
                vec![
                    entry(b"p", b'x', &pax(&[("GNU.sparse.name", "manifests/x")]), Magic::Ustar, b""),
                    file(b"f", Magic::Ustar),
                ],
            ),
            (
                "global PAX",
                vec![entry(b"g", b'g', &pax(&[("comment", "x")]), Magic::Ustar, b""), file(b"f", Magic::Ustar)],
            ),
            ("star header", vec![entry(b"x.yaml", b'0', b"x", Magic::Star, b"manifests")]),
            ("not numbers", vec![entry(b"x.yaml", b'0', b"x", Magic::Gnu, b"manifests")]),
            ("not UTF-8", vec![file(b"manifests/x\xff.yaml", Magic::Ustar)]),
            (
                "two extension headers",
                vec![
                    entry(b"././@LongLink", b'L', b"a\0", Magic::Gnu, b""),
                    entry(b"p", b'x', &pax(&[("path", "b")]), Magic::Ustar, b""),
                    file(b"f", Magic::Ustar),
                ],
            ),
        ];
        for (why, entries) in cases {
            match paths(&entries) {
                Err(refused) => assert!(refused.contains(why), "{why}: {refused}"),
                Ok(read) => panic!("{why}: read as {read:?}"),
            }
        }
    }
}
