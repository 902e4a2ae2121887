//! Workflow markup (`shared/specs/workflow-markup.md`): read with every
//! problem and its line and column, and written in a canonical form.
//!
//! Rules where the spec leaves a choice (also in `docs/workflow-markup.md`):
//! - A heading of level 2 or deeper is a step when it has an annotation
//!   (`@agent`, `#channel`, `!`, `?`), a data-flow line, a condition, a
//!   `session-toon` block, or a step below it. Any other heading (`## Summary`,
//!   `## Notes`) is a section of prose, kept as written.
//! - A flow line is a line whose every side of its arrows is a list of names
//!   (no spaces in a name); other lines with arrows are prose.
//! - `---` lines inside steps are decoration and are not kept.
//! - Parsing never stops at a bad block: each problem is reported and the
//!   rest of the document is read.

mod document;
mod flow;
mod toon_block;
mod write;

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use crucible_core::workflow::{
    Flow, Port, Section, Step, StepMarker, Workflow, WorkflowGraph, WorkflowProblem,
};

pub use document::{check_document, document_problems};
pub use write::write_workflow;

/// A workflow as read, with the problems of the reading.
#[derive(Debug, Clone)]
pub struct ParsedWorkflow {
    pub workflow: Workflow,
    pub problems: Vec<WorkflowProblem>,
}

/// A workflow as read and linked: the graph, and every problem of both
/// (ordered by line), for `cru workflow validate` and `show`.
#[derive(Debug, Clone)]
pub struct CheckedWorkflow {
    pub workflow: Workflow,
    pub graph: WorkflowGraph,
    pub problems: Vec<WorkflowProblem>,
}

impl CheckedWorkflow {
    pub fn has_errors(&self) -> bool {
        self.problems
            .iter()
            .any(|p| p.severity == crucible_core::workflow::Severity::Error)
    }
}

/// Reads and links a workflow document.
pub fn check_workflow(bytes: &[u8]) -> CheckedWorkflow {
    let ParsedWorkflow {
        workflow,
        mut problems,
    } = parse_workflow(bytes);
    let graph = WorkflowGraph::build(&workflow);
    problems.extend(graph.problems.iter().cloned());
    problems.sort_by_key(|p| (p.line, p.column));
    problems.dedup();
    CheckedWorkflow {
        workflow,
        graph,
        problems,
    }
}

/// True when `name` can stand in a flow line and read back as itself: no
/// white space, commas, backticks or arrows, no `::` (the type separator),
/// not starting with `-`. Writers of generated flow lines check their names
/// with it.
pub fn is_valid_name(name: &str) -> bool {
    !name.contains('→')
        && !name.contains("->")
        && !name.contains("::")
        && flow::port(name).is_some_and(|p| p.name == name && p.ty.is_none())
}

/// True when `line` would be read as a data-flow line or a condition (for
/// writers of prose that must stay prose).
pub fn is_flow_line(line: &str) -> bool {
    !matches!(flow::classify(line, 0), flow::FlowLine::Prose)
}

/// One heading and the lines under it, before it is known to be a step.
struct Candidate<'a> {
    level: u8,
    heading: &'a str,
    line: usize,
    content: Vec<(usize, &'a str)>,
}

