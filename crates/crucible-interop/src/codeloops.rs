//! codeloops JSONL (seed 002): `session_start`, one `iteration` per
//! actor-critic cycle, `session_end` when it ended.
//!
//! - `session_start` → started, the title (the prompt's first line), the
//!   prompt as a `[!user]` callout, the actor and critic as participants
//!   (their slugs) and as written (`actor_agent: Claude Code`),
//!   `actor_model` as the model; `critic_model`, `working_dir` (as `cwd`) and
//!   `max_iterations` kept in the frontmatter;
//! - `iteration` → a phase `Iteration N @actor #main` with its duration; the
//!   actor's output as a `[!reply]`; a tool-call list with the actor run
//!   (`actor` → `exit N`, failed when not 0, with its stderr) and the diff
//!   (`git_diff` → `N files changed`), both kept whole in the sidecar
//!   (stderr, exit code, `actor_duration_secs` as written, the diff's
//!   text); the critic's verdict in any spelling ([`verdict_of`]): accepted
//!   a `[!decision]`, `ERROR` an `[!error]` with the stderr and the
//!   feedback as its resolution, anything else a `[!critic]` callout with
//!   the feedback;
//! - `session_end` → `success` completed, `failed` and
//!   `max_iterations_reached` failed, `interrupted` paused (at the last
//!   iteration, so it can be resumed); `confidence` and `duration_secs`
//!   as written; the summary as `## Summary`. No `session_end`: the
//!   session is active (running, or crashed);
//! - every line is counted by type; a line that does not parse (a partial
//!   last line after a crash), an unknown line type and an unknown key are
//!   counted as skipped and warned about or named;
//! - what an export would not give back of each line is kept in the
//!   sidecar ([`keep_residue`]), so that `export(import(f)) = f`.

use std::path::Path;

use serde_json::{Map, Value};

use crucible_core::{
    AgentRef, Block, CallData, Callout, DataRecord, Frontmatter, Phase, PhaseId, PlainSection,
    Section, SessionData, SessionId, SessionLog, SessionStatus, SourceData, Timestamp, ToolCall,
    cut, one_line,
};

use crate::{ImportError, ImportWarning, Imported, RecordTally};

/// True for a line of a codeloops log (detection counts them over the
/// whole head of a file, see [`crate::detect()`]).
pub(crate) fn is_record(v: &impl crate::line_shape::Fields) -> bool {
    matches!(
        v.str_at("type"),
        Some("session_start" | "iteration" | "session_end")
    )
}

/// `Claude Code` → `claude-code`: an agent name. The name as written is
/// kept too (`actor_agent`, `critic_agent` in the frontmatter).
pub(crate) fn agent_of(name: &str) -> Option<AgentRef> {
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
    let mut warnings = Vec::new();
    let body = crate::transcript::utf8_warned(path, &bytes, &mut warnings);
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
    let mut log = session_start(path, start);
    let actor = participant(&log, 0, "actor");
    let critic = participant(&log, 1, &actor.to_string());
    let mut records = RecordTally::default();
    // Lines that are not JSON (a crash's partial last line) are warned
    // about line by line; they are counted here too.
    let written = body.lines().filter(|l| !l.trim().is_empty()).count();
    for _ in lines.len()..written {
        records.skip("(not JSON)", "a line that does not parse");
    }
    let mut data = SessionData::default();
    let mut end: Option<&Value> = None;
    let mut starts = 0;
    let mut phases = 0;
    for (n, v) in &lines {
        let kind = v.get("type").and_then(Value::as_str);
        match kind {
            Some("iteration") => {
                let (p, calls) = iteration(v, phases, &actor, &critic);
                phases += 1;
                log.sections.push(Section::Phase(p));
                data.records.extend(calls.into_iter().map(DataRecord::Call));
            }
            Some("session_end") if end.is_none() => end = Some(v),
            Some("session_start") if starts == 0 => starts += 1,
            Some(k @ ("session_start" | "session_end")) => {
                // A second start or end (two runs appended to one file):
                // kept whole in the sidecar, not read into this session.
                records.skip(k, "a second one in the file (kept in the sidecar)");
                data.records.push(source_line(*n, v.clone()));
                continue;
            }
            other => {
                let kind = other.unwrap_or("(no type)");
                records.unknown(kind);
                warnings.push(ImportWarning {
                    path: path.to_owned(),
                    line: Some(*n),
                    message: format!(
                        "line type {kind} is not one codeloops writes; kept in the sidecar"
                    ),
                });
                data.records.push(source_line(*n, v.clone()));
                continue;
            }
        }
        records.read(kind.unwrap_or_default());
        count_unknown_keys(v, &mut records);
    }
    if let Some(e) = end {
        finish(&mut log, e);
    }
    keep_residue(&log, &mut data, &lines);
    let mut out = crate::imported(
        crate::Format::Codeloops,
        path,
        path.file_stem().map(|s| s.to_string_lossy().into_owned()),
        &bytes,
        log,
        warnings,
    );
    out.data = data;
    out.records = records;
    Ok(out)
}

