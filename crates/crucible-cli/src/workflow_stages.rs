//! The later stages a workflow goes through after extraction (seed 004:
//! extracted, then refined by an agent, then reviewed by a person), shared
//! by `cru session codify --refine/--interactive` and `cru workflow
//! refine/edit`; and writing the result without clobbering a file.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use crucible_agent::AgentRequest;
use crucible_codify::refine;
pub use crucible_codify::refine::Refined;
use crucible_parser::workflow::CheckedWorkflow;

use crate::agent_backend;
use crate::commands::workflow::check;
use crate::context::Context;
use crate::error::CliError;

/// Asks the agent backend to refine `workflow` (with the session it came
/// from, when there is one); `crucible_codify::refine` writes the prompt
/// and checks the reply.
pub fn refine(
    ctx: &Context,
    agent_cmd: Option<&str>,
    workflow: &str,
    session_markdown: Option<&str>,
) -> Result<Refined, CliError> {
    let backend = agent_backend::configured(ctx, agent_cmd)?.ok_or_else(|| {
        CliError::new("refining needs an agent backend").with_hint(agent_backend::SETUP_HINT)
    })?;
    let asked = refine::prompt(workflow, session_markdown);
    eprintln!("asking {} to refine the workflow…", backend.describe());
    let reply = backend
        .complete(&AgentRequest {
            prompt: &asked.prompt,
            messages: &asked.messages,
        })
        .map_err(|e| CliError::new(format!("refining failed: {e}")))?;
    Ok(refine::accept(workflow, &reply.text))
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
        crucible_core::store::atomic::write_output(path, text.as_bytes()).map_err(io)
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
    fn the_errors_comment_comes_off() {
        let c = check(b"## A @x\nIf x -> proceed to Nowhere\n");
        let h = errors_header(&c);
        assert!(h.contains("line 5, column"), "{h}");
        assert_eq!(strip_errors(&format!("{h}## A @x\n")), "## A @x\n");
    }
}
