//! Hooks under stress: a damaged state, input that is no event, a
//! huge tool result (review of issue 21: F33, F30, F19).

use std::path::Path;

use assert_cmd::Command;

use super::hook::{payload, run};

fn cru(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("cru").unwrap();
    c.arg("--dir").arg(dir).env_remove("CRU_SESSIONS_DIR");
    c
}

/// The session files of `dir`.
fn sessions(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect()
}

/// A state file cut short (a crash mid-write, a full disk) does not stop
/// the session's recording: the next event says so once in the hook
/// error log, the state is rebuilt from the session (found by the Claude
/// session id), and the events go on into that same session.
#[test]
fn a_damaged_state_is_rebuilt_from_its_session_and_recording_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("sessions"), tmp.path().join("state"));
    let transcript = super::hook::fixture_transcript(tmp.path());
    for name in ["session-start.json", "user-prompt-submit.json"] {
        run(&dir, &state, payload(name, &transcript, None, None));
    }
    let saved = dir.join(".capture/claude-code/9d2c4b1e-5f6a-4c7d-8e9f-0a1b2c3d4e5f.json");
    std::fs::write(&saved, r#"{"path":"/tmp/i21"#).unwrap();
    for name in [
        "pre-tool-use.json",
        "post-tool-use.json",
        "post-tool-use-failure.json",
        "session-end.json",
    ] {
        run(&dir, &state, payload(name, &transcript, None, None));
    }
    let files = sessions(&dir);
    assert_eq!(files.len(), 1, "the same session: {files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let journal = files[0].with_file_name(format!(
        ".{}.journal",
        files[0].file_name().unwrap().to_string_lossy()
    ));
    let text = text + &std::fs::read_to_string(journal).unwrap_or_default();
    assert!(text.contains("cargo test checkout"), "{text}");
    assert!(text.contains("File does not exist."), "{text}");
    let log = std::fs::read_to_string(dir.join(".hook-errors.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 1, "said once: {log}");
    assert!(log.contains("rebuilt from session"), "{log}");
}

/// Input that is no event goes to the sessions directory's own log when
/// that directory is fine (the fallback is for a broken one), and
/// `cru doctor` shows it there.
#[test]
fn unreadable_input_is_logged_in_the_sessions_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("sessions"), tmp.path().join("state"));
    run(&dir, &state, b"not json".to_vec());
    let log = std::fs::read_to_string(dir.join(".hook-errors.jsonl")).unwrap();
    assert!(log.contains("not a Claude Code event"), "{log}");
    assert!(!state.exists(), "not in the fallback");
    let out = cru(&dir)
        .arg("doctor")
        .env("XDG_STATE_HOME", &state)
        .env("HOME", tmp.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("1 hook runs failed lately"), "{said}");
}

/// A 50 MB tool result costs the hook a pass over its bytes, not seconds:
/// each long text keeps its first MiB, in the sidecar too, with a marker
/// saying how much was dropped; the markdown line says how large the
/// result was and how much of it the sidecar has.
#[test]
fn a_fifty_megabyte_result_keeps_its_first_mebibyte() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, state) = (tmp.path().join("sessions"), tmp.path().join("state"));
    let transcript = tmp.path().join("t.jsonl");
    std::fs::write(&transcript, "").unwrap();
    for name in ["session-start.json", "user-prompt-submit.json"] {
        run(&dir, &state, payload(name, &transcript, None, None));
    }
    let mut v: serde_json::Value =
        serde_json::from_slice(&payload("post-tool-use.json", &transcript, None, None)).unwrap();
    v["tool_response"]["stdout"] = "x".repeat(50_000_000).into();
    run(&dir, &state, serde_json::to_vec(&v).unwrap());
    let files = sessions(&dir);
    assert_eq!(files.len(), 1);
    let md = &files[0];
    let data = md.with_file_name(format!(
        ".{}.data.jsonl",
        md.file_stem().unwrap().to_string_lossy()
    ));
    let size = std::fs::metadata(&data).unwrap().len();
    assert!(size < 2 * 1024 * 1024, "sidecar of {size} bytes");
    let sidecar = std::fs::read_to_string(&data).unwrap();
    assert!(
        sidecar.contains("bytes not kept]"),
        "no marker in the sidecar"
    );
    let journal = md.with_file_name(format!(
        ".{}.journal",
        md.file_name().unwrap().to_string_lossy()
    ));
    let text = std::fs::read_to_string(md).unwrap()
        + &std::fs::read_to_string(journal).unwrap_or_default();
    assert!(text.contains(" of them in the sidecar]"), "{text}");
    assert!(!dir.join(".hook-errors.jsonl").exists());
}
