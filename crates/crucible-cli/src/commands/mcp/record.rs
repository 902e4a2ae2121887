//! The `record` tool: the events of `cru session start`, `log`, `pause`
//! and `end`, through the same functions, so through the same store and
//! writer lock.

use crucible_core::AgentRef;
use crucible_mcp::{Answer, RecordEvent, RecordInput, ToolError};
use serde_json::json;

use super::backend::{CliBackend, failure};
use crate::commands::session::{end, log, pause, start};
use crate::error::CliError;
use crate::render::output;

/// A field the event needs.
fn required<'a>(value: Option<&'a String>, field: &str, event: &str) -> Result<&'a str, ToolError> {
    value
        .map(String::as_str)
        .ok_or_else(|| ToolError::new(format!("record {event}: `{field}` is missing")))
}

fn agent(typed: Option<&String>) -> Result<Option<AgentRef>, ToolError> {
    typed
        .map(|a| a.parse().map_err(|e| ToolError::new(format!("agent: {e}"))))
        .transpose()
}

pub fn record(backend: &CliBackend, input: &RecordInput) -> Answer {
    let ctx = &backend.writer;
    if input.event == RecordEvent::Start {
        let args = start::StartArgs {
            title: input.title.clone(),
            channel: input.channel.clone(),
            agent: agent(input.agent.as_ref())?,
            model: input.model.clone(),
            prompt: input.prompt.clone(),
            prompt_file: None,
            cwd: input.cwd.clone().map(Into::into),
            format: crate::commands::session::IdFormat::Json,
        };
        let (id, path) = start::start(ctx, &args).map_err(failure)?;
        return Ok(answer(&id, &path, "start"));
    }
    let event = input.event.name();
    let query = required(input.session.as_ref(), "session", event)?;
    // Found as `cru session log` finds it (the file named after the id
    // first), in the served directory only.
    let path = super::scope::resolve(&ctx.store, query)?;
    let session = path.display().to_string();
    match input.event {
        RecordEvent::Start => unreachable!("answered above"),
        RecordEvent::Pause => {
            let at = input
                .at
                .as_deref()
                .map(str::parse)
                .transpose()
                .map_err(|e| ToolError::new(format!("at: {e}")))?;
            pause::pause(ctx, &session, at).map_err(|e| in_tool_words(e.into()))?;
        }
        RecordEvent::End => {
            let status = match input.status.as_deref().unwrap_or("completed") {
                "completed" => end::EndStatus::Completed,
                "failed" => end::EndStatus::Failed,
                other => {
                    return Err(ToolError::new(format!(
                        "status: `{other}` is not one of completed, failed"
                    )));
                }
            };
            end::end(ctx, &session, status, input.summary.as_deref())
                .map_err(|e| in_tool_words(e.into()))?;
        }
        _ => {
            let args = log::LogArgs {
                session: Some(session),
                reopen: input.reopen,
                kind: log_kind(input, event)?,
            };
            log::log(ctx, &args, log::Stdin::Never).map_err(in_tool_words)?;
        }
    }
    // The id the file declares: an imported or renamed file is not named
    // after it.
    Ok(answer(&declared_id(ctx, &path), &path, event))
}

/// The id the file at `path` declares, from its head alone (`record` is
/// called once per event: the whole session is not parsed again for it);
/// its file name when the head cannot be read.
fn declared_id(ctx: &crate::context::Context, path: &std::path::Path) -> String {
    use crucible_core::SessionCodec as _;
    use std::io::Read as _;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| {
        f.take(crucible_core::store::HEAD_BYTES)
            .read_to_end(&mut head)
    });
    read.ok()
        .and_then(|_| ctx.store.codec().peek_id(&head))
        .unwrap_or_else(|| {
            path.file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
        })
}

/// A command's failure in the tool's words: the commands' hints name
/// their flags (`--reopen`, `cru session start`), which a model calling
/// `record` does not have.
fn in_tool_words(e: anyhow::Error) -> ToolError {
    let e = match e.downcast::<CliError>() {
        Ok(e) => e,
        Err(other) => return failure(other),
    };
    let reopen =
        e.message.contains("--reopen") || e.hint.as_deref().is_some_and(|h| h.contains("--reopen"));
    if !reopen {
        return failure(e.into());
    }
    let message = e.message.replace("--reopen", "`reopen: true`");
    let hint = if e.message.contains("already ended") {
        "to go on with it, `record` an event with `reopen: true` (the session becomes active \
         again), then `end` it again"
    } else {
        "pass `reopen: true` to go on with it (the session becomes active again), or \
         `record` `event: \"start\"` for a new session"
    };
    ToolError::new(format!("{message}\nhint: {hint}"))
}

fn answer(id: &str, path: &std::path::Path, event: &str) -> serde_json::Value {
    json!({
        "version": output::VERSION,
        "session": id,
        "path": path.display().to_string(),
        "event": event,
    })
}

/// The `cru session log` subcommand of a phase, tool, decision, error or
/// user event.
fn log_kind(input: &RecordInput, event: &str) -> Result<log::LogKind, ToolError> {
    let text = || required(input.text.as_ref(), "text", event).map(str::to_owned);
    Ok(match input.event {
        RecordEvent::Phase => log::LogKind::Phase {
            name: required(input.name.as_ref(), "name", event)?.to_owned(),
            agent: agent(input.agent.as_ref())?,
            channel: input.channel.clone(),
            nested: input.nested,
        },
        RecordEvent::Tool => log::LogKind::Tool {
            tool: required(input.tool.as_ref(), "tool", event)?.to_owned(),
            args: input.args.clone().unwrap_or_default(),
            result: input.result.clone(),
            failed: input.failed,
            exit_code: input.exit_code,
        },
        RecordEvent::Decision => log::LogKind::Decision { text: text()? },
        RecordEvent::Error => log::LogKind::Error {
            text: text()?,
            resolution: input.resolution.clone(),
        },
        RecordEvent::User => log::LogKind::User {
            // `text` too: a model may well call the user's words that.
            quote: input
                .quote
                .clone()
                .or_else(|| input.text.clone())
                .ok_or_else(|| ToolError::new("record user: `quote` is missing"))?,
            interpretation: input.interpretation.clone(),
        },
        RecordEvent::Start | RecordEvent::Pause | RecordEvent::End => {
            unreachable!("not a `cru session log` event")
        }
    })
}
