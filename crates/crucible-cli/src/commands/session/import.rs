//! `cru session import [PATH...] [--from auto|openai-messages|agent-dir|codeloops|connectonion|claude-code|codex] [--force] [--list-sources]`.
//!
//! With paths, what they hold; with none, every agent store found on this
//! machine ([`discovered`]), reading only its new or grown sources.

mod captured_elsewhere;
mod discovered;
mod list_sources;
mod routing;
mod watched;

pub use captured_elsewhere::{captured_elsewhere, note as captured_elsewhere_note};
pub use discovered::{capture_context, store_env};
pub use watched::{Planned, WatchedImport, import_watched};

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use crucible_interop::reconcile::{self, Event, Fate, Reconciler};
use crucible_interop::{Format, Found, Imported};
use crucible_parser::MarkdownCodec;
use indicatif::ProgressBar;

use crucible_core::store::lock::DirLock;

use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::progress;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files or folders to import (a folder is searched for sources). With
    /// none: every agent store found on this machine (Claude Code, Codex,
    /// Gemini CLI, GitHub Copilot CLI, OpenCode; see --list-sources), only
    /// their new or grown sources, into the user's sessions directory.
    pub paths: Vec<PathBuf>,
    /// The source format; `auto` tells by content.
    #[arg(long, value_enum, default_value_t = From::Auto)]
    pub from: From,
    /// Update sessions that were changed in cru since their import.
    #[arg(long)]
    pub force: bool,
    /// Show the agent stores an import with no path reads (found or not,
    /// and why not) and how many sources each holds; import nothing.
    #[arg(long, conflicts_with = "paths")]
    pub list_sources: bool,
    /// How --list-sources prints the stores.
    #[arg(long, value_enum, default_value_t = SourcesFormat::Table, requires = "list_sources")]
    pub format: SourcesFormat,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SourcesFormat {
    /// One row per store.
    Table,
    /// `{"version": 1, "stores": [...]}` (docs/json.md).
    Json,
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
pub(crate) struct Tally {
    /// Sources handed to an importer (read whole).
    parsed: usize,
    /// Sessions of projects whose capture is off, left out.
    not_captured: usize,
    /// Agent files with no conversation, counted quietly.
    empty: usize,
    /// Sessions Claude Code's hooks are recording live, left to them.
    live: usize,
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
    if args.list_sources {
        return list_sources::list_sources(ctx, args.format);
    }
    if args.paths.is_empty() {
        return discovered::run(ctx, args);
    }
    let format = args.from.format();
    let _import = prepare_dir(ctx)?;
    // One durability point for the whole import: each file is written
    // atomically as ever, and what it creates is synced once, at the end
    // (see docs/interop.md, "Durability").
    let store = ctx.store.clone().for_bulk_write();
    let mut reconciler = Reconciler::new(&store, args.force).map_err(CliError::from)?;
    let mut tally = Tally::default();
    let sources = sources(&args.paths, format, &mut tally);
    let imported = import_sources(ctx, &mut reconciler, &sources, &mut tally, &mut StoreAll);
    // Synced even when a source failed: what was stored before it stays.
    let synced = store.sync_bulk().map_err(CliError::from);
    imported?;
    synced?;
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

/// Makes the sessions directory, takes its import lock (held until the
/// guard is dropped: imports run one at a time, each looking for the
/// session a source made before it creates one), and clears what an
/// import killed half way left half written.
fn prepare_dir(ctx: &Context) -> anyhow::Result<DirLock> {
    std::fs::create_dir_all(ctx.store.dir())
        .map_err(|e| CliError::new(format!("{}: {e}", ctx.store.dir().display())))?;
    let lock_file = ctx
        .store
        .dir()
        .join(crucible_core::store::names::IMPORT_LOCK);
    let held = match DirLock::acquire_file(&lock_file, Some(std::time::Duration::ZERO)) {
        Ok(held) => held,
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
            eprintln!(
                "another import into {} is running; waiting for it",
                ctx.store.dir().display()
            );
            DirLock::acquire_file(&lock_file, None)
                .map_err(|e| CliError::new(format!("{}: {e}", lock_file.display())))?
        }
        Err(e) => return Err(CliError::new(format!("{}: {e}", lock_file.display())).into()),
    };
    let stale = ctx
        .store
        .remove_stale_temp_files()
        .map_err(CliError::from)?;
    if stale > 0 {
        tracing::info!(stale, "removed temporary files of an interrupted write");
    }
    Ok(held)
}

/// What to do with a source read, before it is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    Store,
    /// Not here: its project captures nothing (counted as left out).
    Leave,
    /// Not here: it goes elsewhere (its project keeps its own sessions).
    Defer,
    /// Not now: Claude Code's hooks are recording it live (read again at
    /// the next import, after it ended).
    Later,
}

/// How a source read ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SourceEnd {
    /// Stored (or found unchanged, or kept as changed in cru).
    Stored,
    /// Left out by [`SourceSink::keep`].
    Left,
    /// Handed back by [`SourceSink::keep`], to be stored elsewhere.
    Deferred,
    /// Refused by its importer (damaged beyond use, empty).
    Failed,
    /// Not stored for now: `--strict` refused it, or it could not be read.
    Retry,
}

