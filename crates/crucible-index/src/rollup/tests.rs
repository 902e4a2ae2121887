use super::*;
use proptest::prelude::*;

fn line() -> impl Strategy<Value = UsageLine> {
    (
        0i64..4,
        prop::option::of(prop::sample::select(vec!["m1", "m2", "m3"])),
        prop::option::of(prop::sample::select(vec!["a@1", "a@2", "b@1"])),
        0i64..4,
        (0u64..1_000, 0u64..1_000, 0u64..50),
        prop::option::of(0u32..100_000),
        prop::option::of(0u64..300),
    )
        .prop_map(
            |(hour, model, agent, minute, (input, output, untyped), cost, above)| {
                let base = hour * 3_600_000;
                UsageLine {
                    agent: agent.map(str::to_owned),
                    model: model.map(str::to_owned),
                    hour: hour * 3_600,
                    // Few instants, so lines share their row's first request.
                    first_ms: base + minute * 60_000,
                    last_ms: base + 3_000_000,
                    requests: 1 + input % 3,
                    tokens: Tokens {
                        input,
                        output,
                        ..Tokens::default()
                    },
                    untyped,
                    recorded: cost.is_some(),
                    // Not multiples of a power of two: f64 sums would depend
                    // on their order.
                    recorded_cost_usd: cost.map_or(0.0, |c| f64::from(c) / 7_000.0),
                    above: above
                        .map(|a| {
                            vec![(
                                200_000,
                                Tokens {
                                    input: a,
                                    ..Tokens::default()
                                },
                            )]
                        })
                        .unwrap_or_default(),
                    ..UsageLine::default()
                }
            },
        )
}

fn session() -> impl Strategy<Value = Vec<UsageLine>> {
    prop::collection::vec(line(), 0..5)
}

#[derive(Debug, Clone)]
enum Op {
    Add(Vec<UsageLine>),
    /// The session at this index (modulo how many there are) now has these lines.
    Change(usize, Vec<UsageLine>),
    /// The session saved again unchanged.
    Same(usize),
    Remove(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => session().prop_map(Op::Add),
        2 => (any::<usize>(), session()).prop_map(|(i, s)| Op::Change(i, s)),
        1 => any::<usize>().prop_map(Op::Same),
        2 => any::<usize>().prop_map(Op::Remove),
    ]
}

