//! Which Claude Code session a resumed one continues. `--resume` and
//! `--continue` start a new transcript (a new session id) that first
//! repeats the earlier conversation's lines, with their `uuid`s, under
//! either the earlier `sessionId` or the new one (both are seen in the
//! wild). So the earlier session is the other `sessionId` in the new
//! transcript's head, else a transcript beside it whose first message is
//! repeated in that head (the newest such: a chain A → B → C continues B).

use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use super::per_folder::PerFolder;

/// How many lines of a transcript are looked at (its repeated history
/// comes first).
const HEAD_LINES: usize = 64;

/// The Claude Code sessions `path` (the transcript of session `current`)
/// may continue, the likeliest first. The hooks (crucible-capture) and the
/// importer both ask this, so that they agree on what a resume is.
pub fn earlier_sessions(path: &Path, current: &str) -> Vec<String> {
    let own = Head::of_lines(&head_lines(path));
    earlier_among(path, current, &own, &Firsts::of_folder(folder_of(path)))
}

/// The transcripts of one folder, by the `uuid` of their first message
/// ([`first_uuid`]). A transcript continues an earlier one only if it
/// repeats the earlier conversation at its start ([`continues`] checks
/// every line), its first message included; so that one `uuid` is all of
/// a sibling that has to be read to find the candidates (reading each
/// sibling's 64-line head was a tenth of an import).
#[derive(Debug, Default)]
pub(crate) struct Firsts {
    files: Vec<Sibling>,
    /// Each first `uuid`: the files (indices into `files`) starting with it.
    by_uuid: HashMap<String, Vec<usize>>,
}

#[derive(Debug)]
struct Sibling {
    path: PathBuf,
    stem: String,
    modified: std::time::SystemTime,
}

/// A transcript's first lines, as far as resumes go.
#[derive(Debug, Default)]
struct Head {
    /// The `sessionId`s, each once, in the order met.
    session_ids: Vec<String>,
    uuids: HashSet<String>,
}

impl Firsts {
    /// The first `uuid`s of `folder`'s transcripts.
    pub(crate) fn of_folder(folder: &Path) -> Firsts {
        let mut firsts = Firsts::default();
        let Ok(dir) = std::fs::read_dir(folder) else {
            return firsts;
        };
        for path in dir.flatten().map(|e| e.path()) {
            if path.extension().is_none_or(|x| x != "jsonl") {
                continue;
            }
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            let Ok(modified) = std::fs::metadata(&path).and_then(|m| m.modified()) else {
                continue;
            };
            let Some(uuid) = first_uuid(&path) else {
                continue;
            };
            let i = firsts.files.len();
            firsts.by_uuid.entry(uuid).or_default().push(i);
            firsts.files.push(Sibling {
                stem: stem.to_owned(),
                path,
                modified,
            });
        }
        firsts
    }
}

/// The `uuid` a transcript is found by as the earlier one of a resume:
/// that of its first message (a `user` or `assistant` line), which a
/// resume repeats whatever else it leaves out (hook progress lines come
/// first in newer transcripts, and may not be repeated), else that of its
/// first line with one; among its first [`HEAD_LINES`] lines, read a line
/// at a time (most transcripts have it on their first few lines).
fn first_uuid(path: &Path) -> Option<String> {
    /// The two keys looked at, without building the rest of the line
    /// (values, so that a key of another type is passed over).
    #[derive(serde::Deserialize)]
    struct Line {
        uuid: Option<Value>,
        #[serde(rename = "type")]
        kind: Option<Value>,
    }
    let (file, _) = crucible_core::store::safe_file::open_regular(path, u64::MAX).ok()?;
    let mut reader = BufReader::with_capacity(16 * 1024, file);
    let mut bytes = Vec::new();
    let mut first = None;
    for _ in 0..HEAD_LINES {
        bytes.clear();
        if reader.read_until(b'\n', &mut bytes).unwrap_or(0) == 0 {
            break;
        }
        // Read as the import reads a line (bytes that are not UTF-8
        // replaced, lone surrogates mended), so that the hooks and the
        // import agree on a damaged transcript.
        let text = String::from_utf8_lossy(&bytes);
        // Objects only: serde would read `["a"]` as a `Line` too.
        if !text.trim_start().starts_with('{') {
            continue;
        }
        let (uuid, message) = match serde_json::from_str::<Line>(&text) {
            Ok(Line {
                uuid: Some(Value::String(uuid)),
                kind,
            }) => (uuid, is_message_kind(kind.as_ref().and_then(Value::as_str))),
            Ok(_) => continue,
            Err(_) => match crate::transcript::json_line(&text) {
                Ok(v) => match v.get("uuid").and_then(Value::as_str) {
                    Some(u) => (u.to_owned(), is_message(&v)),
                    None => continue,
                },
                Err(_) => continue,
            },
        };
        if message {
            return Some(uuid);
        }
        first.get_or_insert(uuid);
    }
    first
}

