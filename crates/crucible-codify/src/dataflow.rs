//! Which files a tool call reads and writes, from its tool name and
//! arguments (the rules are in `docs/codify.md`).
//!
//! Tool names are matched without case and without `_`/`-` (`read_file`,
//! `Read`, `readFile` are one tool), covering what common agents log:
//! read/view/cat, write/create/edit/MultiEdit/str_replace/apply_patch,
//! grep/rg/glob/find/ls, and shell tools (bash, shell, run, exec) whose
//! command line is read for redirections and well-known commands. An unknown
//! tool reads and writes nothing here (it still shows in the step's prose).

/// Whether a path was read or written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// One file a tool call touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileAccess {
    pub path: String,
    pub access: Access,
}

/// What kind of tool a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    Read,
    /// Writes a file whole (its old content does not matter).
    Write,
    /// Changes a file in place: reads it, then writes it.
    Edit,
    Search,
    Shell,
    Patch,
    Unknown,
}

/// The kind of the tool named `tool`.
pub fn tool_kind(tool: &str) -> ToolKind {
    let t: String = tool
        .chars()
        .filter(|c| c.is_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    match t.as_str() {
        "read" | "readfile" | "view" | "viewfile" | "cat" | "open" | "openfile" | "getfile"
        | "notebookread" | "head" | "tail" | "less" | "fetchfile" => ToolKind::Read,
        "write" | "writefile" | "create" | "createfile" | "save" | "savefile" | "touch" => {
            ToolKind::Write
        }
        "edit" | "editfile" | "multiedit" | "strreplace" | "strreplaceeditor" | "replace"
        | "insert" | "notebookedit" | "updatefile" | "append" => ToolKind::Edit,
        "applypatch" | "patch" => ToolKind::Patch,
        "grep" | "rg" | "ripgrep" | "search" | "searchfiles" | "glob" | "find" | "ls" | "list"
        | "listdir" | "listdirectory" | "listfiles" | "tree" | "codesearch" => ToolKind::Search,
        "bash" | "shell" | "sh" | "zsh" | "run" | "exec" | "execute" | "terminal" | "command"
        | "runcommand" | "localshell" | "execcommand" | "cmd" | "powershell" => ToolKind::Shell,
        _ => ToolKind::Unknown,
    }
}

/// The files `tool` with `args` reads and writes, in order.
pub fn accesses(tool: &str, args: &str) -> Vec<FileAccess> {
    let read = |p: String| FileAccess {
        path: p,
        access: Access::Read,
    };
    let write = |p: String| FileAccess {
        path: p,
        access: Access::Write,
    };
    match tool_kind(tool) {
        ToolKind::Read => first_path(&words(args)).map(read).into_iter().collect(),
        ToolKind::Write => first_path(&words(args)).map(write).into_iter().collect(),
        ToolKind::Edit => first_path(&words(args))
            .map(|p| vec![read(p.clone()), write(p)])
            .unwrap_or_default(),
        ToolKind::Search => search_paths(&words(args)).into_iter().map(read).collect(),
        ToolKind::Patch => patch_paths(args)
            .into_iter()
            .flat_map(|(p, added)| {
                let w = write(p.clone());
                if added { vec![w] } else { vec![read(p), w] }
            })
            .collect(),
        ToolKind::Shell => shell(args),
        ToolKind::Unknown => Vec::new(),
    }
}

/// Whitespace-separated words, with simple quotes removed.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() || c == '⏎' => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            None => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A word that names a file or directory: relative or absolute, with a `/`
/// or a file extension; not an option, a URL, a glob or a variable.
pub fn as_path(word: &str) -> Option<String> {
    let w = word.trim_matches(|c: char| matches!(c, ',' | ';' | ')' | '(' | '`'));
    let w = w.strip_prefix("./").unwrap_or(w);
    // `src/lib.rs:42` or `src/lib.rs:42:7`: the file.
    let w = match w.split_once(':') {
        Some((p, rest))
            if rest
                .split(':')
                .all(|n| n.chars().all(|c| c.is_ascii_digit())) =>
        {
            p
        }
        _ => w,
    };
    if w.is_empty()
        || w.starts_with('-')
        || w.contains("://")
        || w.contains([
            '*', '?', '$', '{', '}', '<', '>', '|', '=', '[', ']', '"', '\'',
        ])
    {
        return None;
    }
    let has_slash = w.contains('/') && w.chars().any(char::is_alphanumeric);
    let ext = w.rsplit_once('.').is_some_and(|(stem, e)| {
        !stem.is_empty()
            && !e.is_empty()
            && e.len() <= 8
            && e.chars().all(|c| c.is_ascii_alphanumeric())
            && e.chars().any(|c| c.is_ascii_alphabetic())
    });
    // Names like `Makefile`, `Dockerfile`: known files without extension.
    let known = matches!(
        w,
        "Makefile" | "Dockerfile" | "Justfile" | "LICENSE" | "README"
    );
    (has_slash || ext || known).then(|| w.to_owned())
}

fn first_path(words: &[String]) -> Option<String> {
    words.iter().find_map(|w| as_path(w))
}

/// grep/rg take a pattern first: the paths are the positional words after
/// it. glob/find/ls take paths only.
fn search_paths(words: &[String]) -> Vec<String> {
    let positional: Vec<&String> = words.iter().filter(|w| !w.starts_with('-')).collect();
    let skip = usize::from(positional.len() > 1);
    positional
        .into_iter()
        .skip(skip)
        .filter_map(|w| as_path(w))
        .collect()
}

/// `*** Add File: p`, `*** Update File: p` (Codex's apply_patch), and
/// `+++ b/p` (a unified diff).
/// Each path a patch touches, and whether the patch creates it.
fn patch_paths(args: &str) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    for line in args.split(['\n', '⏎']) {
        let l = line.trim();
        let found = [
            ("*** Add File:", true),
            ("*** Move to:", true),
            ("*** Update File:", false),
            ("+++ b/", false),
        ]
        .iter()
        .find_map(|(m, added)| l.strip_prefix(m).map(|p| (p.trim(), *added)));
        if let Some((p, added)) = found
            && let Some(p) = as_path(p)
            && !out.iter().any(|(q, _)| *q == p)
        {
            out.push((p, added));
        }
    }
    if out.is_empty() {
        out.extend(first_path(&words(args)).map(|p| (p, false)));
    }
    out
}

