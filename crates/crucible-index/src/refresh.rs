//! The cheap staleness check that `list` and `stats` run before answering.
//!
//! Rule: a directory whose mtime changed since it was indexed is listed again
//! (files added, removed or atomically replaced show up as new names or new
//! inodes, and are read); sessions with a journal (live ones) are read again
//! every time. Nothing else is looked at, so at 100,000 files this costs a
//! `stat` per directory, not per file. What it can miss: a file edited in
//! place (same inode, directory untouched). `cru session index` finds those.

use crucible_core::SessionStore;
use crucible_parser::MarkdownCodec;
use std::collections::{HashMap, HashSet};

use crate::files::{Delta, DirStamp, Index};
use crate::scan::{Entry, dir_stamp, index_file, walk};

fn parent_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

fn record(delta: &mut Delta, rel: &str, entry: Entry) {
    match entry {
        Entry::Session(s, summary) => {
            let phases = crate::record::PhaseRecord::from_summary(rel, &summary);
            delta.set(rel, Some((*s, phases)), None);
        }
        Entry::Problem(p) => delta.set(rel, None, Some(p)),
        Entry::NotASession => delta.set(rel, None, None),
    }
}

/// Brings `index` up to date by the cheap rule; returns what changed (to be
/// persisted when the directory is writable).
pub fn refresh(store: &SessionStore<MarkdownCodec>, index: &mut Index) -> Delta {
    let root = store.dir();
    let mut delta = Delta::default();
    let known_dirs: HashMap<String, u64> = index
        .dirs
        .iter()
        .map(|d| (d.path.clone(), d.mtime_ns))
        .collect();
    let mut by_dir: HashMap<&str, Vec<(&str, u64)>> = HashMap::new();
    for s in &index.sessions {
        by_dir
            .entry(parent_of(&s.path))
            .or_default()
            .push((&s.path, s.stamp.ino));
    }
    for p in &index.problems {
        by_dir
            .entry(parent_of(&p.path))
            .or_default()
            .push((&p.path, p.stamp.ino));
    }
    let mut live: HashSet<String> = index
        .sessions
        .iter()
        .filter(|s| s.live)
        .map(|s| s.path.clone())
        .collect();

    for (dir_rel, mtime) in &known_dirs {
        let dir = if dir_rel.is_empty() {
            root.to_owned()
        } else {
            root.join(dir_rel)
        };
        let now = dir_stamp(root, &dir);
        if now.as_ref().map(|d| d.mtime_ns) == Some(*mtime) {
            continue;
        }
        let indexed = by_dir.get(dir_rel.as_str()).cloned().unwrap_or_default();
        let Some(now) = now else {
            // The directory is gone, and everything that was in it.
            for (path, _) in indexed {
                delta.set(path, None, None);
            }
            delta.dirs.push(DirStamp {
                path: dir_rel.clone(),
                mtime_ns: 0,
            });
            continue;
        };
        let mut on_disk: HashMap<String, u64> = HashMap::new();
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let rel = if dir_rel.is_empty() {
                    name.clone()
                } else {
                    format!("{dir_rel}/{name}")
                };
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if let Some(session) = name
                    .strip_prefix('.')
                    .and_then(|n| n.strip_suffix(".journal"))
                {
                    let md = if dir_rel.is_empty() {
                        session.to_owned()
                    } else {
                        format!("{dir_rel}/{session}")
                    };
                    live.insert(md);
                } else if name.starts_with('.') {
                } else if kind.is_dir() {
                    if !known_dirs.contains_key(&rel) {
                        // A new folder: everything in it is new.
                        if let Ok((dirs, files)) = walk(&entry.path()) {
                            for f in files {
                                let r = crate::scan::relative(root, &f);
                                record(&mut delta, &r, index_file(store, &f));
                            }
                            for d in dirs {
                                if let Some(stamp) = dir_stamp(root, &d) {
                                    delta.set_dir(stamp);
                                }
                            }
                        }
                    }
                } else if name.ends_with(".md") {
                    use std::os::unix::fs::DirEntryExt;
                    on_disk.insert(rel, entry.ino());
                }
            }
        }
        for (path, ino) in &indexed {
            if !on_disk.contains_key(*path) {
                delta.set(path, None, None);
            } else if on_disk[*path] != *ino {
                record(&mut delta, path, index_file(store, &root.join(path)));
            }
        }
        let indexed_paths: HashSet<&str> = indexed.iter().map(|(p, _)| *p).collect();
        for path in on_disk
            .keys()
            .filter(|p| !indexed_paths.contains(p.as_str()))
        {
            record(&mut delta, path, index_file(store, &root.join(path)));
        }
        delta.set_dir(now);
    }
    // Live sessions: their journals hold events the markdown does not show yet.
    let refreshed: HashSet<String> = delta.sessions.iter().map(|s| s.path.clone()).collect();
    for path in live.iter().filter(|p| !refreshed.contains(*p)) {
        let full = root.join(path);
        if full.exists() {
            record(&mut delta, path, index_file(store, &full));
        }
    }
    crate::files::apply(index, &delta);
    index.dirs.retain(|d| {
        d.mtime_ns != 0
            || !delta
                .dirs
                .iter()
                .any(|x| x.path == d.path && x.mtime_ns == 0)
    });
    delta
}
