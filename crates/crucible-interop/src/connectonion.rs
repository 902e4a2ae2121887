//! ConnectOnion session YAML (seeds 000 and 001): `.co/sessions/<agent>.yaml`,
//! one file per agent, rewritten whole after each turn.
//!
//! - `name` → the participant (and the source id); `created` (or the older
//!   `timestamp`) → started; `total_tokens` (else the sum of the turns'
//!   `tokens`) → tokens_used; `total_cost` →
//!   cost_usd; `system_prompt` → the `system-prompt` block;
//! - each of `turns[]` → a phase named from its `input`, with the turn's
//!   `model`, `duration_ms`, `tokens`, `cost` and the time it ended
//!   (`timestamp`, less the duration) as phase metadata; the turn's
//!   messages (`messages.<N>` in seed 000, the turn's `messages` JSON string
//!   in seed 001) give its `[!user]` callout, replies and tool calls; a turn
//!   without messages gives the input as `[!user]`, `tools_called`
//!   (`run(command='ls -la')` or a bare name) as tool calls and `result` as
//!   the reply;
//! - eval fields become the callouts `cru session eval` reads, right after
//!   the user's words: `expected` (or seed 001's `eval.expect_result`) and
//!   `eval.expect_tools` an `[!expect]`, `passed` (or an `evaluation` of
//!   pass/fail) an `[!eval]`; an `evaluation` that is notes stays in the
//!   phase's metadata comment;
//! - the session is `paused` at its last turn: ConnectOnion resumes it by
//!   adding turns, and so can `cru session resume`;
//! - an eval summary (`.co/evals/<slug>.yaml`: `runs`, turns with `output`,
//!   `meta` as a JSON string, `history` of earlier runs) reads the same way,
//!   its messages from the latest run's `<slug>/run_<N>.yaml` (with the
//!   system prompt, `cwd` and the run's tokens); `meta` gives each phase its
//!   tokens, cost, duration and time, `history` the earlier verdicts.

use std::path::Path;

use serde_json::Value;
use serde_yaml::Value as Yaml;

use crucible_core::{
    AgentRef, Block, Callout, CalloutKind, Frontmatter, Phase, SessionId, SessionLog, Timestamp,
    ToolCall, one_line,
};

use crucible_eval::{Expectation, ToolPattern};

use crate::messages::{assistant_blocks, push_blocks};
use crate::transcript::{finish_paused, phase_name, text_of, title_from};
use crate::{ImportError, ImportWarning, Imported};

/// True when the text is YAML with a `turns` list and a `name` or
/// `messages`.
pub(crate) fn looks_like(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let has = |key: &str| {
        text.lines()
            .any(|l| l.starts_with(key) && l[key.len()..].starts_with(':'))
    };
    has("turns") && (has("name") || has("messages"))
}

/// `'2025-12-03 10:12:44'` (local time, no zone; read as UTC) or ISO-8601.
fn time_of(v: Option<&Yaml>) -> Option<Timestamp> {
    let s = v?.as_str()?.trim();
    // Written as ISO-8601 in the session, whatever the source's spelling.
    if s.len() == 19 && s.as_bytes().get(10) == Some(&b' ') {
        return format!("{}T{}Z", &s[..10], &s[11..]).parse().ok();
    }
    s.parse().ok()
}

fn json_of(y: &Yaml) -> Value {
    serde_json::to_value(y).unwrap_or(Value::Null)
}

