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
mod connectonion;
mod copilot;
mod export;
mod gemini;
mod messages;
mod opencode;
mod provenance;
mod report;
mod transcript;
mod usage;

use std::path::{Path, PathBuf};

pub use export::{EXPORT_FORMATS, ExportError, Exported, export};
pub use provenance::{KEY as PROVENANCE_KEY, Provenance, content_hash, fnv_hex};
pub use report::{RecordTally, Skipped};
pub use usage::{Usage, UsageByModel};

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

/// What a search for sources found.
#[derive(Debug, Default)]
pub struct Found {
    /// The sources, by path.
    pub sources: Vec<(PathBuf, Format)>,
    /// What the walk could not or would not look at, with why: unreadable
    /// folders, FIFOs, sockets, devices, links to folders, broken links.
    pub skipped: Vec<(PathBuf, String)>,
    /// Files read and found to be of no format cru imports.
    pub unrecognized: Vec<PathBuf>,
}

/// How deep a folder walk goes. Links to folders are never followed, so a
/// walk cannot loop; this only bounds a pathological tree, and what lies
/// deeper is reported, not silently left out.
const MAX_DEPTH: usize = 64;

/// The sources below `path` in `format` (or any, detected by content):
/// a file or folder of that format, or a folder that holds them.
pub fn find_sources(path: &Path, format: Option<Format>) -> Found {
    let mut found = Found::default();
    collect(path, format, &mut found, 0);
    found.sources.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

fn collect(path: &Path, format: Option<Format>, found: &mut Found, depth: usize) {
    // One session of an OpenCode database, named `opencode.db#<id>`.
    if format.is_none_or(|f| f == Format::OpenCode) && opencode::is_db_session(path) {
        found.sources.push((path.to_owned(), Format::OpenCode));
        return;
    }
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) => {
            found.skipped.push((path.to_owned(), e.to_string()));
            return;
        }
    };
    let ft = meta.file_type();
    if ft.is_symlink() {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => {
                // Links to folders are not followed (they can loop), as in every walk.
                found
                    .skipped
                    .push((path.to_owned(), "a link to a folder (not followed)".into()));
                return;
            }
            Ok(m) if !m.is_file() => {
                found
                    .skipped
                    .push((path.to_owned(), "a link to a special file".into()));
                return;
            }
            Ok(_) => {}
            Err(e) => {
                found
                    .skipped
                    .push((path.to_owned(), format!("a broken link ({e})")));
                return;
            }
        }
    } else if !ft.is_dir() && !ft.is_file() {
        found.skipped.push((
            path.to_owned(),
            format!(
                "{}, not a regular file",
                crucible_core::store::safe_file::kind_name(ft)
            ),
        ));
        return;
    }
    // A file named on the command line with `--from` is read in that format
    // whatever its head shows (a first line longer than detection reads,
    // say): the user said what it is, and the importer says if it is not.
    // (OpenCode's database and agent folders are told apart by detection:
    // they are not one source each.)
    if let Some(want) = format
        && depth == 0
        && !ft.is_dir()
        && !matches!(want, Format::OpenCode | Format::AgentDir)
    {
        found.sources.push((path.to_owned(), want));
        return;
    }
    if let Some(f) = detect(path) {
        if f == Format::OpenCode && format.is_none_or(|want| want == f) {
            // A database or storage folder holds many sessions, each a source.
            match opencode::sources(path, depth > 0) {
                Ok(s) => found
                    .sources
                    .extend(s.into_iter().map(|p| (p, Format::OpenCode))),
                Err(e) => found.skipped.push((path.to_owned(), e.to_string())),
            }
            return;
        }
        if format.is_none_or(|want| want == f) {
            // In a folder walk a subagent's file comes with its parent's
            // transcript; named on its own, it is imported on its own.
            let with_parent = depth > 0
                && match f {
                    Format::ClaudeCode => claude_code::parent_transcript(path).is_some(),
                    Format::Gemini => gemini::has_parent(path),
                    _ => false,
                };
            if !with_parent {
                found.sources.push((path.to_owned(), f));
            }
        }
        return;
    }
    if !ft.is_dir() {
        found.unrecognized.push(path.to_owned());
        return;
    }
    if depth >= MAX_DEPTH {
        found.skipped.push((
            path.to_owned(),
            format!("deeper than {MAX_DEPTH} folders below the path given"),
        ));
        return;
    }
    let entries = match std::fs::read_dir(path) {
        Ok(e) => e,
        Err(e) => {
            found
                .skipped
                .push((path.to_owned(), format!("folder cannot be read ({e})")));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        collect(&p, format, found, depth + 1);
    }
}

