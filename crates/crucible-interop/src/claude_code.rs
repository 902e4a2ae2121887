//! Claude Code transcripts: `~/.claude/projects/<slug>/<sessionId>.jsonl`.
//!
//! - each line's `type`: `user` (a prompt, or `tool_result` blocks answering
//!   earlier calls), `assistant` (`text`, `tool_use`, `thinking` blocks),
//!   `summary`/`custom-title`/`ai-title` (the title); others are skipped;
//! - a user prompt starts a phase (named from its first words) with a
//!   `[!user]` callout; assistant text becomes a `[!reply] @claude-code`;
//!   `tool_use` a tool call (name, input on one line) whose summary and ✗
//!   come from the `tool_result` with its id (`is_error`);
//! - usage repeats on every line of one message: it is counted once per
//!   `(message.id, requestId)`; `tokens_used` is input + output + cache
//!   creation + cache read (what ccusage calls `totalTokens`), and the four
//!   parts are kept under `usage:`; the model is the first non-`<synthetic>`
//!   one, and a `<synthetic>` message (Claude Code's placeholder for a
//!   failed request) is an `[!error]`; `cwd` and `gitBranch` are kept;
//! - subagents (the `Task` tool) become child sessions linked from the
//!   phase that started them: lines on a side chain (`isSidechain: true`)
//!   inside the transcript (older releases; one child per `agentId`, else
//!   per chain of `parentUuid`s), `<sessionId>/subagents/agent-<id>.jsonl`
//!   (newer) and `agent-<id>.jsonl` beside the transcript whose lines name
//!   its `sessionId` (older). Each child counts its own tokens;
//! - a line that does not parse is a warning.

use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crucible_core::{
    AgentRef, Block, Callout, Frontmatter, Phase, SessionData, SessionId, SessionLog,
    SessionStatus, Timestamp, ToolCall, cut, one_line,
};

use crate::transcript::{CallBook, finish_paused, phase_name, text_of, title_from};
use crate::{Child, ImportError, ImportWarning, Imported, SubagentLink};

/// The agent that replies in a main transcript.
const AGENT: &str = "claude-code";

/// Tool names Claude Code starts a subagent with.
const TASK_TOOLS: [&str; 2] = ["Task", "Agent"];

/// True for a line of a Claude Code transcript (detection counts them
/// over the whole head of a file, see [`crate::detect`]).
pub(crate) fn is_record(v: &Value) -> bool {
    v.get("sessionId").is_some()
        && matches!(
            v.get("type").and_then(Value::as_str),
            Some("user" | "assistant" | "summary" | "system")
        )
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
        return main.is_file().then_some(main);
    }
    let stem = path.file_stem()?.to_str()?;
    if !stem.starts_with("agent-") {
        return None;
    }
    let sid = first_session_id(path)?;
    let main = dir.join(format!("{sid}.jsonl"));
    (main != path && main.is_file()).then_some(main)
}

/// The `sessionId` of the first few lines that carry one, without reading
/// the whole file.
fn first_session_id(path: &Path) -> Option<String> {
    let f = std::fs::File::open(path).ok()?;
    std::io::BufReader::new(f)
        .lines()
        .take(5)
        .map_while(Result::ok)
        .find_map(|l| {
            serde_json::from_str::<Value>(&l)
                .ok()?
                .get("sessionId")?
                .as_str()
                .map(str::to_owned)
        })
}

/// Token counts, summed once per message.
#[derive(Debug, Default, Clone, Copy)]
struct Usage {
    input: u64,
    output: u64,
    cache_creation: u64,
    cache_read: u64,
}

impl Usage {
    fn total(self) -> u64 {
        self.input + self.output + self.cache_creation + self.cache_read
    }
}

/// A `Task` call of the main chain: where it is and what it asked.
#[derive(Debug)]
struct TaskCall {
    phase: usize,
    block: usize,
    prompt: String,
    description: String,
    subagent_type: Option<String>,
}

/// One conversation being read: the main chain, or one subagent's.
struct Transcript {
    agent: AgentRef,
    started: Option<Timestamp>,
    last: Option<Timestamp>,
    title: Option<String>,
    model: Option<String>,
    session_id: Option<String>,
    agent_id: Option<String>,
    extra: Vec<(&'static str, String)>,
    usage: Usage,
    counted: HashSet<(String, String)>,
    phases: Vec<Phase>,
    /// When each phase started, as far as the lines say.
    phase_started: Vec<Option<Timestamp>>,
    first_prompt: Option<String>,
    last_reply: Option<String>,
    book: CallBook,
    tasks: Vec<TaskCall>,
}

impl Transcript {
    fn new(agent: AgentRef) -> Self {
        Self {
            agent,
            started: None,
            last: None,
            title: None,
            model: None,
            session_id: None,
            agent_id: None,
            extra: Vec::new(),
            usage: Usage::default(),
            counted: HashSet::new(),
            phases: Vec::new(),
            phase_started: Vec::new(),
            first_prompt: None,
            last_reply: None,
            book: CallBook::default(),
            tasks: Vec::new(),
        }
    }

