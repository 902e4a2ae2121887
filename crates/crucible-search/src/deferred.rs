//! A manifest written on a thread of its own while the search answers.
//!
//! After a save the sessions folder is listed again, and the manifest is
//! written again so that the next search need not list it: 8 MB at
//! 100,000 files, a tenth of that search. Nothing the search answers
//! depends on it, so it is written beside the query, under the search
//! index's lock (held until the file is in place, as if written in line),
//! and waited for before the search returns its answer.

use std::path::PathBuf;
use std::thread::JoinHandle;

use crucible_core::store::lock::DirLock;

use crate::SearchError;
use crate::manifest::{self, Manifest};

/// A manifest being written, or none.
#[derive(Debug, Default)]
pub struct ManifestWrite(Option<JoinHandle<Result<(), SearchError>>>);

impl ManifestWrite {
    /// Writes the manifest naming `committed`'s files and those of
    /// `current` new since as not written in ([`manifest::write_pending`])
    /// into `home`, holding `lock` until it is there.
    pub(crate) fn pending(
        home: PathBuf,
        committed: Manifest,
        current: Manifest,
        lock: Option<DirLock>,
    ) -> Self {
        Self(Some(std::thread::spawn(move || {
            let bytes = manifest::write_pending(&committed, &current);
            let written = crate::index::save_bytes(
                &home,
                &bytes,
                crucible_core::store::atomic::Durability::Deferred,
            );
            drop(lock);
            written
        })))
    }

    /// Waits for the write; its error, if it failed.
    pub fn finish(&mut self) -> Result<(), SearchError> {
        match self.0.take() {
            Some(handle) => handle
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            None => Ok(()),
        }
    }
}

impl Drop for ManifestWrite {
    /// A write nobody waited for is still finished before it is dropped
    /// (its error goes unreported: the manifest is derived, and the next
    /// search lists the folders again).
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            let _ = handle.join();
        }
    }
}
