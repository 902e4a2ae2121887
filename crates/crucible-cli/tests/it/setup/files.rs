//! Review findings F14, F30 (line ends), F13, F15: the settings file
//! comes back byte for byte after setup and `--remove`, its first backup
//! is kept, a read-only one is left alone, and what cannot be edited is
//! said plainly.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::{assert_once, cru_commands, setup};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/setup")
        .join(name)
}

fn settings_in(home: &Path, bytes: &[u8]) -> PathBuf {
    let settings = home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, bytes).unwrap();
    settings
}

/// Checks what install wrote is in the file's own style.
fn assert_in_style(name: &str, before: &str, after: &str) {
    if before.contains("\r\n") {
        assert_eq!(
            after.matches('\n').count(),
            after.matches("\r\n").count(),
            "{name}: \\r\\n kept"
        );
    }
    if before.contains("\n\t") {
        assert!(!after.contains("\n "), "{name}: tabs kept\n{after}");
    }
    if before.starts_with("{\n    \"") {
        assert!(
            after.contains("\n        \"SessionStart\": ["),
            "{name}: 4 spaces\n{after}"
        );
    }
    assert_eq!(
        after.starts_with('\u{feff}'),
        before.starts_with('\u{feff}'),
        "{name}: BOM"
    );
    assert_eq!(
        after.lines().count() == 1,
        before.lines().count() == 1,
        "{name}: one line stays one line"
    );
}

/// F14, F30: install then remove gives the user's file back to the byte,
/// in every style; what install adds is written in the file's style.
#[test]
fn setup_then_remove_gives_back_each_settings_file_byte_for_byte() {
    let dir = fixture("claude-code");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert!(names.len() >= 4, "{names:?}");
    for name in names {
        let home = tempfile::tempdir().unwrap();
        let before = std::fs::read(dir.join(&name)).unwrap();
        let settings = settings_in(home.path(), &before);
        let out = setup(home.path(), &["claude-code"]).output().unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        let after = std::fs::read_to_string(&settings).unwrap();
        let command = cru_commands(&settings)[0].1[0].clone();
        assert_once(&settings, &command);
        assert_in_style(&name, std::str::from_utf8(&before).unwrap(), &after);
        setup(home.path(), &["claude-code", "--remove"])
            .assert()
            .success();
        assert_eq!(
            String::from_utf8(std::fs::read(&settings).unwrap()).unwrap(),
            String::from_utf8(before.clone()).unwrap(),
            "{name}"
        );
        let backup = home.path().join(".claude/settings.json.bak-cru");
        assert_eq!(
            std::fs::read(&backup).unwrap(),
            before,
            "{name}: the first backup is kept"
        );
    }
}

/// F14: the backup is the file before cru first changed it; later runs
/// (another install after the user's edits, a remove) do not replace it.
#[test]
fn the_first_backup_is_kept_through_later_runs() {
    let home = tempfile::tempdir().unwrap();
    let original = std::fs::read(fixture("claude-code/compact.json")).unwrap();
    let settings = settings_in(home.path(), &original);
    let backup = home.path().join(".claude/settings.json.bak-cru");
    setup(home.path(), &["claude-code"]).assert().success();
    setup(home.path(), &["claude-code", "--remove"])
        .assert()
        .success();
    std::fs::write(&settings, br#"{"model": "sonnet"}"#).unwrap();
    let out = setup(home.path(), &["claude-code"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("before cru first changed it"),
        "{out:?}"
    );
    assert_eq!(std::fs::read(&backup).unwrap(), original);
    // A file cru made has no backup; --remove, which takes out only cru's
    // entries, makes none (it would hold cru's hooks, not the user's file).
    let fresh = tempfile::tempdir().unwrap();
    setup(fresh.path(), &["claude-code"]).assert().success();
    let out = setup(fresh.path(), &["claude-code", "--remove"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("bak-cru"),
        "{out:?}"
    );
    assert!(!fresh.path().join(".claude/settings.json.bak-cru").exists());
}

/// F13: a settings file its owner may not write is refused, named, with
/// how to go on; neither it nor its mode changes, and no backup is made.
#[test]
fn a_read_only_settings_file_is_refused_and_left_alone() {
    let home = tempfile::tempdir().unwrap();
    let before = std::fs::read(fixture("claude-code/compact.json")).unwrap();
    let settings = settings_in(home.path(), &before);
    std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o444)).unwrap();
    for args in [&["claude-code"][..], &["claude-code", "--remove"]] {
        let out = setup(home.path(), args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if args.len() == 2 {
            // Nothing of cru's in it: nothing to write, nothing refused.
            assert!(out.status.success(), "{out:?}");
            continue;
        }
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(
            err.contains(&format!("{} is read-only", settings.display())),
            "{err}"
        );
        assert!(err.contains("chmod u+w"), "{err}");
    }
    assert_eq!(std::fs::read(&settings).unwrap(), before);
    let mode = std::fs::metadata(&settings).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o444);
    assert!(!home.path().join(".claude/settings.json.bak-cru").exists());
    // Codex's config the same.
    let config = home.path().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "model = \"o3\"\n").unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o400)).unwrap();
    let out = setup(home.path(), &["codex"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is read-only"),
        "{out:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "model = \"o3\"\n"
    );
}

/// F15: what is wrong is said in plain words, at its key; a folder where
/// the file should be is named as one.
#[test]
fn settings_that_cannot_be_edited_are_said_plainly() {
    for (text, says, not) in [
        (
            r#"{"hooks":{"Stop":{"x":1}}}"#,
            "`hooks.Stop` is not a JSON array",
            "<event>",
        ),
        (
            "[]",
            ": the settings file is not a JSON object",
            "`the settings file`",
        ),
        (r#"{"hooks": []}"#, "`hooks` is not a JSON object", "`the"),
    ] {
        let home = tempfile::tempdir().unwrap();
        let settings = settings_in(home.path(), text.as_bytes());
        let out = setup(home.path(), &["claude-code"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(err.contains(says) && !err.contains(not), "{text}: {err}");
        assert!(err.contains("nothing was written"), "{err}");
        assert_eq!(std::fs::read_to_string(&settings).unwrap(), text);
    }
    let home = tempfile::tempdir().unwrap();
    let folder = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(&folder).unwrap();
    let out = setup(home.path(), &["claude-code"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        err.contains(&format!(
            "{} is a folder, not a settings file",
            folder.display()
        )),
        "{err}"
    );
    assert!(
        err.contains("move the folder away") && !err.contains("os error"),
        "{err}"
    );
}
