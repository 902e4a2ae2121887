//! ConnectOnion session YAML (seeds 000 and 001, ConnectOnion 0.5.x):
//! `.co/sessions/<agent>.yaml`, one file per agent, rewritten whole after
//! each turn; and the eval files of 1.x (`.co/evals/<slug>.yaml`).
//!
//! - `name` → the participant (and the source id); `created` (or the older
//!   `timestamp`, else the turns' own times) → started; tokens and cost as
//!   [`Spend`] reads them (0.5.x and `co eval` write running totals);
//!   `system_prompt` → the `system-prompt` block;
//! - each of `turns[]` → a phase named from its `input`, with the turn's
//!   `model`, `duration_ms`, own tokens and cost, and the time it ended
//!   (`timestamp`, less the duration) as phase metadata; the turn's
//!   messages (`messages.<N>` in seed 000 and 0.5.x, the turn's `messages`
//!   JSON string in seed 001) give its `[!user]` callout, replies and tool
//!   calls (kept whole in the sidecar), and `result` the final reply when
//!   the messages end before it; a turn without messages gives the input
//!   as `[!user]`, `tools_called` (`run(command='ls -la')` or a bare name)
//!   as tool calls and `result` as the reply;
//! - eval fields become the callouts `cru session eval` reads, right after
//!   the user's words: `expected` (or seed 001's `eval.expect_result`) and
//!   `eval.expect_tools` an `[!expect]`; `passed`, `co eval`'s `pass` (with
//!   its `analysis`) or an `evaluation` of pass/fail an `[!eval]`, and each
//!   earlier run of `co eval`'s `history` one more; an `evaluation` that is
//!   notes stays in the phase's metadata comment;
//! - the session is `paused` at its last turn: ConnectOnion resumes it by
//!   adding turns, and so can `cru session resume`;
//! - an eval summary (`.co/evals/<slug>.yaml`: `runs`, turns with `output`,
//!   `meta` as a JSON string, `history` of earlier runs) reads the same way,
//!   its messages from the latest run's `<slug>/run_<N>.yaml` (with the
//!   system prompt and `cwd`); `meta` gives each phase its tokens, cost,
//!   duration and time;
//! - turns, messages and run files are counted; unknown keys are counted by
//!   name and kept; of a session file, what an export would not give back
//!   is kept in the sidecar ([`residue`]), so that `export(import(f)) = f`.

use std::path::Path;

use serde_json::Value;
use serde_yaml::Value as Yaml;

use crucible_core::{
    AgentRef, Block, Callout, CalloutKind, Frontmatter, Phase, SessionId, SessionLog, Timestamp,
    ToolCall, one_line,
};
use crucible_core::{DataRecord, Expectation, SessionData, SourceData, ToolPattern};

use crate::messages::{assistant_blocks, push_assistant};
use crate::transcript::{PhaseCalls, finish_paused, phase_name, text_of, title_from};
use crate::{ImportError, ImportWarning, Imported, RecordTally};

/// True when the text is YAML with a `turns` list and a `name`,
/// `messages` or `runs` (a file `co eval` has run; one only authored, with
/// no run yet, is no session). The head of a file is parsed as YAML when
/// it is whole; a markdown page that shows such YAML in a fenced block
/// (ConnectOnion's own docs do) is not one.
pub(crate) fn looks_like(bytes: &[u8]) -> bool {
    if let Ok(doc) = serde_yaml::from_slice::<Yaml>(bytes) {
        let has = |key: &str| doc.get(key).is_some();
        return doc.get("turns").is_some_and(Yaml::is_sequence)
            && (has("name") || has("messages") || has("runs"));
    }
    // A head cut off inside the file does not parse: its top-level keys
    // are looked for line by line.
    let text = String::from_utf8_lossy(bytes);
    let has = |key: &str| {
        text.lines()
            .any(|l| l.starts_with(key) && l[key.len()..].starts_with(':'))
    };
    let fenced = text.lines().any(|l| l.starts_with("```"));
    bytes.len() >= 64 * 1024
        && !fenced
        && has("turns")
        && (has("name") || has("messages") || has("runs"))
}

/// How ConnectOnion writes a time with no zone (read as UTC).
const CIVIL: &[&str] = &["%Y-%m-%d %H:%M:%S"];

/// `'2025-12-03 10:12:44'` (local time, no zone; read as UTC) or ISO-8601;
/// a value that is no valid time is `None` here and a warning from
/// [`bad_times`].
fn time_of(v: Option<&Yaml>) -> Option<Timestamp> {
    crate::source_time::parse(v?.as_str()?, CIVIL).ok()
}

