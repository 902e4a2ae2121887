//! Claude Code's hook events recorded into cru sessions, one event per
//! hook run (docs/recording.md, "Hooks").
//!
//! What each event does to the cru session of its `session_id`:
//!
//! | event | in the cru session |
//! |---|---|
//! | `SessionStart` | `startup`, `clear` (or no state yet): nothing yet, the session is made at the first prompt and named from it, with the model said here; `resume`: the session recorded before for this id, or for the Claude Code session whose lines the new transcript repeats, reopened; `compact`: nothing |
//! | `UserPromptSubmit` | a phase named from the prompt, the prompt in a `[!user]` callout (as the importer writes a turn) |
//! | `PreToolUse` | nothing yet: the call waits in the state for its result, by `tool_use_id` |
//! | `PostToolUse`, `PostToolUseFailure` | the tool call, its inputs and a summary of its result (✗ when it failed); a payload over the limit goes whole to the sidecar and is cut with a marker |
//! | `Stop` | calls that got no result (denied, interrupted) as failed; the transcript's usage since the offset reached last time |
//! | `SubagentStop` | a child session linked from the current phase, with the subagent's usage and reply |
//! | `PreCompact` | a `compact` marker in the current phase (a tool-call line), no phase |
//! | `SessionEnd` | as `Stop`, then the session ends `completed` |
//! | `Notification`, any other | nothing |
//!
//! A session made by hooks carries the `import` key of an import of its
//! transcript (format `claude-code`, the transcript's path, the Claude
//! session id) with the source hash [`crucible_interop::CAPTURED`], so that
//! importing the transcript later updates this session (same id) instead
//! of making a second one.

mod session;
mod subagent;
mod tools;
mod usage;

use std::path::{Path, PathBuf};

use crucible_core::{
    SessionCodec, SessionEvent, SessionId, SessionStore, StoreError, TimedEvent, Timestamp,
};

use crate::event::{HookEvent, HookInput};
use crate::state::{Locked, SessionState, StateError};

/// The agent name hooks record under (also the state's directory).
pub const AGENT: &str = "claude-code";

/// Payloads larger than this go to the sidecar by default.
pub const DEFAULT_PAYLOAD_LIMIT: usize = 16 * 1024;

/// Why an event could not be recorded.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    State(#[from] StateError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What the caller chooses.
#[derive(Debug, Clone)]
pub struct CaptureOptions {
    /// A tool's input or result larger than this (bytes, as compact JSON)
    /// is cut in the markdown and kept whole in the sidecar.
    pub payload_limit: usize,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        Self {
            payload_limit: DEFAULT_PAYLOAD_LIMIT,
        }
    }
}

/// What an event did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// An event cru does not record (`Notification`, unknown ones), or
    /// not yet (a `SessionStart`: the session is made at its first prompt).
    Nothing,
    /// Recorded into (or waiting in the state of) this session;
    /// `rebuilt`: the session's state file was damaged (why, and what was
    /// done: rebuilt from the session, or a new session), for the hook
    /// error log.
    Session {
        id: SessionId,
        path: PathBuf,
        rebuilt: Option<String>,
    },
}

/// Records Claude Code hook events into a store.
#[derive(Debug)]
pub struct Capture<'s, C: SessionCodec> {
    store: &'s SessionStore<C>,
    options: CaptureOptions,
}

impl<'s, C: SessionCodec> Capture<'s, C> {
    pub fn new(store: &'s SessionStore<C>, options: CaptureOptions) -> Self {
        Self { store, options }
    }

    /// Records one event, dated `now`. Hook runs of one session wait for
    /// each other (see [`crate::state`]); nothing an earlier run recorded
    /// is lost.
    pub fn record(&self, input: &HookInput, now: &Timestamp) -> Result<Recorded, CaptureError> {
        if matches!(
            input.event,
            HookEvent::Notification { .. } | HookEvent::Other
        ) {
            return Ok(Recorded::Nothing);
        }
        let mut locked = Locked::open(self.store.dir(), AGENT, &input.session_id)?;
        let mut turn = Turn {
            store: self.store,
            options: &self.options,
            input,
            now,
            events: Vec::new(),
            calls: Vec::new(),
            durable: false,
            rebuilt: None,
        };
        turn.rebuild(&mut locked)?;
        let Some(state) = turn.session_for(&mut locked)? else {
            // A session that starts now waits for its first prompt.
            return Ok(Recorded::Nothing);
        };
        turn.apply(state)?;
        turn.write(state)?;
        let recorded = Recorded::Session {
            id: state.session.clone(),
            path: state.path.clone(),
            rebuilt: turn.rebuilt.take(),
        };
        locked.save()?;
        Ok(recorded)
    }
}

