//! Which cru session an event goes to: the one the state names, a new
//! one, or (a resumed Claude Code session) the one recorded before.

use std::io::{BufRead, BufReader};
use std::path::Path;

use crucible_core::{Frontmatter, SessionCodec, SessionEvent, SessionLog};
use crucible_interop::{CAPTURED, Provenance};

use super::{AGENT, CaptureError, Turn, path_text};
use crate::event::HookEvent;
use crate::state::{Locked, SessionState, peek};

/// How many lines of a resumed transcript are looked at for the session
/// it continues (its repeated history comes first).
const HEAD_LINES: usize = 64;

impl<C: SessionCodec> Turn<'_, C> {
    /// The state of the event's session, made (with a new cru session)
    /// when there is none yet or the event starts afresh.
    pub(super) fn session_for<'l>(
        &mut self,
        locked: &'l mut Locked,
    ) -> Result<&'l mut SessionState, CaptureError> {
        let source = match &self.input.event {
            HookEvent::SessionStart { source, .. } => source.as_deref(),
            _ => None,
        };
        // `/clear` keeps nothing of the conversation: a new session. A
        // second startup of one id (the hook installed twice, say) goes on
        // where the first was.
        let fresh = locked.state.is_none() || source == Some("clear");
        if fresh {
            let state = match source {
                Some("resume") => self.continued().transpose()?,
                _ => None,
            };
            let mut state = match state {
                Some(s) => s,
                None => self.create()?,
            };
            state.transcript.clone_from(&self.input.transcript_path);
            // A transcript already written (a resumed session's repeated
            // history) was counted, if at all, by the session it repeats.
            state.transcript_offset = match source {
                Some("resume") => file_len(self.input.transcript_path.as_deref()),
                _ => 0,
            };
            locked.state = Some(state);
        }
        let state = locked.state.as_mut().expect("a state was just ensured");
        if source == Some("resume") && state.ended {
            state.ended = false;
            self.add(SessionEvent::Reopen);
            self.durable = true;
        }
        Ok(state)
    }

    /// A resumed session whose transcript repeats another Claude Code
    /// session's lines: that session's state (its cru session, reopened),
    /// if hooks recorded it.
    fn continued(&self) -> Option<Result<SessionState, CaptureError>> {
        let path = self.input.transcript_path.as_deref()?;
        let earlier = earlier_session_id(path, &self.input.session_id)?;
        match peek(self.store.dir(), AGENT, &earlier) {
            Ok(Some(state)) if state.path.exists() => Some(Ok(state)),
            Ok(_) => None,
            Err(e) => Some(Err(e.into())),
        }
    }

    /// A new cru session for this Claude Code session, carrying the
    /// provenance an import of its transcript is matched by.
    fn create(&self) -> Result<SessionState, CaptureError> {
        let model = match &self.input.event {
            HookEvent::SessionStart { model, .. } => model.clone(),
            _ => None,
        };
        let provenance = Provenance {
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
        };
        let (path, log) = self
            .store
            .create_new(self.now, Some("Claude Code session"), |id| {
                let mut fm = Frontmatter::new(id, self.now.clone());
                fm.title = Some("Claude Code session".into());
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
        Ok(SessionState::new(log.id().clone(), path))
    }
}

fn file_len(path: Option<&Path>) -> u64 {
    path.and_then(|p| std::fs::metadata(p).ok())
        .map_or(0, |m| m.len())
}

/// The first `sessionId` in the head of a transcript that is not
/// `current`: the session a resumed transcript repeats the history of.
fn earlier_session_id(path: &Path, current: &str) -> Option<String> {
    let (file, _) = crucible_core::store::safe_file::open_regular(path, u64::MAX).ok()?;
    BufReader::new(file)
        .lines()
        .take(HEAD_LINES)
        .map_while(Result::ok)
        .find_map(|line| {
            let v: serde_json::Value = serde_json::from_str(&line).ok()?;
            let sid = v.get("sessionId")?.as_str()?;
            (sid != current).then(|| sid.to_owned())
        })
}