/// The keys codeloops writes, by line type.
const KEYS: [(&str, &[&str]); 3] = [
    (
        "session_start",
        &[
            "type",
            "timestamp",
            "prompt",
            "working_dir",
            "actor_agent",
            "critic_agent",
            "actor_model",
            "critic_model",
            "max_iterations",
        ],
    ),
    (
        "iteration",
        &[
            "type",
            "iteration_number",
            "actor_output",
            "actor_stderr",
            "actor_exit_code",
            "actor_duration_secs",
            "git_diff",
            "git_files_changed",
            "critic_decision",
            "feedback",
            "timestamp",
        ],
    ),
    (
        "session_end",
        &[
            "type",
            "outcome",
            "iterations",
            "summary",
            "confidence",
            "duration_secs",
            "timestamp",
        ],
    ),
];

/// Counts each key of a known line that codeloops is not known to write,
/// by name (`iteration key tokens`): a new codeloops field shows up at
/// once. The line itself is read, and the key kept for an export (see
/// [`keep_residue`]).
fn count_unknown_keys(v: &Value, records: &mut RecordTally) {
    let kind = v.get("type").and_then(Value::as_str).unwrap_or_default();
    let Some((_, known)) = KEYS.iter().find(|(k, _)| *k == kind) else {
        return;
    };
    for k in v.as_object().into_iter().flat_map(|o| o.keys()) {
        if !known.contains(&k.as_str()) {
            records.skip(
                &format!("{kind} key {k}"),
                "a key cru does not read (kept in the sidecar)",
            );
        }
    }
}

/// A participant by its place (actor first, critic second), or `fallback`
/// when the critic is the actor.
fn participant(log: &SessionLog, i: usize, fallback: &str) -> AgentRef {
    log.frontmatter
        .participants
        .get(i)
        .cloned()
        .unwrap_or_else(|| fallback.parse().expect("a valid agent name"))
}

fn source_line(line: usize, record: Value) -> DataRecord {
    DataRecord::Source(SourceData {
        phase: None,
        line: Some(line),
        record,
    })
}

