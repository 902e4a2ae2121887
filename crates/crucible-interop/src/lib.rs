//! Other agents' session files into cru sessions (`cru session import`).
//!
//! Each importer reads one source (a file or a folder) into a
//! [`SessionLog`] and the warnings met on the way (a damaged part is a
//! warning that names the path and line; the rest is imported). Every
//! imported session records where it came from in an `import` frontmatter
//! key ([`Provenance`]): format, path, id, a hash of the source, and a hash
//! of the session as imported, which is how a re-import tells an unchanged
//! source, a source that grew, and a session changed in cru since.
//!
//! Formats so far: OpenAI chat-completions message arrays (JSON or JSONL),
//! seed 003's `.agent/sessions/<YYYY-MM-DD-HH-MM-SS>/` folders
//! (`agent.log`, `todos.json`), seed 002's codeloops JSONL and the
//! ConnectOnion session YAML of seeds 000 and 001, Claude Code transcripts
//! and Codex rollouts.

mod agent_dir;
mod claude_code;
mod codeloops;
mod codex;
mod connectonion;
mod export;
mod messages;
mod provenance;
mod transcript;

use std::path::{Path, PathBuf};

pub use export::{EXPORT_FORMATS, ExportError, Exported, export};
pub use provenance::{KEY as PROVENANCE_KEY, Provenance, content_hash, fnv_hex};

use crucible_core::{
    AgentRef, Block, Callout, SessionLog, SubagentEntry, SubagentMode, SubagentRef,
};

/// The formats cru reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A JSON array (or JSONL) of chat-completions messages.
    OpenAiMessages,
    /// `.agent/sessions/<timestamp>/` with `agent.log` and `todos.json`.
    AgentDir,
    /// codeloops' actor-critic JSONL.
    Codeloops,
    /// ConnectOnion's `.co/sessions/<agent>.yaml`.
    ConnectOnion,
    /// Claude Code's `~/.claude/projects/<slug>/<sessionId>.jsonl`.
    ClaudeCode,
    /// Codex CLI's `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`.
    Codex,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAiMessages => "openai-messages",
            Self::AgentDir => "agent-dir",
            Self::Codeloops => "codeloops",
            Self::ConnectOnion => "connectonion",
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
        }
    }
}

/// Something damaged in a source, imported around.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportWarning {
    pub path: PathBuf,
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for ImportWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

/// A source that cannot be imported at all.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{path}: cannot be read: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a format cru can import (expected {expected})")]
    Unknown { path: PathBuf, expected: String },
    #[error("{path}:{line}: {message}")]
    Invalid {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

/// One source read into a session.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The session, its id a placeholder until the store gives it one
    /// (`started` and the title are set).
    pub log: SessionLog,
    pub provenance: Provenance,
    pub warnings: Vec<ImportWarning>,
    /// Subagent runs, each its own session, to be linked from this one
    /// ([`link_children`]) once the store has given both their ids.
    pub children: Vec<Child>,
}

/// A subagent's session and where it belongs in its parent.
#[derive(Debug, Clone)]
pub struct Child {
    pub imported: Imported,
    pub link: SubagentLink,
}

/// How a child session is linked from its parent.
#[derive(Debug, Clone)]
pub struct SubagentLink {
    pub agent: AgentRef,
    /// The parent's phase and the block (the tool-call list that started
    /// the run) the `[!subagent]` callout follows; `None`: the end of the
    /// last phase.
    pub anchor: Option<(usize, usize)>,
    /// What was delegated.
    pub description: Option<String>,
    /// The subagent's last words.
    pub summary: Option<String>,
}

/// Links children to their parent, both with their final ids: each child
/// gets `parent:`, the parent a `subagents` entry (agent, model, tokens)
/// and a `[!subagent]` callout in `link` mode after the block that started
/// the run.
pub fn link_children(parent: &mut SessionLog, children: &mut [(SessionLog, SubagentLink)]) {
    let parent_id = parent.id().clone();
    let mut order: Vec<usize> = (0..children.len()).collect();
    // Appends first, in order; then inserts from the back, so that no
    // insertion moves a place still to be used.
    order.sort_by_key(|&i| match children[i].1.anchor {
        None => (0, std::cmp::Reverse((0, 0)), i),
        Some(a) => (1, std::cmp::Reverse(a), i),
    });
    for i in order {
        let (child, link) = &mut children[i];
        child.frontmatter.parent = Some(parent_id.clone());
        let entry = SubagentEntry {
            session: child.id().clone(),
            agent: Some(link.agent.clone()),
            model: child.frontmatter.model.clone(),
            tokens: child.frontmatter.tokens_used,
            extra: serde_yaml::Mapping::new(),
        };
        let subs = &mut parent.frontmatter.subagents;
        match subs.iter_mut().find(|e| e.session == entry.session) {
            Some(e) => *e = entry,
            None => subs.push(entry),
        }
        let callout = Block::Callout(Callout::from_subagent(&SubagentRef {
            agent: Some(link.agent.clone()),
            model: child.frontmatter.model.clone(),
            mode: SubagentMode::Link,
            target: Some(child.id().clone()),
            description: vec![
                link.description
                    .clone()
                    .unwrap_or_else(|| "Subagent run".to_owned()),
            ],
            content: Vec::new(),
            summary: link.summary.clone(),
        }));
        let phase_count = parent.phase_count();
        let mut phases: Vec<&mut crucible_core::Phase> = parent.phases_mut().collect();
        match (link.anchor, phases.last_mut()) {
            (Some((p, b)), _) if p < phase_count => {
                let blocks = &mut phases[p].blocks;
                blocks.insert((b + 1).min(blocks.len()), callout);
            }
            (_, Some(last)) => last.blocks.push(callout),
            (_, None) => parent.preamble.push(callout),
        }
    }
}

