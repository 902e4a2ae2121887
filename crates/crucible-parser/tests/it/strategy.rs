//! Generators of session logs inside the format's domain: every log these
//! produce must survive `parse(write(log)) == log`.

use crucible_core::yaml::{Mapping, Tagged, Value};
use crucible_core::{
    AgentRef, Block, Callout, Frontmatter, Phase, PhaseId, PhaseMeta, PlainSection, Section,
    SessionId, SessionLog, SessionStatus, SubagentEntry, SubagentMode, SubagentRef, Task,
    TaskStatus, Timestamp, Tokens, ToolCall, UsageRecord,
};
use proptest::prelude::*;
use proptest::sample::select;

/// Characters that have broken parsers before: YAML and markdown syntax,
/// arrows, the failure mark, non-ASCII letters and an emoji.
const AWKWARD: &[char] = &[
    ':', '"', '\'', '`', '→', '✗', '-', '>', '#', '@', '[', ']', '!', '*', '_', '\\', '|', '{',
    '}', '%', '&', 'é', '日', '🎉', ' ', ' ', ',', '.', '=', '<', '~', '$',
];

fn ch() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::char::range('a', 'z'),
        1 => proptest::char::range('A', 'Z'),
        1 => proptest::char::range('0', '9'),
        3 => select(AWKWARD),
    ]
}

/// Any single line of awkward text (may be empty, may have edge spaces).
pub fn line(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(ch(), 0..max).prop_map(|v| v.into_iter().collect())
}

/// A line with no leading or trailing white space, not empty.
pub fn trimmed(max: usize) -> impl Strategy<Value = String> {
    line(max)
        .prop_map(|s| s.trim().to_owned())
        .prop_filter("non-empty", |s| !s.is_empty())
}

fn word() -> impl Strategy<Value = String> {
    "[a-zA-Z][a-zA-Z0-9]{0,8}"
}

/// Words, then awkward text, starting with a letter so that it is a
/// paragraph and nothing else.
fn prose_line() -> impl Strategy<Value = String> {
    (word(), line(40)).prop_map(|(w, rest)| format!("{w} {}", rest.trim()).trim().to_owned())
}

fn id() -> impl Strategy<Value = SessionId> {
    "[a-z0-9][a-z0-9-]{0,24}".prop_map(|s| SessionId::new(&s).unwrap())
}

fn timestamp() -> impl Strategy<Value = Timestamp> {
    prop_oneof![
        (0i64..4_102_444_800).prop_map(|s| Timestamp::from_unix_ms(s * 1000)),
        Just("2025-12-03 10:12:44".parse().unwrap()),
        Just("2025-12-05T15:32:15.250+01:00".parse().unwrap()),
    ]
}

fn agent() -> impl Strategy<Value = AgentRef> {
    (
        "[a-z][a-z0-9_-]{0,8}",
        proptest::option::of("[0-9]{1,2}(\\.[0-9]{1,2}){0,2}"),
    )
        .prop_map(|(n, v)| AgentRef::new(n, v))
}

fn channel() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_-]{0,8}"
}

/// A value of an unknown frontmatter key, as far as gray_matter (the
/// oracle in gray_matter_oracle.rs) reads YAML too: no tags, finite floats.
fn extra_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        line(20).prop_map(Value::from),
        // Text a YAML reader would take for a number, a boolean or null.
        prop_oneof![
            Just("1.0"),
            Just("0x1F"),
            Just("1e3"),
            Just(".inf"),
            Just("true"),
            Just("null"),
            Just("007"),
        ]
        .prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        proptest::num::f64::NORMAL.prop_map(Value::from),
        Just(Value::from(1.0)),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            proptest::collection::vec(("[a-z]{1,4}", inner), 0..3)
                .prop_map(|kv| Value::from(kv.into_iter().collect::<Mapping>())),
        ]
    })
}

