//! What an engine's session list shows of a trace: the root's input (the
//! task), its output (the last words), the provider of each model, and
//! `chat` spans named as the GenAI conventions name them.

use crate::kiln::TestKiln;
use crate::otlp::attr_str;
use crate::otlp_receiver::Receiver;

const SESSION: &str = "---
type: session
session_id: 2026-03-01-io
started: 2026-03-01T10:00:00Z
ended: 2026-03-01T11:00:00Z
status: completed
participants:
  - coder@1.0
model: claude-sonnet-4-20250514
---

# Fix the flaky store test

## Look @coder@1.0
<!-- usage: at=2026-03-01T10:10:00Z input=10 output=5 -->

> [!user]
> Don't just add a retry loop.

The race is in the lock.

## Fix @coder@1.0
<!-- usage: at=2026-03-01T10:40:00Z model=gpt-5.1-codex input=10 output=5 -->

Fixed: the lock is taken before the walk.
";

#[test]
fn the_root_shows_the_task_and_the_last_words() {
    let kiln = TestKiln::empty();
    kiln.write("2026-03-01-io.md", SESSION);
    let rx = Receiver::start();
    let out = crate::otlp::export(&kiln, &rx.url, &["--all"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let spans = rx.spans();
    let root = &spans[0];
    // The title, not the correction halfway through.
    assert_eq!(
        attr_str(root, "input.value"),
        Some("Fix the flaky store test")
    );
    assert_eq!(
        attr_str(root, "output.value"),
        Some("Fixed: the lock is taken before the walk.")
    );
    assert_eq!(attr_str(root, "gen_ai.provider.name"), Some("anthropic"));
    let look = spans.iter().find(|s| s.name == "Look").unwrap();
    assert_eq!(
        attr_str(look, "output.value"),
        Some("The race is in the lock.")
    );
    let chats: Vec<(&str, Option<&str>)> = spans
        .iter()
        .filter(|s| attr_str(s, "gen_ai.operation.name") == Some("chat"))
        .map(|s| (s.name.as_str(), attr_str(s, "gen_ai.provider.name")))
        .collect();
    assert_eq!(
        chats,
        [
            ("chat claude-sonnet-4-20250514", Some("anthropic")),
            ("chat gpt-5.1-codex", Some("openai"))
        ]
    );
}
