//! The recorder with the markdown codec: what it writes, when, and that
//! concurrency and crashes leave whole files with every returned event.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crucible_core::store::journal;
use crucible_core::{
    CalloutKind, RecordError, Recorder, SaveMode, SessionConfig, SessionStatus, SessionStore,
    StartOptions, SubagentMode,
};
use crucible_parser::{MarkdownCodec, check_session};

fn config(save: SaveMode) -> SessionConfig {
    SessionConfig {
        save,
        ..SessionConfig::default()
    }
}

fn store(dir: &Path) -> SessionStore<MarkdownCodec> {
    SessionStore::new(dir, MarkdownCodec)
}

fn opts(title: &str) -> StartOptions {
    StartOptions {
        title: Some(title.into()),
        channel: Some("dev".into()),
        agent: Some("coder@1.0".parse().unwrap()),
        model: Some("test-model".into()),
        parent: None,
        cwd: None,
    }
}

/// The file on disk parses with no error and no warning.
fn assert_valid(path: &Path) {
    let checked = check_session(path, &std::fs::read(path).unwrap());
    assert!(checked.errors.is_empty(), "{:?}", checked.errors);
    assert!(checked.warnings.is_empty(), "{:?}", checked.warnings);
}

#[test]
fn start_creates_the_file_at_once() {
    let t = tempfile::tempdir().unwrap();
    let s = store(t.path());
    let rec = Recorder::start(&s, &opts("Fix the parser"), &config(SaveMode::Phase)).unwrap();
    let text = std::fs::read_to_string(rec.path()).unwrap();
    assert!(
        rec.id().as_str().ends_with("-fix-the-parser"),
        "{}",
        rec.id()
    );
    assert!(
        text.contains(
            "status: active\nchannel: dev\nparticipants:\n  - coder@1.0\nmodel: test-model\n"
        ),
        "{text}"
    );
    assert!(text.contains("\n# Fix the parser\n"));
    assert_valid(rec.path());
}

#[test]
fn a_whole_session_is_recorded_and_validates() {
    let t = tempfile::tempdir().unwrap();
    let s = store(t.path());
    let mut rec = Recorder::start(&s, &opts("Whole"), &config(SaveMode::Phase)).unwrap();
    let coder = Some("coder@1.0".parse().unwrap());
    rec.phase("Research", coder, None).unwrap();
    rec.tool_call("grep", "-rn session crates/", Some("12 matches"), false)
        .unwrap();
    rec.tool_call(
        "bash",
        "cargo build",
        Some(&format!("error: {}", "x".repeat(200))),
        true,
    )
    .unwrap();
    rec.error("Build failed", Some("added the missing import"))
        .unwrap();
    rec.decision("Keep the parser in its own crate.").unwrap();
    rec.nested_phase(
        "Check",
        Some("reviewer@2.0".parse().unwrap()),
        Some("review".into()),
    )
    .unwrap();
    rec.user("no, use the other file", Some("switched to lib.rs"))
        .unwrap();
    rec.tokens(1200).unwrap();
    rec.tasks(vec![
        serde_json::from_str(r#"{"id":"1","content":"ship","status":"in_progress"}"#).unwrap(),
    ])
    .unwrap();
    rec.pause(None).unwrap();
    let path = rec.path().to_owned();
    drop(rec);

    assert!(
        !journal::journal_path(&path).exists(),
        "pause folds the journal"
    );
    assert_valid(&path);
    let log = s.load_path(&path).unwrap();
    assert_eq!(log.frontmatter.status, SessionStatus::Paused);
    assert_eq!(log.frontmatter.resume_point.unwrap().to_string(), "phase-2");
    assert_eq!(log.frontmatter.tokens_used, Some(1200));
    assert_eq!(
        log.frontmatter.participants.len(),
        2,
        "the reviewer joined when it spoke"
    );
    assert_eq!(log.phase_count(), 2);
    assert_eq!(
        log.phase_parent(crucible_core::PhaseId::new(2).unwrap())
            .unwrap()
            .number(),
        1
    );
    let calls: Vec<_> = log.tool_calls().collect();
    assert_eq!(calls.len(), 2);
    let summary = calls[1].summary.as_deref().unwrap();
    assert_eq!(summary.chars().count(), 100);
    assert!(summary.ends_with('…') && calls[1].failed);
    let kinds: Vec<_> = log.callouts().map(crucible_core::Callout::kind).collect();
    assert_eq!(
        kinds,
        [CalloutKind::Error, CalloutKind::Decision, CalloutKind::User]
    );
    assert_eq!(log.tasks().unwrap()[0].content, "ship");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("## Research @coder@1.0 #dev\n<!-- phase: started="),
        "{text}"
    );
    assert!(text.contains("### Check @reviewer@2.0 #review"), "{text}");
}