/// Who decides, for each source read, whether it is stored here, and
/// hears how it ended.
pub(crate) trait SourceSink {
    fn keep(&mut self, source: &Path, imported: &Imported) -> Keep;
    fn done(&mut self, source: &Path, end: SourceEnd);
    /// Changes a source to be stored before it is stored (`cru watch`
    /// marks one still being written as live).
    fn adjust(&mut self, _source: &Path, _prepared: &mut reconcile::Prepared) {}
    /// Whether each source stored is named with the records read from it
    /// (otherwise only with `-v`: a watcher's journal would fill up).
    fn per_file_lines(&self) -> bool {
        true
    }
    /// Whether an agent file with no conversation in it is counted
    /// quietly rather than named as an error: in the agents' own stores
    /// they are common (summaries, snapshots), in a path named to import
    /// one is worth saying.
    fn quiet_empty(&self) -> bool {
        false
    }
}

/// Stores every source, and forgets how it went (paths named to import).
struct StoreAll;

impl SourceSink for StoreAll {
    fn keep(&mut self, _: &Path, _: &Imported) -> Keep {
        Keep::Store
    }
    fn done(&mut self, _: &Path, _: SourceEnd) {}
}

/// Reads `sources` on every core and stores them from this thread, in
/// source order, so ids come out the same each time. `sink` may leave a
/// source read out, and hears how each one ended.
pub(crate) fn import_sources(
    ctx: &Context,
    reconciler: &mut Reconciler<'_, MarkdownCodec>,
    sources: &[(PathBuf, Format)],
    tally: &mut Tally,
    sink: &mut dyn SourceSink,
) -> anyhow::Result<()> {
    let bar = progress::bar("importing");
    let per_file = sink.per_file_lines();
    let mut failed: Option<anyhow::Error> = None;
    tally.parsed += sources.len();
    let run = crucible_interop::ImportRun::default();
    crate::in_order::map_in_order(
        sources,
        WINDOW,
        |(src, fmt)| run.import(src, *fmt).map(reconcile::prepare),
        |i, prepared| {
            let source = &sources[i].0;
            match prepared {
                Ok(mut prepared) => match sink.keep(source, &prepared.imported) {
                    Keep::Leave => {
                        tally.not_captured += 1;
                        sink.done(source, SourceEnd::Left);
                    }
                    Keep::Defer => sink.done(source, SourceEnd::Deferred),
                    Keep::Later => {
                        tally.live += 1;
                        sink.done(source, SourceEnd::Left);
                    }
                    Keep::Store => {
                        sink.adjust(source, &mut prepared);
                        match store_one(ctx, reconciler, prepared, &bar, tally, per_file) {
                            Ok(end) => sink.done(source, end),
                            Err(e) => {
                                failed = Some(e);
                                return false;
                            }
                        }
                    }
                },
                Err(e @ crucible_interop::ImportError::Empty { .. }) if sink.quiet_empty() => {
                    tracing::info!("{e}");
                    tally.empty += 1;
                    sink.done(source, SourceEnd::Failed);
                }
                Err(e) => {
                    bar.suspend(|| eprintln!("error: {e}; skipped"));
                    tally.skipped += 1;
                    let end = match e {
                        crucible_interop::ImportError::Read { .. } => SourceEnd::Retry,
                        _ => SourceEnd::Failed,
                    };
                    sink.done(source, end);
                }
            }
            progress::update_from(&bar, i + 1, sources.len(), 50);
            true
        },
    );
    progress::finish(&bar);
    failed.map_or(Ok(()), Err)
}

/// Stores one source read, saying what it skipped.
fn store_one(
    ctx: &Context,
    reconciler: &mut Reconciler<'_, MarkdownCodec>,
    prepared: reconcile::Prepared,
    bar: &ProgressBar,
    tally: &mut Tally,
    per_file: bool,
) -> anyhow::Result<SourceEnd> {
    let imp = &prepared.imported;
    for w in &imp.warnings {
        bar.suspend(|| eprintln!("warning: {w}"));
    }
    let left_out = imp.all_skipped_files();
    for s in &left_out {
        tally.skip(&s.path, &s.reason, Some(bar));
    }
    let records = imp.all_records();
    if per_file {
        // Formatted first and written whole: standard error is unbuffered,
        // and the tally's parts were eight writes a file.
        let line = format!("{}: {records}\n", imp.provenance.path);
        bar.suspend(|| {
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
        });
    } else {
        tracing::info!("{}: {records}", imp.provenance.path);
    }
    let damaged = records.skipped_count() > 0 || imp.has_warnings() || !left_out.is_empty();
    if ctx.strict && damaged {
        bar.suspend(|| {
            eprintln!(
                "error: {}: not imported (--strict): records were skipped or damaged",
                imp.provenance.path
            );
        });
        tally.skipped += 1;
        return Ok(SourceEnd::Retry);
    }
    reconciler
        .store_prepared(prepared, &mut |event| render(event, bar, tally))
        .map_err(CliError::from)?;
    Ok(SourceEnd::Stored)
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
