//! Cases from a session (the rules are in `docs/learn-format.md`).

use crucible_core::{Block, Callout, CalloutKind, Phase, SessionLog, ToolCall};

use crate::case::{Case, CaseBody, CaseKind, CaseMeta, case_id};

/// How much of a long text a case keeps in its task and history lines.
const LINE_LIMIT: usize = 300;

/// Which cases to take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CaseFilter {
    #[default]
    All,
    Puzzles,
    Corrections,
}

impl CaseFilter {
    fn wants(self, kind: CaseKind) -> bool {
        matches!(
            (self, kind),
            (Self::All, _)
                | (Self::Puzzles, CaseKind::Puzzle)
                | (Self::Corrections, CaseKind::Correction)
        )
    }
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn callouts_of(blocks: &[Block]) -> impl Iterator<Item = (usize, &Callout)> {
    blocks.iter().enumerate().filter_map(|(i, b)| match b {
        Block::Callout(c) => Some((i, c)),
        _ => None,
    })
}

fn calls_in(blocks: &[Block]) -> Vec<ToolCall> {
    blocks
        .iter()
        .filter_map(|b| match b {
            Block::ToolCalls { calls } => Some(calls.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

/// Prose and callouts (not user interventions) as lines of text; the
/// agent's replies as they are, other callouts tagged with their kind.
fn text_in<'a>(blocks: impl IntoIterator<Item = &'a Block>) -> Vec<String> {
    blocks
        .into_iter()
        .filter_map(|b| match b {
            Block::Prose { text } => Some(text.trim().to_owned()),
            Block::Callout(c) if c.kind() == CalloutKind::Other("reply".into()) => {
                Some(c.text().trim().to_owned())
            }
            Block::Callout(c) if c.kind() != CalloutKind::User => {
                Some(format!("[{}] {}", c.kind, c.text().trim()))
            }
            _ => None,
        })
        .filter(|t| !t.is_empty())
        .collect()
}

/// What the agent did after a correction, without its errors: the chosen
/// side teaches the behaviour asked for, and each error is a puzzle of its
/// own.
fn text_after(blocks: &[Block]) -> Vec<String> {
    text_in(
        blocks
            .iter()
            .filter(|b| !matches!(b, Block::Callout(c) if c.kind() == CalloutKind::Error)),
    )
}

/// `phase-2 Find the race @orchestrator@1.0: 3 tool calls (1 failed); decision: ...`.
fn phase_line(id: &str, p: &Phase) -> String {
    let mut s = format!("{id} {}", p.name);
    if let Some(a) = &p.agent {
        s.push_str(&format!(" @{a}"));
    }
    let (mut count, mut failed) = (0, 0);
    for b in &p.blocks {
        if let Block::ToolCalls { calls } = b {
            count += calls.len();
            failed += calls.iter().filter(|c| c.failed).count();
        }
    }
    let mut facts = Vec::new();
    if count > 0 {
        let mut f = format!("{count} tool call(s)");
        if failed > 0 {
            f.push_str(&format!(" ({failed} failed)"));
        }
        facts.push(f);
    }
    for (_, c) in callouts_of(&p.blocks) {
        let label = match c.kind() {
            CalloutKind::Decision => "decision",
            CalloutKind::Error => "error",
            CalloutKind::Subagent => "subagent",
            _ => continue,
        };
        let text = match c.kind() {
            CalloutKind::Subagent => c
                .subagent()
                .ok()
                .and_then(|s| s.summary)
                .unwrap_or_default(),
            CalloutKind::Error => c.error_parts().description,
            _ => c.text(),
        };
        facts.push(format!("{label}: {}", squash(&text)));
    }
    if !facts.is_empty() {
        s.push_str(": ");
        s.push_str(&facts.join("; "));
    }
    crucible_core::cut(&s, LINE_LIMIT)
}

/// How many earlier phases a case describes, one line each.
const HISTORY_PHASES: usize = 8;

/// The lines for the phases before a case, from each phase's line: the
/// most recent ones, and how many came before them (a long session would
/// otherwise repeat its whole past in every case).
fn history(before: &[String]) -> Vec<String> {
    let skip = before.len().saturating_sub(HISTORY_PHASES);
    let mut out = Vec::with_capacity(before.len() - skip + 1);
    if skip > 0 {
        out.push(format!("({skip} earlier phases)"));
    }
    out.extend(before[skip..].iter().cloned());
    out
}

/// How much of the prompt a case keeps in its task.
const PROMPT_LIMIT: usize = 2000;

/// The session's title and the prompt it started from
/// ([`SessionLog::prompt`]), else the prose before the first phase. A
/// `[!user]` callout later on is an intervention, never the task.
fn task_of(log: &SessionLog) -> String {
    let title = log
        .title()
        .map_or_else(|| log.id().to_string(), str::to_owned);
    let intro = || {
        log.preamble.iter().find_map(|b| match b {
            Block::Prose { text } if !text.trim().is_empty() => Some(text.clone()),
            _ => None,
        })
    };
    let Some(intent) = log.prompt().or_else(intro) else {
        return title;
    };
    let intent = crucible_core::cut(&squash(&intent), PROMPT_LIMIT);
    // Importers title a session with the start of its prompt: say it once.
    let stem = title.trim_end_matches('…').trim();
    if !stem.is_empty() && intent.starts_with(stem) {
        intent
    } else {
        format!("{title}: {intent}")
    }
}

/// True when a session file's bytes hold `[!error` or `[!user` in any
/// case: a file without either gives no case, and a reader of many files
/// can skip parsing it.
pub fn may_have_cases(bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, b"[!").any(|i| {
        let rest = &bytes[i + 2..];
        let starts =
            |word: &[u8]| rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word);
        starts(b"error") || starts(b"user")
    })
}

/// What every case of a session shares.
struct Session<'a> {
    log: &'a SessionLog,
    task: String,
    phases: Vec<(String, &'a Phase)>,
    /// Each phase's history line, once, not once per case after it.
    lines: Vec<String>,
}

impl Session<'_> {
    fn meta(&self, pi: usize, kind: CaseKind, case_id: String, open: bool) -> CaseMeta {
        let fm = &self.log.frontmatter;
        let (pid, p) = &self.phases[pi];
        CaseMeta {
            case_id,
            kind,
            session_id: self.log.id().to_string(),
            phase_id: pid.clone(),
            phase: p.name.clone(),
            agent: p
                .agent
                .as_ref()
                .or_else(|| fm.participants.first())
                .map(ToString::to_string),
            channel: p.channel.clone().or_else(|| fm.channel.clone()),
            model: p.meta.model.clone().or_else(|| fm.model.clone()),
            session_status: fm.status.to_string(),
            started: fm.started.to_string(),
            open,
        }
    }

    fn system_prompt(&self) -> Option<String> {
        self.log.system_prompt().map(str::to_owned)
    }

    /// The puzzle of the `[!error]` at block `k` of phase `pi`.
    fn puzzle(&self, pi: usize, k: usize, c: &Callout) -> Case {
        let blocks = &self.phases[pi].1.blocks;
        let actions = calls_in(&blocks[..k]);
        let parts = c.error_parts();
        let (expected, from) = match parts.resolution.clone() {
            Some(r) => (Some(r), Some("resolution")),
            None => match callouts_of(&blocks[k + 1..])
                .find(|(_, d)| d.kind() == CalloutKind::Decision)
            {
                Some((_, d)) => (Some(d.text().trim().to_owned()), Some("decision")),
                None => (None, None),
            },
        };
        let id = case_id(
            CaseKind::Puzzle,
            &[
                &self.task,
                &parts.description,
                &action_lines(&actions),
                expected.as_deref().unwrap_or(""),
            ],
        );
        Case {
            meta: self.meta(pi, CaseKind::Puzzle, id, expected.is_none()),
            task: self.task.clone(),
            system_prompt: self.system_prompt(),
            history: history(&self.lines[..pi]),
            actions,
            body: CaseBody::Puzzle {
                failure: parts.description,
                expected,
                expected_from: from.map(str::to_owned),
            },
        }
    }

    /// The correction of the `[!user]` at block `k` of phase `pi`, when it
    /// is one (see [`corrected_work`]).
    fn correction(&self, pi: usize, k: usize, c: &Callout) -> Option<Case> {
        let words = crucible_core::user_words(c);
        if is_continuation(&words) {
            return None;
        }
        let (wi, work) = self.corrected_work(pi, k)?;
        let blocks = &self.phases[pi].1.blocks;
        // What follows, up to the next intervention.
        let rest = &blocks[k + 1..];
        let until = rest.iter().position(is_user).unwrap_or(rest.len());
        let after = &rest[..until];
        let actions = calls_in(work);
        let interpretation = c.user_parts().interpretation;
        let id = case_id(
            CaseKind::Correction,
            &[
                &self.task,
                &words,
                &action_lines(&actions),
                interpretation.as_deref().unwrap_or(""),
            ],
        );
        Some(Case {
            meta: self.meta(wi, CaseKind::Correction, id, false),
            task: self.task.clone(),
            system_prompt: self.system_prompt(),
            history: history(&self.lines[..wi]),
            actions,
            body: CaseBody::Correction {
                user_words: words,
                interpretation,
                before_text: text_in(work),
                after_calls: calls_in(after),
                after_text: text_after(after),
            },
        })
    }

    /// The agent's work a `[!user]` callout (block `k` of phase `pi`)
    /// corrects, and the phase it is in: what the agent did in this phase
    /// since the user last spoke; when the user's words open the phase
    /// (importers start a phase at every user turn), what it did in the
    /// phase before. `None`: no agent work came before (the prompt, or a
    /// second message in a row), so there is nothing to correct.
    fn corrected_work(&self, pi: usize, k: usize) -> Option<(usize, &[Block])> {
        let blocks = &self.phases[pi].1.blocks[..k];
        let since = blocks.iter().rposition(is_user).map_or(0, |u| u + 1);
        if blocks[since..].iter().any(is_agent_work) {
            return Some((pi, &blocks[since..]));
        }
        if blocks.iter().any(is_agent_work) || pi == 0 {
            return None;
        }
        let prev = &self.phases[pi - 1].1.blocks;
        let since = prev.iter().rposition(is_user).map_or(0, |u| u + 1);
        prev[since..]
            .iter()
            .any(is_agent_work)
            .then(|| (pi - 1, &prev[since..]))
    }
}

fn is_user(b: &Block) -> bool {
    matches!(b, Block::Callout(c) if c.kind() == CalloutKind::User)
}

/// What the agent did or said: tool calls, prose, replies, decisions,
/// errors, subagents (not the user's words, nor notes such as `[!expect]`).
fn is_agent_work(b: &Block) -> bool {
    match b {
        Block::ToolCalls { calls } => !calls.is_empty(),
        Block::Prose { text } => !text.trim().is_empty(),
        Block::Callout(c) => match c.kind() {
            CalloutKind::Decision | CalloutKind::Error | CalloutKind::Subagent => true,
            CalloutKind::Other(kind) => kind == "reply",
            CalloutKind::User => false,
        },
        _ => false,
    }
}

/// The words of messages that let the agent go on rather than redirect it
/// ("thanks", "ok, go on", "looks good, continue"): made of these alone, a
/// message teaches nothing about what the agent did wrong.
const CONTINUATION_WORDS: &[&str] = &[
    "ahead", "alright", "awesome", "carry", "continue", "cool", "do", "fine", "go", "going",
    "good", "great", "it", "k", "keep", "lgtm", "looks", "next", "nice", "ok", "okay", "on",
    "perfect", "please", "pls", "proceed", "sounds", "sure", "thank", "thanks", "thx", "ty", "y",
    "yeah", "yep", "yes", "you",
];

/// A plain continuation ("thanks", "go on", "ok, continue!"), an empty
/// message, or a lone slash command such as `/clear`.
pub(crate) fn is_continuation(words: &str) -> bool {
    if crucible_core::is_bare_command(words) {
        return true;
    }
    let folded: String = words
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    folded
        .split_whitespace()
        .all(|w| CONTINUATION_WORDS.contains(&w))
}

fn action_lines(actions: &[ToolCall]) -> String {
    actions
        .iter()
        .map(|a| format!("{} {}", a.tool, a.args))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every case of a session, in document order.
pub fn cases_of(log: &SessionLog, filter: CaseFilter) -> Vec<Case> {
    let phases: Vec<(String, &Phase)> = log.phases().map(|(id, p)| (id.to_string(), p)).collect();
    let lines = phases.iter().map(|(id, p)| phase_line(id, p)).collect();
    let s = Session {
        log,
        task: task_of(log),
        phases,
        lines,
    };
    let mut out = Vec::new();
    for (pi, (_, p)) in s.phases.iter().enumerate() {
        for (k, c) in callouts_of(&p.blocks) {
            match c.kind() {
                CalloutKind::Error if filter.wants(CaseKind::Puzzle) => {
                    out.push(s.puzzle(pi, k, c));
                }
                CalloutKind::User if filter.wants(CaseKind::Correction) => {
                    out.extend(s.correction(pi, k, c));
                }
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::is_continuation;

    #[test]
    fn continuations_are_not_corrections() {
        for w in [
            "thanks!",
            "Go on.",
            "ok, continue",
            "/clear",
            "  ",
            "LGTM 👍",
            "thanks, go on",
        ] {
            assert!(is_continuation(w), "{w}");
        }
        for w in [
            "no, use the lock",
            "continue, but without the retry loop",
            "/init now",
        ] {
            assert!(!is_continuation(w), "{w}");
        }
    }
}
