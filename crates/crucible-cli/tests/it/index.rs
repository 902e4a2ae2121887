//! `cru session list`, `stats` and `index` on the fixtures.

use crate::kiln::{TestKiln, fixtures};

#[test]
fn list_is_newest_first_with_the_spec_columns() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "list"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @"
    id                         status     started               participants
    2025-12-13-config-loader   completed  2025-12-13T09:00:00Z  architect@2.0, coder@1.4
    2025-12-12-long-migration  completed  2025-12-12T10:00:00Z  dba@3.2, checker@1.0
    2025-12-12-start-docs      active     2025-12-12T08:00:00Z  writer@0.9
    2025-12-11-write-tests     completed  2025-12-11T14:10:00Z  tester@1.1
    2025-12-11-refactor-store  completed  2025-12-11T13:00:00Z  orchestrator@1.0, tester@1.1
    2025-12-10-investigate-ci  completed  2025-12-10T09:30:00Z  debugger@0.3
    2025-12-10-fix-flaky-test  paused     2025-12-10T09:15:00Z  orchestrator@1.0, debugger@0.3
    2025-12-05-feature-impl    completed  2025-12-05T14:32:15Z  orchestrator@1.0, researcher@1.2, coder@1.0
    2025-11-28-ci-failure      failed     2025-11-28T17:02:11Z  release-bot@2.0
    ");
    assert_eq!(out.stderr, "");
}

#[test]
fn list_filters() {
    let kiln = TestKiln::with_fixtures();
    let ids = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["session", "list", "--format", "json"];
        all.extend_from_slice(args);
        let out = kiln.run(&all);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v = crate::kiln::listed_sessions(&out.stdout);
        v.iter()
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids(&["--status", "paused"]), ["2025-12-10-fix-flaky-test"]);
    assert_eq!(
        ids(&["--agent", "tester"]),
        ["2025-12-11-write-tests", "2025-12-11-refactor-store"]
    );
    assert_eq!(
        ids(&["--agent", "debugger@0.3", "--channel", "dev"]),
        ["2025-12-10-investigate-ci", "2025-12-10-fix-flaky-test"]
    );
    assert_eq!(ids(&["--model", "gpt-4o"]), ["2025-11-28-ci-failure"]);
    assert_eq!(
        ids(&["--since", "2025-12-11", "--until", "2025-12-11"]),
        ["2025-12-11-write-tests", "2025-12-11-refactor-store"]
    );
    assert_eq!(ids(&["--limit", "1"]), ["2025-12-13-config-loader"]);
    let out = kiln.run(&["session", "list", "--status", "done"]);
    assert_eq!(out.code, 2);
    let out = kiln.run(&["session", "list", "--since", "last week"]);
    // A value the flag does not take is wrong usage, as clap's own are.
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("--since: `last week` is not a date or time: expected a timestamp"),
        "{}",
        out.stderr
    );
}

#[test]
fn list_toon_is_read_by_toon_format() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "list", "--status", "failed", "--format", "toon"]);
    assert_eq!(out.code, 0);
    let v: serde_json::Value = toon_format::decode_default(&out.stdout).unwrap();
    assert_eq!(v["sessions"][0]["id"], "2025-11-28-ci-failure");
}

#[test]
fn stats_by_status_with_a_total() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "stats", "--group-by", "status"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @"
    group      sessions   tokens  input  output  cache                       cost         avg      min        max  failed  errors  user
    active            1        0      0       0      0                      $0.00           -        -          -       -       0     0
    completed         6  103,340      0       0      0  unpriced (103,340 tokens)  2h 31m 31s   11m 0s  8h 30m 0s    0.0%       4     2
    failed            1    4,022      0       0      0    unpriced (4,022 tokens)     38m 41s  38m 41s    38m 41s  100.0%       1     1
    paused            1    6,910      0       0      0    unpriced (6,910 tokens)           -        -          -       -       1     1
    total             9  114,272      0       0      0  unpriced (114,272 tokens)  2h 15m 24s   11m 0s  8h 30m 0s   14.3%       6     4
    ");
    let out = kiln.run(&[
        "session",
        "stats",
        "--group-by",
        "agent",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let tester = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["group"] == "tester")
        .unwrap();
    assert_eq!(tester["sessions"], 2);
    assert_eq!(v["total"]["sessions"], 9);
}

