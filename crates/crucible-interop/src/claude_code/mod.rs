//! Claude Code transcripts: `~/.claude/projects/<slug>/<sessionId>.jsonl`.
//!
//! - each line's `type`: `user` (a prompt, or `tool_result` blocks answering
//!   earlier calls), `assistant` (`text`, `tool_use`, `thinking` blocks),
//!   `summary`/`custom-title`/`ai-title` (the title); every other line
//!   (`system`, `progress`, `file-history-snapshot`, `queue-operation`, ...)
//!   is kept whole in the sidecar as a source record, and a type cru does not
//!   know is also counted as skipped (see [`crate::RecordTally`]);
//! - a user prompt starts a phase (named from its first words) with a
//!   `[!user]` callout; text Claude Code wrote itself (caveats, command
//!   output, reminders, compaction summaries: [`synthetic`]) is context in
//!   the sidecar, and a slash command is a `[!user]` callout with the
//!   command as typed; assistant text becomes a `[!reply] @claude-code`;
//!   `tool_use` a tool call whose summary and ✗ come from the `tool_result`
//!   with its id (`is_error`); the call's input, result, id and
//!   `toolUseResult` are kept whole in the sidecar, as are thinking blocks
//!   and images (a marker with media type and size stands in the markdown);
//! - tokens: see [`tokens`] (each streamed response once, by its final
//!   count, as ccusage does), one usage record per response, in the phase of the turn it answered;
//!   the model is the first non-`<synthetic>` one, and a `<synthetic>`
//!   message (Claude Code's placeholder for a failed request) is an
//!   `[!error]`; `cwd` and `gitBranch` are kept;
//! - subagents (the `Task` tool) become child sessions linked from the
//!   phase that started them: lines on a side chain (`isSidechain: true`)
//!   inside the transcript (older releases; one child per `agentId`, else
//!   per chain of `parentUuid`s), `<sessionId>/subagents/agent-<id>.jsonl`
//!   (newer) and `agent-<id>.jsonl` beside the transcript whose lines name
//!   its `sessionId` (older). Each child counts its own tokens. A subagent
//!   file whose transcript is missing imports as a session of its own;
//! - a line that does not parse is a warning.

mod conversation;
mod per_folder;
pub(crate) mod resumed;
mod subagents;
mod synthetic;
mod tokens;

use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{ImportError, ImportWarning, Imported, RecordTally};
use conversation::{Conversation, title_text};
pub use per_folder::RunFolders;
pub(crate) use subagents::{copies_source, run_file_paths};
pub(crate) use tokens::{ids_of_record, message_in_session};

/// The agent that replies in a main transcript.
const AGENT: &str = "claude-code";

/// Line types a Claude Code transcript holds besides messages, each kept
/// whole in the sidecar: those seen in the real fixtures, and the others
/// claude-code-viewer's schema of Claude Code's entries names
/// (`src/lib/conversation-schema/entry/`).
const OTHER_KINDS: [&str; 15] = [
    "system",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "summary",
    "custom-title",
    "ai-title",
    "agent-name",
    "agent-setting",
    "attachment",
    "bridge-session",
    "last-prompt",
    "mode",
    "permission-mode",
    "pr-link",
];

/// The usage one transcript line reports, counted as the importer counts
/// it, for a reader that follows a transcript as it grows (the hooks'
/// `Stop`, crucible-capture): a streamed response's lines share `key`,
/// and the one with the largest total counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineUsage {
    /// `<message.id>:<requestId>`, when the line has a message id.
    pub key: Option<String>,
    /// The model it is priced as (`<synthetic>` placeholders are `None`).
    pub model: Option<String>,
    pub tokens: crucible_core::Tokens,
    /// On a subagent's side chain: the subagent counts it, not the session.
    pub sidechain: bool,
}

/// [`LineUsage`] of a transcript line, if it reports usage.
pub fn line_usage(v: &Value) -> Option<LineUsage> {
    let msg = v.get("message")?;
    let u = msg.get("usage").filter(|u| u.is_object())?;
    let model = msg
        .get("model")
        .and_then(Value::as_str)
        .filter(|m| *m != "<synthetic>");
    Some(LineUsage {
        key: tokens::record_id_of(v),
        model: tokens::priced_model(model, u),
        tokens: tokens::usage_of(u),
        sidechain: is_sidechain(v),
    })
}