/// A warning, at its line, for each time the file carries that is not a
/// valid one: the session's start or a turn's time then comes from
/// elsewhere, and the user is told rather than shown a time shifted.
fn bad_times(path: &Path, text: &str, doc: &Yaml, warnings: &mut Vec<ImportWarning>) {
    let mut found: Vec<(&str, String)> = ["created", "timestamp", "updated"]
        .into_iter()
        .filter_map(|k| Some((k, doc.get(k)?.as_str()?.to_owned())))
        .collect();
    for t in doc
        .get("turns")
        .and_then(Yaml::as_sequence)
        .into_iter()
        .flatten()
    {
        for k in ["timestamp", "ts"] {
            if let Some(v) = t.get(k).and_then(Yaml::as_str) {
                found.push((k, v.to_owned()));
            }
        }
        if let Some(v) = meta_of(t).get("ts").and_then(Value::as_str) {
            found.push(("ts", v.to_owned()));
        }
    }
    for (key, value) in found {
        if let Err(why) = crate::source_time::parse(&value, CIVIL) {
            warnings.push(ImportWarning {
                path: path.to_owned(),
                line: crate::source_time::line_of(text, key, value.trim()),
                message: format!("{key}: {why}; not used"),
            });
        }
    }
}

fn json_of(y: &Yaml) -> Value {
    serde_json::to_value(y).unwrap_or(Value::Null)
}

pub(crate) fn import(path: &Path) -> Result<Imported, ImportError> {
    let bytes = crate::read_source(path)?;
    let doc: Yaml = serde_yaml::from_slice(&bytes).map_err(|e| ImportError::Invalid {
        path: path.to_owned(),
        line: e.location().map_or(1, |l| l.line()),
        message: format!("not YAML: {e}"),
    })?;
    let mut warnings = Vec::new();
    bad_times(path, &String::from_utf8_lossy(&bytes), &doc, &mut warnings);
    let name = doc.get("name").and_then(Yaml::as_str).unwrap_or("agent");
    // A session file is named after its agent; an eval summary after its
    // first input, which is no agent's name.
    let is_eval = doc.get("runs").is_some();
    let agent = agent_of(if is_eval { "agent" } else { name });
    let turns = doc
        .get("turns")
        .and_then(Yaml::as_sequence)
        .cloned()
        .unwrap_or_default();
    let spend = Spend::of(&doc, &turns);
    // An eval summary (`.co/evals/<slug>.yaml`): the latest run's file
    // holds the messages, the system prompt and the run's totals.
    let run = latest_run(path, &doc, &mut warnings);
    let mut log = SessionLog::new(frontmatter_of(path, &doc, &agent, &spend, run.as_ref()));
    log.preamble.extend(system_prompt_of(&doc, run.as_ref()));
    let mut kept = Vec::new();
    let mut reader = TurnReader {
        path,
        doc: &doc,
        turns: &turns,
        agent: &agent,
        spend: &spend,
        run: run.as_ref(),
        records: RecordTally::default(),
        warnings,
        data: SessionData::default(),
        counted: PhaseCalls::default(),
    };
    tally_keys(&doc, &mut reader.records, &mut kept);
    let phases: Vec<Phase> = (0..turns.len()).map(|k| reader.phase(k)).collect();
    finish_paused(&mut log, title_of(&turns, name), phases);
    let mut hashed = bytes;
    if let Some(r) = &run {
        hashed.extend(&r.bytes);
        reader.records.read("run");
        for _ in 0..r.system_messages {
            reader.records.read("message");
        }
    }
    let TurnReader {
        records,
        warnings,
        data,
        ..
    } = reader;
    let mut out = crate::imported(
        crate::Format::ConnectOnion,
        path,
        Some(name.to_owned()),
        &hashed,
        log,
        warnings,
    );
    out.records = records;
    out.data = data;
    if is_eval {
        out.data.records.extend(kept);
    } else {
        // A session file comes back from an export as it was: what the
        // export would not give back is kept (unknown keys among it).
        let residue = residue(&doc, &out.log, &out.data);
        out.data.records.extend(residue);
    }
    Ok(out)
}

/// The session's system prompt (an eval summary's is in its run's file).
fn system_prompt_of(doc: &Yaml, run: Option<&Run>) -> Option<Block> {
    let text = doc
        .get("system_prompt")
        .or_else(|| run.and_then(|r| r.doc.get("system_prompt")))
        .and_then(Yaml::as_str)
        .filter(|sp| !sp.trim().is_empty())?;
    Some(Block::SystemPrompt {
        text: text.trim_end().to_owned(),
    })
}

/// The title: the first turn's input, else the agent's name.
fn title_of(turns: &[Yaml], name: &str) -> String {
    turns
        .first()
        .and_then(|t| t.get("input"))
        .and_then(Yaml::as_str)
        .and_then(title_from)
        .unwrap_or_else(|| format!("ConnectOnion session {name}"))
}

