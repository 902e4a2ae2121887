//! What is indexed of a session: one part per phase, one for the title and
//! the text before the first phase, and one per plain section (`## Notes`,
//! attributed to no phase), each with its lines in the file.
//!
//! The parser keeps no line numbers in a [`SessionLog`], so each part's
//! lines are found again in the file's text: the heading of each section,
//! in document order, outside fenced blocks. A hit's line is then the line
//! of its part that holds the most query terms (see `search`).
//!
//! A `[!subagent]` callout is a part of its own, in the phase it is in,
//! named by its subagent: a hit in it is the subagent's work (inline) or
//! the parent's account of it (link, embed), not the phase's own text. A
//! session that is a subagent's (its `parent:`, or named by a parent's
//! `[!subagent]` link or `subagents:` entry) is attributed when searched.

use crucible_core::{AgentRef, Block, CalloutKind, SessionLog, session::Section};

/// One indexed part of a session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Part {
    /// `phase-N` counting from 1; 0 for the text outside phases.
    pub phase: u64,
    /// The first line of the part (1-based), and the line after its last.
    pub lines: (u64, u64),
    /// Agents as `name` and `name@version`, lower-cased.
    pub agents: Vec<String>,
    pub channel: Option<String>,
    pub model: Option<String>,
    /// Headings, prose, tasks, other callouts.
    pub text: String,
    /// Tool calls: name, arguments, result summary.
    pub tool: String,
    pub decision: String,
    pub error: String,
    /// User interventions and the prompt.
    pub user: String,
    /// The subagent whose `[!subagent]` callout this part is.
    pub subagent: Option<String>,
}

/// A session as the index holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionDoc {
    pub id: String,
    pub status: String,
    pub started_ms: i64,
    pub project: Option<String>,
    /// The session this one is a subagent of (`parent:`).
    pub parent: Option<String>,
    /// The name this session goes by as a subagent: its first participant,
    /// else its first phase's agent, else its id.
    pub agent_name: String,
    /// The sessions this one names as its subagents (`subagents:` entries,
    /// `[!subagent]` link and embed targets).
    pub children: Vec<String>,
    pub parts: Vec<Part>,
}

fn agent_names(agent: &AgentRef) -> Vec<String> {
    let mut v = vec![agent.name.to_lowercase()];
    if agent.version.is_some() {
        v.push(agent.to_string().to_lowercase());
    }
    v
}

fn push(field: &mut String, text: &str) {
    if !text.is_empty() {
        if !field.is_empty() {
            field.push('\n');
        }
        field.push_str(text);
    }
}

/// The name a `[!subagent]` callout gives its subagent: its agent, else
/// its target session, else `subagent`.
fn subagent_name(c: &crucible_core::Callout) -> String {
    match c.subagent() {
        Ok(sub) => sub
            .agent
            .map(|a| a.name)
            .or_else(|| sub.target.map(|t| t.to_string()))
            .unwrap_or_else(|| "subagent".into()),
        Err(_) => "subagent".into(),
    }
}

