//! `cru hook claude-code` and `cru hook codex` as the agents run them:
//! separate processes, one event each, always exit 0 with nothing on
//! stdout.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};

use assert_cmd::Command;

pub(crate) fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hooks")
}

/// The fixture transcript copied into `folder` under its session's name,
/// as Claude Code keeps it: the transcript the fixture events point at.
pub(crate) fn fixture_transcript(folder: &Path) -> PathBuf {
    std::fs::create_dir_all(folder).unwrap();
    let transcript = folder.join("9d2c4b1e-5f6a-4c7d-8e9f-0a1b2c3d4e5f.jsonl");
    std::fs::copy(fixtures().join("transcript.jsonl"), &transcript).unwrap();
    transcript
}

/// The hooks of a session `a` (transcript `ta`: started, one prompt,
/// ended) then of its resumed continuation `b` (`tb`: started with
/// `source: resume`, the prompt `prompt`, a stop), as Claude Code sends
/// them around `claude --resume`.
pub(crate) fn replay_resumed(
    dir: &Path,
    state: &Path,
    (a, ta): (&str, &Path),
    (b, tb): (&str, &Path),
    prompt: &str,
) {
    let none = |_: &mut serde_json::Value| {};
    let event = |name: &str, sid: &str, t: &Path, edit: &dyn Fn(&mut serde_json::Value)| {
        replay_edited(dir, state, (name, sid, t), edit);
    };
    event("session-start.json", a, ta, &none);
    event("user-prompt-submit.json", a, ta, &|v| {
        v["prompt"] = "start phoenix in background".into();
    });
    event("session-end.json", a, ta, &none);
    event("session-start.json", b, tb, &|v| {
        v["source"] = "resume".into();
    });
    event("user-prompt-submit.json", b, tb, &|v| {
        v["prompt"] = prompt.into();
    });
    event("stop.json", b, tb, &none);
}

/// The fixture event `name` for Claude session `sid` with transcript `t`,
/// changed by `edit`, run through the real `cru hook claude-code`.
pub(crate) fn replay_edited(
    dir: &Path,
    state: &Path,
    (name, sid, t): (&str, &str, &Path),
    edit: &dyn Fn(&mut serde_json::Value),
) {
    let mut v: serde_json::Value =
        serde_json::from_slice(&payload(name, t, Some(sid), None)).unwrap();
    edit(&mut v);
    run(dir, state, serde_json::to_vec(&v).unwrap());
}

/// A fixture payload with its transcript path pointed at `transcript`
/// and, when given, another session id and tool call.
pub(crate) fn payload(
    name: &str,
    transcript: &Path,
    sid: Option<&str>,
    call: Option<usize>,
) -> Vec<u8> {
    let text = std::fs::read_to_string(fixtures().join(name)).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["transcript_path"] = transcript.to_str().unwrap().into();
    if let Some(sid) = sid {
        v["session_id"] = sid.into();
    }
    if let Some(i) = call {
        v["tool_use_id"] = format!("toolu_{i}").into();
        v["tool_input"]["command"] = format!("echo {i}").into();
    }
    serde_json::to_vec(&v).unwrap()
}

/// `cru hook claude-code` with the sessions directory `dir` and the
/// user's state directory `state`.
fn hook(dir: &Path, state: &Path) -> Command {
    let mut c = Command::cargo_bin("cru").unwrap();
    c.args(["--dir"])
        .arg(dir)
        .args(["hook", "claude-code"])
        .env_remove("CRU_SESSIONS_DIR")
        .env("XDG_STATE_HOME", state);
    c
}

