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
//! and Codex rollouts, Gemini CLI chats, GitHub Copilot CLI event logs and
//! OpenCode's session database and older JSON storage.

mod agent_dir;
mod claude_code;
mod codeloops;
mod codex;
mod compact_json;
mod connectonion;
mod copilot;
mod detect;
mod export;
mod folder;
mod gemini;
pub mod import_state;
pub mod json_text;
mod line_shape;
mod messages;
mod opencode;
mod provenance;
pub mod reconcile;
mod report;
mod request_owners;
mod requests;
pub mod sidecar;
mod source_time;
mod sources;
pub mod store_scan;
pub mod stores;
mod transcript;

use std::path::{Path, PathBuf};

pub use claude_code::resumed::earlier_sessions as claude_code_earlier_sessions;
pub use claude_code::{LineUsage, line_usage};
pub use detect::detect;
pub use export::{EXPORT_FORMATS, ExportError, Exported, export};
pub use provenance::CAPTURED;
pub use provenance::{
    BytesHasher, KEY as PROVENANCE_KEY, Provenance, bytes_hash, content_hash, fnv_hex,
};
pub use report::{RecordTally, Skipped};
pub use sources::{Found, find_sources};

use crucible_core::{
    AgentRef, Block, Callout, SessionData, SessionLog, SubagentEntry, SubagentMode, SubagentRef,
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
    /// Gemini CLI's `~/.gemini/tmp/<project hash>/chats/session-*.json[l]`.
    Gemini,
    /// GitHub Copilot CLI's `~/.copilot/session-state/<id>/events.jsonl`.
    Copilot,
    /// OpenCode's `~/.local/share/opencode/opencode.db` (one source per
    /// session, `opencode.db#<session id>`) or older `storage/` folder (a
    /// source is a `storage/session/<projectID>/ses_*.json`).
    OpenCode,
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
            Self::Gemini => "gemini",
            Self::Copilot => "copilot",
            Self::OpenCode => "opencode",
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
    #[error("{path}: nothing to import: {records}")]
    Empty { path: PathBuf, records: RecordTally },
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
    /// What the source held that the markdown keeps only in summary (full
    /// arguments and results, call ids, images, thinking): the session's
    /// sidecar, written beside it by the store.
    pub data: SessionData,
    /// The source's records, read and skipped, by type.
    pub records: RecordTally,
    /// Subagent runs, each its own session, to be linked from this one
    /// ([`link_children`]) once the store has given both their ids.
    pub children: Vec<Child>,
    /// Files of the source left out whole (a FIFO, a link out of its
    /// folder, a folder that cannot be read), with why: never opened.
    pub skipped_files: Vec<crucible_core::store::walk::Skipped>,
    /// The source this one continues (a resumed Claude Code session): the
    /// lines it repeats of that source are left out of it, and the store
    /// links its session to that source's.
    pub resumed_from: Option<EarlierSource>,
}

/// The source a source continues, as the store finds its session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EarlierSource {
    pub format: Format,
    /// Its path, as a provenance names it.
    pub path: String,
    /// Its own id (the Claude Code session id).
    pub id: String,
}

impl Imported {
    /// The records of the source and of its subagents' files together.
    pub fn all_records(&self) -> RecordTally {
        let mut all = self.records.clone();
        for c in &self.children {
            all.merge(&c.imported.all_records());
        }
        all
    }

    /// True when the source or a subagent's file had a damaged part.
    pub fn has_warnings(&self) -> bool {
        !self.warnings.is_empty() || self.children.iter().any(|c| c.imported.has_warnings())
    }

    /// The files left out whole, of the source and of its subagents.
    pub fn all_skipped_files(&self) -> Vec<crucible_core::store::walk::Skipped> {
        let mut all = self.skipped_files.clone();
        for c in &self.children {
            all.extend(c.imported.all_skipped_files());
        }
        all
    }
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
            extra: crucible_core::yaml::Mapping::new(),
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
    imported_with_hash(format, path, id, bytes_hash(hashed), log, warnings)
}

/// [`imported`] with the source's hash taken already (from its parts, see
/// [`BytesHasher`]).
fn imported_with_hash(
    format: Format,
    path: &Path,
    id: Option<String>,
    source_hash: String,
    log: SessionLog,
    warnings: Vec<ImportWarning>,
) -> Imported {
    let provenance = Provenance {
        format: format.as_str().into(),
        path: path.display().to_string(),
        id,
        source_hash,
        session_hash: content_hash(&log),
        data_hash: None,
    };
    Imported {
        log,
        provenance,
        warnings,
        data: SessionData::default(),
        records: RecordTally::default(),
        children: Vec::new(),
        skipped_files: Vec::new(),
        resumed_from: None,
    }
}

/// Reads one source. A file read as nothing (no block in any phase, no
/// task, no subagent, no token spent) is an error that says what its
/// records were, not an empty session. (An empty `.agent/sessions/<time>/` folder is a session that
/// was started and did nothing: it imports as that.)
pub fn import(path: &Path, format: Format) -> Result<Imported, ImportError> {
    ImportRun::default().import(path, format)
}

