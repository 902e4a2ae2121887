//! What `cru session stats --group-by agent|channel|model|day|week|month`
//! needs of the usage lines, kept with the rollup (issue 19): without it,
//! stats decodes every usage cell (190 MB at 100,000 sessions) for two
//! things the base rows do not say.
//!
//! - The tokens of each group: [`GroupTable`], the lines summed by group
//!   (the agent credited, as stats names it; the channel; the model; the
//!   UTC day of the line's first request), model and cost written or not.
//!   It is kept by difference, as the hourly rollup is
//!   ([`crate::rollup`]): exact integer sums (written costs in
//!   nano-dollars), so a table kept by adding and taking away sessions'
//!   lines equals one built afresh (a property test checks it). It keeps no
//!   first request, which stats does not show: a removal never makes it
//!   inexact, only an overflow or a cost that is not a finite amount.
//! - Which groups each session's lines add to those of its own facts:
//!   [`SessionKeys`]. A session counts (sessions, durations, failures,
//!   errors, interventions) in every group its own facts or its lines fall
//!   in, and those figures (a minimum, a maximum) cannot be taken away by
//!   difference. So the groups are kept per session, by the hash of its
//!   path, and only where the lines add some: a query takes those of the
//!   base rows it finds fresh from here, and those of every other session
//!   from its lines as they are now.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use crucible_core::UsageLine;

use crate::path_set::path_hash;
use crate::record::Facts;
use crate::rollup::lines::Names;
use crate::rollup::{LineSums, NANOS_PER_USD};
use crate::stats::{GroupBy, NONE, line_group, own_groups};

mod query;
pub mod rows;

pub use query::{StatsQuery, StatsShare, Visited};

/// The lines' groupings the table keeps (week and month are days added up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GroupKind {
    Agent,
    Channel,
    Model,
    /// The UTC day of a line's first request (`2025-10-02`).
    Day,
}

impl GroupKind {
    pub const ALL: [GroupKind; 4] = [
        GroupKind::Agent,
        GroupKind::Channel,
        GroupKind::Model,
        GroupKind::Day,
    ];

    /// Its name in the rollup file.
    pub fn name(self) -> &'static str {
        match self {
            GroupKind::Agent => "agent",
            GroupKind::Channel => "channel",
            GroupKind::Model => "model",
            GroupKind::Day => "day",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kind a grouping of stats is answered from; `None` for the
    /// groupings whose tokens go by the session's own facts.
    pub fn of(by: GroupBy) -> Option<Self> {
        match by {
            GroupBy::Agent => Some(GroupKind::Agent),
            GroupBy::Channel => Some(GroupKind::Channel),
            GroupBy::Model => Some(GroupKind::Model),
            GroupBy::Day | GroupBy::Week | GroupBy::Month => Some(GroupKind::Day),
            GroupBy::Status | GroupBy::Phase | GroupBy::Project | GroupBy::Session => None,
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// The grouping of stats whose groups this kind's are.
    fn group_by(self) -> GroupBy {
        match self {
            GroupKind::Agent => GroupBy::Agent,
            GroupKind::Channel => GroupBy::Channel,
            GroupKind::Model => GroupBy::Model,
            GroupKind::Day => GroupBy::Day,
        }
    }

    /// The group of this kind a line's tokens go to, named as stats
    /// names it ([`crate::stats::Aggregator`]).
    pub fn label(self, line: &UsageLine) -> Cow<'_, str> {
        line_group(self.group_by(), line).unwrap_or(Cow::Borrowed(NONE))
    }
}

/// What a row of the table sums over.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupKey {
    pub kind: GroupKind,
    /// The group, as [`GroupKind::label`] names it.
    pub group: String,
    pub model: Option<String>,
    /// The source wrote the cost of every request of these lines.
    pub recorded: bool,
}

/// The sums of one row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupSums {
    /// The lines' sums, as an hourly rollup row keeps them too.
    pub sums: LineSums,
    /// False when a sum overflowed or a written cost was not a finite
    /// amount: the table cannot answer, and stats reads the cells.
    pub exact: bool,
}

impl std::ops::Deref for GroupSums {
    type Target = LineSums;
    fn deref(&self) -> &LineSums {
        &self.sums
    }
}

