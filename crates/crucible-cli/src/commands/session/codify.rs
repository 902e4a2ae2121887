//! `cru session codify [<id|path>...] [--merge] [--output PATH] [--force]
//! [--refine] [--interactive] [--format markdown|json|mermaid] [--no-redact]`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use crucible_core::{SessionData, SessionLog};
use crucible_parser::workflow::{CheckedWorkflow, write_workflow};

use crate::commands::workflow::show::{self, ShowFormat};
use crate::commands::workflow::{check, json};
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::workflow_stages::{self, Refined};

#[derive(Debug, Args)]
pub struct CodifyArgs {
    /// Sessions (ids, unique prefixes, or paths). Runs of the same task
    /// (same prompt or title) merge into one workflow; other tasks get one
    /// each. None: the most recently started session.
    #[arg(add = crate::complete::sessions())]
    pub sessions: Vec<String>,
    /// Merge all the sessions into one workflow, even runs of different
    /// tasks.
    #[arg(long)]
    pub merge: bool,
    /// Write the workflow to this file instead of stdout; a directory: one
    /// file per workflow, `<first session id>.workflow.md`.
    #[arg(long, short, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Replace --output if it exists.
    #[arg(long)]
    pub force: bool,
    /// Have the agent backend clean the workflow up (names, types,
    /// conditions); used only if its reply validates and keeps every step
    /// and execution row, else saved as `<name>.refine-rejected.md` (exit 1).
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
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = CodifyFormat::Markdown)]
    pub format: CodifyFormat,
    /// Keep secrets (API keys, tokens, passwords) as they are. Redaction is
    /// on by default: a workflow is written to be shared.
    #[arg(long)]
    pub no_redact: bool,
    /// Say nothing on stderr of where the workflow went (`cru mcp`, whose
    /// caller reads the file and throws it away).
    #[arg(skip)]
    pub quiet: bool,
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

/// A session and its sidecar (the full arguments of its tool calls).
struct Loaded {
    log: SessionLog,
    data: Option<SessionData>,
}

/// One codified workflow: its text (markup) and what checking it found.
struct Codified {
    ids: Vec<String>,
    text: String,
    checked: CheckedWorkflow,
    /// The agent's refinement was rejected: the extraction is kept, exit 1.
    refine_rejected: bool,
}

pub fn run(ctx: &Context, args: &CodifyArgs) -> anyhow::Result<Outcome> {
    let mut sessions = load(ctx, &args.sessions)?;
    if !args.no_redact {
        // Before codifying, so that every format and the refine prompt are
        // built from redacted text.
        let r = crucible_redact::Redactor::shared();
        for s in &mut sessions {
            s.log.redact(r);
        }
    }
    let groups = groups(args, &sessions)?;
    let several = groups.len() > 1;
    match &args.output {
        Some(out) if several && out.is_file() => {
            return Err(CliError::usage(format!(
                "these sessions are runs of {} different tasks, so they make {} workflows, \
                 and --output {} is a file",
                groups.len(),
                groups.len(),
                out.display()
            ))
            .with_hint("give a directory (one file each), or pass --merge for one workflow")
            .into());
        }
        Some(out) if !several && out.exists() && !out.is_dir() && !args.force => {
            return Err(CliError::new(format!("{} exists already", out.display()))
                .with_hint("pass --force to replace it")
                .into());
        }
        _ => {}
    }
    let mut done = Vec::new();
    for group in &groups {
        let members: Vec<&Loaded> = group.iter().map(|&i| &sessions[i]).collect();
        match codify_group(ctx, args, &members)? {
            Some(c) => done.push(c),
            None => return Ok(Outcome::Failure),
        }
    }
    write_out(args, &done)?;
    Ok(if done.iter().any(|c| c.refine_rejected) {
        Outcome::Failure
    } else {
        Outcome::Success
    })
}

/// The sessions in groups to codify together: all in one with --merge,
/// else runs of one task together (asking on a terminal whether to merge
/// them all when they are runs of several tasks).
fn groups(args: &CodifyArgs, sessions: &[Loaded]) -> anyhow::Result<Vec<Vec<usize>>> {
    let all = vec![(0..sessions.len()).collect::<Vec<_>>()];
    if args.merge || sessions.len() < 2 {
        return Ok(all);
    }
    let logs: Vec<&SessionLog> = sessions.iter().map(|s| &s.log).collect();
    let groups = crucible_codify::task::group_by_task(&logs);
    if groups.len() == 1 {
        return Ok(groups);
    }
    eprintln!(
        "these sessions are runs of {} different tasks, so each task gets its own workflow:",
        groups.len()
    );
    for g in &groups {
        let ids: Vec<String> = g.iter().map(|&i| logs[i].id().to_string()).collect();
        let title = logs[g[0]].title().unwrap_or("(untitled)");
        eprintln!("  {title}: {}", ids.join(", "));
    }
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if terminal && args.output.is_none() {
        eprint!("Merge them into one workflow anyway? [y/N] ");
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        if matches!(line.trim(), "y" | "Y" | "yes") {
            return Ok(all);
        }
    } else {
        eprintln!("(--merge makes one workflow of them all)");
    }
    Ok(groups)
}

