//! Which cru session an event goes to: the one the state names, a new
//! one, or (a resumed Claude Code session) the one recorded before.

use std::path::Path;

use crucible_core::{Frontmatter, SessionCodec, SessionEvent, SessionLog};
use crucible_interop::{CAPTURED, Provenance};

use super::{AGENT, CaptureError, Turn, path_text};
use crate::event::HookEvent;
use crate::state::{Locked, SessionState, Start, peek};

impl<C: SessionCodec> Turn<'_, C> {
    /// The state of the event's session, made (with a new cru session)
    /// when there is none yet or the event starts afresh; `None` for a
    /// session that starts now: it is made at its first prompt, and named
    /// from it as an import names it (the `SessionStart` kept till then).
    pub(super) fn session_for<'l>(
        &mut self,
        locked: &'l mut Locked,
    ) -> Result<Option<&'l mut SessionState>, CaptureError> {
        let source = match &self.input.event {
            HookEvent::SessionStart { source, .. } => source.as_deref(),
            _ => None,
        };
        // A session file gone (deleted, the directory moved) cannot take
        // events: the rest of the conversation starts a new one.
        if locked.state.as_ref().is_some_and(|s| !s.path.is_file()) {
            locked.state = None;
        }
        // `/clear` keeps nothing of the conversation: a new session. A
        // second startup of one id (the hook installed twice, say) goes on
        // where the first was.
        let fresh = locked.state.is_none() || source == Some("clear");
        if fresh {
            let state = match source {
                Some("resume") => self.continued().transpose()?,
                _ => None,
            };
            let (mut state, counted) = if let Some(s) = state {
                (s, true)
            } else {
                if let HookEvent::SessionStart { model, .. } = &self.input.event
                    && source != Some("resume")
                {
                    locked.wait_for_prompt(&Start {
                        model: model.clone(),
                        source: source.map(str::to_owned),
                    })?;
                    return Ok(None);
                }
                let made = self.create(locked.start().unwrap_or_default())?;
                locked.started();
                made
            };
            state.transcript.clone_from(&self.input.transcript_path);
            // A transcript already written (a resumed session's repeated
            // history, an imported one's) was counted by the session that
            // holds it.
            state.transcript_offset = if counted || source == Some("resume") {
                file_len(self.input.transcript_path.as_deref())
            } else {
                0
            };
            locked.state = Some(state);
        }
        let state = locked.state.as_mut().expect("a state was just ensured");
        if state.transcript.is_none() {
            state.transcript.clone_from(&self.input.transcript_path);
        }
        if source == Some("resume") && state.ended {
            state.ended = false;
            self.add(SessionEvent::Reopen);
            self.durable = true;
        }
        Ok(Some(state))
    }

    /// A resumed session whose transcript repeats another Claude Code
    /// session's lines: that session's state (its cru session, reopened),
    /// if hooks recorded it.
    fn continued(&self) -> Option<Result<SessionState, CaptureError>> {
        let path = self.input.transcript_path.as_deref()?;
        for earlier in crucible_interop::claude_code_earlier_sessions(path, &self.input.session_id)
        {
            match peek(self.store.dir(), AGENT, &earlier) {
                Ok(Some(state)) if state.path.exists() => {
                    // The import of either transcript finds this one
                    // session by it (one session, not two).
                    let sid = &self.input.session_id;
                    let noted = self.store.update(&state.path, |log| {
                        crucible_interop::reconcile::resumed::note_resumed(log, sid);
                    });
                    return Some(noted.map(|()| state).map_err(Into::into));
                }
                Ok(_) => {}
                Err(e) => return Some(Err(e.into())),
            }
        }
        None
    }

    /// A new cru session for this Claude Code session, carrying the
    /// provenance an import of its transcript is matched by, or the one an
    /// import made of it already (then `true`: its usage is counted).
    fn create(&self, start: Start) -> Result<(SessionState, bool), CaptureError> {
        let model = match &self.input.event {
            HookEvent::SessionStart { model, .. } => model.clone(),
            _ => start.model,
        };
        // Named from the first prompt, as an import names it; a session
        // whose first event is not a prompt (hooks installed mid-session)
        // gets the placeholder.
        let title = match &self.input.event {
            HookEvent::UserPromptSubmit { prompt } => title_of(prompt),
            _ => None,
        }
        .unwrap_or_else(|| PLACEHOLDER.to_owned());
        let provenance = self.provenance();
        // A session that starts now (`startup`, `clear`) cannot have been
        // imported: only the others look for an import, and only when
        // there is a transcript to have imported, so a new session is
        // spared the scan of the directory.
        let new_now = matches!(start.source.as_deref(), Some("startup" | "clear"));
        if !new_now
            && file_len(self.input.transcript_path.as_deref()) > 0
            && let Some(state) = self.adopt(&provenance)?
        {
            return Ok((state, true));
        }
        let (path, log) = self.store.create_new(self.now, Some(&title), |id| {
            let mut fm = Frontmatter::new(id, self.now.clone());
            fm.title = Some(title.clone());
            fm.participants
                .push(AGENT.parse().expect("a valid agent name"));
            fm.model.clone_from(&model);
            if let Some(cwd) = &self.input.cwd {
                fm.set_working_dir(cwd);
            }
            let mut log = SessionLog::new(fm);
            provenance.store(&mut log);
            log
        })?;
        Ok((SessionState::new(log.id().clone(), path), false))
    }
}

