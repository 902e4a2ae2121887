//! Which of a store's sources not imported yet `[capture]` leaves out, so
//! that the doctor does not call them "never imported" (nor the store "all
//! imported" when they are left out): told by the `cwd` their first
//! records name, as the import routes them, without reading them whole.

use std::collections::BTreeSet;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use crucible_interop::Format;

use crate::context::CapturePolicy;

/// How many lines of a source are looked through for its `cwd`.
const HEAD_LINES: usize = 64;

/// The sources left out, and the config files that leave them out.
#[derive(Debug, Default)]
pub struct LeftOut {
    pub count: usize,
    pub by: BTreeSet<PathBuf>,
}

impl LeftOut {
    /// `"N left out by [capture] (file, …)"`.
    pub fn describe(&self) -> String {
        let files: Vec<String> = self.by.iter().map(|p| p.display().to_string()).collect();
        format!(
            "{} left out by [capture] ({})",
            self.count,
            if files.is_empty() {
                "a config that cannot be read".to_owned()
            } else {
                files.join(", ")
            }
        )
    }
}

/// Of `sources`, those whose project (or the user's config) turns
/// capture off.
pub fn left_out(sources: &[(PathBuf, Format)], policy: &mut CapturePolicy) -> LeftOut {
    let mut out = LeftOut::default();
    for (path, _) in sources {
        let Some(cwd) = cwd_of(path) else { continue };
        let user = policy.user_config().map(Path::to_owned);
        let d = policy.decide(Path::new(&cwd));
        if d.enabled {
            continue;
        }
        out.count += 1;
        match (&d.project, user) {
            (Some(project), _) => {
                out.by.insert(project.join(".crucible/config.toml"));
            }
            (None, Some(user)) => {
                out.by.insert(user);
            }
            (None, None) => {}
        }
    }
    out
}

/// The working directory a transcript's first records name (Claude Code:
/// `cwd` on each record; Codex: `payload.cwd` of its `session_meta`).
fn cwd_of(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    std::io::BufReader::new(file)
        .lines()
        .take(HEAD_LINES)
        .map_while(Result::ok)
        .find_map(|line| {
            let v: serde_json::Value = serde_json::from_str(&line).ok()?;
            v.get("cwd")
                .or_else(|| v.get("payload").and_then(|p| p.get("cwd")))
                .and_then(|c| c.as_str())
                .map(str::to_owned)
        })
}
