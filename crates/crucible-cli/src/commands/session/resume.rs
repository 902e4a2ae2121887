//! `cru session resume [<id> | --query Q] [--format F] [--max-tokens N] [--agent-cmd CMD] [--model M] [--once]`.
//!
//! Without an id, lists the sessions that can be resumed (and asks for one
//! on a terminal); `--query Q` instead resumes the best paused (else
//! active) session the search query Q matches ([`by_query`]).
//!
//! With `--format`, prints the resume context and changes nothing. With an
//! agent backend, continues the session (see [`run`]): a `Resumed from
//! phase-N` phase is recorded, the context goes to the agent, and its reply
//! is recorded in the same file as a `[!reply]` callout; on a terminal this
//! goes on turn by turn (each line typed recorded as `[!user]`) until EOF or
//! `/pause`. Every run ends with the session paused after its last phase.

mod by_query;
mod json;
mod run;

use std::io::{BufRead, IsTerminal, Write};

use clap::{Args, ValueEnum};
use crucible_core::{ResumeContext, SessionStatus};
use crucible_index::SessionRecord;

use super::query::{FilterArgs, visit_index};
use crate::agent_backend;
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::table::one_line;

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// A session id, a unique prefix of one (any case), or a path. Without
    /// it (and without --query): the sessions that can be resumed, paused
    /// first, newest first.
    #[arg(add = crate::complete::sessions())]
    pub session: Option<String>,
    /// Resume the paused session that best matches this search query (the
    /// query language of `cru session search`; status is paused, else
    /// active): the one chosen and the others that match are named on
    /// stderr. None: exit 1.
    #[arg(long, value_name = "Q", conflicts_with = "session")]
    pub query: Option<String>,
    /// Print the resume context this way and change nothing.
    #[arg(long, value_enum)]
    pub format: Option<ResumeFormat>,
    /// Token budget of the context (default: [session] resume_token_budget).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// The agent to continue with: a command run with `sh -c`, the prompt on
    /// stdin, the reply on stdout, $CRU_MESSAGES_FILE naming the message
    /// array as JSON. Overrides [agent] in the configuration.
    #[arg(long, value_name = "CMD")]
    pub agent_cmd: Option<String>,
    /// The model to ask for (an endpoint is asked for it; a command is told
    /// it in $CRU_MODEL) and to record on the resumed phase when the backend
    /// does not say which model answered. Overrides [agent] model.
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// Stop after the agent's first reply and pause the session (what
    /// happens anyway when stdin is not a terminal).
    #[arg(long)]
    pub once: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ResumeFormat {
    /// For people: what was done, decisions, open tasks, last error, where it stops.
    Text,
    /// The markdown prompt an agent is given.
    Prompt,
    /// An OpenAI chat-completions message array (JSON).
    Messages,
    /// The context itself, as JSON.
    Json,
}

pub fn run(ctx: &Context, args: &ResumeArgs) -> anyhow::Result<Outcome> {
    let query = match (&args.session, &args.query) {
        (Some(q), _) => q.clone(),
        (None, Some(search)) => by_query::choose(ctx, search)?.display().to_string(),
        (None, None) => match choose(ctx)? {
            Some(id) => id,
            None => return Ok(Outcome::ChoiceNeeded),
        },
    };
    let (path, log) = ctx.store.load(&query).map_err(CliError::from)?;
    let budget = args
        .max_tokens
        .unwrap_or(ctx.config.session.resume_token_budget);
    let cx = ResumeContext::build(&log, budget);
    if cx.over_budget {
        eprintln!(
            "warning: the context is over its budget ({} > {} tokens): its framing and \
             decisions alone do not fit, and decisions are never dropped",
            cx.estimated_tokens, cx.budget
        );
    }
    if let Some(format) = args.format {
        print_context(&cx, format)?;
        return Ok(Outcome::Success);
    }
    let model = args.model.as_deref().or(ctx.config.agent.model.as_deref());
    let env = agent_backend::session_env(ctx, log.id().as_str(), &path);
    let Some(backend) =
        agent_backend::configured_with_env(ctx, args.agent_cmd.as_deref(), model, &env)?
    else {
        print_context(&cx, ResumeFormat::Text)?;
        eprintln!(
            "\nNo agent backend is configured, so this is the context only; to continue \
             the session, {}.",
            agent_backend::SETUP_HINT
        );
        return Ok(Outcome::Success);
    };
    if matches!(
        log.frontmatter.status,
        SessionStatus::Completed | SessionStatus::Failed
    ) {
        return Err(CliError::new(format!(
            "session {} has ended ({}); only paused or active sessions are resumed",
            log.id(),
            log.frontmatter.status
        ))
        .with_hint(format!(
            "`cru session resume {} --format prompt` still prints its context",
            log.id()
        ))
        .into());
    }
    let opts = run::RunOptions {
        interactive: !args.once && std::io::stdin().is_terminal(),
        model,
    };
    run::continue_session(ctx, &path, &cx, backend.as_ref(), &opts)
}

