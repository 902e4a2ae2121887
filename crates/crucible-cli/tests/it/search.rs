//! `cru session search`: hits with phase and line, freshness after edits,
//! deletions and imports, bad queries, and an index that is a link or
//! corrupt.

use serde_json::Value;

use crate::kiln::{TestKiln, fixtures};

/// A session of `phases` (name, text), each phase by agent `dev`.
fn session(id: &str, phases: &[(&str, &str)]) -> String {
    let mut s = format!(
        "---\ntype: session\nsession_id: {id}\ntitle: Session {id}\nstarted: 2025-12-01T10:00:00Z\nstatus: completed\n---\n\n# Session {id}\n\nThe text before the first phase.\n"
    );
    for (name, text) in phases {
        s.push_str(&format!("\n## {name} @dev #main\n\n{text}\n"));
    }
    s
}

fn search_json(kiln: &TestKiln, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["session", "search", "--format", "json"];
    all.extend(args);
    let out = kiln.run(&all);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    v["hits"].as_array().unwrap().clone()
}

fn ids(hits: &[Value]) -> Vec<&str> {
    hits.iter().map(|h| h["id"].as_str().unwrap()).collect()
}

#[test]
fn fixtures_are_found_by_phrase_with_phase_and_line() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&[
        "session",
        "search",
        "\"id collision\"",
        "--per-session",
        "2",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @r#"
    2025-12-10-fix-flaky-test
      ↳ subagent debugger  2025-12-10-investigate-ci#phase-1  [KILN]/.crucible/sessions/2025-12-10-investigate-ci.md:21
          - `bash gh run view 8812 --log-failed` → id collision: 2025-12-10-session
      ↳ subagent debugger  2025-12-10-fix-flaky-test#phase-2  [KILN]/.crucible/sessions/2025-12-10-fix-flaky-test.md:65
          > Summary: Every failure is an id collision under parallel test threads.
    2025-12-10-fix-flaky-test#phase-1  [KILN]/.crucible/sessions/2025-12-10-fix-flaky-test.md:48
        || break; done` → ✗ failed on run 37: id collision
    "#);
}

#[test]
fn code_words_are_found_by_their_parts_and_whole() {
    let kiln = TestKiln::empty();
    kiln.write(
        "code.md",
        &session(
            "code",
            &[(
                "Fix",
                "Ran `git commit --no-verify` on src/auth/mod.rs; registerUser calls foo.bar() and register_user fails with E0432.",
            )],
        ),
    );
    for q in [
        "register_user",
        "registerUser",
        "src/auth/mod.rs",
        "auth",
        "foo.bar()",
        "bar",
        "--no-verify",
        "verify",
        "E0432",
        "e0432",
        "regis*",
        "\"register user\"",
    ] {
        // After `--`, a query may start with `-`.
        let hits = search_json(&kiln, &["--", q]);
        assert_eq!(ids(&hits), ["code"], "query {q}");
        assert_eq!(hits[0]["line"], 15, "query {q}");
    }
}

#[test]
fn a_planted_phrase_among_hundreds_is_the_top_hit_with_its_phase_and_line() {
    let kiln = TestKiln::empty();
    let filler = "The build ran the tests again and the store kept its index fresh.";
    for i in 0..300 {
        let id = format!("s{i:03}");
        let planted = if i == 137 {
            "Found that the quokka cache evicts too early.\nSo the quokka cache evicts too early, always."
        } else {
            "The cache was fine; a quokka was mentioned once."
        };
        kiln.write(
            &format!("{id}.md"),
            &session(&id, &[("One", filler), ("Two", planted), ("Three", filler)]),
        );
    }
    let hits = search_json(&kiln, &["\"quokka cache evicts too early\""]);
    assert_eq!(hits[0]["id"], "s137");
    assert_eq!(hits[0]["phase"], "s137#phase-2");
    assert_eq!(hits[0]["line"], 19);
    assert!(hits[0]["file"].as_str().unwrap().ends_with("s137.md"));
    assert_eq!(hits.len(), 1);
    // A plain word: every session, hits collapsed one per session.
    assert_eq!(search_json(&kiln, &["quokka", "--limit", "0"]).len(), 300);
}

#[test]
fn edits_renames_deletions_and_imports_are_seen_by_the_next_search() {
    let kiln = TestKiln::empty();
    let a = kiln.write("a.md", &session("a", &[("Start", "nothing of note")]));
    kiln.write("b.md", &session("b", &[("Start", "the wombat escaped")]));
    assert_eq!(ids(&search_json(&kiln, &["wombat"])), ["b"]);

    // In place, with the same size and within the same second.
    std::fs::write(&a, session("a", &[("Start", "nothing of wombat")])).unwrap();
    assert_eq!(
        ids(&search_json(
            &kiln,
            &["wombat", "--sort", "newest", "--limit", "0"]
        ))
        .len(),
        2
    );

    // By rename, as editors save: a new inode over the old name.
    let tmp = kiln.write(".a.md.swp", &session("a", &[("Start", "a numbat now")]));
    std::fs::rename(&tmp, &a).unwrap();
    assert_eq!(ids(&search_json(&kiln, &["numbat"])), ["a"]);
    assert_eq!(ids(&search_json(&kiln, &["wombat"])), ["b"]);

    // A deletion.
    std::fs::remove_file(kiln.sessions().join("b.md")).unwrap();
    assert!(search_json(&kiln, &["wombat"]).is_empty());

    // An import.
    let src = fixtures().join(
        "foreign/codex/sessions/2025/09/02/rollout-2025-09-02T10-04-11-5a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b.jsonl",
    );
    let out = kiln.run(&["session", "import", &src.display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let hits = search_json(&kiln, &["findLast"]);
    assert_eq!(hits.len(), 1, "{hits:?}");
    // The call's full arguments, kept in the sidecar only.
    let hits = search_json(&kiln, &["webapp", "--kind", "tool"]);
    assert_eq!(hits.len(), 1, "{hits:?}");
}

#[test]
fn a_live_sessions_logged_events_are_searched_before_they_are_folded() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["session", "start", "--title", "Live one"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = out.stdout.trim().to_owned();
    assert!(search_json(&kiln, &["platypus"]).is_empty());
    let log = |args: &[&str]| {
        let mut all = vec!["session", "log", "--session", &id];
        all.extend(args);
        let out = kiln.run(&all);
        assert_eq!(out.code, 0, "{}", out.stderr);
    };
    log(&["decision", "keep the platypus"]);
    let hits = search_json(&kiln, &["platypus", "kind:decision"]);
    assert_eq!(ids(&hits), [id.as_str()]);
    log(&["decision", "and the echidna"]);
    assert_eq!(ids(&search_json(&kiln, &["echidna"])), [id.as_str()]);
}

#[test]
fn an_empty_result_is_exit_0() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "search", "zyzzyva"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "no sessions match\n");
}

#[test]
fn bad_queries_point_at_the_column() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "search", "flaky \"race in"]);
    assert_eq!(out.code, 2);
    insta::assert_snapshot!(out.stderr, @r#"
    error: bad query at column 7: the quote opened here is never closed (expected a closing `"`)
      flaky "race in
            ^
    "#);
    let out = kiln.run(&["session", "search", "flaky colour:red"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("bad query at column 7: unknown field `colour`"),
        "{}",
        out.stderr
    );
    let out = kiln.run(&["session", "search", "flaky status:bogus"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(
            "bad query at column 14: status `bogus` is not one of active, paused, completed, failed"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn filters_narrow_the_hits() {
    let kiln = TestKiln::with_fixtures();
    let all = search_json(&kiln, &["test", "--limit", "0"]);
    let paused = search_json(&kiln, &["test", "--status", "paused", "--limit", "0"]);
    let in_query = search_json(&kiln, &["test status:paused", "--limit", "0"]);
    assert!(paused.len() < all.len(), "{paused:?}");
    assert_eq!(ids(&paused), ids(&in_query));
    let errors = search_json(&kiln, &["allocated", "--kind", "error"]);
    assert_eq!(ids(&errors), ["2025-12-10-fix-flaky-test"]);
}

#[test]
fn an_index_that_is_a_link_is_never_written_through() {
    let kiln = TestKiln::with_fixtures();
    let elsewhere = kiln.root.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("keep"), "mine").unwrap();
    let home = kiln.sessions().join(".search");
    std::os::unix::fs::symlink(&elsewhere, &home).unwrap();
    let out = kiln.run(&["session", "search", "flaky"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("is a symbolic link"), "{}", out.stderr);
    let names: Vec<_> = std::fs::read_dir(&elsewhere)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, ["keep"]);
    assert!(std::fs::symlink_metadata(&home).unwrap().is_dir());

    // A file inside that is a link: the index is rebuilt, the target kept.
    let manifest = home.join("manifest");
    std::fs::remove_file(&manifest).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("keep"), &manifest).unwrap();
    let out = kiln.run(&["session", "search", "flaky"]);
    assert!(out.stderr.contains("symbolic link"), "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("keep")).unwrap(),
        "mine"
    );
    assert!(
        out.stdout.contains("2025-12-10-fix-flaky-test"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_corrupt_index_is_rebuilt_with_a_warning() {
    use std::os::unix::fs::PermissionsExt;
    let kiln = TestKiln::with_fixtures();
    let first = kiln.run(&["session", "search", "flaky"]);
    let home = kiln.sessions().join(".search");
    assert_eq!(
        std::fs::metadata(&home).unwrap().permissions().mode() & 0o777,
        0o700
    );
    for e in std::fs::read_dir(&home).unwrap().flatten() {
        assert_eq!(
            e.metadata().unwrap().permissions().mode() & 0o777,
            0o600,
            "{e:?}"
        );
    }
    std::fs::write(home.join("meta.json"), "{ not json").unwrap();
    let out = kiln.run(&["session", "search", "flaky"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("rebuilt"), "{}", out.stderr);
    assert_eq!(out.stdout, first.stdout);
    // The next search has nothing to say.
    let again = kiln.run(&["session", "search", "flaky"]);
    assert_eq!(again.stderr, "");
    // A damaged segment: emptied term dictionaries.
    for e in std::fs::read_dir(&home).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "term") {
            std::fs::write(e.path(), "").unwrap();
        }
    }
    let out = kiln.run(&["session", "search", "flaky"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("cannot be read"), "{}", out.stderr);
    assert_eq!(out.stdout, first.stdout);
}

/// A made-up word for `n`: syllables no template word holds.
fn made_up(n: u64) -> String {
    const C: [&str; 6] = ["k", "z", "x", "q", "v", "j"];
    const V: [&str; 4] = ["a", "o", "u", "y"];
    let mut n = n;
    let mut w = String::new();
    for _ in 0..3 {
        w.push_str(C[(n % 6) as usize]);
        n /= 6;
        w.push_str(V[(n % 4) as usize]);
        n /= 4;
    }
    w
}

#[test]
fn one_word_queries_find_exactly_the_files_rg_finds() {
    if std::process::Command::new("rg")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("rg is not installed: skipped");
        return;
    }
    let kiln = TestKiln::empty();
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let vocab: Vec<String> = (0..400).map(|i| made_up(i * 37 + 5)).collect();
    for s in 0..150 {
        let mut phases = Vec::new();
        for _ in 0..=(next() % 3) {
            let mut text = String::new();
            for _ in 0..(5 + next() % 20) {
                let w = &vocab[(next() % 400) as usize];
                let w = match next() % 8 {
                    0 => w.to_uppercase(),
                    1 => format!("{w},"),
                    2 => format!("({w})"),
                    3 => format!("{w}.{}", vocab[(next() % 400) as usize]),
                    4 => format!("{w}-{}", vocab[(next() % 400) as usize]),
                    _ => w.clone(),
                };
                text.push_str(&w);
                text.push(' ');
            }
            phases.push(text);
        }
        let named: Vec<(&str, &str)> = phases.iter().map(|t| ("Work", t.as_str())).collect();
        let id = format!("s{s:03}");
        kiln.write(&format!("{id}.md"), &session(&id, &named));
    }
    let dir = kiln.sessions();
    let mut found = 0;
    for i in 0..50 {
        let word = &vocab[(i * 7) % 400];
        let mut ours: Vec<String> = search_json(&kiln, &[word, "--limit", "0"])
            .iter()
            .map(|h| h["file"].as_str().unwrap().to_owned())
            .collect();
        ours.sort();
        let rg = std::process::Command::new("rg")
            .args(["-l", "-i", "-w", word])
            .arg(&dir)
            .output()
            .unwrap();
        let mut theirs: Vec<String> = String::from_utf8(rg.stdout)
            .unwrap()
            .lines()
            .map(|l| l.replace(&kiln.root.path().display().to_string(), "[KILN]"))
            .collect();
        theirs.sort();
        assert_eq!(ours, theirs, "word {word}");
        found += ours.len();
    }
    assert!(found > 100, "the words were drawn from the corpus: {found}");
}

#[test]
fn newest_first_offset_and_project() {
    let kiln = TestKiln::empty();
    for (id, day, cwd) in [
        ("old", "01", "/nowhere/proj-a/sub"),
        ("mid", "02", "/nowhere/proj-b"),
        ("new", "03", "/nowhere/proj-a"),
    ] {
        kiln.write(
            &format!("{id}.md"),
            &format!(
                "---\ntype: session\nsession_id: {id}\nstarted: 2025-12-{day}T10:00:00Z\nstatus: completed\ncwd: {cwd}\n---\n\n## Work @dev\n\nthe kiwi flew\n"
            ),
        );
    }
    let newest = search_json(&kiln, &["--sort", "newest", "kiwi"]);
    assert_eq!(ids(&newest), ["new", "mid", "old"]);
    let page = search_json(
        &kiln,
        &["--sort", "newest", "--offset", "1", "--limit", "1", "kiwi"],
    );
    assert_eq!(ids(&page), ["mid"]);
    let mut in_a = ids(&search_json(
        &kiln,
        &["--project", "/nowhere/proj-a", "kiwi"],
    ))
    .into_iter()
    .map(str::to_owned)
    .collect::<Vec<_>>();
    in_a.sort();
    assert_eq!(in_a, ["new", "old"]);
    let since = search_json(&kiln, &["kiwi since:2025-12-02"]);
    assert_eq!(ids(&since).len(), 2);
}

/// A FIFO among the sessions is never opened (a search would hang on it),
/// and a link that leads out of the sessions directory is not followed:
/// what it points at is not searched.
#[test]
fn a_fifo_and_a_link_out_of_the_tree_are_passed_over() {
    let kiln = TestKiln::with_fixtures();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("elsewhere.md");
    std::fs::write(
        &secret,
        session("elsewhere", &[("Work", "the word zyxwvutsr")]),
    )
    .unwrap();
    std::os::unix::fs::symlink(&secret, kiln.sessions().join("elsewhere.md")).unwrap();
    crucible_testkit::mkfifo(&kiln.sessions().join("stuck.md"));
    assert!(search_json(&kiln, &["zyxwvutsr", "--limit", "0"]).is_empty());
    let hits = search_json(&kiln, &["\"id collision\"", "--limit", "0"]);
    assert!(!hits.is_empty());
}

/// An editor that writes its arguments, one a line, to `argv` beside it,
/// and exits with `$EDITOR_EXIT` (0 unset).
fn recording_editor(kiln: &TestKiln, name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let bin = kiln.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let argv = bin.join("argv");
    let script = bin.join(name);
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '{}'\nexit ${{EDITOR_EXIT:-0}}\n",
            argv.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script, argv)
}

fn open_with(kiln: &TestKiln, env: &[(&str, &str)], query: &str) -> crate::kiln::Output {
    let mut cmd = kiln.command();
    cmd.env_remove("VISUAL").env_remove("EDITOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    kiln.run_cmd(cmd.args(["session", "search", "--open", query]))
}

#[test]
fn open_starts_the_editor_at_the_best_hits_line() {
    let kiln = TestKiln::with_fixtures();
    let (script, argv) = recording_editor(&kiln, "ed1");
    let editor = script.display().to_string();
    let out = open_with(&kiln, &[("EDITOR", &editor)], "\"id collision\"");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    let best = &search_json(&kiln, &["\"id collision\""])[0];
    let expected = format!("+{}\n{}\n", best["line"], best["file"].as_str().unwrap());
    let recorded = |argv: &std::path::Path| {
        std::fs::read_to_string(argv)
            .unwrap()
            .replace(&kiln.root.path().display().to_string(), "[KILN]")
    };
    assert_eq!(recorded(&argv), expected);
    assert!(
        out.stderr.ends_with(&format!(
            "opening {} ([KILN]/.crucible/sessions/2025-12-10-investigate-ci.md:21)\n",
            best["phase"].as_str().unwrap()
        )),
        "{}",
        out.stderr
    );

    // $VISUAL first; a value with arguments goes through the shell.
    let (visual, _) = recording_editor(&kiln, "ed2");
    let with_args = format!("{} --wait -n", visual.display());
    let out = open_with(
        &kiln,
        &[("EDITOR", "/nonexistent/editor"), ("VISUAL", &with_args)],
        "\"id collision\"",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let expected = format!("--wait\n-n\n{expected}");
    assert_eq!(recorded(&argv), expected);
}

#[test]
fn open_without_editor_variables_starts_vi() {
    let kiln = TestKiln::with_fixtures();
    let (_, argv) = recording_editor(&kiln, "vi");
    let path = format!(
        "{}:{}",
        kiln.root.path().join("bin").display(),
        std::env::var("PATH").unwrap()
    );
    let out = open_with(&kiln, &[("PATH", &path), ("EDITOR", "")], "create_new");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let got = std::fs::read_to_string(&argv).unwrap();
    assert!(got.starts_with('+'), "{got}");
    assert!(got.ends_with("2025-12-10-fix-flaky-test.md\n"), "{got}");
}

#[test]
fn open_with_no_hit_starts_nothing_and_a_failing_editor_is_an_error() {
    let kiln = TestKiln::with_fixtures();
    let (script, argv) = recording_editor(&kiln, "ed");
    let editor = script.display().to_string();
    let out = open_with(&kiln, &[("EDITOR", &editor)], "zyzzyva");
    assert_eq!((out.code, out.stdout.as_str()), (0, "no sessions match\n"));
    assert!(!argv.exists(), "no editor without a hit");

    let out = open_with(
        &kiln,
        &[("EDITOR", &editor), ("EDITOR_EXIT", "3")],
        "create_new",
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(argv.exists());
    let last = out.stderr.lines().last().unwrap().to_owned();
    assert!(
        last.starts_with("error: the editor `[KILN]/bin/ed` exited with status 3 (opening [KILN]/"),
        "{}",
        out.stderr
    );
    let out = open_with(&kiln, &[("EDITOR", "/nonexistent/editor")], "create_new");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("error: cannot start the editor `/nonexistent/editor`"),
        "{}",
        out.stderr
    );
    // Hits are printed or opened, not both.
    let out = kiln.run(&["session", "search", "--open", "--format", "json", "x"]);
    assert_eq!(out.code, 2);
}

/// A parent with an inline subagent and a link to a child that names no
/// parent, and a child that names its parent in `parent:`.
fn subagent_kiln() -> TestKiln {
    let kiln = TestKiln::empty();
    let head = |id: &str, extra: &str| {
        format!(
            "---\ntype: session\nsession_id: {id}\nstarted: 2025-12-01T10:00:00Z\nstatus: completed\n{extra}---\n\n"
        )
    };
    kiln.write(
        "parent.md",
        &format!(
            "{}## Plan @lead@1.0\n\nSplit the work.\n\n\
             > [!subagent] @researcher@1.2 (claude-haiku)\n\
             > Look into the capybara question.\n\
             > mode: inline\n\
             >   Read three papers about the capybara.\n\
             > Summary: capybara facts gathered.\n\n\
             > [!subagent] @writer@2.0\n\
             > mode: link\n\
             > → [[linked-child]]\n\n\
             ## Wrap up @lead@1.0\n\nThe tapir is out of scope.\n",
            head("parent", "")
        ),
    );
    kiln.write(
        "linked-child.md",
        &format!(
            "{}## Draft @writer@2.0\n\nA draft about the okapi.\n",
            head("linked-child", "participants:\n  - writer@2.0\n")
        ),
    );
    kiln.write(
        "own-child.md",
        &format!(
            "{}## Count @counter@1.0\n\nThe okapi count is four.\n",
            head("own-child", "parent: parent\n")
        ),
    );
    kiln
}

#[test]
fn hits_in_subagents_name_the_subagent_and_the_parent() {
    let kiln = subagent_kiln();
    let hit = |q: &str| {
        let hits = search_json(&kiln, &[q]);
        assert_eq!(hits.len(), 1, "{q}: {hits:?}");
        hits[0].clone()
    };
    // Inline: the callout's own line, in the parent's phase.
    let h = hit("papers");
    assert_eq!(h["phase"], "parent#phase-1");
    assert_eq!(
        (&h["subagent"], &h["parent"]),
        (&"researcher".into(), &"parent".into())
    );
    assert_eq!(h["line"], 15, "{h}");
    // The phase's own text is the phase's.
    let h = hit("tapir");
    assert!(
        h.get("subagent").is_none() && h.get("parent").is_none(),
        "{h}"
    );
    // Linked from the parent only, and naming its parent itself.
    let hits = search_json(&kiln, &["okapi", "--sort", "newest"]);
    let mut seen: Vec<(String, String, String)> = hits
        .iter()
        .map(|h| {
            let s = |k: &str| h[k].as_str().unwrap_or("-").to_owned();
            (s("id"), s("subagent"), s("parent"))
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("linked-child".into(), "writer".into(), "parent".into()),
            ("own-child".into(), "counter".into(), "parent".into()),
        ]
    );
    // The subagent's agent is its part's agent for `agent:`.
    assert_eq!(
        ids(&search_json(&kiln, &["capybara", "--agent", "researcher"])),
        ["parent"]
    );
    assert!(search_json(&kiln, &["capybara", "--agent", "lead"]).is_empty());
}

#[test]
fn a_subagents_hit_is_shown_under_its_parent() {
    let kiln = subagent_kiln();
    let out = kiln.run(&[
        "session",
        "search",
        "okapi",
        "OR",
        "papers",
        "OR",
        "tapir",
        "--per-session",
        "3",
        "--sort",
        "newest",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Same start: by id within it.
    insta::assert_snapshot!(out.stdout, @r#"
    parent
      ↳ subagent writer  linked-child#phase-1  [KILN]/.crucible/sessions/linked-child.md:12
          A draft about the okapi.
      ↳ subagent counter  own-child#phase-1  [KILN]/.crucible/sessions/own-child.md:11
          The okapi count is four.
    parent#phase-2  [KILN]/.crucible/sessions/parent.md:24
        The tapir is out of scope.
    parent
      ↳ subagent researcher  parent#phase-1  [KILN]/.crucible/sessions/parent.md:15
          >   Read three papers about the capybara.
    "#);
}

/// Unlinked, the child is no one's subagent; a search sees it at once.
#[test]
fn attribution_follows_the_parents_edits() {
    let kiln = subagent_kiln();
    let linked = |kiln: &TestKiln| {
        let hits = search_json(kiln, &["draft"]);
        hits[0].get("parent").cloned()
    };
    assert_eq!(linked(&kiln), Some("parent".into()));
    let path = kiln.sessions().join("parent.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("mode: link\n> → [[linked-child]]", "mode: inline"),
    )
    .unwrap();
    assert_eq!(linked(&kiln), None);
}

#[test]
fn a_session_is_found_by_its_id_or_a_piece_of_it() {
    let kiln = TestKiln::with_fixtures();
    let hits = search_json(&kiln, &["2025-12-10-fix-flaky-test"]);
    assert_eq!(ids(&hits)[0], "2025-12-10-fix-flaky-test", "{hits:?}");
    assert_eq!(hits[0]["line"], 3, "the session_id line: {hits:?}");
}

#[test]
fn an_index_that_cannot_be_saved_still_answers_with_a_warning() {
    let kiln = TestKiln::with_fixtures();
    kiln.run(&["session", "search", "flaky"]);
    std::fs::write(
        kiln.sessions().join("new.md"),
        session("new", &[("Work", "a quokka appeared")]),
    )
    .unwrap();
    let home = kiln.sessions().join(".search");
    if !crucible_testkit::set_immutable(&home, true) {
        eprintln!("skipped: chattr +i is not allowed here");
        return;
    }
    let out = kiln.run(&["session", "search", "quokka", "--format", "json"]);
    crucible_testkit::set_immutable(&home, false);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("search index not saved"),
        "{}",
        out.stderr
    );
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(ids(v["hits"].as_array().unwrap()), ["new"]);
}