/// Runs one event; it must exit 0 with nothing on stdout.
pub(crate) fn run(dir: &Path, state: &Path, stdin: Vec<u8>) {
    let out = hook(dir, state).write_stdin(stdin).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The sessions of `dir` as `cru session list --format json` gives them.
pub(crate) fn listed(dir: &Path) -> Vec<serde_json::Value> {
    let out = Command::cargo_bin("cru")
        .unwrap()
        .arg("--dir")
        .arg(dir)
        .args(["session", "list", "--format", "json"])
        .env_remove("CRU_SESSIONS_DIR")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["sessions"].as_array().unwrap().clone()
}

/// The markdown with what changes from run to run (times, dates in ids,
/// the temporary directory) replaced.
fn normalized(text: &str, tmp: &Path) -> String {
    let text = text.replace(tmp.to_str().unwrap(), "[TMP]");
    let mut out: Vec<u8> = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    while i < b.len() {
        let date = i + 10 <= b.len()
            && digits(&b[i..i + 4])
            && b[i + 4] == b'-'
            && digits(&b[i + 5..i + 7])
            && b[i + 7] == b'-'
            && digits(&b[i + 8..i + 10]);
        if date && i + 20 <= b.len() && b[i + 10] == b'T' && b[i + 19] == b'Z' {
            out.extend(b"[TIME]");
            i += 20;
        } else if date {
            out.extend(b"[DATE]");
            i += 10;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    let out = String::from_utf8(out).expect("only ASCII was replaced");
    let mut lines: Vec<String> = out.lines().map(str::to_owned).collect();
    for l in &mut lines {
        if let Some(at) = l.find("duration_ms=") {
            let end = l[at..].find(' ').map_or(l.len(), |e| at + e);
            l.replace_range(at..end, "duration_ms=[MS]");
        }
    }
    lines.join("\n")
}

#[test]
fn replayed_events_make_one_session_with_its_phase_tool_calls_and_subagent() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("s"), tmp.path().join("state"));
    let transcript = tmp.path().join("t.jsonl");
    std::fs::write(&transcript, "").unwrap();
    for name in [
        "session-start.json",
        "notification.json",
        "user-prompt-submit.json",
        "pre-tool-use.json",
        "post-tool-use.json",
        "post-tool-use-failure.json",
        "pre-compact.json",
        "stop.json",
        "subagent-stop.json",
        "session-end.json",
    ] {
        if name == "post-tool-use.json" {
            std::fs::copy(fixtures().join("transcript.jsonl"), &transcript).unwrap();
        }
        run(&dir, &state, payload(name, &transcript, None, None));
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    // The session first, then its subagent.
    files.sort_by_key(|f| std::fs::read_to_string(f).unwrap().contains("\nparent: "));
    assert_eq!(files.len(), 2, "the session and its subagent: {files:?}");
    let text: Vec<String> = files
        .iter()
        .map(|f| normalized(&std::fs::read_to_string(f).unwrap(), tmp.path()))
        .collect();
    insta::assert_snapshot!("hook_replay_session", text[0]);
    insta::assert_snapshot!("hook_replay_subagent", text[1]);
    assert!(
        !dir.join(".hook-errors.jsonl").exists(),
        "no failure logged"
    );
    Command::cargo_bin("cru")
        .unwrap()
        .arg("--dir")
        .arg(&dir)
        .args(["session", "validate"])
        .env_remove("CRU_SESSIONS_DIR")
        .assert()
        .success();
}

/// Spawns one hook process per payload, all at once, and waits for all.
fn concurrently(dir: &Path, state: &Path, payloads: Vec<Vec<u8>>) {
    let children: Vec<_> = payloads
        .into_iter()
        .map(|p| {
            let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("cru"))
                .arg("--dir")
                .arg(dir)
                .args(["hook", "claude-code"])
                .env_remove("CRU_SESSIONS_DIR")
                .env("XDG_STATE_HOME", state)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(&p).unwrap();
            child
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success() && out.stdout.is_empty(), "{out:?}");
    }
}

#[test]
fn parallel_tool_calls_and_two_interleaved_sessions_lose_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("s"), tmp.path().join("state"));
    let transcript = tmp.path().join("t.jsonl");
    std::fs::write(&transcript, "").unwrap();
    let other = "0b0b0b0b-1111-2222-3333-444444444444";
    for sid in [None, Some(other)] {
        run(
            &dir,
            &state,
            payload("session-start.json", &transcript, sid, None),
        );
        run(
            &dir,
            &state,
            payload("user-prompt-submit.json", &transcript, sid, None),
        );
    }
    let sid = |i: usize| (i % 2 == 1).then_some(other);
    let n = 12;
    concurrently(
        &dir,
        &state,
        (0..n)
            .map(|i| payload("pre-tool-use.json", &transcript, sid(i), Some(i)))
            .collect(),
    );
    // The results in another order than the calls.
    concurrently(
        &dir,
        &state,
        (0..n)
            .rev()
            .map(|i| payload("post-tool-use.json", &transcript, sid(i), Some(i)))
            .collect(),
    );
    let out = Command::cargo_bin("cru")
        .unwrap()
        .arg("--dir")
        .arg(&dir)
        .args(["session", "list", "--format", "json"])
        .env_remove("CRU_SESSIONS_DIR")
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut seen = Vec::new();
    for f in std::fs::read_dir(&dir).unwrap().flatten() {
        if f.path().extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(f.path()).unwrap();
            let journal = std::fs::read_to_string(
                dir.join(format!(".{}.journal", f.file_name().to_string_lossy())),
            )
            .unwrap_or_default();
            let calls: Vec<usize> = (0..n)
                .filter(|i| {
                    text.contains(&format!("`Bash echo {i}`"))
                        || journal.contains(&format!("\"echo {i}\""))
                })
                .collect();
            seen.push(calls);
        }
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            (0..n).filter(|i| i % 2 == 0).collect::<Vec<_>>(),
            (0..n).filter(|i| i % 2 == 1).collect::<Vec<_>>()
        ]
    );
}

