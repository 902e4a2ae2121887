//! What `--format json` (and `--format toon`) prints: one object per
//! command, `{"version": 1, ...}`, in the schema docs/json.md documents.
//!
//! Each command's object is built from structs made for output, never by
//! serializing a library's own types: those change with the index format
//! or the parser, and a script reading cru's output must not. A library
//! may own an output shape when it is the one that knows the data (the
//! index's `SessionView`, `StatsRow`): then that struct is made for output
//! too, apart from how the library keeps its data.

pub mod created;
pub mod index;
pub mod list;
pub mod show;
pub mod stats;
pub mod validate;

use serde::Serialize;

/// The schema version every JSON answer carries. Raised only when a field
/// changes meaning or goes away; new fields do not raise it.
pub const VERSION: u32 = 1;

/// `{"version": 1, ...body}`.
#[derive(Debug, Serialize)]
pub struct Versioned<'a, T: Serialize> {
    pub version: u32,
    #[serde(flatten)]
    pub body: &'a T,
}

impl<'a, T: Serialize> Versioned<'a, T> {
    pub fn new(body: &'a T) -> Self {
        Self {
            version: VERSION,
            body,
        }
    }
}

/// Prints `body` as `{"version": 1, ...}` in pretty JSON on stdout.
pub fn print_json(body: &impl Serialize) -> anyhow::Result<()> {
    super::print_json(&Versioned::new(body))
}

/// `body` as `{"version": 1, ...}`: what `print_json` prints, as a value
/// (`cru mcp` answers with it).
pub fn to_json(body: &impl Serialize) -> serde_json::Result<serde_json::Value> {
    // Through the text, not `to_value`: a value keeps an `f32` (a search
    // score) as the `f64` nearest to it, 2.770374059677124, where the
    // printed JSON says 2.770374; the answers must be the same numbers.
    serde_json::from_str(&serde_json::to_string(&Versioned::new(body))?)
}

/// Prints `body` as `{"version": 1, ...}` in TOON on stdout: the same
/// fields as the JSON.
pub fn print_toon(body: &impl Serialize) -> anyhow::Result<()> {
    super::print_toon(&serde_json::to_value(Versioned::new(body))?)
}

/// A session file a listing could not read, so left out of its answer.
#[derive(Debug, Serialize)]
pub struct SkippedFile {
    /// Relative to the sessions directory.
    pub path: String,
    /// The line of the problem; `null` when the file could not be read at all.
    pub line: Option<u64>,
    pub message: String,
}

impl From<&crucible_index::Problem> for SkippedFile {
    fn from(p: &crucible_index::Problem) -> Self {
        Self {
            path: p.path.clone(),
            line: (p.line > 0).then_some(p.line),
            message: p.message.clone(),
        }
    }
}

/// A session id declared by more than one file.
#[derive(Debug, Serialize)]
pub struct DuplicateId {
    pub id: String,
    /// Relative to the sessions directory.
    pub paths: Vec<String>,
}

impl SkippedFile {
    /// Every file a listing left out, as answers carry them.
    pub fn all(problems: &[crucible_index::Problem]) -> Vec<Self> {
        problems.iter().map(Self::from).collect()
    }
}

impl DuplicateId {
    /// Every id more than one file declares, as answers carry them.
    pub fn all(duplicates: &[crucible_index::Duplicate]) -> Vec<Self> {
        duplicates.iter().cloned().map(Self::from).collect()
    }
}

impl From<crucible_index::Duplicate> for DuplicateId {
    fn from(d: crucible_index::Duplicate) -> Self {
        Self {
            id: d.id,
            paths: d.paths,
        }
    }
}
