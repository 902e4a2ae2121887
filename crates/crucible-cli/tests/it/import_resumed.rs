//! A resumed Claude Code session (`--resume`, `--continue`) imported with
//! the one it continues: its transcript repeats the earlier one's lines
//! (their `uuid`s, under the earlier `sessionId` or its own), and the
//! import makes it a session of its own turns, linked to the earlier
//! session's (docs/capture.md, "Resumed sessions").

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The real transcript the earlier session is made of, and its session id.
const EARLIER: &str = "fixtures/real/claude-code/spotter/tool_heavy.jsonl";
const EARLIER_ID: &str = "d6e0bada-1959-4eec-a9d2-0bfade768d8f";
const LATER_ID: &str = "5b0c4e2a-7d1f-4a3b-9c8e-2f6a1d0b3e7c";
/// The prompt only the resumed transcript holds.
const NEW_PROMPT: &str = "RESUMED PROMPT: now run the tests";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn cru(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("cru").unwrap();
    c.arg("--dir").arg(dir).env_remove("CRU_SESSIONS_DIR");
    c
}

fn run(dir: &Path, args: &[&str]) -> String {
    let out = cru(dir).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout)
}

/// The earlier transcript and its continuation in `folder`: the copied
/// lines carry the earlier session id (`keep_id`) or the new one.
fn resumed_pair(folder: &Path, keep_id: bool) -> (PathBuf, PathBuf) {
    std::fs::create_dir_all(folder).unwrap();
    let earlier_text = std::fs::read_to_string(root().join(EARLIER)).unwrap();
    let earlier = folder.join(format!("{EARLIER_ID}.jsonl"));
    std::fs::write(&earlier, &earlier_text).unwrap();
    let mut later = if keep_id {
        earlier_text.clone()
    } else {
        earlier_text.replace(EARLIER_ID, LATER_ID)
    };
    let last = "29e6224a-ea4f-445c-964f-d2bbddd138d0";
    later.push_str(&format!(
        concat!(
            r#"{{"parentUuid":"{last}","isSidechain":false,"type":"user","sessionId":"{sid}","cwd":"/home/marco/projects/spotter","#,
            r#""message":{{"role":"user","content":"{prompt}"}},"uuid":"b0000000-0000-4000-8000-000000000001","timestamp":"2026-02-11T09:00:00.000Z"}}"#,
            "\n",
            r#"{{"parentUuid":"b0000000-0000-4000-8000-000000000001","isSidechain":false,"type":"assistant","sessionId":"{sid}","requestId":"req_resumed_1","#,
            r#""message":{{"id":"msg_resumed_1","role":"assistant","model":"claude-opus-4-6","content":[{{"type":"text","text":"All tests pass."}}],"#,
            r#""usage":{{"input_tokens":1000,"output_tokens":50,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}},"#,
            r#""uuid":"b0000000-0000-4000-8000-000000000002","timestamp":"2026-02-11T09:00:05.000Z"}}"#,
            "\n"
        ),
        last = last,
        sid = LATER_ID,
        prompt = NEW_PROMPT,
    ));
    let later_path = folder.join(format!("{LATER_ID}.jsonl"));
    std::fs::write(&later_path, later).unwrap();
    (earlier, later_path)
}

/// The session files of `dir`, by the transcript they were imported from.
fn sessions(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let id = field(&text, "session_id").unwrap().to_owned();
            (id, text)
        })
        .collect();
    files.sort();
    files
}

fn field<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}: ")))
        .map(|v| v.trim_matches('"').trim_matches('\''))
}

/// Two sessions: the earlier one's turns once, the resumed one holding
/// only its own, linked to the earlier one (key and a first block).
fn assert_linked_pair(dir: &Path) {
    let files = sessions(dir);
    assert_eq!(
        files.len(),
        2,
        "{:#?}",
        files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    let (later, earlier): (Vec<_>, Vec<_>) =
        files.iter().partition(|(_, t)| t.contains(NEW_PROMPT));
    let (later, earlier) = (&later[0].1, &earlier[0]);
    let earlier_id = &earlier.0;
    assert_eq!(
        field(later, "resumed_from"),
        Some(earlier_id.as_str()),
        "{later}"
    );
    let first_block = later.split("\n## ").nth(1).unwrap();
    assert!(
        first_block.contains(&format!("[[{earlier_id}]]")),
        "the first block links the earlier session: {first_block}"
    );
    // The earlier turns are not repeated: one prompt, the new one.
    assert_eq!(later.matches("> [!user]").count(), 1, "{later}");
    assert!(!earlier.1.contains(NEW_PROMPT));
    assert!(
        later.contains(LATER_ID),
        "its own Claude session id: {later}"
    );
    cru(dir).args(["session", "validate"]).assert().success();
}

fn usage(dir: &Path) -> String {
    run(dir, &["usage", "daily", "--json"])
}

fn resumed_pair_imports_as_two_linked_sessions(keep_id: bool) {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("projects/-home-marco-projects-spotter");
    let (_, later) = resumed_pair(&folder, keep_id);
    let dir = tmp.path().join("sessions");
    let said = run(&dir, &["session", "import", folder.to_str().unwrap()]);
    assert!(said.contains("2 created"), "{said}");
    assert_linked_pair(&dir);
    let before = sessions(&dir);
    // A forced re-import gives the same: no split, no duplicate.
    run(
        &dir,
        &["session", "import", "--force", folder.to_str().unwrap()],
    );
    assert_linked_pair(&dir);
    let ids = |f: &[(String, String)]| f.iter().map(|(i, _)| i.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&sessions(&dir)), ids(&before));
    // The earlier session's requests are counted once (ccusage's rule):
    // as much as the resumed transcript alone, which holds every request
    // once.
    let alone = tmp.path().join("alone");
    let alone_dir = tmp.path().join("alone-sessions");
    std::fs::create_dir_all(&alone).unwrap();
    std::fs::copy(&later, alone.join(later.file_name().unwrap())).unwrap();
    let said = run(&alone_dir, &["session", "import", alone.to_str().unwrap()]);
    assert!(said.contains("1 created"), "{said}");
    assert_eq!(usage(&dir), usage(&alone_dir));
}

