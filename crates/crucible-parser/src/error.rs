//! What can be wrong with a session file, and where.

use std::fmt;
use std::path::PathBuf;

/// A problem that makes a session file invalid: the file, the line (counted
/// in the whole file, frontmatter included, from 1) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}: {kind}", path.display())]
pub struct ParseError {
    pub path: PathBuf,
    pub line: usize,
    pub kind: ParseErrorKind,
}

/// The classes of invalid session files.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    #[error("file is not valid UTF-8 (first bad byte at column {column})")]
    NotUtf8 { column: usize },
    #[error("no frontmatter (expected a `---` line opening YAML frontmatter on line 1)")]
    MissingFrontmatter,
    #[error("frontmatter opened on line 1 is never closed (expected a `---` line)")]
    UnclosedFrontmatter,
    #[error("invalid YAML in frontmatter: {message}")]
    InvalidYaml { message: String },
    #[error("frontmatter must be a mapping of keys to values, found {found}")]
    FrontmatterNotMapping { found: String },
    #[error("`type` is `{found}`, expected `session`")]
    NotASession { found: String },
    #[error("missing required frontmatter field `{field}`")]
    MissingField { field: &'static str },
    #[error("`{field}` should be {expected}, found {found}")]
    WrongType {
        field: String,
        expected: &'static str,
        found: String,
    },
    #[error("{0}")]
    UnknownStatus(#[from] crucible_core::UnknownStatus),
    #[error("`{field}`: {message}")]
    InvalidValue { field: String, message: String },
    #[error("bad `tasks` block: {message}")]
    BadTasks { message: String },
    #[error("{0}")]
    Subagent(#[from] crucible_core::SubagentError),
    #[error("resume_point `{point}` names no phase (the session has {phases})")]
    ResumePointOutOfRange { point: String, phases: usize },
}

/// Something that does not make the file invalid but that a reader should
/// know: an odd construct kept as prose, a link that points nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub path: PathBuf,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

/// A short description of a YAML value's type, for "found ..." messages.
pub(crate) fn describe_yaml(v: &serde_yaml::Value) -> String {
    use serde_yaml::Value;
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean `{b}`"),
        Value::Number(n) => format!("the number `{n}`"),
        Value::String(s) => format!("the string `{s}`"),
        Value::Sequence(_) => "a list".into(),
        Value::Mapping(_) => "a mapping".into(),
        Value::Tagged(t) => format!("a value tagged `{}`", t.tag),
    }
}
