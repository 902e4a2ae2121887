//! The journal reader runs in time linear in its input: 10 times the events
//! cost at most 15 times the time (a quadratic step would cost 100).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crucible_core::store::journal;
use crucible_core::{Frontmatter, SessionId, SessionLog};

/// One timing at a time, so the timing tests of this binary do not slow
/// each other down.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Asserts that `run` on `input(10 * n)` costs at most 15 times `run` on
/// `input(n)`. `n` starts at `start` and doubles until the small input takes
/// 20 ms, so that timer noise is small beside it; each size is timed several
/// times and the fastest run counts. On a loaded machine one comparison can
/// still be off, so it is made up to three times: a linear reader passes one
/// of them (about 10x), a quadratic one none (about 100x).
fn assert_linear<T>(what: &str, start: usize, input: impl Fn(usize) -> T, run: impl Fn(&T)) {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let fastest = |x: &T, runs: usize| {
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                run(x);
                t.elapsed()
            })
            .min()
            .expect("at least one run")
    };
    let mut n = start;
    let mut small_input = input(n);
    while fastest(&small_input, 2) < Duration::from_millis(20) {
        n *= 2;
        small_input = input(n);
    }
    let large_input = input(10 * n);
    let mut tries = Vec::new();
    for _ in 0..3 {
        let small = fastest(&small_input, 3);
        let large = fastest(&large_input, 3);
        let ratio = large.as_secs_f64() / small.as_secs_f64();
        if ratio <= 15.0 {
            return;
        }
        tries.push(format!("{small:?} then {large:?} ({ratio:.1}x)"));
    }
    panic!(
        "{what}: size {n}, then size {}, took {}",
        10 * n,
        tries.join("; ")
    );
}

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
    assert!(read.bad_lines.is_empty(), "lines {:?}", read.bad_lines);
    assert_eq!(read.events.len(), 10);
    assert_linear("journal read", 1_000, journal_of, |(_, path)| {
        std::hint::black_box(journal::read(path).unwrap());
    });
}

#[test]
fn applying_a_journal_to_its_session() {
    // Read once and repeated: reading is the other test's to time.
    let block = journal::read(&journal_of(50).1).unwrap().unwrap().events;
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
