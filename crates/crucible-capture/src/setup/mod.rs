//! The agents' own settings that run cru's hooks, edited in place: only
//! cru's entries are added, changed or taken out; every other key, hook and
//! comment stays as it was, in its order. These functions take the file's
//! text and give the new text; the caller reads, backs up and writes.

pub mod claude_settings;
pub mod codex_config;

use std::path::Path;

/// The result of an edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// The file already says what it should: nothing to write.
    Unchanged,
    /// The file's new text.
    Changed(String),
}

/// True for a program path that is a cru binary (`…/cru`, quoted or not).
pub(crate) fn is_cru_program(program: &str) -> bool {
    let p = program.trim().trim_matches(['\'', '"']);
    Path::new(p).file_name().is_some_and(|n| n == "cru")
}

/// `program` as one shell word: as it is when it needs no quoting, else in
/// single quotes (Claude Code runs a hook's command through a shell).
pub fn shell_word(program: &str) -> String {
    let plain = !program.is_empty()
        && program
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@%".contains(&b));
    if plain {
        program.to_owned()
    } else {
        format!("'{}'", program.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_quoted_only_when_they_must_be() {
        assert_eq!(shell_word("/usr/bin/cru"), "/usr/bin/cru");
        assert_eq!(shell_word("/My Apps/cru"), "'/My Apps/cru'");
        assert_eq!(shell_word("/a'b/cru"), r"'/a'\''b/cru'");
        assert!(is_cru_program("'/My Apps/cru'"));
        assert!(is_cru_program("/usr/local/bin/cru"));
        assert!(!is_cru_program("/usr/bin/crux"));
    }
}
