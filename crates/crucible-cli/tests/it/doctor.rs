//! `cru doctor`: each section on a directory made for it, the exit status,
//! and the JSON.

use crate::kiln::TestKiln;

#[test]
fn a_healthy_directory_is_all_ok_and_exit_0() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["doctor"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @"
    sessions directory
      ok       [KILN]/.crucible/sessions: the project's, found upward at [KILN]

    indexes
      ok       session index: 9 sessions, fresh
      note     search index: not built yet (the first `cru session search` builds it)

    capture directory
      note     [KILN]/home/.crucible/sessions: the default: hooks, `cru watch` and `cru session import` with no path write here, not to the sessions directory above

    agent stores
      note     Claude Code ([KILN]/home/.claude/projects): not on this machine
      note     Claude Code ([KILN]/home/.config/claude/projects): not on this machine
      note     Codex ([KILN]/home/.codex/sessions): not on this machine
      note     Codex ([KILN]/home/.codex/archived_sessions): not on this machine
      note     Gemini CLI ([KILN]/home/.gemini/tmp): not on this machine
      note     GitHub Copilot CLI ([KILN]/home/.copilot/session-state): not on this machine
      note     OpenCode ([KILN]/home/.local/share/opencode): not on this machine

    watcher
      note     cru watch: not running (reads prove freshness themselves; imports happen when you run them)
               hint: docs/capture.md shows a systemd unit and a launchd plist to run it at login

    hooks
      note     Claude Code hooks: not installed
               hint: `cru setup claude-code` records every Claude Code session as it happens
    ");
}

