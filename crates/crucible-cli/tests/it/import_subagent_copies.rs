//! A Claude Code subagent known only by the copies of its lines in its
//! parent's `agent_progress` lines (the transcript kept without its
//! `subagents/` folder) is a child session read from them; when the folder
//! turns up and the transcript is imported again, that child becomes the
//! file's, not a second child beside it.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

const NAME: &str = "258c7280-ae70-4798-800f-63464d01a85d";

fn spotter() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real/claude-code/spotter")
}

fn cru(dir: &Path, args: &[&str]) -> String {
    let out = Command::cargo_bin("cru")
        .unwrap()
        .arg("--dir")
        .arg(dir)
        .env_remove("CRU_SESSIONS_DIR")
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// The sessions' import paths, sorted.
fn sources(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let line = text
                .lines()
                .find(|l| l.trim_start().starts_with("path:"))
                .unwrap_or_default();
            let path = line.trim_start().trim_start_matches("path:").trim();
            Path::new(path.trim_matches('"'))
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_subagents_folder_found_later_takes_over_the_child_read_from_the_copies() {
    found_later(|project| copy_dir(&spotter().join(NAME), &project.join(NAME)));
}

#[test]
fn a_subagent_file_found_later_beside_the_transcript_takes_over_too() {
    // Older releases wrote `agent-<id>.jsonl` beside the transcript.
    found_later(|project| {
        let file = "agent-a881341.jsonl";
        let from = spotter().join(NAME).join("subagents").join(file);
        std::fs::copy(from, project.join(file)).unwrap();
    });
}

/// The transcript imported alone, then again once `add` has put its
/// subagent's file in its project folder.
fn found_later(add: impl Fn(&Path)) {
    let t = tempfile::tempdir().unwrap();
    let project = t.path().join("projects/p");
    std::fs::create_dir_all(&project).unwrap();
    let transcript = format!("{NAME}.jsonl");
    std::fs::copy(spotter().join(&transcript), project.join(&transcript)).unwrap();
    let sessions = t.path().join("sessions");
    let projects = t.path().join("projects");
    cru(
        &sessions,
        &["session", "import", projects.to_str().unwrap()],
    );
    let alone = sources(&sessions);
    assert!(
        alone.iter().any(|s| s.ends_with("#copies-of-a881341")),
        "{alone:?}"
    );
    // The file turns up: imported again, the store is what an import of
    // the file and the transcript together makes.
    add(&project);
    cru(
        &sessions,
        &["session", "import", projects.to_str().unwrap()],
    );
    let fresh = t.path().join("fresh");
    cru(&fresh, &["session", "import", projects.to_str().unwrap()]);
    assert_eq!(sources(&sessions), sources(&fresh));
    let daily = |dir: &Path| cru(dir, &["usage", "daily", "--json", "-z", "UTC"]);
    assert_eq!(daily(&sessions), daily(&fresh));
}

#[test]
fn a_subagents_folder_deleted_later_leaves_the_child_read_from_its_file() {
    let t = tempfile::tempdir().unwrap();
    let project = t.path().join("projects/p");
    std::fs::create_dir_all(&project).unwrap();
    let transcript = format!("{NAME}.jsonl");
    std::fs::copy(spotter().join(&transcript), project.join(&transcript)).unwrap();
    copy_dir(&spotter().join(NAME), &project.join(NAME));
    let sessions = t.path().join("sessions");
    let projects = t.path().join("projects");
    cru(
        &sessions,
        &["session", "import", projects.to_str().unwrap()],
    );
    let daily = |dir: &Path| cru(dir, &["usage", "daily", "--json", "-z", "UTC"]);
    let (before, with_files) = (sources(&sessions), daily(&sessions));
    // The folder goes; the transcript stays and is imported again. Its
    // copies hold fewer of the run's requests than the file did: the
    // child imported from the file is kept, not replaced by them.
    std::fs::remove_dir_all(project.join(NAME)).unwrap();
    cru(
        &sessions,
        &["session", "import", projects.to_str().unwrap()],
    );
    assert_eq!(sources(&sessions), before);
    assert_eq!(daily(&sessions), with_files);
}
