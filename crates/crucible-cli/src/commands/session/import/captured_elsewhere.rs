//! Inside a project that keeps a sessions directory of its own, the
//! sessions captured from it (hooks, `cru watch`, `cru session import`
//! with no path) go to the user's sessions directory unless the project
//! says `[capture] project = true`: `cru doctor` and `cru session list`
//! say how many are there, so that they do not seem lost.

use std::io::Read;
use std::path::Path;

use crate::context::Context;

/// How much of a session file is read for its frontmatter's `cwd`.
const HEAD: u64 = 8 * 1024;

/// The sessions of the user's capture directory run inside `ctx`'s
/// project, when `ctx` reads a project's own directory and capture writes
/// elsewhere: (how many, the capture directory). `None` otherwise.
pub fn captured_elsewhere(ctx: &Context) -> Option<(usize, std::path::PathBuf)> {
    let crucible_core::SessionsDirSource::Kiln(project) = &ctx.dir_source else {
        return None;
    };
    let cap = super::capture_context(ctx).ok()?;
    let dir = cap.store.dir();
    if dir == ctx.store.dir() {
        return None;
    }
    let files = crucible_core::store::session_files(dir).ok()?;
    let n = files.iter().filter(|f| ran_in(f, project)).count();
    Some((n, dir.to_owned()))
}

/// What to tell the user about them, or `None` when there are none.
pub fn note(n: usize, dir: &Path) -> Option<String> {
    (n > 0).then(|| {
        format!(
            "{n} captured sessions of this project are in {} (set `[capture] project = true` in .crucible/config.toml to keep them here)",
            dir.display()
        )
    })
}

/// Whether the session file at `path` ran in `project` (its frontmatter's
/// `cwd`, as an import records it, lies inside).
fn ran_in(path: &Path, project: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = String::new();
    if file.take(HEAD).read_to_string(&mut head).is_err() && head.is_empty() {
        return false;
    }
    head.lines()
        .skip(1)
        .take_while(|l| *l != "---")
        .find_map(|l| l.strip_prefix("cwd: "))
        .map(|v| v.trim().trim_matches(['"', '\'']))
        .is_some_and(|cwd| Path::new(cwd).starts_with(project))
}
