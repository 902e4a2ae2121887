//! What makes a markdown document a workflow at all: workflow frontmatter
//! (`type: workflow`) or at least one step. Without this any README would
//! validate, since headings that are not steps are sections of prose.
//!
//! The lines it names come from the same frontmatter split and key finder as
//! the rest of the parser (`...` closes frontmatter, `type : x` is the `type`
//! line), so a problem points where the reading found it.

use crucible_core::workflow::{Workflow, WorkflowProblem};

use super::{CheckedWorkflow, check_workflow};

/// The problems that make `text` (parsed as `w`) no workflow: frontmatter
/// of another type, or no step.
pub fn document_problems(w: &Workflow, text: &str) -> Vec<WorkflowProblem> {
    let mut out = Vec::new();
    let decoded = crate::source::decode(text.as_bytes()).ok();
    let split = decoded
        .as_deref()
        .and_then(|t| crate::frontmatter::split(t).ok());
    if let Some(fm) = &w.frontmatter {
        match fm.get_str("type") {
            Some("workflow") => {}
            Some(other) => out.push(WorkflowProblem::error(
                split
                    .as_ref()
                    .map_or(1, |s| crate::frontmatter::key_line(s.yaml, "type")),
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
        let (line, what) = match (&w.frontmatter, &split) {
            // The body starts on the line after the closing `---`/`...`.
            (Some(_), Some(s)) => (s.body_line, "the frontmatter is followed by no step"),
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

/// Reads and links a workflow document, and checks that it is one at all
/// (workflow frontmatter or a step): every reader of a workflow the user
/// gives goes through here.
pub fn check_document(bytes: &[u8]) -> CheckedWorkflow {
    let mut checked = check_workflow(bytes);
    let text = String::from_utf8_lossy(bytes);
    let missing = document_problems(&checked.workflow, &text);
    if !missing.is_empty() {
        checked.problems.extend(missing);
        checked.problems.sort_by_key(|p| (p.line, p.column));
    }
    checked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workflow::parse_workflow;

    fn problems(text: &str) -> Vec<(usize, String)> {
        let w = parse_workflow(text.as_bytes()).workflow;
        document_problems(&w, text)
            .into_iter()
            .map(|p| (p.line, p.message))
            .collect()
    }

    #[test]
    fn a_workflow_needs_a_step() {
        let p = problems("# Readme\n\n## Install\n");
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].0, 1);
        assert!(p[0].1.starts_with("no workflow frontmatter"), "{}", p[0].1);
    }

    #[test]
    fn lines_are_found_as_the_parser_reads_the_frontmatter() {
        // `type : session` is the `type` line; `...` closes the frontmatter.
        let p = problems("---\ntitle: a\ntype : session\n...\n# T\n");
        assert_eq!(p[0].0, 3, "{p:?}");
        assert!(p[0].1.contains("`type: session`"), "{p:?}");
        assert_eq!(p[1].0, 5, "{p:?}");
        assert!(p[1].1.starts_with("the frontmatter is followed by no step"));
        // CRLF and a BOM change no line.
        let p = problems("\u{feff}---\r\ntype: workflow\r\n---\r\n# T\r\n");
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].0, 4, "{p:?}");
    }
}
