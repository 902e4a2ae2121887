//! Sessions → a workflow (the rules are in `docs/codify.md`).

use std::collections::{HashMap, HashSet};

use crucible_core::workflow::{
    EXECUTION_FIELDS, ExecutionBlock, ExecutionRow, Flow, Port, Step, StepMarker, Workflow,
    WorkflowGraph, loose_name, phase_key,
};
use crucible_core::{Block, CalloutKind, Phase, SessionLog, SessionStatus};

use crate::dataflow::{Access, accesses, tool_kind};

/// Why nothing could be codified.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodifyError {
    #[error("no session to codify")]
    NoSessions,
    #[error("session {0} has no phases: there is nothing to make steps of")]
    NoPhases(String),
}

/// The custom field codify adds to the standard execution fields.
const SESSION_FIELD: &str = "session";

/// One workflow from `sessions` (oldest first as given): the first gives
/// the steps; each later one adds its run to the step of the same name, and
/// its other steps where they fall in its order.
pub fn codify(sessions: &[&SessionLog]) -> Result<Workflow, CodifyError> {
    let (first, rest) = sessions.split_first().ok_or(CodifyError::NoSessions)?;
    let mut w = single(first)?;
    for s in rest {
        let other = single(s)?;
        merge(&mut w, other);
    }
    let ids: Vec<serde_yaml::Value> = sessions
        .iter()
        .map(|s| serde_yaml::Value::String(s.id().to_string()))
        .collect();
    let mut fm = serde_yaml::Mapping::new();
    fm.insert("type".into(), "workflow".into());
    if let Some(t) = &w.title {
        fm.insert("title".into(), t.clone().into());
    }
    fm.insert("source_sessions".into(), serde_yaml::Value::Sequence(ids));
    w.frontmatter = Some(fm);
    w.intro = intro(sessions);
    Ok(w)
}

fn intro(sessions: &[&SessionLog]) -> String {
    let list: Vec<String> = sessions
        .iter()
        .map(|s| {
            format!(
                "`{}` ({}, {})",
                s.id(),
                s.frontmatter.status,
                s.frontmatter.started
            )
        })
        .collect();
    format!(
        "Codified by cru from {} {}: {}. Each step is a phase of the session; its \
         decisions and pitfalls are the notes under it, its data flow comes from the \
         files the phase read and wrote, and each run is a row of its execution history.",
        list.len(),
        if list.len() == 1 {
            "session"
        } else {
            "sessions"
        },
        list.join(", ")
    )
}

/// Names of the versions of each path: the file as it was before the
/// session is the bare path; each write makes a new version.
#[derive(Default)]
struct Versions {
    /// Names of the versions written so far, oldest first.
    written: HashMap<String, Vec<String>>,
    /// Paths read before any write (their original is an input).
    read_original: HashSet<String>,
}

impl Versions {
    fn current(&mut self, path: &str) -> String {
        match self.written.get(path).and_then(|v| v.last()) {
            Some(name) => name.clone(),
            None => {
                self.read_original.insert(path.to_owned());
                path.to_owned()
            }
        }
    }

    fn write(&mut self, path: &str) -> String {
        let original_read = self.read_original.contains(path);
        let versions = self.written.entry(path.to_owned()).or_default();
        let n = versions.len() + 1;
        let name = if n == 1 && !original_read {
            path.to_owned()
        } else {
            format!("{path}@v{}", n + usize::from(original_read))
        };
        versions.push(name.clone());
        name
    }
}

/// The type a path's extension suggests.
fn path_type(path: &str) -> Option<String> {
    if path.ends_with('/') {
        return Some("Dir".into());
    }
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    let t = match ext.as_str() {
        "rs" => "Rust",
        "py" => "Python",
        "ts" => "TypeScript",
        "tsx" | "jsx" => "React",
        "js" | "mjs" | "cjs" => "JavaScript",
        "go" => "Go",
        "java" => "Java",
        "c" | "h" => "C",
        "cc" | "cpp" | "hpp" => "Cpp",
        "rb" => "Ruby",
        "md" => "Markdown",
        "json" => "JSON",
        "toml" => "TOML",
        "yaml" | "yml" => "YAML",
        "sql" => "SQL",
        "sh" => "Shell",
        "html" => "HTML",
        "css" => "CSS",
        "csv" => "CSV",
        "txt" => "Text",
        "log" => "Log",
        "xml" => "XML",
        _ => return None,
    };
    Some(t.to_owned())
}

fn port(name: String, path: &str) -> Port {
    Port::new(name, path_type(path))
}

