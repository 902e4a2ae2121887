//! `cru session show --format html`: one page per session, on the shipped
//! fixtures and on a real Claude Code transcript imported with its sidecar.

use crate::kiln::{TestKiln, fixtures};

/// The page of `id` written to a file in the kiln, and the run's stderr.
fn page(kiln: &TestKiln, id: &str) -> String {
    let file = kiln.sessions().join("../page.html");
    let out = page_to(kiln, id, &file);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "", "the page went to the file");
    std::fs::read_to_string(file).unwrap()
}

/// `cru session show ID --format html -o FILE`.
pub fn page_to(kiln: &TestKiln, id: &str, file: &std::path::Path) -> crate::kiln::Output {
    kiln.run(&[
        "session",
        "show",
        id,
        "--format",
        "html",
        "-o",
        &file.display().to_string(),
    ])
}

#[test]
fn the_page_has_the_header_figures_phases_and_embeds() {
    let kiln = TestKiln::with_fixtures();
    let page = page(&kiln, "2025-12-10-fix-flaky-test");
    assert!(page.contains("<title>Fix the flaky store test</title>"));
    for field in [
        "<dt>status</dt><dd><span class=\"status status-paused\">paused</span>",
        "<dt>agents</dt><dd>orchestrator@1.0, debugger@0.3</dd>",
        "<dt>tokens</dt><dd>6,910 <small>(9,120 in the file's frontmatter)</small></dd>",
        "<dt>cost</dt><dd>$",
    ] {
        assert!(page.contains(field), "{field} in {page}");
    }
    assert!(page.contains("<section class=\"phase\" id=\"phase-3\">"));
    // The embedded subagent is shown inside its callout; its link leads to
    // its file (no page of it beside this one).
    assert!(page.contains("<div class=\"embedded\">"));
    assert!(page.contains("2025-12-10-investigate-ci.md\">2025-12-10-investigate-ci</a>"));
    assert!(page.contains("<ul class=\"tasks\">"));
}

#[test]
fn a_link_leads_to_the_page_beside_when_there_is_one() {
    let kiln = TestKiln::with_fixtures();
    std::fs::write(
        kiln.sessions().join("../2025-12-10-investigate-ci.html"),
        "<!DOCTYPE html>",
    )
    .unwrap();
    let page = page(&kiln, "2025-12-10-fix-flaky-test");
    assert!(
        page.contains("href=\"2025-12-10-investigate-ci.html\""),
        "{page}"
    );
}

#[test]
fn a_session_not_in_the_directory_is_text_never_a_broken_link() {
    let kiln = TestKiln::empty();
    kiln.write(
        "2025-12-01-a.md",
        "---\ntype: session\nsession_id: 2025-12-01-a\nstarted: 2025-12-01T10:00:00Z\nstatus: completed\nparent: 2025-11-30-gone\n---\n\n\
         ## Work @a #dev\n\n> [!subagent] @b\n> mode: link\n> [[2025-12-01-missing]]\n",
    );
    let page = page(&kiln, "2025-12-01-a");
    assert!(page.contains("2025-12-01-missing <small>(not in this directory)</small>"));
    assert!(page.contains("2025-11-30-gone <small>(not in this directory)</small>"));
    assert!(!page.contains("href=\"2025-12-01-missing"));
}