pub(crate) fn import(path: &Path) -> Result<Imported, ImportError> {
    let bytes = crate::read_source(path)?;
    let doc: Yaml = serde_yaml::from_slice(&bytes).map_err(|e| ImportError::Invalid {
        path: path.to_owned(),
        line: e.location().map_or(1, |l| l.line()),
        message: format!("not YAML: {e}"),
    })?;
    let mut warnings = Vec::new();
    let name = doc.get("name").and_then(Yaml::as_str).unwrap_or("agent");
    // A session file is named after its agent; an eval summary after its
    // first input, which is no agent's name.
    let is_eval = doc.get("runs").is_some();
    let agent: AgentRef = (if is_eval { "agent" } else { name })
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '.' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect::<String>()
        .parse()
        .unwrap_or_else(|_| "agent".parse().expect("valid"));
    let started = time_of(doc.get("created"))
        .or_else(|| time_of(doc.get("timestamp")))
        .unwrap_or_else(|| crate::transcript::mtime(path));
    let mut fm = Frontmatter::new(SessionId::new("imported").expect("valid"), started);
    fm.participants.push(agent.clone());
    // ConnectOnion writes 0 for a session that counted nothing.
    fm.tokens_used = doc
        .get("total_tokens")
        .and_then(Yaml::as_u64)
        .filter(|&t| t > 0);
    fm.cost_usd = doc
        .get("total_cost")
        .and_then(Yaml::as_f64)
        .filter(|&c| c > 0.0);
    fm.model = doc.get("model").and_then(Yaml::as_str).map(str::to_owned);
    // An eval summary (`.co/evals/<slug>.yaml`): the latest run's file
    // holds the messages, the system prompt and the run's totals.
    let run = latest_run(path, &doc, &mut warnings);
    let mut hashed = bytes;
    if let Some(r) = &run {
        hashed.extend(&r.bytes);
        if fm.tokens_used.is_none() {
            fm.tokens_used = r.doc.get("tokens").and_then(Yaml::as_u64);
        }
        if fm.cost_usd.is_none() {
            fm.cost_usd = r
                .doc
                .get("cost")
                .and_then(Yaml::as_f64)
                .filter(|&c| c > 0.0);
        }
        if let Some(cwd) = r.doc.get("cwd").and_then(Yaml::as_str) {
            fm.extra.insert("cwd".into(), cwd.into());
        }
    }
    if let Some(runs) = doc.get("runs").and_then(Yaml::as_u64) {
        fm.extra.insert("runs".into(), runs.into());
    }
    let mut log = SessionLog::new(fm);
    let system_prompt = doc
        .get("system_prompt")
        .or_else(|| run.as_ref().and_then(|r| r.doc.get("system_prompt")));
    if let Some(sp) = system_prompt.and_then(Yaml::as_str)
        && !sp.trim().is_empty()
    {
        log.preamble.push(Block::SystemPrompt {
            text: sp.trim_end().to_owned(),
        });
    }
    let turns = doc
        .get("turns")
        .and_then(Yaml::as_sequence)
        .cloned()
        .unwrap_or_default();
    let mut phases: Vec<Phase> = Vec::new();
    let by_turn = doc.get("messages").and_then(Yaml::as_mapping);
    for (k, t) in turns.iter().enumerate() {
        let number = t.get("turn").and_then(Yaml::as_u64).unwrap_or(k as u64 + 1);
        let input = t
            .get("input")
            .and_then(Yaml::as_str)
            .unwrap_or("")
            .to_owned();
        let mut p = Phase::new(
            phase_name(&input, k + 1),
            Some(agent.clone()),
            Some("main".into()),
        );
        p.meta.model = t.get("model").and_then(Yaml::as_str).map(str::to_owned);
        p.meta.duration_ms = t.get("duration_ms").and_then(Yaml::as_u64);
        p.meta.tokens = t.get("tokens").and_then(Yaml::as_u64);
        p.meta.cost_usd = t
            .get("cost")
            .and_then(Yaml::as_f64)
            .filter(|c| c.is_finite());
        // An eval turn's numbers are in `meta`, a JSON string.
        let meta: Value = t
            .get("meta")
            .and_then(Yaml::as_str)
            .and_then(|m| serde_json::from_str(m).ok())
            .unwrap_or(Value::Null);
        if p.meta.tokens.is_none() {
            p.meta.tokens = meta.get("tokens").and_then(Value::as_u64);
        }
        if p.meta.duration_ms.is_none() {
            p.meta.duration_ms = meta.get("duration_ms").and_then(Value::as_u64);
        }
        if p.meta.cost_usd.is_none() {
            p.meta.cost_usd = meta
                .get("cost")
                .and_then(Value::as_f64)
                .filter(|c| c.is_finite() && *c > 0.0);
        }
        let ended = time_of(t.get("timestamp")).or_else(|| {
            let ts = meta.get("ts").and_then(Value::as_str)?;
            time_of(Some(&Yaml::String(ts.to_owned())))
        });
        if let Some(end) = &ended {
            let ms = i64::try_from(p.meta.duration_ms.unwrap_or(0)).unwrap_or(0);
            p.meta.started = Some(Timestamp::from_unix_ms(end.unix_ms() - ms));
        }
        let field = |key: &str| t.get(key).filter(|v| !is_blank(v));
        let verdict = verdict_of(field("passed"), field("evaluation"));
        // An evaluation that is notes, not a verdict, stays on the phase.
        if let Some(v) = field("evaluation").filter(|_| verdict.is_none()) {
            p.meta.extra.push(("evaluation".to_owned(), scalar(v)));
        }
        // Earlier runs of an eval turn: their verdicts, oldest first.
        if let Some(history) = t.get("history").and_then(Yaml::as_sequence) {
            let runs: Vec<String> = history
                .iter()
                .map(|h| {
                    let n = h.get("run").map(scalar).unwrap_or_default();
                    let verdict = h
                        .get("evaluation")
                        .filter(|v| !is_blank(v))
                        .map_or_else(|| "not evaluated".to_owned(), scalar);
                    format!("run {n}: {verdict}")
                })
                .collect();
            if !runs.is_empty() {
                p.meta.extra.push(("history".to_owned(), runs.join("; ")));
            }
        }
        let eval = t.get("eval");
        let expect_tools: Vec<String> = match eval.and_then(|e| e.get("expect_tools")) {
            Some(Yaml::Sequence(items)) => items.iter().map(scalar).collect(),
            Some(v) if !is_blank(v) => scalar(v).split(',').map(|s| s.trim().to_owned()).collect(),
            _ => Vec::new(),
        };
        let expect_result = eval
            .and_then(|e| e.get("expect_result"))
            .or_else(|| field("expected"))
            .filter(|v| !is_blank(v))
            .map(scalar);
        // The turn's messages: keyed by turn (seed 000) or a JSON string (seed 001).
        let messages: Option<Vec<Value>> = match t.get("messages") {
            Some(Yaml::String(s)) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Array(a)) => Some(a),
                _ => {
                    warnings.push(ImportWarning {
                        path: path.to_owned(),
                        line: None,
                        message: format!("turn {number}: `messages` is not a JSON array; the turn summary is used"),
                    });
                    None
                }
            },
            _ => by_turn
                .and_then(|m| {
                    m.get(Yaml::Number(number.into()))
                        .or_else(|| m.get(Yaml::String(number.to_string())))
                })
                .and_then(Yaml::as_sequence)
                .map(|s| s.iter().map(json_of).collect())
                .or_else(|| {
                    run.as_ref()
                        .filter(|r| r.turns.len() == turns.len())
                        .map(|r| r.turns[k].clone())
                }),
        };
        match messages {
            Some(msgs) if !msgs.is_empty() => {
                for (i, m) in msgs.iter().enumerate() {
                    match m.get("role").and_then(Value::as_str) {
                        Some("user") => {
                            let words = m.get("content").map(text_of).unwrap_or_default();
                            if !words.trim().is_empty() {
                                p.blocks
                                    .push(Block::Callout(Callout::user(words.trim(), None)));
                            }
                        }
                        Some("assistant") => {
                            push_blocks(&mut p.blocks, assistant_blocks(&msgs, i, &agent))
                        }
                        _ => {}
                    }
                }
            }
            _ => summary_blocks(t, &input, &agent, &mut p),
        }
        // What the turn was expected to do, and its recorded verdict, as the
        // callouts `cru session eval` reads: right after the user's words.
        let at = p
            .blocks
            .iter()
            .position(|b| matches!(b, Block::Callout(c) if c.kind() == CalloutKind::User))
            .map_or(0, |i| i + 1);
        let mut notes = Vec::new();
        if !expect_tools.is_empty() || expect_result.is_some() {
            let expect = Expectation {
                tools: expect_tools
                    .into_iter()
                    .map(|name| ToolPattern { name, args: None })
                    .collect(),
                result: expect_result,
                ..Expectation::default()
            };
            notes.push(expect.to_callout());
        }
        if let Some(passed) = verdict {
            notes.push(eval_callout(passed, ended.as_ref()));
        }
        for (i, c) in notes.into_iter().enumerate() {
            p.blocks.insert(at + i, Block::Callout(c));
        }
        phases.push(p);
    }
    let title = turns
        .first()
        .and_then(|t| t.get("input"))
        .and_then(Yaml::as_str)
        .and_then(title_from)
        .unwrap_or_else(|| format!("ConnectOnion session {name}"));
    // Seed 001's files carry no total: the turns' tokens add up to it (a
    // total of 0 is ConnectOnion's "none counted", and stays none).
    if doc.get("total_tokens").is_none() && log.frontmatter.tokens_used.is_none() {
        let turn_tokens: Vec<u64> = phases.iter().filter_map(|p| p.meta.tokens).collect();
        if !turn_tokens.is_empty() {
            log.frontmatter.tokens_used = Some(turn_tokens.iter().sum());
        }
    }
    finish_paused(&mut log, title, phases);
    Ok(crate::imported(
        crate::Format::ConnectOnion,
        path,
        Some(name.to_owned()),
        &hashed,
        log,
        warnings,
    ))
}

