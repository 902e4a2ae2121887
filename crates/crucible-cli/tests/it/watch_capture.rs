//! `cru watch --once` over the agents' stores under `$HOME`: the import of
//! `cru session import` with no path (its state, its routing), and the
//! watcher's own rule for what is live.

use std::path::{Path, PathBuf};

use crate::kiln::{Output, TestKiln, fixtures, listed_sessions};

fn home(kiln: &TestKiln) -> PathBuf {
    kiln.root.path().join("home")
}

fn user_sessions(kiln: &TestKiln) -> PathBuf {
    home(kiln).join(".crucible/sessions")
}

fn claude_store(kiln: &TestKiln, slug: &str) -> PathBuf {
    let p = home(kiln).join(".claude/projects").join(slug);
    std::fs::create_dir_all(&p).unwrap();
    p
}

fn run(kiln: &TestKiln, args: &[&str]) -> Output {
    let out = kiln.run(args);
    assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    out
}

fn sessions_in(dir: &Path) -> usize {
    crucible_core::store::session_files(dir).map_or(0, |f| f.len())
}

fn real(rel: &str) -> String {
    std::fs::read_to_string(fixtures().join("real/claude-code").join(rel)).unwrap()
}

fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// `--once` reads only what changed since the last import (no-path import
/// or watcher: one state), keeps that state current for the next no-path
/// import, and says one line; the records read per file only with `-v`.
#[test]
fn once_reads_only_what_changed_and_keeps_the_import_state_current() {
    let kiln = TestKiln::empty();
    let store = claude_store(&kiln, "-p");
    for (name, rel) in [
        ("a.jsonl", "spotter/short.jsonl"),
        ("b.jsonl", "agentcmd/full/full-session-two.jsonl"),
    ] {
        std::fs::write(store.join(name), real(rel)).unwrap();
    }
    run(&kiln, &["session", "import"]);
    let once = run(&kiln, &["watch", "--once"]);
    assert!(
        once.stderr.contains(": 2 sources, 0 parsed: 0 created"),
        "{}",
        once.stderr
    );
    assert!(!once.stderr.contains("records read"), "{}", once.stderr);
    assert_eq!(once.stderr.lines().count(), 1, "{}", once.stderr);
    // Grown: read alone, then known to the no-path import.
    let b = store.join("b.jsonl");
    let first = real("spotter/short.jsonl");
    append(&b, first.lines().next().unwrap());
    append(&b, "\n");
    let once = run(&kiln, &["-v", "watch", "--once"]);
    assert!(
        once.stderr.contains(": 2 sources, 1 parsed"),
        "{}",
        once.stderr
    );
    assert!(once.stderr.contains("b.jsonl: "), "{}", once.stderr);
    assert!(once.stderr.contains("records read"), "{}", once.stderr);
    let import = run(&kiln, &["session", "import"]);
    assert!(
        import.stderr.contains("0 parsed: 0 created"),
        "{}",
        import.stderr
    );
}

/// A project with `[capture] project = true` keeps its own sessions: the
/// watcher puts them there, as `cru session import` does.
#[test]
fn once_puts_a_projects_sessions_in_its_own_directory() {
    let kiln = TestKiln::empty();
    let own = kiln.root.path().join("own");
    std::fs::create_dir_all(own.join(".crucible")).unwrap();
    std::fs::write(
        own.join(".crucible/config.toml"),
        "[capture]\nproject = true\n",
    )
    .unwrap();
    let text = real("agentcmd/full/full-session-two.jsonl").replace(
        "/Users/jnarowski/Dev/sourceborn/src/agent-workflows-monorepo-v2",
        &own.display().to_string(),
    );
    std::fs::write(claude_store(&kiln, "-own").join("own.jsonl"), text).unwrap();
    let once = run(&kiln, &["watch", "--once"]);
    assert!(
        once.stderr.contains("1 into their project's own sessions"),
        "{}",
        once.stderr
    );
    assert_eq!(
        sessions_in(&own.join(".crucible/sessions")),
        1,
        "{}",
        once.stderr
    );
    assert_eq!(sessions_in(&user_sessions(&kiln)), 0);
    let again = run(&kiln, &["watch", "--once"]);
    assert!(
        again.stderr.contains("1 sources, 0 parsed"),
        "{}",
        again.stderr
    );
}

/// Copied, restored or touched transcripts have a fresh mtime and old
/// records: not live. A transcript whose last record is from now is.
#[test]
fn once_takes_old_records_with_a_fresh_mtime_for_a_finished_session() {
    let kiln = TestKiln::empty();
    let store = claude_store(&kiln, "-p");
    let old = fixtures().join("real/claude-code/sniffly/-Users-chip-dev-ai-music");
    for f in std::fs::read_dir(&old).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, store.join(f.file_name().unwrap())).unwrap();
    }
    std::fs::write(
        store.join("now.jsonl"),
        crate::watch::fresh(&real("spotter/short.jsonl")),
    )
    .unwrap();
    run(&kiln, &["watch", "--once"]);
    let dir = user_sessions(&kiln);
    let list = run(
        &kiln,
        &[
            "session",
            "list",
            "--format",
            "json",
            "--dir",
            dir.to_str().unwrap(),
        ],
    );
    let statuses: Vec<String> = listed_sessions(&list.stdout)
        .iter()
        .map(|s| s["status"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| *s == "active").count(),
        1,
        "{statuses:?}"
    );
    assert!(statuses.len() >= 3, "{statuses:?}");
}
