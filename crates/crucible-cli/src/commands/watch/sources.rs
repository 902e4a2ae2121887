//! The transcripts a watcher imports: the sources found under each path it
//! was given, found again when a change names a file none of them covers.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use crucible_interop::import_state::{ImportState, Role};
use crucible_interop::store_scan::{StorePlan, plan_paths, plan_store};
use crucible_interop::stores::{AgentStore, Presence, agent_stores};
use crucible_interop::{Format, Found};
use notify::RecursiveMode;

use crate::commands::session::import::Planned;

/// The agent stores `cru watch` watches when given no SOURCE: those
/// `cru session import` with no path reads (`--list-sources`), found here
/// or not yet (an agent first run after the watcher started: its store is
/// watched once it appears). A store refused (a link, a file) is not.
pub fn default_sources() -> Vec<PathBuf> {
    agent_stores(&crate::commands::session::import::store_env())
        .into_iter()
        .filter(|s| matches!(s.presence, Presence::Found | Presence::Missing))
        .map(|s| s.root)
        .collect()
}

/// The sources under the watched paths, and the size each file had when
/// last imported (so that a source that shrank is not taken for its whole).
///
/// A watched path inside an agent's store (the default ones are the
/// stores themselves) is planned as `cru session import` with no path
/// plans a store, against the import state: a source unchanged since it
/// was last read costs a stat. Any other path is read whole at the start,
/// then as its files change.
#[derive(Debug, Default)]
pub struct Sources {
    roots: Vec<PathBuf>,
    /// For each root inside an agent's store: that store, rooted at it.
    stores: Vec<AgentStore>,
    /// The sources under the roots that are in no store.
    found: Vec<(PathBuf, Format)>,
    /// The size of each source file when last imported, by (device,
    /// inode): a file keeps them when it is renamed (rotated), so a
    /// truncated transcript moved aside is still known for what it was.
    imported_at: HashMap<(u64, u64), u64>,
    /// The sources this watcher imported: one of them deleted is said.
    known: HashSet<PathBuf>,
}

