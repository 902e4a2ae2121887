//! Replaying one turn (seed 000's "replay specific turn"): the context of
//! the phases before it plus the user's words that started it, run again,
//! and what changed against the original.

use std::fmt::Write as _;

use crucible_core::{
    AgentRef, Block, Callout, EvalRecord, ExpectError, Frontmatter, Phase, PhaseId, Section,
    SessionId, SessionLog, SessionStatus, Timestamp, ToolCall, expectation_of,
};

use crate::{Actual, check};

/// What the user said to start a phase: its first `[!user]` words, else
/// the phase's name.
pub fn input_of(p: &Phase) -> String {
    crucible_core::first_user_words(&p.blocks).unwrap_or_else(|| p.name.clone())
}

/// The session cut for a replay of phase `index` (0-based): the phases
/// before it whole, of that phase only the user's words, nothing after;
/// resumable at that phase. `system_prompt` replaces the session's.
pub fn replay_log(
    log: &SessionLog,
    index: usize,
    system_prompt: Option<&str>,
) -> Option<SessionLog> {
    let target = log.phases().nth(index).map(|(_, p)| p.clone())?;
    let mut out = log.clone();
    let mut seen = 0;
    out.sections.retain(|s| match s {
        Section::Phase(_) => {
            seen += 1;
            seen <= index + 1
        }
        Section::Plain(_) => seen <= index,
    });
    if let Some(Section::Phase(p)) = out
        .sections
        .iter_mut()
        .rev()
        .find(|s| matches!(s, Section::Phase(_)))
    {
        p.blocks = vec![Block::Callout(Callout::user(&input_of(&target), None))];
        p.meta = Default::default();
    }
    if let Some(sp) = system_prompt {
        out.preamble
            .retain(|b| !matches!(b, Block::SystemPrompt { .. }));
        out.preamble.push(Block::SystemPrompt {
            text: sp.trim_end().to_owned(),
        });
    }
    out.frontmatter.status = SessionStatus::Paused;
    out.frontmatter.resume_point = Some(PhaseId::from_index(index));
    Some(out)
}

/// How a replayed run differs from the original phase.
#[derive(Debug, Clone, PartialEq)]
pub struct RunDiff {
    /// Tools the replay called that the original did not (by name, counted).
    pub tools_added: Vec<String>,
    /// Tools the original called that the replay did not.
    pub tools_missing: Vec<String>,
    pub result_changed: bool,
    pub old_result: String,
    pub new_result: String,
    pub old_tokens: Option<u64>,
    pub new_tokens: Option<u64>,
    pub old_duration_ms: Option<u64>,
    pub new_duration_ms: Option<u64>,
}

/// Names in `a` not matched by one in `b`, each counted once per call.
fn minus(a: &[ToolCall], b: &[ToolCall]) -> Vec<String> {
    let mut rest: Vec<&str> = b.iter().map(|c| c.tool.as_str()).collect();
    let mut out = Vec::new();
    for c in a {
        match rest.iter().position(|n| n.eq_ignore_ascii_case(&c.tool)) {
            Some(i) => {
                rest.swap_remove(i);
            }
            None => out.push(c.tool.clone()),
        }
    }
    out
}

impl RunDiff {
    pub fn between(old: &Actual, new: &Actual) -> Self {
        Self {
            tools_added: minus(&new.calls, &old.calls),
            tools_missing: minus(&old.calls, &new.calls),
            result_changed: old.result.trim() != new.result.trim(),
            old_result: old.result.clone(),
            new_result: new.result.clone(),
            old_tokens: old.tokens,
            new_tokens: new.tokens,
            old_duration_ms: old.duration_ms,
            new_duration_ms: new.duration_ms,
        }
    }

    /// For people: one line per aspect.
    pub fn render(&self) -> String {
        let list = |v: &[String]| {
            if v.is_empty() {
                "none".to_owned()
            } else {
                v.join(", ")
            }
        };
        let num = |v: Option<u64>| v.map_or_else(|| "?".to_owned(), |n| n.to_string());
        let mut out = String::new();
        let _ = writeln!(out, "tools added:   {}", list(&self.tools_added));
        let _ = writeln!(out, "tools missing: {}", list(&self.tools_missing));
        if self.result_changed {
            let _ = writeln!(out, "result:        changed");
            let _ = writeln!(
                out,
                "  was: {}",
                crucible_core::summary_line(&self.old_result, 200)
            );
            let _ = writeln!(
                out,
                "  now: {}",
                crucible_core::summary_line(&self.new_result, 200)
            );
        } else {
            let _ = writeln!(out, "result:        the same");
        }
        let _ = writeln!(
            out,
            "tokens:        {} → {}",
            num(self.old_tokens),
            num(self.new_tokens)
        );
        let _ = writeln!(
            out,
            "duration:      {} → {}",
            self.old_duration_ms
                .map_or_else(|| "?".to_owned(), |m| format!("{m} ms")),
            self.new_duration_ms
                .map_or_else(|| "?".to_owned(), |m| format!("{m} ms"))
        );
        out
    }
}

