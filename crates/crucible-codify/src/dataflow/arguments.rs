//! A tool call's arguments however the source wrote them: a JSON object
//! (sidecars, OpenAI messages), Claude Code's markdown line (`/path
//! {"old_string": ...}`), ConnectOnion's keywords (`path='hello.py',
//! content='...'`), Codex's command arrays (`["bash", "-lc", "..."]`), or
//! plain words.

use serde_json::{Map, Value};

/// The fields that name the file a tool works on, by agent.
const PATH_KEYS: &[&str] = &[
    "file_path",     // Claude Code, Gemini CLI
    "filePath",      // OpenCode
    "notebook_path", // Claude Code's NotebookEdit
    "absolute_path", // Gemini CLI's read_file
    "path",          // Grep, Glob, ConnectOnion, many MCP servers
    "file",
    "filename",
    "target_file",
    "dir_path",
];

/// The fields that hold a shell command.
const COMMAND_KEYS: &[&str] = &["command", "cmd", "script", "commands"];

/// The fields that hold a patch.
const PATCH_KEYS: &[&str] = &["input", "patch", "diff"];

#[derive(Debug, Default)]
pub(super) struct Arguments {
    pub named: Map<String, Value>,
    /// Positional words (quotes removed).
    pub words: Vec<String>,
    /// The text as written, when it was text.
    pub text: String,
}

impl Arguments {
    pub fn from_text(text: &str) -> Self {
        let t = text.trim();
        if (t.starts_with('{') || t.starts_with('['))
            && let Ok(v) = serde_json::from_str::<Value>(t)
        {
            return Self::from_json(&v);
        }
        if let Some(named) = keywords(t) {
            return Self {
                named,
                words: Vec::new(),
                text: text.to_owned(),
            };
        }
        // `/path/to/file {"old_string": ...}`: words, then a JSON object
        // (cut short in the markdown, so it may not parse).
        let (head, tail) = match t.find(" {\"") {
            Some(i) => (&t[..i], Some(&t[i + 1..])),
            None => (t, None),
        };
        let named = tail
            .and_then(|j| serde_json::from_str::<Map<String, Value>>(j).ok())
            .unwrap_or_default();
        Self {
            named,
            words: words(head),
            text: text.to_owned(),
        }
    }

    pub fn from_json(v: &Value) -> Self {
        match v {
            Value::Object(m) => Self {
                named: m.clone(),
                ..Self::default()
            },
            Value::Array(_) => {
                let mut named = Map::new();
                named.insert("command".into(), v.clone());
                Self {
                    named,
                    ..Self::default()
                }
            }
            Value::String(s) => Self::from_text(s),
            _ => Self::default(),
        }
    }

    fn string(&self, keys: &[&str]) -> Option<&str> {
        keys.iter().find_map(|k| self.named.get(*k)?.as_str())
    }

    /// The file the call names: a path field, else the first word that is
    /// a path.
    pub fn path(&self) -> Option<String> {
        self.string(PATH_KEYS)
            .and_then(super::as_path)
            .or_else(|| self.words.iter().find_map(|w| super::as_path(w)))
    }

    /// A search's path field (`Grep`'s `path`), when it has one.
    pub fn search_path(&self) -> Option<String> {
        self.string(PATH_KEYS).and_then(super::as_path)
    }

    /// The shell command line: a command field (a string, or an argument
    /// array whose `sh -c` script is taken, else joined), else the text.
    pub fn command_line(&self) -> String {
        for k in COMMAND_KEYS {
            match self.named.get(*k) {
                Some(Value::String(s)) => return s.clone(),
                Some(Value::Array(a)) => {
                    let argv: Vec<&str> = a.iter().filter_map(Value::as_str).collect();
                    return argv_line(&argv);
                }
                _ => {}
            }
        }
        self.text.clone()
    }

    /// The patch text: a patch field, else the text.
    pub fn patch_text(&self) -> &str {
        self.string(PATCH_KEYS).unwrap_or(&self.text)
    }

