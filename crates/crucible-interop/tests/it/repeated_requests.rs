//! A Claude Code response copied into another transcript (a resumed or
//! forked session repeats the history it came from, each response with its
//! `message.id` and `requestId`) is counted once: in one import run over
//! both files, and against sessions an earlier run stored. The copy that
//! keeps the record is the first in path order, as ccusage keeps it.

use std::path::{Path, PathBuf};

use crucible_core::{SessionLog, SessionStore, Tokens};
use crucible_interop::reconcile::{Event, Reconciler};
use crucible_interop::{Format, find_sources, import};
use crucible_parser::MarkdownCodec;

/// A real transcript whose 40th line ends a response (so a copy of its
/// first 40 lines holds whole responses, as a resumed session does).
fn transcript() -> PathBuf {
    super::real::real_dir("claude-code").join("ai-sessions/claude-code-pomodoro-timer.jsonl")
}

const COPIED_LINES: usize = 40;

/// `projects/p/` with the transcript as `name_full` and its first lines as
/// `name_resumed`, which goes on with a prompt of its own: a fork, so
/// that neither file repeats every line of the other (a file that does is
/// a resumed session, whose copied lines the import leaves out before
/// counting: crucible-cli's `tests/it/import_resumed.rs`).
fn projects(dir: &Path, name_full: &str, name_resumed: &str) -> PathBuf {
    let p = dir.join("projects/p");
    std::fs::create_dir_all(&p).unwrap();
    let text = std::fs::read_to_string(transcript()).unwrap();
    std::fs::write(p.join(name_full), &text).unwrap();
    let mut head: String = text
        .lines()
        .take(COPIED_LINES)
        .map(|l| format!("{l}\n"))
        .collect();
    head.push_str(concat!(
        r#"{"type":"user","sessionId":"36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2","#,
        r#""uuid":"f0000000-0000-4000-8000-00000000f0f0","timestamp":"2025-10-21T21:00:00.000Z","#,
        r#""message":{"role":"user","content":"a fork's own prompt"}}"#,
        "\n"
    ));
    std::fs::write(p.join(name_resumed), head).unwrap();
    p
}

/// Imports `sources` into the store at `sessions` in one run; the stored
/// sessions by source file name.
fn run(sessions: &Path, sources: &[PathBuf]) -> Vec<(String, SessionLog)> {
    let store = SessionStore::new(sessions, MarkdownCodec);
    std::fs::create_dir_all(sessions).unwrap();
    let mut r = Reconciler::new(&store, false).unwrap();
    let mut stored = Vec::new();
    for s in sources {
        let imp = import(s, Format::ClaudeCode).unwrap();
        r.store(imp, &mut |e| {
            if let Event::Stored(s) = e {
                stored.push((s.source.clone(), s.path.clone()));
            }
        })
        .unwrap();
    }
    stored
        .into_iter()
        .map(|(source, path)| {
            let name = Path::new(&source)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (name, store.load_path(&path).unwrap())
        })
        .collect()
}

fn tokens_of(log: &SessionLog) -> Tokens {
    crucible_core::UsageByModel::of(&log.frontmatter)
        .map(|u| u.total())
        .unwrap_or_default()
}

fn alone(path: &Path) -> Tokens {
    tokens_of(&import(path, Format::ClaudeCode).unwrap().log)
}

fn sum(logs: &[(String, SessionLog)]) -> Tokens {
    let mut t = Tokens::default();
    for (_, l) in logs {
        t.add(tokens_of(l));
    }
    t
}

#[test]
fn a_response_copied_into_a_resumed_transcript_counts_once_in_one_run() {
    let dir = tempfile::tempdir().unwrap();
    // The copy sorts first: it keeps the records it repeats.
    let p = projects(dir.path(), "b-full.jsonl", "a-resumed.jsonl");
    let sources: Vec<PathBuf> = find_sources(&p, None)
        .sources
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    assert_eq!(sources, [p.join("a-resumed.jsonl"), p.join("b-full.jsonl")]);
    let logs = run(&dir.path().join("sessions"), &sources);
    assert_eq!(logs.len(), 2);
    let full = alone(&p.join("b-full.jsonl"));
    let resumed = alone(&p.join("a-resumed.jsonl"));
    assert!(!resumed.is_zero() && resumed != full);
    assert_eq!(sum(&logs), full, "every response once over both sessions");
    assert_eq!(tokens_of(&logs[0].1), resumed, "the first copy keeps them");
    let rest = tokens_of(&logs[1].1);
    assert_eq!(rest.total(), full.total() - resumed.total());
    // Its own records, none of the copy's: the rest of the file.
    let phases_with_records = logs[1]
        .1
        .phases()
        .filter(|(_, p)| !p.usage.is_empty())
        .count();
    assert!(phases_with_records > 0);
}

