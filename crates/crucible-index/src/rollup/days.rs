//! The rollup file read straight into the calendar views' lines.
//!
//! Its rows are merged by local day as they are read (on a thread of their
//! own, while the freshness check runs): no row is kept, only its key and
//! where its text is. A query's changes (the sessions found changed, added
//! or gone) then touch a few rows: those are read again and changed as
//! [`Rollup::merge`] and [`Rollup::remove`] would, and the days they were
//! in merged again without them.

use std::fs::File;
use std::ops::Range;

use crucible_core::UsageLine;

use super::file_lines::{FileLines, read_at};
use crate::rollup_file::RowsAt;

use super::lines::{DayGroup, DayMerger, group_lines};
use super::table::{RollupTable, TableKey};
use super::{Rollup, RollupKey};
use crate::record::Columns;
use crate::toon;

/// Reads a rollup table into a [`RollupDays`], a row at a time.
pub(crate) struct DaysBuilder<'d> {
    spans: Vec<(u64, u32)>,
    keys: Vec<TableKey>,
    table: RollupTable,
    merger: DayMerger<'d>,
    agents: Vec<u32>,
    /// False once a row is not exact or an hour has no whole-hour offset.
    answers: bool,
}

impl<'d> DaysBuilder<'d> {
    /// For about `rows` rows, merged by the local day `day` gives an hour
    /// (`None` when the zone's offset there is not a whole number of hours).
    pub(crate) fn new(rows: usize, day: &'d dyn Fn(i64) -> Option<i64>) -> Self {
        Self {
            spans: Vec::with_capacity(rows),
            keys: Vec::with_capacity(rows),
            table: RollupTable::with_capacity(1),
            merger: DayMerger::new(day),
            agents: Vec::new(),
            answers: true,
        }
    }

    /// Makes room for `rows` more rows.
    pub(crate) fn reserve(&mut self, rows: usize) {
        self.spans.reserve(rows);
        self.keys.reserve(rows);
    }

    /// Adds the row at `span` (offset, length) of the file, its cells in
    /// `ROLLUP_FIELDS` order; rows come in key order.
    pub(crate) fn push(&mut self, span: (u64, u32), cells: &[&str]) -> Result<(), String> {
        self.table.push(cells)?;
        self.answers &= self.table.exact(0);
        if self.answers {
            let figures = self.table.figures(0, &mut self.agents);
            self.answers = self.merger.add(&figures).is_some();
        }
        self.keys.push(self.table.key_of(0));
        self.spans.push(span);
        self.table.clear_rows(false);
        Ok(())
    }

    /// The days, with the `file` and the rows' `columns` to read rows
    /// again; `None` when the rows cannot answer.
    pub(crate) fn finish(self, file: RowsAt, columns: Columns) -> Option<RollupDays> {
        self.answers.then(|| RollupDays {
            file,
            spans: self.spans,
            columns,
            keys: self.keys,
            table: self.table,
            groups: self.merger.finish(),
        })
    }
}

/// A rollup table merged by local day, with what it takes to read a row
/// again.
pub struct RollupDays {
    file: RowsAt,
    spans: Vec<(u64, u32)>,
    columns: Columns,
    keys: Vec<TableKey>,
    /// Reads a row again; holds the names.
    table: RollupTable,
    groups: Vec<DayGroup>,
}

impl std::fmt::Debug for RollupDays {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RollupDays")
            .field("rows", &self.keys.len())
            .field("days", &self.groups.len())
            .finish_non_exhaustive()
    }
}

impl RollupDays {
    /// Reads row `i` again from `file`, into `self.table` (its only row).
    fn reread(&mut self, file: &mut File, i: usize) -> Option<()> {
        let (offset, len) = self.spans[i];
        let mut buf = Vec::new();
        let row = read_at(file, offset, len as usize, &mut buf)?;
        self.load_row(row)
    }

    /// The row `row` (its text, as in the file) into `self.table`, as its
    /// only row.
    fn load_row(&mut self, row: &str) -> Option<()> {
        let (mut cells, mut ordered) = (Vec::new(), Vec::new());
        toon::split_row(row, &mut cells).ok()?;
        self.columns.order(&cells, &mut ordered);
        self.table.clear_rows(true);
        self.table.push(&ordered).ok()
    }

