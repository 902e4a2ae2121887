//! The rollup file as `cru session stats` reads it: the stats tables of
//! one kind ([`crate::stats_rollup`]), up to the hourly rows; where the
//! table `usage_rows` is (to take changed sessions' old lines away) is
//! found after those only when a query needs it.

use std::path::Path;

use super::{Head, Header, LocatorAt, RollupFile, recycle};
use crate::files::{self, IndexFileError, ROLLUP};
use crate::record::Columns;
use crate::rollup::file_lines::FileLines;
use crate::stats_rollup::rows::{
    GROUP_FIELDS, KEY_FIELDS, NAME_FIELDS, group_row, key_row, key_row_bytes, keys_table,
};
use crate::stats_rollup::{GroupKind, GroupTable, KeysOf};
use crate::toon;
use crate::usage_locator::LOCATOR_FIELDS;

/// What stats answers from: the table's rows of one kind, and each
/// session's groups of that kind.
#[derive(Debug)]
pub struct StatsFile {
    /// The base it is of, and where its usage rows are.
    pub rollup: RollupFile,
    pub groups: GroupTable,
    /// `None` when the file has no `session_keys_KIND` (two paths of one
    /// hash).
    pub keys: Option<KeysOf>,
}

/// What the loop has read so far.
struct Tables {
    groups: GroupTable,
    names: Vec<String>,
    keys: Option<KeysOf>,
    locator_at: Option<LocatorAt>,
    rollup_rows_at: Option<(u64, usize)>,
}

/// Reads the stats tables of `kind` from the rollup file.
pub fn read_stats(dir: &Path, kind: GroupKind) -> Result<StatsFile, IndexFileError> {
    let path = dir.join(ROLLUP);
    let mut lines = FileLines::open(&path).map_err(|e| files::io_error(&path, e))?;
    let bad = |line: usize, m: String| files::corrupt(&path, line, m);
    let mut head = Head::default();
    let mut t = Tables {
        groups: GroupTable::default(),
        names: Vec::new(),
        keys: None,
        locator_at: None,
        rollup_rows_at: None,
    };
    // Set by the jump to `stats_at`: the line there must open the stats
    // tables (an offset edited by hand, or a file whose rows changed
    // length, would land elsewhere, or back on the head and loop).
    let mut landed = false;
    let mut saw_groups = false;
    loop {
        let n = lines.number + 1;
        let Some((_, line)) = lines.next_line().map_err(|m| bad(n, m))? else {
            break;
        };
        let header = head.take(line).map_err(|m| bad(n, m))?;
        if std::mem::take(&mut landed) && header.as_ref().is_none_or(|h| h.name != "stats_groups") {
            return Err(bad(
                n,
                "`stats_at` does not point at the stats tables".into(),
            ));
        }
        let Some(header) = header else {
            continue;
        };
        saw_groups |= header.name == "stats_groups";
        files::check_version(&path, head.version.as_deref())?;
        let number = lines.number;
        let in_table = |m: String| bad(number, format!("table `{}`: {m}", header.name));
        match header.name.as_str() {
            "usage_rows" => {
                t.locator_at = Some(LocatorAt {
                    offset: lines.offset(),
                    rows: header.len,
                    columns: header.columns(LOCATOR_FIELDS),
                });
                lines.skip_lines(header.len).map_err(in_table)?;
            }
            name if name == "stats_groups" || name == "stats_names" || name == keys_table(kind) => {
                table(&mut lines, &header, kind, &mut t).map_err(in_table)?;
            }
            // The hourly rows (and `usage_rows` after them) are of no use
            // unless some base row changed: found then
            // ([`RollupFile::find_locator`]). The stats tables are read
            // from where the head says they are (line numbers then count
            // from there).
            "rollup" => {
                t.rollup_rows_at = Some((lines.offset(), header.len));
                match head.stats_at.take() {
                    // The same open file: a rollup file written since is
                    // another file.
                    Some(at) if at > lines.offset() => {
                        lines.jump(at).map_err(|e| files::io_error(&path, e))?;
                        landed = true;
                    }
                    Some(_) => {
                        return Err(bad(n, "`stats_at` points back into the file".into()));
                    }
                    None => lines.skip_lines(header.len).map_err(in_table)?,
                }
            }
            _ => lines.skip_lines(header.len).map_err(in_table)?,
        }
    }
    files::check_version(&path, head.version.as_deref())?;
    if !saw_groups {
        return Err(bad(lines.number, "no table `stats_groups`".into()));
    }
    let scalar = |v: Option<u64>, name: &str| v.ok_or_else(|| bad(1, format!("no `{name}` line")));
    let base = super::BaseOf {
        generation: scalar(head.generation, "generation")?,
        rows: usize::try_from(scalar(head.sessions, "sessions")?).unwrap_or(usize::MAX),
    };
    Ok(StatsFile {
        rollup: RollupFile {
            base,
            days: None,
            locator_at: t.locator_at,
            rollup_rows_at: t.rollup_rows_at,
        },
        groups: t.groups,
        keys: t.keys,
    })
}

