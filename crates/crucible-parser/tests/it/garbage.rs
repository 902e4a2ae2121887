//! Nothing a parser is fed may panic; whatever parses writes back stably.

use std::path::Path;

use crucible_parser::{check_session, parse_session, write_session};
use proptest::prelude::*;

use crate::strategy::session_log;

/// Pieces of session files and the things that go wrong with them.
const FRAGMENTS: &[&str] = &[
    "---\n",
    "type: session\n",
    "session_id: a-b\n",
    "started: 2025-12-05T14:32:15Z\n",
    "started: 2025-12-05T14:32:15+99:99\n",
    "ended: 2025-02-30T10:00:00Z\n",
    "ended: 2025-12-05T24:00:00+01:00\n",
    "status: active\n",
    "status: paused\nresume_point: phase-2\n",
    "## Phase @a #dev\n",
    "### Nested @b@1.0\n",
    "## Summary\n",
    "# Title\n",
    "**Tool calls:**\n",
    "- `grep x` → 3\n",
    "- `bad\n",
    "- plain\n",
    "> [!decision]\n",
    "> [!subagent] @c (m)\n",
    "> mode: link\n",
    "> [[x]]\n",
    "> ![[../y]]\n",
    "> Summary: s\n",
    "```tasks\n",
    "```system-prompt\n",
    "```prompt\n",
    "```\n",
    "[{\"id\":\"1\",\"content\":\"c\",\"status\":\"pending\"}]\n",
    "[{\"id\":1,\n",
    "<!-- phase: tokens=3 -->\n",
    "<!-- phase: tokens=x -->\n",
    "<!-- phase: started=2025-12-05T14:32:15Z duration_ms=5 -->\n",
    "<!-- phase: started=2025-12-05T14:32:60Z -->\n",
    "<!-- phase: started=2025-13-01 -->\n",
    "\n",
    "\r\n",
    "\u{feff}",
    "text → ✗ `code`\n",
    "    indented\n",
    "***\n",
    "===\n",
    "* * *\n",
    "> > nested\n",
    "<div>\n",
    "[ref]: http://x\n",
    "\t\n",
    "日本語\n",
    "tokens_used: -1\n",
    "tokens_used: 18446744073709551615\n",
    "<!-- phase: tokens=18446744073709551616 -->\n",
    "participants: x\n",
    "subagents:\n  - agent: y\n",
];

pub fn garbage() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..400),
        proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..40)
            .prop_map(|f| f.concat().into_bytes()),
        // A valid file cut anywhere, or with one byte changed.
        (session_log(), any::<proptest::sample::Index>(), any::<u8>()).prop_map(|(log, at, b)| {
            let mut bytes = write_session(&log).into_bytes();
            let i = at.index(bytes.len().max(1));
            if b % 2 == 0 {
                bytes.truncate(i);
            } else if i < bytes.len() {
                bytes[i] = b;
            }
            bytes
        }),
        // Huge lines.
        (1usize..200_000, proptest::sample::select(FRAGMENTS)).prop_map(|(n, f)| format!(
            "---\ntype: session\n---\n{}{f}",
            "x".repeat(n)
        )
        .into_bytes()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_and_writes_stably(bytes in garbage()) {
        let checked = check_session(Path::new("g.md"), &bytes);
        for e in &checked.errors {
            prop_assert!(e.line >= 1);
            prop_assert!(e.to_string().starts_with("g.md:"));
        }
        if let Some(log) = checked.log {
            let once = write_session(&log);
            let back = parse_session(Path::new("g.md"), once.as_bytes());
            prop_assert!(back.is_ok(), "rewrite does not parse: {:?}\n{}", back.err(), once);
            let back = back.unwrap();
            prop_assert_eq!(write_session(&back), once.clone(), "unstable write of\n{}", once);
        }
    }
}
