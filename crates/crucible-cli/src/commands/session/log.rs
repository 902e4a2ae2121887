//! `cru session log <kind> ...`: one event into a live session, for hooks,
//! scripts and agents that are not written in Rust.

use std::io::Read;

use clap::{Args, Subcommand};
use crucible_core::{AgentRef, Recorder, SubagentMode, Task};

use super::IdFormat;
use super::start::print_id;
use crate::context::Context;
use crate::error::{CliError, Outcome};

#[derive(Debug, Args)]
pub struct LogArgs {
    /// The session to log to (an id, a unique prefix, or a path).
    #[arg(add = crate::complete::sessions(), long, env = "CRU_SESSION", global = true, value_name = "ID")]
    pub session: Option<String>,
    /// Log to a session that already ended, making it active again.
    #[arg(long, global = true)]
    pub reopen: bool,
    #[command(subcommand)]
    pub kind: LogKind,
}

#[derive(Debug, Subcommand)]
pub enum LogKind {
    /// Start a phase: `## NAME @agent #channel`.
    Phase {
        name: String,
        /// The agent of the phase, as name or name@version.
        #[arg(long, value_name = "NAME@VERSION")]
        agent: Option<AgentRef>,
        /// The phase's channel (default: the session's).
        #[arg(long)]
        channel: Option<String>,
        /// Nest the phase in the current one (one heading level deeper).
        #[arg(long)]
        nested: bool,
    },
    /// A tool call: `- `TOOL ARGS` → RESULT`.
    Tool {
        /// The tool's name (bash, read, edit, ...).
        tool: String,
        /// Its arguments, as one string (may start with `-`).
        #[arg(default_value = "", allow_hyphen_values = true)]
        args: String,
        /// The result; summarised to one line of at most 100 characters. `-` reads stdin.
        #[arg(long)]
        result: Option<String>,
        /// The call failed (its summary is marked ✗).
        #[arg(long)]
        failed: bool,
        /// The tool's exit code: anything but 0 marks the call failed.
        #[arg(long, allow_negative_numbers = true)]
        exit_code: Option<i64>,
    },
    /// A decision and why (`> [!decision]`). `-` reads stdin.
    Decision { text: String },
    /// An error (`> [!error]`), with how it was resolved when known. `-` reads stdin.
    Error {
        text: String,
        /// How the error was resolved (kept in the callout).
        #[arg(long)]
        resolution: Option<String>,
    },
    /// A user's intervention: their exact words, quoted (`> [!user]`). `-` reads stdin.
    User {
        quote: String,
        /// What was made of it.
        #[arg(long)]
        interpretation: Option<String>,
    },
    /// An agent's reply (`> [!reply] @agent`), kept whole, markdown and all.
    /// `-` reads stdin.
    Reply {
        text: String,
        /// The agent that replied, as name or name@version.
        #[arg(long)]
        agent: Option<AgentRef>,
    },
    /// A subagent. link and embed create its own session and print its id;
    /// log to it with --session, end it with `cru session end`.
    Subagent {
        /// The subagent, as name or name@version.
        #[arg(long, value_name = "NAME@VERSION")]
        agent: AgentRef,
        /// The model the subagent runs on.
        #[arg(long)]
        model: Option<String>,
        /// inline, link or embed (default: [session] subagent_mode, else link).
        #[arg(long, value_parser = parse_mode)]
        mode: Option<SubagentMode>,
        /// What the subagent was asked to do.
        #[arg(long, default_value = "")]
        task: String,
        /// inline: the subagent's work (markdown). `-` reads stdin.
        #[arg(long)]
        content: Option<String>,
        /// inline: a summary of the work.
        #[arg(long)]
        summary: Option<String>,
        /// How to print a new child session.
        #[arg(long, value_enum, default_value_t = IdFormat::Text)]
        format: IdFormat,
    },
    /// Replace the task list with a JSON array of {id, content, status,
    /// priority} (or {"todos": [...]}) from FILE or stdin.
    Tasks {
        /// The JSON file; `-` reads stdin.
        #[arg(default_value = "-")]
        file: String,
    },
    /// Tokens this session used: one number (added to tokens_used and the
    /// phase's tokens, kind unknown), or one model request's tokens by kind
    /// (--input, --output, ...: a usage record of the current phase).
    Tokens {
        /// A plain count, when the kinds are not known.
        #[arg(value_parser = token_count)]
        tokens: Option<u64>,
        /// Input tokens not read from a cache.
        #[arg(long, value_name = "N", value_parser = token_count)]
        input: Option<u64>,
        #[arg(long, value_name = "N", value_parser = token_count)]
        output: Option<u64>,
        /// Input tokens read from a cache.
        #[arg(long, value_name = "N", value_parser = token_count)]
        cache_read: Option<u64>,
        /// Input tokens written to a cache.
        #[arg(long, value_name = "N", value_parser = token_count)]
        cache_creation: Option<u64>,
        /// The model that answered.
        #[arg(long)]
        model: Option<String>,
    },
}