#[test]
fn a_broken_sessions_directory_still_exits_0_silently_and_the_failure_is_logged() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let transcript = tmp.path().join("t.jsonl");
    // A file where the sessions directory should be.
    let file = tmp.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    run(
        &file,
        &state,
        payload("session-start.json", &transcript, None, None),
    );
    let log = std::fs::read_to_string(state.join("crucible/.hook-errors.jsonl")).unwrap();
    assert!(log.contains("\"event\":\"SessionStart\""), "{log}");
    // Input that is no event at all.
    run(&file, &state, b"not json".to_vec());
    let log = std::fs::read_to_string(state.join("crucible/.hook-errors.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");
    assert!(log.contains("not a Claude Code event"), "{log}");
    // A sessions directory whose capture state cannot be made: the
    // failure goes to the directory's own log.
    let dir = tmp.path().join("s");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join(".capture"), "in the way").unwrap();
    run(
        &dir,
        &state,
        payload("session-start.json", &transcript, None, None),
    );
    let log = std::fs::read_to_string(dir.join(".hook-errors.jsonl")).unwrap();
    assert!(log.contains(".capture"), "{log}");
}

#[test]
fn a_codex_turn_imports_its_rollout_and_the_next_turn_updates_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("s"), tmp.path().join("state"));
    let codex = tmp.path().join("codex");
    let day = codex.join("sessions/2026/02/23");
    std::fs::create_dir_all(&day).unwrap();
    let name = "rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl";
    std::fs::copy(
        fixtures()
            .join("../real/codex/localpush/sessions")
            .join(name),
        day.join(name),
    )
    .unwrap();
    let notify = r#"{"type":"agent-turn-complete","thread-id":"019c8a4c-ed82-79a1-aa28-7738fc5ab61a","turn-id":"1","cwd":"/w","input-messages":["hi"],"last-assistant-message":"done"}"#;
    let codex_hook = || {
        let mut c = Command::cargo_bin("cru").unwrap();
        c.arg("--dir")
            .arg(&dir)
            .args(["hook", "codex", notify])
            .env_remove("CRU_SESSIONS_DIR")
            .env("XDG_STATE_HOME", &state)
            .env("CODEX_HOME", &codex);
        c
    };
    let out = codex_hook().output().unwrap();
    assert!(out.status.success() && out.stdout.is_empty(), "{out:?}");
    let md = |d: &Path| {
        std::fs::read_dir(d)
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
            .count()
    };
    assert_eq!(md(&dir), 1);
    codex_hook().assert().success().stdout("");
    assert_eq!(md(&dir), 1, "the same thread is the same session");
    assert!(!dir.join(".hook-errors.jsonl").exists());
    // A thread with no rollout: exit 0, logged.
    let mut c = codex_hook();
    c.args([r#"{"type":"agent-turn-complete","thread-id":"0000-none"}"#]);
    c.assert().success().stdout("");
    let log = std::fs::read_to_string(dir.join(".hook-errors.jsonl")).unwrap();
    assert!(log.contains("no rollout of thread 0000-none"), "{log}");
}

#[test]
fn an_unwritable_sessions_directory_still_exits_0_and_logs_in_the_state_directory() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("s"), tmp.path().join("state"));
    let transcript = tmp.path().join("t.jsonl");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    if std::fs::write(dir.join("probe"), "").is_ok() {
        // The superuser writes anywhere: there is no unwritable directory
        // to test with.
        eprintln!("skipped: the directory stays writable for this user");
        return;
    }
    run(
        &dir,
        &state,
        payload("session-start.json", &transcript, None, None),
    );
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let log = std::fs::read_to_string(state.join("crucible/.hook-errors.jsonl")).unwrap();
    assert!(log.contains("\"event\":\"SessionStart\""), "{log}");
}

