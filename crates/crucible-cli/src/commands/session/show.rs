//! `cru session show <id|path>[#phase-N] [--format text|markdown|json|html]`.

pub(crate) mod html;

use std::io::Write;
use std::path::Path;

use clap::{Args, ValueEnum};
use crucible_core::{Section, SessionLog};

use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::output::{self, show::ShowAnswer, show::ShowPhaseAnswer};
use crate::render::session_text;

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A session id, a unique prefix of one (any case), or a path to a file;
    /// `#phase-N` after it shows that phase alone (as a search hit names
    /// it: phases count from 1 in document order).
    #[arg(add = crate::complete::sessions())]
    pub session: String,
    /// How to print it.
    #[arg(long, value_enum, default_value_t = ShowFormat::Text)]
    pub format: ShowFormat,
    /// Each tool call with its full arguments and result (from the
    /// session's sidecar, `.<file>.data.jsonl`, where an import kept them);
    /// with `--format json`, the sidecar's records as `data`.
    #[arg(long)]
    pub full: bool,
    /// Write to this file instead of standard output (`--format html`:
    /// a page to open in a browser; its links to other sessions lead to
    /// their pages beside it, else to their files).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ShowFormat {
    /// For people: a header, then phases with callouts set apart (colour on a terminal).
    Text,
    /// The canonical markdown of the file (of the phase alone with `#phase-N`).
    Markdown,
    /// `{"version": 1, "path", "session": {...}}`; with `#phase-N`,
    /// `{"version": 1, "path", "id", "phase", "number", "section"}` (docs/json.md).
    Json,
    /// One self-contained page (no network, no script; light or dark by the
    /// system setting): tool calls expand to their full arguments and
    /// results where the session's sidecar keeps them.
    Html,
}

/// What `show` was asked for: a session, and maybe one phase of it.
struct Target<'a> {
    session: &'a str,
    /// After `#phase-`, as typed; checked once the session is loaded, so
    /// that the error can say how many phases it has.
    phase: Option<&'a str>,
}

impl<'a> Target<'a> {
    /// `ID#phase-N` is split at its last `#phase-`, unless the whole
    /// argument is a file (a path may hold `#`).
    fn of(arg: &'a str) -> Self {
        match arg.rsplit_once("#phase-") {
            Some((session, phase)) if !Path::new(arg).is_file() => Self {
                session,
                phase: Some(phase),
            },
            _ => Self {
                session: arg,
                phase: None,
            },
        }
    }
}

/// The phase `typed` names in `log` (from 1), or an error that says which exist.
pub(crate) fn phase_number(log: &SessionLog, typed: &str) -> Result<usize, CliError> {
    let count = log.phase_count();
    let exist = match count {
        0 => format!("session {} has no phases", log.id()),
        1 => format!("session {} has 1 phase (phase-1)", log.id()),
        n => format!("session {} has {n} phases (phase-1 to phase-{n})", log.id()),
    };
    match typed.parse::<usize>() {
        Ok(n) if (1..=count).contains(&n) => Ok(n),
        Ok(0) => Err(CliError::usage(format!(
            "no phase-0 (phases count from 1): {exist}"
        ))),
        Ok(_) => Err(CliError::usage(format!("no phase-{typed}: {exist}"))),
        Err(_) => Err(CliError::usage(format!(
            "`phase-{typed}` is not a phase (expected #phase-N, N a number from 1): {exist}"
        ))),
    }
}

/// The phase `number` (from 1) as its section.
fn phase_section(log: &SessionLog, number: usize) -> &Section {
    log.sections
        .iter()
        .filter(|s| matches!(s, Section::Phase(_)))
        .nth(number - 1)
        .expect("phase_number checked the number against phase_count")
}

/// The canonical markdown of one phase: as `write_session` writes it in
/// the file, without the frontmatter (it is the session's, not the phase's).
pub(crate) fn phase_markdown(log: &SessionLog, number: usize) -> String {
    let alone = SessionLog {
        preamble: Vec::new(),
        sections: vec![phase_section(log, number).clone()],
        ..log.clone()
    };
    let text = crucible_parser::write_session(&alone);
    // The canonical frontmatter is `---` lines around YAML that never holds
    // a `---` line of its own (multi-line values are indented or quoted).
    let body = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map_or(text.as_str(), |(_, body)| body);
    body.trim_start_matches('\n').to_owned()
}

pub fn run(ctx: &Context, args: &ShowArgs) -> anyhow::Result<Outcome> {
    let target = Target::of(&args.session);
    let (path, log) = ctx.store.load(target.session).map_err(CliError::from)?;
    let phase = target
        .phase
        .map(|typed| phase_number(&log, typed))
        .transpose()?;
    if args.output.is_some() && !matches!(args.format, ShowFormat::Html) {
        return Err(CliError::usage("`--output` goes with `--format html`")
            .with_hint("for the other formats, redirect standard output: `> FILE`")
            .into());
    }
    match args.format {
        ShowFormat::Html => html::write(ctx, &path, &log, phase, args.output.as_deref())?,
        ShowFormat::Text => {
            let mut out = anstream::stdout().lock();
            if let Some(n) = phase {
                session_text::render_phase(&mut out, &ctx.store, &path, &log, args.full, n)?;
            } else {
                session_text::render(&mut out, &ctx.store, &path, &log, args.full)?;
            }
            out.flush()?;
        }
        ShowFormat::Markdown => {
            let mut out = crate::render::data_out();
            let text = match phase {
                Some(n) => phase_markdown(&log, n),
                None => crucible_parser::write_session(&log),
            };
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
        ShowFormat::Json => {
            // The sidecar only with --full: reading it costs a file, and its
            // records can be large.
            let data = if args.full {
                let data = ctx
                    .store
                    .load_data_for(&path, &log)
                    .map_err(CliError::from)?;
                Some(data.map(|d| d.records).unwrap_or_default())
            } else {
                None
            };
            match phase {
                Some(n) => output::print_json(&ShowPhaseAnswer::new(
                    &path,
                    &log,
                    n,
                    phase_section(&log, n),
                    data,
                ))?,
                None => output::print_json(&ShowAnswer::new(&path, &log, data))?,
            }
        }
    }
    Ok(Outcome::Success)
}
