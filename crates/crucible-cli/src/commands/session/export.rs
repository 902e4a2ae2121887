//! `cru session export <id|path> --to connectonion|codeloops|agent-dir|openai-messages|codex [--output PATH] [--force] [--redact]`,
//! and `cru session export [<id|path>...] [--all|--since-last] [filters] --to otlp [--endpoint URL] [--header K=V]
//! [--protocol P] [--no-redact]` (the [`otlp`] module).

pub(crate) mod otlp;
mod otlp_batches;
mod otlp_map;
pub(crate) mod otlp_settings;
mod otlp_summary;

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use crucible_interop::{Exported, Format};

use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::workflow_stages::write_file;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// A session id, a unique prefix of one (any case), or a path to a
    /// file. With `--to otlp`, any number of them (none: `--all` or
    /// `--since-last` with the filters).
    #[arg(add = crate::complete::sessions())]
    pub sessions: Vec<String>,
    /// The format to write.
    #[arg(long, value_enum)]
    pub to: To,
    /// Where to write: a file (stdout when left out); for agent-dir, the
    /// sessions folder the `<YYYY-MM-DD-HH-MM-SS>/` folder goes in
    /// (default `.agent/sessions`); for codex, the sessions folder the
    /// `<YYYY>/<MM>/<DD>/` folder goes in (`~/.codex/sessions`; `--force`
    /// when that day's folder exists: its other files are left alone).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Replace a file or folder that exists.
    #[arg(long)]
    pub force: bool,
    /// Replace secrets (API keys, tokens, passwords) with `[REDACTED:<kind>]`.
    /// Off by default: export is a format conversion of your own data; turn
    /// it on for anything you share.
    #[arg(long)]
    pub redact: bool,
    #[command(flatten)]
    pub otlp: otlp::OtlpArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum To {
    /// ConnectOnion `.co/sessions/<agent>.yaml` (seed 000 layout).
    Connectonion,
    /// codeloops JSONL: session_start, iterations, session_end.
    Codeloops,
    /// An `.agent/sessions/<YYYY-MM-DD-HH-MM-SS>/` folder: agent.log, todos.json.
    AgentDir,
    /// A JSON array of OpenAI chat-completions messages.
    OpenaiMessages,
    /// A Claude Code transcript (`~/.claude/projects/<slug>/<sessionId>.jsonl`).
    ClaudeCode,
    /// A Codex rollout, `<YYYY>/<MM>/<DD>/rollout-<time>-<uuid>.jsonl`
    /// below `--output` (give `~/.codex/sessions` for `codex resume`).
    Codex,
    /// OpenTelemetry traces sent over OTLP/HTTP to an engine (Phoenix,
    /// Langfuse, Jaeger, Tempo...): one trace per session (docs/otel.md).
    Otlp,
}

impl To {
    fn format(self) -> Format {
        match self {
            Self::Otlp => unreachable!("OTLP is sent by the otlp module, not written as a file"),
            Self::Connectonion => Format::ConnectOnion,
            Self::Codeloops => Format::Codeloops,
            Self::AgentDir => Format::AgentDir,
            Self::OpenaiMessages => Format::OpenAiMessages,
            Self::ClaudeCode => Format::ClaudeCode,
            Self::Codex => Format::Codex,
        }
    }
}

pub fn run(ctx: &Context, args: &ExportArgs) -> anyhow::Result<Outcome> {
    if matches!(args.to, To::Otlp) {
        otlp::refuse_file_flags(args.output.is_some(), args.force, args.redact)?;
        return otlp::run(ctx, &args.sessions, &args.otlp);
    }
    if args.otlp.is_used() {
        return Err(CliError::usage(
            "--all, --since-last, the filters, --endpoint, --header, --protocol and --no-redact go with --to otlp",
        )
        .into());
    }
    let [session] = args.sessions.as_slice() else {
        return Err(CliError::usage(format!(
            "--to {} writes one session; {} given",
            args.to
                .to_possible_value()
                .expect("no variant is skipped")
                .get_name(),
            args.sessions.len()
        ))
        .with_hint("give one session id, or use --to otlp for several")
        .into());
    };
    let (path, mut log) = ctx.store.load(session).map_err(CliError::from)?;
    // A sidecar that does not match the session is not used (its results
    // would go on the wrong calls) and the export stops: better no file
    // than one that says what the source did not.
    let mut data = ctx
        .store
        .load_data_for(&path, &log)
        .map_err(|e| {
            CliError::new(e.to_string()).with_hint(
                "`cru session validate` says what is wrong; move the sidecar away to export from the markdown alone",
            )
        })?
        .unwrap_or_default();
    if args.redact {
        log.redact(crucible_redact::Redactor::shared());
        data.redact(crucible_redact::Redactor::shared());
    }
    let exported = crucible_interop::export(&log, &data, args.to.format())
        .map_err(|e| CliError::new(e.to_string()))?;
    match exported {
        Exported::File(bytes) => {
            if let Some(path) = &args.output {
                let text = String::from_utf8_lossy(&bytes);
                write_file(path, &text, args.force)?;
                eprintln!("wrote {}", path.display());
            } else {
                let mut out = crate::render::data_out();
                out.write_all(&bytes)?;
                out.flush()?;
            }
        }
        Exported::Folder { name, files } => {
            let parent = args
                .output
                .clone()
                .unwrap_or_else(|| Path::new(".agent").join("sessions"));
            let dir = parent.join(&name);
            if dir.exists() && !args.force {
                return Err(CliError::new(format!("{} exists already", dir.display()))
                    .with_hint("pass --force to replace its files")
                    .into());
            }
            std::fs::create_dir_all(&dir)
                .map_err(|e| CliError::new(format!("{}: cannot create: {e}", dir.display())))?;
            for (file, bytes) in files {
                let text = String::from_utf8_lossy(&bytes);
                write_file(&dir.join(file), &text, true)?;
            }
            println!("{}", dir.display());
        }
    }
    Ok(Outcome::Success)
}
