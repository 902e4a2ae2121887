//! The record of what reached which endpoint, and what to send next.
//!
//! A trace is sent in the parts that settle apart ([`crate::Trace`]): the
//! root once the session is over, each phase once it is closed. An engine
//! that keeps the first copy of a span (Phoenix inserts with `ON CONFLICT
//! DO NOTHING`) would keep an open phase's first end time forever, so an
//! unsettled part is never sent. The record keeps, per endpoint and
//! session, how many phases went (always a prefix: phases close in order),
//! whether the root went, and one hash of those parts as sent: a later
//! run compares it with the same parts now, and sends only what settled
//! since, or, when a part already sent changed (an edit by hand, an
//! inserted phase, a resumed session), every settled part again with a
//! warning. A session is entered only once the endpoint accepted its
//! batch, so a run that failed leaves it to the next.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::SentRecordError;
use crate::encode::EncodedSpans;
use crate::mapping::{Resource, Trace};
use crate::span::Span;

/// Endpoint → session id → what was sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SentRecord {
    endpoints: BTreeMap<String, BTreeMap<String, Sent>>,
}

/// What an endpoint holds of one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Sent {
    Parts(SentParts),
    /// A record written before parts were sent apart: the whole session's
    /// hash, open phases included. It says nothing this version can
    /// compare, so the session is sent again.
    Legacy(String),
}

/// The settled parts of a session an endpoint accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentParts {
    /// The first this many phases.
    pub phases: usize,
    /// The root (with what came before the first phase).
    pub root: bool,
    /// [`PartHashes::hash_of`] those parts.
    pub hash: String,
}

/// A hash of each part of a session's trace as it would be sent now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartHashes {
    seed: u64,
    root: u64,
    phases: Vec<u64>,
    root_settled: bool,
    closed: usize,
}

impl PartHashes {
    /// The hashes of `trace`'s parts, sent under `resource` by cru
    /// `version` (either changing changes every hash: a new mapping or
    /// project is a change).
    pub fn of(trace: &Trace, resource: &Resource, version: &str) -> Self {
        let root = crate::encode_spans(&trace.root);
        let phases: Vec<EncodedSpans> = trace
            .phases
            .iter()
            .map(|p| crate::encode_spans(&p.spans))
            .collect();
        Self::of_encoded(trace, &root, &phases, resource, version)
    }

    /// [`PartHashes::of`] from the parts as [`crate::encode_spans`] encoded
    /// them (`root`, then each of `phases`), so that a sender encodes each
    /// span once for hashing and sending both.
    pub fn of_encoded(
        trace: &Trace,
        root: &EncodedSpans,
        phases: &[EncodedSpans],
        resource: &Resource,
        version: &str,
    ) -> Self {
        let mut seed = Vec::new();
        for (k, v) in &resource.attributes {
            for s in [k, v] {
                seed.extend_from_slice(&(s.len() as u64).to_le_bytes());
                seed.extend_from_slice(s.as_bytes());
            }
        }
        seed.extend_from_slice(version.as_bytes());
        let hash = |e: &EncodedSpans| xxhash_rust::xxh3::xxh3_64(&e.bytes);
        Self {
            seed: xxhash_rust::xxh3::xxh3_64(&seed),
            root: hash(root),
            phases: phases.iter().map(hash).collect(),
            root_settled: trace.root_settled,
            closed: trace.phases.iter().take_while(|p| p.closed).count(),
        }
    }

    /// The settled phases (a prefix).
    pub fn closed_phases(&self) -> usize {
        self.closed
    }

    /// Phases still open (held back).
    pub fn open_phases(&self) -> usize {
        self.phases.len() - self.closed
    }

    pub fn root_settled(&self) -> bool {
        self.root_settled
    }

    /// The hash of the root (when `root`) and the first `phases` phases;
    /// `None` when the session has fewer phases than that now.
    pub fn hash_of(&self, root: bool, phases: usize) -> Option<String> {
        let parts = self.phases.get(..phases)?;
        let mut bytes = Vec::with_capacity(8 * (parts.len() + 2));
        bytes.extend_from_slice(&self.seed.to_le_bytes());
        if root {
            bytes.extend_from_slice(&self.root.to_le_bytes());
        }
        for h in parts {
            bytes.extend_from_slice(&h.to_le_bytes());
        }
        Some(format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)))
    }

    /// Every settled part, as a record entry.
    fn all_settled(&self) -> SentParts {
        SentParts {
            phases: self.closed,
            root: self.root_settled,
            hash: self
                .hash_of(self.root_settled, self.closed)
                .expect("the closed phases are phases"),
        }
    }
}

/// What to send of one session, and what the record says once it is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub root: bool,
    pub phases: Range<usize>,
    /// A part the endpoint holds changed since: every settled part goes
    /// again, and an engine that keeps the first copy of a span keeps the
    /// old one.
    pub changed: bool,
    /// The record's entry once the endpoint accepted what is sent.
    pub entry: SentParts,
}

