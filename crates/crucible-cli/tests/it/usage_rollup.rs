//! `cru usage daily|weekly|monthly` answered from the index's rollup equal
//! the same views answered from every session's cell (the rollup file
//! removed), after every kind of change: an edit in place, a file added, a
//! file removed, a save through cru (the delta), a file that stops being a
//! session. Tokens exactly, costs to the cent.

use std::path::Path;
use std::time::Duration;

use crate::kiln::TestKiln;

/// A session file with `n` usage records spread over a few days and hours,
/// two agents and three models, some with the cost written.
fn session(i: usize, n: usize) -> String {
    let mut text = format!(
        "---\ntype: session\nsession_id: s{i}\ntitle: S{i}\nstarted: 2025-03-0{}T08:00:00Z\nstatus: completed\nparticipants:\n  - lead@1.0\n---\n\n# S{i}\n\n",
        1 + i % 5
    );
    for p in 0..2 {
        let agent = if (i + p).is_multiple_of(2) {
            "lead@1.0"
        } else {
            "helper@2"
        };
        text.push_str(&format!(
            "## Part {p} #main\n<!-- phase: agent={agent} -->\n"
        ));
        for r in 0..n {
            let model = ["claude-sonnet-4-20250514", "gpt-4o", "no-such-model"][(i + r) % 3];
            let cost = if (i + r).is_multiple_of(4) {
                format!(" cost_usd=0.0{}{}7", i % 10, r % 10)
            } else {
                String::new()
            };
            text.push_str(&format!(
                "<!-- usage: at=2025-03-0{}T{:02}:{:02}:{:02}.000Z model={model} input={} output={}{cost} -->\n",
                1 + (i + r) % 5,
                (i * 7 + r * 5 + p) % 24,
                (i * 13 + r) % 60,
                r % 60,
                1000 + i * 37 + r,
                50 + r * 3,
            ));
        }
        text.push('\n');
    }
    text
}

fn views(kiln: &TestKiln) -> Vec<serde_json::Value> {
    ["daily", "weekly", "monthly"]
        .iter()
        .map(|v| {
            let out = kiln.run(&["usage", v, "--json", "--breakdown"]);
            assert_eq!(out.code, 0, "{}", out.stderr);
            serde_json::from_str(&out.stdout).unwrap()
        })
        .collect()
}

