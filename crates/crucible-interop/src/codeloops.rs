//! codeloops JSONL (seed 002): `session_start`, one `iteration` per
//! actor-critic cycle, `session_end` when it ended.
//!
//! - `session_start` → started, the title (the prompt's first line), the
//!   prompt as a `[!user]` callout, the actor and critic as participants
//!   (and the critic as `critic_agent`, for an export back),
//!   `actor_model` as the model; `working_dir` and `max_iterations` kept in
//!   the frontmatter;
//! - `iteration` → a phase `Iteration N @actor #main` with its duration; the
//!   actor's output as a `[!reply]`; a tool-call list with the actor run
//!   (`actor` → `exit N`, failed when not 0, with its stderr) and the diff
//!   (`git_diff` → `N files changed`); the critic's verdict, matched on its
//!   prefix (`"DONE (confidence: 95%)"` is `DONE`): `DONE` a `[!decision]`,
//!   `CONTINUE` a `[!critic]` callout with the feedback, `ERROR` an
//!   `[!error]` with the stderr and the feedback as its resolution;
//! - `session_end` → `success` completed, `failed` and
//!   `max_iterations_reached` failed, `interrupted` paused (at the last
//!   iteration, so it can be resumed); the summary as `## Summary`. No
//!   `session_end`: the session is active (running, or crashed);
//! - a line that does not parse (a partial last line after a crash) is a
//!   warning and is skipped.

use std::path::Path;

use serde_json::Value;

use crucible_core::{
    AgentRef, Block, Callout, Frontmatter, Phase, PhaseId, PlainSection, Section, SessionId,
    SessionLog, SessionStatus, Timestamp, ToolCall, cut, one_line,
};

use crate::{ImportError, ImportWarning, Imported};

/// True for a line of a codeloops log (detection counts them over the
/// whole head of a file, see [`crate::detect`]).
pub(crate) fn is_record(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("session_start")
}

/// `Claude Code` → `claude-code`: an agent name.
fn agent_of(name: &str) -> Option<AgentRef> {
    let slug: String = name
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '.' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let slug = slug.trim_matches('-').to_owned();
    (!slug.is_empty()).then(|| slug.parse().ok()).flatten()
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_owned()
}

pub(crate) fn import(path: &Path) -> Result<Imported, ImportError> {
    let bytes = crate::read_source(path)?;
    let body = crate::transcript::utf8(&bytes);
    let mut warnings = Vec::new();
    let lines = crate::transcript::json_lines(path, &body, &mut warnings);
    let Some((_, start)) = lines
        .iter()
        .find(|(_, v)| v.get("type").and_then(Value::as_str) == Some("session_start"))
    else {
        return Err(ImportError::Invalid {
            path: path.to_owned(),
            line: 1,
            message: "no `session_start` line".into(),
        });
    };
    let started: Timestamp = text(start, "timestamp")
        .parse()
        .unwrap_or_else(|_| crate::transcript::mtime(path));
    let placeholder = SessionId::new("imported").expect("a valid id");
    let mut fm = Frontmatter::new(placeholder, started);
    fm.status = SessionStatus::Active;
    let prompt = text(start, "prompt");
    let title = cut(&one_line(prompt.lines().next().unwrap_or("").trim()), 80);
    if !title.is_empty() {
        fm.title = Some(title.clone());
    }
    let actor =
        agent_of(&text(start, "actor_agent")).unwrap_or_else(|| "actor".parse().expect("valid"));
    let critic =
        agent_of(&text(start, "critic_agent")).unwrap_or_else(|| "critic".parse().expect("valid"));
    fm.participants.push(actor.clone());
    if critic != actor {
        fm.participants.push(critic.clone());
    }
    fm.extra
        .insert("critic_agent".into(), critic.to_string().into());
    fm.model = start
        .get("actor_model")
        .and_then(Value::as_str)
        .map(str::to_owned);
    for key in ["working_dir", "max_iterations"] {
        if let Some(v) = start.get(key).filter(|v| !v.is_null())
            && let Ok(y) = serde_yaml::to_value(v)
        {
            fm.extra.insert(key.into(), y);
        }
    }
    let mut log = SessionLog::new(fm);
    if !title.is_empty() {
        log.preamble.push(Block::Heading {
            level: 1,
            text: title,
        });
    }
    if !prompt.trim().is_empty() {
        log.preamble
            .push(Block::Callout(Callout::user(prompt.trim(), None)));
    }
    let mut end: Option<&Value> = None;
    for (n, v) in &lines {
        match v.get("type").and_then(Value::as_str) {
            Some("iteration") => log
                .sections
                .push(Section::Phase(iteration(v, &actor, &critic))),
            Some("session_end") => end = Some(v),
            Some("session_start") => {}
            other => warnings.push(ImportWarning {
                path: path.to_owned(),
                line: Some(*n),
                message: format!(
                    "line type {} is not one codeloops writes; skipped",
                    other.unwrap_or("(none)")
                ),
            }),
        }
    }
    if let Some(e) = end {
        finish(&mut log, e);
    }
    Ok(crate::imported(
        crate::Format::Codeloops,
        path,
        path.file_stem().map(|s| s.to_string_lossy().into_owned()),
        &bytes,
        log,
        warnings,
    ))
}

