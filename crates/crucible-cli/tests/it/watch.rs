//! `cru watch`: the real binary watching a folder of Claude Code
//! transcripts and the sessions directory, read by other `cru` processes
//! while it runs, stopped by signals and by `kill -9`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::kiln::{TestKiln, fixtures, listed_sessions};

/// How long a test waits for something the watcher does.
const PATIENCE: Duration = Duration::from_secs(10);

/// A real transcript, its records moved in time to end now: a live one
/// (the watcher judges liveness by the last record's time, not by the
/// file's mtime alone).
fn transcript() -> String {
    fresh(
        &std::fs::read_to_string(
            fixtures().join("real/claude-code/agentcmd/full/full-session-two.jsonl"),
        )
        .unwrap(),
    )
}

/// A second transcript, of another session: written to see that the
/// watcher has handled every event before it.
fn other_transcript() -> String {
    fresh(
        &std::fs::read_to_string(fixtures().join("real/claude-code/spotter/short.jsonl")).unwrap(),
    )
}

/// `text` with every record's `"timestamp"` moved by one amount, so that
/// the latest is now.
pub fn fresh(text: &str) -> String {
    use crucible_core::Timestamp;
    const KEY: &str = "\"timestamp\":\"";
    let stamps = |mut rest: &str| {
        let mut out = Vec::new();
        while let Some(at) = rest.find(KEY) {
            let from = at + KEY.len();
            let len = rest[from..].find('"').unwrap();
            out.push((from, len));
            rest = &rest[from + len..];
        }
        out
    };
    let mut out = String::new();
    let mut rest = text;
    let latest = {
        let mut r = text;
        stamps(text)
            .into_iter()
            .filter_map(|(from, len)| {
                let ms = Timestamp::parse_unix_ms(&r[from..from + len]);
                r = &r[from + len..];
                ms
            })
            .max()
            .unwrap()
    };
    let shift = Timestamp::now().unix_ms() - latest;
    for (from, len) in stamps(text) {
        let old = &rest[from..from + len];
        let new = Timestamp::parse_unix_ms(old).map_or_else(
            || old.to_owned(),
            |ms| Timestamp::from_unix_ms(ms + shift).as_str().to_owned(),
        );
        out.push_str(&rest[..from]);
        out.push_str(&new);
        rest = &rest[from + len..];
    }
    out.push_str(rest);
    out
}

/// A running `cru watch`, killed when dropped.
struct Watcher {
    child: Child,
    stderr: PathBuf,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Watcher {
    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    fn signal(&self, name: &str) {
        let ok = std::process::Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill -{name}");
    }
}

/// A kiln whose config pauses sessions idle for `idle`, and a `src`
/// folder for transcripts.
fn kiln_with_idle(idle: &str) -> (TestKiln, PathBuf) {
    let kiln = TestKiln::empty();
    kiln.write_config(idle);
    let src = kiln.root.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    (kiln, src)
}

trait WatchKiln {
    fn write_config(&self, idle: &str);
    fn watch(&self, args: &[&str]) -> Watcher;
    fn watch_capturing(&self, args: &[&str]) -> Watcher;
    fn spawn_watch(&self, args: &[&str], dir: Option<&Path>) -> Watcher;
    fn heartbeat(&self) -> Option<String>;
    fn wait_ready(&self, w: &Watcher);
    fn sessions_json(&self) -> Vec<serde_json::Value>;
    fn session_text(&self, id: &str) -> String;
}

impl WatchKiln for TestKiln {
    fn write_config(&self, idle: &str) {
        std::fs::write(
            self.root.path().join("config.toml"),
            format!("[session]\nidle_timeout = \"{idle}\"\n"),
        )
        .unwrap();
    }

    fn watch(&self, args: &[&str]) -> Watcher {
        // A watcher captures into the user's sessions directory, not
        // the project it starts in: named here, as the kiln's.
        self.spawn_watch(args, Some(&self.sessions()))
    }

    /// A watcher capturing into the user's own sessions directory (under
    /// the kiln's HOME), none named: projects may keep their own.
    fn watch_capturing(&self, args: &[&str]) -> Watcher {
        self.spawn_watch(args, None)
    }

