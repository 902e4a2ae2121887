//! The derived TOON index of a sessions directory.
//!
//! One record per session and per phase (and one per file that fails to
//! parse), kept in `.index.toon` files at the top of the sessions directory,
//! so that `cru session list` and `cru session stats` answer without reading
//! the sessions. The markdown files stay the only truth: the index is updated
//! on every save through the store ([`IndexObserver`]), brought up to date by
//! a cheap check before each query ([`refresh`]), and rebuilt, with a warning,
//! whenever it is missing, unreadable, corrupt or of another version. It never
//! hides a session and never fails a command.

pub mod files;
mod observer;
pub mod query;
pub mod record;
pub mod refresh;
pub mod scan;
pub mod stats;
pub mod toon;

use std::time::{Duration, SystemTime};

use crucible_core::{SessionStatus, SessionStore};
use crucible_parser::MarkdownCodec;

pub use files::{Index, IndexFileError};
pub use observer::{IndexObserver, compact};
pub use query::{Filter, list};
pub use record::{FileStamp, PhaseRecord, Problem, SessionRecord};
pub use stats::{GroupBy, StatsRow, stats};

/// Errors that do stop an index command: the sessions directory itself
/// cannot be read. Problems with the index files are repaired instead.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

/// An index ready to query, and what the command should tell the user.
#[derive(Debug)]
pub struct Opened {
    pub index: Index,
    /// One line each: an index rebuilt, a directory that could not be written.
    pub warnings: Vec<String>,
    /// Sessions paused for being idle while the index was refreshed.
    pub paused: Vec<String>,
}

/// The index of one store's directory.
#[derive(Debug)]
pub struct SessionIndex<'s> {
    store: &'s SessionStore<MarkdownCodec>,
    threads: usize,
}

impl<'s> SessionIndex<'s> {
    pub fn new(store: &'s SessionStore<MarkdownCodec>) -> Self {
        let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        Self { store, threads }
    }

    /// Reads every session again and writes a new index (when the directory
    /// is writable; else the index is only in memory).
    pub fn rebuild(&self, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<Opened, IndexError> {
        let root = self.store.dir();
        let built = scan_all(self.store, self.threads, progress)?;
        let mut warnings = Vec::new();
        if root.exists() {
            let written = self
                .store
                .lock()
                .map_err(|e| e.to_string())
                .and_then(|_lock| {
                    files::write_all(root, &built.index, built.phase_rows, &built.phase_body)
                        .map_err(|e| e.to_string())
                });
            if let Err(e) = written {
                warnings.push(format!("index not saved ({e}); working from memory"));
            }
        }
        Ok(Opened {
            index: built.index,
            warnings,
            paused: Vec::new(),
        })
    }

    /// The index, fresh by the cheap rule, repaired if it must be; active
    /// sessions idle longer than `idle` are paused on the way.
    pub fn open(
        &self,
        idle: Option<Duration>,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Opened, IndexError> {
        let root = self.store.dir();
        let loaded = {
            let _shared = crucible_core::DirLock::acquire_shared(root);
            files::load(root)
        };
        let mut opened = match loaded {
            Ok(mut index) => {
                let delta = refresh::refresh(self.store, &mut index);
                if !delta.is_empty() {
                    let saved = self
                        .store
                        .lock()
                        .map_err(|e| e.to_string())
                        .and_then(|_lock| {
                            observer::upsert(root, |d| merge(d, &delta)).map_err(|e| e.to_string())
                        });
                    if let Err(e) = saved {
                        tracing::debug!(error = %e, "index refresh kept in memory");
                    }
                }
                Opened {
                    index,
                    warnings: Vec::new(),
                    paused: Vec::new(),
                }
            }
            Err(IndexFileError::Missing(_)) => self.rebuild(progress)?,
            Err(e) => {
                let mut o = self.rebuild(progress)?;
                o.warnings.insert(0, format!("warning: index rebuilt: {e}"));
                o
            }
        };
        if let Some(idle) = idle {
            opened.paused = self.pause_idle(&mut opened.index, idle);
        }
        Ok(opened)
    }

    /// Every phase record, for `stats --group-by phase`.
    pub fn phases(
        &self,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Vec<PhaseRecord>, IndexError> {
        match files::load_phases(self.store.dir()) {
            Ok(p) => Ok(p),
            Err(_) => {
                self.rebuild(progress)?;
                Ok(files::load_phases(self.store.dir()).unwrap_or_default())
            }
        }
    }

    fn pause_idle(&self, index: &mut Index, idle: Duration) -> Vec<String> {
        let now = SystemTime::now();
        let mut paused = Vec::new();
        for r in index
            .sessions
            .iter_mut()
            .filter(|r| r.status == SessionStatus::Active)
        {
            let path = self.store.dir().join(&r.path);
            if let Ok(true) = crucible_core::pause_if_idle(self.store, &path, idle, now) {
                r.status = SessionStatus::Paused;
                paused.push(r.id.clone());
            }
        }
        paused
    }
}

/// Copies every path state and directory of `from` into `to`.
fn merge(to: &mut files::Delta, from: &files::Delta) {
    for s in &from.sessions {
        let phases = from
            .phases
            .iter()
            .filter(|p| p.path == s.path)
            .cloned()
            .collect();
        to.set(&s.path.clone(), Some((s.clone(), phases)), None);
    }
    for p in &from.problems {
        to.set(&p.path.clone(), None, Some(p.clone()));
    }
    for r in &from.removed {
        to.set(r, None, None);
    }
    for d in &from.dirs {
        to.set_dir(d.clone());
    }
}

fn scan_all(
    store: &SessionStore<MarkdownCodec>,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<scan::Built, IndexError> {
    scan::build(store, threads, progress).map_err(|source| IndexError::Io {
        path: store.dir().to_owned(),
        source,
    })
}
