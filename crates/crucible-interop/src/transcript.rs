//! What the importers share: JSONL read line by line with warnings, tool
//! calls found again by their id when their result comes, the text of
//! message content, tool arguments on one line, phase names from a user's
//! words, and the title and resume point of the session they make.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crucible_core::{
    Block, CallData, DataRecord, Frontmatter, Phase, PhaseId, SessionId, SessionLog, SessionStatus,
    Timestamp, ToolCall, cut, one_line, summary_line,
};

use crate::ImportWarning;

/// One line of a JSONL file as the importers read it: lone surrogates (a
/// cut emoji, which agents write) mended when the line does not parse
/// as it is.
pub(crate) fn json_line(line: &str) -> serde_json::Result<Value> {
    serde_json::from_str(line).or_else(|e| {
        crate::json_text::mend_lone_surrogates(line)
            .map_or(Err(e), |mended| serde_json::from_str(&mended))
    })
}

/// The JSON lines of `text`, with their line numbers; a line that does not
/// parse is a warning.
pub(crate) fn json_lines(
    path: &Path,
    text: &str,
    warnings: &mut Vec<ImportWarning>,
) -> Vec<(usize, Value)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match json_line(line) {
            Ok(v) => out.push((i + 1, v)),
            Err(e) => warnings.push(ImportWarning {
                path: path.to_owned(),
                line: Some(i + 1),
                message: format!("not JSON ({e}); skipped"),
            }),
        }
    }
    out
}

/// Tool calls by id: where each is, so its result can be put on it, and
/// each call kept whole for the session's sidecar ([`CallData`]).
#[derive(Debug, Default)]
pub(crate) struct CallBook {
    /// id → (phase, block, call in block, record).
    at: HashMap<String, (usize, usize, usize, usize)>,
    /// One record per call, in the order added.
    calls: Vec<CallData>,
    /// The calls already in the phase being added to.
    counted: PhaseCalls,
}

/// The tool calls of the phase being built, counted as it grows: a new
/// call's index in its phase (what a sidecar record says) costs the blocks
/// added since the last count, not a pass over the whole phase, which made
/// a phase of many calls quadratic. Blocks are only appended while a source
/// is read, and only the last one grows; all before it are settled.
#[derive(Debug, Default)]
pub(crate) struct PhaseCalls {
    phase: usize,
    blocks: usize,
    calls: usize,
}

impl PhaseCalls {
    /// The calls now in `p`, phase `pi`.
    pub(crate) fn count(&mut self, pi: usize, p: &Phase) -> usize {
        let (from, before) = if self.phase == pi && self.blocks <= p.blocks.len() {
            (self.blocks, self.calls)
        } else {
            (0, 0)
        };
        let settled = p.blocks.len().saturating_sub(1).max(from);
        let calls = before + p.blocks[from..settled].iter().map(calls_in).sum::<usize>();
        *self = Self {
            phase: pi,
            blocks: settled,
            calls,
        };
        calls + p.blocks[settled..].iter().map(calls_in).sum::<usize>()
    }
}

/// The tool calls a block holds.
fn calls_in(b: &Block) -> usize {
    match b {
        Block::ToolCalls { calls } => calls.len(),
        _ => 0,
    }
}

impl CallBook {
    /// Adds `call` to the last phase (a `Start` phase when there is none),
    /// in its last tool-call list or a new one, keeping the source's
    /// `arguments` whole.
    pub(crate) fn add_full(
        &mut self,
        phases: &mut Vec<Phase>,
        call: ToolCall,
        id: Option<&str>,
        arguments: Option<Value>,
    ) -> &mut CallData {
        let pi = phases.len().max(1) - 1;
        let p = current_phase(phases);
        // The call's index among the phase's calls: it is appended last.
        let flat = self.counted.count(pi, p);
        if !matches!(p.blocks.last(), Some(Block::ToolCalls { .. })) {
            p.blocks.push(Block::ToolCalls { calls: Vec::new() });
        }
        let bi = p.blocks.len() - 1;
        let record = self.calls.len();
        self.calls.push(CallData {
            phase: pi,
            call: flat,
            tool: call.tool.clone(),
            id: id.map(str::to_owned),
            arguments,
            ..CallData::default()
        });
        if let Some(Block::ToolCalls { calls }) = p.blocks.last_mut() {
            if let Some(id) = id {
                self.at.insert(id.to_owned(), (pi, bi, calls.len(), record));
            }
            calls.push(call);
        }
        &mut self.calls[record]
    }

