//! The refine stage (seed 004: extracted, then refined by an agent, then
//! reviewed by a person): the prompt that asks an agent to refine a
//! workflow ([`prompt`]), and the checks its reply must pass before it
//! replaces the workflow ([`accept`]). Asking the agent is the caller's
//! part, so this crate needs no agent backend.

use crucible_core::workflow::{ExecutionRow, Severity};
use crucible_parser::workflow::{CheckedWorkflow, check_workflow};
use serde_json::{Value, json};

/// What the agent is asked to do with a workflow.
const REFINE_INSTRUCTIONS: &str = "\
You are refining a workflow document written in cru's workflow markup:
- every step is a heading `## Step Name @agent #channel`, with a trailing `!` for a \
critical step (its failure halts a run) or `?` for an optional one; deeper headings \
(`###`) are child steps;
- data-flow lines inside a step read `input::Type → output::Type` (several names are \
separated by commas; types are optional);
- conditional flow is written `If <condition> → proceed to <Step Name>` and \
`Otherwise → <Step Name>`, naming existing steps;
- fenced `session-toon` blocks hold the execution history: keep every block and row \
exactly as it is.

Clean up the steps (clear names, one purpose each), add missing type annotations, \
and make conditional flows explicit where the notes imply them. Do not invent steps \
the session did not do, and keep the graph free of cycles.

Reply with the complete workflow document and nothing else, inside one ```markdown \
fenced block.";

/// What an agent is asked, in the two forms backends take.
#[derive(Debug, Clone, PartialEq)]
pub struct RefinePrompt {
    /// The whole request as one text (for a command on stdin).
    pub prompt: String,
    /// The same as chat messages (a system line, then the prompt).
    pub messages: Vec<Value>,
}

/// The request to refine `workflow` (with the session it came from, when
/// there is one), redacted: it leaves the machine, and a workflow file or
/// a session may hold a key whatever the command redacted before.
pub fn prompt(workflow: &str, session_markdown: Option<&str>) -> RefinePrompt {
    let mut prompt = format!("{REFINE_INSTRUCTIONS}\n\n");
    if let Some(s) = session_markdown {
        prompt.push_str("## The session it was codified from\n\n````markdown\n");
        prompt.push_str(s.trim_end());
        prompt.push_str("\n````\n\n");
    }
    prompt.push_str("## The workflow to refine\n\n````markdown\n");
    prompt.push_str(workflow.trim_end());
    prompt.push_str("\n````\n");
    let prompt = crucible_redact::Redactor::shared()
        .redact(&prompt)
        .into_owned();
    let messages = vec![
        json!({"role": "system", "content": "You edit workflow documents precisely and reply with the document only."}),
        json!({"role": "user", "content": prompt}),
    ];
    RefinePrompt { prompt, messages }
}

/// What came of asking the agent to refine a workflow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refined {
    /// The refined document: it validates and keeps every step's provenance.
    Accepted(String),
    /// The agent's reply, and why it cannot replace the workflow.
    Rejected { reply: String, reasons: Vec<String> },
}

/// Checks the agent's `reply` against `workflow`: the document in it must
/// validate and keep every execution row and every step of `workflow`.
pub fn accept(workflow: &str, reply: &str) -> Refined {
    let text = document_of(reply);
    let reasons = lost_in_refining(
        &check_document(workflow.as_bytes()),
        &check_document(text.as_bytes()),
    );
    if reasons.is_empty() {
        Refined::Accepted(text)
    } else {
        Refined::Rejected {
            reply: reply.to_owned(),
            reasons,
        }
    }
}

/// Reads and links a workflow document, and checks that it is one at all
/// (workflow frontmatter or a step): every reader of a workflow the user
/// gives goes through here.
pub fn check_document(bytes: &[u8]) -> CheckedWorkflow {
    let mut checked = check_workflow(bytes);
    let text = String::from_utf8_lossy(bytes);
    let missing = crucible_core::workflow::document_problems(&checked.workflow, &text);
    if !missing.is_empty() {
        checked.problems.extend(missing);
        checked.problems.sort_by_key(|p| (p.line, p.column));
    }
    checked
}

/// Why `refined` cannot replace `original`: its errors (`(reply):line:col:
/// ...`), no step, fewer steps, or execution rows (the provenance of each
/// step: which session, which phases) that are gone or changed.
fn lost_in_refining(original: &CheckedWorkflow, refined: &CheckedWorkflow) -> Vec<String> {
    let mut reasons: Vec<String> = refined
        .problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .map(|p| format!("(reply):{p}"))
        .collect();
    let (before, after) = (&original.workflow.steps, &refined.workflow.steps);
    if !after.is_empty() && after.len() < before.len() {
        reasons.push(format!(
            "it has {} steps where the workflow has {}: a step was dropped",
            after.len(),
            before.len()
        ));
    }
    let kept: Vec<&ExecutionRow> = after
        .iter()
        .flat_map(crucible_core::workflow::Step::rows)
        .collect();
    for step in before {
        let lost = step
            .rows()
            .filter(|r| !kept.iter().any(|k| k.values == r.values))
            .count();
        if lost > 0 {
            reasons.push(format!(
                "the execution history of step `{}` ({lost} of its session-toon rows) is gone or changed",
                step.name
            ));
        }
    }
    reasons
}