/// `text` as one line that no reader takes for markup: a bullet's text,
/// its lines joined with spaces.
fn bullet(label: &str, text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    format!("- {label}: {}", crucible_core::cut(&words.join(" "), 300))
}

/// One session's workflow.
fn single(log: &SessionLog) -> Result<Workflow, CodifyError> {
    let phases: Vec<&Phase> = log.phases().map(|(_, p)| p).collect();
    if phases.is_empty() {
        return Err(CodifyError::NoPhases(log.id().to_string()));
    }
    let fm = &log.frontmatter;
    let blocked = match fm.status {
        SessionStatus::Paused => fm.resume_point.map(|p| p.index()),
        SessionStatus::Failed => Some(phases.len() - 1),
        _ => None,
    };
    let mut versions = Versions::default();
    let mut w = Workflow {
        title: log.title().map(str::to_owned),
        ..Workflow::default()
    };
    let mut parents: Vec<(u8, usize)> = Vec::new();
    for (i, p) in phases.iter().enumerate() {
        let (inputs, outputs) = flow_of(p, &mut versions);
        let unresolved_error = callouts(p)
            .filter(|c| c.kind() == CalloutKind::Error)
            .any(|c| c.error_parts().resolution.is_none());
        let critical = unresolved_error || blocked == Some(i);
        let status = if fm.status == SessionStatus::Paused && blocked.is_some_and(|b| i > b) {
            "skipped"
        } else if fm.status == SessionStatus::Paused && blocked == Some(i) {
            "timeout"
        } else if unresolved_error || (fm.status == SessionStatus::Failed && blocked == Some(i)) {
            "failed"
        } else {
            "success"
        };
        let name = step_name(&p.name, i, &w.steps);
        let agent = p.agent.as_ref().map(ToString::to_string);
        let join = |ports: &[Port]| {
            ports
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let row = ExecutionRow {
            line: 0,
            values: vec![
                ("phase".into(), phase_key(&name)),
                ("agent".into(), agent.clone().unwrap_or_default()),
                ("channel".into(), p.channel.clone().unwrap_or_default()),
                ("input".into(), join(&inputs)),
                ("output".into(), join(&outputs)),
                (
                    "duration_ms".into(),
                    p.meta
                        .duration_ms
                        .map(|d| d.to_string())
                        .unwrap_or_default(),
                ),
                ("status".into(), status.into()),
                (
                    "tokens_used".into(),
                    p.meta.tokens.map(|t| t.to_string()).unwrap_or_default(),
                ),
                (SESSION_FIELD.into(), log.id().to_string()),
            ],
        };
        while parents.last().is_some_and(|&(level, _)| level >= p.level) {
            parents.pop();
        }
        let parent = parents.last().map(|&(_, idx)| idx);
        parents.push((p.level, i));
        let flows = flow_line(&name, inputs, outputs);
        w.steps.push(Step {
            name,
            agent,
            channel: p.channel.clone(),
            marker: if critical {
                StepMarker::Critical
            } else {
                StepMarker::None
            },
            level: p.level.clamp(2, 6),
            parent,
            line: 0,
            prose: notes(p).join("\n"),
            flows,
            conditions: Vec::new(),
            executions: vec![ExecutionBlock {
                line: 0,
                fields: EXECUTION_FIELDS
                    .iter()
                    .chain(&[SESSION_FIELD])
                    .map(|f| (*f).to_owned())
                    .collect(),
                rows: vec![row],
            }],
        });
    }
    Ok(w)
}

/// A phase's name as a step name that reads back the same: one line, no
/// trailing `!`/`?` word (a marker in a step heading), and unique among the
/// steps so far (`Name (2)`), since conditions and merges go by name.
fn step_name(phase_name: &str, index: usize, steps: &[Step]) -> String {
    let mut words: Vec<&str> = phase_name.split_whitespace().collect();
    while words.len() > 1 && matches!(words.last(), Some(&"!" | &"?")) {
        words.pop();
    }
    let base = match words.join(" ") {
        n if n.is_empty() || n == "!" || n == "?" => format!("Phase {}", index + 1),
        n => n,
    };
    let taken = |n: &str| steps.iter().any(|s| loose_name(&s.name) == loose_name(n));
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|k| format!("{base} ({k})"))
        .find(|n| !taken(n))
        .unwrap_or(base)
}

fn callouts(p: &Phase) -> impl Iterator<Item = &crucible_core::Callout> {
    p.blocks.iter().filter_map(|b| match b {
        Block::Callout(c) => Some(c),
        _ => None,
    })
}

