//! Index on save: the store tells the index about every file it writes.

use std::path::{Path, PathBuf};

use crucible_core::store::journal::journal_path;
use crucible_core::{SessionLog, StoreObserver};

use crate::files::{self, COMPACT_AT, Delta, IndexFileError};
use crate::record::{FileStamp, PhaseRecord, SessionRecord};
use crate::scan::relative;
use crate::seal;

/// Keeps the index of one sessions directory current as the store writes.
/// It runs under the store's lock, and only updates an index that exists:
/// the first `list` builds one.
#[derive(Debug)]
pub struct IndexObserver {
    root: PathBuf,
}

impl IndexObserver {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    fn record(&self, path: &Path, log: &SessionLog) -> Result<(), IndexFileError> {
        if !self.root.join(files::BASE).exists() || !path.starts_with(&self.root) {
            return Ok(());
        }
        let meta = std::fs::metadata(path).map_err(|source| IndexFileError::Io {
            path: path.to_owned(),
            source,
        })?;
        let rel = relative(&self.root, path);
        let summary = log.summary();
        let live = journal_path(path).exists();
        let record = SessionRecord::from_summary(rel.clone(), &summary, FileStamp::of(&meta), live);
        let phases = PhaseRecord::from_summary(&rel, &summary);
        // Index files cru did not write are not added to: the next read
        // rebuilds them.
        seal::check(&self.root)?;
        // A delta that cannot be read is replaced: what it held is in the files.
        let mut delta = files::load_delta(&self.root).unwrap_or_default();
        // Only this file is recorded. Its directory's stamp is left alone even
        // if the save changed it: whatever else changed there meanwhile (by
        // an editor, `cp`, a sync tool) is found by the next read, which
        // lists the directory again.
        delta.set(&rel, Some((record, phases)), None);
        save(&self.root, &delta)
    }
}

/// Merges `delta` into the base and phases files and removes it.
pub fn compact(root: &Path, delta: &Delta) -> Result<(), IndexFileError> {
    let mut index = files::load(root)?;
    files::apply(&mut index, delta);
    let mut phases = files::load_phases(root)?;
    let paths: std::collections::HashSet<&str> = delta
        .sessions
        .iter()
        .map(|s| s.path.as_str())
        .chain(delta.problems.iter().map(|p| p.path.as_str()))
        .chain(delta.removed.iter().map(String::as_str))
        .collect();
    phases.retain(|p| !paths.contains(p.path.as_str()));
    phases.extend(delta.phases.iter().cloned());
    let mut body = String::new();
    for p in &phases {
        p.write_row(&mut body);
    }
    files::write_all(root, &index, phases.len(), &[body])
}

impl StoreObserver for IndexObserver {
    fn written(&self, path: &Path, log: &SessionLog) {
        if let Err(e) = self.record(path, log) {
            tracing::warn!(error = %e, "index not updated; the next `cru session list` repairs it");
        }
    }
}

/// A delta with one path's new state, for callers outside the observer.
pub fn upsert(root: &Path, changes: impl FnOnce(&mut Delta)) -> Result<(), IndexFileError> {
    seal::check(root)?;
    let mut delta = files::load_delta(root).unwrap_or_default();
    changes(&mut delta);
    save(root, &delta)
}

/// Writes `delta`, folded into the base when it has grown large, and
/// seals the files written. The caller holds the writer lock and has
/// checked the seal.
fn save(root: &Path, delta: &Delta) -> Result<(), IndexFileError> {
    if delta.sessions.len() + delta.problems.len() + delta.removed.len() > COMPACT_AT {
        compact(root, delta)?;
    } else {
        files::write_delta(root, delta)?;
    }
    seal::write(root)
}