/// The JSON lines among the first [`HEAD_LINES`] lines of a transcript,
/// with their line numbers, read as the import reads them.
fn head_lines(path: &Path) -> Vec<(usize, Value)> {
    let Ok((file, _)) = crucible_core::store::safe_file::open_regular(path, u64::MAX) else {
        return Vec::new();
    };
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut bytes = Vec::new();
    let mut lines = Vec::new();
    for n in 1..=HEAD_LINES {
        bytes.clear();
        if reader.read_until(b'\n', &mut bytes).unwrap_or(0) == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&bytes);
        if text.trim().is_empty() {
            continue;
        }
        if let Ok(v) = crate::transcript::json_line(&text) {
            lines.push((n, v));
        }
    }
    lines
}

impl Head {
    /// The head of a transcript from its lines read (line numbers from 1):
    /// the `sessionId`s and `uuid`s of the objects among the first
    /// [`HEAD_LINES`].
    fn of_lines(lines: &[(usize, Value)]) -> Head {
        let mut head = Head::default();
        for (_, v) in lines.iter().take_while(|(n, _)| *n <= HEAD_LINES) {
            if let Some(Value::String(sid)) = v.get("sessionId")
                && !head.session_ids.contains(sid)
            {
                head.session_ids.push(sid.clone());
            }
            if let Some(Value::String(uuid)) = v.get("uuid") {
                head.uuids.insert(uuid.clone());
            }
        }
        head
    }
}

fn folder_of(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}