/// True for a line of a Claude Code transcript (detection counts them
/// over the whole head of a file, see [`crate::detect()`]): a message with
/// Claude Code's envelope, one of its other line types, or a usage line
/// without a type (what ccusage's fixtures hold).
pub(crate) fn is_record(v: &impl crate::line_shape::Fields) -> bool {
    let has_message = v.object_at("message");
    match v.str_at("type") {
        Some("user" | "assistant") => has_message,
        Some("summary") => v.has("summary"),
        Some("file-history-snapshot") => v.has("snapshot"),
        Some(k) if OTHER_KINDS.contains(&k) => v.has("sessionId"),
        Some(_) => false,
        None => {
            has_message && v.has("sessionId") && v.has_path(&["message", "usage", "input_tokens"])
        }
    }
}

/// The transcript a subagent file belongs to, when that transcript exists:
/// `<slug>/<sid>/subagents/agent-<id>.jsonl` → `<slug>/<sid>.jsonl`, and an
/// older `<slug>/agent-<id>.jsonl` → `<slug>/<its sessionId>.jsonl`. A
/// folder walk imports such a file with its parent, not on its own.
pub(crate) fn parent_transcript(path: &Path) -> Option<PathBuf> {
    let dir = path.parent()?;
    if dir.file_name()? == "subagents" {
        let sid_dir = dir.parent()?;
        let main = sid_dir.with_extension("jsonl");
        let holds_lines = std::fs::metadata(&main).is_ok_and(|m| m.is_file() && m.len() > 0);
        return holds_lines.then_some(main);
    }
    let stem = path.file_stem()?.to_str()?;
    if !stem.starts_with("agent-") {
        return None;
    }
    let sid = first_session_id(path)?;
    let main = dir.join(format!("{sid}.jsonl"));
    // An empty transcript is no source: its subagents' files are imported
    // on their own rather than with nothing.
    let holds_lines = std::fs::metadata(&main).is_ok_and(|m| m.is_file() && m.len() > 0);
    (main != path && holds_lines).then_some(main)
}

/// The `sessionId` of the first lines that carry one (snapshot lines,
/// which do not, can come first), without reading the whole file.
fn first_session_id(path: &Path) -> Option<String> {
    // Never blocks: a FIFO named like a transcript is refused, not waited on.
    let (f, _) = crucible_core::store::safe_file::open_regular(path, u64::MAX).ok()?;
    std::io::BufReader::new(f)
        .lines()
        .take(64)
        .map_while(Result::ok)
        .find_map(|l| {
            serde_json::from_str::<Value>(&l)
                .ok()?
                .get("sessionId")?
                .as_str()
                .map(str::to_owned)
        })
}

/// True for a subagent's own file (`subagents/agent-<id>.jsonl`, or an
/// older `agent-<id>.jsonl`): every line is on its side chain, and an
/// import of it alone (its transcript missing) reads them as its run.
fn is_subagent_file(path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == "subagents")
        || path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("agent-"))
}

fn is_sidechain(v: &Value) -> bool {
    v.get("isSidechain").and_then(Value::as_bool) == Some(true)
}

/// A line's type for the tally (`usage` for a typed-less usage line).
fn kind_of(v: &Value) -> &str {
    match v.get("type").and_then(Value::as_str) {
        Some(k) => k,
        None if v.pointer("/message/usage").is_some() => "usage",
        None => "untyped",
    }
}

/// Side-chain lines of one subagent run: its key (agent id or first
/// uuid), its lines, and where in the main chain it was met.
type SideChain = (String, Vec<(usize, Value)>, Option<(usize, usize)>);

/// A file read: its main conversation, its side chains and its tally.
struct Read {
    main: Conversation,
    chains: Vec<SideChain>,
    /// The copies of subagents' lines in `agent_progress` lines, by run
    /// (agent id): a run's only record when its own file is gone.
    copies: Vec<SideChain>,
    tally: RecordTally,
    warnings: Vec<ImportWarning>,
}

