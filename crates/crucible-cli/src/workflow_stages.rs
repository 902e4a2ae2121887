//! The later stages a workflow goes through after extraction (seed 004:
//! extracted, then refined by an agent, then reviewed by a person), shared
//! by `cru session codify --refine/--interactive` and `cru workflow
//! refine/edit`; and writing the result without clobbering a file.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use crucible_agent::AgentRequest;
use crucible_parser::workflow::CheckedWorkflow;
use serde_json::json;

use crate::agent_backend;
use crate::commands::workflow::check;
use crate::context::Context;
use crate::error::CliError;

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

/// What came of asking the agent to refine a workflow.
#[derive(Debug)]
pub enum Refined {
    /// The refined document: it validates and keeps every step's provenance.
    Accepted(String),
    /// The agent's reply, and why it cannot replace the workflow.
    Rejected { reply: String, reasons: Vec<String> },
}

/// Asks the agent backend to refine `workflow` (with the session it came
/// from, when there is one), and checks the reply: it must validate and
/// keep every execution row and every step of `workflow`.
pub fn refine(
    ctx: &Context,
    agent_cmd: Option<&str>,
    workflow: &str,
    session_markdown: Option<&str>,
) -> Result<Refined, CliError> {
    let backend = agent_backend::configured(ctx, agent_cmd)?.ok_or_else(|| {
        CliError::new("refining needs an agent backend").with_hint(agent_backend::SETUP_HINT)
    })?;
    let mut prompt = format!("{REFINE_INSTRUCTIONS}\n\n");
    if let Some(s) = session_markdown {
        prompt.push_str("## The session it was codified from\n\n````markdown\n");
        prompt.push_str(s.trim_end());
        prompt.push_str("\n````\n\n");
    }
    prompt.push_str("## The workflow to refine\n\n````markdown\n");
    prompt.push_str(workflow.trim_end());
    prompt.push_str("\n````\n");
    // The prompt leaves the machine: a workflow file or a session may hold
    // a key whatever the command redacted before.
    let prompt = crucible_redact::Redactor::shared()
        .redact(&prompt)
        .into_owned();
    let messages = vec![
        json!({"role": "system", "content": "You edit workflow documents precisely and reply with the document only."}),
        json!({"role": "user", "content": prompt}),
    ];
    eprintln!("asking {} to refine the workflow…", backend.describe());
    let reply = backend
        .complete(&AgentRequest {
            prompt: &prompt,
            messages: &messages,
        })
        .map_err(|e| CliError::new(format!("refining failed: {e}")))?;
    let text = document_of(&reply.text);
    let reasons = lost_in_refining(&check(workflow.as_bytes()), &check(text.as_bytes()));
    if reasons.is_empty() {
        Ok(Refined::Accepted(text))
    } else {
        Ok(Refined::Rejected {
            reply: reply.text,
            reasons,
        })
    }
}

