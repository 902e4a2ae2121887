//! What can go wrong sending spans, and reading or writing the sent-record.

use std::path::PathBuf;

/// Why a batch did not reach the endpoint (after every retry).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    #[error("{url}: no answer within {timeout_ms} ms (attempts: {attempts})")]
    Timeout {
        url: String,
        timeout_ms: u128,
        attempts: u32,
    },
    #[error("{url}: cannot connect: {message} (attempts: {attempts})")]
    Connect {
        url: String,
        message: String,
        attempts: u32,
    },
    #[error("{url}: HTTP {status}: {body} (attempts: {attempts})")]
    Status {
        url: String,
        status: u16,
        body: String,
        attempts: u32,
    },
    #[error("{url}: the endpoint accepted {rejected} of the spans only partly: {message}")]
    Partial {
        url: String,
        rejected: i64,
        message: String,
    },
}

impl SendError {
    /// The HTTP status the endpoint answered with, if it answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// The sent-record could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum SentRecordError {
    #[error("{path}: cannot read the OTLP sent-record: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path}:{line}: the OTLP sent-record is not valid (expected a JSON object of endpoints, each an object of session id to what was sent): {message}"
    )]
    Invalid {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: cannot write the OTLP sent-record: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}
