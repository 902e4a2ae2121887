//! Sessions → a workflow (the rules are in `docs/codify.md`).

use std::collections::{HashMap, HashSet};

use crucible_core::workflow::{
    EXECUTION_FIELDS, ExecutionBlock, ExecutionRow, Flow, Port, Step, StepMarker, Workflow,
    WorkflowGraph, loose_name, phase_key,
};
use crucible_core::yaml::{Mapping, Value};
use crucible_core::{Block, CalloutKind, Phase, PhaseId, SessionData, SessionLog, SessionStatus};

use crate::dataflow::{Access, FileAccess, accesses, accesses_of_arguments, tool_kind};

/// Why nothing could be codified.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodifyError {
    #[error("no session to codify")]
    NoSessions,
    #[error("session {0} has no phases: there is nothing to make steps of")]
    NoPhases(String),
}

/// The custom fields codify adds to the standard execution fields: the
/// session a row comes from, and its phases (more than one when the session
/// was resumed: the resumed run continues the step).
const SESSION_FIELD: &str = "session";
const PHASES_FIELD: &str = "phases";
const CUSTOM_FIELDS: [&str; 2] = [SESSION_FIELD, PHASES_FIELD];

/// A session to codify, with its sidecar when it has one (the full
/// arguments of its tool calls, which the markdown may have cut short).
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    pub log: &'a SessionLog,
    pub data: Option<&'a SessionData>,
}

impl<'a> Source<'a> {
    pub fn new(log: &'a SessionLog) -> Self {
        Self { log, data: None }
    }
}

/// One workflow from `sessions` (oldest first as given); see [`codify_sources`].
pub fn codify(sessions: &[&SessionLog]) -> Result<Workflow, CodifyError> {
    let sources: Vec<Source<'_>> = sessions.iter().map(|l| Source::new(l)).collect();
    codify_sources(&sources)
}