impl<C: SessionCodec> Turn<'_, C> {
    /// The `import` key of this Claude Code session's cru session.
    fn provenance(&self) -> Provenance {
        Provenance {
            format: AGENT.into(),
            path: self
                .input
                .transcript_path
                .as_deref()
                .map_or_else(|| format!("hook:{}", self.input.session_id), path_text),
            id: Some(self.input.session_id.clone()),
            source_hash: CAPTURED.into(),
            session_hash: CAPTURED.into(),
            data_hash: None,
        }
    }

    /// A state that could not be read, rebuilt from the session it names
    /// (found, as an import finds it, by the transcript's path or the
    /// Claude session id): recording goes on there. Its usage is taken as
    /// counted up to the transcript's end.
    pub(super) fn rebuild(&mut self, locked: &mut Locked) -> Result<(), CaptureError> {
        let Some(why) = locked.damaged.take() else {
            return Ok(());
        };
        let found = self.adopt(&self.provenance())?;
        self.rebuilt = Some(match &found {
            Some(state) => format!("{why}; rebuilt from session {}", state.session),
            None => format!("{why}; no session of it found, a new one is made"),
        });
        if let Some(mut state) = found {
            state.transcript.clone_from(&self.input.transcript_path);
            state.transcript_offset = file_len(self.input.transcript_path.as_deref());
            locked.state = Some(state);
        }
        Ok(())
    }

    /// The session an earlier import of this transcript made, if any
    /// (hooks installed after the session began, or a session resumed
    /// after an import): recording goes on there, and it is marked as
    /// captured so that the next import of the transcript updates it
    /// rather than keeping it as changed in cru. Only for a transcript
    /// that has lines: a new session's has none, and is spared the scan.
    fn adopt(&self, provenance: &Provenance) -> Result<Option<SessionState>, CaptureError> {
        let imports = crucible_interop::reconcile::Imports::of_store(self.store);
        let Some((path, log)) = imports.find(provenance) else {
            return Ok(None);
        };
        let (path, id) = (path.clone(), log.id().clone());
        self.store.update(&path, |log| {
            if let Some(mut p) = Provenance::of(log) {
                p.source_hash = CAPTURED.into();
                p.session_hash = CAPTURED.into();
                // Hooks add to the sidecar: its import-time hash no longer holds.
                p.data_hash = None;
                p.store(log);
            }
        })?;
        let mut state = SessionState::new(id, path);
        state.ended = log.frontmatter.status == crucible_core::SessionStatus::Completed;
        state.phases = log.phase_count();
        state.calls = log.phases().last().map_or(0, |(_, p)| {
            p.blocks
                .iter()
                .map(|b| match b {
                    crucible_core::Block::ToolCalls { calls } => calls.len(),
                    _ => 0,
                })
                .sum()
        });
        Ok(Some(state))
    }
}

/// The title of a session with no prompt to name it by.
const PLACEHOLDER: &str = "Claude Code session";

/// A session's title from its first prompt, by the importer's rule: the
/// first line, on one line, cut to 80 characters.
fn title_of(prompt: &str) -> Option<String> {
    let line = crucible_core::one_line(prompt.lines().next().unwrap_or("").trim());
    let title = crucible_core::cut(&line, 80);
    (!title.is_empty()).then_some(title)
}

fn file_len(path: Option<&Path>) -> u64 {
    path.and_then(|p| std::fs::metadata(p).ok())
        .map_or(0, |m| m.len())
}
