//! The imports `cru watch` makes: the same as `cru session import` with no
//! path (the import state read and kept current, each session routed by
//! its project's `[capture]`, a project keeping its own sessions given
//! them), each session passed through the watcher's `adjust` (which marks
//! one still being written live), and reported in one line per catch-up.

use std::path::PathBuf;

use crucible_interop::Format;
use crucible_interop::import_state::ImportState;
use crucible_interop::reconcile::Prepared;
use crucible_interop::store_scan::StorePlan;

use super::discovered::{ImportReport, import_plans, load_state, save_state};
use super::routing::How;
use super::{Tally, prepare_dir};
use crate::context::Context;

/// Changes a session before it is stored; true when it marked it live.
pub type Adjust<'a> = dyn Fn(&mut Prepared) -> bool + Sync + 'a;

/// What to read of one watched path, planned against the import state.
#[derive(Debug)]
pub struct Planned {
    pub plan: StorePlan,
    /// The path, when its whole tree was walked: what the state keeps of
    /// files under it that are gone is forgotten.
    pub walked: Option<PathBuf>,
}

/// What a watcher's import did.
#[derive(Debug, Default)]
pub struct WatchedImport {
    pub report: ImportReport,
    /// Sources looked at: read, or skipped on a stat as unchanged.
    pub sources: usize,
    /// Sessions sent to their project's own sessions directory.
    pub to_projects: usize,
    /// The sources read.
    pub read: Vec<(PathBuf, Format)>,
}

/// Imports what `plan` (given the import state, under the import lock)
/// says to read into `cap`'s directory, routing and recording as `cru
/// session import` with no path does.
pub fn import_watched(
    cap: &Context,
    plan: &mut dyn FnMut(&ImportState) -> Vec<Planned>,
    adjust: &Adjust<'_>,
) -> anyhow::Result<WatchedImport> {
    let _import = prepare_dir(cap)?;
    let mut state = load_state(cap);
    let planned = plan(&state);
    let mut done = WatchedImport {
        sources: planned.iter().map(|p| p.plan.total()).sum(),
        read: planned
            .iter()
            .flat_map(|p| p.plan.sources.iter().cloned())
            .collect(),
        ..WatchedImport::default()
    };
    if done.read.is_empty() && planned.iter().all(|p| p.walked.is_none()) {
        return Ok(done);
    }
    let plans = planned
        .into_iter()
        .map(|p| (String::new(), p.plan, p.walked))
        .collect();
    let mut tally = Tally::default();
    let how = How {
        adjust,
        report: false,
    };
    let mut to_projects = 0;
    let result = import_plans(
        cap,
        plans,
        &mut state,
        false,
        &mut tally,
        how,
        &mut to_projects,
    );
    save_state(cap, &state);
    result?;
    done.report = ImportReport::of(&tally);
    done.to_projects = to_projects;
    Ok(done)
}