/// Any value YAML holds under a key: [`extra_value`] and also tags (one
/// per value: YAML has no tag of a tag), infinities and NaN.
pub fn any_extra_value() -> impl Strategy<Value = Value> {
    let untagged = prop_oneof![
        4 => extra_value(),
        1 => prop_oneof![Just(f64::INFINITY), Just(f64::NEG_INFINITY), Just(f64::NAN)]
            .prop_map(Value::from),
    ];
    prop_oneof![
        untagged.clone(),
        ("![a-z]{1,5}", untagged)
            .prop_map(|(tag, value)| Value::Tagged(Box::new(Tagged { tag, value }))),
    ]
}

fn extras() -> impl Strategy<Value = Mapping> {
    proptest::collection::vec(("x_[a-z]{1,6}", extra_value()), 0..3)
        .prop_map(|kv| kv.into_iter().collect())
}

fn frontmatter() -> impl Strategy<Value = Frontmatter> {
    (
        (id(), timestamp(), select(SessionStatus::ALL.to_vec())),
        proptest::option::of(timestamp()),
        proptest::option::of(line(30)),
        proptest::option::of(channel()),
        proptest::collection::vec(agent(), 0..3),
        proptest::option::of(trimmed(20)),
        proptest::option::of(prop_oneof![0u64..=MAX_SUM, Just(MAX_SUM)]),
        proptest::option::of((0u32..100_000).prop_map(|c| f64::from(c) / 1000.0)),
        proptest::collection::vec(
            (
                id(),
                proptest::option::of(agent()),
                proptest::option::of(trimmed(12)),
                proptest::option::of(0u64..1_000_000),
                extras(),
            ),
            0..3,
        ),
        (extras(), proptest::option::of(id())),
    )
        .prop_map(
            |(
                (session_id, started, status),
                ended,
                title,
                channel,
                participants,
                model,
                tokens_used,
                cost_usd,
                subs,
                (extra, parent),
            )| Frontmatter {
                session_id,
                started,
                status,
                ended,
                title,
                channel,
                participants,
                model,
                tokens_used,
                cost_usd,
                subagents: subs
                    .into_iter()
                    .map(|(session, agent, model, tokens, extra)| SubagentEntry {
                        session,
                        agent,
                        model,
                        tokens,
                        extra,
                    })
                    .collect(),
                resume_point: None,
                parent,
                extra,
            },
        )
}

fn tool_call() -> impl Strategy<Value = ToolCall> {
    (
        "[a-zA-Z_][a-zA-Z0-9_.:-]{0,10}",
        line(30),
        proptest::option::of(trimmed(40).prop_filter("no leading mark", |s| !s.starts_with('✗'))),
        any::<bool>(),
    )
        .prop_map(|(tool, args, summary, failed)| ToolCall {
            tool,
            args,
            summary,
            failed,
        })
}

fn subagent() -> impl Strategy<Value = SubagentRef> {
    (
        proptest::option::of(agent()),
        proptest::option::of("[a-z0-9.-]{1,20}"),
        select(vec![
            SubagentMode::Inline,
            SubagentMode::Link,
            SubagentMode::Embed,
        ]),
        id(),
        proptest::collection::vec(
            prose_line().prop_filter("not a mode line", |l| !l.to_lowercase().starts_with("mode")),
            0..2,
        ),
        proptest::collection::vec(line(30).prop_map(|l| format!("  {l}")), 0..3),
        proptest::option::of(prose_line()),
    )
        .prop_map(
            |(agent, model, mode, target, description, content, summary)| SubagentRef {
                agent,
                model,
                mode,
                target: (mode != SubagentMode::Inline).then_some(target),
                description,
                content,
                summary,
            },
        )
}

