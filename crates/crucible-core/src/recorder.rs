//! Recording a live session: the API a Rust agent calls, and what
//! `cru session log` is built on.
//!
//! Each call becomes a [`SessionEvent`]. When events reach the disk depends on
//! the save policy (seed 004, open question 3): `phase` keeps them in memory
//! until a phase boundary, pause or end; `tool` appends and fsyncs every event
//! before the call returns; an interval flushes at most that long after an
//! event. Events go to the session's journal, one line each, and are folded
//! into the markdown by the store (see `store::journal`), so recording costs
//! O(1) per event however long the session grows, and a crash leaves the
//! markdown whole and the journal readable.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::{
    AgentRef, Frontmatter, PhaseId, SaveMode, Section, SessionCodec, SessionConfig, SessionEvent,
    SessionId, SessionLog, SessionStatus, SessionStore, StoreError, SubagentMode, SubagentRef,
    Task, TimedEvent, Timestamp, one_line,
};

/// Why a recording call was refused.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("session `{id}` is {status}; logging to it needs --reopen")]
    Ended {
        id: SessionId,
        status: SessionStatus,
    },
    #[error("a session ends `completed` or `failed`, not `{0}`")]
    EndStatus(SessionStatus),
    #[error("phase name {0}")]
    PhaseName(&'static str),
    #[error("{mode} subagents get a session of their own; inline ones are logged whole")]
    SubagentMode { mode: SubagentMode },
    #[error("resume point {point} names no phase (the session has {phases})")]
    NoSuchPhase { point: PhaseId, phases: usize },
}

/// What `Recorder::start` writes into a new session.
#[derive(Debug, Clone, Default)]
pub struct StartOptions {
    pub title: Option<String>,
    pub channel: Option<String>,
    pub agent: Option<AgentRef>,
    pub model: Option<String>,
    pub parent: Option<SessionId>,
    /// The directory the session runs in, recorded as `cwd` with its
    /// project (see [`crate::project`]). The caller says where: this
    /// library does not read the process's working directory.
    pub cwd: Option<PathBuf>,
}

/// A session being recorded, bound to its file.
#[derive(Debug)]
pub struct Recorder<'s, C: SessionCodec> {
    store: &'s SessionStore<C>,
    path: PathBuf,
    log: SessionLog,
    pending: Vec<TimedEvent>,
    save: SaveMode,
    subagent_mode: SubagentMode,
    last_flush: Instant,
    /// Set when the session was not active when opened: new work reopens it.
    reopen_on_work: bool,
    /// Opened with `reopen`: events may go to an ended session.
    may_write_ended: bool,
    /// What this recorder last saw of its file under the lock (see
    /// [`SessionStore::append_events_checked`]).
    seen: Option<crate::store::Seen>,
}

impl<'s, C: SessionCodec> Recorder<'s, C> {
    /// Creates the session file at once (`status: active`, `started`,
    /// channel, participants) and returns its recorder.
    pub fn start(
        store: &'s SessionStore<C>,
        opts: &StartOptions,
        config: &SessionConfig,
    ) -> Result<Self, RecordError> {
        let started = Timestamp::now();
        let title = opts
            .title
            .as_deref()
            .map(one_line)
            .filter(|t| !t.is_empty());
        let (path, log) = store.create_new(&started, title.as_deref(), |id| {
            let mut fm = Frontmatter::new(id, started.clone());
            fm.title.clone_from(&title);
            fm.channel.clone_from(&opts.channel);
            fm.participants.extend(opts.agent.clone());
            fm.model.clone_from(&opts.model);
            fm.parent.clone_from(&opts.parent);
            if let Some(cwd) = &opts.cwd {
                fm.set_working_dir(cwd);
            }
            let mut log = SessionLog::new(fm);
            if let Some(t) = &title {
                log.preamble.push(crate::Block::Heading {
                    level: 1,
                    text: t.clone(),
                });
            }
            log
        })?;
        Ok(Self::bound(store, path, log, config))
    }