    fn spawn_watch(&self, args: &[&str], dir: Option<&Path>) -> Watcher {
        let stderr = self.root.path().join(format!("watch-{}.err", args.len()));
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("cru"));
        match dir {
            Some(dir) => cmd.env("CRU_SESSIONS_DIR", dir),
            None => cmd.env_remove("CRU_SESSIONS_DIR"),
        };
        cmd.current_dir(self.root.path())
            .env("HOME", self.root.path().join("home"))
            .env("CRUCIBLE_CONFIG", self.root.path().join("config.toml"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("CRU_LOG")
            .arg("watch")
            .args(args)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).unwrap());
        let w = Watcher {
            child: cmd.spawn().unwrap(),
            stderr,
        };
        self.wait_ready(&w);
        w
    }

    fn heartbeat(&self) -> Option<String> {
        [
            self.sessions(),
            self.root.path().join("home/.crucible/sessions"),
        ]
        .iter()
        .find_map(|d| std::fs::read_to_string(d.join(".cru-watch/heartbeat")).ok())
    }

    /// Until the watcher's first catch-up is done (its beat says every
    /// event is applied).
    fn wait_ready(&self, w: &Watcher) {
        poll("the watcher's first catch-up", || {
            let beat = self.heartbeat()?;
            let count = |key: &str| {
                beat.lines()
                    .find_map(|l| l.strip_prefix(key))
                    .and_then(|n| n.parse::<u64>().ok())
            };
            let applied = count("applied=")?;
            // The start line follows the beat that says the catch-up is
            // done (by a moment: both are waited for).
            (count("pid=") == Some(u64::from(w.child.id()))
                && applied >= 1
                && count("received=") == Some(applied)
                && w.stderr().contains("watching "))
            .then_some(())
        });
    }

    fn sessions_json(&self) -> Vec<serde_json::Value> {
        let mut cmd = self.command();
        cmd.env("CRUCIBLE_CONFIG", self.root.path().join("config.toml"));
        let out = self.run_cmd(cmd.args(["session", "list", "--format", "json"]));
        assert_eq!(out.code, 0, "{}", out.stderr);
        listed_sessions(&out.stdout)
    }

    fn session_text(&self, id: &str) -> String {
        std::fs::read_to_string(self.sessions().join(format!("{id}.md"))).unwrap()
    }
}

