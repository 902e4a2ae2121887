//! Where each row of the usage file is: its path's hash, byte offset and
//! length, kept in the rollup file (table `usage_rows`) for the write both
//! files are of.
//!
//! After a save, the calendar views answer from the rollup less the lines
//! of the base rows that changed ([`crate::rollup_file::usage_outside`]).
//! Finding those rows by reading the usage file through costs 190 MB read
//! at 100,000 sessions, on every query until the next compaction; with
//! the offsets, a query reads just the rows it takes away.
//!
//! The table is found by reading the usage file once after it is written
//! (by the rebuild and the compaction, which write the rollup file last):
//! the rows' writers (a rebuild's workers, appending in turns) need not
//! know where their rows land.

use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::Path;

use crucible_core::UsageLine;

use crate::path_set::path_hash;
use crate::toon::{self, Cell};

pub const LOCATOR_FIELDS: &[&str] = &["path_hash", "offset", "length"];

/// One usage row: the FNV-1a hash of its path ([`path_hash`]), and where
/// its line (the newline included) is in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Located {
    pub path_hash: u64,
    pub offset: u64,
    pub length: u64,
}

impl Located {
    /// A row of `usage_rows` as cru writes it (`  hash,offset,length`,
    /// digits only, the line end after); `None` for anything else, which
    /// the table reader then reads (or refuses) as it reads any row.
    pub fn of_plain_row(line: &str) -> Option<Self> {
        let row = line.strip_prefix("  ")?;
        let row = row.strip_suffix('\n').unwrap_or(row);
        let mut cells = row.split(',');
        let mut num = || -> Option<u64> {
            let cell = cells.next()?;
            if cell.is_empty() || cell.len() > 20 || !cell.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            cell.parse().ok()
        };
        let row = Self {
            path_hash: num()?,
            offset: num()?,
            length: num()?,
        };
        cells.next().is_none().then_some(row)
    }
}

/// Every row of a usage file, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsageLocator {
    pub rows: Vec<Located>,
}

/// The generation a usage file's scalars name, and the offset of its
/// first row; `None` when its head is not ours (rows `path,usage`).
fn head(reader: &mut impl BufRead) -> Option<(u64, u64)> {
    let (mut offset, mut generation, mut line) = (0u64, None, Vec::new());
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).ok()?;
        if n == 0 || line.len() > 4096 {
            return None;
        }
        offset += n as u64;
        let text = std::str::from_utf8(&line).ok()?.trim_end_matches('\n');
        if let Some(g) = text.strip_prefix("generation: ") {
            generation = g.parse::<u64>().ok();
        }
        if text.starts_with("usage[") {
            return text
                .ends_with("]{path,usage}:")
                .then_some((generation?, offset));
        }
    }
}

/// The path of a usage row (`  path,usage`), unquoted.
fn row_path(row: &str) -> Option<std::borrow::Cow<'_, str>> {
    let row = row.strip_prefix("  ")?;
    let mut cells = Vec::with_capacity(1);
    toon::split_row_prefix(row, 1, &mut cells).ok()?;
    toon::text(cells.first()?).ok()?
}

