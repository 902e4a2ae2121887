//! The store never loses or invents anything: under concurrent commands, an
//! editor saving the file during a fold, kills, and commands that fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::kiln::TestKiln;

fn cru_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("cru")
}

/// A `cru` process on `kiln`'s sessions directory, not yet started.
fn cru(kiln: &TestKiln, args: &[&str]) -> Command {
    let mut cmd = Command::new(cru_bin());
    cmd.current_dir(kiln.root.path())
        .env("HOME", kiln.root.path().join("home"))
        .env("CRU_SESSIONS_DIR", kiln.sessions())
        .env_remove("CRU_SESSION")
        .env_remove("CRUCIBLE_CONFIG")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CRU_LOG")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Starts a session with one phase; returns its id and file.
fn live_session(kiln: &TestKiln, title: &str) -> (String, PathBuf) {
    let out = cru(
        kiln,
        &["session", "start", "--title", title, "--agent", "a@1"],
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    let out = cru(kiln, &["session", "log", "--session", &id, "phase", "Work"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = kiln.sessions().join(format!("{id}.md"));
    (id, path)
}

/// The session as cru reads it (journal applied), as markdown.
fn shown(kiln: &TestKiln, id: &str) -> String {
    let out = cru(kiln, &["session", "show", id, "--format", "markdown"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `loggers` processes each logging a tool call `call-N` to session `id`,
/// with one `cru session <verb> <id>` started in their middle, all running
/// at once; each child comes with what it does (`call-N` or the verb).
fn race(
    kiln: &TestKiln,
    id: &str,
    loggers: usize,
    verb: &str,
) -> Vec<(String, std::process::Child)> {
    let mut children = Vec::new();
    for n in 0..loggers {
        let call = format!("call-{n}");
        let child = cru(kiln, &["session", "log", "--session", id, "tool", &call])
            .spawn()
            .unwrap();
        children.push((call, child));
        if n == loggers / 2 {
            let child = cru(kiln, &["session", verb, id]).spawn().unwrap();
            children.push((verb.to_owned(), child));
        }
    }
    children
}

/// Item 8: `log`s racing one `end`. Every log that exited 0 is in the ended
/// session, every one that was refused exited non-zero naming the session
/// and its status, and nothing lands after the end.
#[test]
fn no_event_lands_after_end_and_a_second_end_is_refused() {
    const TRIALS: usize = 20;
    const LOGGERS: usize = 8;
    for trial in 0..TRIALS {
        let kiln = TestKiln::empty();
        let (id, _) = live_session(&kiln, &format!("race {trial}"));
        let mut acknowledged = Vec::new();
        for (what, child) in race(&kiln, &id, LOGGERS, "end") {
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            if what == "end" {
                assert!(out.status.success(), "end failed: {stderr}");
            } else if out.status.success() {
                acknowledged.push(what);
            } else {
                assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
                assert!(
                    stderr.contains(&format!("session `{id}` is completed")),
                    "{what} refused without naming the session and its status: {stderr}"
                );
            }
        }
        // The end folds every event before it into the file and removes the
        // journal; an event written after it would sit in a new journal.
        let path = kiln.sessions().join(format!("{id}.md"));
        let journal = kiln.sessions().join(format!(".{id}.md.journal"));
        assert!(
            !journal.exists(),
            "trial {trial}: events after the end: {}",
            std::fs::read_to_string(&journal).unwrap_or_default()
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("status: completed"), "{text}");
        for n in 0..LOGGERS {
            let call = format!("`call-{n}`");
            let ack = acknowledged.iter().any(|a| format!("`{a}`") == call);
            assert_eq!(
                text.contains(&call),
                ack,
                "trial {trial}: {call} acknowledged={ack}\n{text}"
            );
        }
        let before = std::fs::read(&path).unwrap();
        let again = cru(&kiln, &["session", "end", &id, "--status", "failed"])
            .output()
            .unwrap();
        assert_eq!(again.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&again.stderr);
        assert!(
            stderr.contains(&format!("session `{id}` already ended (completed)")),
            "{stderr}"
        );
        let after = std::fs::read(&path).unwrap();
        assert_eq!(before, after, "a refused end changed the file");
    }
}

/// Item 8's other half: `log`s racing a `pause`. Logging to a paused session
/// reopens it, also when the pause came between the log's read and its
/// write: a session that ends up paused has every acknowledged event folded
/// into its file and nothing waiting after the pause.
#[test]
fn an_event_racing_a_pause_reopens_the_session() {
    const TRIALS: usize = 20;
    const LOGGERS: usize = 8;
    for trial in 0..TRIALS {
        let kiln = TestKiln::empty();
        let (id, path) = live_session(&kiln, &format!("pause race {trial}"));
        for (what, child) in race(&kiln, &id, LOGGERS, "pause") {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{what}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let text = shown(&kiln, &id);
        for n in 0..LOGGERS {
            assert!(
                text.contains(&format!("`call-{n}`")),
                "trial {trial}: call-{n} lost"
            );
        }
        let on_disk = std::fs::read_to_string(&path).unwrap();
        if on_disk.contains("status: paused") {
            let journal = kiln.sessions().join(format!(".{id}.md.journal"));
            assert!(
                !journal.exists(),
                "trial {trial}: paused, with events after the pause: {}",
                std::fs::read_to_string(&journal).unwrap_or_default()
            );
        }
    }
}

/// Every file of the sessions directory, by name, with its bytes.
fn directory_bytes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Item 11: a `log` that fails on a paused session leaves it byte for byte
/// as it was. Here the journal holds a line cru cannot read (a newer cru
/// wrote it, or a person): the reopen and the event would need a fold, which
/// must refuse; the refusal comes before anything is written.
#[test]
fn a_failed_log_leaves_a_paused_session_unchanged() {
    let kiln = TestKiln::empty();
    let (id, path) = live_session(&kiln, "paused then failed");
    let out = cru(&kiln, &["session", "pause", &id]).output().unwrap();
    assert!(out.status.success());
    let journal = kiln.sessions().join(format!(".{id}.md.journal"));
    std::fs::write(&journal, "{\"from\": \"a newer cru\"}\n").unwrap();
    let before = directory_bytes(&kiln.sessions());
    for args in [
        vec!["phase", "Next"],
        vec!["decision", "go on"],
        vec!["tool", "grep", "x"],
        vec!["subagent", "--agent", "helper@1", "--mode", "link"],
    ] {
        let mut all = vec!["session", "log", "--session", id.as_str()];
        all.extend(args.iter().copied());
        let out = cru(&kiln, &all).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?} should fail");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("journal lines [1] cannot be read"),
            "{stderr}"
        );
        assert_eq!(directory_bytes(&kiln.sessions()), before, "{args:?}");
    }
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("status: paused")
    );
}

/// Item 11: a resume whose agent backend fails (exits non-zero, or does not
/// exist) leaves the session paused and its file byte for byte unchanged.
#[test]
fn a_failed_resume_leaves_a_paused_session_unchanged() {
    let kiln = TestKiln::empty();
    let (id, path) = live_session(&kiln, "resume fails");
    let out = cru(&kiln, &["session", "pause", &id]).output().unwrap();
    assert!(out.status.success());
    let before = directory_bytes(&kiln.sessions());
    for agent in ["false", "/nonexistent/agent-backend"] {
        let out = cru(
            &kiln,
            &["session", "resume", &id, "--agent-cmd", agent, "--once"],
        )
        .output()
        .unwrap();
        assert_eq!(out.status.code(), Some(1), "--agent-cmd {agent}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("agent command `{agent}` failed")),
            "{stderr}"
        );
        assert_eq!(
            directory_bytes(&kiln.sessions()),
            before,
            "--agent-cmd {agent}"
        );
    }
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("status: paused")
    );
}

/// An editor's save: read the file, change it, write a temporary file and
/// rename it over the original, as vim and VS Code do. Like them, it checks
/// that the file on disk is still the one it read before it saves (vim:
/// "the file has been changed since reading it"), and reads it again if not.
fn editor_save(path: &Path, line: &str) {
    use std::os::unix::fs::MetadataExt;
    let stamp =
        |p: &Path| std::fs::metadata(p).map(|m| (m.ino(), m.len(), m.mtime(), m.mtime_nsec()));
    loop {
        let before = stamp(path).unwrap();
        let mut text = std::fs::read_to_string(path).unwrap();
        if stamp(path).unwrap() != before {
            continue;
        }
        text.push_str(&format!("\n{line}\n"));
        let tmp = path.with_file_name(format!(".editor-{line}.swp"));
        std::fs::write(&tmp, &text).unwrap();
        if stamp(path).unwrap() == before {
            std::fs::rename(&tmp, path).unwrap();
            return;
        }
        std::fs::remove_file(&tmp).unwrap();
    }
}

/// Item 10: an editor saving the file while `cru session log` folds its
/// journal into it. Each trial logs a phase (a fold: the file is small) to
/// one of a few sessions while the editor keeps saving edits to that
/// session, so that most folds meet saves in both orders (the save between
/// the fold's read and its rename; a save read before the fold and renamed
/// after it). At the end every acknowledged phase and every edit is there.
#[test]
fn an_editor_saving_during_folds_loses_neither_edits_nor_events() {
    const SESSIONS: usize = 6;
    const TRIALS: usize = 60;
    let kiln = TestKiln::empty();
    let sessions: Vec<(String, PathBuf)> = (0..SESSIONS)
        .map(|s| live_session(&kiln, &format!("edited while recorded {s}")))
        .collect();
    let target: Arc<Mutex<PathBuf>> = Arc::new(Mutex::new(sessions[0].1.clone()));
    let stop = Arc::new(AtomicBool::new(false));
    let edits: Arc<Mutex<Vec<(PathBuf, String)>>> = Arc::new(Mutex::new(Vec::new()));
    let editor = {
        let (stop, edits, target) = (stop.clone(), edits.clone(), target.clone());
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let path = target.lock().unwrap().clone();
                let line = format!("Editor note {n}.");
                editor_save(&path, &line);
                edits.lock().unwrap().push((path, line));
                n += 1;
                // Hundreds of saves a second: far more than a person, often
                // enough that most folds meet one.
                std::thread::sleep(std::time::Duration::from_micros(3000 + 500 * (n % 5)));
            }
        })
    };
    let started = Instant::now();
    for trial in 0..TRIALS {
        let (id, path) = &sessions[trial % SESSIONS];
        target.lock().unwrap().clone_from(path);
        let phase = format!("Phase {trial}");
        let out = cru(&kiln, &["session", "log", "--session", id, "phase", &phase])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    stop.store(true, Ordering::Relaxed);
    editor.join().unwrap();
    let elapsed = started.elapsed();
    let edits = edits.lock().unwrap();
    assert!(
        edits.len() >= TRIALS,
        "the editor saved only {} times",
        edits.len()
    );
    for (s, (id, path)) in sessions.iter().enumerate() {
        let text = shown(&kiln, id);
        for trial in (s..TRIALS).step_by(SESSIONS) {
            assert!(
                text.contains(&format!("## Phase {trial} ")),
                "acknowledged phase {trial} lost ({elapsed:?}):\n{text}"
            );
        }
        for (_, line) in edits.iter().filter(|(p, _)| p == path) {
            assert!(
                text.contains(line.as_str()),
                "edit `{line}` lost ({elapsed:?}):\n{text}"
            );
        }
    }
}
