//! Which imported session holds each Claude Code request, so that a
//! request is counted once across files.
//!
//! Claude Code copies history into new transcripts: a resumed or forked
//! session starts with the lines of the one it came from, each response
//! with its `message.id` and `requestId`. ccusage counts such a response
//! once over every file it reads (it reads them in path order and keeps
//! the first copy). So does an import: a record whose id
//! (`<message.id>:<requestId>`) a session of another Claude Code source
//! already holds, in the store or earlier in the same run, is left out of
//! the session being stored, and its totals are taken again without it.
//!
//! A response without a request id is compared across files by its
//! message id and the Claude Code session of its line
//! (`<message.id>@<sessionId>`): ccusage counts it once per session,
//! however many transcripts hold it, and once in each session that holds
//! it (gateways reuse message ids across sessions). A line that names no
//! session either keeps its message id alone, compared within its file
//! only.

use std::collections::HashMap;

use crucible_core::{SessionLog, UsageRecord};

use crate::{Format, Provenance};

/// Claude Code request ids and the sources (provenance paths) whose
/// sessions hold them.
#[derive(Debug, Default)]
pub(crate) struct RequestOwners {
    owners: HashMap<String, Vec<String>>,
    /// source → the ids its session holds, to let go of them when it is
    /// stored again.
    held: HashMap<String, Vec<String>>,
}

/// True for a record id that names a request across files: with its
/// request id, or with its session when it has none
/// (`request_id` in `claude_code/tokens.rs`).
fn is_shared_id(id: &str) -> bool {
    id.contains(':') || crate::claude_code::message_in_session(id).is_some()
}

/// True for a Claude Code import.
fn is_claude(p: &Provenance) -> bool {
    p.format == Format::ClaudeCode.as_str()
}

impl RequestOwners {
    /// The owners of the requests in `sessions` (what a store holds).
    pub(crate) fn of<'a>(sessions: impl IntoIterator<Item = &'a SessionLog>) -> Self {
        let mut owners = Self::default();
        for log in sessions {
            if let Some(p) = Provenance::of(log).filter(is_claude) {
                owners.hold(log, &p.path);
            }
        }
        owners
    }

    /// Takes out of `log` (about to be stored from `source`) every record
    /// that a session of another source holds, refreshes its totals, and
    /// says whether it took any. `same` names the source whose session
    /// `log` replaces when the source moved: that session is this one.
    pub(crate) fn drop_repeats(
        &self,
        log: &mut SessionLog,
        source: &Provenance,
        same: Option<&str>,
    ) -> bool {
        if !is_claude(source) || self.owners.is_empty() {
            return false;
        }
        let elsewhere = |id: &str| {
            self.owners.get(id).is_some_and(|o| {
                o.iter()
                    .any(|s| *s != source.path && Some(s.as_str()) != same)
            })
        };
        let repeated = |r: &UsageRecord| {
            r.id.as_deref()
                .is_some_and(|id| is_shared_id(id) && elsewhere(id))
        };
        let mut dropped = false;
        for p in log.phases_mut() {
            let before = p.usage.len();
            p.usage.retain(|r| !repeated(r));
            dropped |= p.usage.len() != before;
        }
        if dropped {
            refresh_totals(log);
        }
        dropped
    }

    /// Records that `log`, as now stored from `source`, holds its
    /// requests, in place of what `replaced` held (its own earlier import,
    /// and the path it moved from).
    pub(crate) fn stored(&mut self, log: &SessionLog, source: &Provenance, replaced: &[&str]) {
        if !is_claude(source) {
            return;
        }
        for old in replaced {
            for id in self.held.remove(*old).unwrap_or_default() {
                if let Some(o) = self.owners.get_mut(&id) {
                    o.retain(|s| s != old);
                    if o.is_empty() {
                        self.owners.remove(&id);
                    }
                }
            }
        }
        self.hold(log, &source.path);
    }

    fn hold(&mut self, log: &SessionLog, source: &str) {
        for r in log.usage_records() {
            let Some(id) = r.id.as_deref().filter(|id| is_shared_id(id)) else {
                continue;
            };
            let owners = self.owners.entry(id.to_owned()).or_default();
            if !owners.iter().any(|s| s == source) {
                owners.push(source.to_owned());
                self.held
                    .entry(source.to_owned())
                    .or_default()
                    .push(id.to_owned());
            }
        }
    }
}

