//! Which Claude Code session a resumed one continues. `--resume` and
//! `--continue` start a new transcript (a new session id) that first
//! repeats the earlier conversation's lines, with their `uuid`s, under
//! either the earlier `sessionId` or the new one (both are seen in the
//! wild). So the earlier session is the other `sessionId` in the new
//! transcript's head, else the transcript beside it whose head holds one
//! of the same `uuid`s (the newest such: a chain A → B → C continues B).

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// How many lines of a transcript are looked at (its repeated history
/// comes first).
const HEAD_LINES: usize = 64;

/// The Claude Code sessions `path` (the transcript of session `current`)
/// may continue, the likeliest first. The hooks (crucible-capture) and the
/// importer both ask this, so that they agree on what a resume is.
pub fn earlier_sessions(path: &Path, current: &str) -> Vec<String> {
    earlier_among(path, current, &Heads::of_folder(folder_of(path)))
}

/// The heads of the transcripts of the folders an import reads, each
/// folder read once. Asking every transcript's siblings anew read n² heads
/// for n transcripts in one project folder (1,000 transcripts: 8 s instead
/// of 1 s). One per import run: a transcript written after its folder was
/// read is not seen as an earlier one until the next run, as a transcript
/// written after the run's listing is not imported until then.
#[derive(Debug, Default)]
pub struct Siblings {
    folders: Mutex<HashMap<PathBuf, Arc<OnceLock<Heads>>>>,
}

impl Siblings {
    /// The heads of `folder`'s transcripts, read by the first thread that
    /// asks (the others wait for it).
    fn of(&self, folder: &Path) -> Arc<OnceLock<Heads>> {
        let mut folders = self
            .folders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(folders.entry(folder.to_owned()).or_default())
    }
}

/// The transcripts of one folder: what of their first lines says which
/// session they continue.
#[derive(Debug, Default)]
pub(crate) struct Heads {
    files: Vec<HeadFile>,
    /// Each head `uuid`: the files (indices into `files`) holding it.
    by_uuid: HashMap<String, Vec<usize>>,
    by_path: HashMap<PathBuf, usize>,
}

#[derive(Debug)]
struct HeadFile {
    stem: String,
    modified: std::time::SystemTime,
    head: Head,
}

/// A transcript's first lines, as far as resumes go.
#[derive(Debug, Default)]
struct Head {
    /// The `sessionId`s, each once, in the order met.
    session_ids: Vec<String>,
    uuids: HashSet<String>,
}

