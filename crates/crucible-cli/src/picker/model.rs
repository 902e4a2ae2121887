//! What the picker shows, without a terminal: the sessions, the query
//! typed, the ones that match it (best first, by nucleo's matcher, the
//! one Helix uses) and the one selected.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

/// One session the picker offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    pub title: String,
    pub status: String,
    pub agents: String,
    pub project: String,
    pub started: String,
}

impl Entry {
    /// What the query is matched against.
    fn haystack(&self) -> String {
        format!(
            "{} {} {} {}",
            self.id, self.title, self.agents, self.project
        )
    }
}

pub struct Model {
    entries: Vec<Entry>,
    haystacks: Vec<String>,
    pub query: String,
    /// Indexes into `entries` of those that match, best first (in the
    /// given order when the query is empty).
    pub matched: Vec<usize>,
    /// Position in `matched`.
    pub selected: usize,
    matcher: Matcher,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("entries", &self.entries.len())
            .field("query", &self.query)
            .field("matched", &self.matched.len())
            .field("selected", &self.selected)
            .finish_non_exhaustive()
    }
}

impl Model {
    pub fn new(entries: Vec<Entry>) -> Self {
        let haystacks = entries.iter().map(Entry::haystack).collect();
        let mut model = Self {
            entries,
            haystacks,
            query: String::new(),
            matched: Vec::new(),
            selected: 0,
            matcher: Matcher::new(Config::DEFAULT),
        };
        model.refilter();
        model
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn entry(&self, i: usize) -> &Entry {
        &self.entries[i]
    }

    pub fn selected_entry(&self) -> Option<&Entry> {
        self.matched.get(self.selected).map(|&i| &self.entries[i])
    }

    pub fn push_char(&mut self, c: char) {
        self.query.push(c);
        self.refilter();
    }

    pub fn pop_char(&mut self) {
        self.query.pop();
        self.refilter();
    }

    pub fn clear_query(&mut self) {
        self.query.clear();
        self.refilter();
    }

    /// Moves the selection by `delta`, within the matches.
    pub fn move_by(&mut self, delta: isize) {
        let last = self.matched.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
    }

    /// The matches of the query, best first; ties keep the given order
    /// (newest first), so an empty query lists every session as given.
    fn refilter(&mut self) {
        self.selected = 0;
        let query = self.query.trim();
        if query.is_empty() {
            self.matched = (0..self.entries.len()).collect();
            return;
        }
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        let mut buf = Vec::new();
        let mut scored: Vec<(u32, usize)> = self
            .haystacks
            .iter()
            .enumerate()
            .filter_map(|(i, h)| {
                pattern
                    .score(Utf32Str::new(h, &mut buf), &mut self.matcher)
                    .map(|s| (s, i))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.matched = scored.into_iter().map(|(_, i)| i).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, title: &str) -> Entry {
        Entry {
            id: id.into(),
            title: title.into(),
            status: "paused".into(),
            agents: "dev@1".into(),
            project: "/work/shop".into(),
            started: "2026-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn typing_filters_fuzzily_and_the_selection_stays_in_range() {
        let mut m = Model::new(vec![
            entry("2026-01-03-fix-flaky-test", "Fix the flaky store test"),
            entry("2026-01-02-config-loader", "Add a config loader"),
            entry("2026-01-01-start-docs", "Start the docs"),
        ]);
        assert_eq!(m.matched, [0, 1, 2], "newest first as given");
        for c in "cfgld".chars() {
            m.push_char(c);
        }
        assert_eq!(m.selected_entry().unwrap().id, "2026-01-02-config-loader");
        m.move_by(5);
        assert_eq!(m.selected, m.matched.len() - 1);
        m.move_by(-9);
        assert_eq!(m.selected, 0);
        m.clear_query();
        m.push_char('z');
        m.push_char('q');
        assert!(m.matched.is_empty());
        assert!(m.selected_entry().is_none());
        m.pop_char();
        m.pop_char();
        assert_eq!(m.matched.len(), 3);
    }
}