/// An eval's latest run, from `<slug>/run_<N>.yaml` beside the summary.
struct Run {
    doc: Yaml,
    bytes: Vec<u8>,
    /// Its messages split at each user message: one group per turn.
    turns: Vec<Vec<Value>>,
}

/// The run file of an eval summary's latest run (`runs: N`), when there is
/// one; a damaged one is a warning, and the turn summaries are used.
fn latest_run(path: &Path, doc: &Yaml, warnings: &mut Vec<ImportWarning>) -> Option<Run> {
    let n = doc.get("runs").and_then(Yaml::as_u64)?;
    let run_path = path.with_extension("").join(format!("run_{n}.yaml"));
    let bytes = std::fs::read(&run_path).ok()?;
    let mut warn = |line: Option<usize>, message: String| {
        warnings.push(ImportWarning {
            path: run_path.clone(),
            line,
            message,
        });
    };
    let run_doc: Yaml = match serde_yaml::from_slice(&bytes) {
        Ok(d) => d,
        Err(e) => {
            warn(
                e.location().map(|l| l.line()),
                format!("not YAML ({e}); the turn summaries are used"),
            );
            return None;
        }
    };
    let messages: Vec<Value> = match run_doc.get("messages") {
        Some(Yaml::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(a)) => a,
            _ => {
                warn(
                    None,
                    "`messages` is not a JSON array; the turn summaries are used".into(),
                );
                Vec::new()
            }
        },
        Some(Yaml::Sequence(items)) => items.iter().map(json_of).collect(),
        _ => Vec::new(),
    };
    let mut turns: Vec<Vec<Value>> = Vec::new();
    for m in messages {
        match m.get("role").and_then(Value::as_str) {
            Some("user") => turns.push(vec![m]),
            Some("system" | "developer") => {}
            _ => {
                if let Some(t) = turns.last_mut() {
                    t.push(m);
                }
            }
        }
    }
    let want = doc
        .get("turns")
        .and_then(Yaml::as_sequence)
        .map_or(0, Vec::len);
    if !turns.is_empty() && turns.len() != want {
        warn(
            None,
            format!(
                "{} user messages for {want} turns; the turn summaries are used",
                turns.len()
            ),
        );
    }
    Some(Run {
        doc: run_doc,
        bytes,
        turns,
    })
}

