//! Killed half way, run again: an import and a fold, stopped at every write
//! (deterministically) and at evenly spaced moments (SIGKILL), then run
//! again, leave exactly what an uninterrupted run leaves.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::kiln::{TestKiln, fixtures};

fn cru(sessions: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("cru"));
    cmd.current_dir(sessions.parent().unwrap())
        .env("HOME", sessions.join("../home"))
        .env("CRU_SESSIONS_DIR", sessions)
        .env_remove("CRU_SESSION")
        .env_remove("CRUCIBLE_CONFIG")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CRU_LOG")
        .env_remove("CRU_TEST_KILL_AFTER_WRITES")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

fn run_ok(sessions: &Path, args: &[&str]) {
    let out = cru(sessions, args).output().unwrap();
    assert!(
        out.status.success(),
        "cru {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every file of a sessions directory, hidden ones too, with its bytes.
fn directory_bytes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn names(files: &[(String, Vec<u8>)]) -> Vec<&str> {
    files.iter().map(|(n, _)| n.as_str()).collect()
}

fn assert_same(want: &[(String, Vec<u8>)], got: &[(String, Vec<u8>)], what: &str) {
    assert_eq!(names(want), names(got), "{what}: not the same files");
    for ((name, a), (_, b)) in want.iter().zip(got) {
        assert!(
            a == b,
            "{what}: {name} differs\n--- uninterrupted:\n{}\n--- killed, then run again:\n{}",
            String::from_utf8_lossy(a),
            String::from_utf8_lossy(b)
        );
    }
}

/// Item 9: `cru session import` of Claude Code transcripts with a subagent
/// (a parent and its linked child), killed after each of its writes in turn
/// and at 16 evenly spaced moments, then run again: the directory is byte
/// for byte the one an uninterrupted import writes, and the parent links
/// its child.
#[test]
fn a_killed_import_run_again_equals_an_uninterrupted_one() {
    let source = fixtures().join("foreign/claude-code");
    let source = source.to_str().unwrap();
    let import = ["session", "import", "--from", "claude-code", source];

    let reference = TestKiln::empty();
    let started = Instant::now();
    run_ok(&reference.sessions(), &import);
    let duration = started.elapsed();
    let want = directory_bytes(&reference.sessions());
    assert!(
        want.iter()
            .any(|(_, b)| String::from_utf8_lossy(b).contains("[[2025-08-14-search-the-codebase")),
        "the fixture's parent links its subagent"
    );

    let mut writes = 0;
    for n in 1.. {
        let kiln = TestKiln::empty();
        let out = cru(&kiln.sessions(), &import)
            .env("CRU_TEST_KILL_AFTER_WRITES", n.to_string())
            .output()
            .unwrap();
        if out.status.success() {
            break;
        }
        writes = n;
        run_ok(&kiln.sessions(), &import);
        assert_same(
            &want,
            &directory_bytes(&kiln.sessions()),
            &format!("killed after write {n}"),
        );
    }
    assert!(writes >= 4, "the import made only {writes} writes");

    const MOMENTS: u32 = 16;
    for i in 0..MOMENTS {
        let kiln = TestKiln::empty();
        let mut child = cru(&kiln.sessions(), &import).spawn().unwrap();
        std::thread::sleep(duration * i / MOMENTS);
        let _ = child.kill();
        child.wait().unwrap();
        run_ok(&kiln.sessions(), &import);
        assert_same(
            &want,
            &directory_bytes(&kiln.sessions()),
            &format!("killed at {:?}", duration * i / MOMENTS),
        );
    }
}

/// The phase metadata a pause dates from its own clock (`duration_ms` of
/// the last phase), which two runs cannot share.
fn without_durations(files: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
    files
        .into_iter()
        .map(|(name, bytes)| {
            let text = String::from_utf8_lossy(&bytes);
            let mut out = String::new();
            for (i, part) in text.split("duration_ms=").enumerate() {
                if i > 0 {
                    out.push_str("duration_ms=N");
                    out.push_str(part.trim_start_matches(|c: char| c.is_ascii_digit()));
                } else {
                    out.push_str(part);
                }
            }
            (name, out.into_bytes())
        })
        .collect()
}

fn copy_files(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
    }
}

/// Item 9, for folds: a session with events in its journal, paused (which
/// folds the journal into the file) while killed at 40 evenly spaced moments,
/// then paused again. After the kill the session reads whole, and after the
/// second pause the directory is the one a single pause leaves (the phase's
/// `duration_ms`, dated by the pause, aside). A killed write may leave its
/// hidden temporary file, which no reader takes for a session; it is left
/// out of the comparison.
#[test]
fn a_killed_fold_run_again_equals_an_uninterrupted_one() {
    let setup = TestKiln::empty();
    let out = cru(
        &setup.sessions(),
        &["session", "start", "--title", "folded", "--agent", "a@1"],
    )
    .stdout(Stdio::piped())
    .output()
    .unwrap();
    let id = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    run_ok(
        &setup.sessions(),
        &["session", "log", "--session", &id, "phase", "Work"],
    );
    for n in 0..4 {
        let call = format!("call-{n}");
        run_ok(
            &setup.sessions(),
            &[
                "session",
                "log",
                "--session",
                &id,
                "tool",
                &call,
                "--result",
                "ok",
            ],
        );
    }
    let journal = setup.sessions().join(format!(".{id}.md.journal"));
    assert!(
        std::fs::read_to_string(&journal)
            .unwrap()
            .contains("call-3"),
        "the calls wait in the journal"
    );

    let reference = TestKiln::empty();
    copy_files(&setup.sessions(), &reference.sessions());
    let started = Instant::now();
    run_ok(&reference.sessions(), &["session", "pause", &id]);
    let duration = started.elapsed();
    let want = without_durations(directory_bytes(&reference.sessions()));

    const MOMENTS: u32 = 40;
    let without_temps = |files: Vec<(String, Vec<u8>)>| -> Vec<(String, Vec<u8>)> {
        files
            .into_iter()
            .filter(|(n, _)| !n.ends_with(".tmp"))
            .collect()
    };
    for i in 0..=MOMENTS {
        let kiln = TestKiln::empty();
        copy_files(&setup.sessions(), &kiln.sessions());
        let at = duration * i / MOMENTS;
        let mut child = cru(&kiln.sessions(), &["session", "pause", &id])
            .spawn()
            .unwrap();
        std::thread::sleep(at);
        let _ = child.kill();
        child.wait().unwrap();
        let out = cru(
            &kiln.sessions(),
            &["session", "show", &id, "--format", "markdown"],
        )
        .stdout(Stdio::piped())
        .output()
        .unwrap();
        let shown = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && shown.contains("`call-3`"),
            "killed at {at:?}:\n{shown}"
        );
        run_ok(&kiln.sessions(), &["session", "pause", &id]);
        assert_same(
            &without_temps(want.clone()),
            &without_temps(without_durations(directory_bytes(&kiln.sessions()))),
            &format!("pause killed at {at:?}"),
        );
    }
}
