//! Our streaming TOON against toon-format, in both directions.

use crucible_core::{Counts, SessionStatus, Tokens, UsageLine};
use crucible_index::files::{self, Index};
use crucible_index::record::{FileStamp, Problem, SessionRecord};
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 ,:\"\\\\{}\\[\\]#\\-@.→é\t\n]{0,16}",
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("42".to_owned()),
        Just("-1.5".to_owned()),
        Just(String::new()),
        Just(" padded ".to_owned()),
        Just("- dash".to_owned()),
    ]
}

fn record() -> impl Strategy<Value = SessionRecord> {
    (
        (
            "([a-z0-9-]{1,5}/){0,2}[a-z0-9-]{1,5}\\.md",
            "[a-z0-9-]{1,12}",
            prop::sample::select(SessionStatus::ALL.to_vec()),
        ),
        (
            proptest::option::of(text()),
            proptest::option::of(text()),
            proptest::option::of(text()),
        ),
        (
            prop::collection::vec("[a-z]{1,5}@[0-9]", 0..3),
            proptest::option::of(any::<u64>()),
            any::<u64>(),
            any::<bool>(),
        ),
        (
            proptest::option::of(text()),
            prop::collection::vec(usage_line(), 0..3),
        ),
    )
        .prop_map(
            |(
                (path, id, status),
                (title, channel, model),
                (participants, tokens, n, live),
                (project, usage),
            )| {
                SessionRecord {
                    path,
                    id,
                    status,
                    started: "2025-12-05T14:32:15Z".into(),
                    ended: None,
                    duration_ms: tokens.map(|t| t % 1_000_000),
                    title,
                    channel,
                    model,
                    participants,
                    agents: Vec::new(),
                    tokens_used: tokens,
                    phases: n % 50,
                    counts: Counts {
                        tool_calls: n % 7,
                        ..Counts::default()
                    },
                    resume_point: None,
                    parent: None,
                    project,
                    usage,
                    live,
                    stamp: FileStamp {
                        ino: n,
                        mtime_ns: n / 3,
                        size: n % 99,
                        ctime_ns: n / 5,
                    },
                }
            },
        )
}

fn usage_line() -> impl Strategy<Value = UsageLine> {
    (
        proptest::option::of(text()),
        0i64..500_000,
        any::<u32>(),
        proptest::option::of(0u32..1000),
    )
        .prop_map(|(model, hour, n, cost)| UsageLine {
            agent: Some("lead@1".into()),
            model,
            hour: hour * 3_600,
            first_ms: hour * 3_600_000 + 5,
            last_ms: hour * 3_600_000 + 900,
            requests: 2,
            tokens: Tokens {
                input: n.into(),
                output: 7,
                ..Tokens::default()
            },
            recorded: cost.is_some(),
            recorded_cost_usd: cost.map_or(0.0, |c| f64::from(c) / 8.0),
            ..UsageLine::default()
        })
}

fn index() -> impl Strategy<Value = Index> {
    (
        prop::collection::vec(record(), 0..6),
        prop::collection::vec(("[a-z]{1,8}\\.md", text()), 0..2),
    )
        .prop_map(|(mut sessions, mut problems)| {
            sessions.sort_by(|a, b| a.path.cmp(&b.path));
            sessions.dedup_by(|a, b| a.path == b.path);
            // One row per path in the whole index (a reader refuses two):
            // problem files live apart from the sessions, once each.
            problems.sort();
            problems.dedup_by(|a, b| a.0 == b.0);
            Index {
                sessions,
                problems: problems
                    .into_iter()
                    .map(|(path, message)| Problem {
                        path: format!("broken/{path}"),
                        line: 3,
                        message,
                        stamp: FileStamp::default(),
                    })
                    .collect(),
                notes: vec![crucible_index::record::Note {
                    path: "notes/readme.md".into(),
                    stamp: FileStamp {
                        ino: 3,
                        mtime_ns: 4,
                        size: 5,
                        ctime_ns: 6,
                    },
                }],
                dirs: vec![files::DirStamp {
                    path: String::new(),
                    changed_ns: 7,
                }],
            }
        })
}