/// The session's totals from the records it kept. A session left with no
/// record at all (every response a copy) spent nothing of its own.
fn refresh_totals(log: &mut SessionLog) {
    if log.usage_records().next().is_none() {
        log.frontmatter.tokens_used = None;
        log.frontmatter.extra.remove("usage");
        return;
    }
    log.refresh_usage_totals();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_core::{Frontmatter, Phase, Section, SessionId, Timestamp, Tokens};

    fn provenance(format: Format, path: &str) -> Provenance {
        Provenance {
            format: format.as_str().into(),
            path: path.into(),
            id: None,
            source_hash: "h".into(),
            session_hash: "s".into(),
            data_hash: None,
        }
    }

    /// A session from `p` whose one phase holds records with `ids`.
    fn session(p: &Provenance, ids: &[&str]) -> SessionLog {
        let fm = Frontmatter::new(SessionId::new("s").unwrap(), Timestamp::from_unix_ms(0));
        let mut log = SessionLog::new(fm);
        let mut phase = Phase::new("a", None, None);
        phase.usage = ids
            .iter()
            .map(|id| UsageRecord {
                id: Some((*id).to_owned()),
                tokens: Tokens {
                    input: 10,
                    ..Tokens::default()
                },
                ..UsageRecord::default()
            })
            .collect();
        log.sections.push(Section::Phase(phase));
        log.refresh_usage_totals();
        p.store(&mut log);
        log
    }

    fn ids(log: &SessionLog) -> Vec<&str> {
        log.usage_records()
            .filter_map(|r| r.id.as_deref())
            .collect()
    }

    #[test]
    fn only_another_claude_sources_requests_are_left_out() {
        let stored = provenance(Format::ClaudeCode, "/a.jsonl");
        const S1: &str = "aaaaaaaa-0000-4000-8000-000000000001";
        const S2: &str = "bbbbbbbb-0000-4000-8000-000000000002";
        let (m4, m5) = (format!("m4@{S1}"), format!("m5@{S1}"));
        let m5_elsewhere = format!("m5@{S2}");
        let owners = RequestOwners::of([&session(&stored, &["m1:r1", "m2", &m4, &m5])]);
        let new = provenance(Format::ClaudeCode, "/b.jsonl");
        let mut log = session(&new, &["m1:r1", "m2", "m3:r3", &m4, &m5_elsewhere]);
        assert!(owners.drop_repeats(&mut log, &new, None));
        // A message id without a request id is compared across files only
        // with its session: the same session's copy is left out, another
        // session's stays, and an id that names no session (`m2`) is not
        // compared.
        assert_eq!(ids(&log), ["m2", "m3:r3", m5_elsewhere.as_str()]);
        assert_eq!(log.frontmatter.tokens_used, Some(30));
        // The same source again, or from where it moved: its own records.
        let mut again = session(&stored, &["m1:r1"]);
        assert!(!owners.drop_repeats(&mut again, &stored, None));
        let moved = provenance(Format::ClaudeCode, "/moved/a.jsonl");
        let mut log = session(&moved, &["m1:r1"]);
        assert!(!owners.drop_repeats(&mut log, &moved, Some("/a.jsonl")));
        // Another format's ids are its own.
        let codex = provenance(Format::Codex, "/c.jsonl");
        let mut log = session(&codex, &["m1:r1"]);
        assert!(!owners.drop_repeats(&mut log, &codex, None));
    }

    #[test]
    fn a_source_stored_again_lets_go_of_what_it_held() {
        let a = provenance(Format::ClaudeCode, "/a.jsonl");
        let mut owners = RequestOwners::of([&session(&a, &["m1:r1"])]);
        // `a` is stored again without the request: `b` may hold it now.
        owners.stored(&session(&a, &[]), &a, &["/a.jsonl"]);
        let b = provenance(Format::ClaudeCode, "/b.jsonl");
        let mut log = session(&b, &["m1:r1"]);
        assert!(!owners.drop_repeats(&mut log, &b, None));
        owners.stored(&log, &b, &["/b.jsonl"]);
        let mut again = session(&a, &["m1:r1"]);
        assert!(owners.drop_repeats(&mut again, &a, None));
        assert_eq!(again.frontmatter.tokens_used, None, "every record a copy");
    }
}
