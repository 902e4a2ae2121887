//! What makes a markdown document a workflow at all: workflow frontmatter
//! (`type: workflow`) or at least one step. Without this any README would
//! validate, since headings that are not steps are sections of prose.

use super::{Workflow, WorkflowProblem};

/// The problems that make `text` (parsed as `w`) no workflow: frontmatter
/// of another type, or no step.
pub fn document_problems(w: &Workflow, text: &str) -> Vec<WorkflowProblem> {
    let mut out = Vec::new();
    let end = frontmatter_end(text);
    if let Some(fm) = &w.frontmatter {
        match fm.get_str("type") {
            Some("workflow") => {}
            Some(other) => out.push(WorkflowProblem::error(
                line_of(text, "type:").unwrap_or(1),
                1,
                format!("frontmatter says `type: {other}`: a workflow has `type: workflow`"),
            )),
            None => out.push(WorkflowProblem::error(
                1,
                1,
                "frontmatter has no `type: workflow`",
            )),
        }
    }
    if w.steps.is_empty() {
        let (line, what) = match (&w.frontmatter, end) {
            (Some(_), Some(end)) => (end + 1, "the frontmatter is followed by no step"),
            _ => (1, "no workflow frontmatter (`type: workflow`) and no step"),
        };
        out.push(WorkflowProblem::error(
            line,
            1,
            format!(
                "{what}: a workflow needs at least one step, a `## Name @agent` heading \
                 (or a heading with a data-flow line such as `input → output`)"
            ),
        ));
    }
    out
}

/// The line (1-based) of the frontmatter's closing `---`.
fn frontmatter_end(text: &str) -> Option<usize> {
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    lines.position(|l| l.trim_end() == "---").map(|i| i + 2)
}

/// The first line (1-based) of the frontmatter that starts with `prefix`.
fn line_of(text: &str, prefix: &str) -> Option<usize> {
    let end = frontmatter_end(text)?;
    text.lines()
        .take(end)
        .position(|l| l.starts_with(prefix))
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_lines() {
        assert_eq!(frontmatter_end("---\ntype: x\n---\n# T\n"), Some(3));
        assert_eq!(frontmatter_end("# T\n"), None);
        assert_eq!(line_of("---\ntitle: a\ntype: s\n---\n", "type:"), Some(3));
    }

    #[test]
    fn a_workflow_needs_a_step() {
        let empty = Workflow::default();
        let p = document_problems(&empty, "# Readme\n\n## Install\n");
        assert_eq!(p.len(), 1);
        assert!(
            p[0].message.starts_with("no workflow frontmatter"),
            "{}",
            p[0].message
        );
    }
}
