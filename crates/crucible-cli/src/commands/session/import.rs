//! `cru session import PATH... [--from auto|openai-messages|agent-dir|codeloops|connectonion|claude-code|codex] [--force]`.

use std::collections::HashMap;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use crucible_core::store::IdAllocator;
use crucible_core::{SessionData, SessionLog};
use crucible_interop::{Format, Imported, Provenance, content_hash};
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
}

/// The `source_hash` of a parent whose children are not all imported and
/// linked yet: it matches no source, so the next import finishes the job.
const PENDING: &str = "pending";

/// How far readers may run ahead of the store, in sources.
const WINDOW: usize = 64;

pub fn run(ctx: &Context, args: &ImportArgs) -> anyhow::Result<Outcome> {
    let format = match args.from {
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
    };
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
    let mut run = ImportRun {
        existing: Imports::new(imported_sessions(ctx)),
        ids: IdAllocator::new(&ctx.store).map_err(CliError::from)?,
        force: args.force,
        tally: Tally::default(),
    };
    let mut sources = Vec::new();
    for p in &args.paths {
        let p = std::path::absolute(p).unwrap_or_else(|_| p.clone());
        let found = crucible_interop::find_sources(&p, format);
        for (path, why) in &found.skipped {
            eprintln!("warning: {}: skipped: {why}", path.display());
            run.tally.skipped += 1;
        }
        if !found.unrecognized.is_empty() && !found.sources.is_empty() {
            eprintln!(
                "{} files under {} are of no format cru imports (first: {})",
                found.unrecognized.len(),
                p.display(),
                found.unrecognized[0].display()
            );
        }
        let found = found.sources;
        if found.is_empty() {
            eprintln!(
                "error: {}: nothing cru can import here (expected {})",
                p.display(),
                format.map_or(
                    "files or folders of a format cru reads; see cru session import --help",
                    |f| f.as_str()
                )
            );
            run.tally.skipped += 1;
        }
        sources.extend(found);
    }
    let bar = progress::bar("importing");
    let mut failed: Option<anyhow::Error> = None;
    // Sources are read and converted on every core; the store is written
    // from this thread, in source order, so ids come out the same each time.
    crate::in_order::map_in_order(
        &sources,
        WINDOW,
        |(src, fmt)| crucible_interop::import(src, *fmt),
        |i, imported| {
            match imported {
                Ok(imp) => {
                    for w in &imp.warnings {
                        bar.suspend(|| eprintln!("warning: {w}"));
                    }
                    let records = imp.all_records();
                    bar.suspend(|| eprintln!("{}: {records}", imp.provenance.path));
                    let damaged = records.skipped_count() > 0 || imp.has_warnings();
                    if ctx.strict && damaged {
                        bar.suspend(|| {
                            eprintln!(
                                "error: {}: not imported (--strict): records were skipped or damaged",
                                imp.provenance.path
                            );
                        });
                        run.tally.skipped += 1;
                    } else if let Err(e) = run.store_import(ctx, imp, &bar) {
                        failed = Some(e);
                        return false;
                    }
                }
                Err(e) => {
                    bar.suspend(|| eprintln!("error: {e}; skipped"));
                    run.tally.skipped += 1;
                }
            }
            progress::update_from(&bar, i + 1, sources.len(), 50);
            true
        },
    );
    progress::finish(&bar);
    if let Some(e) = failed {
        return Err(e);
    }
    let t = &run.tally;
    eprintln!(
        "{} created, {} updated, {} unchanged, {} skipped",
        t.created, t.updated, t.unchanged, t.skipped
    );
    Ok(Outcome::from_files(
        t.created + t.updated + t.unchanged,
        t.skipped,
    ))
}

/// The sessions of the directory that came from an import: by source
/// path, and by format and source id for sources that moved.
struct Imports {
    by_path: HashMap<String, (PathBuf, SessionLog)>,
    /// (format, source id) → the source paths imported with them.
    by_id: HashMap<(String, String), Vec<String>>,
}

impl Imports {
    fn new(by_path: HashMap<String, (PathBuf, SessionLog)>) -> Self {
        let mut by_id: HashMap<(String, String), Vec<String>> = HashMap::new();
        for (path, (_, log)) in &by_path {
            if let Some(p) = Provenance::of(log)
                && let Some(id) = p.id
            {
                by_id.entry((p.format, id)).or_default().push(path.clone());
            }
        }
        Self { by_path, by_id }
    }

    /// The session imported before from this source: by its path, or, for
    /// a source that moved (Codex archives its rollouts, a user tidies a
    /// folder), by its format and its own id, if the path it was imported
    /// from is gone. Only an unambiguous match: two gone sources with one
    /// id are not guessed between.
    fn find(&self, provenance: &Provenance) -> Option<&(PathBuf, SessionLog)> {
        if let Some(found) = self.by_path.get(&provenance.path) {
            return Some(found);
        }
        let key = (provenance.format.clone(), provenance.id.clone()?);
        let mut gone = self
            .by_id
            .get(&key)?
            .iter()
            .filter(|old| !source_exists(old));
        match (gone.next(), gone.next()) {
            (Some(old), None) => self.by_path.get(old),
            _ => None,
        }
    }
}

/// Whether the source an import recorded is still there (`db#session`
/// names a session in a database file).
fn source_exists(path: &str) -> bool {
    let file = path.split_once('#').map_or(path, |(f, _)| f);
    std::path::Path::new(file).exists()
}

