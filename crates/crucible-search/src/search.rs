//! Answering a query: the tantivy query built from a [`ParsedQuery`] and
//! the filters, hits collapsed per session, and each hit's line and
//! snippet found in its file.

use std::collections::HashMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};

use tantivy::collector::{Count, TopDocs};
use tantivy::query::{
    AllQuery, BooleanQuery, Occur, PhrasePrefixQuery, PhraseQuery, Query, RangeQuery, RegexQuery,
    TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{DocAddress, Searcher, TantivyDocument, Term};

use crate::SearchError;
use crate::index::{Fields, Opened};
use crate::query::{Atom, FilterField, ParsedQuery, QueryError};
use crate::tokenizer::{query_terms, tokens};

/// A kind of text (`--kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Headings, prose, tasks, other callouts.
    Text,
    Tool,
    Decision,
    Error,
    User,
}

impl Kind {
    /// `text`, `tool`, `decision`, `error` or `user`.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s.to_ascii_lowercase().as_str() {
            "text" => Self::Text,
            "tool" => Self::Tool,
            "decision" => Self::Decision,
            "error" => Self::Error,
            "user" => Self::User,
            _ => return None,
        })
    }
}

/// How hits are ordered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sort {
    #[default]
    Relevance,
    Newest,
}

/// Which parts may match (every field is optional).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub status: Option<String>,
    /// `name` or `name@version`.
    pub agent: Option<String>,
    pub channel: Option<String>,
    pub model: Option<String>,
    /// Sessions whose project is this directory or below it.
    pub project: Option<String>,
    /// Search only these kinds of text (all when empty).
    pub kinds: Vec<Kind>,
    pub since_ms: Option<i64>,
    pub until_ms: Option<i64>,
}

impl Filter {
    /// Adds the `field:value` filters written in the query; dates are read
    /// by `date` (value, end of day) → ms, which the caller owns (it knows
    /// the clock).
    pub fn add_query_filters(
        &mut self,
        query: &ParsedQuery,
        date: &dyn Fn(&str, bool) -> Result<i64, String>,
    ) -> Result<(), QueryError> {
        for f in &query.filters {
            let v = Some(f.value.clone());
            let at = |message: String| QueryError {
                column: f.column,
                message,
            };
            match f.field {
                // Checked as `--status` is: an unknown status is a bad
                // query, not a filter that quietly matches nothing.
                FilterField::Status => {
                    let status: crucible_core::SessionStatus = f
                        .value
                        .parse()
                        .map_err(|e: crucible_core::UnknownStatus| at(e.to_string()))?;
                    self.status = Some(status.as_str().to_owned());
                }
                FilterField::Agent => self.agent = v,
                FilterField::Channel => self.channel = v,
                FilterField::Model => self.model = v,
                FilterField::Project => self.project = v,
                FilterField::Kind => self.kinds.push(Kind::parse(&f.value).ok_or_else(|| {
                    at(format!(
                        "kind `{}` is not one of text, tool, decision, error, user",
                        f.value
                    ))
                })?),
                FilterField::Since => self.since_ms = Some(date(&f.value, false).map_err(at)?),
                FilterField::Until => self.until_ms = Some(date(&f.value, true).map_err(at)?),
            }
        }
        Ok(())
    }
}

/// A search.
#[derive(Debug, Clone)]
pub struct Request {
    pub query: ParsedQuery,
    pub filter: Filter,
    /// Hits to return after collapsing; 0 for all.
    pub limit: usize,
    pub offset: usize,
    pub sort: Sort,
    /// Hits kept per session, the best first (at least 1).
    pub per_session: usize,
}

/// One hit.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: String,
    /// `phase-N` counting from 1; 0 outside any phase.
    pub phase: u64,
    pub file: PathBuf,
    /// The line (1-based) of the part that holds the most query terms.
    pub line: u64,
    pub snippet: String,
    /// Byte ranges of the matches within `snippet`.
    pub ranges: Vec<(usize, usize)>,
    pub score: f32,
    /// The subagent whose text this is: its `[!subagent]` callout's, or
    /// the subagent session's own name when the session is a subagent's.
    pub subagent: Option<String>,
    /// The session the subagent works for: this session for a callout, its
    /// `parent:` or the session that names it for a subagent's session.
    pub parent: Option<String>,
    started_ms: i64,
    /// The name the session goes by as a subagent.
    agent_name: String,
}

