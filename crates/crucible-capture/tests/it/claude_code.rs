use std::path::{Path, PathBuf};

use crucible_capture::{Capture, CaptureOptions, HookInput, Recorded};
use crucible_core::{Block, SessionStatus, SessionStore, Timestamp};
use crucible_parser::MarkdownCodec;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hooks")
}

/// A fixture payload, its transcript path pointed at `transcript` and
/// its session id replaced by `sid` when given.
fn payload(name: &str, transcript: &Path, sid: Option<&str>) -> HookInput {
    let text = std::fs::read_to_string(fixtures().join(name)).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["transcript_path"] = transcript.to_str().unwrap().into();
    if let Some(sid) = sid {
        v["session_id"] = sid.into();
    }
    serde_json::from_value(v).unwrap()
}

fn at(s: u32) -> Timestamp {
    format!("2026-03-02T10:00:{s:02}Z").parse().unwrap()
}

struct World {
    _dir: tempfile::TempDir,
    store: SessionStore<MarkdownCodec>,
    transcript: PathBuf,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("t.jsonl");
    std::fs::write(&transcript, "").unwrap();
    World {
        store: SessionStore::new(dir.path().join("sessions"), MarkdownCodec),
        transcript,
        _dir: dir,
    }
}

impl World {
    fn record(&self, name: &str, s: u32) -> Recorded {
        Capture::new(&self.store, CaptureOptions::default())
            .record(&payload(name, &self.transcript, None), &at(s))
            .unwrap()
    }
}

fn session_path(r: &Recorded) -> PathBuf {
    match r {
        Recorded::Session { path, .. } => path.clone(),
        Recorded::Nothing => panic!("nothing recorded"),
    }
}

#[test]
fn a_replayed_session_has_its_phase_calls_marker_usage_subagent_and_end() {
    let w = world();
    assert_eq!(
        w.record("session-start.json", 0),
        Recorded::Nothing,
        "made at its first prompt"
    );
    assert_eq!(w.record("notification.json", 1), Recorded::Nothing);
    let path = session_path(&w.record("user-prompt-submit.json", 1));
    w.record("pre-tool-use.json", 2);
    // The transcript grows as Claude Code writes it.
    std::fs::copy(fixtures().join("transcript.jsonl"), &w.transcript).unwrap();
    w.record("post-tool-use.json", 3);
    w.record("post-tool-use-failure.json", 4);
    w.record("pre-compact.json", 5);
    w.record("stop.json", 6);
    w.record("stop.json", 7);
    w.record("subagent-stop.json", 8);
    w.record("subagent-stop.json", 8);
    w.record("session-end.json", 9);
    let log = w.store.load_path(&path).unwrap();
    assert_eq!(log.frontmatter.status, SessionStatus::Completed);
    let phases: Vec<_> = log.phases().collect();
    assert_eq!(
        phases.len(),
        1,
        "one prompt, one phase; the compaction is no phase"
    );
    let p = phases[0].1;
    assert_eq!(p.name, "Why does the checkout test fail? Fix it.");
    let calls: Vec<_> = log.tool_calls().collect();
    let lines: Vec<String> = calls
        .iter()
        .map(|c| format!("{} {} {:?} {}", c.tool, c.args, c.summary, c.failed))
        .collect();
    assert_eq!(
        lines,
        [
            "Bash cargo test checkout Some(\"test checkout::total ... FAILED ⏎ test result: FAILED. 3 passed; 1 failed\") false",
            "Read /home/dev/shop/src/cart.rs Some(\"File does not exist.\") true",
            "compact manual keep the test names Some(\"context compacted\") false",
        ]
        .map(str::to_owned),
        "{lines:#?}"
    );
    // Two responses (one streamed over two lines), counted once though
    // Stop came twice: 1200+48+800 and 1400+30+200+800.
    assert_eq!(log.frontmatter.tokens_used, Some(2048 + 2430));
    assert!(
        p.blocks
            .iter()
            .any(|b| matches!(b, Block::Callout(c) if c.text().contains("Why does the checkout")))
    );
    assert_eq!(
        log.frontmatter.subagents.len(),
        1,
        "a repeated SubagentStop links one child"
    );
    let child = w
        .store
        .resolve_id(&log.frontmatter.subagents[0].session)
        .unwrap();
    let child = w.store.load_path(&child).unwrap();
    assert_eq!(child.frontmatter.parent.as_ref(), Some(log.id()));
    assert_eq!(child.frontmatter.status, SessionStatus::Completed);
}