/// A name as an agent: `gmail agent` → `gmail-agent`.
fn agent_of(name: &str) -> AgentRef {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '.' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect::<String>()
        .parse()
        .unwrap_or_else(|_| "agent".parse().expect("valid"))
}

/// The session's frontmatter: its start, agent, model, spend, and what an
/// eval's run file adds.
fn frontmatter_of(
    path: &Path,
    doc: &Yaml,
    agent: &AgentRef,
    spend: &Spend,
    run: Option<&Run>,
) -> Frontmatter {
    let started = started_of(doc).unwrap_or_else(|| crate::transcript::mtime(path));
    let mut fm = Frontmatter::new(SessionId::new("imported").expect("valid"), started);
    fm.participants.push(agent.clone());
    fm.tokens_used = spend.tokens;
    fm.cost_usd = spend.cost;
    if spend.running_totals {
        // What the file says, beside what was spent: ConnectOnion's session
        // total adds up running totals, so it counts early turns again.
        for key in ["total_tokens", "total_cost"] {
            // Into core's value as serde reads it (a tagged total, never seen
            // in a real file, is left out).
            if let Some(v) = doc.get(key)
                && let Ok(v) = serde_yaml::from_value::<crucible_core::yaml::Value>(v.clone())
            {
                fm.extra.insert(format!("source_{key}"), v);
            }
        }
    }
    fm.model = doc.get("model").and_then(Yaml::as_str).map(str::to_owned);
    if let Some(r) = run {
        // The run file's numbers are its last turn's: the turns' own
        // numbers add up to the session's, and these are only a fallback.
        if fm.tokens_used.is_none() {
            fm.tokens_used = r.doc.get("tokens").and_then(Yaml::as_u64);
        }
        if fm.cost_usd.is_none() {
            fm.cost_usd = r
                .doc
                .get("cost")
                .and_then(Yaml::as_f64)
                .filter(|&c| c > 0.0);
        }
        if let Some(cwd) = r.doc.get("cwd").and_then(Yaml::as_str) {
            fm.extra.insert("cwd", cwd);
        }
    }
    if let Some(runs) = doc.get("runs").and_then(Yaml::as_u64) {
        fm.extra.insert("runs", runs);
    }
    fm
}

/// Reads a file's turns into phases, counting what it reads and keeping
/// each call whole.
struct TurnReader<'a> {
    path: &'a Path,
    doc: &'a Yaml,
    turns: &'a [Yaml],
    agent: &'a AgentRef,
    spend: &'a Spend,
    run: Option<&'a Run>,
    records: RecordTally,
    warnings: Vec<ImportWarning>,
    data: SessionData,
    /// The calls already in the turn being read.
    counted: PhaseCalls,
}

impl TurnReader<'_> {
    /// Turn `k` as a phase.
    fn phase(&mut self, k: usize) -> Phase {
        let t = &self.turns[k];
        let input = t
            .get("input")
            .and_then(Yaml::as_str)
            .unwrap_or("")
            .to_owned();
        let mut p = Phase::new(
            phase_name(&input, k + 1),
            Some(self.agent.clone()),
            Some("main".into()),
        );
        p.meta.model = t.get("model").and_then(Yaml::as_str).map(str::to_owned);
        p.meta.duration_ms = t.get("duration_ms").and_then(Yaml::as_u64);
        let meta = meta_of(t);
        if p.meta.duration_ms.is_none() {
            p.meta.duration_ms = meta.get("duration_ms").and_then(Value::as_u64);
        }
        if let Some(&(tokens, cost)) = self.spend.per_turn.get(k) {
            p.meta.tokens = tokens;
            p.meta.cost_usd = cost;
        }
        self.records.read("turn");
        let ended = time_of(t.get("timestamp").or_else(|| t.get("ts"))).or_else(|| {
            let ts = meta.get("ts").and_then(Value::as_str)?;
            time_of(Some(&Yaml::String(ts.to_owned())))
        });
        if let Some(end) = &ended {
            let ms = i64::try_from(p.meta.duration_ms.unwrap_or(0)).unwrap_or(0);
            p.meta.started = Some(Timestamp::from_unix_ms(end.unix_ms() - ms));
        }
        match self.messages(k) {
            Some(msgs) if !msgs.is_empty() => {
                for _ in &msgs {
                    self.records.read("message");
                }
                for (i, m) in msgs.iter().enumerate() {
                    match m.get("role").and_then(Value::as_str) {
                        Some("user") => {
                            let words = m.get("content").map(text_of).unwrap_or_default();
                            if !words.trim().is_empty() {
                                p.blocks
                                    .push(Block::Callout(Callout::user(words.trim(), None)));
                            }
                        }
                        Some("assistant") => {
                            let turn = assistant_blocks(&msgs, i, self.agent);
                            push_assistant(&mut p, k, turn, &mut self.data, &mut self.counted);
                        }
                        _ => {}
                    }
                }
            }
            _ => {
                // Running totals list the earlier turns' calls again.
                let earlier = match k.checked_sub(1).map(|j| &self.turns[j]) {
                    Some(prev) if self.spend.running_totals => tools_of(prev).len(),
                    _ => 0,
                };
                summary_blocks(t, &input, self.agent, earlier, &mut p);
            }
        }
        final_reply(t, self.agent, &mut p);
        eval_notes(t, ended.as_ref(), &mut p);
        p
    }

    /// Turn `k`'s messages: keyed by turn (seed 000, 0.5.x), a JSON string
    /// in the turn (seed 001), or the eval run file's.
    fn messages(&mut self, k: usize) -> Option<Vec<Value>> {
        let t = &self.turns[k];
        let number = t.get("turn").and_then(Yaml::as_u64).unwrap_or(k as u64 + 1);
        match t.get("messages") {
            Some(Yaml::String(s)) => {
                if let Ok(Value::Array(a)) = serde_json::from_str::<Value>(s) {
                    Some(a)
                } else {
                    self.warnings.push(ImportWarning {
                    path: self.path.to_owned(),
                    line: None,
                    message: format!(
                        "turn {number}: `messages` is not a JSON array; the turn summary is used"
                    ),
                });
                    None
                }
            }
            _ => self
                .doc
                .get("messages")
                .and_then(Yaml::as_mapping)
                .and_then(|m| {
                    m.get(Yaml::Number(number.into()))
                        .or_else(|| m.get(Yaml::String(number.to_string())))
                })
                .and_then(Yaml::as_sequence)
                .map(|s| s.iter().map(json_of).collect())
                .or_else(|| {
                    self.run
                        .filter(|r| r.turns.len() == self.turns.len())
                        .map(|r| r.turns[k].clone())
                }),
        }
    }
}

