//! The cheapest tier: the declared id from the frontmatter's top-level lines,
//! without a YAML parse.
//!
//! It answers only for the plain forms cru writes and people usually type
//! (`type: session`, `session_id: 'a-b'`, comments, blank lines, CRLF, a
//! BOM, `...` as the end). Anything where a YAML reader could see something
//! else (a space before the colon, quoted keys, flow style, anchors, tags,
//! block scalars, a value continued on the next line, duplicate keys, odd
//! line breaks) is [`Peek::Unsure`], and the caller asks the YAML tier.

use crate::frontmatter::yaml11_non_string;

/// Top-level keys beyond which the peek defers.
const MAX_KEYS: usize = 64;

/// What the line peek could tell about a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Peek {
    /// A session declaring this id (`""` when it declares none).
    Session(String),
    /// Not a session: no frontmatter, or `type` is something else.
    NotASession,
    /// Not certain: ask [`declared_id`](super::declared_id).
    Unsure,
}

/// The line peek over at most the first
/// [`HEAD_BYTES`](crucible_core::store::HEAD_BYTES) of a file.
pub fn peek(head: &[u8]) -> Peek {
    peek_text(super::head_text(head))
}

/// A top-level entry the peek has read.
struct Entry<'a> {
    key: &'a str,
    /// The text of a `type` or `session_id` value; `None` for other keys.
    value: Option<String>,
}

pub(super) fn peek_text(text: &str) -> Peek {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split('\n');
    let Some(first) = lines.next() else {
        return Peek::NotASession;
    };
    if first.trim_end() != "---" {
        // A first line that differs only in characters the parser might
        // normalise (a lone CR, odd whitespace) is not ours to judge.
        return if first.trim_end_matches([' ', '\t', '\r']) == first.trim_end() {
            Peek::NotASession
        } else {
            Peek::Unsure
        };
    }
    let mut entries: Vec<Entry<'_>> = Vec::with_capacity(16);
    // After `key: |` or `key: >`: the block's first line must be indented,
    // or libyaml's reading of what follows is beyond the peek.
    let mut after_block_header = false;
    for line in lines {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if std::mem::take(&mut after_block_header) && !line.starts_with(' ') {
            return Peek::Unsure;
        }
        if line.trim_end() == "---" || line.trim_end() == "..." {
            return answer(&entries);
        }
        if has_break_or_control(line) {
            return Peek::Unsure;
        }
        match classify(line) {
            Line::Blank => {}
            Line::Continuation(value) => {
                after_block_header = value.starts_with(['|', '>']);
                // A value on several lines: fine for other keys, but the
                // value of `type` or `session_id` would change.
                if entries.last().is_some_and(|e| e.value.is_some()) {
                    return Peek::Unsure;
                }
            }
            Line::Entry(key, value) => {
                // Duplicates are found by a scan, cheap for the dozen keys
                // a session has; a frontmatter of thousands goes to YAML
                // (linear) rather than make the peek quadratic.
                if entries.len() >= MAX_KEYS || entries.iter().any(|e| e.key == key) {
                    return Peek::Unsure; // a duplicate: the YAML tier reports it
                }
                let value = match key {
                    "type" | "session_id" => match id_text(value) {
                        Some(v) => Some(v),
                        None => return Peek::Unsure,
                    },
                    _ if other_value_is_plain(value) => {
                        after_block_header = value.starts_with(['|', '>']);
                        None
                    }
                    _ => return Peek::Unsure,
                };
                entries.push(Entry { key, value });
            }
            Line::Unsure => return Peek::Unsure,
        }
    }
    // Never closed in the head: a longer frontmatter, or a broken file.
    Peek::Unsure
}

