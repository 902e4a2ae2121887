//! `cru session search --open`: the editor at the best hit.
//!
//! The editor is `$VISUAL`, else `$EDITOR`, else `vi` (empty counts as
//! unset), started as `EDITOR +LINE FILE` with the terminal cru has. As
//! git does, a value holding a character the shell would read (a space, a
//! quote, `$`, `|`, ...) is run as `sh -c 'VALUE "$@"' VALUE +LINE FILE`, so
//! that `EDITOR="code --wait"` works; any other value is the program
//! itself, run without a shell.

use std::ffi::OsString;
use std::process::Command;

use crucible_search::Hit;

use crate::error::CliError;

/// The characters that make git hand an editor to the shell.
const SHELL_CHARS: &[char] = &[
    '|', '&', ';', '<', '>', '(', ')', '$', '`', '\\', '"', '\'', ' ', '\t', '\n', '*', '?', '[',
    '#', '~', '=', '%',
];

/// The editor to start, from the values of `VISUAL` and `EDITOR`.
pub fn editor(visual: Option<OsString>, editor: Option<OsString>) -> OsString {
    visual
        .filter(|v| !v.is_empty())
        .or_else(|| editor.filter(|v| !v.is_empty()))
        .unwrap_or_else(|| "vi".into())
}

/// The command that opens `hit` in `editor`.
pub fn command(editor: &OsString, hit: &Hit) -> Command {
    let line = format!("+{}", hit.line);
    let through_shell = editor.to_string_lossy().contains(SHELL_CHARS);
    let mut cmd = if through_shell {
        let mut script = editor.clone();
        script.push(" \"$@\"");
        let mut c = Command::new("sh");
        c.arg("-c").arg(script).arg(editor);
        c
    } else {
        Command::new(editor)
    };
    cmd.arg(line).arg(&hit.file);
    cmd
}

/// Starts the editor at `hit` and waits for it; an editor that cannot be
/// started or fails is an error naming it.
pub fn open(editor: &OsString, hit: &Hit) -> Result<(), CliError> {
    let shown = editor.to_string_lossy();
    let status = command(editor, hit).status().map_err(|e| {
        CliError::new(format!("cannot start the editor `{shown}`: {e}"))
            .with_hint("set $VISUAL or $EDITOR to the editor to use")
    })?;
    if status.success() {
        return Ok(());
    }
    let how = status.code().map_or_else(
        || "was stopped by a signal".to_owned(),
        |c| format!("exited with status {c}"),
    );
    Err(CliError::new(format!(
        "the editor `{shown}` {how} (opening {}:{})",
        hit.file.display(),
        hit.line
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visual_then_editor_then_vi_and_empty_is_unset() {
        let s = |v: &str| Some(OsString::from(v));
        assert_eq!(editor(s("nano"), s("emacs")), "nano");
        assert_eq!(editor(s(""), s("emacs")), "emacs");
        assert_eq!(editor(None, s("")), "vi");
        assert_eq!(editor(None, None), "vi");
    }
}