#[test]
fn parallel_tool_calls_of_one_session_and_two_interleaved_sessions_lose_nothing() {
    let w = world();
    let cap = || Capture::new(&w.store, CaptureOptions::default());
    w.record("session-start.json", 0);
    let path_a = session_path(&w.record("user-prompt-submit.json", 1));
    let b_sid = "0b0b0b0b-1111-2222-3333-444444444444";
    for name in ["session-start.json", "user-prompt-submit.json"] {
        cap()
            .record(&payload(name, &w.transcript, Some(b_sid)), &at(1))
            .unwrap();
    }
    let path_b = session_path(
        &cap()
            .record(&payload("stop.json", &w.transcript, Some(b_sid)), &at(1))
            .unwrap(),
    );
    assert_ne!(path_a, path_b);
    std::thread::scope(|s| {
        for i in 0..16 {
            let w = &w;
            s.spawn(move || {
                let sid = (i % 2 == 1).then_some(b_sid);
                for name in ["pre-tool-use.json", "post-tool-use.json"] {
                    let mut v = input_json(name, &w.transcript, sid);
                    v["tool_use_id"] = format!("toolu_{i}").into();
                    v["tool_input"]["command"] = format!("echo {i}").into();
                    let input: HookInput = serde_json::from_value(v).unwrap();
                    Capture::new(&w.store, CaptureOptions::default())
                        .record(&input, &at(2))
                        .unwrap();
                }
            });
        }
    });
    for (path, parity) in [(&path_a, 0), (&path_b, 1)] {
        let log = w.store.load_path(path).unwrap();
        let mut got: Vec<String> = log.tool_calls().map(|c| c.args.clone()).collect();
        got.sort();
        let mut want: Vec<String> = (0..16)
            .filter(|i| i % 2 == parity)
            .map(|i| format!("echo {i}"))
            .collect();
        want.sort();
        assert_eq!(got, want);
    }
}

fn input_json(name: &str, transcript: &Path, sid: Option<&str>) -> serde_json::Value {
    let text = std::fs::read_to_string(fixtures().join(name)).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["transcript_path"] = transcript.to_str().unwrap().into();
    if let Some(sid) = sid {
        v["session_id"] = sid.into();
    }
    v
}

/// Records the event `v` with a payload limit of `limit` bytes.
fn record_limited(w: &World, v: serde_json::Value, limit: usize) {
    let input: HookInput = serde_json::from_value(v).unwrap();
    Capture::new(
        &w.store,
        CaptureOptions {
            payload_limit: limit,
        },
    )
    .record(&input, &at(2))
    .unwrap();
}

#[test]
fn a_payload_over_the_limit_goes_whole_to_the_sidecar_and_is_cut_in_the_markdown() {
    let w = world();
    w.record("session-start.json", 0);
    let path = session_path(&w.record("user-prompt-submit.json", 1));
    let mut v = input_json("post-tool-use.json", &w.transcript, None);
    let big = "x".repeat(5000);
    v["tool_input"]["command"] = format!("echo {big}").into();
    record_limited(&w, v, 1000);
    let log = w.store.load_path(&path).unwrap();
    let call = log.tool_calls().next().unwrap();
    assert!(
        call.args.len() < 1100 && call.args.contains("[cut: 5005 bytes"),
        "{}",
        call.args
    );
    let data = w
        .store
        .load_data_for(&path, &log)
        .unwrap()
        .expect("a sidecar");
    let crucible_core::DataRecord::Call(c) = &data.records[0] else {
        panic!("not a call record")
    };
    assert_eq!(
        (c.phase, c.call, c.id.as_deref()),
        (0, 0, Some("toolu_01A1"))
    );
    assert_eq!(
        c.arguments.as_ref().unwrap()["command"]
            .as_str()
            .unwrap()
            .len(),
        5005
    );
}

#[test]
fn a_result_over_the_limit_says_in_the_markdown_that_it_is_whole_in_the_sidecar() {
    let w = world();
    w.record("session-start.json", 0);
    let path = session_path(&w.record("user-prompt-submit.json", 1));
    let mut v = input_json("post-tool-use.json", &w.transcript, None);
    v["tool_response"]["stdout"] = "line\n".repeat(1000).into();
    record_limited(&w, v, 1000);
    let log = w.store.load_path(&path).unwrap();
    let call = log.tool_calls().next().unwrap();
    let summary = call.summary.as_deref().unwrap_or_default();
    assert!(summary.contains("whole in the sidecar]"), "{summary}");
}