/// Adds `blocks` to `part`; each `[!subagent]` callout among them becomes
/// a part of its own, returned in order (its lines are set by the caller).
fn add_blocks(part: &mut Part, blocks: &[Block]) -> Vec<Part> {
    let mut subagents = Vec::new();
    for block in blocks {
        match block {
            Block::Heading { text, .. } | Block::Prose { text } | Block::SystemPrompt { text } => {
                push(&mut part.text, text);
            }
            Block::Prompt { text } => push(&mut part.user, text),
            Block::Rule => {}
            Block::ToolCalls { calls } => {
                for c in calls {
                    push(&mut part.tool, &c.tool);
                    push(&mut part.tool, &c.args);
                    push(&mut part.tool, c.summary.as_deref().unwrap_or_default());
                }
            }
            Block::Tasks { tasks } => {
                for t in tasks {
                    push(&mut part.text, &t.content);
                }
            }
            Block::Callout(c) if c.kind() == CalloutKind::Subagent => {
                let sub = c.subagent().ok();
                let mut p = Part {
                    phase: part.phase,
                    lines: part.lines,
                    agents: sub
                        .as_ref()
                        .and_then(|s| s.agent.as_ref())
                        .map_or_else(|| part.agents.clone(), agent_names),
                    channel: part.channel.clone(),
                    model: sub.and_then(|s| s.model).or_else(|| part.model.clone()),
                    subagent: Some(subagent_name(c)),
                    ..Part::default()
                };
                push(&mut p.text, &c.title);
                push(&mut p.text, &c.text());
                subagents.push(p);
            }
            Block::Callout(c) => {
                let field = match c.kind.to_ascii_lowercase().as_str() {
                    "decision" => &mut part.decision,
                    "error" => &mut part.error,
                    "user" => &mut part.user,
                    _ => &mut part.text,
                };
                push(field, &c.title);
                push(field, &c.text());
            }
        }
    }
    subagents
}

/// Fenced code blocks, followed line by line: what is inside one is no
/// heading and no callout.
#[derive(Debug, Default)]
struct Fences<'a> {
    /// The fence that opened the block we are in (its first three chars).
    open: Option<&'a str>,
}

impl<'a> Fences<'a> {
    /// Whether `line` opens, closes or is inside a fenced block.
    fn hides(&mut self, line: &'a str) -> bool {
        let trimmed = line.trim_start();
        if let Some(f) = self.open {
            if trimmed.starts_with(f) {
                self.open = None;
            }
            return true;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            self.open = Some(&trimmed[..3]);
            return true;
        }
        false
    }
}

/// The line ranges (first, after last; from 1) of the `[!subagent]`
/// callouts in `lines` of `range`, in order, outside fenced blocks.
pub(crate) fn subagent_callouts(lines: &[&str], range: (u64, u64)) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut fences = Fences::default();
    let mut n = range.0.max(1);
    while n < range.1 {
        let Some(&line) = lines.get(n as usize - 1) else {
            break;
        };
        n += 1;
        if fences.hides(line) {
            continue;
        }
        let opens = line
            .trim_start()
            .strip_prefix('>')
            .map(str::trim_start)
            // `get`: the line may start with any text (a CJK prompt), and
            // eleven bytes need not end on a char.
            .and_then(|r| r.get(..11))
            .is_some_and(|head| head.eq_ignore_ascii_case("[!subagent]"));
        if opens {
            let from = n - 1;
            while n < range.1
                && lines
                    .get(n as usize - 1)
                    .is_some_and(|l| l.trim_start().starts_with('>'))
            {
                n += 1;
            }
            out.push((from, n));
        }
    }
    out
}

/// Gives each subagent part of a part at `range` the lines of its callout
/// (the part's own lines when the callouts cannot be told apart).
fn place_subagents(mut subs: Vec<Part>, lines: &[&str], range: (u64, u64)) -> Vec<Part> {
    let found = subagent_callouts(lines, range);
    if found.len() == subs.len() {
        for (p, r) in subs.iter_mut().zip(found) {
            p.lines = r;
        }
    }
    subs
}

/// The first line of each section's heading, in order; lines count from 1.
fn section_lines(text: &str, log: &SessionLog) -> Vec<u64> {
    let lines: Vec<&str> = text.lines().collect();
    let mut body = 0;
    if lines.first().is_some_and(|l| l.trim_end() == "---") {
        body = lines
            .iter()
            .skip(1)
            .position(|l| l.trim_end() == "---")
            .map_or(1, |i| i + 2);
    }
    let mut starts = Vec::with_capacity(log.sections.len());
    let mut at = body;
    let mut fences = Fences::default();
    for section in &log.sections {
        let (level, name) = match section {
            Section::Phase(p) => (p.level, p.name.as_str()),
            Section::Plain(s) => (s.level, s.title.as_str()),
        };
        let hashes = "#".repeat(usize::from(level));
        let mut found = None;
        while at < lines.len() {
            let line = lines[at];
            at += 1;
            if fences.hides(line) {
                continue;
            }
            if let Some(rest) = line.strip_prefix(&hashes)
                && let Some(rest) = rest.strip_prefix(' ')
                && rest.trim_start().starts_with(name.trim())
            {
                found = Some(at as u64);
                break;
            }
        }
        let previous = starts.last().copied().unwrap_or(body as u64 + 1);
        starts.push(found.unwrap_or(previous));
    }
    starts
}

