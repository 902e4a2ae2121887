//! `list` and `stats` from the index agree with a brute-force parse of every file.

use std::path::Path;

use crucible_core::SessionStore;
use crucible_index::record::{FileStamp, SessionRecord};
use crucible_index::{Filter, GroupBy, SessionIndex};
use crucible_parser::{MarkdownCodec, parse_session};

pub use crucible_testkit::copy_session_fixtures as copy_fixtures;

/// Every session file parsed in full, as records.
pub fn brute_force(root: &Path) -> Vec<SessionRecord> {
    crucible_core::store::session_files(root)
        .unwrap()
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            let log = parse_session(&p, &bytes).ok()?;
            let rel = crucible_index::scan::relative(root, &p);
            Some(SessionRecord::from_summary(
                rel,
                &log.summary(),
                FileStamp::default(),
                false,
            ))
        })
        .collect()
}

fn ids(records: &[SessionRecord]) -> Vec<String> {
    records.iter().map(|r| r.id.clone()).collect()
}

/// The filters the agreement is checked under.
fn filters() -> Vec<Filter> {
    let all = Filter::default;
    vec![
        all(),
        all().with_status(crucible_core::SessionStatus::Paused),
        all().with_agent("tester"),
        all().with_agent("orchestrator@1.0"),
        all().with_channel("dev"),
        Filter {
            since_ms: Some(crucible_index::query::parse_bound("2025-12-10", false).unwrap()),
            ..Filter::default()
        },
    ]
}

/// Every phase of every session file parsed in full, as records.
fn brute_force_phases(root: &Path) -> Vec<crucible_index::PhaseRecord> {
    crucible_core::store::session_files(root)
        .unwrap()
        .into_iter()
        .filter_map(|p| {
            let log = parse_session(&p, &std::fs::read(&p).ok()?).ok()?;
            Some(crucible_index::PhaseRecord::from_summary(
                &crucible_index::scan::relative(root, &p),
                &log.summary(),
            ))
        })
        .flatten()
        .collect()
}

pub fn assert_agrees(root: &Path) {
    let store = SessionStore::new(root, MarkdownCodec);
    let opened = SessionIndex::new(&store).open(None, &|_, _| {}).unwrap();
    let truth = brute_force(root);
    assert_eq!(opened.index.sessions.len(), truth.len());
    for f in &filters() {
        list_agrees(&store, &opened.index.sessions, &truth, f);
    }
    let (phases, _) = SessionIndex::new(&store).phases(&|_, _| {}).unwrap();
    let true_phases = brute_force_phases(root);
    for by in GroupBy::ALL {
        for f in &filters() {
            let expected = crucible_index::stats(&truth, &true_phases, f, by);
            groups_add_up(&expected, by);
            assert_eq!(
                crucible_index::stats(&opened.index.sessions, &phases, f, by),
                expected,
                "{by:?} {f:?}"
            );
            assert_eq!(
                stats_by_visit(&store, &phases, f, by),
                expected,
                "visit {by:?} {f:?}"
            );
        }
    }
}

/// Tokens (every kind) are credited once: the groups' sum is the total.
fn groups_add_up(
    (rows, total): &(Vec<crucible_index::StatsRow>, crucible_index::StatsRow),
    by: GroupBy,
) {
    let sum = |f: fn(&crucible_index::StatsRow) -> u64| rows.iter().map(f).sum::<u64>();
    let kinds = |r: &crucible_index::StatsRow| {
        [
            r.tokens,
            r.input,
            r.output,
            r.cache_creation,
            r.cache_read,
            r.untyped,
        ]
    };
    let summed: Vec<u64> = (0..6)
        .map(|i| rows.iter().map(|r| kinds(r)[i]).sum())
        .collect();
    assert_eq!(
        summed,
        kinds(total),
        "{by:?}: the groups' tokens do not add up"
    );
    assert!(sum(|r| r.sessions) >= total.sessions, "{by:?}");
}

/// `list` on the opened index, and on the streaming path `list` takes
/// straight from the file, both against the full parse.
fn list_agrees(
    store: &SessionStore<MarkdownCodec>,
    indexed: &[SessionRecord],
    truth: &[SessionRecord],
    f: &Filter,
) {
    let expected = ids(&crucible_index::list(truth, f, None));
    assert_eq!(
        ids(&crucible_index::list(indexed, f, None)),
        expected,
        "{f:?}"
    );
    let seen = SessionIndex::new(store).matching(f).unwrap();
    assert_eq!(ids(&seen), expected, "visit {f:?}");
}

/// `stats` on the streaming path, straight from the file: the rows and the total.
fn stats_by_visit(
    store: &SessionStore<MarkdownCodec>,
    phases: &[crucible_index::PhaseRecord],
    f: &Filter,
    by: GroupBy,
) -> (Vec<crucible_index::StatsRow>, crucible_index::StatsRow) {
    let (_, states) = SessionIndex::new(store)
        .visit(
            None,
            f,
            &|_, _| {},
            &|| crucible_index::Aggregator::new(by),
            &|agg: &mut crucible_index::Aggregator, facts, _| {
                if f.matches(facts) {
                    agg.add(facts);
                }
            },
        )
        .unwrap();
    let mut agg = crucible_index::Aggregator::new(by);
    for s in states {
        agg.merge(s);
    }
    agg.finish(phases)
}

#[test]
fn list_and_stats_agree_with_a_full_parse_on_the_fixtures() {
    let dir = copy_fixtures();
    assert_agrees(dir.path());
    // Again from the index on disk, not the rebuild in memory.
    assert!(dir.path().join(crucible_index::files::BASE).is_file());
    assert_agrees(dir.path());
}
