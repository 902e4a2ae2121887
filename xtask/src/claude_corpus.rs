//! Synthetic Claude Code transcripts, laid out as `~/.claude/projects/`:
//! the usage of one message repeated on each of its lines, tool calls with
//! results (file contents make most of the bytes, as in real transcripts),
//! `<synthetic>` error replies, side chains inside a transcript, newer
//! `<sid>/subagents/agent-<id>.jsonl` files with the `Task` call that
//! started them, and older `agent-<id>.jsonl` files beside the transcript.
//! The same seed gives the same files.

use std::path::Path;

use serde_json::{Value, json};

use crate::corpus::{Rng, words};

/// What to generate.
#[derive(Debug, Clone, Copy)]
pub struct ClaudeCorpus {
    pub transcripts: usize,
    /// About how big each transcript is.
    pub bytes_each: usize,
    pub seed: u64,
}

/// Running ids and times shared by one transcript's lines.
struct Writer {
    rng: Rng,
    sid: String,
    cwd: String,
    clock_ms: i64,
    next: u64,
    prefix: String,
    /// The last line of the main chain and of the side chain running now:
    /// each line's `parentUuid`.
    last_main: Option<String>,
    last_side: Option<String>,
}

impl Writer {
    fn id(&mut self, kind: &str) -> String {
        self.next += 1;
        format!("{kind}_{}{:06}", self.prefix, self.next)
    }

    fn time(&mut self) -> String {
        self.clock_ms += self.rng.range(500, 20_000) as i64;
        let t = crucible_core::Timestamp::from_unix_ms(self.clock_ms);
        format!("{}.000Z", t.as_str().trim_end_matches('Z'))
    }

    fn base(&mut self, kind: &str, sidechain: bool) -> Value {
        let uuid = self.id("u");
        let parent = if sidechain {
            self.last_side.clone().or_else(|| self.last_main.clone())
        } else {
            self.last_main.clone()
        };
        if sidechain {
            self.last_side = Some(uuid.clone());
        } else {
            self.last_main = Some(uuid.clone());
        }
        json!({
            "parentUuid": parent,
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.sid,
            "version": "2.0.14",
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid,
            "timestamp": self.time(),
        })
    }

    fn usage(&mut self) -> Value {
        json!({
            "input_tokens": self.rng.range(1, 3_000),
            "cache_creation_input_tokens": self.rng.range(0, 5_000),
            "cache_read_input_tokens": self.rng.range(0, 60_000),
            "output_tokens": self.rng.range(1, 900),
        })
    }

    /// A user prompt.
    fn prompt(&mut self, text: &str, sidechain: bool) -> Value {
        if sidechain {
            // A new side chain hangs off the main chain.
            self.last_side = None;
        }
        let mut v = self.base("user", sidechain);
        v["message"] = json!({"role": "user", "content": text});
        v
    }

