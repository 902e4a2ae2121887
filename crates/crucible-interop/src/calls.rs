//! What the line-based importers (Claude Code, Codex, codeloops) share: JSONL read
//! line by line with warnings, and tool calls found again by their id when
//! their result comes.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crucible_core::{Block, Phase, ToolCall, cut, one_line};

use crate::ImportWarning;

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
        match serde_json::from_str(line) {
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

/// Tool calls by id: where each is, so its result can be put on it.
#[derive(Debug, Default)]
pub(crate) struct CallBook {
    /// id → (phase, block, call).
    at: HashMap<String, (usize, usize, usize)>,
}

impl CallBook {
    /// Adds `call` to the last phase (a `Start` phase when there is none),
    /// in its last tool-call list or a new one.
    pub(crate) fn add(&mut self, phases: &mut Vec<Phase>, call: ToolCall, id: Option<&str>) {
        if phases.is_empty() {
            phases.push(Phase::new("Start", None, Some("main".into())));
        }
        let pi = phases.len() - 1;
        let p = &mut phases[pi];
        if !matches!(p.blocks.last(), Some(Block::ToolCalls { .. })) {
            p.blocks.push(Block::ToolCalls { calls: Vec::new() });
        }
        let bi = p.blocks.len() - 1;
        if let Some(Block::ToolCalls { calls }) = p.blocks.last_mut() {
            if let Some(id) = id {
                self.at.insert(id.to_owned(), (pi, bi, calls.len()));
            }
            calls.push(call);
        }
    }

    /// Puts a result on the call with `id`: its summary, and ✗ if `failed`.
    pub(crate) fn answer(&self, phases: &mut [Phase], id: &str, output: &str, failed: bool) {
        if let Some(&(pi, bi, ci)) = self.at.get(id)
            && let Some(Block::ToolCalls { calls }) = phases[pi].blocks.get_mut(bi)
            && let Some(c) = calls.get_mut(ci)
        {
            let s = cut(&one_line(output.trim()), crucible_core::SUMMARY_LIMIT);
            c.summary = (!s.is_empty()).then_some(s);
            c.failed = failed;
        }
    }
}