/// [`earlier_sessions`] among the transcripts of `firsts` (the folder of
/// `path`, whose head is `own`): the other `sessionId` named in its head,
/// then the transcripts beside it whose first message its head repeats,
/// newest first.
fn earlier_among(path: &Path, current: &str, own: &Head, firsts: &Firsts) -> Vec<String> {
    let mut found: Vec<String> = own
        .session_ids
        .iter()
        .find(|sid| *sid != current)
        .cloned()
        .into_iter()
        .collect();
    let mut sharing: Vec<usize> = own
        .uuids
        .iter()
        .filter_map(|u| firsts.by_uuid.get(u))
        .flatten()
        .copied()
        .filter(|&i| firsts.files[i].path != path && firsts.files[i].stem != current)
        .collect();
    sharing.sort_unstable();
    sharing.dedup();
    let mut siblings: Vec<&Sibling> = sharing.into_iter().map(|i| &firsts.files[i]).collect();
    siblings.sort_by_key(|f| std::cmp::Reverse(f.modified));
    found.extend(siblings.into_iter().map(|f| f.stem.clone()));
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

/// The transcript `path` (whose JSON lines are `lines`) continues, found
/// as the hooks find it ([`earlier_sessions`]), for an import. The hooks
/// know which transcript is the new one (the one `--resume` started); an
/// import has both, and they share their first lines: the earlier is the
/// one whose every line from its first message on the other repeats (the
/// hook progress lines before it may not be), the longest such when
/// several are (a chain A → B → C: C continues B).
pub(crate) fn continues(
    path: &Path,
    lines: &[(usize, Value)],
    siblings: &PerFolder<Firsts>,
) -> Continues {
    let Some(current) = path.file_stem().and_then(|s| s.to_str()) else {
        return Continues::Nothing;
    };
    let own = Head::of_lines(lines);
    let earlier = siblings.with(folder_of(path), Firsts::of_folder, |firsts| {
        earlier_among(path, current, &own, firsts)
    });
    let Some(first) = earlier.first().cloned() else {
        return Continues::Nothing;
    };
    let ours: HashSet<&str> = lines.iter().filter_map(|(_, v)| line_key(v)).collect();
    let dir = path.parent().unwrap_or(Path::new("."));
    let best = earlier
        .into_iter()
        .filter_map(|id| {
            let theirs_path = dir.join(format!("{id}.jsonl"));
            let (theirs, required) = keys(&theirs_path);
            // It repeats the earlier conversation and goes on with a message
            // of its own (a copy, or a transcript the other one repeats,
            // does not; nor can two transcripts each continue the other).
            let repeated = !required.is_empty()
                && required.iter().all(|u| ours.contains(u.as_str()))
                && lines.iter().any(|(_, v)| {
                    is_message(v) && line_key(v).is_some_and(|k| !theirs.contains(k))
                });
            repeated.then_some((theirs_path, id, theirs))
        })
        .max_by_key(|(_, _, theirs)| theirs.len());
    match best {
        Some((path, id, uuids)) => Continues::Beside { path, id, uuids },
        // Lines under another session id with no transcript of it here:
        // the repeated lines stay (nothing else holds them). Lines that
        // only share `uuid`s with a longer transcript are not a resume.
        None if !dir.join(format!("{first}.jsonl")).is_file() && names(lines, &first) => {
            Continues::Missing(first)
        }
        None => Continues::Nothing,
    }
}

/// The transcript beside `path` that it continues, if any.
pub(crate) fn continues_file(path: &Path) -> Option<PathBuf> {
    let lines = read_all_lines(path);
    match continues(path, &lines, &PerFolder::default()) {
        Continues::Beside { path, .. } => Some(path),
        _ => None,
    }
}

/// What tells a line of a transcript from the others: its `uuid`, or a
/// file-history snapshot's `messageId` (snapshots have no `uuid`, and a
/// resumed transcript repeats them too).
pub(crate) fn line_key(v: &Value) -> Option<&str> {
    v.get("uuid")
        .or_else(|| {
            (v.get("type")?.as_str()? == "file-history-snapshot")
                .then(|| v.get("messageId"))
                .flatten()
        })?
        .as_str()
}

/// Every JSON line of a transcript, with its line number, read as the
/// import reads one (bytes that are not UTF-8 replaced, lone surrogates
/// mended, a line that does not parse left out): a transcript and the one
/// it may continue must be read alike, or a damaged line can make each
/// seem to repeat the other.
fn read_all_lines(path: &Path) -> Vec<(usize, Value)> {
    let Ok(bytes) = crate::read_source(path) else {
        return Vec::new();
    };
    let mut ignored = Vec::new();
    let text = crate::transcript::utf8_warned(path, &bytes, &mut ignored);
    crate::transcript::json_lines(path, &text, &mut ignored)
}

/// The keys ([`line_key`]) of every line of a transcript, and those of its
/// lines from its first message on (what a resume must repeat: the hook
/// progress lines a newer transcript starts with may not be), read as the
/// import reads it, a line at a time.
fn keys(path: &Path) -> (HashSet<String>, HashSet<String>) {
    let (mut all, mut from_first_message) = (HashSet::new(), HashSet::new());
    let Ok(bytes) = crate::read_source(path) else {
        return (all, from_first_message);
    };
    let mut ignored = Vec::new();
    let text = crate::transcript::utf8_warned(path, &bytes, &mut ignored);
    let mut met_message = false;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(v) = crate::transcript::json_line(line) else {
            continue;
        };
        met_message |= is_message(&v);
        if let Some(k) = line_key(&v) {
            if met_message {
                from_first_message.insert(k.to_owned());
            }
            all.insert(k.to_owned());
        }
    }
    (all, from_first_message)
}

/// A `user` or `assistant` line.
fn is_message(v: &Value) -> bool {
    is_message_kind(v.get("type").and_then(Value::as_str))
}

/// A line `type` of a message.
fn is_message_kind(kind: Option<&str>) -> bool {
    matches!(kind, Some("user" | "assistant"))
}