/// What a replay session records.
#[derive(Debug, Clone)]
pub struct ReplayRun<'a> {
    pub original: &'a SessionLog,
    /// 0-based.
    pub index: usize,
    pub run: &'a Actual,
    pub agent: AgentRef,
    pub model: Option<String>,
    /// What the backend said the run used, by kind, if it said.
    pub usage: Option<crucible_agent::TokenUsage>,
    pub started: Timestamp,
    pub ended: Timestamp,
}

/// The replay as a session of its own, linked to the original by a
/// `replay_of: {session, phase}` frontmatter key and a line in its body.
pub fn replay_session(r: &ReplayRun<'_>) -> Option<SessionLog> {
    let (id, phase) = r.original.phases().nth(r.index)?;
    // The phase comes first: ids are cut from the title's start, and a
    // replay's id must say which phase it ran.
    let title = format!(
        "Replay of {id} of {}",
        r.original.title().unwrap_or(r.original.id().as_str())
    );
    let mut fm = Frontmatter::new(SessionId::new("replay").expect("valid"), r.started.clone());
    fm.title = Some(title.clone());
    fm.status = SessionStatus::Completed;
    fm.ended = Some(r.ended.clone());
    fm.participants.push(r.agent.clone());
    fm.model.clone_from(&r.model);
    fm.tokens_used = r.run.tokens;
    let mut link = crucible_core::yaml::Mapping::new();
    link.insert("session", r.original.id().to_string());
    link.insert("phase", id.to_string());
    fm.extra.insert("replay_of", link);
    let mut log = SessionLog::new(fm);
    log.preamble.push(Block::Heading {
        level: 1,
        text: title,
    });
    log.preamble.push(Block::prose(format!(
        "Replay of {id} of [[{}]] with its context before that phase.",
        r.original.id()
    )));
    let mut p = Phase::new(
        phase.name.clone(),
        Some(r.agent.clone()),
        phase.channel.clone(),
    );
    p.meta.tokens = r.run.tokens;
    if let Some(u) = &r.usage {
        // A usage record like a resumed turn's: the replay is priced by the
        // model that answered, and its tokens counted by kind.
        p.usage.push(crucible_core::UsageRecord {
            at: Some(r.ended.clone()),
            model: r.model.clone(),
            tokens: u.by_kind(),
            ..crucible_core::UsageRecord::default()
        });
    }
    p.meta.duration_ms = Some(u64::try_from(r.ended.ms_since(&r.started)).unwrap_or(0));
    p.meta.started = Some(r.started.clone());
    p.blocks
        .push(Block::Callout(Callout::user(&input_of(phase), None)));
    if !r.run.calls.is_empty() {
        p.blocks.push(Block::ToolCalls {
            calls: r.run.calls.clone(),
        });
    }
    if !r.run.result.trim().is_empty() {
        p.blocks.push(Block::Callout(Callout::reply(
            Some(&r.agent),
            r.run.result.trim(),
        )));
    }
    let counted = !p.usage.is_empty();
    log.sections.push(Section::Phase(p));
    if counted {
        log.refresh_usage_totals();
    }
    Some(log)
}

/// What became of a replay's evaluation.
#[derive(Debug, Clone)]
pub enum ReplayEval {
    /// No evaluation was asked for.
    NotAsked,
    /// Asked for, and the original phase has no `[!expect]` callout.
    NoExpectation,
    /// Asked for, and the expectation has nothing to check without a
    /// judge (only `result:`, or nothing).
    NothingToCheck,
    /// The checks of the expectation applied to the new run.
    Evaluated(EvalRecord),
}