impl Heads {
    /// The heads of `folder`'s transcripts, read on every core: the import's
    /// other threads wait for them, and a head is most of a short
    /// transcript.
    fn of_folder(folder: &Path) -> Heads {
        let mut heads = Heads::default();
        let Ok(dir) = std::fs::read_dir(folder) else {
            return heads;
        };
        let found: Vec<(PathBuf, String, std::time::SystemTime)> = dir
            .flatten()
            .map(|e| e.path())
            .filter(|path| path.extension().is_some_and(|x| x == "jsonl"))
            .filter_map(|path| {
                let stem = path.file_stem()?.to_str()?.to_owned();
                let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
                Some((path, stem, modified))
            })
            .collect();
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let per = found.len().div_ceil(threads).max(1);
        let read: Vec<Head> = std::thread::scope(|scope| {
            let parts: Vec<_> = found
                .chunks(per)
                .map(|part| {
                    scope.spawn(|| {
                        part.iter()
                            .map(|(p, _, _)| Head::read(p))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            parts
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        for ((path, stem, modified), head) in found.into_iter().zip(read) {
            let i = heads.files.len();
            for u in &head.uuids {
                heads.by_uuid.entry(u.clone()).or_default().push(i);
            }
            heads.by_path.insert(path, i);
            heads.files.push(HeadFile {
                stem,
                modified,
                head,
            });
        }
        heads
    }
}

impl Head {
    /// The first lines of a transcript that read as JSON objects.
    fn read(path: &Path) -> Head {
        /// The two keys looked at, without building the rest of the line
        /// (values, so that a key of another type leaves the line's other
        /// key readable).
        #[derive(serde::Deserialize)]
        struct Line {
            #[serde(rename = "sessionId")]
            session_id: Option<serde_json::Value>,
            uuid: Option<serde_json::Value>,
        }
        let mut head = Head::default();
        let Ok((file, _)) = crucible_core::store::safe_file::open_regular(path, u64::MAX) else {
            return head;
        };
        // Bytes read as they come and checked with the SIMD UTF-8 check: a
        // head is most of a short transcript, and `lines()`'s check was a
        // third of reading it. A line that is not UTF-8 ends the head, as
        // it ended `lines()`.
        let mut reader = BufReader::with_capacity(64 * 1024, file);
        let mut bytes = Vec::new();
        for _ in 0..HEAD_LINES {
            bytes.clear();
            if reader.read_until(b'\n', &mut bytes).unwrap_or(0) == 0 {
                break;
            }
            let Ok(text) = simdutf8::basic::from_utf8(&bytes) else {
                break;
            };
            // Objects only: serde would read `["a", "b"]` as a `Line` too.
            if !text.trim_start().starts_with('{') {
                continue;
            }
            let Ok(line) = serde_json::from_str::<Line>(text) else {
                continue;
            };
            if let Some(serde_json::Value::String(sid)) = line.session_id
                && !head.session_ids.contains(&sid)
            {
                head.session_ids.push(sid);
            }
            if let Some(serde_json::Value::String(uuid)) = line.uuid {
                head.uuids.insert(uuid);
            }
        }
        head
    }
}

fn folder_of(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}

/// [`earlier_sessions`] among the transcripts of `heads` (the folder of
/// `path`): the other `sessionId` named in its head, then the transcripts
/// beside it whose heads share one of its `uuid`s, newest first.
fn earlier_among(path: &Path, current: &str, heads: &Heads) -> Vec<String> {
    let read;
    let own_index = heads.by_path.get(path).copied();
    let own = if let Some(i) = own_index {
        &heads.files[i].head
    } else {
        read = Head::read(path);
        &read
    };
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
        .filter_map(|u| heads.by_uuid.get(u))
        .flatten()
        .copied()
        .filter(|&i| Some(i) != own_index && heads.files[i].stem != current)
        .collect();
    sharing.sort_unstable();
    sharing.dedup();
    let mut siblings: Vec<&HeadFile> = sharing.into_iter().map(|i| &heads.files[i]).collect();
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

/// The transcript `path` continues, found as the hooks find it
/// ([`earlier_sessions`]), for an import. The hooks know which transcript
/// is the new one (the one `--resume` started); an import has both, and
/// they share their first lines: the earlier is the one whose every line
/// the other repeats, the longest such when several are (a chain A → B →
/// C: C continues B).
pub(crate) fn continues(path: &Path, siblings: &Siblings) -> Continues {
    let Some(current) = path.file_stem().and_then(|s| s.to_str()) else {
        return Continues::Nothing;
    };
    let folder = siblings.of(folder_of(path));
    let heads = folder.get_or_init(|| Heads::of_folder(folder_of(path)));
    let earlier = earlier_among(path, current, heads);
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
    match continues(path, &Siblings::default()) {
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
    fn a_run_reads_the_heads_of_a_folder_once_for_all_its_transcripts() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("aaaa.jsonl");
        std::fs::write(&a, line("aaaa", "u1") + "\n").unwrap();
        let b = dir.path().join("bbbb.jsonl");
        std::fs::write(&b, line("bbbb", "u1") + "\n" + &line("bbbb", "u2") + "\n").unwrap();
        let c = dir.path().join("cccc.jsonl");
        std::fs::write(&c, line("cccc", "u9") + "\n").unwrap();
        let siblings = Siblings::default();
        assert!(matches!(continues(&b, &siblings), Continues::Beside { id, .. } if id == "aaaa"));
        // A transcript written after the folder was read is not among its
        // heads in this run, but is still read as the one asked about.
        let d = dir.path().join("dddd.jsonl");
        std::fs::write(&d, line("dddd", "u9") + "\n" + &line("dddd", "u10") + "\n").unwrap();
        for path in [&a, &c] {
            assert!(matches!(continues(path, &siblings), Continues::Nothing));
        }
        assert!(matches!(continues(&d, &siblings), Continues::Beside { id, .. } if id == "cccc"));
        let folders = siblings.folders.lock().unwrap();
        assert_eq!(folders.len(), 1);
        let heads = folders.values().next().unwrap().get().unwrap();
        assert_eq!(heads.files.len(), 3, "{heads:?}");
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
        match continues(&b, &Siblings::default()) {
            Continues::Beside { path, id, uuids } => {
                assert_eq!((path, id.as_str()), (a.clone(), "aaaa"));
                assert_eq!(uuids, HashSet::from(["u1".to_owned()]));
            }
            other => panic!("{other:?}"),
        }
        // The earlier one continues nothing, though it shares a line.
        assert!(matches!(
            continues(&a, &Siblings::default()),
            Continues::Nothing
        ));
        // Naming a session whose transcript is not here: kept whole.
        std::fs::remove_file(&a).unwrap();
        std::fs::write(&b, line("aaaa", "u1") + "\n" + &line("bbbb", "u2") + "\n").unwrap();
        assert!(
            matches!(continues(&b, &Siblings::default()), Continues::Missing(id) if id == "aaaa")
        );
    }
}
