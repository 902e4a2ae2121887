//! `cru session eval <ids...|--all> [--judge] [--replay [--agent-cmd CMD] [--system-prompt FILE] [--model M]] [--format table|json] [--no-record]`.
//!
//! Every phase with an `[!expect]` callout is a case. Without `--replay`
//! the case is what the phase did; with it, the phase is run again by the
//! agent (the context before it, then its user's words) and the new run is
//! the case. The checks need no model; `--judge` adds the configured agent
//! as a judge. Each outcome is recorded in its phase as an `[!eval]`
//! callout (not with `--no-record`), and the table says how each verdict
//! compares with the last one recorded. Exit 1 when any case failed.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use crucible_agent::AgentBackend;
use crucible_core::{Block, PhaseId, SessionLog, Timestamp};
use crucible_eval::{Actual, EvalRecord, Verdict, check, expectation_of, judge, last_verdict};
use serde::Serialize;

use crate::agent_backend;
use crate::context::Context;
use crate::error::{CliError, Outcome};

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Session ids, unique prefixes of them (any case), or paths.
    #[arg(required_unless_present = "all")]
    pub sessions: Vec<String>,
    /// Every session that has an `[!expect]` callout.
    #[arg(long, conflicts_with = "sessions")]
    pub all: bool,
    /// Also ask a judge whether each result meets the expected result in
    /// words: --judge-cmd, else the [agent] of the configuration.
    #[arg(long)]
    pub judge: bool,
    /// The judge: a command run with `sh -c` that reads the question on
    /// stdin and prints `PASS: <reason>` or `FAIL: <reason>`.
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
    /// Every case with its checks and the judge's reason.
    Json,
}

/// One evaluated phase.
#[derive(Debug, Serialize)]
struct Case {
    session: String,
    phase: String,
    /// The last verdict recorded before this run.
    was: Option<Verdict>,
    /// `None`: nothing to check without a judge.
    #[serde(flatten)]
    record: Option<EvalRecord>,
    /// Why the case could not be evaluated (a bad `[!expect]`, an agent
    /// that failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

impl Case {
    fn verdict(&self) -> Option<Verdict> {
        if self.error.is_some() {
            return Some(Verdict::Error);
        }
        self.record.as_ref().map(|r| r.verdict)
    }

