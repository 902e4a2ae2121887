//! What capture keeps per agent session beside the sessions, in
//! `<sessions>/.capture/<agent>/` (hidden, so no walk takes it for a
//! session): `<session id>.json`, the [`SessionState`], and
//! `<session id>.lock`, which every hook run of that session holds while
//! it reads the state, writes the session and writes the state back.
//!
//! A hook run is a process of its own, and Claude Code runs the hooks of
//! parallel tool calls at once: the per-session lock serializes them
//! (the store's own lock, taken inside each append, serializes them with
//! every other writer of the directory; it cannot be held across the
//! append, which takes it itself).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crucible_core::SessionId;
use crucible_core::store::atomic::{Durability, write_atomic_with};
use crucible_core::store::names;

/// What capture knows of one agent session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    /// The cru session it is recorded into (its file).
    pub path: PathBuf,
    /// Its id.
    pub session: SessionId,
    /// The agent's transcript, and how far its usage has been counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<PathBuf>,
    #[serde(default)]
    pub transcript_offset: u64,
    /// Responses counted at the last read of the transcript (a response
    /// whose lines straddle two reads is counted once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent_responses: Vec<String>,
    /// Tool calls announced (`PreToolUse`) and not answered yet, by id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pending: BTreeMap<String, PendingCall>,
    /// Phases and the current phase's tool calls recorded so far: where
    /// the next call's sidecar record points.
    #[serde(default)]
    pub phases: usize,
    #[serde(default)]
    pub calls: usize,
    /// Subagents recorded (by their agent id), so a repeated
    /// `SubagentStop` links one child, not two.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subagents: Vec<String>,
    /// `SessionEnd` came: new work reopens the session.
    #[serde(default)]
    pub ended: bool,
    /// The ids of the calls answered last (at most [`ANSWERED_KEPT`]): a
    /// result delivered twice (a hook installed twice, a retried hook) is
    /// recorded once.
    #[serde(default, skip_serializing_if = "std::collections::VecDeque::is_empty")]
    pub answered: std::collections::VecDeque<String>,
}

/// How many answered call ids a session's state keeps.
pub const ANSWERED_KEPT: usize = 256;

impl SessionState {
    /// The state of a session just made, nothing recorded in it yet.
    pub fn new(session: SessionId, path: PathBuf) -> Self {
        Self {
            path,
            session,
            transcript: None,
            transcript_offset: 0,
            recent_responses: Vec::new(),
            pending: BTreeMap::new(),
            phases: 0,
            calls: 0,
            subagents: Vec::new(),
            ended: false,
            answered: std::collections::VecDeque::new(),
        }
    }
}

/// A tool call announced before it ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingCall {
    pub tool: String,
    pub args: String,
}

/// Why capture's state could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}: not capture state: {source}")]
    Decode {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("agent session id `{0}` cannot name a file (expected letters, digits, `-`, `_`, `.`)")]
    BadId(String),
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> StateError + '_ {
    move |source| StateError::Io {
        path: path.to_owned(),
        source,
    }
}

/// The state directory of one agent (`claude-code`, `codex`).
pub fn agent_dir(sessions: &Path, agent: &str) -> PathBuf {
    sessions.join(names::CAPTURE_DIR).join(agent)
}

/// An agent's session id as a file name: ids are UUIDs in practice, and
/// anything that could climb out of the directory is refused.
fn file_stem(id: &str) -> Result<&str, StateError> {
    let ok = !id.is_empty()
        && id.len() <= 200
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(id)
    } else {
        Err(StateError::BadId(id.to_owned()))
    }
}

/// The state of one agent session, held under its lock.
#[derive(Debug)]
pub struct Locked {
    path: PathBuf,
    _lock: File,
    pub state: Option<SessionState>,
    /// Why the state file could not be read (cut short, not JSON): the
    /// state is then rebuilt from the session, and this said once.
    pub damaged: Option<String>,
}

impl Locked {
    /// Takes the lock of session `id` of `agent` (waiting for other hook
    /// runs of it, at most [`crate::LOCK_WAIT`]) and reads its state.
    pub fn open(sessions: &Path, agent: &str, id: &str) -> Result<Self, StateError> {
        let dir = agent_dir(sessions, agent);
        let stem = file_stem(id)?;
        std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let lock_path = dir.join(format!("{stem}.lock"));
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_err(&lock_path))?;
        crucible_core::store::lock::wait_for(&lock, &lock_path, crate::LOCK_WAIT)
            .map_err(io_err(&lock_path))?;
        let path = dir.join(format!("{stem}.json"));
        let (state, damaged) = match read(&path) {
            Ok(state) => (state, None),
            Err(e @ StateError::Decode { .. }) => (None, Some(e.to_string())),
            Err(e) => return Err(e),
        };
        Ok(Self {
            path,
            _lock: lock,
            state,
            damaged,
        })
    }

    /// Writes the state back (atomically: a reader sees old or new).
    /// Not fsynced: a machine crash that loses it costs a new session for
    /// the rest of the agent's, nothing recorded.
    pub fn save(&self) -> Result<(), StateError> {
        let Some(state) = &self.state else {
            return Ok(());
        };
        let bytes = serde_json::to_vec(state).map_err(|source| StateError::Decode {
            path: self.path.clone(),
            source,
        })?;
        write_atomic_with(&self.path, &[&bytes], Durability::Deferred).map_err(io_err(&self.path))
    }
}

