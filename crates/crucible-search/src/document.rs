//! What is indexed of a session: one part per phase, one for the title and
//! the text before the first phase, and one per plain section (`## Notes`,
//! attributed to no phase), each with its lines in the file.
//!
//! The parser keeps no line numbers in a [`SessionLog`], so each part's
//! lines are found again in the file's text: the heading of each section,
//! in document order, outside fenced blocks. A hit's line is then the line
//! of its part that holds the most query terms (see `search`).

use crucible_core::{AgentRef, Block, SessionLog, session::Section};

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
}

/// A session as the index holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionDoc {
    pub id: String,
    pub status: String,
    pub started_ms: i64,
    pub project: Option<String>,
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

fn add_blocks(part: &mut Part, blocks: &[Block]) {
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
    let mut fence: Option<&str> = None;
    for section in &log.sections {
        let (level, name) = match section {
            Section::Phase(p) => (p.level, p.name.as_str()),
            Section::Plain(s) => (s.level, s.title.as_str()),
        };
        let hashes = "#".repeat(usize::from(level));
        let mut found = None;
        while at < lines.len() {
            let line = lines[at];
            let trimmed = line.trim_start();
            at += 1;
            if let Some(f) = fence {
                if trimmed.starts_with(f) {
                    fence = None;
                }
                continue;
            }
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                fence = Some(&trimmed[..3]);
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
    let mut preamble = outside((1, starts.first().copied().unwrap_or(end)));
    push(&mut preamble.text, fm.title.as_deref().unwrap_or_default());
    add_blocks(&mut preamble, &log.preamble);
    let mut parts = vec![preamble];
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
        add_blocks(&mut part, section.blocks());
        parts.push(part);
    }
    SessionDoc {
        id: fm.session_id.to_string(),
        status: fm.status.as_str().to_owned(),
        started_ms: fm.started.unix_ms(),
        project: fm.project().map(str::to_owned),
        parts,
    }
}
