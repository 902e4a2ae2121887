//! Seed 003's session folders: `.agent/sessions/<YYYY-MM-DD-HH-MM-SS>/`
//! with `agent.log` (a JSON array of chat-completions messages) and
//! `todos.json` (`{"todos": [{id, content, status, priority}]}`). Either may
//! be missing, empty or corrupt: the folder is still a session (an empty
//! one when there is no conversation), and a corrupt file is a warning.

use std::path::Path;

use serde_json::Value;

use crucible_core::{Block, Task, Timestamp};

use crate::messages::{read_messages, session_from};
use crate::{ImportError, ImportWarning, Imported};

/// True for a name shaped `YYYY-MM-DD-HH-MM-SS` (digits and dashes): a
/// session folder's, whether or not its date is a real one.
fn named_like_a_session(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() == 19
        && b.iter().enumerate().all(|(i, c)| {
            if [4, 7, 10, 13, 16].contains(&i) {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

/// `YYYY-MM-DD-HH-MM-SS` → a UTC instant (the folder names carry no zone),
/// or why the name is no valid time.
fn started_of(name: &str) -> Result<Timestamp, String> {
    crate::source_time::parse(name, &["%Y-%m-%d-%H-%M-%S"])
}

/// When the session in `dir` started: its name's time, else (with a
/// warning) the folder's modification time.
fn started_or_mtime(dir: &Path, name: &str, warnings: &mut Vec<ImportWarning>) -> Timestamp {
    started_of(name).unwrap_or_else(|why| {
        warnings.push(ImportWarning {
            path: dir.to_owned(),
            line: None,
            message: format!("folder name {why}; started at the folder's modification time"),
        });
        crate::transcript::mtime(dir)
    })
}

/// A folder named like a session that holds either file.
pub(crate) fn looks_like(dir: &Path) -> bool {
    let named = dir
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(named_like_a_session);
    named && (dir.join("agent.log").exists() || dir.join("todos.json").exists())
}

pub(crate) fn import(dir: &Path) -> Result<Imported, ImportError> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_owned();
    let mut warnings = Vec::new();
    let mut hashed: Vec<u8> = Vec::new();
    let log_path = dir.join("agent.log");
    let messages = match std::fs::read(&log_path) {
        Ok(bytes) => {
            hashed.extend(&bytes);
            let text = crate::transcript::utf8_warned(&log_path, &bytes, &mut warnings);
            if text.trim().is_empty() {
                Vec::new()
            } else {
                match read_messages(&log_path, &text, &mut warnings) {
                    Ok(m) => m,
                    Err(e) => {
                        warnings.push(ImportWarning {
                            path: log_path.clone(),
                            line: None,
                            message: format!("{e}; the conversation is left out"),
                        });
                        Vec::new()
                    }
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(source) => {
            return Err(ImportError::Read {
                path: log_path,
                source,
            });
        }
    };
    let started = started_or_mtime(dir, &name, &mut warnings);
    let (mut log, data) = session_from(
        &messages,
        started,
        &format!("Agent session {name}"),
        &log_path,
        &mut warnings,
    );
    let mut records = crate::messages::tally(&messages);
    let todos_path = dir.join("todos.json");
    if let Ok(bytes) = std::fs::read(&todos_path) {
        hashed.extend(&bytes);
        match todos(&bytes) {
            Ok(tasks) if !tasks.is_empty() => {
                for _ in &tasks {
                    records.read("todo");
                }
                log.preamble.push(Block::Tasks { tasks });
            }
            Ok(_) => {}
            Err((line, message)) => {
                records.skip("todos.json", "damaged; the tasks are left out");
                warnings.push(ImportWarning {
                    path: todos_path,
                    line: Some(line),
                    message: format!("{message}; the tasks are left out"),
                });
            }
        }
    }
    let mut imported = crate::imported(
        crate::Format::AgentDir,
        dir,
        Some(name),
        &hashed,
        log,
        warnings,
    );
    imported.records = records;
    imported.data = data;
    Ok(imported)
}

/// `{"todos": [...]}` or a bare array; numeric ids become text.
fn todos(bytes: &[u8]) -> Result<Vec<Task>, (usize, String)> {
    let text = String::from_utf8_lossy(bytes);
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let v: Value = serde_json::from_str(&text).map_err(|e| (e.line(), format!("not JSON: {e}")))?;
    let items = match v {
        Value::Object(mut m) => m.remove("todos").unwrap_or(Value::Array(Vec::new())),
        other => other,
    };
    let Value::Array(items) = items else {
        return Err((1, "expected a list of todos".into()));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, mut item)| {
            if let Some(id) = item.get_mut("id")
                && id.is_number()
            {
                *id = Value::String(id.to_string());
            }
            serde_json::from_value::<Task>(item).map_err(|e| (1, format!("todo {}: {e}", i + 1)))
        })
        .collect()
}
