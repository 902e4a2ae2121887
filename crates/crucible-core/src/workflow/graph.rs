//! The step graph: edges where one step's output is another's input, and
//! conditional edges; what is wrong with it; the order a runner would use.

use std::collections::HashMap;

use serde::Serialize;

use super::{EXECUTION_STATUSES, Workflow, WorkflowProblem, loose_name};

/// Why two steps are linked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EdgeKind {
    /// `from` produces `name`, which `to` reads.
    Data { name: String },
    /// `If <condition> → proceed to <to>` (no condition: `Otherwise`).
    Condition {
        #[serde(skip_serializing_if = "Option::is_none")]
        condition: Option<String>,
    },
}

/// A link between two steps, by their indexes in [`Workflow::steps`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    #[serde(flatten)]
    pub kind: EdgeKind,
}

/// The linked steps of a workflow, and every problem found on the way.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkflowGraph {
    pub edges: Vec<Edge>,
    /// Steps in the order a runner would take them (document order among
    /// steps that are ready together); `None` when the graph has a cycle.
    pub order: Option<Vec<usize>>,
    /// Names read that no step produces: the workflow's inputs.
    pub inputs: Vec<String>,
    pub problems: Vec<WorkflowProblem>,
}

impl WorkflowGraph {
    pub fn build(w: &Workflow) -> Self {
        let mut problems = Vec::new();
        let mut edges = Vec::new();
        let mut producers: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, s) in w.steps.iter().enumerate() {
            for p in s.outputs() {
                let list = producers.entry(p.name.as_str()).or_default();
                if !list.contains(&i) {
                    list.push(i);
                }
            }
        }
        let mut inputs: Vec<String> = Vec::new();
        for (i, s) in w.steps.iter().enumerate() {
            for p in s.inputs() {
                match producers.get(p.name.as_str()) {
                    Some(from) => {
                        for &f in from.iter().filter(|&&f| f != i) {
                            edges.push(Edge {
                                from: f,
                                to: i,
                                kind: EdgeKind::Data {
                                    name: p.name.clone(),
                                },
                            });
                        }
                    }
                    None => {
                        if !inputs.contains(&p.name) {
                            inputs.push(p.name.clone());
                        }
                    }
                }
            }
        }
        for (i, s) in w.steps.iter().enumerate() {
            for c in &s.conditions {
                let target = c.target.trim();
                match w
                    .steps
                    .iter()
                    .position(|t| t.name.trim().eq_ignore_ascii_case(target))
                {
                    Some(to) => edges.push(Edge {
                        from: i,
                        to,
                        kind: EdgeKind::Condition {
                            condition: c.condition.clone(),
                        },
                    }),
                    None => problems.push(WorkflowProblem::error(
                        c.line,
                        c.column,
                        format!("no step is named `{target}`"),
                    )),
                }
            }
        }
        problems.extend(type_conflicts(w));
        let cycles = cycles(w.steps.len(), &edges);
        for cycle in &cycles {
            let names: Vec<&str> = cycle.iter().map(|&i| w.steps[i].name.as_str()).collect();
            let first = &w.steps[cycle[0]];
            problems.push(WorkflowProblem::error(
                first.line,
                1,
                format!("cycle: {}", names.join(" → ")),
            ));
        }
        problems.extend(execution_problems(w));
        problems.sort_by_key(|p| (p.line, p.column));
        let order = cycles
            .is_empty()
            .then(|| topological_order(w.steps.len(), &edges));
        Self {
            edges,
            order,
            inputs,
            problems,
        }
    }

    /// True when there are problems of error severity.
    pub fn has_errors(&self) -> bool {
        self.problems
            .iter()
            .any(|p| p.severity == super::Severity::Error)
    }
}

/// The same name given two different types.
fn type_conflicts(w: &Workflow) -> Vec<WorkflowProblem> {
    let mut seen: HashMap<&str, (&str, usize)> = HashMap::new();
    let mut problems = Vec::new();
    for f in w.steps.iter().flat_map(|s| &s.flows) {
        for p in f.inputs.iter().chain(&f.outputs) {
            let Some(ty) = p.ty.as_deref() else { continue };
            match seen.get(p.name.as_str()) {
                Some(&(first, line)) if first != ty => problems.push(WorkflowProblem::error(
                    f.line,
                    1,
                    format!("`{}` is `{ty}` here but `{first}` on line {line}", p.name),
                )),
                Some(_) => {}
                None => {
                    seen.insert(&p.name, (ty, f.line));
                }
            }
        }
    }
    problems
}

/// Every elementary cycle found by a depth-first search, each as the step
/// path that closes it (first step repeated at the end), once per set of
/// steps.
fn cycles(n: usize, edges: &[Edge]) -> Vec<Vec<usize>> {
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in edges {
        if !next[e.from].contains(&e.to) {
            next[e.from].push(e.to);
        }
    }
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    let mut mark = vec![Mark::New; n];
    let mut found: Vec<Vec<usize>> = Vec::new();
    for start in 0..n {
        if mark[start] != Mark::New {
            continue;
        }
        // (step, index of the next successor to look at)
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        mark[start] = Mark::OnPath;
        while let Some(&mut (v, ref mut k)) = stack.last_mut() {
            if let Some(&w) = next[v].get(*k) {
                *k += 1;
                match mark[w] {
                    Mark::New => {
                        mark[w] = Mark::OnPath;
                        stack.push((w, 0));
                    }
                    Mark::OnPath => {
                        let at = stack.iter().position(|&(s, _)| s == w).unwrap_or(0);
                        let mut cycle: Vec<usize> = stack[at..].iter().map(|&(s, _)| s).collect();
                        cycle.push(w);
                        let mut key: Vec<usize> = cycle[..cycle.len() - 1].to_vec();
                        key.sort_unstable();
                        if !found.iter().any(|c| {
                            let mut k2: Vec<usize> = c[..c.len() - 1].to_vec();
                            k2.sort_unstable();
                            k2 == key
                        }) {
                            found.push(cycle);
                        }
                    }
                    Mark::Done => {}
                }
            } else {
                mark[v] = Mark::Done;
                stack.pop();
            }
        }
    }
    found
}

