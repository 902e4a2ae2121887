//! codeloops JSONL (seed 002): one `session_start`, an `iteration` per
//! phase, and a `session_end` when the session is over (completed →
//! `success`, failed → `failed`, paused → `interrupted`; an active session
//! has none, as a running loop's file does).

use serde_json::{Value, json};

use crucible_core::resume::block_text;
use crucible_core::{
    AgentRef, Block, CallData, CalloutKind, DataRecord, SessionData, SessionLog, SessionStatus,
    Timestamp,
};

use super::turns::{Turn, opening_prompt};
use super::utc;

pub(super) fn write(log: &SessionLog, data: &SessionData, turns: &[Turn]) -> String {
    let mut out = String::new();
    for l in lines(log, data, turns) {
        out.push_str(&Value::to_string(&l));
        out.push('\n');
    }
    out
}

/// The session's codeloops lines: what the session and its sidecar's call
/// records say, then what a codeloops import kept of each line that this
/// would not give back (the sidecar's `{"codeloops": ...}` records) put
/// over it, so that an imported log is written as it was read.
pub(crate) fn lines(log: &SessionLog, data: &SessionData, turns: &[Turn]) -> Vec<Value> {
    let mut lines = derived(log, data, turns);
    let iterations = turns.len();
    for r in &data.records {
        let DataRecord::Source(src) = r else { continue };
        let Some(kind) = src.record.get("codeloops").and_then(Value::as_str) else {
            continue;
        };
        let at = match (kind, src.phase) {
            ("session_start", _) => Some(0),
            ("iteration", Some(p)) if p < iterations => Some(p + 1),
            ("session_end", _) if lines.len() == iterations + 2 => Some(iterations + 1),
            _ => None,
        };
        let Some(Value::Object(line)) = at.and_then(|i| lines.get_mut(i)) else {
            continue;
        };
        if let Some(set) = src.record.get("set").and_then(Value::as_object) {
            for (k, v) in set {
                line.insert(k.clone(), v.clone());
            }
        }
        for k in src
            .record
            .get("unset")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(k) = k.as_str() {
                line.shift_remove(k);
            }
        }
    }
    lines
}

fn derived(log: &SessionLog, data: &SessionData, turns: &[Turn]) -> Vec<Value> {
    let fm = &log.frontmatter;
    let extra = |k: &str| fm.extra.get(k).and_then(|v| serde_json::to_value(v).ok());
    let name = |k: &str| fm.extra.get(k).and_then(|v| v.as_str()).map(str::to_owned);
    // The names as a codeloops import found them (`Claude Code`), else the
    // participant's.
    let actor = name("actor_agent").unwrap_or_else(|| {
        fm.participants
            .first()
            .or_else(|| log.phases().find_map(|(_, p)| p.agent.as_ref()))
            .map_or_else(|| "agent".to_owned(), AgentRef::to_string)
    });
    // A codeloops import keeps its critic; in other sessions a second
    // participant is a collaborator, not a critic.
    let critic = name("critic_agent").unwrap_or_else(|| "critic".to_owned());
    let critic_ref =
        crate::codeloops::agent_of(&critic).map_or_else(|| critic.clone(), |a| a.to_string());
    let working_dir = ["working_dir", "cwd"]
        .iter()
        .find_map(|k| fm.extra.get_str(k))
        .unwrap_or(".");
    // Every key codeloops writes, `null` when unset, as it writes them.
    let start = json!({
        "type": "session_start",
        "timestamp": utc(&fm.started),
        "prompt": opening_prompt(log, turns),
        "working_dir": working_dir,
        "actor_agent": actor,
        "critic_agent": critic,
        "actor_model": fm.model,
        "critic_model": extra("critic_model"),
        "max_iterations": extra("max_iterations"),
    });
    let mut lines = vec![start];
    let last = turns.len();
    let mut at = fm.started.clone();
    // The call records by phase, gathered once: a long loop stays linear.
    let mut by_phase: Vec<Vec<&CallData>> = vec![Vec::new(); turns.len()];
    for r in &data.records {
        if let DataRecord::Call(c) = r
            && let Some(calls) = by_phase.get_mut(c.phase)
        {
            calls.push(c);
        }
    }
    for (i, t) in turns.iter().enumerate() {
        if let Some(end) = t.ended() {
            at = end;
        }
        let done = i + 1 == last && fm.status == SessionStatus::Completed;
        lines.push(iteration(i + 1, t, &by_phase[i], &critic_ref, done, &at));
    }
    lines.extend(session_end(log, turns.len(), at));
    lines
}

/// The `session_end` line of a session that is over.
fn session_end(log: &SessionLog, iterations: usize, at: Timestamp) -> Option<Value> {
    let fm = &log.frontmatter;
    let outcome = match fm.status {
        SessionStatus::Completed => "success",
        SessionStatus::Failed => "failed",
        SessionStatus::Paused => "interrupted",
        SessionStatus::Active => return None,
    };
    // A codeloops import keeps the exact outcome (`max_iterations_reached`
    // is failed to cru): it goes back when the status still says the same.
    let kept = fm.extra.get("outcome").and_then(|v| v.as_str());
    let outcome = match (outcome, kept) {
        ("failed", Some(k @ ("failed" | "max_iterations_reached"))) => k,
        (o, _) => o,
    };
    let end = fm.ended.clone().unwrap_or(at);
    let extra = |k: &str| fm.extra.get(k).and_then(|v| serde_json::to_value(v).ok());
    // The duration codeloops measured, when the session came from it.
    let secs = extra("duration_secs")
        .filter(Value::is_number)
        .unwrap_or_else(|| json!(end.ms_since(&fm.started).max(0) as f64 / 1000.0));
    Some(json!({
        "type": "session_end",
        "outcome": outcome,
        "iterations": iterations,
        "summary": summary(log),
        "confidence": extra("confidence"),
        "duration_secs": secs,
        "timestamp": utc(&end),
    }))
}

