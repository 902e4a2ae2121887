//! Pages of the shipped fixture sessions.

use crate::{Directory, page_of};

fn fixtures() -> Directory {
    Directory::read(&crucible_testkit::fixtures().join("sessions"))
}

#[test]
fn a_page_shows_the_header_phases_calls_and_callouts() {
    let dir = fixtures();
    let page = page_of(&dir, "2025-12-10-fix-flaky-test");
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(
        page.contains("default-src 'none'"),
        "no script, nothing fetched"
    );
    assert!(page.contains("prefers-color-scheme: dark"));
    assert!(page.contains("<span class=\"status status-"));
    // Phases as sections with their agent and channel.
    assert!(page.contains("<section class=\"phase\" id=\"phase-1\">"));
    assert!(page.contains("<span class=\"agent\">@"));
    assert!(page.contains("<span class=\"channel\">#"));
    // Tool calls, callouts by kind.
    assert!(page.contains("<ul class=\"calls\">"));
    assert!(page.contains("<aside class=\"callout callout-decision\">"));
    // The embedded subagent is shown inside its callout, and linked.
    assert!(
        page.contains("<div class=\"embedded\">"),
        "embed shown inline"
    );
    assert!(page.contains("href=\"2025-12-10-investigate-ci.html\""));
    // The inline subagent's own calls are there.
    assert!(page.contains("clippy --all-targets"));
    assert!(page.matches("<section class=\"phase\"").count() > 1);
}

#[test]
fn a_linked_session_that_is_not_in_the_directory_is_said_so() {
    let mut dir = fixtures();
    dir.sessions.remove("2025-12-10-investigate-ci");
    let page = page_of(&dir, "2025-12-10-fix-flaky-test");
    assert!(
        !page.contains("href=\"2025-12-10-investigate-ci.html\""),
        "never a broken link"
    );
    assert!(page.contains("2025-12-10-investigate-ci <small>(not in this directory)</small>"));
}

#[test]
fn every_fixture_session_renders_balanced_sections() {
    let dir = fixtures();
    for id in dir.sessions.keys() {
        let page = page_of(&dir, id);
        for tag in ["section", "aside", "details", "ul", "main", "header"] {
            assert_eq!(
                page.matches(&format!("<{tag}")).count(),
                page.matches(&format!("</{tag}>")).count(),
                "{id}: <{tag}> balanced"
            );
        }
    }
}
