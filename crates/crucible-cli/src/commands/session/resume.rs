//! `cru session resume [<id>] [--format F] [--max-tokens N] [--agent-cmd CMD] [--once]`.
//!
//! With `--format`, prints the resume context and changes nothing. With an
//! agent backend, continues the session: a `Resumed from phase-N` phase is
//! recorded, the context goes to the agent, and its reply is recorded in the
//! same file as a `[!reply]` callout; on a terminal this goes on turn by turn
//! (each line typed recorded as `[!user]`) until EOF or `/pause`.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use clap::{Args, ValueEnum};
use crucible_agent::{AgentBackend, AgentRequest};
use crucible_core::{AgentRef, Recorder, ResumeContext, SessionStatus};
use crucible_index::SessionRecord;
use serde_json::{Value, json};

use super::query::{FilterArgs, visit_index};
use crate::agent_backend;
use crate::context::Context;
use crate::error::{CliError, Outcome};

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// A session id, a unique prefix of one (any case), or a path. Without
    /// it: the sessions that can be resumed, paused first, newest first.
    pub session: Option<String>,
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
    /// Stop after the agent's first reply, leaving the session active (what
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
    let query = match &args.session {
        Some(q) => q.clone(),
        None => match choose(ctx)? {
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
    let Some(backend) = agent_backend::configured(ctx, args.agent_cmd.as_deref())? else {
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
    let interactive = !args.once && std::io::stdin().is_terminal();
    continue_session(ctx, &path, &cx, backend.as_ref(), interactive)
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
        ResumeFormat::Json => crate::render::print_json(cx)?,
    }
    Ok(())
}

/// The sessions that can be resumed: paused ones, then active ones, each
/// newest first. On a terminal, asks for one; else prints them and returns
/// `None`.
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
            r.id,
            r.status.as_str(),
            r.started,
            r.title.as_deref().unwrap_or("")
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

/// Records the resume, hands the context to the agent and records its
/// replies; on a terminal, turn by turn.
fn continue_session(
    ctx: &Context,
    path: &Path,
    cx: &ResumeContext,
    backend: &dyn AgentBackend,
    interactive: bool,
) -> anyhow::Result<Outcome> {
    let query = path.to_string_lossy();
    let mut rec =
        Recorder::open(&ctx.store, &query, &ctx.config.session, false).map_err(CliError::from)?;
    let at = cx.resume_phase();
    let fallback = at
        .and_then(|p| p.agent.as_ref())
        .or_else(|| rec.log().frontmatter.participants.first());
    let agent: Option<AgentRef> = agent_backend::reply_agent(ctx, fallback)?;
    let name = match cx.resume_at {
        Some(p) => format!("Resumed from {p}"),
        None => "Resumed".to_owned(),
    };
    let channel = at.and_then(|p| p.channel.clone());
    // The resume phase (which makes the session active) is recorded with the
    // first thing that happens in it: a backend that fails before answering
    // leaves the file exactly as it was.
    let resumed = std::cell::Cell::new(false);
    let open_phase = |rec: &mut Recorder<'_, _>| -> anyhow::Result<()> {
        if !resumed.get() {
            rec.phase(&name, agent.clone(), channel.clone())
                .map_err(CliError::from)?;
            resumed.set(true);
        }
        Ok(())
    };
    let id = rec.id().clone();
    if interactive {
        eprint!("{}", cx.summary_text());
        eprintln!(
            "\nResuming {id} with {}. Type to reply; /pause pauses, EOF (Ctrl-D) stops.",
            backend.describe()
        );
    }

    let mut messages: Vec<Value> = cx.messages();
    let mut prompt = cx.prompt();
    let stdin = std::io::stdin();
    loop {
        let request = AgentRequest {
            prompt: &prompt,
            messages: &messages,
        };
        match backend.complete(&request) {
            Ok(reply) => {
                open_phase(&mut rec)?;
                rec.reply(agent.clone(), &reply.text)
                    .map_err(CliError::from)?;
                if let Some(u) = reply.usage {
                    rec.tokens(u.total_tokens).map_err(CliError::from)?;
                }
                // The reply in the markdown at once, not only in the journal.
                rec.fold().map_err(CliError::from)?;
                let mut out = std::io::stdout().lock();
                writeln!(out, "{}", reply.text)?;
                out.flush()?;
                messages.push(json!({"role": "assistant", "content": reply.text}));
                prompt.push_str(&format!("\n## Agent\n\n{}\n", reply.text));
            }
            Err(e) if !resumed.get() => {
                // Nothing was recorded yet, and nothing is: the session is as it was.
                if !interactive {
                    return Err(CliError::new(e.to_string())
                        .with_hint(format!("{id} is unchanged; run the command again to retry"))
                        .into());
                }
                eprintln!("error: {e}");
            }
            Err(e) => {
                let first_line = e.to_string().lines().next().unwrap_or("").to_owned();
                rec.error(&format!("agent backend failed: {first_line}"), None)
                    .map_err(CliError::from)?;
                rec.fold().map_err(CliError::from)?;
                if !interactive {
                    return Err(CliError::new(e.to_string())
                        .with_hint(format!(
                            "the resume is recorded in {id}; run the command again to retry"
                        ))
                        .into());
                }
                eprintln!("error: {e}");
            }
        }
        if !interactive {
            break;
        }
        let Some(line) = next_line(&stdin)? else {
            eprintln!(
                "Session {id} stays active: `cru session resume {id}` goes on, \
                 `cru session pause {id}` pauses it."
            );
            break;
        };
        if line == "/pause" {
            // A paused session that nothing was recorded in is paused still.
            if resumed.get() || rec.log().frontmatter.status != SessionStatus::Paused {
                rec.pause(None).map_err(CliError::from)?;
            }
            eprintln!("Paused {id}.");
            break;
        }
        open_phase(&mut rec)?;
        rec.user(&line, None).map_err(CliError::from)?;
        messages.push(json!({"role": "user", "content": line}));
        prompt.push_str(&format!("\n## User\n\n{line}\n"));
    }
    rec.close().map_err(CliError::from)?;
    Ok(Outcome::Success)
}

/// The next non-empty line typed, or `None` at EOF.
fn next_line(stdin: &std::io::Stdin) -> std::io::Result<Option<String>> {
    loop {
        eprint!("you> ");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        if stdin.lock().read_line(&mut line)? == 0 {
            eprintln!();
            return Ok(None);
        }
        let line = line.trim();
        if !line.is_empty() {
            return Ok(Some(line.to_owned()));
        }
    }
}
