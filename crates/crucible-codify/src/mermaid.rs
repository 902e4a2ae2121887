//! A workflow as a Mermaid flowchart, which GitHub and Obsidian draw.

use std::fmt::Write;

use crucible_core::workflow::{EdgeKind, Workflow, WorkflowGraph};

/// `flowchart TD` with one node per step (a step with children is a
/// subgraph holding them), data edges labelled with the name that flows,
/// conditional edges dotted and labelled with their condition, critical
/// steps drawn heavier and optional (`?`) ones dashed.
pub fn mermaid(w: &Workflow, g: &WorkflowGraph) -> String {
    let mut out = String::from("flowchart TD\n");
    let has_children: Vec<bool> = (0..w.steps.len())
        .map(|i| w.steps.iter().any(|s| s.parent == Some(i)))
        .collect();
    let roots: Vec<usize> = (0..w.steps.len())
        .filter(|&i| w.steps[i].parent.is_none())
        .collect();
    for r in roots {
        node(w, &has_children, r, 1, &mut out);
    }
    for e in &g.edges {
        let label = match &e.kind {
            EdgeKind::Data { name } => format!("-->|\"{}\"|", escape(name)),
            EdgeKind::Condition { condition } => format!(
                "-.->|\"{}\"|",
                escape(condition.as_deref().unwrap_or("otherwise"))
            ),
        };
        let _ = writeln!(out, "  s{} {label} s{}", e.from, e.to);
    }
    let critical: Vec<String> = (0..w.steps.len())
        .filter(|&i| w.steps[i].is_critical() && !has_children[i])
        .map(|i| format!("s{i}"))
        .collect();
    let optional: Vec<String> = (0..w.steps.len())
        .filter(|&i| {
            w.steps[i].marker == crucible_core::workflow::StepMarker::Optional && !has_children[i]
        })
        .map(|i| format!("s{i}"))
        .collect();
    out.push_str("  classDef critical stroke-width:3px,stroke:#c0392b\n");
    out.push_str("  classDef optional stroke-dasharray:4 3\n");
    if !critical.is_empty() {
        let _ = writeln!(out, "  class {} critical", critical.join(","));
    }
    if !optional.is_empty() {
        let _ = writeln!(out, "  class {} optional", optional.join(","));
    }
    out
}

fn node(w: &Workflow, has_children: &[bool], i: usize, depth: usize, out: &mut String) {
    let s = &w.steps[i];
    let pad = "  ".repeat(depth);
    let mut label = escape(&s.name);
    let mut tags = Vec::new();
    if let Some(a) = &s.agent {
        tags.push(format!("@{}", escape(a)));
    }
    if let Some(c) = &s.channel {
        tags.push(format!("#{}", escape(c)));
    }
    if !tags.is_empty() {
        let _ = write!(label, "<br/><small>{}</small>", tags.join(" "));
    }
    if has_children[i] {
        let _ = writeln!(out, "{pad}subgraph s{i} [\"{label}\"]");
        for c in (0..w.steps.len()).filter(|&c| w.steps[c].parent == Some(i)) {
            node(w, has_children, c, depth + 1, out);
        }
        let _ = writeln!(out, "{pad}end");
    } else {
        let _ = writeln!(out, "{pad}s{i}[\"{label}\"]");
    }
}

/// Mermaid's entity escapes for what would end a quoted label.
fn escape(s: &str) -> String {
    s.replace('"', "#quot;")
        .replace('<', "#lt;")
        .replace('>', "#gt;")
        .replace('|', "#124;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_parser::workflow::check_workflow;

    #[test]
    fn nodes_edges_and_classes() {
        let c = check_workflow(
            b"# T\n\n## A @a !\nx -> y\nIf bad \"q\" -> proceed to B\n\n## B #c ?\ny -> z\n",
        );
        let m = mermaid(&c.workflow, &c.graph);
        assert_eq!(
            m,
            "flowchart TD\n  s0[\"A<br/><small>@a</small>\"]\n  s1[\"B<br/><small>#c</small>\"]\n  \
             s0 -->|\"y\"| s1\n  s0 -.->|\"bad #quot;q#quot;\"| s1\n  \
             classDef critical stroke-width:3px,stroke:#c0392b\n  classDef optional stroke-dasharray:4 3\n  \
             class s0 critical\n  class s1 optional\n"
        );
    }

    #[test]
    fn groups_become_subgraphs() {
        let c = check_workflow(b"## Group\n\n### Inner @x\na -> b\n");
        let m = mermaid(&c.workflow, &c.graph);
        assert!(
            m.contains(
                "  subgraph s0 [\"Group\"]\n    s1[\"Inner<br/><small>@x</small>\"]\n  end\n"
            ),
            "{m}"
        );
    }
}
