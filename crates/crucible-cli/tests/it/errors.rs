//! Errors say what happened: a file the user may not read, a sessions
//! directory that is not there.

use std::os::unix::fs::PermissionsExt;

use crate::hostile::fs::{OtherUser, open_to_everyone};
use crate::kiln::TestKiln;

const CLOSED: &str = "2025-12-11-write-tests";

/// The fixtures, open to everyone but one session file, which only its
/// owner (root, not the user the commands run as) may read.
fn kiln_with_a_closed_file() -> Option<(OtherUser, TestKiln, String)> {
    let other = OtherUser::here()?;
    let kiln = TestKiln::with_fixtures();
    open_to_everyone(&kiln);
    let closed = kiln.sessions().join(format!("{CLOSED}.md"));
    std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o600)).unwrap();
    Some((other, kiln, closed.display().to_string()))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_file_the_user_cannot_read_is_permission_denied_not_no_match() {
    let Some((other, kiln, closed)) = kiln_with_a_closed_file() else {
        return;
    };
    for args in [
        vec!["session", "show", CLOSED],
        vec!["session", "show", &closed],
        vec!["session", "resume", CLOSED],
        vec!["session", "export", CLOSED, "--to", "codeloops"],
    ] {
        let out = other.run(&kiln, &args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("permission denied: {closed}")),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("no session matches"), "{args:?}: {stderr}");
    }
    let out = other.run(&kiln, &["session", "validate", &closed]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains(&format!("permission denied: {closed}")),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn list_skips_a_file_it_cannot_read_names_it_and_exits_3() {
    let Some((other, kiln, closed)) = kiln_with_a_closed_file() else {
        return;
    };
    let out = other.run(&kiln, &["session", "list"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stdout.contains("2025-12-13-config-loader"), "{stdout}");
    assert!(!stdout.contains(CLOSED), "{stdout}");
    assert!(
        stderr.contains(&format!("warning: skipped {closed}: permission denied")),
        "{stderr}"
    );
    let strict = other.run(&kiln, &["--strict", "session", "list"]);
    assert_eq!(strict.status.code(), Some(1));
}

/// Every command that reads sessions, on a directory that is not there.
#[test]
fn a_sessions_directory_that_does_not_exist_is_an_error_for_readers() {
    let kiln = TestKiln::empty();
    let missing = kiln.root.path().join("typo");
    let dir = missing.to_str().unwrap();
    for args in [
        &["session", "list"][..],
        &["session", "stats"],
        &["session", "show", "x"],
        &["session", "validate"],
        &["session", "index", "--check"],
        &["session", "learn", "--export", "jsonl"],
        &["session", "codify"],
        &["session", "eval", "x"],
        &["session", "export", "x", "--to", "codeloops"],
        &["session", "resume", "x"],
        &["session", "pause", "x"],
        &["session", "end", "x"],
    ] {
        let mut full = vec!["--dir", dir];
        full.extend_from_slice(args);
        let out = kiln.run(&full);
        assert_eq!(out.code, 1, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("error: no such directory: [KILN]/typo"),
            "{args:?}: {}",
            out.stderr
        );
        assert!(!missing.exists(), "{args:?} made the directory");
    }
    // The same directory named by the environment.
    let out = kiln.run_cmd(
        kiln.command()
            .env("CRU_SESSIONS_DIR", dir)
            .args(["session", "list"]),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("no such directory"), "{}", out.stderr);
}

#[test]
fn commands_that_write_create_the_sessions_directory() {
    let kiln = TestKiln::empty();
    let missing = kiln.root.path().join("new/sessions");
    let dir = missing.to_str().unwrap();
    let out = kiln.run(&["--dir", dir, "session", "start", "--title", "First"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(missing.join(format!("{}.md", out.stdout.trim())).is_file());
    let other = kiln.root.path().join("imported");
    let source = crate::kiln::fixtures().join("foreign/connectonion/.co/sessions/oo.yaml");
    let out = kiln.run(&[
        "--dir",
        other.to_str().unwrap(),
        "session",
        "import",
        source.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(other.is_dir());
}