/// Reads the rows of one of the stats tables into `t`.
fn table(
    lines: &mut FileLines,
    header: &Header,
    kind: GroupKind,
    t: &mut Tables,
) -> Result<(), String> {
    let known = match header.name.as_str() {
        "stats_groups" => GROUP_FIELDS,
        "stats_names" => NAME_FIELDS,
        _ => KEY_FIELDS,
    };
    let columns: Columns = header.columns(known);
    let is_keys = header.name.starts_with("session_keys_");
    if is_keys {
        let mut keys = KeysOf::with_capacity(header.len);
        keys.names = std::mem::take(&mut t.names);
        t.keys = Some(keys);
    }
    let (mut store_cells, mut store_ordered): (Vec<&'static str>, Vec<&'static str>) =
        (Vec::new(), Vec::new());
    let fast_keys = is_keys && columns.is_identity();
    for i in 0..header.len {
        let at = |m: String| format!("row {}: {m}", i + 1);
        if fast_keys {
            // A row per session: read as bytes, the way this cru writes it.
            let keys = t.keys.as_mut().expect("made above");
            let Some((_, row)) = lines.next_raw_line().map_err(at)? else {
                return Err(format!("declares {} rows but has {i}", header.len));
            };
            if let Some(read) = key_row_bytes(row, keys) {
                read.map_err(at)?;
                continue;
            }
            return Err(at("not a row of numbers".into()));
        }
        let Some((_, row)) = lines.next_line().map_err(at)? else {
            return Err(format!("declares {} rows but has {i}", header.len));
        };
        let trimmed = row.trim_start_matches(' ');
        if trimmed.len() == row.len() {
            return Err(format!("declares {} rows but has {i}", header.len));
        }
        let (mut cells, mut ordered) = (recycle(&mut store_cells), recycle(&mut store_ordered));
        toon::split_row(trimmed, &mut cells).map_err(at)?;
        columns.order(&cells, &mut ordered);
        match header.name.as_str() {
            // Only the rows of the kind asked for are read whole; a row of
            // no kind at all (a cell edited or cut by hand) is corrupt, not
            // another kind's.
            "stats_groups"
                if ordered
                    .first()
                    .and_then(|k| GroupKind::from_name(k))
                    .is_none() =>
            {
                return Err(at("`kind` is not one of agent, channel, model, day".into()));
            }
            "stats_groups" if ordered.first().is_some_and(|k| *k != kind.name()) => {}
            "stats_groups" => {
                let (key, sums) = group_row(&ordered).map_err(at)?;
                if key.kind == kind {
                    t.groups.rows.insert(key, sums);
                }
            }
            "stats_names" => {
                let name = ordered
                    .first()
                    .map(|c| toon::text(c))
                    .transpose()
                    .map_err(at)?
                    .flatten()
                    .ok_or_else(|| at("`name` is null".into()))?;
                t.names.push(name.into_owned());
            }
            _ => {
                let keys = t.keys.as_mut().expect("made above");
                key_row(&ordered, keys).map_err(at)?;
            }
        }
        (store_cells, store_ordered) = (recycle(&mut cells), recycle(&mut ordered));
    }
    Ok(())
}
