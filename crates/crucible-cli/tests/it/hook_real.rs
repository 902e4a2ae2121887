//! Real Claude Code hook payloads (fixtures/hooks/real: what Claude Code
//! sent to the hook scripts of public repositories, kept per event type)
//! replayed through the real `cru hook claude-code`, one process per
//! event, as Claude Code runs it.
//!
//! The order. The logs keep one file per event type, so how a session's
//! events interleaved is lost. Each Claude session's payloads are replayed
//! by event type in one fixed order (`ORDER`: SessionStart first, then the
//! prompts, the tool calls' announcements, their results, compactions,
//! notifications, subagents, Stop, SessionEnd last), each type in its
//! file's order. That order is one a real session allows for every pair
//! whose order cru's result depends on: a call's `PreToolUse` before its
//! `PostToolUse`, every result before the `Stop` that closes its turn.
//! What is asserted holds whatever the true interleaving was: the
//! sessions made (one per Claude session id), the calls (by tool, each
//! once), the prompts' text, the files valid, `list` and `search` finding
//! them; not which phase a call landed in. A call announced and never
//! answered is expected among the calls (failed) only when the session
//! has a Stop or SessionEnd to close its turn: one session here was
//! committed mid-turn, its last calls still running.
//!
//! Each repository is replayed twice: one process after the other, and
//! with each run of tool announcements, tool results and subagent stops
//! started all at once (parallel tool calls run their hooks at once).
//!
//! Each payload is sent as the log holds it, byte for byte.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::kiln::{TestKiln, fixtures};

/// The event types in the order they are replayed (see the module doc).
const ORDER: [&str; 10] = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "Notification",
    "SubagentStop",
    "Stop",
    "SessionEnd",
];

/// What a call announced and never answered says once a Stop closed it.
const NO_RESULT: &str = "no result (denied or interrupted)";

/// The default payload limit of `cru hook claude-code`: above it, a call
/// goes whole to the sidecar.
const PAYLOAD_LIMIT: usize = crucible_capture::claude_code::DEFAULT_PAYLOAD_LIMIT;

fn real() -> PathBuf {
    fixtures().join("hooks/real")
}

/// Every `*.json` under `dir`, at any depth, in name order.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(json_files(&p));
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
    out
}

/// One payload: its text as the log holds it (what is sent), and its value.
struct Payload {
    raw: String,
    value: Value,
}

impl Payload {
    fn of_value(value: Value) -> Self {
        Self {
            raw: value.to_string(),
            value,
        }
    }
}

impl std::ops::Deref for Payload {
    type Target = Value;

    fn deref(&self) -> &Value {
        &self.value
    }
}

/// A repository's hook payloads by Claude session id, in replay order.
/// `chat.json` (a transcript, not payloads) is left out.
fn sessions_of(repo: &str) -> BTreeMap<String, Vec<Payload>> {
    let mut by_id: BTreeMap<String, Vec<Payload>> = BTreeMap::new();
    for file in json_files(&real().join(repo).join("logs")) {
        if file.file_name().is_some_and(|n| n == "chat.json") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for raw in elements(&text) {
            let value = value_of(raw);
            let id = value["session_id"].as_str().unwrap().to_owned();
            let raw = raw.to_owned();
            by_id.entry(id).or_default().push(Payload { raw, value });
        }
    }
    for payloads in by_id.values_mut() {
        // A stable sort: each type keeps its file's order.
        payloads.sort_by_key(|p| rank(event(p)));
    }
    by_id
}

/// The elements of a log's top-level array (objects), as its text holds
/// them.
fn elements(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut in_string, mut escaped) = (0usize, 0, false, false);
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => {
                if depth == 1 {
                    start = i;
                }
                depth += 1;
            }
            '}' | ']' => {
                depth -= 1;
                if depth == 1 {
                    out.push(&text[start..=i]);
                }
            }
            _ => {}
        }
    }
    out
}