/// The copies of subagents' lines in a transcript's `agent_progress`
/// lines, by run, in first-seen order.
#[derive(Default)]
struct Copies {
    runs: Vec<SideChain>,
    /// Agent id → index in `runs` (a hostile transcript may name
    /// thousands).
    of: HashMap<String, usize>,
}

/// Files the copy of a subagent's line that line `n` (`v`) holds, if it
/// holds one, under its run in `copies` (a run first met `here`).
fn file_copy(copies: &mut Copies, n: usize, v: &Value, here: Option<(usize, usize)>) {
    let Some((agent, copy)) = progress_copy(v) else {
        return;
    };
    // A copy carries no envelope of its own: the run's working directory
    // and branch are its parent line's. (Not its session: a response the
    // copies repeat under two sessions' lines is one, as ccusage counts it.)
    let mut line = copy.clone();
    if let Some(fields) = line.as_object_mut() {
        for k in ["cwd", "gitBranch"] {
            if let Some(x) = v.get(k).filter(|_| !fields.contains_key(k)) {
                fields.insert(k.to_owned(), x.clone());
            }
        }
    }
    let i = *copies.of.entry(agent.to_owned()).or_insert_with(|| {
        copies.runs.push((agent.to_owned(), Vec::new(), here));
        copies.runs.len() - 1
    });
    copies.runs[i].1.push((n, line));
}

/// The subagent's line a `progress` line of kind `agent_progress` repeats
/// (`data.message`, a transcript line of its own), with the subagent's
/// agent id (`data.agentId`); `None` for any other line.
fn progress_copy(v: &Value) -> Option<(&str, &Value)> {
    let data = v.get("data")?;
    if data.get("type").and_then(Value::as_str) != Some("agent_progress") {
        return None;
    }
    let agent = data
        .get("agentId")
        .and_then(Value::as_str)
        .filter(|a| !a.is_empty())?;
    let line = data.get("message").filter(|m| {
        matches!(kind_of(m), "user" | "assistant") && m.get("message").is_some_and(Value::is_object)
    })?;
    Some((agent, line))
}

/// Reads the JSON lines of one transcript file (`lines`, with the
/// `warnings` of reading them); in a subagent's own file (`own_file`)
/// every line is on the side chain, and all are its run. Lines whose key
/// ([`resumed::line_key`]: the `uuid`) is in `theirs` are left out: a
/// resumed session's copy of the earlier session's lines.
fn read_lines(
    path: &Path,
    lines: Vec<(usize, Value)>,
    mut warnings: Vec<ImportWarning>,
    own_file: bool,
    theirs: &HashSet<String>,
) -> Read {
    let mut tally = RecordTally::default();
    let mut main = Conversation::new(AGENT.parse().expect("valid"));
    main.subagent = own_file;
    // Side-chain lines by the subagent run they belong to, in first-seen order.
    let mut chains: Vec<SideChain> = Vec::new();
    let mut chain_of: HashMap<String, usize> = HashMap::new();
    let mut copies = Copies::default();
    for (n, v) in lines {
        if resumed::line_key(&v).is_some_and(|k| theirs.contains(k)) {
            continue;
        }
        let damaged = tokens::damaged_counts(&v);
        if !damaged.is_empty() {
            warnings.push(ImportWarning {
                path: path.to_owned(),
                line: Some(n),
                message: format!(
                    "token counts that are no whole number of tokens (at most {}), counted 0: {}",
                    crucible_core::MAX_TOKENS,
                    damaged.join(", ")
                ),
            });
        }
        let kind = kind_of(&v).to_owned();
        let message = matches!(kind.as_str(), "user" | "assistant" | "usage")
            && v.get("message").is_some_and(Value::is_object);
        if !message {
            if matches!(kind.as_str(), "summary" | "custom-title" | "ai-title") {
                title_line(&v, &kind, &mut main.title);
            }
            if OTHER_KINDS.contains(&kind.as_str()) {
                tally.read(&kind);
            } else {
                tally.unknown(&kind);
            }
            if !own_file {
                file_copy(&mut copies, n, &v, main.here());
            }
            main.keep(n, v);
            continue;
        }
        tally.read(&kind);
        if own_file || !is_sidechain(&v) {
            main.line(n, v);
            continue;
        }
        let uuid = v.get("uuid").and_then(Value::as_str).unwrap_or("");
        let parent = v.get("parentUuid").and_then(Value::as_str);
        let key = v.get("agentId").and_then(Value::as_str).map(str::to_owned);
        let at = match (&key, parent.and_then(|p| chain_of.get(p))) {
            (Some(k), _) => chains.iter().position(|(c, _, _)| c == k),
            (None, Some(&i)) => Some(i),
            (None, None) => None,
        };
        let i = at.unwrap_or_else(|| {
            let key = key.unwrap_or_else(|| uuid.to_owned());
            chains.push((key, Vec::new(), main.here()));
            chains.len() - 1
        });
        if !uuid.is_empty() {
            chain_of.insert(uuid.to_owned(), i);
        }
        chains[i].1.push((n, v));
    }
    Read {
        main,
        chains,
        copies: copies.runs,
        tally,
        warnings,
    }
}