    fn bound(
        store: &'s SessionStore<C>,
        path: PathBuf,
        log: SessionLog,
        config: &SessionConfig,
    ) -> Self {
        Self {
            store,
            path,
            log,
            pending: Vec::new(),
            save: config.save,
            subagent_mode: config.subagent_mode,
            last_flush: Instant::now(),
            reopen_on_work: false,
            may_write_ended: false,
            seen: None,
        }
    }

    /// Continues recording an existing session (an id, prefix or path). A
    /// paused session becomes active again; an ended one only with `reopen`.
    pub fn open(
        store: &'s SessionStore<C>,
        query: &str,
        config: &SessionConfig,
        reopen: bool,
    ) -> Result<Self, RecordError> {
        let path = store.resolve(query)?;
        let (log, seen) = store.load_seen(&path)?;
        let mut rec = Self::bound(store, path, log, config);
        rec.seen = seen;
        rec.may_write_ended = reopen;
        match rec.log.frontmatter.status {
            SessionStatus::Active => {}
            SessionStatus::Paused => rec.reopen_on_work = true,
            _ if reopen => rec.reopen_on_work = true,
            status => {
                return Err(RecordError::Ended {
                    id: rec.id().clone(),
                    status,
                });
            }
        }
        Ok(rec)
    }