#[test]
fn a_resumed_transcript_under_its_own_id_is_its_own_turns_linked() {
    resumed_pair_imports_as_two_linked_sessions(false);
}

#[test]
fn a_resumed_transcript_under_the_earlier_id_is_its_own_turns_linked() {
    resumed_pair_imports_as_two_linked_sessions(true);
}

#[test]
fn the_resumed_transcript_alone_imports_the_earlier_one_first() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("projects/-p");
    let (_, later) = resumed_pair(&folder, false);
    let dir = tmp.path().join("sessions");
    // Only the resumed one named: the earlier is imported with it, first.
    run(&dir, &["session", "import", later.to_str().unwrap()]);
    assert_linked_pair(&dir);
    // Its own import later finds it stored.
    let said = run(&dir, &["session", "import", folder.to_str().unwrap()]);
    assert!(said.contains("0 created"), "{said}");
    assert_linked_pair(&dir);
}

/// The text of a session file and of its journal (what hooks append).
fn with_journal(path: &Path) -> String {
    let journal = path.with_file_name(format!(
        ".{}.journal",
        path.file_name().unwrap().to_string_lossy()
    ));
    std::fs::read_to_string(path).unwrap() + &std::fs::read_to_string(journal).unwrap_or_default()
}

/// The hooks record the earlier session and its resumed continuation as
/// one session; importing both transcripts afterwards (and again with
/// `--force`) keeps that one session, the import filling it in.
#[test]
fn a_pair_the_hooks_recorded_as_one_stays_one_when_imported() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("sessions"), tmp.path().join("state"));
    let folder = tmp.path().join("projects/-home-marco-projects-spotter");
    let (earlier, later) = resumed_pair(&folder, false);
    super::hook::replay_resumed(
        &dir,
        &state,
        (EARLIER_ID, &earlier),
        (LATER_ID, &later),
        NEW_PROMPT,
    );
    assert_eq!(sessions(&dir).len(), 1, "the hooks make one session");
    for force in [false, true] {
        let mut args = vec!["session", "import", folder.to_str().unwrap()];
        if force {
            args.push("--force");
        }
        let said = run(&dir, &args);
        assert!(said.contains("0 created"), "{said}");
        let files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        assert_eq!(files.len(), 1, "still one session: {files:?}");
        let text = with_journal(&files[0]);
        assert!(text.contains("start phoenix in background"), "{text}");
        let prompt = format!("> \"{NEW_PROMPT}\"");
        assert_eq!(text.matches(&prompt).count(), 1, "{text}");
        assert_eq!(
            text.matches("> \"start phoenix in background\"").count(),
            1,
            "{text}"
        );
        assert!(!text.contains("resumed_from"), "{text}");
        cru(&dir).args(["session", "validate"]).assert().success();
    }
}

/// A transcript with a byte that is not UTF-8 beside the one it continues
/// (review s6): each was read by a different reader, each then seemed to
/// repeat the other, and storing "the earlier one first" recursed until
/// the stack overflowed, aborting every import of the folder.
#[test]
fn a_damaged_line_in_a_resumed_transcript_makes_no_cycle() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("projects/-home-x");
    std::fs::create_dir_all(&folder).unwrap();
    let line = |kind: &str, sid: &str, uuid: &str, second: u32, text: &str| {
        format!(
            r#"{{"type":"{kind}","sessionId":"{sid}","uuid":"{uuid}","timestamp":"2025-01-01T00:00:0{second}Z","message":{{"role":"{kind}","content":"{text}"}}}}"#
        ) + "\n"
    };
    let a = "aaaaaaaa-0000-4000-8000-000000000001";
    let b = "bbbbbbbb-0000-4000-8000-000000000002";
    let earlier = line("user", a, "u1", 1, "hello") + &line("assistant", a, "u2", 2, "hi");
    std::fs::write(folder.join(format!("{a}.jsonl")), earlier).unwrap();
    let mut later = line("user", b, "u1", 1, "hello").into_bytes();
    later.extend_from_slice(b"{\"type\":\"junk\",\"x\":\"\xff\"}\n");
    later.extend(line("assistant", b, "u2", 2, "hi").into_bytes());
    later.extend(line("user", b, "u3", 3, "more").into_bytes());
    std::fs::write(folder.join(format!("{b}.jsonl")), later).unwrap();
    let sessions = tmp.path().join("sessions");
    // The earlier transcript alone, then the folder: both end, and the
    // later transcript is the one that continues the earlier.
    let out = cru(&sessions)
        .args(["session", "import"])
        .arg(folder.join(format!("{a}.jsonl")))
        .output()
        .unwrap();
    assert!(out.status.code().is_some(), "killed: {out:?}");
    let out = cru(&sessions)
        .args(["session", "import"])
        .arg(&folder)
        .output()
        .unwrap();
    assert!(out.status.code().is_some(), "killed: {out:?}");
    let files: Vec<String> = std::fs::read_dir(&sessions)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    let later_session = files
        .iter()
        .map(|f| std::fs::read_to_string(sessions.join(f)).unwrap())
        .find(|t| t.contains("more"))
        .expect("the later transcript's session");
    assert!(later_session.contains("resumed_from:"), "{later_session}");
}