/// Commands whose path arguments are read.
const READING_COMMANDS: &[&str] = &[
    "cat", "head", "tail", "less", "more", "wc", "diff", "cmp", "grep", "rg", "ag", "sort", "uniq",
    "jq", "yq", "bat", "source", ".", "python", "python3", "node", "ruby", "perl", "pytest",
    "bash", "sh",
];

/// A shell command line: each simple command of `&&`, `||`, `;` and `|`
/// chains, its redirections (`>`, `>>`: written; `<`: read), `tee`, `touch`,
/// `cp`/`mv` (source read, target written), `sed -i` (written), and the
/// path arguments of reading commands.
fn shell(cmdline: &str) -> Vec<FileAccess> {
    let mut out: Vec<FileAccess> = Vec::new();
    let mut push = |path: Option<String>, access: Access| {
        if let Some(path) = path
            && !out.iter().any(|a| a.path == path && a.access == access)
        {
            out.push(FileAccess { path, access });
        }
    };
    let normalized = cmdline
        .replace("&&", ";")
        .replace("||", ";")
        .replace('|', ";");
    for part in normalized.split([';', '⏎', '\n']) {
        let ws = words(part);
        let mut args: Vec<&str> = Vec::new();
        let mut i = 0;
        while i < ws.len() {
            let w = ws[i].as_str();
            if let Some(target) = w.strip_prefix(">>").or_else(|| w.strip_prefix('>')) {
                let target = if target.is_empty() {
                    i += 1;
                    ws.get(i).map(String::as_str).unwrap_or("")
                } else {
                    target
                };
                if !target.starts_with('&') && target != "/dev/null" {
                    push(as_path(target), Access::Write);
                }
            } else if let Some(src) = w.strip_prefix('<') {
                let src = if src.is_empty() {
                    i += 1;
                    ws.get(i).map(String::as_str).unwrap_or("")
                } else {
                    src
                };
                push(as_path(src), Access::Read);
            } else if w == "2>&1" || w.starts_with("2>") {
            } else {
                args.push(w);
            }
            i += 1;
        }
        let Some((&cmd, rest)) = args.split_first() else {
            continue;
        };
        let cmd = cmd.rsplit('/').next().unwrap_or(cmd);
        let paths: Vec<String> = rest.iter().filter_map(|w| as_path(w)).collect();
        match cmd {
            "tee" | "touch" => paths.into_iter().for_each(|p| push(Some(p), Access::Write)),
            "cp" | "mv" | "install" => {
                if let Some((last, sources)) = paths.split_last() {
                    for s in sources {
                        push(Some(s.clone()), Access::Read);
                    }
                    push(Some(last.clone()), Access::Write);
                }
            }
            "sed" if rest.iter().any(|w| w.starts_with("-i")) => {
                // The first word that is not an option is the script.
                let files: Vec<String> = rest
                    .iter()
                    .filter(|w| !w.starts_with('-'))
                    .skip(1)
                    .filter_map(|w| as_path(w))
                    .collect();
                for p in files {
                    push(Some(p.clone()), Access::Read);
                    push(Some(p), Access::Write);
                }
            }
            "grep" | "rg" | "ag" => {
                let owned: Vec<String> = rest.iter().map(|s| (*s).to_owned()).collect();
                search_paths(&owned)
                    .into_iter()
                    .for_each(|p| push(Some(p), Access::Read));
            }
            c if READING_COMMANDS.contains(&c) => {
                paths.into_iter().for_each(|p| push(Some(p), Access::Read));
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(tool: &str, args: &str) -> Vec<String> {
        accesses(tool, args)
            .into_iter()
            .map(|a| {
                let k = match a.access {
                    Access::Read => "r",
                    Access::Write => "w",
                };
                format!("{k} {}", a.path)
            })
            .collect()
    }

    #[test]
    fn file_tools_of_common_agents() {
        assert_eq!(
            show("read", "crates/core/src/lib.rs"),
            ["r crates/core/src/lib.rs"]
        );
        assert_eq!(show("Read", "./README.md"), ["r README.md"]);
        assert_eq!(show("read_file", "src/a.py:10"), ["r src/a.py"]);
        assert_eq!(show("Write", "src/new.rs"), ["w src/new.rs"]);
        assert_eq!(show("MultiEdit", "src/x.ts"), ["r src/x.ts", "w src/x.ts"]);
        assert_eq!(
            show("str_replace", "src/x.ts old new"),
            ["r src/x.ts", "w src/x.ts"]
        );
        assert_eq!(show("web_search", "\"agent logs\""), Vec::<String>::new());
        assert_eq!(show("psql", "-f step01.sql"), Vec::<String>::new());
    }

    #[test]
    fn search_tools_skip_the_pattern() {
        assert_eq!(
            show("grep", "-n \"exists()\" crates/core/src/store/"),
            ["r crates/core/src/store/"]
        );
        assert_eq!(show("grep", "\"session\" crates/"), ["r crates/"]);
        assert_eq!(show("Glob", "src/"), ["r src/"]);
        assert_eq!(show("grep", "TODO"), Vec::<String>::new());
    }

    #[test]
    fn shell_commands() {
        assert_eq!(
            show("bash", "cargo test -p crucible-core"),
            Vec::<String>::new()
        );
        assert_eq!(
            show("bash", "cat a/in.txt | sort > out/sorted.txt"),
            ["r a/in.txt", "w out/sorted.txt"]
        );
        assert_eq!(
            show("shell", "cp src/a.rs src/b.rs && sed -i s/x/y/ src/c.rs"),
            ["r src/a.rs", "w src/b.rs", "r src/c.rs", "w src/c.rs"]
        );
        assert_eq!(show("bash", "echo hi >> notes.md 2>&1"), ["w notes.md"]);
        assert_eq!(
            show("bash", "python3 scripts/gen.py < data/in.csv > /dev/null"),
            ["r data/in.csv", "r scripts/gen.py"]
        );
    }

    #[test]
    fn patches() {
        assert_eq!(
            show(
                "apply_patch",
                "*** Begin Patch⏎*** Update File: src/main.rs⏎@@⏎-a⏎+b⏎*** Add File: src/new.rs⏎*** End Patch"
            ),
            ["r src/main.rs", "w src/main.rs", "w src/new.rs"]
        );
    }

    #[test]
    fn what_is_not_a_path() {
        for w in [
            "-n",
            "https://x.io/a.md",
            "src/*.rs",
            "$HOME/x",
            "1.5",
            "v2",
            "...",
        ] {
            assert_eq!(as_path(w), None, "{w}");
        }
        assert_eq!(as_path("Cargo.toml").as_deref(), Some("Cargo.toml"));
        assert_eq!(as_path("src/").as_deref(), Some("src/"));
    }
}
