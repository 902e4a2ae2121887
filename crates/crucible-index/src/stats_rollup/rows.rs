//! The stats tables as TOON rows (of `.index-rollup.toon`, before the
//! table `rollup`, so that the calendar views, which stop after it, pass
//! over them in a few thousand lines and a query of stats stops before
//! the hourly rows it does not need):
//!
//! ```text
//! stats_groups[N]{kind,group,model,recorded,exact,lines,requests,input,...,untyped,written_nanos,above}:
//! stats_names[K]{name}:
//! session_keys_agent[S]{path_hash,groups}:
//! session_keys_channel[S]{path_hash,groups}:
//! session_keys_model[S]{path_hash,groups}:
//! session_keys_day[S]{path_hash,groups}:
//! ```
//!
//! A `session_keys_KIND` table has a row for each session whose lines add
//! groups of that kind to its own ([`super::SessionKeys`]); `groups` lists
//! them as numbers of `stats_names`, each followed by `_` (`3_17_`): never
//! quoted, never taken for a number. `above` is as in the table `rollup`
//! ([`crate::rollup::rows`]).

use std::fmt::Write as _;

use crucible_core::Tokens;

use super::{GroupKey, GroupKind, GroupSums, GroupTable, KeysOf, StatsRollup};
use crate::rollup::LineSums;
use crate::rollup::rows::{int, num, tokens_of};
use crate::toon::{self, Cell};

pub const GROUP_FIELDS: &[&str] = &[
    "kind",
    "group",
    "model",
    "recorded",
    "exact",
    "lines",
    "requests",
    "input",
    "output",
    "cache_creation",
    "cache_read",
    "reasoning",
    "cache_creation_1h",
    "untyped",
    "written_nanos",
    "above",
];

pub const NAME_FIELDS: &[&str] = &["name"];

pub const KEY_FIELDS: &[&str] = &["path_hash", "groups"];

/// The name of the table of the groups sessions' lines add, of `kind`.
pub fn keys_table(kind: GroupKind) -> String {
    format!("session_keys_{}", kind.name())
}

/// Writes the three tables. The keys are left out when two sessions
/// share a path hash (a query could not tell them apart).
pub fn write_tables(stats: &StatsRollup, out: &mut String) {
    toon::write_header(out, "stats_groups", stats.groups.rows.len(), GROUP_FIELDS);
    write_groups(&stats.groups, out);
    let keys = &stats.sessions;
    toon::write_header(out, "stats_names", keys.names.list.len(), NAME_FIELDS);
    for name in &keys.names.list {
        toon::write_row(out, &[Cell::Str(name)]);
    }
    if !keys.distinct() {
        return;
    }
    let mut list = String::new();
    for kind in GroupKind::ALL {
        let rows = || {
            keys.rows
                .iter()
                .filter(|(_, ids)| !ids[kind as usize].is_empty())
        };
        toon::write_header(out, &keys_table(kind), rows().count(), KEY_FIELDS);
        for (hash, ids) in rows() {
            list.clear();
            for id in &ids[kind as usize] {
                let _ = write!(list, "{id}_");
            }
            toon::write_row(out, &[Cell::Num(*hash), Cell::Str(&list)]);
        }
    }
}

fn write_groups(groups: &GroupTable, out: &mut String) {
    let mut above = String::new();
    for (k, s) in &groups.rows {
        above.clear();
        for (i, (threshold, t)) in s.above.iter().enumerate() {
            if i > 0 {
                above.push('+');
            }
            let _ = write!(
                above,
                "{threshold}_{}_{}_{}_{}_{}_{}",
                t.input, t.output, t.cache_creation, t.cache_read, t.reasoning, t.cache_creation_1h
            );
        }
        let nanos = s.recorded_nanos.to_string();
        let t = s.tokens;
        toon::write_row(
            out,
            &[
                Cell::Str(k.kind.name()),
                Cell::Str(&k.group),
                k.model.as_deref().into(),
                Cell::Num(u64::from(k.recorded)),
                Cell::Num(u64::from(s.exact)),
                Cell::Num(s.lines),
                Cell::Num(s.requests),
                Cell::Num(t.input),
                Cell::Num(t.output),
                Cell::Num(t.cache_creation),
                Cell::Num(t.cache_read),
                Cell::Num(t.reasoning),
                Cell::Num(t.cache_creation_1h),
                Cell::Num(s.untyped),
                nanos.parse::<u64>().map_or(Cell::Str(&nanos), Cell::Num),
                Cell::Str(&above),
            ],
        );
    }
}

/// Cell `i` (in [`GROUP_FIELDS`] order) as a flag: 0 or 1.
fn flag(c: &[&str], i: usize) -> Result<bool, String> {
    match int::<u8>(c[i], GROUP_FIELDS[i])? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(format!("`{}` should be 0 or 1", GROUP_FIELDS[i])),
    }
}

