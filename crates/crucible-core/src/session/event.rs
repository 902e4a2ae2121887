//! What happens in a live session, as events, and how each one changes a
//! [`SessionLog`].
//!
//! The recorder (a Rust agent's API) and `cru session log` (any other agent's)
//! both turn calls into [`SessionEvent`]s, keep them in the session's journal,
//! and fold them into the markdown with [`SessionLog::apply`]. One function
//! decides what every event means, so the two paths cannot drift apart.

use serde::{Deserialize, Serialize};

use super::{
    AgentRef, Block, Callout, CalloutKind, Phase, PhaseId, Section, SessionId, SessionLog,
    SessionStatus, SubagentEntry, SubagentRef, Task, Timestamp, ToolCall,
};

/// The longest result summary a recorded tool call keeps, in characters.
pub const SUMMARY_LIMIT: usize = 100;

/// One thing that happened in a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SessionEvent {
    /// A new phase; `level` 2 for a top-level phase, deeper for nested ones.
    Phase {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<AgentRef>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        channel: Option<String>,
        level: u8,
    },
    Tool {
        #[serde(flatten)]
        call: ToolCall,
    },
    Decision {
        text: String,
    },
    Error {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resolution: Option<String>,
    },
    /// The user's words. Before the first phase, and with no prompt yet
    /// and no interpretation, they are the session's prompt (a `prompt`
    /// block); otherwise a `[!user]` callout.
    User {
        quote: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        interpretation: Option<String>,
    },
    /// An agent's reply in a resumed conversation (`> [!reply] @agent`):
    /// kept inside a callout, so no line of it can read as a phase heading,
    /// a tool-call list or another callout.
    Reply {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<AgentRef>,
        text: String,
        /// The model that gave the reply; it becomes the phase's `model`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    /// A subagent's callout: inline work, or a link/embed to a child session.
    Subagent {
        #[serde(flatten)]
        subagent: SubagentRef,
    },
    /// A child session ended: its summary and tokens go back to the parent.
    SubagentDone {
        child: SessionId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tokens: Option<u64>,
    },
    /// The task list, replaced whole.
    Tasks {
        tasks: Vec<Task>,
    },
    /// Tokens this session used (not its subagents': they count their own).
    Tokens {
        tokens: u64,
    },
    /// One model request's tokens by kind, and the model that answered: a
    /// usage record of the current phase.
    Usage {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        tokens: crate::Tokens,
    },
    Pause {
        /// The phase to resume at; the current one when absent. (Not `at`:
        /// that is the event's time, in the same JSON object.)
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resume_point: Option<PhaseId>,
    },
    End {
        status: SessionStatus,
        /// For a top-level session, a `## Summary` section; a subagent's
        /// summary goes to its parent instead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
    },
    /// Work goes on in a session that had ended.
    Reopen,
}

impl SessionEvent {
    /// Events after which the markdown is brought up to date (see the
    /// recorder's save policy).
    pub fn is_boundary(&self) -> bool {
        matches!(
            self,
            Self::Phase { .. } | Self::Pause { .. } | Self::End { .. } | Self::Reopen
        )
    }

    /// A tool call as it is recorded: one line, the summary cut to
    /// [`SUMMARY_LIMIT`] characters with `…`.
    pub fn tool(tool: &str, args: &str, result: Option<&str>, failed: bool) -> Self {
        let summary = result
            .map(|r| one_line(r).trim_start_matches('✗').trim().to_owned())
            .filter(|r| !r.is_empty())
            .map(|r| cut(&r, SUMMARY_LIMIT));
        Self::Tool {
            call: ToolCall {
                tool: tool.split_whitespace().collect::<Vec<_>>().join("_"),
                args: one_line(args),
                summary,
                failed,
            },
        }
    }
}

/// Line breaks become `⏎` so a value stays on its list item's line.
pub fn one_line(s: &str) -> String {
    let s = s.trim();
    if !s.contains(['\n', '\r']) {
        return s.to_owned();
    }
    s.replace("\r\n", "\n")
        .split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ⏎ ")
}

