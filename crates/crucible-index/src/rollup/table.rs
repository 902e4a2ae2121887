//! The rollup file's rows as read: flat, with names numbered ([`Names`]),
//! and no allocation per row. Building every row as a [`RollupSums`] (maps
//! of agents and thresholds, names as `String`s) was most of the time a
//! calendar view took after the freshness check; the views now take the
//! rows one at a time from here ([`super::days`]).

use std::cmp::Ordering;

use crucible_core::Tokens;

use super::lines::{Names, RowFigures};
use super::rows::{flag, int, num, tokens_of};
use super::{Rollup, RollupKey, RollupSums};
use crate::rollup::rows::ROLLUP_FIELDS;
use crate::{toon, usage_cell};

/// One row, its lists as ranges of the table's.
#[derive(Debug, Clone)]
struct Row {
    hour: i64,
    model: Option<u32>,
    recorded: bool,
    exact: bool,
    lines: u64,
    requests: u64,
    tokens: Tokens,
    untyped: u64,
    nanos: i128,
    first_ms: i64,
    first_count: u64,
    above: (u32, u32),
    agents: (u32, u32),
}

/// A row's key: hour, model (a number of [`Names`]), cost written or not.
pub(crate) type TableKey = (i64, Option<u32>, bool);

/// The rows of a rollup file, in key order.
#[derive(Debug, Default, Clone)]
pub struct RollupTable {
    names: Names,
    /// The key of the last row pushed.
    last: Option<TableKey>,
    rows: Vec<Row>,
    above: Vec<(u64, Tokens)>,
    /// Agent (`None`: lines no agent was credited with) and its lines.
    agents: Vec<(Option<u32>, u64)>,
}

/// `text`'s parts between bytes `sep` (ASCII), none for empty text: a
/// byte loop, where `str::split` by a `char` searches as for any char.
fn split_at(text: &str, sep: u8) -> impl Iterator<Item = &str> {
    let mut rest = (!text.is_empty()).then_some(text);
    std::iter::from_fn(move || {
        let t = rest?;
        if let Some(i) = t.bytes().position(|b| b == sep) {
            rest = Some(&t[i + 1..]);
            Some(&t[..i])
        } else {
            rest = None;
            Some(t)
        }
    })
}

fn range(start: usize, end: usize) -> (u32, u32) {
    let n = |i: usize| u32::try_from(i).expect("fewer than 2³² items");
    (n(start), n(end))
}

impl RollupTable {
    /// An empty table with room for `rows` rows.
    pub fn with_capacity(rows: usize) -> Self {
        // This corpus has about 3 thresholds and 5 agents a row.
        Self {
            names: Names::default(),
            last: None,
            rows: Vec::with_capacity(rows),
            above: Vec::with_capacity(rows * 4),
            agents: Vec::with_capacity(rows * 6),
        }
    }

    fn name(&self, id: Option<u32>) -> Option<&str> {
        id.map(|i| self.names.list[i as usize].as_str())
    }

    /// How two keys (hour, model, cost written or not) are ordered.
    pub(crate) fn key_order(&self, a: TableKey, b: TableKey) -> Ordering {
        (a.0, self.name(a.1), a.2).cmp(&(b.0, self.name(b.1), b.2))
    }

    /// The key of the `i`th row kept.
    pub(crate) fn key_of(&self, i: usize) -> TableKey {
        let r = &self.rows[i];
        (r.hour, r.model, r.recorded)
    }

    /// The names the rows' numbers stand for.
    pub(crate) fn names(&self) -> &Names {
        &self.names
    }

    pub(crate) fn names_mut(&mut self) -> &mut Names {
        &mut self.names
    }

    /// Forgets the rows kept, not the names (nor the last key, which the
    /// next row must come after).
    pub(crate) fn clear_rows(&mut self, order_too: bool) {
        if order_too {
            self.last = None;
        }
        self.rows.clear();
        self.above.clear();
        self.agents.clear();
    }

    /// Whether the `i`th row kept is exact.
    pub(crate) fn exact(&self, i: usize) -> bool {
        self.rows[i].exact
    }

    /// The figures of the `i`th row kept, its agents put in `agents`.
    pub(crate) fn figures<'s>(&'s self, i: usize, agents: &'s mut Vec<u32>) -> RowFigures<'s> {
        let r = &self.rows[i];
        agents.clear();
        agents.extend(
            self.agents[r.agents.0 as usize..r.agents.1 as usize]
                .iter()
                .filter_map(|a| a.0),
        );
        RowFigures {
            hour: r.hour,
            model: r.model,
            recorded: r.recorded,
            first_ms: r.first_ms,
            requests: r.requests,
            tokens: r.tokens,
            untyped: r.untyped,
            nanos: r.nanos,
            above: &self.above[r.above.0 as usize..r.above.1 as usize],
            agents,
        }
    }

