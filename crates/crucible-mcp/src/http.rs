//! The streamable HTTP transport: `POST /mcp`, one server per client
//! session, every session sharing the one backend.
//!
//! The protocol's security notes ask a local server to bind to loopback
//! and to check `Origin` (a web page must not drive it through the user's
//! browser): other hosts are refused unless asked for, a `Host` that is not
//! the server's is refused (DNS rebinding), and so is an `Origin` that is
//! not a page on this machine (403).

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::{Backend, CruServer, Options, ServeError};

/// Where the server listens, and whether a non-loopback address is allowed.
#[derive(Debug, Clone, Copy)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    pub allow_remote: bool,
}

/// The browser origins that may call: pages served from this machine.
const LOCAL_ORIGINS: [&str; 3] = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// Serves `POST http://ADDR/mcp` until the process ends; `bound` is told
/// the address once it listens (port 0 picks a free one).
pub fn serve_http<B: Backend>(
    backend: B,
    options: Options,
    http: HttpOptions,
    bound: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    if !http.addr.ip().is_loopback() && !http.allow_remote {
        return Err(ServeError::Remote(http.addr));
    }
    // One thread for the protocol: every tool call runs on the blocking
    // pool, so clients at once wait on their files, not on each other.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(http.addr)
            .await
            .map_err(|e| ServeError::Bind(http.addr, e))?;
        let addr = listener
            .local_addr()
            .map_err(|e| ServeError::Bind(http.addr, e))?;
        // The loopback names, and the address itself: any of 127.0.0.0/8
        // may be the one served, and a client names it as it was given.
        let ip = addr.ip().to_string();
        let mut hosts = vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "::1".to_owned(),
        ];
        if !hosts.contains(&ip) {
            hosts.push(ip);
        }
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(hosts)
            .with_allowed_origins(LOCAL_ORIGINS)
            .enforce_origin_validation();
        if http.allow_remote {
            // Clients elsewhere name this machine as they know it.
            config = config.disable_allowed_hosts();
        }
        let server = CruServer::new(Arc::new(backend), options);
        server.watch();
        let service = StreamableHttpService::new(
            move || Ok(server.for_another_client()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        bound(addr);
        axum::serve(listener, router)
            .await
            .map_err(|e| ServeError::Run(e.to_string()))
    })
}
