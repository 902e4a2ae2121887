//! `cru doctor`: each section on a directory made for it, the exit status,
//! and the JSON.

use crate::kiln::TestKiln;

#[test]
fn a_healthy_directory_is_all_ok_and_exit_0() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["doctor"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @"
    sessions directory
      ok       [KILN]/.crucible/sessions: the project's, found upward at [KILN]

    indexes
      ok       session index: 9 sessions, fresh
      note     search index: not built yet (the first `cru session search` builds it)
    ");
}

#[test]
fn a_named_directory_that_is_not_there_is_a_problem() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["doctor", "--dir", "nowhere"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @"
    sessions directory
      problem  [KILN]/nowhere: from --dir; no such directory: [KILN]/nowhere
               hint: pass --dir DIR, or set $CRU_SESSIONS_DIR or [session] dir
    ");
}

#[test]
fn unreadable_files_and_a_broken_search_index_are_named() {
    let kiln = TestKiln::with_fixtures();
    kiln.write(
        "broken.md",
        "---\ntype: session\nsession_id: broken\ntitle: [unclosed\n---\n",
    );
    let search = kiln.run(&["session", "search", "flaky"]);
    assert!(search.code == 0 || search.code == 3, "{}", search.stderr);
    std::fs::write(kiln.sessions().join(".search/manifest"), "garbage\n").unwrap();
    let out = kiln.run(&["doctor", "--format", "json"]);
    assert_eq!(out.code, 0, "warnings do not fail: {}", out.stdout);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let checks: Vec<(String, String)> = v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["checks"].as_array().unwrap().iter())
        .map(|c| {
            (
                c["level"].as_str().unwrap().to_owned(),
                c["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        checks.iter().any(|(l, m)| l == "warning"
            && m.contains("1 files cannot be read")
            && m.contains("broken.md")),
        "{checks:?}"
    );
    assert!(
        checks
            .iter()
            .any(|(l, m)| l == "warning" && m.contains("the next search rebuilds it")),
        "{checks:?}"
    );
}