    /// Takes one line (of `type` `user` or `assistant`).
    fn line(&mut self, v: &Value) {
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        let at = v
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(|t| t.parse::<Timestamp>().ok());
        if self.started.is_none() {
            self.started.clone_from(&at);
        }
        if at.is_some() {
            self.last.clone_from(&at);
        }
        let text_field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        if self.session_id.is_none() {
            self.session_id = text_field("sessionId");
        }
        if self.agent_id.is_none() {
            self.agent_id = text_field("agentId");
        }
        for (key, field) in [("cwd", "cwd"), ("git_branch", "gitBranch")] {
            if !self.extra.iter().any(|(k, _)| *k == key)
                && let Some(s) = text_field(field).filter(|s| !s.is_empty())
            {
                self.extra.push((key, s));
            }
        }
        let msg = v.get("message").unwrap_or(&Value::Null);
        // Content blocks as they are (tool results can be megabytes: not
        // copied); a plain string is one text block.
        let text_block;
        let blocks: &[Value] = match msg.get("content") {
            Some(Value::Array(a)) => a,
            Some(Value::String(s)) => {
                text_block = [serde_json::json!({"type": "text", "text": s})];
                &text_block
            }
            _ => &[],
        };
        if kind == "assistant" {
            self.assistant(v, msg, blocks);
        } else {
            self.user(blocks);
        }
        while self.phase_started.len() < self.phases.len() {
            self.phase_started.push(at.clone());
        }
    }

    /// After the last block so far: where a run that starts now belongs.
    fn here(&self) -> Option<(usize, usize)> {
        let p = self.phases.len().checked_sub(1)?;
        Some((p, self.phases[p].blocks.len().saturating_sub(1)))
    }

    /// The end of the last phase that started by `t`.
    fn at_time(&self, t: &Timestamp) -> Option<(usize, usize)> {
        let p = self
            .phase_started
            .iter()
            .rposition(|s| s.as_ref().is_some_and(|s| s.unix_ms() <= t.unix_ms()))?;
        Some((p, usize::MAX))
    }