#[test]
fn the_phase_policy_writes_at_boundaries_and_the_tool_policy_at_once() {
    let t = tempfile::tempdir().unwrap();
    let s = store(t.path());
    let mut rec = Recorder::start(&s, &opts("Policies"), &config(SaveMode::Phase)).unwrap();
    rec.phase("One", None, None).unwrap();
    rec.tool_call("ls", "", None, false).unwrap();
    // Another reader sees the phase (a flush point) but not the buffered call.
    assert_eq!(s.load_path(rec.path()).unwrap().tool_calls().count(), 0);
    rec.phase("Two", None, None).unwrap();
    assert_eq!(s.load_path(rec.path()).unwrap().tool_calls().count(), 1);

    let mut rec = Recorder::start(&s, &opts("Tool policy"), &config(SaveMode::Tool)).unwrap();
    rec.tool_call("ls", "", None, false).unwrap();
    assert_eq!(s.load_path(rec.path()).unwrap().tool_calls().count(), 1);
    assert!(
        journal::journal_path(rec.path()).exists(),
        "small events stay in the journal"
    );
}

#[test]
fn linked_and_embedded_children_report_back() {
    let t = tempfile::tempdir().unwrap();
    let s = store(t.path());
    let mut parent = Recorder::start(&s, &opts("Parent"), &config(SaveMode::Phase)).unwrap();
    parent.phase("Delegate", None, None).unwrap();
    for mode in [SubagentMode::Link, SubagentMode::Embed] {
        let mut child = parent
            .start_subagent(
                Some(mode),
                "researcher@1.2".parse().unwrap(),
                Some("small".into()),
                "Look it up.",
            )
            .unwrap();
        child
            .phase("Search", Some("researcher@1.2".parse().unwrap()), None)
            .unwrap();
        child
            .tool_call("web_search", "rust flock", Some("5 results"), false)
            .unwrap();
        child.tokens(300).unwrap();
        child
            .end(SessionStatus::Completed, Some("Use flock."))
            .unwrap();
        let child_log = s.load_path(child.path()).unwrap();
        assert_eq!(child_log.frontmatter.parent.as_ref(), Some(parent.id()));
        assert_valid(child.path());
    }
    parent.end(SessionStatus::Completed, None).unwrap();
    let log = s.load_path(parent.path()).unwrap();
    assert_eq!(log.frontmatter.subagents.len(), 2);
    assert!(
        log.frontmatter
            .subagents
            .iter()
            .all(|e| e.tokens == Some(300))
    );
    assert_eq!(
        log.frontmatter.tokens_used, None,
        "children's tokens are not counted twice"
    );
    let subs: Vec<_> = log.callouts().map(|c| c.subagent().unwrap()).collect();
    assert_eq!(subs[0].mode, SubagentMode::Link);
    assert_eq!(subs[1].mode, SubagentMode::Embed);
    assert!(
        subs.iter()
            .all(|c| c.summary.as_deref() == Some("Use flock."))
    );
    assert_valid(parent.path());
}

