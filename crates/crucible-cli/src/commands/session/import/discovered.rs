//! `cru session import` with no path: every agent store found on this
//! machine, only its new or grown sources, into the user's sessions
//! directory ([`Context::for_capture`]); `--list-sources` shows the stores.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crucible_core::SessionsDirSource;
use crucible_interop::Imported;
use crucible_interop::import_state::{Fingerprint, ImportState, Rebuilt, Role};
use crucible_interop::reconcile::Reconciler;
use crucible_interop::store_scan::{
    StorePlan, StoreStatus, plan_paths, plan_store, store_statuses,
};
use crucible_interop::stores::{AgentStore, Presence, StoreEnv, agent_name, agent_stores};

use super::{
    ImportArgs, Keep, SourceEnd, SourceSink, SourcesFormat, Tally, import_sources, prepare_dir,
};
use crate::cli::GlobalArgs;
use crate::context::{CapturePolicy, Context};
use crate::error::{CliError, Outcome};

/// The places the agents' stores depend on, from this process's environment.
pub fn store_env() -> StoreEnv {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(|v| v.to_string_lossy().into_owned())
    };
    StoreEnv {
        home: var("HOME").map(PathBuf::from),
        claude_config_dir: var("CLAUDE_CONFIG_DIR"),
        codex_home: var("CODEX_HOME"),
        xdg_config_home: var("XDG_CONFIG_HOME").map(PathBuf::from),
        xdg_data_home: var("XDG_DATA_HOME").map(PathBuf::from),
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
}

impl ImportReport {
    fn of(t: &Tally) -> Self {
        Self {
            parsed: t.parsed,
            created: t.created,
            updated: t.updated,
            unchanged: t.unchanged,
            skipped: t.skipped,
            not_captured: t.not_captured,
        }
    }

    fn minus(self, before: Self) -> Self {
        Self {
            parsed: self.parsed - before.parsed,
            created: self.created - before.created,
            updated: self.updated - before.updated,
            unchanged: self.unchanged - before.unchanged,
            skipped: self.skipped - before.skipped,
            not_captured: self.not_captured - before.not_captured,
        }
    }
}

/// The context capture writes through, keeping the command's `--dir`
/// and `--strict`.
fn capture_context(ctx: &Context) -> anyhow::Result<Context> {
    let global = GlobalArgs {
        verbose: 0,
        dir: ctx.flag_dir.clone(),
        strict: ctx.strict,
    };
    Context::for_capture(&global, None)
}

/// The import state of the capture directory; a state that had to be
/// rebuilt is said with `-v`.
fn load_state(cap: &Context) -> ImportState {
    let (state, rebuilt) = ImportState::load(cap.store.dir());
    match rebuilt {
        None | Some(Rebuilt::Missing) => {}
        Some(why) => tracing::info!(?why, "import state rebuilt: every source is read once"),
    }
    state
}