/// Reads a workflow document.
pub fn parse_workflow(bytes: &[u8]) -> ParsedWorkflow {
    let mut problems = Vec::new();
    let text = match crate::source::decode(bytes) {
        Ok(t) => t,
        Err((line, kind)) => {
            problems.push(WorkflowProblem::error(line, 1, kind.to_string()));
            return ParsedWorkflow {
                workflow: Workflow::default(),
                problems,
            };
        }
    };
    let mut workflow = Workflow::default();
    let (body, body_line) = match crate::frontmatter::split(&text) {
        Ok(split) => {
            match serde_yaml::from_str::<serde_yaml::Value>(split.yaml) {
                Ok(serde_yaml::Value::Mapping(m)) => {
                    workflow.frontmatter = Some(crate::yaml::mapping_from_serde_yaml(m));
                }
                Ok(serde_yaml::Value::Null) => {
                    workflow.frontmatter = Some(crucible_core::yaml::Mapping::new());
                }
                Ok(_) => problems.push(WorkflowProblem::error(
                    2,
                    1,
                    "the frontmatter is not a mapping of keys to values",
                )),
                Err(e) => {
                    let (line, col) = e.location().map_or((2, 1), |l| (l.line() + 1, l.column()));
                    problems.push(WorkflowProblem::error(
                        line,
                        col,
                        format!("frontmatter: {e}"),
                    ));
                }
            }
            (split.body, split.body_line)
        }
        Err(crate::ParseErrorKind::UnclosedFrontmatter) => {
            problems.push(WorkflowProblem::error(
                1,
                1,
                "the frontmatter has no closing `---` line",
            ));
            ("", 1)
        }
        Err(_) => (text.as_ref(), 1),
    };
    let lines: Vec<(usize, &str)> = body
        .strip_suffix('\n')
        .unwrap_or(body)
        .split('\n')
        .enumerate()
        .map(|(i, l)| (body_line + i, l))
        .collect();

    let (preamble, candidates) = split_headings(&lines);
    read_preamble(&preamble, &mut workflow);
    read_candidates(&candidates, &mut workflow, &mut problems);
    problems.sort_by_key(|p| (p.line, p.column));
    ParsedWorkflow { workflow, problems }
}

/// The ATX heading level of `line`, outside code.
fn heading_level(line: &str) -> Option<u8> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    let rest = &line[hashes..];
    ((1..=6).contains(&hashes) && (rest.is_empty() || rest.starts_with(' ')))
        .then_some(hashes as u8)
}

/// A fence opening: its character and length.
fn fence_open(line: &str) -> Option<(char, usize)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.chars().take_while(|&x| x == c).count();
    (n >= 3 && !(c == '`' && t[n..].contains('`'))).then_some((c, n))
}

fn fence_closes(line: &str, open: (char, usize)) -> bool {
    let t = line.trim();
    t.chars().take_while(|&x| x == open.0).count() >= open.1 && t.chars().all(|x| x == open.0)
}

/// The lines before the first step-level heading, and each heading of
/// level 2 or deeper with the lines under it (fences respected).
fn split_headings<'a>(lines: &[(usize, &'a str)]) -> (Vec<(usize, &'a str)>, Vec<Candidate<'a>>) {
    let mut preamble = Vec::new();
    let mut candidates: Vec<Candidate<'a>> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for &(n, l) in lines {
        if let Some(open) = fence {
            if fence_closes(l, open) {
                fence = None;
            }
        } else if let Some(open) = fence_open(l) {
            fence = Some(open);
        } else if let Some(level) = heading_level(l).filter(|&lv| lv >= 2) {
            candidates.push(Candidate {
                level,
                heading: l[usize::from(level)..].trim(),
                line: n,
                content: Vec::new(),
            });
            continue;
        }
        match candidates.last_mut() {
            Some(c) => c.content.push((n, l)),
            None => preamble.push((n, l)),
        }
    }
    (preamble, candidates)
}

fn read_preamble(lines: &[(usize, &str)], w: &mut Workflow) {
    let mut intro = Vec::new();
    for &(_, l) in lines {
        if w.title.is_none() && heading_level(l) == Some(1) {
            w.title = Some(l[1..].trim().to_owned());
        } else {
            intro.push(l);
        }
    }
    w.intro = trim_blank_lines(&intro);
}

/// Lines joined, without the blank lines at either end.
fn trim_blank_lines(lines: &[&str]) -> String {
    let start = lines.iter().position(|l| !l.trim().is_empty());
    let end = lines.iter().rposition(|l| !l.trim().is_empty());
    match (start, end) {
        (Some(s), Some(e)) => lines[s..=e].join("\n"),
        _ => String::new(),
    }
}

/// A step heading's parts.
#[derive(Debug, PartialEq)]
pub(crate) struct StepHeading {
    pub name: String,
    pub agent: Option<String>,
    pub channel: Option<String>,
    pub marker: StepMarker,
}

impl StepHeading {
    fn annotated(&self) -> bool {
        self.agent.is_some() || self.channel.is_some() || self.marker != StepMarker::None
    }
}

