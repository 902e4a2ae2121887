//! The names of the files cru keeps in a sessions directory, each spelled
//! once (docs/session-format.md, "Files cru keeps in the sessions
//! directory", lists them).
//!
//! Every one of them but the sessions themselves starts with a dot: the one
//! walker ([`super::walk`]) never takes a hidden file for a session, and a
//! person browsing the folder sees the sessions only. A test in xtask
//! (`names_are_spelled_once`) fails when another file spells one of these
//! literals.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The writers' lock, at the top of the sessions directory.
pub const LOCK: &str = ".cru.lock";

/// The index: sessions, problems and directories.
pub const INDEX: &str = ".index.toon";
/// The index's phases table.
pub const INDEX_PHASES: &str = ".index-phases.toon";
/// The index's usage cells, one row per row of the index's sessions table.
pub const INDEX_USAGE: &str = ".index-usage.toon";
/// The index's usage lines summed by hour and model (its base's rows).
pub const INDEX_ROLLUP: &str = ".index-rollup.toon";
/// What saves changed since the index was written.
pub const INDEX_DELTA: &str = ".index-delta.toon";
/// The stamps of the index files as cru last wrote them (crucible-index's
/// `seal`): an index file that differs was written by another hand.
pub const INDEX_SEAL: &str = ".index-seal";
/// The full-text search index (a directory of tantivy segments and its
/// manifest; crucible-search).
pub const SEARCH_INDEX: &str = ".search";
/// Where a rebuild of the search index builds the new one, swapped in
/// whole for [`SEARCH_INDEX`] when it is complete (a search meanwhile reads
/// the old one); one left by a killed rebuild is removed by the next.
pub const SEARCH_INDEX_BUILD: &str = ".search.build";
/// The lock of the search index's writers: its own, so that a search
/// bringing its index up to date never holds up `cru session log`.
pub const SEARCH_LOCK: &str = ".search.lock";
/// The folder of a running `cru watch` (crucible-index's `watcher`): its
/// heartbeat, its lock, and the sync files readers fence with. A folder of
/// its own, so that a beat a second never moves the sessions folder's
/// change time (which would make every freshness check list it again).
pub const WATCH_DIR: &str = ".cru-watch";
/// The watcher's heartbeat, in [`WATCH_DIR`].
pub const WATCH_HEARTBEAT: &str = "heartbeat";
/// The lock one watcher per sessions directory holds, in [`WATCH_DIR`].
pub const WATCH_LOCK: &str = "lock";
/// The start of a reader's sync file's name in [`WATCH_DIR`]
/// (`sync-<pid>-<n>`): the watcher removes it once every change made
/// before it is applied.
pub const WATCH_SYNC_PREFIX: &str = "sync-";

/// What live capture keeps beside the sessions (crucible-capture): a
/// directory per agent of small state files, one per agent session.
pub const CAPTURE_DIR: &str = ".capture";
/// The log of hook runs that failed (crucible-capture's `error_log`): a
/// hook never fails its agent, so its errors are kept here for
/// `cru doctor`.
pub const HOOK_ERRORS: &str = ".hook-errors.jsonl";
/// The lock imports take, one at a time: each looks for the session a
/// source made before it creates one, so two at once (a watcher and an
/// import) would each create it.
pub const IMPORT_LOCK: &str = ".import.lock";
/// What the imports of the agents' stores last saw of each source file
/// (size, mtime, inode), so that an unchanged one is skipped on a stat:
/// derived, rebuilt when missing or damaged (crucible-interop).
pub const IMPORT_STATE: &str = ".import-state.json";

/// The end of a journal's name (`.<file>.journal`).
pub const JOURNAL_SUFFIX: &str = ".journal";
/// The end of a sidecar's name (`.<stem>.data.jsonl`).
pub const SIDECAR_SUFFIX: &str = ".data.jsonl";
/// The end of a temporary file's name (`.<file>.<pid>.<n>.tmp`).
pub const TEMP_SUFFIX: &str = ".tmp";
/// The end of a rejected refinement's name (`<stem>.refine-rejected.md`).
pub const REFINE_REJECTED_SUFFIX: &str = ".refine-rejected.md";

fn name_of(path: &Path, default: &str) -> String {
    path.file_name()
        .map_or_else(|| default.into(), |n| n.to_string_lossy().into_owned())
}

/// The journal of the session file at `session`: `.<file name>.journal`
/// beside it.
pub fn journal(session: &Path) -> PathBuf {
    session.with_file_name(format!(".{}{JOURNAL_SUFFIX}", name_of(session, "session")))
}

