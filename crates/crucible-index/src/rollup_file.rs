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
use crate::rollup::Rollup;
use crate::rollup::rows::{ROLLUP_FIELDS, read_row, write_rows};
use crate::toon::{self, Cell};

/// What the rollup file says of the base it sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BaseOf {
    /// The write the base is of ([`files::new_generation`]).
    pub generation: u64,
    /// How many session rows the base has.
    pub rows: usize,
}

/// Writes the rollup of the base written with `generation`, whose
/// sessions table has `base_rows` rows, in place.
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
    files::write(&dir.join(ROLLUP), &text)
}

/// The rollup, and what it says of the base it sums.
pub fn load(dir: &Path) -> Result<(BaseOf, Rollup), IndexFileError> {
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
    let mut rollup = Rollup::default();
    if let Some(t) = doc.table("rollup") {
        let columns = Columns::new(t, ROLLUP_FIELDS);
        let (mut cells, mut ordered) = (Vec::new(), Vec::new());
        for (i, row) in t.rows.iter().enumerate() {
            let line = |m: String| files::corrupt(&path, i + 1, format!("table `rollup`: {m}"));
            toon::split_row(row, &mut cells).map_err(line)?;
            columns.order(&cells, &mut ordered);
            let (key, sums) = read_row(&ordered).map_err(line)?;
            if rollup.rows.insert(key, sums).is_some() {
                return Err(line("a key twice".into()));
            }
        }
    }
    Ok((base, rollup))
}

/// The usage lines of the usage file's rows whose path is not among
/// `fresh` (hashes of the paths of the base rows a visit found fresh), one
/// `Vec` per row: what the rollup of the base must take away. `None` when
/// the usage file is not of `generation`, cannot be read, or does not have
/// exactly `fresh_rows` rows among `fresh` (a hash shared by a fresh path
/// and a changed one would show there: the caller then reads every cell).
///
/// Read through one reused buffer and only the rows taken away decoded:
/// no copy of the whole file and no line of a fresh row in memory.
pub fn usage_outside(
    dir: &Path,
    generation: u64,
    fresh: &std::collections::HashSet<u64>,
    fresh_rows: usize,
) -> Option<Vec<Vec<crucible_core::UsageLine>>> {
    use std::io::BufRead;
    let file = files::own_file(
        &dir.join(files::USAGE),
        std::fs::OpenOptions::new().read(true),
    )
    .ok()?;
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
