//! What `cru mcp`'s tools promise of their answers holds: each output
//! schema names the fields the answer has, with their types, and no other
//! (review of issue 24, F5); `list_sessions` answers a page and counts the
//! rest (F23).

use serde_json::{Value, json};

use crate::kiln::TestKiln;
use crate::mcp::Client;

fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "integer" => value.is_i64() || value.is_u64(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        other => panic!("a type the test does not know: {other}"),
    }
}

#[test]
fn every_output_schema_describes_the_fields_its_answer_has() {
    let kiln = TestKiln::with_fixtures();
    let mut c = Client::start(&kiln, &[]);
    let listed = c.request("tools/list", json!({}));
    let calls = [
        ("list_sessions", json!({})),
        ("show_session", json!({"id": "2025-12-10-fix-flaky-test"})),
        ("session_stats", json!({})),
        ("search_sessions", json!({"query": "flaky"})),
        ("resume_context", json!({"id": "2025-12-12-long-migration"})),
        ("codify_session", json!({"id": "2025-12-10-fix-flaky-test"})),
        ("learning_cases", json!({})),
        (
            "record",
            json!({"event": "decision", "session": "2025-12-12-long-migration",
                   "text": "checked", "reopen": true}),
        ),
    ];
    for (tool, args) in calls {
        let schema = listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == tool)
            .unwrap()["outputSchema"]
            .clone();
        let answer = c.structured(tool, args);
        let properties = schema["properties"].as_object().unwrap();
        for (field, declared) in properties {
            let value = answer
                .get(field)
                .unwrap_or_else(|| panic!("{tool}: `{field}` declared, not answered: {answer}"));
            let types: Vec<&str> = match &declared["type"] {
                Value::String(t) => vec![t.as_str()],
                Value::Array(ts) => ts.iter().map(|t| t.as_str().unwrap()).collect(),
                other => panic!("{tool}.{field}: no type: {other}"),
            };
            assert!(
                types.iter().any(|t| has_type(value, t)),
                "{tool}.{field}: {value} is not {types:?}"
            );
        }
        for field in answer.as_object().unwrap().keys() {
            assert!(
                properties.contains_key(field),
                "{tool}: `{field}` answered, not declared"
            );
        }
    }
}

#[test]
fn list_sessions_answers_fifty_unless_asked_and_counts_the_rest() {
    let kiln = TestKiln::with_fixtures();
    let text =
        std::fs::read_to_string(kiln.sessions().join("2025-12-10-fix-flaky-test.md")).unwrap();
    for n in 0..55 {
        let id = format!("2025-10-01-copy-{n:02}");
        kiln.write(
            &format!("copies/{id}.md"),
            &text.replace(
                "session_id: 2025-12-10-fix-flaky-test",
                &format!("session_id: {id}"),
            ),
        );
    }
    let all = 55
        + crucible_core::store::session_files(&crate::kiln::fixtures().join("sessions"))
            .unwrap()
            .len();
    let mut c = Client::start(&kiln, &[]);
    let page = c.structured("list_sessions", json!({}));
    assert_eq!(page["sessions"].as_array().unwrap().len(), 50);
    assert_eq!(page["total"], all);
    assert_eq!(page["truncated"], true);
    let every = c.structured("list_sessions", json!({"limit": 1000}));
    assert_eq!(every["sessions"].as_array().unwrap().len(), all);
    assert_eq!(every["truncated"], false);
}
