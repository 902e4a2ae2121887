//! The resources: every session as `cru://session/<id>` and every
//! workflow as `cru://workflow/<name>`, in markdown, a page at a time; the
//! templates that name any of them; and the notification that their list
//! changed.

use rmcp::ErrorData as McpError;
use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate,
};

use crate::uri::{percent_decode, percent_encode};
use crate::{Backend, ToolError};

pub(crate) const SESSION: &str = "cru://session/";
pub(crate) const WORKFLOW: &str = "cru://workflow/";
const MARKDOWN: &str = "text/markdown";

/// Resources in one answer of `resources/list`: a client that wants them
/// all follows `nextCursor`, and a directory of 100,000 sessions is not
/// one 17 MB message.
pub const RESOURCES_PAGE: usize = 500;

/// One page of every session, then every workflow, from the offset the
/// cursor gives (the `nextCursor` of the page before).
pub(crate) fn list<B: Backend>(
    backend: &B,
    cursor: Option<&str>,
) -> Result<ListResourcesResult, McpError> {
    let from = match cursor {
        None => 0,
        Some(c) => c.parse::<usize>().map_err(|_| {
            McpError::invalid_params(
                format!("cursor `{c}` is not one this server gave (a nextCursor)"),
                None,
            )
        })?,
    };
    let sessions = backend.sessions().map_err(internal)?;
    let workflows = backend.workflows().map_err(internal)?;
    let sessions = sessions.into_iter().map(|s| {
        let r = Resource::new(format!("{SESSION}{}", percent_encode(&s.id)), s.id)
            .with_mime_type(MARKDOWN);
        let r = match s.note {
            Some(n) => r.with_description(n),
            None => r,
        };
        match s.title {
            Some(t) => r.with_title(t),
            None => r,
        }
    });
    let workflows = workflows.into_iter().map(|w| {
        let r = Resource::new(format!("{WORKFLOW}{}", percent_encode(&w.name)), w.name)
            .with_mime_type(MARKDOWN);
        match w.title {
            Some(t) => r.with_title(t),
            None => r,
        }
    });
    let mut all = sessions.chain(workflows).skip(from);
    let page: Vec<Resource> = all.by_ref().take(RESOURCES_PAGE).collect();
    let more = all.next().is_some();
    let mut result = ListResourcesResult::with_all_items(page);
    if more {
        result.next_cursor = Some((from + RESOURCES_PAGE).to_string());
    }
    Ok(result)
}

/// The forms of every resource URI, for a client to fill in an id it
/// learnt elsewhere (from `list_sessions`, say).
pub(crate) fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new(format!("{SESSION}{{id}}"), "session")
            .with_title("A session as markdown")
            .with_description(
                "A session's markdown, as `cru session show ID --format markdown` prints it; \
                 `id` is a session id, a unique prefix of one, or the `path` list_sessions answers.",
            )
            .with_mime_type(MARKDOWN),
        ResourceTemplate::new(format!("{WORKFLOW}{{id}}"), "workflow")
            .with_title("A session as a workflow")
            .with_description(
                "A session codified as a workflow's markup, as `cru session codify ID` writes it.",
            )
            .with_mime_type(MARKDOWN),
    ])
}

/// The markdown behind `uri`; an unknown one is the protocol's "resource
/// not found", naming the ids it may have meant.
pub(crate) fn read<B: Backend>(backend: &B, uri: &str) -> Result<ReadResourceResult, McpError> {
    let text = if let Some(id) = uri.strip_prefix(SESSION) {
        backend.session_markdown(&percent_decode(id))
    } else if let Some(name) = uri.strip_prefix(WORKFLOW) {
        backend.workflow_markdown(&percent_decode(name))
    } else {
        return Err(McpError::resource_not_found(
            format!("`{uri}` is not a cru resource: expected {SESSION}<id> or {WORKFLOW}<id>"),
            None,
        ));
    };
    let text = text.map_err(|e| {
        let data =
            (!e.candidates.is_empty()).then(|| serde_json::json!({"candidates": e.candidates}));
        McpError::resource_not_found(e.message, data)
    })?;
    let contents = ResourceContents::text(text, uri).with_mime_type(MARKDOWN);
    Ok(ReadResourceResult::new(vec![contents]))
}

fn internal(e: ToolError) -> McpError {
    McpError::internal_error(e.message, None)
}