/// A payload's value. serde_json refuses an escaped lone surrogate
/// (`"\udc90"`), which some logs hold: the test reads those as U+FFFD
/// to know what to expect (cru gets the payload as the log holds it).
fn value_of(raw: &str) -> Value {
    serde_json::from_str(raw).unwrap_or_else(|_| {
        serde_json::from_str(&lone_surrogates_replaced(raw))
            .unwrap_or_else(|e| panic!("{e}: {}", crucible_core::cut(raw, 200)))
    })
}

/// `raw` with every escaped UTF-16 surrogate that is not half of a pair
/// written `\ufffd`.
fn lone_surrogates_replaced(raw: &str) -> String {
    let b = raw.as_bytes();
    let unit_at = |i: usize| -> Option<u16> {
        if b.get(i) != Some(&b'\\') || b.get(i + 1) != Some(&b'u') {
            return None;
        }
        raw.get(i + 2..i + 6)
            .and_then(|h| u16::from_str_radix(h, 16).ok())
    };
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < b.len() {
        match unit_at(i) {
            Some(0xD800..=0xDBFF) if matches!(unit_at(i + 6), Some(0xDC00..=0xDFFF)) => {
                out.push_str(&raw[i..i + 12]);
                i += 12;
            }
            Some(0xD800..=0xDFFF) => {
                out.push_str("\\ufffd");
                i += 6;
            }
            Some(_) => {
                out.push_str(&raw[i..i + 6]);
                i += 6;
            }
            // Any other escape is two ASCII characters.
            None if b[i] == b'\\' => {
                out.push_str(&raw[i..i + 2]);
                i += 2;
            }
            None => {
                let c = raw[i..].chars().next().expect("i is on a character");
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

fn event(p: &Value) -> &str {
    p["hook_event_name"].as_str().unwrap_or("")
}

fn rank(event: &str) -> usize {
    ORDER
        .iter()
        .position(|e| *e == event)
        .unwrap_or(ORDER.len())
}

/// One event through `cru hook claude-code`: it must exit 0 and print
/// nothing (Claude Code reads a hook's stdout).
fn hook(kiln: &TestKiln, payload: &Payload) {
    let out = kiln
        .command()
        .env("XDG_STATE_HOME", kiln.root.path().join("state"))
        .args(["hook", "claude-code"])
        .write_stdin(payload.raw.as_bytes())
        .output()
        .unwrap();
    let what = format!(
        "{} of {}",
        event(payload),
        payload["session_id"].as_str().unwrap_or("?")
    );
    assert_eq!(out.status.code(), Some(0), "{what}: {out:?}");
    assert!(out.stdout.is_empty(), "{what}: stdout {out:?}");
    assert!(out.stderr.is_empty(), "{what}: stderr {out:?}");
}

/// What the payloads of one Claude session must leave in its cru session,
/// whatever order they really came in.
#[derive(Debug, Default)]
struct Expected {
    /// Tool names of the calls, each call once.
    calls: BTreeMap<String, usize>,
    /// Calls announced with an id and never answered: recorded as failed
    /// once a Stop or SessionEnd closes their turn.
    unanswered: usize,
    /// Calls whose inputs or result are over the payload limit, by id,
    /// with them: the sidecar must hold them whole.
    large: BTreeMap<String, (Value, Value)>,
    prompts: Vec<String>,
    /// `agent_id`s of the subagents that stopped.
    agents: BTreeSet<String>,
    /// The answered calls' arguments as one line (`args_line`, what the
    /// markdown shows of them).
    args: Vec<String>,
    /// Whether any event records something (a Notification alone does not).
    recorded: bool,
}

impl Expected {
    fn of(payloads: &[Payload]) -> Self {
        let mut exp = Self::default();
        let answered: BTreeSet<&str> = payloads
            .iter()
            .filter(|p| matches!(event(p), "PostToolUse" | "PostToolUseFailure"))
            .filter_map(|p| p["tool_use_id"].as_str())
            .collect();
        let closed = payloads
            .iter()
            .any(|p| matches!(event(p), "Stop" | "SessionEnd"));
        for p in payloads {
            exp.recorded |= event(p) != "Notification";
            let tool = p["tool_name"].as_str().unwrap_or("").to_owned();
            match event(p) {
                "UserPromptSubmit" => exp.prompts.push(p["prompt"].as_str().unwrap().to_owned()),
                "PostToolUse" | "PostToolUseFailure" => {
                    exp.args.push(crucible_core::args_line(&p["tool_input"]));
                    *exp.calls.entry(tool).or_default() += 1;
                    if let Some(id) = p["tool_use_id"].as_str().filter(|_| over_limit(p)) {
                        let whole = (p["tool_input"].clone(), p["tool_response"].clone());
                        exp.large.insert(id.to_owned(), whole);
                    }
                }
                "PreToolUse" => {
                    let id = p["tool_use_id"].as_str();
                    if closed && id.is_some_and(|id| !answered.contains(id)) {
                        *exp.calls.entry(tool).or_default() += 1;
                        exp.unanswered += 1;
                    }
                }
                "PreCompact" => *exp.calls.entry("compact".into()).or_default() += 1,
                "SubagentStop" => exp.agents.extend(p["agent_id"].as_str().map(str::to_owned)),
                _ => {}
            }
        }
        exp
    }
}

/// Whether a result's inputs or response are larger than the limit, as
/// the hook measures them (compact JSON; a string's own length).
fn over_limit(p: &Value) -> bool {
    let len = |v: &Value| match v {
        Value::String(s) => s.len(),
        Value::Null => 0,
        other => serde_json::to_vec(other).unwrap().len(),
    };
    let args = crucible_core::args_line(&p["tool_input"]).len();
    args > PAYLOAD_LIMIT || len(&p["tool_response"]) > PAYLOAD_LIMIT
}

/// One cru session as `show --format json` and `list --format json` see it.
struct Made {
    id: String,
    path: PathBuf,
    parent: Option<String>,
    import_id: Option<String>,
    shown: Value,
    listed: Value,
}

impl Made {
    fn calls(&self) -> Vec<&Value> {
        let sections = self.shown["session"]["sections"].as_array().unwrap();
        sections
            .iter()
            .flat_map(|s| s["blocks"].as_array().unwrap())
            .filter(|b| b["type"] == "tool_calls")
            .flat_map(|b| b["calls"].as_array().unwrap())
            .collect()
    }

    fn quotes(&self) -> Vec<&str> {
        let sections = self.shown["session"]["sections"].as_array().unwrap();
        sections
            .iter()
            .flat_map(|s| s["blocks"].as_array().unwrap())
            .filter_map(|b| b["user"]["quote"].as_str())
            .collect()
    }
}

fn json_of(kiln: &TestKiln, args: &[&str]) -> Value {
    let out = kiln.run(args);
    assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// Every session in the kiln.
fn made(kiln: &TestKiln) -> Vec<Made> {
    let list = json_of(kiln, &["session", "list", "--format", "json"]);
    list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|listed| {
            let id = listed["id"].as_str().unwrap().to_owned();
            let shown = json_of(kiln, &["session", "show", &id, "--format", "json"]);
            let extra = &shown["session"]["frontmatter"]["extra"];
            Made {
                // `run` wrote the kiln's root as `[KILN]`.
                path: kiln.sessions().join(
                    Path::new(shown["path"].as_str().unwrap())
                        .file_name()
                        .unwrap(),
                ),
                parent: listed["parent"].as_str().map(str::to_owned),
                import_id: extra["import"]["id"].as_str().map(str::to_owned),
                id,
                shown,
                listed: listed.clone(),
            }
        })
        .collect()
}

/// The calls the session's sidecar holds, by id: their arguments and result.
fn sidecar_calls(session: &Path) -> BTreeMap<String, (Value, Value)> {
    let Ok(text) = std::fs::read_to_string(crucible_core::data_path(session)) else {
        return BTreeMap::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["kind"] == "call")
        .filter_map(|r| {
            let id = r["id"].as_str()?.to_owned();
            Some((id, (r["arguments"].clone(), r["result"].clone())))
        })
        .collect()
}

/// A word of `text` to search for: its longest plain word.
fn search_word(text: &str) -> Option<&str> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 5)
        .max_by_key(|w| w.len())
}

/// How a session's payloads are sent.
#[derive(Debug, Clone, Copy)]
enum Send {
    /// One process after the other, in replay order.
    OneByOne,
    /// As above, but each run of tool announcements, of tool results and
    /// of subagent stops all at once, as parallel tool calls and
    /// subagents make Claude Code run them.
    ToolsAtOnce,
}

/// Replays one repository's payloads into a fresh kiln and checks what
/// they made; returns the kiln.
fn replay(repo: &str, send: Send) -> TestKiln {
    let kiln = TestKiln::empty();
    let sessions = sessions_of(repo);
    for payloads in sessions.values() {
        for run in payloads.chunk_by(|a, b| event(a) == event(b)) {
            let parallel = matches!(
                event(&run[0]),
                "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "SubagentStop"
            );
            if parallel && matches!(send, Send::ToolsAtOnce) {
                hooks_at_once(&kiln, run);
            } else {
                for p in run {
                    hook(&kiln, p);
                }
            }
        }
    }
    no_hook_errors(&kiln);
    check_sessions(&kiln, &format!("{repo} ({send:?})"), &sessions);
    kiln
}

/// Every payload of `run` through its own `cru hook claude-code`, all
/// started before any is waited for; each must exit 0 and print nothing.
fn hooks_at_once(kiln: &TestKiln, run: &[Payload]) {
    let children: Vec<_> = run
        .iter()
        .map(|p| {
            // What `TestKiln::command` sets, for a process that is spawned.
            let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("cru"))
                .current_dir(kiln.root.path())
                .env("HOME", kiln.root.path().join("home"))
                .env("XDG_STATE_HOME", kiln.root.path().join("state"))
                .env_remove("CRU_SESSIONS_DIR")
                .env_remove("CRUCIBLE_CONFIG")
                .env_remove("XDG_CONFIG_HOME")
                .env_remove("CLICOLOR_FORCE")
                .env_remove("CRU_LOG")
                .args(["hook", "claude-code"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (p, child)
        })
        .collect();
    let children: Vec<_> = children
        .into_iter()
        .map(|(p, mut child)| {
            let mut stdin = child.stdin.take().unwrap();
            std::io::Write::write_all(&mut stdin, p.raw.as_bytes()).unwrap();
            (p, child)
        })
        .collect();
    for (p, child) in children {
        let out = child.wait_with_output().unwrap();
        let what = format!("{} of {}", event(p), p["session_id"]);
        assert_eq!(out.status.code(), Some(0), "{what}: {out:?}");
        assert!(
            out.stdout.is_empty() && out.stderr.is_empty(),
            "{what}: {out:?}"
        );
    }
}

/// What the payloads of every Claude session made in the kiln.
fn check_sessions(kiln: &TestKiln, at: &str, sessions: &BTreeMap<String, Vec<Payload>>) {
    let made = made(kiln);
    for (claude_id, payloads) in sessions {
        let exp = Expected::of(payloads);
        let mine: Vec<&Made> = made
            .iter()
            .filter(|m| m.parent.is_none() && m.import_id.as_deref() == Some(claude_id))
            .collect();
        if !exp.recorded {
            assert!(mine.is_empty(), "{at} {claude_id}: only notifications");
            continue;
        }
        assert_eq!(
            mine.len(),
            1,
            "{at} {claude_id}: one cru session per Claude session, got {:?}",
            mine.iter().map(|m| &m.id).collect::<Vec<_>>()
        );
        check_session(kiln, at, mine[0], &made, &exp);
    }
    let tops = made.iter().filter(|m| m.parent.is_none()).count();
    let recorded = sessions
        .values()
        .filter(|p| Expected::of(p).recorded)
        .count();
    assert_eq!(tops, recorded, "{at}: no session but the Claude sessions'");
    let out = kiln.run(&["session", "validate"]);
    assert_eq!(out.code, 0, "{at}: validate: {}{}", out.stdout, out.stderr);
}

fn no_hook_errors(kiln: &TestKiln) {
    let log = crucible_capture::error_log::path_in(&kiln.sessions());
    let errors = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(errors.is_empty(), "hook errors:\n{errors}");
    // Where a failure goes when no sessions directory is known yet.
    let state = kiln.root.path().join("state");
    let fallback = crucible_capture::error_log::path_in(&state.join("crucible"));
    assert!(
        !state.exists(),
        "hook errors in the fallback log:\n{}",
        std::fs::read_to_string(fallback).unwrap_or_default()
    );
}

fn check_session(kiln: &TestKiln, at: &str, m: &Made, all: &[Made], exp: &Expected) {
    let at = format!("{at} {}", m.id);
    let calls = m.calls();
    let mut tools: BTreeMap<String, usize> = BTreeMap::new();
    for c in &calls {
        *tools
            .entry(c["tool"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    assert_eq!(tools, exp.calls, "{at}: each call once, by tool");
    let unanswered = calls.iter().filter(|c| c["summary"] == NO_RESULT).count();
    assert_eq!(unanswered, exp.unanswered, "{at}: calls that got no result");
    let failed = calls.iter().filter(|c| c["failed"] == true).count();
    let phases = m.shown["session"]["sections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "phase")
        .count();
    let listed = |k: &str| m.listed[k].as_u64();
    assert_eq!(
        [
            listed("tool_calls"),
            listed("failed_tool_calls"),
            listed("phases")
        ],
        [calls.len(), failed, phases].map(|n| Some(n as u64)),
        "{at}: list (the index) and show (a full parse) agree on calls, failed calls, phases"
    );
    assert!(phases >= exp.prompts.len(), "{at}: a phase per prompt");
    // A call without arguments shows none.
    let shown: BTreeSet<&str> = calls
        .iter()
        .map(|c| c["args"].as_str().unwrap_or(""))
        .collect();
    for args in exp.args.iter().filter(|a| a.len() <= PAYLOAD_LIMIT) {
        assert!(
            shown.contains(args.as_str()),
            "{at}: a call's arguments come back from the markdown as they went in: {:?}",
            crucible_core::cut(args, 200)
        );
    }
    let kept = sidecar_calls(&m.path);
    for (id, whole) in &exp.large {
        assert!(
            kept.get(id) == Some(whole),
            "{at}: large call {id} whole in the sidecar"
        );
    }
    let quotes = m.quotes();
    for prompt in &exp.prompts {
        assert!(
            quotes.contains(&prompt.trim()),
            "{at}: prompt not recorded as said: {:?}",
            crucible_core::cut(prompt, 120)
        );
    }
    for agent in &exp.agents {
        let children = all
            .iter()
            .filter(|c| c.parent.as_deref() == Some(&m.id) && c.import_id.as_deref() == Some(agent))
            .count();
        assert_eq!(children, 1, "{at}: subagent {agent} as one linked session");
    }
    if let Some(word) = exp.prompts.iter().find_map(|p| search_word(p)) {
        let out = kiln.run(&["session", "search", word]);
        assert_eq!(out.code, 0, "{at}: search {word}: {}", out.stderr);
        assert!(
            out.stdout
                .lines()
                .any(|l| l.starts_with(&format!("{}#", m.id))),
            "{at}: search {word} finds it:\n{}",
            out.stdout
        );
    }
}

macro_rules! real_repo {
    ($($name:ident => $dir:literal,)*) => {
        $(
            #[test]
            fn $name() {
                replay($dir, Send::OneByOne);
                replay($dir, Send::ToolsAtOnce);
            }
        )*

        /// Every directory of fixtures/hooks/real is replayed by a test above.
        #[test]
        fn every_real_repository_is_replayed() {
            let mut dirs: Vec<String> = std::fs::read_dir(real())
                .unwrap()
                .map(|e| e.unwrap())
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            dirs.sort();
            let mut tested = vec![$($dir.to_owned()),*];
            tested.sort();
            assert_eq!(dirs, tested);
        }
    };
}

real_repo! {
    hook_real_coorpacademy_serverless_plugins => "CoorpAcademy-serverless-plugins",
    hook_real_cursortouch_operator_use => "CursorTouch-Operator-Use",
    hook_real_nexusinnovation_nexkit => "NexusInnovation-nexkit",
    hook_real_connix_labs_connix => "connix-labs-connix",
    hook_real_kesslerio_attio_mcp_server => "kesslerio-attio-mcp-server",
    hook_real_mta_tech_seeknal => "mta-tech-seeknal",
    hook_real_pleelapr_a_sdlc => "pleelapr-a-sdlc",
    hook_real_tomselander_home_assistant_green_button => "TomSelander-home-assistant-green-button",
}

/// The hook scripts' `chat.json`: their copy of the session's transcript,
/// made at a Stop, as one JSON array of its records (pretty-printed), with
/// the Claude session it belongs to.
const CHATS: [(&str, &str, &str); 2] = [
    (
        "pleelapr-a-sdlc",
        "logs/chat.json",
        "e1046e23-ba96-43fb-a69d-aa1a14fb1819",
    ),
    (
        "CoorpAcademy-serverless-plugins",
        "logs/abc7156b-6420-4373-a150-9b2eecad6805/chat.json",
        "abc7156b-6420-4373-a150-9b2eecad6805",
    ),
];

/// `chat.json` as the scripts write it is no transcript Claude Code
/// writes (those are JSONL): cru refuses it plainly, naming it, and
/// makes nothing; told it is Claude Code's, it reads no record of it.
#[test]
fn hook_real_chat_json_as_copied_is_refused_by_name() {
    for (repo, rel, _) in CHATS {
        let kiln = TestKiln::empty();
        let chat = real().join(repo).join(rel);
        let chat = chat.to_str().unwrap();
        for args in [
            vec!["session", "import", chat],
            vec!["session", "import", "--from", "claude-code", chat],
        ] {
            let out = kiln.run(&args);
            assert_eq!(out.code, 1, "{args:?}: {}{}", out.stdout, out.stderr);
            assert!(
                out.stderr.contains("chat.json: nothing"),
                "{args:?}: {}",
                out.stderr
            );
            assert!(out.stderr.contains("0 created"), "{args:?}: {}", out.stderr);
        }
        assert!(made(&kiln).is_empty());
    }
}

/// Its records written one a line, as Claude Code writes its transcript,
/// and imported after the hooks ran: the session the hooks made is
/// updated, not doubled.
#[test]
fn hook_real_chat_records_update_the_session_hooks_made() {
    for (repo, rel, claude_id) in CHATS {
        let kiln = replay(repo, Send::OneByOne);
        let before = made(&kiln).len();
        let transcript = kiln.root.path().join(format!("{claude_id}.jsonl"));
        std::fs::write(&transcript, chat_jsonl(repo, rel)).unwrap();
        let out = kiln.run(&["session", "import", transcript.to_str().unwrap()]);
        assert_eq!(out.code, 0, "{repo}: {}{}", out.stdout, out.stderr);
        assert!(
            out.stderr.contains("0 created, 1 updated")
                || out.stdout.contains("0 created, 1 updated"),
            "{repo}: {}{}",
            out.stdout,
            out.stderr
        );
        let after = made(&kiln);
        assert_eq!(after.len(), before, "{repo}: no session added");
        let mine = after
            .iter()
            .filter(|m| m.parent.is_none() && m.import_id.as_deref() == Some(claude_id))
            .count();
        assert_eq!(mine, 1, "{repo}: one session for {claude_id}");
        let out = kiln.run(&["session", "validate"]);
        assert_eq!(
            out.code, 0,
            "{repo}: validate: {}{}",
            out.stdout, out.stderr
        );
    }
}

/// A `chat.json`'s records one a line, as Claude Code writes its transcript.
fn chat_jsonl(repo: &str, rel: &str) -> String {
    let text = std::fs::read_to_string(real().join(repo).join(rel)).unwrap();
    let records: Vec<Value> = serde_json::from_str(&text).unwrap();
    let mut jsonl = String::new();
    for r in &records {
        jsonl.push_str(&serde_json::to_string(r).unwrap());
        jsonl.push('\n');
    }
    jsonl
}

/// A real session's hooks with a real transcript to read: its payloads
/// pointed at a copy of the transcript (here, not in the fixtures), the
/// copy grown in five cuts, most of them mid-line, and the session's Stop
/// sent after each. Counting only what is new at each Stop, the hooks
/// come to the tokens an import of the whole transcript counts.
#[test]
fn hook_real_stop_counts_a_real_transcript_as_the_importer_does() {
    for (repo, rel, claude_id) in CHATS {
        let transcript = chat_jsonl(repo, rel).into_bytes();
        let hooked = TestKiln::empty();
        let path = hooked.root.path().join("transcript.jsonl");
        std::fs::write(&path, b"").unwrap();
        let at_copy = |p: &Value| {
            let mut p = p.clone();
            p["transcript_path"] = path.to_str().unwrap().into();
            Payload::of_value(p)
        };
        let sessions = sessions_of(repo);
        let (stops, rest): (Vec<&Payload>, Vec<&Payload>) =
            sessions[claude_id].iter().partition(|p| event(p) == "Stop");
        for p in rest {
            hook(&hooked, &at_copy(p));
        }
        let stop = at_copy(stops.last().expect("the session has a Stop"));
        for k in 1..=5 {
            std::fs::write(&path, &transcript[..transcript.len() * k / 5]).unwrap();
            hook(&hooked, &stop);
        }
        no_hook_errors(&hooked);
        let imported = TestKiln::empty();
        let copy = imported.root.path().join(format!("{claude_id}.jsonl"));
        std::fs::write(&copy, &transcript).unwrap();
        let out = imported.run(&["session", "import", copy.to_str().unwrap()]);
        assert_eq!(out.code, 0, "{repo}: {}", out.stderr);
        let tokens = |kiln: &TestKiln| {
            made(kiln)
                .iter()
                .filter(|m| m.parent.is_none())
                .map(|m| m.listed["tokens"].clone())
                .collect::<Vec<_>>()
        };
        let by_hooks = tokens(&hooked);
        assert!(
            by_hooks[0].as_u64().is_some_and(|t| t > 0),
            "{repo}: {by_hooks:?}"
        );
        assert_eq!(
            by_hooks,
            tokens(&imported),
            "{repo}: hooks and import agree"
        );
    }
}

/// Finding: payloads with an escaped lone UTF-16 surrogate (`"\udc90"`).
/// These come from a log written on Windows (the script read the UTF-8
/// of `═` as cp1252, the byte it could not map kept as a surrogate), but
/// Node's `JSON.stringify` writes the same escape for any string holding
/// half of a pair (text cut in the middle of an emoji, say). serde_json
/// refuses them, so `cru hook claude-code` records nothing of the event:
/// the call is lost, and the error goes to the user's state directory,
/// not the sessions directory's hook error log. Such text should be read
/// with U+FFFD in place of the lone half and the event recorded.
#[test]
fn hook_real_a_lone_surrogate_escape_loses_no_call() {
    let repo = "TomSelander-home-assistant-green-button";
    let sessions = sessions_of(repo);
    let mut seen = 0;
    for payloads in sessions.values() {
        let stop = payloads.iter().rfind(|p| event(p) == "Stop");
        let lone = payloads
            .iter()
            .filter(|p| event(p) == "PreToolUse" && p.raw.contains("\\udc"));
        for p in lone {
            seen += 1;
            let kiln = TestKiln::empty();
            hook(&kiln, p);
            hook(&kiln, stop.expect("its session has a Stop"));
            no_hook_errors(&kiln);
            let made = made(&kiln);
            let calls: Vec<_> = made.iter().flat_map(Made::calls).collect();
            assert_eq!(calls.len(), 1, "{}", crucible_core::cut(&p.raw, 300));
            assert_eq!(calls[0]["tool"], p["tool_name"]);
        }
    }
    assert_eq!(seen, 2, "the log holds two such announcements");
}