/// The sources below `path` in `format` (or any, detected by content):
/// a file or folder of that format, or a folder that holds them.
pub fn find_sources(path: &Path, format: Option<Format>) -> Vec<(PathBuf, Format)> {
    let mut out = Vec::new();
    collect(path, format, &mut out, 0);
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn collect(path: &Path, format: Option<Format>, out: &mut Vec<(PathBuf, Format)>, depth: usize) {
    if let Some(f) = detect(path).filter(|f| format.is_none_or(|want| want == *f)) {
        // In a folder walk a subagent's file comes with its parent's
        // transcript; named on its own, it is imported on its own.
        let with_parent =
            depth > 0 && f == Format::ClaudeCode && claude_code::parent_transcript(path).is_some();
        if !with_parent {
            out.push((path.to_owned(), f));
        }
        return;
    }
    // Links to folders are not followed (they can loop), as in every walk.
    let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
    if depth > 6 || !is_dir {
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for e in entries.flatten() {
        collect(&e.path(), format, out, depth + 1);
    }
}

/// The format of a file or folder, by its content.
pub fn detect(path: &Path) -> Option<Format> {
    if path.is_dir() {
        return agent_dir::looks_like(path).then_some(Format::AgentDir);
    }
    let bytes = head(path)?;
    if codeloops::looks_like(&bytes) {
        return Some(Format::Codeloops);
    }
    if codex::looks_like(&bytes) {
        return Some(Format::Codex);
    }
    if claude_code::looks_like(&bytes) {
        return Some(Format::ClaudeCode);
    }
    if connectonion::looks_like(&bytes) {
        return Some(Format::ConnectOnion);
    }
    messages::looks_like(&bytes).then_some(Format::OpenAiMessages)
}

/// The start of a file, enough to tell its format by: 64 KB, or more up
/// to 4 MB until a whole first line is in (a transcript's first line can
/// hold a long tool result). Detection never reads a big file whole.
fn head(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    // Regular files only, opened without blocking: a FIFO among an agent's
    // files must not hang the import.
    let (mut f, _) = crucible_core::store::safe_file::open_regular(path, u64::MAX).ok()?;
    let mut out = Vec::new();
    let mut limit = 64 * 1024;
    loop {
        let want = limit - out.len();
        let got = (&mut f).take(want as u64).read_to_end(&mut out).ok()?;
        if got < want || out.contains(&b'\n') || limit >= 4 * 1024 * 1024 {
            return Some(out);
        }
        limit *= 4;
    }
}

/// Reads a source file whole.
fn read_source(path: &Path) -> Result<Vec<u8>, ImportError> {
    crucible_core::store::safe_file::read_regular(path, u64::MAX).map_err(|e| ImportError::Read {
        path: path.to_owned(),
        source: e.into_io(),
    })
}

/// A session read from `path`, with its provenance; `hashed` is what the
/// source hash covers (the file, or a folder's files).
fn imported(
    format: Format,
    path: &Path,
    id: Option<String>,
    hashed: &[u8],
    log: SessionLog,
    warnings: Vec<ImportWarning>,
) -> Imported {
    let provenance = Provenance {
        format: format.as_str().into(),
        path: path.display().to_string(),
        id,
        source_hash: fnv_hex(hashed),
        session_hash: content_hash(&log),
    };
    Imported {
        log,
        provenance,
        warnings,
        children: Vec::new(),
    }
}

/// Reads one source.
pub fn import(path: &Path, format: Format) -> Result<Imported, ImportError> {
    match format {
        Format::OpenAiMessages => messages::import_file(path),
        Format::AgentDir => agent_dir::import(path),
        Format::Codeloops => codeloops::import(path),
        Format::ConnectOnion => connectonion::import(path),
        Format::ClaudeCode => claude_code::import(path),
        Format::Codex => codex::import(path),
    }
}
