//! `cru mcp [--read-only]`: cru as a Model Context Protocol server on
//! stdio, for agents (docs/mcp.md). The protocol is crucible-mcp's; the
//! answers are the session commands' own ([`backend`]).

mod backend;
mod nearest;
mod record;
mod scope;

use std::time::Duration;

use clap::Args;

use crate::cli::GlobalArgs;
use crate::context::Context;
use crate::error::{CliError, Outcome};

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Offer no tool that writes (`record` is neither listed nor callable).
    #[arg(long)]
    pub read_only: bool,
    /// Check the sessions directory every SECS seconds, to tell the client
    /// when its list of sessions changed; 0 never checks.
    #[arg(long, value_name = "SECS", default_value_t = 5)]
    pub poll: u64,
    /// Serve over streamable HTTP at http://ADDR/mcp instead of stdio
    /// (a loopback address such as 127.0.0.1:8765 or localhost:8765; port 0 picks one).
    #[arg(long, value_name = "ADDR", value_parser = http_addr)]
    pub http: Option<std::net::SocketAddr>,
    /// With --http: allow an address other machines can reach (anyone who
    /// reaches it reads your sessions; nothing authenticates them).
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
}

/// `IP:PORT`, or `localhost:PORT` (what most MCP documents write) as
/// 127.0.0.1: the name is not looked up, so it cannot lead elsewhere.
fn http_addr(typed: &str) -> Result<std::net::SocketAddr, String> {
    let expected = "expected IP:PORT or localhost:PORT, such as 127.0.0.1:8765";
    if let Some(port) = typed
        .strip_prefix("localhost:")
        .or_else(|| typed.strip_prefix("LOCALHOST:"))
    {
        let port: u16 = port
            .parse()
            .map_err(|_| format!("`{port}` is not a port: {expected}"))?;
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    typed.parse().map_err(|_| expected.to_owned())
}

pub fn run(args: &McpArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let ctx = Context::load(global)?;
    let dir = ctx.store.dir().display().to_string();
    let mode = if args.read_only { " (read-only)" } else { "" };
    let options = crucible_mcp::Options {
        read_only: args.read_only,
        poll: (args.poll > 0).then(|| Duration::from_secs(args.poll)),
    };
    let backend = backend::CliBackend::new(ctx, Context::load(global)?);
    let served = match args.http {
        // stdout is the protocol's: a word for the person who started it
        // by hand goes to stderr.
        None => {
            eprintln!("cru mcp: serving {dir} over stdio{mode}");
            crucible_mcp::serve_stdio(backend, options)
        }
        Some(addr) => {
            let http = crucible_mcp::HttpOptions {
                addr,
                allow_remote: args.allow_remote,
            };
            crucible_mcp::serve_http(backend, options, http, |at| {
                eprintln!("cru mcp: serving {dir} at http://{at}/mcp{mode}");
            })
        }
    };
    served.map_err(|e| CliError::new(e.to_string()))?;
    Ok(Outcome::Success)
}
