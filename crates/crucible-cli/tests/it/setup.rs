//! `cru setup claude-code` and `cru setup codex` on real files.

use std::path::Path;

use assert_cmd::Command;

fn setup(home: &Path, args: &[&str]) -> Command {
    let mut c = Command::cargo_bin("cru").unwrap();
    c.arg("setup")
        .args(args)
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("CRU_SESSIONS_DIR")
        .current_dir(home);
    c
}

const OTHERS: &str = r#"{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]
      }
    ]
  },
  "permissions": {"allow": ["Bash(ls:*)"]}
}
"#;

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.trim_start_matches('\u{feff}')).unwrap()
}

#[test]
fn claude_code_hooks_join_other_tools_once_with_a_backup_and_leave_on_remove() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, OTHERS).unwrap();
    setup(home.path(), &["claude-code"]).assert().success();
    let v = json(&settings);
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["model", "hooks", "permissions"]);
    let pre = v["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre[0]["hooks"][0]["command"], "~/bin/guard.sh");
    let ours = pre[1]["hooks"][0]["command"].as_str().unwrap();
    assert!(
        ours.ends_with("/cru hook claude-code") && ours.starts_with('/'),
        "{ours}"
    );
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "Stop",
        "SubagentStop",
        "PreCompact",
        "SessionEnd",
    ] {
        assert_eq!(v["hooks"][event][0]["hooks"][0]["command"], ours, "{event}");
    }
    assert_eq!(
        std::fs::read_to_string(home.path().join(".claude/settings.json.bak-cru")).unwrap(),
        OTHERS
    );
    // Twice changes nothing.
    let once = std::fs::read(&settings).unwrap();
    let out = setup(home.path(), &["claude-code", "--user"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("already"),
        "{out:?}"
    );
    assert_eq!(std::fs::read(&settings).unwrap(), once);
    setup(home.path(), &["claude-code", "--remove"])
        .assert()
        .success();
    assert_eq!(
        json(&settings),
        serde_json::from_str::<serde_json::Value>(OTHERS).unwrap()
    );
}

#[test]
fn a_missing_settings_file_is_made_and_project_settings_are_the_projects() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("cfg");
    setup(home.path(), &["claude-code"])
        .env(
            "CLAUDE_CONFIG_DIR",
            format!("{},/elsewhere", config.display()),
        )
        .assert()
        .success();
    let v = json(&config.join("settings.json"));
    assert!(v["hooks"]["Stop"].is_array());
    assert!(
        !config.join("settings.json.bak-cru").exists(),
        "nothing to back up"
    );
    setup(home.path(), &["claude-code", "--project"])
        .assert()
        .success();
    assert!(json(&home.path().join(".claude/settings.json"))["hooks"]["SessionEnd"].is_array());
    // Nothing of cru's to remove: nothing written.
    let missing = home.path().join("none");
    setup(home.path(), &["claude-code", "--remove"])
        .env("CLAUDE_CONFIG_DIR", &missing)
        .assert()
        .success();
    assert!(!missing.exists());
}

#[test]
fn invalid_settings_json_is_refused_by_file_line_and_column_and_nothing_is_written() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let broken = "{\n  \"model\": \"opus\",\n  // a comment\n}\n";
    std::fs::write(&settings, broken).unwrap();
    let out = setup(home.path(), &["claude-code"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}:3:3", settings.display())),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), broken);
    assert!(!home.path().join(".claude/settings.json.bak-cru").exists());
}