fn callout() -> impl Strategy<Value = Callout> {
    prop_oneof![
        (
            select(vec![
                "decision",
                "error",
                "user",
                "note",
                "decision_needed",
                "expect"
            ]),
            proptest::option::of(select(vec!['+', '-'])),
            line(30).prop_map(|t| t.trim().to_owned()),
            proptest::collection::vec(line(40), 0..4),
        )
            .prop_map(|(kind, fold, title, body)| Callout {
                kind: kind.into(),
                fold,
                title,
                body,
            }),
        subagent().prop_map(|s| Callout::from_subagent(&s)),
        (trimmed(40), proptest::option::of(trimmed(40)))
            .prop_map(|(q, i)| Callout::user(&q, i.as_deref())),
        (trimmed(40), proptest::option::of(trimmed(40)))
            .prop_map(|(d, r)| Callout::error(&d, r.as_deref())),
    ]
}

fn task() -> impl Strategy<Value = Task> {
    (
        "[0-9a-z]{1,4}",
        line(30),
        select(vec![
            TaskStatus::Pending,
            TaskStatus::InProgress,
            TaskStatus::Completed,
        ]),
        proptest::option::of(select(vec!["high", "medium", "low"])),
        proptest::option::of(line(10)),
    )
        .prop_map(|(id, content, status, priority, owner)| Task {
            id,
            content,
            status,
            priority: priority.map(str::to_owned),
            extra: owner
                .map(|o| {
                    [("owner".to_owned(), serde_json::Value::from(o))]
                        .into_iter()
                        .collect()
                })
                .unwrap_or_default(),
        })
}

/// A line of a prompt as a user types it: backtick runs (the fence must
/// outgrow them), indentation, markdown that would mean something outside
/// the fence, blank lines.
fn prompt_line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => line(30),
        1 => Just(String::new()),
        1 => "(`{1,5}|    |## |> \\[!user\\] |- )[a-z `]{0,20}",
    ]
}

fn block() -> impl Strategy<Value = Block> {
    prop_oneof![
        3 => proptest::collection::vec(prose_line(), 1..4).prop_map(|l| Block::prose(l.join("\n"))),
        1 => Just(Block::Rule),
        3 => proptest::collection::vec(tool_call(), 1..5).prop_map(|calls| Block::ToolCalls { calls }),
        3 => callout().prop_map(Block::Callout),
        1 => proptest::collection::vec(task(), 0..3).prop_map(|tasks| Block::Tasks { tasks }),
        1 => proptest::collection::vec(line(30), 0..4)
            .prop_map(|l| Block::SystemPrompt { text: l.join("\n") }),
        1 => proptest::collection::vec(prompt_line(), 0..4)
            .prop_map(|l| Block::Prompt { text: l.join("\n") }),
    ]
}

/// Adjacent prose blocks read back as one: join them as the parser would.
fn merge_prose(blocks: Vec<Block>) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    for b in blocks {
        if let (Some(Block::Prose { text: prev }), Block::Prose { text }) = (out.last_mut(), &b) {
            prev.push_str("\n\n");
            prev.push_str(text);
            continue;
        }
        out.push(b);
    }
    out
}

fn blocks() -> impl Strategy<Value = Vec<Block>> {
    proptest::collection::vec(block(), 0..6).prop_map(merge_prose)
}

fn heading_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prose_line().prop_map(|l| l.replace('#', "").trim().to_owned()),
        1..2,
    )
    .prop_map(|w| w.join(" "))
    .prop_filter("no trailing annotation", |t| {
        let last = t.split_whitespace().last().unwrap_or("");
        !last.starts_with('@') && !last.starts_with('#')
    })
}

fn meta() -> impl Strategy<Value = PhaseMeta> {
    (
        proptest::option::of(timestamp()),
        proptest::option::of(prop_oneof![0u64..=MAX_SUM, Just(MAX_SUM)]),
        proptest::option::of(0u64..100_000),
        proptest::option::of(line(12)),
        proptest::option::of((0u32..10_000).prop_map(|c| f64::from(c) / 10_000.0)),
    )
        .prop_map(
            |(started, duration_ms, tokens, model, cost_usd)| PhaseMeta {
                started,
                duration_ms,
                tokens,
                model,
                cost_usd,
                extra: Vec::new(),
            },
        )
}

