//! A session recorded by hooks and imported from its transcript is one
//! session, in either order.

use std::path::{Path, PathBuf};

use crucible_capture::{Capture, CaptureOptions, HookInput, Recorded};
use crucible_core::{SessionStore, Timestamp};
use crucible_interop::reconcile::{Fate, Reconciler};
use crucible_parser::MarkdownCodec;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hooks")
}

fn hook(store: &SessionStore<MarkdownCodec>, name: &str, transcript: &Path) -> PathBuf {
    let text = std::fs::read_to_string(fixtures().join(name)).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["transcript_path"] = transcript.to_str().unwrap().into();
    let input: HookInput = serde_json::from_value(v).unwrap();
    let now: Timestamp = "2026-03-02T10:00:20Z".parse().unwrap();
    match Capture::new(store, CaptureOptions::default())
        .record(&input, &now)
        .unwrap()
    {
        Recorded::Session { path, .. } => path,
        Recorded::Nothing => panic!("nothing recorded"),
    }
}

/// `SessionStart`: nothing yet, the session is made at the first prompt.
fn start(store: &SessionStore<MarkdownCodec>, transcript: &Path) {
    let text = std::fs::read_to_string(fixtures().join("session-start.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["transcript_path"] = transcript.to_str().unwrap().into();
    let input: HookInput = serde_json::from_value(v).unwrap();
    let now: Timestamp = "2026-03-02T10:00:20Z".parse().unwrap();
    let r = Capture::new(store, CaptureOptions::default()).record(&input, &now);
    assert_eq!(r.unwrap(), Recorded::Nothing);
}

fn import(store: &SessionStore<MarkdownCodec>, transcript: &Path) -> Vec<(PathBuf, Fate)> {
    let imported =
        crucible_interop::import(transcript, crucible_interop::Format::ClaudeCode).unwrap();
    let mut out = Vec::new();
    Reconciler::new(store, false)
        .unwrap()
        .store(imported, &mut |e| {
            if let crucible_interop::reconcile::Event::Stored(s) = e {
                out.push((s.path.clone(), s.fate));
            }
        })
        .unwrap();
    out
}

fn setup() -> (tempfile::TempDir, SessionStore<MarkdownCodec>, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("t.jsonl");
    let store = SessionStore::new(dir.path().join("sessions"), MarkdownCodec);
    (dir, store, transcript)
}

fn sessions(store: &SessionStore<MarkdownCodec>) -> usize {
    store.scan().into_iter().flatten().count()
}

#[test]
fn hooks_then_import_is_one_session_filled_in_by_the_import() {
    let (_d, store, transcript) = setup();
    std::fs::write(&transcript, "").unwrap();
    start(&store, &transcript);
    let path = hook(&store, "user-prompt-submit.json", &transcript);
    std::fs::copy(fixtures().join("transcript.jsonl"), &transcript).unwrap();
    hook(&store, "post-tool-use.json", &transcript);
    hook(&store, "session-end.json", &transcript);
    let stored = import(&store, &transcript);
    assert_eq!(stored, [(path.clone(), Fate::Updated)]);
    assert_eq!(sessions(&store), 1);
    let log = store.load_path(&path).unwrap();
    // The import saw the replies the hooks did not.
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("[!reply]"), "{text}");
    assert_eq!(log.tool_calls().count(), 1);
    // And a second import changes nothing.
    assert_eq!(import(&store, &transcript), [(path, Fate::Unchanged)]);
}

#[test]
fn import_then_hooks_is_one_session_that_the_next_import_updates() {
    let (_d, store, transcript) = setup();
    std::fs::copy(fixtures().join("transcript.jsonl"), &transcript).unwrap();
    let stored = import(&store, &transcript);
    let [(path, Fate::Created)] = &stored[..] else {
        panic!("not created: {stored:?}")
    };
    let path = path.clone();
    let tokens = store.load_path(&path).unwrap().frontmatter.tokens_used;
    // Hooks installed meanwhile: the next events go to that session.
    assert_eq!(hook(&store, "user-prompt-submit.json", &transcript), path);
    hook(&store, "stop.json", &transcript);
    assert_eq!(sessions(&store), 1);
    assert_eq!(
        store.load_path(&path).unwrap().frontmatter.tokens_used,
        tokens,
        "the usage the import counted is not counted again"
    );
    assert_eq!(import(&store, &transcript), [(path, Fate::Updated)]);
    assert_eq!(sessions(&store), 1);
}
