//! Which sources of an agent's store need reading: every file of the store
//! is walked (by the one walker's rules: no link followed out of it, no
//! FIFO opened) and stat'd; a file the [`ImportState`] saw as it is now is
//! left alone, unread. Each file new or changed since is told by its
//! content and led to the source it belongs to (a subagent's transcript to
//! its parent's), and only those sources are read.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crucible_core::store::walk::{WalkOptions, walk_with};

use crate::import_state::{Fingerprint, ImportState, Role};
use crate::stores::AgentStore;
use crate::{Format, claude_code, detect, gemini};

/// What to read of a store, and what to remember once it is read.
#[derive(Debug, Default)]
pub struct StorePlan {
    /// The sources to read, in path order.
    pub sources: Vec<(PathBuf, Format)>,
    /// Sources unchanged since they were last read: not read.
    pub unchanged: usize,
    /// What the walk left out, with why.
    pub skipped: Vec<(PathBuf, String)>,
    /// By source: the files to record as read once it is stored.
    pub read_with: HashMap<PathBuf, Vec<(PathBuf, Fingerprint, Role)>>,
    /// Files of no format cru imports, to record at once.
    pub others: Vec<(PathBuf, Fingerprint)>,
    /// Every file the walk met (what the state no longer needs is the rest).
    pub seen: HashSet<PathBuf>,
}

impl StorePlan {
    /// Every source of the store: read now or unchanged.
    pub fn total(&self) -> usize {
        self.sources.len() + self.unchanged
    }

    /// Remembers what was read for `source`, once it is stored.
    pub fn record_read(&self, source: &Path, state: &mut ImportState) {
        for (p, fp, role) in self.read_with.get(source).into_iter().flatten() {
            state.record(p.clone(), *fp, *role);
        }
    }

    /// Remembers the files that are no source.
    pub fn record_others(&self, state: &mut ImportState) {
        for (p, fp) in &self.others {
            state.record(p.clone(), *fp, Role::Other);
        }
    }
}

/// A store and what it holds, as `cru session import --list-sources`
/// (and a health check) shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreStatus {
    pub store: AgentStore,
    /// Sources in a store found; `None` when it is not there or refused.
    pub sources: Option<usize>,
    /// Of those, the ones new or changed since they were last read: what
    /// the next import reads. All of them: never imported (into the
    /// directory whose state this is).
    pub to_read: Option<usize>,
}

/// The status of every store of `stores` against `state` (the state of
/// the sessions directory the imports go to). Reads no source, but tells
/// new files by their head, as an import does.
pub fn store_statuses(stores: Vec<AgentStore>, state: &ImportState) -> Vec<StoreStatus> {
    stores
        .into_iter()
        .map(|store| {
            let counts = (store.presence == crate::stores::Presence::Found).then(|| {
                let plan = plan_store(&store, state, false);
                (plan.total(), plan.sources.len())
            });
            StoreStatus {
                sources: counts.map(|c| c.0),
                to_read: counts.map(|c| c.1),
                store,
            }
        })
        .collect()
}

/// The plan for one store: with `force`, every source is read.
pub fn plan_store(store: &AgentStore, state: &ImportState, force: bool) -> StorePlan {
    let mut plan = StorePlan::default();
    let options = WalkOptions {
        file_filter: &|_| true,
        utf8_names: false,
        recursive: true,
        confine_to: Some(&store.root),
    };
    let files = match walk_with(&store.root, options, &crate::sources::IMPORT) {
        Ok(tree) => {
            plan.skipped
                .extend(tree.skipped.into_iter().map(|s| (s.path, s.reason)));
            tree.files
        }
        Err(e) => {
            plan.skipped
                .push((store.root.clone(), format!("folder cannot be read ({e})")));
            return plan;
        }
    };
    let mut fingerprints = HashMap::new();
    let mut changed = Vec::new();
    // The sources of a database, known from when it was last read.
    let mut held = 0;
    for f in files {
        if is_scratch(store, &f) {
            continue;
        }
        let Ok(meta) = std::fs::metadata(&f) else {
            continue;
        };
        let fp = Fingerprint::of(&meta);
        plan.seen.insert(f.clone());
        if !force && state.is_unchanged(&f, &fp) {
            match state.get(&f).map(|e| e.role) {
                Some(Role::Source) => plan.unchanged += 1,
                Some(Role::Holds(n)) => held = held.max(n),
                _ => {}
            }
        } else {
            changed.push(f.clone());
        }
        fingerprints.insert(f, fp);
    }
    plan.unchanged += held;
    lead_to_sources(store, &changed, &fingerprints, state, &mut plan);
    plan
}

