//! A session's project: `session start` records `cwd` and the git root
//! above it, and `--project DIR` on list, stats and usage matches sessions
//! at or below DIR.

use std::path::Path;

use crate::kiln::TestKiln;

fn start(kiln: &TestKiln, title: &str, cwd: Option<&Path>) -> (String, String) {
    let mut cmd = kiln.command();
    cmd.args(["session", "start", "--title", title, "--format", "json"]);
    if let Some(cwd) = cwd {
        cmd.arg("--cwd").arg(cwd);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = v["id"].as_str().unwrap().to_owned();
    let text = std::fs::read_to_string(v["path"].as_str().unwrap()).unwrap();
    (id, text)
}

fn json(kiln: &TestKiln, args: &[&str]) -> serde_json::Value {
    let out = kiln.run(args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

#[test]
fn start_records_the_working_directory_and_its_git_root() {
    let kiln = TestKiln::empty();
    let root = std::fs::canonicalize(kiln.root.path()).unwrap();
    let repo = root.join("work/repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("src")).unwrap();

    let (id, text) = start(&kiln, "In the repo", Some(&repo.join("src")));
    assert!(
        text.contains(&format!("cwd: {}\n", repo.join("src").display())),
        "{text}"
    );
    assert!(
        text.contains(&format!("project: {}\n", repo.display())),
        "{text}"
    );

    // A linked subagent's session works where its parent does.
    let out = kiln.run(&[
        "session",
        "log",
        "--session",
        &id,
        "subagent",
        "--agent",
        "helper",
        "--mode",
        "link",
        "--task",
        "look",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let child: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let child = std::fs::read_to_string(
        child["path"]
            .as_str()
            .unwrap()
            .replace("[KILN]", kiln.root.path().to_str().unwrap()),
    )
    .unwrap();
    assert!(
        child.contains(&format!("project: {}\n", repo.display())),
        "{child}"
    );

    // No --cwd: the directory cru runs in (the kiln's root, in no repository
    // of its own; the project key is left out when it is the cwd itself).
    let (_, text) = start(&kiln, "Here", None);
    assert!(
        text.contains(&format!("cwd: {}\n", root.display())),
        "{text}"
    );
}

#[test]
fn project_filters_match_sessions_at_or_below_the_directory() {
    let kiln = TestKiln::empty();
    let root = std::fs::canonicalize(kiln.root.path()).unwrap();
    let repo = root.join("work/repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("src/deep")).unwrap();
    let other = root.join("work/repo-two");
    std::fs::create_dir_all(&other).unwrap();

    let (a, _) = start(&kiln, "Deep in the repo", Some(&repo.join("src/deep")));
    let (b, _) = start(&kiln, "A sibling with a longer name", Some(&other));
    kiln.log_tokens(&a, "claude-sonnet-4-5", "100", "1");
    kiln.log_tokens(&b, "claude-sonnet-4-5", "20", "1");

    let ids = |v: &serde_json::Value| -> Vec<String> {
        v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let repo_s = repo.to_str().unwrap();
    let list = json(
        &kiln,
        &["session", "list", "--project", repo_s, "--format", "json"],
    );
    assert_eq!(ids(&list), [a]);
    // At or below: the parent of both takes both; `repo` is no prefix of
    // `repo-two` as a path.
    let work = root.join("work");
    let both = json(
        &kiln,
        &[
            "session",
            "list",
            "--project",
            work.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(ids(&both).len(), 2);
    // The session's cwd is below its project, but the project is what is
    // matched: a folder inside the repo matches nothing.
    let inside = json(
        &kiln,
        &[
            "session",
            "list",
            "--project",
            repo.join("src").to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert!(ids(&inside).is_empty());

    let stats = json(
        &kiln,
        &["session", "stats", "--project", repo_s, "--format", "json"],
    );
    assert_eq!(stats["total"]["sessions"], 1, "{stats}");

    let daily = json(&kiln, &["usage", "daily", "--project", repo_s, "--json"]);
    assert_eq!(daily["totals"]["inputTokens"], 100, "{daily}");
    let daily = json(
        &kiln,
        &[
            "usage",
            "daily",
            "--project",
            work.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(daily["totals"]["inputTokens"], 120, "{daily}");
}