/// One workflow from `sources` (oldest first as given): the first gives
/// the steps; each later one adds its run to the step of the same name, and
/// its other steps where they fall in its order.
pub fn codify_sources(sources: &[Source<'_>]) -> Result<Workflow, CodifyError> {
    let (first, rest) = sources.split_first().ok_or(CodifyError::NoSessions)?;
    let mut w = single(first)?;
    for s in rest {
        let other = single(s)?;
        merge(&mut w, other);
    }
    let sessions: Vec<&SessionLog> = sources.iter().map(|s| s.log).collect();
    let ids: Value = sessions.iter().map(|s| s.id().to_string()).collect();
    let mut fm = Mapping::new();
    fm.insert("type", "workflow");
    if let Some(t) = &w.title {
        fm.insert("title", t.as_str());
    }
    fm.insert("source_sessions", ids);
    w.frontmatter = Some(fm);
    w.intro = intro(&sessions);
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
        if let Some(name) = self.written.get(path).and_then(|v| v.last()) {
            name.clone()
        } else {
            self.read_original.insert(path.to_owned());
            path.to_owned()
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

/// What one phase did, before phases are grouped into steps.
struct PhaseRun<'a> {
    phase: &'a Phase,
    id: PhaseId,
    inputs: Vec<Port>,
    outputs: Vec<Port>,
    status: &'static str,
    critical: bool,
    /// The earlier phase this one resumed (`Resumed from phase-N`).
    resumes: Option<usize>,
}

/// `Resumed from phase-3` (what `cru session resume` names the phase it
/// records) → the index of phase 3.
fn resumed_phase(name: &str) -> Option<usize> {
    let rest = name.trim().strip_prefix("Resumed from phase-")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse::<usize>().ok()?.checked_sub(1)
}

/// Each phase of `source` with its data flow and outcome.
fn phase_runs<'a>(source: &Source<'a>, phases: &[(PhaseId, &'a Phase)]) -> Vec<PhaseRun<'a>> {
    let fm = &source.log.frontmatter;
    let blocked = match fm.status {
        SessionStatus::Paused => fm.resume_point.map(crucible_core::PhaseId::index),
        SessionStatus::Failed => Some(phases.len() - 1),
        _ => None,
    };
    let calls = CallArguments::of(source);
    let mut versions = Versions::default();
    let mut runs = Vec::new();
    for (i, &(id, p)) in phases.iter().enumerate() {
        let (inputs, outputs) = flow_of(p, i, &calls, &mut versions);
        let unresolved_error = callouts(p)
            .filter(|c| c.kind() == CalloutKind::Error)
            .any(|c| c.error_parts().resolution.is_none());
        let paused = fm.status == SessionStatus::Paused;
        let status = if paused && blocked.is_some_and(|b| i > b) {
            "skipped"
        } else if paused && blocked == Some(i) {
            "timeout"
        } else if unresolved_error || (fm.status == SessionStatus::Failed && blocked == Some(i)) {
            "failed"
        } else {
            "success"
        };
        runs.push(PhaseRun {
            phase: p,
            id,
            inputs,
            outputs,
            status,
            critical: unresolved_error || blocked == Some(i),
            resumes: resumed_phase(&p.name).filter(|&r| r < i),
        });
    }
    runs
}

/// One session's workflow: a step per phase, except that a resumed run
/// continues the step of the phase it resumed.
fn single(source: &Source<'_>) -> Result<Workflow, CodifyError> {
    let log = source.log;
    let phases: Vec<(PhaseId, &Phase)> = log.phases().collect();
    if phases.is_empty() {
        return Err(CodifyError::NoPhases(log.id().to_string()));
    }
    let mut w = Workflow {
        title: log.title().map(str::to_owned),
        ..Workflow::default()
    };
    let mut step_of: Vec<usize> = Vec::new();
    let mut parents: Vec<(u8, usize)> = Vec::new();
    for run in phase_runs(source, &phases) {
        if let Some(step) = run.resumes.map(|r| step_of[r]) {
            continue_step(&mut w, step, &run);
            step_of.push(step);
            continue;
        }
        let p = run.phase;
        let name = step_name(&p.name, w.steps.len(), &w.steps);
        while parents.last().is_some_and(|&(level, _)| level >= p.level) {
            parents.pop();
        }
        let parent = parents.last().map(|&(_, idx)| idx);
        parents.push((p.level, w.steps.len()));
        let row = execution_row(&name, &run, log.id().as_str());
        step_of.push(w.steps.len());
        w.steps.push(Step {
            agent: p.agent.as_ref().map(ToString::to_string),
            channel: p.channel.clone(),
            marker: if run.critical {
                StepMarker::Critical
            } else {
                StepMarker::None
            },
            level: p.level.clamp(2, 6),
            parent,
            line: 0,
            prose: notes(p).join("\n"),
            flows: flow_line(&name, run.inputs, run.outputs),
            conditions: Vec::new(),
            executions: vec![ExecutionBlock {
                line: 0,
                fields: EXECUTION_FIELDS
                    .iter()
                    .chain(&CUSTOM_FIELDS)
                    .map(|f| (*f).to_owned())
                    .collect(),
                rows: vec![row],
            }],
            name,
        });
    }
    Ok(w)
}

/// A step's execution row for one phase of session `id`.
fn execution_row(step: &str, run: &PhaseRun<'_>, id: &str) -> ExecutionRow {
    let p = run.phase;
    let join = |ports: &[Port]| {
        ports
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let number = |n: Option<u64>| n.map(|d| d.to_string()).unwrap_or_default();
    ExecutionRow {
        line: 0,
        values: vec![
            ("phase".into(), phase_key(step)),
            (
                "agent".into(),
                p.agent
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
            ),
            ("channel".into(), p.channel.clone().unwrap_or_default()),
            ("input".into(), join(&run.inputs)),
            ("output".into(), join(&run.outputs)),
            ("duration_ms".into(), number(p.meta.duration_ms)),
            ("status".into(), run.status.into()),
            ("tokens_used".into(), number(p.meta.tokens)),
            (SESSION_FIELD.into(), id.to_owned()),
            (PHASES_FIELD.into(), run.id.to_string()),
        ],
    }
}

/// A resumed run added to the step it continues: its flow (no name that
/// would close a cycle), its notes, and its phase on the session's row,
/// whose status and totals become the run's as it ended.
fn continue_step(w: &mut Workflow, step: usize, run: &PhaseRun<'_>) {
    let flows = flow_line(&w.steps[step].name, run.inputs.clone(), run.outputs.clone());
    merge_flows(w, step, &flows);
    let s = &mut w.steps[step];
    if run.critical {
        s.marker = StepMarker::Critical;
    }
    let mut lines = vec![bullet(
        "Resumed",
        &format!("{} (`{}`) continued this step", run.id, run.phase.name),
    )];
    lines.extend(notes(run.phase));
    for line in lines {
        if !s.prose.lines().any(|l| l == line) {
            if !s.prose.is_empty() {
                s.prose.push('\n');
            }
            s.prose.push_str(&line);
        }
    }
    let Some(row) = s.executions.first_mut().and_then(|b| b.rows.last_mut()) else {
        return;
    };
    let add = |row: &mut ExecutionRow, field: &str, extra: Option<u64>| {
        let total = row.number(field).unwrap_or(0) + extra.unwrap_or(0);
        set(
            row,
            field,
            if total == 0 && extra.is_none() && row.get(field).is_none() {
                String::new()
            } else {
                total.to_string()
            },
        );
    };
    add(row, "duration_ms", run.phase.meta.duration_ms);
    add(row, "tokens_used", run.phase.meta.tokens);
    if run.status != "skipped" {
        set(row, "status", run.status.to_owned());
    }
    let phases = format!("{} {}", row.get(PHASES_FIELD).unwrap_or_default(), run.id);
    set(row, PHASES_FIELD, phases.trim().to_owned());
    let ports = |list: &[Port], field: &str, row: &ExecutionRow| {
        let mut names: Vec<String> = row
            .get(field)
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        for p in list {
            if !names.contains(&p.name) {
                names.push(p.name.clone());
            }
        }
        names.join(" ")
    };
    let input = ports(&run.inputs, "input", row);
    let output = ports(&run.outputs, "output", row);
    set(row, "input", input);
    set(row, "output", output);
}

fn set(row: &mut ExecutionRow, field: &str, value: String) {
    if let Some((_, v)) = row.values.iter_mut().find(|(k, _)| k == field) {
        *v = value;
    }
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
    // Finitely many steps take finitely many names: a free one is found.
    (2..=steps.len() + 2)
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

/// The full arguments of a session's tool calls, from its sidecar, by
/// (phase index, call index); and the session's working directory, which
/// absolute paths are made relative to (so `Read /repo/src/a.rs` and `cat
/// src/a.rs` are one file).
struct CallArguments<'a> {
    by_call: HashMap<(usize, usize), &'a serde_json::Value>,
    cwd: Option<String>,
}

impl<'a> CallArguments<'a> {
    fn of(source: &Source<'a>) -> Self {
        let by_call = source
            .data
            .map(|d| {
                d.calls()
                    .filter_map(|c| Some(((c.phase, c.call), c.arguments.as_ref()?)))
                    .collect()
            })
            .unwrap_or_default();
        let cwd = source
            .log
            .frontmatter
            .extra
            .get_str("cwd")
            .map(|c| format!("{}/", c.trim_end_matches('/')));
        Self { by_call, cwd }
    }

    fn accesses(&self, phase: usize, call: usize, c: &crucible_core::ToolCall) -> Vec<FileAccess> {
        let mut found = match self.by_call.get(&(phase, call)) {
            Some(args) => accesses_of_arguments(&c.tool, args),
            None => accesses(&c.tool, &c.args),
        };
        if let Some(cwd) = &self.cwd {
            for a in &mut found {
                if let Some(rel) = a.path.strip_prefix(cwd.as_str())
                    && !rel.is_empty()
                {
                    a.path = rel.to_owned();
                }
            }
        }
        found
    }
}

/// The names a phase read (before writing them itself) and wrote.
fn flow_of(
    p: &Phase,
    phase: usize,
    calls: &CallArguments<'_>,
    versions: &mut Versions,
) -> (Vec<Port>, Vec<Port>) {
    let mut inputs: Vec<Port> = Vec::new();
    let mut outputs: Vec<Port> = Vec::new();
    let mut written_here: HashSet<String> = HashSet::new();
    let all_calls = p.blocks.iter().flat_map(|b| match b {
        Block::ToolCalls { calls } => calls.as_slice(),
        _ => &[],
    });
    for (n, call) in all_calls.enumerate() {
        for a in calls.accesses(phase, n, call) {
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
        if let Some(i) = found {
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
        } else {
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