/// What the turn was expected to do and its recorded verdicts, as the
/// callouts `cru session eval` reads, right after the user's words; an
/// `evaluation` that is notes, and older files' history, on the phase.
fn eval_notes(t: &Yaml, ended: Option<&Timestamp>, p: &mut Phase) {
    let field = |key: &str| t.get(key).filter(|v| !is_blank(v));
    let verdict = verdict_of(
        field("passed").or_else(|| field("pass")),
        field("evaluation"),
    );
    if let Some(v) = field("evaluation").filter(|_| verdict.is_none()) {
        p.meta.extra.push(("evaluation".to_owned(), scalar(v)));
    }
    // Earlier runs of an eval turn: `co eval`'s verdicts become
    // `[!eval]` callouts (oldest first); older files' notes stay notes.
    let (earlier, notes_of_runs) = history_of(t.get("history"));
    if let Some(runs) = notes_of_runs {
        p.meta.extra.push(("history".to_owned(), runs));
    }
    let eval = t.get("eval");
    let expect_tools: Vec<String> = match eval.and_then(|e| e.get("expect_tools")) {
        Some(Yaml::Sequence(items)) => items.iter().map(scalar).collect(),
        Some(v) if !is_blank(v) => scalar(v).split(',').map(|s| s.trim().to_owned()).collect(),
        _ => Vec::new(),
    };
    let expect_result = eval
        .and_then(|e| e.get("expect_result"))
        .or_else(|| field("expected"))
        .filter(|v| !is_blank(v))
        .map(scalar);
    let at = p
        .blocks
        .iter()
        .position(|b| matches!(b, Block::Callout(c) if c.kind() == CalloutKind::User))
        .map_or(0, |i| i + 1);
    let mut notes = Vec::new();
    if !expect_tools.is_empty() || expect_result.is_some() {
        let expect = Expectation {
            tools: expect_tools
                .into_iter()
                .map(|name| ToolPattern { name, args: None })
                .collect(),
            result: expect_result,
            ..Expectation::default()
        };
        notes.push(expect.to_callout());
    }
    notes.extend(earlier);
    if let Some(passed) = verdict {
        let analysis = field("analysis").map(scalar);
        notes.push(eval_callout(passed, ended, analysis.as_deref()));
    }
    for (i, c) in notes.into_iter().enumerate() {
        p.blocks.insert(at + i, Block::Callout(c));
    }
}

