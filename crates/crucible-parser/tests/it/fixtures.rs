//! Every fixture session is valid and stable; every invalid fixture fails on
//! the line its name promises.

use std::path::{Path, PathBuf};

use crucible_parser::{check_session, parse_session, write_session};

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(dir);
    let files = crucible_core::store::session_files(&dir).unwrap();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    files
}

#[test]
fn fixture_sessions_are_valid_and_canonical() {
    for path in fixtures("sessions") {
        let bytes = std::fs::read(&path).unwrap();
        let checked = check_session(&path, &bytes);
        assert!(
            checked.errors.is_empty(),
            "{}: {:?}",
            path.display(),
            checked.errors
        );
        let log = checked.log.unwrap();
        let written = write_session(&log);
        assert_eq!(
            written,
            String::from_utf8(bytes).unwrap(),
            "{} is not in canonical form",
            path.display()
        );
        assert_eq!(parse_session(&path, written.as_bytes()).unwrap(), log);
    }
}

/// Each invalid fixture starts with a comment-free first line and states the
/// line and the words of its expected error in `fixtures/invalid/EXPECTED`.
#[test]
fn invalid_fixtures_fail_where_expected() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/invalid");
    let expected = std::fs::read_to_string(dir.join("EXPECTED")).unwrap();
    let mut seen = 0;
    for line in expected
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let (file, rest) = line.split_once(':').unwrap();
        let (line_no, words) = rest.split_once(':').unwrap();
        let path = dir.join(file.trim());
        let bytes = std::fs::read(&path).unwrap();
        let checked = check_session(&path, &bytes);
        let first = checked
            .errors
            .first()
            .unwrap_or_else(|| panic!("{file} parsed without error"));
        let message = first.to_string();
        assert_eq!(
            first.line,
            line_no.trim().parse::<usize>().unwrap(),
            "{message}"
        );
        assert!(message.contains(words.trim()), "{message} lacks {words}");
        seen += 1;
    }
    assert_eq!(
        seen,
        fixtures("invalid").len(),
        "every invalid fixture is listed in EXPECTED"
    );
}
