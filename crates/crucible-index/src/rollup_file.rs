//! `.index-rollup.toon`: the rollup ([`crate::rollup`]) of the base's
//! session rows, written with the base and the usage file and carrying
//! their generation ([`crate::files::new_generation`]): a rollup whose
//! generation is not the base's is of another write, and not used.
//!
//! It is an accelerator, never the truth: missing, unreadable or of another
//! write, queries take the path that reads every usage cell.

use std::path::Path;

use crate::files::{self, IndexFileError, ROLLUP};
use crate::record::Columns;
use crate::rollup::file_lines::FileLines;
use crate::rollup::rows::{ROLLUP_FIELDS, write_rows};
use crate::rollup::{DaysBuilder, Rollup, RollupDays, RollupTable};
use crate::stats_rollup::StatsRollup;
use crate::toon::{self, Cell};
use crate::usage_locator::{LOCATOR_FIELDS, UsageLocator};

/// What the rollup file says of the base it sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BaseOf {
    /// The write the base is of ([`files::new_generation`]).
    pub generation: u64,
    /// How many session rows the base has.
    pub rows: usize,
}

/// Writes the rollup of the base written with `generation`, whose
/// sessions table has `base_rows` rows, in place, and what stats keeps of
/// the same lines ([`crate::stats_rollup`]); with them, where each row
/// of the usage file (already written, of the same generation) is
/// ([`UsageLocator`]), when it can be read and has as many rows.
pub fn write(
    dir: &Path,
    generation: u64,
    base_rows: usize,
    rollup: &Rollup,
    stats: &StatsRollup,
) -> Result<(), IndexFileError> {
    let mut body = String::new();
    toon::write_header(&mut body, "rollup", rollup.rows.len(), ROLLUP_FIELDS);
    write_rows(rollup, &mut body);
    if let Some(locator) = UsageLocator::of_file(&dir.join(files::USAGE), generation)
        .filter(|l| l.rows.len() == base_rows)
    {
        locator.write(&mut body);
    }
    // Last, after `usage_rows`, where the calendar views stop reading;
    // `stats_at` in the head says where, for stats to go straight there.
    let stats_in_body = body.len();
    crate::stats_rollup::rows::write_tables(stats, &mut body);
    let head = |stats_at: usize| {
        let mut text = String::new();
        toon::write_scalar(&mut text, "version", Cell::Num(files::VERSION));
        toon::write_scalar(&mut text, "generation", Cell::Num(generation));
        toon::write_scalar(&mut text, "sessions", Cell::Num(base_rows as u64));
        toon::write_scalar(&mut text, "stats_at", Cell::Num(stats_at as u64));
        text
    };
    // The head's length depends on the offset it writes: a few rounds
    // find the offset that is its own.
    let mut stats_at = stats_in_body;
    let mut text = head(stats_at);
    while text.len() + stats_in_body != stats_at {
        stats_at = text.len() + stats_in_body;
        text = head(stats_at);
    }
    text.push_str(&body);
    files::write(&dir.join(ROLLUP), &text)
}

/// The rollup file as the calendar views read it.
#[derive(Debug)]
pub struct RollupFile {
    pub base: BaseOf,
    /// The rows merged by local day; `None` when they cannot answer (a row
    /// not exact, an hour without a whole-hour offset).
    pub days: Option<RollupDays>,
    /// Where the table `usage_rows` is, when the file has one.
    locator_at: Option<LocatorAt>,
    /// Where the rows of the table `rollup` start, and how many there are,
    /// when the reader stopped before them (`usage_rows` is found after
    /// them only if a query needs it).
    rollup_rows_at: Option<(u64, usize)>,
}

/// Where the rows of `usage_rows` start, how many there are, and the
/// order of their columns.
#[derive(Debug)]
struct LocatorAt {
    offset: u64,
    rows: usize,
    columns: Columns,
}

/// What [`read_with`] found besides the rows.
struct Read {
    base: BaseOf,
    locator_at: Option<LocatorAt>,
    columns: Columns,
}

/// What takes the rows of the table `rollup` as they are read.
trait Rows {
    /// Told first: how many rows there are.
    fn count(&mut self, rows: usize);
    /// A row: where it is in the file, its cells in [`ROLLUP_FIELDS`]
    /// order.
    fn row(&mut self, at: (u64, u32), cells: &[&str]) -> Result<(), String>;
}

