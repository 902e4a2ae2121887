//! `cru session eval <ids...|--all> [--judge] [--replay [--agent-cmd CMD] [--system-prompt FILE] [--model M]] [--format table|json] [--no-record]`.
//!
//! Every phase with an `[!expect]` callout is a case. Without `--replay`
//! the case is what the phase did; with it, the phase is run again by the
//! agent (the context before it, then its user's words) and the new run is
//! the case. The checks need no model; with `--judge`, the cases whose
//! expectation has a `result:` also go to a judge. Each outcome is
//! recorded in its phase as an `[!eval]` callout (not with `--no-record`),
//! and the table says how each verdict compares with the last one
//! recorded. Exit codes: docs/eval.md, "Exit codes".

mod json;
mod report;

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use crucible_agent::AgentBackend;
use crucible_core::{Block, PhaseId, SessionLog, Timestamp};
use crucible_eval::{Actual, EvalRecord, Evaluator, evaluable, expectation_of, last_verdict};

use crate::agent_backend;
use crate::context::Context;
use crate::error::{CliError, Outcome};

use json::EvalJson;
pub(super) use json::{RecordJson, reason};
use report::{Case, CaseOutcome, Report};

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Session ids, unique prefixes of them (any case), or paths.
    #[arg(required_unless_present = "all")]
    pub sessions: Vec<String>,
    /// Every session that has an `[!expect]` callout; files that cannot be
    /// read are skipped with a warning (exit 3 when the rest passed).
    #[arg(long, conflicts_with = "sessions")]
    pub all: bool,
    /// Also ask a judge about each case whose [!expect] has a `result:`
    /// line: --judge-cmd, else the [agent] of the configuration.
    #[arg(long)]
    pub judge: bool,
    /// The judge: a command run with `sh -c` that reads the question on
    /// stdin and prints `PASS: <reason>` or `FAIL: <reason>` (implies
    /// --judge).
    #[arg(long, value_name = "CMD")]
    pub judge_cmd: Option<String>,
    /// Run every phase that has expectations again with the agent, and
    /// check the new runs (a regression run after changing a prompt).
    #[arg(long)]
    pub replay: bool,
    /// The agent to replay with (a command, as for resume); overrides
    /// [agent] in the configuration.
    #[arg(long, value_name = "CMD", requires = "replay")]
    pub agent_cmd: Option<String>,
    /// Replay with this system prompt instead of each session's.
    #[arg(long, value_name = "FILE", requires = "replay")]
    pub system_prompt: Option<PathBuf>,
    /// Replay with this model: an endpoint is asked for it, a command gets
    /// it in $CRU_MODEL.
    #[arg(long, value_name = "M", requires = "replay")]
    pub model: Option<String>,
    /// Do not record the outcomes in the sessions.
    #[arg(long)]
    pub no_record: bool,
    /// How to print the cases.
    #[arg(long, value_enum, default_value_t = EvalFormat::Table)]
    pub format: EvalFormat,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum EvalFormat {
    /// session, phase, checks, judge, the last recorded verdict and this one.
    Table,
    /// One object: every case with its verdict, checks and reason, and a
    /// summary.
    Json,
}

/// What evaluates: the replaying agent and the judge, when asked for.
struct Evaluators {
    replay: Option<Box<dyn AgentBackend>>,
    judge: Option<Box<dyn AgentBackend>>,
    system_prompt: Option<String>,
    budget: u64,
    /// Says what evaluated besides the judge, in each record.
    by: String,
}

/// The session files to read, and the ones `--all` had to skip.
struct Targets {
    files: Vec<PathBuf>,
    skipped: Vec<String>,
}

pub fn run(ctx: &Context, args: &EvalArgs) -> anyhow::Result<Outcome> {
    let ev = evaluators(ctx, args)?;
    let targets = targets(ctx, args)?;
    let mut report = Report {
        skipped_files: targets.skipped,
        ..Report::default()
    };
    for path in &targets.files {
        let log = match ctx.store.load_path(path) {
            Ok(log) => log,
            Err(e) if args.all => {
                report.skipped_files.push(e.to_string());
                continue;
            }
            Err(e) => {
                // A session the user named and that cannot be read is a
                // failure, not a skip: they asked for it.
                report.unreadable_named.push(e.to_string());
                continue;
            }
        };
        report.sessions_read += 1;
        let cases = evaluate_session(&ev, path, &log);
        if cases.is_empty() && !args.all {
            // Named, and nothing in it to evaluate: say so rather than
            // print an empty table that looks like a pass.
            eprintln!(
                "warning: {}: no phase has an [!expect] callout, so there is nothing to evaluate \
                 (docs/eval.md says how to write one)",
                log.id()
            );
        }
        let records: Vec<(usize, &EvalRecord)> = cases
            .iter()
            .filter_map(|(index, case)| match &case.outcome {
                CaseOutcome::Evaluated(r) => Some((*index, r)),
                _ => None,
            })
            .collect();
        if !records.is_empty() && !args.no_record {
            record(ctx, path, &records)?;
        }
        report.cases.extend(cases.into_iter().map(|(_, c)| c));
    }
    if args.replay {
        report.newly_changed_first();
    }
    for w in &report.skipped_files {
        eprintln!("warning: {w}; skipped");
    }
    for e in &report.unreadable_named {
        eprintln!("error: {e}");
    }
    match args.format {
        EvalFormat::Json => crate::render::print_json(&EvalJson::new(&report))?,
        EvalFormat::Table => report.print_table()?,
    }
    if args.all && report.cases.is_empty() && report.skipped_files.is_empty() {
        eprintln!("no phase has an [!expect] callout (see docs/eval.md)");
    }
    eprintln!("{}", report.summary_line(args.replay));
    Ok(report.outcome())
}