    pub fn id(&self) -> &SessionId {
        self.log.id()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The session as this recorder sees it: the file when it was opened,
    /// plus every event recorded since.
    pub fn log(&self) -> &SessionLog {
        &self.log
    }

    /// The phase events go to now.
    pub fn current_phase(&self) -> Option<PhaseId> {
        self.log
            .phase_count()
            .checked_sub(1)
            .map(PhaseId::from_index)
    }

    fn record(&mut self, event: SessionEvent) -> Result<(), RecordError> {
        let reopens = self.reopen_on_work
            && !matches!(event, SessionEvent::Pause { .. } | SessionEvent::End { .. });
        if reopens {
            // Kept with the event that needs it: both reach the journal in
            // one append, or neither does.
            self.reopen_on_work = false;
            let reopen = TimedEvent {
                at: Timestamp::now(),
                event: SessionEvent::Reopen,
            };
            self.log.apply(&reopen);
            self.pending.push(reopen);
        }
        // A reopen is a boundary: it goes to disk with its event at once.
        let flush_point = reopens
            || event.is_boundary()
            || matches!(
                event,
                SessionEvent::Subagent {
                    subagent: SubagentRef {
                        target: Some(_),
                        ..
                    }
                } | SessionEvent::SubagentDone { .. }
            );
        let e = TimedEvent {
            at: Timestamp::now(),
            event,
        };
        self.log.apply(&e);
        self.pending.push(e);
        let due = match self.save {
            SaveMode::Tool => true,
            SaveMode::Phase => flush_point,
            SaveMode::Interval(every) => flush_point || self.last_flush.elapsed() >= every,
        };
        if due {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes every event recorded so far to disk, durably.
    pub fn flush(&mut self) -> Result<(), RecordError> {
        self.write_pending(true)
    }

    fn write_pending(&mut self, durable: bool) -> Result<(), RecordError> {
        if !self.pending.is_empty() {
            let (id, may_write_ended) = (self.log.id().clone(), self.may_write_ended);
            let reopened = std::cell::Cell::new(None);
            let result = self.store.append_events_checked(
                &self.path,
                &mut self.pending,
                durable,
                &mut self.seen,
                |current: &SessionLog, events: &mut Vec<TimedEvent>| {
                    // Checked again under the writers' lock: the session may
                    // have ended, or been paused, since it was opened.
                    match current.frontmatter.status {
                        SessionStatus::Completed | SessionStatus::Failed if !may_write_ended => {
                            Err(RecordError::Ended {
                                id,
                                status: current.frontmatter.status,
                            })
                        }
                        SessionStatus::Paused
                            if events.iter().any(|e| is_work(&e.event))
                                && !matches!(
                                    events.first().map(|e| &e.event),
                                    Some(SessionEvent::Reopen)
                                ) =>
                        {
                            // Work went on after a pause that came in between.
                            let reopen = TimedEvent {
                                at: Timestamp::now(),
                                event: SessionEvent::Reopen,
                            };
                            events.insert(0, reopen.clone());
                            reopened.set(Some(reopen));
                            Ok(())
                        }
                        _ => Ok(()),
                    }
                },
            );
            if result.is_err() {
                // Refused or failed: none of it is kept, not even by `Drop`.
                self.pending.clear();
            }
            result?;
            if let Some(reopen) = reopened.take() {
                self.log.apply(&reopen);
            }
            self.pending.clear();
        }
        self.last_flush = Instant::now();
        Ok(())
    }

    /// Writes every event so far and brings the markdown itself up to date
    /// (folds the journal), for a session people read while it goes on,
    /// such as a resumed conversation after each reply.
    pub fn fold(&mut self) -> Result<(), RecordError> {
        self.write_pending(true)?;
        self.store.fold(&self.path)?;
        Ok(())
    }

    /// Writes what is pending and lets go of the session. Under the `phase`
    /// policy the write is not fsynced (the next boundary is); under `tool`
    /// every event already was. Dropping a recorder does the same, ignoring
    /// errors; call this to see them.
    pub fn close(mut self) -> Result<(), RecordError> {
        let durable = matches!(self.save, SaveMode::Tool);
        self.write_pending(durable)
    }

    fn check_name(name: &str) -> Result<String, RecordError> {
        let name = one_line(name);
        if name.is_empty() {
            return Err(RecordError::PhaseName("cannot be empty"));
        }
        let last = name.split_whitespace().last().unwrap_or("");
        if last.starts_with('@') || last.starts_with('#') {
            return Err(RecordError::PhaseName(
                "cannot end with an @ or # word (it would read as the agent or channel)",
            ));
        }
        Ok(name)
    }

    /// Starts a top-level phase (`## Name @agent #channel`).
    pub fn phase(
        &mut self,
        name: &str,
        agent: Option<AgentRef>,
        channel: Option<String>,
    ) -> Result<PhaseId, RecordError> {
        self.phase_at_level(name, agent, channel, 2)
    }

    /// Starts a phase nested in the current one (one heading level deeper).
    pub fn nested_phase(
        &mut self,
        name: &str,
        agent: Option<AgentRef>,
        channel: Option<String>,
    ) -> Result<PhaseId, RecordError> {
        let level = match self.log.sections.last() {
            Some(Section::Phase(p)) => (p.level + 1).min(6),
            _ => 2,
        };
        self.phase_at_level(name, agent, channel, level)
    }

    fn phase_at_level(
        &mut self,
        name: &str,
        agent: Option<AgentRef>,
        channel: Option<String>,
        level: u8,
    ) -> Result<PhaseId, RecordError> {
        let name = Self::check_name(name)?;
        let channel = channel.or_else(|| self.log.frontmatter.channel.clone());
        self.record(SessionEvent::Phase {
            name,
            agent,
            channel,
            level,
        })?;
        Ok(self.current_phase().expect("a phase was just recorded"))
    }

    /// A tool call; `result` is summarised to one line of at most 100 characters.
    pub fn tool_call(
        &mut self,
        tool: &str,
        args: &str,
        result: Option<&str>,
        failed: bool,
    ) -> Result<(), RecordError> {
        self.record(SessionEvent::tool(tool, args, result, failed))
    }

    pub fn decision(&mut self, text: &str) -> Result<(), RecordError> {
        self.record(SessionEvent::Decision {
            text: text.trim().to_owned(),
        })
    }

    pub fn error(&mut self, text: &str, resolution: Option<&str>) -> Result<(), RecordError> {
        self.record(SessionEvent::Error {
            text: text.trim().to_owned(),
            resolution: resolution.map(|r| r.trim().to_owned()),
        })
    }

    /// A user's intervention: their exact words, and what was made of them.
    pub fn user(&mut self, quote: &str, interpretation: Option<&str>) -> Result<(), RecordError> {
        self.record(SessionEvent::User {
            quote: quote.trim().to_owned(),
            interpretation: interpretation.map(|i| i.trim().to_owned()),
        })
    }

    /// An agent's reply (`> [!reply] @agent`), e.g. in a resumed session.
    pub fn reply(&mut self, agent: Option<AgentRef>, text: &str) -> Result<(), RecordError> {
        self.reply_by_model(agent, None, text)
    }

    /// An agent's reply, and the model that gave it (recorded as the
    /// phase's `model`).
    pub fn reply_by_model(
        &mut self,
        agent: Option<AgentRef>,
        model: Option<&str>,
        text: &str,
    ) -> Result<(), RecordError> {
        self.record(SessionEvent::Reply {
            agent,
            text: text.to_owned(),
            model: model.map(str::to_owned),
        })
    }

    /// A subagent whose whole work is logged inside the callout.
    pub fn inline_subagent(
        &mut self,
        agent: Option<AgentRef>,
        model: Option<String>,
        description: &str,
        content: &str,
        summary: Option<&str>,
    ) -> Result<(), RecordError> {
        let indented = |t: &str| {
            t.lines()
                .map(|l| {
                    if l.is_empty() {
                        String::new()
                    } else {
                        format!("  {l}")
                    }
                })
                .collect()
        };
        self.record(SessionEvent::Subagent {
            subagent: SubagentRef {
                agent,
                model,
                mode: SubagentMode::Inline,
                target: None,
                description: description
                    .lines()
                    .map(str::to_owned)
                    .filter(|l| !l.trim().is_empty())
                    .collect(),
                content: indented(content),
                summary: summary.map(|s| s.trim().to_owned()),
            },
        })
    }

    /// Starts a subagent in a session of its own (`link` or `embed`; the
    /// configured mode when `None`): creates the child file linked back to
    /// this one, puts `[[child]]` or `![[child]]` here and the child in
    /// `subagents`, and returns the child's recorder. Ending the child writes
    /// its summary and tokens back here.
    pub fn start_subagent(
        &mut self,
        mode: Option<SubagentMode>,
        agent: AgentRef,
        model: Option<String>,
        description: &str,
    ) -> Result<Recorder<'s, C>, RecordError> {
        let mode = mode.unwrap_or(self.subagent_mode);
        if mode == SubagentMode::Inline {
            return Err(RecordError::SubagentMode { mode });
        }
        let title = description
            .lines()
            .find(|l| !l.trim().is_empty())
            .map_or_else(
                || format!("{} subagent", agent.name),
                |l| crate::cut(l.trim(), 80),
            );
        let config = SessionConfig {
            save: self.save,
            subagent_mode: self.subagent_mode,
            ..SessionConfig::default()
        };
        let child = Recorder::start(
            self.store,
            &StartOptions {
                title: Some(title),
                channel: self.log.frontmatter.channel.clone(),
                agent: Some(agent.clone()),
                model: model.clone(),
                parent: Some(self.id().clone()),
                // A subagent works where its parent does.
                cwd: self
                    .log
                    .frontmatter
                    .extra
                    .get_str(crate::project::CWD_KEY)
                    .map(PathBuf::from),
            },
            &config,
        )?;
        let linked = self.record(SessionEvent::Subagent {
            subagent: SubagentRef {
                agent: Some(agent),
                model,
                mode,
                target: Some(child.id().clone()),
                description: description
                    .lines()
                    .map(str::to_owned)
                    .filter(|l| !l.trim().is_empty())
                    .collect(),
                content: Vec::new(),
                summary: None,
            },
        });
        if let Err(e) = linked {
            // The parent refused the link (it ended meanwhile, say): the
            // child, which nothing names yet, goes too, so the failed call
            // leaves nothing behind.
            let path = child.path().to_owned();
            drop(child);
            if let Err(rm) = std::fs::remove_file(&path) {
                tracing::warn!(path = %path.display(), error = %rm, "unlinked subagent session left behind");
            }
            return Err(e);
        }
        Ok(child)
    }

    /// Replaces the session's task list.
    pub fn tasks(&mut self, tasks: Vec<Task>) -> Result<(), RecordError> {
        self.record(SessionEvent::Tasks { tasks })
    }

    /// Adds to the tokens this session used itself.
    pub fn tokens(&mut self, tokens: u64) -> Result<(), RecordError> {
        self.record(SessionEvent::Tokens { tokens })
    }

    /// One model request's tokens by kind, and the model that answered:
    /// a usage record of the current phase.
    pub fn usage(
        &mut self,
        model: Option<String>,
        tokens: crate::Tokens,
    ) -> Result<(), RecordError> {
        self.record(SessionEvent::Usage { model, tokens })
    }

    /// Pauses at `at`, or at the current phase.
    pub fn pause(&mut self, at: Option<PhaseId>) -> Result<(), RecordError> {
        if let Some(point) = at {
            let phases = self.log.phase_count();
            if point.index() >= phases {
                return Err(RecordError::NoSuchPhase { point, phases });
            }
        }
        self.record(SessionEvent::Pause { resume_point: at })
    }

    /// Ends the session. A subagent's session reports its summary and tokens
    /// to its parent.
    pub fn end(&mut self, status: SessionStatus, summary: Option<&str>) -> Result<(), RecordError> {
        if !matches!(status, SessionStatus::Completed | SessionStatus::Failed) {
            return Err(RecordError::EndStatus(status));
        }
        let summary = summary
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        self.record(SessionEvent::End {
            status,
            summary: summary.clone(),
        })?;
        if let Some(parent) = self.log.frontmatter.parent.clone() {
            match self.store.resolve_id(&parent) {
                Ok(parent_path) => {
                    let done = TimedEvent {
                        at: Timestamp::now(),
                        event: SessionEvent::SubagentDone {
                            child: self.id().clone(),
                            summary,
                            tokens: self.log.frontmatter.tokens_used,
                        },
                    };
                    self.store.append_events(&parent_path, &[done], true)?;
                }
                Err(e) => {
                    tracing::warn!(%parent, error = %e, "parent session not found; summary not written back");
                }
            }
        }
        Ok(())
    }
}

/// An event that is work in the session, which a paused session reopens
/// for; a pause or an end is not.
fn is_work(event: &SessionEvent) -> bool {
    !matches!(
        event,
        SessionEvent::Pause { .. }
            | SessionEvent::End { .. }
            | SessionEvent::Reopen
            | SessionEvent::SubagentDone { .. }
    )
}

impl<C: SessionCodec> Drop for Recorder<'_, C> {
    fn drop(&mut self) {
        let durable = matches!(self.save, SaveMode::Tool);
        if let Err(e) = self.write_pending(durable) {
            tracing::error!(session = %self.log.id(), error = %e, "events not written");
        }
    }
}

/// Pauses the session at `path` if it is active and has had no event for
/// longer than `idle`. The pause is dated when the session went quiet.
pub fn pause_if_idle<C: SessionCodec>(
    store: &SessionStore<C>,
    path: &Path,
    idle: std::time::Duration,
    now: std::time::SystemTime,
) -> Result<bool, StoreError> {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let Some(last) = [
        modified(path),
        modified(&crate::store::journal::journal_path(path)),
    ]
    .into_iter()
    .flatten()
    .max() else {
        return Ok(false);
    };
    if now.duration_since(last).unwrap_or_default() <= idle {
        return Ok(false);
    }
    let at_ms = last
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let event = TimedEvent {
        at: Timestamp::from_unix_ms(at_ms),
        event: SessionEvent::Pause { resume_point: None },
    };
    // The status is checked under the lock of the append: a session ended
    // meanwhile must not go back to paused.
    match store.append_events_checked(path, &mut vec![event], true, &mut None, |log, _| {
        if log.frontmatter.status == SessionStatus::Active {
            Ok(())
        } else {
            Err(IdleCheck::NotActive)
        }
    }) {
        Ok(()) => Ok(true),
        Err(IdleCheck::NotActive | IdleCheck::Store(StoreError::Decode(_))) => Ok(false),
        Err(IdleCheck::Store(e)) => Err(e),
    }
}

/// Why an idle session was not paused.
enum IdleCheck {
    NotActive,
    Store(StoreError),
}

impl From<StoreError> for IdleCheck {
    fn from(e: StoreError) -> Self {
        Self::Store(e)
    }
}