/// The session as `session_start` opens it.
fn session_start(path: &Path, start: &Value) -> SessionLog {
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
        fm.participants.push(critic);
    }
    fm.model = start
        .get("actor_model")
        .and_then(Value::as_str)
        .map(str::to_owned);
    // The agents' names as codeloops wrote them (`Claude Code`), for an
    // export back; the participants are their slugs.
    // The working directory under the key every importer gives it.
    for (key, field) in [
        ("cwd", "working_dir"),
        ("max_iterations", "max_iterations"),
        ("actor_agent", "actor_agent"),
        ("critic_agent", "critic_agent"),
        ("critic_model", "critic_model"),
    ] {
        if let Some(v) = start.get(field).filter(|v| !v.is_null())
            && let Ok(y) = serde_json::from_value::<crucible_core::yaml::Value>(v.clone())
        {
            fm.extra.insert(key, y);
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
    log
}

/// How a critic's verdict reads, in whatever spelling the critic used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// `DONE`, `PASS`, `approve`, `approved`, `accept`, `LGTM`, ...
    Done,
    /// `CONTINUE`, `FAIL`, `reject`, `revise`, and any other word: the
    /// critic sends the actor back with its feedback.
    Continue,
    /// `ERROR`: the actor's run failed.
    Error,
}

/// The verdict of `critic_decision`, from its first word
/// (`"DONE (confidence: 95%)"` is `DONE`, `"FAIL:"` is `FAIL`).
pub(crate) fn verdict_of(decision: &str) -> Option<Verdict> {
    let word: String = decision
        .split_whitespace()
        .next()?
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect::<String>()
        .to_ascii_uppercase();
    Some(match word.as_str() {
        "" => return None,
        "DONE" | "PASS" | "PASSED" | "APPROVE" | "APPROVED" | "ACCEPT" | "ACCEPTED" | "LGTM"
        | "SUCCESS" | "OK" | "COMPLETE" | "COMPLETED" => Verdict::Done,
        "ERROR" => Verdict::Error,
        _ => Verdict::Continue,
    })
}

/// One `iteration` line: its phase, and its two calls whole (the actor's
/// run: exit code, stderr, duration as written; the diff: its text).
fn iteration(
    v: &Value,
    phase: usize,
    actor: &AgentRef,
    critic: &AgentRef,
) -> (Phase, Vec<CallData>) {
    let n = v
        .get("iteration_number")
        .and_then(Value::as_u64)
        .unwrap_or(phase as u64 + 1);
    let mut p = Phase::new(
        format!("Iteration {n}"),
        Some(actor.clone()),
        Some("main".into()),
    );
    let secs_value = v.get("actor_duration_secs").cloned();
    let secs = secs_value.as_ref().and_then(Value::as_f64).unwrap_or(0.0);
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
    let mut run_data = CallData {
        phase,
        call: 0,
        tool: "actor".into(),
        exit_code: v.get("actor_exit_code").and_then(Value::as_i64),
        duration_ms: Some(ms),
        result: Some(Value::String(stderr.clone())),
        ..CallData::default()
    };
    if let Some(s) = secs_value {
        // As written (`120.0`): milliseconds would not give it back.
        run_data.extra.insert("duration_secs".into(), s);
    }
    let mut diff_data = CallData {
        phase,
        call: 1,
        tool: "git_diff".into(),
        diff: v.get("git_diff").and_then(Value::as_str).map(str::to_owned),
        ..CallData::default()
    };
    if let Some(f) = v.get("git_files_changed") {
        diff_data.extra.insert("files_changed".into(), f.clone());
    }
    p.blocks.push(Block::ToolCalls {
        calls: vec![run, diff],
    });
    if let Some(b) = critic_block(v, critic, &stderr) {
        p.blocks.push(b);
    }
    (p, vec![run_data, diff_data])
}