    /// Puts a result on the call with `id`: its summary (from the text of
    /// `result`) and ✗ if `failed` on the markdown line, `result` whole in
    /// the call's record, which is returned for the rest (exit code,
    /// duration); `None` for an id no call has.
    pub(crate) fn answer_full(
        &mut self,
        phases: &mut [Phase],
        id: &str,
        result: Value,
        failed: bool,
    ) -> Option<&mut CallData> {
        let &(pi, bi, ci, record) = self.at.get(id)?;
        if let Some(Block::ToolCalls { calls }) = phases[pi].blocks.get_mut(bi)
            && let Some(c) = calls.get_mut(ci)
        {
            // A text result is summed up where it is, not copied first.
            let s = match &result {
                Value::String(text) => summary_line(text.trim(), crucible_core::SUMMARY_LIMIT),
                other => summary_line(text_of(other).trim(), crucible_core::SUMMARY_LIMIT),
            };
            c.summary = (!s.is_empty()).then_some(s);
            c.failed = failed;
        }
        let data = &mut self.calls[record];
        data.result = Some(result);
        Some(data)
    }

    /// The calls' records, for the sidecar.
    pub(crate) fn into_records(self) -> impl Iterator<Item = DataRecord> {
        self.calls.into_iter().map(DataRecord::Call)
    }
}

/// Starts a phase with the user's `words` (its name from their first line,
/// a `[!user]` callout holding them).
pub(crate) fn push_user_phase(phases: &mut Vec<Phase>, words: &str) {
    let mut p = Phase::new(
        phase_name(words, phases.len() + 1),
        None,
        Some("main".into()),
    );
    p.blocks.push(Block::Callout(crucible_core::Callout::user(
        words.trim(),
        None,
    )));
    phases.push(p);
}

/// The phase the agent's next words go to: the last, or a `Start` phase
/// when the agent speaks first.
pub(crate) fn current_phase(phases: &mut Vec<Phase>) -> &mut Phase {
    if phases.is_empty() {
        phases.push(Phase::new("Start", None, Some("main".into())));
    }
    phases.last_mut().expect("a phase was just ensured")
}

/// Adds the agent's reply `words` to the current phase as a `[!reply]`.
pub(crate) fn push_reply(phases: &mut Vec<Phase>, agent: &crucible_core::AgentRef, words: &str) {
    current_phase(phases)
        .blocks
        .push(Block::Callout(crucible_core::Callout::reply(
            Some(agent),
            words.trim(),
        )));
}

/// The text of a message's `content`: a string, or the text parts of an array.
pub(crate) fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str).or_else(|| p.as_str()))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// A phase name from a user's words: the first line, cut, without a
/// trailing `@`/`#` word (which a heading would read as agent or channel).
pub(crate) fn phase_name(words: &str, n: usize) -> String {
    let line = one_line(words.lines().find(|l| !l.trim().is_empty()).unwrap_or(""));
    let mut parts: Vec<&str> = line.split_whitespace().collect();
    while parts
        .last()
        .is_some_and(|w| w.starts_with('@') || w.starts_with('#'))
    {
        parts.pop();
    }
    let name = cut(&parts.join(" "), 60);
    if name.is_empty() {
        format!("Turn {n}")
    } else {
        name
    }
}

/// The file's modification time, as the session's start (a message array
/// carries no time of its own).
pub(crate) fn mtime(path: &Path) -> Timestamp {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or_else(Timestamp::now, |d| {
            Timestamp::from_unix_ms(i64::try_from(d.as_millis()).unwrap_or(0))
        })
}

/// True when a tool's output reads as a failure: it starts with `Error`,
/// `error` or a Python `Traceback`.
pub(crate) fn looks_failed(output: &str) -> bool {
    let t = output.trim_start();
    t.starts_with("Error") || t.starts_with("error") || t.starts_with("Traceback")
}

/// A title from a user's first words: the first line, cut to 80 characters.
pub(crate) fn title_from(words: &str) -> Option<String> {
    let title = cut(&one_line(words.lines().next().unwrap_or("").trim()), 80);
    (!title.is_empty()).then_some(title)
}

