//! What one file-system event means to the watcher.

use std::path::{Component, Path, PathBuf};

use crucible_core::store::names;
use crucible_index::watcher;
use notify::event::{CreateKind, EventKind};

/// One path of an event, sorted.
#[derive(Debug, PartialEq, Eq)]
pub enum Change {
    /// A session, journal or sidecar of the sessions directory (or a
    /// folder of sessions) changed: the indexes must catch up. `new_dir`
    /// when a folder appeared (see [`super::event_loop`] on settling);
    /// `session` the session file concerned, relative to the sessions
    /// directory, when there is one (a folder, or the directory itself,
    /// has none).
    Sessions {
        new_dir: bool,
        session: Option<String>,
    },
    /// A file under a watched source path changed.
    Source(PathBuf),
    /// A reader's sync file appeared (crucible-index's `watcher` fence).
    Sync(PathBuf),
    /// Events were lost: everything must be looked at again.
    Overflow,
}

/// The changes an event makes, given the sessions directory `sessions`
/// and whether a path lies under a watched source (`is_source`). cru's own
/// derived files (the index, the search index, locks, temporary files, the
/// heartbeat) are no change: the watcher writes them itself.
pub fn classify(
    event: &notify::Event,
    sessions: &Path,
    is_source: &dyn Fn(&Path) -> bool,
) -> Vec<Change> {
    if event.need_rescan() {
        return vec![Change::Overflow];
    }
    if matches!(event.kind, EventKind::Access(_)) {
        return Vec::new();
    }
    let new_dir = matches!(event.kind, EventKind::Create(CreateKind::Folder));
    let mut out = Vec::new();
    for path in &event.paths {
        if let Ok(rel) = path.strip_prefix(sessions) {
            if watcher::is_sync_file(path) {
                if matches!(event.kind, EventKind::Create(_)) {
                    out.push(Change::Sync(path.clone()));
                }
            } else if concerns_sessions(rel) {
                let new_dir = new_dir || path.is_dir();
                out.push(Change::Sessions {
                    new_dir,
                    session: (!new_dir).then(|| session_of(rel)).flatten(),
                });
            }
        } else if is_source(path) {
            out.push(Change::Source(path.clone()));
        }
    }
    out
}

/// Whether a path inside the sessions directory (relative to it) is one
/// the indexes read: not inside a hidden folder, and either not hidden or
/// a journal or sidecar.
fn concerns_sessions(rel: &Path) -> bool {
    let parts: Vec<_> = rel.components().collect();
    let Some((last, folders)) = parts.split_last() else {
        // The sessions directory itself (moved, removed).
        return true;
    };
    let hidden = |c: &Component<'_>| c.as_os_str().as_encoded_bytes().first() == Some(&b'.');
    if folders.iter().any(hidden) {
        return false;
    }
    let name = last.as_os_str();
    !hidden(last)
        || names::journal_of(name).is_some()
        || name.to_str().is_some_and(names::is_sidecar)
}

/// The session file a changed file of the sessions directory belongs to
/// (itself, or the one whose journal or sidecar it is), relative to the
/// directory; `None` for anything else.
fn session_of(rel: &Path) -> Option<String> {
    let name = rel.file_name()?;
    let session = if let Some(s) = names::journal_of(name) {
        s.to_str()?.to_owned()
    } else if let Some(stem) = name.to_str().and_then(names::sidecar_of) {
        format!("{stem}.md")
    } else if crucible_core::store::walk::is_markdown(name) {
        name.to_str()?.to_owned()
    } else {
        return None;
    };
    let path = rel.with_file_name(session);
    path.to_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{DataChange, ModifyKind};

    fn event(kind: EventKind, path: &str) -> notify::Event {
        notify::Event::new(kind).add_path(PathBuf::from(path))
    }

    fn of(e: &notify::Event) -> Vec<Change> {
        classify(e, Path::new("/s"), &|p| p.starts_with("/src"))
    }

    #[test]
    fn sessions_changes_are_told_from_cru_s_own_files() {
        let write = EventKind::Modify(ModifyKind::Data(DataChange::Content));
        let session = |s: &str| {
            vec![Change::Sessions {
                new_dir: false,
                session: Some(s.to_owned()),
            }]
        };
        assert_eq!(
            of(&event(write, "/s/2026-01-01-a.md")),
            session("2026-01-01-a.md")
        );
        assert_eq!(of(&event(write, "/s/sub/b.md")), session("sub/b.md"));
        assert_eq!(
            of(&event(write, "/s/.2026-01-01-a.md.journal")),
            session("2026-01-01-a.md")
        );
        assert_eq!(
            of(&event(write, "/s/sub/.2026-01-01-a.data.jsonl")),
            session("sub/2026-01-01-a.md")
        );
        for own in [
            "/s/.index-delta.toon",
            "/s/.cru.lock",
            "/s/.search/meta.json",
            "/s/.a.md.1.2.tmp",
            "/s/.cru-watch/heartbeat",
        ] {
            assert_eq!(of(&event(write, own)), [], "{own}");
        }
        assert_eq!(
            of(&event(
                EventKind::Create(CreateKind::File),
                "/s/.cru-watch/sync-1-0"
            )),
            [Change::Sync("/s/.cru-watch/sync-1-0".into())]
        );
        assert_eq!(
            of(&event(EventKind::Create(CreateKind::Folder), "/s/new")),
            [Change::Sessions {
                new_dir: true,
                session: None
            }]
        );
        assert_eq!(
            of(&event(write, "/src/t.jsonl")),
            [Change::Source("/src/t.jsonl".into())]
        );
        assert_eq!(of(&event(write, "/elsewhere/t.jsonl")), []);
        let lost = notify::Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan);
        assert_eq!(of(&lost), [Change::Overflow]);
    }
}
