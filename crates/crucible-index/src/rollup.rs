//! Every session's usage lines summed by UTC hour, model and whether the
//! source wrote a cost: the rollup the unfiltered calendar views (`cru
//! usage daily|weekly|monthly`) are answered from, instead of decoding a
//! million lines (issue 19; its file is [`crate::rollup_file`]).
//!
//! It is kept by difference: when a session's row changes, its new lines are
//! added and its old ones taken away ([`Rollup::replace`]). Every sum is an
//! exact integer, so the result does not depend on the order sessions came
//! in, and a rollup kept this way equals one built afresh
//! ([`Rollup::of`]; a property test checks it):
//!
//! - tokens, requests and lines are `u64` sums (an overflow marks the row
//!   inexact, see below);
//! - a written cost is kept in nano-dollars, each line's rounded once
//!   (`round(usd × 10⁹)`, an `i128`). Over `n` lines the sum is within
//!   `n × 0.5 × 10⁻⁹` dollars of the exact sum of the written values: at
//!   1.3 million lines, under a tenth of a cent. Adding the same `f64`s one
//!   by one errs by up to about `n × 2⁻⁵³` times the total, in a way that
//!   depends on their order (also well under a cent there), which is why
//!   the rollup does not keep an `f64`;
//! - the first request of a row (which orders a view's models by first use)
//!   is a minimum, which no subtraction can take back: the row keeps how
//!   many of its lines started at that instant, and a change adds the new
//!   lines before it takes the old ones away, so a session saved again with
//!   the same lines never loses it. A row whose earliest line is really
//!   removed no longer knows its first request: it is marked inexact, and a
//!   view that needs it falls back to the sessions' own cells until the
//!   next rebuild.
//!
//! Agents are counted (lines per agent) rather than listed, so that taking
//! a session away takes its agent away when it was the last one; by the
//! name the views show (`claude-code@2.0.1` counts as `claude-code`).

use std::collections::BTreeMap;

mod line_sums;
mod vec_map;

pub use line_sums::LineSums;
pub use vec_map::VecMap;

use crucible_core::{Tokens, UsageLine};

/// An agent as the views name it: `claude-code@2.0.1` → `claude-code`.
pub fn agent_name(agent: &str) -> &str {
    agent.split_once('@').map_or(agent, |(name, _)| name)
}

/// A nano-dollar: the unit written costs are summed in.
pub const NANOS_PER_USD: f64 = 1e9;

/// What a row of the rollup sums over.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RollupKey {
    /// Start of the UTC hour, seconds since the epoch ([`UsageLine::hour`]).
    pub hour: i64,
    pub model: Option<String>,
    /// The source wrote the cost of every request of these lines.
    pub recorded: bool,
}

impl RollupKey {
    pub fn of(line: &UsageLine) -> Self {
        Self {
            hour: line.hour,
            model: line.model.clone(),
            recorded: line.recorded,
        }
    }
}

/// The sums of one row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RollupSums {
    /// The lines' sums, as a stats group row keeps them too.
    pub sums: LineSums,
    /// Lines per agent name (`None`: lines no agent was credited with).
    pub agents: VecMap<Option<String>, u64>,
    /// The earliest first request of the row's lines, milliseconds.
    pub first_ms: i64,
    /// How many lines started at `first_ms`.
    pub first_count: u64,
    /// False when a sum overflowed, a written cost was not a finite
    /// amount, or the earliest line was taken away (`first_ms` unknown):
    /// the row cannot answer, and queries read the sessions instead.
    pub exact: bool,
}

impl std::ops::Deref for RollupSums {
    type Target = LineSums;
    fn deref(&self) -> &LineSums {
        &self.sums
    }
}

impl std::ops::DerefMut for RollupSums {
    fn deref_mut(&mut self) -> &mut LineSums {
        &mut self.sums
    }
}

/// The rollup: its rows by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rollup {
    pub rows: BTreeMap<RollupKey, RollupSums>,
}

/// `a + b` or `a - b` for every kind, `None` on overflow.
pub(crate) fn tokens_apply(a: Tokens, b: Tokens, add: bool) -> Option<Tokens> {
    let f = |x: u64, y: u64| {
        if add {
            x.checked_add(y)
        } else {
            x.checked_sub(y)
        }
    };
    Some(Tokens {
        input: f(a.input, b.input)?,
        output: f(a.output, b.output)?,
        cache_creation: f(a.cache_creation, b.cache_creation)?,
        cache_read: f(a.cache_read, b.cache_read)?,
        reasoning: f(a.reasoning, b.reasoning)?,
        cache_creation_1h: f(a.cache_creation_1h, b.cache_creation_1h)?,
    })
}

