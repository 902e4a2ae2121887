//! Review findings F10, F29, F42: cru's hooks are known by their shape
//! (whatever the binary is called, with `--dir`), record where `--dir`
//! says, and run cru by the path the user ran it by.

use std::path::Path;

use assert_cmd::Command;

use super::{OTHERS, assert_once, cru_commands, cru_named, setup, setup_by};

fn target_tmp() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

fn write_settings(home: &Path, text: &str) -> std::path::PathBuf {
    let settings = home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, text).unwrap();
    settings
}

/// F10: a cru not named `cru` (a packager's `crucible-cru`, a `cru-dev`
/// build) installs once, is repointed by another, and is removed.
#[test]
fn hooks_of_a_cru_of_any_name_are_installed_once_repointed_and_removed() {
    let home = tempfile::tempdir().unwrap();
    let bins = target_tmp();
    let packaged = cru_named(bins.path(), "pkg/crucible-cru");
    let dev = cru_named(bins.path(), "dev/cru-dev");
    let settings = write_settings(home.path(), OTHERS);
    setup_by(&packaged, home.path(), &["claude-code"])
        .assert()
        .success();
    let ours = format!("{} hook claude-code", packaged.display());
    assert_once(&settings, &ours);
    let once = std::fs::read(&settings).unwrap();
    let again = setup_by(&packaged, home.path(), &["claude-code"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("already"),
        "{again:?}"
    );
    assert_eq!(std::fs::read(&settings).unwrap(), once);
    setup_by(&dev, home.path(), &["claude-code"])
        .assert()
        .success();
    assert_once(&settings, &format!("{} hook claude-code", dev.display()));
    let out = setup_by(&packaged, home.path(), &["claude-code", "--remove"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("removed"),
        "{out:?}"
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), OTHERS);
}

/// F10/F29: an entry the user edited to `cru --dir /x hook claude-code`
/// is cru's: setup points it at itself rather than adding a second, and
/// `--remove` takes it out; a doubled entry (two of cru's in an event)
/// becomes one.
#[test]
fn an_entry_edited_by_hand_or_doubled_is_still_cru_s_one_hook() {
    let home = tempfile::tempdir().unwrap();
    let settings = write_settings(
        home.path(),
        r#"{"hooks": {"Stop": [
  {"hooks": [{"type": "command", "command": "cru --dir /x hook claude-code"}]},
  {"hooks": [{"type": "command", "command": "~/bin/other.sh"}, {"type": "command", "command": "/old/cru-1.2 -v hook claude-code"}]}
]}}"#,
    );
    setup(home.path(), &["claude-code"]).assert().success();
    let ours = &cru_commands(&settings)[0].1[0];
    assert!(
        ours.ends_with("/cru hook claude-code") && ours.starts_with('/'),
        "{ours}"
    );
    assert_once(&settings, ours);
    assert!(
        std::fs::read_to_string(&settings)
            .unwrap()
            .contains("~/bin/other.sh")
    );
    setup(home.path(), &["claude-code", "--remove"])
        .assert()
        .success();
    let left = std::fs::read_to_string(&settings).unwrap();
    assert!(!left.contains("hook claude-code"), "{left}");
    assert_eq!(
        super::json(&settings),
        serde_json::json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "~/bin/other.sh"}]}]}})
    );
}

/// F29: `--dir` is written into the hooks, absolute and shell-quoted, and
/// the hook Claude Code runs (through a shell) records there.
#[test]
fn the_dir_given_to_setup_is_where_the_hooks_record() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    let sessions = home.path().join("my sessions");
    setup(home.path(), &["--dir", "my sessions", "claude-code"])
        .assert()
        .success();
    let command = cru_commands(&settings)[0].1[0].clone();
    assert!(
        command.ends_with(&format!(" --dir '{}' hook claude-code", sessions.display())),
        "{command}"
    );
    assert_once(&settings, &command);
    // A session is made at its first prompt (the hooks name it from it).
    for event in ["session-start.json", "user-prompt-submit.json"] {
        let payload = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/hooks")
            .join(event);
        Command::new("sh")
            .args(["-c", &command])
            .pipe_stdin(payload)
            .unwrap()
            .env("HOME", home.path())
            .env_remove("CRU_SESSIONS_DIR")
            .current_dir("/")
            .assert()
            .success();
    }
    let recorded: Vec<_> = std::fs::read_dir(&sessions)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .collect();
    assert_eq!(recorded.len(), 1, "one session recorded in --dir");
    assert!(!home.path().join(".crucible/sessions").exists());
    // Without --dir: back to the directory the hook finds when it runs.
    setup(home.path(), &["claude-code"]).assert().success();
    assert!(!cru_commands(&settings)[0].1[0].contains("--dir"));
    // Codex: the same words in its notify array.
    setup(home.path(), &["--dir", "my sessions", "codex"])
        .assert()
        .success();
    let config = std::fs::read_to_string(home.path().join(".codex/config.toml")).unwrap();
    assert!(
        config.contains(&format!(
            r#"/cru", "--dir", "{}", "hook", "codex"]"#,
            sessions.display()
        )),
        "{config}"
    );
}

/// F29: `$CRU_SESSIONS_DIR` is the agent's when its hooks run, not this
/// shell's: it is not written, and a note says how to write it.
#[test]
fn cru_sessions_dir_is_not_written_and_a_note_says_so() {
    let home = tempfile::tempdir().unwrap();
    let out = setup(home.path(), &["claude-code"])
        .env("CRU_SESSIONS_DIR", "/srv/sessions")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("$CRU_SESSIONS_DIR (/srv/sessions) is not written")
            && err.contains("--dir /srv/sessions"),
        "{err}"
    );
    let settings = home.path().join(".claude/settings.json");
    assert!(!cru_commands(&settings)[0].1[0].contains("--dir"));
}

/// F42: a cru run through a link (a version manager's shim, Homebrew's
/// `bin/cru`) is written as the link, which outlives an upgrade; run by
/// name, as found on `$PATH`.
#[test]
fn a_cru_run_through_a_link_is_written_as_the_link() {
    let home = tempfile::tempdir().unwrap();
    let shim = home.path().join("shims");
    std::fs::create_dir_all(&shim).unwrap();
    let real = std::fs::canonicalize(assert_cmd::cargo::cargo_bin("cru")).unwrap();
    std::os::unix::fs::symlink(&real, shim.join("cru")).unwrap();
    let settings = home.path().join(".claude/settings.json");
    setup_by(&shim.join("cru"), home.path(), &["claude-code"])
        .assert()
        .success();
    assert_once(
        &settings,
        &format!("{}/cru hook claude-code", shim.display()),
    );
    std::fs::remove_file(&settings).unwrap();
    setup_by(Path::new("cru"), home.path(), &["claude-code"])
        .env("PATH", format!("{}:/usr/bin:/bin", shim.display()))
        .assert()
        .success();
    assert_once(
        &settings,
        &format!("{}/cru hook claude-code", shim.display()),
    );
    // Run by its own path, cru writes that path.
    setup_by(&real, home.path(), &["claude-code"])
        .assert()
        .success();
    assert_once(&settings, &format!("{} hook claude-code", real.display()));
}

/// `--project` writes a file that is usually committed: a note says the
/// hook holds this machine's path.
#[test]
fn project_settings_get_a_note_about_the_machines_path() {
    let home = tempfile::tempdir().unwrap();
    let out = setup(home.path(), &["claude-code", "--project"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("usually committed"),
        "{out:?}"
    );
    let out = setup(home.path(), &["claude-code"]).output().unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("committed"),
        "{out:?}"
    );
}
