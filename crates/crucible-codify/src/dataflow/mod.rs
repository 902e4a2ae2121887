//! Which files a tool call reads and writes, from its tool name and
//! arguments (the rules are in `docs/codify.md`).
//!
//! Tool names are matched without case and without `_`/`-` (`read_file`,
//! `Read`, `readFile` are one tool), covering the vocabularies of the agents
//! cru imports (Claude Code, Codex, Gemini CLI, OpenCode, ConnectOnion) and
//! common MCP servers. Arguments are read in whatever shape the source gave
//! them ([`arguments`]); shell command lines are lexed ([`shell_lex`]) and
//! read for redirections and well-known commands ([`shell`]). An unknown
//! tool reads and writes nothing here (it still shows in the step's notes).

mod arguments;
mod patch;
mod shell;
mod shell_lex;

use arguments::Arguments;

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

/// `r PATH` or `w PATH`: one access per line in tests and debug output.
impl std::fmt::Display for FileAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.access {
            Access::Read => "r",
            Access::Write => "w",
        };
        write!(f, "{kind} {}", self.path)
    }
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

/// The kind of the tool named `tool`. MCP tools (`mcp__server__read_file`)
/// are known by their last part.
pub fn tool_kind(tool: &str) -> ToolKind {
    let last = tool.rsplit("__").next().unwrap_or(tool);
    let t: String = last
        .chars()
        .filter(|c| c.is_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    match t.as_str() {
        "read" | "readfile" | "view" | "viewfile" | "cat" | "open" | "openfile" | "getfile"
        | "notebookread" | "head" | "tail" | "less" | "fetchfile" | "readmanyfiles"
        | "readtextfile" => ToolKind::Read,
        "write" | "writefile" | "create" | "createfile" | "save" | "savefile" | "touch"
        | "writetextfile" => ToolKind::Write,
        "edit"
        | "editfile"
        | "multiedit"
        | "strreplace"
        | "strreplaceeditor"
        | "strreplacebasededittool"
        | "replace"
        | "insert"
        | "notebookedit"
        | "updatefile"
        | "append"
        | "appendfile"
        | "modifyfile" => ToolKind::Edit,
        "applypatch" | "patch" => ToolKind::Patch,
        "grep" | "rg" | "ripgrep" | "search" | "searchfiles" | "glob" | "find" | "ls" | "list"
        | "listdir" | "listdirectory" | "listfiles" | "tree" | "codesearch"
        | "searchfilecontent" => ToolKind::Search,
        "bash" | "shell" | "sh" | "zsh" | "run" | "exec" | "execute" | "terminal" | "command"
        | "runcommand" | "localshell" | "execcommand" | "cmd" | "powershell"
        | "runshellcommand" | "runterminalcmd" | "shellcommand" => ToolKind::Shell,
        _ => ToolKind::Unknown,
    }
}

/// The files `tool` reads and writes, in order, from its arguments as the
/// markdown line has them.
pub fn accesses(tool: &str, args: &str) -> Vec<FileAccess> {
    of(tool_kind(tool), &Arguments::from_text(args))
}

/// The same from the call's arguments as the source gave them (a sidecar's
/// JSON), which the markdown line may have cut short.
pub fn accesses_of_arguments(tool: &str, arguments: &serde_json::Value) -> Vec<FileAccess> {
    of(tool_kind(tool), &Arguments::from_json(arguments))
}

fn of(kind: ToolKind, a: &Arguments) -> Vec<FileAccess> {
    let read = |p: String| FileAccess {
        path: p,
        access: Access::Read,
    };
    let write = |p: String| FileAccess {
        path: p,
        access: Access::Write,
    };
    match kind {
        ToolKind::Read => a.path().map(read).into_iter().collect(),
        ToolKind::Write => a.path().map(write).into_iter().collect(),
        ToolKind::Edit => a
            .path()
            .map(|p| vec![read(p.clone()), write(p)])
            .unwrap_or_default(),
        ToolKind::Search => match a.search_path() {
            Some(p) => vec![read(p)],
            None => search_paths(&a.words).into_iter().map(read).collect(),
        },
        ToolKind::Patch => patch_accesses(a),
        ToolKind::Shell => shell::accesses(&a.command_line()),
        ToolKind::Unknown => Vec::new(),
    }
}

fn patch_accesses(a: &Arguments) -> Vec<FileAccess> {
    let mut changes: Vec<(String, patch::Change)> = a
        .changes()
        .into_iter()
        .filter_map(|(p, kind)| {
            let change = match kind.as_str() {
                "add" => patch::Change::Add,
                "delete" => patch::Change::Delete,
                _ => patch::Change::Update,
            };
            Some((as_path(&p)?, change))
        })
        .collect();
    if changes.is_empty() {
        changes = patch::paths(a.patch_text())
            .into_iter()
            .map(|p| (p.path, p.change))
            .collect();
    }
    if changes.is_empty() {
        // `patch src/a.rs`: a tool named patch with a file.
        changes.extend(a.path().map(|p| (p, patch::Change::Update)));
    }
    changes
        .into_iter()
        .flat_map(|(path, change)| {
            let w = FileAccess {
                path: path.clone(),
                access: Access::Write,
            };
            if change == patch::Change::Add {
                vec![w]
            } else {
                vec![
                    FileAccess {
                        path,
                        access: Access::Read,
                    },
                    w,
                ]
            }
        })
        .collect()
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
        || w.contains(char::is_whitespace)
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
    // Names like `Makefile`, `Dockerfile`: known files without extension;
    // dotfiles (`.gitignore`, `.python-version`).
    let known = matches!(
        w,
        "Makefile" | "Dockerfile" | "Justfile" | "LICENSE" | "README"
    ) || w
        .strip_prefix('.')
        .is_some_and(|name| name.starts_with(|c: char| c.is_ascii_alphabetic()));
    // `main..HEAD`, `v1...v2`: a git range, not a file.
    let range = !w.contains('/') && w.contains("..");
    (!range && (has_slash || ext || known)).then(|| w.to_owned())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn show(tool: &str, args: &str) -> Vec<String> {
        accesses(tool, args)
            .iter()
            .map(ToString::to_string)
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
    fn shell_lines_as_agents_write_them() {
        // The issue's example, phase by phase.
        assert_eq!(show("bash", "sh -c 'cargo test 2> out.txt'"), ["w out.txt"]);
        assert_eq!(
            show("Bash", "cat out.txt && sed -i 's/a|b/c/' src/parser.rs"),
            ["r out.txt", "r src/parser.rs", "w src/parser.rs"]
        );
        assert_eq!(
            show("bash", "grep -n 'fn parse' src/parser.rs | head -5"),
            ["r src/parser.rs"]
        );
        assert_eq!(
            show("shell", "cd /repo && sed -n '1,200p' 'src/app/(a)/x.ts'"),
            ["r src/app/(a)/x.ts"]
        );
        assert_eq!(
            show(
                "exec_command",
                r#"{"cmd": "rg -n TODO src/lib.rs", "yield_time_ms": 1000}"#
            ),
            ["r src/lib.rs"]
        );
        assert_eq!(
            show(
                "bash",
                "cp a.txt b.txt; mv b.txt c/d.txt; rm e.log; touch f.md"
            ),
            [
                "r a.txt",
                "w b.txt",
                "r b.txt",
                "w c/d.txt",
                "w e.log",
                "w f.md"
            ]
        );
        assert_eq!(
            show("bash", "make 2>&1 | tee build.log; cat <in.csv >>out.csv"),
            ["w build.log", "r in.csv", "w out.csv"]
        );
        assert_eq!(
            show(
                "bash",
                "git add src/a.rs docs/b.md && git commit -m 'fix parser.rs'"
            ),
            ["r src/a.rs", "r docs/b.md"]
        );
        assert_eq!(
            show(
                "bash",
                "git checkout -- src/a.rs; git apply fix.patch; git diff src/b.rs"
            ),
            ["w src/a.rs", "r fix.patch", "r src/b.rs"]
        );
        assert_eq!(show("bash", "patch -p1 < fix.diff"), ["r fix.diff"]);
        assert_eq!(
            show("bash", "cargo build --release && npm test"),
            Vec::<String>::new()
        );
        assert_eq!(show("bash", "gcc main.c -o app.bin"), ["w app.bin"]);
        assert_eq!(
            show("bash", "cat > notes.md <<'EOF'⏎cat secret.txt⏎EOF"),
            ["w notes.md"]
        );
    }

    #[test]
    fn codex_arrays_and_connectonion_keywords() {
        let json = serde_json::json!({"command": ["bash", "-lc", "sed -i 's/x/y/' go.mod"], "workdir": "."});
        let got: Vec<String> = accesses_of_arguments("shell", &json)
            .into_iter()
            .map(|a| a.path)
            .collect();
        assert_eq!(got, ["go.mod", "go.mod"]);
        assert_eq!(
            show("run", "command='pytest tests/test_a.py'"),
            ["r tests/test_a.py"]
        );
        assert_eq!(
            show(
                "write",
                "path='hello.py', content='print(\"Hello, World!\")'"
            ),
            ["w hello.py"]
        );
        assert_eq!(show("grep", "pattern='TODO', path='src/'"), ["r src/"]);
        let heredoc = "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: a/b.ts\n@@\n-x\n+y\n*** End Patch\nPATCH";
        assert_eq!(show("bash", heredoc), ["r a/b.ts", "w a/b.ts"]);
        let changes = serde_json::json!({"changes": [{"path": "hello.txt", "kind": "add"}]});
        assert_eq!(accesses_of_arguments("apply_patch", &changes).len(), 1);
        assert_eq!(
            show("mcp__filesystem__read_file", r#"{"path": "docs/a.md"}"#),
            ["r docs/a.md"]
        );
        assert_eq!(
            show("run_shell_command", r#"{"command": "cat x.txt"}"#),
            ["r x.txt"]
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
            "master..HEAD",
        ] {
            assert_eq!(as_path(w), None, "{w}");
        }
        assert_eq!(as_path("Cargo.toml").as_deref(), Some("Cargo.toml"));
        assert_eq!(as_path("src/").as_deref(), Some("src/"));
        assert_eq!(as_path(".gitignore").as_deref(), Some(".gitignore"));
    }
}