/// What an export of an imported session file would not give back, by
/// part: the top-level keys, each turn's summary, each turn's messages;
/// `{"connectonion": "top" | "turn", "set": {...}, "unset": [...]}` and
/// `{"connectonion": "messages", "messages": [...]}` records.
fn residue(doc: &Yaml, log: &SessionLog, data: &SessionData) -> Vec<DataRecord> {
    let want = crate::export::connectonion_document(log, data);
    let mut out = Vec::new();
    let mut record = |phase: Option<usize>, record: Value| {
        out.push(DataRecord::Source(SourceData {
            phase,
            line: None,
            record,
        }));
    };
    let structural = ["turns", "system_prompt", "messages"];
    let mut top = serde_yaml::Mapping::new();
    for (k, v) in doc.as_mapping().into_iter().flatten() {
        if !k.as_str().is_some_and(|k| structural.contains(&k)) {
            top.insert(k.clone(), v.clone());
        }
    }
    if let Some(diff) = mapping_diff(&top, &want.top) {
        record(
            None,
            serde_json::json!({"connectonion": "top", "set": diff.0, "unset": diff.1}),
        );
    }
    let turns = doc.get("turns").and_then(Yaml::as_sequence);
    for (i, t) in turns.into_iter().flatten().enumerate() {
        if let (Some(have), Some(want)) = (t.as_mapping(), want.turns.get(i))
            && let Some((set, unset)) = mapping_diff(have, want)
        {
            record(
                Some(i),
                serde_json::json!({"connectonion": "turn", "set": set, "unset": unset}),
            );
        }
    }
    // A file without the messages section (seed 001 keeps them in the
    // turns) has none to give back.
    let Some(by_turn) = doc.get("messages").and_then(Yaml::as_mapping) else {
        record(
            None,
            serde_json::json!({"connectonion": "no_messages_section"}),
        );
        return out;
    };
    for (i, derived) in want.messages.iter().enumerate() {
        let n = i as u64 + 1;
        let have: Vec<Value> = by_turn
            .get(Yaml::from(n))
            .or_else(|| by_turn.get(Yaml::from(n.to_string())))
            .and_then(Yaml::as_sequence)
            .map(|s| s.iter().map(json_of).collect())
            .unwrap_or_default();
        if &have != derived {
            record(
                Some(i),
                serde_json::json!({"connectonion": "messages", "messages": have}),
            );
        }
    }
    out
}

/// The keys of `have` whose values `want` lacks or differs on, and the
/// keys `want` has that `have` has not; `None` when they agree.
fn mapping_diff(
    have: &serde_yaml::Mapping,
    want: &serde_yaml::Mapping,
) -> Option<(serde_json::Map<String, Value>, Vec<Value>)> {
    let key = |k: &Yaml| k.as_str().map(str::to_owned);
    let set: serde_json::Map<String, Value> = have
        .iter()
        .filter(|(k, v)| want.get(*k) != Some(*v))
        .filter_map(|(k, v)| Some((key(k)?, json_of(v))))
        .collect();
    let unset: Vec<Value> = want
        .keys()
        .filter(|k| !have.contains_key(*k))
        .filter_map(|k| key(k).map(Value::String))
        .collect();
    (!set.is_empty() || !unset.is_empty()).then_some((set, unset))
}

/// An eval's latest run, from `<slug>/run_<N>.yaml` beside the summary.
struct Run {
    doc: Yaml,
    bytes: Vec<u8>,
    /// Its messages split at each user message: one group per turn.
    turns: Vec<Vec<Value>>,
    /// Its system messages (the run's `system_prompt` says the same).
    system_messages: usize,
}

/// The run file of an eval summary's latest run (`runs: N`), when there is
/// one; a damaged one is a warning, and the turn summaries are used.
fn latest_run(path: &Path, doc: &Yaml, warnings: &mut Vec<ImportWarning>) -> Option<Run> {
    let n = doc.get("runs").and_then(Yaml::as_u64)?;
    let run_path = path.with_extension("").join(format!("run_{n}.yaml"));
    let bytes = std::fs::read(&run_path).ok()?;
    let mut warn = |line: Option<usize>, message: String| {
        warnings.push(ImportWarning {
            path: run_path.clone(),
            line,
            message,
        });
    };
    let run_doc: Yaml = match serde_yaml::from_slice(&bytes) {
        Ok(d) => d,
        Err(e) => {
            warn(
                e.location().map(|l| l.line()),
                format!("not YAML ({e}); the turn summaries are used"),
            );
            return None;
        }
    };
    let messages: Vec<Value> = match run_doc.get("messages") {
        Some(Yaml::String(s)) => {
            if let Ok(Value::Array(a)) = serde_json::from_str::<Value>(s) {
                a
            } else {
                warn(
                    None,
                    "`messages` is not a JSON array; the turn summaries are used".into(),
                );
                Vec::new()
            }
        }
        Some(Yaml::Sequence(items)) => items.iter().map(json_of).collect(),
        _ => Vec::new(),
    };
    let mut turns: Vec<Vec<Value>> = Vec::new();
    let mut system_messages = 0;
    for m in messages {
        match m.get("role").and_then(Value::as_str) {
            Some("user") => turns.push(vec![m]),
            Some("system" | "developer") => system_messages += 1,
            _ => {
                if let Some(t) = turns.last_mut() {
                    t.push(m);
                }
            }
        }
    }
    let want = doc
        .get("turns")
        .and_then(Yaml::as_sequence)
        .map_or(0, Vec::len);
    if !turns.is_empty() && turns.len() != want {
        warn(
            None,
            format!(
                "{} user messages for {want} turns; the turn summaries are used",
                turns.len()
            ),
        );
    }
    Some(Run {
        doc: run_doc,
        bytes,
        turns,
        system_messages,
    })
}