fn text_fields(f: &Fields, kinds: &[Kind]) -> Vec<Field> {
    let all = [
        (Kind::Text, f.text),
        (Kind::Tool, f.tool),
        (Kind::Decision, f.decision),
        (Kind::Error, f.error),
        (Kind::User, f.user),
    ];
    all.iter()
        .filter(|(k, _)| kinds.is_empty() || kinds.contains(k))
        .map(|(_, field)| *field)
        .collect()
}

fn term_query(field: Field, text: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, text),
        IndexRecordOption::WithFreqs,
    ))
}

fn atom_on(field: Field, atom: &Atom) -> Option<Box<dyn Query>> {
    let text = match atom {
        Atom::Word(t) | Atom::Phrase(t) | Atom::Prefix(t) => t,
    };
    let (whole, parts) = query_terms(text)?;
    let terms = || {
        parts
            .iter()
            .map(|p| Term::from_field_text(field, p))
            .collect()
    };
    Some(match (atom, parts.as_slice()) {
        (Atom::Prefix(_), [one]) => Box::new(
            // Parts are letters and digits only: nothing to escape.
            RegexQuery::from_pattern(&format!("{one}.*"), field).ok()?,
        ),
        (Atom::Prefix(_), _) => Box::new(PhrasePrefixQuery::new(terms())),
        (_, [one]) => term_query(field, one),
        (Atom::Word(_), _) if !whole.is_empty() => Box::new(BooleanQuery::union(vec![
            term_query(field, &whole),
            Box::new(PhraseQuery::new(terms())),
        ])),
        _ => Box::new(PhraseQuery::new(terms())),
    })
}

fn filter_terms(f: &Fields, filter: &Filter) -> Vec<(Occur, Box<dyn Query>)> {
    let raw = |field: Field, v: &Option<String>| {
        v.as_ref().map(|v| {
            let q: Box<dyn Query> = Box::new(TermQuery::new(
                Term::from_field_text(field, &v.to_lowercase()),
                IndexRecordOption::Basic,
            ));
            (Occur::Must, q)
        })
    };
    let project = filter.project.as_ref().map(|p| {
        let p = p.trim_end_matches('/');
        let q: Box<dyn Query> = Box::new(TermQuery::new(
            Term::from_field_text(f.project, if p.is_empty() { "/" } else { p }),
            IndexRecordOption::Basic,
        ));
        (Occur::Must, q)
    });
    let mut out: Vec<_> = [
        raw(f.status, &filter.status),
        raw(f.agent, &filter.agent),
        raw(f.channel, &filter.channel),
        raw(f.model, &filter.model),
        project,
    ]
    .into_iter()
    .flatten()
    .collect();
    if filter.since_ms.is_some() || filter.until_ms.is_some() {
        let bound = |v: Option<i64>| {
            v.map_or(Bound::Unbounded, |v| {
                Bound::Included(Term::from_field_i64(f.started, v))
            })
        };
        out.push((
            Occur::Must,
            Box::new(RangeQuery::new(
                bound(filter.since_ms),
                bound(filter.until_ms),
            )),
        ));
    }
    out
}

/// The tantivy query of `request`, leaving out the documents of `excluded`
/// paths.
fn build(f: &Fields, request: &Request, excluded: &[String]) -> Box<dyn Query> {
    let fields = text_fields(f, &request.filter.kinds);
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for clause in &request.query.clauses {
        let any: Vec<Box<dyn Query>> = clause
            .any_of
            .iter()
            .flat_map(|a| fields.iter().filter_map(|field| atom_on(*field, a)))
            .collect();
        if any.is_empty() {
            continue;
        }
        let occur = if clause.negated {
            Occur::MustNot
        } else {
            Occur::Must
        };
        clauses.push((occur, Box::new(BooleanQuery::union(any))));
    }
    clauses.extend(filter_terms(f, &request.filter));
    for path in excluded {
        clauses.push((Occur::MustNot, term_query(f.path, path)));
    }
    if !clauses.iter().any(|(o, _)| *o == Occur::Must) {
        clauses.push((Occur::Must, Box::new(AllQuery)));
    }
    Box::new(BooleanQuery::new(clauses))
}