impl Rows for Option<DaysBuilder<'_>> {
    fn count(&mut self, rows: usize) {
        if let Some(b) = self {
            b.reserve(rows);
        }
    }

    fn row(&mut self, at: (u64, u32), cells: &[&str]) -> Result<(), String> {
        self.as_mut().map_or(Ok(()), |b| b.push(at, cells))
    }
}

impl Rows for RollupTable {
    fn count(&mut self, rows: usize) {
        *self = RollupTable::with_capacity(rows);
    }

    fn row(&mut self, _at: (u64, u32), cells: &[&str]) -> Result<(), String> {
        self.push(cells)
    }
}

/// The scalars read so far.
#[derive(Default)]
struct Head {
    version: Option<String>,
    generation: Option<u64>,
    sessions: Option<u64>,
    /// Where the stats tables start ([`crate::stats_rollup::rows`]).
    stats_at: Option<u64>,
}

impl Head {
    /// Takes a line outside the tables: a scalar is noted, a table's
    /// header returned, a blank line skipped.
    fn take(&mut self, line: &str) -> Result<Option<Header>, String> {
        if line.trim().is_empty() {
            return Ok(None);
        }
        if line.starts_with(' ') {
            return Err("indented line outside a table".into());
        }
        if let Some(h) = toon::table_header(line)? {
            return Ok(Some(Header {
                name: h.name.to_owned(),
                len: h.len,
                fields: h.fields.into_iter().map(str::to_owned).collect(),
            }));
        }
        let (key, value) = line
            .split_once(':')
            .ok_or("expected `key: value` or a table header")?;
        let value = value.trim();
        match key.trim() {
            "version" => self.version = Some(value.to_owned()),
            "generation" => self.generation = value.parse::<u64>().ok(),
            "sessions" => self.sessions = value.parse::<u64>().ok(),
            "stats_at" => self.stats_at = value.parse::<u64>().ok(),
            _ => {}
        }
        Ok(None)
    }
}

/// A table's header, owned (the line it was read from is reused).
struct Header {
    name: String,
    len: usize,
    fields: Vec<String>,
}

impl Header {
    fn columns(&self, known: &[&str]) -> Columns {
        let table = toon::Table {
            name: &self.name,
            fields: self.fields.iter().map(String::as_str).collect(),
            rows: Vec::new(),
        };
        Columns::new(&table, known)
    }
}

/// An empty vector of cells with the allocation of `v`: a buffer of
/// slices can outlive the line its slices were of.
fn recycle<'b>(v: &mut Vec<&str>) -> Vec<&'b str> {
    let mut v = std::mem::take(v);
    v.clear();
    v.into_iter().map(|_| "").collect()
}