/// The name of the session file whose journal is called `name`, if `name`
/// is a journal's (`.a.md.journal` → `a.md`). Bytes, because the walker
/// meets names that are not UTF-8.
pub fn journal_of(name: &OsStr) -> Option<&OsStr> {
    use std::os::unix::ffi::OsStrExt;
    name.as_bytes()
        .strip_prefix(b".")
        .and_then(|n| n.strip_suffix(JOURNAL_SUFFIX.as_bytes()))
        .filter(|n| !n.is_empty())
        .map(OsStr::from_bytes)
}

/// The sidecar of the session file at `session`: `.<stem>.data.jsonl`
/// beside it, where an import keeps what the markdown cuts.
pub fn sidecar(session: &Path) -> PathBuf {
    let stem = session
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    session.with_file_name(format!(".{stem}{SIDECAR_SUFFIX}"))
}

/// The session stem whose sidecar is called `name` (`.a.data.jsonl` → `a`).
pub fn sidecar_of(name: &str) -> Option<&str> {
    name.strip_prefix('.')
        .and_then(|n| n.strip_suffix(SIDECAR_SUFFIX))
}

/// True for a file name that is a session's sidecar.
pub fn is_sidecar(name: &str) -> bool {
    sidecar_of(name).is_some()
}

/// A temporary file for writing `target` atomically:
/// `.<file name>.<pid>.<n>.tmp` beside it.
pub fn temp(target: &Path, pid: u32, n: u64) -> PathBuf {
    target.with_file_name(format!(
        ".{}.{pid}.{n}{TEMP_SUFFIX}",
        name_of(target, "session")
    ))
}

/// Whether `name` is a temporary file made by [`temp`] for a file whose
/// name ends with `suffix`.
pub fn is_temp_for(name: &str, suffix: &str) -> bool {
    let Some(inner) = name
        .strip_prefix('.')
        .and_then(|n| n.strip_suffix(TEMP_SUFFIX))
    else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mut parts = inner.rsplitn(3, '.');
    let (Some(n), Some(pid), Some(target)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    digits(n) && digits(pid) && target.ends_with(suffix)
}

/// Where a refinement that lost steps or rows is kept for reading, beside
/// the workflow it would have replaced: `<stem>.refine-rejected.md`. Not
/// hidden: the user is told to open it.
pub fn refine_rejected(beside: &Path) -> PathBuf {
    let stem = beside
        .file_stem()
        .map_or_else(|| "workflow".into(), |s| s.to_string_lossy().into_owned());
    // `deploy.workflow.md` and `deploy.md` both reject into `deploy.…`.
    let stem = stem.strip_suffix(".workflow").unwrap_or(&stem);
    beside.with_file_name(format!("{stem}{REFINE_REJECTED_SUFFIX}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_file_has_its_name() {
        let s = Path::new("/d/2025-01-01-a.md");
        assert_eq!(journal(s), Path::new("/d/.2025-01-01-a.md.journal"));
        assert_eq!(
            journal_of(OsStr::new(".2025-01-01-a.md.journal")),
            Some(OsStr::new("2025-01-01-a.md"))
        );
        assert_eq!(journal_of(OsStr::new(".journal")), None);
        assert_eq!(journal_of(OsStr::new("a.md")), None);
        assert_eq!(sidecar(s), Path::new("/d/.2025-01-01-a.data.jsonl"));
        assert_eq!(sidecar_of(".2025-01-01-a.data.jsonl"), Some("2025-01-01-a"));
        assert!(!is_sidecar("a.data.jsonl"));
        assert_eq!(temp(s, 42, 7), Path::new("/d/.2025-01-01-a.md.42.7.tmp"));
        assert!(is_temp_for(".2025-01-01-a.md.42.7.tmp", ".md"));
        assert!(!is_temp_for(".a.md.journal", ".md"));
        assert!(!is_temp_for(".notes.tmp", ".md"));
        assert!(!is_temp_for(".a.md.x.1.tmp", ".md"));
        assert_eq!(
            refine_rejected(Path::new("/w/deploy.md")),
            Path::new("/w/deploy.refine-rejected.md")
        );
        assert_eq!(
            refine_rejected(Path::new("/w/deploy.workflow.md")),
            Path::new("/w/deploy.refine-rejected.md")
        );
        for name in [
            LOCK,
            INDEX,
            INDEX_PHASES,
            INDEX_USAGE,
            INDEX_ROLLUP,
            INDEX_DELTA,
            CAPTURE_DIR,
            HOOK_ERRORS,
            IMPORT_STATE,
            IMPORT_LOCK,
        ] {
            assert!(name.starts_with('.'), "{name} must be hidden from the walk");
        }
    }
}