/// The names a phase read (before writing them itself) and wrote.
fn flow_of(p: &Phase, versions: &mut Versions) -> (Vec<Port>, Vec<Port>) {
    let mut inputs: Vec<Port> = Vec::new();
    let mut outputs: Vec<Port> = Vec::new();
    let mut written_here: HashSet<String> = HashSet::new();
    for b in &p.blocks {
        let Block::ToolCalls { calls } = b else {
            continue;
        };
        for call in calls {
            for a in accesses(&call.tool, &call.args) {
                // A path that cannot be written as a flow name (an arrow or a
                // comma in it) stays out of the data flow.
                if !crucible_parser::workflow::is_valid_name(&a.path) {
                    continue;
                }
                match a.access {
                    Access::Read if !written_here.contains(&a.path) => {
                        let name = versions.current(&a.path);
                        if !inputs.iter().any(|p| p.name == name) {
                            inputs.push(port(name, &a.path));
                        }
                    }
                    Access::Read => {}
                    Access::Write => {
                        if written_here.insert(a.path.clone()) {
                            let name = versions.write(&a.path);
                            outputs.push(port(name, &a.path));
                        }
                    }
                }
            }
        }
    }
    (inputs, outputs)
}

/// The flow line of a step: its inputs to its outputs. A step that only
/// writes starts from `task` (the workflow's task); one that only reads
/// ends in `<step>_notes` (what it learned).
fn flow_line(name: &str, inputs: Vec<Port>, outputs: Vec<Port>) -> Vec<Flow> {
    if inputs.is_empty() && outputs.is_empty() {
        return Vec::new();
    }
    let inputs = if inputs.is_empty() {
        vec![Port::new("task", None)]
    } else {
        inputs
    };
    let outputs = if outputs.is_empty() {
        vec![Port::new(format!("{}_notes", snake(name)), None)]
    } else {
        outputs
    };
    vec![Flow {
        inputs,
        outputs,
        line: 0,
    }]
}

/// `Write the Schema` → `write_the_schema`.
fn snake(name: &str) -> String {
    let words: Vec<String> = name
        .split_whitespace()
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric())
                .collect::<String>()
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        "step".to_owned()
    } else {
        words.join("_")
    }
}

/// The notes under a step: decisions (the why), errors and failed calls
/// as pitfalls, user interventions, delegated work, and the tools used.
fn notes(p: &Phase) -> Vec<String> {
    let mut out = Vec::new();
    let mut tools: Vec<(String, usize)> = Vec::new();
    for b in &p.blocks {
        match b {
            Block::Callout(c) => match c.kind() {
                CalloutKind::Decision => out.push(bullet("Decision", &c.text())),
                CalloutKind::Error => {
                    let e = c.error_parts();
                    let mut s = e.description.clone();
                    if let Some(r) = &e.resolution {
                        s.push_str(&format!(" Fix: {r}"));
                    }
                    out.push(bullet("Watch out", &s));
                }
                CalloutKind::User => {
                    let u = c.user_parts();
                    let mut s = u.quote.unwrap_or_else(|| c.text());
                    if let Some(i) = u.interpretation {
                        s.push_str(&format!(" ({i})"));
                    }
                    out.push(bullet("The user said", &s));
                }
                CalloutKind::Subagent => {
                    if let Ok(sub) = c.subagent() {
                        let who = sub
                            .agent
                            .as_ref()
                            .map_or_else(|| "a subagent".to_owned(), |a| format!("@{a}"));
                        let what = sub
                            .summary
                            .or_else(|| sub.description.first().cloned())
                            .unwrap_or_default();
                        out.push(bullet(&format!("Delegated to {who}"), &what));
                    }
                }
                CalloutKind::Other(_) => {}
            },
            Block::ToolCalls { calls } => {
                for call in calls {
                    match tools.iter_mut().find(|(t, _)| *t == call.tool) {
                        Some((_, n)) => *n += 1,
                        None => tools.push((call.tool.clone(), 1)),
                    }
                    if call.failed {
                        let what = format!(
                            "`{} {}` failed{}",
                            call.tool,
                            call.args,
                            call.summary
                                .as_deref()
                                .map(|s| format!(": {s}"))
                                .unwrap_or_default()
                        );
                        out.push(bullet("Watch out", &what.replace("` `", "`")));
                    }
                }
            }
            _ => {}
        }
    }
    if !tools.is_empty() {
        let list: Vec<String> = tools
            .iter()
            .map(|(t, n)| {
                let known = tool_kind(t) != crate::dataflow::ToolKind::Unknown;
                let t = if known {
                    t.clone()
                } else {
                    format!("{t} (not read for data flow)")
                };
                if *n > 1 { format!("{t} ×{n}") } else { t }
            })
            .collect();
        out.push(bullet("Tools", &list.join(", ")));
    }
    out
}

