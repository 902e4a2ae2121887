//! Exit codes and how errors reach the terminal.
//!
//! One rule for every command (docs/cli.md, "Exit codes"):
//!
//! | code | meaning |
//! |---|---|
//! | 0 | done |
//! | 1 | failed: an error, or what the command checked is not all right |
//! | 2 | wrong usage: bad flags or arguments, or a choice the command could not ask for |
//! | 3 | done, but whole input files were skipped (each named in a warning) |
//!
//! A bad line inside a file is a warning, not a skip. `--strict` turns 3
//! into 1. Hook commands that agents call (`cru session log`) are the one
//! exception: they always exit 0, so that a hook never stops an agent.

use std::io::{self, Write};
use std::process::ExitCode;

use anstyle::{AnsiColor, Style};
use crucible_core::{RecordError, StoreError};

/// How a command that ran to its end went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything as asked.
    Success,
    /// The command ran, and what it checked is not all right (an invalid file).
    Failure,
    /// The command needed a choice it could not ask for (no terminal): it
    /// printed the choices instead.
    ChoiceNeeded,
    /// The command did its work, but whole input files were skipped (each
    /// named in a warning on stderr).
    Skipped,
}

impl Outcome {
    /// How a batch over input files went: `Skipped` when some were
    /// skipped, `Failure` when every one was (nothing was done).
    pub fn from_files(done_files: usize, skipped_files: usize) -> Self {
        match (done_files, skipped_files) {
            (_, 0) => Self::Success,
            (0, _) => Self::Failure,
            _ => Self::Skipped,
        }
    }

    /// The process exit code; `strict` makes a skipped file a failure.
    pub fn exit_code(self, strict: bool) -> ExitCode {
        match self {
            Self::Success => ExitCode::SUCCESS,
            Self::Failure => ExitCode::from(EXIT_FAILURE),
            Self::ChoiceNeeded => ExitCode::from(EXIT_USAGE),
            Self::Skipped if strict => ExitCode::from(EXIT_FAILURE),
            Self::Skipped => ExitCode::from(EXIT_SKIPPED),
        }
    }
}

/// Failed: an error, or what the command checked is not all right.
pub const EXIT_FAILURE: u8 = 1;
/// Wrong usage (clap uses 2 for its own errors too).
pub const EXIT_USAGE: u8 = 2;
/// Done, but whole input files were skipped.
pub const EXIT_SKIPPED: u8 = 3;

/// What kind of error a [`CliError`] is, for its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorKind {
    /// Something went wrong (exit 1).
    #[default]
    Failed,
    /// The command was asked for something it cannot do as asked: an
    /// ambiguous name, flags that do not go together (exit 2).
    Usage,
}

/// An error with an optional hint on what to do about it.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CliError {
    pub message: String,
    pub hint: Option<String>,
    pub kind: ErrorKind,
}

impl CliError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            hint: None,
            kind: ErrorKind::Failed,
        }
    }

    /// A wrong-usage error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Usage,
            ..Self::new(message)
        }
    }

    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// A store error, with a hint that fits it.
impl From<StoreError> for CliError {
    fn from(e: StoreError) -> Self {
        let hint = match &e {
            StoreError::NotFound { .. } => {
                Some("pass a path to the file, or --dir for another sessions directory")
            }
            StoreError::Ambiguous { .. } => Some("type more of the id"),
            StoreError::IsADirectory { .. } => {
                Some("name one session file; `cru session validate` takes directories")
            }
            StoreError::DuplicateId { .. } => Some(
                "pass one of the paths to pick that file; to keep both, give one of them another session_id",
            ),
            _ => None,
        };
        let kind = match &e {
            StoreError::Ambiguous { .. }
            | StoreError::IsADirectory { .. }
            | StoreError::DuplicateId { .. } => ErrorKind::Usage,
            _ => ErrorKind::Failed,
        };
        Self {
            message: e.to_string(),
            hint: hint.map(str::to_owned),
            kind,
        }
    }
}

/// A recording error, with a hint where one helps.
impl From<RecordError> for CliError {
    fn from(e: RecordError) -> Self {
        match e {
            RecordError::Store(s) => s.into(),
            RecordError::Ended { .. } => Self::new(e.to_string()).with_hint(
                "pass --reopen to continue it, or start a new session with `cru session start`",
            ),
            other => Self::new(other.to_string()),
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .map(io::Error::kind)
            // serde_json wraps the write error of `to_writer` in its own type.
            .or_else(|| {
                c.downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
            })
            == Some(io::ErrorKind::BrokenPipe)
    })
}

/// Prints `error: ...` (and `hint: ...`) on stderr and picks the exit code.
/// A closed pipe (`cru ... | head`) is not an error worth a word.
pub fn report(e: &anyhow::Error) -> ExitCode {
    if is_broken_pipe(e) {
        return ExitCode::SUCCESS;
    }
    let mut err = anstream::stderr();
    let red = Style::new().fg_color(Some(AnsiColor::Red.into())).bold();
    let cyan = Style::new().fg_color(Some(AnsiColor::Cyan.into())).bold();
    let _ = writeln!(err, "{red}error{red:#}: {e}");
    for cause in e.chain().skip(1) {
        let _ = writeln!(err, "  caused by: {cause}");
    }
    let cli_error = e.downcast_ref::<CliError>();
    if let Some(hint) = cli_error.and_then(|c| c.hint.as_ref()) {
        let _ = writeln!(err, "{cyan}hint{cyan:#}: {hint}");
    }
    match cli_error.map(|c| c.kind) {
        Some(ErrorKind::Usage) => ExitCode::from(EXIT_USAGE),
        _ => ExitCode::from(EXIT_FAILURE),
    }
}

/// Logs go to stderr; `-v` raises the level, `CRU_LOG` sets a filter.
pub fn init_tracing(verbose: u8) {
    let level = match verbose {
        // The MCP SDK warns of every error it answers (a client's bad
        // request is not the server's problem): shown from -v on.
        0 => "warn,rmcp=error",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = std::env::var("CRU_LOG").unwrap_or_else(|_| level.to_owned());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(io::stderr)
        .with_ansi(
            std::io::IsTerminal::is_terminal(&io::stderr())
                && std::env::var_os("NO_COLOR").is_none(),
        )
        .with_target(false)
        .without_time()
        .try_init();
}