/// Reads the rollup file a line at a time, handing the rows of its table
/// `rollup` to `rows`; stops at the table `usage_rows` (read only when a
/// query needs it, [`RollupFile::usage_outside`]).
fn read_with(dir: &Path, rows: &mut dyn Rows) -> Result<Read, IndexFileError> {
    let path = dir.join(ROLLUP);
    let mut lines = FileLines::open(&path).map_err(|e| files::io_error(&path, e))?;
    let bad = |line: usize, m: String| files::corrupt(&path, line, m);
    let mut head = Head::default();
    let (mut columns, mut locator_at) = (Columns::identity(), None);
    // Buffers for a row's cells, kept from row to row (each row borrows
    // the reader's line, so they go back empty, see `recycle`).
    let (mut store_cells, mut store_ordered): (Vec<&'static str>, Vec<&'static str>) =
        (Vec::new(), Vec::new());
    loop {
        let n = lines.number + 1;
        let Some((_, line)) = lines.next_line().map_err(|m| bad(n, m))? else {
            break;
        };
        let Some(header) = head.take(line).map_err(|m| bad(n, m))? else {
            continue;
        };
        files::check_version(&path, head.version.as_deref())?;
        let (number, is_rollup) = (lines.number, header.name == "rollup");
        if header.name == "usage_rows" {
            locator_at = Some(LocatorAt {
                offset: lines.offset(),
                rows: header.len,
                columns: header.columns(LOCATOR_FIELDS),
            });
            break;
        }
        if !is_rollup {
            // Another table (the stats tables, a row per session among
            // them): its lines passed over, not read as text.
            lines
                .skip_lines(header.len)
                .map_err(|m| bad(number, format!("table `{}`: {m}", header.name)))?;
            continue;
        }
        columns = header.columns(ROLLUP_FIELDS);
        rows.count(header.len);
        for i in 0..header.len {
            let line = |m: String| bad(number + i + 1, format!("table `{}`: {m}", header.name));
            let Some((at, row)) = lines.next_line().map_err(line)? else {
                return Err(line(format!("declares {} rows but has {i}", header.len)));
            };
            let trimmed = row.trim_start_matches(' ');
            if trimmed.len() == row.len() {
                return Err(line(format!("declares {} rows but has {i}", header.len)));
            }
            let (mut cells, mut ordered) = (recycle(&mut store_cells), recycle(&mut store_ordered));
            toon::split_row(trimmed, &mut cells).map_err(line)?;
            columns.order(&cells, &mut ordered);
            let indent = (row.len() - trimmed.len()) as u64;
            let len = u32::try_from(trimmed.len()).map_err(|_| line("a row too long".into()))?;
            rows.row((at + indent, len), &ordered).map_err(line)?;
            (store_cells, store_ordered) = (recycle(&mut cells), recycle(&mut ordered));
        }
    }
    files::check_version(&path, head.version.as_deref())?;
    let scalar = |v: Option<u64>, name: &str| v.ok_or_else(|| bad(1, format!("no `{name}` line")));
    Ok(Read {
        base: BaseOf {
            generation: scalar(head.generation, "generation")?,
            rows: usize::try_from(scalar(head.sessions, "sessions")?).unwrap_or(usize::MAX),
        },
        locator_at,
        columns,
    })
}

/// Reads the rollup file for the calendar views, its rows merged by the
/// local day `day` gives an hour (`None` when the zone's offset there is
/// not a whole number of hours).
pub fn read_days(
    dir: &Path,
    day: &dyn Fn(i64) -> Option<i64>,
) -> Result<RollupFile, IndexFileError> {
    let mut builder = Some(DaysBuilder::new(0, day));
    let read = read_with(dir, &mut builder)?;
    let file = RowsAt {
        path: dir.join(ROLLUP),
        generation: read.base.generation,
    };
    let days = builder.and_then(|b| b.finish(file, read.columns));
    Ok(RollupFile {
        base: read.base,
        days,
        locator_at: read.locator_at,
        rollup_rows_at: None,
    })
}

/// The rollup file's rows are read again from the file itself, if it is
/// still of the write they were read from.
#[derive(Debug)]
pub struct RowsAt {
    pub(crate) path: std::path::PathBuf,
    pub(crate) generation: u64,
}

/// The rollup, and what it says of the base it sums.
pub fn load(dir: &Path) -> Result<(BaseOf, Rollup), IndexFileError> {
    let mut table = RollupTable::default();
    let read = read_with(dir, &mut table)?;
    let rollup = table
        .to_rollup()
        .map_err(|m| files::corrupt(&dir.join(ROLLUP), 1, m))?;
    Ok((read.base, rollup))
}

impl RollupFile {
    /// The usage lines of the usage file's rows whose path is not among
    /// `fresh` (hashes of the paths of the base rows a visit found fresh),
    /// one `Vec` per row: what the rollup of the base must take away.
    /// `None` when the usage file is not of the rollup's generation, cannot
    /// be read, or does not have exactly `fresh_rows` rows among `fresh` (a
    /// hash shared by a fresh path and a changed one would show there: the
    /// caller then reads every cell).
    ///
    /// With the offsets of the usage file's rows (the table `usage_rows`),
    /// only the rows taken away are read; else the file is read through
    /// one reused buffer and only the rows taken away decoded.
    pub fn usage_outside(
        &self,
        dir: &Path,
        fresh: &crate::path_set::PathHashes,
        fresh_rows: usize,
    ) -> Option<Vec<Vec<crucible_core::UsageLine>>> {
        let (path, generation) = (dir.join(files::USAGE), self.base.generation);
        self.locator(dir)
            .and_then(|l| l.outside(&path, generation, fresh, fresh_rows))
            .or_else(|| usage_read_through(&path, generation, fresh, fresh_rows))
    }

