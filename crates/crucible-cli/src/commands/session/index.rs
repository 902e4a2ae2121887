//! `cru session index [--rebuild] [--check] [--format text|json]`.

use std::io::Write;

use clap::{Args, ValueEnum};
use crucible_index::{DuplicateIds, Filter, SessionIndex};
use crucible_search::{CheckReport, IndexState};

use super::query::{open_index, report, warn_duplicates};
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::output::index::{IndexAnswer, SearchIndexAnswer};
use crate::render::output::{self, DuplicateId, SkippedFile};
use crate::render::progress;

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Read every session again, ignoring the index on disk, and build the
    /// search index (`.search/`) again from nothing if a search has built
    /// one.
    #[arg(long)]
    pub rebuild: bool,
    /// List the session files that could not be read, the ids more than
    /// one file declares, and a search index a search would answer wrongly
    /// from (one that cannot be used; parts of a file gone that its
    /// manifest does not name); exit 1 if there are any. Files changed
    /// since the search index was written are read directly by every
    /// search: listed in the JSON only. A search index not built yet is
    /// not a problem.
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
    /// `{"version": 1, "sessions", "unreadable", "duplicates", "search"}` (docs/json.md).
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
    let search = search_index(ctx, args)?;
    match args.format {
        IndexFormat::Json => output::print_json(&IndexAnswer {
            dir: ctx.store.dir().display().to_string(),
            sessions: sessions.len(),
            unreadable: index.problems.iter().map(SkippedFile::from).collect(),
            duplicates: DuplicateId::all(&duplicates),
            search: SearchIndexAnswer::of(&search),
        })?,
        IndexFormat::Text if args.check => {
            check_lines(ctx, &index.problems, &duplicates, &search)?;
        }
        IndexFormat::Text => {}
    }
    if args.check && !(index.problems.is_empty() && duplicates.is_empty() && !search.is_problem()) {
        return Ok(Outcome::Failure);
    }
    // A rebuild reads every file: one it could not read is skipped.
    Ok(Outcome::from_files(sessions.len(), index.problems.len()))
}

/// The search index, when one has been built (the first search builds it:
/// a store never searched is not made to pay for one): built again from
/// nothing with `--rebuild`, else brought up to the files as a search
/// would; then checked against the files with `--check`.
fn search_index(ctx: &Context, args: &IndexArgs) -> anyhow::Result<CheckReport> {
    let dir = ctx.store.dir();
    let fail = |e: crucible_search::SearchError| CliError::new(e.to_string());
    let built = std::fs::symlink_metadata(crucible_search::index::home(dir)).is_ok();
    let mut state = IndexState::Missing;
    if built && args.rebuild {
        let rebuilt =
            crucible_search::rebuild_all(dir, ctx.store.max_file_bytes()).map_err(fail)?;
        // The files it could not read are the unreadable ones just
        // reported by the session index: not named twice.
        writeln!(
            anstream::stderr(),
            "search index rebuilt: {} parts of {} session files",
            rebuilt.parts,
            rebuilt.files
        )?;
        print_search_warnings(&rebuilt.warnings)?;
        state = IndexState::Present {
            parts: rebuilt.parts,
        };
    } else if built && !args.check {
        let mut opened = crucible_search::open(dir, ctx.store.max_file_bytes()).map_err(fail)?;
        opened.finish().map_err(fail)?;
        print_search_warnings(&opened.warnings)?;
        state = IndexState::Present {
            parts: opened.parts.first().map_or(0, |(s, _)| s.num_docs()),
        };
    }
    if args.check {
        return Ok(crucible_search::check(dir).map_err(fail)?);
    }
    Ok(CheckReport {
        state,
        disagreements: Vec::new(),
    })
}

/// The search index's problems as `file:line: message` lines.
fn search_lines(out: &mut dyn Write, ctx: &Context, report: &CheckReport) -> std::io::Result<()> {
    let dir = ctx.store.dir();
    if let IndexState::Unusable { reason } = &report.state {
        writeln!(
            out,
            "{}: search index {reason} (the next search rebuilds it)",
            dir.join(crucible_core::store::names::SEARCH_INDEX)
                .display()
        )?;
    }
    // Pending files (changed, new or gone since the index was written)
    // are read or left out by every search itself: only in the JSON.
    for d in report.disagreements.iter().filter(|d| d.is_problem()) {
        writeln!(out, "{}:1: {d}", dir.join(d.path()).display())?;
    }
    Ok(())
}

/// What `--check` found, as `file:line: message` lines on stdout.
fn check_lines(
    ctx: &Context,
    problems: &[crucible_index::Problem],
    duplicates: &[crucible_index::Duplicate],
    search: &CheckReport,
) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    for p in problems {
        writeln!(
            out,
            "{}:{}: {}",
            ctx.store.dir().join(&p.path).display(),
            p.line,
            p.message
        )?;
    }
    search_lines(&mut out, ctx, search)?;
    for d in duplicates {
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
    Ok(())
}

/// The search index's warnings, one line each, but the files it could not
/// read: the session index has named those already.
fn print_search_warnings(warnings: &[crucible_search::IndexWarning]) -> std::io::Result<()> {
    let shown = warnings
        .iter()
        .filter(|w| !matches!(w, crucible_search::IndexWarning::Skipped { .. }));
    for warning in shown {
        writeln!(anstream::stderr(), "warning: {warning}")?;
    }
    Ok(())
}