/// The plan for some files of the stores, said to have changed (by a
/// watcher): each is led to its source as a store's walk would, and read
/// if it changed since it was last read. Paths in no store are returned.
pub fn plan_paths(
    stores: &[AgentStore],
    changed: &[PathBuf],
    state: &ImportState,
) -> (Vec<(PathBuf, StorePlan)>, Vec<PathBuf>) {
    let mut plans: Vec<(PathBuf, StorePlan)> = Vec::new();
    let mut outside = Vec::new();
    for path in changed {
        let Some(store) = stores.iter().find(|s| path.starts_with(&s.root)) else {
            outside.push(path.clone());
            continue;
        };
        // A link or a special file is never read, as in the store's walk.
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        if !meta.is_file() || is_scratch(store, path) {
            continue;
        }
        let fp = Fingerprint::of(&meta);
        if state.is_unchanged(path, &fp) {
            continue;
        }
        let at = plans
            .iter()
            .position(|(root, _)| *root == store.root)
            .unwrap_or_else(|| {
                plans.push((store.root.clone(), StorePlan::default()));
                plans.len() - 1
            });
        let plan = &mut plans[at].1;
        let fingerprints = HashMap::from([(path.clone(), fp)]);
        lead_to_sources(
            store,
            std::slice::from_ref(path),
            &fingerprints,
            state,
            plan,
        );
    }
    (plans, outside)
}

/// True for a file that changes when a source is only read: SQLite's
/// shared-memory index beside a database opened with its WAL (the
/// OpenCode importer's own reading touches it).
fn is_scratch(store: &AgentStore, file: &Path) -> bool {
    store.format == Format::OpenCode
        && file
            .file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with("-shm"))
}

