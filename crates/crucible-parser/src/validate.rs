//! `cru session validate`: a file's own problems plus the ones that need the
//! rest of the sessions directory (duplicate ids, links to missing children,
//! a file name that does not match the id).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crucible_core::{SessionFile, SessionStore};

use crate::{MarkdownCodec, ParseError, Warning, check_session};

/// What `validate` found in one file.
#[derive(Debug)]
pub struct FileReport {
    pub path: PathBuf,
    pub errors: Vec<ParseError>,
    pub warnings: Vec<Warning>,
}

impl FileReport {
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Checks `path` against the format and against the other sessions of
/// `store` (`scan`: the store's session files, scanned once by the caller).
pub fn validate_file(
    store: &SessionStore<MarkdownCodec>,
    scan: &[SessionFile],
    path: &Path,
) -> FileReport {
    let mut report = FileReport {
        path: path.to_owned(),
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    // Regular files within the store's limit only, never blocking on a FIFO.
    let bytes = match crucible_core::store::safe_file::read_regular(path, store.max_file_bytes()) {
        Ok(b) => b,
        Err(e) => {
            report.errors.push(ParseError {
                path: path.to_owned(),
                line: 1,
                kind: crate::ParseErrorKind::InvalidValue {
                    field: "file".into(),
                    message: format!("cannot be read: {e}"),
                },
            });
            return report;
        }
    };
    let checked = check_session(path, &bytes);
    report.errors = checked.errors;
    report.warnings = checked.warnings;
    report.warnings.extend(journal_warnings(path));
    let by_id = index_by_id(scan);
    report
        .warnings
        .extend(link_warnings(store, &by_id, path, &checked.links));
    if let Some(log) = &checked.log {
        id_problems(&mut report, &by_id, &bytes, log);
        report.warnings.extend(total_warning(path, &bytes, log));
        report.warnings.extend(cost_warning(path, &bytes, log));
    }
    report.warnings.sort_by_key(|w| w.line);
    report
}

/// A frontmatter `cost_usd` that is no cost (kept as written, not read).
fn cost_warning(path: &Path, bytes: &[u8], log: &crucible_core::SessionLog) -> Option<Warning> {
    let kept = log.frontmatter.extra.get("cost_usd")?;
    Some(Warning {
        path: path.to_owned(),
        line: crate::frontmatter::key_line_in(bytes, "cost_usd"),
        message: format!(
            "`cost_usd: {}` is not a cost (a number from 0 to {}): the session's tokens \
             are priced from the price table",
            kept.as_f64()
                .map_or_else(|| "?".to_owned(), |c| c.to_string()),
            crucible_core::MAX_COST_USD
        ),
    })
}

/// A frontmatter `tokens_used` that is not what the session's figures add
/// up to (a hand edit): every report counts the figures, and a reader of
/// the frontmatter alone would see another number.
fn total_warning(path: &Path, bytes: &[u8], log: &crucible_core::SessionLog) -> Option<Warning> {
    let written = log.frontmatter.tokens_used?;
    let lines = log.usage_lines();
    if lines.is_empty() {
        return None;
    }
    let sum = crucible_core::lines_total(&lines);
    // Files written before tokens were split by kind may count their
    // subagents' tokens in their own (the subagents count them again).
    let subagents = log
        .frontmatter
        .subagents
        .iter()
        .filter_map(|s| s.tokens)
        .fold(0u64, u64::saturating_add);
    if written == sum || written == sum.saturating_add(subagents) {
        return None;
    }
    Some(Warning {
        path: path.to_owned(),
        line: crate::frontmatter::key_line_in(bytes, "tokens_used"),
        message: format!(
            "`tokens_used: {written}` is not what the session's figures add up to ({sum}, \
             which `session list`, `usage` and `stats` count); cru writes the sum at its next save"
        ),
    })
}

/// The journal's lines that cannot be read.
fn journal_warnings(path: &Path) -> Vec<Warning> {
    let jpath = crucible_core::store::journal::journal_path(path);
    let Ok(Some(journal)) = crucible_core::store::journal::read(&jpath) else {
        return Vec::new();
    };
    journal
        .all()
        .bad_lines
        .into_iter()
        .map(|line| Warning {
            path: jpath.clone(),
            line,
            message: "journal line cannot be read; it is kept, and the journal is not folded until it is fixed or removed".into(),
        })
        .collect()
}

/// Links to child sessions that are not in the store (nor beside the file).
fn link_warnings(
    store: &SessionStore<MarkdownCodec>,
    by_id: &HashMap<String, Vec<PathBuf>>,
    path: &Path,
    links: &[crate::LinkRef],
) -> Vec<Warning> {
    links
        .iter()
        .filter(|link| {
            let known = by_id.contains_key(&link.target.as_str().to_lowercase())
                || store.dir().join(link.target.file_name()).is_file()
                || path.with_file_name(link.target.file_name()).is_file();
            !known
        })
        .map(|link| Warning {
            path: path.to_owned(),
            line: link.line,
            message: format!(
                "{} target `{}` is not in {} (the child may live elsewhere)",
                link.mode,
                link.target,
                store.dir().display()
            ),
        })
        .collect()
}

/// A file name that does not match the id (a warning), and an id another
/// file of the store declares too (an error).
fn id_problems(
    report: &mut FileReport,
    by_id: &HashMap<String, Vec<PathBuf>>,
    bytes: &[u8],
    log: &crucible_core::SessionLog,
) {
    let path = report.path.clone();
    let id = log.id();
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    if stem.as_deref() != Some(id.as_str()) {
        report.warnings.push(Warning {
            path: path.clone(),
            line: crate::frontmatter::key_line_in(bytes, "session_id"),
            message: format!(
                "file name does not match session_id `{id}` (expected {}); the frontmatter wins",
                id.file_name()
            ),
        });
    }
    let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
    let Some(others) = by_id.get(&id.as_str().to_lowercase()) else {
        return;
    };
    let others: Vec<&PathBuf> = others
        .iter()
        .filter(|p| p.canonicalize().unwrap_or_else(|_| (*p).clone()) != canonical)
        .collect();
    if others.is_empty() {
        return;
    }
    report.errors.push(ParseError {
        line: crate::frontmatter::key_line_in(bytes, "session_id"),
        kind: crate::ParseErrorKind::InvalidValue {
            field: "session_id".into(),
            message: format!(
                "`{id}` is also the id of {}",
                others
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
        path,
    });
}

fn index_by_id(scan: &[SessionFile]) -> HashMap<String, Vec<PathBuf>> {
    let mut map: HashMap<String, Vec<PathBuf>> = HashMap::new();
    for f in scan {
        map.entry(f.id.as_str().to_lowercase())
            .or_default()
            .push(f.path.clone());
    }
    map
}