impl Sources {
    pub fn new(roots: Vec<PathBuf>) -> Self {
        let known = agent_stores(&crate::commands::session::import::store_env());
        let stores = roots
            .iter()
            .filter_map(|r| {
                let s = known
                    .iter()
                    .filter(|s| !matches!(s.presence, Presence::Refused(_)))
                    .find(|s| r.starts_with(&s.root))?;
                Some(AgentStore {
                    root: r.clone(),
                    ..s.clone()
                })
            })
            .collect();
        Self {
            roots,
            stores,
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

    fn store_of(&self, path: &Path) -> Option<&AgentStore> {
        self.stores.iter().find(|s| path.starts_with(&s.root))
    }

    /// The plan for every root under `only` (all of them when `None`),
    /// walked afresh.
    pub fn plan_all(&mut self, state: &ImportState, only: Option<&Path>) -> Vec<Planned> {
        let mut out = Vec::new();
        let roots: Vec<PathBuf> = self
            .roots
            .iter()
            .filter(|r| r.exists() && only.is_none_or(|o| r.starts_with(o)))
            .cloned()
            .collect();
        for root in roots {
            if let Some(store) = self.store_of(&root).cloned() {
                let mut plan = plan_store(&store, state, false);
                for (path, why) in &plan.skipped {
                    tracing::info!(path = %path.display(), why, "skipped");
                }
                self.remember(&plan.seen, state);
                plan.sources = self.worth_importing(std::mem::take(&mut plan.sources));
                out.push(Planned {
                    plan,
                    walked: Some(root),
                });
            } else {
                let found = Self::find(&root);
                self.found.retain(|(s, _)| !s.starts_with(&root));
                self.found.extend(found.iter().cloned());
                out.push(listed(self.worth_importing(found)));
            }
        }
        out
    }

    /// The plan for the changes at `changed`: a file of a store led to its
    /// source and read if it changed since it was last read, a folder of a
    /// store walked; elsewhere, the sources the changes concern. A source
    /// deleted is said, at info level: its session keeps what it holds.
    pub fn plan_changed(
        &mut self,
        changed: &BTreeSet<PathBuf>,
        state: &ImportState,
    ) -> Vec<Planned> {
        let mut out = Vec::new();
        let mut files = Vec::new();
        let mut elsewhere = BTreeSet::new();
        for path in changed {
            let Some(store) = self.store_of(path).cloned() else {
                elsewhere.insert(path.clone());
                continue;
            };
            match std::fs::symlink_metadata(path) {
                Ok(m) if m.is_dir() => {
                    let sub = AgentStore {
                        root: path.clone(),
                        ..store
                    };
                    let mut plan = plan_store(&sub, state, false);
                    plan.sources = self.worth_importing(std::mem::take(&mut plan.sources));
                    out.push(Planned { plan, walked: None });
                }
                Ok(_) => files.push(path.clone()),
                Err(_) => {
                    let source = state.get(path).is_some_and(|e| e.role == Role::Source);
                    deleted(path, self.known.remove(path) || source);
                }
            }
        }
        let (plans, _) = plan_paths(&self.stores, &files, state);
        for (_, mut plan) in plans {
            plan.sources = self.worth_importing(std::mem::take(&mut plan.sources));
            out.push(Planned { plan, walked: None });
        }
        if !elsewhere.is_empty() {
            out.push(listed(self.touched(&elsewhere)));
        }
        out
    }

    /// The sources under `root`, in no store, found afresh.
    fn find(root: &Path) -> Vec<(PathBuf, Format)> {
        let Found {
            sources, skipped, ..
        } = crucible_interop::find_sources(root, None);
        for (path, why) in skipped {
            tracing::info!(path = %path.display(), why, "skipped");
        }
        sources
    }

    /// The sources in no store a change of `changed` concerns (found
    /// again when one of them is covered by none: a new transcript).
    fn touched(&mut self, changed: &BTreeSet<PathBuf>) -> Vec<(PathBuf, Format)> {
        for c in changed {
            if !c.exists() && self.known.remove(c) {
                deleted(c, true);
            }
        }
        let uncovered = changed
            .iter()
            .any(|c| !self.found.iter().any(|(s, _)| covers(s, c)));
        if uncovered {
            let roots: Vec<PathBuf> = self
                .roots
                .iter()
                .filter(|r| r.exists() && self.store_of(r).is_none())
                .cloned()
                .collect();
            self.found = roots.iter().flat_map(|r| Self::find(r)).collect();
        }
        let mut hit = Vec::new();
        for (s, f) in &self.found {
            if !changed.iter().any(|c| covers(s, c)) {
                continue;
            }
            if s.exists() {
                hit.push((s.clone(), *f));
            }
        }
        self.found.retain(|(s, _)| s.exists());
        self.worth_importing(hit)
    }

    /// Notes the size of each source of `seen` the state holds as read,
    /// so that one that shrinks later is known.
    fn remember(&mut self, seen: &std::collections::HashSet<PathBuf>, state: &ImportState) {
        for path in seen {
            if let Some(e) = state.get(path).filter(|e| e.role == Role::Source) {
                let fp = e.fingerprint;
                self.imported_at.entry((fp.dev, fp.ino)).or_insert(fp.len);
            }
        }
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
            self.known.insert(path.clone());
        }
    }
}

/// A plan of sources to read whole (in no store: no state kept of them).
fn listed(sources: Vec<(PathBuf, Format)>) -> Planned {
    Planned {
        plan: StorePlan {
            sources,
            ..StorePlan::default()
        },
        walked: None,
    }
}

/// Says that a source was deleted (not an error: agents clean up).
fn deleted(path: &Path, known: bool) {
    if known {
        eprintln!(
            "{}: deleted; its session keeps what was captured",
            path.display()
        );
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
