//! The doctor's sessions directory and index sections.

use crucible_core::SessionsDirSource;
use crucible_index::DuplicateIds;
use crucible_search::IndexState;

use super::report::{Check, Level, Section};
use crate::context::Context;

/// Where the sessions directory came from, as a person would name it.
fn source_name(source: &SessionsDirSource) -> String {
    match source {
        SessionsDirSource::Flag => "from --dir".to_owned(),
        SessionsDirSource::Env => "from $CRU_SESSIONS_DIR".to_owned(),
        SessionsDirSource::Config => "from [session] dir in the config".to_owned(),
        SessionsDirSource::Kiln(root) => {
            format!("the project's, found upward at {}", root.display())
        }
        SessionsDirSource::Home => "the default".to_owned(),
    }
}

/// The sessions directory: where it is, why there, and whether it can be
/// used.
pub fn sessions_dir(ctx: &Context) -> Section {
    let dir = ctx.store.dir();
    let what = dir.display().to_string();
    let check = match (ctx.require_dir(), std::fs::symlink_metadata(dir)) {
        (Err(e), _) => Check::new(
            Level::Problem,
            what,
            format!("{}; {e}", source_name(&ctx.dir_source)),
        )
        .hint("pass --dir DIR, or set $CRU_SESSIONS_DIR or [session] dir"),
        (Ok(()), Err(_)) => Check::new(
            Level::Note,
            what,
            format!(
                "{}; not made yet (nothing recorded so far)",
                source_name(&ctx.dir_source)
            ),
        ),
        (Ok(()), Ok(_)) => match std::fs::read_dir(dir) {
            Ok(_) => Check::new(Level::Ok, what, source_name(&ctx.dir_source)),
            Err(e) => Check::new(Level::Problem, what, format!("cannot be listed: {e}")),
        },
    };
    Section {
        name: "sessions directory",
        checks: vec![check],
    }
}

/// The session index and the search index, checked as `cru session index
/// --check` checks them; none for a sessions directory not there.
pub fn indexes(ctx: &Context) -> Option<Section> {
    let mut checks = Vec::new();
    let dir = ctx.store.dir();
    if !dir.is_dir() {
        return None;
    }
    match crucible_index::SessionIndex::new(&ctx.store).open(None, &|_, _| {}) {
        Ok(opened) => {
            let index = &opened.index;
            let mut ids = DuplicateIds::default();
            for r in &index.sessions {
                ids.add(&r.id, &r.path);
            }
            checks.push(Check::new(
                Level::Ok,
                "session index",
                format!("{} sessions, fresh", index.sessions.len()),
            ));
            if let Some(first) = index.problems.first() {
                checks.push(
                    Check::new(
                        Level::Warning,
                        "session index",
                        format!(
                            "{} files cannot be read as sessions and are left out (first: {}: {})",
                            index.problems.len(),
                            dir.join(&first.path).display(),
                            first.message
                        ),
                    )
                    .hint("`cru session index --check` lists them"),
                );
            }
            let duplicates = ids.finish();
            if let Some(first) = duplicates.first() {
                checks.push(
                    Check::new(
                        Level::Warning,
                        "session index",
                        format!(
                            "{} session ids are declared by more than one file (first: `{}`)",
                            duplicates.len(),
                            first.id
                        ),
                    )
                    .hint("`cru session index --check` lists them; commands refuse those ids"),
                );
            }
        }
        Err(e) => checks.push(Check::new(Level::Problem, "session index", e.to_string())),
    }
    checks.push(search_index(ctx));
    Some(Section {
        name: "indexes",
        checks,
    })
}

fn search_index(ctx: &Context) -> Check {
    const WHAT: &str = "search index";
    match crucible_search::check(ctx.store.dir()) {
        Err(e) => Check::new(Level::Problem, WHAT, e.to_string()),
        Ok(report) if report.is_problem() && matches!(report.state, IndexState::Present { .. }) => {
            let wrong = report
                .disagreements
                .iter()
                .filter(|d| d.is_problem())
                .count();
            Check::new(
                Level::Problem,
                WHAT,
                format!("holds parts of {wrong} files that are gone, which a search would show"),
            )
            .hint("`cru session index --rebuild`")
        }
        Ok(report) => match report.state {
            IndexState::Missing => Check::new(
                Level::Note,
                WHAT,
                "not built yet (the first `cru session search` builds it)",
            ),
            IndexState::Unusable { reason } => Check::new(
                Level::Warning,
                WHAT,
                format!("{reason}; the next search rebuilds it"),
            ),
            IndexState::Present { parts } => {
                let pending = report.disagreements.len();
                Check::new(
                    Level::Ok,
                    WHAT,
                    format!(
                        "{parts} parts; {pending} files changed since it was written (each search reads them directly)"
                    ),
                )
            }
        },
    }
}

/// The directory captured sessions go to, when it is not the one commands
/// read here (a project that keeps its own sessions).
pub fn capture_dir(cap: &Context) -> Section {
    Section {
        name: "capture directory",
        checks: vec![Check::new(
            Level::Note,
            cap.store.dir().display().to_string(),
            format!(
                "{}: hooks, `cru watch` and `cru session import` with no path write here, not to the sessions directory above",
                source_name(&cap.dir_source)
            ),
        )],
    }
}
