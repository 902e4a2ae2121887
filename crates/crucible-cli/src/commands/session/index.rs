//! `cru session index [--rebuild] [--check]`.

use std::io::Write;

use clap::Args;
use crucible_index::SessionIndex;

use super::query::{open_index, report};
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::progress;

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Read every session again, ignoring the index on disk.
    #[arg(long)]
    pub rebuild: bool,
    /// List the session files that could not be read; exit 1 if there are any.
    #[arg(long)]
    pub check: bool,
}

pub fn run(ctx: &Context, args: &IndexArgs) -> anyhow::Result<Outcome> {
    // A plain `cru session index` rebuilds too: a fresh start from the files
    // (queries prove the index fresh by themselves; this is for a person who
    // wants the whole index read again). Only counts are reported, so a
    // rebuild keeps no session records.
    let (opened, sessions) = if args.rebuild || !args.check {
        let bar = progress::bar("indexing sessions");
        let (o, n) = SessionIndex::new(&ctx.store)
            .rebuild_files(&|d, t| progress::update(&bar, d, t))
            .map_err(|e| CliError::new(e.to_string()))?;
        progress::finish(&bar);
        report(ctx, &o)?;
        (o, n)
    } else {
        let o = open_index(ctx)?;
        let n = o.index.sessions.len();
        (o, n)
    };
    let index = &opened.index;
    let mut err = anstream::stderr();
    writeln!(
        err,
        "{sessions} sessions indexed, {} unreadable, in {}",
        index.problems.len(),
        ctx.store.dir().display()
    )?;
    if args.check {
        let mut out = std::io::stdout().lock();
        for p in &index.problems {
            writeln!(
                out,
                "{}:{}: {}",
                ctx.store.dir().join(&p.path).display(),
                p.line,
                p.message
            )?;
        }
        if !index.problems.is_empty() {
            return Ok(Outcome::Failure);
        }
    }
    Ok(Outcome::Success)
}
