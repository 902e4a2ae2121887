//! The JSON of `cru workflow show --format json` and `cru session codify
//! --format json` (schema in `docs/json.md`): made for readers, not a
//! dump of the parser's types.

use crucible_core::workflow::{Edge, EdgeKind, Step, StepMarker, Workflow, WorkflowProblem};
use crucible_parser::workflow::CheckedWorkflow;
use serde::Serialize;
use serde_json::{Map, Value};

pub const VERSION: u32 = 1;

/// One workflow: the document, its graph and its problems.
#[derive(Debug, Serialize)]
pub struct WorkflowJson {
    pub version: u32,
    #[serde(flatten)]
    pub body: WorkflowBody,
}

/// Several workflows (`codify` of sessions of different tasks).
#[derive(Debug, Serialize)]
pub struct WorkflowsJson {
    pub version: u32,
    pub workflows: Vec<WorkflowBody>,
}

#[derive(Debug, Serialize)]
pub struct WorkflowBody {
    pub workflow: WorkflowOut,
    pub graph: GraphOut,
    pub problems: Vec<ProblemOut>,
}

#[derive(Debug, Serialize)]
pub struct WorkflowOut {
    pub title: Option<String>,
    /// The sessions it was codified from (frontmatter `source_sessions`).
    pub source_sessions: Vec<String>,
    pub steps: Vec<StepOut>,
    /// Names read that no step produces.
    pub inputs: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct StepOut {
    pub name: String,
    pub agent: Option<String>,
    pub channel: Option<String>,
    /// `critical`, `optional` or `none`.
    pub marker: &'static str,
    /// The enclosing step's name (a `###` step under a `##` one).
    pub parent: Option<String>,
    pub line: usize,
    pub inputs: Vec<PortOut>,
    pub outputs: Vec<PortOut>,
    pub conditions: Vec<ConditionOut>,
    /// The execution history: one object per `session-toon` row, by field.
    pub runs: Vec<Map<String, Value>>,
    pub totals: Totals,
}

#[derive(Debug, Serialize)]
pub struct PortOut {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ConditionOut {
    /// `None` for `Otherwise`.
    pub condition: Option<String>,
    pub target: String,
}

/// A step's execution history, added up.
#[derive(Debug, Default, Serialize)]
pub struct Totals {
    pub runs: usize,
    pub success: usize,
    /// `failed` and `timeout` rows.
    pub failed: usize,
    pub duration_ms: u64,
    pub tokens_used: u64,
}

impl Totals {
    pub fn of(s: &Step) -> Self {
        let mut t = Self::default();
        for r in s.rows() {
            t.runs += 1;
            match r.get("status") {
                Some("success") => t.success += 1,
                Some("failed" | "timeout") => t.failed += 1,
                _ => {}
            }
            t.duration_ms += r.number("duration_ms").unwrap_or(0);
            t.tokens_used += r.number("tokens_used").unwrap_or(0);
        }
        t
    }
}

#[derive(Debug, Serialize)]
pub struct GraphOut {
    pub edges: Vec<EdgeOut>,
    /// Step names in the order a runner would take them; `None` when the
    /// graph has a cycle.
    pub order: Option<Vec<String>>,
}

#[derive(Debug, Serialize)]
pub struct EdgeOut {
    pub from: String,
    pub to: String,
    /// `data` or `condition`.
    pub kind: &'static str,
    /// The data name that flows, or the condition (`None`: `Otherwise`).
    pub name: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ProblemOut {
    pub line: usize,
    pub column: usize,
    pub severity: &'static str,
    pub message: String,
}

impl From<&WorkflowProblem> for ProblemOut {
    fn from(p: &WorkflowProblem) -> Self {
        Self {
            line: p.line,
            column: p.column,
            severity: match p.severity {
                crucible_core::workflow::Severity::Error => "error",
                crucible_core::workflow::Severity::Warning => "warning",
            },
            message: p.message.clone(),
        }
    }
}

impl WorkflowBody {
    pub fn of(checked: &CheckedWorkflow) -> Self {
        let w = &checked.workflow;
        let name = |i: usize| step_name(w, i);
        Self {
            workflow: WorkflowOut {
                title: w.title.clone(),
                source_sessions: source_sessions(w),
                steps: w.steps.iter().map(|s| StepOut::of(w, s)).collect(),
                inputs: checked.graph.inputs.clone(),
            },
            graph: GraphOut {
                edges: checked
                    .graph
                    .edges
                    .iter()
                    .map(|e| EdgeOut::of(w, e))
                    .collect(),
                order: checked
                    .graph
                    .order
                    .as_ref()
                    .map(|o| o.iter().map(|&i| name(i)).collect()),
            },
            problems: checked.problems.iter().map(ProblemOut::from).collect(),
        }
    }
}

/// The name of step `i` (empty for an index out of range).
fn step_name(w: &Workflow, i: usize) -> String {
    w.steps.get(i).map_or_else(String::new, |s| s.name.clone())
}

/// The frontmatter's `source_sessions` list, when it has one.
fn source_sessions(w: &Workflow) -> Vec<String> {
    w.frontmatter
        .as_ref()
        .and_then(|fm| fm.get("source_sessions"))
        .and_then(|v| v.as_sequence())
        .map(|ids| {
            ids.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

impl StepOut {
    fn of(w: &Workflow, s: &Step) -> Self {
        let ports = |ports: Vec<&crucible_core::workflow::Port>| {
            ports
                .into_iter()
                .map(|p| PortOut {
                    name: p.name.clone(),
                    ty: p.ty.clone(),
                })
                .collect()
        };
        Self {
            name: s.name.clone(),
            agent: s.agent.clone(),
            channel: s.channel.clone(),
            marker: match s.marker {
                StepMarker::Critical => "critical",
                StepMarker::Optional => "optional",
                StepMarker::None => "none",
            },
            parent: s.parent.map(|i| step_name(w, i)),
            line: s.line,
            inputs: ports(s.inputs()),
            outputs: ports(s.outputs()),
            conditions: s
                .conditions
                .iter()
                .map(|c| ConditionOut {
                    condition: c.condition.clone(),
                    target: c.target.clone(),
                })
                .collect(),
            runs: s.rows().map(row).collect(),
            totals: Totals::of(s),
        }
    }
}

impl EdgeOut {
    fn of(w: &Workflow, e: &Edge) -> Self {
        let (kind, label) = match &e.kind {
            EdgeKind::Data { name } => ("data", Some(name.clone())),
            EdgeKind::Condition { condition } => ("condition", condition.clone()),
        };
        Self {
            from: step_name(w, e.from),
            to: step_name(w, e.to),
            kind,
            name: label,
        }
    }
}

/// An execution row as an object: numbers as numbers, empty cells left out.
fn row(r: &crucible_core::workflow::ExecutionRow) -> Map<String, Value> {
    r.values
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| {
            let value = match (k.as_str(), v.parse::<u64>()) {
                ("duration_ms" | "tokens_used", Ok(n)) => Value::from(n),
                _ => Value::String(v.clone()),
            };
            (k.clone(), value)
        })
        .collect()
}
