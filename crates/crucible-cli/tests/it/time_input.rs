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