    /// Adds a row whose cells are in [`ROLLUP_FIELDS`] order; rows must
    /// come in key order, each key once.
    pub fn push(&mut self, c: &[&str]) -> Result<(), String> {
        if c.len() != ROLLUP_FIELDS.len() {
            return Err(format!(
                "expected {} cells, found {}",
                ROLLUP_FIELDS.len(),
                c.len()
            ));
        }
        let n = |i: usize| num::<u64>(c[i], ROLLUP_FIELDS[i]);
        let model = toon::text(c[1])?;
        let (hour, recorded) = (num::<i64>(c[0], "hour")?, flag(c, 2)?);
        let model = model.map(|m| self.names.id(&m));
        let key = (hour, model, recorded);
        if let Some(last) = self.last
            && self.key_order(last, key) != Ordering::Less
        {
            return Err("rows out of key order, or a key twice".into());
        }
        self.last = Some(key);
        let above_start = self.above.len();
        let above = toon::text(c[17])?.unwrap_or_default();
        for item in split_at(&above, b'+').filter(|s| !s.is_empty()) {
            let mut parts = [""; 7];
            let mut count = 0;
            for part in split_at(item, b'_') {
                if count == 7 {
                    count += 1;
                    break;
                }
                parts[count] = part;
                count += 1;
            }
            if count != 7 {
                return Err(format!("`above` item `{item}` should have 7 numbers"));
            }
            self.above
                .push((num(parts[0], "threshold")?, tokens_of(&parts[1..])?));
        }
        let agents_start = self.agents.len();
        let agents = toon::text(c[16])?.unwrap_or_default();
        for item in split_at(&agents, b';').filter(|s| !s.is_empty()) {
            let (count, name) = item.split_once('/').ok_or("an agent without its count")?;
            let agent = match name {
                "" => None,
                _ if !name.contains('%') => Some(self.names.id(name)),
                _ => usage_cell::untext(name)?.map(|n| self.names.id(&n)),
            };
            self.agents.push((agent, num(count, "agent count")?));
        }
        self.rows.push(Row {
            hour,
            model,
            recorded,
            exact: flag(c, 3)?,
            lines: n(4)?,
            requests: n(5)?,
            tokens: tokens_of(&c[6..12])?,
            untyped: n(12)?,
            nanos: int(c[13], "written_nanos")?,
            first_ms: num(c[14], "first_ms")?,
            first_count: n(15)?,
            above: range(above_start, self.above.len()),
            agents: range(agents_start, self.agents.len()),
        });
        Ok(())
    }

    fn key(&self, r: &Row) -> RollupKey {
        RollupKey {
            hour: r.hour,
            model: self.name(r.model).map(str::to_owned),
            recorded: r.recorded,
        }
    }

    fn sums(&self, r: &Row) -> Result<RollupSums, String> {
        let mut sums = RollupSums {
            exact: r.exact,
            sums: super::LineSums {
                lines: r.lines,
                requests: r.requests,
                tokens: r.tokens,
                untyped: r.untyped,
                recorded_nanos: r.nanos,
                ..super::LineSums::default()
            },
            first_ms: r.first_ms,
            first_count: r.first_count,
            ..RollupSums::default()
        };
        for &(threshold, t) in &self.above[r.above.0 as usize..r.above.1 as usize] {
            if !sums.above.insert(threshold, t) {
                return Err("a threshold twice".into());
            }
        }
        for &(agent, n) in &self.agents[r.agents.0 as usize..r.agents.1 as usize] {
            if !sums.agents.insert(self.name(agent).map(str::to_owned), n) {
                return Err("an agent twice".into());
            }
        }
        Ok(sums)
    }

    /// The `i`th row kept, as a key and sums.
    pub(crate) fn row(&self, i: usize) -> Result<(RollupKey, RollupSums), String> {
        let r = &self.rows[i];
        Ok((self.key(r), self.sums(r)?))
    }

    /// The rows as a [`Rollup`].
    pub fn to_rollup(&self) -> Result<Rollup, String> {
        let mut rollup = Rollup::default();
        for r in &self.rows {
            rollup.rows.insert(self.key(r), self.sums(r)?);
        }
        Ok(rollup)
    }
}