/// The context of the session `query` names, as `--format json` prints
/// it, with the prompt an agent is given (`--format prompt`) as `prompt`:
/// what `cru mcp` answers. Changes nothing.
pub fn context_json(
    ctx: &Context,
    query: &str,
    max_tokens: Option<u64>,
) -> anyhow::Result<serde_json::Value> {
    let (_, log) = ctx.store.load(query).map_err(CliError::from)?;
    let budget = max_tokens.unwrap_or(ctx.config.session.resume_token_budget);
    let cx = ResumeContext::build(&log, budget);
    let mut value = serde_json::to_value(json::ResumeJson::of(&cx))?;
    if let Some(o) = value.as_object_mut() {
        o.insert("prompt".into(), cx.prompt().into());
    }
    Ok(value)
}

fn print_context(cx: &ResumeContext, format: ResumeFormat) -> anyhow::Result<()> {
    match format {
        ResumeFormat::Text => {
            let mut out = crate::render::data_out();
            out.write_all(cx.summary_text().as_bytes())?;
            out.flush()?;
        }
        ResumeFormat::Prompt => {
            let mut out = crate::render::data_out();
            out.write_all(cx.prompt().as_bytes())?;
            out.flush()?;
        }
        ResumeFormat::Messages => crate::render::print_json(&cx.messages())?,
        ResumeFormat::Json => crate::render::print_json(&json::ResumeJson::of(cx))?,
    }
    Ok(())
}

/// The sessions that can be resumed: paused ones, then active ones, each
/// newest first. On a terminal (stdin and stdout), the picker; else they
/// are printed, and asked for by number when stdin is a terminal.
fn choose(ctx: &Context) -> anyhow::Result<Option<String>> {
    let filter = FilterArgs::default().filter()?;
    let states = visit_index(
        ctx,
        &filter,
        &Vec::new,
        &|found: &mut Vec<SessionRecord>, facts, decode| {
            if matches!(facts.status, SessionStatus::Paused | SessionStatus::Active)
                && let Ok(r) = decode()
            {
                found.push(r);
            }
        },
    )?;
    let mut found =
        crucible_index::query::sort_newest_first(states.into_iter().flatten().collect(), None);
    // Stable: newest first within each status.
    found.sort_by_key(|r| r.status != SessionStatus::Paused);
    if !found.is_empty() && std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        let entries: Vec<_> = found.iter().map(super::pick::entry).collect();
        let budget = ctx.config.session.resume_token_budget;
        return Ok(crate::picker::pick(
            "Resume a session (paused first)",
            move || entries,
            &|e| match ctx.store.load_path(&ctx.store.dir().join(&e.path)) {
                Ok(log) => ResumeContext::build(&log, budget).summary_text(),
                Err(err) => format!("{}: {err}", e.id),
            },
        )?);
    }
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if found.is_empty() {
        eprintln!(
            "No paused or active sessions to resume in {}.",
            ctx.store.dir().display()
        );
        return Ok(None);
    }
    let mut out: Box<dyn Write> = if interactive {
        Box::new(std::io::stderr().lock())
    } else {
        Box::new(std::io::stdout().lock())
    };
    writeln!(out, "Sessions to resume (paused first, newest first):")?;
    for (i, r) in found.iter().enumerate() {
        writeln!(
            out,
            "{:>3}  {}  {:<6}  {}  {}",
            i + 1,
            one_line(&r.id),
            r.status.as_str(),
            one_line(&r.started),
            one_line(r.title.as_deref().unwrap_or(""))
        )?;
    }
    if !interactive {
        writeln!(out, "Name one: cru session resume <id>")?;
        return Ok(None);
    }
    write!(out, "Resume which (number or id)? ")?;
    out.flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    let answer = line.trim();
    if answer.is_empty() {
        return Ok(None);
    }
    Ok(Some(match answer.parse::<usize>() {
        Ok(n) if (1..=found.len()).contains(&n) => found[n - 1].id.clone(),
        _ => answer.to_owned(),
    }))
}