/// `cut(&one_line(text), limit)`, without going over all of a long text
/// (a tool's output can be megabytes): the lines of a prefix are enough
/// when they give more than `limit` characters already.
pub fn summary_line(text: &str, limit: usize) -> String {
    let budget = limit * 4 + 1024;
    if text.len() > budget {
        let mut end = budget;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        // Whole lines only: the last one may go on past the prefix.
        if let Some(nl) = text[..end].rfind('\n') {
            let head = one_line(&text[..nl]);
            if head.chars().count() > limit {
                return cut(&head, limit);
            }
        }
    }
    cut(&one_line(text), limit)
}

/// `s` cut to at most `limit` characters, the last being `…` when cut.
pub fn cut(s: &str, limit: usize) -> String {
    if s.chars().count() <= limit {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(limit.saturating_sub(1)).collect();
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// An event and when it happened: one line of a session's journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimedEvent {
    pub at: Timestamp,
    #[serde(flatten)]
    pub event: SessionEvent,
}

impl SessionLog {
    /// The phase events go to: the last section if it is a phase. A session
    /// with none gets an implicit `Work` phase by its first participant, so
    /// a hook that logs before it starts a phase loses nothing.
    fn current_phase(&mut self, at: &Timestamp) -> &mut Phase {
        if !matches!(self.sections.last(), Some(Section::Phase(_))) {
            let agent = self
                .frontmatter
                .participants
                .first()
                .cloned()
                .unwrap_or_else(|| AgentRef::new("agent", None));
            let mut phase = Phase::new("Work", Some(agent), self.frontmatter.channel.clone());
            phase.meta.started = Some(at.clone());
            self.sections.push(Section::Phase(phase));
        }
        match self.sections.last_mut() {
            Some(Section::Phase(p)) => p,
            _ => unreachable!("a phase was just pushed"),
        }
    }

    fn add_participant(&mut self, agent: &AgentRef) {
        if !self.frontmatter.participants.contains(agent) {
            self.frontmatter.participants.push(agent.clone());
        }
    }

    /// Sets the duration of the last phase, when it has a start, to end at `at`.
    fn close_last_phase(&mut self, at: &Timestamp) {
        if let Some(Section::Phase(p)) = self.sections.last_mut()
            && let (Some(started), None) = (&p.meta.started, p.meta.duration_ms)
        {
            let d = at.ms_since(started);
            p.meta.duration_ms = u64::try_from(d).ok();
        }
    }

    fn last_phase_id(&self) -> Option<PhaseId> {
        self.phase_count().checked_sub(1).map(PhaseId::from_index)
    }

    /// Applies one event, as the recorder and `cru session log` define it.
    pub fn apply(&mut self, e: &TimedEvent) {
        let at = &e.at;
        match &e.event {
            SessionEvent::Phase {
                name,
                agent,
                channel,
                level,
            } => self.open_phase(at, name, agent.as_ref(), channel.as_deref(), *level),
            SessionEvent::Tool { call } => self.push_tool_call(at, call),
            SessionEvent::Decision { text } => self.push_callout(at, Callout::decision(text)),
            SessionEvent::Error { text, resolution } => {
                self.push_callout(at, Callout::error(text, resolution.as_deref()));
            }
            SessionEvent::User {
                quote,
                interpretation: None,
            } if self.phase_count() == 0 && self.prompt_block().is_none() => {
                // Before any phase, the user's words are the request the
                // session starts from: kept exactly, in the preamble.
                self.preamble.push(Block::Prompt {
                    text: quote.clone(),
                });
            }
            SessionEvent::User {
                quote,
                interpretation,
            } => self.push_callout(at, Callout::user(quote, interpretation.as_deref())),
            SessionEvent::Reply { agent, text, model } => {
                if let Some(a) = agent {
                    self.add_participant(a);
                }
                self.push_callout(at, Callout::reply(agent.as_ref(), text));
                if let Some(m) = model {
                    self.current_phase(at).meta.model = Some(m.clone());
                }
            }
            SessionEvent::Subagent { subagent } => {
                if let Some(a) = &subagent.agent {
                    self.add_participant(a);
                }
                if let Some(child) = &subagent.target
                    && !self
                        .frontmatter
                        .subagents
                        .iter()
                        .any(|s| &s.session == child)
                {
                    self.frontmatter.subagents.push(SubagentEntry {
                        session: child.clone(),
                        agent: subagent.agent.clone(),
                        model: subagent.model.clone(),
                        tokens: None,
                        extra: crate::yaml::Mapping::new(),
                    });
                }
                self.push_callout(at, Callout::from_subagent(subagent));
            }
            SessionEvent::SubagentDone {
                child,
                summary,
                tokens,
            } => self.subagent_done(child, summary.as_deref(), *tokens),
            SessionEvent::Tasks { tasks } => self.replace_tasks(tasks),
            SessionEvent::Tokens { tokens } => self.add_tokens(at, *tokens),
            SessionEvent::Usage { model, tokens } => self.add_usage(at, model.as_deref(), *tokens),
            SessionEvent::Pause { resume_point } => {
                self.close_last_phase(at);
                self.frontmatter.status = SessionStatus::Paused;
                self.frontmatter.resume_point = resume_point.or_else(|| self.last_phase_id());
            }
            SessionEvent::End { status, summary } => self.end(at, *status, summary.as_deref()),
            SessionEvent::Reopen => {
                self.frontmatter.status = SessionStatus::Active;
                self.frontmatter.ended = None;
            }
        }
    }

    /// A new phase: the last one ends where this one starts.
    fn open_phase(
        &mut self,
        at: &Timestamp,
        name: &str,
        agent: Option<&AgentRef>,
        channel: Option<&str>,
        level: u8,
    ) {
        self.close_last_phase(at);
        if let Some(a) = agent {
            self.add_participant(a);
        }
        let mut phase = Phase::new(name.to_owned(), agent.cloned(), channel.map(str::to_owned));
        phase.level = level.clamp(2, 6);
        if phase.agent.is_none() && phase.channel.is_none() {
            // Without either it would read back as a plain heading.
            phase.channel = self.frontmatter.channel.clone().or(Some("main".into()));
        }
        phase.meta.started = Some(at.clone());
        self.sections.push(Section::Phase(phase));
    }

    /// Calls in a row make one tool-call list.
    fn push_tool_call(&mut self, at: &Timestamp, call: &ToolCall) {
        let blocks = &mut self.current_phase(at).blocks;
        match blocks.last_mut() {
            Some(Block::ToolCalls { calls }) => calls.push(call.clone()),
            _ => blocks.push(Block::ToolCalls {
                calls: vec![call.clone()],
            }),
        }
    }

    /// The phase tokens are credited to: the current one ([`Self::current_phase`]:
    /// the last section when it is a phase, else an implicit `Work` phase
    /// by the first participant, as for any event; so tokens logged before
    /// the first phase, or after a `## Summary` and a reopen, are a phase's
    /// and never only the frontmatter's, which the totals written from the
    /// phases would drop). Figures a file already holds only in its
    /// frontmatter are carried into its first phase first.
    fn phase_for_tokens(&mut self, at: &Timestamp) -> &mut Phase {
        self.current_phase(at);
        self.carry_session_figures();
        match self.sections.last_mut() {
            Some(Section::Phase(p)) => p,
            _ => unreachable!("current_phase made the last section a phase"),
        }
    }

    /// Tokens count for the session and for the phase they were spent in.
    ///
    /// A phase's `tokens=` is its whole count, records included (the
    /// attribution rule counts what its records do not cover as untyped).
    fn add_tokens(&mut self, at: &Timestamp, tokens: u64) {
        let p = self.phase_for_tokens(at);
        let before = p
            .meta
            .tokens
            .unwrap_or(0)
            .max(crate::session::usage::records_total(&p.usage));
        // Sums stop at the most a sum may hold, which a reader still takes.
        let most = crate::MAX_SUM_TOKENS;
        p.meta.tokens = Some(before.saturating_add(tokens).min(most));
        let total = self.frontmatter.tokens_used.unwrap_or(0);
        self.frontmatter.tokens_used = Some(total.saturating_add(tokens).min(most));
        self.refresh_usage_totals();
    }

    /// A request's tokens go to the current phase as a record. The totals
    /// follow.
    fn add_usage(&mut self, at: &Timestamp, model: Option<&str>, tokens: crate::Tokens) {
        let p = self.phase_for_tokens(at);
        // A phase's `tokens=`, where it has one, stays its whole count.
        if let Some(n) = p.meta.tokens {
            let before = n.max(crate::session::usage::records_total(&p.usage));
            p.meta.tokens = Some(
                before
                    .saturating_add(tokens.total())
                    .min(crate::MAX_SUM_TOKENS),
            );
        }
        p.usage.push(crate::UsageRecord {
            at: Some(at.clone()),
            model: model.map(str::to_owned),
            tokens,
            ..crate::UsageRecord::default()
        });
        self.refresh_usage_totals();
    }

    /// The session ends; its summary becomes a section (a subagent's goes
    /// to its parent instead).
    fn end(&mut self, at: &Timestamp, status: SessionStatus, summary: Option<&str>) {
        self.close_last_phase(at);
        self.frontmatter.status = status;
        self.frontmatter.ended = Some(at.clone());
        self.frontmatter.resume_point = None;
        if let (Some(text), None) = (summary, &self.frontmatter.parent) {
            self.sections.push(Section::Plain(crate::PlainSection {
                level: 2,
                title: "Summary".into(),
                blocks: vec![Block::prose(text.trim())],
            }));
        }
    }

    fn push_callout(&mut self, at: &Timestamp, c: Callout) {
        self.current_phase(at).blocks.push(Block::Callout(c));
    }

    fn subagent_done(&mut self, child: &SessionId, summary: Option<&str>, tokens: Option<u64>) {
        if let Some(entry) = self
            .frontmatter
            .subagents
            .iter_mut()
            .find(|s| &s.session == child)
            && tokens.is_some()
        {
            entry.tokens = tokens;
        }
        let Some(summary) = summary else { return };
        let callout = self
            .sections
            .iter_mut()
            .flat_map(|s| match s {
                Section::Phase(p) => p.blocks.iter_mut(),
                Section::Plain(p) => p.blocks.iter_mut(),
            })
            .filter_map(|b| match b {
                Block::Callout(c) if c.kind() == CalloutKind::Subagent => Some(c),
                _ => None,
            })
            .rfind(|c| c.subagent().is_ok_and(|s| s.target.as_ref() == Some(child)));
        if let Some(c) = callout
            && let Ok(mut sub) = c.subagent()
        {
            sub.summary = Some(summary.to_owned());
            *c = Callout::from_subagent(&sub);
        }
    }

    fn replace_tasks(&mut self, tasks: &[Task]) {
        let existing = self
            .preamble
            .iter_mut()
            .chain(self.sections.iter_mut().flat_map(|s| match s {
                Section::Phase(p) => p.blocks.iter_mut(),
                Section::Plain(p) => p.blocks.iter_mut(),
            }))
            .find_map(|b| match b {
                Block::Tasks { tasks } => Some(tasks),
                _ => None,
            });
        match existing {
            Some(t) => *t = tasks.to_vec(),
            None => self.preamble.push(Block::Tasks {
                tasks: tasks.to_vec(),
            }),
        }
    }
}

#[cfg(test)]
mod summary_line_tests {
    use super::{cut, one_line, summary_line};
    use proptest::prelude::*;

    proptest! {
        /// The shortcut gives what the long way gives, on texts far longer
        /// than what it reads (blank lines, CRLF, wide characters).
        #[test]
        fn summary_line_is_cut_of_one_line(
            parts in proptest::collection::vec("([a-zé→ ]{0,40}|\n|\r\n|\n\n\n)", 0..400),
            limit in 1usize..300,
        ) {
            let text: String = parts.concat();
            prop_assert_eq!(summary_line(&text, limit), cut(&one_line(&text), limit));
        }

        /// A reply, with or without the model that gave it, reads back from
        /// its journal line as it was written.
        #[test]
        fn a_reply_round_trips_through_its_journal_line(
            text in "(?s).{0,80}",
            model in proptest::option::of("[a-z0-9.:/-]{1,30}"),
        ) {
            let event = super::SessionEvent::Reply { agent: None, text, model };
            let line = serde_json::to_string(&event).unwrap();
            let back: super::SessionEvent = serde_json::from_str(&line).unwrap();
            prop_assert_eq!(back, event);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::Frontmatter;

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn log() -> SessionLog {
        SessionLog::new(Frontmatter::new(
            SessionId::new("2025-12-21-x").unwrap(),
            at("2025-12-21T10:00:00Z"),
        ))
    }

    fn ev(t: &str, event: SessionEvent) -> TimedEvent {
        TimedEvent { at: at(t), event }
    }

    #[test]
    fn summaries_are_cut_to_one_line_of_100_characters() {
        let SessionEvent::Tool { call } =
            SessionEvent::tool("bash", "echo a\necho b", Some(&"x".repeat(300)), true)
        else {
            unreachable!()
        };
        assert_eq!(call.args, "echo a ⏎ echo b");
        let s = call.summary.unwrap();
        assert_eq!(s.chars().count(), 100);
        assert!(s.ends_with('…'));
        assert!(call.failed);
        assert_eq!(cut("short", 100), "short");
    }

    /// A session whose first participant is `coder@1.0`.
    fn coder_log() -> SessionLog {
        let mut log = log();
        log.frontmatter
            .participants
            .push("coder@1.0".parse().unwrap());
        log
    }

    fn phase(t: &str, name: &str, agent: &str) -> TimedEvent {
        ev(
            t,
            SessionEvent::Phase {
                name: name.into(),
                agent: Some(agent.parse().unwrap()),
                channel: None,
                level: 2,
            },
        )
    }

    fn usage(t: &str, model: &str, input: u64, output: u64) -> TimedEvent {
        ev(
            t,
            SessionEvent::Usage {
                model: Some(model.into()),
                tokens: crate::Tokens {
                    input,
                    output,
                    ..crate::Tokens::default()
                },
            },
        )
    }

    /// The session's total three ways: the frontmatter's, the attributed
    /// lines', and the lines per agent (which must add up).
    fn totals(log: &SessionLog) -> (u64, u64, BTreeMap<String, u64>) {
        let lines = log.usage_lines();
        let mut by_agent = BTreeMap::new();
        for l in &lines {
            *by_agent
                .entry(l.agent.clone().unwrap_or_default())
                .or_insert(0) += l.total();
        }
        let sum = lines.iter().map(crate::UsageLine::total).sum();
        (log.frontmatter.tokens_used.unwrap_or(0), sum, by_agent)
    }

    #[test]
    fn tokens_logged_before_the_first_phase_are_kept_when_a_phase_gets_some() {
        let mut log = coder_log();
        log.apply(&usage("2025-12-21T10:00:01Z", "m", 1000, 200));
        log.apply(&ev(
            "2025-12-21T10:00:02Z",
            SessionEvent::Tokens { tokens: 300 },
        ));
        assert_eq!(totals(&log).1, 1500);
        log.apply(&phase("2025-12-21T10:00:03Z", "Research", "researcher@1.2"));
        log.apply(&usage("2025-12-21T10:00:04Z", "m", 10, 1));
        let (fm, sum, by_agent) = totals(&log);
        assert_eq!((fm, sum), (1511, 1511));
        // An implicit `Work` phase by the first participant took them, as
        // it takes any event logged before a phase.
        assert_eq!(by_agent.get("coder@1.0"), Some(&1500));
        assert_eq!(by_agent.get("researcher@1.2"), Some(&11));
        // Once carried, a second phase takes nothing more from the top.
        log.apply(&phase("2025-12-21T10:00:05Z", "Code", "coder@1.0"));
        log.apply(&ev(
            "2025-12-21T10:00:06Z",
            SessionEvent::Tokens { tokens: 9 },
        ));
        assert_eq!(totals(&log).0, 1520);
        assert_eq!(totals(&log).1, 1520);
    }

    #[test]
    fn tokens_after_a_summary_and_a_reopen_are_a_phases() {
        let mut log = coder_log();
        log.apply(&phase("2025-12-21T10:00:00Z", "Work", "coder@1.0"));
        log.apply(&usage("2025-12-21T10:00:01Z", "m", 100, 50));
        log.apply(&ev(
            "2025-12-21T10:00:02Z",
            SessionEvent::End {
                status: crate::SessionStatus::Completed,
                summary: Some("done".into()),
            },
        ));
        log.apply(&ev("2025-12-21T10:00:03Z", SessionEvent::Reopen));
        log.apply(&ev(
            "2025-12-21T10:00:04Z",
            SessionEvent::Tokens { tokens: 1000 },
        ));
        log.apply(&usage("2025-12-21T10:00:05Z", "m", 7, 0));
        assert_eq!((totals(&log).0, totals(&log).1), (1157, 1157));
        log.apply(&phase("2025-12-21T10:00:06Z", "More", "coder@1.0"));
        log.apply(&usage("2025-12-21T10:00:07Z", "m", 1, 0));
        assert_eq!((totals(&log).0, totals(&log).1), (1158, 1158));
    }

    #[test]
    fn a_sessions_written_cost_goes_with_its_carried_figures() {
        let mut log = coder_log();
        log.frontmatter.tokens_used = Some(5000);
        let mut by = crate::UsageByModel::default();
        by.add(
            Some("m"),
            crate::Tokens {
                input: 2000,
                output: 1000,
                ..crate::Tokens::default()
            },
        );
        by.store(&mut log.frontmatter);
        log.frontmatter.tokens_used = Some(5000);
        log.frontmatter.cost_usd = Some(5.0);
        log.apply(&phase("2025-12-21T10:00:00Z", "Work", "coder@1.0"));
        let before: f64 = log.usage_lines().iter().map(|l| l.recorded_cost_usd).sum();
        assert!((before - 5.0).abs() < 1e-12);
        log.apply(&usage("2025-12-21T10:00:01Z", "m", 10, 0));
        let after: f64 = log.usage_lines().iter().map(|l| l.recorded_cost_usd).sum();
        assert!((after - 5.0).abs() < 1e-12, "{after}");
        assert_eq!(totals(&log).1, 5010);
    }

    #[test]
    fn a_sessions_written_cost_of_untyped_figures_stays_after_a_record() {
        let mut log = coder_log();
        log.frontmatter.tokens_used = Some(5000);
        log.frontmatter.cost_usd = Some(5.0);
        log.apply(&phase("2025-12-21T10:00:00Z", "Work", "coder@1.0"));
        log.apply(&usage("2025-12-21T10:00:01Z", "m", 10, 0));
        let written: f64 = log.usage_lines().iter().map(|l| l.recorded_cost_usd).sum();
        assert!((written - 5.0).abs() < 1e-12, "{written}");
        assert_eq!(totals(&log).1, 5010);
    }

    #[test]
    fn a_count_without_kinds_in_a_phase_with_records_is_counted_once() {
        let mut log = log();
        log.apply(&phase("2025-12-21T10:00:00Z", "Work", "coder@1.0"));
        log.apply(&usage("2025-12-21T10:00:01Z", "m", 100, 50));
        log.apply(&ev(
            "2025-12-21T10:00:02Z",
            SessionEvent::Tokens { tokens: 1000 },
        ));
        assert_eq!(totals(&log).0, 1150);
        assert_eq!(totals(&log).1, 1150);
        // A record after it adds to the phase's whole count.
        log.apply(&usage("2025-12-21T10:00:03Z", "m", 5, 5));
        let p = log.phases().next().unwrap().1;
        assert_eq!(p.meta.tokens, Some(1160));
        assert_eq!((totals(&log).0, totals(&log).1), (1160, 1160));
        let untyped: u64 = log.usage_lines().iter().map(|l| l.untyped).sum();
        assert_eq!(untyped, 1000);
    }

    #[test]
    fn a_phases_count_that_its_records_cover_is_not_added_to_them() {
        // A replay (crucible-eval) writes the run's whole count and its
        // record by kind: one number, not two.
        let mut log = log();
        log.apply(&phase("2025-12-21T10:00:00Z", "Work", "coder@1.0"));
        log.apply(&usage("2025-12-21T10:00:01Z", "m", 100, 50));
        let p = log.phases_mut().next().unwrap();
        p.meta.tokens = Some(150);
        assert_eq!(totals(&log).1, 150);
        p_tokens(&mut log, 120);
        assert_eq!(
            totals(&log).1,
            150,
            "a count below its records adds nothing"
        );
    }

    fn p_tokens(log: &mut SessionLog, n: u64) {
        log.phases_mut().next().unwrap().meta.tokens = Some(n);
    }

    #[test]
    fn events_build_phases_tool_lists_callouts_and_counters() {
        let mut log = log();
        let coder: AgentRef = "coder@1.0".parse().unwrap();
        log.apply(&ev(
            "2025-12-21T10:00:00Z",
            SessionEvent::Phase {
                name: "Build".into(),
                agent: Some(coder.clone()),
                channel: Some("dev".into()),
                level: 2,
            },
        ));
        log.apply(&ev(
            "2025-12-21T10:00:01Z",
            SessionEvent::tool("cargo", "build", Some("ok"), false),
        ));
        log.apply(&ev(
            "2025-12-21T10:00:02Z",
            SessionEvent::tool("cargo", "test", Some("1 failed"), true),
        ));
        log.apply(&ev(
            "2025-12-21T10:00:03Z",
            SessionEvent::Decision {
                text: "Fix the test".into(),
            },
        ));
        log.apply(&ev(
            "2025-12-21T10:00:04Z",
            SessionEvent::tool("cargo", "test", None, false),
        ));
        log.apply(&ev(
            "2025-12-21T10:00:05Z",
            SessionEvent::Tokens { tokens: 120 },
        ));
        log.apply(&ev(
            "2025-12-21T10:01:00Z",
            SessionEvent::Pause { resume_point: None },
        ));
        let (_, p) = log.phases().next().unwrap();
        assert_eq!(p.blocks.len(), 3, "two tool lists around the decision");
        assert_eq!(p.meta.duration_ms, Some(60_000));
        assert_eq!(p.meta.tokens, Some(120));
        assert_eq!(log.frontmatter.participants, [coder]);
        assert_eq!(log.frontmatter.tokens_used, Some(120));
        assert_eq!(log.frontmatter.status, SessionStatus::Paused);
        assert_eq!(log.frontmatter.resume_point, PhaseId::new(1));
        assert_eq!(log.tool_calls().count(), 3);
    }

    #[test]
    fn a_reply_names_the_model_of_its_phase() {
        let mut log = log();
        let reply = |model: Option<&str>| SessionEvent::Reply {
            agent: None,
            text: "done".into(),
            model: model.map(str::to_owned),
        };
        log.apply(&ev("2025-12-21T10:00:00Z", reply(None)));
        assert_eq!(log.phases().next().unwrap().1.meta.model, None);
        log.apply(&ev("2025-12-21T10:00:01Z", reply(Some("gpt-4o-mini"))));
        let (_, p) = log.phases().next().unwrap();
        assert_eq!(p.meta.model.as_deref(), Some("gpt-4o-mini"));
        // The journal line of an older cru, without the field, still reads.
        let old: SessionEvent = serde_json::from_str(r#"{"event":"reply","text":"hi"}"#).unwrap();
        assert_eq!(
            old,
            SessionEvent::Reply {
                agent: None,
                text: "hi".into(),
                model: None
            }
        );
    }

    #[test]
    fn a_tool_call_before_any_phase_opens_one() {
        let mut log = log();
        log.apply(&ev(
            "2025-12-21T10:00:00Z",
            SessionEvent::tool("ls", "", None, false),
        ));
        assert_eq!(log.phase_count(), 1);
        assert_eq!(log.phases().next().unwrap().1.name, "Work");
    }

    #[test]
    fn the_users_words_before_any_phase_are_the_prompt() {
        let mut log = log();
        let user = |quote: &str| SessionEvent::User {
            quote: quote.into(),
            interpretation: None,
        };
        log.apply(&ev(
            "2025-12-21T10:00:00Z",
            user("Fix the `x` bug,\n  exactly"),
        ));
        assert_eq!(log.phase_count(), 0);
        assert_eq!(log.prompt_block(), Some("Fix the `x` bug,\n  exactly"));
        // Only the first: more words before a phase are an intervention.
        log.apply(&ev("2025-12-21T10:00:01Z", user("and hurry")));
        assert_eq!(log.prompt_block(), Some("Fix the `x` bug,\n  exactly"));
        assert_eq!(log.phase_count(), 1);
    }

    #[test]
    fn a_finished_child_writes_back_summary_and_tokens() {
        let mut log = log();
        let child = SessionId::new("2025-12-21-child").unwrap();
        let sub = SubagentRef {
            agent: Some("researcher@1.2".parse().unwrap()),
            model: Some("m".into()),
            mode: crate::SubagentMode::Embed,
            target: Some(child.clone()),
            description: vec!["Look things up.".into()],
            content: Vec::new(),
            summary: None,
        };
        log.apply(&ev(
            "2025-12-21T10:00:00Z",
            SessionEvent::Subagent { subagent: sub },
        ));
        log.apply(&ev(
            "2025-12-21T10:05:00Z",
            SessionEvent::SubagentDone {
                child: child.clone(),
                summary: Some("Found it.".into()),
                tokens: Some(900),
            },
        ));
        assert_eq!(log.frontmatter.subagents[0].tokens, Some(900));
        assert_eq!(
            log.frontmatter.tokens_used, None,
            "a child's tokens are its own"
        );
        let c = log.callouts().next().unwrap().subagent().unwrap();
        assert_eq!(c.summary.as_deref(), Some("Found it."));
        assert_eq!(c.target, Some(child));
    }

    #[test]
    fn tasks_are_replaced_whole() {
        let mut log = log();
        let task = |id: &str| Task {
            id: id.into(),
            content: "c".into(),
            status: crate::TaskStatus::Pending,
            priority: None,
            extra: Default::default(),
        };
        log.apply(&ev(
            "2025-12-21T10:00:00Z",
            SessionEvent::Tasks {
                tasks: vec![task("1")],
            },
        ));
        log.apply(&ev(
            "2025-12-21T10:00:01Z",
            SessionEvent::Tasks {
                tasks: vec![task("1"), task("2")],
            },
        ));
        assert_eq!(log.tasks().unwrap().len(), 2);
        assert_eq!(
            log.blocks()
                .filter(|b| matches!(b, Block::Tasks { .. }))
                .count(),
            1
        );
    }

    #[test]
    fn events_round_trip_through_json() {
        let e = ev(
            "2025-12-21T10:00:00Z",
            SessionEvent::tool("grep", "-n x", Some("3"), false),
        );
        let line = serde_json::to_string(&e).unwrap();
        assert!(line.contains("\"event\":\"tool\""), "{line}");
        assert_eq!(serde_json::from_str::<TimedEvent>(&line).unwrap(), e);
    }
}
