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

/// Prose and callouts (not user interventions) as lines of text.
fn text_in(blocks: &[Block]) -> Vec<String> {
    blocks
        .iter()
        .filter_map(|b| match b {
            Block::Prose { text } => Some(text.trim().to_owned()),
            Block::Callout(c) if c.kind() != CalloutKind::User => {
                Some(format!("[{}] {}", c.kind, c.text().trim()))
            }
            _ => None,
        })
        .filter(|t| !t.is_empty())
        .collect()
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

/// The session's title and first user intent: the prose before the first
/// phase, else the first user intervention.
fn task_of(log: &SessionLog) -> String {
    let title = log
        .title()
        .map_or_else(|| log.id().to_string(), str::to_owned);
    let first_user = log
        .callouts()
        .find(|c| c.kind() == CalloutKind::User)
        .map(|c| c.user_parts().quote.unwrap_or_else(|| c.text()));
    let intro = log.preamble.iter().find_map(|b| match b {
        Block::Prose { text } if !text.trim().is_empty() => Some(text.clone()),
        _ => None,
    });
    // The session's own opening words first: a `[!user]` callout is more
    // often a correction mid-way than the request that started the work.
    match intro.or(first_user) {
        Some(intent) => format!(
            "{title}: {}",
            crucible_core::cut(&squash(&intent), LINE_LIMIT)
        ),
        None => title,
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

/// Every case of a session, in document order.
pub fn cases_of(log: &SessionLog, filter: CaseFilter) -> Vec<Case> {
    let task = task_of(log);
    let fm = &log.frontmatter;
    let phases: Vec<(String, &Phase)> = log.phases().map(|(id, p)| (id.to_string(), p)).collect();
    // Each phase's history line once, not once per case after it.
    let lines: Vec<String> = phases.iter().map(|(id, p)| phase_line(id, p)).collect();
    let mut out = Vec::new();
    for (pi, (pid, p)) in phases.iter().enumerate() {
        if !callouts_of(&p.blocks)
            .any(|(_, c)| matches!(c.kind(), CalloutKind::Error | CalloutKind::User))
        {
            continue;
        }
        let history = history(&lines[..pi]);
        let meta = |kind: CaseKind, case_id: String, open: bool| CaseMeta {
            case_id,
            kind,
            session_id: log.id().to_string(),
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
        };
        for (k, c) in callouts_of(&p.blocks) {
            let actions = calls_in(&p.blocks[..k]);
            let action_text: Vec<String> = actions
                .iter()
                .map(|a| format!("{} {}", a.tool, a.args))
                .collect();
            match c.kind() {
                CalloutKind::Error if filter.wants(CaseKind::Puzzle) => {
                    let parts = c.error_parts();
                    let (expected, from) = match parts.resolution.clone() {
                        Some(r) => (Some(r), Some("resolution")),
                        None => match callouts_of(&p.blocks[k + 1..])
                            .find(|(_, d)| d.kind() == CalloutKind::Decision)
                        {
                            Some((_, d)) => (Some(d.text().trim().to_owned()), Some("decision")),
                            None => (None, None),
                        },
                    };
                    let id = case_id(
                        CaseKind::Puzzle,
                        &[
                            &task,
                            &parts.description,
                            &action_text.join("\n"),
                            expected.as_deref().unwrap_or(""),
                        ],
                    );
                    out.push(Case {
                        meta: meta(CaseKind::Puzzle, id, expected.is_none()),
                        task: task.clone(),
                        system_prompt: log.system_prompt().map(str::to_owned),
                        history: history.clone(),
                        actions,
                        body: CaseBody::Puzzle {
                            failure: parts.description,
                            expected,
                            expected_from: from.map(str::to_owned),
                        },
                    });
                }
                CalloutKind::User if filter.wants(CaseKind::Correction) => {
                    let parts = c.user_parts();
                    let words = parts.quote.unwrap_or_else(|| c.text().trim().to_owned());
                    // What follows, up to the next intervention.
                    let rest = &p.blocks[k + 1..];
                    let until = rest
                        .iter()
                        .position(
                            |b| matches!(b, Block::Callout(u) if u.kind() == CalloutKind::User),
                        )
                        .unwrap_or(rest.len());
                    let after = &rest[..until];
                    let id = case_id(
                        CaseKind::Correction,
                        &[
                            &task,
                            &words,
                            &action_text.join("\n"),
                            parts.interpretation.as_deref().unwrap_or(""),
                        ],
                    );
                    out.push(Case {
                        meta: meta(CaseKind::Correction, id, false),
                        task: task.clone(),
                        system_prompt: log.system_prompt().map(str::to_owned),
                        history: history.clone(),
                        actions,
                        body: CaseBody::Correction {
                            user_words: words,
                            interpretation: parts.interpretation,
                            before_text: text_in(&p.blocks[..k]),
                            after_calls: calls_in(after),
                            after_text: text_in(after),
                        },
                    });
                }
                _ => {}
            }
        }
    }
    out
}