/// One workflow from `members`, refined and reviewed as asked. `None`
/// when the person gave up the review.
fn codify_group(
    ctx: &Context,
    args: &CodifyArgs,
    members: &[&Loaded],
) -> anyhow::Result<Option<Codified>> {
    let sources: Vec<crucible_codify::Source<'_>> = members
        .iter()
        .map(|m| crucible_codify::Source {
            log: &m.log,
            data: m.data.as_ref(),
        })
        .collect();
    let workflow =
        crucible_codify::codify_sources(&sources).map_err(|e| CliError::new(e.to_string()))?;
    let mut text = write_workflow(&workflow);
    let mut checked = check(text.as_bytes());
    if checked.has_errors() {
        // The extraction guarantees valid markup; say so loudly if not.
        let problems: Vec<String> = checked.problems.iter().map(ToString::to_string).collect();
        return Err(CliError::new(format!(
            "the codified workflow does not validate (a bug in cru): {}",
            problems.join("; ")
        ))
        .into());
    }
    let ids: Vec<String> = members.iter().map(|m| m.log.id().to_string()).collect();
    let mut refine_rejected = false;
    if args.refine {
        let markdown: Vec<String> = members
            .iter()
            .map(|m| crucible_parser::write_session(&m.log))
            .collect();
        match workflow_stages::refine(
            ctx,
            args.agent_cmd.as_deref(),
            &text,
            Some(&markdown.join("\n\n")),
        )? {
            Refined::Accepted(refined) => {
                checked = check(refined.as_bytes());
                text = refined;
            }
            Refined::Rejected { reply, reasons } => {
                let beside = target(args, &ids[0], false)
                    .unwrap_or_else(|| PathBuf::from(format!("{}.workflow.md", ids[0])));
                workflow_stages::save_rejected(&beside, &reply, &reasons)?;
                eprintln!("keeping the auto-extracted workflow");
                refine_rejected = true;
            }
        }
    }
    if args.interactive {
        let label = target(args, &ids[0], false)
            .map_or_else(|| "workflow.md".to_owned(), |p| p.display().to_string());
        match workflow_stages::review(&text, &label)? {
            Some(reviewed) => {
                checked = check(reviewed.as_bytes());
                text = reviewed;
            }
            None => return Ok(None),
        }
    }
    Ok(Some(Codified {
        ids,
        text,
        checked,
        refine_rejected,
    }))
}

/// Where the workflow of the group led by session `first` goes: --output,
/// or a file in the --output directory; `None` for stdout.
fn target(args: &CodifyArgs, first: &str, several: bool) -> Option<PathBuf> {
    let out = args.output.as_ref()?;
    if several || out.is_dir() {
        let ext = match args.format {
            CodifyFormat::Markdown => "md",
            CodifyFormat::Json => "json",
            CodifyFormat::Mermaid => "mmd",
        };
        return Some(out.join(format!("{first}.workflow.{ext}")));
    }
    Some(out.clone())
}

fn render(c: &Codified, format: CodifyFormat) -> anyhow::Result<String> {
    Ok(match format {
        CodifyFormat::Markdown => c.text.clone(),
        CodifyFormat::Json => show::render(&c.checked, ShowFormat::Json)?,
        CodifyFormat::Mermaid => show::render(&c.checked, ShowFormat::Mermaid)?,
    })
}

/// Writes each workflow to its file, or all to stdout: several documents
/// separated by a comment line, several JSON workflows as one object.
fn write_out(args: &CodifyArgs, done: &[Codified]) -> anyhow::Result<()> {
    let several = done.len() > 1;
    if args.output.is_some() {
        if let Some(dir) = args.output.as_ref().filter(|_| several) {
            std::fs::create_dir_all(dir)
                .map_err(|e| CliError::new(format!("{}: cannot create: {e}", dir.display())))?;
        }
        for c in done {
            let path = target(args, &c.ids[0], several).expect("--output was given");
            workflow_stages::write_file(&path, &render(c, args.format)?, args.force)?;
            if !args.quiet {
                eprintln!("workflow written to {}", path.display());
            }
        }
        return Ok(());
    }
    let mut out = crate::render::data_out();
    if several && matches!(args.format, CodifyFormat::Json) {
        let doc = json::WorkflowsJson {
            version: json::VERSION,
            workflows: done
                .iter()
                .map(|c| json::WorkflowBody::of(&c.checked))
                .collect(),
        };
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        for (n, c) in done.iter().enumerate() {
            if several {
                let what = format!("workflow {} of {}: {}", n + 1, done.len(), c.ids.join(", "));
                match args.format {
                    CodifyFormat::Mermaid => writeln!(out, "%% cru: {what}")?,
                    _ if n > 0 => writeln!(out, "\n<!-- cru: {what} -->\n")?,
                    _ => {}
                }
            }
            out.write_all(render(c, args.format)?.as_bytes())?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The sessions named (with their sidecars), oldest first; none named:
/// the newest one.
fn load(ctx: &Context, queries: &[String]) -> anyhow::Result<Vec<Loaded>> {
    let mut found = Vec::new();
    if queries.is_empty() {
        let newest = newest_session(ctx)?;
        eprintln!("codifying {newest} (the most recently started session)");
        found.push(ctx.store.load(&newest).map_err(CliError::from)?);
    }
    for q in queries {
        found.push(ctx.store.load(q).map_err(CliError::from)?);
    }
    let mut loaded: Vec<Loaded> = found
        .into_iter()
        .map(|(path, log)| {
            let data = match ctx.store.load_data_for(&path, &log) {
                Ok(d) => d,
                Err(e) => {
                    // The markdown's own lines still give the data flow.
                    eprintln!("warning: {e}; reading the tool calls from the markdown only");
                    None
                }
            };
            Loaded { log, data }
        })
        .collect();
    loaded.sort_by_key(|l| l.log.frontmatter.started.unix_ms());
    Ok(loaded)
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