/// `kept` equals `built` in every sum; its first requests where it says
/// they are exact.
fn agrees(kept: &Rollup, built: &Rollup) -> Result<(), TestCaseError> {
    let live: Vec<_> = kept.rows.iter().filter(|(_, r)| r.lines > 0).collect();
    prop_assert_eq!(live.len(), built.rows.len());
    for ((k, r), (bk, b)) in live.into_iter().zip(&built.rows) {
        prop_assert_eq!(k, bk);
        prop_assert!(b.exact);
        let sums = |r: &RollupSums| {
            (
                r.lines,
                r.requests,
                r.tokens,
                r.untyped,
                r.above.clone(),
                r.recorded_nanos,
                r.agents.clone(),
            )
        };
        prop_assert_eq!(sums(r), sums(b), "{:?}", k);
        if r.exact {
            prop_assert_eq!((r.first_ms, r.first_count), (b.first_ms, b.first_count));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Random sessions added, changed, saved unchanged and removed: the
    /// rollup kept by difference equals the rollup built afresh.
    #[test]
    fn a_rollup_kept_by_difference_equals_one_built_afresh(ops in prop::collection::vec(op(), 0..40)) {
        let mut sessions: Vec<Vec<UsageLine>> = Vec::new();
        let mut kept = Rollup::default();
        for op in ops {
            match op {
                Op::Add(lines) => {
                    kept.replace(&[], &lines);
                    sessions.push(lines);
                }
                Op::Change(i, lines) if !sessions.is_empty() => {
                    let i = i % sessions.len();
                    kept.replace(&sessions[i], &lines);
                    sessions[i] = lines;
                }
                Op::Same(i) if !sessions.is_empty() => {
                    let i = i % sessions.len();
                    let lines = sessions[i].clone();
                    kept.replace(&lines, &lines);
                }
                Op::Remove(i) if !sessions.is_empty() => {
                    let lines = sessions.swap_remove(i % sessions.len());
                    kept.replace(&lines, &[]);
                }
                _ => {}
            }
        }
        let built = Rollup::of(sessions.iter().map(Vec::as_slice));
        agrees(&kept, &built)?;
    }

    /// The order sessions come in changes nothing, costs included.
    #[test]
    fn a_rollup_does_not_depend_on_order(mut sessions in prop::collection::vec(session(), 0..20)) {
        let one = Rollup::of(sessions.iter().map(Vec::as_slice));
        sessions.reverse();
        prop_assert_eq!(one, Rollup::of(sessions.iter().map(Vec::as_slice)));
    }
}

#[test]
fn saving_a_session_again_keeps_its_rows_first_request() {
    let l = |first_ms| UsageLine {
        hour: 0,
        first_ms,
        requests: 1,
        ..UsageLine::default()
    };
    let mut r = Rollup::of([&[l(5)][..], &[l(9)][..]]);
    r.replace(&[l(5)], &[l(5)]);
    assert!(r.is_exact());
    assert_eq!(r.rows.values().next().unwrap().first_ms, 5);
    // The earliest line really removed: the next is not known.
    r.replace(&[l(5)], &[]);
    assert!(!r.is_exact());
    assert_eq!(r.rows.values().next().unwrap().lines, 1);
}

#[test]
fn written_costs_are_summed_in_nano_dollars() {
    assert_eq!(nanos(0.1), Some(100_000_000));
    assert_eq!(nanos(-2.5e-10), Some(0));
    assert_eq!(nanos(f64::NAN), None);
    assert_eq!(nanos(f64::INFINITY), None);
    let l = |usd| UsageLine {
        recorded: true,
        recorded_cost_usd: usd,
        ..UsageLine::default()
    };
    let r = Rollup::of([&[l(0.1), l(0.2)][..], &[l(f64::NAN)][..]]);
    let row = r.rows.values().next().unwrap();
    assert_eq!(row.recorded_nanos, 300_000_000);
    assert!(!row.exact, "a cost that is not an amount cannot be summed");
}

proptest! {
    /// The rows read back are the rollup written, inexact rows included.
    #[test]
    fn a_rollup_round_trips_through_its_rows(sessions in prop::collection::vec(session(), 0..12), drop in any::<usize>()) {
        let mut r = Rollup::of(sessions.iter().map(Vec::as_slice));
        if let Some(s) = sessions.get(drop % sessions.len().max(1)) {
            r.remove(s);
        }
        let mut text = String::new();
        rows::write_rows(&r, &mut text);
        let mut split = Vec::new();
        let mut cells: Vec<Vec<&str>> = Vec::new();
        for line in text.lines() {
            crate::toon::split_row(line, &mut split).unwrap();
            cells.push(split.clone());
        }
        let mut table = RollupTable::default();
        for c in &cells {
            table.push(c).unwrap();
        }
        let back = table.to_rollup().unwrap();
        prop_assert_eq!(back, r, "{}", text);
    }
}

#[test]
fn damaged_rollup_rows_are_errors_not_panics() {
    let mut cells = Vec::new();
    let good = "1,m,0,1,1,1,1,1,1,1,1,1,0,0,5,1,1/a,";
    crate::toon::split_row(good, &mut cells).unwrap();
    assert!(RollupTable::default().push(&cells).is_ok());
    for bad in [
        "1,m,2,1,1,1,1,1,1,1,1,1,0,0,5,1,1/a,x",
        "1,m,0,1,1,1,1,1,1,1,1,1,0,0,5,1,a,",
        "1,m,0,1,1,1,1,1,1,1,1,1,0,0,5,1,1/a,200000_1_2",
        "h,m,0,1,1,1,1,1,1,1,1,1,0,0,5,1,1/a,",
    ] {
        let mut cells = Vec::new();
        crate::toon::split_row(bad, &mut cells).unwrap();
        assert!(RollupTable::default().push(&cells).is_err(), "{bad}");
    }
}

proptest! {
    /// Sessions summed in shares and merged: the rollup of them all.
    #[test]
    fn merged_shares_equal_the_whole(sessions in prop::collection::vec(session(), 0..20), cut in any::<usize>()) {
        let cut = cut % (sessions.len() + 1);
        let mut first = Rollup::of(sessions[..cut].iter().map(Vec::as_slice));
        first.merge(Rollup::of(sessions[cut..].iter().map(Vec::as_slice)));
        prop_assert_eq!(first, Rollup::of(sessions.iter().map(Vec::as_slice)));
    }
}
