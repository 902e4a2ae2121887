//! The resources: every session as `cru://session/<id>` and every
//! workflow as `cru://workflow/<name>`, in markdown; and the notification
//! that their list changed.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ReadResourceResult, Resource, ResourceContents};
use rmcp::service::Peer;
use rmcp::{ErrorData as McpError, RoleServer};

use crate::{Backend, ToolError};

const SESSION: &str = "cru://session/";
const WORKFLOW: &str = "cru://workflow/";
const MARKDOWN: &str = "text/markdown";

/// Every session, then every workflow.
pub(crate) fn list<B: Backend>(backend: &B) -> Result<Vec<Resource>, McpError> {
    let sessions = backend.sessions().map_err(internal)?;
    let workflows = backend.workflows().map_err(internal)?;
    let sessions = sessions.into_iter().map(|s| {
        let r = Resource::new(format!("{SESSION}{}", s.id), s.id).with_mime_type(MARKDOWN);
        match s.title {
            Some(t) => r.with_title(t),
            None => r,
        }
    });
    let workflows = workflows.into_iter().map(|w| {
        let r = Resource::new(format!("{WORKFLOW}{}", w.name), w.name).with_mime_type(MARKDOWN);
        match w.title {
            Some(t) => r.with_title(t),
            None => r,
        }
    });
    Ok(sessions.chain(workflows).collect())
}

/// The markdown behind `uri`; an unknown one is the protocol's "resource
/// not found", naming the ids it may have meant.
pub(crate) fn read<B: Backend>(backend: &B, uri: &str) -> Result<ReadResourceResult, McpError> {
    let text = if let Some(id) = uri.strip_prefix(SESSION) {
        backend.session_markdown(id)
    } else if let Some(name) = uri.strip_prefix(WORKFLOW) {
        backend.workflow_markdown(name)
    } else {
        return Err(McpError::resource_not_found(
            format!("`{uri}` is not a cru resource: expected {SESSION}<id> or {WORKFLOW}<name>"),
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

/// Tells the client whenever the sessions or workflows change, checking
/// every `every`, until it goes away.
pub(crate) async fn watch<B: Backend>(backend: Arc<B>, peer: Peer<RoleServer>, every: Duration) {
    let fingerprint = |b: Arc<B>| async move {
        tokio::task::spawn_blocking(move || b.fingerprint())
            .await
            .ok()
    };
    let mut last = fingerprint(Arc::clone(&backend)).await;
    loop {
        tokio::time::sleep(every).await;
        let now = fingerprint(Arc::clone(&backend)).await;
        if now != last {
            last = now;
            if peer.notify_resource_list_changed().await.is_err() {
                // The client is gone: nobody to tell.
                return;
            }
        }
    }
}