/// The parts of `log`, whose file's text is `text`.
pub fn session_doc(log: &SessionLog, text: &str) -> SessionDoc {
    let fm = &log.frontmatter;
    let end = text.lines().count() as u64 + 1;
    let starts = section_lines(text, log);
    let session_agents: Vec<String> = fm.participants.iter().flat_map(agent_names).collect();
    let outside = |lines| Part {
        phase: 0,
        lines,
        agents: session_agents.clone(),
        channel: fm.channel.clone(),
        model: fm.model.clone(),
        ..Part::default()
    };
    // From line 1: the title a hit may match is in the frontmatter.
    let all_lines: Vec<&str> = text.lines().collect();
    let mut preamble = outside((1, starts.first().copied().unwrap_or(end)));
    push(&mut preamble.text, fm.title.as_deref().unwrap_or_default());
    // The id too, as `rg` over the file would find it: a person pastes one.
    push(&mut preamble.text, fm.session_id.as_str());
    let subs = add_blocks(&mut preamble, &log.preamble);
    let subs = place_subagents(subs, &all_lines, preamble.lines);
    let mut parts = vec![preamble];
    parts.extend(subs);
    let mut phase = 0;
    for (i, section) in log.sections.iter().enumerate() {
        let lines = (starts[i], starts.get(i + 1).copied().unwrap_or(end));
        let mut part = match section {
            Section::Phase(p) => {
                phase += 1;
                let mut part = Part {
                    phase,
                    lines,
                    agents: p.agent.as_ref().map(agent_names).unwrap_or_default(),
                    channel: p.channel.clone().or_else(|| fm.channel.clone()),
                    model: p.meta.model.clone().or_else(|| fm.model.clone()),
                    ..Part::default()
                };
                push(&mut part.text, &p.name);
                part
            }
            Section::Plain(s) => {
                let mut part = outside(lines);
                push(&mut part.text, &s.title);
                part
            }
        };
        let subs = add_blocks(&mut part, section.blocks());
        let subs = place_subagents(subs, &all_lines, part.lines);
        parts.push(part);
        parts.extend(subs);
    }
    SessionDoc {
        id: fm.session_id.to_string(),
        status: fm.status.as_str().to_owned(),
        started_ms: fm.started.unix_ms(),
        project: fm.project().map(str::to_owned),
        parent: fm.parent.as_ref().map(ToString::to_string),
        agent_name: agent_name(log),
        children: children(log),
        parts,
    }
}

fn agent_name(log: &SessionLog) -> String {
    log.frontmatter
        .participants
        .first()
        .or_else(|| log.phases().find_map(|(_, p)| p.agent.as_ref()))
        .map_or_else(|| log.id().to_string(), |a| a.name.clone())
}

fn children(log: &SessionLog) -> Vec<String> {
    let mut out: Vec<String> = log
        .frontmatter
        .subagents
        .iter()
        .map(|s| s.session.to_string())
        .collect();
    let callouts = log
        .preamble
        .iter()
        .chain(log.sections.iter().flat_map(|s| s.blocks().iter()));
    for block in callouts {
        if let Block::Callout(c) = block
            && c.kind() == CalloutKind::Subagent
            && let Ok(sub) = c.subagent()
            && let Some(t) = sub.target
        {
            out.push(t.to_string());
        }
    }
    out.sort();
    out.dedup();
    out
}
