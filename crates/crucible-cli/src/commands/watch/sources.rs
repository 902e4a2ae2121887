//! The transcripts a watcher imports: the sources found under each path it
//! was given, found again when a change names a file none of them covers.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crucible_interop::{Format, Found};
use notify::RecursiveMode;

/// The agent stores `cru watch` watches when given no SOURCE: those
/// `cru session import` with no path reads (`--list-sources`), found here
/// or not yet (an agent first run after the watcher started: its store is
/// watched once it appears). A store refused (a link, a file) is not.
pub fn default_sources() -> Vec<PathBuf> {
    use crucible_interop::stores::{Presence, agent_stores};
    agent_stores(&crate::commands::session::import::store_env())
        .into_iter()
        .filter(|s| matches!(s.presence, Presence::Found | Presence::Missing))
        .map(|s| s.root)
        .collect()
}

/// The sources under the watched paths, and the size each file had when
/// last imported (so that a source that shrank is not taken for its whole).
#[derive(Debug, Default)]
pub struct Sources {
    roots: Vec<PathBuf>,
    found: Vec<(PathBuf, Format)>,
    /// The size of each source file when last imported, by (device,
    /// inode): a file keeps them when it is renamed (rotated), so a
    /// truncated transcript moved aside is still known for what it was.
    imported_at: HashMap<(u64, u64), u64>,
}

impl Sources {
    pub fn new(roots: Vec<PathBuf>) -> Self {
        Self {
            roots,
            ..Self::default()
        }
    }

    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// What to watch: a folder with all below it; a file through its
    /// folder, so that a file replaced, rotated or made again is seen.
    pub fn watch_targets(&self) -> Vec<(PathBuf, RecursiveMode)> {
        self.roots
            .iter()
            .filter_map(|r| {
                if r.is_dir() {
                    Some((r.clone(), RecursiveMode::Recursive))
                } else {
                    r.parent()
                        .filter(|p| p.is_dir())
                        .map(|p| (p.to_owned(), RecursiveMode::NonRecursive))
                }
            })
            .collect()
    }

    /// Whether a change at `path` may concern a source.
    pub fn under_a_root(&self, path: &Path) -> bool {
        self.roots.iter().any(|r| path.starts_with(r))
    }

    /// Finds the sources under every root again.
    pub fn rescan(&mut self) {
        self.found.clear();
        for root in &self.roots {
            if !root.exists() {
                continue;
            }
            let Found {
                sources, skipped, ..
            } = crucible_interop::find_sources(root, None);
            for (path, why) in skipped {
                tracing::info!(path = %path.display(), why, "skipped");
            }
            self.found.extend(sources);
        }
    }

    /// Every source, found afresh.
    pub fn all(&mut self) -> Vec<(PathBuf, Format)> {
        self.rescan();
        self.worth_importing(self.found.clone())
    }

    /// The sources a change of `changed` concerns (found again when one of
    /// them is covered by none: a new transcript).
    pub fn touched(&mut self, changed: &BTreeSet<PathBuf>) -> Vec<(PathBuf, Format)> {
        let uncovered = changed
            .iter()
            .any(|c| !self.found.iter().any(|(s, _)| covers(s, c)));
        if uncovered {
            self.rescan();
        }
        let hit: Vec<_> = self
            .found
            .iter()
            .filter(|(s, _)| changed.iter().any(|c| covers(s, c)))
            .cloned()
            .collect();
        self.worth_importing(hit)
    }

    /// The sources to import now: not one that shrank since it was
    /// imported (a truncated or half rewritten transcript would replace
    /// the session with less than was captured; it is imported again once
    /// it holds more, or as a new file).
    fn worth_importing(&self, sources: Vec<(PathBuf, Format)>) -> Vec<(PathBuf, Format)> {
        sources
            .into_iter()
            .filter(|(path, _)| match identity(path) {
                Some((file, now_size))
                    if self.imported_at.get(&file).is_some_and(|&size| now_size < size) =>
                {
                    let size = self.imported_at[&file];
                    eprintln!(
                        "warning: {}: shrank since its import ({size} → {now_size} bytes); the cru session keeps what was captured",
                        path.display()
                    );
                    false
                }
                _ => true,
            })
            .collect()
    }

    /// Notes what the sources just imported were.
    pub fn imported(&mut self, sources: &[(PathBuf, Format)]) {
        for (path, _) in sources {
            if let Some((file, size)) = identity(path) {
                self.imported_at.insert(file, size);
            }
        }
    }
}

/// Whether a change at `changed` concerns `source`: the source itself, a
/// file in it (a folder source), or in the folder beside a transcript that
/// holds its subagents (`<id>.jsonl` and `<id>/subagents/`).
fn covers(source: &Path, changed: &Path) -> bool {
    changed.starts_with(source) || changed.starts_with(source.with_extension(""))
}

/// A file's (device, inode) and size; `None` for a folder source, which
/// has no one size and is never held back.
fn identity(path: &Path) -> Option<((u64, u64), u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)?;
    Some(((m.dev(), m.ino()), m.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_covers_its_transcript_and_the_subagents_beside_it() {
        let s = Path::new("/p/abc.jsonl");
        assert!(covers(s, Path::new("/p/abc.jsonl")));
        assert!(covers(s, Path::new("/p/abc/subagents/agent-1.jsonl")));
        assert!(!covers(s, Path::new("/p/abd.jsonl")));
        assert!(covers(Path::new("/p/run"), Path::new("/p/run/agent.log")));
    }

    #[test]
    fn a_source_that_shrank_is_held_back_and_a_new_file_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("t.jsonl");
        std::fs::write(&f, "0123456789").unwrap();
        let mut s = Sources::new(vec![dir.path().to_owned()]);
        let one = vec![(f.clone(), Format::ClaudeCode)];
        s.imported(&one);
        assert_eq!(s.worth_importing(one.clone()).len(), 1, "same size");
        std::fs::OpenOptions::new()
            .write(true)
            .open(&f)
            .unwrap()
            .set_len(3)
            .unwrap();
        assert!(s.worth_importing(one.clone()).is_empty(), "truncated");
        let moved = dir.path().join("t.jsonl.1");
        std::fs::rename(&f, &moved).unwrap();
        let rotated = vec![(moved, Format::ClaudeCode)];
        assert!(
            s.worth_importing(rotated).is_empty(),
            "moved aside, still shrunk"
        );
        // Rotated: a new file (made while the old one exists, so another
        // inode) takes its name.
        let new = dir.path().join("t.new");
        std::fs::write(&new, "012").unwrap();
        std::fs::rename(&new, &f).unwrap();
        assert_eq!(s.worth_importing(one).len(), 1, "a new file");
    }
}