/// Equal, but for numbers under a key naming a cost, which agree to the cent.
fn assert_agree(a: &serde_json::Value, b: &serde_json::Value, at: &str) {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(
                x.keys().collect::<Vec<_>>(),
                y.keys().collect::<Vec<_>>(),
                "{at}"
            );
            for (k, v) in x {
                let at = format!("{at}.{k}");
                if k.to_lowercase().contains("cost") && v.is_f64() {
                    let (p, q) = (v.as_f64().unwrap(), y[k].as_f64().unwrap());
                    assert!((p - q).abs() < 0.005, "{at}: {p} vs {q}");
                } else {
                    assert_agree(v, &y[k], &at);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}");
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                assert_agree(p, q, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

/// The views from the rollup, then from every cell (the rollup file
/// removed), agree; the index is rebuilt after, so the rollup is back.
fn check(kiln: &TestKiln, what: &str) {
    let rollup = kiln.sessions().join(".index-rollup.toon");
    assert!(rollup.exists(), "{what}: no rollup file");
    // Where the usage rows are: a query after a change reads only those.
    let text = std::fs::read_to_string(&rollup).unwrap();
    assert!(
        text.contains("\nusage_rows["),
        "{what}: no usage_rows table"
    );
    let from_rollup = views(kiln);
    std::fs::remove_file(&rollup).unwrap();
    let from_cells = views(kiln);
    for (a, b) in from_rollup.iter().zip(&from_cells) {
        assert_agree(a, b, what);
    }
    let out = kiln.run(&["session", "index", "--rebuild"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_agree(&views(kiln)[0], &from_cells[0], what);
    // Past the racy window: the rows are trusted, and answered from.
    std::thread::sleep(Duration::from_millis(150));
}

#[test]
fn calendar_views_from_the_rollup_equal_those_from_every_cell_after_any_change() {
    let kiln = TestKiln::empty();
    let dir = kiln.sessions();
    std::fs::create_dir_all(dir.join("2025-03")).unwrap();
    for i in 0..12 {
        std::fs::write(dir.join(format!("2025-03/s{i}.md")), session(i, 1 + i % 4)).unwrap();
    }
    std::thread::sleep(Duration::from_millis(150));
    let out = kiln.run(&["session", "index", "--rebuild"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    std::thread::sleep(Duration::from_millis(150));
    let first = views(&kiln);
    assert!(
        first[0]["totals"]["inputTokens"].as_u64().unwrap() > 0,
        "{}",
        first[0]
    );
    check(&kiln, "nothing changed");

    every_kind_of_change(&kiln, &dir, &check);
}

/// Changes the sessions in every way the rollup must follow, calling
/// `check` after each: an edit in place (other tokens, another day), a
/// file removed (its lines held rows' first requests) and one added, a
/// file that stopped being a session, a live session (the delta), and a
/// save through cru.
fn every_kind_of_change(kiln: &TestKiln, dir: &Path, check: &dyn Fn(&TestKiln, &str)) {
    std::fs::write(dir.join("2025-03/s3.md"), session(40, 3)).unwrap();
    check(kiln, "an edit in place");
    std::fs::remove_file(dir.join("2025-03/s5.md")).unwrap();
    std::fs::write(dir.join("2025-03/s99.md"), session(99, 2)).unwrap();
    check(kiln, "a file removed and one added");
    std::fs::write(dir.join("2025-03/s7.md"), "# just a note\n").unwrap();
    check(kiln, "a file that stopped being a session");
    let out = kiln.run(&["session", "start", "--title", "live", "--channel", "x"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = out.stdout.trim().to_owned();
    let out = kiln.run(&[
        "session",
        "log",
        "--session",
        &id,
        "tokens",
        "--input",
        "777",
        "--output",
        "7",
        "--model",
        "gpt-4o",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    check(kiln, "a live session");
    let out = kiln.run(&["session", "end", &id]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    check(kiln, "a save through cru");
}

/// The groupings `cru session stats` answers from the rollup file.
const STATS_GROUPINGS: [&str; 6] = ["agent", "channel", "model", "day", "week", "month"];

fn stats(kiln: &TestKiln) -> Vec<serde_json::Value> {
    STATS_GROUPINGS
        .iter()
        .map(|by| {
            let out = kiln.run(&["session", "stats", "--group-by", by, "--format", "json"]);
            assert_eq!(out.code, 0, "{}", out.stderr);
            serde_json::from_str(&out.stdout).unwrap()
        })
        .collect()
}

/// `stats` from the rollup, then from every cell (the rollup file
/// removed), agree whole; the index is rebuilt after.
fn check_stats(kiln: &TestKiln, what: &str) {
    let rollup = kiln.sessions().join(".index-rollup.toon");
    let text = std::fs::read_to_string(&rollup).unwrap();
    // A table per kind (agent, channel, model, day).
    for kind in &STATS_GROUPINGS[..4] {
        let table = format!("\nsession_keys_{kind}[");
        assert!(text.contains(&table), "{what}: no {table} table");
    }
    let from_rollup = stats(kiln);
    std::fs::remove_file(&rollup).unwrap();
    let from_cells = stats(kiln);
    for (by, (a, b)) in STATS_GROUPINGS
        .iter()
        .zip(from_rollup.iter().zip(&from_cells))
    {
        assert!(
            a["groups"].as_array().is_some_and(|g| !g.is_empty()),
            "{what}, {by}: {a}"
        );
        assert_agree(a, b, &format!("{what}, --group-by {by}"));
    }
    let out = kiln.run(&["session", "index", "--rebuild"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    std::thread::sleep(Duration::from_millis(150));
}

#[test]
fn stats_from_the_rollup_equal_stats_from_every_cell_after_any_change() {
    let kiln = TestKiln::empty();
    let dir = kiln.sessions();
    std::fs::create_dir_all(dir.join("2025-03")).unwrap();
    for i in 0..12 {
        std::fs::write(dir.join(format!("2025-03/s{i}.md")), session(i, 1 + i % 4)).unwrap();
    }
    std::thread::sleep(Duration::from_millis(150));
    let out = kiln.run(&["session", "index", "--rebuild"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    std::thread::sleep(Duration::from_millis(150));

    // Nothing changed: the answer comes from the rollup alone, without
    // the usage file (made unreadable here, and sealed as if cru had
    // written it: reading it would rebuild the index, with a warning).
    let before = stats(&kiln);
    std::fs::write(dir.join(".index-usage.toon"), "not an index\n").unwrap();
    crucible_index::seal::note(&dir.join(".index-usage.toon"));
    crucible_index::seal::write(&dir).unwrap();
    for by in STATS_GROUPINGS {
        let out = kiln.run(&["session", "stats", "--group-by", by, "--format", "json"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(!out.stderr.contains("rebuilt"), "{by}: {}", out.stderr);
    }
    let out = kiln.run(&["session", "index", "--rebuild"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    std::thread::sleep(Duration::from_millis(150));
    for (a, b) in before.iter().zip(&stats(&kiln)) {
        assert_eq!(a, b);
    }
    check_stats(&kiln, "nothing changed");

    every_kind_of_change(&kiln, &dir, &check_stats);
}
