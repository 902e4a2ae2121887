//! The times spans get: the session's own where it has them, derived by a
//! documented rule (`docs/otel.md`, "Times") where it does not.

/// What the rule needs of one phase.
#[derive(Debug, Clone, Copy)]
pub struct PhaseClock {
    /// Heading level: a phase ends where the next phase at its level or
    /// shallower starts.
    pub level: u8,
    pub started_ms: Option<i64>,
    pub duration_ms: Option<u64>,
    /// The latest model response the phase recorded.
    pub last_record_ms: Option<i64>,
}

/// A span's start and end, in milliseconds since the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    pub start: i64,
    pub end: i64,
}

impl Interval {
    /// The `i`-th of `n` equal slots of the interval.
    pub fn slot(self, i: usize, n: usize) -> Self {
        let n = n.max(1) as i64;
        let i = i as i64;
        let len = self.end - self.start;
        Self {
            start: self.start + len * i / n,
            end: self.start + len * (i + 1) / n,
        }
    }
}

/// A session without an end and without any later time lasts this long per
/// phase (at least one), so that its spans have a width to be drawn with.
pub const DERIVED_MS_PER_PHASE: i64 = 1_000;

/// The session's interval: `started` to `ended`; without `ended`, to the
/// latest time any phase gives (a start plus its duration, a model
/// response); failing that, [`DERIVED_MS_PER_PHASE`] per phase.
pub fn session_interval(started_ms: i64, ended_ms: Option<i64>, phases: &[PhaseClock]) -> Interval {
    let latest = phases
        .iter()
        .flat_map(|p| {
            [
                p.started_ms
                    .map(|s| s.saturating_add(p.duration_ms.unwrap_or(0) as i64)),
                p.last_record_ms,
            ]
        })
        .flatten()
        .max();
    let end = ended_ms
        .or(latest)
        .filter(|e| *e > started_ms)
        .unwrap_or(started_ms + DERIVED_MS_PER_PHASE * phases.len().max(1) as i64);
    Interval {
        start: started_ms,
        end,
    }
}

/// Each phase's interval. A phase without `started` is placed evenly
/// between the phases around it that have one (the session's start and
/// end standing in at either side); a phase ends after its `duration`, else
/// where the next phase at its level or shallower starts, else at the
/// session's end.
pub fn phase_intervals(session: Interval, phases: &[PhaseClock]) -> Vec<Interval> {
    let starts = phase_starts(session, phases);
    (0..phases.len())
        .map(|i| {
            let start = starts[i];
            let end = match phases[i].duration_ms {
                Some(d) => start.saturating_add(d as i64),
                None => (i + 1..phases.len())
                    .find(|&j| phases[j].level <= phases[i].level)
                    .map_or(session.end, |j| starts[j]),
            };
            Interval {
                start,
                end: end.max(start),
            }
        })
        .collect()
}

fn phase_starts(session: Interval, phases: &[PhaseClock]) -> Vec<i64> {
    let mut starts: Vec<Option<i64>> = phases.iter().map(|p| p.started_ms).collect();
    let mut i = 0;
    while i < starts.len() {
        if starts[i].is_some() {
            i += 1;
            continue;
        }
        let run_end = (i..starts.len())
            .find(|&j| starts[j].is_some())
            .unwrap_or(starts.len());
        let after = starts
            .get(run_end)
            .copied()
            .flatten()
            .unwrap_or(session.end);
        let m = (run_end - i) as i64;
        if let Some(before) = i.checked_sub(1).and_then(|p| starts[p]) {
            // Between two known starts: evenly inside the gap.
            let gap = (after - before).max(0);
            for (k, s) in starts[i..run_end].iter_mut().enumerate() {
                *s = Some(before + gap * (k as i64 + 1) / (m + 1));
            }
        } else {
            // Before the first known start: from the session's start.
            let gap = (after - session.start).max(0);
            for (k, s) in starts[i..run_end].iter_mut().enumerate() {
                *s = Some(session.start + gap * k as i64 / m);
            }
        }
        i = run_end;
    }
    starts
        .into_iter()
        .map(|s| s.unwrap_or(session.start))
        .collect()
}

/// Milliseconds to OTLP's nanoseconds (times before 1970 become 0).
pub fn nanos(ms: i64) -> u64 {
    u64::try_from(ms).unwrap_or(0).saturating_mul(1_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(started_ms: Option<i64>, duration_ms: Option<u64>) -> PhaseClock {
        PhaseClock {
            level: 2,
            started_ms,
            duration_ms,
            last_record_ms: None,
        }
    }

    #[test]
    fn untimed_phases_share_the_gaps_evenly() {
        let phases = [
            clock(None, None),
            clock(Some(1_000), Some(500)),
            clock(None, None),
            clock(None, None),
            clock(Some(4_000), None),
        ];
        let s = session_interval(0, Some(10_000), &phases);
        let iv = phase_intervals(s, &phases);
        let starts: Vec<i64> = iv.iter().map(|i| i.start).collect();
        assert_eq!(starts, [0, 1_000, 2_000, 3_000, 4_000]);
        let ends: Vec<i64> = iv.iter().map(|i| i.end).collect();
        assert_eq!(ends, [1_000, 1_500, 3_000, 4_000, 10_000]);
    }

    #[test]
    fn a_session_without_any_time_gets_a_second_per_phase() {
        let phases = [clock(None, None), clock(None, None)];
        let s = session_interval(5, None, &phases);
        assert_eq!(
            s,
            Interval {
                start: 5,
                end: 2_005
            }
        );
        let iv = phase_intervals(s, &phases);
        assert_eq!(
            iv[0],
            Interval {
                start: 5,
                end: 1_005
            }
        );
        assert_eq!(
            iv[1],
            Interval {
                start: 1_005,
                end: 2_005
            }
        );
    }

    #[test]
    fn a_nested_phase_does_not_end_its_parent() {
        let mut child = clock(Some(2_000), None);
        child.level = 3;
        let phases = [clock(Some(1_000), None), child, clock(Some(5_000), None)];
        let iv = phase_intervals(session_interval(0, Some(9_000), &phases), &phases);
        assert_eq!(iv[0].end, 5_000);
        assert_eq!(iv[1].end, 5_000);
    }
}