/// The document in a reply: the longest fenced `markdown`/`md` block, else
/// the whole reply.
fn document_of(reply: &str) -> String {
    let mut best: Option<String> = None;
    let lines: Vec<&str> = reply.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim_start();
        let ticks = l.chars().take_while(|&c| c == '`').count();
        let info = l[ticks..].trim();
        if ticks >= 3 && matches!(info, "markdown" | "md") {
            let fence = &l[..ticks];
            let start = i + 1;
            let mut end = start;
            // The document has fenced blocks of its own (`session-toon`):
            // a fence with an info string opens one, a bare fence closes
            // it, and only a bare fence outside them closes the reply's.
            let mut nested = false;
            while end < lines.len() {
                let t = lines[end].trim();
                if t.starts_with("```") && !t.trim_start_matches('`').trim().is_empty() {
                    nested = true;
                } else if t == fence && !nested {
                    break;
                } else if t.starts_with("```") && t.trim_start_matches('`').is_empty() {
                    nested = false;
                }
                end += 1;
            }
            let block = lines[start..end.min(lines.len())].join("\n");
            if best.as_ref().is_none_or(|b| block.len() > b.len()) {
                best = Some(block);
            }
            i = end + 1;
            continue;
        }
        i += 1;
    }
    let mut doc = best.unwrap_or_else(|| reply.trim().to_owned());
    doc.push('\n');
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORKFLOW: &str = "\
# Fix

## Find @a #main

Look.

```session-toon
execution[1]{phase,status}:
  phase-1,success
```

## Fix @a #main

Change it.
";

    #[test]
    fn the_document_is_the_longest_markdown_block() {
        let reply = "Here you go:\n\n```markdown\n# W\n\n## A @x\na -> b\n```\n\nDone.";
        assert_eq!(document_of(reply), "# W\n\n## A @x\na -> b\n");
        assert_eq!(document_of("## A @x\n"), "## A @x\n");
        let nested = "```markdown\n## A @x\n```session-toon\nexecution[0]{phase,status}:\n```\n\n## B @y\n```\nDone.";
        assert!(
            document_of(nested).contains("## B @y"),
            "{}",
            document_of(nested)
        );
    }

    #[test]
    fn the_prompt_holds_the_workflow_and_the_session_redacted() {
        let p = prompt(
            WORKFLOW,
            Some("# S\n\nkey sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789\n"),
        );
        assert!(p.prompt.starts_with(REFINE_INSTRUCTIONS));
        assert!(p.prompt.contains("## The session it was codified from"));
        assert!(p.prompt.contains("## Find @a #main"));
        assert!(
            !p.prompt.contains("abcdefghijklmnopqrstuvwxyz0123456789"),
            "{}",
            p.prompt
        );
        assert_eq!(p.messages.len(), 2);
        assert_eq!(p.messages[1]["content"], p.prompt.as_str());
        assert!(!prompt(WORKFLOW, None).prompt.contains("codified from"));
    }

    #[test]
    fn a_reply_that_keeps_every_step_and_row_is_accepted() {
        let renamed = WORKFLOW.replace("Look.", "Find the line.");
        let reply = format!("Sure:\n\n````markdown\n{renamed}````\n");
        assert_eq!(accept(WORKFLOW, &reply), Refined::Accepted(renamed));
    }

    #[test]
    fn a_reply_that_drops_a_step_or_a_row_is_rejected_with_why() {
        let dropped = WORKFLOW.replace("## Fix @a #main\n\nChange it.\n", "");
        let Refined::Rejected { reasons, .. } = accept(WORKFLOW, &dropped) else {
            panic!("a dropped step was accepted");
        };
        assert!(
            reasons.iter().any(|r| r.contains("a step was dropped")),
            "{reasons:?}"
        );
        let no_rows = WORKFLOW.replace("  phase-1,success\n", "");
        let Refined::Rejected { reasons, .. } = accept(WORKFLOW, &no_rows) else {
            panic!("a lost execution row was accepted");
        };
        assert!(
            reasons
                .iter()
                .any(|r| r.contains("execution history of step `Find`")),
            "{reasons:?}"
        );
    }
}