impl Plan {
    /// Nothing to send: nothing settled, or nothing settled since.
    pub fn is_empty(&self) -> bool {
        !self.root && self.phases.is_empty()
    }

    /// The spans to send of `trace`, root first.
    /// The due parts of a trace encoded by [`crate::encode_spans`] (`root`,
    /// then each of `phases`), in [`Plan::take`]'s order.
    pub fn take_encoded(&self, root: EncodedSpans, phases: Vec<EncodedSpans>) -> Vec<EncodedSpans> {
        let mut due = Vec::new();
        if self.root {
            due.push(root);
        }
        due.extend(
            phases
                .into_iter()
                .enumerate()
                .filter(|(i, _)| self.phases.contains(i))
                .map(|(_, p)| p),
        );
        due
    }

    pub fn take(&self, trace: Trace) -> Vec<Span> {
        let mut spans = if self.root { trace.root } else { Vec::new() };
        for (i, p) in trace.phases.into_iter().enumerate() {
            if self.phases.contains(&i) {
                spans.extend(p.spans);
            }
        }
        spans
    }
}

impl SentRecord {
    /// The record at `path`; an empty one when there is no file yet.
    pub fn load(path: &Path) -> Result<Self, SentRecordError> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => {
                return Err(SentRecordError::Read {
                    path: path.to_owned(),
                    source,
                });
            }
        };
        serde_json::from_slice(&bytes).map_err(|e| SentRecordError::Invalid {
            path: path.to_owned(),
            line: e.line(),
            message: e.to_string(),
        })
    }

    /// Writes the record to `path` atomically (a temporary file renamed
    /// over it; through a symbolic link, over the file it leads to): a
    /// reader sees the old record or the new, never half.
    pub fn save(&self, path: &Path) -> Result<(), SentRecordError> {
        crucible_core::store::atomic::write_output(path, &self.to_json()).map_err(|source| {
            SentRecordError::Write {
                path: path.to_owned(),
                source,
            }
        })
    }

    /// One line per session: 10,000 sessions make about a megabyte, and
    /// a diff of two records reads line by line.
    fn to_json(&self) -> Vec<u8> {
        let mut out = String::from("{");
        for (i, (endpoint, sessions)) in self.endpoints.iter().enumerate() {
            out.push_str(if i == 0 { "\n  " } else { ",\n  " });
            out.push_str(&json(endpoint));
            out.push_str(": {");
            for (j, (id, sent)) in sessions.iter().enumerate() {
                out.push_str(if j == 0 { "\n    " } else { ",\n    " });
                out.push_str(&json(id));
                out.push_str(": ");
                out.push_str(&json(sent));
            }
            out.push_str(if sessions.is_empty() { "}" } else { "\n  }" });
        }
        out.push_str(if self.endpoints.is_empty() {
            "}\n"
        } else {
            "\n}\n"
        });
        out.into_bytes()
    }

    /// What to send of `session` to `endpoint`, its parts hashed as
    /// `now`: with `again` (`--all`, named sessions) every settled part;
    /// otherwise what settled since the last send, or everything settled
    /// when a part sent before changed.
    pub fn plan(&self, endpoint: &str, session: &str, now: &PartHashes, again: bool) -> Plan {
        let all = || Plan {
            root: now.root_settled,
            phases: 0..now.closed,
            changed: false,
            entry: now.all_settled(),
        };
        let before = self.endpoints.get(endpoint).and_then(|m| m.get(session));
        let sent = match before {
            None | Some(Sent::Legacy(_)) => return all(),
            Some(_) if again => return all(),
            Some(Sent::Parts(p)) => p,
        };
        if now.hash_of(sent.root, sent.phases).as_ref() != Some(&sent.hash) {
            return Plan {
                changed: true,
                ..all()
            };
        }
        let root = now.root_settled && !sent.root;
        let phases = sent.phases.min(now.closed)..now.closed;
        let (root_sent, n) = (sent.root || root, sent.phases.max(now.closed));
        Plan {
            root,
            phases,
            changed: false,
            entry: SentParts {
                phases: n,
                root: root_sent,
                hash: now.hash_of(root_sent, n).expect("no more phases than now"),
            },
        }
    }

    pub fn mark_sent(&mut self, endpoint: &str, session: &str, parts: SentParts) {
        self.endpoints
            .entry(endpoint.to_owned())
            .or_default()
            .insert(session.to_owned(), Sent::Parts(parts));
    }

    /// Folds in what `other` records (a record read again under the lock,
    /// so that two runs at once both keep what they sent).
    pub fn merge(&mut self, other: Self) {
        for (endpoint, sessions) in other.endpoints {
            self.endpoints.entry(endpoint).or_default().extend(sessions);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.endpoints.values().all(BTreeMap::is_empty)
    }
}

fn json<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).expect("strings and numbers serialize")
}

#[cfg(test)]
mod tests;