impl std::ops::DerefMut for GroupSums {
    fn deref_mut(&mut self) -> &mut LineSums {
        &mut self.sums
    }
}

impl GroupSums {
    /// A row of no lines yet, exact.
    fn none_yet() -> Self {
        Self {
            exact: true,
            ..Self::default()
        }
    }

    /// Adds (`add`) or takes away one line; false when a sum cannot be
    /// kept exactly.
    fn apply(&mut self, line: &UsageLine, add: bool) -> bool {
        self.sums.apply(line, add)
    }

    /// Adds another row of the same key; false when a sum overflows.
    fn add_sums(&mut self, o: &GroupSums) -> bool {
        if !self.sums.add_sums(&o.sums) {
            return false;
        }
        self.exact &= o.exact;
        true
    }

    /// The row as one usage line of its model, for stats to add to its
    /// group and price (prices are linear in the tokens, and the tokens
    /// above each threshold are kept apart).
    pub fn line(&self, key: &GroupKey) -> UsageLine {
        #[allow(clippy::cast_precision_loss)]
        let written = self.recorded_nanos as f64 / NANOS_PER_USD;
        UsageLine {
            model: key.model.clone(),
            requests: self.requests,
            tokens: self.tokens,
            untyped: self.untyped,
            recorded: key.recorded,
            recorded_cost_usd: if key.recorded { written } else { 0.0 },
            above: self.above.iter().map(|(t, a)| (*t, *a)).collect(),
            ..UsageLine::default()
        }
    }
}

/// Every session's lines summed by group, model and cost written or not,
/// for the kinds it was built for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupTable {
    pub rows: BTreeMap<GroupKey, GroupSums>,
}

impl GroupTable {
    /// Adds a session's lines to the rows of `kinds`.
    pub fn add(&mut self, lines: &[UsageLine], kinds: &[GroupKind]) {
        self.apply(lines, kinds, true);
    }

    /// Takes a session's lines (added before) away from the rows of `kinds`.
    pub fn remove(&mut self, lines: &[UsageLine], kinds: &[GroupKind]) {
        self.apply(lines, kinds, false);
    }

    fn apply(&mut self, lines: &[UsageLine], kinds: &[GroupKind], add: bool) {
        for line in lines {
            for &kind in kinds {
                let key = GroupKey {
                    kind,
                    group: kind.label(line).into_owned(),
                    model: line.model.clone(),
                    recorded: line.recorded,
                };
                let row = self
                    .rows
                    .entry(key.clone())
                    .or_insert_with(GroupSums::none_yet);
                if !row.apply(line, add) {
                    row.exact = false;
                }
                if row.lines == 0 && row.exact {
                    self.rows.remove(&key);
                }
            }
        }
    }

    /// Adds every row of `other` (the sums of other sessions).
    pub fn merge(&mut self, other: &GroupTable) {
        for (key, theirs) in &other.rows {
            let ours = self
                .rows
                .entry(key.clone())
                .or_insert_with(GroupSums::none_yet);
            if !ours.add_sums(theirs) {
                ours.exact = false;
            }
        }
    }

    /// True when every row can answer.
    pub fn is_exact(&self) -> bool {
        self.rows.values().all(|r| r.exact)
    }
}

/// The groups each session's lines add to its own (those its own facts
/// give: its agents, channel, model, the day it started), by kind, names
/// numbered. Most sessions' lines add no agent (a line's agent is a
/// phase's), so a query by agent reads a few rows.
#[derive(Debug, Clone, Default)]
pub struct SessionKeys {
    pub(crate) names: Names,
    /// Each session's path hash and, by kind ([`GroupKind::ALL`] order),
    /// the groups its lines add (numbers of `names`, sorted, each once).
    pub(crate) rows: Vec<(u64, [Vec<u32>; 4])>,
}

impl SessionKeys {
    /// Notes the groups the lines of the session at `path` (`facts`) add
    /// to its own.
    pub fn add(&mut self, path: &str, facts: &Facts<'_>, lines: &[UsageLine]) {
        let mut keys: [Vec<u32>; 4] = Default::default();
        for kind in GroupKind::ALL {
            let own = own_groups(kind.group_by(), facts);
            for line in lines {
                let label = kind.label(line);
                if !own.contains(&label) {
                    keys[kind.index()].push(self.names.id(&label));
                }
            }
        }
        for k in &mut keys {
            k.sort_unstable();
            k.dedup();
        }
        self.rows.push((path_hash(path), keys));
    }

