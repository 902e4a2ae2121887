//! Shell completion of session ids: the real binary asked as a shell asks
//! it (`COMPLETE=<shell> cru -- cru ...`), in a kiln of the fixtures.

use crate::kiln::TestKiln;

/// The candidates fish would be given for the last word of `words`.
fn candidates(kiln: &TestKiln, words: &[&str]) -> Vec<String> {
    let mut cmd = kiln.command();
    cmd.env("COMPLETE", "fish").arg("--").arg("cru").args(words);
    let out = kiln.run_cmd(&mut cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout.lines().map(str::to_owned).collect()
}

#[test]
fn session_ids_complete_with_their_titles_for_every_command_that_takes_one() {
    let kiln = TestKiln::with_fixtures();
    let got = candidates(&kiln, &["session", "show", "2025-12-1"]);
    assert!(
        got.contains(&"2025-12-13-config-loader\tAdd a config loader".to_owned()),
        "{got:?}"
    );
    assert!(got.iter().all(|c| c.starts_with("2025-12-1")), "{got:?}");
    // Any case, as ids are resolved.
    assert_eq!(
        candidates(&kiln, &["session", "resume", "2025-12-10-FIX"]),
        ["2025-12-10-fix-flaky-test\tFix the flaky store test"]
    );
    for verb in [
        ["session", "export"],
        ["session", "codify"],
        ["session", "learn"],
        ["session", "end"],
        ["session", "pause"],
        ["session", "replay"],
        ["session", "eval"],
    ] {
        let mut words = verb.to_vec();
        words.push("2025-12-12-st");
        assert_eq!(
            candidates(&kiln, &words),
            ["2025-12-12-start-docs"],
            "{verb:?}"
        );
    }
}

#[test]
fn a_dir_typed_on_the_line_is_the_one_completed_from() {
    let kiln = TestKiln::empty();
    let other = kiln.sessions().join("../../other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("2026-01-02-other.md"),
        "---\ntype: session\nsession_id: 2026-01-02-other\nstarted: 2026-01-02T10:00:00Z\nstatus: completed\n---\n",
    )
    .unwrap();
    let dir = other.display().to_string();
    assert_eq!(
        candidates(&kiln, &["--dir", &dir, "session", "show", "2026"]),
        ["2026-01-02-other"]
    );
    // No sessions: no candidates, no error in the person's command line.
    assert!(candidates(&kiln, &["session", "show", "2026"]).is_empty());
}

#[test]
fn completions_prints_the_registration_or_a_static_script() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["completions", "bash"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("COMPLETE=\"bash\""), "{}", out.stdout);
    assert!(out.stdout.contains("complete -o nospace"), "{}", out.stdout);
    let fixed = kiln.run(&["completions", "bash", "--static"]);
    assert!(fixed.stdout.contains("_cru()"), "{}", fixed.stdout);
    assert!(!fixed.stdout.contains("COMPLETE="));
}
