//! Recording through the CLI: start, log, pause, end.

use std::collections::HashSet;
use std::path::Path;

use crucible_core::{SessionStatus, SessionStore, SubagentMode};
use crucible_parser::MarkdownCodec;

use crate::kiln::TestKiln;

fn cru_dir() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("cru")
        .parent()
        .unwrap()
        .to_owned()
}

fn start(kiln: &TestKiln, args: &[&str]) -> String {
    let mut all = vec!["session", "start"];
    all.extend_from_slice(args);
    let out = kiln.run(&all);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout.trim().to_owned()
}

fn log(kiln: &TestKiln, id: &str, args: &[&str]) -> crate::kiln::Output {
    let mut all = vec!["session", "log", "--session", id];
    all.extend_from_slice(args);
    kiln.run(&all)
}

fn store(kiln: &TestKiln) -> SessionStore<MarkdownCodec> {
    SessionStore::new(kiln.sessions(), MarkdownCodec)
}

/// The fenced `sh` block after `<!-- worked-example -->` in docs/recording.md.
fn worked_example() -> String {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/recording.md"),
    )
    .unwrap();
    let after = doc
        .split("<!-- worked-example -->")
        .nth(1)
        .expect("the marker");
    after
        .split("```sh\n")
        .nth(1)
        .unwrap()
        .split("\n```")
        .next()
        .unwrap()
        .to_owned()
}

/// What the worked example records in `dir`: a paused parent with its
/// three subagents (link, embed, inline), the two with files completed.
fn check_the_recorded_family(dir: &Path) {
    let s = SessionStore::new(dir, MarkdownCodec);
    let files = crucible_core::store::session_files(s.dir()).unwrap();
    assert_eq!(files.len(), 3);
    let parent = files
        .iter()
        .map(|f| s.load_path(f).unwrap())
        .find(|l| l.frontmatter.parent.is_none())
        .unwrap();
    assert_eq!(parent.frontmatter.status, SessionStatus::Paused);
    assert_eq!(
        parent.frontmatter.resume_point.unwrap().to_string(),
        "phase-3"
    );
    assert_eq!(parent.frontmatter.tokens_used, Some(4200));
    let subs: Vec<_> = parent
        .callouts()
        .filter_map(|c| c.subagent().ok())
        .collect();
    let modes: Vec<_> = subs.iter().map(|s| s.mode).collect();
    assert_eq!(
        modes,
        [
            SubagentMode::Link,
            SubagentMode::Embed,
            SubagentMode::Inline
        ]
    );
    for sub in &subs[..2] {
        let child = s.load(sub.target.as_ref().unwrap().as_str()).unwrap().1;
        assert_eq!(child.frontmatter.status, SessionStatus::Completed);
        assert!(sub.summary.is_some());
    }
    assert_eq!(
        parent
            .frontmatter
            .subagents
            .iter()
            .map(|e| e.tokens)
            .collect::<Vec<_>>(),
        [Some(900), None]
    );
}

