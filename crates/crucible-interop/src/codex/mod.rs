//! Codex CLI's files: its rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`,
//! lines of `{timestamp, type, payload}`, see [`rollout`]) and the event
//! streams `codex exec --json` prints (`thread.started`, `item.completed`,
//! `turn.completed`, ..., see [`exec`]), which scripts and CI runs save.
//! Both import as [`crate::Format::Codex`]; the first record kinds tell
//! them apart.
//!
//! What the two share lives here: which lines are Codex's (detection), what
//! a call's output says about its failure, and which user messages are
//! context Codex injected rather than the user's words.

mod exec;
mod rollout;
mod tokens;

use std::path::Path;

use serde_json::Value;

use crate::{ImportError, Imported};

/// The `type`s of a rollout line (`token_usage_record` and `world_state`
/// since Codex 0.15x).
const ROLLOUT_KINDS: [&str; 7] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "token_usage_record",
    "world_state",
];

/// The `type`s of a `codex exec --json` event.
const EXEC_KINDS: [&str; 9] = [
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
    "error",
    "thread.error",
];

/// True for a line of a Codex rollout or exec stream (detection counts them
/// over the whole head of a file, see [`crate::detect()`]). A rollout line
/// has a `payload`; an exec event has its kind's own field (`thread_id`,
/// `item`, `usage`, `error`, `message`) or none (`turn.started`), and never
/// a `payload`.
pub(crate) fn is_record(v: &impl crate::line_shape::Fields) -> bool {
    let Some(kind) = v.str_at("type") else {
        return false;
    };
    if ROLLOUT_KINDS.contains(&kind) {
        return v.object_at("payload");
    }
    if !EXEC_KINDS.contains(&kind) || v.has("payload") {
        return false;
    }
    match kind {
        "thread.started" => v.has("thread_id"),
        "item.started" | "item.updated" | "item.completed" => v.has("item"),
        "turn.completed" => v.has("usage"),
        "turn.failed" => v.has("error"),
        "error" | "thread.error" => v.has("message") || v.has("error"),
        _ => true,
    }
}

/// Reads a rollout or an exec stream, told apart by their first record.
pub(crate) fn import(path: &Path) -> Result<Imported, ImportError> {
    let bytes = crate::read_source(path)?;
    let mut not_utf8 = Vec::new();
    let text = crate::transcript::utf8_warned(path, &bytes, &mut not_utf8);
    let first_kind = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(is_record)
        .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_owned));
    let mut imported = match first_kind.as_deref() {
        Some(k) if EXEC_KINDS.contains(&k) => exec::import(path, &bytes, &text),
        _ => rollout::import(path, &bytes, &text),
    };
    imported.warnings.splice(0..0, not_utf8);
    Ok(imported)
}

/// The exit code a call's output reports: in its JSON wrapper's
/// `metadata.exit_code` (what Codex's shell tools write), or a top-level
/// `exit_code`.
pub(crate) fn exit_code(wrapper: &Value) -> Option<i64> {
    wrapper
        .pointer("/metadata/exit_code")
        .or_else(|| wrapper.get("exit_code"))
        .and_then(Value::as_i64)
}

/// Plain-text outputs with which Codex reports a call that did not run or
/// failed (a sandbox refusal, a patch that did not apply, a missing program).
const FAILURE_PREFIXES: [&str; 6] = [
    "failed in sandbox",
    "execution error",
    "patch rejected",
    "apply_patch verification failed",
    "error",
    "Error",
];

/// A call's output, read: its text, its exit code and duration when Codex
/// wrapped it in `{"output": ..., "metadata": {...}}`, and whether it failed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Output {
    pub text: String,
    pub exit_code: Option<i64>,
    pub duration_ms: Option<u64>,
    /// The wrapper's `metadata`, kept whole (an exporter writes it back).
    pub metadata: Option<Value>,
    pub failed: bool,
}