/// A matching part, before its line is found.
struct Candidate {
    score: f32,
    started_ms: i64,
    id: String,
    path: String,
    phase: u64,
    lines: (u64, u64),
    /// The part's subagent (a `[!subagent]` callout).
    subagent: Option<String>,
    /// The session's `parent:`.
    parent: Option<String>,
    agent_name: String,
}

/// The largest page ranked in the same pass as the count.
const ONE_PASS_MAX: usize = 100_000;

fn candidates(
    searcher: &Searcher,
    f: &Fields,
    query: &dyn Query,
    k: usize,
) -> Result<(Vec<Candidate>, usize), SearchError> {
    // A bounded page is counted and ranked in one pass: a phrase's
    // positions are the costly part of a query and would be read twice.
    // An unbounded one (every hit) is counted first, so the ranking's
    // buffer is sized by what matched rather than by `k`.
    let (count, top): (usize, Vec<(f32, DocAddress)>) = if k <= ONE_PASS_MAX {
        searcher.search(
            query,
            &(Count, TopDocs::with_limit(k.max(1)).order_by_score()),
        )?
    } else {
        let count = searcher.search(query, &Count)?;
        if count == 0 {
            return Ok((Vec::new(), 0));
        }
        let top = searcher.search(query, &TopDocs::with_limit(k.min(count)).order_by_score())?;
        (count, top)
    };
    let mut out = Vec::with_capacity(top.len());
    for (score, addr) in top {
        let doc: TantivyDocument = searcher.doc(addr)?;
        let text = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_owned()
        };
        let num = |field| doc.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0);
        let some = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .map(str::to_owned)
        };
        out.push(Candidate {
            score,
            started_ms: doc
                .get_first(f.started)
                .and_then(|v| v.as_i64())
                .unwrap_or(0),
            id: text(f.session),
            path: text(f.path),
            phase: num(f.phase),
            lines: (num(f.line_from), num(f.line_to)),
            subagent: some(f.subagent),
            parent: some(f.parent),
            agent_name: text(f.agent_name),
        });
    }
    Ok((out, count))
}

/// Orders and collapses `all` (best first within a session), keeping
/// `per_session` per session.
fn collapse(mut all: Vec<Candidate>, sort: Sort, per_session: usize) -> Vec<Candidate> {
    all.sort_by(|a, b| match sort {
        Sort::Relevance => b.score.total_cmp(&a.score),
        Sort::Newest => b
            .started_ms
            .cmp(&a.started_ms)
            .then(a.id.cmp(&b.id))
            .then(b.score.total_cmp(&a.score)),
    });
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut groups: Vec<Vec<Candidate>> = Vec::new();
    for c in all {
        let at = *seen.entry(c.path.clone()).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        if groups[at].len() < per_session.max(1) {
            groups[at].push(c);
        }
    }
    groups.into_iter().flatten().collect()
}

/// Answers `request` from `opened`; `dir` is the sessions directory.
pub fn search(opened: &Opened, dir: &Path, request: &Request) -> Result<Vec<Hit>, SearchError> {
    let wanted = request.offset + request.limit;
    let mut k = if request.limit == 0 || request.sort == Sort::Newest {
        usize::MAX
    } else {
        (wanted * request.per_session.max(1) * 4).max(64)
    };
    loop {
        let mut all = Vec::new();
        let mut more = false;
        for (searcher, excluded) in &opened.parts {
            let query = build(&opened.fields, request, excluded);
            let (found, count) = candidates(searcher, &opened.fields, query.as_ref(), k)?;
            more |= count > found.len();
            all.extend(found);
        }
        let collapsed = collapse(all, request.sort, request.per_session);
        if !more || collapsed.len() >= wanted {
            let page = collapsed.into_iter().skip(request.offset);
            let page: Vec<Candidate> = if request.limit == 0 {
                page.collect()
            } else {
                page.take(request.limit).collect()
            };
            let mut hits = locate(page, dir, &request.query);
            attribute(opened, &mut hits)?;
            return Ok(hits);
        }
        k = k.saturating_mul(4);
    }
}

