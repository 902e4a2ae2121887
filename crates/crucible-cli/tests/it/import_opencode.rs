//! `cru session import` on OpenCode's real database: one source per
//! session, the per-source report, `--strict`, a valid store after, and a
//! second import that finds every session unchanged.

use std::path::PathBuf;

use assert_cmd::Command;

fn db() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real/opencode/v1.18.33/opencode.db")
}

fn cru(dir: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("cru").unwrap();
    c.arg("--dir").arg(dir).env_remove("CRU_SESSIONS_DIR");
    c
}

#[test]
fn opencode_database_imports_each_session_strictly_and_validly_once() {
    let tmp = tempfile::tempdir().unwrap();
    let out = cru(tmp.path())
        .args(["session", "import", "--strict"])
        .arg(db())
        .assert()
        .success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    // One report line per top-level session, named `opencode.db#<id>`.
    let reports: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("opencode.db#ses_"))
        .collect();
    assert_eq!(reports.len(), 3, "{err}");
    assert!(
        reports
            .iter()
            .all(|l| l.contains("records read (message/assistant")),
        "{err}"
    );
    assert!(
        err.contains("4 created, 0 updated, 0 unchanged, 0 skipped"),
        "{err}"
    );
    cru(tmp.path())
        .args(["session", "validate"])
        .assert()
        .success();
    let again = cru(tmp.path())
        .args(["session", "import"])
        .arg(db())
        .assert()
        .success();
    let err = String::from_utf8_lossy(&again.get_output().stderr).into_owned();
    assert!(
        err.contains("0 created, 0 updated, 4 unchanged, 0 skipped"),
        "{err}"
    );
}