/// The example in docs/recording.md, run as a user would paste it.
#[test]
fn recording_worked_example_runs() {
    let script = worked_example();
    let kiln = TestKiln::empty();
    let path = format!(
        "{}:{}",
        cru_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = kiln.run_cmd(
        assert_cmd::Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .current_dir(kiln.root.path())
            .env("HOME", kiln.root.path())
            .env("PATH", path)
            .env_remove("CRU_SESSION"),
    );
    assert_eq!(
        out.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    assert!(
        out.stderr
            .contains("3 files checked: 3 valid, 0 invalid (0 errors, 0 warnings)"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout.contains("phase-3  Check the regex"),
        "{}",
        out.stdout
    );

    check_the_recorded_family(&kiln.root.path().join("sessions"));
    assert!(
        out.stdout
            .contains("│   phase-1  Write tests @tester@0.9 #dev"),
        "the embed is shown inline:\n{}",
        out.stdout
    );
}

#[test]
fn start_prints_the_id_or_json() {
    let kiln = TestKiln::empty();
    let id = start(
        &kiln,
        &["--title", "Fix: the parser!", "--agent", "coder@1.0"],
    );
    assert!(id.ends_with("-fix-the-parser"), "{id}");
    let out = kiln.run(&[
        "session",
        "start",
        "--title",
        "Fix: the parser!",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["id"], format!("{id}-2"));
    assert_eq!(v["path"], format!("[KILN]/.crucible/sessions/{id}-2.md"));
    assert!(kiln.sessions().join(format!("{id}-2.md")).is_file());
}

#[test]
fn fifty_concurrent_starts_get_fifty_ids() {
    let kiln = TestKiln::empty();
    let children: Vec<_> = (0..50)
        .map(|_| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin("cru"))
                .args(["session", "start", "--title", "same"])
                .current_dir(kiln.root.path())
                .env("HOME", kiln.root.path())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let ids: HashSet<String> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success());
            String::from_utf8(out.stdout).unwrap().trim().to_owned()
        })
        .collect();
    assert_eq!(ids.len(), 50);
    assert_eq!(
        crucible_core::store::session_files(&kiln.sessions())
            .unwrap()
            .len(),
        50
    );
}

#[test]
fn concurrent_loggers_through_the_cli_lose_nothing() {
    let kiln = TestKiln::empty();
    let id = start(&kiln, &["--title", "shared"]);
    let cru = assert_cmd::cargo::cargo_bin("cru");
    let script = format!(
        "for i in $(seq 25); do '{}' session log tool bash \"w$W-$i\" --result ok || exit 1; done",
        cru.display()
    );
    let children: Vec<_> = (0..4)
        .map(|w| {
            std::process::Command::new("bash")
                .args(["-c", &script])
                .current_dir(kiln.root.path())
                .env("HOME", kiln.root.path())
                .env("CRU_SESSION", &id)
                .env("W", w.to_string())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let log = store(&kiln).load(&id).unwrap().1;
    let args: HashSet<_> = log.tool_calls().map(|c| c.args.clone()).collect();
    assert_eq!(args.len(), 100);
    let out = kiln.run(&["session", "validate", &id]);
    assert_eq!(out.code, 0, "{}", out.stdout);
}

#[test]
fn logging_to_an_ended_session_needs_reopen() {
    let kiln = TestKiln::empty();
    let id = start(&kiln, &[]);
    assert_eq!(
        kiln.run(&["session", "end", &id, "--status", "failed"])
            .code,
        0
    );
    let out = log(&kiln, &id, &["decision", "try again"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stderr.replace(&id, "[ID]"), @r"
    error: session `[ID]` is failed; logging to it needs --reopen
    hint: pass --reopen to continue it, or start a new session with `cru session start`
    ");
    let out = log(&kiln, &id, &["--reopen", "decision", "try again"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let log = store(&kiln).load(&id).unwrap().1;
    assert_eq!(log.frontmatter.status, SessionStatus::Active);
    assert_eq!(log.frontmatter.ended, None);
}

#[test]
fn errors_name_what_is_wrong() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["session", "log", "decision", "x"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stderr, @r"
    error: which session? none given
    hint: pass --session ID, or export CRU_SESSION=ID (the id `cru session start` printed)
    ");
    let out = log(&kiln, "nope", &["decision", "x"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.starts_with("error: no session matches `nope`"),
        "{}",
        out.stderr
    );
    let id = start(&kiln, &[]);
    let out = log(&kiln, &id, &["tokens", "many"]);
    assert_eq!(out.code, 2, "a usage error");
    assert!(
        out.stderr.contains("invalid value 'many'"),
        "{}",
        out.stderr
    );
    let out = log(&kiln, &id, &["phase", "Deploy #prod"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stderr, @"error: phase name cannot end with an @ or # word (it would read as the agent or channel)");
    let out = kiln.run(&["session", "pause", &id, "--at", "phase-3"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stderr, @"error: resume point phase-3 names no phase (the session has 0)");
    let out = kiln.run_cmd(
        kiln.command()
            .args(["session", "log", "--session", &id, "tasks"])
            .write_stdin("[{\"content\": \"x\", \"status\": \"done\"}]"),
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("stdin: task 1: unknown variant `done`"),
        "{}",
        out.stderr
    );
}

#[test]
fn tasks_come_from_files_stdin_and_todo_lists() {
    let kiln = TestKiln::empty();
    let id = start(&kiln, &[]);
    let file = kiln.root.path().join("todos.json");
    std::fs::write(&file, r#"{"todos": [{"id": "a", "content": "first", "status": "completed", "priority": "high"}]}"#).unwrap();
    assert_eq!(log(&kiln, &id, &["tasks", file.to_str().unwrap()]).code, 0);
    let claude =
        r#"[{"content": "Run tests", "status": "in_progress", "activeForm": "Running tests"}]"#;
    let out = kiln.run_cmd(
        kiln.command()
            .args(["session", "log", "--session", &id, "tasks"])
            .write_stdin(claude),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let log = store(&kiln).load(&id).unwrap().1;
    let tasks = log.tasks().unwrap();
    assert_eq!(tasks.len(), 1, "replaced, not appended");
    assert_eq!(
        (tasks[0].id.as_str(), tasks[0].content.as_str()),
        ("1", "Run tests")
    );
    assert_eq!(tasks[0].extra["activeForm"], "Running tests");
}

#[test]
fn pause_at_a_phase_and_end_with_a_summary() {
    let kiln = TestKiln::empty();
    let id = start(&kiln, &["--agent", "coder@1.0", "--channel", "dev"]);
    for p in ["One", "Two", "Three"] {
        assert_eq!(log(&kiln, &id, &["phase", p]).code, 0);
    }
    assert_eq!(kiln.run(&["session", "pause", &id, "--at", "2"]).code, 0);
    let l = store(&kiln).load(&id).unwrap().1;
    assert_eq!(l.frontmatter.status, SessionStatus::Paused);
    assert_eq!(l.frontmatter.resume_point.unwrap().to_string(), "phase-2");
    assert_eq!(
        kiln.run(&["session", "end", &id, "--summary", "All three done."])
            .code,
        0
    );
    let text = std::fs::read_to_string(kiln.sessions().join(format!("{id}.md"))).unwrap();
    assert!(text.contains("status: completed\n"), "{text}");
    assert!(text.ends_with("## Summary\n\nAll three done.\n"), "{text}");
}

#[test]
fn idle_sessions_are_paused_at_their_last_phase() {
    let kiln = TestKiln::empty();
    let idle = start(&kiln, &["--title", "idle"]);
    let busy = start(&kiln, &["--title", "busy"]);
    assert_eq!(
        log(&kiln, &idle, &["phase", "Only", "--channel", "dev"]).code,
        0
    );
    let three_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3 * 3600);
    // Nothing written for three hours: the file, and the journal that keeps
    // the events of the last fold beside it.
    let file = kiln.sessions().join(format!("{idle}.md"));
    for written in [
        file.clone(),
        crucible_core::store::journal::journal_path(&file),
    ] {
        if written.exists() {
            std::fs::File::options()
                .write(true)
                .open(written)
                .unwrap()
                .set_modified(three_hours_ago)
                .unwrap();
        }
    }
    let out = kiln.run(&["session", "pause", "--idle"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.trim(), idle);
    let s = store(&kiln);
    let l = s.load(&idle).unwrap().1;
    assert_eq!(l.frontmatter.status, SessionStatus::Paused);
    assert_eq!(l.frontmatter.resume_point.unwrap().to_string(), "phase-1");
    assert_eq!(
        s.load(&busy).unwrap().1.frontmatter.status,
        SessionStatus::Active
    );
}

#[test]
fn the_tool_policy_is_configurable() {
    let kiln = TestKiln::empty();
    std::fs::write(
        kiln.root.path().join(".crucible/config.toml"),
        "[session]\nsave_policy = \"tool\"\n",
    )
    .unwrap();
    let id = start(&kiln, &[]);
    assert_eq!(log(&kiln, &id, &["tool", "ls"]).code, 0);
    let journal =
        crucible_core::store::journal::journal_path(&kiln.sessions().join(format!("{id}.md")));
    assert!(journal.is_file());
    assert_eq!(store(&kiln).load(&id).unwrap().1.tool_calls().count(), 1);
}
