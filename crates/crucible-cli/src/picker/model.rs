//! What the picker shows, without a terminal: the sessions, the query
//! typed, the ones that match it (best first, by nucleo's matcher, the
//! one Helix uses) and the one selected.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

/// One session the picker offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    /// The session file, relative to the sessions directory: the preview
    /// reads it by its path (finding a file by its id may list the whole
    /// directory when the file is not named after it).
    pub path: String,
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

    /// A character typed (see [`Model::push_str`]).
    pub fn push_char(&mut self, c: char) {
        self.push_str(&c.to_string());
    }

    /// Characters typed, matched once for all of them: only the sessions
    /// that matched the query before can match it now (a longer
    /// subsequence), so only they are scored again; not so after a space
    /// or nucleo's negations and anchors (`!`, `^`, `$`, `'`), after which
    /// everything is scored.
    pub fn push_str(&mut self, typed: &str) {
        let plain = |t: &str| !t.contains(['!', '^', '$', '\'', '\\']);
        let narrowing = !self.query.trim().is_empty()
            && !typed.contains(char::is_whitespace)
            && plain(&self.query)
            && plain(typed);
        self.query.push_str(typed);
        if narrowing {
            let candidates = std::mem::take(&mut self.matched);
            self.score(candidates);
        } else {
            self.refilter();
        }
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
        if self.query.trim().is_empty() {
            self.matched = (0..self.entries.len()).collect();
            return;
        }
        self.score((0..self.entries.len()).collect());
    }

    /// Scores `candidates` against the query on every core (nucleo's
    /// matcher is a few microseconds a session: 100,000 of them on one core
    /// would be felt at every key).
    fn score(&mut self, mut candidates: Vec<usize>) {
        self.selected = 0;
        let pattern = Pattern::parse(self.query.trim(), CaseMatching::Smart, Normalization::Smart);
        let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        let chunk = candidates.len().div_ceil(threads).max(1);
        let haystacks = &self.haystacks;
        let mut scored: Vec<(u32, usize)> = std::thread::scope(|s| {
            let handles: Vec<_> = candidates
                .chunks(chunk)
                .map(|part| {
                    let pattern = &pattern;
                    s.spawn(move || {
                        let mut matcher = Matcher::new(Config::DEFAULT);
                        let mut buf = Vec::new();
                        part.iter()
                            .filter_map(|&i| {
                                pattern
                                    .score(Utf32Str::new(&haystacks[i], &mut buf), &mut matcher)
                                    .map(|score| (score, i))
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_default())
                .collect()
        });
        candidates.clear();
        scored.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.matched = scored.into_iter().map(|(_, i)| i).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, title: &str) -> Entry {
        Entry {
            id: id.into(),
            path: format!("{id}.md"),
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

    #[test]
    fn narrowing_a_query_finds_what_scoring_every_session_finds() {
        let entries: Vec<Entry> = (0..500)
            .map(|i| {
                entry(
                    &format!("2026-01-01-s{i}"),
                    &format!("title {} of {}", i * 7, i % 13),
                )
            })
            .collect();
        for query in ["s1", "t1 o", "s1!2", "^2026 4"] {
            let mut typed = Model::new(entries.clone());
            for c in query.chars() {
                typed.push_char(c);
            }
            // Typed fast: the keys waiting are matched at once.
            let mut burst = Model::new(entries.clone());
            let (head, tail) = query.split_at(1);
            burst.push_str(head);
            burst.push_str(tail);
            assert_eq!(burst.matched, typed.matched, "{query}: at once");
            let mut whole = Model::new(entries.clone());
            whole.query = query.to_owned();
            whole.refilter();
            assert_eq!(typed.matched, whole.matched, "{query}");
        }
    }
}
