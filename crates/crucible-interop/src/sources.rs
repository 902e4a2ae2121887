//! Finding sources: a file or folder named on the command line, walked as
//! deep as it goes with the one walker (`crucible_core::store::walk`: only
//! regular files, links only inside the folder named, never into a folder),
//! each entry told by its content; what the walk will not or cannot read is
//! named with why.

use std::path::{Path, PathBuf};

use crucible_core::store::safe_file::kind_name;
use crucible_core::store::walk::{Rules, WalkOptions, walk_with};

use crate::{Format, claude_code, detect, gemini, opencode};

/// What a search for sources found.
#[derive(Debug, Default)]
pub struct Found {
    /// The sources, by path.
    pub sources: Vec<(PathBuf, Format)>,
    /// What the walk could not or would not look at, with why: unreadable
    /// folders, FIFOs, sockets, devices, links to folders, broken links.
    pub skipped: Vec<(PathBuf, String)>,
    /// Files read and found to be of no format cru imports.
    pub unrecognized: Vec<PathBuf>,
}

/// How deep a folder walk goes. Links to folders are never followed, so a
/// walk cannot loop; this only bounds a pathological tree, and what lies
/// deeper is reported, not silently left out.
const MAX_DEPTH: usize = 64;

/// The walk's rules for a folder named to import: hidden folders are
/// walked (`.agent/sessions`, `~/.claude/projects`), and links are read
/// only when they stay inside the folder named.
pub(crate) const IMPORT: Rules = Rules {
    take_hidden: true,
    tree: "the folder being imported",
};

/// The sources below `path` in `format` (or any, detected by content):
/// a file or folder of that format, or a folder that holds them.
pub fn find_sources(path: &Path, format: Option<Format>) -> Found {
    let mut found = Found::default();
    if let Some(is_dir) = named(path, format, &mut found) {
        classify(path, is_dir, format, &mut found, 0, path);
    }
    found.sources.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// The path named on the command line: whether it is a folder, or `None`
/// when it was taken or skipped already. A link named is followed to a
/// file (the user chose it), never to a folder.
fn named(path: &Path, format: Option<Format>, found: &mut Found) -> Option<bool> {
    // One session of an OpenCode database, named `opencode.db#<id>`.
    if format.is_none_or(|f| f == Format::OpenCode) && opencode::is_db_session(path) {
        found.sources.push((path.to_owned(), Format::OpenCode));
        return None;
    }
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) => {
            found.skipped.push((path.to_owned(), e.to_string()));
            return None;
        }
    };
    let ft = meta.file_type();
    let why_not = if ft.is_symlink() {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => Some("a link to a folder (not followed)".into()),
            Ok(m) if !m.is_file() => Some("a link to a special file".into()),
            Ok(_) => None,
            Err(e) => Some(format!("a broken link ({e})")),
        }
    } else if !ft.is_dir() && !ft.is_file() {
        Some(format!("{}, not a regular file", kind_name(ft)))
    } else {
        None
    };
    match why_not {
        Some(reason) => {
            found.skipped.push((path.to_owned(), reason));
            None
        }
        None => Some(ft.is_dir()),
    }
}

/// A file or folder the walk's rules let through, at `depth` below the
/// path named (`top`): a source, a folder to look into, or neither.
fn classify(
    path: &Path,
    is_dir: bool,
    format: Option<Format>,
    found: &mut Found,
    depth: usize,
    top: &Path,
) {
    // A file named on the command line with `--from` is read in that format
    // whatever its head shows (a first line longer than detection reads,
    // say): the user said what it is, and the importer says if it is not.
    // (OpenCode's database and agent folders are told apart by detection:
    // they are not one source each.)
    if let Some(want) = format
        && depth == 0
        && !is_dir
        && !matches!(want, Format::OpenCode | Format::AgentDir)
    {
        found.sources.push((path.to_owned(), want));
        return;
    }
    classify_detected(path, is_dir, format, found, depth, top, detect(path));
}

/// [`classify`] of an entry whose format was told already (`detected`).
fn classify_detected(
    path: &Path,
    is_dir: bool,
    format: Option<Format>,
    found: &mut Found,
    depth: usize,
    top: &Path,
    detected: Option<Format>,
) {
    if let Some(f) = detected {
        take_detected(path, f, format, found, depth);
        return;
    }
    if !is_dir {
        found.unrecognized.push(path.to_owned());
        return;
    }
    if depth >= MAX_DEPTH {
        found.skipped.push((
            path.to_owned(),
            format!("deeper than {MAX_DEPTH} folders below the path given"),
        ));
        return;
    }
    // One folder at a time through the one walker, so each folder found
    // can be told by its content (an agent folder is one source) before
    // anything below it is looked at.
    let options = WalkOptions {
        file_filter: &|_| true,
        utf8_names: false,
        recursive: false,
        confine_to: Some(top),
    };
    let tree = match walk_with(path, options, &IMPORT) {
        Ok(t) => t,
        Err(e) => {
            found
                .skipped
                .push((path.to_owned(), format!("folder cannot be read ({e})")));
            return;
        }
    };
    found
        .skipped
        .extend(tree.skipped.into_iter().map(|s| (s.path, s.reason)));
    let mut entries: Vec<(PathBuf, bool)> = (tree.files.into_iter().map(|p| (p, false)))
        .chain(tree.subdirs.into_iter().map(|p| (p, true)))
        .collect();
    entries.sort();
    let detected = detect_all(&entries);
    for ((p, is_dir), d) in entries.into_iter().zip(detected) {
        classify_detected(&p, is_dir, format, found, depth + 1, top, d);
    }
}

/// [`detect`] of each entry of a folder, on every core: detection parses
/// the head of every file (16 KB of JSON lines each; 64 KB took a third of
/// a second for a thousand transcripts), before any source can be imported.
fn detect_all(entries: &[(PathBuf, bool)]) -> Vec<Option<Format>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Asked once: the answer costs a dozen system calls (cgroup limits).
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from));
    // A folder of a few entries is not worth a thread.
    let threads = cores.min(entries.len() / 4);
    if threads <= 1 {
        return entries.iter().map(|(p, _)| detect(p)).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut told = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some((p, _)) = entries.get(i) else {
                return told;
            };
            told.push((i, detect(p)));
        }
    };
    let mut out = vec![None; entries.len()];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
        for w in workers {
            let told = w.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
            for (i, f) in told {
                out[i] = f;
            }
        }
    });
    out
}

/// A file or folder `detect` recognised as `f`.
fn take_detected(path: &Path, f: Format, format: Option<Format>, found: &mut Found, depth: usize) {
    if format.is_some_and(|want| want != f) {
        return;
    }
    if f == Format::OpenCode {
        // A database or storage folder holds many sessions, each a source.
        let mut skipped = Vec::new();
        match opencode::sources(path, depth > 0, &mut skipped) {
            Ok(s) => found
                .sources
                .extend(s.into_iter().map(|p| (p, Format::OpenCode))),
            Err(e) => found.skipped.push((path.to_owned(), e.to_string())),
        }
        found
            .skipped
            .extend(skipped.into_iter().map(|s| (s.path, s.reason)));
        return;
    }
    // In a folder walk a subagent's file comes with its parent's
    // transcript; named on its own, it is imported on its own.
    let with_parent = depth > 0
        && match f {
            Format::ClaudeCode => claude_code::parent_transcript(path).is_some(),
            Format::Gemini => gemini::has_parent(path),
            _ => false,
        };
    if !with_parent {
        found.sources.push((path.to_owned(), f));
    }
}