#[test]
fn a_deleted_or_corrupt_index_gives_the_same_answer() {
    let kiln = TestKiln::with_fixtures();
    let before = kiln.run(&["session", "list", "--format", "json"]).stdout;
    let index = kiln.sessions().join(".index.toon");
    assert!(index.is_file());
    std::fs::write(&index, "garbage\n  more garbage\n").unwrap();
    let out = kiln.run(&["session", "list", "--format", "json"]);
    assert_eq!(out.stdout, before);
    assert!(
        out.stderr.starts_with("warning: index rebuilt: "),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1, "one line: {}", out.stderr);
    std::fs::remove_file(&index).unwrap();
    let out = kiln.run(&["session", "list", "--format", "json"]);
    assert_eq!(out.stdout, before);
}

#[test]
fn an_index_row_cut_short_by_hand_is_rebuilt_not_a_panic() {
    // Each query reads a row's first cells its own way: the whole row
    // (`list`), the stamp's cells first (`--status`), or the stamp's cells
    // only (the calendar views from the rollup).
    let queries: [&[&str]; 4] = [
        &["session", "list", "--format", "json"],
        &["session", "list", "--status", "paused", "--format", "json"],
        &["usage", "monthly", "--json"],
        &["session", "stats", "--format", "json"],
    ];
    let kiln = TestKiln::with_fixtures();
    let before: Vec<String> = queries.iter().map(|q| kiln.run(q).stdout).collect();
    let index = kiln.sessions().join(".index.toon");
    for (query, before) in queries.iter().zip(&before) {
        let text = std::fs::read_to_string(&index).unwrap();
        let cut: Vec<String> = text
            .lines()
            .map(
                |l| match l.strip_prefix("  2025-12-10-fix-flaky-test.md,") {
                    Some(_) => {
                        "  2025-12-10-fix-flaky-test.md,2025-12-10-fix-flaky-test,paused".into()
                    }
                    None => l.to_owned(),
                },
            )
            .collect();
        assert_ne!(cut.join("\n") + "\n", text, "the row is in the index");
        std::fs::write(&index, cut.join("\n") + "\n").unwrap();
        let out = kiln.run(query);
        assert_eq!(out.code, 0, "{query:?}: {}", out.stderr);
        assert_eq!(&out.stdout, before, "{query:?}");
        assert!(
            out.stderr.contains("index rebuilt"),
            "{query:?}: {}",
            out.stderr
        );
    }
    // Cut to exactly the cells a filtered list reads first: the row was
    // then taken for a short one and dropped, without a rebuild.
    for (query, before) in queries.iter().zip(&before) {
        let text = std::fs::read_to_string(&index).unwrap();
        let cut = edit_line(
            &text,
            |l| l.starts_with("  2025-12-10-fix-flaky-test.md,"),
            |l| l.split(',').take(8).collect::<Vec<_>>().join(","),
        );
        std::fs::write(&index, cut).unwrap();
        let out = kiln.run(query);
        assert_eq!(
            (out.code, &out.stdout),
            (0, before),
            "8 cells, {query:?}: {}",
            out.stderr
        );
    }
}

/// `text` with `edit` applied to the first line that `find` picks.
fn edit_line(text: &str, find: impl Fn(&str) -> bool, edit: impl Fn(&str) -> String) -> String {
    let mut done = false;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            if !done && find(l) {
                done = true;
                edit(l)
            } else {
                l.to_owned()
            }
        })
        .collect();
    assert!(done, "no line to edit");
    lines.join("\n") + "\n"
}

/// The base index `text` with cell `n` of the flaky-test session's row
/// set to `value` (its first cells hold no comma).
fn flaky_row_cell(text: &str, n: usize, value: &str) -> String {
    edit_line(
        text,
        |l| l.starts_with("  2025-12-10-fix-flaky-test.md,"),
        |l| {
            let mut c: Vec<&str> = l.split(',').collect();
            c[n] = value;
            c.join(",")
        },
    )
}

