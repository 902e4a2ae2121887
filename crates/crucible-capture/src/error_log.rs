//! Hook runs that failed. A hook must never slow or break its agent, so
//! `cru hook` always exits 0 and says nothing; what went wrong is appended
//! here, one JSON line per failure, in the sessions directory
//! ([`crucible_core::store::names::HOOK_ERRORS`]) or, when that directory
//! is itself what is broken, in a fallback file the caller names (under
//! the user's state directory). [`recent`] reads them back for
//! `cru doctor`.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crucible_core::Timestamp;
use crucible_core::store::names;

/// The log grows to this size, then keeps its newer half, after a line
/// that says older failures were dropped ([`DROPPED`]).
const MAX_BYTES: u64 = 256 * 1024;

/// The first line of a log that was cut: older failures were dropped.
const DROPPED: &[u8] = b"{\"older_failures_dropped\":true}\n";

/// One failed hook run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookError {
    pub at: Timestamp,
    /// `claude-code`, `codex`.
    pub agent: String,
    /// The event (`PostToolUse`), when the input was read that far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// The agent's session id, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub error: String,
}

/// The error log of a sessions directory.
pub fn path_in(sessions: &Path) -> PathBuf {
    sessions.join(names::HOOK_ERRORS)
}

/// Appends `entry` to the log at `path` (one write of one line), first
/// halving a log grown past its limit.
pub fn append(path: &Path, entry: &HookError) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    if std::fs::metadata(path).is_ok_and(|m| m.len() > MAX_BYTES) {
        let mut kept = DROPPED.to_vec();
        kept.extend(tail(path, MAX_BYTES / 2)?);
        crucible_core::store::atomic::write_atomic(path, &kept)?;
    }
    let mut line = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
    line.push(b'\n');
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?
        .write_all(&line)
}

/// The last whole lines of the file at `path` within `bytes` bytes.
fn tail(path: &Path, bytes: u64) -> std::io::Result<Vec<u8>> {
    let mut f = std::fs::File::open(path)?;
    let len = f.metadata()?.len();
    let from = len.saturating_sub(bytes);
    f.seek(SeekFrom::Start(from))?;
    let mut out = Vec::new();
    f.read_to_end(&mut out)?;
    if from > 0 {
        // The first line is probably cut: it goes.
        let start = out
            .iter()
            .position(|&b| b == b'\n')
            .map_or(out.len(), |i| i + 1);
        out.drain(..start);
    }
    Ok(out)
}

/// The last failures of a log, and whether there were more.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recent {
    /// Oldest first.
    pub errors: Vec<HookError>,
    /// More failures than these happened: older lines in the log, or
    /// dropped when it was cut to its size.
    pub more: bool,
}

impl Recent {
    /// How many failed, as a reader should be told: `3`, or `at least 50`.
    pub fn count(&self) -> String {
        if self.more {
            format!("at least {}", self.errors.len())
        } else {
            self.errors.len().to_string()
        }
    }
}

/// The last `n` failures in the log at `path`, oldest first; none when
/// there is no log. Lines that do not read (a crash mid-line) are skipped.
pub fn recent(path: &Path, n: usize) -> std::io::Result<Recent> {
    let bytes = match tail(path, MAX_BYTES) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Recent::default()),
        Err(e) => return Err(e),
    };
    let mut more = bytes.starts_with(DROPPED)
        || std::fs::metadata(path).is_ok_and(|m| m.len() > bytes.len() as u64);
    let mut all: Vec<HookError> = bytes
        .split(|&b| b == b'\n')
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect();
    let drop = all.len().saturating_sub(n);
    more |= drop > 0;
    all.drain(..drop);
    Ok(Recent { errors: all, more })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(i: usize) -> HookError {
        HookError {
            at: "2026-01-02T03:04:05Z".parse().unwrap(),
            agent: "claude-code".into(),
            event: Some("Stop".into()),
            session_id: None,
            error: format!("failure {i} {}", "x".repeat(100)),
        }
    }

    #[test]
    fn failures_are_read_back_newest_last_and_the_log_stays_small() {
        let dir = tempfile::tempdir().unwrap();
        let p = path_in(dir.path());
        assert!(recent(&p, 5).unwrap().errors.is_empty());
        append(&p, &entry(0)).unwrap();
        let one = recent(&p, 5).unwrap();
        assert_eq!(one.count(), "1");
        for i in 1..4000 {
            append(&p, &entry(i)).unwrap();
        }
        assert!(std::fs::metadata(&p).unwrap().len() <= MAX_BYTES + 200);
        let last = recent(&p, 3).unwrap();
        assert_eq!(last.errors.len(), 3);
        assert!(last.errors[2].error.starts_with("failure 3999 "));
        assert_eq!(last.count(), "at least 3");
        // All that is left of a cut log, read whole: still "at least".
        let all = recent(&p, 100_000).unwrap();
        assert!(all.more && all.errors.len() < 4000, "{}", all.errors.len());
    }
}
