//! What `cru session stats` and `cru usage` say of cost and of what they
//! could not read, and what `cru pricing update` refuses.

use std::time::Duration;

use crate::kiln::TestKiln;

fn start(kiln: &TestKiln, title: &str) -> String {
    let out = kiln.run(&["session", "start", "--title", title, "--channel", title]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout.trim().to_owned()
}

fn json(kiln: &TestKiln, args: &[&str]) -> (serde_json::Value, String) {
    let out = kiln.run(args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    (serde_json::from_str(&out.stdout).unwrap(), out.stderr)
}

/// What `cru session validate` says, on either stream.
fn validate_says(kiln: &TestKiln) -> String {
    let out = kiln.run(&["session", "validate"]);
    format!("{}{}", out.stdout, out.stderr)
}

/// A priced group has its dollars; a group of a model the table lacks has
/// `null`, never $0, and names the model; the total has both.
#[test]
fn stats_json_prices_each_group_and_names_unpriced_models() {
    let kiln = TestKiln::empty();
    let priced = start(&kiln, "priced");
    // One request, below the long-context threshold (200k input tokens).
    kiln.log_tokens(&priced, "claude-sonnet-4-5", "100000", "0");
    let unpriced = start(&kiln, "unpriced");
    kiln.log_tokens(&unpriced, "no-such-model-7", "500", "20");

    let (v, _) = json(
        &kiln,
        &[
            "session",
            "stats",
            "--group-by",
            "channel",
            "--format",
            "json",
        ],
    );
    let group = |name: &str| {
        v["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["group"] == name)
            .unwrap_or_else(|| panic!("no group {name}: {v}"))
            .clone()
    };
    // $3 per million input tokens (the shipped LiteLLM table).
    let p = group("priced");
    assert!((p["cost_usd"].as_f64().unwrap() - 0.3).abs() < 1e-9, "{p}");
    assert_eq!(p["unpriced_tokens"], 0);
    assert_eq!(p["unpriced_models"], serde_json::json!([]));
    let u = group("unpriced");
    assert!(u["cost_usd"].is_null(), "{u}");
    assert_eq!(u["unpriced_tokens"], 520);
    assert_eq!(u["unpriced_models"], serde_json::json!(["no-such-model-7"]));
    let t = &v["total"];
    assert!((t["cost_usd"].as_f64().unwrap() - 0.3).abs() < 1e-9, "{t}");
    assert_eq!(t["unpriced_tokens"], 520);
    assert_eq!(t["unpriced_models"], serde_json::json!(["no-such-model-7"]));

    // --mode display takes only what sources wrote: nothing here.
    let (v, _) = json(
        &kiln,
        &["session", "stats", "--mode", "display", "--format", "json"],
    );
    assert_eq!(v["total"]["cost_usd"], 0.0, "{v}");
}

/// A usage cell damaged in the index on disk: the other sessions still
/// count, and stats and usage say once which file is missing and how to
/// repair it.
#[test]
fn a_damaged_usage_cell_is_named_on_stderr_and_the_rest_still_counts() {
    let kiln = TestKiln::empty();
    let good = start(&kiln, "good");
    kiln.log_tokens(&good, "claude-sonnet-4-5", "100", "10");
    let bad = start(&kiln, "bad");
    kiln.log_tokens(&bad, "damaged-model", "5000", "500");
    // Ended, so the index answers from its rows (a live session, with a
    // journal, is read afresh every time).
    for id in [&good, &bad] {
        let out = kiln.run(&["session", "end", id]);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    // Past the index's racy window (100 ms), so the rebuilt rows are
    // trusted as they are and none is read afresh into the delta.
    std::thread::sleep(Duration::from_millis(300));
    let out = kiln.run(&["session", "index", "--rebuild"]);
    assert_eq!(out.code, 0, "{}", out.stderr);

    let index = kiln.sessions().join(".index-usage.toon");
    let text = std::fs::read_to_string(&index).unwrap();
    assert!(text.contains("|damaged-model|"), "{text}");
    // The hour after the model becomes a word: the cell no longer decodes.
    let damaged = regex_lite_replace(&text, "|damaged-model|", "|damaged-model|x");
    std::fs::write(&index, &damaged).unwrap();
    // Written by another hand, the index is not believed: it is rebuilt
    // from the sessions, with a warning, and every count is there.
    let (v, stderr) = json(&kiln, &["usage", "session", "--json"]);
    assert!(stderr.contains("index rebuilt"), "{stderr}");
    assert!(
        !stderr.contains("could not be read from the index"),
        "{stderr}"
    );
    assert!(v["totals"]["inputTokens"].as_u64().unwrap() > 0, "{v}");
    // A cell cru itself wrote and cannot read back (sealed as its own):
    // named, and the rest still counts.
    let text = std::fs::read_to_string(&index).unwrap();
    let damaged = regex_lite_replace(&text, "|damaged-model|", "|damaged-model|x");
    std::fs::write(&index, damaged).unwrap();
    crucible_index::seal::note(&index);
    crucible_index::seal::write(&kiln.sessions()).unwrap();

    // The views that read every cell (stats by status, and `usage
    // session`, which no rollup answers) name it.
    for args in [
        &[
            "session",
            "stats",
            "--group-by",
            "status",
            "--format",
            "json",
        ][..],
        &["usage", "session", "--json"],
    ] {
        let (v, stderr) = json(&kiln, args);
        assert_eq!(
            stderr.matches("could not be read from the index").count(),
            1,
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains(&format!("{bad}.md")), "{stderr}");
        assert!(!stderr.contains(&format!("{good}.md")), "{stderr}");
        assert!(stderr.contains("cru session index --rebuild"), "{stderr}");
        let input = if args[0] == "usage" {
            &v["totals"]["inputTokens"]
        } else {
            &v["total"]["input"]
        };
        assert_eq!(input, 100, "{args:?}: {v}");
    }
    // The calendar views answer from the rollup written with the index,
    // which summed the files themselves: the damaged cell is not read.
    let (v, stderr) = json(&kiln, &["usage", "daily", "--json"]);
    assert!(!stderr.contains("could not be read"), "{stderr}");
    assert_eq!(v["totals"]["inputTokens"], 5100);
    // So does stats by agent (and by model, channel, day, week, month).
    let (v, stderr) = json(&kiln, &["session", "stats", "--format", "json"]);
    assert!(!stderr.contains("could not be read"), "{stderr}");
    assert_eq!(v["total"]["input"], 5100);
    // The rebuild the warning names repairs it.
    let out = kiln.run(&["session", "index", "--rebuild"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (v, stderr) = json(&kiln, &["usage", "daily", "--json"]);
    assert!(!stderr.contains("could not be read"), "{stderr}");
    assert_eq!(v["totals"]["inputTokens"], 5100);
}

/// Every occurrence of `from` followed by digits: `to` in place of `from`
/// and the digits.
fn regex_lite_replace(text: &str, from: &str, to: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(from) {
        out.push_str(&rest[..i]);
        out.push_str(to);
        rest = rest[i + from.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// `cru pricing update` on something that is not a regular file: a clear
/// error naming it, at once (a FIFO with no writer would block a plain read
/// for ever).
#[test]
fn pricing_update_refuses_a_fifo_a_directory_and_a_device() {
    let kiln = TestKiln::empty();
    let fifo = kiln.root.path().join("prices.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let mut cases = vec![
        (kiln.root.path().to_path_buf(), "a directory"),
        (std::path::PathBuf::from("/dev/null"), "a character device"),
    ];
    if made.is_ok_and(|s| s.success()) {
        cases.push((fifo, "a FIFO (named pipe)"));
    } else {
        eprintln!("skipped the FIFO: no mkfifo");
    }
    for (path, kind) in cases {
        let mut cmd = kiln.command();
        cmd.args(["pricing", "update"])
            .arg(&path)
            .timeout(Duration::from_secs(30));
        let out = kiln.run_cmd(&mut cmd);
        assert_eq!(out.code, 1, "{}: {}", path.display(), out.stderr);
        let shown = path
            .display()
            .to_string()
            .replace(&kiln.root.path().display().to_string(), "[KILN]");
        assert!(
            out.stderr
                .contains(&format!("{shown}: {kind}, not a regular file")),
            "{}",
            out.stderr
        );
        assert!(!kiln.root.path().join("home").exists(), "nothing saved");
    }
}

/// A count beyond any request's (a damaged file) is refused where it is
/// read, named by `validate`; the largest counts allowed add up in every
/// view and the groups still add up to the total.
#[test]
fn counts_beyond_any_request_are_refused_and_the_largest_add_up() {
    let kiln = TestKiln::empty();
    let (max, most) = (u64::MAX, crucible_core::MAX_TOKENS);
    kiln.write(
        "2025-01-01-huge.md",
        &format!(
            "---\ntype: session\nsession_id: 2025-01-01-huge\nstarted: 2025-01-01T00:00:00Z\n\
             status: completed\nparticipants: [a@1]\n---\n\n# Huge\n\n## Work @a@1\n\
             <!-- usage: at=2025-01-01T00:00:00Z model=claude-sonnet-4-5 input={most} output={most} -->\n\
             <!-- usage: at=2025-01-01T00:10:00Z model=claude-sonnet-4-5 input={max} output=1 -->\n\
             \n## Review @b@1\n\
             <!-- usage: at=2025-01-01T00:20:00Z model=claude-sonnet-4-5 input={most} output=1 -->\n"
        ),
    );
    for view in ["daily", "weekly", "monthly", "session", "blocks"] {
        let (v, _) = json(&kiln, &["usage", view, "--json"]);
        assert_eq!(v["totals"]["inputTokens"], 2 * most, "{view}: {v}");
        assert_eq!(v["totals"]["totalTokens"], 3 * most + 1, "{view}: {v}");
    }
    let (v, _) = json(&kiln, &["session", "stats", "--format", "json"]);
    assert_eq!(v["total"]["tokens"], 3 * most + 1, "{v}");
    let (v, _) = json(
        &kiln,
        &[
            "session",
            "stats",
            "--group-by",
            "agent",
            "--format",
            "json",
        ],
    );
    let groups: u64 = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(groups, 3 * most + 1, "{v}");
    let said = validate_says(&kiln);
    assert!(said.contains("more tokens than any count holds"), "{said}");
    // Sums no session reaches, written by hand: refused where read too.
    kiln.write(
        "2025-01-02-sums.md",
        &format!(
            "---\ntype: session\nsession_id: 2025-01-02-sums\nstarted: 2025-01-02T00:00:00Z\n\
             status: completed\ntokens_used: {max}\n---\n\n# Sums\n\n## Work @a@1\n\
             <!-- phase: tokens={max} -->\n\ntext\n"
        ),
    );
    let said = validate_says(&kiln);
    assert!(
        said.contains("`tokens_used` should be a whole number of tokens up to 10^15"),
        "{said}"
    );
    std::fs::remove_file(kiln.sessions().join("2025-01-02-sums.md")).unwrap();
    // `log tokens` refuses such a count, exit 2.
    let id = start(&kiln, "t");
    let out = kiln.run(&[
        "session",
        "log",
        "--session",
        &id,
        "tokens",
        "--input",
        &max.to_string(),
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("more tokens than any count holds"),
        "{}",
        out.stderr
    );
}

/// A newer list that lacks a model keeps the shipped table's price for it,
/// and an old list is dated by its file, so it still warns that it is old.
#[test]
fn a_price_list_loaded_keeps_the_shipped_prices_it_lacks_and_its_own_date() {
    let kiln = TestKiln::empty();
    let list = kiln.root.path().join("prices.json");
    std::fs::write(
        &list,
        r#"{"my-model": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}}"#,
    )
    .unwrap();
    let old = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_735_689_600); // 2025-01-01
    std::fs::File::options()
        .write(true)
        .open(&list)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let out = kiln.run(&["pricing", "update", list.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("1 model from"), "{}", out.stdout);
    // Kept out of the stored table: looked up in this cru's shipped one.
    let stored =
        std::fs::read_to_string(kiln.root.path().join("home/.config/crucible/prices.json"))
            .unwrap_or_default();
    assert!(!stored.contains("claude-sonnet-4-5"), "{stored}");
    assert!(out.stdout.contains("taken 2025-01-01"), "{}", out.stdout);
    for model in ["my-model", "claude-sonnet-4-5"] {
        let out = kiln.run(&["pricing", "show", model]);
        assert_eq!(out.code, 0, "{model}: {}", out.stderr);
        assert!(out.stderr.contains("prices are"), "stale: {}", out.stderr);
    }
}

/// `--agent` and `--channel` take the tokens credited to them, as `stats
/// --group-by agent` credits them: not every token of each session they
/// took part in.
#[test]
fn usage_for_one_agent_is_its_phases_tokens() {
    let kiln = TestKiln::empty();
    let id = start(&kiln, "two");
    for args in [
        &["phase", "Code", "--agent", "coder@1.0", "--channel", "dev"][..],
        &[
            "tokens", "--input", "1000", "--output", "100", "--model", "m",
        ],
        &[
            "phase",
            "Review",
            "--agent",
            "reviewer@1.0",
            "--channel",
            "qa",
        ],
        &["tokens", "--input", "10", "--output", "1", "--model", "m"],
    ] {
        let mut all = vec!["session", "log", "--session", &id];
        all.extend_from_slice(args);
        let out = kiln.run(&all);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    }
    let total = |extra: &[&str]| {
        let mut args = vec!["usage", "daily", "--json"];
        args.extend_from_slice(extra);
        json(&kiln, &args).0["totals"]["totalTokens"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(total(&[]), 1111);
    assert_eq!(total(&["--agent", "reviewer"]), 11);
    assert_eq!(total(&["--agent", "coder@1.0"]), 1100);
    assert_eq!(total(&["--channel", "qa"]), 11);
    assert_eq!(total(&["--agent", "nobody"]), 0);
}

/// Usage is kept by UTC hour: in a zone whose offset is not a whole number
/// of hours, an hour whose requests fall on both sides of local midnight is
/// counted on the day of its first, and a warning says so.
#[test]
fn an_hour_across_local_midnight_is_named() {
    let kiln = TestKiln::empty();
    kiln.write(
        "2025-06-08-late.md",
        "---\ntype: session\nsession_id: 2025-06-08-late\nstarted: 2025-06-08T11:00:00Z\n\
         status: completed\nparticipants: [a@1]\n---\n\n# Late\n\n## Work @a@1\n\
         <!-- usage: at=2025-06-08T11:10:00Z model=m input=10 output=1 -->\n\
         <!-- usage: at=2025-06-08T11:20:00Z model=m input=10 output=1 -->\n",
    );
    // Chatham is 12:45 ahead in June: midnight falls at 11:15 UTC.
    let (v, stderr) = json(
        &kiln,
        &["usage", "daily", "--json", "--timezone", "Pacific/Chatham"],
    );
    assert!(
        stderr.contains("1 hour(s) of requests cross local midnight"),
        "{stderr}"
    );
    assert_eq!(v["daily"][0]["date"], "2025-06-08", "{v}");
    for zone in ["UTC", "Asia/Tokyo"] {
        let (_, stderr) = json(&kiln, &["usage", "daily", "--json", "--timezone", zone]);
        assert!(!stderr.contains("cross local midnight"), "{zone}: {stderr}");
    }
}

/// Bounds that leave no day, and a `TZ` that names no zone, are said.
#[test]
fn bounds_that_leave_no_day_and_an_unknown_tz_are_said() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&[
        "usage",
        "daily",
        "--since",
        "2026-02-11",
        "--until",
        "2026-02-10",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("is after --until"), "{}", out.stderr);
    let mut cmd = kiln.command();
    cmd.args(["usage", "daily"]).env("TZ", "Nowhere/Bogus");
    let out = kiln.run_cmd(&mut cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("TZ=Nowhere/Bogus is no time zone"),
        "{}",
        out.stderr
    );
}

/// A `tokens_used` edited by hand to another number than the session's
/// figures add up to: `list` counts the figures as `usage` and `stats` do,
/// and `validate` names the line.
#[test]
fn a_tokens_used_that_is_not_the_sum_is_named_and_not_believed() {
    let kiln = TestKiln::empty();
    kiln.write(
        "2025-01-03-hand.md",
        "---\ntype: session\nsession_id: 2025-01-03-hand\nstarted: 2025-01-03T00:00:00Z\n\
         status: completed\ntokens_used: 2000\nparticipants: [a@1]\n---\n\n# Hand\n\n## Work @a@1\n\
         <!-- phase: tokens=1000 -->\n<!-- usage: at=2025-01-03T00:00:00Z model=m input=100 output=50 -->\n\ntext\n",
    );
    let (list, _) = json(&kiln, &["session", "list", "--format", "json"]);
    let (usage, _) = json(&kiln, &["usage", "daily", "--json"]);
    let (stats, _) = json(&kiln, &["session", "stats", "--format", "json"]);
    assert_eq!(list["sessions"][0]["tokens"], 1000, "{list}");
    assert_eq!(usage["totals"]["totalTokens"], 1000, "{usage}");
    assert_eq!(stats["total"]["tokens"], 1000, "{stats}");
    let said = validate_says(&kiln);
    assert!(
        said.contains("2025-01-03-hand.md:6: warning: `tokens_used: 2000` is not what"),
        "{said}"
    );
}

/// A session's written `cost_usd` that is no cost (negative, over $1M) is
/// kept as written, not read: the session is priced from its tokens, and
/// `validate` names the line.
#[test]
fn a_sessions_cost_that_is_no_cost_is_named_and_not_read() {
    let kiln = TestKiln::empty();
    kiln.write(
        "2025-01-04-cost.md",
        "---\ntype: session\nsession_id: 2025-01-04-cost\nstarted: 2025-01-04T00:00:00Z\n\
         status: completed\ntokens_used: 100\ncost_usd: -3\nparticipants: [a@1]\n---\n\n# Cost\n",
    );
    let (v, _) = json(&kiln, &["usage", "daily", "--json", "--mode", "display"]);
    assert_eq!(v["totals"]["totalCost"], 0.0, "{v}");
    let said = validate_says(&kiln);
    assert!(
        said.contains("2025-01-04-cost.md:7: warning: `cost_usd: -3` is not a cost"),
        "{said}"
    );
    // Kept as written.
    let text = std::fs::read_to_string(kiln.sessions().join("2025-01-04-cost.md")).unwrap();
    assert!(text.contains("cost_usd: -3"), "{text}");
}