/// `passed: true` or `evaluation: pass` as a verdict; notes are none.
fn verdict_of(passed: Option<&Yaml>, evaluation: Option<&Yaml>) -> Option<bool> {
    if let Some(b) = passed.and_then(Yaml::as_bool) {
        return Some(b);
    }
    match evaluation.map(scalar)?.trim().to_ascii_lowercase().as_str() {
        "pass" | "passed" | "true" => Some(true),
        "fail" | "failed" | "false" => Some(false),
        _ => None,
    }
}

/// `> [!eval] passed` for a verdict ConnectOnion recorded, with its
/// judge's analysis when `co eval` wrote one.
fn eval_callout(passed: bool, at: Option<&Timestamp>, analysis: Option<&str>) -> Callout {
    let mut body = Vec::new();
    if let Some(a) = analysis {
        body.push(format!("judge: {} {a}", if passed { "✓" } else { "✗" }));
    }
    body.push("by: connectonion (recorded in the source)".to_owned());
    if let Some(t) = at {
        body.push(format!("at: {t}"));
    }
    Callout::new("eval", if passed { "passed" } else { "failed" }, body)
}

/// An empty string or null: ConnectOnion writes `expected: ''` for none.
fn is_blank(v: &Yaml) -> bool {
    match v {
        Yaml::Null => true,
        Yaml::String(s) => s.trim().is_empty(),
        _ => false,
    }
}

/// A YAML value as one line of text (lists joined by commas).
fn scalar(v: &Yaml) -> String {
    match v {
        Yaml::String(s) => one_line(s),
        Yaml::Sequence(items) => items.iter().map(scalar).collect::<Vec<_>>().join(", "),
        other => one_line(serde_yaml::to_string(other).unwrap_or_default().trim()),
    }
}

/// A turn without messages: its input, the tools it called, its result.
fn summary_blocks(t: &Yaml, input: &str, agent: &AgentRef, earlier: usize, p: &mut Phase) {
    if !input.trim().is_empty() {
        p.blocks
            .push(Block::Callout(Callout::user(input.trim(), None)));
    }
    let calls: Vec<ToolCall> = tools_of(t)
        .iter()
        .skip(earlier)
        .map(|call| match call.split_once('(') {
            Some((name, rest)) => ToolCall::new(name.trim(), rest.trim_end_matches(')')),
            None => ToolCall::new(call.trim(), ""),
        })
        .collect();
    if !calls.is_empty() {
        p.blocks.push(Block::ToolCalls { calls });
    }
    // `result` in sessions, `output` in eval summaries.
    if let Some(r) = t
        .get("result")
        .or_else(|| t.get("output"))
        .and_then(Yaml::as_str)
        && !r.trim().is_empty()
    {
        p.blocks
            .push(Block::Callout(Callout::reply(Some(agent), r.trim())));
    }
}

/// An eval turn's numbers, in `meta` (a JSON string) in files of the
/// 1.x logger.
fn meta_of(t: &Yaml) -> Value {
    t.get("meta")
        .and_then(Yaml::as_str)
        .and_then(|m| serde_json::from_str(m).ok())
        .unwrap_or(Value::Null)
}

/// When the session started, by the file's own times: `created` (or the
/// older `timestamp`), else the earliest time a turn carries (`co eval`
/// files have no `created`), else `updated`.
fn started_of(doc: &Yaml) -> Option<Timestamp> {
    time_of(doc.get("created"))
        .or_else(|| time_of(doc.get("timestamp")))
        .or_else(|| {
            let turns = doc.get("turns")?.as_sequence()?;
            turns
                .iter()
                .filter_map(|t| {
                    time_of(t.get("timestamp").or_else(|| t.get("ts"))).or_else(|| {
                        let ts = meta_of(t).get("ts")?.as_str()?.to_owned();
                        time_of(Some(&Yaml::String(ts)))
                    })
                })
                .min_by_key(Timestamp::unix_ms)
        })
        .or_else(|| time_of(doc.get("updated")))
}

/// What a file's turns spent, and the session's total.
#[derive(Debug, Default)]
struct Spend {
    /// Each turn's own tokens and cost.
    per_turn: Vec<(Option<u64>, Option<f64>)>,
    tokens: Option<u64>,
    cost: Option<f64>,
    /// The turns carry running totals (see [`Spend::of`]).
    running_totals: bool,
}