#[test]
fn rollup_and_stamp_cells_edited_by_hand_give_the_same_answers() {
    let kiln = TestKiln::with_fixtures();
    let queries: [&[&str]; 4] = [
        &["session", "stats", "--group-by", "day", "--format", "json"],
        &[
            "session",
            "stats",
            "--group-by",
            "agent",
            "--format",
            "json",
        ],
        &["session", "list", "--format", "json"],
        &["usage", "daily", "--json"],
    ];
    let truth: Vec<String> = queries.iter().map(|q| kiln.run(q).stdout).collect();
    let rollup = kiln.sessions().join(".index-rollup.toon");
    let base = kiln.sessions().join(".index.toon");
    type Damage = fn(&str) -> String;
    let damages: [(&std::path::Path, Damage); 6] = [
        // Back to the head: read again and again, it looped for ever.
        (&rollup, |t| {
            edit_line(t, |l| l.starts_with("stats_at: "), |_| "stats_at: 0".into())
        }),
        // A shorter first hourly row: `stats_at` then lands inside the
        // stats tables' header, which read as another table (every group
        // 0 tokens).
        (&rollup, |t| {
            let rows = t.find("\nrollup[").expect("hourly rows");
            let at = rows + t[rows..].find("\n  ").expect("a row") + 3;
            let comma = at + t[at..].find(',').unwrap();
            format!("{}x{}", &t[..at], &t[comma..])
        }),
        // A stats row of no kind: read as another kind's, so left out.
        (&rollup, |t| {
            edit_line(
                t,
                |l| l.starts_with("  agent,"),
                |l| l.replacen("agent", "x", 1),
            )
        }),
        // A stamp or live cell that is not a number: the row was dropped.
        (&base, |t| flaky_row_cell(t, 4, "x")),
        (&base, |t| flaky_row_cell(t, 3, "2")),
        // A count cell that is not a number: a listing dropped the row.
        (&base, |t| flaky_row_cell(t, 18, "x")),
    ];
    let pristine: Vec<(&std::path::Path, String)> = [rollup.as_path(), base.as_path()]
        .into_iter()
        .map(|f| (f, std::fs::read_to_string(f).unwrap()))
        .collect();
    // A delta that says a file there was removed: the session was hidden.
    let delta = kiln.sessions().join(".index-delta.toon");
    let check: &[&str] = &["session", "index", "--check", "--format", "json"];
    let checked = kiln.run(check).stdout;
    for query in queries.iter().chain([&check]) {
        std::fs::write(
            &delta,
            "version: 7\nremoved[1]{path}:\n  2025-12-12-start-docs.md\n",
        )
        .unwrap();
        let out = kiln.run(query);
        let truth = queries
            .iter()
            .position(|q| q == query)
            .map_or(&checked, |i| &truth[i]);
        assert_eq!(
            (out.code, &out.stdout),
            (0, truth),
            "removed, {query:?}: {}",
            out.stderr
        );
    }
    for (n, (file, damage)) in damages.iter().enumerate() {
        for (query, truth) in queries.iter().zip(&truth) {
            // Each query on the damage alone (a query may mend it, or
            // leave it for the next).
            for (f, text) in &pristine {
                std::fs::write(f, text).unwrap();
            }
            let text = std::fs::read_to_string(file).unwrap();
            let damaged = damage(&text);
            assert_ne!(damaged, text, "damage {n}");
            std::fs::write(file, &damaged).unwrap();
            let out = kiln.run(query);
            assert_eq!(out.code, 0, "damage {n}, {query:?}: {}", out.stderr);
            assert_eq!(&out.stdout, truth, "damage {n}, {query:?}");
        }
    }
}

/// Cells changed by hand to other plausible values (a title, a status, a
/// token count), which no freshness rule can tell from cru's own since the
/// session files stay as they were: the seal
/// (`crucible-index/src/seal.rs`) says the files are not the ones cru
/// wrote, and every answer is the full parse's.
#[test]
fn plausible_values_edited_by_hand_are_not_believed() {
    let kiln = TestKiln::with_fixtures();
    let queries: [&[&str]; 4] = [
        &["session", "list", "--format", "json"],
        &["session", "list", "--status", "paused", "--format", "json"],
        &["usage", "session", "--json"],
        &["usage", "daily", "--json"],
    ];
    let truth: Vec<String> = queries.iter().map(|q| kiln.run(q).stdout).collect();
    settle(&kiln);
    let base = kiln.sessions().join(".index.toon");
    let usage = kiln.sessions().join(".index-usage.toon");
    let edits: [(&std::path::Path, &str, &str); 3] = [
        (
            &base,
            "Fix the flaky store test",
            "Fix the fuzzy store test",
        ),
        (
            &base,
            "2025-12-10-fix-flaky-test,paused,",
            "2025-12-10-fix-flaky-test,active,",
        ),
        (&usage, "|6910|", "|6911|"),
    ];
    for (file, from, to) in edits {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(text.contains(from), "{from}");
        std::fs::write(file, text.replacen(from, to, 1)).unwrap();
        for (query, truth) in queries.iter().zip(&truth) {
            let out = kiln.run(query);
            assert_eq!(out.code, 0, "{from}, {query:?}: {}", out.stderr);
            assert_eq!(&out.stdout, truth, "{from}, {query:?}");
        }
        // The rebuild put the file back as cru writes it.
        assert!(!std::fs::read_to_string(file).unwrap().contains(to), "{to}");
    }
}