/// A count of tokens ([`crucible_core::parse_token_count`]).
fn token_count(s: &str) -> Result<u64, String> {
    crucible_core::parse_token_count(s).map_err(|why| format!("`{s}` is {why}"))
}

fn parse_mode(s: &str) -> Result<SubagentMode, String> {
    SubagentMode::parse(s).ok_or_else(|| format!("`{s}` is not one of inline, link, embed"))
}

/// `-` means standard input.
fn text(arg: &str) -> anyhow::Result<String> {
    if arg != "-" {
        return Ok(arg.to_owned());
    }
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s)?;
    Ok(s)
}

/// The session named on the command line (or in `$CRU_SESSION`, which clap
/// has already read into it); `how` says how this command takes one.
pub fn session_query(given: Option<&str>, how: &str) -> Result<String, CliError> {
    given.map(str::to_owned).ok_or_else(|| {
        CliError::new("which session? none given").with_hint(format!(
            "{how}, or export CRU_SESSION=ID (the id `cru session start` printed)"
        ))
    })
}

fn read_tasks(source: &str) -> anyhow::Result<Vec<Task>> {
    let raw = if source == "-" {
        text("-")?
    } else {
        std::fs::read_to_string(source).map_err(|e| CliError::new(format!("{source}: {e}")))?
    };
    let where_ = if source == "-" { "stdin" } else { source };
    let value: serde_json::Value = serde_json::from_str(&raw)
        .map_err(|e| CliError::new(format!("{where_}:{}: not JSON: {e}", e.line())))?;
    // Seed 003's todos.json wraps the list; Claude Code's TodoWrite items have no id.
    let items = match value {
        serde_json::Value::Object(mut o) if o.contains_key("todos") => {
            o.remove("todos").unwrap_or_default()
        }
        v => v,
    };
    let serde_json::Value::Array(items) = items else {
        return Err(CliError::new(format!(
            "{where_}: expected a JSON array of tasks (or {{\"todos\": [...]}})"
        ))
        .into());
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, mut item)| {
            if let Some(o) = item.as_object_mut() {
                let id = match o.get("id") {
                    Some(serde_json::Value::Number(n)) => n.to_string(),
                    Some(serde_json::Value::String(s)) => s.clone(),
                    _ => (i + 1).to_string(),
                };
                o.insert("id".into(), id.into());
            }
            serde_json::from_value(item)
                .map_err(|e| CliError::new(format!("{where_}: task {}: {e}", i + 1)).into())
        })
        .collect()
}

pub fn run(ctx: &Context, args: &LogArgs) -> anyhow::Result<Outcome> {
    log(ctx, args, Stdin::Dash)?;
    Ok(Outcome::Success)
}

/// Whether a text given as `-` means standard input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stdin {
    Dash,
    /// `cru mcp`: standard input is the protocol's, and `-` is just text.
    Never,
}

impl Stdin {
    fn text(self, arg: &str) -> anyhow::Result<String> {
        match self {
            Self::Dash => text(arg),
            Self::Never => Ok(arg.to_owned()),
        }
    }
}

