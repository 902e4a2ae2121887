//! The agents' own settings that run cru's hooks, edited in place: only
//! cru's entries are added, changed or taken out; every other key, hook and
//! comment stays as it was, in its order. These functions take the file's
//! text and give the new text; the caller reads, backs up and writes.

pub mod claude_settings;
pub mod codex_config;
mod json_edit;
mod json_text;
pub mod mcp_servers;

/// The result of an edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// The file already says what it should: nothing to write.
    Unchanged,
    /// The file's new text.
    Changed(String),
}

/// The words of cru's hook for `agent`: `<program> [--dir <dir>] hook <agent>`.
pub fn hook_words(program: &str, dir: Option<&str>, agent: &str) -> Vec<String> {
    let mut words = vec![program.to_owned()];
    if let Some(dir) = dir {
        words.extend(["--dir".to_owned(), dir.to_owned()]);
    }
    words.extend(["hook".to_owned(), agent.to_owned()]);
    words
}

/// The program of a hook that is cru's for `agent`, known by its shape:
/// `<any program> [cru's global flags] hook <agent>`. Not by the program's
/// name: cru may be installed as `cru-dev` or a packager's name, and a
/// user may have added `--dir` by hand; each is still cru's one hook.
pub(crate) fn hook_program<'a>(words: &'a [String], agent: &str) -> Option<&'a str> {
    let (program, rest) = words.split_first()?;
    let flags = rest.strip_suffix(&["hook".to_owned(), agent.to_owned()])?;
    let mut i = 0;
    while let Some(flag) = flags.get(i) {
        let is_verbose =
            flag.len() > 1 && flag.starts_with('-') && flag[1..].bytes().all(|b| b == b'v');
        i += match flag.as_str() {
            "--verbose" | "--strict" => 1,
            "--dir" if flags.len() > i + 1 => 2,
            f if f.starts_with("--dir=") || is_verbose => 1,
            _ => return None,
        };
    }
    Some(program.as_str())
}

/// `word` as one shell word: as it is when it needs no quoting, else in
/// single quotes (Claude Code runs a hook's command through a shell).
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@%=".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The words a shell makes of `command` (quotes and backslashes as a POSIX
/// shell reads them); `None` for a quote left open.
pub(crate) fn shell_split(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => w.push(c),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            c @ ('"' | '\\' | '$' | '`') => w.push(c),
                            '\n' => {}
                            c => w.extend(['\\', c]),
                        },
                        c => w.push(c),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(c) => word.get_or_insert_with(String::new).push(c),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Some(words)
}

/// `words` as one shell command line.
pub(crate) fn shell_join(words: &[String]) -> String {
    words
        .iter()
        .map(|w| shell_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        shell_split(s).unwrap()
    }

    #[test]
    fn words_are_quoted_only_when_they_must_be_and_read_back() {
        assert_eq!(shell_word("/usr/bin/cru"), "/usr/bin/cru");
        assert_eq!(shell_word("/My Apps/cru"), "'/My Apps/cru'");
        assert_eq!(shell_word("/a'b/cru"), r"'/a'\''b/cru'");
        for w in ["/My Apps/cru", "/a'b/c\"d", "/x/é cru", "$HOME"] {
            assert_eq!(words(&shell_join(&[w.to_owned(), "x".into()])), [w, "x"]);
        }
        assert_eq!(words(r#"a\ b "c\"d" e"#), ["a b", "c\"d", "e"]);
        assert!(shell_split("'open").is_none());
    }

    #[test]
    fn cru_hooks_are_known_by_their_shape_not_their_programs_name() {
        let ours = |s: &str| hook_program(&words(s), "claude-code").map(str::to_owned);
        assert_eq!(
            ours("/usr/bin/cru hook claude-code").as_deref(),
            Some("/usr/bin/cru")
        );
        assert_eq!(
            ours("'/My Apps/cru-dev' hook claude-code").as_deref(),
            Some("/My Apps/cru-dev")
        );
        assert!(ours("cru --dir /x hook claude-code").is_some());
        assert!(ours("cru --dir=/x -vv --strict hook claude-code").is_some());
        assert!(ours("cru hook codex").is_none());
        assert!(
            ours("cru --dir hook claude-code").is_none(),
            "--dir needs its value"
        );
        assert!(ours("npx other hook claude-code").is_none());
        assert!(ours("hook claude-code").is_none());
        assert!(ours("cru hook claude-code --x").is_none());
    }
}
