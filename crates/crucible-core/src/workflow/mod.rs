//! Workflows: the reusable procedures `cru session codify` writes, in the
//! markup of `shared/specs/workflow-markup.md` (steps as headings, data-flow
//! lines, `session-toon` execution history).
//!
//! These are the types; `crucible-parser` reads and writes the markup, and
//! [`WorkflowGraph`] links the steps and checks the graph.

mod graph;

pub use graph::{Edge, EdgeKind, WorkflowGraph};

use serde::Serialize;

/// A workflow document.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Workflow {
    /// The frontmatter, as written (YAML), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontmatter: Option<crate::yaml::Mapping>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Prose before the first step.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub intro: String,
    pub steps: Vec<Step>,
    /// Headed sections that are not steps (`## Summary`), kept as prose.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<Section>,
}

/// `!` (critical: its failure halts a run) or `?` (explicitly optional).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepMarker {
    /// No marker: optional.
    #[default]
    None,
    Critical,
    Optional,
}

/// One step: a heading of level 2 or deeper and what follows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Step {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    pub marker: StepMarker,
    /// Heading level (2 for `##`).
    pub level: u8,
    /// The index of the enclosing step, by heading depth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
    /// The heading's line in the file (1-based; 0 for a step not read from a file).
    pub line: usize,
    /// The step's prose without its flow lines, as written.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub prose: String,
    pub flows: Vec<Flow>,
    pub conditions: Vec<Condition>,
    pub executions: Vec<ExecutionBlock>,
}

impl Step {
    pub fn is_critical(&self) -> bool {
        self.marker == StepMarker::Critical
    }

    /// Every name this step reads, in order, once each.
    pub fn inputs(&self) -> Vec<&Port> {
        unique(self.flows.iter().flat_map(|f| &f.inputs))
    }

    /// Every name this step produces, in order, once each.
    pub fn outputs(&self) -> Vec<&Port> {
        unique(self.flows.iter().flat_map(|f| &f.outputs))
    }

    /// All execution rows of all blocks.
    pub fn rows(&self) -> impl Iterator<Item = &ExecutionRow> {
        self.executions.iter().flat_map(|b| &b.rows)
    }
}

fn unique<'a>(ports: impl Iterator<Item = &'a Port>) -> Vec<&'a Port> {
    let mut out: Vec<&Port> = Vec::new();
    for p in ports {
        if !out.iter().any(|q| q.name == p.name) {
            out.push(p);
        }
    }
    out
}

/// A name that flows between steps, with its optional `::Type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Port {
    pub name: String,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
}

impl Port {
    pub fn new(name: impl Into<String>, ty: Option<String>) -> Self {
        Self {
            name: name.into(),
            ty,
        }
    }
}

impl std::fmt::Display for Port {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.ty {
            Some(t) => write!(f, "{}::{t}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// One data-flow line: `a, b → out::T`. A chain `a → b → c` is one flow
/// per adjacent pair, each with the line it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flow {
    pub inputs: Vec<Port>,
    pub outputs: Vec<Port>,
    pub line: usize,
}

/// `If <condition> → proceed to <Step>`, or `Otherwise → <Step>` (no condition).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Condition {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    pub target: String,
    pub line: usize,
    /// Where the step name starts on the line (1-based), for messages.
    pub column: usize,
}

/// A `session-toon` block: an `execution[N]{fields}:` table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExecutionBlock {
    /// The line of the opening fence.
    pub line: usize,
    pub fields: Vec<String>,
    pub rows: Vec<ExecutionRow>,
}

/// The fields every execution row may have; `phase` and `status` are required.
pub const EXECUTION_FIELDS: [&str; 8] = [
    "phase",
    "agent",
    "channel",
    "input",
    "output",
    "duration_ms",
    "status",
    "tokens_used",
];

/// The statuses an execution row may have.
pub const EXECUTION_STATUSES: [&str; 4] = ["success", "failed", "skipped", "timeout"];

/// One run of a step: values by field, custom fields kept in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExecutionRow {
    pub line: usize,
    /// `(field, value)` in the block's field order; an empty cell is `""`.
    pub values: Vec<(String, String)>,
}

impl ExecutionRow {
    pub fn get(&self, field: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| k == field)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }

    pub fn number(&self, field: &str) -> Option<u64> {
        self.get(field).and_then(|v| v.parse().ok())
    }
}

/// `Re-run Integration Tests` → `rerunintegrationtests`: how an execution
/// row's `phase` is matched to a step (case, spaces and punctuation ignored).
pub fn loose_name(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// `Re-run Integration Tests` → `RerunIntegrationTests`: the `phase` value
/// cru writes for a step.
pub fn phase_key(step_name: &str) -> String {
    let mut out = String::new();
    for word in step_name.split_whitespace() {
        let mut chars = word.chars().filter(|c| c.is_alphanumeric());
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.extend(chars);
        }
    }
    out
}

/// A headed part of the document that is not a step, kept as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    pub level: u8,
    pub title: String,
    pub line: usize,
    pub text: String,
    /// The index of the step it follows (None: before any step); it is
    /// written back in that place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_step: Option<usize>,
}

/// How bad a [`WorkflowProblem`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Warning,
    Error,
}

/// Something wrong in a workflow document, where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkflowProblem {
    pub line: usize,
    pub column: usize,
    pub severity: Severity,
    pub message: String,
}

impl WorkflowProblem {
    pub fn error(line: usize, column: usize, message: impl Into<String>) -> Self {
        Self {
            line,
            column,
            severity: Severity::Error,
            message: message.into(),
        }
    }

    pub fn warning(line: usize, column: usize, message: impl Into<String>) -> Self {
        Self {
            line,
            column,
            severity: Severity::Warning,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for WorkflowProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{}:{}: {kind}: {}", self.line, self.column, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_keys_and_loose_names() {
        assert_eq!(
            phase_key("Re-run Integration Tests"),
            "RerunIntegrationTests"
        );
        assert_eq!(phase_key("API Design"), "APIDesign");
        assert_eq!(phase_key("load data"), "LoadData");
        assert_eq!(
            loose_name("Re-run Integration Tests"),
            loose_name("RerunIntegrationTests")
        );
    }
}