/// Carries the original phase's `[!expect]` into the replay session (its
/// one phase, after the user's words), so the replay can be evaluated
/// again later; with `evaluate_by` (what ran it, for the record), the
/// new run is checked against it and the `[!eval]` outcome goes in too.
/// An expectation that cannot be read is an error.
pub fn carry_expectation(
    original: &Phase,
    replay: &mut SessionLog,
    run: &Actual,
    evaluate_by: Option<&str>,
    at: Timestamp,
) -> Result<ReplayEval, ExpectError> {
    let Some(expect) = expectation_of(original) else {
        return Ok(match evaluate_by {
            Some(_) => ReplayEval::NoExpectation,
            None => ReplayEval::NotAsked,
        });
    };
    let expect = expect?;
    let Some(phase) = replay.phases_mut().next() else {
        return Ok(ReplayEval::NotAsked);
    };
    let after_user = phase.blocks.len().min(1);
    phase
        .blocks
        .insert(after_user, Block::Callout(expect.to_callout()));
    let Some(by) = evaluate_by else {
        return Ok(ReplayEval::NotAsked);
    };
    if !expect.has_checks() {
        return Ok(ReplayEval::NothingToCheck);
    }
    let record = EvalRecord::new(check(&expect, run), None, by.to_owned(), at);
    phase.blocks.push(Block::Callout(record.to_callout()));
    Ok(ReplayEval::Evaluated(record))
}

/// A replayed run: what it did, and when.
#[derive(Debug, Clone)]
pub struct Replayed {
    pub actual: Actual,
    pub model: Option<String>,
    pub usage: Option<crucible_agent::TokenUsage>,
    pub started: Timestamp,
    pub ended: Timestamp,
}

