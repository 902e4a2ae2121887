//! Hits in a subagent's text name it and its parent, the same whether the
//! index answers, or the files changed since are read directly beside it
//! (another search holding the lock).

use std::path::Path;

use crucible_core::store::lock::DirLock;
use crucible_core::store::names;
use crucible_search::{Filter, Request, Sort};

fn attributed(dir: &Path, query: &str) -> Vec<(String, u64, Option<String>, Option<String>)> {
    let opened = crucible_search::open(dir, 1 << 24).unwrap();
    let request = Request {
        query: crucible_search::parse(query).unwrap(),
        filter: Filter::default(),
        limit: 0,
        offset: 0,
        sort: Sort::Relevance,
        per_session: 10,
    };
    let mut out: Vec<_> = crucible_search::search(&opened, dir, &request)
        .unwrap()
        .into_iter()
        .map(|h| (h.id, h.phase, h.subagent, h.parent))
        .collect();
    out.sort();
    out
}

fn parent(child_link: &str) -> String {
    format!(
        "---\ntype: session\nsession_id: p\nstarted: 2025-12-01T10:00:00Z\nstatus: completed\n---\n\n\
         ## Plan @lead\n\nThe gnu plan.\n\n\
         > [!subagent] @helper\n> mode: inline\n>   A gnu in the callout.\n\n\
         > [!subagent] @scout\n> mode: link\n> → [[{child_link}]]\n"
    )
}

fn child(id: &str) -> String {
    format!(
        "---\ntype: session\nsession_id: {id}\nstarted: 2025-12-01T10:00:00Z\nstatus: completed\n---\n\n## Scout @scout\n\nA gnu seen.\n"
    )
}

#[test]
fn attribution_from_the_index_equals_attribution_read_directly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("p.md"), parent("c1")).unwrap();
    std::fs::write(dir.join("c1.md"), child("c1")).unwrap();
    std::fs::write(dir.join("c2.md"), child("c2")).unwrap();
    let s = |v: &str| Some(v.to_owned());
    assert_eq!(
        attributed(dir, "gnu"),
        [
            ("c1".into(), 1, s("scout"), s("p")),
            ("c2".into(), 1, None, None),
            ("p".into(), 1, None, None),
            ("p".into(), 1, s("helper"), s("p")),
        ]
    );
    // The parent now links c2: read directly under another's lock, then
    // from the index caught up, the answer is the same.
    let lock = DirLock::try_acquire_file(&dir.join(names::SEARCH_LOCK)).unwrap();
    std::fs::write(dir.join("p.md"), parent("c2")).unwrap();
    let direct = attributed(dir, "gnu");
    drop(lock);
    let indexed = attributed(dir, "gnu");
    assert_eq!(direct, indexed);
    assert_eq!(
        indexed,
        [
            ("c1".into(), 1, None, None),
            ("c2".into(), 1, s("scout"), s("p")),
            ("p".into(), 1, None, None),
            ("p".into(), 1, s("helper"), s("p")),
        ]
    );
}

/// The line of a phase's own hit is never in one of its subagents'
/// callouts, even where the callout comes first and matches as well.
#[test]
fn a_phases_line_is_outside_its_subagents_callouts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let text = "---\ntype: session\nsession_id: p\nstarted: 2025-12-01T10:00:00Z\nstatus: completed\n---\n\n\
                ## Plan @lead\n\n\
                > [!subagent] @helper\n> mode: inline\n>   The gnu plan, ready.\n\n\
                Then the gnu plan of the lead.\n";
    std::fs::write(dir.join("p.md"), text).unwrap();
    let opened = crucible_search::open(dir, 1 << 24).unwrap();
    let request = Request {
        query: crucible_search::parse("gnu plan").unwrap(),
        filter: Filter::default(),
        limit: 0,
        offset: 0,
        sort: Sort::Relevance,
        per_session: 10,
    };
    let mut hits: Vec<(Option<String>, u64)> = crucible_search::search(&opened, dir, &request)
        .unwrap()
        .into_iter()
        .map(|h| (h.subagent, h.line))
        .collect();
    hits.sort();
    assert_eq!(hits, [(None, 14), (Some("helper".into()), 12)]);
}
