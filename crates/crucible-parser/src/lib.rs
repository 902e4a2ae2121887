//! Reads and writes Crucible session logs.
//!
//! A session log is markdown: YAML frontmatter, one heading per phase, tool-call
//! lists and callouts. [`parse_session`] turns a file into a [`SessionLog`];
//! [`write_session`] turns it back into canonical markdown, so that
//! `parse_session(write_session(log)) == log` and writing a parsed file twice
//! gives the same bytes. [`check_session`] reports every problem of a file at
//! once, for `cru session validate`; [`validate`] adds the checks that need
//! the other files of a sessions directory.
//!
//! Every reading of a session file goes through [`read`], in tiers: a cheap
//! tier answers only what it is sure of and defers to the next.
//!
//! Bad input never panics: it gives a [`ParseError`] naming the file, the line
//! (counted in the whole file) and what was expected.

mod body;
mod callout;
mod codec;
mod error;
mod frontmatter;
mod heading;
mod phase_meta;
pub mod read;
mod simple_yaml;
mod source;
mod summary;
mod tasks;
mod tool_calls;
mod usage_line;
pub mod validate;
pub mod workflow;
mod write;
pub mod yaml;

use std::path::Path;

pub use body::LinkRef;
pub use codec::MarkdownCodec;
use crucible_core::SessionLog;
pub use error::{ParseError, ParseErrorKind, Warning};
pub use summary::{fast_summary, summarize};
pub use write::write_session;

/// Everything a parse found: the log when the file is valid, and every error
/// and warning with its line.
#[derive(Debug)]
pub struct Checked {
    pub log: Option<SessionLog>,
    pub errors: Vec<ParseError>,
    pub warnings: Vec<Warning>,
    /// The `[[link]]` and `![[embed]]` targets of subagent callouts.
    pub links: Vec<LinkRef>,
}

/// Parses a session file, returning its first error if it is invalid.
pub fn parse_session(path: &Path, bytes: &[u8]) -> Result<SessionLog, ParseError> {
    let mut checked = check_session(path, bytes);
    match checked.log.take() {
        Some(log) => Ok(log),
        None => Err(checked
            .errors
            .into_iter()
            .next()
            .expect("a parse without a log has at least one error")),
    }
}

/// A warning when `ended` is before `started`: both parse, but a reader
/// that needs the session's length cannot believe both.
fn ended_before_started(
    path: &Path,
    yaml: &str,
    fm: &crucible_core::Frontmatter,
) -> Option<Warning> {
    let ended = fm.ended.as_ref()?;
    (ended.unix_ms() < fm.started.unix_ms()).then(|| Warning {
        path: path.to_owned(),
        line: frontmatter::key_line(yaml, "ended"),
        message: format!(
            "`ended` ({ended}) is before `started` ({}): tools that need the session's length use its phases' times instead",
            fm.started
        ),
    })
}

/// Parses a session file and reports every problem in it, in line order.
pub fn check_session(path: &Path, bytes: &[u8]) -> Checked {
    let mut checked = Checked {
        log: None,
        errors: Vec::new(),
        warnings: Vec::new(),
        links: Vec::new(),
    };
    let error = |line: usize, kind: ParseErrorKind| ParseError {
        path: path.to_owned(),
        line,
        kind,
    };
    let text = match source::decode(bytes) {
        Ok(t) => t,
        Err((line, kind)) => {
            checked.errors.push(error(line, kind));
            return checked;
        }
    };
    let split = match frontmatter::split(&text) {
        Ok(s) => s,
        Err(kind) => {
            checked.errors.push(error(1, kind));
            return checked;
        }
    };
    let fm = frontmatter::parse(split.yaml);
    if let Err(errs) = &fm {
        checked
            .errors
            .extend(errs.iter().map(|(l, k)| error(*l, k.clone())));
        // A file that is not a session has no body worth reporting on.
        if errs
            .iter()
            .any(|(_, k)| matches!(k, ParseErrorKind::NotASession { .. }))
        {
            return checked;
        }
    }
    let body = body::parse(split.body, split.body_line);
    checked
        .errors
        .extend(body.errors.into_iter().map(|(l, k)| error(l, k)));
    checked
        .warnings
        .extend(body.warnings.into_iter().map(|(line, message)| Warning {
            path: path.to_owned(),
            line,
            message,
        }));
    checked.links = body.links;
    if let Ok(fm) = fm {
        let log = SessionLog {
            frontmatter: fm,
            preamble: body.preamble,
            sections: body.sections,
        };
        checked
            .warnings
            .extend(ended_before_started(path, split.yaml, &log.frontmatter));
        if let Some(point) = log.frontmatter.resume_point {
            let phases = log.phase_count();
            if point.index() >= phases {
                checked.errors.push(error(
                    frontmatter::key_line(split.yaml, "resume_point"),
                    ParseErrorKind::ResumePointOutOfRange {
                        point: point.to_string(),
                        phases,
                    },
                ));
            }
        }
        if checked.errors.is_empty() {
            checked.log = Some(log);
        }
    }
    checked.errors.sort_by_key(|e| e.line);
    checked
}