#[test]
fn a_real_transcript_s_calls_expand_to_their_full_results() {
    let kiln = TestKiln::empty();
    let src = fixtures().join("real/claude-code/spotter/tool_heavy.jsonl");
    let out = kiln.run(&["session", "import", &src.display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let listed = kiln.run(&["session", "list", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&listed.stdout).unwrap();
    let id = v["sessions"][0]["id"].as_str().unwrap().to_owned();
    let page = page(&kiln, &id);
    assert!(
        page.contains("<details><summary><code class=\"tool\">"),
        "calls expand"
    );
    assert!(page.contains("<div class=\"label\">result</div><pre>"));
    assert!(page.contains("<dt>tokens</dt>"));
    // Phase by phase, the same calls.
    let one = kiln.run(&[
        "session",
        "show",
        &format!("{id}#phase-1"),
        "--format",
        "html",
    ]);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(one.stdout.matches("<section class=\"phase\"").count(), 1);
}

#[test]
fn output_goes_with_html_only() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&[
        "session",
        "show",
        "2025-12-10-fix-flaky-test",
        "-o",
        "x.json",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("`--output` goes with `--format html`"),
        "{}",
        out.stderr
    );
}

/// `-o` naming a session (a slip of `fix.md` for `fix.html`) is refused,
/// and the session is left as it was; so is a file of the index.
#[test]
fn a_page_is_never_written_over_a_session() {
    let kiln = TestKiln::with_fixtures();
    for target in [
        "2025-12-10-fix-flaky-test.md",
        "2025-12-11-write-tests.md",
        ".index.toon",
    ] {
        kiln.run(&["session", "list"]);
        let path = kiln.sessions().join(target);
        let before = std::fs::read(&path).unwrap();
        let out = page_to(&kiln, "2025-12-10-fix-flaky-test", &path);
        assert_eq!(out.code, 2, "{target}: {}", out.stderr);
        assert!(
            out.stderr.contains("cru will not write over it"),
            "{}",
            out.stderr
        );
        assert_eq!(std::fs::read(&path).unwrap(), before, "{target} unchanged");
    }
    let page = kiln.sessions().join("../page.html");
    let out = page_to(&kiln, "2025-12-10-fix-flaky-test", &page);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let written = std::fs::read_to_string(&page).unwrap();
    assert!(written.starts_with("<!DOCTYPE html>"));
}

/// A page of one phase keeps that phase's number and anchor, and no two
/// elements of a page share an id (an embedded session's phases are
/// prefixed with its id).
#[test]
fn phase_numbers_and_element_ids_are_the_sessions_own() {
    let kiln = TestKiln::with_fixtures();
    let one = kiln.run(&[
        "session",
        "show",
        "2025-12-10-fix-flaky-test#phase-2",
        "--format",
        "html",
    ]);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert!(one.stdout.contains("id=\"phase-2\""), "{}", one.stdout);
    assert!(
        one.stdout.contains("href=\"#phase-2\">2.</a>"),
        "{}",
        one.stdout
    );
    assert!(!one.stdout.contains("id=\"phase-1\""));
    let page = page(&kiln, "2025-12-10-fix-flaky-test");
    assert!(
        page.contains("class=\"embedded\""),
        "the fixture embeds a session"
    );
    let mut ids: Vec<&str> = page
        .split(" id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    let all = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all, "every id once: {ids:?}");
    assert!(
        ids.iter()
            .any(|id| id.ends_with("-phase-1") && id.len() > "phase-1".len())
    );
}

/// `[!expect]` and `[!eval]` are records: a key a line, as written.
#[test]
fn expect_and_eval_callouts_keep_their_lines_as_written() {
    let kiln = TestKiln::empty();
    let dir = kiln.sessions();
    std::fs::create_dir_all(&dir).unwrap();
    let fixture = crate::kiln::fixtures().join("eval/2025-12-16-add-upload-retry.md");
    std::fs::copy(&fixture, dir.join("2025-12-16-add-upload-retry.md")).unwrap();
    let text = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        text.contains("[!expect]"),
        "the fixture has an expect callout"
    );
    let out = kiln.run(&[
        "session",
        "show",
        "2025-12-16-add-upload-retry",
        "--format",
        "html",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let body = out
        .stdout
        .split("<pre class=\"callout-body record\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .unwrap_or_else(|| panic!("an expect record: {}", out.stdout));
    assert!(body.lines().count() > 1, "a key a line: {body}");
    if text.contains("upload\\.py") {
        assert!(body.contains("upload\\.py"), "as written: {body}");
    }
}

/// A page's links to session files are relative to the page: sent to
/// someone else, it shows none of the writer's folders.
#[test]
fn links_to_session_files_are_relative() {
    let kiln = TestKiln::with_fixtures();
    let page = kiln.root.path().join("pages/fix.html");
    std::fs::create_dir_all(page.parent().unwrap()).unwrap();
    let out = page_to(&kiln, "2025-12-10-fix-flaky-test", &page);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let html = std::fs::read_to_string(&page).unwrap();
    let hrefs: Vec<&str> = html
        .split("class=\"session-link\" href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert!(!hrefs.is_empty(), "the fixture links a session");
    for href in hrefs {
        assert!(!href.starts_with('/'), "{href}");
        let target = page.parent().unwrap().join(href);
        assert!(target.is_file(), "{href} leads to the session file");
    }
}
