//! `cru session import PATH... [--from auto|openai-messages|agent-dir|codeloops|connectonion|claude-code|codex] [--force]`.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use crucible_interop::reconcile::{self, Event, Fate, Reconciler};
use crucible_interop::{Format, Found};
use indicatif::ProgressBar;

use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::progress;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files or folders to import (a folder is searched for sources).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The source format; `auto` tells by content.
    #[arg(long, value_enum, default_value_t = From::Auto)]
    pub from: From,
    /// Update sessions that were changed in cru since their import.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum From {
    Auto,
    /// A JSON array or JSONL of OpenAI chat-completions messages.
    OpenaiMessages,
    /// `.agent/sessions/<YYYY-MM-DD-HH-MM-SS>/` folders (agent.log, todos.json).
    AgentDir,
    /// codeloops actor-critic sessions (JSONL).
    Codeloops,
    /// ConnectOnion `.co/sessions/<agent>.yaml`.
    Connectonion,
    /// Claude Code transcripts (`~/.claude/projects/<slug>/<session>.jsonl`).
    ClaudeCode,
    /// Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`)
    /// and saved `codex exec --json` event streams.
    Codex,
    /// Gemini CLI chats (`~/.gemini/tmp/<project hash>/chats/session-*.json[l]`).
    Gemini,
    /// GitHub Copilot CLI event logs (`~/.copilot/session-state/<id>/events.jsonl`).
    Copilot,
    /// OpenCode's session database (`~/.local/share/opencode/opencode.db`,
    /// one source per session) or older `storage/` folder.
    Opencode,
}

/// What happened to each source.
#[derive(Debug, Default)]
struct Tally {
    created: usize,
    updated: usize,
    unchanged: usize,
    skipped: usize,
    /// Paths already named as skipped: a folder walk and the importer of a
    /// source in it can both meet the same FIFO or link.
    named: std::collections::HashSet<PathBuf>,
}

impl Tally {
    /// Names a file left out whole, once, and counts it.
    fn skip(&mut self, path: &Path, why: &str, bar: Option<&ProgressBar>) {
        if self.named.insert(path.to_owned()) {
            let say = || eprintln!("warning: {}: skipped: {why}", path.display());
            match bar {
                Some(bar) => bar.suspend(say),
                None => say(),
            }
            self.skipped += 1;
        }
    }
}

/// How far readers may run ahead of the store, in sources.
const WINDOW: usize = 64;

impl From {
    fn format(self) -> Option<Format> {
        match self {
            From::Auto => None,
            From::OpenaiMessages => Some(Format::OpenAiMessages),
            From::AgentDir => Some(Format::AgentDir),
            From::Codeloops => Some(Format::Codeloops),
            From::Connectonion => Some(Format::ConnectOnion),
            From::ClaudeCode => Some(Format::ClaudeCode),
            From::Codex => Some(Format::Codex),
            From::Gemini => Some(Format::Gemini),
            From::Copilot => Some(Format::Copilot),
            From::Opencode => Some(Format::OpenCode),
        }
    }
}

pub fn run(ctx: &Context, args: &ImportArgs) -> anyhow::Result<Outcome> {
    let format = args.from.format();
    std::fs::create_dir_all(ctx.store.dir())
        .map_err(|e| CliError::new(format!("{}: {e}", ctx.store.dir().display())))?;
    // An import killed half way is run again: what it left half written goes.
    let stale = ctx
        .store
        .remove_stale_temp_files()
        .map_err(CliError::from)?;
    if stale > 0 {
        tracing::info!(stale, "removed temporary files of an interrupted write");
    }
    let mut tally = Tally::default();
    let sources = sources(&args.paths, format, &mut tally);
    import_listed_into(ctx, &sources, args.force, &|_| {}, &mut tally)?;
    let t = &tally;
    eprintln!(
        "{} created, {} updated, {} unchanged, {} skipped",
        t.created, t.updated, t.unchanged, t.skipped
    );
    Ok(Outcome::from_files(
        t.created + t.updated + t.unchanged,
        t.skipped,
    ))
}

/// What an import of listed sources did (`cru watch` imports through it).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ImportReport {
    pub created: usize,
    pub updated: usize,
    pub unchanged: usize,
    pub skipped: usize,
}

/// Imports `sources` as `cru session import` does (the same messages),
/// each [`Prepared`](reconcile::Prepared) passed through `adjust` before
/// it is stored (`cru watch` marks a source still being written as live).
pub fn import_listed(
    ctx: &Context,
    sources: &[(PathBuf, Format)],
    force: bool,
    adjust: &(dyn Fn(&mut reconcile::Prepared) + Sync),
) -> anyhow::Result<ImportReport> {
    let mut tally = Tally::default();
    import_listed_into(ctx, sources, force, adjust, &mut tally)?;
    Ok(ImportReport {
        created: tally.created,
        updated: tally.updated,
        unchanged: tally.unchanged,
        skipped: tally.skipped,
    })
}

