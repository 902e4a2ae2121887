//! cru as a Model Context Protocol server: the tools and resources an agent
//! calls to read its own history and record what it does.
//!
//! The protocol is the official SDK's (`rmcp`); this crate says which tools
//! there are ([`tools`]), what their inputs are called (the CLI's names:
//! `id`, `status`, `agent`, `since`, ...), and how a failure reaches the
//! model. The answers themselves come from a [`Backend`], which the `cru`
//! binary implements with the same code that prints `--format json`: a tool
//! and its command cannot drift apart. The backend is called on a blocking
//! thread and stays alive between calls, so a call costs the command's work
//! without the process start.
//!
//! Nothing here prints: the protocol owns stdout, and logs go through
//! `tracing` to wherever the binary sends them.

mod http;
mod outputs;
mod refusal;
mod resources;
mod scan;
mod server;
mod stdio;
pub mod tools;
pub mod uri;
mod watch;

use std::sync::Arc;

pub use http::{HttpOptions, serve_http};
pub use resources::RESOURCES_PAGE;
pub use server::CruServer;
pub use tools::{
    CodifyInput, Filters, LearnInput, ListInput, RecordEvent, RecordInput, ResumeInput,
    SearchInput, ShowInput, StatsInput,
};

/// A tool call that could not be answered, as the model will read it: what
/// went wrong, and the ids it may have meant (the candidates of an
/// ambiguous prefix, the nearest ids to an unknown one).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    pub message: String,
    pub candidates: Vec<String>,
}

impl ToolError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            candidates: Vec::new(),
        }
    }

    #[must_use]
    pub fn with_candidates(mut self, candidates: Vec<String>) -> Self {
        self.candidates = candidates;
        self
    }
}

/// A JSON answer, `{"version": 1, ...}` as the matching CLI command prints it.
pub type Answer = Result<serde_json::Value, ToolError>;

/// One session as a resource: its id and what to call it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionEntry {
    pub id: String,
    pub title: Option<String>,
    /// Said of it beside its title: that more than one file declares its id.
    pub note: Option<String>,
}

/// One workflow as a resource: its name and its markup's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkflowEntry {
    pub name: String,
    pub title: Option<String>,
}

/// What the server asks of the program that runs it. Every method is
/// called on a blocking thread; one backend serves every call, so it may
/// keep the store and the index open between them.
pub trait Backend: Send + Sync + 'static {
    fn list_sessions(&self, input: &ListInput) -> Answer;
    fn show_session(&self, input: &ShowInput) -> Answer;
    fn session_stats(&self, input: &StatsInput) -> Answer;
    fn search_sessions(&self, input: &SearchInput) -> Answer;
    fn resume_context(&self, input: &ResumeInput) -> Answer;
    fn record(&self, input: &RecordInput) -> Answer;
    fn codify_session(&self, input: &CodifyInput) -> Answer;
    fn learning_cases(&self, input: &LearnInput) -> Answer;
    /// Every session, for the resource list.
    fn sessions(&self) -> Result<Vec<SessionEntry>, ToolError>;
    /// A session's canonical markdown (`cru session show ID --format markdown`).
    fn session_markdown(&self, id: &str) -> Result<String, ToolError>;
    /// Every workflow, for the resource list.
    fn workflows(&self) -> Result<Vec<WorkflowEntry>, ToolError>;
    /// A workflow's markup.
    fn workflow_markdown(&self, name: &str) -> Result<String, ToolError>;
    /// Changes whenever a session or workflow is added, removed or
    /// rewritten: the server polls it to tell clients their resource list
    /// changed.
    fn fingerprint(&self) -> u64;
}

/// How the server runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// No tool that writes is listed or callable (`record`).
    pub read_only: bool,
    /// How often the sessions are checked for changes, for the resource
    /// list's notifications; `None` checks never.
    pub poll: Option<std::time::Duration>,
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("{0} is not a loopback address: pass --allow-remote to serve other machines")]
    Remote(std::net::SocketAddr),
    #[error("cannot listen on {0}: {1}")]
    Bind(std::net::SocketAddr, std::io::Error),
    #[error("the MCP session could not start: {0}")]
    Start(String),
    #[error("the MCP session ended with an error: {0}")]
    Run(String),
}

/// Serves one client on stdin/stdout until it disconnects.
pub fn serve_stdio<B: Backend>(backend: B, options: Options) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    let served = runtime.block_on(async move {
        use rmcp::ServiceExt as _;
        let server = CruServer::new(Arc::new(backend), options);
        server.watch();
        let running = server
            .serve(stdio::LineTransport::from(rmcp::transport::stdio_pipes()))
            .await
            .map_err(|e| ServeError::Start(e.to_string()))?;
        running
            .waiting()
            .await
            .map(drop)
            .map_err(|e| ServeError::Run(e.to_string()))
    });
    // The client is gone (stdin closed): a call still working on the
    // blocking pool has nobody to answer, and must not keep the process
    // alive (an agent restarting its server would have two at once).
    runtime.shutdown_background();
    served
}