#[test]
fn codex_notify_is_set_once_another_is_refused_unless_forced_and_removed_again() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let mine = "# mine\nmodel = \"o3\"\n\n[tui]\nnotifications = true\n";
    std::fs::write(&config, mine).unwrap();
    setup(home.path(), &["codex"]).assert().success();
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.starts_with("# mine\nmodel = \"o3\"\nnotify = [\"/"),
        "{text}"
    );
    assert!(text.contains("/cru\", \"hook\", \"codex\"]"), "{text}");
    assert!(text.ends_with("[tui]\nnotifications = true\n"), "{text}");
    setup(home.path(), &["codex"]).assert().success();
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        text,
        "twice changes nothing"
    );
    setup(home.path(), &["codex", "--remove"])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&config).unwrap(), mine);
    // Another program's notify.
    let other = "notify = [\"notify-send\", \"Codex\"]\n";
    std::fs::write(&config, other).unwrap();
    let out = setup(home.path(), &["codex"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("notify-send"),
        "{out:?}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), other);
    setup(home.path(), &["codex", "--force"]).assert().success();
    assert!(
        std::fs::read_to_string(&config)
            .unwrap()
            .contains("\"hook\", \"codex\"")
    );
    // The backup is the file before cru first changed it (kept from the
    // first run); the notify --force replaced is kept in the file itself.
    assert_eq!(
        std::fs::read_to_string(home.path().join(".codex/config.toml.bak-cru")).unwrap(),
        mine
    );
    assert!(
        std::fs::read_to_string(&config)
            .unwrap()
            .contains("notify-send")
    );
    // $CODEX_HOME wins.
    let codex_home = home.path().join("ch");
    setup(home.path(), &["codex"])
        .env("CODEX_HOME", &codex_home)
        .assert()
        .success();
    assert!(codex_home.join("config.toml").exists());
}

/// Settings may hold API keys: an owner-only file stays owner-only, and so
/// is its backup; a settings file linked from elsewhere (dotfiles) is
/// edited where it is, the link kept.
#[test]
fn permissions_are_kept_and_a_linked_settings_file_is_edited_where_it_is() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let dotfiles = home.path().join("dotfiles/claude-settings.json");
    std::fs::create_dir_all(dotfiles.parent().unwrap()).unwrap();
    std::fs::write(&dotfiles, r#"{"env": {"API_KEY": "secret"}}"#).unwrap();
    std::fs::set_permissions(&dotfiles, std::fs::Permissions::from_mode(0o600)).unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&dotfiles, &settings).unwrap();
    let out = setup(home.path(), &["claude-code"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        std::fs::symlink_metadata(&settings)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is kept"
    );
    assert!(
        json(&dotfiles)["hooks"].is_object(),
        "the real file is edited"
    );
    assert_eq!(json(&dotfiles)["env"]["API_KEY"], "secret");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dotfiles), 0o600);
    assert_eq!(
        mode(&dotfiles.with_file_name("claude-settings.json.bak-cru")),
        0o600
    );
}

mod by_shape;
mod codex;
mod files;
mod mcp;

/// Every event cru's hooks are installed on.
const EVENTS: [&str; 10] = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
    "Notification",
];

/// The hook commands of cru's shape (`… hook claude-code`) at each event.
fn cru_commands(settings: &Path) -> Vec<(String, Vec<String>)> {
    let v = json(settings);
    EVENTS
        .iter()
        .map(|event| {
            let commands = v["hooks"][*event]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|g| g["hooks"].as_array())
                .flatten()
                .filter_map(|h| h["command"].as_str())
                .filter(|c| c.ends_with(" hook claude-code"))
                .map(str::to_owned)
                .collect();
            ((*event).to_owned(), commands)
        })
        .collect()
}

/// Asserts that each event runs exactly `command` of cru's, once.
fn assert_once(settings: &Path, command: &str) {
    for (event, commands) in cru_commands(settings) {
        assert_eq!(commands, [command], "{event}");
    }
}

/// The cru binary under another name: a hard link (no copy of a big
/// binary) in a folder of the target directory.
fn cru_named(dir: &Path, name: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::hard_link(assert_cmd::cargo::cargo_bin("cru"), &path).unwrap();
    path
}

/// `setup` run by the binary at `program`.
fn setup_by(program: &Path, home: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(program);
    c.arg("setup")
        .args(args)
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("CRU_SESSIONS_DIR")
        .current_dir(home);
    c
}
