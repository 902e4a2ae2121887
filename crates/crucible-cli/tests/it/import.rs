//! `cru session import` on the foreign fixtures: the sessions it writes,
//! damaged parts as warnings, idempotent re-imports, sources that grew, and
//! imported sessions that resume, codify and learn like native ones.

use std::path::Path;

use crate::kiln::{TestKiln, fixtures};

fn foreign(rel: &str) -> String {
    fixtures().join("foreign").join(rel).display().to_string()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn imports_message_files_and_agent_folders() {
    let kiln = TestKiln::empty();
    // Folder names carry the time, so the ids are fixed; a message file's
    // session starts at the file's mtime.
    let out = kiln.run(&["session", "import", &foreign("agent-dir")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @r"
    2024-12-18-agent-session-2024-12-18-16-45-12
    2024-12-19-what-does-the-retry-loop-in-fetch-go-do
    2024-12-19-add-a-verbose-flag-to-the-cli
    ");
    let chat = kiln.run(&["session", "import", &foreign("openai/refactor-chat.json")]);
    assert_eq!(chat.code, 0, "{}", chat.stderr);
    assert!(
        chat.stdout
            .trim()
            .ends_with("-rename-calc-to-compute-everywhere-in-lib"),
        "{}",
        chat.stdout
    );
    insta::assert_snapshot!(out.stderr, @r"
    [FIXTURES]/foreign/agent-dir/.agent/sessions/2024-12-18-16-45-12: 0 records read
    warning: [FIXTURES]/foreign/agent-dir/.agent/sessions/2024-12-19-10-15-22/todos.json:1: not JSON: EOF while parsing an object at line 1 column 75; the tasks are left out
    [FIXTURES]/foreign/agent-dir/.agent/sessions/2024-12-19-10-15-22: 5 records read (message/assistant 2, message/system 1, message/tool 1, message/user 1); 1 skipped (todos.json 1: damaged; the tasks are left out)
    [FIXTURES]/foreign/agent-dir/.agent/sessions/2024-12-19-14-30-45: 15 records read (message/assistant 4, message/system 1, message/tool 5, message/user 2, todo 3)
    3 created, 0 updated, 0 unchanged, 0 skipped
    ");
    let text = std::fs::read_to_string(
        kiln.sessions()
            .join("2024-12-19-add-a-verbose-flag-to-the-cli.md"),
    )
    .unwrap()
    .replace(&fixtures().display().to_string(), "[FIXTURES]");
    insta::assert_snapshot!(text);
    let check = kiln.run(&["session", "validate"]);
    assert_eq!(check.code, 0, "{}", check.stdout);
    // The same sources again: nothing changes.
    let again = kiln.run(&[
        "session",
        "import",
        &foreign("agent-dir"),
        &foreign("openai/refactor-chat.json"),
    ]);
    assert!(
        again
            .stderr
            .ends_with("0 created, 0 updated, 4 unchanged, 0 skipped\n"),
        "{}",
        again.stderr
    );
    assert_eq!(again.stdout, "");
}

#[test]
fn a_partial_last_line_is_a_warning_and_the_rest_is_imported() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["session", "import", &foreign("openai/support.jsonl")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("support.jsonl:6: not JSON"),
        "{}",
        out.stderr
    );
    let id = out.stdout.trim();
    let show = kiln.run(&["session", "show", id, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&show.stdout).unwrap();
    let blocks = &v["session"]["sections"][0]["blocks"];
    assert_eq!(blocks[2]["calls"][0]["tool"], "read_file");
    assert_eq!(blocks[2]["calls"][0]["failed"], true);
}

#[test]
fn nothing_importable_is_an_error() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&[
        "session",
        "import",
        &fixtures().join("invalid").display().to_string(),
    ]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("nothing cru can import here"),
        "{}",
        out.stderr
    );
    let out = kiln.run(&[
        "session",
        "import",
        &foreign("openai"),
        "--from",
        "agent-dir",
    ]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("expected agent-dir"), "{}", out.stderr);
}

#[test]
fn a_source_that_grew_updates_its_session_unless_cru_changed_it() {
    let kiln = TestKiln::empty();
    let src = kiln.root.path().join("src/.agent/sessions");
    copy_dir(&fixtures().join("foreign/agent-dir/.agent/sessions"), &src);
    let folder = src.join("2024-12-19-10-15-22");
    let folder_arg = folder.display().to_string();
    let out = kiln.run(&["session", "import", &folder_arg]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = out.stdout.trim().to_owned();

    // The conversation went on.
    let log = folder.join("agent.log");
    let text = std::fs::read_to_string(&log).unwrap();
    let grown = text.trim_end().trim_end_matches(']').trim_end().to_owned()
        + ",\n  {\"role\": \"user\", \"content\": \"add a delay between attempts\"}\n]\n";
    std::fs::write(&log, grown).unwrap();
    let out = kiln.run(&["session", "import", &folder_arg]);
    assert!(
        out.stderr.contains(&format!("updated {id}")),
        "{}",
        out.stderr
    );
    let show = kiln.run(&["session", "show", &id, "--format", "markdown"]);
    assert!(
        show.stdout
            .contains("## add a delay between attempts #main"),
        "{}",
        show.stdout
    );

    // Resumed in cru, then the source grows again: not overwritten.
    let resumed = kiln.run(&[
        "session",
        "resume",
        &id,
        "--agent-cmd",
        "cat >/dev/null; echo ok",
    ]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    std::fs::write(
        &log,
        std::fs::read_to_string(&log)
            .unwrap()
            .replace("add a delay", "add a backoff delay"),
    )
    .unwrap();
    let out = kiln.run(&["session", "import", &folder_arg]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("was changed in cru since its import"),
        "{}",
        out.stderr
    );
    let show = kiln.run(&["session", "show", &id, "--format", "markdown"]);
    assert!(
        show.stdout.contains("> [!reply] @assistant\n> ok"),
        "{}",
        show.stdout
    );
    let forced = kiln.run(&["session", "import", &folder_arg, "--force"]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    let show = kiln.run(&["session", "show", &id, "--format", "markdown"]);
    assert!(
        show.stdout.contains("add a backoff delay"),
        "{}",
        show.stdout
    );
}

#[test]
fn imported_sessions_resume_codify_and_learn() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&[
        "session",
        "import",
        &foreign("agent-dir"),
        &foreign("openai"),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ids: Vec<String> = out.stdout.lines().map(str::to_owned).collect();
    assert_eq!(ids.len(), 5);
    for id in &ids {
        let r = kiln.run(&["session", "resume", id, "--format", "messages"]);
        assert_eq!(r.code, 0, "{id}: {}", r.stderr);
        if id.contains("agent-session") {
            continue; // empty: nothing to make steps of
        }
        let out_file = kiln.root.path().join(format!("{id}.workflow.md"));
        let c = kiln.run(&["session", "codify", id, "-o", out_file.to_str().unwrap()]);
        assert_eq!(c.code, 0, "{id}: {}", c.stderr);
        let v = kiln.run(&["workflow", "validate", out_file.to_str().unwrap()]);
        assert_eq!(v.code, 0, "{id}: {}", v.stdout);
    }
    let learn = kiln.run(&["session", "learn", "--export", "jsonl"]);
    assert_eq!(learn.code, 0, "{}", learn.stderr);
    // The one user message that redirects the agent's work is a
    // correction; each session's first is its prompt, and failed calls are
    // not errors.
    assert!(
        learn.stderr.starts_with("1 case (0 puzzles, 1 correction)"),
        "{}",
        learn.stderr
    );
}

#[test]
fn codeloops_sessions_import_with_outcome_and_critic() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["session", "import", &foreign("codeloops")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @"
    2025-01-27-add-input-validation-to-the-user-registration-en
    2025-01-28-use-the-validator-crate-for-the-registration-che
    2025-01-29-speed-up-the-user-search-query
    ");
    assert!(
        out.stderr
            .contains("2025-01-29T18-00-00Z_c0ffee.jsonl:3: not JSON"),
        "{}",
        out.stderr
    );
    let list = kiln.run(&["session", "list", "--format", "json"]);
    let v = crate::kiln::listed_sessions(&list.stdout);
    let statuses: Vec<&str> = v.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["active", "failed", "completed"]);
    let text = std::fs::read_to_string(
        kiln.sessions()
            .join("2025-01-27-add-input-validation-to-the-user-registration-en.md"),
    )
    .unwrap()
    .replace(&fixtures().display().to_string(), "[FIXTURES]");
    insta::assert_snapshot!(text);
    // It resumes (active), codifies and learns like a native session.
    let id = "2025-01-28-use-the-validator-crate-for-the-registration-che";
    assert_eq!(
        kiln.run(&["session", "resume", id, "--format", "prompt"])
            .code,
        0
    );
    let wf = kiln.root.path().join("wf.md");
    assert_eq!(
        kiln.run(&["session", "codify", id, "-o", wf.to_str().unwrap()])
            .code,
        0
    );
    assert_eq!(
        kiln.run(&["workflow", "validate", wf.to_str().unwrap()])
            .code,
        0
    );
    let learn = kiln.run(&["session", "learn", id, "--export", "jsonl"]);
    assert!(
        learn.stderr.starts_with("1 case (1 puzzle, 0 corrections)"),
        "{}",
        learn.stderr
    );
}

#[test]
fn connectonion_sessions_keep_their_eval_fields() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&[
        "session",
        "import",
        &foreign("connectonion"),
        "--from",
        "connectonion",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @"
    2025-12-28-count-the-todo-comments-in-src
    2024-11-27-check-my-emails
    2025-12-03-list-files-in-current-directory
    ");
    let md = kiln.run(&["session", "show", "2025-12-03-list", "--format", "markdown"]);
    assert!(
        md.stdout.contains("<!-- phase: started=2025-12-03T10:17:47Z duration_ms=12500 tokens=8500 model=co/gemini-2.5-pro cost_usd=0.0289 -->"),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout
            .contains("> [!expect]\n> result: All tests pass\n\n> [!eval] failed\n"),
        "{}",
        md.stdout
    );
    let md = kiln.run(&[
        "session",
        "show",
        "2024-11-27-check",
        "--format",
        "markdown",
    ]);
    assert!(
        md.stdout
            .contains("> [!expect]\n> tools: get_emails\n> result: shows email list\n"),
        "{}",
        md.stdout
    );
    for id in [
        "2024-11-27-check-my-emails",
        "2025-12-03-list-files-in-current-directory",
    ] {
        assert_eq!(
            kiln.run(&["session", "resume", id, "--format", "messages"])
                .code,
            0
        );
        let wf = kiln.root.path().join(format!("{id}.md"));
        assert_eq!(
            kiln.run(&["session", "codify", id, "-o", wf.to_str().unwrap()])
                .code,
            0
        );
        assert_eq!(
            kiln.run(&["workflow", "validate", wf.to_str().unwrap()])
                .code,
            0
        );
    }
    let stats = kiln.run(&["session", "stats", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stats.stdout).unwrap();
    // The two session files and the eval's latest run.
    assert_eq!(v["total"]["tokens"], 1234 + 2345 + 33500 + 1856);
}

#[test]
fn claude_code_transcripts_import_with_their_token_totals() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["session", "import", &foreign("claude-code")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Each transcript, then its subagents' sessions.
    insta::assert_snapshot!(out.stdout, @r"
    2025-08-14-fix-failing-date-parser-test
    2025-08-14-search-the-codebase-for-the-leap-year-check
    2025-10-02-review-the-date-parser
    2025-10-02-review-century-year-handling
    ");
    let id = "2025-08-14-fix-failing-date-parser-test";
    let stats = kiln.run(&["session", "stats", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stats.stdout).unwrap();
    // What ccusage reports for the two transcripts: 14,015 + 20,555.
    assert_eq!(v["total"]["tokens"], 14015 + 20555);
    // Subagents are listed as done, their parents as paused.
    let paused = kiln.run(&["session", "list", "--status", "paused", "--format", "json"]);
    assert_eq!(crate::kiln::listed_sessions(&paused.stdout).len(), 2);
    // A subagent shows inside its parent.
    let show = kiln.run(&["session", "show", "2025-10-02-review-the-date-parser"]);
    assert!(
        show.stdout.contains("review-century-year-handling"),
        "{}",
        show.stdout
    );
    assert_eq!(
        kiln.run(&["session", "resume", id, "--format", "messages"])
            .code,
        0
    );
    let wf = kiln.root.path().join("wf.md");
    assert_eq!(
        kiln.run(&["session", "codify", id, "-o", wf.to_str().unwrap()])
            .code,
        0
    );
    let text = std::fs::read_to_string(&wf).unwrap();
    // Absolute paths under the session's cwd (/home/me/myapp) are relative.
    assert!(text.contains("dates.py::Python"), "{text}");
    assert!(!text.contains("/home/me/myapp/dates.py"), "{text}");
    let learn = kiln.run(&["session", "learn", id, "--export", "jsonl"]);
    assert!(
        learn
            .stderr
            // The follow-up ("also add a test for 1900") corrects the first
            // turn's work, but nothing came after it but an aborted request,
            // and the error has no resolution: neither has an answer to train on.
            .starts_with("0 cases (0 puzzles, 0 corrections) from 1 session; 2 left out"),
        "{}",
        learn.stderr
    );
}

#[test]
fn codex_rollouts_import_resume_codify_and_learn() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["session", "import", &foreign("codex"), "--from", "codex"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = out.stdout.trim();
    assert_eq!(
        id,
        "2025-09-02-why-does-npm-test-fail-on-ci-but-not-locally"
    );
    assert_eq!(
        kiln.run(&["session", "resume", id, "--format", "messages"])
            .code,
        0
    );
    let wf = kiln.root.path().join("wf.md");
    assert_eq!(
        kiln.run(&["session", "codify", id, "-o", wf.to_str().unwrap()])
            .code,
        0
    );
    let text = std::fs::read_to_string(&wf).unwrap();
    // The file the first phase read is the one the second patched.
    assert!(text.contains(".github/workflows/ci.yml"), "{text}");
    assert_eq!(
        kiln.run(&["workflow", "validate", wf.to_str().unwrap()])
            .code,
        0
    );
    let learn = kiln.run(&["session", "learn", id, "--export", "jsonl"]);
    assert_eq!(learn.code, 0, "{}", learn.stderr);
}

/// Every session an import wrote, in id order, paths made machine-neutral.
fn imported_markdown(kiln: &TestKiln, replace: &[(&str, &str)]) -> String {
    let mut files: Vec<_> = std::fs::read_dir(kiln.sessions())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    let mut out = String::new();
    for f in files {
        out.push_str(&format!(
            "==> {} <==\n",
            f.file_name().unwrap().to_string_lossy()
        ));
        out.push_str(&std::fs::read_to_string(&f).unwrap());
        out.push('\n');
    }
    for (from, to) in replace {
        out = out.replace(from, to);
    }
    out
}

/// One snapshot of the markdown per row of the import table in
/// `docs/interop.md`: what a user gets from each kind of source.
#[test]
fn every_source_kind_imports_to_the_markdown_in_its_snapshot() {
    let fixtures_dir = fixtures().display().to_string();
    for kind in [
        "connectonion",
        "codeloops",
        "agent-dir",
        "claude-code",
        "codex",
    ] {
        let kiln = TestKiln::empty();
        let out = kiln.run(&["session", "import", &foreign(kind)]);
        assert_eq!(out.code, 0, "{kind}: {}", out.stderr);
        let text = imported_markdown(&kiln, &[(&fixtures_dir, "[FIXTURES]")]);
        insta::assert_snapshot!(format!("import-{kind}"), text);
    }
    // A message file carries no time: its session starts at the file's
    // mtime, so a copy with a fixed one is imported.
    let kiln = TestKiln::empty();
    let src = kiln.root.path().join("openai");
    copy_dir(Path::new(&foreign("openai")), &src);
    let fixed = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_735_000_000);
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        let f = std::fs::File::options().write(true).open(e.path()).unwrap();
        f.set_modified(fixed).unwrap();
    }
    let out = kiln.run(&["session", "import", src.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = imported_markdown(&kiln, &[(src.to_str().unwrap(), "[SOURCE]")]);
    insta::assert_snapshot!("import-openai-messages", text);
}
