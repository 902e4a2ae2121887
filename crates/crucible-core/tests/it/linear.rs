//! The journal reader runs in time linear in its input: 10 times the events
//! cost at most 15 times the time (a quadratic step would cost 100).

use crucible_core::store::journal;
use crucible_core::{Frontmatter, SessionId, SessionLog};

#[path = "../../../crucible-core/tests/support/linear_time.rs"]
mod linear_time;
use linear_time::assert_linear;

/// A journal of `n` events (a phase every 50, tool calls, decisions, errors)
/// in a temporary directory, which lives as long as the returned value.
fn journal_of(n: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = journal::journal_path(&dir.path().join("linear.md"));
    let mut text = String::new();
    for i in 0..n {
        let at = "\"at\":\"2025-12-05T14:32:15Z\"";
        text.push_str(&match i % 50 {
            0 => format!("{{{at},\"event\":\"phase\",\"name\":\"Phase {i}\",\"level\":2}}\n"),
            1 => format!("{{{at},\"event\":\"decision\",\"text\":\"decided {i}\"}}\n"),
            2 => format!("{{{at},\"event\":\"error\",\"text\":\"broke {i}\",\"resolution\":\"fixed\"}}\n"),
            _ => format!("{{{at},\"event\":\"tool\",\"tool\":\"grep\",\"args\":\"x {i}\",\"summary\":\"{i} matches\"}}\n"),
        });
    }
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn the_journal_reader() {
    let (_dir, path) = journal_of(10);
    let read = journal::read(&path).unwrap().unwrap();
    let all = read.all();
    assert!(all.bad_lines.is_empty(), "lines {:?}", all.bad_lines);
    assert_eq!(all.events.len(), 10);
    assert_linear("journal read", 1_000, journal_of, |(_, path)| {
        std::hint::black_box(journal::read(path).unwrap().unwrap().all());
    });
}

#[test]
fn applying_a_journal_to_its_session() {
    // Read once and repeated: reading is the other test's to time.
    let block = journal::read(&journal_of(50).1)
        .unwrap()
        .unwrap()
        .all()
        .events;
    let events = |n: usize| block.iter().cycle().take(n).cloned().collect::<Vec<_>>();
    assert_linear("journal apply", 1_000, events, |events| {
        let mut log = SessionLog::new(Frontmatter::new(
            SessionId::new("linear").unwrap(),
            "2025-12-05T14:32:15Z".parse().unwrap(),
        ));
        for e in events {
            log.apply(e);
        }
        std::hint::black_box(log);
    });
}
