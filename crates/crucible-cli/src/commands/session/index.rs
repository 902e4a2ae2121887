//! `cru session index [--rebuild] [--check] [--format text|json]`.

use std::io::Write;

use clap::{Args, ValueEnum};
use crucible_index::{DuplicateIds, Filter, SessionIndex};

use super::query::{open_index, report, warn_duplicates};
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::output::{self, DuplicateId, SkippedFile, index::IndexAnswer};
use crate::render::progress;

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Read every session again, ignoring the index on disk.
    #[arg(long)]
    pub rebuild: bool,
    /// List the session files that could not be read and the ids more than
    /// one file declares; exit 1 if there are any.
    #[arg(long)]
    pub check: bool,
    /// How to print what was found.
    #[arg(long, value_enum, default_value_t = IndexFormat::Text)]
    pub format: IndexFormat,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum IndexFormat {
    /// Counts on stderr; with --check, `file:line: message` lines on stdout.
    Text,
    /// `{"version": 1, "sessions", "unreadable", "duplicates"}` (docs/json.md).
    Json,
}

pub fn run(ctx: &Context, args: &IndexArgs) -> anyhow::Result<Outcome> {
    // A plain `cru session index` rebuilds too: a fresh start from the files
    // (queries prove the index fresh by themselves; this is for a person who
    // wants the whole index read again). The records are kept for the
    // duplicate check, which needs every id.
    let (opened, sessions) = if args.rebuild || !args.check {
        let bar = progress::bar("indexing sessions");
        let (o, _) = SessionIndex::new(&ctx.store)
            .rebuild_files(&|d, t| progress::update(&bar, d, t))
            .map_err(|e| CliError::new(e.to_string()))?;
        progress::finish(&bar);
        report(ctx, &o)?;
        // The rebuild keeps only counts; the index on disk is fresh now,
        // and a visit of its rows reads no session again. Only ids and
        // paths are taken: whole records would decode every usage cell
        // (a gigabyte and seconds at 100,000 sessions with usage records),
        // and the usage file (most of the index's bytes) is not read.
        let (opened, seen) = SessionIndex::new(&ctx.store)
            .without_usage()
            .visit(
                None,
                &Filter::default(),
                &|_, _| {},
                &Vec::new,
                &|seen: &mut Vec<(String, String)>, facts, _| {
                    seen.push((facts.id.to_string(), facts.path.to_string()));
                },
            )
            .map_err(|e| CliError::new(e.to_string()))?;
        (opened, seen.into_iter().flatten().collect())
    } else {
        let opened = open_index(ctx)?;
        let seen: Vec<(String, String)> = opened
            .index
            .sessions
            .iter()
            .map(|r| (r.id.clone(), r.path.clone()))
            .collect();
        (opened, seen)
    };
    let index = &opened.index;
    let mut ids = DuplicateIds::default();
    for (id, path) in &sessions {
        ids.add(id, path);
    }
    let duplicates = ids.finish();
    warn_duplicates(ctx, &duplicates)?;
    writeln!(
        anstream::stderr(),
        "{} sessions indexed, {} unreadable, in {}",
        sessions.len(),
        index.problems.len(),
        ctx.store.dir().display()
    )?;
    match args.format {
        IndexFormat::Json => output::print_json(&IndexAnswer {
            dir: ctx.store.dir().display().to_string(),
            sessions: sessions.len(),
            unreadable: index.problems.iter().map(SkippedFile::from).collect(),
            duplicates: duplicates.iter().cloned().map(DuplicateId::from).collect(),
        })?,
        IndexFormat::Text if args.check => {
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
            for d in &duplicates {
                for path in &d.paths {
                    writeln!(
                        out,
                        "{}:1: session id `{}` is declared by {} files",
                        ctx.store.dir().join(path).display(),
                        d.id,
                        d.paths.len()
                    )?;
                }
            }
        }
        IndexFormat::Text => {}
    }
    if args.check && !(index.problems.is_empty() && duplicates.is_empty()) {
        return Ok(Outcome::Failure);
    }
    // A rebuild reads every file: one it could not read is skipped.
    Ok(Outcome::from_files(sessions.len(), index.problems.len()))
}
