//! Synthetic Codex rollouts, laid out as `~/.codex/sessions/YYYY/MM/DD/`,
//! with what real rollouts hold and what makes counting their tokens
//! hard: Codex's own context messages first (environment, IDE tabs), a
//! `turn_context` before every model request, reasoning, shell calls whose
//! JSON outputs carry exit codes (some non-zero), `token_count` events with
//! running totals, each sometimes re-emitted unchanged, and in some files a
//! counter that restarts. The same seed gives the same files.

use std::path::Path;

use serde_json::{Value, json};

use crate::corpus::{Rng, words};

/// What to generate.
#[derive(Debug, Clone, Copy)]
pub struct CodexCorpus {
    pub rollouts: usize,
    /// About how big each rollout is.
    pub bytes_each: usize,
    pub seed: u64,
}

/// One rollout's running state.
struct Rollout {
    rng: Rng,
    lines: Vec<Value>,
    clock_ms: i64,
    calls: u64,
    /// The running totals: input, cached, output, reasoning.
    totals: [u64; 4],
}

impl Rollout {
    fn push(&mut self, kind: &str, payload: Value) {
        self.clock_ms += self.rng.range(200, 9_000) as i64;
        let t = crucible_core::Timestamp::from_unix_ms(self.clock_ms);
        let stamp = format!("{}.000Z", t.as_str().trim_end_matches('Z'));
        let mut line = serde_json::Map::new();
        line.insert("timestamp".into(), stamp.into());
        line.insert("type".into(), kind.into());
        line.insert("payload".into(), payload);
        self.lines.push(Value::Object(line));
    }

    fn user(&mut self, text: &str) {
        let content = json!([{"type": "input_text", "text": text}]);
        self.push(
            "response_item",
            json!({"type": "message", "role": "user", "content": content}),
        );
    }

    /// One model request: its context, reasoning, a call or a reply, and
    /// the token count after it.
    fn request(&mut self, reply: bool) {
        self.push(
            "turn_context",
            json!({"cwd": "/home/me/app", "approval_policy": "on-request",
                   "sandbox_policy": {"mode": "workspace-write"}, "model": "gpt-5-codex", "summary": "auto"}),
        );
        let thought = words(&mut self.rng, 6);
        self.push(
            "response_item",
            json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": thought}], "content": null}),
        );
        if reply {
            let text = words(&mut self.rng, 40);
            self.push(
                "response_item",
                json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}),
            );
            self.push(
                "event_msg",
                json!({"type": "agent_message", "message": text}),
            );
        } else {
            self.call();
        }
        self.token_count();
    }

    fn call(&mut self) {
        self.calls += 1;
        let id = format!("call_{:06}", self.calls);
        let cmd = format!("cat src/file_{}.rs", self.rng.range(0, 500));
        let arguments =
            json!({"command": ["bash", "-lc", cmd], "workdir": "/home/me/app"}).to_string();
        self.push(
            "response_item",
            json!({"type": "function_call", "name": "shell", "arguments": arguments, "call_id": id}),
        );
        let exit_code = i32::from(self.rng.chance(8));
        let size = self.rng.range(200, 3_000);
        let body = words(&mut self.rng, size / 6);
        let output =
            json!({"output": body, "metadata": {"exit_code": exit_code, "duration_seconds": 0.1}});
        self.push(
            "response_item",
            json!({"type": "function_call_output", "call_id": id, "output": output.to_string()}),
        );
    }

    fn token_count(&mut self) {
        let input = self.rng.range(2_000, 40_000) as u64;
        let cached = input * self.rng.range(0, 95) as u64 / 100;
        let output = self.rng.range(20, 800) as u64;
        let reasoning = output * self.rng.range(0, 80) as u64 / 100;
        // Codex restarts the count now and then (a new model context).
        if self.rng.chance(2) {
            self.totals = [0; 4];
        }
        for (t, d) in self
            .totals
            .iter_mut()
            .zip([input, cached, output, reasoning])
        {
            *t += d;
        }
        let [i, c, o, r] = self.totals;
        let totals = json!({"input_tokens": i, "cached_input_tokens": c, "output_tokens": o,
                            "reasoning_output_tokens": r, "total_tokens": i + o});
        let event = json!({"type": "token_count", "info": {"total_token_usage": totals,
                           "last_token_usage": {"input_tokens": input, "cached_input_tokens": cached,
                           "output_tokens": output, "reasoning_output_tokens": reasoning,
                           "total_tokens": input + output}}, "rate_limits": null});
        // Rate-limit updates re-emit the same totals.
        let repeats = if self.rng.chance(20) {
            self.rng.range(2, 5)
        } else {
            1
        };
        for _ in 0..repeats {
            self.push("event_msg", event.clone());
        }
    }
}