/// The sessions of the directory that came from an import, by source path.
fn imported_sessions(ctx: &Context) -> HashMap<String, (PathBuf, SessionLog)> {
    let mut out = HashMap::new();
    for f in ctx.store.scan().into_iter().flatten() {
        let Ok(bytes) = ctx.store.read_bytes(&f.path) else {
            continue;
        };
        // Only a file that may hold the provenance key can be an import.
        if !crucible_parser::read::may_hold_key(&bytes, crucible_interop::PROVENANCE_KEY) {
            continue;
        }
        if let Ok(log) = ctx.store.load_path(&f.path)
            && let Some(p) = Provenance::of(&log)
        {
            out.insert(p.path.clone(), (f.path, log));
        }
    }
    out
}

/// What became of one session of a source.
enum Fate {
    Created,
    Updated,
    Unchanged,
    /// Changed in cru since its import; left alone.
    Kept,
}

/// One `cru session import`: what the directory holds, the ids given so
/// far, and what became of each source.
struct ImportRun {
    /// Sessions imported before, by source path.
    existing: Imports,
    ids: IdAllocator,
    force: bool,
    tally: Tally,
}

impl ImportRun {
    /// Stores a source's session and its subagents' sessions, linked.
    fn store_import(
        &mut self,
        ctx: &Context,
        imp: Imported,
        bar: &ProgressBar,
    ) -> anyhow::Result<()> {
        let Imported {
            log,
            provenance,
            children,
            data,
            ..
        } = imp;
        if children.is_empty() {
            self.store_one(ctx, log, &data, &provenance, false, bar)?;
            return Ok(());
        }
        // A parent is first written as pending, and complete (its source's
        // hash, its links) only once every child is in place. A run killed
        // in between leaves a parent that the next run does not take for
        // imported already: it goes on where the killed run stopped.
        let (path, mut log, fate) = self.store_one(ctx, log, &data, &provenance, true, bar)?;
        let mut linked = Vec::new();
        for child in children {
            for w in &child.imported.warnings {
                bar.suspend(|| eprintln!("warning: {w}"));
            }
            let mut child_log = child.imported.log;
            child_log.frontmatter.parent = Some(log.id().clone());
            let (_, child_log, _) = self.store_one(
                ctx,
                child_log,
                &child.imported.data,
                &child.imported.provenance,
                false,
                bar,
            )?;
            linked.push((child_log, child.link));
        }
        // The parent is written again with its links only when it was written
        // now: one that is unchanged or kept already has them (or its own).
        if matches!(fate, Fate::Created | Fate::Updated) {
            crucible_interop::link_children(&mut log, &mut linked);
            let mut provenance = provenance;
            provenance.data_hash = Provenance::of(&log).and_then(|p| p.data_hash);
            provenance.session_hash = content_hash(&log);
            provenance.store(&mut log);
            ctx.store.save_to(&path, &log).map_err(CliError::from)?;
        }
        Ok(())
    }

    /// Stores one session: created, updated, or left as it is. Returns where it
    /// is and the session as stored (with its id). A session written
    /// `pending` gets [`PENDING`] for its source's hash, for the caller to
    /// complete.
    fn store_one(
        &mut self,
        ctx: &Context,
        mut log: SessionLog,
        data: &SessionData,
        provenance: &Provenance,
        pending: bool,
        bar: &ProgressBar,
    ) -> anyhow::Result<(PathBuf, SessionLog, Fate)> {
        // The sidecar's records, serialized once: hashed into the session's
        // `import` key (so `validate` can tell them changed) and written.
        let records = data.records_jsonl();
        let data_hash = (!records.is_empty()).then(|| crucible_interop::fnv_hex(&records));
        let written = Provenance {
            source_hash: if pending {
                PENDING.to_owned()
            } else {
                provenance.source_hash.clone()
            },
            data_hash,
            ..provenance.clone()
        };
        let tally = &mut self.tally;
        if let Some((path, old)) = self.existing.find(provenance) {
            let before = Provenance::of(old).expect("found by its provenance");
            // A source that moved is recorded at its new path (an update).
            if before.source_hash == provenance.source_hash && before.path == provenance.path {
                // A run killed between a session and its sidecar left the
                // sidecar out: it is written now.
                if !data.is_empty() && !crucible_core::data_path(path).exists() {
                    ctx.store
                        .save_data_records(path, old.id(), &records)
                        .map_err(CliError::from)?;
                }
                tally.unchanged += 1;
                return Ok((path.clone(), old.clone(), Fate::Unchanged));
            }
            let changed_in_cru = content_hash(old) != before.session_hash;
            if changed_in_cru && !self.force {
                bar.suspend(|| {
                    eprintln!(
                        "warning: {} was changed in cru since its import from {}; not updated (--force to replace it)",
                        old.id(),
                        provenance.path
                    );
                });
                tally.skipped += 1;
                return Ok((path.clone(), old.clone(), Fate::Kept));
            }
            log.frontmatter.session_id = old.id().clone();
            written.store(&mut log);
            // The sidecar first: a session is never newer than its data.
            ctx.store
                .save_data_records(path, log.id(), &records)
                .map_err(CliError::from)?;
            ctx.store.save_to(path, &log).map_err(CliError::from)?;
            bar.suspend(|| eprintln!("updated {} from {}", old.id(), provenance.path));
            tally.updated += 1;
            return Ok((path.clone(), log, Fate::Updated));
        }
        let started = log.frontmatter.started.clone();
        let title = log.frontmatter.title.clone();
        written.store(&mut log);
        let (path, created) = self
            .ids
            .create_new(&ctx.store, &started, title.as_deref(), &mut |id| {
                let mut l = log.clone();
                l.frontmatter.session_id = id;
                l
            })
            .map_err(CliError::from)?;
        ctx.store
            .save_data_records(&path, created.id(), &records)
            .map_err(CliError::from)?;
        bar.suspend(|| println!("{}", created.id()));
        tally.created += 1;
        Ok((path, created, Fate::Created))
    }
}
