//! `cru session codify [<id|path>...] [--output FILE] [--force] [--refine]
//! [--interactive] [--format markdown|json|mermaid] [--no-redact]`.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use crucible_core::SessionLog;
use crucible_parser::workflow::{check_workflow, write_workflow};

use crate::commands::workflow::show::{self, ShowFormat};
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::workflow_stages;

#[derive(Debug, Args)]
pub struct CodifyArgs {
    /// Sessions (ids, unique prefixes, or paths). Several of the same task
    /// merge into one workflow. None: the most recently started session.
    pub sessions: Vec<String>,
    /// Write the workflow to this file instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace --output if it exists.
    #[arg(long)]
    pub force: bool,
    /// Have the agent backend clean the workflow up (names, types,
    /// conditions); used only if its reply validates.
    #[arg(long)]
    pub refine: bool,
    /// The agent for --refine: a command run with `sh -c`, as `cru session
    /// resume` takes it. Overrides [agent] in the configuration.
    #[arg(long, value_name = "CMD", requires = "refine")]
    pub agent_cmd: Option<String>,
    /// Review it in $VISUAL/$EDITOR before saving: reopened with the errors
    /// on top until it validates.
    #[arg(long)]
    pub interactive: bool,
    #[arg(long, value_enum, default_value_t = CodifyFormat::Markdown)]
    pub format: CodifyFormat,
    /// Keep secrets (API keys, tokens, passwords) as they are. Redaction is
    /// on by default: a workflow is written to be shared.
    #[arg(long)]
    pub no_redact: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CodifyFormat {
    /// The workflow markup.
    Markdown,
    /// The workflow, its graph and run totals as JSON.
    Json,
    /// A Mermaid flowchart of the steps.
    Mermaid,
}

pub fn run(ctx: &Context, args: &CodifyArgs) -> anyhow::Result<Outcome> {
    if let Some(out) = &args.output
        && out.exists()
        && !args.force
    {
        return Err(CliError::new(format!("{} exists already", out.display()))
            .with_hint("pass --force to replace it")
            .into());
    }
    let mut sessions = load(ctx, &args.sessions)?;
    if !args.no_redact {
        // Before codifying, so that every format and the refine prompt are
        // built from redacted text.
        let r = crucible_redact::Redactor::shared();
        sessions.iter_mut().for_each(|s| s.redact(r));
    }
    let logs: Vec<&SessionLog> = sessions.iter().collect();
    let workflow = crucible_codify::codify(&logs).map_err(|e| CliError::new(e.to_string()))?;
    let mut text = write_workflow(&workflow);
    let mut checked = check_workflow(text.as_bytes());
    if checked.has_errors() {
        // The extraction guarantees valid markup; say so loudly if not.
        let problems: Vec<String> = checked.problems.iter().map(ToString::to_string).collect();
        return Err(CliError::new(format!(
            "the codified workflow does not validate (a bug in cru): {}",
            problems.join("; ")
        ))
        .into());
    }
    if args.refine {
        let markdown: Vec<String> = sessions
            .iter()
            .map(crucible_parser::write_session)
            .collect();
        match workflow_stages::refine(
            ctx,
            args.agent_cmd.as_deref(),
            &text,
            Some(&markdown.join("\n\n")),
        )? {
            Some(refined) => {
                checked = check_workflow(refined.as_bytes());
                text = refined;
            }
            None => eprintln!("keeping the auto-extracted workflow"),
        }
    }
    if args.interactive {
        let label = args
            .output
            .as_ref()
            .map_or_else(|| "workflow.md".to_owned(), |p| p.display().to_string());
        match workflow_stages::review(&text, &label)? {
            Some(reviewed) => {
                checked = check_workflow(reviewed.as_bytes());
                text = reviewed;
            }
            None => return Ok(Outcome::Failure),
        }
    }
    let rendered = match args.format {
        CodifyFormat::Markdown => text,
        CodifyFormat::Json | CodifyFormat::Mermaid => {
            let format = match args.format {
                CodifyFormat::Json => ShowFormat::Json,
                _ => ShowFormat::Mermaid,
            };
            match &args.output {
                None => {
                    show::print(&checked, format)?;
                    return Ok(Outcome::Success);
                }
                Some(_) => show::render(&checked, format)?,
            }
        }
    };
    match &args.output {
        Some(path) => {
            workflow_stages::write_file(path, &rendered, args.force)?;
            eprintln!("workflow written to {}", path.display());
        }
        None => {
            let mut out = crate::render::data_out();
            out.write_all(rendered.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(Outcome::Success)
}

/// The sessions named, oldest first; none named: the newest one.
fn load(ctx: &Context, queries: &[String]) -> anyhow::Result<Vec<SessionLog>> {
    let mut logs = Vec::new();
    if queries.is_empty() {
        let newest = newest_session(ctx)?;
        eprintln!("codifying {newest} (the most recently started session)");
        logs.push(ctx.store.load(&newest).map_err(CliError::from)?.1);
    }
    for q in queries {
        logs.push(ctx.store.load(q).map_err(CliError::from)?.1);
    }
    logs.sort_by_key(|l| l.frontmatter.started.unix_ms());
    Ok(logs)
}

fn newest_session(ctx: &Context) -> anyhow::Result<String> {
    let filter = super::query::FilterArgs::default().filter()?;
    let states = super::query::visit_index(
        ctx,
        &filter,
        &Vec::new,
        &|found: &mut Vec<crucible_index::SessionRecord>, _facts, decode| {
            if let Ok(r) = decode() {
                found.push(r);
            }
        },
    )?;
    let newest =
        crucible_index::query::sort_newest_first(states.into_iter().flatten().collect(), Some(1));
    newest.into_iter().next().map(|r| r.id).ok_or_else(|| {
        CliError::new(format!("no sessions in {}", ctx.store.dir().display()))
            .with_hint("name one: cru session codify <id>")
            .into()
    })
}