/// Runs phase `index` (0-based) of `log` again with `agent`: the context of
/// the phases before it (fitted to `budget` tokens) and the user's words of
/// that phase; `system_prompt` replaces the session's.
pub fn run_phase(
    agent: &dyn crucible_agent::AgentBackend,
    log: &SessionLog,
    index: usize,
    system_prompt: Option<&str>,
    budget: u64,
) -> Result<Replayed, crucible_agent::AgentError> {
    let cut = replay_log(log, index, system_prompt).unwrap_or_else(|| log.clone());
    let cx = crucible_core::ResumeContext::build(&cut, budget);
    let prompt = cx.prompt();
    let messages = cx.messages();
    let started_at = std::time::Instant::now();
    let started = Timestamp::now();
    let reply = agent.complete(&crucible_agent::AgentRequest {
        prompt: &prompt,
        messages: &messages,
    })?;
    let elapsed = started_at.elapsed();
    let mut actual = crate::run_output(&reply.text);
    if actual.tokens.is_none() {
        actual.tokens = reply.usage.map(|u| u.total_tokens);
    }
    actual.duration_ms = Some(u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX));
    let ended = Timestamp::from_unix_ms(
        started.unix_ms() + i64::try_from(elapsed.as_millis()).unwrap_or(0),
    );
    Ok(Replayed {
        actual,
        model: reply.model,
        usage: reply.usage,
        started,
        ended,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log() -> SessionLog {
        let text = "---\ntype: session\nsession_id: 2025-12-01-x\nstarted: 2025-12-01T10:00:00Z\nstatus: completed\n---\n\n# X\n\n## First @a #main\n\n> [!user]\n> \"list the files\"\n\n**Tool calls:**\n- `ls .` → 3 files\n\n## Second @a #main\n\n> [!user]\n> \"count the lines\"\n\n**Tool calls:**\n- `wc -l a.py` → 10\n- `wc -l b.py` → 12\n\n> [!reply] @a\n> 22 lines.\n\n## Third @a #main\n\nDone.\n";
        crucible_parser::parse_session(std::path::Path::new("x.md"), text.as_bytes()).unwrap()
    }

    #[test]
    fn the_replay_context_stops_at_the_users_words() {
        let cut = replay_log(&log(), 1, Some("Be brief.")).unwrap();
        assert_eq!(cut.phase_count(), 2);
        let (_, second) = cut.phases().nth(1).unwrap();
        assert_eq!(second.blocks.len(), 1);
        assert_eq!(input_of(second), "count the lines");
        assert_eq!(cut.system_prompt(), Some("Be brief."));
        assert_eq!(cut.frontmatter.resume_point, Some(PhaseId::from_index(1)));
        // The first phase is whole.
        assert_eq!(cut.tool_calls().count(), 1);
        assert!(replay_log(&log(), 3, None).is_none());
    }

    #[test]
    fn the_diff_counts_tools_by_call() {
        let (_, second) = log().phases().nth(1).map(|(i, p)| (i, p.clone())).unwrap();
        let old = Actual::of_phase(&second);
        let new = Actual {
            calls: vec![ToolCall::new("wc", "-l *.py"), ToolCall::new("cat", "a.py")],
            result: "22 lines.".into(),
            tokens: Some(40),
            duration_ms: Some(900),
        };
        let d = RunDiff::between(&old, &new);
        assert_eq!(d.tools_added, ["cat"]);
        assert_eq!(d.tools_missing, ["wc"]);
        assert!(!d.result_changed);
        assert!(
            d.render().contains("tokens:        ? → 40"),
            "{}",
            d.render()
        );
    }

    fn replay_of_second(run: &Actual) -> SessionLog {
        replay_session(&ReplayRun {
            original: &log(),
            index: 1,
            run,
            agent: "a".parse().unwrap(),
            model: None,
            usage: None,
            started: "2025-12-02T10:00:00Z".parse().unwrap(),
            ended: "2025-12-02T10:00:01Z".parse().unwrap(),
        })
        .unwrap()
    }

    #[test]
    fn a_replay_records_what_the_backend_said_it_used_by_kind() {
        let run = Actual::default();
        let replay = replay_session(&ReplayRun {
            original: &log(),
            index: 1,
            run: &run,
            agent: "a".parse().unwrap(),
            model: Some("gpt-4o".to_owned()),
            usage: Some(crucible_agent::TokenUsage {
                prompt_tokens: 1_000,
                completion_tokens: 50,
                total_tokens: 1_050,
                cache_read_tokens: 800,
                ..crucible_agent::TokenUsage::default()
            }),
            started: "2025-12-02T10:00:00Z".parse().unwrap(),
            ended: "2025-12-02T10:00:01Z".parse().unwrap(),
        })
        .unwrap();
        let (_, phase) = replay.phases().next().unwrap();
        let [record] = phase.usage.as_slice() else {
            panic!("one usage record: {:?}", phase.usage);
        };
        assert_eq!(record.model.as_deref(), Some("gpt-4o"));
        assert_eq!(
            (
                record.tokens.input,
                record.tokens.cache_read,
                record.tokens.output
            ),
            (200, 800, 50)
        );
        assert_eq!(replay.frontmatter.tokens_used, Some(1_050));
        // Without usage from the backend, no record and no total made up.
        let plain = replay_of_second(&run);
        assert!(plain.phases().all(|(_, p)| p.usage.is_empty()));
        assert_eq!(plain.frontmatter.tokens_used, None);
    }

    #[test]
    fn the_expectation_goes_with_the_replay_and_is_checked_when_asked() {
        let mut original = log().phases().nth(1).unwrap().1.clone();
        original.blocks.push(Block::Callout(Callout::new(
            "expect",
            "",
            vec!["tools: cat".into()],
        )));
        let run = Actual {
            calls: vec![ToolCall::new("wc", "-l a.py")],
            result: "10".into(),
            tokens: None,
            duration_ms: None,
        };
        let at: Timestamp = "2025-12-02T10:00:02Z".parse().unwrap();
        let mut replay = replay_of_second(&run);
        let got = carry_expectation(&original, &mut replay, &run, None, at.clone()).unwrap();
        assert!(matches!(got, ReplayEval::NotAsked));
        let kinds: Vec<&str> = replay.callouts().map(|c| c.kind.as_str()).collect();
        assert_eq!(kinds, ["user", "expect", "reply"]);

        let mut replay = replay_of_second(&run);
        let got = carry_expectation(&original, &mut replay, &run, Some("replay"), at).unwrap();
        let ReplayEval::Evaluated(record) = got else {
            panic!("expected an evaluation, got {got:?}");
        };
        assert_eq!(record.verdict, crucible_core::Verdict::Failed);
        let (_, phase) = replay.phases().next().unwrap();
        assert_eq!(
            crucible_core::last_verdict(phase),
            Some(crucible_core::Verdict::Failed)
        );
    }

    #[test]
    fn a_replay_without_checks_says_why_it_was_not_evaluated() {
        let run = Actual::default();
        let at: Timestamp = "2025-12-02T10:00:02Z".parse().unwrap();
        let plain = log().phases().nth(1).unwrap().1.clone();
        let mut replay = replay_of_second(&run);
        let got = carry_expectation(&plain, &mut replay, &run, Some("r"), at.clone()).unwrap();
        assert!(matches!(got, ReplayEval::NoExpectation));
        let mut judged_only = plain.clone();
        judged_only.blocks.push(Block::Callout(Callout::new(
            "expect",
            "",
            vec!["result: the count".into()],
        )));
        let got =
            carry_expectation(&judged_only, &mut replay, &run, Some("r"), at.clone()).unwrap();
        assert!(matches!(got, ReplayEval::NothingToCheck));
        let mut broken = plain;
        broken.blocks.push(Block::Callout(Callout::new(
            "expect",
            "",
            vec!["when: later".into()],
        )));
        let e = carry_expectation(&broken, &mut replay, &run, None, at).unwrap_err();
        assert_eq!(e.line, 1);
    }
}