#[test]
fn a_named_directory_that_is_not_there_is_a_problem() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["doctor", "--dir", "nowhere"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    // The capture sections follow, as in the test above.
    assert!(
        out.stdout.starts_with(
            "sessions directory\n  problem  [KILN]/nowhere: from --dir; no such directory: [KILN]/nowhere\n           hint: pass --dir DIR, or set $CRU_SESSIONS_DIR or [session] dir\n\nagent stores\n"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn unreadable_files_and_a_broken_search_index_are_named() {
    let kiln = TestKiln::with_fixtures();
    kiln.write(
        "broken.md",
        "---\ntype: session\nsession_id: broken\ntitle: [unclosed\n---\n",
    );
    let search = kiln.run(&["session", "search", "flaky"]);
    assert!(search.code == 0 || search.code == 3, "{}", search.stderr);
    std::fs::write(kiln.sessions().join(".search/manifest"), "garbage\n").unwrap();
    let out = kiln.run(&["doctor", "--format", "json"]);
    assert_eq!(out.code, 0, "warnings do not fail: {}", out.stdout);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let checks: Vec<(String, String)> = v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["checks"].as_array().unwrap().iter())
        .map(|c| {
            (
                c["level"].as_str().unwrap().to_owned(),
                c["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        checks.iter().any(|(l, m)| l == "warning"
            && m.contains("1 files cannot be read")
            && m.contains("broken.md")),
        "{checks:?}"
    );
    assert!(
        checks
            .iter()
            .any(|(l, m)| l == "warning" && m.contains("the next search rebuilds it")),
        "{checks:?}"
    );
}

/// The checks of one section of `cru doctor --format json`, as
/// (level, what, message).
fn section(stdout: &str, name: &str) -> Vec<(String, String, String)> {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
    v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"] == name)
        .flat_map(|s| s["checks"].as_array().unwrap().iter())
        .map(|c| {
            let text = |k: &str| c[k].as_str().unwrap().to_owned();
            (text("level"), text("what"), text("message"))
        })
        .collect()
}

#[test]
fn capture_sections_name_the_silent_failures() {
    let kiln = TestKiln::empty();
    let home = kiln.root.path().join("home");
    let sessions = kiln.sessions().display().to_string();
    let doctor = || {
        let out = kiln.run(&["--dir", &sessions, "doctor", "--format", "json"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    // A store with a session never imported.
    let project = home.join(".claude/projects/-work-shop");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(
        crate::kiln::fixtures().join("hooks/transcript.jsonl"),
        project.join("9d2c4b1e-5f6a-4c7d-8e9f-0a1b2c3d4e5f.jsonl"),
    )
    .unwrap();
    let stores = section(&doctor(), "agent stores");
    assert!(
        stores
            .iter()
            .any(|(l, _, m)| l == "warning" && m.contains("never imported")),
        "{stores:?}"
    );
    // Hooks installed that never fired.
    let out = kiln.run(&["setup", "claude-code"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let hooks = section(&doctor(), "hooks");
    assert!(
        hooks[0].0 == "warning" && hooks[0].2.contains("no event has reached"),
        "{hooks:?}"
    );
    // One event recorded, and one that failed.
    for payload in ["session-start.json", "not json"] {
        let input = std::fs::read(crate::kiln::fixtures().join("hooks").join(payload))
            .unwrap_or_else(|_| payload.as_bytes().to_vec());
        let out = kiln
            .command()
            .env("XDG_STATE_HOME", kiln.root.path().join("state"))
            .args(["--dir", &sessions, "hook", "claude-code"])
            .write_stdin(input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
    }
    let out = kiln
        .command()
        .env("XDG_STATE_HOME", kiln.root.path().join("state"))
        .args(["--dir", &sessions, "doctor", "--format", "json"])
        .output()
        .unwrap();
    let hooks = section(&String::from_utf8_lossy(&out.stdout), "hooks");
    assert!(
        hooks[0].0 == "ok" && hooks[0].2.contains("last event"),
        "{hooks:?}"
    );
    assert!(
        hooks
            .iter()
            .any(|(l, _, m)| l == "warning" && m.contains("1 hook runs failed")),
        "{hooks:?}"
    );
}

#[test]
fn a_watcher_that_died_is_not_trusted() {
    let kiln = TestKiln::with_fixtures();
    let watch = kiln.sessions().join(".cru-watch");
    std::fs::create_dir_all(&watch).unwrap();
    // A beat left by a watcher killed with -9: its pid is gone.
    let now = std::time::SystemTime::now();
    let mut beat = crucible_index::watcher::WatcherHeartbeat::new(u32::MAX - 1, now, true);
    beat.write(&kiln.sessions(), now).unwrap();
    let sessions = kiln.sessions().display().to_string();
    let out = kiln.run(&["--dir", &sessions, "doctor", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let watcher = section(&out.stdout, "watcher");
    assert!(
        watcher[0].0 == "warning" && watcher[0].2.contains("is gone"),
        "{watcher:?}"
    );
}

/// Hooks that run a cru no longer there (an upgrade removed its folder)
/// fail before they can log anything: doctor says so, exit 1.
#[test]
fn hooks_that_run_a_cru_no_longer_there_are_a_problem() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["setup", "claude-code"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let settings = kiln.root.path().join("home/.claude/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap();
    let cru = assert_cmd::cargo::cargo_bin("cru").canonicalize().unwrap();
    let moved = text.replace(cru.to_str().unwrap(), "/opt/cru-0.1/bin/cru");
    assert_ne!(moved, text);
    std::fs::write(&settings, moved).unwrap();
    let sessions = kiln.sessions().display().to_string();
    let out = kiln.run(&["--dir", &sessions, "doctor", "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let hooks = section(&out.stdout, "hooks");
    assert!(
        hooks
            .iter()
            .any(|(l, _, m)| l == "problem"
                && m.contains("/opt/cru-0.1/bin/cru, which is not there")),
        "{hooks:?}"
    );
}

/// A store's sessions that `[capture]` leaves out are said to be, naming
/// the config file: never "never imported", nor "all imported".
#[test]
fn the_store_line_names_sessions_left_out_by_capture() {
    let kiln = TestKiln::empty();
    let off = kiln.root.path().join("off");
    std::fs::create_dir_all(off.join(".crucible")).unwrap();
    std::fs::write(
        off.join(".crucible/config.toml"),
        "[capture]\nenabled = false\n",
    )
    .unwrap();
    let store = kiln.root.path().join("home/.claude/projects/-off");
    std::fs::create_dir_all(&store).unwrap();
    let text = std::fs::read_to_string(
        crate::kiln::fixtures().join("real/claude-code/agentcmd/full/full-session-two.jsonl"),
    )
    .unwrap()
    .replace(
        "/Users/jnarowski/Dev/sourceborn/src/agent-workflows-monorepo-v2",
        &off.display().to_string(),
    );
    std::fs::write(store.join("off.jsonl"), text).unwrap();
    let claude_line = || {
        let out = kiln.run(&["doctor", "--format", "json"]);
        let stores = section(&out.stdout, "agent stores");
        stores
            .into_iter()
            .find(|(_, what, _)| what.contains(".claude/projects"))
            .unwrap()
    };
    let want = "1 left out by [capture] ([KILN]/off/.crucible/config.toml)";
    for round in ["before an import", "after one"] {
        let (level, _, message) = claude_line();
        assert!(message.contains(want), "{round}: {message}");
        assert!(!message.contains("never imported"), "{round}: {message}");
        assert!(!message.contains("all imported"), "{round}: {message}");
        assert_eq!(level, "ok", "{round}: {message}");
        let out = kiln.run(&["session", "import"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
}