    /// The table `usage_rows`, read from the rollup file if it is still of
    /// the same write.
    fn locator(&self, dir: &Path) -> Option<UsageLocator> {
        let found;
        let at = if let Some(at) = &self.locator_at {
            at
        } else {
            found = self.find_locator(dir)?;
            &found
        };
        let file = FileLines::of_generation(&dir.join(ROLLUP), self.base.generation)?;
        let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
        std::io::Seek::seek(&mut reader, std::io::SeekFrom::Start(at.offset)).ok()?;
        let fast = at.columns.is_identity();
        let mut locator = UsageLocator {
            rows: Vec::with_capacity(at.rows.min(1 << 24)),
        };
        let mut line = String::new();
        let (mut store_cells, mut store_ordered): (Vec<&'static str>, Vec<&'static str>) =
            (Vec::new(), Vec::new());
        for _ in 0..at.rows {
            line.clear();
            if std::io::BufRead::read_line(&mut reader, &mut line).ok()? == 0 {
                return None;
            }
            // Rows as cru writes them are three plain numbers; anything else
            // (quotes, a hand-edited cell) takes the table reader.
            if fast && let Some(row) = crate::usage_locator::Located::of_plain_row(&line) {
                locator.rows.push(row);
                continue;
            }
            let (mut cells, mut ordered) = (recycle(&mut store_cells), recycle(&mut store_ordered));
            toon::split_row(line.trim_end(), &mut cells).ok()?;
            at.columns.order(&cells, &mut ordered);
            locator.push(&ordered).ok()?;
            (store_cells, store_ordered) = (recycle(&mut cells), recycle(&mut ordered));
        }
        Some(locator)
    }
}

impl RollupFile {
    /// Where `usage_rows` is, found by passing over the rows of `rollup`
    /// (for a reader that stopped before them); `None` when the file has
    /// no such table or is no longer of the same write.
    fn find_locator(&self, dir: &Path) -> Option<LocatorAt> {
        let (offset, rows) = self.rollup_rows_at?;
        let file = FileLines::of_generation(&dir.join(ROLLUP), self.base.generation)?;
        let mut lines = FileLines::at(file, offset).ok()?;
        lines.skip_lines(rows).ok()?;
        let mut head = Head::default();
        loop {
            let (_, line) = lines.next_line().ok()??;
            if let Some(header) = head.take(line).ok()? {
                return (header.name == "usage_rows").then(|| LocatorAt {
                    offset: lines.offset(),
                    rows: header.len,
                    columns: header.columns(LOCATOR_FIELDS),
                });
            }
        }
    }
}

/// [`usage_outside`] without the rows' offsets: the usage file read through.
fn usage_read_through(
    path: &Path,
    generation: u64,
    fresh: &crate::path_set::PathHashes,
    fresh_rows: usize,
) -> Option<Vec<Vec<crucible_core::UsageLine>>> {
    use std::io::BufRead;
    let file = files::own_file(path, std::fs::OpenOptions::new().read(true)).ok()?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut line = Vec::new();
    let (mut seen_generation, mut in_rows, mut seen_fresh) = (None, false, 0);
    let mut outside = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).ok()? == 0 {
            break;
        }
        let text = std::str::from_utf8(&line).ok()?.trim_end_matches('\n');
        if !in_rows {
            if let Some(g) = text.strip_prefix("generation: ") {
                seen_generation = g.parse::<u64>().ok();
            }
            // The rows' order of columns is ours: another writer's file is
            // read by the slow path.
            in_rows = text.starts_with("usage[") && text.ends_with("]{path,usage}:");
            continue;
        }
        if !text.starts_with("  ") {
            break;
        }
        let mut cells = Vec::with_capacity(2);
        toon::split_row(text, &mut cells).ok()?;
        let [path, usage] = cells[..] else {
            return None;
        };
        let path = toon::text(path).ok()??;
        if fresh.contains(&crate::path_set::path_hash(&path)) {
            seen_fresh += 1;
        } else {
            outside.push(crate::record::usage_lines(usage).ok()?);
        }
    }
    (seen_generation == Some(generation) && seen_fresh == fresh_rows).then_some(outside)
}

mod stats;
pub use stats::{StatsFile, read_stats};

#[cfg(test)]
mod tests;
