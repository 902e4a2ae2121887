//! What the picker shows, without a terminal: the sessions, the query
//! typed, the ones that match it (best first, by nucleo's matcher, the
//! one Helix uses) and the one selected.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use std::sync::Arc;

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
    haystacks: Arc<[String]>,
    pub query: String,
    /// Indexes into `entries` of those that match `matched_for`, best
    /// first (in the given order when it is empty).
    pub matched: Vec<usize>,
    /// The query `matched` answers: the one typed, or an earlier one while
    /// a match of the one typed is under way (see [`Model::job`]).
    matched_for: Option<String>,
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

/// A match to make: the sessions to score against a query. Made by
/// [`Model::job`], run anywhere ([`Job::run`]), answered with
/// [`Model::answer`], so a terminal can keep taking keys while 100,000
/// sessions are scored.
pub struct Job {
    pub query: String,
    haystacks: Arc<[String]>,
    /// Those to score; every session when `None`.
    candidates: Option<Vec<usize>>,
}

impl Job {
    /// The matches, best first (ties in the given order), on every core;
    /// `None` when `cancelled` says so before the end (a newer query came).
    pub fn run(self, cancelled: &(dyn Fn() -> bool + Sync)) -> Option<Vec<usize>> {
        let candidates = self
            .candidates
            .unwrap_or_else(|| (0..self.haystacks.len()).collect());
        score(&self.haystacks, &self.query, &candidates, cancelled)
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
            matched_for: None,
            selected: 0,
        };
        model.settle();
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

    /// Whether `matched` answers an earlier query than the one typed.
    pub fn matching(&self) -> bool {
        self.matched_for.as_deref() != Some(self.query.as_str())
    }

    /// A character typed, matched at once (see [`Model::type_str`]).
    #[cfg(test)]
    pub fn push_char(&mut self, c: char) {
        self.push_str(&c.to_string());
    }

    /// Characters typed, matched at once.
    #[cfg(test)]
    pub fn push_str(&mut self, typed: &str) {
        self.type_str(typed);
        self.settle();
    }

    #[cfg(test)]
    pub fn pop_char(&mut self) {
        self.backspace();
        self.settle();
    }

    #[cfg(test)]
    pub fn clear_query(&mut self) {
        self.query.clear();
        self.settle();
    }

    /// Characters typed; the match is left to [`Model::job`].
    pub fn type_str(&mut self, typed: &str) {
        self.query.push_str(typed);
    }

    /// The last character taken away; the match is left to [`Model::job`].
    pub fn backspace(&mut self) {
        self.query.pop();
    }

    /// What must be matched for the query typed, if anything. Only the
    /// sessions that matched an earlier query this one extends can match
    /// it (a longer subsequence), so only they are scored again; not so
    /// after a space or nucleo's negations and anchors (`!`, `^`, `$`,
    /// `'`), after which everything is. An empty query lists every session
    /// as given, at once.
    pub fn job(&mut self) -> Option<Job> {
        if !self.matching() {
            return None;
        }
        if self.query.trim().is_empty() {
            let everything = (0..self.entries.len()).collect();
            self.answer(self.query.clone(), everything);
            return None;
        }
        let plain = |t: &str| !t.contains(['!', '^', '$', '\'', '\\']);
        let narrowing = self.matched_for.as_deref().is_some_and(|before| {
            self.query.strip_prefix(before).is_some_and(|typed| {
                !before.trim().is_empty()
                    && !typed.contains(char::is_whitespace)
                    && plain(before)
                    && plain(typed)
            })
        });
        Some(Job {
            query: self.query.clone(),
            haystacks: Arc::clone(&self.haystacks),
            candidates: narrowing.then(|| self.matched.clone()),
        })
    }

    /// The matches of `query` (from a [`Job`]), shown with the first one
    /// selected.
    pub fn answer(&mut self, query: String, matched: Vec<usize>) {
        self.matched = matched;
        self.matched_for = Some(query);
        self.selected = 0;
    }

    /// Matches the query typed here and now.
    fn settle(&mut self) {
        if let Some(job) = self.job() {
            let query = job.query.clone();
            let matched = job.run(&|| false).unwrap_or_default();
            self.answer(query, matched);
        }
    }

    /// Moves the selection by `delta`, within the matches.
    pub fn move_by(&mut self, delta: isize) {
        let last = self.matched.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
    }
}

/// Scores `candidates` against `query` on every core (nucleo's matcher is
/// a few microseconds a session: 100,000 of them on one core would be felt
/// at every key); best first, ties in the given order. Each thread asks
/// `cancelled` first and every 1,024 sessions.
fn score(
    haystacks: &[String],
    query: &str,
    candidates: &[usize],
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Option<Vec<usize>> {
    let pattern = Pattern::parse(query.trim(), CaseMatching::Smart, Normalization::Smart);
    let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    let chunk = candidates.len().div_ceil(threads).max(1);
    let shares: Vec<Option<Vec<(u32, usize)>>> = std::thread::scope(|s| {
        let handles: Vec<_> = candidates
            .chunks(chunk)
            .map(|part| {
                let pattern = &pattern;
                s.spawn(move || {
                    let mut matcher = Matcher::new(Config::DEFAULT);
                    let mut buf = Vec::new();
                    let mut found = Vec::new();
                    for (n, &i) in part.iter().enumerate() {
                        if n % 1024 == 0 && cancelled() {
                            return None;
                        }
                        let haystack = Utf32Str::new(&haystacks[i], &mut buf);
                        if let Some(score) = pattern.score(haystack, &mut matcher) {
                            found.push((score, i));
                        }
                    }
                    Some(found)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut scored = Vec::with_capacity(shares.iter().flatten().map(Vec::len).sum());
    for share in shares {
        scored.extend(share?);
    }
    scored.sort_unstable_by(|a: &(u32, usize), b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    Some(scored.into_iter().map(|(_, i)| i).collect())
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
            whole.matched_for = None;
            whole.settle();
            assert_eq!(typed.matched, whole.matched, "{query}");
        }
    }

    /// Keys typed while a match is under way: an answer to an older query
    /// is shown (marked as matching), and the newer query is matched from
    /// it when it narrows it, or from everything, to the same result as a
    /// match made at once; a cancelled match gives nothing.
    #[test]
    fn answers_may_come_late_and_a_newer_query_still_finds_the_same() {
        let entries: Vec<Entry> = (0..300)
            .map(|i| entry(&format!("2026-01-01-s{i}"), &format!("title {}", i * 7)))
            .collect();
        let mut m = Model::new(entries.clone());
        m.type_str("s1");
        let first = m.job().expect("a match to make");
        m.type_str("2");
        assert!(m.matching());
        let older = first.query.clone();
        let matched = first.run(&|| false).unwrap();
        m.answer(older, matched);
        assert!(m.matching(), "the answer is to an older query");
        let second = m.job().expect("the query typed is still to match");
        assert!(second.candidates.is_some(), "narrowed from `s1`");
        let query = second.query.clone();
        let matched = second.run(&|| false).unwrap();
        m.answer(query, matched);
        assert!(!m.matching());
        let mut at_once = Model::new(entries);
        at_once.push_str("s12");
        assert_eq!(m.matched, at_once.matched);

        m.type_str("3");
        let cancelled = m.job().unwrap();
        assert!(cancelled.run(&|| true).is_none());
        assert!(m.job().is_some(), "still to match");
        m.backspace();
        m.backspace();
        m.backspace();
        m.backspace();
        m.backspace();
        assert!(
            m.job().is_none(),
            "an empty query lists every session at once"
        );
        assert_eq!(m.matched.len(), 300);
    }
}
