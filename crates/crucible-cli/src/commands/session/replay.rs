//! `cru session replay <id|path> --phase N [--agent-cmd CMD] [--system-prompt FILE] [--model M] [--eval] [--format text|json]`.
//!
//! Runs phase N again: the context of the phases before it and the user's
//! words that started it go to the agent; the run is recorded as a new
//! session linked to the original (`replay_of:`), and what changed is
//! printed: tools added and missing, the result, tokens, duration.
//! `--eval` applies the phase's `[!expect]` checks to the new run. Exit 0
//! when the run is recorded (and its evaluation passed), 1 when the agent
//! failed or the evaluation did not pass, 2 for a `--phase` that is not a
//! phase number or an ambiguous session name.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use crucible_core::{AgentRef, EvalRecord, Phase, PhaseId, SessionId, SessionLog, Timestamp};
use crucible_eval::replay::{
    ReplayEval, ReplayRun, RunDiff, carry_expectation, replay_session, run_phase,
};
use crucible_eval::{Actual, Verdict};
use serde::Serialize;

use crate::agent_backend;
use crate::context::Context;
use crate::error::{CliError, Outcome};

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A session id, a unique prefix of one (any case), or a path.
    #[arg(add = crate::complete::sessions())]
    pub session: String,
    /// The phase to run again: `3` or `phase-3`.
    #[arg(long, value_name = "N")]
    pub phase: String,
    /// The agent to run it with (a command, as for resume); overrides
    /// [agent] in the configuration.
    #[arg(long, value_name = "CMD")]
    pub agent_cmd: Option<String>,
    /// Replay with this system prompt instead of the session's.
    #[arg(long, value_name = "FILE")]
    pub system_prompt: Option<PathBuf>,
    /// Replay with this model (an endpoint is asked for it, a command gets
    /// it in $CRU_MODEL).
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// Apply the phase's [!expect] to the new run.
    #[arg(long)]
    pub eval: bool,
    /// How to print the outcome.
    #[arg(long, value_enum, default_value_t = ReplayFormat::Text)]
    pub format: ReplayFormat,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ReplayFormat {
    /// The new session's id on stdout, the differences for people.
    Text,
    /// The new session, the differences and the evaluation as JSON.
    Json,
}

pub fn run(ctx: &Context, args: &ReplayArgs) -> anyhow::Result<Outcome> {
    let (_, log) = ctx.store.load(&args.session).map_err(CliError::from)?;
    let (id, original) = phase_of(&log, &args.phase)?;
    let agent = agent_backend::configured_with_model(
        ctx,
        args.agent_cmd.as_deref(),
        args.model.as_deref(),
    )?
    .ok_or_else(|| {
        CliError::new("replay needs an agent to run the phase").with_hint(agent_backend::SETUP_HINT)
    })?;
    let system_prompt = agent_backend::system_prompt_file(args.system_prompt.as_deref())?;
    let replayed = run_phase(
        agent.as_ref(),
        &log,
        id.index(),
        system_prompt.as_deref(),
        ctx.config.session.resume_token_budget,
    )
    .map_err(|e| CliError::new(format!("the agent failed: {e}")))?;
    let who: AgentRef = agent_backend::reply_agent(ctx, original.agent.as_ref())?
        .unwrap_or_else(|| "agent".parse().expect("a valid agent"));
    let mut session = replay_session(&ReplayRun {
        original: &log,
        index: id.index(),
        run: &replayed.actual,
        agent: who,
        model: replayed.model.clone().or_else(|| args.model.clone()),
        usage: replayed.usage,
        started: replayed.started.clone(),
        ended: replayed.ended.clone(),
    })
    .expect("the phase exists");
    // The expectation goes with the run, so the replay can be evaluated
    // again later; with --eval, so does its outcome.
    let by = format!("replay with {}", agent.describe());
    let carried = carry_expectation(
        original,
        &mut session,
        &replayed.actual,
        args.eval.then_some(by.as_str()),
        Timestamp::now(),
    )
    .map_err(|e| CliError::new(format!("{}: {id}: {e}", log.id())))?;
    let evaluation = evaluation_of(carried, &log, id);
    let started = session.frontmatter.started.clone();
    let title = session.frontmatter.title.clone();
    let (_, created) = ctx
        .store
        .create_new(&started, title.as_deref(), |new_id| {
            let mut l = session.clone();
            l.frontmatter.session_id = new_id;
            l
        })
        .map_err(CliError::from)?;
    let diff = RunDiff::between(&Actual::of_phase(original), &replayed.actual);
    render(
        args.format,
        created.id(),
        (log.id(), id),
        &diff,
        evaluation.as_ref(),
    )?;
    Ok(match evaluation.map(|r| r.verdict) {
        Some(Verdict::Failed | Verdict::Error) => Outcome::Failure,
        _ => Outcome::Success,
    })
}

