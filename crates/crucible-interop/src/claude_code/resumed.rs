//! Which Claude Code session a resumed one continues. `--resume` and
//! `--continue` start a new transcript (a new session id) that first
//! repeats the earlier conversation's lines, with their `uuid`s, under
//! either the earlier `sessionId` or the new one (both are seen in the
//! wild). So the earlier session is the other `sessionId` in the new
//! transcript's head, else the transcript beside it whose head holds one
//! of the same `uuid`s (the newest such: a chain A → B → C continues B).

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// How many lines of a transcript are looked at (its repeated history
/// comes first).
const HEAD_LINES: usize = 64;

/// The Claude Code sessions `path` (the transcript of session `current`)
/// may continue, the likeliest first. The hooks (crucible-capture) and the
/// importer both ask this, so that they agree on what a resume is.
pub fn earlier_sessions(path: &Path, current: &str) -> Vec<String> {
    let lines = head(path);
    let mut found: Vec<String> = lines
        .iter()
        .filter_map(|v| v.get("sessionId")?.as_str())
        .filter(|sid| *sid != current)
        .take(1)
        .map(str::to_owned)
        .collect();
    let uuids: HashSet<&str> = lines
        .iter()
        .filter_map(|v| v.get("uuid")?.as_str())
        .collect();
    if uuids.is_empty() {
        return found;
    }
    let Ok(dir) = std::fs::read_dir(path.parent().unwrap_or(Path::new("."))) else {
        return found;
    };
    let mut siblings: Vec<(std::time::SystemTime, String)> = dir
        .flatten()
        .map(|e| e.path())
        .filter(|p| p != path && p.extension().is_some_and(|x| x == "jsonl"))
        .filter(|p| {
            head(p)
                .iter()
                .filter_map(|v| v.get("uuid")?.as_str())
                .any(|u| uuids.contains(u))
        })
        .filter_map(|p| {
            let stem = p.file_stem()?.to_str()?.to_owned();
            let modified = std::fs::metadata(&p).and_then(|m| m.modified()).ok()?;
            (stem != current).then_some((modified, stem))
        })
        .collect();
    siblings.sort_by_key(|s| std::cmp::Reverse(s.0));
    found.extend(siblings.into_iter().map(|(_, stem)| stem));
    found
}

/// What an import finds of the transcript a Claude Code transcript
/// continues.
#[derive(Debug)]
pub(crate) enum Continues {
    /// A transcript of its own.
    Nothing,
    /// The earlier transcript beside it, and the `uuid`s of its lines:
    /// the lines of this one with those `uuid`s are the earlier session's.
    Beside {
        path: PathBuf,
        id: String,
        uuids: HashSet<String>,
    },
    /// It names an earlier session whose transcript is not beside it.
    Missing(String),
}

/// The transcript `path` continues, found as the hooks find it
/// ([`earlier_sessions`]), for an import. The hooks know which transcript
/// is the new one (the one `--resume` started); an import has both, and
/// they share their first lines: the earlier is the one whose every line
/// the other repeats, the longest such when several are (a chain A → B →
/// C: C continues B).
pub(crate) fn continues(path: &Path) -> Continues {
    let Some(current) = path.file_stem().and_then(|s| s.to_str()) else {
        return Continues::Nothing;
    };
    let earlier = earlier_sessions(path, current);
    let Some(first) = earlier.first().cloned() else {
        return Continues::Nothing;
    };
    let ours = uuids(path);
    let dir = path.parent().unwrap_or(Path::new("."));
    let best = earlier
        .into_iter()
        .filter_map(|id| {
            let theirs_path = dir.join(format!("{id}.jsonl"));
            let theirs = uuids(&theirs_path);
            let repeated = !theirs.is_empty()
                && theirs.len() < ours.len()
                && theirs.iter().all(|u| ours.contains(u));
            repeated.then_some((theirs_path, id, theirs))
        })
        .max_by_key(|(_, _, theirs)| theirs.len());
    match best {
        Some((path, id, uuids)) => Continues::Beside { path, id, uuids },
        // Lines under another session id with no transcript of it here:
        // the repeated lines stay (nothing else holds them). Lines that
        // only share `uuid`s with a longer transcript are not a resume.
        None if !dir.join(format!("{first}.jsonl")).is_file() && names(path, &first) => {
            Continues::Missing(first)
        }
        None => Continues::Nothing,
    }
}

/// The transcript beside `path` that it continues, if any.
pub(crate) fn continues_file(path: &Path) -> Option<PathBuf> {
    match continues(path) {
        Continues::Beside { path, .. } => Some(path),
        _ => None,
    }
}

