//! Claude Code: every real transcript in `fixtures/real/claude-code/`,
//! imported, against facts a small counter here reads from the files.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crucible_core::{DataRecord, Tokens, UsageByModel};
use crucible_interop::{Format, ImportError, Imported, detect, find_sources, import};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real/claude-code")
}

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            jsonl_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

/// The files of one session: the transcript and its subagents' files
/// (`<stem>/subagents/*.jsonl`, and `agent-*.jsonl` beside it whose first
/// `sessionId` is its own).
fn session_files(transcript: &Path, all: &[PathBuf]) -> Vec<PathBuf> {
    // Claude Code names a transcript by its session id.
    let sid = Some(
        transcript
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned(),
    );
    let sub_dir = transcript.with_extension("").join("subagents");
    let mut out = vec![transcript.to_owned()];
    for f in all {
        let flat = !is_subagent_file(transcript)
            && f.parent() == transcript.parent()
            && f.file_name().unwrap().to_string_lossy().starts_with("agent-")
            && sid.is_some()
            // Its first line names the session it ran in (a run continued
            // into a fork names the fork later).
            && lines(f).iter().find_map(|v| v["sessionId"].as_str()) == sid.as_deref();
        if f.starts_with(&sub_dir) || flat {
            out.push(f.clone());
        }
    }
    out
}

/// A subagent's own file, every line of it on the side chain.
fn is_subagent_file(f: &Path) -> bool {
    f.file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("agent-")
        || f.parent().unwrap().ends_with("subagents")
}

