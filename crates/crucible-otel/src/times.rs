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
    /// The earliest and the latest model response the phase recorded.
    pub first_record_ms: Option<i64>,
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
    // An `ended` before `started` is not believed; the phases' own times
    // still are.
    let end = ended_ms
        .filter(|e| *e > started_ms)
        .or(latest.filter(|e| *e > started_ms))
        .unwrap_or(started_ms + DERIVED_MS_PER_PHASE * phases.len().max(1) as i64);
    Interval {
        start: started_ms,
        end,
    }
}

/// Each phase's interval. A phase without `started` that recorded model
/// responses starts at the previous phase's last response (or its own
/// first, when that is earlier), so that its `chat` spans lie inside it;
/// any other phase without `started` is placed evenly between the phases
/// around it that have a start (after the earlier one's end when it has a
/// duration; the session's start and end standing in at either side). A
/// phase ends after its `duration`, else where the next phase at its level
/// or shallower starts, else at the session's end; never before its last
/// response.
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
            let end = end.max(phases[i].last_record_ms.unwrap_or(end));
            Interval {
                start,
                end: end.max(start),
            }
        })
        .collect()
}

/// The interval of the session's root: the session's own, widened to
/// hold every phase (an engine draws a child outside its parent as
/// broken).
pub fn enclosing(session: Interval, phases: &[Interval]) -> Interval {
    phases.iter().fold(session, |acc, p| Interval {
        start: acc.start.min(p.start),
        end: acc.end.max(p.end),
    })
}

/// Where a phase without `started` but with timed responses begins.
fn anchored_start(phases: &[PhaseClock], i: usize) -> Option<i64> {
    let first = phases[i].first_record_ms?;
    let previous = i
        .checked_sub(1)
        .and_then(|p| phases[p].last_record_ms)
        .filter(|p| *p <= first);
    Some(previous.unwrap_or(first))
}

fn phase_starts(session: Interval, phases: &[PhaseClock]) -> Vec<i64> {
    let mut starts: Vec<Option<i64>> = (0..phases.len())
        .map(|i| phases[i].started_ms.or_else(|| anchored_start(phases, i)))
        .collect();
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
        let previous = i.checked_sub(1);
        let before_end = previous.and_then(|p| {
            let d = phases[p].duration_ms?;
            starts[p].map(|s| s.saturating_add(d as i64))
        });
        if let Some(end) = before_end.filter(|e| *e < after) {
            // After a phase that says how long it took: evenly from its end.
            let gap = after - end;
            for (k, s) in starts[i..run_end].iter_mut().enumerate() {
                *s = Some(end + gap * k as i64 / m);
            }
        } else if let Some(before) = previous.and_then(|p| starts[p]) {
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
            first_record_ms: None,
            last_record_ms: None,
        }
    }

    #[test]
    fn a_phase_without_a_start_holds_its_responses() {
        // Imported sessions: no `started`, only response times.
        let mut a = clock(None, None);
        a.first_record_ms = Some(2_000);
        a.last_record_ms = Some(3_000);
        let mut b = clock(None, None);
        b.first_record_ms = Some(8_000);
        b.last_record_ms = Some(9_500);
        let phases = [clock(None, None), a, b];
        let s = session_interval(0, Some(9_000), &phases);
        let iv = phase_intervals(s, &phases);
        // b starts at a's last response and runs to its own last one.
        assert_eq!(
            iv[1],
            Interval {
                start: 2_000,
                end: 3_000
            }
        );
        assert_eq!(
            iv[2],
            Interval {
                start: 3_000,
                end: 9_500
            }
        );
        assert_eq!(
            iv[0],
            Interval {
                start: 0,
                end: 2_000
            }
        );
        // The root is widened to hold them.
        assert_eq!(
            enclosing(s, &iv),
            Interval {
                start: 0,
                end: 9_500
            }
        );
    }

    #[test]
    fn an_untimed_phase_starts_after_a_timed_one_ends() {
        let phases = [
            clock(Some(1_000), Some(5_000)),
            clock(None, None),
            clock(Some(8_000), None),
        ];
        let iv = phase_intervals(session_interval(0, Some(10_000), &phases), &phases);
        assert_eq!(iv[1].start, 6_000);
    }

    #[test]
    fn an_ended_before_started_gives_way_to_the_phases_times() {
        let phases = [clock(Some(1_000), Some(4_000))];
        let s = session_interval(0, Some(-5), &phases);
        assert_eq!(
            s,
            Interval {
                start: 0,
                end: 5_000
            }
        );
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
        // The two after the phase of 500 ms share the gap from its end.
        assert_eq!(starts, [0, 1_000, 1_500, 2_750, 4_000]);
        let ends: Vec<i64> = iv.iter().map(|i| i.end).collect();
        assert_eq!(ends, [1_000, 1_500, 2_750, 4_000, 10_000]);
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