/// What the imports of one run share: what is read of each folder of
/// Claude Code transcripts (their first lines, to tell which one a resumed
/// one continues; the older subagent files beside them), once per folder
/// instead of once per transcript. [`import`] is a run of one source.
#[derive(Debug, Default)]
pub struct ImportRun {
    claude_code: claude_code::RunFolders,
}

impl ImportRun {
    /// Reads one source, as [`import`] does.
    pub fn import(&self, path: &Path, format: Format) -> Result<Imported, ImportError> {
        let mut imported = import_any(path, format, &self.claude_code)?;
        count_damaged_lines(&mut imported);
        cap_token_counts(&mut imported);
        resolve_projects(&mut imported);
        let log = &imported.log;
        if format != Format::AgentDir
            && log.phases().all(|(_, p)| p.blocks.is_empty())
            && log.frontmatter.tokens_used.unwrap_or(0) == 0
            && log.tasks().is_none_or(<[_]>::is_empty)
            && imported.children.is_empty()
        {
            return Err(ImportError::Empty {
                path: path.to_owned(),
                records: imported.records,
            });
        }
        Ok(imported)
    }
}

/// Lines that did not parse as JSON are in the warnings (with their line
/// numbers); they are counted in the record report too, so that a damaged
/// file never reads as whole there. (An importer that counts them itself
/// already has them.)
fn count_damaged_lines(imp: &mut Imported) {
    const NOT_JSON: &str = "(not JSON)";
    if !imp.records.skipped.contains_key(NOT_JSON) {
        let source = Path::new(&imp.provenance.path);
        for w in &imp.warnings {
            if w.path == source && w.line.is_some() && w.message.starts_with("not JSON") {
                imp.records.skip(NOT_JSON, "a line that does not parse");
            }
        }
    }
    for c in &mut imp.children {
        count_damaged_lines(&mut c.imported);
    }
}

/// A request's count of one kind above [`crucible_core::MAX_TOKENS`] (a
/// damaged source: no request has that many) is counted 0, in every format,
/// and named: written, it would be a usage line the session's own reader
/// refuses, and sums of such counts stop adding up. (Claude Code's reader
/// names each with its line already.)
fn cap_token_counts(imp: &mut Imported) {
    let mut capped = 0usize;
    for p in imp.log.phases_mut() {
        for r in &mut p.usage {
            let t = &mut r.tokens;
            for n in [
                &mut t.input,
                &mut t.output,
                &mut t.cache_creation,
                &mut t.cache_read,
                &mut t.reasoning,
                &mut t.cache_creation_1h,
            ] {
                if *n > crucible_core::MAX_TOKENS {
                    *n = 0;
                    capped += 1;
                }
            }
        }
    }
    if capped > 0 {
        imp.log.refresh_usage_totals();
        imp.warnings.push(ImportWarning {
            path: PathBuf::from(&imp.provenance.path),
            line: None,
            message: format!(
                "{capped} token count(s) above {} (more than any request has), counted 0",
                crucible_core::MAX_TOKENS
            ),
        });
    }
    for c in &mut imp.children {
        cap_token_counts(&mut c.imported);
    }
}

/// The project of every returned session, resolved here where its `cwd`
/// is known (`crucible_core::project`), subagents' included: one place for
/// every format.
fn resolve_projects(imp: &mut Imported) {
    imp.log.frontmatter.resolve_project();
    for c in &mut imp.children {
        resolve_projects(&mut c.imported);
    }
}

fn import_any(
    path: &Path,
    format: Format,
    claude_code: &claude_code::RunFolders,
) -> Result<Imported, ImportError> {
    match format {
        Format::OpenAiMessages => messages::import_file(path),
        Format::AgentDir => agent_dir::import(path),
        Format::Codeloops => codeloops::import(path),
        Format::ConnectOnion => connectonion::import(path),
        Format::ClaudeCode => claude_code::import(path, claude_code),
        Format::Codex => codex::import(path),
        Format::Gemini => gemini::import(path),
        Format::Copilot => copilot::import(path),
        Format::OpenCode => opencode::import(path),
    }
}

#[cfg(test)]
mod utf8_tests {
    #[test]
    fn bytes_that_are_not_utf8_are_replaced_with_a_warning_naming_the_line() {
        let mut warnings = Vec::new();
        let path = std::path::Path::new("x.jsonl");
        let text =
            crate::transcript::utf8_warned(path, b"{}\n{\"a\":\"\xff\xfe\"}\n", &mut warnings);
        assert!(text.contains('\u{FFFD}'));
        assert_eq!(warnings.len(), 1);
        assert_eq!(
            warnings[0].to_string(),
            "x.jsonl:2: not UTF-8; the bytes that are not were replaced with U+FFFD"
        );
        let mut none = Vec::new();
        let _ = crate::transcript::utf8_warned(path, "é→".as_bytes(), &mut none);
        assert!(none.is_empty());
    }
}
