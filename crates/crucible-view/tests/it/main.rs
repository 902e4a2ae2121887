//! crucible-view on the shipped sessions and on hostile ones: what a page
//! shows, and that nothing in a session can become markup.

mod hostile;
mod pages;

use std::collections::HashMap;
use std::path::Path;

use crucible_core::{SessionData, SessionLog};
use crucible_view::{Neighbours, SessionPage};

/// The sessions of a directory, by id, as a site would know them.
#[derive(Debug)]
pub struct Directory {
    pub sessions: HashMap<String, SessionLog>,
}

impl Directory {
    pub fn read(dir: &Path) -> Self {
        let sessions = crucible_core::store::session_files(dir)
            .unwrap()
            .into_iter()
            .filter_map(|p| crucible_parser::parse_session(&p, &std::fs::read(&p).ok()?).ok())
            .map(|log| (log.id().to_string(), log))
            .collect();
        Self { sessions }
    }
}

impl Neighbours for Directory {
    fn href(&self, id: &str) -> Option<String> {
        self.sessions.contains_key(id).then(|| format!("{id}.html"))
    }
    fn embedded(&self, id: &str) -> Option<(SessionLog, Option<SessionData>)> {
        self.sessions.get(id).map(|log| (log.clone(), None))
    }
}

/// The page of session `id` of `dir`.
pub fn page_of(dir: &Directory, id: &str) -> String {
    SessionPage {
        first_phase: 1,
        log: &dir.sessions[id],
        data: None,
        figures: None,
        neighbours: dir,
        home: None,
    }
    .render()
}
