//! Bringing cru up to the files: the sources imported, the index and the
//! search index made fresh.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use crucible_index::{Filter, SessionIndex};

use super::live::Live;
use super::sources::Sources;
use crate::commands::session::import::{self, WatchedImport};
use crate::context::Context;

/// Everything once: every source new or changed since it was last read,
/// then the indexes (`--once`, a watcher's start, the catch-up after lost
/// events). Says what it did in one line.
pub fn everything(ctx: &Context, sources: &mut Sources, live: &mut Live) -> anyhow::Result<bool> {
    let now = SystemTime::now();
    let marked = Mutex::new(Vec::new());
    let done = import::import_watched(ctx, &mut |state| sources.plan_all(state, None), &|p| {
        live.mark(p, now, &marked)
    })?;
    after_import(sources, live, &done, marked);
    say_caught_up(ctx, &done);
    let quiet = live.gone_quiet(SystemTime::now());
    settle(ctx, sources, live, &quiet)?;
    Ok(indexes(ctx, None))
}

/// The line a catch-up ends with.
fn say_caught_up(ctx: &Context, done: &WatchedImport) {
    let r = &done.report;
    let mut also = String::new();
    if r.not_captured > 0 {
        also += &format!(", {} left out by [capture]", r.not_captured);
    }
    if done.to_projects > 0 {
        also += &format!(", {} into their project's own sessions", done.to_projects);
    }
    if r.live > 0 {
        also += &format!(", {} being recorded by Claude Code's hooks", r.live);
    }
    if r.skipped > 0 {
        also += &format!(", {} skipped", r.skipped);
    }
    eprintln!(
        "caught up into {}: {} sources, {} parsed: {} created, {} updated, {} unchanged{also}",
        ctx.store.dir().display(),
        done.sources,
        r.parsed,
        r.created,
        r.updated,
        r.unchanged
    );
}

fn after_import(
    sources: &mut Sources,
    live: &mut Live,
    done: &WatchedImport,
    marked: Mutex<Vec<(PathBuf, super::live::Activity)>>,
) {
    sources.imported(&done.read);
    live.stored(&done.read, marked.into_inner().unwrap_or_default());
}

/// Imports what the changes at `changed` concern, marking the sources
/// written lately as live.
pub fn import_changed(
    ctx: &Context,
    sources: &mut Sources,
    live: &mut Live,
    changed: &BTreeSet<PathBuf>,
) -> anyhow::Result<()> {
    if changed.is_empty() {
        return Ok(());
    }
    let now = SystemTime::now();
    let marked = Mutex::new(Vec::new());
    let done = import::import_watched(
        ctx,
        &mut |state| sources.plan_changed(changed, state),
        &|p| live.mark(p, now, &marked),
    )?;
    after_import(sources, live, &done, marked);
    Ok(())
}

/// Imports the sources under `root` (a store that appeared).
pub fn import_root(
    ctx: &Context,
    sources: &mut Sources,
    live: &mut Live,
    root: &Path,
) -> anyhow::Result<()> {
    let now = SystemTime::now();
    let marked = Mutex::new(Vec::new());
    let done = import::import_watched(
        ctx,
        &mut |state| sources.plan_all(state, Some(root)),
        &|p| live.mark(p, now, &marked),
    )?;
    after_import(sources, live, &done, marked);
    Ok(())
}

/// Imports again, as the importer has them (paused), the live sources
/// that went quiet.
pub fn settle(
    ctx: &Context,
    sources: &mut Sources,
    live: &mut Live,
    quiet: &[PathBuf],
) -> anyhow::Result<()> {
    if quiet.is_empty() {
        return Ok(());
    }
    let changed = quiet.iter().cloned().collect();
    // No marking: quiet sources are stored as a one-shot import has them.
    let done = import::import_watched(
        ctx,
        &mut |state| sources.plan_changed(&changed, state),
        &|_| false,
    )?;
    after_import(sources, live, &done, Mutex::new(Vec::new()));
    Ok(())
}

/// Brings the index and the search index up to the session files, by the
/// same freshness proof a read runs (the watcher never trusts itself);
/// with `idle`, the idle rule first: every active session idle that long
/// is paused, as `cru session pause --idle` does (run when a live source
/// was deleted: nothing else would settle its session).
/// True when both were saved, so that readers may trust them.
pub fn indexes(ctx: &Context, idle: Option<std::time::Duration>) -> bool {
    if let Some(idle) = idle {
        // Every active session is looked at (as `cru session pause
        // --idle` does), those just changed too.
        match SessionIndex::new(&ctx.store).open(Some(idle), &|_, _| {}) {
            Ok(opened) => {
                for id in &opened.paused {
                    eprintln!("paused {id}: idle for [session] idle_timeout");
                }
            }
            Err(e) => eprintln!("warning: the idle rule could not be applied: {e}"),
        }
    }
    let index = SessionIndex::new(&ctx.store)
        .without_usage()
        .proving_freshness();
    let visited = index.visit(None, &Filter::default(), &|_, _| {}, &|| (), &|(), _, _| {});
    if let Err(e) = &visited {
        eprintln!("warning: the index could not be brought up to date: {e}");
    }
    let dir = ctx.store.dir();
    let searched = crucible_search::catch_up_fully(dir, ctx.store.max_file_bytes());
    if let Err(e) = &searched {
        eprintln!("warning: the search index could not be brought up to date: {e}");
    }
    visited.is_ok() && index.saved_everything() && searched.is_ok_and(|committed| committed)
}
