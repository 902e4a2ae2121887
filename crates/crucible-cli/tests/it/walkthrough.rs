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

#[test]
fn the_readme_walkthrough_prints_what_the_readme_shows() {
    if std::process::Command::new("jq")
        .arg("--version")
        .output()
        .is_err()
    {
        // .ci/run installs jq; a developer machine without it skips, loudly.
        eprintln!("warning: jq is not installed; the README walk-through was not run");
        return;
    }
    let root = fixtures().join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let script = block_after(&readme, "<!-- walkthrough -->");
    let expected = block_after(&readme, "<!-- walkthrough-output -->");
    let cru = assert_cmd::cargo::cargo_bin("cru");
    let bin_dir = cru.parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("set -eu\nexec 2>&1\n{script}"))
        .current_dir(Path::new(&root))
        .env("PATH", path)
        .env("HOME", home.path())
        .env("TMPDIR", home.path())
        .env_remove("CRU_SESSION")
        .env_remove("CRU_SESSIONS_DIR")
        .env_remove("CRUCIBLE_CONFIG")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CRU_LOG")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
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
    if std::process::Command::new("jq")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("warning: jq is not installed; the README usage tour was not run");
        return;
    }
    let root = fixtures().join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("usage");
    // The README's sessions directory, made private to this run.
    let script = block_after(&readme, "<!-- usage-tour -->")
        .replace("/tmp/usage", &sessions.display().to_string());
    let expected = block_after(&readme, "<!-- usage-tour-output -->");
    let cru = assert_cmd::cargo::cargo_bin("cru");
    let path = format!(
        "{}:{}",
        cru.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("set -eu\n{script}"))
        .current_dir(Path::new(&root))
        .env("PATH", path)
        .env("HOME", dir.path())
        .env_remove("CRU_SESSIONS_DIR")
        .env_remove("CRUCIBLE_CONFIG")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CRU_LOG")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
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
