//! codeloops JSONL (seed 002): one `session_start`, an `iteration` per
//! phase, and a `session_end` when the session is over (completed →
//! `success`, failed → `failed`, paused → `interrupted`; an active session
//! has none, as a running loop's file does).

use serde_json::{Value, json};

use crucible_core::resume::{block_text, tool_call_line};
use crucible_core::{AgentRef, Block, CalloutKind, SessionLog, SessionStatus, Timestamp};

use super::turns::{Turn, opening_prompt};
use super::utc;

pub(super) fn write(log: &SessionLog, turns: &[Turn]) -> String {
    let fm = &log.frontmatter;
    let actor = fm
        .participants
        .first()
        .or_else(|| log.phases().find_map(|(_, p)| p.agent.as_ref()))
        .map_or_else(|| "agent".to_owned(), AgentRef::to_string);
    // A codeloops import keeps its critic; in other sessions a second
    // participant is a collaborator, not a critic.
    let critic = fm
        .extra
        .get("critic_agent")
        .and_then(|v| v.as_str())
        .unwrap_or("critic")
        .to_owned();
    let working_dir = ["working_dir", "cwd"]
        .iter()
        .find_map(|k| fm.extra.get(*k).and_then(|v| v.as_str()))
        .unwrap_or(".");
    let mut start = json!({
        "type": "session_start",
        "timestamp": utc(&fm.started),
        "prompt": opening_prompt(log, turns),
        "working_dir": working_dir,
        "actor_agent": actor,
        "critic_agent": critic,
    });
    if let Some(m) = &fm.model {
        start["actor_model"] = json!(m);
    }
    if let Some(n) = fm.extra.get("max_iterations").and_then(|v| v.as_u64()) {
        start["max_iterations"] = json!(n);
    }
    let mut lines = vec![start];
    let last = turns.len();
    let mut at = fm.started.clone();
    for (i, t) in turns.iter().enumerate() {
        if let Some(end) = t.ended() {
            at = end;
        }
        let done = i + 1 == last && fm.status == SessionStatus::Completed;
        lines.push(iteration(i + 1, t, &critic, done, &at));
    }
    let outcome = match fm.status {
        SessionStatus::Completed => Some("success"),
        SessionStatus::Failed => Some("failed"),
        SessionStatus::Paused => Some("interrupted"),
        SessionStatus::Active => None,
    };
    // A codeloops import keeps the exact outcome (`max_iterations_reached`
    // is failed to cru): it goes back when the status still says the same.
    let kept = fm.extra.get("outcome").and_then(|v| v.as_str());
    let outcome = match (outcome, kept) {
        (Some("failed"), Some(k @ ("failed" | "max_iterations_reached"))) => Some(k),
        (o, _) => o,
    };
    if let Some(outcome) = outcome {
        let end = fm.ended.clone().unwrap_or(at);
        let secs = end.ms_since(&fm.started).max(0) as f64 / 1000.0;
        let mut e = json!({
            "type": "session_end",
            "outcome": outcome,
            "iterations": turns.len(),
            "duration_secs": secs,
            "timestamp": utc(&end),
        });
        if let Some(s) = summary(log) {
            e["summary"] = json!(s);
        }
        lines.push(e);
    }
    let mut out = String::new();
    for l in lines {
        out.push_str(&Value::to_string(&l));
        out.push('\n');
    }
    out
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

/// One phase as an iteration. What a codeloops import made of an
/// iteration goes back to its field (the `actor` run's exit code, the
/// `git_diff` count, the critic's `[!critic]` feedback or `[!decision]`
/// verdict, `[!error]`s as stderr); everything else is the actor's output.
fn iteration(n: usize, t: &Turn, critic: &str, done: bool, at: &Timestamp) -> Value {
    let mut output: Vec<String> = Vec::new();
    let mut stderr: Vec<String> = Vec::new();
    let mut feedback: Vec<String> = Vec::new();
    let mut verdict: Option<String> = None;
    let mut failed = false;
    let mut files_changed = 0;
    let mut exit: Option<i64> = None;
    let critic_says = format!("@{critic}: ");
    for b in &t.blocks {
        match b {
            Block::Callout(c) if c.kind.eq_ignore_ascii_case("critic") => feedback.push(c.text()),
            Block::Callout(c) if c.kind() == CalloutKind::Error => stderr.push(c.text()),
            Block::Callout(c) if c.kind() == CalloutKind::User => {}
            Block::Callout(c)
                if c.kind() == CalloutKind::Decision && c.text().starts_with(&critic_says) =>
            {
                verdict = Some(c.text()[critic_says.len()..].to_owned());
            }
            Block::Callout(c) if c.kind.eq_ignore_ascii_case("reply") => output.push(c.text()),
            Block::Rule => {}
            Block::ToolCalls { calls } => {
                let mut lines = Vec::new();
                for c in calls {
                    failed |= c.failed;
                    match c.tool.as_str() {
                        "actor" if c.args.is_empty() => {
                            // `exit 101: stderr...` or `exit 0, 45.2 s`.
                            exit = c
                                .summary
                                .as_deref()
                                .and_then(|s| s.strip_prefix("exit "))
                                .and_then(|s| {
                                    s.split(|ch: char| !ch.is_ascii_digit() && ch != '-').next()
                                })
                                .and_then(|w| w.parse::<i64>().ok());
                        }
                        "git_diff" if c.args.is_empty() => {
                            files_changed = c
                                .summary
                                .as_deref()
                                .and_then(|s| s.split_whitespace().next())
                                .and_then(|w| w.parse::<u64>().ok())
                                .unwrap_or(0);
                        }
                        _ => lines.push(tool_call_line(c)),
                    }
                }
                if !lines.is_empty() {
                    output.push(lines.join("\n"));
                }
            }
            other => output.extend(block_text(other)),
        }
    }
    let decision = verdict.unwrap_or_else(|| {
        if done {
            "DONE".to_owned()
        } else if !stderr.is_empty() && feedback.is_empty() {
            "ERROR".to_owned()
        } else {
            "CONTINUE".to_owned()
        }
    });
    let mut it = json!({
        "type": "iteration",
        "iteration_number": n,
        "actor_output": output.join("\n\n"),
        "actor_stderr": stderr.join("\n"),
        "actor_exit_code": exit.unwrap_or(i64::from(failed || !stderr.is_empty())),
        "actor_duration_secs": t.duration_ms.unwrap_or(0) as f64 / 1000.0,
        "git_diff": "",
        "git_files_changed": files_changed,
        "critic_decision": decision,
        "timestamp": utc(at),
    });
    if !feedback.is_empty() {
        it["feedback"] = json!(feedback.join("\n"));
    }
    it
}
