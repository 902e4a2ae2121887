//! Every matching session's usage lines, from the index.

use crucible_index::Filter;
use crucible_usage::SessionUsage;

use crate::commands::session::query::tally_index;
use crate::context::Context;
use crate::error::Outcome;

/// The sessions `filter` matches, with their lines (those without any are
/// left out), and how reading the index went.
pub fn load(ctx: &Context, filter: &Filter) -> anyhow::Result<(Vec<SessionUsage>, Outcome)> {
    let tallied = tally_index(
        ctx,
        filter,
        &Vec::new,
        &|found: &mut Vec<SessionUsage>, facts, _| {
            let Ok(lines) = facts.usage() else {
                return false;
            };
            if !lines.is_empty() {
                found.push(SessionUsage {
                    session_id: facts.id.to_string(),
                    path: facts.path.to_string(),
                    title: None,
                    project: facts.project.as_deref().map(str::to_owned),
                    started_ms: facts.started_ms(),
                    lines: lines.into_owned(),
                });
            }
            true
        },
        Vec::extend,
    )?;
    let mut sessions = tallied.tally;
    // Threads finish in any order: one order for every run.
    sessions.sort_by(|a, b| (a.started_ms, &a.path).cmp(&(b.started_ms, &b.path)));
    Ok((sessions, tallied.outcome))
}