/// The phase `--phase` names: a usage error when it is not a phase
/// number, an error when the session has no such phase.
fn phase_of<'l>(log: &'l SessionLog, phase: &str) -> Result<(PhaseId, &'l Phase), CliError> {
    let id: PhaseId = phase.parse().map_err(|_| {
        CliError::usage(format!(
            "--phase {phase}: expected a phase number such as 3 or phase-3"
        ))
    })?;
    let count = log.phase_count();
    let original = log.phase(id).ok_or_else(|| {
        CliError::new(format!(
            "{} has no {id} (it has {count} {})",
            log.id(),
            crate::render::plural(count, "phase", "phases")
        ))
    })?;
    Ok((id, original))
}

/// The record of `--eval`, saying on stderr why there is none when it was
/// asked for and nothing could be checked.
fn evaluation_of(carried: ReplayEval, log: &SessionLog, id: PhaseId) -> Option<EvalRecord> {
    match carried {
        ReplayEval::Evaluated(record) => Some(record),
        ReplayEval::NothingToCheck => {
            eprintln!(
                "warning: the [!expect] of {id} has nothing to check without a judge \
                 (use cru session eval --judge on the new session)"
            );
            None
        }
        ReplayEval::NoExpectation => {
            eprintln!(
                "warning: {id} of {} has no [!expect] callout: nothing to evaluate",
                log.id()
            );
            None
        }
        ReplayEval::NotAsked => None,
    }
}

/// The new session's id and what changed: JSON on stdout, or the id on
/// stdout and the differences on stderr.
fn render(
    format: ReplayFormat,
    created: &SessionId,
    (of, id): (&SessionId, PhaseId),
    diff: &RunDiff,
    evaluation: Option<&EvalRecord>,
) -> anyhow::Result<()> {
    match format {
        ReplayFormat::Json => crate::render::print_json(&ReplayJson {
            version: 1,
            session: created.as_str(),
            replay_of: ReplayOfJson {
                session: of.as_str(),
                phase: id.to_string(),
            },
            diff: DiffJson::new(diff),
            eval: evaluation.map(|r| EvalJson {
                verdict: r.verdict.as_str(),
                reason: crucible_eval::reason(r),
                record: super::eval::RecordJson::new(r),
            }),
        })?,
        ReplayFormat::Text => {
            println!("{created}");
            eprintln!("replay of {id} of {of}:");
            eprint!("{}", diff.render());
            if let Some(r) = evaluation {
                for c in &r.checks {
                    eprintln!(
                        "{}: {} {}",
                        c.kind.as_str(),
                        if c.passed { "✓" } else { "✗" },
                        c.detail
                    );
                }
                eprintln!("eval: {}", r.verdict.as_str());
            }
        }
    }
    Ok(())
}

/// `--format json`: one object, documented in docs/json.md.
#[derive(Debug, Serialize)]
struct ReplayJson<'a> {
    version: u32,
    /// The new session's id.
    session: &'a str,
    replay_of: ReplayOfJson<'a>,
    diff: DiffJson<'a>,
    /// `null` without `--eval` or without checks to apply.
    eval: Option<EvalJson>,
}

#[derive(Debug, Serialize)]
struct ReplayOfJson<'a> {
    session: &'a str,
    phase: String,
}

#[derive(Debug, Serialize)]
struct DiffJson<'a> {
    tools_added: &'a [String],
    tools_missing: &'a [String],
    result_changed: bool,
    old_result: &'a str,
    new_result: &'a str,
    old_tokens: Option<u64>,
    new_tokens: Option<u64>,
    old_duration_ms: Option<u64>,
    new_duration_ms: Option<u64>,
}

impl<'a> DiffJson<'a> {
    fn new(d: &'a RunDiff) -> Self {
        Self {
            tools_added: &d.tools_added,
            tools_missing: &d.tools_missing,
            result_changed: d.result_changed,
            old_result: &d.old_result,
            new_result: &d.new_result,
            old_tokens: d.old_tokens,
            new_tokens: d.new_tokens,
            old_duration_ms: d.old_duration_ms,
            new_duration_ms: d.new_duration_ms,
        }
    }
}

#[derive(Debug, Serialize)]
struct EvalJson {
    verdict: &'static str,
    reason: String,
    #[serde(flatten)]
    record: super::eval::RecordJson,
}
