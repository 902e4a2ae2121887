//! Every importer on real files that agents wrote (`fixtures/real/<agent>/`),
//! checked against facts counted from the source by small counters written
//! here, not by the importers' code.

mod claude_code;
mod codex;
mod connectonion;
mod copilot;
mod gemini;
mod opencode;

use std::path::{Path, PathBuf};

use crucible_interop::{Format, detect};

/// Formats by the name of their folder under `fixtures/real/`.
const FORMATS: [Format; 9] = [
    Format::OpenAiMessages,
    Format::AgentDir,
    Format::Codeloops,
    Format::ConnectOnion,
    Format::ClaudeCode,
    Format::Codex,
    Format::Gemini,
    Format::Copilot,
    Format::OpenCode,
];

/// No real file of one agent is taken for another's: a file under
/// `fixtures/real/<agent>/` is detected as that agent's format or as none
/// (a real file can hold nothing to import, as an empty transcript).
#[test]
fn no_real_file_is_taken_for_another_agents() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real");
    for agent in std::fs::read_dir(&root).unwrap().flatten() {
        let name = agent.file_name().to_string_lossy().into_owned();
        let want = FORMATS.iter().find(|f| f.as_str() == name).copied();
        let mut stack = vec![agent.path()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x != "md")
                    && let Some(got) = detect(&p)
                {
                    assert_eq!(Some(got), want, "{}", p.display());
                }
            }
        }
    }
}

/// `fixtures/real/<agent>/`.
pub fn real_dir(agent: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real")
        .join(agent)
}

/// Every file under `fixtures/real/<agent>/` whose extension is one of
/// `exts`, sorted.
pub fn real_files(agent: &str, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![real_dir(agent)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// An imported session's usage records make its totals: by model, they
/// add up to the frontmatter's `usage` (and `tokens_used` to their sum),
/// and each was made within the session (not before it started).
pub fn assert_records_make_the_totals(log: &crucible_core::SessionLog, what: &str) {
    use crucible_core::{Tokens, UNKNOWN_MODEL, UsageByModel};
    let fm = &log.frontmatter;
    let mut by = UsageByModel::default();
    for (_, p) in log.phases() {
        for r in &p.usage {
            let model = r
                .model
                .as_ref()
                .or(p.meta.model.as_ref())
                .or(fm.model.as_ref());
            by.add(model.map(String::as_str), r.tokens);
            if let Some(at) = &r.at {
                assert!(
                    at.unix_ms() >= fm.started.unix_ms(),
                    "{what}: a request at {} before the session's start {}",
                    at.as_str(),
                    fm.started.as_str()
                );
            }
        }
    }
    if log.usage_records().next().is_none() {
        return;
    }
    let written = UsageByModel::of(fm).unwrap_or_default();
    assert_eq!(written, by, "{what}: the frontmatter's usage by model");
    assert_eq!(
        fm.tokens_used,
        Some(by.total().total()),
        "{what}: tokens_used"
    );
    assert!(
        !by.models.contains_key(UNKNOWN_MODEL) || fm.model.is_none(),
        "{what}: a record without a model in a session that has one"
    );
    let _: Tokens = by.total();
}

/// Every importer whose source knows the working directory records it as
/// the frontmatter's `cwd` (what `--project` matches), whatever the
/// source calls it.
#[test]
fn the_working_directory_is_cwd_for_every_source_that_knows_it() {
    let foreign = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/foreign");
    let opencode = crucible_interop::find_sources(&real_dir("opencode").join("v1.18.33"), None)
        .sources
        .remove(0)
        .0;
    for (path, format) in [
        (
            real_dir("claude-code").join("ai-sessions/claude-code-pomodoro-timer.jsonl"),
            Format::ClaudeCode,
        ),
        (
            real_dir("codex").join("ai-sessions/codex-pomodor-timer.jsonl"),
            Format::Codex,
        ),
        (opencode, Format::OpenCode),
        (real_files("copilot", &["jsonl"]).remove(0), Format::Copilot),
        (
            foreign.join("codeloops/2025-01-27T15-30-45Z_a3f2c1.jsonl"),
            Format::Codeloops,
        ),
    ] {
        let imp = crucible_interop::import(&path, format).unwrap();
        let cwd = imp
            .log
            .frontmatter
            .extra
            .get("cwd")
            .and_then(|v| v.as_str());
        assert!(
            cwd.is_some_and(|c| !c.is_empty()),
            "{}: no cwd",
            path.display()
        );
    }
}
