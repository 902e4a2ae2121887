//! A Gemini CLI chat file read into its messages, as gemini-cli itself
//! reads it back (`chatRecordingService.ts`, `loadConversationRecord`).
//!
//! Two shapes:
//! - the classic `session-*.json`: one JSON document `{sessionId,
//!   projectHash, startTime, lastUpdated, messages[]}`;
//! - the newer `session-*.jsonl`: a first line with the metadata, then one
//!   line per message, where a line with the id of an earlier message
//!   replaces it (a reply is written again once its tool calls are done),
//!   `{"$set": {...}}` lines that update the metadata (or, with `messages`,
//!   replace them all: a checkpoint), and `{"$rewindTo": id}` lines that
//!   drop that message and every later one.

use std::path::Path;

use serde_json::{Map, Value};

use crate::{ImportWarning, RecordTally};

/// One message, with the line it was last written on (JSONL only).
#[derive(Debug, Clone)]
pub(super) struct Message {
    pub line: Option<usize>,
    pub record: Value,
}

/// A chat file's metadata and its messages in order, and what was dropped
/// on the way (messages rewound), kept so that nothing is lost.
#[derive(Debug, Default)]
pub(super) struct Chat {
    pub meta: Map<String, Value>,
    pub messages: Vec<Message>,
    pub rewound: Vec<Message>,
}

/// True for a message record: an `id` and a `type`.
fn is_message(v: &Value) -> bool {
    v.get("id").and_then(Value::as_str).is_some() && v.get("type").and_then(Value::as_str).is_some()
}

/// A message's type, for the tally.
fn kind(v: &Value) -> &str {
    v.get("type").and_then(Value::as_str).unwrap_or("message")
}

/// Counts a message: read when of a type cru knows, else unknown (it is
/// still kept whole in the sidecar, see `Session::message`).
fn count(tally: &mut RecordTally, v: &Value) {
    match kind(v) {
        k @ ("user" | "gemini" | "info" | "error" | "warning") => tally.read(k),
        k => tally.unknown(k),
    }
}

/// The classic document.
pub(super) fn from_document(doc: Value, tally: &mut RecordTally) -> Chat {
    let mut chat = Chat::default();
    let Value::Object(mut meta) = doc else {
        return chat;
    };
    let messages = meta.remove("messages");
    tally.read("metadata");
    for m in messages.into_iter().flat_map(|m| match m {
        Value::Array(a) => a,
        _ => Vec::new(),
    }) {
        if is_message(&m) {
            count(tally, &m);
            chat.messages.push(Message {
                line: None,
                record: m,
            });
        } else {
            tally.skip("message", "a message without an id or a type");
        }
    }
    chat.meta = meta;
    chat
}

/// The JSONL shape, line by line.
pub(super) fn from_lines(
    path: &Path,
    text: &str,
    warnings: &mut Vec<ImportWarning>,
    tally: &mut RecordTally,
) -> Chat {
    let mut chat = Chat::default();
    for (line, v) in crate::transcript::json_lines(path, text, warnings) {
        if let Some(id) = v.get("$rewindTo").and_then(Value::as_str) {
            tally.read("$rewindTo");
            let at = chat
                .messages
                .iter()
                .position(|m| m.record.get("id").and_then(Value::as_str) == Some(id))
                // An id not found drops everything, as gemini-cli does.
                .unwrap_or(0);
            chat.rewound.extend(chat.messages.drain(at..));
        } else if let Some(Value::Object(set)) = v.get("$set") {
            tally.read("$set");
            for (k, val) in set {
                if k == "messages" {
                    let all = val.as_array().cloned().unwrap_or_default();
                    chat.rewound.append(&mut chat.messages);
                    for m in all.into_iter().filter(is_message) {
                        upsert(&mut chat.messages, Some(line), m);
                    }
                } else {
                    chat.meta.insert(k.clone(), val.clone());
                }
            }
        } else if is_message(&v) {
            count(tally, &v);
            upsert(&mut chat.messages, Some(line), v);
        } else if v.get("sessionId").is_some() {
            tally.read("metadata");
            if let Value::Object(m) = v {
                chat.meta.extend(m);
            }
        } else {
            tally.unknown("line without id, type or sessionId");
        }
    }
    chat
}

/// Puts a message in place of the one with its id, or last.
fn upsert(messages: &mut Vec<Message>, line: Option<usize>, record: Value) {
    let id = record.get("id").and_then(Value::as_str).map(str::to_owned);
    let m = Message { line, record };
    match messages
        .iter_mut()
        .find(|o| o.record.get("id").and_then(Value::as_str) == id.as_deref())
    {
        Some(old) => *old = m,
        None => messages.push(m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat_of(text: &str) -> (Chat, RecordTally) {
        let mut tally = RecordTally::default();
        let chat = from_lines(Path::new("t.jsonl"), text, &mut Vec::new(), &mut tally);
        (chat, tally)
    }

    fn ids(ms: &[Message]) -> Vec<&str> {
        ms.iter()
            .map(|m| m.record["id"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn a_line_with_a_known_id_replaces_the_message_in_place() {
        let (chat, tally) = chat_of(concat!(
            r#"{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T00:00:00Z"}"#,
            "\n",
            r#"{"id":"a","type":"user","content":"hi"}"#,
            "\n",
            r#"{"id":"b","type":"gemini","content":""}"#,
            "\n",
            r#"{"$set":{"lastUpdated":"2026-01-01T00:01:00Z"}}"#,
            "\n",
            r#"{"id":"b","type":"gemini","content":"done"}"#,
            "\n",
        ));
        assert_eq!(ids(&chat.messages), ["a", "b"]);
        assert_eq!(chat.messages[1].record["content"], "done");
        assert_eq!(chat.messages[1].line, Some(5));
        assert_eq!(chat.meta["lastUpdated"], "2026-01-01T00:01:00Z");
        assert_eq!(tally.read_count(), 5);
        assert!(tally.skipped.is_empty());
    }

    #[test]
    fn a_rewind_drops_the_message_and_what_follows_but_keeps_them_aside() {
        let (chat, _) = chat_of(concat!(
            r#"{"id":"a","type":"user","content":"one"}"#,
            "\n",
            r#"{"id":"b","type":"gemini","content":"two"}"#,
            "\n",
            r#"{"id":"c","type":"user","content":"three"}"#,
            "\n",
            r#"{"$rewindTo":"b"}"#,
            "\n",
            r#"{"id":"d","type":"user","content":"four"}"#,
            "\n",
        ));
        assert_eq!(ids(&chat.messages), ["a", "d"]);
        assert_eq!(ids(&chat.rewound), ["b", "c"]);
    }
}