    fn find(&self, key: &RollupKey) -> Option<usize> {
        let model = match key.model.as_deref() {
            Some(m) => Some(self.table.names().find(m)?),
            None => None,
        };
        let key = (key.hour, model, key.recorded);
        self.keys
            .binary_search_by(|k| self.table.key_order(*k, key))
            .ok()
    }

    /// The calendar views' lines ([`Rollup::lines`]) of the rows with `now`
    /// (the lines of the sessions found changed or new) added and `taken`
    /// (the old lines of the base rows they replace) taken away, as
    /// [`Rollup::merge`] then [`Rollup::remove`] would. `day` is the one
    /// the rows were merged by. `None` when a row cannot answer exactly.
    pub fn lines(
        mut self,
        now: Rollup,
        taken: &[Vec<UsageLine>],
        day: &dyn Fn(i64) -> Option<i64>,
    ) -> Option<Vec<UsageLine>> {
        let mut patched = Rollup::default();
        let mut touched = Vec::new();
        let keys: Vec<RollupKey> = now
            .rows
            .keys()
            .cloned()
            .chain(taken.iter().flatten().map(RollupKey::of))
            .collect();
        // Opened only when a change touches a row of the file.
        let mut file: Option<File> = None;
        for key in keys {
            if patched.rows.contains_key(&key) {
                continue;
            }
            if let Some(i) = self.find(&key) {
                if file.is_none() {
                    file = Some(FileLines::of_generation(
                        &self.file.path,
                        self.file.generation,
                    )?);
                }
                self.reread(file.as_mut()?, i)?;
                let (key, sums) = self.table.row(0).ok()?;
                patched.rows.insert(key, sums);
                touched.push(i);
            }
        }
        patched.merge(now);
        for old in taken {
            patched.remove(old);
        }
        touched.sort_unstable();
        let mut groups = Vec::with_capacity(self.groups.len() + 1);
        for g in std::mem::take(&mut self.groups) {
            let first = touched.partition_point(|&t| t < g.rows.start);
            if touched.get(first).is_some_and(|&t| t < g.rows.end) {
                let file = file.as_mut()?;
                groups.extend(self.day_without(file, g.rows, &touched, day)?);
            } else {
                groups.push(g);
            }
        }
        groups.extend(self.patched_days(&patched, day)?);
        Some(group_lines(groups, &self.table.names().list))
    }

    /// A day's rows merged again, without those `touched`.
    fn day_without(
        &mut self,
        file: &mut File,
        rows: Range<usize>,
        touched: &[usize],
        day: &dyn Fn(i64) -> Option<i64>,
    ) -> Option<Vec<DayGroup>> {
        let mut merger = DayMerger::new(day);
        let mut agents = Vec::new();
        // A day's rows are one run of lines: read in one go, not a read a
        // row (hundreds of system calls for the days a save touched).
        let first = self.spans[rows.start].0;
        let (last, last_len) = self.spans[rows.end - 1];
        let mut buf = Vec::new();
        let window = (last + u64::from(last_len)).checked_sub(first)?;
        let text = read_at(file, first, usize::try_from(window).ok()?, &mut buf)?;
        for i in rows {
            if touched.binary_search(&i).is_err() {
                let (offset, len) = self.spans[i];
                let at = usize::try_from(offset.checked_sub(first)?).ok()?;
                self.load_row(text.get(at..at + len as usize)?)?;
                merger.add(&self.table.figures(0, &mut agents))?;
            }
        }
        Some(merger.finish())
    }

    /// The rows the changes touched, as they are now, merged by day.
    fn patched_days(
        &mut self,
        patched: &Rollup,
        day: &dyn Fn(i64) -> Option<i64>,
    ) -> Option<Vec<DayGroup>> {
        let mut merger = DayMerger::new(day);
        merger.add_rollup(patched, self.table.names_mut())?;
        Some(merger.finish())
    }
}