/// Kahn's algorithm, taking ready steps in document order.
fn topological_order(n: usize, edges: &[Edge]) -> Vec<usize> {
    let mut indegree = vec![0usize; n];
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in edges {
        if !next[e.from].contains(&e.to) {
            next[e.from].push(e.to);
            indegree[e.to] += 1;
        }
    }
    let mut ready: std::collections::BTreeSet<usize> =
        (0..n).filter(|&i| indegree[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(v) = ready.pop_first() {
        order.push(v);
        for &w in &next[v] {
            indegree[w] -= 1;
            if indegree[w] == 0 {
                ready.insert(w);
            }
        }
    }
    order
}

/// Execution blocks and rows against the spec: required fields, statuses,
/// numbers, and rows whose phase matches no step.
fn execution_problems(w: &Workflow) -> Vec<WorkflowProblem> {
    let steps: Vec<String> = w.steps.iter().map(|s| loose_name(&s.name)).collect();
    let mut problems = Vec::new();
    for s in &w.steps {
        for b in &s.executions {
            for required in ["phase", "status"] {
                if !b.fields.iter().any(|f| f == required) {
                    problems.push(WorkflowProblem::error(
                        b.line,
                        1,
                        format!(
                            "execution block has no `{required}` field (fields: {})",
                            b.fields.join(", ")
                        ),
                    ));
                }
            }
            for r in &b.rows {
                for required in ["phase", "status"] {
                    if b.fields.iter().any(|f| f == required) && r.get(required).is_none() {
                        problems.push(WorkflowProblem::error(
                            r.line,
                            1,
                            format!("execution row has an empty `{required}`"),
                        ));
                    }
                }
                if let Some(status) = r.get("status")
                    && !EXECUTION_STATUSES.contains(&status)
                {
                    problems.push(WorkflowProblem::error(
                        r.line,
                        1,
                        format!(
                            "status `{status}` is not one of {}",
                            EXECUTION_STATUSES.join(", ")
                        ),
                    ));
                }
                for field in ["duration_ms", "tokens_used"] {
                    if let Some(v) = r.get(field)
                        && v.parse::<u64>().is_err()
                    {
                        problems.push(WorkflowProblem::warning(
                            r.line,
                            1,
                            format!("`{field}` is `{v}`, not a whole number"),
                        ));
                    }
                }
                if let Some(phase) = r.get("phase")
                    && !steps.contains(&loose_name(phase))
                {
                    problems.push(WorkflowProblem::warning(
                        r.line,
                        1,
                        format!("execution row's phase `{phase}` matches no step"),
                    ));
                }
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workflow::{Condition, Flow, Port, Step};

    fn step(name: &str, inputs: &[&str], outputs: &[&str]) -> Step {
        let port = |s: &&str| match s.split_once("::") {
            Some((n, t)) => Port::new(n, Some(t.to_owned())),
            None => Port::new(*s, None),
        };
        Step {
            name: name.into(),
            level: 2,
            line: name.len(),
            flows: vec![Flow {
                inputs: inputs.iter().map(port).collect(),
                outputs: outputs.iter().map(port).collect(),
                line: name.len() + 1,
            }],
            ..Step::default()
        }
    }

    fn workflow(steps: Vec<Step>) -> Workflow {
        Workflow {
            steps,
            ..Workflow::default()
        }
    }

    #[test]
    fn parallel_branches_merge_in_topological_order() {
        let w = workflow(vec![
            step("Receive", &["req"], &["order"]),
            step("Pay", &["order"], &["receipt"]),
            step("Stock", &["order"], &["stock"]),
            step("Reserve", &["stock", "receipt"], &["reservation"]),
        ]);
        let g = WorkflowGraph::build(&w);
        assert!(g.problems.is_empty(), "{:?}", g.problems);
        assert_eq!(g.order, Some(vec![0, 1, 2, 3]));
        assert_eq!(g.edges.len(), 4);
        assert_eq!(g.inputs, vec!["req"]);
    }

    #[test]
    fn a_cycle_names_its_path() {
        let w = workflow(vec![
            step("A", &["c_out"], &["a_out"]),
            step("B", &["a_out"], &["b_out"]),
            step("C", &["b_out"], &["c_out"]),
        ]);
        let g = WorkflowGraph::build(&w);
        assert_eq!(g.order, None);
        assert_eq!(g.problems.len(), 1);
        assert_eq!(g.problems[0].message, "cycle: A → B → C → A");
    }

    #[test]
    fn unknown_targets_and_type_conflicts_are_errors() {
        let mut a = step("A", &["x"], &["y::Int"]);
        a.conditions.push(Condition {
            condition: Some("it fails".into()),
            target: "Nowhere".into(),
            line: 9,
            column: 30,
        });
        a.conditions.push(Condition {
            condition: None,
            target: "b".into(),
            line: 10,
            column: 15,
        });
        let w = workflow(vec![a, step("B", &["y::String"], &["z"])]);
        let g = WorkflowGraph::build(&w);
        let messages: Vec<&str> = g.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            messages,
            vec![
                "`y` is `String` here but `Int` on line 2",
                "no step is named `Nowhere`"
            ]
        );
        assert!(
            g.edges
                .iter()
                .any(|e| e.kind == EdgeKind::Condition { condition: None })
        );
        assert!(g.has_errors());
    }
}
