//! `cru session ...`.

pub(crate) mod codify;
pub(crate) mod end;
mod eval;
pub(crate) mod export;
pub(crate) mod import;
mod index;
pub(crate) mod learn;
pub(crate) mod list;
pub(crate) mod log;
pub(crate) mod pause;
mod pick;
pub(crate) mod query;
mod replay;
pub(crate) mod resume;
pub(crate) mod search;
pub(crate) mod show;
pub(crate) mod start;
pub(crate) mod stats;
mod validate;

use clap::{Subcommand, ValueEnum};

use crate::cli::GlobalArgs;
use crate::context::Context;
use crate::error::Outcome;

/// The exit status of each command (the rule is in docs/cli.md): shown by
/// `cru session X --help` and generated into docs/cli.md by `cargo xtask
/// docs`, so the two cannot drift apart.
mod exit_status {
    pub const START: &str =
        "Exit status:\n  0  started\n  1  the session cannot be written\n  2  a bad flag";
    pub const LOG: &str = "Exit status:\n  0  always, even on an error (printed on stderr): a hook never stops an agent";
    pub const PAUSE: &str = "Exit status:\n  0  paused\n  1  no such session\n  2  a bad flag; `pause ID --idle`; an ambiguous or shared id";
    pub const RESUME: &str = "Exit status:\n  0  the context shown, or the run went on\n  1  no such session; no paused or active session matches `--query`; the agent failed\n  2  a bad flag; an ambiguous or shared id; a bad `--query` (the column named), or one asking for an ended status";
    pub const CODIFY: &str = "Exit status:\n  0  written\n  1  no such session; an error; a refinement rejected (the original kept)\n  2  a bad flag; an ambiguous or shared id; several tasks with one `-o FILE`";
    pub const LEARN: &str = "Exit status:\n  0  written\n  1  no such session; an error\n  2  a bad flag; an ambiguous or shared id\n  3  written, but session files that could not be read were left out";
    pub const IMPORT: &str = "Exit status:\n  0  every source imported (or unchanged)\n  1  nothing to import; an error\n  2  a bad flag or `--from` value\n  3  imported, but some sources were skipped (`--strict`: any skipped record refuses the source)";
    pub const EXPORT: &str = "Exit status:\n  0  written; with --to otlp: every due part sent (or nothing due)\n  1  no such session; the target exists (without `--force`); with --to otlp: sessions not sent (named; `--since-last` sends them later), a named session that cannot be read, the sent-record cannot be written\n  2  a bad flag, URL, header or OTEL_* variable; an ambiguous or shared id; flags that do not go together\n  3  with --to otlp: sent, but session files that could not be read, or that declare another file's id, were left out";
    pub const EVAL: &str = "Exit status:\n  0  every verdict `pass`\n  1  a verdict `fail` or `error`; a named session that cannot be loaded\n  2  a bad flag; an ambiguous or shared id\n  3  with `--all`: every case passed, but files that could not be read were left out";
    pub const REPLAY: &str = "Exit status:\n  0  the phase ran again\n  1  no such session or phase; the agent failed; with `--eval`, a verdict other than `pass`\n  2  a bad flag or `--phase` value; an ambiguous or shared id";
    pub const END: &str = "Exit status:\n  0  ended\n  1  no such session; a session that already ended\n  2  a bad flag; an ambiguous or shared id";
    pub const LIST: &str = "Exit status:\n  0  answered\n  1  the directory is missing, or every session file could not be read\n  2  a bad flag or filter value (`--since yesterday-ish`)\n  3  answered, but files that could not be read were left out";
    pub const INDEX: &str = "Exit status:\n  0  rebuilt\n  1  every session file unreadable; with `--check`, any unreadable file or shared id, or a search index that cannot be used or holds parts of a file gone that its manifest does not name\n  2  a bad flag\n  3  rebuilt, but unreadable files were left out";
    pub const SHOW: &str = "Exit status:\n  0  shown\n  1  no such session, a file that cannot be read, the directory is missing\n  2  a bad flag; an id prefix of several sessions; an id two files declare; `#phase-N` naming no phase of the session";
    pub const VALIDATE: &str = "Exit status:\n  0  every file valid\n  1  a file invalid or unreadable (what validate checks), a target that names no file\n  2  a bad flag";
    pub const SEARCH: &str = "Exit status:\n  0  answered, hits or none (`no sessions match`); with `--open`, the editor exited 0 (or no hit)\n  1  the directory is missing; the search index cannot be written or read; with `--open`, the editor could not start or exited non-zero\n  2  a bad flag or query (the column named)\n  3  answered, but session files that could not be read were left out";
    pub const PICK: &str = "Exit status:\n  0  a session chosen (its id printed), or the plain list printed (files that could not be read named on stderr)\n  1  the plain list: the directory is missing or cannot be read\n  2  a bad flag or filter value; Esc or Ctrl-C in the picker";
    /// `stats` answers like `list`.
    pub const STATS: &str = LIST;
}

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// Start recording a new session; prints its id.
    #[command(after_long_help = exit_status::START)]
    Start(start::StartArgs),
    /// Log an event to a live session: phase, tool, decision, error, user,
    /// subagent, tasks, tokens.
    #[command(after_long_help = exit_status::LOG)]
    Log(log::LogArgs),
    /// Pause a session at its current phase (or --at one); or --idle ones.
    #[command(after_long_help = exit_status::PAUSE)]
    Pause(pause::PauseArgs),
    /// Resume a paused session: show its context, or continue it with an
    /// agent (--agent-cmd or [agent] in config). No id: list resumable ones.
    #[command(after_long_help = exit_status::RESUME)]
    Resume(resume::ResumeArgs),
    /// Choose a session in a full-screen picker (type to filter) and print
    /// its id; a plain list when stdin or stdout is not a terminal.
    #[command(after_long_help = exit_status::PICK)]
    Pick(pick::PickArgs),
    /// Turn sessions into a reusable workflow (workflow markup); several
    /// sessions of one task merge. No id: the newest session.
    #[command(after_long_help = exit_status::CODIFY)]
    Codify(codify::CodifyArgs),
    /// Learning cases: puzzles from errors, corrections from user
    /// interventions; as SFT/DPO/ShareGPT JSONL, markdown or puzzles.
    #[command(after_long_help = exit_status::LEARN)]
    Learn(learn::LearnArgs),
    /// Import other agents' sessions: Claude Code, Codex, Gemini CLI,
    /// GitHub Copilot CLI, OpenCode, ConnectOnion YAML, codeloops JSONL,
    /// .agent/sessions folders, OpenAI messages.
    #[command(after_long_help = exit_status::IMPORT)]
    Import(import::ImportArgs),
    /// Write a session out for another tool: a Claude Code transcript, a
    /// Codex rollout, ConnectOnion YAML, codeloops JSONL, an .agent/sessions
    /// folder, or OpenAI messages; or send sessions to an OpenTelemetry
    /// engine as traces (`--to otlp`).
    #[command(after_long_help = exit_status::EXPORT)]
    Export(export::ExportArgs),
    /// Evaluate phases against their [!expect] callouts: deterministic
    /// checks, an LLM judge (--judge), or new runs (--replay); exit 1 on a
    /// failure.
    #[command(after_long_help = exit_status::EVAL)]
    Eval(eval::EvalArgs),
    /// Run one phase again with its context, record the run as a linked
    /// session, and show what changed.
    #[command(after_long_help = exit_status::REPLAY)]
    Replay(replay::ReplayArgs),
    /// End a session as completed or failed.
    #[command(after_long_help = exit_status::END)]
    End(end::EndArgs),
    /// List sessions, newest first, from the index.
    #[command(after_long_help = exit_status::LIST)]
    List(list::ListArgs),
    /// Totals by agent, channel, status, model, day or phase.
    #[command(after_long_help = exit_status::STATS)]
    Stats(stats::StatsArgs),
    /// Full-text search over every session: words, "phrases", -word, OR,
    /// pars*, field:value; hits as ID#phase-N and file:line.
    #[command(after_long_help = exit_status::SEARCH)]
    Search(search::SearchArgs),
    /// Rebuild the index (picks up edits made outside cru), or --check it.
    #[command(after_long_help = exit_status::INDEX)]
    Index(index::IndexArgs),
    /// Show a session: its metadata, phases, tool calls and callouts.
    #[command(after_long_help = exit_status::SHOW)]
    Show(show::ShowArgs),
    /// Check session files against the format; exit 1 if any is invalid.
    #[command(after_long_help = exit_status::VALIDATE)]
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
        SessionCommand::Pick(args) => pick::run(&ctx, &args),
        SessionCommand::Codify(args) => codify::run(&ctx, &args),
        SessionCommand::Learn(args) => learn::run(&ctx, &args),
        SessionCommand::Import(args) => import::run(&ctx, &args),
        SessionCommand::Export(args) => export::run(&ctx, &args),
        SessionCommand::Eval(args) => eval::run(&ctx, &args),
        SessionCommand::Replay(args) => replay::run(&ctx, &args),
        SessionCommand::End(args) => end::run(&ctx, &args),
        SessionCommand::List(args) => list::run(&ctx, &args),
        SessionCommand::Stats(args) => stats::run(&ctx, &args),
        SessionCommand::Search(args) => search::run(&ctx, &args),
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
