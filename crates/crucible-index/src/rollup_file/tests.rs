//! The rollup file as the calendar views read it, after changes, answers as
//! the rollup of the sessions as they are now; and the usage rows a query
//! takes away are found by their offsets, as reading the file through
//! finds them.

use crate::path_set::PathHashes;

use crucible_core::{Tokens, UsageLine};
use crucible_usage::pricing::PriceTable;
use crucible_usage::report::{Period, PeriodReport, ReportOptions, period_report};
use crucible_usage::{CostMode, SessionUsage};
use proptest::prelude::*;

use super::*;
use crate::files::Index;
use crate::path_set::path_hash;
use crate::rollup::Rollup;
use crate::{FileStamp, SessionRecord};

fn line() -> impl Strategy<Value = UsageLine> {
    (
        (0i64..24 * 4, 0i64..3_600_000),
        prop::option::of(prop::sample::select(vec!["gpt-4o", "no-such-model"])),
        prop::option::of(prop::sample::select(vec!["lead@1.0", "helper@1", "wé,ird"])),
        (0u64..400_000, 0u64..20_000),
        prop::option::of(0u32..5_000_000),
    )
        .prop_map(|((hour, at), model, agent, (input, output), cost)| {
            let hour = 1_735_689_600 / 3_600 + hour;
            UsageLine {
                agent: agent.map(str::to_owned),
                model: model.map(str::to_owned),
                hour: hour * 3_600,
                first_ms: hour * 3_600_000 + at,
                last_ms: hour * 3_600_000 + at,
                requests: 1,
                tokens: Tokens {
                    input,
                    output,
                    ..Tokens::default()
                },
                recorded: cost.is_some(),
                recorded_cost_usd: cost.map_or(0.0, |c| f64::from(c) / 1e7),
                above: if input > 300_000 {
                    vec![(
                        200_000,
                        Tokens {
                            input: input - 200_000,
                            ..Tokens::default()
                        },
                    )]
                } else {
                    Vec::new()
                },
                ..UsageLine::default()
            }
        })
}

fn lines() -> impl Strategy<Value = Vec<UsageLine>> {
    prop::collection::vec(line(), 0..5)
}

fn record(i: usize, usage: Vec<UsageLine>) -> SessionRecord {
    let path = format!("2025-01/s{i:02}.md");
    let summary = crate::record::tests::sample_summary(&path);
    let mut r = SessionRecord::from_summary(path, &summary, FileStamp::default(), false);
    r.id = format!("s{i}");
    r.usage = usage;
    r
}

fn view(lines: Vec<UsageLine>) -> PeriodReport {
    let prices = PriceTable::shipped();
    let price = |l: &UsageLine| prices.cost_of(l, CostMode::Auto);
    let zone = jiff::tz::TimeZone::fixed(jiff::tz::Offset::constant(-5));
    let opts = ReportOptions::new(zone, jiff::Timestamp::from_second(1_767_225_600).unwrap());
    let one = [SessionUsage {
        lines,
        ..SessionUsage::default()
    }];
    period_report(&one, &price, &opts, Period::Day)
}

fn day(hour: i64) -> Option<i64> {
    let t = jiff::Timestamp::from_second(hour).ok()?;
    let date = jiff::tz::Offset::constant(-5).to_datetime(t).date();
    Some(i64::from(date.year()) * 10_000 + i64::from(date.month()) * 100 + i64::from(date.day()))
}

