//! `cru session import` with no path: the agents' stores found under
//! `$HOME` (and the variables that move them), only new or grown sources
//! read, into the user's sessions directory; `--list-sources`; the
//! projects' `[capture]` settings.

use std::path::{Path, PathBuf};

use crate::kiln::{Output, TestKiln};

/// A kiln whose `$HOME` is `<kiln>/home`, with no agent variable of the
/// caller's leaking in.
fn cru(kiln: &TestKiln, args: &[&str]) -> Output {
    let mut cmd = kiln.command();
    for var in ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME"] {
        cmd.env_remove(var);
    }
    kiln.run_cmd(cmd.args(args))
}

fn home(kiln: &TestKiln) -> PathBuf {
    kiln.root.path().join("home")
}

/// The user's sessions directory under that home.
fn user_sessions(kiln: &TestKiln) -> PathBuf {
    home(kiln).join(".crucible/sessions")
}

/// A small Claude Code transcript of `turns` prompts and replies, run in `cwd`.
fn transcript(sid: &str, cwd: &str, turns: usize) -> String {
    (0..turns).map(|i| turn(sid, cwd, i)).collect()
}

fn turn(sid: &str, cwd: &str, i: usize) -> String {
    let ts = format!("2026-01-01T00:{:02}:{:02}Z", i / 60 % 60, i % 60);
    format!(
        concat!(
            "{{\"type\":\"user\",\"sessionId\":\"{sid}\",\"uuid\":\"{sid}-u{i}\",\"timestamp\":\"{ts}\",\"cwd\":\"{cwd}\",",
            "\"message\":{{\"role\":\"user\",\"content\":\"question {i}\"}}}}\n",
            "{{\"type\":\"assistant\",\"sessionId\":\"{sid}\",\"uuid\":\"{sid}-a{i}\",\"parentUuid\":\"{sid}-u{i}\",\"timestamp\":\"{ts}\",\"cwd\":\"{cwd}\",",
            "\"message\":{{\"id\":\"msg-{sid}-{i}\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",",
            "\"content\":[{{\"type\":\"text\",\"text\":\"answer {i}\"}}],\"usage\":{{\"input_tokens\":10,\"output_tokens\":5}}}}}}\n"
        ),
        sid = sid,
        cwd = cwd,
        i = i,
        ts = ts
    )
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn sessions_in(dir: &Path) -> usize {
    crucible_core::store::session_files(dir).map_or(0, |f| f.len())
}

#[test]
fn no_path_imports_every_store_found_into_the_users_sessions_directory() {
    let kiln = TestKiln::empty();
    let projects = home(&kiln).join(".claude/projects/-work-app");
    write(
        &projects.join("s1.jsonl"),
        &transcript("s1", "/work/app", 2),
    );
    write(
        &projects.join("s2.jsonl"),
        &transcript("s2", "/work/app", 1),
    );
    write(&projects.join("notes.txt"), "not a transcript\n");
    // A real Codex rollout, where Codex keeps them.
    let rollout = "rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl";
    let codex = home(&kiln).join(".codex/sessions/2026/02/23");
    std::fs::create_dir_all(&codex).unwrap();
    std::fs::copy(
        crate::kiln::fixtures()
            .join("real/codex/localpush/sessions")
            .join(rollout),
        codex.join(rollout),
    )
    .unwrap();
    let out = cru(&kiln, &["session", "import"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "Claude Code: [KILN]/home/.claude/projects (default): 2 sources, 2 parsed: 2 created, 0 updated, 0 unchanged"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(
            "Codex: [KILN]/home/.codex/sessions (default): 1 sources, 1 parsed: 1 created"
        ),
        "{}",
        out.stderr
    );
    // Into ~/.crucible/sessions, not the kiln's `.crucible/sessions` of
    // the working directory.
    assert_eq!(sessions_in(&user_sessions(&kiln)), 3);
    assert_eq!(sessions_in(&kiln.sessions()), 0);
    let again = cru(&kiln, &["session", "import"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again
            .stderr
            .contains("0 parsed into [KILN]/home/.crucible/sessions: 0 created, 0 updated, 0 unchanged, 0 skipped")
            && again
                .stderr
                .contains("(default): 2 sources, 0 parsed: 0 created, 0 updated, 0 unchanged"),
        "{}",
        again.stderr
    );
    // --dir names where they go.
    let elsewhere = kiln.root.path().join("elsewhere");
    let named = cru(
        &kiln,
        &[
            "--dir",
            &elsewhere.display().to_string(),
            "session",
            "import",
        ],
    );
    assert_eq!(named.code, 0, "{}", named.stderr);
    assert_eq!(sessions_in(&elsewhere), 3);
}

#[test]
fn a_second_import_of_a_thousand_known_transcripts_parses_none() {
    let kiln = TestKiln::empty();
    let projects = home(&kiln).join(".claude/projects");
    for i in 0..1000 {
        let sid = format!("s{i:04}");
        write(
            &projects.join(format!("-p{}/{sid}.jsonl", i % 10)),
            &transcript(&sid, "/work/app", 1),
        );
    }
    let first = cru(&kiln, &["session", "import"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(
        first.stderr.contains("1000 parsed: 1000 created"),
        "{}",
        first.stderr
    );
    let second = cru(&kiln, &["session", "import"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(
        second
            .stderr
            .contains("1000 sources, 0 parsed: 0 created, 0 updated, 0 unchanged"),
        "{}",
        second.stderr
    );
    // One line appended to one transcript: that one alone is read again.
    let grown = projects.join("-p7/s0417.jsonl");
    let mut text = std::fs::read_to_string(&grown).unwrap();
    text.push_str(&turn("s0417", "/work/app", 1));
    std::fs::write(&grown, text).unwrap();
    let third = cru(&kiln, &["session", "import"]);
    assert_eq!(third.code, 0, "{}", third.stderr);
    assert!(
        third
            .stderr
            .contains("1000 sources, 1 parsed: 0 created, 1 updated, 0 unchanged"),
        "{}",
        third.stderr
    );
    // A state file damaged is rebuilt: everything read once, unchanged.
    std::fs::write(user_sessions(&kiln).join(".import-state.json"), "{").unwrap();
    let rebuilt = cru(&kiln, &["session", "import"]);
    assert!(
        rebuilt
            .stderr
            .contains("1000 parsed: 0 created, 0 updated, 1000 unchanged"),
        "{}",
        rebuilt.stderr
    );
}

#[test]
fn a_transcript_replaced_or_shrunk_is_read_again() {
    let kiln = TestKiln::empty();
    let t = home(&kiln).join(".claude/projects/-p/s.jsonl");
    write(&t, &transcript("s", "/work/app", 3));
    assert_eq!(cru(&kiln, &["session", "import"]).code, 0);
    // Replaced by a shorter file (a new inode, a smaller size).
    let tmp = t.with_extension("tmp");
    std::fs::write(&tmp, transcript("s", "/work/app", 2)).unwrap();
    std::fs::rename(&tmp, &t).unwrap();
    let out = cru(&kiln, &["session", "import"]);
    assert!(out.stderr.contains("1 sources, 1 parsed"), "{}", out.stderr);
}

#[test]
fn list_sources_shows_every_store_found_or_not() {
    let kiln = TestKiln::empty();
    let projects = home(&kiln).join(".claude/projects/-p");
    write(&projects.join("a.jsonl"), &transcript("a", "/work/app", 1));
    // A store that is not a folder is named, not read.
    write(&home(&kiln).join(".codex/sessions"), "");
    // A store's folder linked from elsewhere (dotfiles) is read where it is.
    let real = kiln.root.path().join("dotfiles/gemini-tmp");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::create_dir_all(home(&kiln).join(".gemini")).unwrap();
    std::os::unix::fs::symlink(&real, home(&kiln).join(".gemini/tmp")).unwrap();
    let out = cru(
        &kiln,
        &["session", "import", "--list-sources", "--format", "json"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["version"], 1);
    let stores = doc["stores"].as_array().unwrap();
    let claude = &stores[0];
    assert_eq!(claude["agent"], "claude-code");
    assert_eq!(claude["state"], "found");
    assert_eq!(claude["from"], "default");
    assert_eq!(
        (claude["sources"].as_u64(), claude["to_read"].as_u64()),
        (Some(1), Some(1))
    );
    let codex = stores
        .iter()
        .find(|s| s["path"].as_str().unwrap().ends_with(".codex/sessions"))
        .unwrap();
    assert_eq!(codex["state"], "refused");
    assert!(
        codex["why"].as_str().unwrap().contains("not a folder"),
        "{codex}"
    );
    let gemini = stores.iter().find(|s| s["agent"] == "gemini").unwrap();
    assert_eq!(gemini["state"], "found", "{gemini}");
    assert_eq!(gemini["path"], "[KILN]/dotfiles/gemini-tmp");
    assert!(
        stores
            .iter()
            .any(|s| s["agent"] == "opencode" && s["state"] == "missing")
    );
    // Nothing was imported.
    assert_eq!(sessions_in(&user_sessions(&kiln)), 0);
    let table = cru(&kiln, &["session", "import", "--list-sources"]);
    assert!(table.stdout.contains("Claude Code"), "{}", table.stdout);
    // Piped (as here): no escapes, as every table.
    assert!(table.stdout.starts_with("AGENT"), "{:?}", table.stdout);
    assert!(!table.stdout.contains('\x1b'), "{:?}", table.stdout);
    // The import itself warns of the file and goes on.
    let imported = cru(&kiln, &["session", "import"]);
    assert_eq!(imported.code, 3, "{}", imported.stderr);
    assert!(
        imported.stderr.contains(".codex/sessions: skipped: ")
            && imported.stderr.contains("not a folder"),
        "{}",
        imported.stderr
    );
    assert!(imported.stderr.contains("1 created"), "{}", imported.stderr);
    let after = cru(
        &kiln,
        &["session", "import", "--list-sources", "--format", "json"],
    );
    let doc: serde_json::Value = serde_json::from_str(&after.stdout).unwrap();
    assert_eq!(doc["stores"][0]["to_read"], 0);
}

#[test]
fn claude_config_dir_lists_several_folders() {
    let kiln = TestKiln::empty();
    let a = kiln.root.path().join("a");
    let b = kiln.root.path().join("b/projects");
    write(&a.join("projects/-p/x.jsonl"), &transcript("x", "/w", 1));
    write(&b.join("-q/deep/y.jsonl"), &transcript("y", "/w", 1));
    let mut cmd = kiln.command();
    cmd.env(
        "CLAUDE_CONFIG_DIR",
        format!("{},{}", a.display(), b.display()),
    )
    .env_remove("CODEX_HOME")
    .env_remove("XDG_DATA_HOME")
    .args(["session", "import"]);
    let out = kiln.run_cmd(&mut cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("Claude Code: [KILN]/a/projects ($CLAUDE_CONFIG_DIR): 1 sources"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("Claude Code: [KILN]/b/projects ($CLAUDE_CONFIG_DIR): 1 sources"),
        "{}",
        out.stderr
    );
    assert_eq!(sessions_in(&user_sessions(&kiln)), 2);
}

#[test]
fn a_project_that_turns_capture_off_is_left_out_but_an_explicit_import_takes_it() {
    let kiln = TestKiln::empty();
    let private = kiln.root.path().join("private");
    write(
        &private.join(".crucible/config.toml"),
        "[capture]\nenabled = false\n",
    );
    let deep = private.join("src/deep").display().to_string();
    let projects = home(&kiln).join(".claude/projects");
    write(
        &projects.join("-private/p.jsonl"),
        &transcript("p", &deep, 1),
    );
    write(
        &projects.join("-open/o.jsonl"),
        &transcript("o", "/work/open", 1),
    );
    let out = cru(&kiln, &["session", "import"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("1 created, 0 updated, 0 unchanged, 1 left out by their project's [capture]"),
        "{}",
        out.stderr
    );
    assert_eq!(sessions_in(&user_sessions(&kiln)), 1);
    // Not recorded as read: the open project's is not read again, the
    // private one is (and left out again) until its project says so.
    let again = cru(&kiln, &["session", "import"]);
    assert!(
        again.stderr.contains("2 sources, 1 parsed")
            && again
                .stderr
                .contains("1 left out by their project's [capture]"),
        "{}",
        again.stderr
    );
    write(
        &private.join(".crucible/config.toml"),
        "[capture]
enabled = true
",
    );
    let on = cru(&kiln, &["session", "import"]);
    assert!(on.stderr.contains("1 created"), "{}", on.stderr);
    assert_eq!(sessions_in(&user_sessions(&kiln)), 2);
    write(
        &private.join(".crucible/config.toml"),
        "[capture]
enabled = false
",
    );
    // Named on purpose, it is imported.
    let p = projects.join("-private/p.jsonl").display().to_string();
    let explicit = cru(&kiln, &["session", "import", &p]);
    assert_eq!(explicit.code, 0, "{}", explicit.stderr);
    assert!(explicit.stderr.contains("1 created"), "{}", explicit.stderr);
}

/// Capture turned off in the user's own config: the report names that
/// file, not "their project's".
#[test]
fn sessions_left_out_by_the_users_config_are_said_to_be() {
    let kiln = TestKiln::empty();
    write(
        &home(&kiln).join(".config/crucible/config.toml"),
        "[capture]\nenabled = false\n",
    );
    write(
        &home(&kiln).join(".claude/projects/-open/o.jsonl"),
        &transcript("o", "/work/open", 1),
    );
    let out = cru(&kiln, &["session", "import"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("1 left out by your [capture] ([KILN]/home/.config/crucible/config.toml)"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("their project's"), "{}", out.stderr);
}

#[test]
fn a_project_that_keeps_its_own_sessions_gets_them_in_its_own_directory() {
    let kiln = TestKiln::empty();
    let own = kiln.root.path().join("own");
    write(
        &own.join(".crucible/config.toml"),
        "[capture]\nproject = true\n",
    );
    let projects = home(&kiln).join(".claude/projects");
    let cwd = own.join("src").display().to_string();
    write(&projects.join("-own/k.jsonl"), &transcript("k", &cwd, 1));
    write(
        &projects.join("-other/o.jsonl"),
        &transcript("o", "/work/other", 1),
    );
    let out = cru(&kiln, &["session", "import"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "2 parsed: 1 created, 0 updated, 0 unchanged, 1 to their project's own sessions"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("[KILN]/own: keeps its own sessions ([KILN]/own/.crucible/sessions): 1 parsed: 1 created"),
        "{}",
        out.stderr
    );
    // Each file counted once in the totals (it was read once).
    assert!(
        out.stderr
            .contains("\n2 parsed into [KILN]/home/.crucible/sessions: 2 created, 0 updated, 0 unchanged, 0 skipped"),
        "{}",
        out.stderr
    );
    assert_eq!(sessions_in(&user_sessions(&kiln)), 1);
    assert_eq!(sessions_in(&own.join(".crucible/sessions")), 1);
    let again = cru(&kiln, &["session", "import"]);
    assert!(
        again.stderr.contains("2 sources, 0 parsed"),
        "{}",
        again.stderr
    );
    // --dir named on purpose takes them all.
    let all = kiln.root.path().join("all");
    let named = cru(
        &kiln,
        &["--dir", &all.display().to_string(), "session", "import"],
    );
    assert_eq!(named.code, 0, "{}", named.stderr);
    assert_eq!(sessions_in(&all), 2);
}

#[test]
fn an_opencode_database_is_read_again_only_when_it_changes() {
    let kiln = TestKiln::empty();
    let data = kiln.root.path().join("data");
    let real = crate::kiln::fixtures().join("real/opencode/v1.18.33");
    let store = data.join("opencode");
    std::fs::create_dir_all(&store).unwrap();
    for f in ["opencode.db", "opencode.db-wal", "opencode.db-shm"] {
        std::fs::copy(real.join(f), store.join(f)).unwrap();
    }
    let run = || {
        let mut cmd = kiln.command();
        cmd.env("XDG_DATA_HOME", &data)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .args(["session", "import"]);
        kiln.run_cmd(&mut cmd)
    };
    let first = run();
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(
        first.stderr.contains(
            "OpenCode: [KILN]/data/opencode ($XDG_DATA_HOME): 3 sources, 3 parsed: 4 created"
        ),
        "{}",
        first.stderr
    );
    let second = run();
    assert!(
        second
            .stderr
            .contains("($XDG_DATA_HOME): 3 sources, 0 parsed"),
        "{}",
        second.stderr
    );
    // A write to the database (its WAL touched) reads its sessions again,
    // each found unchanged.
    let wal = store.join("opencode.db-wal");
    let bytes = std::fs::read(&wal).unwrap();
    std::fs::remove_file(&wal).unwrap();
    std::fs::write(&wal, bytes).unwrap();
    let third = run();
    assert!(
        third
            .stderr
            .contains("3 sources, 3 parsed: 0 created, 0 updated, 4 unchanged"),
        "{}",
        third.stderr
    );
}

/// What the state lets an import skip is what a full import would find
/// unchanged: after transcripts grow and appear, the sessions an import
/// through the state leaves equal, byte for byte, those of one full
/// import of the same stores into an empty directory.
#[test]
fn an_import_through_the_state_ends_as_a_full_import_does() {
    let kiln = TestKiln::empty();
    let projects = home(&kiln).join(".claude/projects");
    for (i, name) in ["alpha", "beta", "gamma"].iter().enumerate() {
        write(
            &projects.join(format!("-p/{name}.jsonl")),
            &transcript(name, "/work/app", i + 1),
        );
    }
    assert_eq!(cru(&kiln, &["session", "import"]).code, 0);
    let beta = projects.join("-p/beta.jsonl");
    let mut text = std::fs::read_to_string(&beta).unwrap();
    text.push_str(&turn("beta", "/work/app", 5));
    std::fs::write(&beta, text).unwrap();
    write(
        &projects.join("-q/delta.jsonl"),
        &transcript("delta", "/work/q", 2),
    );
    let through_state = cru(&kiln, &["session", "import"]);
    assert!(
        through_state
            .stderr
            .contains("4 sources, 2 parsed: 1 created, 1 updated"),
        "{}",
        through_state.stderr
    );
    let full = kiln.root.path().join("full");
    let fresh = cru(
        &kiln,
        &["--dir", &full.display().to_string(), "session", "import"],
    );
    assert!(
        fresh.stderr.contains("4 parsed: 4 created"),
        "{}",
        fresh.stderr
    );
    let contents = |dir: &Path| -> Vec<(String, String)> {
        let mut all: Vec<_> = crucible_core::store::session_files(dir)
            .unwrap()
            .into_iter()
            .map(|f| {
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(&f).unwrap())
            })
            .collect();
        all.sort();
        all
    };
    let (a, b) = (contents(&user_sessions(&kiln)), contents(&full));
    assert_eq!(a.len(), 4);
    assert_eq!(a, b);
}

/// Imports run one at a time: three at once into one directory (a
/// watcher's, a cron job's, a person's) make each session once.
#[test]
fn imports_at_once_make_each_session_once() {
    let kiln = crate::kiln::TestKiln::empty();
    let src = crate::kiln::fixtures().join("real/claude-code/kfischer-claude-history");
    let dir = kiln.sessions().display().to_string();
    let children: Vec<_> = (0..3)
        .map(|_| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin("cru"))
                .current_dir(kiln.root.path())
                .env("HOME", kiln.root.path().join("home"))
                .args(["--dir", &dir, "session", "import"])
                .arg(&src)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        c.wait().unwrap();
    }
    let together = crucible_core::store::session_files(&kiln.sessions())
        .unwrap()
        .len();
    let alone = crate::kiln::TestKiln::empty();
    let out = alone.run(&["session", "import", src.to_str().unwrap()]);
    assert!(out.code == 0 || out.code == 3, "{}", out.stderr);
    let once = crucible_core::store::session_files(&alone.sessions())
        .unwrap()
        .len();
    assert!(once > 0);
    assert_eq!(together, once);
}

/// Claude Code leaves files with only summary or snapshot lines (resumed
/// and compacted sessions): in its own store they are counted, not named
/// as errors, and the import succeeds.
#[test]
fn transcripts_with_no_conversation_in_a_store_are_counted_not_errors() {
    let kiln = TestKiln::empty();
    let project = home(&kiln).join(".claude/projects/-work-app");
    write(&project.join("a.jsonl"), &transcript("a", "/work/app", 2));
    write(
        &project.join("b.jsonl"),
        "{\"type\":\"summary\",\"summary\":\"Fixing the build\",\"leafUuid\":\"x\"}\n",
    );
    let out = cru(&kiln, &["session", "import"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("error"), "{}", out.stderr);
    assert!(
        out.stderr.contains("1 with no conversation"),
        "{}",
        out.stderr
    );
    assert_eq!(sessions_in(&user_sessions(&kiln)), 1);
}

/// A store named by a relative `$CLAUDE_CONFIG_DIR` is the same store
/// named absolutely: one session, not two.
#[test]
fn a_relative_claude_config_dir_finds_the_same_sessions_as_an_absolute_one() {
    let kiln = TestKiln::empty();
    let config = kiln.root.path().join("cfg");
    write(
        &config.join("projects/-work-app/s.jsonl"),
        &transcript("s", "/work/app", 2),
    );
    let mut relative = kiln.command();
    relative.env("CLAUDE_CONFIG_DIR", "cfg");
    let out = kiln.run_cmd(relative.args(["session", "import"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut absolute = kiln.command();
    absolute.env("CLAUDE_CONFIG_DIR", &config);
    let out = kiln.run_cmd(absolute.args(["session", "import"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(sessions_in(&user_sessions(&kiln)), 1);
}

/// A FIFO among a store's transcripts is never opened, and named each
/// run; a run that finds the real transcripts unchanged is not a failure
/// for it (exit 3: done, something skipped; not 1).
#[test]
fn a_fifo_in_a_store_is_skipped_and_a_run_with_nothing_new_still_succeeds() {
    let kiln = TestKiln::empty();
    let project = home(&kiln).join(".claude/projects/-work-app");
    write(&project.join("a.jsonl"), &transcript("a", "/work/app", 2));
    crucible_testkit::mkfifo(&project.join("pipe.jsonl"));
    for run in 0..2 {
        let out = cru(&kiln, &["session", "import"]);
        assert_eq!(out.code, 3, "run {run}: {}", out.stderr);
        assert!(
            out.stderr.contains("pipe.jsonl"),
            "run {run}: {}",
            out.stderr
        );
    }
    assert_eq!(sessions_in(&user_sessions(&kiln)), 1);
}

/// Inside a project with its own sessions directory, captured sessions go
/// to the user's: the import says where, and `list` (when it lists
/// nothing) and `doctor` say how many of this project's are there.
#[test]
fn a_project_with_its_own_directory_is_told_where_its_captured_sessions_are() {
    let kiln = TestKiln::empty();
    let cwd = kiln.root.path().join("src").display().to_string();
    write(
        &home(&kiln).join(".claude/projects/-proj/p.jsonl"),
        &transcript("p", &cwd, 1),
    );
    write(
        &home(&kiln).join(".claude/projects/-other/o.jsonl"),
        &transcript("o", "/work/other", 1),
    );
    let out = cru(&kiln, &["session", "import"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("2 parsed into [KILN]/home/.crucible/sessions: 2 created"),
        "{}",
        out.stderr
    );
    let note = "1 captured sessions of this project are in [KILN]/home/.crucible/sessions (set `[capture] project = true`";
    let list = cru(&kiln, &["session", "list"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(list.stderr.contains(note), "{}", list.stderr);
    let doctor = cru(&kiln, &["doctor"]);
    assert!(doctor.stdout.contains(note), "{}", doctor.stdout);
}

/// The first import of an ordinary real Claude Code store (summary-only
/// and snapshot-only transcripts among the rest, as Claude Code leaves
/// them): exit 0, no `error:`; and a summary-only parent whose work is in
/// its subagents' files is dated by them, not by the import.
#[test]
fn the_first_import_of_a_real_store_succeeds_without_errors() {
    let kiln = TestKiln::empty();
    let projects = home(&kiln).join(".claude/projects");
    for corpus in ["kfischer-claude-history", "sniffly"] {
        let from = crate::kiln::fixtures()
            .join("real/claude-code")
            .join(corpus);
        copy_tree(&from, &projects);
    }
    let out = cru(&kiln, &["session", "import"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("error:"), "{}", out.stderr);
    let dir = user_sessions(&kiln);
    let list = cru(
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
    let today = crucible_core::Timestamp::now().utc_day();
    for s in crate::kiln::listed_sessions(&list.stdout) {
        let started = s["started"].as_str().unwrap();
        assert!(!started.starts_with(&today), "{} dated today", s["id"]);
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_tree(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// A file in an agent's store that no format cru reads takes (here a
/// `.jsonl` of prose; in the wild, a transcript whose first line is longer
/// than detection reads) is named once, not dropped without a word.
#[test]
fn a_store_file_of_no_format_is_named_once() {
    let kiln = TestKiln::empty();
    let projects = home(&kiln).join(".claude/projects/-work-app");
    write(
        &projects.join("s1.jsonl"),
        &transcript("s1", "/work/app", 1),
    );
    write(&projects.join("odd.jsonl"), "not a transcript\nnor this\n");
    let first = cru(&kiln, &["session", "import"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let named = "1 files of no format cru imports \
                 (first: [KILN]/home/.claude/projects/-work-app/odd.jsonl)";
    assert!(first.stderr.contains(named), "{}", first.stderr);
    // Recorded: not named again until it changes.
    let again = cru(&kiln, &["session", "import"]);
    assert!(!again.stderr.contains("no format"), "{}", again.stderr);
}