/// Gives `log` its title (frontmatter and `# Title` line) and its phases,
/// and leaves it paused at its last phase: an imported conversation can be
/// resumed where the source stopped.
pub(crate) fn finish_paused(log: &mut SessionLog, title: String, phases: Vec<Phase>) {
    log.frontmatter.title = Some(title.clone());
    log.preamble.insert(
        0,
        Block::Heading {
            level: 1,
            text: title,
        },
    );
    log.sections
        .extend(phases.into_iter().map(crucible_core::Section::Phase));
    log.frontmatter.status = SessionStatus::Paused;
    log.frontmatter.resume_point = log.phase_count().checked_sub(1).map(PhaseId::from_index);
}

/// The session a conversation makes: started when its first record says
/// (else when the file was last written), its frontmatter filled in by
/// `fill` (agent, model, tokens, kept keys), titled by the user's first
/// words (else `fallback_title`), and paused at its last phase.
pub(crate) fn conversation_session(
    path: &Path,
    started: Option<Timestamp>,
    first_prompt: Option<&str>,
    fallback_title: &str,
    phases: Vec<Phase>,
    fill: impl FnOnce(&mut Frontmatter),
) -> SessionLog {
    let started = started.unwrap_or_else(|| mtime(path));
    let mut fm = Frontmatter::new(SessionId::new("imported").expect("valid"), started);
    fill(&mut fm);
    let title = first_prompt
        .and_then(title_from)
        .unwrap_or_else(|| fallback_title.to_owned());
    let mut log = SessionLog::new(fm);
    finish_paused(&mut log, title, phases);
    log
}

/// The text of a session's last reply, a child's summary for its parent.
pub(crate) fn last_reply(log: &SessionLog) -> Option<String> {
    log.phases()
        .flat_map(|(_, p)| p.blocks.iter())
        .filter_map(|b| match b {
            Block::Callout(c) if c.kind == "reply" => Some(c.body.join("\n")),
            _ => None,
        })
        .last()
        .map(|s| summary_line(&s, crucible_core::SUMMARY_LIMIT))
}

/// [`utf8`], and a warning naming the first line that is not UTF-8 when
/// some bytes had to be replaced (with U+FFFD): text an agent wrote is
/// never changed without a word.
pub(crate) fn utf8_warned<'a>(
    path: &Path,
    bytes: &'a [u8],
    warnings: &mut Vec<ImportWarning>,
) -> std::borrow::Cow<'a, str> {
    // Checked once, the fast way; the slow check only finds where a bad
    // byte is.
    if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
        return std::borrow::Cow::Borrowed(text);
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        let at = e.valid_up_to();
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        warnings.push(ImportWarning {
            path: path.to_owned(),
            line: Some(line),
            message: "not UTF-8; the bytes that are not were replaced with U+FFFD".into(),
        });
    }
    utf8(bytes)
}

/// A source's bytes as text: borrowed when they are UTF-8 (checked the
/// fast way), else with the bad bytes replaced.
pub(crate) fn utf8(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The decoded size of base64 text.
pub(crate) fn base64_len(b64: &str) -> u64 {
    let chars = b64.bytes().filter(|b| !b.is_ascii_whitespace()).count() as u64;
    let pad = b64.bytes().rev().take_while(|&b| b == b'=').count() as u64;
    (chars / 4 * 3).saturating_sub(pad)
}

/// `[image: image/png, 12.3 KB]`.
pub(crate) fn image_marker(media_type: &str, bytes: u64) -> String {
    let kb = bytes as f64 / 1024.0;
    format!("[image: {media_type}, {kb:.1} KB]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_with_a_lone_surrogate_is_read_not_skipped() {
        let mut warnings = Vec::new();
        let text = "{\"text\":\"cut \\ud83d\"}\n{\"text\":\"ok\"}\n";
        let lines = json_lines(Path::new("t.jsonl"), text, &mut warnings);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].1["text"], "cut \u{fffd}");
    }

    #[test]
    fn image_sizes_come_from_the_base64() {
        assert_eq!(base64_len("aGVsbG8="), 5);
        assert_eq!(
            image_marker("image/png", 12_595),
            "[image: image/png, 12.3 KB]"
        );
    }
}