impl UsageLocator {
    /// The rows of the usage file at `path`, written with `generation`;
    /// `None` when it cannot be read or is of another write.
    pub fn of_file(path: &Path, generation: u64) -> Option<Self> {
        let file = crate::files::own_file(path, std::fs::OpenOptions::new().read(true)).ok()?;
        let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
        let (found, mut offset) = head(&mut reader)?;
        if found != generation {
            return None;
        }
        let (mut rows, mut line) = (Vec::new(), Vec::new());
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line).ok()?;
            if n == 0 || !line.starts_with(b"  ") {
                break;
            }
            let text = std::str::from_utf8(&line).ok()?;
            rows.push(Located {
                path_hash: path_hash(&row_path(text.trim_end_matches('\n'))?),
                offset,
                length: n as u64,
            });
            offset += n as u64;
        }
        Some(Self { rows })
    }

    /// Writes the table `usage_rows`.
    pub fn write(&self, out: &mut String) {
        toon::write_header(out, "usage_rows", self.rows.len(), LOCATOR_FIELDS);
        for r in &self.rows {
            toon::write_row(
                out,
                &[
                    Cell::Num(r.path_hash),
                    Cell::Num(r.offset),
                    Cell::Num(r.length),
                ],
            );
        }
    }

    /// Adds a row of the table `usage_rows` (cells in [`LOCATOR_FIELDS`]
    /// order).
    pub fn push(&mut self, c: &[&str]) -> Result<(), String> {
        let n = |cell: &str| toon::number(cell)?.ok_or_else(|| "a null in `usage_rows`".to_owned());
        let [hash, offset, length] = c else {
            return Err(format!("expected 3 cells, found {}", c.len()));
        };
        self.rows.push(Located {
            path_hash: n(hash)?,
            offset: n(offset)?,
            length: n(length)?,
        });
        Ok(())
    }

    /// The usage lines of the rows whose path's hash is not in `fresh`
    /// (the base rows a visit found fresh), read from the usage file at
    /// `path` by their offsets, one `Vec` per row. `None` when the file is
    /// not of `generation`, a row is not where the table says (or names
    /// another path), or not exactly `fresh_rows` rows are among `fresh`:
    /// the caller then reads the usage file through.
    pub fn outside(
        &self,
        path: &Path,
        generation: u64,
        fresh: &crate::path_set::PathHashes,
        fresh_rows: usize,
    ) -> Option<Vec<Vec<UsageLine>>> {
        let file = crate::files::own_file(path, std::fs::OpenOptions::new().read(true)).ok()?;
        let mut reader = std::io::BufReader::with_capacity(4096, file);
        let (found, _) = head(&mut reader)?;
        if found != generation {
            return None;
        }
        let mut file = reader.into_inner();
        let (mut seen_fresh, mut outside, mut buf) = (0, Vec::new(), Vec::new());
        for r in &self.rows {
            if fresh.contains(&r.path_hash) {
                seen_fresh += 1;
                continue;
            }
            buf.resize(usize::try_from(r.length).ok()?, 0);
            file.seek(SeekFrom::Start(r.offset)).ok()?;
            file.read_exact(&mut buf).ok()?;
            let row = std::str::from_utf8(&buf).ok()?.strip_suffix('\n')?;
            if path_hash(&row_path(row)?) != r.path_hash {
                return None;
            }
            let mut cells = Vec::with_capacity(2);
            toon::split_row(row, &mut cells).ok()?;
            let [_, usage] = cells[..] else {
                return None;
            };
            outside.push(crate::record::usage_lines(usage).ok()?);
        }
        (seen_fresh == fresh_rows).then_some(outside)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_row_is_read_without_the_table_reader_and_nothing_else_is() {
        let row = Located::of_plain_row("  3212030467860186974,70,1429\n");
        assert_eq!(
            row,
            Some(Located {
                path_hash: 3_212_030_467_860_186_974,
                offset: 70,
                length: 1429
            })
        );
        let mut by_table = UsageLocator::default();
        by_table
            .push(&["3212030467860186974", "70", "1429"])
            .unwrap();
        assert_eq!(by_table.rows, [row.unwrap()]);
        // Left to the table reader: quoted, negative, too many or too few
        // cells, a number past u64, no indent, a CR before the line end.
        for other in [
            "  \"1\",2,3\n",
            "  -1,2,3\n",
            "  1,2,3,4\n",
            "  1,2\n",
            "  18446744073709551616,2,3\n",
            "1,2,3\n",
            "  1,2,3\r\n",
            "  1,,3\n",
        ] {
            assert_eq!(Located::of_plain_row(other), None, "{other:?}");
        }
    }
}