#[test]
fn an_ended_session_is_reopened_only_when_asked() {
    let t = tempfile::tempdir().unwrap();
    let s = store(t.path());
    let mut rec = Recorder::start(&s, &opts("Ended"), &config(SaveMode::Phase)).unwrap();
    rec.end(SessionStatus::Failed, None).unwrap();
    let id = rec.id().to_string();
    drop(rec);
    let err = Recorder::open(&s, &id, &config(SaveMode::Phase), false).unwrap_err();
    assert!(
        matches!(
            err,
            RecordError::Ended {
                status: SessionStatus::Failed,
                ..
            }
        ),
        "{err}"
    );
    let mut rec = Recorder::open(&s, &id, &config(SaveMode::Phase), true).unwrap();
    rec.decision("try again").unwrap();
    rec.close().unwrap();
    let log = s.load(&id).unwrap().1;
    assert_eq!(log.frontmatter.status, SessionStatus::Active);
    assert_eq!(log.frontmatter.ended, None);
}

#[test]
fn a_journal_line_that_cannot_be_read_is_never_folded_away() {
    let t = tempfile::tempdir().unwrap();
    let s = store(t.path());
    let mut rec = Recorder::start(&s, &opts("Foreign"), &config(SaveMode::Tool)).unwrap();
    rec.tool_call("ls", "", None, false).unwrap();
    let jpath = journal::journal_path(rec.path());
    let mut text = std::fs::read_to_string(&jpath).unwrap();
    text.push_str("{\"at\":\"2025-12-21T10:00:00Z\",\"event\":\"from_a_newer_cru\"}\n");
    std::fs::write(&jpath, &text).unwrap();
    // Reading still works, with what can be read.
    assert_eq!(s.load_path(rec.path()).unwrap().tool_calls().count(), 1);
    // Folding (here, on pause) refuses and keeps the journal.
    let err = rec.pause(None).unwrap_err().to_string();
    // Line 1 is the header, line 2 the call.
    assert!(err.contains("journal lines [3] cannot be read"), "{err}");
    assert!(
        std::fs::read_to_string(&jpath)
            .unwrap()
            .contains("from_a_newer_cru")
    );
}

/// Re-runs this test binary as a worker: `exact` names the test, `env` says what to do.
fn worker(exact: &str, env: &[(&str, String)]) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", exact, "--nocapture", "--test-threads", "1"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

const LOG_TO: &str = "CRU_TEST_LOG_TO";
const LOG_DIR: &str = "CRU_TEST_LOG_DIR";
const LOG_TAG: &str = "CRU_TEST_LOG_TAG";
const LOG_COUNT: &str = "CRU_TEST_LOG_COUNT";

/// As a worker: log tool calls to a session until told or killed, printing
/// `ok <n>` after each call returns.
fn run_logger_if_worker() -> bool {
    let Ok(id) = std::env::var(LOG_TO) else {
        return false;
    };
    let dir = std::env::var(LOG_DIR).unwrap();
    let tag = std::env::var(LOG_TAG).unwrap();
    let count: usize = std::env::var(LOG_COUNT).unwrap().parse().unwrap();
    let s = store(Path::new(&dir));
    let mut rec = Recorder::open(&s, &id, &config(SaveMode::Tool), false).unwrap();
    for n in 0..count {
        rec.tool_call("bash", &format!("{tag}-{n}"), Some("ok"), false)
            .unwrap();
        if n % 50 == 49 {
            rec.decision(&format!("{tag} reached {n}")).unwrap();
        }
        println!("ok {tag}-{n}");
    }
    true
}

/// A new, closed session to log to: its directory, store, id and path.
fn session_to_share(
    title: &str,
) -> (
    tempfile::TempDir,
    SessionStore<MarkdownCodec>,
    String,
    std::path::PathBuf,
) {
    let t = tempfile::tempdir().unwrap();
    let s = store(t.path());
    let rec = Recorder::start(&s, &opts(title), &config(SaveMode::Tool)).unwrap();
    let (id, path) = (rec.id().to_string(), rec.path().to_owned());
    drop(rec);
    (t, s, id, path)
}

