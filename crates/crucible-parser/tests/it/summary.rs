//! The fast summary scanner must agree with the full parser wherever it
//! answers, and must answer for everything cru writes.

use std::path::Path;

use crucible_parser::{fast_summary, parse_session, summarize, write_session};
use proptest::prelude::*;

use crate::garbage::garbage;
use crate::strategy::session_log;

fn fixtures(dir: &str) -> Vec<std::path::PathBuf> {
    crucible_core::store::session_files(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures")
            .join(dir),
    )
    .unwrap()
}

#[test]
fn fixtures_take_the_fast_path_and_agree() {
    for path in fixtures("sessions") {
        let bytes = std::fs::read(&path).unwrap();
        let full = parse_session(&path, &bytes).unwrap().summary();
        let fast =
            fast_summary(&bytes).unwrap_or_else(|| panic!("{} left the fast path", path.display()));
        assert_eq!(fast, full, "{}", path.display());
    }
}

#[test]
fn invalid_files_are_left_to_the_full_parser() {
    for path in fixtures("invalid") {
        let bytes = std::fs::read(&path).unwrap();
        assert!(fast_summary(&bytes).is_none(), "{}", path.display());
        assert!(summarize(&path, &bytes).is_err(), "{}", path.display());
    }
}

#[test]
fn a_lone_carriage_return_ends_a_line_as_commonmark_says() {
    // Found by the garbage test: with the CR read as part of the line,
    // `#### \r000 #a` looked like a phase the parser does not see, so the
    // fast path counted a phase and accepted a `resume_point` past the end.
    let text = "---\ntype: session\nsession_id: s\nstarted: 2025-12-05T14:32:15Z\n\
                status: paused\nresume_point: phase-1\n---\n\n#### \r000 #a\n";
    assert!(fast_summary(text.as_bytes()).is_none());
    assert!(summarize(Path::new("s.md"), text.as_bytes()).is_err());
    let with_crlf = text.replace("#### \r000 #a\n", "## Fix #a\r\n");
    assert_eq!(fast_summary(with_crlf.as_bytes()).unwrap().phases.len(), 1);
}

#[test]
fn lines_that_commonmark_adds_to_a_tool_call_list_are_left_to_the_parser() {
    // Found by the garbage test (an empty `-` item after a blank line); an
    // item with another marker, or an indented line after a blank, is the
    // same kind of case. The parser keeps such a list as prose.
    let head = "---\ntype: session\nsession_id: s\nstarted: 2025-12-05T14:32:15Z\n\
                status: active\n---\n\n## Fix @a\n\n**Tool calls:**\n- `grep x` → 3\n";
    for tail in [
        "\n-\n",
        "* `ls` → 2\n",
        "\n* `ls` → 2\n",
        "\n    more\n",
        "\n  more\n",
    ] {
        let text = format!("{head}{tail}");
        let full = parse_session(Path::new("s.md"), text.as_bytes())
            .unwrap()
            .summary();
        if let Some(fast) = fast_summary(text.as_bytes()) {
            assert_eq!(fast, full, "{text}");
        }
    }
    let text = format!("{head}\n- `ls` → 2\n\ntext\n");
    assert_eq!(fast_summary(text.as_bytes()).unwrap().totals.tool_calls, 2);
}

#[test]
fn lines_led_by_other_whitespace_are_left_to_the_parser() {
    // Found by the garbage test: a vertical tab before `**Tool calls:**`,
    // which the parser trims away and the scanner took for prose.
    let head = "---\ntype: session\nsession_id: s\nstarted: 2025-12-05T14:32:15Z\n\
                status: active\n---\n\ntext\n\n";
    for odd in ["\x0b", "\x0c", "\u{a0}", "\u{2003}"] {
        for body in [
            format!("{odd}**Tool calls:**\n- `grep x` → 3\n"),
            format!("**Tool calls:**\n{odd}\n- `grep x` → 3\n"),
        ] {
            let text = format!("{head}{body}");
            let full = parse_session(Path::new("s.md"), text.as_bytes())
                .unwrap()
                .summary();
            if let Some(fast) = fast_summary(text.as_bytes()) {
                assert_eq!(fast, full, "{text:?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn what_cru_writes_is_summarized_fast_and_right(log in session_log()) {
        let text = write_session(&log);
        let fast = fast_summary(text.as_bytes());
        prop_assert!(fast.is_some(), "left the fast path:\n{}", text);
        prop_assert_eq!(fast.unwrap(), log.summary(), "file:\n{}", text);
    }

    #[test]
    fn the_fast_path_never_disagrees_on_garbage(bytes in garbage()) {
        if let Some(fast) = fast_summary(&bytes) {
            let full = parse_session(Path::new("g.md"), &bytes);
            prop_assert!(full.is_ok(), "fast path accepted what the parser rejects: {:?}\n{}", full.err(), String::from_utf8_lossy(&bytes));
            prop_assert_eq!(fast, full.unwrap().summary(), "file:\n{}", String::from_utf8_lossy(&bytes));
        }
    }
}
