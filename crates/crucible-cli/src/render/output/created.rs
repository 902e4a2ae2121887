//! `cru session start --format json` (and `log subagent --format json`).

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::Versioned;

/// A session just created.
#[derive(Debug, Serialize)]
pub struct Created<'a> {
    pub id: &'a str,
    /// The session's file.
    pub path: String,
}

/// Prints `{"version": 1, "id", "path"}` on one line: hooks read it with
/// a line-oriented tool (`jq -r .id`).
pub fn print(id: &str, path: &Path) -> anyhow::Result<()> {
    let created = Created {
        id,
        path: path.display().to_string(),
    };
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, &Versioned::new(&created))?;
    writeln!(out)?;
    Ok(())
}