/// One rollout of about `bytes_each` bytes, and its file name.
fn rollout(rng: Rng, n: usize, bytes_each: usize) -> (String, Vec<Value>) {
    let start = 1_757_000_000_000 + n as i64 * 3_600_000;
    let id = format!("0199{n:04x}-0000-7000-8000-{n:012x}");
    let mut r = Rollout {
        rng,
        lines: Vec::new(),
        clock_ms: start,
        calls: 0,
        totals: [0; 4],
    };
    let started = crucible_core::Timestamp::from_unix_ms(start);
    r.push(
        "session_meta",
        json!({"id": id, "timestamp": started.as_str(), "cwd": "/home/me/app", "originator": "codex_cli_rs",
               "cli_version": "0.47.0", "instructions": null, "source": "cli"}),
    );
    r.user("<environment_context>\n  <cwd>/home/me/app</cwd>\n</environment_context>");
    let mut size = 0;
    while size < bytes_each {
        let ask = words(&mut r.rng, 12);
        if r.rng.chance(30) {
            r.user(&format!("# Context from my IDE setup:\n\n## Open tabs:\n- main.rs\n\n## My request for Codex:\n{ask}"));
        } else {
            r.user(&ask);
        }
        r.push(
            "event_msg",
            json!({"type": "user_message", "message": ask, "kind": "plain"}),
        );
        let steps = r.rng.range(1, 8);
        for s in 0..steps {
            r.request(s + 1 == steps);
        }
        size = r.lines.iter().map(|l| l.to_string().len() + 1).sum();
    }
    let stamp = started.as_str().trim_end_matches('Z').replace(':', "-");
    (format!("rollout-{stamp}-{id}.jsonl"), r.lines)
}

/// Writes the corpus under `root/sessions/`; returns its size in bytes.
pub fn generate(root: &Path, spec: &CodexCorpus) -> anyhow::Result<u64> {
    let mut rng = Rng::new(spec.seed);
    let mut bytes = 0;
    for n in 0..spec.rollouts {
        let (name, lines) = rollout(Rng::new(rng.next_u64()), n, spec.bytes_each);
        let day = &name["rollout-".len().."rollout-2025-09-04".len()];
        let dir = root.join("sessions").join(day.replace('-', "/"));
        std::fs::create_dir_all(&dir)?;
        let mut text = String::new();
        for l in &lines {
            text.push_str(&l.to_string());
            text.push('\n');
        }
        bytes += text.len() as u64;
        std::fs::write(dir.join(name), text)?;
    }
    Ok(bytes)
}

/// The import benchmark's Codex rows: `cru session import` of a generated
/// corpus (`rollouts` of `bytes_each`, under `target/`) and, when
/// installed, `ccusage codex session --json --offline` over the same files.
pub fn bench_rows(
    root: &Path,
    cru: &Path,
    ccusage: Option<&Path>,
    spec: &CodexCorpus,
    runs: usize,
) -> anyhow::Result<String> {
    use crate::index_bench::measure;
    let dir = root.join(format!(
        "target/bench-codex-{}x{}k-s{}",
        spec.rollouts,
        spec.bytes_each / 1024,
        spec.seed
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let bytes = generate(&dir, spec)? as f64 / 1e6;
    let sessions = dir.join("sessions").to_string_lossy().into_owned();
    let out = tempfile::tempdir()?;
    let store = out.path().to_string_lossy().into_owned();
    // One run: a second import into the same store finds every source unchanged.
    let import = measure(cru, &["--dir", &store, "session", "import", &sessions], 1)?
        .ok_or_else(|| anyhow::anyhow!("cru did not run"))?;
    let secs = import.best.as_secs_f64();
    let mut rows = format!(
        "| `cru session import` ({} Codex rollouts, {bytes:.0} MB) | {:.0} ms | {:.0} MB/s | |\n",
        spec.rollouts,
        secs * 1e3,
        bytes / secs
    );
    if let Some(bin) = ccusage {
        let home = format!("CODEX_HOME={}", dir.display());
        let bin = bin.to_string_lossy().into_owned();
        let args = [
            home.as_str(),
            &bin,
            "codex",
            "session",
            "--json",
            "--offline",
        ];
        if let Some(m) = measure(Path::new("/usr/bin/env"), &args, runs)? {
            let secs = m.best.as_secs_f64();
            rows.push_str(&format!(
                "| `ccusage codex session --json --offline` (same rollouts) | {:.0} ms | {:.0} MB/s | |\n",
                secs * 1e3,
                bytes / secs
            ));
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_has_the_traps_of_real_rollouts() {
        let dir = tempfile::tempdir().unwrap();
        let spec = CodexCorpus {
            rollouts: 12,
            bytes_each: 20 * 1024,
            seed: 5,
        };
        let bytes = generate(dir.path(), &spec).unwrap();
        assert!(bytes >= 12 * 20 * 1024);
        let files = crate::peer_check::codex::codex_files(dir.path()).unwrap();
        assert_eq!(files.len(), 12);
        let (mut restarts, mut repeats, mut failed) = (0, 0, 0);
        for f in &files {
            let mut last: Option<Value> = None;
            for line in std::fs::read_to_string(f).unwrap().lines() {
                let v: Value = serde_json::from_str(line).unwrap();
                let p = &v["payload"];
                if let Some(t) = p["info"].get("total_token_usage") {
                    if let Some(prev) = &last {
                        repeats += usize::from(prev == t);
                        restarts +=
                            usize::from(t["input_tokens"].as_u64() < prev["input_tokens"].as_u64());
                    }
                    last = Some(t.clone());
                }
                if p["type"] == "function_call_output" {
                    failed +=
                        usize::from(p["output"].as_str().unwrap().contains("\"exit_code\":1"));
                }
            }
        }
        assert!(
            restarts > 0 && repeats > 0 && failed > 0,
            "{restarts} {repeats} {failed}"
        );
    }

    #[test]
    fn codex_import_bench_smoke_run() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let cru = crate::cru_binary::for_tests().unwrap();
        let spec = CodexCorpus {
            rollouts: 3,
            bytes_each: 8 * 1024,
            seed: 2,
        };
        let rows = bench_rows(root, &cru, None, &spec, 1).unwrap();
        assert!(
            rows.starts_with("| `cru session import` (3 Codex rollouts"),
            "{rows}"
        );
    }
}