fn answer(entries: &[Entry<'_>]) -> Peek {
    let value = |k: &str| {
        entries
            .iter()
            .find(|e| e.key == k)
            .and_then(|e| e.value.clone())
    };
    match value("type") {
        Some(t) if t == "session" => Peek::Session(value("session_id").unwrap_or_default()),
        _ => Peek::NotASession,
    }
}

/// A frontmatter line as the peek sees it.
enum Line<'a> {
    Blank,
    /// Indented, or a block list item at column 0 (with its value): part
    /// of the entry above.
    Continuation(&'a str),
    /// `key: value` (the value with a trailing comment removed, maybe empty).
    Entry(&'a str, &'a str),
    Unsure,
}

fn classify(line: &str) -> Line<'_> {
    let trimmed = line.trim_start_matches(' ');
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Line::Blank;
    }
    if line.starts_with('\t') {
        return Line::Unsure;
    }
    if line.starts_with(' ') {
        return Line::Continuation("");
    }
    if line == "-" || line.starts_with("- ") {
        // An item of the list above; quoted or flow items may run on.
        let value = strip_comment(line[1..].trim());
        return if other_value_is_plain(value) {
            Line::Continuation(value)
        } else {
            Line::Unsure
        };
    }
    let Some((key, rest)) = line.split_once(':') else {
        return Line::Unsure;
    };
    let plain_key = key
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
    if !plain_key || !(rest.is_empty() || rest.starts_with(' ')) {
        return Line::Unsure;
    }
    Line::Entry(key, strip_comment(rest.trim()))
}

/// A value without its trailing ` # comment`. Only called where a `#` can't
/// be inside quotes that the peek accepts.
fn strip_comment(value: &str) -> &str {
    if value.starts_with('#') {
        return "";
    }
    match value.find(" #") {
        Some(i) => value[..i].trim_end(),
        None => value,
    }
}

/// The text of a `type` or `session_id` value when YAML can only read it as
/// that text; `None` to defer.
fn id_text(value: &str) -> Option<String> {
    let safe = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    let inner = if let Some(inner) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
        inner
    } else if let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        inner
    } else {
        // Plain: only text no YAML reader takes for a number, bool or null.
        if !safe(value) || value.starts_with(['-', '.']) || yaml11_non_string(value) {
            return None;
        }
        value
    };
    safe(inner).then(|| inner.to_owned())
}

/// True for a value of another key that cannot run on to the next line at
/// column 0 (where it would hide a `type` line): no quotes or flow
/// collections left open. Block scalars (`|`, `>`) are indented, so fine.
fn other_value_is_plain(value: &str) -> bool {
    match value.as_bytes().first() {
        Some(b'"' | b'\'') => {
            let q = value.as_bytes()[0];
            // One quoted scalar, closed on this line, with nothing escaped.
            value.len() >= 2
                && value.as_bytes()[value.len() - 1] == q
                && !value[1..value.len() - 1].contains([q as char, '\\'])
        }
        Some(b'[' | b'{') => value == "[]" || value == "{}",
        // An anchor, alias or tag before a value it could open: defer.
        Some(b'&' | b'*' | b'!' | b'%' | b'@' | b'`' | b'?') => false,
        // Empty, or a plain scalar.
        None | Some(_) => true,
    }
}

/// A control character, or a character libyaml reads as a line break or a
/// byte order mark: the YAML tier judges such lines.
fn has_break_or_control(line: &str) -> bool {
    line.chars().any(|c| {
        (c.is_control() && c != '\t')
            || matches!(
                c,
                '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Peek {
        peek_text(s)
    }

    #[test]
    fn reads_the_plain_forms() {
        assert_eq!(
            p("---\ntype: session\nsession_id: 'a-b'\n---\n"),
            Peek::Session("a-b".into())
        );
        assert_eq!(
            p("\u{feff}---\r\ntype: session # kind\r\n# note\r\nsession_id: x\r\n...\r\n"),
            Peek::Session("x".into())
        );
        assert_eq!(
            p("---\ntype: workflow\nsession_id: x\n---\n"),
            Peek::NotASession
        );
        assert_eq!(p("no frontmatter"), Peek::NotASession);
        assert_eq!(p("---\ntype: session\n---\n"), Peek::Session(String::new()));
    }

    #[test]
    fn defers_where_yaml_could_read_otherwise() {
        for doc in [
            "---\ntype : session\nsession_id: x\n---\n",
            "---\n\"type\": session\n---\n",
            "---\n{type: session, session_id: x}\n---\n",
            "---\ntype: session\nsession_id: x\nsession_id: y\n---\n",
            "---\ntype: !!str session\n---\n",
            "---\ntype: &t session\n---\n",
            "---\ntype: session\nsession_id: |\n  x\n---\n",
            "---\ntype: session\nsession_id: x\n  y\n---\n",
            "---\ntitle: \"open\ntype: workflow\"\ntype: session\n---\n",
            "---\ntype: session\nsession_id: 1e3\n---\n",
            "---\ntype: session\n", // never closed
            "---\ntype:\tsession\n---\n",
        ] {
            assert_eq!(p(doc), Peek::Unsure, "{doc:?}");
        }
    }
}
