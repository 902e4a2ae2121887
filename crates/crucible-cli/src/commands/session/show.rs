//! `cru session show <id|path> [--format text|markdown|json]`.

use std::io::Write;

use clap::{Args, ValueEnum};

use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::output::{self, show::ShowAnswer};
use crate::render::session_text;

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A session id, a unique prefix of one (any case), or a path to a file.
    pub session: String,
    /// How to print it.
    #[arg(long, value_enum, default_value_t = ShowFormat::Text)]
    pub format: ShowFormat,
    /// Each tool call with its full arguments and result (from the
    /// session's sidecar, `.<file>.data.jsonl`, where an import kept them);
    /// with `--format json`, the sidecar's records as `data`.
    #[arg(long)]
    pub full: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ShowFormat {
    /// For people: a header, then phases with callouts set apart (colour on a terminal).
    Text,
    /// The canonical markdown of the file.
    Markdown,
    /// `{"version": 1, "path", "session": {...}}` (docs/json.md).
    Json,
}

pub fn run(ctx: &Context, args: &ShowArgs) -> anyhow::Result<Outcome> {
    let (path, log) = ctx.store.load(&args.session).map_err(CliError::from)?;
    match args.format {
        ShowFormat::Text => {
            let mut out = anstream::stdout().lock();
            session_text::render(&mut out, &ctx.store, &path, &log, args.full)?;
            out.flush()?;
        }
        ShowFormat::Markdown => {
            let mut out = crate::render::data_out();
            out.write_all(crucible_parser::write_session(&log).as_bytes())?;
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
            output::print_json(&ShowAnswer::new(&path, &log, data))?;
        }
    }
    Ok(Outcome::Success)
}
