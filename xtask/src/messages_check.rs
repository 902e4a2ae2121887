//! `cargo xtask messages-check`: `cru session resume --format messages`
//! validated by the `openai` Python package's own chat message types, on
//! every resumable fixture session and on real sessions imported from
//! `fixtures/real/`.
//!
//! The Rust tests check the array's shape (roles, tool calls answered in
//! order); this checks it against what the OpenAI SDK itself accepts:
//! pydantic's `TypeAdapter` over `ChatCompletionMessageParam`, strict, with
//! unknown keys forbidden, so a misspelt key or a wrong type fails.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

/// The `openai` release the check is pinned to (`.ci/run` installs it).
pub const OPENAI_VERSION: &str = "3.54.0";

const VALIDATOR: &str = r#"
import json, sys
from pydantic import ConfigDict, TypeAdapter
from openai.types.chat import ChatCompletionMessageParam
adapter = TypeAdapter(
    ChatCompletionMessageParam, config=ConfigDict(extra="forbid", strict=True)
)
path = sys.argv[1]
messages = json.load(open(path))
assert isinstance(messages, list) and messages, f"{path}: not a non-empty array"
for i, m in enumerate(messages):
    try:
        adapter.validate_python(m)
    except Exception as e:
        sys.exit(f"{path}: message {i} ({m.get('role')}): {e}")
print(f"{path}: {len(messages)} messages valid")
"#;

/// Real agents' files imported for the check, besides the fixture sessions.
const REAL: [&str; 3] = [
    "fixtures/real/claude-code",
    "fixtures/real/codex",
    "fixtures/real/connectonion",
];

/// Whether python3 can import the `openai` package and pydantic.
pub fn validator_available() -> bool {
    Command::new("python3")
        .args(["-c", "import openai, pydantic"])
        .output()
        .is_ok_and(|o| o.status.success())
}

pub fn run(root: &Path) -> anyhow::Result<()> {
    if !validator_available() {
        bail!("python3 with the `openai` package is needed (pip install openai=={OPENAI_VERSION})");
    }
    let cru = crate::cru_binary::debug(root)?;
    let scratch = tempfile::tempdir()?;
    let fixtures = scratch.path().join("fixtures");
    std::fs::create_dir_all(&fixtures)?;
    for f in crucible_core::store::session_files(&root.join("fixtures/sessions"))? {
        std::fs::copy(&f, fixtures.join(f.file_name().context("a file name")?))?;
    }
    let real = scratch.path().join("real");
    let status = Command::new(&cru)
        .arg("--dir")
        .arg(&real)
        .args(["session", "import"])
        .args(REAL.iter().map(|r| root.join(r)))
        .stdout(std::process::Stdio::null())
        .status()?;
    // 3: imported, with some files of those folders (READMEs) skipped.
    anyhow::ensure!(
        matches!(status.code(), Some(0 | 3)),
        "cru session import failed on {REAL:?}"
    );
    let mut checked = 0;
    for dir in [&fixtures, &real] {
        for session in crucible_core::store::session_files(dir)? {
            let out = scratch.path().join(format!("messages-{checked}.json"));
            let resume = Command::new(&cru)
                .arg("--dir")
                .arg(dir)
                .args(["session", "resume", "--format", "messages"])
                .arg(&session)
                .output()?;
            if !resume.status.success() {
                let stderr = String::from_utf8_lossy(&resume.stderr);
                bail!(
                    "resume --format messages failed on {}: {stderr}",
                    session.display()
                );
            }
            std::fs::write(&out, &resume.stdout)?;
            let check = Command::new("python3")
                .args(["-c", VALIDATOR])
                .arg(&out)
                .status()?;
            anyhow::ensure!(
                check.success(),
                "{}: the messages are not valid openai chat messages",
                session.display()
            );
            checked += 1;
        }
    }
    anyhow::ensure!(checked > 0, "no session was checked");
    println!(
        "messages-check: {checked} sessions' messages are valid openai {OPENAI_VERSION} chat messages"
    );
    Ok(())
}
