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

use super::Rollup;
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

pub(crate) fn int<T: std::str::FromStr>(cell: &str, what: &str) -> Result<T, String> {
    toon::text(cell)?
        .as_deref()
        .unwrap_or("")
        .parse()
        .map_err(|_| format!("`{what}` should be an integer, found `{cell}`"))
}

/// A number of digits alone, read without unquoting; else as `int` reads it.
pub(crate) fn num<T: std::str::FromStr + TryFrom<u64>>(
    cell: &str,
    what: &str,
) -> Result<T, String> {
    let b = cell.as_bytes();
    if !b.is_empty() && b.len() <= 19 && b.iter().all(u8::is_ascii_digit) {
        let n = b.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
        if let Ok(n) = T::try_from(n) {
            return Ok(n);
        }
    }
    int(cell, what)
}

pub(crate) fn tokens_of(parts: &[&str]) -> Result<Tokens, String> {
    let n = |i: usize| num::<u64>(parts[i], "tokens");
    Ok(Tokens {
        input: n(0)?,
        output: n(1)?,
        cache_creation: n(2)?,
        cache_read: n(3)?,
        reasoning: n(4)?,
        cache_creation_1h: n(5)?,
    })
}

/// Cell `i` of a row (in [`ROLLUP_FIELDS`] order) as a flag: 0 or 1.
pub(crate) fn flag(c: &[&str], i: usize) -> Result<bool, String> {
    match int::<u8>(c[i], ROLLUP_FIELDS[i])? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(format!("`{}` should be 0 or 1", ROLLUP_FIELDS[i])),
    }
}
