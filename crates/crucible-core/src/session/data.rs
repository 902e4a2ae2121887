//! What a session's source held that its markdown keeps only in summary,
//! kept whole in a sidecar beside the session: `.<stem>.data.jsonl` next to
//! `<stem>.md`.
//!
//! The markdown is for people: a tool call is one line with a result cut to
//! 100 characters. An imported session must still lose nothing its source
//! held, so the full arguments (JSON, keys kept), full results, the source's
//! call ids, exit codes, durations, diffs, images and thinking blocks go
//! here, one JSON record per line after a header line that names the
//! session. A call record says where its call is (the phase's index and the
//! call's index among that phase's tool calls, in document order) and the
//! tool's name, so [`SessionData::check`] can tell a sidecar that no longer
//! matches its session.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Block, SessionId, SessionLog};

/// The sidecar's format version, in its header line.
pub const DATA_VERSION: u32 = 1;

/// The sidecar of the session file at `session_path`:
/// `<dir>/.<stem>.data.jsonl`. Hidden, so that a person browsing the
/// folder sees the sessions, and not markdown, so no walker reads it as one.
pub fn data_path(session_path: &Path) -> PathBuf {
    crate::store::names::sidecar(session_path)
}

/// True for a file name that is a session's sidecar.
pub fn is_data_file_name(name: &str) -> bool {
    crate::store::names::is_sidecar(name)
}

/// Everything a session's sidecar holds, in source order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionData {
    pub records: Vec<DataRecord>,
}

/// One thing kept whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DataRecord {
    /// A tool call, whole.
    Call(CallData),
    /// A thinking (reasoning) block of the agent.
    Thinking(ThinkingData),
    /// An image in a message or a tool result.
    Image(ImageData),
    /// Context the source added that is not the user's words (IDE state,
    /// caveats, slash-command output, compaction summaries, hook output):
    /// kept here, never as a title or a phase of its own.
    Context(ContextData),
    /// A source record kept as it was, for what no other record holds (an
    /// exporter to the same format writes it back).
    Source(SourceData),
}

/// A tool call's full arguments and result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallData {
    /// The phase's index (0-based, document order).
    pub phase: usize,
    /// The call's index among the phase's tool calls (0-based, document
    /// order, across all its tool-call lists).
    pub call: usize,
    /// The tool's name, as in the markdown line.
    pub tool: String,
    /// The source's id for the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The arguments as the source gave them (JSON, keys kept; a `null`
    /// the source wrote is kept as one).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub arguments: Option<Value>,
    /// The full result: text, or the source's content blocks.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// A diff the call produced (an edit's patch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Anything else the source said about the call, by its own keys.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A key that is there is `Some`, even when its value is `null` (serde's
/// own reading of an `Option` makes `null` and absent the same).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// A thinking block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ThinkingData {
    /// The phase it belongs to (`None`: before the first phase).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<usize>,
    pub text: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An image: its media type and size always, its bytes (base64) when kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ImageData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<usize>,
    /// The call whose result held it (index as in [`CallData::call`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<usize>,
    pub media_type: String,
    /// Decoded size in bytes.
    pub bytes: u64,
    /// The bytes, base64 as the source had them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Context the source injected.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ContextData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<usize>,
    /// What it is, in the source's words (`caveat`, `command-stdout`,
    /// `environment_context`, `compact-summary`, ...).
    pub label: String,
    pub text: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A source record kept whole.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SourceData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<usize>,
    /// The record's line in the source file (1-based), when it has lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub record: Value,
}

/// The header line.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    cru_data: u32,
    session_id: String,
}

/// A sidecar that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct DataError {
    pub line: usize,
    pub message: String,
}

/// A sidecar record that does not match its session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataMismatch {
    /// The record's line in the sidecar (1-based).
    pub line: usize,
    pub message: String,
}

impl SessionData {
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The call records, in order.
    pub fn calls(&self) -> impl Iterator<Item = &CallData> {
        self.records.iter().filter_map(|r| match r {
            DataRecord::Call(c) => Some(c),
            _ => None,
        })
    }

    /// The record of the call at (`phase`, `call`).
    pub fn call_at(&self, phase: usize, call: usize) -> Option<&CallData> {
        self.calls().find(|c| c.phase == phase && c.call == call)
    }