    fn assistant(&mut self, v: &Value, msg: &Value, blocks: &[Value]) {
        if let Some(u) = msg.get("usage") {
            let key = (
                msg.get("id")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                v.get("requestId")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            );
            if self.counted.insert(key) {
                let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
                self.usage.input += n("input_tokens");
                self.usage.output += n("output_tokens");
                self.usage.cache_creation += n("cache_creation_input_tokens");
                self.usage.cache_read += n("cache_read_input_tokens");
            }
        }
        let model = msg.get("model").and_then(Value::as_str);
        if self.model.is_none() {
            self.model = model.filter(|m| *m != "<synthetic>").map(str::to_owned);
        }
        if self.phases.is_empty() {
            self.phases
                .push(Phase::new("Start", None, Some("main".into())));
        }
        let synthetic = model == Some("<synthetic>");
        let pi = self.phases.len() - 1;
        for b in blocks {
            match b.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let t = b.get("text").and_then(Value::as_str).unwrap_or("").trim();
                    if t.is_empty() {
                        continue;
                    }
                    let callout = if synthetic {
                        // Claude Code's placeholder for a failed request.
                        Callout::error(t, None)
                    } else {
                        self.last_reply = Some(t.to_owned());
                        Callout::reply(Some(&self.agent), t)
                    };
                    self.phases[pi].blocks.push(Block::Callout(callout));
                }
                Some("tool_use") => {
                    let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                    let input = b.get("input").unwrap_or(&Value::Null);
                    let call = ToolCall::new(
                        name.split_whitespace().collect::<Vec<_>>().join("_"),
                        crucible_core::args_line(input),
                    );
                    let id = b.get("id").and_then(Value::as_str);
                    self.book.add(&mut self.phases, call, id);
                    if TASK_TOOLS.contains(&name) {
                        let field = |k: &str| {
                            input
                                .get(k)
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_owned()
                        };
                        let p = self.phases.len() - 1;
                        self.tasks.push(TaskCall {
                            phase: p,
                            block: self.phases[p].blocks.len() - 1,
                            prompt: field("prompt"),
                            description: field("description"),
                            subagent_type: Some(field("subagent_type")).filter(|s| !s.is_empty()),
                        });
                    }
                }
                _ => {}
            }
        }
    }

    fn user(&mut self, blocks: &[Value]) {
        let prompt: Vec<&str> = blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect();
        for r in blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        {
            let id = r.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
            let out = r.get("content").map(text_of).unwrap_or_default();
            let failed = r.get("is_error").and_then(Value::as_bool) == Some(true);
            self.book.answer(&mut self.phases, id, &out, failed);
        }
        let words = prompt.join("\n");
        if words.trim().is_empty() {
            return;
        }
        self.first_prompt.get_or_insert_with(|| words.clone());
        let mut p = Phase::new(
            phase_name(&words, self.phases.len() + 1),
            None,
            Some("main".into()),
        );
        p.blocks
            .push(Block::Callout(Callout::user(words.trim(), None)));
        self.phases.push(p);
    }

    /// The session, paused at its last phase.
    fn into_log(self, path: &Path, fallback_title: &str) -> (SessionLog, SessionData) {
        let started = self
            .started
            .unwrap_or_else(|| crate::transcript::mtime(path));
        let mut fm = Frontmatter::new(SessionId::new("imported").expect("valid"), started);
        fm.participants.push(self.agent);
        fm.model = self.model;
        let total = self.usage.total();
        fm.tokens_used = (total > 0).then_some(total);
        for (k, s) in self.extra {
            fm.extra.insert(k.into(), s.into());
        }
        if total > 0 {
            let u = self.usage;
            let mut m = serde_yaml::Mapping::new();
            m.insert("input".into(), u.input.into());
            m.insert("output".into(), u.output.into());
            m.insert("cache_creation".into(), u.cache_creation.into());
            m.insert("cache_read".into(), u.cache_read.into());
            fm.extra
                .insert("usage".into(), serde_yaml::Value::Mapping(m));
        }
        let title = self
            .title
            .or_else(|| self.first_prompt.as_deref().and_then(title_from))
            .unwrap_or_else(|| fallback_title.to_owned());
        let mut log = SessionLog::new(fm);
        finish_paused(&mut log, title, self.phases);
        let data = SessionData {
            records: self.book.into_records().collect(),
        };
        (log, data)
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
            *title = Some(cut(&one_line(t.trim()), 80));
        }
    }
}

fn is_sidechain(v: &Value) -> bool {
    v.get("isSidechain").and_then(Value::as_bool) == Some(true)
}

fn is_message(v: &Value) -> bool {
    matches!(
        v.get("type").and_then(Value::as_str),
        Some("user" | "assistant")
    )
}

/// Side-chain lines of one subagent run: its key (agent id or first
/// uuid), its lines, and where in the main chain it was met.
type SideChain = (String, Vec<Value>, Option<(usize, usize)>);

/// A subagent's lines, read into a transcript, and where they came from.
struct Run {
    /// The file, or the transcript with `#<agent id>` for a side chain in it.
    source: PathBuf,
    key: Option<String>,
    bytes: Vec<u8>,
    transcript: Transcript,
    warnings: Vec<ImportWarning>,
    /// Where in the main chain the run was met (side chains) or fits by
    /// time (files), for a run no `Task` call is found for.
    anchor: Option<(usize, usize)>,
}