/// Adds to `plan` the sources that the `changed` files belong to.
fn lead_to_sources(
    store: &AgentStore,
    changed: &[PathBuf],
    fingerprints: &HashMap<PathBuf, Fingerprint>,
    state: &ImportState,
    plan: &mut StorePlan,
) {
    if changed.is_empty() {
        return;
    }
    let fp_of = |p: &Path| {
        fingerprints.get(p).copied().or_else(|| {
            std::fs::symlink_metadata(p)
                .ok()
                .map(|m| Fingerprint::of(&m))
        })
    };
    if store.format == Format::OpenCode {
        // A database (or storage folder) holds every session: any change
        // reads its sessions again, and the provenance tells which changed.
        let found = crate::find_sources(&store.root, Some(Format::OpenCode));
        plan.skipped.extend(found.skipped);
        let holds = Role::Holds(found.sources.len());
        let parts: Vec<_> = changed
            .iter()
            .filter_map(|p| Some((p.clone(), fp_of(p)?, holds)))
            .collect();
        plan.unchanged = 0;
        for (s, f) in found.sources {
            plan.read_with.insert(s.clone(), parts.clone());
            plan.sources.push((s, f));
        }
        return;
    }
    let mut sources: Vec<PathBuf> = Vec::new();
    for file in changed {
        let Some(fp) = fp_of(file) else { continue };
        let parent = match store.format {
            Format::ClaudeCode => claude_code::parent_transcript(file),
            Format::Gemini => gemini::parent_of(file),
            _ => None,
        };
        if let Some(parent) = parent {
            plan.read_with
                .entry(parent.clone())
                .or_default()
                .push((file.clone(), fp, Role::Part));
            if let Some(pfp) = fp_of(&parent) {
                // The parent, unchanged itself, is read again for its part.
                if state.is_unchanged(&parent, &pfp) {
                    plan.unchanged = plan.unchanged.saturating_sub(1);
                }
                plan.read_with.entry(parent.clone()).or_default().push((
                    parent.clone(),
                    pfp,
                    Role::Source,
                ));
            }
            sources.push(parent);
        } else if detect(file) == Some(store.format) {
            plan.read_with
                .entry(file.clone())
                .or_default()
                .push((file.clone(), fp, Role::Source));
            sources.push(file.clone());
        } else {
            plan.others.push((file.clone(), fp));
        }
    }
    sources.sort();
    sources.dedup();
    let known: HashSet<PathBuf> = plan.sources.iter().map(|(p, _)| p.clone()).collect();
    plan.sources.extend(
        sources
            .into_iter()
            .filter(|s| !known.contains(s))
            .map(|s| (s, store.format)),
    );
    plan.sources.sort_by(|a, b| a.0.cmp(&b.0));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stores::{Origin, Presence};

    fn claude_line(sid: &str, text: &str) -> String {
        format!(
            "{{\"type\":\"user\",\"sessionId\":\"{sid}\",\"uuid\":\"u-{text}\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"cwd\":\"/p\",\"message\":{{\"role\":\"user\",\"content\":\"{text}\"}}}}\n"
        )
    }

    #[test]
    fn only_new_or_changed_sources_are_planned() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("projects");
        let proj = root.join("-p");
        std::fs::create_dir_all(&proj).unwrap();
        let a = proj.join("a.jsonl");
        let b = proj.join("b.jsonl");
        std::fs::write(&a, claude_line("a", "hi")).unwrap();
        std::fs::write(&b, claude_line("b", "hi")).unwrap();
        std::fs::write(proj.join("notes.txt"), "not a transcript").unwrap();
        let store = AgentStore {
            format: Format::ClaudeCode,
            root: root.clone(),
            origin: Origin::Default,
            presence: Presence::Found,
        };
        let mut state = ImportState::default();
        let plan = plan_store(&store, &state, false);
        let want = vec![
            (a.clone(), Format::ClaudeCode),
            (b.clone(), Format::ClaudeCode),
        ];
        assert_eq!(plan.sources, want);
        for (s, _) in &plan.sources {
            plan.record_read(s, &mut state);
        }
        plan.record_others(&mut state);
        state.forget_gone(&root, &plan.seen);
        let again = plan_store(&store, &state, false);
        assert!(again.sources.is_empty());
        assert_eq!((again.unchanged, again.total()), (2, 2));
        // Appended to: read again, alone.
        std::fs::write(&b, claude_line("b", "hi") + &claude_line("b", "more")).unwrap();
        let grown = plan_store(&store, &state, false);
        assert_eq!(grown.sources, [(b.clone(), Format::ClaudeCode)]);
        assert_eq!(grown.unchanged, 1);
        // A subagent's transcript that changes reads its parent again.
        let sub = proj.join("a/subagents");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("agent-1.jsonl"), claude_line("a", "sub")).unwrap();
        let (plans, outside) = plan_paths(
            std::slice::from_ref(&store),
            &[sub.join("agent-1.jsonl"), t.path().join("elsewhere.jsonl")],
            &state,
        );
        assert_eq!(outside, [t.path().join("elsewhere.jsonl")]);
        assert_eq!(plans[0].1.sources, [(a.clone(), Format::ClaudeCode)]);
        // Forced: everything.
        assert_eq!(plan_store(&store, &state, true).sources.len(), 2);
    }
}
