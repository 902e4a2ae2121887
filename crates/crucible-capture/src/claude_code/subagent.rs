//! `SubagentStop`: the subagent becomes a child session linked from the
//! current phase (as `cru session log subagent --mode link` makes one),
//! with its reply and its usage (from its own transcript, when the event
//! names it), ended at once: its work is over when the event comes.

use std::path::{Path, PathBuf};

use crucible_core::{
    AgentRef, Frontmatter, SessionCodec, SessionEvent, SessionId, SessionLog, SessionStatus,
    SubagentMode, SubagentRef, TimedEvent, Tokens,
};
use crucible_interop::{CAPTURED, Provenance};

use super::{CaptureError, Turn, path_text};
use crate::event::HookEvent;
use crate::state::SessionState;

/// What a `SubagentStop` says.
struct Stopped<'a> {
    agent_id: Option<&'a str>,
    agent_type: Option<&'a str>,
    transcript: Option<&'a Path>,
    reply: Option<&'a str>,
}

impl<C: SessionCodec> Turn<'_, C> {
    pub(super) fn subagent(&mut self, state: &mut SessionState) -> Result<(), CaptureError> {
        let input = self.input;
        let HookEvent::SubagentStop {
            agent_id,
            agent_type,
            agent_transcript_path,
            last_assistant_message,
        } = &input.event
        else {
            return Ok(());
        };
        let stopped = Stopped {
            agent_id: agent_id.as_deref(),
            agent_type: agent_type.as_deref(),
            transcript: agent_transcript_path.as_deref(),
            reply: last_assistant_message
                .as_deref()
                .filter(|r| !r.trim().is_empty()),
        };
        // Older releases name no agent: each event is one subagent.
        let key = stopped
            .agent_id
            .map_or_else(|| format!("#{}", state.subagents.len() + 1), str::to_owned);
        if state.subagents.contains(&key) {
            return Ok(());
        }
        let agent: AgentRef = stopped
            .agent_type
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| "subagent".parse().expect("a valid agent name"));
        let (child, tokens) = self.child(&state.session, &agent, &stopped)?;
        state.subagents.push(key);
        self.push(
            state,
            SessionEvent::Subagent {
                subagent: SubagentRef {
                    agent: Some(agent),
                    model: None,
                    mode: SubagentMode::Link,
                    target: Some(child.clone()),
                    description: stopped.agent_type.into_iter().map(str::to_owned).collect(),
                    content: Vec::new(),
                    summary: None,
                },
            },
        );
        let summary = stopped
            .reply
            .and_then(|m| m.lines().find(|l| !l.trim().is_empty()))
            .map(|l| crucible_core::cut(l.trim(), 200));
        self.push(
            state,
            SessionEvent::SubagentDone {
                child,
                summary,
                tokens: Some(tokens).filter(|&t| t > 0),
            },
        );
        Ok(())
    }

    /// Creates the child session, records its reply and usage, ends it;
    /// returns its id and the tokens it used.
    fn child(
        &self,
        parent: &SessionId,
        agent: &AgentRef,
        stopped: &Stopped<'_>,
    ) -> Result<(SessionId, u64), CaptureError> {
        let title = format!("{} subagent", agent.name);
        let usage = match stopped.transcript {
            Some(p) => super::usage::responses_of(p, &mut 0)?,
            None => Vec::new(),
        };
        let (path, child) = self.create_child(parent, agent, &title, stopped)?;
        let mut events = Vec::new();
        if let Some(reply) = stopped.reply {
            events.push(SessionEvent::Reply {
                agent: Some(agent.clone()),
                text: reply.trim().to_owned(),
                model: None,
            });
        }
        let tokens: u64 = usage.iter().map(|(_, t)| Tokens::total(*t)).sum();
        events.extend(
            usage
                .into_iter()
                .map(|(model, tokens)| SessionEvent::Usage { model, tokens }),
        );
        events.push(SessionEvent::End {
            status: SessionStatus::Completed,
            summary: None,
        });
        let timed: Vec<TimedEvent> = events
            .into_iter()
            .map(|event| TimedEvent {
                at: self.now.clone(),
                event,
            })
            .collect();
        self.store.append_events(&path, &timed, true)?;
        Ok((child, tokens))
    }

    fn create_child(
        &self,
        parent: &SessionId,
        agent: &AgentRef,
        title: &str,
        stopped: &Stopped<'_>,
    ) -> Result<(PathBuf, SessionId), CaptureError> {
        // Matched, like its parent, by the import of its own file.
        let provenance = stopped.transcript.map(|p| Provenance {
            format: super::AGENT.into(),
            path: path_text(p),
            id: stopped.agent_id.map(str::to_owned),
            source_hash: CAPTURED.into(),
            session_hash: CAPTURED.into(),
            data_hash: None,
        });
        let (path, log) = self.store.create_new(self.now, Some(title), |id| {
            let mut fm = Frontmatter::new(id, self.now.clone());
            fm.title = Some(title.to_owned());
            fm.participants.push(agent.clone());
            fm.parent = Some(parent.clone());
            if let Some(cwd) = &self.input.cwd {
                fm.set_working_dir(cwd);
            }
            let mut log = SessionLog::new(fm);
            if let Some(p) = &provenance {
                p.store(&mut log);
            }
            log
        })?;
        Ok((path, log.id().clone()))
    }
}