fn evaluators(ctx: &Context, args: &EvalArgs) -> anyhow::Result<Evaluators> {
    let mut by = vec!["checks".to_owned()];
    let replay = if args.replay {
        let b = agent_backend::configured_with_model(
            ctx,
            args.agent_cmd.as_deref(),
            args.model.as_deref(),
        )?
        .ok_or_else(|| {
            CliError::new("--replay needs an agent to run the phases again")
                .with_hint(agent_backend::SETUP_HINT)
        })?;
        by[0] = format!("replay with {}", b.describe());
        Some(b)
    } else {
        None
    };
    let judge = if args.judge || args.judge_cmd.is_some() {
        let b = agent_backend::configured(ctx, args.judge_cmd.as_deref())?.ok_or_else(|| {
            CliError::new("--judge needs an agent to ask").with_hint(
                "pass --judge-cmd CMD (a program that reads the question on stdin and prints \
                 `PASS: <reason>` or `FAIL: <reason>`), or set [agent] in the configuration",
            )
        })?;
        Some(b)
    } else {
        None
    };
    let system_prompt = agent_backend::system_prompt_file(args.system_prompt.as_deref())?;
    if let Some(p) = &args.system_prompt {
        by.push(format!("system prompt {}", p.display()));
    }
    if let Some(m) = &args.model {
        by.push(format!("model {m}"));
    }
    Ok(Evaluators {
        replay,
        judge,
        system_prompt,
        budget: ctx.config.session.resume_token_budget,
        by: by.join(", "),
    })
}

/// The sessions named (each must resolve: an ambiguous name is wrong
/// usage, exit 2), or with `--all` every file whose text has an `[!expect`
/// callout (the others are not even parsed); a file `--all` cannot read
/// is skipped.
fn targets(ctx: &Context, args: &EvalArgs) -> anyhow::Result<Targets> {
    if !args.all {
        let files = args
            .sessions
            .iter()
            .map(|q| ctx.store.resolve(q).map_err(CliError::from))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Targets {
            files,
            skipped: Vec::new(),
        });
    }
    let mut out = Targets {
        files: Vec::new(),
        skipped: Vec::new(),
    };
    for f in ctx.store.scan() {
        let bytes = f.and_then(|f| ctx.store.read_bytes(&f.path).map(|b| (f.path, b)));
        match bytes {
            Ok((path, bytes)) => {
                if memchr::memmem::find(&bytes, b"[!expect").is_some() {
                    out.files.push(path);
                }
            }
            Err(e) => out.skipped.push(e.to_string()),
        }
    }
    Ok(out)
}

/// Every case of one session, with its phase's index.
fn evaluate_session(ev: &Evaluators, path: &Path, log: &SessionLog) -> Vec<(usize, Case)> {
    let mut out = Vec::new();
    for (id, phase) in log.phases() {
        let Some(expect) = expectation_of(phase) else {
            continue;
        };
        let mut case = Case {
            session: log.id().to_string(),
            phase: id.to_string(),
            was: last_verdict(phase),
            result_unjudged: false,
            outcome: CaseOutcome::Error(String::new()),
        };
        case.outcome = match expect {
            Err(e) => CaseOutcome::Error(format!("{}: {id}: {e}", path.display())),
            Ok(e) => {
                case.result_unjudged = e.asks_judge() && ev.judge.is_none();
                evaluate(ev, log, id, &e)
            }
        };
        out.push((id.index(), case));
    }
    out
}

/// One case: the phase as recorded, or a new run of it; its checks and,
/// where the expectation asks for it, the judge's answer.
fn evaluate(
    ev: &Evaluators,
    log: &SessionLog,
    id: PhaseId,
    e: &crucible_eval::Expectation,
) -> CaseOutcome {
    let Some(phase) = log.phase(id) else {
        return CaseOutcome::Error(format!("{}: no {id}", log.id()));
    };
    // Nothing runs (no replay, no judge) for a case that cannot be evaluated.
    if let Err(why) = evaluable(e, ev.judge.is_some()) {
        return CaseOutcome::NotEvaluated(why);
    }
    let actual: Actual = match &ev.replay {
        None => Actual::of_phase(phase),
        Some(agent) => match crucible_eval::replay::run_phase(
            agent.as_ref(),
            log,
            id.index(),
            ev.system_prompt.as_deref(),
            ev.budget,
        ) {
            Ok(run) => run.actual,
            Err(err) => {
                return CaseOutcome::Error(format!("{}: {id}: the agent failed: {err}", log.id()));
            }
        },
    };
    let evaluator = Evaluator {
        judge: ev.judge.as_deref(),
        by: &ev.by,
    };
    let input = crucible_eval::replay::input_of(phase);
    match evaluator.evaluate(e, &input, &actual, Timestamp::now()) {
        Ok(record) => CaseOutcome::Evaluated(record),
        Err(why) => CaseOutcome::NotEvaluated(why),
    }
}

/// Appends each record to its phase, in one locked write.
fn record(ctx: &Context, path: &Path, records: &[(usize, &EvalRecord)]) -> anyhow::Result<()> {
    ctx.store
        .update(path, |log| {
            let mut phases: Vec<&mut crucible_core::Phase> = log.phases_mut().collect();
            for (index, r) in records {
                if let Some(p) = phases.get_mut(*index) {
                    p.blocks.push(Block::Callout(r.to_callout()));
                }
            }
        })
        .map_err(CliError::from)?;
    Ok(())
}