/// The format of a file or folder, by its content.
///
/// A JSONL file is told by its whole shape: every complete line of its
/// head (up to 4 MB) is offered to each JSONL format, and the format that
/// recognizes the most lines wins. Agents put lines that are not messages
/// first (snapshots, hook progress, summaries), and a file with a few
/// unknown lines is still the format of the many known ones.
pub fn detect(path: &Path) -> Option<Format> {
    if path.is_dir() {
        if opencode::is_storage(path) {
            return Some(Format::OpenCode);
        }
        return agent_dir::looks_like(path).then_some(Format::AgentDir);
    }
    let bytes = head(path)?;
    if opencode::is_db(path, &bytes) || opencode::is_session_file(path, &bytes) {
        return Some(Format::OpenCode);
    }
    detect_bytes(&bytes)
}

/// Tells whether one JSON line is a record of a format.
type IsRecord = fn(&serde_json::Value) -> bool;

/// [`detect`] on the start of a file.
pub(crate) fn detect_bytes(bytes: &[u8]) -> Option<Format> {
    let recognizers: [(Format, IsRecord); 5] = [
        (Format::Codeloops, codeloops::is_record),
        (Format::Codex, codex::is_record),
        (Format::ClaudeCode, claude_code::is_record),
        (Format::Gemini, gemini::is_record),
        (Format::Copilot, copilot::is_record),
    ];
    let mut counts = [0usize; 5];
    let (mut lines, mut objects) = (0usize, 0usize);
    // The head may end inside a line: that one is not judged.
    let whole = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(i) if i + 1 < bytes.len() => &bytes[..=i],
        _ => bytes,
    };
    for line in whole.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() {
            continue;
        }
        lines += 1;
        if !line.starts_with(b"{") {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        objects += 1;
        for (i, (_, is)) in recognizers.iter().enumerate() {
            counts[i] += usize::from(is(&v));
        }
    }
    // A JSONL format only for a file that is mostly JSON lines (a README or
    // a Python file with one JSON line in it is neither), then the format
    // that recognizes the most lines; a tie goes to the one listed first.
    let best = (0..recognizers.len())
        .filter(|&i| counts[i] > 0 && objects * 2 > lines)
        .max_by_key(|&i| (counts[i], std::cmp::Reverse(i)));
    if let Some(i) = best {
        return Some(recognizers[i].0);
    }
    if gemini::looks_like(bytes) {
        return Some(Format::Gemini);
    }
    // YAML only for text that does not start as JSON: a JSON file is never
    // ConnectOnion's, and a YAML parser on deeply nested JSON takes time
    // that grows with the square of the depth.
    let json_like = matches!(bytes.trim_ascii_start().first(), Some(b'{' | b'['));
    if !json_like && connectonion::looks_like(bytes) {
        return Some(Format::ConnectOnion);
    }
    messages::looks_like(bytes).then_some(Format::OpenAiMessages)
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
        data_hash: None,
    };
    Imported {
        log,
        provenance,
        warnings,
        data: SessionData::default(),
        records: RecordTally::default(),
        children: Vec::new(),
    }
}

/// Reads one source. A file read as nothing (no block in any phase, no
/// task, no subagent, no token spent) is an error that says what its
/// records were, not an empty session. (An empty `.agent/sessions/<time>/` folder is a session that
/// was started and did nothing: it imports as that.)
pub fn import(path: &Path, format: Format) -> Result<Imported, ImportError> {
    let mut imported = import_any(path, format)?;
    count_damaged_lines(&mut imported);
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

fn import_any(path: &Path, format: Format) -> Result<Imported, ImportError> {
    match format {
        Format::OpenAiMessages => messages::import_file(path),
        Format::AgentDir => agent_dir::import(path),
        Format::Codeloops => codeloops::import(path),
        Format::ConnectOnion => connectonion::import(path),
        Format::ClaudeCode => claude_code::import(path),
        Format::Codex => codex::import(path),
        Format::Gemini => gemini::import(path),
        Format::Copilot => copilot::import(path),
        Format::OpenCode => opencode::import(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_file_with_one_json_line_is_no_jsonl_format() {
        // A README, a Python file: one line that happens to be a record of
        // an agent's kind does not make the file that agent's.
        let text = b"hello\nthis is prose\n{\"type\":\"turn.started\"}\nmore prose\n";
        assert_eq!(detect_bytes(text), None);
        // The same line among other records of the format is.
        let jsonl =
            b"{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"turn.started\"}\n";
        assert_eq!(detect_bytes(jsonl), Some(Format::Codex));
        // A head cut inside its last line is judged by its whole lines.
        let cut = b"{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"turn.sta";
        assert_eq!(detect_bytes(cut), Some(Format::Codex));
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