impl Output {
    pub(crate) fn read(raw: &Value) -> Self {
        let s = match raw {
            Value::String(s) => s.clone(),
            other => crate::transcript::text_of(other),
        };
        let wrapper = serde_json::from_str::<Value>(s.trim_start())
            .ok()
            .filter(|w| w.get("output").is_some_and(Value::is_string));
        if let Some(w) = wrapper {
            let exit_code = exit_code(&w);
            let duration_ms = w
                .pointer("/metadata/duration_seconds")
                .and_then(Value::as_f64)
                .map(|s| (s * 1000.0).round() as u64);
            Self {
                text: w["output"].as_str().unwrap_or_default().to_owned(),
                exit_code,
                duration_ms,
                metadata: w.get("metadata").cloned(),
                failed: exit_code.is_some_and(|c| c != 0),
            }
        } else {
            let header = Header::read(&s);
            Self {
                failed: header.exit_code.map_or_else(
                    || {
                        FAILURE_PREFIXES
                            .iter()
                            .any(|p| s.trim_start().starts_with(p))
                    },
                    |c| c != 0,
                ),
                text: s,
                exit_code: header.exit_code,
                duration_ms: header.duration_ms,
                metadata: None,
            }
        }
    }
}

/// What the plain-text header of a shell call's output says. Codex writes
/// two: `shell_command`'s (`format_exec_output_for_model_freeform`):
///
/// ```text
/// Exit code: 1
/// Wall time: 5.8 seconds
/// Total output lines: 120      (when the output was cut)
/// Output:
/// ```
///
/// and unified exec's (`exec_command`, `write_stdin`), whose exit line is
/// there only once the process has ended:
///
/// ```text
/// Chunk ID: 9f2c1a
/// Wall time: 0.0012 seconds
/// Process exited with code 2   (or: Process running with session ID 3)
/// Original token count: 5
/// Output:
/// ```
///
/// A header is only read when every line before `Output:` is one of
/// these, so a command's own output that happens to say "Exit code: 1"
/// further down is not taken for it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Header {
    exit_code: Option<i64>,
    duration_ms: Option<u64>,
}

impl Header {
    fn read(text: &str) -> Self {
        let mut header = Self::default();
        for line in text.lines() {
            let line = line.trim_end();
            if line == "Output:" {
                return header;
            }
            if let Some(code) = line
                .strip_prefix("Exit code: ")
                .or_else(|| line.strip_prefix("Process exited with code "))
            {
                match code.trim().parse() {
                    Ok(c) => header.exit_code = Some(c),
                    Err(_) => return Self::default(),
                }
            } else if let Some(wall) = line.strip_prefix("Wall time: ") {
                let seconds = wall
                    .strip_suffix(" seconds")
                    .and_then(|n| n.parse::<f64>().ok());
                match seconds {
                    Some(s) if s >= 0.0 => header.duration_ms = Some((s * 1000.0).round() as u64),
                    _ => return Self::default(),
                }
            } else if ![
                "Chunk ID: ",
                "Total output lines: ",
                "Process running with session ID ",
                "Original token count: ",
            ]
            .iter()
            .any(|p| line.starts_with(p))
            {
                return Self::default();
            }
        }
        // No `Output:` line: not Codex's header.
        Self::default()
    }
}

/// What a user message that Codex wrote itself is, by how it starts; `None`
/// for the user's own words.
pub(crate) fn context_label(text: &str) -> Option<&'static str> {
    let t = text.trim_start();
    [
        ("<environment_context>", "environment_context"),
        ("<user_instructions>", "user_instructions"),
        ("# AGENTS.md instructions", "agents_md"),
        ("<INSTRUCTIONS>", "agents_md"),
        ("# Context from my IDE setup", "ide_context"),
        ("<user_shell_command>", "user_shell_command"),
        ("<turn_aborted>", "turn_aborted"),
    ]
    .into_iter()
    .find(|(start, _)| t.starts_with(start))
    .map(|(_, label)| label)
}

/// The heading after which an IDE context message holds the user's request.
const IDE_REQUEST: &str = "## My request for Codex:";

