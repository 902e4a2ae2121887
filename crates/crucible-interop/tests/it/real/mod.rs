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