#[test]
fn clear_starts_a_new_session_and_resume_goes_on_in_the_one_it_continues() {
    let w = world();
    w.record("session-start.json", 0);
    let first = session_path(&w.record("user-prompt-submit.json", 0));
    w.record("session-end.json", 1);
    // `--resume`: a new id, a transcript repeating the first one's lines.
    let resumed = "5e5e5e5e-0000-4000-8000-000000000001";
    let t2 = w.transcript.with_file_name("t2.jsonl");
    std::fs::copy(fixtures().join("transcript.jsonl"), &t2).unwrap();
    let mut v = input_json("session-start.json", &t2, Some(resumed));
    v["source"] = "resume".into();
    let r = Capture::new(&w.store, CaptureOptions::default())
        .record(&serde_json::from_value(v).unwrap(), &at(2))
        .unwrap();
    assert_eq!(
        session_path(&r),
        first,
        "linked to the earlier session, not duplicated"
    );
    let log = w.store.load_path(&first).unwrap();
    assert_eq!(log.frontmatter.status, SessionStatus::Active, "reopened");
    // Its repeated history is not counted again at Stop.
    let v = input_json("stop.json", &t2, Some(resumed));
    Capture::new(&w.store, CaptureOptions::default())
        .record(&serde_json::from_value(v).unwrap(), &at(3))
        .unwrap();
    assert_eq!(
        w.store.load_path(&first).unwrap().frontmatter.tokens_used,
        None
    );
    // `/clear`: a new session.
    let mut v = input_json("session-start.json", &t2, Some(resumed));
    v["source"] = "clear".into();
    let r = Capture::new(&w.store, CaptureOptions::default())
        .record(&serde_json::from_value(v).unwrap(), &at(4))
        .unwrap();
    assert_eq!(r, Recorded::Nothing, "made at its first prompt");
    let v = input_json("user-prompt-submit.json", &t2, Some(resumed));
    let r = Capture::new(&w.store, CaptureOptions::default())
        .record(&serde_json::from_value(v).unwrap(), &at(5))
        .unwrap();
    assert_ne!(session_path(&r), first);
}

#[test]
fn an_unknown_event_is_recorded_nowhere_and_an_unanswered_call_is_failed_at_stop() {
    let w = world();
    let mut v = input_json("stop.json", &w.transcript, None);
    v["hook_event_name"] = "TeammateIdle".into();
    let r = Capture::new(&w.store, CaptureOptions::default())
        .record(&serde_json::from_value(v).unwrap(), &at(0))
        .unwrap();
    assert_eq!(r, Recorded::Nothing);
    assert!(!w.store.dir().exists(), "not even a state");
    w.record("session-start.json", 0);
    let path = session_path(&w.record("user-prompt-submit.json", 1));
    w.record("pre-tool-use.json", 2);
    assert_eq!(
        w.store.load_path(&path).unwrap().tool_calls().count(),
        0,
        "waits for its result"
    );
    w.record("stop.json", 3);
    let log = w.store.load_path(&path).unwrap();
    let call = log.tool_calls().next().expect("recorded at Stop");
    assert!(
        call.failed && call.args == "cargo test checkout",
        "{call:?}"
    );
}

#[test]
fn a_session_deleted_meanwhile_is_started_again_not_written_through() {
    let w = world();
    w.record("session-start.json", 0);
    // Another prompt: the new session is named otherwise than the one
    // deleted (whose journal stays beside it).
    let mut v = input_json("user-prompt-submit.json", &w.transcript, None);
    v["prompt"] = "A first question".into();
    let r = Capture::new(&w.store, CaptureOptions::default())
        .record(&serde_json::from_value(v).unwrap(), &at(0))
        .unwrap();
    let first = session_path(&r);
    std::fs::remove_file(&first).unwrap();
    let second = session_path(&w.record("user-prompt-submit.json", 1));
    assert!(second.is_file());
    let log = w.store.load_path(&second).unwrap();
    assert_eq!(log.phases().count(), 1);
}