const MAX_TOKENS: u64 = crucible_core::MAX_TOKENS;
/// The most a sum (`tokens=`, `tokens_used`) may hold.
const MAX_SUM: u64 = crucible_core::MAX_SUM_TOKENS;

fn tokens() -> impl Strategy<Value = Tokens> {
    (
        // Up to the most a count may hold (a larger one is refused).
        prop_oneof![0u64..=MAX_TOKENS, Just(MAX_TOKENS)],
        0u64..1_000_000,
        prop_oneof![Just(0u64), 0u64..500_000],
        prop_oneof![Just(0u64), 0u64..=MAX_TOKENS],
        prop_oneof![Just(0u64), 0u64..10_000],
        prop_oneof![Just(0u64), 0u64..400_000],
    )
        .prop_map(
            |(input, output, cache_creation, cache_read, reasoning, one_hour)| Tokens {
                input,
                output,
                cache_creation: cache_creation.max(one_hour),
                cache_read,
                reasoning,
                cache_creation_1h: one_hour,
            },
        )
}

/// Model requests as importers and `cru session log tokens` record them:
/// ids and models with spaces, quotes and `-->` included.
fn usage_records() -> impl Strategy<Value = Vec<UsageRecord>> {
    let record = (
        proptest::option::of(timestamp()),
        proptest::option::of(line(12)),
        tokens(),
        proptest::option::of((0u32..100_000).prop_map(|c| f64::from(c) / 100_000.0)),
        proptest::option::of(prop_oneof![
            line(20),
            Just("msg_01 -->\"x\":req_1".to_owned())
        ]),
        proptest::collection::vec(("[a-z_]{1,8}", line(6)), 0..2),
    )
        .prop_map(|(at, model, tokens, cost_usd, id, extra)| UsageRecord {
            at,
            model,
            tokens,
            cost_usd,
            id,
            extra: extra
                .into_iter()
                .filter(|(k, _)| {
                    ![
                        "at",
                        "model",
                        "input",
                        "output",
                        "cache_creation",
                        "cache_creation_1h",
                        "cache_read",
                        "reasoning",
                        "cost_usd",
                        "id",
                    ]
                    .contains(&k.as_str())
                })
                .collect(),
        });
    proptest::collection::vec(record, 0..4)
}

fn section() -> impl Strategy<Value = Section> {
    prop_oneof![
        4 => (
            2u8..5,
            heading_text(),
            proptest::option::of(agent()),
            proptest::option::of(channel()),
            meta(),
            blocks(),
            proptest::option::of(heading_text()),
            usage_records(),
        )
            .prop_map(|(level, name, agent, channel, meta, mut blocks, sub, usage)| {
                let channel = if agent.is_none() && channel.is_none() { Some("dev".into()) } else { channel };
                if let (Some(text), true) = (sub, level < 6) {
                    blocks.push(Block::Heading { level: level + 1, text });
                }
                Section::Phase(Phase { level, name, agent, channel, meta, blocks, usage })
            }),
        1 => (heading_text(), blocks())
            .prop_map(|(title, blocks)| Section::Plain(PlainSection { level: 2, title, blocks })),
    ]
}

/// A whole session log.
pub fn session_log() -> impl Strategy<Value = SessionLog> {
    (
        frontmatter(),
        proptest::option::of(heading_text()),
        blocks(),
        proptest::collection::vec(section(), 0..6),
        any::<proptest::sample::Index>(),
        any::<bool>(),
    )
        .prop_map(
            |(mut frontmatter, title, mut preamble, sections, point, paused)| {
                if let Some(t) = title {
                    preamble.insert(0, Block::Heading { level: 1, text: t });
                }
                let preamble = merge_prose(preamble);
                let phases = sections
                    .iter()
                    .filter(|s| matches!(s, Section::Phase(_)))
                    .count();
                if paused && phases > 0 {
                    frontmatter.resume_point = Some(PhaseId::from_index(point.index(phases)));
                }
                SessionLog {
                    frontmatter,
                    preamble,
                    sections,
                }
            },
        )
}