/// A sessions folder copied whole (`cp -r`, as the README does with the
/// fixtures) brings its index with new stamps: rebuilt without a warning,
/// while a file edited in the copy afterwards is still named.
#[test]
fn a_copied_sessions_folder_is_rebuilt_without_a_word() {
    let kiln = TestKiln::with_fixtures();
    let list = ["session", "list", "--format", "json"];
    let truth = kiln.run(&list).stdout;
    settle(&kiln);
    let copy = kiln.root.path().join("copy");
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(kiln.sessions())
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let copy_s = copy.to_str().unwrap();
    let out = kiln.run(&["--dir", copy_s, "session", "list", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout.replace(copy_s, ""),
        truth.replace(kiln.sessions().to_str().unwrap(), "")
    );
    assert!(
        !out.stderr.contains("changed by something other than cru"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("rebuilt"), "{}", out.stderr);
    // The copy's own index is sealed now; an edit to it is named.
    let base = copy.join(".index.toon");
    let text = std::fs::read_to_string(&base).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(
        &base,
        text.replacen("Fix the flaky store test", "Fix the fuzzy store test", 1),
    )
    .unwrap();
    let out = kiln.run(&["--dir", copy_s, "session", "list", "--format", "json"]);
    assert!(
        out.stderr.contains("changed by something other than cru"),
        "{}",
        out.stderr
    );
}

/// `cru session stats --group-by phase --format json`.
const PHASE_STATS: &[&str] = &[
    "session",
    "stats",
    "--group-by",
    "phase",
    "--format",
    "json",
];

/// Rebuilt past the index's racy window, so every row is trusted as it is
/// and none waits in a delta: an edit by hand to the files is then the
/// only thing that could change an answer.
fn settle(kiln: &TestKiln) {
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(kiln.run(&["session", "index", "--rebuild"]).code, 0);
}

/// `stats --group-by phase` reads the phases file: after a hand edit it
/// rebuilds and says so, and when the rebuild cannot be saved (the phases
/// file replaced by a FIFO) each session's phases are read from the
/// session itself, not from the file left there.
#[test]
fn phases_after_an_edit_or_an_index_that_cannot_be_saved_are_the_sessions() {
    let kiln = TestKiln::with_fixtures();
    let query = PHASE_STATS;
    let truth = kiln.run(query).stdout;
    settle(&kiln);
    let phases = kiln.sessions().join(".index-phases.toon");
    let text = std::fs::read_to_string(&phases).unwrap();
    assert!(text.contains("Backfill"), "{text}");
    std::fs::write(&phases, text.replace("Backfill", "BACKfill")).unwrap();
    let out = kiln.run(query);
    assert_eq!((out.code, &out.stdout), (0, &truth), "{}", out.stderr);
    assert!(out.stderr.contains("index rebuilt"), "{}", out.stderr);

    std::fs::remove_file(&phases).unwrap();
    crucible_testkit::mkfifo(&phases);
    let out = kiln.run(query);
    assert_eq!((out.code, &out.stdout), (0, &truth), "{}", out.stderr);
}

/// The phases of a live session are its file's and its journal's: the
/// first `stats --group-by phase` after tokens were logged to it counts
/// them under their phase, as a rebuild from the sessions does (they went
/// to "(no phase)" until a second run).
#[test]
fn phases_of_a_live_session_are_read_with_its_journal() {
    let kiln = TestKiln::with_fixtures();
    let query = PHASE_STATS;
    settle(&kiln);
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(kiln.run(&["session", "list"]).code, 0);
    let out = kiln.run(&[
        "session",
        "log",
        "--session",
        "2025-12-12-start-docs",
        "tokens",
        "100",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let first = kiln.run(query);
    assert_eq!(first.code, 0, "{}", first.stderr);
    for entry in std::fs::read_dir(kiln.sessions()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(".index")
        {
            std::fs::remove_file(path).unwrap();
        }
    }
    let truth = kiln.run(query).stdout;
    assert_eq!(first.stdout, truth);
}

#[test]
fn index_check_reports_problems_and_list_still_lists() {
    let kiln = TestKiln::with_fixtures();
    kiln.write(
        "broken.md",
        &std::fs::read_to_string(fixtures().join("invalid/unknown-status.md")).unwrap(),
    );
    let out = kiln.run(&["session", "index", "--check"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stdout, @"[KILN]/.crucible/sessions/broken.md:5: status `done` is not one of active, paused, completed, failed");
    let out = kiln.run(&["session", "list"]);
    // Listed, but a whole file was skipped: exit 3.
    assert_eq!(out.code, 3);
    assert_eq!(out.stdout.lines().count(), 10);
    assert!(
        out.stderr.contains("1 session file(s) could not be read"),
        "{}",
        out.stderr
    );
}

#[test]
fn sessions_recorded_through_cru_are_listed_at_once() {
    let kiln = TestKiln::with_fixtures();
    assert_eq!(kiln.run(&["session", "list"]).code, 0);
    let id = kiln
        .run(&[
            "session",
            "start",
            "--title",
            "new one",
            "--agent",
            "coder@1.0",
        ])
        .stdout
        .trim()
        .to_owned();
    let out = kiln.run(&["session", "list", "--agent", "coder", "--format", "json"]);
    let v = crate::kiln::listed_sessions(&out.stdout);
    assert!(v.iter().any(|r| r["id"] == id.as_str()), "{}", out.stdout);
    assert_eq!(
        kiln.run(&["session", "log", "--session", &id, "tool", "ls"])
            .code,
        0
    );
    let out = kiln.run(&["session", "list", "--agent", "coder", "--format", "json"]);
    let v = crate::kiln::listed_sessions(&out.stdout);
    let r = v.iter().find(|r| r["id"] == id.as_str()).unwrap();
    assert_eq!(r["tool_calls"], 1, "the journal's event is counted");
}

#[test]
fn index_rebuild_rebuilds_a_search_index_once_a_search_built_one() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "index", "--check"]);
    assert_eq!(
        out.code, 0,
        "no search index yet is no problem: {}",
        out.stdout
    );
    // A store never searched is not made to build a search index.
    let out = kiln.run(&["session", "index", "--rebuild"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stderr, @"9 sessions indexed, 0 unreadable, in [KILN]/.crucible/sessions");
    assert!(!kiln.sessions().join(".search").exists());
    // Once a search built one, a rebuild builds it again from nothing.
    let out = kiln.run(&["session", "search", "flaky"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = kiln.run(&["session", "index", "--rebuild"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stderr, @r#"
    9 sessions indexed, 0 unreadable, in [KILN]/.crucible/sessions
    search index rebuilt: 48 parts of 9 session files
    "#);
    assert!(kiln.sessions().join(".search/manifest").is_file());
    let out = kiln.run(&["session", "index", "--check"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
}

#[test]
fn index_check_names_pending_search_files_and_fails_on_an_unusable_index() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "search", "flaky"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Changed, gone and new files: pending, each search reads them (or
    // leaves them out) itself, so no problem; the JSON names them.
    let sessions = kiln.sessions();
    let docs = sessions.join("2025-12-12-start-docs.md");
    let text = std::fs::read_to_string(&docs).unwrap();
    std::fs::write(&docs, format!("{text}\nA line more.\n")).unwrap();
    std::fs::remove_file(sessions.join("2025-12-11-write-tests.md")).unwrap();
    kiln.write(
        "later/2026-01-01-new.md",
        &text.replace("2025-12-12-start-docs", "2026-01-01-new"),
    );
    let out = kiln.run(&["session", "index", "--check"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    let json = kiln.run(&["session", "index", "--check", "--format", "json"]);
    assert_eq!(json.code, 0);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    insta::assert_snapshot!(serde_json::to_string_pretty(&v["search"]).unwrap(), @r#"
    {
      "state": "present",
      "parts": 48,
      "disagreements": [
        {
          "path": "later/2026-01-01-new.md",
          "problem": "not_indexed",
          "is_problem": false,
          "message": "not in the search index yet (each search reads it directly until it is written in)"
        },
        {
          "path": "2025-12-12-start-docs.md",
          "problem": "changed",
          "is_problem": false,
          "message": "changed since the search index read it (each search reads it directly until it is written in)"
        },
        {
          "path": "2025-12-11-write-tests.md",
          "problem": "gone",
          "is_problem": false,
          "message": "gone, still in the search index (each search leaves it out until it is written out)"
        }
      ]
    }
    "#);

    // A search finds them; a rebuild writes them in; a damaged index is
    // named until a search rebuilds it.
    let out = kiln.run(&["session", "search", "line", "more"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("2025-12-12-start-docs"),
        "{}",
        out.stdout
    );
    let out = kiln.run(&["session", "index", "--rebuild"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json = kiln.run(&["session", "index", "--check", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["search"]["disagreements"], serde_json::json!([]));
    std::fs::write(sessions.join(".search/manifest"), "{").unwrap();
    let out = kiln.run(&["session", "index", "--check"]);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stdout.trim_end(),
        format!(
            "[KILN]/.crucible/sessions/.search: search index is version 1 (this cru writes {}) (the next search rebuilds it)",
            crucible_search::index::SCHEMA_VERSION
        )
    );
}
