//! The watcher's loop: events in, debounced imports and index catch-ups
//! out, a heartbeat a second, readers' fences answered.
//!
//! Changes are applied in batches: a batch starts with its first event
//! and is applied [`DEBOUNCE`] later, so that an agent writing a
//! transcript line by line costs one import per batch, not one per line,
//! and is still an `active` session well within two seconds of its write.
//! A reader's sync file is answered at once: every sessions change
//! received before it is applied first (see crucible-index's `watcher`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime};

use crucible_index::watcher::WatcherHeartbeat;
use notify::RecursiveMode;

use super::changes::{Change, classify};
use super::live::Live;
use super::sources::Sources;
use super::{backend, catch_up, otlp_send};
use crate::context::Context;

/// How long a batch of changes gathers before it is applied.
pub const DEBOUNCE: Duration = Duration::from_millis(300);
/// How often the heartbeat is written (and quiet sources looked for).
const BEAT_EVERY: Duration = Duration::from_secs(1);

/// How long a new folder in the sessions directory is given before its
/// changes count as seen: the watcher adds its watch on the new folder
/// only after handing over the folder's creation, and a file written in
/// it meanwhile raises no event. The catch-up after this wait sees it.
const SETTLE: Duration = Duration::from_millis(500);
/// How long the loop waits for an event before looking at the clock.
const TICK: Duration = Duration::from_millis(50);

/// What was received and not applied yet.
#[derive(Debug, Default)]
struct Pending {
    sources: BTreeSet<PathBuf>,
    sources_since: Option<Instant>,
    sessions: bool,
    sessions_since: Option<Instant>,
    /// The session files those changes were to (relative paths).
    session_files: BTreeSet<String>,
    /// A sessions change with no file of its own (a folder, the idle rule):
    /// only a whole catch-up applies it.
    whole: bool,
    /// Every change received so far is in the index and named in the
    /// search index's pending list, though not committed yet.
    vouched: bool,
    syncs: Vec<PathBuf>,
    settle_until: Option<Instant>,
    overflow: bool,
}

struct Watch<'a> {
    ctx: &'a Context,
    dir: PathBuf,
    beat: WatcherHeartbeat,
    sources: Sources,
    live: Live,
    pending: Pending,
    last_beat: Instant,
    beat_failed: bool,
    running: backend::Running,
    /// Sources' folders not there when the watcher started.
    waiting: Vec<PathBuf>,
    /// The idle rule is due at the next catch-up of the index.
    idle_rule: bool,
    /// Session files named in the search index's pending list (changed
    /// since its last commit), cleared by the next whole catch-up.
    search_pending: BTreeSet<String>,
    /// `--otlp URL`: the thread that sends what changed.
    otlp: Option<otlp_send::Sending>,
}

/// Watches until Ctrl-C or SIGTERM, then removes the heartbeat.
pub fn run(
    ctx: &Context,
    sources: Sources,
    live: Live,
    otlp: Option<otlp_send::Sending>,
) -> anyhow::Result<()> {
    let dir = ctx.store.dir().to_owned();
    let (tx, rx) = mpsc::channel();
    let mut targets = sources.watch_targets();
    targets.push((dir.clone(), RecursiveMode::Recursive));
    // A store not there yet (the agent not run on this machine so far) is
    // looked for at every beat and watched once it appears.
    let waiting: Vec<PathBuf> = sources
        .roots()
        .iter()
        .filter(|r| !r.exists())
        .cloned()
        .collect();
    for root in &waiting {
        eprintln!("{}: not there yet; watched once it appears", root.display());
    }
    // Watches first, then the catch-up: a change made in between is both
    // seen by the catch-up and queued, never lost.
    let running = backend::start(&tx, &targets)?;
    let mut w = Watch {
        ctx,
        dir,
        beat: WatcherHeartbeat::new(std::process::id(), SystemTime::now(), running.ordered),
        sources,
        live,
        pending: Pending::default(),
        last_beat: Instant::now(),
        beat_failed: false,
        running,
        waiting,
        idle_rule: false,
        search_pending: BTreeSet::new(),
        otlp,
    };
    // Not trusted until the first catch-up is done.
    w.beat.received = 1;
    w.write_beat();
    w.catch_up_everything(w.beat.received);
    // Ctrl-C and SIGTERM stop the loop between events from here on. During
    // the first catch-up (minutes at 100,000 sessions) they keep their
    // default and end the process at once: every write is atomic, and the
    // beat left behind names a dead process, which no reader trusts.
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    eprintln!("{}", start_line(&w.dir, w.sources.roots()));
    w.run_until(&rx, &stop);
    if let Err(e) = WatcherHeartbeat::remove(&w.dir) {
        eprintln!("warning: the heartbeat could not be removed: {e}");
    }
    Ok(())
}

