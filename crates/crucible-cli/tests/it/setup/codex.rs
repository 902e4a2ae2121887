//! Review findings F17 and F38 for `cru setup codex`: the notify `--force`
//! replaced comes back with `--remove`, and a `$CODEX_HOME` list is read
//! as discovery reads it.

use std::path::{Path, PathBuf};

use super::setup;

fn config_in(home: &Path, fixture: &str) -> (PathBuf, Vec<u8>) {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/setup/codex")
            .join(fixture),
    )
    .unwrap();
    let config = home.join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, &bytes).unwrap();
    (config, bytes)
}

/// F17: refused with the value alone; `--force` keeps the user's line
/// (comment and all) in a comment above cru's, and `--remove` puts it
/// back, byte for byte, and says so.
#[test]
fn a_notify_replaced_by_force_is_put_back_by_remove() {
    let home = tempfile::tempdir().unwrap();
    let (config, before) = config_in(home.path(), "notify-comment.toml");
    let out = setup(home.path(), &["codex"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        err.contains(r#"already set to ["notify-send", "Codex"]; Codex runs"#),
        "{err}"
    );
    let out = setup(home.path(), &["codex", "--force"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("kept in a comment"),
        "{out:?}"
    );
    let forced = std::fs::read_to_string(&config).unwrap();
    let ours = forced.lines().find(|l| l.starts_with("notify")).unwrap();
    assert!(
        ours.ends_with(r#"/cru", "hook", "codex"]"#),
        "no comment glued on: {ours}"
    );
    assert!(
        forced.contains("libnotify"),
        "the user's line is kept: {forced}"
    );
    let out = setup(home.path(), &["codex", "--remove"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("put back the notify cru replaced"),
        "{out:?}"
    );
    assert_eq!(std::fs::read(&config).unwrap(), before);
}

/// F30 (line ends), F14: a `\r\n` config comes back the same.
#[test]
fn a_crlf_config_comes_back_byte_for_byte() {
    let home = tempfile::tempdir().unwrap();
    let (config, before) = config_in(home.path(), "crlf.toml");
    setup(home.path(), &["codex"]).assert().success();
    let after = std::fs::read_to_string(&config).unwrap();
    assert_eq!(
        after.matches('\n').count(),
        after.matches("\r\n").count(),
        "{after:?}"
    );
    setup(home.path(), &["codex", "--remove"])
        .assert()
        .success();
    assert_eq!(std::fs::read(&config).unwrap(), before);
}

/// F38: `$CODEX_HOME` may list several homes (as discovery and ccusage
/// read it): setup uses the first, says so, and makes no folder named
/// after the whole list.
#[test]
fn a_codex_home_list_means_its_first_directory() {
    let home = tempfile::tempdir().unwrap();
    let first = home.path().join("c1");
    let second = home.path().join("c2");
    let out = setup(home.path(), &["codex"])
        .env(
            "CODEX_HOME",
            format!("{}, {}", first.display(), second.display()),
        )
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(first.join("config.toml").is_file());
    assert!(!second.exists());
    let names: Vec<_> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(names.iter().all(|n| !n.contains(',')), "{names:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "$CODEX_HOME lists several directories; setup uses the first, {}",
            first.display()
        )),
        "{err}"
    );
}