/// `Name @agent #channel !` → its parts. The annotations are the trailing
/// words that start with `@` or `#`, and a last `!` or `?`.
pub(crate) fn parse_step_heading(h: &str) -> StepHeading {
    let mut words: Vec<&str> = h.split_whitespace().collect();
    let mut marker = StepMarker::None;
    match words.last() {
        Some(&"!") => {
            marker = StepMarker::Critical;
            words.pop();
        }
        Some(&"?") => {
            marker = StepMarker::Optional;
            words.pop();
        }
        _ => {}
    }
    let (mut agent, mut channel) = (None, None);
    while let Some(last) = words.last().copied() {
        if words.len() < 2 {
            break;
        }
        if let Some(a) = last
            .strip_prefix('@')
            .filter(|a| !a.is_empty() && agent.is_none())
        {
            agent = Some(a.to_owned());
        } else if let Some(c) = last
            .strip_prefix('#')
            .filter(|c| !c.is_empty() && channel.is_none())
        {
            channel = Some(c.to_owned());
        } else {
            break;
        }
        words.pop();
    }
    StepHeading {
        name: words.join(" "),
        agent,
        channel,
        marker,
    }
}

/// What a candidate's lines hold.
struct Read {
    prose: String,
    flows: Vec<Flow>,
    conditions: Vec<crucible_core::workflow::Condition>,
    executions: Vec<crucible_core::workflow::ExecutionBlock>,
}

fn read_content(content: &[(usize, &str)], problems: &mut Vec<WorkflowProblem>) -> Read {
    let mut r = Read {
        prose: String::new(),
        flows: Vec::new(),
        conditions: Vec::new(),
        executions: Vec::new(),
    };
    let mut prose: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < content.len() {
        let (n, l) = content[i];
        i += 1;
        if let Some(open) = fence_open(l) {
            i = read_fence(content, i - 1, open, &mut r, &mut prose, problems);
            continue;
        }
        if l.trim() == "---" {
            continue;
        }
        match flow::classify(l, n) {
            flow::FlowLine::Flows(f) => r.flows.extend(f),
            flow::FlowLine::Condition(c) => r.conditions.push(c),
            flow::FlowLine::Creates(inputs) => {
                let (outputs, next) = read_creates_list(content, i, problems);
                i = next;
                if outputs.is_empty() {
                    problems.push(WorkflowProblem::error(
                        n,
                        1,
                        "`creates:` needs a bullet list of outputs under it",
                    ));
                } else {
                    r.flows.push(Flow {
                        inputs,
                        outputs,
                        line: n,
                    });
                }
            }
            flow::FlowLine::Prose => prose.push(l),
        }
    }
    r.prose = trim_blank_lines(&prose);
    r
}