#[test]
fn a_copy_imported_later_finds_its_responses_in_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let p = projects(dir.path(), "a-full.jsonl", "b-resumed.jsonl");
    let sessions = dir.path().join("sessions");
    let first = run(&sessions, &[p.join("a-full.jsonl")]);
    let full = alone(&p.join("a-full.jsonl"));
    assert_eq!(sum(&first), full);
    // A later run, the copy alone: every response it holds is stored.
    let second = run(&sessions, &[p.join("b-resumed.jsonl")]);
    assert_eq!(second.len(), 1);
    let resumed = &second[0].1;
    assert!(
        resumed.usage_records().next().is_none(),
        "{:?}",
        tokens_of(resumed)
    );
    assert_eq!(resumed.frontmatter.tokens_used, None);
    // Its conversation is imported all the same.
    assert!(resumed.phase_count() > 0);
}

#[test]
fn a_grown_source_imported_again_keeps_its_own_records() {
    let dir = tempfile::tempdir().unwrap();
    let p = projects(dir.path(), "full.jsonl", "resumed.jsonl");
    let sessions = dir.path().join("sessions");
    run(&sessions, &[p.join("resumed.jsonl")]);
    // The copy grows into the whole transcript: its session is updated,
    // and what it held before is its own, not another's.
    std::fs::copy(p.join("full.jsonl"), p.join("resumed.jsonl")).unwrap();
    let again = run(&sessions, &[p.join("resumed.jsonl")]);
    assert_eq!(sum(&again), alone(&p.join("full.jsonl")));
}

/// Two of Entire's snapshots of one Claude Code session, cut to the line
/// they share: a response with usage and no `requestId`.
fn snapshots() -> [PathBuf; 2] {
    let dir = super::real::real_dir("claude-code").join("entireio-cli");
    [
        dir.join("6a/71b2542fc4/0/full.jsonl"),
        dir.join("e0/397b25e94a/0/full.jsonl"),
    ]
}

#[test]
fn a_response_without_a_request_id_counts_once_per_claude_session() {
    let [a, b] = snapshots();
    let text = std::fs::read_to_string(&a).unwrap();
    assert!(!text.contains("\"requestId\""), "the real line has none");
    let dir = tempfile::tempdir().unwrap();
    let once = alone(&a);
    assert!(!once.is_zero());
    // Both snapshots in one run: the second holds no record of its own.
    let logs = run(&dir.path().join("one-run"), &[a.clone(), b.clone()]);
    assert_eq!(sum(&logs), once, "one session's response, counted once");
    // A later run finds it in the store, as a request id would be found.
    let sessions = dir.path().join("two-runs");
    run(&sessions, std::slice::from_ref(&a));
    let later = run(&sessions, std::slice::from_ref(&b));
    assert_eq!(later[0].1.frontmatter.tokens_used, None);
    // The same message id in another session (a gateway reusing ids) is
    // that session's own: counted in both, as ccusage counts it.
    let other = dir.path().join("other.jsonl");
    std::fs::write(
        &other,
        text.replace(
            "de1ed521-f8fc-44f4-b8a3-970e99616ca2",
            "00000000-0000-4000-8000-000000000002",
        ),
    )
    .unwrap();
    let logs = run(&dir.path().join("two-sessions"), &[a, other.clone()]);
    let mut twice = once;
    twice.add(once);
    assert_eq!(sum(&logs), twice);
    // So is it inside one file.
    let both = dir.path().join("both.jsonl");
    let other_text = std::fs::read_to_string(&other).unwrap();
    std::fs::write(&both, format!("{text}{other_text}")).unwrap();
    assert_eq!(alone(&both), twice);
}