    /// Takes in the sessions another share noted.
    pub fn merge(&mut self, other: SessionKeys) {
        let ids: Vec<u32> = other.names.list.iter().map(|n| self.names.id(n)).collect();
        for (hash, mut keys) in other.rows {
            for k in &mut keys {
                for id in k.iter_mut() {
                    *id = ids[*id as usize];
                }
                k.sort_unstable();
            }
            self.rows.push((hash, keys));
        }
    }

    /// How many sessions are noted.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Each session's added groups of `kind`, as names, by path hash (for
    /// tests and checks; a query reads them from the file, [`KeysOf`]).
    pub fn of_kind(&self, kind: GroupKind) -> BTreeMap<u64, Vec<&str>> {
        self.rows
            .iter()
            .map(|(h, k)| {
                let mut names: Vec<&str> = k[kind.index()]
                    .iter()
                    .map(|&i| self.names.list[i as usize].as_str())
                    .collect();
                names.sort_unstable();
                (*h, names)
            })
            .collect()
    }

    /// True when no two sessions share a path hash (else the file keeps no
    /// keys, and stats reads the cells).
    pub fn distinct(&self) -> bool {
        let mut hashes: Vec<u64> = self.rows.iter().map(|(h, _)| *h).collect();
        hashes.sort_unstable();
        hashes.windows(2).all(|w| w[0] != w[1])
    }
}

/// What stats keeps of the lines: the table and the keys, built together
/// by the rebuild's workers and the compaction.
#[derive(Debug, Clone, Default)]
pub struct StatsRollup {
    pub groups: GroupTable,
    pub sessions: SessionKeys,
}

impl StatsRollup {
    /// Adds the session at `path` (`facts`), with these lines.
    pub fn add(&mut self, path: &str, facts: &Facts<'_>, lines: &[UsageLine]) {
        self.groups.add(lines, &GroupKind::ALL);
        self.sessions.add(path, facts, lines);
    }

    /// Takes in what another share of the sessions summed.
    pub fn merge(&mut self, other: StatsRollup) {
        self.groups.merge(&other.groups);
        self.sessions.merge(other.sessions);
    }
}

/// The hasher of a map whose keys are hashes already (FNV-1a of a path):
/// a visit looks one up per session.
#[derive(Debug, Default)]
pub struct HashIsKey(u64);

impl Hasher for HashIsKey {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64`s are hashed here; anything else is folded in.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// One kind of the sessions' keys as a query reads them from the file.
#[derive(Debug, Default)]
pub struct KeysOf {
    /// Every name of the file, by number.
    pub names: Vec<String>,
    /// The sessions' groups, one after another.
    ids: Vec<u32>,
    /// Each session's groups: a range of `ids`, by path hash (itself a
    /// hash: not hashed again).
    by_hash: HashMap<u64, (u32, u32), BuildHasherDefault<HashIsKey>>,
}

impl KeysOf {
    pub(crate) fn with_capacity(rows: usize) -> Self {
        Self {
            names: Vec::new(),
            ids: Vec::with_capacity(rows.saturating_mul(3)),
            by_hash: HashMap::with_capacity_and_hasher(rows, BuildHasherDefault::default()),
        }
    }

    /// Notes a session's groups; false when its hash was there already.
    pub(crate) fn push(&mut self, hash: u64, ids: impl Iterator<Item = u32>) -> bool {
        let start = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        self.ids.extend(ids);
        let end = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        self.by_hash.insert(hash, (start, end)).is_none()
    }

    /// The groups (numbers of [`KeysOf::names`]) the lines of the session
    /// whose path has this hash add to its own; `None` when they add none
    /// (the file names only sessions whose lines add some).
    pub fn of(&self, hash: u64) -> Option<&[u32]> {
        let &(start, end) = self.by_hash.get(&hash)?;
        self.ids.get(start as usize..end as usize)
    }

    /// How many sessions the file names.
    pub fn len(&self) -> usize {
        self.by_hash.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }
}

#[cfg(test)]
mod tests;
