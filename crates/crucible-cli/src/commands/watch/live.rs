//! Sources still being written: imported as `active` sessions, and
//! imported again as the importer has them (paused) once they go quiet
//! for the idle time (`[session] idle_timeout`, the rule that pauses an
//! idle session everywhere else).
//!
//! A source is live when it was last written within the idle time by both
//! its file's mtime and the time of its last record: a transcript copied,
//! restored or touched has a fresh mtime but old records, and is not.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crucible_core::SessionStatus;
use crucible_interop::reconcile::Prepared;

use super::last_record::last_record_time;

/// The mark on a live import's source hash. Like the importer's own
/// `pending`, it matches no source, so the next import of the source (the
/// watcher's when it goes quiet, or a one-shot `cru session import`)
/// replaces the live session with the settled one, as long as nobody
/// changed it in cru meanwhile.
const LIVE_MARK: &str = "live-";

/// When a source was last written, as far as the watcher can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Activity {
    /// The file's mtime when it was looked at.
    mtime: SystemTime,
    /// The earlier of that mtime and the time of its last record.
    last: SystemTime,
}

impl Activity {
    fn of(path: &Path) -> Option<Self> {
        let mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
        let last = last_record_time(path).map_or(mtime, |r| r.min(mtime));
        Some(Self { mtime, last })
    }
}

#[derive(Debug)]
pub struct Live {
    idle: Duration,
    /// Sources whose session was last stored as active, and when each was
    /// last written.
    sources: HashMap<PathBuf, Activity>,
    /// When the idle rule is due for the sessions of live sources deleted
    /// (nothing will import them again to settle them).
    idle_rule_due: Vec<SystemTime>,
}

impl Live {
    pub fn new(idle: Duration) -> Self {
        Self {
            idle,
            sources: HashMap::new(),
            idle_rule_due: Vec::new(),
        }
    }

    pub fn idle(&self) -> Duration {
        self.idle
    }

    /// Marks a source written lately as live: its session `active`, its
    /// hashes those of the session as marked. Notes it in `marked`; true
    /// when it was marked.
    pub fn mark(
        &self,
        prepared: &mut Prepared,
        now: SystemTime,
        marked: &Mutex<Vec<(PathBuf, Activity)>>,
    ) -> bool {
        let imported = &mut prepared.imported;
        let path = PathBuf::from(&imported.provenance.path);
        let Some(activity) = Activity::of(&path).filter(|a| self.within_idle(a.last, now)) else {
            return false;
        };
        imported.log.frontmatter.status = SessionStatus::Active;
        let p = &mut imported.provenance;
        p.session_hash = crucible_interop::content_hash(&imported.log);
        p.source_hash = format!("{LIVE_MARK}{}", p.source_hash);
        if let Ok(mut m) = marked.lock() {
            m.push((path, activity));
        }
        true
    }

    fn within_idle(&self, at: SystemTime, now: SystemTime) -> bool {
        now.duration_since(at).unwrap_or_default() <= self.idle
    }

    /// Records which sources of an import were stored live.
    pub fn stored(
        &mut self,
        imported: &[(PathBuf, crucible_interop::Format)],
        marked: Vec<(PathBuf, Activity)>,
    ) {
        for (path, _) in imported {
            self.sources.remove(path);
        }
        self.sources.extend(marked);
    }

    /// The live sources quiet for the idle time at `now`, taken off the
    /// live list. A source written since it was marked is not quiet (its
    /// change is on its way). One deleted is taken off too, and the idle
    /// rule made due for its session once that is idle.
    pub fn gone_quiet(&mut self, now: SystemTime) -> Vec<PathBuf> {
        let mut quiet = Vec::new();
        let mut gone = Vec::new();
        for (path, was) in &self.sources {
            match std::fs::metadata(path).and_then(|m| m.modified()) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => gone.push(path.clone()),
                Ok(mtime) if mtime > was.mtime => {}
                _ => {
                    if !self.within_idle(was.last, now) {
                        quiet.push(path.clone());
                    }
                }
            }
        }
        for p in quiet.iter().chain(&gone) {
            self.sources.remove(p);
        }
        if !gone.is_empty() {
            // Its session was last written before now: idle for the idle
            // time from now on, whatever else happens.
            self.idle_rule_due.push(now + self.idle);
        }
        quiet
    }

    /// Whether the idle rule is due at `now` (for the sessions of deleted
    /// live sources); taken off once answered.
    pub fn idle_rule_due(&mut self, now: SystemTime) -> bool {
        let before = self.idle_rule_due.len();
        self.idle_rule_due.retain(|&due| due >= now);
        self.idle_rule_due.len() < before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_old_transcript_with_a_fresh_mtime_is_not_live() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t.jsonl");
        std::fs::write(&t, "{\"timestamp\":\"2025-06-10T12:36:23Z\"}\n").unwrap();
        let now = SystemTime::now();
        let live = Live::new(Duration::from_secs(3600));
        let a = Activity::of(&t).unwrap();
        assert!(!live.within_idle(a.last, now), "touched, year-old records");
        std::fs::write(&t, "{\"type\":\"no time\"}\n").unwrap();
        let a = Activity::of(&t).unwrap();
        assert!(live.within_idle(a.last, now), "no record time: by mtime");
    }

    #[test]
    fn a_deleted_live_source_makes_the_idle_rule_due_after_the_idle_time() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t.jsonl");
        std::fs::write(&t, "{}\n").unwrap();
        let mut live = Live::new(Duration::from_secs(3));
        live.stored(&[], vec![(t.clone(), Activity::of(&t).unwrap())]);
        std::fs::remove_file(&t).unwrap();
        let now = SystemTime::now();
        assert!(live.gone_quiet(now).is_empty(), "gone, not settled");
        assert!(!live.idle_rule_due(now + Duration::from_secs(2)));
        assert!(live.idle_rule_due(now + Duration::from_secs(4)));
        assert!(!live.idle_rule_due(now + Duration::from_secs(5)), "once");
    }
}