pub(crate) fn import(path: &Path) -> Result<Imported, ImportError> {
    let bytes = crate::read_source(path)?;
    let text = crate::transcript::utf8(&bytes);
    let mut warnings = Vec::new();
    let mut main = Transcript::new(AGENT.parse().expect("valid"));
    // Side-chain lines by the subagent run they belong to, in first-seen order.
    let mut chains: Vec<SideChain> = Vec::new();
    let mut chain_of: HashMap<String, usize> = HashMap::new();
    for (_, v) in crate::transcript::json_lines(path, &text, &mut warnings) {
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        if matches!(kind, "summary" | "custom-title" | "ai-title") {
            title_line(&v, kind, &mut main.title);
            continue;
        }
        if !is_message(&v) {
            continue;
        }
        if !is_sidechain(&v) {
            main.line(&v);
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
        chains[i].1.push(v);
    }
    let mut hashed = bytes.clone();
    let mut runs: Vec<Run> = Vec::new();
    for (key, lines, anchor) in chains {
        let mut t = Transcript::new(AGENT.parse().expect("valid"));
        for v in &lines {
            t.line(v);
        }
        let source = PathBuf::from(format!("{}#{key}", path.display()));
        let mut own = Vec::new();
        for v in &lines {
            own.extend(v.to_string().bytes());
        }
        runs.push(Run {
            source,
            key: Some(key),
            bytes: own,
            transcript: t,
            warnings: Vec::new(),
            anchor,
        });
    }
    let sid = main.session_id.clone();
    for file in subagent_files(path, sid.as_deref()) {
        let Ok(child_bytes) = std::fs::read(&file) else {
            warnings.push(ImportWarning {
                path: file.clone(),
                line: None,
                message: "cannot be read; this subagent is left out".into(),
            });
            continue;
        };
        hashed.extend(&child_bytes);
        let child_text = String::from_utf8_lossy(&child_bytes);
        let mut child_warnings = Vec::new();
        let mut t = Transcript::new(AGENT.parse().expect("valid"));
        for (_, v) in crate::transcript::json_lines(&file, &child_text, &mut child_warnings) {
            if is_message(&v) {
                t.line(&v);
            }
        }
        let key = t.agent_id.clone().or_else(|| {
            file.file_stem()
                .map(|s| s.to_string_lossy().trim_start_matches("agent-").to_owned())
        });
        let anchor = t.started.as_ref().and_then(|s| main.at_time(s));
        runs.push(Run {
            source: file,
            key,
            bytes: child_bytes,
            transcript: t,
            warnings: child_warnings,
            anchor,
        });
    }
    let mut used_tasks = HashSet::new();
    let mut children = Vec::new();
    for run in runs {
        let Run {
            source,
            key,
            bytes: own,
            transcript: mut t,
            warnings: child_warnings,
            anchor: seen_at,
        } = run;
        let task = matching_task(&main, &t, &mut used_tasks);
        if let Some(kind) = task.and_then(|i| main.tasks[i].subagent_type.as_deref())
            && let Ok(a) = kind.parse::<AgentRef>()
        {
            t.agent = a;
        }
        if let Some(i) = task
            && !main.tasks[i].description.trim().is_empty()
        {
            t.title = Some(cut(&one_line(main.tasks[i].description.trim()), 80));
        }
        let agent = t.agent.clone();
        let summary = t.last_reply.as_deref().map(|r| cut(&one_line(r), 200));
        let ended = t.last.clone();
        let fallback = format!("Claude Code subagent {}", key.as_deref().unwrap_or(""));
        let (mut log, data) = t.into_log(&source, fallback.trim());
        // A subagent's run is over when its parent goes on: it is not one to
        // resume.
        log.frontmatter.status = SessionStatus::Completed;
        log.frontmatter.resume_point = None;
        log.frontmatter.ended = ended;
        let (anchor, description) = match task.map(|i| &main.tasks[i]) {
            Some(tc) => (
                Some((tc.phase, tc.block)),
                Some(tc.description.clone()).filter(|d| !d.is_empty()),
            ),
            None => (seen_at, None),
        };
        let mut imported = crate::imported(
            crate::Format::ClaudeCode,
            &source,
            key,
            &own,
            log,
            child_warnings,
        );
        imported.data = data;
        children.push(Child {
            imported,
            link: SubagentLink {
                agent,
                anchor,
                description,
                summary,
            },
        });
    }
    let (log, data) = main.into_log(path, "Claude Code session");
    let mut imported =
        crate::imported(crate::Format::ClaudeCode, path, sid, &hashed, log, warnings);
    imported.data = data;
    imported.children = children;
    Ok(imported)
}

/// The subagent files of the transcript at `path` with `session_id`:
/// `<stem>/subagents/*.jsonl`, then `agent-*.jsonl` beside it that name
/// the same session.
fn subagent_files(path: &Path, session_id: Option<&str>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let jsonl_in = |dir: &Path| -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        files
    };
    out.extend(jsonl_in(&path.with_extension("").join("subagents")));
    if let (Some(dir), Some(sid)) = (path.parent(), session_id) {
        out.extend(jsonl_in(dir).into_iter().filter(|p| {
            p != path
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("agent-"))
                && first_session_id(p).as_deref() == Some(sid)
        }));
    }
    out
}

/// The main chain's `Task` call that started the subagent run `t`: the
/// first unused one whose prompt is the run's first prompt, else the first
/// unused one at all (in order: runs follow their calls).
fn matching_task(main: &Transcript, t: &Transcript, used: &mut HashSet<usize>) -> Option<usize> {
    let prompt = t.first_prompt.as_deref().map(str::trim);
    let found = main
        .tasks
        .iter()
        .enumerate()
        .find(|(i, tc)| !used.contains(i) && Some(tc.prompt.trim()) == prompt)
        .or_else(|| {
            main.tasks
                .iter()
                .enumerate()
                .find(|(i, _)| !used.contains(i))
        })
        .map(|(i, _)| i);
    if let Some(i) = found {
        used.insert(i);
    }
    found
}