/// The same rows, tokens, models and agents; costs to a millionth.
fn agree(ours: &PeriodReport, theirs: &PeriodReport) -> Result<(), TestCaseError> {
    prop_assert_eq!(ours.rows.len(), theirs.rows.len());
    for (o, t) in ours.rows.iter().zip(&theirs.rows) {
        prop_assert_eq!(&o.label, &t.label);
        prop_assert_eq!(&o.agents, &t.agents);
        prop_assert_eq!(o.usage.tokens, t.usage.tokens);
        prop_assert_eq!(o.usage.cost, t.usage.cost);
        let models = |u: &crucible_usage::report::Usage| {
            u.models
                .iter()
                .map(|m| (m.model.clone(), m.first_ms, m.tokens))
                .collect::<Vec<_>>()
        };
        prop_assert_eq!(models(&o.usage), models(&t.usage));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Sessions written to an index, then some changed, some removed and
    /// some added: the views from the rollup file with those changes equal
    /// the views of the sessions as they are now, and the old lines taken
    /// away are found by the rows' offsets.
    #[test]
    fn the_rollup_file_with_changes_answers_as_the_sessions_now(
        base in prop::collection::vec(lines(), 1..12),
        changes in prop::collection::vec((0u8..3, lines()), 1..12),
        added in prop::collection::vec(lines(), 0..3),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let index = Index {
            sessions: base.iter().cloned().enumerate().map(|(i, l)| record(i, l)).collect(),
            ..Index::default()
        };
        files::write_all(dir.path(), &index, 0, &[]).unwrap();
        let (mut now_lines, mut fresh, mut taken, mut now) = (Vec::new(), PathHashes::default(), Vec::new(), Rollup::default());
        for (i, old) in base.iter().enumerate() {
            // 0: unchanged, 1: changed to new lines, 2: removed.
            let (what, new) = changes.get(i).cloned().unwrap_or((0, Vec::new()));
            match what {
                0 => {
                    fresh.insert(path_hash(&format!("2025-01/s{i:02}.md")));
                    now_lines.extend(old.iter().cloned());
                }
                1 => {
                    taken.push(old.clone());
                    now.add(&new);
                    now_lines.extend(new);
                }
                _ => taken.push(old.clone()),
            }
        }
        for new in &added {
            now.add(new);
            now_lines.extend(new.iter().cloned());
        }
        let file = read_days(dir.path(), &day).unwrap();
        prop_assert_eq!(file.base.rows, base.len());
        let locator = file.locator(dir.path()).expect("the file says where the usage rows are");
        let usage = dir.path().join(files::USAGE);
        let by_offset = locator.outside(&usage, file.base.generation, &fresh, fresh.len());
        let through = usage_read_through(&usage, file.base.generation, &fresh, fresh.len());
        prop_assert_eq!(by_offset.as_ref(), Some(&taken));
        prop_assert_eq!(through.as_ref(), Some(&taken));
        // The same changes to the whole rollup: a row whose earliest line
        // was taken away no longer answers, there as here.
        let mut kept = Rollup::of(base.iter().map(Vec::as_slice));
        kept.merge(now.clone());
        for old in &taken {
            kept.remove(old);
        }
        let days = file.days.expect("a rollup written afresh answers");
        match days.lines(now, &taken, &day) {
            Some(ours) => {
                prop_assert!(kept.is_exact(), "a rollup that cannot answer did");
                agree(&view(ours), &view(now_lines))?;
            }
            None => prop_assert!(!kept.is_exact(), "an exact rollup did not answer"),
        }
    }
}

/// A usage file of another write, or rows not where the table says, are
/// not read by offset.
#[test]
fn usage_rows_of_another_write_are_not_read_by_offset() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index {
        sessions: (0..3)
            .map(|i| record(i, vec![UsageLine::default()]))
            .collect(),
        ..Index::default()
    };
    files::write_all(dir.path(), &index, 0, &[]).unwrap();
    let file = read_days(dir.path(), &day).unwrap();
    let locator = file.locator(dir.path()).unwrap();
    let usage = dir.path().join(files::USAGE);
    let fresh = PathHashes::default();
    assert!(
        locator
            .outside(&usage, file.base.generation, &fresh, 0)
            .is_some()
    );
    assert!(
        locator
            .outside(&usage, file.base.generation + 1, &fresh, 0)
            .is_none()
    );
    // Rows moved by a byte: each row must name the path it is kept for.
    let text = std::fs::read_to_string(&usage).unwrap();
    std::fs::write(&usage, text.replacen("usage[", "\nusage[", 1)).unwrap();
    assert!(
        locator
            .outside(&usage, file.base.generation, &fresh, 0)
            .is_none()
    );
}