/// Writes the event `args` describes into its session.
pub fn log(ctx: &Context, args: &LogArgs, stdin: Stdin) -> anyhow::Result<()> {
    let text = |arg: &str| stdin.text(arg);
    let query = session_query(args.session.as_deref(), "pass --session ID")?;
    let mut rec = Recorder::open(&ctx.store, &query, &ctx.config.session, args.reopen)
        .map_err(CliError::from)?;
    let result = match &args.kind {
        LogKind::Phase {
            name,
            agent,
            channel,
            nested,
        } => {
            if *nested {
                rec.nested_phase(name, agent.clone(), channel.clone())
                    .map(drop)
            } else {
                rec.phase(name, agent.clone(), channel.clone()).map(drop)
            }
        }
        LogKind::Tool {
            tool,
            args: tool_args,
            result,
            failed,
            exit_code,
        } => {
            let result = result.as_deref().map(&text).transpose()?;
            let failed = *failed || exit_code.is_some_and(|c| c != 0);
            rec.tool_call(tool, tool_args, result.as_deref(), failed)
        }
        LogKind::Decision { text: t } => rec.decision(&text(t)?),
        LogKind::Error {
            text: t,
            resolution,
        } => rec.error(&text(t)?, resolution.as_deref()),
        LogKind::User {
            quote,
            interpretation,
        } => rec.user(&text(quote)?, interpretation.as_deref()),
        LogKind::Reply { text: reply, agent } => rec.reply(agent.clone(), &text(reply)?),
        LogKind::Subagent {
            agent,
            model,
            mode,
            task,
            content,
            summary,
            format,
        } => {
            let mode = mode.unwrap_or(ctx.config.session.subagent_mode);
            if mode == SubagentMode::Inline {
                let content = content
                    .as_deref()
                    .map(&text)
                    .transpose()?
                    .unwrap_or_default();
                rec.inline_subagent(
                    Some(agent.clone()),
                    model.clone(),
                    task,
                    &content,
                    summary.as_deref(),
                )
            } else {
                if content.is_some() || summary.is_some() {
                    return Err(CliError::new(format!("--content and --summary are for inline subagents; a {mode} subagent reports its summary with `cru session end --summary`")).into());
                }
                let child = rec
                    .start_subagent(Some(mode), agent.clone(), model.clone(), task)
                    .map_err(CliError::from)?;
                print_id(*format, child.id().as_str(), child.path())?;
                child.close()
            }
        }
        LogKind::Tasks { file } => rec.tasks(read_tasks(file)?),
        k @ LogKind::Tokens { .. } => token_entry(k)?.record(&mut rec),
    };
    result.map_err(CliError::from)?;
    rec.close().map_err(CliError::from)?;
    Ok(())
}

/// What `log tokens` records.
enum TokenEntry {
    /// A plain count, kind unknown.
    Count(u64),
    /// One request's tokens by kind, and the model that answered.
    Request(Option<String>, crucible_core::Tokens),
}

impl TokenEntry {
    fn record<C: crucible_core::SessionCodec>(
        self,
        rec: &mut crucible_core::Recorder<C>,
    ) -> Result<(), crucible_core::RecordError> {
        match self {
            Self::Count(n) => rec.tokens(n),
            Self::Request(model, t) => rec.usage(model, t),
        }
    }
}

/// `log tokens`: a plain count, or one request's kinds and model; not
/// both, not neither.
fn token_entry(kind: &LogKind) -> Result<TokenEntry, CliError> {
    let LogKind::Tokens {
        tokens,
        input,
        output,
        cache_read,
        cache_creation,
        model,
    } = kind
    else {
        unreachable!("called for `log tokens` only");
    };
    let (tokens, model) = (*tokens, model.clone());
    let kinds = [*input, *output, *cache_read, *cache_creation];
    match (tokens, kinds.iter().any(Option::is_some)) {
        (Some(n), false) if model.is_none() => Ok(TokenEntry::Count(n)),
        (None, true) => Ok(TokenEntry::Request(
            model,
            crucible_core::Tokens {
                input: input.unwrap_or(0),
                output: output.unwrap_or(0),
                cache_read: cache_read.unwrap_or(0),
                cache_creation: cache_creation.unwrap_or(0),
                ..crucible_core::Tokens::default()
            },
        )),
        (Some(_), _) => Err(CliError::usage(
            "give either a plain count or the kinds (--input, --output, --cache-read, --cache-creation, --model), not both",
        )),
        (None, false) => Err(CliError::usage(
            "give a count (`cru session log tokens 1200`) or the kinds (`--input 900 --output 300`)",
        )),
    }
}
