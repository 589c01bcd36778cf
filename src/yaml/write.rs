//! Writing: values as block YAML, entries of a block sequence, and the line
//! endings of the text they are written into.

/// Serialises a value as block YAML that YAML 1.1 readers read back the same.
/// Long strings stay on one line, as kubectl writes them: easier to diff.
pub(crate) fn to_yaml<T: serde::Serialize>(value: &T) -> Result<String, String> {
    let mut options = serde_saphyr::SerializerOptions::default();
    options.prefer_block_scalars = false;
    serde_saphyr::to_string_with_options(value, options).map_err(|e| e.to_string())
}

/// Writes `text` (a serialised object) as a block-sequence entry at `indent`.
pub(crate) fn as_seq_entry(text: &str, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() {
            out.push('\n');
            continue;
        }
        out.push_str(&pad);
        out.push_str(if i == 0 { "- " } else { "  " });
        out.push_str(line);
        out.push('\n');
    }
}

/// The line ending a text uses: `\r\n` if it has any, else `\n`. Lines olm-rbac
/// writes into or after someone's text follow it.
pub(crate) fn line_ending(text: &str) -> &'static str {
    if text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

/// `text` (written with `\n`) with the given line ending.
pub(crate) fn with_line_ending(text: &str, eol: &str) -> String {
    if eol == "\n" {
        text.to_string()
    } else {
        text.replace('\n', eol)
    }
}