/// The title a `summary`/`custom-title`/`ai-title` line gives, if any.
fn title_line(v: &Value, kind: &str, title: &mut Option<String>) {
    let t = ["summary", "customTitle", "aiTitle", "title"]
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str));
    if let Some(t) = t {
        // A title the user set wins over the generated ones.
        if title.is_none() || kind == "custom-title" {
            *title = Some(title_text(t));
        }
    }
}

pub(crate) fn import(path: &Path, run: &RunFolders) -> Result<Imported, ImportError> {
    import_with(path, Some(run))
}

/// The import of a transcript as it is, the lines it repeats of one it
/// continues kept (a resumed session the hooks recorded in the earlier
/// one: that session is the whole transcript's).
pub(crate) fn import_whole(path: &Path) -> Result<Imported, ImportError> {
    import_with(path, None)
}

/// The import of `path`; in a `run`, the lines it repeats of a transcript
/// beside it that it continues are left to that one.
fn import_with(path: &Path, run: Option<&RunFolders>) -> Result<Imported, ImportError> {
    let bytes = crate::read_source(path)?;
    let mut not_utf8 = Vec::new();
    let text = crate::transcript::utf8_warned(path, &bytes, &mut not_utf8);
    let own_file = is_subagent_file(path);
    // Parsed once: what a resume is told by and the import read the same lines.
    let mut json_warnings = Vec::new();
    let lines = crate::transcript::json_lines(path, &text, &mut json_warnings);
    let continues = match run {
        Some(run) if !own_file => resumed::continues(path, &lines, &run.firsts),
        _ => resumed::Continues::Nothing,
    };
    let no_lines = HashSet::new();
    let theirs = match &continues {
        resumed::Continues::Beside { uuids, .. } => uuids,
        _ => &no_lines,
    };
    let Read {
        mut main,
        chains,
        copies,
        tally,
        mut warnings,
    } = read_lines(path, lines, json_warnings, own_file, theirs);
    warnings.splice(0..0, not_utf8);
    let resumed_from = earlier_source(path, continues, &mut main, &mut warnings);
    // The transcript's bytes and its subagents' files, hashed as they are
    // read rather than copied together first.
    let mut hashed = crate::BytesHasher::new();
    hashed.update(&bytes);
    drop(text);
    drop(bytes);
    let mut skipped = Vec::new();
    // Outside a run (a transcript read on its own), its folder is read for it alone.
    let alone = per_folder::PerFolder::default();
    let agents = run.map_or(&alone, |r| &r.agents);
    let runs = subagents::runs(
        path,
        &main,
        (chains, copies),
        agents,
        &mut hashed,
        &mut warnings,
        &mut skipped,
    );
    let children = subagents::children(&main, runs);
    if main.started.is_none() {
        // A parent of only summary lines, its work in its subagents'
        // files: dated by the earliest of them, not by its own file's
        // mtime (a copied or restored store's is today).
        main.started = children
            .iter()
            .map(|c| c.imported.log.frontmatter.started.clone())
            .min_by_key(crucible_core::Timestamp::unix_ms);
    }
    let sid = main.session_id.clone();
    let (log, data) = main.into_log(path, "Claude Code session");
    let mut imported = crate::imported_with_hash(
        crate::Format::ClaudeCode,
        path,
        sid,
        hashed.finish(),
        log,
        warnings,
    );
    imported.data = data;
    imported.records = tally;
    imported.children = children;
    imported.skipped_files = skipped;
    imported.resumed_from = resumed_from;
    Ok(imported)
}

