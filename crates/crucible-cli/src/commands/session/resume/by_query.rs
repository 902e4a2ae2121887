//! `cru session resume --query Q`: the session to resume chosen by search.

use std::path::PathBuf;

use crucible_core::SessionStatus;
use crucible_search::{Hit, Request};

use crate::commands::session::search;
use crate::context::Context;
use crate::error::CliError;

/// The most other matches named on stderr; the rest are counted.
const OTHERS_NAMED: usize = 5;

/// The resumable statuses in the order the picker lists them.
const RESUMABLE: [SessionStatus; 2] = [SessionStatus::Paused, SessionStatus::Active];

/// The file of the best resumable session matching `query`: the best
/// paused one, else the best active one (the picker's order). Says on
/// stderr which was chosen and which others matched.
pub fn choose(ctx: &Context, query: &str) -> anyhow::Result<PathBuf> {
    let request = search::query_request(query)?;
    // A `status:` in the query narrows the resumable statuses; it cannot
    // widen them.
    let asked = request.filter.status.clone();
    if let Some(asked) = &asked
        && !RESUMABLE.iter().any(|s| s.as_str() == asked)
    {
        return Err(CliError::usage(format!(
            "`{query}` asks for status:{asked}; only paused or active sessions are resumed"
        ))
        .into());
    }
    let requests: Vec<Request> = RESUMABLE
        .iter()
        .filter(|s| asked.as_deref().is_none_or(|a| a == s.as_str()))
        .map(|s| {
            let mut r = request.clone();
            r.filter.status = Some(s.as_str().to_owned());
            r
        })
        .collect();
    let found: Vec<Hit> = search::hits(ctx, &requests)?
        .0
        .into_iter()
        .flatten()
        .collect();
    let Some(best) = found.first() else {
        return Err(CliError::new(format!(
            "no paused or active session matches `{query}` in {}",
            ctx.store.dir().display()
        ))
        .with_hint(
            "`cru session search QUERY --status paused` lists what matches; \
             `cru session resume` lists what can be resumed",
        )
        .into());
    };
    eprintln!(
        "resuming {} (best match of `{query}`: {}:{})",
        best.id,
        best.file.display(),
        best.line
    );
    let others = &found[1..];
    if !others.is_empty() {
        let named: Vec<&str> = others
            .iter()
            .take(OTHERS_NAMED)
            .map(|h| h.id.as_str())
            .collect();
        let more = others.len().saturating_sub(OTHERS_NAMED);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        eprintln!(
            "{} other {} also {}: {}{tail} (resume one with `cru session resume ID`)",
            others.len(),
            crate::render::plural(others.len(), "session", "sessions"),
            crate::render::plural(others.len(), "matches", "match"),
            named.join(", "),
        );
    }
    Ok(best.file.clone())
}
