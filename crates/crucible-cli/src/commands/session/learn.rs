//! `cru session learn [<id|path>...] [--all] [filters] [--type T] [--export E]
//! [--schema S] [--output PATH] [--no-redact]`.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use crucible_core::store::journal::journal_path;
use crucible_core::{SessionLog, SessionStore};
use crucible_learn::{
    CaseFilter, CaseKind, CaseWriter, Export, Redactor, Schema, Written, cases_of, render,
};
use crucible_parser::MarkdownCodec;

use super::query::FilterArgs;
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::progress;

#[derive(Debug, Args)]
pub struct LearnArgs {
    /// Sessions (ids, unique prefixes, or paths). None: every session that
    /// matches the filters, as with --all.
    #[arg(add = crate::complete::sessions())]
    pub sessions: Vec<String>,
    /// Every session matching the filters.
    #[arg(long, conflicts_with = "sessions")]
    pub all: bool,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Which cases: puzzles (from errors), corrections (from user interventions), or all.
    #[arg(long = "type", value_enum, default_value_t = CaseType::All)]
    pub case_type: CaseType,
    /// The output format. Default: readable cases on stdout (`puzzle` with
    /// `--type puzzle`, else `markdown`).
    #[arg(long, value_enum)]
    pub export: Option<ExportFormat>,
    /// The JSONL shape (with --export jsonl).
    #[arg(long, value_enum, default_value_t = SchemaArg::Sft)]
    pub schema: SchemaArg,
    /// Write to this file instead of stdout.
    #[arg(long, short, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Keep secrets (API keys, tokens, passwords) as they are. Redaction is on by default.
    #[arg(long)]
    pub no_redact: bool,
    /// Say nothing on stderr of what was written (`cru mcp`, whose caller
    /// reads the file and throws it away).
    #[arg(skip)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CaseType {
    Puzzle,
    Correction,
    All,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    /// One JSON object per line (see --schema).
    Jsonl,
    /// One readable document with a section per case.
    Markdown,
    /// Puzzles for prompt engineering: the situation, a question, the answer folded.
    Puzzle,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SchemaArg {
    /// `{"messages": [...]}`: OpenAI fine-tuning, TRL SFT, Axolotl chat_template.
    Sft,
    /// `{"prompt", "chosen", "rejected"}`: TRL DPO (corrections and solved puzzles).
    Dpo,
    /// `{"conversations": [{"from", "value"}]}`.
    Sharegpt,
}

/// A session file to read, and whether it has a journal to apply.
struct Source {
    path: PathBuf,
    live: bool,
}

pub fn run(ctx: &Context, args: &LearnArgs) -> anyhow::Result<Outcome> {
    let (export, filter) = export_of(args);
    let (sources, mut skipped) = sources(ctx, args)?;
    let redactor = (!args.no_redact).then(Redactor::new);
    let mut seen = std::collections::HashSet::new();
    let mut duplicates = 0;
    let mut bad = 0;
    let bar = progress::bar("reading sessions");
    // In batches, in order: all cores read a batch, then its cases are
    // written, so memory holds one batch's cases, not the whole export's.
    let mut write = |out: &mut dyn Write| -> anyhow::Result<Written> {
        let mut w = CaseWriter::new(out, export);
        let mut io_error = None;
        bad = read_in_order(
            &ctx.store,
            &sources,
            filter,
            redactor.as_ref(),
            export,
            |n, cases| {
                for c in cases {
                    if !seen.insert(c.id) {
                        duplicates += 1;
                    } else if let Err(e) = w.write_rendered(c.kind, c.text.as_deref()) {
                        io_error.get_or_insert(e);
                        return false;
                    }
                }
                if n.is_multiple_of(256) {
                    progress::update(&bar, n, sources.len());
                }
                true
            },
        );
        if let Some(e) = io_error {
            return Err(e.into());
        }
        Ok(w.finish()?.1)
    };
    let written = if let Some(path) = &args.output {
        write_to_file(path, write)?
    } else {
        let mut out = crate::render::data_out();
        let written = write(&mut out)?;
        out.flush()?;
        written
    };
    progress::finish(&bar);
    skipped += bad;
    let read = sources.len() - bad;
    if !args.quiet {
        eprintln!(
            "{}",
            summary(&written, read, duplicates, skipped, args.output.as_deref())
        );
    }
    Ok(Outcome::from_files(read, skipped))
}

/// The export and the cases it takes: `--export`, else what suits the case
/// type (puzzles as puzzles, the rest as markdown).
fn export_of(args: &LearnArgs) -> (Export, CaseFilter) {
    let format = args.export.unwrap_or(match args.case_type {
        CaseType::Puzzle => ExportFormat::Puzzle,
        CaseType::Correction | CaseType::All => ExportFormat::Markdown,
    });
    let export = match format {
        ExportFormat::Jsonl => Export::Jsonl(match args.schema {
            SchemaArg::Sft => Schema::Sft,
            SchemaArg::Dpo => Schema::Dpo,
            SchemaArg::Sharegpt => Schema::ShareGpt,
        }),
        ExportFormat::Markdown => Export::Markdown,
        ExportFormat::Puzzle => Export::Puzzle,
    };
    let filter = match args.case_type {
        CaseType::Puzzle => CaseFilter::Puzzles,
        CaseType::Correction => CaseFilter::Corrections,
        CaseType::All => CaseFilter::All,
    };
    (export, filter)
}

/// The line on stderr: how many cases of which kind from how many
/// sessions, and what was left out, removed or skipped.
fn summary(
    written: &Written,
    read: usize,
    duplicates: usize,
    skipped: usize,
    output: Option<&std::path::Path>,
) -> String {
    let mut summary = format!(
        "{} {} ({} {}, {} {}) from {} {}",
        written.puzzles + written.corrections,
        crate::render::plural(written.puzzles + written.corrections, "case", "cases"),
        written.puzzles,
        crate::render::plural(written.puzzles, "puzzle", "puzzles"),
        written.corrections,
        crate::render::plural(written.corrections, "correction", "corrections"),
        read,
        crate::render::plural(read, "session", "sessions"),
    );
    if written.left_out > 0 {
        summary.push_str(&format!(
            "; {} left out (open puzzles have no answer to train on; a DPO pair needs both sides)",
            written.left_out
        ));
    }
    if duplicates > 0 {
        summary.push_str(&format!("; {duplicates} duplicates removed"));
    }
    if written.puzzles + written.corrections + written.left_out == 0 {
        // Not an error: most sessions have nothing to learn from.
        summary.push_str(
            "; nothing to learn: no [!error] callout, and no [!user] words that correct the agent's work",
        );
    }
    if skipped > 0 {
        summary.push_str(&format!("; {skipped} invalid files skipped"));
    }
    if let Some(p) = output {
        summary.push_str(&format!("; written to {}", p.display()));
    }
    summary
}

/// The files to read, oldest session first, and how many matching files
/// the index could not read.
fn sources(ctx: &Context, args: &LearnArgs) -> anyhow::Result<(Vec<Source>, usize)> {
    if !args.sessions.is_empty() {
        let mut out = Vec::new();
        for q in &args.sessions {
            let path = ctx.store.resolve(q).map_err(CliError::from)?;
            let live = journal_path(&path).exists();
            out.push(Source { path, live });
        }
        return Ok((out, 0));
    }
    let filter = args.filters.filter()?;
    let (rows, skipped) = super::query::oldest_first_rows(ctx, &filter)?;
    let sources = rows
        .iter()
        .map(|r| {
            let path = ctx.store.dir().join(&r.path);
            let live = journal_path(&path).exists();
            Source { path, live }
        })
        .collect();
    Ok((sources, skipped))
}

/// How far the readers may run ahead of the writer, in sessions: memory
/// holds at most this many sessions' cases.
const WINDOW: usize = 1024;

/// A case as a worker hands it back: rendered already, so that the writing
/// thread only writes.
struct Rendered {
    id: String,
    kind: CaseKind,
    text: Option<String>,
}

/// Reads every source into rendered cases on all cores but one, while this
/// thread hands them to `write` in the order of `sources` (its second
/// argument is how many sessions are done; it returns false to stop).
/// Returns how many files could not be read; each is reported on stderr.
fn read_in_order(
    store: &SessionStore<MarkdownCodec>,
    sources: &[Source],
    filter: CaseFilter,
    redactor: Option<&Redactor>,
    export: Export,
    mut write: impl FnMut(usize, Vec<Rendered>) -> bool,
) -> usize {
    let mut bad = 0;
    let work = |src: &Source| -> Result<Vec<Rendered>, String> {
        let Some(log) = load(store, src)? else {
            return Ok(Vec::new());
        };
        Ok(cases_of(&log, filter)
            .into_iter()
            .map(|c| {
                let c = match redactor {
                    Some(r) => c.redacted(r),
                    None => c,
                };
                Rendered {
                    text: render(&c, export),
                    kind: c.meta.kind,
                    id: c.meta.case_id,
                }
            })
            .collect())
    };
    crate::in_order::map_in_order(sources, WINDOW, work, |i, cases| match cases {
        Ok(cases) => write(i + 1, cases),
        Err(e) => {
            bad += 1;
            eprintln!("warning: skipped {e}");
            write(i + 1, Vec::new())
        }
    });
    bad
}

/// The session, or `None` when its text has no `[!error` or `[!user`
/// callout (and so no case): most files are then not parsed at all.
fn load(store: &SessionStore<MarkdownCodec>, src: &Source) -> Result<Option<SessionLog>, String> {
    if src.live {
        return store
            .load_path(&src.path)
            .map(Some)
            .map_err(|e| e.to_string());
    }
    let bytes = store.read_bytes(&src.path).map_err(|e| e.to_string())?;
    if !crucible_learn::may_have_cases(&bytes) {
        return Ok(None);
    }
    crucible_parser::parse_session(&src.path, &bytes)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// Writes through `write` into a temporary file beside `path`, renamed over
/// it at the end: a reader never sees half an export.
fn write_to_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> anyhow::Result<Written>,
) -> anyhow::Result<Written> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let err = |e: std::io::Error| CliError::new(format!("{}: cannot write: {e}", path.display()));
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(err)?;
    let mut out = std::io::BufWriter::new(tmp);
    let written = write(&mut out)?;
    let tmp = out.into_inner().map_err(|e| err(e.into_error()))?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(written)
}