/// One event being turned into session events.
struct Turn<'a, C: SessionCodec> {
    store: &'a SessionStore<C>,
    options: &'a CaptureOptions,
    input: &'a HookInput,
    now: &'a Timestamp,
    events: Vec<TimedEvent>,
    /// Sidecar records for the calls among `events`.
    calls: Vec<crucible_core::CallData>,
    durable: bool,
    /// The state was damaged and rebuilt: what to tell.
    rebuilt: Option<String>,
}

impl<C: SessionCodec> Turn<'_, C> {
    /// Adds an event, reopening an ended session for work first, and keeps
    /// count of phases and calls (where sidecar records point).
    fn push(&mut self, state: &mut SessionState, event: SessionEvent) {
        let work = !matches!(
            event,
            SessionEvent::End { .. } | SessionEvent::SubagentDone { .. }
        );
        if state.ended && work {
            state.ended = false;
            self.add(SessionEvent::Reopen);
        }
        match &event {
            SessionEvent::Phase { .. } => {
                state.phases += 1;
                state.calls = 0;
                self.durable = true;
            }
            SessionEvent::Tool { .. } => {
                // A call before any phase opens one (`Work`).
                state.phases = state.phases.max(1);
                state.calls += 1;
            }
            SessionEvent::End { .. } => {
                state.ended = true;
                self.durable = true;
            }
            _ => {}
        }
        self.add(event);
    }

    fn add(&mut self, event: SessionEvent) {
        self.events.push(TimedEvent {
            at: self.now.clone(),
            event,
        });
    }

    fn apply(&mut self, state: &mut SessionState) -> Result<(), CaptureError> {
        let input = self.input;
        match &input.event {
            HookEvent::SessionStart { .. } | HookEvent::Notification { .. } | HookEvent::Other => {}
            HookEvent::UserPromptSubmit { prompt } => {
                let name = phase_name(prompt, state.phases + 1);
                self.push(
                    state,
                    SessionEvent::Phase {
                        name,
                        agent: None,
                        channel: Some("main".into()),
                        level: 2,
                    },
                );
                self.push(
                    state,
                    SessionEvent::User {
                        quote: prompt.trim().to_owned(),
                        interpretation: None,
                    },
                );
            }
            HookEvent::PreToolUse { .. }
            | HookEvent::PostToolUse { .. }
            | HookEvent::PostToolUseFailure { .. } => self.tool_event(state),
            HookEvent::PreCompact {
                trigger,
                custom_instructions,
            } => {
                let args = [trigger.as_deref(), custom_instructions.as_deref()]
                    .into_iter()
                    .flatten()
                    .filter(|s| !s.trim().is_empty())
                    .collect::<Vec<_>>()
                    .join(" ");
                self.push(
                    state,
                    SessionEvent::tool("compact", &args, Some("context compacted"), false),
                );
            }
            HookEvent::Stop { .. } => {
                self.unanswered(state);
                self.usage(state)?;
            }
            HookEvent::SubagentStop { .. } => self.subagent(state)?,
            HookEvent::SessionEnd { .. } => {
                if !state.ended {
                    self.unanswered(state);
                    self.usage(state)?;
                    self.push(
                        state,
                        SessionEvent::End {
                            status: crucible_core::SessionStatus::Completed,
                            summary: None,
                        },
                    );
                }
            }
        }
        Ok(())
    }

    /// Appends the events to the session's journal (the path
    /// `cru session log` takes: the store's lock, one write), then the
    /// sidecar records of the calls among them.
    fn write(&mut self, state: &SessionState) -> Result<(), CaptureError> {
        self.store
            .append_events(&state.path, &self.events, self.durable)?;
        for call in std::mem::take(&mut self.calls) {
            crate::payload::append_call(self.store, &state.path, &state.session, call)?;
        }
        Ok(())
    }
}

/// A phase's name from the user's words, by the importer's rule: the first
/// non-empty line, on one line, without trailing `@agent`/`#channel`
/// words (they would read as the heading's), cut to 60 characters;
/// `Turn N` when nothing is left.
fn phase_name(words: &str, n: usize) -> String {
    let line = crucible_core::one_line(words.lines().find(|l| !l.trim().is_empty()).unwrap_or(""));
    let mut parts: Vec<&str> = line.split_whitespace().collect();
    while parts
        .last()
        .is_some_and(|w| w.starts_with('@') || w.starts_with('#'))
    {
        parts.pop();
    }
    let name = crucible_core::cut(&parts.join(" "), 60);
    if name.is_empty() {
        format!("Turn {n}")
    } else {
        name
    }
}

/// The transcript path as the importer records it.
fn path_text(p: &Path) -> String {
    p.display().to_string()
}
