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

mod chat;
mod expected;
mod logs;
mod made;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::kiln::{TestKiln, fixtures};

use expected::Expected;
use logs::{Payload, event, sessions_of};
use made::{Made, made, search_word, sidecar_calls};

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
/// One event through `cru hook claude-code`: it must exit 0 and print
/// nothing (Claude Code reads a hook's stdout).
fn hook(kiln: &TestKiln, payload: &Payload) {
    let out = kiln
        .command()
        .env("XDG_STATE_HOME", kiln.root.path().join("state"))
        .env("CRU_SESSIONS_DIR", kiln.sessions())
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
                // Hooks capture into the user's sessions directory: named
                // as the kiln's.
                .env("CRU_SESSIONS_DIR", kiln.sessions())
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
            assert!(
                mine.is_empty(),
                "{at} {claude_id}: only notifications or a start"
            );
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
    check_calls(&at, m, exp);
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
            // A hit in a phase (`id#phase`) or in the title (`id  path:line`).
            out.stdout.lines().any(|l| {
                l.starts_with(&format!("{}#", m.id)) || l.starts_with(&format!("{}  ", m.id))
            }),
            "{at}: search {word} finds it:\n{}",
            out.stdout
        );
    }
}

/// The session's calls: each once, with its result, its arguments as
/// they went in, the large ones whole in the sidecar; the index agreeing.
fn check_calls(at: &str, m: &Made, exp: &Expected) {
    let calls = m.calls();
    let mut tools: BTreeMap<String, usize> = BTreeMap::new();
    for c in &calls {
        *tools
            .entry(c["tool"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    assert_eq!(tools, exp.calls, "{at}: each call once, by tool");
    for (tool, n) in &exp.with_result {
        let summarised = calls
            .iter()
            .filter(|c| {
                c["tool"] == tool.as_str() && c["summary"].as_str().is_some_and(|s| s != NO_RESULT)
            })
            .count();
        assert!(
            summarised >= *n,
            "{at}: {tool}: {summarised} of {n} results shown"
        );
    }
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