/// A row of `stats_groups` (cells in [`GROUP_FIELDS`] order).
pub fn group_row(c: &[&str]) -> Result<(GroupKey, GroupSums), String> {
    if c.len() != GROUP_FIELDS.len() {
        return Err(format!(
            "expected {} cells, found {}",
            GROUP_FIELDS.len(),
            c.len()
        ));
    }
    let text = |i: usize| toon::text(c[i]).map(|t| t.map(std::borrow::Cow::into_owned));
    let kind = text(0)?
        .as_deref()
        .and_then(GroupKind::from_name)
        .ok_or_else(|| {
            format!(
                "`kind` should be agent, channel, model or day, found `{}`",
                c[0]
            )
        })?;
    let key = GroupKey {
        kind,
        group: text(1)?.ok_or("`group` is null")?,
        model: text(2)?,
        recorded: flag(c, 3)?,
    };
    let mut above = crate::rollup::VecMap::default();
    let above_text = toon::text(c[15])?.unwrap_or_default();
    for part in above_text.split('+').filter(|p| !p.is_empty()) {
        let parts: Vec<&str> = part.split('_').collect();
        let [threshold, rest @ ..] = parts.as_slice() else {
            return Err(format!("`above` cannot be read: `{part}`"));
        };
        if rest.len() != 6 {
            return Err(format!("`above` cannot be read: `{part}`"));
        }
        let threshold = num::<u64>(threshold, "above")?;
        *above.get_or_insert_by(|k: &u64| k.cmp(&threshold), || threshold) = tokens_of(rest)?;
    }
    let n = |i: usize| num::<u64>(c[i], GROUP_FIELDS[i]);
    let sums = GroupSums {
        exact: flag(c, 4)?,
        sums: LineSums {
            lines: n(5)?,
            requests: n(6)?,
            tokens: Tokens {
                input: n(7)?,
                output: n(8)?,
                cache_creation: n(9)?,
                cache_read: n(10)?,
                reasoning: n(11)?,
                cache_creation_1h: n(12)?,
            },
            untyped: n(13)?,
            recorded_nanos: int::<i128>(c[14], "written_nanos")?,
            above,
        },
    };
    Ok((key, sums))
}

/// A row of a `session_keys_KIND` table (cells in [`KEY_FIELDS`] order)
/// noted in `keys`; an error for a cell that cannot be read or a hash
/// twice.
pub fn key_row(c: &[&str], keys: &mut KeysOf) -> Result<(), String> {
    if c.len() != KEY_FIELDS.len() {
        return Err(format!(
            "expected {} cells, found {}",
            KEY_FIELDS.len(),
            c.len()
        ));
    }
    let hash = num::<u64>(c[0], "path_hash")?;
    let names = keys.names.len();
    let mut ids = Vec::new();
    for part in c[1].split('_').filter(|p| !p.is_empty()) {
        let id = num::<u32>(part, "groups")
            .ok()
            .filter(|&id| (id as usize) < names)
            .ok_or_else(|| format!("`groups`: no name numbered `{part}`"))?;
        ids.push(id);
    }
    if !keys.push(hash, ids.into_iter()) {
        return Err(format!("path hash {hash} twice"));
    }
    Ok(())
}

/// A row of a `session_keys_KIND` table in the columns' own order, as
/// bytes (`  hash,3_17_`): what [`key_row`] reads, without splitting cells
/// or checking UTF-8. An error for a number out of range or a hash twice;
/// `None` for a row of another form (the table's error).
pub fn key_row_bytes(row: &[u8], keys: &mut KeysOf) -> Option<Result<(), String>> {
    let mut cells = row.strip_prefix(b"  ")?.split(|&b| b == b',');
    let (hash, list) = (digits(cells.next()?)?, cells.next()?);
    if cells.next().is_some() || !list.ends_with(b"_") {
        return None;
    }
    let names = keys.names.len() as u64;
    let ids = list
        .split(|&b| b == b'_')
        .filter(|p| !p.is_empty())
        .map(digits);
    if ids.clone().any(|id| id.is_none_or(|id| id >= names)) {
        return Some(Err("`groups`: a number out of range".into()));
    }
    let ids = ids.map(|id| u32::try_from(id.unwrap_or(0)).unwrap_or(u32::MAX));
    if !keys.push(hash, ids) {
        return Some(Err(format!("path hash {hash} twice")));
    }
    Some(Ok(()))
}

/// A number of digits that fits a `u64` (a path hash has up to 20);
/// `None` for anything else.
fn digits(b: &[u8]) -> Option<u64> {
    if b.is_empty() || b.len() > 20 {
        return None;
    }
    b.iter().try_fold(0u64, |n, &d| {
        d.is_ascii_digit()
            .then(|| n.checked_mul(10)?.checked_add(u64::from(d - b'0')))
            .flatten()
    })
}
