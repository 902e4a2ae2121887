//! The rollup as TOON rows (of `.index-rollup.toon`):
//! one row per key, numbers as numbers, the agents' line counts and the
//! tokens above each threshold each in one cell.
//!
//! ```text
//! agents := count/agent (';' between), agent escaped as in a usage cell
//! above  := threshold_in_out_cc_cr_reasoning_cc1h ('+' between)
//! ```
//!
//! Separators TOON does not quote: a reader splits most cells without
//! unquoting them (the file has a row per hour and model of the data).

use std::fmt::Write as _;

use crucible_core::Tokens;

use super::{Rollup, RollupKey, RollupSums};
use crate::toon::{self, Cell};
use crate::usage_cell;

pub const ROLLUP_FIELDS: &[&str] = &[
    "hour",
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
    "first_ms",
    "first_count",
    "agents",
    "above",
];

fn tokens_text(out: &mut String, t: Tokens) {
    let _ = write!(
        out,
        "{}_{}_{}_{}_{}_{}",
        t.input, t.output, t.cache_creation, t.cache_read, t.reasoning, t.cache_creation_1h
    );
}

/// A number as a number: a negative one (before 1970) is quoted text.
fn int_cell(text: &str) -> Cell<'_> {
    text.parse::<u64>().map_or(Cell::Str(text), Cell::Num)
}

/// Writes every row of `rollup`, in key order.
pub fn write_rows(rollup: &Rollup, out: &mut String) {
    for (k, s) in &rollup.rows {
        let mut agents = String::new();
        for (i, (agent, n)) in s.agents.iter().enumerate() {
            if i > 0 {
                agents.push(';');
            }
            let _ = write!(agents, "{n}/");
            usage_cell::text(&mut agents, agent.as_deref());
        }
        let mut above = String::new();
        for (i, (threshold, t)) in s.above.iter().enumerate() {
            if i > 0 {
                above.push('+');
            }
            let _ = write!(above, "{threshold}_");
            tokens_text(&mut above, *t);
        }
        let (hour, nanos, first) = (
            k.hour.to_string(),
            s.recorded_nanos.to_string(),
            s.first_ms.to_string(),
        );
        let t = s.tokens;
        toon::write_row(
            out,
            &[
                int_cell(&hour),
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
                int_cell(&nanos),
                int_cell(&first),
                Cell::Num(s.first_count),
                Cell::Str(&agents),
                Cell::Str(&above),
            ],
        );
    }
}

fn int<T: std::str::FromStr>(cell: &str, what: &str) -> Result<T, String> {
    toon::text(cell)?
        .as_deref()
        .unwrap_or("")
        .parse()
        .map_err(|_| format!("`{what}` should be an integer, found `{cell}`"))
}

fn tokens_of(parts: &[&str]) -> Result<Tokens, String> {
    let n = |i: usize| int::<u64>(parts[i], "tokens");
    Ok(Tokens {
        input: n(0)?,
        output: n(1)?,
        cache_creation: n(2)?,
        cache_read: n(3)?,
        reasoning: n(4)?,
        cache_creation_1h: n(5)?,
    })
}

/// Reads a row whose cells are in [`ROLLUP_FIELDS`] order.
pub fn read_row(c: &[&str]) -> Result<(RollupKey, RollupSums), String> {
    if c.len() != ROLLUP_FIELDS.len() {
        return Err(format!(
            "expected {} cells, found {}",
            ROLLUP_FIELDS.len(),
            c.len()
        ));
    }
    let flag = |i: usize| match int::<u8>(c[i], ROLLUP_FIELDS[i])? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(format!("`{}` should be 0 or 1", ROLLUP_FIELDS[i])),
    };
    let key = RollupKey {
        hour: int(c[0], "hour")?,
        model: toon::text(c[1])?.map(std::borrow::Cow::into_owned),
        recorded: flag(2)?,
    };
    let n = |i: usize| int::<u64>(c[i], ROLLUP_FIELDS[i]);
    let mut sums = RollupSums {
        exact: flag(3)?,
        lines: n(4)?,
        requests: n(5)?,
        tokens: tokens_of(&c[6..12])?,
        untyped: n(12)?,
        recorded_nanos: int(c[13], "written_nanos")?,
        first_ms: int(c[14], "first_ms")?,
        first_count: n(15)?,
        ..RollupSums::default()
    };
    let agents = toon::text(c[16])?.unwrap_or_default();
    for item in agents.split(';').filter(|s| !s.is_empty()) {
        let (count, name) = item.split_once('/').ok_or("an agent without its count")?;
        if !sums
            .agents
            .insert(usage_cell::untext(name)?, int(count, "agent count")?)
        {
            return Err("an agent twice".into());
        }
    }
    let above = toon::text(c[17])?.unwrap_or_default();
    for item in above.split('+').filter(|s| !s.is_empty()) {
        let parts: Vec<&str> = item.split('_').collect();
        let [threshold, rest @ ..] = &parts[..] else {
            return Err("an empty `above` item".into());
        };
        if rest.len() != 6 {
            return Err(format!("`above` item `{item}` should have 7 numbers"));
        }
        if !sums
            .above
            .insert(int(threshold, "threshold")?, tokens_of(rest)?)
        {
            return Err("a threshold twice".into());
        }
    }
    Ok((key, sums))
}

/// Reads rows written by [`write_rows`] (cells already split and ordered).
pub fn read_rows<'a>(rows: impl IntoIterator<Item = &'a [&'a str]>) -> Result<Rollup, String> {
    let mut rollup = Rollup::default();
    for cells in rows {
        let (k, s) = read_row(cells)?;
        if rollup.rows.insert(k, s).is_some() {
            return Err("a key twice".into());
        }
    }
    Ok(rollup)
}