/// A user message split into the context Codex put around it and the
/// user's words: `(label and context, words)`. The IDE extension's message
/// is both: its open tabs are context, what follows `## My request for
/// Codex:` is the request.
pub(crate) fn split_user_message(text: &str) -> (Option<(&'static str, String)>, Option<String>) {
    match context_label(text) {
        Some("ide_context") => match text.split_once(IDE_REQUEST) {
            Some((ctx, request)) => (
                Some(("ide_context", ctx.trim_end().to_owned())),
                Some(request.trim().to_owned()).filter(|r| !r.is_empty()),
            ),
            None => (Some(("ide_context", text.to_owned())), None),
        },
        Some(label) => (Some((label, text.to_owned())), None),
        None => (None, Some(text.to_owned()).filter(|t| !t.trim().is_empty())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rollout_and_exec_lines_are_recognized_and_others_are_not() {
        for v in [
            json!({"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}),
            json!({"timestamp": "t", "type": "turn_context", "payload": {"model": "m"}}),
            json!({"timestamp": "t", "type": "compacted", "payload": {"message": ""}}),
            json!({"type": "thread.started", "thread_id": "t1"}),
            json!({"type": "turn.started"}),
            json!({"type": "item.completed", "item": {"id": "item_0", "type": "reasoning"}}),
            json!({"type": "turn.completed", "usage": {"input_tokens": 1}}),
        ] {
            assert!(is_record(&v), "{v}");
        }
        for v in [
            json!({"type": "user", "message": {"role": "user"}}),
            json!({"type": "summary", "summary": "s"}),
            json!({"type": "error", "payload": {}}),
            json!({"role": "user", "content": "hi"}),
            json!({"type": "event_msg"}),
        ] {
            assert!(!is_record(&v), "{v}");
        }
    }

    #[test]
    fn an_output_fails_by_its_exit_code_or_its_refusal() {
        let ok = Output::read(&json!(
            "{\"output\":\"hi\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.25}}"
        ));
        assert_eq!(
            (ok.text.as_str(), ok.failed, ok.duration_ms),
            ("hi", false, Some(250))
        );
        let bad = Output::read(&json!(
            "{\"output\":\"no\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":0.0}}"
        ));
        assert_eq!((bad.exit_code, bad.failed), (Some(2), true));
        assert!(
            Output::read(&json!(
                "failed in sandbox MacosSeatbelt with execution error"
            ))
            .failed
        );
        assert!(!Output::read(&json!("Plan updated")).failed);
    }

    #[test]
    fn a_plain_text_header_gives_the_exit_code_and_wall_time() {
        let shell = Output::read(&json!(
            "Exit code: 1\nWall time: 5.8 seconds\nOutput:\nFAIL src/a.test.ts"
        ));
        assert_eq!(
            (shell.exit_code, shell.duration_ms, shell.failed),
            (Some(1), Some(5800), true)
        );
        assert!(
            shell.text.ends_with("FAIL src/a.test.ts"),
            "output kept whole"
        );
        let cut = Output::read(&json!(
            "Exit code: 0\nWall time: 0.2 seconds\nTotal output lines: 900\nOutput:\nok"
        ));
        assert_eq!((cut.exit_code, cut.failed), (Some(0), false));
        let unified = Output::read(&json!(
            "Chunk ID: b\nWall time: 0.0012 seconds\nProcess exited with code 2\nOriginal token count: 5\nOutput:\nboom"
        ));
        assert_eq!(
            (unified.exit_code, unified.duration_ms, unified.failed),
            (Some(2), Some(1), true)
        );
        let running = Output::read(&json!(
            "Chunk ID: c\nWall time: 10.0021 seconds\nProcess running with session ID 3\nOutput:\n..."
        ));
        assert_eq!(
            (running.exit_code, running.duration_ms, running.failed),
            (None, Some(10_002), false)
        );
        // A command's own words saying so, after other lines: not a header.
        let told = Output::read(&json!("building\nExit code: 1\nOutput:\nx"));
        assert_eq!((told.exit_code, told.failed), (None, false));
    }

    #[test]
    fn ide_context_is_split_from_the_request() {
        let (ctx, words) = split_user_message(
            "# Context from my IDE setup:\n\n## Open tabs:\n- a.rs\n\n## My request for Codex:\nfix it\n",
        );
        assert_eq!(ctx.unwrap().0, "ide_context");
        assert_eq!(words.as_deref(), Some("fix it"));
        let (ctx, words) = split_user_message("<environment_context>\n</environment_context>");
        assert_eq!(ctx.unwrap().0, "environment_context");
        assert_eq!(words, None);
    }
}