pub fn run(ctx: &Context, args: &ImportArgs) -> anyhow::Result<Outcome> {
    let cap = capture_context(ctx)?;
    prepare_dir(&cap)?;
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
    let result = import_plans(&cap, labelled, &mut state, args.force, &mut tally);
    save_state(&cap, &state);
    result?;
    let t = &tally;
    eprintln!(
        "{} parsed: {} created, {} updated, {} unchanged, {} skipped",
        t.parsed, t.created, t.updated, t.unchanged, t.skipped
    );
    Ok(Outcome::from_files(
        t.created + t.updated + t.unchanged + t.not_captured,
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

fn save_state(cap: &Context, state: &ImportState) {
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
fn import_plans(
    cap: &Context,
    plans: Vec<(String, StorePlan, Option<PathBuf>)>,
    state: &mut ImportState,
    force: bool,
    tally: &mut Tally,
) -> anyhow::Result<()> {
    let store = cap.store.clone().for_bulk_write();
    let mut reconciler = None;
    let mut router = Router::new(cap);
    let mut deferred = Vec::new();
    let mut result = Ok(());
    for (label, plan, root) in plans {
        let before = ImportReport::of(tally);
        let deferred_before = deferred.len();
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
            };
            result = import_sources(cap, rec, &plan.sources, tally, &mut sink);
        }
        plan.record_others(state);
        // A whole store was walked: what it no longer holds is forgotten.
        if let Some(root) = &root {
            state.forget_gone(root, &plan.seen);
        }
        let d = ImportReport::of(tally).minus(before);
        let mut also = String::new();
        if d.not_captured > 0 {
            also += &format!(", {} left out by their project's [capture]", d.not_captured);
        }
        if deferred.len() > deferred_before {
            also += &format!(
                ", {} to their project's own sessions",
                deferred.len() - deferred_before
            );
        }
        eprintln!(
            "{label}: {} sources, {} parsed: {} created, {} updated, {} unchanged{also}",
            plan.total(),
            d.parsed,
            d.created,
            d.updated,
            d.unchanged
        );
    }
    // Synced even when a source failed: what was stored before it stays.
    let synced = store.sync_bulk().map_err(CliError::from);
    result?;
    synced?;
    store_deferred(cap, deferred, state, force, tally)
}

/// Where a session read from a store goes, by the `[capture]` settings of
/// the project it ran in (its `cwd`).
struct Router {
    /// The sessions directory was named on purpose (`--dir`,
    /// `$CRU_SESSIONS_DIR`): a project's wish to keep its own gives way.
    named: bool,
    policy: CapturePolicy,
    warned: HashSet<Option<PathBuf>>,
}

impl Router {
    fn new(cap: &Context) -> Self {
        Self {
            named: matches!(
                cap.dir_source,
                SessionsDirSource::Flag | SessionsDirSource::Env
            ),
            policy: CapturePolicy::load(),
            warned: HashSet::new(),
        }
    }

    /// Here, nowhere, or the project's own sessions directory.
    fn route(&mut self, imp: &Imported) -> (Keep, Option<PathBuf>) {
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
            (_, false, _) => (Keep::Leave, None),
            (Some(project), true, true) => (Keep::Defer, Some(project.clone())),
            _ => (Keep::Store, None),
        }
    }
}

/// A source read whose project keeps its own sessions.
#[derive(Debug)]
struct Deferred {
    source: PathBuf,
    format: crucible_interop::Format,
    project: PathBuf,
    read_with: Vec<(PathBuf, Fingerprint, Role)>,
}

/// A store's import into the user's directory: routes each session, and
/// records what was read once it is stored or left out.
struct CaptureSink<'a> {
    plan: &'a StorePlan,
    state: &'a mut ImportState,
    router: &'a mut Router,
    deferred: &'a mut Vec<Deferred>,
}

impl SourceSink for CaptureSink<'_> {
    fn keep(&mut self, source: &Path, imported: &Imported) -> Keep {
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
        if !matches!(end, SourceEnd::Retry | SourceEnd::Deferred) {
            self.plan.record_read(source, self.state);
        }
    }
}

/// Records what was read for each source once it is stored.
struct RecordSink<'a> {
    read_with: std::collections::HashMap<PathBuf, Vec<(PathBuf, Fingerprint, Role)>>,
    state: &'a mut ImportState,
}

impl SourceSink for RecordSink<'_> {
    fn keep(&mut self, _: &Path, _: &Imported) -> Keep {
        Keep::Store
    }

    fn done(&mut self, source: &Path, end: SourceEnd) {
        if end != SourceEnd::Retry {
            for (p, fp, role) in self.read_with.remove(source).into_iter().flatten() {
                self.state.record(p, fp, role);
            }
        }
    }
}

/// The sessions of projects that keep their own (`[capture] project =
/// true`), into each project's sessions directory.
fn store_deferred(
    cap: &Context,
    deferred: Vec<Deferred>,
    state: &mut ImportState,
    force: bool,
    tally: &mut Tally,
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
        prepare_dir(&own)?;
        let store = own.store.clone().for_bulk_write();
        let mut reconciler = Reconciler::new(&store, force).map_err(CliError::from)?;
        let sources: Vec<_> = items.iter().map(|d| (d.source.clone(), d.format)).collect();
        let mut sink = RecordSink {
            read_with: items.into_iter().map(|d| (d.source, d.read_with)).collect(),
            state,
        };
        let before = ImportReport::of(tally);
        let result = import_sources(&own, &mut reconciler, &sources, tally, &mut sink);
        let synced = store.sync_bulk().map_err(CliError::from);
        result?;
        synced?;
        let d = ImportReport::of(tally).minus(before);
        eprintln!(
            "{}: keeps its own sessions ({}): {} parsed: {} created, {} updated, {} unchanged",
            project.display(),
            own.store.dir().display(),
            d.parsed,
            d.created,
            d.updated,
            d.unchanged
        );
    }
    Ok(())
}

