//! A rollout's tokens from its `token_count` events.
//!
//! Each event carries `info.total_token_usage`, a running total for the
//! thread; what a turn spent is the difference from the previous total.
//! Counting differences, not the last total, is what keeps three traps out
//! (each met in real files):
//!
//! - the counter restarts inside a file (a total lower than the one before):
//!   the lower total is a new base, counted whole, not a negative step;
//! - Codex re-emits an event with the same total (rate-limit updates), and
//!   a file can hold earlier events again (a rollout appended to itself, its
//!   tail replayed): a total already counted is a replay and counts nothing,
//!   nor moves the base, as ccusage ignores the events it has seen; only a
//!   drop to a total not seen before is a restart;
//! - a forked or spawned rollout starts by replaying its parent's history,
//!   `token_count` events included, all written in the second the file was
//!   made: those set the base and are not counted again (the parent's file
//!   has them).
//!
//! Codex's `input_tokens` include the cached part and `output_tokens` the
//! reasoning, so a step maps to [`Tokens`] as input = input − cached,
//! cache_read = cached, output = output, reasoning = reasoning (as
//! ccusage's Codex reader splits them).
//!
//! Each step counted is one model request's usage record, at the event's
//! time, in the phase being read.

use std::collections::HashSet;

use serde_json::Value;

use crucible_core::Tokens;

/// One `total_token_usage` (or an exec turn's `usage`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Counts {
    pub input: u64,
    pub cached: u64,
    pub output: u64,
    pub reasoning: u64,
}

impl Counts {
    pub(crate) fn of(v: &Value) -> Self {
        let n = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
        Self {
            input: n("input_tokens"),
            cached: n("cached_input_tokens"),
            output: n("output_tokens"),
            reasoning: n("reasoning_output_tokens"),
        }
    }

    /// In cru's kinds: cached input is split off the input.
    pub(crate) fn usage(self) -> Tokens {
        let cached = self.cached.min(self.input);
        Tokens {
            input: self.input - cached,
            output: self.output,
            cache_creation: 0,
            cache_read: cached,
            reasoning: self.reasoning,
            cache_creation_1h: 0,
        }
    }

    /// True when some count went down: a restarted counter.
    fn below(self, prev: Self) -> bool {
        self.input < prev.input
            || self.cached < prev.cached
            || self.output < prev.output
            || self.reasoning < prev.reasoning
    }

    fn minus(self, prev: Self) -> Self {
        Self {
            input: self.input - prev.input,
            cached: self.cached - prev.cached,
            output: self.output - prev.output,
            reasoning: self.reasoning - prev.reasoning,
        }
    }
}

/// The steps of a rollout's running totals.
#[derive(Debug, Default)]
pub(crate) struct TokenCounter {
    last: Option<Counts>,
    /// Every total counted so far: one seen again is a replay.
    seen: HashSet<Counts>,
    /// The second (`YYYY-MM-DDTHH:MM:SS`) whose events replay a parent's
    /// history, while they last.
    replay: Option<String>,
}

impl TokenCounter {
    /// A counter for a rollout; `replay_second` as [`replay_second`] found.
    pub(crate) fn new(replay_second: Option<String>) -> Self {
        Self {
            replay: replay_second,
            ..Self::default()
        }
    }

    /// What one `total_token_usage` seen at `timestamp` adds: the tokens
    /// of the request it follows, or `None` (a replay, a repeat, nothing
    /// spent).
    pub(crate) fn total(&mut self, totals: &Value, timestamp: Option<&str>) -> Option<Tokens> {
        let now = Counts::of(totals);
        if let Some(second) = &self.replay {
            if timestamp.and_then(|t| t.get(..19)) == Some(second.as_str()) {
                self.last = Some(now);
                self.seen.insert(now);
                return None;
            }
            self.replay = None;
        }
        if !self.seen.insert(now) {
            return None;
        }
        let step = match self.last {
            Some(prev) if now.below(prev) => now,
            Some(prev) => now.minus(prev),
            None => now,
        };
        self.last = Some(now);
        Some(step.usage()).filter(|u| !u.is_zero())
    }
}

/// The second in which a forked or spawned rollout replayed its parent's
/// history: that of its first `token_count` events when at least the first
/// two share it (`events`: the timestamps of the `token_count` events that
/// carry totals, in order). A rollout that is not a fork replays nothing.
pub(crate) fn replay_second(forked: bool, events: &[&str]) -> Option<String> {
    if !forked {
        return None;
    }
    let first = events.first()?.get(..19)?;
    (events.get(1)?.get(..19)? == first).then(|| first.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn totals(input: u64, cached: u64, output: u64) -> Value {
        json!({"input_tokens": input, "cached_input_tokens": cached, "output_tokens": output,
               "reasoning_output_tokens": 0, "total_tokens": input + output})
    }

    /// The sum of what `totals` add, each seen at its time.
    fn sum(c: &mut TokenCounter, totals: &[(Value, Option<&str>)]) -> Tokens {
        let mut t = Tokens::default();
        for (v, at) in totals {
            if let Some(step) = c.total(v, *at) {
                t.add(step);
            }
        }
        t
    }

    #[test]
    fn a_restarted_counter_starts_a_new_base_and_repeats_count_once() {
        let mut c = TokenCounter::new(None);
        let u = sum(
            &mut c,
            &[
                (totals(100, 40, 10), Some("2025-01-01T00:00:01Z")),
                (totals(100, 40, 10), Some("2025-01-01T00:00:02Z")),
                (totals(300, 140, 30), Some("2025-01-01T00:00:03Z")),
                // Restart: 50 is below 300, so it is counted whole.
                (totals(50, 10, 5), Some("2025-01-01T00:00:04Z")),
            ],
        );
        assert_eq!(
            (u.input, u.cache_read, u.output),
            (160 + 40, 140 + 10, 30 + 5)
        );
    }

    #[test]
    fn totals_seen_again_are_a_replay_and_count_nothing() {
        let events = [
            totals(100, 40, 10),
            totals(300, 140, 30),
            totals(500, 200, 50),
        ];
        let plain: Vec<(Value, Option<&str>)> = events.iter().map(|t| (t.clone(), None)).collect();
        let once = sum(&mut TokenCounter::new(None), &plain);
        let mut twice = TokenCounter::new(None);
        let mut u = sum(&mut twice, &plain);
        // The file again (`cat F F`), then its tail again, then one new
        // total: only the new step counts, from the highest base.
        let again: Vec<_> = plain.iter().chain(&plain[1..]).cloned().collect();
        u.add(sum(&mut twice, &again));
        assert_eq!(u, once);
        u.add(sum(&mut twice, &[(totals(600, 250, 60), None)]));
        assert_eq!((u.input, u.cache_read, u.output), (350, 250, 60));
    }

    #[test]
    fn a_forks_replayed_history_sets_the_base_only() {
        let stamps = [
            "2025-01-01T00:00:09.100Z",
            "2025-01-01T00:00:09.200Z",
            "2025-01-01T00:01:00Z",
        ];
        let second = replay_second(true, &stamps);
        assert_eq!(second.as_deref(), Some("2025-01-01T00:00:09"));
        assert_eq!(replay_second(false, &stamps), None);
        let mut c = TokenCounter::new(second);
        let u = sum(
            &mut c,
            &[
                (totals(100, 0, 10), Some(stamps[0])),
                (totals(200, 0, 20), Some(stamps[1])),
                (totals(260, 0, 25), Some(stamps[2])),
            ],
        );
        assert_eq!((u.input, u.output), (60, 5));
    }
}