fn import_listed_into(
    ctx: &Context,
    sources: &[(PathBuf, Format)],
    force: bool,
    adjust: &(dyn Fn(&mut reconcile::Prepared) + Sync),
    tally: &mut Tally,
) -> anyhow::Result<()> {
    // One durability point for the whole import: each file is written
    // atomically as ever, and what it creates is synced once, at the end
    // (see docs/interop.md, "Durability").
    let store = ctx.store.clone().for_bulk_write();
    let mut reconciler = Reconciler::new(&store, force).map_err(CliError::from)?;
    let bar = progress::bar("importing");
    let mut failed: Option<anyhow::Error> = None;
    // Sources are read and converted on every core; the store is written
    // from this thread, in source order, so ids come out the same each time.
    crate::in_order::map_in_order(
        sources,
        WINDOW,
        |(src, fmt)| {
            crucible_interop::import(src, *fmt).map(|imported| {
                let mut prepared = reconcile::prepare(imported);
                adjust(&mut prepared);
                prepared
            })
        },
        |i, prepared| {
            match prepared {
                Ok(prepared) => {
                    let imp = &prepared.imported;
                    for w in &imp.warnings {
                        bar.suspend(|| eprintln!("warning: {w}"));
                    }
                    let left_out = imp.all_skipped_files();
                    for s in &left_out {
                        tally.skip(&s.path, &s.reason, Some(&bar));
                    }
                    let records = imp.all_records();
                    bar.suspend(|| eprintln!("{}: {records}", imp.provenance.path));
                    let damaged =
                        records.skipped_count() > 0 || imp.has_warnings() || !left_out.is_empty();
                    if ctx.strict && damaged {
                        bar.suspend(|| {
                            eprintln!(
                                "error: {}: not imported (--strict): records were skipped or damaged",
                                imp.provenance.path
                            );
                        });
                        tally.skipped += 1;
                    } else if let Err(e) =
                        reconciler.store_prepared(prepared, &mut |event| render(event, &bar, tally))
                    {
                        failed = Some(CliError::from(e).into());
                        return false;
                    }
                }
                Err(e) => {
                    bar.suspend(|| eprintln!("error: {e}; skipped"));
                    tally.skipped += 1;
                }
            }
            progress::update_from(&bar, i + 1, sources.len(), 50);
            true
        },
    );
    progress::finish(&bar);
    // Synced even when a source failed: what was stored before it stays.
    let synced = store.sync_bulk().map_err(CliError::from);
    if let Some(e) = failed {
        return Err(e);
    }
    synced.map_err(Into::into)
}

/// The sources under each path, saying what was skipped or unrecognized.
fn sources(paths: &[PathBuf], format: Option<Format>, tally: &mut Tally) -> Vec<(PathBuf, Format)> {
    let mut sources = Vec::new();
    for p in paths {
        let p = std::path::absolute(p).unwrap_or_else(|_| p.clone());
        let Found {
            sources: found,
            skipped,
            unrecognized,
        } = crucible_interop::find_sources(&p, format);
        for (path, why) in &skipped {
            tally.skip(path, why, None);
        }
        if !unrecognized.is_empty() && !found.is_empty() {
            eprintln!(
                "{} files under {} are of no format cru imports (first: {})",
                unrecognized.len(),
                p.display(),
                unrecognized[0].display()
            );
        }
        if found.is_empty() {
            eprintln!(
                "error: {}: nothing cru can import here (expected {})",
                p.display(),
                format.map_or(
                    "files or folders of a format cru reads; see cru session import --help",
                    |f| f.as_str()
                )
            );
            tally.skipped += 1;
        }
        sources.extend(found);
    }
    sources
}

/// Says what became of a session: a new id on stdout (for scripts), the
/// rest on stderr.
fn render(event: Event<'_>, bar: &ProgressBar, tally: &mut Tally) {
    let stored = match event {
        Event::Warning(w) => {
            bar.suspend(|| eprintln!("warning: {w}"));
            return;
        }
        Event::Stored(s) => s,
    };
    match stored.fate {
        Fate::Created => {
            bar.suspend(|| println!("{}", stored.id));
            tally.created += 1;
        }
        Fate::Updated => {
            bar.suspend(|| eprintln!("updated {} from {}", stored.id, stored.source));
            tally.updated += 1;
        }
        Fate::Unchanged => tally.unchanged += 1,
        Fate::Kept => {
            bar.suspend(|| {
                eprintln!(
                    "warning: {} was changed in cru since its import from {}; not updated (--force to replace it)",
                    stored.id, stored.source
                );
            });
            tally.skipped += 1;
        }
    }
}
