//! The hook scripts' `chat.json`, their copy of a session's transcript:
//! what cru does with it, and with its records as a transcript.

use serde_json::Value;

use super::logs::{Payload, event, sessions_of};
use super::made::made;
use super::{Send, hook, no_hook_errors, real, replay};
use crate::kiln::TestKiln;

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