    /// The sidecar's bytes: the header, then [`SessionData::records_jsonl`].
    pub fn to_jsonl(&self, id: &SessionId) -> Vec<u8> {
        let mut out = Vec::new();
        let header = Header {
            cru_data: DATA_VERSION,
            session_id: id.as_str().to_owned(),
        };
        // Serializing plain data to a Vec cannot fail.
        serde_json::to_writer(&mut out, &header).expect("header serializes");
        out.push(b'\n');
        out.extend(self.records_jsonl());
        out
    }

    /// The records, one JSON line each: the sidecar after its header line
    /// (what an import's `data_hash` covers).
    pub fn records_jsonl(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for r in &self.records {
            serde_json::to_writer(&mut out, r).expect("record serializes");
            out.push(b'\n');
        }
        out
    }

    /// The part of a sidecar file's bytes after its header line.
    pub fn records_part(file: &[u8]) -> &[u8] {
        file.iter()
            .position(|&b| b == b'\n')
            .map_or(&[][..], |i| &file[i + 1..])
    }

    /// Reads a sidecar: the session id its header names, and the records.
    pub fn from_jsonl(bytes: &[u8]) -> Result<(String, Self), DataError> {
        let text = std::str::from_utf8(bytes).map_err(|e| DataError {
            line: 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count(),
            message: "not UTF-8".into(),
        })?;
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let Some((i, first)) = lines.next() else {
            return Err(DataError {
                line: 1,
                message: "empty; expected a header line {\"cru_data\": 1, \"session_id\": ...}"
                    .into(),
            });
        };
        let header: Header = serde_json::from_str(first).map_err(|e| DataError {
            line: i + 1,
            message: format!("expected a header {{\"cru_data\": 1, \"session_id\": ...}}: {e}"),
        })?;
        if header.cru_data != DATA_VERSION {
            return Err(DataError {
                line: i + 1,
                message: format!(
                    "format version {} (this cru reads version {DATA_VERSION})",
                    header.cru_data
                ),
            });
        }
        let mut records = Vec::new();
        for (i, line) in lines {
            let r = serde_json::from_str(line).map_err(|e| DataError {
                line: i + 1,
                message: format!("expected a record with a known `kind`: {e}"),
            })?;
            records.push(r);
        }
        Ok((header.session_id, Self { records }))
    }

