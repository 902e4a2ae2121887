//! What a session holds outside its phases (before the first `##` phase)
//! reaches the trace: tool calls as spans of the root, callouts as its
//! events, a failed call as the root's error status.

use opentelemetry_proto::tonic::trace::v1::status::StatusCode;

use crate::kiln::TestKiln;
use crate::otlp_receiver::Receiver;

const SESSION: &str = "---
type: session
session_id: 2026-02-01-pre
started: 2026-02-01T10:00:00Z
ended: 2026-02-01T11:00:00Z
status: completed
participants:
  - coder@1.0
---

# Before the phases

> [!decision]
> Start with the parser.

**Tool calls:**
- `bash before-phase` → ✗ failed early

## Only phase @coder@1.0

**Tool calls:**
- `bash make` → built
";

#[test]
fn blocks_before_the_first_phase_belong_to_the_root() {
    let kiln = TestKiln::empty();
    kiln.write("2026-02-01-pre.md", SESSION);
    let rx = Receiver::start();
    let out = crate::otlp::export(&kiln, &rx.url, &["--all"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let spans = rx.spans();
    let root = spans.iter().find(|s| s.parent_span_id.is_empty()).unwrap();
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "invoke_agent coder",
            "execute_tool bash",
            "Only phase",
            "execute_tool bash"
        ]
    );
    let early = &spans[1];
    assert_eq!(early.parent_span_id, root.span_id);
    assert_eq!(
        early.status.as_ref().unwrap().code,
        StatusCode::Error as i32
    );
    assert_eq!(root.status.as_ref().unwrap().code, StatusCode::Error as i32);
    let events: Vec<&str> = root.events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(events, ["decision"]);
    // Before the phase, inside the root.
    let phase = &spans[2];
    assert!(early.start_time_unix_nano >= root.start_time_unix_nano);
    assert!(early.end_time_unix_nano <= phase.start_time_unix_nano);
}
