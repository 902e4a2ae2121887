//! Finding sources: a file or folder named on the command line, walked as
//! deep as it goes, each entry told by its content; what the walk will not
//! or cannot read is named with why.

use std::path::{Path, PathBuf};

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

/// The sources below `path` in `format` (or any, detected by content):
/// a file or folder of that format, or a folder that holds them.
pub fn find_sources(path: &Path, format: Option<Format>) -> Found {
    let mut found = Found::default();
    collect(path, format, &mut found, 0);
    found.sources.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

fn collect(path: &Path, format: Option<Format>, found: &mut Found, depth: usize) {
    // One session of an OpenCode database, named `opencode.db#<id>`.
    if format.is_none_or(|f| f == Format::OpenCode) && opencode::is_db_session(path) {
        found.sources.push((path.to_owned(), Format::OpenCode));
        return;
    }
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) => {
            found.skipped.push((path.to_owned(), e.to_string()));
            return;
        }
    };
    let ft = meta.file_type();
    if ft.is_symlink() {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => {
                // Links to folders are not followed (they can loop), as in every walk.
                found
                    .skipped
                    .push((path.to_owned(), "a link to a folder (not followed)".into()));
                return;
            }
            Ok(m) if !m.is_file() => {
                found
                    .skipped
                    .push((path.to_owned(), "a link to a special file".into()));
                return;
            }
            Ok(_) => {}
            Err(e) => {
                found
                    .skipped
                    .push((path.to_owned(), format!("a broken link ({e})")));
                return;
            }
        }
    } else if !ft.is_dir() && !ft.is_file() {
        found.skipped.push((
            path.to_owned(),
            format!(
                "{}, not a regular file",
                crucible_core::store::safe_file::kind_name(ft)
            ),
        ));
        return;
    }
    // A file named on the command line with `--from` is read in that format
    // whatever its head shows (a first line longer than detection reads,
    // say): the user said what it is, and the importer says if it is not.
    // (OpenCode's database and agent folders are told apart by detection:
    // they are not one source each.)
    if let Some(want) = format
        && depth == 0
        && !ft.is_dir()
        && !matches!(want, Format::OpenCode | Format::AgentDir)
    {
        found.sources.push((path.to_owned(), want));
        return;
    }
    if let Some(f) = detect(path) {
        if f == Format::OpenCode && format.is_none_or(|want| want == f) {
            // A database or storage folder holds many sessions, each a source.
            match opencode::sources(path, depth > 0) {
                Ok(s) => found
                    .sources
                    .extend(s.into_iter().map(|p| (p, Format::OpenCode))),
                Err(e) => found.skipped.push((path.to_owned(), e.to_string())),
            }
            return;
        }
        if format.is_none_or(|want| want == f) {
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
        return;
    }
    if !ft.is_dir() {
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
    let entries = match std::fs::read_dir(path) {
        Ok(e) => e,
        Err(e) => {
            found
                .skipped
                .push((path.to_owned(), format!("folder cannot be read ({e})")));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        collect(&p, format, found, depth + 1);
    }
}
