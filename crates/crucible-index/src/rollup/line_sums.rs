//! Exact sums of usage lines: what a rollup row and a stats group row
//! both keep, added to and taken away from by the same rule.

use crucible_core::{Tokens, UsageLine};

use super::{VecMap, nanos, tokens_apply};

/// The sums of the usage lines of one row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineSums {
    /// Usage lines summed: a row with none is dropped.
    pub lines: u64,
    pub requests: u64,
    pub tokens: Tokens,
    pub untyped: u64,
    /// Tokens above each threshold, by threshold.
    pub above: VecMap<u64, Tokens>,
    /// The written costs, in nano-dollars.
    pub recorded_nanos: i128,
}

impl LineSums {
    /// Adds (`add`) or takes away one line; false when a sum cannot be
    /// kept exactly (an overflow, a written cost that is not a finite
    /// amount).
    pub fn apply(&mut self, line: &UsageLine, add: bool) -> bool {
        let u = |x: u64, y: u64| {
            if add {
                x.checked_add(y)
            } else {
                x.checked_sub(y)
            }
        };
        let (Some(lines), Some(requests), Some(untyped), Some(tokens)) = (
            u(self.lines, 1),
            u(self.requests, line.requests),
            u(self.untyped, line.untyped),
            tokens_apply(self.tokens, line.tokens, add),
        ) else {
            return false;
        };
        (self.lines, self.requests, self.untyped, self.tokens) = (lines, requests, untyped, tokens);
        for (threshold, t) in &line.above {
            let sum = self
                .above
                .get_or_insert_by(|k| k.cmp(threshold), || *threshold);
            let Some(new) = tokens_apply(*sum, *t, add) else {
                return false;
            };
            *sum = new;
            if sum.is_zero() {
                self.above.remove_by(|k| k.cmp(threshold));
            }
        }
        if line.recorded {
            let Some(n) = nanos(line.recorded_cost_usd) else {
                return false;
            };
            self.recorded_nanos += if add { n } else { -n };
        }
        true
    }

    /// Adds the sums of another row of the same key; false when a sum
    /// overflows.
    pub fn add_sums(&mut self, o: &LineSums) -> bool {
        let (Some(lines), Some(requests), Some(untyped), Some(tokens)) = (
            self.lines.checked_add(o.lines),
            self.requests.checked_add(o.requests),
            self.untyped.checked_add(o.untyped),
            tokens_apply(self.tokens, o.tokens, true),
        ) else {
            return false;
        };
        (self.lines, self.requests, self.untyped, self.tokens) = (lines, requests, untyped, tokens);
        self.recorded_nanos += o.recorded_nanos;
        for (threshold, t) in o.above.iter() {
            let sum = self
                .above
                .get_or_insert_by(|k| k.cmp(threshold), || *threshold);
            let Some(new) = tokens_apply(*sum, *t, true) else {
                return false;
            };
            *sum = new;
        }
        true
    }
}