/// Adds `other` (one session's workflow) into `w`: rows and flows to the
/// step of the same name, other steps after the last matched step before
/// them. Inputs that would close a cycle are left out.
fn merge(w: &mut Workflow, other: Workflow) {
    let mut last_matched: Option<usize> = None;
    for mut t in other.steps {
        let found = w
            .steps
            .iter()
            .position(|s| loose_name(&s.name) == loose_name(&t.name));
        match found {
            Some(i) => {
                let s = &mut w.steps[i];
                if t.is_critical() {
                    s.marker = StepMarker::Critical;
                }
                if let (Some(block), Some(new)) = (s.executions.first_mut(), t.executions.pop()) {
                    block.rows.extend(new.rows);
                }
                for line in t.prose.lines() {
                    if !s.prose.lines().any(|l| l == line) {
                        if !s.prose.is_empty() {
                            s.prose.push('\n');
                        }
                        s.prose.push_str(line);
                    }
                }
                merge_flows(w, i, &t.flows);
                last_matched = Some(i);
            }
            None => {
                let at = last_matched.map_or(0, |i| i + 1);
                t.parent = None;
                // A nested step keeps its depth only under a matched parent.
                if at == 0 || w.steps[at - 1].level < t.level.saturating_sub(1) {
                    t.level = 2;
                }
                // Its flows go in port by port, like a matched step's, so
                // that none closes a cycle with the runs before it.
                let flows = std::mem::take(&mut t.flows);
                w.steps.insert(at, t);
                for s in &mut w.steps {
                    if let Some(p) = s.parent.as_mut()
                        && *p >= at
                    {
                        *p += 1;
                    }
                }
                merge_flows(w, at, &flows);
                last_matched = Some(at);
            }
        }
    }
    reparent(w);
}

/// Adds the ports of `flows` to step `i`'s one flow, one input at a time,
/// leaving out any that would make the graph cyclic.
fn merge_flows(w: &mut Workflow, i: usize, flows: &[Flow]) {
    if flows.is_empty() {
        return;
    }
    if w.steps[i].flows.is_empty() {
        w.steps[i].flows.push(Flow {
            inputs: Vec::new(),
            outputs: Vec::new(),
            line: 0,
        });
    }
    for f in flows {
        add_ports(w, i, &f.outputs, outputs_of);
        add_ports(w, i, &f.inputs, inputs_of);
    }
    // The placeholders only where a side would otherwise be empty.
    let step = &mut w.steps[i];
    let notes = format!("{}_notes", snake(&step.name));
    let mut flow = step.flows.remove(0);
    if flow.inputs.len() > 1 {
        flow.inputs.retain(|p| p.name != "task");
    }
    if flow.outputs.len() > 1 {
        flow.outputs.retain(|p| p.name != notes);
    }
    let rest = std::mem::take(&mut step.flows);
    step.flows = flow_line(&step.name, flow.inputs, flow.outputs);
    step.flows.extend(rest);
}

/// Adds each new port to one side of step `i`'s first flow, taking it back
/// when it would make the graph cyclic.
fn add_ports(w: &mut Workflow, i: usize, ports: &[Port], side: fn(&mut Flow) -> &mut Vec<Port>) {
    for p in ports {
        let list = side(&mut w.steps[i].flows[0]);
        if list.iter().any(|q| q.name == p.name) {
            continue;
        }
        list.push(p.clone());
        if WorkflowGraph::build(w).order.is_none() {
            side(&mut w.steps[i].flows[0]).pop();
        }
    }
}

fn outputs_of(f: &mut Flow) -> &mut Vec<Port> {
    &mut f.outputs
}

fn inputs_of(f: &mut Flow) -> &mut Vec<Port> {
    &mut f.inputs
}

/// Parents again from the heading levels, after steps were inserted.
fn reparent(w: &mut Workflow) {
    let mut stack: Vec<(u8, usize)> = Vec::new();
    for i in 0..w.steps.len() {
        let level = w.steps[i].level;
        while stack.last().is_some_and(|&(l, _)| l >= level) {
            stack.pop();
        }
        w.steps[i].parent = stack.last().map(|&(_, p)| p);
        stack.push((level, i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_name_the_original_and_each_write() {
        let mut v = Versions::default();
        assert_eq!(v.write("a.rs"), "a.rs");
        assert_eq!(v.current("a.rs"), "a.rs");
        assert_eq!(v.write("a.rs"), "a.rs@v2");
        assert_eq!(v.current("b.rs"), "b.rs");
        assert_eq!(v.write("b.rs"), "b.rs@v2");
        assert_eq!(v.write("b.rs"), "b.rs@v3");
    }
}
