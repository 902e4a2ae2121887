//! `cru session import` with no path: every agent store found on this
//! machine, only its new or grown sources, into the user's sessions
//! directory ([`Context::for_capture`]).

use std::path::{Path, PathBuf};

use crucible_interop::import_state::{ImportState, Rebuilt};
use crucible_interop::reconcile::Reconciler;
use crucible_interop::store_scan::{StorePlan, plan_store};
use crucible_interop::stores::{AgentStore, Presence, StoreEnv, agent_name, agent_stores};

use super::routing::{CaptureSink, How, Router, store_deferred};
use super::{ImportArgs, Tally, import_sources, prepare_dir};
use crate::cli::GlobalArgs;
use crate::context::Context;
use crate::error::{CliError, Outcome};

/// The places the agents' stores depend on, from this process's environment.
pub fn store_env() -> StoreEnv {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(|v| v.to_string_lossy().into_owned())
    };
    // Absolute, as a path named to `cru session import` is made: a
    // session records the path it was imported from, and a relative one
    // would not match the same file found another day from elsewhere.
    let absolute =
        |p: String| std::path::absolute(&p).map_or(p, |a| a.to_string_lossy().into_owned());
    let dirs = |list: String| {
        list.split(',')
            .map(|d| match d.trim() {
                "" => String::new(),
                d => absolute(d.to_owned()),
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    StoreEnv {
        home: var("HOME").map(absolute).map(PathBuf::from),
        claude_config_dir: var("CLAUDE_CONFIG_DIR").map(dirs),
        codex_home: var("CODEX_HOME").map(absolute),
        xdg_config_home: var("XDG_CONFIG_HOME").map(absolute).map(PathBuf::from),
        xdg_data_home: var("XDG_DATA_HOME").map(absolute).map(PathBuf::from),
    }
}

/// What an import of changed sources did, for a caller that reports it
/// itself (`cru watch`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Sources read whole (the rest were skipped on a stat).
    pub parsed: usize,
    pub created: usize,
    pub updated: usize,
    pub unchanged: usize,
    pub skipped: usize,
    /// Sessions of projects with capture off (or kept by the project).
    pub not_captured: usize,
    /// Agent files that hold no conversation (only summary or snapshot
    /// lines: Claude Code writes them for resumed and compacted sessions).
    pub empty: usize,
    /// Sessions Claude Code's hooks are recording live, left to them.
    pub live: usize,
}

impl ImportReport {
    pub(super) fn of(t: &Tally) -> Self {
        Self {
            parsed: t.parsed,
            created: t.created,
            updated: t.updated,
            unchanged: t.unchanged,
            skipped: t.skipped,
            not_captured: t.not_captured,
            empty: t.empty,
            live: t.live,
        }
    }

    pub(super) fn minus(self, before: Self) -> Self {
        Self {
            parsed: self.parsed - before.parsed,
            created: self.created - before.created,
            updated: self.updated - before.updated,
            unchanged: self.unchanged - before.unchanged,
            skipped: self.skipped - before.skipped,
            not_captured: self.not_captured - before.not_captured,
            empty: self.empty - before.empty,
            live: self.live - before.live,
        }
    }
}

/// The context capture writes through, keeping the command's `--dir`
/// and `--strict`.
pub fn capture_context(ctx: &Context) -> anyhow::Result<Context> {
    let global = GlobalArgs {
        verbose: 0,
        dir: ctx.flag_dir.clone(),
        strict: ctx.strict,
    };
    Context::for_capture(&global, None)
}

/// The import state of the capture directory; a state that had to be
/// rebuilt is said with `-v`.
pub(super) fn load_state(cap: &Context) -> ImportState {
    let (state, rebuilt) = ImportState::load(cap.store.dir());
    match rebuilt {
        None | Some(Rebuilt::Missing) => {}
        Some(why) => tracing::info!(?why, "import state rebuilt: every source is read once"),
    }
    state
}

pub fn run(ctx: &Context, args: &ImportArgs) -> anyhow::Result<Outcome> {
    let cap = capture_context(ctx)?;
    let _import = prepare_dir(&cap)?;
    let stores = agent_stores(&store_env());
    let mut state = load_state(&cap);
    let mut tally = Tally::default();
    let mut plans = Vec::new();
    for store in &stores {
        match &store.presence {
            Presence::Found => {
                let plan = plan_store(store, &state, args.force);
                for (path, why) in &plan.skipped {
                    tally.skip(path, why, None);
                }
                plans.push((store, plan));
            }
            Presence::Missing => tracing::info!(root = %store.root.display(), "no store"),
            Presence::Refused(why) => {
                tally.skip(&store.root, why, None);
            }
        }
    }
    if plans.is_empty() {
        eprintln!(
            "no agent store found on this machine (`cru session import --list-sources` shows where cru looked)"
        );
    }
    let labelled: Vec<(String, StorePlan, Option<PathBuf>)> = plans
        .into_iter()
        .map(|(s, p)| (label(s), p, Some(s.root.clone())))
        .collect();
    // Sources skipped on a stat (unchanged since they were read) are done
    // too: a FIFO or a link beside them must not make the run a failure.
    let known: usize = labelled.iter().map(|(_, p, _)| p.total()).sum();
    let how = How {
        adjust: &|_| false,
        report: true,
    };
    let result = import_plans(
        &cap, labelled, &mut state, args.force, &mut tally, how, &mut 0,
    );
    save_state(&cap, &state);
    result?;
    let t = &tally;
    eprintln!(
        "{} parsed into {}: {} created, {} updated, {} unchanged, {} skipped",
        t.parsed,
        cap.store.dir().display(),
        t.created,
        t.updated,
        t.unchanged,
        t.skipped
    );
    let read = t.created + t.updated + t.unchanged + t.not_captured + t.empty + t.live;
    Ok(Outcome::from_files(
        read.max(known.saturating_sub(t.parsed)),
        t.skipped,
    ))
}

/// A store as one line of the report names it.
fn label(s: &AgentStore) -> String {
    format!(
        "{}: {} ({})",
        agent_name(s.format),
        s.root.display(),
        s.origin
    )
}

pub(super) fn save_state(cap: &Context, state: &ImportState) {
    if !state.is_changed() {
        return;
    }
    if let Err(e) = state.save(cap.store.dir()) {
        // Only speed is lost: the next import reads every source again.
        eprintln!(
            "warning: {}: import state not saved: {e}",
            cap.store.dir().display()
        );
    }
}

/// Imports each store's plan, one report line per store, and records in
/// `state` what was read. The reconciler (which reads every session of
/// the directory) is made only if something is to be read. Sessions of
/// projects that keep their own go there after.
pub(super) fn import_plans(
    cap: &Context,
    plans: Vec<(String, StorePlan, Option<PathBuf>)>,
    state: &mut ImportState,
    force: bool,
    tally: &mut Tally,
    how: How<'_>,
    to_projects: &mut usize,
) -> anyhow::Result<()> {
    let store = cap.store.clone().for_bulk_write();
    let mut reconciler = None;
    let mut router = Router::new(cap);
    let mut deferred = Vec::new();
    let mut result = Ok(());
    for (label, plan, root) in plans {
        let before = ImportReport::of(tally);
        let deferred_before = deferred.len();
        let by_user_before = router.left_by_user;
        if !plan.sources.is_empty() && result.is_ok() {
            let rec = match &mut reconciler {
                Some(r) => r,
                None => reconciler.insert(Reconciler::new(&store, force).map_err(CliError::from)?),
            };
            let mut sink = CaptureSink {
                plan: &plan,
                state,
                router: &mut router,
                deferred: &mut deferred,
                sessions: cap.store.dir(),
                how,
                live: std::collections::HashSet::new(),
            };
            result = import_sources(cap, rec, &plan.sources, tally, &mut sink);
        }
        plan.record_others(state);
        // A whole store was walked: what it no longer holds is forgotten.
        if let Some(root) = &root {
            state.forget_gone(root, &plan.seen);
        }
        let d = ImportReport::of(tally).minus(before);
        let by_user = router.left_by_user - by_user_before;
        let also = report_extras(
            &d,
            by_user,
            &router.user_config(),
            deferred.len() - deferred_before,
            &plan
                .others
                .iter()
                .map(|(p, _)| p.as_path())
                .collect::<Vec<_>>(),
        );
        if how.report {
            eprintln!(
                "{label}: {} sources, {} parsed: {} created, {} updated, {} unchanged{also}",
                plan.total(),
                d.parsed,
                d.created,
                d.updated,
                d.unchanged
            );
        }
    }
    // Synced even when a source failed: what was stored before it stays.
    let synced = store.sync_bulk().map_err(CliError::from);
    result?;
    synced?;
    *to_projects += deferred.len();
    store_deferred(cap, deferred, state, force, tally, how)
}

/// What a store's report line says after its counts: what was left out and
/// why, what went elsewhere, and the files of no format cru imports.
fn report_extras(
    d: &ImportReport,
    by_user: usize,
    user_config: &dyn std::fmt::Display,
    to_projects: usize,
    others: &[&Path],
) -> String {
    let mut also = String::new();
    if d.not_captured > by_user {
        also += &format!(
            ", {} left out by their project's [capture]",
            d.not_captured - by_user
        );
    }
    if by_user > 0 {
        also += &format!(", {by_user} left out by your [capture] ({user_config})");
    }
    if d.live > 0 {
        also += &format!(
            ", {} being recorded by Claude Code's hooks (imported once they end)",
            d.live
        );
    }
    if d.empty > 0 {
        also += &format!(
            ", {} with no conversation (summary or snapshot lines only)",
            d.empty
        );
    }
    if to_projects > 0 {
        also += &format!(", {to_projects} to their project's own sessions");
    }
    // Files new or changed in the store that no format cru reads takes (a
    // transcript whose first line is longer than detection reads, say):
    // named once, as a folder import names them, not dropped without a
    // word (they are recorded, and named again only when they change).
    if let Some(first) = others.first() {
        also += &format!(
            ", {} files of no format cru imports (first: {})",
            others.len(),
            first.display()
        );
    }
    also
}