/// A `## Summary` section's text (what a codeloops import makes of
/// `session_end.summary`).
fn summary(log: &SessionLog) -> Option<String> {
    log.sections.iter().find_map(|s| match s {
        crucible_core::Section::Plain(p) if p.title.eq_ignore_ascii_case("summary") => {
            let text: Vec<String> = p
                .blocks
                .iter()
                .filter_map(crucible_core::resume::block_text)
                .collect();
            Some(text.join("\n\n"))
        }
        _ => None,
    })
}

/// What a phase's blocks say, in an iteration's fields.
#[derive(Debug, Default)]
struct Said {
    output: Vec<String>,
    stderr: Vec<String>,
    feedback: Vec<String>,
    verdict: Option<String>,
    failed: bool,
    files_changed: u64,
    exit: Option<i64>,
}

impl Said {
    /// What a codeloops import made of an iteration goes back to its field
    /// (the `actor` run's exit code, the `git_diff` count, the critic's
    /// `[!critic]` feedback or `[!decision]` verdict, `[!error]`s as
    /// stderr); everything else is the actor's output.
    fn of(t: &Turn, critic: &str) -> Self {
        let mut said = Self::default();
        let critic_says = format!("@{critic}: ");
        for b in &t.blocks {
            match b {
                Block::Callout(c) if c.kind.eq_ignore_ascii_case("critic") => {
                    // `@critic FAIL`: a verdict other than CONTINUE, as imported.
                    if let Some(v) = c.title.strip_prefix(&format!("@{critic} ")) {
                        said.verdict = Some(v.to_owned());
                    }
                    said.feedback.push(c.text());
                }
                Block::Callout(c) if c.kind() == CalloutKind::Error => said.stderr.push(c.text()),
                Block::Callout(c) if c.kind() == CalloutKind::User => {}
                Block::Callout(c)
                    if c.kind() == CalloutKind::Decision && c.text().starts_with(&critic_says) =>
                {
                    said.verdict = Some(c.text()[critic_says.len()..].to_owned());
                }
                Block::Callout(c) if c.kind.eq_ignore_ascii_case("reply") => {
                    said.output.push(c.text());
                }
                Block::Rule => {}
                Block::ToolCalls { calls } => said.calls(calls),
                other => said.output.extend(block_text(other)),
            }
        }
        said
    }

    fn calls(&mut self, calls: &[crucible_core::ToolCall]) {
        let mut lines = Vec::new();
        for c in calls {
            self.failed |= c.failed;
            let first_word = |prefix: &str| {
                c.summary
                    .as_deref()
                    .and_then(|s| s.strip_prefix(prefix))
                    .and_then(|s| s.split(|ch: char| !ch.is_ascii_digit() && ch != '-').next())
                    .map(str::to_owned)
            };
            match c.tool.as_str() {
                // `exit 101: stderr...` or `exit 0, 45.2 s`.
                "actor" if c.args.is_empty() => {
                    self.exit = first_word("exit ").and_then(|w| w.parse().ok());
                }
                // `3 files changed`.
                "git_diff" if c.args.is_empty() => {
                    self.files_changed = first_word("").and_then(|w| w.parse().ok()).unwrap_or(0);
                }
                _ => lines.push(c.one_line()),
            }
        }
        if !lines.is_empty() {
            self.output.push(lines.join("\n"));
        }
    }
}

/// One phase as an iteration: what its blocks say ([`Said::of`]), with the
/// fields the sidecar's records of the actor's run and the diff hold whole
/// where the session has them.
fn iteration(
    n: usize,
    t: &Turn,
    calls: &[&CallData],
    critic: &str,
    done: bool,
    at: &Timestamp,
) -> Value {
    let said = Said::of(t, critic);
    let decision = said.verdict.clone().unwrap_or_else(|| {
        if done {
            "DONE".to_owned()
        } else if !said.stderr.is_empty() && said.feedback.is_empty() {
            "ERROR".to_owned()
        } else {
            "CONTINUE".to_owned()
        }
    });
    let run = calls.iter().find(|c| c.tool == "actor");
    let diff = calls.iter().find(|c| c.tool == "git_diff");
    let stderr = match run.and_then(|r| r.result.as_ref()).and_then(Value::as_str) {
        Some(s) => s.to_owned(),
        None => said.stderr.join("\n"),
    };
    let exit = run.and_then(|r| r.exit_code).or(said.exit);
    let secs = run
        .and_then(|r| r.extra.get("duration_secs"))
        .cloned()
        .unwrap_or_else(|| json!(t.duration_ms.unwrap_or(0) as f64 / 1000.0));
    let files_changed = diff
        .and_then(|d| d.extra.get("files_changed"))
        .cloned()
        .unwrap_or_else(|| json!(said.files_changed));
    let mut it = json!({
        "type": "iteration",
        "iteration_number": n,
        "actor_output": said.output.join("\n\n"),
        "actor_stderr": stderr,
        "actor_exit_code": exit.unwrap_or(i64::from(said.failed || !stderr.is_empty())),
        "actor_duration_secs": secs,
        "git_diff": diff.and_then(|d| d.diff.clone()).unwrap_or_default(),
        "git_files_changed": files_changed,
        "critic_decision": decision,
        "timestamp": utc(at),
    });
    if !said.feedback.is_empty() {
        it["feedback"] = json!(said.feedback.join("\n"));
    }
    it
}