impl Spend {
    /// ConnectOnion 0.5.x sessions and `co eval` (1.x) sum a turn's
    /// numbers over the agent's whole trace so far, so each turn's
    /// `tokens`, `cost` and `tools_called` include the turns before it
    /// (and 0.5.x's `total_tokens` adds those running totals up again).
    /// They are told as [`running_totals`] says; a turn's own spend is
    /// then the difference, the session's the last total. Otherwise the file's `total_tokens` and `total_cost` are the
    /// session's, and where it has none (the 1.x logger's eval files, with
    /// a per-turn `meta`) the turns' numbers add up to it.
    fn of(doc: &Yaml, turns: &[Yaml]) -> Self {
        let raw: Vec<(Option<u64>, Option<f64>)> = turns
            .iter()
            .map(|t| {
                let meta = meta_of(t);
                let tokens = t
                    .get("tokens")
                    .and_then(Yaml::as_u64)
                    .or_else(|| meta.get("tokens").and_then(Value::as_u64));
                let cost = t
                    .get("cost")
                    .and_then(Yaml::as_f64)
                    .or_else(|| meta.get("cost").and_then(Value::as_f64))
                    .filter(|c| c.is_finite());
                (tokens, cost)
            })
            .collect();
        let running_totals = running_totals(doc, turns, &raw);
        let per_turn: Vec<(Option<u64>, Option<f64>)> = if running_totals {
            let mut before = (0, 0.0);
            raw.iter()
                .map(|&(t, c)| {
                    let (t, c) = (t.unwrap_or(0), c.unwrap_or(0.0));
                    let own = (t.saturating_sub(before.0), round_cost(c - before.1));
                    before = (t, c);
                    (Some(own.0), Some(own.1))
                })
                .collect()
        } else {
            raw
        };
        let summed_tokens: Option<u64> = per_turn.iter().filter_map(|p| p.0).reduce(|a, b| a + b);
        let summed_cost: Option<f64> = per_turn
            .iter()
            .filter_map(|p| p.1)
            .reduce(|a, b| a + b)
            .map(round_cost);
        // A file's own total, where it has one that is not a sum of
        // running totals; else the turns' sum. ConnectOnion writes 0 for a
        // session that counted nothing.
        let own = |key: &str| doc.get(key).filter(|_| !running_totals);
        let tokens = own("total_tokens")
            .and_then(Yaml::as_u64)
            .or(summed_tokens)
            .filter(|&t| t > 0);
        let cost = own("total_cost")
            .and_then(Yaml::as_f64)
            .or(summed_cost)
            .filter(|&c| c > 0.0);
        Self {
            per_turn,
            tokens,
            cost,
            running_totals,
        }
    }
}

/// See [`Spend::of`]: the turns' lists repeat earlier calls (each begins
/// with the one before, and one that does is not empty), tokens never
/// fall, and the writer is one that sums: `co eval` (its turns carry `ts`
/// and `run`), or a session logger whose messages show only each turn's
/// own calls (a list longer than its turn's messages by exactly the calls
/// before). An export by cru lists a turn's own calls, and never reads so.
fn running_totals(doc: &Yaml, turns: &[Yaml], raw: &[(Option<u64>, Option<f64>)]) -> bool {
    let lists: Vec<Vec<String>> = turns.iter().map(tools_of).collect();
    let extends = lists.windows(2).all(|w| w[1].starts_with(&w[0]));
    let repeats = lists.windows(2).any(|w| !w[0].is_empty());
    let rising = raw
        .windows(2)
        .all(|w| matches!((w[0].0, w[1].0), (Some(a), Some(b)) if b >= a));
    let co_eval = turns
        .iter()
        .all(|t| t.get("ts").is_some() && t.get("run").is_some());
    let by_turn = doc.get("messages").and_then(Yaml::as_mapping);
    let own_calls = |k: usize| -> Option<usize> {
        let n = k as u64 + 1;
        let msgs = by_turn?
            .get(Yaml::from(n))
            .or_else(|| by_turn?.get(Yaml::from(n.to_string())))?
            .as_sequence()?;
        Some(
            msgs.iter()
                .filter_map(|m| m.get("tool_calls").and_then(Yaml::as_sequence))
                .map(Vec::len)
                .sum(),
        )
    };
    let messages_agree = (1..lists.len())
        .all(|k| own_calls(k) == Some(lists[k].len() - lists[k - 1].len().min(lists[k].len())));
    turns.len() >= 2 && extends && repeats && rising && (co_eval || messages_agree)
}

/// Costs to the 1/1,000,000 dollar: differences of rounded costs would
/// otherwise read `0.0020000000000000005`.
fn round_cost(c: f64) -> f64 {
    (c * 1e6).round() / 1e6
}