fn iteration(v: &Value, actor: &AgentRef, critic: &AgentRef) -> Phase {
    let n = v
        .get("iteration_number")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let mut p = Phase::new(
        format!("Iteration {n}"),
        Some(actor.clone()),
        Some("main".into()),
    );
    let secs = v
        .get("actor_duration_secs")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let ms = (secs * 1000.0).round() as u64;
    p.meta.duration_ms = Some(ms);
    if let Ok(done) = text(v, "timestamp").parse::<Timestamp>() {
        p.meta.started = Some(Timestamp::from_unix_ms(done.unix_ms() - ms as i64));
    }
    let output = text(v, "actor_output");
    if !output.trim().is_empty() {
        p.blocks
            .push(Block::Callout(Callout::reply(Some(actor), output.trim())));
    }
    let exit = v
        .get("actor_exit_code")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let stderr = text(v, "actor_stderr");
    let mut run = ToolCall::new("actor", "").with_summary(if stderr.trim().is_empty() {
        format!("exit {exit}, {secs:.1} s")
    } else {
        cut(
            &one_line(&format!("exit {exit}: {}", stderr.trim())),
            crucible_core::SUMMARY_LIMIT,
        )
    });
    run.failed = exit != 0;
    let files = v
        .get("git_files_changed")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let diff = ToolCall::new("git_diff", "").with_summary(format!(
        "{files} file{} changed",
        if files == 1 { "" } else { "s" }
    ));
    p.blocks.push(Block::ToolCalls {
        calls: vec![run, diff],
    });
    let decision = text(v, "critic_decision");
    let feedback = text(v, "feedback");
    let verdict = decision
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    let who = format!("@{critic}");
    match verdict.as_str() {
        "DONE" => p.blocks.push(Block::Callout(Callout::decision(&format!(
            "{who}: {}{}",
            decision.trim(),
            if feedback.trim().is_empty() {
                String::new()
            } else {
                format!(" {}", feedback.trim())
            }
        )))),
        "CONTINUE" => p.blocks.push(Block::Callout(Callout::new(
            "critic",
            who,
            feedback.trim().lines().map(str::to_owned).collect(),
        ))),
        "ERROR" => {
            let what = if stderr.trim().is_empty() {
                "the critic reported an error"
            } else {
                stderr.trim()
            };
            p.blocks.push(Block::Callout(Callout::error(
                what,
                (!feedback.trim().is_empty()).then_some(feedback.trim()),
            )));
        }
        _ => {}
    }
    p
}

fn finish(log: &mut SessionLog, e: &Value) {
    let outcome = text(e, "outcome");
    log.frontmatter.status = match outcome.as_str() {
        "success" => SessionStatus::Completed,
        "interrupted" => SessionStatus::Paused,
        _ => SessionStatus::Failed,
    };
    if log.frontmatter.status == SessionStatus::Paused {
        log.frontmatter.resume_point = log.phase_count().checked_sub(1).map(PhaseId::from_index);
    } else if let Ok(t) = text(e, "timestamp").parse::<Timestamp>() {
        log.frontmatter.ended = Some(t);
    }
    log.frontmatter
        .extra
        .insert("outcome".into(), outcome.into());
    if let Some(c) = e.get("confidence").and_then(Value::as_f64) {
        log.frontmatter.extra.insert("confidence".into(), c.into());
    }
    let summary = text(e, "summary");
    if !summary.trim().is_empty() {
        log.sections.push(Section::Plain(PlainSection {
            level: 2,
            title: "Summary".into(),
            blocks: vec![Block::prose(summary.trim())],
        }));
    }
}