/// A written cost in nano-dollars; `None` when it is not a finite amount.
pub fn nanos(usd: f64) -> Option<i128> {
    let n = (usd * NANOS_PER_USD).round();
    // Beyond ±2¹⁰⁰ nano-dollars is no cost anyone wrote.
    (n.is_finite() && n.abs() < 2f64.powi(100)).then(|| {
        #[allow(clippy::cast_possible_truncation)]
        let n = n as i128;
        n
    })
}

impl RollupSums {
    /// Adds (`add`) or takes away one line; false when a sum cannot be
    /// kept exactly.
    fn apply(&mut self, line: &UsageLine, add: bool) -> bool {
        if !self.sums.apply(line, add) {
            return false;
        }
        let agent = line.agent.as_deref().map(agent_name);
        self.count_agent(agent, add) && self.first(line.first_ms, add)
    }

    fn count_agent(&mut self, agent: Option<&str>, add: bool) -> bool {
        let n = self
            .agents
            .get_or_insert_by(|k| k.as_deref().cmp(&agent), || agent.map(str::to_owned));
        let Some(next) = (if add {
            n.checked_add(1)
        } else {
            n.checked_sub(1)
        }) else {
            return false;
        };
        *n = next;
        if next == 0 {
            self.agents.remove_by(|k| k.as_deref().cmp(&agent));
        }
        true
    }

    /// Adds the sums of another row of the same key; false when a sum
    /// cannot be kept exactly.
    fn add_sums(&mut self, o: RollupSums) -> bool {
        if !self.sums.add_sums(&o.sums) {
            return false;
        }
        for (agent, n) in o.agents {
            let count = self
                .agents
                .get_or_insert_by(|k| k.cmp(&agent), || agent.clone());
            let Some(new) = count.checked_add(n) else {
                return false;
            };
            *count = new;
        }
        match (self.first_count, o.first_count) {
            (_, 0) => {}
            (0, _) => (self.first_ms, self.first_count) = (o.first_ms, o.first_count),
            _ if o.first_ms < self.first_ms => {
                (self.first_ms, self.first_count) = (o.first_ms, o.first_count);
            }
            _ if o.first_ms == self.first_ms => self.first_count += o.first_count,
            _ => {}
        }
        self.exact &= o.exact;
        true
    }

    /// Keeps `first_ms` as lines come and go; false when it is lost.
    fn first(&mut self, at: i64, add: bool) -> bool {
        if add {
            if self.first_count == 0 || at < self.first_ms {
                (self.first_ms, self.first_count) = (at, 1);
            } else if at == self.first_ms {
                self.first_count += 1;
            }
            return true;
        }
        if at != self.first_ms {
            return true;
        }
        self.first_count = self.first_count.saturating_sub(1);
        // The earliest line gone, and others left: the next earliest is
        // not known.
        self.first_count > 0 || self.lines == 0
    }
}

impl Rollup {
    /// The rollup of every session's lines.
    pub fn of<'a>(sessions: impl IntoIterator<Item = &'a [UsageLine]>) -> Self {
        let mut rollup = Self::default();
        for lines in sessions {
            rollup.add(lines);
        }
        rollup
    }

    /// Adds a session's lines.
    pub fn add(&mut self, lines: &[UsageLine]) {
        for line in lines {
            self.apply(line, true);
        }
    }

    /// Takes a session's lines away (lines added before).
    pub fn remove(&mut self, lines: &[UsageLine]) {
        for line in lines {
            self.apply(line, false);
        }
    }

    /// A session whose lines were `old` now has `new` (either empty for a
    /// session added or removed): the new are added before the old are
    /// taken away, so that lines both have keep their rows' first request.
    pub fn replace(&mut self, old: &[UsageLine], new: &[UsageLine]) {
        self.add(new);
        self.remove(old);
    }

    fn apply(&mut self, line: &UsageLine, add: bool) {
        let key = RollupKey::of(line);
        let row = self.rows.entry(key.clone()).or_insert_with(|| RollupSums {
            exact: true,
            ..RollupSums::default()
        });
        if !row.apply(line, add) {
            row.exact = false;
        }
        if row.lines == 0 && row.exact {
            self.rows.remove(&key);
        }
    }

    /// Adds every row of `other` (another share of the sessions, summed
    /// apart: a rebuild's workers each sum the sessions they read).
    pub fn merge(&mut self, other: Rollup) {
        for (key, theirs) in other.rows {
            match self.rows.entry(key) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(theirs);
                }
                std::collections::btree_map::Entry::Occupied(mut o) => {
                    let ours = o.get_mut();
                    if !ours.add_sums(theirs) {
                        ours.exact = false;
                    }
                }
            }
        }
    }

    /// True when every row can answer.
    pub fn is_exact(&self) -> bool {
        self.rows.values().all(|r| r.exact)
    }
}

mod days;
pub(crate) mod file_lines;
pub(crate) mod lines;
mod table;
pub(crate) use days::DaysBuilder;
pub use days::RollupDays;
pub use table::RollupTable;

pub mod rows;

#[cfg(test)]
mod tests;