/// What a `SessionStart` said of a session that has no prompt yet: kept in
/// `<session id>.start.json` until its first prompt names the cru session
/// (docs/recording.md, "Hooks").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Start {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `startup`, `clear`, ...: a session that starts now was never
    /// imported, so its first prompt need not look for an import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl Locked {
    fn start_path(&self) -> PathBuf {
        self.path.with_extension("start.json")
    }

    /// Forgets the session's state (a `/clear`, a new start) and keeps
    /// `start` until the first prompt makes the session.
    pub fn wait_for_prompt(&mut self, start: &Start) -> Result<(), StateError> {
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_err(&self.path)(e)),
            _ => {}
        }
        self.state = None;
        let path = self.start_path();
        let bytes = serde_json::to_vec(start).map_err(|source| StateError::Decode {
            path: path.clone(),
            source,
        })?;
        write_atomic_with(&path, &[&bytes], Durability::Deferred).map_err(io_err(&path))
    }

    /// What the session's `SessionStart` said, if it waits for its first
    /// prompt. A damaged one is as good as none.
    pub fn start(&self) -> Option<Start> {
        let bytes = std::fs::read(self.start_path()).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// The session is made: what its `SessionStart` said is no longer kept.
    pub fn started(&self) {
        let _ = std::fs::remove_file(self.start_path());
    }
}

/// The state of agent session `id`, read without its lock (for a reader
/// such as `cru doctor`, or a lookup of another session).
pub fn peek(sessions: &Path, agent: &str, id: &str) -> Result<Option<SessionState>, StateError> {
    let stem = file_stem(id)?;
    read(&agent_dir(sessions, agent).join(format!("{stem}.json")))
}

/// Whether the hooks are recording session `id` of `agent` live: a state
/// that has not seen the session end, written within `within` of `now`
/// (an agent killed before its `SessionEnd` leaves a state that stops
/// counting as live once it is that old).
pub fn recording_live(
    sessions: &Path,
    agent: &str,
    id: &str,
    within: std::time::Duration,
    now: std::time::SystemTime,
) -> bool {
    let Ok(stem) = file_stem(id) else {
        return false;
    };
    let path = agent_dir(sessions, agent).join(format!("{stem}.json"));
    let recent = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| now.duration_since(t).unwrap_or_default() < within);
    recent && matches!(read(&path), Ok(Some(state)) if !state.ended)
}

/// When the last hook event of `agent` that was recorded reached this
/// sessions directory (the newest state file's modification time; `None`
/// when none did): for `cru doctor`'s "hooks installed, no event since".
pub fn last_event(sessions: &Path, agent: &str) -> Option<std::time::SystemTime> {
    std::fs::read_dir(agent_dir(sessions, agent))
        .ok()?
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| e.metadata().ok()?.modified().ok())
        .max()
}

fn read(path: &Path) -> Result<Option<SessionState>, StateError> {
    match std::fs::read(path) {
        Ok(bytes) => {
            serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|source| StateError::Decode {
                    path: path.to_owned(),
                    source,
                })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(path)(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_could_leave_the_directory_are_refused() {
        for bad in ["", "../x", "a/b", ".hidden", "a\0b"] {
            assert!(file_stem(bad).is_err(), "{bad:?}");
        }
        assert!(file_stem("3f9c1a2b-0c4d-4e5f-8a9b-0c1d2e3f4a5b").is_ok());
    }

    #[test]
    fn state_round_trips_under_its_lock() {
        let dir = tempfile::tempdir().unwrap();
        let mut l = Locked::open(dir.path(), "claude-code", "s1").unwrap();
        assert!(l.state.is_none());
        let mut s = SessionState::new("2026-01-01-a".parse().unwrap(), dir.path().join("a.md"));
        s.transcript_offset = 42;
        l.state = Some(s);
        l.save().unwrap();
        drop(l);
        let back = peek(dir.path(), "claude-code", "s1").unwrap().unwrap();
        assert_eq!(back.transcript_offset, 42);
        assert!(last_event(dir.path(), "claude-code").is_some());
        assert!(last_event(dir.path(), "codex").is_none());
    }

    #[test]
    fn a_session_is_live_until_it_ends_or_its_hooks_go_quiet() {
        let dir = tempfile::tempdir().unwrap();
        let live = |now: std::time::SystemTime| {
            recording_live(
                dir.path(),
                "claude-code",
                "s1",
                std::time::Duration::from_secs(60),
                now,
            )
        };
        let now = std::time::SystemTime::now();
        assert!(!live(now), "no state: not live");
        let mut l = Locked::open(dir.path(), "claude-code", "s1").unwrap();
        l.state = Some(SessionState::new(
            "2026-01-01-a".parse().unwrap(),
            dir.path().join("a.md"),
        ));
        l.save().unwrap();
        assert!(live(now));
        assert!(
            !live(now + std::time::Duration::from_secs(120)),
            "quiet too long (killed before SessionEnd)"
        );
        if let Some(state) = l.state.as_mut() {
            state.ended = true;
        }
        l.save().unwrap();
        assert!(!live(now), "ended");
        assert!(!recording_live(
            dir.path(),
            "claude-code",
            "../x",
            std::time::Duration::from_secs(60),
            now
        ));
    }
}