/// The critic's verdict and feedback as a callout: `[!decision]` when it
/// accepted, `[!critic]` when it sent the actor back (the verdict in the
/// title when it is not plain `CONTINUE`), `[!error]` for `ERROR`.
fn critic_block(v: &Value, critic: &AgentRef, stderr: &str) -> Option<Block> {
    let decision = text(v, "critic_decision");
    let feedback = text(v, "feedback");
    let who = format!("@{critic}");
    let callout = match verdict_of(&decision)? {
        Verdict::Done => Callout::decision(&format!(
            "{who}: {}{}",
            decision.trim(),
            if feedback.trim().is_empty() {
                String::new()
            } else {
                format!(" {}", feedback.trim())
            }
        )),
        Verdict::Continue => {
            // The verdict shows when it is not plain CONTINUE (`FAIL`,
            // `reject`); its exact words are kept for an export anyway.
            let first = decision.split_whitespace().next().unwrap_or("");
            let title = if first.eq_ignore_ascii_case("continue") {
                who
            } else {
                format!("{who} {}", one_line(decision.trim()))
            };
            Callout::new(
                "critic",
                title,
                feedback.trim().lines().map(str::to_owned).collect(),
            )
        }
        Verdict::Error => {
            let what = if stderr.trim().is_empty() {
                "the critic reported an error"
            } else {
                stderr.trim()
            };
            Callout::error(
                what,
                (!feedback.trim().is_empty()).then_some(feedback.trim()),
            )
        }
    };
    Some(Block::Callout(callout))
}

