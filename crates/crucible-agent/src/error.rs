//! What can go wrong asking an agent.

use std::time::Duration;

/// A backend's failure. Messages name the command or URL and show what the
/// other side said (a program's stderr, a server's error body), never an
/// API key.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("cannot start agent command `{command}`: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    #[error("cannot write the messages file for `{command}`: {source}")]
    MessagesFile {
        command: String,
        source: std::io::Error,
    },
    #[error("agent command `{command}` failed ({status}){}", stderr_part(.stderr))]
    Exit {
        command: String,
        status: String,
        stderr: String,
        /// What the program printed on stdout before it failed (trimmed;
        /// empty when nothing): a reply cut short, which the caller may keep.
        partial: String,
    },
    #[error("agent command `{command}` printed no reply{}", stderr_part(.stderr))]
    EmptyReply { command: String, stderr: String },
    #[error("agent command `{command}` gave no reply within {} (stopped it)", secs(.timeout))]
    CommandTimeout {
        command: String,
        timeout: Duration,
        /// What the program printed on stdout before it was stopped.
        partial: String,
    },
    #[error("{url}: no reply within {}", secs(.timeout))]
    HttpTimeout { url: String, timeout: Duration },
    #[error("{url}: HTTP {status}{}", body_part(.body))]
    HttpStatus {
        url: String,
        status: u16,
        body: String,
    },
    #[error("{url}: {message}")]
    Http { url: String, message: String },
    #[error("{url}: the answer is not a chat completion: {message}")]
    BadResponse { url: String, message: String },
}

impl AgentError {
    /// The part of a reply the agent gave before it failed, when it gave
    /// any: a program that printed something and then exited non-zero or
    /// ran out of time. `None` for a failure before any answer.
    pub fn partial_reply(&self) -> Option<&str> {
        match self {
            Self::Exit { partial, .. } | Self::CommandTimeout { partial, .. } => {
                Some(partial.as_str()).filter(|p| !p.trim().is_empty())
            }
            _ => None,
        }
    }
}

fn stderr_part(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("; its stderr:\n{stderr}")
    }
}

fn body_part(body: &str) -> String {
    if body.is_empty() {
        String::new()
    } else {
        format!(": {body}")
    }
}

fn secs(d: &Duration) -> String {
    format!("{} s", d.as_secs_f64())
}