    /// Where this sidecar and `log` disagree: a call record whose place
    /// holds no call or a call of another tool, a phase out of range, two
    /// records for one call. Lines count the header as line 1.
    pub fn check(&self, log: &SessionLog) -> Vec<DataMismatch> {
        let phases: Vec<Vec<&str>> = log
            .phases()
            .map(|(_, p)| {
                p.blocks
                    .iter()
                    .filter_map(|b| match b {
                        Block::ToolCalls { calls } => Some(calls),
                        _ => None,
                    })
                    .flatten()
                    .map(|c| c.tool.as_str())
                    .collect()
            })
            .collect();
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (i, r) in self.records.iter().enumerate() {
            let line = i + 2;
            let phase = match r {
                DataRecord::Call(c) => {
                    match phases.get(c.phase).and_then(|p| p.get(c.call)) {
                        None => out.push(DataMismatch {
                            line,
                            message: format!(
                                "call {} of phase {} (`{}`) is not in the session",
                                c.call + 1,
                                c.phase + 1,
                                c.tool
                            ),
                        }),
                        Some(tool) if *tool != c.tool => out.push(DataMismatch {
                            line,
                            message: format!(
                                "call {} of phase {} is `{tool}` in the session, `{}` here",
                                c.call + 1,
                                c.phase + 1,
                                c.tool
                            ),
                        }),
                        Some(_) => {
                            if !seen.insert((c.phase, c.call)) {
                                out.push(DataMismatch {
                                    line,
                                    message: format!(
                                        "a second record for call {} of phase {}",
                                        c.call + 1,
                                        c.phase + 1
                                    ),
                                });
                            }
                        }
                    }
                    continue;
                }
                DataRecord::Thinking(t) => t.phase,
                DataRecord::Image(m) => m.phase,
                DataRecord::Context(c) => c.phase,
                DataRecord::Source(s) => s.phase,
            };
            if let Some(p) = phase
                && p >= phases.len()
            {
                out.push(DataMismatch {
                    line,
                    message: format!(
                        "phase {} is not in the session (it has {})",
                        p + 1,
                        phases.len()
                    ),
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Frontmatter, Phase, Section, Timestamp, ToolCall};

    fn log_with(tools: &[&str]) -> SessionLog {
        let fm = Frontmatter::new(SessionId::new("s").unwrap(), Timestamp::from_unix_ms(0));
        let mut log = SessionLog::new(fm);
        let mut p = Phase::new("One", None, None);
        p.blocks.push(Block::ToolCalls {
            calls: tools.iter().map(|t| ToolCall::new(*t, "")).collect(),
        });
        log.sections.push(Section::Phase(p));
        log
    }

    fn call(phase: usize, call: usize, tool: &str) -> DataRecord {
        DataRecord::Call(CallData {
            phase,
            call,
            tool: tool.into(),
            arguments: Some(serde_json::json!({"b": 1, "a": [2]})),
            ..CallData::default()
        })
    }

    #[test]
    fn sidecar_round_trips_and_keeps_key_order() {
        let data = SessionData {
            records: vec![
                call(0, 0, "Bash"),
                DataRecord::Image(ImageData {
                    phase: Some(0),
                    media_type: "image/png".into(),
                    bytes: 3,
                    data: Some("AAAA".into()),
                    ..ImageData::default()
                }),
            ],
        };
        let bytes = data.to_jsonl(&SessionId::new("s").unwrap());
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.starts_with("{\"cru_data\":1,\"session_id\":\"s\"}\n"));
        assert!(text.contains(r#""arguments":{"b":1,"a":[2]}"#), "{text}");
        let (id, back) = SessionData::from_jsonl(&bytes).unwrap();
        assert_eq!(id, "s");
        assert_eq!(back, data);
    }

    #[test]
    fn a_bad_line_is_named() {
        let e = SessionData::from_jsonl(
            b"{\"cru_data\":1,\"session_id\":\"s\"}\n{\"kind\":\"nope\"}\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 2);
        let e = SessionData::from_jsonl(b"{\"cru_data\":9,\"session_id\":\"s\"}\n").unwrap_err();
        assert!(e.message.contains("version 9"), "{e}");
    }

    #[test]
    fn check_finds_calls_that_moved() {
        let log = log_with(&["Bash", "Read"]);
        let ok = SessionData {
            records: vec![call(0, 0, "Bash"), call(0, 1, "Read")],
        };
        assert!(ok.check(&log).is_empty());
        let bad = SessionData {
            records: vec![call(0, 1, "Bash"), call(0, 2, "Read"), call(0, 1, "Bash")],
        };
        let m = bad.check(&log);
        assert_eq!(m.len(), 3, "{m:?}");
        assert!(m[0].message.contains("is `Read` in the session"));
        assert_eq!(m[1].line, 3);
    }

    #[test]
    fn data_path_is_hidden_beside_the_session() {
        assert_eq!(
            data_path(Path::new("/x/2025-01-01-a.md")),
            Path::new("/x/.2025-01-01-a.data.jsonl")
        );
        assert!(is_data_file_name(".2025-01-01-a.data.jsonl"));
    }
}

#[cfg(test)]
mod prop {
    use super::*;
    use proptest::prelude::*;

    /// Any JSON value, a few levels deep, with keys and text of any kind
    /// (quotes, newlines, wide characters).
    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            "[a-z\"\\\n é→{}]{0,20}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(("[a-z_]{1,8}", inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    fn record() -> impl Strategy<Value = DataRecord> {
        prop_oneof![
            (
                0usize..5,
                0usize..9,
                "[a-zA-Z_]{1,10}",
                proptest::option::of("[a-z0-9_]{1,8}"),
                proptest::option::of(json()),
                proptest::option::of(json()),
                proptest::option::of(any::<i64>())
            )
                .prop_map(|(phase, call, tool, id, arguments, result, exit_code)| {
                    DataRecord::Call(CallData {
                        phase,
                        call,
                        tool,
                        id,
                        arguments,
                        result,
                        exit_code,
                        ..CallData::default()
                    })
                }),
            (proptest::option::of(0usize..5), "[a-z\n ]{0,30}").prop_map(|(phase, text)| {
                DataRecord::Thinking(ThinkingData {
                    phase,
                    text,
                    extra: Map::new(),
                })
            }),
            (proptest::option::of(0usize..5), json()).prop_map(|(phase, record)| {
                DataRecord::Source(SourceData {
                    phase,
                    line: Some(1),
                    record,
                })
            }),
        ]
    }

    proptest! {
        /// What is written reads back the same, whatever it holds.
        #[test]
        fn sidecar_write_then_read_is_identity(records in proptest::collection::vec(record(), 0..12)) {
            let data = SessionData { records };
            let id = SessionId::new("s-1").unwrap();
            let (back_id, back) = SessionData::from_jsonl(&data.to_jsonl(&id)).unwrap();
            prop_assert_eq!(back_id, "s-1");
            prop_assert_eq!(back, data);
        }
    }
}