/// What an export of the session would not give back of each line (a
/// `critic_decision` spelled `approved`, a DONE's feedback, keys written as
/// `null`, fields this version of cru does not know), kept in the sidecar
/// as `{"codeloops": <line type>, "set": {...}, "unset": [...]}` so that the
/// export writes the line as it was.
fn keep_residue(log: &SessionLog, data: &mut SessionData, lines: &[(usize, Value)]) {
    let derived = crate::export::codeloops_lines(log, data);
    let mut iterations = 0;
    for (n, v) in lines {
        let kind = v.get("type").and_then(Value::as_str).unwrap_or_default();
        let (want, phase) = match kind {
            "session_start" => (derived.first(), None),
            "iteration" => {
                iterations += 1;
                (derived.get(iterations), Some(iterations - 1))
            }
            "session_end" => (derived.get(iterations + 1), None),
            _ => continue,
        };
        let (Some(Value::Object(line)), Some(Value::Object(want))) = (Some(v), want) else {
            continue;
        };
        let set: Map<String, Value> = line
            .iter()
            .filter(|(k, val)| want.get(*k) != Some(*val))
            .map(|(k, val)| (k.clone(), val.clone()))
            .collect();
        let unset: Vec<Value> = want
            .keys()
            .filter(|k| !line.contains_key(*k))
            .map(|k| Value::String(k.clone()))
            .collect();
        if set.is_empty() && unset.is_empty() {
            continue;
        }
        data.records.push(DataRecord::Source(SourceData {
            phase,
            line: Some(*n),
            record: serde_json::json!({"codeloops": kind, "set": set, "unset": unset}),
        }));
    }
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
    log.frontmatter.extra.insert("outcome", outcome);
    if let Some(c) = e.get("confidence").and_then(Value::as_f64) {
        log.frontmatter.extra.insert("confidence", c);
    }
    // As codeloops measured it, not recomputed from the times.
    if let Some(d) = e.get("duration_secs").filter(|d| d.is_number())
        && let Ok(y) = serde_json::from_value::<crucible_core::yaml::Value>(d.clone())
    {
        log.frontmatter.extra.insert("duration_secs", y);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: u64, decision: &str) -> String {
        serde_json::json!({
            "type": "iteration", "iteration_number": n, "actor_output": "did it",
            "actor_stderr": "warning: unused", "actor_exit_code": 0,
            "actor_duration_secs": 120.0, "git_diff": "diff --git a/x b/x\n+1\n",
            "git_files_changed": 1, "critic_decision": decision,
            "feedback": format!("feedback {n}"), "timestamp": "2025-01-01T00:02:00Z"
        })
        .to_string()
    }

    #[test]
    fn every_verdict_spelling_keeps_its_callout_and_the_fields_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut text = String::from(
            r#"{"type":"session_start","timestamp":"2025-01-01T00:00:00Z","prompt":"p","working_dir":"/w","actor_agent":"Claude Code","critic_agent":"Codex CLI","actor_model":"opus","critic_model":"gpt-5","max_iterations":5}"#,
        );
        let decisions = ["FAIL", "fail", "approve", "approved", "PASS"];
        for (i, d) in decisions.iter().enumerate() {
            text.push('\n');
            text.push_str(&line(i as u64 + 1, d));
        }
        text.push_str("\n{\"type\":\"session_end\",\"outcome\":\"success\",\"iterations\":5,\"summary\":null,\"confidence\":0.9,\"duration_secs\":120.0,\"timestamp\":\"2025-01-01T00:10:00Z\"}\n");
        std::fs::write(&path, text).unwrap();
        let imp = import(&path).unwrap();
        let fm = &imp.log.frontmatter;
        assert_eq!(fm.extra.get_str("actor_agent"), Some("Claude Code"));
        assert_eq!(fm.extra.get_str("critic_agent"), Some("Codex CLI"));
        assert_eq!(fm.extra.get_str("critic_model"), Some("gpt-5"));
        assert_eq!(
            fm.extra
                .get("duration_secs")
                .and_then(crucible_core::yaml::Value::as_f64),
            Some(120.0)
        );
        let callouts: Vec<(String, String)> = imp
            .log
            .phases()
            .map(|(_, p)| {
                p.blocks
                    .iter()
                    .find_map(|b| match b {
                        Block::Callout(c) if c.kind != "reply" => Some((c.kind.clone(), c.text())),
                        _ => None,
                    })
                    .expect("a verdict callout")
            })
            .collect();
        assert_eq!(callouts[0].0, "critic");
        assert_eq!(callouts[1].0, "critic");
        assert!(callouts[0].1.contains("feedback 1"), "{callouts:?}");
        for (i, (kind, text)) in callouts.iter().enumerate().skip(2) {
            assert_eq!(kind, "decision", "{}", decisions[i]);
            assert!(text.contains(&format!("feedback {}", i + 1)), "{text}");
        }
        let calls: Vec<&CallData> = imp.data.calls().collect();
        assert_eq!(calls.len(), 10);
        assert_eq!(
            calls[0].result,
            Some(Value::String("warning: unused".into()))
        );
        assert_eq!(calls[0].extra["duration_secs"].as_f64(), Some(120.0));
        assert_eq!(calls[1].diff.as_deref(), Some("diff --git a/x b/x\n+1\n"));
        assert_eq!(imp.records.read["iteration"], 5);
        assert_eq!(imp.records.skipped_count(), 0);
    }

    #[test]
    fn unknown_lines_are_counted_named_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(
            &path,
            "{\"type\":\"session_start\",\"prompt\":\"p\"}\n{\"type\":\"critic_thought\",\"x\":1}\n",
        )
        .unwrap();
        let imp = import(&path).unwrap();
        assert_eq!(imp.records.skipped["critic_thought"].count, 1);
        assert!(
            imp.data.records.iter().any(
                |r| matches!(r, DataRecord::Source(s) if s.record["type"] == "critic_thought")
            )
        );
        assert!(is_record(&serde_json::json!({"type": "session_end"})));
        let grown = dir.path().join("grown.jsonl");
        std::fs::write(
            &grown,
            "{\"type\":\"session_start\",\"prompt\":\"p\",\"budget\":3}\n",
        )
        .unwrap();
        let imp = import(&grown).unwrap();
        assert_eq!(imp.records.skipped["session_start key budget"].count, 1);
        // A crash's partial last line is counted, not only warned about.
        std::fs::write(
            &grown,
            "{\"type\":\"session_start\",\"prompt\":\"p\"}\n{\"type\":\"iter",
        )
        .unwrap();
        let imp = import(&grown).unwrap();
        assert_eq!(imp.records.skipped["(not JSON)"].count, 1);
        assert_eq!(imp.warnings.len(), 1);
        assert!(is_record(&serde_json::json!({"type": "iteration"})));
    }
}