/// Attributes the hits of sessions that do not name a parent but that
/// another session names as its subagent (a `[!subagent]` link or embed,
/// a `subagents:` entry): the first such session, by id.
fn attribute(opened: &Opened, hits: &mut [Hit]) -> Result<(), SearchError> {
    let mut parents: HashMap<String, Option<String>> = HashMap::new();
    for hit in hits.iter_mut().filter(|h| h.parent.is_none()) {
        if !parents.contains_key(&hit.id) {
            let found = named_by(opened, &hit.id)?;
            parents.insert(hit.id.clone(), found);
        }
        if let Some(parent) = &parents[&hit.id] {
            hit.parent = Some(parent.clone());
            hit.subagent = Some(hit.agent_name.clone());
        }
    }
    Ok(())
}

/// The least id of the sessions that name `child` as a subagent, if any
/// does (the files changed since the committed index, left out of it, are
/// asked in the index in RAM beside it).
fn named_by(opened: &Opened, child: &str) -> Result<Option<String>, SearchError> {
    let f = &opened.fields;
    let mut best: Option<String> = None;
    for (searcher, excluded) in &opened.parts {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(
            Occur::Must,
            Box::new(TermQuery::new(
                Term::from_field_text(f.children, child),
                IndexRecordOption::Basic,
            )),
        )];
        for path in excluded {
            clauses.push((Occur::MustNot, term_query(f.path, path)));
        }
        let query = BooleanQuery::new(clauses);
        let count = searcher.search(&query, &Count)?;
        if count == 0 {
            continue;
        }
        for (_, addr) in searcher.search(&query, &TopDocs::with_limit(count).order_by_score())? {
            let doc: TantivyDocument = searcher.doc(addr)?;
            if let Some(id) = doc.get_first(f.session).and_then(|v| v.as_str())
                && id != child
                && best.as_deref().is_none_or(|b| id < b)
            {
                best = Some(id.to_owned());
            }
        }
    }
    Ok(best)
}

/// The terms a line is matched against: whole words and parts, and
/// prefixes.
fn positive_terms(query: &ParsedQuery) -> (Vec<String>, Vec<String>) {
    let mut exact = Vec::new();
    let mut prefixes = Vec::new();
    for clause in query.clauses.iter().filter(|c| !c.negated) {
        for atom in &clause.any_of {
            match atom {
                Atom::Word(t) | Atom::Phrase(t) => {
                    if let Some((whole, parts)) = query_terms(t) {
                        exact.push(whole);
                        exact.extend(parts);
                    }
                }
                Atom::Prefix(t) => {
                    if let Some((_, parts)) = query_terms(t) {
                        prefixes.extend(parts);
                    }
                }
            }
        }
    }
    exact.retain(|t| !t.is_empty());
    (exact, prefixes)
}