fn lines(f: &Path) -> Vec<Value> {
    std::fs::read_to_string(f)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// What the counter finds in a session's files.
#[derive(Debug, Default, PartialEq)]
struct Facts {
    lines: u64,
    /// Lines kept in the sidecar as source records (whole, or a message
    /// line's envelope beside its content's own records): every line.
    kept: u64,
    calls: u64,
    failed: u64,
    subagents: u64,
    thinking: u64,
    images: u64,
    usage: Tokens,
    /// Responses that spent tokens: distinct (message.id, requestId), and
    /// lines without a message id each.
    requests: u64,
}

/// Counts straight from the JSON: tool_use blocks by id, tool_result
/// blocks with `is_error` answering one, thinking and image blocks, side
/// chains by `agentId`, and each (message.id, requestId) once with the
/// line of largest total (the final count of a streamed response).
/// Counts the content blocks of line `v`: tool uses, failed results,
/// thinking, images (in a result too).
fn blocks(v: &Value, f: &mut Facts, uses: &mut BTreeSet<String>, failed: &mut BTreeSet<String>) {
    for b in v["message"]["content"].as_array().into_iter().flatten() {
        match b["type"].as_str() {
            Some("tool_use") => {
                uses.insert(b["id"].as_str().unwrap().to_owned());
            }
            Some("tool_result") if b["is_error"] == true => {
                failed.insert(b["tool_use_id"].as_str().unwrap().to_owned());
            }
            Some("thinking" | "redacted_thinking") => f.thinking += 1,
            Some("image") => f.images += 1,
            _ => {}
        }
        if b["type"] == "tool_result" {
            let parts = b["content"].as_array().into_iter().flatten();
            f.images += parts.filter(|p| p["type"] == "image").count() as u64;
        }
    }
}

fn count(files: &[PathBuf]) -> Facts {
    let mut f = Facts {
        subagents: files.len() as u64 - 1,
        ..Facts::default()
    };
    let mut uses = BTreeSet::new();
    let mut failed = BTreeSet::new();
    let mut chains = BTreeSet::new();
    let mut root_of: HashMap<String, String> = HashMap::new();
    let mut spent = Spent::default();
    // A subagent's lines, copied into the parent's `agent_progress` lines,
    // count only for a run with neither its own file nor a side chain.
    let with_files: BTreeSet<String> = files[1..]
        .iter()
        .map(|f| {
            let stem = f.file_stem().unwrap().to_string_lossy();
            stem.trim_start_matches("agent-").to_owned()
        })
        .collect();
    let mut copies: Vec<(String, Value)> = Vec::new();
    for (i, file) in files.iter().enumerate() {
        for v in lines(file) {
            f.lines += 1;
            f.kept += 1;
            if i == 0 && !is_subagent_file(file) && v["data"]["type"] == "agent_progress" {
                let copy = &v["data"]["message"];
                if let Some(agent) = v["data"]["agentId"].as_str()
                    && copy["message"].is_object()
                    && !with_files.contains(agent)
                {
                    copies.push((agent.to_owned(), copy.clone()));
                }
            }
            // A side chain inside the transcript: one run per agentId, or
            // (older files without one) per chain root.
            if i == 0 && !is_subagent_file(file) && v["isSidechain"] == true {
                let uuid = v["uuid"].as_str().unwrap_or("").to_owned();
                let root = match v["agentId"].as_str() {
                    Some(a) => a.to_owned(),
                    None => v["parentUuid"]
                        .as_str()
                        .and_then(|p| root_of.get(p).cloned())
                        .unwrap_or_else(|| uuid.clone()),
                };
                root_of.insert(uuid, root.clone());
                chains.insert(root);
            }
            blocks(&v, &mut f, &mut uses, &mut failed);
            spent.line(&v);
        }
    }
    let mut copied_runs = BTreeSet::new();
    for (agent, v) in copies.iter().filter(|(a, _)| !chains.contains(a)) {
        copied_runs.insert(agent);
        // Kept twice: whole in the parent's progress line, and as a line
        // of the run read from the copies.
        f.kept += 1;
        blocks(v, &mut f, &mut uses, &mut failed);
        spent.line(v);
    }
    f.subagents += copied_runs.len() as u64;
    f.calls = uses.len() as u64;
    f.failed = failed.intersection(&uses).count() as u64;
    f.subagents += chains.len() as u64;
    spent.into_facts(&mut f);
    f
}

/// Tokens by response: each (message.id, requestId) once, with the line
/// of largest total (the final count of a streamed response); a line
/// without a message id on its own.
#[derive(Default)]
struct Spent {
    /// input, output, cache creation, cache read, its one-hour part.
    best: HashMap<(String, String), [u64; 5]>,
    anonymous: [u64; 5],
    anonymous_requests: u64,
}

impl Spent {
    fn line(&mut self, v: &Value) {
        let u = &v["message"]["usage"];
        if !u.is_object() {
            return;
        }
        let n = |k: &str| u[k].as_u64().unwrap_or(0);
        let parts = [
            n("input_tokens"),
            n("output_tokens"),
            n("cache_creation_input_tokens"),
            n("cache_read_input_tokens"),
            u["cache_creation"]["ephemeral_1h_input_tokens"]
                .as_u64()
                .unwrap_or(0),
        ];
        let total = |p: &[u64; 5]| p[..4].iter().sum::<u64>();
        if let Some(id) = v["message"]["id"].as_str() {
            let key = (id.to_owned(), v["requestId"].to_string());
            let e = self.best.entry(key).or_default();
            if total(&parts) > total(e) {
                *e = parts;
            }
        } else {
            (0..5).for_each(|k| self.anonymous[k] += parts[k]);
            self.anonymous_requests += u64::from(total(&parts) > 0);
        }
    }

    fn into_facts(self, f: &mut Facts) {
        let sum = |k: usize| self.best.values().map(|p| p[k]).sum::<u64>() + self.anonymous[k];
        f.usage = Tokens {
            input: sum(0),
            output: sum(1),
            cache_creation: sum(2),
            cache_read: sum(3),
            reasoning: 0,
            cache_creation_1h: sum(4),
        };
        let spent = |p: &&[u64; 5]| p[..4].iter().any(|n| *n > 0);
        f.requests = self.best.values().filter(spent).count() as u64 + self.anonymous_requests;
    }
}

/// The same facts from an import (the session and all its children).
fn facts_of(imp: &Imported) -> Facts {
    let mut f = Facts {
        subagents: imp.children.len() as u64,
        ..Facts::default()
    };
    let all = imp.all_records();
    f.lines = all.read_count() + all.skipped_count();
    let mut sessions = vec![imp];
    sessions.extend(imp.children.iter().map(|c| &c.imported));
    for s in sessions {
        for r in &s.data.records {
            match r {
                DataRecord::Call(_) => f.calls += 1,
                DataRecord::Thinking(_) => f.thinking += 1,
                DataRecord::Image(_) => f.images += 1,
                DataRecord::Source(_) => f.kept += 1,
                DataRecord::Context(_) => {}
            }
        }
        f.failed += s.log.tool_calls().filter(|c| c.failed).count() as u64;
        if let Some(u) = UsageByModel::of(&s.log.frontmatter) {
            f.usage.add(u.total());
        }
        f.requests += s.log.usage_records().count() as u64;
        super::assert_records_make_the_totals(&s.log, &s.provenance.path);
    }
    f
}

#[test]
fn every_real_transcript_imports_with_the_counted_facts() {
    let mut all = Vec::new();
    jsonl_files(&root(), &mut all);
    all.sort();
    let found: BTreeMap<PathBuf, Format> =
        find_sources(&root(), None).sources.into_iter().collect();
    let transcripts: Vec<&PathBuf> = all.iter().filter(|p| found.contains_key(*p)).collect();
    let mut with_subagents = 0;
    let mut imported = 0;
    for t in &transcripts {
        assert_eq!(found[*t], Format::ClaudeCode, "{}", t.display());
        let files = session_files(t, &all);
        let expected = count(&files);
        match import(t, Format::ClaudeCode) {
            Ok(imp) => {
                assert_eq!(facts_of(&imp), expected, "{}", t.display());
                // The one real transcript that continues another session
                // (its first 48 lines are session e9f146fa's, the rest its
                // own) without that session's transcript beside it: kept
                // whole, and said so.
                let resumed_whole = t.ends_with("vibecodingtracker/claude_code.jsonl");
                assert_eq!(
                    imp.warnings
                        .iter()
                        .filter(|w| w
                            .message
                            .starts_with("continues Claude Code session e9f146fa"))
                        .count(),
                    usize::from(resumed_whole),
                    "{}",
                    t.display()
                );
                assert!(
                    imp.warnings
                        .iter()
                        .all(|w| resumed_whole && w.message.starts_with("continues ")),
                    "{}: {:?}",
                    t.display(),
                    imp.warnings
                );
                imported += 1;
                with_subagents += usize::from(expected.subagents > 0);
            }
            // Summary-only and empty files: nothing to import, said so.
            Err(ImportError::Empty { .. }) => {
                assert_eq!(
                    expected.calls + expected.usage.total(),
                    0,
                    "{}",
                    t.display()
                );
            }
            Err(e) => panic!("{e}"),
        }
    }
    // Every file is a transcript, or a subagent's file imported with one.
    let mut covered: BTreeSet<&PathBuf> = BTreeSet::new();
    let sessions: Vec<Vec<PathBuf>> = transcripts.iter().map(|t| session_files(t, &all)).collect();
    covered.extend(sessions.iter().flatten());
    // (An empty file is no source; its subagents' files import on their own.)
    let left: Vec<&PathBuf> = all
        .iter()
        .filter(|f| !covered.contains(f) && std::fs::metadata(f).unwrap().len() > 0)
        .collect();
    assert!(
        left.is_empty(),
        "neither transcripts nor subagents of one: {left:?}"
    );
    assert!(imported >= 20, "{imported} transcripts imported");
    assert!(with_subagents >= 5, "{with_subagents} with subagents");
}

/// The files issue 16 saw read as another format: they open with lines
/// that are not messages (snapshots, hook progress, summaries, usage lines
/// without a type). Detection must read them by their whole shape.
#[test]
fn transcripts_that_open_with_other_lines_are_claude_code() {
    let mut all = Vec::new();
    jsonl_files(&root(), &mut all);
    let mut seen = 0;
    for f in all
        .iter()
        .filter(|f| std::fs::metadata(f).unwrap().len() > 0)
    {
        let first = lines(f).remove(0);
        if first["type"] == "user" || first["isSidechain"] == true {
            continue;
        }
        seen += 1;
        assert_eq!(detect(f), Some(Format::ClaudeCode), "{}", f.display());
    }
    assert!(seen >= 15, "{seen}");
}

#[test]
fn an_orphan_subagents_folder_imports_its_runs_as_sessions() {
    let dir = root().join("spotter/6c2214d7-b87e-4432-8e41-22ba294ea584");
    let found = find_sources(&dir, None).sources;
    assert_eq!(found.len(), 1);
    let imp = import(&found[0].0, found[0].1).unwrap();
    assert!(imp.log.phase_count() > 0);
    assert_eq!(facts_of(&imp), count(&[found[0].0.clone()]));
}

/// A subagent known only by the copies of its lines in its parent's
/// `agent_progress` lines (the transcript without its `subagents/`
/// folder) is a child session read from them; beside its own file, the
/// copies are not read (the file's run is the child).
#[test]
fn a_subagent_without_its_file_is_read_from_its_progress_copies() {
    let name = "258c7280-ae70-4798-800f-63464d01a85d";
    let t = tempfile::tempdir().unwrap();
    let alone = t.path().join(format!("{name}.jsonl"));
    std::fs::copy(root().join(format!("spotter/{name}.jsonl")), &alone).unwrap();
    let run_of = |imp: &Imported, key: &str| {
        imp.children
            .iter()
            .find(|c| c.imported.provenance.path.ends_with(key))
            .map(|c| {
                UsageByModel::of(&c.imported.log.frontmatter)
                    .unwrap()
                    .total()
            })
    };
    let copied = import(&alone, Format::ClaudeCode).unwrap();
    let from_copies = run_of(&copied, "#copies-of-a881341").expect("a child read from the copies");
    assert!(from_copies.output > 0);
    let beside = import(
        &root().join(format!("spotter/{name}.jsonl")),
        Format::ClaudeCode,
    )
    .unwrap();
    assert_eq!(run_of(&beside, "#copies-of-a881341"), None);
    let from_file = run_of(&beside, "agent-a881341.jsonl").expect("the file's run");
    // The copies repeat some of the file's requests (here 2 of its 3),
    // not all: the file, when there is one, is the record.
    for (copies, file) in [
        (from_copies.input, from_file.input),
        (from_copies.output, from_file.output),
        (from_copies.cache_creation, from_file.cache_creation),
        (from_copies.cache_read, from_file.cache_read),
    ] {
        assert!(copies <= file, "{from_copies:?} {from_file:?}");
    }
    assert!(from_copies.total() < from_file.total());
}

/// `import(export(s))` = `s` for real transcripts: the phases and their
/// blocks, the title, the tokens by kind and model, the model, `cwd`, and every call's
/// sidecar record (id, arguments, result, exit code, duration, diff,
/// `toolUseResult`). Not compared: provenance (another file), and the
/// sidecar's thinking, context and kept source lines, which the export
/// does not write (docs/interop.md).
#[test]
fn an_exported_transcript_imports_back_to_the_same_session() {
    for rel in [
        "ai-sessions/claude-code-pomodoro-timer.jsonl",
        "agentcmd/full/full-session-two.jsonl",
        "claude-code-viewer/projects/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
        "spotter/tool_heavy.jsonl",
        // Two models (opus and haiku): tokens by model come back.
        "spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
    ] {
        let s = import(&root().join(rel), Format::ClaudeCode).unwrap();
        let bytes = match crucible_interop::export(&s.log, &s.data, Format::ClaudeCode).unwrap() {
            crucible_interop::Exported::File(b) => b,
            other @ crucible_interop::Exported::Folder { .. } => panic!("{other:?}"),
        };
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("again.jsonl");
        std::fs::write(&file, &bytes).unwrap();
        assert_eq!(detect(&file), Some(Format::ClaudeCode), "{rel}");
        let again = import(&file, Format::ClaudeCode).unwrap();
        assert_eq!(again.log.sections, s.log.sections, "{rel}");
        assert_eq!(again.log.title(), s.log.title(), "{rel}");
        let fm = |i: &Imported| {
            let f = &i.log.frontmatter;
            (
                f.started.clone(),
                f.model.clone(),
                f.tokens_used,
                f.extra.get("usage").cloned(),
                f.extra.get("cwd").cloned(),
            )
        };
        assert_eq!(fm(&again), fm(&s), "{rel}");
        let calls = |i: &Imported| i.data.calls().cloned().collect::<Vec<_>>();
        assert_eq!(calls(&again), calls(&s), "{rel}");
        // Claude Code's envelope on every message line, each chained to the one before.
        let mut parent = Value::Null;
        for v in lines(&file).iter().filter(|v| v["type"] != "summary") {
            for k in [
                "uuid",
                "sessionId",
                "timestamp",
                "cwd",
                "version",
                "message",
            ] {
                assert!(v.get(k).is_some(), "{rel}: {k} missing in {v}");
            }
            assert_eq!(v["parentUuid"], parent);
            parent = v["uuid"].clone();
        }
    }
}

/// The prompt of a subagent file's first user line, if it is Claude Code's
/// own: a compaction run's (`agent-acompact-*`) or a warm-up run's
/// (exactly `Warmup`), with the title the run must get.
fn machinery_prompt(f: &Path) -> Option<(String, &'static str)> {
    let first = lines(f).into_iter().find(|v| v["type"] == "user")?;
    let prompt = first["message"]["content"].as_str()?.to_owned();
    let name = f.file_name().unwrap().to_string_lossy();
    if name.starts_with("agent-acompact-") {
        Some((prompt, "Compaction (Claude Code)"))
    } else if prompt == "Warmup" {
        Some((prompt, "Warm-up (Claude Code)"))
    } else {
        None
    }
}

/// Compaction and cache warm-up runs are Claude Code's machinery: their
/// prompt is context, never the child's title or a phase name, and their
/// tokens are kept.
#[test]
fn compaction_and_warmup_runs_are_titled_for_what_they_are() {
    let mut all = Vec::new();
    jsonl_files(&root(), &mut all);
    let expected: BTreeMap<PathBuf, (String, &str)> = all
        .iter()
        .filter(|f| is_subagent_file(f))
        // A run that never got a reply (a warm-up prompt alone: no reply,
        // no token) holds nothing, and is refused as such.
        .filter(|f| count(std::slice::from_ref(*f)).usage.total() > 0)
        .filter_map(|f| Some((f.canonicalize().unwrap(), machinery_prompt(f)?)))
        .collect();
    assert!(expected.values().any(|(_, t)| t.starts_with("Compaction")));
    assert!(expected.values().any(|(_, t)| t.starts_with("Warm-up")));
    let (mut seen, mut tokens) = (0, 0);
    for (source, format) in find_sources(&root(), None).sources {
        let Ok(imp) = import(&source, format) else {
            continue;
        };
        // A run whose transcript is missing or empty imports on its own.
        let runs = std::iter::once(&imp).chain(imp.children.iter().map(|c| &c.imported));
        for run in runs {
            let path = PathBuf::from(&run.provenance.path);
            let Some((prompt, title)) = path.canonicalize().ok().and_then(|p| expected.get(&p))
            else {
                continue;
            };
            seen += 1;
            let log = &run.log;
            assert_eq!(log.title(), Some(*title), "{}", path.display());
            assert!(
                log.phases().all(|(_, p)| p.name == *title),
                "{}",
                path.display()
            );
            assert!(
                run.data
                    .records
                    .iter()
                    .any(|r| matches!(r, DataRecord::Context(c) if c.text == *prompt)),
                "{}: the prompt is kept as context",
                path.display()
            );
            let counted = count(std::slice::from_ref(&path)).usage.total();
            tokens += counted;
            assert_eq!(
                log.frontmatter.tokens_used.unwrap_or(0),
                counted,
                "{}",
                path.display()
            );
        }
    }
    assert_eq!(seen, expected.len());
    assert!(tokens > 0, "their tokens are kept");
}

/// A transcript rotated aside (`t.jsonl.1`) beside the live one
/// (`t.jsonl`): `<stem>` is the live transcript, a file, not a folder of
/// subagents that cannot be read.
#[test]
fn a_transcript_moved_aside_has_no_subagents_folder_named_after_its_sibling() {
    let t = tempfile::tempdir().unwrap();
    let real = root().join("spotter/short.jsonl");
    std::fs::copy(&real, t.path().join("t.jsonl")).unwrap();
    let moved = t.path().join("t.jsonl.1");
    std::fs::copy(&real, &moved).unwrap();
    let imp = import(&moved, Format::ClaudeCode).unwrap();
    assert!(imp.skipped_files.is_empty(), "{:?}", imp.skipped_files);
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
}
