//! cru sessions out to the formats other tools read (`cru session export`):
//! ConnectOnion YAML, codeloops JSONL, an `.agent/sessions/<time>/` folder,
//! an OpenAI message array, or a Claude Code transcript. Each phase is one turn ([`turns`]); what each
//! format can hold, and so what a round trip through it keeps, is listed in
//! `docs/interop.md`.

mod agent_dir;
mod claude_code;
mod codeloops;
mod codex;
mod connectonion;
mod turns;

use crucible_core::{SessionData, SessionLog, Timestamp};

use crate::Format;

/// What an export writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exported {
    /// One file's bytes.
    File(Vec<u8>),
    /// A folder named `name` holding `files` (name, bytes).
    Folder {
        name: String,
        files: Vec<(String, Vec<u8>)>,
    },
}

/// Why a session cannot be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(
        "cru reads {0} but does not write it (expected connectonion, codeloops, agent-dir, openai-messages, claude-code or codex)"
    )]
    Unsupported(&'static str),
}

/// The formats `export` writes.
pub const EXPORT_FORMATS: [Format; 6] = [
    Format::ConnectOnion,
    Format::Codeloops,
    Format::AgentDir,
    Format::OpenAiMessages,
    Format::ClaudeCode,
    Format::Codex,
];

/// Writes `log` in `format`, with what its sidecar `data` keeps whole
/// (full arguments and results) where the format can hold it.
pub fn export(
    log: &SessionLog,
    data: &SessionData,
    format: Format,
) -> Result<Exported, ExportError> {
    let turns = turns::turns(log, data);
    Ok(match format {
        Format::OpenAiMessages => {
            let messages = openai_messages(log, &turns);
            Exported::File(pretty_json(&serde_json::Value::Array(messages)))
        }
        Format::AgentDir => agent_dir::write(log, &turns),
        Format::ConnectOnion => Exported::File(connectonion::write(log, data, &turns).into_bytes()),
        Format::Codeloops => Exported::File(codeloops::write(log, data, &turns).into_bytes()),
        Format::ClaudeCode => Exported::File(claude_code::write(log, data)),
        Format::Codex => codex::write(log, data),
        Format::Gemini | Format::Copilot | Format::OpenCode => {
            return Err(ExportError::Unsupported(format.as_str()));
        }
    })
}

/// The codeloops lines `export` would write (an import keeps what they
/// would not give back).
pub(crate) fn codeloops_lines(log: &SessionLog, data: &SessionData) -> Vec<serde_json::Value> {
    codeloops::lines(log, data, &turns::turns(log, data))
}

/// The ConnectOnion document `export` would write (an import keeps what it
/// would not give back).
pub(crate) fn connectonion_document(
    log: &SessionLog,
    data: &SessionData,
) -> connectonion::Document {
    connectonion::document(log, data, &turns::turns(log, data))
}

/// The whole conversation as chat-completions messages: the system prompt,
/// then every turn's messages.
fn openai_messages(log: &SessionLog, turns: &[turns::Turn]) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    if let Some(sp) = log.system_prompt() {
        out.push(serde_json::json!({"role": "system", "content": sp}));
    }
    for t in turns {
        out.extend(t.messages.iter().cloned());
    }
    out
}

/// JSON with two-space indents and a final newline.
fn pretty_json(v: &serde_json::Value) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(v).unwrap_or_default();
    out.push(b'\n');
    out
}

/// `2025-12-03T10:12:44Z` in UTC, to the second.
fn utc(t: &Timestamp) -> String {
    Timestamp::from_unix_ms(t.unix_ms()).as_str().to_owned()
}
