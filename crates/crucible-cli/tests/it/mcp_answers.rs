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

/// F23, F8, F27: `resources/list` a page at a time, with a cursor for the
/// rest; the templates name both kinds of resource; `--poll 0` promises
/// no change notification.
#[test]
fn resources_come_in_pages_with_templates_and_poll_zero_promises_nothing() {
    let kiln = TestKiln::with_fixtures();
    let text =
        std::fs::read_to_string(kiln.sessions().join("2025-12-10-fix-flaky-test.md")).unwrap();
    for n in 0..500 {
        let id = format!("2025-09-01-copy-{n:03}");
        kiln.write(
            &format!("copies/{id}.md"),
            &text.replace(
                "session_id: 2025-12-10-fix-flaky-test",
                &format!("session_id: {id}"),
            ),
        );
    }
    let all = 500
        + crucible_core::store::session_files(&crate::kiln::fixtures().join("sessions"))
            .unwrap()
            .len();
    let mut c = Client::start(&kiln, &["--poll", "0"]);
    let mut uris = std::collections::BTreeSet::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = c.request("resources/list", params);
        let resources = page["result"]["resources"].as_array().unwrap();
        assert!(resources.len() <= 500, "{}", resources.len());
        uris.extend(
            resources
                .iter()
                .map(|r| r["uri"].as_str().unwrap().to_owned()),
        );
        pages += 1;
        match page["result"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!((pages, uris.len()), (2, all));
    let bad = c.request("resources/list", json!({"cursor": "not-one"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let templates = c.request("resources/templates/list", json!({}));
    let forms: Vec<&str> = templates["result"]["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert_eq!(forms, ["cru://session/{id}", "cru://workflow/{id}"]);
    let resources = &c.init["result"]["capabilities"]["resources"];
    assert!(resources.get("listChanged").is_none(), "{resources}");
    let polling = Client::start(&kiln, &[]);
    let resources = &polling.init["result"]["capabilities"]["resources"];
    assert_eq!(resources["listChanged"], true, "{resources}");
}