/// `passed: true` or `evaluation: pass` as a verdict; notes are none.
fn verdict_of(passed: Option<&Yaml>, evaluation: Option<&Yaml>) -> Option<bool> {
    if let Some(b) = passed.and_then(Yaml::as_bool) {
        return Some(b);
    }
    match evaluation.map(scalar)?.trim().to_ascii_lowercase().as_str() {
        "pass" | "passed" | "true" => Some(true),
        "fail" | "failed" | "false" => Some(false),
        _ => None,
    }
}

/// `> [!eval] passed` for a verdict ConnectOnion recorded.
fn eval_callout(passed: bool, at: Option<&Timestamp>) -> Callout {
    let mut body = vec!["by: connectonion (recorded in the source)".to_owned()];
    if let Some(t) = at {
        body.push(format!("at: {t}"));
    }
    Callout::new("eval", if passed { "passed" } else { "failed" }, body)
}

/// An empty string or null: ConnectOnion writes `expected: ''` for none.
fn is_blank(v: &Yaml) -> bool {
    match v {
        Yaml::Null => true,
        Yaml::String(s) => s.trim().is_empty(),
        _ => false,
    }
}

/// A YAML value as one line of text (lists joined by commas).
fn scalar(v: &Yaml) -> String {
    match v {
        Yaml::String(s) => one_line(s),
        Yaml::Sequence(items) => items.iter().map(scalar).collect::<Vec<_>>().join(", "),
        other => one_line(serde_yaml::to_string(other).unwrap_or_default().trim()),
    }
}

/// A turn without messages: its input, the tools it called, its result.
fn summary_blocks(t: &Yaml, input: &str, agent: &AgentRef, p: &mut Phase) {
    if !input.trim().is_empty() {
        p.blocks
            .push(Block::Callout(Callout::user(input.trim(), None)));
    }
    let calls: Vec<ToolCall> = t
        .get("tools_called")
        .and_then(Yaml::as_sequence)
        .map(|s| {
            s.iter()
                .filter_map(Yaml::as_str)
                .map(|call| match call.split_once('(') {
                    Some((name, rest)) => ToolCall::new(name.trim(), rest.trim_end_matches(')')),
                    None => ToolCall::new(call.trim(), ""),
                })
                .collect()
        })
        .unwrap_or_default();
    if !calls.is_empty() {
        p.blocks.push(Block::ToolCalls { calls });
    }
    // `result` in sessions, `output` in eval summaries.
    if let Some(r) = t
        .get("result")
        .or_else(|| t.get("output"))
        .and_then(Yaml::as_str)
        && !r.trim().is_empty()
    {
        p.blocks
            .push(Block::Callout(Callout::reply(Some(agent), r.trim())));
    }
}