/// Whether `lines` hold lines of session `id` and lines of another
/// session after them: a copy of another session's transcript under
/// another name holds one session only, and continues nothing.
fn names(lines: &[(usize, Value)], id: &str) -> bool {
    let mut ids = lines
        .iter()
        .filter_map(|(_, v)| v.get("sessionId")?.as_str());
    ids.any(|s| s == id) && ids.any(|s| s != id)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`continues`] of the file at `path` as it is now.
    fn continues_in(path: &Path, siblings: &PerFolder<Firsts>) -> Continues {
        continues(path, &read_all_lines(path), siblings)
    }

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
    fn a_run_reads_the_first_lines_of_a_folder_once_for_all_its_transcripts() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("aaaa.jsonl");
        std::fs::write(&a, line("aaaa", "u1") + "\n").unwrap();
        let b = dir.path().join("bbbb.jsonl");
        std::fs::write(&b, line("bbbb", "u1") + "\n" + &line("bbbb", "u2") + "\n").unwrap();
        let c = dir.path().join("cccc.jsonl");
        std::fs::write(&c, line("cccc", "u9") + "\n").unwrap();
        let siblings = PerFolder::default();
        assert!(
            matches!(continues_in(&b, &siblings), Continues::Beside { id, .. } if id == "aaaa")
        );
        // A transcript written after the folder was read is not among its
        // siblings in this run, but is still read as the one asked about.
        let d = dir.path().join("dddd.jsonl");
        std::fs::write(&d, line("dddd", "u9") + "\n" + &line("dddd", "u10") + "\n").unwrap();
        for path in [&a, &c] {
            assert!(matches!(continues_in(path, &siblings), Continues::Nothing));
        }
        assert!(
            matches!(continues_in(&d, &siblings), Continues::Beside { id, .. } if id == "cccc")
        );
        assert_eq!(siblings.len(), 1);
        let read = siblings.with(dir.path(), |_| unreachable!("read once"), |f| f.files.len());
        assert_eq!(read, 3);
        // A new run reads the folder as it is now.
        assert_eq!(earlier_sessions(&c, "cccc"), ["dddd"]);
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
        match continues_in(&b, &PerFolder::default()) {
            Continues::Beside { path, id, uuids } => {
                assert_eq!((path, id.as_str()), (a.clone(), "aaaa"));
                assert_eq!(uuids, HashSet::from(["u1".to_owned()]));
            }
            other => panic!("{other:?}"),
        }
        // The earlier one continues nothing, though it shares a line.
        assert!(matches!(
            continues_in(&a, &PerFolder::default()),
            Continues::Nothing
        ));
        // Naming a session whose transcript is not here: kept whole.
        std::fs::remove_file(&a).unwrap();
        std::fs::write(&b, line("aaaa", "u1") + "\n" + &line("bbbb", "u2") + "\n").unwrap();
        assert!(
            matches!(continues_in(&b, &PerFolder::default()), Continues::Missing(id) if id == "aaaa")
        );
    }

    #[test]
    fn only_a_transcript_whose_first_line_is_repeated_can_be_the_earlier_one() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("aaaa.jsonl");
        std::fs::write(&a, line("aaaa", "u1") + "\n" + &line("aaaa", "u2") + "\n").unwrap();
        // b repeats a's second line but not its first: no resume of a (a
        // resume repeats every line), for the hooks as for an import.
        let b = dir.path().join("bbbb.jsonl");
        std::fs::write(&b, line("bbbb", "u2") + "\n" + &line("bbbb", "u3") + "\n").unwrap();
        assert!(earlier_sessions(&b, "bbbb").is_empty());
        assert!(matches!(
            continues_in(&b, &PerFolder::default()),
            Continues::Nothing
        ));
        // Repeating all of a, it is.
        let all = [line("bbbb", "u1"), line("bbbb", "u2"), line("bbbb", "u3")];
        std::fs::write(&b, all.join("\n") + "\n").unwrap();
        assert_eq!(earlier_sessions(&b, "bbbb"), ["aaaa"]);
        assert!(
            matches!(continues_in(&b, &PerFolder::default()), Continues::Beside { id, .. } if id == "aaaa")
        );
    }

    #[test]
    fn a_transcript_starting_with_a_snapshot_is_found_by_its_first_uuid() {
        let snapshot = r#"{"type":"file-history-snapshot","messageId":"m1","snapshot":{"trackedFileBackups":{}}}"#;
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("aaaa.jsonl");
        std::fs::write(&a, format!("{snapshot}\n{}\n", line("aaaa", "u1"))).unwrap();
        let b = dir.path().join("bbbb.jsonl");
        let lines = [snapshot.to_owned(), line("bbbb", "u1"), line("bbbb", "u2")];
        std::fs::write(&b, lines.join("\n") + "\n").unwrap();
        match continues_in(&b, &PerFolder::default()) {
            Continues::Beside { id, uuids, .. } => {
                assert_eq!(id, "aaaa");
                assert_eq!(uuids, HashSet::from(["m1".to_owned(), "u1".to_owned()]));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn hooks_and_import_find_a_resume_that_left_out_the_progress_lines() {
        // Newer transcripts start with hook progress lines, with uuids of
        // their own, that a resume may not repeat; the conversation it
        // does. The hooks find the earlier transcript by its first message
        // (review s6), and the import agrees (review s6b).
        let progress =
            r#"{"type":"progress","sessionId":"aaaa","uuid":"p1","data":{"type":"hook_progress"}}"#;
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("aaaa.jsonl");
        std::fs::write(&a, format!("{progress}\n{}", line("aaaa", "u1") + "\n")).unwrap();
        let b = dir.path().join("bbbb.jsonl");
        std::fs::write(&b, line("bbbb", "u1") + "\n" + &line("bbbb", "u2") + "\n").unwrap();
        assert_eq!(earlier_sessions(&b, "bbbb"), ["aaaa"]);
        match continues_in(&b, &PerFolder::default()) {
            // Every line of the earlier one is left to it, the progress
            // line too (had it been repeated).
            Continues::Beside { id, uuids, .. } => {
                assert_eq!(id, "aaaa");
                assert_eq!(uuids, HashSet::from(["p1".to_owned(), "u1".to_owned()]));
            }
            other => panic!("{other:?}"),
        }
        // The earlier one still continues nothing.
        assert!(matches!(
            continues_in(&a, &PerFolder::default()),
            Continues::Nothing
        ));
    }

    #[test]
    fn the_hooks_read_a_damaged_line_as_the_import_does() {
        // Review s6b: a byte that is not UTF-8 in the earlier transcript's
        // first message ended the hooks' reading; the import reads past it.
        let damaged = |sid: &str| {
            let mut l = line(sid, "u1").into_bytes();
            let at = l.windows(2).position(|w| w == b"hi").unwrap();
            l.splice(at..at, [0xff]);
            l.push(b'\n');
            l
        };
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("aaaa.jsonl");
        std::fs::write(&a, damaged("aaaa")).unwrap();
        let b = dir.path().join("bbbb.jsonl");
        let mut later = damaged("bbbb");
        later.extend(line("bbbb", "u2").into_bytes());
        later.push(b'\n');
        std::fs::write(&b, later).unwrap();
        assert_eq!(earlier_sessions(&b, "bbbb"), ["aaaa"]);
        assert!(
            matches!(continues_in(&b, &PerFolder::default()), Continues::Beside { id, .. } if id == "aaaa")
        );
    }

    #[test]
    fn two_transcripts_of_one_conversation_do_not_continue_each_other() {
        // The same messages after different progress lines: neither goes
        // on with a message of its own, so neither is a resume.
        let progress = |sid: &str, uuid: &str| {
            format!(r#"{{"type":"progress","sessionId":"{sid}","uuid":"{uuid}","data":{{}}}}"#)
        };
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("aaaa.jsonl");
        std::fs::write(
            &a,
            format!("{}\n{}", progress("aaaa", "pa"), line("aaaa", "u1") + "\n"),
        )
        .unwrap();
        let b = dir.path().join("bbbb.jsonl");
        std::fs::write(
            &b,
            format!("{}\n{}", progress("bbbb", "pb"), line("bbbb", "u1") + "\n"),
        )
        .unwrap();
        for path in [&a, &b] {
            assert!(matches!(
                continues_in(path, &PerFolder::default()),
                Continues::Nothing
            ));
        }
    }
}
