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

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use crucible_agent::AgentBackend;
use crucible_eval::{EvalOptions, run_eval};

use crate::agent_backend;
use crate::context::Context;
use crate::error::{CliError, Outcome};

use json::EvalJson;
pub(super) use json::RecordJson;
use report::Report;

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Session ids, unique prefixes of them (any case), or paths.
    #[arg(add = crate::complete::sessions(), required_unless_present = "all")]
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
    /// Says what evaluated besides the judge, in each record.
    by: String,
}

pub fn run(ctx: &Context, args: &EvalArgs) -> anyhow::Result<Outcome> {
    let ev = evaluators(ctx, args)?;
    let (files, skipped) = if args.all {
        crucible_eval::files_with_expectations(&ctx.store)
    } else {
        // Each name must resolve: an ambiguous one is wrong usage (exit 2).
        let files = args
            .sessions
            .iter()
            .map(|q| ctx.store.resolve(q).map_err(CliError::from))
            .collect::<Result<Vec<_>, _>>()?;
        (files, Vec::new())
    };
    let options = EvalOptions {
        replay: ev.replay.as_deref(),
        judge: ev.judge.as_deref(),
        system_prompt: ev.system_prompt.as_deref(),
        budget: ctx.config.session.resume_token_budget,
        by: &ev.by,
        record: !args.no_record,
        skip_unreadable: args.all,
    };
    let mut run = run_eval(&ctx.store, &files, &options).map_err(CliError::from)?;
    for id in &run.nothing_to_evaluate {
        // Named, and nothing in it to evaluate: say so rather than print
        // an empty table that looks like a pass.
        eprintln!(
            "warning: {id}: no phase has an [!expect] callout, so there is nothing to evaluate \
             (docs/eval.md says how to write one)"
        );
    }
    if args.replay {
        crucible_eval::newly_changed_first(&mut run.cases);
    }
    let mut skipped_files = skipped;
    skipped_files.append(&mut run.skipped_files);
    let report = Report {
        cases: run.cases,
        sessions_read: run.sessions_read,
        skipped_files,
        unreadable_named: run.unreadable_named,
    };
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
        by: by.join(", "),
    })
}
