//! Model requests as the importers record them: one
//! [`UsageRecord`] per response a source reports tokens for, in the phase
//! of the turn it answered, so that tokens and cost belong to that phase
//! (and its agent), and the session's totals are their sum
//! (`SessionLog::refresh_usage_totals`, which each importer calls last).

use crucible_core::{Phase, Timestamp, Tokens, UsageRecord};

/// A request's record: when, by which model, what it spent, and the
/// source's id of it.
pub(crate) fn record(
    at: Option<Timestamp>,
    model: Option<&str>,
    tokens: Tokens,
    id: Option<String>,
) -> UsageRecord {
    UsageRecord {
        at,
        model: model.map(str::to_owned),
        tokens,
        cost_usd: None,
        id,
        extra: Vec::new(),
    }
}

/// An ISO-8601 time as sources write it, if it is one.
pub(crate) fn time(text: Option<&str>) -> Option<Timestamp> {
    text?.parse().ok()
}

/// Records met while a source is read, put in the phase being written; a
/// request made before any phase (a source whose agent spoke first, or
/// spent tokens before the user's first words) waits for the first phase.
#[derive(Debug, Default)]
pub(crate) struct Requests {
    waiting: Vec<UsageRecord>,
}

impl Requests {
    /// Puts `r` in the last of `phases`, or keeps it for the first.
    pub(crate) fn put(&mut self, phases: &mut [Phase], r: UsageRecord) {
        match phases.last_mut() {
            Some(p) => p.usage.push(r),
            None => self.waiting.push(r),
        }
    }

    /// Puts `r` in phase `at` of `phases` (the phase being written when
    /// the source reported it), or keeps it for the first when there was
    /// none yet.
    pub(crate) fn put_in(&mut self, phases: &mut [Phase], at: Option<usize>, r: UsageRecord) {
        match at.and_then(|i| phases.get_mut(i)) {
            Some(p) => p.usage.push(r),
            None => self.waiting.push(r),
        }
    }

    /// Gives the waiting records to the first phase, before its own; a
    /// source with no phase at all gets a `Start` phase to hold them (its
    /// tokens were spent, and a phase is what spends them).
    pub(crate) fn settle(self, phases: &mut Vec<Phase>) {
        if self.waiting.is_empty() {
            return;
        }
        if phases.is_empty() {
            phases.push(Phase::new("Start", None, Some("main".into())));
        }
        let first = &mut phases[0].usage;
        first.splice(0..0, self.waiting);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(input: u64) -> Tokens {
        Tokens {
            input,
            ..Tokens::default()
        }
    }

    #[test]
    fn a_request_before_any_phase_goes_to_the_first() {
        let mut r = Requests::default();
        let mut phases = Vec::new();
        r.put(&mut phases, record(None, Some("m"), tokens(1), None));
        phases.push(Phase::new("a", None, None));
        r.put(&mut phases, record(None, Some("m"), tokens(2), None));
        r.settle(&mut phases);
        let inputs: Vec<u64> = phases[0].usage.iter().map(|u| u.tokens.input).collect();
        assert_eq!(inputs, [1, 2]);
    }

    #[test]
    fn requests_without_a_phase_get_a_start_phase() {
        let mut r = Requests::default();
        let mut phases = Vec::new();
        r.put(&mut phases, record(None, None, tokens(3), None));
        r.settle(&mut phases);
        assert_eq!(phases.len(), 1);
        assert_eq!(phases[0].usage.len(), 1);
    }
}
