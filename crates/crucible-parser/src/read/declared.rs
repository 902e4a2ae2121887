//! The id a file declares, as the full parser reads it: the reference the
//! [`peek`](super::peek) tier must agree with, and where it defers to.

use serde_yaml::Value;

use super::peek::{Peek, peek_text};
use crate::frontmatter;

/// The `session_id` a file declares, from at most the first
/// [`HEAD_BYTES`](crucible_core::store::HEAD_BYTES) of it: `None` when it is
/// not a session, `Some("")` for a session without a readable id.
///
/// The line [`peek`](super::peek) answers when it can; otherwise the
/// frontmatter is read with serde_yaml, as the full parser reads it. A
/// frontmatter that YAML cannot read (or that is never closed) is judged by
/// its `type:` line alone, so a broken session file is shown with its error
/// rather than hidden.
pub fn declared_id(head: &[u8]) -> Option<String> {
    let text = super::head_text(head);
    match peek_text(text) {
        Peek::Session(id) => Some(id),
        Peek::NotASession => None,
        Peek::Unsure => by_yaml(text),
    }
}

/// The YAML tier alone, for the differential tests.
#[doc(hidden)]
pub fn declared_id_by_yaml(head: &[u8]) -> Option<String> {
    by_yaml(super::head_text(head))
}

fn by_yaml(text: &str) -> Option<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = text.replace("\r\n", "\n");
    let split = match frontmatter::split(&text) {
        Ok(split) => split,
        Err(crate::ParseErrorKind::MissingFrontmatter) => return None,
        Err(_) => return by_lines(&text),
    };
    let value = if split.yaml.trim().is_empty() {
        return None; // an empty frontmatter has no `type`
    } else {
        match serde_yaml::from_str::<Value>(split.yaml) {
            Ok(v) => v,
            Err(_) => return by_lines(split.yaml),
        }
    };
    let Value::Mapping(map) = value else {
        return by_lines(split.yaml);
    };
    // The full parser reads a number or boolean as its text (FieldReader::text).
    let text_of = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    let kind = map.get("type").and_then(text_of);
    if kind.as_deref() != Some("session") {
        return None;
    }
    Some(map.get("session_id").and_then(text_of).unwrap_or_default())
}

/// For a frontmatter YAML refuses: what its top-level `type:` and
/// `session_id:` lines say (spacing, quotes and trailing comments aside), so
/// the broken file is found by its id and shown with its error.
fn by_lines(yaml: &str) -> Option<String> {
    let mut is_session = false;
    let mut id = String::new();
    for line in yaml.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        if line.starts_with([' ', '\t']) {
            continue;
        }
        let unquote = |s: &str| s.trim().trim_matches(['"', '\'']).to_owned();
        let value = unquote(value.split(" #").next().unwrap_or(value));
        match unquote(key).as_str() {
            "type" => is_session = value == "session",
            "session_id" => id = value,
            _ => {}
        }
    }
    is_session.then_some(id)
}
