//! Times that name no instant, in the files of real fixtures: warned
//! about with the file and line, never read as some other time.

use std::path::{Path, PathBuf};

use crucible_interop::{Format, import};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

#[test]
fn a_connectonion_file_with_an_impossible_date_is_warned_about_at_its_line() {
    let good = fixtures().join("foreign/connectonion/.co/sessions/oo.yaml");
    let text = std::fs::read_to_string(&good).unwrap();
    assert!(text.contains("created: '2025-12-03 10:12:44'"));
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("oo.yaml");
    std::fs::write(
        &bad,
        text.replace(
            "created: '2025-12-03 10:12:44'",
            "created: '2025-02-30 10:12:44'",
        ),
    )
    .unwrap();
    let ok = import(&good, Format::ConnectOnion).unwrap();
    assert!(ok.warnings.is_empty(), "{:?}", ok.warnings);
    assert_eq!(ok.log.frontmatter.started.as_str(), "2025-12-03T10:12:44Z");
    let imported = import(&bad, Format::ConnectOnion).unwrap();
    let w: Vec<String> = imported.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with(&format!(
            "{}:3: created: `2025-02-30 10:12:44`",
            bad.display()
        )),
        "{w:?}"
    );
    // Not a day shifted into March: the first turn's time is the start.
    assert_eq!(
        imported.log.frontmatter.started.as_str(),
        "2025-12-03T10:12:50Z"
    );
}

#[test]
fn an_agent_folder_named_for_no_real_time_is_warned_about() {
    let good = fixtures().join("foreign/agent-dir/.agent/sessions/2024-12-18-16-45-12");
    let ok = import(&good, Format::AgentDir).unwrap();
    assert_eq!(ok.log.frontmatter.started.as_str(), "2024-12-18T16:45:12Z");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("2024-12-18-25-45-12");
    std::fs::create_dir(&bad).unwrap();
    std::fs::copy(good.join("agent.log"), bad.join("agent.log")).unwrap();
    let imported = import(&bad, Format::AgentDir).unwrap();
    let w: Vec<String> = imported.warnings.iter().map(ToString::to_string).collect();
    assert!(
        w.iter()
            .any(|w| w.contains("2024-12-18-25-45-12") && w.contains("not a valid time")),
        "{w:?}"
    );
    assert_ne!(
        imported.log.frontmatter.started.as_str(),
        "2024-12-19T01:45:12Z",
        "an hour of 25 is not the next day's first"
    );
}
