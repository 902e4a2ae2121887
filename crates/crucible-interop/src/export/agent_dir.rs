//! Seed 003's folder: `<YYYY-MM-DD-HH-MM-SS>/agent.log` (the message
//! array) and `todos.json` (`{"todos": [...]}`, when the session has tasks).

use crucible_core::SessionLog;

use super::turns::Turn;
use super::{Exported, openai_messages, pretty_json, utc};

pub(super) fn write(log: &SessionLog, turns: &[Turn]) -> Exported {
    // `2025-12-03T10:12:44Z` → `2025-12-03-10-12-44`: the folder name is
    // the session's start, which is how the folder is read back.
    let name: String = utc(&log.frontmatter.started)
        .trim_end_matches('Z')
        .chars()
        .map(|c| if c == 'T' || c == ':' { '-' } else { c })
        .collect();
    let messages = serde_json::Value::Array(openai_messages(log, turns));
    let mut files = vec![("agent.log".to_owned(), pretty_json(&messages))];
    if let Some(tasks) = log.tasks().filter(|t| !t.is_empty()) {
        let todos = serde_json::json!({ "todos": tasks });
        files.push(("todos.json".to_owned(), pretty_json(&todos)));
    }
    Exported::Folder { name, files }
}