/// Why `refined` cannot replace `original`: its errors (`(reply):line:col:
/// ...`), no step, fewer steps, or execution rows (the provenance of each
/// step: which session, which phases) that are gone or changed.
fn lost_in_refining(original: &CheckedWorkflow, refined: &CheckedWorkflow) -> Vec<String> {
    let mut reasons: Vec<String> = refined
        .problems
        .iter()
        .filter(|p| p.severity == crucible_core::workflow::Severity::Error)
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
    let kept: Vec<&crucible_core::workflow::ExecutionRow> =
        after.iter().flat_map(|s| s.rows()).collect();
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

/// Saves a rejected reply beside `beside` as `<stem>.refine-rejected.md`
/// and says why it was rejected; returns where it went.
pub fn save_rejected(beside: &Path, reply: &str, reasons: &[String]) -> Result<PathBuf, CliError> {
    let path = crucible_core::store::names::refine_rejected(beside);
    write_file(&path, reply, true)?;
    eprintln!("the refined workflow is not used:");
    for r in reasons {
        eprintln!("  {r}");
    }
    eprintln!("the agent's reply is saved in {}", path.display());
    Ok(path)
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

/// The comment put on top of a workflow reopened with its errors.
const ERRORS_OPEN: &str = "<!-- cru: this workflow is not valid yet. Fix these and save; \
     empty the file to give up. (Line numbers count from the top of the file.)";

/// Opens `text` in `$VISUAL`/`$EDITOR`, validates it on save and reopens it
/// with the errors on top while it is invalid. `Some(valid text)` when the
/// person saved a valid workflow; `None` when they emptied the file. With
/// neither variable set, shows it in `$PAGER` (or prints it) and returns it
/// unchanged.
pub fn review(text: &str, label: &str) -> Result<Option<String>, CliError> {
    let editor = std::env::var("VISUAL")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .or_else(|| {
            std::env::var("EDITOR")
                .ok()
                .filter(|v| !v.trim().is_empty())
        });
    let Some(editor) = editor else {
        // On a terminal the person reads it in a pager; elsewhere the
        // output itself is the copy to read.
        if std::io::stdout().is_terminal() {
            page(text);
        }
        eprintln!("(no $VISUAL or $EDITOR is set: the workflow was shown, not edited)");
        return Ok(Some(text.to_owned()));
    };
    let dir = tempfile::tempdir()
        .map_err(|e| CliError::new(format!("cannot make a temporary file: {e}")))?;
    let name = Path::new(label).file_name().map_or_else(
        || "workflow.md".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let path = dir.path().join(if name.ends_with(".md") {
        name
    } else {
        format!("{name}.md")
    });
    let mut current = text.to_owned();
    let mut header = String::new();
    loop {
        let shown = format!("{header}{current}");
        std::fs::write(&path, &shown)
            .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{editor} \"$1\""))
            .arg("sh")
            .arg(&path)
            .status()
            .map_err(|e| CliError::new(format!("cannot run the editor `{editor}`: {e}")))?;
        if !status.success() {
            return Err(CliError::new(format!(
                "the editor `{editor}` exited with {status}; nothing saved"
            )));
        }
        let edited = std::fs::read_to_string(&path)
            .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
        let body = strip_errors(&edited);
        if body.trim().is_empty() {
            eprintln!("the workflow was emptied: nothing saved");
            return Ok(None);
        }
        let checked = check(body.as_bytes());
        if !checked.has_errors() {
            return Ok(Some(body));
        }
        if edited == shown {
            return Err(CliError::new(format!(
                "{label} was saved unchanged and is still not valid; nothing saved"
            )));
        }
        header = errors_header(&checked);
        current = body;
    }
}

fn errors_header(checked: &CheckedWorkflow) -> String {
    let lines: Vec<&crucible_core::workflow::WorkflowProblem> = checked
        .problems
        .iter()
        .filter(|p| p.severity == crucible_core::workflow::Severity::Error)
        .collect();
    // The comment's own lines shift the document's: count them in.
    let shift = lines.len() + 2;
    let mut h = format!("{ERRORS_OPEN}\n");
    for p in lines {
        h.push_str(&format!(
            "  line {}, column {}: {}\n",
            p.line + shift,
            p.column,
            p.message
        ));
    }
    h.push_str("-->\n");
    h
}

/// The document without the errors comment cru put on top.
fn strip_errors(text: &str) -> String {
    match text.strip_prefix(ERRORS_OPEN) {
        Some(rest) => match rest.find("-->\n") {
            Some(end) => rest[end + 4..].to_owned(),
            None => rest.to_owned(),
        },
        None => text.to_owned(),
    }
}

/// Shows `text` in `$PAGER` (default `less`); printed when no pager runs.
fn page(text: &str) {
    let pager = std::env::var("PAGER").unwrap_or_else(|_| "less".into());
    let child = std::process::Command::new("sh")
        .arg("-c")
        .arg(&pager)
        .stdin(std::process::Stdio::piped())
        .spawn();
    match child {
        Ok(mut child) => {
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(text.as_bytes());
            }
            let _ = child.wait();
        }
        Err(_) => {
            let _ = std::io::stdout().write_all(text.as_bytes());
        }
    }
}

/// Writes `text` to `path` atomically; an existing file only when
/// `overwrite` (else an error with the hint to pass --force).
pub fn write_file(path: &Path, text: &str, overwrite: bool) -> Result<(), CliError> {
    let io = |e: std::io::Error| CliError::new(format!("{}: cannot write: {e}", path.display()));
    if overwrite {
        crucible_core::store::atomic::write_atomic(path, text.as_bytes()).map_err(io)
    } else {
        crucible_core::store::atomic::create_atomic(path, text.as_bytes()).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                CliError::new(format!("{} exists already", path.display()))
                    .with_hint("pass --force to replace it")
            } else {
                io(e)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_errors_comment_comes_off() {
        let c = check(b"## A @x\nIf x -> proceed to Nowhere\n");
        let h = errors_header(&c);
        assert!(h.contains("line 5, column"), "{h}");
        assert_eq!(strip_errors(&format!("{h}## A @x\n")), "## A @x\n");
    }
}