/// Claude Code reads a hook's exit 2 as "block" (the tool call, the
/// prompt): a command line this cru cannot parse (written by a newer one,
/// edited by hand) must exit 0 too, the failure logged.
#[test]
fn a_hook_command_line_that_does_not_parse_exits_0_and_is_logged() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    for args in [
        &["hook", "claude-code", "--future-flag"][..],
        &["hook", "claude-kode"],
        &["hook", "claude-code", "--payload-limit", "64k"],
    ] {
        let out = Command::cargo_bin("cru")
            .unwrap()
            .args(args)
            .env_remove("CRU_SESSIONS_DIR")
            .env("HOME", tmp.path())
            .env("XDG_STATE_HOME", &state)
            .write_stdin("{}")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{args:?}: {out:?}");
    }
    let log = std::fs::read_to_string(state.join("crucible/.hook-errors.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 3, "{log}");
    assert!(log.contains("did not parse"), "{log}");
    // Other commands keep clap's usage errors.
    let out = Command::cargo_bin("cru")
        .unwrap()
        .args(["session", "list", "--bogus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A lock held by a stuck process (here: this test) never stalls the
/// agent: the hook gives up within its limit, exits 0, and says so in the
/// error log; the next event, the lock free, is recorded.
#[test]
fn a_held_lock_costs_the_event_not_the_agent() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("sessions"), tmp.path().join("state"));
    let transcript = tmp.path().join("t.jsonl");
    std::fs::copy(fixtures().join("transcript.jsonl"), &transcript).unwrap();
    run(
        &dir,
        &state,
        payload("session-start.json", &transcript, None, None),
    );
    // The session is made at the first prompt: nothing holds the lock file yet.
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join(".cru.lock"))
        .unwrap();
    lock.lock().unwrap();
    let started = std::time::Instant::now();
    run(
        &dir,
        &state,
        payload("user-prompt-submit.json", &transcript, None, None),
    );
    let waited = started.elapsed();
    assert!(waited < std::time::Duration::from_secs(10), "{waited:?}");
    let log = std::fs::read_to_string(dir.join(".hook-errors.jsonl")).unwrap();
    assert!(log.contains("held by another process"), "{log}");
    drop(lock);
    run(
        &dir,
        &state,
        payload("user-prompt-submit.json", &transcript, None, None),
    );
    let md: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .collect();
    let text = std::fs::read_to_string(md[0].path()).unwrap()
        + &std::fs::read_to_string(
            dir.join(format!(".{}.journal", md[0].file_name().to_string_lossy())),
        )
        .unwrap_or_default();
    assert!(text.contains("checkout test fail"), "{text}");
}

/// A result delivered twice (cru's hook in both the user's and the
/// project's settings, a retried hook) is recorded once.
#[test]
fn a_result_delivered_twice_is_one_call() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("sessions"), tmp.path().join("state"));
    let transcript = tmp.path().join("t.jsonl");
    std::fs::copy(fixtures().join("transcript.jsonl"), &transcript).unwrap();
    for name in [
        "session-start.json",
        "user-prompt-submit.json",
        "pre-tool-use.json",
        "post-tool-use.json",
        "post-tool-use.json",
        "pre-tool-use.json",
        "post-tool-use.json",
    ] {
        run(&dir, &state, payload(name, &transcript, None, None));
    }
    let sessions = listed(&dir);
    assert_eq!(sessions[0]["tool_calls"], 1, "{sessions:?}");
}