/// The fenced block opened at `content[at]`: a `session-toon` block is read
/// into `r`, any other is kept as prose. Returns the index after it.
fn read_fence<'a>(
    content: &[(usize, &'a str)],
    at: usize,
    open: (char, usize),
    r: &mut Read,
    prose: &mut Vec<&'a str>,
    problems: &mut Vec<WorkflowProblem>,
) -> usize {
    let (n, l) = content[at];
    let info = l.trim_start().trim_start_matches(open.0).trim();
    let start = at + 1;
    let mut i = start;
    while i < content.len() && !fence_closes(content[i].1, open) {
        i += 1;
    }
    let closed = i < content.len();
    if info.split_whitespace().next() == Some("session-toon") {
        if !closed {
            problems.push(WorkflowProblem::error(
                n,
                1,
                "the session-toon block is not closed (expected a ``` line)",
            ));
        }
        let inner: Vec<&str> = content[start..i].iter().map(|&(_, t)| t).collect();
        let first = content.get(start).map_or(n + 1, |&(m, _)| m);
        if let Some(block) = toon_block::parse(&inner, first, n, problems) {
            r.executions.push(block);
        }
    } else {
        prose.push(l);
        prose.extend(content[start..i].iter().map(|&(_, t)| t));
        if closed {
            prose.push(content[i].1);
        }
    }
    i + usize::from(closed)
}

/// The bullet list of outputs under a `creates:` line, from `content[from]`:
/// the ports read, and the index after the list.
fn read_creates_list(
    content: &[(usize, &str)],
    from: usize,
    problems: &mut Vec<WorkflowProblem>,
) -> (Vec<Port>, usize) {
    let mut outputs: Vec<Port> = Vec::new();
    let mut i = from;
    while let Some(&(m, item)) = content.get(i) {
        let Some(rest) = item.trim_start().strip_prefix("- ") else {
            break;
        };
        match flow::port(rest) {
            Some(p) => outputs.push(p),
            None => problems.push(WorkflowProblem::error(
                m,
                1,
                format!(
                    "`{}` is not a name (expected `name` or `name::Type`)",
                    rest.trim()
                ),
            )),
        }
        i += 1;
    }
    (outputs, i)
}

fn read_candidates(
    candidates: &[Candidate<'_>],
    w: &mut Workflow,
    problems: &mut Vec<WorkflowProblem>,
) {
    let mut reads: Vec<(Read, StepHeading)> = Vec::new();
    for c in candidates {
        let mut local = Vec::new();
        let read = read_content(&c.content, &mut local);
        problems.extend(local);
        reads.push((read, parse_step_heading(c.heading)));
    }
    let is_step = which_are_steps(candidates, &reads);
    let mut tree = StepTree::default();
    for (i, (c, (read, h))) in candidates.iter().zip(reads).enumerate() {
        if is_step[i] {
            tree.add_step(c, read, h, w, problems);
        } else {
            let lines: Vec<&str> = c.content.iter().map(|&(_, t)| t).collect();
            w.sections.push(Section {
                level: c.level,
                title: c.heading.to_owned(),
                line: c.line,
                text: trim_blank_lines(&lines),
                after_step: w.steps.len().checked_sub(1),
            });
        }
    }
}

/// Which candidates are steps: an annotated heading, one with flows,
/// conditions or executions, or one with a step below it (a group).
fn which_are_steps(candidates: &[Candidate<'_>], reads: &[(Read, StepHeading)]) -> Vec<bool> {
    let n = candidates.len();
    let mut is_step: Vec<bool> = reads
        .iter()
        .map(|(r, h)| {
            h.annotated()
                || !r.flows.is_empty()
                || !r.conditions.is_empty()
                || !r.executions.is_empty()
        })
        .collect();
    // A heading with a step below it is a step (a group), deepest first.
    for i in (0..n).rev() {
        if is_step[i] {
            continue;
        }
        let below = (i + 1..n)
            .take_while(|&j| candidates[j].level > candidates[i].level)
            .any(|j| is_step[j]);
        is_step[i] = below;
    }
    is_step
}

/// The steps read so far, for a new step's parent and its name's duplicates.
#[derive(Default)]
struct StepTree {
    /// The step headings that can still be a parent, shallowest first: the
    /// parent of a step is the nearest earlier step of a lower level, and a
    /// step hides every earlier one at its level or deeper. (A scan back per
    /// step was quadratic in a long flat workflow.)
    open_steps: Vec<(u8, usize)>,
    /// Lowercased names of the steps so far, for the duplicate warning.
    step_by_name: HashMap<String, usize>,
}

impl StepTree {
    /// Adds the step of candidate `c` to `w`, with its parent.
    fn add_step(
        &mut self,
        c: &Candidate<'_>,
        read: Read,
        h: StepHeading,
        w: &mut Workflow,
        problems: &mut Vec<WorkflowProblem>,
    ) {
        let StepHeading {
            name,
            agent,
            channel,
            marker,
        } = h;
        while self
            .open_steps
            .last()
            .is_some_and(|&(level, _)| level >= c.level)
        {
            self.open_steps.pop();
        }
        let parent = self.open_steps.last().map(|&(_, step)| step);
        self.open_steps.push((c.level, w.steps.len()));
        if name.is_empty() {
            problems.push(WorkflowProblem::error(
                c.line,
                1,
                "a step heading needs a name",
            ));
        }
        let earlier = if name.is_empty() {
            None
        } else {
            match self.step_by_name.entry(name.to_ascii_lowercase()) {
                Entry::Occupied(e) => Some(&w.steps[*e.get()]),
                Entry::Vacant(e) => {
                    e.insert(w.steps.len());
                    None
                }
            }
        };
        if let Some(other) = earlier {
            problems.push(WorkflowProblem::warning(
                c.line,
                1,
                format!(
                    "another step is named `{}` (line {})",
                    other.name, other.line
                ),
            ));
        }
        w.steps.push(Step {
            name,
            agent,
            channel,
            marker,
            level: c.level,
            parent,
            line: c.line,
            prose: read.prose,
            flows: read.flows,
            conditions: read.conditions,
            executions: read.executions,
        });
    }
}

#[cfg(test)]
mod tests;
