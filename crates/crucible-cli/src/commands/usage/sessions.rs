//! Every matching session's usage lines, from the index.

use std::io::Write;

use crucible_index::Filter;
use crucible_usage::SessionUsage;

use crate::commands::session::query::{UsageCells, tally_index_reading};
use crate::context::Context;
use crate::error::Outcome;

/// What one thread of the index visit found.
#[derive(Default)]
struct Found {
    sessions: Vec<SessionUsage>,
    /// `path: why` of the rows whose usage cell could not be read.
    unreadable: Vec<String>,
}

/// The sessions `filter` matches, with their lines (those without any are
/// left out), and how reading the index went. Sessions whose usage the
/// index cannot give are left out with a warning on stderr.
pub fn load(ctx: &Context, filter: &Filter) -> anyhow::Result<(Vec<SessionUsage>, Outcome)> {
    // An agent's or a channel's tokens are the lines credited to it, in
    // any session (a phase may be in another channel than its session's):
    // those two filters are applied to the lines, the rest to sessions.
    let sessions = Filter {
        agent: None,
        channel: None,
        ..filter.clone()
    };
    let tallied = tally_index_reading(
        ctx,
        UsageCells::Read,
        &sessions,
        &Found::default,
        &|found: &mut Found, facts, _| {
            let lines = match facts.usage() {
                Ok(lines) => lines,
                Err(e) => {
                    found.unreadable.push(format!("{}: {e}", facts.path));
                    return false;
                }
            };
            let mut lines = lines.into_owned();
            lines.retain(|l| filter.takes_line(l));
            if !lines.is_empty() {
                found.sessions.push(SessionUsage {
                    session_id: facts.id.to_string(),
                    path: facts.path.to_string(),
                    title: None,
                    project: facts.project.as_deref().map(str::to_owned),
                    started_ms: facts.started_ms(),
                    lines,
                });
            }
            true
        },
        |all, one| {
            all.sessions.extend(one.sessions);
            all.unreadable.extend(one.unreadable);
        },
    )?;
    let Found {
        mut sessions,
        unreadable,
    } = tallied.tally;
    warn_unreadable_usage(ctx, unreadable)?;
    // Threads finish in any order: one order for every run.
    sessions.sort_by(|a, b| (a.started_ms, &a.path).cmp(&(b.started_ms, &b.path)));
    Ok((sessions, tallied.outcome))
}

/// One warning for every session whose usage cell in the index could not
/// be read (`path: why`, the path relative to the sessions directory):
/// their tokens are missing from the answer, which must not look whole.
pub fn warn_unreadable_usage(ctx: &Context, mut unreadable: Vec<String>) -> std::io::Result<()> {
    if unreadable.is_empty() {
        return Ok(());
    }
    unreadable.sort();
    let mut err = anstream::stderr();
    writeln!(
        err,
        "warning: the usage of {} session file(s) could not be read from the index; \
         their tokens and cost are left out:",
        unreadable.len()
    )?;
    for u in &unreadable {
        // `path: why`, the path made whole as every other warning names it.
        writeln!(err, "  {}", ctx.store.dir().join(u).display())?;
    }
    writeln!(
        err,
        "hint: `cru session index --rebuild` reads the files again and repairs the index"
    )
}
