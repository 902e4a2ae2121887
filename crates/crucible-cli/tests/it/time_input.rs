//! A time the user gives (`--since`, `--until`) is read by the same strict
//! reader as a session's timestamps: an impossible offset or date is a usage
//! error that repeats the text, never a silently shifted bound.

use crate::kiln::TestKiln;

#[test]
fn impossible_since_and_until_are_usage_errors() {
    let kiln = TestKiln::with_fixtures();
    for (flag, bad) in [
        ("--since", "2025-12-05T10:00:00+25:00"),
        ("--since", "2025-12-05T10:00:00+01:60"),
        ("--until", "2025-02-30"),
    ] {
        let out = kiln.run(&["--dir", ".crucible/sessions", "session", "list", flag, bad]);
        assert_eq!(out.code, 2, "{flag} {bad}: {}{}", out.stdout, out.stderr);
        assert!(
            out.stderr.contains(flag) && out.stderr.contains(bad),
            "{flag} {bad}: {}",
            out.stderr
        );
        assert!(out.stdout.is_empty(), "{}", out.stdout);
    }
    let ok = kiln.run(&[
        "--dir",
        ".crucible/sessions",
        "session",
        "list",
        "--since",
        "2025-12-05T10:00:00+14:00",
    ]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
}

#[test]
fn since_and_until_take_the_usage_views_forms() {
    let kiln = TestKiln::with_fixtures();
    let ids = |args: &[&str]| {
        let mut all = vec!["session", "list", "--format", "json"];
        all.extend_from_slice(args);
        let out = kiln.run(&all);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        let mut v: Vec<String> = crate::kiln::listed_sessions(&out.stdout)
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .collect();
        v.sort();
        v
    };
    // YYYYMMDD is the same day as YYYY-MM-DD.
    assert_eq!(
        ids(&["--since", "20251211", "--until", "20251211"]),
        ids(&["--since", "2025-12-11", "--until", "2025-12-11"])
    );
    assert!(!ids(&["--since", "20251211", "--until", "20251211"]).is_empty());
    // Spans back from today: every fixture is older than a week and younger
    // than a hundred years.
    assert!(ids(&["--since", "7d"]).is_empty());
    assert!(ids(&["--since", "2w"]).is_empty());
    assert_eq!(ids(&["--since", "1200m"]), ids(&[]));
    assert_eq!(ids(&["--until", "0d"]), ids(&[]));
    for bad in ["7x", "20251301", "3y"] {
        let out = kiln.run(&["session", "stats", "--since", bad]);
        assert_eq!(out.code, 2, "{bad}: {}", out.stderr);
        assert!(out.stderr.contains(&format!("`{bad}`")), "{}", out.stderr);
    }
}
