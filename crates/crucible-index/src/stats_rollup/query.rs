//! `cru session stats` answered from the rollup file's stats tables
//! ([`super`]) instead of every usage cell: the sessions' own figures from
//! the base rows as the visit finds them, each fresh one counted in the
//! groups its lines fall in ([`KeysOf`]), every other one (changed, new,
//! live, in the delta) from its lines as they are now; the tokens from the
//! table, less the old lines of the base rows that are not fresh, plus the
//! lines of every session that is not a fresh base row. Whatever cannot be
//! answered exactly (a row not exact, a fresh row the file does not know,
//! a session whose lines cannot be had) leaves the question to the cells.

use std::borrow::Cow;

use crucible_core::UsageLine;

use super::{GroupKind, GroupTable, KeysOf};
use crate::path_set::{PathHashes, path_hash};
use crate::record::{Facts, UsageCell};
use crate::rollup_file::{RollupFile, StatsFile};
use crate::stats::{Aggregator, GroupBy, line_group, period_of_day};

/// A stats query the rollup file can answer.
#[derive(Debug)]
pub struct StatsQuery {
    by: GroupBy,
    kind: GroupKind,
    rollup: RollupFile,
    groups: GroupTable,
    keys: KeysOf,
    /// The file's names as the groups of `by` (a day's week or month).
    labels: Vec<String>,
}

/// What a visit answered from ([`crate::Opened::generation`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visited {
    /// The rows of the base written with this generation.
    Base(u64),
    /// Records with their lines: the index rebuilt, or loaded whole.
    Records,
}

/// One visiting thread's share of a [`StatsQuery`].
#[derive(Debug)]
pub struct StatsShare {
    agg: Aggregator,
    /// Hashes of the paths of the base rows found fresh (in the table).
    fresh: Vec<u64>,
    /// The lines of every other session.
    now: GroupTable,
    /// A session the file cannot answer for.
    cannot: bool,
}

impl StatsQuery {
    /// `None` when `by` is not answered from the table, or the file keeps
    /// no session keys.
    pub fn new(by: GroupBy, file: StatsFile) -> Option<Self> {
        let kind = GroupKind::of(by)?;
        let keys = file.keys?;
        let labels = match by {
            GroupBy::Week | GroupBy::Month => {
                keys.names.iter().map(|n| period_of_day(n, by)).collect()
            }
            _ => keys.names.clone(),
        };
        Some(Self {
            by,
            kind,
            rollup: file.rollup,
            groups: file.groups,
            keys,
            labels,
        })
    }

    /// The write of the base the file sums ([`crate::files::new_generation`]).
    pub fn generation(&self) -> u64 {
        self.rollup.base.generation
    }

    pub fn share(&self) -> StatsShare {
        StatsShare {
            agg: Aggregator::new(self.by),
            fresh: Vec::new(),
            now: GroupTable::default(),
            cannot: false,
        }
    }

    /// Adds a session the visit found (unfiltered stats takes every one).
    pub fn add(&self, share: &mut StatsShare, facts: &Facts<'_>) {
        if matches!(facts.usage, UsageCell::NotRead) {
            let hash = path_hash(&facts.path);
            // Not named: its lines add no group to its own.
            let ids = self.keys.of(hash).unwrap_or_default();
            share.fresh.push(hash);
            let labels = ids.iter().map(|&i| self.labels[i as usize].as_str());
            share.agg.add_session(facts, labels);
            return;
        }
        let Ok(lines) = facts.usage() else {
            share.cannot = true;
            return;
        };
        let labels: Vec<Cow<'_, str>> = lines
            .iter()
            .filter_map(|l| line_group(self.by, l))
            .collect();
        share
            .agg
            .add_session(facts, labels.iter().map(AsRef::as_ref));
        share.now.add(&lines, &[self.kind]);
    }

    /// The answer: the shares' sessions, and the table's tokens with the
    /// query's changes. `visited` says what the visit answered from: the
    /// rows of the base the file sums, or (`Visited::Records`) records with
    /// their lines (an index rebuilt or loaded whole), the table then not
    /// used. `outside` gives the old lines of the base rows not among the
    /// fresh ones (given: their hashes and how many), as
    /// [`RollupFile::usage_outside`] does; it is asked only when some base
    /// row is not fresh. `None`: the cells must answer.
    pub fn finish(
        self,
        shares: Vec<StatsShare>,
        visited: Visited,
        outside: impl FnOnce(&RollupFile, &PathHashes, usize) -> Option<Vec<Vec<UsageLine>>>,
    ) -> Option<Aggregator> {
        if shares.iter().any(|s| s.cannot) {
            return None;
        }
        let fresh_rows: usize = shares.iter().map(|s| s.fresh.len()).sum();
        let from_base = match visited {
            Visited::Base(generation) if generation == self.generation() => true,
            // Every session came with its lines: they are the answer.
            Visited::Records if fresh_rows == 0 => false,
            Visited::Base(_) | Visited::Records => return None,
        };
        let taken = if !from_base || fresh_rows == self.rollup.base.rows {
            Vec::new()
        } else {
            let fresh: PathHashes = shares
                .iter()
                .flat_map(|s| s.fresh.iter().copied())
                .collect();
            outside(&self.rollup, &fresh, fresh_rows)?
        };
        let mut groups = if from_base {
            self.groups
        } else {
            GroupTable::default()
        };
        let mut agg = Aggregator::new(self.by);
        for share in shares {
            groups.merge(&share.now);
            agg.merge(share.agg);
        }
        for old in &taken {
            groups.remove(old, &[self.kind]);
        }
        if !groups.is_exact() {
            return None;
        }
        for (key, sums) in &groups.rows {
            let group = match self.by {
                GroupBy::Week | GroupBy::Month => Cow::Owned(period_of_day(&key.group, self.by)),
                _ => Cow::Borrowed(key.group.as_str()),
            };
            agg.add_group_line(&group, &sums.line(key));
        }
        Some(agg)
    }
}