    /// Codex's structured patch: `{"changes": [{"path", "kind": "add"}]}`.
    pub fn changes(&self) -> Vec<(String, String)> {
        let Some(Value::Array(list)) = self.named.get("changes") else {
            return Vec::new();
        };
        list.iter()
            .filter_map(|c| {
                let path = c.get("path")?.as_str()?.to_owned();
                let kind = c.get("kind").and_then(Value::as_str).unwrap_or("update");
                Some((path, kind.to_owned()))
            })
            .collect()
    }
}

/// An argument array as one command line: `["bash", "-lc", "s"]` is `s`;
/// any other is its words, quoted where they need it.
fn argv_line(argv: &[&str]) -> String {
    if let [shell, flag, script, ..] = argv
        && ["sh", "bash", "zsh", "dash"].contains(&shell.rsplit('/').next().unwrap_or(shell))
        && flag.starts_with('-')
        && flag.contains('c')
    {
        return (*script).to_owned();
    }
    shell_words::join(argv)
}

/// `command='ls -la'`, `path='hello.py', content='print(1)'`: Python
/// keyword arguments as ConnectOnion writes a call. `None` when `text` is
/// not such a list.
fn keywords(text: &str) -> Option<Map<String, Value>> {
    let mut out = Map::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    loop {
        while chars.get(i).is_some_and(|c| c.is_whitespace() || *c == ',') {
            i += 1;
        }
        if i >= chars.len() {
            break;
        }
        let start = i;
        while chars
            .get(i)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
        {
            i += 1;
        }
        if i == start || chars.get(i) != Some(&'=') || chars[start].is_ascii_digit() {
            return None;
        }
        let key: String = chars[start..i].iter().collect();
        i += 1;
        let mut value = String::new();
        if let Some(&q @ ('\'' | '"')) = chars.get(i) {
            i += 1;
            while let Some(&c) = chars.get(i) {
                i += 1;
                match c {
                    '\\' => {
                        if let Some(&n) = chars.get(i) {
                            value.push(match n {
                                'n' => '\n',
                                't' => '\t',
                                other => other,
                            });
                            i += 1;
                        }
                    }
                    c if c == q => break,
                    c => value.push(c),
                }
            }
        } else {
            while let Some(&c) = chars.get(i).filter(|c| **c != ',') {
                value.push(c);
                i += 1;
            }
            // `FOO=1 make` is a command line, not keywords.
            if value.trim().contains(char::is_whitespace) {
                return None;
            }
        }
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        if chars.get(i).is_some_and(|c| *c != ',') {
            return None;
        }
        out.insert(key, Value::String(value.trim().to_owned()));
    }
    (!out.is_empty()).then_some(out)
}

/// Whitespace-separated words, with simple quotes removed.
pub(super) fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => quote = None,
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
            // Inside quotes, or a plain character.
            Some(_) | None => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_of_arguments() {
        let a = Arguments::from_text(r#"/repo/src/a.rs {"old_string":"x","new_string":"y"}"#);
        assert_eq!(a.path().as_deref(), Some("/repo/src/a.rs"));
        let a = Arguments::from_text("path='hello.py', content='print(\"hi, there\")'");
        assert_eq!(a.path().as_deref(), Some("hello.py"));
        assert_eq!(a.named["content"], "print(\"hi, there\")");
        let a = Arguments::from_text("command='ls -la'");
        assert_eq!(a.command_line(), "ls -la");
        let a = Arguments::from_json(&serde_json::json!({"command": ["bash", "-lc", "cat a.txt"]}));
        assert_eq!(a.command_line(), "cat a.txt");
        let a = Arguments::from_json(&serde_json::json!({"cmd": "rg x src/"}));
        assert_eq!(a.command_line(), "rg x src/");
        let a = Arguments::from_json(&serde_json::json!(["git", "add", "my file.rs"]));
        assert_eq!(a.command_line(), "git add 'my file.rs'");
        // A JSON object as a string (ConnectOnion's message arguments).
        let a = Arguments::from_json(&Value::String(r#"{"path": "x.md"}"#.into()));
        assert_eq!(a.path().as_deref(), Some("x.md"));
        // Not keywords: a command line with an assignment in it.
        assert!(keywords("FOO=1 make").is_none());
        assert!(keywords("a=1, b=2").is_some());
    }
}
