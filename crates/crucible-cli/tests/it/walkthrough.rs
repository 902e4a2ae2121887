//! The README's walk-through (record, pause, resume twice, codify, learn,
//! eval), run exactly as written, and its output compared with the one the
//! README shows.

use std::path::Path;

use crate::kiln::fixtures;

/// The fenced block after `marker` in the README.
fn block_after(readme: &str, marker: &str) -> String {
    let start = readme
        .find(marker)
        .unwrap_or_else(|| panic!("README has no {marker}"));
    let rest = &readme[start..];
    let open = rest.find("```").unwrap();
    let body = &rest[open..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("```").unwrap()].to_owned()
}

/// Dates in ids and times differ from day to day.
fn without_dates(text: &str) -> String {
    const SHAPE: &[u8] = b"dddd-dd-dd";
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let is_date = bytes.len() - i >= SHAPE.len()
            && SHAPE.iter().zip(&bytes[i..]).all(|(want, b)| match want {
                b'd' => b.is_ascii_digit(),
                _ => b == want,
            });
        if is_date {
            out.push_str("YYYY-MM-DD");
            i += SHAPE.len();
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The README, or `None` (with a loud warning) when jq, which its blocks
/// use and `.ci/run` installs, is missing.
fn readme_if_jq(what: &str) -> Option<String> {
    if std::process::Command::new("jq")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("warning: jq is not installed; the README {what} was not run");
        return None;
    }
    Some(std::fs::read_to_string(fixtures().join("../README.md")).unwrap())
}

/// Runs `script` with bash from the repository's root, with the test's
/// `cru` first on the PATH, `home` as HOME and TMPDIR, and no cru
/// variable of the caller's.
fn run_from_root(script: &str, home: &Path) -> std::process::Output {
    let cru = assert_cmd::cargo::cargo_bin("cru");
    let path = format!(
        "{}:{}",
        cru.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(fixtures().join(".."))
        .env("PATH", path)
        .env("HOME", home)
        .env("TMPDIR", home)
        .env_remove("CRU_SESSION")
        .env_remove("CRU_SESSIONS_DIR")
        .env_remove("CRUCIBLE_CONFIG")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CRU_LOG")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn the_readme_walkthrough_prints_what_the_readme_shows() {
    let Some(readme) = readme_if_jq("walk-through") else {
        return;
    };
    let script = block_after(&readme, "<!-- walkthrough -->");
    let expected = block_after(&readme, "<!-- walkthrough-output -->");
    let home = tempfile::tempdir().unwrap();
    let out = run_from_root(&format!("set -eu\nexec 2>&1\n{script}"), home.path());
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the walk-through failed:\n{printed}");
    assert_eq!(
        without_dates(&printed),
        without_dates(&expected),
        "the README's output of the walk-through is out of date"
    );
}

#[test]
fn the_readme_usage_tour_prints_what_the_readme_shows() {
    let Some(readme) = readme_if_jq("usage tour") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    // The README's sessions directory, made private to this run.
    let sessions = home.path().join("usage");
    let script = block_after(&readme, "<!-- usage-tour -->")
        .replace("/tmp/usage", &sessions.display().to_string());
    let expected = block_after(&readme, "<!-- usage-tour-output -->");
    let out = run_from_root(&format!("set -eu\n{script}"), home.path());
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the usage tour failed:\n{printed}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        printed, expected,
        "the README's output of the usage tour is out of date"
    );
}
