use std::collections::BTreeMap;

use super::rows::{GROUP_FIELDS, KEY_FIELDS, group_row, key_row, key_row_bytes, write_tables};
use super::*;
use crate::stats::own_groups;
use crate::toon;
use crucible_core::Tokens;
use proptest::prelude::*;

fn line() -> impl Strategy<Value = UsageLine> {
    (
        (0i64..24 * 40, 0i64..3_600_000),
        prop::option::of(prop::sample::select(vec!["m1", "m2", "m3"])),
        prop::option::of(prop::sample::select(vec!["a@1", "a@2", "b@1", "c"])),
        prop::option::of(prop::sample::select(vec!["#main", "#side"])),
        (0u64..1_000, 0u64..1_000, 0u64..50),
        prop::option::of(0u32..100_000),
        prop::option::of(0u64..300),
    )
        .prop_map(
            |((hour, at), model, agent, channel, (input, output, untyped), cost, above)| {
                let hour = 1_735_689_600 / 3_600 + hour;
                UsageLine {
                    agent: agent.map(str::to_owned),
                    channel: channel.map(str::to_owned),
                    model: model.map(str::to_owned),
                    hour: hour * 3_600,
                    first_ms: hour * 3_600_000 + at,
                    last_ms: hour * 3_600_000 + at,
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
    prop::collection::vec(line(), 0..6)
}

/// A session's own facts: what its frontmatter says.
#[derive(Debug, Clone)]
struct Own {
    participants: Option<&'static str>,
    channel: Option<&'static str>,
    model: Option<&'static str>,
    started: String,
}

impl Own {
    fn facts(&self) -> Facts<'_> {
        use std::borrow::Cow::Borrowed;
        Facts {
            path: Borrowed("s.md"),
            id: Borrowed("s"),
            status: crucible_core::SessionStatus::Completed,
            started: Borrowed(&self.started),
            channel: self.channel.map(Borrowed),
            model: self.model.map(Borrowed),
            participants: self.participants.map(Borrowed),
            agents: None,
            tokens_used: None,
            duration_ms: None,
            errors: 0,
            user_interventions: 0,
            project: None,
            usage: crate::record::UsageCell::Lines(&[]),
        }
    }
}

fn own() -> impl Strategy<Value = Own> {
    (
        prop::option::of(prop::sample::select(vec!["a@1", "a@1 b@1", "c"])),
        prop::option::of(prop::sample::select(vec!["#main"])),
        prop::option::of(prop::sample::select(vec!["m1", "m2"])),
        0u32..40,
    )
        .prop_map(|(participants, channel, model, day)| Own {
            participants,
            channel,
            model,
            started: format!(
                "{}T08:00:00Z",
                jiff::civil::date(2025, 1, 1)
                    .checked_add(jiff::Span::new().days(i64::from(day)))
                    .unwrap()
            ),
        })
}

/// Session `path` now has these lines (none: removed).
#[derive(Debug, Clone)]
struct Op {
    path: u8,
    lines: Option<Vec<UsageLine>>,
}

fn op() -> impl Strategy<Value = Op> {
    (0u8..8, prop::option::of(session())).prop_map(|(path, lines)| Op { path, lines })
}

fn built(sessions: &BTreeMap<u8, Vec<UsageLine>>) -> StatsRollup {
    let mut s = StatsRollup::default();
    let none = Own {
        participants: None,
        channel: None,
        model: None,
        started: "2025-01-01T00:00:00Z".into(),
    };
    for (path, lines) in sessions {
        s.add(&format!("s{path}.md"), &none.facts(), lines);
    }
    s
}

proptest! {
    #[test]
    fn a_group_table_kept_by_difference_equals_one_built_afresh(ops in prop::collection::vec(op(), 0..40)) {
        let mut sessions: BTreeMap<u8, Vec<UsageLine>> = BTreeMap::new();
        let mut kept = GroupTable::default();
        for op in ops {
            let old = sessions.remove(&op.path).unwrap_or_default();
            let new = op.lines.unwrap_or_default();
            kept.add(&new, &GroupKind::ALL);
            kept.remove(&old, &GroupKind::ALL);
            if !new.is_empty() {
                sessions.insert(op.path, new);
            }
        }
        let fresh = built(&sessions);
        prop_assert!(kept.is_exact());
        prop_assert_eq!(&kept, &fresh.groups);
        // Every line is in one group of each kind: each kind's rows sum
        // to the same tokens.
        let all: Vec<&UsageLine> = sessions.values().flatten().collect();
        for kind in GroupKind::ALL {
            let input: u64 = kept.rows.iter().filter(|(k, _)| k.kind == kind).map(|(_, s)| s.tokens.input).sum();
            prop_assert_eq!(input, all.iter().map(|l| l.tokens.input).sum::<u64>());
        }
    }

    #[test]
    fn a_session_keeps_the_groups_its_lines_add_to_its_own(own in own(), lines in session()) {
        let mut keys = SessionKeys::default();
        let facts = own.facts();
        keys.add("s.md", &facts, &lines);
        for kind in GroupKind::ALL {
            let own: std::collections::BTreeSet<String> =
                own_groups(kind.group_by(), &facts).into_iter().map(std::borrow::Cow::into_owned).collect();
            let from_lines: std::collections::BTreeSet<String> =
                lines.iter().map(|l| kind.label(l).into_owned()).collect();
            let added: std::collections::BTreeSet<String> = keys
                .of_kind(kind)
                .into_values()
                .flatten()
                .map(str::to_owned)
                .collect();
            prop_assert!(added.is_disjoint(&own));
            prop_assert_eq!(
                own.union(&added).collect::<Vec<_>>(),
                own.union(&from_lines).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn shares_merged_equal_the_whole(sessions in prop::collection::vec((own(), session()), 0..12), cut in 0usize..12) {
        let (mut one, mut two, mut whole) =
            (StatsRollup::default(), StatsRollup::default(), StatsRollup::default());
        for (i, (own, lines)) in sessions.iter().enumerate() {
            let path = format!("s{i}.md");
            let facts = own.facts();
            whole.add(&path, &facts, lines);
            if i < cut { one.add(&path, &facts, lines) } else { two.add(&path, &facts, lines) }
        }
        one.merge(two);
        prop_assert_eq!(&one.groups, &whole.groups);
        for kind in GroupKind::ALL {
            prop_assert_eq!(one.sessions.of_kind(kind), whole.sessions.of_kind(kind));
        }
    }

    #[test]
    fn the_tables_round_trip_through_their_rows(sessions in prop::collection::vec((own(), session()), 0..12)) {
        let mut stats = StatsRollup::default();
        for (i, (own, lines)) in sessions.iter().enumerate() {
            stats.add(&format!("s{i}.md"), &own.facts(), lines);
        }
        let (groups, keys) = read_back(&stats);
        prop_assert_eq!(&groups, &stats.groups);
        for (kind, keys) in GroupKind::ALL.into_iter().zip(keys) {
            // Only the sessions whose lines add groups are named.
            prop_assert_eq!(keys, stats.sessions.of_kind(kind)
                .into_iter()
                .filter(|(_, names)| !names.is_empty())
                .map(|(h, names)| (h, names.into_iter().map(str::to_owned).collect()))
                .collect::<BTreeMap<u64, Vec<String>>>());
        }
    }
}

/// Each kind's session keys as read back: names by path hash.
type ReadKeys = BTreeMap<u64, Vec<String>>;

/// The tables written, then read as a query reads them.
fn read_back(stats: &StatsRollup) -> (GroupTable, Vec<ReadKeys>) {
    let mut text = String::new();
    write_tables(stats, &mut text);
    let doc = toon::parse(&text).unwrap();
    let table = |name: &str| -> Vec<Vec<&str>> {
        let t = doc.tables.iter().find(|t| t.name == name).unwrap();
        t.rows
            .iter()
            .map(|r| {
                let mut cells = Vec::new();
                toon::split_row(r, &mut cells).unwrap();
                cells
            })
            .collect()
    };
    let mut groups = GroupTable::default();
    for row in &table("stats_groups") {
        assert_eq!(row.len(), GROUP_FIELDS.len());
        let (k, s) = group_row(row).unwrap();
        groups.rows.insert(k, s);
    }
    let names: Vec<String> = table("stats_names")
        .iter()
        .map(|r| toon::text(r[0]).unwrap().unwrap().into_owned())
        .collect();
    let keys = GroupKind::ALL
        .into_iter()
        .map(|kind| {
            let name = super::rows::keys_table(kind);
            let rows = table(&name);
            let mut keys = KeysOf::with_capacity(0);
            keys.names.clone_from(&names);
            // The rows as bytes (a query's way) read as the cells do.
            let mut fast = KeysOf::with_capacity(0);
            fast.names.clone_from(&names);
            let raw = doc.tables.iter().find(|t| t.name == name).unwrap();
            for row in &raw.rows {
                key_row_bytes(format!("  {row}").as_bytes(), &mut fast)
                    .unwrap()
                    .unwrap();
            }
            for row in &rows {
                assert_eq!(row.len(), KEY_FIELDS.len());
                key_row(row, &mut keys).unwrap();
            }
            rows.iter()
                .map(|row| {
                    let hash: u64 = row[0].parse().unwrap();
                    assert_eq!(fast.of(hash), keys.of(hash));
                    let mut n: Vec<String> = keys
                        .of(hash)
                        .unwrap()
                        .iter()
                        .map(|&i| names[i as usize].clone())
                        .collect();
                    n.sort();
                    (hash, n)
                })
                .collect()
        })
        .collect();
    (groups, keys)
}

#[test]
fn a_group_row_is_the_lines_summed_as_one_line_of_its_model() {
    let mut lines = vec![
        UsageLine {
            agent: Some("lead@1.0".into()),
            model: Some("m1".into()),
            hour: 3_600,
            first_ms: 3_600_000,
            requests: 2,
            recorded: true,
            recorded_cost_usd: 0.1,
            tokens: Tokens {
                input: 10,
                ..Tokens::default()
            },
            ..UsageLine::default()
        };
        2
    ];
    lines[1].agent = Some("lead@2.0".into());
    lines[1].recorded_cost_usd = 0.2;
    let mut table = GroupTable::default();
    table.add(&lines, &[GroupKind::Agent]);
    let [(key, sums)] = table.rows.iter().collect::<Vec<_>>()[..] else {
        panic!("one row: {table:?}");
    };
    // `lead@1.0` and `lead@2.0` are one agent, as stats names it.
    assert_eq!(key.group, "lead");
    let line = sums.line(key);
    assert_eq!(line.tokens.input, 20);
    assert_eq!(line.requests, 4);
    assert!((line.recorded_cost_usd - 0.3).abs() < 1e-9);
    assert_eq!(line.model.as_deref(), Some("m1"));
}

#[test]
fn keys_are_left_out_when_two_paths_share_a_hash() {
    let mut stats = StatsRollup::default();
    let own = Own {
        participants: None,
        channel: None,
        model: None,
        started: "2025-01-01T00:00:00Z".into(),
    };
    stats.add("a.md", &own.facts(), &[UsageLine::default()]);
    stats.add("a.md", &own.facts(), &[UsageLine::default()]);
    let mut text = String::new();
    write_tables(&stats, &mut text);
    assert!(text.contains("stats_groups["));
    assert!(!text.contains("session_keys_"));
}

#[test]
fn damaged_rows_are_errors_not_panics() {
    let mut keys = KeysOf::with_capacity(1);
    keys.names.push("x".into());
    for row in [
        vec!["1"],
        vec!["1", "7_"],
        vec!["x", "0_"],
        vec!["1", "0_", "0_"],
    ] {
        assert!(key_row(&row, &mut keys).is_err(), "{row:?}");
    }
    for row in [&b"  1,7_"[..], b"  99999999999999999999999,0_"] {
        assert!(
            !matches!(key_row_bytes(row, &mut keys), Some(Ok(()))),
            "{row:?}"
        );
    }
    let good = ["1", "0_"];
    key_row(&good, &mut keys).unwrap();
    assert!(key_row(&good, &mut keys).is_err(), "a hash twice");
    assert!(
        matches!(key_row_bytes(b"  1,0_", &mut keys), Some(Err(_))),
        "a hash twice"
    );
    let mut row: Vec<&str> = vec!["agent", "lead", "null", "0", "1"];
    row.extend(std::iter::repeat_n("1", GROUP_FIELDS.len() - row.len() - 1));
    row.push("\"\"");
    group_row(&row).unwrap();
    for (i, bad) in [(0, "nope"), (3, "2"), (7, "-1"), (15, "1_2")] {
        let mut r = row.clone();
        r[i] = bad;
        assert!(group_row(&r).is_err(), "{r:?}");
    }
}
