//! `cru session ...`.

mod codify;
mod end;
mod eval;
mod export;
mod import;
mod index;
mod learn;
mod list;
mod log;
mod pause;
mod query;
mod replay;
mod resume;
mod show;
mod start;
mod stats;
mod validate;

use clap::{Subcommand, ValueEnum};

use crate::cli::GlobalArgs;
use crate::context::Context;
use crate::error::Outcome;

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// Start recording a new session; prints its id.
    Start(start::StartArgs),
    /// Log an event to a live session: phase, tool, decision, error, user,
    /// subagent, tasks, tokens.
    Log(log::LogArgs),
    /// Pause a session at its current phase (or --at one); or --idle ones.
    Pause(pause::PauseArgs),
    /// Resume a paused session: show its context, or continue it with an
    /// agent (--agent-cmd or [agent] in config). No id: list resumable ones.
    Resume(resume::ResumeArgs),
    /// Turn sessions into a reusable workflow (workflow markup); several
    /// sessions of one task merge. No id: the newest session.
    Codify(codify::CodifyArgs),
    /// Learning cases: puzzles from errors, corrections from user
    /// interventions; as SFT/DPO/ShareGPT JSONL, markdown or puzzles.
    Learn(learn::LearnArgs),
    /// Import other agents' sessions: Claude Code, Codex, Gemini CLI,
    /// GitHub Copilot CLI, OpenCode, ConnectOnion YAML, codeloops JSONL,
    /// .agent/sessions folders, OpenAI messages.
    Import(import::ImportArgs),
    /// Write a session out for another tool: a Claude Code transcript, a
    /// Codex rollout, ConnectOnion YAML, codeloops JSONL, an .agent/sessions
    /// folder, or OpenAI messages.
    Export(export::ExportArgs),
    /// Evaluate phases against their [!expect] callouts: deterministic
    /// checks, an LLM judge (--judge), or new runs (--replay); exit 1 on a
    /// failure.
    Eval(eval::EvalArgs),
    /// Run one phase again with its context, record the run as a linked
    /// session, and show what changed.
    Replay(replay::ReplayArgs),
    /// End a session as completed or failed.
    End(end::EndArgs),
    /// List sessions, newest first, from the index.
    List(list::ListArgs),
    /// Totals by agent, channel, status, model, day or phase.
    Stats(stats::StatsArgs),
    /// Rebuild the index (picks up edits made outside cru), or --check it.
    Index(index::IndexArgs),
    /// Show a session: its metadata, phases, tool calls and callouts.
    Show(show::ShowArgs),
    /// Check session files against the format; exit 1 if any is invalid.
    Validate(validate::ValidateArgs),
}

pub fn run(cmd: SessionCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let mut ctx = Context::load(global)?;
    match &cmd {
        // These create the directory when they write.
        SessionCommand::Start(_) | SessionCommand::Import(_) => {}
        // A hook: its speed matters, and the session it writes to is the
        // one it started, named after its id.
        SessionCommand::Log(_) => ctx.store = ctx.store.trusting_file_names(),
        _ => ctx.require_dir()?,
    }
    match cmd {
        SessionCommand::Start(args) => start::run(&ctx, &args),
        SessionCommand::Log(args) => log::run(&ctx, &args),
        SessionCommand::Pause(args) => pause::run(&ctx, &args),
        SessionCommand::Resume(args) => resume::run(&ctx, &args),
        SessionCommand::Codify(args) => codify::run(&ctx, &args),
        SessionCommand::Learn(args) => learn::run(&ctx, &args),
        SessionCommand::Import(args) => import::run(&ctx, &args),
        SessionCommand::Export(args) => export::run(&ctx, &args),
        SessionCommand::Eval(args) => eval::run(&ctx, &args),
        SessionCommand::Replay(args) => replay::run(&ctx, &args),
        SessionCommand::End(args) => end::run(&ctx, &args),
        SessionCommand::List(args) => list::run(&ctx, &args),
        SessionCommand::Stats(args) => stats::run(&ctx, &args),
        SessionCommand::Index(args) => index::run(&ctx, &args),
        SessionCommand::Show(args) => show::run(&ctx, &args),
        SessionCommand::Validate(args) => validate::run(&ctx, &args),
    }
}

/// How a command that creates a session prints it.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum IdFormat {
    /// The id alone.
    Text,
    /// `{"version": 1, "id": ..., "path": ...}` on one line (docs/json.md).
    Json,
}