impl Watch<'_> {
    fn run_until(&mut self, rx: &Receiver<notify::Result<notify::Event>>, stop: &AtomicBool) {
        while !stop.load(Ordering::Relaxed) {
            match rx.recv_timeout(TICK) {
                Ok(event) => self.take(event),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            while let Ok(event) = rx.try_recv() {
                self.take(event);
            }
            self.step();
        }
    }

    fn take(&mut self, event: notify::Result<notify::Event>) {
        let event = match event {
            Ok(e) => e,
            Err(e) => {
                eprintln!("warning: watching: {e}");
                return;
            }
        };
        let now = Instant::now();
        let sources = &self.sources;
        let p = &mut self.pending;
        for change in classify(&event, &self.dir, &|path: &Path| sources.under_a_root(path)) {
            match change {
                Change::Sessions { new_dir, session } => {
                    self.beat.received += 1;
                    p.sessions = true;
                    p.vouched = false;
                    p.sessions_since.get_or_insert(now);
                    match session {
                        Some(file) => {
                            p.session_files.insert(file);
                        }
                        None => p.whole = true,
                    }
                    if new_dir {
                        p.settle_until = Some(now + SETTLE);
                    }
                }
                Change::Source(path) => {
                    p.sources.insert(path);
                    p.sources_since.get_or_insert(now);
                }
                Change::Sync(path) => p.syncs.push(path),
                Change::Overflow => p.overflow = true,
            }
        }
    }

    /// Applies what is due.
    fn step(&mut self) {
        let now = Instant::now();
        if std::mem::take(&mut self.pending.overflow) {
            eprintln!(
                "warning: events were lost (the event queue overflowed); catching up with everything"
            );
            self.beat.overflowed = true;
            self.write_beat();
            let target = self.beat.received;
            self.pending = Pending {
                syncs: std::mem::take(&mut self.pending.syncs),
                ..Pending::default()
            };
            self.catch_up_everything(target);
        }
        if self
            .pending
            .sources_since
            .is_some_and(|t| now >= t + DEBOUNCE)
        {
            self.pending.sources_since = None;
            let changed = std::mem::take(&mut self.pending.sources);
            if let Err(e) =
                catch_up::import_changed(self.ctx, &mut self.sources, &mut self.live, &changed)
            {
                eprintln!("warning: import: {e:#}");
            }
        }
        let settling = self.pending.settle_until.is_some_and(|t| now < t);
        if !settling {
            self.pending.settle_until = None;
            let due = self
                .pending
                .sessions_since
                .is_some_and(|t| now >= t + DEBOUNCE);
            let asked = !self.pending.syncs.is_empty();
            if self.pending.sessions && asked && !due && !self.pending.vouched {
                // A reader waits: the files it may read are named at once,
                // the commit waits for the batch (`vouch_for_files`).
                if !self.vouch_for_files() {
                    self.apply_sessions();
                }
            } else if self.pending.sessions && (due || asked) {
                self.apply_sessions();
            }
            self.answer_syncs();
        }
        if now >= self.last_beat + BEAT_EVERY {
            if let Some(o) = &self.otlp {
                o.retry_if_due(now);
            }
            self.watch_appeared();
            let quiet = self.live.gone_quiet(SystemTime::now());
            if let Err(e) = catch_up::settle(self.ctx, &mut self.sources, &mut self.live, &quiet) {
                eprintln!("warning: import: {e:#}");
            }
            if self.live.idle_rule_due(SystemTime::now()) {
                // A live source deleted: nothing will settle its session,
                // so the idle rule does, at the next catch-up of the index.
                self.idle_rule = true;
                self.pending.sessions = true;
                self.pending.whole = true;
                self.pending.vouched = false;
                self.pending.sessions_since.get_or_insert(now);
            }
            self.write_beat();
        }
    }

    /// The changed session files read again into the index and named in
    /// the search index's pending list, without a `stat` of every file or
    /// a commit: what lets a reader's fence be answered in milliseconds at
    /// 100,000 sessions. The whole catch-up (the commit) still follows the
    /// batch. False when it cannot be done this way (a folder changed, no
    /// index yet, a write failed): the caller catches up whole.
    fn vouch_for_files(&mut self) -> bool {
        if self.pending.whole || self.pending.session_files.is_empty() {
            return false;
        }
        let target = self.beat.received;
        let files: Vec<String> = self.pending.session_files.iter().cloned().collect();
        if !crucible_index::SessionIndex::new(&self.ctx.store).reread(files) {
            return false;
        }
        let mut named = self.search_pending.clone();
        named.extend(self.pending.session_files.iter().cloned());
        if crucible_search::pending::write(&self.dir, &named).is_err() {
            return false;
        }
        tracing::debug!(
            files = self.pending.session_files.len(),
            "a reader waits: changed files read into the index and named as pending, commit later"
        );
        self.search_pending = named;
        self.pending.vouched = true;
        self.beat.applied = target;
        self.write_beat();
        true
    }

    /// Brings the indexes up to the sessions directory; the events received
    /// before count as applied when they were saved.
    fn apply_sessions(&mut self) {
        // Cleared before the catch-up: an event arriving during it is
        // applied by the next one.
        self.pending.sessions = false;
        self.pending.sessions_since = None;
        let files = std::mem::take(&mut self.pending.session_files);
        let whole = std::mem::take(&mut self.pending.whole);
        self.pending.vouched = false;
        let target = self.beat.received;
        let idle = std::mem::take(&mut self.idle_rule).then(|| self.live.idle());
        if catch_up::indexes(self.ctx, idle) {
            self.beat.applied = target;
            self.send_otlp();
            // Committed: every file named as pending is in the index now.
            if !self.search_pending.is_empty()
                && crucible_search::pending::write(&self.dir, &BTreeSet::new()).is_ok()
            {
                self.search_pending.clear();
            }
        } else {
            // Not vouched for (the search index's lock was held by a
            // search, say): tried again after the next debounce.
            self.pending.sessions = true;
            self.pending.sessions_since = Some(Instant::now());
            self.pending.session_files.extend(files);
            self.pending.whole |= whole;
        }
        self.write_beat();
    }

    /// With `--otlp`: the sessions changed since the last send, sent by
    /// the sending thread (the index is fresh here, so its selection is
    /// cheap).
    fn send_otlp(&self) {
        if let Some(o) = &self.otlp {
            o.request();
        }
    }

    /// Removes the readers' sync files once every change before them is
    /// applied; otherwise they are left, and the readers, waiting in vain,
    /// prove freshness themselves.
    fn answer_syncs(&mut self) {
        if self.pending.syncs.is_empty() {
            return;
        }
        let syncs = std::mem::take(&mut self.pending.syncs);
        let unapplied = self.pending.sessions && !self.pending.vouched;
        if unapplied || self.beat.applied != self.beat.received {
            return;
        }
        for s in syncs {
            let _ = std::fs::remove_file(s);
        }
    }

    /// Every source imported and the indexes caught up; events received up
    /// to `target` then count as applied.
    fn catch_up_everything(&mut self, target: u64) {
        match catch_up::everything(self.ctx, &mut self.sources, &mut self.live) {
            Ok(true) => {
                self.send_otlp();
                self.beat.applied = target.max(self.beat.applied);
                self.beat.received = self.beat.received.max(self.beat.applied);
                self.beat.overflowed = false;
                if !self.search_pending.is_empty()
                    && crucible_search::pending::write(&self.dir, &BTreeSet::new()).is_ok()
                {
                    self.search_pending.clear();
                }
            }
            Ok(false) => {}
            Err(e) => eprintln!("warning: catching up: {e:#}"),
        }
        self.write_beat();
    }

    /// Watches the sources' folders that appeared since the start, then
    /// imports what they hold (watched first: nothing written in between
    /// is missed).
    fn watch_appeared(&mut self) {
        let (appeared, still): (Vec<PathBuf>, Vec<PathBuf>) = std::mem::take(&mut self.waiting)
            .into_iter()
            .partition(|r| r.is_dir());
        self.waiting = still;
        for root in appeared {
            if let Err(e) = self.running.watch(&root, notify::RecursiveMode::Recursive) {
                eprintln!("warning: {}: cannot be watched: {e}", root.display());
                continue;
            }
            eprintln!("watching {} (it appeared)", root.display());
            if let Err(e) =
                catch_up::import_root(self.ctx, &mut self.sources, &mut self.live, &root)
            {
                eprintln!("warning: import: {e:#}");
            }
        }
    }

    fn write_beat(&mut self) {
        self.last_beat = Instant::now();
        match self.beat.write(&self.dir, SystemTime::now()) {
            Ok(()) => self.beat_failed = false,
            Err(e) if !self.beat_failed => {
                eprintln!("warning: the heartbeat cannot be written: {e}");
                self.beat_failed = true;
            }
            Err(_) => {}
        }
    }
}

/// What the watcher says once it watches: what, and where the sessions go
/// (a project that keeps its own gets its sessions, as from `cru session
/// import`).
fn start_line(dir: &Path, roots: &[PathBuf]) -> String {
    let watched: Vec<String> = std::iter::once(dir)
        .chain(roots.iter().map(PathBuf::as_path))
        .map(|p| p.display().to_string())
        .collect();
    format!(
        "watching {}; sessions into {} (those of a project with `[capture] project = true` into its own) (Ctrl-C stops)",
        watched.join(", "),
        dir.display()
    )
}