/// The keys of a session file and of its turns cru reads; any other is
/// counted by name and kept whole in the sidecar.
const DOC_KEYS: [&str; 13] = [
    "name",
    "session_id",
    "created",
    "updated",
    "timestamp",
    "total_cost",
    "total_tokens",
    "turns",
    "system_prompt",
    "messages",
    "runs",
    "model",
    "agent",
];
const TURN_KEYS: [&str; 22] = [
    "turn",
    "input",
    "result",
    "output",
    "model",
    "duration_ms",
    "tokens",
    "cost",
    "tools_called",
    "timestamp",
    "ts",
    "run",
    "expected",
    "evaluation",
    "passed",
    "pass",
    "analysis",
    "history",
    "meta",
    "messages",
    "eval",
    "tool_calls",
];

fn tally_keys(doc: &Yaml, records: &mut RecordTally, kept: &mut Vec<DataRecord>) {
    let mut keep = |phase: Option<usize>, key: String, v: &Yaml| {
        records.unknown(&key);
        kept.push(DataRecord::Source(SourceData {
            phase,
            line: None,
            record: serde_json::json!({ "connectonion_key": key, "value": json_of(v) }),
        }));
    };
    for (k, v) in doc.as_mapping().into_iter().flatten() {
        let k = k.as_str().unwrap_or_default();
        if !DOC_KEYS.contains(&k) {
            keep(None, format!("key {k}"), v);
        }
    }
    let turns = doc.get("turns").and_then(Yaml::as_sequence);
    for (i, t) in turns.into_iter().flatten().enumerate() {
        for (k, v) in t.as_mapping().into_iter().flatten() {
            let k = k.as_str().unwrap_or_default();
            if !TURN_KEYS.contains(&k) {
                keep(Some(i), format!("turn key {k}"), v);
            }
        }
    }
}

/// A turn's `history` of earlier runs: `co eval`'s (a JSON array in a
/// string, newest first, `{ts, pass, tokens, cost}`) as `[!eval]`
/// callouts, oldest first; entries without a verdict as a note.
fn history_of(history: Option<&Yaml>) -> (Vec<Callout>, Option<String>) {
    let entries: Vec<Value> = match history {
        Some(Yaml::String(s)) => serde_json::from_str(s).unwrap_or_default(),
        Some(Yaml::Sequence(items)) => items.iter().map(json_of).collect(),
        _ => Vec::new(),
    };
    let mut callouts = Vec::new();
    let mut notes = Vec::new();
    for h in entries.iter().rev() {
        if let Some(passed) = h.get("pass").and_then(Value::as_bool) {
            let at = h
                .get("ts")
                .and_then(Value::as_str)
                .and_then(|ts| time_of(Some(&Yaml::String(ts.to_owned()))));
            callouts.push(eval_callout(passed, at.as_ref(), None));
        } else {
            let n = h.get("run").map(value_text).unwrap_or_default();
            let verdict = h
                .get("evaluation")
                .map(value_text)
                .filter(|v| !v.trim().is_empty())
                .unwrap_or_else(|| "not evaluated".to_owned());
            notes.push(format!("run {n}: {verdict}"));
        }
    }
    // Oldest first, as the older files' notes always read.
    notes.reverse();
    (callouts, (!notes.is_empty()).then(|| notes.join("; ")))
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => one_line(s),
        other => other.to_string(),
    }
}

/// A turn's final reply (`result`, or `output` in eval files) when its
/// messages end before it: ConnectOnion 0.5.x keeps the messages up to the
/// last tool result, and the reply only in `result`.
fn final_reply(t: &Yaml, agent: &AgentRef, p: &mut Phase) {
    let Some(r) = t
        .get("result")
        .or_else(|| t.get("output"))
        .and_then(Yaml::as_str)
        .map(str::trim)
        .filter(|r| !r.is_empty())
    else {
        return;
    };
    let said = p.blocks.iter().any(|b| {
        matches!(b, Block::Callout(c) if c.kind.eq_ignore_ascii_case("reply") && c.text().trim() == r)
    });
    if !said {
        p.blocks
            .push(Block::Callout(Callout::reply(Some(agent), r)));
    }
}

/// A turn's `tools_called`: `add(a=2, b=3)` or a bare name each.
fn tools_of(t: &Yaml) -> Vec<String> {
    match t.get("tools_called") {
        Some(Yaml::Sequence(s)) => s
            .iter()
            .filter_map(Yaml::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_that_shows_session_yaml_is_no_session() {
        let page = b"# Eval files\n\n```yaml\nname: calc\nturns:\n- input: hi\n```\n";
        assert!(!looks_like(page));
        assert!(looks_like(b"name: calc\nturns:\n- input: hi\n"));
        // Authored, not yet run by `co eval`.
        assert!(!looks_like(
            b"agent: agent.py\nturns:\n- input: hi\n  expected: '5'\n"
        ));
        assert!(looks_like(
            b"agent: agent.py\nruns: 1\nturns:\n- input: hi\n"
        ));
    }
}