/// A worker process that logs `count` calls tagged `tag` to session `id`.
fn logger(test: &str, dir: &Path, id: &str, tag: &str, count: usize) -> Command {
    worker(
        test,
        &[
            (LOG_TO, id.to_owned()),
            (LOG_DIR, dir.display().to_string()),
            (LOG_TAG, tag.to_owned()),
            (LOG_COUNT, count.to_string()),
        ],
    )
}

#[test]
fn eight_processes_log_1600_calls_to_one_session() {
    if run_logger_if_worker() {
        return;
    }
    let (t, s, id, path) = session_to_share("Shared");
    let children: Vec<_> = (0..8)
        .map(|w| {
            let test = "recorder::eight_processes_log_1600_calls_to_one_session";
            logger(test, t.path(), &id, &format!("w{w}"), 200)
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let log = s.load_path(&path).unwrap();
    let args: HashSet<String> = log.tool_calls().map(|c| c.args.clone()).collect();
    assert_eq!(args.len(), 1600);
    s.fold(&path).unwrap();
    assert_valid(&path);
    assert_eq!(s.load_path(&path).unwrap().tool_calls().count(), 1600);
}

/// Kills a logger at random moments: the session must always parse, and
/// every call that returned (printed `ok`) must be in it.
#[test]
fn sigkill_at_random_moments_loses_nothing_that_returned() {
    if run_logger_if_worker() {
        return;
    }
    let (t, s, id, path) = session_to_share("Crash");
    let mut seed: u64 = 0x5EED;
    let mut confirmed = HashSet::new();
    for trial in 0..100 {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mut child = worker(
            "recorder::sigkill_at_random_moments_loses_nothing_that_returned",
            &[
                (LOG_TO, id.clone()),
                (LOG_DIR, t.path().display().to_string()),
                (LOG_TAG, format!("t{trial}")),
                (LOG_COUNT, "1000000".into()),
            ],
        )
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .filter_map(|l| l.strip_prefix("ok ").map(str::to_owned))
                .collect::<Vec<_>>()
        });
        std::thread::sleep(Duration::from_millis(5 + (seed >> 33) % 40));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        confirmed.extend(reader.join().unwrap());
        let log = s
            .load_path(&path)
            .unwrap_or_else(|e| panic!("trial {trial}: session does not load: {e}"));
        let present: HashSet<String> = log.tool_calls().map(|c| c.args.clone()).collect();
        let missing: Vec<_> = confirmed.difference(&present).collect();
        assert!(
            missing.is_empty(),
            "trial {trial}: returned but missing: {missing:?}"
        );
        assert!(
            check_session(&path, &std::fs::read(&path).unwrap())
                .errors
                .is_empty()
        );
    }
    assert!(
        confirmed.len() > 100,
        "the logger got to run: {}",
        confirmed.len()
    );
}

