//! The hook scripts' logs read back: one JSON array per event type, each
//! element a payload as Claude Code sent it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{ORDER, real};

/// Every `*.json` under `dir`, at any depth, in name order.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(json_files(&p));
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
    out
}

/// One payload: its text as the log holds it (what is sent), and its value.
pub(super) struct Payload {
    pub(super) raw: String,
    pub(super) value: Value,
}

impl Payload {
    pub(super) fn of_value(value: Value) -> Self {
        Self {
            raw: value.to_string(),
            value,
        }
    }
}

impl std::ops::Deref for Payload {
    type Target = Value;

    fn deref(&self) -> &Value {
        &self.value
    }
}

/// A repository's hook payloads by Claude session id, in replay order.
/// `chat.json` (a transcript, not payloads) is left out.
pub(super) fn sessions_of(repo: &str) -> BTreeMap<String, Vec<Payload>> {
    let mut by_id: BTreeMap<String, Vec<Payload>> = BTreeMap::new();
    for file in json_files(&real().join(repo).join("logs")) {
        if file.file_name().is_some_and(|n| n == "chat.json") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for raw in elements(&text) {
            let value = value_of(raw);
            let id = value["session_id"].as_str().unwrap().to_owned();
            let raw = raw.to_owned();
            by_id.entry(id).or_default().push(Payload { raw, value });
        }
    }
    for payloads in by_id.values_mut() {
        // A stable sort: each type keeps its file's order.
        payloads.sort_by_key(|p| rank(event(p)));
    }
    by_id
}

/// The elements of a log's top-level array (objects), as its text holds
/// them.
fn elements(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut in_string, mut escaped) = (0usize, 0, false, false);
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => {
                if depth == 1 {
                    start = i;
                }
                depth += 1;
            }
            '}' | ']' => {
                depth -= 1;
                if depth == 1 {
                    out.push(&text[start..=i]);
                }
            }
            _ => {}
        }
    }
    out
}

/// A payload's value. serde_json refuses an escaped lone surrogate
/// (`"\udc90"`), which some logs hold: the test reads those as U+FFFD
/// to know what to expect (cru gets the payload as the log holds it).
fn value_of(raw: &str) -> Value {
    serde_json::from_str(raw).unwrap_or_else(|_| {
        serde_json::from_str(&lone_surrogates_replaced(raw))
            .unwrap_or_else(|e| panic!("{e}: {}", crucible_core::cut(raw, 200)))
    })
}

/// `raw` with every escaped UTF-16 surrogate that is not half of a pair
/// written `\ufffd`.
fn lone_surrogates_replaced(raw: &str) -> String {
    let b = raw.as_bytes();
    let unit_at = |i: usize| -> Option<u16> {
        if b.get(i) != Some(&b'\\') || b.get(i + 1) != Some(&b'u') {
            return None;
        }
        raw.get(i + 2..i + 6)
            .and_then(|h| u16::from_str_radix(h, 16).ok())
    };
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < b.len() {
        match unit_at(i) {
            Some(0xD800..=0xDBFF) if matches!(unit_at(i + 6), Some(0xDC00..=0xDFFF)) => {
                out.push_str(&raw[i..i + 12]);
                i += 12;
            }
            Some(0xD800..=0xDFFF) => {
                out.push_str("\\ufffd");
                i += 6;
            }
            Some(_) => {
                out.push_str(&raw[i..i + 6]);
                i += 6;
            }
            // Any other escape is two ASCII characters.
            None if b[i] == b'\\' => {
                out.push_str(&raw[i..i + 2]);
                i += 2;
            }
            None => {
                let c = raw[i..].chars().next().expect("i is on a character");
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

pub(super) fn event(p: &Value) -> &str {
    p["hook_event_name"].as_str().unwrap_or("")
}

fn rank(event: &str) -> usize {
    ORDER
        .iter()
        .position(|e| *e == event)
        .unwrap_or(ORDER.len())
}

#[test]
fn hook_real_logs_are_read_as_written() {
    let text = r#"[
  {"a": "x\"}{", "b": [1, {"c": 2}]},
  {"d": "\\udc90 \udc90 \ud83d\ude00"}
]"#;
    let els = elements(text);
    assert_eq!(
        els,
        [
            r#"{"a": "x\"}{", "b": [1, {"c": 2}]}"#,
            r#"{"d": "\\udc90 \udc90 \ud83d\ude00"}"#
        ]
    );
    assert_eq!(
        lone_surrogates_replaced(els[1]),
        r#"{"d": "\\udc90 \ufffd \ud83d\ude00"}"#,
        "an escaped backslash and a pair stay, a lone half goes"
    );
    assert_eq!(value_of(els[1])["d"], "\\udc90 \u{fffd} \u{1f600}");
}