    fn failed(&self) -> bool {
        matches!(self.verdict(), Some(Verdict::Failed | Verdict::Error))
    }
}

/// What evaluates: the replaying agent and the judge, when asked for.
struct Evaluators {
    replay: Option<Box<dyn AgentBackend>>,
    judge: Option<Box<dyn AgentBackend>>,
    system_prompt: Option<String>,
    budget: u64,
    /// Says what evaluated, in each record.
    by: String,
}

pub fn run(ctx: &Context, args: &EvalArgs) -> anyhow::Result<Outcome> {
    let ev = evaluators(ctx, args)?;
    let targets = targets(ctx, args)?;
    let mut cases: Vec<Case> = Vec::new();
    let mut unreadable = 0;
    for target in &targets {
        let (path, log) = match ctx.store.load(target) {
            Ok(found) => found,
            Err(e) => {
                eprintln!("error: {e}");
                unreadable += 1;
                continue;
            }
        };
        let mut records: Vec<(usize, EvalRecord)> = Vec::new();
        for (id, phase) in log.phases() {
            let Some(expect) = expectation_of(phase) else {
                continue;
            };
            let mut case = Case {
                session: log.id().to_string(),
                phase: id.to_string(),
                was: last_verdict(phase),
                record: None,
                error: None,
            };
            match expect {
                Err(e) => case.error = Some(format!("{}: {id}: {e}", path.display())),
                Ok(e) => match evaluate(&ev, &log, id, &e) {
                    Ok(record) => case.record = record,
                    Err(msg) => case.error = Some(msg),
                },
            }
            if let Some(r) = &case.record {
                records.push((id.index(), r.clone()));
            }
            cases.push(case);
        }
        if !records.is_empty() && !args.no_record {
            record(ctx, &path, &records)?;
        }
    }
    if args.all && cases.is_empty() && unreadable == 0 {
        eprintln!("no phase has an [!expect] callout (see docs/eval.md)");
    }
    if args.replay {
        // What changed first: newly failing, then newly passing.
        cases.sort_by_key(|c| match (c.was, c.verdict()) {
            (Some(Verdict::Passed), Some(Verdict::Failed | Verdict::Error)) => 0,
            (Some(Verdict::Failed | Verdict::Error), Some(Verdict::Passed)) => 1,
            (None, Some(Verdict::Failed | Verdict::Error)) => 2,
            _ => 3,
        });
    }
    match args.format {
        EvalFormat::Json => crate::render::print_json(&cases)?,
        EvalFormat::Table if cases.is_empty() => {}
        EvalFormat::Table => {
            let mut out = crate::render::data_out();
            table(&mut out, &cases)?;
            out.flush()?;
        }
    }
    if args.replay {
        let newly_failing = cases
            .iter()
            .filter(|c| c.was == Some(Verdict::Passed) && c.failed())
            .count();
        let newly_passing = cases
            .iter()
            .filter(|c| {
                matches!(c.was, Some(Verdict::Failed | Verdict::Error))
                    && c.verdict() == Some(Verdict::Passed)
            })
            .count();
        eprintln!(
            "against the last recorded verdicts: {newly_failing} newly failing, {newly_passing} newly passing"
        );
    }
    let failed = cases.iter().filter(|c| c.failed()).count();
    let errors = cases
        .iter()
        .filter(|c| c.verdict() == Some(Verdict::Error))
        .count();
    let checked = cases.iter().filter(|c| c.verdict().is_some()).count();
    eprintln!(
        "{} {}: {} passed, {} failed{}{}",
        checked,
        crate::render::plural(checked, "case", "cases"),
        checked - failed,
        failed - errors,
        match errors {
            0 => String::new(),
            n => format!(
                ", {n} {} (agent or judge failed)",
                crate::render::plural(n, "error", "errors")
            ),
        },
        match cases.len() - checked {
            0 => String::new(),
            n => format!(", {n} with nothing to check without --judge"),
        }
    );
    Ok(if failed > 0 || unreadable > 0 {
        Outcome::Failure
    } else {
        Outcome::Success
    })
}

fn evaluators(ctx: &Context, args: &EvalArgs) -> anyhow::Result<Evaluators> {
    let mut by = vec![if args.replay { "replay" } else { "checks" }.to_owned()];
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
        by.push(format!("judge {}", b.describe()));
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

/// The sessions named, or with `--all` every one whose text has an
/// `[!expect` callout (the others are not even parsed).
fn targets(ctx: &Context, args: &EvalArgs) -> anyhow::Result<Vec<String>> {
    if !args.all {
        return Ok(args.sessions.clone());
    }
    let mut out = Vec::new();
    for f in ctx.store.scan() {
        match f {
            Ok(f) => {
                let bytes = ctx.store.read_bytes(&f.path).unwrap_or_default();
                if memchr::memmem::find(&bytes, b"[!expect").is_some() {
                    out.push(f.path.display().to_string());
                }
            }
            Err(e) => eprintln!("warning: {e}; skipped"),
        }
    }
    Ok(out)
}

/// One case: the phase as recorded, or a new run of it; its checks and the
/// judge's answer. `Ok(None)`: nothing to check without a judge.
fn evaluate(
    ev: &Evaluators,
    log: &SessionLog,
    id: PhaseId,
    e: &crucible_eval::Expectation,
) -> Result<Option<EvalRecord>, String> {
    let phase = log.phase(id).ok_or("no such phase")?;
    if !e.has_checks() && ev.judge.is_none() {
        return Ok(None);
    }
    let actual: Actual = match &ev.replay {
        None => Actual::of_phase(phase),
        Some(agent) => {
            crucible_eval::replay::run_phase(
                agent.as_ref(),
                log,
                id.index(),
                ev.system_prompt.as_deref(),
                ev.budget,
            )
            .map_err(|err| format!("{}: {id}: the agent failed: {err}", log.id()))?
            .actual
        }
    };
    let checks = check(e, &actual);
    let verdict = ev.judge.as_ref().map(|j| {
        let input = crucible_eval::replay::input_of(phase);
        judge::judge(j.as_ref(), &input, e, &actual).map_err(|err| err.to_string())
    });
    Ok(Some(EvalRecord::new(
        checks,
        verdict,
        ev.by.clone(),
        Timestamp::now(),
    )))
}

/// Appends each record to its phase, in one locked write.
fn record(ctx: &Context, path: &Path, records: &[(usize, EvalRecord)]) -> anyhow::Result<()> {
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

fn table(out: &mut impl Write, cases: &[Case]) -> std::io::Result<()> {
    let mark = |ok: bool| if ok { "✓" } else { "✗" };
    let rows: Vec<[String; 6]> = cases
        .iter()
        .map(|c| {
            let checks = c.record.as_ref().map_or_else(
                || "–".to_owned(),
                |r| {
                    if r.checks.is_empty() {
                        "–".to_owned()
                    } else {
                        r.checks
                            .iter()
                            .map(|k| format!("{} {}", k.kind.as_str(), mark(k.passed)))
                            .collect::<Vec<_>>()
                            .join(" ")
                    }
                },
            );
            let judge = match &c.record {
                Some(r) if r.judge_error.is_some() => "error".to_owned(),
                Some(r) => r.judge.as_ref().map_or("–", |j| mark(j.passed)).to_owned(),
                None => "–".to_owned(),
            };
            [
                c.session.clone(),
                c.phase.clone(),
                checks,
                judge,
                c.was.map_or("–", Verdict::as_str).to_owned(),
                c.verdict().map_or("unchecked", Verdict::as_str).to_owned(),
            ]
        })
        .collect();
    let head = ["session", "phase", "checks", "judge", "was", "verdict"];
    let mut w = head.map(str::len);
    for r in &rows {
        for (i, cell) in r.iter().enumerate() {
            w[i] = w[i].max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 6]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            if i + 1 == cells.len() {
                s.push_str(c);
            } else {
                let pad = w[i].saturating_sub(c.chars().count());
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            }
        }
        s
    };
    writeln!(out, "{}", line(head))?;
    for r in &rows {
        writeln!(out, "{}", line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]]))?;
    }
    for c in cases {
        if let Some(e) = &c.error {
            writeln!(out, "\n{e}")?;
        }
        if let Some(r) = &c.record {
            for k in r.checks.iter().filter(|k| !k.passed) {
                writeln!(
                    out,
                    "\n{} {}: {} ✗ {}",
                    c.session,
                    c.phase,
                    k.kind.as_str(),
                    k.detail
                )?;
            }
            if let Some(j) = r.judge.as_ref().filter(|j| !j.passed) {
                writeln!(out, "\n{} {}: judge ✗ {}", c.session, c.phase, j.reason)?;
            }
            if let Some(e) = &r.judge_error {
                writeln!(out, "\n{} {}: judge error: {e}", c.session, c.phase)?;
            }
        }
    }
    Ok(())
}