/// What a record looks like as toon-format sees the row: lists are one
/// space-separated string, absent values null, numbers numbers. The base
/// file's document, then the usage file's.
fn as_json(index: &Index) -> (serde_json::Value, serde_json::Value) {
    let list = |v: &[String]| {
        if v.is_empty() {
            serde_json::Value::Null
        } else {
            v.join(" ").into()
        }
    };
    let sessions: Vec<serde_json::Value> = index
        .sessions
        .iter()
        .map(|s| {
            serde_json::json!({
                "path": s.path, "id": s.id, "status": s.status.as_str(), "started": s.started, "ended": s.ended,
                "duration_ms": s.duration_ms, "title": s.title, "channel": s.channel, "model": s.model,
                "participants": list(&s.participants), "agents": list(&s.agents), "tokens_used": s.tokens_used,
                "phases": s.phases, "tool_calls": s.counts.tool_calls, "failed_tool_calls": s.counts.failed_tool_calls,
                "decisions": s.counts.decisions, "errors": s.counts.errors, "user_interventions": s.counts.user_interventions,
                "subagents": s.counts.subagents, "resume_point": s.resume_point, "parent": s.parent, "live": u64::from(s.live),
                "project": s.project,
                "ino": s.stamp.ino, "mtime_ns": s.stamp.mtime_ns, "size": s.stamp.size, "ctime_ns": s.stamp.ctime_ns,
            })
        })
        .collect();
    let problems: Vec<serde_json::Value> = index
        .problems
        .iter()
        .map(|p| serde_json::json!({"path": p.path, "line": p.line, "message": p.message, "ino": p.stamp.ino, "mtime_ns": p.stamp.mtime_ns, "size": p.stamp.size, "ctime_ns": p.stamp.ctime_ns}))
        .collect();
    let notes: Vec<serde_json::Value> = index
        .notes
        .iter()
        .map(|n| serde_json::json!({"path": n.path, "ino": n.stamp.ino, "mtime_ns": n.stamp.mtime_ns, "size": n.stamp.size, "ctime_ns": n.stamp.ctime_ns}))
        .collect();
    let dirs: Vec<serde_json::Value> = index
        .dirs
        .iter()
        .map(|d| serde_json::json!({"path": d.path, "changed_ns": d.changed_ns}))
        .collect();
    let usage: Vec<serde_json::Value> = index
        .sessions
        .iter()
        .map(|s| serde_json::json!({"path": s.path, "usage": Some(crucible_index::usage_cell::encode(&s.usage)).filter(|u| !u.is_empty())}))
        .collect();
    (
        serde_json::json!({"format": files::FORMAT, "version": files::VERSION, "generation": 0, "sessions": sessions, "problems": problems, "notes": notes, "dirs": dirs}),
        serde_json::json!({"version": files::VERSION, "generation": 0, "usage": usage}),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// toon-format decodes what we write to the same values.
    #[test]
    fn toon_format_reads_our_index(index in index()) {
        let (base, usage) = files::base_text(&index);
        let (want_base, want_usage) = as_json(&index);
        for (text, want) in [(base, want_base), (usage, want_usage)] {
            let theirs: serde_json::Value = toon_format::decode_default(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(theirs, want, "{}", text);
        }
    }

    /// We read what toon-format writes for the same data.
    #[test]
    fn we_read_what_toon_format_writes(index in index()) {
        let (base, usage) = as_json(&index);
        let text = toon_format::encode_default(&base).unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(files::BASE), &text).unwrap();
        let usage = toon_format::encode_default(&usage).unwrap();
        std::fs::write(dir.path().join(files::USAGE), &usage).unwrap();
        let ours = files::load(dir.path()).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(ours.sessions, index.sessions, "{}", text);
        prop_assert_eq!(ours.problems, index.problems);
        prop_assert_eq!(ours.dirs, index.dirs);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 30, ..ProptestConfig::default() })]

    /// toon-format reads the rollup file too: its rows, and where each
    /// usage row is.
    #[test]
    fn toon_format_reads_our_rollup_file(index in index()) {
        let dir = tempfile::tempdir().unwrap();
        files::write_all(dir.path(), &index, 0, &[]).unwrap();
        let text = std::fs::read_to_string(dir.path().join(files::ROLLUP)).unwrap();
        let theirs: serde_json::Value = toon_format::decode_default(&text)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let rollup = crucible_index::rollup::Rollup::of(index.sessions.iter().map(|s| s.usage.as_slice()));
        // An empty table is written `name[0]:`, read as no rows.
        let rows = |key: &str| theirs[key].as_array().map_or(0, Vec::len);
        prop_assert_eq!(rows("rollup"), rollup.rows.len(), "{}", text);
        prop_assert_eq!(rows("usage_rows"), index.sessions.len(), "{}", text);
    }
}