/// Polls `what` until it answers, failing after [`PATIENCE`].
fn poll<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(t) = f() {
            return t;
        }
        assert!(start.elapsed() < PATIENCE, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// The one session with `status`, if the list has it.
fn with_status(list: &[serde_json::Value], status: &str) -> Option<String> {
    list.iter()
        .find(|s| s["status"] == status)
        .map(|s| s["id"].as_str().unwrap().to_owned())
}

/// What a listed session holds.
fn counts(s: &serde_json::Value) -> [serde_json::Value; 4] {
    [
        s["tokens"].clone(),
        s["phases"].clone(),
        s["tool_calls"].clone(),
        s["user_interventions"].clone(),
    ]
}

#[test]
fn a_transcript_written_line_by_line_is_active_then_settles_as_a_one_shot_import() {
    let (kiln, src) = kiln_with_idle("2s");
    // What the whole transcript makes, imported at once elsewhere.
    let whole = {
        let elsewhere = TestKiln::empty();
        let copy = elsewhere.root.path().join("t.jsonl");
        std::fs::write(&copy, transcript()).unwrap();
        let out = elsewhere.run(&["session", "import", copy.to_str().unwrap()]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        counts(
            &listed_sessions(
                &elsewhere
                    .run(&["session", "list", "--format", "json"])
                    .stdout,
            )[0],
        )
    };
    let w = kiln.watch(&[src.to_str().unwrap()]);
    let t = src.join("t.jsonl");
    let text = transcript();
    for line in text.split_inclusive('\n') {
        append(&t, line);
        std::thread::sleep(Duration::from_millis(15));
    }
    let written = Instant::now();
    let id = poll("an active session of the whole transcript", || {
        let list = kiln.sessions_json();
        let s = list.iter().find(|s| s["status"] == "active")?;
        (counts(s) == whole).then(|| s["id"].as_str().unwrap().to_owned())
    });
    let took = written.elapsed();
    assert!(
        took < Duration::from_secs(2),
        "active {took:?} after the last write"
    );
    assert_eq!(
        kiln.sessions_json().len(),
        1,
        "one session, not one per batch"
    );
    // Quiet for the idle time: imported again as a one-shot import has it.
    poll("the session to settle", || {
        with_status(&kiln.sessions_json(), "paused")
    });
    drop(w);
    let one_shot = TestKiln::empty();
    let out = one_shot.run(&["session", "import", t.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.trim(), id);
    assert_eq!(kiln.session_text(&id), one_shot.session_text(&id));
}

#[test]
fn truncation_rotation_and_deletion_of_the_source_leave_the_session_intact() {
    let (kiln, src) = kiln_with_idle("1h");
    let w = kiln.watch(&[src.to_str().unwrap()]);
    let t = src.join("t.jsonl");
    let text = transcript();
    std::fs::write(&t, &text).unwrap();
    let id = poll("the session", || {
        with_status(&kiln.sessions_json(), "active")
    });
    let kept = poll("the whole transcript imported", || {
        let s = kiln.session_text(&id);
        s.contains("status: active").then_some(s)
    });
    // Truncated to its first lines, in place.
    let head: String = text.split_inclusive('\n').take(10).collect();
    std::fs::write(&t, &head).unwrap();
    poll("the watcher to see it shrink", || {
        w.stderr().contains("shrank since its import").then_some(())
    });
    assert_eq!(kiln.session_text(&id), kept, "after truncation");
    // Rotated away and a new empty file made in its place.
    std::fs::rename(&t, src.join("t.jsonl.1")).unwrap();
    std::fs::write(&t, "").unwrap();
    // Deleted.
    std::fs::remove_file(&t).unwrap();
    // A transcript of another session: once it is imported, every event
    // before it was handled.
    std::fs::write(src.join("other.jsonl"), other_transcript()).unwrap();
    poll("the other session", || {
        (kiln.sessions_json().len() == 2).then_some(())
    });
    assert_eq!(kiln.session_text(&id), kept, "after rotation and deletion");
    let said = w.stderr();
    assert!(
        said.contains("t.jsonl: deleted; its session keeps what was captured"),
        "{said}"
    );
    // Not an error (agents delete their transcripts), and no folder of
    // subagents looked for under the rotated file's name.
    assert!(!said.contains("error:"), "{said}");
    assert!(!said.contains("subagents"), "{said}");
}

/// A live session whose transcript is deleted (Claude Code's clean-up)
/// is paused by the idle rule, on the watcher's timer: no event of its
/// source will come to settle it.
#[test]
fn a_live_session_whose_transcript_is_deleted_is_paused_by_the_idle_rule() {
    let (kiln, src) = kiln_with_idle("2s");
    let w = kiln.watch(&[src.to_str().unwrap()]);
    let t = src.join("t.jsonl");
    std::fs::write(&t, transcript()).unwrap();
    poll("the live session", || {
        with_status(&kiln.sessions_json(), "active")
    });
    std::fs::remove_file(&t).unwrap();
    let deleted = Instant::now();
    poll("the session paused", || {
        with_status(&kiln.sessions_json(), "paused")
    });
    assert!(
        deleted.elapsed() >= Duration::from_secs(1),
        "not before it was idle"
    );
    let said = w.stderr();
    assert!(said.contains("t.jsonl: deleted"), "{said}");
    assert!(!said.contains("error:"), "{said}");
}

/// The watcher imports as `cru session import` with no path does: a
/// project keeping its own sessions (`[capture] project = true`) gets
/// them, live, and its start line says where sessions go.
#[test]
fn a_project_keeping_its_own_sessions_gets_them_from_the_watcher() {
    let (kiln, _src) = kiln_with_idle("1h");
    let own = kiln.root.path().join("own");
    std::fs::create_dir_all(own.join(".crucible")).unwrap();
    std::fs::write(
        own.join(".crucible/config.toml"),
        "[capture]\nproject = true\n",
    )
    .unwrap();
    let store = kiln.root.path().join("home/.claude/projects/-own");
    std::fs::create_dir_all(&store).unwrap();
    let w = kiln.watch_capturing(&[]);
    assert!(
        w.stderr().contains(
            "sessions into [KILN]/home/.crucible/sessions"
                .replace("[KILN]", &kiln.root.path().display().to_string())
                .as_str()
        ),
        "{}",
        w.stderr()
    );
    assert!(w.stderr().contains("project = true"), "{}", w.stderr());
    let cwd = own.display().to_string();
    let text = transcript().replace(
        "/Users/jnarowski/Dev/sourceborn/src/agent-workflows-monorepo-v2",
        &cwd,
    );
    assert!(text.contains(&cwd));
    std::fs::write(store.join("own.jsonl"), text).unwrap();
    let own_sessions = own.join(".crucible/sessions");
    poll("the session in the project's own directory", || {
        let files = crucible_core::store::session_files(&own_sessions).ok()?;
        (files.len() == 1).then_some(())
    });
    let user = kiln.root.path().join("home/.crucible/sessions");
    assert_eq!(
        crucible_core::store::session_files(&user).map_or(0, |f| f.len()),
        0,
        "not in the user's directory"
    );
}

/// `cru session list --format json` with the index's debug log: the
/// sessions, and whether the read let the watcher vouch for freshness.
fn list_vouched(kiln: &TestKiln) -> (Vec<serde_json::Value>, bool) {
    let mut cmd = kiln.command();
    cmd.env("CRU_SESSIONS_DIR", kiln.sessions());
    cmd.env("CRUCIBLE_CONFIG", kiln.root.path().join("config.toml"))
        .env("CRU_LOG", "crucible_index=debug");
    let out = kiln.run_cmd(cmd.args(["session", "list", "--format", "json"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let vouched = out
        .stderr
        .contains("freshness vouched for by the running watcher");
    (listed_sessions(&out.stdout), vouched)
}

#[test]
fn a_hand_edit_is_seen_by_the_next_list_while_the_watcher_vouches_for_the_index() {
    let kiln = TestKiln::with_fixtures();
    kiln.write_config("1h");
    let w = kiln.watch(&[]);
    let path = kiln.sessions().join("2025-12-10-investigate-ci.md");
    let original = std::fs::read_to_string(&path).unwrap();
    let id = "2025-12-10-investigate-ci";
    let status_of = |list: &[serde_json::Value]| {
        list.iter()
            .find(|s| s["id"] == id)
            .map(|s| s["status"].as_str().unwrap().to_owned())
    };
    let (list, vouched) = list_vouched(&kiln);
    assert_eq!(status_of(&list).as_deref(), Some("completed"));
    assert!(vouched, "a caught-up watcher vouches for the index");
    for (round, status) in ["paused", "failed", "completed", "paused"]
        .iter()
        .enumerate()
    {
        // In place, and read at once: the read must not answer from the
        // index before the watcher has applied the edit (the fence).
        let edited = original.replacen("status: completed", &format!("status: {status}"), 1);
        std::fs::write(&path, &edited).unwrap();
        let (list, vouched) = list_vouched(&kiln);
        assert_eq!(status_of(&list).as_deref(), Some(*status), "round {round}");
        assert!(vouched, "round {round}: the watcher vouched");
    }
    // A new session file, too, is listed at once.
    std::fs::write(
        kiln.sessions().join("2025-12-30-new.md"),
        original.replacen(
            "session_id: 2025-12-10-investigate-ci",
            "session_id: 2025-12-30-new",
            1,
        ),
    )
    .unwrap();
    let (list, _) = list_vouched(&kiln);
    assert!(
        list.iter().any(|s| s["id"] == "2025-12-30-new"),
        "a new file"
    );
    // A watcher that cannot answer (stopped, as if busy or hung) is not
    // waited for: the read proves freshness itself and sees the edit.
    w.signal("STOP");
    std::fs::write(
        &path,
        original.replacen("status: completed", "status: failed", 1),
    )
    .unwrap();
    let (list, vouched) = list_vouched(&kiln);
    w.signal("CONT");
    assert_eq!(status_of(&list).as_deref(), Some("failed"));
    assert!(
        !vouched,
        "a watcher that did not answer vouches for nothing"
    );
}

#[test]
fn a_hand_edit_is_found_by_the_next_search_while_the_watcher_vouches_for_the_index() {
    let kiln = TestKiln::with_fixtures();
    kiln.write_config("1h");
    let w = kiln.watch(&["-vv"]);
    let path = kiln.sessions().join("2025-12-10-investigate-ci.md");
    let original = std::fs::read_to_string(&path).unwrap();
    let search = |word: &str| {
        let mut cmd = kiln.command();
        cmd.env("CRU_SESSIONS_DIR", kiln.sessions());
        cmd.env("CRUCIBLE_CONFIG", kiln.root.path().join("config.toml"))
            .env("CRU_LOG", "debug");
        let out = kiln.run_cmd(cmd.args(["session", "search", word, "--format", "json"]));
        assert!(out.code == 0, "{}", out.stderr);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let ids: Vec<String> = v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_owned())
            .collect();
        (
            ids,
            out.stderr
                .contains("search index vouched for by the running watcher"),
        )
    };
    for (round, word) in ["zanzibarite", "quokkafield", "marmaladex"]
        .iter()
        .enumerate()
    {
        std::fs::write(&path, format!("{original}\nA note about {word}.\n")).unwrap();
        let (ids, vouched) = search(word);
        assert_eq!(ids, ["2025-12-10-investigate-ci"], "round {round}");
        assert!(vouched, "round {round}: the watcher vouched");
        if round > 0 {
            let (ids, _) = search(["zanzibarite", "quokkafield"][round - 1]);
            assert!(
                ids.is_empty(),
                "round {round}: the word written over is gone"
            );
        }
    }
    // The fences were answered before any commit: the changed file read
    // into the index and named as pending (not a whole catch-up).
    assert!(
        w.stderr()
            .contains("a reader waits: changed files read into the index"),
        "{}",
        w.stderr()
    );
}

#[test]
fn a_watcher_killed_with_sigkill_loses_nothing_and_once_catches_up() {
    let (kiln, src) = kiln_with_idle("1h");
    let w = kiln.watch(&[src.to_str().unwrap()]);
    w.signal("KILL");
    let mut w = w;
    let _ = w.child.wait();
    // Written while no watcher runs; its stale heartbeat is not trusted.
    let t = src.join("t.jsonl");
    std::fs::write(&t, transcript()).unwrap();
    assert!(
        kiln.heartbeat().is_some(),
        "a killed watcher leaves its beat"
    );
    assert!(kiln.sessions_json().is_empty());
    let mut once = kiln.command();
    once.env("CRU_SESSIONS_DIR", kiln.sessions());
    once.env("CRUCIBLE_CONFIG", kiln.root.path().join("config.toml"));
    let out = kiln.run_cmd(once.args(["watch", "--once", src.to_str().unwrap()]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let list = kiln.sessions_json();
    assert_eq!(list.len(), 1, "{}", out.stderr);
    assert_eq!(list[0]["status"], "active", "written lately: live");
    // And a new watcher may start: the kernel let go of the lock.
    drop(kiln.watch(&[src.to_str().unwrap()]));
}

#[test]
fn a_second_watcher_is_refused_and_sigterm_stops_the_first_cleanly() {
    let (kiln, src) = kiln_with_idle("1h");
    let mut w = kiln.watch(&[src.to_str().unwrap()]);
    let pid = w.child.id();
    let mut second = kiln.command();
    second.env("CRU_SESSIONS_DIR", kiln.sessions());
    second.env("CRUCIBLE_CONFIG", kiln.root.path().join("config.toml"));
    let out = kiln.run_cmd(second.arg("watch"));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains(&format!("another `cru watch` (pid {pid}) already watches")),
        "{}",
        out.stderr
    );
    let mut once = kiln.command();
    once.env("CRU_SESSIONS_DIR", kiln.sessions());
    once.env("CRUCIBLE_CONFIG", kiln.root.path().join("config.toml"));
    let out = kiln.run_cmd(once.args(["watch", "--once"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("nothing to do"), "{}", out.stderr);
    w.signal("TERM");
    let status = w.child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{}", w.stderr());
    assert_eq!(kiln.heartbeat(), None, "the heartbeat is removed");
    let left: Vec<_> = std::fs::read_dir(kiln.sessions().join(".cru-watch"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["lock"], "no partial file");
}

/// With no SOURCE the watcher watches the agents' stores, those not made
/// yet too: an agent run for the first time after the watcher started
/// (a login unit on a fresh machine) is captured once its store appears.
#[test]
fn a_store_made_after_the_watcher_started_is_watched_once_it_appears() {
    let (kiln, _src) = kiln_with_idle("1h");
    let w = kiln.watch(&[]);
    let store = kiln.root.path().join("home/.claude/projects/-work-app");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::write(store.join("s.jsonl"), transcript()).unwrap();
    poll("the new store's session", || {
        (kiln.sessions_json().len() == 1).then_some(())
    });
    assert!(w.stderr().contains("not there yet"), "{}", w.stderr());
}

/// `cru watch --otlp URL`: the first catch-up sends every session, and a
/// phase written while it watches reaches the engine, in its session's
/// trace, without anything else being sent again.
#[test]
fn watch_otlp_sends_sessions_as_they_change() {
    let kiln = TestKiln::with_fixtures();
    kiln.write_config("30m");
    let rx = crate::otlp_receiver::Receiver::start();
    let empty = tempfile::tempdir().unwrap();
    let w = kiln.watch(&["--otlp", &rx.url, empty.path().to_str().unwrap()]);
    // Every settled part: all but the running session's open phase and root.
    poll("the first send", || (rx.spans().len() == 106).then_some(()));
    let mut log = kiln.command();
    log.env("CRU_SESSIONS_DIR", kiln.sessions());
    let out = kiln.run_cmd(log.args([
        "session",
        "log",
        "--session",
        "2025-12-12-start-docs",
        "phase",
        "Write the guide",
        "--agent",
        "writer",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The new phase closes the one before it: that one goes, the new one waits.
    let spans = poll("the closed phase", || {
        let got = rx.received();
        (got.len() >= 2).then(|| got[got.len() - 1].spans())
    });
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Outline", "execute_tool read"], "{}", w.stderr());
    let mut end = kiln.command();
    end.env("CRU_SESSIONS_DIR", kiln.sessions());
    let out = kiln.run_cmd(end.args(["session", "end", "2025-12-12-start-docs"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let spans = poll("the ended session", || {
        let got = rx.received();
        (got.len() >= 3).then(|| got[got.len() - 1].spans())
    });
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["invoke_agent writer", "Write the guide"],
        "{}",
        w.stderr()
    );
    // Only the session that changed.
    let sessions: BTreeSet<&str> = spans
        .iter()
        .filter_map(|s| crate::otlp::attr_str(s, "session.id"))
        .collect();
    assert_eq!(sessions, BTreeSet::from(["2025-12-12-start-docs"]));
}

/// The heartbeat's `received=` and `applied=` counts.
fn beat_counts(kiln: &TestKiln) -> Option<(u64, u64)> {
    let beat = kiln.heartbeat()?;
    let count = |key: &str| {
        beat.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|n| n.parse::<u64>().ok())
    };
    Some((count("received=")?, count("applied=")?))
}

#[test]
fn watch_otlp_to_a_hung_engine_does_not_hold_capture_up() {
    let kiln = TestKiln::with_fixtures();
    kiln.write_config("30m");
    let rx = crate::otlp_receiver::Receiver::start();
    rx.script(&[crate::otlp_receiver::Reply::Hang; 20]);
    let empty = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let w = kiln.watch(&["--otlp", &rx.url, empty.path().to_str().unwrap()]);
    // Each send to the hung engine takes 3 attempts of 5 s: capture goes on.
    kiln.wait_ready(&w);
    assert!(started.elapsed() < Duration::from_secs(5), "{}", w.stderr());
    let (received, _) = beat_counts(&kiln).unwrap();
    let mut log = kiln.command();
    log.env("CRU_SESSIONS_DIR", kiln.sessions());
    let changed = Instant::now();
    let out = kiln.run_cmd(log.args([
        "session",
        "log",
        "--session",
        "2025-12-12-start-docs",
        "decision",
        "Docs first.",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    poll("the change applied while the engine hangs", || {
        let (r, a) = beat_counts(&kiln)?;
        (r > received && a == r).then_some(())
    });
    assert!(changed.elapsed() < Duration::from_secs(5), "{}", w.stderr());
}
