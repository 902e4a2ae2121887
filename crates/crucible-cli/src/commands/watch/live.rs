//! Sources still being written: imported as `active` sessions, and
//! imported again as the importer has them (paused) once they go quiet
//! for the idle time (`[session] idle_timeout`, the rule that pauses an
//! idle session everywhere else).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crucible_core::SessionStatus;
use crucible_interop::reconcile::Prepared;

/// The mark on a live import's source hash. Like the importer's own
/// `pending`, it matches no source, so the next import of the source (the
/// watcher's when it goes quiet, or a one-shot `cru session import`)
/// replaces the live session with the settled one, as long as nobody
/// changed it in cru meanwhile.
const LIVE_MARK: &str = "live-";

#[derive(Debug)]
pub struct Live {
    idle: Duration,
    /// Sources whose session was last stored as active.
    sources: HashSet<PathBuf>,
}

impl Live {
    pub fn new(idle: Duration) -> Self {
        Self {
            idle,
            sources: HashSet::new(),
        }
    }

    /// Whether the file at `path` was written within the idle time of
    /// `now`.
    fn written_lately(&self, path: &Path, now: SystemTime) -> bool {
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .is_ok_and(|m| now.duration_since(m).unwrap_or_default() <= self.idle)
    }

    /// Marks a source written lately as live: its session `active`, its
    /// hashes those of the session as marked. Notes it in `marked`.
    pub fn mark(&self, prepared: &mut Prepared, now: SystemTime, marked: &Mutex<Vec<PathBuf>>) {
        let imported = &mut prepared.imported;
        let path = PathBuf::from(&imported.provenance.path);
        if !self.written_lately(&path, now) {
            return;
        }
        imported.log.frontmatter.status = SessionStatus::Active;
        let p = &mut imported.provenance;
        p.session_hash = crucible_interop::content_hash(&imported.log);
        p.source_hash = format!("{LIVE_MARK}{}", p.source_hash);
        if let Ok(mut m) = marked.lock() {
            m.push(path);
        }
    }

    /// Records which sources of an import were stored live.
    pub fn stored(
        &mut self,
        imported: &[(PathBuf, crucible_interop::Format)],
        marked: Vec<PathBuf>,
    ) {
        for (path, _) in imported {
            self.sources.remove(path);
        }
        self.sources.extend(marked);
    }

    /// The live sources quiet for the idle time at `now` (gone ones too:
    /// they will not be written again), taken off the live list.
    pub fn gone_quiet(&mut self, now: SystemTime) -> Vec<PathBuf> {
        let quiet: Vec<PathBuf> = self
            .sources
            .iter()
            .filter(|p| !self.written_lately(p, now))
            .cloned()
            .collect();
        for p in &quiet {
            self.sources.remove(p);
        }
        quiet
    }
}
