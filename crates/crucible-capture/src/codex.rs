//! Codex's `notify`: Codex runs the configured program with one JSON
//! argument after each turn (its docs/config.md, "notify"); `type` is
//! `agent-turn-complete`, with `thread-id`, `turn-id`, `cwd`,
//! `input-messages` and `last-assistant-message`. cru imports the
//! thread's rollout again (the importer reads only what changed), so the
//! session follows the conversation turn by turn.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The agent name (the state and the error log say it).
pub const AGENT: &str = "codex";

/// The notification, as Codex sends it; unknown fields are ignored.
#[derive(Debug, Clone, Deserialize)]
pub struct Notification {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(rename = "thread-id", default)]
    pub thread_id: Option<String>,
    #[serde(rename = "turn-id", default)]
    pub turn_id: Option<String>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(rename = "last-assistant-message", default)]
    pub last_assistant_message: Option<String>,
}

impl Notification {
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text).or_else(|e| {
            crucible_interop::json_text::mend_lone_surrogates(text)
                .map_or(Err(e), |mended| serde_json::from_str(&mended))
        })
    }

    /// A turn finished: the rollout has something new.
    pub fn is_turn_complete(&self) -> bool {
        self.kind == "agent-turn-complete"
    }
}

/// The rollout of thread `thread_id` under Codex's sessions directory
/// (`<sessions>/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`), newest day
/// first, so the usual case (a turn of today's thread) lists one folder.
pub fn find_rollout(sessions: &Path, thread_id: &str) -> Option<PathBuf> {
    // A thread id names a file: nothing that could climb out.
    if thread_id.is_empty()
        || !thread_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return None;
    }
    let suffix = format!("-{thread_id}.jsonl");
    find_newest_first(sessions, &suffix, 3)
}

fn sorted_desc(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort_unstable_by(|a, b| b.cmp(a));
    entries
}

fn find_newest_first(dir: &Path, suffix: &str, depth: u8) -> Option<PathBuf> {
    for p in sorted_desc(dir) {
        let name = p.file_name()?.to_string_lossy().into_owned();
        if p.is_file() && name.starts_with("rollout-") && name.ends_with(suffix) {
            return Some(p);
        }
        if depth > 0
            && p.is_dir()
            && let Some(found) = find_newest_first(&p, suffix, depth - 1)
        {
            return Some(found);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notification_reads_and_its_rollout_is_found_by_thread_id() {
        let n = Notification::from_json(
            r#"{"type":"agent-turn-complete","thread-id":"0199-ab","turn-id":"1","cwd":"/w","input-messages":["hi"],"last-assistant-message":"done"}"#,
        )
        .unwrap();
        assert!(n.is_turn_complete());
        let dir = tempfile::tempdir().unwrap();
        let day = dir.path().join("2026/01/02");
        std::fs::create_dir_all(&day).unwrap();
        let f = day.join("rollout-2026-01-02T03-04-05-0199-ab.jsonl");
        std::fs::write(&f, "{}\n").unwrap();
        std::fs::write(day.join("rollout-2026-01-02T03-04-05-0199-cd.jsonl"), "").unwrap();
        assert_eq!(find_rollout(dir.path(), "0199-ab"), Some(f));
        assert_eq!(find_rollout(dir.path(), "../x"), None);
        assert_eq!(find_rollout(dir.path(), "0199-zz"), None);
    }
}