    /// One assistant message spread over one line per content block, each
    /// line with the same usage (as Claude Code writes them).
    fn assistant(&mut self, blocks: Vec<Value>, sidechain: bool, model: &str) -> Vec<Value> {
        let id = self.id("msg");
        let req = self.id("req");
        let usage = if model == "<synthetic>" {
            json!({"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 0})
        } else {
            self.usage()
        };
        let last = blocks.len().saturating_sub(1);
        let final_output = usage["output_tokens"].as_u64().unwrap_or(0);
        blocks
            .into_iter()
            .enumerate()
            .map(|(i, b)| {
                let mut v = self.base("assistant", sidechain);
                v["requestId"] = json!(req);
                // As Claude Code streams: one line per content block, the
                // earlier ones with a partial output count, the last with
                // the final one (counting the first undercounts).
                let mut usage = usage.clone();
                if i < last {
                    usage["output_tokens"] = json!((i as u64 + 1).min(final_output));
                }
                v["message"] = json!({
                    "id": id, "type": "message", "role": "assistant", "model": model,
                    "content": [b], "stop_reason": null, "usage": usage,
                });
                v
            })
            .collect()
    }

    fn result(&mut self, call: &str, content: &str, failed: bool, sidechain: bool) -> Value {
        let mut v = self.base("user", sidechain);
        v["message"] = json!({"role": "user", "content": [
            {"tool_use_id": call, "type": "tool_result", "content": content, "is_error": failed}
        ]});
        v
    }

    /// A tool call and its result, `size` bytes of output.
    fn tool_turn(&mut self, sidechain: bool, size: usize, out: &mut Vec<Value>) {
        let call = self.id("toolu");
        let path = format!("{}/src/{}.rs", self.cwd, words(&mut self.rng, 1));
        let (name, input) = match self.rng.range(0, 4) {
            0 => ("Read", json!({"file_path": path})),
            1 => (
                "Bash",
                json!({"command": format!("cargo test {}", words(&mut self.rng, 1))}),
            ),
            2 => (
                "Grep",
                json!({"pattern": words(&mut self.rng, 2), "path": self.cwd}),
            ),
            _ => (
                "Edit",
                json!({"file_path": path, "old_string": words(&mut self.rng, 4), "new_string": words(&mut self.rng, 5)}),
            ),
        };
        let text = json!({"type": "text", "text": words(&mut self.rng, 12)});
        let tool = json!({"type": "tool_use", "id": call, "name": name, "input": input});
        out.extend(self.assistant(vec![text, tool], sidechain, "claude-sonnet-4-5-20250929"));
        let mut content = String::with_capacity(size);
        while content.len() < size {
            content.push_str(&words(&mut self.rng, 12));
            content.push('\n');
        }
        let failed = self.rng.chance(8);
        out.push(self.result(&call, &content, failed, sidechain));
    }
}

fn write_lines(path: &Path, lines: &[Value]) -> anyhow::Result<()> {
    let mut text = String::new();
    for l in lines {
        text.push_str(&l.to_string());
        text.push('\n');
    }
    std::fs::write(path, text)?;
    Ok(())
}

/// A session id in the shape of a UUID v4.
fn session_id(rng: &mut Rng) -> String {
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        rng.next_u64() as u32,
        rng.next_u64() as u16,
        rng.next_u64() % 0x1000,
        rng.next_u64() % 0x1000,
        rng.next_u64() % 0x1_0000_0000_0000
    )
}

/// Real transcripts open with lines that are not messages: a resumed
/// session's summary, a file-history snapshot, hook progress.
fn opening_lines(w: &mut Writer) -> Vec<Value> {
    let mut lines =
        vec![json!({"type": "summary", "summary": words(&mut w.rng, 5), "leafUuid": "x"})];
    lines.push(
        json!({"type": "file-history-snapshot", "messageId": w.id("u"),
        "snapshot": {"trackedFileBackups": {}, "timestamp": "2025-08-24T00:00:00.000Z"},
        "isSnapshotUpdate": false}),
    );
    let mut hook = w.base("progress", false);
    hook["data"] = json!({"type": "hook_progress", "hookEvent": "SessionStart"});
    lines.push(hook);
    lines
}

/// A `Task` call in `lines` whose subagent's run is a file of its own under
/// `<session dir>/subagents/`; returns the bytes of that file.
fn subagent_file(
    w: &mut Writer,
    session_dir: &Path,
    size: usize,
    lines: &mut Vec<Value>,
) -> anyhow::Result<u64> {
    let prompt = words(&mut w.rng, 10);
    let call = w.id("toolu");
    let task = json!({"type": "tool_use", "id": call, "name": "Task", "input": {
        "description": words(&mut w.rng, 3), "prompt": prompt, "subagent_type": "general-purpose"}});
    lines.extend(w.assistant(vec![task], false, "claude-opus-4-1-20250805"));
    let agent = format!("{:07x}", w.rng.next_u64() % 0x1000_0000);
    let mut sub = vec![w.prompt(&prompt, true)];
    w.tool_turn(true, size / 2, &mut sub);
    for l in &mut sub {
        l["agentId"] = json!(agent);
    }
    let sub_dir = session_dir.join("subagents");
    std::fs::create_dir_all(&sub_dir)?;
    let p = sub_dir.join(format!("agent-{agent}.jsonl"));
    write_lines(&p, &sub)?;
    let answer = words(&mut w.rng, 20);
    lines.push(w.result(&call, &answer, false, false));
    Ok(std::fs::metadata(&p)?.len())
}

/// Writes the corpus under `root/projects/`; returns the bytes written.
pub fn generate(root: &Path, spec: &ClaudeCorpus) -> anyhow::Result<u64> {
    let mut rng = Rng::new(spec.seed);
    let mut total = 0u64;
    for n in 0..spec.transcripts {
        let project = format!("-home-dev-project{}", n % 20);
        let dir = root.join("projects").join(&project);
        std::fs::create_dir_all(&dir)?;
        let sid = session_id(&mut rng);
        let mut w = Writer {
            rng: Rng::new(rng.next_u64()),
            sid: sid.clone(),
            cwd: format!("/home/dev/project{}", n % 20),
            clock_ms: 1_756_000_000_000 + n as i64 * 3_600_000,
            next: 0,
            prefix: format!("{n:05}"),
            last_main: None,
            last_side: None,
        };
        let mut lines = opening_lines(&mut w);
        let turns = w.rng.range(3, 9);
        let calls_per_turn = 3;
        let size = (spec.bytes_each / (turns * calls_per_turn)).max(64);
        let inline_side = w.rng.chance(15);
        let sub_file = w.rng.chance(15);
        let old_file = w.rng.chance(5);
        for t in 0..turns {
            let ask = format!("{} {}", words(&mut w.rng, 3), words(&mut w.rng, 6));
            lines.push(w.prompt(&ask, false));
            for _ in 0..w.rng.range(1, calls_per_turn + 1) {
                let bytes = w.rng.range(size / 2, size * 3 / 2);
                w.tool_turn(false, bytes, &mut lines);
            }
            if t == 1 && inline_side {
                let ask = words(&mut w.rng, 8);
                lines.push(w.prompt(&ask, true));
                w.tool_turn(true, size / 4, &mut lines);
                let done = json!({"type": "text", "text": words(&mut w.rng, 10)});
                lines.extend(w.assistant(vec![done], true, "claude-sonnet-4-5-20250929"));
            }
            if t == 2 && sub_file {
                total += subagent_file(&mut w, &dir.join(&sid), size, &mut lines)?;
            }
            if w.rng.chance(5) {
                let err = json!({"type": "text", "text": "API Error: Request was aborted."});
                lines.extend(w.assistant(vec![err], false, "<synthetic>"));
            }
        }
        if old_file {
            let ask = words(&mut w.rng, 8);
            let mut side = vec![w.prompt(&ask, true)];
            w.tool_turn(true, size / 4, &mut side);
            let p = dir.join(format!("agent-{:08x}.jsonl", w.rng.next_u64() as u32));
            write_lines(&p, &side)?;
            total += std::fs::metadata(&p)?.len();
        }
        let p = dir.join(format!("{sid}.jsonl"));
        write_lines(&p, &lines)?;
        total += std::fs::metadata(&p)?.len();
    }
    Ok(total)
}