/// Hooks and `cru watch` at once: while the hooks record a session live,
/// the watcher leaves its transcript to them (both would record each call
/// and count each request); once it ended, the transcript is imported
/// into the same session. Each call once, each request counted once.
#[test]
fn a_watcher_leaves_a_session_the_hooks_record_until_it_ends() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("sessions"), tmp.path().join("state"));
    let src = tmp.path().join("projects/-home-dev-shop");
    std::fs::create_dir_all(&src).unwrap();
    let transcript = src.join("9d2c4b1e-5f6a-4c7d-8e9f-0a1b2c3d4e5f.jsonl");
    let whole = std::fs::read_to_string(fixtures().join("transcript.jsonl")).unwrap();
    let lines: Vec<&str> = whole.lines().collect();
    std::fs::write(&transcript, lines[..3].join("\n") + "\n").unwrap();
    let watch_once = || {
        let out = Command::cargo_bin("cru")
            .unwrap()
            .arg("--dir")
            .arg(&dir)
            .args(["watch", "--once"])
            .arg(&src)
            .env("HOME", tmp.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    let hooks = |names: &[&str]| {
        for name in names {
            run(&dir, &state, payload(name, &transcript, None, None));
        }
    };
    hooks(&[
        "session-start.json",
        "user-prompt-submit.json",
        "pre-tool-use.json",
    ]);
    // The watcher sees the transcript half written, mid-turn.
    watch_once();
    std::fs::write(&transcript, &whole).unwrap();
    hooks(&["post-tool-use.json", "stop.json"]);
    // An import with no path (the transcript's store as the default one)
    // leaves it to the hooks too, and says so.
    let out = Command::cargo_bin("cru")
        .unwrap()
        .arg("--dir")
        .arg(&dir)
        .args(["session", "import"])
        .env("HOME", tmp.path())
        .env("CLAUDE_CONFIG_DIR", tmp.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("1 being recorded by Claude Code's hooks"),
        "{said}"
    );
    let live = listed(&dir);
    assert_eq!(live.len(), 1, "{live:?}");
    assert_eq!(live[0]["tool_calls"], 1, "each call once: {live:?}");
    // The session ends; the watcher imports the whole transcript into it.
    hooks(&["session-end.json"]);
    watch_once();
    let after = listed(&dir);
    assert_eq!(after.len(), 1, "one session: {after:?}");
    assert_eq!(after[0]["id"], live[0]["id"]);
    assert_eq!(after[0]["tool_calls"], 1, "{after:?}");
    assert_eq!(
        after[0]["tokens"], live[0]["tokens"],
        "each request counted once"
    );
    // The hooks saw it end: the watcher's import keeps it completed.
    assert_eq!(after[0]["status"], "completed", "{after:?}");
}