/// The source a resumed transcript continues, its lines left out of this
/// one. The session is the transcript's own (named by its file, as Claude
/// Code names it), whichever id its repeated lines carried. A transcript
/// naming an earlier session that is not beside it is kept whole, and
/// says so.
fn earlier_source(
    path: &Path,
    continues: resumed::Continues,
    main: &mut Conversation,
    warnings: &mut Vec<ImportWarning>,
) -> Option<crate::EarlierSource> {
    match continues {
        resumed::Continues::Nothing => None,
        resumed::Continues::Beside {
            path: earlier, id, ..
        } => {
            if let Some(own) = path.file_stem().and_then(|s| s.to_str()) {
                main.session_id = Some(own.to_owned());
            }
            Some(crate::EarlierSource {
                format: crate::Format::ClaudeCode,
                path: earlier.display().to_string(),
                id,
            })
        }
        resumed::Continues::Missing(id) => {
            warnings.push(ImportWarning {
                path: path.to_path_buf(),
                line: None,
                message: format!(
                    "continues Claude Code session {id}, whose transcript is not beside it: \
                     the lines it repeats are kept in this session"
                ),
            });
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_line_kind_is_recognized_and_other_formats_are_not() {
        let sid = "s";
        for v in [
            json!({"type": "user", "sessionId": sid, "message": {"role": "user", "content": "hi"}}),
            json!({"type": "summary", "summary": "t", "leafUuid": "u"}),
            json!({"type": "file-history-snapshot", "messageId": "m", "snapshot": {}}),
            json!({"type": "progress", "sessionId": sid, "data": {"type": "hook_progress"}}),
            json!({"type": "queue-operation", "sessionId": sid, "operation": "enqueue"}),
            json!({"sessionId": sid, "message": {"usage": {"input_tokens": 1}}}),
        ] {
            assert!(is_record(&v), "{v}");
        }
        for v in [
            json!({"type": "session_meta", "payload": {}}),
            json!({"role": "user", "content": "hi"}),
            json!({"type": "user", "content": "a Gemini JSONL line"}),
        ] {
            assert!(!is_record(&v), "{v}");
        }
    }

    #[test]
    fn a_run_lists_the_older_agent_files_of_a_folder_once_for_its_transcripts() {
        let line = |sid: &str, uuid: &str, text: &str| {
            json!({"type": "user", "sessionId": sid, "uuid": uuid, "timestamp": "2025-01-01T00:00:00Z",
                   "message": {"role": "user", "content": text}})
            .to_string()
                + "\n"
        };
        let dir = tempfile::tempdir().unwrap();
        for (sid, agent) in [("aaaa", "a1"), ("bbbb", "b1")] {
            std::fs::write(
                dir.path().join(format!("{sid}.jsonl")),
                line(sid, &format!("{sid}-u"), "work"),
            )
            .unwrap();
            let side = json!({"type": "user", "sessionId": sid, "uuid": format!("{agent}-u"), "isSidechain": true,
                              "timestamp": "2025-01-01T00:00:01Z", "message": {"role": "user", "content": "sub"}});
            std::fs::write(
                dir.path().join(format!("agent-{agent}.jsonl")),
                side.to_string() + "\n",
            )
            .unwrap();
        }
        let run = RunFolders::default();
        for sid in ["aaaa", "bbbb"] {
            let imported = import(&dir.path().join(format!("{sid}.jsonl")), &run).unwrap();
            // Each transcript takes the agent file naming its session, only.
            let children: Vec<String> = imported
                .children
                .iter()
                .map(|c| c.imported.provenance.path.clone())
                .collect();
            let agent = if sid == "aaaa" { "a1" } else { "b1" };
            assert_eq!(children.len(), 1, "{children:?}");
            assert!(
                children[0].ends_with(&format!("agent-{agent}.jsonl")),
                "{children:?}"
            );
        }
        assert_eq!(run.agents.len(), 1);
    }
}