/// The race behind a rare failure of
/// `hostile::store::an_editor_saving_during_folds_loses_neither_edits_nor_events`
/// (crucible-cli), made deterministic: an editor reads the file, is held up
/// between its last check and its rename (a loaded machine deschedules it)
/// while cru folds phases in, then saves its copy. Folded events stay in the
/// journal for the last `KEPT_SEGMENTS` folds (decision 0005), so the late
/// save loses none of them.
#[test]
fn an_editor_held_up_across_several_folds_loses_no_phase() {
    let later = ["Two", "Three", "Four", "Five"];
    assert_eq!(later.len(), journal::KEPT_SEGMENTS);
    for held_across in 1..=later.len() {
        let t = tempfile::tempdir().unwrap();
        let s = store(t.path());
        let mut rec = Recorder::start(&s, &opts("Late editor"), &config(SaveMode::Phase)).unwrap();
        rec.phase("One", None, None).unwrap();
        let path = rec.path().to_owned();
        // The editor reads the file and checks it is unchanged: then stalls.
        let mut editor_copy = std::fs::read_to_string(&path).unwrap();
        editor_copy.push_str("\nEditor note.\n");
        for name in &later[..held_across] {
            rec.phase(name, None, None).unwrap();
        }
        drop(rec);
        // The editor wakes and renames its copy over the file.
        let tmp = path.with_file_name(".editor.swp");
        std::fs::write(&tmp, &editor_copy).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        let log = s.load_path(&path).unwrap();
        let names: Vec<String> = log.phases().map(|(_, p)| p.name.clone()).collect();
        let want: Vec<&str> = std::iter::once("One")
            .chain(later[..held_across].iter().copied())
            .collect();
        assert_eq!(names, want, "held up across {held_across} folds");
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .contains("Editor note.")
        );
        // The next write folds the phases into the editor's copy, once.
        let mut rec =
            Recorder::open(&s, path.to_str().unwrap(), &config(SaveMode::Phase), false).unwrap();
        rec.phase("After", None, None).unwrap();
        drop(rec);
        let text = std::fs::read_to_string(&path).unwrap();
        for name in &want {
            assert_eq!(
                text.matches(&format!("## {name} ")).count(),
                1,
                "{name} in:\n{text}"
            );
        }
        assert!(text.contains("Editor note."), "{text}");
    }
}

#[test]
fn a_long_recording_keeps_only_its_last_folds() {
    let t = tempfile::tempdir().unwrap();
    let s = store(t.path());
    let mut rec = Recorder::start(&s, &opts("Long"), &config(SaveMode::Phase)).unwrap();
    for n in 0..40 {
        rec.phase(&format!("Phase {n}"), None, None).unwrap();
        rec.tool_call("ls", "", None, false).unwrap();
    }
    let jpath = journal::journal_path(rec.path());
    let kept = journal::read(&jpath).unwrap().unwrap().kept_segments();
    // Old folds go once twice the kept number have piled up.
    assert!(
        kept <= 2 * journal::KEPT_SEGMENTS,
        "{kept} folds kept in the journal"
    );
    assert_eq!(s.load_path(rec.path()).unwrap().phase_count(), 40);
}

#[test]
fn a_bad_line_in_a_kept_fold_is_not_read_but_never_dropped() {
    let t = tempfile::tempdir().unwrap();
    let s = store(t.path());
    let mut rec = Recorder::start(&s, &opts("Kept"), &config(SaveMode::Phase)).unwrap();
    rec.phase("One", None, None).unwrap();
    rec.phase("Two", None, None).unwrap();
    let jpath = journal::journal_path(rec.path());
    // A person puts a line cru cannot read inside the last fold's events.
    let text = std::fs::read_to_string(&jpath).unwrap();
    let marker_at = text.rfind("{\"folded\"").unwrap();
    let edited = format!(
        "{}{{\"hand\": \"edit\"}}\n{}",
        &text[..marker_at],
        &text[marker_at..]
    );
    std::fs::write(&jpath, edited).unwrap();
    let bad_line = text[..marker_at].lines().count() + 1;
    // The file holds that fold: readers never parse its lines.
    assert_eq!(s.load_path(rec.path()).unwrap().phase_count(), 2);
    let contents = journal::read(&jpath).unwrap().unwrap();
    assert!(
        contents
            .pending_for(&std::fs::read(rec.path()).unwrap())
            .bad_lines
            .is_empty()
    );
    assert_eq!(contents.all().bad_lines, [bad_line]);
    // A pause would remove the journal: it refuses, and keeps the line.
    let err = rec.pause(None).unwrap_err().to_string();
    assert!(
        err.contains(&format!("journal lines [{bad_line}] cannot be read")),
        "{err}"
    );
    assert!(
        std::fs::read_to_string(&jpath)
            .unwrap()
            .contains("\"hand\"")
    );
}
