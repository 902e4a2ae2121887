//! `cru session pick [filters]`: choose a session in a full-screen picker
//! and print its id (a plain list when stdin or stdout is not a terminal).

use std::io::{IsTerminal, Write};

use clap::Args;
use crucible_index::SessionRecord;

use super::query::{FilterArgs, visit_index};
use crate::context::Context;
use crate::error::Outcome;
use crate::picker::{self, Entry};
use crate::render::table::one_line;

#[derive(Debug, Args)]
pub struct PickArgs {
    #[command(flatten)]
    pub filters: FilterArgs,
}

pub fn run(ctx: &Context, args: &PickArgs) -> anyhow::Result<Outcome> {
    let filter = args.filters.filter()?;
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        let mut out = std::io::stdout().lock();
        for r in sessions(ctx, &filter, |_| true)? {
            writeln!(
                out,
                "{}  {:<9}  {}  {}",
                one_line(&r.id),
                r.status,
                one_line(&r.started),
                one_line(&r.title)
            )?;
        }
        return Ok(Outcome::Success);
    }
    // On screen, a directory that cannot be read shows no session; what
    // went wrong is printed when the picker closes.
    let load = || {
        sessions(ctx, &filter, |_| true).unwrap_or_else(|e| {
            let _ = writeln!(crate::render::held::stderr(), "error: {e}");
            Vec::new()
        })
    };
    let chosen = picker::pick("Pick a session", load, &|e| session_preview(ctx, e))?;
    match chosen {
        Some(id) => {
            println!("{id}");
            Ok(Outcome::Success)
        }
        None => Ok(Outcome::ChoiceNeeded),
    }
}

/// The sessions `filter` and `keep` take, newest first, as the picker
/// offers them.
pub fn sessions(
    ctx: &Context,
    filter: &crucible_index::Filter,
    keep: impl Fn(&SessionRecord) -> bool + Sync,
) -> anyhow::Result<Vec<Entry>> {
    let states = visit_index(
        ctx,
        filter,
        &Vec::new,
        // The rows are only pre-screened by the filter: each is asked.
        &|found: &mut Vec<SessionRecord>, facts, decode| {
            if filter.matches(facts)
                && let Ok(r) = decode()
                && keep(&r)
            {
                found.push(r);
            }
        },
    )?;
    let found =
        crucible_index::query::sort_newest_first(states.into_iter().flatten().collect(), None);
    Ok(found.into_iter().map(|r| entry(&r)).collect())
}

/// A session as the picker offers it: what it shows is on one line, with
/// nothing a terminal would obey (see [`one_line`]); the id and path are
/// kept as they are, to find the session.
pub fn entry(r: &SessionRecord) -> Entry {
    Entry {
        id: r.id.clone(),
        path: r.path.clone(),
        title: one_line(r.title.as_deref().unwrap_or_default()).into_owned(),
        status: r.status.as_str().to_owned(),
        agents: one_line(&super::query::agents_of(r)).into_owned(),
        project: one_line(r.project.as_deref().unwrap_or_default()).into_owned(),
        started: one_line(&r.started).into_owned(),
    }
}

/// A session in a few lines: its header and its phases.
fn session_preview(ctx: &Context, e: &Entry) -> String {
    let Ok(log) = ctx.store.load_path(&ctx.store.dir().join(&e.path)) else {
        return format!("{}: cannot be read", e.id);
    };
    let fm = &log.frontmatter;
    let mut text = format!(
        "{}\n\n{}  {}  {}\n",
        log.title().unwrap_or(fm.session_id.as_str()),
        fm.status.as_str(),
        fm.started,
        e.agents
    );
    if !e.project.is_empty() {
        text.push_str(&format!("project {}\n", e.project));
    }
    text.push('\n');
    for (n, (_, p)) in log.phases().enumerate() {
        let agent = p
            .agent
            .as_ref()
            .map(|a| format!(" @{a}"))
            .unwrap_or_default();
        text.push_str(&format!("{}. {}{agent}\n", n + 1, p.name));
    }
    text
}
