//! What one import run reads once per folder of Claude Code transcripts,
//! rather than once per transcript in it: a project folder holds hundreds
//! of transcripts, and asking each one's folder anew reads it n² times.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::resumed::Firsts;
use super::subagents::AgentFiles;

/// The folders of one run. A file written after its folder was read is not
/// seen in it until the next run, as a transcript written after the run's
/// listing is not imported until then.
#[derive(Debug, Default)]
pub struct RunFolders {
    /// The `uuid` of each transcript's first message, to tell which one a resumed
    /// transcript continues.
    pub(crate) firsts: PerFolder<Firsts>,
    /// The older `agent-*.jsonl` subagent files, and the session each names.
    pub(crate) agents: PerFolder<AgentFiles>,
}

/// One thing read of each folder, by the first thread that asks (the
/// others wait for it).
#[derive(Debug)]
pub(crate) struct PerFolder<T> {
    folders: Mutex<HashMap<PathBuf, Arc<OnceLock<T>>>>,
}

impl<T> Default for PerFolder<T> {
    fn default() -> Self {
        Self {
            folders: Mutex::default(),
        }
    }
}

impl<T> PerFolder<T> {
    /// `use_` of what `read` reads of `folder`, read once per run.
    pub(crate) fn with<R>(
        &self,
        folder: &Path,
        read: impl FnOnce(&Path) -> T,
        use_: impl FnOnce(&T) -> R,
    ) -> R {
        let cell = {
            let mut folders = self
                .folders
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Arc::clone(folders.entry(folder.to_owned()).or_default())
        };
        use_(cell.get_or_init(|| read(folder)))
    }

    /// How many folders were read (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.folders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }
}