/// What tells a line of a transcript from the others: its `uuid`, or a
/// file-history snapshot's `messageId` (snapshots have no `uuid`, and a
/// resumed transcript repeats them too).
pub(crate) fn line_key(v: &serde_json::Value) -> Option<&str> {
    v.get("uuid")
        .or_else(|| {
            (v.get("type")?.as_str()? == "file-history-snapshot")
                .then(|| v.get("messageId"))
                .flatten()
        })?
        .as_str()
}

/// The keys ([`line_key`]) of every line of a transcript.
fn uuids(path: &Path) -> HashSet<String> {
    let Ok((file, _)) = crucible_core::store::safe_file::open_regular(path, u64::MAX) else {
        return HashSet::new();
    };
    BufReader::new(file)
        .lines()
        .map_while(Result::ok)
        .filter_map(|line| {
            let v: serde_json::Value = serde_json::from_str(&line).ok()?;
            line_key(&v).map(str::to_owned)
        })
        .collect()
}

/// Whether `path` holds lines of session `id` in its head and lines of
/// another session after them: a copy of another session's transcript
/// under another name holds one session only, and continues nothing.
fn names(path: &Path, id: &str) -> bool {
    let Ok((file, _)) = crucible_core::store::safe_file::open_regular(path, u64::MAX) else {
        return false;
    };
    let mut ids = BufReader::new(file)
        .lines()
        .map_while(Result::ok)
        .filter_map(|line| {
            let v: serde_json::Value = serde_json::from_str(&line).ok()?;
            Some(v.get("sessionId")?.as_str()?.to_owned())
        });
    ids.any(|s| s == id) && ids.any(|s| s != id)
}

/// The first lines of a transcript that read as JSON objects.
fn head(path: &Path) -> Vec<serde_json::Value> {
    let Ok((file, _)) = crucible_core::store::safe_file::open_regular(path, u64::MAX) else {
        return Vec::new();
    };
    BufReader::new(file)
        .lines()
        .take(HEAD_LINES)
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_str(&line).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(sid: &str, uuid: &str) -> String {
        format!(
            r#"{{"type":"user","sessionId":"{sid}","uuid":"{uuid}","message":{{"role":"user","content":"hi"}}}}"#
        )
    }

    #[test]
    fn the_earlier_session_is_named_by_its_lines_or_found_by_their_uuids() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("aaaa.jsonl");
        std::fs::write(&a, line("aaaa", "u1") + "\n").unwrap();
        // Copied lines under the earlier id.
        let b = dir.path().join("bbbb.jsonl");
        std::fs::write(&b, line("aaaa", "u1") + "\n" + &line("bbbb", "u2") + "\n").unwrap();
        assert_eq!(earlier_sessions(&b, "bbbb")[0], "aaaa");
        // Copied lines under the new id: found by their uuid beside it.
        std::fs::write(&b, line("bbbb", "u1") + "\n" + &line("bbbb", "u2") + "\n").unwrap();
        assert_eq!(earlier_sessions(&b, "bbbb"), ["aaaa"]);
        // A new session shares no line with another.
        let c = dir.path().join("cccc.jsonl");
        std::fs::write(&c, line("cccc", "u9") + "\n").unwrap();
        assert!(earlier_sessions(&c, "cccc").is_empty());
    }

    #[test]
    fn a_real_transcript_continues_a_copy_of_its_first_lines() {
        let real = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/real/claude-code/ai-sessions/claude-code-pomodoro-timer.jsonl");
        let text = std::fs::read_to_string(real).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let head: String = text.lines().take(40).map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.path().join("a-head.jsonl"), head).unwrap();
        let full = dir.path().join("b-full.jsonl");
        std::fs::write(&full, &text).unwrap();
        assert_eq!(continues_file(&full), Some(dir.path().join("a-head.jsonl")));
    }

    #[test]
    fn of_two_transcripts_sharing_lines_the_longer_continues_the_shorter() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("aaaa.jsonl");
        std::fs::write(&a, line("aaaa", "u1") + "\n").unwrap();
        let b = dir.path().join("bbbb.jsonl");
        std::fs::write(&b, line("bbbb", "u1") + "\n" + &line("bbbb", "u2") + "\n").unwrap();
        match continues(&b) {
            Continues::Beside { path, id, uuids } => {
                assert_eq!((path, id.as_str()), (a.clone(), "aaaa"));
                assert_eq!(uuids, HashSet::from(["u1".to_owned()]));
            }
            other => panic!("{other:?}"),
        }
        // The earlier one continues nothing, though it shares a line.
        assert!(matches!(continues(&a), Continues::Nothing));
        // Naming a session whose transcript is not here: kept whole.
        std::fs::remove_file(&a).unwrap();
        std::fs::write(&b, line("aaaa", "u1") + "\n" + &line("bbbb", "u2") + "\n").unwrap();
        assert!(matches!(continues(&b), Continues::Missing(id) if id == "aaaa"));
    }
}
