//! A command's output file (`-o FILE`) is never one of the sessions: a
//! mistyped `-o fix.md` for `-o fix.html` inside the sessions directory
//! would put a page where a session was, with nothing to get it back.

use std::path::Path;

use crucible_core::store::names;

use crate::context::Context;
use crate::error::CliError;

/// Refuses `target` when it is a session (any file the store reads as
/// one), a session's sidecar, or a hidden file of the sessions directory
/// (the index and its journals). A file that does not exist yet, or is
/// anything else, passes.
pub fn not_a_session(ctx: &Context, target: &Path) -> Result<(), CliError> {
    let Ok(meta) = std::fs::metadata(target) else {
        return Ok(());
    };
    if meta.is_dir() {
        return Err(CliError::usage(format!(
            "-o {}: is a folder; name a file",
            target.display()
        )));
    }
    if !meta.is_file() {
        return Ok(());
    }
    let real = std::fs::canonicalize(target).unwrap_or_else(|_| target.to_owned());
    let store =
        std::fs::canonicalize(ctx.store.dir()).unwrap_or_else(|_| ctx.store.dir().to_owned());
    let name = real
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let what = if real.starts_with(&store) && (names::is_sidecar(name) || name.starts_with('.')) {
        Some("a file of the sessions directory")
    } else if ctx.store.load_path(&real).is_ok() {
        Some("a session")
    } else {
        None
    };
    match what {
        Some(what) => Err(CliError::usage(format!(
            "{}: is {what}; cru will not write over it",
            target.display()
        ))
        .with_hint("name another file for the output, such as page.html")),
        None => Ok(()),
    }
}
