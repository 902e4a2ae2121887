//! Bounded work on any input (items 12 to 15 of the trust issue): a bad
//! timestamp is an error with its line, a huge column never panics, a huge
//! frontmatter is read in linear time, and an exponential embed fan-out is
//! cut with a marker.

use std::time::{Duration, Instant};

use crate::kiln::TestKiln;

fn session(id: &str, title: &str, started: &str, extra_frontmatter: &str, body: &str) -> String {
    format!(
        "---\ntype: session\nsession_id: {id}\ntitle: {title}\nstarted: {started}\nstatus: completed\n\
         participants:\n  - orchestrator@1.0\n{extra_frontmatter}---\n\n{body}"
    )
}

/// Item 12: `+99:99` is no offset; validate names the file and the line.
#[test]
fn an_impossible_offset_is_rejected_with_its_file_and_line() {
    let kiln = TestKiln::empty();
    kiln.write(
        "bad-offset.md",
        &session(
            "bad-offset",
            "t",
            "2025-12-05T14:32:15+99:99",
            "",
            "## Work @orchestrator #dev\n\ntext\n",
        ),
    );
    let out = kiln.run(&["--dir", ".crucible/sessions", "session", "validate"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(
        all.contains("bad-offset.md:5:") && all.contains("+99:99"),
        "{all}"
    );
}

/// Item 13: a 70,000-character title (and agent name) once panicked the
/// table renderers, whose `format!` widths are kept in 16 bits.
#[test]
fn a_column_wider_than_16_bits_is_shown_without_panic() {
    let kiln = TestKiln::empty();
    let title = "t".repeat(70_000);
    let agent = format!("{}@1.0", "a".repeat(70_000));
    kiln.write(
        "wide.md",
        &session(
            "wide",
            &title,
            "2025-12-05T14:32:15Z",
            &format!("model: {}\n", "m".repeat(70_000)),
            &format!("## Work @{agent} #dev\n\ntext\n"),
        )
        .replace("orchestrator@1.0", &agent),
    );
    for args in [
        &["session", "list"][..],
        &["session", "list", "--format", "json"],
        &["session", "stats"],
        &["session", "stats", "--group-by", "agent"],
        &["session", "stats", "--group-by", "model"],
        &["session", "show", "wide"],
    ] {
        let mut full = vec!["--dir", ".crucible/sessions"];
        full.extend_from_slice(args);
        let out = kiln.run(&full);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains("panicked"), "{args:?}: {}", out.stderr);
    }
    let json = kiln.run(&[
        "--dir",
        ".crucible/sessions",
        "session",
        "list",
        "--format",
        "json",
    ]);
    assert!(json.stdout.contains(&title), "JSON keeps the whole title");
    let table = kiln.run(&[
        "--dir",
        ".crucible/sessions",
        "session",
        "stats",
        "--group-by",
        "agent",
    ]);
    assert!(table.stdout.contains('…'), "{}", table.stdout);
}

/// Item 14: 40,000 keys after a block list took 1.7 s to validate in a
/// release build (a duplicate-key scan per key); 10x the keys must cost about
/// 10x the time, and 40,000 keys well under a second even in a debug build.
#[test]
fn many_frontmatter_keys_after_a_block_list_validate_in_linear_time() {
    let kiln = TestKiln::empty();
    let write = |name: &str, keys: usize| {
        let extra: String = (0..keys).map(|i| format!("key_{i}: value {i}\n")).collect();
        kiln.write(
            &format!("{name}.md"),
            &session(
                name,
                "t",
                "2025-12-05T14:32:15Z",
                &extra,
                "## Work @orchestrator #dev\n\ntext\n",
            ),
        )
    };
    let small = write("small", 4_000);
    let large = write("large", 40_000);
    let time = |path: &std::path::Path| {
        (0..3)
            .map(|_| {
                let start = Instant::now();
                let out = kiln.run(&["session", "validate", path.to_str().unwrap()]);
                assert_eq!(out.code, 0, "{}", out.stderr);
                start.elapsed()
            })
            .min()
            .unwrap()
    };
    let (small, large) = (time(&small), time(&large));
    assert!(large < Duration::from_secs(1), "40,000 keys took {large:?}");
    // The process start dominates the small case; a quadratic parse would
    // make the large one about 100x the small.
    assert!(
        large.as_secs_f64() <= 15.0 * small.as_secs_f64(),
        "{small:?} for 4,000 keys, {large:?} for 40,000"
    );
}

/// Item 15: level `i` embeds level `i + 1` twice, 20 levels deep. Expanded
/// as a tree that is 2^20 renders of the last level; each session is now
/// expanded once, and an expansion limit cuts wider directories with a marker.
#[test]
fn a_doubling_embed_fan_out_renders_quickly_and_once_per_session() {
    let kiln = TestKiln::empty();
    for level in 0..=20 {
        let body = if level < 20 {
            let child = format!("level-{}", level + 1);
            format!(
                "## Work @orchestrator #dev\n\n{}\n{}",
                embed(&child),
                embed(&child)
            )
        } else {
            "## Work @orchestrator #dev\n\nthe bottom\n".to_owned()
        };
        let id = format!("level-{level}");
        kiln.write(
            &format!("{id}.md"),
            &session(
                &id,
                &format!("Level {level}"),
                "2025-12-05T14:32:15Z",
                "",
                &body,
            ),
        );
    }
    let start = Instant::now();
    let out = kiln.run(&["--dir", ".crucible/sessions", "session", "show", "level-0"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(
        out.stdout.matches("the bottom").count(),
        1,
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("level-20 is shown earlier in this session; not repeated")
    );
}

/// A `[!subagent]` callout that embeds `child`.
fn embed(child: &str) -> String {
    format!(
        "> [!subagent] @helper@1.0\n> Asked to go one level down.\n> mode: embed\n> ![[{child}]]\n> Summary: done.\n"
    )
}

/// A directory wider than the expansion limit: one session embedding 250
/// distinct ones shows 200 and says how many it left out.
#[test]
fn embeds_past_the_expansion_limit_are_counted_not_shown() {
    let wide = TestKiln::empty();
    let mut body = String::from("## Work @orchestrator #dev\n\n");
    for i in 0..250 {
        let id = format!("leaf-{i}");
        wide.write(
            &format!("{id}.md"),
            &session(
                &id,
                "leaf",
                "2025-12-05T14:32:15Z",
                "",
                "## Leaf @orchestrator #dev\n\nleaf text\n",
            ),
        );
        body.push_str(&embed(&id));
        body.push('\n');
    }
    wide.write(
        "root.md",
        &session("root", "root", "2025-12-05T14:32:15Z", "", &body),
    );
    let out = wide.run(&["--dir", ".crucible/sessions", "session", "show", "root"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout.matches("leaf text").count(),
        200,
        "{}",
        out.stderr
    );
    assert!(
        out.stdout
            .contains("… 50 more embedded sessions not expanded: limit reached"),
        "{}",
        out.stdout
    );
}