fn locate(page: Vec<Candidate>, dir: &Path, query: &ParsedQuery) -> Vec<Hit> {
    let (exact, prefixes) = positive_terms(query);
    let mut files: HashMap<String, Vec<String>> = HashMap::new();
    page.into_iter()
        .map(|c| {
            let file = dir.join(&c.path);
            let lines = files.entry(c.path.clone()).or_insert_with(|| {
                std::fs::read(&file)
                    .map(|b| {
                        String::from_utf8_lossy(&b)
                            .lines()
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default()
            });
            // A part's own line is never one of its subagents' callouts,
            // which are parts of their own.
            let skip = if c.subagent.is_none() {
                let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
                crate::document::subagent_callouts(&refs, c.lines)
            } else {
                Vec::new()
            };
            let (line, snippet, ranges) = best_line(lines, c.lines, &skip, &exact, &prefixes);
            // A callout's subagent works for this session; a subagent's
            // session names its parent, or is found named by one later.
            let (subagent, parent) = match (c.subagent, c.parent) {
                (Some(name), _) => (Some(name), Some(c.id.clone())),
                (None, Some(parent)) => (Some(c.agent_name.clone()), Some(parent)),
                (None, None) => (None, None),
            };
            Hit {
                subagent,
                parent,
                id: c.id,
                phase: c.phase,
                file,
                line,
                snippet,
                ranges,
                score: c.score,
                started_ms: c.started_ms,
                agent_name: c.agent_name,
            }
        })
        .collect()
}

/// The line of `range` (1-based, end excluded) and outside the ranges of
/// `skip` holding the most distinct query terms, the first such; its snippet (at most `SNIPPET` chars) and
/// the match ranges in it.
fn best_line(
    lines: &[String],
    range: (u64, u64),
    skip: &[(u64, u64)],
    exact: &[String],
    prefixes: &[String],
) -> (u64, String, Vec<(usize, usize)>) {
    let from = range.0.max(1);
    type Best = (usize, u64, Vec<(usize, usize)>);
    let mut best: Option<Best> = None;
    let skipped = |n: u64| skip.iter().any(|&(a, b)| (a..b).contains(&n));
    for n in from..range.1.max(from + 1) {
        if skipped(n) {
            continue;
        }
        let Some(text) = lines.get(n as usize - 1) else {
            break;
        };
        let mut matched: Vec<&str> = Vec::new();
        let mut ranges = Vec::new();
        for t in tokens(text) {
            let hit =
                exact.contains(&t.text) || prefixes.iter().any(|p| t.text.starts_with(p.as_str()));
            if hit {
                matched.push(
                    exact
                        .iter()
                        .find(|e| **e == t.text)
                        .map_or("", String::as_str),
                );
                ranges.push((t.offset_from, t.offset_to));
            }
        }
        matched.sort_unstable();
        matched.dedup();
        let score = matched.len() + usize::from(!ranges.is_empty());
        if score > 0 && best.as_ref().is_none_or(|b| score > b.0) {
            best = Some((score, n, ranges));
        }
    }
    // No line holds a term (a match in the title or a filter alone): the
    // part's first line that is not blank.
    let first_text = (from..range.1.max(from + 1))
        .find(|n| {
            lines
                .get(*n as usize - 1)
                .is_some_and(|l| !l.trim().is_empty())
        })
        .unwrap_or(from);
    let (line, ranges) = best.map_or((first_text, Vec::new()), |(_, n, r)| (n, r));
    let text = lines.get(line as usize - 1).map_or("", String::as_str);
    snippet(text, &ranges, line)
}

const SNIPPET: usize = 160;

fn snippet(text: &str, ranges: &[(usize, usize)], line: u64) -> (u64, String, Vec<(usize, usize)>) {
    let mut ranges = merge(ranges);
    let lead = text.len() - text.trim_start().len();
    let first = ranges.first().map_or(lead, |r| r.0);
    // Start a little before the first match, on a char boundary.
    let mut start = first.saturating_sub(SNIPPET / 3).max(lead);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    // Begin at a word: after the first space past the cut, if one comes
    // before the match.
    // The space may be more than a byte (U+202F, a narrow no-break space,
    // is common in French and in model output).
    if start > lead
        && let Some((at, space)) = text[start..first]
            .char_indices()
            .find(|(_, c)| c.is_whitespace())
    {
        start += at + space.len_utf8();
    }
    let mut end = text.len().min(start + SNIPPET);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    ranges.retain(|r| r.0 >= start && r.1 <= end);
    let shifted = ranges.iter().map(|(a, b)| (a - start, b - start)).collect();
    (line, text[start..end].trim_end().to_owned(), shifted)
}

/// Overlapping ranges (a compound and its parts) as one.
fn merge(ranges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut sorted = ranges.to_vec();
    sorted.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (a, b) in sorted {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

impl Hit {
    /// The session's start, ms since the epoch.
    pub fn started_ms(&self) -> i64 {
        self.started_ms
    }
}

#[cfg(test)]
mod tests {
    use super::snippet;

    #[test]
    fn a_snippet_cut_after_a_space_of_several_bytes_starts_on_a_char() {
        // The cut falls before the match, whose snippet then starts after
        // the first space: here a narrow no-break space (three bytes), as
        // in a real Codex reply ("aren’t\u{202f}already").
        let text = format!("{}\u{202f}word {}target", "x".repeat(100), "y ".repeat(10));
        let at = text.find("target").unwrap();
        let (_, cut, ranges) = snippet(&text, &[(at, at + 6)], 1);
        assert!(cut.starts_with("word"), "{cut}");
        assert_eq!(&cut[ranges[0].0..ranges[0].1], "target");
    }
}
