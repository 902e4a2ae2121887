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
use crate::rollup::rows::{ROLLUP_FIELDS, write_rows};
use crate::rollup::{DaysBuilder, Rollup, RollupDays, RollupTable};
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
/// sessions table has `base_rows` rows, in place; with it, where each row
/// of the usage file (already written, of the same generation) is
/// ([`UsageLocator`]), when it can be read and has as many rows.
pub fn write(
    dir: &Path,
    generation: u64,
    base_rows: usize,
    rollup: &Rollup,
) -> Result<(), IndexFileError> {
    let mut text = String::new();
    toon::write_scalar(&mut text, "version", Cell::Num(files::VERSION));
    toon::write_scalar(&mut text, "generation", Cell::Num(generation));
    toon::write_scalar(&mut text, "sessions", Cell::Num(base_rows as u64));
    toon::write_header(&mut text, "rollup", rollup.rows.len(), ROLLUP_FIELDS);
    write_rows(rollup, &mut text);
    if let Some(locator) = UsageLocator::of_file(&dir.join(files::USAGE), generation)
        .filter(|l| l.rows.len() == base_rows)
    {
        locator.write(&mut text);
    }
    files::write(&dir.join(ROLLUP), &text)
}

/// The rollup file as the calendar views read it.
#[derive(Debug)]
pub struct RollupFile {
    pub base: BaseOf,
    /// The rows merged by local day; `None` when they cannot answer (a row
    /// not exact, an hour without a whole-hour offset).
    pub days: Option<RollupDays>,
    /// Where the usage file's rows are, when the file says.
    pub locator: Option<UsageLocator>,
}

/// What [`read_with`] found besides the rows.
struct Read {
    base: BaseOf,
    locator: Option<UsageLocator>,
    text: String,
    columns: Columns,
}

/// What takes the rows of the table `rollup` as they are read.
trait Rows {
    /// Told first: how many rows there are.
    fn count(&mut self, rows: usize);
    /// A row: its bytes in the file's text, its cells in [`ROLLUP_FIELDS`]
    /// order.
    fn row(&mut self, span: std::ops::Range<usize>, cells: &[&str]) -> Result<(), String>;
}

impl Rows for Option<DaysBuilder<'_>> {
    fn count(&mut self, rows: usize) {
        if let Some(b) = self {
            b.reserve(rows);
        }
    }

    fn row(&mut self, span: std::ops::Range<usize>, cells: &[&str]) -> Result<(), String> {
        self.as_mut().map_or(Ok(()), |b| b.push(span, cells))
    }
}

impl Rows for RollupTable {
    fn count(&mut self, rows: usize) {
        *self = RollupTable::with_capacity(rows);
    }

    fn row(&mut self, _span: std::ops::Range<usize>, cells: &[&str]) -> Result<(), String> {
        self.push(cells)
    }
}

/// Reads the rollup file, handing the rows of its table `rollup` to `rows`.
fn read_with(dir: &Path, rows: &mut dyn Rows) -> Result<Read, IndexFileError> {
    let path = dir.join(ROLLUP);
    let text = files::read(&path)?;
    let doc = files::parse_doc(&path, &text)?;
    let scalar = |name: &str| {
        doc.scalar(name)
            .and_then(|g| g.parse().ok())
            .ok_or_else(|| files::corrupt(&path, 1, format!("no `{name}` line")))
    };
    let base = BaseOf {
        generation: scalar("generation")?,
        rows: usize::try_from(scalar("sessions")?).unwrap_or(usize::MAX),
    };
    let (mut cells, mut ordered) = (Vec::new(), Vec::new());
    let mut columns = Columns::identity();
    if let Some(t) = doc.table("rollup") {
        rows.count(t.rows.len());
        columns = Columns::new(t, ROLLUP_FIELDS);
        for (i, r) in t.rows.iter().enumerate() {
            let line = |m: String| files::corrupt(&path, i + 1, format!("table `rollup`: {m}"));
            toon::split_row(r, &mut cells).map_err(line)?;
            columns.order(&cells, &mut ordered);
            // Where the row is: the table's rows are slices of `text`.
            let at = r.as_ptr() as usize - text.as_ptr() as usize;
            rows.row(at..at + r.len(), &ordered).map_err(line)?;
        }
    }
    let locator = match doc.table("usage_rows") {
        Some(t) => {
            let columns = Columns::new(t, LOCATOR_FIELDS);
            let mut locator = UsageLocator {
                rows: Vec::with_capacity(t.rows.len()),
            };
            for (i, row) in t.rows.iter().enumerate() {
                let line =
                    |m: String| files::corrupt(&path, i + 1, format!("table `usage_rows`: {m}"));
                toon::split_row(row, &mut cells).map_err(line)?;
                columns.order(&cells, &mut ordered);
                locator.push(&ordered).map_err(line)?;
            }
            Some(locator)
        }
        None => None,
    };
    drop(doc);
    Ok(Read {
        base,
        locator,
        text,
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
    let days = builder.and_then(|b| b.finish(read.text, read.columns));
    Ok(RollupFile {
        base: read.base,
        days,
        locator: read.locator,
    })
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

/// The usage lines of the usage file's rows whose path is not among
/// `fresh` (hashes of the paths of the base rows a visit found fresh), one
/// `Vec` per row: what the rollup of the base must take away. `None` when
/// the usage file is not of `generation`, cannot be read, or does not have
/// exactly `fresh_rows` rows among `fresh` (a hash shared by a fresh path
/// and a changed one would show there: the caller then reads every cell).
///
/// With the offsets of the usage file's rows (the rollup file's
/// `usage_rows`), only the rows taken away are read; else the file is read
/// through one reused buffer and only the rows taken away decoded.
pub fn usage_outside(
    dir: &Path,
    generation: u64,
    locator: Option<&UsageLocator>,
    fresh: &std::collections::HashSet<u64>,
    fresh_rows: usize,
) -> Option<Vec<Vec<crucible_core::UsageLine>>> {
    let path = dir.join(files::USAGE);
    locator
        .and_then(|l| l.outside(&path, generation, fresh, fresh_rows))
        .or_else(|| usage_read_through(&path, generation, fresh, fresh_rows))
}

/// [`usage_outside`] without the rows' offsets: the usage file read through.
fn usage_read_through(
    path: &Path,
    generation: u64,
    fresh: &std::collections::HashSet<u64>,
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
