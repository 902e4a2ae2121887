//! The protocol handler: tools listed and called, resources listed and
//! read, and the resource list's change notifications.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, Implementation, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;

use crate::tools::{self, RECORD};
use crate::watch::Watcher;
use crate::{Answer, Backend, Options, ToolError};

/// The server: one [`Backend`] shared by every call.
#[derive(Debug)]
pub struct CruServer<B> {
    backend: Arc<B>,
    options: Options,
    /// The server's one watcher, which this client joins once initialized.
    watcher: Arc<Watcher>,
}

impl<B> Clone for CruServer<B> {
    fn clone(&self) -> Self {
        Self {
            backend: Arc::clone(&self.backend),
            options: self.options,
            watcher: Arc::clone(&self.watcher),
        }
    }
}

impl<B: Backend> CruServer<B> {
    /// A server of its own, with its own watcher (started with
    /// [`CruServer::watch`]).
    pub fn new(backend: Arc<B>, options: Options) -> Self {
        Self {
            backend,
            options,
            watcher: Arc::default(),
        }
    }

    /// Another client's server, sharing this one's backend and watcher.
    #[must_use]
    pub fn for_another_client(&self) -> Self {
        self.clone()
    }

    /// Starts the watcher on the current runtime, when the options ask
    /// for one: a single task, whatever the number of clients.
    pub(crate) fn watch(&self) {
        if let Some(every) = self.options.poll {
            let watcher = Arc::clone(&self.watcher);
            tokio::spawn(watcher.run(Arc::clone(&self.backend), every));
        }
    }

    /// Runs `answer` on a blocking thread: the backend reads files, and
    /// the protocol's own loop must go on meanwhile (pings, cancellations,
    /// other clients over HTTP).
    async fn blocking<T: Send + 'static>(
        &self,
        answer: impl FnOnce(&B) -> T + Send + 'static,
    ) -> Result<T, McpError> {
        let backend = Arc::clone(&self.backend);
        tokio::task::spawn_blocking(move || answer(&backend))
            .await
            .map_err(|e| McpError::internal_error(format!("the tool call stopped: {e}"), None))
    }

    /// Parses the call's arguments, then answers them on a blocking thread.
    async fn answer<I: DeserializeOwned + Send + 'static>(
        &self,
        request: &CallToolRequestParams,
        answer: fn(&B, &I) -> Answer,
    ) -> Result<CallToolResult, McpError> {
        let input: I = arguments(request)?;
        let answered = self.blocking(move |b| answer(b, &input)).await?;
        Ok(match answered {
            Ok(value) => CallToolResult::structured(value),
            Err(e) => failed(&e),
        })
    }
}

/// The call's arguments as `I`; a wrong shape is the protocol's "invalid
/// params", naming the field.
fn arguments<I: DeserializeOwned>(request: &CallToolRequestParams) -> Result<I, McpError> {
    let args = serde_json::Value::Object(request.arguments.clone().unwrap_or_default());
    serde_json::from_value(args).map_err(|e| {
        McpError::invalid_params(format!("{}: invalid arguments: {e}", request.name), None)
    })
}

/// A failed call as the model reads it: the message, then the ids it may
/// have meant, one a line.
fn failed(e: &ToolError) -> CallToolResult {
    let mut text = e.message.clone();
    if !e.candidates.is_empty() {
        text.push_str("\n\nDid you mean one of these ids?\n");
        for c in &e.candidates {
            text.push_str(&format!("- {c}\n"));
        }
    }
    CallToolResult::error(vec![ContentBlock::text(text)])
}

impl<B: Backend> ServerHandler for CruServer<B> {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources();
        // Promised only when it is kept: `--poll 0` never checks.
        let capabilities = if self.options.poll.is_some() {
            capabilities.enable_resources_list_changed().build()
        } else {
            capabilities.build()
        };
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("cru", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "cru keeps AI-agent sessions as markdown. Before a task, search_sessions \
                 for what was done and decided before; resume_context goes on from a \
                 paused session; record logs what you do (start, then phase, tool, \
                 decision, error, user, pause, end).",
            )
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        Err(crate::refusal::unrecognised(
            &request.method,
            request.params.as_ref(),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::all(
            self.options.read_only,
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let result = match request.name.as_ref() {
            tools::LIST_SESSIONS => self.answer(&request, B::list_sessions).await,
            tools::SHOW_SESSION => self.answer(&request, B::show_session).await,
            tools::SESSION_STATS => self.answer(&request, B::session_stats).await,
            tools::SEARCH_SESSIONS => self.answer(&request, B::search_sessions).await,
            tools::RESUME_CONTEXT => self.answer(&request, B::resume_context).await,
            tools::CODIFY_SESSION => self.answer(&request, B::codify_session).await,
            tools::LEARNING_CASES => self.answer(&request, B::learning_cases).await,
            RECORD if !self.options.read_only => match record_strays(&request) {
                Some(e) => Err(e),
                None => self.answer(&request, B::record).await,
            },
            other => Err(unknown_tool(other, self.options.read_only)),
        };
        result.map(CallToolResponse::from)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let cursor = request.and_then(|r| r.cursor);
        self.blocking(move |b| crate::resources::list(b, cursor.as_deref()))
            .await?
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(crate::resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let read = self
            .blocking(move |b| crate::resources::read(b, &request.uri))
            .await?;
        read.map(ReadResourceResponse::from)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if self.options.poll.is_some() {
            self.watcher.add(context.peer);
        }
    }
}

/// The protocol's "invalid params" for a `record` call with fields its
/// event does not take, naming them and those it does.
fn record_strays(request: &CallToolRequestParams) -> Option<McpError> {
    let arguments = request.arguments.as_ref()?;
    let event: tools::RecordEvent = serde_json::from_value(arguments.get("event")?.clone()).ok()?;
    let strays = tools::stray_fields(event, arguments);
    (!strays.is_empty()).then(|| {
        McpError::invalid_params(
            format!(
                "record: `{}` does not take {}; its fields are: {}",
                event.name(),
                strays
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                event.fields().join(", ")
            ),
            None,
        )
    })
}

/// A tool this server does not have: the protocol's "invalid params", with
/// the names it has (and why `record` is missing, when it is).
fn unknown_tool(name: &str, read_only: bool) -> McpError {
    let names: Vec<String> = tools::all(read_only)
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    let why = if read_only && name == RECORD {
        " (the server runs with --read-only)"
    } else {
        ""
    };
    McpError::invalid_params(
        format!(
            "unknown tool `{name}`{why}; the tools are: {}",
            names.join(", ")
        ),
        None,
    )
}
