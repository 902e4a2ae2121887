//! Where each session read from an agent's store goes, by the `[capture]`
//! settings of the project it ran in: the user's sessions directory,
//! nowhere (capture off), or the project's own (`project = true`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crucible_core::SessionsDirSource;
use crucible_interop::Imported;
use crucible_interop::import_state::{Fingerprint, ImportState, Role};
use crucible_interop::reconcile::Reconciler;
use crucible_interop::store_scan::StorePlan;

use super::discovered::ImportReport;
use super::watched::Adjust;
use super::{Keep, SourceEnd, SourceSink, Tally, import_sources, prepare_dir};
use crate::cli::GlobalArgs;
use crate::context::{CapturePolicy, Context};
use crate::error::CliError;

/// Where a session read from a store goes, by the `[capture]` settings of
/// the project it ran in (its `cwd`).
pub(crate) struct Router {
    /// The sessions directory was named on purpose (`--dir`,
    /// `$CRU_SESSIONS_DIR`): a project's wish to keep its own gives way.
    named: bool,
    policy: CapturePolicy,
    warned: HashSet<Option<PathBuf>>,
    /// Sessions run in no project, left out by the user's own config.
    pub(super) left_by_user: usize,
}

impl Router {
    pub(crate) fn new(cap: &Context) -> Self {
        Self {
            named: matches!(
                cap.dir_source,
                SessionsDirSource::Flag | SessionsDirSource::Env
            ),
            policy: CapturePolicy::load(),
            warned: HashSet::new(),
            left_by_user: 0,
        }
    }

    /// Here, nowhere, or the project's own sessions directory.
    /// Where the user's own config is, as a report names it.
    pub(super) fn user_config(&self) -> String {
        self.policy
            .user_config()
            .map_or_else(|| "your config".to_owned(), |p| p.display().to_string())
    }

    pub(super) fn route(&mut self, imp: &Imported) -> (Keep, Option<PathBuf>) {
        let Some(cwd) = imp
            .log
            .frontmatter
            .extra
            .get("cwd")
            .and_then(|v| v.as_str())
        else {
            return (Keep::Store, None);
        };
        let d = self.policy.decide(Path::new(cwd));
        if let Some(e) = &d.error
            && self.warned.insert(d.project.clone())
        {
            eprintln!("warning: {e}; the sessions of that project are not captured");
        }
        match (&d.project, d.enabled, d.keeps_own && !self.named) {
            (None, false, _) => {
                self.left_by_user += 1;
                (Keep::Leave, None)
            }
            (_, false, _) => (Keep::Leave, None),
            (Some(project), true, true) => (Keep::Defer, Some(project.clone())),
            _ => (Keep::Store, None),
        }
    }
}

/// A source read whose project keeps its own sessions.
#[derive(Debug)]
pub(super) struct Deferred {
    source: PathBuf,
    format: crucible_interop::Format,
    project: PathBuf,
    read_with: Vec<(PathBuf, Fingerprint, Role)>,
}

/// How an import of the agents' stores goes: the no-path import's, or a
/// watcher's.
#[derive(Clone, Copy)]
pub(crate) struct How<'a> {
    /// Changes each session before it is stored; true when it marked it
    /// live (`cru watch`): a live source is not recorded as read, so that
    /// the import that settles it reads it again.
    pub(crate) adjust: &'a Adjust<'a>,
    /// Whether each store, each project and each source gets its line
    /// (a one-shot import); a watcher says one line per catch-up, the
    /// rest with `-v`.
    pub(crate) report: bool,
}

/// A store's import into the user's directory: routes each session, and
/// records what was read once it is stored or left out.
pub(super) struct CaptureSink<'a> {
    pub(super) plan: &'a StorePlan,
    pub(super) state: &'a mut ImportState,
    pub(super) router: &'a mut Router,
    pub(super) deferred: &'a mut Vec<Deferred>,
    /// The sessions directory (see [`recorded_by_hooks`]).
    pub(super) sessions: &'a Path,
    pub(super) how: How<'a>,
    /// Sources stored live: not recorded as read.
    pub(super) live: HashSet<PathBuf>,
}

impl SourceSink for CaptureSink<'_> {
    fn keep(&mut self, source: &Path, imported: &Imported) -> Keep {
        if recorded_by_hooks(self.sessions, imported) {
            return Keep::Later;
        }
        let (keep, project) = self.router.route(imported);
        if let (Keep::Defer, Some(project)) = (keep, project) {
            let format = self
                .plan
                .sources
                .iter()
                .find(|(p, _)| p == source)
                .map_or(crucible_interop::Format::ClaudeCode, |(_, f)| *f);
            self.deferred.push(Deferred {
                source: source.to_owned(),
                format,
                project,
                read_with: self.plan.read_with.get(source).cloned().unwrap_or_default(),
            });
        }
        keep
    }

    fn done(&mut self, source: &Path, end: SourceEnd) {
        // A source its project's `[capture]` left out is not recorded as
        // read: when the project turns capture on (or mends its config)
        // the next import takes it. It is read again at each import until
        // then, the price of an opted-out project's transcripts.
        if !matches!(
            end,
            SourceEnd::Retry | SourceEnd::Deferred | SourceEnd::Left
        ) && !self.live.remove(source)
        {
            self.plan.record_read(source, self.state);
        }
    }

    fn adjust(&mut self, source: &Path, prepared: &mut crucible_interop::reconcile::Prepared) {
        if (self.how.adjust)(prepared) {
            self.live.insert(source.to_owned());
        }
    }

    fn per_file_lines(&self) -> bool {
        self.how.report
    }

    fn quiet_empty(&self) -> bool {
        true
    }
}

