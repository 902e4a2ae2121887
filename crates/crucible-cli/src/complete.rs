//! Completion of session ids while a person types them (`COMPLETE=bash
//! cru`, through clap_complete's dynamic completion; `cru completions`
//! prints the shell's registration).
//!
//! The shell runs `cru` with the words typed so far; every argument that
//! takes a session is given [`session_ids`], which lists the ids of the
//! sessions directory that start with the word being completed (any case,
//! as ids are resolved), each with its title. The directory is found as
//! every command finds it, with a `--dir` already typed on the line taken
//! into account.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};
use crucible_index::{Filter, SessionIndex};

use crate::cli::GlobalArgs;
use crate::context::Context;

/// The completer every session argument is given.
pub fn sessions() -> ArgValueCompleter {
    ArgValueCompleter::new(session_ids)
}

/// The sessions whose id starts with `current`, newest first, each with
/// its title; none when the directory cannot be read (a completion never
/// prints an error into the person's command line).
pub fn session_ids(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(typed) = current.to_str() else {
        return Vec::new();
    };
    let global = GlobalArgs {
        verbose: 0,
        dir: dir_on_the_line(std::env::args_os()),
        strict: false,
    };
    let Ok(ctx) = Context::load(&global) else {
        return Vec::new();
    };
    let Ok(sessions) = SessionIndex::new(&ctx.store)
        .without_usage()
        .matching(&Filter::default())
    else {
        return Vec::new();
    };
    let want = typed.to_lowercase();
    sessions
        .into_iter()
        .filter(|s| s.id.to_lowercase().starts_with(&want))
        .enumerate()
        .map(|(order, s)| {
            CompletionCandidate::new(s.id)
                .help(s.title.map(Into::into))
                .display_order(Some(order))
        })
        .collect()
}

/// The value of a `--dir DIR` or `--dir=DIR` among the words typed.
fn dir_on_the_line(args: impl Iterator<Item = OsString>) -> Option<PathBuf> {
    let mut args = args.peekable();
    let mut dir = None;
    while let Some(arg) = args.next() {
        if arg == "--dir" {
            dir = args.next().map(PathBuf::from);
        } else if let Some(value) = arg.to_str().and_then(|a| a.strip_prefix("--dir=")) {
            dir = Some(PathBuf::from(value));
        }
    }
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dir_typed_on_the_line_is_found() {
        let words = |w: &[&str]| w.iter().map(OsString::from).collect::<Vec<_>>().into_iter();
        assert_eq!(dir_on_the_line(words(&["cru", "session", "show"])), None);
        assert_eq!(
            dir_on_the_line(words(&[
                "cru", "--", "cru", "--dir", "/s", "session", "show", "a"
            ])),
            Some(PathBuf::from("/s"))
        );
        assert_eq!(
            dir_on_the_line(words(&["cru", "--dir=/t", "session"])),
            Some(PathBuf::from("/t"))
        );
    }
}
