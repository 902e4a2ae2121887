//! The calendar views answered from the rollup equal the views answered
//! from every session's lines: the same rows, agents, models in the same
//! order, the same tokens exactly, the same cost to the cent.

use crucible_core::{Tokens, UsageLine};
use crucible_index::rollup::Rollup;
use crucible_usage::pricing::PriceTable;
use crucible_usage::report::{Period, PeriodReport, ReportOptions, period_report};
use crucible_usage::{CostMode, SessionUsage};
use jiff::tz::{Offset, TimeZone};
use proptest::prelude::*;

fn line() -> impl Strategy<Value = UsageLine> {
    (
        (0i64..24 * 70, 0i64..3_600_000),
        prop::option::of(prop::sample::select(vec![
            "claude-sonnet-4-20250514",
            "gpt-4o",
            "no-such-model",
            "<synthetic>",
        ])),
        prop::option::of(prop::sample::select(vec![
            "lead@1.0", "lead@2.0", "helper@1",
        ])),
        (0u64..400_000, 0u64..20_000, 0u64..100_000, 0u64..900_000),
        (
            0u64..1_000,
            prop::option::of(0u32..5_000_000),
            any::<bool>(),
        ),
    )
        .prop_map(
            |((hour, at), model, agent, (input, output, cc, cr), (untyped, cost, long))| {
                let hour = 1_735_689_600 / 3_600 + hour;
                let tokens = Tokens {
                    input,
                    output,
                    cache_creation: cc,
                    cache_read: cr,
                    ..Tokens::default()
                };
                UsageLine {
                    agent: agent.map(str::to_owned),
                    model: model.map(str::to_owned),
                    hour: hour * 3_600,
                    first_ms: hour * 3_600_000 + at,
                    last_ms: hour * 3_600_000 + at,
                    requests: 1,
                    tokens,
                    untyped,
                    recorded: cost.is_some(),
                    recorded_cost_usd: cost.map_or(0.0, |c| f64::from(c) / 1e7),
                    above: if long {
                        vec![(
                            200_000,
                            Tokens {
                                input: input / 2,
                                ..Tokens::default()
                            },
                        )]
                    } else {
                        Vec::new()
                    },
                    ..UsageLine::default()
                }
            },
        )
}

fn sessions() -> impl Strategy<Value = Vec<SessionUsage>> {
    prop::collection::vec(prop::collection::vec(line(), 0..6), 0..25).prop_map(|all| {
        all.into_iter()
            .enumerate()
            .map(|(i, lines)| SessionUsage {
                session_id: format!("s{i}"),
                path: format!("s{i}.md"),
                started_ms: i64::try_from(i).unwrap(),
                lines,
                ..SessionUsage::default()
            })
            .collect()
    })
}

/// The two reports agree exactly, costs included (a cost is an exact sum,
/// whatever order and grouping its lines were added in).
fn agree(ours: &PeriodReport, theirs: &PeriodReport) -> Result<(), TestCaseError> {
    prop_assert_eq!(ours.rows.len(), theirs.rows.len());
    for (o, t) in ours.rows.iter().zip(&theirs.rows) {
        prop_assert_eq!(&o.label, &t.label);
        prop_assert_eq!(&o.agents, &t.agents);
        prop_assert_eq!(o.usage.tokens, t.usage.tokens);
        prop_assert_eq!(o.usage.untyped, t.usage.untyped);
        prop_assert_eq!(o.usage.cost, t.usage.cost);
        prop_assert_eq!(o.usage.models.len(), t.usage.models.len());
        for (m, n) in o.usage.models.iter().zip(&t.usage.models) {
            prop_assert_eq!(
                (&m.model, m.first_ms, m.tokens, m.untyped),
                (&n.model, n.first_ms, n.tokens, n.untyped)
            );
            prop_assert_eq!(m.cost, n.cost);
        }
    }
    prop_assert_eq!(ours.totals.tokens, theirs.totals.tokens);
    prop_assert_eq!(ours.totals.cost, theirs.totals.cost);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn calendar_views_from_the_rollup_equal_those_from_the_lines(
        sessions in sessions(),
        zone in prop::sample::select(vec![0i8, 2, -5, 9]),
        mode in prop::sample::select(vec![CostMode::Auto, CostMode::Calculate, CostMode::Display]),
        period in prop::sample::select(vec![Period::Day, Period::Week, Period::Month]),
    ) {
        let prices = PriceTable::shipped();
        let price = |l: &UsageLine| prices.cost_of(l, mode);
        let opts = ReportOptions::new(
            TimeZone::fixed(Offset::constant(zone)),
            jiff::Timestamp::from_second(1_767_225_600).unwrap(),
        );
        let theirs = period_report(&sessions, &price, &opts, period);
        let rollup = Rollup::of(sessions.iter().map(|s| s.lines.as_slice()));
        let zone = opts.time_zone.clone();
        let day = |ms: i64| {
            let date = jiff::Timestamp::from_millisecond(ms).unwrap().to_zoned(zone.clone()).date();
            i64::from(date.year()) * 10_000 + i64::from(date.month()) * 100 + i64::from(date.day())
        };
        let lines = rollup.lines(&day).expect("a rollup built afresh is exact");
        let one = [SessionUsage { lines, ..SessionUsage::default() }];
        let ours = period_report(&one, &price, &opts, period);
        agree(&ours, &theirs)?;
    }
}