/// Imports the sources that the changed files belong to (a watcher's
/// events), through the same state as `cru session import` with no path:
/// a file unchanged since it was last read is not read. Files in no
/// agent store are imported as paths named to `cru session import` are.
/// `cap` is a [`Context::for_capture`].
#[allow(
    dead_code,
    reason = "cru watch (issue 21, the WATCH part) calls it; the lead wires it"
)]
pub fn import_changed(cap: &Context, changed: &[PathBuf]) -> anyhow::Result<ImportReport> {
    prepare_dir(cap)?;
    let stores: Vec<AgentStore> = agent_stores(&store_env())
        .into_iter()
        .filter(|s| s.presence == Presence::Found)
        .collect();
    let mut state = load_state(cap);
    let mut tally = Tally::default();
    let (plans, outside) = plan_paths(&stores, changed, &state);
    let mut labelled: Vec<(String, StorePlan, Option<PathBuf>)> = Vec::new();
    for (root, plan) in plans {
        if let Some(s) = stores.iter().find(|s| s.root == root) {
            labelled.push((label(s), plan, None));
        }
    }
    if !outside.is_empty() {
        let sources = super::sources(&outside, None, &mut tally);
        let plan = StorePlan {
            sources,
            ..StorePlan::default()
        };
        labelled.push(("named paths".into(), plan, None));
    }
    // Only the files named are known to have changed: nothing is forgotten.
    let result = import_plans(cap, labelled, &mut state, false, &mut tally);
    save_state(cap, &state);
    result?;
    Ok(ImportReport::of(&tally))
}

/// `--list-sources`: the stores, found or not, and their sources.
pub fn list_sources(ctx: &Context, format: SourcesFormat) -> anyhow::Result<Outcome> {
    let cap = capture_context(ctx)?;
    let (state, _) = ImportState::load(cap.store.dir());
    let rows: Vec<serde_json::Value> = store_statuses(agent_stores(&store_env()), &state)
        .iter()
        .map(store_row)
        .collect();
    match format {
        SourcesFormat::Json => {
            let doc = serde_json::json!({
                "version": 1,
                "sessions_dir": cap.store.dir(),
                "stores": rows,
            });
            println!("{doc}");
        }
        SourcesFormat::Table => print_table(&rows)?,
    }
    Ok(Outcome::Success)
}

/// One store as `--list-sources --format json` shows it.
fn store_row(s: &StoreStatus) -> serde_json::Value {
    let (presence, why) = match &s.store.presence {
        Presence::Found => ("found", None),
        Presence::Missing => ("missing", None),
        Presence::Refused(why) => ("refused", Some(why.clone())),
    };
    serde_json::json!({
        "agent": s.store.format.as_str(),
        "name": agent_name(s.store.format),
        "path": s.store.root,
        "from": s.store.origin.to_string(),
        "state": presence,
        "why": why,
        "sources": s.sources,
        "to_read": s.to_read,
    })
}

fn print_table(rows: &[serde_json::Value]) -> anyhow::Result<()> {
    use crate::render::table::{Align, Table};
    let mut t = Table::new(&["AGENT", "PATH", "FROM", "STATE", "SOURCES", "TO READ"])
        .align(4, Align::Right)
        .align(5, Align::Right);
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "-".into(),
        other => other.to_string(),
    };
    for r in rows {
        let state = match r["why"].as_str() {
            Some(why) => format!("refused: {why}"),
            None => text(&r["state"]),
        };
        t.push([
            text(&r["name"]),
            text(&r["path"]),
            text(&r["from"]),
            state,
            text(&r["sources"]),
            text(&r["to_read"]),
        ]);
    }
    t.write(&mut std::io::stdout().lock())?;
    Ok(())
}
