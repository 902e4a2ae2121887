//! Every parser of this crate runs in time linear in its input: 10 times the
//! input costs at most 15 times the time (a quadratic step would cost 100).

use std::path::Path;

use crucible_parser::workflow::parse_workflow;
use crucible_parser::{check_session, fast_summary, summarize};

#[path = "../../../crucible-core/tests/support/linear_time.rs"]
mod linear_time;
use linear_time::assert_linear;

const HEAD: &str =
    "---\ntype: session\nsession_id: linear\nstarted: 2025-12-05T14:32:15Z\nstatus: completed\n";

fn session(frontmatter: &str, body: &str) -> Vec<u8> {
    format!("{HEAD}{frontmatter}---\n\n# Linear\n\n{body}").into_bytes()
}

fn full_parse(bytes: &impl AsRef<[u8]>) {
    let checked = check_session(Path::new("linear.md"), bytes.as_ref());
    assert!(checked.errors.is_empty(), "{:?}", checked.errors.first());
}

fn phase(i: usize) -> String {
    format!(
        "## Phase {i} @agent@1.0 #dev\n<!-- phase: started=2025-12-05T14:32:15Z duration_ms=1000 tokens=10 -->\n\n\
         **Tool calls:**\n- `grep x src/` → 3 matches\n- `cargo build` → ✗ error\n\n\
         > [!decision]\n> Keep it.\n\n> [!error]\n> It broke.\n> Resolution: fixed.\n\nSome text.\n\n"
    )
}

#[test]
fn frontmatter_keys_after_a_block_list() {
    // Quadratic before: every key was checked against every earlier key.
    assert_linear(
        "frontmatter keys",
        1_000,
        |n| {
            let keys: String = (0..n).map(|i| format!("key_{i}: value {i}\n")).collect();
            session(
                &format!("participants:\n  - a@1.0\n  - b@1.0\n{keys}"),
                "text\n",
            )
        },
        full_parse,
    );
}

#[test]
fn frontmatter_read_by_serde_yaml() {
    // A flow list sends the frontmatter to serde_yaml instead of the fast reader.
    assert_linear(
        "serde_yaml frontmatter",
        1_000,
        |n| {
            let keys: String = (0..n).map(|i| format!("key_{i}: [{i}, x]\n")).collect();
            session(&format!("participants:\n  - a@1.0\n{keys}"), "text\n")
        },
        full_parse,
    );
}

#[test]
fn many_bad_participants_far_down_the_frontmatter() {
    // Each bad item is an error on the key's line, found once, not per item.
    assert_linear(
        "bad participants",
        500,
        |n| {
            let keys: String = (0..n).map(|i| format!("key_{i}: v\n")).collect();
            let items: String = (0..n).map(|_| "  - '@@'\n").collect();
            session(&format!("{keys}participants:\n{items}"), "text\n")
        },
        |bytes| {
            let checked = check_session(Path::new("linear.md"), bytes);
            assert!(!checked.errors.is_empty());
        },
    );
}

#[test]
fn a_long_body_of_paragraphs() {
    assert_linear(
        "long body",
        1_000,
        |n| {
            session(
                "",
                &"A paragraph of prose, with `code` and *emphasis*.\n\n".repeat(n),
            )
        },
        full_parse,
    );
}

#[test]
fn many_phases_with_tool_calls_and_callouts() {
    assert_linear(
        "many phases",
        100,
        |n| session("", &(0..n).map(phase).collect::<String>()),
        full_parse,
    );
}

#[test]
fn many_tool_calls_in_one_phase() {
    assert_linear(
        "many tool calls",
        1_000,
        |n| {
            let calls: String = (0..n)
                .map(|i| format!("- `tool {i}` → result {i}\n"))
                .collect();
            session(
                "",
                &format!("## Work @agent #dev\n\n**Tool calls:**\n{calls}"),
            )
        },
        full_parse,
    );
}

#[test]
fn long_lines() {
    assert_linear(
        "long lines",
        10_000,
        |n| {
            let long = "word ".repeat(n);
            session(
                &format!("title: {}\n", "t".repeat(n)),
                &format!("## Work @agent #dev\n\n{long}\n\n**Tool calls:**\n- `{long}` → {long}\n"),
            )
        },
        full_parse,
    );
}

#[test]
fn deep_nesting_of_blockquotes_and_lists() {
    assert_linear(
        "deep nesting",
        200,
        |n| {
            let quotes = format!("{} deep\n\n", "> ".repeat(n));
            let lists = format!("{} deep\n\n", "- ".repeat(n));
            let callout = format!("> [!decision]\n{}\n\n", "> > inner\n".repeat(n));
            session(
                "",
                &format!("## Work @agent #dev\n\n{quotes}{lists}{callout}"),
            )
        },
        full_parse,
    );
}

#[test]
fn the_fast_summary() {
    let input = |n: usize| session("", &(0..n).map(phase).collect::<String>());
    assert!(
        fast_summary(&input(2)).is_some(),
        "the input takes the fast path"
    );
    assert_linear("fast summary", 100, input, |bytes| {
        summarize(Path::new("linear.md"), bytes).unwrap();
    });
    assert_linear(
        "fast summary, many keys",
        1_000,
        |n| {
            let keys: String = (0..n).map(|i| format!("key_{i}: value {i}\n")).collect();
            session(&format!("participants:\n  - a@1.0\n{keys}"), "text\n")
        },
        |bytes| {
            fast_summary(bytes).expect("the fast path");
        },
    );
}

#[test]
fn the_workflow_markup_parser() {
    assert_linear(
        "workflow markup",
        100,
        |n| {
            let steps: String = (0..n)
                .map(|i| {
                    format!(
                        "## Step {i} @bot #dev\nDoes step {i}.\nin_{i}::Data → out_{i}::Data\n\n\
                         ```session-toon\nexecution[2]{{phase,agent,channel,input,output,duration_ms,status,tokens_used}}:\n  \
                         Step{i},bot,dev,a,b,1000,success,10\n  Step{i},bot,dev,a,b,2000,failed,20\n```\n\n"
                    )
                })
                .collect();
            format!("---\ntype: workflow\ntitle: Long\n---\n\n# Long\n\n{steps}").into_bytes()
        },
        |bytes| {
            let parsed = parse_workflow(bytes);
            std::hint::black_box(parsed);
        },
    );
}