/// Records what was read for each source once it is stored (not live).
struct RecordSink<'a> {
    read_with: std::collections::HashMap<PathBuf, Vec<(PathBuf, Fingerprint, Role)>>,
    state: &'a mut ImportState,
    how: How<'a>,
    live: HashSet<PathBuf>,
}

impl SourceSink for RecordSink<'_> {
    fn keep(&mut self, _: &Path, _: &Imported) -> Keep {
        Keep::Store
    }

    fn done(&mut self, source: &Path, end: SourceEnd) {
        let read_with = self.read_with.remove(source);
        if end != SourceEnd::Retry && !self.live.remove(source) {
            for (p, fp, role) in read_with.into_iter().flatten() {
                self.state.record(p, fp, role);
            }
        }
    }

    fn adjust(&mut self, source: &Path, prepared: &mut crucible_interop::reconcile::Prepared) {
        if (self.how.adjust)(prepared) {
            self.live.insert(source.to_owned());
        }
    }

    fn per_file_lines(&self) -> bool {
        self.how.report
    }

    fn quiet_empty(&self) -> bool {
        true
    }
}

/// The sessions of projects that keep their own (`[capture] project =
/// true`), into each project's sessions directory.
pub(super) fn store_deferred(
    cap: &Context,
    deferred: Vec<Deferred>,
    state: &mut ImportState,
    force: bool,
    tally: &mut Tally,
    how: How<'_>,
) -> anyhow::Result<()> {
    let mut by_project: std::collections::BTreeMap<PathBuf, Vec<Deferred>> =
        std::collections::BTreeMap::new();
    for d in deferred {
        by_project.entry(d.project.clone()).or_default().push(d);
    }
    let global = GlobalArgs {
        verbose: 0,
        dir: cap.flag_dir.clone(),
        strict: cap.strict,
    };
    for (project, items) in by_project {
        let own = Context::for_capture(&global, Some(&project))?;
        // The capture directory's import lock is held already (a project
        // may name it as its own): a second lock of it would wait forever.
        let _import = if own.store.dir() == cap.store.dir() {
            None
        } else {
            Some(prepare_dir(&own)?)
        };
        let store = own.store.clone().for_bulk_write();
        let mut reconciler = Reconciler::new(&store, force).map_err(CliError::from)?;
        let sources: Vec<_> = items.iter().map(|d| (d.source.clone(), d.format)).collect();
        let mut sink = RecordSink {
            read_with: items.into_iter().map(|d| (d.source, d.read_with)).collect(),
            state,
            how,
            live: HashSet::new(),
        };
        let before = ImportReport::of(tally);
        let result = import_sources(&own, &mut reconciler, &sources, tally, &mut sink);
        // Each was counted as parsed when it was read for the user's
        // directory: it is not read twice over in the totals.
        tally.parsed = before.parsed;
        let synced = store.sync_bulk().map_err(CliError::from);
        result?;
        synced?;
        let d = ImportReport::of(tally).minus(before);
        let line = format!(
            "{}: keeps its own sessions ({}): {} parsed: {} created, {} updated, {} unchanged",
            project.display(),
            own.store.dir().display(),
            sources.len(),
            d.created,
            d.updated,
            d.unchanged
        );
        if how.report {
            eprintln!("{line}");
        } else {
            tracing::info!("{line}");
        }
    }
    Ok(())
}

/// Whether Claude Code's hooks are recording this session live into
/// `sessions`: capture (the watcher, an import with no path) leaves it to
/// them until it ends or goes quiet for [`HOOKS_LIVE_FOR`] (both would
/// record each call and count each request), and an import of the
/// transcript afterwards fills in what the hooks did not see. A path named to `cru session import` is imported
/// whatever the hooks do: that is the user's own act.
fn recorded_by_hooks(sessions: &Path, imported: &Imported) -> bool {
    let agent = crucible_capture::claude_code::AGENT;
    imported.provenance.format == agent
        && imported.provenance.id.as_deref().is_some_and(|id| {
            crucible_capture::state::recording_live(
                sessions,
                agent,
                id,
                HOOKS_LIVE_FOR,
                std::time::SystemTime::now(),
            )
        })
}

/// How long after its last hook event a session not ended still counts as
/// recorded live by the hooks: a Claude Code killed before `SessionEnd`
/// leaves it to the imports after this.
const HOOKS_LIVE_FOR: std::time::Duration = std::time::Duration::from_secs(30 * 60);
